/* net: client lifecycle, input processing and reply flushing on the libuv
 * loop (see net.h; the listeners are listen.c's). Main thread only, but for a TLS handshake's
 * steps, which run on libuv's thread pool (hs_*, below). */
#include "net.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "blocking.h"
#include "client_mem.h"
#include "cmd.h"
#include "hooks.h"
#include "listen.h"
#include "log.h"
#include "multi.h"
#include "pubsub.h"
#include "tls.h"
#include "util.h"

#define NET_READ_CHUNK (64u * 1024)
/* No single uv_buf_t handed to libuv is longer than this (uv_buf_init
 * takes an unsigned int, uv_try_write returns an int): longer replies go
 * out as several buffers. */
#define NET_WRITE_CHUNK ((size_t)1 << 30)
/* A bulk argument at least this long gets a query buffer of exactly its
 * size (Redis's PROTO_MBULK_BIG_ARG), not one grown by 1.5x steps. */
#define NET_BIG_ARG ((size_t)32 * 1024)
/* Ciphertext kept for a TLS client while a step of its handshake runs on
 * the thread pool, at most. */
#define NET_HS_BACKLOG_MAX ((size_t)1 << 20)

static void on_close(uv_handle_t *h);
static void client_flush(client *c);
static int over_output_limit(client *c);
static void tls_pump(client *c);

/* A TLS client's ciphertext is read here, then decrypted into its query
 * buffer (the loop reads one client at a time). */
static char tls_rbuf[64 * 1024];

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
    if (c->tls) {
        buf->base = tls_rbuf;
        buf->len = sizeof tls_rbuf;
        return;
    }
    size_t want = NET_READ_CHUNK;
    if (c->req.kind == '*' && c->req.bulklen >= (long long)NET_BIG_ARG) {
        /* the rest of a big bulk (and its CRLF), in one allocation */
        size_t need = c->qpos + c->req.pos + (size_t)c->req.bulklen + 2;
        if (need > c->in.len) want = need - c->in.len;
        vbuf_reserve_exact(&c->in, want);
    } else if (c->in.cap - c->in.len < want) {
        /* a request of many arguments still arriving: a quarter more room
         * rather than twice (the query buffer counts in used_memory) */
        vbuf_reserve_exact(&c->in, c->in.len / 4 > want ? c->in.len / 4 : want);
    }
    buf->base = c->in.data + c->in.len;
    buf->len = c->in.cap - c->in.len;
}

static void reject(client *c, const char *msg) {
    /* Best effort: the socket is new, its send buffer is empty. A TLS
     * client is closed without it, as Redis: no session to write in. */
    uv_buf_t b = net_buf((char *)msg, strlen(msg));
    if (!c->tls) uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
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
    client_mem_init(c);
    return c;
}

client *net_adopt_fd(int fd, int flags, const char *pre, size_t prelen, struct tls_conn *tls,
                     char *err, size_t errlen) {
    client *c = client_alloc();
    int rc = uv_tcp_open(&c->tcp, fd);
    if (rc != 0) {
        snprintf(err, errlen, "uv_tcp_open: %s", uv_strerror(rc));
        uv_close((uv_handle_t *)&c->tcp, on_close); /* frees c; fd and tls stay the caller's */
        return NULL;
    }
    addrs_of(c);
    c->fd = fd;
    c->tls = tls;
    c->flags = flags | CLIENT_AUTHED;
    if (prelen) vbuf_append(&c->in, pre, prelen);
    client_link(c);
    if (prelen) net_process_input(c);
    if (tls) tls_pump(c); /* what the session queued before */
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

/* c accepted on a TLS listener gets its session (the handshake runs as
 * its bytes come, net.c's on_read). 0, or -1 when none can be made. */
static int start_tls(client *c) {
    char err[256];
    c->tls = tls_accept_new(server.cfg.compat.tls_auth_clients, err, sizeof err);
    if (c->tls) return 0;
    log_warning("Error accepting a TLS client connection: %s", err);
    return -1;
}

void net_on_connection(uv_stream_t *listener, int status) {
    if (status < 0) {
        log_warning("Accepting client connection: %s", uv_strerror(status));
        return;
    }
    client *c = client_alloc();
    if (uv_accept(listener, (uv_stream_t *)&c->tcp) != 0 ||
        (listen_is_tls((uv_tcp_t *)listener) && start_tls(c) != 0)) {
        uv_close((uv_handle_t *)&c->tcp, on_close);
        return;
    }
    accepted(c);
}

static void accept_now(uv_tcp_t *l) {
    uv_os_fd_t lfd;
    if (uv_fileno((uv_handle_t *)l, &lfd) != 0) return;
    for (int k = 0; k < 16; k++) { /* a few per call, as Redis's accept handler */
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0) break;
        client *c = client_alloc();
        if (uv_tcp_open(&c->tcp, fd) != 0) {
            close(fd);
            uv_close((uv_handle_t *)&c->tcp, on_close);
            continue;
        }
        if (listen_is_tls(l) && start_tls(c) != 0) {
            uv_close((uv_handle_t *)&c->tcp, on_close);
            continue;
        }
        accepted(c);
    }
}

void net_accept_now(void) {
    for (int i = 0; i < server.nlisteners; i++) accept_now(server.listeners[i]);
    for (int i = 0; i < server.ntls_listeners; i++) accept_now(server.tls_listeners[i]);
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

/* ---- closing ---- */

static void hs_orphan(client *c);

static void on_close(uv_handle_t *h) {
    client *c = h->data;
    if (!c) return;
    hs_orphan(c); /* a handshake on the pool keeps the session till it ends */
    multi_client_free(c);
    vbuf_free(&c->in);
    vbuf_free(&c->reply);
    vbuf_free(&c->inflight);
    resp_req_free(&c->req);
    free(c->argv);
    free(c->name);
    tls_free(c->tls);
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
    client_mem_forget(c);
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
    while (!(c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSING | CLIENT_CLOSE_ASAP |
                         CLIENT_INPUT_PARKED | CLIENT_BLOCKED)) &&
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
        client_mem_update(c); /* the next command's eviction sees this one's reply */
        if (net_pending_output(c) > NET_OBUF_PAUSE) break;
    }
    if (c->qpos > 0) {
        vbuf_consume(&c->in, c->qpos);
        c->qpos = 0;
    }
    if (c->in.len == 0) vbuf_shrink(&c->in, 256 * 1024);
    if (c->reply.len > 0 || (c->flags & CLIENT_CLOSE_AFTER_REPLY)) net_want_write(c);
    client_mem_update(c); /* its query buffer, consumed */
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

/* n bytes of ciphertext from a TLS client whose handshake completed
 * (hs_input takes them before): decrypted onto its query buffer, what the
 * session answers sent. The plaintext's length, or -1 when the session
 * ended (c is closing). */
static ssize_t tls_input(client *c, const char *p, size_t n) {
    tls_feed(c->tls, p, n);
    size_t got = 0;
    for (;;) {
        vbuf_reserve(&c->in, 16 * 1024);
        ssize_t r = tls_read(c->tls, c->in.data + c->in.len, c->in.cap - c->in.len);
        if (r == 0) break;
        if (r < 0) {
            const char *why = tls_error(c->tls);
            if (why[0]) log_verbose("Reading from client: %s", why);
            net_close_client(c);
            return -1;
        }
        c->in.len += (size_t)r;
        got += (size_t)r;
    }
    tls_pump(c);
    return (ssize_t)got;
}

static void input_arrived(client *c, size_t nread);

/* ---- TLS handshakes on the thread pool ----
 *
 * A handshake's steps (the key exchange and signature after the
 * ClientHello, the check of the client's chain after its Finished) run as
 * uv_queue_work jobs: the worker owns c->tls from uv_queue_work until
 * hs_after runs on the main thread, and ciphertext that arrives meanwhile
 * waits in hs->backlog. Nothing else touches the session while a job runs
 * (tls_busy guards the output paths). */
typedef struct tls_hs {
    uv_work_t req;
    client *c;          /* NULL once the client closed during the job */
    tls_conn *t;        /* the session the job works on */
    int running;        /* main thread only */
    int rc;             /* the step's result: written by the worker,
                           read in hs_after (uv's queue orders them) */
    vbuf backlog;       /* ciphertext that came during the job */
} tls_hs;

static int tls_busy(const client *c) { return c->tls_hs && c->tls_hs->running; }

static void hs_free(tls_hs *hs) {
    vbuf_free(&hs->backlog);
    free(hs);
}

static void hs_work(uv_work_t *req) {
    tls_hs *hs = req->data; /* worker thread: hs->t is ours until hs_after */
    /* below the main thread when they share a core (a pinned server):
     * handshakes wait, commands do not */
    static _Thread_local int niced;
    if (!niced) {
        niced = 1;
        if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10) != 0) {
            /* not permitted: the worker keeps the main thread's share */
        }
    }
    hs->rc = tls_handshake_step(hs->t);
}

static void hs_after(uv_work_t *req, int status);

/* The next step of c's handshake over what was fed: on the pool, or here
 * when the pool refuses the job. */
static void hs_start(client *c) {
    tls_hs *hs = c->tls_hs;
    hs->running = 1;
    hs->t = c->tls;
    hs->req.data = hs;
    if (uv_queue_work(server.loop, &hs->req, hs_work, hs_after) != 0) {
        hs_work(&hs->req);
        hs_after(&hs->req, 0);
    }
}

/* Ciphertext for a client whose handshake has not completed. */
static void hs_input(client *c, const char *p, size_t n) {
    if (!c->tls_hs) c->tls_hs = xcalloc(1, sizeof *c->tls_hs);
    tls_hs *hs = c->tls_hs;
    hs->c = c;
    if (hs->running) {
        /* a handshake's messages are a few KB: a peer that sends more
         * before it completes is not making one */
        if (hs->backlog.len + n > NET_HS_BACKLOG_MAX) {
            log_warning("Error accepting a client connection: %zu bytes before the TLS "
                        "handshake completed (addr=%s)", hs->backlog.len + n, c->addr);
            net_close_client(c);
            return;
        }
        vbuf_append(&hs->backlog, p, n);
        return;
    }
    tls_feed(c->tls, p, n);
    hs_start(c);
}

/* A failed handshake's alert (unknown CA, bad certificate...), so that
 * the peer can tell why: one non-blocking write before the close. */
static void send_alert(client *c) {
    char buf[1024];
    size_t n = c->writing ? 0 : tls_out_take(c->tls, buf, sizeof buf);
    if (n == 0) return;
    uv_buf_t b = net_buf(buf, n);
    (void)uv_try_write((uv_stream_t *)&c->tcp, &b, 1); /* best effort, as the close follows */
}

static void hs_after(uv_work_t *req, int status) {
    tls_hs *hs = req->data;
    (void)status;
    hs->running = 0;
    client *c = hs->c;
    if (!c) { /* closed meanwhile: on_close left us the session */
        tls_free(hs->t);
        hs_free(hs);
        return;
    }
    if (c->flags & CLIENT_CLOSING) return;
    if (hs->rc != 0) {
        log_warning("Error accepting a client connection: %s (addr=%s)", tls_error(c->tls),
                    c->addr);
        send_alert(c);
        net_close_client(c);
        return;
    }
    tls_pump(c); /* the step's answer */
    if (c->flags & CLIENT_CLOSING) return;
    vbuf more = hs->backlog;
    hs->backlog = (vbuf){0};
    if (!tls_handshake_done(c->tls)) {
        if (more.len) {
            tls_feed(c->tls, more.data, more.len);
            hs_start(c);
        }
        vbuf_free(&more);
        return;
    }
    /* done: what came with the client's Finished (its first commands) */
    ssize_t got = tls_input(c, more.data, more.len);
    vbuf_free(&more);
    if (got > 0) input_arrived(c, (size_t)got);
}

/* on_close of a client whose handshake job still runs: the job keeps the
 * session, freed in hs_after. */
static void hs_orphan(client *c) {
    tls_hs *hs = c->tls_hs;
    c->tls_hs = NULL;
    if (!hs) return;
    if (hs->running) {
        hs->c = NULL;
        c->tls = NULL;
        return;
    }
    hs_free(hs);
}

static void on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf) {
    client *c = s->data;
    if (nread < 0) {
        if (nread != UV_EOF)
            log_verbose("Reading from client: %s", uv_strerror((int)nread));
        net_close_client(c);
        return;
    }
    if (nread == 0) return;
    if (c->tls && (tls_busy(c) || !tls_handshake_done(c->tls))) {
        hs_input(c, buf->base, (size_t)nread);
        return;
    }
    if (c->tls) {
        nread = tls_input(c, buf->base, (size_t)nread);
        if (nread <= 0) return; /* closed, or only the session's own bytes */
    } else {
        c->in.len += (size_t)nread;
    }
    input_arrived(c, (size_t)nread);
}

/* nread bytes of input were added to c->in. */
static void input_arrived(client *c, size_t nread) {
    c->last_ms = mono_ms();
    server.stat.net_input_bytes += (uint64_t)nread;
    server.stat.reads_processed++;
    if (over_query_limit(c)) {
        net_close_client(c);
        return;
    }
    client_mem_update(c); /* its query buffer grew, whatever runs of it */
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

size_t net_pending_output(const client *c) {
    return c->reply.len + c->inflight.len + (c->tls && !tls_busy(c) ? tls_buffered(c->tls) : 0);
}

void net_want_write(client *c) {
    client_mem_update(c); /* replies were added */
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
    if (c->tls && tls_out_pending(c->tls)) {
        tls_pump(c); /* sealed while this write was out */
    } else {
        resume_if_drained(c);
        if (c->reply.len > 0 || (c->flags & CLIENT_CLOSE_AFTER_REPLY)) client_flush(c);
    }
    client_mem_update(c); /* the kernel took its output */
}

/* uv_write of p[0..len) as buffers of at most NET_WRITE_CHUNK bytes
 * (libuv copies the array of buffers, not the bytes). */
static int write_rest(client *c, char *p, size_t len) {
    uv_buf_t one[1];
    memset(one, 0, sizeof one); /* gcc cannot tell nbufs >= 1 */
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

/* ---- TLS output: replies are sealed at once, the ciphertext goes out in
 * the order the session made it (one uv_write at a time, from inflight) */

/* Sends the session's ciphertext: what the kernel takes now, the rest by
 * uv_write (on_write pumps again). Closes c after its last reply. */
static void tls_pump(client *c) {
    if (c->writing || (c->flags & CLIENT_CLOSING) || tls_busy(c)) return;
    size_t n = tls_out_pending(c->tls);
    if (n == 0) {
        if ((c->flags & CLIENT_CLOSE_AFTER_REPLY) && c->reply.len == 0) net_close_client(c);
        else resume_if_drained(c);
        return;
    }
    vbuf_reserve(&c->inflight, n);
    c->inflight.len = tls_out_take(c->tls, c->inflight.data, n);
    uv_buf_t b = net_buf(c->inflight.data,
                         c->inflight.len < NET_WRITE_CHUNK ? c->inflight.len : NET_WRITE_CHUNK);
    int w = uv_try_write((uv_stream_t *)&c->tcp, &b, 1);
    if (w == UV_EAGAIN || w == UV_ENOSYS) w = 0;
    if (w < 0) {
        net_close_client(c);
        return;
    }
    if ((size_t)w == c->inflight.len) {
        c->inflight.len = 0;
        shrink_output(&c->inflight);
        tls_pump(c); /* nothing left: closes or resumes */
        return;
    }
    c->wreq.data = c;
    c->writing = 1;
    if (write_rest(c, c->inflight.data + w, c->inflight.len - (size_t)w) != 0) {
        c->writing = 0;
        net_close_client(c);
    }
}

/* client_flush for a TLS client: its replies sealed, then sent. */
static void tls_flush(client *c) {
    if (tls_busy(c)) return; /* hs_after pumps */
    if (c->reply.len > 0) {
        if (over_output_limit(c)) {
            net_close_client(c);
            return;
        }
        if (c->reply.cap > c->reply_cap && c->reply.cap > 16 * 1024)
            server.stat.reply_buffer_expands++;
        server.stat.writes_processed++;
        if (tls_write(c->tls, c->reply.data, c->reply.len) != 0) {
            net_close_client(c);
            return;
        }
        count_output(c, c->reply.len);
        c->reply.len = 0;
        shrink_output(&c->reply);
        c->reply_cap = c->reply.cap;
    }
    tls_pump(c);
}

typedef struct direct_write {
    uv_write_t req;
    char data[];
} direct_write;

static void on_direct_written(uv_write_t *req, int status) {
    (void)status; /* a failed write shows on the client's reads */
    free(req);
}

int net_write_direct(client *c, const void *p, size_t n) {
    if (c->flags & CLIENT_CLOSING) return -1;
    count_output(c, n);
    if (c->tls) {
        if (tls_busy(c) || tls_write(c->tls, p, n) != 0) {
            net_close_asap(c);
            return -1;
        }
        tls_pump(c);
        return 0;
    }
    assert(n <= NET_WRITE_CHUNK);
    direct_write *w = xmalloc(sizeof *w + n);
    memcpy(w->data, p, n);
    uv_buf_t b = net_buf(w->data, n);
    if (uv_write(&w->req, (uv_stream_t *)&c->tcp, &b, 1, on_direct_written) != 0) {
        free(w);
        return -1;
    }
    return 0;
}

int net_read_now(client *c) {
    if (c->tls) {
        ssize_t n;
        do n = recv(c->fd, tls_rbuf, sizeof tls_rbuf, MSG_DONTWAIT);
        while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) {
            net_close_client(c);
            return -1;
        }
        if (tls_busy(c) || !tls_handshake_done(c->tls)) {
            hs_input(c, tls_rbuf, (size_t)n);
            return 0;
        }
        n = tls_input(c, tls_rbuf, (size_t)n);
        if (n < 0) return -1;
        if (n == 0) return 0;
        c->last_ms = mono_ms();
        server.stat.net_input_bytes += (uint64_t)n;
        return 1;
    }
    vbuf_reserve(&c->in, 16 * 1024);
    ssize_t n = recv(c->fd, c->in.data + c->in.len, c->in.cap - c->in.len, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        net_close_client(c);
        return -1;
    }
    if (n < 0) return 0;
    c->in.len += (size_t)n;
    c->last_ms = mono_ms();
    server.stat.net_input_bytes += (uint64_t)n;
    client_mem_update(c);
    return 1;
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
    if (c->tls) {
        tls_flush(c);
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
        client_mem_update(c);
    }
}

/* A client idle this long keeps no empty buffer (Redis's cron frees an
 * idle client's query buffer after 2 s too): 64 KB of query buffer per idle
 * connection adds up over thousands of them. */
#define NET_IDLE_RELEASE_MS 2000

static void release_idle_buffers(client *c, int64_t now) {
    if (now - c->last_ms <= NET_IDLE_RELEASE_MS) return;
    vbuf_shrink(&c->in, 0); /* only when empty: no argv points into it */
    if (c->writing) return;
    vbuf_shrink(&c->reply, 0);
    vbuf_shrink(&c->inflight, 0);
    c->reply_cap = c->reply.cap;
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
        if (net_pending_output(c) > 0 && over_output_limit(c)) {
            net_close_client(c);
            continue;
        }
        release_idle_buffers(c, now);
        client_mem_update(c); /* what no event recounted (a subscription) */
    }
}
