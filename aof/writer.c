/* writer: the AOF writer thread (see writer.h).
 *
 * One writer thread and AOFW_FSYNC_THREADS fsync threads per writer,
 * meeting the main thread and each other only through `lock`:
 *
 *  - the writer thread takes the whole submission queue at once and write()s
 *    it in order. Under `always` it then posts one fdatasync covering the
 *    batch to the fsync threads and goes on writing: that is the group
 *    commit (submissions pile up while an fsync runs and become the next,
 *    bigger batch), and up to AOFW_FSYNC_THREADS such fsyncs may overlap.
 *  - the fsync threads run those fsyncs, the `everysec` ones (one at a time),
 *    and, under `everysec`, the last fsync and the close() of the old file
 *    after a file switch, so that a slow fsync never holds up the writing of
 *    new batches (Redis postpones its writes instead). When no fsync or
 *    close waits, they also remove the files queued by aofw_unlink_later
 *    (as Redis's bio thread unlinks old AOF files).
 *
 * Only the writer thread writes to and switches files; it closes the old
 * file itself under `always` / `no`, after waiting until the fsync threads
 * are idle (writer_fsync_now), as it does at stop. An fsync thread closes a
 * file only once no other fsync of it is queued or running (fsync_main), so
 * an fsync never meets a closed or reused fd.
 *
 * Failures. A failed write keeps exactly the unwritten bytes at the head of
 * the writer's pending list (a chunk remembers how much of it is written) and
 * retries every second; write_ok is 0 until a write succeeds. A failed fsync
 * is sticky: Linux may drop the dirty pages after reporting the error once,
 * so a later successful fsync proves nothing about them. `synced` then
 * stops advancing and write_ok stays 0 for the life of this writer (Redis
 * exits under `always`; the main thread decides what to do).
 *
 * delayed_fsync (everysec): the number of fsyncs that started when the oldest
 * byte they cover had been written more than 2 s before, i.e. the times the
 * everysec promise (at most ~2 s of writes lost) was broken, usually because
 * the previous fsync was still running. Redis's aof_delayed_fsync counts the
 * writes that waited 2 s for a running fsync and then went ahead anyway; we
 * never hold writes back, so this is the closest figure.
 *
 * Stop: the writer drains everything, fsyncs and closes its file. A write
 * that keeps failing while stopping is tried AOFW_STOP_TRIES more times,
 * then the rest is dropped (logged), so that a full disk cannot hang a
 * shutdown. */
#include "writer.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "log.h"
#include "util.h"

#define AOFW_RETRY_US 1000000    /* a failed write is retried after 1 s */
#define AOFW_EVERYSEC_US 1000000
#define AOFW_DELAYED_US 2000000  /* everysec: an fsync starting later is delayed */
#define AOFW_STOP_TRIES 2        /* retries of a failing write once stopping */

/* Written buffers kept for the main thread to fill again (aofw_submit), at
 * most this many, each of at most this capacity: a fresh buffer costs the
 * main thread a page fault per 4 KiB it appends (with 180 KB values, 36 of
 * its 74 page faults per SET, and a quarter of its CPU). */
#define AOFW_POOL_N 4
#define AOFW_POOL_MAX_CAP ((size_t)4 << 20)

/* fsync threads: `always` overlaps up to this many fsyncs. */
#define AOFW_FSYNC_THREADS 8

/* A file to remove (aofw_unlink_later). */
typedef struct unlink_job {
    struct unlink_job *next;
    char path[];
} unlink_job;

/* A submitted buffer, or a file switch (data == NULL). */
typedef struct chunk {
    struct chunk *next;
    char *data;   /* malloc'd; the vbuf storage handed over */
    size_t len;
    size_t cap;   /* its capacity */
    size_t off;   /* bytes of data already written (writer thread only) */
    int new_fd;   /* file switch: the file every later byte goes to */
    aofw_switch_fn before; /* file switch: runs first (writer thread) */
    void *arg;
} chunk;

struct aofw {
    /* set in aofw_start, then read-only */
    void (*on_progress)(void *priv);
    void *priv;
    ssize_t (*write_fn)(int, const void *, size_t);
    int (*fsync_fn)(int);
    int (*unlink_fn)(const char *);
    void (*wake_hook)(void);    /* tests only (aofw_test_set_fsync_wake_hook) */
    uv_async_t async;           /* send: any thread; init, close: main thread */
    pthread_t writer_tid;       /* main thread only */
    pthread_t fsync_tid[AOFW_FSYNC_THREADS]; /* main thread only */
    int nfsync_threads;         /* main thread only: started */

    pthread_mutex_t lock;       /* held for a push, a swap or a flag, never I/O */
    pthread_cond_t writer_cond; /* wakes the writer thread (monotonic clock) */
    pthread_cond_t fsync_cond;  /* wakes the fsync threads */
    chunk *q_head, *q_tail;     /* under lock: submitted, not yet taken */
    int stop;                   /* under lock */
    int fs_req;                 /* under lock: an fsync is requested */
    int fs_busy;                /* under lock: fsync threads now fsyncing */
    int fs_stop;                /* under lock */
    unlink_job *ul_head, *ul_tail; /* under lock: files to remove */
    char *pool[AOFW_POOL_N];    /* under lock: written buffers to reuse, */
    size_t pool_cap[AOFW_POOL_N]; /* their capacities */
    int npool;
    int close_req;              /* under lock: an old file to fsync and close */
    int close_fd;               /* under lock:   its fd, */
    uint64_t close_upto;        /*   the written count it covers */
    int fs_running_fd[AOFW_FSYNC_THREADS]; /* under lock: the fd each fsync
                                 * thread fsyncs or closes now (-1: none) */
    int fs_slots;               /* under lock: fsync threads that took a slot */
    int fs_fd;                  /* under lock: the request: fd, */
    uint64_t fs_upto;           /*   the written count it covers, */
    int64_t fs_since_us;        /*   when its oldest byte was written */
    int write_ok;               /* under lock */
    int sync_lost;              /* under lock: an fsync failed (sticky) */
    char last_error[256];       /* under lock */

    _Atomic int policy;              /* atomic: set by the main thread */
    _Atomic uint64_t submitted;      /* atomic: main thread adds */
    _Atomic uint64_t written;        /* atomic: writer thread adds */
    _Atomic uint64_t synced;         /* atomic: whoever fsyncs raises it */
    _Atomic uint64_t fsyncs;         /* atomic */
    _Atomic uint64_t delayed_fsync;  /* atomic */
    _Atomic uint64_t pending_fsync;  /* atomic */
    _Atomic int64_t last_fsync_us;   /* atomic */
    _Atomic int64_t max_write_us;    /* atomic: the slowest write(2) and */
    _Atomic int64_t max_fsync_us;    /* fsync since aofw_take_latency */

    int fd;                     /* writer thread only: the current file */
    chunk *p_head, *p_tail;     /* writer thread only: taken, not yet written */
    int64_t retry_at_us;        /* writer thread only: after a failed write */
    int stop_failures;          /* writer thread only */
    uint64_t covered;           /* writer thread only: written count at the
                                 * start of the last fsync */
    int64_t unsynced_since_us;  /* writer thread only: when the oldest byte
                                 * not covered was written (0: none) */
    int64_t last_fsync_start_us;/* writer thread only: the everysec clock */
};

static ssize_t (*test_write_fn)(int, const void *, size_t);
static int (*test_fsync_fn)(int);
static int (*test_unlink_fn)(const char *);
static void (*test_wake_hook)(void);

void aofw_test_set_write_fn(ssize_t (*fn)(int, const void *, size_t)) { test_write_fn = fn; }
void aofw_test_set_fsync_fn(int (*fn)(int)) { test_fsync_fn = fn; }
void aofw_test_set_unlink_fn(int (*fn)(const char *)) { test_unlink_fn = fn; }
void aofw_test_set_fsync_wake_hook(void (*fn)(void)) { test_wake_hook = fn; }

/* ---- shared helpers (writer and fsync threads) ---- */

static const char *errtext(int err, char *buf, size_t len) {
#if defined(_GNU_SOURCE)
    return strerror_r(err, buf, len);
#else
    if (strerror_r(err, buf, len) != 0) snprintf(buf, len, "error %d", err);
    return buf;
#endif
}

/* Records a failure; logs only when write_ok goes from 1 to 0. */
static void note_failure(aofw *w, int err, int is_fsync) {
    char buf[256];
    const char *msg = errtext(err, buf, sizeof buf);
    pthread_mutex_lock(&w->lock);
    int was_ok = w->write_ok;
    w->write_ok = 0;
    if (is_fsync) w->sync_lost = 1;
    snprintf(w->last_error, sizeof w->last_error, "%s", msg);
    pthread_mutex_unlock(&w->lock);
    if (was_ok || is_fsync)
        log_warning("%s the AOF file: %s", is_fsync ? "Error fsyncing" : "Error writing to", msg);
}

/* A write succeeded after failures: write_ok is 1 again, unless an fsync
 * failed (sticky). */
static void note_recovery(aofw *w) {
    pthread_mutex_lock(&w->lock);
    int recovered = !w->write_ok && !w->sync_lost;
    if (recovered) w->write_ok = 1;
    pthread_mutex_unlock(&w->lock);
    if (recovered) log_warning("AOF write error looks solved, writing again.");
}

/* *a = max(*a, v), from any thread. */
static void atomic_max(_Atomic int64_t *a, int64_t v) {
    int64_t cur = atomic_load(a);
    while (v > cur && !atomic_compare_exchange_weak(a, &cur, v)) {
    }
}

/* Runs one fsync of fd covering `upto` written bytes. since_us: when the
 * oldest byte covered was written (0: do not count delays). */
static void run_fsync(aofw *w, int fd, uint64_t upto, int64_t since_us) {
    int64_t t0 = mono_us();
    if (since_us && t0 - since_us > AOFW_DELAYED_US) atomic_fetch_add(&w->delayed_fsync, 1);
    atomic_fetch_add(&w->pending_fsync, 1);
    int rc;
    do rc = w->fsync_fn(fd);
    while (rc < 0 && errno == EINTR);
    int err = rc < 0 ? errno : 0;
    int64_t took = mono_us() - t0;
    atomic_store(&w->last_fsync_us, took);
    atomic_max(&w->max_fsync_us, took);
    atomic_fetch_add(&w->fsyncs, 1);
    if (err) {
        note_failure(w, err, 1);
    } else {
        pthread_mutex_lock(&w->lock);
        /* an fsync covers bytes written before it started: synced <= written */
        assert(upto <= atomic_load(&w->written));
        if (!w->sync_lost && atomic_load(&w->synced) < upto) atomic_store(&w->synced, upto);
        pthread_mutex_unlock(&w->lock);
    }
    atomic_fetch_sub(&w->pending_fsync, 1);
}

static void free_chunk(chunk *c) {
    if (!c->data && c->new_fd >= 0) close(c->new_fd);
    if (c->before) c->before(c->arg, 0);
    free(c->data);
    free(c);
}

/* ---- the fsync threads ----
 * One request slot (fd, written count it covers); a newer request replaces
 * one not yet taken, since it covers more. `always` lets several fsyncs
 * overlap: a write that arrives while one runs starts its own at once
 * instead of waiting for it to end (on a slow network disk the fsync is
 * latency, not bandwidth). `everysec` keeps one at a time.
 *
 * The close of an old file (everysec switch) is a second slot. No fsync
 * ever runs on a closed fd, nor on a later file that reused its number: the
 * switch cancels a request for the old file not yet taken (switch_file), and
 * the close is taken only once no fsync thread is fsyncing that fd
 * (fs_running_fd). */

/* Under lock: 1 when an fsync thread is fsyncing (or closing) fd. */
static int fd_running_locked(const aofw *w, int fd) {
    for (int i = 0; i < AOFW_FSYNC_THREADS; i++)
        if (w->fs_running_fd[i] == fd) return 1;
    return 0;
}

/* Under lock: 1 to close now, 0 when no close is queued or it must wait. */
static int close_ready_locked(const aofw *w) {
    return w->close_req && !fd_running_locked(w, w->close_fd);
}

/* Called with the lock held, which it drops around the unlink: removes
 * the first queued file. */
static void run_unlink_locked(aofw *w) {
    unlink_job *u = w->ul_head;
    w->ul_head = u->next;
    if (!w->ul_head) w->ul_tail = NULL;
    pthread_mutex_unlock(&w->lock);
    if (w->unlink_fn(u->path) != 0 && errno != ENOENT) {
        char buf[128];
        log_warning("Removing old AOF file %s: %s", u->path, errtext(errno, buf, sizeof buf));
    }
    free(u);
    pthread_mutex_lock(&w->lock);
}

static void *fsync_main(void *arg) {
    aofw *w = arg;
    pthread_mutex_lock(&w->lock);
    int me = w->fs_slots++; /* this thread's fs_running_fd slot */
    assert(me < AOFW_FSYNC_THREADS);
    for (;;) {
        int closing = close_ready_locked(w);
        if (!closing && !w->fs_req && w->ul_head) { /* fsyncs first */
            run_unlink_locked(w);
            continue;
        }
        if (!closing && !w->fs_req) {
            if (w->fs_stop && !w->close_req) break;
            pthread_cond_wait(&w->fsync_cond, &w->lock);
            if (w->wake_hook && (w->fs_req || close_ready_locked(w))) {
                pthread_mutex_unlock(&w->lock);
                w->wake_hook();
                pthread_mutex_lock(&w->lock);
            }
            continue;
        }
        int fd;
        uint64_t upto;
        int64_t since = 0;
        if (closing) { /* everysec file switch: the old file's last fsync */
            fd = w->close_fd;
            upto = w->close_upto;
            w->close_req = 0;
            /* a file is closed only once no fsync of it runs (and, by
             * switch_file, none is queued) */
            assert(!fd_running_locked(w, fd));
            assert(!w->fs_req || w->fs_fd != fd);
        } else {
            fd = w->fs_fd;
            upto = w->fs_upto;
            since = w->fs_since_us;
            w->fs_req = 0;
            /* never an fsync of a file queued for closing (switch_file
             * drops such a request) */
            assert(!w->close_req || w->close_fd != fd);
        }
        assert(fd >= 0 && w->fs_running_fd[me] == -1);
        w->fs_running_fd[me] = fd;
        w->fs_busy++;
        assert(w->fs_busy <= w->fs_slots);
        pthread_mutex_unlock(&w->lock);
        run_fsync(w, fd, upto, since);
        if (closing && close(fd) < 0)
            log_warning("Error closing the old AOF file: %s", strerror(errno));
        uv_async_send(&w->async);
        pthread_mutex_lock(&w->lock);
        w->fs_running_fd[me] = -1;
        assert(w->fs_busy > 0);
        w->fs_busy--;
        pthread_cond_broadcast(&w->writer_cond);
        if (w->close_req) pthread_cond_broadcast(&w->fsync_cond); /* it may wait for us */
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ---- the writer thread ---- */

/* Under lock: 1 when the writer has work now; else 0 and *deadline is the
 * monotonic time to wake up at (0: only when signalled). */
static int writer_due_locked(aofw *w, int64_t now, int64_t *deadline) {
    *deadline = 0;
    if (w->p_head) {
        if (now >= w->retry_at_us) return 1;
        *deadline = w->retry_at_us;
    } else if (w->stop) {
        return 1;
    }
    if (atomic_load(&w->written) == w->covered) return 0;
    int policy = atomic_load(&w->policy);
    if (policy == FSYNC_ALWAYS) return 1; /* post a request (never waits) */
    if (policy == FSYNC_EVERYSEC && !w->fs_req && !w->fs_busy) {
        int64_t due = w->last_fsync_start_us + AOFW_EVERYSEC_US;
        if (now >= due) return 1;
        if (!*deadline || due < *deadline) *deadline = due;
    }
    return 0;
}

static void timed_wait(pthread_cond_t *cond, pthread_mutex_t *lock, int64_t deadline_us) {
    struct timespec ts = {.tv_sec = deadline_us / 1000000,
                          .tv_nsec = (long)(deadline_us % 1000000) * 1000};
    pthread_cond_timedwait(cond, lock, &ts);
}

/* Waits for work, moving the submission queue to the pending list.
 * Returns 1 once stop was asked. */
static int writer_wait(aofw *w) {
    pthread_mutex_lock(&w->lock);
    for (;;) {
        if (w->q_head) {
            if (w->p_tail) w->p_tail->next = w->q_head;
            else w->p_head = w->q_head;
            w->p_tail = w->q_tail;
            w->q_head = w->q_tail = NULL;
        }
        int64_t deadline;
        if (writer_due_locked(w, mono_us(), &deadline)) break;
        if (deadline) timed_wait(&w->writer_cond, &w->lock, deadline);
        else pthread_cond_wait(&w->writer_cond, &w->lock);
    }
    int stopping = w->stop;
    pthread_mutex_unlock(&w->lock);
    return stopping;
}

/* Fsyncs the current file now on the writer thread (file switch under
 * always / no, stop), once the fsync threads are idle. */
static void writer_fsync_now(aofw *w) {
    pthread_mutex_lock(&w->lock);
    while (w->fs_req || w->fs_busy || w->close_req)
        pthread_cond_wait(&w->writer_cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    uint64_t upto = atomic_load(&w->written);
    assert(upto >= w->covered); /* written only grows */
    if (upto == w->covered) return;
    w->covered = upto;
    w->unsynced_since_us = 0;
    w->last_fsync_start_us = mono_us();
    run_fsync(w, w->fd, upto, 0);
}

/* everysec: hands an fsync to the fsync threads when one is due and none
 * is queued or running (an fsync thread wakes us as it finishes). */
static void writer_post_fsync(aofw *w) {
    int64_t now = mono_us();
    if (now - w->last_fsync_start_us < AOFW_EVERYSEC_US) return;
    pthread_mutex_lock(&w->lock);
    if (!w->fs_req && !w->fs_busy) {
        w->fs_fd = w->fd;
        w->fs_upto = atomic_load(&w->written);
        assert(w->fs_upto >= w->covered);
        w->fs_since_us = w->unsynced_since_us;
        w->fs_req = 1;
        pthread_cond_signal(&w->fsync_cond);
        w->covered = w->fs_upto;
        w->unsynced_since_us = 0;
        w->last_fsync_start_us = now;
    }
    pthread_mutex_unlock(&w->lock);
}

/* always: asks an fsync thread to cover everything written so far; the
 * writer goes on writing meanwhile. */
static void writer_post_fsync_always(aofw *w) {
    pthread_mutex_lock(&w->lock);
    w->fs_fd = w->fd;
    w->fs_upto = atomic_load(&w->written);
    assert(w->fs_upto >= w->covered);
    w->fs_since_us = 0;
    w->fs_req = 1;
    pthread_cond_signal(&w->fsync_cond);
    w->covered = w->fs_upto;
    w->unsynced_since_us = 0;
    pthread_mutex_unlock(&w->lock);
}

static void writer_sync(aofw *w) {
    if (atomic_load(&w->written) == w->covered) return;
    int policy = atomic_load(&w->policy);
    if (policy == FSYNC_ALWAYS) writer_post_fsync_always(w);
    else if (policy == FSYNC_EVERYSEC) writer_post_fsync(w);
}

/* Writes at most this much per write(2) and reports progress after each:
 * parked clients resume as the backlog drains, not when a large batch ends. */
#define AOFW_WRITE_STEP ((size_t)1 << 20)

/* Writes what is left of c. Returns 0, or the errno that stopped it (c->off
 * then counts exactly the bytes written). */
static int write_chunk(aofw *w, chunk *c) {
    while (c->off < c->len) {
        size_t want = c->len - c->off;
        if (want > AOFW_WRITE_STEP) want = AOFW_WRITE_STEP;
        int64_t t0 = mono_us();
        ssize_t n = w->write_fn(w->fd, c->data + c->off, want);
        atomic_max(&w->max_write_us, mono_us() - t0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return errno ? errno : EIO;
        if (n == 0) return ENOSPC; /* a write of nothing: as Redis, the disk is full */
        assert((size_t)n <= want);
        if (!w->unsynced_since_us) w->unsynced_since_us = mono_us();
        c->off += (size_t)n;
        uint64_t written = atomic_fetch_add(&w->written, (uint64_t)n) + (uint64_t)n;
        /* aofw_submit counts bytes before it queues them */
        assert(written <= atomic_load(&w->submitted));
        uv_async_send(&w->async); /* coalesced by libuv: cheap */
    }
    return 0;
}

/* File switch: everything before it is written; run the switch's own step
 * (the AOF persists the manifest naming the new file), then fsync and close
 * the old file. 0, or an errno when the step failed (retried later). */
static int switch_file(aofw *w, chunk *c) {
    if (c->before) {
        int err = c->before(c->arg, 1);
        if (err) return err;
        c->before(c->arg, 0);
        c->before = NULL;
    }
    if (c->new_fd < 0) return 0; /* a step only, no switch */
    if (atomic_load(&w->policy) == FSYNC_EVERYSEC) {
        /* The old file may hold hundreds of MB not yet fsynced: the fsync
         * thread fsyncs and closes it while the writer goes on in the new
         * file (a rewrite must not stall the stream, and so the clients). */
        pthread_mutex_lock(&w->lock);
        while (w->close_req) pthread_cond_wait(&w->writer_cond, &w->lock);
        /* A posted fsync not yet taken is of this same file (only the writer
         * posts, always for w->fd): drop it, the close's fsync covers more.
         * Left queued, it could be served after the close, on a closed fd
         * (EBADF: a sticky failure) or on a later file given the same number.
         * An fsync of it already running delays the close (fsync_main). */
        if (w->fs_req) {
            assert(w->fs_fd == w->fd);
            w->fs_req = 0;
        }
        w->close_fd = w->fd;
        w->close_upto = atomic_load(&w->written);
        w->close_req = 1;
        pthread_cond_signal(&w->fsync_cond);
        pthread_mutex_unlock(&w->lock);
        w->covered = w->close_upto;
        w->unsynced_since_us = 0;
        w->fd = c->new_fd;
        c->new_fd = -1;
        return 0;
    }
    writer_fsync_now(w);
    if (close(w->fd) < 0) {
        char buf[128];
        log_warning("Error closing the old AOF file: %s", errtext(errno, buf, sizeof buf));
    }
    w->fd = c->new_fd;
    c->new_fd = -1;
    return 0;
}

/* Stopping and a write keeps failing: drop the rest so that shutdown ends. */
static void drop_pending(aofw *w) {
    uint64_t lost = 0;
    while (w->p_head) {
        chunk *c = w->p_head;
        w->p_head = c->next;
        if (c->data) lost += c->len - c->off;
        free_chunk(c);
    }
    w->p_tail = NULL;
    log_warning("AOF writer stopping with the file still failing: %llu bytes lost",
                (unsigned long long)lost);
}

/* Writer thread: a written data chunk's buffer goes to the pool when there
 * is room, else it is freed with the chunk. */
static void recycle_chunk(aofw *w, chunk *c) {
    if (c->data && c->cap <= AOFW_POOL_MAX_CAP) {
        pthread_mutex_lock(&w->lock);
        if (w->npool < AOFW_POOL_N) {
            w->pool[w->npool] = c->data;
            w->pool_cap[w->npool++] = c->cap;
            c->data = NULL;
        }
        pthread_mutex_unlock(&w->lock);
    }
    free_chunk(c);
}

/* Writes the pending list in order, up to the first failure. */
static void writer_flush(aofw *w, int stopping) {
    if (!w->p_head || mono_us() < w->retry_at_us) return;
    int err = 0;
    while (w->p_head && !err) {
        chunk *c = w->p_head;
        if (c->data) err = write_chunk(w, c);
        else err = switch_file(w, c);
        if (err) break;
        w->p_head = c->next;
        if (!w->p_head) w->p_tail = NULL;
        recycle_chunk(w, c);
    }
    if (!err) {
        if (w->retry_at_us) note_recovery(w);
        w->retry_at_us = 0;
        return;
    }
    note_failure(w, err, 0);
    w->retry_at_us = mono_us() + AOFW_RETRY_US;
    if (stopping && ++w->stop_failures > AOFW_STOP_TRIES) drop_pending(w);
}

static void *writer_main(void *arg) {
    aofw *w = arg;
    for (;;) {
        int stopping = writer_wait(w);
        writer_flush(w, stopping);
        writer_sync(w);
        uv_async_send(&w->async);
        if (stopping && !w->p_head) break;
    }
    writer_fsync_now(w);
    close(w->fd);
    w->fd = -1;
    pthread_mutex_lock(&w->lock);
    w->fs_stop = 1;
    pthread_cond_broadcast(&w->fsync_cond);
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* ---- main thread ---- */

static void on_async(uv_async_t *a) {
    aofw *w = a->data;
    if (w->on_progress) w->on_progress(w->priv);
}

static void on_closed(uv_handle_t *h) {
    aofw *w = h->data;
    while (w->q_head) {
        chunk *c = w->q_head;
        w->q_head = c->next;
        free_chunk(c);
    }
    for (int i = 0; i < w->npool; i++) free(w->pool[i]);
    pthread_cond_destroy(&w->writer_cond);
    pthread_cond_destroy(&w->fsync_cond);
    pthread_mutex_destroy(&w->lock);
    free(w);
}

static int init_sync(aofw *w) {
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca) != 0) return -1;
    int rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (rc == 0) rc = pthread_cond_init(&w->writer_cond, &ca);
    pthread_condattr_destroy(&ca);
    if (rc != 0) return -1;
    if (pthread_cond_init(&w->fsync_cond, NULL) != 0) {
        pthread_cond_destroy(&w->writer_cond);
        return -1;
    }
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        pthread_cond_destroy(&w->writer_cond);
        pthread_cond_destroy(&w->fsync_cond);
        return -1;
    }
    return 0;
}

aofw *aofw_start(uv_loop_t *loop, int fd, int policy, void (*on_progress)(void *priv),
                 void *priv, char *err, size_t errlen) {
    aofw *w = xcalloc(1, sizeof *w);
    w->on_progress = on_progress;
    w->priv = priv;
    w->write_fn = test_write_fn ? test_write_fn : write;
    w->fsync_fn = test_fsync_fn ? test_fsync_fn : fdatasync;
    w->unlink_fn = test_unlink_fn ? test_unlink_fn : unlink;
    w->wake_hook = test_wake_hook;
    for (int i = 0; i < AOFW_FSYNC_THREADS; i++) w->fs_running_fd[i] = -1;
    w->fd = fd;
    w->write_ok = 1;
    w->last_fsync_start_us = mono_us();
    atomic_init(&w->policy, policy);
    if (init_sync(w) != 0) {
        snprintf(err, errlen, "Can't create the AOF writer's locks");
        free(w);
        return NULL;
    }
    int rc = uv_async_init(loop, &w->async, on_async);
    if (rc != 0) {
        snprintf(err, errlen, "Can't create the AOF writer's wake-up: %s", uv_strerror(rc));
        w->async.data = w;
        on_closed((uv_handle_t *)&w->async);
        return NULL;
    }
    w->async.data = w;
    rc = 0;
    for (int i = 0; i < AOFW_FSYNC_THREADS && rc == 0; i++) {
        rc = pthread_create(&w->fsync_tid[i], NULL, fsync_main, w);
        if (rc == 0) w->nfsync_threads++;
    }
    if (rc == 0) rc = pthread_create(&w->writer_tid, NULL, writer_main, w);
    if (rc != 0) {
        pthread_mutex_lock(&w->lock);
        w->fs_stop = 1;
        pthread_cond_broadcast(&w->fsync_cond);
        pthread_mutex_unlock(&w->lock);
        for (int i = 0; i < w->nfsync_threads; i++) pthread_join(w->fsync_tid[i], NULL);
    }
    if (rc != 0) {
        char buf[128];
        snprintf(err, errlen, "Can't start the AOF writer thread: %s", errtext(rc, buf, sizeof buf));
        uv_close((uv_handle_t *)&w->async, on_closed);
        return NULL;
    }
    return w;
}

/* Under the lock: appends c to the writer's queue and wakes it. */
static void enqueue_locked(aofw *w, chunk *c) {
    if (w->q_tail) w->q_tail->next = c;
    else w->q_head = c;
    w->q_tail = c;
    pthread_cond_signal(&w->writer_cond);
}

static void enqueue(aofw *w, chunk *c) {
    pthread_mutex_lock(&w->lock);
    enqueue_locked(w, c);
    pthread_mutex_unlock(&w->lock);
}

void aofw_submit(aofw *w, vbuf *buf) {
    if (buf->len == 0) return;
    chunk *c = xmalloc(sizeof *c);
    *c = (chunk){.data = buf->data, .len = buf->len, .cap = buf->cap, .new_fd = -1};
    vbuf_init(buf);
    /* before the push: the writer never counts bytes not yet submitted */
    atomic_fetch_add(&w->submitted, c->len);
    pthread_mutex_lock(&w->lock);
    enqueue_locked(w, c);
    if (w->npool > 0) { /* the next batch fills a written buffer again */
        w->npool--;
        buf->data = w->pool[w->npool];
        buf->cap = w->pool_cap[w->npool];
    }
    pthread_mutex_unlock(&w->lock);
}

void aofw_switch_file_after(aofw *w, int new_fd, aofw_switch_fn before, void *arg) {
    chunk *c = xmalloc(sizeof *c);
    *c = (chunk){.new_fd = new_fd, .before = before, .arg = arg};
    enqueue(w, c);
}

void aofw_unlink_later(aofw *w, const char *path) {
    size_t n = strlen(path) + 1;
    unlink_job *u = xmalloc(sizeof *u + n);
    u->next = NULL;
    memcpy(u->path, path, n);
    pthread_mutex_lock(&w->lock);
    if (w->ul_tail) w->ul_tail->next = u;
    else w->ul_head = u;
    w->ul_tail = u;
    pthread_cond_signal(&w->fsync_cond);
    pthread_mutex_unlock(&w->lock);
}

void aofw_switch_file(aofw *w, int new_fd) { aofw_switch_file_after(w, new_fd, NULL, NULL); }

void aofw_set_policy(aofw *w, int policy) {
    atomic_store(&w->policy, policy);
    pthread_mutex_lock(&w->lock);
    pthread_cond_signal(&w->writer_cond); /* e.g. to always: fsync what is written */
    pthread_mutex_unlock(&w->lock);
}

void aofw_take_latency(aofw *w, int64_t *write_us, int64_t *fsync_us) {
    *write_us = atomic_exchange(&w->max_write_us, 0);
    *fsync_us = atomic_exchange(&w->max_fsync_us, 0);
}

/* The counters are read synced, written, submitted: each only grows and
 * synced <= written <= submitted holds at every instant, so the copy keeps
 * that order too. */
void aofw_get_stats(aofw *w, aofw_stats *st) {
    st->synced = atomic_load(&w->synced);
    st->written = atomic_load(&w->written);
    st->submitted = atomic_load(&w->submitted);
    assert(st->synced <= st->written && st->written <= st->submitted);
    st->fsyncs = atomic_load(&w->fsyncs);
    st->delayed_fsync = atomic_load(&w->delayed_fsync);
    st->pending_fsync = atomic_load(&w->pending_fsync);
    st->last_fsync_us = atomic_load(&w->last_fsync_us);
    pthread_mutex_lock(&w->lock);
    st->write_ok = w->write_ok;
    memcpy(st->last_error, w->last_error, sizeof st->last_error);
    pthread_mutex_unlock(&w->lock);
}

void aofw_progress(aofw *w, uint64_t *written, uint64_t *synced) {
    *synced = atomic_load(&w->synced);
    *written = atomic_load(&w->written);
}

uint64_t aofw_backlog(aofw *w) {
    uint64_t written = atomic_load(&w->written); /* first: the difference stays >= 0 */
    uint64_t submitted = atomic_load(&w->submitted);
    assert(written <= submitted);
    return submitted - written;
}

int aofw_stop(aofw *w) {
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->writer_cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->writer_tid, NULL);
    for (int i = 0; i < w->nfsync_threads; i++) pthread_join(w->fsync_tid[i], NULL);
    assert(atomic_load(&w->synced) <= atomic_load(&w->written) &&
           atomic_load(&w->written) <= atomic_load(&w->submitted));
    int rc = atomic_load(&w->synced) == atomic_load(&w->submitted) ? 0 : -1;
    uv_close((uv_handle_t *)&w->async, on_closed);
    return rc;
}
