/* Integration tests: string commands (GET SET and its options, SETNX SETEX
 * PSETEX GETSET GETDEL GETEX MGET MSET MSETNX APPEND STRLEN INCR DECR INCRBY
 * DECRBY INCRBYFLOAT GETRANGE SETRANGE) against a real server, with the
 * replies and error texts of Redis 7.0. Each test gets a fresh server
 * (h_setup) and its client h_c. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_FLOAT "ERR value is not a valid float"
#define ERR_OVERFLOW "ERR increment or decrement would overflow"
#define ERR_TOO_BIG "ERR string exceeds maximum allowed size (proto-max-bulk-len)"

START_TEST(get_set_basic)
{
    redisContext *c = h_c;
    expect_nil(c, "GET k");
    expect_status(c, "OK", "SET k v");
    expect_bulk(c, "v", "GET k");
    expect_status(c, "OK", "set k other");
    expect_bulk(c, "other", "get k");
    expect_status(c, "OK", "SET empty %s", "");
    expect_bulk(c, "", "GET empty");
    expect_int(c, 1, "EXISTS empty");

    /* binary-safe: NUL, CR LF inside a value and a key */
    const char bin[] = "a\0b\r\nc";
    expect_status(c, "OK", "SET %b %b", "k\r\n", (size_t)3, bin, sizeof bin - 1);
    redisReply *r = cmd(c, "GET %b", "k\r\n", (size_t)3);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, sizeof bin - 1);
    ck_assert(memcmp(r->str, bin, r->len) == 0);
    freeReplyObject(r);

    /* a value that looks like a number stays the same string */
    expect_status(c, "OK", "SET n 00123");
    expect_bulk(c, "00123", "GET n");
    expect_status(c, "OK", "SET n -0");
    expect_bulk(c, "-0", "GET n");
}
END_TEST

START_TEST(get_set_arity)
{
    redisContext *c = h_c;
    expect_error(c, "ERR wrong number of arguments for 'get' command", "GET");
    expect_error(c, "ERR wrong number of arguments for 'get' command", "GET a b");
    expect_error(c, "ERR wrong number of arguments for 'set' command", "SET k");
    expect_error(c, "ERR wrong number of arguments for 'set' command", "SET");
    const char *cases[][2] = {
        { "SETNX k", "setnx" },       { "SETEX k 10", "setex" },
        { "PSETEX k 10", "psetex" },  { "GETSET k", "getset" },
        { "GETDEL", "getdel" },       { "GETDEL a b", "getdel" },
        { "GETEX", "getex" },         { "MGET", "mget" },
        { "MSET", "mset" },           { "MSET a", "mset" },
        { "MSET a b c", "mset" },     { "MSETNX a", "msetnx" },
        { "APPEND k", "append" },     { "STRLEN", "strlen" },
        { "INCR", "incr" },           { "DECR a b", "decr" },
        { "INCRBY k", "incrby" },     { "DECRBY k", "decrby" },
        { "INCRBYFLOAT k", "incrbyfloat" }, { "GETRANGE k 0", "getrange" },
        { "SETRANGE k 0", "setrange" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[128];
        snprintf(want, sizeof want,
                 "ERR wrong number of arguments for '%s' command", cases[i][1]);
        expect_error(c, want, cases[i][0]);
    }
}
END_TEST

START_TEST(set_expire_options)
{
    redisContext *c = h_c;
    long long now = (long long)time(NULL);
    expect_status(c, "OK", "SET k v EX 100");
    expect_int_range(c, 98, 100, "TTL k");
    expect_status(c, "OK", "SET k v PX 100000");
    expect_int_range(c, 98000, 100000, "PTTL k");
    expect_status(c, "OK", "SET k v EXAT %lld", now + 100);
    expect_int_range(c, 97, 101, "TTL k");
    expect_status(c, "OK", "SET k v PXAT %lld", (now + 200) * 1000);
    expect_int_range(c, 197, 201, "TTL k");
    expect_status(c, "OK", "set k v ex 50");       /* options are case-blind */
    expect_int_range(c, 48, 50, "TTL k");
    expect_status(c, "OK", "SET k v");            /* plain SET drops the TTL */
    expect_int(c, -1, "TTL k");

    expect_status(c, "OK", "SET short v PX 100");
    h_sleep_ms(300);
    expect_nil(c, "GET short");
}
END_TEST

START_TEST(set_nx_xx_keepttl_get)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k v NX");
    expect_nil(c, "SET k w NX");
    expect_bulk(c, "v", "GET k");
    expect_nil(c, "SET new v XX");
    expect_int(c, 0, "EXISTS new");
    expect_status(c, "OK", "SET k w XX");
    expect_bulk(c, "w", "GET k");

    expect_status(c, "OK", "SET k v EX 100");
    expect_status(c, "OK", "SET k v2 KEEPTTL");
    expect_int_range(c, 98, 100, "TTL k");
    expect_bulk(c, "v2", "GET k");
    expect_status(c, "OK", "SET k v3 XX KEEPTTL");
    expect_int_range(c, 98, 100, "TTL k");

    expect_nil(c, "SET g 1 GET");
    expect_bulk(c, "1", "SET g 2 GET");
    expect_bulk(c, "2", "GET g");
    expect_bulk(c, "2", "SET g 3 NX GET");     /* NX fails, old value shown */
    expect_bulk(c, "2", "GET g");
    expect_nil(c, "SET nog 1 XX GET");
    expect_int(c, 0, "EXISTS nog");
    expect_bulk(c, "2", "SET g 4 GET EX 100");
    expect_int_range(c, 98, 100, "TTL g");
}
END_TEST

START_TEST(set_syntax_errors)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k orig");
    expect_error(c, ERR_SYNTAX, "SET k v EX");
    expect_error(c, ERR_SYNTAX, "SET k v NX XX");
    expect_error(c, ERR_SYNTAX, "SET k v EX 10 PX 100");
    expect_error(c, ERR_SYNTAX, "SET k v KEEPTTL EX 10");
    expect_error(c, ERR_SYNTAX, "SET k v EXAT 10 PXAT 10000");
    expect_error(c, ERR_SYNTAX, "SET k v FOO");
    expect_error(c, ERR_SYNTAX, "SET k v PX");
    expect_error(c, ERR_INT, "SET k v EX abc");
    expect_error(c, ERR_INT, "SET k v PX 1.5");
    const char *bad[] = { "EX 0", "EX -1", "PX 0", "PX -100", "EXAT 0",
                          "PXAT 0", "EX 9223372036854775807",
                          "PX 9223372036854775807", "EXAT 9223372036854775807" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "SET k v %s", bad[i]);
        expect_error(c, "ERR invalid expire time in 'set' command", line);
    }
    expect_bulk(c, "orig", "GET k");           /* nothing changed */
    expect_int(c, -1, "TTL k");
}
END_TEST

START_TEST(setnx_setex_psetex)
{
    redisContext *c = h_c;
    expect_int(c, 1, "SETNX k v");
    expect_int(c, 0, "SETNX k w");
    expect_bulk(c, "v", "GET k");
    expect_status(c, "OK", "SETEX k 100 w");
    expect_bulk(c, "w", "GET k");
    expect_int_range(c, 98, 100, "TTL k");
    expect_status(c, "OK", "PSETEX k 100000 x");
    expect_bulk(c, "x", "GET k");
    expect_int_range(c, 98000, 100000, "PTTL k");
    expect_error(c, "ERR invalid expire time in 'setex' command", "SETEX k 0 v");
    expect_error(c, "ERR invalid expire time in 'setex' command", "SETEX k -1 v");
    expect_error(c, "ERR invalid expire time in 'psetex' command",
                 "PSETEX k 0 v");
    expect_error(c, ERR_INT, "SETEX k abc v");
    expect_error(c, ERR_INT, "PSETEX k 1x v");
    expect_bulk(c, "x", "GET k");
}
END_TEST

START_TEST(getset_getdel)
{
    redisContext *c = h_c;
    expect_nil(c, "GETSET k v");
    expect_bulk(c, "v", "GET k");
    expect_status(c, "OK", "SET k v EX 100");
    expect_bulk(c, "v", "GETSET k w");
    expect_int(c, -1, "TTL k");                 /* GETSET drops the TTL */
    expect_bulk(c, "w", "GETDEL k");
    expect_nil(c, "GETDEL k");
    expect_int(c, 0, "EXISTS k");
    expect_int(c, 0, "DBSIZE");
}
END_TEST

START_TEST(getex_options)
{
    redisContext *c = h_c;
    long long now = (long long)time(NULL);
    expect_nil(c, "GETEX nokey");
    expect_nil(c, "GETEX nokey EX 10");
    expect_int(c, 0, "EXISTS nokey");
    expect_status(c, "OK", "SET k v");
    expect_bulk(c, "v", "GETEX k");
    expect_int(c, -1, "TTL k");
    expect_bulk(c, "v", "GETEX k EX 100");
    expect_int_range(c, 98, 100, "TTL k");
    expect_bulk(c, "v", "GETEX k PX 50000");
    expect_int_range(c, 48000, 50000, "PTTL k");
    expect_bulk(c, "v", "GETEX k EXAT %lld", now + 300);
    expect_int_range(c, 297, 301, "TTL k");
    expect_bulk(c, "v", "GETEX k PXAT %lld", (now + 400) * 1000);
    expect_int_range(c, 397, 401, "TTL k");
    expect_bulk(c, "v", "GETEX k PERSIST");
    expect_int(c, -1, "TTL k");

    expect_error(c, "ERR invalid expire time in 'getex' command", "GETEX k EX 0");
    expect_error(c, "ERR invalid expire time in 'getex' command",
                 "GETEX k PX -5");
    expect_error(c, ERR_SYNTAX, "GETEX k PERSIST EX 10");
    expect_error(c, ERR_SYNTAX, "GETEX k EX 10 PX 10");
    expect_error(c, ERR_SYNTAX, "GETEX k FOO");
    expect_error(c, ERR_SYNTAX, "GETEX k EX");
    expect_error(c, ERR_INT, "GETEX k EX abc");
    expect_int(c, -1, "TTL k");

    /* an absolute time in the past deletes the key, the value is returned */
    expect_bulk(c, "v", "GETEX k EXAT 1");
    expect_int(c, 0, "EXISTS k");
}
END_TEST

START_TEST(mget_mset_msetnx)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "MSET a 1 b 2 c 3");
    redisReply *r = expect_array(c, 4, "MGET a b nokey c");
    check_bulk(r->element[0], "1");
    check_bulk(r->element[1], "2");
    check_nil(r->element[2]);
    check_bulk(r->element[3], "3");
    freeReplyObject(r);

    expect_status(c, "OK", "SET t v EX 100");
    expect_status(c, "OK", "MSET t w a 10");    /* last write wins, no TTL */
    expect_int(c, -1, "TTL t");
    expect_bulk(c, "10", "GET a");
    expect_status(c, "OK", "MSET d 1 d 2");
    expect_bulk(c, "2", "GET d");

    expect_int(c, 0, "MSETNX a 9 e 5");          /* a exists: nothing set */
    expect_int(c, 0, "EXISTS e");
    expect_bulk(c, "10", "GET a");
    expect_int(c, 1, "MSETNX e 5 f 6");
    expect_bulk(c, "5", "GET e");
    expect_bulk(c, "6", "GET f");
}
END_TEST

START_TEST(append_strlen)
{
    redisContext *c = h_c;
    expect_int(c, 0, "STRLEN k");
    expect_int(c, 2, "APPEND k ab");
    expect_int(c, 4, "APPEND k cd");
    expect_bulk(c, "abcd", "GET k");
    expect_int(c, 4, "STRLEN k");
    expect_int(c, 4, "APPEND k %s", "");
    expect_status(c, "OK", "SET n 10");
    expect_int(c, 3, "APPEND n 5");
    expect_bulk(c, "105", "GET n");
    expect_int(c, 3, "STRLEN n");
    expect_status(c, "OK", "SET t x EX 100");
    expect_int(c, 2, "APPEND t y");
    expect_int_range(c, 98, 100, "TTL t");       /* APPEND keeps the TTL */
}
END_TEST

START_TEST(incr_decr)
{
    redisContext *c = h_c;
    expect_int(c, 1, "INCR n");
    expect_int(c, 2, "INCR n");
    expect_int(c, 1, "DECR n");
    expect_int(c, 11, "INCRBY n 10");
    expect_int(c, -9, "DECRBY n 20");
    expect_int(c, -10, "INCRBY n -1");
    expect_int(c, -5, "DECRBY n -5");
    expect_bulk(c, "-5", "GET n");
    expect_int(c, -1, "DECR fresh");
    expect_status(c, "OK", "SET t 5 EX 100");
    expect_int(c, 6, "INCR t");
    expect_int_range(c, 98, 100, "TTL t");       /* INCR keeps the TTL */

    const char *not_ints[] = { "abc", " 1", "1 ", "1.5", "0123", "+1", "",
                               "99999999999999999999", "1e3" };
    for (size_t i = 0; i < sizeof not_ints / sizeof not_ints[0]; i++) {
        expect_status(c, "OK", "SET s %s", not_ints[i]);
        expect_error(c, ERR_INT, "INCR s");
        expect_error(c, ERR_INT, "DECRBY s 1");
    }
    expect_error(c, ERR_INT, "INCRBY n abc");
    expect_error(c, ERR_INT, "INCRBY n 1.0");
    expect_error(c, ERR_INT, "DECRBY n 99999999999999999999");

    expect_status(c, "OK", "SET max 9223372036854775807");
    expect_error(c, ERR_OVERFLOW, "INCR max");
    expect_error(c, ERR_OVERFLOW, "INCRBY max 1");
    expect_int(c, 9223372036854775806LL, "DECR max");
    expect_status(c, "OK", "SET min -9223372036854775808");
    expect_error(c, ERR_OVERFLOW, "DECR min");
    expect_error(c, ERR_OVERFLOW, "INCRBY min -1");
    expect_error(c, "ERR decrement would overflow",
                 "DECRBY n -9223372036854775808");
    expect_bulk(c, "-9223372036854775808", "GET min");
}
END_TEST

START_TEST(incrbyfloat)
{
    redisContext *c = h_c;
    expect_bulk(c, "3", "INCRBYFLOAT f 3");
    expect_bulk(c, "1.25", "INCRBYFLOAT f -1.75");
    expect_bulk(c, "3001.25", "INCRBYFLOAT f 3.0e3");
    expect_bulk(c, "0", "INCRBYFLOAT f -3001.25");
    expect_status(c, "OK", "SET f 10.5");
    expect_bulk(c, "10.6", "INCRBYFLOAT f 0.1");
    expect_bulk(c, "10.6", "GET f");
    expect_status(c, "OK", "SET i 5");
    expect_bulk(c, "7.5", "INCRBYFLOAT i 2.5");
    expect_status(c, "OK", "SET t 1 EX 100");
    expect_bulk(c, "2", "INCRBYFLOAT t 1");
    expect_int_range(c, 98, 100, "TTL t");

    expect_error(c, ERR_FLOAT, "INCRBYFLOAT f abc");
    expect_error(c, ERR_FLOAT, "INCRBYFLOAT f nan");
    expect_error(c, ERR_FLOAT, "INCRBYFLOAT f 1.5x");
    expect_status(c, "OK", "SET s abc");
    expect_error(c, ERR_FLOAT, "INCRBYFLOAT s 1");
    expect_error(c, "ERR increment would produce NaN or Infinity",
                 "INCRBYFLOAT f inf");
    expect_bulk(c, "10.6", "GET f");
}
END_TEST

START_TEST(getrange_setrange)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k %s", "Hello World");
    expect_bulk(c, "Hello", "GETRANGE k 0 4");
    expect_bulk(c, "World", "GETRANGE k -5 -1");
    expect_bulk(c, "Hello World", "GETRANGE k 0 -1");
    expect_bulk(c, "Hello World", "GETRANGE k -100 100");
    expect_bulk(c, "", "GETRANGE k 5 3");
    expect_bulk(c, "", "GETRANGE k 100 200");
    expect_bulk(c, "", "GETRANGE nokey 0 -1");
    expect_error(c, ERR_INT, "GETRANGE k a 1");

    expect_int(c, 11, "SETRANGE k 6 Redis");
    expect_bulk(c, "Hello Redis", "GET k");
    expect_int(c, 13, "SETRANGE k 11 !!");
    expect_bulk(c, "Hello Redis!!", "GET k");
    expect_int(c, 6, "SETRANGE pad 5 x");
    redisReply *r = cmd(c, "GET pad");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 6);
    ck_assert(memcmp(r->str, "\0\0\0\0\0x", 6) == 0);
    freeReplyObject(r);
    expect_int(c, 0, "SETRANGE empty 0 %s", "");
    expect_int(c, 0, "EXISTS empty");
    expect_int(c, 13, "SETRANGE k 3 %s", "");

    expect_error(c, "ERR offset is out of range", "SETRANGE k -1 x");
    expect_error(c, ERR_INT, "SETRANGE k abc x");
    expect_error(c, ERR_TOO_BIG, "SETRANGE k 536870912 x");
    expect_error(c, ERR_TOO_BIG, "SETRANGE k 536870911 xy");
    expect_bulk(c, "Hello Redis!!", "GET k");
}
END_TEST

/* SETRANGE of a missing key makes a value as long as written, as Redis's
 * (sdsnewlen): no room to grow, which doubled the memory of values made
 * this way; a later SETRANGE past the end grows it. */
START_TEST(setrange_new_key_exact)
{
    redisContext *c = h_c;
    expect_int(c, 100001, "SETRANGE big 100000 x");
    redisReply *r = cmd(c, "MEMORY USAGE big");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    ck_assert_msg(r->integer > 100001 && r->integer < 120000, "MEMORY USAGE %lld", r->integer);
    freeReplyObject(r);
    expect_int(c, 100003, "SETRANGE big 100001 yz");
    expect_bulk(c, "xyz", "GETRANGE big 100000 -1");
}
END_TEST

START_TEST(size_limit_follows_config)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "CONFIG SET proto-max-bulk-len 1048576");
    expect_int(c, 1048576, "SETRANGE big 1048575 x");
    expect_error(c, ERR_TOO_BIG, "SETRANGE big 1048576 x");
    expect_error(c, ERR_TOO_BIG, "APPEND big y");
    expect_int(c, 1048576, "STRLEN big");

    size_t n = 1048000;
    char *val = malloc(n);
    ck_assert_ptr_nonnull(val);
    memset(val, 'v', n);
    expect_status(c, "OK", "SET k %b", val, n);
    expect_error(c, ERR_TOO_BIG, "APPEND k %b", val, (size_t)1000);
    expect_int(c, (long long)n + 576, "APPEND k %b", val, (size_t)576);
    free(val);
}
END_TEST

/* The server's minor page faults so far (/proc/PID/stat, field 10). */
static long long minor_faults(pid_t pid)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    ck_assert_ptr_nonnull(p);
    long long v[8];
    /* after ") ": state ppid pgrp session tty_nr tpgid flags minflt */
    ck_assert_int_eq(sscanf(p + 2, "%*c %lld %lld %lld %lld %lld %lld %lld", &v[0], &v[1],
                            &v[2], &v[3], &v[4], &v[5], &v[6]), 7);
    return v[6];
}

/* Overwriting 180 KB values reuses the memory of the values it frees: a SET
 * does not fault in fresh pages for its value (11 faults per SET, 2.8x
 * slower SETs, when every value over 128 KB got its own mmap, as glibc does
 * once mallopt has switched off its adaptive threshold). The load is the
 * AOF wall's (redis-benchmark -d 180000 -c 20 -r 1000); with 40 keys it did
 * not show. The sanitizer builds bring their own malloc (the test binary
 * is built like the server): there only the data is checked. */
START_TEST(big_values_reuse_memory)
{
    enum { KEYS = 1000, SETS = 3000 };
    char cmd[256];
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -p %d -d 180000 -c 20 -r %d -t set -n %d -q >/dev/null 2>&1",
             h_srv->port, KEYS, 4 * KEYS);
    ck_assert_int_eq(system(cmd), 0); /* most keys exist: overwrites from here */
    long long before = minor_faults(h_srv->pid);
    snprintf(cmd, sizeof cmd,
             "redis-benchmark -p %d -d 180000 -c 20 -r %d -t set -n %d -q >/dev/null 2>&1",
             h_srv->port, KEYS, SETS);
    ck_assert_int_eq(system(cmd), 0);
    long long faults = minor_faults(h_srv->pid) - before;
    fprintf(stderr, "big_values_reuse_memory: %lld page faults for %d SETs\n", faults, SETS);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
    ck_assert_msg(faults < SETS * 2, "%lld page faults for %d SETs of 180000 bytes", faults,
                  SETS);
#endif
    redisReply *r = redisCommand(h_c, "DBSIZE");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_le(r->integer, KEYS);
    ck_assert_int_ge(r->integer, KEYS * 9 / 10);
    freeReplyObject(r);
    r = redisCommand(h_c, "STRLEN key:%012d", 7);
    ck_assert_ptr_nonnull(r);
    ck_assert(r->integer == 0 || r->integer == 180000);
    freeReplyObject(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("strings");
    TCase *tc = tcase_create("strings");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, get_set_basic);
    tcase_add_test(tc, get_set_arity);
    tcase_add_test(tc, set_expire_options);
    tcase_add_test(tc, set_nx_xx_keepttl_get);
    tcase_add_test(tc, set_syntax_errors);
    tcase_add_test(tc, setnx_setex_psetex);
    tcase_add_test(tc, getset_getdel);
    tcase_add_test(tc, getex_options);
    tcase_add_test(tc, mget_mset_msetnx);
    tcase_add_test(tc, append_strlen);
    tcase_add_test(tc, incr_decr);
    tcase_add_test(tc, incrbyfloat);
    tcase_add_test(tc, getrange_setrange);
    tcase_add_test(tc, setrange_new_key_exact);
    tcase_add_test(tc, size_limit_follows_config);
    tcase_add_test(tc, big_values_reuse_memory);
    suite_add_tcase(s, tc);
    return h_main(s);
}
