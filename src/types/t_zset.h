/* t_zset: the sorted set type on two ptrees (PT_KEYED both): tree 0 by
 * score (key = the score's order-preserving 8 bytes, then the member; no
 * value, except the score's raw 8 bytes for a -0 score, which sorts as 0),
 * tree 1 by member (key = 32-bit hash of the member, big-endian,
 * then the member; value = the score as 8 bytes). Owns both layouts, the
 * encoding name (listpack while within zset-max-listpack-entries / -value,
 * then skiplist for good) and the operations the sorted set commands, the
 * RDB code and the AOF rewrite use. Writes need an unshared obj
 * (obj_coll_writable). Reads and iteration: any thread holding a reference. */
#ifndef VERSO_T_ZSET_H
#define VERSO_T_ZSET_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

obj *zset_new(void);
uint64_t zset_len(const obj *z);
/* 1 and *score set when the member exists. */
int zset_score(const obj *z, const char *m, size_t ml, double *score);
/* z unshared: adds or updates a member; 1 when it is new. */
int zset_set(obj *z, const char *m, size_t ml, double score);
/* zset_set for a caller that just read the member (zset_score): `had` 1
 * with its score `old`, or 0 when absent. Saves that lookup (ZADD,
 * ZINCRBY). */
void zset_set_known(obj *z, const char *m, size_t ml, int had, double old, double score);
/* z unshared: 1 when the member was there. */
int zset_rem(obj *z, const char *m, size_t ml);

/* Iteration in ascending (score, member) order. */
typedef struct zset_iter { pt_iter it; } zset_iter;
void zset_iter_init(zset_iter *it, const obj *z);
int zset_iter_next(zset_iter *it, const char **m, size_t *ml, double *score);

/* Restore: a sorted set from n members in any order, built bottom-up. NULL
 * when a member repeats or a score is NaN. The bytes are copied. */
typedef struct zset_member { const char *m; size_t ml; double score; } zset_member;
obj *zset_from_members(zset_member *v, size_t n);

/* ---- for the commands (ranks are 0-based in ascending order) ---- */
/* 1 and *rank (and *score when not NULL) set when the member exists. */
int zset_rank(const obj *z, const char *m, size_t ml, uint64_t *rank, double *score);
/* Iteration from rank (< len), ascending or descending (reverse). */
void zset_iter_at(zset_iter *it, const obj *z, uint64_t rank, int reverse);
/* The member at rank (< len): 1, or 0 when out of range. */
int zset_at(const obj *z, uint64_t rank, const char **m, size_t *ml, double *score);
/* The rank of the first member whose score is >= s (> s when excl). */
uint64_t zset_rank_of_score(const obj *z, double s, int excl);
/* The rank of the first member (in tree order) that is >= m by memcmp
 * (> m when excl), assuming the members are in lexicographic order (all
 * scores equal), as Redis's lex ranges do. */
uint64_t zset_rank_of_lex(const obj *z, const char *m, size_t ml, int excl);
/* z unshared: removes the n members from rank (rank + n <= len). */
void zset_delete_range(obj *z, uint64_t rank, uint64_t n);
/* ZSCAN over tree 1: from 32-bit hash position `from`, appends at least
 * `count` members (all members of the last hash value seen) through fn
 * and returns the next position, or 2^32 at the end. */
typedef void zset_scan_fn(void *priv, const char *m, size_t ml, double score);
uint64_t zset_scan(const obj *z, uint64_t from, uint64_t count, zset_scan_fn *fn, void *priv);

/* A sorted set in the big encoding from the start (Redis builds the
 * results of ZUNION/ZINTER/ZDIFF so; -0 scores are kept). */
obj *zset_new_skiplist(void);
/* z unshared: back to the listpack encoding when z is within the limits
 * (zsetConvertToListpackIfNeeded: a store's result), -0 scores becoming 0
 * as a listpack holds them. O(len) only when it converts. */
void zset_convert_if_small(obj *z);

/* Redis's string2d: the whole of p[0..len) is a double (strtod, no
 * leading space, no NaN, no overflow to inf from a finite text): 1 and *out. */
int zset_parse_double(const char *p, size_t len, double *out);
/* A score as Redis 7.0 replies it ("%.17g", "inf", "-inf"): its length;
 * buf holds at least ZSET_SCORE_BUF bytes. */
#define ZSET_SCORE_BUF 32
size_t zset_fmt_score(char *buf, double s);
/* A score as a Redis 7.0 listpack holds it (an integer when the double is
 * one within +-LLONG_MAX/2, else as zset_fmt_score): ZSCAN of a small set. */
size_t zset_fmt_listpack_score(char *buf, double s);

#endif
