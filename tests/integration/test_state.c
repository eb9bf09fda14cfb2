/* Integration tests: the server's state moving on under background work and
 * commands whose effect depends on state (issue 7, "Soundness"):
 *  - an AOF rewrite whose completion runs after CONFIG SET appendonly no
 *    (and after off + on again) must not crash nor publish a stale base;
 *  - a multi-parameter CONFIG SET applies every value before the hooks run
 *    (appendfsync always + appendonly yes at once must not hang writes);
 *  - FLUSHALL cancels a BGSAVE that finished on its thread but whose
 *    completion has not run: after kill -9 and restart the keys stay gone;
 *  - SHUTDOWN refuses to exit when the final save fails, SHUTDOWN FORCE
 *    exits anyway, SIGTERM keeps running;
 *  - an RDB with a duplicated key refuses to load, naming key and offset,
 *    and is left untouched.
 * Every server a test starts is killed by the fixture teardown. */
#include "harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdb.h"
#include "obj.h"

/* Reads n pipelined replies; each must not be an I/O error. Returns the
 * last one (caller frees) when keep_last. */
static redisReply *drain(redisContext *c, int n, int keep_last)
{
    redisReply *r = NULL;
    for (int i = 0; i < n; i++) {
        if (r) freeReplyObject(r);
        void *p = NULL;
        ck_assert_msg(redisGetReply(c, &p) == REDIS_OK, "reply %d of %d: %s", i, n,
                      c->errstr);
        r = p;
    }
    if (!keep_last && r) {
        freeReplyObject(r);
        r = NULL;
    }
    return r;
}

static void expect_alive(const srv *s, redisContext *c, const char *when)
{
    redisReply *r = redisCommand(c, "PING");
    if (!r) {
        char *log = srv_log_read(s);
        ck_abort_msg("server gone %s: %s\nlog:\n%s", when, c->errstr, log);
    }
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG"),
                  "PING %s: %d %s", when, r->type, r->str ? r->str : "");
    freeReplyObject(r);
}

#define wait_info(c, section, field, want) (void)h_wait_info(c, section, field, want, 30000)

/* ------------------- 1: a rewrite completes after appendonly changed */

/* A server with AOF on holding a=1, and BGREWRITEAOF, DEBUG SLEEP 0.2 and
 * CONFIG SET appendonly no sent pipelined (their replies not read yet):
 * the rewrite ends while AOF is off. *cp is its client. */
static srv *aof_off_behind_rewrite(redisContext **cp)
{
    srv *s = h_srv_start("--appendonly yes");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET a 1");
    redisAppendCommand(c, "BGREWRITEAOF");
    redisAppendCommand(c, "DEBUG SLEEP 0.2");
    redisAppendCommand(c, "CONFIG SET appendonly no");
    *cp = c;
    return s;
}

/* The rewrite's serializer finishes during DEBUG SLEEP; its completion
 * runs on the loop only after CONFIG SET appendonly no has been executed. */
START_TEST(rewrite_done_after_aof_off)
{
    redisContext *c;
    srv *s = aof_off_behind_rewrite(&c);
    redisAppendCommand(c, "PING");
    drain(c, 4, 0);
    h_sleep_ms(100);
    expect_alive(s, c, "after the rewrite's completion with AOF off");
    expect_int(c, 1, "DBSIZE");
    redisFree(c);
}
END_TEST

/* Off then on again while the old rewrite's completion is pending: the new
 * AOF gets its own base; the old completion must not publish its base. */
START_TEST(rewrite_done_after_aof_reenabled)
{
    redisContext *c;
    srv *s = aof_off_behind_rewrite(&c);
    redisAppendCommand(c, "SET b 2");
    redisAppendCommand(c, "CONFIG SET appendonly yes");
    redisAppendCommand(c, "SET c 3");
    redisAppendCommand(c, "PING");
    drain(c, 7, 0);
    expect_alive(s, c, "after off/on with a rewrite pending");
    wait_info(c, "persistence", "aof_rewrite_in_progress", 0);
    wait_info(c, "persistence", "aof_rewrite_scheduled", 0);
    wait_info(c, "persistence", "aof_rewrite_in_progress", 0);
    expect_status(c, "OK", "SET d 4");
    expect_status(c, "OK", "CONFIG SET appendfsync always"); /* d is durable once answered */
    expect_status(c, "OK", "SET e 5");
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start("--dir '%s' --appendonly yes", s->dir);
    c = srv_connect(s2);
    expect_bulk(c, "1", "GET a");
    expect_bulk(c, "2", "GET b");
    expect_bulk(c, "3", "GET c");
    expect_bulk(c, "4", "GET d");
    expect_bulk(c, "5", "GET e");
    expect_int(c, 5, "DBSIZE");
    redisFree(c);
}
END_TEST

/* A burst of writes behind BGREWRITEAOF and the toggle, several times. */
START_TEST(rewrite_burst_with_toggle)
{
    srv *s = h_srv_start("--appendonly yes");
    redisContext *c = srv_connect(s);
    for (int round = 0; round < 4; round++) {
        redisAppendCommand(c, "BGREWRITEAOF");
        for (int i = 0; i < 20000; i++) redisAppendCommand(c, "SET k%d %d", i, round);
        redisAppendCommand(c, "CONFIG SET appendonly no");
        redisAppendCommand(c, "PING");
        drain(c, 20003, 0);
        expect_alive(s, c, "after a burst and appendonly no");
        expect_status(c, "OK", "CONFIG SET appendonly yes");
        wait_info(c, "persistence", "aof_rewrite_in_progress", 0);
    }
    expect_int(c, 20000, "DBSIZE");
    redisFree(c);
}
END_TEST

/* ------------------------- 6: CONFIG SET applies all values, then hooks */

START_TEST(config_set_fsync_always_and_aof_on)
{
    srv *s = h_srv_start("--appendfsync no");
    redisContext *c = srv_connect(s);
    struct timeval tv = { 20, 0 }; /* a hang fails the test instead of blocking it */
    redisSetTimeout(c, tv);
    expect_status(c, "OK", "CONFIG SET appendfsync always appendonly yes");
    for (int i = 0; i < 10; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_bulk(c, "v", "GET k3");
    expect_int(c, 10, "DBSIZE");
    if (!srv_is_reference()) { /* a verso field */
        long long fsyncs = h_info_int(c, "persistence", "aof_fsyncs");
        ck_assert_msg(fsyncs > 0, "aof_fsyncs %lld", fsyncs);
    }
    redisFree(c);
}
END_TEST

/* A failing hook undoes the values and the hooks that already ran. */
START_TEST(config_set_rolls_back)
{
    srv *s = h_srv_start("--appendfsync no");
    redisContext *c = srv_connect(s);
    expect_error_prefix(c, "ERR CONFIG SET failed (possibly related to argument 'dir') - ",
                        "CONFIG SET appendfsync always dir /nonexistent/verso-dir");
    redisReply *r = expect_array(c, 2, "CONFIG GET appendfsync");
    check_bulk(r->element[1], "no");
    freeReplyObject(r);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'appendfsync') - "
                    "duplicate parameter",
                 "CONFIG SET appendfsync always appendfsync no");
    expect_status(c, "OK", "SET a 1");
    redisFree(c);
}
END_TEST

/* -------------------- 8: FLUSHALL cancels a finished-but-pending BGSAVE */

static void flushall_after_finished_bgsave(const char *method)
{
    /* Redis has one method (fork): it runs the reference without the option */
    srv *s = srv_is_reference() ? h_srv_start("--save '3600 1'")
                                : h_srv_start("--save '3600 1' --bgsave-method %s", method);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE 1000");
    expect_status(c, "OK", "SAVE");
    redisAppendCommand(c, "BGSAVE");
    redisAppendCommand(c, "DEBUG SLEEP 0.2");
    redisAppendCommand(c, "FLUSHALL");
    drain(c, 3, 0);
    wait_info(c, "persistence", "rdb_bgsave_in_progress", 0);
    h_sleep_ms(200);
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start("--dir '%s' --save '3600 1'", s->dir);
    c = srv_connect(s2);
    expect_int(c, 0, "DBSIZE");
    redisFree(c);
}

START_TEST(flushall_cancels_finished_bgsave_forkless)
{
    flushall_after_finished_bgsave("forkless");
}
END_TEST

START_TEST(flushall_cancels_finished_bgsave_fork)
{
    if (srv_is_reference()) return;
    flushall_after_finished_bgsave("fork");
}
END_TEST

/* ---------------------------------- 15: SHUTDOWN FORCE on a failed save */

/* Polls the log up to timeout_ms until needle occurs n times. */
static int log_count_wait(const srv *s, const char *needle, int n, int timeout_ms)
{
    long long t0 = h_now_ms();
    do {
        char *log = srv_log_read(s);
        int k = 0;
        for (const char *p = log; (p = strstr(p, needle)) != NULL; p += strlen(needle)) k++;
        free(log);
        if (k >= n) return 1;
        h_sleep_ms(50);
    } while (h_now_ms() - t0 < timeout_ms);
    return 0;
}

START_TEST(shutdown_force_exits_on_failed_save)
{
    srv *s = h_srv_start("--save '3600 1' --dbfilename dump.rdb");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET a 1");
    h_break_dump(s); /* the final save's rename fails */
    expect_error(c, "ERR Errors trying to SHUTDOWN. Check logs.", "SHUTDOWN");
    expect_alive(s, c, "after a refused SHUTDOWN");
    /* SIGTERM behaves as before: the save fails, the server keeps running */
    kill(s->pid, SIGTERM);
    ck_assert_msg(log_count_wait(s, "Error trying to save the DB, can't exit.", 2, 10000),
                  "no second refusal (SIGTERM) in the log");
    expect_alive(s, c, "after a SIGTERM whose save failed");
    redisReply *r = redisCommand(c, "SHUTDOWN FORCE");
    if (r) freeReplyObject(r); /* no reply: the server exits */
    ck_assert_msg(srv_wait_exit(s, 20000), "SHUTDOWN FORCE did not exit");
    ck_assert_msg(WIFEXITED(s->exit_status), "wait status 0x%x", s->exit_status);
    ck_assert_msg(srv_log_wait(s, "Error trying to save the DB. Exit anyway.", 1000),
                  "no 'Exit anyway' in the log");
    redisFree(c);
}
END_TEST

/* ------------------------------------- 17: duplicated key in an RDB file */

static void write_dup_rdb(const char *path, int compress)
{
    rdb_aux aux = { "7.0.15", 0, 0, 0, NULL, {0}, NULL, 0, NULL};
    char err[RDB_ERRLEN];
    rdb_writer *w = rdb_writer_open(path, compress, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    const char *keys[] = { "a", "b", "dupkey", "c", "dupkey", "d" };
    for (int i = 0; i < 6; i++) {
        obj *k = obj_new_raw(keys[i], strlen(keys[i]));
        obj *v = obj_new_value("v", 1);
        ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), 0);
        obj_decref(k);
        obj_decref(v);
    }
    ck_assert_msg(rdb_writer_finish(w, err, sizeof err) == 0, "%s", err);
}

static void dup_key_refused(int compress)
{
    srv *s = h_srv_start("%s", ""); /* a scratch dir */
    char path[4096];
    snprintf(path, sizeof path, "%s/dup.rdb", s->dir);
    write_dup_rdb(path, compress);
    size_t len, len2;
    char *before = h_slurp(path, &len, 1);
    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[] = { srv_binary(), "--port", port, "--bind", "127.0.0.1",
                           "--dir", s->dir, "--dbfilename", "dup.rdb",
                           "--save", "", NULL };
    int st = h_run(NULL, &out, 30000, argv);
    ck_assert_msg(st != -1, "server still running on a duplicated key: %.2000s", out);
    /* verso exits 1; Redis panics (a signal) */
    ck_assert_msg(!WIFEXITED(st) || WEXITSTATUS(st) != 0,
                  "server did not fail on a duplicated key (status 0x%x): %.2000s", st, out);
    /* Redis: "RDB has duplicated key 'dupkey' in DB 0" then a panic */
    ck_assert_msg(strstr(out, "uplicated key") && strstr(out, "dupkey"),
                  "message names no key: %.2000s", out);
    if (!srv_is_reference())
        ck_assert_msg(strstr(out, "dup.rdb: offset 101") && /* the second copy's record */
                          strstr(out, ": Duplicated key 'dupkey' found in RDB file (database 0)"),
                      "message names no file/offset: %.2000s", out);
    char *after = h_slurp(path, &len2, 1);
    ck_assert_msg(len2 == len && memcmp(after, before, len) == 0, "the file was changed");
    free(after);
    free(before);
    free(out);
}

START_TEST(duplicated_key_refused_plain) { dup_key_refused(RDB_COMPRESS_NONE); }
END_TEST

START_TEST(duplicated_key_refused_lz4)
{
    if (srv_is_reference()) return; /* LZ4 frames are verso's */
    dup_key_refused(RDB_COMPRESS_LZ4);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *su = suite_create("state");
    h_add_dropall(su, "rewrite_done_after_aof_off", rewrite_done_after_aof_off, 60);
    h_add_dropall(su, "rewrite_done_after_aof_reenabled", rewrite_done_after_aof_reenabled, 60);
    h_add_dropall(su, "rewrite_burst_with_toggle", rewrite_burst_with_toggle, 120);
    h_add_dropall(su, "config_set_fsync_always_and_aof_on", config_set_fsync_always_and_aof_on, 60);
    h_add_dropall(su, "config_set_rolls_back", config_set_rolls_back, 60);
    h_add_dropall(su, "flushall_cancels_finished_bgsave_forkless",
        flushall_cancels_finished_bgsave_forkless, 60);
    h_add_dropall(su, "flushall_cancels_finished_bgsave_fork",
        flushall_cancels_finished_bgsave_fork, 60);
    h_add_dropall(su, "shutdown_force_exits_on_failed_save",
        shutdown_force_exits_on_failed_save, 60);
    h_add_dropall(su, "duplicated_key_refused_plain", duplicated_key_refused_plain, 60);
    h_add_dropall(su, "duplicated_key_refused_lz4", duplicated_key_refused_lz4, 60);
    return h_main(su);
}
