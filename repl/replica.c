/* replica: following a master (see repl_int.h).
 *
 * REPLICAOF host port starts a state machine on the loop: a non-blocking
 * connect (uv_getaddrinfo, then connect() watched by a uv_poll_t), the
 * handshake (PING, AUTH, REPLCONF listening-port, REPLCONF ip-address when
 * replica-announce-ip is set, REPLCONF capa eof capa psync2, PSYNC), then
 * either +CONTINUE (the master client is made at once) or +FULLRESYNC: the
 * payload goes to replica_load.c (a loader thread builds fresh tables while
 * the old data is served), the tables are swapped in, and the socket becomes
 * the master client (net_adopt_fd) with the bytes read past the payload. Each
 * request the master client consumed arrives in input_applied: it is counted
 * in the offset and proxied to our own replicas (repl_feed), a transaction
 * only once its EXEC ran, as Redis's reploff. REPLCONF ACK goes every second
 * and on GETACK; a link lost or silent for repl-timeout is retried every
 * second with PSYNC replid offset+1. Log lines are worded as Redis 7.0's.
 *
 * With tls-replication the link is a TLS session (tls.h) on the same raw
 * socket: the handshake runs once the connect completed, every byte sent
 * before the master client exists is sealed (tls_write, tls_fd_flush,
 * UV_WRITABLE watched while ciphertext is unsent), every byte read is
 * opened (tls_fd_read) into RP.in, so the handshake lines and the payload
 * see plaintext as on a plain link; the master client takes the session
 * with the socket (net_adopt_fd).
 *
 * Main thread only (the loader thread is replica_load.c's). */
#include <assert.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "snap.h"
#include "cmd.h"
#include "tls.h"
#include "hooks.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "util.h"
#include "repl_int.h"
#include "replica_int.h"

replica_state RP = {.fd = -1};

int replica_active(void) { return RP.state != RC_NONE; }

int replica_link_up(void) { return RP.state == RC_CONNECTED; }

int replica_stream_db(void) { return RP.master ? RP.master->db : RP.master_db; }

/* ---- sending ---- */

/* argv's lengths in lens, or strlen's when lens is NULL. */
static void append_cmd(vbuf *b, int argc, const char **argv, const size_t *lens) {
    vbuf_appendf(b, "*%d\r\n", argc);
    for (int i = 0; i < argc; i++) {
        size_t n = lens ? lens[i] : strlen(argv[i]);
        vbuf_appendf(b, "$%zu\r\n", n);
        vbuf_append(b, argv[i], n);
        vbuf_append(b, "\r\n", 2);
    }
}

static void watch(int events);

/* Sends the TLS session's ciphertext, and watches the socket for writing
 * while some is left: 0, or -1 with the reason logged. */
static int tls_flush(void) {
    if (tls_fd_flush(RP.tls, RP.fd) != 0) {
        log_warning("Error writing to MASTER: %s", strerror(errno));
        return -1;
    }
    watch(RP.poll_want);
    return 0;
}

/* p[0..n) on the link before it is the master client: sealed on a TLS
 * link (what the socket does not take now goes when it is writable), else
 * one full write (small, into an empty send buffer: a full write is
 * expected). 0, or -1 logged (the caller drops the link). */
static int send_link(const char *p, size_t n) {
    if (RP.tls) {
        if (tls_write(RP.tls, p, n) != 0) {
            log_warning("Error writing to MASTER: %s", tls_error(RP.tls));
            return -1;
        }
        return tls_flush();
    }
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(RP.fd, p + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            log_warning("Error writing to MASTER: %s", w < 0 ? strerror(errno) : "short write");
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

/* A handshake command on the link; 0 or -1 (the caller drops the link).
 * lens as append_cmd's. */
static int send_raw_len(int argc, const char **argv, const size_t *lens) {
    vbuf b = {0};
    append_cmd(&b, argc, argv, lens);
    int rc = send_link(b.data, b.len);
    vbuf_free(&b);
    return rc;
}

static int send_raw(int argc, const char **argv) { return send_raw_len(argc, argv, NULL); }

/* REPLCONF ACK <offset> to the master client (its replies are dropped by
 * net.c, so this writes on its connection directly, sealed on TLS). */
static void send_ack(void) {
    client *c = RP.master;
    if (!c || (c->flags & CLIENT_CLOSING)) return;
    char off[32], data[96];
    snprintf(off, sizeof off, "%lld", R.offset);
    int n = snprintf(data, sizeof data, "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%zu\r\n%s\r\n",
                     strlen(off), off);
    /* a lost ACK is sent again in a second; a failed link shows on its reads */
    (void)net_write_direct(c, data, (size_t)n);
    RP.last_ack_ms = mono_ms();
}

/* ---- the link ---- */

static void on_poll(uv_poll_t *h, int status, int events);

static void close_poll(void) {
    if (RP.poll) {
        uv_poll_stop(RP.poll);
        uv_close((uv_handle_t *)RP.poll, (uv_close_cb)free);
        RP.poll = NULL;
    }
    RP.poll_events = 0;
    RP.poll_want = 0;
}

/* Drops whatever link is being set up (not the master client). */
static void cancel_link(void) {
    RP.gen++;
    if (RP.gai) {
        uv_cancel((uv_req_t *)RP.gai); /* its callback sees the stale gen */
        RP.gai = NULL;
    }
    if (RP.payload) {
        payload_cancel(RP.payload);
        RP.payload = NULL;
    }
    close_poll();
    if (RP.tls) tls_free(RP.tls);
    RP.tls = NULL;
    if (RP.fd >= 0) close(RP.fd);
    RP.fd = -1;
    RP.in.len = 0;
    RP.hs = 0;
}

/* A failed attempt: retried by the cron in a second. */
static void link_failed(void) {
    cancel_link();
    RP.state = RC_CONNECT;
}

/* Watches the link for events, plus UV_WRITABLE while the TLS session
 * has ciphertext the socket did not take. */
static void watch(int events) {
    RP.poll_want = events;
    if (RP.tls && tls_fd_unsent(RP.tls) > 0) events |= UV_WRITABLE;
    if (!RP.poll || RP.poll_events == events) return;
    RP.poll_events = events;
    if (events) uv_poll_start(RP.poll, events, on_poll);
    else uv_poll_stop(RP.poll);
}

static void connect_to(const struct sockaddr *sa, socklen_t len) {
    RP.fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (RP.fd < 0) {
        log_warning("Unable to connect to MASTER: %s", strerror(errno));
        link_failed();
        return;
    }
    if (connect(RP.fd, sa, len) != 0 && errno != EINPROGRESS) {
        log_warning("Unable to connect to MASTER: %s", strerror(errno));
        link_failed();
        return;
    }
    RP.poll = xmalloc(sizeof *RP.poll);
    uv_poll_init(server.loop, RP.poll, RP.fd);
    RP.last_io_ms = mono_ms();
    watch(UV_WRITABLE);
}

static void on_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res) {
    uint64_t gen = (uint64_t)(uintptr_t)req->data;
    free(req);
    if (gen != RP.gen) { /* cancelled or superseded */
        if (res) uv_freeaddrinfo(res);
        return;
    }
    RP.gai = NULL;
    if (status != 0 || !res) {
        log_warning("Unable to connect to MASTER: %s", uv_strerror(status));
        if (res) uv_freeaddrinfo(res);
        link_failed();
        return;
    }
    connect_to(res->ai_addr, res->ai_addrlen);
    uv_freeaddrinfo(res);
}

static void connect_master(void) {
    cancel_link();
    RP.state = RC_CONNECTING;
    RP.last_try_ms = mono_ms();
    RP.last_io_ms = RP.last_try_ms;
    log_notice("MASTER <-> REPLICA sync started");
    RP.gai = xmalloc(sizeof *RP.gai);
    RP.gai->data = (void *)(uintptr_t)RP.gen;
    char port[16];
    snprintf(port, sizeof port, "%d", RP.port);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int rc = uv_getaddrinfo(server.loop, RP.gai, on_resolved, RP.host, port, &hints);
    if (rc != 0) {
        free(RP.gai);
        RP.gai = NULL;
        log_warning("Unable to connect to MASTER: %s", uv_strerror(rc));
        link_failed();
    }
}

/* ---- the handshake ---- */

/* The next line of RP.in without its "\r\n" (or "\n"), NUL-terminated in
 * place; NULL when none is complete. *consumed gets its length with the
 * terminator. */
static char *next_line(size_t *consumed) {
    char *nl = memchr(RP.in.data, '\n', RP.in.len);
    if (!nl) return NULL;
    *consumed = (size_t)(nl - RP.in.data) + 1;
    *nl = '\0';
    if (nl > RP.in.data && nl[-1] == '\r') nl[-1] = '\0';
    return RP.in.data;
}

static int send_port(void) {
    /* as Redis 7.0: a TLS replica announces its tls-port */
    int announce = server.cfg.replica_announce_port;
    if (!announce && server.cfg.compat.tls_replication && server.cfg.compat.tls_port)
        announce = server.cfg.compat.tls_port;
    if (!announce) announce = server.cfg.port;
    char port[16];
    snprintf(port, sizeof port, "%d", announce);
    const char *argv[] = {"REPLCONF", "listening-port", port};
    RP.hs = HS_PORT;
    return send_raw(3, argv);
}

static int send_after_port(void) {
    if (server.cfg.replica_announce_ip && server.cfg.replica_announce_ip[0]) {
        const char *argv[] = {"REPLCONF", "ip-address", server.cfg.replica_announce_ip};
        RP.hs = HS_IP;
        return send_raw(3, argv);
    }
    const char *argv[] = {"REPLCONF", "capa", "eof", "capa", "psync2"};
    RP.hs = HS_CAPA;
    return send_raw(5, argv);
}

/* PSYNC, with FAILOVER while our FAILOVER hands over to this master (it
 * then promotes itself; a failed write aborts the failover). */
static int send_psync(void) {
    char off[32];
    const char *argv[] = {"PSYNC", "?", "-1", "FAILOVER"};
    int argc = failover_state() == FO_IN_PROGRESS ? 4 : 3;
    if (RP.have_history) {
        snprintf(off, sizeof off, "%lld", R.offset + 1);
        argv[1] = R.replid;
        argv[2] = off;
        log_notice("Trying a partial resynchronization (request %s:%s).", R.replid, off);
    } else {
        log_notice("Partial resynchronization not possible (no cached master)");
    }
    RP.hs = HS_PSYNC;
    return send_raw(argc, argv);
}

static void become_connected(const char *pre, size_t n, int db);
static void on_payload_done(int ok, const char *why);
static void on_payload_resume(void);

static int psync_reply(const char *line) {
    if (!strncmp(line, "+FULLRESYNC", 11)) {
        char id[REPL_ID_LEN + 2] = "";
        long long off = -1;
        if (sscanf(line + 11, " %41s %lld", id, &off) != 2 || strlen(id) != REPL_ID_LEN) {
            log_warning("Master replied with wrong +FULLRESYNC syntax.");
            return -1;
        }
        memcpy(RP.sync_id, id, REPL_ID_LEN + 1);
        RP.sync_offset = off;
        log_notice("Full resync from master: %s:%lld", id, off);
        RP.state = RC_TRANSFER;
        RP.hs = HS_BULK;
        failover_psync_accepted();
        return 0;
    }
    if (!strncmp(line, "+CONTINUE", 9)) {
        const char *p = line + 9;
        while (*p == ' ') p++;
        log_notice("Successful partial resynchronization with master.");
        if (strlen(p) == REPL_ID_LEN && strcmp(p, R.replid) != 0) {
            /* the master's history changed (a promotion): ours follows */
            memcpy(R.replid2, R.replid, sizeof R.replid2);
            R.second_offset = R.offset + 1;
            memcpy(R.replid, p, REPL_ID_LEN + 1);
            log_notice("Master replication ID changed to %s", R.replid);
            primary_drop_replicas();
        }
        log_notice("MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        backlog_create();
        failover_psync_accepted();
        return 1;
    }
    if (!strncmp(line, "-NOMASTERLINK", 13) || !strncmp(line, "-LOADING", 8)) {
        log_notice("Master is currently unable to PSYNC but should be in the future: %s", line);
        return -1;
    }
    log_warning("Unexpected reply to PSYNC from master: %s", line);
    return -1;
}

static int bulk_header(const char *line) {
    char err[256];
    if (line[0] != '$') {
        log_warning("Bad protocol from MASTER, the first byte is not '$' (we received '%s'), "
                    "are you sure the host and port are right?", line);
        return -1;
    }
    if (!strncmp(line, "$EOF:", 5)) {
        if (strlen(line + 5) < REPL_ID_LEN) {
            log_warning("Bad EOF mark from MASTER: '%s'", line);
            return -1;
        }
        log_notice("MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to a "
                   "loader thread");
        RP.payload = payload_start(line + 5, 0, on_payload_done, on_payload_resume, err,
                                   sizeof err);
    } else {
        long long len;
        if (!str_to_ll(line + 1, strlen(line + 1), &len) || len < 0) {
            log_warning("Bad payload length from MASTER: '%s'", line);
            return -1;
        }
        log_notice("MASTER <-> REPLICA sync: receiving %lld bytes from master to a loader thread",
                   len);
        RP.payload = payload_start(NULL, len, on_payload_done, on_payload_resume, err,
                                   sizeof err);
    }
    if (!RP.payload) {
        log_warning("MASTER <-> REPLICA sync: %s", err);
        return -1;
    }
    RP.hs = HS_PAYLOAD;
    return 0;
}

/* One handshake reply line; 0 to go on, 1 when the link became the master
 * client (+CONTINUE), -1 to drop it. */
static int handshake_line(const char *line) {
    switch (RP.hs) {
    case HS_PONG:
        if (line[0] == '-' && strncmp(line, "-NOAUTH", 7) && strncmp(line, "-NOPERM", 7) &&
            strncmp(line, "-ERR operation not permitted", 28)) {
            log_warning("Error reply to PING from master: '%s'", line);
            return -1;
        }
        log_notice("Master replied to PING, replication can continue...");
        if (server.cfg.masterauth && server.cfg.masterauth_len) {
            /* the password's bytes, NUL ones too */
            RP.hs = HS_AUTH;
            if (server.cfg.masteruser && server.cfg.masteruser[0]) {
                const char *argv[] = {"AUTH", server.cfg.masteruser, server.cfg.masterauth};
                const size_t lens[] = {4, strlen(server.cfg.masteruser),
                                       server.cfg.masterauth_len};
                return send_raw_len(3, argv, lens);
            }
            const char *argv[] = {"AUTH", server.cfg.masterauth};
            const size_t lens[] = {4, server.cfg.masterauth_len};
            return send_raw_len(2, argv, lens);
        }
        return send_port();
    case HS_AUTH:
        if (line[0] == '-') {
            log_warning("Unable to AUTH to MASTER: %s", line);
            return -1;
        }
        return send_port();
    case HS_PORT:
        if (line[0] == '-')
            log_notice("(Non critical) Master does not understand REPLCONF listening-port: %s",
                       line);
        return send_after_port();
    case HS_IP:
        if (line[0] == '-')
            log_notice("(Non critical) Master does not understand REPLCONF ip-address: %s", line);
        {
            const char *argv[] = {"REPLCONF", "capa", "eof", "capa", "psync2"};
            RP.hs = HS_CAPA;
            return send_raw(5, argv);
        }
    case HS_CAPA:
        if (line[0] == '-')
            log_notice("(Non critical) Master does not understand REPLCONF capa: %s", line);
        return send_psync();
    case HS_PSYNC:
        if (!line[0]) return 0; /* a keepalive newline */
        return psync_reply(line);
    case HS_BULK:
        if (!line[0]) return 0; /* the master is preparing the payload */
        return bulk_header(line);
    }
    return -1;
}

/* Consumes RP.in: handshake lines, then payload bytes. */
static void process_in(void) {
    while (RP.state == RC_HANDSHAKE || RP.state == RC_TRANSFER) {
        if (RP.hs == HS_PAYLOAD) {
            if (RP.in.len == 0) return;
            int complete;
            size_t used = payload_feed(RP.payload, RP.in.data, RP.in.len, &complete);
            vbuf_consume(&RP.in, used);
            if (complete) {
                watch(0); /* the rest is the stream: kept for the master client */
                payload_settle(RP.payload); /* done may run (and clear RP.payload) */
            } else if (payload_full(RP.payload)) {
                watch(0);
            }
            return;
        }
        size_t consumed;
        char *line = next_line(&consumed);
        if (!line) {
            if (RP.in.len > 64 * 1024) {
                log_warning("Bad protocol from MASTER: no line in %zu bytes", RP.in.len);
                link_failed();
            }
            return;
        }
        int answering = RP.hs == HS_PSYNC;
        int rc = handshake_line(line);
        vbuf_consume(&RP.in, consumed);
        if (rc < 0) {
            int psync = RP.hs == HS_PSYNC; /* its reply, or its write, failed */
            link_failed();
            /* a PSYNC ... FAILOVER refused: a master again */
            if (psync) failover_abort(answering ? "Failover target rejected psync request"
                                                : "Write error to failover target");
            return;
        }
        if (rc == 1) {
            vbuf rest = RP.in;
            RP.in = (vbuf){0};
            become_connected(rest.data, rest.len, RP.master_db);
            vbuf_free(&rest);
            return;
        }
    }
}

/* The connect ended (status: libuv's, < 0 on a poll error): SO_ERROR
 * says how, in the words Redis logs. */
static void on_connected_socket(int status) {
    int err = 0;
    socklen_t len = sizeof err;
    if (getsockopt(RP.fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) err = errno;
    if (err || status < 0) {
        log_warning("Error condition on socket for SYNC: %s",
                    err ? strerror(err) : uv_strerror(status));
        link_failed();
        return;
    }
    if (server.cfg.compat.tls_replication) {
        /* the TLS handshake runs as the PING goes (sealed once it is done) */
        char why[256];
        RP.tls = tls_connect_new(why, sizeof why);
        if (!RP.tls) {
            log_warning("Unable to connect to MASTER: %s", why);
            link_failed();
            return;
        }
    }
    log_notice("Non blocking connect for SYNC fired the event.");
    RP.state = RC_HANDSHAKE;
    RP.hs = HS_PONG;
    watch(UV_READABLE);
    const char *argv[] = {"PING"};
    if (send_raw(1, argv) != 0) link_failed();
}

/* One read of the link into RP.in: bytes added (> 0), 0 when none is
 * there now, -1 when the link failed (errno set, or 0: the peer closed;
 * *why then says how, for the log). A TLS link's plaintext is taken out
 * of the session in full, so none waits there for a socket event that
 * may never come. */
static ssize_t read_link(const char **why) {
    vbuf_reserve(&RP.in, 64 * 1024);
    if (!RP.tls) {
        ssize_t n;
        do n = read(RP.fd, RP.in.data + RP.in.len, 64 * 1024);
        while (n < 0 && errno == EINTR);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
        if (n <= 0) {
            *why = n == 0 ? "" : strerror(errno);
            return -1;
        }
        RP.in.len += (size_t)n;
        return n;
    }
    ssize_t n = tls_fd_read(RP.tls, RP.fd, RP.in.data + RP.in.len, 64 * 1024);
    if (n < 0) {
        *why = errno ? strerror(errno) : tls_error(RP.tls);
        return -1;
    }
    RP.in.len += (size_t)n;
    while (n > 0) { /* what the session still holds */
        vbuf_reserve(&RP.in, 16 * 1024);
        ssize_t r = tls_read(RP.tls, RP.in.data + RP.in.len, 16 * 1024);
        if (r <= 0) break; /* a failure shows on the next read */
        RP.in.len += (size_t)r;
        n += r;
    }
    /* the handshake's (and a renegotiation's) own records */
    if (tls_fd_flush(RP.tls, RP.fd) != 0) {
        *why = strerror(errno);
        return -1;
    }
    watch(RP.poll_want);
    return n;
}

/* The link failed while it was read (why from read_link), in Redis
 * 7.0's words: a TLS session that failed before its handshake completed
 * is a failed connect; one that fails during the replication handshake
 * (under TLS 1.3 a master refuses our certificate after our side of the
 * handshake completed) a handshake command without a reply. */
static void read_failed(const char *why) {
    if (RP.tls && !tls_handshake_done(RP.tls)) {
        log_warning("Error condition on socket for SYNC: %s", why[0] ? why : "connection lost");
    } else if (RP.tls && RP.state == RC_HANDSHAKE) {
        log_warning("Failed to read response from the server: %s",
                    why[0] ? why : "connection lost");
        log_warning("Master did not respond to command during SYNC handshake");
    } else if (RP.state == RC_TRANSFER) {
        log_warning("I/O error trying to sync with MASTER: %s", why[0] ? why : "connection lost");
    } else {
        log_warning("Master closed the connection during the handshake%s%s", why[0] ? ": " : "",
                    why);
    }
    link_failed();
}

/* Reads the link (up to 16 reads a turn) and runs what came. */
static void read_some(void) {
    for (int i = 0; i < 16 && RP.fd >= 0 && (RP.poll_want & UV_READABLE); i++) {
        const char *why = "";
        ssize_t n = read_link(&why);
        if (n == 0) break;
        if (n < 0) {
            read_failed(why);
            return;
        }
        RP.last_io_ms = mono_ms();
        server.stat.net_repl_input_bytes += (uint64_t)n; /* apart, as Redis 7.0 */
        server.stat.reads_processed++;
        uint64_t gen = RP.gen;
        process_in();
        if (gen != RP.gen) return;
    }
}

static void on_poll(uv_poll_t *h, int status, int events) {
    (void)h;
    if (RP.state == RC_CONNECTING) {
        if (status < 0 || (events & UV_WRITABLE)) on_connected_socket(status);
        return;
    }
    if (RP.tls && (events & UV_WRITABLE) && tls_flush() != 0) {
        link_failed();
        return;
    }
    if (status < 0 || (events & UV_READABLE)) read_some();
}

/* ---- the payload ---- */

static void on_payload_resume(void) {
    if (RP.state == RC_TRANSFER && RP.hs == HS_PAYLOAD) {
        watch(UV_READABLE);
        uint64_t gen = RP.gen;
        process_in(); /* bytes already read may be waiting */
        /* and a TLS session may hold records the socket will not announce */
        if (gen == RP.gen && RP.tls && (RP.poll_want & UV_READABLE)) read_some();
    }
}

static void on_payload_done(int ok, const char *why) {
    rl_payload *p = RP.payload;
    RP.payload = NULL;
    if (!ok) {
        log_warning("Failed trying to load the MASTER synchronization DB from socket: %s", why);
        link_failed();
        return;
    }
    log_notice("MASTER <-> REPLICA sync: Flushing old data");
    int stream_db = payload_swap(p);
    repl_set_id(RP.sync_id, RP.sync_offset);
    primary_drop_replicas();
    backlog_free();
    backlog_create();
    hooks_dataset_replaced();
    log_notice("MASTER <-> REPLICA sync: Finished with success");
    vbuf rest = RP.in;
    RP.in = (vbuf){0};
    /* a chained master's stream goes on where its own did (a primary's
     * starts with SELECT) */
    RP.master_db = stream_db >= 0 && stream_db < server.cfg.databases ? stream_db : 0;
    become_connected(rest.data, rest.len, RP.master_db);
    vbuf_free(&rest);
}

/* ---- the master client ---- */

/* db: the database the stream goes on in (0 after a full sync, whose
 * stream starts with SELECT; the old link's after +CONTINUE). */
static void become_connected(const char *pre, size_t n, int dbid) {
    int fd = RP.fd;
    tls_conn *tls = RP.tls; /* what it did not send yet, the master client sends first */
    close_poll(); /* libuv forgets fd before the master client takes it */
    RP.fd = -1;
    RP.tls = NULL;
    RP.hs = 0;
    RP.state = RC_CONNECTED;
    RP.have_history = 1;
    RP.multi.len = 0;
    char err[256];
    client *c = net_adopt_fd(fd, CLIENT_MASTER, NULL, 0, tls, err, sizeof err);
    if (!c) {
        log_warning("Unable to make a client of the MASTER link: %s", err);
        if (tls) tls_free(tls);
        close(fd);
        RP.state = RC_CONNECT;
        return;
    }
    RP.master = c;
    c->repl = &RP;
    c->last_ms = mono_ms();
    c->db = dbid;
    send_ack(); /* a diskless master waits for it to send the stream */
    if (n) {
        vbuf_append(&c->in, pre, n);
        net_process_input(c);
    }
}

static void master_input(client *c, const char *p, size_t n) {
    (void)c;
    if (c->flags & CLIENT_MULTI) { /* counted when its EXEC ran */
        vbuf_append(&RP.multi, p, n);
        return;
    }
    if (RP.multi.len) {
        vbuf_append(&RP.multi, p, n);
        repl_feed(RP.multi.data, RP.multi.len);
        RP.multi.len = 0;
    } else {
        repl_feed(p, n);
    }
    if (RP.ack_now) {
        RP.ack_now = 0;
        send_ack();
    }
}

void replica_getack(client *c) {
    if (c == RP.master) RP.ack_now = 1;
}

static void master_closed(client *c) {
    if (c != RP.master) return;
    RP.master = NULL;
    RP.master_db = c->db;
    RP.multi.len = 0; /* an unfinished transaction is asked for again */
    if (RP.state == RC_CONNECTED) {
        log_warning("Connection with master lost.");
        RP.state = RC_CONNECT;
        RP.down_since = time(NULL);
    }
}

/* Closes the master client without a reconnect of its own. */
static void drop_master(void) {
    client *c = RP.master;
    if (!c) return;
    RP.state = RC_CONNECT;
    RP.down_since = time(NULL);
    RP.master = NULL;
    RP.master_db = c->db;
    net_close_client(c);
}

/* ---- cron ---- */

/* What a save records (snap_set_repl_info): a replica's master history
 * and offset, so that after a restart on that snapshot it resumes with a
 * partial resync (Redis 7.0's rdbSaveInfo); a master's is history.c's. */
static void save_info(rdb_repl_aux *out) {
    if (!server.upstream) {
        history_primary_save(out);
        return;
    }
    if (!RP.have_history) return;
    out->set = 1;
    out->stream_db = replica_stream_db();
    memcpy(out->id, R.replid, sizeof out->id);
    out->offset = R.offset;
}

/* At startup, once the data is loaded: a snapshot that recorded its
 * master's history makes it ours, so the first PSYNC asks to continue. */
static void adopt_saved_history(void) {
    rdb_repl_aux ra;
    if (!snap_loaded_repl_info(&ra)) return;
    repl_set_id(ra.id, ra.offset);
    RP.master_db = ra.stream_db < server.cfg.databases ? ra.stream_db : 0;
    RP.have_history = 1;
    log_notice("Using the replication ID and offset the RDB file recorded (%s:%lld) to try a "
               "partial resynchronization", ra.id, ra.offset);
}

static void replica_cron(void) {
    if (RP.state == RC_NONE) return;
    int64_t now = mono_ms();
    int64_t timeout = (int64_t)server.cfg.repl_timeout * 1000;
    if (RP.adopt_pending) { /* the first tick: the data is loaded by now */
        RP.adopt_pending = 0;
        adopt_saved_history();
    }
    if (RP.state == RC_CONNECT && now - RP.last_try_ms >= 1000) {
        log_notice("Connecting to MASTER %s:%d", RP.host, RP.port);
        connect_master();
        return;
    }
    int loading = RP.state == RC_TRANSFER && RP.payload && payload_complete(RP.payload);
    if ((RP.state == RC_CONNECTING || RP.state == RC_HANDSHAKE) && now - RP.last_io_ms > timeout) {
        log_warning("Timeout connecting to the MASTER...");
        link_failed();
        return;
    }
    if (RP.state == RC_TRANSFER && !loading && now - RP.last_io_ms > timeout) {
        log_warning("Timeout receiving bulk data from MASTER... If the problem persists try to "
                    "set the 'repl-timeout' parameter in redis.conf to a larger value.");
        link_failed();
        return;
    }
    if (RP.state == RC_TRANSFER && now - RP.last_nl_ms >= 1000) {
        /* as Redis while it loads: the master sees the link alive */
        RP.last_nl_ms = now;
        if (RP.fd >= 0 && RP.tls) {
            if (tls_write(RP.tls, "\n", 1) != 0 || tls_flush() != 0) {
                /* the read side reports the error */
            }
        } else if (RP.fd >= 0 && write(RP.fd, "\n", 1) < 0 && errno != EAGAIN) {
            /* the read side reports the error */
        }
    }
    if (RP.state == RC_CONNECTED && RP.master) {
        if (now - RP.master->last_ms > timeout) {
            log_warning("MASTER timeout: no data nor PING received...");
            drop_master();
            return;
        }
        if (now - RP.last_ack_ms >= 1000) send_ack();
    }
}

/* ---- becoming a replica, or a master again ---- */

/* The replicaof parameter follows the command, as Redis's (CONFIG GET
 * replicaof, CONFIG REWRITE). */
static void set_config(const char *host, int port) {
    free(server.cfg.replicaof_host);
    server.cfg.replicaof_host = host ? xstrdup(host) : NULL;
    server.cfg.replicaof_port = port;
}

static void set_master(const char *host, int port) {
    int was_master = RP.state == RC_NONE;
    if (RP.master) drop_master();
    cancel_link();
    free(RP.host);
    RP.host = xstrdup(host);
    RP.port = port;
    set_config(host, port);
    server_set_upstream(1);
    if (was_master) {
        primary_drop_replicas();
        /* Redis 7.0 tries a partial resync with its own history */
        RP.have_history = 1;
        RP.down_since = 0;
        RP.master_db = 0;
    }
    RP.state = RC_CONNECT;
    log_notice("Connecting to MASTER %s:%d", RP.host, RP.port);
    connect_master();
}

static void unset_master(void) {
    if (RP.master) drop_master();
    cancel_link();
    free(RP.host);
    RP.host = NULL;
    set_config(NULL, 0);
    RP.state = RC_NONE;
    server_set_upstream(0);
    repl_shift_id();
    log_notice("Setting secondary replication ID to %s, valid up to offset: %lld. New "
               "replication ID is %s", R.replid2, R.second_offset, R.replid);
    primary_drop_replicas();
    R.stream_db = -1;
    backlog_create();
}

void replica_follow(const char *host, int port) { set_master(host, port); }

void replica_promote(void) {
    if (RP.state == RC_NONE) return;
    unset_master();
}

void cmd_replicaof(client *c) {
    if (c->argc != 3) {
        reply_wrong_args(c);
        return;
    }
    const arg *a = c->argv;
    if (server.cfg.compat.cluster_enabled) { /* the cluster wing sets the primary */
        reply_error(c, "ERR REPLICAOF not allowed in cluster mode.");
        return;
    }
    if (failover_state() != FO_NONE) {
        reply_error(c, "ERR REPLICAOF not allowed while failing over.");
        return;
    }
    if (a[1].len == 2 && !strncasecmp(a[1].p, "no", 2) && a[2].len == 3 &&
        !strncasecmp(a[2].p, "one", 3)) {
        if (RP.state != RC_NONE) {
            unset_master();
            log_notice("MASTER MODE enabled (user request from 'id=%llu addr=%s')",
                       (unsigned long long)c->id, c->addr);
        }
        reply_ok(c);
        return;
    }
    if (c->flags & CLIENT_REPLICA) {
        reply_error(c, "ERR Command is not valid when client is a replica.");
        return;
    }
    long long port;
    if (!str_to_ll(a[2].p, a[2].len, &port) || port < 0 || port > 65535) {
        reply_error(c, "ERR Invalid master port");
        return;
    }
    char *host = xstrndup(a[1].p, a[1].len);
    if (RP.state != RC_NONE && RP.host && !strcasecmp(RP.host, host) && RP.port == port) {
        log_notice("REPLICAOF would result into synchronization with the master we are already "
                   "connected with. No operation performed.");
        reply_status(c, "OK Already connected to specified master");
        free(host);
        return;
    }
    set_master(host, (int)port);
    log_notice("REPLICAOF %s:%d enabled (user request from 'id=%llu addr=%s')", host, (int)port,
               (unsigned long long)c->id, c->addr);
    free(host);
    reply_ok(c);
}

void cmd_slaveof(client *c) { cmd_replicaof(c); }

static void input_applied_hook(client *c, const char *p, size_t n) {
    if (c == RP.master) master_input(c, p, n);
}

static void client_closed_hook(client *c) {
    if (c->flags & CLIENT_MASTER) master_closed(c);
}

static void shutdown_hook(void) {
    if (RP.master) drop_master();
    cancel_link();
}

static const hooks replica_hooks = {
    .name = "replica",
    .client_gate = replica_gate,
    .cron = replica_cron,
    .client_closed = client_closed_hook,
    .input_applied = input_applied_hook,
    .shutdown = shutdown_hook,
};

void replica_init(void) {
    hooks_register(&replica_hooks);
    snap_set_repl_info(save_info);
    if (server.cfg.replicaof_host) {
        /* from the config file: followed from startup, with the history
         * the loaded snapshot recorded if any, else PSYNC ? -1 */
        RP.host = xstrdup(server.cfg.replicaof_host);
        RP.port = server.cfg.replicaof_port;
        RP.state = RC_CONNECT;
        RP.last_try_ms = mono_ms() - 1000;
        RP.adopt_pending = 1;
        server_set_upstream(1);
    }
}
