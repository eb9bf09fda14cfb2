/* Integration tests: key expiry in a real server. Lazy expiry (a key read
 * after its time is gone) and active expiry (keys nobody touches leave
 * DBSIZE and INFO keyspace on their own within a couple of seconds), in
 * every database. Timings are generous: the suite also runs under ASan. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* SET prefix:i v PX ms for i < n, pipelined. */
static void set_px(redisContext *c, const char *prefix, int n, int ms)
{
    for (int i = 0; i < n; i++)
        redisAppendCommand(c, "SET %s:%d v PX %d", prefix, i, ms);
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
        freeReplyObject(r);
    }
}

/* Polls DBSIZE until it equals want; returns the ms it took, or -1 after
 * timeout_ms (scaled by h_time_scale()). */
static long long wait_dbsize(redisContext *c, long long want, int timeout_ms)
{
    timeout_ms = h_scaled_ms(timeout_ms);
    long long start = h_now_ms();
    for (;;) {
        redisReply *r = cmd(c, "DBSIZE");
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        long long n = r->integer;
        freeReplyObject(r);
        if (n == want)
            return h_now_ms() - start;
        if (h_now_ms() - start > timeout_ms)
            return -1;
        h_sleep_ms(50);
    }
}

/* k holds "5" and expired 70 ms ago. */
static void make_expired(redisContext *c)
{
    expect_status(c, "OK", "SET k 5 PX 50");
    h_sleep_ms(120);
}

START_TEST(lazy_expire_on_read)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k v PX 300");
    expect_bulk(c, "v", "GET k");
    expect_int_range(c, 1, 300, "PTTL k");
    h_sleep_ms(500);
    expect_nil(c, "GET k");
    expect_int(c, 0, "EXISTS k");
    expect_int(c, -2, "TTL k");
    expect_int(c, -2, "PTTL k");

    /* every command sees an expired key as missing */
    make_expired(c);
    expect_int(c, 0, "STRLEN k");
    make_expired(c);
    expect_bulk(c, "", "GETRANGE k 0 -1");
    make_expired(c);
    expect_nil(c, "GETDEL k");
    make_expired(c);
    expect_int(c, 1, "APPEND k x");
    expect_int(c, -1, "TTL k");                 /* a new key: no TTL */
    make_expired(c);
    expect_int(c, 1, "INCR k");
    expect_int(c, -1, "TTL k");
    make_expired(c);
    expect_int(c, 1, "SETNX k v");
    make_expired(c);
    expect_nil(c, "SET k v XX");
    make_expired(c);
    expect_int(c, 0, "PERSIST k");
    make_expired(c);
    expect_error(c, "ERR no such key", "RENAME k k2");
    expect_int(c, 0, "EXISTS k2");
}
END_TEST

/* A key expires once its time has passed, not at it (Redis's now > when):
 * polled PTTL shows 0 during the key's last millisecond before it is gone. */
START_TEST(expires_after_its_time)
{
    redisContext *c = h_c;
    int seen_zero = 0;
    for (int round = 0; round < 5 && !seen_zero; round++) {
        expect_status(c, "OK", "SET edge v PX 30");
        long long deadline = h_now_ms() + 2000;
        for (;;) {
            redisReply *r = cmd(c, "PTTL edge");
            ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
            long long v = r->integer;
            freeReplyObject(r);
            if (v == 0) seen_zero = 1;
            if (v == -2) break;
            ck_assert_msg(h_now_ms() < deadline, "edge still there after 2 s");
        }
    }
    ck_assert_msg(seen_zero, "PTTL never 0: the key went at its expire time");
}
END_TEST

START_TEST(ttl_counts_down)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k v EX 3");
    expect_int_range(c, 2, 3, "TTL k");
    h_sleep_ms(1200);
    expect_int_range(c, 1, 2, "TTL k");
    expect_int_range(c, 800, 1800, "PTTL k");
    expect_bulk(c, "v", "GET k");
}
END_TEST

START_TEST(persist_and_overwrite_cancel_expiry)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET p v PX 300");
    expect_int(c, 1, "PERSIST p");
    expect_status(c, "OK", "SET o v PX 300");
    expect_status(c, "OK", "SET o w");
    expect_status(c, "OK", "SET g v PX 300");
    expect_bulk(c, "v", "GETEX g PERSIST");
    expect_status(c, "OK", "SET x v PX 300");
    expect_bulk(c, "v", "GETEX x PX 200");      /* shortened: goes */
    h_sleep_ms(700);
    expect_bulk(c, "v", "GET p");
    expect_bulk(c, "w", "GET o");
    expect_bulk(c, "v", "GET g");
    expect_nil(c, "GET x");
    expect_int(c, 3, "DBSIZE");
}
END_TEST

START_TEST(active_expire_untouched_keys)
{
    redisContext *c = h_c;
    enum { N = 2000 };
    set_px(c, "tmp", N, h_scaled_ms(300)); /* outlasts the SETs and DBSIZE below */
    for (int i = 0; i < 500; i++)
        expect_status(c, "OK", "SET keep:%d v", i);
    expect_int(c, N + 500, "DBSIZE");
    char *info = h_info(c, "keyspace");
    char v[256];
    ck_assert_msg(h_info_field(info, "db0", v, sizeof v), "no db0 in\n%s", info);
    ck_assert_msg(strncmp(v, "keys=2500,expires=2000,", 23) == 0,
                  "db0:%s", v);
    free(info);

    /* nobody reads the tmp keys: only the active cycle can remove them */
    long long took = wait_dbsize(c, 500, 5000);
    ck_assert_msg(took >= 0, "expired keys still counted 5 s later");
    info = h_info(c, "keyspace");
    ck_assert_msg(h_info_field(info, "db0", v, sizeof v), "no db0 in\n%s", info);
    ck_assert_msg(strncmp(v, "keys=500,expires=0,", 19) == 0, "db0:%s", v);
    free(info);
}
END_TEST

START_TEST(active_expire_other_db)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SELECT 5");
    set_px(c, "tmp", 300, 200);
    expect_status(c, "OK", "SET keep v");
    long long took = wait_dbsize(c, 1, 5000);
    ck_assert_msg(took >= 0, "expired keys of db 5 still counted 5 s later");
    char *info = h_info(c, "keyspace");
    char v[256];
    ck_assert_msg(h_info_field(info, "db5", v, sizeof v), "no db5 in\n%s", info);
    ck_assert_msg(strncmp(v, "keys=1,expires=0,", 17) == 0, "db5:%s", v);
    ck_assert_msg(!h_info_field(info, "db0", v, sizeof v),
                  "db0 listed though empty: %s", v);
    free(info);
}
END_TEST

START_TEST(expired_keys_are_not_listed)
{
    redisContext *c = h_c;
    set_px(c, "tmp", 200, 100);
    expect_status(c, "OK", "SET live v");
    h_sleep_ms(300);
    redisReply *r = expect_array(c, 1, "KEYS *");
    check_bulk(r->element[0], "live");
    freeReplyObject(r);
    /* a full SCAN returns only the live key as well */
    char cursor[32] = "0";
    int found = 0;
    do {
        r = expect_array(c, 2, "SCAN %s COUNT 1000", cursor);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *k = r->element[1]->element[i]->str;
            ck_assert_msg(strcmp(k, "live") == 0, "SCAN returned '%s'", k);
            found++;
        }
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    ck_assert_int_eq(found, 1);
    expect_bulk(c, "live", "RANDOMKEY");
}
END_TEST

START_TEST(expiry_survives_rename_and_mixed_writes)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET a v PX 300");
    expect_status(c, "OK", "RENAME a b");
    expect_status(c, "OK", "SET c 1 PX 300");
    expect_int(c, 2, "INCR c");
    expect_status(c, "OK", "SET d x PX 300");
    expect_int(c, 2, "APPEND d y");
    h_sleep_ms(600);
    expect_int(c, 0, "EXISTS a b c d");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("expire");
    TCase *tc = tcase_create("expire");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, lazy_expire_on_read);
    tcase_add_test(tc, expires_after_its_time);
    tcase_add_test(tc, ttl_counts_down);
    tcase_add_test(tc, persist_and_overwrite_cancel_expiry);
    tcase_add_test(tc, active_expire_untouched_keys);
    tcase_add_test(tc, active_expire_other_db);
    tcase_add_test(tc, expired_keys_are_not_listed);
    tcase_add_test(tc, expiry_survives_rename_and_mixed_writes);
    suite_add_tcase(s, tc);
    return h_main(s);
}
