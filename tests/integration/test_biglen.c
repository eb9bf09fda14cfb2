/* Integration tests: string values and replies longer than 4 GiB (lengths
 * are size_t end to end: obj, query buffer, reply buffer, uv writes).
 *
 * debug_populate_over_4gib always runs: DEBUG POPULATE's value is calloc'd,
 * so a 4 GiB value costs the server a few pages. The other two move real
 * bytes (set_over_4gib: ~9 GB in the server; reply_over_4gib: ~6 GB) and
 * run only where /proc/meminfo's MemAvailable leaves room for them; they
 * print what they found either way. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GIB ((long long)1 << 30)

/* MemAvailable in bytes (0 when unknown). */
static long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* 1 when `need` bytes are available; says so either way. */
static int have_memory(const char *test, long long need)
{
    long long have = mem_available();
    int ok = have >= need;
    printf("test_biglen: %s: needs %.1f GB of MemAvailable, %.1f GB available: %s\n",
           test, (double)need / 1e9, (double)have / 1e9, ok ? "running" : "NOT RUN");
    fflush(stdout);
    return ok;
}

/* Each command here copies or faults in gigabytes (a SETRANGE past 4 GiB
 * reallocates the value: under ASan a fresh 4 GiB copy), which took over
 * the connection's 20 s read timeout under ASan with another test running
 * beside it: these replies get 60 s, scaled for sanitizers. */
static void allow_slow_replies(redisContext *c)
{
    int ms = h_scaled_ms(60000);
    struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
    ck_assert_int_eq(redisSetTimeout(c, tv), REDIS_OK);
}

/* The bytes of a value: byte i is 'a' + i % 26. */
#define PATTERN_CHUNK (26 * 40000)

static char pattern_at(long long i) { return (char)('a' + i % 26); }

/* Sends n bytes of the pattern (starting at offset 0). */
static void send_pattern(int fd, long long n)
{
    char *chunk = malloc(PATTERN_CHUNK);
    ck_assert_ptr_nonnull(chunk);
    for (int i = 0; i < PATTERN_CHUNK; i++)
        chunk[i] = pattern_at(i);
    for (long long sent = 0; sent < n;) {
        long long k = n - sent < PATTERN_CHUNK ? n - sent : PATTERN_CHUNK;
        ck_assert_int_eq(raw_send(fd, chunk, (size_t)k), 0);
        sent += k;
    }
    free(chunk);
}

/* SET key <n pattern bytes> on a raw connection; checks +OK. */
static void raw_set(int port, const char *key, long long n)
{
    int fd = raw_connect(port);
    char head[128];
    snprintf(head, sizeof head, "*3\r\n$3\r\nSET\r\n$%zu\r\n%s\r\n$%lld\r\n",
             strlen(key), key, n);
    ck_assert_int_eq(raw_send_str(fd, head), 0);
    send_pattern(fd, n);
    ck_assert_int_eq(raw_send_str(fd, "\r\n"), 0);
    char got[64];
    int closed = 0;
    raw_read(fd, got, sizeof got, 5, 600000, &closed);
    ck_assert_str_eq(got, "+OK\r\n");
    close(fd);
}

/* Finding 2: DEBUG POPULATE of a value over 4 GiB wrote past a clamped
 * allocation (SIGSEGV). Now the value is whole, and editable past 4 GiB;
 * sizes over proto-max-bulk-len are refused (Redis has no bound there and
 * dies of DEBUG POPULATE 1 key 100000000000, so this is verso's own). */
START_TEST(debug_populate_over_4gib)
{
    if (srv_is_reference())
        return; /* see above: Redis allocates and zeroes, or dies */
    redisContext *c = h_c;
    allow_slow_replies(c);
    const long long n = 4 * GIB + 10;
    expect_error(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                 "DEBUG POPULATE 1 key %lld", n);
    expect_error(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)",
                 "DEBUG POPULATE 1 key 100000000000");
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "CONFIG SET proto-max-bulk-len 8gb");
    expect_status(c, "OK", "DEBUG POPULATE 1 key %lld", n);
    expect_int(c, n, "STRLEN key:0");
    redisReply *r = cmd(c, "GETRANGE key:0 0 7");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 8);
    ck_assert(memcmp(r->str, "value:0\0", 8) == 0);
    freeReplyObject(r);
    expect_int(c, n + 3, "SETRANGE key:0 %lld xyz", n);
    expect_int(c, n + 4, "APPEND key:0 !");
    expect_bulk(c, "xyz!", "GETRANGE key:0 -4 -1");
    expect_bulk(c, "xyz!", "GETRANGE key:0 %lld %lld", n, n + 3);
    expect_int(c, 1, "DEL key:0");
    expect_status(c, "PONG", "PING");
}
END_TEST

/* Finding 3: SET of 4 GiB + 10 bytes through the protocol (the query
 * buffer, the parser and the value), as Redis answers it. */
START_TEST(set_over_4gib)
{
    if (!have_memory("set_over_4gib", 14 * GIB))
        return;
    redisContext *c = h_c;
    allow_slow_replies(c);
    const long long n = 4 * GIB + 10;
    expect_status(c, "OK", "CONFIG SET proto-max-bulk-len 8gb");
    expect_status(c, "OK", "CONFIG SET client-query-buffer-limit 16gb");
    raw_set(h_srv->port, "big", n);
    expect_int(c, n, "STRLEN big");
    char want[16];
    for (int i = 0; i < 10; i++)
        want[i] = pattern_at(4 * GIB + i);
    want[10] = '\0';
    expect_bulk(c, want, "GETRANGE big %lld -1", 4 * GIB);
    expect_int(c, n + 2, "APPEND big !!");
    expect_bulk(c, "!!", "GETRANGE big -2 -1");
    expect_int(c, 1, "DEL big");
    expect_status(c, "PONG", "PING");
}
END_TEST

/* Reads the reply of MGET big x9 + PING and checks it byte for byte: 9
 * bulks of vlen pattern bytes then +PONG. Returns the bytes read. */
static long long read_mget_reply(int fd, long long vlen, int nkeys)
{
    char head[64];
    int hlen = snprintf(head, sizeof head, "$%lld\r\n", vlen);
    long long per = hlen + vlen + 2;
    long long total = 4 + nkeys * per + 7;
    char *buf = malloc(1 << 20);
    ck_assert_ptr_nonnull(buf);
    long long off = 0, bad = -1;
    while (off < total && bad < 0) {
        int closed = 0;
        size_t got = raw_read(fd, buf, 1 << 20, 1, 60000, &closed);
        if (got == 0)
            break;
        for (size_t i = 0; i < got && bad < 0; i++, off++) {
            char want;
            if (off < 4) {
                want = "*9\r\n"[off];
            } else if (off >= total - 7) {
                want = "+PONG\r\n"[off - (total - 7)];
            } else {
                long long in = (off - 4) % per;
                if (in < hlen)
                    want = head[in];
                else if (in < hlen + vlen)
                    want = pattern_at(in - hlen);
                else
                    want = "\r\n"[in - hlen - vlen];
            }
            if (buf[i] != want)
                bad = off;
        }
    }
    free(buf);
    ck_assert_msg(bad < 0, "reply differs at byte %lld", bad);
    return off;
}

/* Finding 5: a reply over 4 GiB was cut to its length modulo 2^32 (a cast
 * to unsigned for uv_buf_init) and the stream desynchronised: the audit's
 * SET k <512 MB>, MGET k x9, PING; Redis sends 4,831,838,345 bytes. */
START_TEST(reply_over_4gib)
{
    if (!have_memory("reply_over_4gib", 9 * GIB))
        return;
    allow_slow_replies(h_c);
    const long long vlen = 512LL * 1024 * 1024;
    raw_set(h_srv->port, "k", vlen);
    int fd = raw_connect(h_srv->port);
    const char *req = "*10\r\n$4\r\nMGET\r\n$1\r\nk\r\n$1\r\nk\r\n$1\r\nk\r\n$1\r\nk\r\n"
                      "$1\r\nk\r\n$1\r\nk\r\n$1\r\nk\r\n$1\r\nk\r\n$1\r\nk\r\n"
                      "*1\r\n$4\r\nPING\r\n";
    ck_assert_int_eq(raw_send_str(fd, req), 0);
    long long got = read_mget_reply(fd, vlen, 9);
    printf("test_biglen: reply_over_4gib: read %lld bytes\n", got);
    ck_assert_int_eq(got, 4831838345LL);
    close(fd);
    expect_status(h_c, "PONG", "PING");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("biglen");
    TCase *tc = tcase_create("biglen");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, debug_populate_over_4gib);
    tcase_add_test(tc, set_over_4gib);
    tcase_add_test(tc, reply_over_4gib);
    suite_add_tcase(s, tc);
    return h_main(s);
}
