/* Unit tests for t_set: membership, the tree's hash order, the intset /
 * hashtable encoding rules, the bottom-up builders (set_from_members, which
 * the RDB loader uses, and set_from_sorted), SSCAN's rank_of_hash, and
 * copy-on-write between a set and its copy. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"
#include "t_set.h"
#include "inproc.h"

static void setup(void) { inproc_conf(); }
static void teardown(void) { conf_free(&server.cfg); }

/* Members of s in iteration order, checking the hash order on the way;
 * returns how many. */
static size_t check_order(const obj *s)
{
    set_iter it;
    const char *m;
    size_t ml, n = 0;
    uint32_t h, prev = 0;
    set_iter_init(&it, s);
    while (set_iter_next_h(&it, &m, &ml, &h)) {
        ck_assert_uint_eq(h, set_hash(m, ml));
        ck_assert(n == 0 || h >= prev);
        ck_assert(set_has(s, m, ml));
        prev = h;
        n++;
    }
    ck_assert_uint_eq(n, set_len(s));
    return n;
}

START_TEST(add_rem_has)
{
    obj *s = set_new();
    ck_assert_int_eq(s->type, OBJ_SET);
    ck_assert_uint_eq(set_len(s), 0);
    char big[1000];
    memset(big, 'b', sizeof big);
    ck_assert_int_eq(set_add(s, "a", 1), 1);
    ck_assert_int_eq(set_add(s, "a", 1), 0);
    ck_assert_int_eq(set_add(s, "", 0), 1);
    ck_assert_int_eq(set_add(s, big, sizeof big), 1);
    ck_assert_int_eq(set_add(s, big, sizeof big - 1), 1);
    ck_assert_uint_eq(set_len(s), 4);
    ck_assert(set_has(s, "", 0) && set_has(s, big, sizeof big) && !set_has(s, "b", 1));
    check_order(s);
    ck_assert_int_eq(set_rem(s, big, sizeof big), 1);
    ck_assert_int_eq(set_rem(s, big, sizeof big), 0);
    ck_assert(set_has(s, big, sizeof big - 1));
    ck_assert_int_eq(set_rem(s, "", 0), 1);
    ck_assert_uint_eq(set_len(s), 2);
    obj_decref(s);
}
END_TEST

START_TEST(encoding_rules)
{
    server.cfg.set_max_intset_entries = 3;
    obj *s = set_new();
    ck_assert_int_eq(s->enc, OBJ_ENC_INTSET);
    set_add(s, "1", 1);
    set_add(s, "-5", 2);
    set_add(s, "9223372036854775807", 19);
    ck_assert_int_eq(s->enc, OBJ_ENC_INTSET);
    set_add(s, "7", 1); /* a 4th member: over the limit */
    ck_assert_int_eq(s->enc, OBJ_ENC_HASHTABLE);
    set_rem(s, "7", 1);
    ck_assert_int_eq(s->enc, OBJ_ENC_HASHTABLE); /* for good */
    set_reset_encoding(s);                        /* as a fresh set would be */
    ck_assert_int_eq(s->enc, OBJ_ENC_INTSET);
    obj_decref(s);
    const char *not_int[] = {"01", "-0", "+1", "1.0", "9223372036854775808", "x"};
    for (size_t i = 0; i < sizeof not_int / sizeof not_int[0]; i++) {
        s = set_new();
        set_add(s, not_int[i], strlen(not_int[i]));
        ck_assert_int_eq(s->enc, OBJ_ENC_HASHTABLE);
        ck_assert(!set_member_int(not_int[i], strlen(not_int[i]), NULL));
        obj_decref(s);
    }
    long long v;
    ck_assert(set_member_int("-9223372036854775808", 20, &v));
    ck_assert(v == INT64_MIN);
}
END_TEST

START_TEST(from_members)
{
    enum { N = 500 };
    char buf[N][16];
    set_member v[N];
    obj *ref = set_new();
    for (int i = 0; i < N; i++) {
        int len = snprintf(buf[i], sizeof buf[i], i % 2 ? "m%d" : "%d", i);
        v[i] = (set_member){buf[i], (size_t)len};
        set_add(ref, buf[i], (size_t)len);
    }
    /* shuffle: the builder sorts */
    for (int i = N - 1; i > 0; i--) {
        int j = rand() % (i + 1);
        set_member t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
    obj *s = set_from_members(v, N);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(check_order(s), N);
    ck_assert_int_eq(s->enc, OBJ_ENC_HASHTABLE);
    /* same iteration as the set built by adds */
    set_iter a, b;
    const char *ma, *mb;
    size_t la, lb;
    set_iter_init(&a, s);
    set_iter_init(&b, ref);
    while (set_iter_next(&a, &ma, &la)) {
        ck_assert(set_iter_next(&b, &mb, &lb));
        ck_assert(la == lb && memcmp(ma, mb, la) == 0);
    }
    ck_assert(!set_iter_next(&b, &mb, &lb));
    obj_decref(s);
    obj_decref(ref);
    /* a repeated member: NULL */
    v[7] = v[100];
    ck_assert_ptr_null(set_from_members(v, N));
    /* integers within the limit: intset; empty */
    set_member ints[3] = {{"3", 1}, {"-1", 2}, {"2", 1}};
    s = set_from_members(ints, 3);
    ck_assert_int_eq(s->enc, OBJ_ENC_INTSET);
    ck_assert_uint_eq(check_order(s), 3);
    obj_decref(s);
    s = set_from_members(NULL, 0);
    ck_assert_uint_eq(set_len(s), 0);
    obj_decref(s);
}
END_TEST

START_TEST(rank_of_hash_and_delete_at)
{
    obj *s = set_new();
    char buf[32];
    for (int i = 0; i < 300; i++)
        set_add(s, buf, (size_t)snprintf(buf, sizeof buf, "k%d", i));
    for (uint64_t r = 0; r < set_len(s); r++) {
        const char *m;
        size_t ml;
        set_at(s, r, &m, &ml);
        uint32_t h = set_hash(m, ml);
        uint64_t first = set_rank_of_hash(s, h);
        ck_assert_uint_le(first, r);
        set_at(s, first, &m, &ml);
        ck_assert_uint_eq(set_hash(m, ml), h);
    }
    ck_assert_uint_eq(set_rank_of_hash(s, 0), 0);
    const char *m;
    size_t ml;
    set_at(s, set_len(s) - 1, &m, &ml);
    uint32_t last = set_hash(m, ml);
    if (last < UINT32_MAX) /* past the last hash: the end */
        ck_assert_uint_eq(set_rank_of_hash(s, last + 1), set_len(s));
    while (set_len(s) > 0)
        set_del_at(s, set_len(s) / 2);
    obj_decref(s);
}
END_TEST

START_TEST(copy_on_write)
{
    obj *s = set_new();
    char buf[32];
    for (int i = 0; i < 200; i++)
        set_add(s, buf, (size_t)snprintf(buf, sizeof buf, "m%d", i));
    obj *saved = s;
    obj_incref(saved); /* a save's reference */
    s = obj_coll_writable(s);
    ck_assert_ptr_ne(s, saved);
    ck_assert_int_eq(set_add(s, "new", 3), 1);
    ck_assert_int_eq(set_rem(s, "m5", 2), 1);
    ck_assert_uint_eq(set_len(saved), 200);
    ck_assert(!set_has(saved, "new", 3) && set_has(saved, "m5", 2));
    ck_assert(set_has(s, "new", 3) && !set_has(s, "m5", 2));
    check_order(saved);
    check_order(s);
    obj_decref(saved);
    obj_decref(s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("t_set");
    TCase *tc = tcase_create("t_set");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, add_rem_has);
    tcase_add_test(tc, encoding_rules);
    tcase_add_test(tc, from_members);
    tcase_add_test(tc, rank_of_hash_and_delete_at);
    tcase_add_test(tc, copy_on_write);
    suite_add_tcase(su, tc);
    SRunner *r = srunner_create(su);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
