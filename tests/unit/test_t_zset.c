/* test_t_zset: the sorted set type's API (t_zset.h) on its own, as the
 * commands, the RDB code and the AOF rewrite use it: set / score / rem,
 * (score, member) order with equal scores and inf, -0, ranks, score and lex
 * bounds, range deletion, the hash-cursor scan, the bulk builder
 * (zset_from_members: any order, repeats and NaN refused), the encodings,
 * a copy shared with a reader left untouched by writes, and a random
 * comparison with a sorted array. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "server.h"
#include "t_zset.h"
#include "inproc.h"

static void setup(void) { inproc_conf(); }

static void teardown(void) { conf_free(&server.cfg); }

/* The members in iteration order, "m:score" joined by spaces. */
static char *dump(const obj *z) {
    static char buf[65536];
    size_t n = 0;
    zset_iter it;
    zset_iter_init(&it, z);
    const char *m;
    size_t ml;
    double s;
    buf[0] = '\0';
    while (zset_iter_next(&it, &m, &ml, &s)) {
        char sc[ZSET_SCORE_BUF];
        size_t sl = zset_fmt_score(sc, s);
        ck_assert(n + ml + sl + 3 < sizeof buf);
        if (n) buf[n++] = ' ';
        memcpy(buf + n, m, ml);
        n += ml;
        buf[n++] = ':';
        memcpy(buf + n, sc, sl);
        n += sl;
        buf[n] = '\0';
    }
    return buf;
}

START_TEST(set_score_rem)
{
    obj *z = zset_new();
    ck_assert_int_eq(z->type, OBJ_ZSET);
    ck_assert_int_eq(z->enc, OBJ_ENC_LISTPACK);
    ck_assert_uint_eq(zset_len(z), 0);
    ck_assert_int_eq(zset_set(z, "b", 1, 2), 1);
    ck_assert_int_eq(zset_set(z, "a", 1, 2), 1);
    ck_assert_int_eq(zset_set(z, "c", 1, -INFINITY), 1);
    ck_assert_int_eq(zset_set(z, "", 0, INFINITY), 1);
    ck_assert_int_eq(zset_set(z, "d", 1, 1.5), 1);
    ck_assert_int_eq(zset_set(z, "d", 1, 3), 0); /* update */
    ck_assert_str_eq(dump(z), "c:-inf a:2 b:2 d:3 :inf");
    double s;
    ck_assert_int_eq(zset_score(z, "d", 1, &s), 1);
    ck_assert(s == 3);
    ck_assert_int_eq(zset_score(z, "x", 1, &s), 0);
    uint64_t r;
    ck_assert_int_eq(zset_rank(z, "b", 1, &r, &s), 1);
    ck_assert_uint_eq(r, 2);
    ck_assert(s == 2);
    ck_assert_int_eq(zset_rank(z, "", 0, &r, NULL), 1);
    ck_assert_uint_eq(r, 4);
    const char *m;
    size_t ml;
    ck_assert_int_eq(zset_at(z, 1, &m, &ml, &s), 1);
    ck_assert(ml == 1 && m[0] == 'a' && s == 2);
    ck_assert_int_eq(zset_at(z, 5, &m, &ml, &s), 0);
    ck_assert_int_eq(zset_rem(z, "a", 1), 1);
    ck_assert_int_eq(zset_rem(z, "a", 1), 0);
    ck_assert_uint_eq(zset_len(z), 4);
    ck_assert_str_eq(dump(z), "c:-inf b:2 d:3 :inf");
    /* reverse iteration from a rank */
    zset_iter it;
    zset_iter_at(&it, z, 2, 1);
    ck_assert(zset_iter_next(&it, &m, &ml, &s) && m[0] == 'd');
    ck_assert(zset_iter_next(&it, &m, &ml, &s) && m[0] == 'b');
    ck_assert(zset_iter_next(&it, &m, &ml, &s) && m[0] == 'c');
    ck_assert(!zset_iter_next(&it, &m, &ml, &s));
    obj_decref(z);
}
END_TEST

START_TEST(bounds)
{
    obj *z = zset_new();
    zset_set(z, "a", 1, -1);
    zset_set(z, "b", 1, 0);
    zset_set(z, "c", 1, 0);
    zset_set(z, "d", 1, 0.5);
    zset_set(z, "e", 1, 7);
    ck_assert_uint_eq(zset_rank_of_score(z, 0, 0), 1);
    ck_assert_uint_eq(zset_rank_of_score(z, 0, 1), 3);
    ck_assert_uint_eq(zset_rank_of_score(z, -0.0, 1), 3);
    ck_assert_uint_eq(zset_rank_of_score(z, -INFINITY, 0), 0);
    ck_assert_uint_eq(zset_rank_of_score(z, INFINITY, 0), 5);
    ck_assert_uint_eq(zset_rank_of_score(z, 8, 0), 5);
    ck_assert_uint_eq(zset_rank_of_score(z, -5, 1), 0);
    ck_assert_uint_eq(zset_rank_of_score(z, 0.25, 0), 3);
    /* lex: mixed scores (binary search on tree order) */
    ck_assert_uint_eq(zset_rank_of_lex(z, "b", 1, 0), 1);
    ck_assert_uint_eq(zset_rank_of_lex(z, "b", 1, 1), 2);
    ck_assert_uint_eq(zset_rank_of_lex(z, "", 0, 0), 0);
    ck_assert_uint_eq(zset_rank_of_lex(z, "z", 1, 0), 5);
    obj_decref(z);
    /* lex: one score (a seek) */
    z = zset_new();
    const char *w[] = {"b", "ab", "a", "abc", "c", ""};
    for (int i = 0; i < 6; i++) zset_set(z, w[i], strlen(w[i]), 0);
    ck_assert_str_eq(dump(z), ":0 a:0 ab:0 abc:0 b:0 c:0");
    ck_assert_uint_eq(zset_rank_of_lex(z, "", 0, 0), 0);
    ck_assert_uint_eq(zset_rank_of_lex(z, "", 0, 1), 1);
    ck_assert_uint_eq(zset_rank_of_lex(z, "ab", 2, 0), 2);
    ck_assert_uint_eq(zset_rank_of_lex(z, "ab", 2, 1), 3);
    ck_assert_uint_eq(zset_rank_of_lex(z, "abb", 3, 0), 3);
    ck_assert_uint_eq(zset_rank_of_lex(z, "abb", 3, 1), 3);
    ck_assert_uint_eq(zset_rank_of_lex(z, "d", 1, 0), 6);
    zset_delete_range(z, 1, 3);
    ck_assert_str_eq(dump(z), ":0 b:0 c:0");
    ck_assert_uint_eq(zset_len(z), 3);
    double s;
    ck_assert_int_eq(zset_score(z, "ab", 2, &s), 0);
    ck_assert_int_eq(zset_score(z, "b", 1, &s), 1);
    zset_delete_range(z, 0, 3);
    ck_assert_uint_eq(zset_len(z), 0);
    obj_decref(z);
}
END_TEST

START_TEST(neg_zero_and_encodings)
{
    obj *z = zset_new();
    zset_set(z, "a", 1, -0.0);
    double s;
    ck_assert(zset_score(z, "a", 1, &s) && s == 0 && !signbit(s)); /* a listpack: 0 */
    server.cfg.zset_max_listpack_entries = 2;
    zset_set(z, "b", 1, 1);
    ck_assert_int_eq(z->enc, OBJ_ENC_LISTPACK);
    zset_set(z, "c", 1, -0.0); /* converts first, then keeps -0 */
    ck_assert_int_eq(z->enc, OBJ_ENC_SKIPLIST);
    ck_assert_str_eq(dump(z), "a:0 c:-0 b:1");
    ck_assert(zset_score(z, "c", 1, &s) && signbit(s));
    zset_rem(z, "b", 1);
    zset_rem(z, "c", 1);
    ck_assert_int_eq(z->enc, OBJ_ENC_SKIPLIST); /* for good */
    obj_decref(z);
    /* a member longer than zset-max-listpack-value */
    server.cfg.zset_max_listpack_entries = 128;
    server.cfg.zset_max_listpack_value = 3;
    z = zset_new();
    zset_set(z, "abc", 3, 1);
    ck_assert_int_eq(z->enc, OBJ_ENC_LISTPACK);
    zset_set(z, "abcd", 4, 1);
    ck_assert_int_eq(z->enc, OBJ_ENC_SKIPLIST);
    obj_decref(z);
    /* a result built big becomes small when it fits, -0 turning 0 */
    server.cfg.zset_max_listpack_value = 64;
    z = zset_new_skiplist();
    zset_set(z, "x", 1, -0.0);
    zset_set(z, "y", 1, -0.0);
    zset_set(z, "w", 1, -1);
    ck_assert_str_eq(dump(z), "w:-1 x:-0 y:-0");
    zset_convert_if_small(z);
    ck_assert_int_eq(z->enc, OBJ_ENC_LISTPACK);
    ck_assert_str_eq(dump(z), "w:-1 x:0 y:0");
    obj_decref(z);
    z = zset_new_skiplist();
    for (int i = 0; i < 129; i++) {
        char m[16];
        int n = snprintf(m, sizeof m, "m%d", i);
        zset_set(z, m, (size_t)n, -0.0);
    }
    zset_convert_if_small(z);
    ck_assert_int_eq(z->enc, OBJ_ENC_SKIPLIST);
    obj_decref(z);
}
END_TEST

START_TEST(from_members)
{
    zset_member v[] = {{"c", 1, 3}, {"a", 1, 1}, {"b", 1, 1}, {"z", 1, -INFINITY}, {"n", 1, -0.0}};
    obj *z = zset_from_members(v, 5);
    ck_assert_ptr_nonnull(z);
    ck_assert_int_eq(z->enc, OBJ_ENC_LISTPACK);
    ck_assert_str_eq(dump(z), "z:-inf n:0 a:1 b:1 c:3");
    uint64_t r;
    ck_assert(zset_rank(z, "b", 1, &r, NULL) && r == 3);
    /* it is a normal sorted set afterwards */
    zset_set(z, "a", 1, 10);
    ck_assert_str_eq(dump(z), "z:-inf n:0 b:1 c:3 a:10");
    obj_decref(z);
    zset_member dup[] = {{"a", 1, 1}, {"b", 1, 2}, {"a", 1, 3}};
    ck_assert_ptr_null(zset_from_members(dup, 3));
    zset_member nan[] = {{"a", 1, 1}, {"b", 1, NAN}};
    ck_assert_ptr_null(zset_from_members(nan, 2));
    z = zset_from_members(NULL, 0);
    ck_assert_ptr_nonnull(z);
    ck_assert_uint_eq(zset_len(z), 0);
    obj_decref(z);
    /* big: skiplist, -0 kept */
    enum { N = 1000 };
    zset_member *b = malloc(N * sizeof *b);
    char (*names)[16] = malloc(N * sizeof *names);
    for (int i = 0; i < N; i++) {
        snprintf(names[i], 16, "k%04d", (i * 7919) % N);
        b[i] = (zset_member){names[i], 5, i == 5 ? -0.0 : (double)((i * 7919) % N % 10)};
    }
    z = zset_from_members(b, N);
    ck_assert_ptr_nonnull(z);
    ck_assert_int_eq(z->enc, OBJ_ENC_SKIPLIST);
    ck_assert_uint_eq(zset_len(z), N);
    zset_iter it;
    zset_iter_init(&it, z);
    const char *m, *pm = NULL;
    size_t ml, pml = 0;
    double s, ps = -INFINITY;
    int count = 0, negz = 0;
    while (zset_iter_next(&it, &m, &ml, &s)) {
        ck_assert(s > ps || (s == ps && memcmp(pm, m, 5) < 0));
        double t;
        ck_assert(zset_score(z, m, ml, &t) && memcmp(&t, &s, sizeof t) == 0);
        negz += s == 0 && signbit(s);
        pm = m;
        pml = ml;
        ps = s;
        count++;
    }
    (void)pml;
    ck_assert_int_eq(count, N);
    ck_assert_int_eq(negz, 1);
    obj_decref(z);
    free(b);
    free(names);
}
END_TEST

typedef struct scan_acc { int seen[2000]; int calls; } scan_acc;

static void scan_fn(void *priv, const char *m, size_t ml, double score) {
    scan_acc *a = priv;
    char buf[16];
    ck_assert(ml < sizeof buf);
    memcpy(buf, m, ml);
    buf[ml] = '\0';
    int k = atoi(buf + 1);
    ck_assert(k >= 0 && k < 2000 && score == k);
    a->seen[k]++;
    a->calls++;
}

START_TEST(scan_cursor)
{
    obj *z = zset_new();
    for (int i = 0; i < 2000; i++) {
        char m[16];
        int n = snprintf(m, sizeof m, "m%d", i);
        zset_set(z, m, (size_t)n, i);
    }
    static scan_acc a;
    memset(&a, 0, sizeof a);
    uint64_t cur = 0;
    int rounds = 0;
    do {
        int before = a.calls;
        cur = zset_scan(z, cur, 50, scan_fn, &a);
        ck_assert(a.calls - before >= 50 || cur == (UINT64_C(1) << 32));
        rounds++;
    } while (cur != (UINT64_C(1) << 32));
    ck_assert_int_le(rounds, 41);
    for (int i = 0; i < 2000; i++) ck_assert_int_eq(a.seen[i], 1);
    ck_assert_uint_eq(zset_scan(z, UINT64_C(1) << 32, 10, scan_fn, &a), UINT64_C(1) << 32);
    obj_decref(z);
}
END_TEST

START_TEST(shared_copy_untouched)
{
    obj *z = zset_new();
    for (int i = 0; i < 300; i++) {
        char m[16];
        int n = snprintf(m, sizeof m, "m%03d", i);
        zset_set(z, m, (size_t)n, i % 7);
    }
    char *before = strdup(dump(z));
    obj_incref(z); /* a save holds it */
    obj *w = obj_coll_writable(z);
    ck_assert_ptr_ne(w, z);
    zset_set(w, "m000", 4, 100);
    zset_rem(w, "m001", 4);
    zset_delete_range(w, 0, 50);
    zset_set(w, "new", 3, -1);
    ck_assert_str_eq(dump(z), before); /* the reader's version */
    ck_assert_uint_eq(zset_len(z), 300);
    ck_assert_uint_eq(zset_len(w), 300 - 1 - 50 + 1);
    obj_decref(z);
    obj_decref(w);
    free(before);
}
END_TEST

/* Random writes vs a sorted array model: order, ranks, bounds. */
enum { RN = 200 };
static double rmodel[RN];
static int rin[RN];

static int rcmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (rmodel[x] != rmodel[y]) return rmodel[x] < rmodel[y] ? -1 : 1;
    char nx[16], ny[16];
    snprintf(nx, sizeof nx, "r%d", x);
    snprintf(ny, sizeof ny, "r%d", y);
    return strcmp(nx, ny);
}

START_TEST(random_vs_model)
{
    srand(12345);
    memset(rin, 0, sizeof rin);
    obj *z = zset_new();
    for (int step = 0; step < 20000; step++) {
        int i = rand() % RN;
        char m[16];
        int n = snprintf(m, sizeof m, "r%d", i);
        if (rand() % 3) {
            double s = (double)(rand() % 41 - 20) / 4;
            ck_assert_int_eq(zset_set(z, m, (size_t)n, s), !rin[i]);
            rin[i] = 1;
            rmodel[i] = s;
        } else {
            ck_assert_int_eq(zset_rem(z, m, (size_t)n), rin[i]);
            rin[i] = 0;
        }
        if (step % 97) continue;
        int ord[RN], cnt = 0;
        for (int k = 0; k < RN; k++)
            if (rin[k]) ord[cnt++] = k;
        qsort(ord, (size_t)cnt, sizeof ord[0], rcmp);
        ck_assert_uint_eq(zset_len(z), (uint64_t)cnt);
        for (int k = 0; k < cnt; k++) {
            const char *pm;
            size_t pml;
            double s;
            ck_assert(zset_at(z, (uint64_t)k, &pm, &pml, &s));
            char want[16];
            int wl = snprintf(want, sizeof want, "r%d", ord[k]);
            ck_assert(pml == (size_t)wl && memcmp(pm, want, pml) == 0 && s == rmodel[ord[k]]);
            uint64_t r;
            ck_assert(zset_rank(z, want, (size_t)wl, &r, NULL) && r == (uint64_t)k);
        }
        double b = (double)(rand() % 41 - 20) / 4;
        uint64_t ge = 0, gt = 0;
        for (int k = 0; k < cnt; k++) {
            ge += rmodel[ord[k]] < b;
            gt += rmodel[ord[k]] <= b;
        }
        ck_assert_uint_eq(zset_rank_of_score(z, b, 0), ge);
        ck_assert_uint_eq(zset_rank_of_score(z, b, 1), gt);
    }
    obj_decref(z);
}
END_TEST

int main(void) {
    Suite *s = suite_create("t_zset");
    TCase *tc = tcase_create("t_zset");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, set_score_rem);
    tcase_add_test(tc, bounds);
    tcase_add_test(tc, neg_zero_and_encodings);
    tcase_add_test(tc, from_members);
    tcase_add_test(tc, scan_cursor);
    tcase_add_test(tc, shared_copy_untouched);
    tcase_add_test(tc, random_vs_model);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
