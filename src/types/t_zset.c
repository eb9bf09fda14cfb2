/* t_zset: the sorted set type (see t_zset.h for the two trees' layouts).
 * Tree 0 key = the score's order-preserving 8 bytes (big-endian; sign bit
 * flipped for positives, all bits for negatives; -0.0 keyed as 0.0) then
 * the member; its value is empty, or the score's 8 raw bytes when the score
 * is -0.0 (kept so that replies say "-0" as Redis does). Tree 1 key = the
 * member's 32-bit hash (big-endian) then the member; value = the score's 8
 * raw bytes. Main thread for writes; reads on any thread holding a
 * reference. */
#include "t_zset.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "util.h"
#include "vt.h"

/* A tree key built on the stack when small, on the heap otherwise. */
typedef struct zkey {
    char small[128];
    char *p;
    size_t len;
} zkey;

static char *zkey_alloc(zkey *k, size_t len) {
    k->len = len;
    k->p = len <= sizeof k->small ? k->small : xmalloc(len);
    return k->p;
}

static void zkey_free(zkey *k) {
    if (k->p != k->small) free(k->p);
}

static void put_be64(char *p, uint64_t v) {
    for (int i = 7; i >= 0; i--) {
        p[i] = (char)(v & 0xff);
        v >>= 8;
    }
}

static uint64_t get_be64(const char *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = (v << 8) | (uint8_t)p[i];
    return v;
}

static uint32_t get_be32(const char *p) {
    return ((uint32_t)(uint8_t)p[0] << 24) | ((uint32_t)(uint8_t)p[1] << 16) |
           ((uint32_t)(uint8_t)p[2] << 8) | (uint32_t)(uint8_t)p[3];
}

static void put_be32(char *p, uint32_t v) {
    p[0] = (char)(v >> 24);
    p[1] = (char)(v >> 16);
    p[2] = (char)(v >> 8);
    p[3] = (char)v;
}

/* The order-preserving form of a score: unsigned compare = numeric order. */
static uint64_t score_bits(double s) {
    if (s == 0) s = 0.0; /* -0.0 sorts as 0.0 */
    uint64_t u;
    memcpy(&u, &s, 8);
    return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double bits_score(uint64_t u) {
    u = (u >> 63) ? u & ~(UINT64_C(1) << 63) : ~u;
    double s;
    memcpy(&s, &u, 8);
    return s;
}

static int is_neg_zero(double s) { return s == 0 && signbit(s); }

static uint32_t member_hash(const char *m, size_t ml) {
    return (uint32_t)(vt_hash(m, ml) >> 32);
}

static void mkey(zkey *k, const char *m, size_t ml) {
    char *p = zkey_alloc(k, 4 + ml);
    put_be32(p, member_hash(m, ml));
    if (ml) memcpy(p + 4, m, ml);
}

static void skey(zkey *k, double s, const char *m, size_t ml) {
    char *p = zkey_alloc(k, 8 + ml);
    put_be64(p, score_bits(s));
    if (ml) memcpy(p + 8, m, ml);
}

/* The score of a tree 0 item. */
static double item_score(const pt_item *it) {
    if (it->vlen == 8) {
        double s;
        memcpy(&s, it->val, 8);
        return s;
    }
    return bits_score(get_be64(it->key));
}

/* Redis converts a listpack before inserting the member that overflows it. */
static void set_enc_before_add(obj *z, size_t ml) {
    if (z->enc == OBJ_ENC_LISTPACK &&
        (pt_count(obj_ctree(z, 0)) + 1 > (uint64_t)server.cfg.zset_max_listpack_entries ||
         (long long)ml > server.cfg.zset_max_listpack_value))
        z->enc = OBJ_ENC_SKIPLIST;
}

obj *zset_new(void) {
    static const int kinds[2] = {PT_KEYED, PT_KEYED};
    return obj_new_coll(OBJ_ZSET, OBJ_ENC_LISTPACK, 2, kinds);
}

obj *zset_new_skiplist(void) {
    obj *z = zset_new();
    z->enc = OBJ_ENC_SKIPLIST;
    return z;
}

void zset_convert_if_small(obj *z) {
    assert(!obj_shared(z));
    uint64_t n = zset_len(z);
    if (z->enc != OBJ_ENC_SKIPLIST || n > (uint64_t)server.cfg.zset_max_listpack_entries) return;
    zset_iter it;
    const char *m;
    size_t ml, nneg = 0;
    double s;
    zset_iter_init(&it, z);
    while (zset_iter_next(&it, &m, &ml, &s)) {
        if ((long long)ml > server.cfg.zset_max_listpack_value) return;
        nneg += (size_t)is_neg_zero(s);
    }
    z->enc = OBJ_ENC_LISTPACK;
    if (!nneg) return;
    /* The -0 members sit among the 0 ones: copy them out, then rescore. */
    zset_member *v = xmalloc(nneg * sizeof *v);
    size_t k = 0;
    zset_iter_at(&it, z, zset_rank_of_score(z, 0.0, 0), 0);
    while (k < nneg && zset_iter_next(&it, &m, &ml, &s)) {
        assert(s == 0);
        if (!is_neg_zero(s)) continue;
        char *copy = xmalloc(ml + 1);
        if (ml) memcpy(copy, m, ml);
        v[k++] = (zset_member){copy, ml, 0.0};
    }
    assert(k == nneg);
    for (k = 0; k < nneg; k++) {
        zset_set(z, v[k].m, v[k].ml, 0.0);
        free((void *)v[k].m);
    }
    free(v);
}

uint64_t zset_len(const obj *z) { return pt_count(obj_ctree(z, 1)); }

int zset_score(const obj *z, const char *m, size_t ml, double *score) {
    zkey k;
    mkey(&k, m, ml);
    uint64_t r;
    pt_item it;
    int found = pt_seek(obj_ctree(z, 1), k.p, k.len, &r, &it);
    if (found) {
        assert(it.vlen == 8);
        memcpy(score, it.val, 8);
    }
    zkey_free(&k);
    return found;
}

/* Inserts the tree 0 item of (s, m). */
static void t0_put(obj *z, const char *m, size_t ml, double s) {
    zkey k;
    skey(&k, s, m, ml);
    pt_item it = {k.p, k.len, (const char *)&s, is_neg_zero(s) ? 8 : 0};
    pt_put(obj_tree(z, 0), &it);
    zkey_free(&k);
}

static void t0_remove(obj *z, const char *m, size_t ml, double s) {
    zkey k;
    skey(&k, s, m, ml);
    int had = pt_remove(obj_tree(z, 0), k.p, k.len);
    assert(had);
    (void)had;
    zkey_free(&k);
}

int zset_set(obj *z, const char *m, size_t ml, double score) {
    double old = 0;
    int had = zset_score(z, m, ml, &old);
    zset_set_known(z, m, ml, had, old, score);
    return !had;
}

void zset_set_known(obj *z, const char *m, size_t ml, int had, double old, double score) {
    assert(!obj_shared(z) && !isnan(score));
    if (!had) set_enc_before_add(z, ml);
    if (z->enc == OBJ_ENC_LISTPACK && score == 0) score = 0.0; /* as zset_set */
    if (had && memcmp(&old, &score, 8) == 0) return;
    zkey k;
    mkey(&k, m, ml);
    pt_item ni = {k.p, k.len, (const char *)&score, 8};
    /* by key, one descent: an 8-byte value replaced in place, or inserted */
    int added = pt_put(obj_tree(z, 1), &ni);
    assert(added == !had);
    (void)added;
    if (had) t0_remove(z, m, ml, old);
    t0_put(z, m, ml, score);
    zkey_free(&k);
}

int zset_rem(obj *z, const char *m, size_t ml) {
    assert(!obj_shared(z));
    zkey k;
    mkey(&k, m, ml);
    ptree *t1 = obj_tree(z, 1);
    uint64_t r;
    pt_item it;
    int found = pt_seek(t1, k.p, k.len, &r, &it);
    if (found) {
        double old;
        memcpy(&old, it.val, 8);
        pt_delete(t1, r);
        t0_remove(z, m, ml, old);
    }
    zkey_free(&k);
    return found;
}

void zset_iter_init(zset_iter *it, const obj *z) { zset_iter_at(it, z, 0, 0); }

void zset_iter_at(zset_iter *it, const obj *z, uint64_t rank, int reverse) {
    pt_iter_init(&it->it, obj_ctree(z, 0), rank, reverse);
}

int zset_iter_next(zset_iter *it, const char **m, size_t *ml, double *score) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    assert(item.klen >= 8);
    *m = item.key + 8;
    *ml = item.klen - 8;
    *score = item_score(&item);
    return 1;
}

int zset_at(const obj *z, uint64_t rank, const char **m, size_t *ml, double *score) {
    pt_item item;
    if (!pt_get(obj_ctree(z, 0), rank, &item)) return 0;
    *m = item.key + 8;
    *ml = item.klen - 8;
    *score = item_score(&item);
    return 1;
}

int zset_rank(const obj *z, const char *m, size_t ml, uint64_t *rank, double *score) {
    double s;
    if (!zset_score(z, m, ml, &s)) return 0;
    zkey k;
    skey(&k, s, m, ml);
    int found = pt_seek(obj_ctree(z, 0), k.p, k.len, rank, NULL);
    assert(found);
    (void)found;
    zkey_free(&k);
    if (score) *score = s;
    return 1;
}

uint64_t zset_rank_of_score(const obj *z, double s, int excl) {
    uint64_t u = score_bits(s);
    if (excl) {
        if (u == UINT64_MAX) return zset_len(z);
        u++;
    }
    char key[8];
    put_be64(key, u);
    uint64_t r;
    pt_seek(obj_ctree(z, 0), key, 8, &r, NULL);
    return r;
}

/* memcmp, then the shorter first (sdscmp, and the trees' order). */
static int bytes_cmp(const char *a, size_t al, const char *b, size_t bl) {
    size_t n = al < bl ? al : bl;
    int c = n ? memcmp(a, b, n) : 0;
    if (c) return c;
    return al < bl ? -1 : al > bl ? 1 : 0;
}

uint64_t zset_rank_of_lex(const obj *z, const char *m, size_t ml, int excl) {
    const ptree *t0 = obj_ctree(z, 0);
    uint64_t lo = 0, hi = pt_count(t0);
    pt_item first, last;
    if (hi && pt_get(t0, 0, &first) && pt_get(t0, hi - 1, &last) &&
        memcmp(first.key, last.key, 8) == 0) {
        /* One score (the case lex ranges are for): a seek, O(log n). */
        zkey k;
        char *p = zkey_alloc(&k, 8 + ml);
        memcpy(p, first.key, 8);
        if (ml) memcpy(p + 8, m, ml);
        uint64_t r;
        int found = pt_seek(t0, k.p, k.len, &r, NULL);
        zkey_free(&k);
        return found && excl ? r + 1 : r;
    }
    /* Mixed scores (Redis leaves the result unspecified): a binary search
     * on the members in tree order, O(log^2 n). */
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        pt_item it;
        int ok = pt_get(t0, mid, &it);
        assert(ok);
        (void)ok;
        int c = bytes_cmp(it.key + 8, it.klen - 8, m, ml);
        if (excl ? c <= 0 : c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void zset_delete_range(obj *z, uint64_t rank, uint64_t n) {
    assert(!obj_shared(z) && rank + n <= zset_len(z));
    if (n == 0) return;
    /* Tree 0 is not written until the end, so its items stay valid while
     * tree 1 loses the same members. */
    pt_iter it;
    pt_iter_init(&it, obj_ctree(z, 0), rank, 0);
    for (uint64_t i = 0; i < n; i++) {
        pt_item item;
        int ok = pt_iter_next(&it, &item);
        assert(ok);
        (void)ok;
        zkey k;
        mkey(&k, item.key + 8, item.klen - 8);
        int had = pt_remove(obj_tree(z, 1), k.p, k.len);
        assert(had);
        (void)had;
        zkey_free(&k);
    }
    pt_delete_range(obj_tree(z, 0), rank, n);
}

uint64_t zset_scan(const obj *z, uint64_t from, uint64_t count, zset_scan_fn *fn, void *priv) {
    const uint64_t end = UINT64_C(1) << 32;
    if (from >= end) return end;
    const ptree *t1 = obj_ctree(z, 1);
    char key[4];
    put_be32(key, (uint32_t)from);
    uint64_t r, got = 0;
    pt_seek(t1, key, 4, &r, NULL);
    pt_iter it;
    pt_iter_init(&it, t1, r, 0);
    pt_item item;
    uint32_t last = 0;
    while (pt_iter_next(&it, &item)) {
        uint32_t h = get_be32(item.key);
        if (got >= count && h != last) return h;
        double s;
        memcpy(&s, item.val, 8);
        fn(priv, item.key + 4, item.klen - 4, s);
        last = h;
        got++;
    }
    return end;
}

/* ---- restore ---- */

typedef struct zbuild {
    char *k;
    size_t kl;
    double s;
} zbuild;

static int zbuild_cmp(const void *a, const void *b) {
    const zbuild *x = a, *y = b;
    return bytes_cmp(x->k, x->kl, y->k, y->kl);
}

obj *zset_from_members(zset_member *v, size_t n) {
    size_t maxlen = 0, total = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i].score)) return NULL;
        if (v[i].ml > maxlen) maxlen = v[i].ml;
        total += v[i].ml;
    }
    int listpack = n <= (uint64_t)server.cfg.zset_max_listpack_entries &&
                   (long long)maxlen <= server.cfg.zset_max_listpack_value;
    zbuild *b = xmalloc((n ? n : 1) * sizeof *b);
    char *kbuf = xmalloc(total + 8 * n + 1);
    char *p = kbuf;
    /* Tree 1 first: equal members sit side by side once sorted. */
    for (size_t i = 0; i < n; i++) {
        b[i].k = p;
        b[i].kl = 4 + v[i].ml;
        b[i].s = listpack && v[i].score == 0 ? 0.0 : v[i].score;
        put_be32(p, member_hash(v[i].m, v[i].ml));
        if (v[i].ml) memcpy(p + 4, v[i].m, v[i].ml);
        p += b[i].kl;
    }
    qsort(b, n, sizeof *b, zbuild_cmp);
    for (size_t i = 1; i < n; i++) {
        if (zbuild_cmp(&b[i - 1], &b[i]) == 0) {
            free(kbuf);
            free(b);
            return NULL;
        }
    }
    obj *z = zset_new();
    pt_builder pb;
    pt_build_init(&pb, PT_KEYED);
    for (size_t i = 0; i < n; i++) {
        pt_item it = {b[i].k, b[i].kl, (const char *)&b[i].s, 8};
        pt_build_add(&pb, &it);
    }
    pt_build_finish(&pb, obj_tree(z, 1));
    p = kbuf;
    for (size_t i = 0; i < n; i++) {
        b[i].k = p;
        b[i].kl = 8 + v[i].ml;
        b[i].s = listpack && v[i].score == 0 ? 0.0 : v[i].score;
        put_be64(p, score_bits(v[i].score));
        if (v[i].ml) memcpy(p + 8, v[i].m, v[i].ml);
        p += b[i].kl;
    }
    qsort(b, n, sizeof *b, zbuild_cmp);
    pt_build_init(&pb, PT_KEYED);
    for (size_t i = 0; i < n; i++) {
        pt_item it = {b[i].k, b[i].kl, (const char *)&b[i].s, is_neg_zero(b[i].s) ? 8 : 0};
        pt_build_add(&pb, &it);
    }
    pt_build_finish(&pb, obj_tree(z, 0));
    free(kbuf);
    free(b);
    if (!listpack) z->enc = OBJ_ENC_SKIPLIST;
    return z;
}

/* ---- numbers ---- */

int zset_parse_double(const char *p, size_t len, double *out) {
    if (len == 0 || isspace((unsigned char)p[0])) return 0;
    char small[64];
    char *buf = len < sizeof small ? small : xmalloc(len + 1);
    memcpy(buf, p, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    int ok = (size_t)(end - buf) == len && !isnan(v) &&
             !(errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || fpclassify(v) == FP_ZERO));
    if (buf != small) free(buf);
    if (ok) *out = v;
    return ok;
}

size_t zset_fmt_listpack_score(char *buf, double s) {
    if (s >= (double)(-LLONG_MAX / 2) && s <= (double)(LLONG_MAX / 2) && (double)(long long)s == s) {
        int n = snprintf(buf, ZSET_SCORE_BUF, "%lld", (long long)s);
        assert(n > 0 && n < ZSET_SCORE_BUF);
        return (size_t)n;
    }
    return zset_fmt_score(buf, s);
}

size_t zset_fmt_score(char *buf, double s) {
    int n;
    if (isinf(s))
        n = snprintf(buf, ZSET_SCORE_BUF, "%s", s > 0 ? "inf" : "-inf");
    else
        n = snprintf(buf, ZSET_SCORE_BUF, "%.17g", s);
    assert(n > 0 && n < ZSET_SCORE_BUF);
    return (size_t)n;
}
