/* Integration tests: keyspace commands (DEL UNLINK EXISTS TYPE KEYS SCAN
 * RANDOMKEY RENAME RENAMENX EXPIRE PEXPIRE EXPIREAT PEXPIREAT EXPIRETIME
 * PEXPIRETIME TTL PTTL PERSIST DBSIZE SELECT FLUSHDB FLUSHALL SWAPDB) against a
 * real server, with the replies and error texts of Redis 7.0. */
#include "harness.h"
#include "testcmp.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_NX_XX "ERR NX and XX, GT or LT options at the same time are not compatible"
#define ERR_GT_LT "ERR GT and LT options at the same time are not compatible"

/* MSET prefix:0 .. prefix:n-1 (values "v<i>") in batches. */
static void fill(redisContext *c, const char *prefix, int n)
{
    enum { BATCH = 500 };
    const char *argv[1 + 2 * BATCH];
    char bufs[2 * BATCH][48];
    for (int base = 0; base < n; base += BATCH) {
        int argc = 0;
        argv[argc++] = "MSET";
        for (int i = base; i < n && i < base + BATCH; i++) {
            char *k = bufs[argc - 1], *v = bufs[argc];
            snprintf(k, 48, "%s:%d", prefix, i);
            snprintf(v, 48, "v%d", i);
            argv[argc++] = k;
            argv[argc++] = v;
        }
        redisReply *r = redisCommandArgv(c, argc, argv, NULL);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
        freeReplyObject(r);
    }
}

/* KEYS pattern, sorted and joined with ' ' into out. */
static void keys_sorted(redisContext *c, const char *pattern, char *out,
                        size_t cap)
{
    redisReply *r = expect_array(c, -1, "KEYS %s", pattern);
    char **names = calloc(r->elements + 1, sizeof *names);
    for (size_t i = 0; i < r->elements; i++)
        names[i] = r->element[i]->str;
    qsort(names, r->elements, sizeof *names, cmp_str);
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < r->elements && o < cap; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? " " : "", names[i]);
    free(names);
    freeReplyObject(r);
}

START_TEST(del_unlink_exists_type)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "MSET a 1 b 2 c 3 d 4");
    expect_int(c, 3, "EXISTS a b nokey a");
    expect_int(c, 0, "EXISTS nokey");
    expect_int(c, 1, "DEL a nokey");
    expect_int(c, 0, "DEL a");
    expect_int(c, 2, "UNLINK b c nokey");
    expect_int(c, 1, "DEL d d");
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "SET k v");
    expect_status(c, "string", "TYPE k");
    expect_status(c, "none", "TYPE nokey");
    expect_error(c, "ERR wrong number of arguments for 'del' command", "DEL");
    expect_error(c, "ERR wrong number of arguments for 'unlink' command",
                 "UNLINK");
    expect_error(c, "ERR wrong number of arguments for 'exists' command",
                 "EXISTS");
    expect_error(c, "ERR wrong number of arguments for 'type' command", "TYPE");
    expect_error(c, "ERR wrong number of arguments for 'type' command",
                 "TYPE a b");
}
END_TEST

START_TEST(keys_patterns)
{
    redisContext *c = h_c;
    char got[512];
    expect_status(c, "OK", "MSET foo 1 foobar 2 bar 3 hello 4 hallo 5 hxllo 6");
    expect_status(c, "OK", "MSET %s 7 %s 8", "a*b", "axb");
    keys_sorted(c, "*", got, sizeof got);
    ck_assert_str_eq(got, "a*b axb bar foo foobar hallo hello hxllo");
    keys_sorted(c, "foo*", got, sizeof got);
    ck_assert_str_eq(got, "foo foobar");
    keys_sorted(c, "*bar", got, sizeof got);
    ck_assert_str_eq(got, "bar foobar");
    keys_sorted(c, "h?llo", got, sizeof got);
    ck_assert_str_eq(got, "hallo hello hxllo");
    keys_sorted(c, "h[ae]llo", got, sizeof got);
    ck_assert_str_eq(got, "hallo hello");
    keys_sorted(c, "h[^e]llo", got, sizeof got);
    ck_assert_str_eq(got, "hallo hxllo");
    keys_sorted(c, "h[a-f]llo", got, sizeof got);
    ck_assert_str_eq(got, "hallo hello");
    keys_sorted(c, "a\\*b", got, sizeof got);
    ck_assert_str_eq(got, "a*b");
    keys_sorted(c, "nomatch*", got, sizeof got);
    ck_assert_str_eq(got, "");
    expect_error(c, "ERR wrong number of arguments for 'keys' command", "KEYS");

    /* keys that expired are not listed, even before they are collected */
    expect_status(c, "OK", "SET gone v PX 50");
    h_sleep_ms(150);
    keys_sorted(c, "g*", got, sizeof got);
    ck_assert_str_eq(got, "");
}
END_TEST

/* Runs a SCAN iteration to the end with the given options; marks key:<i>
 * in seen[]; fails on a key outside key:0..n-1. Returns the calls made. */
static int scan_all(redisContext *c, const char *opts, char *seen, int n)
{
    char cursor[32] = "0", fmt[128];
    int calls = 0;
    snprintf(fmt, sizeof fmt, "SCAN %%s %s", opts); /* opts: no '%' */
    do {
        redisReply *r = expect_array(c, 2, fmt, cursor);
        ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_STRING);
        ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_ARRAY);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *k = r->element[1]->element[i]->str;
            int idx = -1;
            ck_assert_msg(sscanf(k, "key:%d", &idx) == 1 && idx >= 0 && idx < n,
                          "SCAN %s returned unexpected key '%s'", opts, k);
            seen[idx] = 1;
        }
        freeReplyObject(r);
        ck_assert_msg(++calls < 100000, "SCAN does not end");
    } while (strcmp(cursor, "0") != 0);
    return calls;
}

START_TEST(scan_full_iteration)
{
    redisContext *c = h_c;
    enum { N = 10000 };
    fill(c, "key", N);
    expect_int(c, N, "DBSIZE");
    char *seen = calloc(N, 1);
    int calls = scan_all(c, "COUNT 100", seen, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(seen[i], "SCAN COUNT 100 missed key:%d", i);
    ck_assert_int_gt(calls, 10);   /* COUNT is a hint, but not "all at once" */

    memset(seen, 0, N);
    scan_all(c, "", seen, N);      /* default COUNT 10 */
    for (int i = 0; i < N; i++)
        ck_assert_msg(seen[i], "SCAN missed key:%d", i);

    memset(seen, 0, N);
    scan_all(c, "COUNT 1000 TYPE string", seen, N);
    for (int i = 0; i < N; i++)
        ck_assert_msg(seen[i], "SCAN TYPE string missed key:%d", i);
    free(seen);
}
END_TEST

START_TEST(scan_match_type_errors)
{
    redisContext *c = h_c;
    fill(c, "key", 50);
    fill(c, "other", 50);
    char seen[50] = { 0 };
    scan_all(c, "MATCH key:* COUNT 20", seen, 50);
    for (int i = 0; i < 50; i++)
        ck_assert_msg(seen[i], "SCAN MATCH missed key:%d", i);

    /* no key is of type list: the iteration returns nothing */
    char cursor[32] = "0";
    do {
        redisReply *r = expect_array(c, 2, "SCAN %s TYPE list COUNT 50", cursor);
        ck_assert_uint_eq(r->element[1]->elements, 0);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);

    redisReply *r = expect_array(c, 2, "SCAN 0 MATCH nomatch:* COUNT 1000");
    ck_assert_str_eq(r->element[0]->str, "0");
    ck_assert_uint_eq(r->element[1]->elements, 0);
    freeReplyObject(r);

    expect_error(c, "ERR invalid cursor", "SCAN abc");
    expect_error(c, ERR_SYNTAX, "SCAN 0 COUNT 0");
    expect_error(c, ERR_SYNTAX, "SCAN 0 COUNT -1");
    expect_error(c, ERR_INT, "SCAN 0 COUNT abc");
    expect_error(c, ERR_SYNTAX, "SCAN 0 MATCH");
    expect_error(c, ERR_SYNTAX, "SCAN 0 TYPE");
    expect_error(c, ERR_SYNTAX, "SCAN 0 FOO bar");
    expect_error(c, "ERR wrong number of arguments for 'scan' command", "SCAN");
}
END_TEST

START_TEST(randomkey)
{
    redisContext *c = h_c;
    expect_nil(c, "RANDOMKEY");
    expect_status(c, "OK", "SET only v");
    expect_bulk(c, "only", "RANDOMKEY");
    expect_status(c, "OK", "MSET a 1 b 2 c 3");
    int seen[4] = { 0 };
    for (int i = 0; i < 200; i++) {
        redisReply *r = cmd(c, "RANDOMKEY");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        const char *names[] = { "only", "a", "b", "c" };
        int found = 0;
        for (int j = 0; j < 4; j++)
            if (strcmp(r->str, names[j]) == 0)
                seen[j] = found = 1;
        ck_assert_msg(found, "RANDOMKEY returned '%s'", r->str);
        freeReplyObject(r);
    }
    ck_assert_int_ge(seen[0] + seen[1] + seen[2] + seen[3], 3);
    expect_error(c, "ERR wrong number of arguments for 'randomkey' command",
                 "RANDOMKEY x");
}
END_TEST

START_TEST(rename_renamenx)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET a 1 EX 100");
    expect_status(c, "OK", "RENAME a b");
    expect_int(c, 0, "EXISTS a");
    expect_bulk(c, "1", "GET b");
    expect_int_range(c, 98, 100, "TTL b");      /* the TTL moves along */
    expect_error(c, "ERR no such key", "RENAME nokey x");
    expect_error(c, "ERR no such key", "RENAME nokey nokey");
    expect_status(c, "OK", "RENAME b b");
    expect_bulk(c, "1", "GET b");

    expect_status(c, "OK", "SET x old EX 100");
    expect_status(c, "OK", "SET y new");
    expect_status(c, "OK", "RENAME y x");       /* overwrites, TTL of y (none) */
    expect_bulk(c, "new", "GET x");
    expect_int(c, -1, "TTL x");
    expect_int(c, 2, "DBSIZE");

    expect_int(c, 0, "RENAMENX b x");
    expect_bulk(c, "1", "GET b");
    expect_int(c, 1, "RENAMENX b z");
    expect_int(c, 0, "EXISTS b");
    expect_bulk(c, "1", "GET z");
    expect_error(c, "ERR no such key", "RENAMENX nokey q");
    expect_error(c, "ERR wrong number of arguments for 'rename' command",
                 "RENAME a");
    expect_error(c, "ERR wrong number of arguments for 'renamenx' command",
                 "RENAMENX a");
}
END_TEST

START_TEST(expire_ttl_persist)
{
    redisContext *c = h_c;
    long long now = (long long)time(NULL);
    expect_status(c, "OK", "SET k v");
    expect_int(c, -1, "TTL k");
    expect_int(c, -1, "PTTL k");
    expect_int(c, -1, "EXPIRETIME k");
    expect_int(c, -1, "PEXPIRETIME k");
    expect_int(c, -2, "TTL nokey");
    expect_int(c, -2, "PTTL nokey");
    expect_int(c, -2, "EXPIRETIME nokey");
    expect_int(c, -2, "PEXPIRETIME nokey");
    expect_int(c, 0, "EXPIRE nokey 10");
    expect_int(c, 0, "PERSIST nokey");

    expect_int(c, 1, "EXPIRE k 100");
    expect_int_range(c, 98, 100, "TTL k");
    expect_int_range(c, now + 98, now + 101, "EXPIRETIME k");
    expect_int(c, 1, "PEXPIRE k 200000");
    expect_int_range(c, 198000, 200000, "PTTL k");
    expect_int(c, 1, "EXPIREAT k %lld", now + 300);
    expect_int(c, now + 300, "EXPIRETIME k");
    expect_int(c, (now + 300) * 1000, "PEXPIRETIME k");
    expect_int(c, 1, "PEXPIREAT k %lld", (now + 400) * 1000 + 123);
    expect_int(c, (now + 400) * 1000 + 123, "PEXPIRETIME k");
    expect_int(c, now + 400, "EXPIRETIME k");
    expect_int(c, 1, "PERSIST k");
    expect_int(c, 0, "PERSIST k");
    expect_int(c, -1, "TTL k");

    /* a time not in the future deletes the key at once */
    const char *past[] = { "EXPIRE k 0", "EXPIRE k -1", "PEXPIRE k -100",
                           "EXPIREAT k 1", "PEXPIREAT k 1000" };
    for (size_t i = 0; i < sizeof past / sizeof past[0]; i++) {
        expect_status(c, "OK", "SET k v");
        expect_int(c, 1, past[i]);
        expect_int(c, 0, "EXISTS k");
        expect_int(c, -2, "TTL k");
    }

    expect_status(c, "OK", "SET k v");
    expect_error(c, ERR_INT, "EXPIRE k abc");
    expect_error(c, ERR_INT, "PEXPIREAT k 1.5");
    expect_error(c, "ERR invalid expire time in 'expire' command",
                 "EXPIRE k 9223372036854775807");
    expect_error(c, "ERR invalid expire time in 'pexpire' command",
                 "PEXPIRE k 9223372036854775807");
    expect_error(c, "ERR invalid expire time in 'expireat' command",
                 "EXPIREAT k 9223372036854775807");
    expect_int(c, -1, "TTL k");
    expect_error(c, "ERR wrong number of arguments for 'expire' command",
                 "EXPIRE k");
    expect_error(c, "ERR wrong number of arguments for 'ttl' command", "TTL");
    expect_error(c, "ERR wrong number of arguments for 'persist' command",
                 "PERSIST");
}
END_TEST

START_TEST(expire_nx_xx_gt_lt)
{
    redisContext *c = h_c;
    long long now = (long long)time(NULL);
    expect_status(c, "OK", "SET k v");
    expect_int(c, 0, "EXPIRE k 100 XX");        /* no TTL yet */
    expect_int(c, 0, "EXPIRE k 100 GT");        /* none counts as infinite */
    expect_int(c, -1, "TTL k");
    expect_int(c, 1, "EXPIRE k 100 NX");
    expect_int(c, 0, "EXPIRE k 200 NX");
    expect_int_range(c, 98, 100, "TTL k");
    expect_int(c, 1, "EXPIRE k 200 XX");
    expect_int(c, 1, "EXPIRE k 300 GT");
    expect_int(c, 0, "EXPIRE k 50 GT");
    expect_int_range(c, 298, 300, "TTL k");
    expect_int(c, 1, "EXPIRE k 50 LT");
    expect_int(c, 0, "EXPIRE k 500 LT");
    expect_int_range(c, 48, 50, "TTL k");
    expect_int(c, 1, "PEXPIRE k 40000 xx lt");
    expect_int(c, 0, "PEXPIREAT k %lld gt", (now + 10) * 1000);
    expect_int(c, 1, "EXPIREAT k %lld GT", now + 1000);
    expect_int_range(c, 997, 1001, "TTL k");

    expect_status(c, "OK", "SET p v");
    expect_int(c, 1, "EXPIRE p 100 LT");        /* infinite > 100 */
    expect_int_range(c, 98, 100, "TTL p");

    expect_error(c, ERR_NX_XX, "EXPIRE k 10 NX XX");
    expect_error(c, ERR_NX_XX, "EXPIRE k 10 NX GT");
    expect_error(c, ERR_NX_XX, "PEXPIRE k 10 NX LT");
    expect_error(c, ERR_GT_LT, "EXPIRE k 10 GT LT");
    expect_error(c, ERR_GT_LT, "PEXPIREAT k 10 GT LT");
    expect_error(c, "ERR Unsupported option foo", "EXPIRE k 10 foo");
    expect_error(c, "ERR Unsupported option FOO", "EXPIREAT k 10 FOO");
    expect_int_range(c, 997, 1001, "TTL k");
}
END_TEST

START_TEST(dbsize_select)
{
    redisContext *c = h_c;
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "MSET a 1 b 2");
    expect_int(c, 2, "DBSIZE");
    expect_status(c, "OK", "SELECT 1");
    expect_int(c, 0, "DBSIZE");
    expect_nil(c, "GET a");
    expect_status(c, "OK", "SET a one");
    expect_status(c, "OK", "SELECT 15");
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "SELECT 0");
    expect_bulk(c, "1", "GET a");
    expect_error(c, "ERR DB index is out of range", "SELECT 16");
    expect_error(c, "ERR DB index is out of range", "SELECT -1");
    expect_error(c, ERR_INT, "SELECT abc");
    expect_error(c, "ERR wrong number of arguments for 'select' command",
                 "SELECT");
    expect_error(c, "ERR wrong number of arguments for 'dbsize' command",
                 "DBSIZE x");
    expect_bulk(c, "1", "GET a");               /* a failed SELECT stays in 0 */

    /* each connection has its own current database */
    redisContext *c2 = srv_connect(h_srv);
    expect_status(c2, "OK", "SELECT 1");
    expect_bulk(c2, "one", "GET a");
    expect_bulk(c, "1", "GET a");
    redisFree(c2);
}
END_TEST

START_TEST(databases_config)
{
    srv *s = srv_start("--databases 4");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SELECT 3");
    expect_error(c, "ERR DB index is out of range", "SELECT 4");
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(flushdb_flushall)
{
    redisContext *c = h_c;
    const char *variants[][2] = { { "FLUSHDB", "FLUSHALL" },
                                  { "FLUSHDB ASYNC", "FLUSHALL ASYNC" },
                                  { "flushdb sync", "flushall sync" } };
    for (int v = 0; v < 3; v++) {
        expect_status(c, "OK", "SELECT 0");
        fill(c, "key", 100);
        expect_status(c, "OK", "SELECT 2");
        fill(c, "key", 10);
        expect_status(c, "OK", "SELECT 0");
        expect_status(c, "OK", variants[v][0]);
        expect_int(c, 0, "DBSIZE");
        expect_status(c, "OK", "SELECT 2");
        expect_int(c, 10, "DBSIZE");            /* FLUSHDB: only the current */
        expect_status(c, "OK", "SELECT 0");
        fill(c, "key", 5);
        expect_status(c, "OK", variants[v][1]);
        expect_int(c, 0, "DBSIZE");
        expect_status(c, "OK", "SELECT 2");
        expect_int(c, 0, "DBSIZE");
        expect_nil(c, "GET key:1");
    }
    expect_error(c, ERR_SYNTAX, "FLUSHDB foo");
    expect_error(c, ERR_SYNTAX, "FLUSHALL foo");
    expect_error(c, ERR_SYNTAX, "FLUSHDB ASYNC SYNC");
    expect_error(c, ERR_SYNTAX, "FLUSHALL ASYNC SYNC");
    /* the keyspace works as before after a flush */
    expect_status(c, "OK", "SET after v");
    expect_bulk(c, "v", "GET after");
}
END_TEST

START_TEST(swapdb_basic)
{
    redisContext *c = h_c;
    expect_error(c, "ERR invalid first DB index", "SWAPDB a 1");
    expect_error(c, "ERR invalid first DB index", "SWAPDB 1.5 1");
    expect_error(c, "ERR invalid first DB index", "SWAPDB 99999999999 1");
    expect_error(c, "ERR invalid second DB index", "SWAPDB 0 b");
    expect_error(c, "ERR DB index is out of range", "SWAPDB 0 16");
    expect_error(c, "ERR DB index is out of range", "SWAPDB -1 0");
    expect_error(c, "ERR wrong number of arguments for 'swapdb' command", "SWAPDB 0");
    expect_status(c, "OK", "SET a 1");
    expect_status(c, "OK", "SET t x PX 100000");
    expect_status(c, "OK", "SELECT 1");
    expect_status(c, "OK", "MSET b 2 c 3");
    expect_status(c, "OK", "SWAPDB 1 1");               /* the same: nothing moves */
    expect_int(c, 2, "DBSIZE");
    expect_status(c, "OK", "SWAPDB 0 1");
    /* the client stays in db 1, which now holds db 0's keys */
    expect_int(c, 2, "DBSIZE");
    expect_bulk(c, "1", "GET a");
    expect_int_range(c, 1, 100000, "PTTL t");
    expect_nil(c, "GET b");
    expect_status(c, "OK", "SELECT 0");
    expect_bulk(c, "2", "GET b");
    expect_bulk(c, "3", "GET c");
    expect_nil(c, "GET a");
    /* writes go to the swapped tables; swapping back restores the layout */
    expect_status(c, "OK", "SET d 4");
    expect_status(c, "OK", "SWAPDB 1 0");
    expect_bulk(c, "1", "GET a");
    expect_status(c, "OK", "SELECT 1");
    expect_bulk(c, "4", "GET d");
    expect_int(c, 3, "DBSIZE");
}
END_TEST

/* WATCH: a watched key of either database that exists in either table
 * before or after fails EXEC; other databases' watchers do not. */
START_TEST(swapdb_watch)
{
    redisContext *c = h_c, *w1 = srv_connect(h_srv), *w2 = srv_connect(h_srv),
                 *w3 = srv_connect(h_srv);
    expect_status(c, "OK", "SET k v");                   /* db 0 */
    expect_status(w1, "OK", "SELECT 1");
    expect_status(w1, "OK", "WATCH k");                  /* absent in db 1: appears */
    expect_status(w2, "OK", "WATCH k");                  /* db 0's k: goes away */
    expect_status(w3, "OK", "SELECT 2");
    expect_status(w3, "OK", "WATCH k");                  /* db 2: untouched */
    expect_status(c, "OK", "SWAPDB 0 1");
    redisContext *all[] = { w1, w2, w3 };
    for (int i = 0; i < 3; i++) {
        expect_status(all[i], "OK", "MULTI");
        expect_status(all[i], "QUEUED", "PING");
    }
    expect_nil(w1, "EXEC");
    expect_nil(w2, "EXEC");
    redisReply *r = expect_array(w3, 1, "EXEC");
    freeReplyObject(r);
    /* a watched key absent from both tables: EXEC runs */
    expect_status(w1, "OK", "WATCH nothere");
    expect_status(c, "OK", "SWAPDB 0 1");
    expect_status(w1, "OK", "MULTI");
    expect_status(w1, "QUEUED", "PING");
    r = expect_array(w1, 1, "EXEC");
    freeReplyObject(r);
    redisFree(w1);
    redisFree(w2);
    redisFree(w3);
}
END_TEST

/* A client blocked on a key of db 1 is served when SWAPDB brings a table
 * that has it; one blocked on a key neither table has stays blocked. */
START_TEST(swapdb_wakes_blocked)
{
    redisContext *c = h_c, *b = srv_connect(h_srv), *b2 = srv_connect(h_srv);
    expect_int(c, 2, "RPUSH l x y");                     /* db 0 */
    expect_status(b, "OK", "SELECT 1");
    expect_status(b2, "OK", "SELECT 1");
    h_send(b, "BLPOP l 10");
    h_send(b2, "BLPOP other 1");
    h_wait_info(c, "clients", "blocked_clients", 2, 5000);
    expect_status(c, "OK", "SWAPDB 0 1");
    redisReply *r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, 2);
    check_bulk(r->element[0], "l");
    check_bulk(r->element[1], "x");
    freeReplyObject(r);
    expect_status(c, "OK", "SELECT 1");
    expect_int(c, 1, "LLEN l");
    r = h_next_reply(b2);                                /* its timeout */
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    redisFree(b);
    redisFree(b2);
}
END_TEST

/* SWAPDB while a background save runs: the file is the dataset of the
 * instant BGSAVE started (db 0 and db 1 as they were then), whatever the
 * swap and the writes after it did. */
START_TEST(swapdb_during_save)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    enum { N0 = 300000, N1 = 1000 };
    expect_status(c, "OK", "DEBUG POPULATE %d a", N0);
    expect_status(c, "OK", "SELECT 1");
    expect_status(c, "OK", "DEBUG POPULATE %d b", N1);
    expect_status(c, "OK", "SET only1 one");
    expect_status(c, "OK", "SELECT 0");
    /* one batch: the swap and the writes run while the save has just begun */
    redisAppendCommand(c, "BGSAVE");
    redisAppendCommand(c, "SWAPDB 0 1");
    redisAppendCommand(c, "INFO persistence");
    redisAppendCommand(c, "SET only1 changed");          /* db 0 now: db 1's table */
    redisAppendCommand(c, "DEL b:1 b:2");
    redisAppendCommand(c, "SELECT 1");
    redisAppendCommand(c, "DEL a:1 a:2");                /* db 1 now: db 0's table */
    redisAppendCommand(c, "SET a:3 changed");
    redisAppendCommand(c, "SET new1 x");
    const char *want[] = { "Background saving started", "OK", NULL, "OK", NULL, "OK",
                           NULL, "OK", "OK" };
    for (int i = 0; i < 9; i++) {
        redisReply *r = h_next_reply(c);
        if (i == 2) {
            char buf[16];
            ck_assert(h_info_field(r->str, "rdb_bgsave_in_progress", buf, sizeof buf));
            ck_assert_str_eq(buf, "1");                  /* the swap ran during the save */
        } else if (i == 4 || i == 6) {
            ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
            ck_assert_int_eq(r->integer, 2);
        } else {
            ck_assert_str_eq(r->str, want[i]);
        }
        freeReplyObject(r);
    }
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 60000);
    char buf[16];
    char *info = h_info(c, "persistence");
    ck_assert(h_info_field(info, "rdb_last_bgsave_status", buf, sizeof buf));
    ck_assert_str_eq(buf, "ok");
    free(info);
    redisFree(c);
    srv *t = h_srv_start_on(s, "%s", "");
    c = srv_connect(t);
    h_wait_loaded(c, 60000);
    expect_int(c, N0, "DBSIZE");
    expect_bulk(c, "value:1", "GET a:1");
    expect_bulk(c, "value:3", "GET a:3");
    expect_nil(c, "GET only1");
    expect_status(c, "OK", "SELECT 1");
    expect_int(c, N1 + 1, "DBSIZE");
    expect_bulk(c, "one", "GET only1");
    expect_bulk(c, "value:1", "GET b:1");
    expect_nil(c, "GET new1");
    redisFree(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("keys");
    TCase *tc = tcase_create("keys");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 40);
    tcase_add_test(tc, del_unlink_exists_type);
    tcase_add_test(tc, keys_patterns);
    tcase_add_test(tc, scan_full_iteration);
    tcase_add_test(tc, scan_match_type_errors);
    tcase_add_test(tc, randomkey);
    tcase_add_test(tc, rename_renamenx);
    tcase_add_test(tc, expire_ttl_persist);
    tcase_add_test(tc, expire_nx_xx_gt_lt);
    tcase_add_test(tc, dbsize_select);
    tcase_add_test(tc, databases_config);
    tcase_add_test(tc, flushdb_flushall);
    tcase_add_test(tc, swapdb_basic);
    tcase_add_test(tc, swapdb_watch);
    tcase_add_test(tc, swapdb_wakes_blocked);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "swapdb_during_save", swapdb_during_save, 120);
    return h_main(s);
}
