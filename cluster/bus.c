/* bus: the cluster bus's links on libuv, as Redis 7.0's clusterLink.
 *
 * The listener on the bus port (cluster-port, or port + 10000) on every
 * bind address accepts inbound links; the cron (gossip.c) asks for one
 * outbound link per node it wants to talk to (cl_bus_connect). A link reads
 * the 8-byte start of a message ("RCmb" + totlen), refuses a wrong
 * signature, a length under the header's or an absurd one by closing the
 * link (as clusterReadHandler), reads the rest, decodes it (bus_msg.c) and
 * hands it to gossip.c. Writes go through uv_write at once; the bytes not
 * yet written are the link's send buffer, and a link whose buffer grows
 * over cluster-link-sendbuf-limit is freed (counted in
 * cl.stats_links_limit_exceeded).
 *
 * Where it differs from Redis 7.0: a length over the header plus twice
 * proto-max-bulk-len is refused (Redis has no bound and waits for the
 * bytes); the send buffer limit is checked at each send and for any link
 * (Redis checks its nodes' links in the cron); a connect that fails
 * asynchronously also counts a ping as sent (libuv reports even a refused
 * loopback connect through the callback, where Redis sees it at once).
 *
 * A freed link is unhooked from its node at once and its memory released
 * by uv_close's callback, so a link being read from stays valid while
 * gossip.c runs, even when gossip frees it (link->closing tells).
 *
 * With tls-cluster, every link carries a TLS session (tls.h) as Redis
 * 7.0's TLS connections: an inbound link requires a certificate the CA
 * signed (whatever tls-auth-clients says), an outbound one starts its
 * handshake at connect and counts as connected (its first PING or MEET
 * goes) when the handshake completes. The ciphertext read is fed to the
 * session and its plaintext to the message parser; a message is sealed
 * and its ciphertext handed to uv_write, counted in the send buffer. A
 * handshake that fails closes the link (logged as Redis's connection
 * errors).
 *
 * Main thread only (the TLS sessions included). */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "cluster_int.h"
#include "cmd.h"
#include "log.h"
#include "server.h"
#include "tls.h"
#include "util.h"

#define BUS_READ_CHUNK 16384
#define BUS_RBUF_KEEP 65536   /* a link keeps a read buffer up to this size */

struct cl_link {
    uv_tcp_t tcp;                 /* first: the handle's address is the link's */
    cluster_node *node;           /* outbound: its node; inbound: the sender once known */
    int inbound;
    int connected;                /* outbound: connect completed */
    int closing;                  /* freed: waiting for uv_close */
    tls_conn *tls;                /* tls-cluster: the link's session, else NULL */
    long long ctime;              /* ms */
    uint8_t *rbuf;                /* the message being read */
    size_t rlen, rcap;
    size_t snd_used;              /* bytes handed to uv_write, not yet written */
    size_t snd_peak;              /* the most snd_used has been since the last drain */
    cl_link *prev, *next;         /* every open link */
    uv_connect_t conn_req;
};

typedef struct {
    uv_write_t req;
    cl_link *link;
    size_t len;
    uint8_t data[];
} bus_write;

static cl_link *links;            /* every link not yet freed */
static uv_tcp_t *listeners[CONF_MAX_BIND];
static int nlisteners;

/* ---- a link's life ---- */

static cl_link *link_new(cluster_node *node, int inbound) {
    cl_link *l = xcalloc(1, sizeof *l);
    l->node = node;
    l->inbound = inbound;
    l->ctime = cl_now_ms();
    uv_tcp_init(server.loop, &l->tcp);
    l->tcp.data = l;
    l->next = links;
    if (links) links->prev = l;
    links = l;
    return l;
}

static void on_link_closed(uv_handle_t *h) {
    cl_link *l = h->data;
    tls_free(l->tls);
    free(l->rbuf);
    free(l);
}

/* freeClusterLink: unhooks the link from its node and the list; the
 * memory goes when libuv has closed the handle. */
void cl_bus_free_link(cl_link *l) {
    if (l->closing) return;
    l->closing = 1;
    if (l->node) {
        if (l->node->link == l) l->node->link = NULL;
        if (l->node->inbound_link == l) l->node->inbound_link = NULL;
    }
    l->node = NULL;
    if (l->prev) l->prev->next = l->next;
    else links = l->next;
    if (l->next) l->next->prev = l->prev;
    uv_close((uv_handle_t *)&l->tcp, on_link_closed);
}

void cl_bus_free_links(cluster_node *n) {
    if (n->link) cl_bus_free_link(n->link);
    if (n->inbound_link) cl_bus_free_link(n->inbound_link);
}

cluster_node *cl_link_node(const cl_link *l) { return l->node; }
int cl_link_inbound(const cl_link *l) { return l->inbound; }
long long cl_link_ctime(const cl_link *l) { return l->ctime; }

/* setClusterNodeToInboundClusterLink: the inbound link n talks to us by.
 * A node that reconnected may still have its older inbound link open: the
 * newer one replaces it (the older closes on its own). */
void cl_bus_set_inbound(cl_link *l, cluster_node *n) {
    assert(l->inbound && !l->node);
    if (n->inbound_link == l) return;
    if (n->inbound_link) n->inbound_link->node = NULL;
    n->inbound_link = l;
    l->node = n;
}

/* ---- addresses ---- */

static int sockaddr_ip(const struct sockaddr_storage *ss, char *ip, size_t cap) {
    if (ss->ss_family == AF_INET)
        return uv_ip4_name((const struct sockaddr_in *)ss, ip, cap);
    if (ss->ss_family == AF_INET6)
        return uv_ip6_name((const struct sockaddr_in6 *)ss, ip, cap);
    return UV_EINVAL;
}

int cl_link_peer_ip(const cl_link *l, char ip[BUS_IPLEN]) {
    struct sockaddr_storage ss;
    int len = sizeof ss;
    int rc = uv_tcp_getpeername(&l->tcp, (struct sockaddr *)&ss, &len);
    if (rc == 0) rc = sockaddr_ip(&ss, ip, BUS_IPLEN);
    return rc == 0 ? 0 : -1;
}

int cl_link_local_ip(const cl_link *l, char ip[BUS_IPLEN]) {
    struct sockaddr_storage ss;
    int len = sizeof ss;
    int rc = uv_tcp_getsockname(&l->tcp, (struct sockaddr *)&ss, &len);
    if (rc == 0) rc = sockaddr_ip(&ss, ip, BUS_IPLEN);
    return rc == 0 ? 0 : -1;
}

static int parse_addr(const char *ip, int port, struct sockaddr_storage *ss) {
    if (uv_ip4_addr(ip, port, (struct sockaddr_in *)ss) == 0) return 0;
    if (uv_ip6_addr(ip, port, (struct sockaddr_in6 *)ss) == 0) return 0;
    return -1;
}

/* ---- sending ---- */

static void on_written(uv_write_t *req, int status) {
    bus_write *w = (bus_write *)req;
    cl_link *l = w->link;
    assert(l->snd_used >= w->len);
    l->snd_used -= w->len;
    if (l->snd_used == 0) l->snd_peak = 0;
    if (status < 0 && !l->closing) {
        log_verbose("I/O error writing to node link: %s", uv_strerror(status));
        cl_bus_free_link(l);
    }
    free(w);
}

/* The bytes a message can take encoded (bus_encode refuses less). */
static size_t encoded_cap(const bus_out *m) {
    size_t cap = BUS_HDR_LEN + BUS_UPDATE_LEN + 8;
    cap += (size_t)m->hdr.count * BUS_GOSSIP_LEN;
    if (m->hostname) cap += BUS_EXT_HDR_LEN + strlen(m->hostname) + 8;
    cap += BUS_PUBLISH_FIXED + (size_t)m->channel_len + m->message_len;
    return cap;
}

/* Hands w (w->len bytes) to uv_write, counted in snd_used: 0, or -1
 * (w freed, the link freed). */
static int link_write(cl_link *l, bus_write *w) {
    w->link = l;
    uv_buf_t b = uv_buf_init((char *)w->data, (unsigned)w->len);
    int rc = uv_write(&w->req, (uv_stream_t *)&l->tcp, &b, 1, on_written);
    if (rc != 0) {
        free(w);
        log_verbose("I/O error writing to node link: %s", uv_strerror(rc));
        cl_bus_free_link(l);
        return -1;
    }
    l->snd_used += w->len;
    if (l->snd_used > l->snd_peak) l->snd_peak = l->snd_used;
    return 0;
}

/* A TLS link: the ciphertext its session produced goes to uv_write. 0, or
 * -1 (the link freed). */
static int tls_pump(cl_link *l) {
    size_t n = tls_out_pending(l->tls);
    while (n > 0 && !l->closing) {
        size_t chunk = n < UINT32_MAX ? n : UINT32_MAX;
        bus_write *w = xmalloc(sizeof *w + chunk);
        w->len = tls_out_take(l->tls, (char *)w->data, chunk);
        if (w->len == 0) {
            free(w);
            break;
        }
        if (link_write(l, w) != 0) return -1;
        n = tls_out_pending(l->tls);
    }
    return l->closing ? -1 : 0;
}

/* What the link holds unsent: handed to uv_write, and for TLS what the
 * session keeps until its handshake completes. */
static size_t link_queued(const cl_link *l) {
    return l->snd_used + (l->tls ? tls_buffered(l->tls) : 0);
}

/* The encoded message w (plaintext) onto l: as is, or sealed. 0 or -1
 * (the link freed). */
static int link_send_msg(cl_link *l, bus_write *w) {
    if (!l->tls) return link_write(l, w);
    int rc = tls_write(l->tls, w->data, w->len);
    free(w);
    if (rc != 0) {
        log_verbose("I/O error writing to node link: %s", tls_error(l->tls));
        cl_bus_free_link(l);
        return -1;
    }
    return tls_pump(l);
}

/* clusterSendMessage: queues m on l, counts it; a link over the send
 * buffer limit is freed. */
void cl_bus_send_link(cl_link *l, const bus_out *m) {
    if (!l || l->closing) return;
    size_t cap = encoded_cap(m);
    bus_write *w = xmalloc(sizeof *w + cap);
    w->len = bus_encode(m, w->data, cap);
    assert(w->len > 0);
    if (link_send_msg(l, w) != 0) return;
    if (m->hdr.type < BUS_TYPE_COUNT) cl.stats_sent[m->hdr.type]++;
    size_t used = link_queued(l);
    if (used > l->snd_peak) l->snd_peak = used;
    long long limit = server.cfg.compat.cluster_link_sendbuf_limit;
    if (limit > 0 && used > (size_t)limit) {
        log_warning("Freeing cluster link(%s node %.40s, used memory: %zu) due to exceeding "
                    "send buffer memory limit.", l->inbound ? "from" : "to",
                    l->node ? l->node->name : "", used);
        cl.stats_links_limit_exceeded++;
        cl_bus_free_link(l);
    }
}

void cl_bus_send(cluster_node *n, const bus_out *m) { cl_bus_send_link(n->link, m); }

/* clusterBroadcastMessage: every node we have a link to, but myself and
 * nodes in handshake. */
void cl_bus_broadcast(const bus_out *m) {
    for (int i = 0; i < cl.numnodes; i++) {
        cluster_node *n = cl.nodes[i];
        if (n->flags & (CL_NODE_MYSELF | CL_NODE_HANDSHAKE)) continue;
        cl_bus_send_link(n->link, m);
    }
}

/* ---- reading ---- */

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    (void)h;
    (void)suggested;
    static char chunk[BUS_READ_CHUNK];
    *buf = uv_buf_init(chunk, sizeof chunk);
}

/* The largest message accepted: a PUBLISH of a channel and a message each
 * up to proto-max-bulk-len, with the header. */
static uint64_t max_msg_len(void) {
    return BUS_HDR_LEN + BUS_PUBLISH_FIXED + 2 * (uint64_t)server.cfg.proto_max_bulk_len;
}

/* The 8 bytes read: a message of totlen bytes follows, or -1 (closed). */
static int check_start(cl_link *l) {
    uint32_t totlen = (uint32_t)l->rbuf[4] << 24 | (uint32_t)l->rbuf[5] << 16 |
                      (uint32_t)l->rbuf[6] << 8 | l->rbuf[7];
    if (memcmp(l->rbuf, "RCmb", 4) != 0 || totlen < BUS_HDR_LEN || totlen > max_msg_len()) {
        char ip[BUS_IPLEN] = "?";
        cl_link_peer_ip(l, ip);
        log_warning("Bad message length or signature received on the Cluster bus from %s", ip);
        cl_bus_free_link(l);
        return -1;
    }
    if (l->rcap < totlen) {
        l->rbuf = xrealloc(l->rbuf, totlen);
        l->rcap = totlen;
    }
    return 0;
}

static uint32_t msg_totlen(const cl_link *l) {
    return (uint32_t)l->rbuf[4] << 24 | (uint32_t)l->rbuf[5] << 16 |
           (uint32_t)l->rbuf[6] << 8 | l->rbuf[7];
}

/* A whole message: decoded and handed to gossip.c. A message that does
 * not decode (wrong version, a length that does not match its type) is
 * dropped with the link kept, as Redis 7.0's clusterProcessPacket. */
static void deliver(cl_link *l) {
    uint16_t type = (uint16_t)(l->rbuf[12] << 8 | l->rbuf[13]);
    if (type < BUS_TYPE_COUNT) cl.stats_received[type]++;
    bus_view v;
    bus_err e = bus_decode(l->rbuf, l->rlen, &v);
    if (e != BUS_OK) {
        log_verbose("Dropping an invalid cluster bus message (type %u): %s", type,
                    bus_err_str(e));
        return;
    }
    cl_gossip_process(l, l->inbound ? NULL : l->node, &v);
}

/* n bytes of the byte stream (plaintext): into the message being read,
 * each whole message delivered. */
static void parse_input(cl_link *l, const uint8_t *p, size_t left) {
    while (left > 0 && !l->closing) {
        if (l->rcap < 8) {
            l->rbuf = xrealloc(l->rbuf, 8);
            l->rcap = 8;
        }
        size_t want = l->rlen < 8 ? 8 - l->rlen : msg_totlen(l) - l->rlen;
        size_t take = want < left ? want : left;
        memcpy(l->rbuf + l->rlen, p, take);
        l->rlen += take;
        p += take;
        left -= take;
        if (l->rlen == 8 && check_start(l) != 0) return;
        if (l->rlen >= 8 && l->rlen == msg_totlen(l)) {
            deliver(l);
            l->rlen = 0;
            if (l->rcap > BUS_RBUF_KEEP) { /* a big PUBLISH: do not keep its buffer */
                free(l->rbuf);
                l->rbuf = NULL;
                l->rcap = 0;
            }
        }
    }
}

static void on_connected_tls(cl_link *l);

/* The session ended or failed while reading: logged as Redis logs a
 * failed accept or connect (the handshake) or a read error, then freed. */
static void tls_read_failed(cl_link *l) {
    const char *why = tls_error(l->tls);
    if (!tls_handshake_done(l->tls)) {
        if (l->inbound) {
            log_verbose("Error accepting cluster node connection: %s", why[0] ? why : "closed");
        } else if (l->node) {
            cluster_node *n = l->node;
            log_verbose("Connection with Node %.40s at %s:%d failed: %s", n->name, n->ip,
                        n->cport, why[0] ? why : "closed");
            if (n->ping_sent == 0) n->ping_sent = cl_now_ms();
        }
    } else if (why[0]) {
        log_verbose("I/O error reading from node link: %s", why);
    }
    cl_bus_free_link(l);
}

/* Ciphertext read on a TLS link: the handshake progresses, the plaintext
 * goes to the parser, what the session answers is sent. */
static void tls_input(cl_link *l, const char *p, size_t n) {
    static char plain[BUS_READ_CHUNK];
    int was_done = tls_handshake_done(l->tls);
    if (n) tls_feed(l->tls, p, n);
    for (;;) {
        ssize_t r = tls_read(l->tls, plain, sizeof plain);
        if (r == 0) break;
        if (r < 0) {
            tls_read_failed(l);
            return;
        }
        if (!was_done && !l->inbound) { /* the first plaintext: up */
            was_done = 1;
            on_connected_tls(l);
            if (l->closing) return;
        }
        parse_input(l, (const uint8_t *)plain, (size_t)r);
        if (l->closing) return;
    }
    if (tls_pump(l) != 0) return;
    if (!was_done && tls_handshake_done(l->tls) && !l->inbound) on_connected_tls(l);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
    cl_link *l = s->data;
    if (l->closing) return;
    if (nread < 0) {
        if (nread != UV_EOF) log_verbose("I/O error reading from node link: %s",
                                         uv_strerror((int)nread));
        if (l->tls && !tls_handshake_done(l->tls)) {
            tls_read_failed(l); /* the peer refused the handshake */
            return;
        }
        cl_bus_free_link(l);
        return;
    }
    if (l->tls) tls_input(l, buf->base, (size_t)nread);
    else parse_input(l, (const uint8_t *)buf->base, (size_t)nread);
}

static void start_reading(cl_link *l) {
    uv_tcp_nodelay(&l->tcp, 1);
    uv_tcp_keepalive(&l->tcp, 1, 300);
    int rc = uv_read_start((uv_stream_t *)&l->tcp, on_alloc, on_read);
    if (rc != 0) {
        log_verbose("Unable to read from node link: %s", uv_strerror(rc));
        cl_bus_free_link(l);
    }
}

/* ---- outbound links ---- */

static void on_connected(uv_connect_t *req, int status) {
    cl_link *l = req->data;
    if (l->closing) return;
    cluster_node *n = l->node;
    assert(n && n->link == l);
    if (status < 0) {
        log_verbose("Connection with Node %.40s at %s:%d failed: %s", n->name, n->ip, n->cport,
                    uv_strerror(status));
        /* failure detection needs a ping in flight: as for a synchronous
         * connect error in Redis, count one as sent now */
        if (n->ping_sent == 0) n->ping_sent = cl_now_ms();
        cl_bus_free_link(l);
        return;
    }
    if (l->tls) { /* connected once the handshake completes */
        start_reading(l);
        if (!l->closing) tls_input(l, NULL, 0); /* the client hello */
        return;
    }
    l->connected = 1;
    start_reading(l);
    if (!l->closing) cl_gossip_link_connected(n);
}

/* An outbound TLS link's handshake completed. */
static void on_connected_tls(cl_link *l) {
    if (l->connected || !l->node) return;
    l->connected = 1;
    cl_gossip_link_connected(l->node);
}

/* tls-cluster: a link's session (accepting: a CA-signed certificate
 * required, as Redis 7.0 for the bus). 0, or -1 logged. */
static int link_tls(cl_link *l) {
    if (!server.cfg.compat.tls_cluster) return 0;
    char err[256];
    l->tls = l->inbound ? tls_accept_new(TLS_AUTH_YES, err, sizeof err)
                        : tls_connect_new(err, sizeof err);
    if (l->tls) return 0;
    log_warning("Error creating a TLS session for a cluster link: %s", err);
    return -1;
}

/* createClusterLink + connConnect: a link to n, connecting; 0, or -1 when
 * the connect could not start (n->ping_sent is then set, as Redis does). */
int cl_bus_connect(cluster_node *n) {
    assert(!n->link);
    struct sockaddr_storage ss;
    int rc = parse_addr(n->ip, n->cport, &ss) == 0 ? 0 : UV_EINVAL;
    cl_link *l = link_new(n, 0);
    n->link = l;
    l->conn_req.data = l;
    if (rc == 0 && link_tls(l) != 0) rc = UV_EINVAL;
    if (rc == 0) rc = uv_tcp_connect(&l->conn_req, &l->tcp, (struct sockaddr *)&ss, on_connected);
    if (rc != 0) {
        if (n->ping_sent == 0) n->ping_sent = cl_now_ms();
        log_debug("Unable to connect to Cluster Node [%s]:%d -> %s", n->ip, n->cport,
                  uv_strerror(rc));
        cl_bus_free_link(l);
        return -1;
    }
    return 0;
}

/* ---- the listener ---- */

static void on_accept(uv_stream_t *server_handle, int status) {
    if (status < 0) {
        log_verbose("Error accepting cluster node: %s", uv_strerror(status));
        return;
    }
    cl_link *l = link_new(NULL, 1);
    if (uv_accept(server_handle, (uv_stream_t *)&l->tcp) != 0 || link_tls(l) != 0) {
        cl_bus_free_link(l);
        return;
    }
    char ip[BUS_IPLEN] = "?";
    cl_link_peer_ip(l, ip);
    log_verbose("Accepting cluster node connection from %s", ip);
    start_reading(l);
}

static void on_listener_closed(uv_handle_t *h) { free(h); }

/* As Redis 7.0's clusterInit: cluster-port, else the client port (the
 * TLS one with tls-cluster) + 10000. */
static int bus_port(void) {
    int port = server.cfg.compat.tls_cluster ? server.cfg.compat.tls_port : server.cfg.port;
    return server.cfg.compat.cluster_port ? server.cfg.compat.cluster_port : port + 10000;
}

int cl_bus_listen(char *err, size_t errlen) {
    int port = bus_port();
    if (port > 65535) {
        snprintf(err, errlen, "Redis port number too high. Cluster communication port is "
                 "10,000 port numbers higher than your Redis port. Your Redis port number "
                 "must be 55535 or less.");
        return -1;
    }
    for (int i = 0; i < server.cfg.nbind; i++) {
        const char *host = server.cfg.bind[i];
        int optional = host[0] == '-';
        if (optional) host++;
        struct sockaddr_storage ss;
        if (parse_addr(host, port, &ss) != 0) {
            snprintf(err, errlen, "Invalid bind address '%s'", host);
            goto fail;
        }
        uv_tcp_t *t = xmalloc(sizeof *t);
        uv_tcp_init(server.loop, t);
        int rc = uv_tcp_bind(t, (struct sockaddr *)&ss,
                             ss.ss_family == AF_INET6 ? UV_TCP_IPV6ONLY : 0);
        if (rc == 0) rc = uv_listen((uv_stream_t *)t, server.cfg.tcp_backlog, on_accept);
        if (rc != 0) {
            uv_close((uv_handle_t *)t, on_listener_closed);
            if (optional) continue;
            snprintf(err, errlen, "Could not create server TCP listening socket %s:%d: %s",
                     host, port, uv_strerror(rc));
            goto fail;
        }
        listeners[nlisteners++] = t;
    }
    return 0;
fail:
    while (nlisteners > 0) uv_close((uv_handle_t *)listeners[--nlisteners], on_listener_closed);
    return -1;
}

/* ---- introspection ---- */

static void link_reply(client *c, const cl_link *l) {
    reply_map(c, 6);
    reply_bulk_str(c, "direction");
    reply_bulk_str(c, l->inbound ? "from" : "to");
    reply_bulk_str(c, "node");
    reply_bulk(c, l->node->name, CL_NAMELEN);
    reply_bulk_str(c, "create-time");
    reply_int(c, l->ctime);
    reply_bulk_str(c, "events");
    reply_bulk_str(c, l->snd_used ? "rw" : "r");
    reply_bulk_str(c, "send-buffer-allocated");
    reply_int(c, (long long)l->snd_peak);
    reply_bulk_str(c, "send-buffer-used");
    reply_int(c, (long long)l->snd_used);
}

/* CLUSTER LINKS as 7.0: each node's outbound then inbound link; links
 * not yet tied to a node are not listed. */
void cl_bus_links_reply(client *c) {
    long long n = 0;
    for (int i = 0; i < cl.numnodes; i++) {
        const cluster_node *nd = cl.nodes[i];
        if (nd->flags & CL_NODE_MYSELF) continue;
        n += (nd->link != NULL) + (nd->inbound_link != NULL);
    }
    reply_array(c, n);
    for (int i = 0; i < cl.numnodes; i++) {
        const cluster_node *nd = cl.nodes[i];
        if (nd->flags & CL_NODE_MYSELF) continue;
        if (nd->link) link_reply(c, nd->link);
        if (nd->inbound_link) link_reply(c, nd->inbound_link);
    }
}

/* INFO's cluster_connections as Redis 7.0 counts it: two links per node
 * but myself, whether open or not (getClusterConnectionsCount). */
size_t cl_bus_links_count(void) { return cl.numnodes > 0 ? (size_t)(cl.numnodes - 1) * 2 : 0; }

size_t cl_bus_links_mem(void) {
    size_t mem = 0;
    for (const cl_link *l = links; l; l = l->next) mem += sizeof *l + l->rcap + link_queued(l);
    return mem;
}
