/* test_cluster_bus: verso nodes on the cluster bus with redis-server 7.0
 * nodes (cluster/bus.c, cluster/gossip.c). One cluster per program (one test case
 * running steps in order), its four nodes started in parallel: v1, v2 (the server under test) and r1, r2
 * (redis-server). The cases run in order on that cluster:
 *   meet        r1 meets v1 and r2, r2 meets v2; every node learns every
 *               other (verso nodes find each other and r2 by gossip): the
 *               redis nodes list the verso nodes connected, with the same
 *               ids, as masters, no handshake left; v1's announced hostname
 *               reaches them (the ping extension)
 *   slots       slots added on r1 and r2 are learned by the verso nodes: a
 *               key's MOVED on v1 and v2 names its owner
 *   publish     PUBLISH on one node reaches subscribers on the others (redis
 *               to verso, verso to redis, verso to verso)
 *   bad_bus     a garbage start, a length under the header's and an absurd
 *               length on v1's bus port each close that connection; v1 goes
 *               on (answers, still routes, still in the cluster)
 *   fail        r2 killed: the verso nodes mark it PFAIL (CLUSTERDOWN: a
 *               minority of slot owners reachable) and report it in their
 *               gossip (r1 counts their failure reports); r2 back on another
 *               port: the verso nodes take its new address from its PING, and
 *               route to it again once its FAIL clears */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT_MS 1500
enum { V1, V2, R1, R2, NNODES };

static srv *node[NNODES];
static int bus_port[NNODES];
static char ids[NNODES][64];

/* v1 announces a hostname (the ping extension) */
static const char *node_args(int i, char *buf, size_t cap) {
    snprintf(buf, cap, "--cluster-enabled yes --cluster-node-timeout %d --cluster-port %d%s",
             TIMEOUT_MS, bus_port[i], i == V1 ? " --cluster-announce-hostname v1.example" : "");
    return buf;
}

static void cluster_start(void) {
    if (node[0]) return;
    char args[NNODES][256];
    h_srv_spec specs[NNODES];
    for (int i = 0; i < NNODES; i++) {
        bus_port[i] = h_free_port();
        specs[i] = (h_srv_spec){i >= R1, node_args(i, args[i], sizeof args[i])};
    }
    h_srv_start_all(NNODES, specs, node);
}

/* ---- CLUSTER NODES of a redis node ---- */

typedef struct {
    char id[64];
    char addr[128];
    char flags[128];
    char link[32];
} node_line;

/* The line of the node at 127.0.0.1:port in c's CLUSTER NODES (1), or 0. */
static int nodes_line(redisContext *c, int port, node_line *out) {
    redisReply *r = cmd(c, "CLUSTER NODES");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%d@", port);
    int found = 0;
    for (char *line = strtok(r->str, "\n"); line && !found; line = strtok(NULL, "\n")) {
        char id[64], addr[128], flags[128], primary[64], link[32];
        long long ps, pr, ep;
        if (sscanf(line, "%63s %127s %127s %63s %lld %lld %lld %31s", id, addr, flags, primary,
                   &ps, &pr, &ep, link) != 8)
            continue;
        if (strncmp(addr, want, strlen(want)) != 0) continue;
        snprintf(out->id, sizeof out->id, "%s", id);
        snprintf(out->addr, sizeof out->addr, "%s", addr);
        snprintf(out->flags, sizeof out->flags, "%s", flags);
        snprintf(out->link, sizeof out->link, "%s", link);
        found = 1;
    }
    freeReplyObject(r);
    return found;
}

/* Polls until c lists the node on port connected, out of handshake. */
static void wait_known(redisContext *c, int port, node_line *out) {
    long long end = h_now_ms() + h_scaled_ms(15000);
    while (h_now_ms() < end) {
        if (nodes_line(c, port, out) && !strcmp(out->link, "connected") &&
            !strstr(out->flags, "handshake") && !strstr(out->flags, "noaddr"))
            return;
        h_sleep_ms(50);
    }
    ck_abort_msg("node on port %d not known and connected (last flags '%s' link '%s')", port,
                 out->flags, out->link);
}

/* ---- replies that take a while ---- */

/* Polls c with fmt until its reply (error or status text) is want. */
static void wait_reply(redisContext *c, const char *want, int timeout_ms, const char *fmt,
                       const char *arg) {
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    char last[256] = "";
    while (h_now_ms() < end) {
        redisReply *r = cmd(c, fmt, arg);
        h_reply_str(r, last, sizeof last);
        int ok = (r->type == REDIS_REPLY_ERROR || r->type == REDIS_REPLY_STATUS ||
                  r->type == REDIS_REPLY_STRING) && !strcmp(r->str, want);
        freeReplyObject(r);
        if (ok) return;
        h_sleep_ms(50);
    }
    ck_abort_msg("'%s %s': waited for '%s', last %s", fmt, arg, want, last);
}

static void expect_moved(redisContext *c, const char *key, int slot, int port) {
    char want[64];
    snprintf(want, sizeof want, "MOVED %d 127.0.0.1:%d", slot, port);
    wait_reply(c, want, 10000, "GET %s", key);
}

/* ---- the cases ---- */

static void meet(void) {
    redisContext *r1 = srv_connect(node[R1]), *r2 = srv_connect(node[R2]);
    expect_status(r1, "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[V1]->port, bus_port[V1]);
    expect_status(r1, "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[R2]->port, bus_port[R2]);
    expect_status(r2, "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[V2]->port, bus_port[V2]);
    node_line l1, l2;
    for (int i = 0; i < NNODES; i++) {
        if (i == R1 || i == R2) continue;
        wait_known(r1, node[i]->port, &l1);
        wait_known(r2, node[i]->port, &l2);
        ck_assert_str_eq(l1.id, l2.id);
        ck_assert_str_eq(l1.flags, "master");
        ck_assert_str_eq(l2.flags, "master");
        snprintf(ids[i], sizeof ids[i], "%s", l1.id);
    }
    wait_known(r1, node[R2]->port, &l1);
    snprintf(ids[R2], sizeof ids[R2], "%s", l1.id);
    wait_known(r2, node[R1]->port, &l2);
    snprintf(ids[R1], sizeof ids[R1], "%s", l2.id);
    /* the address each redis node gives a verso node is the one it listens on */
    char want[64];
    snprintf(want, sizeof want, "127.0.0.1:%d@%d", node[V2]->port, bus_port[V2]);
    nodes_line(r1, node[V2]->port, &l1);
    ck_assert_str_eq(l1.addr, want);
    /* v1's hostname came in its ping extension */
    snprintf(want, sizeof want, "127.0.0.1:%d@%d,v1.example", node[V1]->port, bus_port[V1]);
    nodes_line(r2, node[V1]->port, &l2);
    ck_assert_str_eq(l2.addr, want);
    redisFree(r1);
    redisFree(r2);
}

static void slots(void) {
    redisContext *r1 = srv_connect(node[R1]), *r2 = srv_connect(node[R2]);
    redisContext *v1 = srv_connect(node[V1]), *v2 = srv_connect(node[V2]);
    expect_status(r1, "OK", "CLUSTER ADDSLOTSRANGE 0 8191");
    expect_status(r2, "OK", "CLUSTER ADDSLOTSRANGE 8192 16383");
    /* "b" hashes to 3300 (r1's), "foo" to 12182 (r2's) */
    expect_moved(v1, "b", 3300, node[R1]->port);
    expect_moved(v1, "foo", 12182, node[R2]->port);
    expect_moved(v2, "b", 3300, node[R1]->port);
    expect_moved(v2, "foo", 12182, node[R2]->port);
    redisFree(r1);
    redisFree(r2);
    redisFree(v1);
    redisFree(v2);
}

/* Every node has a subscriber of "ch"; a PUBLISH on each node in turn
 * reaches all four once (its own locally, the others over the bus). */
static void publish_everywhere(void) {
    redisContext *sub[NNODES], *c[NNODES];
    for (int i = 0; i < NNODES; i++) {
        sub[i] = srv_connect(node[i]);
        c[i] = srv_connect(node[i]);
        redisSetTimeout(sub[i], (struct timeval){h_scaled_ms(5000) / 1000, 0});
        h_send(sub[i], "SUBSCRIBE ch");
        redisReply *r = h_next_reply(sub[i]);
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        freeReplyObject(r);
    }
    for (int from = 0; from < NNODES; from++) {
        char msg[32];
        snprintf(msg, sizeof msg, "from-%d", from);
        expect_int(c[from], 1, "PUBLISH ch %s", msg);
        for (int i = 0; i < NNODES; i++) {
            redisReply *r = h_next_reply(sub[i]);
            ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3,
                          "subscriber on node %d: no message from node %d", i, from);
            check_bulk(r->element[0], "message");
            check_bulk(r->element[1], "ch");
            check_bulk(r->element[2], msg);
            freeReplyObject(r);
        }
    }
    /* nothing more came: the next reply is PING's */
    for (int i = 0; i < NNODES; i++) {
        h_send(sub[i], "PING");
        redisReply *r = h_next_reply(sub[i]);
        ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 2, "node %d: extra reply", i);
        check_bulk(r->element[0], "pong");
        freeReplyObject(r);
        redisFree(sub[i]);
        redisFree(c[i]);
    }
}

static void put32be(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* A connection to v1's bus port that sends len bytes of msg: 1 when v1
 * closed it within a second. */
static int bus_closes(const uint8_t *msg, size_t len) {
    int fd = raw_connect(bus_port[V1]);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(raw_send(fd, msg, len), 0);
    int closed = raw_wait_closed(fd, h_scaled_ms(1000), NULL);
    close(fd);
    return closed;
}

static void bad_bus(void) {
    static uint8_t m[2256];
    memcpy(m, "GARBAGE!GARBAGE!", 16);
    ck_assert_msg(bus_closes(m, 16), "a wrong signature did not close the link");
    memcpy(m, "RCmb", 4);
    put32be(m + 4, 100);               /* under the header's 2256 */
    ck_assert_msg(bus_closes(m, 8), "a short length did not close the link");
    /* an absurd length: verso refuses it at once; redis-server 7.0 has no
     * upper bound and waits for the bytes */
    put32be(m + 4, 0xfffffff0u);
    ck_assert_msg(bus_closes(m, 8) == !srv_is_reference(), "an absurd length: wrong handling");
    /* framed right but of protocol version 2: dropped, the link kept (as
     * Redis 7.0's clusterProcessPacket) */
    memset(m, 0, sizeof m);
    memcpy(m, "RCmb", 4);
    put32be(m + 4, sizeof m);
    m[9] = 2;
    ck_assert_msg(!bus_closes(m, sizeof m), "a version 2 message closed the link");
    redisContext *v1 = srv_connect(node[V1]), *r1 = srv_connect(node[R1]);
    expect_status(v1, "PONG", "PING");
    expect_moved(v1, "foo", 12182, node[R2]->port);
    node_line l;
    wait_known(r1, node[V1]->port, &l);
    redisFree(v1);
    redisFree(r1);
}

/* r2 killed: PFAIL on the verso nodes (their routing says the cluster is
 * down), reported in their gossip; back on another port, the verso nodes
 * learn its address and route to it again once its FAIL clears. */
static void node_fails(void) {
    redisContext *v1 = srv_connect(node[V1]), *v2 = srv_connect(node[V2]);
    redisContext *r1 = srv_connect(node[R1]);
    srv_kill9(node[R2]);
    wait_reply(v1, "CLUSTERDOWN The cluster is down", 10000, "GET %s", "b");
    wait_reply(v2, "CLUSTERDOWN The cluster is down", 10000, "GET %s", "b");
    /* r1 hears of r2's failure from both verso nodes (masters, so their
     * reports count) */
    long long end = h_now_ms() + h_scaled_ms(10000), reports = 0;
    while (h_now_ms() < end && reports < 2) {
        redisReply *r = cmd(r1, "CLUSTER COUNT-FAILURE-REPORTS %s", ids[R2]);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        reports = r->integer;
        freeReplyObject(r);
        h_sleep_ms(50);
    }
    ck_assert_int_ge(reports, 2);
    node_line l;
    end = h_now_ms() + h_scaled_ms(10000);
    while (h_now_ms() < end && !(nodes_line(r1, node[R2]->port, &l) && strstr(l.flags, "fail") &&
                                 !strstr(l.flags, "fail?")))
        h_sleep_ms(50);
    ck_assert_msg(strstr(l.flags, "fail") && !strstr(l.flags, "fail?"), "r2 flags '%s'", l.flags);

    /* back, with its nodes.conf (its id), on new ports */
    char args[256];
    bus_port[R2] = h_free_port();
    node[R2] = h_srv_start_redis("--dir '%s' %s", node[R2]->dir,
                                 node_args(R2, args, sizeof args));
    expect_moved(v1, "foo", 12182, node[R2]->port);
    expect_moved(v2, "foo", 12182, node[R2]->port);
    wait_known(r1, node[R2]->port, &l);
    ck_assert_str_eq(l.id, ids[R2]);
    redisFree(v1);
    redisFree(v2);
    redisFree(r1);
}

/* One cluster, its steps in order (a forked test case could not share it). */
START_TEST(bus) {
    cluster_start();
    long long t0 = h_now_ms();
    meet();
    fprintf(stderr, "meet: %lld ms\n", h_now_ms() - t0);
    slots();
    fprintf(stderr, "slots: %lld ms\n", h_now_ms() - t0);
    publish_everywhere();
    fprintf(stderr, "publish: %lld ms\n", h_now_ms() - t0);
    bad_bus();
    fprintf(stderr, "bad_bus: %lld ms\n", h_now_ms() - t0);
    node_fails();
    fprintf(stderr, "fail: %lld ms\n", h_now_ms() - t0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_bus");
    h_add_dropall(s, "bus", bus, 60);
    return h_main(s);
}
