/* tls_relay: moves a payload written by another thread into a TLS
 * replica's connection (see tls_relay.h).
 *
 * The reading end of the socketpair is non-blocking and watched by a
 * uv_poll_t. Each readable event reads up to RELAY_TURN bytes and hands
 * them to net_write_direct (tls_write, then net.c sends the ciphertext).
 * When the client's pending output (net_pending_output: its replies plus
 * the session's buffered bytes) passes RELAY_HIGH the poll stops and a
 * timer checks every RELAY_PAUSE_MS until it is back under RELAY_HIGH:
 * the socketpair fills, and the writer blocks in its write (its fan-out
 * timeout, repl-timeout, still applies, as on a replica that takes
 * nothing). End of file (every copy of the writer's end closed) with
 * every byte handed over ends the relay with ok.
 *
 * Main thread only: the writing thread touches nothing here but its fd.
 * Callbacks may free the relay (net_close_client's hooks run inside
 * net_write_direct on a failed write): every path re-checks r->stopped
 * after calling out, and the memory goes in the handles' close callback. */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "net.h"
#include "util.h"
#include "tls_relay.h"

#define RELAY_HIGH ((size_t)1 << 20) /* client output that pauses the relay */
#define RELAY_CHUNK ((size_t)64 * 1024)
#define RELAY_TURN ((size_t)1 << 20) /* bytes moved per loop turn at most */
#define RELAY_PAUSE_MS 10

struct tls_relay {
    client *c;
    int fd; /* the reading end */
    uv_poll_t poll;
    uv_timer_t timer; /* while paused */
    int open_handles; /* handles not yet closed by libuv */
    int stopped;      /* ended or freed: no more callbacks */
    unsigned long long bytes;
    tls_relay_done_fn *done;
    void *priv;
};

static void on_readable(uv_poll_t *h, int status, int events);

static void on_handle_closed(uv_handle_t *h) {
    tls_relay *r = h->data;
    if (--r->open_handles == 0) {
        if (r->fd >= 0) close(r->fd);
        free(r);
    }
}

/* Ends the relay: the owner hears it once, then frees it. */
static void finish(tls_relay *r, int ok, const char *why) {
    if (r->stopped) return;
    r->stopped = 1;
    uv_poll_stop(&r->poll);
    uv_timer_stop(&r->timer);
    r->done(r->priv, ok, why);
}

/* 1 when the client's output is over the bound (the relay waits). */
static int client_full(const tls_relay *r) { return net_pending_output(r->c) > RELAY_HIGH; }

static void on_pause_tick(uv_timer_t *t);

/* Reads and hands over until the socketpair is empty, the client is
 * full, or RELAY_TURN bytes moved (the loop serves others meanwhile). */
static void relay_some(tls_relay *r) {
    char buf[RELAY_CHUNK];
    size_t moved = 0;
    while (!r->stopped && moved < RELAY_TURN) {
        if (client_full(r)) {
            uv_poll_stop(&r->poll);
            uv_timer_start(&r->timer, on_pause_tick, RELAY_PAUSE_MS, RELAY_PAUSE_MS);
            return;
        }
        ssize_t n = read(r->fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n < 0) {
            char why[128];
            snprintf(why, sizeof why, "relay read: %s", strerror(errno));
            finish(r, 0, why);
            return;
        }
        if (n == 0) {
            finish(r, 1, NULL);
            return;
        }
        if (net_write_direct(r->c, buf, (size_t)n) != 0) {
            finish(r, 0, "the replica's connection failed");
            return;
        }
        if (r->stopped) return; /* freed from a hook inside net.c */
        /* the writing thread counted these bytes already (the fan-out's
         * total_net_repl_output_bytes); net_write_direct counted them again */
        atomic_fetch_sub_explicit(&server.stat.net_repl_output_bytes, (uint64_t)n,
                                  memory_order_relaxed);
        r->bytes += (unsigned long long)n;
        moved += (size_t)n;
    }
}

static void on_pause_tick(uv_timer_t *t) {
    tls_relay *r = t->data;
    if (r->stopped || client_full(r)) return;
    uv_timer_stop(&r->timer);
    uv_poll_start(&r->poll, UV_READABLE, on_readable);
    relay_some(r);
}

static void on_readable(uv_poll_t *h, int status, int events) {
    (void)events;
    tls_relay *r = h->data;
    if (r->stopped) return;
    if (status < 0) {
        char why[128];
        snprintf(why, sizeof why, "relay poll: %s", uv_strerror(status));
        finish(r, 0, why);
        return;
    }
    relay_some(r);
}

tls_relay *tls_relay_start(client *c, int *writer_fd, tls_relay_done_fn *done, void *priv,
                           char *err, size_t errlen) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return NULL;
    }
    /* the reading end only: the writer's blocks (the fan-out polls anyway) */
    int fl = fcntl(sv[0], F_GETFL);
    if (fl < 0 || fcntl(sv[0], F_SETFL, fl | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "fcntl: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return NULL;
    }
    tls_relay *r = xcalloc(1, sizeof *r);
    r->c = c;
    r->fd = sv[0];
    r->done = done;
    r->priv = priv;
    int rc = uv_poll_init(server.loop, &r->poll, r->fd);
    if (rc != 0) {
        snprintf(err, errlen, "uv_poll_init: %s", uv_strerror(rc));
        close(sv[0]);
        close(sv[1]);
        free(r);
        return NULL;
    }
    r->poll.data = r;
    uv_timer_init(server.loop, &r->timer);
    r->timer.data = r;
    r->open_handles = 2;
    uv_poll_start(&r->poll, UV_READABLE, on_readable);
    *writer_fd = sv[1];
    return r;
}

void tls_relay_free(tls_relay *r) {
    if (!r) return;
    r->stopped = 1;
    uv_poll_stop(&r->poll);
    uv_timer_stop(&r->timer);
    /* the reading end goes now: a writer still writing gets EPIPE */
    close(r->fd);
    r->fd = -1;
    uv_close((uv_handle_t *)&r->poll, on_handle_closed);
    uv_close((uv_handle_t *)&r->timer, on_handle_closed);
}

unsigned long long tls_relay_bytes(const tls_relay *r) { return r->bytes; }
