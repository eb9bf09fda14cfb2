/* test_cluster_bus: verso nodes on the cluster bus with redis-server 7.0
 * nodes (cluster/bus.c, cluster/gossip.c). One cluster per program (one
 * test case running its steps in order), five nodes started in parallel:
 * v1, v2 (the server under test) and r1, r2, r3 (redis-server). The steps:
 *   meet        r1 meets v1 (redis to verso), v2 meets r2 (verso to redis),
 *               r1 meets r2; everyone learns everyone else by gossip. Every
 *               node lists the other four connected, with the same ids, as
 *               masters, no handshake left; v1's announced hostname reaches
 *               the redis nodes (the ping extension); CLUSTER LINKS on v1
 *               has a link to and from each other node
 *   slots       r1, v1 and r2 each add a range: every node routes a key of
 *               each range to its owner (MOVED), v1 serves its own
 *   spublish    r3 (redis) becomes v1's replica; SPUBLISH on v1 reaches an
 *               SSUBSCRIBE on r3 (v1 sends PUBLISHSHARD to its shard); every
 *               node sees r3 as v1's replica
 *   publish     PUBLISH on each node reaches a subscriber on every node,
 *               300 kB messages too
 *   slot_moves  r1 takes one of v1's slots with a newer epoch: every node
 *               routes it to r1, v1 drops its keys (not its replica: as
 *               redis-server 7.0, no DEL is propagated)
 *   stale_claim a PING from v1's replica advertising the slot v1 lost gets
 *               an UPDATE about its new owner from v1 (counted on both)
 *   bad_bus     a garbage start, a length under the header's and an absurd
 *               length on v1's bus port each close that connection (redis
 *               waits for an absurd length instead); a version-2 message is
 *               dropped, its link kept; v1 goes on
 *   sendbuf_limit  a bus peer that reads nothing: its link is freed once
 *               over cluster-link-sendbuf-limit, and counted in CLUSTER INFO
 *   fail        r2 killed: PFAIL on v1 (its debug line, as Redis's), then
 *               FAIL on the verso nodes (their reports counted by r1),
 *               CLUSTERDOWN; r2 back on other ports: the verso
 *               nodes take its new address, FAIL clears, MOVED names it again
 *   verso_restarts  v2 killed, FAIL on r1; started on its nodes.conf on
 *               other ports: everyone lists it at its new address, it lists
 *               everyone, FAIL cleared
 *   forget      CLUSTER FORGET r3 on v2: v2 does not list it again while the
 *               other nodes keep gossiping about it (the 60 s blacklist)
 *   update      an UPDATE giving a slot to v2 with a newer config epoch:
 *               v1 routes the slot to v2 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define TIMEOUT_MS 1500
enum { V1, V2, R1, R2, R3, NNODES };

static srv *node[NNODES];
static int bus_port[NNODES];
static char ids[NNODES][64];

/* v1 announces a hostname (the ping extension) and logs at debug level
 * (its PFAIL line) */
static const char *node_args(int i, char *buf, size_t cap) {
    snprintf(buf, cap, "--cluster-enabled yes --cluster-node-timeout %d --cluster-port %d%s",
             TIMEOUT_MS, bus_port[i], i == V1 ? " --cluster-announce-hostname v1.example --loglevel debug" : "");
    return buf;
}

static void cluster_start(void) {
    char args[NNODES][256];
    h_srv_spec specs[NNODES];
    for (int i = 0; i < NNODES; i++) {
        bus_port[i] = h_free_port();
        specs[i] = (h_srv_spec){i >= R1, node_args(i, args[i], sizeof args[i])};
    }
    h_srv_start_all(NNODES, specs, node);
}

/* ---- CLUSTER NODES ---- */

typedef struct {
    char id[64];
    char addr[128];
    char flags[128];
    char primary[64];
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
        node_line l;
        long long ps, pr, ep;
        if (sscanf(line, "%63s %127s %127s %63s %lld %lld %lld %31s", l.id, l.addr, l.flags,
                   l.primary, &ps, &pr, &ep, l.link) != 8)
            continue;
        if (strncmp(l.addr, want, strlen(want)) != 0) continue;
        *out = l;
        found = 1;
    }
    freeReplyObject(r);
    return found;
}

/* 1 when c's CLUSTER NODES has a line for the node named id. */
static int nodes_has_id(redisContext *c, const char *id) {
    redisReply *r = cmd(c, "CLUSTER NODES");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    int found = strstr(r->str, id) != NULL;
    freeReplyObject(r);
    return found;
}

/* Polls until c lists the node on port with flags `flags` exactly (NULL:
 * any without handshake or noaddr), connected unless the flags say fail. */
static void wait_node(redisContext *c, int port, const char *flags, node_line *out) {
    long long end = h_now_ms() + h_scaled_ms(15000);
    memset(out, 0, sizeof *out);
    while (h_now_ms() < end) {
        int want_link = !flags || !strstr(flags, "fail");
        if (nodes_line(c, port, out) && (!want_link || !strcmp(out->link, "connected")) &&
            (flags ? !strcmp(out->flags, flags)
                   : !strstr(out->flags, "handshake") && !strstr(out->flags, "noaddr")))
            return;
        h_sleep_ms(50);
    }
    ck_abort_msg("node on port %d: waited for flags '%s' connected, last flags '%s' link '%s'",
                 port, flags ? flags : "(any)", out->flags, out->link);
}

/* ---- replies that take a while ---- */

/* Polls c with "<fmt> arg" until its reply's text (error, status, bulk) is
 * want. */
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

/* A key "k<n>" whose slot is in [lo, hi] (its slot in *slot). */
static void key_in(redisContext *c, int lo, int hi, char *key, size_t cap, int *slot) {
    for (int n = 0; n < 100000; n++) {
        snprintf(key, cap, "k%d", n);
        redisReply *r = cmd(c, "CLUSTER KEYSLOT %s", key);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        *slot = (int)r->integer;
        freeReplyObject(r);
        if (*slot >= lo && *slot <= hi) return;
    }
    ck_abort_msg("no key in slots %d-%d", lo, hi);
}

/* A CLUSTER INFO field's value (0 when absent: the per-type message
 * counters are written only once not 0). */
static long long cluster_info_int(redisContext *c, const char *field) {
    redisReply *r = cmd(c, "CLUSTER INFO");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char buf[64] = "0";
    h_info_field(r->str, field, buf, sizeof buf);
    freeReplyObject(r);
    return atoll(buf);
}

/* ---- the steps ---- */

static void check_links(redisContext *v1) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    redisReply *r = NULL;
    while (h_now_ms() < end) {
        r = expect_array(v1, -1, "CLUSTER LINKS");
        if (r->elements == 2 * (NNODES - 1)) break;
        freeReplyObject(r);
        r = NULL;
        h_sleep_ms(50);
    }
    ck_assert_msg(r, "CLUSTER LINKS never had a link to and from each node");
    for (int i = V2; i < NNODES; i++) {
        int to = 0, from = 0;
        for (size_t j = 0; j < r->elements; j++) {
            const redisReply *m = r->element[j];
            ck_assert_uint_eq(m->elements, 12); /* 6 fields, RESP2 */
            const redisReply *n = h_map_field(m, "node"), *d = h_map_field(m, "direction");
            ck_assert(n && d && h_map_field(m, "create-time") && h_map_field(m, "events") &&
                      h_map_field(m, "send-buffer-allocated") &&
                      h_map_field(m, "send-buffer-used"));
            if (strcmp(n->str, ids[i]) != 0) continue;
            to += !strcmp(d->str, "to");
            from += !strcmp(d->str, "from");
        }
        ck_assert_msg(to == 1 && from == 1, "node %d: %d links to, %d from", i, to, from);
    }
    freeReplyObject(r);
}

static void meet(void) {
    redisContext *c[NNODES];
    for (int i = 0; i < NNODES; i++) c[i] = srv_connect(node[i]);
    for (int i = 0; i < NNODES; i++) {
        redisReply *r = cmd(c[i], "CLUSTER MYID");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        snprintf(ids[i], sizeof ids[i], "%s", r->str);
        freeReplyObject(r);
    }
    expect_status(c[R1], "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[V1]->port, bus_port[V1]);
    expect_status(c[V2], "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[R2]->port, bus_port[R2]);
    expect_status(c[R1], "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[R2]->port, bus_port[R2]);
    expect_status(c[R2], "OK", "CLUSTER MEET 127.0.0.1 %d %d", node[R3]->port, bus_port[R3]);
    for (int i = 0; i < NNODES; i++)
        for (int j = 0; j < NNODES; j++) {
            if (i == j) continue;
            node_line l;
            wait_node(c[i], node[j]->port, "master", &l);
            ck_assert_str_eq(l.id, ids[j]);
        }
    /* the address and hostname the redis nodes give the verso nodes */
    node_line l;
    char want[128];
    snprintf(want, sizeof want, "127.0.0.1:%d@%d", node[V2]->port, bus_port[V2]);
    nodes_line(c[R1], node[V2]->port, &l);
    ck_assert_str_eq(l.addr, want);
    snprintf(want, sizeof want, "127.0.0.1:%d@%d,v1.example", node[V1]->port, bus_port[V1]);
    nodes_line(c[R2], node[V1]->port, &l);
    ck_assert_str_eq(l.addr, want);
    check_links(c[V1]);
    /* INFO's figure: 2 per node but myself, as Redis 7.0 counts it */
    ck_assert_int_eq(h_info_int(c[V1], "clients", "cluster_connections"), 2 * (NNODES - 1));
    ck_assert_int_gt(h_info_int(c[V1], "memory", "mem_cluster_links"), 0);
    for (int i = 0; i < NNODES; i++) redisFree(c[i]);
}

static char key_r1[32], key_v1[32], key_r2[32];
static int slot_r1, slot_v1, slot_r2;

static void slots(void) {
    redisContext *c[NNODES];
    for (int i = 0; i < NNODES; i++) c[i] = srv_connect(node[i]);
    expect_status(c[R1], "OK", "CLUSTER ADDSLOTSRANGE 0 5000");
    expect_status(c[V1], "OK", "CLUSTER ADDSLOTSRANGE 5001 10000");
    expect_status(c[R2], "OK", "CLUSTER ADDSLOTSRANGE 10001 16383");
    key_in(c[V1], 0, 5000, key_r1, sizeof key_r1, &slot_r1);
    key_in(c[V1], 5001, 10000, key_v1, sizeof key_v1, &slot_v1);
    key_in(c[V1], 10001, 16383, key_r2, sizeof key_r2, &slot_r2);
    for (int i = 0; i < NNODES; i++) {
        if (i != R1) expect_moved(c[i], key_r1, slot_r1, node[R1]->port);
        if (i != V1) expect_moved(c[i], key_v1, slot_v1, node[V1]->port);
        if (i != R2) expect_moved(c[i], key_r2, slot_r2, node[R2]->port);
    }
    expect_status(c[V1], "OK", "SET %s x", key_v1);
    expect_bulk(c[V1], "x", "GET %s", key_v1);
    for (int i = 0; i < NNODES; i++) redisFree(c[i]);
}

/* r3 replicates v1; an SPUBLISH on v1 reaches r3's shard subscriber. */
static void spublish(void) {
    redisContext *c[NNODES];
    for (int i = 0; i < NNODES; i++) c[i] = srv_connect(node[i]);
    expect_status(c[R3], "OK", "CLUSTER REPLICATE %s", ids[V1]);
    for (int i = 0; i < NNODES; i++) {
        if (i == R3) continue;
        node_line l;
        wait_node(c[i], node[R3]->port, "slave", &l);
        ck_assert_str_eq(l.primary, ids[V1]);
    }
    /* the replica is in sync (it serves v1's key under READONLY) */
    expect_status(c[R3], "OK", "READONLY");
    wait_reply(c[R3], "x", 10000, "GET %s", key_v1);

    redisContext *sub = srv_connect(node[R3]);
    redisSetTimeout(sub, (struct timeval){h_scaled_ms(5000) / 1000, 0});
    h_send(sub, "SSUBSCRIBE %s", key_v1);
    redisReply *r = h_next_reply(sub);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3, "SSUBSCRIBE on r3 refused");
    check_bulk(r->element[0], "ssubscribe");
    freeReplyObject(r);
    expect_int(c[V1], 0, "SPUBLISH %s hello-shard", key_v1); /* none on v1 itself */
    r = h_next_reply(sub);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3, "no smessage on r3");
    check_bulk(r->element[0], "smessage");
    check_bulk(r->element[1], key_v1);
    check_bulk(r->element[2], "hello-shard");
    freeReplyObject(r);
    redisFree(sub);
    for (int i = 0; i < NNODES; i++) redisFree(c[i]);
}

/* Every node has a subscriber of "ch"; a PUBLISH on each node in turn
 * reaches all of them once (its own locally, the others over the bus). */
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
    /* then a 300 kB message each way between verso and redis (read in
     * many pieces, a buffer grown for it) */
    static char big[300 * 1024 + 1];
    memset(big, 'm', sizeof big - 1);
    for (int round = 0; round < NNODES + 2; round++) {
        int from = round < NNODES ? round : round == NNODES ? V1 : R1;
        char small[32];
        snprintf(small, sizeof small, "from-%d", from);
        const char *msg = round < NNODES ? small : big;
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
    /* nothing more came (no copy through replication): the next reply is PING's */
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

/* r1 takes v1's slot of key_v1 (SETSLOT IMPORTING, then NODE: a new
 * config epoch): every node learns it, v1 deletes the slot's keys and its
 * replica r3 (a redis-server) follows: verso propagates the DELs, where a
 * redis-server 7.0 master (the reference run) leaves them on its replica. */
static void slot_moves(void) {
    redisContext *c[NNODES];
    for (int i = 0; i < NNODES; i++) c[i] = srv_connect(node[i]);
    expect_int(c[V1], 1, "CLUSTER COUNTKEYSINSLOT %d", slot_v1);
    expect_status(c[R1], "OK", "CLUSTER SETSLOT %d IMPORTING %s", slot_v1, ids[V1]);
    expect_status(c[R1], "OK", "CLUSTER SETSLOT %d NODE %s", slot_v1, ids[R1]);
    for (int i = 0; i < NNODES; i++)
        if (i != R1 && i != R3) expect_moved(c[i], key_v1, slot_v1, node[R1]->port);
    expect_int(c[V1], 0, "CLUSTER COUNTKEYSINSLOT %d", slot_v1);
    /* Redis 7.0's delKeysInSlot propagates no DEL: its replica keeps them;
     * verso's background dropper sends them soon after */
    long long left = 1;
    for (int waited = 0; waited < h_scaled_ms(5000) && left != 0; waited += 50) {
        h_sleep_ms(srv_is_reference() ? 200 : 50);
        redisReply *r = redisCommand(c[R3], "CLUSTER COUNTKEYSINSLOT %d", slot_v1);
        ck_assert(r && r->type == REDIS_REPLY_INTEGER);
        left = r->integer;
        freeReplyObject(r);
        if (srv_is_reference()) break;
    }
    ck_assert_int_eq(left, srv_is_reference() ? 1 : 0);
    for (int i = 0; i < NNODES; i++) redisFree(c[i]);
}

static void put32be(uint8_t *p, uint32_t v);

/* A PING as r3 would send it before it learned that v1 lost slot_v1: a
 * replica of v1 advertising v1's old slots. v1 answers the stale claim
 * with an UPDATE about the slot's new owner, on its own link to r3. */
static void stale_claim_updated(void) {
    redisContext *v1 = srv_connect(node[V1]), *r3 = srv_connect(node[R3]);
    long long sent = cluster_info_int(v1, "cluster_stats_messages_update_sent");
    long long got = cluster_info_int(r3, "cluster_stats_messages_update_received");
    static uint8_t ping[2256];
    memcpy(ping, "RCmb", 4);
    put32be(ping + 4, sizeof ping);
    ping[9] = 1;                                           /* version */
    ping[10] = (uint8_t)(node[R3]->port >> 8);
    ping[11] = (uint8_t)node[R3]->port;
    memcpy(ping + 40, ids[R3], 40);                        /* sender */
    ping[80 + slot_v1 / 8] |= (uint8_t)(1u << (slot_v1 % 8)); /* myslots */
    memcpy(ping + 2128, ids[V1], 40);                      /* slaveof */
    ping[2248] = (uint8_t)(bus_port[R3] >> 8);             /* cport */
    ping[2249] = (uint8_t)bus_port[R3];
    ping[2251] = 2;                                        /* flags: slave */
    int fd = raw_connect(bus_port[V1]);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(raw_send(fd, ping, sizeof ping), 0);
    long long end = h_now_ms() + h_scaled_ms(5000);
    while (h_now_ms() < end &&
           cluster_info_int(r3, "cluster_stats_messages_update_received") == got)
        h_sleep_ms(20);
    ck_assert_int_gt(cluster_info_int(v1, "cluster_stats_messages_update_sent"), sent);
    ck_assert_int_gt(cluster_info_int(r3, "cluster_stats_messages_update_received"), got);
    close(fd);
    redisFree(v1);
    redisFree(r3);
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
    /* version 1, an unknown type: dropped, the link kept (Redis 7.0 logs
     * "Received unknown packet type" and goes on) */
    m[9] = 1;
    m[12] = 0;
    m[13] = 99;
    ck_assert_msg(!bus_closes(m, sizeof m), "an unknown type closed the link");
    /* a FAIL whose length is a PING's (no body): dropped, the link kept */
    m[13] = 3;
    ck_assert_msg(!bus_closes(m, sizeof m), "a FAIL without its body closed the link");
    /* truncated: a PING's first 1000 bytes, then the peer goes away */
    m[13] = 0;
    int fd = raw_connect(bus_port[V1]);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(raw_send(fd, m, 1000), 0);
    close(fd);
    redisContext *v1 = srv_connect(node[V1]), *r1 = srv_connect(node[R1]);
    expect_status(v1, "PONG", "PING");
    expect_moved(v1, key_r2, slot_r2, node[R2]->port);
    node_line l;
    wait_node(r1, node[V1]->port, "master", &l);
    redisFree(v1);
    redisFree(r1);
}


/* A link whose peer reads nothing: v1 answers each PING with a PONG until
 * the link's send buffer passes cluster-link-sendbuf-limit, then frees the
 * link and counts it. The PINGs carry v2's name and address (so that the
 * link is v2's inbound one: Redis checks only the links of known nodes). */
static void sendbuf_limit(void) {
    redisContext *v1 = srv_connect(node[V1]);
    long long before = cluster_info_int(v1, "total_cluster_links_buffer_limit_exceeded");
    expect_status(v1, "OK", "CONFIG SET cluster-link-sendbuf-limit 65536");
    static uint8_t ping[2256];
    memcpy(ping, "RCmb", 4);
    put32be(ping + 4, sizeof ping);
    ping[9] = 1;                                           /* version */
    ping[10] = (uint8_t)(node[V2]->port >> 8);
    ping[11] = (uint8_t)node[V2]->port;
    memcpy(ping + 40, ids[V2], 40);                        /* sender */
    ping[2248] = (uint8_t)(bus_port[V2] >> 8);             /* cport */
    ping[2249] = (uint8_t)bus_port[V2];
    ping[2251] = 1;                                        /* flags: master */
    int fd = raw_connect_rcvbuf(bus_port[V1], 4096);
    ck_assert_int_ge(fd, 0);
    int sent = 0;
    while (sent < 8000 && raw_send(fd, ping, sizeof ping) == 0) sent++;
    ck_assert_msg(raw_wait_closed(fd, h_scaled_ms(5000), NULL),
                  "the link over its send buffer limit stayed open (%d PINGs sent)", sent);
    close(fd);
    long long end = h_now_ms() + h_scaled_ms(2000), after = before;
    while (h_now_ms() < end && after == before) {
        after = cluster_info_int(v1, "total_cluster_links_buffer_limit_exceeded");
        h_sleep_ms(20);
    }
    ck_assert_int_gt(after, before);
    expect_status(v1, "OK", "CONFIG SET cluster-link-sendbuf-limit 0");
    node_line l;
    wait_node(v1, node[V2]->port, "master", &l);
    redisFree(v1);
}

/* r2 killed: FAIL on the verso nodes, reported in their gossip; back on
 * other ports, its new address learned and its FAIL cleared. */
static void node_fails(void) {
    redisContext *v1 = srv_connect(node[V1]), *v2 = srv_connect(node[V2]);
    redisContext *r1 = srv_connect(node[R1]);
    srv_kill9(node[R2]);
    /* v1 flags r2 PFAIL itself, or first hears r2's FAIL from a node that
     * reached the quorum sooner (the reports below show v1 had it PFAIL) */
    char pfail[128], failmsg[160];
    snprintf(pfail, sizeof pfail, "*** NODE %s possibly failing", ids[R2]);
    snprintf(failmsg, sizeof failmsg, "about %s", ids[R2]);
    const char *either[] = {pfail, failmsg, NULL};
    ck_assert_msg(srv_log_wait_any(node[V1], 10000, either) >= 0, "v1 never marked r2 PFAIL");
    node_line l;
    wait_node(v1, node[R2]->port, "master,fail", &l);
    wait_node(v2, node[R2]->port, "master,fail", &l);
    wait_reply(v1, "CLUSTERDOWN The cluster is down", 10000, "GET %s", key_r1);
    /* r1 counted reports from both verso nodes (masters, so they count) */
    long long end = h_now_ms() + h_scaled_ms(10000), reports = 0;
    while (h_now_ms() < end && reports < 2) {
        redisReply *r = cmd(r1, "CLUSTER COUNT-FAILURE-REPORTS %s", ids[R2]);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        reports = r->integer;
        freeReplyObject(r);
        h_sleep_ms(50);
    }
    ck_assert_int_ge(reports, 2);
    wait_node(r1, node[R2]->port, "master,fail", &l);

    /* back, with its nodes.conf (its id), on new ports */
    char args[256];
    bus_port[R2] = h_free_port();
    node[R2] = h_srv_start_redis("--dir '%s' %s", node[R2]->dir,
                                 node_args(R2, args, sizeof args));
    wait_node(v1, node[R2]->port, "master", &l);
    ck_assert_str_eq(l.id, ids[R2]);
    wait_node(v2, node[R2]->port, "master", &l);
    expect_moved(v1, key_r2, slot_r2, node[R2]->port);
    expect_moved(v2, key_r2, slot_r2, node[R2]->port);
    wait_node(r1, node[R2]->port, "master", &l);
    redisFree(v1);
    redisFree(v2);
    redisFree(r1);
}

/* v2 killed and started again on its nodes.conf, on other ports: it
 * reconnects to every node it knew, they take its new address and clear
 * its FAIL (a primary without slots: at once). */
static void verso_restarts(void) {
    redisContext *r1 = srv_connect(node[R1]);
    srv_kill9(node[V2]);
    node_line l;
    wait_node(r1, node[V2]->port, "master,fail", &l);
    char args[256];
    bus_port[V2] = h_free_port();
    node[V2] = h_srv_start("--dir '%s' %s", node[V2]->dir, node_args(V2, args, sizeof args));
    redisContext *v2 = srv_connect(node[V2]);
    redisReply *r = cmd(v2, "CLUSTER MYID");
    check_bulk(r, ids[V2]);
    freeReplyObject(r);
    for (int i = 0; i < NNODES; i++) {
        if (i == V2) continue;
        redisContext *c = srv_connect(node[i]);
        wait_node(c, node[V2]->port, "master", &l);
        ck_assert_str_eq(l.id, ids[V2]);
        wait_node(v2, node[i]->port, i == R3 ? "slave" : "master", &l);
        redisFree(c);
    }
    expect_moved(v2, key_r1, slot_r1, node[R1]->port);
    redisFree(v2);
    redisFree(r1);
}

/* v2 forgets r3, which the other nodes keep gossiping about: it stays
 * out (the blacklist), while r1 still knows it. */
static void forget(void) {
    redisContext *v2 = srv_connect(node[V2]), *r1 = srv_connect(node[R1]);
    expect_error(v2, "ERR I tried hard but I can't forget myself...", "CLUSTER FORGET %s",
                 ids[V2]);
    expect_status(v2, "OK", "CLUSTER FORGET %s", ids[R3]);
    ck_assert(!nodes_has_id(v2, ids[R3]));
    for (int i = 0; i < 30; i++) {     /* 3 s: several gossip rounds at timeout 1.5 s */
        h_sleep_ms(100);
        ck_assert_msg(!nodes_has_id(v2, ids[R3]), "a forgotten node came back");
    }
    ck_assert(nodes_has_id(r1, ids[R3]));
    redisFree(v2);
    redisFree(r1);
}

/* An UPDATE (from r1, as far as v1 can tell) giving r2's slot of key_r2 to
 * v2 with a config epoch above all: v1 takes it and routes the key to v2.
 * Last: the cluster's view of that slot is then made up. */
static void update_received(void) {
    redisContext *v1 = srv_connect(node[V1]);
    static uint8_t m[2256 + 2096];
    memcpy(m, "RCmb", 4);
    put32be(m + 4, sizeof m);
    m[9] = 1;                                              /* version */
    m[13] = 7;                                             /* UPDATE */
    memcpy(m + 40, ids[R1], 40);                           /* sender */
    m[2251] = 1;                                           /* flags: master */
    put32be(m + 2256 + 4, 1000000);                        /* configEpoch */
    memcpy(m + 2264, ids[V2], 40);                         /* nodename */
    m[2304 + slot_r2 / 8] |= (uint8_t)(1u << (slot_r2 % 8));
    int fd = raw_connect(bus_port[V1]);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(raw_send(fd, m, sizeof m), 0);
    expect_moved(v1, key_r2, slot_r2, node[V2]->port);
    close(fd);
    redisFree(v1);
}

START_TEST(bus) {
    cluster_start();
    long long t0 = h_now_ms();
    meet();
    fprintf(stderr, "meet: %lld ms\n", h_now_ms() - t0);
    slots();
    fprintf(stderr, "slots: %lld ms\n", h_now_ms() - t0);
    spublish();
    fprintf(stderr, "spublish: %lld ms\n", h_now_ms() - t0);
    publish_everywhere();
    fprintf(stderr, "publish: %lld ms\n", h_now_ms() - t0);
    slot_moves();
    fprintf(stderr, "slot_moves: %lld ms\n", h_now_ms() - t0);
    stale_claim_updated();
    fprintf(stderr, "stale_claim: %lld ms\n", h_now_ms() - t0);
    bad_bus();
    fprintf(stderr, "bad_bus: %lld ms\n", h_now_ms() - t0);
    sendbuf_limit();
    fprintf(stderr, "sendbuf_limit: %lld ms\n", h_now_ms() - t0);
    node_fails();
    fprintf(stderr, "fail: %lld ms\n", h_now_ms() - t0);
    verso_restarts();
    fprintf(stderr, "verso_restarts: %lld ms\n", h_now_ms() - t0);
    forget();
    fprintf(stderr, "forget: %lld ms\n", h_now_ms() - t0);
    update_received();
    fprintf(stderr, "update: %lld ms\n", h_now_ms() - t0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_bus");
    h_add_dropall(s, "bus", bus, 90);
    return h_main(s);
}
