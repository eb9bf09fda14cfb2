/* cluster: verso as a Redis Cluster node (the wing in cluster/).
 *
 * This header is the wing's face to the rest of the server: what the
 * command path (redirections: cluster/route.c) and the other wings may ask
 * of the cluster's state. Behind it, cluster/state.c holds that state: now
 * the nodes, slots and epochs, kept in nodes.conf (cluster/nodes_conf.c),
 * changed by CLUSTER (cluster/cmd_cluster.c) and the bus.
 *
 * Main thread only: the state changes on the loop thread (bus messages,
 * CLUSTER commands, the cron) and is read there. */
#ifndef VERSO_CLUSTER_H
#define VERSO_CLUSTER_H

#include <stddef.h>

/* A node of the cluster as this node knows it (myself included). Opaque
 * outside cluster/; a pointer stays valid until the next return to the
 * loop (a node may be forgotten by a bus message or CLUSTER FORGET). */
typedef struct cluster_node cluster_node;

/* Registers the wing (its commands, hooks, the bus listener when
 * cluster-enabled): app/main.c calls it once with the other wings'. */
void cluster_init(void);

/* 1 when cluster-enabled yes (fixed for the life of the process). */
int cluster_enabled(void);
/* This node. Non-NULL when cluster_enabled(). */
const cluster_node *cluster_myself(void);
/* The primary that serves slot (0 .. KEYSLOT_COUNT - 1), NULL when the
 * slot is unassigned. */
const cluster_node *cluster_slot_owner(unsigned slot);
/* CLUSTER SETSLOT's transitional states on this node: the node slot is
 * being moved to (MIGRATING), or taken from (IMPORTING); NULL when none. */
const cluster_node *cluster_slot_migrating_to(unsigned slot);
const cluster_node *cluster_slot_importing_from(unsigned slot);
/* 1 when cluster_state is ok (CLUSTER INFO). */
int cluster_state_ok(void);
/* n's primary when n is a replica, NULL when n is a primary. */
const cluster_node *cluster_node_primary(const cluster_node *n);
/* The endpoint a -MOVED / -ASK names for n ("host:port", as Redis per
 * cluster-preferred-endpoint-type; `tls`: the client came in over TLS, so
 * the TLS port). Writes at most cap bytes (NUL included); returns the
 * length. */
size_t cluster_node_redirect_endpoint(const cluster_node *n, int tls, char *buf, size_t cap);
/* 1 when the connection c (a client *) is an active slot import's link
 * (cluster/slotmig_dst.c): its commands are served here whatever the
 * slot's owner. */
int cluster_import_link(const void *c);

#endif
