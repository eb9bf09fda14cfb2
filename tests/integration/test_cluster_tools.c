/* Integration tests of the tools and clients Redis Cluster users run
 * (issue 24, items 6 and 7): a 3-primary/3-replica cluster built by
 * `redis-cli --cluster create --cluster-replicas 1`, all-verso and mixed
 * (verso and redis-server nodes in the same shards), then on it:
 * `redis-cli -c`; redis-py's RedisCluster writing and reading every type
 * and pub/sub across nodes (tests/apps/cluster/redispy_cluster.py);
 * ioredis's Cluster (tests/apps/cluster/ioredis_cluster.js); a client
 * workload that checks every acknowledged write while `redis-cli --cluster
 * reshard` moves slots; `rebalance`, `add-node` (a primary, a replica),
 * `del-node`, `info`, `call`, `fix` of an open slot and `import` from a
 * standalone server. Every step checks `redis-cli --cluster check`.
 *
 * Each test builds its own cluster, its nodes started in parallel. Against
 * redis-server (VERSO_SERVER=/usr/bin/redis-server) "mixed" is all-redis. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define NODES 6
#define NODE_ARGS                                                                  \
    "--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 3000 " \
    "--appendonly no"

static srv *node[NODES + 2];

/* The last 3000 bytes of a tool's output, for a failure message (Check
 * refuses longer ones). */
static const char *tail(const char *out) {
    size_t n = strlen(out);
    return n > 3000 ? out + n - 3000 : out;
}

static char *endpoint(const srv *s, char *buf, size_t cap) {
    snprintf(buf, cap, "127.0.0.1:%d", s->port);
    return buf;
}

/* Runs redis-cli with argv (after "redis-cli"); its status and output. */
static int cli(char **out, int timeout_ms, const char *const *args) {
    const char *argv[32] = {"redis-cli"};
    int n = 1;
    for (; args[n - 1] && n < 31; n++) argv[n] = args[n - 1];
    argv[n] = NULL;
    return h_run(NULL, out, h_scaled_ms(timeout_ms), argv);
}

/* `redis-cli --cluster check` through node s: exit 0, every slot covered,
 * no open slot, the nodes agree. */
static void check_cluster(const srv *s) {
    char ep[64], *out = NULL;
    const char *args[] = {"--cluster", "check", endpoint(s, ep, sizeof ep), NULL};
    long long deadline = h_now_ms() + h_scaled_ms(20000);
    int st;
    for (;;) {
        free(out);
        out = NULL;
        st = cli(&out, 20000, args);
        if (st == 0 && strstr(out, "[OK] All nodes agree about slots configuration.") &&
            strstr(out, "[OK] All 16384 slots covered.") && !strstr(out, "[WARNING]"))
            break;
        if (h_now_ms() > deadline) break;
        h_sleep_ms(200);
    }
    ck_assert_msg(st == 0 && strstr(out, "[OK] All 16384 slots covered.") &&
                      strstr(out, "[OK] All nodes agree about slots configuration.") &&
                      !strstr(out, "[WARNING]"),
                  "cluster check (status 0x%x):\n%s", st, tail(out));
    free(out);
}

static void wait_state_ok(const srv *s) {
    redisContext *c = srv_connect(s);
    long long deadline = h_now_ms() + h_scaled_ms(20000);
    for (;;) {
        redisReply *r = cmd(c, "CLUSTER INFO");
        int ok = r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
        freeReplyObject(r);
        if (ok) break;
        ck_assert_msg(h_now_ms() < deadline, "node %d: cluster_state never ok", s->port);
        h_sleep_ms(50);
    }
    redisFree(c);
}

/* Starts NODES nodes (redis_mask bit i: node i is redis-server) and builds
 * the cluster with --cluster-replicas 1. */
static void build_cluster(unsigned redis_mask) {
    h_srv_spec specs[NODES];
    for (int i = 0; i < NODES; i++) specs[i] = (h_srv_spec){(redis_mask >> i) & 1, NODE_ARGS};
    h_srv_start_all(NODES, specs, node);
    char eps[NODES][64];
    const char *args[NODES + 6];
    int n = 0;
    args[n++] = "--cluster";
    args[n++] = "create";
    for (int i = 0; i < NODES; i++) args[n++] = endpoint(node[i], eps[i], sizeof eps[i]);
    args[n++] = "--cluster-replicas";
    args[n++] = "1";
    args[n++] = "--cluster-yes";
    args[n] = NULL;
    char *out = NULL;
    int st = cli(&out, 60000, args);
    ck_assert_msg(st == 0 && strstr(out, "[OK] All 16384 slots covered."),
                  "cluster create (status 0x%x):\n%s", st, tail(out));
    free(out);
    for (int i = 0; i < NODES; i++) wait_state_ok(node[i]);
    check_cluster(node[0]);
}

static void app(const char *interp, const char *script, const char *part, const srv *s) {
    char path[4096], port[16], *out = NULL;
    snprintf(path, sizeof path, "%s/%s", VERSO_TOP_SRCDIR, script);
    snprintf(port, sizeof port, "%d", s->port);
    const char *argv[] = {interp, path, port, part, NULL};
    int st = h_run(NULL, &out, h_scaled_ms(120000), argv);
    char ok[64];
    snprintf(ok, sizeof ok, "cluster: ok %s", part);
    ck_assert_msg(st == 0 && strstr(out, ok), "%s %s (status 0x%x):\n%s", script, part, st, tail(out));
    free(out);
}

/* The id of the node on s, and whether it is a primary (from CLUSTER NODES'
 * myself line). */
static int node_id(const srv *s, char id[41]) {
    redisContext *c = srv_connect(s);
    redisReply *r = cmd(c, "CLUSTER NODES");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    const char *line = r->str;
    int primary = 0;
    while (line && *line) {
        const char *eol = strchr(line, '\n');
        if (strstr(line, "myself") && (!eol || strstr(line, "myself") < eol)) {
            memcpy(id, line, 40);
            id[40] = '\0';
            const char *m = strstr(line, "master");
            primary = m && (!eol || m < eol);
            break;
        }
        line = eol ? eol + 1 : NULL;
    }
    freeReplyObject(r);
    redisFree(c);
    return primary;
}

/* Waits until every one of the first n nodes lists node id in CLUSTER
 * NODES (with an address: the handshake is over). */
static void wait_known(const char *id, int n) {
    long long deadline = h_now_ms() + h_scaled_ms(20000);
    for (int i = 0; i < n; i++) {
        redisContext *c = srv_connect(node[i]);
        for (;;) {
            redisReply *r = cmd(c, "CLUSTER NODES");
            int known = r->type == REDIS_REPLY_STRING && strstr(r->str, id);
            freeReplyObject(r);
            if (known) break;
            ck_assert_msg(h_now_ms() < deadline, "node %d never learned %s", node[i]->port, id);
            h_sleep_ms(50);
        }
        redisFree(c);
    }
}

/* The primaries among the first NODES nodes, in order. */
static int primaries(const srv *out[NODES], char ids[NODES][41]) {
    int n = 0;
    for (int i = 0; i < NODES; i++) {
        char id[41];
        if (node_id(node[i], id)) {
            out[n] = node[i];
            memcpy(ids[n++], id, 41);
        }
    }
    return n;
}

static void redis_cli_c(void) {
    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", node[0]->port);
    for (int i = 0; i < 20; i++) {
        char key[16], val[16];
        snprintf(key, sizeof key, "cli:%d", i);
        snprintf(val, sizeof val, "v%d", i);
        const char *set[] = {"-c", "-p", port, "SET", key, val, NULL};
        int st = cli(&out, 10000, set);
        ck_assert_msg(st == 0 && strstr(out, "OK"), "redis-cli -c SET: %s", tail(out));
        free(out);
    }
    snprintf(port, sizeof port, "%d", node[1]->port);
    for (int i = 0; i < 20; i++) {
        char key[16], val[16];
        snprintf(key, sizeof key, "cli:%d", i);
        snprintf(val, sizeof val, "v%d", i);
        const char *get[] = {"-c", "-p", port, "GET", key, NULL};
        int st = cli(&out, 10000, get);
        ck_assert_msg(st == 0 && strstr(out, val), "redis-cli -c GET %s: %s", key, tail(out));
        free(out);
    }
}

/* A workload (redispy_cluster.py workload) runs while redis-cli moves
 * `slots` slots from primary a to primary b; it then checks that every
 * acknowledged write is there. */
static void reshard_under_load(const srv *seed, const char *from, const char *to, int slots) {
    char path[4096], port[16], stop[4096], log[4096];
    snprintf(path, sizeof path, "%s/tests/apps/cluster/redispy_cluster.py", VERSO_TOP_SRCDIR);
    snprintf(port, sizeof port, "%d", seed->port);
    snprintf(stop, sizeof stop, "%s/workload.stop", seed->dir);
    snprintf(log, sizeof log, "%s/workload.log", seed->dir);
    unlink(stop);
    const char *wargv[] = {"/usr/bin/python3", path, port, "workload", stop, NULL};
    pid_t w = h_spawn(wargv, log);
    h_sleep_ms(1000);
    char ep[64], n[16], *out = NULL;
    snprintf(n, sizeof n, "%d", slots);
    const char *args[] = {"--cluster", "reshard", endpoint(seed, ep, sizeof ep), "--cluster-from",
                          from, "--cluster-to", to, "--cluster-slots", n, "--cluster-yes",
                          "--cluster-pipeline", "50", NULL};
    int st = cli(&out, 180000, args);
    ck_assert_msg(st == 0 && !strstr(out, "ERR"), "reshard (status 0x%x):\n%s", st, tail(out));
    free(out);
    h_sleep_ms(500);
    FILE *f = fopen(stop, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    int status = 0;
    long long deadline = h_now_ms() + h_scaled_ms(120000);
    while (waitpid(w, &status, WNOHANG) == 0) {
        if (h_now_ms() > deadline) {
            h_spawn_kill(w);
            ck_abort_msg("the workload did not finish");
        }
        h_sleep_ms(50);
    }
    size_t len;
    char *text = h_slurp(log, &len, 1);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
                      strstr(text, "cluster: ok workload"),
                  "workload during the reshard:\n%s", tail(text));
    free(text);
}

static void manager_steps(void) {
    const srv *p[NODES];
    char ids[NODES][41];
    ck_assert_int_eq(primaries(p, ids), 3);
    char ep[64], ep2[64], *out = NULL;

    /* info and call */
    const char *info[] = {"--cluster", "info", endpoint(node[0], ep, sizeof ep), NULL};
    int st = cli(&out, 20000, info);
    ck_assert_msg(st == 0 && strstr(out, "3 masters"), "cluster info:\n%s", tail(out));
    free(out);
    const char *call[] = {"--cluster", "call", endpoint(node[0], ep, sizeof ep), "PING", NULL};
    st = cli(&out, 20000, call);
    ck_assert_msg(st == 0 && strstr(out, "PONG"), "cluster call:\n%s", tail(out));
    free(out);

    /* rebalance after the reshard left the slots uneven */
    const char *rebalance[] = {"--cluster", "rebalance", endpoint(node[0], ep, sizeof ep),
                               "--cluster-threshold", "1", "--cluster-pipeline", "50", NULL};
    st = cli(&out, 180000, rebalance);
    ck_assert_msg(st == 0 && !strstr(out, "ERR"), "rebalance (status 0x%x):\n%s", st, tail(out));
    free(out);
    check_cluster(node[0]);

    /* add-node: a primary, then a replica of it; del-node of both */
    h_srv_spec more[2] = {{0, NODE_ARGS}, {0, NODE_ARGS}};
    h_srv_start_all(2, more, node + NODES);
    const char *add[] = {"--cluster", "add-node", endpoint(node[NODES], ep, sizeof ep),
                         endpoint(node[0], ep2, sizeof ep2), NULL};
    st = cli(&out, 30000, add);
    ck_assert_msg(st == 0 && strstr(out, "[OK] New node added correctly."), "add-node:\n%s", tail(out));
    free(out);
    check_cluster(node[0]);
    char new_id[41];
    ck_assert(node_id(node[NODES], new_id));
    wait_known(new_id, NODES);
    const char *add_replica[] = {"--cluster", "add-node", endpoint(node[NODES + 1], ep, sizeof ep),
                                 endpoint(node[0], ep2, sizeof ep2), "--cluster-slave",
                                 "--cluster-master-id", new_id, NULL};
    st = cli(&out, 30000, add_replica);
    ck_assert_msg(st == 0 && strstr(out, "[OK] New node added correctly."), "add-node replica:\n%s",
                  out);
    free(out);
    check_cluster(node[0]);
    char rep_id[41];
    long long deadline = h_now_ms() + h_scaled_ms(20000);
    while (node_id(node[NODES + 1], rep_id)) {
        ck_assert_msg(h_now_ms() < deadline, "the added replica never became a replica");
        h_sleep_ms(100);
    }
    wait_known(rep_id, NODES + 1); /* del-node tells every node to forget it */
    const char *del_rep[] = {"--cluster", "del-node", endpoint(node[0], ep, sizeof ep), rep_id, NULL};
    st = cli(&out, 30000, del_rep);
    ck_assert_msg(st == 0 && strstr(out, "Sending CLUSTER FORGET messages to the cluster"), "del-node replica:\n%s", tail(out));
    free(out);
    const char *del[] = {"--cluster", "del-node", endpoint(node[0], ep, sizeof ep), new_id, NULL};
    st = cli(&out, 30000, del);
    ck_assert_msg(st == 0 && strstr(out, "Sending CLUSTER FORGET messages to the cluster"), "del-node:\n%s", tail(out));
    free(out);
    check_cluster(node[0]);

    /* fix: a slot left MIGRATING on its owner */
    redisContext *c = srv_connect(p[0]);
    redisReply *r = cmd(c, "CLUSTER SETSLOT 0 MIGRATING %s", ids[1]);
    freeReplyObject(r);
    redisFree(c);
    const char *check[] = {"--cluster", "check", endpoint(node[0], ep, sizeof ep), NULL};
    st = cli(&out, 20000, check);
    ck_assert_msg(strstr(out, "open slot") || strstr(out, "Open"), "check of an open slot:\n%s",
                  out);
    free(out);
    const char *fix[] = {"--cluster", "fix", endpoint(node[0], ep, sizeof ep), NULL};
    st = cli(&out, 60000, fix);
    ck_assert_msg(st == 0, "fix (status 0x%x):\n%s", st, tail(out));
    free(out);
    check_cluster(node[0]);

    /* import: the keys of a standalone server copied in */
    srv *single = h_srv_start("--appendonly no");
    redisContext *sc = srv_connect(single);
    for (int i = 0; i < 100; i++) expect_status(sc, "OK", "SET imp:%d v%d", i, i);
    redisFree(sc);
    const char *import[] = {"--cluster", "import", endpoint(node[0], ep, sizeof ep),
                            "--cluster-from", endpoint(single, ep2, sizeof ep2), "--cluster-copy",
                            NULL};
    st = cli(&out, 60000, import);
    ck_assert_msg(st == 0, "import (status 0x%x):\n%s", st, tail(out));
    free(out);
    char port[16];
    snprintf(port, sizeof port, "%d", node[2]->port);
    for (int i = 0; i < 100; i += 7) {
        char key[16], val[16];
        snprintf(key, sizeof key, "imp:%d", i);
        snprintf(val, sizeof val, "v%d", i);
        const char *get[] = {"-c", "-p", port, "GET", key, NULL};
        st = cli(&out, 10000, get);
        ck_assert_msg(st == 0 && strstr(out, val), "imported %s: %s", key, tail(out));
        free(out);
    }
}

static void scenario(unsigned redis_mask) {
    build_cluster(redis_mask);
    redis_cli_c();
    app("/usr/bin/python3", "tests/apps/cluster/redispy_cluster.py", "types", node[0]);
    app("node", "tests/apps/cluster/ioredis_cluster.js", "ioredis", node[1]);
    const srv *p[NODES];
    char ids[NODES][41];
    ck_assert_int_eq(primaries(p, ids), 3);
    reshard_under_load(node[0], ids[0], ids[1], 3000);
    check_cluster(node[0]);
    app("/usr/bin/python3", "tests/apps/cluster/redispy_cluster.py", "verify", node[2]);
    manager_steps();
}

START_TEST(all_verso) { scenario(0); }
END_TEST

/* Primaries verso, redis, verso; replicas redis, verso, redis: redis-cli
 * pairs them so every shard holds both servers. */
START_TEST(mixed) { scenario(srv_is_reference() ? 0 : 0x2a); }
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_tools");
    h_add_dropall(s, "all_verso", all_verso, 600);
    h_add_dropall(s, "mixed", mixed, 600);
    return h_main(s);
}
