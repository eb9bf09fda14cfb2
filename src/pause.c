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
    int64_t end_ms;             /* monotonic */
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

void pause_stop(void) {
    pause_type = PAUSE_OFF;
    if (!P.timers_init) return;
    uv_timer_stop(&P.end_timer);
    if (P.n) uv_timer_start(&P.resume_timer, on_resume, 0, 0);
}

int pause_kind_slow(void) {
    if (mono_ms() >= P.end_ms) pause_stop();
    return pause_type;
}

static void on_end(uv_timer_t *t) {
    (void)t;
    if (!pause_type) return;
    int64_t now = mono_ms();
    if (now >= P.end_ms) pause_stop();
    else uv_timer_start(&P.end_timer, on_end, (uint64_t)(P.end_ms - now), 0);
}

void pause_start(int kind, int64_t end_ms) {
    assert(kind == PAUSE_WRITE || kind == PAUSE_ALL);
    timers_init();
    /* while one lasts: the later end, the stricter kind (Redis 7.0) */
    if (!pause_kind()) P.end_ms = end_ms;
    else if (end_ms > P.end_ms) P.end_ms = end_ms;
    if (kind > pause_type) pause_type = kind;
    if (!pause_kind()) return; /* already over (CLIENT PAUSE 0) */
    uv_update_time(server.loop);
    uv_timer_start(&P.end_timer, on_end, (uint64_t)(P.end_ms - mono_ms()), 0);
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
        c->flags &= ~CLIENT_BLOCKED;
        net_process_input(c);
        net_update_reading(c);
        net_want_write(c);
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
