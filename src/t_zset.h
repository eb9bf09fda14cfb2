/* t_zset: the sorted set type on two ptrees (PT_KEYED both): tree 0 by
 * score (key = the score's order-preserving 8 bytes, then the member; no
 * value), tree 1 by member (key = 32-bit hash of the member, big-endian,
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

#endif
