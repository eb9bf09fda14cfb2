/* migrate_io: a MIGRATE's talk with its target (see migrate_io.h). Every
 * function here runs on the thread that runs mig_run and touches only the
 * job it was given: no table, client or configuration (but the TLS
 * contexts in force, when a TLS job, main thread only, connects). */
#include "migrate_io.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dump_payload.h"
#include "payload_stream.h"
#include "rdb.h"
#include "rdb_io.h"
#include "util.h"
#include "vbuf.h"

/* Writes go out in chunks of this size, each bounded by the timeout, as
 * Redis's migrateCommand writes its buffer; smaller RESTOREs are batched up
 * to it. */
#define MIG_CHUNK (64 * 1024)

/* ---- blocking I/O bounded by a timeout ---- */

/* Waits until deadline_ms for fd to be ready for `events`: 1 ready, 0
 * timed out (errno ETIMEDOUT), -1 error. */
static int wait_fd(int fd, short events, int64_t deadline_ms) {
    for (;;) {
        int64_t left = deadline_ms - mono_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return 0;
        }
        struct pollfd p = {fd, events, 0};
        int rc = poll(&p, 1, (int)(left > 1000000 ? 1000000 : left));
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -1;
        if (rc > 0) return 1;
    }
}

/* A non-blocking TCP connection to host:port, as Redis 7.0's blocking
 * connect: -1 only when the address does not resolve or connect fails at
 * once; a connect in progress is waited for up to timeout_ms and the
 * socket returned whatever the outcome (a refused or unanswered connect
 * shows as the write's error, "IOERR error or timeout writing ..."). */
static int connect_to(const char *host, const char *port, long timeout_ms) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS) {
            (void)wait_fd(fd, POLLOUT, mono_ms() + timeout_ms);
            break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

/* Writes all of p[0..n), each MIG_CHUNK within timeout_ms (Redis's
 * syncWrite per chunk): 0, or -1 (errno ETIMEDOUT on timeout). */
static int write_all(int fd, const void *buf, size_t n, long timeout_ms) {
    const char *p = buf;
    while (n > 0) {
        size_t chunk = n < MIG_CHUNK ? n : MIG_CHUNK;
        int64_t deadline = mono_ms() + timeout_ms;
        while (chunk > 0) {
            ssize_t w = send(fd, p, chunk, MSG_NOSIGNAL);
            if (w > 0) {
                p += w;
                n -= (size_t)w;
                chunk -= (size_t)w;
                continue;
            }
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
            if (wait_fd(fd, POLLOUT, deadline) != 1) return -1;
        }
    }
    return 0;
}

/* Reads one reply line (up to "\r\n", stripped) into buf within timeout_ms
 * (Redis's syncReadLine): its length, or -1 (errno ETIMEDOUT on timeout).
 * One byte per recv, as Redis: the replies are a few bytes each. */
static ssize_t read_line(int fd, char *buf, size_t cap, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    size_t n = 0;
    while (n + 1 < cap) {
        char ch;
        ssize_t r = recv(fd, &ch, 1, 0);
        if (r == 0) {
            errno = ECONNRESET;
            return -1;
        }
        if (r < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
            if (wait_fd(fd, POLLIN, deadline) != 1) return -1;
            continue;
        }
        if (ch == '\n') {
            if (n > 0 && buf[n - 1] == '\r') n--;
            buf[n] = '\0';
            return (ssize_t)n;
        }
        buf[n++] = ch;
    }
    buf[n] = '\0';
    return (ssize_t)n;
}

/* ---- the same over TLS (main thread only) ---- */

/* Sends the ciphertext the session holds, waiting for the socket up to
 * deadline: 0 or -1. */
static int tls_drain(mig_job *j, int64_t deadline) {
    for (;;) {
        if (tls_fd_flush(j->tls, j->fd) != 0) return -1;
        if (tls_fd_unsent(j->tls) == 0 && tls_out_pending(j->tls) == 0) return 0;
        if (wait_fd(j->fd, POLLOUT, deadline) != 1) return -1;
    }
}

/* Reads what the socket has into j->tls_in (the handshake progressing):
 * 0, or -1 (errno ECONNRESET when the session ended). */
static int tls_fill(mig_job *j, int64_t deadline) {
    int was_done = tls_handshake_done(j->tls);
    vbuf_reserve(&j->tls_in, 16 * 1024);
    ssize_t r = tls_fd_read(j->tls, j->fd, j->tls_in.data + j->tls_in.len,
                            j->tls_in.cap - j->tls_in.len);
    if (r < 0) {
        if (errno == 0) errno = ECONNRESET;
        return -1;
    }
    j->tls_in.len += (size_t)r;
    if (tls_drain(j, deadline) != 0) return -1; /* the handshake's answers */
    if (r == 0 && was_done == tls_handshake_done(j->tls) &&
        wait_fd(j->fd, POLLIN, deadline) != 1)
        return -1;
    return 0;
}

/* The handshake, within timeout_ms: 0 or -1. */
static int tls_handshake(mig_job *j, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    char none[1];
    if (tls_read(j->tls, none, 0) < 0 || tls_drain(j, deadline) != 0) return -1; /* hello */
    while (!tls_handshake_done(j->tls))
        if (tls_fill(j, deadline) != 0) return -1;
    return 0;
}

static int tls_write_all(mig_job *j, const void *buf, size_t n, long timeout_ms) {
    const char *p = buf;
    while (n > 0) { /* sealed and sent per MIG_CHUNK, each within the timeout */
        size_t chunk = n < MIG_CHUNK ? n : MIG_CHUNK;
        if (tls_write(j->tls, p, chunk) != 0) return -1;
        if (tls_drain(j, mono_ms() + timeout_ms) != 0) return -1;
        p += chunk;
        n -= chunk;
    }
    return 0;
}

static ssize_t tls_read_line(mig_job *j, char *buf, size_t cap, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    char *nl;
    while (!(nl = j->tls_in.len ? memchr(j->tls_in.data, '\n', j->tls_in.len) : NULL) &&
           j->tls_in.len + 1 < cap)
        if (tls_fill(j, deadline) != 0) return -1;
    size_t len = nl ? (size_t)(nl - j->tls_in.data) : j->tls_in.len;
    if (len + 1 > cap) len = cap - 1;
    memcpy(buf, j->tls_in.data, len);
    vbuf_consume(&j->tls_in, nl && len == (size_t)(nl - j->tls_in.data) ? len + 1 : len);
    if (len > 0 && buf[len - 1] == '\r') len--;
    buf[len] = '\0';
    return (ssize_t)len;
}

/* The job's connection, TLS or not. */
static int job_write(mig_job *j, const void *p, size_t n) {
    return j->tls ? tls_write_all(j, p, n, j->timeout_ms) : write_all(j->fd, p, n, j->timeout_ms);
}

static ssize_t job_read_line(mig_job *j, char *buf, size_t cap) {
    return j->tls ? tls_read_line(j, buf, cap, j->timeout_ms)
                  : read_line(j->fd, buf, cap, j->timeout_ms);
}

void mig_close(mig_job *j) {
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
    tls_free(j->tls);
    j->tls = NULL;
    vbuf_free(&j->tls_in);
}

/* A new connection (TLS when wanted, its handshake done): 0, or -1
 * (j->fd -1 when it could not even connect). */
static int job_connect(mig_job *j) {
    j->fd = connect_to(j->host, j->port, j->timeout_ms);
    if (j->fd < 0 || !j->tls_wanted) return j->fd < 0 ? -1 : 0;
    char err[256];
    j->tls = tls_connect_new(err, sizeof err);
    vbuf_init(&j->tls_in);
    if (!j->tls || tls_handshake(j, j->timeout_ms) != 0) {
        mig_close(j);
        return -1;
    }
    return 0;
}

/* ---- the request ---- */

static void bulk(vbuf *b, const char *p, size_t n) {
    vbuf_appendf(b, "$%zu\r\n", n);
    vbuf_append(b, p, n);
    vbuf_append(b, "\r\n", 2);
}

/* Sends what is in out (then empties it): 0 or -1. */
static int flush(mig_job *j, vbuf *out) {
    int rc = out->len ? job_write(j, out->data, out->len) : 0;
    vbuf_reset(out);
    return rc;
}

/* A RESTORE up to its payload's first byte, into out. */
static void restore_head(const mig_job *j, const mig_key *k, uint64_t plen, vbuf *out) {
    char ttl[32];
    int tl = snprintf(ttl, sizeof ttl, "%lld", k->ttl);
    vbuf_appendf(out, "*%d\r\n", j->replace ? 5 : 4);
    bulk(out, j->restore, strlen(j->restore));
    bulk(out, k->name, k->len);
    bulk(out, ttl, (size_t)tl);
    vbuf_appendf(out, "$%llu\r\n", (unsigned long long)plen);
}

/* What follows the payload; out is sent once it holds MIG_CHUNK. 0 or -1. */
static int restore_tail(mig_job *j, vbuf *out) {
    vbuf_append(out, "\r\n", 2);
    if (j->replace) bulk(out, "REPLACE", 7);
    return out->len >= MIG_CHUNK ? flush(j, out) : 0;
}

/* A big value's RESTORE with its payload streamed (payload_stream.h):
 * measured first, then written to the socket as it is serialized again.
 * 1 sent, -1 a write failed (errno ETIMEDOUT on a timeout), 0 it could not
 * be streamed (the caller builds the payload in memory instead). */
static int send_streamed(mig_job *j, mig_key *k, vbuf *out) {
    pstream_info info;
    char err[RDB_ERRLEN];
    if (pstream_measure(k->val, j->compress, &info, err, sizeof err) != 0) return 0;
    restore_head(j, k, info.payload_len, out);
    if (flush(j, out) != 0) return -1;
    int timed_out;
    if (pstream_send(k->val, j->compress, &info, j->fd, j->timeout_ms, &timed_out, err,
                     sizeof err) != 0) {
        errno = timed_out ? ETIMEDOUT : EIO;
        return -1;
    }
    k->streamed = 1;
    vbuf_append(out, info.footer, sizeof info.footer);
    return restore_tail(j, out) == 0 ? 1 : -1;
}

/* One key's RESTORE. A big value (k->stream) is streamed; any other's
 * DUMP payload is made here in a buffer of its own, from the reference
 * the job holds (the value is not copied: its serialized form exists
 * while this key is sent), a payload of MIG_CHUNK or more goes out from
 * that buffer in chunks, smaller ones are batched in out. 1 sent (or
 * batched), 0 not (the value could not be serialized: the key is skipped,
 * as a memory sink does not fail), -1 a write failed. */
static int send_restore(mig_job *j, mig_key *k, vbuf *out) {
    if (k->stream && !j->tls) { /* streaming writes the socket itself */
        int r = send_streamed(j, k, out);
        if (r != 0) return r;
    }
    char err[RDB_ERRLEN];
    sink *payload = sink_mem_open("DUMP payload");
    if (rdb_write_value(payload, k->val, j->compress, err, sizeof err) != 0) {
        sink_free(payload);
        return 0;
    }
    dump_payload_finish(payload); /* touches only the sink */
    size_t plen;
    const unsigned char *p = sink_mem_data(payload, &plen);
    restore_head(j, k, plen, out);
    int rc = 0;
    if (plen < MIG_CHUNK) {
        vbuf_append(out, p, plen);
    } else if (flush(j, out) != 0 || job_write(j, p, plen) != 0) {
        rc = -1;
    }
    int saved = errno; /* a write's timeout, for attempt */
    sink_free(payload);
    errno = saved;
    if (rc != 0) return -1;
    return restore_tail(j, out) == 0 ? 1 : -1;
}

/* AUTH, SELECT when needed, the RESTOREs: 0, or -1 when a write failed.
 * sent[] gets the indexes of the keys sent, *nsent their count, *sel
 * whether SELECT went. */
static int send_request(mig_job *j, int *sent, int *nsent, int *sel) {
    vbuf out;
    vbuf_init(&out);
    if (j->pass) {
        vbuf_appendf(&out, "*%d\r\n", j->user ? 3 : 2);
        bulk(&out, "AUTH", 4);
        if (j->user) bulk(&out, j->user, j->user_len);
        bulk(&out, j->pass, j->pass_len);
    }
    *sel = j->last_db != j->dbid;
    if (*sel) {
        char n[32];
        int len = snprintf(n, sizeof n, "%lld", j->dbid);
        vbuf_append_str(&out, "*2\r\n");
        bulk(&out, "SELECT", 6);
        bulk(&out, n, (size_t)len);
    }
    int rc = 0;
    *nsent = 0;
    for (int i = 0; i < j->nkeys && rc == 0; i++) {
        int r = send_restore(j, &j->keys[i], &out);
        if (r < 0) rc = -1;
        else if (r > 0) sent[(*nsent)++] = i;
    }
    if (rc == 0) rc = flush(j, &out);
    int saved = errno; /* a timeout is told by errno (attempt) */
    vbuf_free(&out);
    errno = saved;
    return rc;
}

/* One try on j->fd. 1: done (j->status set, the connection kept or
 * closed); 0: failed in a way a new connection may cure (j->status set,
 * the caller closes it), *timed_out when it was a timeout. */
static int attempt(mig_job *j, int *sent, int *timed_out) {
    int n, sel;
    for (int i = 0; i < j->nkeys; i++) j->keys[i].acked = j->keys[i].streamed = 0;
    if (send_request(j, sent, &n, &sel) != 0) {
        *timed_out = errno == ETIMEDOUT;
        j->status = MIG_ERR_WRITE;
        return 0;
    }
    char auth_line[1024] = "", sel_line[1024] = "", line[1024];
    if ((j->pass && job_read_line(j, auth_line, sizeof auth_line) <= 0) ||
        (sel && job_read_line(j, sel_line, sizeof sel_line) <= 0)) {
        *timed_out = errno == ETIMEDOUT;
        j->status = MIG_ERR_READ;
        return 0;
    }
    /* the RESTOREs' replies; an error of AUTH or SELECT stands for each */
    int target_error = 0, socket_error = 0, got;
    for (got = 0; got < n; got++) {
        if (job_read_line(j, line, sizeof line) <= 0) {
            socket_error = 1;
            *timed_out = errno == ETIMEDOUT;
            break;
        }
        const char *err = j->pass && auth_line[0] == '-' ? auth_line
                          : sel && sel_line[0] == '-'    ? sel_line
                          : line[0] == '-'                ? line
                                                          : NULL;
        if (!err) {
            j->keys[sent[got]].acked = 1;
        } else if (!target_error) {
            target_error = 1;
            snprintf(j->error, sizeof j->error, "%s", err + 1);
        }
    }
    if (socket_error && !target_error && got == 0) {
        j->status = MIG_ERR_READ;
        return 0;
    }
    if (target_error) {
        j->status = MIG_ERR_TARGET;
        j->last_db = -1;
    } else if (socket_error) {
        j->status = MIG_ERR_READ;
    } else {
        j->status = MIG_OK;
        j->last_db = j->dbid;
    }
    if (socket_error) mig_close(j);
    return 1;
}

void mig_run(mig_job *j) {
    int *sent = xmalloc(sizeof *sent * (size_t)(j->nkeys ? j->nkeys : 1));
    int may_retry = 1;
    for (;;) {
        if (j->fd < 0) {
            j->last_db = -1;
            if (job_connect(j) != 0) {
                j->status = MIG_ERR_CONNECT; /* TLS: the handshake included, as Redis */
                mig_close(j);
                break;
            }
        }
        int timed_out = 0;
        if (attempt(j, sent, &timed_out)) break;
        mig_close(j);
        if (timed_out || !may_retry) break;
        may_retry = 0; /* a cached connection the target had closed */
    }
    free(sent);
}
