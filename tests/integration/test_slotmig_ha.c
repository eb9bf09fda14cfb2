/* test_slotmig_ha: atomic slot migration (cluster/slotmig*.c) in a cluster
 * with replicas, and its failures that leave both nodes alive or take the
 * source away.
 *
 * Each test builds five verso nodes (node timeout 1 s):
 *   A  primary, slots 0-8191         A' replica of A
 *   B  primary, slots 8192-12287     B' replica of B
 *   C  primary, slots 12288-16383
 * and moves slots 0-4095 from A to B.
 *   replicas_follow   after the handoff B' holds the moved keys, A' none of
 *                     them; every node sees B as their owner
 *   link_cut          the import link killed on B (CLIENT KILL) during the
 *                     snapshot, both nodes alive: the job fails on both,
 *                     A (and A') keep the slots and every key, B and B'
 *                     drop what B loaded
 *   source_killed     A killed with -9 during the snapshot: A' is elected
 *                     and owns the slots with every key; B and B' drop the
 *                     import
 *   source_demoted    CLUSTER FAILOVER TAKEOVER on A' during the snapshot:
 *                     A, now a replica, ends the export; A' owns the slots
 *                     with every key, B drops the import
 *   target_killed     B killed with -9 during the snapshot, once B' has
 *                     part of the import: B' is elected
 *                     and drops the part of the import it replicated (the
 *                     slots were staged: CLUSTER SYNCSLOTS STAGE); A keeps
 *                     the slots and every key */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "keyslot.h"

#define NN 5
enum { A, B, C, A2, B2 };
#define MOVE_HI 4095 /* slots 0..MOVE_HI move from A to B */
#define ARGS                                                                          \
    "--cluster-enabled yes --cluster-node-timeout 1000 " \
    "--repl-diskless-sync-delay 0 --appendonly no"

static srv *N[NN];
static char id[NN][41];

static redisContext *conn(int i) { return srv_connect(N[i]); }

static int nodes_line_has(int i, int j, const char *what) {
    redisContext *c = conn(i);
    redisReply *r = cmd(c, "CLUSTER NODES");
    int has = 0;
    if (r->type == REDIS_REPLY_STRING)
        for (char *l = strtok(r->str, "\n"); l && !has; l = strtok(NULL, "\n"))
            has = !strncmp(l, id[j], 40) && strstr(l, what);
    freeReplyObject(r);
    redisFree(c);
    return has;
}

static int state_ok(int i) {
    redisContext *c = conn(i);
    redisReply *r = cmd(c, "CLUSTER INFO");
    int ok = r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
    freeReplyObject(r);
    redisFree(c);
    return ok;
}

#define WAIT_FOR(cond, ms, ...)                                               \
    do {                                                                      \
        long long until_ = h_now_ms() + h_scaled_ms(ms);                      \
        while (!(cond)) {                                                     \
            ck_assert_msg(h_now_ms() < until_, __VA_ARGS__);                  \
            h_sleep_ms(50);                                                   \
        }                                                                     \
    } while (0)

/* b2_args: B's replica's own arguments after ARGS (NULL: none). */
static void build(const char *b2_args) {
    h_srv_spec spec[NN];
    static char b2[256];
    snprintf(b2, sizeof b2, "%s %s", ARGS, b2_args ? b2_args : "");
    for (int i = 0; i < NN; i++) spec[i] = (h_srv_spec){0, i == B2 ? b2 : ARGS};
    h_srv_start_all(NN, spec, N);
    for (int i = 0; i < NN; i++) {
        redisContext *c = conn(i);
        redisReply *r = cmd(c, "CLUSTER MYID");
        snprintf(id[i], sizeof id[i], "%s", r->str);
        freeReplyObject(r);
        if (i != A) expect_status(c, "OK", "CLUSTER MEET 127.0.0.1 %d", N[A]->port);
        redisFree(c);
    }
    static const int lo[3] = {0, 8192, 12288}, hi[3] = {8191, 12287, 16383};
    for (int i = A; i <= C; i++) {
        redisContext *c = conn(i);
        expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE %d %d", lo[i], hi[i]);
        redisFree(c);
    }
    for (int i = 0; i < NN; i++)
        for (int j = 0; j < NN; j++)
            WAIT_FOR(nodes_line_has(i, j, "master"), 15000, "node %d does not know node %d", i, j);
    redisContext *c = conn(A2);
    expect_status(c, "OK", "CLUSTER REPLICATE %s", id[A]);
    redisFree(c);
    c = conn(B2);
    expect_status(c, "OK", "CLUSTER REPLICATE %s", id[B]);
    redisFree(c);
    for (int i = 0; i < NN; i++)
        WAIT_FOR(nodes_line_has(i, A2, "slave") && nodes_line_has(i, B2, "slave") && state_ok(i),
                 20000, "node %d does not see both replicas, or its state is not ok", i);
}

/* Writes n keys of A's slots (values of vsize bytes) and waits for A' to
 * have them; returns how many are in the moving slots. */
static long long fill(int n, int vsize) {
    redisContext *c = conn(A);
    char *val = malloc((size_t)vsize + 1);
    memset(val, 'v', (size_t)vsize);
    val[vsize] = '\0';
    long long moving = 0, sent = 0;
    for (int i = 0; sent < n; i++) {
        char key[32];
        int len = snprintf(key, sizeof key, "key:%d", i);
        unsigned s = key_hash_slot(key, (size_t)len);
        if (s > 8191) continue;
        moving += s <= MOVE_HI;
        redisAppendCommand(c, "SET %s %s", key, val);
        if (++sent % 1000 == 0 || sent == n)
            for (long long k = (sent - 1) / 1000 * 1000; k < sent; k++) {
                redisReply *r;
                ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
                ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
                freeReplyObject(r);
            }
    }
    expect_int(c, 1, "WAIT 1 10000");
    free(val);
    redisFree(c);
    return moving;
}

static long long count_slots(int i, int lo, int hi) {
    redisContext *c = conn(i);
    long long n = 0;
    for (int s = lo; s <= hi; s++) redisAppendCommand(c, "CLUSTER COUNTKEYSINSLOT %d", s);
    for (int s = lo; s <= hi; s++) {
        redisReply *r;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        n += r->integer;
        freeReplyObject(r);
    }
    redisFree(c);
    return n;
}

#define WAIT_COUNT(i, lo, hi, want, ms)                                                   \
    WAIT_FOR(count_slots(i, lo, hi) == (want), ms, "node %d: keys in %d-%d: %lld, want %lld", \
             i, lo, hi, count_slots(i, lo, hi), (long long)(want))

/* The newest migration's state on node i ("" when none). */
static void job_state(int i, char *buf, size_t cap) {
    redisContext *c = conn(i);
    redisReply *r = cmd(c, "CLUSTER GETSLOTMIGRATIONS");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    buf[0] = '\0';
    if (r->elements) {
        const redisReply *v = h_map_field(r->element[0], "state");
        snprintf(buf, cap, "%s", v && v->str ? v->str : "");
    }
    freeReplyObject(r);
    redisFree(c);
}

static int job_ended(int i, const char *want) {
    char st[64];
    job_state(i, st, sizeof st);
    return !strcmp(st, want);
}

static void migrate(void) {
    redisContext *c = conn(A);
    expect_status(c, "OK", "CLUSTER MIGRATESLOTS SLOTSRANGE 0 %d NODE %s", MOVE_HI, id[B]);
    redisFree(c);
}

/* Starts the migration and holds it in its snapshot: B is stopped
 * (SIGSTOP) while far more than the sockets hold is still to come. */
static void migrate_held(void) {
    migrate();
    long long until = h_now_ms() + h_scaled_ms(10000);
    while (!job_ended(A, "snapshotting")) {
        ck_assert_msg(h_now_ms() < until, "the snapshot did not start");
        h_sleep_ms(2);
    }
    ck_assert_int_eq(kill(N[B]->pid, SIGSTOP), 0);
    h_sleep_ms(300);
    char st[64];
    job_state(A, st, sizeof st);
    ck_assert_str_eq(st, "snapshotting");
}

static void b_resume(void) { ck_assert_int_eq(kill(N[B]->pid, SIGCONT), 0); }

/* The slots stayed at A's side (owner: node i), every key with them; B
 * and B' hold none of their keys. Node dead (or -1) is not asked. */
static void failed_safe(int owner, long long moving, int n, int dead) {
    if (dead != B) {
        WAIT_FOR(job_ended(B, "failed"), 20000, "the import did not fail on B");
        WAIT_COUNT(B, 0, MOVE_HI, 0, 20000);
    }
    WAIT_COUNT(B2, 0, MOVE_HI, 0, 20000);
    ck_assert_int_eq(count_slots(owner, 0, MOVE_HI), moving);
    /* B, stopped past the node timeout, was failed: the state is ok again
     * once its FAIL is cleared */
    WAIT_FOR(state_ok(owner), 15000, "node %d: the cluster's state is not ok", owner);
    redisContext *c = conn(owner);
    expect_int(c, n, "DBSIZE");
    expect_status(c, "OK", "SET key:0 after");
    redisFree(c);
    for (int i = 0; i < NN; i++)
        if (i != dead)
            WAIT_FOR(nodes_line_has(i, owner, " 0-8191"), 10000,
                     "node %d: node %d does not own 0-8191", i, owner);
}

/* B is stopped during the held snapshots for longer than the node timeout:
 * B' must not take over (target_killed is the test where it does). */
#define B2_STAYS "--cluster-replica-no-failover yes"

START_TEST(replicas_follow) {
    build(NULL);
    long long moving = fill(20000, 100);
    migrate();
    WAIT_FOR(job_ended(A, "success"), 30000, "the migration did not succeed");
    ck_assert(job_ended(B, "success"));
    WAIT_COUNT(B2, 0, MOVE_HI, moving, 20000);
    WAIT_COUNT(A, 0, MOVE_HI, 0, 20000);
    WAIT_COUNT(A2, 0, MOVE_HI, 0, 20000);
    ck_assert_int_eq(count_slots(B, 0, MOVE_HI), moving);
    ck_assert_int_eq(count_slots(A2, 0, 8191), 20000 - moving);
    for (int i = 0; i < NN; i++)
        WAIT_FOR(nodes_line_has(i, B, " 0-4095 8192-12287") && nodes_line_has(i, A, " 4096-8191"),
                 10000, "node %d does not see the new owners", i);
    /* a read on B' (READONLY) finds a moved key */
    redisContext *c = conn(B2);
    expect_status(c, "OK", "READONLY");
    char key[32];
    for (int i = 0;; i++) {
        int len = snprintf(key, sizeof key, "key:%d", i);
        if (key_hash_slot(key, (size_t)len) <= MOVE_HI) break;
    }
    redisReply *r = cmd(c, "STRLEN %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    ck_assert_int_eq(r->integer, 100);
    freeReplyObject(r);
    redisFree(c);
}
END_TEST

START_TEST(link_cut) {
    build(B2_STAYS);
    long long moving = fill(60000, 1000);
    migrate_held();
    redisContext *k = conn(B); /* connects while B is stopped (the backlog) */
    h_send(k, "CLIENT KILL TYPE normal SKIPME yes");
    b_resume();
    redisReply *r = h_next_reply(k);
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    ck_assert_int_ge(r->integer, 1);
    freeReplyObject(r);
    redisFree(k);
    WAIT_FOR(job_ended(A, "failed"), 20000, "the export did not fail on A");
    failed_safe(A, moving, 60000, -1);
    WAIT_COUNT(A2, 0, MOVE_HI, moving, 10000);
}
END_TEST

START_TEST(source_killed) {
    build(B2_STAYS);
    long long moving = fill(60000, 1000);
    migrate_held();
    srv_kill9(N[A]);
    b_resume(); /* B's vote elects A' */
    WAIT_FOR(nodes_line_has(A2, A2, "myself,master"), 30000, "A' was not elected");
    failed_safe(A2, moving, 60000, A);
}
END_TEST

START_TEST(source_demoted) {
    build(B2_STAYS);
    long long moving = fill(60000, 1000);
    migrate_held();
    redisContext *c = conn(A2);
    expect_status(c, "OK", "CLUSTER FAILOVER TAKEOVER");
    redisFree(c);
    WAIT_FOR(nodes_line_has(A, A, "myself,slave"), 20000, "A did not become a replica");
    WAIT_FOR(job_ended(A, "failed"), 20000, "the export did not end on A");
    b_resume();
    failed_safe(A2, moving, 60000, -1);
    WAIT_COUNT(A, 0, MOVE_HI, moving, 20000); /* A, a replica now, has them all */
}
END_TEST

START_TEST(target_killed) {
    build(NULL);
    long long moving = fill(60000, 1000);
    migrate();
    long long until = h_now_ms() + h_scaled_ms(10000);
    while (count_slots(B2, 0, MOVE_HI) == 0) /* B' has part of the import */
        ck_assert_msg(h_now_ms() < until, "B' got none of the import");
    srv_kill9(N[B]);
    char st[64];
    job_state(A, st, sizeof st);
    ck_assert_msg(!strcmp(st, "snapshotting") || !strcmp(st, "failed"), "state %s", st);
    WAIT_FOR(job_ended(A, "failed"), 20000, "the export did not fail on A");
    WAIT_FOR(nodes_line_has(B2, B2, "myself,master"), 30000, "B' was not elected");
    /* B' replicated part of the import: as a primary it drops it */
    failed_safe(A, moving, 60000, B);
    WAIT_COUNT(A2, 0, MOVE_HI, moving, 10000);
    redisContext *c = conn(B2);
    expect_int(c, 0, "CLUSTER COUNTKEYSINSLOT 0");
    redisFree(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("slotmig_ha");
    h_add_dropall(s, "replicas_follow", replicas_follow, 120);
    h_add_dropall(s, "link_cut", link_cut, 120);
    h_add_dropall(s, "source_killed", source_killed, 120);
    h_add_dropall(s, "source_demoted", source_demoted, 120);
    h_add_dropall(s, "target_killed", target_killed, 120);
    return h_main(s);
}
