/* test_oom_score: oom-score-adj and oom-score-adj-values as Redis 7.0 acts
 * on them (src/oom_score.c), read from /proc/<pid>/oom_score_adj of the
 * server (INFO server process_id): untouched by default; yes/relative adds
 * the role's value to the score the server started with, absolute writes
 * it, both clamped to -1000..1000; no writes the start score back; a
 * change of role (REPLICAOF, REPLICAOF NO ONE, a replica by its config)
 * moves it; invalid values are refused. The servers inherit this
 * process's score, which is therefore the start score. Lowering a score
 * below the start needs CAP_SYS_RESOURCE: what the server answers then is
 * checked against what a child of this process is allowed. Every case
 * also runs against redis-server (VERSO_SERVER=/usr/bin/redis-server). */
#include "harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define ERR_WRITE "Failed to set current oom_score_adj. Check server logs."

static int read_adj(const char *path) {
    char buf[32] = "";
    int fd = open(path, O_RDONLY);
    ck_assert_msg(fd >= 0, "open %s", path);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    ck_assert_int_gt(n, 0);
    return atoi(buf);
}

static int write_adj(const char *path, int v) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%d\n", v);
    int fd = open(path, O_WRONLY);
    if (fd < 0) return -1;
    ssize_t n = write(fd, buf, (size_t)len);
    close(fd);
    return n == len ? 0 : -1;
}

/* The score every server starts with: this process's. */
static int start_score(void) { return read_adj("/proc/self/oom_score_adj"); }

static void adj_path(redisContext *c, char *path, size_t len) {
    long long pid = h_info_int(c, "server", "process_id");
    ck_assert_int_gt(pid, 0);
    snprintf(path, len, "/proc/%lld/oom_score_adj", pid);
}

/* Waits (5 s at most) for the server's score to be want: at startup it is
 * set before the loop starts, which may follow the first PING. */
#define expect_adj(c, want) expect_adj_at(__FILE__, __LINE__, c, want)
static void expect_adj_at(const char *file, int line, redisContext *c, int want) {
    char path[64];
    adj_path(c, path, sizeof path);
    int got = read_adj(path);
    for (long long end = h_now_ms() + h_scaled_ms(5000); got != want && h_now_ms() < end;) {
        h_sleep_ms(10);
        got = read_adj(path);
    }
    ck_assert_msg(got == want, "%s:%d: oom_score_adj %d, want %d", file, line, got, want);
}

static void expect_conf(redisContext *c, const char *name, const char *want) {
    redisReply *r = expect_array(c, 2, "CONFIG GET %s", name);
    check_bulk(r->element[1], want);
    freeReplyObject(r);
}

/* Defaults: the score is left alone; values set while oom-score-adj is no
 * change nothing. */
START_TEST(untouched_by_default)
{
    int b = start_score();
    expect_conf(h_c, "oom-score-adj", "no");
    expect_conf(h_c, "oom-score-adj-values", "0 200 800");
    expect_adj(h_c, b);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "10 20 30");
    expect_adj(h_c, b);
    expect_conf(h_c, "oom-score-adj-values", "10 20 30");
}
END_TEST

/* yes and relative: the master's value over the start score; CONFIG GET
 * says yes for both; new values apply at once; clamped at 1000. */
START_TEST(relative_adds_to_start)
{
    int b = start_score();
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "10 20 30");
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj yes");
    expect_adj(h_c, b + 10);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "15 25 35");
    expect_adj(h_c, b + 15);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj relative");
    expect_conf(h_c, "oom-score-adj", "yes");
    expect_adj(h_c, b + 15);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "2000 2000 2000");
    expect_adj(h_c, 1000);
    /* both in one command */
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s oom-score-adj yes", "7 8 9");
    expect_adj(h_c, b + 7);
}
END_TEST

/* absolute: the value itself (clamped at 1000); no writes the start score
 * back. */
START_TEST(absolute_then_no_restores)
{
    int b = start_score();
    char vals[64];
    snprintf(vals, sizeof vals, "%d %d %d", b + 5, b + 6, b + 7);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj absolute oom-score-adj-values %s", vals);
    expect_conf(h_c, "oom-score-adj", "absolute");
    expect_adj(h_c, b + 5);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "1500 0 0");
    expect_adj(h_c, 1000);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj no");
    expect_adj(h_c, b);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj no"); /* no again: nothing */
    expect_adj(h_c, b);
}
END_TEST

/* The start score is read when the server takes the score over: one
 * changed from outside meanwhile is the new base, and no restores it. */
START_TEST(base_read_when_taken_over)
{
    int b = start_score();
    char path[64];
    adj_path(h_c, path, sizeof path);
    ck_assert_int_eq(write_adj(path, b + 50 > 1000 ? 1000 : b + 50), 0); /* raising: allowed */
    int outside = read_adj(path);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s oom-score-adj yes", "10 20 30");
    expect_adj(h_c, outside + 10 > 1000 ? 1000 : outside + 10);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj no");
    expect_adj(h_c, outside);
}
END_TEST

/* The replica's value while it replicates, the master's after REPLICAOF
 * NO ONE (no master needs to answer for the role to change). */
START_TEST(role_change_moves_it)
{
    int b = start_score();
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s oom-score-adj yes", "10 20 30");
    expect_adj(h_c, b + 10);
    expect_status(h_c, "OK", "REPLICAOF 127.0.0.1 %d", h_free_port());
    expect_adj(h_c, b + 20);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "11 21 31");
    expect_adj(h_c, b + 21);
    expect_status(h_c, "OK", "REPLICAOF NO ONE");
    expect_adj(h_c, b + 11);
    /* with no, a role change leaves it */
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj no");
    expect_status(h_c, "OK", "REPLICAOF 127.0.0.1 %d", h_free_port());
    expect_adj(h_c, b);
    expect_status(h_c, "OK", "REPLICAOF NO ONE");
}
END_TEST

/* Set from the start: a master and a replica given everything on their
 * command line and in a config file. */
START_TEST(from_startup)
{
    int b = start_score();
    srv *m = h_srv_start("--oom-score-adj yes --oom-score-adj-values '10 20 30'");
    redisContext *mc = srv_connect(m);
    expect_adj(mc, b + 10);
    char text[256];
    snprintf(text, sizeof text, "replicaof 127.0.0.1 %d\noom-score-adj relative\n"
             "oom-score-adj-values 10 20 30\n", m->port);
    srv *r = h_srv_start_conf(0, text, NULL);
    redisContext *rc = srv_connect(r);
    expect_adj(rc, b + 20);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 10000);
    expect_adj(rc, b + 20); /* the link up changes nothing */
    expect_status(rc, "OK", "REPLICAOF NO ONE");
    expect_adj(rc, b + 10);
    redisFree(rc);
    redisFree(mc);
}
END_TEST

/* Invalid values are refused with Redis's texts and change nothing. */
START_TEST(invalid_refused)
{
    static const struct {
        const char *name, *value, *reason;
    } bad[] = {
        {"oom-score-adj-values", "1 2", "wrong number of arguments"},
        {"oom-score-adj-values", "1 2 3 4", "wrong number of arguments"},
        {"oom-score-adj-values", "0 0 2001",
         "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
        {"oom-score-adj-values", "-2001 0 0",
         "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
        {"oom-score-adj-values", "1 2 x",
         "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
        {"oom-score-adj", "maybe",
         "argument(s) must be one of the following: no, yes, relative, absolute"},
    };
    char want[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(want, sizeof want,
                 "ERR CONFIG SET failed (possibly related to argument '%s') - %s", bad[i].name,
                 bad[i].reason);
        expect_error(h_c, want, "CONFIG SET %s %s", bad[i].name, bad[i].value);
    }
    expect_conf(h_c, "oom-score-adj", "no");
    expect_conf(h_c, "oom-score-adj-values", "0 200 800");
    expect_adj(h_c, start_score());
}
END_TEST

/* Whether this process's children may lower their score to -1000 (root
 * with CAP_SYS_RESOURCE): the server, another child, may then too. */
static int may_lower(void) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) _exit(write_adj("/proc/self/oom_score_adj", -1000) == 0 ? 0 : 1);
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* -1000: written where the process may lower its score; elsewhere the
 * write fails, CONFIG SET answers Redis's error and the old values stay
 * in force. */
START_TEST(lowering_needs_privilege)
{
    int b = start_score();
    if (b == -1000) return; /* nothing lower to try */
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s", "-1000 0 0");
    if (may_lower()) {
        expect_status(h_c, "OK", "CONFIG SET oom-score-adj absolute");
        expect_adj(h_c, -1000);
        expect_status(h_c, "OK", "CONFIG SET oom-score-adj no");
        expect_adj(h_c, b);
        return;
    }
    expect_error(h_c, "ERR CONFIG SET failed (possibly related to argument 'oom-score-adj') - "
                      ERR_WRITE, "CONFIG SET oom-score-adj absolute");
    expect_conf(h_c, "oom-score-adj", "no");
    expect_adj(h_c, b);
    ck_assert(srv_log_wait(h_srv, "Unable to write oom_score_adj: Permission denied", 5000));
    /* in force with values it may write, then values it may not: refused,
     * the old ones written again */
    char vals[64];
    snprintf(vals, sizeof vals, "%d 0 0", b + 3);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj-values %s oom-score-adj absolute", vals);
    expect_adj(h_c, b + 3);
    expect_error(h_c, "ERR CONFIG SET failed (possibly related to argument "
                      "'oom-score-adj-values') - " ERR_WRITE,
                 "CONFIG SET oom-score-adj-values %s", "-1000 0 0");
    snprintf(vals, sizeof vals, "%d 0 0", b + 3);
    expect_conf(h_c, "oom-score-adj-values", vals);
    expect_adj(h_c, b + 3);
    expect_status(h_c, "OK", "CONFIG SET oom-score-adj no");
    expect_adj(h_c, b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("oom_score");
    TCase *tc = tcase_create("oom_score");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, untouched_by_default);
    tcase_add_test(tc, relative_adds_to_start);
    tcase_add_test(tc, absolute_then_no_restores);
    tcase_add_test(tc, base_read_when_taken_over);
    tcase_add_test(tc, role_change_moves_it);
    tcase_add_test(tc, invalid_refused);
    tcase_add_test(tc, lowering_needs_privilege);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "from_startup", from_startup, 60);
    return h_main(s);
}
