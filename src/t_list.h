/* t_list: the list type on a ptree (PT_SEQ: a rope; item value = the
 * element). Owns the encoding name (listpack while within
 * list-max-listpack-size, then quicklist for good) and the operations the
 * list commands, the RDB code and the AOF rewrite use. Writes need an
 * unshared obj (obj_coll_writable). Reads and iteration: any thread holding
 * a reference. */
#ifndef VERSO_T_LIST_H
#define VERSO_T_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

obj *list_new(void);
uint64_t list_len(const obj *l);
/* l unshared: element at the head (where = LIST_HEAD) or tail. */
enum { LIST_HEAD = 0, LIST_TAIL = 1 };
void list_push(obj *l, int where, const char *p, size_t n);

/* Iteration from the head. */
typedef struct list_iter { pt_iter it; } list_iter;
void list_iter_init(list_iter *it, const obj *l);
int list_iter_next(list_iter *it, const char **p, size_t *n);

/* Restore: a list from n elements in order, built bottom-up. The bytes are
 * copied. */
typedef struct list_elem { const char *p; size_t n; } list_elem;
obj *list_from_elems(const list_elem *v, size_t n);

#endif
