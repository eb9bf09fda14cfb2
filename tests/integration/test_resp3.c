/* Integration tests of RESP3 (HELLO 3) and of RESP2 staying as it was:
 * raw sockets and a small RESP3 reader of our own (Debian's hiredis 0.14
 * has no RESP3 parser), so what is compared is the reply's bytes.
 *
 * A corpus of commands over every command group runs twice on one server:
 * on a connection after HELLO 3 (the want3 column) and on a RESP2 one (the
 * want2 column). The expected bytes are redis-server 7.0.15's: run with
 * RESP3_DUMP=1 VERSO_SERVER=/usr/bin/redis-server and the test prints the
 * replies it saw instead of comparing, which gen_resp3_corpus.py puts in
 * the table (that is how it was made); every test passes against
 * redis-server too. Pub/sub push messages
 * (subscribe confirmations, message, pmessage, smessage, commands run while
 * subscribed) and HELLO's own replies (proto, AUTH, SETNAME, no version)
 * are separate tests, and redis-cli -3 reads the types as a client would. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- a RESP3 reader ---- */

/* The length of the one RESP value at p[0..n), or 0 when incomplete. */
static size_t r3_len(const char *p, size_t n) {
    if (n < 3) return 0;
    const char *cr = memchr(p, '\r', n);
    if (!cr || (size_t)(cr - p) + 2 > n) return 0;
    size_t hdr = (size_t)(cr - p) + 2;
    long long v = strtoll(p + 1, NULL, 10);
    switch (p[0]) {
    case '$': case '=': case '!':
        if (v < 0) return hdr;
        return hdr + (size_t)v + 2 <= n ? hdr + (size_t)v + 2 : 0;
    case '*': case '~': case '>': case '%': case '|': {
        if (v < 0) return hdr;
        long long items = (p[0] == '%' || p[0] == '|') ? 2 * v : v;
        size_t at = hdr;
        for (long long i = 0; i < items; i++) {
            size_t e = r3_len(p + at, n - at);
            if (!e) return 0;
            at += e;
        }
        /* an attribute is followed by the value it describes */
        if (p[0] == '|') {
            size_t e = r3_len(p + at, n - at);
            return e ? at + e : 0;
        }
        return at;
    }
    default: /* + - : _ , # ( */
        return hdr;
    }
}

typedef struct conn {
    int fd;
    char buf[1 << 16];
    size_t len;       /* bytes in buf */
} conn;

static conn *conn_open(int port) {
    conn *c = calloc(1, sizeof *c);
    ck_assert_ptr_nonnull(c);
    c->fd = raw_connect(port);
    return c;
}

static void conn_close(conn *c) {
    close(c->fd);
    free(c);
}

/* Sends argv (a space-separated command; no argument holds a space) as a
 * multibulk request. */
static void conn_send(conn *c, const char *cmdline) {
    char req[4096];
    size_t n = 0;
    int argc = 0;
    char words[64][256];
    const char *p = cmdline;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        size_t w = strcspn(p, " ");
        ck_assert(w < sizeof words[0] && argc < 64);
        memcpy(words[argc], p, w);
        words[argc][w] = '\0';
        argc++;
        p += w;
    }
    n += (size_t)snprintf(req + n, sizeof req - n, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++)
        n += (size_t)snprintf(req + n, sizeof req - n, "$%zu\r\n%s\r\n", strlen(words[i]),
                              words[i]);
    ck_assert(n < sizeof req);
    ck_assert_int_eq(raw_send(c->fd, req, n), 0);
}

/* The next reply (or push) as a malloc'd NUL-terminated string; fails the
 * test after 10 s without one. */
static char *conn_read(conn *c) {
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        size_t e = r3_len(c->buf, c->len);
        if (e) {
            char *out = malloc(e + 1);
            ck_assert_ptr_nonnull(out);
            memcpy(out, c->buf, e);
            out[e] = '\0';
            memmove(c->buf, c->buf + e, c->len - e);
            c->len -= e;
            return out;
        }
        long long left = deadline - h_now_ms();
        ck_assert_msg(left > 0 && c->len < sizeof c->buf - 1, "no whole reply: %.*s",
                      (int)c->len, c->buf);
        int closed = 0;
        char tmp[8192];
        /* raw_read waits for `want` bytes: ask for one, take what came */
        size_t got = raw_read(c->fd, tmp, sizeof tmp, 1, (int)left, &closed);
        ck_assert_msg(got > 0 || !closed, "connection closed");
        ck_assert(c->len + got < sizeof c->buf);
        memcpy(c->buf + c->len, tmp, got);
        c->len += got;
    }
}

/* ---- comparing ---- */

enum {
    F_SORT = 1,       /* the top-level aggregate's elements in any order */
    F_SORT_PAIRS = 2, /* ... its pairs (a map, or RESP2's flat pairs) */
    F_HEAD = 4,       /* the type byte, then want's text after its first
                         line is a prefix of the reply's after its own */
    F_TYPE = 8,       /* the type byte only (a reply that varies) */
    F_SHAPE = 32,     /* types and aggregate sizes only (random members) */
    F_SORT_ROWS = 16, /* WITHVALUES-like pairs in any order: F_SORT of the
                         RESP3 [field, value] arrays, F_SORT_PAIRS of RESP2's
                         flat pairs */
};

static int cmp_elem(const void *a, const void *b) {
    const char *const *x = a, *const *y = b;
    return strcmp(*x, *y);
}

/* s with its top-level aggregate's elements (or pairs of them) sorted:
 * malloc'd. */
static char *canon(const char *s, int pairs) {
    size_t n = strlen(s);
    const char *cr = strstr(s, "\r\n");
    if (!cr || !strchr("*~%>", s[0])) return strdup(s);
    long long cnt = strtoll(s + 1, NULL, 10);
    if (cnt <= 0) return strdup(s);
    if (s[0] == '%') pairs = 1;
    size_t items = (size_t)cnt * (s[0] == '%' ? 2 : 1);
    ck_assert(items <= n); /* every element takes 3 bytes at least */
    size_t hdr = (size_t)(cr - s) + 2, at = hdr;
    char **el = calloc(items, sizeof *el);
    ck_assert_ptr_nonnull(el);
    for (size_t i = 0; i < items; i++) {
        size_t e = r3_len(s + at, n - at);
        ck_assert(e);
        el[i] = strndup(s + at, e);
        at += e;
    }
    size_t groups = pairs ? items / 2 : items;
    char **g = calloc(groups, sizeof *g);
    ck_assert_ptr_nonnull(g);
    for (size_t i = 0; i < groups; i++) {
        if (!pairs) { g[i] = el[i]; continue; }
        size_t l0 = strlen(el[2 * i]), l1 = strlen(el[2 * i + 1]);
        g[i] = malloc(l0 + l1 + 1);
        ck_assert_ptr_nonnull(g[i]);
        memcpy(g[i], el[2 * i], l0);
        memcpy(g[i] + l0, el[2 * i + 1], l1 + 1);
        free(el[2 * i]);
        free(el[2 * i + 1]);
    }
    qsort(g, groups, sizeof *g, cmp_elem);
    char *out = malloc(n + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, s, hdr);
    size_t o = hdr;
    for (size_t i = 0; i < groups; i++) {
        size_t l = strlen(g[i]);
        memcpy(out + o, g[i], l);
        o += l;
        free(g[i]);
    }
    out[o] = '\0';
    free(g);
    free(el);
    return out;
}

/* The shape of the value at s (n bytes): its types and aggregate counts,
 * scalars reduced to their type byte; appended to out (which has room:
 * never longer than s). Returns the bytes of s consumed. */
static size_t shape(const char *s, size_t n, char *out, size_t *o) {
    size_t e = r3_len(s, n);
    ck_assert(e);
    const char *cr = strstr(s, "\r\n");
    size_t hdr = (size_t)(cr - s) + 2;
    out[(*o)++] = s[0];
    if (!strchr("*~%>|", s[0])) return e;
    memcpy(out + *o, s + 1, hdr - 1);
    *o += hdr - 1;
    long long cnt = strtoll(s + 1, NULL, 10);
    long long items = (s[0] == '%' || s[0] == '|') ? 2 * cnt : cnt;
    size_t at = hdr;
    for (long long i = 0; i < items; i++) at += shape(s + at, n - at, out, o);
    return e;
}

static char *shape_of(const char *s) {
    size_t n = strlen(s), o = 0;
    char *out = malloc(n + 1);
    ck_assert_ptr_nonnull(out);
    shape(s, n, out, &o);
    out[o] = '\0';
    return out;
}

/* s printed as a C string literal (for messages and the dump). */
static void print_lit(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\r') fputs("\\r", f);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 32 || *p > 126) fprintf(f, "\\%03o", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static int dumping(void) { return getenv("RESP3_DUMP") != NULL; }

/* Fails unless got matches want under flags. */
static void check_reply(const char *what, const char *got, const char *want, int flags) {
    int ok;
    ck_assert_msg(want != NULL, "no expected reply for '%s': see gen_resp3_corpus.py", what);
    if (flags & F_SHAPE) {
        char *g = shape_of(got), *w = shape_of(want);
        ok = !strcmp(g, w);
        free(g);
        free(w);
    } else if (flags & F_TYPE) {
        ok = got[0] == want[0];
    } else if (flags & F_HEAD) {
        const char *wb = strstr(want, "\r\n"), *gb = strstr(got, "\r\n");
        ok = got[0] == want[0] && wb && gb && !strncmp(gb + 2, wb + 2, strlen(wb + 2));
    } else if (flags & (F_SORT | F_SORT_PAIRS)) {
        char *g = canon(got, flags & F_SORT_PAIRS), *w = canon(want, flags & F_SORT_PAIRS);
        ok = !strcmp(g, w);
        free(g);
        free(w);
    } else {
        ok = !strcmp(got, want);
    }
    if (!ok) {
        fprintf(stderr, "%s:\n  got  ", what);
        print_lit(stderr, got);
        fprintf(stderr, "\n  want ");
        print_lit(stderr, want);
        fputc('\n', stderr);
    }
    ck_assert_msg(ok, "reply to '%s' differs (see stderr)", what);
}

/* ---- the corpus ---- */

typedef struct r3case {
    const char *cmd;
    const char *want3, *want2;
    int flags;
} r3case;

#include "resp3_corpus.h"

/* Runs the corpus on c (after HELLO 3 when resp == 3). */
static void run_corpus(conn *c, int resp) {
    size_t n = sizeof corpus / sizeof corpus[0];
    for (size_t i = 0; i < n; i++) {
        conn_send(c, corpus[i].cmd);
        char *got = conn_read(c);
        if (got[0] == '>') { /* DEBUG PROTOCOL push: the push, then the reply */
            char *more = conn_read(c);
            size_t l0 = strlen(got), l1 = strlen(more);
            got = realloc(got, l0 + l1 + 1);
            ck_assert_ptr_nonnull(got);
            memcpy(got + l0, more, l1 + 1);
            free(more);
        }
        if (dumping()) {
            printf("%d ", resp);
            print_lit(stdout, corpus[i].cmd);
            printf(" ");
            print_lit(stdout, got);
            printf("\n");
            fflush(stdout);
        } else {
            int fl = corpus[i].flags;
            if (fl & F_SORT_ROWS) fl = resp == 3 ? F_SORT : F_SORT_PAIRS;
            check_reply(corpus[i].cmd, got, resp == 3 ? corpus[i].want3 : corpus[i].want2, fl);
        }
        free(got);
    }
}

static void expect_reply(conn *c, const char *cmdline, const char *want, int flags) {
    if (cmdline) conn_send(c, cmdline);
    char *got = conn_read(c);
    check_reply(cmdline ? cmdline : "(push)", got, want, flags);
    free(got);
}

static conn *conn_resp3(int port) {
    conn *c = conn_open(port);
    conn_send(c, "HELLO 3");
    free(conn_read(c));
    return c;
}

START_TEST(corpus_resp3) {
    conn *c = conn_resp3(h_srv->port);
    run_corpus(c, 3);
    conn_close(c);
}
END_TEST

START_TEST(corpus_resp2) {
    conn *c = conn_open(h_srv->port);
    run_corpus(c, 2);
    conn_close(c);
}
END_TEST

/* HELLO: the map (RESP3) or flat array (RESP2) with proto, id, ...;
 * without a version it answers in the connection's current protocol. */
static void expect_hello(conn *c, const char *cmdline, int proto) {
    conn_send(c, "CLIENT ID");
    char *idr = conn_read(c);
    long long id = strtoll(idr + 1, NULL, 10);
    free(idr);
    char want[512];
    const char *head = proto == 3 ? "%7\r\n" : "*14\r\n";
    snprintf(want, sizeof want,
             "%s$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
             "$5\r\nproto\r\n:%d\r\n$2\r\nid\r\n:%lld\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n"
             "$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n",
             head, proto, id);
    expect_reply(c, cmdline, want, 0);
}

START_TEST(hello_versions) {
    conn *c = conn_open(h_srv->port);
    expect_hello(c, "HELLO", 2);
    expect_hello(c, "HELLO 2", 2);
    expect_hello(c, "HELLO 3", 3);
    expect_hello(c, "HELLO", 3);
    expect_reply(c, "GET nokey", "_\r\n", 0);
    expect_reply(c, "HELLO 4", "-NOPROTO unsupported protocol version\r\n", 0);
    expect_reply(c, "HELLO 1", "-NOPROTO unsupported protocol version\r\n", 0);
    expect_reply(c, "HELLO -1", "-NOPROTO unsupported protocol version\r\n", 0);
    expect_reply(c, "HELLO 99999999999", "-NOPROTO unsupported protocol version\r\n", 0);
    expect_reply(c, "HELLO x",
                 "-ERR Protocol version is not an integer or out of range\r\n", 0);
    expect_reply(c, "HELLO 3 foo", "-ERR Syntax error in HELLO option 'foo'\r\n", 0);
    /* without requirepass the default user takes any password */
    expect_reply(c, "HELLO 3 AUTH nouser x",
                 "-WRONGPASS invalid username-password pair or user is disabled.\r\n", 0);
    expect_reply(c, "AUTH nouser x",
                 "-WRONGPASS invalid username-password pair or user is disabled.\r\n", 0);
    expect_reply(c, "AUTH default x", "+OK\r\n", 0);
    expect_hello(c, "HELLO 3 AUTH default whatever", 3);
    /* a failed HELLO leaves the protocol as it was */
    expect_reply(c, "GET nokey", "_\r\n", 0);
    expect_hello(c, "HELLO 2", 2);
    expect_reply(c, "GET nokey", "$-1\r\n", 0);
    conn_close(c);
}
END_TEST

START_TEST(hello_setname) {
    conn *c = conn_open(h_srv->port);
    expect_hello(c, "HELLO 3 SETNAME conn1", 3);
    expect_reply(c, "CLIENT GETNAME", "$5\r\nconn1\r\n", 0);
    expect_reply(c, "HELLO 3 SETNAME a\nb",
                 "-ERR Client names cannot contain spaces, newlines or special characters.\r\n",
                 0);
    expect_reply(c, "CLIENT GETNAME", "$5\r\nconn1\r\n", 0);
    conn_close(c);
}
END_TEST

START_TEST(hello_auth) {
    srv *s = h_srv_start("--requirepass secret");
    conn *c = conn_open(s->port);
    expect_reply(c, "GET k", "-NOAUTH Authentication required.\r\n", 0);
    expect_reply(c, "HELLO 3",
                 "-NOAUTH HELLO must be called with the client already authenticated, "
                 "otherwise the HELLO AUTH <user> <pass> option can be used to "
                 "authenticate the client and select the RESP protocol version at the same "
                 "time\r\n",
                 0);
    expect_reply(c, "HELLO 3 AUTH default wrong",
                 "-WRONGPASS invalid username-password pair or user is disabled.\r\n", 0);
    expect_reply(c, "GET k", "-NOAUTH Authentication required.\r\n", 0);
    /* AUTH and SETNAME together; the id line needs CLIENT ID, so check
     * the head of the map, then the protocol and the name */
    expect_reply(c, "HELLO 3 AUTH default secret SETNAME n1",
                 "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n", F_HEAD);
    expect_reply(c, "GET k", "_\r\n", 0);
    expect_reply(c, "CLIENT GETNAME", "$2\r\nn1\r\n", 0);
    expect_hello(c, "HELLO 3", 3);
    conn_close(c);
}
END_TEST

/* Pub/sub under RESP3: confirmations and messages are push types, and the
 * subscriber may run any command. */
START_TEST(pubsub_push) {
    conn *sub = conn_resp3(h_srv->port);
    conn *pub = conn_resp3(h_srv->port);
    expect_reply(sub, "SUBSCRIBE ch1 ch2", ">3\r\n$9\r\nsubscribe\r\n$3\r\nch1\r\n:1\r\n", 0);
    expect_reply(sub, NULL, ">3\r\n$9\r\nsubscribe\r\n$3\r\nch2\r\n:2\r\n", 0);
    expect_reply(sub, "PSUBSCRIBE p*", ">3\r\n$10\r\npsubscribe\r\n$2\r\np*\r\n:3\r\n", 0);
    expect_reply(sub, "SSUBSCRIBE sch", ">3\r\n$10\r\nssubscribe\r\n$3\r\nsch\r\n:1\r\n", 0);
    /* any command while subscribed, with its ordinary reply */
    expect_reply(sub, "SET k v", "+OK\r\n", 0);
    expect_reply(sub, "GET k", "$1\r\nv\r\n", 0);
    expect_reply(sub, "GET nokey", "_\r\n", 0);
    expect_reply(sub, "PING", "+PONG\r\n", 0);
    expect_reply(sub, "PING x", "$1\r\nx\r\n", 0);
    expect_reply(sub, "HGETALL nokey", "%0\r\n", 0);
    expect_reply(pub, "PUBLISH ch1 hello", ":1\r\n", 0);
    expect_reply(sub, NULL, ">3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n", 0);
    expect_reply(pub, "PUBLISH pq hi", ":1\r\n", 0);
    expect_reply(sub, NULL, ">4\r\n$8\r\npmessage\r\n$2\r\np*\r\n$2\r\npq\r\n$2\r\nhi\r\n", 0);
    expect_reply(pub, "SPUBLISH sch s1", ":1\r\n", 0);
    expect_reply(sub, NULL, ">3\r\n$8\r\nsmessage\r\n$3\r\nsch\r\n$2\r\ns1\r\n", 0);
    expect_reply(pub, "PUBSUB NUMSUB ch1 nochan", "*4\r\n$3\r\nch1\r\n:1\r\n$6\r\nnochan\r\n:0\r\n",
                 0);
    expect_reply(pub, "PUBSUB SHARDNUMSUB sch", "*2\r\n$3\r\nsch\r\n:1\r\n", 0);
    /* shard channels are counted apart from channels and patterns */
    expect_reply(sub, "UNSUBSCRIBE ch1", ">3\r\n$11\r\nunsubscribe\r\n$3\r\nch1\r\n:2\r\n", 0);
    expect_reply(sub, "UNSUBSCRIBE", ">3\r\n$11\r\nunsubscribe\r\n$3\r\nch2\r\n:1\r\n", 0);
    expect_reply(sub, "PUNSUBSCRIBE", ">3\r\n$12\r\npunsubscribe\r\n$2\r\np*\r\n:0\r\n", 0);
    expect_reply(sub, "SUNSUBSCRIBE", ">3\r\n$12\r\nsunsubscribe\r\n$3\r\nsch\r\n:0\r\n", 0);
    /* nothing left: one reply with a null channel */
    expect_reply(sub, "UNSUBSCRIBE", ">3\r\n$11\r\nunsubscribe\r\n_\r\n:0\r\n", 0);
    expect_reply(sub, "PUNSUBSCRIBE", ">3\r\n$12\r\npunsubscribe\r\n_\r\n:0\r\n", 0);
    expect_reply(sub, "SUNSUBSCRIBE", ">3\r\n$12\r\nsunsubscribe\r\n_\r\n:0\r\n", 0);
    expect_reply(pub, "PUBLISH ch1 x", ":0\r\n", 0);
    expect_reply(sub, "PING", "+PONG\r\n", 0);
    conn_close(sub);
    conn_close(pub);
}
END_TEST

/* The same under RESP2: arrays, the subscribed context's limits. */
START_TEST(pubsub_resp2) {
    conn *sub = conn_open(h_srv->port);
    conn *pub = conn_open(h_srv->port);
    expect_reply(sub, "SUBSCRIBE ch1", "*3\r\n$9\r\nsubscribe\r\n$3\r\nch1\r\n:1\r\n", 0);
    expect_reply(sub, "GET k",
                 "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                 "QUIT / RESET are allowed in this context\r\n",
                 0);
    expect_reply(sub, "PING", "*2\r\n$4\r\npong\r\n$0\r\n\r\n", 0);
    expect_reply(pub, "PUBLISH ch1 hello", ":1\r\n", 0);
    expect_reply(sub, NULL, "*3\r\n$7\r\nmessage\r\n$3\r\nch1\r\n$5\r\nhello\r\n", 0);
    expect_reply(pub, "PUBSUB NUMSUB ch1", "*2\r\n$3\r\nch1\r\n:1\r\n", 0);
    expect_reply(sub, "UNSUBSCRIBE", "*3\r\n$11\r\nunsubscribe\r\n$3\r\nch1\r\n:0\r\n", 0);
    expect_reply(sub, "UNSUBSCRIBE", "*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n", 0);
    conn_close(sub);
    conn_close(pub);
}
END_TEST

/* A RESP3 subscriber and a RESP2 one get the same message each in its
 * own protocol; a RESP3 client switching back to RESP2 while subscribed
 * gets arrays again. */
START_TEST(pubsub_mixed) {
    conn *s3 = conn_resp3(h_srv->port);
    conn *s2 = conn_open(h_srv->port);
    conn *pub = conn_open(h_srv->port);
    expect_reply(s3, "PSUBSCRIBE c*", ">3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:1\r\n", 0);
    expect_reply(s2, "PSUBSCRIBE c*", "*3\r\n$10\r\npsubscribe\r\n$2\r\nc*\r\n:1\r\n", 0);
    expect_reply(pub, "PUBLISH cx m", ":2\r\n", 0);
    expect_reply(s3, NULL, ">4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\ncx\r\n$1\r\nm\r\n", 0);
    expect_reply(s2, NULL, "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\ncx\r\n$1\r\nm\r\n", 0);
    /* back to RESP2 while subscribed: arrays, and the subscribed context */
    expect_reply(s3, "HELLO 2", "*14\r\n$6\r\nserver\r\n", F_HEAD);
    expect_reply(pub, "PUBLISH cy n", ":2\r\n", 0);
    expect_reply(s3, NULL, "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\ncy\r\n$1\r\nn\r\n", 0);
    expect_reply(s2, NULL, "*4\r\n$8\r\npmessage\r\n$2\r\nc*\r\n$2\r\ncy\r\n$1\r\nn\r\n", 0);
    expect_reply(s3, "GET k",
                 "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                 "QUIT / RESET are allowed in this context\r\n",
                 0);
    expect_reply(s3, "HELLO 3",
                 "-ERR Can't execute 'hello': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                 "QUIT / RESET are allowed in this context\r\n",
                 0);
    conn_close(s3);
    conn_close(s2);
    conn_close(pub);
}
END_TEST

/* A blocked RESP3 client timing out gets a null; MULTI/EXEC. */
START_TEST(blocking_and_multi) {
    conn *c = conn_resp3(h_srv->port);
    expect_reply(c, "BLPOP nolist 0.01", "_\r\n", 0);
    expect_reply(c, "BZPOPMIN noz 0.01", "_\r\n", 0);
    expect_reply(c, "BLMPOP 0.01 1 nolist LEFT", "_\r\n", 0);
    expect_reply(c, "BZMPOP 0.01 1 noz MIN", "_\r\n", 0);
    expect_reply(c, "BRPOPLPUSH nolist x 0.01", "_\r\n", 0);
    expect_reply(c, "BLMOVE nolist x LEFT LEFT 0.01", "_\r\n", 0);
    conn *w = conn_resp3(h_srv->port);
    conn_send(c, "BZPOPMIN z2 0");
    /* the waiter is blocked once CLIENT LIST shows it: wait on INFO */
    redisContext *rc = srv_connect(h_srv);
    h_wait_info(rc, "clients", "blocked_clients", 1, 10000);
    expect_reply(w, "ZADD z2 2.5 m", ":1\r\n", 0);
    expect_reply(c, NULL, "*3\r\n$2\r\nz2\r\n$1\r\nm\r\n,2.5\r\n", 0);
    expect_reply(c, "WATCH wk", "+OK\r\n", 0);
    expect_reply(w, "SET wk 1", "+OK\r\n", 0);
    expect_reply(c, "MULTI", "+OK\r\n", 0);
    expect_reply(c, "GET wk", "+QUEUED\r\n", 0);
    expect_reply(c, "EXEC", "_\r\n", 0);
    expect_reply(c, "MULTI", "+OK\r\n", 0);
    expect_reply(c, "ZSCORE z2 nom", "+QUEUED\r\n", 0);
    expect_reply(c, "HGETALL nokey", "+QUEUED\r\n", 0);
    expect_reply(c, "EXEC", "*2\r\n_\r\n%0\r\n", 0);
    redisFree(rc);
    conn_close(w);
    conn_close(c);
}
END_TEST

/* A real RESP3 client: redis-cli -3 prints each type its own way. */
START_TEST(redis_cli_resp3) {
    char port[16];
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *const argv[] = {"redis-cli", "-3", "--no-raw", "-p", port, NULL};
    char *out = NULL;
    int st = h_run("HSET h f v\nZADD z 1.5 a\nHGETALL h\nZRANGE z 0 -1 WITHSCORES\n"
                   "SMEMBERS nos\nGET nokey\nDEBUG PROTOCOL true\nZSCORE z a\n"
                   "CONFIG GET maxmemory\nDEBUG PROTOCOL verbatim\nSADD s x\nSMEMBERS s\n"
                   "DEBUG PROTOCOL map\n",
                   &out, h_scaled_ms(10000), argv);
    ck_assert_msg(st == 0, "redis-cli: status %d: %s", st, out);
    ck_assert_str_eq(out, "(integer) 1\n(integer) 1\n1# \"f\" => \"v\"\n1) 1) \"a\"\n"
                          "   2) (double) 1.5\n(empty set)\n(nil)\n(true)\n(double) 1.5\n"
                          "1# \"maxmemory\" => \"0\"\nThis is a verbatim\nstring\n(integer) 1\n"
                          "1~ \"x\"\n1# (integer) 0 => (false)\n2# (integer) 1 => (true)\n"
                          "3# (integer) 2 => (false)\n");
    free(out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("resp3");
    TCase *tc = tcase_create("resp3");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, corpus_resp3);
    tcase_add_test(tc, corpus_resp2);
    tcase_add_test(tc, hello_versions);
    tcase_add_test(tc, hello_setname);
    tcase_add_test(tc, pubsub_push);
    tcase_add_test(tc, pubsub_resp2);
    tcase_add_test(tc, pubsub_mixed);
    tcase_add_test(tc, blocking_and_multi);
    tcase_add_test(tc, redis_cli_resp3);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "hello_auth", hello_auth, 60);
    return h_main(s);
}
