/* test_db_slots: the per-slot index of a slotted table (vt.h) and
 * db_slots.h on top of it, against a brute-force walk of the whole table.
 *
 * Keys are "k<id>" and, for a quarter of the ids, "{t<id % 8>}<id>": eight
 * hash tags pile many keys into eight slots, so those slots outgrow a
 * segment (the directory goes past 2^14 slots and a slot spans a run of
 * segments) while the others share segments with neighbouring slots. Checks:
 * counts and listings of many slots through random inserts, deletes and
 * splits; db_slot_count/keys/delete on a database; and a save (the
 * capture protocol, driven bucket by bucket as test_vt does) while keys are
 * written, still giving the state at its start. Seeded from
 * DB_SLOTS_TEST_SEED or the clock (printed). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "db_slots.h"
#include "inproc.h"
#include "keyslot.h"
#include "testrand.h"
#include "util.h"
#include "vt.h"
#include "req.h"

#define NIDS 120000u

static size_t key_of(char *buf, uint32_t id) {
    if (id % 4 == 0) return (size_t)snprintf(buf, 32, "{t%u}%u", id % 8, id);
    return (size_t)snprintf(buf, 32, "k%u", id);
}

static uint32_t id_of_key(const char *k, size_t len) {
    char buf[32];
    REQ_EQ(len < sizeof buf, 1);
    memcpy(buf, k, len);
    buf[len] = '\0';
    const char *p = buf[0] == '{' ? strchr(buf, '}') + 1 : buf + 1;
    return (uint32_t)strtoul(p, NULL, 10);
}

static uint32_t slot_of_id(uint32_t id) {
    char k[32];
    size_t n = key_of(k, id);
    return key_hash_slot(k, n);
}

/* Sets id's value to v (a created key or an overwrite). */
static void put(vt *t, uint32_t id, long long v) {
    char k[32];
    size_t kl = key_of(k, id);
    vt_wr w;
    int created;
    vt_entry *e = vt_write(t, k, kl, 1, &w, &created);
    obj *old = e->val;
    vt_set_val(&w, e, obj_new_int(v));
    if (old) obj_decref(old);
    vt_write_done(&w);
}

static void del(vt *t, uint32_t id) {
    char k[32];
    size_t kl = key_of(k, id);
    vt_delete(t, k, kl);
}

/* ---- brute force ---------------------------------------------------- */

/* One walk of the whole table: its keys per slot, and which ids it holds. */
typedef struct census {
    uint32_t *per_slot; /* KEYSLOT_COUNT */
    uint8_t *present;   /* per id */
} census;

static void census_visit(void *priv, vt_entry *e) {
    census *c = priv;
    size_t len;
    const char *k = vt_key(e, &len);
    c->per_slot[key_hash_slot(k, len)]++;
    c->present[id_of_key(k, len)] = 1;
}

static void census_take(vt *t, census *c) {
    memset(c->per_slot, 0, KEYSLOT_COUNT * sizeof *c->per_slot);
    memset(c->present, 0, NIDS);
    uint64_t cur = 0;
    do cur = vt_scan(t, cur, 1 << 22, census_visit, c); /* one call: no repeats */
    while (cur != 0);
}

/* What an index walk listed: distinct ids (stamp per id), all of its slot
 * and present in the table. */
typedef struct listing {
    unsigned slot;
    uint32_t *stamp, gen;
    const uint8_t *present;
    size_t n, bad;
} listing;

static void listed(listing *l, uint32_t id, unsigned slot) {
    if (slot != l->slot || !l->present[id] || l->stamp[id] == l->gen) l->bad++;
    l->stamp[id] = l->gen;
    l->n++;
}

static void index_visit(void *priv, vt_entry *e) {
    size_t len;
    const char *k = vt_key(e, &len);
    listed(priv, id_of_key(k, len), key_hash_slot(k, len));
}

/* The index's count and listing of slot equal the census's: as many
 * distinct keys of that slot as the whole walk found. */
static void check_slot(vt *t, const census *c, listing *l, unsigned slot) {
    size_t want = c->per_slot[slot];
    REQ_EQ(vt_slot_count(t, slot), want);
    l->slot = slot;
    l->gen++;
    l->n = l->bad = 0;
    REQ_EQ(vt_slot_walk(t, slot, SIZE_MAX, index_visit, l), want);
    REQ_EQ(l->n, want);
    REQ_EQ(l->bad, 0);
    if (want > 1) { /* a listing stops at max */
        l->gen++;
        l->n = 0;
        REQ_EQ(vt_slot_walk(t, slot, want / 2, index_visit, l), want / 2);
        REQ_EQ(l->n, want / 2);
        REQ_EQ(l->bad, 0);
    }
}

static void check_slots(vt *t) {
    census c = {xmalloc(KEYSLOT_COUNT * sizeof(uint32_t)), xmalloc(NIDS)};
    listing l = {.stamp = xcalloc(NIDS, sizeof(uint32_t)), .present = c.present};
    census_take(t, &c);
    size_t total = 0;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        REQ_EQ(vt_slot_count(t, s), c.per_slot[s]); /* every count */
        total += c.per_slot[s];
    }
    REQ_EQ(total, vt_size(t));
    for (uint32_t tag = 0; tag < 8; tag++) check_slot(t, &c, &l, slot_of_id(tag * 4));
    for (int i = 0; i < 300; i++) check_slot(t, &c, &l, slot_of_id((uint32_t)rnd_below(NIDS)));
    for (int i = 0; i < 50; i++) check_slot(t, &c, &l, (unsigned)rnd_below(KEYSLOT_COUNT));
    free(c.per_slot);
    free(c.present);
    free(l.stamp);
}

START_TEST(test_index_random_ops) {
    vt_index_slots(1);
    vt *t = vt_create();
    vt_index_slots(0);
    ck_assert(vt_slotted(t));
    check_slots(t); /* empty */
    /* growing: inserts with some deletes, checked as the table splits */
    for (uint32_t round = 1; round <= 6; round++) {
        for (uint32_t i = 0; i < 25000; i++) {
            uint32_t id = (uint32_t)rnd_below(NIDS * round / 6);
            if (rnd_below(5) == 0) del(t, id);
            else put(t, id, (long long)i);
        }
        check_slots(t);
    }
    ck_assert_uint_gt(vt_size(t), 50000);
    /* shrinking: deletes only */
    for (uint32_t i = 0; i < 100000; i++) del(t, (uint32_t)rnd_below(NIDS));
    check_slots(t);
    vt_free(t);
}
END_TEST

/* A table made before vt_index_slots(1) keeps placing keys by plain hash. */
START_TEST(test_mode_fixed_at_create) {
    vt *t = vt_create();
    vt_index_slots(1);
    vt *u = vt_create();
    vt_index_slots(0);
    ck_assert(!vt_slotted(t));
    ck_assert(vt_slotted(u));
    ck_assert_uint_ne(vt_key_hash(t, "foo", 3), vt_key_hash(u, "foo", 3));
    REQ_EQ(vt_key_hash(u, "foo", 3) >> 50, key_hash_slot("foo", 3));
    vt_free(t);
    vt_free(u);
}
END_TEST

/* ---- db_slots on a database ------------------------------------------ */

typedef struct key_set {
    uint8_t *seen;
    size_t n;
} key_set;

static void key_cb(void *priv, const char *key, size_t len) {
    key_set *s = priv;
    s->seen[id_of_key(key, len)]++;
    s->n++;
}

START_TEST(test_db_slots_interface) {
    db *d = db_get(0);
    ck_assert(vt_slotted(d->t)); /* made after vt_index_slots(1), see main */
    for (uint32_t i = 0; i < 40000; i++) put(d->t, (uint32_t)rnd_below(NIDS), i);
    census c = {xmalloc(KEYSLOT_COUNT * sizeof(uint32_t)), xmalloc(NIDS)};
    uint8_t *seen = xmalloc(NIDS);
    for (int r = 0; r < 100; r++) {
        census_take(d->t, &c);
        unsigned slot = r < 8 ? slot_of_id((uint32_t)r * 4) : slot_of_id((uint32_t)rnd_below(NIDS));
        size_t want = c.per_slot[slot];
        REQ_EQ(db_slot_count(d, slot), want);
        key_set ks = {.seen = seen};
        memset(seen, 0, NIDS);
        REQ_EQ(db_slot_keys(d, slot, SIZE_MAX, key_cb, &ks), want);
        for (uint32_t id = 0; id < NIDS; id++) /* those keys, each once */
            REQ_EQ(seen[id], c.present[id] && slot_of_id(id) == slot);
        if (r % 3 == 0) {
            size_t before = vt_size(d->t);
            REQ_EQ(db_slot_delete(d, slot), want);
            REQ_EQ(db_slot_count(d, slot), 0);
            REQ_EQ(vt_size(d->t), before - want);
            census_take(d->t, &c);
            REQ_EQ(c.per_slot[slot], 0);
        }
    }
    free(c.per_slot);
    free(c.present);
    free(seen);
}
END_TEST

/* ---- a save while keys are written ----------------------------------- */

typedef struct got {
    long long *at;  /* value per id at E, -1 absent */
    uint8_t *seen;
    size_t n, errors;
    const uint8_t *slots; /* a save of these slots only (NULL: all) */
} got;

static int in_set(const uint8_t *set, uint32_t slot) { return set[slot >> 3] >> (slot & 7) & 1; }

static void take(got *g, obj *v) {
    size_t len;
    const char *k = obj_kv_key(v, &len);
    uint32_t id = id_of_key(k, len);
    if (g->slots && !in_set(g->slots, slot_of_id(id))) { /* the serializer skips it */
        obj_decref(v);
        return;
    }
    long long x = -1;
    obj_get_ll(v, &x);
    if (g->at[id] != x || g->seen[id]) g->errors++;
    g->seen[id] = 1;
    g->n++;
    obj_decref(v);
}

static void take_cb(void *priv, obj *v, int64_t ex) {
    (void)ex;
    take(priv, v);
}

START_TEST(test_save_point_in_time) {
    vt_index_slots(1);
    vt *t = vt_create();
    vt_index_slots(0);
    long long *cur = xmalloc(NIDS * sizeof *cur);
    for (uint32_t i = 0; i < NIDS; i++) cur[i] = -1;
    for (uint32_t i = 0; i < 30000; i++) {
        uint32_t id = (uint32_t)rnd_below(NIDS / 2);
        put(t, id, i);
        cur[id] = i;
    }
    for (uint64_t E = 1; E <= 3; E++) {
        got g = {.at = xmalloc(NIDS * sizeof(long long)), .seen = xcalloc(NIDS, 1)};
        memcpy(g.at, cur, NIDS * sizeof *cur);
        size_t expect = vt_size(t);
        vt_seg **segs;
        size_t nsegs;
        vt_save_begin(t, E, take_cb, &g, &segs, &nsegs);
        vt_captured out[VT_BUCKET_SLOTS];
        for (size_t i = 0; i < nsegs * VT_SEG_BUCKETS; i++) {
            /* writes between captures, over the whole id range: splits */
            for (int j = (int)rnd_below(6); j > 0; j--) {
                uint32_t id = (uint32_t)rnd_below(NIDS);
                long long v = 1000000 * (long long)E + (long long)i;
                if (rnd_below(4) == 0) { del(t, id); cur[id] = -1; }
                else { put(t, id, v); cur[id] = v; }
            }
            size_t n = vt_capture_bucket(vt_seg_bucket(segs[i / VT_SEG_BUCKETS], (unsigned)(i % VT_SEG_BUCKETS)), E, out);
            for (size_t j = 0; j < n; j++) take(&g, out[j].val);
        }
        vt_save_end(t);
        REQ_EQ(g.errors, 0);
        REQ_EQ(g.n, expect);
        free(segs);
        free(g.at);
        free(g.seen);
    }
    check_slots(t); /* the index survived the saves' splits */
    free(cur);
    vt_free(t);
}
END_TEST

/* A save of a third of the slots (a range and two of the tagged slots),
 * as a slot migration's: vt_save_slot_segs names the segments that may
 * hold their keys, the others are skipped bucket by bucket (no capture)
 * while keys are written. Every key of those slots is written once with
 * its value at E, and most segments were skipped. */
START_TEST(test_save_of_slots) {
    vt_index_slots(1);
    vt *t = vt_create();
    vt_index_slots(0);
    long long *cur = xmalloc(NIDS * sizeof *cur);
    for (uint32_t i = 0; i < NIDS; i++) cur[i] = -1;
    for (uint32_t i = 0; i < 60000; i++) {
        uint32_t id = (uint32_t)rnd_below(NIDS);
        put(t, id, i);
        cur[id] = i;
    }
    uint8_t set[KEYSLOT_COUNT / 8] = {0};
    for (uint32_t s = 6000; s < 11461; s++) set[s >> 3] |= (uint8_t)(1u << (s & 7));
    for (uint32_t id = 8; id <= 12; id += 4) { /* the slots of {t0} and {t4} */
        uint32_t s = slot_of_id(id);
        set[s >> 3] |= (uint8_t)(1u << (s & 7));
    }
    for (uint64_t E = 1; E <= 3; E++) {
        got g = {.at = xmalloc(NIDS * sizeof(long long)), .seen = xcalloc(NIDS, 1),
                 .slots = set};
        memcpy(g.at, cur, NIDS * sizeof *cur);
        size_t expect = 0;
        for (uint32_t id = 0; id < NIDS; id++) expect += cur[id] >= 0 && in_set(set, slot_of_id(id));
        vt_seg **segs;
        size_t nsegs;
        vt_save_begin(t, E, take_cb, &g, &segs, &nsegs);
        uint8_t *want = xmalloc(nsegs);
        vt_save_slot_segs(t, segs, nsegs, set, want);
        size_t nwant = 0;
        for (size_t i = 0; i < nsegs; i++) nwant += want[i];
        ck_assert_msg(nwant > 0 && nwant < nsegs * 2 / 3, "%zu of %zu segments walked", nwant, nsegs);
        vt_captured out[VT_BUCKET_SLOTS];
        for (size_t i = 0; i < nsegs * VT_SEG_BUCKETS; i++) {
            for (int j = (int)rnd_below(6); j > 0; j--) { /* splits too */
                uint32_t id = (uint32_t)rnd_below(NIDS);
                long long v = 1000000 * (long long)E + (long long)i;
                if (rnd_below(4) == 0) { del(t, id); cur[id] = -1; }
                else { put(t, id, v); cur[id] = v; }
            }
            vt_bucket *b = vt_seg_bucket(segs[i / VT_SEG_BUCKETS], (unsigned)(i % VT_SEG_BUCKETS));
            if (!want[i / VT_SEG_BUCKETS]) {
                vt_skip_bucket(b, E);
                continue;
            }
            size_t n = vt_capture_bucket(b, E, out);
            for (size_t j = 0; j < n; j++) take(&g, out[j].val);
        }
        vt_save_end(t);
        REQ_EQ(g.errors, 0);
        REQ_EQ(g.n, expect);
        free(want);
        free(segs);
        free(g.at);
        free(g.seen);
    }
    check_slots(t);
    free(cur);
    vt_free(t);
}
END_TEST

int main(void) {
    rnd_seed_env("test_db_slots", "DB_SLOTS_TEST_SEED");
    vt_index_slots(1); /* as server.c with cluster-enabled yes */
    inproc_init();
    vt_index_slots(0);
    Suite *s = suite_create("db_slots");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_index_random_ops);
    tcase_add_test(tc, test_mode_fixed_at_create);
    tcase_add_test(tc, test_db_slots_interface);
    tcase_add_test(tc, test_save_point_in_time);
    tcase_add_test(tc, test_save_of_slots);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
