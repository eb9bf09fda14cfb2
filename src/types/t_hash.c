/* t_hash: the hash type on one PT_KEYED ptree. An item's key is the field's
 * 32-bit hash (the high half of vt_hash, big-endian, so that the tree's
 * memcmp order is the hash order) followed by the field's bytes; its value
 * is the value. The hash order makes HSCAN's cursor a position that stays
 * valid while the hash grows or shrinks.
 *
 * o->enc is what Redis 7.0 would report: OBJ_ENC_LISTPACK while the hash
 * has at most hash-max-listpack-entries fields and no field or value longer
 * than hash-max-listpack-value, then OBJ_ENC_HASHTABLE for good (hash_set
 * converts as Redis's hashTypeSet does; hash_from_pairs decides from the
 * whole content, as Redis's loader does).
 *
 * Writes: main thread, on an unshared obj (obj_coll_writable). Reads and
 * iteration: any thread holding a reference whose trees are not written. */
#include "t_hash.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util.h"
#include "vt.h"

/* Tree keys up to this size are built on the stack. */
#define HKEY_STACK 256

uint32_t hash_field_hash(const char *f, size_t fl) {
    return (uint32_t)(vt_hash(f, fl) >> 32);
}

static void put_be32(char *p, uint32_t h) {
    p[0] = (char)(h >> 24);
    p[1] = (char)(h >> 16);
    p[2] = (char)(h >> 8);
    p[3] = (char)h;
}

static uint32_t get_be32(const char *p) {
    const unsigned char *u = (const unsigned char *)p;
    return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

/* The tree key of field f into buf (HKEY_STACK bytes) or a heap block;
 * free it with hkey_free(key, buf). */
static char *hkey_make(char *buf, const char *f, size_t fl) {
    char *k = fl + 4 <= HKEY_STACK ? buf : xmalloc(fl + 4);
    put_be32(k, hash_field_hash(f, fl));
    if (fl) memcpy(k + 4, f, fl);
    return k;
}

static void hkey_free(char *k, char *buf) {
    if (k != buf) free(k);
}

obj *hash_new(void) {
    int kind = PT_KEYED;
    return obj_new_coll(OBJ_HASH, OBJ_ENC_LISTPACK, 1, &kind);
}

uint64_t hash_len(const obj *h) {
    assert(h->type == OBJ_HASH);
    return pt_count(obj_ctree(h, 0));
}

/* A field or value too long for Redis's listpack form. */
static int hash_too_long(size_t len) {
    long long max = server.cfg.hash_max_listpack_value;
    return max < 0 || len > (unsigned long long)max;
}

int hash_get(const obj *h, const char *f, size_t fl, const char **v, size_t *vl) {
    assert(h->type == OBJ_HASH);
    char buf[HKEY_STACK];
    char *k = hkey_make(buf, f, fl);
    uint64_t rank;
    pt_item it;
    int found = pt_seek(obj_ctree(h, 0), k, fl + 4, &rank, &it);
    hkey_free(k, buf);
    if (!found) return 0;
    *v = it.val;
    *vl = it.vlen;
    return 1;
}

int hash_set(obj *h, const char *f, size_t fl, const char *v, size_t vl) {
    assert(h->type == OBJ_HASH && !obj_shared(h));
    char buf[HKEY_STACK];
    char *k = hkey_make(buf, f, fl);
    pt_item it = {k, fl + 4, v, vl};
    ptree *t = obj_tree(h, 0);
    int added = pt_put(t, &it);
    hkey_free(k, buf);
    /* Redis's hashTypeSet: a long field or value, or one field too many,
     * converts a listpack to a hashtable. */
    if (h->enc == OBJ_ENC_LISTPACK &&
        (hash_too_long(fl) || hash_too_long(vl) ||
         pt_count(t) > (uint64_t)(server.cfg.hash_max_listpack_entries < 0
                                      ? 0 : server.cfg.hash_max_listpack_entries)))
        h->enc = OBJ_ENC_HASHTABLE;
    return added;
}

int hash_del(obj *h, const char *f, size_t fl) {
    assert(h->type == OBJ_HASH && !obj_shared(h));
    char buf[HKEY_STACK];
    char *k = hkey_make(buf, f, fl);
    int removed = pt_remove(obj_tree(h, 0), k, fl + 4);
    hkey_free(k, buf);
    return removed;
}

/* The item of a tree key as a field (the key without its hash prefix). */
static void item_field(const pt_item *it, const char **f, size_t *fl, const char **v,
                       size_t *vl) {
    assert(it->klen >= 4);
    *f = it->key + 4;
    *fl = it->klen - 4;
    *v = it->val;
    *vl = it->vlen;
}

int hash_at(const obj *h, uint64_t rank, const char **f, size_t *fl, const char **v,
            size_t *vl) {
    pt_item it;
    if (!pt_get(obj_ctree(h, 0), rank, &it)) return 0;
    item_field(&it, f, fl, v, vl);
    return 1;
}

void hash_iter_init(hash_iter *it, const obj *h) {
    assert(h->type == OBJ_HASH);
    pt_iter_init(&it->it, obj_ctree(h, 0), 0, 0);
}

int hash_iter_next(hash_iter *it, const char **f, size_t *fl, const char **v, size_t *vl) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    item_field(&item, f, fl, v, vl);
    return 1;
}

uint64_t hash_scan(const obj *h, uint64_t cursor, size_t count, hash_scan_fn *fn,
                   void *priv) {
    assert(h->type == OBJ_HASH);
    const ptree *t = obj_ctree(h, 0);
    if (cursor > UINT32_MAX) return 0;
    char pos[4];
    put_be32(pos, (uint32_t)cursor);
    uint64_t rank;
    pt_seek(t, pos, 4, &rank, NULL);    /* the first item whose hash >= cursor */
    pt_iter it;
    pt_iter_init(&it, t, rank, 0);
    pt_item item;
    size_t n = 0;
    int have_last = 0;
    uint32_t last = 0;
    while (pt_iter_next(&it, &item)) {
        uint32_t hh = get_be32(item.key);
        /* every item of one hash in the same batch: the cursor resumes at a
         * hash, so a batch must not end between two equal hashes */
        if (n >= count && (!have_last || hh != last)) return hh;
        const char *f, *v;
        size_t fl, vl;
        item_field(&item, &f, &fl, &v, &vl);
        fn(priv, f, fl, v, vl);
        n++;
        last = hh;
        have_last = 1;
    }
    return 0;
}

/* ---- restore ---------------------------------------------------------- */

typedef struct pair_key {
    uint32_t h;
    const hash_pair *p;
} pair_key;

static int pair_cmp(const void *a, const void *b) {
    const pair_key *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    size_t n = x->p->fl < y->p->fl ? x->p->fl : y->p->fl;
    int c = n ? memcmp(x->p->f, y->p->f, n) : 0;
    if (c) return c;
    return x->p->fl < y->p->fl ? -1 : x->p->fl > y->p->fl;
}

obj *hash_from_pairs(hash_pair *p, size_t n) {
    pair_key *keys = xmalloc((n ? n : 1) * sizeof *keys);
    int big = n > (size_t)(server.cfg.hash_max_listpack_entries < 0
                               ? 0 : server.cfg.hash_max_listpack_entries);
    for (size_t i = 0; i < n; i++) {
        keys[i].h = hash_field_hash(p[i].f, p[i].fl);
        keys[i].p = &p[i];
        if (hash_too_long(p[i].fl) || hash_too_long(p[i].vl)) big = 1;
    }
    qsort(keys, n, sizeof *keys, pair_cmp);
    for (size_t i = 1; i < n; i++) {
        if (pair_cmp(&keys[i - 1], &keys[i]) == 0) {
            free(keys);
            return NULL;
        }
    }
    pt_builder b;
    pt_build_init(&b, PT_KEYED);
    char buf[HKEY_STACK];
    for (size_t i = 0; i < n; i++) {
        const hash_pair *q = keys[i].p;
        char *k = q->fl + 4 <= HKEY_STACK ? buf : xmalloc(q->fl + 4);
        put_be32(k, keys[i].h);
        if (q->fl) memcpy(k + 4, q->f, q->fl);
        pt_item it = {k, q->fl + 4, q->v, q->vl};
        pt_build_add(&b, &it);
        hkey_free(k, buf);
    }
    free(keys);
    obj *h = hash_new();
    pt_free(obj_tree(h, 0));
    pt_build_finish(&b, obj_tree(h, 0));
    h->enc = big ? OBJ_ENC_HASHTABLE : OBJ_ENC_LISTPACK;
    return h;
}
