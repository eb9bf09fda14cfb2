/* ptree: a persistent counted B+-tree of byte items with refcounted nodes:
 * the body of every collection (hash, list, set, sorted set, stream).
 *
 * Items are (key, value) byte strings. A tree is one of two kinds:
 *   PT_KEYED  items ordered by key (memcmp, then the shorter first), keys
 *             unique. Types build keys that sort as they need: hashes and
 *             sets prefix the field with its 32-bit hash (big-endian), the
 *             sorted set's score tree prefixes the member with the score's
 *             order-preserving 8 bytes.
 *   PT_SEQ    items in insertion position (a rope: lists); keys are empty.
 * Every item has a rank (0-based position); inner nodes keep subtree
 * counts, so rank <-> item is O(log n) both ways.
 *
 * Persistence. Every node carries an atomic refcount: the number of parents
 * (or tree handles) that point to it. pt_share gives a second handle on the
 * same nodes in O(1) (root refcount + 1). A write (pt_insert, pt_replace,
 * pt_delete*) changes a node in place when its refcount is 1 and copies it
 * when it is shared (copying a node takes a reference to each of its
 * children), so a write to a shared tree copies only the O(log n) nodes on
 * its path and the other handle still sees the tree as it was. Node sizes
 * are bounded (a leaf holds at most 2 KiB of packed items, at most
 * PT_ITER_LEAF_ITEMS of them; a key or value over 256 bytes is kept out of
 * line and shared by reference; an inner node has at most 32 children), so
 * a copy is bounded too. A tree that fits in one leaf is one leaf sized to
 * its contents. Layout and sizes: ptree_int.h.
 *
 * Threads. Writes are main thread only. Reads (pt_get, pt_seek, iterators)
 * may run on any thread that holds a handle whose nodes are not written:
 * a handle taken with pt_share, which the main thread never writes through.
 * pt_free drops a handle on any thread; a node is freed by whoever drops its
 * last reference (acq_rel decrement; a write finds a node unshared with
 * an acquire load). Node contents are never written while shared; the
 * refcount and the retired mark (pt_retained_bytes), both atomic, are the
 * only fields two threads touch.
 *
 * Item pointers (pt_item) point into a node: valid until the next write to
 * that tree through the same handle (or its pt_free). */
#ifndef VERSO_PTREE_H
#define VERSO_PTREE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum { PT_KEYED = 0, PT_SEQ = 1 };

typedef struct pt_node pt_node;

/* A handle on a tree. Zero-initialise or pt_init. */
typedef struct ptree {
    pt_node *root;   /* NULL when empty */
    uint64_t count;  /* items */
    uint8_t kind;    /* PT_KEYED or PT_SEQ */
} ptree;

typedef struct pt_item {
    const char *key; /* PT_SEQ: NULL, klen 0 */
    size_t klen;
    const char *val;
    size_t vlen;
} pt_item;

void pt_init(ptree *t, int kind);
/* Drops this handle's reference; t becomes empty. Any thread. */
void pt_free(ptree *t);
/* dst (uninitialised or freed) becomes a second handle on src's nodes: O(1). */
void pt_share(ptree *dst, const ptree *src);
static inline uint64_t pt_count(const ptree *t) { return t->count; }
/* Bytes held by the nodes reachable from t (shared nodes counted in full). */
size_t pt_mem(const ptree *t);

/* ---- reads ---- */
/* The item at rank (< count): 1, or 0 when rank is out of range. */
int pt_get(const ptree *t, uint64_t rank, pt_item *out);
/* PT_KEYED: 1 when key is present (*rank its rank, *out the item when
 * out != NULL); 0 when absent (*rank where it would be inserted: the rank of
 * the first greater key). */
int pt_seek(const ptree *t, const void *key, size_t klen, uint64_t *rank, pt_item *out);

/* ---- writes (main thread; copies shared nodes on the path) ---- */
/* Inserts at rank (<= count). PT_KEYED: the caller keeps the order (rank
 * from pt_seek of an absent key). */
void pt_insert(ptree *t, uint64_t rank, const pt_item *it);
/* Replaces the item at rank (< count). PT_KEYED: the key must not change
 * the order (same key, or one that sorts at the same place). */
void pt_replace(ptree *t, uint64_t rank, const pt_item *it);
void pt_delete(ptree *t, uint64_t rank);
/* Deletes n items from rank (rank + n <= count): O(log n + nodes dropped). */
void pt_delete_range(ptree *t, uint64_t rank, uint64_t n);
/* PT_KEYED conveniences: insert or replace by key (1 when inserted, 0 when
 * replaced); remove by key (1 when it was there). */
int pt_put(ptree *t, const pt_item *it);
int pt_remove(ptree *t, const void *key, size_t klen);

/* ---- iteration (in rank order from a start rank, forward or backward) ---- */
#define PT_MAX_DEPTH 32
/* Most items a leaf holds. A leaf is found by rank in O(log n) but an item
 * inside it by a linear walk of its packed items (there are no back
 * lengths): 64 keeps a tail access (RPOP, LINDEX -1) as cheap as a head
 * one for tiny items (at 512, redis-benchmark's RPOP -P 16 ran at 0.35x
 * Redis's; at 64, 1.1x), and costs under a byte per item of leaf headers. */
#define PT_ITER_LEAF_ITEMS 64
typedef struct pt_iter {             /* private fields */
    const ptree *t;
    int reverse;
    int depth;                       /* levels on the stack; 0: done */
    const pt_node *node[PT_MAX_DEPTH];
    uint32_t pos[PT_MAX_DEPTH];      /* child index (inner) / item index (leaf) */
    uint32_t off;                    /* forward: byte offset of the current item */
    uint64_t rank;                   /* rank of the item next returns */
    uint16_t loff[PT_ITER_LEAF_ITEMS]; /* reverse: item offsets in the leaf */
    const _Atomic uint32_t *consume;   /* pt_iter_init_consume's owner refcount */
} pt_iter;
/* Positions it at rank (forward: rank..count-1; reverse: rank..0) in
 * O(log n); each next is O(1) amortised. A rank out of range gives an
 * iterator that returns nothing. */
void pt_iter_init(pt_iter *it, const ptree *t, uint64_t rank, int reverse);
/* 1 and *out set, or 0 at the end. The tree must not be written meanwhile. */
int pt_iter_next(pt_iter *it, pt_item *out);
/* A consuming walk, for a save that writes a tree it holds while the main
 * thread goes on with its own version: forward from rank 0 as
 * pt_iter_init, and the subtrees the walk has left behind are released as
 * it goes (their nodes freed when no other version holds them), so nodes
 * the main thread copied away from or deleted during the save do not wait
 * for the save's end. Releasing happens only while *owner_rc (the
 * refcount of whatever holds t: the save's obj) is 1 and every node from
 * the root down to the released child's parent has one reference: then
 * nobody but this walk can reach them, and the only change to a node
 * (its child slot emptied) is to one nobody else sees. The item given
 * last stays valid until the next call, as always. Afterwards t may only
 * be pt_free'd (its counts no longer match its nodes). Any thread. */
void pt_iter_init_consume(pt_iter *it, ptree *t, const _Atomic uint32_t *owner_rc);

/* ---- bulk build (restore): items in rank order, bottom-up, O(n) ----
 * Leaves are filled to capacity (the last ones of each level may be less
 * full). To abandon a build (a load error), finish it and pt_free the tree. */
typedef struct pt_builder {
    ptree t;
    void *state;                     /* private */
} pt_builder;
void pt_build_init(pt_builder *b, int kind);
/* PT_KEYED: keys strictly increasing (asserted). */
void pt_build_add(pt_builder *b, const pt_item *it);
/* The finished tree goes to *out (uninitialised or freed). */
void pt_build_finish(pt_builder *b, ptree *out);

/* Nodes copied because they were shared (INFO forkless_copied_nodes): a
 * write copies each shared node on its path (and a shared sibling it
 * merges with) once, so at most ~2 per level per write; 0 when unshared.
 * Any thread, relaxed. */
uint64_t pt_copied_nodes(void);
/* Bytes of nodes that a write copied away from and that are still alive
 * (held by another handle, e.g. a save's): a node is counted when a write
 * leaves it (it is marked retired) and uncounted when it is freed (or when
 * the other handles let go and a write finds it unshared again). So it is
 * the memory a running save costs; 0 once the snapshots are freed
 * (INFO forkless_retained_bytes). Any thread, relaxed. */
size_t pt_retained_bytes(void);
/* The highest pt_retained_bytes since the last reset (INFO
 * forkless_peak_retained_bytes of a save: reset when it starts). Main
 * thread (the peak is raised by writes). */
size_t pt_retained_peak(void);
void pt_retained_peak_reset(void);

/* ---- diagnostics (tests) ---- */
/* Levels from the root to the leaves (0: empty, 1: one leaf). */
int pt_depth(const ptree *t);
/* Checks every invariant (counts, key order, separators, equal depth, leaf
 * bounds): 1 when sound (asserts otherwise). O(n). */
int pt_check(const ptree *t);

#endif
