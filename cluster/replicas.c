/* replicas: myself as a replica in the cluster (Redis 7.0's
 * clusterSetMaster, CLUSTER REPLICATE's checks, clusterCron's replication
 * check and clusterHandleSlaveMigration). The node table says whom myself
 * replicates; replication (repl/repl.h) is made to follow it. Elections
 * are failover.c's. Main thread only. */
#include <assert.h>
#include <string.h>

#include "cluster_int.h"
#include "db.h"
#include "log.h"
#include "repl.h"
#include "server.h"

#define CL_REPLICA_MIGRATION_DELAY 5000 /* ms an orphan waits (Redis's) */

static int node_has_addr(const cluster_node *n) {
    return n->ip[0] && !(n->flags & CL_NODE_NOADDR);
}

static void follow(const cluster_node *n) {
    if (!node_has_addr(n)) return; /* the cron follows once it is known */
    repl_follow(n->ip, n->port);
}

void cl_set_my_primary(cluster_node *n) {
    cluster_node *me = cl.myself;
    assert(n != me);
    if (cl_node_is_primary(me)) {
        /* a primary's slots are its new primary's now (gossip moved them
         * already, CLUSTER REPLICATE demands none): no claim stays, nor
         * an open migration (clusterCloseAllSlots) */
        cl_node_del_slots(me);
        memset(cl.migrating_to, 0, sizeof cl.migrating_to);
        memset(cl.importing_from, 0, sizeof cl.importing_from);
    }
    cl_node_set_primary(me, n);
    follow(n);
    cl_failover_reset_manual();
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
}

static int myself_has_keys(void) {
    for (int i = 0; i < server.cfg.databases; i++)
        if (db_size(&server.dbs[i])) return 1;
    return 0;
}

const char *cl_cmd_replicate(cluster_node *n) {
    cluster_node *me = cl.myself;
    if (n == me) return "ERR Can't replicate myself";
    if (!cl_node_is_primary(n)) return "ERR I can only replicate a master, not a replica.";
    /* a primary must have nothing to lose; a replica changes primaries
     * with a full sync */
    if (cl_node_is_primary(me) && (me->numslots != 0 || myself_has_keys()))
        return "ERR To set a master the node must be empty and without assigned slots.";
    log_notice("Configuring this node as a replica of %.40s", n->name);
    cl_set_my_primary(n);
    return NULL;
}

/* Replication agrees with the table: a replica follows its primary's
 * address (after a restart from nodes.conf the address comes with the
 * first PING; it may change), a primary follows nobody. */
static void check_replication(void) {
    cluster_node *me = cl.myself;
    const char *host;
    int port;
    int following = repl_following(&host, &port);
    if (cl_node_is_primary(me)) {
        if (following) {
            log_notice("This node is a primary of the cluster: replication stops");
            repl_promote();
        }
        return;
    }
    cluster_node *p = me->primary;
    if (!p || !node_has_addr(p)) return;
    if (!following || strcmp(host, p->ip) != 0 || port != p->port) follow(p);
}

/* ---- replica migration ---- */

/* Replicas of n neither FAIL nor PFAIL. */
static int reachable_replicas(const cluster_node *n) {
    int ok = 0;
    for (int i = 0; i < n->numreplicas; i++)
        if (!(n->replicas[i]->flags & (CL_NODE_FAIL | CL_NODE_PFAIL))) ok++;
    return ok;
}

/* clusterHandleSlaveMigration: when my primary keeps more than
 * cluster-migration-barrier working replicas without me and a primary with
 * slots has none for CL_REPLICA_MIGRATION_DELAY, the replica with the
 * smallest name among the primaries with the most replicas moves to it. */
static void migrate_if_needed(int max_replicas, long long now) {
    cluster_node *me = cl.myself, *mine = me->primary;
    if (!cl.ok || !mine) return;
    if (reachable_replicas(mine) <= server.cfg.compat.cluster_migration_barrier) return;
    cluster_node *target = NULL, *candidate = me;
    for (int i = 0; i < cl.numnodes; i++) {
        cluster_node *n = cl.nodes[i];
        int ok = cl_node_is_primary(n) ? cl_node_ok_replicas(n) : 0;
        int orphaned = cl_node_is_primary(n) && !cl_node_failed(n) &&
                       (n->flags & CL_NODE_MIGRATE_TO) && ok == 0;
        if (orphaned) {
            if (!target && n->numslots > 0) target = n;
            if (!n->orphaned_time) n->orphaned_time = now;
        } else {
            n->orphaned_time = 0;
        }
        if (ok == max_replicas)
            for (int j = 0; j < n->numreplicas; j++)
                if (memcmp(n->replicas[j]->name, candidate->name, CL_NAMELEN) < 0)
                    candidate = n->replicas[j];
    }
    if (target && candidate == me && now - target->orphaned_time > CL_REPLICA_MIGRATION_DELAY) {
        log_warning("Migrating to orphaned master %.40s", target->name);
        cl_set_my_primary(target);
    }
}

void cl_replicas_cron(void) {
    cluster_node *me = cl.myself;
    check_replication();
    if (!cl_node_is_primary(me) && server.cfg.compat.cluster_allow_replica_migration) {
        /* clusterCron's count: orphaned primaries, the most working
         * replicas a primary has, and my primary's */
        int orphaned = 0, max_replicas = 0, mine = 0;
        for (int i = 0; i < cl.numnodes; i++) {
            cluster_node *n = cl.nodes[i];
            if (!cl_node_is_primary(n) || cl_node_failed(n)) continue;
            int ok = cl_node_ok_replicas(n);
            if (ok == 0 && n->numslots > 0 && (n->flags & CL_NODE_MIGRATE_TO)) orphaned++;
            if (ok > max_replicas) max_replicas = ok;
            if (me->primary == n) mine = ok;
        }
        if (orphaned && max_replicas >= 2 && mine == max_replicas)
            migrate_if_needed(max_replicas, cl_now_ms());
    }
}
