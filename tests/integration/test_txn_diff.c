/* test_txn_diff: a differential test of transactions and scripts against
 * redis-server 7.0. The server under test (srv_start: verso, or
 * $VERSO_SERVER) and the reference (srv_start_redis) run side by side, each
 * with two connections: the main one and another that touches keys a WATCH
 * of the main one holds. Seeded random steps go to both and every reply is
 * compared; every CHECK_EVERY steps and at the end of a segment the whole
 * key space (every key's type, encoding, TTL presence and contents), and at
 * the end of a segment INFO commandstats (calls, rejected and failed calls
 * per command), errorstats and INFO stats' command, error and keyspace
 * hit/miss counters.
 *
 * A step is one of (the commands inside come from test_coll_diff_gen.c, and
 * now and then from gen_extra: string, bit, HyperLogLog and geo commands
 * on keys of their own):
 * - a plain command;
 * - a MULTI block: its commands (scripts too) queued, now and then with a
 *   queued error (an unknown command, a wrong arity, SAVE refused in MULTI:
 *   EXECABORT), a nested MULTI, a WATCH inside MULTI, then EXEC or
 *   DISCARD; EXEC / DISCARD without MULTI;
 * - WATCH of some keys, then maybe a write by the other connection (to a
 *   watched key or not) or by the main one, FLUSHALL, UNWATCH, then a block;
 * - EVAL / EVALSHA (after SCRIPT LOAD) / EVAL_RO / EVALSHA_RO of a script
 *   that runs a few commands with redis.call / redis.pcall / Lua's pcall of
 *   redis.call (under redis.setresp(3) now and then) and returns their
 *   results, or an error (error(), redis.error_reply, {err=}), a status,
 *   floats, booleans, nil, RESP3 tables ({double=}, {map=}, {set=}), a
 *   command refused in scripts; the shebang's no-writes flag now and then;
 *   bad numkeys, unknown shas, SCRIPT EXISTS / FLUSH;
 * - FCALL / FCALL_RO of the library loaded on both at the start of a
 *   segment (FUNCTION LOAD), whose functions run such commands or return
 *   fixed kinds of values.
 * Odd segments (and a switch now and then) talk RESP3 (HELLO 3) on the main
 * connection; the replies are read by a RESP2/RESP3 reader of our own
 * (Debian's hiredis 0.14 has no RESP3), so types are compared too.
 *
 * Compared exactly, except where the order is unspecified (a command's mode
 * from the generator, applied to its place in an EXEC reply or a script's
 * result table too): SMEMBERS & co. as a multiset, HGETALL & co. as a
 * multiset of pairs; and not the encoding of gen_extra's strings (see
 * key_state). Not generated inside blocks and scripts: what test_coll_diff
 * compares by properties (random members, SPOP, SCAN, TTL, MEMORY USAGE),
 * SORT (BY nosort of a set in a script is another item), lex ranges
 * (unspecified over unequal scores) and EXPIRE GT/LT (against a TTL set a
 * few ms before, the result depends on the clock). Not generated at all:
 * client tracking, CLIENT PAUSE, DEBUG, time inside blocks (frozen time is
 * another item), function names, BITFIELD OVERFLOW FAIL (doc/compat.md),
 * error() of a table without err (Redis 7.0.15 crashes on it).
 *
 * The seed comes from rnd_seed_env (printed; TXN_DIFF_SEED=n repeats a run);
 * a run is SEGMENTS segments (seed, seed + 1, ...) of STEPS steps
 * (TXN_DIFF_STEPS=n) on emptied servers; odd segments also set small
 * listpack/intset limits; TXN_DIFF_SEGMENTS=n changes their number and
 * TXN_DIFF_DUMP=n prints every key before step n. A difference stops that
 * segment after printing the seed, the step, the last steps and both
 * replies; the test fails at the end if any segment differed. */
#include "harness.h"
#include "sbuf.h"
#include "test_coll_diff.h"
#include "testcmp.h"
#include "testrand.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum { SEGMENTS = 4, STEPS = 2500, HIST = 40, CHECK_EVERY = 50 };

/* ---- a RESP2/RESP3 reply ---- */

/* t is the type byte ('+', '-', ':', '$', '*', '%', '~', ',', '#', '(',
 * '=', '!', '_', '>'), or 'N' for RESP2's null bulk / null array. A map
 * holds its keys and values in e[], n = 2 * pairs. */
typedef struct rv {
    char t;
    char *s;
    size_t l;
    size_t n;
    struct rv **e;
} rv;

static void rv_free(rv *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) rv_free(r->e[i]);
    free(r->e);
    free(r->s);
    free(r);
}

/* One value from p[0..n): NULL when incomplete; *used its length. */
static rv *rv_parse(const char *p, size_t n, size_t *used) {
    const char *cr = n ? memchr(p, '\r', n) : NULL;
    if (!cr || (size_t)(cr - p) + 2 > n) return NULL;
    size_t hdr = (size_t)(cr - p) + 2;
    rv *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->t = p[0];
    long long v = strtoll(p + 1, NULL, 10);
    switch (p[0]) {
    case '$': case '=': case '!':
        if (v < 0) {
            r->t = 'N';
            *used = hdr;
            return r;
        }
        if (hdr + (size_t)v + 2 > n) {
            free(r);
            return NULL;
        }
        r->s = malloc((size_t)v + 1);
        memcpy(r->s, p + hdr, (size_t)v);
        r->s[v] = '\0';
        r->l = (size_t)v;
        *used = hdr + (size_t)v + 2;
        return r;
    case '*': case '~': case '%': case '>': case '|': {
        if (v < 0) {
            r->t = 'N';
            *used = hdr;
            return r;
        }
        size_t items = (size_t)v * (p[0] == '%' || p[0] == '|' ? 2 : 1), at = hdr;
        r->e = calloc(items + 1, sizeof *r->e);
        for (size_t i = 0; i < items; i++) {
            size_t u;
            rv *x = rv_parse(p + at, n - at, &u);
            if (!x) {
                rv_free(r);
                return NULL;
            }
            r->e[r->n++] = x;
            at += u;
        }
        *used = at;
        return r;
    }
    default:
        r->l = hdr - 3;
        r->s = malloc(r->l + 1);
        memcpy(r->s, p + 1, r->l);
        r->s[r->l] = '\0';
        *used = hdr;
        return r;
    }
}

/* ---- connections ---- */

typedef struct conn {
    int fd;
    const char *name;
    char *buf;
    size_t n, cap;
} conn;

static conn *conn_open(const srv *s, const char *name) {
    conn *c = calloc(1, sizeof *c);
    c->fd = raw_connect(s->port);
    ck_assert_msg(c->fd >= 0, "connect to %s", name);
    c->name = name;
    return c;
}

static void conn_close(conn *c) {
    close(c->fd);
    free(c->buf);
    free(c);
}

static void conn_send(conn *c, int argc, char **argv, const size_t *len) {
    sbuf b = {NULL, 0, 0};
    char t[32];
    snprintf(t, sizeof t, "*%d\r\n", argc);
    sb_str(&b, t);
    for (int i = 0; i < argc; i++) {
        snprintf(t, sizeof t, "$%zu\r\n", len[i]);
        sb_str(&b, t);
        sb_cat(&b, argv[i], len[i]);
        sb_str(&b, "\r\n");
    }
    ck_assert_msg(raw_send(c->fd, b.p, b.n) == 0, "send to %s failed", c->name);
    free(b.p);
}

static rv *conn_read(conn *c) {
    for (;;) {
        size_t used;
        rv *r = c->n ? rv_parse(c->buf, c->n, &used) : NULL;
        if (r) {
            memmove(c->buf, c->buf + used, c->n - used);
            c->n -= used;
            return r;
        }
        if (c->cap - c->n < 65536) {
            c->cap = c->cap * 2 + 65536;
            c->buf = realloc(c->buf, c->cap);
        }
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        ck_assert_msg(poll(&pf, 1, 20000) == 1, "no reply from %s in 20 s", c->name);
        ssize_t k = read(c->fd, c->buf + c->n, c->cap - c->n);
        if (k < 0 && errno == EINTR) continue;
        ck_assert_msg(k > 0, "%s closed the connection", c->name);
        c->n += (size_t)k;
    }
}

static rv *conn_cmd(conn *c, int argc, char **argv, const size_t *len) {
    conn_send(c, argc, argv, len);
    return conn_read(c);
}

static rv *conn_cmd5(conn *c, const char *a0, const char *a1, const char *a2,
                     const char *a3, const char *a4) {
    char *argv[5] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4};
    size_t len[5];
    int argc = 0;
    while (argc < 5 && argv[argc]) {
        len[argc] = strlen(argv[argc]);
        argc++;
    }
    return conn_cmd(c, argc, argv, len);
}

static rv *conn_cmdv(conn *c, const char *a0, const char *a1, const char *a2,
                     const char *a3) {
    return conn_cmd5(c, a0, a1, a2, a3, NULL);
}

/* ---- canonical texts ---- */

/* How a reply is compared: a mode of test_coll_diff.h (M_EXACT, M_SORT,
 * M_PAIRS) for the whole, or, with kids, element by element (an EXEC
 * reply, a script's result table). */
typedef struct norm {
    int mode;
    int n;
    struct norm *kids;
} norm;

static void norm_clear(norm *m) {
    for (int i = 0; i < m->n; i++) norm_clear(&m->kids[i]);
    free(m->kids);
    m->kids = NULL;
    m->n = 0;
    m->mode = M_EXACT;
}

static void fmt(sbuf *b, const rv *r, const norm *m);

static char *text_of(const rv *r, const norm *m) {
    sbuf b = {NULL, 0, 0};
    sb_str(&b, "");
    fmt(&b, r, m);
    return b.p;
}

/* The elements (in groups of `group`) sorted. */
static void fmt_multiset(sbuf *b, const rv *r, size_t group) {
    size_t n = r->n / group;
    char **items = calloc(n + 1, sizeof *items);
    for (size_t i = 0; i < n; i++) {
        sbuf t = {NULL, 0, 0};
        sb_str(&t, "");
        for (size_t j = 0; j < group; j++) {
            if (j) sb_str(&t, "=");
            fmt(&t, r->e[i * group + j], NULL);
        }
        items[i] = t.p;
    }
    qsort(items, n, sizeof *items, cmp_str);
    char h[32];
    snprintf(h, sizeof h, "%c%zu{", r->t, n);
    sb_str(b, h);
    for (size_t i = 0; i < n; i++) {
        sb_str(b, items[i]);
        sb_str(b, ",");
        free(items[i]);
    }
    sb_str(b, "}");
    free(items);
}

static void fmt(sbuf *b, const rv *r, const norm *m) {
    int agg = r->t == '*' || r->t == '~' || r->t == '%' || r->t == '>';
    if (agg && m && m->n == 0 && m->mode == M_SORT && r->t != '%') {
        fmt_multiset(b, r, 1);
        return;
    }
    if (agg && m && m->n == 0 && m->mode == M_PAIRS && r->n % 2 == 0 &&
        (r->t == '*' || r->t == '%')) {
        fmt_multiset(b, r, 2);
        return;
    }
    char t[32];
    switch (r->t) {
    case '$': sb_str(b, "'"); sb_esc(b, r->s, r->l); sb_str(b, "'"); break;
    case 'N': sb_str(b, "nil"); break;
    case '_': sb_str(b, "null"); break;
    case '*': case '~': case '%': case '>': case '|':
        snprintf(t, sizeof t, "%c%zu[", r->t, r->n);
        sb_str(b, t);
        for (size_t i = 0; i < r->n; i++) {
            if (i) sb_str(b, ",");
            const norm *k = m && (int)i < m->n && r->t != '%' ? &m->kids[i] : NULL;
            fmt(b, r->e[i], k);
        }
        sb_str(b, "]");
        break;
    default:
        sb_cat(b, &r->t, 1);
        sb_esc(b, r->s, r->l);
    }
}

/* ---- the run's state ---- */

static conn *mv, *mr, *ov, *orr; /* main and other connection, verso / redis */
static char *hist[HIST];
static long hist_n;
static sbuf report;
static int seg_failed;
static char last_r[64]; /* the start of the reference's last reply's text */
static uint64_t cur_seed;
static long cur_step;
static int resp3;
static long stats[8];
enum { ST_PLAIN, ST_MULTI, ST_WATCH, ST_EVAL, ST_FCALL, ST_EXECABORT, ST_EXECNIL, ST_RESP3 };

static int rn(int n) { return (int)(dc_rand() % (uint64_t)n); }
static int pct(int p) { return rn(100) < p; }
#define PICK(arr) ((arr)[rn((int)(sizeof(arr) / sizeof((arr)[0])))])

static void cmd_text(sbuf *b, int argc, char **argv, const size_t *len) {
    for (int i = 0; i < argc; i++) {
        if (i) sb_str(b, " ");
        sb_str(b, "\"");
        sb_esc(b, argv[i], len[i]);
        sb_str(b, "\"");
    }
}

static void note(const char *who, int argc, char **argv, const size_t *len) {
    sbuf b = {NULL, 0, 0};
    char t[48];
    snprintf(t, sizeof t, "  #%ld %s ", cur_step, who);
    sb_str(&b, t);
    cmd_text(&b, argc, argv, len);
    free(hist[hist_n % HIST]);
    hist[hist_n++ % HIST] = b.p;
}

static void differ(const char *what, const char *v, const char *r) {
    char t[160];
    size_t mark = report.n;
    snprintf(t, sizeof t, "\n=== TXN_DIFF_SEED segment seed %" PRIu64 ", step %ld: %s\n",
             cur_seed, cur_step, what);
    sb_str(&report, t);
    for (long k = hist_n > HIST ? hist_n - HIST : 0; k < hist_n; k++) {
        sb_str(&report, hist[k % HIST]);
        sb_str(&report, "\n");
    }
    sb_str(&report, "  verso: ");
    sb_str(&report, v);
    sb_str(&report, "\n  redis: ");
    sb_str(&report, r);
    sb_str(&report, "\n");
    fputs(report.p + mark, stderr);
    seg_failed = 1;
}

/* One command on both servers (the main connections, or the other ones),
 * its replies compared with m. */
static void both_cmd(int other, int argc, char **argv, const size_t *len, const norm *m) {
    if (seg_failed) return;
    note(other ? "other" : "main", argc, argv, len);
    rv *v = conn_cmd(other ? ov : mv, argc, argv, len);
    rv *r = conn_cmd(other ? orr : mr, argc, argv, len);
    char *tv = text_of(v, m), *tr = text_of(r, m);
    if (strcmp(tv, tr) != 0) differ("reply", tv, tr);
    snprintf(last_r, sizeof last_r, "%s", tr);
    free(tv);
    free(tr);
    rv_free(v);
    rv_free(r);
}

static void both_words(int other, const char *a0, const char *a1, const char *a2) {
    char *argv[3] = {(char *)a0, (char *)a1, (char *)a2};
    size_t len[3];
    int argc = 0;
    while (argc < 3 && argv[argc]) {
        len[argc] = strlen(argv[argc]);
        argc++;
    }
    both_cmd(other, argc, argv, len, NULL);
}

/* The setup commands, which must succeed on both. */
static void setup_cmd(const char *a0, const char *a1, const char *a2, const char *a3) {
    rv *v = conn_cmdv(mv, a0, a1, a2, a3), *r = conn_cmdv(mr, a0, a1, a2, a3);
    ck_assert_msg(v->t != '-', "verso %s %s: %s", a0, a1 ? a1 : "", v->s);
    ck_assert_msg(r->t != '-', "redis %s %s: %s", a0, a1 ? a1 : "", r->s);
    rv_free(v);
    rv_free(r);
}

/* ---- commands for blocks and scripts ---- */

static void gen_extra(dcmd *d);

/* gen_extra's keys: only its commands write them (their string encodings
 * are not compared, see key_state). */
static int is_x(const char *key) {
    return key[0] == 'x' && key[1] >= '1' && key[1] <= '3' && !key[2];
}

/* A command of the collection generator whose reply is deterministic and
 * time-free (see the top of the file), or now and then gen_extra's. */
static void gen_inner(dcmd *d) {
    for (;;) {
        dc_free(d);
        if (pct(12)) {
            gen_extra(d);
            return;
        }
        dc_gen(d);
        if (d->mode != M_EXACT && d->mode != M_SORT && d->mode != M_PAIRS) continue;
        if (!strncasecmp(d->argv[0], "SORT", 4)) continue;
        int lex = strstr(d->argv[0], "LEX") != NULL;
        for (int k = 1; k < d->argc; k++) lex |= !strcasecmp(d->argv[k], "BYLEX");
        /* EXPIRE GT/LT compares with a TTL set a few ms earlier: time */
        int gtlt = 0;
        for (int k = 2; k < d->argc && strcasestr(d->argv[0], "EXPIRE"); k++)
            gtlt |= !strcasecmp(d->argv[k], "GT") || !strcasecmp(d->argv[k], "LT");
        if (!lex && !gtlt) return;
    }
}

/* A string, bit, HyperLogLog or geo command on keys of its own, x1 x2 x3
 * (see is_x; the collection generator has only SET of these): for WATCH,
 * the writes that
 * change nothing (SETNX of an existing key, APPEND "", INCRBY 0, GEOADD of
 * the same position, a BITFIELD SET of the same value...) as well as
 * those that do. */
static void gen_extra(dcmd *d) {
    static const char *keys[] = {"x1", "x2", "x3", "x1"};
    static const char *vals[] = {"v", "1", "", "abc", "10.5", "-3"};
    const char *key = PICK(keys);
    int r = rn(24);
    d->mode = M_EXACT;
    switch (r) {
    case 0: dc_push(d, "SET"), dc_push(d, key), dc_push(d, PICK(vals));
        if (pct(30)) dc_push(d, PICK(((const char *[]){"NX", "XX", "GET", "KEEPTTL"})));
        break;
    case 1: dc_push(d, "SETNX"), dc_push(d, key), dc_push(d, PICK(vals)); break;
    case 2: dc_push(d, "APPEND"), dc_push(d, key), dc_push(d, PICK(vals)); break;
    case 3: dc_push(d, "SETRANGE"), dc_push(d, key), dc_push(d, PICK(((const char *[]){"0", "2", "7"})));
        dc_push(d, PICK(vals));
        break;
    case 4: dc_push(d, "INCRBY"), dc_push(d, key), dc_push(d, PICK(((const char *[]){"0", "1", "-2"}))); break;
    case 5: dc_push(d, "INCRBYFLOAT"), dc_push(d, key), dc_push(d, PICK(((const char *[]){"0", "1.5", "-0.25"}))); break;
    case 6: dc_push(d, "GETEX"), dc_push(d, key);
        if (pct(50)) dc_push(d, "PERSIST");
        break;
    case 7: dc_push(d, "GETDEL"), dc_push(d, key); break;
    case 8: dc_push(d, "GETSET"), dc_push(d, key), dc_push(d, PICK(vals)); break;
    case 9: dc_push(d, "MSETNX"), dc_push(d, key), dc_push(d, PICK(vals)), dc_push(d, PICK(keys)), dc_push(d, "w"); break;
    case 10: dc_push(d, "STRLEN"), dc_push(d, key); break;
    case 11: dc_push(d, "GETRANGE"), dc_push(d, key), dc_push(d, "0"), dc_push(d, "-2"); break;
    case 12: dc_push(d, "SETBIT"), dc_push(d, key), dc_push(d, PICK(((const char *[]){"0", "1", "7", "30"})));
        dc_push(d, pct(50) ? "1" : "0");
        break;
    case 13: dc_push(d, "GETBIT"), dc_push(d, key), dc_push(d, "1"); break;
    case 14: dc_push(d, "BITCOUNT"), dc_push(d, key); break;
    case 15: dc_push(d, "PFADD"), dc_push(d, key);
        for (int i = rn(3); i > 0; i--) dc_push(d, PICK(vals));
        break;
    case 16: dc_push(d, "PFCOUNT"), dc_push(d, key); break;
    case 17: dc_push(d, "GEOADD"), dc_push(d, key);
        if (pct(30)) dc_push(d, PICK(((const char *[]){"NX", "XX", "CH"})));
        dc_push(d, "13.361389"), dc_push(d, pct(50) ? "38.115556" : "38.2"), dc_push(d, pct(50) ? "a" : "b");
        break;
    case 18: dc_push(d, "GEOPOS"), dc_push(d, key), dc_push(d, "a"), dc_push(d, "b"); break;
    case 19: dc_push(d, "DECR"), dc_push(d, key); break;
    case 20: dc_push(d, "MGET"), dc_push(d, key), dc_push(d, PICK(keys)); break;
    case 21: case 22:
        dc_push(d, "BITFIELD"), dc_push(d, key);
        /* not OVERFLOW FAIL: one that creates or grows the string while
         * FAIL refuses every write is a change in verso (doc/compat.md) */
        if (pct(30)) dc_push(d, "OVERFLOW"), dc_push(d, pct(50) ? "WRAP" : "SAT");
        dc_push(d, pct(50) ? "SET" : "INCRBY"), dc_push(d, PICK(((const char *[]){"u8", "i4", "u2"})));
        dc_push(d, PICK(((const char *[]){"0", "8", "40"})));
        dc_push(d, PICK(((const char *[]){"0", "118", "120", "-1", "200"})));
        if (pct(30)) dc_push(d, "GET"), dc_push(d, "u8"), dc_push(d, "0");
        break;
    default: dc_push(d, "LCS"), dc_push(d, key), dc_push(d, PICK(keys)); break;
    }
}

/* A Lua string literal of s. */
static void lua_lit(sbuf *b, const char *s, size_t l) {
    sb_str(b, "'");
    for (size_t i = 0; i < l; i++) {
        unsigned char ch = (unsigned char)s[i];
        char t[8];
        if (ch >= 32 && ch < 127 && ch != '\\' && ch != '\'') {
            sb_cat(b, &s[i], 1);
        } else {
            snprintf(t, sizeof t, "\\%03u", ch);
            sb_str(b, t);
        }
    }
    sb_str(b, "'");
}

/* A script (its body in *body) that runs n inner commands; their modes go
 * to m (the result table's elements) when it returns its table. Keys:
 * the first command's key is KEYS[1] (*key1, or NULL). */
static void gen_script(sbuf *body, norm *m, int ro, const char **key1, dcmd *first) {
    int n = 1 + rn(4);
    int setresp = pct(20);
    if (pct(ro ? 20 : 4)) sb_str(body, "#!lua flags=no-writes\n");
    if (setresp) sb_str(body, "redis.setresp(3)\n");
    sb_str(body, "local r = {}\n");
    norm *kids = calloc((size_t)n, sizeof *kids);
    *key1 = NULL;
    for (int i = 0; i < n; i++) {
        dcmd d = {0};
        gen_inner(&d);
        kids[i].mode = d.mode;
        char t[64];
        int how = rn(100); /* redis.call, redis.pcall, or Lua's pcall of redis.call */
        if (how < 15) snprintf(t, sizeof t, "r[%d] = select(2, pcall(redis.call, ", i + 1);
        else snprintf(t, sizeof t, "r[%d] = redis.%s(", i + 1, how < 60 ? "call" : "pcall");
        sb_str(body, t);
        for (int k = 0; k < d.argc; k++) {
            if (k) sb_str(body, ", ");
            if (i == 0 && k == 1) {
                sb_str(body, "KEYS[1]");
                dc_push(first, d.argv[1]);
                *key1 = first->argv[first->argc - 1];
            } else {
                lua_lit(body, d.argv[k], d.len[k]);
            }
        }
        sb_str(body, how < 15 ? "))\n" : ")\n");
        dc_free(&d);
    }
    static const char *ends[] = {
        "return redis.status_reply('FINE')",
        "return redis.error_reply('MYERR custom')",
        "return redis.error_reply('no code here')",
        "error('boom')",
        "error({err='CUSTOM table error'})",
        "error(42)",
        "return {err='E1 from a table'}",
        "return {ok='fine'}",
        "return 3.7",
        "return -2.5",
        "return {1.5, -2.9, 'x', 7}",
        "return true",
        "return false",
        "return {true, false, 1}",
        "return nil",
        "return {1, nil, 3}",
        "return {double=2.5}",
        "return {map={f='v'}}",
        "return {set={m=true}}",
        "return redis.pcall('NOSUCHCMD', 'a')",
        "return redis.call('MULTI')",
        "return redis.pcall('EVAL', 'return 1', '0')",
        "return redis.pcall('SUBSCRIBE', 'ch')",
        "return redis.sha1hex('abc')",
        "return #r",
        "return type(r[1])",
        "return redis.call('PING')",
        "return redis.call('ECHO', 'hi')",
        "return redis.pcall('INCRBY', 'k', 'x')",
        "return redis.call('HSET', 'h1', 'f')",
    };
    if (pct(55)) {
        sb_str(body, "return r");
        m->n = n;
        m->kids = kids;
        return;
    }
    if (pct(5)) { /* r nested: its elements keep their modes */
        sb_str(body, "return {r, {1, {2, 'x'}}}");
        m->n = 1;
        m->kids = calloc(1, sizeof *m->kids);
        m->kids[0] = (norm){.mode = M_EXACT, .n = n, .kids = kids};
        return;
    }
    if (pct(10)) {
        sb_str(body, "return r[1]");
        m->mode = kids[0].mode;
    } else {
        sb_str(body, PICK(ends));
    }
    free(kids);
}

/* A script command into c (EVAL, EVALSHA after a SCRIPT LOAD on both,
 * EVAL_RO, EVALSHA_RO, now and then an unknown sha); m: its reply's norm. */
static void gen_eval(dcmd *c, norm *m) {
    static const char *names[] = {"EVAL", "EVAL", "EVAL", "EVALSHA", "EVAL_RO",
                                  "EVALSHA_RO"};
    const char *name = PICK(names);
    int ro = strstr(name, "_RO") != NULL, sha = strstr(name, "SHA") != NULL;
    sbuf body = {NULL, 0, 0};
    sb_str(&body, "");
    dcmd keys = {0};
    const char *key1;
    gen_script(&body, m, ro, &key1, &keys);
    dc_push(c, name);
    if (sha && pct(8)) {
        dc_push(c, "ffffffffffffffffffffffffffffffffffffffff");
    } else if (sha) {
        /* SCRIPT LOAD on the other connections (the main ones may be in
         * MULTI); the replies are compared, the sha is Redis's */
        char *argv[3] = {"SCRIPT", "LOAD", body.p};
        size_t len[3] = {6, 4, body.n};
        both_cmd(1, 3, argv, len, NULL);
        dc_push(c, last_r[0] == '\'' ? last_r + 1 : "?");
        c->argv[c->argc - 1][40 < c->len[c->argc - 1] ? 40 : c->len[c->argc - 1]] = '\0';
        c->len[c->argc - 1] = strlen(c->argv[c->argc - 1]);
    } else {
        c->len[c->argc] = body.n;
        c->argv[c->argc++] = body.p;
        body.p = NULL;
    }
    free(body.p);
    if (pct(4)) dc_push(c, PICK(((const char *[]){"-1", "x", "3", "99999999999"})));
    else dc_push(c, key1 ? "1" : "0");
    if (key1) dc_push(c, key1);
    if (pct(20)) dc_push(c, "argv1");
    dc_free(&keys);
}

/* An FCALL / FCALL_RO of the library (see LIB) into c. */
static void gen_fcall(dcmd *c, norm *m) {
    int r = rn(100);
    int ro = pct(30);
    dc_push(c, ro ? "FCALL_RO" : "FCALL");
    if (r < 70) {
        dc_push(c, ro ? (pct(80) ? "run_ro" : "run") : (pct(90) ? "run" : "run_ro"));
        int n = 1 + rn(3);
        dcmd d = {0};
        gen_inner(&d);
        dc_push(c, "1");
        dc_push(c, d.argc > 1 ? d.argv[1] : "k");
        m->n = n;
        m->kids = calloc((size_t)n, sizeof *m->kids);
        for (int i = 0; i < n; i++) {
            if (i) gen_inner(&d);
            m->kids[i].mode = d.mode;
            char t[16];
            snprintf(t, sizeof t, "%d", d.argc);
            dc_push(c, t);
            dc_push(c, pct(60) ? "c" : "p");
            for (int k = 0; k < d.argc; k++) {
                c->len[c->argc] = d.len[k];
                c->argv[c->argc++] = memcpy(malloc(d.len[k] + 1), d.argv[k], d.len[k] + 1);
                if (c->argc >= DC_MAXARGS - 2) break;
            }
            if (c->argc >= DC_MAXARGS - 20) {
                m->n = i + 1;
                break;
            }
        }
        dc_free(&d);
    } else if (r < 92) {
        static const char *kinds[] = {"float", "true", "false", "nil", "status", "error",
                                      "raise", "table", "double", "map", "set", "nested"};
        dc_push(c, "kinds");
        dc_push(c, "0");
        dc_push(c, PICK(kinds));
    } else {
        dc_push(c, PICK(((const char *[]){"nosuch", "kinds"})));
        dc_push(c, PICK(((const char *[]){"0", "x", "-1", "5"})));
    }
}

/* The library both servers load at the start of a segment. run / run_ro:
 * ARGV is a sequence of <n> <c|p> <command of n words>, each run with
 * redis.call (c) or redis.pcall (p), their replies returned as a table. */
static const char LIB[] =
    "#!lua name=difflib\n"
    "local function run(keys, args)\n"
    "  local r, i, k = {}, 1, 1\n"
    "  while i <= #args do\n"
    "    local n, how = tonumber(args[i]), args[i + 1]\n"
    "    local cmd = {}\n"
    "    for j = 1, n do cmd[j] = args[i + 1 + j] end\n"
    "    if how == 'c' then r[k] = redis.call(unpack(cmd))\n"
    "    else r[k] = redis.pcall(unpack(cmd)) end\n"
    "    i, k = i + 2 + n, k + 1\n"
    "  end\n"
    "  return r\n"
    "end\n"
    "local kinds = {\n"
    "  float = function() return 3.99 end,\n"
    "  ['true'] = function() return true end,\n"
    "  ['false'] = function() return false end,\n"
    "  ['nil'] = function() return nil end,\n"
    "  status = function() return redis.status_reply('GOOD') end,\n"
    "  error = function() return redis.error_reply('LIBERR from a function') end,\n"
    "  raise = function() error('raised in a function') end,\n"
    "  table = function() return {1, 'two', {3}, -4.5} end,\n"
    "  double = function() return {double = -0.25} end,\n"
    "  map = function() return {map = {a = 1}} end,\n"
    "  set = function() return {set = {x = true}} end,\n"
    "  nested = function() return {{err = 'INNER err'}, {ok = 'INNER ok'}, false} end,\n"
    "}\n"
    "redis.register_function('run', run)\n"
    "redis.register_function{function_name = 'run_ro', callback = run,\n"
    "                        flags = {'no-writes'}}\n"
    "redis.register_function('kinds', function(keys, args) return kinds[args[1]]() end)\n";

/* ---- steps ---- */

static void run_dcmd(int other, dcmd *d, const norm *m) {
    both_cmd(other, d->argc, d->argv, d->len, m);
}

/* A command of the generator, compared by its mode. */
static void run_gen(int other, dcmd *d) {
    norm m = {.mode = d->mode};
    both_cmd(other, d->argc, d->argv, d->len, &m);
}

static void step_plain(void) {
    dcmd d = {0};
    norm m = {0};
    gen_inner(&d);
    m.mode = d.mode;
    run_dcmd(0, &d, &m);
    dc_free(&d);
}

/* A block: MULTI, its commands, EXEC (or DISCARD). */
static void step_block(void) {
    both_words(0, "MULTI", NULL, NULL);
    int n = rn(6);
    norm ex = {.mode = M_EXACT, .n = 0, .kids = calloc((size_t)n + 1, sizeof(norm))};
    int queued = 0;
    for (int i = 0; i < n && !seg_failed; i++) {
        dcmd d = {0};
        norm m = {0};
        int r = rn(100);
        if (r < 12) gen_eval(&d, &m);
        else if (r < 20) gen_fcall(&d, &m);
        else if (r < 22) dc_push(&d, "NOSUCHCMD"), dc_push(&d, "x");
        else if (r < 24) dc_push(&d, "MULTI");
        else if (r < 26) dc_push(&d, "WATCH"), dc_push(&d, "k");
        else if (r < 27) dc_push(&d, "SAVE");
        else if (r < 28) dc_push(&d, "UNWATCH");
        else if (r < 29) dc_push(&d, "SET");
        else gen_inner(&d), m.mode = d.mode;
        /* what the EXEC reply's element for it will be compared with */
        int counts = strcasecmp(d.argv[0], "MULTI") && strcasecmp(d.argv[0], "WATCH");
        run_dcmd(0, &d, NULL);
        if (counts) ex.kids[queued++] = m;
        else norm_clear(&m);
        dc_free(&d);
    }
    ex.n = queued;
    int r = rn(100);
    if (r < 10) both_words(0, "DISCARD", NULL, NULL);
    else {
        char *argv[1] = {"EXEC"};
        size_t len[1] = {4};
        both_cmd(0, 1, argv, len, &ex);
        if (!strncmp(last_r, "-EXECABORT", 10)) stats[ST_EXECABORT]++;
        if (!strcmp(last_r, "nil") || !strcmp(last_r, "null")) stats[ST_EXECNIL]++;
    }
    norm_clear(&ex);
    if (pct(5)) both_words(0, pct(50) ? "EXEC" : "DISCARD", NULL, NULL);
}

/* WATCH, maybe a touch, then a block. */
static void step_watch(void) {
    dcmd w = {0};
    dc_push(&w, "WATCH");
    for (int i = 1 + rn(3); i > 0; i--) {
        dcmd d = {0};
        gen_inner(&d);
        dc_push(&w, d.argc > 1 ? d.argv[1] : "k");
        dc_free(&d);
    }
    run_dcmd(0, &w, NULL);
    int r = rn(100);
    dcmd t = {0};
    if (r < 40) { /* the other connection writes to a watched key */
        gen_inner(&t);
        const char *wk = w.argv[1 + rn(w.argc - 1)];
        if (t.argc > 1 && is_x(t.argv[1]) == is_x(wk)) {
            free(t.argv[1]);
            t.argv[1] = strdup(wk);
            t.len[1] = strlen(t.argv[1]);
        }
        run_gen(1, &t);
    } else if (r < 60) { /* the other connection, any key */
        gen_inner(&t);
        run_gen(1, &t);
    } else if (r < 70) { /* the main connection itself */
        gen_inner(&t);
        run_gen(0, &t);
    } else if (r < 73) {
        both_words(1, pct(50) ? "FLUSHALL" : "FLUSHDB", NULL, NULL);
    } else if (r < 76) {
        both_words(0, "UNWATCH", NULL, NULL);
        gen_inner(&t);
        run_gen(1, &t);
    }
    dc_free(&t);
    dc_free(&w);
    step_block();
}

static void step_eval(void) {
    dcmd d = {0};
    norm m = {0};
    gen_eval(&d, &m);
    run_dcmd(0, &d, &m);
    norm_clear(&m);
    if (pct(3) && d.argc > 1 && strlen(d.argv[1]) == 40)
        both_words(0, "SCRIPT", "EXISTS", d.argv[1]);
    dc_free(&d);
    if (pct(3)) both_words(0, "SCRIPT", "FLUSH", NULL);
}

static void step_fcall(void) {
    dcmd d = {0};
    norm m = {0};
    gen_fcall(&d, &m);
    run_dcmd(0, &d, &m);
    norm_clear(&m);
    dc_free(&d);
}

static void set_proto(int three) {
    resp3 = three;
    rv *v = conn_cmdv(mv, "HELLO", three ? "3" : "2", NULL, NULL);
    rv *r = conn_cmdv(mr, "HELLO", three ? "3" : "2", NULL, NULL);
    ck_assert_msg(v->t != '-' && r->t != '-', "HELLO %d refused", three ? 3 : 2);
    char *argv[2] = {"HELLO", three ? "3" : "2"};
    size_t len[2] = {5, 1};
    note("main (reply not compared)", 2, argv, len);
    rv_free(v);
    rv_free(r);
}

/* ---- the whole key space ---- */

static char *key_state(conn *c, const char *key) {
    sbuf b = {NULL, 0, 0};
    rv *t = conn_cmdv(c, "TYPE", key, NULL, NULL);
    sb_str(&b, t->s ? t->s : "?");
    /* the encoding, but not of gen_extra's strings: after APPEND, SETRANGE,
     * SETBIT, INCRBYFLOAT verso's differs from Redis's (raw, embstr), an
     * item of its own */
    rv *e = conn_cmdv(c, "OBJECT", "ENCODING", key, NULL);
    sb_str(&b, " ");
    if (!(is_x(key) && t->s && !strcmp(t->s, "string"))) fmt(&b, e, NULL);
    rv *x = conn_cmdv(c, "TTL", key, NULL, NULL);
    sb_str(&b, x->t == ':' && x->s[0] != '-' ? " ttl " : " ");
    rv *v;
    norm m = {.mode = M_EXACT};
    const char *ty = t->s ? t->s : "";
    if (!strcmp(ty, "hash")) v = conn_cmdv(c, "HGETALL", key, NULL, NULL), m.mode = M_PAIRS;
    else if (!strcmp(ty, "set")) v = conn_cmdv(c, "SMEMBERS", key, NULL, NULL), m.mode = M_SORT;
    else if (!strcmp(ty, "list")) v = conn_cmdv(c, "LRANGE", key, "0", "-1");
    else if (!strcmp(ty, "zset")) v = conn_cmd5(c, "ZRANGE", key, "0", "-1", "WITHSCORES");
    else v = conn_cmdv(c, "GET", key, NULL, NULL);
    fmt(&b, v, &m);
    rv_free(v);
    rv_free(x);
    rv_free(e);
    rv_free(t);
    return b.p;
}

static void compare_all(void) {
    if (seg_failed) return;
    rv *kv = conn_cmdv(mv, "KEYS", "*", NULL, NULL), *kr = conn_cmdv(mr, "KEYS", "*", NULL, NULL);
    norm set = {.mode = M_SORT};
    char *tv = text_of(kv, &set), *tr = text_of(kr, &set);
    if (strcmp(tv, tr) != 0) differ("KEYS * after this step", tv, tr);
    for (size_t k = 0; k < kr->n && !seg_failed; k++) {
        char *a = key_state(mv, kr->e[k]->s), *b = key_state(mr, kr->e[k]->s);
        if (strcmp(a, b) != 0) {
            char what[128];
            snprintf(what, sizeof what, "contents of key '%.60s' after this step", kr->e[k]->s);
            differ(what, a, b);
        }
        free(a);
        free(b);
    }
    free(tv);
    free(tr);
    rv_free(kv);
    rv_free(kr);
}

/* INFO commandstats or errorstats without the times: its lines sorted. */
static char *stats_text(conn *c, const char *section) {
    rv *r = conn_cmdv(c, "INFO", section, NULL, NULL);
    ck_assert_msg(r->t == '$' || r->t == '=', "INFO %s: %c", section, r->t);
    char *lines[1024];
    size_t n = 0;
    for (char *save, *l = strtok_r(r->s, "\r\n", &save); l && n < 1024;
         l = strtok_r(NULL, "\r\n", &save)) {
        if (l[0] == '#' || !l[0]) continue;
        sbuf b = {NULL, 0, 0};
        sb_str(&b, "");
        for (char *save2, *f = strtok_r(l, ",", &save2); f; f = strtok_r(NULL, ",", &save2)) {
            if (strstr(f, "usec")) continue;
            sb_str(&b, f);
            sb_str(&b, ",");
        }
        lines[n++] = b.p;
    }
    qsort(lines, n, sizeof *lines, cmp_str);
    sbuf all = {NULL, 0, 0};
    sb_str(&all, "");
    for (size_t i = 0; i < n; i++) {
        sb_str(&all, lines[i]);
        sb_str(&all, "\n  ");
        free(lines[i]);
    }
    rv_free(r);
    return all.p;
}

/* INFO stats' counters of commands, errors and key lookups. */
static char *counters_text(conn *c) {
    static const char *fields[] = {"total_commands_processed:", "total_error_replies:",
                                   "keyspace_hits:", "keyspace_misses:"};
    rv *r = conn_cmdv(c, "INFO", "stats", NULL, NULL);
    sbuf b = {NULL, 0, 0};
    sb_str(&b, "");
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        const char *at = r->s ? strstr(r->s, fields[i]) : NULL;
        size_t n = at ? strcspn(at, "\r\n") : 0;
        sb_cat(&b, at ? at : fields[i], at ? n : strlen(fields[i]));
        sb_str(&b, " ");
    }
    rv_free(r);
    return b.p;
}

/* The counts of calls, rejected and failed calls per command, of errors
 * per code and INFO stats' counters since the segment's CONFIG RESETSTAT. */
static void compare_stats(void) {
    static const char *sections[] = {"commandstats", "errorstats"};
    for (int k = 0; k < 2 && !seg_failed; k++) {
        char *a = stats_text(mv, sections[k]), *b = stats_text(mr, sections[k]);
        if (strcmp(a, b) != 0) differ(sections[k], a, b);
        free(a);
        free(b);
    }
    if (seg_failed) return;
    char *a = counters_text(mv), *b = counters_text(mr);
    if (strcmp(a, b) != 0) differ("INFO stats", a, b);
    free(a);
    free(b);
}

/* TXN_DIFF_DUMP=n: every key on both servers before step n. */
static long dump_at = -1;

static void dump_keys(void) {
    conn *cs[2] = {mv, mr};
    for (int k = 0; k < 2; k++) {
        rv *keys = conn_cmdv(cs[k], "KEYS", "*", NULL, NULL);
        for (size_t j = 0; j < keys->n; j++) {
            char *st = key_state(cs[k], keys->e[j]->s);
            rv *t = conn_cmdv(cs[k], "PTTL", keys->e[j]->s, NULL, NULL);
            printf("before #%ld %s: %s = %s (pttl %s)\n", cur_step, k ? "redis" : "verso",
                   keys->e[j]->s, st, t->s ? t->s : "?");
            rv_free(t);
            free(st);
        }
        rv_free(keys);
    }
}

/* ---- per segment ---- */

static void prepare(int small) {
    setup_cmd("FLUSHALL", NULL, NULL, NULL);
    setup_cmd("SCRIPT", "FLUSH", NULL, NULL);
    setup_cmd("FUNCTION", "FLUSH", NULL, NULL);
    setup_cmd("FUNCTION", "LOAD", LIB, NULL);
    setup_cmd("CONFIG", "SET", "hash-max-listpack-entries", small ? "4" : "128");
    setup_cmd("CONFIG", "SET", "hash-max-listpack-value", small ? "8" : "64");
    setup_cmd("CONFIG", "SET", "zset-max-listpack-entries", small ? "4" : "128");
    setup_cmd("CONFIG", "SET", "zset-max-listpack-value", small ? "8" : "64");
    setup_cmd("CONFIG", "SET", "set-max-intset-entries", small ? "4" : "512");
    setup_cmd("SET", "str", "a string", NULL);
    setup_cmd("CONFIG", "RESETSTAT", NULL, NULL);
}

static void run_segment(uint64_t seed, int odd, long steps) {
    cur_seed = seed;
    dc_seed(seed);
    seg_failed = 0;
    hist_n = 0;
    conn *all[4] = {mv, mr, ov, orr};
    for (int k = 0; k < 4; k++) { /* a segment that stopped may have left a MULTI */
        rv_free(conn_cmdv(all[k], "DISCARD", NULL, NULL, NULL));
        rv_free(conn_cmdv(all[k], "UNWATCH", NULL, NULL, NULL));
    }
    set_proto(0);
    prepare(odd);
    set_proto(odd);
    long i;
    for (i = 0; i < steps && !seg_failed; i++) {
        cur_step = i;
        if (dump_at == i) dump_keys();
        int r = rn(100);
        if (r < 15) step_plain(), stats[ST_PLAIN]++;
        else if (r < 45) step_block(), stats[ST_MULTI]++;
        else if (r < 60) step_watch(), stats[ST_WATCH]++;
        else if (r < 85) step_eval(), stats[ST_EVAL]++;
        else if (r < 99) step_fcall(), stats[ST_FCALL]++;
        else set_proto(!resp3);
        stats[ST_RESP3] += resp3;
        if (!seg_failed && (i % CHECK_EVERY == CHECK_EVERY - 1 || i == steps - 1))
            compare_all();
    }
    if (!seg_failed) compare_stats();
    printf("txn_diff: seed %" PRIu64 " (%s at the start%s): %ld steps%s\n", seed,
           odd ? "RESP3" : "RESP2", odd ? ", small encodings" : "", i,
           seg_failed ? ", DIFFERENCE" : ", same");
    fflush(stdout);
}

START_TEST(differential) {
    srv *sv = h_srv_start("%s", "");
    srv *sr = srv_start_redis(NULL);
    mv = conn_open(sv, "verso"), mr = conn_open(sr, "redis");
    ov = conn_open(sv, "verso (other)"), orr = conn_open(sr, "redis (other)");
    uint64_t seed = rnd_seed_env("txn_diff", "TXN_DIFF_SEED");
    const char *es = getenv("TXN_DIFF_STEPS");
    long steps = es && atol(es) > 0 ? atol(es) : STEPS;
    const char *ed = getenv("TXN_DIFF_DUMP");
    if (ed && *ed) dump_at = atol(ed);
    const char *eg = getenv("TXN_DIFF_SEGMENTS");
    int segs = eg && atoi(eg) > 0 ? atoi(eg) : SEGMENTS;
    report.n = 0;
    sb_str(&report, "");
    int failed = 0;
    for (int s = 0; s < segs; s++) {
        run_segment(seed + (uint64_t)s, s % 2, steps);
        failed += seg_failed;
    }
    printf("txn_diff: steps: %ld plain, %ld MULTI, %ld WATCH+MULTI, %ld EVAL*, %ld FCALL*; "
           "%ld in RESP3; %ld EXECABORT, %ld EXEC nil (a WATCH)\n",
           stats[ST_PLAIN], stats[ST_MULTI], stats[ST_WATCH], stats[ST_EVAL],
           stats[ST_FCALL], stats[ST_RESP3], stats[ST_EXECABORT], stats[ST_EXECNIL]);
    for (int k = 0; k < HIST; k++) free(hist[k]);
    conn_close(mv);
    conn_close(mr);
    conn_close(ov);
    conn_close(orr);
    srv_stop(sr);
    ck_assert_msg(failed == 0,
                  "%d of %d segments differ from redis-server (see stderr; "
                  "TXN_DIFF_SEED=%" PRIu64 " repeats the run)",
                  failed, segs, seed);
}
END_TEST

int main(void) {
    Suite *s = suite_create("txn_diff");
    h_add_dropall(s, "differential", differential, 600);
    return h_main(s);
}
