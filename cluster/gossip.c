/* gossip: what a message received on the cluster bus does to the node
 * table, as Redis 7.0's clusterProcessPacket (cluster.c), rewritten.
 *
 * MEET (an unknown sender becomes a node in handshake; myself learns its
 * own address from the link), PING/PONG (handshake completion renames the
 * node; addresses, roles, the sender's slots and epochs, with an UPDATE
 * sent on a stale claim; config epoch collisions; the gossip section's fail
 * reports and new nodes; the hostname extension), FAIL, UPDATE,
 * PUBLISH/PUBLISHSHARD (to local subscribers), and the failover messages
 * handed to failover.c. PFAIL becomes FAIL here, when a majority of the
 * primaries report it (mark_failing_if_needed). What this node sends, and
 * the cron, are gossip_send.c's.
 *
 * State changes ask for nodes.conf saves and cluster_state updates with
 * cl_todo, as Redis's clusterDoBeforeSleep. Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster_int.h"
#include "db_slots.h"
#include "log.h"
#include "pubsub.h"
#include "repl_int.h"
#include "slotmig.h"
#include "server.h"
#include "util.h"

#define CL_FAIL_UNDO_TIME_MULT 2       /* a primary's FAIL clears after 2 * node_timeout */

static const char null_name[CL_NAMELEN]; /* 40 zero bytes: "no primary" on the wire */

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
        now - n->fail_time > cl_node_timeout() * CL_FAIL_UNDO_TIME_MULT) {
        log_notice("Clear FAIL state for node %.40s: is reachable again and nobody is serving "
                   "its slots after some time.", n->name);
        n->flags &= ~CL_NODE_FAIL;
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    }
}

/* markNodeAsFailingIfNeeded: PFAIL becomes FAIL when the primaries that
 * report it (myself included when a primary) are a majority of the
 * cluster's size (its primaries with slots); FAIL is then broadcast. */
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
    cl_send_fail(n->name);
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
    /* Redis saves at once; here the writer thread does, fsynced, so that
     * the loop does not wait on the disk */
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
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
    } else if (ndirty) {
        /* as Redis 7.2's delKeysInSlot, not 7.0's: each DEL is propagated,
         * or this node's replicas and AOF would keep the keys; deleted in
         * the background (a slot migration's handoff can bring its
         * target's claim here before its own +OK) */
        uint8_t set[KEYSLOT_COUNT / 8];
        memset(set, 0, sizeof set);
        for (int i = 0; i < ndirty; i++) sm_add_slot(set, dirty[i]);
        sm_drop_keys(set);
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
        /* an unknown sender's gossip adds no node, but its pong times and
         * the addresses of nodes we cannot reach are taken (as Redis) */
        process_gossip(v, NULL);
    }
    cl_send_ping(link, BUS_PONG);
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
            cl_send_update(sender->link, owner);
            break;
        }
    }
}

static void on_ping_pong_meet(cl_link *link, cluster_node *ln, cluster_node *sender,
                              const bus_view *v) {
    const bus_hdr *h = &v->hdr;
    long long now = cl_now_ms();
    if (ln) {
        if (cl_in_handshake(ln)) {
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
    if (sender && h->type == BUS_PING && !cl_in_handshake(sender) && update_address(sender, link, h))
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
    cluster_node *sender = known && !cl_in_handshake(known) ? known
                                                         : cl_node_lookup(h->sender, CL_NAMELEN);
    if (sender && cl_link_inbound(link) && !known) cl_bus_set_inbound(link, sender);
    if (sender) sender->data_received = cl_now_ms();
    if (sender && !cl_in_handshake(sender)) {
        take_header(sender, h);
        cl_failover_header_seen(sender, v); /* a paused primary's offset */
    }

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
