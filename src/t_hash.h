/* t_hash: the hash type on a ptree (PT_KEYED; key = 32-bit hash of the
 * field, big-endian, then the field; value = the value). Owns the item
 * layout, the encoding name (listpack while within hash-max-listpack-entries
 * / -value, then hashtable for good) and the operations the hash commands,
 * the RDB code and the AOF rewrite use. Writes need an unshared obj
 * (obj_coll_writable). Reads and iteration: any thread holding a reference. */
#ifndef VERSO_T_HASH_H
#define VERSO_T_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

obj *hash_new(void);
uint64_t hash_len(const obj *h);
/* 1 and *v / *vl set when the field exists. */
int hash_get(const obj *h, const char *f, size_t fl, const char **v, size_t *vl);
/* Sets a field (h unshared): 1 when it is new, 0 when it was replaced. */
int hash_set(obj *h, const char *f, size_t fl, const char *v, size_t vl);
/* Deletes a field (h unshared): 1 when it was there. */
int hash_del(obj *h, const char *f, size_t fl);

/* Iteration over every field, in the tree's (hash) order. */
typedef struct hash_iter { pt_iter it; } hash_iter;
void hash_iter_init(hash_iter *it, const obj *h);
int hash_iter_next(hash_iter *it, const char **f, size_t *fl, const char **v, size_t *vl);

/* Restore: a hash from n pairs in any order, built bottom-up (sorted by
 * the tree's order, then pt_build). NULL when a field repeats. The pairs'
 * bytes are copied. */
typedef struct hash_pair { const char *f; size_t fl; const char *v; size_t vl; } hash_pair;
obj *hash_from_pairs(hash_pair *p, size_t n);

#endif
