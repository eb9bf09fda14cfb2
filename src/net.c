/* net: listeners, client lifecycle, input processing and reply flushing on
 * the libuv loop (see net.h). Main thread only. */
#include "net.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <sys/resource.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "blocking.h"
#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "multi.h"
#include "pubsub.h"
#include "util.h"

#define NET_READ_CHUNK (64u * 1024)
/* No single uv_buf_t handed to libuv is longer than this (uv_buf_init
 * takes an unsigned int, uv_try_write returns an int): longer replies go
 * out as several buffers. */
#define NET_WRITE_CHUNK ((size_t)1 << 30)
/* A bulk argument at least this long gets a query buffer of exactly its
 * size (Redis's PROTO_MBULK_BIG_ARG), not one grown by 1.5x steps. */
#define NET_BIG_ARG ((size_t)32 * 1024)

static void on_close(uv_handle_t *h);
static void client_flush(client *c);
static int over_output_limit(client *c);

/* ---- connection set-up ---- */

static void format_addr(const struct sockaddr_storage *ss, char *out, size_t outlen) {
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)ss;
        inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        port = ntohs(a->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)ss;
        inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
        port = ntohs(a->sin6_port);
    }
    snprintf(out, outlen, "%s:%d", ip, port);
}

static int is_loopback(const struct sockaddr_storage *ss) {
    if (ss->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
    if (ss->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) ||
               (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 1;
}

/* A buffer for libuv, n <= NET_WRITE_CHUNK (uv_buf_init would take an
 * unsigned int). */
static uv_buf_t net_buf(char *p, size_t n) {
    assert(n <= NET_WRITE_CHUNK);
    uv_buf_t b;
    b.base = p;
    b.len = n;
    return b;
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf) {
    client *c = h->data;
    (void)suggested;
    size_t want = NET_READ_CHUNK;
    if (c->req.kind == '*' && c->req.bulklen >= (long long)NET_BIG_ARG) {
        /* the rest of a big bulk (and its CRLF), in one allocation */
        size_t need = c->qpos + c->req.pos + (size_t)c->req.bulklen + 2;
        if (need > c->in.len) want = need - c->in.len;
        vbuf_reserve_exact(&c->in, want);
    } else {
        vbuf_reserve(&c->in, want);
    }
    buf->base = c->in.data + c->in.len;
    buf->len = c->in.cap - c->in.len;
}

static void reject(client *c, const char *msg) {
    /* Best effort: the socket is new, its send buffer is empty. */
    uv_buf_t b = net_buf((char *)msg, strlen(msg));
    uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
    c->flags |= CLIENT_CLOSING;
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf);

/* Links a new client (its tcp handle open) into server.clients and starts
 * reading it. */
static void client_link(client *c) {
    uv_tcp_nodelay(&c->tcp, 1);
    if (server.cfg.tcp_keepalive > 0)
        uv_tcp_keepalive(&c->tcp, 1, (unsigned)server.cfg.tcp_keepalive);
    c->resp = 2;
    c->id = ++server.next_client_id;
    c->ctime_ms = c->last_ms = mono_ms();
    /* the default user (the master link has none: every permission) */
    if (!(c->flags & CLIENT_MASTER)) acl_client_default(c);
    else c->flags |= CLIENT_AUTHED;
    resp_req_init(&c->req);
    c->next = server.clients;
    if (server.clients) server.clients->prev = c;
    server.clients = c;
    server.nclients++;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void addrs_of(client *c) {
    struct sockaddr_storage peer, local;
    int len = sizeof peer;
    memset(&peer, 0, sizeof peer);
    memset(&local, 0, sizeof local);
    uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer, &len);
    len = sizeof local;
    uv_tcp_getsockname(&c->tcp, (struct sockaddr *)&local, &len);
    format_addr(&peer, c->addr, sizeof c->addr);
    format_addr(&local, c->laddr, sizeof c->laddr);
}

/* A zeroed client with its TCP handle initialised (not yet connected). */
static client *client_alloc(void) {
    client *c = xcalloc(1, sizeof *c);
    uv_tcp_init(server.loop, &c->tcp);
    c->tcp.data = c;
    return c;
}

client *net_adopt_fd(int fd, int flags, const char *pre, size_t prelen, char *err,
                     size_t errlen) {
    client *c = client_alloc();
    int rc = uv_tcp_open(&c->tcp, fd);
    if (rc != 0) {
        snprintf(err, errlen, "uv_tcp_open: %s", uv_strerror(rc));
        uv_close((uv_handle_t *)&c->tcp, on_close); /* frees c; fd stays the caller's */
        return NULL;
    }
    addrs_of(c);
    c->fd = fd;
    c->flags = flags | CLIENT_AUTHED;
    if (prelen) vbuf_append(&c->in, pre, prelen);
    client_link(c);
    if (prelen) net_process_input(c);
    return c;
}

/* A connection just accepted into c->tcp: counted, refused (maxclients,
 * protected mode) or linked and read. */
static void accepted(client *c) {
    addrs_of(c);
    struct sockaddr_storage peer;
    int len = sizeof peer;
    memset(&peer, 0, sizeof peer);
    uv_tcp_getpeername(&c->tcp, (struct sockaddr *)&peer, &len);
    uv_fileno((uv_handle_t *)&c->tcp, &c->fd);
    server.stat.connections++;

    if (server.nclients >= (size_t)server.cfg.maxclients) {
        server.stat.rejected_conn++;
        reject(c, "-ERR max number of clients reached\r\n");
        return;
    }
    if (server.cfg.protected_mode && acl_default_nopass() && !is_loopback(&peer)) {
        server.stat.rejected_conn++;
        reject(c, "-DENIED Running in protected mode because protected mode is enabled "
                  "and no password is set for the default user. Use CONFIG SET "
                  "protected-mode no, or set a password with requirepass.\r\n");
        return;
    }
    client_link(c);
}

static void on_connection(uv_stream_t *listener, int status) {
    if (status < 0) {
        log_warning("Accepting client connection: %s", uv_strerror(status));
        return;
    }
    client *c = client_alloc();
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_close);
        return;
    }
    accepted(c);
}

void net_accept_now(void) {
    for (int i = 0; i < server.nlisteners; i++) {
        uv_os_fd_t lfd;
        if (uv_fileno((uv_handle_t *)server.listeners[i], &lfd) != 0) continue;
        for (int k = 0; k < 16; k++) { /* a few per call, as Redis's accept handler */
            int fd = accept(lfd, NULL, NULL);
            if (fd < 0) break;
            client *c = client_alloc();
            if (uv_tcp_open(&c->tcp, fd) != 0) {
                close(fd);
                uv_close((uv_handle_t *)&c->tcp, on_close);
                continue;
            }
            accepted(c);
        }
    }
}

/* ---- open files ---- */

/* Raises the open-files limit toward `want`, as Redis's
 * adjustOpenFilesLimit: the whole of it, else the highest value the OS
 * accepts in steps of 16 down to the current limit. Returns the limit now in
 * force; *oserr is the errno of the last refusal (0 if none). */
static rlim_t raise_nofile(rlim_t want, int *oserr) {
    struct rlimit lim;
    *oserr = 0;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        *oserr = errno;
        return 1024; /* what Redis assumes */
    }
    rlim_t old = lim.rlim_cur, hard = lim.rlim_max, best = want;
    if (old >= want) return old;
    while (best > old) {
        /* a hard limit above `best` stays (Redis lowers it to best) */
        lim.rlim_cur = best;
        lim.rlim_max = best > hard ? best : hard;
        if (setrlimit(RLIMIT_NOFILE, &lim) == 0) break;
        *oserr = errno;
        if (best < 16) { best = old; break; }
        best -= 16;
    }
    return best < old ? old : best;
}

int net_adjust_fd_limit(char *err, size_t errlen) {
    int maxclients = server.cfg.maxclients, oserr;
    rlim_t want = (rlim_t)maxclients + NET_RESERVED_FDS;
    struct rlimit before;
    int known = getrlimit(RLIMIT_NOFILE, &before) == 0;
    rlim_t got = raise_nofile(want, &oserr);
    if (got >= want) {
        if (known && before.rlim_cur < want)
            log_notice("Increased maximum number of open files to %llu (it was originally "
                       "set to %llu).", (unsigned long long)want,
                       (unsigned long long)before.rlim_cur);
        return 0;
    }
    if (got <= NET_RESERVED_FDS) {
        snprintf(err, errlen, "Your current 'ulimit -n' of %llu is not enough for the server "
                 "to start. Please increase your open file limit to at least %llu. Exiting.",
                 (unsigned long long)got, (unsigned long long)want);
        return -1;
    }
    server.cfg.maxclients = (int)(got - NET_RESERVED_FDS);
    log_warning("You requested maxclients of %d requiring at least %llu max file descriptors.",
                maxclients, (unsigned long long)want);
    log_warning("Server can't set maximum open files to %llu because of OS error: %s.",
                (unsigned long long)want, strerror(oserr));
    log_warning("Current maximum open files is %llu. maxclients has been reduced to %d to "
                "compensate for low ulimit. If you need higher maxclients increase "
                "'ulimit -n'.", (unsigned long long)got, server.cfg.maxclients);
    return 0;
}

int net_set_maxclients(int maxclients, char *err, size_t errlen) {
    int oserr;
    rlim_t got = raise_nofile((rlim_t)maxclients + NET_RESERVED_FDS, &oserr);
    if (got >= (rlim_t)maxclients + NET_RESERVED_FDS) return 0;
    snprintf(err, errlen, "The operating system is not able to handle the specified number "
             "of clients, try with %lld", (long long)got - NET_RESERVED_FDS);
    return -1;
}

static void on_listener_closed(uv_handle_t *h) { free(h); }

/* Listens on every bind address at port: the handles in out[], their count
 * returned; -1 with err when a required address fails (those opened are
 * closed again). An address written "-addr" is optional, as in Redis. */
static int open_listeners(int port, uv_tcp_t **out, char *err, size_t errlen) {
    int n = 0;
    for (int i = 0; i < server.cfg.nbind; i++) {
        const char *host = server.cfg.bind[i];
        if (host[0] == '-') host++; /* "-::1": optional address, as Redis */
        struct sockaddr_storage ss;
        int optional = server.cfg.bind[i][0] == '-';
        if (uv_ip4_addr(host, port, (struct sockaddr_in *)&ss) != 0 &&
            uv_ip6_addr(host, port, (struct sockaddr_in6 *)&ss) != 0) {
            snprintf(err, errlen, "Invalid bind address '%s'", host);
            goto fail;
        }
        uv_tcp_t *l = xmalloc(sizeof *l);
        uv_tcp_init(server.loop, l);
        int rc = uv_tcp_bind(l, (struct sockaddr *)&ss,
                             ss.ss_family == AF_INET6 ? UV_TCP_IPV6ONLY : 0);
        if (rc == 0) rc = uv_listen((uv_stream_t *)l, server.cfg.tcp_backlog, on_connection);
        if (rc != 0) {
            uv_close((uv_handle_t *)l, on_listener_closed);
            if (optional) continue;
            snprintf(err, errlen, "Could not create server TCP listening socket %s:%d: %s",
                     host, port, uv_strerror(rc));
            goto fail;
        }
        out[n++] = l;
    }
    return n;
fail:
    while (n > 0) uv_close((uv_handle_t *)out[--n], on_listener_closed);
    return -1;
}

int net_listen(char *err, size_t errlen) {
    int n = open_listeners(server.cfg.port, server.listeners, err, errlen);
    if (n < 0) return -1;
    server.nlisteners = n;
    return 0;
}

int net_set_port(int port, char *err, size_t errlen) {
    uv_tcp_t *fresh[CONF_MAX_BIND];
    int n = 0;
    if (port != 0) {
        char why[256];
        n = open_listeners(port, fresh, why, sizeof why);
        if (n < 0) {
            log_warning("Warning: %s", why);
            log_warning("Failed applying new configuration. Possibly related to new port "
                        "setting. Restoring previous settings.");
            snprintf(err, errlen, "Unable to listen on this port. Check server logs.");
            return -1;
        }
    }
    for (int i = 0; i < server.nlisteners; i++)
        uv_close((uv_handle_t *)server.listeners[i], on_listener_closed);
    memcpy(server.listeners, fresh, (size_t)n * sizeof fresh[0]);
    server.nlisteners = n;
    return 0;
}

/* ---- closing ---- */

static void on_close(uv_handle_t *h) {
    client *c = h->data;
    if (!c) return;
    multi_client_free(c);
    vbuf_free(&c->in);
    vbuf_free(&c->reply);
    vbuf_free(&c->inflight);
    resp_req_free(&c->req);
    free(c->argv);
    free(c->name);
    free(c);
}

static void pending_unlink(client *c) {
    if (!(c->flags & CLIENT_PENDING_WRITE)) return;
    for (client **p = &server.pending_writes; *p; p = &(*p)->pw_next) {
        if (*p == c) { *p = c->pw_next; break; }
    }
    c->flags &= ~CLIENT_PENDING_WRITE;
}

/* Clients net_close_asap flagged, closed by net_flush_all (main thread). */
static struct {
    client **v;
    size_t n, cap;
} asap;

void net_close_asap(client *c) {
    if (c->flags & (CLIENT_CLOSING | CLIENT_CLOSE_ASAP)) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    if (asap.n == asap.cap) {
        asap.cap = asap.cap ? asap.cap * 2 : 8;
        asap.v = xrealloc(asap.v, asap.cap * sizeof *asap.v);
    }
    asap.v[asap.n++] = c;
}

static void close_asap_clients(void) {
    while (asap.n) {
        client *c = asap.v[--asap.n];
        c->flags &= ~CLIENT_CLOSE_ASAP;
        net_close_client(c);
    }
}

static void slice_unlist(client *c);

void net_close_client(client *c) {
    if (c->flags & CLIENT_CLOSING) return;
    if (c->flags & CLIENT_CLOSE_ASAP) { /* closed by other means first */
        c->flags &= ~CLIENT_CLOSE_ASAP;
        for (size_t i = 0; i < asap.n; i++) {
            if (asap.v[i] != c) continue;
            asap.v[i] = asap.v[--asap.n];
            break;
        }
    }
    c->flags |= CLIENT_CLOSING;
    pending_unlink(c);
    slice_unlist(c);
    block_client_closed(c);
    pubsub_client_closed(c);
    hooks_client_closed(c);
    if (c->prev) c->prev->next = c->next; else server.clients = c->next;
    if (c->next) c->next->prev = c->prev;
    server.nclients--;
    uv_close((uv_handle_t *)&c->tcp, on_close);
}

/* ---- input ---- */

/* ---- sliced input (CLIENT_SLICED): a slice per loop iteration ---- */

/* A sliced client's input runs this long per iteration at most. */
#define NET_SLICE_US 1000

static struct {
    client **v;           /* clients with input left, in no order */
    size_t n, cap;
    uv_idle_t idle;       /* active while n > 0: the loop does not sleep */
    int idle_init;
} sliced;

static void slice_unlist(client *c) {
    if (!c->slice_pending) return;
    c->slice_pending = 0;
    for (size_t i = 0; i < sliced.n; i++)
        if (sliced.v[i] == c) {
            sliced.v[i] = sliced.v[--sliced.n];
            break;
        }
    if (sliced.n == 0) uv_idle_stop(&sliced.idle);
}

/* Each listed client's next slice, once per iteration (after the poll
 * served the others). */
static void on_slice_idle(uv_idle_t *h) {
    (void)h;
    size_t n = sliced.n;
    client **v = xmalloc((n ? n : 1) * sizeof *v);
    memcpy(v, sliced.v, n * sizeof *v);
    for (size_t i = 0; i < n; i++) slice_unlist(v[i]);
    for (size_t i = 0; i < n; i++) {
        if (v[i]->flags & CLIENT_CLOSING) continue;
        net_process_input(v[i]);
        net_update_reading(v[i]);
    }
    free(v);
}

static void slice_defer(client *c) {
    if (c->slice_pending) return;
    if (!sliced.idle_init) {
        uv_idle_init(server.loop, &sliced.idle);
        uv_unref((uv_handle_t *)&sliced.idle);
        sliced.idle_init = 1;
    }
    if (sliced.n == sliced.cap) {
        sliced.cap = sliced.cap ? sliced.cap * 2 : 4;
        sliced.v = xrealloc(sliced.v, sliced.cap * sizeof *sliced.v);
    }
    sliced.v[sliced.n++] = c;
    c->slice_pending = 1;
    uv_idle_start(&sliced.idle, on_slice_idle);
}

static void set_argv(client *c) {
    if (c->req.argc > c->argv_cap) {
        c->argv_cap = c->req.argc;
        c->argv = xrealloc(c->argv, sizeof(arg) * (size_t)c->argv_cap);
    }
    const char *base = c->in.data + c->qpos;
    for (int i = 0; i < c->req.argc; i++) {
        c->argv[i].p = resp_arg(&c->req, base, i);
        c->argv[i].len = c->req.arglen[i];
    }
    c->argc = c->req.argc;
}

static void protocol_error(client *c, const char *err) {
    char buf[256];
    snprintf(buf, sizeof buf, "ERR %s", err);
    resp_add_error(&c->reply, buf);
    server.stat.errors++;
    log_verbose("Protocol error (%s) from client: id=%llu addr=%s", err,
                (unsigned long long)c->id, c->addr);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

void net_process_input(client *c) {
    resp_limits lim = {
        .max_bulk_len = server.cfg.proto_max_bulk_len,
        .max_multibulk = INT_MAX,
        .max_inline = 64 * 1024,
    };
    int64_t slice_start = (c->flags & CLIENT_SLICED) ? mono_us() : 0;
    unsigned ncmds = 0;
    while (!(c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSING | CLIENT_INPUT_PARKED |
                         CLIENT_BLOCKED)) &&
           (c->req_ready || c->qpos < c->in.len)) {
        if (slice_start && (++ncmds & 15) == 0 && mono_us() - slice_start > NET_SLICE_US) {
            slice_defer(c); /* the rest next iteration */
            break;
        }
        if (!c->req_ready) {
            const char *err = NULL;
            /* per command: an AUTH earlier in the pipeline lifts it */
            lim.unauthenticated = acl_auth_required(c);
            int rc = resp_parse(&c->req, c->in.data + c->qpos, c->in.len - c->qpos, &lim, &err);
            if (rc == RESP_MORE) break;
            if (rc == RESP_ERROR) {
                protocol_error(c, err);
                break;
            }
            c->req_ready = 1;
        }
        if (c->req.argc > 0) {
            set_argv(c);
            if (cmd_dispatch(c) == CMD_PARKED) break; /* req stays ready (parked, blocked) */
        }
        if (c->flags & CLIENT_MASTER) {
            /* the master's stream: its replies are dropped, its bytes
             * counted (the replication offset) and proxied */
            c->reply.len = 0;
            hooks_input_applied(c, c->in.data + c->qpos, c->req.pos);
            if (c->flags & CLIENT_CLOSING) return;
        }
        c->req_ready = 0;
        c->qpos += c->req.pos;
        resp_req_reset(&c->req);
        if (over_output_limit(c)) { /* as Redis, checked as each reply is added */
            net_close_client(c);
            break;
        }
        if (net_pending_output(c) > NET_OBUF_PAUSE) break;
    }
    if (c->qpos > 0) {
        vbuf_consume(&c->in, c->qpos);
        c->qpos = 0;
    }
    if (c->in.len == 0) vbuf_shrink(&c->in, 256 * 1024);
    if (c->reply.len > 0 || (c->flags & CLIENT_CLOSE_AFTER_REPLY)) net_want_write(c);
}

void net_skip_pending(client *c) {
    assert(c->req_ready);
    c->req_ready = 0;
    c->qpos += c->req.pos;
    resp_req_reset(&c->req);
}

static int over_query_limit(client *c) {
    if (c->in.len <= (size_t)server.cfg.client_query_buffer_limit) return 0;
    log_warning("Closing client that reached max query buffer length: id=%llu addr=%s "
                "(qbuf initial bytes: ...)", (unsigned long long)c->id, c->addr);
    server.stat.qbuf_disconnects++;
    return 1;
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
    client *c = s->data;
    (void)buf;
    if (nread < 0) {
        if (nread != UV_EOF)
            log_verbose("Reading from client: %s", uv_strerror((int)nread));
        net_close_client(c);
        return;
    }
    if (nread == 0) return;
    c->in.len += (size_t)nread;
    c->last_ms = mono_ms();
    server.stat.net_input_bytes += (uint64_t)nread;
    server.stat.reads_processed++;
    if (over_query_limit(c)) {
        net_close_client(c);
        return;
    }
    net_process_input(c);
    net_update_reading(c);
}

void net_resume_parked(client *c) {
    c->flags &= ~CLIENT_BLOCKED;
    c->last_ms = mono_ms(); /* it waited on us: not idle (net_clients_cron) */
    net_process_input(c);
    net_update_reading(c);
    net_want_write(c);
}

void net_update_reading(client *c) {
    if (c->flags & CLIENT_CLOSING) return;
    int should_pause = net_pending_output(c) > NET_OBUF_PAUSE ||
                       (c->flags & CLIENT_INPUT_PARKED) || c->slice_pending;
    if (should_pause && !(c->flags & CLIENT_READ_PAUSED)) {
        uv_read_stop((uv_stream_t *)&c->tcp);
        c->flags |= CLIENT_READ_PAUSED;
    } else if (!should_pause && (c->flags & CLIENT_READ_PAUSED) &&
               net_pending_output(c) < NET_OBUF_PAUSE / 2) {
        c->flags &= ~CLIENT_READ_PAUSED;
        uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    }
}

/* ---- output ---- */

size_t net_pending_output(const client *c) { return c->reply.len + c->inflight.len; }

void net_want_write(client *c) {
    if (c->flags & (CLIENT_PENDING_WRITE | CLIENT_CLOSING)) return;
    c->flags |= CLIENT_PENDING_WRITE;
    c->pw_next = server.pending_writes;
    server.pending_writes = c;
}

/* client-output-buffer-limit <class> <hard> <soft> <seconds> of c's class
 * (replica, pubsub or normal): 1 when c must be disconnected. */
static int over_output_limit(client *c) {
    size_t used = net_pending_output(c);
    int k = (c->flags & CLIENT_REPLICA) ? CONF_OBUF_REPLICA
            : (c->flags & CLIENT_PUBSUB) ? CONF_OBUF_PUBSUB : CONF_OBUF_NORMAL;
    if (c->flags & CLIENT_MASTER) return 0; /* as Redis: never limited */
    long long hard = server.cfg.obuf[k].hard, soft = server.cfg.obuf[k].soft;
    long long soft_seconds = server.cfg.obuf[k].soft_seconds;
    int over = 0;
    if (hard && used >= (size_t)hard) over = 1;
    if (soft && used >= (size_t)soft) {
        int64_t now = mono_ms();
        if (!c->obuf_soft_since_ms) c->obuf_soft_since_ms = now;
        else if (now - c->obuf_soft_since_ms >= soft_seconds * 1000) over = 1;
    } else {
        c->obuf_soft_since_ms = 0;
    }
    if (over) {
        log_warning("Client id=%llu addr=%s scheduled to be closed ASAP for overcoming of "
                    "output buffer limits.", (unsigned long long)c->id, c->addr);
        server.stat.obuf_disconnects++;
    }
    return over;
}

/* Output drained below the pause mark: read again and run what is
 * already buffered. */
static void resume_if_drained(client *c) {
    if (!(c->flags & CLIENT_READ_PAUSED)) return;
    net_update_reading(c);
    if (!(c->flags & CLIENT_READ_PAUSED)) net_process_input(c);
}

/* An output buffer drained: freed when it holds over 1 MB (INFO's
 * reply_buffer_shrinks). */
static void shrink_output(vbuf *b) {
    if (b->len == 0 && b->cap > (1u << 20)) server.stat.reply_buffer_shrinks++;
    vbuf_shrink(b, 1u << 20);
}

/* Bytes handed to the kernel for c: a replica's count apart, as Redis
 * 7.0's total_net_repl_output_bytes. */
static void count_output(const client *c, size_t n) {
    if (c->flags & CLIENT_REPLICA)
        atomic_fetch_add_explicit(&server.stat.net_repl_output_bytes, n, memory_order_relaxed);
    else server.stat.net_output_bytes += n;
}

static void on_write(uv_write_t *req, int status) {
    client *c = req->data;
    c->writing = 0;
    if (c->flags & CLIENT_CLOSING) return;
    if (status < 0) {
        net_close_client(c);
        return;
    }
    c->inflight.len = 0;
    shrink_output(&c->inflight);
    resume_if_drained(c);
    if (c->reply.len > 0 || (c->flags & CLIENT_CLOSE_AFTER_REPLY)) client_flush(c);
}

/* uv_write of p[0..len) as buffers of at most NET_WRITE_CHUNK bytes
 * (libuv copies the array of buffers, not the bytes). */
static int write_rest(client *c, char *p, size_t len) {
    uv_buf_t one[1];
    size_t nbufs = (len + NET_WRITE_CHUNK - 1) / NET_WRITE_CHUNK;
    uv_buf_t *bufs = nbufs > 1 ? xmalloc(nbufs * sizeof *bufs) : one;
    for (size_t i = 0; i < nbufs; i++) {
        size_t n = len - i * NET_WRITE_CHUNK;
        bufs[i] = net_buf(p + i * NET_WRITE_CHUNK, n < NET_WRITE_CHUNK ? n : NET_WRITE_CHUNK);
    }
    assert(nbufs <= UINT_MAX);
    int rc = uv_write(&c->wreq, (uv_stream_t *)&c->tcp, bufs, (unsigned)nbufs, on_write);
    if (bufs != one) free(bufs);
    return rc;
}

static void client_flush(client *c) {
    if (c->flags & CLIENT_CLOSING) return;
    if (c->writing) {
        /* Replies that pile up behind a write the kernel does not take (a
         * reader that stopped reading) count against the limit too: no
         * on_write may ever come to check them. */
        if (over_output_limit(c)) net_close_client(c);
        return;
    }
    if (hooks_reply_held(c)) {
        c->flags |= CLIENT_REPLY_HELD; /* the holder queues it again (net_want_write) */
        return;
    }
    if (c->reply.len == 0) {
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) net_close_client(c);
        return;
    }
    if (over_output_limit(c)) {
        net_close_client(c);
        return;
    }
    /* grown since the last flush, past Redis's 16 KB first buffer */
    if (c->reply.cap > c->reply_cap && c->reply.cap > 16 * 1024) server.stat.reply_buffer_expands++;
    server.stat.writes_processed++;
    uv_buf_t b = net_buf(c->reply.data, c->reply.len < NET_WRITE_CHUNK ? c->reply.len
                                                                        : NET_WRITE_CHUNK);
    int n = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
    if (n == UV_EAGAIN || n == UV_ENOSYS) n = 0;
    if (n < 0) {
        net_close_client(c);
        return;
    }
    count_output(c, (size_t)n);
    if ((size_t)n == c->reply.len) {
        c->reply.len = 0;
        shrink_output(&c->reply);
        c->reply_cap = c->reply.cap;
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            net_close_client(c);
            return;
        }
        /* Reading may have been paused for this output: with no uv_write
         * callback to come, resume it here. */
        resume_if_drained(c);
        return;
    }
    /* The kernel took part: hand the rest to libuv and collect new replies
     * in the other buffer meanwhile. */
    vbuf t = c->inflight;
    c->inflight = c->reply;
    c->reply = t;
    c->reply.len = 0;
    c->reply_cap = c->reply.cap;
    size_t left = c->inflight.len - (size_t)n;
    count_output(c, left);
    c->wreq.data = c;
    c->writing = 1;
    int rc = write_rest(c, c->inflight.data + n, left);
    if (rc != 0) {
        c->writing = 0;
        net_close_client(c);
    }
}

void net_flush_all(void) {
    close_asap_clients();
    while (server.pending_writes) {
        client *c = server.pending_writes;
        server.pending_writes = c->pw_next;
        c->flags &= ~CLIENT_PENDING_WRITE;
        client_flush(c);
    }
}

void net_clients_cron(void) {
    int64_t now = mono_ms();
    for (client *c = server.clients, *next; c; c = next) {
        next = c->next;
        if (server.cfg.timeout > 0 && !c->writing &&
            !(c->flags & (CLIENT_BLOCKED | CLIENT_REPLICA | CLIENT_MASTER | CLIENT_PUBSUB)) &&
            now - c->last_ms > server.cfg.timeout * 1000) {
            log_verbose("Closing idle client");
            net_close_client(c);
            continue;
        }
        if (net_pending_output(c) > 0 && over_output_limit(c)) net_close_client(c);
    }
}
