/* cmd_cluster_reply: the long replies of CLUSTER, as Redis 7.0 writes
 * them: INFO (its fields in 7.0's order, the message counts per type),
 * NODES and REPLICAS (nodes_conf.c's lines), SLOTS (ranges with the
 * preferred endpoint and the metadata map) and SHARDS (a map per primary:
 * its slot ranges as integer pairs and its nodes' details). INFO's cluster-dependent fields for
 * the server's INFO too (cl_info). Main thread only. */
#include <string.h>

#include "cluster_int.h"
#include "cmd.h"
#include "cmd_cluster.h"
#include "repl_int.h"
#include "server.h"
#include "vbuf.h"

/* Redis's clusterGetMessageTypeString, by BUS_* type */
static const char *const type_names[BUS_TYPE_COUNT] = {
    "ping", "pong", "meet", "fail", "publish", "auth-req",
    "auth-ack", "update", "mfstart", "module", "publishshard",
};

/* A plain client of a TLS cluster is told the plain ports (pport), a TLS
 * client the TLS ones, as Redis 7.0's use_pport (server.tls_cluster and a
 * connection that is not TLS). */
static int use_pport(const client *c) { return server.cfg.compat.tls_cluster && !c->tls; }

static int is_replica(const cluster_node *n) { return (n->flags & CL_NODE_REPLICA) != 0; }

void cl_reply_info(client *c) {
    int assigned = 0, ok = 0, pfail = 0, fail = 0;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        const cluster_node *n = cl.slots[s];
        if (!n) continue;
        assigned++;
        if (cl_node_failed(n))
            fail++;
        else if (cl_node_timed_out(n))
            pfail++;
        else
            ok++;
    }
    const cluster_node *me = cl.myself;
    uint64_t my_epoch = is_replica(me) && me->primary ? me->primary->config_epoch : me->config_epoch;
    vbuf b;
    vbuf_init(&b);
    vbuf_appendf(&b,
                 "cluster_state:%s\r\ncluster_slots_assigned:%d\r\ncluster_slots_ok:%d\r\n"
                 "cluster_slots_pfail:%d\r\ncluster_slots_fail:%d\r\ncluster_known_nodes:%d\r\n"
                 "cluster_size:%d\r\ncluster_current_epoch:%llu\r\ncluster_my_epoch:%llu\r\n",
                 cl.ok ? "ok" : "fail", assigned, ok, pfail, fail, cl.numnodes, cl.size,
                 (unsigned long long)cl.current_epoch, (unsigned long long)my_epoch);
    long long sent = 0, received = 0;
    for (int t = 0; t < BUS_TYPE_COUNT; t++) {
        if (!cl.stats_sent[t]) continue;
        sent += cl.stats_sent[t];
        vbuf_appendf(&b, "cluster_stats_messages_%s_sent:%lld\r\n", type_names[t], cl.stats_sent[t]);
    }
    vbuf_appendf(&b, "cluster_stats_messages_sent:%lld\r\n", sent);
    for (int t = 0; t < BUS_TYPE_COUNT; t++) {
        if (!cl.stats_received[t]) continue;
        received += cl.stats_received[t];
        vbuf_appendf(&b, "cluster_stats_messages_%s_received:%lld\r\n", type_names[t],
                     cl.stats_received[t]);
    }
    vbuf_appendf(&b, "cluster_stats_messages_received:%lld\r\n", received);
    vbuf_appendf(&b, "total_cluster_links_buffer_limit_exceeded:%lld\r\n",
                 cl.stats_links_limit_exceeded);
    reply_verbatim(c, b.data, b.len, "txt");
    vbuf_free(&b);
}

void cl_reply_nodes(client *c) {
    vbuf b;
    vbuf_init(&b);
    cl_conf_nodes_text(&b, 0, use_pport(c));
    reply_verbatim(c, b.data ? b.data : "", b.len, "txt");
    vbuf_free(&b);
}

void cl_reply_replicas(client *c) {
    cluster_node *n = cl_node_lookup(c->argv[2].p, c->argv[2].len);
    if (!n) {
        reply_errorf(c, "ERR Unknown node %.*s", (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    if (is_replica(n)) {
        reply_error(c, "ERR The specified node is not a master");
        return;
    }
    reply_array(c, n->numreplicas);
    for (int i = 0; i < n->numreplicas; i++) {
        vbuf b;
        vbuf_init(&b);
        cl_conf_node_line(&b, n->replicas[i], use_pport(c));
        reply_bulk(c, b.data, b.len);
        vbuf_free(&b);
    }
}

/* ---- SLOTS ---- */

static int has_hostname(const cluster_node *n) { return n->hostname && n->hostname[0]; }

/* addNodeToNodeReply: endpoint, port, id, and the networking metadata
 * that is not the preferred endpoint (a map). */
static void reply_slot_node(client *c, const cluster_node *n) {
    int type = server.cfg.compat.cluster_preferred_endpoint_type;
    reply_array(c, 4);
    if (type == 0)
        reply_bulk_str(c, n->ip);
    else if (type == 1)
        reply_bulk_str(c, has_hostname(n) ? n->hostname : "?");
    else
        reply_null(c);
    reply_int(c, use_pport(c) && n->pport ? n->pport : n->port);
    reply_bulk(c, n->name, CL_NAMELEN);
    int ip = type != 0, host = type != 1 && has_hostname(n);
    reply_map(c, ip + host);
    if (ip) {
        reply_bulk_str(c, "ip");
        reply_bulk_str(c, n->ip);
    }
    if (host) {
        reply_bulk_str(c, "hostname");
        reply_bulk_str(c, n->hostname);
    }
}

static long long node_offset(const cluster_node *n) {
    if (n->flags & CL_NODE_MYSELF) return R.offset;
    return n->repl_offset;
}

/* Redis 7.0's isReplicaAvailable: not failed, and it has data (a
 * replication offset). */
static int replica_available(const cluster_node *n) {
    return !cl_node_failed(n) && node_offset(n) != 0;
}

static void reply_slot_range(client *c, const cluster_node *n, int start, int end) {
    int replicas = 0;
    for (int i = 0; i < n->numreplicas; i++)
        if (replica_available(n->replicas[i])) replicas++;
    reply_array(c, 3 + replicas);
    reply_int(c, start);
    reply_int(c, end);
    reply_slot_node(c, n);
    for (int i = 0; i < n->numreplicas; i++)
        if (replica_available(n->replicas[i])) reply_slot_node(c, n->replicas[i]);
}

/* The runs of slots with one owner: their count, each replied when reply. */
static int slot_runs(client *c, int reply) {
    int runs = 0;
    for (int s = 0; s < KEYSLOT_COUNT;) {
        const cluster_node *n = cl.slots[s];
        int e = s;
        while (e + 1 < KEYSLOT_COUNT && cl.slots[e + 1] == n) e++;
        if (n) {
            runs++;
            if (reply) reply_slot_range(c, n, s, e);
        }
        s = e + 1;
    }
    return runs;
}

void cl_reply_slots(client *c) {
    reply_array(c, slot_runs(c, 0));
    slot_runs(c, 1);
}

/* ---- SHARDS ---- */

/* addNodeDetailsToShardReply */
static void reply_shard_node(client *c, const cluster_node *n) {
    int tls = server.cfg.compat.tls_cluster != 0;
    int plain_port = tls ? n->pport : n->port, tls_port = tls ? n->port : 0;
    long long offset = node_offset(n);
    reply_map(c, 6 + (plain_port != 0) + (tls_port != 0) + has_hostname(n));
    reply_bulk_str(c, "id");
    reply_bulk(c, n->name, CL_NAMELEN);
    if (plain_port) {
        reply_bulk_str(c, "port");
        reply_int(c, plain_port);
    }
    if (tls_port) {
        reply_bulk_str(c, "tls-port");
        reply_int(c, tls_port);
    }
    reply_bulk_str(c, "ip");
    reply_bulk_str(c, n->ip);
    reply_bulk_str(c, "endpoint");
    reply_bulk_str(c, cl_preferred_endpoint(n));
    if (has_hostname(n)) {
        reply_bulk_str(c, "hostname");
        reply_bulk_str(c, n->hostname);
    }
    reply_bulk_str(c, "role");
    reply_bulk_str(c, is_replica(n) ? "replica" : "master");
    reply_bulk_str(c, "replication-offset");
    reply_int(c, offset);
    reply_bulk_str(c, "health");
    reply_bulk_str(c, cl_node_failed(n) ? "fail"
                      : is_replica(n) && offset == 0 ? "loading"
                                                     : "online");
}

static void reply_shard(client *c, const cluster_node *n) {
    reply_map(c, 2);
    reply_bulk_str(c, "slots");
    int pairs = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) reply_array(c, 2 * pairs);
        for (int s = 0; s < KEYSLOT_COUNT;) {
            if (!cl_node_has_slot(n, (unsigned)s)) {
                s++;
                continue;
            }
            int e = s;
            while (e + 1 < KEYSLOT_COUNT && cl_node_has_slot(n, (unsigned)(e + 1))) e++;
            if (pass == 0) {
                pairs++;
            } else {
                reply_int(c, s);
                reply_int(c, e);
            }
            s = e + 1;
        }
    }
    reply_bulk_str(c, "nodes");
    reply_array(c, 1 + n->numreplicas);
    reply_shard_node(c, n);
    for (int i = 0; i < n->numreplicas; i++) reply_shard_node(c, n->replicas[i]);
}

void cl_reply_shards(client *c) {
    int shards = 0;
    for (int i = 0; i < cl.numnodes; i++)
        if (cl_node_is_primary(cl.nodes[i])) shards++;
    reply_array(c, shards);
    for (int i = 0; i < cl.numnodes; i++)
        if (cl_node_is_primary(cl.nodes[i])) reply_shard(c, cl.nodes[i]);
}

/* INFO's Cluster section in 7.0 holds cluster_enabled only (info.c
 * writes it): nothing to add. */
void cl_info(const char *section, vbuf *b) {
    (void)section;
    (void)b;
}
