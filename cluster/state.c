/* state: the cluster's nodes and slots as this node knows them (the node
 * table, slot owners, replicas, fail reports, cluster_state), and the
 * queries cluster.h offers the rest of the server. Redis 7.0's
 * clusterState in memory; nodes_conf.c keeps it on disk, gossip.c changes
 * it from the bus. Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "cluster_int.h"
#include "keyslot.h"
#include "log.h"
#include "server.h"
#include "util.h"

cl_state cl;

long long cl_now_ms(void) { return (long long)wall_ms(); }

void cl_random_name(char name[CL_NAMELEN]) {
    static const char hex[] = "0123456789abcdef";
    uint8_t r[CL_NAMELEN];
    random_bytes(r, sizeof r);
    for (int i = 0; i < CL_NAMELEN; i++) name[i] = hex[r[i] & 15];
}

cluster_node *cl_node_new(const char *name, int flags) {
    cluster_node *n = xcalloc(1, sizeof *n);
    if (name)
        memcpy(n->name, name, CL_NAMELEN);
    else
        cl_random_name(n->name);
    n->flags = flags;
    n->ctime = cl_now_ms();
    n->repl_offset_time = n->ctime;
    return n;
}

/* ---- the index by name ----
 * Every bus message names its sender and up to N/10 gossip entries, so a
 * lookup by name is on the bus's hot path: an open-addressing table of
 * pointers into the node table (linear probing, at most half full), rebuilt
 * whole when a node leaves or is renamed (rare), grown by insertion. */
static struct {
    cluster_node **slot;
    size_t cap;            /* a power of two, or 0 */
} idx;

static size_t name_hash(const char *name) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a: ids are random hex */
    for (int i = 0; i < CL_NAMELEN; i++) h = (h ^ (uint8_t)name[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

static void idx_put(cluster_node *n) {
    size_t i = name_hash(n->name) & (idx.cap - 1);
    while (idx.slot[i]) i = (i + 1) & (idx.cap - 1);
    idx.slot[i] = n;
}

/* Rebuilds the index from the node table, sized for `want` nodes. */
static void idx_rebuild(int want) {
    size_t cap = 16;
    while (cap < 2 * (size_t)want) cap *= 2;
    free(idx.slot);
    idx.slot = xcalloc(cap, sizeof *idx.slot);
    idx.cap = cap;
    for (int i = 0; i < cl.numnodes; i++) idx_put(cl.nodes[i]);
}

void cl_node_add(cluster_node *n) {
    assert(cl_node_lookup(n->name, CL_NAMELEN) == NULL);
    cluster_node **a = xrealloc(cl.nodes, (size_t)(cl.numnodes + 1) * sizeof *a);
    cl.nodes = a;
    cl.nodes[cl.numnodes++] = n;
    if (2 * (size_t)cl.numnodes > idx.cap)
        idx_rebuild(cl.numnodes * 2);
    else
        idx_put(n);
}

cluster_node *cl_node_lookup(const char *name, size_t len) {
    if (len != CL_NAMELEN || idx.cap == 0) return NULL;
    for (size_t i = name_hash(name) & (idx.cap - 1); idx.slot[i]; i = (i + 1) & (idx.cap - 1))
        if (memcmp(idx.slot[i]->name, name, CL_NAMELEN) == 0) return idx.slot[i];
    return NULL;
}

void cl_node_rename(cluster_node *n, const char *name) {
    assert(cl_node_lookup(name, CL_NAMELEN) == NULL);
    memcpy(n->name, name, CL_NAMELEN);
    idx_rebuild(cl.numnodes);
}

void cl_node_set_hostname(cluster_node *n, const char *h, size_t len) {
    if (n->hostname && strlen(n->hostname) == len && memcmp(n->hostname, h, len) == 0) return;
    free(n->hostname);
    n->hostname = NULL;
    if (len == 0) return;
    n->hostname = xcalloc(1, len + 1);
    memcpy(n->hostname, h, len);
}

int cl_node_has_slot(const cluster_node *n, unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return (n->slots[slot >> 3] >> (slot & 7)) & 1;
}

int cl_slot_add(cluster_node *n, unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    if (cl.slots[slot]) return -1;
    n->slots[slot >> 3] |= (uint8_t)(1u << (slot & 7));
    n->numslots++;
    cl.slots[slot] = n;
    return 0;
}

int cl_slot_del(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    cluster_node *n = cl.slots[slot];
    if (!n) return -1;
    assert(cl_node_has_slot(n, slot));
    n->slots[slot >> 3] &= (uint8_t)~(1u << (slot & 7));
    n->numslots--;
    cl.slots[slot] = NULL;
    return 0;
}

int cl_node_del_slots(cluster_node *n) {
    int deleted = 0;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        if (cl_node_has_slot(n, s)) {
            cl_slot_del(s);
            deleted++;
        }
    return deleted;
}

int cl_node_add_replica(cluster_node *primary, cluster_node *replica) {
    for (int i = 0; i < primary->numreplicas; i++)
        if (primary->replicas[i] == replica) return -1;
    cluster_node **a =
        xrealloc(primary->replicas, (size_t)(primary->numreplicas + 1) * sizeof *a);
    primary->replicas = a;
    primary->replicas[primary->numreplicas++] = replica;
    primary->flags |= CL_NODE_MIGRATE_TO;
    return 0;
}

int cl_node_remove_replica(cluster_node *primary, cluster_node *replica) {
    for (int i = 0; i < primary->numreplicas; i++) {
        if (primary->replicas[i] != replica) continue;
        memmove(primary->replicas + i, primary->replicas + i + 1,
                (size_t)(primary->numreplicas - i - 1) * sizeof *primary->replicas);
        if (--primary->numreplicas == 0) primary->flags &= ~CL_NODE_MIGRATE_TO;
        return 0;
    }
    return -1;
}

void cl_node_set_primary(cluster_node *n, cluster_node *primary) {
    assert(n != primary);
    if (n->primary == primary && (primary ? (n->flags & CL_NODE_REPLICA) : 1)) {
        if (!primary) {
            n->flags &= ~CL_NODE_REPLICA;
            n->flags |= CL_NODE_PRIMARY;
        }
        return;
    }
    if (n->primary) cl_node_remove_replica(n->primary, n);
    n->primary = primary;
    if (primary) {
        n->flags &= ~(CL_NODE_PRIMARY | CL_NODE_MIGRATE_TO);
        n->flags |= CL_NODE_REPLICA;
        cl_node_add_replica(primary, n);
    } else {
        n->flags &= ~CL_NODE_REPLICA;
        n->flags |= CL_NODE_PRIMARY;
    }
}

int cl_node_is_primary(const cluster_node *n) { return (n->flags & CL_NODE_PRIMARY) != 0; }
int cl_node_failed(const cluster_node *n) { return (n->flags & CL_NODE_FAIL) != 0; }
int cl_node_timed_out(const cluster_node *n) { return (n->flags & CL_NODE_PFAIL) != 0; }

int cl_node_ok_replicas(const cluster_node *n) {
    int ok = 0;
    for (int i = 0; i < n->numreplicas; i++)
        if (!cl_node_failed(n->replicas[i])) ok++;
    return ok;
}

int cl_fail_report_add(cluster_node *n, cluster_node *sender) {
    long long now = cl_now_ms();
    for (int i = 0; i < n->num_fail_reports; i++)
        if (n->fail_reports[i].node == sender) {
            n->fail_reports[i].time = now;
            return 0;
        }
    cl_fail_report *a =
        xrealloc(n->fail_reports, (size_t)(n->num_fail_reports + 1) * sizeof *a);
    n->fail_reports = a;
    n->fail_reports[n->num_fail_reports++] = (cl_fail_report){sender, now};
    return 1;
}

static void fail_report_remove_at(cluster_node *n, int i) {
    memmove(n->fail_reports + i, n->fail_reports + i + 1,
            (size_t)(n->num_fail_reports - i - 1) * sizeof *n->fail_reports);
    n->num_fail_reports--;
}

int cl_fail_report_del(cluster_node *n, cluster_node *sender) {
    for (int i = 0; i < n->num_fail_reports; i++)
        if (n->fail_reports[i].node == sender) {
            fail_report_remove_at(n, i);
            return 1;
        }
    return 0;
}

int cl_fail_report_count(cluster_node *n) {
    long long maxtime = server.cfg.compat.cluster_node_timeout * 2; /* CLUSTER_FAIL_REPORT_VALIDITY_MULT */
    long long now = cl_now_ms();
    for (int i = 0; i < n->num_fail_reports;)
        if (now - n->fail_reports[i].time > maxtime)
            fail_report_remove_at(n, i);
        else
            i++;
    return n->num_fail_reports;
}

void cl_node_delete(cluster_node *n) {
    assert(n != cl.myself);
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (cl.importing_from[s] == n) cl.importing_from[s] = NULL;
        if (cl.migrating_to[s] == n) cl.migrating_to[s] = NULL;
        if (cl.slots[s] == n) cl_slot_del(s);
    }
    for (int i = 0; i < cl.numnodes; i++) cl_fail_report_del(cl.nodes[i], n);
    if (n->primary) cl_node_remove_replica(n->primary, n);
    for (int i = 0; i < n->numreplicas; i++) n->replicas[i]->primary = NULL;
    cl_bus_free_links(n);
    for (int i = 0; i < cl.numnodes; i++)
        if (cl.nodes[i] == n) {
            memmove(cl.nodes + i, cl.nodes + i + 1, (size_t)(cl.numnodes - i - 1) * sizeof *cl.nodes);
            cl.numnodes--;
            break;
        }
    idx_rebuild(cl.numnodes);
    free(n->replicas);
    free(n->fail_reports);
    free(n->hostname);
    free(n);
}

uint64_t cl_max_epoch(void) {
    uint64_t max = 0;
    for (int i = 0; i < cl.numnodes; i++)
        if (cl.nodes[i]->config_epoch > max) max = cl.nodes[i]->config_epoch;
    return max > cl.current_epoch ? max : cl.current_epoch;
}

int cl_bump_epoch_no_consensus(void) {
    uint64_t max = cl_max_epoch();
    if (cl.myself->config_epoch == 0 || cl.myself->config_epoch != max) {
        cl.current_epoch++;
        cl.myself->config_epoch = cl.current_epoch;
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
        return 1;
    }
    return 0;
}

void cl_todo(int flags) { cl.todo |= flags; }

/* clusterUpdateState: fail when a slot has no owner (and
 * cluster-require-full-coverage) or its owner is in FAIL, or when this
 * primary is in a minority partition; the size counts primaries with
 * slots. As Redis: a primary keeps the state (fail) and the size (1) it
 * starts with for its first 2 s, so that it hears from the cluster first
 * (CLUSTER_WRITABLE_DELAY); and after being in a minority it waits the
 * rejoin delay (node timeout within 500 ms .. 5 s) before turning ok. */
void cl_update_state(void) {
    static long long first_call, minority_time;
    long long now = cl_now_ms();
    if (first_call == 0) {
        first_call = now;
        cl.size = 1;
    }
    if (cl_node_is_primary(cl.myself) && !cl.ok && now - first_call < 2000) return;
    int ok = 1;
    if (server.cfg.compat.cluster_require_full_coverage)
        for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
            if (!cl.slots[s] || cl_node_failed(cl.slots[s])) {
                ok = 0;
                break;
            }
    int size = 0, reachable = 0;
    for (int i = 0; i < cl.numnodes; i++) {
        cluster_node *n = cl.nodes[i];
        if (!cl_node_is_primary(n) || n->numslots == 0) continue;
        size++;
        if (!(n->flags & (CL_NODE_FAIL | CL_NODE_PFAIL))) reachable++;
    }
    cl.size = size;
    if (reachable < size / 2 + 1) {
        ok = 0;
        minority_time = now;
    }
    if (ok == cl.ok) return;
    long long rejoin = server.cfg.compat.cluster_node_timeout;
    if (rejoin > 5000) rejoin = 5000;
    if (rejoin < 500) rejoin = 500;
    if (ok && cl_node_is_primary(cl.myself) && now - minority_time < rejoin) return;
    log_warning("Cluster state changed: %s", ok ? "ok" : "fail");
    cl.ok = ok;
}

void cl_reset(int hard) {
    cluster_node *me = cl.myself;
    if (me->flags & CL_NODE_REPLICA) cl_node_set_primary(me, NULL);
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        cl.migrating_to[s] = NULL;
        cl.importing_from[s] = NULL;
        cl_slot_del(s);
    }
    while (cl.numnodes > 1) cl_node_delete(cl.nodes[cl.nodes[0] == me ? 1 : 0]);
    if (hard) {
        cl.current_epoch = 0;
        cl.last_vote_epoch = 0;
        me->config_epoch = 0;
        log_warning("configEpoch set to 0 via CLUSTER RESET HARD");
        cl_random_name(me->name);
        idx_rebuild(cl.numnodes);
        log_notice("Node hard reset, now I'm %.40s", me->name);
    }
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE | CL_TODO_FSYNC_CONFIG);
}

void cl_state_clear(void) {
    cl.myself = NULL;
    while (cl.numnodes) {
        cluster_node *n = cl.nodes[cl.numnodes - 1];
        for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
            if (cl.slots[s] == n) cl_slot_del(s);
            if (cl.migrating_to[s] == n) cl.migrating_to[s] = NULL;
            if (cl.importing_from[s] == n) cl.importing_from[s] = NULL;
        }
        cl.numnodes--;
        free(n->replicas);
        free(n->fail_reports);
        free(n->hostname);
        free(n);
    }
    free(cl.nodes);
    cl.nodes = NULL;
    free(idx.slot);
    idx.slot = NULL;
    idx.cap = 0;
    cl.current_epoch = cl.last_vote_epoch = 0;
}

void cl_node_flags_text(const cluster_node *n, char *buf, size_t cap) {
    static const struct { int flag; const char *name; } names[] = {
        {CL_NODE_MYSELF, "myself"},     {CL_NODE_PRIMARY, "master"},
        {CL_NODE_REPLICA, "slave"},     {CL_NODE_PFAIL, "fail?"},
        {CL_NODE_FAIL, "fail"},         {CL_NODE_HANDSHAKE, "handshake"},
        {CL_NODE_NOADDR, "noaddr"},     {CL_NODE_NOFAILOVER, "nofailover"},
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!(n->flags & names[i].flag)) continue;
        int w = snprintf(buf + len, cap - len, "%s%s", len ? "," : "", names[i].name);
        if (w < 0 || (size_t)w >= cap - len) return;
        len += (size_t)w;
    }
    if (len == 0) snprintf(buf, cap, "noflags");
}

/* ---- cluster.h ---- */

int cluster_enabled(void) { return server.cfg.compat.cluster_enabled; }

const cluster_node *cluster_myself(void) {
    assert(cluster_enabled() && cl.myself);
    return cl.myself;
}

const cluster_node *cluster_slot_owner(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return cl.slots[slot];
}

const cluster_node *cluster_slot_migrating_to(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return cl.migrating_to[slot];
}

const cluster_node *cluster_slot_importing_from(unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    return cl.importing_from[slot];
}

int cluster_state_ok(void) { return cl.ok; }

const cluster_node *cluster_node_primary(const cluster_node *n) { return n->primary; }

const char *cl_preferred_endpoint(const cluster_node *n) {
    switch (server.cfg.compat.cluster_preferred_endpoint_type) {
    case 1: return n->hostname && n->hostname[0] ? n->hostname : "?";
    case 2: return "";
    default: return n->ip;
    }
}

/* Redis 7.0's -MOVED / -ASK endpoint: the preferred endpoint
 * (cl_preferred_endpoint) and the client port: the plain one (pport) for a
 * plain client when tls-cluster is on, else the one the node announces. */
size_t cluster_node_redirect_endpoint(const cluster_node *n, int tls, char *buf, size_t cap) {
    int port = server.cfg.compat.tls_cluster && !tls && n->pport ? n->pport : n->port;
    int len = snprintf(buf, cap, "%s:%d", cl_preferred_endpoint(n), port);
    return len < 0 ? 0 : (size_t)len;
}
