/* failover: FAILOVER, Redis 7.0's coordinated failover (see repl_int.h).
 *
 * FAILOVER [TO host port [FORCE]] [TIMEOUT ms] on a primary with replicas
 * pauses writes (pause_hold: CLIENT UNPAUSE does not end it) and waits
 * (waiting-for-sync) until the target, or with no TO the first replica
 * that does, has acked the whole stream (its REPLCONF ACK offset equals
 * master_repl_offset; replicas ack every second). Then this server becomes
 * a replica of the target (failover-in-progress): its handshake sends
 * PSYNC <replid> <offset> FAILOVER, which the target answers by promoting
 * itself (primary.c). +CONTINUE or +FULLRESYNC ends the failover (writes
 * resume, and are refused as a replica's); a refused PSYNC, or a failed
 * write of it, aborts: this server is a master again (a new history, as
 * REPLICAOF NO ONE). TIMEOUT's expiry while waiting aborts, or with FORCE
 * fails over anyway. FAILOVER ABORT aborts either state.
 *
 * Main thread only. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "pause.h"
#include "util.h"
#include "repl.h"
#include "repl_int.h"

static struct {
    int state;        /* FO_* */
    char *host;       /* the target (NULL: the first replica caught up) */
    int port;
    int force;        /* FORCE: fail over when the timeout expires */
    int64_t end_ms;   /* mono ms of TIMEOUT's expiry, 0: none */
} FO;

int failover_state(void) { return FO.state; }

static int cluster_hold; /* repl_hold_pings: a cluster's manual failover */

void repl_hold_pings(int hold) { cluster_hold = hold; }

int failover_holds_pings(void) { return (FO.state == FO_WAIT_SYNC && FO.end_ms) || cluster_hold; }

const char *failover_state_name(void) {
    switch (FO.state) {
    case FO_WAIT_SYNC: return "waiting-for-sync";
    case FO_IN_PROGRESS: return "failover-in-progress";
    default: return "no-failover";
    }
}

static void clear_state(void) {
    free(FO.host);
    FO.host = NULL;
    FO.port = 0;
    FO.force = 0;
    FO.end_ms = 0;
    FO.state = FO_NONE;
    pause_release(PAUSE_HOLD_FAILOVER);
}

void failover_abort(const char *why) {
    if (FO.state == FO_NONE) return;
    if (FO.host) log_notice("FAILOVER to %s:%d aborted: %s", FO.host, FO.port, why);
    else log_notice("FAILOVER to any replica aborted: %s", why);
    if (FO.state == FO_IN_PROGRESS) replica_promote();
    clear_state();
}

void failover_psync_accepted(void) {
    if (FO.state == FO_IN_PROGRESS) clear_state();
}

/* The replica at host:port (its announced ip and listening port). */
static const replica_link *find_replica(const char *host, int port) {
    for (size_t i = 0; i < primary_replica_count(); i++) {
        const replica_link *rl = primary_replica_at(i);
        if (rl->listening_port == port && !strcasecmp(rl->ip, host)) return rl;
    }
    return NULL;
}

static void fail_over_now(void) {
    FO.state = FO_IN_PROGRESS;
    replica_follow(FO.host, FO.port);
}

/* Each loop iteration while waiting: the timeout, then the target's ack. */
static void update(void) {
    if (FO.state != FO_WAIT_SYNC) return;
    if (FO.end_ms && mono_ms() >= FO.end_ms) {
        if (FO.force) {
            log_notice("FAILOVER to %s:%d time out exceeded, failing over.", FO.host, FO.port);
            fail_over_now();
        } else {
            failover_abort("Replica never caught up before timeout");
        }
        return;
    }
    const replica_link *rl = NULL;
    if (FO.host) {
        rl = find_replica(FO.host, FO.port);
    } else {
        for (size_t i = 0; i < primary_replica_count() && !rl; i++) {
            const replica_link *r = primary_replica_at(i);
            if (r->ack_offset != R.offset) continue;
            rl = r;
            FO.host = xstrdup(r->ip);
            FO.port = r->listening_port;
        }
    }
    if (!rl || rl->ack_offset != R.offset) return;
    log_notice("Failover target %s:%d is synced, failing over.", FO.host, FO.port);
    fail_over_now();
}

void cmd_failover(client *c) {
    if (server.cfg.compat.cluster_enabled) {
        reply_error(c, "ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command "
                       "instead.");
        return;
    }
    if (c->argc == 2 && arg_is(&c->argv[1], "abort")) {
        if (FO.state == FO_NONE) {
            reply_error(c, "ERR No failover in progress.");
            return;
        }
        failover_abort("Failover manually aborted");
        reply_ok(c);
        return;
    }
    long long timeout = 0, port = 0;
    int force = 0;
    const arg *host = NULL;
    for (int j = 1; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        if (arg_is(a, "timeout") && j + 1 < c->argc && timeout == 0) {
            if (!arg_ll(c, &c->argv[j + 1], &timeout)) return;
            if (timeout <= 0) {
                reply_error(c, "ERR FAILOVER timeout must be greater than 0");
                return;
            }
            j++;
        } else if (arg_is(a, "to") && j + 2 < c->argc && !host) {
            if (!arg_ll(c, &c->argv[j + 2], &port)) return;
            host = &c->argv[j + 1];
            j += 2;
        } else if (arg_is(a, "force") && !force) {
            force = 1;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    if (FO.state != FO_NONE) {
        reply_error(c, "ERR FAILOVER already in progress.");
        return;
    }
    if (server.upstream) {
        reply_error(c, "ERR FAILOVER is not valid when server is a replica.");
        return;
    }
    if (primary_replica_count() == 0) {
        reply_error(c, "ERR FAILOVER requires connected replicas.");
        return;
    }
    if (force && (!timeout || !host)) {
        reply_error(c, "ERR FAILOVER with force option requires both a timeout and target HOST "
                       "and IP.");
        return;
    }
    if (host) {
        char *h = xstrndup(host->p, host->len);
        const replica_link *rl = find_replica(h, (int)port);
        if (!rl || rl->state != RS_ONLINE) {
            reply_error(c, rl ? "ERR FAILOVER target replica is not online."
                              : "ERR FAILOVER target HOST and PORT is not a replica.");
            free(h);
            return;
        }
        FO.host = h;
        FO.port = (int)port;
        log_notice("FAILOVER requested to %s:%lld.", h, port);
    } else {
        log_notice("FAILOVER requested to any replica.");
    }
    FO.end_ms = timeout ? mono_ms() + timeout : 0;
    FO.force = force;
    FO.state = FO_WAIT_SYNC;
    pause_hold(PAUSE_HOLD_FAILOVER, PAUSE_WRITE);
    reply_ok(c);
}

static const hooks failover_hooks = {
    .name = "failover",
    .before_sleep = update,
    .cron = update,
};

void failover_init(void) { hooks_register(&failover_hooks); }
