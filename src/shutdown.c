/* shutdown: a shutdown that waits for lagging replicas (see shutdown.h).
 * Main thread only. */
#include "shutdown.h"

#include <stdlib.h>

#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "net.h"
#include "pause.h"
#include "util.h"

static struct {
    int64_t deadline_ms;   /* mono ms; 0: no shutdown waits */
    int flags;             /* the waiting shutdown's SHUT_* */
    client **blocked;      /* SHUTDOWN callers waiting for it */
    size_t n, cap;
} SD;

static void block(client *c) {
    if (!c) return;
    if (SD.n == SD.cap) {
        SD.cap = SD.cap ? SD.cap * 2 : 4;
        SD.blocked = xrealloc(SD.blocked, SD.cap * sizeof *SD.blocked);
    }
    SD.blocked[SD.n++] = c;
    c->flags |= CLIENT_BLOCKED; /* its further input waits (net.c) */
}

/* The waiting shutdown is over without exiting: its callers hear why and
 * run on (they are taken off the list first: their next commands may
 * block or close clients), writes resume. */
static void cancel(const char *err) {
    client **v = SD.blocked;
    size_t n = SD.n;
    SD.blocked = NULL;
    SD.n = SD.cap = 0;
    SD.deadline_ms = 0;
    SD.flags = 0;
    server.shutdown_asap = 0;
    pause_release(PAUSE_HOLD_SHUTDOWN);
    for (size_t i = 0; i < n; i++) {
        reply_error(v[i], err);
        v[i]->flags &= ~CLIENT_BLOCKED;
        net_want_write(v[i]);
    }
    for (size_t i = 0; i < n; i++) {
        client *c = v[i];
        if (c->flags & CLIENT_CLOSING) continue;
        net_skip_pending(c);
        net_process_input(c);
        net_update_reading(c);
    }
    free(v);
}

/* Saves and exits, or fails (then the waiting shutdown is cancelled). */
static int finish(int flags, char *err, size_t errlen) {
    server_shutdown(flags & SHUT_NOSAVE, (flags & SHUT_SAVE) != 0, (flags & SHUT_FORCE) != 0,
                    err, errlen);
    log_warning("Errors trying to shut down the server. Check the logs for more information.");
    if (SD.deadline_ms) cancel(err);
    return -1;
}

int shutdown_request(client *c, int flags, char *err, size_t errlen) {
    if (SD.deadline_ms) { /* one waits already: c waits for it too */
        block(c);
        return 1;
    }
    log_warning("User requested shutdown...");
    if (!(flags & SHUT_NOW) && server.cfg.compat.shutdown_timeout != 0 && hooks_shutdown_wait(1)) {
        SD.deadline_ms = mono_ms() + (int64_t)server.cfg.compat.shutdown_timeout * 1000;
        SD.flags = flags;
        pause_hold(PAUSE_HOLD_SHUTDOWN, PAUSE_WRITE);
        block(c);
        log_notice("Waiting for replicas before shutting down.");
        return 1;
    }
    return finish(flags, err, errlen);
}

int shutdown_abort(void) {
    if (SD.deadline_ms) {
        cancel("ERR Errors trying to SHUTDOWN. Check logs.");
    } else if (server.shutdown_asap) {
        server.shutdown_asap = 0; /* a signal's, not started yet */
    } else {
        return -1;
    }
    log_notice("Shutdown manually aborted.");
    return 0;
}

void shutdown_info(vbuf *b) {
    if (!SD.deadline_ms) return;
    int64_t left = SD.deadline_ms - mono_ms();
    vbuf_appendf(b, "shutdown_in_milliseconds:%lld\r\n", (long long)(left > 0 ? left : 0));
}

size_t shutdown_blocked(void) { return SD.n; }

static void cron(void) {
    if (!SD.deadline_ms) return;
    if (mono_ms() < SD.deadline_ms && hooks_shutdown_wait(0)) return;
    char err[512];
    finish(SD.flags, err, sizeof err);
}

static void client_closed(client *c) {
    for (size_t i = 0; i < SD.n; i++)
        if (SD.blocked[i] == c) {
            SD.blocked[i] = SD.blocked[--SD.n];
            return;
        }
}

static const hooks shutdown_hooks = {
    .name = "shutdown",
    .cron = cron,
    .client_closed = client_closed,
};

void shutdown_init(void) { hooks_register(&shutdown_hooks); }
