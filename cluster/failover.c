/* failover: a replica taking its primary's place, as Redis 7.0's cluster.c
 * (clusterHandleSlaveFailover, clusterRequestFailoverAuth,
 * clusterSendFailoverAuthIfNeeded, clusterHandleManualFailover,
 * clusterFailoverReplaceYourMaster, CLUSTER FAILOVER).
 *
 * Automatic: a replica whose primary is FAIL (and serves slots), with data
 * fresh enough, waits elect.c's delay (rank by offset), bumps
 * currentEpoch, broadcasts FAILOVER_AUTH_REQUEST, and once a majority of
 * the primaries with slots has sent FAILOVER_AUTH_ACK takes the slots with
 * that epoch as its config epoch, is promoted (repl_promote) and
 * broadcasts a PONG. An election that wins no majority in auth_timeout
 * expires; the next starts after twice that.
 *
 * Votes: a primary grants by elect.c's rules, one per epoch; the vote
 * (lastVoteEpoch) is in nodes.conf, fsynced, before the ACK leaves: the
 * ACK goes from cl_conf_save's done callback (the loop never waits).
 *
 * Manual (CLUSTER FAILOVER): the replica sends MFSTART; its primary
 * pauses writes (and the stream's pings) for CL_MF_TIMEOUT and answers a
 * PING flagged PAUSED carrying its final offset; the replica, once it has
 * applied up to it, runs an election at once with FORCEACK (the primary
 * is not FAIL). FORCE skips the handshake; TAKEOVER the election (a new
 * config epoch without consensus). Either side gives up after
 * CL_MF_TIMEOUT.
 *
 * Main thread only. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_int.h"
#include "log.h"
#include "pause.h"
#include "repl.h"
#include "server.h"
#include "util.h"

#define CL_MF_TIMEOUT 5000           /* ms: a manual failover's life */
#define CL_CANT_FAILOVER_RELOG 10000 /* ms between two same "unable" lines */

enum {
    CANT_NONE = 0,
    CANT_DATA_AGE,
    CANT_WAITING_DELAY,
    CANT_EXPIRED,
    CANT_WAITING_VOTES,
};

static struct {
    /* the election (a replica) */
    long long auth_time;      /* ms: when it starts, or started */
    int auth_count;           /* votes received */
    int auth_sent;            /* 1 once the request went out */
    int auth_rank;
    uint64_t auth_epoch;      /* the epoch asked for */
    int cant_reason;          /* CANT_*: last logged */
    long long cant_logged;    /* ms */
    /* a manual failover: mf_end != 0 while one runs, on both sides */
    long long mf_end;         /* ms */
    int mf_can_start;         /* replica: may run its election */
    long long mf_primary_offset; /* replica: the paused primary's, -1 */
    int mf_paused;            /* primary: writes paused for a replica */
} F = {.mf_primary_offset = -1};

/* ---- manual failover's state ---- */

void cl_failover_reset_manual(void) {
    if (F.mf_paused) {
        /* the primary's pause ends, whatever the outcome */
        pause_release(PAUSE_HOLD_FAILOVER);
        repl_hold_pings(0);
    }
    F.mf_end = 0;
    F.mf_can_start = 0;
    F.mf_paused = 0;
    F.mf_primary_offset = -1;
}

int cl_failover_mflags(void) {
    return cl_node_is_primary(cl.myself) && F.mf_end ? BUS_MF0_PAUSED : 0;
}

static void mf_check_timeout(long long now) {
    if (F.mf_end && F.mf_end < now) {
        log_warning("Manual failover timed out.");
        cl_failover_reset_manual();
    }
}

/* clusterHandleManualFailover: the replica has applied the paused
 * primary's whole stream. */
static void mf_handle(void) {
    if (!F.mf_end || F.mf_can_start || F.mf_primary_offset == -1) return;
    if (F.mf_primary_offset == repl_offset()) {
        F.mf_can_start = 1;
        log_warning("All master replication stream processed, manual failover can start.");
        cl_todo(CL_TODO_HANDLE_FAILOVER);
    }
}

void cl_failover_header_seen(cluster_node *sender, const bus_view *v) {
    cluster_node *me = cl.myself;
    if (!F.mf_end || cl_node_is_primary(me) || me->primary != sender) return;
    if (!(v->hdr.mflags[0] & BUS_MF0_PAUSED) || F.mf_primary_offset != -1) return;
    F.mf_primary_offset = (long long)v->hdr.offset;
    cl_todo(CL_TODO_HANDLE_MANUALFAILOVER);
    log_warning("Received replication offset for paused master manual failover: %lld",
                F.mf_primary_offset);
}

void cl_failover_mfstart(cluster_node *sender, const bus_view *v) {
    (void)v;
    if (!sender || sender->primary != cl.myself) return;
    cl_failover_reset_manual();
    F.mf_end = cl_now_ms() + CL_MF_TIMEOUT;
    F.mf_paused = 1;
    pause_hold(PAUSE_HOLD_FAILOVER, PAUSE_WRITE);
    repl_hold_pings(1);
    log_warning("Manual failover requested by replica %.40s.", sender->name);
    /* the offset the replica must reach, flagged PAUSED */
    bus_out m;
    cl_build_header(&m, BUS_PING);
    m.hdr.mflags[0] |= BUS_MF0_PAUSED;
    cl_bus_send(sender, &m);
}

/* ---- votes (a primary) ---- */

typedef struct pending_ack {
    char name[CL_NAMELEN];
    uint64_t epoch;
} pending_ack;

/* nodes.conf holds the vote, durable: the ACK may leave. */
static void vote_saved(void *priv, int ok) {
    pending_ack *pa = priv;
    cluster_node *n = cl_node_lookup(pa->name, CL_NAMELEN);
    if (!ok)
        log_warning("Failover auth for %.40s not sent: the vote could not be saved", pa->name);
    else if (n) {
        bus_out m;
        cl_build_header(&m, BUS_FAILOVER_AUTH_ACK);
        cl_bus_send(n, &m);
    }
    free(pa);
}

void cl_failover_auth_request(cluster_node *sender, const bus_view *v) {
    if (!sender) return;
    char why[160];
    long long now = cl_now_ms();
    int force_ack = (v->hdr.mflags[0] & BUS_MF0_FORCEACK) != 0;
    if (!cl_elect_may_vote(sender, v->hdr.current_epoch, v->hdr.config_epoch, v->hdr.myslots,
                           force_ack, now, server.cfg.compat.cluster_node_timeout, why,
                           sizeof why)) {
        if (cl_node_is_primary(cl.myself) && cl.myself->numslots)
            log_warning("Failover auth denied to %.40s: %s", sender->name, why);
        return;
    }
    cl.last_vote_epoch = cl.current_epoch;
    sender->primary->voted_time = now;
    pending_ack *pa = xmalloc(sizeof *pa);
    memcpy(pa->name, sender->name, CL_NAMELEN);
    pa->epoch = cl.current_epoch;
    log_warning("Failover auth granted to %.40s for epoch %" PRIu64, sender->name,
                cl.current_epoch);
    cl_conf_save(1, vote_saved, pa);
}

void cl_failover_auth_ack(cluster_node *sender, const bus_view *v) {
    /* a vote counts from a primary with slots, for this election's epoch
     * (each primary votes once per epoch) */
    if (!sender || !cl_node_is_primary(sender) || sender->numslots == 0) return;
    if (v->hdr.current_epoch < F.auth_epoch) return;
    F.auth_count++;
    cl_todo(CL_TODO_HANDLE_FAILOVER);
}

/* ---- the election (a replica) ---- */

static void log_cant_failover(int reason, long long now) {
    static const char *const text[] = {
        [CANT_DATA_AGE] = "Disconnected from master for longer than allowed. Please check the "
                          "'cluster-replica-validity-factor' configuration option.",
        [CANT_WAITING_DELAY] = "Waiting the delay before I can start a new failover.",
        [CANT_EXPIRED] = "Failover attempt expired.",
        [CANT_WAITING_VOTES] = "Waiting for votes, but majority still not reached.",
    };
    if (reason == F.cant_reason && now - F.cant_logged < CL_CANT_FAILOVER_RELOG) return;
    F.cant_reason = reason;
    F.cant_logged = now;
    /* not while the FAIL is recent: the election is just waiting */
    cluster_node *p = cl.myself->primary;
    if (p && cl_node_failed(p) &&
        now - p->fail_time < server.cfg.compat.cluster_node_timeout + 5000)
        return;
    log_warning("Currently unable to failover: %s", text[reason]);
}

/* Sends m to the other replicas of my primary (they learn my offset, for
 * their rank: clusterBroadcastPong's LOCAL_SLAVES). */
static void send_to_sibling_replicas(const bus_out *m) {
    cluster_node *p = cl.myself->primary;
    if (!p) return;
    for (int i = 0; i < p->numreplicas; i++)
        if (p->replicas[i] != cl.myself) cl_bus_send(p->replicas[i], m);
}

static void request_votes(void) {
    bus_out m;
    cl_build_header(&m, BUS_FAILOVER_AUTH_REQUEST);
    /* a manual failover: the primary is not FAIL, the voters know */
    if (F.mf_end) m.hdr.mflags[0] |= BUS_MF0_FORCEACK;
    cl_bus_broadcast(&m);
}

/* The promotion is in nodes.conf, durable: everyone is told (a PONG
 * with myself's new slots and config epoch), as Redis does after its
 * synchronous save. */
static void promotion_saved(void *priv, int ok) {
    (void)priv;
    if (!ok) log_warning("The promotion could not be saved to the cluster config file");
    bus_out m;
    cl_build_header(&m, BUS_PONG);
    cl_bus_broadcast(&m);
}

/* clusterFailoverReplaceYourMaster: myself a primary with the old one's
 * slots, saved, told to all. */
static void replace_my_primary(void) {
    cluster_node *me = cl.myself, *old = me->primary;
    if (cl_node_is_primary(me) || !old) return;
    cl_node_set_primary(me, NULL);
    repl_promote();
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!cl_node_has_slot(old, s)) continue;
        cl_slot_del(s);
        cl_slot_add(me, s);
    }
    cl_update_state();
    cl_conf_save(1, promotion_saved, NULL);
    cl_failover_reset_manual();
}

/* A new election: its start, delayed by my rank (at once for a manual
 * failover); the other replicas of my primary are told my offset. */
static void schedule_election(long long now) {
    F.auth_count = 0;
    F.auth_sent = 0;
    F.auth_rank = cl_elect_rank(cl.myself, repl_offset());
    F.auth_time = now + cl_elect_delay(F.auth_rank, (unsigned)draw_below(500));
    if (F.mf_end) {
        F.auth_time = now;
        F.auth_rank = 0;
        cl_todo(CL_TODO_HANDLE_FAILOVER);
    }
    log_warning("Start of election delayed for %lld milliseconds (rank #%d, offset %lld).",
                F.auth_time - now, F.auth_rank, repl_offset());
    bus_out m;
    cl_build_header(&m, BUS_PONG);
    send_to_sibling_replicas(&m);
}

/* clusterHandleSlaveFailover: called by the cron and when a vote came. */
static void handle_failover(void) {
    cluster_node *me = cl.myself, *p = me->primary;
    long long now = cl_now_ms();
    long long node_timeout = server.cfg.compat.cluster_node_timeout;
    long long auth_age = now - F.auth_time;
    long long auth_timeout = cl_elect_auth_timeout(node_timeout);
    int quorum = cl.size / 2 + 1;
    int manual = F.mf_end != 0 && F.mf_can_start;

    if (cl_node_is_primary(me) || !p || (!cl_node_failed(p) && !manual) ||
        (server.cfg.compat.cluster_replica_no_failover && !manual) || p->numslots == 0) {
        F.cant_reason = CANT_NONE;
        return;
    }
    if (!manual && !cl_elect_data_fresh(repl_link_age_ms(), node_timeout,
                                        server.cfg.compat.cluster_replica_validity_factor,
                                        server.cfg.repl_ping_replica_period)) {
        log_cant_failover(CANT_DATA_AGE, now);
        return;
    }
    if (auth_age > auth_timeout * 2) {
        schedule_election(now);
        return;
    }
    if (!F.auth_sent && !F.mf_end) {
        /* a sibling told a newer offset meanwhile: wait longer */
        int rank = cl_elect_rank(me, repl_offset());
        if (rank > F.auth_rank) {
            long long added = (long long)(rank - F.auth_rank) * 1000;
            F.auth_time += added;
            F.auth_rank = rank;
            log_warning("Replica rank updated to #%d, added %lld milliseconds of delay.", rank,
                        added);
        }
    }
    if (now < F.auth_time) {
        log_cant_failover(CANT_WAITING_DELAY, now);
        return;
    }
    if (auth_age > auth_timeout) {
        log_cant_failover(CANT_EXPIRED, now);
        return;
    }
    if (!F.auth_sent) {
        cl.current_epoch++;
        F.auth_epoch = cl.current_epoch;
        log_warning("Starting a failover election for epoch %" PRIu64 ".", cl.current_epoch);
        request_votes();
        F.auth_sent = 1;
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE | CL_TODO_FSYNC_CONFIG);
        return;
    }
    if (F.auth_count < quorum) {
        log_cant_failover(CANT_WAITING_VOTES, now);
        return;
    }
    log_warning("Failover election won: I'm the new master.");
    if (me->config_epoch < F.auth_epoch) {
        me->config_epoch = F.auth_epoch;
        log_warning("configEpoch set to %" PRIu64 " after successful failover",
                    me->config_epoch);
    }
    replace_my_primary();
}

/* clusterUpdateMyselfFlags: myself's NOFAILOVER follows
 * cluster-replica-no-failover (the others learn it from our header and
 * leave us out of their rank). */
static void update_myself_flags(void) {
    int old = cl.myself->flags;
    cl.myself->flags &= ~CL_NODE_NOFAILOVER;
    if (server.cfg.compat.cluster_replica_no_failover) cl.myself->flags |= CL_NODE_NOFAILOVER;
    if (cl.myself->flags != old) cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
}

void cl_failover_cron(void) {
    long long now = cl_now_ms();
    update_myself_flags();
    mf_check_timeout(now);
    if (!cl_node_is_primary(cl.myself)) {
        mf_handle();
        handle_failover();
    }
    cl_replicas_cron();
}

void cl_failover_before_sleep(void) {
    update_myself_flags();
    int todo = cl.todo;
    cl.todo &= ~(CL_TODO_HANDLE_FAILOVER | CL_TODO_HANDLE_MANUALFAILOVER);
    if (todo & CL_TODO_HANDLE_MANUALFAILOVER) {
        if (!cl_node_is_primary(cl.myself)) {
            mf_handle();
            handle_failover();
        }
    } else if (todo & CL_TODO_HANDLE_FAILOVER) {
        handle_failover();
    }
}

/* ---- CLUSTER FAILOVER ---- */

const char *cl_cmd_failover(int force, int takeover) {
    cluster_node *me = cl.myself, *p = me->primary;
    if (takeover) force = 1;
    if (cl_node_is_primary(me)) return "ERR You should send CLUSTER FAILOVER to a replica";
    if (!p) return "ERR I'm a replica but my master is unknown to me";
    if (!force && (cl_node_failed(p) || !p->link))
        return "ERR Master is down or failed, please use CLUSTER FAILOVER FORCE";
    cl_failover_reset_manual();
    F.mf_end = cl_now_ms() + CL_MF_TIMEOUT;
    /* a fresh election, even within auth_timeout * 2 of the last one:
     * Redis 7.0 would go on with that one (its votes, its older epoch)
     * and claim the slots with a config epoch that loses */
    F.auth_time = 0;
    F.auth_sent = 0;
    F.auth_count = 0;
    if (takeover) {
        /* no election: a config epoch of its own, the slots taken */
        log_warning("Taking over the master (user request).");
        cl_bump_epoch_no_consensus();
        replace_my_primary();
    } else if (force) {
        log_warning("Forced failover user request accepted.");
        F.mf_can_start = 1;
    } else {
        log_warning("Manual failover user request accepted.");
        bus_out m;
        cl_build_header(&m, BUS_MFSTART);
        cl_bus_send(p, &m);
    }
    return NULL;
}
