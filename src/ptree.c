/* ptree: REFERENCE IMPLEMENTATION of ptree.h (one flat node of item
 * copies, copied whole when shared: O(n) writes). It exists so that the
 * collection types can be built and tested against the API while the
 * B+-tree is written; it is replaced by that tree. */
#include "ptree.h"

#include <assert.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef struct pitem {
    size_t klen, vlen;
    char data[];
} pitem;

struct pt_node {
    _Atomic uint32_t rc;
    size_t n, cap;
    pitem **items;
};

static _Atomic uint64_t copied;

static void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) abort();
    return p;
}

static pitem *item_new(const pt_item *it) {
    pitem *p = xmalloc(sizeof *p + it->klen + it->vlen);
    p->klen = it->klen;
    p->vlen = it->vlen;
    if (it->klen) memcpy(p->data, it->key, it->klen);
    if (it->vlen) memcpy(p->data + it->klen, it->val, it->vlen);
    return p;
}

static void item_out(const pitem *p, int kind, pt_item *out) {
    out->key = kind == PT_SEQ ? NULL : p->data;
    out->klen = p->klen;
    out->val = p->data + p->klen;
    out->vlen = p->vlen;
}

static pt_node *node_new(size_t cap) {
    pt_node *n = xmalloc(sizeof *n);
    atomic_init(&n->rc, 1);
    n->n = 0;
    n->cap = cap ? cap : 4;
    n->items = xmalloc(n->cap * sizeof *n->items);
    return n;
}

static void node_drop(pt_node *n) {
    if (!n) return;
    if (atomic_fetch_sub_explicit(&n->rc, 1, memory_order_acq_rel) != 1) return;
    for (size_t i = 0; i < n->n; i++) free(n->items[i]);
    free(n->items);
    free(n);
}

void pt_init(ptree *t, int kind) {
    t->root = NULL;
    t->count = 0;
    t->kind = (uint8_t)kind;
}

void pt_free(ptree *t) {
    node_drop(t->root);
    t->root = NULL;
    t->count = 0;
}

void pt_share(ptree *dst, const ptree *src) {
    *dst = *src;
    if (src->root) atomic_fetch_add_explicit(&src->root->rc, 1, memory_order_relaxed);
}

size_t pt_mem(const ptree *t) {
    if (!t->root) return 0;
    size_t m = sizeof(pt_node) + t->root->cap * sizeof(pitem *);
    for (size_t i = 0; i < t->root->n; i++)
        m += sizeof(pitem) + t->root->items[i]->klen + t->root->items[i]->vlen;
    return m;
}

int pt_get(const ptree *t, uint64_t rank, pt_item *out) {
    if (rank >= t->count) return 0;
    item_out(t->root->items[rank], t->kind, out);
    return 1;
}

static int keycmp(const pitem *p, const void *key, size_t klen) {
    size_t m = p->klen < klen ? p->klen : klen;
    int r = m ? memcmp(p->data, key, m) : 0;
    if (r) return r;
    return p->klen < klen ? -1 : p->klen > klen;
}

int pt_seek(const ptree *t, const void *key, size_t klen, uint64_t *rank, pt_item *out) {
    assert(t->kind == PT_KEYED);
    uint64_t lo = 0, hi = t->count;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (keycmp(t->root->items[mid], key, klen) < 0) lo = mid + 1;
        else hi = mid;
    }
    *rank = lo;
    if (lo < t->count && keycmp(t->root->items[lo], key, klen) == 0) {
        if (out) item_out(t->root->items[lo], t->kind, out);
        return 1;
    }
    return 0;
}

/* Makes t's node writable (a private copy when shared) with room for one
 * more item. */
static pt_node *writable(ptree *t) {
    pt_node *n = t->root;
    if (!n) return t->root = node_new(4);
    if (atomic_load_explicit(&n->rc, memory_order_acquire) > 1) {
        pt_node *c = node_new(n->n + 4);
        for (size_t i = 0; i < n->n; i++) {
            pitem *p = n->items[i];
            c->items[i] = xmalloc(sizeof *p + p->klen + p->vlen);
            memcpy(c->items[i], p, sizeof *p + p->klen + p->vlen);
        }
        c->n = n->n;
        node_drop(n);
        atomic_fetch_add_explicit(&copied, 1, memory_order_relaxed);
        t->root = n = c;
    }
    if (n->n == n->cap) {
        n->cap *= 2;
        pitem **v = realloc(n->items, n->cap * sizeof *v);
        if (!v) abort();
        n->items = v;
    }
    return n;
}

void pt_insert(ptree *t, uint64_t rank, const pt_item *it) {
    assert(rank <= t->count);
    pt_node *n = writable(t);
    memmove(n->items + rank + 1, n->items + rank, (n->n - rank) * sizeof *n->items);
    n->items[rank] = item_new(it);
    n->n++;
    t->count++;
}

void pt_replace(ptree *t, uint64_t rank, const pt_item *it) {
    assert(rank < t->count);
    pt_node *n = writable(t);
    free(n->items[rank]);
    n->items[rank] = item_new(it);
}

void pt_delete_range(ptree *t, uint64_t rank, uint64_t cnt) {
    assert(rank + cnt <= t->count);
    if (!cnt) return;
    pt_node *n = writable(t);
    for (uint64_t i = rank; i < rank + cnt; i++) free(n->items[i]);
    memmove(n->items + rank, n->items + rank + cnt, (n->n - rank - cnt) * sizeof *n->items);
    n->n -= cnt;
    t->count -= cnt;
    if (!t->count) pt_free(t);
}

void pt_delete(ptree *t, uint64_t rank) { pt_delete_range(t, rank, 1); }

int pt_put(ptree *t, const pt_item *it) {
    uint64_t r;
    if (pt_seek(t, it->key, it->klen, &r, NULL)) {
        pt_replace(t, r, it);
        return 0;
    }
    pt_insert(t, r, it);
    return 1;
}

int pt_remove(ptree *t, const void *key, size_t klen) {
    uint64_t r;
    if (!pt_seek(t, key, klen, &r, NULL)) return 0;
    pt_delete(t, r);
    return 1;
}

void pt_iter_init(pt_iter *it, const ptree *t, uint64_t rank, int reverse) {
    it->t = t;
    it->reverse = reverse;
    it->depth = rank < t->count ? 1 : 0;
    it->rank = rank;
}

int pt_iter_next(pt_iter *it, pt_item *out) {
    if (!it->depth) return 0;
    pt_get(it->t, it->rank, out);
    if (it->reverse) {
        if (it->rank == 0) it->depth = 0;
        else it->rank--;
    } else if (++it->rank >= it->t->count) {
        it->depth = 0;
    }
    return 1;
}

void pt_build_init(pt_builder *b, int kind) {
    pt_init(&b->t, kind);
    b->state = NULL;
}

void pt_build_add(pt_builder *b, const pt_item *it) {
    if (b->t.kind == PT_KEYED && b->t.count) {
        pt_item last;
        pt_get(&b->t, b->t.count - 1, &last);
        assert(keycmp(b->t.root->items[b->t.count - 1], it->key, it->klen) < 0);
    }
    pt_insert(&b->t, b->t.count, it);
}

void pt_build_finish(pt_builder *b, ptree *out) {
    *out = b->t;
    pt_init(&b->t, b->t.kind);
}

uint64_t pt_copied_nodes(void) { return atomic_load_explicit(&copied, memory_order_relaxed); }
