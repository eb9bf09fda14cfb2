/* test_cluster_msg: the cluster bus codec (cluster/bus_msg.c): round trips of
 * every message the encoder writes, the fixed offsets of Redis 7.0's
 * clusterMsg, and each check of the decoder (truncation, totlen, gossip
 * count, signature, version, unknown type, extensions past the end), and a
 * MEET sent to a real redis-server's bus port, whose PONG must decode to what
 * its CLUSTER MYID / CLUSTER NODES say. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <stdio.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bus_msg.h"
#include "harness.h"

static uint8_t buf[65536];

static void fill_hdr(bus_out *m, uint16_t type) {
    memset(m, 0, sizeof *m);
    m->hdr.type = type;
    m->hdr.port = 7000;
    m->hdr.cport = 17000;
    m->hdr.pport = 0;
    m->hdr.flags = BUS_NODE_MASTER;
    m->hdr.current_epoch = 0x0102030405060708ull;
    m->hdr.config_epoch = 9;
    m->hdr.offset = 12345;
    memset(m->hdr.sender, 'a', BUS_NAMELEN);
    memset(m->hdr.slaveof, 0, BUS_NAMELEN);
    strcpy(m->hdr.myip, "127.0.0.1");
    m->hdr.myslots[0] = 0x80; /* slot 0 */
    m->hdr.myslots[2047] = 0x01; /* slot 16383 */
}

START_TEST(header_layout) {
    bus_out m;
    fill_hdr(&m, BUS_PING);
    size_t n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq(n, 2256);
    ck_assert(memcmp(buf, "RCmb", 4) == 0);
    ck_assert_uint_eq((uint32_t)buf[4] << 24 | (uint32_t)buf[5] << 16 | (uint32_t)buf[6] << 8 | buf[7], 2256);
    ck_assert_uint_eq(buf[9], 1);                        /* ver */
    ck_assert_uint_eq((uint32_t)buf[10] << 8 | buf[11], 7000);     /* port */
    ck_assert_uint_eq(buf[16], 1);                       /* currentEpoch, big-endian */
    ck_assert_uint_eq(buf[23], 8);
    ck_assert_uint_eq(buf[31], 9);                       /* configEpoch */
    ck_assert_uint_eq(buf[40], 'a');                     /* sender */
    ck_assert_uint_eq(buf[80], 0x80);                    /* myslots */
    ck_assert_uint_eq(buf[2168], '1');                   /* myip */
    ck_assert_uint_eq((uint32_t)buf[2248] << 8 | buf[2249], 17000);/* cport */
    ck_assert_uint_eq(buf[2251], BUS_NODE_MASTER);       /* flags */
}
END_TEST

START_TEST(ping_round_trip) {
    bus_out m;
    fill_hdr(&m, BUS_MEET);
    bus_gossip g[3];
    memset(g, 0, sizeof g);
    for (int i = 0; i < 3; i++) {
        memset(g[i].nodename, 'b' + i, BUS_NAMELEN);
        g[i].ping_sent = 100u + (uint32_t)i;
        g[i].pong_received = 200;
        strcpy(g[i].ip, "10.0.0.1");
        g[i].port = (uint16_t)(7001 + i);
        g[i].cport = (uint16_t)(17001 + i);
        g[i].flags = BUS_NODE_SLAVE;
        g[i].pport = 5;
    }
    m.hdr.count = 3;
    m.gossip = g;
    m.hostname = "host.example";
    size_t n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq(n, 2256 + 3 * 104 + 8 + 16);
    /* the extension's header as 7.0's clusterMsgPingExt: length (uint32,
     * big-endian) first, then type and unused (uint16 each) */
    const uint8_t *x = buf + 2256 + 3 * 104;
    static const uint8_t xhdr[8] = {0, 0, 0, 24, 0, BUS_EXT_HOSTNAME, 0, 0};
    ck_assert(memcmp(x, xhdr, 8) == 0);
    bus_view v;
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    ck_assert_uint_eq(v.hdr.type, BUS_MEET);
    ck_assert_uint_eq(v.hdr.count, 3);
    ck_assert_uint_eq(v.hdr.current_epoch, 0x0102030405060708ull);
    ck_assert_uint_eq(v.hdr.offset, 12345);
    ck_assert_uint_eq(v.hdr.cport, 17000);
    ck_assert(memcmp(v.hdr.myslots, m.hdr.myslots, sizeof m.hdr.myslots) == 0);
    ck_assert_uint_eq(v.hdr.extensions, 1);
    ck_assert(v.hdr.mflags[0] & BUS_MF0_EXT_DATA);
    for (uint16_t i = 0; i < 3; i++) {
        bus_gossip o;
        bus_gossip_at(&v, i, &o);
        ck_assert(memcmp(o.nodename, g[i].nodename, BUS_NAMELEN) == 0);
        ck_assert_uint_eq(o.ping_sent, g[i].ping_sent);
        ck_assert_str_eq(o.ip, "10.0.0.1");
        ck_assert_uint_eq(o.port, g[i].port);
        ck_assert_uint_eq(o.cport, g[i].cport);
        ck_assert_uint_eq(o.flags, BUS_NODE_SLAVE);
        ck_assert_uint_eq(o.pport, 5);
    }
    bus_ext e;
    bus_ext_at(&v, 0, &e);
    ck_assert_uint_eq(e.type, BUS_EXT_HOSTNAME);
    ck_assert_uint_eq(e.len, 24);
    ck_assert_str_eq((const char *)e.data, "host.example");
}
END_TEST

START_TEST(other_round_trips) {
    bus_out m;
    bus_view v;
    fill_hdr(&m, BUS_FAIL);
    memset(m.fail_node, 'f', BUS_NAMELEN);
    size_t n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq(n, 2296);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    ck_assert(memcmp(v.fail_node, m.fail_node, BUS_NAMELEN) == 0);

    fill_hdr(&m, BUS_PUBLISHSHARD);
    m.channel = (const uint8_t *)"chan";
    m.channel_len = 4;
    m.message = (const uint8_t *)"hello world";
    m.message_len = 11;
    n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq(n, 2256 + 8 + 15);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    ck_assert_uint_eq(v.channel_len, 4);
    ck_assert(memcmp(v.channel, "chan", 4) == 0);
    ck_assert(memcmp(v.message, "hello world", 11) == 0);

    fill_hdr(&m, BUS_UPDATE);
    m.update_epoch = 77;
    memset(m.update_node, 'u', BUS_NAMELEN);
    m.update_slots[5] = 0xff;
    n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq(n, 4352); /* sizeof(clusterMsg): the union is UPDATE-sized */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    ck_assert_uint_eq(v.update_epoch, 77);
    ck_assert_uint_eq(v.update_slots[5], 0xff);

    uint16_t bare[] = {BUS_FAILOVER_AUTH_REQUEST, BUS_FAILOVER_AUTH_ACK, BUS_MFSTART};
    for (int i = 0; i < 3; i++) {
        fill_hdr(&m, bare[i]);
        n = bus_encode(&m, buf, sizeof buf);
        ck_assert_uint_eq(n, 2256);
        ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
        ck_assert_uint_eq(v.hdr.type, bare[i]);
    }
    fill_hdr(&m, BUS_PING);
    ck_assert_uint_eq(bus_encode(&m, buf, 2255), 0); /* no room */
}
END_TEST

static void set32(uint8_t *p, uint32_t x) {
    p[0] = (uint8_t)(x >> 24); p[1] = (uint8_t)(x >> 16); p[2] = (uint8_t)(x >> 8); p[3] = (uint8_t)x;
}

START_TEST(length_checks) {
    bus_out m;
    bus_view v;
    bus_gossip g[2];
    memset(g, 0, sizeof g);
    fill_hdr(&m, BUS_PING);
    m.hdr.count = 2;
    m.gossip = g;
    size_t n = bus_encode(&m, buf, sizeof buf);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    ck_assert_int_eq(bus_decode(buf, 100, &v), BUS_ERR_SHORT);      /* truncated header */
    ck_assert_int_eq(bus_decode(buf, n - 1, &v), BUS_ERR_SHORT);    /* totlen > buffer */
    ck_assert_int_eq(bus_decode(buf, n + 10, &v), BUS_OK);          /* bytes after totlen */
    buf[15] = 3;                                                    /* count 3, room for 2 */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_LENGTH);
    buf[15] = 1;                                                    /* count 1, one extra entry */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_LENGTH);
    buf[15] = 2;
    buf[0] = 'X';
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_SIG);
    buf[0] = 'R';
    buf[9] = 2;
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_VERSION);
    buf[9] = 1;
    buf[13] = 42;
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_TYPE);
    buf[13] = BUS_FAIL;                                             /* FAIL without its node */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_LENGTH);
    buf[13] = BUS_PING;
    set32(buf + 4, 2000);                                           /* totlen < header */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_LENGTH);

    /* an extension that runs past the end */
    m.hostname = "h";
    n = bus_encode(&m, buf, sizeof buf);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    set32(buf + n - 16, 24);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_EXT);
    set32(buf + n - 16, 12);                                    /* not a multiple of 8 */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_EXT);
    set32(buf + n - 16, 16);
    buf[2215] = 2;                                                  /* two extensions, one present */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_EXT);

    /* PUBLISH lengths that disagree with totlen */
    fill_hdr(&m, BUS_PUBLISH);
    m.channel = (const uint8_t *)"c";
    m.channel_len = 1;
    m.message = (const uint8_t *)"m";
    m.message_len = 1;
    n = bus_encode(&m, buf, sizeof buf);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_OK);
    set32(buf + 2256 + 4, 0xffffffffu);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_LENGTH);
}
END_TEST

static int read_full(int fd, uint8_t *p, size_t n) {
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r <= 0) return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

START_TEST(meet_redis_server) {
    srv *s = srv_start_redis("--cluster-enabled yes --cluster-config-file nodes.conf");
    redisContext *c = srv_connect(s);
    redisReply *r = redisCommand(c, "CLUSTER MYID");
    ck_assert(r && r->type == REDIS_REPLY_STRING && r->len == BUS_NAMELEN);
    char myid[BUS_NAMELEN + 1];
    memcpy(myid, r->str, BUS_NAMELEN + 1);
    freeReplyObject(r);

    int fd = raw_connect(s->port + 10000);
    ck_assert_int_ge(fd, 0);
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    bus_out m;
    memset(&m, 0, sizeof m);
    m.hdr.type = BUS_MEET;
    srand((unsigned)getpid());
    for (int i = 0; i < BUS_NAMELEN; i++) m.hdr.sender[i] = "0123456789abcdef"[rand() % 16];
    strcpy(m.hdr.myip, "127.0.0.1");
    int our_port = h_free_port();
    m.hdr.port = (uint16_t)our_port;
    m.hdr.cport = (uint16_t)(our_port + 10000);
    m.hdr.flags = BUS_NODE_MASTER | BUS_NODE_MYSELF;
    size_t n = bus_encode(&m, buf, sizeof buf);
    ck_assert_uint_eq((size_t)write(fd, buf, n), n);

    ck_assert_int_eq(read_full(fd, buf, 8), 0);
    uint32_t totlen = (uint32_t)buf[4] << 24 | (uint32_t)buf[5] << 16 | (uint32_t)buf[6] << 8 | buf[7];
    ck_assert_uint_le(totlen, sizeof buf);
    ck_assert_uint_ge(totlen, 8);
    ck_assert_int_eq(read_full(fd, buf + 8, totlen - 8), 0);
    bus_view v;
    ck_assert_int_eq(bus_decode(buf, totlen, &v), BUS_OK);
    ck_assert_uint_eq(v.hdr.type, BUS_PONG);
    ck_assert(memcmp(v.hdr.sender, myid, BUS_NAMELEN) == 0);
    ck_assert_uint_eq(v.hdr.port, (unsigned)s->port);
    ck_assert_uint_eq(v.hdr.cport, (unsigned)s->port + 10000);
    ck_assert_uint_eq(v.hdr.flags, BUS_NODE_MASTER | BUS_NODE_MYSELF); /* "myself,master" */
    for (size_t i = 0; i < sizeof v.hdr.myslots; i++) ck_assert_uint_eq(v.hdr.myslots[i], 0);
    close(fd);

    r = redisCommand(c, "CLUSTER NODES");
    ck_assert(r && r->type == REDIS_REPLY_STRING);
    char self[128], peer[128];
    snprintf(self, sizeof self, "%s 127.0.0.1:%d@%d myself,master", myid, s->port, s->port + 10000);
    snprintf(peer, sizeof peer, " 127.0.0.1:%d@%d handshake", our_port, our_port + 10000);
    ck_assert_msg(strstr(r->str, self) != NULL, "%s", r->str);
    /* a MEET makes Redis add the sender in handshake under a random name
     * until it has PINGed it back, so the address is what it lists */
    ck_assert_msg(strstr(r->str, peer) != NULL, "%s", r->str);
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_msg");
    TCase *tc = tcase_create("cluster_msg");
    tcase_add_test(tc, header_layout);
    tcase_add_test(tc, ping_round_trip);
    tcase_add_test(tc, other_round_trips);
    tcase_add_test(tc, length_checks);
    tcase_add_test(tc, meet_redis_server);
    suite_add_tcase(s, tc);
    return h_main(s);
}
