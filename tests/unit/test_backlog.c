/* test_backlog: the replication backlog ring (repl/backlog.c): what it
 * covers, what it copies back, wrap-around, resize, INFO fields. The
 * stream's offset (R.offset) is advanced here as repl_feed does. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "repl_int.h"
#include "propagate.h"

/* Appends n bytes of a recognisable pattern: byte at stream offset o is
 * 'a' + o % 26. */
static void feed(size_t n) {
    char *p = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) p[i] = (char)('a' + (R.offset + 1 + (long long)i) % 26);
    backlog_append(p, n);
    R.offset += (long long)n;
    free(p);
}

/* The bytes from offset to R.offset, checked against the pattern. */
static void check_copy(long long offset) {
    ck_assert(backlog_covers(offset));
    vbuf b;
    vbuf_init(&b);
    backlog_copy_from(offset, &b);
    ck_assert_uint_eq(b.len, (size_t)(R.offset + 1 - offset));
    for (size_t i = 0; i < b.len; i++)
        ck_assert_int_eq(b.data[i], 'a' + (offset + (long long)i) % 26);
    vbuf_free(&b);
}

static void setup(void) {
    backlog_free();
    R.offset = 1000;
    server.cfg.repl_backlog_size = 100;
}

START_TEST(empty_backlog_covers_nothing) {
    ck_assert_int_eq(backlog_exists(), 0);
    ck_assert_int_eq(backlog_covers(1001), 0);
    backlog_create();
    ck_assert_int_eq(backlog_exists(), 1);
    /* a new backlog covers exactly the next byte (a replica at our offset) */
    ck_assert_int_eq(backlog_covers(1001), 1);
    ck_assert_int_eq(backlog_covers(1000), 0);
    ck_assert_int_eq(backlog_covers(1002), 0);
    check_copy(1001); /* nothing to send */
}
END_TEST

/* The propagation consumer lives as long as the backlog (a replica's
 * backlog too: promoted, it feeds the stream from its first command). */
START_TEST(consumer_follows_the_backlog) {
    ck_assert_int_eq(prop_active(), 0);
    backlog_create();
    ck_assert_int_eq(prop_active(), 1);
    backlog_create(); /* exists: nothing more registered (prop_add asserts) */
    backlog_free();
    ck_assert_int_eq(prop_active(), 0);
}
END_TEST

START_TEST(covers_and_copies_before_wrap) {
    backlog_create();
    feed(30);
    ck_assert_int_eq(backlog_covers(1000), 0);
    for (long long o = 1001; o <= 1031; o++) check_copy(o);
    ck_assert_int_eq(backlog_covers(1032), 0);
}
END_TEST

START_TEST(wraps_around) {
    backlog_create();
    for (int i = 0; i < 37; i++) feed(7); /* 259 bytes through a 100-byte ring */
    ck_assert_int_eq(R.offset, 1259);
    ck_assert_int_eq(backlog_covers(1159), 0);
    for (long long o = 1160; o <= 1260; o++) check_copy(o);
    ck_assert_int_eq(backlog_covers(1261), 0);
}
END_TEST

START_TEST(append_bigger_than_ring) {
    backlog_create();
    feed(5);
    feed(250);
    ck_assert_int_eq(backlog_covers(1155), 0);
    check_copy(1156);
    feed(3);
    check_copy(1159);
    ck_assert_int_eq(backlog_covers(1158), 0);
}
END_TEST

START_TEST(resize_keeps_the_tail) {
    backlog_create();
    feed(90);
    backlog_resize(40);
    ck_assert_int_eq(backlog_covers(1050), 0);
    check_copy(1051);
    feed(25); /* wraps in the new ring */
    check_copy(1076);
    ck_assert_int_eq(backlog_covers(1075), 0);
    backlog_resize(500);
    check_copy(1076);
    feed(300);
    check_copy(1076);
}
END_TEST

START_TEST(new_history_empties_it) {
    backlog_create();
    feed(20);
    R.offset = 5000; /* a replica's full sync set a new offset */
    ck_assert_int_eq(backlog_covers(1001), 0);
    ck_assert_int_eq(backlog_covers(5001), 1);
    feed(10);
    check_copy(5001);
}
END_TEST

START_TEST(info_fields) {
    vbuf b;
    vbuf_init(&b);
    backlog_info(&b);
    vbuf_append(&b, "", 1);
    ck_assert_str_eq(b.data, "repl_backlog_active:0\r\nrepl_backlog_size:100\r\n"
                             "repl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n");
    b.len = 0;
    backlog_create();
    feed(150);
    backlog_info(&b);
    vbuf_append(&b, "", 1);
    ck_assert_str_eq(b.data, "repl_backlog_active:1\r\nrepl_backlog_size:100\r\n"
                             "repl_backlog_first_byte_offset:1051\r\nrepl_backlog_histlen:100\r\n");
    vbuf_free(&b);
}
END_TEST

int main(void) {
    Suite *s = suite_create("backlog");
    TCase *tc = tcase_create("backlog");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_add_test(tc, empty_backlog_covers_nothing);
    tcase_add_test(tc, consumer_follows_the_backlog);
    tcase_add_test(tc, covers_and_copies_before_wrap);
    tcase_add_test(tc, wraps_around);
    tcase_add_test(tc, append_bigger_than_ring);
    tcase_add_test(tc, resize_keeps_the_tail);
    tcase_add_test(tc, new_history_empties_it);
    tcase_add_test(tc, info_fields);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
