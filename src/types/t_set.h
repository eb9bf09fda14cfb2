/* t_set: the set type on a ptree (PT_KEYED; key = 32-bit hash of the member,
 * big-endian, then the member; no value). Owns the item layout, the
 * encoding name (intset while every member is an integer and within
 * set-max-intset-entries, listpack is not a 7.0 set encoding, then
 * hashtable for good) and the operations the set commands, the RDB code and
 * the AOF rewrite use. Writes need an unshared obj (obj_coll_writable).
 * Reads and iteration: any thread holding a reference. */
#ifndef VERSO_T_SET_H
#define VERSO_T_SET_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

obj *set_new(void);
uint64_t set_len(const obj *s);
int set_has(const obj *s, const char *m, size_t ml);
/* s unshared: 1 when added / removed. */
int set_add(obj *s, const char *m, size_t ml);
int set_rem(obj *s, const char *m, size_t ml);

typedef struct set_iter { pt_iter it; } set_iter;
void set_iter_init(set_iter *it, const obj *s);
int set_iter_next(set_iter *it, const char **m, size_t *ml);

/* Restore: a set from n members in any order, built bottom-up. NULL when a
 * member repeats. The bytes are copied. */
typedef struct set_member { const char *m; size_t ml; } set_member;
obj *set_from_members(set_member *v, size_t n);

/* ---- for the commands (cmd_set.c) ----
 * The tree's order is (hash, member): hash order, the same for every set,
 * so members listed in tree order can be merged, deduplicated and built
 * into a set without a hash table. */

/* The 32-bit hash that prefixes a member's key. */
uint32_t set_hash(const char *m, size_t ml);
/* 1 and *v set when m is a member Redis's intset would hold (a canonical
 * decimal int64). */
int set_member_int(const char *m, size_t ml, long long *v);

/* A member with its hash; set_sort_hmembers puts a list in tree order. */
typedef struct set_hmember { uint32_t h; const char *m; size_t ml; } set_hmember;
void set_sort_hmembers(set_hmember *v, size_t n);
/* A set from n distinct members already in tree order (bytes copied),
 * encoded as a set built by adding them (intset when all are integers and
 * n <= set-max-intset-entries). */
obj *set_from_sorted(const set_hmember *v, size_t n);

/* Iteration from a rank, with each member's hash. */
void set_iter_init_at(set_iter *it, const obj *s, uint64_t rank);
int set_iter_next_h(set_iter *it, const char **m, size_t *ml, uint32_t *h);
/* The member at rank (< set_len): pointers valid until the next write. */
void set_at(const obj *s, uint64_t rank, const char **m, size_t *ml);
/* s unshared: removes the member at rank. */
void set_del_at(obj *s, uint64_t rank);
/* Rank of the first member whose hash is >= h (SSCAN's cursor). */
uint64_t set_rank_of_hash(const obj *s, uint32_t h);
/* s unshared: the encoding a set built afresh from its members would have
 * (Redis's SPOP makes a new set of the members it keeps). O(n). */
void set_reset_encoding(obj *s);

#endif
