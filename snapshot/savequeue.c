/* savequeue: the queue of background saves (see savequeue.h): what waits,
 * in which order, when the next one starts, the busy replies, and the one
 * place where every save's requester is called back. The saves themselves
 * are started and finished by snap.c (snap_run, snapq_ended). Main thread
 * only. */
#include "savequeue.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "server.h"

/* Indexed by enum snap_kind. An AOF base is always forkless (its INCR
 * switch and the base are one instant of the main thread's; a fork would
 * need the child to write the AOF's own format too). A replication save
 * outlives a FLUSHALL: the FLUSHALL follows its cut in the stream. A slot
 * migration's is forkless (no fork: the reason it exists) and a FLUSHALL
 * ends it (the migration fails: the source keeps its slots). */
static const snap_kind_info kinds[SNAP_NKINDS] = {
    [SNAP_TO_REPLICAS] = {"Replication save", 1, 0, 1},
    [SNAP_TO_AOF_BASE] = {"AOF base write", 0, 1, 0},
    [SNAP_TO_FILE] = {"Background saving", 1, 1, 1},
    [SNAP_TO_SLOTS] = {"Slot migration save", 0, 1, 0},
};

static struct {
    snap_req *head;           /* waiting: by kind, first come first within one */
    snap_req *running;        /* the request whose save runs, or NULL */
    void *running_priv;       /* its priv when it started */
    int in_callback;          /* a begin or done callback runs: nothing
                                 starts (a submit from one waits) */
} Q;

const snap_kind_info *snapq_kind(int kind) {
    assert(kind >= 0 && kind < SNAP_NKINDS);
    return &kinds[kind];
}

int snapq_running_kind(void) { return Q.running ? Q.running->kind : -1; }

int snap_queued(const snap_req *r) { return r->queued; }

static int busy(void) { return Q.running != NULL || Q.in_callback; }

int snapq_refuse(const snap_req *asking, char *err, size_t errlen) {
    if (asking && asking->kind == SNAP_TO_FILE && snapq_running_kind() == SNAP_TO_AOF_BASE)
        snprintf(err, errlen, "ERR An AOF log rewriting in progress: can't BGSAVE right now. "
                              "Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever "
                              "possible.");
    else
        snprintf(err, errlen, "ERR Background save already in progress");
    return -1;
}

/* Behind every waiting request of its kind or a lower one. */
static void enqueue(snap_req *r) {
    assert(!r->queued && r->kind >= 0 && r->kind < SNAP_NKINDS);
    snap_req **pp = &Q.head;
    while (*pp && (*pp)->kind <= r->kind) pp = &(*pp)->next;
    r->next = *pp;
    *pp = r;
    r->queued = 1;
}

void snap_withdraw(snap_req *r) {
    if (!r->queued) return;
    snap_req **pp = &Q.head;
    while (*pp != r) pp = &(*pp)->next;
    *pp = r->next;
    r->next = NULL;
    r->queued = 0;
}

static void call_done(snap_req *r, void *priv, const snap_result *res) {
    Q.in_callback++;
    r->done(priv, res);
    Q.in_callback--;
}

/* Starts r's save now: begin fills the target, snap.c starts it. On
 * failure r's done has run (started 0) and err says why. */
static int start(snap_req *r, char *err, size_t errlen) {
    assert(!busy() && !r->queued);
    snap_target t;
    memset(&t, 0, sizeof t);
    t.kind = r->kind;
    t.method = kinds[r->kind].may_fork && server.cfg.bgsave_method == BGSAVE_FORK
                   ? SNAP_FORK : SNAP_FORKLESS;
    void *priv = r->priv;
    int rc = 0;
    if (r->begin) {
        Q.in_callback++;
        rc = r->begin(priv, &t, err, errlen);
        Q.in_callback--;
    }
    if (rc == 0) rc = snap_run(&t, err, errlen);
    if (rc != 0) {
        snap_result res = {.started = 0, .status = -1, .err = err, .method = t.method};
        call_done(r, priv, &res);
        return -1;
    }
    Q.running = r;
    Q.running_priv = priv;
    return 0;
}

int snap_submit(snap_req *r, int when, char *err, size_t errlen) {
    if (!busy() && when != SNAP_QUEUE) {
        snap_withdraw(r); /* this save serves it */
        return start(r, err, errlen);
    }
    if (when == SNAP_NOW) return snapq_refuse(r, err, errlen);
    if (!r->queued) enqueue(r);
    return 1;
}

void snap_cancel(snap_req *r, const char *why) {
    snap_withdraw(r);
    if (Q.running == r) snap_run_abort(why);
}

/* One start per call: after a failed one (its done has run and may have
 * queued requests again) the next waits for the next call, so that a
 * start that keeps failing cannot spin here. */
void snapq_run_next(void) {
    if (busy()) return;
    for (snap_req *r = Q.head; r; r = r->next) {
        if (r->ready && !r->ready(r->priv)) continue;
        snap_withdraw(r);
        char err[512];
        (void)start(r, err, sizeof err); /* a failure went to r's done */
        return;
    }
}

void snapq_ended(const snap_result *res) {
    assert(Q.running && res->started);
    snap_req *r = Q.running;
    void *priv = Q.running_priv;
    Q.running = NULL;
    call_done(r, priv, res); /* the next starts before the loop sleeps */
}
