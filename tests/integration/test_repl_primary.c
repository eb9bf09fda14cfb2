/* test_repl_primary: verso as a primary (repl/primary.c, repl/fullsync.c).
 *
 * A redis-server 7.0 replica full-syncs from verso (forkless EOF payload,
 * the $<len> disk path, a fork save) and follows the write stream; its
 * dataset is compared with verso's key by key (per-type reads: every type
 * verso has, in several databases, with expiries). A raw-socket client
 * speaks PSYNC itself to check +FULLRESYNC, the payload, the stream bytes
 * and +CONTINUE with exactly the bytes it missed. WAIT, min-replicas-to-
 * write, INFO and ROLE are checked against verso and against a redis-server
 * primary in the same situation. SYNC through `redis-cli --rdb` gives a
 * file redis-check-rdb accepts. Shared saves (delay, max-replicas), writes
 * and a FLUSHALL during a sync, a replica gone mid-payload, keepalives,
 * pings, timeouts, the replica output limit, BGSAVE vs sync, SHUTDOWN with
 * a stuck payload, SHUTDOWN and SIGTERM waiting for a lagging replica
 * (shutdown-timeout, ABORT, NOW), and a restarted redis-server replica's
 * partial resync.
 * The data sets and the comparison are in repl_data.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "repl_data.h"

/* A redis-server replica of p, synced (link up). */
static srv *start_redis_replica(srv *p, redisContext **rc) {
    srv *r = srv_start_redis("--replicaof 127.0.0.1 %d", p->port);
    *rc = srv_connect(r);
    h_wait_info_str(*rc, "replication", "master_link_status", "up", 30000);
    return r;
}

/* The primary's stream reached the replica: WAIT for its ack. */
static void wait_replica(redisContext *pc) {
    expect_int(pc, 1, "WAIT 1 %d", h_scaled_ms(10000));
}

/* Full sync to a redis-server replica, then the stream; extra is the
 * primary's configuration (forkless diskless, disk, fork). */
static void sync_and_follow(const char *extra, const char *log_says) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 %s", extra);
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    redisContext *rc;
    srv *r = start_redis_replica(p, &rc);
    long long n = repl_compare_datasets(pc, rc);
    ck_assert_int_eq(n, 2 * (100 + 1 + 5 + 4));
    ck_assert_msg(srv_log_wait(p, log_says, 5000), "the log does not say '%s'", log_says);
    repl_mutate(pc);
    repl_populate(pc, "b");
    wait_replica(pc);
    repl_compare_datasets(pc, rc);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}

START_TEST(full_sync_forkless_eof_then_stream) {
    sync_and_follow("", "Streamed RDB transfer with replica");
}
END_TEST

START_TEST(full_sync_disk_path) { sync_and_follow("--repl-diskless-sync no", "target: disk"); }
END_TEST

START_TEST(full_sync_fork_method) { sync_and_follow("--bgsave-method fork", "Replication save started by pid"); }
END_TEST

START_TEST(full_sync_disk_path_fork) {
    sync_and_follow("--repl-diskless-sync no --bgsave-method fork", "target: disk");
}
END_TEST

/* With the AOF on, both consumers get every write; a rewrite and a sync
 * wait for each other. */
START_TEST(full_sync_with_aof) {
    sync_and_follow("--appendonly yes --appendfsync always", "Streamed RDB transfer with replica");
}
END_TEST

/* Writes go on while the payload is sent (a slow save: rdb-key-save-delay),
 * a FLUSHALL among them: the replica ends equal to the primary. */
START_TEST(full_sync_under_writes_and_flushall) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --rdb-key-save-delay 5000");
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    srv *r = srv_start_redis("--replicaof 127.0.0.1 %d", p->port);
    redisContext *rc = srv_connect(r);
    int rounds = 0, flushed = 0;
    for (;;) {
        char *info = h_info(rc, "replication"), v[64];
        h_info_field(info, "master_link_status", v, sizeof v);
        free(info);
        if (!strcmp(v, "up")) break;
        ck_assert_msg(rounds < 100000, "the replica never synced");
        expect_status(pc, "OK", "SELECT %d", rounds % 3);
        freeReplyObject(cmd(pc, "INCR w:counter"));
        freeReplyObject(cmd(pc, "RPUSH w:list %d", rounds));
        freeReplyObject(cmd(pc, "HSET a:bighash f%d changed%d", rounds % 300, rounds));
        freeReplyObject(cmd(pc, "DEL a:str:%d", rounds % 50));
        freeReplyObject(cmd(pc, "ZADD a:bigzset %d m%d", -rounds, rounds % 300));
        if (rounds == 20 && srv_log_wait(p, "Replication save started", 1)) {
            expect_status(pc, "OK", "FLUSHALL");
            flushed = 1;
            repl_populate(pc, "c");
        }
        rounds++;
        h_sleep_ms(5);
    }
    expect_status(pc, "OK", "SELECT 0");
    ck_assert_msg(flushed, "no FLUSHALL during the sync (%d rounds)", rounds);
    wait_replica(pc);
    ck_assert_int_gt(repl_compare_datasets(pc, rc), 0);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* Two replicas arriving within repl-diskless-sync-delay share one save;
 * with repl-diskless-sync-max-replicas 2 it starts as soon as both wait
 * (the delay, 600 s, would outlast the test). */
static void two_replicas(const char *conf) {
    srv *p = h_srv_start("%s", conf);
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    redisContext *rc1, *rc2;
    srv *r1 = srv_start_redis("--replicaof 127.0.0.1 %d", p->port);
    srv *r2 = srv_start_redis("--replicaof 127.0.0.1 %d", p->port);
    rc1 = srv_connect(r1);
    rc2 = srv_connect(r2);
    h_wait_info_str(rc1, "replication", "master_link_status", "up", 30000);
    h_wait_info_str(rc2, "replication", "master_link_status", "up", 30000);
    ck_assert(srv_log_wait(p, "(2 replicas)", 1000));
    repl_mutate(pc);
    expect_int(pc, 2, "WAIT 2 %d", h_scaled_ms(10000));
    repl_compare_datasets(pc, rc1);
    repl_compare_datasets(pc, rc2);
    redisFree(rc1);
    redisFree(rc2);
    redisFree(pc);
    srv_stop(r1);
    srv_stop(r2);
}

START_TEST(two_replicas_share_one_save) { two_replicas("--repl-diskless-sync-delay 2"); }
END_TEST

START_TEST(max_replicas_starts_the_save) {
    two_replicas("--repl-diskless-sync-delay 600 --repl-diskless-sync-max-replicas 2");
}
END_TEST

/* A redis-server replica restarted from its own RDB (SHUTDOWN SAVE keeps
 * our replid and its offset in it) comes back with PSYNC <replid> <off>:
 * +CONTINUE from the backlog, the writes it missed, nothing else. */
START_TEST(partial_resync_of_a_restarted_redis_replica) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0");
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    redisContext *rc;
    srv *r = start_redis_replica(p, &rc);
    repl_mutate(pc);
    wait_replica(pc);
    redisReply *bye = redisCommand(rc, "SHUTDOWN SAVE");
    freeReplyObject(bye);
    redisFree(rc);
    ck_assert(srv_wait_exit(r, h_scaled_ms(10000)));
    h_wait_info(pc, "replication", "connected_slaves", 0, 10000);
    repl_populate(pc, "missed"); /* while it is away */
    expect_status(pc, "OK", "SELECT 7");
    expect_status(pc, "OK", "SET missed:db7 x");
    expect_status(pc, "OK", "SELECT 0");
    srv *r2 = srv_start_redis("--dir %s --replicaof 127.0.0.1 %d", r->dir, p->port);
    rc = srv_connect(r2);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 30000);
    char needle[128];
    snprintf(needle, sizeof needle, "Partial resynchronization request from 127.0.0.1:%d accepted",
             r2->port);
    ck_assert(srv_log_wait(p, needle, 1000));
    ck_assert(srv_log_wait(r2, "Successful partial resynchronization with master", 1000));
    wait_replica(pc);
    repl_compare_datasets(pc, rc);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r2);
    srv_stop(r);
}
END_TEST

/* ---- the protocol, by a raw socket ---- */

/* Reads one line ending in \r\n, skipping the "\n" keepalives. */
static void read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    int closed = 0;
    for (;;) {
        ck_assert_msg(n + 1 < cap, "line too long");
        size_t got = raw_read(fd, buf + n, 2, 1, h_scaled_ms(10000), &closed);
        ck_assert_msg(got == 1, "no line (closed %d) after '%.*s'", closed, (int)n, buf);
        if (n == 0 && buf[0] == '\n') continue;
        n++;
        if (n >= 2 && buf[n - 2] == '\r' && buf[n - 1] == '\n') break;
    }
    buf[n - 2] = '\0';
}

/* Reads exactly n bytes into buf (NUL-terminated). */
static void read_exact(int fd, char *buf, size_t n) {
    int closed = 0;
    size_t got = raw_read(fd, buf, n + 1, n, h_scaled_ms(10000), &closed);
    ck_assert_msg(got == n, "read %zu of %zu bytes (closed %d)", got, n, closed);
}

/* PSYNC ? -1 with capa eof psync2: +FULLRESYNC, the EOF payload (an RDB),
 * then REPLCONF ACK so that the stream starts. *off: the offset. */
static int raw_full_sync(int port, char id[41], long long *off) {
    int fd = raw_connect(port);
    char line[512];
    raw_send_str(fd, "REPLCONF listening-port 4242\r\n");
    read_line(fd, line, sizeof line);
    ck_assert_str_eq(line, "+OK");
    raw_send_str(fd, "REPLCONF capa eof capa psync2\r\n");
    read_line(fd, line, sizeof line);
    ck_assert_str_eq(line, "+OK");
    raw_send_str(fd, "PSYNC ? -1\r\n");
    read_line(fd, line, sizeof line);
    ck_assert_msg(sscanf(line, "+FULLRESYNC %40s %lld", id, off) == 2, "got '%s'", line);
    read_line(fd, line, sizeof line);
    ck_assert_msg(!strncmp(line, "$EOF:", 5) && strlen(line) == 45, "got '%s'", line);
    const char *mark = line + 5;
    /* the payload: an RDB ending with the mark */
    size_t cap = 1 << 20, n = 0;
    char *p = malloc(cap);
    while (n < 40 || memcmp(p + n - 40, mark, 40) != 0) {
        ck_assert(n < cap);
        read_exact(fd, p + n, 1);
        n++;
    }
    ck_assert_msg(n > 49 && !memcmp(p, "REDIS0010", 9), "payload of %zu bytes", n);
    free(p);
    char ack[64];
    snprintf(ack, sizeof ack, "REPLCONF ACK %lld\r\n", *off);
    raw_send_str(fd, ack);
    return fd;
}

static const char SET_K1[] = "*3\r\n$3\r\nSET\r\n$2\r\nk1\r\n$2\r\nv1\r\n";
static const char SET_K2[] = "*3\r\n$3\r\nSET\r\n$2\r\nk2\r\n$2\r\nv2\r\n";
static const char SELECT_0[] = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n";

START_TEST(psync_full_then_continue) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-ping-replica-period 3600");
    redisContext *c = srv_connect(p);
    expect_status(c, "OK", "SET before sync");
    char id[41];
    long long off;
    int fd = raw_full_sync(p->port, id, &off);
    /* what the stream holds since the cut, counted from INFO */
    expect_status(c, "OK", "SET k1 v1");
    long long now = h_info_int(c, "replication", "master_repl_offset");
    size_t n = (size_t)(now - off);
    char *buf = malloc(n + 1);
    read_exact(fd, buf, n);
    const size_t tail = sizeof SELECT_0 - 1 + sizeof SET_K1 - 1;
    ck_assert_msg(n >= tail && !memcmp(buf + n - tail, SELECT_0, sizeof SELECT_0 - 1) &&
                      !memcmp(buf + n - (sizeof SET_K1 - 1), SET_K1, sizeof SET_K1 - 1),
                  "stream '%s'", buf);
    free(buf);
    close(fd);
    h_wait_info(c, "replication", "connected_slaves", 0, 10000);
    expect_status(c, "OK", "SET k2 v2"); /* missed while away */

    /* back with the same history: +CONTINUE and exactly the missed bytes */
    fd = raw_connect(p->port);
    char line[256];
    raw_send_str(fd, "REPLCONF capa eof capa psync2\r\n");
    read_line(fd, line, sizeof line);
    char psync[128];
    snprintf(psync, sizeof psync, "PSYNC %s %lld\r\n", id, now + 1);
    raw_send_str(fd, psync);
    read_line(fd, line, sizeof line);
    char want[128];
    snprintf(want, sizeof want, "+CONTINUE %s", id);
    ck_assert_str_eq(line, want);
    char missed[sizeof SET_K2];
    read_exact(fd, missed, sizeof SET_K2 - 1);
    ck_assert_str_eq(missed, SET_K2);
    ck_assert_int_eq(h_info_int(c, "replication", "master_repl_offset"),
                     now + (long long)sizeof SET_K2 - 1);
    /* it is online: the stream goes on */
    expect_status(c, "OK", "SET k1 v1");
    char more[sizeof SET_K1];
    read_exact(fd, more, sizeof SET_K1 - 1);
    ck_assert_str_eq(more, SET_K1);
    close(fd);

    /* a replica without capa psync2 gets +CONTINUE without the id */
    h_wait_info(c, "replication", "connected_slaves", 0, 10000);
    long long at = h_info_int(c, "replication", "master_repl_offset");
    fd = raw_connect(p->port);
    snprintf(psync, sizeof psync, "PSYNC %s %lld\r\n", id, at + 1);
    raw_send_str(fd, psync);
    read_line(fd, line, sizeof line);
    ck_assert_str_eq(line, "+CONTINUE");
    close(fd);

    /* an unknown history or an offset the backlog does not hold: full */
    const char *bad[] = {"PSYNC 0123456789012345678901234567890123456789 1\r\n", NULL, NULL};
    char beyond[128], before[128];
    snprintf(beyond, sizeof beyond, "PSYNC %s %lld\r\n", id, at + 1000);
    snprintf(before, sizeof before, "PSYNC %s %lld\r\n", id, off - 5);
    bad[1] = beyond;
    bad[2] = before;
    for (int i = 0; i < 3; i++) {
        h_wait_info(c, "replication", "connected_slaves", 0, 10000);
        fd = raw_connect(p->port);
        raw_send_str(fd, bad[i]);
        read_line(fd, line, sizeof line);
        ck_assert_msg(!strncmp(line, "+FULLRESYNC ", 12), "%s -> '%s'", bad[i], line);
        close(fd);
    }
    redisFree(c);
}
END_TEST

/* PSYNC2: after a replica's history, the old id is served up to
 * second_repl_offset. A verso replica promoted would do it; here the
 * primary's own id changes with the backlog ttl instead, which must NOT
 * keep the old id (a new history). */
START_TEST(backlog_ttl_frees_and_changes_id) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-backlog-ttl 1");
    redisContext *c = srv_connect(p);
    char id[41];
    long long off;
    int fd = raw_full_sync(p->port, id, &off);
    h_wait_info(c, "replication", "repl_backlog_active", 1, 10000);
    close(fd);
    h_wait_info(c, "replication", "repl_backlog_active", 0, 10000);
    char *info = h_info(c, "replication");
    char now[64];
    h_info_field(info, "master_replid", now, sizeof now);
    ck_assert_str_ne(now, id);
    free(info);
    ck_assert(srv_log_wait(p, "Replication backlog freed after 1 seconds", 5000));
    redisFree(c);
}
END_TEST

/* ---- WAIT, min-replicas, INFO, ROLE: verso and redis-server alike ---- */

static void check_primary_surface(srv *p) {
    redisContext *pc = srv_connect(p);
    expect_status(pc, "OK", "SET a 1");
    expect_int(pc, 0, "WAIT 0 0");
    expect_int(pc, 0, "WAIT 1 50"); /* no replica: the timeout answers */
    redisContext *rc;
    srv *r = start_redis_replica(p, &rc);
    expect_status(pc, "OK", "SET b 2");
    expect_int(pc, 1, "WAIT 1 %d", h_scaled_ms(10000));
    long long t0 = h_now_ms();
    expect_int(pc, 1, "WAIT 2 300");
    ck_assert_int_ge(h_now_ms() - t0, 290);
    expect_error(pc, "ERR timeout is negative", "WAIT 1 -1");
    expect_error(pc, "ERR timeout is not an integer or out of range", "WAIT 1 x");

    char *info = h_info(pc, "replication"), v[256], want[256];
    h_info_field(info, "role", v, sizeof v);
    ck_assert_str_eq(v, "master");
    h_info_field(info, "connected_slaves", v, sizeof v);
    ck_assert_str_eq(v, "1");
    ck_assert(!h_info_field(info, "min_slaves_good_slaves", v, sizeof v));
    h_info_field(info, "slave0", v, sizeof v);
    snprintf(want, sizeof want, "ip=127.0.0.1,port=%d,state=online,offset=", r->port);
    ck_assert_msg(!strncmp(v, want, strlen(want)) && strstr(v, ",lag="), "slave0:%s", v);
    h_info_field(info, "repl_backlog_active", v, sizeof v);
    ck_assert_str_eq(v, "1");
    h_info_field(info, "master_replid2", v, sizeof v);
    ck_assert_str_eq(v, "0000000000000000000000000000000000000000");
    h_info_field(info, "second_repl_offset", v, sizeof v);
    ck_assert_str_eq(v, "-1");
    free(info);

    redisReply *role = expect_array(pc, 3, "ROLE");
    check_bulk(role->element[0], "master");
    ck_assert_int_eq(role->element[1]->type, REDIS_REPLY_INTEGER);
    ck_assert_uint_eq(role->element[2]->elements, 1);
    redisReply *one = role->element[2]->element[0];
    ck_assert_uint_eq(one->elements, 3);
    check_bulk(one->element[0], "127.0.0.1");
    char port[16];
    snprintf(port, sizeof port, "%d", r->port);
    check_bulk(one->element[1], port);
    ck_assert_int_eq(one->element[2]->type, REDIS_REPLY_STRING);
    freeReplyObject(role);

    expect_status(pc, "OK", "CONFIG SET min-replicas-to-write 2");
    expect_error(pc, "NOREPLICAS Not enough good replicas to write.", "SET c 3");
    expect_bulk(pc, "1", "GET a"); /* reads pass */
    expect_status(pc, "OK", "MULTI");
    expect_error(pc, "NOREPLICAS Not enough good replicas to write.", "SET c 3");
    expect_error_prefix(pc, "EXECABORT", "EXEC");
    info = h_info(pc, "replication");
    h_info_field(info, "min_slaves_good_slaves", v, sizeof v);
    ck_assert_str_eq(v, "1");
    free(info);
    expect_status(pc, "OK", "CONFIG SET min-replicas-to-write 1");
    expect_status(pc, "OK", "SET c 3");
    expect_status(pc, "OK", "CONFIG SET min-replicas-to-write 0");

    /* the replica leaves: counted out */
    srv_stop(r);
    h_wait_info(pc, "replication", "connected_slaves", 0, 10000);
    redisFree(rc);
    redisFree(pc);
}

START_TEST(wait_min_replicas_info_role_verso) {
    check_primary_surface(h_srv_start("--repl-diskless-sync-delay 0"));
}
END_TEST

START_TEST(wait_min_replicas_info_role_redis) {
    srv *p = srv_start_redis("--repl-diskless-sync-delay 0");
    check_primary_surface(p);
    srv_stop(p);
}
END_TEST

/* WAIT blocks its client only: others are served meanwhile. */
START_TEST(wait_blocks_the_client_not_the_loop) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0");
    redisContext *a = srv_connect(p), *b = srv_connect(p);
    char id[41];
    long long off;
    int fd = raw_full_sync(p->port, id, &off); /* a replica that never acks again */
    expect_status(a, "OK", "SET x 1");
    redisAppendCommand(a, "WAIT 1 %d", h_scaled_ms(2000));
    redisAppendCommand(a, "GET x");
    int done = 0;
    redisBufferWrite(a, &done);
    h_sleep_ms(100);
    expect_status(b, "OK", "SET y 2"); /* served while a waits */
    redisReply *r;
    ck_assert_int_eq(redisGetReply(a, (void **)&r), REDIS_OK);
    check_int(r, 0); /* timed out: the replica acked an older offset */
    freeReplyObject(r);
    ck_assert_int_eq(redisGetReply(a, (void **)&r), REDIS_OK);
    check_bulk(r, "1"); /* the pipelined command ran after */
    freeReplyObject(r);
    /* now it acks far enough: WAIT answers at once */
    long long at = h_info_int(b, "replication", "master_repl_offset");
    char ack[64];
    snprintf(ack, sizeof ack, "REPLCONF ACK %lld\r\n", at + 1000);
    redisAppendCommand(a, "WAIT 1 0");
    redisBufferWrite(a, &done);
    h_sleep_ms(50);
    raw_send_str(fd, ack);
    ck_assert_int_eq(redisGetReply(a, (void **)&r), REDIS_OK);
    check_int(r, 1);
    freeReplyObject(r);
    close(fd);
    redisFree(a);
    redisFree(b);
}
END_TEST

/* ---- SYNC: redis-cli --rdb ---- */

START_TEST(redis_cli_rdb_is_accepted_by_redis_check_rdb) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0");
    redisContext *c = srv_connect(p);
    repl_populate(c, "a");
    char port[16], path[2200];
    snprintf(port, sizeof port, "%d", p->port);
    snprintf(path, sizeof path, "%s/out.rdb", p->dir);
    char *out = NULL;
    const char *cli[] = {"redis-cli", "-p", port, "--rdb", path, NULL};
    int st = h_run(NULL, &out, h_scaled_ms(30000), cli);
    ck_assert_msg(st == 0, "redis-cli --rdb: %d %s", st, out);
    free(out);
    const char *check[] = {"redis-check-rdb", path, NULL};
    st = h_run(NULL, &out, h_scaled_ms(30000), check);
    ck_assert_msg(st == 0 && strstr(out, "RDB looks OK"), "redis-check-rdb: %s", out);
    ck_assert_msg(strstr(out, "keys read: 220") || strstr(out, "220 keys"), "%s", out);
    free(out);
    /* old SYNC without capa eof: the $<len> form, no +FULLRESYNC line */
    int fd = raw_connect(p->port);
    raw_send_str(fd, "SYNC\r\n");
    char line[128];
    read_line(fd, line, sizeof line);
    ck_assert_msg(line[0] == '$' && atoll(line + 1) > 9, "got '%s'", line);
    char magic[10];
    read_exact(fd, magic, 9);
    ck_assert_str_eq(magic, "REDIS0010");
    close(fd);
    redisFree(c);
}
END_TEST

/* ---- limits ---- */

/* Of two replicas sharing a save, one goes away in the middle of its
 * payload: the other completes, the primary logs why the first failed. */
START_TEST(replica_gone_mid_payload) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 1 --rdb-key-save-delay 5000");
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    repl_big_values(pc, 100); /* a payload far bigger than the socket buffers */
    int fd = raw_connect(p->port);
    char line[128];
    raw_send_str(fd, "REPLCONF capa eof\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n");
    redisContext *rc;
    srv *r = srv_start_redis("--replicaof 127.0.0.1 %d", p->port);
    rc = srv_connect(r);
    read_line(fd, line, sizeof line);
    ck_assert_msg(!strncmp(line, "+FULLRESYNC", 11), "got '%s'", line);
    read_line(fd, line, sizeof line); /* $EOF:... : the payload has begun */
    close(fd);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 30000);
    ck_assert(srv_log_wait(p, "(2 replicas)", 1000));
    /* its write failed, or its close was seen first: either way it is gone */
    ck_assert(srv_log_wait(p, "Connection with replica client id #", 1000));
    expect_int(pc, 1, "WAIT 1 %d", h_scaled_ms(10000));
    repl_compare_datasets(pc, rc);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* A replica that takes nothing: its payload stalls in the socket, the
 * stream held for it grows past client-output-buffer-limit replica and it
 * is dropped; the primary goes on serving. */
START_TEST(slow_replica_dropped_by_output_limit) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --client-output-buffer-limit "
                         "replica 1mb 0 0");
    redisContext *c = srv_connect(p);
    repl_big_values(c, 100); /* a payload bigger than the socket buffers */
    char *val = malloc(100001);
    memset(val, 'v', 100000);
    val[100000] = '\0';
    int fd = raw_connect(p->port);
    char line[64];
    raw_send_str(fd, "REPLCONF capa eof capa psync2\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n"); /* then read nothing */
    h_wait_info(c, "replication", "connected_slaves", 1, 10000);
    for (int i = 0; i < 40; i++) expect_status(c, "OK", "SET k %s", val);
    h_wait_info(c, "replication", "connected_slaves", 0, 10000);
    ck_assert(srv_log_wait(p, "overcoming of output buffer limits", 5000));
    /* it went while its payload was still in flight */
    ck_assert(!srv_log_wait(p, "Streamed RDB transfer", 1));
    close(fd);
    /* online, then it stops reading: net.c's limit on its output */
    expect_status(c, "OK", "FLUSHALL");
    char id[41];
    long long off;
    fd = raw_full_sync(p->port, id, &off);
    h_wait_info(c, "replication", "connected_slaves", 1, 10000);
    long long before = h_info_int(c, "stats", "client_output_buffer_limit_disconnections");
    for (int i = 0; i < 100; i++) expect_status(c, "OK", "SET k %s", val);
    h_wait_info(c, "replication", "connected_slaves", 0, 10000);
    ck_assert_int_eq(h_info_int(c, "stats", "client_output_buffer_limit_disconnections"),
                     before + 1);
    ck_assert_int_ge(h_info_int(c, "stats", "client_output_buffer_limit_disconnections"), 1);
    expect_status(c, "OK", "SET still alive");
    free(val);
    close(fd);
    redisFree(c);
}
END_TEST

/* PINGs go into the stream every repl-ping-replica-period; a replica that
 * stops acking is dropped after repl-timeout. */
START_TEST(pings_and_ack_timeout) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-ping-replica-period 1 "
                         "--repl-timeout 3");
    redisContext *c = srv_connect(p);
    char id[41];
    long long off;
    int fd = raw_full_sync(p->port, id, &off);
    static const char ping[] = "*1\r\n$4\r\nPING\r\n";
    char buf[sizeof ping * 2];
    read_exact(fd, buf, sizeof ping - 1);
    ck_assert_str_eq(buf, ping);
    read_exact(fd, buf, sizeof ping - 1); /* a second later, another */
    ck_assert_str_eq(buf, ping);
    ck_assert_int_eq(h_info_int(c, "replication", "connected_slaves"), 1);
    /* no ACK since the first: gone after repl-timeout */
    h_wait_info(c, "replication", "connected_slaves", 0, 10000);
    ck_assert(srv_log_wait(p, "Disconnecting timedout replica (streaming sync)", 1000));
    close(fd);
    redisFree(c);
}
END_TEST

/* A replica that takes none of its payload is dropped after repl-timeout
 * (the thread writing it gives up; the main thread never waited). */
START_TEST(payload_timeout) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-timeout 2");
    redisContext *c = srv_connect(p);
    repl_big_values(c, 100);
    int fd = raw_connect(p->port);
    char line[64];
    raw_send_str(fd, "REPLCONF capa eof\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n"); /* then read nothing */
    h_wait_info(c, "replication", "connected_slaves", 1, 10000);
    long long t0 = h_now_ms();
    expect_status(c, "OK", "SET served meanwhile");
    ck_assert_int_lt(h_now_ms() - t0, h_scaled_ms(1000));
    h_wait_info(c, "replication", "connected_slaves", 0, 15000);
    ck_assert_msg(srv_log_wait(p, "took nothing for 2000 ms", 1000), "%s", srv_log_read(p));
    close(fd);
    redisFree(c);
}
END_TEST

/* A running BGSAVE makes a sync wait for it; a running sync makes BGSAVE
 * answer that a save is in progress (as Redis's diskless sync does). */
START_TEST(bgsave_and_sync_wait_for_each_other) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --rdb-key-save-delay 5000");
    redisContext *pc = srv_connect(p);
    repl_populate(pc, "a");
    expect_status(pc, "Background saving started", "BGSAVE");
    redisContext *rc;
    srv *r = start_redis_replica(p, &rc);
    char *log = srv_log_read(p);
    const char *saved = strstr(log, "Background saving (forkless) terminated");
    const char *synced = strstr(log, "Replication save started");
    ck_assert_msg(saved && synced && saved < synced, "%s", log);
    free(log);
    /* a slow replica (a raw one that reads nothing) keeps a sync running */
    repl_big_values(pc, 100);
    int fd = raw_connect(p->port);
    char line[64];
    raw_send_str(fd, "REPLCONF capa eof\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n");
    h_wait_info(pc, "persistence", "rdb_bgsave_in_progress", 1, 10000);
    expect_error(pc, "ERR Background save already in progress", "BGSAVE");
    close(fd);
    h_wait_info(pc, "persistence", "rdb_bgsave_in_progress", 0, 30000);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* SHUTDOWN while a payload is stuck in a replica's socket: the save stops
 * at once, not after repl-timeout. */
START_TEST(shutdown_during_stuck_payload) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-timeout 60");
    redisContext *pc = srv_connect(p);
    repl_big_values(pc, 300); /* more than loopback's socket buffers take */
    int fd = raw_connect(p->port);
    char line[64];
    raw_send_str(fd, "REPLCONF capa eof\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n");
    h_wait_info(pc, "persistence", "rdb_bgsave_in_progress", 1, 10000);
    h_sleep_ms(h_scaled_ms(1000)); /* the thread is stuck in a write by now */
    long long t0 = h_now_ms();
    redisAppendCommand(pc, "SHUTDOWN NOSAVE");
    int done = 0;
    redisBufferWrite(pc, &done);
    ck_assert(srv_wait_exit(p, h_scaled_ms(10000)));
    ck_assert_int_lt(h_now_ms() - t0, h_scaled_ms(5000));
    close(fd);
    redisFree(pc);
}
END_TEST

/* ---- SHUTDOWN and its wait for lagging replicas (shutdown-timeout) ---- */

/* A primary with a redis-server replica that has all of the stream up to
 * "SET a 1", then is stopped (SIGSTOP) before "SET last 1" reaches it. */
static srv *lagging_pair(const char *extra, srv **r, redisContext **pc, redisContext **rc) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-ping-replica-period 60 %s", extra);
    *pc = srv_connect(p);
    *r = start_redis_replica(p, rc);
    expect_status(*pc, "OK", "SET a 1");
    wait_replica(*pc);
    ck_assert_int_eq(kill((*r)->pid, SIGSTOP), 0);
    expect_status(*pc, "OK", "SET last 1");
    return p;
}

/* No reply on fd within 300 ms (a command postponed or blocked). */
static void no_reply_yet(int fd) {
    char buf[16];
    int closed = 0;
    ck_assert_uint_eq(raw_read(fd, buf, sizeof buf, 1, 300, &closed), 0);
    ck_assert(!closed);
}

/* SHUTDOWN waits until the replica has acked the whole stream: meanwhile
 * the caller is blocked, reads are served, writes postponed; once the
 * replica runs again it gets the last write and the primary exits. */
START_TEST(shutdown_waits_for_a_lagging_replica) {
    srv *r;
    redisContext *pc, *rc;
    srv *p = lagging_pair("", &r, &pc, &rc);
    int sfd = raw_connect(p->port), wfd = raw_connect(p->port);
    raw_send_str(sfd, "SHUTDOWN\r\n");
    ck_assert_msg(!srv_wait_exit(p, 500), "exited with a lagging replica");
    no_reply_yet(sfd);
    char *info = h_info(pc, "server"), v[32];
    ck_assert(h_info_field(info, "shutdown_in_milliseconds", v, sizeof v));
    ck_assert_msg(atoll(v) > 0 && atoll(v) <= 10000, "shutdown_in_milliseconds:%s", v);
    free(info);
    expect_bulk(pc, "1", "GET last");
    raw_send_str(wfd, "SET during 1\r\n");
    no_reply_yet(wfd);
    ck_assert_int_eq(h_info_int(pc, "clients", "blocked_clients"), 2);
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    ck_assert(srv_wait_exit(p, h_scaled_ms(5000)));
    ck_assert(WIFEXITED(p->exit_status) && WEXITSTATUS(p->exit_status) == 0);
    expect_bulk(rc, "1", "GET last");
    ck_assert(srv_log_wait(p, "Waiting for replicas before shutting down.", 1));
    ck_assert(srv_log_wait(p, "1 of 1 replicas are in sync when shutting down.", 1));
    close(sfd);
    close(wfd);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* SHUTDOWN ABORT cancels the wait: the blocked SHUTDOWN hears the error,
 * the postponed write runs; with none waiting ABORT is an error; SHUTDOWN
 * NOW does not wait. */
START_TEST(shutdown_abort_and_now) {
    srv *r;
    redisContext *pc, *rc;
    srv *p = lagging_pair("", &r, &pc, &rc);
    expect_error(pc, "ERR No shutdown in progress.", "SHUTDOWN ABORT");
    expect_error(pc, "ERR syntax error", "SHUTDOWN ABORT NOW");
    expect_error(pc, "ERR syntax error", "SHUTDOWN SAVE NOSAVE");
    int sfd = raw_connect(p->port), wfd = raw_connect(p->port);
    raw_send_str(sfd, "SHUTDOWN NOSAVE\r\n");
    ck_assert(!srv_wait_exit(p, 300));
    raw_send_str(wfd, "SET during 1\r\n");
    no_reply_yet(wfd);
    expect_status(pc, "OK", "SHUTDOWN ABORT");
    char line[128];
    read_line(sfd, line, sizeof line);
    ck_assert_str_eq(line, "-ERR Errors trying to SHUTDOWN. Check logs.");
    read_line(wfd, line, sizeof line);
    ck_assert_str_eq(line, "+OK");
    expect_error(pc, "ERR No shutdown in progress.", "SHUTDOWN ABORT");
    ck_assert(srv_log_wait(p, "Shutdown manually aborted.", 1000));
    char *info = h_info(pc, "server"), v[32];
    ck_assert(!h_info_field(info, "shutdown_in_milliseconds", v, sizeof v));
    free(info);
    long long t0 = h_now_ms();
    raw_send_str(sfd, "SHUTDOWN NOW NOSAVE\r\n");
    ck_assert(srv_wait_exit(p, h_scaled_ms(5000)));
    ck_assert_int_lt(h_now_ms() - t0, h_scaled_ms(2000));
    close(sfd);
    close(wfd);
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* SIGTERM waits as SHUTDOWN does, for shutdown-timeout at most: then the
 * primary exits anyway and logs the lagging replica. */
START_TEST(sigterm_waits_up_to_shutdown_timeout) {
    srv *r;
    redisContext *pc, *rc;
    srv *p = lagging_pair("--shutdown-timeout 1", &r, &pc, &rc);
    expect_status(pc, "OK", "CONFIG SET shutdown-timeout 2");
    long long t0 = h_now_ms();
    ck_assert_int_eq(kill(p->pid, SIGTERM), 0);
    ck_assert(!srv_wait_exit(p, 1000));
    ck_assert(srv_wait_exit(p, h_scaled_ms(5000)));
    ck_assert_int_ge(h_now_ms() - t0, 1800);
    ck_assert(WIFEXITED(p->exit_status) && WEXITSTATUS(p->exit_status) == 0);
    ck_assert(srv_log_wait(p, "Lagging replica", 1));
    ck_assert(srv_log_wait(p, "0 of 1 replicas are in sync when shutting down.", 1));
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    redisFree(rc);
    redisFree(pc);
    srv_stop(r);
}
END_TEST

/* A replica waiting for its payload gets a "\n" every second: during
 * repl-diskless-sync-delay (before +FULLRESYNC) and while the disk path
 * writes its temp file; INFO says wait_bgsave meanwhile. */
START_TEST(keepalives_while_waiting) {
    const char *confs[] = {"--repl-diskless-sync-delay 3",
                           "--repl-diskless-sync no --rdb-key-save-delay 10000"};
    for (int k = 0; k < 2; k++) {
        srv *p = h_srv_start("%s", confs[k]);
        redisContext *c = srv_connect(p);
        repl_populate(c, "a");
        int fd = raw_connect(p->port);
        char line[128];
        raw_send_str(fd, "REPLCONF capa eof\r\n");
        read_line(fd, line, sizeof line);
        raw_send_str(fd, "PSYNC ? -1\r\n");
        char b[2];
        read_exact(fd, b, 1);
        ck_assert_msg(b[0] == '\n', "conf %d: first byte '%c'", k, b[0]);
        read_exact(fd, b, 1); /* and a second one */
        ck_assert_msg(b[0] == '\n', "conf %d: second byte '%c'", k, b[0]);
        char *info = h_info(c, "replication"), v[256];
        h_info_field(info, "slave0", v, sizeof v);
        ck_assert_msg(strstr(v, "state=wait_bgsave"), "conf %d: slave0:%s", k, v);
        free(info);
        read_line(fd, line, sizeof line); /* skips the keepalives */
        ck_assert_msg(!strncmp(line, "+FULLRESYNC ", 12), "conf %d: '%s'", k, line);
        read_line(fd, line, sizeof line);
        ck_assert_msg(!strncmp(line, k ? "$" : "$EOF:", k ? 1 : 5), "conf %d: '%s'", k, line);
        close(fd);
        redisFree(c);
    }
}
END_TEST

/* The replica's first ACK may reach the main thread before the save's end
 * does (the thread wrote the mark, the main thread was busy: here in a
 * DEBUG SLEEP): the stream must start anyway, with no second ACK. */
START_TEST(first_ack_before_the_save_is_seen_done) {
    srv *p = h_srv_start("--repl-diskless-sync-delay 0 --repl-ping-replica-period 3600 "
                         "--rdb-key-save-delay 2000");
    redisContext *c = srv_connect(p), *sleeper = srv_connect(p);
    repl_populate(c, "a"); /* 220 keys: a save of about 0.5 s */
    int fd = raw_connect(p->port);
    char line[128], id[41];
    long long off;
    raw_send_str(fd, "REPLCONF capa eof capa psync2\r\n");
    read_line(fd, line, sizeof line);
    raw_send_str(fd, "PSYNC ? -1\r\n");
    read_line(fd, line, sizeof line);
    ck_assert(sscanf(line, "+FULLRESYNC %40s %lld", id, &off) == 2);
    /* the main thread sleeps through the end of the payload */
    redisAppendCommand(sleeper, "DEBUG SLEEP 2");
    int done = 0;
    redisBufferWrite(sleeper, &done);
    read_line(fd, line, sizeof line);
    char mark[41];
    ck_assert(strlen(line) == 45);
    memcpy(mark, line + 5, 41);
    size_t cap = 1 << 20, n = 0;
    char *p2 = malloc(cap);
    while (n < 40 || memcmp(p2 + n - 40, mark, 40) != 0) {
        ck_assert(n < cap);
        read_exact(fd, p2 + n, 1);
        n++;
    }
    free(p2);
    char ack[64];
    snprintf(ack, sizeof ack, "REPLCONF ACK %lld\r\n", off);
    raw_send_str(fd, ack); /* while the main thread still sleeps */
    redisReply *r;
    ck_assert_int_eq(redisGetReply(sleeper, (void **)&r), REDIS_OK);
    freeReplyObject(r);
    expect_status(c, "OK", "SET k1 v1");
    long long now = h_info_int(c, "replication", "master_repl_offset");
    size_t len = (size_t)(now - off);
    char *buf = malloc(len + 1);
    read_exact(fd, buf, len);
    ck_assert(!memcmp(buf + len - (sizeof SET_K1 - 1), SET_K1, sizeof SET_K1 - 1));
    free(buf);
    close(fd);
    redisFree(sleeper);
    redisFree(c);
}
END_TEST

static void teardown(void) { h_srv_drop_all(); }

int main(void) {
    Suite *s = suite_create("repl_primary");
    struct {
        const char *name;
        const TTest *t;
    } tests[] = {
        {"full_sync_forkless_eof_then_stream", full_sync_forkless_eof_then_stream},
        {"full_sync_disk_path", full_sync_disk_path},
        {"full_sync_fork_method", full_sync_fork_method},
        {"full_sync_disk_path_fork", full_sync_disk_path_fork},
        {"full_sync_with_aof", full_sync_with_aof},
        {"full_sync_under_writes_and_flushall", full_sync_under_writes_and_flushall},
        {"two_replicas_share_one_save", two_replicas_share_one_save},
        {"max_replicas_starts_the_save", max_replicas_starts_the_save},
        {"replica_gone_mid_payload", replica_gone_mid_payload},
        {"psync_full_then_continue", psync_full_then_continue},
        {"partial_resync_of_a_restarted_redis_replica",
         partial_resync_of_a_restarted_redis_replica},
        {"backlog_ttl_frees_and_changes_id", backlog_ttl_frees_and_changes_id},
        {"wait_min_replicas_info_role_verso", wait_min_replicas_info_role_verso},
        {"wait_min_replicas_info_role_redis", wait_min_replicas_info_role_redis},
        {"wait_blocks_the_client_not_the_loop", wait_blocks_the_client_not_the_loop},
        {"redis_cli_rdb_is_accepted_by_redis_check_rdb",
         redis_cli_rdb_is_accepted_by_redis_check_rdb},
        {"slow_replica_dropped_by_output_limit", slow_replica_dropped_by_output_limit},
        {"pings_and_ack_timeout", pings_and_ack_timeout},
        {"payload_timeout", payload_timeout},
        {"bgsave_and_sync_wait_for_each_other", bgsave_and_sync_wait_for_each_other},
        {"shutdown_during_stuck_payload", shutdown_during_stuck_payload},
        {"keepalives_while_waiting", keepalives_while_waiting},
        {"shutdown_waits_for_a_lagging_replica", shutdown_waits_for_a_lagging_replica},
        {"shutdown_abort_and_now", shutdown_abort_and_now},
        {"sigterm_waits_up_to_shutdown_timeout", sigterm_waits_up_to_shutdown_timeout},
        {"first_ack_before_the_save_is_seen_done", first_ack_before_the_save_is_seen_done},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        h_add_tcase(s, tests[i].name, tests[i].t, 120, NULL, teardown);
    return h_main(s);
}
