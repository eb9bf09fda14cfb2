/* test_stream_diff: a differential test of the stream commands against
 * redis-server 7.0. The server under test (srv_start: verso, or
 * $VERSO_SERVER) and the reference (srv_start_redis) run side by side;
 * seeded random commands (test_stream_diff_gen.c) go to both and every reply
 * is compared, and every CHECK_EVERY commands (STREAM_DIFF_CHECK=n) and at
 * the end of a segment the whole state: KEYS *, then per key its type and,
 * for a stream, XRANGE - +, XINFO STREAM FULL, XINFO GROUPS and per group
 * XPENDING - + (extended) and XINFO CONSUMERS.
 *
 * The seed comes from rnd_seed_env (printed; STREAM_DIFF_SEED=n repeats a
 * run). A run is SEGMENTS segments (seed, seed + 1, ...) on emptied servers;
 * odd segments set stream-node-max-entries 5 (and one in two of those
 * stream-node-max-bytes 256) on both, so that streams have many nodes and
 * the approximate trims (`~`, which cut at node boundaries) are tested where
 * the layout matters. Length: 4000 commands x VERSO_TEST_SCALE (or
 * STREAM_DIFF_COMMANDS=n), split over the segments; each segment opens with
 * FILL XADDs of new IDs to s1 and s2 (compared too), so that both span
 * several nodes of the default size before the random commands start.
 *
 * Compared exactly, except what depends on wall time:
 * - idle times (XPENDING extended, XINFO CONSUMERS) are compared as
 *   "recent" (< 1 h: delivered during the test), "idled" (< 1e11 ms: an
 *   XCLAIM IDLE of 2 h) or "old" (a fixed TIME such as 1000);
 * - absolute times (XINFO STREAM FULL: the PEL's delivery times, consumers'
 *   seen-time and active-time) as "T" when within 30 days of now, else
 *   exactly (the fixed TIME values the generator gives XCLAIM);
 * - XADD `*` is kept deterministic: the generator's IDs lie in the future,
 *   where both servers give top.ms-(top.seq+1); when the reference's stream
 *   is missing or its last ID is not in the future (a new stream, XSETID
 *   low) the driver puts an explicit new ID in its place.
 * Errors are compared exactly (the text is Redis's). A difference stops that
 * segment after printing the seed, the command number, the last commands
 * and both replies; the test fails at the end if any segment differed. */
#include "harness.h"
#include "sbuf.h"
#include "test_stream_diff.h"
#include "testcmp.h"
#include "testrand.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>

enum { SEGMENTS = 4, COMMANDS = 4000, HIST = 12, FILL = 360 };
static long check_every = 50;

/* The canonical text of a reply: "+s", "-e", ":n", "'b'", "nil", "*n[a,b]". */
static void fmt_reply(sbuf *b, const redisReply *r)
{
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

static char *reply_text(const redisReply *r)
{
    sbuf b = {NULL, 0, 0};
    sb_str(&b, "");
    fmt_reply(&b, r);
    return b.p;
}

/* ---- normalising what depends on the clock ---- */

static long long now_ms(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* An integer reply becomes a status reply holding s. */
static void set_text(redisReply *r, const char *s)
{
    if (r->type != REDIS_REPLY_INTEGER) return;
    r->type = REDIS_REPLY_STATUS;
    r->str = strdup(s);
    ck_assert_ptr_nonnull(r->str);
    r->len = strlen(s);
}

static void norm_idle(redisReply *r)
{
    if (r->type != REDIS_REPLY_INTEGER) return;
    long long v = r->integer;
    set_text(r, v < 3600000LL ? "idle:recent" : v < 100000000000LL ? "idle:idled" : "idle:old");
}

static void norm_time(redisReply *r)
{
    if (r->type != REDIS_REPLY_INTEGER) return;
    long long d = r->integer - now_ms();
    if (d > -30LL * 86400000 && d < 30LL * 86400000) set_text(r, "time:now");
}

/* The value of name in a flat field/value array, NULL if absent. */
static redisReply *map_get(const redisReply *m, const char *name)
{
    if (!m || m->type != REDIS_REPLY_ARRAY) return NULL;
    for (size_t i = 0; i + 1 < m->elements; i += 2) {
        const redisReply *k = m->element[i];
        if ((k->type == REDIS_REPLY_STRING || k->type == REDIS_REPLY_STATUS) &&
            !strcmp(k->str, name))
            return m->element[i + 1];
    }
    return NULL;
}

/* Element at of each array element of a (when it is an array that long). */
static void norm_column(redisReply *a, size_t at, void (*f)(redisReply *))
{
    if (!a || a->type != REDIS_REPLY_ARRAY) return;
    for (size_t i = 0; i < a->elements; i++) {
        redisReply *e = a->element[i];
        if (e->type == REDIS_REPLY_ARRAY && e->elements > at) f(e->element[at]);
    }
}

static void normalise(int norm, redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY) return;
    switch (norm) {
    case SN_PENDING_EXT: /* [id, consumer, idle, deliveries] ... */
        norm_column(r, 2, norm_idle);
        break;
    case SN_CONSUMERS: /* [name, n, pending, n, idle, ms] ... */
        for (size_t i = 0; i < r->elements; i++) {
            redisReply *v = map_get(r->element[i], "idle");
            if (v) norm_idle(v);
            if ((v = map_get(r->element[i], "inactive"))) norm_idle(v);
        }
        break;
    case SN_FULL: {
        redisReply *g = map_get(r, "groups");
        if (!g || g->type != REDIS_REPLY_ARRAY) break;
        for (size_t i = 0; i < g->elements; i++) {
            norm_column(map_get(g->element[i], "pending"), 2, norm_time); /* id consumer time n */
            redisReply *cs = map_get(g->element[i], "consumers");
            if (!cs || cs->type != REDIS_REPLY_ARRAY) continue;
            for (size_t k = 0; k < cs->elements; k++) {
                redisReply *v;
                if ((v = map_get(cs->element[k], "seen-time"))) norm_time(v);
                if ((v = map_get(cs->element[k], "active-time"))) norm_time(v);
                norm_column(map_get(cs->element[k], "pending"), 1, norm_time); /* id time n */
            }
        }
        break;
    }
    default: break;
    }
}

/* ---- running commands on both ---- */

static redisContext *cv, *cr; /* under test, reference */
static sdcmd hist[HIST];
static long hist_n;
static sbuf report;
static int seg_failed, in_multi;

static void cmd_text(sbuf *b, const sdcmd *c)
{
    for (int i = 0; i < c->argc; i++) {
        if (i) sb_str(b, " ");
        sb_str(b, "\"");
        sb_esc(b, c->argv[i], c->len[i]);
        sb_str(b, "\"");
    }
}

static redisReply *run(redisContext *c, int argc, char **argv, const size_t *len)
{
    redisReply *r = redisCommandArgv(c, argc, (const char **)argv, len);
    ck_assert_msg(r != NULL, "I/O error from %s on %s: %s", c == cv ? "server" : "redis",
                  argv[0], c->errstr);
    return r;
}

static redisReply *runv(redisContext *c, const char *a0, const char *a1, const char *a2,
                        const char *a3, const char *a4, const char *a5)
{
    char *argv[6] = {(char *)a0, (char *)a1, (char *)a2, (char *)a3, (char *)a4, (char *)a5};
    size_t len[6];
    int argc = 0;
    while (argc < 6 && argv[argc]) {
        len[argc] = strlen(argv[argc]);
        argc++;
    }
    return run(c, argc, argv, len);
}

static void differ(uint64_t seed, long i, const char *what, const char *v, const char *r)
{
    char t[160];
    size_t mark = report.n;
    snprintf(t, sizeof t, "\n=== seed %" PRIu64 ", command #%ld: %s\n", seed, i, what);
    sb_str(&report, t);
    long first = hist_n > HIST ? hist_n - HIST : 0;
    for (long k = first; k < hist_n; k++) {
        snprintf(t, sizeof t, "  #%ld ", k);
        sb_str(&report, t);
        cmd_text(&report, &hist[k % HIST]);
        sb_str(&report, "\n");
    }
    sb_str(&report, "  server: ");
    sb_str(&report, v);
    sb_str(&report, "\n  redis:  ");
    sb_str(&report, r);
    sb_str(&report, "\n");
    fputs(report.p + mark, stderr);
    seg_failed = 1;
}

static void compare_text(uint64_t seed, long i, const char *what, char *v, char *r)
{
    if (strcmp(v, r) != 0) differ(seed, i, what, v, r);
    free(v);
    free(r);
}

/* Both servers' replies to one state query, normalised, compared. */
static void compare_query(uint64_t seed, long i, const char *what, int norm, const char *a0,
                          const char *a1, const char *a2, const char *a3, const char *a4,
                          const char *a5)
{
    if (seg_failed) return;
    redisReply *v = runv(cv, a0, a1, a2, a3, a4, a5);
    redisReply *r = runv(cr, a0, a1, a2, a3, a4, a5);
    normalise(norm, v);
    normalise(norm, r);
    compare_text(seed, i, what, reply_text(v), reply_text(r));
    freeReplyObject(v);
    freeReplyObject(r);
}

/* ---- whole state ---- */

static char *sorted_keys(redisContext *c, redisReply **keep)
{
    redisReply *k = runv(c, "KEYS", "*", NULL, NULL, NULL, NULL);
    ck_assert_int_eq(k->type, REDIS_REPLY_ARRAY);
    qsort(k->element, k->elements, sizeof *k->element, cmp_reply_str);
    *keep = k;
    return reply_text(k);
}

static void compare_key(uint64_t seed, long i, const char *key)
{
    char what[160];
    snprintf(what, sizeof what, "TYPE %s after this command", key);
    compare_query(seed, i, what, SN_NONE, "TYPE", key, NULL, NULL, NULL, NULL);
    redisReply *t = runv(cr, "TYPE", key, NULL, NULL, NULL, NULL);
    int stream = t->type == REDIS_REPLY_STATUS && !strcmp(t->str, "stream");
    freeReplyObject(t);
    if (!stream) return;
    snprintf(what, sizeof what, "XRANGE %s - + after this command", key);
    compare_query(seed, i, what, SN_NONE, "XRANGE", key, "-", "+", NULL, NULL);
    snprintf(what, sizeof what, "XINFO STREAM %s FULL after this command", key);
    compare_query(seed, i, what, SN_FULL, "XINFO", "STREAM", key, "FULL", "COUNT", "0");
    snprintf(what, sizeof what, "XINFO GROUPS %s after this command", key);
    compare_query(seed, i, what, SN_NONE, "XINFO", "GROUPS", key, NULL, NULL, NULL);
    redisReply *g = runv(cr, "XINFO", "GROUPS", key, NULL, NULL, NULL);
    for (size_t k = 0; g->type == REDIS_REPLY_ARRAY && k < g->elements && !seg_failed; k++) {
        redisReply *name = map_get(g->element[k], "name");
        if (!name || name->type != REDIS_REPLY_STRING) continue;
        snprintf(what, sizeof what, "XPENDING %s %s - + after this command", key, name->str);
        compare_query(seed, i, what, SN_PENDING_EXT, "XPENDING", key, name->str, "-", "+",
                      "1000000");
        snprintf(what, sizeof what, "XINFO CONSUMERS %s %s after this command", key, name->str);
        compare_query(seed, i, what, SN_CONSUMERS, "XINFO", "CONSUMERS", key, name->str, NULL,
                      NULL);
    }
    freeReplyObject(g);
}

static void compare_all(uint64_t seed, long i)
{
    redisReply *kv, *kr;
    char *tv = sorted_keys(cv, &kv), *tr = sorted_keys(cr, &kr);
    int same = strcmp(tv, tr) == 0;
    compare_text(seed, i, "KEYS * after this command", tv, tr);
    for (size_t k = 0; same && k < kr->elements && !seg_failed; k++)
        compare_key(seed, i, kr->element[k]->str);
    freeReplyObject(kv);
    freeReplyObject(kr);
}

/* ---- one command ---- */

/* XADD `*`: deterministic only on an existing stream whose last ID lies in
 * the future (both servers then give top.ms-(top.seq+1)); else an explicit
 * new ID takes its place. */
static void fix_auto_id(sdcmd *d)
{
    if (!d->auto_id) return;
    redisReply *x = runv(cr, "XINFO", "STREAM", d->argv[1], NULL, NULL, NULL);
    redisReply *last = x->type == REDIS_REPLY_ARRAY ? map_get(x, "last-generated-id") : NULL;
    unsigned long long ms = 0;
    int future = last && last->type == REDIS_REPLY_STRING &&
                 sscanf(last->str, "%llu", &ms) == 1 &&
                 (long long)ms > now_ms() + 86400000LL;
    freeReplyObject(x);
    if (!future) {
        char id[64];
        sd_next_id(id, sizeof id);
        sd_set_arg(d, d->auto_id, id);
    }
}

/* Per command name: how many ran and how many the reference refused, so
 * that the printed mix shows what the run exercised. */
enum { NSTATS = 40 };
static struct { char name[24]; long n, err, empty; } stats[NSTATS];

static void count(const char *name, const redisReply *r)
{
    int k;
    for (k = 0; k < NSTATS && stats[k].name[0]; k++)
        if (!strcasecmp(stats[k].name, name)) break;
    if (k == NSTATS) return;
    if (!stats[k].name[0]) snprintf(stats[k].name, sizeof stats[k].name, "%s", name);
    stats[k].n++;
    stats[k].err += r->type == REDIS_REPLY_ERROR;
    stats[k].empty += r->type == REDIS_REPLY_NIL ||
                      (r->type == REDIS_REPLY_ARRAY && r->elements == 0);
}

static void print_stats(void)
{
    printf("stream_diff: commands run (errors, nil/empty replies):");
    for (int k = 0; k < NSTATS && stats[k].name[0]; k++)
        printf("%s %s %ld (%ld, %ld)", k % 6 ? "," : "\n ", stats[k].name, stats[k].n,
               stats[k].err, stats[k].empty);
    printf("\n");
}

static void step(uint64_t seed, long i, sdcmd *d)
{
    if (!in_multi) fix_auto_id(d);
    redisReply *v = run(cv, d->argc, d->argv, d->len);
    redisReply *r = run(cr, d->argc, d->argv, d->len);
    count(d->argc >= 2 && (!strcasecmp(d->argv[0], "XGROUP") || !strcasecmp(d->argv[0], "XINFO"))
              ? d->argv[1] : d->argv[0],
          r);
    if (!strcasecmp(d->argv[0], "XADD") && r->type == REDIS_REPLY_STRING)
        sd_note_id(d->argv[1], r->str);
    if (!strcasecmp(d->argv[0], "MULTI") && r->type == REDIS_REPLY_STATUS) in_multi = 1;
    if (!strcasecmp(d->argv[0], "EXEC") || !strcasecmp(d->argv[0], "DISCARD")) in_multi = 0;
    normalise(d->norm, v);
    normalise(d->norm, r);
    compare_text(seed, i, "reply", reply_text(v), reply_text(r));
    freeReplyObject(v);
    freeReplyObject(r);
}

/* ---- per segment ---- */

static void both(const char *a0, const char *a1, const char *a2, const char *a3)
{
    redisReply *x = runv(cv, a0, a1, a2, a3, NULL, NULL);
    redisReply *y = runv(cr, a0, a1, a2, a3, NULL, NULL);
    ck_assert_msg(x->type != REDIS_REPLY_ERROR, "server %s %s: %s", a0, a1 ? a1 : "", x->str);
    ck_assert_msg(y->type != REDIS_REPLY_ERROR, "redis %s %s: %s", a0, a1 ? a1 : "", y->str);
    freeReplyObject(x);
    freeReplyObject(y);
}

/* After the fill: groups for the consumers to read in. */
static const char *setup[] = {"XGROUP CREATE s1 g1 0", "XGROUP CREATE s1 g2 0 ENTRIESREAD 0",
                              "XGROUP CREATE s2 g1 $", "XGROUP CREATE s3 g3 $ MKSTREAM"};
#define NSETUP (sizeof setup / sizeof setup[0])

static void run_segment(uint64_t seed, int small_nodes, int small_bytes, long ncmds)
{
    sd_seed(seed);
    both("FLUSHALL", NULL, NULL, NULL);
    both("CONFIG", "SET", "stream-node-max-entries", small_nodes ? "5" : "100");
    both("CONFIG", "SET", "stream-node-max-bytes", small_bytes ? "256" : "4096");
    both("SET", "str", "a string", NULL);
    seg_failed = 0;
    in_multi = 0;
    hist_n = 0;
    long i;
    for (i = 0; i < ncmds && !seg_failed; i++) {
        sdcmd *d = &hist[hist_n % HIST];
        if (i < FILL) /* s1 and s2 start with several nodes */
            sd_gen_fill(d, i < FILL * 3 / 4 ? "s1" : "s2");
        else if (i < FILL + (long)NSETUP)
            sd_gen_line(d, setup[i - FILL]);
        else
            sd_gen(d);
        hist_n++;
        step(seed, i, d);
        if (!seg_failed && !in_multi && (i % check_every == check_every - 1 || i == ncmds - 1))
            compare_all(seed, i);
    }
    if (in_multi) {
        freeReplyObject(runv(cv, "DISCARD", NULL, NULL, NULL, NULL, NULL));
        freeReplyObject(runv(cr, "DISCARD", NULL, NULL, NULL, NULL, NULL));
        in_multi = 0;
        if (!seg_failed) compare_all(seed, i);
    }
    for (int k = 0; k < HIST; k++) sd_free(&hist[k]);
    char sizes[256] = "";
    for (int k = 1; k <= 3; k++) {
        char key[8], t[64];
        snprintf(key, sizeof key, "s%d", k);
        redisReply *x = runv(cr, "XLEN", key, NULL, NULL, NULL, NULL);
        redisReply *n = runv(cr, "XINFO", "STREAM", key, NULL, NULL, NULL);
        redisReply *nodes = map_get(n, "radix-tree-keys"), *g = map_get(n, "groups");
        snprintf(t, sizeof t, " %s %lld entries/%lld nodes/%lld groups", key,
                 x->type == REDIS_REPLY_INTEGER ? x->integer : -1,
                 nodes && nodes->type == REDIS_REPLY_INTEGER ? nodes->integer : -1,
                 g && g->type == REDIS_REPLY_INTEGER ? g->integer : -1);
        strncat(sizes, t, sizeof sizes - strlen(sizes) - 1);
        freeReplyObject(x);
        freeReplyObject(n);
    }
    printf("stream_diff: seed %" PRIu64 " (stream-node-max-entries %d, -bytes %d): %ld "
           "commands%s; at the end%s\n",
           seed, small_nodes ? 5 : 100, small_bytes ? 256 : 4096, i,
           seg_failed ? ", DIFFERENCE" : ", same", sizes);
    fflush(stdout);
}

START_TEST(differential)
{
    srv *sv = h_srv_start("%s", "");
    srv *sr = srv_start_redis(NULL);
    cv = srv_connect(sv);
    cr = srv_connect(sr);
    uint64_t seed = rnd_seed_env("stream_diff", "STREAM_DIFF_SEED");
    const char *es = getenv("VERSO_TEST_SCALE"), *en = getenv("STREAM_DIFF_COMMANDS");
    long scale = es && atol(es) > 0 ? atol(es) : 1;
    long total = en && atol(en) > 0 ? atol(en) : COMMANDS * scale;
    const char *ec = getenv("STREAM_DIFF_CHECK");
    if (ec && atol(ec) > 0) check_every = atol(ec);
    report.n = 0;
    sb_str(&report, "");
    int failed = 0;
    for (int s = 0; s < SEGMENTS; s++) {
        run_segment(seed + (uint64_t)s, s % 2, s % 4 == 3, total / SEGMENTS);
        failed += seg_failed;
    }
    print_stats();
    redisFree(cv);
    redisFree(cr);
    srv_stop(sr);
    ck_assert_msg(failed == 0,
                  "%d of %d segments differ from redis-server (see stderr; "
                  "STREAM_DIFF_SEED=%" PRIu64 " repeats the run)",
                  failed, SEGMENTS, seed);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stream_diff");
    h_add_dropall(s, "differential", differential, 600);
    return h_main(s);
}
