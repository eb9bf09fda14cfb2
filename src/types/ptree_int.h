/* ptree_int.h: private to ptree.c and ptree_node.c. The node layout, the
 * packed item encoding, and the node primitives (allocation with memory
 * accounting, refcounts, copy-on-write, retirement) that ptree.c's tree
 * algorithms are built on. Nothing outside ptree*.c includes this.
 *
 * Layout. Every node starts with pt_node. A leaf is followed by `cap` bytes
 * of packed items (`used` of them in use, `n` items). An inner node holds
 * up to PT_FANOUT children with their subtree counts and, for PT_KEYED, a
 * separator per child: sep[i] (i >= 1) is a lower bound of child i's keys
 * and greater than every key of child i-1 (sep[0] is kept too, unused by
 * descent: it is the lower bound the node was built with).
 *
 * Item encoding in a leaf (listpack-like, no back pointers):
 *   PT_KEYED: field(key) field(value)      PT_SEQ: field(value)
 *   field: varint(len << 1 | big), then len bytes (big = 0) or an 8-byte
 *   pointer to a refcounted pt_blob holding the bytes (big = 1: len >
 *   PT_INLINE_MAX). A leaf copy shares the blobs (refcount + 1). */
#ifndef VERSO_PTREE_INT_H
#define VERSO_PTREE_INT_H

#include "ptree.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Leaf byte capacity: a copy under a save is one memcpy of at most this
 * (about 0.3 us), a keyed seek scans at most this linearly, and the per-leaf
 * overhead (header, malloc, parent slot: ~56 bytes) is < 3 % of a full leaf. */
#ifndef PT_LEAF_BYTES
#define PT_LEAF_BYTES 2048
#endif
/* Items per leaf (bounds the reverse iterator's offset table). */
#define PT_LEAF_ITEMS PT_ITER_LEAF_ITEMS
/* Children per inner node: an inner node is ~600 bytes (SEQ) to copy; 32
 * levels of it address far more than 2^64 items. */
#define PT_FANOUT 32
/* A key or value longer than this is stored out of line (a leaf then holds
 * at least 3 items and its copy stays bounded). */
#define PT_INLINE_MAX 256
/* Largest encoded item: two fields of varint(<= 2 bytes... 10) + 256. */
#define PT_ITEM_MAX (2 * (10 + PT_INLINE_MAX))

struct pt_node {
    _Atomic uint32_t rc;      /* atomic: parents/handles pointing here */
    _Atomic uint8_t retired;  /* atomic: copied away from, counted in retained */
    uint8_t leaf;             /* 1: leaf */
    uint8_t kind;             /* PT_KEYED / PT_SEQ */
    uint8_t pad;
    uint32_t n;               /* leaf: items; inner: children */
    uint32_t used;            /* leaf: item bytes; inner: separator bytes */
    uint32_t cap;             /* leaf: item byte capacity; inner: separator capacity */
    uint16_t nbig;            /* leaf: out-of-line fields (<= 2 per item) */
    uint16_t last;            /* leaf: byte offset of the last item (0 when
                                 empty): appends and tail reads skip the
                                 walk of the packed items */
};

typedef struct pt_leaf {
    pt_node h;
    char data[];
} pt_leaf;

typedef struct pt_inner {
    pt_node h;
    pt_node *child[PT_FANOUT];
    uint64_t cnt[PT_FANOUT];
    uint32_t koff[PT_FANOUT + 1]; /* sep i = keys[koff[i] .. koff[i+1]) */
    char keys[];
} pt_inner;

typedef struct pt_blob {
    _Atomic uint32_t rc;      /* atomic: leaves referencing it */
    uint32_t pad;
    char data[];
} pt_blob;

/* A child entry while an inner node is being (re)built. sep points into a
 * live node (or blob) until the node is made. */
typedef struct pt_ent {
    pt_node *c;
    uint64_t cnt;
    const char *sep;
    size_t seplen;
    int touched;
} pt_ent;

static inline pt_leaf *LEAF(pt_node *n) { return (pt_leaf *)n; }
static inline const pt_leaf *CLEAF(const pt_node *n) { return (const pt_leaf *)n; }
static inline pt_inner *INNER(pt_node *n) { return (pt_inner *)n; }
static inline const pt_inner *CINNER(const pt_node *n) { return (const pt_inner *)n; }

/* ---- items ---- */
size_t pt_varint_len(uint64_t v);
size_t pt_item_size(int kind, const pt_item *it);
/* Writes it at p (creating blobs for long fields): bytes written; *nbig
 * gains the blobs made. */
size_t pt_item_encode(char *p, int kind, const pt_item *it, uint32_t *nbig);
/* Decodes the item at p: bytes it occupies. */
size_t pt_item_decode(const char *p, int kind, pt_item *out);
/* Byte offset of item idx (<= n) in leaf n: O(items). */
size_t pt_leaf_offset(const pt_node *n, size_t idx);
/* Blobs of the items in [from, to) bytes of leaf n: refcount + delta (+1 or
 * -1; -1 frees those reaching 0). Returns how many blobs were seen. */
uint32_t pt_leaf_blobs(const pt_node *n, size_t from, size_t to, int delta);
/* A field whose header is longer than one byte (inline length > 63). */
size_t pt_field_get_slow(const char *p, const char **s, size_t *len);

/* Decodes the field at p: bytes it occupies (the hot path of every scan). */
static inline size_t pt_field_get(const char *p, const char **s, size_t *len) {
    uint8_t h = (uint8_t)p[0];
    if (h >= 0x80) return pt_field_get_slow(p, s, len);
    *len = h >> 1;
    if (!(h & 1)) {
        *s = p + 1;
        return 1 + *len;
    }
    return pt_field_get_slow(p, s, len);
}

static inline size_t pt_field_skip(const char *p) {
    uint8_t h = (uint8_t)p[0];
    if (h < 0x80 && !(h & 1)) return 1 + (h >> 1);
    const char *s;
    size_t len;
    return pt_field_get_slow(p, &s, &len);
}

static inline size_t pt_item_skip(const char *p, int kind) {
    size_t o = kind == PT_KEYED ? pt_field_skip(p) : 0;
    return o + pt_field_skip(p + o);
}

/* The first 8 bytes of a key as a big-endian word, zero-padded when the
 * key is shorter: comparing two such words orders the keys as memcmp and
 * "the shorter first" do, up to their first 8 bytes (a padding zero
 * compares as below any byte but a zero, and a tie there is settled by
 * the lengths). */
static inline uint64_t pt_key_word(const char *p, size_t n) {
    uint64_t x;
    if (n >= 8) {
        memcpy(&x, p, 8);
        return __builtin_bswap64(x);
    }
    x = 0;
    for (size_t i = 0; i < n; i++) x |= (uint64_t)(uint8_t)p[i] << (56 - 8 * i);
    return x;
}

/* memcmp order, then the shorter first (the first word decides most). */
static inline int pt_keycmp(const char *a, size_t alen, const char *b, size_t blen) {
    uint64_t x = pt_key_word(a, alen), y = pt_key_word(b, blen);
    if (x != y) return x < y ? -1 : 1;
    if (alen > 8 && blen > 8) {
        size_t m = (alen < blen ? alen : blen) - 8;
        int r = memcmp(a + 8, b + 8, m);
        if (r) return r;
    }
    return alen < blen ? -1 : alen > blen;
}

/* ---- nodes ---- */
pt_node *pt_leaf_new(int kind, size_t cap);
/* Resizes an unshared leaf (the caller stores the result). */
pt_node *pt_leaf_resize(pt_node *n, size_t cap);
/* A leaf holding bytes [0, len) of data (items), blobs referenced +1 when
 * share_blobs (the bytes come from a node that keeps its own reference). */
pt_node *pt_leaf_from(int kind, const char *data, size_t len, size_t cap, int share_blobs);
/* Capacity to allocate for a leaf that needs `need` bytes and may grow. */
size_t pt_leaf_cap(size_t need);
/* An inner node from m (1..PT_FANOUT) entries; takes over their child
 * references. */
pt_node *pt_inner_make(int kind, const pt_ent *e, size_t m);
static inline const char *pt_inner_sep(const pt_node *n, size_t i, size_t *len) {
    const pt_inner *in = CINNER(n);
    *len = in->koff[i + 1] - in->koff[i];
    return in->keys + in->koff[i];
}
uint64_t pt_node_count(const pt_node *n);
/* Bytes an allocation of n costs (as obj accounting counts them). */
size_t pt_node_bytes(const pt_node *n);

static inline void pt_node_ref(pt_node *n) {
    atomic_fetch_add_explicit(&n->rc, 1, memory_order_relaxed);
}
/* Drops a reference; the last one frees n and drops its children/blobs. */
void pt_node_drop(pt_node *n);
/* Frees an unshared node's memory only (its references were moved on). */
void pt_node_free_shell(pt_node *n);
/* n writable: n itself when unshared (refcount 1), else a copy (the
 * caller's reference to n is dropped; n is marked retired). */
pt_node *pt_node_own(pt_node *n);
/* The caller replaced n by nodes built from its contents (taking their own
 * references): drops the caller's reference, counting n as copied and
 * retired when another handle still holds it. */
void pt_node_replaced(pt_node *n);

#endif
