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

#endif
