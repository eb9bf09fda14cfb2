/* test_cluster_failover: replicas and failover in a mixed cluster of verso
 * and redis-server 7.0 nodes (cluster/failover.c, cluster/replicas.c,
 * cluster/elect.c).
 *
 * One cluster for the program (node timeout 1 s), built with CLUSTER MEET,
 * ADDSLOTSRANGE and CLUSTER REPLICATE:
 *   node 0 verso primary  (slots 0-5460)      node 3 redis replica of 0
 *   node 1 redis primary  (slots 5461-10922)  node 4 verso replica of 1
 *   node 2 redis primary  (slots 10923-16383) node 5 verso replica of 2
 * Then, in order: CLUSTER REPLICATE's refusals; node 1 killed with -9
 * after writes confirmed by WAIT 1: node 4 (verso), with
 * cluster-replica-no-failover yes, is not elected (the others see its
 * nofailover flag), then with no it is, with votes of a verso and a redis
 * primary (the verso voter's lastVoteEpoch is in its nodes.conf); every
 * confirmed write is found by a client that follows MOVED; node 1
 * restarted from its nodes.conf rejoins as a replica of node 4 (and WAIT 1
 * on node 4 counts it); node 0 (verso) killed the same way: node 3 (redis)
 * is elected with a verso primary voting, node 0 restarted from nodes.conf
 * rejoins as a replica of node 3 (ROLE, INFO, CLUSTER NODES); CLUSTER
 * FAILOVER (default) from a verso replica of a redis primary and from a
 * redis replica of a verso primary loses no write; FORCE and TAKEOVER;
 * replica migration to a primary orphaned by its replica's death.
 * Single-node refusals (REPLICAOF, FAILOVER, CLUSTER FAILOVER on a primary)
 * in a test of their own. Passes against redis-server as well
 * (VERSO_SERVER=/usr/bin/redis-server). */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "keyslot.h"

#define NNODES 6
#define CLUSTER_ARGS                                                                      \
    "--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 1000 " \
    "--repl-diskless-sync-delay 0 --appendonly no"

static srv *N[NNODES];
static pid_t restarted[NNODES]; /* a node restarted by restart() */
static int dead[NNODES];        /* killed, not restarted */
static char id[NNODES][41];

/* ---- talking to nodes ---- */

static redisContext *conn(int port) {
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    ck_assert_msg(c && !c->err, "connect to %d: %s", port, c ? c->errstr : "oom");
    redisSetTimeout(c, tv);
    return c;
}

/* One command to node i; the reply (NULL on an I/O error) is the caller's. */
static redisReply *at(int i, const char *fmt, ...) {
    redisContext *c = conn(N[i]->port);
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    redisFree(c);
    return r;
}

static void at_ok(int i, const char *fmt, const char *a1) {
    redisReply *r = at(i, fmt, a1);
    ck_assert_msg(r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"),
                  "node %d: %s %s: %s", i, fmt, a1, r && r->str ? r->str : "?");
    freeReplyObject(r);
}

static void at_error(int i, const char *want, const char *fmt, const char *a1) {
    redisReply *r = at(i, fmt, a1);
    ck_assert_msg(r && r->type == REDIS_REPLY_ERROR && !strcmp(r->str, want),
                  "node %d: %s: got %s, want %s", i, fmt, r && r->str ? r->str : "?", want);
    freeReplyObject(r);
}

/* CLUSTER NODES of node i (malloc'd). */
static char *nodes_of(int i) {
    redisReply *r = at(i, "CLUSTER NODES");
    ck_assert_msg(r && r->type == REDIS_REPLY_STRING, "CLUSTER NODES on node %d", i);
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

/* Node i's view of node j: its flags and primary field into the buffers;
 * 0 when j is not listed. */
static int view(int i, int j, char flags[128], char primary[64]) {
    char *all = nodes_of(i), *line = NULL;
    for (char *l = all; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, id[j], 40)) { /* its own line, not a primary field */
            line = l;
            break;
        }
    int found = 0;
    if (line) {
        char addr[128];
        found = sscanf(line, "%*40s %127s %127s %63s", addr, flags, primary) == 3;
    }
    free(all);
    return found;
}

/* Node i sees node j as a primary (no fail flag) / as a replica of node p. */
static int sees_primary(int i, int j) {
    char f[128], p[64];
    return view(i, j, f, p) && strstr(f, "master") && !strstr(f, "fail") && !strcmp(p, "-");
}
static int sees_replica_of(int i, int j, int p) {
    char f[128], pr[64];
    return view(i, j, f, pr) && strstr(f, "slave") && !strcmp(pr, id[p]);
}

static long long info_int(int i, const char *section, const char *field) {
    redisContext *c = conn(N[i]->port);
    long long v = h_info_int(c, section, field);
    redisFree(c);
    return v;
}

static int info_is(int i, const char *section, const char *field, const char *want) {
    redisContext *c = conn(N[i]->port);
    char *info = h_info(c, section), buf[128];
    int ok = h_info_field(info, field, buf, sizeof buf) && !strcmp(buf, want);
    free(info);
    redisFree(c);
    return ok;
}

/* ROLE's first element is want ("master" / "slave"); for a replica, its
 * primary's port is primary_port (0: any) and the link is connected. */
static int role_is(int i, const char *want, int primary_port) {
    redisReply *r = at(i, "ROLE");
    int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements >= 1 &&
             !strcmp(r->element[0]->str, want);
    if (ok && !strcmp(want, "slave"))
        ok = r->elements >= 4 && (!primary_port || r->element[2]->integer == primary_port) &&
             !strcmp(r->element[3]->str, "connected");
    freeReplyObject(r);
    return ok;
}

#define WAIT_FOR(cond, ms, ...)                                         \
    do {                                                                \
        long long wf_end_ = h_now_ms() + h_scaled_ms(ms);               \
        while (!(cond)) {                                               \
            if (h_now_ms() > wf_end_) ck_abort_msg(__VA_ARGS__);        \
            h_sleep_ms(50);                                             \
        }                                                               \
    } while (0)

static int state_ok(int i) {
    redisReply *r = at(i, "CLUSTER INFO");
    int ok = r && r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
    freeReplyObject(r);
    return ok;
}

static long long current_epoch(int i) {
    redisReply *r = at(i, "CLUSTER INFO");
    const char *f = r && r->type == REDIS_REPLY_STRING ? strstr(r->str, "cluster_current_epoch:")
                                                       : NULL;
    long long e = f ? atoll(f + strlen("cluster_current_epoch:")) : -1;
    freeReplyObject(r);
    return e;
}

/* Every live node has the same current epoch: no election or epoch
 * collision is still going on. */
static int epochs_settled(void) {
    long long e = -1;
    for (int i = 0; i < NNODES; i++) {
        if (dead[i]) continue;
        long long ei = current_epoch(i);
        if (e >= 0 && ei != e) return 0;
        e = ei;
    }
    return 1;
}

static int all_state_ok(void) {
    for (int i = 0; i < NNODES; i++)
        if (!state_ok(i)) return 0;
    return 1;
}

/* ---- a client that follows MOVED ---- */

/* GET key through the cluster from node `from`: follows -MOVED, waits out
 * -CLUSTERDOWN / -TRYAGAIN; the reply's text (malloc'd; "(nil)" for none). */
static char *cluster_get(int from, const char *key) {
    int port = N[from]->port;
    long long end = h_now_ms() + h_scaled_ms(10000);
    while (h_now_ms() < end) {
        redisContext *c = conn(port);
        redisReply *r = redisCommand(c, "GET %s", key);
        redisFree(c);
        ck_assert_msg(r != NULL, "GET %s on port %d: I/O error", key, port);
        char *out = NULL;
        int slot, p;
        if (r->type == REDIS_REPLY_STRING) out = strdup(r->str);
        else if (r->type == REDIS_REPLY_NIL) out = strdup("(nil)");
        else if (r->type == REDIS_REPLY_ERROR && sscanf(r->str, "MOVED %d 127.0.0.1:%d", &slot, &p) == 2)
            port = p;
        else if (r->type == REDIS_REPLY_ERROR &&
                 (!strncmp(r->str, "CLUSTERDOWN", 11) || !strncmp(r->str, "TRYAGAIN", 8)))
            h_sleep_ms(100);
        else
            ck_abort_msg("GET %s on port %d: %s", key, port, r->str ? r->str : "?");
        freeReplyObject(r);
        if (out) return out;
    }
    ck_abort_msg("GET %s: no answer through the cluster", key);
    return NULL;
}

/* The n-th key ("<prefix>:<k>") whose slot is in [lo, hi]. */
static void key_in(char *buf, size_t cap, const char *prefix, int n, unsigned lo, unsigned hi) {
    for (int k = 0, seen = 0;; k++) {
        snprintf(buf, cap, "%s:%d", prefix, k);
        unsigned s = key_hash_slot(buf, strlen(buf));
        if (s >= lo && s <= hi && seen++ == n) return;
    }
}

/* ---- killing and restarting ---- */

static void kill_node(int i) {
    if (restarted[i]) {
        h_spawn_kill(restarted[i]);
        restarted[i] = 0;
    } else {
        srv_kill9(N[i]);
    }
    dead[i] = 1;
}

/* Writes keys of [lo, hi] to primary p, each confirmed by WAIT 1, then
 * kills p with -9 while more writes are on the wire. Returns how many
 * were confirmed (keys <prefix>:0 .. n-1 of key_in, values "v<i>"). */
static int write_then_kill(int p, const char *prefix, unsigned lo, unsigned hi, int count) {
    redisContext *c = conn(N[p]->port);
    int confirmed = 0;
    char key[64];
    for (int i = 0; i < count; i++) {
        key_in(key, sizeof key, prefix, i, lo, hi);
        redisReply *r = redisCommand(c, "SET %s v%d", key, i);
        ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "SET %s", key);
        freeReplyObject(r);
        r = redisCommand(c, "WAIT 1 2000");
        ck_assert_msg(r && r->type == REDIS_REPLY_INTEGER, "WAIT");
        ck_assert_msg(r->integer >= 1, "write %d not confirmed by the replica", i);
        freeReplyObject(r);
        confirmed++;
    }
    /* more writes in flight, unconfirmed, as the primary dies */
    for (int i = count; i < count + 50; i++) {
        key_in(key, sizeof key, prefix, i, lo, hi);
        redisAppendCommand(c, "SET %s v%d", key, i);
    }
    int done = 0;
    redisBufferWrite(c, &done);
    kill_node(p);
    redisFree(c);
    return confirmed;
}

static void check_keys(int from, const char *prefix, unsigned lo, unsigned hi, int n) {
    char key[64], want[32];
    for (int i = 0; i < n; i++) {
        key_in(key, sizeof key, prefix, i, lo, hi);
        snprintf(want, sizeof want, "v%d", i);
        char *got = cluster_get(from, key);
        ck_assert_msg(!strcmp(got, want), "%s: %s, want %s (a confirmed write lost)", key, got,
                      want);
        free(got);
    }
}

/* Starts node i's binary again on its port and directory (its
 * nodes.conf), as an operator restarting it would. */
static void restart(int i, int redis) {
    char port[16], log[2200];
    snprintf(port, sizeof port, "%d", N[i]->port);
    snprintf(log, sizeof log, "%s/restart.log", N[i]->dir);
    const char *bin = redis ? h_redis_binary() : srv_binary();
    const char *argv[] = {bin, "--port", port, "--bind", "127.0.0.1", "--dir", N[i]->dir,
                          "--save", "", "--enable-debug-command", "yes",
                          "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                          "--cluster-node-timeout", "1000", "--repl-diskless-sync-delay", "0",
                          "--appendonly", "no", NULL};
    restarted[i] = h_spawn(argv, log);
    dead[i] = 0;
    snprintf(N[i]->log, sizeof N[i]->log, "%s", log); /* its log from now on */
    long long end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        struct timeval tv = {0, 200000};
        redisContext *c = redisConnectWithTimeout("127.0.0.1", N[i]->port, tv);
        redisReply *r = c && !c->err ? redisCommand(c, "PING") : NULL;
        int up = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        redisFree(c);
        if (up) break;
        ck_assert_msg(h_now_ms() < end, "node %d did not restart (see %s)", i, log);
        h_sleep_ms(20);
    }
}

/* The last warnings of node i's log (its lines with " # ", as both
 * servers mark them), 3000 bytes at most (static buffer), for messages. */
static const char *log_tail(int i) {
    static char buf[3072];
    char *all = srv_log_read(N[i]);
    {
        size_t used = 0;
        char *keep = calloc(1, strlen(all) + 1);
        for (char *l = strtok(all, "\n"); l; l = strtok(NULL, "\n"))
            if (strstr(l, " # ")) used += (size_t)sprintf(keep + used, "%s\n", l);
        snprintf(buf, sizeof buf, "%s", keep + (used > 3000 ? used - 3000 : 0));
        free(keep);
    }
    free(all);
    return buf;
}

/* ---- the test ---- */

static void build_cluster(void) {
    h_srv_spec spec[NNODES] = {{0, CLUSTER_ARGS}, {1, CLUSTER_ARGS}, {1, CLUSTER_ARGS},
                               {1, CLUSTER_ARGS}, {0, CLUSTER_ARGS}, {0, CLUSTER_ARGS}};
    h_srv_start_all(NNODES, spec, N);
    for (int i = 0; i < NNODES; i++) {
        redisReply *r = at(i, "CLUSTER MYID");
        ck_assert_msg(r && r->type == REDIS_REPLY_STRING && strlen(r->str) == 40, "MYID %d", i);
        snprintf(id[i], sizeof id[i], "%s", r->str);
        freeReplyObject(r);
    }
    /* node 1 (redis) meets everyone; gossip does the rest */
    for (int i = 0; i < NNODES; i++) {
        if (i == 1) continue;
        redisReply *r = at(1, "CLUSTER MEET 127.0.0.1 %d", N[i]->port);
        ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "MEET %d", i);
        freeReplyObject(r);
    }
    static const char *const ranges[3] = {"CLUSTER ADDSLOTSRANGE 0 5460",
                                          "CLUSTER ADDSLOTSRANGE 5461 10922",
                                          "CLUSTER ADDSLOTSRANGE 10923 16383"};
    for (int i = 0; i < 3; i++) at_ok(i, ranges[i], "");
    for (int i = 0; i < NNODES; i++)
        for (int j = 0; j < NNODES; j++)
            WAIT_FOR(sees_primary(i, j), 15000, "node %d does not know node %d", i, j);
}

static void replicate_checks_and_replicas(void) {
    at_error(4, "ERR Can't replicate myself", "CLUSTER REPLICATE %s", id[4]);
    at_error(0, "ERR To set a master the node must be empty and without assigned slots.",
             "CLUSTER REPLICATE %s", id[1]);
    at_ok(3, "CLUSTER REPLICATE %s", id[0]);
    WAIT_FOR(sees_replica_of(4, 3, 0), 10000, "node 4 does not see node 3 as a replica");
    at_error(4, "ERR I can only replicate a master, not a replica.", "CLUSTER REPLICATE %s",
             id[3]);
    at_ok(4, "CLUSTER REPLICATE %s", id[1]);
    at_ok(5, "CLUSTER REPLICATE %s", id[2]);
    WAIT_FOR(role_is(3, "slave", N[0]->port) && role_is(4, "slave", N[1]->port) &&
                 role_is(5, "slave", N[2]->port),
             15000, "the replicas did not sync");
    for (int i = 0; i < NNODES; i++) {
        WAIT_FOR(sees_replica_of(i, 3, 0) && sees_replica_of(i, 4, 1) && sees_replica_of(i, 5, 2),
                 10000, "node %d does not see every replica", i);
    }
    WAIT_FOR(all_state_ok(), 10000, "cluster_state is not ok everywhere");
    /* the replica's own INFO and CLUSTER NODES */
    ck_assert(info_is(4, "replication", "role", "slave"));
    ck_assert(info_is(4, "replication", "master_link_status", "up"));
    char f[128], p[64];
    ck_assert(view(4, 4, f, p) && !strcmp(f, "myself,slave") && !strcmp(p, id[1]));
}

/* Primary p killed under confirmed writes: replica r takes its slots.
 * no_failover: r has cluster-replica-no-failover yes at first, and is not
 * elected until it is set back to no. */
static void kill_and_elect(int p, int r, int redis_p, unsigned lo, unsigned hi,
                           const char *prefix, int no_failover) {
    if (no_failover) {
        at_ok(r, "CONFIG SET cluster-replica-no-failover %s", "yes");
        char f[128], pr[64];
        /* the others learn the flag from r's header */
        WAIT_FOR(view(p, r, f, pr) && !strcmp(f, "slave,nofailover"), 5000,
                 "node %d does not see node %d's nofailover flag", p, r);
    }
    int n = write_then_kill(p, prefix, lo, hi, 200);
    if (no_failover) {
        h_sleep_ms(4000); /* an election would be over by now */
        ck_assert_msg(!role_is(r, "master", 0),
                      "node %d was elected with cluster-replica-no-failover yes", r);
        ck_assert_int_eq(srv_log_count(N[r], "Starting a failover election"), 0);
        at_ok(r, "CONFIG SET cluster-replica-no-failover %s", "no");
    }
    long long t0 = h_now_ms();
    WAIT_FOR(role_is(r, "master", 0), 20000, "node %d was not elected", r);
    fprintf(stderr, "node %d elected %lld ms after node %d was killed\n", r, h_now_ms() - t0, p);
    /* by an election (the same log line in verso and redis-server) */
    ck_assert_int_eq(srv_log_count(N[r], "Failover election won: I'm the new master."), 1);
    for (int i = 0; i < NNODES; i++) {
        if (i == p) continue;
        WAIT_FOR(sees_primary(i, r), 10000, "node %d does not see node %d as a primary", i, r);
    }
    ck_assert(info_is(r, "replication", "role", "master"));
    /* every confirmed write, through MOVED from another shard's node */
    check_keys((r + 1) % NNODES == p ? (r + 2) % NNODES : (r + 1) % NNODES, prefix, lo, hi, n);
    /* the killed node comes back from its nodes.conf: a replica of r */
    restart(p, redis_p);
    WAIT_FOR(role_is(p, "slave", N[r]->port), 20000,
             "node %d did not rejoin as a replica of node %d", p, r);
    for (int i = 0; i < NNODES; i++)
        WAIT_FOR(sees_replica_of(i, p, r), 10000, "node %d does not see %d as %d's replica", i,
                 p, r);
    ck_assert(info_is(p, "replication", "role", "slave"));
    WAIT_FOR(all_state_ok(), 10000, "cluster_state is not ok after the failover");
    /* WAIT on the new primary counts the rejoined replica */
    redisContext *c = conn(N[r]->port);
    char key[64];
    key_in(key, sizeof key, prefix, n + 1000, lo, hi);
    redisReply *rep = redisCommand(c, "SET %s after", key);
    ck_assert(rep && rep->type == REDIS_REPLY_STATUS);
    freeReplyObject(rep);
    rep = redisCommand(c, "WAIT 1 5000");
    ck_assert_msg(rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == 1,
                  "WAIT 1 on the new primary %d", r);
    freeReplyObject(rep);
    redisFree(c);
}

/* The epoch of node r's config as node i lists it. */
static long long config_epoch(int i, int r) {
    char *all = nodes_of(i), *line = NULL;
    for (char *l = all; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (!strncmp(l, id[r], 40)) {
            line = l;
            break;
        }
    long long e = -1;
    if (line) sscanf(line, "%*s %*s %*s %*s %*s %*s %lld", &e);
    free(all);
    return e;
}

/* Voter v's nodes.conf holds lastVoteEpoch >= epoch (its vote for that
 * election was saved). */
static void vote_saved(int v, long long epoch) {
    char path[2200];
    snprintf(path, sizeof path, "%s/nodes.conf", N[v]->dir);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    const char *vars = strstr(text, "lastVoteEpoch ");
    ck_assert_msg(vars != NULL, "no lastVoteEpoch in node %d's nodes.conf", v);
    long long last = atoll(vars + strlen("lastVoteEpoch "));
    ck_assert_msg(last >= epoch, "node %d's lastVoteEpoch %lld < the election's epoch %lld", v,
                  last, epoch);
    free(text);
}

/* CLUSTER FAILOVER [opt] on replica r of primary p: r takes over, p
 * follows it; with writes sent to p just before, none is lost. */
static void manual_failover(int r, int p, const char *opt, unsigned lo, unsigned hi,
                            const char *prefix) {
    WAIT_FOR(epochs_settled(), 10000, "the nodes do not agree on the current epoch");
    redisContext *c = conn(N[p]->port);
    char key[64];
    int n = 300;
    for (int i = 0; i < n; i++) {
        key_in(key, sizeof key, prefix, i, lo, hi);
        redisAppendCommand(c, "SET %s v%d", key, i);
    }
    for (int i = 0; i < n; i++) {
        redisReply *rep = NULL;
        ck_assert(redisGetReply(c, (void **)&rep) == REDIS_OK);
        ck_assert_msg(rep->type == REDIS_REPLY_STATUS, "SET on node %d", p);
        freeReplyObject(rep);
    }
    int more = opt[0] ? 0 : 5000;
    if (more) {
        /* writes still on the wire as the handover starts: each is either
         * applied before the pause (+OK, then it must be on r) or waits
         * it out and is redirected to r (-MOVED), none after a -MOVED */
        for (int i = n; i < n + more; i++) {
            key_in(key, sizeof key, prefix, i, lo, hi);
            redisAppendCommand(c, "SET %s v%d", key, i);
        }
        for (int done = 0; !done;)
            ck_assert(redisBufferWrite(c, &done) == REDIS_OK);
    }
    at_ok(r, opt[0] ? "CLUSTER FAILOVER %s" : "CLUSTER FAILOVER", opt);
    int taken = 0;
    for (int i = 0; i < more; i++) {
        redisReply *rep = NULL;
        ck_assert_msg(redisGetReply(c, (void **)&rep) == REDIS_OK, "SET %d: I/O error", i);
        int ok = rep->type == REDIS_REPLY_STATUS;
        ck_assert_msg((ok && taken == i) ||
                          (rep->type == REDIS_REPLY_ERROR && !strncmp(rep->str, "MOVED ", 6)),
                      "SET %d during the failover: %s", i, rep->str ? rep->str : "?");
        taken += ok;
        freeReplyObject(rep);
    }
    if (more)
        fprintf(stderr, "CLUSTER FAILOVER of node %d: node %d took %d of %d writes sent with it\n",
                r, p, taken, more);
    n += taken;
    redisFree(c);
    WAIT_FOR(role_is(r, "master", 0) && role_is(p, "slave", N[r]->port), 15000,
             "CLUSTER FAILOVER %s: node %d did not take over from node %d; its log:\n%s", opt,
             r, p, log_tail(r));
    for (int i = 0; i < NNODES; i++)
        WAIT_FOR(sees_primary(i, r) && sees_replica_of(i, p, r), 10000,
                 "node %d does not see %d as primary of %d:\n%s", i, r, p, nodes_of(i));
    if (!opt[0]) {
        /* the handshake ran: the primary paused, r reached its offset */
        ck_assert_int_ge(srv_log_count(N[r], "All master replication stream processed, manual "
                                             "failover can start."), 1);
        check_keys(r, prefix, lo, hi, n); /* served by r itself: no +OK lost */
    }
    WAIT_FOR(all_state_ok(), 10000, "cluster_state is not ok after CLUSTER FAILOVER %s", opt);
}

/* Replica migration: primaries 0, 4, 5 (verso) have one replica each (3,
 * 1, 2: redis). Pair A's primary v hands over to its replica rv (v is then
 * a replica of rv), pair C's replica rc joins rv too (rv has two
 * replicas), pair B's replica is killed: B's primary q is orphaned (its
 * only replica FAIL), and after Redis's 5 s the replica of rv with the
 * smaller id migrates to q. The pairs are picked so that it is verso's
 * node v when the ids allow. */
static void replica_migration(void) {
    static const int pair[3][2] = {{0, 3}, {4, 1}, {5, 2}};
    static const unsigned range[3][2] = {{0, 5460}, {5461, 10922}, {10923, 16383}};
    int a = 0, c = 1;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            if (i != j && strcmp(id[pair[i][0]], id[pair[j][1]]) < 0) {
                a = i;
                c = j;
            }
    int b = 3 - a - c;
    int v = pair[a][0], rv = pair[a][1], rc = pair[c][1], q = pair[b][0], r2 = pair[b][1];
    /* rv may have won an election less than 4 s ago (auth_timeout * 2):
     * redis-server would then claim the slots with that election's old
     * epoch, and lose them again (verso starts each manual failover's
     * election afresh) */
    h_sleep_ms(4500);
    manual_failover(rv, v, "", range[a][0], range[a][1], "mig"); /* v a replica of rv */
    at_ok(rc, "CLUSTER REPLICATE %s", id[rv]);
    for (int i = 0; i < NNODES; i++)
        WAIT_FOR(sees_replica_of(i, rc, rv), 10000, "node %d does not see %d as %d's replica",
                 i, rc, rv);
    kill_node(r2);
    int mover = strcmp(id[v], id[rc]) < 0 ? v : rc;
    fprintf(stderr, "replica migration: node %d (%s) expected to move to node %d\n", mover,
            mover == v ? "verso" : "redis", q);
    WAIT_FOR(role_is(mover, "slave", N[q]->port), 25000,
             "node %d did not migrate to orphaned node %d; its view:\n%s\nits log:\n%s", mover, q,
             nodes_of(mover), log_tail(mover));
    ck_assert_int_eq(srv_log_count(N[mover], "Migrating to orphaned master"), 1);
    for (int i = 0; i < NNODES; i++)
        if (i != r2)
            WAIT_FOR(sees_replica_of(i, mover, q), 10000,
                     "node %d does not see %d as %d's replica", i, mover, q);
}

START_TEST(failover_mixed) {
    build_cluster();
    replicate_checks_and_replicas();
    /* a verso replica of a redis primary, elected by a verso and a redis
     * primary; the redis primary back as a replica of the verso node */
    kill_and_elect(1, 4, 1, 5461, 10922, "b", 1);
    /* node 0 (verso) voted for node 4: the vote is in its nodes.conf */
    vote_saved(0, config_epoch(0, 4));
    /* a redis replica of a verso primary, elected with verso node 4's
     * vote; the verso node back from nodes.conf as a replica */
    kill_and_elect(0, 3, 0, 0, 5460, "a", 0);
    char f[128], p[64];
    ck_assert(view(0, 0, f, p) && !strcmp(f, "myself,slave") && !strcmp(p, id[3]));
    ck_assert(info_is(0, "replication", "master_link_status", "up"));
    ck_assert_int_eq(info_int(0, "replication", "master_port"), N[3]->port);
    /* manual failovers: verso replica 0 of redis 3; redis replica 1 of verso 4 */
    manual_failover(0, 3, "", 0, 5460, "m0");
    manual_failover(1, 4, "", 5461, 10922, "m1");
    at_error(1, "ERR You should send CLUSTER FAILOVER to a replica", "CLUSTER FAILOVER", "");
    /* FORCE from verso replica 5 of redis 2; TAKEOVER from verso 4 of redis 1 */
    manual_failover(5, 2, "FORCE", 10923, 16383, "f");
    manual_failover(4, 1, "TAKEOVER", 5461, 10922, "t");
    check_keys(2, "m1", 5461, 10922, 300); /* still there after the takeover */
    replica_migration();
    for (int i = 0; i < NNODES; i++)
        if (restarted[i]) h_spawn_kill(restarted[i]);
}
END_TEST

START_TEST(refusals_single_node) {
    srv *s = h_srv_start(CLUSTER_ARGS);
    redisContext *c = srv_connect(s);
    expect_error(c, "ERR REPLICAOF not allowed in cluster mode.", "REPLICAOF 127.0.0.1 1");
    expect_error(c, "ERR REPLICAOF not allowed in cluster mode.", "SLAVEOF NO ONE");
    expect_error(c, "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.",
                 "FAILOVER");
    expect_error(c, "ERR You should send CLUSTER FAILOVER to a replica", "CLUSTER FAILOVER");
    expect_error(c, "ERR You should send CLUSTER FAILOVER to a replica", "CLUSTER FAILOVER FORCE");
    expect_error(c, "ERR You should send CLUSTER FAILOVER to a replica",
                 "CLUSTER FAILOVER TAKEOVER");
    expect_error(c, "ERR syntax error", "CLUSTER FAILOVER foo");
    char myid[41];
    redisReply *r = cmd(c, "CLUSTER MYID");
    snprintf(myid, sizeof myid, "%s", r->str);
    freeReplyObject(r);
    expect_error(c, "ERR Can't replicate myself", "CLUSTER REPLICATE %s", myid);
    redisFree(c);
}
END_TEST

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("cluster_failover");
    h_add_dropall(s, "refusals_single_node", refusals_single_node, 30);
    h_add_dropall(s, "failover_mixed", failover_mixed, 120);
    return h_main(s);
}
