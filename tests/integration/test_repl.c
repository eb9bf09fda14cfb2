/* test_repl: replication across topologies, with any server binary as the
 * one under test (srv_start: verso, or redis-server with VERSO_SERVER) and
 * Redis's own redis-server as the peer (srv_start_redis):
 *
 *   under test -> redis-server, under test -> under test, redis-server ->
 *   under test, the same with a disk-backed payload ($<len>) loaded with
 *   repl-diskless-load swapdb, and a chain of three under test: each a full
 *   sync under a write load (the proxy slows the payload down so that the
 *   writes overlap it), a partial resync after the link (through proxy.c)
 *   is cut while the writes go on (the upstream's INFO stats
 *   sync_partial_ok grows, sync_full does not), then the datasets compared
 *   key by key (repl_util.c);
 *   a promoted replica serving its old primary a partial resync (PSYNC2);
 *   a primary restarted on its RDB continuing its history (its replicas,
 *   and a replica restarted on its own RDB, resume with +CONTINUE), also
 *   across the two servers (each loads the other's repl-id/repl-offset);
 *   FAILOVER both ways between the one under test and redis-server (and
 *   between two under test), its errors, wait, timeout, ABORT, FORCE and a
 *   refused PSYNC;
 *   WAIT's count; min-replicas-to-write; redis-cli --rdb (checked by
 *   redis-check-rdb), --functions-rdb (REPLCONF rdb-filter-only) and
 *   --replica; the proxy itself. */
#include "harness.h"
#include "proxy.h"
#include "repl_util.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every node: syncs start at once, a backlog that holds a cut's writes,
 * timeouts short enough to notice a dead link, long enough for 2 busy
 * cores. */
#define NODE_ARGS "--repl-diskless-sync-delay 0 --repl-backlog-size 64mb --repl-timeout 20"
#define LINK_MS 60000   /* a sync or reconnect, at most (scaled) */
#define SYNC_RATE (1u << 20) /* bytes/s to a replica during its full sync */

static void replicaof(redisContext *c, int port)
{
    expect_status(c, "OK", "REPLICAOF 127.0.0.1 %d", port);
}

static void wait_link(redisContext *c, const char *status)
{
    h_wait_info_str(c, "replication", "master_link_status", status, LINK_MS);
}

static long long info_stat(redisContext *c, const char *field)
{
    char *info = h_info(c, "stats");
    char v[64];
    int found = h_info_field(info, field, v, sizeof v);
    free(info);
    ck_assert_msg(found, "INFO stats has no %s", field);
    return strtoll(v, NULL, 10);
}

/* Cuts the link of replica rep (to upstream up, through px) while the
 * writer goes on, restores it: the replica resumes with a partial resync
 * (up's sync_partial_ok grows, sync_full does not). */
static void cut_and_resume(proxy *px, redisContext *up, redisContext *rep, ru_writer *w)
{
    long long full0 = info_stat(up, "sync_full");
    long long ok0 = info_stat(up, "sync_partial_ok");
    unsigned long refused0 = proxy_refused(px);
    proxy_cut(px);
    wait_link(rep, "down");
    writer_wait_progress(w, 3000, 30000);
    /* the replica keeps trying while the link is cut */
    long long deadline = h_now_ms() + h_scaled_ms(20000);
    while (proxy_refused(px) == refused0 && h_now_ms() < deadline)
        h_sleep_ms(20);
    ck_assert_msg(proxy_refused(px) > refused0, "the replica did not retry during the cut");
    proxy_restore(px);
    wait_link(rep, "up");
    h_wait_info_at(__FILE__, __LINE__, up, "stats", "sync_partial_ok", H_GE, ok0 + 1, LINK_MS);
    ck_assert_int_eq(info_stat(up, "sync_full"), full0);
    writer_wait_progress(w, 2000, 30000);
}

/* Full sync of r from p under a write load, cut and partial resync, same
 * data. p and r are already started. */
static void run_pair(srv *p, srv *r)
{
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    ru_preload(pc, 5);
    proxy *px = proxy_start(p->port);
    ru_writer *w = writer_start(p->port);
    writer_wait_progress(w, 2000, 30000);
    long long full0 = info_stat(pc, "sync_full");
    /* the payload takes seconds, the writes go on meanwhile */
    proxy_throttle(px, SYNC_RATE);
    long ops0 = atomic_load(&w->ops);
    replicaof(rc, proxy_port(px));
    wait_link(rc, "up");
    long during = atomic_load(&w->ops) - ops0;
    proxy_throttle(px, 0);
    ck_assert_int_gt(during, 1000);
    ck_assert_int_eq(info_stat(pc, "sync_full"), full0 + 1);
    h_wait_info(pc, "replication", "connected_slaves", 1, LINK_MS);
    writer_wait_progress(w, 3000, 30000);

    cut_and_resume(px, pc, rc, w);

    long ops = writer_stop(w);
    h_sleep_ms(300); /* the writer's ms TTLs are over */
    ru_wait_caught_up(pc, rc, LINK_MS);
    size_t n = ru_same_data(pc, rc, h_scaled_ms(5000));
    ck_assert_uint_gt(n, 20000);
    ck_assert_int_gt(ops, 10000);
    /* the payload and the stream counted apart from the clients' traffic,
     * on both sides (Redis 7.0's total_net_repl_*_bytes) */
    ck_assert_int_gt(info_stat(pc, "total_net_repl_output_bytes"), 200000);
    ck_assert_int_gt(info_stat(rc, "total_net_repl_input_bytes"), 200000);
    expect_error_prefix(rc, "READONLY", "SET x y");
    proxy_stop(px);
    redisFree(pc);
    redisFree(rc);
}

START_TEST(under_test_to_redis_replica) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS}, {1, NODE_ARGS} }, n);
    srv *p = n[0], *r = n[1];
    run_pair(p, r);
}
END_TEST

START_TEST(under_test_to_under_test_replica) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *p = n[0], *r = n[1];
    run_pair(p, r);
}
END_TEST

START_TEST(redis_primary_to_under_test_replica) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {1, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *p = n[0], *r = n[1];
    run_pair(p, r);
}
END_TEST

/* The payload through a file on both sides: the primary writes a $<len>
 * payload (repl-diskless-sync no), the replica loads it from the socket
 * into a spare dataset (repl-diskless-load swapdb) or from a file. */
START_TEST(disk_backed_payload) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS " --repl-diskless-sync no"}, {0, NODE_ARGS " --repl-diskless-load swapdb"} }, n);
    srv *p = n[0], *r = n[1];
    run_pair(p, r);
}
END_TEST

START_TEST(disk_backed_payload_to_redis_replica) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS " --repl-diskless-sync no"}, {1, NODE_ARGS " --repl-diskless-load swapdb"} }, n);
    srv *p = n[0], *r = n[1];
    run_pair(p, r);
}
END_TEST

/* A -> B -> C, each link through a proxy: C gets A's stream through B (the
 * same offsets), each link resumes partially after a cut. */
START_TEST(chain_of_three) {
    srv *n[3];
    h_srv_start_all(3, (h_srv_spec[]){ {0, NODE_ARGS}, {0, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *a = n[0], *b = n[1], *c = n[2];
    redisContext *ac = srv_connect(a), *bc = srv_connect(b), *cc = srv_connect(c);
    ru_preload(ac, 3);
    proxy *pab = proxy_start(a->port), *pbc = proxy_start(b->port);
    ru_writer *w = writer_start(a->port);
    writer_wait_progress(w, 2000, 30000);
    replicaof(bc, proxy_port(pab));
    wait_link(bc, "up");
    replicaof(cc, proxy_port(pbc));
    wait_link(cc, "up");
    ck_assert_int_eq(info_stat(bc, "sync_full"), 1);
    writer_wait_progress(w, 3000, 30000);

    cut_and_resume(pab, ac, bc, w);
    /* C rode B's resync out without a full sync of its own */
    wait_link(cc, "up");
    ck_assert_int_eq(info_stat(bc, "sync_full"), 1);
    cut_and_resume(pbc, bc, cc, w);

    writer_stop(w);
    h_sleep_ms(300);
    ru_wait_caught_up(ac, cc, LINK_MS);
    ru_wait_caught_up(ac, bc, LINK_MS);
    /* offsets agree along the chain */
    ck_assert_int_eq(h_info_int(bc, "replication", "master_repl_offset"),
                     h_info_int(ac, "replication", "master_repl_offset"));
    ck_assert_uint_gt(ru_same_data(ac, bc, h_scaled_ms(5000)), 10000);
    ck_assert_uint_gt(ru_same_data(ac, cc, h_scaled_ms(5000)), 10000);
    expect_error_prefix(cc, "READONLY", "SET x y");
    proxy_stop(pab);
    proxy_stop(pbc);
    redisFree(ac);
    redisFree(bc);
    redisFree(cc);
}
END_TEST

/* A sub-replica's full sync from a replica starts in the middle of the
 * primary's stream, after its last SELECT: the payload must tell the
 * database the stream is on (Redis: the repl-stream-db aux field), or the
 * sub-replica applies what follows in db 0. */
START_TEST(sub_replica_gets_stream_db) {
    srv *n[3];
    h_srv_start_all(3, (h_srv_spec[]){ {0, NODE_ARGS}, {0, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *a = n[0], *b = n[1], *c = n[2];
    redisContext *ac = srv_connect(a), *bc = srv_connect(b), *cc = srv_connect(c);
    replicaof(bc, a->port);
    wait_link(bc, "up");
    expect_status(ac, "OK", "SELECT 2");
    expect_status(ac, "OK", "SET x 1"); /* the stream: SELECT 2, SET x 1 */
    ru_wait_caught_up(ac, bc, LINK_MS);
    replicaof(cc, b->port);
    wait_link(cc, "up");
    expect_status(ac, "OK", "SET y 2"); /* no SELECT: the stream is on db 2 */
    ru_wait_caught_up(ac, cc, LINK_MS);
    expect_status(cc, "OK", "SELECT 2");
    expect_bulk(cc, "1", "GET x");
    expect_bulk(cc, "2", "GET y");
    expect_status(cc, "OK", "SELECT 0");
    expect_int(cc, 0, "DBSIZE");
    redisFree(ac);
    redisFree(bc);
    redisFree(cc);
}
END_TEST

/* PSYNC2: the replica is promoted (REPLICAOF NO ONE) and its old primary
 * follows it: a partial resync on the promoted one's replid2, the data
 * written on the old primary before the switch kept. */
START_TEST(promoted_replica_serves_partial_resync) {
    /* no PING into the stream between the catch-up and the promotion */
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS " --repl-ping-replica-period 60"}, {0, NODE_ARGS " --repl-ping-replica-period 60"} }, n);
    srv *p = n[0], *r = n[1];
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    ru_preload(pc, 1);
    replicaof(rc, p->port);
    wait_link(rc, "up");
    expect_status(pc, "OK", "SET last-before-switch 1");
    ru_wait_caught_up(pc, rc, LINK_MS);
    char old_id[64];
    char *info = h_info(pc, "replication");
    ck_assert(h_info_field(info, "master_replid", old_id, sizeof old_id));
    free(info);
    expect_status(rc, "OK", "REPLICAOF NO ONE");
    info = h_info(rc, "replication");
    char id2[64];
    ck_assert(h_info_field(info, "master_replid2", id2, sizeof id2));
    free(info);
    ck_assert_str_eq(id2, old_id);
    expect_status(rc, "OK", "SET first-after-switch 2");
    long long ok0 = info_stat(rc, "sync_partial_ok");
    replicaof(pc, r->port);
    wait_link(pc, "up");
    h_wait_info_at(__FILE__, __LINE__, rc, "stats", "sync_partial_ok", H_GE, ok0 + 1, LINK_MS);
    ck_assert_int_eq(info_stat(rc, "sync_full"), 0);
    ru_wait_caught_up(rc, pc, LINK_MS);
    expect_bulk(pc, "2", "GET first-after-switch");
    ru_same_data(rc, pc, h_scaled_ms(5000));
    redisFree(pc);
    redisFree(rc);
}
END_TEST

/* SHUTDOWN SAVE of server s (it must exit), then a server on the data dir
 * of home (s itself, or the server s was started on the dir of): the
 * under-test binary, or Redis's own when redis. */
static srv *restart_on_dir(srv *s, const srv *home, int redis, const char *extra)
{
    redisContext *c = srv_connect(s);
    redisReply *bye = redisCommand(c, "SHUTDOWN SAVE");
    if (bye)
        freeReplyObject(bye);
    redisFree(c);
    ck_assert_msg(srv_wait_exit(s, h_scaled_ms(20000)), "SHUTDOWN SAVE: still running");
    srv *n = redis ? h_srv_start_redis(NODE_ARGS " --dir '%s' %s", home->dir, extra)
                   : h_srv_start_on(home, NODE_ARGS " %s", extra);
    redisContext *nc = srv_connect(n);
    h_wait_loaded(nc, 20000);
    redisFree(nc);
    return n;
}

/* Writes in db 0 and db 2 (the stream ends on db 2), each replica caught
 * up with all of it. */
static void writes_then_caught_up(redisContext *pc, redisContext **reps, int n, int round)
{
    expect_status(pc, "OK", "SET round:%d a", round);
    expect_status(pc, "OK", "SELECT 2");
    expect_int(pc, 1, "RPUSH list:%d x", round);
    expect_status(pc, "OK", "SELECT 0");
    expect_int(pc, 1, "HSET h:%d f v", round);
    expect_status(pc, "OK", "SELECT 2");
    expect_status(pc, "OK", "SET last %d", round);
    for (int i = 0; i < n; i++)
        ru_wait_caught_up(pc, reps[i], LINK_MS);
}

/* The primary restarts on its own RDB (SHUTDOWN saves it with its repl-id,
 * repl-offset and repl-stream-db): its replicas, one under test and one
 * redis-server, resume with a partial resync (sync_partial_ok counts both,
 * sync_full stays 0) and follow the stream on; then the under-test replica
 * restarts on its own RDB (its master's history) and resumes the same way. */
START_TEST(restarted_primary_continues_its_history) {
    srv *n[3];
    h_srv_start_all(3, (h_srv_spec[]){ {0, NODE_ARGS}, {0, NODE_ARGS}, {1, NODE_ARGS} }, n);
    srv *p = n[0], *r1 = n[1], *r2 = n[2];
    redisContext *pc = srv_connect(p), *reps[2] = { srv_connect(r1), srv_connect(r2) };
    for (int i = 0; i < 2; i++)
        replicaof(reps[i], p->port);
    for (int i = 0; i < 2; i++)
        wait_link(reps[i], "up");
    writes_then_caught_up(pc, reps, 2, 1);
    char id[64];
    char *info = h_info(pc, "replication");
    ck_assert(h_info_field(info, "master_replid", id, sizeof id));
    free(info);
    long long offset = h_info_int(pc, "replication", "master_repl_offset");
    redisFree(pc);

    p = restart_on_dir(p, p, 0, "");
    pc = srv_connect(p);
    /* the saved history is its second one, continued from the same offset */
    info = h_info(pc, "replication");
    char id2[64], id1[64];
    ck_assert(h_info_field(info, "master_replid2", id2, sizeof id2));
    ck_assert(h_info_field(info, "master_replid", id1, sizeof id1));
    free(info);
    ck_assert_str_eq(id2, id);
    ck_assert_str_ne(id1, id);
    /* (a SHUTDOWN may add a REPLCONF GETACK to the stream before saving) */
    long long second = h_info_int(pc, "replication", "second_repl_offset");
    ck_assert_int_ge(second, offset + 1);
    ck_assert_int_eq(h_info_int(pc, "replication", "master_repl_offset"), second - 1);
    for (int i = 0; i < 2; i++)
        replicaof(reps[i], p->port);
    for (int i = 0; i < 2; i++)
        wait_link(reps[i], "up");
    h_wait_info_at(__FILE__, __LINE__, pc, "stats", "sync_partial_ok", H_EQ, 2, LINK_MS);
    ck_assert_int_eq(info_stat(pc, "sync_full"), 0);
    writes_then_caught_up(pc, reps, 2, 2);
    for (int i = 0; i < 2; i++)
        ru_same_data(pc, reps[i], h_scaled_ms(5000));

    /* the under-test replica restarts on its own RDB, following p from
     * the start (a server started as a master makes the loaded history its
     * own second one: its REPLICAOF then asks for a full sync, as Redis) */
    long long ok = info_stat(pc, "sync_partial_ok");
    redisFree(reps[0]);
    char follow[64];
    snprintf(follow, sizeof follow, "--replicaof 127.0.0.1 %d", p->port);
    srv *r1b = restart_on_dir(r1, r1, 0, follow);
    reps[0] = srv_connect(r1b);
    wait_link(reps[0], "up");
    h_wait_info_at(__FILE__, __LINE__, pc, "stats", "sync_partial_ok", H_EQ, ok + 1, LINK_MS);
    ck_assert_int_eq(info_stat(pc, "sync_full"), 0);
    writes_then_caught_up(pc, reps, 2, 3);
    for (int i = 0; i < 2; i++)
        ru_same_data(pc, reps[i], h_scaled_ms(5000));
    redisFree(pc);
    redisFree(reps[0]);
    redisFree(reps[1]);
}
END_TEST

/* The saved history across the two servers: a redis-server primary's RDB
 * loaded by the server under test, which continues it for the replica; then
 * the server under test's RDB loaded by redis-server, which continues it in
 * turn. Each time the replica (under test) resumes with a partial resync. */
START_TEST(primary_history_across_servers) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {1, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *p = n[0], *home = p, *r = n[1];
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    replicaof(rc, p->port);
    wait_link(rc, "up");
    writes_then_caught_up(pc, &rc, 1, 1);
    redisFree(pc);
    for (int step = 0; step < 2; step++) {
        int to_redis = step == 1; /* under test first, then redis-server again */
        p = restart_on_dir(p, home, to_redis, "");
        pc = srv_connect(p);
        replicaof(rc, p->port);
        wait_link(rc, "up");
        h_wait_info_at(__FILE__, __LINE__, pc, "stats", "sync_partial_ok", H_EQ, 1, LINK_MS);
        ck_assert_int_eq(info_stat(pc, "sync_full"), 0);
        writes_then_caught_up(pc, &rc, 1, step + 2);
        ru_same_data(pc, rc, h_scaled_ms(5000));
        redisFree(pc);
    }
    redisFree(rc);
}
END_TEST

/* FAILOVER TO r on p (r replicates p): r becomes the primary, p its
 * replica through a partial resync (PSYNC ... FAILOVER, r's sync_full stays
 * 0); p refuses writes, r's reach p. */
static void failover_to(srv *p, srv *r)
{
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    ru_preload(pc, 1);
    replicaof(rc, p->port);
    wait_link(rc, "up");
    /* the link is up on r once it has loaded the snapshot; p counts r as
     * online (what FAILOVER needs) on r's first REPLCONF ACK, a moment later */
    long long end = h_now_ms() + h_scaled_ms(LINK_MS);
    for (;;) {
        char *info = h_info(pc, "replication");
        int online = strstr(info, "state=online") != NULL;
        free(info);
        if (online)
            break;
        ck_assert_msg(h_now_ms() < end, "the replica never got online on the primary");
        h_sleep_ms(10);
    }
    expect_status(pc, "OK", "SET before-failover 1");
    expect_status(pc, "OK", "FAILOVER TO 127.0.0.1 %d", r->port);
    h_wait_info_str(rc, "replication", "role", "master", LINK_MS);
    h_wait_info_str(pc, "replication", "role", "slave", LINK_MS);
    wait_link(pc, "up");
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", LINK_MS);
    ck_assert_int_eq(info_stat(rc, "sync_full"), 0);
    ck_assert_int_eq(info_stat(rc, "sync_partial_ok"), 1);
    expect_error(pc, "READONLY You can't write against a read only replica.", "SET x 1");
    expect_bulk(rc, "1", "GET before-failover");
    expect_status(rc, "OK", "SET after-failover 2");
    ru_wait_caught_up(rc, pc, LINK_MS);
    expect_bulk(pc, "2", "GET after-failover");
    ru_same_data(rc, pc, h_scaled_ms(5000));
    redisFree(pc);
    redisFree(rc);
}

START_TEST(failover_under_test_to_redis) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS}, {1, NODE_ARGS} }, n);
    failover_to(n[0], n[1]);
}
END_TEST

START_TEST(failover_under_test_to_under_test) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS}, {0, NODE_ARGS} }, n);
    failover_to(n[0], n[1]);
}
END_TEST

START_TEST(failover_redis_to_under_test) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {1, NODE_ARGS}, {0, NODE_ARGS} }, n);
    failover_to(n[0], n[1]);
}
END_TEST

/* FAILOVER's errors, its waiting state (writes paused, reads served) and
 * its ends: TIMEOUT without FORCE aborts, ABORT, FORCE fails over to a
 * replica that never caught up (stopped), TO any replica. p is under
 * test, its replica a redis-server. */
START_TEST(failover_errors_wait_timeout_abort_force) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS " --repl-ping-replica-period 60"}, {1, NODE_ARGS} }, n);
    srv *p = n[0], *r = n[1];
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    expect_error(pc, "ERR FAILOVER requires connected replicas.", "FAILOVER");
    expect_error(pc, "ERR No failover in progress.", "FAILOVER ABORT");
    expect_error(pc, "ERR FAILOVER timeout must be greater than 0", "FAILOVER TIMEOUT 0");
    expect_error(pc, "ERR syntax error", "FAILOVER ABORT TIMEOUT 10");
    expect_error(pc, "ERR syntax error", "FAILOVER TIMEOUT 10 TIMEOUT 10");
    expect_error(pc, "ERR value is not an integer or out of range", "FAILOVER TO x y");
    replicaof(rc, p->port);
    wait_link(rc, "up");
    expect_error(rc, "ERR FAILOVER is not valid when server is a replica.", "FAILOVER");
    expect_error(pc, "ERR FAILOVER target HOST and PORT is not a replica.",
                 "FAILOVER TO 127.0.0.1 %d", p->port);
    expect_error(pc, "ERR FAILOVER with force option requires both a timeout and target HOST "
                     "and IP.", "FAILOVER TO 127.0.0.1 %d FORCE", r->port);
    expect_error(pc, "ERR FAILOVER with force option requires both a timeout and target HOST "
                     "and IP.", "FAILOVER FORCE TIMEOUT 100");
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", 1000);

    /* the replica stopped, behind the stream: the failover waits */
    ck_assert_int_eq(kill(r->pid, SIGSTOP), 0);
    expect_status(pc, "OK", "SET behind 1");
    expect_status(pc, "OK", "FAILOVER TIMEOUT %d", h_scaled_ms(1500));
    h_wait_info_str(pc, "replication", "master_failover_state", "waiting-for-sync", 1000);
    expect_error(pc, "ERR FAILOVER already in progress.", "FAILOVER");
    expect_error(pc, "ERR REPLICAOF not allowed while failing over.", "REPLICAOF NO ONE");
    int fd = raw_connect(p->port);
    raw_send_str(fd, "SET paused 1\r\n");
    char buf[64];
    int closed;
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, 300, &closed), 0); /* postponed */
    expect_bulk(pc, "1", "GET behind"); /* reads are served */
    /* the timeout aborts; the postponed write runs */
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", 10000);
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, h_scaled_ms(5000), &closed), 5);
    ck_assert(!memcmp(buf, "+OK\r\n", 5));
    ck_assert(srv_log_wait(p, "Replica never caught up before timeout", 1000));

    /* ABORT while it waits */
    expect_status(pc, "OK", "FAILOVER TIMEOUT 600000");
    h_wait_info_str(pc, "replication", "master_failover_state", "waiting-for-sync", 1000);
    raw_send_str(fd, "SET paused 2\r\n");
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, 300, &closed), 0);
    expect_status(pc, "OK", "CLIENT UNPAUSE"); /* not CLIENT PAUSE's pause */
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, 300, &closed), 0);
    expect_status(pc, "OK", "FAILOVER ABORT");
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", 1000);
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, h_scaled_ms(5000), &closed), 5);
    h_wait_info_str(pc, "replication", "role", "master", 1000);

    /* FORCE: the timeout fails over anyway, to the stopped replica, which
     * takes over once it runs again */
    expect_status(pc, "OK", "FAILOVER TO 127.0.0.1 %d FORCE TIMEOUT %d", r->port,
                  h_scaled_ms(500));
    h_wait_info_str(pc, "replication", "master_failover_state", "failover-in-progress", 10000);
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    h_wait_info_str(rc, "replication", "role", "master", LINK_MS);
    wait_link(pc, "up");
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", LINK_MS);
    close(fd);
    redisFree(pc);
    redisFree(rc);
}
END_TEST

/* The target refuses PSYNC (its ACL): the failover aborts, the old
 * primary is a master again and its replica follows it again. */
START_TEST(failover_target_refuses_psync) {
    srv *n[2];
    h_srv_start_all(2, (h_srv_spec[]){ {0, NODE_ARGS}, {1, NODE_ARGS} }, n);
    srv *p = n[0], *r = n[1];
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    replicaof(rc, p->port);
    wait_link(rc, "up");
    expect_status(rc, "OK", "ACL SETUSER default -psync");
    expect_status(pc, "OK", "FAILOVER");
    ck_assert(srv_log_wait(p, "Failover target rejected psync request", h_scaled_ms(10000)));
    h_wait_info_str(pc, "replication", "role", "master", 1000);
    h_wait_info_str(pc, "replication", "master_failover_state", "no-failover", 1000);
    h_wait_info_str(rc, "replication", "role", "slave", 1000);
    wait_link(rc, "up");
    expect_status(pc, "OK", "SET after-abort 1");
    ru_wait_caught_up(pc, rc, LINK_MS);
    expect_bulk(rc, "1", "GET after-abort");
    redisFree(pc);
    redisFree(rc);
}
END_TEST

/* WAIT counts the replicas that acknowledged the client's last write. */
START_TEST(wait_counts_replicas) {
    srv *n[3];
    h_srv_start_all(3, (h_srv_spec[]){ {0, NODE_ARGS}, {1, NODE_ARGS}, {0, NODE_ARGS} }, n);
    srv *p = n[0], *r1 = n[1], *r2 = n[2];
    redisContext *pc = srv_connect(p), *c1 = srv_connect(r1), *c2 = srv_connect(r2);
    expect_int(pc, 0, "WAIT 0 100");
    replicaof(c1, p->port);
    replicaof(c2, p->port);
    wait_link(c1, "up");
    wait_link(c2, "up");
    h_wait_info(pc, "replication", "connected_slaves", 2, LINK_MS);
    expect_status(pc, "OK", "SET k v");
    expect_int(pc, 2, "WAIT 2 %d", h_scaled_ms(20000));
    expect_int(pc, 2, "WAIT 1 %d", h_scaled_ms(20000));
    long long t0 = h_now_ms();
    expect_int(pc, 2, "WAIT 3 1000");
    ck_assert_int_ge(h_now_ms() - t0, 900);
    expect_bulk(c1, "v", "GET k");
    expect_bulk(c2, "v", "GET k");

    srv_kill9(r2);
    h_wait_info(pc, "replication", "connected_slaves", 1, LINK_MS);
    expect_status(pc, "OK", "SET k2 v2");
    expect_int(pc, 1, "WAIT 2 1000");
    expect_int(pc, 1, "WAIT 1 %d", h_scaled_ms(20000));
    expect_bulk(c1, "v2", "GET k2");
    redisFree(pc);
    redisFree(c1);
    redisFree(c2);
}
END_TEST

/* SET until its reply is (refused 1) or is not (0) -NOREPLICAS. */
static void wait_writes(redisContext *c, int refused, int timeout_ms)
{
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    char last[256] = "";
    for (;;) {
        redisReply *r = cmd(c, "SET probe 1");
        int is_refused = r->type == REDIS_REPLY_ERROR;
        if (is_refused)
            ck_assert_str_eq(r->str, "NOREPLICAS Not enough good replicas to write.");
        else
            ck_assert_msg(r->type == REDIS_REPLY_STATUS, "SET: %s",
                          h_reply_str(r, last, sizeof last));
        h_reply_str(r, last, sizeof last);
        freeReplyObject(r);
        if (is_refused == refused)
            return;
        ck_assert_msg(h_now_ms() < deadline, "writes still %s after %d ms: %s",
                      refused ? "accepted" : "refused", timeout_ms, last);
        h_sleep_ms(50);
    }
}

START_TEST(min_replicas_to_write) {
    srv *p = h_srv_start(NODE_ARGS " --min-replicas-to-write 1 --min-replicas-max-lag 3");
    redisContext *pc = srv_connect(p);
    expect_error(pc, "NOREPLICAS Not enough good replicas to write.", "SET a b");
    expect_nil(pc, "GET a");
    srv *r = h_srv_start_redis(NODE_ARGS);
    redisContext *rc = srv_connect(r);
    replicaof(rc, p->port);
    wait_link(rc, "up");
    h_wait_info(pc, "replication", "min_slaves_good_slaves", 1, LINK_MS);
    expect_status(pc, "OK", "SET a b");
    /* a replica that stops acking (lag > 3 s) no longer counts */
    ck_assert_int_eq(kill(r->pid, SIGSTOP), 0);
    wait_writes(pc, 1, 30000);
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    wait_writes(pc, 0, 30000);
    /* nor one that is gone */
    srv_kill9(r);
    wait_writes(pc, 1, 30000);
    h_wait_info(pc, "replication", "connected_slaves", 0, LINK_MS);
    redisFree(pc);
    redisFree(rc);
}
END_TEST

static int keys_total(redisContext *c)
{
    int n = 0;
    for (int db = 0; db < RU_NDB; db++) {
        expect_status(c, "OK", "SELECT %d", db);
        redisReply *r = cmd(c, "DBSIZE");
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        n += (int)r->integer;
        freeReplyObject(r);
    }
    expect_status(c, "OK", "SELECT 0");
    return n;
}

/* redis-cli --rdb: a file redis-check-rdb accepts with every key, over a
 * diskless payload and a disk-backed one. */
START_TEST(redis_cli_rdb) {
    srv *p = h_srv_start(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 2);
    int total = keys_total(pc);
    const char *modes[] = { "yes", "no" };
    for (int m = 0; m < 2; m++) {
        expect_status(pc, "OK", "CONFIG SET repl-diskless-sync %s", modes[m]);
        char path[PATH_MAX + 32], port[16], *out = NULL;
        snprintf(path, sizeof path, "%s/out-%s.rdb", p->dir, modes[m]);
        snprintf(port, sizeof port, "%d", p->port);
        const char *cli[] = { "redis-cli", "-p", port, "--rdb", path, NULL };
        int st = h_run(NULL, &out, h_scaled_ms(60000), cli);
        ck_assert_msg(st == 0 && strstr(out, "Transfer finished with success"),
                      "redis-cli --rdb (diskless %s): status %d:\n%s", modes[m], st, out);
        free(out);
        const char *chk[] = { "redis-check-rdb", path, NULL };
        st = h_run(NULL, &out, h_scaled_ms(60000), chk);
        char want[64];
        snprintf(want, sizeof want, "[info] %d keys read", total);
        ck_assert_msg(st == 0 && strstr(out, "RDB looks OK") && strstr(out, want),
                      "redis-check-rdb (diskless %s, %d keys): status %d:\n%s", modes[m],
                      total, st, out);
        free(out);
    }
    redisFree(pc);
}
END_TEST

/* redis-cli --functions-rdb (REPLCONF rdb-filter-only functions, then
 * SYNC): a payload with the function libraries and no keys, which a
 * redis-server loads; the filter's errors. */
START_TEST(redis_cli_functions_rdb) {
    srv *p = h_srv_start(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 1);
    redisReply *fr = redisCommand(pc, "FUNCTION LOAD %s",
                                  "#!lua name=fnlib\n"
                                  "redis.register_function('fn1', function() return 7 end)");
    ck_assert(fr && fr->type == REDIS_REPLY_STRING && !strcmp(fr->str, "fnlib"));
    freeReplyObject(fr);
    expect_error(pc, "ERR Unsupported rdb-filter-only option: foo",
                 "REPLCONF rdb-filter-only %s", "functions foo");
    expect_error(pc, "ERR Unsupported rdb-filter-only option: foo bar",
                 "REPLCONF rdb-filter-only %s", "\"functions\" \"foo bar\"");
    expect_error(pc, "ERR Missing rdb-filter-only values", "REPLCONF rdb-filter-only %s",
                 "\"functions");
    expect_status(pc, "OK", "REPLCONF rdb-filter-only %s", "'functions'");
    expect_status(pc, "OK", "REPLCONF rdb-filter-only %s", "");
    int fd = raw_connect(p->port);
    char buf[128];
    int closed = 0;
    raw_send_str(fd, "REPLCONF rdb-filter-only functions\r\n");
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 5, h_scaled_ms(5000), &closed), 5);
    raw_send_str(fd, "SYNC\r\n");
    const char *want = "-ERR Filtered replica requires EOF capability\r\n";
    raw_read(fd, buf, sizeof buf, strlen(want), h_scaled_ms(5000), &closed);
    ck_assert_str_eq(buf, want);
    close(fd);

    char path[PATH_MAX + 32], port[16], *out = NULL;
    snprintf(path, sizeof path, "%s/functions.rdb", p->dir);
    snprintf(port, sizeof port, "%d", p->port);
    const char *cli[] = { "redis-cli", "-p", port, "--functions-rdb", path, NULL };
    int st = h_run(NULL, &out, h_scaled_ms(60000), cli);
    ck_assert_msg(st == 0 && strstr(out, "Transfer finished with success"),
                  "redis-cli --functions-rdb: status %d:\n%s", st, out);
    free(out);
    const char *chk[] = { "redis-check-rdb", path, NULL };
    st = h_run(NULL, &out, h_scaled_ms(60000), chk);
    ck_assert_msg(st == 0 && strstr(out, "RDB looks OK") && strstr(out, "[info] 0 keys read"),
                  "redis-check-rdb: status %d:\n%s", st, out);
    free(out);
    srv *l = h_srv_start_redis("--dir %s --dbfilename functions.rdb", p->dir);
    redisContext *lc = srv_connect(l);
    expect_int(lc, 0, "DBSIZE");
    expect_int(lc, 7, "FCALL fn1 0");
    redisFree(lc);
    redisFree(pc);
}
END_TEST

/* The whole file, lower-cased, contains needle (lower case)? Polled. */
static int file_wait_ci(const char *path, const char *needle, int timeout_ms)
{
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    for (;;) {
        size_t len;
        char *all = h_slurp(path, &len, 0);
        int found = 0;
        if (all) {
            for (size_t k = 0; k < len; k++)
                all[k] = (char)tolower((unsigned char)all[k]);
            found = strstr(all, needle) != NULL;
            free(all);
        }
        if (found)
            return 1;
        if (h_now_ms() >= deadline)
            return 0;
        h_sleep_ms(20);
    }
}

/* redis-cli --replica: after the payload, the stream shows each write. */
START_TEST(redis_cli_replica) {
    srv *p = h_srv_start(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    expect_status(pc, "OK", "SET before 1");
    char path[PATH_MAX + 32], port[16];
    snprintf(path, sizeof path, "%s/replica.out", p->dir);
    snprintf(port, sizeof port, "%d", p->port);
    const char *cli[] = { "redis-cli", "-p", port, "--replica", NULL };
    pid_t pid = h_spawn(cli, path);
    int synced = file_wait_ci(path, "sync done", 30000);
    if (synced) {
        expect_status(pc, "OK", "SET replmark v1");
        expect_status(pc, "OK", "SELECT 3");
        expect_int(pc, 1, "HSET replmark:h f v");
        expect_status(pc, "OK", "SELECT 0");
    }
    int set_seen = synced && file_wait_ci(path, "\"set\",\"replmark\",\"v1\"", 30000);
    int hset_seen = set_seen && file_wait_ci(path, "\"hset\",\"replmark:h\",\"f\",\"v\"", 30000);
    int select_seen = hset_seen && file_wait_ci(path, "\"select\",\"3\"", 1000);
    h_spawn_kill(pid);
    size_t len;
    char *out = h_slurp(path, &len, 0);
    ck_assert_msg(synced && set_seen && hset_seen && select_seen,
                  "redis-cli --replica (sync %d set %d hset %d select %d):\n%s", synced,
                  set_seen, hset_seen, select_seen, out ? out : "");
    free(out);
    redisFree(pc);
}
END_TEST

/* The relay itself: traffic both ways, counted; a cut ends the connection
 * and refuses new ones; a restore lets them through again. */
START_TEST(proxy_self_check) {
    srv *s = h_srv_start(NODE_ARGS);
    proxy *px = proxy_start(s->port);
    redisContext *c = redisConnect("127.0.0.1", proxy_port(px));
    ck_assert(c && !c->err);
    expect_status(c, "OK", "SET a 1");
    expect_bulk(c, "1", "GET a");
    /* a value bigger than the relay's buffers and the socket buffers */
    size_t big = 8u << 20;
    char *v = malloc(big);
    ck_assert_ptr_nonnull(v);
    for (size_t k = 0; k < big; k++)
        v[k] = (char)(k * 31 % 251);
    redisReply *r = redisCommand(c, "SET big %b", v, big);
    ck_assert(r && r->type == REDIS_REPLY_STATUS);
    freeReplyObject(r);
    r = redisCommand(c, "GET big");
    ck_assert(r && r->type == REDIS_REPLY_STRING && r->len == big);
    ck_assert(memcmp(r->str, v, big) == 0);
    freeReplyObject(r);
    free(v);
    ck_assert_uint_gt(proxy_bytes_up(px), big);
    /* the relay counts a write just after making it: the reply's last bytes
     * can be here a moment before they are counted */
    for (long long end = h_now_ms() + h_scaled_ms(2000);
         proxy_bytes_down(px) <= big && h_now_ms() < end;)
        h_sleep_ms(1);
    ck_assert_uint_gt(proxy_bytes_down(px), big);
    /* throttled to 4 MB/s, the 8 MB come back in no less than ~1 s
     * (the first second's budget goes at once) */
    proxy_throttle(px, 4u << 20);
    long long t0 = h_now_ms();
    r = redisCommand(c, "GET big");
    ck_assert(r && r->type == REDIS_REPLY_STRING && r->len == big);
    freeReplyObject(r);
    ck_assert_int_ge(h_now_ms() - t0, 900);
    proxy_throttle(px, 0);
    ck_assert_uint_eq(proxy_accepted(px), 1);
    ck_assert_uint_eq(proxy_open(px), 1);

    proxy_cut(px);
    ck_assert_uint_eq(proxy_open(px), 0);
    r = redisCommand(c, "PING");
    ck_assert_msg(r == NULL && c->err, "a command went through a cut link");
    redisFree(c);
    c = redisConnect("127.0.0.1", proxy_port(px));
    ck_assert_ptr_nonnull(c);
    r = c->err ? NULL : redisCommand(c, "PING");
    ck_assert_msg(r == NULL, "a new connection went through a cut proxy");
    redisFree(c);
    ck_assert_uint_ge(proxy_refused(px), 1);
    ck_assert_uint_eq(proxy_accepted(px), 1);

    proxy_restore(px);
    c = redisConnect("127.0.0.1", proxy_port(px));
    ck_assert(c && !c->err);
    expect_bulk(c, "1", "GET a");
    ck_assert_uint_eq(proxy_accepted(px), 2);
    redisFree(c);
    proxy_stop(px);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("repl");
    h_add_dropall(s, "proxy_self_check", proxy_self_check, 120);
    h_add_dropall(s, "under_test_to_redis_replica", under_test_to_redis_replica, 600);
    h_add_dropall(s, "under_test_to_under_test_replica", under_test_to_under_test_replica, 600);
    h_add_dropall(s, "redis_primary_to_under_test_replica", redis_primary_to_under_test_replica,
                  600);
    h_add_dropall(s, "disk_backed_payload", disk_backed_payload, 600);
    h_add_dropall(s, "disk_backed_payload_to_redis_replica", disk_backed_payload_to_redis_replica,
                  600);
    h_add_dropall(s, "chain_of_three", chain_of_three, 600);
    h_add_dropall(s, "sub_replica_gets_stream_db", sub_replica_gets_stream_db, 300);
    h_add_dropall(s, "promoted_replica_serves_partial_resync",
                  promoted_replica_serves_partial_resync, 300);
    h_add_dropall(s, "restarted_primary_continues_its_history",
                  restarted_primary_continues_its_history, 300);
    h_add_dropall(s, "primary_history_across_servers", primary_history_across_servers, 300);
    h_add_dropall(s, "failover_under_test_to_redis", failover_under_test_to_redis, 120);
    h_add_dropall(s, "failover_under_test_to_under_test", failover_under_test_to_under_test,
                  120);
    h_add_dropall(s, "failover_redis_to_under_test", failover_redis_to_under_test, 120);
    h_add_dropall(s, "failover_errors_wait_timeout_abort_force",
                  failover_errors_wait_timeout_abort_force, 120);
    h_add_dropall(s, "failover_target_refuses_psync", failover_target_refuses_psync, 120);
    h_add_dropall(s, "wait_counts_replicas", wait_counts_replicas, 300);
    h_add_dropall(s, "min_replicas_to_write", min_replicas_to_write, 300);
    h_add_dropall(s, "redis_cli_rdb", redis_cli_rdb, 300);
    h_add_dropall(s, "redis_cli_functions_rdb", redis_cli_functions_rdb, 120);
    h_add_dropall(s, "redis_cli_replica", redis_cli_replica, 300);
    return h_main(s);
}
