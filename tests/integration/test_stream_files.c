/* test_stream_files: streams in verso's files against Redis 7.0 itself.
 *
 * dump_restore: every stream shape stream_populate makes on redis-server
 *   (groups, PELs, consumers, trims, deletions, an empty stream) DUMPed
 *   there and RESTOREd on verso: verso's DUMP of it is Redis's payload byte
 *   for byte (both with rdbcompression no), and Redis RESTOREs verso's
 *   payload to the same XINFO STREAM FULL, times included;
 * redis_dump_loaded: verso starts on a dump.rdb redis-server SAVEd and
 *   holds the same streams (its DUMPs are Redis's); DEBUG RELOAD keeps them;
 *   INFO keyspace counts them;
 * verso_dump_loaded: verso's BGSAVE (forkless, then fork) passes
 *   redis-check-rdb and redis-server loads it with the same XINFO STREAM
 *   FULL as the server the streams came from;
 * verso_streams_to_redis: streams verso's own commands made, DUMPed and
 *   RESTOREd on redis-server: the same XINFO STREAM FULL there; the same
 *   commands with explicit ids on both servers give the same DUMP bytes;
 * aof_rewrite: verso's rewritten AOF (aof-use-rdb-preamble no: commands,
 *   as rewriteStreamObject) loads back to the same streams on verso and on
 *   redis-server (but the consumers' seen-times, which the replayed
 *   commands set, and a pending entry whose message was deleted: Redis
 *   7.0's XCLAIM drops it, on both); with the RDB preamble, exactly.
 * Needs redis-server and redis-check-rdb on PATH. Runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server: it has no
 * bgsave-method, so both verso_dump_loaded tests check its fork). */
#include "harness.h"
#include "stream_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define NKEYS 5

static redisReply *must(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r && r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r ? r->str : c->errstr);
    return r;
}

/* A command that must not fail (any reply but an error). */
#define expect_status_fmt_ok(c, ...) freeReplyObject(must(c, __VA_ARGS__))

static char *key_name(int i) {
    static char buf[32];
    snprintf(buf, sizeof buf, "r:st:%d", i);
    return buf;
}

static redisContext *redis_with_streams(srv **out, const char *extra) {
    *out = h_srv_start_redis("--rdbcompression no --appendonly no %s", extra);
    redisContext *r = srv_connect(*out);
    ck_assert_int_eq(stream_populate(r, "r", 2000), NKEYS);
    return r;
}

/* Each stream of src DUMPed and RESTOREd on dst (as the same key). */
static void copy_streams(redisContext *src, redisContext *dst) {
    for (int i = 0; i < NKEYS; i++) {
        redisReply *d = must(src, "DUMP %s", key_name(i));
        ck_assert_int_eq(d->type, REDIS_REPLY_STRING);
        expect_status(dst, "OK", "RESTORE %s 0 %b", key_name(i), d->str, d->len);
        freeReplyObject(d);
    }
}

/* The keys' DUMPs on a and b are the same bytes. */
static void same_dumps(redisContext *a, redisContext *b, const char *what) {
    for (int i = 0; i < NKEYS; i++) {
        redisReply *x = must(a, "DUMP %s", key_name(i)), *y = must(b, "DUMP %s", key_name(i));
        ck_assert_msg(x->type == REDIS_REPLY_STRING && y->type == REDIS_REPLY_STRING,
                      "%s: %s missing", what, key_name(i));
        size_t d = 0;
        while (d < x->len && d < y->len && x->str[d] == y->str[d]) d++;
        ck_assert_msg(x->len == y->len && d == x->len, "%s: %s: %zu and %zu bytes, first "
                      "difference at %zu", what, key_name(i), x->len, y->len, d);
        freeReplyObject(x);
        freeReplyObject(y);
    }
}

/* XINFO STREAM FULL of key on a and of bkey on b are the same. */
static void same_stream(redisContext *a, const char *key, redisContext *b, const char *bkey,
                        int mode, const char *what) {
    char *x = stream_text(a, key, mode), *y = stream_text(b, bkey, mode);
    if (strcmp(x, y) != 0) {
        size_t d = 0;
        while (x[d] && x[d] == y[d]) d++;
        ck_abort_msg("%s: %s differs at %zu:\n--- %.300s\n--- %.300s", what, key, d,
                     x + (d > 100 ? d - 100 : 0), y + (d > 100 ? d - 100 : 0));
    }
    free(x);
    free(y);
}

START_TEST(dump_restore) {
    srv *rs;
    redisContext *r = redis_with_streams(&rs, "");
    srv *vs = h_srv_start("--rdbcompression no");
    redisContext *v = srv_connect(vs);
    copy_streams(r, v);
    for (int i = 0; i < NKEYS; i++) {
        expect_status(v, "stream", "TYPE %s", key_name(i));
        redisReply *e = must(v, "OBJECT ENCODING %s", key_name(i));
        ck_assert_str_eq(e->str, "stream");
        freeReplyObject(e);
    }
    same_dumps(r, v, "verso's DUMP of Redis's payload");
    /* Redis takes verso's payloads back */
    for (int i = 0; i < NKEYS; i++) {
        redisReply *d = must(v, "DUMP %s", key_name(i));
        char copy[40];
        snprintf(copy, sizeof copy, "copy:%d", i);
        expect_status(r, "OK", "RESTORE %s 0 %b", copy, d->str, d->len);
        freeReplyObject(d);
        same_stream(r, key_name(i), r, copy, STREAM_TEXT_ALL, "Redis on verso's payload");
    }
    /* RESTORE's errors: a damaged stream payload, and an existing key */
    redisReply *d = must(r, "DUMP %s", key_name(0));
    d->str[20] = (char)(d->str[20] ^ 0x5a);
    redisReply *bad = cmd(v, "RESTORE damaged 0 %b", d->str, d->len);
    ck_assert_int_eq(bad->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(bad->str, "ERR DUMP payload version or checksum are wrong");
    freeReplyObject(bad);
    freeReplyObject(d);
    d = must(r, "DUMP %s", key_name(0));
    bad = cmd(v, "RESTORE %s 0 %b", key_name(1), d->str, d->len);
    ck_assert_str_eq(bad->str, "BUSYKEY Target key name already exists.");
    freeReplyObject(bad);
    freeReplyObject(d);
    redisFree(v);
    redisFree(r);
}
END_TEST

static void wait_bgsave(redisContext *c) {
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 60000);
    char *info = h_info(c, "persistence");
    char st[32];
    ck_assert(h_info_field(info, "rdb_last_bgsave_status", st, sizeof st));
    ck_assert_str_eq(st, "ok");
    free(info);
}

START_TEST(redis_dump_loaded) {
    srv *rs;
    redisContext *r = redis_with_streams(&rs, "");
    expect_status(r, "OK", "SAVE");
    /* verso on Redis's dump.rdb */
    srv *vs = h_srv_start("--rdbcompression no --dir '%s' --dbfilename dump.rdb", rs->dir);
    redisContext *v = srv_connect(vs);
    h_wait_loaded(v, 30000);
    char *ks = h_info(v, "keyspace");
    ck_assert_msg(strstr(ks, "db0:keys=5,"), "%s", ks);
    free(ks);
    same_dumps(r, v, "verso on Redis's dump.rdb");
    /* DEBUG RELOAD: saved and loaded again, the same streams */
    expect_status(v, "OK", "DEBUG RELOAD");
    same_dumps(r, v, "after DEBUG RELOAD");
    redisFree(v);
    redisFree(r);
}
END_TEST

/* verso BGSAVEs with method; redis-check-rdb accepts the file and
 * redis-server loads the same streams as the origin r has. */
static void verso_dump_loaded(const char *method) {
    srv *rs;
    redisContext *r = redis_with_streams(&rs, "");
    /* redis-server has no bgsave-method: it forks for both */
    srv *vs = srv_is_reference() ? h_srv_start(NULL) : h_srv_start("--bgsave-method %s", method);
    redisContext *v = srv_connect(vs);
    copy_streams(r, v);
    expect_status(v, "Background saving started", "BGSAVE");
    wait_bgsave(v);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/dump.rdb", vs->dir);
    const char *argv[] = { "redis-check-rdb", path, NULL };
    char *out = NULL;
    int rc = h_run(NULL, &out, 120000, argv);
    ck_assert_msg(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0 && strstr(out, "RDB looks OK"),
                  "redis-check-rdb: %.3000s", out);
    free(out);
    srv *r2s = h_srv_start_redis("--dir '%s' --dbfilename dump.rdb --appendonly no", vs->dir);
    redisContext *r2 = srv_connect(r2s);
    h_wait_loaded(r2, 30000);
    for (int i = 0; i < NKEYS; i++)
        same_stream(r, key_name(i), r2, key_name(i), STREAM_TEXT_ALL, "redis-server on verso's dump");
    redisFree(r2);
    redisFree(v);
    redisFree(r);
}

START_TEST(verso_dump_loaded_forkless) { verso_dump_loaded("forkless"); }
END_TEST

START_TEST(verso_dump_loaded_fork) { verso_dump_loaded("fork"); }
END_TEST

/* Deterministic commands (explicit ids, no reads: no times) run on both. */
static void same_script(redisContext *c) {
    for (int i = 1; i <= 600; i++) {
        if (i % 9 == 0) expect_status_fmt_ok(c, "XADD sc %d-%d other %d", 1000 + i / 3, i % 3, i);
        else expect_status_fmt_ok(c, "XADD sc %d-%d f %d g v%d", 1000 + i / 3, i % 3, i, i * 3);
    }
    for (int i = 20; i < 200; i += 11) expect_status_fmt_ok(c, "XDEL sc %d-%d", 1000 + i / 3, i % 3);
    expect_status_fmt_ok(c, "XTRIM sc MAXLEN ~ 500");
    expect_status_fmt_ok(c, "XTRIM sc MAXLEN 480");
    expect_status_fmt_ok(c, "XADD sc MAXLEN 470 5000-1 last one");
    expect_status_fmt_ok(c, "XGROUP CREATE sc g1 1100-0 ENTRIESREAD 100");
    expect_status_fmt_ok(c, "XGROUP CREATE sc g0 $");
    expect_status_fmt_ok(c, "XSETID sc 6000-0 ENTRIESADDED 700 MAXDELETEDID 4000-0");
}

START_TEST(verso_streams_to_redis) {
    srv *rs = h_srv_start_redis("--rdbcompression no --appendonly no");
    redisContext *r = srv_connect(rs);
    srv *vs = h_srv_start("--rdbcompression no");
    redisContext *v = srv_connect(vs);
    ck_assert_int_eq(stream_populate(v, "r", 2000), NKEYS);
    copy_streams(v, r);
    for (int i = 0; i < NKEYS; i++)
        same_stream(v, key_name(i), r, key_name(i), STREAM_TEXT_ALL, "Redis on verso's payload");
    same_script(r);
    same_script(v);
    redisReply *x = must(r, "DUMP sc"), *y = must(v, "DUMP sc");
    size_t d = 0;
    while (d < x->len && d < y->len && x->str[d] == y->str[d]) d++;
    ck_assert_msg(x->len == y->len && d == x->len, "sc: Redis's DUMP %zu bytes, verso's %zu, "
                  "first difference at %zu", x->len, y->len, d);
    freeReplyObject(x);
    freeReplyObject(y);
    redisFree(v);
    redisFree(r);
}
END_TEST

static void rewrite_and_restart(int preamble) {
    srv *vs = h_srv_start("--appendonly yes --aof-use-rdb-preamble %s", preamble ? "yes" : "no");
    redisContext *v = srv_connect(vs);
    ck_assert_int_eq(stream_populate(v, "r", 2000), NKEYS);
    expect_status(v, "Background append only file rewriting started", "BGREWRITEAOF");
    h_wait_info(v, "persistence", "aof_rewrite_in_progress", 0, 60000);
    h_wait_info_str(v, "persistence", "aof_last_bgrewrite_status", "ok", 1000);
    /* verso and redis-server on copies of the appendonlydir */
    srv *vt = h_srv_start("--appendonly no"), *rs = h_srv_start_redis("--appendonly no");
    srv_kill9(vt);
    srv_kill9(rs);
    char cmdline[2 * PATH_MAX + 64];
    snprintf(cmdline, sizeof cmdline, "cp -r '%s/appendonlydir' '%s/' && cp -r '%s/appendonlydir' '%s/'",
             vs->dir, rs->dir, vs->dir, vt->dir);
    ck_assert_int_eq(system(cmdline), 0);
    srv *v2s = h_srv_start_on(vt, "--appendonly yes");
    srv *r2s = h_srv_start_redis("--dir '%s' --appendonly yes --appenddirname appendonlydir", rs->dir);
    redisContext *v2 = srv_connect(v2s), *r2 = srv_connect(r2s);
    h_wait_loaded(v2, 30000);
    h_wait_loaded(r2, 30000);
    int mode = preamble ? STREAM_TEXT_ALL : STREAM_TEXT_NO_SEEN;
    for (int i = 0; i < NKEYS; i++) {
        same_stream(v2, key_name(i), r2, key_name(i), mode, "verso and Redis on verso's AOF");
        if (preamble || i != 4)
            same_stream(v, key_name(i), v2, key_name(i), preamble ? mode : STREAM_TEXT_REBUILT,
                        "verso on its AOF");
    }
    if (!preamble) {   /* r:st:4's pending 2-1 lost its message: XCLAIM drops it */
        redisReply *p = must(v2, "XPENDING r:st:4 g");
        ck_assert_int_eq(p->element[0]->integer, 0);
        freeReplyObject(p);
        p = must(v, "XPENDING r:st:4 g");
        ck_assert_int_eq(p->element[0]->integer, 1);
        freeReplyObject(p);
    }
    redisFree(v2);
    redisFree(r2);
    redisFree(v);
}

START_TEST(aof_rewrite_commands) { rewrite_and_restart(0); }
END_TEST

START_TEST(aof_rewrite_preamble) { rewrite_and_restart(1); }
END_TEST

int main(void) {
    Suite *s = suite_create("stream_files");
    h_add_dropall(s, "dump_restore", dump_restore, 180);
    h_add_dropall(s, "redis_dump_loaded", redis_dump_loaded, 180);
    h_add_dropall(s, "verso_dump_loaded_forkless", verso_dump_loaded_forkless, 180);
    h_add_dropall(s, "verso_dump_loaded_fork", verso_dump_loaded_fork, 180);
    h_add_dropall(s, "verso_streams_to_redis", verso_streams_to_redis, 180);
    h_add_dropall(s, "aof_rewrite_commands", aof_rewrite_commands, 180);
    h_add_dropall(s, "aof_rewrite_preamble", aof_rewrite_preamble, 180);
    return h_main(s);
}
