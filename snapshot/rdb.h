/* rdb: the snapshot file format, one encoder and one decoder for every path.
 *
 * The stream is RDB version 10 as Redis 7.0 writes it: "REDIS0010", AUX
 * fields, then per database SELECTDB + RESIZEDB and per key an optional
 * EXPIRETIME_MS, the type, the key and the value (strings int-encoded when
 * the bytes are a canonical integer, LZF-compressed when asked and worth it,
 * else length-prefixed; collections as rdb_coll.h says), then EOF and the
 * CRC64 (Jones) of
 * everything before it (0 when not computed). With LZ4 on, the whole stream
 * is wrapped in one LZ4 frame (content checksum only with RDB_NO_CHECKSUM,
 * blocks that do not compress stored as they are), so that `lz4 -d`
 * gives back the plain RDB. See doc/snapshot-format.md.
 *
 * The writer writes to a sink and the loader reads from a source
 * (rdb_io.h: a file, an fd or memory); the buffering, the CRC64 and the LZ4
 * frame are done here, so every sink and source gets them.
 *
 * Used by the forkless serializer (its own thread), the fork child, SAVE,
 * restore on startup (main thread, before the cron timer runs), a replica's
 * loader thread (a full sync's payload, repl/replica_load.c), the AOF base
 * and DUMP/RESTORE (one value, rdb_write_value / rdb_read_value). A writer
 * or reader belongs to the one thread that opened it. */
#ifndef VERSO_RDB_H
#define VERSO_RDB_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"
#include "rdb_io.h"

/* The `compress` argument of rdb_writer_open: flags, or-ed.
 *   RDB_COMPRESS_LZ4   the whole stream in one LZ4 frame (verso's
 *                      snapshot-compression lz4; Redis cannot read it);
 *   RDB_COMPRESS_LZF   strings longer than 20 bytes LZF-compressed when that
 *                      saves at least 4 bytes, as Redis's rdbcompression yes;
 *   RDB_NO_CHECKSUM    a zero CRC64, not computed, as rdbchecksum no;
 *   RDB_YIELD          the writing thread yields the CPU every few hundred
 *                      elements of a collection (the forkless serializer:
 *                      when it shares a core with the main thread, a big
 *                      value must not keep the main thread off it);
 *   RDB_CONSUME        the writer holds its own reference to each value
 *                      (the forkless serializer): a stream's entries are
 *                      walked consuming (stream_iter_init_consume), so
 *                      what the main thread trims or deletes meanwhile is
 *                      freed as the walk passes it, not at the save's end.
 * 0 (RDB_COMPRESS_NONE) is a plain RDB with every string verbatim. */
enum {
    RDB_COMPRESS_NONE = 0,
    RDB_COMPRESS_LZ4 = 1,
    RDB_COMPRESS_LZF = 2,
    RDB_NO_CHECKSUM = 4,
    RDB_YIELD = 8,
    RDB_CONSUME = 16,
};

#define RDB_ERRLEN 256

/* ---- writing ---- */

typedef struct rdb_writer rdb_writer;

/* Writes one key as the commands that rebuild it, through out(ctx, bytes,
 * n) (0, or -1 when out failed: then return -1). For an AOF base without
 * the RDB preamble (aof/rewrite.h). Any thread holding the key and value. */
typedef int (*rdb_out_fn)(void *ctx, const void *p, size_t n);
typedef int (*rdb_cmds_fn)(const char *key, size_t klen, const obj *val, int64_t expire,
                           rdb_out_fn out, void *ctx);

/* What a replication payload tells the replica about the stream after it
 * (Redis's repl-stream-db, repl-id, repl-offset AUX fields). */
typedef struct rdb_repl_aux {
    int set;                 /* 1: write the three fields */
    int stream_db;           /* the database the stream goes on in */
    char id[41];             /* the replication id ... */
    long long offset;        /* ... and offset at the snapshot's cut */
} rdb_repl_aux;

typedef struct rdb_aux {
    const char *redis_ver;   /* "7.0.15"-style version string we report */
    int64_t ctime;           /* unix seconds */
    int64_t used_mem;
    int aof_base;            /* 1 when writing an AOF base */
    rdb_cmds_fn as_commands; /* non-NULL: the stream is RESP commands, not
                                an RDB (aof-use-rdb-preamble no): no header,
                                trailer or compression, SELECT when the
                                database changes, each key as this writes it */
    rdb_repl_aux repl;       /* a replication payload's fields (repl.set) */
    obj **functions;         /* the function libraries' codes, written after
                                the AUX fields as opcode 245 records (as
                                commands: FUNCTION LOAD <code> each, as
                                Redis's AOF rewrite); references the filler
                                took (function_codes) and releases after
                                the writer's opening, which writes them */
    size_t nfunctions;
    char *staged_slots;      /* AUX verso-staged-slots ("a-b,c-d", the slots
                                an import was loading at the cut), NULL:
                                none; the filler's, freed with the aux */
} rdb_aux;

/* Settings the writers opened from now on take (each keeps what it found
 * at its opening, whatever thread it runs on): list-max-listpack-size,
 * which shapes quicklist nodes as Redis's (default -2), and
 * rdb-key-save-delay, microseconds slept after each key a snapshot writes
 * (Redis's testing knob: tests make saves long with it; 0 none; DUMP never
 * sleeps). Main thread, before a save starts or a DUMP. */
void rdb_set_writer_opts(int list_fill, int key_save_delay_us);

/* Writes the header and AUX fields to `out` (which stays the caller's: it
 * frees it after rdb_writer_finish or rdb_writer_abort, which finish or
 * abort it). `compress`: RDB_COMPRESS_* and RDB_NO_CHECKSUM flags (above).
 * NULL on error with err filled (the sink is then aborted). */
rdb_writer *rdb_writer_open_sink(sink *out, int compress, const rdb_aux *aux,
                                 char *err, size_t errlen);
/* The same on a file sink of its own: creates `path` (O_EXCL not required:
 * callers pass a fresh temp name); finish fsyncs and closes it, the caller
 * then renames it with rdb_commit_file. */
rdb_writer *rdb_writer_open(const char *path, int compress, const rdb_aux *aux,
                            char *err, size_t errlen);
/* Declares the sizes of database `db` (RESIZEDB hint, written when the
 * database is first selected). Optional. */
void rdb_writer_dbsize(rdb_writer *w, int db, uint64_t keys, uint64_t expires);
/* Writes one key. Keys of one database need not be contiguous: the writer
 * emits SELECTDB whenever `db` differs from the previous key's. expire is
 * unix ms or -1. Returns 0, or -1 with the error kept in the writer. */
int rdb_writer_put_key(rdb_writer *w, int db, const char *key, size_t klen, const obj *val,
                       int64_t expire);
/* The same with the key as a (RAW) obj, or read from a table's value. */
int rdb_writer_put(rdb_writer *w, int db, const obj *key, const obj *val,
                   int64_t expire);
int rdb_writer_put_kv(rdb_writer *w, int db, const obj *kv, int64_t expire);
/* Bytes written to the sink so far (after compression). */
uint64_t rdb_writer_bytes(const rdb_writer *w);
/* Writes EOF + CRC64, ends the LZ4 frame and finishes the sink (a file:
 * fsync and close). 0 or -1 with err. Frees the writer either way. */
int rdb_writer_finish(rdb_writer *w, char *err, size_t errlen);
/* Aborts the sink and frees without finishing (the caller removes a temp
 * file it opened with rdb_writer_open). */
void rdb_writer_abort(rdb_writer *w);
/* The error of the last failed put. */
const char *rdb_writer_error(const rdb_writer *w);

/* Makes `tmp` the file `path`: rename, then fsync of the directory, so that a
 * crash leaves the old or the new file, never a torn one. 0 or -1 with err. */
int rdb_commit_file(const char *tmp, const char *path, char *err, size_t errlen);

/* One value as DUMP carries it, the same encoding as in a snapshot: its RDB
 * type byte, then the value (LZF strings with RDB_COMPRESS_LZF in compress,
 * as Redis's DUMP follows rdbcompression). No header, checksum or LZ4
 * frame. 0, or -1 with err (the sink failed). */
int rdb_write_value(sink *out, const obj *val, int compress, char *err, size_t errlen);

/* FUNCTION DUMP's records: each code as opcode 245 (RDB_OPCODE_FUNCTION2)
 * and the string, as Redis's rdbSaveFunctions. 0, or -1 with err. */
int rdb_write_functions(sink *out, obj *const *codes, size_t n, int compress, char *err,
                        size_t errlen);

/* ---- reading ---- */

typedef struct rdb_load_cb {
    /* RESIZEDB: pre-size database `db`. May be NULL. */
    void (*resize)(void *priv, int db, uint64_t keys, uint64_t expires);
    /* One key: the callee owns the references to key and val. Return 0, or
     * -1 to stop loading (e.g. db index out of range) with a message in err. */
    int (*key)(void *priv, int db, obj *key, obj *val, int64_t expire,
               char *err, size_t errlen);
    /* Progress, between keys every 4 KiB of the stream (bytes of the file
     * consumed so far, of total; 0 when unknown). May be NULL. */
    void (*progress)(void *priv, uint64_t bytes_read, uint64_t bytes_total,
                     uint64_t keys);
    /* The load ended (ok = 1) or failed (ok = 0): a callee that batches keys
     * finishes or drops its batch. May be NULL. */
    void (*end)(void *priv, int ok);
    /* May be NULL; used instead of `key` when set, by a callee that inserts
     * keys later (in batches) and so may refuse a key after the fact (a
     * duplicated key). *at is the offset of this key's record, as the
     * loader's errors give it; on -1 the callee sets *at to the offset of
     * the key it refused (a record it saw earlier) and err to why. Called
     * once more with key == NULL (val NULL) when the data ends, before the
     * checksum: the callee inserts what it still holds. */
    int (*key_at)(void *priv, int db, obj *key, obj *val, int64_t expire, uint64_t *at,
                  char *err, size_t errlen);
    /* May be NULL (then a file with functions is refused): a function
     * library's code (opcode 245), read before the databases. Return 0, or
     * -1 with err to stop loading. */
    int (*function)(void *priv, const char *code, size_t len, char *err, size_t errlen);
} rdb_load_cb;

typedef struct rdb_load_stats {
    uint64_t keys_loaded;
    uint64_t keys_expired;   /* skipped: already expired at now_ms */
    uint64_t keys_empty;     /* skipped: empty collections (as Redis) */
    int compressed;          /* 1 when the file was an LZ4 frame */
    int repl_stream_db;      /* AUX repl-stream-db, -1 when absent */
    char repl_id[41];        /* AUX repl-id, "" when absent */
    long long repl_offset;   /* AUX repl-offset, -1 when absent */
    uint64_t file_bytes;
    uint64_t rdb_end;        /* file offset just past the RDB (its checksum,
                                or the LZ4 frame); set when the load ends well */
    obj **functions;         /* restore_into_tables only: the function
                                libraries' codes it read (references the
                                caller takes: function_codes_free) */
    size_t nfunctions;
    int has_staged;          /* 1: AUX verso-staged-slots was read ... */
    uint8_t staged[16384 / 8]; /* ... these slots (bit s & 7 of byte s >> 3) */
} rdb_load_stats;

/* Loads a snapshot: detects plain RDB or LZ4 frame by the magic, verifies
 * the RDB CRC64 and the LZ4 content checksum (when the frame has one), skips keys expired before
 * now_ms. Returns 0; 1 when the file does not exist (nothing loaded); -1 on
 * any damage, with err naming the file, the byte offset and what was wrong,
 * e.g. "dump.rdb: offset 1234: bad CRC64 checksum". The file is never
 * changed. Accepts what Redis 7.0 writes: RDB versions 1..10, int-encoded
 * and LZF-compressed strings, every hash, list, set and sorted set type and
 * encoding (rdb_coll.h), streams of types 15 and 19 (rdb_stream.h),
 * EXPIRETIME and EXPIRETIME_MS, AUX and RESIZEDB. Empty collections are
 * skipped (keys_empty), as Redis does (an empty stream is kept, as Redis
 * keeps it). Function libraries (opcode 245) go to cb->function. 7.2's
 * types (set listpack 20, stream listpacks 3 21), modules, pre-GA
 * functions and functions without a cb->function are refused with a
 * message naming the key (for a value), the type and the offset. */
int rdb_load_file(const char *path, int64_t now_ms, const rdb_load_cb *cb,
                  void *priv, rdb_load_stats *st, char *err, size_t errlen);
/* The same from any source (rdb_io.h), which stays the caller's; errors
 * name the source. Returns 0 or -1 (never 1). When the source's size is
 * unknown (a pipe, a socket), the checks that compare lengths with the
 * bytes left are skipped and RESIZEDB hints are capped at 2^28 keys. */
int rdb_load(source *src, int64_t now_ms, const rdb_load_cb *cb, void *priv,
             rdb_load_stats *st, char *err, size_t errlen);
/* The same for the RDB preamble of an AOF file (Redis's single-file AOF
 * of aof-use-rdb-preamble yes, or a base file): a plain RDB may be followed
 * by other bytes (the AOF's commands), which are left unread; st->rdb_end
 * says where they start. An LZ4 frame must still end the file. */
int rdb_load_preamble(source *src, int64_t now_ms, const rdb_load_cb *cb, void *priv,
                      rdb_load_stats *st, char *err, size_t errlen);
/* One value as rdb_write_value wrote it: the type byte and the value, read
 * from src; bytes after the value are left unread (Redis's RESTORE does
 * not look at them either). *val is a new reference. 0, or -1 with err naming the source, the
 * offset and what was wrong (an unsupported type, damaged bytes). */
int rdb_read_value(source *src, obj **val, char *err, size_t errlen);
/* FUNCTION RESTORE's records, up to offset end of src: each opcode byte
 * and string given to fn (op, code, len): fn returns 0, or -1 to stop
 * (its reason is its own). Returns 0; -1 when fn stopped or the bytes are
 * damaged (err names the offset). */
typedef int (*rdb_function_fn)(void *priv, int op, const char *code, size_t len);
int rdb_read_functions(source *src, uint64_t end, rdb_function_fn fn, void *priv, char *err,
                       size_t errlen);

#endif
