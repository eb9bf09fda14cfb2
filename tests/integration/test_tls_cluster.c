/* test_tls_cluster: Redis Cluster with tls-cluster yes: every bus link
 * TLS (cluster/bus.c), the TLS port announced as the client port and the
 * plain one as pport, MIGRATE and slot migration over TLS. Checked against
 * redis-server 7.0 too (VERSO_SERVER=/usr/bin/redis-server passes every
 * case but migrateslots, a verso command, not registered then):
 *   tls_only      three primaries with no plain port at all (--port 0):
 *                 MEET, slots, cluster_state:ok, the bus on tls-port +
 *                 10000, redis-cli --tls -c writing and reading keys of
 *                 every node through one
 *   mixed         two verso primaries, a redis-server primary and a
 *                 redis-server replica of a verso primary (replicating
 *                 over TLS): state ok everywhere, keys routed across
 *                 kinds, CLUSTER SLOTS / NODES telling a TLS client the
 *                 TLS ports and a plain client the plain ones (7.0's
 *                 use_pport)
 *   rogue         a node whose certificate the cluster's CA did not sign
 *                 never joins (MEET either way), while a good node does
 *   reshard       redis-cli --tls --cluster reshard (MIGRATE over TLS)
 *                 moves keys between two nodes, check passes after
 *   migrateslots  CLUSTER MIGRATESLOTS over TLS moves slots and their
 *                 keys (tens of MB: the snapshot's relay into the TLS link
 *                 pauses and resumes), with the atomic protocol */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "harness.h"
#include "tls_util.h"

#define NODE_TIMEOUT "3000"

/* ---- certificates, clients ---- */

static char ca[512], ccert[512], ckey[512], scert[512], skey[512];

static void certs(void) {
    snprintf(ca, sizeof ca, "%s", tls_cert("ca.crt"));
    snprintf(ccert, sizeof ccert, "%s", tls_cert("client.crt"));
    snprintf(ckey, sizeof ckey, "%s", tls_cert("client.key"));
    snprintf(scert, sizeof scert, "%s", tls_cert("server.crt"));
    snprintf(skey, sizeof skey, "%s", tls_cert("server.key"));
}

static tlsc *tconn(int port) {
    char err[256];
    tlsc *c = tlsc_connect(port, ccert, ckey, err, sizeof err);
    ck_assert_msg(c != NULL, "TLS connect to %d: %s", port, err);
    return c;
}

/* A TLS command's text reply (string or status), malloc'd. */
static char *tstr(tlsc *c, const char *command) {
    redisReply *r = tlsc_cmd(c, command);
    ck_assert_msg(r != NULL, "%s: no reply", command);
    ck_assert_msg(r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS,
                  "%s: reply type %d (%s)", command, r->type, r->str ? r->str : "");
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

static void tok(tlsc *c, const char *command) {
    char *s = tstr(c, command);
    ck_assert_msg(!strcmp(s, "OK"), "%s: %s", command, s);
    free(s);
}

static char *plain_str(redisContext *c, const char *command) {
    redisReply *r = cmd(c, command);
    ck_assert_msg(r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS,
                  "%s: reply type %d (%s)", command, r->type, r->str ? r->str : "");
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

/* How many lines of CLUSTER NODES say "connected". */
static int connected_lines(const char *nodes) {
    int n = 0;
    for (const char *p = nodes; (p = strstr(p, " connected")); p++) n++;
    return n;
}

/* A node's answer to cmd as text, over TLS or plain (conns is a tlsc **
 * or a redisContext **). */
typedef char *(*fetch_fn)(void *conns, int i, const char *cmd);
static char *fetch_tls(void *conns, int i, const char *cmd) {
    return tstr(((tlsc **)conns)[i], cmd);
}
static char *fetch_plain(void *conns, int i, const char *cmd) {
    return plain_str(((redisContext **)conns)[i], cmd);
}

/* Every node of conns[0..n) says cluster_state:ok and sees n nodes
 * connected, within ms. */
static void wait_ok(fetch_fn fetch, void *conns, int n, int ms) {
    long long end = h_now_ms() + h_scaled_ms(ms);
    for (;;) {
        int good = 0;
        char *info = NULL, *nodes = NULL;
        for (int i = 0; i < n; i++) {
            free(info);
            free(nodes);
            info = fetch(conns, i, "CLUSTER INFO");
            nodes = fetch(conns, i, "CLUSTER NODES");
            good += strstr(info, "cluster_state:ok") && connected_lines(nodes) == n;
        }
        if (good == n) {
            free(info);
            free(nodes);
            return;
        }
        ck_assert_msg(h_now_ms() < end, "the cluster never became ok:\n%s\n%s", info, nodes);
        free(info);
        free(nodes);
        h_sleep_ms(50);
    }
}

static void wait_ok_tls(tlsc **ts, int n, int ms) { wait_ok(fetch_tls, ts, n, ms); }
static void wait_ok_plain(redisContext **cs, int n, int ms) { wait_ok(fetch_plain, cs, n, ms); }

/* ---- ports ---- */

static int bindable(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    close(fd);
    return ok;
}

/* A TLS port whose bus port (+ 10000, as Redis derives it with
 * tls-cluster) is free too and below the kernel's ephemeral range, where
 * outgoing connections would take it. */
static int tls_port_pick(void) {
    for (int tries = 0; tries < 1000; tries++) {
        int p = h_free_port();
        if (p < 22000 && bindable(p + 10000)) return p;
    }
    ck_abort_msg("no free TLS port");
}

/* ---- redis-cli over TLS ---- */

static const char *tail(const char *s) {
    size_t n = strlen(s);
    return n > 1500 ? s + n - 1500 : s;
}

/* redis-cli --tls (the test CA, the client certificate) -p port, then
 * args (NULL-terminated): its status, its output in *out. */
static int cli(int port, char **out, int timeout_ms, const char *const *args) {
    char p[16];
    snprintf(p, sizeof p, "%d", port);
    const char *argv[48] = {"redis-cli", "--tls", "--cacert", ca, "--cert", ccert,
                            "--key", ckey, "-p", p};
    int n = 10;
    for (int i = 0; args[i] && n < 47; i++) argv[n++] = args[i];
    argv[n] = NULL;
    return h_run(NULL, out, h_scaled_ms(timeout_ms), argv);
}

/* nkeys keys written through port0 and read back through port1 with
 * redis-cli -c (the cluster client: it follows -MOVED). */
static void keys_roundtrip(int port0, int port1, int nkeys, const char *prefix) {
    for (int i = 0; i < nkeys; i++) {
        char key[64], val[64], *out;
        snprintf(key, sizeof key, "%s:%d", prefix, i);
        snprintf(val, sizeof val, "v-%s-%d", prefix, i);
        const char *set[] = {"-c", "SET", key, val, NULL};
        int st = cli(port0, &out, 10000, set);
        ck_assert_msg(st == 0 && strstr(out, "OK"), "redis-cli -c SET %s: %s", key, tail(out));
        free(out);
        const char *get[] = {"-c", "GET", key, NULL};
        st = cli(port1, &out, 10000, get);
        ck_assert_msg(st == 0 && strstr(out, val), "redis-cli -c GET %s: %s", key, tail(out));
        free(out);
    }
}

/* ---- tls_only: nodes with no plain port ---- */

typedef struct tnode {
    pid_t pid;
    int port;          /* the TLS port */
    char dir[256];
    char log[300];
} tnode;

static void tnode_spawn(tnode *n) {
    n->port = tls_port_pick();
    snprintf(n->dir, sizeof n->dir, "/tmp/verso-tlscl.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(n->dir));
    snprintf(n->log, sizeof n->log, "%s/server.log", n->dir);
    char port[16];
    snprintf(port, sizeof port, "%d", n->port);
    const char *argv[] = {srv_binary(), "--port", "0", "--bind", "127.0.0.1", "--dir", n->dir,
                          "--save", "", "--tls-port", port, "--tls-cert-file", scert,
                          "--tls-key-file", skey, "--tls-ca-cert-file", ca, "--tls-cluster",
                          "yes", "--cluster-enabled", "yes", "--cluster-node-timeout",
                          NODE_TIMEOUT, NULL};
    n->pid = h_spawn(argv, n->log);
}

/* Answers PING over TLS within 10 s: its connection. */
static tlsc *tnode_wait(const tnode *n) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        char err[256];
        tlsc *c = tlsc_connect(n->port, ccert, ckey, err, sizeof err);
        if (c) {
            redisReply *r = tlsc_cmd(c, "PING");
            int up = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
            freeReplyObject(r);
            if (up) return c;
            tlsc_close(c);
        }
        if (h_now_ms() > end) {
            size_t len;
            char *log = h_slurp(n->log, &len, 0);
            ck_abort_msg("TLS-only node on %d never answered: %s\n%s", n->port, err,
                         log ? tail(log) : "");
        }
        h_sleep_ms(20);
    }
}

static void tnode_stop(tnode *n) {
    h_spawn_kill(n->pid);
    char *out = NULL;
    const char *argv[] = {"rm", "-rf", n->dir, NULL};
    h_run(NULL, &out, 10000, argv);
    free(out);
}

static void assign_thirds(tlsc **ts) {
    tok(ts[0], "CLUSTER ADDSLOTSRANGE 0 5460");
    tok(ts[1], "CLUSTER ADDSLOTSRANGE 5461 10922");
    tok(ts[2], "CLUSTER ADDSLOTSRANGE 10923 16383");
}

START_TEST(tls_only) {
    certs();
    tnode n[3];
    tlsc *ts[3];
    for (int i = 0; i < 3; i++) tnode_spawn(&n[i]);
    for (int i = 0; i < 3; i++) ts[i] = tnode_wait(&n[i]);
    assign_thirds(ts);
    char meet[64];
    for (int i = 1; i < 3; i++) {
        snprintf(meet, sizeof meet, "CLUSTER MEET 127.0.0.1 %d", n[i].port);
        tok(ts[0], meet);
    }
    wait_ok_tls(ts, 3, 20000);
    /* every node is known by its TLS port, its bus on tls-port + 10000 */
    char *nodes = tstr(ts[1], "CLUSTER NODES");
    for (int i = 0; i < 3; i++) {
        char addr[64];
        snprintf(addr, sizeof addr, "127.0.0.1:%d@%d", n[i].port, n[i].port + 10000);
        ck_assert_msg(strstr(nodes, addr), "no %s in\n%s", addr, nodes);
    }
    free(nodes);
    /* the bus links are up: two per other node */
    char *info = tstr(ts[2], "CLUSTER INFO");
    ck_assert_msg(strstr(info, "cluster_known_nodes:3"), "%s", info);
    free(info);
    keys_roundtrip(n[0].port, n[2].port, 30, "only");
    for (int i = 0; i < 3; i++) { /* each node holds some of them */
        redisReply *r = tlsc_cmd(ts[i], "DBSIZE");
        ck_assert_ptr_nonnull(r);
        ck_assert_msg(r->type == REDIS_REPLY_INTEGER && r->integer > 0, "node %d has no key", i);
        freeReplyObject(r);
    }
    for (int i = 0; i < 3; i++) {
        tlsc_close(ts[i]);
        tnode_stop(&n[i]);
    }
}
END_TEST

/* ---- nodes with a plain port too (the harness's) ---- */

/* The arguments of a tls-cluster node on tls_port (buf holds them). */
static const char *node_args(char *buf, size_t cap, int tls_port, const char *extra) {
    snprintf(buf, cap, "%s --tls-cluster yes --cluster-enabled yes --cluster-node-timeout %s %s",
             tls_server_args(tls_port), NODE_TIMEOUT, extra ? extra : "");
    return buf;
}

static void node_id(redisContext *c, char id[41]) {
    char *s = plain_str(c, "CLUSTER MYID");
    ck_assert_uint_eq(strlen(s), 40);
    memcpy(id, s, 41);
    free(s);
}

/* The port CLUSTER SLOTS gives first for the slot range starting at
 * `start`, from a reply r. */
static long long slots_port(const redisReply *r, long long start) {
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *e = r->element[i];
        if (e->element[0]->integer == start) return e->element[2]->element[1]->integer;
    }
    ck_abort_msg("no range starting at %lld", start);
}

START_TEST(mixed) {
    certs();
    enum { N = 4 };
    int tp[N];
    char args[N][2048];
    h_srv_spec specs[N];
    for (int i = 0; i < N; i++) {
        tp[i] = tls_port_pick();
        /* the replica follows its primary's announced port: the TLS one */
        node_args(args[i], sizeof args[i], tp[i], i == 3 ? "--tls-replication yes" : NULL);
        specs[i] = (h_srv_spec){i >= 2, args[i]};
    }
    srv *s[N];
    h_srv_start_all(N, specs, s);
    redisContext *c[N];
    char id[N][41];
    for (int i = 0; i < N; i++) {
        c[i] = srv_connect(s[i]);
        node_id(c[i], id[i]);
    }
    expect_status(c[0], "OK", "CLUSTER ADDSLOTSRANGE 0 5460");
    expect_status(c[1], "OK", "CLUSTER ADDSLOTSRANGE 5461 10922");
    expect_status(c[2], "OK", "CLUSTER ADDSLOTSRANGE 10923 16383");
    for (int i = 1; i < N; i++) expect_status(c[0], "OK", "CLUSTER MEET 127.0.0.1 %d", tp[i]);
    wait_ok_plain(c, N, 20000);
    expect_status(c[3], "OK", "CLUSTER REPLICATE %s", id[0]);
    h_wait_info_str(c[3], "replication", "master_link_status", "up", 20000);
    /* the replica is known as such by every node */
    long long end = h_now_ms() + h_scaled_ms(10000);
    for (int i = 0; i < N; i++) {
        for (;;) {
            char *nodes = plain_str(c[i], "CLUSTER NODES");
            char *line = strstr(nodes, id[3]);
            int ok = line && strstr(line, "slave") && strstr(line, id[0]);
            free(nodes);
            if (ok) break;
            ck_assert_msg(h_now_ms() < end, "node %d never saw the replica", i);
            h_sleep_ms(50);
        }
    }
    /* a plain client is told the plain ports, a TLS one the TLS ports */
    for (int i = 0; i < 3; i++) {
        redisReply *r = cmd(c[i], "CLUSTER SLOTS");
        ck_assert_int_eq(slots_port(r, 0), s[0]->port);
        ck_assert_int_eq(slots_port(r, 10923), s[2]->port);
        freeReplyObject(r);
        tlsc *t = tconn(tp[i]);
        r = tlsc_cmd(t, "CLUSTER SLOTS");
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(slots_port(r, 0), tp[0]);
        ck_assert_int_eq(slots_port(r, 10923), tp[2]);
        freeReplyObject(r);
        char *nodes = tstr(t, "CLUSTER NODES"), addr[64];
        snprintf(addr, sizeof addr, "127.0.0.1:%d@%d", tp[1], tp[1] + 10000);
        ck_assert_msg(strstr(nodes, addr), "TLS client: no %s in\n%s", addr, nodes);
        free(nodes);
        nodes = plain_str(c[i], "CLUSTER NODES");
        snprintf(addr, sizeof addr, "127.0.0.1:%d@%d", s[1]->port, tp[1] + 10000);
        ck_assert_msg(strstr(nodes, addr), "plain client: no %s in\n%s", addr, nodes);
        free(nodes);
        tlsc_close(t);
    }
    /* -MOVED names the port of the client's kind, on verso and Redis */
    for (int i = 0; i < 2; i++) {
        redisReply *r = cmd(c[i], "CLUSTER KEYSLOT moved:{x}");
        long long slot = r->integer;
        freeReplyObject(r);
        ck_assert_int_ge(slot, 10923); /* node 2's */
        char want[96];
        snprintf(want, sizeof want, "MOVED %lld 127.0.0.1:%d", slot, s[2]->port);
        expect_error(c[i], want, "GET moved:{x}");
        tlsc *t = tconn(tp[i]);
        r = tlsc_cmd(t, "GET moved:{x}");
        ck_assert_ptr_nonnull(r);
        snprintf(want, sizeof want, "MOVED %lld 127.0.0.1:%d", slot, tp[2]);
        ck_assert_msg(r->type == REDIS_REPLY_ERROR && !strcmp(r->str, want), "TLS: %s, want %s",
                      r->str ? r->str : "?", want);
        freeReplyObject(r);
        tlsc_close(t);
    }
    keys_roundtrip(tp[2], tp[1], 30, "mixed");
    for (int i = 0; i < 3; i++) expect_int_range(c[i], 1, 30, "DBSIZE");
    /* the replica got its primary's keys over TLS */
    end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        redisReply *a = cmd(c[0], "DBSIZE"), *b = cmd(c[3], "DBSIZE");
        int same = a->integer == b->integer;
        freeReplyObject(a);
        freeReplyObject(b);
        if (same) break;
        ck_assert_msg(h_now_ms() < end, "the replica never caught up");
        h_sleep_ms(50);
    }
    for (int i = 0; i < N; i++) redisFree(c[i]);
}
END_TEST

/* ---- rogue ---- */

START_TEST(rogue) {
    certs();
    int tp[3];
    char args[3][2048];
    for (int i = 0; i < 3; i++) tp[i] = tls_port_pick();
    node_args(args[0], sizeof args[0], tp[0], "--loglevel verbose --cluster-node-timeout 1000");
    node_args(args[1], sizeof args[1], tp[1], "--cluster-node-timeout 1000");
    /* the rogue trusts the cluster's CA, but its own certificate comes
     * from the other CA (the later arguments override) */
    char extra[1200];
    snprintf(extra, sizeof extra, "--cluster-node-timeout 1000 --tls-cert-file %s "
             "--tls-key-file %s", tls_cert("rogue.crt"), tls_cert("rogue.key"));
    node_args(args[2], sizeof args[2], tp[2], extra);
    h_srv_spec specs[3] = {{0, args[0]}, {0, args[1]}, {0, args[2]}};
    srv *s[3];
    h_srv_start_all(3, specs, s);
    redisContext *a = srv_connect(s[0]), *b = srv_connect(s[1]), *r = srv_connect(s[2]);
    char aid[41], rid[41];
    node_id(a, aid);
    node_id(r, rid);
    expect_status(a, "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    expect_status(r, "OK", "CLUSTER MEET 127.0.0.1 %d", tp[0]);
    expect_status(a, "OK", "CLUSTER MEET 127.0.0.1 %d", tp[2]);
    expect_status(b, "OK", "CLUSTER MEET 127.0.0.1 %d", tp[0]);
    redisContext *good[2] = {a, b};
    wait_ok_plain(good, 2, 20000);
    /* both ways refused: A turns the rogue's links away, and will not
     * talk to a node that shows the rogue's certificate */
    const char *accept_err[] = {"Error accepting cluster node connection", NULL};
    ck_assert_msg(srv_log_wait_any(s[0], 10000, accept_err) == 0, "A never refused a link");
    const char *connect_err[] = {"Connection with Node", NULL};
    ck_assert_msg(srv_log_wait_any(s[0], 10000, connect_err) == 0,
                  "A's link to the rogue never failed");
    h_sleep_ms(h_scaled_ms(3000)); /* past the handshake timeout (node timeout) */
    char *an = plain_str(a, "CLUSTER NODES"), *rn = plain_str(r, "CLUSTER NODES");
    ck_assert_msg(!strstr(an, rid), "A knows the rogue:\n%s", an);
    ck_assert_msg(!strstr(rn, aid), "the rogue knows A:\n%s", rn);
    ck_assert_int_eq(connected_lines(an), 2);
    ck_assert_int_eq(connected_lines(rn), 1);
    free(an);
    free(rn);
    char *ri = plain_str(r, "CLUSTER INFO");
    ck_assert_msg(strstr(ri, "cluster_known_nodes:1"), "%s", ri);
    free(ri);
    redisFree(a);
    redisFree(b);
    redisFree(r);
}
END_TEST

/* ---- moving keys ---- */

/* A with every slot and nkeys keys, B with none: both tls-cluster. */
static void two_nodes(srv *s[2], int tp[2], char id[2][41], redisContext *c[2], int nkeys) {
    certs();
    char args[2][2048];
    h_srv_spec specs[2];
    for (int i = 0; i < 2; i++) {
        tp[i] = tls_port_pick();
        node_args(args[i], sizeof args[i], tp[i], NULL);
        specs[i] = (h_srv_spec){0, args[i]};
    }
    h_srv_start_all(2, specs, s);
    for (int i = 0; i < 2; i++) {
        c[i] = srv_connect(s[i]);
        node_id(c[i], id[i]);
    }
    expect_status(c[0], "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    expect_status(c[0], "OK", "CLUSTER MEET 127.0.0.1 %d", tp[1]);
    wait_ok_plain(c, 2, 20000);
    for (int i = 0; i < nkeys; i++) expect_status(c[0], "OK", "SET key:%d val:%d", i, i);
}

/* Keys of A in slots [lo, hi]. */
static long long keys_in(redisContext *c, int lo, int hi) {
    long long n = 0;
    for (int sl = lo; sl <= hi; sl++) {
        redisReply *r = cmd(c, "CLUSTER COUNTKEYSINSLOT %d", sl);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        n += r->integer;
        freeReplyObject(r);
    }
    return n;
}

static void all_keys_readable(int port, int nkeys) {
    for (int i = 0; i < nkeys; i += 7) {
        char key[32], val[32], *out;
        snprintf(key, sizeof key, "key:%d", i);
        snprintf(val, sizeof val, "val:%d", i);
        const char *get[] = {"-c", "GET", key, NULL};
        int st = cli(port, &out, 10000, get);
        ck_assert_msg(st == 0 && strstr(out, val), "GET %s: %s", key, tail(out));
        free(out);
    }
}

START_TEST(reshard) {
    srv *s[2];
    int tp[2];
    char id[2][41];
    redisContext *c[2];
    enum { NKEYS = 300 };
    two_nodes(s, tp, id, c, NKEYS);
    long long moving = keys_in(c[0], 0, 999);
    ck_assert_int_gt(moving, 0);
    char addr[64], *out;
    snprintf(addr, sizeof addr, "127.0.0.1:%d", tp[0]);
    const char *rs[] = {"--cluster", "reshard", addr, "--cluster-from", id[0], "--cluster-to",
                        id[1], "--cluster-slots", "1000", "--cluster-yes", NULL};
    int st = cli(tp[0], &out, 60000, rs);
    ck_assert_msg(st == 0, "reshard: %s", tail(out));
    free(out);
    /* B owns slots 0-999 and their keys, over TLS from A */
    expect_int(c[1], moving, "DBSIZE");
    expect_int(c[0], NKEYS - moving, "DBSIZE");
    char *nodes = plain_str(c[0], "CLUSTER NODES");
    char *line = strstr(nodes, id[1]);
    ck_assert_msg(line && strstr(line, " 0-999"), "B does not own 0-999:\n%s", nodes);
    free(nodes);
    const char *check[] = {"--cluster", "check", addr, NULL};
    st = cli(tp[0], &out, 30000, check);
    ck_assert_msg(st == 0 && strstr(out, "[OK] All 16384 slots covered"), "check: %s", tail(out));
    free(out);
    all_keys_readable(tp[1], NKEYS);
    redisFree(c[0]);
    redisFree(c[1]);
}
END_TEST

START_TEST(migrateslots) {
    srv *s[2];
    int tp[2];
    char id[2][41];
    redisContext *c[2];
    enum { NKEYS = 300 };
    two_nodes(s, tp, id, c, NKEYS);
    expect_status(c[0], "OK", "DEBUG POPULATE 40000 pop 2000");
    long long total = NKEYS + 40000;
    long long moving = keys_in(c[0], 0, 1999);
    ck_assert_int_gt(moving, 4000); /* some 10 MB through the link */
    expect_status(c[0], "OK", "CLUSTER MIGRATESLOTS SLOTSRANGE 0 1999 NODE %s", id[1]);
    long long end = h_now_ms() + h_scaled_ms(60000);
    for (;;) {
        redisReply *r = cmd(c[0], "CLUSTER GETSLOTMIGRATIONS");
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_ge(r->elements, 1);
        const redisReply *st = h_map_field(r->element[0], "state");
        ck_assert_ptr_nonnull(st);
        char state[64];
        snprintf(state, sizeof state, "%s", st->str);
        freeReplyObject(r);
        if (!strcmp(state, "success")) break;
        ck_assert_msg(strcmp(state, "failed") && strcmp(state, "cancelled"), "migration %s",
                      state);
        ck_assert_msg(h_now_ms() < end, "the migration never ended (%s)", state);
        h_sleep_ms(50);
    }
    expect_int(c[1], moving, "DBSIZE");
    /* the source drops the moved keys lazily */
    end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        redisReply *r = cmd(c[0], "DBSIZE");
        long long left = r->integer;
        freeReplyObject(r);
        if (left == total - moving) break;
        ck_assert_msg(h_now_ms() < end, "A still has %lld keys, want %lld", left,
                      total - moving);
        h_sleep_ms(20);
    }
    /* the atomic protocol ran (a snapshot), not the legacy fallback */
    ck_assert(srv_log_wait(s[0], "keys sent, streaming the writes since", 1000));
    ck_assert_int_eq(srv_log_count(s[0], "legacy protocol"), 0);
    end = h_now_ms() + h_scaled_ms(10000);
    for (;;) { /* B's ownership reaches both tables */
        char *na = plain_str(c[0], "CLUSTER NODES"), *nb = plain_str(c[1], "CLUSTER NODES");
        char *la = strstr(na, id[1]), *lb = strstr(nb, id[1]);
        int ok = la && strstr(la, " 0-1999") && lb && strstr(lb, " 0-1999");
        free(na);
        free(nb);
        if (ok) break;
        ck_assert_msg(h_now_ms() < end, "B never owned 0-1999 everywhere");
        h_sleep_ms(50);
    }
    all_keys_readable(tp[0], NKEYS);
    redisFree(c[0]);
    redisFree(c[1]);
}
END_TEST

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create("tls_cluster");
    h_add_dropall(s, "tls_only", tls_only, 120);
    h_add_dropall(s, "mixed", mixed, 120);
    h_add_dropall(s, "rogue", rogue, 120);
    h_add_dropall(s, "reshard", reshard, 120);
    if (!srv_is_reference()) h_add_dropall(s, "migrateslots", migrateslots, 120);
    return h_main(s);
}
