/* bus_msg: encode and check Redis 7.0 cluster bus messages (see bus_msg.h).
 * Every field is read and written at its fixed offset with explicit
 * big-endian byte order, so the layout does not depend on the compiler's
 * struct packing. */
#include "bus_msg.h"

#include <assert.h>
#include <string.h>

/* header offsets (cluster.h clusterMsg) */
enum {
    O_SIG = 0, O_TOTLEN = 4, O_VER = 8, O_PORT = 10, O_TYPE = 12, O_COUNT = 14,
    O_CEPOCH = 16, O_CFGEPOCH = 24, O_OFFSET = 32, O_SENDER = 40, O_SLOTS = 80,
    O_SLAVEOF = 2128, O_MYIP = 2168, O_EXTS = 2214, O_NOTUSED = 2216,
    O_PPORT = 2246, O_CPORT = 2248, O_FLAGS = 2250, O_STATE = 2252, O_MFLAGS = 2253,
};
/* gossip entry offsets */
/* a ping extension's header (clusterMsgPingExt): length (uint32, the
 * whole extension), type (uint16), unused (uint16) */
enum { X_LEN = 0, X_TYPE = 4 };
enum { G_NAME = 0, G_PING = 40, G_PONG = 44, G_IP = 48, G_PORT = 94, G_CPORT = 96,
       G_FLAGS = 98, G_PPORT = 100 };

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) {
    put16(p, (uint16_t)(v >> 16));
    put16(p + 2, (uint16_t)v);
}
static void put64(uint8_t *p, uint64_t v) {
    put32(p, (uint32_t)(v >> 32));
    put32(p + 4, (uint32_t)v);
}
static uint16_t get16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static uint32_t get32(const uint8_t *p) {
    return ((uint32_t)get16(p) << 16) | get16(p + 2);
}
static uint64_t get64(const uint8_t *p) { return ((uint64_t)get32(p) << 32) | get32(p + 4); }

const char *bus_err_str(bus_err e) {
    switch (e) {
    case BUS_OK: return "ok";
    case BUS_ERR_SHORT: return "truncated message";
    case BUS_ERR_SIG: return "bad signature";
    case BUS_ERR_VERSION: return "unsupported protocol version";
    case BUS_ERR_TYPE: return "unknown message type";
    case BUS_ERR_LENGTH: return "length does not match the type";
    case BUS_ERR_EXT: return "bad ping extension";
    case BUS_ERR_SPACE: return "buffer too small";
    }
    return "?";
}

/* the hostname extension: NUL-terminated, padded to a multiple of 8 */
static size_t hostname_ext_len(const char *h) {
    size_t n = strlen(h) + 1;
    return BUS_EXT_HDR_LEN + ((n + 7) & ~(size_t)7);
}

static size_t body_len(const bus_out *m) {
    switch (m->hdr.type) {
    case BUS_PING: case BUS_PONG: case BUS_MEET:
        return (size_t)m->hdr.count * BUS_GOSSIP_LEN + (m->hostname ? hostname_ext_len(m->hostname) : 0);
    case BUS_FAIL: return BUS_FAIL_LEN;
    case BUS_PUBLISH: case BUS_PUBLISHSHARD:
        return BUS_PUBLISH_FIXED + (size_t)m->channel_len + m->message_len;
    case BUS_UPDATE: return BUS_UPDATE_LEN;
    case BUS_FAILOVER_AUTH_REQUEST: case BUS_FAILOVER_AUTH_ACK: case BUS_MFSTART: return 0;
    default: return SIZE_MAX;
    }
}

static void put_gossip(uint8_t *p, const bus_gossip *g) {
    memcpy(p + G_NAME, g->nodename, BUS_NAMELEN);
    put32(p + G_PING, g->ping_sent);
    put32(p + G_PONG, g->pong_received);
    memcpy(p + G_IP, g->ip, BUS_IPLEN);
    put16(p + G_PORT, g->port);
    put16(p + G_CPORT, g->cport);
    put16(p + G_FLAGS, g->flags);
    put16(p + G_PPORT, g->pport);
}

size_t bus_encode(const bus_out *m, uint8_t *buf, size_t cap) {
    const bus_hdr *h = &m->hdr;
    size_t body = body_len(m);
    if (body == SIZE_MAX || body > UINT32_MAX - BUS_HDR_LEN) return 0;
    size_t total = BUS_HDR_LEN + body;
    if (total > cap) return 0;
    memset(buf, 0, total);
    memcpy(buf + O_SIG, "RCmb", 4);
    put32(buf + O_TOTLEN, (uint32_t)total);
    put16(buf + O_VER, 1);
    put16(buf + O_PORT, h->port);
    put16(buf + O_TYPE, h->type);
    put16(buf + O_COUNT, h->count); /* gossip entries follow only PING/PONG/MEET */
    put64(buf + O_CEPOCH, h->current_epoch);
    put64(buf + O_CFGEPOCH, h->config_epoch);
    put64(buf + O_OFFSET, h->offset);
    memcpy(buf + O_SENDER, h->sender, BUS_NAMELEN);
    memcpy(buf + O_SLOTS, h->myslots, sizeof h->myslots);
    memcpy(buf + O_SLAVEOF, h->slaveof, BUS_NAMELEN);
    memcpy(buf + O_MYIP, h->myip, BUS_IPLEN);
    put16(buf + O_PPORT, h->pport);
    put16(buf + O_CPORT, h->cport);
    put16(buf + O_FLAGS, h->flags);
    buf[O_STATE] = h->state;
    memcpy(buf + O_MFLAGS, h->mflags, 3);
    uint8_t *p = buf + BUS_HDR_LEN;
    switch (h->type) {
    case BUS_PING: case BUS_PONG: case BUS_MEET:
        for (uint16_t i = 0; i < h->count; i++, p += BUS_GOSSIP_LEN) put_gossip(p, &m->gossip[i]);
        if (m->hostname) {
            size_t el = hostname_ext_len(m->hostname);
            put32(p + X_LEN, (uint32_t)el);
            put16(p + X_TYPE, BUS_EXT_HOSTNAME);
            memcpy(p + BUS_EXT_HDR_LEN, m->hostname, strlen(m->hostname));
            put16(buf + O_EXTS, 1);
            buf[O_MFLAGS] |= BUS_MF0_EXT_DATA;
        }
        break;
    case BUS_FAIL: memcpy(p, m->fail_node, BUS_NAMELEN); break;
    case BUS_PUBLISH: case BUS_PUBLISHSHARD:
        put32(p, m->channel_len);
        put32(p + 4, m->message_len);
        if (m->channel_len) memcpy(p + 8, m->channel, m->channel_len);
        if (m->message_len) memcpy(p + 8 + m->channel_len, m->message, m->message_len);
        break;
    case BUS_UPDATE:
        put64(p, m->update_epoch);
        memcpy(p + 8, m->update_node, BUS_NAMELEN);
        memcpy(p + 48, m->update_slots, BUS_SLOTS / 8);
        break;
    default: break;
    }
    return total;
}

static void read_hdr(const uint8_t *b, bus_hdr *h) {
    h->totlen = get32(b + O_TOTLEN);
    h->ver = get16(b + O_VER);
    h->port = get16(b + O_PORT);
    h->type = get16(b + O_TYPE);
    h->count = get16(b + O_COUNT);
    h->current_epoch = get64(b + O_CEPOCH);
    h->config_epoch = get64(b + O_CFGEPOCH);
    h->offset = get64(b + O_OFFSET);
    memcpy(h->sender, b + O_SENDER, BUS_NAMELEN);
    memcpy(h->myslots, b + O_SLOTS, sizeof h->myslots);
    memcpy(h->slaveof, b + O_SLAVEOF, BUS_NAMELEN);
    memcpy(h->myip, b + O_MYIP, BUS_IPLEN);
    h->extensions = get16(b + O_EXTS);
    h->pport = get16(b + O_PPORT);
    h->cport = get16(b + O_CPORT);
    h->flags = get16(b + O_FLAGS);
    h->state = b[O_STATE];
    memcpy(h->mflags, b + O_MFLAGS, 3);
}

/* PING/PONG/MEET: count gossip entries, then (with EXT_DATA) the extensions,
 * each a multiple of 8 long and inside totlen, then nothing. */
static bus_err check_gossip(const uint8_t *b, uint64_t totlen, bus_view *v) {
    uint64_t exp = BUS_HDR_LEN + (uint64_t)v->hdr.count * BUS_GOSSIP_LEN;
    if (exp > totlen) return BUS_ERR_LENGTH;
    v->gossip_off = BUS_HDR_LEN;
    v->ext_off = (size_t)exp;
    if (!(v->hdr.mflags[0] & BUS_MF0_EXT_DATA)) v->hdr.extensions = 0;
    for (uint16_t i = 0; i < v->hdr.extensions; i++) {
        if (totlen - exp < BUS_EXT_HDR_LEN) return BUS_ERR_EXT;
        uint32_t el = get32(b + exp + X_LEN);
        if (el < BUS_EXT_HDR_LEN || el % 8 != 0 || totlen - exp < el) return BUS_ERR_EXT;
        exp += el;
    }
    return exp == totlen ? BUS_OK : BUS_ERR_LENGTH;
}

bus_err bus_decode(const uint8_t *b, size_t len, bus_view *v) {
    memset(v, 0, sizeof *v);
    if (len < BUS_HDR_LEN) return BUS_ERR_SHORT;
    if (memcmp(b, "RCmb", 4) != 0) return BUS_ERR_SIG;
    read_hdr(b, &v->hdr);
    v->raw = b;
    uint64_t totlen = v->hdr.totlen;
    if (totlen > len) return BUS_ERR_SHORT;
    if (v->hdr.ver != 1) return BUS_ERR_VERSION;
    if (totlen < BUS_HDR_LEN) return BUS_ERR_LENGTH;
    const uint8_t *p = b + BUS_HDR_LEN;
    uint64_t body = totlen - BUS_HDR_LEN;
    switch (v->hdr.type) {
    case BUS_PING: case BUS_PONG: case BUS_MEET:
        return check_gossip(b, totlen, v);
    case BUS_FAIL:
        if (body != BUS_FAIL_LEN) return BUS_ERR_LENGTH;
        memcpy(v->fail_node, p, BUS_NAMELEN);
        return BUS_OK;
    case BUS_PUBLISH: case BUS_PUBLISHSHARD:
        if (body < BUS_PUBLISH_FIXED) return BUS_ERR_LENGTH;
        v->channel_len = get32(p);
        v->message_len = get32(p + 4);
        if ((uint64_t)v->channel_len + v->message_len != body - BUS_PUBLISH_FIXED)
            return BUS_ERR_LENGTH;
        v->channel = p + 8;
        v->message = p + 8 + v->channel_len;
        return BUS_OK;
    case BUS_UPDATE:
        if (body != BUS_UPDATE_LEN) return BUS_ERR_LENGTH;
        v->update_epoch = get64(p);
        memcpy(v->update_node, p + 8, BUS_NAMELEN);
        v->update_slots = p + 48;
        return BUS_OK;
    case BUS_FAILOVER_AUTH_REQUEST: case BUS_FAILOVER_AUTH_ACK: case BUS_MFSTART:
        return body == 0 ? BUS_OK : BUS_ERR_LENGTH;
    case BUS_MODULE:
        if (body < BUS_MODULE_FIXED) return BUS_ERR_LENGTH;
        v->module_id = get64(p);
        v->module_len = get32(p + 8);
        v->module_type = p[12];
        if ((uint64_t)v->module_len != body - BUS_MODULE_FIXED) return BUS_ERR_LENGTH;
        v->module_data = p + 13;
        return BUS_OK;
    default:
        return BUS_ERR_TYPE;
    }
}

void bus_gossip_at(const bus_view *v, uint16_t i, bus_gossip *g) {
    assert(i < v->hdr.count);
    const uint8_t *p = v->raw + v->gossip_off + (size_t)i * BUS_GOSSIP_LEN;
    memcpy(g->nodename, p + G_NAME, BUS_NAMELEN);
    g->ping_sent = get32(p + G_PING);
    g->pong_received = get32(p + G_PONG);
    memcpy(g->ip, p + G_IP, BUS_IPLEN);
    g->port = get16(p + G_PORT);
    g->cport = get16(p + G_CPORT);
    g->flags = get16(p + G_FLAGS);
    g->pport = get16(p + G_PPORT);
}

void bus_ext_at(const bus_view *v, uint16_t i, bus_ext *e) {
    assert(i < v->hdr.extensions);
    size_t off = v->ext_off;
    for (uint16_t k = 0; k < i; k++) off += get32(v->raw + off + X_LEN);
    e->type = get16(v->raw + off + X_TYPE);
    e->len = get32(v->raw + off + X_LEN);
    e->data = v->raw + off + BUS_EXT_HDR_LEN;
}
