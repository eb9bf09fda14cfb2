/* state: the cluster's nodes and slots as this node knows them; see
 * cluster.h for the queries the rest of the server makes.
 *
 * Now: one node (myself) and no slots assigned; the bus and the CLUSTER
 * commands that fill it in are to come. Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "keyslot.h"
#include "server.h"

struct cluster_node {
    char name[40];        /* node id: 40 hex characters, no NUL */
    cluster_node *primary; /* NULL for a primary */
    char ip[46];
    int port;
};

static cluster_node myself_node;
static const cluster_node *slot_owner[KEYSLOT_COUNT];

void cluster_init(void) {
    if (!cluster_enabled()) return;
    memset(&myself_node, 0, sizeof myself_node);
    snprintf(myself_node.ip, sizeof myself_node.ip, "127.0.0.1");
    myself_node.port = server.cfg.port;
}

int cluster_enabled(void) { return server.cfg.compat.cluster_enabled; }

const cluster_node *cluster_myself(void) {
    assert(cluster_enabled());
    return &myself_node;
}

const cluster_node *cluster_slot_owner(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return slot_owner[slot];
}

const cluster_node *cluster_slot_migrating_to(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return NULL;
}

const cluster_node *cluster_slot_importing_from(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return NULL;
}

int cluster_state_ok(void) { return 0; }

const cluster_node *cluster_node_primary(const cluster_node *n) { return n->primary; }

size_t cluster_node_redirect_endpoint(const cluster_node *n, int tls, char *buf, size_t cap) {
    (void)tls;
    int len = snprintf(buf, cap, "%s:%d", n->ip, n->port);
    return len < 0 ? 0 : (size_t)len;
}
