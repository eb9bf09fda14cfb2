/* test_hll: the HyperLogLog representation (src/types/hll.c) below the commands:
 * the sparse opcode layout Redis produces (adjacent VALs merged), the two
 * promotions to dense (a register above 32, the size limit), corrupt
 * encodings, and the estimate of raw registers. The byte-for-byte match
 * with redis-server is tests/integration/test_hll's. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hll.h"

static void check_decode(const obj *o, const char *want) {
    size_t n;
    char *s = hll_decode(o, &n);
    ck_assert_str_eq(s, want);
    ck_assert_uint_eq(n, strlen(want));
    free(s);
}

START_TEST(sparse_layout) {
    obj *o = hll_new();
    ck_assert(hll_is_valid(o));
    ck_assert_int_eq(hll_encoding(o), HLL_SPARSE);
    check_decode(o, "Z:16384");
    uint64_t card;
    ck_assert(hll_cache_get(o, &card));
    ck_assert_uint_eq(card, 0);
    /* Redis's own example: 1000 -> 2, 1020 and 1021 -> 3 */
    ck_assert_int_eq(hll_set(&o, 1000, 2), 1);
    ck_assert(!hll_cache_get(o, &card)); /* a change makes the cache stale */
    ck_assert_int_eq(hll_set(&o, 1020, 3), 1);
    ck_assert_int_eq(hll_set(&o, 1021, 3), 1);
    check_decode(o, "Z:1000 v:2,1 z:19 v:3,2 Z:15362");
    /* lower or equal values change nothing */
    ck_assert_int_eq(hll_set(&o, 1020, 3), 0);
    ck_assert_int_eq(hll_set(&o, 1000, 1), 0);
    /* a ZERO of one register becomes a VAL, then merges with its neighbours */
    ck_assert_int_eq(hll_set(&o, 1019, 3), 1);
    ck_assert_int_eq(hll_set(&o, 1022, 3), 1);
    check_decode(o, "Z:1000 v:2,1 z:18 v:3,4 Z:15361");
    ck_assert_int_eq(hll_set(&o, 1023, 3), 1); /* a VAL holds at most 4 */
    check_decode(o, "Z:1000 v:2,1 z:18 v:3,4 v:3,1 Z:15360");
    /* splitting a VAL run in the middle */
    ck_assert_int_eq(hll_set(&o, 1020, 7), 1);
    /* ... and the merge after it joins the two runs of 3 on its right */
    check_decode(o, "Z:1000 v:2,1 z:18 v:3,1 v:7,1 v:3,3 Z:15360");
    ck_assert_int_eq(hll_encoding(o), HLL_SPARSE);
    int invalid = 0;
    ck_assert_uint_eq(hll_count(o, &invalid), 6); /* six registers set */
    ck_assert_int_eq(invalid, 0);
    obj_decref(o);
}
END_TEST

START_TEST(value_above_32_promotes) {
    obj *o = hll_new();
    ck_assert_int_eq(hll_set(&o, 100, 5), 1);
    ck_assert_int_eq(hll_set(&o, 16383, 32), 1);
    ck_assert_int_eq(hll_encoding(o), HLL_SPARSE);
    ck_assert_int_eq(hll_set(&o, 200, 33), 1);
    ck_assert_int_eq(hll_encoding(o), HLL_DENSE);
    ck_assert_uint_eq(o->len, HLL_DENSE_SIZE);
    ck_assert(hll_is_valid(o));
    ck_assert(memcmp(o->data, "HYLL", 4) == 0);
    ck_assert_uint_eq(hll_dense_get(o, 100), 5);
    ck_assert_uint_eq(hll_dense_get(o, 200), 33);
    ck_assert_uint_eq(hll_dense_get(o, 16383), 32);
    ck_assert_uint_eq(hll_dense_get(o, 101), 0);
    uint64_t card;
    ck_assert(!hll_cache_get(o, &card));
    ck_assert_int_eq(hll_set(&o, 200, 50), 1);
    ck_assert_int_eq(hll_set(&o, 200, 50), 0);
    ck_assert_uint_eq(hll_dense_get(o, 200), 50);
    ck_assert_uint_eq(hll_dense_get(o, 199), 0);
    ck_assert_uint_eq(hll_dense_get(o, 201), 0);
    obj_decref(o);
}
END_TEST

START_TEST(size_limit_promotes) {
    obj *o = hll_new();
    long i;
    /* isolated registers cost 2-3 bytes each: the limit comes at ~1000 */
    for (i = 0; i < HLL_REGISTERS / 8 && hll_encoding(o) == HLL_SPARSE; i++) {
        ck_assert_uint_le(o->len, hll_sparse_max_bytes());
        ck_assert_int_eq(hll_set(&o, i * 8, (uint8_t)(1 + i % 32)), 1);
    }
    ck_assert_int_eq(hll_encoding(o), HLL_DENSE);
    ck_assert_int_gt(i, 500);
    for (long j = 0; j < i; j++) ck_assert_uint_eq(hll_dense_get(o, j * 8), (uint64_t)(1 + j % 32));
    uint8_t max[HLL_REGISTERS] = {0};
    ck_assert_int_eq(hll_merge(max, o), 0);
    ck_assert_uint_eq(max[8], 2);
    ck_assert_uint_eq(max[9], 0);
    obj_decref(o);
}
END_TEST

/* A sparse HLL whose opcodes describe 16388 registers (XZERO:16384 VAL:1,4)
 * or 16000 (XZERO:16000). */
START_TEST(corrupt_sparse) {
    const char over[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff\x83";
    const char under[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7e\x7f";
    const char *cases[] = {over, under};
    size_t lens[] = {sizeof over - 1, sizeof under - 1};
    for (int k = 0; k < 2; k++) {
        obj *o = obj_new_raw(cases[k], lens[k]);
        ck_assert(hll_is_valid(o));
        int invalid = 0;
        hll_count(o, &invalid);
        ck_assert_int_eq(invalid, 1);
        uint8_t max[HLL_REGISTERS] = {0};
        ck_assert_int_eq(hll_merge(max, o), -1);
        obj *d = o;
        obj_incref(d);
        ck_assert_int_eq(hll_to_dense(&d), -1);
        ck_assert_ptr_eq(d, o); /* untouched on failure */
        obj_decref(d);
        obj_decref(o);
    }
    /* no opcodes: no register can be found */
    obj *o = obj_new_raw("HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80", 16);
    ck_assert_int_eq(hll_add(&o, "a", 1), -1);
    ck_assert_int_eq(hll_would_change(o, "a", 1), -1);
    obj_decref(o);
    /* not HLLs */
    o = obj_new_raw("HYLL\x02\0\0\0\0\0\0\0\0\0\0\0", 16);
    ck_assert(!hll_is_valid(o));
    obj_decref(o);
    o = obj_new_int(7);
    ck_assert(!hll_is_valid(o));
    obj_decref(o);
}
END_TEST

START_TEST(estimate) {
    uint8_t regs[HLL_REGISTERS] = {0};
    ck_assert_uint_eq(hll_count_raw(regs), 0);
    /* n registers at 1 (each seen once): linear counting territory */
    for (int i = 0; i < 100; i++) regs[i * 7] = 1;
    uint64_t c = hll_count_raw(regs);
    ck_assert_msg(c >= 99 && c <= 101, "100 singletons counted %llu", (unsigned long long)c);
    long idx;
    int len = hll_pattern("hello", 5, &idx);
    ck_assert_int_ge(len, 1);
    ck_assert_int_le(len, HLL_Q + 1);
    ck_assert_int_ge(idx, 0);
    ck_assert_int_lt(idx, HLL_REGISTERS);
}
END_TEST

int main(void) {
    Suite *s = suite_create("hll");
    TCase *tc = tcase_create("hll");
    tcase_add_test(tc, sparse_layout);
    tcase_add_test(tc, value_above_32_promotes);
    tcase_add_test(tc, size_limit_promotes);
    tcase_add_test(tc, corrupt_sparse);
    tcase_add_test(tc, estimate);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
