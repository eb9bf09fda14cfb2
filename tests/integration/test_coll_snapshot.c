/* test_coll_snapshot: the point-in-time model for hashes, lists, sets,
 * sorted sets and streams. A server holding big collections of every type
 * (and small ones, and string keys; big streams with consumer groups,
 * pending entries and consumers) starts a BGSAVE made long with rdb-key-save-delay
 * (Redis's testing knob: microseconds slept after each key written), and
 * while it runs a client writes hard: fields and members added, changed and
 * removed, pushes and pops at both ends, LSET/LTRIM/LINSERT, big keys
 * deleted and re-created (also as another type), big keys RENAMEd over
 * each other and to new names; streams appended to (with and without
 * trims), XDEL, XTRIM, XREADGROUP, XACK, XCLAIM, groups created and
 * destroyed, deleted and re-created. The state read just before BGSAVE is
 * the model (streams as XINFO STREAM FULL, every field): the dump must
 * hold exactly it, element by element, as verso
 * loads it back after a restart, and as redis-server 7.0 loads it too
 * (redis-check-rdb accepts it first). Forkless, then fork. Runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server: it has no
 * bgsave-method, so both tests check its fork).
 *
 * Sizes scale with $VERSO_TEST_SCALE. Every server a test starts is killed
 * by the fixture teardown, also when the test fails. Under TSan this is the
 * race check of the serializer walking trees the main thread path-copies
 * (tests/tsan-tests). */
#include "harness.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "stream_text.h"
#include "vbuf.h"
#include "testcmp.h"
#include "testrand.h"

#define NBIG 5
#define NSTREAM 3

static double test_scale(void) {
    const char *s = getenv("VERSO_TEST_SCALE");
    double v = s && *s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

static int scaled(int n) {
    int v = (int)(n * test_scale());
    return v < 1 ? 1 : v;
}

/* ---- replies ---- */

static redisReply *get_reply(redisContext *c) {
    void *r = NULL;
    ck_assert_msg(redisGetReply(c, &r) == REDIS_OK && r, "connection error: %s", c->errstr);
    return r;
}

static redisReply *cmdf(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r && r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r ? r->str : c->errstr);
    return r;
}


/* ---- the dataset ---- */

static int g_big_n;   /* elements per big collection */

/* Pipelined: n commands already appended; their replies must be no errors. */
static void drain_ok(redisContext *c, int n) {
    for (int i = 0; i < n; i++) {
        redisReply *r = get_reply(c);
        ck_assert_msg(r->type != REDIS_REPLY_ERROR, "fill: %s", r->str);
        freeReplyObject(r);
    }
}

static void fill(redisContext *c) {
    int pending = 0;
    for (int k = 0; k < NBIG; k++) {
        for (int i = 0; i < g_big_n; i += 100) {
            /* 100 elements per command */
            char cmd[64];
            const char *argv[204];
            size_t lens[204];
            char bufs[200][48];
            for (int t = 0; t < 4; t++) {
                int argc = 0;
                static const char *const verbs[] = { "HSET", "RPUSH", "SADD", "ZADD" };
                static const char *const pfx[] = { "h", "l", "s", "z" };
                snprintf(cmd, sizeof cmd, "%s:%d", pfx[t], k);
                argv[argc++] = verbs[t];
                argv[argc++] = cmd;
                for (int j = 0; j < 100; j++) {
                    int e = i + j;
                    char *a = bufs[2 * j], *b = bufs[2 * j + 1];
                    if (t == 0) {
                        snprintf(a, 48, "field:%d", e);
                        snprintf(b, 48, e % 3 ? "value-%d-%d" : "%d%d", e * 7, k);
                        argv[argc++] = a;
                        argv[argc++] = b;
                    } else if (t == 1) {
                        snprintf(a, 48, e % 4 ? "elem-%d" : "%d", e - 1000);
                        argv[argc++] = a;
                    } else if (t == 2) {
                        snprintf(a, 48, e % 2 ? "member-%d" : "%d", e);
                        argv[argc++] = a;
                    } else {
                        snprintf(a, 48, "%d.%d", e % 501 - 250, e % 10);
                        snprintf(b, 48, "zm-%d", e);
                        argv[argc++] = a;
                        argv[argc++] = b;
                    }
                }
                for (int x = 0; x < argc; x++) lens[x] = strlen(argv[x]);
                redisAppendCommandArgv(c, argc, argv, lens);
                pending++;
            }
        }
        redisAppendCommand(c, "EXPIRE h:%d %d", k, 1000000 + k);
        pending++;
        drain_ok(c, pending);
        pending = 0;
    }
    for (int k = 0; k < NSTREAM; k++) {   /* big streams, ids 1-<i>, with groups */
        for (int i = 0; i < g_big_n; i++) {
            if (i % 6 == 0) redisAppendCommand(c, "XADD x:%d 1-%d kind other n %d", k, i, i);
            else redisAppendCommand(c, "XADD x:%d 1-%d f %d g value-%d", k, i, i, i * 3);
            if (++pending == 500) drain_ok(c, pending), pending = 0;
        }
        redisAppendCommand(c, "XGROUP CREATE x:%d g1 0", k);
        redisAppendCommand(c, "XGROUP CREATE x:%d g2 $", k);
        redisAppendCommand(c, "XGROUP CREATECONSUMER x:%d g2 idle", k);
        redisAppendCommand(c, "XREADGROUP GROUP g1 c1 COUNT %d STREAMS x:%d >", g_big_n / 4, k);
        redisAppendCommand(c, "XREADGROUP GROUP g1 c2 COUNT %d STREAMS x:%d >", g_big_n / 5, k);
        pending += 5;
        drain_ok(c, pending);
        pending = 0;
    }
    for (int k = 0; k < 40; k++) {   /* small collections */
        redisAppendCommand(c, "HSET hs:%d a %d b x%d", k, k, k);
        redisAppendCommand(c, "RPUSH ls:%d a %d b", k, k);
        redisAppendCommand(c, "SADD ss:%d 1 2 %d", k, k + 3);
        redisAppendCommand(c, "ZADD zs:%d 1 a 2 b %d c", k, k);
        pending += 4;
    }
    for (int k = 0; k < scaled(1500); k++) {   /* strings: they stretch the save */
        redisAppendCommand(c, "SET str:%d v%d", k, k);
        pending++;
    }
    drain_ok(c, pending);
}

/* ---- the state, as text (hashes and sets sorted; zset scores %.17g) ---- */

typedef struct lines { char **v; size_t n, cap; } lines;

static void l_add(lines *l, const char *a, size_t al, const char *b, size_t bl) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    char *x = malloc(al + bl + 3);
    memcpy(x, a, al);
    x[al] = '=';
    if (b) memcpy(x + al + 1, b, bl);
    x[al + 1 + (b ? bl : 0)] = '\n';
    x[al + 2 + (b ? bl : 0)] = 0;
    l->v[l->n++] = x;
}

static void l_join(lines *l, int sort, vbuf *out) {
    if (sort) qsort(l->v, l->n, sizeof *l->v, cmp_str);
    for (size_t i = 0; i < l->n; i++) {
        vbuf_append_str(out, l->v[i]);
        free(l->v[i]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static void render_key(redisContext *c, const char *key, vbuf *out) {
    redisReply *t = cmdf(c, "TYPE %s", key);
    redisReply *ttl = cmdf(c, "PTTL %s", key);
    vbuf_appendf(out, "### %s %s ttl:%d\n", key, t->str, ttl->integer > 0);
    freeReplyObject(ttl);
    lines l = {0};
    redisReply *r;
    int sort = 0;
    if (!strcmp(t->str, "stream")) {
        char *st = stream_text(c, key, STREAM_TEXT_ALL);
        vbuf_append_str(out, st);
        vbuf_append_str(out, "\n");
        free(st);
        freeReplyObject(t);
        return;
    }
    if (!strcmp(t->str, "hash")) {
        r = cmdf(c, "HGETALL %s", key);
        for (size_t i = 0; i + 1 < r->elements; i += 2)
            l_add(&l, r->element[i]->str, r->element[i]->len, r->element[i + 1]->str,
                  r->element[i + 1]->len);
        sort = 1;
    } else if (!strcmp(t->str, "list")) {
        r = cmdf(c, "LRANGE %s 0 -1", key);
        for (size_t i = 0; i < r->elements; i++)
            l_add(&l, r->element[i]->str, r->element[i]->len, NULL, 0);
    } else if (!strcmp(t->str, "set")) {
        r = cmdf(c, "SMEMBERS %s", key);
        for (size_t i = 0; i < r->elements; i++)
            l_add(&l, r->element[i]->str, r->element[i]->len, NULL, 0);
        sort = 1;
    } else if (!strcmp(t->str, "zset")) {
        r = cmdf(c, "ZRANGE %s 0 -1 WITHSCORES", key);
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", strtod(r->element[i + 1]->str, NULL));
            l_add(&l, r->element[i]->str, r->element[i]->len, buf, (size_t)n);
        }
    } else {
        r = cmdf(c, "GET %s", key);
        l_add(&l, r->str, r->len, NULL, 0);
    }
    freeReplyObject(r);
    freeReplyObject(t);
    l_join(&l, sort, out);
}

static char *render_all(redisContext *c) {
    vbuf out;
    vbuf_init(&out);
    redisReply *k = cmdf(c, "KEYS *");
    char **names = malloc((k->elements + 1) * sizeof *names);
    for (size_t i = 0; i < k->elements; i++) names[i] = k->element[i]->str;
    qsort(names, k->elements, sizeof *names, cmp_str);
    for (size_t i = 0; i < k->elements; i++) render_key(c, names[i], &out);
    free(names);
    freeReplyObject(k);
    vbuf_append(&out, "", 1);
    return out.data;
}

static void same_state(const char *want, const char *got, const char *what) {
    if (strcmp(want, got) == 0) return;
    size_t i = 0;
    while (want[i] && want[i] == got[i]) i++;
    size_t from = i > 300 ? i - 300 : 0;
    ck_abort_msg("%s: differs from the state at BGSAVE at byte %zu:\n--- want: %.600s\n"
                 "--- got: %.600s", what, i, want + from, got + from);
}

/* ---- the writes during the save ---- */

static const char *const g_pfx[] = { "h", "l", "s", "z" };

/* One random write; renames and re-creations keep to the same key names so
 * that later writes keep finding big keys. */
/* One write to a big stream x:<k> (ids 1-<e> from the fill). */
static void write_stream(redisContext *h, long long *seq, long long n) {
    int k = rnd_int(NSTREAM), e = rnd_int(g_big_n), op = rnd_int(40);
    if (op < 8) redisAppendCommand(h, "XADD x:%d * w %lld", k, n);
    else if (op < 11) redisAppendCommand(h, "XADD x:%d MAXLEN ~ %d * w %lld", k, g_big_n - 100, n);
    else if (op < 12) redisAppendCommand(h, "XADD x:%d MAXLEN = %d * w %lld", k, g_big_n - 200, n);
    else if (op < 17) redisAppendCommand(h, "XDEL x:%d 1-%d 1-%d", k, e, e + 1);
    else if (op < 18) redisAppendCommand(h, "XTRIM x:%d MINID 1-%d", k, e / 10);
    else if (op < 19) redisAppendCommand(h, "XTRIM x:%d MAXLEN ~ %d", k, g_big_n - 300);
    else if (op < 24) redisAppendCommand(h, "XREADGROUP GROUP g1 c%d COUNT 5 STREAMS x:%d >", rnd_int(4), k);
    else if (op < 28) redisAppendCommand(h, "XACK x:%d g1 1-%d 1-%d", k, e, e + 2);
    else if (op < 32) redisAppendCommand(h, "XCLAIM x:%d g1 c3 0 1-%d 1-%d", k, e, e + 3);
    else if (op < 34) redisAppendCommand(h, "XGROUP CREATE x:%d tmp%d $", k, rnd_int(3));
    else if (op < 36) redisAppendCommand(h, "XGROUP DESTROY x:%d tmp%d", k, rnd_int(3));
    else if (op < 37) redisAppendCommand(h, "XGROUP DELCONSUMER x:%d g1 c%d", k, rnd_int(4));
    else if (op < 39) redisAppendCommand(h, "XREADGROUP GROUP g2 c9 COUNT 3 STREAMS x:%d >", k);
    else redisAppendCommand(h, "DEL x:%d", k);
    if (op == 39) {   /* ... and made again */
        redisAppendCommand(h, "XADD x:%d 1-5 again %lld", k, n);
        redisAppendCommand(h, "XGROUP CREATE x:%d g1 0", k);
        *seq += 2;
    }
}

/* Commands write_one appends for its op (their replies are drained). */
static void write_one(redisContext *h, long long *seq) {
    int k = rnd_int(NBIG), e = rnd_int(g_big_n + 50), op = rnd_int(130);
    long long n = (*seq)++;
    if (op >= 100) {
        write_stream(h, seq, n);
        return;
    }
    if (op < 12) redisAppendCommand(h, "HSET h:%d field:%d new-%lld", k, e, n);
    else if (op < 18) redisAppendCommand(h, "HDEL h:%d field:%d", k, e);
    else if (op < 21) redisAppendCommand(h, "HINCRBY h:%d cnt 1", k);
    else if (op < 27) redisAppendCommand(h, "%s l:%d p%lld q%lld", rnd_int(2) ? "RPUSH" : "LPUSH", k, n, n);
    else if (op < 31) redisAppendCommand(h, "%s l:%d %d", rnd_int(2) ? "LPOP" : "RPOP", k, 1 + rnd_int(3));
    else if (op < 35) redisAppendCommand(h, "LSET l:%d %d set-%lld", k, rnd_int(500) - 250, n);
    else if (op < 37) redisAppendCommand(h, "LINSERT l:%d BEFORE elem-%d ins-%lld", k, e - 1000, n);
    else if (op < 38) redisAppendCommand(h, "LTRIM l:%d 1 -2", k);
    else if (op < 45) redisAppendCommand(h, "SADD s:%d new-%lld %d", k, n, e);
    else if (op < 50) redisAppendCommand(h, "SREM s:%d member-%d %d", k, e, e);
    else if (op < 52) redisAppendCommand(h, "SPOP s:%d", k);
    else if (op < 60) redisAppendCommand(h, "ZADD z:%d %d zm-%d", k, rnd_int(1000) - 500, e);
    else if (op < 64) redisAppendCommand(h, "ZREM z:%d zm-%d", k, e);
    else if (op < 67) redisAppendCommand(h, "ZINCRBY z:%d 0.5 zm-%d", k, e);
    else if (op < 70) {   /* small collections */
        int s = rnd_int(40);
        redisAppendCommand(h, "HSET hs:%d c %lld", s, n);
    } else if (op < 72) {
        int s = rnd_int(40);
        redisAppendCommand(h, "SADD ss:%d %lld", s, n);   /* an intset grows */
    } else if (op < 74) {
        redisAppendCommand(h, "SET str:%d w%lld", rnd_int(scaled(1500)), n);
    } else if (op < 76) {
        redisAppendCommand(h, "DEL str:%d", rnd_int(scaled(1500)));
    } else if (op < 80) {   /* a big key deleted and made again, maybe of another type */
        const char *p = g_pfx[rnd_int(4)];
        redisAppendCommand(h, "DEL %s:%d", p, k);
        (*seq)++;
        if (rnd_int(2)) redisAppendCommand(h, "RPUSH %s:%d again-%lld", p, k, n);
        else redisAppendCommand(h, "SET %s:%d str-%lld", p, k, n);
    } else if (op < 86) {   /* a big key RENAMEd over another one of its type */
        const char *p = g_pfx[rnd_int(4)];
        redisAppendCommand(h, "RENAME %s:%d %s:%d", p, k, p, (k + 1 + rnd_int(NBIG - 1)) % NBIG);
    } else if (op < 90) {   /* ... to a new name, then a new big-ish key in its place */
        const char *p = g_pfx[rnd_int(4)];
        redisAppendCommand(h, "RENAME %s:%d moved:%lld", p, k, n);
        (*seq)++;
        redisAppendCommand(h, "SADD %s:%d-x 1", p, k);
    } else if (op < 95) {
        redisAppendCommand(h, "EXPIRE %s:%d %d", g_pfx[rnd_int(4)], k, 500000 + e);
    } else {
        redisAppendCommand(h, "PERSIST %s:%d", g_pfx[rnd_int(4)], k);
    }
}

/* Rounds of pipelined writes until the save ends; returns the writes sent
 * while it was still running (seen by INFO after them). */
static long long hammer(redisContext *h, int *rounds) {
    long long seq = 0, overlap = 0;
    long long deadline = h_now_ms() + h_scaled_ms(120000);
    for (;;) {
        long long before = seq;
        for (int i = 0; i < 200; i++) write_one(h, &seq);
        redisAppendCommand(h, "INFO persistence");
        for (long long i = before; i < seq; i++) freeReplyObject(get_reply(h));   /* WRONGTYPE, no such key... are fine */
        redisReply *r = get_reply(h);
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        char v[32];
        ck_assert(h_info_field(r->str, "rdb_bgsave_in_progress", v, sizeof v));
        freeReplyObject(r);
        (*rounds)++;
        if (atoi(v) == 0) break;
        overlap = seq;
        ck_assert_msg(h_now_ms() < deadline, "the save did not end");
    }
    return overlap;
}

/* ---- the test ---- */

static void point_in_time(const char *method) {
    rnd_seed(UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)method[1]);
    g_big_n = scaled(6000);
    /* redis-server has no bgsave-method: it forks for both */
    srv *s = srv_is_reference() ? h_srv_start("--rdb-key-save-delay 1000")
                                : h_srv_start("--bgsave-method %s --rdb-key-save-delay 1000", method);
    redisContext *c = srv_connect(s);
    struct timeval tv = { 120, 0 };
    redisSetTimeout(c, tv);
    fill(c);
    char *want = render_all(c);
    long long t0 = h_now_ms();
    expect_status(c, "Background saving started", "BGSAVE");
    redisContext *h = srv_connect(s);
    redisSetTimeout(h, tv);
    int rounds = 0;
    long long overlap = hammer(h, &rounds);
    long long t_save = h_now_ms() - t0;
    ck_assert_msg(overlap >= 400, "only %lld writes overlapped the save (%d rounds)", overlap,
                  rounds);
    char st[64] = "";
    char *info = h_info(c, "persistence");
    ck_assert(h_info_field(info, "rdb_last_bgsave_status", st, sizeof st));
    ck_assert_str_eq(st, "ok");
    free(info);
    printf("coll point-in-time %s: %lld writes overlapped the save (%d rounds), save %lld ms\n",
           method, overlap, rounds, t_save);
    redisFree(h);
    redisReply *r = redisCommand(c, "SHUTDOWN NOSAVE");
    if (r) freeReplyObject(r);
    redisFree(c);
    ck_assert(srv_wait_exit(s, h_scaled_ms(20000)));

    /* verso loads the dump: the state at BGSAVE, element by element */
    srv *s2 = h_srv_start("--dir '%s' --dbfilename dump.rdb", s->dir);
    redisContext *c2 = srv_connect(s2);
    redisSetTimeout(c2, tv);
    h_wait_loaded(c2, 60000);
    char *got = render_all(c2);
    same_state(want, got, "verso on the dump");
    free(got);
    redisFree(c2);

    /* redis-check-rdb accepts it and redis-server 7.0 loads the same */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/dump.rdb", s->dir);
    const char *argv[] = { "redis-check-rdb", path, NULL };
    char *out = NULL;
    int rc = h_run(NULL, &out, 120000, argv);
    ck_assert_msg(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && strstr(out, "RDB looks OK"),
                  "redis-check-rdb: %.3000s", out);
    free(out);
    srv *r3 = srv_start_redis("--dir '%s' --dbfilename dump.rdb --appendonly no", s->dir);
    redisContext *c3 = srv_connect(r3);
    redisSetTimeout(c3, tv);
    h_wait_loaded(c3, 60000);
    got = render_all(c3);
    same_state(want, got, "redis-server on the dump");
    free(got);
    redisFree(c3);
    srv_kill9(r3);
    srv_stop(r3);
    free(want);
}

START_TEST(point_in_time_forkless) { point_in_time("forkless"); }
END_TEST

START_TEST(point_in_time_fork) { point_in_time("fork"); }
END_TEST

int main(void) {
    Suite *s = suite_create("coll_snapshot");
    h_add_dropall(s, "point_in_time_forkless", point_in_time_forkless, 600);
    h_add_dropall(s, "point_in_time_fork", point_in_time_fork, 600);
    return h_main(s);
}
