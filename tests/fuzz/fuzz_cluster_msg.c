/* fuzz_cluster_msg: the cluster bus message decoder (cluster/bus_msg.c).
 *
 * The input is the bytes of one message as read off the bus. The decoder
 * must accept or refuse it without reading past the input (ASan sees every
 * byte beyond it). On success every gossip entry and extension is read, and
 * a message the encoder can write again byte for byte (FAIL, UPDATE,
 * FAILOVER_AUTH_REQUEST/ACK, MFSTART, PUBLISH[SHARD], PING/PONG/MEET without
 * extensions) is re-encoded and compared with the input's first totlen
 * bytes. Seeds (corpus/cluster_msg/) were written by the encoder. */
#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bus_msg.h"

static int same_reencoded(const uint8_t *data, const bus_view *v) {
    bus_out m;
    memset(&m, 0, sizeof m);
    m.hdr = v->hdr;
    bus_gossip *g = NULL;
    switch (v->hdr.type) {
    case BUS_PING: case BUS_PONG: case BUS_MEET:
        if (v->hdr.mflags[0] & BUS_MF0_EXT_DATA) return 1;
        g = calloc(v->hdr.count ? v->hdr.count : 1, sizeof *g);
        for (uint16_t i = 0; i < v->hdr.count; i++) bus_gossip_at(v, i, &g[i]);
        m.gossip = g;
        break;
    case BUS_FAIL: memcpy(m.fail_node, v->fail_node, BUS_NAMELEN); break;
    case BUS_PUBLISH: case BUS_PUBLISHSHARD:
        m.channel = v->channel; m.channel_len = v->channel_len;
        m.message = v->message; m.message_len = v->message_len;
        break;
    case BUS_UPDATE:
        m.update_epoch = v->update_epoch;
        memcpy(m.update_node, v->update_node, BUS_NAMELEN);
        memcpy(m.update_slots, v->update_slots, BUS_SLOTS / 8);
        break;
    case BUS_FAILOVER_AUTH_REQUEST: case BUS_FAILOVER_AUTH_ACK: case BUS_MFSTART: break;
    default: return 1; /* MODULE: decoded only */
    }
    uint8_t *out = malloc(v->hdr.totlen);
    size_t n = bus_encode(&m, out, v->hdr.totlen);
    assert(n == v->hdr.totlen);
    /* the encoder zeroes what Redis leaves unused (notused1, extensions
     * without EXT_DATA, gossip notused1): compare the fields it writes */
    uint8_t *in = malloc(n);
    memcpy(in, data, n);
    memset(in + 2214, 0, 32); /* extensions + notused1 */
    memset(out + 2214, 0, 32);
    if (v->hdr.type <= BUS_MEET) /* each gossip entry's notused1 */
        for (uint16_t i = 0; i < v->hdr.count; i++) memset(in + 2256 + (size_t)i * 104 + 102, 0, 2);
    int same = memcmp(in, out, n) == 0;
    free(in);
    free(out);
    free(g);
    return same;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    bus_view v;
    bus_err e = bus_decode(data, size, &v);
    assert(bus_err_str(e) != NULL);
    if (e != BUS_OK) return 0;
    assert(v.hdr.totlen <= size);
    unsigned sum = 0;
    if (v.hdr.type <= BUS_MEET) {
        for (uint16_t i = 0; i < v.hdr.count; i++) {
            bus_gossip g;
            bus_gossip_at(&v, i, &g);
            sum += g.port;
        }
        for (uint16_t i = 0; i < v.hdr.extensions; i++) {
            bus_ext x;
            bus_ext_at(&v, i, &x);
            assert(x.len >= BUS_EXT_HDR_LEN && x.len % 8 == 0);
            assert(x.data + (x.len - BUS_EXT_HDR_LEN) <= data + v.hdr.totlen);
            for (uint32_t k = 0; k < x.len - BUS_EXT_HDR_LEN; k++) sum += x.data[k];
        }
    }
    (void)sum;
    assert(same_reencoded(data, &v));
    return 0;
}
