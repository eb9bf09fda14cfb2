/* t_list: the list type on a ptree (PT_SEQ: a rope; item value = the
 * element). Owns the encoding name and the operations the list commands,
 * the RDB code and the AOF rewrite use. Writes need an unshared obj
 * (obj_coll_writable). Reads and iteration: any thread holding a
 * reference.
 *
 * Encoding: Redis 7.0 keeps every list as a quicklist (OBJECT ENCODING
 * answers "quicklist" for a one-element list too; listpack-encoded lists
 * came with Redis 7.2), so o->enc is always OBJ_ENC_QUICKLIST. In 7.0
 * list-max-listpack-size shapes the quicklist's nodes: list_node_allows
 * says where Redis would cut them (for writers of the RDB quicklist form).
 *
 * Positions: a rank is 0-based from the head; an index (LINDEX, LSET) may
 * be negative, -1 being the tail. Every positional read and write is
 * O(log n); a range delete O(log n + nodes dropped). */
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
/* Iteration from rank (forward towards the tail, or reverse towards the
 * head); a rank out of range gives nothing. */
void list_iter_init_at(list_iter *it, const obj *l, uint64_t rank, int reverse);

/* Restore: a list from n elements in order, built bottom-up. The bytes are
 * copied. */
typedef struct list_elem { const char *p; size_t n; } list_elem;
obj *list_from_elems(const list_elem *v, size_t n);

/* The rank of index (negative: from the tail): 1, or 0 out of range. */
int list_rank(const obj *l, long long index, uint64_t *rank);
/* The element at index: 1 and *p, *n set (valid until the next write to
 * l), or 0 out of range. */
int list_index(const obj *l, long long index, const char **p, size_t *n);
/* The first rank from the head whose element is p/n: 1 and *rank, or 0. */
int list_find(const obj *l, const char *p, size_t n, uint64_t *rank);

/* ---- writes (l unshared) ---- */
/* Replaces the element at index: 1, or 0 out of range. */
int list_set(obj *l, long long index, const char *p, size_t n);
/* Inserts at rank (<= len): the element then has that rank. */
void list_insert(obj *l, uint64_t rank, const char *p, size_t n);
/* Deletes n elements from rank (rank + n <= len). */
void list_del_range(obj *l, uint64_t rank, uint64_t n);
/* Deletes n (<= len) elements at the head or the tail. */
void list_pop(obj *l, int where, uint64_t n);

/* ---- Redis 7.0's quicklist node rule ---- */
/* Bytes an element takes in a listpack (encoding, data and back length),
 * as Redis's lpBytes counts them: canonical integers in their integer
 * encodings, strings with a 1, 2 or 5 byte header. */
size_t list_lp_entry_bytes(const char *p, size_t n);
/* Redis 7.0's _quicklistNodeAllowInsert: whether a node holding count
 * elements in node_bytes listpack bytes (header and end included: 7 bytes
 * + the entries) takes one more element of elen bytes under
 * list-max-listpack-size fill (negative: -1..-5 = 4..64 KiB, lower counts
 * as -5; positive: entries, at most 32767, within an 8 KiB safety
 * limit). */
int list_node_allows(size_t node_bytes, size_t count, size_t elen, int fill);

#endif
