/* ptree: the persistent counted B+-tree's algorithms behind ptree.h:
 * descent by rank or key, insert with (edge-aware) splits, replace,
 * delete / delete_range with merges and borrows, iterators, the bottom-up
 * builder and the invariant check. Node layout, items, refcounts and
 * copy-on-write live in ptree_node.c (ptree_int.h).
 *
 * Every write takes the path it changes with pt_node_own (in place when the
 * node is unshared, a copy when shared), so a shared tree costs O(depth)
 * copied nodes per write. Structural changes of an inner node (a child split
 * or merged) rebuild that node from a list of entries (pt_ent): rare (once
 * per ~a leaf's worth of inserts) and simple to get right. */
#include "ptree_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { EDGE_NONE = 0, EDGE_HEAD, EDGE_TAIL };

typedef struct split {
    pt_node *right;   /* new right sibling, or NULL */
    int edge;         /* the split was at the tree's head/tail (EDGE_*) */
    const char *sep;  /* PT_KEYED: its separator (inside right) */
    size_t seplen;
} split;

void pt_init(ptree *t, int kind) {
    t->root = NULL;
    t->count = 0;
    t->kind = (uint8_t)kind;
}

void pt_free(ptree *t) {
    if (t->root) pt_node_drop(t->root);
    t->root = NULL;
    t->count = 0;
}

void pt_share(ptree *dst, const ptree *src) {
    *dst = *src;
    if (src->root) pt_node_ref(src->root);
}

/* ---- descent ---- */

/* Child of inner n holding *rank (made relative to it). A rank at a
 * boundary goes to the end of the left child (inserts append there). */
static uint32_t child_by_rank(const pt_node *n, uint64_t *rank, int for_insert) {
    const pt_inner *in = CINNER(n);
    uint32_t i = 0;
    while (i + 1 < n->n && (for_insert ? *rank > in->cnt[i] : *rank >= in->cnt[i])) {
        *rank -= in->cnt[i];
        i++;
    }
    assert(for_insert ? *rank <= in->cnt[i] : *rank < in->cnt[i]);
    return i;
}

/* PT_KEYED: the child whose key range holds key (the last with sep <= key). */
static uint32_t child_by_key(const pt_node *n, const void *key, size_t klen) {
    uint32_t lo = 1, hi = n->n; /* first i in [1, n) with sep_i > key */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        size_t sl;
        const char *s = pt_inner_sep(n, mid, &sl);
        if (pt_keycmp(s, sl, key, klen) > 0) hi = mid;
        else lo = mid + 1;
    }
    return lo - 1;
}

static uint64_t count_before(const pt_node *n, uint32_t i) {
    uint64_t r = 0;
    for (uint32_t j = 0; j < i; j++) r += CINNER(n)->cnt[j];
    return r;
}

/* PT_KEYED: the index of key in leaf n, or where it would go (*off its
 * byte offset): 1 when present. */
static int leaf_find(const pt_node *n, const void *key, size_t klen, uint32_t *idx, size_t *off) {
    const char *d = CLEAF(n)->data;
    size_t o = 0;
    uint32_t i = 0;
    int c = -1;
    if (n->n) { /* above the last key (appends): no walk */
        const char *k;
        size_t kl;
        pt_field_get(d + n->last, &k, &kl);
        if (pt_keycmp(k, kl, key, klen) < 0) {
            *idx = n->n;
            *off = n->used;
            return 0;
        }
    }
    for (; i < n->n; i++) {
        const char *k;
        size_t kl;
        size_t ks = pt_field_get(d + o, &k, &kl);
        c = pt_keycmp(k, kl, key, klen);
        if (c >= 0) break;
        o += ks + pt_field_skip(d + o + ks);
    }
    *idx = i;
    *off = o;
    return i < n->n && c == 0;
}

int pt_get(const ptree *t, uint64_t rank, pt_item *out) {
    if (rank >= t->count) return 0;
    const pt_node *n = t->root;
    while (!n->leaf) n = CINNER(n)->child[child_by_rank(n, &rank, 0)];
    pt_item_decode(CLEAF(n)->data + pt_leaf_offset(n, (size_t)rank), n->kind, out);
    return 1;
}

int pt_seek(const ptree *t, const void *key, size_t klen, uint64_t *rank, pt_item *out) {
    assert(t->kind == PT_KEYED);
    *rank = 0;
    if (!t->root) return 0;
    const pt_node *n = t->root;
    uint64_t r = 0;
    while (!n->leaf) {
        uint32_t i = child_by_key(n, key, klen);
        r += count_before(n, i);
        n = CINNER(n)->child[i];
    }
    uint32_t idx;
    size_t off;
    int found = leaf_find(n, key, klen, &idx, &off);
    *rank = r + idx;
    if (found && out) pt_item_decode(CLEAF(n)->data + off, PT_KEYED, out);
    return found;
}

int pt_depth(const ptree *t) {
    int d = 0;
    for (const pt_node *n = t->root; n; n = n->leaf ? NULL : CINNER(n)->child[0]) d++;
    return d;
}

/* ---- separators ---- */

/* PT_KEYED: the shortest prefix of r's first key greater than l's last key
 * (a pointer into r). */
static void leaf_sep(const pt_node *l, const pt_node *r, const char **sep, size_t *len) {
    *sep = NULL;
    *len = 0;
    if (l->kind != PT_KEYED) return;
    pt_item a, b;
    pt_item_decode(CLEAF(l)->data + pt_leaf_offset(l, l->n - 1), PT_KEYED, &a);
    pt_item_decode(CLEAF(r)->data, PT_KEYED, &b);
    assert(pt_keycmp(a.key, a.klen, b.key, b.klen) < 0);
    size_t m = 0;
    while (m < a.klen && m < b.klen && a.key[m] == b.key[m]) m++;
    assert(m < b.klen);
    *sep = b.key;
    *len = m + 1;
}

static void ent_of(const pt_node *n, uint32_t i, pt_ent *e) {
    e->c = CINNER(n)->child[i];
    e->cnt = CINNER(n)->cnt[i];
    e->sep = pt_inner_sep(n, i, &e->seplen);
    e->touched = 0;
}

/* ---- insert ---- */

/* Byte boundary near the middle of the m items packed in buf[0, len),
 * leaving at least one item and at most PT_LEAF_ITEMS on each side. */
static size_t even_cut(int kind, const char *buf, size_t len, size_t m) {
    size_t off = 0, k = 0;
    size_t lo_k = m > PT_LEAF_ITEMS ? m - PT_LEAF_ITEMS : 1;
    while (off < len) {
        size_t sz = pt_item_skip(buf + off, kind);
        if (k >= lo_k && (off + sz / 2 >= len / 2 || k >= PT_LEAF_ITEMS || k + 1 == m)) break;
        off += sz;
        k++;
    }
    assert(k >= 1 && k < m && off < len);
    return off;
}

/* Splits full leaf n around the new item (packed at tmp, isz bytes) going
 * to index idx at byte off. At the tree's tail (head) the old items stay
 * together in a full leaf and the new one starts the next: push-built
 * sequences and ordered loads leave full leaves. */
static pt_node *leaf_split(pt_node *n, size_t idx, size_t off, const char *tmp, size_t isz,
                           int edge, split *sp) {
    int kind = n->kind;
    size_t total = n->used + isz;
    char buf[PT_LEAF_BYTES + PT_ITEM_MAX];
    const char *d = LEAF(n)->data;
    memcpy(buf, d, off);
    memcpy(buf + off, tmp, isz);
    memcpy(buf + off + isz, d + off, n->used - off);
    size_t cut, lcap, rcap;
    if (edge == EDGE_TAIL && idx == n->n) {
        /* The new edge leaf will likely fill: room for half a leaf. */
        cut = off;
        lcap = cut;
        rcap = pt_leaf_cap(total - cut < PT_LEAF_BYTES / 2 ? PT_LEAF_BYTES / 2 : total - cut);
    } else if (edge == EDGE_HEAD && idx == 0) {
        cut = isz;
        lcap = pt_leaf_cap(cut < PT_LEAF_BYTES / 2 ? PT_LEAF_BYTES / 2 : cut);
        rcap = total - cut;
    } else {
        cut = even_cut(kind, buf, total, (size_t)n->n + 1);
        lcap = pt_leaf_cap(cut);
        rcap = pt_leaf_cap(total - cut);
    }
    assert(cut > 0 && cut < total && cut <= PT_LEAF_BYTES && total - cut <= PT_LEAF_BYTES);
    /* The blob references move from n and the new item to the two halves. */
    pt_node *l = pt_leaf_from(kind, buf, cut, lcap, 0);
    pt_node *r = pt_leaf_from(kind, buf + cut, total - cut, rcap, 0);
    pt_node_free_shell(n);
    sp->right = r;
    sp->edge = edge;
    leaf_sep(l, r, &sp->sep, &sp->seplen);
    return l;
}

static pt_node *leaf_insert(pt_node *n, size_t idx, const pt_item *it, int edge, split *sp) {
    /* Encoded first: it may point into this very leaf. */
    char tmp[PT_ITEM_MAX];
    uint32_t nbig = 0;
    size_t isz = pt_item_encode(tmp, n->kind, it, &nbig);
    size_t off = pt_leaf_offset(n, idx);
    if (n->used + isz > PT_LEAF_BYTES || n->n >= PT_LEAF_ITEMS)
        return leaf_split(n, idx, off, tmp, isz, edge, sp);
    if (n->used + isz > n->cap) n = pt_leaf_resize(n, pt_leaf_cap(n->used + isz));
    char *d = LEAF(n)->data;
    memmove(d + off + isz, d + off, n->used - off);
    memcpy(d + off, tmp, isz);
    n->last = (uint16_t)(idx == n->n ? off : n->last + isz);
    n->used += (uint32_t)isz;
    n->n++;
    n->nbig = (uint16_t)(n->nbig + nbig);
    return n;
}

/* Makes inner node(s) from m entries (replacing old, an unshared inner whose
 * references the entries hold): one node, or two when m > PT_FANOUT
 * (uneven at the tree's edges, as leaves). */
static pt_node *inner_rebuild(pt_node *old, pt_ent *e, size_t m, int edge, split *sp) {
    int kind = old->kind;
    pt_node *l, *r = NULL;
    if (m <= PT_FANOUT) {
        l = pt_inner_make(kind, e, m);
    } else {
        size_t k = edge == EDGE_TAIL ? m - 1 : edge == EDGE_HEAD ? 1 : m / 2;
        l = pt_inner_make(kind, e, k);
        r = pt_inner_make(kind, e + k, m - k);
    }
    pt_node_free_shell(old);
    sp->right = r;
    sp->edge = edge;
    if (r) sp->sep = pt_inner_sep(r, 0, &sp->seplen);
    return l;
}

/* Replaces the item at byte off (osz bytes) of the unshared leaf n by it
 * when the leaf stays within PT_LEAF_BYTES: the (maybe moved) leaf, or
 * NULL (nothing changed). */
static pt_node *leaf_replace(pt_node *n, size_t off, size_t osz, const pt_item *it) {
    size_t isz = pt_item_size(n->kind, it);
    size_t used = n->used - osz + isz;
    if (used > PT_LEAF_BYTES) return NULL;
    /* Encoded before the leaf changes: it may point into it. */
    char tmp[PT_ITEM_MAX];
    uint32_t nbig = 0;
    size_t w = pt_item_encode(tmp, n->kind, it, &nbig);
    assert(w == isz);
    if (n->nbig) n->nbig = (uint16_t)(n->nbig - pt_leaf_blobs(n, off, off + osz, -1));
    if (used > n->cap) n = pt_leaf_resize(n, pt_leaf_cap(used));
    char *d = LEAF(n)->data;
    memmove(d + off + isz, d + off + osz, n->used - off - osz);
    memcpy(d + off, tmp, isz);
    if (off < n->last) n->last = (uint16_t)(n->last + isz - osz);
    n->used = (uint32_t)used;
    n->nbig = (uint16_t)(n->nbig + nbig);
    return n;
}

enum { ON_HEAD = 1, ON_TAIL = 2 }; /* the path is the tree's first / last */
enum { PUT_NONE = -2, PUT_SLOW = -1, PUT_REPLACED = 0, PUT_INSERTED = 1 };

/* Inserts into the unshared subtree n at rank (PT_KEYED: under the key's
 * child), or with *put != PUT_NONE puts by key (*put then says what was
 * done; PUT_SLOW: a replace that did not fit, nothing changed). The
 * subtree's new root; sp->right set when it split. */
static pt_node *ins_rec(pt_node *n, uint64_t rank, const pt_item *it, int on, split *sp, int *put) {
    if (n->leaf) {
        if (*put != PUT_NONE) {
            uint32_t idx;
            size_t off;
            if (leaf_find(n, it->key, it->klen, &idx, &off)) {
                size_t osz = pt_item_skip(LEAF(n)->data + off, n->kind);
                pt_node *r = leaf_replace(n, off, osz, it);
                *put = r ? PUT_REPLACED : PUT_SLOW;
                return r ? r : n;
            }
            rank = idx;
            *put = PUT_INSERTED;
        }
        int edge = (on & ON_TAIL) && rank == n->n ? EDGE_TAIL
                   : (on & ON_HEAD) && rank == 0  ? EDGE_HEAD
                                                  : EDGE_NONE;
        return leaf_insert(n, (size_t)rank, it, edge, sp);
    }
    pt_inner *in = INNER(n);
    uint32_t i;
    if (n->kind == PT_KEYED) {
        i = child_by_key(n, it->key, it->klen);
        if (*put == PUT_NONE) {
            uint64_t before = count_before(n, i);
            assert(rank >= before && rank - before <= in->cnt[i]);
            rank -= before;
        }
    } else {
        i = child_by_rank(n, &rank, 1);
    }
    int con = (i == 0 ? on & ON_HEAD : 0) | (i + 1 == n->n ? on & ON_TAIL : 0);
    split csp = {0};
    pt_node *c = ins_rec(pt_node_own(in->child[i]), rank, it, con, &csp, put);
    in->child[i] = c;
    if (!csp.right) {
        if (*put == PUT_NONE || *put == PUT_INSERTED) in->cnt[i]++;
        return n;
    }
    pt_ent e[PT_FANOUT + 1];
    size_t m = 0;
    for (uint32_t j = 0; j < n->n; j++) {
        ent_of(n, j, &e[m++]);
        if (j != i) continue;
        e[m - 1].cnt = pt_node_count(c);
        e[m++] = (pt_ent){csp.right, pt_node_count(csp.right), csp.sep, csp.seplen, 0};
    }
    return inner_rebuild(n, e, m, csp.edge, sp);
}

/* Stores the written root r (growing a level when it split). */
static void set_root(ptree *t, pt_node *r, const split *sp) {
    if (sp->right) {
        pt_ent e[2] = {{r, pt_node_count(r), NULL, 0, 0},
                       {sp->right, pt_node_count(sp->right), sp->sep, sp->seplen, 0}};
        r = pt_inner_make(t->kind, e, 2);
    }
    t->root = r;
    assert(pt_depth(t) < PT_MAX_DEPTH);
}

void pt_insert(ptree *t, uint64_t rank, const pt_item *it) {
    assert(rank <= t->count);
    if (!t->root) t->root = pt_leaf_new(t->kind, pt_leaf_cap(pt_item_size(t->kind, it)));
    split sp = {0};
    int put = PUT_NONE;
    set_root(t, ins_rec(pt_node_own(t->root), rank, it, ON_HEAD | ON_TAIL, &sp, &put), &sp);
    t->count++;
}

/* ---- replace ---- */

static int same_key(const pt_item *a, const pt_item *b) {
    return pt_keycmp(a->key, a->klen, b->key, b->klen) == 0;
}

/* Delete then insert, through a private copy of it (it may point into
 * the tree). */
static void replace_slow(ptree *t, uint64_t rank, const pt_item *it) {
    char *k = malloc(it->klen + it->vlen + 1);
    if (!k) abort();
    if (it->klen) memcpy(k, it->key, it->klen);
    if (it->vlen) memcpy(k + it->klen, it->val, it->vlen);
    pt_item c = {k, it->klen, k + it->klen, it->vlen};
    pt_delete(t, rank);
    pt_insert(t, rank, &c);
    free(k);
}

void pt_replace(ptree *t, uint64_t rank, const pt_item *it) {
    assert(rank < t->count);
    pt_node **slot = &t->root;
    uint64_t r = rank;
    pt_node *n = pt_node_own(*slot);
    *slot = n;
    while (!n->leaf) {
        uint32_t i = child_by_rank(n, &r, 0);
        slot = &INNER(n)->child[i];
        n = pt_node_own(*slot);
        *slot = n;
    }
    size_t off = pt_leaf_offset(n, (size_t)r);
    pt_item old;
    size_t osz = pt_item_decode(LEAF(n)->data + off, n->kind, &old);
    /* A different key may move across a separator. */
    pt_node *w = t->kind == PT_KEYED && !same_key(&old, it) ? NULL : leaf_replace(n, off, osz, it);
    if (w) *slot = w;
    else replace_slow(t, rank, it);
}

/* ---- delete ---- */

static pt_node *leaf_delete(pt_node *n, uint64_t lo, uint64_t cnt) {
    size_t a = pt_leaf_offset(n, (size_t)lo), b = a;
    const char *d = LEAF(n)->data;
    for (uint64_t i = 0; i < cnt; i++) b += pt_item_skip(d + b, n->kind);
    if (n->nbig) n->nbig = (uint16_t)(n->nbig - pt_leaf_blobs(n, a, b, -1));
    int tail = b == n->used;
    memmove(LEAF(n)->data + a, d + b, n->used - b);
    n->used -= (uint32_t)(b - a);
    n->n -= (uint32_t)cnt;
    if (!tail) {
        n->last = (uint16_t)(n->last - (b - a));
    } else { /* the new last item: a walk (n->last is stale for it) */
        size_t o = 0;
        n->last = 0;
        for (uint32_t i = 0; i + 1 < n->n; i++) o += pt_item_skip(d + o, n->kind);
        if (n->n) n->last = (uint16_t)o;
    }
    /* Give memory back once a leaf is less than half used. */
    if (n->cap > 2 * (size_t)n->used + 64) n = pt_leaf_resize(n, pt_leaf_cap(n->used));
    return n;
}

static int underfull(const pt_node *n) {
    if (n->leaf) return n->used < PT_LEAF_BYTES / 4 && n->n < PT_LEAF_ITEMS / 4;
    return n->n < PT_FANOUT / 4;
}

/* Merges or evens out the leaves e[a], e[a+1]: the new number of entries. */
static size_t rebalance_leaves(int kind, pt_ent *e, size_t m, size_t a) {
    pt_node *x = e[a].c, *y = e[a + 1].c;
    size_t tot = (size_t)x->used + y->used, items = (size_t)x->n + y->n;
    char buf[2 * PT_LEAF_BYTES];
    memcpy(buf, LEAF(x)->data, x->used);
    memcpy(buf + x->used, LEAF(y)->data, y->used);
    if (tot <= PT_LEAF_BYTES && items <= PT_LEAF_ITEMS) {
        pt_node *z = pt_leaf_from(kind, buf, tot, pt_leaf_cap(tot), 1);
        pt_node_replaced(x);
        pt_node_replaced(y);
        e[a].c = z;
        e[a].cnt = z->n;
        e[a].touched = 0;
        memmove(e + a + 1, e + a + 2, (m - a - 2) * sizeof *e);
        return m - 1;
    }
    size_t cut = even_cut(kind, buf, tot, items);
    pt_node *l = pt_leaf_from(kind, buf, cut, pt_leaf_cap(cut), 1);
    pt_node *r = pt_leaf_from(kind, buf + cut, tot - cut, pt_leaf_cap(tot - cut), 1);
    pt_node_replaced(x);
    pt_node_replaced(y);
    e[a] = (pt_ent){l, l->n, e[a].sep, e[a].seplen, 0};
    e[a + 1] = (pt_ent){r, r->n, NULL, 0, 0};
    leaf_sep(l, r, &e[a + 1].sep, &e[a + 1].seplen);
    return m;
}

/* Merges or evens out the inner nodes e[a], e[a+1]. */
static size_t rebalance_inners(int kind, pt_ent *e, size_t m, size_t a) {
    pt_node *x = e[a].c, *y = e[a + 1].c;
    pt_ent b[2 * PT_FANOUT];
    size_t k = 0;
    for (uint32_t i = 0; i < x->n; i++) ent_of(x, i, &b[k++]);
    for (uint32_t i = 0; i < y->n; i++) {
        ent_of(y, i, &b[k]);
        if (i == 0) { /* y's lower bound is the parent's separator */
            b[k].sep = e[a + 1].sep;
            b[k].seplen = e[a + 1].seplen;
        }
        k++;
    }
    /* The new nodes take their own references; x and y drop theirs. */
    for (size_t i = 0; i < k; i++) pt_node_ref(b[i].c);
    if (k <= PT_FANOUT) {
        pt_node *z = pt_inner_make(kind, b, k);
        pt_node_replaced(x);
        pt_node_replaced(y);
        e[a] = (pt_ent){z, pt_node_count(z), e[a].sep, e[a].seplen, 0};
        memmove(e + a + 1, e + a + 2, (m - a - 2) * sizeof *e);
        return m - 1;
    }
    pt_node *l = pt_inner_make(kind, b, k / 2);
    pt_node *r = pt_inner_make(kind, b + k / 2, k - k / 2);
    pt_node_replaced(x);
    pt_node_replaced(y);
    e[a] = (pt_ent){l, pt_node_count(l), e[a].sep, e[a].seplen, 0};
    e[a + 1] = (pt_ent){r, pt_node_count(r), NULL, 0, 0};
    e[a + 1].sep = pt_inner_sep(r, 0, &e[a + 1].seplen);
    return m;
}

/* Deletes [lo, lo + cnt) from the unshared subtree n (not all of it):
 * covered children are dropped whole (O(1) each: a shared one is only
 * unreferenced), the at most two partly covered ones recursed into, then
 * merged with a neighbour when underfull. The subtree's new root. */
static pt_node *del_rec(pt_node *n, uint64_t lo, uint64_t cnt) {
    if (n->leaf) return leaf_delete(n, lo, cnt);
    pt_inner *in = INNER(n);
    uint64_t hi = lo + cnt, p = 0;
    pt_ent e[PT_FANOUT];
    size_t m = 0;
    int structural = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        uint64_t c0 = p, c1 = p + in->cnt[i];
        p = c1;
        ent_of(n, i, &e[m]);
        if (c1 <= lo || c0 >= hi) {
            m++;
        } else if (lo <= c0 && c1 <= hi) {
            pt_node_drop(in->child[i]);
            structural = 1;
        } else {
            uint64_t a = lo > c0 ? lo - c0 : 0, b = (hi < c1 ? hi : c1) - c0;
            in->child[i] = del_rec(pt_node_own(in->child[i]), a, b - a);
            in->cnt[i] -= b - a;
            e[m].c = in->child[i];
            e[m].cnt = in->cnt[i];
            e[m].touched = 1;
            m++;
        }
    }
    assert(m >= 1);
    for (size_t j = 0; j < m;) {
        if (m > 1 && e[j].touched && underfull(e[j].c)) {
            size_t a = j + 1 < m ? j : j - 1;
            m = e[j].c->leaf ? rebalance_leaves(n->kind, e, m, a)
                             : rebalance_inners(n->kind, e, m, a);
            structural = 1;
            j = 0;
            continue;
        }
        j++;
    }
    if (!structural) return n;
    pt_node *r = pt_inner_make(n->kind, e, m);
    pt_node_free_shell(n);
    return r;
}

void pt_delete_range(ptree *t, uint64_t rank, uint64_t n) {
    assert(rank <= t->count && n <= t->count - rank);
    if (!n) return;
    if (n == t->count) {
        pt_free(t);
        return;
    }
    pt_node *r = del_rec(pt_node_own(t->root), rank, n);
    while (!r->leaf && r->n == 1) { /* the root lost its siblings: shrink */
        pt_node *c = INNER(r)->child[0];
        pt_node_free_shell(r);
        r = c;
    }
    t->root = r;
    t->count -= n;
}

void pt_delete(ptree *t, uint64_t rank) { pt_delete_range(t, rank, 1); }

int pt_put(ptree *t, const pt_item *it) {
    assert(t->kind == PT_KEYED);
    if (!t->root) {
        pt_insert(t, 0, it);
        return 1;
    }
    split sp = {0};
    int put = PUT_INSERTED; /* any mode but PUT_NONE */
    set_root(t, ins_rec(pt_node_own(t->root), 0, it, ON_HEAD | ON_TAIL, &sp, &put), &sp);
    if (put == PUT_INSERTED) t->count++;
    if (put != PUT_SLOW) return put == PUT_INSERTED;
    uint64_t r;
    int found = pt_seek(t, it->key, it->klen, &r, NULL);
    assert(found);
    (void)found;
    replace_slow(t, r, it);
    return 0;
}

int pt_remove(ptree *t, const void *key, size_t klen) {
    uint64_t r;
    if (!pt_seek(t, key, klen, &r, NULL)) return 0;
    pt_delete(t, r);
    return 1;
}

/* ---- iteration ---- */

static void iter_leaf(pt_iter *it, const pt_node *leaf, uint32_t idx) {
    it->pos[it->depth - 1] = idx;
    if (!it->reverse) {
        it->off = (uint32_t)pt_leaf_offset(leaf, idx);
        return;
    }
    const char *d = CLEAF(leaf)->data;
    size_t off = 0;
    for (uint32_t i = 0; i < leaf->n; i++) {
        pt_item x;
        it->loff[i] = (uint16_t)off;
        off += pt_item_decode(d + off, leaf->kind, &x);
    }
}

void pt_iter_init(pt_iter *it, const ptree *t, uint64_t rank, int reverse) {
    it->consume = NULL;
    it->t = t;
    it->reverse = reverse;
    it->rank = rank;
    it->depth = 0;
    if (rank >= t->count) return;
    const pt_node *n = t->root;
    int d = 0;
    while (!n->leaf) {
        uint32_t i = child_by_rank(n, &rank, 0);
        it->node[d] = n;
        it->pos[d++] = i;
        n = CINNER(n)->child[i];
    }
    it->node[d] = n;
    it->depth = d + 1;
    iter_leaf(it, n, (uint32_t)rank);
}

void pt_iter_init_consume(pt_iter *it, ptree *t, const _Atomic uint32_t *owner_rc) {
    pt_iter_init(it, t, 0, 0);
    it->consume = owner_rc;
}

/* A consuming walk at level d moves to child pos[d]: releases the children
 * of node[d] before pos[d] - 1 (the one just left holds the item given
 * last) when the walk alone reaches node[d] (pt_iter_init_consume). The
 * acquire loads pair with the other versions' releases of their
 * references. */
static void iter_release(pt_iter *it, int d) {
    if (atomic_load_explicit(it->consume, memory_order_acquire) != 1) return;
    for (int k = 0; k <= d; k++)
        if (atomic_load_explicit(&it->node[k]->rc, memory_order_acquire) != 1) return;
    pt_inner *in = (pt_inner *)(uintptr_t)it->node[d];
    for (int64_t j = (int64_t)it->pos[d] - 2; j >= 0 && in->child[j]; j--) {
        pt_node_drop(in->child[j]);
        in->child[j] = NULL;
    }
}

/* Moves to the first (dir 1) or last (dir -1) item of the next leaf. */
static void iter_step(pt_iter *it, int dir) {
    int d = it->depth - 2;
    while (d >= 0 && (dir > 0 ? it->pos[d] + 1 >= it->node[d]->n : it->pos[d] == 0)) d--;
    if (d < 0) {
        it->depth = 0;
        return;
    }
    it->pos[d] = dir > 0 ? it->pos[d] + 1 : it->pos[d] - 1;
    if (it->consume) iter_release(it, d);
    const pt_node *n = CINNER(it->node[d])->child[it->pos[d]];
    while (!n->leaf) {
        it->node[++d] = n;
        it->pos[d] = dir > 0 ? 0 : n->n - 1;
        n = CINNER(n)->child[it->pos[d]];
    }
    it->node[++d] = n;
    assert(d == it->depth - 1);
    iter_leaf(it, n, dir > 0 ? 0 : n->n - 1);
}

int pt_iter_next(pt_iter *it, pt_item *out) {
    if (!it->depth) return 0;
    int d = it->depth - 1;
    const pt_node *leaf = it->node[d];
    uint32_t i = it->pos[d];
    if (!it->reverse) {
        it->off += (uint32_t)pt_item_decode(CLEAF(leaf)->data + it->off, leaf->kind, out);
        it->rank++;
        if (i + 1 < leaf->n) it->pos[d] = i + 1;
        else iter_step(it, 1);
    } else {
        pt_item_decode(CLEAF(leaf)->data + it->loff[i], leaf->kind, out);
        it->rank--;
        if (i > 0) it->pos[d] = i - 1;
        else iter_step(it, -1);
    }
    return 1;
}

/* ---- bulk build ---- */

typedef struct bstate {
    char leaf[PT_LEAF_BYTES];        /* items of the leaf being filled */
    size_t used, items;
    const char *last;                /* PT_KEYED: last key added (in leaf[] or a node) */
    size_t lastlen;
    const char *prev;                /* PT_KEYED: last key of the last flushed leaf */
    size_t prevlen;
    int haveleaf;                    /* a leaf was flushed */
    pt_ent *lvl[PT_MAX_DEPTH];       /* lvl[0]: leaves waiting for a parent; */
    size_t nl[PT_MAX_DEPTH];         /* allocated when first used (small trees: never) */
} bstate;

void pt_build_init(pt_builder *b, int kind) {
    pt_init(&b->t, kind);
    bstate *s = calloc(1, sizeof *s);
    if (!s) abort();
    b->state = s;
}

static void build_push(pt_builder *b, int l, pt_ent e) {
    bstate *s = b->state;
    assert(l + 1 < PT_MAX_DEPTH);
    if (!s->lvl[l] && !(s->lvl[l] = malloc(PT_FANOUT * sizeof(pt_ent)))) abort();
    if (s->nl[l] == PT_FANOUT) {
        pt_node *n = pt_inner_make(b->t.kind, s->lvl[l], PT_FANOUT);
        pt_ent up = {n, pt_node_count(n), NULL, 0, 0};
        up.sep = pt_inner_sep(n, 0, &up.seplen);
        s->nl[l] = 0;
        build_push(b, l + 1, up);
    }
    s->lvl[l][s->nl[l]++] = e;
}

static void build_flush_leaf(pt_builder *b) {
    bstate *s = b->state;
    int kind = b->t.kind;
    pt_node *n = pt_leaf_from(kind, s->leaf, s->used, s->used, 0);
    pt_ent e = {n, n->n, NULL, 0, 0};
    pt_item first, last;
    if (kind == PT_KEYED) {
        pt_item_decode(LEAF(n)->data, kind, &first);
        if (s->haveleaf) { /* shortest prefix of first above the previous leaf's last */
            size_t m = 0;
            while (m < s->prevlen && m < first.klen && s->prev[m] == first.key[m]) m++;
            assert(m < first.klen);
            e.sep = first.key;
            e.seplen = m + 1;
        }
        pt_item_decode(LEAF(n)->data + pt_leaf_offset(n, n->n - 1), kind, &last);
        s->prev = s->last = last.key;
        s->prevlen = s->lastlen = last.klen;
    }
    s->haveleaf = 1;
    s->used = s->items = 0;
    build_push(b, 0, e);
}

void pt_build_add(pt_builder *b, const pt_item *it) {
    bstate *s = b->state;
    int kind = b->t.kind;
    if (kind == PT_KEYED && (s->haveleaf || s->items))
        assert(pt_keycmp(s->last, s->lastlen, it->key, it->klen) < 0);
    size_t isz = pt_item_size(kind, it);
    if (s->used + isz > PT_LEAF_BYTES || s->items == PT_LEAF_ITEMS) build_flush_leaf(b);
    uint32_t nbig = 0;
    char *p = s->leaf + s->used;
    pt_item_encode(p, kind, it, &nbig);
    if (kind == PT_KEYED) {
        pt_item x;
        pt_item_decode(p, kind, &x);
        s->last = x.key;
        s->lastlen = x.klen;
    }
    s->used += isz;
    s->items++;
    b->t.count++;
}

void pt_build_finish(pt_builder *b, ptree *out) {
    bstate *s = b->state;
    int kind = b->t.kind;
    pt_init(out, kind);
    if (s->items) build_flush_leaf(b);
    for (int l = 0; s->haveleaf; l++) {
        int above = 0;
        for (int k = l + 1; k < PT_MAX_DEPTH; k++) above |= s->nl[k] != 0;
        if (s->nl[l] == 1 && !above) {
            out->root = s->lvl[l][0].c;
            break;
        }
        if (!s->nl[l]) continue;
        pt_node *n = pt_inner_make(kind, s->lvl[l], s->nl[l]);
        pt_ent up = {n, pt_node_count(n), NULL, 0, 0};
        up.sep = pt_inner_sep(n, 0, &up.seplen);
        s->nl[l] = 0;
        build_push(b, l + 1, up);
    }
    out->count = b->t.count;
    assert(!out->root || pt_node_count(out->root) == out->count);
    for (int l = 0; l < PT_MAX_DEPTH; l++) free(s->lvl[l]);
    free(s);
    b->state = NULL;
    pt_init(&b->t, kind);
}

/* ---- invariants ---- */

typedef struct bound {
    const char *k;  /* NULL: unbounded */
    size_t len;
} bound;

/* Checks subtree n (at height h: 1 for a leaf): its item count. Keys lie in
 * [lo, hi). */
static uint64_t check_rec(const pt_node *n, int h, bound lo, bound hi) {
    assert(atomic_load_explicit(&n->rc, memory_order_relaxed) >= 1);
    if (n->leaf) {
        assert(h == 1 && n->n >= 1 && n->n <= PT_LEAF_ITEMS);
        assert(n->used <= n->cap && n->cap <= PT_LEAF_BYTES);
        size_t off = 0, last_off = 0;
        pt_item prev = {0};
        for (uint32_t i = 0; i < n->n; i++) {
            pt_item it;
            last_off = off;
            off += pt_item_decode(CLEAF(n)->data + off, n->kind, &it);
            if (n->kind != PT_KEYED) continue;
            if (i) assert(pt_keycmp(prev.key, prev.klen, it.key, it.klen) < 0);
            if (lo.k) assert(pt_keycmp(lo.k, lo.len, it.key, it.klen) <= 0);
            if (hi.k) assert(pt_keycmp(it.key, it.klen, hi.k, hi.len) < 0);
            prev = it;
        }
        assert(off == n->used);
        assert(pt_leaf_blobs(n, 0, n->used, 0) == n->nbig);
        assert(n->last == (n->n ? last_off : 0));
        return n->n;
    }
    assert(h > 1 && n->n >= 1 && n->n <= PT_FANOUT);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n->n; i++) {
        bound clo = lo, chi = hi;
        if (n->kind == PT_KEYED) {
            if (i) clo.k = pt_inner_sep(n, i, &clo.len);
            if (i + 1 < n->n) chi.k = pt_inner_sep(n, i + 1, &chi.len);
            if (i) assert(clo.len > 0);
        }
        uint64_t c = check_rec(CINNER(n)->child[i], h - 1, clo, chi);
        assert(c == CINNER(n)->cnt[i]);
        total += c;
    }
    return total;
}

int pt_check(const ptree *t) {
    if (!t->root) {
        assert(t->count == 0);
        return 1;
    }
    bound none = {NULL, 0};
    assert(check_rec(t->root, pt_depth(t), none, none) == t->count);
    return 1;
}
