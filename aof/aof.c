/* aof: the append-only file, main-thread side (see aof.h). */
#include "aof.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db.h"
#include "restore.h"
#include "savequeue.h"
#include "snap.h"
#include "syncsave.h"
#include "rewrite.h"
#include "function.h"
#include "introspect.h"
#include "log.h"
#include "multi.h"
#include "hooks.h"
#include "net.h"
#include "propagate.h"
#include "resp.h"
#include "util.h"
#include "aof_gate.h"
#include "aof_load.h"
#include "manifest.h"
#include "upgrade.h"
#include "writer.h"

static struct {
    int on;                   /* commands are being appended */
    aofw *w;
    vbuf buf;                 /* commands of this loop iteration */
    int last_db;              /* database of the last command in the stream */
    uint64_t submitted;       /* bytes handed to the writer so far */
    uint64_t written, synced; /* the writer's progress, as last reported */
    uint64_t fsynced;         /* the writer's synced count (synced is that,
                                 once the AOF has a base) */
    uint64_t writer_origin;   /* `submitted` when the current writer started */
    uint64_t cmd_start;       /* stream offset when the running command began */
    client *resuming;         /* the parked client being resumed */
    aof_manifest m;           /* as on disk (or about to be, while enabling) */
    int have_base;            /* m lists a base: the AOF is complete on disk */
    /* sizes for INFO and auto rewrite */
    uint64_t base_size;
    uint64_t incr_size_before; /* INCR bytes in files before the current one */
    uint64_t cur_incr_start;   /* `submitted` when the current INCR began */
    uint64_t size_after_rewrite;
    /* rewrite: the base is a request of the save queue (savequeue.h),
     * waiting there while aof_rewrite_scheduled */
    int rewriting;
    snap_req req;
    uint64_t rewrite_gen;     /* the rewrite's number, its request's priv;
                                 turning the AOF off bumps it, so a
                                 completion that arrives later is
                                 recognised as stale */
    int64_t rewrite_start_us;
    long long last_rewrite_sec;
    int last_rewrite_ok;
    char *rw_incr;            /* INCR started at the rewrite's epoch */
    char *rw_base;            /* BASE being written */
    int rewrites;             /* successful rewrites */
    uint64_t publish_seq;     /* rewrites whose manifest went to the writer */
    uint64_t publish_wait;    /* the one the running rewrite waits for, or 0 */
    int64_t retry_after_ms;   /* mono ms: no automatic rewrite before then */
    int rw_failures;          /* consecutive failed rewrites */
    char base_error[256];     /* why the first base failed ("" when not) */
    size_t cmd_reply_start;   /* reply length when the running command began */
    char tmp[64];
} A;

static char *aof_path(const char *name) {
    size_t n = strlen(server.cfg.appenddirname) + strlen(name) + 2;
    char *p = xmalloc(n);
    snprintf(p, n, "%s/%s", server.cfg.appenddirname, name);
    return p;
}

/* The writer's counters as last taken (take_progress): raw, since the
 * writer started. */
static uint64_t seen_written, seen_synced;

/* atomic: the writer thread stores the seq of each manifest it made durable */
static _Atomic uint64_t published_seq;

static void on_progress(void *priv);
static void finish_rewrite(void);
static int rewrite_ready(void *priv);
static void schedule_rewrite(void);
static int start_rewrite(void *priv, snap_target *t, char *err, size_t errlen);
static void on_rewrite_done(void *priv, const snap_result *r);
static const hooks aof_hooks;

void aof_init(void) {
    A.last_db = -1;
    A.last_rewrite_sec = -1;
    A.last_rewrite_ok = 1;
    A.req = (snap_req){.kind = SNAP_TO_AOF_BASE, .ready = rewrite_ready, .begin = start_rewrite,
                       .done = on_rewrite_done};
    aofm_init(&A.m);
    aof_register_commands();
    hooks_register(&aof_hooks);
}

/* ---- feeding ---- */

static uint64_t stream_end(void) { return A.submitted + A.buf.len; }
static int always(void) { return A.on && server.cfg.appendfsync == FSYNC_ALWAYS; }

static void append_command(int argc, const arg *argv) {
    char hdr[32];
    vbuf_append(&A.buf, hdr, (size_t)snprintf(hdr, sizeof hdr, "*%d\r\n", argc));
    for (int i = 0; i < argc; i++) {
        vbuf_append(&A.buf, hdr, (size_t)snprintf(hdr, sizeof hdr, "$%zu\r\n", argv[i].len));
        vbuf_append(&A.buf, argv[i].p, argv[i].len);
        vbuf_append(&A.buf, "\r\n", 2);
    }
}

/* The AOF's propagation consumer (propagate.h): the command as it must be
 * replayed, d its definition (for the keys it leaves in flight). */
static void aof_feed(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv) {
    (void)priv;
    assert(A.on);
    if (dbid != A.last_db) {
        char num[16];
        int n = snprintf(num, sizeof num, "%d", dbid);
        arg sel[2] = {{"SELECT", 6}, {num, (size_t)n}};
        append_command(2, sel);
        A.last_db = dbid;
    }
    append_command(argc, argv);
    if (always()) { /* its keys are in flight from the end of its batch */
        if (d->flags & CMD_WRITE) gate_inflight_pend_args(dbid, d, argc, argv);
        if (!server.current_client) gate_inflight_commit(stream_end()); /* no batch */
    }
}

/* What the writer still owes: under `always` bytes not yet fsynced (a slow
 * fsync is the disk falling behind), otherwise bytes not yet written. */
static uint64_t backlog(void) { return stream_end() - (always() ? A.fsynced : A.written); }

void aof_before_sleep(void) {
    if (!A.on || A.buf.len == 0) return;
    A.submitted += A.buf.len;
    aofw_submit(A.w, &A.buf);
}

/* ---- holds and parking (rules in aof.h, data in aof_gate.c) ---- */

/* A script (EVAL, FCALL and their forms): it may read keys it did not
 * declare, so its reply waits for every write in flight. */
static int is_script(const cmd_def *d) {
    return d->proc == cmd_eval || d->proc == cmd_evalsha || d->proc == cmd_eval_ro ||
           d->proc == cmd_evalsha_ro || d->proc == cmd_fcall || d->proc == cmd_fcall_ro;
}

/* A script that may write (not the _RO forms) adds to the backlog like a
 * write command. */
static int may_write(const client *c, const cmd_def *d) {
    return (d->flags & CMD_WRITE) || multi_exec_writes(c, d) ||
           (is_script(d) && !(d->flags & CMD_READONLY));
}

int aof_before_command(client *c, const cmd_def *d) {
    A.cmd_start = stream_end();
    A.cmd_reply_start = c->reply.len;
    if (!A.on || !may_write(c, d)) return 0;
    int queue_ahead = gate_parked_count() > 0 && A.resuming != c;
    if (!queue_ahead && backlog() <= (uint64_t)server.cfg.aof_max_backlog) return 0;
    gate_park(c);
    return 1;
}


/* The offset a command reading (db, argc, argv) must wait for. */
static uint64_t read_wait(int dbid, const cmd_def *d, int argc, const arg *argv) {
    if (is_script(d)) return gate_inflight_max() > A.synced ? gate_inflight_max() : 0;
    return gate_inflight_wait_args(dbid, d, argc, argv, A.synced);
}

/* The commands an EXEC ran: its reply waits for what each of them reads. */
static void exec_cmd_wait(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv) {
    uint64_t *wait = priv;
    uint64_t w = read_wait(dbid, d, argc, argv);
    if (w > *wait) *wait = w;
}

/* The offset c's replies wait for (0: none). */
static uint64_t hold_offset(const client *c) {
    const aof_client *ac = c->aof;
    return ac ? ac->hold_offset : 0;
}

void aof_after_command(client *c, const cmd_def *d) {
    if (!always()) return;
    int was_held = hold_offset(c) > A.synced;
    uint64_t wait = read_wait(c->db, d, c->argc, c->argv);
    if (d->proc == cmd_exec) multi_for_each_ran(c, exec_cmd_wait, &wait);
    if (stream_end() > A.cmd_start) {
        /* what it logged (aof_feed pended the keys, a script's and an
         * EXEC's commands included) is durable with the end of its batch */
        gate_inflight_commit(stream_end());
        wait = stream_end();
    }
    /* the master's replies are dropped, a closed client's never sent:
     * none to hold */
    if (c->flags & (CLIENT_MASTER | CLIENT_CLOSING)) return;
    if (wait <= hold_offset(c)) return;
    aof_client *ac = gate_client(c);
    ac->hold_offset = wait;
    /* where the held replies begin, to answer them with an error if the
     * first base fails (fail_held) */
    if (!was_held && wait > A.synced) ac->hold_reply_at = A.cmd_reply_start;
}

int aof_reply_held(const client *c) { return always() && hold_offset(c) > A.synced; }

void aof_client_closed(client *c) {
    gate_unpark(c);
    gate_client_free(c);
}

static void release_held(void) {
    for (client *c = server.clients; c; c = c->next) {
        if ((c->flags & CLIENT_REPLY_HELD) && !aof_reply_held(c)) {
            c->flags &= ~CLIENT_REPLY_HELD;
            net_want_write(c);
        }
    }
}

static void resume_parked(int all) {
    client *c;
    /* Resume as soon as there is room, one client at a time: each resumed
     * write refills the backlog, so clients are paced by the disk in turn
     * instead of waiting for a large drain. */
    while ((all || backlog() <= (uint64_t)server.cfg.aof_max_backlog) &&
           (c = gate_unpark_next()) != NULL) {
        A.resuming = c;
        net_process_input(c);
        A.resuming = NULL;
        net_update_reading(c);
    }
}

/* Number of whole RESP2 replies in p[0..n) (as verso writes them). */
static size_t count_replies(const char *p, size_t n) {
    size_t count = 0, i = 0;
    while (i < n) {
        long long need = 1;
        while (need > 0) {
            const char *nl = i < n ? memchr(p + i, '\n', n - i) : NULL;
            if (!nl) return count;
            char type = p[i];
            long long v = strtoll(p + i + 1, NULL, 10);
            i = (size_t)(nl - p) + 1;
            need--;
            if (type == '$' && v >= 0) i += (size_t)v + 2;
            else if (type == '*' && v > 0) need += v;
        }
        count++;
    }
    return count;
}

/* The first base failed (always): the writes whose replies wait for it are
 * not durable. Their replies, and those queued behind them on the same
 * connection, become `msg` (one error per reply), and the clients are
 * released instead of waiting for a base that may never come. */
static void fail_held(const char *msg) {
    for (client *c = server.clients; c; c = c->next) {
        aof_client *ac = c->aof;
        if (!ac || ac->hold_offset <= A.synced) continue;
        assert(ac->hold_reply_at <= c->reply.len);
        size_t n = count_replies(c->reply.data + ac->hold_reply_at,
                                 c->reply.len - ac->hold_reply_at);
        c->reply.len = ac->hold_reply_at;
        for (size_t i = 0; i < n; i++) resp_add_error(&c->reply, msg);
        ac->hold_offset = 0;
    }
    gate_inflight_clear(); /* reads no longer wait for those writes */
    release_held();
    net_flush_all();
}

/* Takes the writer's progress: the offsets, what is durable now, and the
 * held replies that may go (their clients are queued for writing). */
static void take_progress(void) {
    aofw_stats st;
    aofw_get_stats(A.w, &st);
    int64_t write_us, fsync_us; /* the latency monitor's AOF events */
    aofw_take_latency(A.w, &write_us, &fsync_us);
    latency_add_us("aof-write", write_us);
    if (server.cfg.appendfsync == FSYNC_ALWAYS) latency_add_us("aof-fsync-always", fsync_us);
    seen_written = st.written;
    seen_synced = st.synced;
    A.written = A.writer_origin + st.written;
    A.fsynced = A.writer_origin + st.synced;
    /* Until the AOF has a base and a manifest on disk nothing in it would be
     * found after a crash: nothing counts as durable yet. */
    if (A.have_base) A.synced = server.cfg.appendfsync == FSYNC_ALWAYS ? A.fsynced : A.written;
    gate_inflight_synced(A.synced);
    release_held();
}

/* The writer finished a batch (runs on the loop). */
static void on_progress(void *priv) {
    (void)priv;
    if (!A.w) return;
    take_progress();
    if (A.publish_wait && atomic_load(&published_seq) >= A.publish_wait) {
        A.publish_wait = 0;
        finish_rewrite();
    }
    resume_parked(0);
    net_flush_all();
}

/* Before the loop sleeps (the hook; it then flushes every client): an fsync
 * that ended during this iteration releases its held replies now, with this
 * iteration's replies, instead of when the loop next polls and reaches the
 * writer's wake-up (after the sockets ready before it: about one more
 * iteration under load). Parked clients and rewrites wait for on_progress. */
static void aof_hook_before_sleep(void) {
    if (A.w && always()) {
        uint64_t written, synced;
        aofw_progress(A.w, &written, &synced);
        if (synced != seen_synced || written != seen_written) take_progress();
    }
    aof_before_sleep();
}

static const char *aof_write_gate(void) {
    if (!A.w) return NULL;
    static char msg[384];
    if (A.base_error[0]) { /* on, but no base could be written */
        snprintf(msg, sizeof msg, "MISCONF Errors writing to the AOF file: %s", A.base_error);
        return msg;
    }
    aofw_stats st;
    aofw_get_stats(A.w, &st);
    if (st.write_ok) return NULL;
    snprintf(msg, sizeof msg, "MISCONF Errors writing to the AOF file: %s", st.last_error);
    return msg;
}

/* ---- files ---- */

/* Opens an INCR file for appending: `fresh` empties a file of that name
 * left by a crash before any manifest listed it. */
static int open_incr(const char *name, int fresh, char *err, size_t errlen) {
    char *path = aof_path(name);
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : 0), 0644);
    if (fd < 0) snprintf(err, errlen, "Can't open the append-only file %s: %s", path, strerror(errno));
    free(path);
    return fd;
}

static uint64_t file_size(const char *name) {
    char *path = aof_path(name);
    struct stat sb;
    uint64_t n = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
    free(path);
    return n;
}

static int make_dir(char *err, size_t errlen) {
    if (mkdir(server.cfg.appenddirname, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "Can't create the append-only directory %s: %s",
                 server.cfg.appenddirname, strerror(errno));
        return -1;
    }
    return 0;
}

static int start_writer(int fd, char *err, size_t errlen) {
    A.w = aofw_start(server.loop, fd, server.cfg.appendfsync, on_progress, NULL, err, errlen);
    if (!A.w) {
        close(fd);
        return -1;
    }
    A.on = 1;
    A.last_db = -1;
    A.writer_origin = A.submitted; /* the writer counts from 0 */
    A.written = A.synced = A.fsynced = A.submitted;
    seen_written = seen_synced = 0;
    prop_add_data(aof_feed, NULL); /* messages (PUBLISH) are not logged */
    return 0;
}

/* ---- manifest publication, on the writer thread ----
 * A manifest is saved (temp file, fsync, rename, directory fsync) by the
 * writer thread, in order with the stream: before the first byte of a new
 * INCR file, or after a rewrite's base, followed by deleting the files the
 * new manifest no longer lists. The job owns copies of everything. */

typedef struct manifest_job {
    aofw *w;           /* the writer whose fsync threads remove the files */
    uint64_t seq;      /* 0, or the rewrite's publication number */
    aof_manifest m;
    char *dir, *filename;
    char **unlink;
    int nunlink;
} manifest_job;

static int manifest_job_fn(void *jobarg, int run) {
    manifest_job *j = jobarg;
    if (!run) {
        aofm_free(&j->m);
        for (int i = 0; i < j->nunlink; i++) free(j->unlink[i]);
        free(j->unlink);
        free(j->dir);
        free(j->filename);
        free(j);
        return 0;
    }
    char err[512];
    if (aofm_save(j->dir, j->filename, &j->m, err, sizeof err) != 0) {
        log_warning("Can't write the AOF manifest: %s", err);
        return EIO;
    }
    if (j->seq) atomic_store(&published_seq, j->seq);
    /* The files it no longer lists: removed by an fsync thread, so the
     * writer goes on writing meanwhile. */
    for (int i = 0; i < j->nunlink; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", j->dir, j->unlink[i]);
        aofw_unlink_later(j->w, path);
    }
    return 0;
}

static manifest_job *manifest_job_new(const aof_manifest *m) {
    manifest_job *j = xcalloc(1, sizeof *j);
    aofm_copy(&j->m, m);
    j->w = A.w;
    j->dir = xstrdup(server.cfg.appenddirname);
    j->filename = xstrdup(server.cfg.appendfilename);
    return j;
}

/* 1 when m names the file (base, incr or history). */
static int manifest_names(const aof_manifest *m, const char *name) {
    if (m->base.name && !strcmp(m->base.name, name)) return 1;
    for (int i = 0; i < m->nincr; i++)
        if (!strcmp(m->incrs[i].name, name)) return 1;
    for (int i = 0; i < m->nhistory; i++)
        if (!strcmp(m->history[i].name, name)) return 1;
    return 0;
}

/* Files of `old` that `keep` does not list (however many: a manifest may
 * have gathered many INCR files while rewrites failed). */
static void manifest_job_unlink_rest(manifest_job *j, const aof_manifest *old,
                                     const aof_manifest *keep) {
    for (int i = -1; i < old->nincr; i++) {
        const char *name = i < 0 ? old->base.name : old->incrs[i].name;
        if (!name || manifest_names(keep, name)) continue;
        j->unlink = xrealloc(j->unlink, sizeof(char *) * (size_t)(j->nunlink + 1));
        j->unlink[j->nunlink++] = xstrdup(name);
    }
}

/* ---- rewrite ---- */

static void set_current_incr_sizes(void) {
    A.incr_size_before = 0;
    for (int i = 0; i + 1 < A.m.nincr; i++) A.incr_size_before += file_size(A.m.incrs[i].name);
    A.cur_incr_start = A.submitted - (A.m.nincr ? file_size(A.m.incrs[A.m.nincr - 1].name) : 0);
}

static uint64_t current_size(void) {
    return A.base_size + A.incr_size_before + (stream_end() - A.cur_incr_start);
}

/* The save queue starts the rewrite's base (the request's begin): switches
 * appends to a new INCR file at this instant and names the BASE that the
 * forkless serializer then writes, of the same instant. */
static int start_rewrite(void *priv, snap_target *t, char *err, size_t errlen) {
    (void)priv;
    aof_before_sleep(); /* everything before E goes to the old file */
    /* An INCR file that nothing was appended to since it began (a failed
     * rewrite's, say) can follow the base of this instant as it is: reused,
     * so that retries add no files. */
    int reuse = A.m.nincr > 0 && stream_end() == A.cur_incr_start;
    char *incr;
    if (reuse) {
        incr = xstrdup(A.m.incrs[A.m.nincr - 1].name);
    } else {
        incr = aofm_new_incr_name(&A.m, server.cfg.appendfilename);
        int fd = open_incr(incr, 1, err, errlen);
        if (fd < 0) { free(incr); return -1; }
        /* The new INCR must be in the manifest on disk before any write in
         * it is acknowledged; only a complete AOF (with a base) is published. */
        A.m.incrs = xrealloc(A.m.incrs, sizeof(aof_file) * (size_t)(A.m.nincr + 1));
        A.m.incrs[A.m.nincr++] = (aof_file){xstrdup(incr), A.m.curr_incr_seq, 'i'};
        if (A.have_base) /* publish the new INCR before any byte in it counts */
            aofw_switch_file_after(A.w, fd, manifest_job_fn, manifest_job_new(&A.m));
        else
            aofw_switch_file(A.w, fd);
        A.last_db = -1;
        A.incr_size_before = current_size() - A.base_size;
        A.cur_incr_start = A.submitted;
    }
    int preamble = server.cfg.aof_use_rdb_preamble;
    char *base = aofm_new_base_name_as(&A.m, server.cfg.appendfilename, preamble);
    char *base_path = aof_path(base);
    snprintf(A.tmp, sizeof A.tmp, "temp-rewriteaof-bg-%d.aof", (int)getpid());
    char *tmp_path = aof_path(A.tmp);
    snprintf(t->u.aof.path, sizeof t->u.aof.path, "%s", base_path);
    snprintf(t->u.aof.tmp, sizeof t->u.aof.tmp, "%s", tmp_path);
    t->u.aof.cmds = preamble ? NULL : aofrw_key;
    free(base_path);
    free(tmp_path);
    free(A.rw_incr);
    free(A.rw_base);
    A.rw_incr = incr;
    A.rw_base = base;
    A.rewriting = 1;
    A.rewrite_start_us = mono_us();
    log_notice("Background append only file rewriting started (forkless)");
    return 0;
}

/* The rewrite's manifest is on disk: the rewrite is over. */
static void finish_rewrite(void) {
    A.rewriting = 0;
    A.have_base = 1;
    A.rewrites++;
    A.last_rewrite_ok = 1;
    A.rw_failures = 0;
    A.base_error[0] = '\0';
    A.retry_after_ms = 0;
    A.last_rewrite_sec = (mono_us() - A.rewrite_start_us) / 1000000;
    log_notice("Background AOF rewrite terminated with success (%llu bytes base)",
               (unsigned long long)A.base_size);
}

/* A rewrite failed (not aborted). With a base, the AOF on disk stays valid
 * (old base + INCRs): automatic rewrites back off as Redis's do, 5 s after
 * the first two failures in a row, then 1, 2, 4... up to 60 minutes
 * (BGREWRITEAOF still starts one at once). Without a base (AOF just turned
 * on), nothing a restart would read holds the writes: they are refused
 * with MISCONF and those held for the base are answered with it, and the
 * base is retried every 5 s (its INCR file stays empty meanwhile and is
 * reused, so retries add no files). */
static void rewrite_failed(const char *why) {
    A.last_rewrite_ok = 0;
    A.rw_failures++;
    if (!A.have_base) {
        snprintf(A.base_error, sizeof A.base_error, "%s", why);
        A.retry_after_ms = mono_ms() + 5000;
        schedule_rewrite();
        if (always()) fail_held(aof_write_gate());
        return;
    }
    int64_t delay = 5000;
    if (A.rw_failures >= 3) {
        delay = (int64_t)60000 << (A.rw_failures - 3 < 6 ? A.rw_failures - 3 : 6);
        if (delay > 3600000) delay = 3600000;
        log_warning("Background AOF rewrite has failed %d times in a row: the next automatic "
                    "one in %lld minutes", A.rw_failures, (long long)(delay / 60000));
    }
    A.retry_after_ms = mono_ms() + delay;
    schedule_rewrite();
}

/* The base's request waits in the save queue for the running save to end
 * and, after a failure, for the retry delay. */
static int rewrite_ready(void *priv) {
    (void)priv;
    return A.on && !A.rewriting && mono_ms() >= A.retry_after_ms;
}

/* Submits the base's request to the save queue (snap_submit's `when`),
 * tagged with this rewrite's number. */
static int submit_rewrite(int when, char *err, size_t errlen) {
    A.req.priv = (void *)(uintptr_t)A.rewrite_gen;
    return snap_submit(&A.req, when, err, errlen);
}

/* Puts the base's request in the save queue, to start when rewrite_ready. */
static void schedule_rewrite(void) {
    char err[512];
    if (A.on) (void)submit_rewrite(SNAP_QUEUE, err, sizeof err); /* never fails: it waits */
}

/* A rewrite that ran ended without a new manifest: aborted (status 1,
 * FLUSHALL: not a failure, again at once) or failed (-1). */
static void rewrite_not_done(int status, const char *why) {
    A.rewriting = 0;
    A.last_rewrite_sec = (mono_us() - A.rewrite_start_us) / 1000000;
    log_warning("Background AOF rewrite %s: %s", status == 1 ? "aborted" : "failed", why);
    if (status == 1) {
        A.retry_after_ms = mono_ms();
        schedule_rewrite();
    } else {
        rewrite_failed(why);
    }
}

/* The base's completion (main thread, called back by the save queue). The
 * AOF may have been turned off (and on again, with a new writer and
 * manifest) since this rewrite started: then it is stale and changes
 * nothing. A base that never started (the INCR file or the serializer
 * thread could not be made) changes nothing either: BGREWRITEAOF answers
 * the error, and the log says it. */
static void on_rewrite_done(void *priv, const snap_result *r) {
    int status = r->status;
    const char *why = r->err;
    if (!r->started) {
        A.rewriting = 0;
        log_warning("AOF rewrite: %s", why);
        return;
    }
    if ((uint64_t)(uintptr_t)priv != A.rewrite_gen || !A.rewriting) {
        log_notice("Background AOF rewrite %s after the AOF was turned off: discarded",
                   status == 0 ? "completed" : status == 1 ? "aborted" : "failed");
        return;
    }
    assert(A.on && A.w);
    if (status != 0) {
        rewrite_not_done(status, why);
        return;
    }
    /* New manifest: the new base and the INCR that started at its epoch. */
    aof_manifest next;
    aofm_copy(&next, &A.m);
    free(next.base.name);
    next.base = (aof_file){xstrdup(A.rw_base), next.curr_base_seq, 'b'};
    for (int i = 0; i < next.nincr; i++) free(next.incrs[i].name);
    next.incrs[0] = (aof_file){xstrdup(A.rw_incr), next.curr_incr_seq, 'i'};
    next.nincr = 1;
    aof_manifest old = A.m; /* the old base and INCRs, plus the new INCR */
    manifest_job *j = manifest_job_new(&next);
    manifest_job_unlink_rest(j, &old, &next);
    int first = !A.have_base;
    if (!first) {
        /* In order with the stream; the rewrite ends when it is durable
         * (on_progress sees published_seq reach publish_wait). */
        j->seq = A.publish_wait = ++A.publish_seq;
        aofw_run(A.w, manifest_job_fn, j);
    } else {
        /* The first base (AOF just turned on): held replies wait for this
         * manifest, so publish it now rather than behind queued writes. */
        int rc = manifest_job_fn(j, 1);
        manifest_job_fn(j, 0);
        if (rc != 0) {
            /* The rewrite is over, failed: its base is listed by no
             * manifest and goes; the retry writes a new one. */
            aofm_free(&next);
            char *base = aof_path(A.rw_base);
            if (unlink(base) != 0)
                log_warning("Removing the unlisted AOF base %s: %s", base, strerror(errno));
            free(base);
            rewrite_not_done(-1, "can't write the AOF manifest");
            return;
        }
    }
    aofm_free(&old);
    A.m = next;
    A.base_size = r->bytes;
    A.incr_size_before = 0;
    A.size_after_rewrite = current_size();
    if (first) {
        finish_rewrite();
        on_progress(NULL); /* the first base releases what waited for it */
    }
}

int aof_rewrite(char *err, size_t errlen) {
    if (A.rewriting) {
        snprintf(err, errlen, "ERR Background append only file rewriting already in progress");
        return -1;
    }
    if (!A.on) {
        snprintf(err, errlen, "ERR the append only file is off: turn it on with "
                              "CONFIG SET appendonly yes (which writes a base)");
        return -1;
    }
    return submit_rewrite(SNAP_NOW_OR_QUEUE, err, errlen); /* else scheduled: waiting */
}

/* ---- on / off ---- */

static int enable(char *err, size_t errlen) {
    if (make_dir(err, errlen) != 0) return -1;
    aofm_free(&A.m);
    aofm_init(&A.m);
    /* Keep sequence numbers growing past whatever the directory holds. */
    aof_manifest disk;
    aofm_init(&disk);
    if (aofm_load(server.cfg.appenddirname, server.cfg.appendfilename, &disk, err, errlen) == 0) {
        A.m.curr_base_seq = disk.curr_base_seq;
        A.m.curr_incr_seq = disk.curr_incr_seq;
    }
    aofm_free(&disk);
    A.have_base = 0;
    A.base_error[0] = '\0';
    A.rw_failures = 0;
    A.retry_after_ms = 0;
    char *incr = aofm_new_incr_name(&A.m, server.cfg.appendfilename);
    int fd = open_incr(incr, 1, err, errlen);
    if (fd < 0) { free(incr); return -1; }
    A.m.incrs = xmalloc(sizeof(aof_file));
    A.m.incrs[0] = (aof_file){incr, A.m.curr_incr_seq, 'i'};
    A.m.nincr = 1;
    A.base_size = 0;
    A.incr_size_before = 0;
    A.cur_incr_start = A.submitted;
    if (start_writer(fd, err, errlen) != 0) return -1;
    int rc = aof_rewrite(err, errlen);
    return rc < 0 ? -1 : 0;
}

static void disable(void) {
    if (!A.on) return;
    aof_before_sleep();
    A.on = 0;
    A.base_error[0] = '\0';
    prop_remove(aof_feed, NULL);
    snap_cancel(&A.req, "appendonly turned off"); /* waiting or running */
    /* The rewrite is abandoned: its completion, whenever it comes, is stale,
     * and a manifest it queued on this writer no longer ends anything. */
    A.rewriting = 0;
    A.rewrite_gen++;
    A.publish_wait = 0;
    aofw_stop(A.w);
    A.w = NULL;
    assert(A.buf.len == 0);
    vbuf_free(&A.buf); /* a buffer the writer gave back (aofw_submit) */
    gate_inflight_clear();
    release_held();
    resume_parked(1);
    net_flush_all();
    log_notice("Append only file turned off");
}

int aof_set_enabled(int on, char *err, size_t errlen) {
    if (on && !A.on) return enable(err, errlen);
    if (!on) disable();
    return 0;
}

void aof_set_fsync(int policy) {
    if (A.w) aofw_set_policy(A.w, policy);
    if (policy != FSYNC_ALWAYS) on_progress(NULL);
}

void aof_shutdown(void) {
    if (!A.on) return;
    aof_before_sleep();
    A.on = 0;
    aofw_stop(A.w);
    A.w = NULL;
}

/* A replica loaded its master's snapshot: the AOF describes data that is
 * gone. As Redis's stopAppendOnly + startAppendOnly around a sync: the AOF
 * is turned off and on again, so the manifest on disk keeps describing
 * the data before the sync (old base and INCRs) until the new base of the
 * loaded data is written; the stream after the swap goes to a new INCR
 * that only the new manifest lists. A crash in between restarts on the
 * old data, never on the old data with the new stream on top. When turning
 * it on fails, it is retried every second (restart_after_sync). */
static int restart_after_sync;

static void restart_aof(void) {
    char err[512];
    if (enable(err, sizeof err) == 0) {
        restart_after_sync = 0;
        return;
    }
    disable();
    restart_after_sync = 1;
    log_warning("Failed enabling the AOF after successful master synchronization! Trying it "
                "again in one second: %s", err);
}

static void dataset_replaced_hook(void) {
    if (!A.on && !restart_after_sync) return;
    log_notice("The dataset was replaced by a sync from the master: the AOF restarts");
    disable();
    restart_aof();
}

void aof_cron(void) {
    if (restart_after_sync && server.cfg.appendonly) {
        static int64_t last_try;
        if (mono_ms() - last_try >= 1000) {
            last_try = mono_ms();
            restart_aof();
        }
    } else if (restart_after_sync) {
        restart_after_sync = 0; /* turned off meanwhile */
    }
    if (!A.on) return;
    /* A scheduled rewrite waits in the save queue (rewrite_ready). An
     * automatic one starts only when no save runs (else the save queue
     * refuses it, and a later cron tick asks again), as Redis's. */
    long long perc = server.cfg.auto_aof_rewrite_percentage;
    uint64_t size = current_size(), base = A.size_after_rewrite ? A.size_after_rewrite : 1;
    if (perc && !A.rewriting && !snap_queued(&A.req) && mono_ms() >= A.retry_after_ms &&
        size > (uint64_t)server.cfg.auto_aof_rewrite_min_size &&
        (size - base) * 100 / base >= (uint64_t)perc) {
        char err[512];
        unsigned long long growth = (size - base) * 100 / base;
        if (submit_rewrite(SNAP_NOW, err, sizeof err) == 0)
            log_notice("Starting automatic rewriting of AOF on %llu%% growth", growth);
    }
    on_progress(NULL); /* everysec: release what the timer fsynced */
}

/* ---- startup ---- */

typedef struct exec_ctx {
    client fake;
} exec_ctx;

/* The loader's client (every permission, counted as a loader's commands)
 * and zeroed statistics. */
static void load_start(exec_ctx *x, aof_load_stats *st) {
    memset(x, 0, sizeof *x);
    x->fake.flags = CLIENT_AUTHED | CLIENT_LOADER;
    x->fake.id = UINT64_MAX;
    memset(st, 0, sizeof *st);
}

/* What an AOF may hold: write commands and SELECT (MULTI/EXEC are handled
 * by the loader, aof_load.c, and never reach here), PFCOUNT, which
 * Redis 7.0 (and verso) propagate when it stores the cardinality it
 * computed in the HLL, and the marks a subsystem propagates
 * (CMD_REPLAYED). Anything else (CONFIG, SHUTDOWN, DEBUG, SAVE...) would act
 * on the server in the middle of its startup: it is a load error. */
static int replayable(const cmd_def *d) {
    return (d->flags & (CMD_WRITE | CMD_REPLAYED)) || d->proc == cmd_select ||
           d->proc == cmd_pfcount;
}

static int exec_command(void *priv, int argc, const arg *argv, char *err, size_t errlen) {
    exec_ctx *x = priv;
    client *c = &x->fake;
    /* a container's subcommand carries the flags (FUNCTION LOAD) */
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    if (!d || !replayable(d)) {
        int n = argv[0].len > 128 ? 128 : (int)argv[0].len;
        snprintf(err, errlen, "%s command '%.*s' in the AOF (only write commands and "
                 "SELECT are replayed)", d ? "not replayable" : "unknown", n, argv[0].p);
        return -1;
    }
    if (argc > c->argv_cap) {
        c->argv_cap = argc;
        c->argv = xrealloc(c->argv, sizeof(arg) * (size_t)argc);
    }
    memcpy(c->argv, argv, sizeof(arg) * (size_t)argc);
    c->argc = argc;
    c->reply.len = 0;
    cmd_dispatch(c);
    if (c->reply.len > 0 && c->reply.data[0] == '-') {
        size_t n = c->reply.len - 1;
        while (n > 0 && (c->reply.data[n] == '\r' || c->reply.data[n] == '\n')) n--;
        snprintf(err, errlen, "command %.*s failed: %.*s", (int)argv[0].len, argv[0].p,
                 (int)n, c->reply.data + 1);
        return -1;
    }
    return 0;
}

int aof_load_startup(char *err, size_t errlen) {
    if (!server.cfg.appendonly) return 1;
    int rc = aofm_load(server.cfg.appenddirname, server.cfg.appendfilename, &A.m, err, errlen);
    if (rc < 0) return rc;
    /* a Redis 6 AOF in the data directory becomes the base (upgrade.h) */
    int up = aof_upgrade_old_file(&A.m, server.cfg.appenddirname, server.cfg.appendfilename,
                                  err, errlen);
    if (up < 0) return -1;
    if (rc == 1 && up == 0) return 1;
    exec_ctx x;
    aof_load_stats st;
    load_start(&x, &st);
    int64_t start = mono_us();
    /* clients are served during the load (server_loading_progress): a CONFIG
     * SET may replace the configuration's strings, so the loader gets a copy */
    char *dir = xstrdup(server.cfg.appenddirname);
    server_loading_start();
    /* INT64_MIN: the base keeps its expired keys (see aof_load.h) */
    rc = aof_load_files(dir, &A.m, server.cfg.aof_load_truncated, INT64_MIN,
                        restore_callbacks(), NULL, exec_command, &x, &st, err, errlen);
    server_loading_end();
    free(dir);
    vbuf_free(&x.fake.reply);
    free(x.fake.argv);
    if (rc != 0) return -1;
    server.dirty = 0;
    A.have_base = A.m.base.name != NULL;
    log_notice("DB loaded from append only file: %.3f seconds (%llu base keys, %llu commands)",
               (double)(mono_us() - start) / 1e6, (unsigned long long)st.base_keys,
               (unsigned long long)st.commands);
    return 0;
}

/* Startup with appendonly on and no AOF yet: write the base of what was
 * loaded (before serving, so nothing waits for it); aof_open_startup then
 * adds the INCR file and publishes the manifest. */
static int create_at_startup(char *err, size_t errlen) {
    int preamble = server.cfg.aof_use_rdb_preamble;
    char *base = aofm_new_base_name_as(&A.m, server.cfg.appendfilename, preamble);
    char *base_path = aof_path(base);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "temp-rewriteaof-%d.aof", (int)getpid());
    char *tmp_path = aof_path(tmp);
    rdb_aux aux = {VERSO_REDIS_VERSION, wall_ms() / 1000, 0, 1, preamble ? NULL : aofrw_key, {0}, NULL, 0, NULL};
    aux.functions = function_codes(&aux.nfunctions); /* libraries loaded at startup */
    uint64_t keys;
    int rc = syncsave_write(tmp_path, base_path, snap_rdb_flags(1), &aux, &keys, err, errlen);
    function_codes_free(aux.functions, aux.nfunctions);
    free(base_path);
    free(tmp_path);
    if (rc != 0) { free(base); return -1; }
    A.m.base = (aof_file){base, A.m.curr_base_seq, 'b'};
    A.rewrites++; /* Redis makes this base with a rewrite too */
    log_notice("Creating AOF base file %s on server start (%llu keys)", base,
               (unsigned long long)keys);
    return 0;
}

/* Temp files of rewrites a crash interrupted. */
static void remove_stale_temps(void) {
    char *pattern = aof_path("temp-rewriteaof-*.aof");
    glob_t g;
    if (glob(pattern, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++) {
            if (unlink(g.gl_pathv[i]) == 0) log_notice("Removed stale %s", g.gl_pathv[i]);
        }
        globfree(&g);
    }
    free(pattern);
}

/* 1 when name has the shape of an AOF file of ours:
 * "<appendfilename>.<seq>.base.rdb", ".base.aof" or ".incr.aof". */
static int is_aof_file_name(const char *name) {
    size_t n = strlen(server.cfg.appendfilename);
    if (strncmp(name, server.cfg.appendfilename, n) != 0 || name[n] != '.') return 0;
    const char *p = name + n + 1;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9') p++;
    return !strcmp(p, ".base.rdb") || !strcmp(p, ".base.aof") || !strcmp(p, ".incr.aof");
}


/* AOF files that the manifest (A.m, as loaded) does not name: the INCR a
 * crash left before the first base of an AOF turned on at runtime, or a
 * base whose manifest never came. They are never replayed, and are deleted
 * so that no new file of the same name can inherit their bytes. */
static void remove_orphans(void) {
    DIR *d = opendir(server.cfg.appenddirname);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!is_aof_file_name(e->d_name) || manifest_names(&A.m, e->d_name)) continue;
        char *path = aof_path(e->d_name);
        if (unlink(path) == 0)
            log_notice("Removed %s: no AOF manifest names it", path);
        else
            log_warning("Removing %s (no AOF manifest names it): %s", path, strerror(errno));
        free(path);
    }
    closedir(d);
}

int aof_open_startup(char *err, size_t errlen) {
    if (!server.cfg.appendonly) return 0;
    if (make_dir(err, errlen) != 0) return -1;
    remove_stale_temps();
    remove_orphans();
    if (A.m.nincr == 0 && !A.m.base.name && create_at_startup(err, errlen) != 0) return -1;
    A.base_size = A.m.base.name ? file_size(A.m.base.name) : 0;
    int fd;
    if (A.m.nincr == 0) {
        /* A new INCR: created empty before the manifest names it. */
        char *incr = aofm_new_incr_name(&A.m, server.cfg.appendfilename);
        fd = open_incr(incr, 1, err, errlen);
        if (fd < 0) { free(incr); return -1; }
        A.m.incrs = xmalloc(sizeof(aof_file));
        A.m.incrs[0] = (aof_file){incr, A.m.curr_incr_seq, 'i'};
        A.m.nincr = 1;
        if (aofm_save(server.cfg.appenddirname, server.cfg.appendfilename, &A.m, err, errlen)) {
            close(fd);
            return -1;
        }
    } else {
        fd = open_incr(A.m.incrs[A.m.nincr - 1].name, 0, err, errlen);
        if (fd < 0) return -1;
    }
    A.have_base = A.m.base.name != NULL;
    set_current_incr_sizes();
    A.size_after_rewrite = current_size();
    return start_writer(fd, err, errlen);
}

/* ---- INFO ---- */

void aof_info(vbuf *b) {
    aofw_stats st;
    memset(&st, 0, sizeof st);
    st.write_ok = 1;
    if (A.w) aofw_get_stats(A.w, &st);
    char line[1536];
    snprintf(line, sizeof line,
             "aof_enabled:%d\r\naof_rewrite_in_progress:%d\r\naof_rewrite_scheduled:%d\r\n"
             "aof_last_rewrite_time_sec:%lld\r\naof_current_rewrite_time_sec:%lld\r\n"
             "aof_last_bgrewrite_status:%s\r\naof_rewrites:%d\r\n"
             "aof_rewrites_consecutive_failures:%d\r\naof_last_write_status:%s\r\n"
             "aof_last_cow_size:0\r\naof_current_size:%llu\r\naof_base_size:%llu\r\n"
             "aof_pending_bio_fsync:%llu\r\naof_delayed_fsync:%llu\r\n"
             "aof_backlog_bytes:%llu\r\naof_parked_clients:%d\r\naof_parked_total:%llu\r\n"
             "aof_fsyncs:%llu\r\naof_last_fsync_usec:%lld\r\naof_inflight_keys:%d\r\n",
             A.on, A.rewriting, snap_queued(&A.req), A.last_rewrite_sec,
             A.rewriting ? (long long)((mono_us() - A.rewrite_start_us) / 1000000) : -1LL,
             A.last_rewrite_ok ? "ok" : "err", A.rewrites, A.rw_failures,
             st.write_ok ? "ok" : "err",
             (unsigned long long)(A.on ? current_size() : 0), (unsigned long long)A.base_size,
             (unsigned long long)st.pending_fsync, (unsigned long long)st.delayed_fsync,
             (unsigned long long)(A.on ? backlog() : 0), gate_parked_count(),
             (unsigned long long)gate_parked_total(), (unsigned long long)st.fsyncs,
             (long long)st.last_fsync_us, gate_inflight_max() > A.synced);
    vbuf_append_str(b, line);
}

/* ---- registration with the core (hooks.h) ---- */

/* Redis's aof_buf: the buffer of commands not yet handed to the writer,
 * and here also the bytes handed over and not yet written (Redis writes
 * its buffer before it sleeps, so it has no such queue). */
static size_t buffer_bytes(void) { return A.buf.cap + (A.w ? (size_t)aofw_backlog(A.w) : 0); }

static size_t buffer_memory(int kind) { return kind == HOOKS_MEM_AOF ? buffer_bytes() : 0; }

static void info_hook(const char *section, vbuf *b) {
    if (!strcmp(section, "persistence")) aof_info(b);
    else if (!strcmp(section, "memory")) vbuf_appendf(b, "mem_aof_buffer:%zu\r\n", buffer_bytes());
}

static int config_hook(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen) {
    (void)old;
    if (!strcmp(name, "appendonly")) return aof_set_enabled(now->appendonly, err, errlen);
    if (!strcmp(name, "appendfsync")) aof_set_fsync(now->appendfsync);
    return 0;
}

/* DEBUG LOADAOF, as Redis 7.0's: what the buffers hold written out, every
 * database and the function libraries emptied, the files the manifest on
 * disk names loaded back. The replayed commands are neither logged again
 * nor sent to replicas (propagation is muted, and A.on off for the AOF's
 * own hooks); appending goes on in the same INCR file. Refused while appendonly is off (7.0 exits then) and
 * while a rewrite runs (the manifest on disk is about to change). */
static int debug_loadaof(char *err, size_t errlen) {
    if (!A.on || !A.w) {
        snprintf(err, errlen, "ERR DEBUG LOADAOF needs appendonly yes");
        return -1;
    }
    if (A.rewriting) {
        snprintf(err, errlen, "ERR Background append only file rewriting in progress");
        return -1;
    }
    aof_before_sleep();
    int64_t deadline = mono_ms() + 30000;
    while (aofw_backlog(A.w) > 0 && mono_ms() < deadline) usleep(1000);
    if (aofw_backlog(A.w) > 0) {
        snprintf(err, errlen, "ERR the AOF writer did not catch up in 30 seconds");
        return -1;
    }
    aof_manifest m;
    aofm_init(&m);
    char why[512];
    if (aofm_load(server.cfg.appenddirname, server.cfg.appendfilename, &m, why, sizeof why) != 0) {
        log_warning("DEBUG LOADAOF: %s", why);
        aofm_free(&m);
        snprintf(err, errlen, "ERR Error trying to load the AOF files, check server logs.");
        return -1;
    }
    for (int i = 0; i < server.cfg.databases; i++) db_flush(db_get(i));
    function_flush();
    exec_ctx x;
    aof_load_stats st;
    load_start(&x, &st);
    char *dir = xstrdup(server.cfg.appenddirname);
    prop_mute(1);
    A.on = 0;
    server_loading_start();
    int rc = aof_load_files(dir, &m, server.cfg.aof_load_truncated, INT64_MIN,
                            restore_callbacks(), NULL, exec_command, &x, &st, why, sizeof why);
    server_loading_end();
    A.on = 1;
    A.last_db = -1; /* the next command logged starts with a SELECT */
    prop_mute(0);
    free(dir);
    vbuf_free(&x.fake.reply);
    free(x.fake.argv);
    aofm_free(&m);
    if (rc != 0) {
        log_warning("DEBUG LOADAOF: %s", why);
        snprintf(err, errlen, "ERR Error trying to load the AOF files, check server logs.");
        return -1;
    }
    server.dirty = 0;
    log_warning("Append Only File loaded by DEBUG LOADAOF");
    return 0;
}

static const hooks aof_hooks = {
    .name = "aof",
    .write_gate = aof_write_gate, /* NULL until the AOF is opened */
    .dataset_replaced = dataset_replaced_hook,
    .cron = aof_cron,
    .before_sleep = aof_hook_before_sleep,
    .before_command = aof_before_command,
    .after_command = aof_after_command,
    .reply_held = aof_reply_held,
    .client_closed = aof_client_closed,
    .info = info_hook,
    .buffer_memory = buffer_memory,
    .config_changed = config_hook,
    .shutdown = aof_shutdown,
    .debug_loadaof = debug_loadaof,
};
