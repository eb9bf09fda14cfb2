/* listen: the listeners and their moves (see listen.h). Main thread
 * only. */
#include "listen.h"

#include <arpa/inet.h>
#include <assert.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "net.h"
#include "util.h"

/* A TLS listener's handle has data == &tls_mark. */
static char tls_mark;

int listen_is_tls(const uv_tcp_t *l) { return l->data == &tls_mark; }

static void on_listener_closed(uv_handle_t *h) { free(h); }

/* The address that bind entry `host` names at port: an IP address, "*"
 * (every IPv4 one) or "::*" (every IPv6 one), after the '-' of an
 * optional one, as Redis's. 0, or -1 when it is none of those. */
static int bind_addr(const char *host, int port, struct sockaddr_storage *ss) {
    if (host[0] == '-') host++;
    if (!strcmp(host, "*")) host = "0.0.0.0";
    else if (!strcmp(host, "::*")) host = "::";
    memset(ss, 0, sizeof *ss);
    if (uv_ip4_addr(host, port, (struct sockaddr_in *)ss) == 0) return 0;
    return uv_ip6_addr(host, port, (struct sockaddr_in6 *)ss) == 0 ? 0 : -1;
}

/* Whether listener l is bound to ss (address and port). */
static int bound_to(const uv_tcp_t *l, const struct sockaddr_storage *ss) {
    struct sockaddr_storage got;
    int len = sizeof got;
    if (uv_tcp_getsockname(l, (struct sockaddr *)&got, &len) != 0 ||
        got.ss_family != ss->ss_family)
        return 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)&got;
        const struct sockaddr_in *b = (const struct sockaddr_in *)ss;
        return a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
    }
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&got;
    const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)ss;
    return a->sin6_port == b->sin6_port && a->sin6_scope_id == b->sin6_scope_id &&
           !memcmp(&a->sin6_addr, &b->sin6_addr, sizeof a->sin6_addr);
}

static int port_of(const uv_tcp_t *l) {
    struct sockaddr_storage got;
    int len = sizeof got;
    if (uv_tcp_getsockname(l, (struct sockaddr *)&got, &len) != 0) return -1;
    return ntohs(got.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&got)->sin6_port
                                           : ((struct sockaddr_in *)&got)->sin_port);
}

static int listed(const uv_tcp_t *l, uv_tcp_t *const *ls, int n) {
    for (int i = 0; i < n; i++)
        if (ls[i] == l) return 1;
    return 0;
}

/* A listener on ss (TLS when tls), or NULL with libuv's error in *rc. */
static uv_tcp_t *listen_at(const struct sockaddr_storage *ss, int tls, int *rc) {
    uv_tcp_t *l = xmalloc(sizeof *l);
    uv_tcp_init(server.loop, l);
    l->data = tls ? &tls_mark : NULL;
    *rc = uv_tcp_bind(l, (const struct sockaddr *)ss,
                      ss->ss_family == AF_INET6 ? UV_TCP_IPV6ONLY : 0);
    if (*rc == 0) *rc = uv_listen((uv_stream_t *)l, server.cfg.tcp_backlog, net_on_connection);
    if (*rc == 0) return l;
    uv_close((uv_handle_t *)l, on_listener_closed); /* closes the socket at once */
    return NULL;
}

/* One set of listeners (the TCP ones or the TLS ones) and where a change
 * moves them: every bind address at `port` (none when 0). The new set is
 * staged in fresh[] beside the old one, then committed or undone. */
typedef struct lset {
    uv_tcp_t **ls;                  /* server.listeners or tls_listeners */
    int *nls;
    int port;
    int tls;
    uv_tcp_t *fresh[CONF_MAX_BIND]; /* staged: old ones kept, new ones */
    int nfresh;
} lset;

/* Closes the staged listeners that are not old ones. */
static void unstage(lset *s) {
    for (int i = 0; i < s->nfresh; i++)
        if (!listed(s->fresh[i], s->ls, *s->nls))
            uv_close((uv_handle_t *)s->fresh[i], on_listener_closed);
    s->nfresh = 0;
}

/* Stages a listener on every bind address at s->port: an old one already
 * bound there is kept, the others opened. An address that does not exist
 * here is skipped when optional ("-addr"), one of a family the host lacks
 * always, as Redis's listenToPort. 0, or -1 with why (nothing staged);
 * *busy is set when a required address was in use. */
static int stage(lset *s, char *why, size_t whylen, int *busy) {
    s->nfresh = 0;
    for (int i = 0; s->port && i < server.cfg.nbind; i++) {
        const char *host = server.cfg.bind[i];
        int optional = host[0] == '-', rc = 0;
        struct sockaddr_storage ss;
        if (bind_addr(host, s->port, &ss) != 0) {
            snprintf(why, whylen, "Invalid bind address '%s'", host + optional);
            goto fail;
        }
        uv_tcp_t *l = NULL;
        for (int j = 0; j < *s->nls && !l; j++)
            if (bound_to(s->ls[j], &ss) && !listed(s->ls[j], s->fresh, s->nfresh)) l = s->ls[j];
        if (!l && !(l = listen_at(&ss, s->tls, &rc))) {
            snprintf(why, whylen, "Could not create server TCP listening socket %s:%d: %s",
                     host + optional, s->port, uv_strerror(rc));
            if ((rc == UV_EADDRNOTAVAIL && optional) || rc == UV_EAFNOSUPPORT ||
                rc == UV_EPROTONOSUPPORT || rc == UV_ENOPROTOOPT) {
                log_warning("Warning: %s", why);
                continue;
            }
            if (rc == UV_EADDRINUSE) *busy = 1;
            goto fail;
        }
        s->fresh[s->nfresh++] = l;
    }
    return 0;
fail:
    unstage(s);
    return -1;
}

/* Stages every set, or none. */
static int stage_all(lset *sets, int n, char *why, size_t whylen, int *busy) {
    for (int i = 0; i < n; i++) {
        if (stage(&sets[i], why, whylen, busy) == 0) continue;
        while (i > 0) unstage(&sets[--i]);
        return -1;
    }
    return 0;
}

/* The staged sets replace the old ones: the old listeners not kept close. */
static void commit_all(lset *sets, int n) {
    for (int k = 0; k < n; k++) {
        lset *s = &sets[k];
        for (int i = 0; i < *s->nls; i++)
            if (!listed(s->ls[i], s->fresh, s->nfresh))
                uv_close((uv_handle_t *)s->ls[i], on_listener_closed);
        memcpy(s->ls, s->fresh, (size_t)s->nfresh * sizeof s->fresh[0]);
        *s->nls = s->nfresh;
    }
}

/* Closes the old listeners of s that no bind address keeps and that are on
 * s->port (so may hold an address a new one wants: 0.0.0.0 after
 * 127.0.0.1); their addresses go to gone[], their count is returned. */
static int drop_unkept(lset *s, struct sockaddr_storage *gone) {
    int ngone = 0, n = 0;
    for (int i = 0; i < *s->nls; i++) {
        uv_tcp_t *l = s->ls[i];
        int kept = port_of(l) != s->port;
        for (int b = 0; b < server.cfg.nbind && !kept; b++) {
            struct sockaddr_storage ss;
            kept = bind_addr(server.cfg.bind[b], s->port, &ss) == 0 && bound_to(l, &ss);
        }
        int len = sizeof gone[0];
        if (kept || uv_tcp_getsockname(l, (struct sockaddr *)&gone[ngone], &len) != 0) {
            s->ls[n++] = l;
            continue;
        }
        ngone++;
        uv_close((uv_handle_t *)l, on_listener_closed);
    }
    *s->nls = n;
    return ngone;
}

/* Listens again on what drop_unkept closed (best effort: logged if not). */
static void reopen(lset *s, const struct sockaddr_storage *gone, int ngone) {
    for (int i = 0; i < ngone; i++) {
        int rc;
        uv_tcp_t *l = listen_at(&gone[i], s->tls, &rc);
        if (l) {
            s->ls[(*s->nls)++] = l;
            continue;
        }
        char ip[INET6_ADDRSTRLEN] = "?";
        uv_ip_name((const struct sockaddr *)&gone[i], ip, sizeof ip);
        log_warning("Could not listen on %s:%d again: %s", ip, s->port, uv_strerror(rc));
    }
}

/* Moves the sets at once (n <= 2: the TCP and the TLS listeners) to the
 * bind addresses and their ports: a listener already on a wanted address
 * stays as it is, the new ones open before the old ones close, and on
 * failure nothing changed (why says what failed). One exception, because
 * Linux will not bind 0.0.0.0:p while 127.0.0.1:p listens: when a new
 * address is in use and old listeners that go are on that port, those
 * close first and the new ones are tried again (Redis 7.0 always closes
 * first); if they still fail the old ones are opened again. */
static int relisten(lset *sets, int n, char *why, size_t whylen) {
    struct sockaddr_storage gone[2][CONF_MAX_BIND];
    int ngone[2] = {0, 0}, busy = 0, dropped = 0;
    assert(n <= 2);
    if (stage_all(sets, n, why, whylen, &busy) == 0) goto done;
    if (!busy) return -1;
    for (int i = 0; i < n; i++) dropped += ngone[i] = drop_unkept(&sets[i], gone[i]);
    if (!dropped) return -1;
    if (stage_all(sets, n, why, whylen, &busy) == 0) goto done;
    for (int i = 0; i < n; i++) reopen(&sets[i], gone[i], ngone[i]);
    return -1;
done:
    commit_all(sets, n);
    return 0;
}

#define LSET(which, at, is_tls) \
    { .ls = server.which, .nls = &server.n##which, .port = (at), .tls = (is_tls) }

int listen_open(char *err, size_t errlen) {
    lset sets[2] = {LSET(listeners, server.cfg.port, 0),
                    LSET(tls_listeners, server.cfg.compat.tls_port, 1)};
    return relisten(sets, 2, err, errlen);
}

/* CONFIG SET port, tls-port or bind (param): the sets move; on failure the
 * reason is logged as Redis logs it and err is Redis's reply. */
static int move_sets(lset *sets, int n, const char *param, const char *reply, char *err,
                     size_t errlen) {
    char why[256];
    if (relisten(sets, n, why, sizeof why) == 0) return 0;
    log_warning("Warning: %s", why);
    log_warning("Failed applying new configuration. Possibly related to new %s setting. "
                "Restoring previous settings.", param);
    snprintf(err, errlen, "%s", reply);
    return -1;
}

#define PORT_BUSY "Unable to listen on this port. Check server logs."

int listen_set_port(int port, char *err, size_t errlen) {
    lset s = LSET(listeners, port, 0);
    return move_sets(&s, 1, "port", PORT_BUSY, err, errlen);
}

int listen_set_tls_port(int port, char *err, size_t errlen) {
    lset s = LSET(tls_listeners, port, 1);
    return move_sets(&s, 1, "tls-port", PORT_BUSY, err, errlen);
}

int listen_set_bind(char *err, size_t errlen) {
    lset sets[2] = {LSET(listeners, server.cfg.port, 0),
                    LSET(tls_listeners, server.cfg.compat.tls_port, 1)};
    return move_sets(sets, 2, "bind", "Failed to bind to specified addresses.", err, errlen);
}
