/* t_set: the set type on one PT_KEYED ptree. An item's key is the member's
 * 32-bit hash (big-endian: the top half of vt_hash, so the tree is in hash
 * order) followed by the member's bytes; its value is empty. o->enc says
 * what Redis 7.0 would use for the same set: OBJ_ENC_INTSET while every
 * member is a canonical decimal int64 and the count is within
 * set-max-intset-entries, then OBJ_ENC_HASHTABLE for good (as Redis's
 * setTypeAdd converts; removing members never converts back). The layout is
 * the same for both: the encoding only decides what OBJECT ENCODING says
 * and the order in which the commands reply (cmd_set.c).
 *
 * Writes: main thread, on an unshared obj (obj_coll_writable); the tree
 * copies its shared nodes. Reads and iteration: any thread holding a
 * reference whose tree is not written meanwhile. */
#include "t_set.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util.h"
#include "vt.h"

/* Keys up to this size are built on the stack. */
#define SET_KEYBUF 256

static const int set_kinds[1] = {PT_KEYED};

static ptree *tree(obj *s) { return obj_tree(s, 0); }
static const ptree *ctree(const obj *s) { return obj_ctree(s, 0); }

uint32_t set_hash(const char *m, size_t ml) { return (uint32_t)(vt_hash(m, ml) >> 32); }

int set_member_int(const char *m, size_t ml, long long *v) {
    long long tmp;
    return str_to_ll(m, ml, v ? v : &tmp);
}

/* The item key of (h, m) in buf when it fits, else in a heap block that
 * the caller frees (*heap). */
static char *make_key(char *buf, uint32_t h, const char *m, size_t ml, char **heap) {
    char *k = buf;
    *heap = NULL;
    if (ml > SET_KEYBUF - 4) k = *heap = xmalloc(ml + 4);
    k[0] = (char)(h >> 24);
    k[1] = (char)(h >> 16);
    k[2] = (char)(h >> 8);
    k[3] = (char)h;
    if (ml) memcpy(k + 4, m, ml);
    return k;
}

static uint32_t key_hash(const char *k) {
    const unsigned char *u = (const unsigned char *)k;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static int max_intset(void) { return server.cfg.set_max_intset_entries; }

obj *set_new(void) { return obj_new_coll(OBJ_SET, OBJ_ENC_INTSET, 1, set_kinds); }

uint64_t set_len(const obj *s) { return pt_count(ctree(s)); }

int set_has(const obj *s, const char *m, size_t ml) {
    char buf[SET_KEYBUF], *heap;
    const char *k = make_key(buf, set_hash(m, ml), m, ml, &heap);
    uint64_t rank;
    int found = pt_seek(ctree(s), k, ml + 4, &rank, NULL);
    free(heap);
    return found;
}

int set_add(obj *s, const char *m, size_t ml) {
    assert(s->type == OBJ_SET && !obj_shared(s));
    char buf[SET_KEYBUF], *heap;
    char *k = make_key(buf, set_hash(m, ml), m, ml, &heap);
    uint64_t rank;
    int added = 0;
    if (!pt_seek(tree(s), k, ml + 4, &rank, NULL)) {
        pt_item it = {k, ml + 4, "", 0};
        pt_insert(tree(s), rank, &it);
        added = 1;
        if (s->enc == OBJ_ENC_INTSET &&
            (!set_member_int(m, ml, NULL) || set_len(s) > (uint64_t)max_intset()))
            s->enc = OBJ_ENC_HASHTABLE;
    }
    free(heap);
    return added;
}

int set_rem(obj *s, const char *m, size_t ml) {
    assert(s->type == OBJ_SET && !obj_shared(s));
    char buf[SET_KEYBUF], *heap;
    const char *k = make_key(buf, set_hash(m, ml), m, ml, &heap);
    int removed = pt_remove(tree(s), k, ml + 4);
    free(heap);
    return removed;
}

void set_iter_init(set_iter *it, const obj *s) { pt_iter_init(&it->it, ctree(s), 0, 0); }

void set_iter_init_at(set_iter *it, const obj *s, uint64_t rank) {
    pt_iter_init(&it->it, ctree(s), rank, 0);
}

int set_iter_next_h(set_iter *it, const char **m, size_t *ml, uint32_t *h) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    assert(item.klen >= 4);
    *m = item.key + 4;
    *ml = item.klen - 4;
    if (h) *h = key_hash(item.key);
    return 1;
}

int set_iter_next(set_iter *it, const char **m, size_t *ml) {
    return set_iter_next_h(it, m, ml, NULL);
}

void set_at(const obj *s, uint64_t rank, const char **m, size_t *ml) {
    pt_item item;
    int ok = pt_get(ctree(s), rank, &item);
    assert(ok && item.klen >= 4);
    (void)ok;
    *m = item.key + 4;
    *ml = item.klen - 4;
}

void set_del_at(obj *s, uint64_t rank) {
    assert(s->type == OBJ_SET && !obj_shared(s) && rank < set_len(s));
    pt_delete(tree(s), rank);
}

uint64_t set_rank_of_hash(const obj *s, uint32_t h) {
    char k[4];
    k[0] = (char)(h >> 24);
    k[1] = (char)(h >> 16);
    k[2] = (char)(h >> 8);
    k[3] = (char)h;
    uint64_t rank;
    pt_seek(ctree(s), k, 4, &rank, NULL); /* present (the empty member) or not: its rank */
    return rank;
}

/* The encoding of a set of n members built by adding them one by one. */
static int fresh_encoding(uint64_t n, int all_int) {
    return all_int && n <= (uint64_t)max_intset() ? OBJ_ENC_INTSET : OBJ_ENC_HASHTABLE;
}

void set_reset_encoding(obj *s) {
    assert(!obj_shared(s));
    int all_int = 1;
    if (set_len(s) <= (uint64_t)max_intset()) {
        set_iter it;
        const char *m;
        size_t ml;
        set_iter_init(&it, s);
        while (all_int && set_iter_next(&it, &m, &ml)) all_int = set_member_int(m, ml, NULL);
    }
    s->enc = (uint8_t)fresh_encoding(set_len(s), all_int);
}

/* The tree's order: the hash, then the member's bytes (memcmp, then the
 * shorter first), which is memcmp of the keys. */
static int hmember_cmp(const void *a, const void *b) {
    const set_hmember *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    size_t n = x->ml < y->ml ? x->ml : y->ml;
    int c = n ? memcmp(x->m, y->m, n) : 0;
    if (c) return c;
    return x->ml < y->ml ? -1 : x->ml > y->ml;
}

void set_sort_hmembers(set_hmember *v, size_t n) {
    if (n > 1) qsort(v, n, sizeof *v, hmember_cmp);
}

obj *set_from_sorted(const set_hmember *v, size_t n) {
    obj *s = set_new();
    pt_builder b;
    pt_build_init(&b, PT_KEYED);
    int all_int = 1;
    for (size_t i = 0; i < n; i++) {
        assert(i == 0 || hmember_cmp(&v[i - 1], &v[i]) < 0);
        char buf[SET_KEYBUF], *heap;
        char *k = make_key(buf, v[i].h, v[i].m, v[i].ml, &heap);
        pt_item it = {k, v[i].ml + 4, "", 0};
        pt_build_add(&b, &it);
        free(heap);
        if (all_int && !set_member_int(v[i].m, v[i].ml, NULL)) all_int = 0;
    }
    pt_free(tree(s));
    pt_build_finish(&b, tree(s));
    s->enc = (uint8_t)fresh_encoding(n, all_int);
    return s;
}

obj *set_from_members(set_member *v, size_t n) {
    set_hmember *hv = xmalloc((n ? n : 1) * sizeof *hv);
    for (size_t i = 0; i < n; i++) {
        hv[i].h = set_hash(v[i].m, v[i].ml);
        hv[i].m = v[i].m;
        hv[i].ml = v[i].ml;
    }
    set_sort_hmembers(hv, n);
    obj *s = NULL;
    size_t i;
    for (i = 1; i < n; i++)
        if (hmember_cmp(&hv[i - 1], &hv[i]) == 0) break;
    if (i >= n) s = set_from_sorted(hv, n);
    free(hv);
    return s;
}
