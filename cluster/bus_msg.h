/* bus_msg: the Redis 7.0 cluster bus message (cluster.h's clusterMsg), as
 * bytes. An encoder writes a message into a caller's buffer; a decoder checks
 * raw bytes the way Redis's clusterIsValidPacket does (signature, version,
 * totlen against the type's expected length, gossip count and ping
 * extensions inside the message) and gives a parsed view in host order.
 * Pure code: no sockets, no node state. Multi-byte fields are big-endian on
 * the wire; offsets are fixed below (the header is 2256 bytes, a gossip entry
 * 104, sizeof(clusterMsg) 4352). */
#ifndef VERSO_BUS_MSG_H
#define VERSO_BUS_MSG_H

#include <stddef.h>
#include <stdint.h>

#define BUS_NAMELEN 40
#define BUS_IPLEN 46
#define BUS_SLOTS 16384
#define BUS_HDR_LEN 2256u
#define BUS_GOSSIP_LEN 104u
#define BUS_FAIL_LEN 40u
#define BUS_UPDATE_LEN 2096u        /* configEpoch, nodename, slots */
#define BUS_PUBLISH_FIXED 8u        /* channel_len, message_len */
#define BUS_MODULE_FIXED 13u        /* module_id, len, type */
#define BUS_EXT_HDR_LEN 8u          /* length (4 bytes), type (2), unused (2) */

enum bus_type {
    BUS_PING = 0, BUS_PONG = 1, BUS_MEET = 2, BUS_FAIL = 3, BUS_PUBLISH = 4,
    BUS_FAILOVER_AUTH_REQUEST = 5, BUS_FAILOVER_AUTH_ACK = 6, BUS_UPDATE = 7,
    BUS_MFSTART = 8, BUS_MODULE = 9, BUS_PUBLISHSHARD = 10, BUS_TYPE_COUNT = 11
};

/* node flags (header and gossip) */
#define BUS_NODE_MASTER 1
#define BUS_NODE_SLAVE 2
#define BUS_NODE_PFAIL 4
#define BUS_NODE_FAIL 8
#define BUS_NODE_MYSELF 16
#define BUS_NODE_HANDSHAKE 32
#define BUS_NODE_NOADDR 64
#define BUS_NODE_MEET 128
#define BUS_NODE_MIGRATE_TO 256
#define BUS_NODE_NOFAILOVER 512
/* mflags[0] */
#define BUS_MF0_PAUSED 1
#define BUS_MF0_FORCEACK 2
#define BUS_MF0_EXT_DATA 4
/* ping extension types of 7.0 */
#define BUS_EXT_HOSTNAME 0

typedef enum {
    BUS_OK = 0,
    BUS_ERR_SHORT,       /* fewer bytes than a header / than totlen says */
    BUS_ERR_SIG,         /* not "RCmb" */
    BUS_ERR_VERSION,     /* ver != 1 (Redis drops these) */
    BUS_ERR_TYPE,        /* unknown type */
    BUS_ERR_LENGTH,      /* totlen differs from the type's expected length */
    BUS_ERR_EXT,         /* an extension runs past the end or is misaligned */
    BUS_ERR_SPACE,       /* encoder: the buffer is too small */
} bus_err;

const char *bus_err_str(bus_err e);

typedef struct {
    uint32_t totlen;
    uint16_t ver, port, type, count;
    uint64_t current_epoch, config_epoch, offset;
    char sender[BUS_NAMELEN];
    uint8_t myslots[BUS_SLOTS / 8];
    char slaveof[BUS_NAMELEN];
    char myip[BUS_IPLEN];
    uint16_t extensions, pport, cport, flags;
    uint8_t state;
    uint8_t mflags[3];
} bus_hdr;

typedef struct {
    char nodename[BUS_NAMELEN];
    uint32_t ping_sent, pong_received;
    char ip[BUS_IPLEN];
    uint16_t port, cport, flags, pport;
} bus_gossip;

typedef struct {
    uint16_t type;
    uint32_t len;            /* whole extension, header included, multiple of 8 */
    const uint8_t *data;     /* len - 8 bytes */
} bus_ext;

/* What the encoder writes: the header (totlen, count, extensions and the
 * EXT_DATA flag are computed) and the type's body. */
typedef struct {
    bus_hdr hdr;
    const bus_gossip *gossip;          /* PING/PONG/MEET: hdr.count entries */
    const char *hostname;              /* PING/PONG/MEET: NULL = no extension */
    char fail_node[BUS_NAMELEN];       /* FAIL */
    const uint8_t *channel, *message;  /* PUBLISH/PUBLISHSHARD */
    uint32_t channel_len, message_len;
    uint64_t update_epoch;             /* UPDATE */
    char update_node[BUS_NAMELEN];
    uint8_t update_slots[BUS_SLOTS / 8];
} bus_out;

/* Writes the message; returns its length, or 0 when cap is too small or the
 * type is not one the encoder knows. */
size_t bus_encode(const bus_out *m, uint8_t *buf, size_t cap);

/* A decoded message: the header in host order, the body as offsets into the
 * caller's bytes (which must outlive the view). */
typedef struct {
    bus_hdr hdr;
    const uint8_t *raw;
    size_t gossip_off;       /* PING/PONG/MEET */
    size_t ext_off;          /* first extension, when hdr.extensions > 0 */
    const uint8_t *channel, *message;
    uint32_t channel_len, message_len;
    char fail_node[BUS_NAMELEN];
    uint64_t update_epoch;
    char update_node[BUS_NAMELEN];
    const uint8_t *update_slots;
    uint64_t module_id;
    uint8_t module_type;
    const uint8_t *module_data;
    uint32_t module_len;
} bus_view;

/* Checks len bytes holding one message (len may exceed totlen: the bytes
 * after it are not read). Never reads past buf + len. */
bus_err bus_decode(const uint8_t *buf, size_t len, bus_view *v);
void bus_gossip_at(const bus_view *v, uint16_t i, bus_gossip *g);
/* The i-th extension (i < hdr.extensions; valid after bus_decode). */
void bus_ext_at(const bus_view *v, uint16_t i, bus_ext *e);

#endif
