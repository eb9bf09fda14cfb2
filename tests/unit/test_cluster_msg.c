/* test_cluster_msg: the cluster bus codec (cluster/bus_msg.c): round trips of
 * every message the encoder writes, the fixed offsets of Redis 7.0's
 * clusterMsg, and each check of the decoder (truncation, totlen, gossip
 * count, signature, version, unknown type, extensions past the end). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bus_msg.h"

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
    ck_assert_uint_eq(buf[4] << 24 | buf[5] << 16 | buf[6] << 8 | buf[7], 2256);
    ck_assert_uint_eq(buf[9], 1);                        /* ver */
    ck_assert_uint_eq(buf[10] << 8 | buf[11], 7000);     /* port */
    ck_assert_uint_eq(buf[16], 1);                       /* currentEpoch, big-endian */
    ck_assert_uint_eq(buf[23], 8);
    ck_assert_uint_eq(buf[31], 9);                       /* configEpoch */
    ck_assert_uint_eq(buf[40], 'a');                     /* sender */
    ck_assert_uint_eq(buf[80], 0x80);                    /* myslots */
    ck_assert_uint_eq(buf[2168], '1');                   /* myip */
    ck_assert_uint_eq(buf[2248] << 8 | buf[2249], 17000);/* cport */
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
    set32(buf + n - 16 + 4, 24);
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_EXT);
    set32(buf + n - 16 + 4, 12);                                    /* not a multiple of 8 */
    ck_assert_int_eq(bus_decode(buf, n, &v), BUS_ERR_EXT);
    set32(buf + n - 16 + 4, 16);
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

int main(void) {
    Suite *s = suite_create("cluster_msg");
    TCase *tc = tcase_create("cluster_msg");
    tcase_add_test(tc, header_layout);
    tcase_add_test(tc, ping_round_trip);
    tcase_add_test(tc, other_round_trips);
    tcase_add_test(tc, length_checks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
