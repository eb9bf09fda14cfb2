/* Integration tests of transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH,
 * their AOF form (MULTI ... EXEC in the INCR file, replay, a truncated
 * transaction dropped whole), EXEC under appendfsync always, and redis-py's
 * pipelines (tests/integration/redispy_tx.py). Every test runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server); the few
 * verso-only checks (INFO aof_inflight_keys) say so. */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#ifndef VERSO_FSYNC_SHIM
#error "build with -DVERSO_FSYNC_SHIM"
#endif
#ifndef VERSO_TOP_SRCDIR
#error "build with -DVERSO_TOP_SRCDIR"
#endif

#define EXECABORT "EXECABORT Transaction discarded because of previous errors."

static redisReply *exec_reply(redisContext *c) {
    redisReply *r = cmd(c, "EXEC");
    ck_assert_ptr_nonnull(r);
    return r;
}

/* EXEC must answer nil (an aborted transaction): *-1 */
static void expect_exec_nil(redisContext *c) {
    redisReply *r = exec_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_NIL, "EXEC: type %d, want nil", r->type);
    freeReplyObject(r);
}

/* EXEC must run: an array of n replies, freed by the caller. */
static redisReply *expect_exec_ran(redisContext *c, size_t n) {
    redisReply *r = exec_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == n,
                  "EXEC: type %d elements %zu, want an array of %zu", r->type, r->elements, n);
    return r;
}

/* MULTI, then command (a hiredis format without arguments) must be QUEUED. */
#define multi_queue(c, command) \
    (expect_status(c, "OK", "MULTI"), expect_status(c, "QUEUED", command))

/* A transaction of that one command: EXEC must run it (reply not checked). */
#define tx_ran1(c, command) \
    do { multi_queue(c, command); freeReplyObject(expect_exec_ran(c, 1)); } while (0)
/* A transaction of that one command: EXEC must answer nil. */
#define tx_aborted(c, command) \
    do { multi_queue(c, command); expect_exec_nil(c); } while (0)

static void teardown(void) {
    h_teardown();
    h_srv_drop_all(); /* the servers a test started itself */
}

START_TEST(multi_exec_basics) {
    redisContext *c = h_c;
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    expect_error(c, "ERR DISCARD without MULTI", "DISCARD");
    multi_queue(c, "SET a 1");
    expect_status(c, "QUEUED", "INCR a");
    expect_status(c, "QUEUED", "GET a");
    expect_status(c, "QUEUED", "PING");
    /* nested MULTI: an error that does not abort the transaction */
    expect_error(c, "ERR MULTI calls can not be nested", "MULTI");
    redisReply *r = expect_exec_ran(c, 4);
    ck_assert(r->element[0]->type == REDIS_REPLY_STATUS && !strcmp(r->element[0]->str, "OK"));
    check_int(r->element[1], 2);
    check_bulk(r->element[2], "2");
    ck_assert(r->element[3]->type == REDIS_REPLY_STATUS && !strcmp(r->element[3]->str, "PONG"));
    freeReplyObject(r);
    /* the transaction is over */
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    expect_bulk(c, "2", "GET a");
    /* an empty transaction */
    expect_status(c, "OK", "MULTI");
    r = expect_exec_ran(c, 0);
    freeReplyObject(r);
    /* DISCARD drops the queue */
    multi_queue(c, "SET x 1");
    expect_status(c, "OK", "DISCARD");
    expect_nil(c, "GET x");
    expect_error(c, "ERR DISCARD without MULTI", "DISCARD");
    /* SELECT inside a transaction applies to the commands after it */
    multi_queue(c, "SELECT 2");
    expect_status(c, "QUEUED", "SET indb2 v");
    r = expect_exec_ran(c, 2);
    freeReplyObject(r);
    expect_bulk(c, "v", "GET indb2");
    expect_status(c, "OK", "SELECT 0");
    expect_nil(c, "GET indb2");
}
END_TEST

START_TEST(queuing_errors_abort) {
    redisContext *c = h_c;
    multi_queue(c, "SET a 1");
    expect_error_prefix(c, "ERR unknown command 'NOSUCH'", "NOSUCH x");
    expect_status(c, "QUEUED", "SET b 2");
    expect_error(c, EXECABORT, "EXEC");
    expect_nil(c, "GET a");
    expect_nil(c, "GET b");
    /* wrong arity */
    expect_status(c, "OK", "MULTI");
    expect_error(c, "ERR wrong number of arguments for 'set' command", "SET a");
    expect_status(c, "QUEUED", "SET b 2");
    expect_error(c, EXECABORT, "EXEC");
    expect_nil(c, "GET b");
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    /* WATCH inside MULTI is refused */
    expect_status(c, "OK", "MULTI");
    expect_error(c, "ERR WATCH inside MULTI is not allowed", "WATCH a");
    expect_status(c, "QUEUED", "SET w 1");
    redisReply *r = expect_exec_ran(c, 1); /* that error does not abort */
    freeReplyObject(r);
    expect_bulk(c, "1", "GET w");
}
END_TEST

/* EXEC refused before running (arity, auth) answers EXECABORT with the
 * reason and ends the transaction. */
START_TEST(exec_refused) {
    redisContext *c = h_c;
    multi_queue(c, "SET a 1");
    expect_error(c, "EXECABORT Transaction discarded because of: wrong number of arguments "
                    "for 'exec' command", "EXEC x");
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    expect_nil(c, "GET a");
    srv *s = h_srv_start("--requirepass pw");
    redisContext *n = srv_connect(s);
    expect_error(n, "EXECABORT Transaction discarded because of: NOAUTH Authentication required.",
                 "EXEC");
    expect_error(n, "NOAUTH Authentication required.", "MULTI");
    expect_status(n, "OK", "AUTH pw");
    tx_ran1(n, "SET b 1");
    redisFree(n);
}
END_TEST

/* After a failed background save (dump.rdb is a directory: the rename
 * fails) writes are refused with MISCONF: a queued write makes EXEC a write,
 * refused as EXECABORT with the reason; a write queued then is refused and
 * aborts the transaction; a read-only transaction still runs. */
START_TEST(exec_misconf) {
    srv *s = h_srv_start("--save '3600 1' --stop-writes-on-bgsave-error yes");
    redisContext *c = srv_connect(s);
    h_break_dump(s);
    expect_status(c, "OK", "SET k 1");
    multi_queue(c, "SET k 2");
    redisContext *o = srv_connect(s);
    expect_status(o, "Background saving started", "BGSAVE");
    long long t0 = h_now_ms();
    for (;;) {
        char *info = h_info(o, "persistence");
        char st[32], busy[32];
        h_info_field(info, "rdb_last_bgsave_status", st, sizeof st);
        h_info_field(info, "rdb_bgsave_in_progress", busy, sizeof busy);
        free(info);
        if (!strcmp(busy, "0") && !strcmp(st, "err")) break;
        ck_assert_msg(h_now_ms() - t0 < 20000, "the save did not fail");
        h_sleep_ms(20);
    }
    expect_error_prefix(c, "EXECABORT Transaction discarded because of: MISCONF ", "EXEC");
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    expect_bulk(c, "1", "GET k");
    expect_status(c, "OK", "MULTI");
    expect_error_prefix(c, "MISCONF ", "SET k 3");
    expect_error(c, EXECABORT, "EXEC");
    multi_queue(c, "GET k");
    redisReply *r = expect_exec_ran(c, 1);
    check_bulk(r->element[0], "1");
    freeReplyObject(r);
    redisFree(o);
    redisFree(c);
}
END_TEST

/* An error while running is that command's reply; the others run. */
START_TEST(errors_at_exec_time) {
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s text");
    multi_queue(c, "INCR s");
    expect_status(c, "QUEUED", "SET t 1");
    expect_status(c, "QUEUED", "SET s x EX -5");
    expect_status(c, "QUEUED", "INCR t");
    redisReply *r = expect_exec_ran(c, 4);
    ck_assert(r->element[0]->type == REDIS_REPLY_ERROR &&
              !strcmp(r->element[0]->str, "ERR value is not an integer or out of range"));
    ck_assert(r->element[1]->type == REDIS_REPLY_STATUS);
    ck_assert(r->element[2]->type == REDIS_REPLY_ERROR &&
              !strcmp(r->element[2]->str, "ERR invalid expire time in 'set' command"));
    check_int(r->element[3], 2);
    freeReplyObject(r);
    expect_bulk(c, "text", "GET s");
    expect_bulk(c, "2", "GET t");
}
END_TEST

START_TEST(watch_other_client) {
    redisContext *c = h_c, *o = srv_connect(h_srv);
    /* unchanged: runs */
    expect_status(c, "OK", "SET k 1");
    expect_status(c, "OK", "WATCH k");
    tx_ran1(c, "INCR k");
    /* changed by another client between WATCH and EXEC: nil, nothing ran */
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "SET k 10");
    tx_aborted(c, "INCR k");
    expect_bulk(c, "10", "GET k");
    /* changed while queuing */
    expect_status(c, "OK", "WATCH k");
    multi_queue(c, "INCR k");
    expect_int(o, 1, "DEL k");
    expect_exec_nil(c);
    expect_nil(c, "GET k");
    /* the watch ends with EXEC: a later change does not matter */
    tx_ran1(c, "SET k 5");
    expect_status(o, "OK", "SET k 6");
    multi_queue(c, "INCR k");
    redisReply *r = expect_exec_ran(c, 1);
    check_int(r->element[0], 7);
    freeReplyObject(r);
    /* UNWATCH forgets; DISCARD too */
    expect_status(c, "OK", "WATCH k");
    expect_status(c, "OK", "UNWATCH");
    expect_status(o, "OK", "SET k 1");
    tx_ran1(c, "INCR k");
    expect_status(c, "OK", "WATCH k");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "OK", "DISCARD");
    expect_status(o, "OK", "SET k 1");
    tx_ran1(c, "INCR k");
    /* the same key name in another db is another key */
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "SELECT 1");
    expect_status(o, "OK", "SET k other");
    tx_ran1(c, "INCR k");
    /* several keys, one changed; an expire change counts */
    expect_status(o, "OK", "SELECT 0");
    expect_status(c, "OK", "SET k2 v");
    expect_status(c, "OK", "WATCH k k2 missing");
    expect_int(o, 1, "EXPIRE k2 1000");
    tx_aborted(c, "INCR k");
    /* a write of a watched key that does not exist yet */
    expect_status(c, "OK", "WATCH missing");
    expect_status(o, "OK", "SET missing now");
    tx_aborted(c, "PING");
    redisFree(o);
}
END_TEST

/* Redis fails EXEC when the same client changed the key after WATCH. */
START_TEST(watch_same_client) {
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k 1");
    expect_status(c, "OK", "WATCH k");
    expect_status(c, "OK", "SET k 2");
    tx_aborted(c, "INCR k");
    expect_bulk(c, "2", "GET k");
    /* a command that changes nothing does not touch */
    expect_status(c, "OK", "WATCH k");
    expect_int(c, 0, "DEL nothere");
    expect_int(c, 0, "PERSIST k");
    expect_nil(c, "GET nothere");
    multi_queue(c, "INCR k");
    redisReply *r = expect_exec_ran(c, 1);
    check_int(r->element[0], 3);
    freeReplyObject(r);
}
END_TEST

START_TEST(watch_expiry) {
    redisContext *c = h_c;
    /* expires between WATCH and EXEC (whether or not deleted yet) */
    expect_status(c, "OK", "SET e v PX 100");
    expect_status(c, "OK", "WATCH e");
    h_sleep_ms(250);
    tx_aborted(c, "PING");
    /* the same with active expiry given time to delete it */
    expect_status(c, "OK", "SET e v PX 100");
    expect_status(c, "OK", "WATCH e");
    h_sleep_ms(1200);
    expect_int(c, 0, "EXISTS e");
    tx_aborted(c, "PING");
    /* a key with a TTL that does not expire in between: runs */
    expect_status(c, "OK", "SET e v EX 100");
    expect_status(c, "OK", "WATCH e");
    tx_ran1(c, "PING");
}
END_TEST

/* A key already expired (not yet deleted) when watched: its deletion by
 * expiry is no change (Redis 7.0's watchedKey.expired), a write is. With
 * hz 1 the active cycle rarely deletes it first; when it does, the key is
 * simply absent when watched, with the same outcome. */
START_TEST(watch_already_expired) {
    srv *s = h_srv_start("--hz 1");
    redisContext *c = srv_connect(s), *o = srv_connect(s);
    expect_status(c, "OK", "SET e v PX 20");
    h_sleep_ms(60);
    expect_status(c, "OK", "WATCH e");
    tx_ran1(c, "PING");
    expect_status(c, "OK", "SET e v PX 20");
    h_sleep_ms(60);
    expect_status(c, "OK", "WATCH e");
    expect_int(o, 0, "EXISTS e"); /* deletes it: logically no change */
    tx_ran1(c, "PING");
    expect_status(c, "OK", "SET e v PX 20");
    h_sleep_ms(60);
    expect_status(c, "OK", "WATCH e");
    expect_status(o, "OK", "SET e new");
    tx_aborted(c, "PING");
    redisFree(o);
    redisFree(c);
}
END_TEST

START_TEST(watch_flush_rename) {
    redisContext *c = h_c, *o = srv_connect(h_srv);
    /* FLUSHDB of the watched key's db */
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "FLUSHDB");
    tx_aborted(c, "PING");
    /* FLUSHALL from another db */
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "SELECT 3");
    expect_status(o, "OK", "FLUSHALL");
    tx_aborted(c, "PING");
    /* FLUSHDB of another db: not touched */
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "FLUSHDB");
    tx_ran1(c, "PING");
    /* RENAME by another client, in another db than its own selected one
     * before: the source and the destination are both touched */
    expect_status(o, "OK", "SELECT 0");
    expect_status(c, "OK", "SET src v");
    expect_status(c, "OK", "WATCH dst");
    expect_status(o, "OK", "RENAME src dst");
    tx_aborted(c, "PING");
    expect_status(c, "OK", "WATCH dst");
    expect_status(o, "OK", "RENAME dst src");
    tx_aborted(c, "PING");
    /* a watch in db 5 sees a RENAME done in db 5 */
    expect_status(c, "OK", "SELECT 5");
    expect_status(c, "OK", "SET a v");
    expect_status(c, "OK", "WATCH a");
    expect_status(o, "OK", "SELECT 5");
    expect_status(o, "OK", "RENAME a b");
    tx_aborted(c, "PING");
    redisFree(o);
}
END_TEST

/* CLIENT LIST: flags x (in MULTI), d (a watched key changed), multi=<queued>. */
static void client_fields(redisContext *o, char *flags, size_t fcap, long long *multi) {
    redisReply *r = cmd(o, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    const char *line = strstr(r->str, "name=txc ");
    ck_assert_ptr_nonnull(line);
    const char *f = strstr(line, " flags="), *m = strstr(line, " multi=");
    ck_assert(f && m);
    size_t n = strcspn(f + 7, " ");
    snprintf(flags, fcap, "%.*s", (int)n, f + 7);
    *multi = atoll(m + 7);
    freeReplyObject(r);
}

START_TEST(client_list_fields) {
    redisContext *c = h_c, *o = srv_connect(h_srv);
    char flags[16];
    long long multi;
    expect_status(c, "OK", "CLIENT SETNAME txc");
    client_fields(o, flags, sizeof flags, &multi);
    ck_assert_str_eq(flags, "N");
    ck_assert_int_eq(multi, -1);
    expect_status(c, "OK", "WATCH k");
    expect_status(o, "OK", "SET k 1");
    client_fields(o, flags, sizeof flags, &multi);
    ck_assert_str_eq(flags, "d");
    multi_queue(c, "SET a 1");
    expect_status(c, "QUEUED", "GET a");
    client_fields(o, flags, sizeof flags, &multi);
    ck_assert_str_eq(flags, "xd");
    ck_assert_int_eq(multi, 0); /* a doomed transaction keeps nothing */
    expect_exec_nil(c);
    client_fields(o, flags, sizeof flags, &multi);
    ck_assert_str_eq(flags, "N");
    ck_assert_int_eq(multi, -1);
    multi_queue(c, "SET a 1");
    expect_status(c, "QUEUED", "GET a");
    client_fields(o, flags, sizeof flags, &multi);
    ck_assert_str_eq(flags, "x");
    ck_assert_int_eq(multi, 2);
    expect_status(c, "OK", "DISCARD");
    redisFree(o);
}
END_TEST

/* ---- the AOF ---- */

/* The newest INCR file of s's AOF (by name: the highest seq). */
static char *incr_file(const char *dir, char *out, size_t cap) {
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/appendonlydir/*.incr.aof", dir);
    glob_t g;
    ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
    ck_assert_uint_ge(g.gl_pathc, 1);
    size_t best = 0;
    for (size_t i = 1; i < g.gl_pathc; i++) {
        /* appendonly.aof.<seq>.incr.aof: longer names are higher seqs */
        if (strlen(g.gl_pathv[i]) > strlen(g.gl_pathv[best]) ||
            (strlen(g.gl_pathv[i]) == strlen(g.gl_pathv[best]) &&
             strcmp(g.gl_pathv[i], g.gl_pathv[best]) > 0))
            best = i;
    }
    snprintf(out, cap, "%s", g.gl_pathv[best]);
    globfree(&g);
    return out;
}

/* A server started on an existing AOF answers LOADING until it is loaded
 * (redis-server does, once it answers PING). */
static void wait_loaded(redisContext *c) {
    long long t0 = h_now_ms();
    for (;;) {
        redisReply *r = cmd(c, "PING");
        int loading = r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "LOADING", 7);
        freeReplyObject(r);
        if (!loading) return;
        ck_assert_msg(h_now_ms() - t0 < 20000, "still loading");
        h_sleep_ms(20);
    }
}

static void wait_aof_ready(redisContext *c) {
    long long t0 = h_now_ms();
    while (h_info_int(c, "persistence", "aof_rewrite_in_progress") != 0 ||
           h_info_int(c, "persistence", "aof_rewrite_scheduled") != 0) {
        ck_assert_msg(h_now_ms() - t0 < 20000, "AOF rewrite did not finish");
        h_sleep_ms(20);
    }
}

#define BLOCK                                                                   \
    "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n"            \
    "*2\r\n$4\r\nINCR\r\n$1\r\na\r\n*1\r\n$4\r\nEXEC\r\n"

START_TEST(aof_transaction) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_loaded(c);
    wait_aof_ready(c);
    expect_status(c, "OK", "SET a 1");
    multi_queue(c, "SET b 2");
    expect_status(c, "QUEUED", "INCR a");
    expect_status(c, "QUEUED", "GET a");
    redisReply *r = expect_exec_ran(c, 3);
    freeReplyObject(r);
    char path[4096];
    incr_file(s->dir, path, sizeof path);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    ck_assert_msg(strstr(text, BLOCK) != NULL, "no MULTI block in %s:\n%s", path, text);
    free(text);
    /* a read-only transaction propagates nothing; one write alone is not
     * wrapped (Redis 7.0) */
    tx_ran1(c, "GET a");
    multi_queue(c, "SET c 3");
    expect_status(c, "QUEUED", "GET c");
    r = expect_exec_ran(c, 2);
    freeReplyObject(r);
    text = h_slurp(path, &len, 1);
    const char *tail = strstr(text, BLOCK) + strlen(BLOCK);
    ck_assert_str_eq(tail, "*3\r\n$3\r\nSET\r\n$1\r\nc\r\n$1\r\n3\r\n");
    free(text);
    /* a transaction in another db: SELECT before the MULTI */
    expect_status(c, "OK", "SELECT 4");
    multi_queue(c, "SET d 1");
    expect_status(c, "QUEUED", "SET e 1");
    r = expect_exec_ran(c, 2);
    freeReplyObject(r);
    text = h_slurp(path, &len, 1);
    ck_assert_msg(strstr(text, "*2\r\n$6\r\nSELECT\r\n$1\r\n4\r\n*1\r\n$5\r\nMULTI\r\n") != NULL,
                  "%s", text);
    free(text);
    /* redis-check-aof accepts the files */
    char manifest[4096], *out = NULL;
    snprintf(manifest, sizeof manifest, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    const char *argv[] = {"redis-check-aof", manifest, NULL};
    int st = h_run(NULL, &out, 30000, argv);
    ck_assert_msg(st == 0 && strstr(out, "All AOF files and manifest are valid"),
                  "redis-check-aof (status 0x%x):\n%s", st, out);
    free(out);
    /* restart: the transactions are replayed */
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start("--dir '%s' --appendonly yes", s->dir);
    c = srv_connect(s2);
    wait_loaded(c);
    expect_bulk(c, "2", "GET a");
    expect_bulk(c, "2", "GET b");
    expect_bulk(c, "3", "GET c");
    expect_status(c, "OK", "SELECT 4");
    expect_bulk(c, "1", "GET e");
    redisFree(c);
}
END_TEST

/* A transaction cut at the end of the last INCR file goes whole at the
 * next start (aof-load-truncated yes, the default). */
START_TEST(aof_truncated_transaction) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_loaded(c);
    wait_aof_ready(c);
    expect_status(c, "OK", "SET a 1");
    multi_queue(c, "SET b 2");
    expect_status(c, "QUEUED", "INCR a");
    redisReply *r = expect_exec_ran(c, 2);
    freeReplyObject(r);
    redisFree(c);
    srv_kill9(s);
    char path[4096];
    incr_file(s->dir, path, sizeof path);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    char *block = strstr(text, BLOCK);
    ck_assert_ptr_nonnull(block);
    size_t multi_at = (size_t)(block - text);
    /* cut in the EXEC (the last byte missing), then right before it */
    size_t cuts[2] = {len - 1, len - strlen("*1\r\n$4\r\nEXEC\r\n")};
    for (int i = 0; i < 2; i++) {
        FILE *f = fopen(path, "wb");
        ck_assert_ptr_nonnull(f);
        ck_assert_uint_eq(fwrite(text, 1, cuts[i], f), cuts[i]);
        ck_assert_int_eq(fclose(f), 0);
        srv *s2 = h_srv_start("--dir '%s' --appendonly yes --aof-load-truncated yes", s->dir);
        c = srv_connect(s2);
        wait_loaded(c);
        expect_bulk(c, "1", "GET a");
        expect_nil(c, "GET b");
        redisFree(c);
        if (i == 1 || !srv_is_reference()) {
            /* Redis says so only when the file ends between whole commands */
            ck_assert(srv_log_wait(s2, "Revert incomplete MULTI/EXEC transaction", 1000));
        }
        srv_kill9(s2);
        size_t now;
        char *after = h_slurp(path, &now, 1);
        fprintf(stderr, "aof_truncated_transaction: cut %zu of %zu, file now %zu (MULTI at %zu)\n",
                cuts[i], len, now, multi_at);
        if (!srv_is_reference()) ck_assert_uint_eq(now, multi_at);
        free(after);
    }
    free(text);
}
END_TEST

/* ---- appendfsync always: the EXEC reply waits for the whole block ---- */

START_TEST(exec_waits_for_fsync) {
    char asan[2048];
    const char *old = getenv("ASAN_OPTIONS");
    snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", old ? old : "",
             old && *old ? ":" : "");
    char *saved = old ? strdup(old) : NULL;
    setenv("ASAN_OPTIONS", asan, 1);
    setenv("FSYNC_DELAY_US", "300000", 1);
    setenv("LD_PRELOAD", VERSO_FSYNC_SHIM, 1);
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    unsetenv("LD_PRELOAD");
    unsetenv("FSYNC_DELAY_US");
    if (saved) setenv("ASAN_OPTIONS", saved, 1);
    else unsetenv("ASAN_OPTIONS");
    free(saved);
    redisContext *c = srv_connect(s), *o = srv_connect(s);
    wait_aof_ready(c);
    multi_queue(c, "SET tx 1");
    expect_status(c, "QUEUED", "SET other 1");
    long long t0 = h_now_ms();
    ck_assert_int_eq(redisAppendCommand(c, "EXEC"), REDIS_OK);
    int done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(c, &done), REDIS_OK);
    if (!srv_is_reference()) {
        /* verso: a read of a key the transaction wrote waits for the same
         * fsync (the key is in flight once EXEC ran) */
        while (h_info_int(o, "persistence", "aof_inflight_keys") == 0)
            ck_assert_msg(h_now_ms() - t0 < 250, "EXEC did not run");
    }
    redisReply *g = NULL;
    ck_assert_int_eq(redisAppendCommand(o, "GET tx"), REDIS_OK);
    done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(o, &done), REDIS_OK);
    /* the GET first: it must not be answered before the block is durable */
    ck_assert_int_eq(redisGetReply(o, (void **)&g), REDIS_OK);
    long long get_ms = h_now_ms() - t0;
    redisReply *r = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    long long exec_ms = h_now_ms() - t0;
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 2, "EXEC type %d", r->type);
    check_bulk(g, "1");
    fprintf(stderr, "exec_waits_for_fsync: EXEC %lld ms, GET of its key %lld ms\n", exec_ms,
            get_ms);
    ck_assert_int_ge(exec_ms, 280);
    ck_assert_int_ge(get_ms, 280);
    freeReplyObject(r);
    freeReplyObject(g);
    redisFree(c);
    redisFree(o);
}
END_TEST

/* ---- redis-py ---- */

START_TEST(redis_py_pipelines) {
    char script[4096], port[16], *out = NULL;
    snprintf(script, sizeof script, "%s/tests/integration/redispy_tx.py", VERSO_TOP_SRCDIR);
    snprintf(port, sizeof port, "%d", h_srv->port);
    /* the Debian interpreter, where Debian's python3-redis is installed */
    const char *argv[] = {"/usr/bin/python3", script, port, NULL};
    int st = h_run(NULL, &out, 60000, argv);
    ck_assert_msg(st == 0 && strstr(out, "redispy_tx: ok"), "redispy_tx.py (status 0x%x):\n%s",
                  st, out);
    free(out);
}
END_TEST

int main(void) {
    Suite *s = suite_create("multi");
    TCase *tc = tcase_create("multi");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, multi_exec_basics);
    tcase_add_test(tc, queuing_errors_abort);
    tcase_add_test(tc, errors_at_exec_time);
    tcase_add_test(tc, exec_refused);
    tcase_add_test(tc, exec_misconf);
    tcase_add_test(tc, watch_other_client);
    tcase_add_test(tc, watch_same_client);
    tcase_add_test(tc, watch_expiry);
    tcase_add_test(tc, watch_already_expired);
    tcase_add_test(tc, watch_flush_rename);
    tcase_add_test(tc, client_list_fields);
    tcase_add_test(tc, aof_transaction);
    tcase_add_test(tc, aof_truncated_transaction);
    tcase_add_test(tc, exec_waits_for_fsync);
    tcase_add_test(tc, redis_py_pipelines);
    suite_add_tcase(s, tc);
    return h_main(s);
}
