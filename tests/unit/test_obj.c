/* Unit tests for obj: encodings, sharing and copy-on-write, and the
 * number helpers of util that values rely on. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "info.h"
#include "obj.h"
#include "util.h"

START_TEST(test_int_encoding) {
    obj *o = obj_new_value("12345", 5);
    ck_assert_int_eq(o->enc, OBJ_ENC_INT);
    char buf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, buf, &len);
    ck_assert_uint_eq(len, 5);
    ck_assert(memcmp(s, "12345", 5) == 0);
    long long v;
    ck_assert(obj_get_ll(o, &v));
    ck_assert_int_eq(v, 12345);
    obj_decref(o);
    /* not canonical: stays raw, and is not an integer */
    const char *raw[] = {"012", "+1", " 1", "1 ", "", "-0", "99999999999999999999", "1.5"};
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++) {
        o = obj_new_value(raw[i], strlen(raw[i]));
        ck_assert_int_eq(o->enc, OBJ_ENC_RAW);
        ck_assert(!obj_get_ll(o, &v));
        ck_assert(obj_eq_bytes(o, raw[i], strlen(raw[i])));
        obj_decref(o);
    }
    o = obj_new_value("-9223372036854775808", 20);
    ck_assert_int_eq(o->enc, OBJ_ENC_INT);
    ck_assert(obj_get_ll(o, &v) && v == LLONG_MIN);
    ck_assert_uint_eq(obj_strlen(o), 20);
    obj_decref(o);
}
END_TEST

START_TEST(test_writable_unshared_in_place) {
    obj *o = obj_new_raw("abc", 3);
    o = obj_writable(o, 6);
    obj_raw_append(o, "def", 3);
    ck_assert(obj_eq_bytes(o, "abcdef", 6));
    obj *same = obj_writable(o, 7);
    ck_assert_ptr_eq(same, o); /* room left: changed in place */
    obj_decref(same);
}
END_TEST

START_TEST(test_writable_shared_copies) {
    obj *o = obj_new_raw("abc", 3);
    obj_incref(o); /* a second holder, as the serializer would be */
    ck_assert(obj_shared(o));
    obj *w = obj_writable(o, 10);
    ck_assert_ptr_ne(w, o);
    obj_raw_append(w, "xyz", 3);
    ck_assert(obj_eq_bytes(o, "abc", 3)); /* the shared one is untouched */
    ck_assert(obj_eq_bytes(w, "abcxyz", 6));
    ck_assert(!obj_shared(o));            /* our reference was dropped */
    obj_decref(o);
    obj_decref(w);
}
END_TEST

START_TEST(test_writable_from_int) {
    obj *o = obj_new_int(42);
    o = obj_writable(o, 4);
    ck_assert_int_eq(o->enc, OBJ_ENC_RAW);
    obj_raw_append(o, "!", 1);
    ck_assert(obj_eq_bytes(o, "42!", 3));
    obj_decref(o);
}
END_TEST

START_TEST(test_number_helpers) {
    char buf[5 * 1024];
    long long v;
    ck_assert(str_to_ll("9223372036854775807", 19, &v) && v == LLONG_MAX);
    ck_assert(!str_to_ll("9223372036854775808", 19, &v));
    ck_assert(!str_to_ll("-", 1, &v));
    ck_assert_uint_eq(ll_to_str(buf, LLONG_MIN), 20);
    ck_assert_str_eq(buf, "-9223372036854775808");
    long double d;
    ck_assert(str_to_ld("10.5", 4, &d));
    ld_to_str(buf, sizeof buf, d + 0.1L);
    ck_assert_str_eq(buf, "10.6");
    ld_to_str(buf, sizeof buf, 5.0e3L);
    ck_assert_str_eq(buf, "5000");
    ck_assert(!str_to_ld("abc", 3, &d));
    ck_assert(!str_to_ld(" 1", 2, &d));
    long long m;
    ck_assert(str_to_memsize("1gb", &m) && m == 1073741824LL);
    ck_assert(str_to_memsize("1k", &m) && m == 1000);
    ck_assert(!str_to_memsize("1xb", &m));
    ck_assert(glob_match("h?llo*", 6, "hello world", 11, 0));
    ck_assert(glob_match("h[a-e]llo", 9, "hello", 5, 0));
    ck_assert(!glob_match("h[^e]llo", 9, "hello", 5, 0));
    ck_assert(glob_match("HELLO", 5, "hello", 5, 1));
    ck_assert(!glob_match("a*b", 3, "acd", 3, 0));
    ck_assert(glob_match("a\\*b", 4, "a*b", 3, 0));
    ck_assert(!glob_match("a\\*b", 4, "axb", 3, 0));
    ck_assert(glob_match("*[0-9]", 6, "abc5", 4, 0));
    /* A pattern that is exponential for a naive recursive matcher (the
     * Check timeout fails the test if it hangs). */
    char text[4096];
    memset(text, 'a', sizeof text);
    const char *evil = "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
    ck_assert(!glob_match(evil, strlen(evil), text, sizeof text, 0));
}
END_TEST

/* Lengths past 4 GiB are kept whole (they were uint32_t: finding 2). The
 * value is calloc'd zero pages, so this costs little resident memory. */
/* obj_mem_total counts in the allocator's unit (what info_allocated, and
 * so INFO used_memory, reads from it): jemalloc's size classes, glibc's
 * chunks, ASan's requested bytes. 100k key-sized objects: a wrong unit (a
 * chunk header that jemalloc does not have: 8 of 48 bytes) shows as 16 %. */
START_TEST(test_accounting_matches_allocator) {
    enum { N = 100000 };
    obj **v = malloc(N * sizeof *v);
    ck_assert_ptr_nonnull(v);
    size_t a0 = info_allocated(), o0 = obj_mem_total();
    for (int i = 0; i < N; i++) {
        char key[32];
        int n = snprintf(key, sizeof key, "key:%012d", i);
        v[i] = obj_new_raw(key, (size_t)n);
    }
    double da = (double)(info_allocated() - a0), dobj = (double)(obj_mem_total() - o0);
    ck_assert_msg(dobj >= N * 17.0, "objects counted %.0f bytes", dobj);
    ck_assert_msg(da > dobj * 0.97 && da < dobj * 1.03,
                  "allocator grew by %.0f bytes, objects counted %.0f", da, dobj);
    for (int i = 0; i < N; i++) obj_decref(v[i]);
    ck_assert_uint_eq(obj_mem_total(), o0);
    free(v);
}
END_TEST

START_TEST(test_len_over_4gib) {
    size_t n = ((size_t)1 << 32) + 10;
    obj *o = obj_new_zeroed(n);
    ck_assert_uint_eq(obj_strlen(o), n);
    char buf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, buf, &len);
    ck_assert_uint_eq(len, n);
    ck_assert_int_eq(s[n - 1], 0);
    ck_assert_int_eq(s[n], 0);
    ck_assert_uint_ge(obj_mem(o), n + 1);
    /* unshared with room: edited in place (the growth past 4 GiB is
     * test_biglen's: a 4 GiB realloc is a copy under ASan) */
    ck_assert_ptr_eq(obj_writable(o, n), o);
    o->len = n - 3;
    obj_raw_append(o, "xyz", 3);
    ck_assert_uint_eq(obj_strlen(o), n);
    ck_assert(memcmp(o->data + n - 4, "\0xyz", 5) == 0);
    obj_decref(o);
}
END_TEST

int main(void) {
    Suite *s = suite_create("obj");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_int_encoding);
    tcase_add_test(tc, test_writable_unshared_in_place);
    tcase_add_test(tc, test_writable_shared_copies);
    tcase_add_test(tc, test_writable_from_int);
    tcase_add_test(tc, test_number_helpers);
    tcase_add_test(tc, test_accounting_matches_allocator);
    suite_add_tcase(s, tc);
    /* Its own case with room: a 4 GiB calloc under ASan on a busy machine
     * takes seconds (shadow memory), over Check's 4 s default. */
    TCase *big = tcase_create("big");
    tcase_set_timeout(big, 120);
    tcase_add_test(big, test_len_over_4gib);
    suite_add_tcase(s, big);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
