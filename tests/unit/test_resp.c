/* test_resp: the RESP2 parser and encoder against Redis 7.0's behaviour.
 *
 * Expected texts and edge cases were checked against redis-server 7.0.15:
 * error strings, the 64 KiB header/inline limits, empty inline arguments
 * being kept, NUL bytes hiding a line end, and the byte after '\r' being
 * skipped unread. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "resp.h"
#include "util.h"
#include "vbuf.h"
#include "testrand.h"

#define K64 (64 * 1024)

static const resp_limits LIM = {512LL * 1024 * 1024, 1024 * 1024, K64, 0};

/* Arguments of a parsed command as "[a][b]" with bytes outside printable
 * ASCII (and '[', ']', '\\') as \xHH, so that results compare as strings. */
static char *dump_args(const resp_req *r, const char *buf) {
    vbuf b;
    vbuf_init(&b);
    for (int i = 0; i < r->argc; i++) {
        const unsigned char *p = (const unsigned char *)resp_arg(r, buf, i);
        vbuf_append(&b, "[", 1);
        for (size_t j = 0; j < r->arglen[i]; j++) {
            char tmp[8];
            if (p[j] < 0x20 || p[j] > 0x7e || p[j] == '[' || p[j] == ']' ||
                p[j] == '\\') {
                snprintf(tmp, sizeof tmp, "\\x%02x", p[j]);
                vbuf_append_str(&b, tmp);
            } else {
                vbuf_append(&b, &p[j], 1);
            }
        }
        vbuf_append(&b, "]", 1);
    }
    vbuf_append(&b, "", 1);
    return b.data;
}

/* Parses one command from buf[0..len) with a fresh request; returns the
 * code and, in *out, the dump (DONE) or the error text (ERROR). */
static int parse_one(const char *buf, size_t len, const resp_limits *lim,
                     char **out, size_t *pos) {
    resp_req r;
    resp_req_init(&r);
    const char *err = NULL;
    int rc = resp_parse(&r, buf, len, lim, &err);
    *out = NULL;
    if (rc == RESP_DONE) *out = dump_args(&r, buf);
    if (rc == RESP_ERROR) *out = xstrdup(err);
    if (pos) *pos = r.pos;
    resp_req_free(&r);
    return rc;
}

static void expect(const char *buf, size_t len, int want_rc, const char *want) {
    char *got;
    int rc = parse_one(buf, len, &LIM, &got, NULL);
    ck_assert_msg(rc == want_rc, "rc %d, want %d for input of %zu bytes", rc,
                  want_rc, len);
    if (want) ck_assert_str_eq(got, want);
    free(got);
}
#define EXPECT(lit, rc, want) expect(lit, sizeof(lit) - 1, rc, want)

/* Feeds buf in prefixes of every length (each in a fresh exact-size copy,
 * so ASan catches a read past len) to one request, and checks it answers
 * MORE until the whole input, then what one whole-buffer call answers. */
static void check_every_split(const char *buf, size_t len) {
    char *whole;
    size_t whole_pos;
    int whole_rc = parse_one(buf, len, &LIM, &whole, &whole_pos);
    ck_assert_int_ne(whole_rc, RESP_MORE);
    resp_req r;
    resp_req_init(&r);
    const char *err = NULL;
    int rc = RESP_MORE;
    size_t k;
    char *copy = NULL;
    for (k = 0; k <= len && rc == RESP_MORE; k++) {
        free(copy);
        copy = xmalloc(k ? k : 1);
        memcpy(copy, buf, k);
        rc = resp_parse(&r, copy, k, &LIM, &err);
    }
    ck_assert_int_eq(rc, whole_rc);
    if (rc == RESP_DONE) {
        ck_assert_uint_eq(k - 1, len); /* not done before the last byte */
        ck_assert_uint_eq(r.pos, whole_pos);
        char *d = dump_args(&r, copy);
        ck_assert_str_eq(d, whole);
        free(d);
    } else {
        ck_assert_str_eq(err, whole);
    }
    free(copy);
    free(whole);
    resp_req_free(&r);
}

/* ---- whole commands ---- */

START_TEST(test_multibulk_whole) {
    EXPECT("*3\r\n$3\r\nSET\r\n$1\r\na\r\n$5\r\nhello\r\n", RESP_DONE,
           "[SET][a][hello]");
    EXPECT("*1\r\n$4\r\nPING\r\n", RESP_DONE, "[PING]");
    EXPECT("*2\r\n$3\r\nGET\r\n$0\r\n\r\n", RESP_DONE, "[GET][]");
    char *got;
    size_t pos;
    const char in[] = "*1\r\n$4\r\nPING\r\n*1\r\n";
    ck_assert_int_eq(parse_one(in, sizeof in - 1, &LIM, &got, &pos), RESP_DONE);
    ck_assert_uint_eq(pos, 14); /* only the first command */
    free(got);
}
END_TEST

START_TEST(test_inline_whole) {
    EXPECT("PING\r\n", RESP_DONE, "[PING]");
    EXPECT("SET a b\n", RESP_DONE, "[SET][a][b]");
    EXPECT("  SET   a\tb  \r\n", RESP_DONE, "[SET][a][b]");
    char *got;
    size_t pos;
    const char in[] = "SET k v\r\nGET k\r\n";
    ck_assert_int_eq(parse_one(in, sizeof in - 1, &LIM, &got, &pos), RESP_DONE);
    ck_assert_uint_eq(pos, 9);
    ck_assert_str_eq(got, "[SET][k][v]");
    free(got);
}
END_TEST

START_TEST(test_empty_commands) {
    char *got;
    size_t pos;
    static const struct { const char *in; size_t pos; } cases[] = {
        {"\r\n", 2}, {"\n", 1}, {"   \r\n", 5}, {" \t\v\f\n", 5},
        {"*0\r\n", 4}, {"*-1\r\n", 5}, {"*-100\r\n", 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(parse_one(cases[i].in, strlen(cases[i].in), &LIM,
                                   &got, &pos), RESP_DONE);
        ck_assert_str_eq(got, ""); /* argc 0 */
        ck_assert_uint_eq(pos, cases[i].pos);
        free(got);
    }
}
END_TEST

START_TEST(test_binary_bulks) {
    const char in[] = "*3\r\n$3\r\nSET\r\n$3\r\nk\0\r\r\n$6\r\n\r\n\0\r\n\0\r\n";
    EXPECT(in, RESP_DONE, "[SET][k\\x00\\x0d][\\x0d\\x0a\\x00\\x0d\\x0a\\x00]");
    check_every_split(in, sizeof in - 1);
}
END_TEST

/* Redis skips the byte after a header's '\r' and the two after a payload
 * without looking at them; so do we. */
START_TEST(test_redis_quirks) {
    EXPECT("*1\rX$4\rXPINGXY", RESP_DONE, "[PING]");
    /* a NUL before the line end hides it (strchr): wait */
    EXPECT("*1\0\r\n$4\r\nPING\r\n", RESP_MORE, NULL);
    EXPECT("*1\r\n$4\0\r\nPING\r\n", RESP_MORE, NULL);
    EXPECT("ECHO a\0b\r\nPING\r\n", RESP_MORE, NULL);
    EXPECT("*1\r\n\0\r\n", RESP_MORE, NULL);
    /* a NUL inside a payload is data */
    EXPECT("*1\r\n$1\r\n\0\r\n", RESP_DONE, "[\\x00]");
}
END_TEST

/* ---- byte-boundary splits ---- */

START_TEST(test_every_split_valid) {
    static const char *cmds[] = {
        "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n",
        "*1\r\n$0\r\n\r\n",
        "*0\r\n",
        "*-1\r\n",
        "*2\r\n$4\r\nECHO\r\n$20\r\n0123456789\r\n01234567\r\n",
        "PING\r\n",
        "SET a \"b c\\x41\\n\" 'd\\'e'\r\n",
        "\r\n",
        "  \n",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        check_every_split(cmds[i], strlen(cmds[i]));
}
END_TEST

START_TEST(test_every_split_errors) {
    static const char *cmds[] = {
        "*abc\r\n", "*1\r\nx\r\n", "*1\r\n$-1\r\n", "*2\r\n$1\r\na\r\n:1\r\n",
        "ECHO \"a\"b\r\n", "*1\r\n$99999999999\r\n",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        check_every_split(cmds[i], strlen(cmds[i]));
}
END_TEST

/* ---- pipelines ---- */

START_TEST(test_pipeline) {
    vbuf in;
    vbuf_init(&in);
    const int n = 5000;
    for (int i = 0; i < n; i++) {
        char tmp[128];
        if (i % 3 == 2)
            snprintf(tmp, sizeof tmp, "SET key:%d \"v %d\"\r\n", i, i);
        else
            snprintf(tmp, sizeof tmp, "*3\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$1\r\nv\r\n",
                     4 + snprintf(NULL, 0, "%d", i), i);
        vbuf_append_str(&in, tmp);
    }
    resp_req r;
    resp_req_init(&r);
    size_t off = 0;
    int seen = 0;
    const char *err;
    while (off < in.len) {
        ck_assert_int_eq(resp_parse(&r, in.data + off, in.len - off, &LIM, &err),
                         RESP_DONE);
        char want[128], *got = dump_args(&r, in.data + off);
        if (seen % 3 == 2)
            snprintf(want, sizeof want, "[SET][key:%d][v %d]", seen, seen);
        else
            snprintf(want, sizeof want, "[SET][key:%d][v]", seen);
        ck_assert_str_eq(got, want);
        free(got);
        off += r.pos;
        resp_req_reset(&r);
        seen++;
    }
    ck_assert_int_eq(seen, n);
    ck_assert_int_eq(resp_parse(&r, in.data + off, 0, &LIM, &err), RESP_MORE);
    resp_req_free(&r);
    vbuf_free(&in);
}
END_TEST

/* ---- malformed input: Redis 7.0's exact texts ---- */

START_TEST(test_multibulk_errors) {
    const char *mb = "Protocol error: invalid multibulk length";
    const char *bl = "Protocol error: invalid bulk length";
    EXPECT("*abc\r\n", RESP_ERROR, mb);
    EXPECT("*\r\n", RESP_ERROR, mb);
    EXPECT("*01\r\n", RESP_ERROR, mb);
    EXPECT("*+1\r\n", RESP_ERROR, mb);
    EXPECT("*1 \r\n", RESP_ERROR, mb);
    EXPECT("*-0\r\n", RESP_ERROR, mb);
    EXPECT("*99999999999\r\n", RESP_ERROR, mb);
    EXPECT("*99999999999999999999999\r\n", RESP_ERROR, mb);
    EXPECT("*1\r\nx\r\n", RESP_ERROR, "Protocol error: expected '$', got 'x'");
    EXPECT("*1\r\n\r\n", RESP_ERROR, "Protocol error: expected '$', got ' '");
    EXPECT("*1\r\n\n\r\n", RESP_ERROR, "Protocol error: expected '$', got ' '");
    EXPECT("*2\r\n$1\r\na\r\n:1\r\n", RESP_ERROR,
           "Protocol error: expected '$', got ':'");
    EXPECT("*1\r\n$-1\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$abc\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$01\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$999999999999\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$99999999999999999999999\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$536870913\r\n", RESP_ERROR, bl);
    EXPECT("*1\r\n$536870912\r\n", RESP_MORE, NULL);
    /* incomplete lines wait */
    EXPECT("*1", RESP_MORE, NULL);
    EXPECT("*1\r", RESP_MORE, NULL);
    EXPECT("*1\r\n$", RESP_MORE, NULL);
    EXPECT("*1\r\nx", RESP_MORE, NULL);
}
END_TEST

START_TEST(test_inline_errors) {
    const char *uq = "Protocol error: unbalanced quotes in request";
    EXPECT("ECHO \"a\"b\r\n", RESP_ERROR, uq);
    EXPECT("ECHO 'a'b\r\n", RESP_ERROR, uq);
    EXPECT("ECHO \"a\r\n", RESP_ERROR, uq);
    EXPECT("ECHO 'a\r\n", RESP_ERROR, uq);
    EXPECT("ECHO \"a\\\r\n", RESP_ERROR, uq);
    EXPECT("ECHO \"\\x4\r\n", RESP_ERROR, uq);
    EXPECT("\"\r\n", RESP_ERROR, uq);
    EXPECT("ECHO \"a", RESP_MORE, NULL);
}
END_TEST

/* The 64 KiB limits, at the byte where redis-server 7.0.15 gives up. */
START_TEST(test_line_limits) {
    size_t n = K64 + 64;
    char *buf = xmalloc(n);
    memset(buf, '1', n);
    buf[0] = '*';
    expect(buf, K64, RESP_MORE, NULL);
    expect(buf, K64 + 1, RESP_ERROR, "Protocol error: too big mbulk count string");
    memcpy(buf + K64 + 10, "\r\n", 2); /* a line end far away: parsed */
    expect(buf, K64 + 12, RESP_ERROR, "Protocol error: invalid multibulk length");

    memset(buf, '1', n);
    memcpy(buf, "*1\r\n$", 5);
    expect(buf, K64 + 4, RESP_MORE, NULL);
    expect(buf, K64 + 5, RESP_ERROR, "Protocol error: too big bulk count string");

    memset(buf, 'a', n);
    memcpy(buf, "ECHO ", 5);
    expect(buf, K64, RESP_MORE, NULL);
    expect(buf, K64 + 1, RESP_ERROR, "Protocol error: too big inline request");
    buf[K64 + 10] = '\n'; /* a long line that did end is accepted */
    char *got;
    ck_assert_int_eq(parse_one(buf, K64 + 11, &LIM, &got, NULL), RESP_DONE);
    ck_assert_uint_eq(strlen(got), 6 + 2 + (K64 + 10 - 5));
    free(got);
    free(buf);
}
END_TEST

START_TEST(test_custom_limits) {
    resp_limits lim = {10, 3, 16, 0};
    char *got;
    const char ok[] = "*3\r\n$10\r\n0123456789\r\n$1\r\na\r\n$0\r\n\r\n";
    ck_assert_int_eq(parse_one(ok, sizeof ok - 1, &lim, &got, NULL), RESP_DONE);
    ck_assert_str_eq(got, "[0123456789][a][]");
    free(got);
    const char big[] = "*1\r\n$11\r\n01234567890\r\n";
    ck_assert_int_eq(parse_one(big, sizeof big - 1, &lim, &got, NULL), RESP_ERROR);
    ck_assert_str_eq(got, "Protocol error: invalid bulk length");
    free(got);
    const char many[] = "*4\r\n";
    ck_assert_int_eq(parse_one(many, 4, &lim, &got, NULL), RESP_ERROR);
    ck_assert_str_eq(got, "Protocol error: invalid multibulk length");
    free(got);
    const char line[] = "GET 0123456789ab";   /* 16 bytes: waits */
    ck_assert_int_eq(parse_one(line, 16, &lim, &got, NULL), RESP_MORE);
    ck_assert_int_eq(parse_one("GET 0123456789abc", 17, &lim, &got, NULL),
                     RESP_ERROR);
    ck_assert_str_eq(got, "Protocol error: too big inline request");
    free(got);
}
END_TEST

/* Before AUTH: at most 10 arguments of at most 16 KiB (Redis 7), checked
 * on the announcement, before any byte of the bulk arrives. */
START_TEST(test_unauthenticated_limits) {
    resp_limits lim = LIM;
    lim.unauthenticated = 1;
    char *got;
    ck_assert_int_eq(parse_one("*11\r\n", 5, &lim, &got, NULL), RESP_ERROR);
    ck_assert_str_eq(got, "Protocol error: unauthenticated multibulk length");
    free(got);
    const char bulk[] = "*2\r\n$4\r\nECHO\r\n$16385\r\n";
    ck_assert_int_eq(parse_one(bulk, sizeof bulk - 1, &lim, &got, NULL), RESP_ERROR);
    ck_assert_str_eq(got, "Protocol error: unauthenticated bulk length");
    free(got);
    /* the limits themselves pass */
    const char ten[] = "*10\r\n$16384\r\n";
    ck_assert_int_eq(parse_one(ten, sizeof ten - 1, &lim, &got, NULL), RESP_MORE);
    /* and the ordinary limits still come first */
    ck_assert_int_eq(parse_one("*-1\r\n", 5, &lim, &got, NULL), RESP_DONE);
    free(got);
    lim.unauthenticated = 0;
    ck_assert_int_eq(parse_one("*11\r\n", 5, &lim, &got, NULL), RESP_MORE);
    ck_assert_int_eq(parse_one(bulk, sizeof bulk - 1, &lim, &got, NULL), RESP_MORE);
}
END_TEST

/* An announced count or length costs nothing until its bytes arrive. */
START_TEST(test_huge_announcements) {
    resp_req r;
    resp_req_init(&r);
    const char *err;
    const char a[] = "*1048576\r\n$1\r\nx\r\n";
    ck_assert_int_eq(resp_parse(&r, a, 10, &LIM, &err), RESP_MORE);
    ck_assert_int_eq(r.argcap, 0);
    ck_assert_int_eq(r.nargs, 1048576);
    ck_assert_int_eq(resp_parse(&r, a, sizeof a - 1, &LIM, &err), RESP_MORE);
    ck_assert_int_eq(r.argc, 1);
    ck_assert_int_le(r.argcap, 16);
    resp_req_reset(&r);
    const char b[] = "*1\r\n$536870912\r\nabc";
    ck_assert_int_eq(resp_parse(&r, b, sizeof b - 1, &LIM, &err), RESP_MORE);
    ck_assert_int_eq(r.bulklen, 536870912);
    ck_assert_uint_eq(r.pos, 16);
    resp_req_free(&r);
}
END_TEST

/* ---- inline quoting (sdssplitargs) ---- */

START_TEST(test_inline_quoting) {
    static const struct { const char *in, *want; } cases[] = {
        {"SET a \"\"\r\n", "[SET][a][]"},          /* Redis 7 keeps "" */
        {"SET a ''\r\n", "[SET][a][]"},
        {"\"\"\r\n", "[]"},
        {"ECHO \"a b\\n\\r\\t\\b\\a\\\\\\\"\\q\"\r\n",
         "[ECHO][a b\\x0a\\x0d\\x09\\x08\\x07\\x5c\"q]"},
        {"ECHO \"\\x41\\x4g\\n\"\r\n", "[ECHO][Ax4g\\x0a]"},
        {"ECHO \"\\xfF\\x00z\"\r\n", "[ECHO][\\xff\\x00z]"},
        {"ECHO 'a\\'b\\\"'\r\n", "[ECHO][a'b\\x5c\"]"},
        {"ECHO 'a\\nb'\r\n", "[ECHO][a\\x5cnb]"},
        {"ECHO ab\"cd\"\r\n", "[ECHO][abcd]"},
        {"ECHO a'b c'\r\n", "[ECHO][ab c]"},
        {"ECHO a\vb\r\n", "[ECHO][a\\x0bb]"},
        {"ECHO \va\r\n", "[ECHO][a]"},
        {"ECHO \"a\"\vx\r\n", "[ECHO][a][x]"},
        {"ECHO \"a\"\r\n", "[ECHO][a]"},
        {"ECHO \"a\" 'b'\n", "[ECHO][a][b]"},
        {"a\rb\n", "[a][b]"},
        {"a\r\r\n", "[a]"},
        {"ECHO \"\r\"\r\n", "[ECHO][\\x0d]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got;
        int rc = parse_one(cases[i].in, strlen(cases[i].in), &LIM, &got, NULL);
        ck_assert_msg(rc == RESP_DONE, "case %zu: rc %d", i, rc);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
        check_every_split(cases[i].in, strlen(cases[i].in));
    }
}
END_TEST

/* ---- encoder ---- */

static void expect_out(vbuf *b, const char *want, size_t n) {
    ck_assert_uint_eq(b->len, n);
    ck_assert(memcmp(b->data, want, n) == 0);
    vbuf_reset(b);
}
#define OUT(b, lit) expect_out(b, lit, sizeof(lit) - 1)

START_TEST(test_encoder) {
    vbuf b;
    vbuf_init(&b);
    resp_add_status(&b, "OK");
    OUT(&b, "+OK\r\n");
    resp_add_error(&b, "ERR bad\r\nthing\n");
    OUT(&b, "-ERR bad  thing \r\n");
    resp_add_errorf(&b, "ERR %s x %d", "a\nb", 7);
    OUT(&b, "-ERR a b x 7\r\n");
    resp_add_errorf(&b, "\n%s\r\n", "WRONGTYPE x\ry");
    OUT(&b, "-WRONGTYPE x y\r\n");
    char longmsg[1001];
    memset(longmsg, 'z', 1000);
    longmsg[1000] = '\0';
    resp_add_errorf(&b, "ERR %s", longmsg);
    ck_assert_uint_eq(b.len, 1 + 4 + 1000 + 2);
    ck_assert(memcmp(b.data + 5, longmsg, 1000) == 0);
    vbuf_reset(&b);
    resp_add_int(&b, 0);
    resp_add_int(&b, -1);
    resp_add_int(&b, LLONG_MIN);
    resp_add_int(&b, LLONG_MAX);
    OUT(&b, ":0\r\n:-1\r\n:-9223372036854775808\r\n:9223372036854775807\r\n");
    resp_add_bulk(&b, "a\0\r\n", 4);
    resp_add_bulk(&b, "", 0);
    resp_add_bulk(&b, NULL, 0);
    OUT(&b, "$4\r\na\0\r\n\r\n$0\r\n\r\n$0\r\n\r\n");
    resp_add_bulk_str(&b, "hello");
    resp_add_bulk_ll(&b, -42);
    resp_add_bulk_ll(&b, LLONG_MIN);
    OUT(&b, "$5\r\nhello\r\n$3\r\n-42\r\n$20\r\n-9223372036854775808\r\n");
    resp_add_nil(&b);
    resp_add_nil_array(&b);
    resp_add_array(&b, 3);
    resp_add_array(&b, 0);
    OUT(&b, "$-1\r\n*-1\r\n*3\r\n*0\r\n");
    vbuf_free(&b);
}
END_TEST

/* The RESP3 types, as Redis 7.0 writes them (doubles: inf and -inf
 * spelled out, anything else "%.17g" as addReplyDouble prints it, so a
 * negative NaN is "-nan"). */
START_TEST(test_encoder_resp3) {
    vbuf b;
    vbuf_init(&b);
    resp_add_map(&b, 2);
    resp_add_set(&b, 0);
    resp_add_push(&b, 3);
    resp_add_attribute(&b, 1);
    OUT(&b, "%2\r\n~0\r\n>3\r\n|1\r\n");
    resp_add_null(&b);
    resp_add_bool(&b, 1);
    resp_add_bool(&b, 0);
    OUT(&b, "_\r\n#t\r\n#f\r\n");
    resp_add_double(&b, 1.5);
    resp_add_double(&b, 0.1);
    resp_add_double(&b, -0.0);
    resp_add_double(&b, 1e300);
    resp_add_double(&b, 1.0 / 0.0);
    resp_add_double(&b, -1.0 / 0.0);
    OUT(&b, ",1.5\r\n,0.10000000000000001\r\n,-0\r\n,1.0000000000000001e+300\r\n"
            ",inf\r\n,-inf\r\n");
    char nan_s[16], mnan_s[16], want[64];
    snprintf(nan_s, sizeof nan_s, "%.17g", __builtin_nan(""));
    snprintf(mnan_s, sizeof mnan_s, "%.17g", -__builtin_nan(""));
    resp_add_double(&b, __builtin_nan(""));
    resp_add_double(&b, -__builtin_nan(""));
    snprintf(want, sizeof want, ",%s\r\n,%s\r\n", nan_s, mnan_s);
    ck_assert_str_eq(mnan_s, "-nan"); /* glibc: what Redis prints */
    expect_out(&b, want, strlen(want));
    resp_add_bignum(&b, "1234567999999999999999999999999999999", 37);
    OUT(&b, "(1234567999999999999999999999999999999\r\n");
    resp_add_verbatim(&b, "a\r\nb", 4, "txt");
    resp_add_verbatim(&b, NULL, 0, "mkd");
    OUT(&b, "=8\r\ntxt:a\r\nb\r\n=4\r\nmkd:\r\n");
    vbuf_free(&b);
}
END_TEST

/* The encoder's output parses back to what was encoded. */
START_TEST(test_encoder_parser_roundtrip) {
    vbuf b;
    vbuf_init(&b);
    resp_add_array(&b, 3);
    resp_add_bulk_str(&b, "SET");
    resp_add_bulk(&b, "k\r\n", 3);
    resp_add_bulk_ll(&b, -7);
    char *got;
    ck_assert_int_eq(parse_one(b.data, b.len, &LIM, &got, NULL), RESP_DONE);
    ck_assert_str_eq(got, "[SET][k\\x0d\\x0a][-7]");
    free(got);
    vbuf_free(&b);
}
END_TEST

/* ---- big inputs arriving in 16 KB reads ---- */

START_TEST(test_million_args) {
    const int n = 1000000;
    vbuf in;
    vbuf_init(&in);
    vbuf_append_str(&in, "*1000000\r\n");
    for (int i = 0; i < n; i++) vbuf_append(&in, "$1\r\nx\r\n", 7);
    resp_req r;
    resp_req_init(&r);
    const char *err;
    size_t len = 0;
    int rc = RESP_MORE, calls = 0;
    clock_t t0 = clock();
    while (rc == RESP_MORE) {
        len = len + 16384 < in.len ? len + 16384 : in.len;
        rc = resp_parse(&r, in.data, len, &LIM, &err);
        calls++;
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_int_eq(rc, RESP_DONE);
    ck_assert_uint_eq(len, in.len);
    ck_assert_uint_eq(r.pos, in.len);
    ck_assert_int_eq(r.argc, n);
    for (int i = 0; i < n; i += 99991) {
        ck_assert_uint_eq(r.arglen[i], 1);
        ck_assert_int_eq(*resp_arg(&r, in.data, i), 'x');
    }
    ck_assert_msg(secs < 5.0, "%d calls took %.2f s", calls, secs);
    resp_req_reset(&r);
    ck_assert_int_eq(r.argcap, 0); /* the big arrays are not kept */
    resp_req_free(&r);
    vbuf_free(&in);
}
END_TEST

/* 32 MB bulk in 16 KB steps: 2048 calls. A parser that looked at the
 * payload again on each call would read ~32 GB and time out. */
START_TEST(test_big_bulk_incremental) {
    const size_t blen = 32u << 20;
    const char hdr[] = "*2\r\n$3\r\nSET\r\n$33554432\r\n";
    size_t total = sizeof hdr - 1 + blen + 2;
    char *buf = xcalloc(1, total);
    memcpy(buf, hdr, sizeof hdr - 1);
    memcpy(buf + total - 2, "\r\n", 2);
    resp_req r;
    resp_req_init(&r);
    const char *err;
    size_t len = 0;
    int rc = RESP_MORE;
    clock_t t0 = clock();
    while (rc == RESP_MORE) {
        len = len + 16384 < total ? len + 16384 : total;
        rc = resp_parse(&r, buf, len, &LIM, &err);
        if (rc == RESP_MORE && len > sizeof hdr)
            ck_assert_int_eq(r.bulklen, (long long)blen);
    }
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    ck_assert_int_eq(rc, RESP_DONE);
    ck_assert_uint_eq(len, total);
    ck_assert_int_eq(r.argc, 2);
    ck_assert_uint_eq(r.arglen[1], blen);
    ck_assert_ptr_eq(resp_arg(&r, buf, 1), buf + sizeof hdr - 1);
    ck_assert_msg(secs < 2.0, "took %.2f s", secs);
    resp_req_free(&r);
    free(buf);
}
END_TEST

/* ---- randomized round trip ---- */

typedef struct rcmd {
    int argc;
    char *args[6];
    size_t lens[6];
} rcmd;

static void random_cmd(rcmd *c, uint64_t *seed) {
    static const char alphabet[] = "abcXYZ019 \"'\\\r\n\t\0\x7f\xff";
    c->argc = 1 + (int)(rnd_r(seed) % 6);
    for (int i = 0; i < c->argc; i++) {
        size_t n = rnd_r(seed) % 8 == 0 ? rnd_r(seed) % 3000 : rnd_r(seed) % 12;
        c->args[i] = xmalloc(n + 1);
        for (size_t j = 0; j < n; j++)
            c->args[i][j] = alphabet[rnd_r(seed) % (sizeof alphabet - 1)];
        c->lens[i] = n;
    }
}

/* Inline form: every argument in double quotes, every byte as \xHH. */
static void write_inline(vbuf *out, const rcmd *c) {
    for (int i = 0; i < c->argc; i++) {
        vbuf_append_str(out, i ? " \"" : "\"");
        for (size_t j = 0; j < c->lens[i]; j++) {
            char tmp[8];
            snprintf(tmp, sizeof tmp, "\\x%02x", (unsigned char)c->args[i][j]);
            vbuf_append_str(out, tmp);
        }
        vbuf_append_str(out, "\"");
    }
    vbuf_append_str(out, "\r\n");
}

static void write_multibulk(vbuf *out, const rcmd *c) {
    resp_add_array(out, c->argc);
    for (int i = 0; i < c->argc; i++) resp_add_bulk(out, c->args[i], c->lens[i]);
}

static void check_same(const resp_req *r, const char *buf, const rcmd *c) {
    ck_assert_int_eq(r->argc, c->argc);
    for (int i = 0; i < c->argc; i++) {
        ck_assert_uint_eq(r->arglen[i], c->lens[i]);
        ck_assert(memcmp(resp_arg(r, buf, i), c->args[i], c->lens[i]) == 0);
    }
}

START_TEST(test_random_roundtrip) {
    enum { N = 3000 };
    static rcmd cmds[N];
    uint64_t seed = 20240601u;
    vbuf in;
    vbuf_init(&in);
    for (int i = 0; i < N; i++) {
        random_cmd(&cmds[i], &seed);
        int small = 1;
        for (int j = 0; j < cmds[i].argc; j++) small &= cmds[i].lens[j] < 2000;
        if (small && rnd_r(&seed) % 4 == 0) write_inline(&in, &cmds[i]);
        else write_multibulk(&in, &cmds[i]);
    }
    resp_req r;
    resp_req_init(&r);
    const char *err;
    size_t arrived = 0, off = 0;
    int done = 0;
    while (done < N) {
        size_t step = rnd_r(&seed) % 3 == 0 ? 1 + rnd_r(&seed) % 7 : 1 + rnd_r(&seed) % 9000;
        arrived = arrived + step < in.len ? arrived + step : in.len;
        int rc;
        while ((rc = resp_parse(&r, in.data + off, arrived - off, &LIM, &err)) ==
               RESP_DONE) {
            check_same(&r, in.data + off, &cmds[done]);
            off += r.pos;
            resp_req_reset(&r);
            done++;
        }
        ck_assert_int_eq(rc, RESP_MORE);
        ck_assert(arrived < in.len || done == N);
    }
    ck_assert_uint_eq(off, in.len);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < cmds[i].argc; j++) free(cmds[i].args[j]);
    resp_req_free(&r);
    vbuf_free(&in);
}
END_TEST

static Suite *resp_suite(void) {
    Suite *s = suite_create("resp");
    TCase *tc = tcase_create("parse");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_multibulk_whole);
    tcase_add_test(tc, test_inline_whole);
    tcase_add_test(tc, test_empty_commands);
    tcase_add_test(tc, test_binary_bulks);
    tcase_add_test(tc, test_redis_quirks);
    tcase_add_test(tc, test_every_split_valid);
    tcase_add_test(tc, test_every_split_errors);
    tcase_add_test(tc, test_pipeline);
    tcase_add_test(tc, test_multibulk_errors);
    tcase_add_test(tc, test_inline_errors);
    tcase_add_test(tc, test_line_limits);
    tcase_add_test(tc, test_custom_limits);
    tcase_add_test(tc, test_unauthenticated_limits);
    tcase_add_test(tc, test_huge_announcements);
    tcase_add_test(tc, test_inline_quoting);
    suite_add_tcase(s, tc);
    TCase *te = tcase_create("encode");
    tcase_add_test(te, test_encoder);
    tcase_add_test(te, test_encoder_resp3);
    tcase_add_test(te, test_encoder_parser_roundtrip);
    suite_add_tcase(s, te);
    TCase *tb = tcase_create("big");
    tcase_set_timeout(tb, 60);
    tcase_add_test(tb, test_million_args);
    tcase_add_test(tb, test_big_bulk_incremental);
    tcase_add_test(tb, test_random_roundtrip);
    suite_add_tcase(s, tb);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(resp_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
