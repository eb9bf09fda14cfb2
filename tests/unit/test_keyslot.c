/* test_keyslot: the cluster hash slot of keys (src/base/keyslot.c). The
 * expected slots are redis-server 7.0.15's CLUSTER KEYSLOT replies for the
 * same keys (a node started with cluster-enabled yes). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "keyslot.h"

static uint16_t slot(const char *k) { return key_hash_slot(k, strlen(k)); }

START_TEST(crc16_check_value) {
    /* CRC-16/XMODEM's catalogued check value */
    ck_assert_uint_eq(crc16_xmodem("123456789", 9), 0x31c3);
    ck_assert_uint_eq(crc16_xmodem("", 0), 0);
}
END_TEST

START_TEST(slots_as_redis) {
    ck_assert_uint_eq(slot("foo"), 12182);
    ck_assert_uint_eq(slot("bar"), 5061);
    ck_assert_uint_eq(slot("hello"), 866);
    ck_assert_uint_eq(slot("123456789"), 12739);
    ck_assert_uint_eq(slot(""), 0);
}
END_TEST

START_TEST(hash_tags_as_redis) {
    ck_assert_uint_eq(slot("{user1000}.following"), 3443);
    ck_assert_uint_eq(slot("{user1000}.followers"), 3443);
    ck_assert_uint_eq(slot("foo{bar}{zap}"), slot("bar")); /* the first tag */
    ck_assert_uint_eq(slot("foo{}{bar}"), 8363);           /* empty tag: whole key */
    ck_assert_uint_eq(slot("foo{{bar}}zap"), 4015);        /* the tag is "{bar" */
    ck_assert_uint_eq(slot("{}"), 15257);
    ck_assert_uint_eq(slot("a{b"), 13340);                 /* no '}' */
    ck_assert_uint_eq(slot("x}y{z}"), 8157);               /* '}' before '{' */
    ck_assert_uint_eq(slot("x}y{z}"), slot("z"));
    /* binary keys: a NUL inside the tag is hashed */
    ck_assert_uint_eq(key_hash_slot("{a\0b}", 5), crc16_xmodem("a\0b", 3) & 16383);
}
END_TEST

int main(void) {
    Suite *s = suite_create("keyslot");
    TCase *tc = tcase_create("keyslot");
    tcase_add_test(tc, crc16_check_value);
    tcase_add_test(tc, slots_as_redis);
    tcase_add_test(tc, hash_tags_as_redis);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
