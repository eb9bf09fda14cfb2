/* listpack: the packed blobs Redis keeps inside RDB values, encoded and
 * decoded byte for byte as Redis 7.0 does (its listpack.c, ziplist.c,
 * intset.c, zipmap.c):
 *   listpack  hash / zset small forms and quicklist v2 nodes (written and read)
 *   ziplist   the same before 7.0, quicklist v1 nodes (read; the encoder
 *             exists for tests and hand-built files)
 *   intset    small sets of integers (written and read)
 *   zipmap    hashes before 2.6 (read; encoder for tests)
 *
 * Decoding is two steps: *_validate checks a whole blob (header, every
 * entry's encoding and length against the blob's end, back-lengths or
 * prev-lengths, the count, the end byte; intsets: the encoding, the size and
 * the strict order) and fills err on damage; only then may *_iter walk it,
 * which trusts what validate checked. Nothing here allocates while decoding.
 * Encoders append to a vbuf. Pure functions: any thread. */
#ifndef VERSO_LISTPACK_H
#define VERSO_LISTPACK_H

#include <stddef.h>
#include <stdint.h>

#include "lpsize.h"
#include "vbuf.h"

/* One entry of a blob: a string (p, n) or an integer (is_int, v). */
typedef struct blob_ent {
    const char *p;
    size_t n;
    int is_int;
    long long v;
} blob_ent;

/* The entry as bytes: s->p itself, or v's decimal form written into buf
 * (at least 24 bytes). */
const char *blob_ent_str(const blob_ent *e, char *buf, size_t *len);

/* ---- listpack ---- */
#define LP_HDR 6                 /* total bytes (u32 LE) + count (u16 LE) */
#define LP_COUNT_UNKNOWN 65535u

/* Starts a listpack in b (emptied first). */
void lp_begin(vbuf *b);
/* Appends an entry as lpAppend does: an integer encoding when the bytes are
 * a canonical int64 (str_to_ll), else a string encoding. */
void lp_append(vbuf *b, const char *p, size_t n);
void lp_append_int(vbuf *b, long long v);
/* Writes the header (total bytes, count or LP_COUNT_UNKNOWN) and the end
 * byte; count is the number of entries appended. */
void lp_end(vbuf *b, uint64_t count);
/* Bytes lp_append adds for an element: lpsize.h's lp_entry_size. */
/* lp_begin + lp_end: the bytes of an empty listpack. */
#define LP_EMPTY_SIZE 7

int lp_validate(const unsigned char *lp, size_t len, uint64_t *count, char *err,
                size_t errlen);
typedef struct lp_iter { const unsigned char *p; } lp_iter;
void lp_iter_init(lp_iter *it, const unsigned char *lp);
int lp_iter_next(lp_iter *it, blob_ent *e);

/* ---- ziplist ---- */
#define ZL_HDR 10                /* zlbytes u32, zltail u32, zllen u16, LE */
#define ZL_COUNT_UNKNOWN 65535u

void zl_begin(vbuf *b);
/* Appends as ziplistPush at the tail: integers (up to 31 bytes of text,
 * canonical) in the smallest of int8/16/24/32/64 or the 4-bit immediate. */
void zl_append(vbuf *b, const char *p, size_t n);
void zl_end(vbuf *b, uint64_t count);

int zl_validate(const unsigned char *zl, size_t len, uint64_t *count, char *err,
                size_t errlen);
typedef struct zl_iter { const unsigned char *p; } zl_iter;
void zl_iter_init(zl_iter *it, const unsigned char *zl);
int zl_iter_next(zl_iter *it, blob_ent *e);

/* ---- intset ---- */
#define IS_HDR 8                 /* encoding u32 (2, 4, 8), length u32, LE */

/* Writes an intset of the n values (sorted ascending, distinct) to b
 * (emptied first) with the smallest encoding that holds them all. */
void is_encode(vbuf *b, const int64_t *v, size_t n);
int is_validate(const unsigned char *is, size_t len, uint64_t *count, char *err,
                size_t errlen);
int64_t is_get(const unsigned char *is, uint64_t i);

/* ---- zipmap ---- */
/* Starts / appends a key-value pair / ends a zipmap (count < 254 stored,
 * else 254 "count unknown"). free bytes after each value: 0. */
void zm_begin(vbuf *b);
void zm_append(vbuf *b, const char *k, size_t kl, const char *v, size_t vl);
void zm_end(vbuf *b, uint64_t pairs);

/* *count: pairs. */
int zm_validate(const unsigned char *zm, size_t len, uint64_t *count, char *err,
                size_t errlen);
typedef struct zm_iter { const unsigned char *p; } zm_iter;
void zm_iter_init(zm_iter *it, const unsigned char *zm);
/* The next pair: key in k, value in v (both strings). */
int zm_iter_next(zm_iter *it, blob_ent *k, blob_ent *v);

#endif
