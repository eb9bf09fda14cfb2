/* rdb_priv: what the RDB writer (rdb_write.c) and loader (rdb_read.c) lend
 * to the collection codecs (rdb_coll.c): their stream primitives. Private
 * to snapshot/; the rest of verso uses rdb.h. Each call runs on the thread
 * that owns the writer or reader. */
#ifndef VERSO_RDB_PRIV_H
#define VERSO_RDB_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "rdb.h"

/* ---- writer ---- */

/* A length prefix (rdbSaveLen). 0 or -1 (the writer failed). */
int rdbw_len(rdb_writer *w, uint64_t len);
/* A string as rdbSaveRawString: int-encoded when canonical and short, LZF
 * when the writer compresses and it is worth it, else length + bytes. */
int rdbw_string(rdb_writer *w, const char *s, size_t len);
/* Bytes as they are (a binary double, a quicklist container byte). */
int rdbw_raw(rdb_writer *w, const void *p, size_t n);
/* One collection element encoded (also when it went into a blob, not
 * through rdbw_string): with RDB_YIELD, yields the CPU every few hundred. */
void rdbw_element(rdb_writer *w);
/* Makes the writer failed with this message (keeps the first error). */
int rdbw_fail(rdb_writer *w, const char *msg);
/* list-max-listpack-size at the writer's opening (rdb_set_writer_opts). */
int rdbw_list_fill(const rdb_writer *w);
/* RDB_CONSUME: the writer's values are its own references, to walk
 * consuming (stream entries). */
int rdbw_consume(const rdb_writer *w);

/* ---- reader ---- */

typedef struct rd rd;

/* A string just read: bytes (valid until the next read) or an integer. */
typedef struct rstr {
    const char *p;
    size_t len;
    int is_int;
    long long v;
} rstr;

/* Offset in the plain RDB stream of the next byte. */
uint64_t rdbr_off(const rd *r);
/* Plain bytes left in the source when known, else UINT64_MAX: the bound on
 * how many elements a length may promise. */
uint64_t rdbr_left(const rd *r);
int rdbr_len(rd *r, uint64_t *len, const char *what);
int rdbr_string(rd *r, rstr *s);
int rdbr_raw(rd *r, void *p, size_t n);
/* The load fails with "<source>: offset <off>: key "<key>": <what>". */
int rdbr_fail(rd *r, uint64_t off, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
