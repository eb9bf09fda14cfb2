/* test_coll_diff: a differential test of the collection commands against
 * redis-server 7.0. Both servers run side by side; seeded random command
 * sequences (test_coll_diff_gen.c) go to both and the replies are compared,
 * and every CHECK_EVERY commands the whole key space (every key's type,
 * encoding, TTL presence and contents). The seeds are fixed (SEEDS seeds,
 * COMMANDS commands each); COLL_DIFF_SEED=n runs seed n alone and
 * COLL_DIFF_COMMANDS=n changes the length, COLL_DIFF_CHECK=n compares
 * the key space every n commands (default 50), COLL_DIFF_DUMP=n prints
 * the first key of command n on both servers before it runs. Odd seeds run with small
 * listpack/intset limits, so that conversions happen often.
 *
 * How replies are compared (the mode the generator gives each command):
 * - exactly, for everything whose order Redis defines;
 * - as a multiset where the order is unspecified or differs by design
 *   (doc/design.md, Collections: a small hash is kept in hash order, not
 *   insertion order; big hashes and sets are unordered in both): HKEYS,
 *   HVALS, HGETALL (pairs), SMEMBERS, SINTER, SUNION, SDIFF, SORT BY nosort
 *   of a set (with LIMIT only the length: which elements is unspecified);
 * - xSCAN key 0: each server's whole iteration (cursor until 0) as a set of
 *   elements (pairs for HSCAN/ZSCAN): cursors are hash positions in verso;
 * - HRANDFIELD, SRANDMEMBER, ZRANDMEMBER: random in Redis too, so each
 *   server's reply is checked against its own contents (length, members,
 *   values/scores, distinct for a positive count), which also checks the
 *   checker against Redis;
 * - SPOP: the popped counts must match and the members be distinct members
 *   of the set before; then each server removes what the other popped, so
 *   both hold the same set again (and the same encoding: see
 *   spop_same_encoding);
 * - TTL/PTTL: equal when negative, within 1 s otherwise (two servers, two
 *   clocks); MEMORY USAGE: verso counts its own nodes (design.md), so only
 *   "both an integer" (or the same error / nil).
 * Not run: lex ranges over a sorted set whose scores differ (Redis leaves
 * the result unspecified); not generated: SORT BY pattern with ALPHA
 * (Redis breaks no ties there, the order of equal weights is unspecified).
 * SORT failing in Redis on a stale errno is run again there (see step).
 * Errors are compared exactly (the text is Redis's). A difference stops that
 * seed (later commands would only repeat it) after printing the last
 * commands; the test fails at the end if any seed differed. */
#include "harness.h"
#include "sbuf.h"
#include "test_coll_diff.h"
#include "testcmp.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SEEDS = 20, COMMANDS = 2000, HIST = 12 };
static long check_every = 50; /* COLL_DIFF_CHECK=n: every n commands */
static long dump_at = -1;      /* COLL_DIFF_DUMP=n: see run_seed */

/* The canonical text of a reply: "+s", "-e", ":n", "$'b'", "nil", "*n[a,b]". */
static void fmt_reply(sbuf *b, const redisReply *r) {
    char t[64];
    switch (r->type) {
    case REDIS_REPLY_STATUS: sb_str(b, "+"); sb_esc(b, r->str, r->len); break;
    case REDIS_REPLY_ERROR: sb_str(b, "-"); sb_esc(b, r->str, r->len); break;
    case REDIS_REPLY_INTEGER: snprintf(t, sizeof t, ":%lld", r->integer); sb_str(b, t); break;
    case REDIS_REPLY_NIL: sb_str(b, "nil"); break;
    case REDIS_REPLY_STRING: sb_str(b, "'"); sb_esc(b, r->str, r->len); sb_str(b, "'"); break;
    case REDIS_REPLY_ARRAY:
        snprintf(t, sizeof t, "*%zu[", r->elements);
        sb_str(b, t);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) sb_str(b, ",");
            fmt_reply(b, r->element[i]);
        }
        sb_str(b, "]");
        break;
    default: snprintf(t, sizeof t, "?%d", r->type); sb_str(b, t);
    }
}

static char *reply_text(const redisReply *r) {
    sbuf b = {NULL, 0, 0};
    sb_str(&b, "");
    fmt_reply(&b, r);
    return b.p;
}

/* An array's elements (group of `group` consecutive elements as one item)
 * as a sorted multiset text; uniq drops repeats. Anything else: as is. */
static char *multiset_text(const redisReply *r, size_t group, int uniq) {
    if (r->type != REDIS_REPLY_ARRAY || r->elements % group) return reply_text(r);
    size_t n = r->elements / group;
    char **items = calloc(n + 1, sizeof *items);
    for (size_t i = 0; i < n; i++) {
        sbuf b = {NULL, 0, 0};
        sb_str(&b, "");
        for (size_t j = 0; j < group; j++) {
            if (j) sb_str(&b, "=");
            fmt_reply(&b, r->element[i * group + j]);
        }
        items[i] = b.p;
    }
    qsort(items, n, sizeof *items, cmp_str);
    sbuf b = {NULL, 0, 0};
    sb_str(&b, "{");
    for (size_t i = 0; i < n; i++) {
        if (!(uniq && i && strcmp(items[i], items[i - 1]) == 0)) {
            sb_str(&b, items[i]);
            sb_str(&b, ",");
        }
    }
    for (size_t i = 0; i < n; i++) free(items[i]);
    sb_str(&b, "}");
    free(items);
    return b.p;
}

/* ---- running commands on both ---- */

static redisContext *cv, *cr; /* verso, redis */
static dcmd hist[HIST];
static long hist_n;
static sbuf report;
static int seed_failed;

static void cmd_text(sbuf *b, const dcmd *c) {
    for (int i = 0; i < c->argc; i++) {
        if (i) sb_str(b, " ");
        sb_str(b, "\"");
        sb_esc(b, c->argv[i], c->len[i]);
        sb_str(b, "\"");
    }
}

static redisReply *run(redisContext *c, int argc, char **argv, size_t *len) {
    redisReply *r = redisCommandArgv(c, argc, (const char **)argv, len);
    if (!r) {
        sbuf b = {NULL, 0, 0};
        dcmd t = {.argc = argc};
        memcpy(t.argv, argv, (size_t)argc * sizeof *argv);
        memcpy(t.len, len, (size_t)argc * sizeof *len);
        cmd_text(&b, &t);
        ck_abort_msg("I/O error from %s on %s: %s", c == cv ? "verso" : "redis", b.p,
                     c->errstr);
    }
    return r;
}

static redisReply *runv(redisContext *c, const char *a0, const char *a1, const char *a2,
                        const char *a3, const char *a4) {
    char *argv[5] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4};
    size_t len[5];
    int argc = 0;
    while (argc < 5 && argv[argc]) {
        len[argc] = strlen(argv[argc]);
        argc++;
    }
    return run(c, argc, argv, len);
}

/* Records a difference: the seed, the command number, the last commands,
 * what each server said. */
static void differ(uint64_t seed, long i, const char *what, const char *v, const char *r) {
    char t[128];
    size_t mark = report.n;
    snprintf(t, sizeof t, "\n=== seed %llu, command #%ld: %s\n",
             (unsigned long long)seed, i, what);
    sb_str(&report, t);
    long first = hist_n > HIST ? hist_n - HIST : 0;
    for (long k = first; k < hist_n; k++) {
        snprintf(t, sizeof t, "  #%ld ", k);
        sb_str(&report, t);
        cmd_text(&report, &hist[k % HIST]);
        sb_str(&report, "\n");
    }
    sb_str(&report, "  verso: ");
    sb_str(&report, v);
    sb_str(&report, "\n  redis: ");
    sb_str(&report, r);
    sb_str(&report, "\n");
    fputs(report.p + mark, stderr);
    seed_failed = 1;
}

static void compare_text(uint64_t seed, long i, const char *what, char *v, char *r) {
    if (strcmp(v, r) != 0) differ(seed, i, what, v, r);
    free(v);
    free(r);
}

/* ---- whole key space ---- */

/* A key's contents in canonical text (sorted where the order is not Redis's
 * to define), with its type, encoding and whether it has a TTL. */
static char *key_state(redisContext *c, const char *key) {
    sbuf b = {NULL, 0, 0};
    redisReply *t = runv(c, "TYPE", key, NULL, NULL, NULL);
    sb_str(&b, t->str);
    redisReply *e = runv(c, "OBJECT", "ENCODING", key, NULL, NULL);
    sb_str(&b, " ");
    fmt_reply(&b, e);
    redisReply *x = runv(c, "TTL", key, NULL, NULL, NULL);
    sb_str(&b, x->integer >= 0 ? " ttl " : " " );
    redisReply *v = NULL;
    char *body = NULL;
    if (!strcmp(t->str, "hash")) {
        v = runv(c, "HGETALL", key, NULL, NULL, NULL);
        body = multiset_text(v, 2, 0);
    } else if (!strcmp(t->str, "set")) {
        v = runv(c, "SMEMBERS", key, NULL, NULL, NULL);
        body = multiset_text(v, 1, 0);
    } else if (!strcmp(t->str, "list")) {
        v = runv(c, "LRANGE", key, "0", "-1", NULL);
    } else if (!strcmp(t->str, "zset")) {
        v = runv(c, "ZRANGE", key, "0", "-1", "WITHSCORES");
    } else {
        v = runv(c, "GET", key, NULL, NULL, NULL);
    }
    if (!body) body = reply_text(v);
    sb_str(&b, body);
    free(body);
    freeReplyObject(v);
    freeReplyObject(x);
    freeReplyObject(e);
    freeReplyObject(t);
    return b.p;
}

static void compare_all(uint64_t seed, long i) {
    redisReply *kv = runv(cv, "KEYS", "*", NULL, NULL, NULL);
    redisReply *kr = runv(cr, "KEYS", "*", NULL, NULL, NULL);
    char *tv = multiset_text(kv, 1, 0), *tr = multiset_text(kr, 1, 0);
    int same = strcmp(tv, tr) == 0;
    compare_text(seed, i, "KEYS * after this command", tv, tr);
    if (same) {
        for (size_t k = 0; k < kr->elements && !seed_failed; k++) {
            const char *key = kr->element[k]->str;
            char what[128];
            snprintf(what, sizeof what, "contents of key '%.60s' after this command", key);
            compare_text(seed, i, what, key_state(cv, key), key_state(cr, key));
        }
    }
    freeReplyObject(kv);
    freeReplyObject(kr);
}

/* ---- the modes that are not "exact" ---- */

/* xSCAN: iterates to the end from the reply in hand; a set of the elements
 * (pairs unless SSCAN). NULL when the reply is not a scan reply. */
static char *scan_all(redisContext *c, const dcmd *d, redisReply *first) {
    if (first->type != REDIS_REPLY_ARRAY || first->elements != 2) return NULL;
    size_t group = !strcasecmp(d->argv[0], "SSCAN") ? 1 : 2;
    redisReply all = {.type = REDIS_REPLY_ARRAY};
    size_t cap = 0;
    redisReply *r = first;
    char *argv[DC_MAXARGS];
    size_t len[DC_MAXARGS];
    memcpy(argv, d->argv, sizeof argv);
    memcpy(len, d->len, sizeof len);
    redisReply *keep[1000];
    size_t nkeep = 0;
    for (int rounds = 0; rounds < 1000; rounds++) {
        ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_ARRAY);
        for (size_t j = 0; j < r->element[1]->elements; j++) {
            if (all.elements == cap) {
                cap = cap * 2 + 16;
                all.element = realloc(all.element, cap * sizeof *all.element);
            }
            all.element[all.elements++] = r->element[1]->element[j];
        }
        keep[nkeep++] = r;
        if (strcmp(r->element[0]->str, "0") == 0 || d->argc < 3) break;
        argv[2] = r->element[0]->str;
        len[2] = r->element[0]->len;
        r = run(c, d->argc, argv, len);
        ck_assert_msg(r->type == REDIS_REPLY_ARRAY, "scan continuation failed");
    }
    char *s = multiset_text(&all, group, 1);
    free(all.element);
    for (size_t k = 1; k < nkeep; k++) freeReplyObject(keep[k]);
    return s;
}

static int strtoll_ok(const char *s, long long *v) {
    char *end;
    *v = strtoll(s, &end, 10);
    return *s && !*end;
}

/* Checks a RAND reply against the server's own contents; NULL if fine,
 * else a malloc'd message. */
static char *rand_check(redisContext *c, const dcmd *d, const redisReply *r) {
    const char *key = d->argv[1];
    int z = toupper((unsigned char)d->argv[0][0]) == 'Z';
    int h = toupper((unsigned char)d->argv[0][0]) == 'H';
    redisReply *all = z ? runv(c, "ZRANGE", key, "0", "-1", "WITHSCORES")
                   : h ? runv(c, "HGETALL", key, NULL, NULL, NULL)
                       : runv(c, "SMEMBERS", key, NULL, NULL, NULL);
    size_t step = (z || h) ? 2 : 1, size = all->elements / step;
    char msg[256] = "";
    int withv = d->argc >= 4;
    long long cnt = 0;
    if (d->argc >= 3) strtoll_ok(d->argv[2], &cnt);
    /* index in `all` of an element, -1 if absent */
#define FIND(el, out)                                                           \
    do {                                                                        \
        out = -1;                                                               \
        for (size_t q = 0; q < size; q++)                                       \
            if (all->element[q * step]->len == (el)->len &&                     \
                memcmp(all->element[q * step]->str, (el)->str, (el)->len) == 0) \
                out = (long)q;                                                  \
    } while (0)
    if (d->argc == 2) {
        long at = -1;
        if (size == 0 && r->type != REDIS_REPLY_NIL) snprintf(msg, sizeof msg, "not nil");
        if (size > 0) {
            if (r->type != REDIS_REPLY_STRING) snprintf(msg, sizeof msg, "not a bulk");
            else {
                FIND(r, at);
                if (at < 0) snprintf(msg, sizeof msg, "not a member");
            }
        }
    } else if (r->type != REDIS_REPLY_ARRAY) {
        snprintf(msg, sizeof msg, "not an array");
    } else {
        size_t rstep = withv ? 2 : 1, n = r->elements / rstep;
        size_t want = cnt >= 0 ? ((size_t)cnt < size ? (size_t)cnt : size)
                               : (size ? (size_t)(-cnt) : 0);
        if (n != want || r->elements % rstep)
            snprintf(msg, sizeof msg, "%zu elements, want %zu", n, want);
        char *seen = calloc(size + 1, 1);
        for (size_t k = 0; k < n && !msg[0]; k++) {
            const redisReply *el = r->element[k * rstep];
            long at;
            FIND(el, at);
            if (at < 0) snprintf(msg, sizeof msg, "element %zu not a member", k);
            else if (cnt >= 0 && seen[at]++) snprintf(msg, sizeof msg, "element %zu repeated", k);
            else if (withv && (r->element[k * 2 + 1]->len != all->element[at * 2 + 1]->len ||
                               memcmp(r->element[k * 2 + 1]->str, all->element[at * 2 + 1]->str,
                                      r->element[k * 2 + 1]->len) != 0))
                snprintf(msg, sizeof msg, "element %zu: wrong value/score", k);
        }
        free(seen);
    }
#undef FIND
    freeReplyObject(all);
    return msg[0] ? strdup(msg) : NULL;
}

/* The elements an SPOP reply popped, as an argv for SREM (after argv0, key). */
static int spop_elems(const redisReply *r, char **argv, size_t *len, int max) {
    int n = 0;
    if (r->type == REDIS_REPLY_STRING) {
        argv[n] = r->str, len[n++] = r->len;
    } else if (r->type == REDIS_REPLY_ARRAY) {
        for (size_t k = 0; k < r->elements && n < max; k++)
            argv[n] = r->element[k]->str, len[n++] = r->element[k]->len;
    }
    return n;
}

enum { SPOP_MAX = 4096 };

/* An SPOP of most of a set rebuilds it in Redis (spopWithCountCommand's
 * case 3) from the elements left: an intset when they are all integers.
 * Which are left is random, so the two servers may end with the same
 * members in different encodings: the intset one is made a hashtable (a
 * string member added and removed), as the other already is. */
static void spop_same_encoding(const char *key) {
    redisReply *ev = runv(cv, "OBJECT", "ENCODING", key, NULL, NULL);
    redisReply *er = runv(cr, "OBJECT", "ENCODING", key, NULL, NULL);
    if (ev->type == REDIS_REPLY_STRING && er->type == REDIS_REPLY_STRING &&
        strcmp(ev->str, er->str) != 0) {
        redisContext *c = !strcmp(ev->str, "intset") ? cv : cr;
        freeReplyObject(runv(c, "SADD", key, "spop-tmp", NULL, NULL));
        freeReplyObject(runv(c, "SREM", key, "spop-tmp", NULL, NULL));
    }
    freeReplyObject(ev);
    freeReplyObject(er);
}

/* Each server's popped elements: distinct members of the set before;
 * same count on both; then both made equal (each SREMs the other's). */
static void do_spop(uint64_t seed, long i, const dcmd *d) {
    redisReply *bv = runv(cv, "SMEMBERS", d->argv[1], NULL, NULL, NULL);
    redisReply *br = runv(cr, "SMEMBERS", d->argv[1], NULL, NULL, NULL);
    redisReply *v = run(cv, d->argc, (char **)d->argv, (size_t *)d->len);
    redisReply *r = run(cr, d->argc, (char **)d->argv, (size_t *)d->len);
    char *tv = reply_text(v), *tr = reply_text(r);
    static char *av[SPOP_MAX + 2], *ar[SPOP_MAX + 2];
    static size_t lv[SPOP_MAX + 2], lr[SPOP_MAX + 2];
    int nv = spop_elems(v, av + 2, lv + 2, SPOP_MAX);
    int nr = spop_elems(r, ar + 2, lr + 2, SPOP_MAX);
    if (v->type != r->type || (v->type == REDIS_REPLY_ERROR && strcmp(tv, tr)) || nv != nr) {
        differ(seed, i, "SPOP reply kind/count", tv, tr);
    } else if (bv->type == REDIS_REPLY_ARRAY && br->type == REDIS_REPLY_ARRAY) {
        /* members before, distinct */
        const redisReply *before[2] = {bv, br};
        char **els[2] = {av + 2, ar + 2};
        size_t *lens[2] = {lv + 2, lr + 2};
        for (int s = 0; s < 2 && !seed_failed; s++) {
            for (int k = 0; k < nv; k++) {
                int in = 0, dup = 0;
                for (size_t q = 0; q < before[s]->elements; q++)
                    in |= before[s]->element[q]->len == lens[s][k] &&
                          !memcmp(before[s]->element[q]->str, els[s][k], lens[s][k]);
                for (int q = 0; q < k; q++)
                    dup |= lens[s][q] == lens[s][k] && !memcmp(els[s][q], els[s][k], lens[s][k]);
                if (!in || dup) {
                    differ(seed, i, s ? "redis SPOP: not a member or repeated (checker)"
                                      : "verso SPOP: not a member or repeated", tv, tr);
                    break;
                }
            }
        }
        if (!seed_failed && nv > 0) {
            ar[0] = av[0] = "SREM";
            ar[1] = av[1] = d->argv[1];
            lr[0] = lv[0] = 4;
            lr[1] = lv[1] = d->len[1];
            freeReplyObject(run(cv, nr + 2, ar, lr)); /* verso drops redis's */
            freeReplyObject(run(cr, nv + 2, av, lv));
            spop_same_encoding(d->argv[1]);
        }
    }
    free(tv);
    free(tr);
    freeReplyObject(v);
    freeReplyObject(r);
    freeReplyObject(bv);
    freeReplyObject(br);
}

static int is_int_reply(const redisReply *r) { return r->type == REDIS_REPLY_INTEGER; }

static long skipped;

/* A lex range (ZRANGEBYLEX & co., ZRANGE/ZRANGESTORE BYLEX) over a sorted
 * set whose scores are not all equal: Redis leaves the result unspecified
 * (it walks its skiplist in score order), so it is not run at all. */
static int lex_unspecified(const dcmd *d) {
    int lex = strstr(d->argv[0], "LEX") != NULL || strstr(d->argv[0], "lex") != NULL;
    for (int k = 2; k < d->argc; k++) lex |= !strcasecmp(d->argv[k], "BYLEX");
    int at = !strcasecmp(d->argv[0], "ZRANGESTORE") ? 2 : 1;
    if (!lex || d->argc <= at) return 0;
    redisReply *a = runv(cr, "ZRANGE", d->argv[at], "0", "0", "WITHSCORES");
    redisReply *b = runv(cr, "ZRANGE", d->argv[at], "-1", "-1", "WITHSCORES");
    int differ = a->type == REDIS_REPLY_ARRAY && b->type == REDIS_REPLY_ARRAY &&
                 a->elements == 2 && b->elements == 2 &&
                 strcmp(a->element[1]->str, b->element[1]->str) != 0;
    freeReplyObject(a);
    freeReplyObject(b);
    return differ;
}

/* One command on both servers, compared per its mode. */
static void step(uint64_t seed, long i, dcmd *d) {
    if (lex_unspecified(d)) {
        skipped++;
        return;
    }
    if (d->mode == M_SPOP && d->argc >= 2) {
        do_spop(seed, i, d);
        return;
    }
    redisReply *v = run(cv, d->argc, d->argv, d->len);
    redisReply *r = run(cr, d->argc, d->argv, d->len);
    if (!strncasecmp(d->argv[0], "SORT", 4) && r->type == REDIS_REPLY_ERROR &&
        v->type != REDIS_REPLY_ERROR && strstr(r->str, "can't be converted into double")) {
        /* Redis 7.0's SORT tests errno after strtod without clearing it:
         * an ERANGE left by an earlier parse (a score of 1e400, 4.9e-324)
         * fails it. A ZADD XX on a missing key parses a score (errno = 0)
         * and does nothing else; then SORT runs again on Redis. */
        freeReplyObject(runv(cr, "ZADD", "coll-diff-errno", "XX", "1", "a"));
        freeReplyObject(r);
        r = run(cr, d->argc, d->argv, d->len);
    }
    char *tv = NULL, *tr = NULL;
    const char *what = "reply";
    int both_ok = v->type != REDIS_REPLY_ERROR && r->type != REDIS_REPLY_ERROR;
    switch (both_ok ? d->mode : M_EXACT) {
    case M_SORT:
        tv = multiset_text(v, 1, 0), tr = multiset_text(r, 1, 0);
        what = "reply (as a multiset)";
        break;
    case M_PAIRS:
        tv = multiset_text(v, 2, 0), tr = multiset_text(r, 2, 0);
        what = "reply (pairs as a multiset)";
        break;
    case M_SCAN:
        /* a cursor other than 0 (a junk argument) means another position
         * in each server: only the kind of reply is compared */
        if (d->argc >= 3 && strcmp(d->argv[2], "0") != 0) {
            tv = strdup(v->type == REDIS_REPLY_ARRAY ? "array" : "other");
            tr = strdup(r->type == REDIS_REPLY_ARRAY ? "array" : "other");
            break;
        }
        tv = scan_all(cv, d, v), tr = scan_all(cr, d, r);
        what = "whole scan (as a set)";
        break;
    case M_RAND: {
        char *ev = rand_check(cv, d, v), *er = rand_check(cr, d, r);
        if (ev || er) {
            tv = ev ? ev : strdup("ok");
            tr = er ? er : strdup("ok");
            what = "random reply's properties (own contents)";
            char *x = reply_text(v), *y = reply_text(r);
            differ(seed, i, "random reply (as received)", x, y);
            free(x);
            free(y);
        }
        if (!ev && !er) tv = strdup(""), tr = strdup("");
        break;
    }
    case M_TTL:
        if (is_int_reply(v) && is_int_reply(r) && v->integer >= 0 && r->integer >= 0) {
            long long tol = toupper((unsigned char)d->argv[0][0]) == 'P' ? 1500 : 1;
            long long dd = v->integer - r->integer;
            if (dd >= -tol && dd <= tol) tv = strdup(""), tr = strdup("");
        }
        break;
    case M_MEMORY:
        if (is_int_reply(v) && is_int_reply(r)) tv = strdup(""), tr = strdup("");
        break;
    case M_NOSORT: {
        redisReply *t = runv(cr, "TYPE", d->argv[1], NULL, NULL, NULL);
        int set = !strcmp(t->str, "set");
        freeReplyObject(t);
        int limit = 0;
        for (int k = 0; k < d->argc; k++) limit |= !strcasecmp(d->argv[k], "LIMIT");
        if (set && limit && v->type == REDIS_REPLY_ARRAY && r->type == REDIS_REPLY_ARRAY) {
            char b1[32], b2[32];
            snprintf(b1, sizeof b1, "%zu elements", v->elements);
            snprintf(b2, sizeof b2, "%zu elements", r->elements);
            tv = strdup(b1), tr = strdup(b2);
            what = "SORT nosort LIMIT of a set (length)";
        } else if (set) {
            tv = multiset_text(v, 1, 0), tr = multiset_text(r, 1, 0);
            what = "SORT nosort of a set (as a multiset)";
        }
        break;
    }
    default:
        break;
    }
    if (!tv || !tr) {
        free(tv);
        free(tr);
        tv = reply_text(v), tr = reply_text(r);
    }
    compare_text(seed, i, what, tv, tr);
    freeReplyObject(v);
    freeReplyObject(r);
}

/* ---- per seed ---- */

static void both(const char *a0, const char *a1, const char *a2, const char *a3) {
    redisReply *x = runv(cv, a0, a1, a2, a3, NULL);
    redisReply *y = runv(cr, a0, a1, a2, a3, NULL);
    ck_assert_msg(x->type != REDIS_REPLY_ERROR, "verso %s %s: %s", a0, a1 ? a1 : "", x->str);
    ck_assert_msg(y->type != REDIS_REPLY_ERROR, "redis %s %s: %s", a0, a1 ? a1 : "", y->str);
    freeReplyObject(x);
    freeReplyObject(y);
}

/* Empty servers, the limits of the seed, the SORT BY/GET keys. */
static void prepare(uint64_t seed) {
    both("FLUSHALL", NULL, NULL, NULL);
    int small = seed % 2;
    both("CONFIG", "SET", "hash-max-listpack-entries", small ? "4" : "128");
    both("CONFIG", "SET", "hash-max-listpack-value", small ? "8" : "64");
    both("CONFIG", "SET", "zset-max-listpack-entries", small ? "4" : "128");
    both("CONFIG", "SET", "zset-max-listpack-value", small ? "8" : "64");
    both("CONFIG", "SET", "set-max-intset-entries", small ? "4" : "512");
    both("CONFIG", "SET", "list-max-listpack-size", "-2");
    static const char *els[] = {"a", "b", "c", "d", "e", "f", "g", "h", "-3", "-1", "0",
                                "1", "2", "3", "4", "5", "7", "10", "12"};
    for (size_t k = 0; k < sizeof els / sizeof els[0]; k++) {
        char key[32], w[32];
        snprintf(key, sizeof key, "w_%s", els[k]);
        snprintf(w, sizeof w, "%d", (int)(dc_rand() % 7) - 2);
        both("SET", key, k == 5 && small ? "notnum" : w, NULL);
        snprintf(key, sizeof key, "wh_%s", els[k]);
        snprintf(w, sizeof w, "%d", (int)(dc_rand() % 9));
        both("HSET", key, "f", w);
    }
    both("SET", "str", "a string", NULL);
}

static void run_seed(uint64_t seed, long ncmds) {
    dc_seed(seed);
    prepare(seed);
    seed_failed = 0;
    hist_n = 0;
    skipped = 0;
    long i;
    for (i = 0; i < ncmds && !seed_failed; i++) {
        dcmd *d = &hist[hist_n % HIST];
        dc_free(d);
        dc_gen(d);
        hist_n++;
        if (dump_at == i && d->argc > 1) { /* COLL_DIFF_DUMP=n: argv[1] before command n */
            char *x = key_state(cv, d->argv[1]), *y = key_state(cr, d->argv[1]);
            printf("before #%ld: verso %s\n              redis %s\n", i, x, y);
            free(x);
            free(y);
        }
        step(seed, i, d);
        if (!seed_failed && (i % check_every == check_every - 1 || i == ncmds - 1))
            compare_all(seed, i);
    }
    for (int k = 0; k < HIST; k++) dc_free(&hist[k]);
    printf("coll_diff: seed %llu: %ld commands (%ld lex ranges over unequal scores not run)%s\n",
           (unsigned long long)seed, i, skipped, seed_failed ? ", DIFFERENCE" : ", same");
    fflush(stdout);
}

START_TEST(differential) {
    srv *sv = h_srv_start("%s", "");
    srv *sr = srv_start_redis(NULL);
    cv = srv_connect(sv);
    cr = srv_connect(sr);
    const char *es = getenv("COLL_DIFF_SEED"), *en = getenv("COLL_DIFF_COMMANDS");
    long ncmds = en && *en ? atol(en) : COMMANDS;
    const char *ec = getenv("COLL_DIFF_CHECK");
    if (ec && atol(ec) > 0) check_every = atol(ec);
    const char *ed = getenv("COLL_DIFF_DUMP");
    if (ed && *ed) dump_at = atol(ed);
    int failed = 0, nseeds = 0;
    report.n = 0;
    sb_str(&report, "");
    for (int s = 0; s < (es && *es ? 1 : SEEDS); s++) {
        uint64_t seed = es && *es ? strtoull(es, NULL, 10) : (uint64_t)s + 1;
        run_seed(seed, ncmds);
        failed += seed_failed;
        nseeds++;
    }
    redisFree(cv);
    redisFree(cr);
    srv_stop(sr);
    ck_assert_msg(failed == 0, "%d of %d seeds differ from redis-server (see stderr)",
                  failed, nseeds);
}
END_TEST

int main(void) {
    Suite *s = suite_create("coll_diff");
    h_add_dropall(s, "differential", differential, 600);
    return h_main(s);
}
