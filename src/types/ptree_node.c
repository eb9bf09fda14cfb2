/* ptree_node: the nodes of the persistent B+-tree (ptree_int.h): packed item
 * encoding, node allocation with obj memory accounting, refcounts,
 * copy-on-write (pt_node_own), retirement accounting (pt_retained_bytes)
 * and the walks that need no tree algorithm (pt_mem).
 *
 * Threads: pt_node_drop, blob drops and the retired/retained counters may
 * run on any thread (a save dropping its handle); everything else runs on
 * the thread writing the tree (main). A node is written only while its
 * refcount is 1 (checked with an acquire load by pt_node_own). */
#include "ptree_int.h"

#include "obj.h"

#include <assert.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t copied;   /* atomic: pt_copied_nodes */
static _Atomic size_t retained;   /* atomic: pt_retained_bytes */
static _Atomic size_t retained_peak; /* atomic; raised by the main thread only
                                        (retire: writes), reset by it too */

uint64_t pt_copied_nodes(void) { return atomic_load_explicit(&copied, memory_order_relaxed); }
size_t pt_retained_bytes(void) { return atomic_load_explicit(&retained, memory_order_relaxed); }

size_t pt_retained_peak(void) { return atomic_load_explicit(&retained_peak, memory_order_relaxed); }

void pt_retained_peak_reset(void) {
    atomic_store_explicit(&retained_peak, pt_retained_bytes(), memory_order_relaxed);
}

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    obj_mem_account_add(p);
    return p;
}

/* LeakSanitizer (sanitizer builds) finds blocks through pointers at aligned
 * addresses only; a leaf stores its blob pointers packed (unaligned), so each
 * blob is registered as not-a-leak when made, else a live tree's blobs are
 * reported at exit (an ASan server then exits non-zero). A blob whose last
 * reference is lost still shows in obj_mem_total (test_ptree's memory
 * checks, the cmds fuzz target's check at exit). */
extern void __lsan_ignore_object(const void *p) __attribute__((weak));

static void xfree(void *p) {
    obj_mem_account_sub(p);
    free(p);
}

/* ---- items ---- */

size_t pt_varint_len(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

static size_t varint_put(char *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (char)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    p[n++] = (char)v;
    return n;
}

static size_t varint_get(const char *p, uint64_t *v) {
    uint64_t r = 0;
    size_t n = 0;
    unsigned shift = 0;
    for (;;) {
        uint8_t b = (uint8_t)p[n++];
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
    }
    *v = r;
    return n;
}

static size_t field_size(size_t len) {
    if (len > PT_INLINE_MAX) return pt_varint_len((uint64_t)len << 1 | 1) + sizeof(pt_blob *);
    return pt_varint_len((uint64_t)len << 1) + len;
}

static size_t field_put(char *p, const char *s, size_t len, uint32_t *nbig) {
    if (len <= PT_INLINE_MAX) {
        size_t h = varint_put(p, (uint64_t)len << 1);
        if (len) memcpy(p + h, s, len);
        return h + len;
    }
    pt_blob *b = xmalloc(sizeof *b + len);
    if (__lsan_ignore_object) __lsan_ignore_object(b);
    atomic_init(&b->rc, 1);
    memcpy(b->data, s, len);
    size_t h = varint_put(p, (uint64_t)len << 1 | 1);
    memcpy(p + h, &b, sizeof b);
    (*nbig)++;
    return h + sizeof b;
}

/* Decodes a field: bytes it occupies; *blob the blob when out of line. */
static size_t field_get(const char *p, const char **s, size_t *len, pt_blob **blob) {
    uint64_t h;
    size_t n = varint_get(p, &h);
    *len = (size_t)(h >> 1);
    if (h & 1) {
        pt_blob *b;
        memcpy(&b, p + n, sizeof b);
        *s = b->data;
        *blob = b;
        return n + sizeof b;
    }
    *s = p + n;
    *blob = NULL;
    return n + *len;
}

size_t pt_item_size(int kind, const pt_item *it) {
    size_t s = field_size(it->vlen);
    if (kind == PT_KEYED) s += field_size(it->klen);
    return s;
}

size_t pt_item_encode(char *p, int kind, const pt_item *it, uint32_t *nbig) {
    size_t o = 0;
    if (kind == PT_KEYED) o += field_put(p, it->key, it->klen, nbig);
    return o + field_put(p + o, it->val, it->vlen, nbig);
}

size_t pt_field_get_slow(const char *p, const char **s, size_t *len) {
    pt_blob *b;
    return field_get(p, s, len, &b);
}

size_t pt_item_decode(const char *p, int kind, pt_item *out) {
    size_t o = 0;
    if (kind == PT_KEYED) {
        o = pt_field_get(p, &out->key, &out->klen);
    } else {
        out->key = NULL;
        out->klen = 0;
    }
    return o + pt_field_get(p + o, &out->val, &out->vlen);
}

size_t pt_leaf_offset(const pt_node *n, size_t idx) {
    assert(n->leaf && idx <= n->n);
    const char *d = CLEAF(n)->data;
    if (idx == n->n) return n->used;
    if (idx + 1 == n->n) return n->last;
    size_t off = 0;
    for (size_t i = 0; i < idx; i++) off += pt_item_skip(d + off, n->kind);
    return off;
}

static void blob_drop(pt_blob *b) {
    if (atomic_fetch_sub_explicit(&b->rc, 1, memory_order_acq_rel) == 1) xfree(b);
}

uint32_t pt_leaf_blobs(const pt_node *n, size_t from, size_t to, int delta) {
    const char *d = CLEAF(n)->data;
    uint32_t seen = 0;
    int fields = n->kind == PT_KEYED ? 2 : 1;
    size_t off = from;
    while (off < to) {
        for (int f = 0; f < fields; f++) {
            const char *s;
            size_t len;
            pt_blob *b;
            off += field_get(d + off, &s, &len, &b);
            if (!b) continue;
            seen++;
            if (delta > 0) atomic_fetch_add_explicit(&b->rc, 1, memory_order_relaxed);
            else if (delta < 0) blob_drop(b);
        }
    }
    assert(off == to);
    return seen;
}

/* ---- nodes ---- */

size_t pt_leaf_cap(size_t need) {
    /* Small leaves (small collections) exactly: malloc rounds them up and
     * leaf_usable takes the slack; bigger ones with 1/8 to grow into. */
    size_t cap = need < 256 ? need : need + need / 8;
    if (cap > PT_LEAF_BYTES) cap = PT_LEAF_BYTES;
    if (cap < need) cap = need;
    return cap;
}

/* Usable capacity after allocating a leaf of cap bytes (malloc's slack is
 * free to use). */
static uint32_t leaf_usable(pt_node *n) {
    size_t u = malloc_usable_size(n) - sizeof(pt_leaf);
    return (uint32_t)(u > PT_LEAF_BYTES ? PT_LEAF_BYTES : u);
}

pt_node *pt_leaf_new(int kind, size_t cap) {
    assert(cap <= PT_LEAF_BYTES);
    pt_node *n = xmalloc(sizeof(pt_leaf) + cap);
    memset(n, 0, sizeof(pt_leaf));
    atomic_init(&n->rc, 1);
    atomic_init(&n->retired, 0);
    n->leaf = 1;
    n->kind = (uint8_t)kind;
    n->cap = leaf_usable(n);
    return n;
}

pt_node *pt_leaf_resize(pt_node *n, size_t cap) {
    assert(n->leaf && cap >= n->used && cap <= PT_LEAF_BYTES);
    assert(atomic_load_explicit(&n->rc, memory_order_relaxed) == 1);
    assert(!atomic_load_explicit(&n->retired, memory_order_relaxed));
    obj_mem_account_sub(n);
    pt_node *r = realloc(n, sizeof(pt_leaf) + cap);
    if (!r) abort();
    obj_mem_account_add(r);
    r->cap = leaf_usable(r);
    return r;
}

pt_node *pt_leaf_from(int kind, const char *data, size_t len, size_t cap, int share_blobs) {
    pt_node *n = pt_leaf_new(kind, cap);
    memcpy(LEAF(n)->data, data, len);
    n->used = (uint32_t)len;
    size_t off = 0;
    while (off < len) {
        n->last = (uint16_t)off;
        off += pt_item_skip(data + off, kind);
        n->n++;
    }
    assert(n->n <= PT_LEAF_ITEMS);
    n->nbig = (uint16_t)pt_leaf_blobs(n, 0, len, share_blobs ? 1 : 0);
    return n;
}

pt_node *pt_inner_make(int kind, const pt_ent *e, size_t m) {
    assert(m >= 1 && m <= PT_FANOUT);
    size_t kb = 0;
    if (kind == PT_KEYED)
        for (size_t i = 0; i < m; i++) kb += e[i].seplen;
    pt_node *n = xmalloc(sizeof(pt_inner) + kb);
    memset(n, 0, sizeof(pt_inner));
    atomic_init(&n->rc, 1);
    atomic_init(&n->retired, 0);
    n->kind = (uint8_t)kind;
    n->n = (uint32_t)m;
    n->cap = n->used = (uint32_t)kb;
    pt_inner *in = INNER(n);
    uint32_t off = 0;
    for (size_t i = 0; i < m; i++) {
        assert(e[i].c && e[i].cnt);
        in->child[i] = e[i].c;
        in->cnt[i] = e[i].cnt;
        in->koff[i] = off;
        if (kind == PT_KEYED && e[i].seplen) {
            memcpy(in->keys + off, e[i].sep, e[i].seplen);
            off += (uint32_t)e[i].seplen;
        }
    }
    in->koff[m] = off;
    return n;
}

uint64_t pt_node_count(const pt_node *n) {
    if (n->leaf) return n->n;
    uint64_t c = 0;
    for (uint32_t i = 0; i < n->n; i++) c += CINNER(n)->cnt[i];
    return c;
}

size_t pt_node_bytes(const pt_node *n) { return malloc_usable_size((void *)n); }

/* Frees the memory of a node nobody references any more. */
static void node_free(pt_node *n) {
    if (atomic_exchange_explicit(&n->retired, 0, memory_order_relaxed))
        atomic_fetch_sub_explicit(&retained, pt_node_bytes(n), memory_order_relaxed);
    xfree(n);
}

void pt_node_drop(pt_node *n) {
    if (atomic_fetch_sub_explicit(&n->rc, 1, memory_order_acq_rel) != 1) return;
    if (n->leaf) {
        if (n->nbig) pt_leaf_blobs(n, 0, n->used, -1);
    } else {
        /* a child slot is empty only in a tree a consuming walk released */
        for (uint32_t i = 0; i < n->n; i++)
            if (INNER(n)->child[i]) pt_node_drop(INNER(n)->child[i]);
    }
    node_free(n);
}

void pt_node_free_shell(pt_node *n) {
    assert(atomic_load_explicit(&n->rc, memory_order_relaxed) == 1);
    node_free(n);
}

/* n is being left to the other handles holding it: counts it as copied and
 * its bytes as retained (once), then drops the caller's reference. */
static void retire(pt_node *n) {
    atomic_fetch_add_explicit(&copied, 1, memory_order_relaxed);
    if (!atomic_exchange_explicit(&n->retired, 1, memory_order_relaxed)) {
        size_t now = atomic_fetch_add_explicit(&retained, pt_node_bytes(n),
                                               memory_order_relaxed) + pt_node_bytes(n);
        /* main thread only raises the peak: a plain max needs no CAS */
        if (now > atomic_load_explicit(&retained_peak, memory_order_relaxed))
            atomic_store_explicit(&retained_peak, now, memory_order_relaxed);
    }
    pt_node_drop(n);
}

pt_node *pt_node_own(pt_node *n) {
    if (atomic_load_explicit(&n->rc, memory_order_acquire) == 1) {
        /* The other holders let go: n is live again, no longer retained. */
        if (atomic_exchange_explicit(&n->retired, 0, memory_order_relaxed))
            atomic_fetch_sub_explicit(&retained, pt_node_bytes(n), memory_order_relaxed);
        return n;
    }
    pt_node *c;
    if (n->leaf) {
        c = pt_leaf_from(n->kind, LEAF(n)->data, n->used, pt_leaf_cap(n->used), 1);
    } else {
        /* Field by field: n's refcount may be changing on another thread. */
        size_t sz = sizeof(pt_inner) + n->cap;
        c = xmalloc(sz);
        atomic_init(&c->rc, 1);
        atomic_init(&c->retired, 0);
        c->leaf = 0;
        c->kind = n->kind;
        c->pad = 0;
        c->n = n->n;
        c->used = n->used;
        c->cap = n->cap;
        c->nbig = 0;
        memcpy((char *)c + sizeof(pt_node), (const char *)n + sizeof(pt_node), sz - sizeof(pt_node));
        for (uint32_t i = 0; i < n->n; i++) pt_node_ref(INNER(c)->child[i]);
    }
    retire(n);
    return c;
}

void pt_node_replaced(pt_node *n) {
    if (atomic_load_explicit(&n->rc, memory_order_acquire) == 1) pt_node_drop(n);
    else retire(n);
}

static size_t node_mem(const pt_node *n) {
    size_t m = pt_node_bytes(n);
    if (n->leaf) {
        if (!n->nbig) return m;
        const char *d = CLEAF(n)->data;
        int fields = n->kind == PT_KEYED ? 2 : 1;
        for (size_t off = 0; off < n->used;) {
            for (int f = 0; f < fields; f++) {
                const char *s;
                size_t len;
                pt_blob *b;
                off += field_get(d + off, &s, &len, &b);
                if (b) m += malloc_usable_size(b);
            }
        }
        return m;
    }
    for (uint32_t i = 0; i < n->n; i++) m += node_mem(CINNER(n)->child[i]);
    return m;
}

size_t pt_mem(const ptree *t) { return t->root ? node_mem(t->root) : 0; }
