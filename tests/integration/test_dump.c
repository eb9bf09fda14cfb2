/* test_dump: DUMP and RESTORE as Redis 7.0 answers them.
 *
 * Round trips of every string encoding (int, raw, empty, LZF-compressible,
 * a 4 MB value), every error text in Redis's order of checks, REPLACE,
 * ABSTTL, IDLETIME/FREQ, expired TTLs, and what is propagated (read back
 * from the AOF). Interop: payloads that redis-server 7.0.15 produced
 * (captured below as bytes, LZF-compressed ones among them) RESTORE to the
 * same values, and DUMP of the same values gives the same bytes where both
 * choose the same encoding (no LZF: short or incompressible strings). Run
 * against redis-server too (VERSO_SERVER=/usr/bin/redis-server), which is
 * what proves the captured bytes are Redis's. */
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "crc64.h"

typedef struct golden {
    const char *key;
    const char *val;        /* NULL: GOLDEN_A100 / GOLDEN_ABC300 */
    const char *payload;
    size_t len;
    int lzf;                /* Redis chose LZF: verso's bytes may differ */
} golden;

#define P(s) s, sizeof(s) - 1
/* DUMP replies of redis-server 7.0.15 (rdbcompression yes) for SET key val. */
static const golden GOLDEN[] = {
    {"int", "123", P("\x00\xc0\x7b\x0a\x00\x48\xe2\x53\xe1\x00\x7a\x67\xb9"), 0},
    {"raw", "hello", P("\x00\x05\x68\x65\x6c\x6c\x6f\x0a\x00\x63\x72\xdf\x76\x65\x34\x20\x0a"), 0},
    {"empty", "", P("\x00\x00\x0a\x00\x5d\x9b\x5c\x40\x0f\x7f\xa2\xda"), 0},
    {"neg", "-5", P("\x00\xc0\xfb\x0a\x00\x49\xc4\xc6\xf4\xd7\x26\x3f\x68"), 0},
    {"bigint", "12345678901",
     P("\x00\x0b\x31\x32\x33\x34\x35\x36\x37\x38\x39\x30\x31\x0a\x00\x30\x4e\x52\xd7\x27\x17\x65\x10"), 0},
    {"a100", NULL,
     P("\x00\xc3\x09\x40\x64\x01\x61\x61\xe0\x57\x00\x01\x61\x61\x0a\x00\xe8\xa3\xb5\x07\xb0\x6d\xf2\x71"), 1},
    {"abc300", NULL,
     P("\x00\xc3\x15\x41\x2c\x0a\x61\x62\x63\x64\x65\x66\x67\x68\x69\x6a\x61\xe0\xff\x09\xe1\x0e\x0d"
       "\x01\x69\x6a\x0a\x00\x38\xca\x02\x5a\xda\xf5\x40\x90"), 1},
};
#define NGOLDEN (sizeof GOLDEN / sizeof GOLDEN[0])

/* The value of a golden entry (malloc'd). */
static char *golden_val(const golden *g, size_t *len) {
    const char *unit = !strcmp(g->key, "a100") ? "a" : !strcmp(g->key, "abc300") ? "abcdefghij" : NULL;
    if (!unit) {
        *len = strlen(g->val);
        return strdup(g->val);
    }
    size_t u = strlen(unit), n = u == 1 ? 100 : 30;
    char *v = malloc(u * n + 1);
    for (size_t i = 0; i < n; i++) memcpy(v + i * u, unit, u);
    v[u * n] = 0;
    *len = u * n;
    return v;
}

static long long wall_now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* DUMP key: the payload (malloc'd) or NULL for nil. */
static char *dump(const char *key, size_t *len) {
    redisReply *r = cmd(h_c, "DUMP %s", key);
    char *p = NULL;
    if (r->type == REDIS_REPLY_STRING) {
        p = malloc(r->len + 1);
        memcpy(p, r->str, r->len);
        *len = r->len;
    } else {
        ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    }
    freeReplyObject(r);
    return p;
}

static void expect_value(const char *key, const char *val, size_t len) {
    redisReply *r = cmd(h_c, "GET %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, len);
    ck_assert(memcmp(r->str, val, len) == 0);
    freeReplyObject(r);
}

/* A payload for `body` (type byte + value) with version ver and a correct
 * CRC64 (malloc'd). */
static unsigned char *make_payload(const void *body, size_t n, unsigned ver, size_t *len) {
    unsigned char *p = malloc(n + 10);
    memcpy(p, body, n);
    p[n] = (unsigned char)ver;
    p[n + 1] = (unsigned char)(ver >> 8);
    uint64_t crc = crc64(0, p, n + 2);
    for (int i = 0; i < 8; i++) p[n + 2 + (size_t)i] = (unsigned char)(crc >> (8 * i));
    *len = n + 10;
    return p;
}

START_TEST(dump_round_trip) {
    size_t biglen = 4u << 20;
    char *big = malloc(biglen);
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < biglen; i++) {   /* xorshift: incompressible */
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        big[i] = (char)x;
    }
    char *rep = malloc(100000);
    memset(rep, 'z', 100000);
    struct { const char *v; size_t len; } vals[] = {
        {"0", 1}, {"-1", 2}, {"127", 3}, {"-32768", 6}, {"2147483647", 10},
        {"9223372036854775807", 19}, {"007", 3}, {"", 0}, {"hello world", 11},
        {"bin\0ary\r\n", 10}, {rep, 100000}, {big, biglen},
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        char key[32];
        snprintf(key, sizeof key, "k%zu", i);
        redisReply *r = cmd(h_c, "SET %s %b", key, vals[i].v, vals[i].len);
        freeReplyObject(r);
        size_t len;
        char *p = dump(key, &len);
        ck_assert_ptr_nonnull(p);
        /* the same key, after DEL, and another name */
        expect_int(h_c, 1, "DEL %s", key);
        expect_status(h_c, "OK", "RESTORE %s 0 %b", key, p, len);
        expect_value(key, vals[i].v, vals[i].len);
        expect_int(h_c, -1, "PTTL %s", key);
        snprintf(key, sizeof key, "copy%zu", i);
        expect_status(h_c, "OK", "RESTORE %s 0 %b", key, p, len);
        expect_value(key, vals[i].v, vals[i].len);
        /* DUMP of the restored value gives the same payload */
        size_t len2;
        char *p2 = dump(key, &len2);
        ck_assert_uint_eq(len2, len);
        ck_assert(memcmp(p, p2, len) == 0);
        free(p);
        free(p2);
    }
    expect_nil(h_c, "DUMP nosuchkey");
    free(big);
    free(rep);
}
END_TEST

START_TEST(dump_matches_redis) {
    for (size_t i = 0; i < NGOLDEN; i++) {
        const golden *g = &GOLDEN[i];
        size_t vlen;
        char *v = golden_val(g, &vlen);
        /* Redis's payload restores to the value... */
        expect_status(h_c, "OK", "RESTORE %s 0 %b", g->key, g->payload, g->len);
        expect_value(g->key, v, vlen);
        /* ...and the value dumps to Redis's bytes where no LZF is involved */
        expect_status(h_c, "OK", "SET %s %b", g->key, v, vlen);
        size_t len;
        char *p = dump(g->key, &len);
        if (!g->lzf) {
            ck_assert_msg(len == g->len && memcmp(p, g->payload, len) == 0,
                          "DUMP %s differs from redis-server's", g->key);
        }
        free(p);
        free(v);
    }
}
END_TEST

START_TEST(restore_errors) {
    const golden *g = &GOLDEN[1];   /* "hello" */
    expect_error(h_c, "ERR wrong number of arguments for 'restore' command", "RESTORE k 0");
    expect_error(h_c, "ERR wrong number of arguments for 'dump' command", "DUMP");
    /* options first */
    expect_error(h_c, "ERR syntax error", "RESTORE k 0 %b BOGUS", g->payload, g->len);
    expect_error(h_c, "ERR syntax error", "RESTORE k 0 %b IDLETIME", g->payload, g->len);
    expect_error(h_c, "ERR syntax error", "RESTORE k 0 %b IDLETIME 1 FREQ 1", g->payload, g->len);
    expect_error(h_c, "ERR syntax error", "RESTORE k 0 %b FREQ 1 IDLETIME 1", g->payload, g->len);
    expect_error(h_c, "ERR value is not an integer or out of range", "RESTORE k 0 %b IDLETIME x",
                 g->payload, g->len);
    expect_error(h_c, "ERR Invalid IDLETIME value, must be >= 0", "RESTORE k 0 %b IDLETIME -1",
                 g->payload, g->len);
    expect_error(h_c, "ERR Invalid FREQ value, must be >= 0 and <= 255",
                 "RESTORE k 0 %b FREQ 256", g->payload, g->len);
    expect_error(h_c, "ERR Invalid FREQ value, must be >= 0 and <= 255",
                 "RESTORE k 0 %b FREQ -1", g->payload, g->len);
    /* then BUSYKEY, before the TTL and the payload are looked at */
    expect_status(h_c, "OK", "SET k v");
    expect_error(h_c, "BUSYKEY Target key name already exists.", "RESTORE k -5 garbage");
    expect_error(h_c, "ERR value is not an integer or out of range", "RESTORE n x %b",
                 g->payload, g->len);
    expect_error(h_c, "ERR Invalid TTL value, must be >= 0", "RESTORE n -1 %b", g->payload, g->len);
    /* the payload: too short, bad CRC, newer version, bad data */
    expect_error(h_c, "ERR DUMP payload version or checksum are wrong", "RESTORE n 0 abc");
    expect_error(h_c, "ERR DUMP payload version or checksum are wrong", "RESTORE n 0 %b", "", (size_t)0);
    char *bad = malloc(g->len);
    memcpy(bad, g->payload, g->len);
    bad[3] ^= 1;
    expect_error(h_c, "ERR DUMP payload version or checksum are wrong", "RESTORE n 0 %b", bad, g->len);
    free(bad);
    size_t len;
    unsigned char *p = make_payload("\x00\x05hello", 7, 11, &len);
    expect_error(h_c, "ERR DUMP payload version or checksum are wrong", "RESTORE n 0 %b", p, len);
    free(p);
    p = make_payload("\x00\x05hello", 7, 9, &len);   /* an older version is fine */
    expect_status(h_c, "OK", "RESTORE old 0 %b", p, len);
    expect_bulk(h_c, "hello", "GET old");
    free(p);
    /* a string that ends past the payload (one that ends inside the footer
     * reads the footer's bytes, in Redis too) */
    p = make_payload("\x00\x20he", 4, 10, &len);
    expect_error(h_c, "ERR Bad data format", "RESTORE n 0 %b", p, len);
    free(p);
    p = make_payload("\x00\xc3\x05\x10zz", 6, 10, &len);   /* damaged LZF */
    expect_error(h_c, "ERR Bad data format", "RESTORE n 0 %b", p, len);
    free(p);
    p = make_payload("\x00\xc7", 2, 10, &len);        /* unknown string encoding */
    expect_error(h_c, "ERR Bad data format", "RESTORE n 0 %b", p, len);
    free(p);
    p = make_payload("\xfe\x00", 2, 10, &len);        /* not a value type */
    expect_error(h_c, "ERR Bad data format", "RESTORE n 0 %b", p, len);
    free(p);
    expect_int(h_c, 0, "EXISTS n");
    expect_bulk(h_c, "v", "GET k");
}
END_TEST

/* IDLETIME sets the LRU idle time (OBJECT IDLETIME), FREQ the LFU counter
 * (OBJECT FREQ), each under its kind of maxmemory-policy only. */
START_TEST(restore_idletime_freq) {
    const golden *g = &GOLDEN[1];   /* "hello" */
    expect_status(h_c, "OK", "RESTORE i 0 %b IDLETIME 1000", g->payload, g->len);
    expect_int_range(h_c, 1000, 1002, "OBJECT IDLETIME i");
    expect_status(h_c, "OK", "RESTORE it 100000 %b IDLETIME 50", g->payload, g->len);
    expect_int_range(h_c, 50, 52, "OBJECT IDLETIME it");
    expect_int_range(h_c, 1, 100000, "PTTL it");
    expect_status(h_c, "OK", "RESTORE i 0 %b REPLACE IDLETIME 7", g->payload, g->len);
    expect_int_range(h_c, 7, 9, "OBJECT IDLETIME i");
    /* FREQ under an LRU policy: a new key's clock */
    expect_status(h_c, "OK", "RESTORE f 0 %b FREQ 100", g->payload, g->len);
    expect_int_range(h_c, 0, 2, "OBJECT IDLETIME f");
    expect_status(h_c, "OK", "CONFIG SET maxmemory-policy allkeys-lfu");
    expect_status(h_c, "OK", "RESTORE lf 0 %b FREQ 100", g->payload, g->len);
    expect_int(h_c, 100, "OBJECT FREQ lf");
    expect_status(h_c, "OK", "RESTORE lf 0 %b REPLACE FREQ 0", g->payload, g->len);
    expect_int(h_c, 0, "OBJECT FREQ lf");
    expect_status(h_c, "OK", "RESTORE lt 100000 %b FREQ 255", g->payload, g->len);
    expect_int(h_c, 255, "OBJECT FREQ lt");
    /* IDLETIME under an LFU policy: a new key's counter (5) */
    expect_status(h_c, "OK", "RESTORE li 0 %b IDLETIME 1000", g->payload, g->len);
    expect_int(h_c, 5, "OBJECT FREQ li");
}
END_TEST

START_TEST(restore_options) {
    const golden *g = &GOLDEN[1];   /* "hello" */
    expect_status(h_c, "OK", "SET k old");
    expect_status(h_c, "OK", "RESTORE k 0 %b REPLACE", g->payload, g->len);
    expect_bulk(h_c, "hello", "GET k");
    /* REPLACE on a missing key, options in any case and order */
    expect_status(h_c, "OK", "RESTORE r 0 %b replace IdleTime 10", g->payload, g->len);
    expect_status(h_c, "OK", "RESTORE r 0 %b FREQ 255 REPLACE", g->payload, g->len);
    /* a relative TTL */
    expect_status(h_c, "OK", "RESTORE t 100000 %b", g->payload, g->len);
    expect_int_range(h_c, 1, 100000, "PTTL t");
    /* an absolute one */
    long long when = wall_now_ms() + 500000;
    expect_status(h_c, "OK", "RESTORE a %lld %b ABSTTL", when, g->payload, g->len);
    expect_int(h_c, when, "PEXPIRETIME a");
    /* already past: OK, nothing created; with REPLACE the old key goes */
    expect_status(h_c, "OK", "RESTORE p 1 %b ABSTTL", g->payload, g->len);
    expect_int(h_c, 0, "EXISTS p");
    expect_status(h_c, "OK", "SET p old");
    expect_status(h_c, "OK", "RESTORE p 1000 %b ABSTTL REPLACE", g->payload, g->len);
    expect_int(h_c, 0, "EXISTS p");
    /* an expired key is not busy */
    expect_status(h_c, "OK", "SET e v PX 1");
    h_sleep_ms(20);
    expect_status(h_c, "OK", "RESTORE e 0 %b", g->payload, g->len);
    expect_bulk(h_c, "hello", "GET e");
}
END_TEST

/* The incr AOF file of server sv (malloc'd, its length in *len). */
static char *aof_incr(const srv *sv, size_t *len) {
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.1.incr.aof", sv->dir);
    return h_slurp(path, len, 1);
}

/* Appends one RESP bulk string to buf at *n. */
static void put_bulk(char *buf, size_t *n, const void *p, size_t len) {
    *n += (size_t)sprintf(buf + *n, "$%zu\r\n", len);
    memcpy(buf + *n, p, len);
    *n += len;
    memcpy(buf + *n, "\r\n", 2);
    *n += 2;
}

/* 1 when the AOF holds the RESTORE with exactly these arguments. */
static int aof_has(const char *aof, size_t alen, int argc, const char *const *argv,
                   const size_t *lens) {
    char buf[1024];
    size_t n = (size_t)sprintf(buf, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) put_bulk(buf, &n, argv[i], lens[i]);
    return memmem(aof, alen, buf, n) != NULL;
}

START_TEST(restore_propagation) {
    srv *sv = srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(sv);
    const golden *g = &GOLDEN[1];
    long long before = wall_now_ms();
    expect_status(c, "OK", "RESTORE rel 100000 %b", g->payload, g->len);
    expect_status(c, "OK", "RESTORE abs 4000000000000 %b ABSTTL", g->payload, g->len);
    expect_status(c, "OK", "RESTORE none 0 %b IDLETIME 5", g->payload, g->len);
    expect_status(c, "OK", "RESTORE gone 1 %b ABSTTL", g->payload, g->len);
    expect_status(c, "OK", "SET old v");
    expect_status(c, "OK", "RESTORE old 1 %b ABSTTL REPLACE", g->payload, g->len);
    expect_status(c, "OK", "SET marker end");
    redisReply *r = cmd(c, "PEXPIRETIME rel");
    long long when = r->integer;
    freeReplyObject(r);
    ck_assert_int_ge(when, before + 100000);
    char *t = NULL;
    size_t alen = 0;
    for (int i = 0; i < 100; i++) {   /* appendfsync always: there at once */
        free(t);
        t = aof_incr(sv, &alen);
        if (memmem(t, alen, "marker", 6)) break;
        h_sleep_ms(50);
    }
    char ws[32];
    snprintf(ws, sizeof ws, "%lld", when);
    /* a relative TTL goes out absolute, with ABSTTL appended */
    const char *rel[] = {"RESTORE", "rel", ws, g->payload, "ABSTTL"};
    size_t rell[] = {7, 3, strlen(ws), g->len, 6};
    ck_assert_msg(aof_has(t, alen, 5, rel, rell), "no RESTORE rel %s ... ABSTTL in the AOF", ws);
    /* the others as they were sent */
    const char *abs[] = {"RESTORE", "abs", "4000000000000", g->payload, "ABSTTL"};
    size_t absl[] = {7, 3, 13, g->len, 6};
    ck_assert(aof_has(t, alen, 5, abs, absl));
    const char *none[] = {"RESTORE", "none", "0", g->payload, "IDLETIME", "5"};
    size_t nonel[] = {7, 4, 1, g->len, 8, 1};
    ck_assert(aof_has(t, alen, 6, none, nonel));
    /* an expired TTL: nothing, or the DEL of the key it replaced */
    ck_assert_msg(!memmem(t, alen, "gone", 4), "an expired RESTORE was propagated");
    const char *del[] = {"DEL", "old"};
    size_t dell[] = {3, 3};
    ck_assert(aof_has(t, alen, 2, del, dell));
    ck_assert(!memmem(t, alen, "REPLACE", 7));
    free(t);
    redisFree(c);
    srv_stop(sv);
}
END_TEST

int main(void) {
    Suite *s = suite_create("dump");
    TCase *tc = tcase_create("dump");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, dump_round_trip);
    tcase_add_test(tc, dump_matches_redis);
    tcase_add_test(tc, restore_errors);
    tcase_add_test(tc, restore_idletime_freq);
    tcase_add_test(tc, restore_options);
    tcase_add_test(tc, restore_propagation);
    suite_add_tcase(s, tc);
    return h_main(s);
}
