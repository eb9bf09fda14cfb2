/* snap: the main-thread side of snapshots (see snap.h): starting and
 * finishing forkless and fork saves of every target the save queue
 * (savequeue.c) hands over, BGSAVE and save points (the file's requests),
 * SAVE, aborts on FLUSHALL, restore on startup, INFO persistence. Main
 * thread only. */
#include "snap.h"

#include <assert.h>
#include <errno.h>
#include <glob.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "db.h"
#include "function.h"
#include "hooks.h"
#include "keyslot.h"
#include "info.h"
#include "introspect.h"
#include "log.h"
#include "util.h"
#include "forksave.h"
#include "restore.h"
#include "savequeue.h"
#include "serializer.h"
#include "syncsave.h"

#define SNAP_RETRY_DELAY_MS 5000 /* after a failed background save, as Redis */

static struct {
    int type;                 /* SNAP_NONE / SNAP_FORKLESS / SNAP_FORK running */
    int kind;                 /* the running save's target (enum snap_kind) */
    uint64_t epoch;           /* last save epoch used */
    int64_t start_mono_us;
    int64_t stall_us;         /* main thread's time to start the last save */
    long long dirty_at_start;
    ser_job *job;             /* running forkless save */
    pid_t child;              /* running fork save */
    char tmp[4096];
    uint64_t keys_total;
    int aborted;              /* FLUSHALL asked to stop the running save */
    vt **retired;             /* tables replaced while the save reads them */
    int nretired;
    int save_after_abort;     /* FLUSHALL aborted a save: save when it ends */
    snap_repl_info_fn repl_info; /* the replication history a save records */
    const snap_staged_fns *staged; /* the import staging marks a save records */
    rdb_repl_aux loaded_repl; /* what the snapshot loaded at startup said */
    /* results */
    int64_t lastsave;         /* unix seconds of the last successful save */
    int last_ok;
    int64_t last_try_ms;      /* mono ms of the last background attempt */
    long long last_time_sec;
    int last_type;
    uint64_t saves;
    uint64_t last_cow;
    int64_t latest_fork_usec;
    uint64_t total_forks;
    size_t last_peak_extra;   /* forkless: peak of retained pre-images */
    uint64_t last_keys;
    /* loading */
    uint64_t load_keys, load_expired;
    int64_t load_start_ms;
    uv_signal_t sigchld;
} S;

static const char *type_name(int t) {
    return t == SNAP_FORK ? "fork" : t == SNAP_FORKLESS ? "forkless" : "none";
}

static const char *misconf_gate(void) {
    if (server.cfg.stop_writes_on_bgsave_error && server.cfg.nsave > 0 && !S.last_ok)
        return "MISCONF Redis is configured to save RDB snapshots, but it's currently "
               "unable to persist to disk. Commands that may modify the data set are "
               "disabled, because this instance is configured to report errors during "
               "writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). "
               "Please check the Redis logs for details about the RDB error.";
    return NULL;
}

static void on_sigchld(uv_signal_t *s, int sig);
static const hooks snap_hooks;

static void remove_stale_temps(void);

void snap_init(void) {
    ser_init();
    remove_stale_temps();
    S.last_ok = 1;
    S.lastsave = wall_ms() / 1000;
    S.last_time_sec = -1;
    S.latest_fork_usec = 0;
    snap_register_commands();
    uv_signal_init(server.loop, &S.sigchld);
    uv_signal_start(&S.sigchld, on_sigchld, SIGCHLD);
    hooks_register(&snap_hooks);
}

int snap_in_progress(void) { return S.type != SNAP_NONE; }
int64_t snap_lastsave(void) { return S.lastsave; }

int snap_rdb_flags(int aof_base) {
    int f = server.cfg.rdbchecksum ? 0 : RDB_NO_CHECKSUM;
    if (!aof_base && server.cfg.snapshot_compression == SNAP_COMPRESS_LZ4)
        return f | RDB_COMPRESS_LZ4;
    return f | (server.cfg.rdbcompression ? RDB_COMPRESS_LZF : RDB_COMPRESS_NONE);
}

/* used_mem -1 leaves it to the writer's thread, which reads the counted
 * objects and table slabs itself (serializer.c); otherwise INFO's
 * used_memory, read from counters (info.c). repl: a replication payload's
 * AUX fields, or NULL. */
static void fill_aux(rdb_aux *aux, int measure_mem, const rdb_repl_aux *repl) {
    aux->redis_ver = VERSO_REDIS_VERSION;
    aux->ctime = wall_ms() / 1000;
    aux->used_mem = measure_mem ? (int64_t)info_used_memory() : -1;
    aux->aof_base = 0;
    aux->as_commands = NULL; /* an RDB; the AOF sets commands itself */
    if (repl) aux->repl = *repl;
    else memset(&aux->repl, 0, sizeof aux->repl);
    /* any other save records the history its data is at (a replica's:
     * it resumes from there after a restart) */
    if (!aux->repl.set && S.repl_info) S.repl_info(&aux->repl);
    /* the libraries and the staged slots as they are now: the snapshot's
     * point in time */
    aux->functions = function_codes(&aux->nfunctions);
    aux->staged_slots = S.staged ? S.staged->text() : NULL;
    /* what the writers opened from now on take (see rdb.h) */
    rdb_set_writer_opts(server.cfg.list_max_listpack_size, server.cfg.rdb_key_save_delay);
}

static void record_result(int type, int ok, long long dirty_at_start) {
    S.last_type = type;
    S.last_ok = ok;
    if (!ok) return;
    S.saves++;
    S.lastsave = wall_ms() / 1000;
    server.dirty -= dirty_at_start;
    if (server.dirty < 0) server.dirty = 0;
}

/* ---- forkless ---- */

static void free_retired(void) {
    for (int i = 0; i < S.nretired; i++) vt_free(S.retired[i]);
    free(S.retired);
    S.retired = NULL;
    S.nretired = 0;
}

/* What fill_aux took: the function libraries' references. */
static void release_aux(rdb_aux *aux) {
    function_codes_free(aux->functions, aux->nfunctions);
    aux->functions = NULL;
    aux->nfunctions = 0;
    free(aux->staged_slots);
    aux->staged_slots = NULL;
}

static void on_job_closed(uv_handle_t *h) {
    ser_job *job = h->data;
    release_aux(&job->aux);
    for (int i = 0; i < job->ndb; i++) {
        free(job->dbs[i].segs);
        free(job->dbs[i].want);
    }
    free(job->dbs);
    free(job);
}

/* Every save's end, forkless or fork, once the engine's state is idle
 * again: the queue calls the requester back; then, when FLUSHALL with
 * save points deferred its save until this one ended, that save runs
 * (the empty dataset replaces whatever the aborted save wrote, also a
 * dump it had already renamed into place). */
static void save_ended(const snap_result *r) {
    assert(S.type == SNAP_NONE);
    if (snapq_kind(S.kind)->is_bgsave) {
        S.last_time_sec = r->duration_us / 1000000;
        S.last_keys = r->keys;
    }
    snapq_ended(r);
    if (S.save_after_abort && S.type == SNAP_NONE) {
        S.save_after_abort = 0;
        snap_after_flushall();
    }
}

/* Runs on the loop when the serializer thread has ended (or directly from
 * snap_shutdown, after it asked the thread to stop). The state may have
 * moved on since the thread finished: FLUSHALL/FLUSHDB or AOF off asked for
 * an abort (S.aborted) after the file was already written, so a job that
 * ended well still counts as aborted then. */
static void on_forkless_done(uv_async_t *a) {
    ser_job *job = a->data;
    assert(job == S.job);
    for (int i = 0; i < job->ndb; i++)
        if (job->dbs[i].table) vt_save_end(job->dbs[i].table);
    ser_finish(job);
    free_retired();
    /* ser_finish joined the thread and destroyed q_lock. The two peaks may
     * not coincide: their sum bounds the save's peak from above. */
    size_t peak = job->q_peak + pt_retained_peak();
    int aborted = job->status == 1 || S.aborted;
    S.last_peak_extra = peak;
    S.type = SNAP_NONE;
    S.job = NULL;
    S.aborted = 0;
    /* A base renamed into place after the abort is listed by no manifest:
     * it goes. */
    if (S.kind == SNAP_TO_AOF_BASE && aborted && job->status == 0 && unlink(job->path) != 0)
        log_warning("Removing the aborted AOF base %s: %s", job->path, strerror(errno));
    snap_result r = {.started = 1, .status = aborted ? 1 : job->status,
                     .err = aborted ? "aborted" : job->err, .method = SNAP_FORKLESS,
                     .bytes = job->file_bytes, .keys = atomic_load(&job->keys_done),
                     .duration_us = job->duration_us, .peak_extra = peak};
    save_ended(&r);
    uv_close((uv_handle_t *)&job->done, on_job_closed); /* r.err lived in the job */
}

/* The keys of a slotted table in the slots of set (KEYSLOT_COUNT bits). */
static uint64_t slot_set_keys(const vt *t, const uint8_t *set) {
    assert(vt_slotted(t));
    uint64_t n = 0;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        if (set[s >> 3] >> (s & 7) & 1) n += vt_slot_count(t, s);
    return n;
}

/* Starts the serializer on every table at a new epoch, writing t's target.
 * The instant this returns is the snapshot's point in time. */
static int start_forkless(const snap_target *t, char *err, size_t errlen) {
    int64_t t0 = mono_us();
    int aof_base = t->kind == SNAP_TO_AOF_BASE, slots = t->kind == SNAP_TO_SLOTS;
    sink *out = t->kind == SNAP_TO_REPLICAS ? t->u.replicas.out
                : slots                     ? t->u.slots.out
                                            : NULL;
    ser_job *job = xcalloc(1, sizeof *job);
    job->epoch = ++S.epoch;
    /* a functions-only payload serializes no table: writes go on as if no
     * save ran; slots are db 0's (cluster mode has one database) */
    job->ndb = slots ? 1
               : out && t->u.replicas.functions_only ? 0
                                                      : server.cfg.databases;
    job->slots = slots ? t->u.slots.set : NULL;
    job->dbs = xcalloc((size_t)job->ndb, sizeof(ser_db));
    if (aof_base) {
        snprintf(job->path, sizeof job->path, "%s", t->u.aof.path);
        snprintf(job->tmp, sizeof job->tmp, "%s", t->u.aof.tmp);
    } else if (!out) {
        snprintf(job->path, sizeof job->path, "%s", server.cfg.dbfilename);
        snprintf(job->tmp, sizeof job->tmp, "temp-%d-forkless.rdb", (int)getpid());
    }
    /* An AOF base stays a plain RDB so that redis-check-aof and redis-server
     * read the AOF directory as it is (snap_rdb_flags). */
    job->compress = snap_rdb_flags(aof_base || out); /* a replica may be redis-server */
    job->out = out;
    if (out) sink_fanout_set_stop(out, &job->abort); /* a shutdown's abort */
    /* the serializer measures used-mem */
    fill_aux(&job->aux, 0, out && !slots ? &t->u.replicas.repl : NULL);
    job->aux.aof_base = aof_base;
    if (aof_base) memset(&job->aux.repl, 0, sizeof job->aux.repl); /* as Redis's AOF preamble */
    job->aux.as_commands = aof_base ? t->u.aof.cmds : slots ? t->u.slots.cmds : NULL;
    /* slots carry keys only: the libraries are each node's own (a FUNCTION
     * LOAD of one the target has would fail the migration) */
    if (slots) release_aux(&job->aux);
    for (int i = 0; i < job->ndb; i++) {
        ser_db *d = &job->dbs[i];
        d->job = job;
        d->id = i;
        d->table = db_get(i)->t;
        d->keys = job->slots ? slot_set_keys(d->table, job->slots) : vt_size(d->table);
        d->expires = vt_expires(d->table);
        job->keys_total += d->keys;
        vt_save_begin(d->table, job->epoch, ser_capture, d, &d->segs, &d->nsegs);
        if (job->slots) { /* only the slots' segments are walked */
            d->want = xmalloc(d->nsegs ? d->nsegs : 1);
            vt_save_slot_segs(d->table, d->segs, d->nsegs, job->slots, d->want);
        }
    }
    pt_retained_peak_reset();
    if (ser_start(job, server.loop, on_forkless_done, err, errlen) != 0) {
        for (int i = 0; i < job->ndb; i++) vt_save_end(job->dbs[i].table);
        uv_close((uv_handle_t *)&job->done, on_job_closed); /* frees the job */
        return -1;
    }
    S.job = job;
    S.type = SNAP_FORKLESS;
    S.keys_total = job->keys_total;
    S.stall_us = mono_us() - t0;
    latency_add_us("forkless-save-start", S.stall_us); /* the main thread's cost */
    log_notice("%s started (forkless, epoch %llu, %llu keys, start took %lld us)",
               snapq_kind(t->kind)->name, (unsigned long long)job->epoch,
               (unsigned long long)job->keys_total, (long long)S.stall_us);
    return 0;
}

/* ---- fork ---- */

static void finish_fork(const fork_result *r) {
    S.last_cow = r->cow_bytes;
    if (S.kind != SNAP_TO_FILE) /* a file save's end is logged by its done */
        log_notice("%s (fork) %s", snapq_kind(S.kind)->name,
                   r->ok ? "terminated with success" : S.aborted ? "aborted" : r->err);
    if (!r->ok && S.tmp[0]) unlink(S.tmp);
    snap_result res = {.started = 1, .status = r->ok ? 0 : S.aborted ? 1 : -1,
                       .err = r->ok ? "" : S.aborted ? "aborted" : r->err,
                       .method = SNAP_FORK, .keys = r->keys,
                       .duration_us = mono_us() - S.start_mono_us};
    S.type = SNAP_NONE;
    S.child = 0;
    S.aborted = 0;
    server.fork_child = 0;
    save_ended(&res);
}

static void poll_child(void) {
    fork_result r;
    if (S.type == SNAP_FORK && forksave_poll(S.child, &r)) finish_fork(&r);
}

static void on_sigchld(uv_signal_t *s, int sig) {
    (void)s;
    (void)sig;
    poll_child();
}

/* A child writes t's target (the dump file, or a replication payload into
 * its copy of the sink). */
static int start_fork(const snap_target *t, char *err, size_t errlen) {
    int file = t->kind == SNAP_TO_FILE;
    assert(file || t->kind == SNAP_TO_REPLICAS); /* the kinds that may fork */
    rdb_aux aux;
    fill_aux(&aux, 1, file ? NULL : &t->u.replicas.repl);
    int64_t fork_us;
    pid_t pid;
    if (file) {
        snprintf(S.tmp, sizeof S.tmp, "temp-%d-fork.rdb", (int)getpid());
        pid = forksave_start(S.tmp, server.cfg.dbfilename, snap_rdb_flags(0), &aux, &fork_us,
                             err, errlen);
    } else {
        S.tmp[0] = '\0';
        pid = forksave_start_sink(t->u.replicas.out, snap_rdb_flags(1), &aux, &fork_us, err,
                                  errlen);
    }
    release_aux(&aux); /* the child has its copy */
    if (pid < 0) return -1;
    S.child = pid;
    S.type = SNAP_FORK;
    server.fork_child = 1;
    S.latest_fork_usec = fork_us;
    S.stall_us = fork_us;
    S.total_forks++;
    S.keys_total = 0;
    for (int i = 0; file && i < server.cfg.databases; i++) S.keys_total += vt_size(db_get(i)->t);
    log_notice("%s started by pid %d (fork took %lld us)", snapq_kind(t->kind)->name, (int)pid,
               (long long)fork_us);
    return 0;
}

/* ---- the save queue's engine (savequeue.h) ---- */

int snap_run(const snap_target *t, char *err, size_t errlen) {
    assert(S.type == SNAP_NONE);
    S.kind = t->kind;
    S.start_mono_us = mono_us();
    S.aborted = 0;
    int fork = t->method == SNAP_FORK &&
               !(t->kind == SNAP_TO_REPLICAS && t->u.replicas.functions_only);
    return fork ? start_fork(t, err, errlen) : start_forkless(t, err, errlen);
}

void snap_run_abort(const char *why) {
    if (S.type == SNAP_NONE || S.aborted) return;
    S.aborted = 1;
    log_notice("Aborting the background save: %s", why);
    if (S.type == SNAP_FORKLESS) {
        atomic_store(&S.job->abort, 1);
    } else {
        forksave_kill(S.child);
        fork_result r = {0};
        finish_fork(&r);
    }
}

/* ---- the file's saves: BGSAVE, BGSAVE SCHEDULE, save points ---- */

/* The instant a file save starts (from the command, or from the queue). */
static int file_begin(void *priv, snap_target *t, char *err, size_t errlen) {
    (void)priv, (void)t, (void)err, (void)errlen;
    S.last_try_ms = mono_ms();
    S.dirty_at_start = server.dirty;
    return 0;
}

static void file_saved(void *priv, const snap_result *r) {
    (void)priv;
    const char *how = type_name(r->method);
    if (r->started && r->method == SNAP_FORKLESS) S.last_cow = 0;
    if (!r->started) {
        log_warning("Can't save in background: %s", r->err);
        record_result(r->method, 0, 0);
    } else if (r->status == 1) {
        log_notice("Background saving (%s) aborted", how);
    } else if (r->status != 0) {
        log_warning("Background saving (%s) error: %s", how, r->err);
        record_result(r->method, 0, 0);
    } else {
        if (r->method == SNAP_FORKLESS)
            log_notice("Background saving (forkless) terminated with success: %llu keys, "
                       "%.3f s, peak retained %zu bytes", (unsigned long long)r->keys,
                       (double)r->duration_us / 1e6, r->peak_extra);
        else
            log_notice("Background saving (fork) terminated with success");
        record_result(r->method, 1, S.dirty_at_start);
    }
}

static snap_req file_req = {.kind = SNAP_TO_FILE, .begin = file_begin, .done = file_saved};

int snap_bgsave(int schedule, char *err, size_t errlen) {
    return snap_submit(&file_req, schedule ? SNAP_NOW_OR_QUEUE : SNAP_NOW, err, errlen);
}

int snap_save_sync(char *err, size_t errlen) {
    if (S.type != SNAP_NONE) return snapq_refuse(NULL, err, errlen);
    rdb_aux aux;
    fill_aux(&aux, 1, NULL);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "temp-%d.rdb", (int)getpid());
    int64_t start = mono_us();
    long long dirty = server.dirty;
    uint64_t keys = 0;
    char why[RDB_ERRLEN];
    int rc = syncsave_write(tmp, server.cfg.dbfilename, snap_rdb_flags(0), &aux, &keys, why,
                            sizeof why);
    release_aux(&aux);
    if (rc != 0) {
        log_warning("Error saving DB on disk: %s", why);
        snprintf(err, errlen, "ERR %s", why);
        S.last_ok = 0;
        return -1;
    }
    log_notice("DB saved on disk (%llu keys, %.3f s)", (unsigned long long)keys,
               (double)(mono_us() - start) / 1e6);
    S.last_ok = 1;
    S.saves++;
    S.lastsave = wall_ms() / 1000;
    server.dirty -= dirty;
    return 0;
}

void snap_after_flushall(void) {
    if (server.cfg.nsave == 0) return;
    if (S.type != SNAP_NONE) { /* the aborted forkless save ends first */
        S.save_after_abort = 1;
        return;
    }
    long long dirty = server.dirty; /* the FLUSHALL itself still counts */
    char err[SNAP_ERRLEN];
    if (snap_save_sync(err, sizeof err) != 0) log_warning("Saving after FLUSHALL: %s", err);
    server.dirty = dirty;
}

/* FLUSHALL/FLUSHDB: a running save of a kind that a flush aborts (not a
 * replication save) stops cleanly. */
static void abort_on_flush(void) {
    int kind = snapq_running_kind();
    if (kind >= 0 && snapq_kind(kind)->flush_aborts) snap_run_abort("FLUSHALL/FLUSHDB");
}

int snap_keep_retired_table(vt *t) {
    if (S.type != SNAP_FORKLESS) return 0;
    /* The serializer still holds this table's segments, and the table stays
     * in save state (capturing) until the thread has ended. */
    S.retired = xrealloc(S.retired, sizeof(vt *) * (size_t)(S.nretired + 1));
    S.retired[S.nretired++] = t;
    return 1;
}

/* ---- cron: save points ---- */

static int savepoint_due(void) {
    int64_t now = wall_ms() / 1000;
    int may_retry = S.last_ok || mono_ms() - S.last_try_ms > SNAP_RETRY_DELAY_MS;
    for (int i = 0; i < server.cfg.nsave; i++) {
        const conf_savepoint *sp = &server.cfg.save[i];
        if (server.dirty >= sp->changes && now - S.lastsave > sp->seconds && may_retry) {
            log_notice("%lld changes in %lld seconds. Saving...", sp->changes, sp->seconds);
            return 1;
        }
    }
    return 0;
}

void snap_cron(void) {
    poll_child();
    snapq_run_next();
    if (S.type != SNAP_NONE) return;
    char err[SNAP_ERRLEN];
    if (savepoint_due()) snap_bgsave(0, err, sizeof err);
}

int snap_shutdown(int nosave, int save, char *err, size_t errlen) {
    /* The running save ends here, completely (a failed final save leaves the
     * server running): the fork child is killed and reaped by
     * snap_run_abort; the serializer is told to stop and its completion
     * runs now (it joins the thread; the pending wake-up dies with the
     * closed handle). Nothing waiting starts meanwhile: the queue starts
     * saves only before the loop sleeps and from the cron. */
    S.save_after_abort = 0; /* the final save below, if any, replaces it */
    if (S.type != SNAP_NONE) snap_run_abort("shutdown");
    if (S.type == SNAP_FORKLESS) on_forkless_done(&S.job->done);
    assert(S.type == SNAP_NONE);
    if (nosave || (!save && server.cfg.nsave == 0)) return 0;
    log_notice("Saving the final RDB snapshot before exiting.");
    return snap_save_sync(err, errlen);
}

/* ---- restore ---- */

/* Temp files of saves a crash interrupted (ours are temp-<pid>*.rdb). */
static void remove_stale_temps(void) {
    glob_t g;
    if (glob("temp-[0-9]*.rdb", 0, NULL, &g) != 0) return;
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (unlink(g.gl_pathv[i]) == 0) log_notice("Removed stale %s", g.gl_pathv[i]);
    globfree(&g);
}

void snap_set_repl_info(snap_repl_info_fn fn) { S.repl_info = fn; }

void snap_set_staged(const snap_staged_fns *fns) { S.staged = fns; }

void snap_loaded_staged(const rdb_load_stats *st) {
    if (S.staged) S.staged->loaded(st->has_staged ? st->staged : NULL);
}

int snap_loaded_repl_info(rdb_repl_aux *out) {
    *out = S.loaded_repl;
    return out->set;
}

int snap_load_startup(char *err, size_t errlen) {
    rdb_load_stats st;
    memset(&st, 0, sizeof st);
    int64_t start = mono_us();
    server_loading_start();
    int rc = restore_file(server.cfg.dbfilename, &st, err, errlen);
    server_loading_end();
    if (rc == 1) return 0; /* no file: start empty */
    if (rc != 0) return -1;
    S.load_keys = st.keys_loaded;
    S.load_expired = st.keys_expired;
    snap_loaded_staged(&st);
    /* all three, as Redis 7.0 asks of a history it takes back */
    if (st.repl_id[0] && st.repl_offset >= 0 && st.repl_stream_db >= 0) {
        S.loaded_repl.set = 1;
        S.loaded_repl.stream_db = st.repl_stream_db;
        memcpy(S.loaded_repl.id, st.repl_id, sizeof S.loaded_repl.id);
        S.loaded_repl.offset = st.repl_offset;
    }
    log_notice("DB loaded from disk: %.3f seconds (%llu keys, %llu expired skipped, %s)",
               (double)(mono_us() - start) / 1e6, (unsigned long long)st.keys_loaded,
               (unsigned long long)st.keys_expired, st.compressed ? "lz4" : "plain");
    return 0;
}

/* ---- INFO ---- */

/* What a forkless save alone keeps alive: the queue's keys and values, and
 * the collection nodes that writes copied away from while the save holds
 * them (ptree.h; counted while a forkless save runs, since a COPY's shared
 * nodes are retired the same way). */
size_t snap_retained_bytes(void) {
    return S.type == SNAP_FORKLESS && S.job ? ser_queue_obj_bytes(S.job) + pt_retained_bytes() : 0;
}

void snap_info(vbuf *b) {
    char line[2048];
    int64_t now_us = mono_us();
    long long cur = S.type != SNAP_NONE ? (now_us - S.start_mono_us) / 1000000 : -1;
    uint64_t done = 0;
    size_t qnow = 0, qpeak = S.last_peak_extra;
    if (S.type == SNAP_FORKLESS) {
        done = atomic_load(&S.job->keys_done);
        qnow = ser_queue_bytes(S.job, &qpeak) + pt_retained_bytes();
        qpeak += pt_retained_peak();
    }
    double remaining = -1;
    if (S.type == SNAP_FORKLESS && done > 0) {
        double elapsed = (double)(now_us - S.start_mono_us) / 1e6;
        remaining = elapsed * (double)(S.keys_total - (done < S.keys_total ? done : S.keys_total)) /
                    (double)done;
    }
    /* Redis 7.0's fork-child fields: the progress of the save running;
     * no copy-on-write figure while it runs (a fork child reports its own
     * at its end: rdb_last_cow_size; a forkless save's extra bytes are
     * forkless_retained_bytes) */
    double perc = S.type == SNAP_FORKLESS && S.keys_total
                      ? (double)(done < S.keys_total ? done : S.keys_total) * 100 / (double)S.keys_total
                      : 0;
    vbuf_appendf(b, "current_cow_peak:0\r\ncurrent_cow_size:0\r\ncurrent_cow_size_age:0\r\n"
                    "current_fork_perc:%.2f\r\n", perc);
    snprintf(line, sizeof line,
             "rdb_changes_since_last_save:%lld\r\nrdb_bgsave_in_progress:%d\r\n"
             "rdb_last_save_time:%lld\r\nrdb_last_bgsave_status:%s\r\n"
             "rdb_last_bgsave_time_sec:%lld\r\nrdb_current_bgsave_time_sec:%lld\r\n"
             "rdb_saves:%llu\r\nrdb_last_cow_size:%llu\r\nrdb_last_bgsave_type:%s\r\n"
             "rdb_current_bgsave_type:%s\r\nrdb_last_save_keys:%llu\r\n"
             "rdb_last_bgsave_start_stall_usec:%lld\r\n"
             "current_save_keys_processed:%llu\r\ncurrent_save_keys_total:%llu\r\n"
             "forkless_estimated_seconds_remaining:%.1f\r\n"
             "forkless_retained_bytes:%zu\r\nforkless_peak_retained_bytes:%zu\r\n"
             "forkless_copied_nodes:%llu\r\n"
             "latest_fork_usec:%lld\r\ntotal_forks:%llu\r\n"
             "rdb_last_load_keys_loaded:%llu\r\nrdb_last_load_keys_expired:%llu\r\n",
             server.dirty, S.type != SNAP_NONE && snapq_kind(S.kind)->is_bgsave,
             (long long)S.lastsave,
             S.last_ok ? "ok" : "err", S.last_time_sec, cur, (unsigned long long)S.saves,
             (unsigned long long)S.last_cow, type_name(S.last_type), type_name(S.type),
             (unsigned long long)S.last_keys, (long long)S.stall_us,
             (unsigned long long)(S.type == SNAP_FORKLESS ? done : 0),
             (unsigned long long)(S.type != SNAP_NONE ? S.keys_total : 0),
             remaining < 0 ? 0.0 : remaining, qnow, qpeak,
             (unsigned long long)pt_copied_nodes(), (long long)S.latest_fork_usec,
             (unsigned long long)S.total_forks, (unsigned long long)S.load_keys,
             (unsigned long long)S.load_expired);
    vbuf_append_str(b, line);
}

/* ---- registration with the core (hooks.h) ---- */

static void before_flush_hook(void) { abort_on_flush(); }

static void after_flush_hook(int all) {
    (void)all; /* FLUSHDB saves too, as before this hook existed */
    snap_after_flushall();
}

/* DEBUG RELOAD [NOSAVE] [NOFLUSH] [MERGE], as Redis 7.0's: SAVE (its
 * failure answered with a bare "ERR"), every database and the function
 * libraries emptied (unless NOFLUSH), the file loaded back (MERGE: its keys
 * replace those there; without it a key there already fails the load). Not
 * while a background save runs (it walks the tables being emptied). */
static int debug_reload(int flags, char *err, size_t errlen) {
    if (S.type != SNAP_NONE) return snapq_refuse(NULL, err, errlen);
    if (!(flags & HOOKS_RELOAD_NOSAVE) && snap_save_sync(err, errlen) != 0) {
        snprintf(err, errlen, "ERR");
        return -1;
    }
    if (!(flags & HOOKS_RELOAD_NOFLUSH)) {
        for (int i = 0; i < server.cfg.databases; i++) db_flush(db_get(i));
        function_flush();   /* emptyData's: the file holds the libraries */
    }
    rdb_load_stats st;
    memset(&st, 0, sizeof st);
    char why[SNAP_ERRLEN];
    server_loading_start();
    restore_set_merge((flags & HOOKS_RELOAD_MERGE) != 0);
    int rc = restore_file(server.cfg.dbfilename, &st, why, sizeof why);
    restore_set_merge(0);
    server_loading_end();
    if (rc != 0) {
        log_warning("DEBUG RELOAD: %s", rc > 0 ? "no RDB file" : why);
        snprintf(err, errlen, "ERR Error trying to load the RDB dump");
        return -1;
    }
    snap_loaded_staged(&st);
    log_warning("DB reloaded by DEBUG RELOAD (%llu keys)", (unsigned long long)st.keys_loaded);
    return 0;
}

static void info_hook(const char *section, vbuf *b) {
    if (!strcmp(section, "persistence")) snap_info(b);
}

static const hooks snap_hooks = {
    .name = "snapshot",
    .write_gate = misconf_gate,
    .cron = snap_cron,
    .before_sleep = snapq_run_next,
    .before_flush = before_flush_hook,
    .keep_retired_table = snap_keep_retired_table,
    .not_counted_memory = snap_retained_bytes,
    .after_flush = after_flush_hook,
    .info = info_hook,
    .prepare_shutdown = snap_shutdown,
    .debug_reload = debug_reload,
};
