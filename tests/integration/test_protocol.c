/* Integration tests: the wire protocol, through raw sockets. Deep pipelines
 * (10,000 commands in one write), inline commands, commands split across
 * writes, malformed input (each gets Redis 7.0's "-ERR Protocol error: ..."
 * and a closed connection, while other clients go on), the query buffer
 * and output buffer limits. */
#include "harness.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A growing byte buffer. */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void buf_add(buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        ck_assert_int_ge(n, 0);
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap * 2 + (size_t)n + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
}

/* After an abusive client: another connection is served as before. */
static void still_serving(void)
{
    expect_status(h_c, "PONG", "PING");
    expect_status(h_c, "OK", "SET alive yes");
    expect_bulk(h_c, "yes", "GET alive");
}

/* Sends input on a fresh connection; the server must answer exactly
 * `reply` and close the connection. */
static void expect_proto_error_len(const char *input, size_t len,
                                   const char *reply)
{
    int fd = raw_connect(h_srv->port);
    raw_send(fd, input, len);
    char got[512];
    int closed = 0;
    raw_read(fd, got, sizeof got, sizeof got - 1, 5000, &closed);
    ck_assert_msg(strcmp(got, reply) == 0, "input '%.40s': want reply '%s', got '%s'",
                  input, reply, got);
    ck_assert_msg(closed, "input '%.40s': connection left open", input);
    close(fd);
    still_serving();
}

static void expect_proto_error(const char *input, const char *reply)
{
    expect_proto_error_len(input, strlen(input), reply);
}

START_TEST(pipeline_10k_in_one_write)
{
    enum { N = 10000 };
    buf in = { 0 }, want = { 0 };
    long long ctr = 0;
    for (int i = 0; i < N; i++) {
        if (i % 3 == 0) {
            char k[32], v[32];
            int kl = snprintf(k, sizeof k, "key:%d", i);
            int vl = snprintf(v, sizeof v, "val:%d", i);
            buf_add(&in, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", kl, k, vl, v);
            buf_add(&want, "+OK\r\n");
        } else if (i % 3 == 1) {
            char k[32], v[32];
            int kl = snprintf(k, sizeof k, "key:%d", i - 1);
            int vl = snprintf(v, sizeof v, "val:%d", i - 1);
            buf_add(&in, "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", kl, k);
            buf_add(&want, "$%d\r\n%s\r\n", vl, v);
        } else {
            buf_add(&in, "*2\r\n$4\r\nINCR\r\n$3\r\nctr\r\n");
            buf_add(&want, ":%lld\r\n", ++ctr);
        }
    }
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send(fd, in.p, in.len), 0);
    char *got = malloc(want.len + 2);
    int closed;
    size_t n = raw_read(fd, got, want.len + 2, want.len, 20000, &closed);
    ck_assert_msg(n == want.len, "got %zu of %zu reply bytes", n, want.len);
    size_t diff = 0;
    while (diff < n && got[diff] == want.p[diff])
        diff++;
    ck_assert_msg(diff == n, "replies differ at byte %zu: got '%.30s' want '%.30s'",
                  diff, got + diff, want.p + diff);
    close(fd);
    free(got);
    free(in.p);
    free(want.p);
    expect_int(h_c, (N + 2) / 3 + 1, "DBSIZE"); /* SET keys + ctr */
}
END_TEST

START_TEST(pipeline_10k_hiredis)
{
    enum { N = 10000 };
    redisContext *c = h_c;
    for (int i = 0; i < N; i++) {
        redisAppendCommand(c, "NOSUCHCMD %d", i);
        redisAppendCommand(c, "SET k%d %d", i, i);
    }
    /* errors and OKs alternate, in order */
    for (int i = 0; i < N; i++) {
        redisReply *r = NULL;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
        ck_assert(strncmp(r->str, "ERR unknown command", 19) == 0);
        freeReplyObject(r);
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_msg(r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0,
                      "reply %d out of order", i);
        freeReplyObject(r);
    }
    expect_int(c, N, "DBSIZE");
    expect_bulk(c, "9999", "GET k9999");
}
END_TEST

/* Reads exactly the bytes of want from fd (5 s at most) and compares. */
static void raw_expect(int fd, const char *want)
{
    char got[1024];
    int closed;
    raw_read(fd, got, sizeof got, strlen(want), 5000, &closed);
    ck_assert_msg(strcmp(got, want) == 0, "want '%s', got '%s'%s", want, got,
                  closed ? " and EOF" : "");
}

START_TEST(inline_commands)
{
    int fd = raw_connect(h_srv->port);
    raw_send_str(fd, "PING\r\n");
    raw_expect(fd, "+PONG\r\n");
    raw_send_str(fd, "SET a b\r\nGET a\r\n");
    raw_expect(fd, "+OK\r\n$1\r\nb\r\n");
    raw_send_str(fd, "\r\n\r\nping\n");          /* empty lines, bare LF */
    raw_expect(fd, "+PONG\r\n");
    raw_send_str(fd, "SET \"a b\" \"c\\r\\nd\"\r\nSET 'q' 'single'\r\n");
    raw_expect(fd, "+OK\r\n+OK\r\n");
    raw_send_str(fd, "$-5\r\n");                 /* inline: an unknown command */
    raw_expect(fd, "-ERR unknown command '$-5', with args beginning with: \r\n");
    raw_send_str(fd, "ECHO \"\\x41\\x42\"\r\n");  /* and the connection goes on */
    raw_expect(fd, "$2\r\nAB\r\n");
    close(fd);
    expect_bulk(h_c, "c\r\nd", "GET %s", "a b");
    expect_bulk(h_c, "b", "GET a");
    expect_bulk(h_c, "single", "GET q");
}
END_TEST

START_TEST(commands_split_across_writes)
{
    int fd = raw_connect(h_srv->port);
    const char *set = "*3\r\n$3\r\nSET\r\n$5\r\nsplit\r\n$5\r\nvalue\r\n";
    for (const char *p = set; *p; p++) {         /* one byte per write */
        raw_send(fd, p, 1);
        if ((p - set) % 7 == 0)
            h_sleep_ms(5);
    }
    raw_expect(fd, "+OK\r\n");
    raw_send_str(fd, "*2\r\n$3\r\nGET\r\n$5\r\nsp");
    h_sleep_ms(50);
    raw_send_str(fd, "lit\r\n*1\r\n$4\r\nPI");
    h_sleep_ms(50);
    raw_send_str(fd, "NG\r\nPI");
    h_sleep_ms(50);
    raw_send_str(fd, "NG\r\n");
    raw_expect(fd, "$5\r\nvalue\r\n+PONG\r\n+PONG\r\n");
    close(fd);
}
END_TEST

START_TEST(malformed_multibulk)
{
    const char *e = "-ERR Protocol error: ";
    char want[128];
    snprintf(want, sizeof want, "%sinvalid multibulk length\r\n", e);
    expect_proto_error("*abc\r\n", want);
    snprintf(want, sizeof want, "%sinvalid bulk length\r\n", e);
    expect_proto_error("*1\r\n$-5\r\n", want);
    expect_proto_error("*1\r\n$abc\r\n", want);
    snprintf(want, sizeof want, "%sexpected '$', got ':'\r\n", e);
    expect_proto_error("*3\r\n$3\r\nSET\r\n:x\r\n", want);
    /* a pipeline: what came before the error is answered first */
    snprintf(want, sizeof want, "+PONG\r\n%sexpected '$', got 'x'\r\n", e);
    expect_proto_error("*1\r\n$4\r\nPING\r\n*1\r\nx\r\n", want);
}
END_TEST

START_TEST(malformed_inline)
{
    const char *want = "-ERR Protocol error: unbalanced quotes in request\r\n";
    expect_proto_error("SET \"a b\r\n", want);
    expect_proto_error("SET 'a b\r\n", want);
    expect_proto_error("SET \"a\"b c\r\n", want);
    size_t n = 70000;                            /* no newline in 64 KB */
    char *big = malloc(n);
    memset(big, 'a', n);
    expect_proto_error_len(big, n,
                           "-ERR Protocol error: too big inline request\r\n");
    free(big);
}
END_TEST

START_TEST(bulk_above_proto_max_bulk_len)
{
    expect_status(h_c, "OK", "CONFIG SET proto-max-bulk-len 1048576");
    expect_proto_error("*2\r\n$3\r\nGET\r\n$1048577\r\n",
                       "-ERR Protocol error: invalid bulk length\r\n");
    /* exactly the limit is fine */
    size_t n = 1048576;
    char *val = malloc(n);
    memset(val, 'z', n);
    expect_status(h_c, "OK", "SET big %b", val, n);
    expect_int(h_c, (long long)n, "STRLEN big");
    free(val);
}
END_TEST

START_TEST(query_buffer_limit)
{
    expect_status(h_c, "OK", "CONFIG SET client-query-buffer-limit 1048576");
    int fd = raw_connect(h_srv->port);
    const char *head = "*3\r\n$3\r\nSET\r\n$4\r\nqbuf\r\n$3000000\r\n";
    raw_send_str(fd, head);
    size_t n = 2000000;                          /* never completed */
    char *data = malloc(n);
    memset(data, 'q', n);
    raw_send(fd, data, n);                       /* may fail: closed midway */
    free(data);
    size_t extra = 0;
    ck_assert_msg(raw_wait_closed(fd, 5000, &extra),
                  "client above client-query-buffer-limit not closed");
    close(fd);
    still_serving();
    expect_int(h_c, 0, "EXISTS qbuf");
    /* a command below the limit passes */
    size_t small = 500000;
    char *val = malloc(small);
    memset(val, 's', small);
    expect_status(h_c, "OK", "SET qbuf %b", val, small);
    free(val);
}
END_TEST

START_TEST(big_values_round_trip)
{
    redisContext *c = h_c;
    size_t n = 4 * 1024 * 1024;
    char *val = malloc(n);
    for (size_t i = 0; i < n; i++)
        val[i] = (char)(i * 7 + (i >> 12));
    expect_status(c, "OK", "SET big %b", val, n);
    redisReply *r = cmd(c, "GET big");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, n);
    ck_assert(memcmp(r->str, val, n) == 0);
    freeReplyObject(r);
    expect_int(c, (long long)n + 3, "APPEND big abc");
    free(val);
}
END_TEST

START_TEST(slow_reader_disconnected)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "CONFIG SET client-output-buffer-limit %s",
                  "normal 262144 0 0");
    size_t vlen = 100000;
    char *val = malloc(vlen);
    memset(val, 'o', vlen);
    expect_status(c, "OK", "SET big %b", val, vlen);
    free(val);

    enum { GETS = 2000 };                        /* ~200 MB of replies */
    int fd = raw_connect(h_srv->port);
    buf in = { 0 };
    for (int i = 0; i < GETS; i++)
        buf_add(&in, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n");
    raw_send(fd, in.p, in.len);                  /* and never read */
    free(in.p);

    long long deadline = h_now_ms() + 10000;
    while (h_info_int(c, "clients", "connected_clients") != 1 &&
           h_now_ms() < deadline)
        h_sleep_ms(50);
    ck_assert_int_eq(h_info_int(c, "clients", "connected_clients"), 1);
    size_t total = 0;
    ck_assert_msg(raw_wait_closed(fd, 10000, &total), "slow reader still open");
    ck_assert_msg(total < (size_t)GETS * vlen / 2,
                  "slow reader got %zu bytes before the cut", total);
    close(fd);
    still_serving();
    redisReply *r = cmd(c, "GET big");
    ck_assert_uint_eq(r->len, vlen);
    freeReplyObject(r);
}
END_TEST

/* Output that the client's id holds, obl + omem of its CLIENT LIST line
 * (-1 when it is gone). */
static long long client_output(redisContext *c, long long id)
{
    redisReply *r = cmd(c, "CLIENT LIST ID %lld", id);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    long long out = -1;
    const char *obl = strstr(r->str, " obl="), *omem = strstr(r->str, " omem=");
    if (obl && omem)
        out = atoll(obl + 5) + atoll(omem + 6);
    freeReplyObject(r);
    return out;
}

/* The GETs arrive one at a time, so each reply is flushed on its own and
 * what piles up once the kernel stops taking bytes sits behind a write in
 * flight: the limit applies to it too, and to each reply as it is added.
 * (Checked only when no write was in flight, such a reader stayed
 * connected with up to 4 MB queued.) */
START_TEST(slow_reader_trickle_disconnected)
{
    redisContext *c = h_c;
    const long long limit = 262144, vlen = 100000;
    expect_status(c, "OK", "CONFIG SET client-output-buffer-limit %s",
                  "normal 262144 0 0");
    char *val = malloc((size_t)vlen);
    memset(val, 't', (size_t)vlen);
    expect_status(c, "OK", "SET big %b", val, (size_t)vlen);
    free(val);

    int fd = raw_connect_rcvbuf(h_srv->port, 4096); /* the kernel holds little */
    int one = 1;                                 /* each GET its own segment */
    ck_assert_int_eq(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one), 0);
    raw_send_str(fd, "*2\r\n$6\r\nCLIENT\r\n$2\r\nID\r\n");
    char idbuf[64];
    int closed;
    raw_read(fd, idbuf, sizeof idbuf, 3, 2000, &closed);
    ck_assert_int_eq(idbuf[0], ':');
    long long id = atoll(idbuf + 1), most = 0;
    int sent = 0;
    for (; sent < 400; sent++) {                 /* 40 MB of replies at most */
        if (raw_send_str(fd, "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n") != 0)
            break;                               /* the server closed it */
        h_sleep_ms(2);
        long long out = client_output(c, id);
        if (out < 0)
            break;
        if (out > most)
            most = out;
    }
    ck_assert_msg(most < limit + 2 * vlen,
                  "%lld bytes queued for the reader, over a %lld limit", most, limit);
    ck_assert_msg(client_output(c, id) < 0,
                  "trickling slow reader still connected after %d GETs", sent);
    close(fd);
    still_serving();
}
END_TEST

START_TEST(many_abusers_then_normal_load)
{
    const char *inputs[] = { "*abc\r\n", "*1\r\n$-5\r\n",
                             "*3\r\n$3\r\nSET\r\n:x\r\n", "SET \"a b\r\n" };
    for (int round = 0; round < 50; round++) {
        int fd = raw_connect(h_srv->port);
        const char *in = inputs[round % 4];
        raw_send_str(fd, in);
        ck_assert_msg(raw_wait_closed(fd, 5000, NULL), "abuser %d not closed",
                      round);
        close(fd);
    }
    /* a client that vanishes mid-command */
    for (int round = 0; round < 50; round++) {
        int fd = raw_connect(h_srv->port);
        raw_send_str(fd, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nhalf");
        close(fd);
    }
    for (int i = 0; i < 100; i++)
        expect_status(h_c, "OK", "SET n:%d %d", i, i);
    expect_int(h_c, 100, "DBSIZE");
    long long deadline = h_now_ms() + 5000;
    while (h_info_int(h_c, "clients", "connected_clients") != 1 &&
           h_now_ms() < deadline)
        h_sleep_ms(20);
    ck_assert_int_eq(h_info_int(h_c, "clients", "connected_clients"), 1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("protocol");
    TCase *tc = tcase_create("protocol");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 45);
    tcase_add_test(tc, pipeline_10k_in_one_write);
    tcase_add_test(tc, pipeline_10k_hiredis);
    tcase_add_test(tc, inline_commands);
    tcase_add_test(tc, commands_split_across_writes);
    tcase_add_test(tc, malformed_multibulk);
    tcase_add_test(tc, malformed_inline);
    tcase_add_test(tc, bulk_above_proto_max_bulk_len);
    tcase_add_test(tc, query_buffer_limit);
    tcase_add_test(tc, big_values_round_trip);
    tcase_add_test(tc, slow_reader_disconnected);
    tcase_add_test(tc, slow_reader_trickle_disconnected);
    tcase_add_test(tc, many_abusers_then_normal_load);
    suite_add_tcase(s, tc);
    return h_main(s);
}
