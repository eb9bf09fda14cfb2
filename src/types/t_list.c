/* t_list: the list type (see t_list.h). One PT_SEQ ptree per list, one item
 * per element (empty key, the element as value); every position is a rank
 * in that tree, so LINDEX, LSET and LINSERT are O(log n) anywhere in the
 * list, and range deletes (LTRIM, LREM's runs, pops with a count) go through
 * pt_delete_range. Writes path-copy what a save shares (ptree.h). */
#include "t_list.h"

#include <assert.h>
#include <string.h>

#include "util.h"

static const int list_kinds[1] = {PT_SEQ};

static ptree *tree(obj *l) {
    assert(l->type == OBJ_LIST);
    return obj_tree(l, 0);
}

static const ptree *ctree(const obj *l) {
    assert(l->type == OBJ_LIST);
    return obj_ctree(l, 0);
}

obj *list_new(void) { return obj_new_coll(OBJ_LIST, OBJ_ENC_QUICKLIST, 1, list_kinds); }

uint64_t list_len(const obj *l) { return pt_count(ctree(l)); }

static pt_item elem_item(const char *p, size_t n) {
    pt_item it = {NULL, 0, p, n};
    return it;
}

void list_insert(obj *l, uint64_t rank, const char *p, size_t n) {
    assert(!obj_shared(l) && rank <= list_len(l));
    pt_item it = elem_item(p, n);
    pt_insert(tree(l), rank, &it);
}

void list_push(obj *l, int where, const char *p, size_t n) {
    list_insert(l, where == LIST_HEAD ? 0 : list_len(l), p, n);
}

void list_iter_init_at(list_iter *it, const obj *l, uint64_t rank, int reverse) {
    pt_iter_init(&it->it, ctree(l), rank, reverse);
}

void list_iter_init(list_iter *it, const obj *l) { list_iter_init_at(it, l, 0, 0); }

int list_iter_next(list_iter *it, const char **p, size_t *n) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    *p = item.val;
    *n = item.vlen;
    return 1;
}

obj *list_from_elems(const list_elem *v, size_t n) {
    obj *l = list_new();
    pt_builder b;
    pt_build_init(&b, PT_SEQ);
    for (size_t i = 0; i < n; i++) {
        pt_item it = elem_item(v[i].p, v[i].n);
        pt_build_add(&b, &it);
    }
    pt_free(tree(l));
    pt_build_finish(&b, tree(l));
    return l;
}

int list_rank(const obj *l, long long index, uint64_t *rank) {
    uint64_t len = list_len(l);
    if (index < 0) {
        /* -index without overflow: index >= LLONG_MIN, so -(index + 1) fits */
        uint64_t back = (uint64_t)(-(index + 1)) + 1;
        if (back > len) return 0;
        *rank = len - back;
        return 1;
    }
    if ((uint64_t)index >= len) return 0;
    *rank = (uint64_t)index;
    return 1;
}

int list_index(const obj *l, long long index, const char **p, size_t *n) {
    uint64_t rank;
    pt_item it;
    if (!list_rank(l, index, &rank) || !pt_get(ctree(l), rank, &it)) return 0;
    *p = it.val;
    *n = it.vlen;
    return 1;
}

int list_find(const obj *l, const char *p, size_t n, uint64_t *rank) {
    list_iter it;
    const char *ep;
    size_t en;
    uint64_t r = 0;
    list_iter_init(&it, l);
    while (list_iter_next(&it, &ep, &en)) {
        if (en == n && (n == 0 || memcmp(ep, p, n) == 0)) {
            *rank = r;
            return 1;
        }
        r++;
    }
    return 0;
}

int list_set(obj *l, long long index, const char *p, size_t n) {
    assert(!obj_shared(l));
    uint64_t rank;
    if (!list_rank(l, index, &rank)) return 0;
    pt_item it = elem_item(p, n);
    pt_replace(tree(l), rank, &it);
    return 1;
}

void list_del_range(obj *l, uint64_t rank, uint64_t n) {
    assert(!obj_shared(l) && rank <= list_len(l) && n <= list_len(l) - rank);
    if (n) pt_delete_range(tree(l), rank, n);
}

void list_pop(obj *l, int where, uint64_t n) {
    uint64_t len = list_len(l);
    assert(n <= len);
    list_del_range(l, where == LIST_HEAD ? 0 : len - n, n);
}

/* ---- Redis 7.0's listpack sizes and quicklist node rule ---- */

/* Bytes of a listpack entry's back length for an entry of l bytes. */
static size_t lp_backlen_bytes(size_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

size_t list_lp_entry_bytes(const char *p, size_t n) {
    long long v;
    size_t enc;
    if (n <= 20 && str_to_ll(p, n, &v)) {
        if (v >= 0 && v <= 127) enc = 1;
        else if (v >= -4096 && v <= 4095) enc = 2;
        else if (v >= -32768 && v <= 32767) enc = 3;
        else if (v >= -8388608 && v <= 8388607) enc = 4;
        else if (v >= -2147483648LL && v <= 2147483647LL) enc = 5;
        else enc = 9;
    } else if (n < 64) {
        enc = 1 + n;
    } else if (n < 4096) {
        enc = 2 + n;
    } else {
        enc = 5 + n;
    }
    return enc + lp_backlen_bytes(enc);
}

int list_node_allows(size_t node_bytes, size_t count, size_t elen, int fill) {
    static const size_t levels[] = {4096, 8192, 16384, 32768, 65536};
    /* Redis's estimate of the new entry's overhead (from the ziplist days) */
    size_t overhead = elen < 254 ? 1 : 5;
    overhead += elen < 64 ? 1 : elen < 16384 ? 2 : 5;
    size_t new_sz = node_bytes + elen + overhead;
    if (fill < -5) fill = -5; /* quicklistSetFill's bounds */
    if (fill > 32767) fill = 32767;
    if (elen >= (size_t)1 << 30) return 0; /* packed_threshold: a plain node */
    if (fill < 0) {
        size_t level = (size_t)(-(long long)fill) - 1;
        if (level < sizeof levels / sizeof levels[0] && new_sz <= levels[level]) return 1;
    }
    if (new_sz > 8192) return 0; /* SIZE_SAFETY_LIMIT */
    return fill > 0 && count < (size_t)fill;
}
