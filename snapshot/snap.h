/* snap: snapshots of the keyspace: forkless BGSAVE on the versioned table,
 * fork BGSAVE beside it, SAVE, save points, restore on startup, and the
 * persistence figures of INFO.
 *
 * The main-thread side of every save lives here; the forkless serializer
 * thread is in serializer.c, the fork child in forksave.c. See
 * doc/design.md for the protocol. Main thread only unless stated. */
#ifndef VERSO_SNAP_H
#define VERSO_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "vbuf.h"
#include "vt.h"
#include "rdb.h"

#define SNAP_ERRLEN 512

enum { SNAP_NONE = 0, SNAP_FORKLESS = 1, SNAP_FORK = 2 };

/* Sets the snapshot module up and registers its hooks with the core. */
void snap_init(void);
/* Registers the snapshot's commands with the command table (cmd_register:
 * before cmd_init): SAVE, BGSAVE, LASTSAVE (snap_cmd.c), DUMP, RESTORE
 * (dump_cmd.c), FUNCTION DUMP and RESTORE (function_cmd.c). snap_init
 * calls it; a test that runs commands without the snapshot's start calls
 * it itself. */
void snap_register_commands(void);
/* Restores the snapshot at startup (cfg.dir/cfg.dbfilename). 0 (also when
 * there is no file), -1 with err naming file, offset and reason. */
int snap_load_startup(char *err, size_t errlen);

/* The rdb_writer_open flags of a save, from the config: the LZ4 frame with
 * snapshot-compression lz4 (and then no per-string LZF: compressing twice
 * costs CPU for next to nothing), else LZF strings with rdbcompression yes,
 * as Redis; RDB_NO_CHECKSUM with rdbchecksum no. An AOF base (aof_base 1)
 * is never LZ4, so that redis-check-aof and redis-server read it. */
int snap_rdb_flags(int aof_base);
/* Starts a background save with cfg.bgsave_method. 0, or -1 with the error
 * to send (e.g. "ERR Background save already in progress"). */
int snap_bgsave(char *err, size_t errlen);
/* AOF rewrite: a forkless save at this instant of every database to tmp,
 * renamed to path, with the aof-base AUX field, or, when cmds is not NULL,
 * as the commands cmds writes (aof-use-rdb-preamble no; rdb.h). done(priv,
 * status, err, bytes) runs on the main thread when it ends: status 0 ok,
 * -1 failed, 1 aborted. -1 with err when a save is already running. */
typedef void (*snap_done_fn)(void *priv, int status, const char *err, uint64_t bytes);
int snap_start_aof_base(const char *tmp, const char *path, rdb_cmds_fn cmds, snap_done_fn done,
                        void *priv, char *err, size_t errlen);
int snap_aof_base_running(void);
/* A replication save (repl/fullsync.c): every database at this instant
 * into `out` (the caller's, a fan-out to replica sockets or a temp file),
 * a plain RDB (LZF strings by rdbcompression, never LZ4: replicas may be
 * redis-server), forkless or forked by cfg.bgsave_method. done(priv,
 * status, err, bytes) runs on the main thread when it ends (0 ok, -1
 * failed, 1 aborted at shutdown). FLUSHALL does not abort it (snap_abort
 * leaves it alone). repl: the payload's repl-stream-db, repl-id and
 * repl-offset AUX fields. -1 with err when a save is already running. */
int snap_start_sink(sink *out, const rdb_repl_aux *repl, snap_done_fn done, void *priv,
                    char *err, size_t errlen);
/* The replication history a snapshot records (its repl-id, repl-offset and
 * repl-stream-db AUX fields): fn fills it and sets ->set, or leaves it
 * unset (nothing to record). Registered by repl/ at startup. Not used for
 * an AOF base. */
typedef void (*snap_repl_info_fn)(rdb_repl_aux *out);
void snap_set_repl_info(snap_repl_info_fn fn);
/* What the snapshot loaded at startup recorded: 1 and *out filled, or 0. */
int snap_loaded_repl_info(rdb_repl_aux *out);
/* BGSAVE SCHEDULE: start a background save as soon as none runs. */
void snap_schedule(void);
/* SAVE: a synchronous save on the main thread (blocks clients, as Redis). */
int snap_save_sync(char *err, size_t errlen);
int snap_in_progress(void);
/* FLUSHALL/FLUSHDB, AOF off: abort a running save cleanly (not a failure).
 * A forkless save whose thread has already finished but whose completion
 * has not run yet counts as aborted too (no success recorded; an AOF base
 * it renamed into place is removed, the rewrite is told status 1). */
void snap_abort(const char *why);
/* FLUSHALL with save points: save the empty dataset at once, as Redis does,
 * so that a restart cannot bring the flushed keys back. */
void snap_after_flushall(void);
/* A table that FLUSHDB/FLUSHALL replaced: 1 when a running forkless save
 * still reads it (it is freed once the save has ended), 0 when the caller
 * frees it now. */
int snap_keep_retired_table(vt *t);
/* Save points, child reaping and progress; called by the server cron. */
void snap_cron(void);
/* Shutdown: wait for/abort a running save, then save when `save` (or when
 * save points exist and !nosave). 0, or -1 with err. */
int snap_shutdown(int nosave, int save, char *err, size_t errlen);
/* INFO persistence (the snapshot part). */
void snap_info(vbuf *b);
/* Allocator bytes of the keys and values a running forkless save holds in
 * its queue (handed over by the main thread, not written yet): memory that
 * (but for a value the table still shares) only the save keeps alive. 0
 * when no forkless save runs. Main thread. */
size_t snap_retained_bytes(void);
int64_t snap_lastsave(void);

#endif
