/* test_vt: the versioned hash table against a reference model.
 *
 * Keys are "k<id>" for small integer ids, so the model is plain arrays
 * indexed by id (present, value, expire). Values are numbered versions,
 * stored INT or RAW at random. The tests check: millions of random
 * operations against the model with many splits and directory doublings;
 * SCAN across splits; RANDOMKEY; vt_reserve; and the snapshot protocol, both
 * single-threaded (captures interleaved with mutations in random order, over
 * more than 256 epochs, with aborted saves) and with a real serializer thread
 * (build this file with -fsanitize=thread too). The table's hash seed is
 * random per process; the operation mix is seeded from VT_TEST_SEED or the
 * clock and printed. VT_TEST_SCALE (default 1, less under TSan) scales the
 * long loops. */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"
#include "vt.h"
#include "testrand.h"
#include "req.h"

/* ---- helpers: random numbers, keys, values ------------------------------ */

/* Scale of the long loops: VT_TEST_SCALE, else 1; under ThreadSanitizer
 * (15x slower) 0.15 for the single-threaded tests and 0.7 for the threaded
 * one, which is what TSan is for. */
static double env_scale(double dflt) {
    const char *s = getenv("VT_TEST_SCALE");
    double v = s ? atof(s) : dflt;
    return v > 0 ? v : dflt;
}

#if defined(__SANITIZE_THREAD__) /* gcc */
#define VT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) /* clang */
#define VT_TSAN 1
#endif
#endif
#ifdef VT_TSAN
static double scale(void) { return env_scale(0.15); }
static double thread_scale(void) { return env_scale(0.7); }
#else
static double scale(void) { return env_scale(1.0); }
static double thread_scale(void) { return env_scale(1.0); }
#endif

static size_t key_of(char *buf, uint32_t id) {
    return (size_t)snprintf(buf, 16, "k%u", id);
}

/* The id of the key a table's value carries. */
static uint32_t id_of(const obj *kv) {
    size_t len;
    const char *k = obj_kv_key(kv, &len);
    char buf[16];
    if (len < 2 || len >= sizeof buf || k[0] != 'k') return UINT32_MAX;
    memcpy(buf, k + 1, len - 1);
    buf[len - 1] = '\0';
    return (uint32_t)strtoul(buf, NULL, 10);
}

static obj *val_new(int64_t v) {
    if (v & 1) return obj_new_int(v);
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%lld", (long long)v);
    return obj_new_raw(buf, (size_t)n);
}

static int64_t val_of(const obj *o) {
    long long v = -1;
    if (!obj_get_ll(o, &v)) return -1;
    return v;
}

/* ---- the model ---------------------------------------------------------- */

typedef struct model {
    uint32_t n;
    uint8_t *present;
    int64_t *val;
    int64_t *expire;
    size_t size, expires;
    int64_t next_val;
} model;

static void model_init(model *m, uint32_t n) {
    memset(m, 0, sizeof *m);
    m->n = n;
    m->present = calloc(n, 1);
    m->val = calloc(n, sizeof *m->val);
    m->expire = calloc(n, sizeof *m->expire);
    m->next_val = 1;
}

static void model_copy(model *dst, const model *src) {
    model_init(dst, src->n);
    memcpy(dst->present, src->present, src->n);
    memcpy(dst->val, src->val, src->n * sizeof *src->val);
    memcpy(dst->expire, src->expire, src->n * sizeof *src->expire);
    dst->size = src->size;
    dst->expires = src->expires;
}

static void model_free(model *m) {
    free(m->present);
    free(m->val);
    free(m->expire);
}

/* ---- operations on table and model together ------------------------------ */

static int64_t rnd_expire(void) {
    return (uint32_t)rnd_below(3) == 0 ? VT_NO_EXPIRE : (int64_t)1700000000000LL + (uint32_t)rnd_below(1000000);
}

static void model_set_expire(model *m, uint32_t id, int64_t ex) {
    if (m->expire[id] == VT_NO_EXPIRE && ex != VT_NO_EXPIRE) m->expires++;
    if (m->expire[id] != VT_NO_EXPIRE && ex == VT_NO_EXPIRE) m->expires--;
    m->expire[id] = ex;
}

/* SET, sometimes with an expire (or keeping the old one). */
static void op_set(vt *t, model *m, uint32_t id) {
    char k[16];
    size_t kl = key_of(k, id);
    vt_wr w;
    int created = -1;
    vt_entry *e = vt_write(t, k, kl, 1, &w, &created);
    REQ((e) != NULL);
    REQ_EQ(created, !m->present[id]);
    obj *old = e->val;
    if (created) {
        REQ((e->val) == NULL);
        m->present[id] = 1;
        m->expire[id] = VT_NO_EXPIRE;
        m->size++;
    }
    int64_t v = m->next_val++;
    /* half the time a value built for the key (adopted), else a plain one
     * (copied behind the key) */
    obj *nv = val_new(v);
    if ((uint32_t)rnd_below(2)) {
        char b[OBJ_INTBUF];
        size_t n;
        const char *p = obj_str(nv, b, &n);
        obj *kv = obj_kv_new_value(k, kl, p, n, (int)(uint32_t)rnd_below(2));
        obj_decref(nv);
        nv = kv;
    }
    REQ(vt_set_val(&w, e, nv) == e->val);
    REQ(obj_is_kv(e->val));
    if (created) REQ_EQ(vt_expire(e), VT_NO_EXPIRE);
    if (old) obj_decref(old);
    m->val[id] = v;
    uint32_t r = (uint32_t)rnd_below(4);
    if (r == 0) { /* SET k v: clears the expire */
        vt_set_expire(&w, e, VT_NO_EXPIRE);
        model_set_expire(m, id, VT_NO_EXPIRE);
    } else if (r == 1) { /* SET k v PX ..: */
        int64_t ex = rnd_expire();
        vt_set_expire(&w, e, ex);
        model_set_expire(m, id, ex);
    } /* else KEEPTTL */
    vt_write_done(&w);
}

static void op_del(vt *t, model *m, uint32_t id) {
    char k[16];
    size_t kl = key_of(k, id);
    REQ_EQ(vt_delete(t, k, kl), m->present[id]);
    if (m->present[id]) {
        model_set_expire(m, id, VT_NO_EXPIRE);
        m->present[id] = 0;
        m->size--;
    }
}

/* EXPIRE / PERSIST: write access without create. */
static void op_expire(vt *t, model *m, uint32_t id) {
    char k[16];
    size_t kl = key_of(k, id);
    vt_wr w;
    int created = -1;
    vt_entry *e = vt_write(t, k, kl, 0, &w, &created);
    REQ_EQ(created, 0);
    REQ_EQ(e != NULL, m->present[id]);
    if (!e) {
        REQ((w.b) == NULL);
        vt_write_done(&w);
        return;
    }
    int64_t ex = rnd_expire();
    vt_set_expire(&w, e, ex);
    model_set_expire(m, id, ex);
    vt_write_done(&w);
}

static void check_key(vt *t, const model *m, uint32_t id) {
    char k[16];
    size_t kl = key_of(k, id);
    vt_entry *e = vt_find(t, k, kl);
    REQ_EQ(e != NULL, m->present[id]);
    if (!e) return;
    size_t len;
    const char *key = vt_key(e, &len);
    REQ_EQ(len, kl);
    REQ_EQ(memcmp(key, k, kl), 0);
    REQ_EQ(val_of(e->val), m->val[id]);
    REQ_EQ(vt_expire(e), m->expire[id]);
}

static void random_op(vt *t, model *m, uint32_t range) {
    uint32_t id = (uint32_t)rnd_below(range), r = (uint32_t)rnd_below(100);
    if (r < 40) op_set(t, m, id);
    else if (r < 60) op_del(t, m, id);
    else if (r < 85) check_key(t, m, id);
    else op_expire(t, m, id);
}

/* ---- full checks ---------------------------------------------------------- */

typedef struct scan_seen {
    const model *m;
    uint8_t *count; /* visits per id, saturating */
    size_t visits;
    int bad;        /* a visited key absent from the model */
} scan_seen;

static void scan_visit(void *priv, vt_entry *e) {
    scan_seen *s = priv;
    uint32_t id = id_of(e->val);
    if (id >= s->m->n || !s->m->present[id]) s->bad++;
    else if (s->count[id] < 255) s->count[id]++;
    s->visits++;
}

/* Every key, value and expire through vt_find, and a full SCAN (no splits
 * during it, so every key exactly once). */
static void check_all(vt *t, const model *m) {
    REQ_EQ(vt_size(t), m->size);
    REQ_EQ(vt_expires(t), m->expires);
    for (uint32_t id = 0; id < m->n; id++) check_key(t, m, id);
    scan_seen s = { m, calloc(m->n, 1), 0, 0 };
    uint64_t cur = 0;
    size_t calls = 0;
    do {
        cur = vt_scan(t, cur, 1 + (uint32_t)rnd_below(200), scan_visit, &s);
        calls++;
    } while (cur);
    REQ_EQ(s.bad, 0);
    REQ_EQ(s.visits, m->size);
    for (uint32_t id = 0; id < m->n; id++) REQ_EQ(s.count[id], m->present[id]);
    free(s.count);
}

static void noop_capture(void *priv, obj *v, int64_t ex) {
    (void)priv; (void)v; (void)ex;
}

/* Distinct segments of the table (counted through vt_save_begin). */
static size_t seg_count(vt *t, uint64_t *epoch) {
    vt_seg **segs;
    size_t n;
    vt_save_begin(t, ++*epoch, noop_capture, NULL, &segs, &n);
    vt_save_end(t);
    free(segs);
    return n;
}

/* ---- 1. random operations against the model ------------------------------ */

START_TEST(test_model_random_ops) {
    const uint32_t K = 250000;
    const size_t ops = (size_t)(2200000 * scale());
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    size_t mem0 = vt_mem(t);
    uint64_t ep = 0;
    ck_assert_uint_eq(seg_count(t, &ep), 1);
    for (size_t i = 0; i < ops; i++) {
        /* the key range grows over the first half: splits all along */
        uint32_t range = i < ops / 2 ? 1000 + (uint32_t)((double)(K - 1000) * (double)i / (double)(ops / 2)) : K;
        random_op(t, &m, range);
        if (i % (ops / 8) == ops / 8 - 1) check_all(t, &m);
    }
    check_all(t, &m);
    size_t segs = seg_count(t, &ep);
    ck_assert_uint_ge(segs, 64); /* directory doubled 6+ times */
    ck_assert_uint_gt(vt_mem(t), mem0 * segs / 2);
    /* empty it again: everything findable goes */
    for (uint32_t id = 0; id < K; id++) op_del(t, &m, id);
    check_all(t, &m);
    ck_assert_uint_eq(vt_size(t), 0);
    ck_assert_ptr_null(vt_random(t));
    vt_free(t);
    model_free(&m);
}
END_TEST

/* ---- 2. scan, random, reserve ---------------------------------------------- */

START_TEST(test_scan_across_splits) {
    const uint32_t K = 160000, first = 3000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    for (uint32_t id = 0; id < first; id++) op_set(t, &m, id);
    uint64_t ep = 0;
    size_t segs0 = seg_count(t, &ep);
    scan_seen s = { &m, calloc(K, 1), 0, 0 };
    uint32_t next = first;
    uint64_t cur = 0;
    size_t calls = 0;
    do {
        cur = vt_scan(t, cur, 1 + (uint32_t)rnd_below(12), scan_visit, &s);
        calls++;
        /* between calls: new keys (splits, doublings) and deletions of
         * keys that were not there at the start */
        for (int j = 0; j < 150 && next < K; j++) op_set(t, &m, next++);
        if (next > first + 10) op_del(t, &m, first + (uint32_t)rnd_below(next - first));
    } while (cur);
    ck_assert_int_eq(s.bad, 0);
    for (uint32_t id = 0; id < first; id++) REQ(s.count[id] >= 1);
    ck_assert_uint_eq(next, K); /* the walk outlasted the growth: */
    ck_assert_uint_ge(seg_count(t, &ep), segs0 * 16); /* it split a lot */
    free(s.count);
    /* a walk with no changes in between returns each key once */
    check_all(t, &m);
    vt_free(t);
    model_free(&m);
}
END_TEST

START_TEST(test_scan_small_and_empty) {
    vt *t = vt_create();
    model m;
    model_init(&m, 100);
    check_all(t, &m);
    scan_seen s = { &m, calloc(100, 1), 0, 0 };
    ck_assert_uint_eq(vt_scan(t, 0, 10, scan_visit, &s), 0);
    op_set(t, &m, 7);
    uint64_t cur = 0;
    do cur = vt_scan(t, cur, 0, scan_visit, &s); /* count 0 acts as 1 */
    while (cur);
    ck_assert_int_eq(s.count[7], 1);
    ck_assert_uint_eq(s.visits, 1);
    free(s.count);
    vt_free(t);
    model_free(&m);
}
END_TEST

START_TEST(test_random) {
    const uint32_t K = 50000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    ck_assert_ptr_null(vt_random(t));
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    uint8_t *seen = calloc(K, 1);
    size_t distinct = 0;
    for (int i = 0; i < 2000; i++) {
        vt_entry *e = vt_random(t);
        REQ(e != NULL);
        uint32_t id = id_of(e->val);
        REQ(id < K && m.present[id]);
        REQ_EQ(val_of(e->val), m.val[id]);
        if (!seen[id]++) distinct++;
    }
    ck_assert_uint_gt(distinct, 1800);
    /* sparse: three keys left among hundreds of empty buckets */
    for (uint32_t id = 3; id < K; id++) op_del(t, &m, id);
    for (int i = 0; i < 500; i++) {
        vt_entry *e = vt_random(t);
        REQ((e) != NULL);
        REQ(id_of(e->val) < 3);
    }
    for (uint32_t id = 0; id < 3; id++) op_del(t, &m, id);
    ck_assert_ptr_null(vt_random(t));
    free(seen);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* vt_sample: k entries from a random place, only ones with an expire when
 * asked, all of a sparse table when the walk may go on; and the access
 * clock of entries (evict.c) survives splits and deletions of neighbours. */
START_TEST(test_sample_and_access) {
    const uint32_t K = 50000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    vt_entry *out[64];
    ck_assert_uint_eq(vt_sample(t, 5, 0, 100, out), 0);
    for (uint32_t id = 0; id < K / 2; id++) op_set(t, &m, id);
    /* the access clock: set on every key, then more keys split segments */
    for (uint32_t id = 0; id < K / 2; id++) {
        char k[16];
        vt_entry *e = vt_find(t, k, key_of(k, id));
        vt_access_set(e, (id * 2654435761u) & 0xFFFFFF);
    }
    for (uint32_t id = K / 2; id < K; id++) op_set(t, &m, id);
    for (uint32_t id = 0; id < K / 2; id += 3) op_del(t, &m, id);
    for (uint32_t id = 0; id < K / 2; id++) {
        char k[16];
        vt_entry *e = vt_find(t, k, key_of(k, id));
        if (e) REQ_EQ(vt_access_get(e), (id * 2654435761u) & 0xFFFFFF);
    }
    for (int i = 0; i < 1000; i++) {
        size_t n = vt_sample(t, 5, 0, 50, out);
        REQ_EQ(n, 5);
        for (size_t j = 0; j < n; j++) {
            uint32_t id = id_of(out[j]->val);
            REQ(id < K && m.present[id]);
            for (size_t l = 0; l < j; l++) REQ(out[l] != out[j]);
        }
        n = vt_sample(t, 5, 1, SIZE_MAX, out);
        REQ_EQ(n, 5);
        for (size_t j = 0; j < n; j++) {
            REQ(vt_expire(out[j]) != VT_NO_EXPIRE);
            REQ_EQ(vt_expire(out[j]), m.expire[id_of(out[j]->val)]);
        }
    }
    /* sparse: three keys left, one with an expire */
    for (uint32_t id = 3; id < K; id++) op_del(t, &m, id);
    vt_wr w;
    for (uint32_t id = 0; id < 3; id++) {
        char k[16];
        vt_entry *e = vt_write(t, k, key_of(k, id), 1, &w, NULL);
        if (!e->val) vt_set_val(&w, e, val_new(id));
        vt_set_expire(&w, e, id == 1 ? INT64_C(1) << 50 : VT_NO_EXPIRE);
        vt_write_done(&w);
    }
    for (int i = 0; i < 50; i++) {
        REQ_EQ(vt_sample(t, 5, 0, SIZE_MAX, out), 3);
        REQ_EQ(vt_sample(t, 5, 1, SIZE_MAX, out), 1);
        REQ_EQ(id_of(out[0]->val), 1);
        REQ(vt_sample(t, 5, 0, 4, out) <= 3);
    }
    vt_free(t);
    model_free(&m);
}
END_TEST

/* VT_SAMPLE_SAVED and vt_owed_to_save, what eviction under
 * maxmemory-include-save relies on: during a save, sampling with the flag
 * returns only keys of saved buckets, deleting one of them hands nothing to
 * the save (its value is freed at once), deleting an owed key hands it
 * over; keys split off into a new segment during the save are saved; with
 * no save the flag changes nothing. */
static void count_capture(void *priv, obj *v, int64_t ex) {
    (void)ex;
    (*(size_t *)priv)++;
    obj_decref(v);
}

START_TEST(test_sample_saved) {
    const uint32_t K = 6000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    for (uint32_t id = 0; id < K / 2; id++) op_set(t, &m, id);
    vt_entry **out = malloc(K * sizeof *out);
    ck_assert_uint_eq(vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out), m.size);
    size_t handed = 0;
    vt_seg **segs;
    size_t nsegs;
    vt_save_begin(t, 7, count_capture, &handed, &segs, &nsegs);
    ck_assert(vt_saving(t));
    /* nothing saved yet: no candidate, every key owed */
    ck_assert_uint_eq(vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out), 0);
    for (uint32_t id = 0; id < K / 2; id++) {
        char k[16];
        REQ(vt_owed_to_save(t, k, key_of(k, id)));
    }
    /* the serializer passes the first half of the buckets */
    size_t nb = nsegs * VT_SEG_BUCKETS, passed = 0;
    vt_captured cap[VT_BUCKET_SLOTS];
    for (size_t i = 0; i < nb / 2; i++) {
        size_t n = vt_capture_bucket(vt_seg_bucket(segs[i / VT_SEG_BUCKETS],
                                                   (unsigned)(i % VT_SEG_BUCKETS)), 7, cap);
        for (size_t j = 0; j < n; j++) obj_decref(cap[j].val);
        passed += n;
    }
    ck_assert_uint_gt(passed, 0);
    size_t n = vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out);
    ck_assert_uint_eq(n, passed);
    size_t owed = 0;
    for (uint32_t id = 0; id < K / 2; id++) {
        char k[16];
        owed += (size_t)vt_owed_to_save(t, k, key_of(k, id));
    }
    ck_assert_uint_eq(owed, m.size - passed);
    /* a bounded walk finds saved keys or none, never owed ones */
    for (int i = 0; i < 200; i++) {
        size_t got = vt_sample(t, 5, VT_SAMPLE_SAVED, 10, out);
        for (size_t j = 0; j < got; j++) {
            size_t len;
            const char *k = vt_key(out[j], &len);
            REQ(!vt_owed_to_save(t, k, len));
        }
    }
    /* deleting the saved keys hands nothing over */
    n = vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out);
    char (*keys)[16] = malloc(n * sizeof *keys);
    for (size_t j = 0; j < n; j++) {
        size_t len;
        const char *k = vt_key(out[j], &len);
        memcpy(keys[j], k, len);
        keys[j][len] = '\0';
    }
    for (size_t j = 0; j < n; j++) ck_assert_int_eq(vt_delete(t, keys[j], strlen(keys[j])), 1);
    free(keys);
    ck_assert_uint_eq(handed, 0);
    /* deleting an owed key hands it over, once */
    uint32_t id = 0;
    char k[16];
    while (!vt_owed_to_save(t, k, key_of(k, id))) id++;
    ck_assert_int_eq(vt_delete(t, k, key_of(k, id)), 1);
    ck_assert_uint_eq(handed, 1);
    ck_assert(!vt_owed_to_save(t, k, key_of(k, id))); /* absent now */
    /* new keys split segments: what moves out of owed buckets is handed
     * over, and the new segments are saved */
    size_t before = vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out);
    for (uint32_t nid = K / 2; nid < K; nid++) {
        vt_wr w;
        vt_entry *e = vt_write(t, k, key_of(k, nid), 1, &w, NULL);
        vt_set_val(&w, e, val_new(nid));
        vt_write_done(&w);
    }
    ck_assert_uint_gt(vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out), before);
    vt_save_end(t);
    ck_assert(!vt_saving(t));
    ck_assert_uint_eq(vt_sample(t, K, VT_SAMPLE_SAVED, SIZE_MAX, out), vt_size(t));
    REQ(!vt_owed_to_save(t, k, key_of(k, K - 1)));
    free(segs);
    free(out);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* Inserting n keys into vt_reserve(n) splits nothing. vt.c aims at 4..8 keys
 * per 14-slot bucket: 65537 and 100000 keys both get 256 segments (4.0 and
 * 6.1 keys per bucket). With two candidate buckets per key the fullest
 * bucket stays a few keys above the mean (the two-choice bound, ~log log n),
 * far from 14: a split needs both candidates full. */
START_TEST(test_reserve) {
    static const uint32_t ns[] = { 65537, 100000 };
    static const size_t max_splits[] = { 0, 0 };
    uint64_t ep = 0;
    for (int c = 0; c < 2; c++) {
        model m;
        model_init(&m, ns[c]);
        vt *t = vt_create();
        vt_reserve(t, ns[c]);
        size_t segs = seg_count(t, &ep), mem = vt_mem(t);
        ck_assert_uint_eq(segs, 256);
        for (uint32_t id = 0; id < ns[c]; id++) op_set(t, &m, id);
        ck_assert_uint_le(seg_count(t, &ep), segs + max_splits[c]);
        if (max_splits[c] == 0) ck_assert_uint_eq(vt_mem(t), mem);
        check_all(t, &m);
        vt_reserve(t, 10); /* not empty: no effect */
        check_all(t, &m);
        vt_free(t);
        model_free(&m);
    }
    /* a small reservation on a fresh table is a no-op */
    vt *t = vt_create();
    size_t mem = vt_mem(t);
    vt_reserve(t, 100);
    ck_assert_uint_eq(vt_mem(t), mem);
    vt_free(t);
}
END_TEST

/* The table's own memory per key, averaged over sizes from 50,000 to
 * 400,000 keys (split rounds make it swing with the size): a slot is one
 * pointer (the key, expire and metadata live in the value) and a key's two
 * candidate buckets fill segments to ~85 % before a split, so the table
 * costs ~16 B per key on average. With 32-byte slots it cost ~52, with one
 * candidate bucket ~90. */
START_TEST(test_fill_factor) {
    enum { K = 400000, STEP = 10000, FROM = 50000 };
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    double sum = 0;
    int n = 0;
    for (uint32_t id = 0; id < K; id++) {
        op_set(t, &m, id);
        if (id + 1 >= FROM && (id + 1) % STEP == 0) {
            sum += (double)vt_mem(t) / (double)vt_size(t);
            n++;
        }
    }
    double mean = sum / n;
    fprintf(stderr, "test_fill_factor: table bytes per key, mean over sizes: %.1f\n", mean);
    ck_assert_double_le(mean, 20.0);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* vt_mem counts what the table holds, and the totals follow it: a table of
 * 10,000 keys has its first slab (2 MiB mapped), of which only the
 * segments carved count; everything goes when the table is freed. */
START_TEST(test_mem_accounting) {
    enum { K = 10000 };
    vt_memstat a, b, c;
    vt_mem_totals(&a);
    vt *t = vt_create();
    ck_assert_uint_eq(vt_mem(t), vt_mem_empty());
    vt_mem_totals(&b);
    ck_assert_uint_eq(b.heap - a.heap, vt_mem(t));
    model m;
    model_init(&m, K);
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    uint64_t ep = 0;
    ck_assert_uint_gt(seg_count(t, &ep), 8); /* past the heap segments: a slab */
    vt_mem_totals(&b);
    ck_assert_uint_eq((b.heap + b.slab) - (a.heap + a.slab), vt_mem(t));
    size_t mapped = b.mapped - a.mapped, carved = b.slab - a.slab;
    ck_assert_uint_eq(mapped, (size_t)2 << 20);
    ck_assert_msg(carved > 0 && carved <= mapped / 8, "%zu bytes carved of %zu mapped", carved,
                  mapped);
    ck_assert_msg(vt_mem(t) / K <= 40, "table bytes per key %zu", vt_mem(t) / K);
    vt_free(t);
    vt_mem_totals(&c);
    ck_assert_uint_eq(c.heap, a.heap);
    ck_assert_uint_eq(c.slab, a.slab);
    ck_assert_uint_eq(c.mapped, a.mapped);
    model_free(&m);
}
END_TEST

/* vt_insert_hashed creates a key with the hash given (found again by
 * vt_find, which hashes it itself) and finds one already there; a value built
 * for its key (obj_kv_new_value) is stored as it is, not copied. */
START_TEST(test_insert_hashed) {
    vt *t = vt_create();
    for (int i = 0; i < 5000; i++) { /* enough keys for splits in between */
        char k[32], v[16];
        int n = snprintf(k, sizeof k, "hashed:%d", i);
        int vn = snprintf(v, sizeof v, "%d", i);
        vt_wr w;
        int created = -1;
        vt_entry *e = vt_insert_hashed(t, vt_hash(k, (size_t)n), k, (size_t)n, &w, &created);
        ck_assert_int_eq(created, 1);
        ck_assert_ptr_null(e->val);
        obj *kv = obj_kv_new_value(k, (size_t)n, v, (size_t)vn, 0);
        ck_assert_ptr_eq(vt_set_val(&w, e, kv), kv); /* the object itself, no copy */
        vt_write_done(&w);
    }
    ck_assert_uint_eq(vt_size(t), 5000);
    vt_wr w;
    int created = -1;
    vt_entry *e = vt_insert_hashed(t, vt_hash("hashed:77", 9), "hashed:77", 9, &w, &created);
    ck_assert_int_eq(created, 0);
    long long v;
    ck_assert(obj_get_ll(e->val, &v) && v == 77);
    vt_write_done(&w);
    for (int i = 0; i < 5000; i++) {
        char k[32];
        int n = snprintf(k, sizeof k, "hashed:%d", i);
        vt_entry *f = vt_find(t, k, (size_t)n);
        ck_assert_ptr_nonnull(f);
        ck_assert(obj_get_ll(f->val, &v) && v == i);
        size_t klen;
        const char *key = vt_key(f, &klen);
        ck_assert(klen == (size_t)n && memcmp(key, k, klen) == 0);
    }
    vt_free(t);
}
END_TEST

/* A key and its value are one allocation (obj.h, keyed values): 16-byte
 * key + 300-byte value in one 352-byte glibc chunk, where a key object and a
 * value object took 48 + 336. The key, metadata and expire follow the
 * value through every way it is rewritten: made writable (in place, grown,
 * copied while shared), given an expire (in place when it has the slot,
 * copied once when not), moved to another key. */
START_TEST(test_kv_layout) {
    const char key[] = "key:000000000001"; /* bench-memory's keys */
    char val[300];
    memset(val, 'v', sizeof val);
    obj *kv = obj_kv_new_value(key, 16, val, sizeof val, 0);
    ck_assert(obj_is_kv(kv));
    ck_assert_uint_le(obj_alloc_size(kv), 352);
    ck_assert(obj_kv_key_eq(kv, key, 16));
    ck_assert(obj_eq_bytes(kv, val, sizeof val));
    ck_assert_int_eq(obj_kv_expire(kv), VT_NO_EXPIRE);
    obj_kv_set_access(kv, 0xABCDEF);

    /* an expire on a value without the slot: copied once, then in place */
    obj *e1 = obj_kv_set_expire(kv, 12345);
    ck_assert_ptr_ne(e1, kv);
    ck_assert(obj_kv_key_eq(e1, key, 16) && obj_eq_bytes(e1, val, sizeof val));
    ck_assert_int_eq(obj_kv_expire(e1), 12345);
    ck_assert_uint_eq(obj_kv_access(e1), 0xABCDEF);
    ck_assert_ptr_eq(obj_kv_set_expire(e1, 777), e1);
    ck_assert_int_eq(obj_kv_expire(e1), 777);

    /* writable while shared: a copy with the key, metadata and expire */
    obj_incref(e1);
    obj *w = obj_writable(e1, 400);
    ck_assert_ptr_ne(w, e1);
    ck_assert(obj_kv_key_eq(w, key, 16) && obj_eq_bytes(w, val, sizeof val));
    ck_assert_int_eq(obj_kv_expire(w), 777);
    ck_assert_uint_eq(obj_kv_access(w), 0xABCDEF);
    obj_raw_append(w, "tail", 4);
    ck_assert_uint_eq(w->len, 304);
    ck_assert(obj_eq_bytes(e1, val, sizeof val)); /* the shared one unchanged */
    obj_decref(e1);
    /* unshared and growing: reallocated, prefix and all */
    w = obj_writable(w, 1 << 20);
    ck_assert(obj_kv_key_eq(w, key, 16));
    ck_assert_int_eq(obj_kv_expire(w), 777);
    ck_assert_uint_eq(w->len, 304);

    /* to another key: in place when the prefix keeps its size (RENAME of
     * key:...1 to key:...2), else a new kv with the bytes copied */
    obj_kvmeta meta = {0};
    obj *r = obj_kv_make(w, "key:000000000002", 16, &meta, 777);
    ck_assert_ptr_eq(r, w);
    ck_assert(obj_kv_key_eq(r, "key:000000000002", 16));
    obj *r2 = obj_kv_make(r, "a-much-longer-key-than-before", 29, &meta, VT_NO_EXPIRE);
    ck_assert(obj_kv_key_eq(r2, "a-much-longer-key-than-before", 29));
    ck_assert_uint_eq(r2->len, 304);
    ck_assert(memcmp(r2->data, val, sizeof val) == 0 && memcmp(r2->data + 300, "tail", 4) == 0);
    obj_decref(r2);

    /* a key of 4 GiB or more keeps its length out of the metadata: the area
     * arithmetic is what is checked (no 4 GiB allocation) */
    ck_assert_uint_eq(obj_kv_keyarea(16), 16);
    ck_assert_uint_eq(obj_kv_keyarea(17), 24);
    ck_assert_uint_eq(obj_kv_keyarea((size_t)UINT32_MAX), (size_t)UINT32_MAX + 8 + 1);

    /* a table stores a value built for its key as it is, and copies any
     * other behind the key */
    vt *t = vt_create();
    vt_wr wr;
    int created;
    vt_entry *e = vt_write(t, key, 16, 1, &wr, &created);
    obj *mine = obj_kv_new_value(key, 16, val, sizeof val, 0);
    ck_assert_ptr_eq(vt_set_val(&wr, e, mine), mine);
    vt_write_done(&wr);
    e = vt_write(t, key, 16, 1, &wr, &created);
    obj *old = e->val, *plain = obj_new_raw("plain", 5);
    obj *stored = vt_set_val(&wr, e, plain);
    ck_assert_ptr_ne(stored, plain);
    ck_assert(obj_kv_key_eq(stored, key, 16) && obj_eq_bytes(stored, "plain", 5));
    vt_write_done(&wr);
    obj_decref(old);
    vt_free(t);
}
END_TEST

/* ---- 3. snapshot semantics, single-threaded -------------------------------- */

/* What a save collected, checked against the model at E as it comes. */
typedef struct collector {
    const model *at;   /* state at E */
    uint8_t *got;      /* captured per id */
    size_t n;          /* captured entries */
    int errors;        /* thread-safe counting for test 4 */
    char first_error[128];
} collector;

static void collector_init(collector *c, const model *at) {
    memset(c, 0, sizeof *c);
    c->at = at;
    c->got = calloc(at->n, 1);
}

static void collect_error(collector *c, const char *what, uint32_t id) {
    if (!c->errors++)
        snprintf(c->first_error, sizeof c->first_error, "%s (key k%u)", what, id);
}

/* Takes over the references. */
static void collect(collector *c, obj *v, int64_t ex) {
    uint32_t id = id_of(v);
    if (id >= c->at->n || !c->at->present[id]) collect_error(c, "key not in the state at E", id);
    else if (c->got[id]) collect_error(c, "key captured twice", id);
    else if (val_of(v) != c->at->val[id]) collect_error(c, "value is not the one at E", id);
    else if (ex != c->at->expire[id]) collect_error(c, "expire is not the one at E", id);
    else c->got[id] = 1;
    c->n++;
    obj_decref(v);
}

static void collector_check_complete(collector *c) {
    ck_assert_msg(c->errors == 0, "%d errors, first: %s", c->errors, c->first_error);
    ck_assert_uint_eq(c->n, c->at->size);
    for (uint32_t id = 0; id < c->at->n; id++) REQ_EQ(c->got[id], c->at->present[id]);
}

static void collect_cb(void *priv, obj *v, int64_t ex) {
    collect(priv, v, ex);
}

typedef struct bucket_ref {
    vt_seg *seg;
    unsigned i;
} bucket_ref;

static bucket_ref *shuffled_buckets(vt_seg **segs, size_t nsegs, size_t *n) {
    *n = nsegs * VT_SEG_BUCKETS;
    bucket_ref *v = malloc(*n * sizeof *v);
    for (size_t i = 0; i < *n; i++) v[i] = (bucket_ref){ segs[i / VT_SEG_BUCKETS], (unsigned)(i % VT_SEG_BUCKETS) };
    for (size_t i = *n; i > 1; i--) {
        size_t j = (uint32_t)rnd_below((uint32_t)i);
        bucket_ref tmp = v[i - 1];
        v[i - 1] = v[j];
        v[j] = tmp;
    }
    return v;
}

/* One save at epoch E: every bucket captured in random order, mutations in
 * between (growing keys: splits). abort_at < nb aborts the save there. */
static void one_save(vt *t, model *m, uint64_t E, uint32_t *range, size_t abort_at) {
    model at;
    model_copy(&at, m);
    collector c;
    collector_init(&c, &at);
    vt_seg **segs;
    size_t nsegs, nb;
    vt_save_begin(t, E, collect_cb, &c, &segs, &nsegs);
    bucket_ref *order = shuffled_buckets(segs, nsegs, &nb);
    vt_captured out[VT_BUCKET_SLOTS];
    for (size_t i = 0; i < nb && i < abort_at; i++) {
        for (uint32_t j = (uint32_t)rnd_below(3); j > 0; j--) {
            if (*range < m->n && (uint32_t)rnd_below(4) == 0) (*range)++;
            random_op(t, m, *range);
        }
        vt_bucket *b = vt_seg_bucket(order[i].seg, order[i].i);
        size_t n = vt_capture_bucket(b, E, out);
        REQ(n <= VT_BUCKET_SLOTS);
        for (size_t j = 0; j < n; j++) collect(&c, out[j].val, out[j].expire);
        REQ_EQ(vt_capture_bucket(b, E, out), 0); /* saved now */
    }
    if (abort_at >= nb) collector_check_complete(&c);
    else ck_assert_msg(c.errors == 0, "%s", c.first_error);
    vt_save_end(t);
    free(order);
    free(segs);
    free(c.got);
    model_free(&at);
}

START_TEST(test_snapshot_single_thread) {
    const uint32_t K = 40000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    uint32_t range = 2000;
    for (uint32_t i = 0; i < 3000; i++) random_op(t, &m, range);
    uint64_t E = 0;
    int rounds = (int)(330 * scale());
    for (int r = 0; r < rounds; r++) {
        /* aborted saves (after the main thread marked entries), epochs that
         * skip ahead, and jumps of exactly 256 after an abort: stale marks
         * with the same low byte must not pass for captured */
        int abort_now = r % 11 == 5;
        E += (r % 11 == 6) ? 256u : 1u + (r % 5 == 0);
        one_save(t, &m, E, &range, abort_now ? 20 + (uint32_t)rnd_below(200) : SIZE_MAX);
        for (int j = 0; j < 50; j++) random_op(t, &m, range); /* between saves */
        if (r % 50 == 0) check_all(t, &m);
    }
    ck_assert_uint_gt(E, 600); /* marks wrapped more than twice */
    check_all(t, &m);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* Splits of a segment whose buckets are partly saved: the entries moved out
 * of unsaved buckets are handed over, the others are not handed twice. */
START_TEST(test_snapshot_split_heavy) {
    const uint32_t K = 60000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    for (uint32_t id = 0; id < 500; id++) op_set(t, &m, id);
    model at;
    model_copy(&at, &m);
    collector c;
    collector_init(&c, &at);
    vt_seg **segs;
    size_t nsegs, nb;
    vt_save_begin(t, 1, collect_cb, &c, &segs, &nsegs);
    ck_assert_uint_le(nsegs, 4); /* 500 keys: one segment, rarely two */
    bucket_ref *order = shuffled_buckets(segs, nsegs, &nb);
    vt_captured out[VT_BUCKET_SLOTS];
    for (size_t i = 0; i < nb; i++) {
        for (int j = 0; j < 900; j++) op_set(t, &m, 500 + (uint32_t)(i * 900 + (size_t)j) % (K - 500));
        if (i % 2) op_del(t, &m, (uint32_t)rnd_below(500));
        size_t n = vt_capture_bucket(vt_seg_bucket(order[i].seg, order[i].i), 1, out);
        for (size_t j = 0; j < n; j++) collect(&c, out[j].val, out[j].expire);
    }
    collector_check_complete(&c);
    vt_save_end(t);
    ck_assert_uint_gt(seg_count(t, &(uint64_t){ 1 }), 32);
    check_all(t, &m);
    free(order);
    free(segs);
    free(c.got);
    model_free(&at);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* ---- 4. a real serializer thread ------------------------------------------- */

typedef struct ser {
    vt_seg **segs;
    size_t nsegs;
    uint64_t epoch;
    collector c;           /* serializer's once started; main's after join */
    pthread_mutex_t qlock; /* the "priority queue" of pre-images */
    vt_captured *q;
    size_t qn, qcap;
    atomic_int stop;       /* main -> serializer: abort */
    atomic_int done;       /* serializer -> main */
} ser;

static void ser_push(void *priv, obj *v, int64_t ex) { /* main thread */
    ser *s = priv;
    pthread_mutex_lock(&s->qlock);
    if (s->qn == s->qcap) {
        s->qcap = s->qcap ? 2 * s->qcap : 64;
        s->q = realloc(s->q, s->qcap * sizeof *s->q);
    }
    s->q[s->qn++] = (vt_captured){ v, ex };
    pthread_mutex_unlock(&s->qlock);
}

static void ser_drain(ser *s) {
    pthread_mutex_lock(&s->qlock);
    for (size_t i = 0; i < s->qn; i++) collect(&s->c, s->q[i].val, s->q[i].expire);
    s->qn = 0;
    pthread_mutex_unlock(&s->qlock);
}

/* The serializer: drains the queue first, then captures buckets; holds each
 * segment's captures until the segment is done, so the main thread has
 * replaced many of those values before they are read. */
static void *ser_main(void *arg) {
    ser *s = arg;
    vt_captured *held = malloc(VT_SEG_BUCKETS * VT_BUCKET_SLOTS * sizeof *held);
    for (size_t i = 0; i < s->nsegs && !atomic_load(&s->stop); i++) {
        size_t nh = 0;
        for (unsigned b = 0; b < VT_SEG_BUCKETS; b++) {
            ser_drain(s);
            nh += vt_capture_bucket(vt_seg_bucket(s->segs[i], b), s->epoch, held + nh);
        }
        for (size_t j = 0; j < nh; j++) collect(&s->c, held[j].val, held[j].expire);
    }
    ser_drain(s);
    free(held);
    atomic_store(&s->done, 1);
    return NULL;
}

static void threaded_save(vt *t, model *m, uint64_t E, uint32_t *range, int abort_it) {
    model at;
    model_copy(&at, m);
    ser s;
    memset(&s, 0, sizeof s);
    collector_init(&s.c, &at);
    pthread_mutex_init(&s.qlock, NULL);
    s.epoch = E;
    vt_save_begin(t, E, ser_push, &s, &s.segs, &s.nsegs);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, ser_main, &s), 0);
    size_t ops = 0;
    while (!atomic_load(&s.done)) {
        if (*range < m->n && (uint32_t)rnd_below(3) == 0) (*range)++;
        random_op(t, m, *range);
        if (abort_it && ++ops == 2000) atomic_store(&s.stop, 1);
    }
    pthread_join(th, NULL);
    ser_drain(&s); /* pre-images handed over after the serializer's last drain */
    vt_save_end(t);
    if (!abort_it) collector_check_complete(&s.c);
    else ck_assert_msg(s.c.errors == 0, "%s", s.c.first_error);
    pthread_mutex_destroy(&s.qlock);
    free(s.q);
    free(s.segs);
    free(s.c.got);
    model_free(&at);
}

START_TEST(test_snapshot_threaded) {
    const uint32_t K = 200000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    uint32_t range = 20000;
    for (uint32_t i = 0; i < 30000; i++) random_op(t, &m, range);
    int rounds = (int)(24 * thread_scale());
    uint64_t E = 0;
    for (int r = 0; r < rounds; r++) {
        E += r % 8 == 3 ? 256 : 1;
        threaded_save(t, &m, E, &range, r % 8 == 2);
        for (int j = 0; j < 1000; j++) random_op(t, &m, range);
    }
    check_all(t, &m);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* ---- 5. shrinking and the volatile walk ---------------------------------- */

static void drop_capture(void *priv, obj *v, int64_t ex) {
    (void)priv;
    (void)ex;
    obj_decref(v);
}

/* Table bytes of a fresh table holding the keys of m (set in id order). */
static size_t fresh_mem(const model *m) {
    model f;
    model_init(&f, m->n);
    vt *t = vt_create();
    for (uint32_t id = 0; id < m->n; id++)
        if (m->present[id]) op_set(t, &f, id);
    size_t mem = vt_mem(t);
    vt_free(t);
    model_free(&f);
    return mem;
}

/* Deleting 90 % of the keys merges segments and halves the directory: the
 * table ends within 2.6x of a fresh one holding what is left (merged
 * segments are 31-62 % full, grown ones 42-85 %; the keys' values, not
 * counted here, make the server's figure 1.1x: bench-keyspace) where it
 * kept all of its size before; loading the keys again reuses the merged
 * segments' memory, and every key reads back. */
START_TEST(test_shrink_after_deletes) {
    const uint32_t K = 200000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    uint64_t ep = 0;
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    size_t full = vt_mem(t), segs_full = seg_count(t, &ep);
    for (uint32_t id = 0; id < K; id++)
        if (id % 10) op_del(t, &m, id);
    check_all(t, &m);
    size_t left = vt_mem(t), fresh = fresh_mem(&m);
    ck_assert_uint_lt(seg_count(t, &ep), segs_full / 4);
    ck_assert_uint_le(left, fresh * 26 / 10);
    ck_assert_uint_le(left, full / 3);
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    check_all(t, &m);
    ck_assert_uint_le(vt_mem(t), full + full / 10);
    /* and down to nothing: one segment again */
    for (uint32_t id = 0; id < K; id++) op_del(t, &m, id);
    check_all(t, &m);
    ck_assert_uint_eq(seg_count(t, &ep), 1);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* Deletes during a save free no segment (the serializer holds them); after
 * it vt_shrink merges what they left. */
START_TEST(test_shrink_after_save) {
    const uint32_t K = 100000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    size_t full = vt_mem(t);
    vt_seg **segs;
    size_t n;
    vt_save_begin(t, 1, drop_capture, NULL, &segs, &n);
    for (uint32_t id = 0; id < K; id++)
        if (id % 10) op_del(t, &m, id);
    ck_assert_uint_eq(vt_mem(t), full);
    vt_save_end(t);
    free(segs);
    vt_shrink(t, 16); /* a bounded step: some merges, not all */
    size_t step = vt_mem(t);
    ck_assert_uint_lt(step, full);
    vt_shrink(t, SIZE_MAX);
    ck_assert_uint_le(vt_mem(t), fresh_mem(&m) * 26 / 10);
    ck_assert_uint_lt(vt_mem(t), step);
    check_all(t, &m);
    vt_free(t);
    model_free(&m);
}
END_TEST

/* SCAN while deletions merge segments (and inserts split some again): every
 * key present throughout is visited. */
START_TEST(test_scan_across_merges) {
    const uint32_t K = 150000, kept = 4000;
    model m;
    model_init(&m, K);
    vt *t = vt_create();
    for (uint32_t id = 0; id < K; id++) op_set(t, &m, id);
    uint64_t ep = 0;
    size_t segs0 = seg_count(t, &ep);
    scan_seen s = { &m, calloc(K, 1), 0, 0 };
    uint32_t next_del = kept;
    uint64_t cur = 0;
    do {
        cur = vt_scan(t, cur, 1 + (uint32_t)rnd_below(12), scan_visit, &s);
        for (int j = 0; j < 60 && next_del < K; j++) op_del(t, &m, next_del++);
        if ((uint32_t)rnd_below(8) == 0) /* a deleted key back: a split now and then */
            op_set(t, &m, kept + (uint32_t)rnd_below(next_del - kept));
    } while (cur);
    ck_assert_int_eq(s.bad, 0);
    for (uint32_t id = 0; id < kept; id++) REQ(s.count[id] >= 1);
    ck_assert_uint_le(seg_count(t, &ep) * 4, segs0); /* it merged a lot */
    free(s.count);
    check_all(t, &m);
    vt_free(t);
    model_free(&m);
}
END_TEST

static void count_ttl(void *priv, vt_entry *e) {
    size_t *n = priv;
    n[0]++;
    if (vt_expire(e) != VT_NO_EXPIRE) n[1]++;
}

/* The volatile walk: with 1 % of keys carrying an expire it reads a small
 * part of the table and sees each of them; buckets left without one are
 * forgotten after one walk. */
START_TEST(test_scan_volatile) {
    const uint32_t K = 60000;
    vt *t = vt_create();
    char k[16];
    for (uint32_t id = 0; id < K; id++) {
        vt_wr w;
        size_t kl = key_of(k, id);
        vt_entry *e = vt_write(t, k, kl, 1, &w, NULL);
        vt_set_val(&w, e, val_new(id));
        if (id % 100 == 0) vt_set_expire(&w, e, 1700000000000LL + id);
        vt_write_done(&w);
    }
    size_t n[2] = {0, 0};
    uint64_t cur = 0;
    do cur = vt_scan_volatile(t, cur, 1 + (uint32_t)rnd_below(50), count_ttl, n);
    while (cur);
    ck_assert_uint_eq(n[1], K / 100);
    ck_assert_uint_lt(n[0], K / 100 * VT_BUCKET_SLOTS);
    /* vt_sample's volatile mode finds them too */
    vt_entry *out[8];
    ck_assert_uint_eq(vt_sample(t, 8, VT_SAMPLE_VOLATILE, SIZE_MAX, out), 8);
    for (int i = 0; i < 8; i++) ck_assert(vt_expire(out[i]) != VT_NO_EXPIRE);
    /* all but key 0 lose their expire: one walk clears their buckets' bits,
     * the next reads key 0's bucket only */
    for (uint32_t id = 100; id < K; id += 100) {
        vt_wr w;
        vt_entry *e = vt_write(t, k, key_of(k, id), 0, &w, NULL);
        vt_set_expire(&w, e, VT_NO_EXPIRE);
        vt_write_done(&w);
    }
    for (int walk = 0; walk < 2; walk++) {
        n[0] = n[1] = 0;
        do cur = vt_scan_volatile(t, cur, 100, count_ttl, n);
        while (cur);
        ck_assert_uint_eq(n[1], 1);
    }
    ck_assert_uint_le(n[0], VT_BUCKET_SLOTS);
    vt_free(t);
}
END_TEST

/* ---- runner ------------------------------------------------------------------ */

static Suite *vt_suite(void) {
    Suite *s = suite_create("vt");
    TCase *tm = tcase_create("model");
    tcase_set_timeout(tm, 120);
    tcase_add_test(tm, test_model_random_ops);
    suite_add_tcase(s, tm);
    TCase *ts = tcase_create("scan_random_reserve");
    tcase_set_timeout(ts, 60);
    tcase_add_test(ts, test_scan_across_splits);
    tcase_add_test(ts, test_scan_small_and_empty);
    tcase_add_test(ts, test_random);
    tcase_add_test(ts, test_sample_and_access);
    tcase_add_test(ts, test_sample_saved);
    tcase_add_test(ts, test_reserve);
    tcase_add_test(ts, test_fill_factor);
    tcase_add_test(ts, test_mem_accounting);
    tcase_add_test(ts, test_insert_hashed);
    tcase_add_test(ts, test_kv_layout);
    suite_add_tcase(s, ts);
    TCase *tp = tcase_create("snapshot");
    tcase_set_timeout(tp, 120);
    tcase_add_test(tp, test_snapshot_single_thread);
    tcase_add_test(tp, test_snapshot_split_heavy);
    suite_add_tcase(s, tp);
    TCase *tt = tcase_create("threaded");
    tcase_set_timeout(tt, 120);
    tcase_add_test(tt, test_snapshot_threaded);
    suite_add_tcase(s, tt);
    TCase *tk = tcase_create("shrink");
    tcase_set_timeout(tk, 120);
    tcase_add_test(tk, test_shrink_after_deletes);
    tcase_add_test(tk, test_shrink_after_save);
    tcase_add_test(tk, test_scan_across_merges);
    tcase_add_test(tk, test_scan_volatile);
    suite_add_tcase(s, tk);
    return s;
}

int main(void) {
    rnd_seed_env("test_vt", "VT_TEST_SEED");
    SRunner *sr = srunner_create(vt_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
