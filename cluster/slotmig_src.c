/* slotmig_src: the source's side of an atomic slot migration (EXPORT, see
 * slotmig.h for the protocol).
 *
 * One export runs at a time. Its steps:
 *   connect   a libuv TCP link to the target's client port; AUTH when
 *             masterauth is set; ESTABLISH, whose +OK is awaited
 *   snapshot  a SNAP_TO_SLOTS save through the save queue: at the instant
 *             it starts (begin, between two commands) this module starts
 *             buffering every write to the slots from the propagation path
 *             (prop_add_data), and the serializer thread writes the slots'
 *             keys at that instant as commands into the link (a fan-out
 *             sink on a dup of the socket: the main thread does not write
 *             the link until the save is done)
 *   stream    the buffered writes go to the link, then each write as it is
 *             propagated, in blocks while the link's queue is short; a
 *             CLUSTER SYNCSLOTS PING at a time measures how far behind the
 *             target is (its +PONG: everything sent before it is applied)
 *   handoff   once the target is less than SM_HANDOFF_LAG behind (or no
 *             closer for SM_CATCHUP_MS but under SM_HANDOFF_FORCE_LAG;
 *             further behind, the migration fails), writes to the slots are
 *             parked (before_command: this node's clients only wait, for
 *             those slots only), FINISH goes after the last buffered write;
 *             its +OK says the target owns the slots: they are given to the
 *             target in this node's table, the parked commands run again
 *             (and get -MOVED), the slots' keys are deleted a few at a time
 * Any failure before FINISH (the link, an error the target sent, the save,
 * a FLUSHALL, this node no longer a primary, CANCELSLOTMIGRATIONS) closes
 * the link (the target drops what it loaded) and leaves everything here as
 * it was. After FINISH was sent, a lost link waits for the target's claim
 * through the bus for cluster-node-timeout before it counts as a failure,
 * writes still parked: the target may own the slots already.
 *
 * With tls-cluster the link is TLS (a tls.h session, main thread only):
 * every command is sealed into it and its ciphertext handed to libuv. The
 * serializer thread must not touch the session, so a TLS export's
 * snapshot goes through a socketpair (the relay): the thread's sink
 * writes one end, the main thread reads the other and seals what it reads
 * into the link, and stops reading while the link's queue is over
 * SM_QUEUE_HIGH (the socketpair then fills and the thread's writes wait,
 * as on a slow TCP link), so memory stays bounded. At the save's done the
 * rest of the socketpair (its buffer at most) is read at once, before the
 * buffered writes follow.
 *
 * Thread boundary: the serializer thread writes the link's socket (or,
 * TLS, the relay's end) through the sink between begin and done; the main
 * thread only reads the link then (and the relay's other end). */
#include "slotmig.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <uv.h>

#include "cmd.h"
#include "db.h"
#include "db_slots.h"
#include "dump_payload.h"
#include "lazyfree.h"
#include "hooks.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "propagate.h"
#include "resp.h"
#include "rewrite.h"
#include "rdb_io.h"
#include "savequeue.h"
#include "tls.h"
#include "util.h"

/* The handoff starts when the target is this close behind: the bytes
 * sent since the last PING it answered, and those queued here. */
#define SM_HANDOFF_LAG (64 * 1024)
/* When the lag has not reached a new low for this long, the handoff
 * starts anyway if less than SM_HANDOFF_FORCE_LAG is unapplied (a pause
 * of a few tens of ms), else the migration fails: the target does not
 * keep up with the writes to the slots. */
#define SM_CATCHUP_MS 10000
#define SM_HANDOFF_FORCE_LAG (1024 * 1024)
/* Buffered writes are kept in blocks of this size, handed to the link
 * without a copy, while less than SM_QUEUE_HIGH waits in its queue: the
 * loop never copies nor writes megabytes at once. */
#define SM_BLOCK (256 * 1024)
#define SM_QUEUE_HIGH (1024 * 1024)

/* Keys per RESTORE-ASKING batch of the legacy fallback. */
#define SM_LEGACY_BATCH 100
enum legacy_step { L_IMPORTING = 1, L_BATCH, L_NODE };

typedef struct sm_block {
    struct sm_block *next;
    char *data;
    size_t len;
} sm_block;

typedef struct sm_src {
    sm_job *job;
    uv_tcp_t tcp;
    uv_connect_t conn;
    int open;                 /* tcp not yet being closed */
    int closed;               /* tcp's close callback ran */
    int saving;               /* the save request was submitted, its done
                                 not yet called */
    int fd;                   /* the socket (uv_fileno) */
    tls_conn *tls;            /* tls-cluster: the link's session, else NULL */
    uv_pipe_t relay;          /* TLS: the main thread's end of the snapshot's
                                 socketpair (the thread writes the other) */
    int relay_state;          /* 0 none, 1 open, 2 closing */
    int relay_paused;         /* its reading stopped: the link's queue is long */
    vbuf in;                  /* replies not yet parsed */
    int expect;               /* replies awaited: AUTH, ESTABLISH, FINISH */
    snap_req req;
    sink *out;                /* the save's fan-out (begin .. done) */
    int dupfd;                /* its socket */
    int buffering;            /* the propagation consumer is registered */
    vbuf pending;             /* commands not yet handed to the link: the
                                 block being filled... */
    sm_block *full, *full_tail; /* ...after the full ones, oldest first */
    uint64_t sent;            /* bytes handed to the link */
    uint64_t acked;           /* ...of which the target applied (PONG) */
    uint64_t ping_at;         /* sent when the PING awaited went */
    int ping_out;             /* a PING awaits its PONG */
    uint64_t min_lag;         /* the lowest lag a PONG showed */
    long long progress_ms;    /* when it was reached (mono_ms) */
    int in_multi;             /* a MULTI was propagated, not yet its EXEC */
    int multi_sent;           /* ...and went into pending */
    long long pause_start_us; /* the handoff's start */
    long long lost_ms;        /* > 0: the link was lost after FINISH
                                 (mono_ms) */
    client **parked;          /* writes parked by the handoff */
    size_t nparked, capparked;
    /* the legacy fallback (a target without CLUSTER SYNCSLOTS) */
    int legacy;               /* on */
    int lstep;                /* enum legacy_step: what the replies answer */
    unsigned lslot;           /* the slot being moved */
    sm_keys lk;               /* the batch in flight: names... */
    obj *lvals[SM_LEGACY_BATCH]; /* ...and the values sent (a reference) */
} sm_src;

static struct {
    sm_src *cur;              /* the export running, or NULL */
} X;

static void src_fail(sm_src *s, int state, const char *why);

/* ---- the link ---- */

static size_t link_queued(sm_src *s);
static void relay_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b);
static void relay_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b);

static void on_write(uv_write_t *w, int status) {
    (void)status; /* a failed write closes the link: on_read sees it */
    sm_src *s = w->handle->data;
    free(w->data);
    free(w);
    if (s->relay_paused && s->relay_state == 1 && link_queued(s) < SM_QUEUE_HIGH / 2) {
        s->relay_paused = 0; /* the link drained: the snapshot flows again */
        if (uv_read_start((uv_stream_t *)&s->relay, relay_alloc, relay_read) != 0)
            src_fail(s, SM_FAILED, "the snapshot relay could not read");
    }
}

static void link_write_raw(sm_src *s, char *p, size_t n);

/* A TLS link: the session's ciphertext goes to libuv. */
static void tls_pump(sm_src *s) {
    size_t n;
    while (s->open && (n = tls_out_pending(s->tls)) > 0) {
        size_t chunk = n < UINT32_MAX ? n : UINT32_MAX;
        char *c = xmalloc(chunk);
        size_t got = tls_out_take(s->tls, c, chunk);
        if (!got) {
            free(c);
            return;
        }
        link_write_raw(s, c, got);
    }
}

/* Hands n bytes at p (malloc'd: the link frees them) to the link. */
static void link_send_owned(sm_src *s, char *p, size_t n) {
    if (!s->open || !n) {
        free(p);
        return;
    }
    s->job->bytes += n;
    s->sent += n;
    if (!s->tls) {
        link_write_raw(s, p, n);
        return;
    }
    int rc = tls_write(s->tls, p, n);
    free(p);
    if (rc == 0) tls_pump(s);
    /* a failed session shows on the link's reads (tls_read fails) */
}

/* p[0..n) (malloc'd) to uv_write as it is. */
static void link_write_raw(sm_src *s, char *p, size_t n) {
    uv_write_t *w = xmalloc(sizeof *w);
    w->data = p;
    uv_buf_t b = uv_buf_init(p, (unsigned)n);
    if (uv_write(w, (uv_stream_t *)&s->tcp, &b, 1, on_write) != 0) {
        free(p);
        free(w);
    }
}

/* Hands n bytes at p to the link (copied). */
static void link_send(sm_src *s, const void *p, size_t n) {
    if (!n) return;
    char *copy = xmalloc(n);
    memcpy(copy, p, n);
    link_send_owned(s, copy, n);
}

static void link_send_cmd(sm_src *s, int argc, const char **argv) {
    vbuf b;
    vbuf_init(&b);
    resp_add_array(&b, argc);
    for (int i = 0; i < argc; i++) resp_add_bulk_str(&b, argv[i]);
    link_send(s, b.data, b.len);
    vbuf_free(&b);
}

/* s goes once nothing refers to it: the export ended, the link closed,
 * the save's done called. */
static void maybe_free(sm_src *s) {
    if (X.cur == s || !s->closed || s->saving || s->relay_state) return;
    assert(!s->buffering && !s->nparked && !s->out);
    tls_free(s->tls);
    vbuf_free(&s->in);
    vbuf_free(&s->pending);
    while (s->full) {
        sm_block *b = s->full;
        s->full = b->next;
        free(b->data);
        free(b);
    }
    free(s->parked);
    free(s);
}

static void on_closed(uv_handle_t *h) {
    sm_src *s = h->data;
    s->closed = 1;
    maybe_free(s);
}

static void link_close(sm_src *s) {
    if (!s->open) return;
    s->open = 0;
    uv_close((uv_handle_t *)&s->tcp, on_closed);
}

static void on_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b) {
    (void)h;
    (void)hint;
    static char buf[4096];
    *b = uv_buf_init(buf, sizeof buf);
}

static void save_submit(sm_src *s);
static void handoff_done(sm_src *s);
static void legacy_start(sm_src *s);
static void legacy_begin(sm_src *s, const char *why);
static void legacy_step_done(sm_src *s);
static void legacy_fail(sm_src *s, const char *why);

/* One reply line (no CRLF) from the target. */
static void on_reply(sm_src *s, const char *line) {
    s->job->last_ack_time = time(NULL);
    if (line[0] == '-') { /* ESTABLISH refused, or a command failed there */
        if (s->job->state == SM_CONNECTING && !s->legacy && strcasestr(line, "unknown subcommand"))
            legacy_start(s);
        else if (s->legacy)
            legacy_fail(s, line + 1);
        else
            src_fail(s, SM_FAILED, line + 1);
        return;
    }
    if (s->legacy) {
        if (s->expect > 0 && --s->expect == 0) legacy_step_done(s);
        return;
    }
    if (!strcmp(line, "+PONG")) {
        s->ping_out = 0;
        s->acked = s->ping_at;
        return;
    }
    if (s->expect <= 0) return; /* replies to writes sent after FINISH */
    s->expect--;
    if (s->expect) return;
    if (s->job->state == SM_CONNECTING) save_submit(s);
    else if (s->job->state == SM_PAUSED) handoff_done(s);
}

/* A TLS link's ciphertext: its plaintext onto s->in. 0, or -1 (failed). */
static int tls_input(sm_src *s, const char *p, size_t n) {
    if (n) tls_feed(s->tls, p, n);
    for (;;) {
        vbuf_reserve(&s->in, 16 * 1024);
        ssize_t r = tls_read(s->tls, s->in.data + s->in.len, s->in.cap - s->in.len);
        if (r == 0) break;
        if (r < 0) {
            char why[300];
            snprintf(why, sizeof why, "TLS: %s",
                     tls_error(s->tls)[0] ? tls_error(s->tls) : "the target closed the link");
            src_fail(s, SM_FAILED, why);
            return -1;
        }
        s->in.len += (size_t)r;
    }
    tls_pump(s);
    return 0;
}

static void on_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b) {
    sm_src *s = st->data;
    if (X.cur != s) return;
    if (n < 0) {
        src_fail(s, SM_FAILED, n == UV_EOF ? "the target closed the link" : uv_strerror((int)n));
        return;
    }
    if (s->tls) {
        if (tls_input(s, b->base, (size_t)n) != 0) return;
    } else {
        vbuf_append(&s->in, b->base, (size_t)n);
    }
    char *nl;
    while (X.cur == s && (nl = memchr(s->in.data, '\n', s->in.len))) {
        size_t len = (size_t)(nl - s->in.data) + 1;
        char line[512];
        size_t keep = len - 1 < sizeof line ? len - 1 : sizeof line - 1;
        memcpy(line, s->in.data, keep);
        if (keep && line[keep - 1] == '\r') keep--;
        line[keep] = '\0';
        vbuf_consume(&s->in, len);
        on_reply(s, line);
    }
}

static void on_connect(uv_connect_t *c, int status) {
    sm_src *s = c->data;
    if (X.cur != s) return; /* cancelled meanwhile: the handle is closing */
    if (status != 0) {
        src_fail(s, SM_FAILED, uv_strerror(status));
        return;
    }
    uv_tcp_nodelay(&s->tcp, 1); /* FINISH must not wait for an ACK (Nagle) */
    uv_os_fd_t fd;
    uv_fileno((uv_handle_t *)&s->tcp, &fd);
    s->fd = fd;
    uv_read_start((uv_stream_t *)&s->tcp, on_alloc, on_read);
    if (server.cfg.compat.tls_cluster) {
        char err[256];
        s->tls = tls_connect_new(err, sizeof err);
        if (!s->tls) {
            src_fail(s, SM_FAILED, err);
            return;
        }
        if (tls_input(s, NULL, 0) != 0) return; /* the client hello */
    }
    const conf *cf = &server.cfg;
    if (cf->masterauth && cf->masterauth_len) {
        vbuf b;
        vbuf_init(&b);
        int user = cf->masteruser && cf->masteruser[0];
        resp_add_array(&b, user ? 3 : 2);
        resp_add_bulk_str(&b, "AUTH");
        if (user) resp_add_bulk_str(&b, cf->masteruser);
        resp_add_bulk(&b, cf->masterauth, cf->masterauth_len);
        link_send(s, b.data, b.len);
        vbuf_free(&b);
        s->expect++;
    }
    /* ESTABLISH name source start end ... */
    vbuf b;
    vbuf_init(&b);
    int nranges = 0;
    for (unsigned i = 0; i < KEYSLOT_COUNT;) {
        if (!sm_has_slot(s->job->slots, i)) { i++; continue; }
        while (i < KEYSLOT_COUNT && sm_has_slot(s->job->slots, i)) i++;
        nranges++;
    }
    resp_add_array(&b, 5 + 2 * nranges);
    resp_add_bulk_str(&b, "CLUSTER");
    resp_add_bulk_str(&b, "SYNCSLOTS");
    resp_add_bulk_str(&b, "ESTABLISH");
    resp_add_bulk(&b, s->job->name, CL_NAMELEN);
    resp_add_bulk(&b, s->job->source, CL_NAMELEN);
    for (unsigned i = 0; i < KEYSLOT_COUNT;) {
        if (!sm_has_slot(s->job->slots, i)) { i++; continue; }
        unsigned start = i;
        while (i < KEYSLOT_COUNT && sm_has_slot(s->job->slots, i)) i++;
        resp_add_bulk_ll(&b, start);
        resp_add_bulk_ll(&b, i - 1);
    }
    link_send(s, b.data, b.len);
    vbuf_free(&b);
    s->expect++;
}

/* ---- writes to the slots, from the propagation path ---- */

static int cmd_is(const cmd_def *d, const char *name) {
    return strcasecmp(d->name, name) == 0;
}

/* 1 when the command's first key is in one of the moving slots. */
static int touches_slots(const sm_src *s, const cmd_def *d, int argc, const arg *argv) {
    cmd_keyrefs refs = {0};
    cmd_get_keys(d, argc, argv, &refs);
    int hit = 0;
    if (refs.n) {
        const arg *k = &argv[refs.v[0].pos];
        hit = sm_has_slot(s->job->slots, key_hash_slot(k->p, k->len));
    }
    cmd_keys_free(&refs);
    return hit;
}

/* The block being filled joins the full ones (its memory moves). */
static void pending_rotate(sm_src *s) {
    if (!s->pending.len) return;
    sm_block *b = xmalloc(sizeof *b);
    b->next = NULL;
    b->data = s->pending.data;
    b->len = s->pending.len;
    vbuf_init(&s->pending);
    if (s->full_tail) s->full_tail->next = b;
    else s->full = b;
    s->full_tail = b;
}

static void add_cmd(sm_src *s, int argc, const arg *argv) {
    vbuf *b = &s->pending;
    resp_add_array(b, argc);
    for (int i = 0; i < argc; i++) resp_add_bulk(b, argv[i].p, argv[i].len);
    if (b->len >= SM_BLOCK) pending_rotate(s);
}

static void on_propagate(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv) {
    sm_src *s = priv;
    assert(dbid == 0); /* cluster mode has one database */
    if (cmd_is(d, "flushall") || cmd_is(d, "flushdb")) {
        src_fail(s, SM_FAILED, "FLUSHALL or FLUSHDB during the migration");
        return;
    }
    if (cmd_is(d, "multi")) {
        s->in_multi = 1;
        s->multi_sent = 0;
        return;
    }
    if (cmd_is(d, "exec")) {
        if (s->multi_sent) add_cmd(s, argc, argv);
        s->in_multi = s->multi_sent = 0;
        return;
    }
    if (!touches_slots(s, d, argc, argv)) return;
    if (s->in_multi && !s->multi_sent) {
        arg m = {.p = "MULTI", .len = 5};
        add_cmd(s, 1, &m);
        s->multi_sent = 1;
    }
    add_cmd(s, argc, argv);
}

static void buffering(sm_src *s, int on) {
    if (on == s->buffering) return;
    s->buffering = on;
    if (on) prop_add_data(on_propagate, s);
    else prop_remove(on_propagate, s);
}

/* What waits to go out on the link: libuv's queue, and what its TLS
 * session holds. */
static size_t link_queued(sm_src *s) {
    if (!s->open) return 0;
    return uv_stream_get_write_queue_size((uv_stream_t *)&s->tcp) +
           (s->tls ? tls_buffered(s->tls) : 0);
}

/* Hands pending blocks to the link (after the save, and while streaming):
 * all of them (the handoff), or while its queue is short. The block being
 * filled goes too, unless a transaction in it has not seen its EXEC. */
static void flush_pending(sm_src *s, int all) {
    if (s->job->state < SM_STREAMING) return;
    for (;;) {
        if (!all && link_queued(s) >= SM_QUEUE_HIGH) return;
        if (!s->full) {
            if (s->in_multi || !s->pending.len) return;
            pending_rotate(s);
        }
        sm_block *b = s->full;
        s->full = b->next;
        if (!s->full) s->full_tail = NULL;
        link_send_owned(s, b->data, b->len);
        free(b);
    }
}


/* ---- the snapshot relay (TLS) ---- */

static void relay_closed(uv_handle_t *h) {
    sm_src *s = h->data;
    s->relay_state = 0;
    maybe_free(s);
}

static void relay_close(sm_src *s) {
    if (s->relay_state != 1) return;
    s->relay_state = 2;
    s->relay_paused = 0;
    uv_close((uv_handle_t *)&s->relay, relay_closed);
}

static void relay_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b) {
    (void)h;
    (void)hint;
    static char buf[64 * 1024];
    *b = uv_buf_init(buf, sizeof buf);
}

/* Snapshot bytes from the relay, sealed into the link (sink_bytes counts
 * them in the job at done). */
static void relay_send(sm_src *s, const char *p, size_t n) {
    if (!s->open) return;
    if (tls_write(s->tls, p, n) != 0) return; /* the failure shows on the link's reads */
    s->sent += n;
    tls_pump(s);
}

static void relay_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b) {
    sm_src *s = st->data;
    if (n < 0) { /* the thread's end closed: save_done reads the rest */
        uv_read_stop(st);
        return;
    }
    relay_send(s, b->base, (size_t)n);
    if (link_queued(s) >= SM_QUEUE_HIGH) {
        uv_read_stop(st);
        s->relay_paused = 1;
    }
}

/* The socketpair: the thread's end (non-blocking, as the link's socket:
 * the sink polls, its timeout applies) into s->dupfd, the other read
 * here. 0, or -1 with err. */
static int relay_open(sm_src *s, char *err, size_t errlen) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(err, errlen, "socketpair: %s", strerror(errno));
        return -1;
    }
    uv_pipe_init(server.loop, &s->relay, 0);
    s->relay.data = s;
    s->relay_state = 1;
    int rc = uv_pipe_open(&s->relay, sv[1]);
    if (rc != 0) close(sv[1]);
    else rc = uv_read_start((uv_stream_t *)&s->relay, relay_alloc, relay_read);
    if (rc != 0) {
        close(sv[0]);
        relay_close(s);
        snprintf(err, errlen, "the snapshot relay: %s", uv_strerror(rc));
        return -1;
    }
    s->dupfd = sv[0];
    return 0;
}

/* At the save's done (the thread's end closed): what the socketpair still
 * holds goes to the link now, before the buffered writes; the relay
 * closes. */
static void relay_finish(sm_src *s, int drain) {
    if (s->relay_state != 1) return;
    uv_os_fd_t fd;
    if (drain && uv_fileno((uv_handle_t *)&s->relay, &fd) == 0) {
        static char buf[64 * 1024];
        for (;;) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            relay_send(s, buf, (size_t)n);
        }
    }
    relay_close(s);
}

/* ---- the snapshot ---- */

static int save_begin(void *priv, snap_target *t, char *err, size_t errlen) {
    sm_src *s = priv;
    if (X.cur != s || !s->open) {
        snprintf(err, errlen, "the migration ended");
        return -1;
    }
    if (s->tls) {
        if (relay_open(s, err, errlen) != 0) return -1;
    } else if ((s->dupfd = dup(s->fd)) < 0) {
        snprintf(err, errlen, "dup: %s", strerror(errno));
        return -1;
    }
    s->out = sink_fanout_open("slot migration", (int)server.cfg.compat.cluster_node_timeout);
    sink_fanout_add(s->out, s->dupfd, "slot migration target", NULL, 0);
    t->u.slots.out = s->out;
    t->u.slots.set = s->job->slots;
    t->u.slots.cmds = aofrw_key;
    buffering(s, 1); /* the cut: every later write to the slots */
    s->job->keys = 0;
    for (unsigned i = 0; i < KEYSLOT_COUNT; i++)
        if (sm_has_slot(s->job->slots, i)) s->job->keys += db_slot_count(db_get(0), i);
    sm_job_set_state(s->job, SM_SNAPSHOT, NULL);
    return 0;
}

static void save_done(void *priv, const snap_result *r) {
    sm_src *s = priv;
    if (s->out) {
        s->job->bytes += sink_bytes(s->out);
        sink_free(s->out);
        s->out = NULL;
        close(s->dupfd);
        s->dupfd = -1;
    }
    relay_finish(s, X.cur == s && r->started && r->status == 0);
    s->saving = 0;
    if (X.cur != s) { /* cancelled or failed meanwhile */
        maybe_free(s);
        return;
    }
    if (!r->started || r->status != 0) {
        char why[300];
        snprintf(why, sizeof why, "the snapshot failed: %s", r->err ? r->err : "?");
        src_fail(s, SM_FAILED, why);
        return;
    }
    log_notice("Slot migration %.40s: %llu keys sent, streaming the writes since",
               s->job->name, (unsigned long long)r->keys);
    sm_job_set_state(s->job, SM_STREAMING, NULL);
    s->min_lag = UINT64_MAX;
    s->progress_ms = mono_ms();
    s->acked = s->sent; /* the snapshot: sent whole, as far as it tells */
    flush_pending(s, 0);
}

static void save_submit(sm_src *s) {
    s->req = (snap_req){.kind = SNAP_TO_SLOTS, .begin = save_begin, .done = save_done, .priv = s};
    sm_job_set_state(s->job, SM_WAITING_SAVE, NULL);
    char err[256];
    s->saving = 1;
    if (snap_submit(&s->req, SNAP_NOW_OR_QUEUE, err, sizeof err) < 0) {
        s->saving = 0; /* refused, or done already ran */
        if (X.cur == s) src_fail(s, SM_FAILED, err);
    }
}

/* ---- the handoff ---- */

static int may_write_slots(const sm_src *s, client *c, const cmd_def *d) {
    if (d->flags & CMD_READONLY && !cmd_is(d, "exec")) return 0;
    if (cmd_is(d, "exec")) {
        if (!(multi_queued_flags(c) & CMD_WRITE)) return 0;
        return 1; /* a transaction that writes waits for the handoff */
    }
    return touches_slots(s, d, c->argc, c->argv);
}

/* The legacy fallback's batch in flight: a write to its slot waits. */
static int legacy_holds(const sm_src *s, client *c, const cmd_def *d) {
    if (d->flags & CMD_READONLY && !cmd_is(d, "exec")) return 0;
    if (cmd_is(d, "exec")) return (multi_queued_flags(c) & CMD_WRITE) != 0;
    cmd_keyrefs refs = {0};
    cmd_get_keys(d, c->argc, c->argv, &refs);
    int hit = 0;
    for (size_t i = 0; i < refs.n && !hit; i++) {
        const arg *k = &c->argv[refs.v[i].pos];
        hit = key_hash_slot(k->p, k->len) == s->lslot;
    }
    cmd_keys_free(&refs);
    return hit;
}

static int src_before_command(client *c, const cmd_def *d) {
    sm_src *s = X.cur;
    int legacy = s && s->legacy && s->lstep == L_BATCH;
    if (!s || (s->job->state != SM_PAUSED && !legacy) ||
        (c->flags & (CLIENT_LOADER | CLIENT_SCRIPT)) || c->tcp.data != c)
        return 0;
    if (!cmd_arity_ok(d, c->argc)) return 0;
    if (legacy ? !legacy_holds(s, c, d) : !may_write_slots(s, c, d)) return 0;
    if (s->nparked == s->capparked) {
        s->capparked = s->capparked ? s->capparked * 2 : 8;
        s->parked = xrealloc(s->parked, s->capparked * sizeof *s->parked);
    }
    s->parked[s->nparked++] = c;
    c->lastcmd = d;
    c->flags |= CLIENT_BLOCKED;
    return 1;
}

static void resume_parked(sm_src *s) {
    client **list = s->parked;
    size_t n = s->nparked;
    s->parked = NULL;
    s->nparked = s->capparked = 0;
    for (size_t i = 0; i < n; i++)
        if (list[i]) net_resume_parked(list[i]);
    free(list);
}

static void handoff_start(sm_src *s) {
    s->pause_start_us = mono_us();
    sm_job_set_state(s->job, SM_PAUSED, NULL);
    flush_pending(s, 1);
    const char *argv[] = {"CLUSTER", "SYNCSLOTS", "FINISH", NULL};
    char name[CL_NAMELEN + 1];
    memcpy(name, s->job->name, CL_NAMELEN);
    name[CL_NAMELEN] = '\0';
    argv[3] = name;
    link_send_cmd(s, 4, argv);
    s->expect = 1;
}

/* The target owns the slots: so does this node's table, and the keys go. */
static void handoff_done(sm_src *s) {
    cluster_node *target = cl_node_lookup(s->job->target, CL_NAMELEN);
    for (unsigned i = 0; i < KEYSLOT_COUNT; i++) {
        if (!sm_has_slot(s->job->slots, i)) continue;
        if (target && cl.slots[i] != target) {
            cl_slot_del(i);
            cl_slot_add(target, i);
        }
        cl.migrating_to[i] = NULL;
    }
    sm_drop_keys(s->job->slots);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG | CL_TODO_FSYNC_CONFIG);
    buffering(s, 0);
    s->job->pause_us = mono_us() - s->pause_start_us;
    sm_job_set_state(s->job, SM_SUCCESS, NULL);
    log_notice("Slot migration %.40s done: the target owns the slots (writes paused %lld us)",
               s->job->name, s->job->pause_us);
    s->job->priv = NULL;
    X.cur = NULL;
    resume_parked(s); /* they get -MOVED now */
    link_close(s);
    maybe_free(s);
}

/* ---- the legacy fallback ---- */

/* A target without CLUSTER SYNCSLOTS (redis-server 7.0) gets the slots as
 * redis-cli --cluster reshard moves them, driven from here on the same
 * link, one slot at a time: CLUSTER SETSLOT s IMPORTING <me> there, s
 * MIGRATING here (clients get -ASK for keys gone, -TRYAGAIN for a
 * multi-key command across both), the keys in batches of RESTORE-ASKING
 * (serialized here, on the main thread, as Redis's MIGRATE: a big key
 * stalls the loop), each batch deleted here once acknowledged, the slot's
 * writes parked while a batch is in flight; then SETSLOT s NODE <target>
 * there and here. A failure leaves the slot being moved split between
 * the nodes, as a failed reshard does. */

/* CLUSTER SETSLOT <the slot> action node (a name of CL_NAMELEN) to the
 * target; its reply ends step. */
static void setslot(sm_src *s, int step, const char *action, const char *node) {
    char slot[16], name[CL_NAMELEN + 1];
    snprintf(slot, sizeof slot, "%u", s->lslot);
    memcpy(name, node, CL_NAMELEN);
    name[CL_NAMELEN] = '\0';
    const char *argv[] = {"CLUSTER", "SETSLOT", slot, action, name};
    s->lstep = step;
    link_send_cmd(s, 5, argv);
    s->expect++;
}

static void legacy_fail(sm_src *s, const char *why) { src_fail(s, SM_FAILED, why); }

/* src_fail's part for the fallback: the batch's references go; why gets
 * the slot the failure may have split. */
static const char *legacy_end(sm_src *s, const char *why, char *buf, size_t cap) {
    for (size_t i = 0; i < s->lk.n; i++) lazyfree_drop(s->lvals[i], 1);
    sm_keys_free(&s->lk);
    snprintf(buf, cap,
             "%s (legacy protocol; slot %u may be split between the nodes: redis-cli --cluster "
             "fix)", why, s->lslot);
    return buf;
}

/* The next slot of the job still mine, from s->lslot: SETSLOT IMPORTING
 * to the target; none left: done. */
static void legacy_next(sm_src *s) {
    while (s->lslot < KEYSLOT_COUNT &&
           !(sm_has_slot(s->job->slots, s->lslot) && cl.slots[s->lslot] == cl.myself))
        s->lslot++;
    if (s->lslot == KEYSLOT_COUNT) {
        sm_job_set_state(s->job, SM_SUCCESS, NULL);
        log_notice("Slot migration %.40s done with the legacy protocol", s->job->name);
        s->job->priv = NULL;
        X.cur = NULL;
        link_close(s);
        maybe_free(s);
        return;
    }
    setslot(s, L_IMPORTING, "IMPORTING", cl.myself->name);
}

/* The next batch of the slot's keys; none left: SETSLOT NODE there. */
static void legacy_batch(sm_src *s) {
    db *d = db_get(0);
    assert(s->lk.n == 0);
    db_slot_keys(d, s->lslot, SM_LEGACY_BATCH, sm_keys_add, &s->lk);
    int64_t now = wall_ms();
    size_t kept = 0;
    for (size_t i = 0; i < s->lk.n; i++) {
        vt_entry *e = db_lookup_notouch(d, s->lk.keys[i], s->lk.lens[i]);
        char err[256];
        sink *out = e ? dump_payload_of(e->val, err, sizeof err) : NULL;
        if (!out) continue; /* its name stays in the batch's blocks */
        long long ttl = 0;
        if (vt_expire(e) != VT_NO_EXPIRE) ttl = vt_expire(e) - now > 0 ? vt_expire(e) - now : 1;
        size_t plen;
        const unsigned char *p = sink_mem_data(out, &plen);
        vbuf b;
        vbuf_init(&b);
        resp_add_array(&b, 5);
        resp_add_bulk_str(&b, "RESTORE-ASKING");
        resp_add_bulk(&b, s->lk.keys[i], s->lk.lens[i]);
        resp_add_bulk_ll(&b, ttl);
        resp_add_bulk(&b, (const char *)p, plen);
        resp_add_bulk_str(&b, "REPLACE");
        link_send_owned(s, b.data, b.len);
        sink_free(out);
        s->expect++;
        obj_incref(e->val);
        s->lk.keys[kept] = s->lk.keys[i];
        s->lk.lens[kept] = s->lk.lens[i];
        s->lvals[kept++] = e->val;
    }
    s->lk.n = kept;
    if (kept) {
        s->lstep = L_BATCH;
        return;
    }
    sm_keys_free(&s->lk);
    if (db_slot_count(d, s->lslot)) { /* only keys that could not be sent */
        legacy_fail(s, "a key of the slot could not be serialized");
        return;
    }
    setslot(s, L_NODE, "NODE", s->job->target);
}

/* The target took the batch: its keys leave here (those still holding
 * the value sent), one DEL propagated. */
static void legacy_batch_done(sm_src *s) {
    db *d = db_get(0);
    arg *del = xmalloc(sizeof *del * (s->lk.n + 1));
    int ndel = 0;
    for (size_t i = 0; i < s->lk.n; i++) {
        vt_entry *e = db_lookup_notouch(d, s->lk.keys[i], s->lk.lens[i]);
        if (e && e->val == s->lvals[i]) {
            db_delete(d, s->lk.keys[i], s->lk.lens[i]);
            del[++ndel] = (arg){s->lk.keys[i], s->lk.lens[i]};
        }
    }
    if (ndel) {
        del[0] = (arg){"DEL", 3};
        cmd_propagate_raw(0, ndel + 1, del);
        server_dirty(ndel);
    }
    free(del);
    s->job->keys += (uint64_t)ndel;
    for (size_t i = 0; i < s->lk.n; i++) lazyfree_drop(s->lvals[i], 1);
    sm_keys_free(&s->lk);
    resume_parked(s); /* they get -ASK now */
}

static void legacy_step_done(sm_src *s) {
    switch (s->lstep) {
    case L_IMPORTING:
        cl.migrating_to[s->lslot] = cl_node_lookup(s->job->target, CL_NAMELEN);
        cl_todo(CL_TODO_SAVE_CONFIG);
        legacy_batch(s);
        break;
    case L_BATCH:
        legacy_batch_done(s);
        if (X.cur == s) legacy_batch(s);
        break;
    case L_NODE: {
        cluster_node *t = cl_node_lookup(s->job->target, CL_NAMELEN);
        if (!t) {
            legacy_fail(s, "the target left the cluster");
            return;
        }
        cl_slot_del(s->lslot);
        cl_slot_add(t, s->lslot);
        cl.migrating_to[s->lslot] = NULL;
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
        s->lslot++;
        legacy_next(s);
        break;
    }
    default: assert(0);
    }
}

/* The legacy protocol from now on (replies still awaited, AUTH's, are
 * counted with the first step's). */
static void legacy_begin(sm_src *s, const char *why) {
    char note[200];
    snprintf(note, sizeof note, "legacy protocol: %s", why);
    log_notice("Slot migration %.40s: %s: moving the slots with the legacy protocol (SETSLOT, "
               "RESTORE-ASKING), one at a time", s->job->name, why);
    s->legacy = 1;
    sm_job_set_state(s->job, SM_STREAMING, note);
    s->lslot = 0;
    legacy_next(s);
}

static void legacy_start(sm_src *s) {
    s->expect = 0; /* ESTABLISH's error was its reply */
    legacy_begin(s, "the target has no atomic slot migration (redis-server 7.0?)");
}

/* ---- failure, cancel ---- */

static void src_fail(sm_src *s, int state, const char *why) {
    if (X.cur != s) return;
    if (s->job->state == SM_PAUSED && state != SM_SUCCESS && s->lost_ms == 0) {
        /* FINISH went: the target may own the slots; the cron waits */
        s->lost_ms = mono_ms();
        log_warning("Slot migration %.40s: %s after FINISH; waiting for the target's claim",
                    s->job->name, why);
        link_close(s);
        return;
    }
    char lwhy[400];
    if (s->legacy) why = legacy_end(s, why, lwhy, sizeof lwhy);
    log_warning("Slot migration %.40s %s: %s", s->job->name,
                state == SM_CANCELLED ? "cancelled" : "failed", why);
    buffering(s, 0);
    sm_job_set_state(s->job, state, why);
    s->job->priv = NULL;
    X.cur = NULL;
    resume_parked(s);
    if (snap_queued(&s->req)) {
        snap_withdraw(&s->req); /* begin never ran: no done comes */
        s->saving = 0;
    }
    if (s->out) { /* the save runs: its writes fail, its done comes */
        shutdown(s->dupfd, SHUT_RDWR);
        snap_cancel(&s->req, why);
    }
    relay_close(s);
    link_close(s); /* the target drops what it loaded */
    maybe_free(s);
}

void sm_src_cancel(sm_job *j, const char *why) {
    sm_src *s = j->priv;
    if (s && X.cur == s) src_fail(s, SM_CANCELLED, why);
}

/* ---- start ---- */

int sm_src_start(const uint8_t *slots, cluster_node *target, char *err, size_t errlen) {
    if (X.cur) {
        snprintf(err, errlen, "ERR A slot migration is already in progress on this node");
        return -1;
    }
    sm_src *s = xcalloc(1, sizeof *s);
    s->dupfd = -1;
    vbuf_init(&s->in);
    vbuf_init(&s->pending);
    struct sockaddr_storage sa;
    if (uv_ip4_addr(target->ip, target->port, (struct sockaddr_in *)&sa) != 0 &&
        uv_ip6_addr(target->ip, target->port, (struct sockaddr_in6 *)&sa) != 0) {
        snprintf(err, errlen, "ERR The target node's address is not known");
        free(s);
        return -1;
    }
    sm_job *j = sm_job_new(SM_EXPORT, NULL, slots);
    memcpy(j->source, cl.myself->name, CL_NAMELEN);
    memcpy(j->target, target->name, CL_NAMELEN);
    j->priv = s;
    s->job = j;
    uv_tcp_init(server.loop, &s->tcp);
    s->tcp.data = s;
    s->open = 1;
    s->conn.data = s;
    X.cur = s;
    int rc = uv_tcp_connect(&s->conn, &s->tcp, (struct sockaddr *)&sa, on_connect);
    if (rc != 0) {
        src_fail(s, SM_FAILED, uv_strerror(rc));
        return 0; /* the job is in the log, failed */
    }
    log_notice("Slot migration %.40s to %.40s started", j->name, j->target);
    return 0;
}

/* ---- the loop ---- */

/* After a PONG: 1 when the target is close behind (what it has not
 * applied, sent since the PING it answered or still here, is short), or
 * has stopped getting closer but is less than SM_HANDOFF_FORCE_LAG
 * behind; -1 when it stopped getting closer further behind (the
 * migration failed); else 0. */
static int caught_up(sm_src *s) {
    if (s->in_multi || !s->open || s->ping_out) return 0;
    uint64_t lag = s->sent - s->acked + s->pending.len;
    for (const sm_block *b = s->full; b; b = b->next) lag += b->len;
    if (lag < SM_HANDOFF_LAG) return 1;
    long long now = mono_ms();
    if (lag < s->min_lag) {
        s->min_lag = lag;
        s->progress_ms = now;
    }
    if (now - s->progress_ms <= SM_CATCHUP_MS) return 0;
    if (lag < SM_HANDOFF_FORCE_LAG) return 1;
    char why[160];
    snprintf(why, sizeof why, "the target does not catch up with the writes to the slots "
             "(%llu bytes behind)", (unsigned long long)lag);
    src_fail(s, SM_FAILED, why);
    return -1;
}

static void src_before_sleep(void) {
    sm_src *s = X.cur;
    if (s && !s->legacy && s->job->state == SM_STREAMING) {
        flush_pending(s, 0);
        int up = caught_up(s);
        if (up > 0) {
            handoff_start(s);
        } else if (up == 0 && !s->ping_out && s->open) {
            s->ping_at = s->sent; /* its PONG: the target applied this much */
            s->ping_out = 1;
            const char *argv[] = {"CLUSTER", "SYNCSLOTS", "PING"};
            link_send_cmd(s, 3, argv);
        }
    }
    sm_drop_step();
}

static void src_cron(void) {
    sm_src *s = X.cur;
    if (!s) return;
    if (!cl_node_is_primary(cl.myself)) {
        src_fail(s, SM_FAILED, "this node is no longer a primary");
        return;
    }
    if (s->lost_ms > 0) {
        /* after FINISH: the target's claim, or the timeout */
        cluster_node *t = cl_node_lookup(s->job->target, CL_NAMELEN);
        unsigned first = 0;
        while (first < KEYSLOT_COUNT && !sm_has_slot(s->job->slots, first)) first++;
        if (t && first < KEYSLOT_COUNT && cl.slots[first] == t) {
            handoff_done(s);
            return;
        }
        if (mono_ms() - s->lost_ms > server.cfg.compat.cluster_node_timeout) {
            s->lost_ms = -1; /* src_fail's path for a failure now */
            src_fail(s, SM_FAILED, "the link was lost at the handoff and the target did not claim the slots");
        }
    }
}

static void src_client_closed(client *c) {
    sm_src *s = X.cur;
    if (!s) return;
    for (size_t i = 0; i < s->nparked; i++)
        if (s->parked[i] == c) s->parked[i] = NULL;
}

void sm_src_init(void) {
    static const hooks h = {.name = "slotmig",
                            .before_command = src_before_command,
                            .before_sleep = src_before_sleep,
                            .cron = src_cron,
                            .client_closed = src_client_closed};
    hooks_register(&h);
}
