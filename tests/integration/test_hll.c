/* Integration tests: HyperLogLog (PFADD PFCOUNT PFMERGE PFDEBUG PFSELFTEST)
 * with Redis 7.0's replies, errors and encoding. Beside the server under
 * test (h_srv: verso, or redis-server with VERSO_SERVER), several tests
 * start Redis's own redis-server and check that both hold the same bytes
 * for the same commands (sparse and dense, cached cardinality included),
 * and that an RDB written by one is read by the other with the same
 * counts. Each test gets a fresh server (h_setup) and its client h_c. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_NOT_HLL "WRONGTYPE Key is not a valid HyperLogLog string value."
#define ERR_CORRUPT "INVALIDOBJ Corrupted HLL object detected"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define HLL_DENSE_SIZE 12304

/* PFADD key with n generated elements "<prefix>:<i>" for i in from..from+n-1,
 * in batches; returns how many PFADDs answered 1. */
static int pfadd_range(redisContext *c, const char *key, const char *prefix, long from, long n)
{
    enum { BATCH = 500 };
    const char *argv[BATCH + 2];
    size_t lens[BATCH + 2];
    static char bufs[BATCH][48];
    int ones = 0;
    for (long done = 0; done < n;) {
        int k = 0;
        argv[k] = "PFADD";
        lens[k++] = 5;
        argv[k] = key;
        lens[k++] = strlen(key);
        for (; k < BATCH + 2 && done < n; k++, done++) {
            int w = snprintf(bufs[k - 2], sizeof bufs[0], "%s:%ld", prefix, from + done);
            argv[k] = bufs[k - 2];
            lens[k] = (size_t)w;
        }
        redisReply *r = redisCommandArgv(c, k, argv, lens);
        ck_assert_ptr_nonnull(r);
        ck_assert_msg(r->type == REDIS_REPLY_INTEGER, "PFADD: type %d %s", r->type,
                      r->type == REDIS_REPLY_ERROR ? r->str : "");
        ones += (int)r->integer;
        freeReplyObject(r);
    }
    return ones;
}

/* The value of key (malloc'd, *len set); NULL when absent. */
static char *get_bytes(redisContext *c, const char *key, size_t *len)
{
    redisReply *r = cmd(c, "GET %s", key);
    char *out = NULL;
    *len = 0;
    if (r->type == REDIS_REPLY_STRING) {
        out = malloc(r->len + 1);
        memcpy(out, r->str, r->len + 1);
        *len = r->len;
    } else {
        ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    }
    freeReplyObject(r);
    return out;
}

static long long int_reply(redisContext *c, const char *fmt, const char *key)
{
    redisReply *r = cmd(c, fmt, key);
    ck_assert_msg(r->type == REDIS_REPLY_INTEGER, "%s %s: type %d %s", fmt, key, r->type,
                  r->type == REDIS_REPLY_ERROR ? r->str : "");
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

/* Both servers hold the same bytes under key. */
static void same_bytes(redisContext *a, redisContext *b, const char *key, const char *when)
{
    size_t la, lb;
    char *va = get_bytes(a, key, &la), *vb = get_bytes(b, key, &lb);
    ck_assert_msg(va && vb, "%s: %s missing", when, key);
    ck_assert_msg(la == lb, "%s: %s is %zu bytes here, %zu on redis-server", when, key, la, lb);
    for (size_t i = 0; i < la; i++)
        ck_assert_msg(va[i] == vb[i], "%s: %s differs at byte %zu of %zu (%02x vs %02x)", when,
                      key, i, la, (unsigned char)va[i], (unsigned char)vb[i]);
    free(va);
    free(vb);
}

START_TEST(pfadd_pfcount_basics)
{
    redisContext *c = h_c;
    expect_error(c, "ERR wrong number of arguments for 'pfadd' command", "PFADD");
    expect_error(c, "ERR wrong number of arguments for 'pfcount' command", "PFCOUNT");
    expect_int(c, 0, "PFCOUNT nokey");
    expect_int(c, 0, "PFCOUNT nokey other");
    /* creating the key is a change, even without elements */
    expect_int(c, 1, "PFADD empty");
    expect_int(c, 0, "PFADD empty");
    expect_int(c, 0, "PFCOUNT empty");
    expect_int(c, 1, "PFADD h a b c");
    expect_int(c, 0, "PFADD h a b c");
    expect_int(c, 0, "PFADD h a");
    expect_int(c, 3, "PFCOUNT h");
    expect_int(c, 1, "PFADD h d");
    expect_int(c, 4, "PFCOUNT h");
    expect_int(c, 4, "PFCOUNT h nokey");
    expect_int(c, 1, "PFADD h2 d e f");
    expect_int(c, 6, "PFCOUNT h h2");
    expect_int(c, 6, "PFCOUNT h2 h h");
    /* the empty HLL: header + one XZERO:16384 */
    size_t n;
    char *v = get_bytes(c, "empty", &n);
    ck_assert_uint_eq(n, 18);
    ck_assert(memcmp(v, "HYLL\x01\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", 18) == 0);
    free(v);
    /* before a PFCOUNT its cache is invalid (the top bit of byte 15), as
     * Redis's PFADD leaves a key it created */
    expect_int(c, 1, "PFADD fresh");
    v = get_bytes(c, "fresh", &n);
    ck_assert_uint_eq(n, 18);
    ck_assert(memcmp(v, "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff", 18) == 0);
    free(v);
    expect_bulk(c, "Z:16384", "PFDEBUG DECODE empty");
    expect_status(c, "sparse", "PFDEBUG ENCODING h");
    /* an HLL is a string: TYPE, STRLEN, APPEND work on it */
    expect_status(c, "string", "TYPE h");
}
END_TEST

START_TEST(hll_wrong_values)
{
    redisContext *c = h_c;
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "PFADD l a");
    expect_error(c, ERR_WRONGTYPE, "PFCOUNT l");
    expect_error(c, ERR_WRONGTYPE, "PFCOUNT nokey l");
    expect_error(c, ERR_WRONGTYPE, "PFMERGE d l");
    expect_status(c, "OK", "SET s hello");
    expect_error(c, ERR_NOT_HLL, "PFADD s a");
    expect_error(c, ERR_NOT_HLL, "PFCOUNT s");
    expect_error(c, ERR_NOT_HLL, "PFCOUNT nokey s");
    expect_error(c, ERR_NOT_HLL, "PFMERGE s");
    expect_error(c, ERR_NOT_HLL, "PFMERGE d s");
    expect_int(c, 0, "EXISTS d");
    expect_status(c, "OK", "SET n 12345");
    expect_error(c, ERR_NOT_HLL, "PFCOUNT n");
    /* a valid header with an unknown encoding, a dense one of the wrong size */
    expect_status(c, "OK", "SET e %b", "HYLL\x02\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", (size_t)18);
    expect_error(c, ERR_NOT_HLL, "PFCOUNT e");
    expect_status(c, "OK", "SET e %b", "HYLL\x00\0\0\0\0\0\0\0\0\0\0\0\x7f\xff", (size_t)18);
    expect_error(c, ERR_NOT_HLL, "PFADD e x");
    expect_status(c, "OK", "SET e %b", "HYL", (size_t)3);
    expect_error(c, ERR_NOT_HLL, "PFCOUNT e");
    /* PFDEBUG */
    expect_error(c, "ERR The specified key does not exist", "PFDEBUG ENCODING nokey");
    expect_error(c, "ERR The specified key does not exist", "PFDEBUG NOSUCH nokey");
    expect_int(c, 1, "PFADD h a");
    expect_error(c, "ERR Unknown PFDEBUG subcommand 'nosuch'", "PFDEBUG nosuch h");
    expect_error(c, ERR_NOT_HLL, "PFDEBUG ENCODING s");
    expect_error(c, "ERR wrong number of arguments for 'pfdebug' command", "PFDEBUG ENCODING");
}
END_TEST

/* Sparse encodings that do not describe 16384 registers. */
START_TEST(hll_corrupt)
{
    redisContext *c = h_c;
    /* XZERO:16000 then nothing: 384 registers missing */
    const char shortz[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7e\x7f";
    expect_status(c, "OK", "SET h %b", shortz, sizeof shortz - 1);
    expect_error(c, ERR_CORRUPT, "PFCOUNT h");
    expect_error(c, ERR_CORRUPT, "PFCOUNT h h");
    expect_error(c, ERR_CORRUPT, "PFMERGE d h");
    expect_error(c, ERR_CORRUPT, "PFDEBUG TODENSE h");
    expect_error(c, ERR_CORRUPT, "PFDEBUG GETREG h");
    /* XZERO:16384 then VAL:1,4: 4 registers too many */
    const char longz[] = "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80\x7f\xff\x83";
    expect_status(c, "OK", "SET h2 %b", longz, sizeof longz - 1);
    expect_error(c, ERR_CORRUPT, "PFCOUNT h2");
    expect_error(c, ERR_CORRUPT, "PFCOUNT h2 nokey");
    expect_error(c, ERR_CORRUPT, "PFMERGE h2");
    expect_error(c, ERR_CORRUPT, "PFDEBUG TODENSE h2");
    /* an element that lands before the end is added all the same */
    expect_int(c, 1, "PFADD h2 x y z w v");
    /* no opcodes at all: PFADD finds no register */
    expect_status(c, "OK", "SET h3 %b", "HYLL\x01\0\0\0\0\0\0\0\0\0\0\x80", (size_t)16);
    expect_error(c, ERR_CORRUPT, "PFADD h3 a");
    expect_error(c, ERR_CORRUPT, "PFCOUNT h3");
}
END_TEST

/* 100k distinct elements: the estimate is within Redis's error (standard
 * error 0.81%; 3% is almost 4 sigmas), and the HLL is dense. */
START_TEST(hll_accuracy_and_promotion)
{
    redisContext *c = h_c;
    long added = 0;
    /* sparse while small, and never above hll-sparse-max-bytes (3000) */
    while (1) {
        pfadd_range(c, "h", "el", added, 50);
        added += 50;
        redisReply *r = cmd(c, "PFDEBUG ENCODING h");
        int sparse = strcmp(r->str, "sparse") == 0;
        freeReplyObject(r);
        long long len = int_reply(c, "STRLEN %s", "h");
        if (!sparse) {
            ck_assert_int_eq(len, HLL_DENSE_SIZE);
            break;
        }
        ck_assert_int_le(len, 3000);
        ck_assert_int_lt(added, 10000);
    }
    ck_assert_int_gt(added, 500);
    pfadd_range(c, "h", "el", added, 100000 - added);
    long long est = int_reply(c, "PFCOUNT %s", "h");
    ck_assert_msg(est > 97000 && est < 103000, "PFCOUNT of 100000: %lld", est);
    /* the cached cardinality answers the same */
    expect_int(c, est, "PFCOUNT h");
    /* adding the same elements again changes nothing */
    ck_assert_int_eq(pfadd_range(c, "h", "el", 0, 2000), 0);
    expect_int(c, est, "PFCOUNT h");
    /* TODENSE: 1 when it converted, 0 when already dense */
    expect_int(c, 1, "PFADD s a b c");
    expect_int(c, 1, "PFDEBUG TODENSE s");
    expect_int(c, 0, "PFDEBUG TODENSE s");
    expect_status(c, "dense", "PFDEBUG ENCODING s");
    expect_error(c, "ERR HLL encoding is not sparse", "PFDEBUG DECODE s");
    expect_int(c, 3, "PFCOUNT s");
    redisReply *r = expect_array(c, 16384, "PFDEBUG GETREG s");
    long nonzero = 0;
    for (size_t i = 0; i < r->elements; i++) nonzero += r->element[i]->integer != 0;
    freeReplyObject(r);
    ck_assert_int_eq(nonzero, 3);
}
END_TEST

START_TEST(pfmerge_basics)
{
    redisContext *c = h_c;
    expect_error(c, "ERR wrong number of arguments for 'pfmerge' command", "PFMERGE");
    expect_status(c, "OK", "PFMERGE d");
    expect_int(c, 0, "PFCOUNT d");
    expect_status(c, "OK", "PFMERGE d2 nokey1 nokey2");
    expect_int(c, 1, "EXISTS d2");
    expect_int(c, 1, "PFADD a 1 2 3");
    expect_int(c, 1, "PFADD b 3 4 5");
    expect_status(c, "OK", "PFMERGE m a b nokey");
    expect_int(c, 5, "PFCOUNT m");
    /* the destination is one of the sources */
    expect_int(c, 1, "PFADD x 9");
    expect_status(c, "OK", "PFMERGE x a");
    expect_int(c, 4, "PFCOUNT x");
    /* a dense source makes the destination dense */
    pfadd_range(c, "big", "e", 0, 5000);
    expect_status(c, "dense", "PFDEBUG ENCODING big");
    expect_status(c, "OK", "PFMERGE a big");
    expect_status(c, "dense", "PFDEBUG ENCODING a");
    long long big = int_reply(c, "PFCOUNT %s", "big");
    expect_int_range(c, big - big / 100, big + big / 100, "PFCOUNT a");
}
END_TEST

/* The same commands on verso and on redis-server give the same bytes. */
START_TEST(hll_bytes_match_redis)
{
    redisContext *v = h_c;
    srv *rs = h_srv_start_redis("%s", "");
    redisContext *r = srv_connect(rs);
    const long steps[] = { 1, 9, 40, 150, 300, 500, 1000, 2000, 6000, 20000 };
    long added = 0;
    char when[64];
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        long n = steps[i];
        ck_assert_int_eq(pfadd_range(v, "h", "k", added, n), pfadd_range(r, "h", "k", added, n));
        added += n;
        snprintf(when, sizeof when, "after %ld PFADDs", added);
        same_bytes(v, r, "h", when);
        ck_assert_int_eq(int_reply(v, "PFCOUNT %s", "h"), int_reply(r, "PFCOUNT %s", "h"));
        same_bytes(v, r, "h", "after PFCOUNT (cached cardinality)");
        /* a small HLL that grows one element at a time */
        char el[32];
        snprintf(el, sizeof el, "one%ld", (long)i);
        long long want = int_reply(r, "PFADD small %s", el);
        expect_int(v, want, "PFADD small %s", el);
        same_bytes(v, r, "small", "small");
    }
    /* PFMERGE into sparse and dense destinations, PFCOUNT of a union */
    for (int s = 0; s < 2; s++) {
        redisContext *c = s ? r : v;
        pfadd_range(c, "a", "x", 0, 100);
        pfadd_range(c, "b", "x", 50, 100);
        expect_status(c, "OK", "PFMERGE m1 a b");
        expect_status(c, "OK", "PFMERGE m2 a b h");
        expect_status(c, "OK", "PFMERGE a small");
    }
    same_bytes(v, r, "m1", "PFMERGE sparse");
    same_bytes(v, r, "m2", "PFMERGE dense");
    same_bytes(v, r, "a", "PFMERGE into a source");
    ck_assert_int_eq(int_reply(v, "PFCOUNT a b %s", "h"), int_reply(r, "PFCOUNT a b %s", "h"));
    redisReply *dv = cmd(v, "PFDEBUG DECODE m1"), *dr = cmd(r, "PFDEBUG DECODE m1");
    ck_assert_int_eq(dv->type, REDIS_REPLY_STRING);
    ck_assert_str_eq(dv->str, dr->str);
    freeReplyObject(dv);
    freeReplyObject(dr);
    redisFree(r);
}
END_TEST

/* Redis's HLL string loaded into this server is an HLL here too. */
START_TEST(hll_values_from_redis)
{
    redisContext *v = h_c;
    srv *rs = h_srv_start_redis("%s", "");
    redisContext *r = srv_connect(rs);
    pfadd_range(r, "s", "q", 0, 200);
    pfadd_range(r, "d", "q", 0, 9000);
    const char *keys[] = { "s", "d" };
    for (int i = 0; i < 2; i++) {
        size_t n;
        char *val = get_bytes(r, keys[i], &n);
        expect_status(v, "OK", "SET %s %b", keys[i], val, n);
        free(val);
        ck_assert_int_eq(int_reply(v, "PFCOUNT %s", keys[i]), int_reply(r, "PFCOUNT %s", keys[i]));
        ck_assert_int_eq(pfadd_range(v, keys[i], "z", 0, 300), pfadd_range(r, keys[i], "z", 0, 300));
        same_bytes(v, r, keys[i], "after PFADD on Redis's value");
    }
    redisFree(r);
}
END_TEST

/* verso's RDB read by redis-server, and redis-server's read by verso. */
START_TEST(hll_rdb_interop)
{
    redisContext *v = h_c;
    pfadd_range(v, "s", "r", 0, 100);
    pfadd_range(v, "d", "r", 0, 20000);
    pfadd_range(v, "c", "r", 0, 10);
    long long cs = int_reply(v, "PFCOUNT %s", "s"), cd = int_reply(v, "PFCOUNT %s", "d");
    pfadd_range(v, "c", "r", 10, 5); /* a stale cached cardinality */
    long long cc = int_reply(v, "PFCOUNT %s", "c");
    expect_int(v, 1, "PFADD c extra");
    expect_status(v, "OK", "SAVE");
    srv *rs = h_srv_start_redis("--dir '%s' --dbfilename dump.rdb", h_srv->dir);
    redisContext *r = srv_connect(rs);
    h_wait_loaded(r, 20000);
    same_bytes(v, r, "c", "c loaded by redis-server");
    expect_int(r, cs, "PFCOUNT s");
    expect_int(r, cd, "PFCOUNT d");
    expect_int_range(r, cc, cc + 1, "PFCOUNT c");
    expect_status(r, "sparse", "PFDEBUG ENCODING s");
    expect_status(r, "dense", "PFDEBUG ENCODING d");

    /* the other way: Redis changes them, saves, this server loads */
    pfadd_range(r, "s", "w", 0, 50);
    expect_int(r, 1, "PFADD n a b c");
    long long rs_count = int_reply(r, "PFCOUNT %s", "s");
    expect_status(r, "OK", "SAVE");
    srv *vs = h_srv_start("--dir '%s' --dbfilename dump.rdb", h_srv->dir);
    redisContext *v2 = srv_connect(vs);
    h_wait_loaded(v2, 20000);
    same_bytes(v2, r, "s", "s loaded back");
    same_bytes(v2, r, "d", "d loaded back");
    same_bytes(v2, r, "n", "n loaded back");
    expect_int(v2, rs_count, "PFCOUNT s");
    expect_int(v2, 3, "PFCOUNT n");
    ck_assert_int_eq(int_reply(v2, "PFCOUNT %s", "d"), int_reply(r, "PFCOUNT %s", "d"));
    redisFree(v2);
    redisFree(r);
}
END_TEST

START_TEST(hll_selftest)
{
    expect_status(h_c, "OK", "PFSELFTEST");
}
END_TEST

/* A BGSAVE (forkless on verso) that runs while HLLs and bitmaps are
 * changed in place (PFADD, sparse -> dense promotion, PFCOUNT's cache,
 * PFMERGE, PFDEBUG TODENSE, SETBIT, BITFIELD) saves every key as it was
 * when the save started; redis-server loads the dump. */
START_TEST(hll_point_in_time_save)
{
    redisContext *c = h_c;
    enum { NH = 40, NB = 40 };
    char key[32];
    for (int i = 0; i < NH; i++) {
        snprintf(key, sizeof key, "h:%d", i);
        pfadd_range(c, key, key, 0, i % 8 == 0 ? 3000 : 60);
        snprintf(key, sizeof key, "b:%d", i);
        expect_int(c, 0, "SETBIT %s %d 1", key, 8 * i + 3);
    }
    char *before[NH + NB];
    size_t blen[NH + NB];
    for (int i = 0; i < NH + NB; i++) {
        snprintf(key, sizeof key, i < NH ? "h:%d" : "b:%d", i % NH);
        before[i] = get_bytes(c, key, &blen[i]);
    }
    expect_status(c, "OK", "CONFIG SET rdb-key-save-delay 50000");
    expect_status(c, "Background saving started", "BGSAVE");
    for (int i = 0; i < NH; i++) {
        snprintf(key, sizeof key, "h:%d", i);
        if (i % 2) int_reply(c, "PFCOUNT %s", key); /* the first write: the cache */
        pfadd_range(c, key, "new", 0, i % 4 == 1 ? 3000 : 20);
        int_reply(c, "PFCOUNT %s", key);
        if (i % 5 == 2) expect_int_range(c, 0, 1, "PFDEBUG TODENSE %s", key);
        if (i % 7 == 3) expect_status(c, "OK", "PFMERGE %s h:0", key);
        snprintf(key, sizeof key, "b:%d", i);
        expect_int(c, 1, "SETBIT %s %d 0", key, 8 * i + 3);
        expect_int(c, 0, "SETBIT %s %d 1", key, 8000 + i);
        redisReply *r = expect_array(c, 1, "BITFIELD %s INCRBY u8 #%d 7", key, i);
        freeReplyObject(r);
    }
    ck_assert_msg(h_info_int(c, "persistence", "rdb_bgsave_in_progress") == 1,
                  "the save ended before the writes: nothing was tested");
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 120000);
    expect_status(c, "OK", "CONFIG SET rdb-key-save-delay 0");
    char v[16];
    char *info = h_info(c, "persistence");
    ck_assert(h_info_field(info, "rdb_last_bgsave_status", v, sizeof v));
    free(info);
    ck_assert_str_eq(v, "ok");
    srv *rs = h_srv_start_redis("--dir '%s' --dbfilename dump.rdb", h_srv->dir);
    redisContext *r = srv_connect(rs);
    h_wait_loaded(r, 20000);
    for (int i = 0; i < NH + NB; i++) {
        snprintf(key, sizeof key, i < NH ? "h:%d" : "b:%d", i % NH);
        size_t n;
        char *got = get_bytes(r, key, &n);
        ck_assert_msg(got && n == blen[i] && memcmp(got, before[i], n) == 0,
                      "%s in the dump is not its value when the save started", key);
        free(got);
        free(before[i]);
    }
    redisFree(r);
}
END_TEST

static void teardown(void)
{
    h_srv_drop_all();
    h_teardown();
}

int main(void)
{
    Suite *s = suite_create("hll");
    TCase *tc = tcase_create("hll");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, pfadd_pfcount_basics);
    tcase_add_test(tc, hll_wrong_values);
    tcase_add_test(tc, hll_corrupt);
    tcase_add_test(tc, hll_accuracy_and_promotion);
    tcase_add_test(tc, pfmerge_basics);
    tcase_add_test(tc, hll_bytes_match_redis);
    tcase_add_test(tc, hll_values_from_redis);
    tcase_add_test(tc, hll_rdb_interop);
    tcase_add_test(tc, hll_selftest);
    tcase_add_test(tc, hll_point_in_time_save);
    suite_add_tcase(s, tc);
    return h_main(s);
}
