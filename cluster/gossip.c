/* gossip: what the cluster bus's messages do to the node table, and the
 * cron that keeps talking, as Redis 7.0's clusterProcessPacket and
 * clusterCron (cluster.c), rewritten.
 *
 * Received (cl_gossip_process): MEET (an unknown sender becomes a node in
 * handshake; myself learns its own address from the link), PING/PONG
 * (handshake completion renames the node, addresses, roles, the sender's
 * slots and epochs with UPDATE sent on stale claims, config epoch
 * collisions, the gossip section's fail reports and new nodes, the
 * hostname extension), FAIL, UPDATE, PUBLISH/PUBLISHSHARD (to local
 * subscribers), and the failover messages handed to failover.c.
 *
 * The cron (cl_gossip_cron, 10 Hz): outbound links for every node but
 * myself and NOADDR ones, handshake timeouts, a ping to the oldest-ponged
 * of 5 random nodes every second and to any node whose pong is older than
 * node_timeout / 2, links silent too long reconnected, PFAIL after
 * cluster-node-timeout. FAIL follows from a majority of primaries' reports
 * (mark_failing_if_needed), broadcast to all.
 *
 * State changes ask for nodes.conf saves and cluster_state updates with
 * cl_todo, as Redis's clusterDoBeforeSleep. Main thread only. */
#include <arpa/inet.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_int.h"
#include "db_slots.h"
#include "log.h"
#include "pubsub.h"
#include "repl_int.h"
#include "server.h"
#include "util.h"

#define CL_BLACKLIST_TTL_MS 60000      /* CLUSTER FORGET keeps a name out this long */
#define CL_FAIL_UNDO_TIME_MULT 2       /* a primary's FAIL clears after 2 * node_timeout */

static const char null_name[CL_NAMELEN]; /* 40 zero bytes: "no primary" on the wire */

static long long node_timeout(void) { return server.cfg.compat.cluster_node_timeout; }
static int in_handshake(const cluster_node *n) { return (n->flags & CL_NODE_HANDSHAKE) != 0; }

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

static int my_cport(void) {
    if (server.cfg.compat.cluster_announce_bus_port) return server.cfg.compat.cluster_announce_bus_port;
    return server.cfg.compat.cluster_port ? server.cfg.compat.cluster_port
                                          : server.cfg.port + 10000;
}

static int my_port(void) {
    return server.cfg.compat.cluster_announce_port ? server.cfg.compat.cluster_announce_port
                                                   : server.cfg.port;
}

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
    h->port = (uint16_t)my_port();
    h->pport = (uint16_t)(server.cfg.compat.cluster_announce_tls_port
                              ? server.cfg.compat.cluster_announce_tls_port
                              : server.cfg.compat.tls_port); /* the other port: TLS's */
    h->cport = (uint16_t)my_cport();
    memcpy(h->myslots, primary->slots, sizeof h->myslots);
    if (me->primary) memcpy(h->slaveof, me->primary->name, CL_NAMELEN);
    h->flags = (uint16_t)me->flags;
    h->state = cl.ok ? 0 : 1;          /* CLUSTER_OK 0, CLUSTER_FAIL 1 */
    h->current_epoch = cl.current_epoch;
    h->config_epoch = primary->config_epoch;
    h->offset = (uint64_t)R.offset;
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
static void send_ping(cl_link *link, int type) {
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
static void broadcast_fail(const char *name) {
    bus_out m;
    cl_build_header(&m, BUS_FAIL);
    memcpy(m.fail_node, name, CL_NAMELEN);
    cl_bus_broadcast(&m);
}

/* clusterSendUpdate: tells the node behind link that `n` has a newer
 * claim on slots it still advertises. */
static void send_update(cl_link *link, const cluster_node *n) {
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
        if (in_handshake(n) && !strcasecmp(n->ip, ip) && n->port == port && n->cport == cport)
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

/* ---- node updates ---- */

/* nodeIp2String: the address the sender announces, else the link's peer. */
static void sender_ip(char ip[BUS_IPLEN], const cl_link *link, const char *announced) {
    if (announced[0]) {
        memcpy(ip, announced, BUS_IPLEN);
        ip[BUS_IPLEN - 1] = '\0';
    } else if (cl_link_peer_ip(link, ip) != 0) {
        ip[0] = '\0';
    }
}

/* nodeUpdateAddressIfNeeded: 1 when n's address changed (its outbound
 * link is then reconnected to the new one). */
static int update_address(cluster_node *n, cl_link *link, const bus_hdr *h) {
    if (link == n->link) return 0;
    char ip[BUS_IPLEN];
    sender_ip(ip, link, h->myip);
    if (n->port == h->port && n->cport == h->cport && n->pport == h->pport && !strcmp(ip, n->ip))
        return 0;
    memcpy(n->ip, ip, sizeof ip);
    n->port = h->port;
    n->pport = h->pport;
    n->cport = h->cport;
    if (n->link) cl_bus_free_link(n->link);
    n->flags &= ~CL_NODE_NOADDR;
    log_warning("Address updated for node %.40s, now %s:%d", n->name, n->ip, n->port);
    if ((cl.myself->flags & CL_NODE_REPLICA) && cl.myself->primary == n)
        replica_follow(n->ip, n->port);
    return 1;
}

/* clusterSetNodeAsMaster */
static void set_node_primary_role(cluster_node *n) {
    if (cl_node_is_primary(n)) return;
    cl_node_set_primary(n, NULL);
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
}

/* clearNodeFailureIfNeeded: a reachable replica or slotless primary
 * clears FAIL at once; a primary with slots only after 2 * node_timeout
 * with nobody having taken them over. */
static void clear_failure_if_needed(cluster_node *n) {
    assert(cl_node_failed(n));
    long long now = cl_now_ms();
    if (!cl_node_is_primary(n) || n->numslots == 0) {
        log_notice("Clear FAIL state for node %.40s: %s is reachable again.", n->name,
                   cl_node_is_primary(n) ? "master without slots" : "replica");
        n->flags &= ~CL_NODE_FAIL;
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    }
    if (cl_node_is_primary(n) && n->numslots > 0 &&
        now - n->fail_time > node_timeout() * CL_FAIL_UNDO_TIME_MULT) {
        log_notice("Clear FAIL state for node %.40s: is reachable again and nobody is serving "
                   "its slots after some time.", n->name);
        n->flags &= ~CL_NODE_FAIL;
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    }
}

/* markNodeAsFailingIfNeeded: PFAIL becomes FAIL when a majority of the
 * primaries with slots (myself included when a primary) report it. */
static void mark_failing_if_needed(cluster_node *n) {
    int quorum = cl.size / 2 + 1;
    if (!cl_node_timed_out(n) || cl_node_failed(n)) return;
    int failures = cl_fail_report_count(n);
    if (cl_node_is_primary(cl.myself)) failures++;
    if (failures < quorum) return;
    log_notice("Marking node %.40s as failing (quorum reached).", n->name);
    n->flags &= ~CL_NODE_PFAIL;
    n->flags |= CL_NODE_FAIL;
    n->fail_time = cl_now_ms();
    broadcast_fail(n->name);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
}

/* clusterHandleConfigEpochCollision: of two primaries with one config
 * epoch, the one with the smaller name takes a new epoch. */
static void handle_epoch_collision(cluster_node *sender) {
    cluster_node *me = cl.myself;
    if (sender->config_epoch != me->config_epoch || !cl_node_is_primary(sender) ||
        !cl_node_is_primary(me))
        return;
    if (memcmp(sender->name, me->name, CL_NAMELEN) <= 0) return;
    cl.current_epoch++;
    me->config_epoch = cl.current_epoch;
    char err[256];
    if (cl_conf_save_now(err, sizeof err) != 0) {
        log_warning("Fatal: can't update cluster config file: %s", err);
        exit(1);
    }
    log_verbose("WARNING: configEpoch collision with node %.40s. configEpoch set to %llu",
                sender->name, (unsigned long long)me->config_epoch);
}

static int bit_set(const uint8_t *bitmap, unsigned i) { return (bitmap[i >> 3] >> (i & 7)) & 1; }

/* clusterUpdateSlotsConfigWith: the slots sender claims with a newer
 * config epoch than their owner's become its; when myself (or myself's
 * primary) loses its last slot to it, myself follows sender; slots myself
 * lost while keeping others have their keys deleted. */
static void update_slots_with(cluster_node *sender, uint64_t epoch, const uint8_t *slots) {
    if (sender == cl.myself) {
        log_warning("Discarding UPDATE message about myself.");
        return;
    }
    cluster_node *cur = cl_node_is_primary(cl.myself) ? cl.myself : cl.myself->primary;
    cluster_node *new_primary = NULL;
    int sender_slots = 0, migrated_ours = 0, ndirty = 0;
    unsigned *dirty = NULL;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!bit_set(slots, s)) continue;
        sender_slots++;
        cluster_node *owner = cl.slots[s];
        if (owner == sender || cl.importing_from[s]) continue;
        if (owner && owner->config_epoch >= epoch) continue;
        if (owner == cl.myself && db_slot_count(&server.dbs[0], s) > 0) {
            if (!dirty) dirty = xmalloc(KEYSLOT_COUNT * sizeof *dirty);
            dirty[ndirty++] = s;
        }
        if (owner && owner == cur) {
            new_primary = sender;
            migrated_ours++;
        }
        cl_slot_del(s);
        cl_slot_add(sender, s);
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
    }
    if (new_primary && cur && cur->numslots == 0 &&
        (server.cfg.compat.cluster_allow_replica_migration || sender_slots == migrated_ours)) {
        log_warning("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    sender->name);
        cl_set_my_primary(sender);
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE | CL_TODO_FSYNC_CONFIG);
    } else if (cl.myself->primary && cl.myself->primary->primary) {
        log_warning("I'm a sub-replica! Reconfiguring myself as a replica of grandmaster %.40s",
                    cl.myself->primary->primary->name);
        cl_set_my_primary(cl.myself->primary->primary);
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE | CL_TODO_FSYNC_CONFIG);
    } else {
        for (int i = 0; i < ndirty; i++) db_slot_delete(&server.dbs[0], dirty[i]);
    }
    free(dirty);
}

/* ---- the gossip section and extensions ---- */

static void gossip_about_known(cluster_node *sender, cluster_node *n, const bus_gossip *g) {
    if (sender && cl_node_is_primary(sender) && n != cl.myself) {
        if (g->flags & (CL_NODE_FAIL | CL_NODE_PFAIL)) {
            if (cl_fail_report_add(n, sender))
                log_verbose("Node %.40s reported node %.40s as not reachable.", sender->name,
                            n->name);
            mark_failing_if_needed(n);
        } else if (cl_fail_report_del(n, sender)) {
            log_verbose("Node %.40s reported node %.40s is back online.", sender->name, n->name);
        }
    }
    /* a node up as far as we can tell takes the freshest pong time others saw */
    if (!(g->flags & (CL_NODE_FAIL | CL_NODE_PFAIL)) && n->ping_sent == 0 &&
        cl_fail_report_count(n) == 0) {
        long long pong = (long long)g->pong_received * 1000;
        if (pong <= cl_now_ms() + 500 && pong > n->pong_received) n->pong_received = pong;
    }
    /* a node we cannot reach, seen elsewhere at another address, moved */
    if ((n->flags & (CL_NODE_FAIL | CL_NODE_PFAIL)) && !(g->flags & CL_NODE_NOADDR) &&
        !(g->flags & (CL_NODE_FAIL | CL_NODE_PFAIL)) &&
        (strcasecmp(n->ip, g->ip) || n->port != g->port || n->cport != g->cport)) {
        if (n->link) cl_bus_free_link(n->link);
        memcpy(n->ip, g->ip, BUS_IPLEN);
        n->ip[BUS_IPLEN - 1] = '\0';
        n->port = g->port;
        n->pport = g->pport;
        n->cport = g->cport;
        n->flags &= ~CL_NODE_NOADDR;
    }
}

/* clusterProcessGossipSection: a node we do not know, gossiped by a known
 * sender, joins with its name and flags (not in a handshake: the address
 * may already belong to another node), unless it was forgotten. */
static void process_gossip(const bus_view *v, cluster_node *sender) {
    for (uint16_t i = 0; i < v->hdr.count; i++) {
        bus_gossip g;
        bus_gossip_at(v, i, &g);
        g.ip[BUS_IPLEN - 1] = '\0';
        cluster_node *n = cl_node_lookup(g.nodename, CL_NAMELEN);
        if (n) {
            gossip_about_known(sender, n, &g);
            continue;
        }
        if (!sender || (g.flags & CL_NODE_NOADDR) || cl_forgotten(g.nodename)) continue;
        n = cl_node_new(g.nodename, g.flags & ~(CL_NODE_MYSELF));
        memcpy(n->ip, g.ip, BUS_IPLEN);
        n->port = g.port;
        n->pport = g.pport;
        n->cport = g.cport;
        cl_node_add(n);
    }
}

/* clusterProcessPingExt: the hostname extension; none means none. */
static void process_ping_ext(const bus_view *v, cluster_node *sender) {
    const char *hostname = NULL;
    size_t hlen = 0;
    for (uint16_t i = 0; i < v->hdr.extensions; i++) {
        bus_ext e;
        bus_ext_at(v, i, &e);
        if (e.type != BUS_EXT_HOSTNAME) continue;
        hostname = (const char *)e.data;
        hlen = strnlen(hostname, e.len - BUS_EXT_HDR_LEN);
    }
    cl_node_set_hostname(sender, hostname ? hostname : "", hlen);
}

/* ---- message processing ---- */

/* Learns myself's address from the link a MEET came on (nodeIp2String of
 * the local end), unless cluster-announce-ip sets it. */
static void learn_my_ip(cl_link *link, int type) {
    const char *aip = server.cfg.compat.cluster_announce_ip;
    if (aip && aip[0]) return;
    if (type != BUS_MEET && cl.myself->ip[0]) return;
    char ip[BUS_IPLEN];
    if (cl_link_local_ip(link, ip) != 0 || !strcmp(ip, cl.myself->ip)) return;
    memcpy(cl.myself->ip, ip, sizeof ip);
    log_warning("IP address for this node updated to %s", cl.myself->ip);
    cl_todo(CL_TODO_SAVE_CONFIG);
}

/* MEET/PING: an unknown sender of a MEET becomes a node in handshake;
 * every PING is answered with a PONG on the same link. */
static void on_ping_or_meet(cl_link *link, cluster_node *sender, const bus_view *v) {
    const bus_hdr *h = &v->hdr;
    learn_my_ip(link, h->type);
    if (!sender && h->type == BUS_MEET) {
        cluster_node *n = cl_node_new(NULL, CL_NODE_HANDSHAKE);
        sender_ip(n->ip, link, h->myip);
        n->port = h->port;
        n->pport = h->pport;
        n->cport = h->cport;
        cl_node_add(n);
        cl_todo(CL_TODO_SAVE_CONFIG);
        /* a MEET is trusted: its gossip is taken even from an unknown sender */
        process_gossip(v, NULL);
    }
    send_ping(link, BUS_PONG);
}

/* The outbound link's node is in handshake: its PONG names it. Returns 0
 * when the node was deleted (the sender was known under its real name). */
static int complete_handshake(cl_link *link, cluster_node *ln, cluster_node *sender,
                              const bus_view *v) {
    if (sender) {
        log_verbose("Handshake: we already know node %.40s, updating the address if needed.",
                    sender->name);
        if (update_address(sender, link, &v->hdr))
            cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
        cl_node_delete(ln);
        return 0;
    }
    cl_node_rename(ln, v->hdr.sender);
    log_debug("Handshake with node %.40s completed.", ln->name);
    ln->flags &= ~CL_NODE_HANDSHAKE;
    ln->flags |= v->hdr.flags & (CL_NODE_PRIMARY | CL_NODE_REPLICA);
    cl_todo(CL_TODO_SAVE_CONFIG);
    return 1;
}

/* The sender's role: a primary, or a replica of the primary it names. */
static void update_role(cluster_node *sender, const bus_hdr *h) {
    if (memcmp(h->slaveof, null_name, CL_NAMELEN) == 0) {
        set_node_primary_role(sender);
        return;
    }
    cluster_node *primary = cl_node_lookup(h->slaveof, CL_NAMELEN);
    if (cl_node_is_primary(sender)) {
        cl_node_del_slots(sender);
        sender->flags &= ~(CL_NODE_PRIMARY | CL_NODE_MIGRATE_TO);
        sender->flags |= CL_NODE_REPLICA;
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
    }
    if (primary && primary != sender && sender->primary != primary) {
        cl_node_set_primary(sender, primary);
        cl_todo(CL_TODO_SAVE_CONFIG);
    }
}

/* The sender's slots against ours: its newer claims are taken; a claim
 * older than the owner we know gets an UPDATE about that owner. */
static void update_slots(cluster_node *sender, const bus_hdr *h) {
    cluster_node *sp = cl_node_is_primary(sender) ? sender : sender->primary;
    if (!sp || memcmp(sp->slots, h->myslots, sizeof h->myslots) == 0) return;
    if (cl_node_is_primary(sender)) update_slots_with(sender, h->config_epoch, h->myslots);
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!bit_set(h->myslots, s)) continue;
        cluster_node *owner = cl.slots[s];
        if (owner == sender || owner == NULL) continue;
        if (owner->config_epoch > h->config_epoch) {
            log_verbose("Node %.40s has old slots configuration, sending an UPDATE message "
                        "about %.40s", sender->name, owner->name);
            send_update(sender->link, owner);
            break;
        }
    }
}

static void on_ping_pong_meet(cl_link *link, cluster_node *ln, cluster_node *sender,
                              const bus_view *v) {
    const bus_hdr *h = &v->hdr;
    long long now = cl_now_ms();
    if (ln) {
        if (in_handshake(ln)) {
            if (!complete_handshake(link, ln, sender, v)) return;
        } else if (memcmp(ln->name, h->sender, CL_NAMELEN) != 0) {
            log_verbose("PONG contains mismatching sender ID. About node %.40s added %d ms ago, "
                        "having flags %d", ln->name, (int)(now - ln->ctime), ln->flags);
            ln->flags |= CL_NODE_NOADDR;
            ln->ip[0] = '\0';
            ln->port = ln->pport = ln->cport = 0;
            cl_bus_free_link(link);
            cl_todo(CL_TODO_SAVE_CONFIG);
            return;
        }
    }
    if (sender) {
        sender->flags &= ~CL_NODE_NOFAILOVER;
        sender->flags |= h->flags & CL_NODE_NOFAILOVER;
    }
    if (sender && h->type == BUS_PING && !in_handshake(sender) && update_address(sender, link, h))
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
    if (ln && h->type == BUS_PONG) {
        ln->pong_received = now;
        ln->ping_sent = 0;
        if (cl_node_timed_out(ln)) {
            ln->flags &= ~CL_NODE_PFAIL;
            cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
        } else if (cl_node_failed(ln)) {
            clear_failure_if_needed(ln);
        }
    }
    if (!sender) return;
    update_role(sender, h);
    update_slots(sender, h);
    if (cl_node_is_primary(cl.myself) && cl_node_is_primary(sender) &&
        h->config_epoch == cl.myself->config_epoch)
        handle_epoch_collision(sender);
    process_gossip(v, sender);
    process_ping_ext(v, sender);
}

static void on_fail(cluster_node *sender, const bus_view *v) {
    if (!sender) {
        log_verbose("Ignoring FAIL message from unknown node %.40s about %.40s", v->hdr.sender,
                    v->fail_node);
        return;
    }
    cluster_node *failing = cl_node_lookup(v->fail_node, CL_NAMELEN);
    if (!failing || (failing->flags & (CL_NODE_FAIL | CL_NODE_MYSELF))) return;
    log_notice("FAIL message received from %.40s about %.40s", v->hdr.sender, v->fail_node);
    failing->flags |= CL_NODE_FAIL;
    failing->fail_time = cl_now_ms();
    failing->flags &= ~CL_NODE_PFAIL;
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
}

static void on_update(cluster_node *sender, const bus_view *v) {
    if (!sender) return;
    cluster_node *n = cl_node_lookup(v->update_node, CL_NAMELEN);
    if (!n || n->config_epoch >= v->update_epoch) return;
    if (!cl_node_is_primary(n)) set_node_primary_role(n);
    n->config_epoch = v->update_epoch;
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
    update_slots_with(n, v->update_epoch, v->update_slots);
}

/* The epochs and replication offset every message from a known node
 * carries. */
static void take_header(cluster_node *sender, const bus_hdr *h) {
    if (h->current_epoch > cl.current_epoch) {
        cl.current_epoch = h->current_epoch;
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
    }
    if (h->config_epoch > sender->config_epoch) {
        sender->config_epoch = h->config_epoch;
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
    }
    sender->repl_offset = (long long)h->offset;
    sender->repl_offset_time = cl_now_ms();
}

/* clusterProcessPacket. link_node: the outbound link's node (NULL on an
 * inbound link, whose sender is looked up by name). */
void cl_gossip_process(cl_link *link, cluster_node *link_node, const bus_view *v) {
    const bus_hdr *h = &v->hdr;
    cluster_node *known = cl_link_node(link);
    cluster_node *sender = known && !in_handshake(known) ? known
                                                         : cl_node_lookup(h->sender, CL_NAMELEN);
    if (sender && cl_link_inbound(link) && !known) cl_bus_set_inbound(link, sender);
    if (sender) sender->data_received = cl_now_ms();
    if (sender && !in_handshake(sender)) take_header(sender, h);

    switch (h->type) {
    case BUS_PING: case BUS_MEET:
        on_ping_or_meet(link, sender, v);
        on_ping_pong_meet(link, link_node, sender, v);
        break;
    case BUS_PONG: on_ping_pong_meet(link, link_node, sender, v); break;
    case BUS_FAIL: on_fail(sender, v); break;
    case BUS_PUBLISH:
        if (sender)
            pubsub_publish((const char *)v->channel, v->channel_len, (const char *)v->message,
                           v->message_len);
        break;
    case BUS_PUBLISHSHARD:
        if (sender)
            pubsub_publish_shard((const char *)v->channel, v->channel_len,
                                 (const char *)v->message, v->message_len);
        break;
    case BUS_FAILOVER_AUTH_REQUEST: if (sender) cl_failover_auth_request(sender, v); break;
    case BUS_FAILOVER_AUTH_ACK: if (sender) cl_failover_auth_ack(sender, v); break;
    case BUS_MFSTART: if (sender) cl_failover_mfstart(sender, v); break;
    case BUS_UPDATE: on_update(sender, v); break;
    case BUS_MODULE: break;            /* no module API: dropped, as with no receiver */
    default: log_verbose("Received unknown packet type: %d", h->type); break;
    }
}

/* clusterLinkConnectHandler: the first message on a new link is a MEET
 * for a node met by CLUSTER MEET, else a PING; a ping already in flight
 * keeps its time, so that reconnecting does not hide a timeout. */
void cl_gossip_link_connected(cluster_node *n) {
    long long old_ping_sent = n->ping_sent;
    send_ping(n->link, (n->flags & CL_NODE_MEET) ? BUS_MEET : BUS_PING);
    if (old_ping_sent) n->ping_sent = old_ping_sent;
    n->flags &= ~CL_NODE_MEET;
    log_verbose("Connecting with Node %.40s at %s:%d", n->name, n->ip, n->cport);
}

/* ---- the cron ---- */

/* Myself's hostname and announced address follow the configuration. */
static void update_myself_announced(void) {
    const char *h = server.cfg.compat.cluster_announce_hostname;
    cl_node_set_hostname(cl.myself, h ? h : "", h ? strlen(h) : 0);
    const char *aip = server.cfg.compat.cluster_announce_ip;
    if (aip && aip[0] && strcmp(aip, cl.myself->ip)) {
        snprintf(cl.myself->ip, sizeof cl.myself->ip, "%s", aip);
        cl_todo(CL_TODO_SAVE_CONFIG);
    }
}

/* clusterNodeCronHandleReconnect: 1 when n was deleted (a handshake that
 * timed out) or is not to be talked to. */
static int cron_reconnect(cluster_node *n, long long handshake_timeout, long long now) {
    if (n->flags & (CL_NODE_MYSELF | CL_NODE_NOADDR)) return 1;
    if (n->flags & CL_NODE_PFAIL) cl.stats_pfail_nodes++;
    if (in_handshake(n) && now - n->ctime > handshake_timeout) {
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
    if (best) send_ping(best->link, BUS_PING);
}

/* The per-node checks: a silent link reconnected, a ping to a node whose
 * pong is old, PFAIL for a node silent past node_timeout. 1 when the
 * state is to be updated. */
static int cron_check_node(cluster_node *n, long long now) {
    long long timeout = node_timeout();
    long long ping_delay = now - n->ping_sent;
    long long data_delay = now - n->data_received;
    if (n->link && now - cl_link_ctime(n->link) > timeout && n->ping_sent &&
        ping_delay > timeout / 2 && data_delay > timeout / 2)
        cl_bus_free_link(n->link);     /* reconnected by the next cron */
    if (n->link && n->ping_sent == 0 && now - n->pong_received > timeout / 2) {
        send_ping(n->link, BUS_PING);
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

void cl_gossip_cron(void) {
    static long long iteration;
    static int hooked;
    if (!hooked) {
        pubsub_set_cluster_publish(publish_to_cluster);
        hooked = 1;
    }
    iteration++;
    update_myself_announced();
    long long now = cl_now_ms();
    long long handshake_timeout = node_timeout() < 1000 ? 1000 : node_timeout();

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
