/* gossip_send: what this node sends on the cluster bus and when, as Redis
 * 7.0's clusterSendPing, clusterBuildMessageHdr and clusterCron
 * (cluster.c), rewritten: the header every message carries, PING/PONG/MEET
 * with their gossip section and hostname extension, FAIL, UPDATE,
 * PUBLISH/PUBLISHSHARD (pubsub's cluster hook), CLUSTER MEET's handshake,
 * CLUSTER FORGET's 60 s blacklist.
 *
 * The cron (cl_gossip_cron, 10 Hz): an outbound link for every node but
 * myself and NOADDR ones, handshake timeouts, a ping to the oldest-ponged
 * of 5 random nodes every second and to any node whose pong is older than
 * node_timeout / 2, links silent too long reconnected, PFAIL after
 * cluster-node-timeout. What received messages do is gossip.c's.
 *
 * Main thread only. */
#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster_int.h"
#include "log.h"
#include "pubsub.h"
#include "repl_int.h"
#include "server.h"
#include "util.h"

#define CL_BLACKLIST_TTL_MS 60000      /* CLUSTER FORGET keeps a name out this long */

/* ---- the FORGET blacklist ---- */

typedef struct {
    char name[CL_NAMELEN];
    long long expire;                  /* ms */
} forgotten;

static forgotten *blacklist;
static int nblacklist;

static void blacklist_cleanup(void) {
    long long now = cl_now_ms();
    for (int i = 0; i < nblacklist;)
        if (blacklist[i].expire < now) blacklist[i] = blacklist[--nblacklist];
        else i++;
}

static void blacklist_add(const char *name) {
    blacklist_cleanup();
    long long expire = cl_now_ms() + CL_BLACKLIST_TTL_MS;
    for (int i = 0; i < nblacklist; i++)
        if (memcmp(blacklist[i].name, name, CL_NAMELEN) == 0) {
            blacklist[i].expire = expire;
            return;
        }
    blacklist = xrealloc(blacklist, (size_t)(nblacklist + 1) * sizeof *blacklist);
    memcpy(blacklist[nblacklist].name, name, CL_NAMELEN);
    blacklist[nblacklist++].expire = expire;
}

int cl_forgotten(const char *name) {
    blacklist_cleanup();
    for (int i = 0; i < nblacklist; i++)
        if (memcmp(blacklist[i].name, name, CL_NAMELEN) == 0) return 1;
    return 0;
}

/* clusterBlacklistAddNode + clusterDelNode: the checks (not myself, not
 * myself's primary) are CLUSTER FORGET's. */
void cl_forget(cluster_node *n) {
    assert(n != cl.myself);
    blacklist_add(n->name);
    cl_node_delete(n);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
}

/* ---- building messages ---- */

/* clusterBuildMessageHdr: a replica carries its primary's slots and
 * config epoch; the offset is the replication offset (a replica's R.offset
 * follows its primary's stream). */
void cl_build_header(bus_out *m, int type) {
    memset(m, 0, sizeof *m);
    cluster_node *me = cl.myself;
    cluster_node *primary = (me->flags & CL_NODE_REPLICA) && me->primary ? me->primary : me;
    bus_hdr *h = &m->hdr;
    h->type = (uint16_t)type;
    memcpy(h->sender, me->name, CL_NAMELEN);
    const char *aip = server.cfg.compat.cluster_announce_ip;
    if (aip && aip[0]) snprintf(h->myip, sizeof h->myip, "%s", aip);
    h->port = (uint16_t)me->port;     /* cl_conf_update_myself keeps these */
    h->pport = (uint16_t)me->pport;   /* tls-cluster: the plain port, else 0 */
    h->cport = (uint16_t)me->cport;
    memcpy(h->myslots, primary->slots, sizeof h->myslots);
    if (me->primary) memcpy(h->slaveof, me->primary->name, CL_NAMELEN);
    h->flags = (uint16_t)me->flags;
    h->state = cl.ok ? 0 : 1;          /* CLUSTER_OK 0, CLUSTER_FAIL 1 */
    h->current_epoch = cl.current_epoch;
    h->config_epoch = primary->config_epoch;
    h->offset = (uint64_t)R.offset;
    h->mflags[0] = (uint8_t)cl_failover_mflags(); /* PAUSED: a manual failover */
}

static void gossip_entry(bus_gossip *g, const cluster_node *n) {
    memset(g, 0, sizeof *g);
    memcpy(g->nodename, n->name, CL_NAMELEN);
    g->ping_sent = (uint32_t)(n->ping_sent / 1000);
    g->pong_received = (uint32_t)(n->pong_received / 1000);
    memcpy(g->ip, n->ip, BUS_IPLEN);
    g->port = (uint16_t)n->port;
    g->cport = (uint16_t)n->cport;
    g->flags = (uint16_t)n->flags;
    g->pport = (uint16_t)n->pport;
}

static int in_gossip(const bus_gossip *g, int count, const cluster_node *n) {
    for (int i = 0; i < count; i++)
        if (memcmp(g[i].nodename, n->name, CL_NAMELEN) == 0) return 1;
    return 0;
}

/* clusterSendPing: the header, about a tenth of the nodes (3 at least)
 * chosen at random among the healthy ones, then every PFAIL node, and the
 * hostname extension when myself announces one. */
void cl_send_ping(cl_link *link, int type) {
    if (!link) return;
    int freshnodes = cl.numnodes - 2;
    int wanted = cl.numnodes / 10;
    if (wanted < 3) wanted = 3;
    if (wanted > freshnodes) wanted = freshnodes;
    int pfail_wanted = (int)cl.stats_pfail_nodes;
    int cap = (wanted > 0 ? wanted : 0) + pfail_wanted;
    bus_gossip *g = xcalloc((size_t)cap + 1, sizeof *g);

    cluster_node *to = cl_link_node(link);
    if (to && type == BUS_PING) to->ping_sent = cl_now_ms();
    bus_out m;
    cl_build_header(&m, type);

    int count = 0, maxiter = wanted * 3;
    while (freshnodes > 0 && count < wanted && maxiter-- > 0) {
        cluster_node *n = cl.nodes[draw_below((uint64_t)cl.numnodes)];
        if (n == cl.myself || (n->flags & CL_NODE_PFAIL)) continue;
        if ((n->flags & (CL_NODE_HANDSHAKE | CL_NODE_NOADDR)) || (!n->link && n->numslots == 0)) {
            freshnodes--;
            continue;
        }
        if (in_gossip(g, count, n)) continue;
        gossip_entry(&g[count++], n);
        freshnodes--;
    }
    for (int i = 0; i < cl.numnodes && pfail_wanted > 0; i++) {
        cluster_node *n = cl.nodes[i];
        if (n->flags & (CL_NODE_HANDSHAKE | CL_NODE_NOADDR)) continue;
        if (!(n->flags & CL_NODE_PFAIL)) continue;
        gossip_entry(&g[count++], n);
        pfail_wanted--;
    }
    assert(count <= cap);
    m.hdr.count = (uint16_t)count;
    m.gossip = g;
    m.hostname = cl.myself->hostname;
    cl_bus_send_link(link, &m);
    free(g);
}

/* clusterSendFail: every node hears that `name` is failing. */
void cl_send_fail(const char *name) {
    bus_out m;
    cl_build_header(&m, BUS_FAIL);
    memcpy(m.fail_node, name, CL_NAMELEN);
    cl_bus_broadcast(&m);
}

/* clusterSendUpdate: tells the node behind link that `n` has a newer
 * claim on slots it still advertises. */
void cl_send_update(cl_link *link, const cluster_node *n) {
    if (!link) return;
    bus_out m;
    cl_build_header(&m, BUS_UPDATE);
    m.update_epoch = n->config_epoch;
    memcpy(m.update_node, n->name, CL_NAMELEN);
    memcpy(m.update_slots, n->slots, sizeof m.update_slots);
    cl_bus_send_link(link, &m);
}

/* PUBLISH to every node, SPUBLISH to myself's shard (its primary and
 * replicas): pubsub's cluster hook. */
static void publish_to_cluster(int shard, const char *ch, size_t clen, const char *msg,
                               size_t mlen) {
    bus_out m;
    cl_build_header(&m, shard ? BUS_PUBLISHSHARD : BUS_PUBLISH);
    m.channel = (const uint8_t *)ch;
    m.channel_len = (uint32_t)clen;
    m.message = (const uint8_t *)msg;
    m.message_len = (uint32_t)mlen;
    if (!shard) {
        cl_bus_broadcast(&m);
        return;
    }
    cluster_node *primary = cl_node_is_primary(cl.myself) ? cl.myself : cl.myself->primary;
    if (!primary) return;
    if (primary != cl.myself) cl_bus_send(primary, &m);
    for (int i = 0; i < primary->numreplicas; i++)
        if (primary->replicas[i] != cl.myself) cl_bus_send(primary->replicas[i], &m);
}

/* ---- CLUSTER MEET ---- */

static int handshake_in_progress(const char *ip, int port, int cport) {
    for (int i = 0; i < cl.numnodes; i++) {
        const cluster_node *n = cl.nodes[i];
        if (cl_in_handshake(n) && !strcasecmp(n->ip, ip) && n->port == port && n->cport == cport)
            return 1;
    }
    return 0;
}

/* clusterStartHandshake: a node in handshake with a random name, MEET
 * sent on its first link. The address is normalized (inet_pton/ntop). */
int cl_meet(const char *ip, int port, int cport) {
    char norm[BUS_IPLEN];
    unsigned char addr[16];
    if (inet_pton(AF_INET, ip, addr) == 1) {
        inet_ntop(AF_INET, addr, norm, sizeof norm);
    } else if (inet_pton(AF_INET6, ip, addr) == 1) {
        inet_ntop(AF_INET6, addr, norm, sizeof norm);
    } else {
        return -1;
    }
    if (port <= 0 || port > 65535 || cport <= 0 || cport > 65535) return -1;
    if (handshake_in_progress(norm, port, cport)) return 0;
    cluster_node *n = cl_node_new(NULL, CL_NODE_HANDSHAKE | CL_NODE_MEET);
    memcpy(n->ip, norm, sizeof norm);
    n->port = port;
    n->cport = cport;
    cl_node_add(n);
    return 0;
}

/* clusterLinkConnectHandler: the first message on a new link is a MEET
 * for a node met by CLUSTER MEET, else a PING; a ping already in flight
 * keeps its time, so that reconnecting does not hide a timeout. */
void cl_gossip_link_connected(cluster_node *n) {
    long long old_ping_sent = n->ping_sent;
    cl_send_ping(n->link, (n->flags & CL_NODE_MEET) ? BUS_MEET : BUS_PING);
    if (old_ping_sent) n->ping_sent = old_ping_sent;
    n->flags &= ~CL_NODE_MEET;
    log_verbose("Connecting with Node %.40s at %s:%d", n->name, n->ip, n->cport);
}

/* ---- the cron ---- */

/* Myself's ports, hostname and announced address follow the
 * configuration (a changed address is saved). */
static void update_myself_announced(void) {
    char before[BUS_IPLEN];
    memcpy(before, cl.myself->ip, sizeof before);
    cl_conf_update_myself();
    if (strcmp(before, cl.myself->ip) != 0) cl_todo(CL_TODO_SAVE_CONFIG);
}

/* clusterNodeCronHandleReconnect: 1 when n was deleted (a handshake that
 * timed out) or is not to be talked to. */
static int cron_reconnect(cluster_node *n, long long handshake_timeout, long long now) {
    if (n->flags & (CL_NODE_MYSELF | CL_NODE_NOADDR)) return 1;
    if (n->flags & CL_NODE_PFAIL) cl.stats_pfail_nodes++;
    if (cl_in_handshake(n) && now - n->ctime > handshake_timeout) {
        cl_node_delete(n);
        return 1;
    }
    if (!n->link) cl_bus_connect(n);
    return 0;
}

/* Every second: the node with the oldest pong of 5 random ones with a
 * link and no ping in flight. */
static void ping_random_node(void) {
    cluster_node *best = NULL;
    for (int j = 0; j < 5 && cl.numnodes > 0; j++) {
        cluster_node *n = cl.nodes[draw_below((uint64_t)cl.numnodes)];
        if (!n->link || n->ping_sent != 0) continue;
        if (n->flags & (CL_NODE_MYSELF | CL_NODE_HANDSHAKE)) continue;
        if (!best || n->pong_received < best->pong_received) best = n;
    }
    if (best) cl_send_ping(best->link, BUS_PING);
}

/* The per-node checks: a silent link reconnected, a ping to a node whose
 * pong is old, PFAIL for a node silent past node_timeout. 1 when the
 * state is to be updated. */
static int cron_check_node(cluster_node *n, long long now) {
    long long timeout = cl_node_timeout();
    long long ping_delay = now - n->ping_sent;
    long long data_delay = now - n->data_received;
    if (n->link && now - cl_link_ctime(n->link) > timeout && n->ping_sent &&
        ping_delay > timeout / 2 && data_delay > timeout / 2)
        cl_bus_free_link(n->link);     /* reconnected by the next cron */
    if (n->link && n->ping_sent == 0 && now - n->pong_received > timeout / 2) {
        cl_send_ping(n->link, BUS_PING);
        return 0;
    }
    if (n->ping_sent == 0) return 0;
    long long delay = ping_delay < data_delay ? ping_delay : data_delay;
    if (delay > timeout && !(n->flags & (CL_NODE_PFAIL | CL_NODE_FAIL))) {
        log_debug("*** NODE %.40s possibly failing", n->name);
        n->flags |= CL_NODE_PFAIL;
        return 1;
    }
    return 0;
}

void cl_gossip_init(void) {
    pubsub_set_cluster_publish(publish_to_cluster); /* PUBLISH and SPUBLISH go over the bus */
}

void cl_gossip_cron(void) {
    static long long iteration;
    iteration++;
    update_myself_announced();
    long long now = cl_now_ms();
    long long handshake_timeout = cl_node_timeout() < 1000 ? 1000 : cl_node_timeout();

    cl.stats_pfail_nodes = 0;
    for (int i = 0; i < cl.numnodes;) {
        cluster_node *n = cl.nodes[i];
        int before = cl.numnodes;
        cron_reconnect(n, handshake_timeout, now);
        if (cl.numnodes == before) i++;  /* a deleted node's place holds the next */
    }
    if (iteration % 10 == 0) ping_random_node();

    int update = 0;
    for (int i = 0; i < cl.numnodes; i++) {
        cluster_node *n = cl.nodes[i];
        if (n->flags & (CL_NODE_MYSELF | CL_NODE_NOADDR | CL_NODE_HANDSHAKE)) continue;
        update |= cron_check_node(n, cl_now_ms());
    }
    if (update || !cl.ok) cl_todo(CL_TODO_UPDATE_STATE);
}
