/* elect: the rules of a replica election, as Redis 7.0's cluster.c applies
 * them (clusterGetSlaveRank, clusterHandleSlaveFailover's delays and data
 * age, clusterSendFailoverAuthIfNeeded's vote), as functions of the node
 * table and of what the caller passes (the clock, offsets, randomness), so
 * failover.c does the I/O and tests/unit/test_cluster_elect the rules.
 * Main thread only (reads cl). */
#include <inttypes.h>
#include <stdio.h>

#include "cluster_int.h"

int cl_elect_rank(const cluster_node *me, long long my_offset) {
    const cluster_node *primary = me->primary;
    if (!primary) return 0;
    int rank = 0;
    for (int i = 0; i < primary->numreplicas; i++) {
        const cluster_node *r = primary->replicas[i];
        if (r == me || (r->flags & CL_NODE_NOFAILOVER)) continue;
        if (r->repl_offset > my_offset) rank++;
    }
    return rank;
}

long long cl_elect_delay(int rank, unsigned rnd) {
    /* 500 ms for the FAIL to reach every primary, a random part so that
     * replicas of the same rank do not ask at once, and a second per rank
     * so that the most up-to-date replica asks first */
    return 500 + (long long)(rnd % 500) + (long long)rank * 1000;
}

long long cl_elect_auth_timeout(long long node_timeout) {
    long long t = node_timeout * 2;
    return t < 2000 ? 2000 : t;
}

int cl_elect_data_fresh(long long age_ms, long long node_timeout, int validity_factor,
                        int ping_period_s) {
    if (!validity_factor) return 1;
    if (age_ms < 0) return 0; /* never synced: its data is of no age one can trust */
    /* the node timeout passes while the primary is found failing: it does
     * not count against the replica */
    if (age_ms > node_timeout) age_ms -= node_timeout;
    return age_ms <= (long long)ping_period_s * 1000 + node_timeout * validity_factor;
}

int cl_elect_may_vote(const cluster_node *req, uint64_t req_epoch, uint64_t req_config_epoch,
                      const uint8_t *claimed, int force_ack, long long now,
                      long long node_timeout, char *why, size_t cap) {
    const cluster_node *primary = req->primary;
    why[0] = '\0';
    if (!cl_node_is_primary(cl.myself) || cl.myself->numslots == 0) {
        snprintf(why, cap, "I am not a primary serving slots");
        return 0;
    }
    if (req_epoch < cl.current_epoch) {
        snprintf(why, cap, "reqEpoch (%" PRIu64 ") < curEpoch(%" PRIu64 ")", req_epoch,
                 cl.current_epoch);
        return 0;
    }
    if (cl.last_vote_epoch == cl.current_epoch) {
        snprintf(why, cap, "already voted for epoch %" PRIu64, cl.current_epoch);
        return 0;
    }
    if (cl_node_is_primary(req) || !primary || (!cl_node_failed(primary) && !force_ack)) {
        snprintf(why, cap, "%s",
                 cl_node_is_primary(req) ? "it is a master node"
                 : !primary              ? "I don't know its master"
                                         : "its master is up");
        return 0;
    }
    /* one vote per primary's replicas in two node timeouts: the replicas
     * of one primary do not win two elections in a row */
    if (now - primary->voted_time < node_timeout * 2) {
        snprintf(why, cap, "can't vote about this master before %lld milliseconds",
                 node_timeout * 2 - (now - primary->voted_time));
        return 0;
    }
    /* every slot it claims must be ours to give: none of them has a
     * config epoch newer than the request's */
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!((claimed[s >> 3] >> (s & 7)) & 1)) continue;
        const cluster_node *owner = cl.slots[s];
        if (!owner || owner->config_epoch <= req_config_epoch) continue;
        snprintf(why, cap, "slot %u epoch (%" PRIu64 ") > reqEpoch (%" PRIu64 ")", s,
                 owner->config_epoch, req_config_epoch);
        return 0;
    }
    return 1;
}
