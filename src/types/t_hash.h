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

/* ---- additions for the commands ---- */
/* The field's 32-bit hash: the prefix of its tree key, HSCAN's position. */
uint32_t hash_field_hash(const char *f, size_t fl);
/* The field at rank (< hash_len) in the tree's order: 1, or 0 when out of
 * range (HRANDFIELD). */
int hash_at(const obj *h, uint64_t rank, const char **f, size_t *fl, const char **v,
            size_t *vl);
/* HSCAN over the big form: calls fn for the fields from hash position
 * `cursor` on, at least `count` of them (all the fields of the last hash
 * visited: a batch never splits equal hashes) or up to the end. Returns
 * the cursor to resume at (the next field's hash), 0 when done. Pointers
 * given to fn are valid until the next write to h. */
typedef void hash_scan_fn(void *priv, const char *f, size_t fl, const char *v, size_t vl);
uint64_t hash_scan(const obj *h, uint64_t cursor, size_t count, hash_scan_fn *fn, void *priv);

/* Restore: a hash from n pairs in any order, built bottom-up (sorted by
 * the tree's order, then pt_build). NULL when a field repeats. The pairs'
 * bytes are copied. */
typedef struct hash_pair { const char *f; size_t fl; const char *v; size_t vl; } hash_pair;
obj *hash_from_pairs(hash_pair *p, size_t n);

#endif
