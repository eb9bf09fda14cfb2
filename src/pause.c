/* pause: CLIENT PAUSE's state, the dispatcher's check and the resumption
 * of postponed clients (see pause.h). Main thread only (the timers run on
 * the loop). */
#include "pause.h"

#include <assert.h>
#include <stdlib.h>

#include "acl.h"
#include "cmd.h"
#include "hooks.h"
#include "multi.h"
#include "net.h"
#include "util.h"

int pause_type;

static struct {
    int client_kind;            /* CLIENT PAUSE's (PAUSE_*) */
    int64_t end_ms;             /* monotonic: the end of CLIENT PAUSE's */
    int holds[PAUSE_NHOLDS];    /* pause_hold's kinds (PAUSE_OFF: none) */
    client **waiting;           /* postponed, in arrival order (NULL: closed) */
    size_t n, cap, live;        /* live: non-NULL entries */
    client **running;           /* the batch on_resume runs (NULL: done or closed) */
    size_t nrunning;
    uv_timer_t end_timer;       /* fires at end_ms */
    uv_timer_t resume_timer;    /* runs the postponed clients (0 ms) */
    int timers_init;
} P;

static void on_resume(uv_timer_t *t);

static void timers_init(void) {
    if (P.timers_init) return;
    uv_timer_init(server.loop, &P.end_timer);
    uv_timer_init(server.loop, &P.resume_timer);
    P.timers_init = 1;
}

/* pause_type: the strictest of CLIENT PAUSE's kind and the holds'. */
static void recompute(void) {
    int k = P.client_kind;
    for (int i = 0; i < PAUSE_NHOLDS; i++)
        if (P.holds[i] > k) k = P.holds[i];
    int was = pause_type;
    pause_type = k;
    /* a milder pause lets some of the postponed run (the others wait again) */
    if (k < was && P.n && P.timers_init) uv_timer_start(&P.resume_timer, on_resume, 0, 0);
}

void pause_stop(void) {
    P.client_kind = PAUSE_OFF;
    if (P.timers_init) uv_timer_stop(&P.end_timer);
    recompute();
}

int pause_kind_slow(void) {
    if (P.client_kind && mono_ms() >= P.end_ms) pause_stop();
    return pause_type;
}

static void on_end(uv_timer_t *t) {
    (void)t;
    if (!P.client_kind) return;
    int64_t now = mono_ms();
    if (now >= P.end_ms) pause_stop();
    else uv_timer_start(&P.end_timer, on_end, (uint64_t)(P.end_ms - now), 0);
}

void pause_start(int kind, int64_t end_ms) {
    assert(kind == PAUSE_WRITE || kind == PAUSE_ALL);
    timers_init();
    (void)pause_kind(); /* ends CLIENT PAUSE's pause when its time is over */
    /* while one lasts: the later end, the stricter kind (Redis 7.0) */
    if (!P.client_kind) P.end_ms = end_ms;
    else if (end_ms > P.end_ms) P.end_ms = end_ms;
    if (kind > P.client_kind) P.client_kind = kind;
    if (mono_ms() >= P.end_ms) { /* already over (CLIENT PAUSE 0) */
        pause_stop();
        return;
    }
    recompute();
    uv_update_time(server.loop);
    uv_timer_start(&P.end_timer, on_end, (uint64_t)(P.end_ms - mono_ms()), 0);
}

void pause_hold(int who, int kind) {
    assert(who >= 0 && who < PAUSE_NHOLDS && (kind == PAUSE_WRITE || kind == PAUSE_ALL));
    timers_init();
    P.holds[who] = kind;
    recompute();
}

void pause_release(int who) {
    assert(who >= 0 && who < PAUSE_NHOLDS);
    P.holds[who] = PAUSE_OFF;
    recompute();
}

/* Runs the postponed clients: each one's pending command is dispatched
 * again (and postponed again if a new pause holds it). */
static void on_resume(uv_timer_t *t) {
    (void)t;
    P.running = P.waiting;
    P.nrunning = P.n;
    P.waiting = NULL;
    P.n = P.cap = P.live = 0;
    for (size_t i = 0; i < P.nrunning; i++) {
        client *c = P.running[i];
        if (!c) continue;
        P.running[i] = NULL;
        net_resume_parked(c);
    }
    free(P.running);
    P.running = NULL;
    P.nrunning = 0;
}

/* Redis 7.0's is_may_replicate_command: with the script's flags for a
 * script (cmd_flags_of: a no-writes one runs during a write pause), with
 * the queued commands' for EXEC. */
static int may_write(const client *c, const cmd_def *d) {
    int flags = cmd_flags_of(d, c->argc, c->argv) | multi_exec_flags(c, d);
    return (flags & (CMD_WRITE | CMD_MAY_REPLICATE)) != 0;
}

int pause_postpones(client *c, const cmd_def *d) {
    int kind = pause_kind();
    if (!kind || (c->flags & (CLIENT_REPLICA | CLIENT_LOADER | CLIENT_SCRIPT))) return 0;
    if (c->tcp.data != c) return 0; /* no connection (in-process clients): nobody waits */
    /* what is refused before the pause in Redis is answered now */
    if (!cmd_arity_ok(d, c->argc) || (acl_auth_required(c) && !(d->flags & CMD_NOAUTH))) return 0;
    if (kind == PAUSE_WRITE && !may_write(c, d)) return 0;
    if (P.n == P.cap) {
        P.cap = P.cap ? P.cap * 2 : 8;
        P.waiting = xrealloc(P.waiting, P.cap * sizeof *P.waiting);
    }
    P.waiting[P.n++] = c;
    P.live++;
    c->lastcmd = d; /* CLIENT LIST's cmd= shows what waits, as Redis */
    c->flags |= CLIENT_BLOCKED;
    return 1;
}

size_t pause_postponed(void) { return P.live; }

static void on_client_closed(client *c) {
    for (size_t i = 0; i < P.n; i++) {
        if (P.waiting[i] == c) {
            P.waiting[i] = NULL;
            P.live--;
        }
    }
    for (size_t i = 0; i < P.nrunning; i++)
        if (P.running[i] == c) P.running[i] = NULL;
}

static const hooks pause_hooks = {
    .name = "pause",
    .client_closed = on_client_closed,
};

void pause_init(void) { hooks_register(&pause_hooks); }
