/* Integration test of replication over TLS (tls-replication yes, Redis
 * 7.0's semantics: a replica connects to its master's tls-port, the
 * master's replicas are clients of its tls-port), against redis-server on
 * the other side where it can be:
 *
 *  - a verso replica of a redis-server primary: data written before and
 *    during the full sync, then the stream;
 *  - redis-server replicas of a verso primary, one synced diskless (the
 *    forkless payload through the TLS relay), one through the disk path;
 *  - verso to verso: a full sync of 200k keys under a writer;
 *  - a replica whose client certificate the primary's CA did not sign:
 *    no sync, an error in both logs;
 *  - a TLS replica that stops reading mid-payload: bounded memory on the
 *    primary, then dropped, and the next replica syncs;
 *  - redis-sentinel talking TLS to a verso primary and replica: a SIGKILL
 *    of the primary promotes the replica.
 *
 * Every node keeps a plain port for the test's own hiredis connections
 * (Debian's hiredis has no TLS); the replication links only ever use the
 * tls-ports (the plain port is not what the replica is told, nor what it
 * announces). VERSO_SERVER=/usr/bin/redis-server runs every case with
 * Redis in verso's place. */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "repl_util.h"
#include "tls_util.h"

/* The arguments of a node with TLS on tls_port, replicating over TLS,
 * plus more (malloc'd). */
static char *node_args(int tls_port, const char *more) {
    size_t n = strlen(tls_server_args(tls_port)) + strlen(more) + 64;
    char *s = malloc(n);
    snprintf(s, n, "%s --tls-replication yes %s", tls_server_args(tls_port), more);
    return s;
}

/* Starts n nodes at once, node i with TLS on tls[i] (picked here) and
 * redis[i] saying which binary, more[i] extra arguments. */
static void start_nodes(int n, const int redis[], const char *const more[], int tls[], srv *out[]) {
    h_srv_spec specs[8];
    char *args[8];
    ck_assert_int_le(n, 8);
    for (int i = 0; i < n; i++) {
        tls[i] = h_free_port();
        args[i] = node_args(tls[i], more[i] ? more[i] : "");
        specs[i] = (h_srv_spec){.redis = redis[i], .args = args[i]};
    }
    h_srv_start_all(n, specs, out);
    for (int i = 0; i < n; i++) free(args[i]);
}

/* r follows the primary at tls_port; waits for the link. */
static void follow(redisContext *r, int tls_port) {
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", tls_port);
    h_wait_info_str(r, "replication", "master_link_status", "up", 60000);
    char want[16];
    snprintf(want, sizeof want, "%d", tls_port);
    h_wait_info_str(r, "replication", "master_port", want, 1000);
}

/* The primary lists a replica announcing its tls-port (as Redis 7.0's
 * REPLCONF listening-port under tls-replication). */
static void lists_replica_on(redisContext *p, int replica_tls_port) {
    char *info = h_info(p, "replication");
    char needle[64];
    snprintf(needle, sizeof needle, ",port=%d,state=online", replica_tls_port);
    ck_assert_msg(strstr(info, needle), "no replica online on its tls-port %d:\n%s",
                  replica_tls_port, info);
    free(info);
}

/* (a) A verso replica of a redis-server primary. */
START_TEST(replica_of_redis_primary) {
    srv *n[2];
    int tls[2];
    const int redis[] = {1, 0};
    const char *more[] = {"--repl-diskless-sync-delay 0", NULL};
    start_nodes(2, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r = srv_connect(n[1]);
    ru_preload(p, 20);
    ru_writer *w = writer_start(n[0]->port);
    writer_wait_progress(w, 2000, 10000);
    follow(r, tls[0]);
    writer_wait_progress(w, 5000, 20000); /* the stream, after the sync */
    writer_stop(w);
    h_sleep_ms(300); /* the writer's ms TTLs are over (e:* keys, PX 1-50) */
    expect_status(p, "OK", "SET after:sync done");
    ru_wait_caught_up(p, r, 20000);
    expect_bulk(r, "done", "GET after:sync");
    ck_assert_uint_gt(ru_same_data(p, r, h_scaled_ms(5000)), 20000);
    lists_replica_on(p, tls[1]);
    redisFree(p);
    redisFree(r);
}
END_TEST

/* (b) redis-server replicas of a verso primary: diskless (forkless),
 * through the disk path, then diskless from a fork child (bgsave-method
 * fork: the child writes the relay's socketpair). Redis always forks. */
START_TEST(redis_replicas_of_primary) {
    srv *n[4];
    int tls[4];
    const int redis[] = {0, 1, 1, 1};
    const char *more[] = {"--repl-diskless-sync yes --repl-diskless-sync-delay 0", NULL, NULL,
                          NULL};
    start_nodes(4, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r[3];
    for (int i = 0; i < 3; i++) r[i] = srv_connect(n[i + 1]);
    ru_preload(p, 20);
    ru_writer *w = writer_start(n[0]->port);
    writer_wait_progress(w, 2000, 10000);
    follow(r[0], tls[0]);
    ck_assert(srv_log_wait(n[0], "Starting BGSAVE for SYNC with target: replicas sockets", 1000));
    expect_status(p, "OK", "CONFIG SET repl-diskless-sync no");
    writer_wait_progress(w, 2000, 10000);
    follow(r[1], tls[0]);
    ck_assert(srv_log_wait(n[0], "Starting BGSAVE for SYNC with target: disk", 1000));
    expect_status(p, "OK", "CONFIG SET repl-diskless-sync yes");
    if (!srv_is_reference()) expect_status(p, "OK", "CONFIG SET bgsave-method fork");
    writer_wait_progress(w, 2000, 10000);
    follow(r[2], tls[0]);
    if (!srv_is_reference()) ck_assert(srv_log_wait(n[0], "Replication save started by pid", 1000));
    writer_wait_progress(w, 3000, 20000);
    writer_stop(w);
    h_sleep_ms(300); /* the writer's ms TTLs are over (e:* keys, PX 1-50) */
    for (int i = 0; i < 3; i++) {
        ru_wait_caught_up(p, r[i], 20000);
        ck_assert_uint_gt(ru_same_data(p, r[i], h_scaled_ms(5000)), 20000);
        lists_replica_on(p, tls[i + 1]);
        redisFree(r[i]);
    }
    redisFree(p);
}
END_TEST

/* (c) verso to verso: 200k keys (DEBUG POPULATE) synced under a writer,
 * then DBSIZE and the digest of every populated key's value. */
START_TEST(verso_to_verso_200k_under_writes) {
    srv *n[2];
    int tls[2];
    const int redis[] = {0, 0};
    const char *more[] = {"--repl-diskless-sync-delay 0", NULL};
    start_nodes(2, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r = srv_connect(n[1]);
    /* database 9: the writer's are 0..RU_NDB-1 */
    expect_status(p, "OK", "SELECT 9");
    expect_status(p, "OK", "DEBUG POPULATE 200000 key 64");
    expect_status(p, "OK", "SELECT 0");
    ru_writer *w = writer_start(n[0]->port);
    writer_wait_progress(w, 2000, 10000);
    follow(r, tls[0]);
    writer_wait_progress(w, 5000, 20000);
    writer_stop(w);
    h_sleep_ms(300); /* the writer's ms TTLs are over (e:* keys, PX 1-50) */
    ru_wait_caught_up(p, r, 30000);
    expect_status(p, "OK", "SELECT 9");
    expect_status(r, "OK", "SELECT 9");
    expect_int(r, 200000, "DBSIZE");
    /* every value, in batches of 1000 keys */
    for (int from = 0; from < 200000; from += 1000) {
        char cmdline[16384];
        int len = snprintf(cmdline, sizeof cmdline, "DEBUG DIGEST-VALUE");
        for (int i = from; i < from + 1000; i++)
            len += snprintf(cmdline + len, sizeof cmdline - (size_t)len, " key:%d", i);
        redisReply *a = cmd(p, cmdline), *b = cmd(r, cmdline);
        ck_assert_int_eq(a->type, REDIS_REPLY_ARRAY);
        ck_assert_int_eq(b->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(a->elements, 1000);
        ck_assert_uint_eq(b->elements, 1000);
        for (size_t i = 0; i < 1000; i++)
            ck_assert_msg(!strcmp(a->element[i]->str, b->element[i]->str), "key:%d differs",
                          from + (int)i);
        freeReplyObject(a);
        freeReplyObject(b);
    }
    expect_status(p, "OK", "SELECT 0");
    expect_status(r, "OK", "SELECT 0");
    ru_same_data(p, r, h_scaled_ms(5000)); /* the writer's keys */
    lists_replica_on(p, tls[1]);
    redisFree(p);
    redisFree(r);
}
END_TEST

/* The last 1500 bytes of s's log (static buffer), for a failure message. */
static const char *log_tail(const srv *s) {
    static char out[1600];
    char *log = srv_log_read(s);
    size_t n = strlen(log);
    snprintf(out, sizeof out, "%s", log + (n > 1500 ? n - 1500 : 0));
    free(log);
    return out;
}

/* (d) A replica showing a certificate of a CA the primary does not trust
 * (tls-auth-clients yes): the handshake fails, nothing syncs. */
START_TEST(untrusted_replica_certificate) {
    srv *n[2];
    int tls[2];
    const int redis[] = {0, 0};
    char rogue[2 * PATH_MAX + 128];
    snprintf(rogue, sizeof rogue,
             "--tls-client-cert-file %s/rogue.crt "
             "--tls-client-key-file %s/rogue.key",
             tls_certs_dir(), tls_certs_dir());
    const char *more[] = {NULL, rogue};
    start_nodes(2, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r = srv_connect(n[1]);
    expect_status(p, "OK", "SET k v");
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", tls[0]);
    if (!srv_log_wait(n[1], "Master did not respond to command during SYNC handshake", 10000))
        ck_abort_msg("the replica does not log the failed handshake:\n%s", log_tail(n[1]));
    if (!srv_log_wait(n[0], "Error accepting a client connection", 1000))
        ck_abort_msg("the primary does not log the refused certificate:\n%s", log_tail(n[0]));
    /* and it keeps failing: retried every second, never up */
    h_sleep_ms(1500);
    h_wait_info_str(r, "replication", "master_link_status", "down", 1000);
    expect_nil(r, "GET k");
    expect_int(r, 0, "DBSIZE");
    redisFree(p);
    redisFree(r);
}
END_TEST

/* (f) A TLS replica that stops reading mid-payload: the primary's memory
 * stays bounded (the relay waits, the serializer blocks on it), and when
 * the replica goes the save lets go of it; the next replica syncs. */
START_TEST(stalled_tls_replica_is_bounded_then_dropped) {
    srv *n[2];
    int tls[2];
    const int redis[] = {0, 1};
    const char *more[] = {"--repl-diskless-sync yes --repl-diskless-sync-delay 0 "
                          "--rdbcompression no",
                          NULL};
    start_nodes(2, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r = srv_connect(n[1]);
    expect_status(p, "OK", "DEBUG POPULATE 250000 key 400"); /* a 100 MB payload */
    char err[256];
    tlsc *stalled =
        tlsc_connect(tls[0], tls_cert("client.crt"), tls_cert("client.key"), err, sizeof err);
    ck_assert_msg(stalled, "%s", err);
    redisReply *rep = tlsc_cmd(stalled, "REPLCONF capa eof");
    ck_assert_ptr_nonnull(rep);
    ck_assert_int_eq(rep->type, REDIS_REPLY_STATUS);
    freeReplyObject(rep);
    long before = h_rss_kb(n[0]->pid);
    const char psync[] = "PSYNC ? -1\r\n";
    ck_assert_int_eq(tlsc_send(stalled, psync, sizeof psync - 1), 0); /* and never reads */
    if (!srv_is_reference())
        ck_assert(
            srv_log_wait(n[0], "Starting BGSAVE for SYNC with target: replicas sockets", 5000));
    h_sleep_ms(2000);
    long grown = h_rss_kb(n[0]->pid) - before;
    ck_assert_msg(grown < 64 * 1024, "the primary grew by %ld kB for a stalled replica", grown);
    tlsc_close(stalled);
    h_wait_info(p, "replication", "connected_slaves", 0, 20000);
    follow(r, tls[0]);
    expect_int(r, 250000, "DBSIZE");
    redisFree(p);
    redisFree(r);
}
END_TEST

/* ---- (e) Sentinel ---- */

static pid_t sentinel_pid;

static void kill_sentinel(void) {
    if (sentinel_pid > 0) {
        kill(sentinel_pid, SIGKILL);
        waitpid(sentinel_pid, NULL, 0);
    }
    sentinel_pid = 0;
}

/* Debian's redis-sentinel on a TLS port only, monitoring the primary at
 * its tls-port (quorum 1), talking TLS to every instance. */
static int start_sentinel(int primary_tls_port, const char *dir) {
    int port = h_free_port();
    char conf[PATH_MAX], logp[PATH_MAX];
    snprintf(conf, sizeof conf, "%s/sentinel.conf", dir);
    snprintf(logp, sizeof logp, "%s/sentinel.log", dir);
    FILE *f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    const char *d = tls_certs_dir();
    fprintf(f,
            "port 0\ntls-port %d\nbind 127.0.0.1\ndir %s\nlogfile \"\"\n"
            "tls-cert-file %s/server.crt\ntls-key-file %s/server.key\n"
            "tls-ca-cert-file %s/ca.crt\ntls-replication yes\n"
            "sentinel monitor mymaster 127.0.0.1 %d 1\n"
            "sentinel down-after-milliseconds mymaster 1000\n"
            "sentinel failover-timeout mymaster 5000\n",
            port, dir, d, d, d, primary_tls_port);
    ck_assert_int_eq(fclose(f), 0);
    const char *argv[] = {"redis-sentinel", conf, NULL};
    sentinel_pid = h_spawn(argv, logp);
    return port;
}

/* SENTINEL get-master-addr-by-name's port over TLS, -1 while Sentinel
 * does not answer. */
static long long sentinel_master_port(int port) {
    char err[256];
    tlsc *c = tlsc_connect(port, tls_cert("client.crt"), tls_cert("client.key"), err, sizeof err);
    if (!c) return -1;
    long long out = -1;
    redisReply *r = tlsc_cmd(c, "SENTINEL get-master-addr-by-name mymaster");
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
        r->element[1]->type == REDIS_REPLY_STRING)
        out = atoll(r->element[1]->str);
    if (r) freeReplyObject(r);
    tlsc_close(c);
    return out;
}

START_TEST(sentinel_fails_over_over_tls) {
    srv *n[2];
    int tls[2];
    const int redis[] = {0, 0};
    const char *more[] = {NULL, NULL};
    start_nodes(2, redis, more, tls, n);
    redisContext *p = srv_connect(n[0]), *r = srv_connect(n[1]);
    expect_status(p, "OK", "SET before failover");
    follow(r, tls[0]);
    int sport = start_sentinel(tls[0], n[1]->dir);
    /* Sentinel answers (over TLS) and has found the replica on its tls-port
     * through the primary's INFO */
    long long end = h_now_ms() + h_scaled_ms(15000);
    while (sentinel_master_port(sport) != tls[0] && h_now_ms() < end) h_sleep_ms(100);
    ck_assert_int_eq(sentinel_master_port(sport), tls[0]);
    char err[256];
    tlsc *sc = tlsc_connect(sport, tls_cert("client.crt"), tls_cert("client.key"), err, sizeof err);
    ck_assert_msg(sc, "sentinel: %s", err);
    for (;;) {
        redisReply *rep = tlsc_cmd(sc, "SENTINEL replicas mymaster");
        int found = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1;
        if (rep) freeReplyObject(rep);
        if (found) break;
        ck_assert_msg(h_now_ms() < end, "Sentinel did not find the replica");
        h_sleep_ms(100);
    }
    tlsc_close(sc);
    redisFree(p);
    srv_kill9(n[0]);
    redisFree(r);
    /* the replica is promoted (Sentinel then kills its normal clients:
     * a fresh connection each time) */
    end = h_now_ms() + h_scaled_ms(30000);
    while (sentinel_master_port(sport) != tls[1] && h_now_ms() < end) h_sleep_ms(100);
    ck_assert_int_eq(sentinel_master_port(sport), tls[1]);
    for (;;) {
        r = srv_connect(n[1]);
        char *info = h_info(r, "replication");
        int promoted = strstr(info, "role:master") != NULL;
        free(info);
        if (promoted) break;
        redisFree(r);
        ck_assert_msg(h_now_ms() < end, "the replica was not promoted");
        h_sleep_ms(100);
    }
    expect_bulk(r, "failover", "GET before");
    expect_status(r, "OK", "SET after promoted");
    kill_sentinel();
    redisFree(r);
}
END_TEST

static void teardown(void) {
    kill_sentinel();
    h_srv_drop_all();
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("tls_repl");
    struct {
        const char *name;
        const TTest *t;
    } tests[] = {
        {"replica_of_redis_primary", replica_of_redis_primary},
        {"redis_replicas_of_primary", redis_replicas_of_primary},
        {"verso_to_verso_200k_under_writes", verso_to_verso_200k_under_writes},
        {"untrusted_replica_certificate", untrusted_replica_certificate},
        {"stalled_tls_replica_is_bounded_then_dropped",
         stalled_tls_replica_is_bounded_then_dropped},
        {"sentinel_fails_over_over_tls", sentinel_fails_over_over_tls},
    };
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
        h_add_tcase(s, tests[i].name, tests[i].t, 120, NULL, teardown);
    return h_main(s);
}
