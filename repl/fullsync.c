/* fullsync: the snapshot of a full resynchronization (see repl_int.h).
 *
 * Replicas that asked for a full sync wait in F.wait (RS_WAIT_BGSAVE_START,
 * a "\n" keepalive every second), and one request for them waits in the
 * save queue (savequeue.h: F.req) until a save may start: none runs (a
 * BGSAVE or AOF rewrite makes them wait, as Redis), and, as its ready
 * predicate says, no payload of ours is still being sent, the output of
 * one at least is drained, and for a diskless save
 * repl-diskless-sync-delay has passed since the first one came or
 * repl-diskless-sync-max-replicas wait. Then the queue calls sync_begin,
 * on the main thread between two commands: every drained replica gets its
 * cut (primary_sync_cut) and one save starts for all of them:
 *
 *  - diskless (repl-diskless-sync yes and every one said capa eof): the
 *    save (forkless, or a fork child with bgsave-method fork) writes into
 *    a fan-out sink (rdb_io.h) over a dup() of each replica's socket:
 *    "+FULLRESYNC <replid> <offset>\r\n$EOF:<mark>\r\n" <RDB> <mark>. One
 *    replica failing is dropped, the others go on;
 *  - else the save writes a temp file, then a sender thread writes
 *    "+FULLRESYNC ...\r\n$<len>\r\n" and the file to each socket (the
 *    replicas get "\n" keepalives meanwhile).
 *
 * A replica that asked for the functions only (REPLCONF rdb-filter-only)
 * gets a save of its own, diskless, which serializes no table.
 *
 * When the payload is out, primary_sync_done() puts each replica online.
 * The main thread never writes to a socket whose payload is in flight (its
 * replies are held, primary.c) and never blocks on one: the keepalives are
 * single non-blocking writes. Dropping a replica whose payload is in flight
 * shuts its socket down (fullsync_drop), so the thread's write on the dup
 * fails.
 *
 * A TLS replica (c->tls) cannot be written by those threads (a session is
 * main thread only): its target fd is the writer's end of a relay
 * (tls_relay.h) instead of a dup, and the relay moves the bytes into the
 * session on the loop. Its primary_sync_done waits for the relay to have
 * handed over the last byte (end of file on the socketpair, after the
 * save closed the writer's end), so the stream released after it follows
 * the payload; the target outlives the save until then (t->finished).
 * Keepalives to a TLS replica go through net_write_direct.
 *
 * Threads: the serializer (or the fork child) owns F.out between
 * sync_begin and on_save_done; the sender thread owns its
 * fan-out sink between its start and F.sent (uv_async_t); the main thread
 * reads their per-target errors after they are done. Everything else here
 * is main thread only. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "rdb_io.h"
#include "savequeue.h"
#include "log.h"
#include "net.h"
#include "util.h"
#include "fullsync_priv.h"
#include "repl_int.h"
#include "tls_relay.h"

struct fs_target {
    replica_link *rl;         /* NULL once its client closed */
    int fd;                   /* dup of its socket (or the relay's writer
                                 end) while a save serves it */
    tls_relay *relay;         /* a TLS replica's relay, else NULL */
    int finished;             /* the save is over, ok: the relay still
                                 drains (t is no longer in F.cur) */
    int eof;                  /* EOF-marked payload (else $<len>) */
    int sending;              /* the sender thread writes its payload */
    size_t idx;               /* its index in the save's fan-out sink */
    char prefix[160];         /* "+FULLRESYNC <replid> <offset>\r\n" or "" */
};

enum { FS_IDLE = 0, FS_SOCKET, FS_DISK_SAVE, FS_DISK_SEND };

static struct {
    fs_target **wait;         /* waiting for a save */
    size_t nwait, capwait;
    int64_t wait_since_ms;    /* mono ms the first of them came */
    int64_t last_keepalive_ms;
    int state;                /* FS_* */
    snap_req req;             /* the save queue's request for F.wait */
    fs_target **cur;          /* the running save's replicas */
    size_t ncur;
    sink *out;                /* the save's sink (fan-out or temp file) */
    char tmp[64];             /* the disk path's temp file */
    /* the sender thread (disk path) */
    pthread_t sender;
    sink *send_out;           /* its fan-out, the thread's while it runs */
    int send_status;          /* written by the thread before F.sent */
    char send_err[256];
    uv_async_t sent;
    int sent_init;
} F;

int fullsync_target_eof(const fs_target *t) { return t && t->eof; }
int fullsync_target_sending(const fs_target *t) { return t && t->sending; }
int fullsync_in_progress(void) { return F.state != FS_IDLE; }
void fullsync_info(vbuf *b) { (void)b; }

static void wait_remove(size_t i) {
    memmove(&F.wait[i], &F.wait[i + 1], (F.nwait - i - 1) * sizeof *F.wait);
    F.nwait--;
}

void fullsync_request(replica_link *rl) {
    fs_target *t = xcalloc(1, sizeof *t);
    t->rl = rl;
    t->fd = -1;
    rl->target = t;
    if (F.nwait == F.capwait) {
        F.capwait = F.capwait ? F.capwait * 2 : 4;
        F.wait = xrealloc(F.wait, F.capwait * sizeof *F.wait);
    }
    if (!F.nwait) F.wait_since_ms = mono_ms();
    F.wait[F.nwait++] = t;
    /* the save starts before the loop sleeps (the queue's SNAP_QUEUE), not
     * inside the PSYNC that asked for it */
    char err[256];
    (void)snap_submit(&F.req, SNAP_QUEUE, err, sizeof err); /* never fails: it waits */
}

void fullsync_drop(replica_link *rl) {
    fs_target *t = rl->target;
    if (!t) return;
    rl->target = NULL;
    t->rl = NULL;
    for (size_t i = 0; i < F.nwait; i++) {
        if (F.wait[i] != t) continue;
        wait_remove(i);
        free(t);
        if (!F.nwait) snap_withdraw(&F.req);
        return;
    }
    /* in the running save: the thread's next write on the dup fails (on a
     * relay's socketpair, once its reading end is closed) */
    tls_relay_free(t->relay);
    t->relay = NULL;
    if (t->fd >= 0) shutdown(t->fd, SHUT_RDWR);
    if (t->finished) free(t); /* the save is over: nobody else has it */
}

/* A relay ended (main thread): after the save, its replica's sync is
 * done now (ok: every byte went to the session); during it, the relay
 * failed: the replica fails at once and the save's writes to it fail
 * (EPIPE on the socketpair), finish_targets then frees t. */
static void on_relay_done(void *priv, int ok, const char *why) {
    fs_target *t = priv;
    tls_relay_free(t->relay);
    t->relay = NULL;
    replica_link *rl = t->rl;
    if (!t->finished) {
        if (ok) return; /* the writer's end was shut down: the save's error follows */
        if (t->fd >= 0) shutdown(t->fd, SHUT_RDWR);
        if (rl) {
            t->rl = NULL;
            primary_sync_done(rl, 0, why); /* clears rl->target, closes the client */
        }
        return;
    }
    if (rl) {
        t->rl = NULL;
        primary_sync_done(rl, ok, why); /* reads t (eof) before it goes */
    }
    free(t);
}

/* The target fd of a save for rl: a dup of its socket, or for a TLS
 * replica the writer's end of a new relay; -1 logged (the target then
 * fails at its first write). */
static int target_fd(fs_target *t) {
    client *c = t->rl->c;
    if (!c->tls) {
        int fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 0);
        if (fd < 0) log_warning("Full sync: dup of a replica's socket: %s", strerror(errno));
        return fd;
    }
    char err[256];
    int fd = -1;
    t->relay = tls_relay_start(c, &fd, on_relay_done, t, err, sizeof err);
    if (!t->relay) {
        log_warning("Full sync: relay to a TLS replica: %s", err);
        return -1;
    }
    return fd;
}

/* Ends the running save for every replica it served: done (ok), or failed
 * with `why`, or with its own error in `fan` (the fan-out sink that wrote
 * the payloads; NULL when there are no per-target errors to read). */
static void finish_targets(int ok, const char *why, const sink *fan) {
    for (size_t i = 0; i < F.ncur; i++) {
        fs_target *t = F.cur[i];
        if (t->fd >= 0) close(t->fd); /* a relay reads its end of file */
        t->fd = -1;
        t->sending = 0;
        replica_link *rl = t->rl;
        const char *own = rl && fan ? sink_fanout_error(fan, t->idx) : "";
        if (rl && ok && !own[0] && t->relay) {
            t->finished = 1; /* done once the relay drained (on_relay_done) */
            continue;
        }
        tls_relay_free(t->relay);
        t->relay = NULL;
        if (rl) {
            t->rl = NULL;
            if (!ok) primary_sync_done(rl, 0, why);
            else if (own[0]) primary_sync_done(rl, 0, own);
            else primary_sync_done(rl, 1, NULL);
        }
        free(t);
    }
    F.ncur = 0;
    F.state = FS_IDLE;
}

/* ---- the disk path's sender thread ---- */

static void *sender_main(void *unused) {
    (void)unused;
    char buf[64 * 1024];
    int fd = open(F.tmp, O_RDONLY | O_CLOEXEC);
    F.send_status = 0;
    if (fd < 0) {
        snprintf(F.send_err, sizeof F.send_err, "%s: open: %s", F.tmp, strerror(errno));
        F.send_status = -1;
    }
    while (F.send_status == 0) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            snprintf(F.send_err, sizeof F.send_err, "%s: read: %s", F.tmp, strerror(errno));
            F.send_status = -1;
        } else if (n == 0) {
            break;
        } else if (sink_write(F.send_out, buf, (size_t)n) != 0) {
            snprintf(F.send_err, sizeof F.send_err, "%s", sink_error(F.send_out));
            F.send_status = -1;
        }
    }
    if (fd >= 0) close(fd);
    uv_async_send(&F.sent);
    return NULL;
}

static void on_sent(uv_async_t *a) {
    (void)a;
    pthread_join(F.sender, NULL);
    unlink(F.tmp);
    finish_targets(F.send_status == 0, F.send_err, F.send_out);
    sink_free(F.send_out);
    F.send_out = NULL;
}

/* The temp file is written: send it to every replica still there. */
static void start_sending(uint64_t bytes) {
    F.send_out = sink_fanout_open("replicas", server.cfg.repl_timeout * 1000);
    size_t n = 0;
    for (size_t i = 0; i < F.ncur; i++) {
        fs_target *t = F.cur[i];
        if (!t->rl) continue;
        char prefix[256];
        int len = snprintf(prefix, sizeof prefix, "%s$%llu\r\n", t->prefix,
                           (unsigned long long)bytes);
        t->idx = n++;
        t->sending = 1;
        char name[96];
        snprintf(name, sizeof name, "replica %s", t->rl->c->addr);
        sink_fanout_add(F.send_out, t->fd, name, prefix, (size_t)len);
    }
    F.state = FS_DISK_SEND;
    int rc = n ? pthread_create(&F.sender, NULL, sender_main, NULL) : -1;
    if (rc != 0) {
        unlink(F.tmp);
        finish_targets(0, n ? "can't start the sender thread" : "no replica left", NULL);
        sink_free(F.send_out);
        F.send_out = NULL;
    }
}

/* ---- the save ---- */

/* The replication save ended (the save queue calls back, main thread), or
 * never started (sync_begin or the save's start failed). */
static void on_save_done(void *priv, const snap_result *r) {
    int status = r->status;
    const char *err = r->err;
    (void)priv;
    sink *out = F.out;
    F.out = NULL;
    if (!r->started) {
        sink_free(out);
        if (F.state == FS_DISK_SAVE) unlink(F.tmp);
        finish_targets(0, err, NULL);
    } else if (F.state == FS_SOCKET) {
        if (status == 0) log_notice("Diskless replication payload sent: %llu bytes",
                                    (unsigned long long)r->bytes);
        /* a fork child's copy of the sink had the per-replica errors */
        finish_targets(status == 0, err, r->method == SNAP_FORK ? NULL : out);
        sink_free(out);
    } else {
        /* the file is complete (a fork child wrote it through its own copy
         * of the sink: its size is the file's, not the sink's count) */
        sink_free(out);
        struct stat st;
        if (status == 0 && stat(F.tmp, &st) != 0) {
            status = -1;
            err = strerror(errno);
        }
        if (status != 0) {
            unlink(F.tmp);
            finish_targets(0, err, NULL);
        } else {
            start_sending((uint64_t)st.st_size);
        }
    }
}

static int drained(const client *c) { return net_pending_output(c) == 0 && !c->writing; }

/* The filter of the next save: the first drained replica's (a save serves
 * only replicas that asked for the same payload: all keys, or the
 * functions only). */
static int next_filter(void) {
    for (size_t i = 0; i < F.nwait; i++)
        if (drained(F.wait[i]->rl->c)) return F.wait[i]->rl->functions_only;
    return F.nwait ? F.wait[0]->rl->functions_only : 0;
}

/* 1 when the next save goes diskless, EOF-marked: a filtered one always
 * (primary.c refused it without capa eof), else with repl-diskless-sync
 * when each waiting replica said capa eof. */
static int sync_eof(void) {
    if (next_filter()) return 1;
    int eof = server.cfg.repl_diskless_sync;
    for (size_t i = 0; i < F.nwait; i++)
        if (!F.wait[i]->rl->functions_only) eof &= F.wait[i]->rl->capa_eof;
    return eof;
}

/* The request's ready predicate: whether the save may start (see the top). */
static int sync_ready(void *priv) {
    (void)priv;
    if (F.state != FS_IDLE || !F.nwait) return 0;
    if (sync_eof()) {
        int max = server.cfg.repl_diskless_sync_max_replicas;
        int64_t waited = mono_ms() - F.wait_since_ms;
        if (waited < (int64_t)server.cfg.repl_diskless_sync_delay * 1000 &&
            !(max > 0 && F.nwait >= (size_t)max))
            return 0;
    }
    for (size_t i = 0; i < F.nwait; i++)
        if (drained(F.wait[i]->rl->c)) return 1;
    return 0;
}

/* The save starts (the queue's begin, once sync_ready said so): the
 * drained replicas become F.cur, each gets its cut now, and t names the
 * sink the save writes. Those still waiting keep a request queued. */
static int sync_begin(void *priv, snap_target *t, char *err, size_t errlen) {
    (void)priv;
    int eof = sync_eof();
    int functions_only = next_filter();
    F.cur = xrealloc(F.cur, F.nwait * sizeof *F.cur);
    F.ncur = 0;
    for (size_t i = 0; i < F.nwait;) {
        if (drained(F.wait[i]->rl->c) && F.wait[i]->rl->functions_only == functions_only) {
            F.cur[F.ncur++] = F.wait[i];
            wait_remove(i);
        } else {
            i++;
        }
    }
    assert(F.ncur > 0); /* sync_ready */
    if (F.nwait) {
        F.wait_since_ms = mono_ms();
        (void)snap_submit(&F.req, SNAP_QUEUE, err, errlen); /* waits */
    }
    char mark[REPL_ID_LEN + 1];
    sink *out;
    if (eof) {
        repl_new_id(mark);
        out = sink_fanout_open("replicas", server.cfg.repl_timeout * 1000);
        sink_fanout_set_suffix(out, mark, REPL_ID_LEN);
    } else {
        snprintf(F.tmp, sizeof F.tmp, "temp-%d-repl.rdb", (int)getpid());
        out = sink_file_open(F.tmp, NULL, err, errlen);
        if (!out) return -1; /* on_save_done fails F.cur */
    }
    for (size_t i = 0; i < F.ncur; i++) {
        fs_target *ft = F.cur[i];
        replica_link *rl = ft->rl;
        ft->eof = eof;
        ft->idx = i;
        ft->fd = target_fd(ft);
        primary_sync_cut(rl);
        if (rl->old_sync) ft->prefix[0] = '\0';
        else snprintf(ft->prefix, sizeof ft->prefix, "+FULLRESYNC %s %lld\r\n", R.replid, R.offset);
        if (eof) {
            char prefix[sizeof ft->prefix + 64];
            int len = snprintf(prefix, sizeof prefix, "%s$EOF:%s\r\n", ft->prefix, mark);
            char name[96];
            snprintf(name, sizeof name, "replica %s", rl->c->addr);
            /* a failed dup makes a target whose first write fails */
            sink_fanout_add(out, ft->fd, name, prefix, (size_t)len);
        }
    }
    F.state = eof ? FS_SOCKET : FS_DISK_SAVE;
    F.out = out;
    /* where the stream after the cut goes on: the master link's database on
     * a chained replica (it proxies bytes it cannot prefix with SELECT),
     * else any (the stream restarts with a SELECT) */
    rdb_repl_aux ra = {.set = 1, .stream_db = server.upstream ? replica_stream_db() : 0,
                       .offset = R.offset};
    memcpy(ra.id, R.replid, sizeof ra.id);
    t->u.replicas.out = out;
    t->u.replicas.repl = ra;
    t->u.replicas.functions_only = functions_only;
    log_notice("Starting BGSAVE for SYNC with target: %s (%zu replicas)%s",
               eof ? "replicas sockets" : "disk", F.ncur,
               functions_only ? ", functions only" : "");
    return 0;
}

/* One "\n" to c, skipped while its output is busy: a TLS replica's
 * through its session (net_write_direct), a plain one's as one
 * non-blocking write on fd (its socket, or its dup; check 0: written even
 * when c is not drained, the disk save's replicas as before). */
static void keepalive_one(client *c, int fd, int check) {
    if (c->tls) {
        if (drained(c)) (void)net_write_direct(c, "\n", 1); /* a failure closes c */
    } else if ((!check || drained(c)) && fd >= 0 && write(fd, "\n", 1) < 0) {
        /* EAGAIN: the next second; a dead peer shows on its reads */
    }
}

/* "\n" to the replicas waiting for their payload, as Redis. While a disk
 * save runs no thread writes to its replicas yet (a relay carries
 * nothing), so theirs go the same way. */
static void keepalive(void) {
    for (size_t i = 0; i < F.nwait; i++) keepalive_one(F.wait[i]->rl->c, F.wait[i]->rl->c->fd, 1);
    if (F.state != FS_DISK_SAVE) return;
    for (size_t i = 0; i < F.ncur; i++)
        if (F.cur[i]->rl && F.cur[i]->fd >= 0) keepalive_one(F.cur[i]->rl->c, F.cur[i]->fd, 0);
}

void fullsync_cron(void) {
    int64_t now = mono_ms();
    if (now - F.last_keepalive_ms >= 1000) {
        F.last_keepalive_ms = now;
        keepalive();
    }
}

void fullsync_init(void) {
    uv_async_init(server.loop, &F.sent, on_sent);
    uv_unref((uv_handle_t *)&F.sent);
    F.sent_init = 1;
    F.req = (snap_req){.kind = SNAP_TO_REPLICAS, .ready = sync_ready, .begin = sync_begin,
                       .done = on_save_done};
}
