/* serializer: the forkless snapshot thread (see serializer.h). */
#include "serializer.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "info.h"
#include "keyslot.h"
#include "log.h"
#include "util.h"

static size_t item_bytes(const ser_item *it) {
    return sizeof *it + obj_mem(it->val); /* the value holds its key */
}

/* The item is the save's own allocation: counted with the value it holds
 * (obj_mem_total and q_obj_bytes), so that used_memory and maxmemory see
 * all that the queue keeps alive. */
static size_t item_obj_bytes(const ser_item *it) {
    return it->self_bytes + obj_alloc_size(it->val);
}

/* 1 when the job writes val's key: always, or when its slot is in the
 * job's set (any thread: the set is read-only during the job). */
static int job_wants(const ser_job *job, const obj *val) {
    if (!job->slots) return 1;
    size_t klen;
    const char *key = obj_kv_key(val, &klen);
    unsigned slot = key_hash_slot(key, klen);
    return job->slots[slot >> 3] >> (slot & 7) & 1;
}

/* Main thread, with the bucket lock of the entry held by vt. A key the
 * job does not write is not handed over: marked saved, it is skipped. */
void ser_capture(void *priv, obj *val, int64_t expire) {
    ser_db *d = priv;
    ser_job *job = d->job;
    assert(val && obj_is_kv(val));
    if (!job_wants(job, val)) {
        obj_decref(val); /* the reference vt took for the hand-over */
        return;
    }
    ser_item *it = xmalloc(sizeof *it);
    it->next = NULL;
    it->db = d->id;
    it->val = val;
    it->expire = expire;
    it->self_bytes = (unsigned)obj_mem_account_add(it);
    size_t bytes = item_bytes(it), obj_bytes = item_obj_bytes(it);
    pthread_mutex_lock(&job->q_lock);
    assert(*job->q_tail == NULL); /* q_tail points at the list's end */
    *job->q_tail = it;
    job->q_tail = &it->next;
    job->q_bytes += bytes;
    job->q_obj_bytes += obj_bytes;
    if (job->q_bytes > job->q_peak) job->q_peak = job->q_bytes;
    pthread_mutex_unlock(&job->q_lock);
}

size_t ser_queue_bytes(ser_job *job, size_t *peak) {
    pthread_mutex_lock(&job->q_lock);
    size_t now = job->q_bytes;
    if (peak) *peak = job->q_peak;
    pthread_mutex_unlock(&job->q_lock);
    return now;
}

size_t ser_queue_obj_bytes(ser_job *job) {
    pthread_mutex_lock(&job->q_lock);
    size_t now = job->q_obj_bytes;
    pthread_mutex_unlock(&job->q_lock);
    return now;
}

/* Serializer: takes the whole queue (one swap under the lock). */
static ser_item *queue_take(ser_job *job) {
    pthread_mutex_lock(&job->q_lock);
    ser_item *list = job->q_head;
    job->q_head = NULL;
    job->q_tail = &job->q_head;
    pthread_mutex_unlock(&job->q_lock);
    return list;
}

static void queue_release(ser_job *job, size_t bytes, size_t obj_bytes) {
    pthread_mutex_lock(&job->q_lock);
    /* the counts held these items since ser_capture added them */
    assert(job->q_bytes >= bytes && job->q_obj_bytes >= obj_bytes);
    job->q_bytes -= bytes;
    job->q_obj_bytes -= obj_bytes;
    pthread_mutex_unlock(&job->q_lock);
}

static void free_items(ser_item *it) {
    while (it) {
        ser_item *next = it->next;
        obj_decref(it->val);
        obj_mem_account_sub(it);
        free(it);
        it = next;
    }
}

/* Serializer: writes every handed-over pre-image. 0 or -1 (writer error).
 * Items leave the byte counts in batches of DRAIN_BATCH, just before they
 * are freed: the main thread's maxmemory figure (allocated objects minus
 * q_obj_bytes) then overstates memory by at most one batch for a moment,
 * never understates it. */
#define DRAIN_BATCH 64
static int drain_queue(ser_job *job, rdb_writer *w) {
    ser_item *list = queue_take(job);
    int rc = 0;
    while (list) {
        ser_item *batch = list, *last = NULL;
        size_t bytes = 0, obj_bytes = 0;
        for (int n = 0; list && n < DRAIN_BATCH; n++) {
            bytes += item_bytes(list);
            obj_bytes += item_obj_bytes(list);
            if (rc == 0 && rdb_writer_put_kv(w, list->db, list->val, list->expire) != 0)
                rc = -1;
            atomic_fetch_add_explicit(&job->keys_done, 1, memory_order_relaxed);
            last = list;
            list = list->next;
        }
        last->next = NULL;
        queue_release(job, bytes, obj_bytes);
        free_items(batch);
    }
    return rc;
}

/* Serializer: captures one bucket and writes what it held at E. */
static int write_bucket(ser_job *job, rdb_writer *w, int db, vt_bucket *b) {
    vt_captured cap[VT_BUCKET_SLOTS];
    size_t n = vt_capture_bucket(b, job->epoch, cap), written = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (job_wants(job, cap[i].val)) {
            if (rc == 0 && rdb_writer_put_kv(w, db, cap[i].val, cap[i].expire) != 0)
                rc = -1;
            written++;
        }
        obj_decref(cap[i].val);
    }
    if (written) atomic_fetch_add_explicit(&job->keys_done, written, memory_order_relaxed);
    return rc;
}

/* The serializer's nice value (Linux applies it to the calling thread
 * alone). 0: the main thread's own priority. When both share a core (a
 * server pinned to one CPU), the main thread gets the CPU back through the
 * serializer's yields (SER_YIELD_BUCKETS) and its own short scheduler slice
 * (shorten_main_slice, server.c), not through priority: nice 10 measured SET/s 0.83x during a
 * save but a save 2.6x the fork's (doc/benchmarks.md). */
#define SER_NICE 0

/* Every this many buckets (~200 us of work) the serializer yields the CPU:
 * when it shares a core with the main thread, a client never waits long for
 * the save, whatever the scheduler's slice; when the main thread is idle the
 * yield returns at once. */
#define SER_YIELD_BUCKETS 16

/* Serializer: the walk. 0 done, -1 write error, 1 aborted. */
static int walk(ser_job *job, rdb_writer *w) {
    for (int d = 0; d < job->ndb; d++) {
        ser_db *sd = &job->dbs[d];
        for (size_t s = 0; s < sd->nsegs; s++) {
            if (sd->want && !sd->want[s]) { /* none of the job's slots there */
                if (atomic_load_explicit(&job->abort, memory_order_relaxed)) return 1;
                for (unsigned b = 0; b < VT_SEG_BUCKETS; b++)
                    vt_skip_bucket(vt_seg_bucket(sd->segs[s], b), job->epoch);
                continue;
            }
            for (unsigned b = 0; b < VT_SEG_BUCKETS; b++) {
                if (atomic_load_explicit(&job->abort, memory_order_relaxed)) return 1;
                if ((b & (SER_YIELD_BUCKETS - 1)) == 0) sched_yield();
                if (drain_queue(job, w) != 0) return -1;
                if (write_bucket(job, w, sd->id, vt_seg_bucket(sd->segs[s], b)) != 0) return -1;
            }
        }
    }
    /* Every bucket is saved now, so nothing more can be handed over: this
     * drain empties the queue for good (see vt.h). */
    if (drain_queue(job, w) != 0) return -1;
    pthread_mutex_lock(&job->q_lock);
    assert(job->q_head == NULL && job->q_bytes == 0 && job->q_obj_bytes == 0);
    pthread_mutex_unlock(&job->q_lock);
    /* every key that existed at E was written exactly once */
    assert(atomic_load(&job->keys_done) == job->keys_total);
    return 0;
}

static void *ser_main(void *arg) {
    ser_job *job = arg;
    if (setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), SER_NICE) != 0)
        log_verbose("serializer: setpriority: %s", strerror(errno));
    int64_t start = mono_us();
    /* The RDB's used-mem aux field: the objects' and the tables' bytes
     * (atomic counters). Not mallinfo2: it holds malloc's arena lock while
     * it walks every free chunk (~100 ms on a big fragmented heap), and the
     * main thread's allocations would wait for it. */
    if (job->aux.used_mem < 0) {
        vt_memstat vm;
        vt_mem_totals(&vm);
        job->aux.used_mem = (int64_t)(obj_mem_total() + vm.heap + vm.slab);
    }
    char err[RDB_ERRLEN];
    /* tmp, renamed to path when the writer finishes, removed on abort */
    sink *file = job->out ? job->out : sink_file_open(job->tmp, job->path, err, sizeof err);
    int flags = job->compress | RDB_YIELD | RDB_CONSUME;
    rdb_writer *w = file ? rdb_writer_open_sink(file, flags, &job->aux, err, sizeof err) : NULL;
    if (!w) {
        job->status = -1;
        snprintf(job->err, sizeof job->err, "%s", err);
        goto done;
    }
    for (int d = 0; d < job->ndb; d++)
        if (job->dbs[d].keys)
            rdb_writer_dbsize(w, job->dbs[d].id, job->dbs[d].keys, job->dbs[d].expires);
    int rc = walk(job, w);
    if (rc != 0) {
        job->status = rc;
        snprintf(job->err, sizeof job->err, "%s",
                 rc == 1 ? "aborted" : rdb_writer_error(w));
        rdb_writer_abort(w);   /* removes tmp */
        goto done;
    }
    if (atomic_load(&job->abort)) { /* aborted while finishing: keep the old file */
        job->status = 1;
        snprintf(job->err, sizeof job->err, "aborted");
        rdb_writer_abort(w);   /* removes tmp */
        goto done;
    }
    /* fsync, rename to path, fsync of the directory; on failure tmp is gone */
    if (rdb_writer_finish(w, err, sizeof err) != 0) {
        job->status = -1;
        snprintf(job->err, sizeof job->err, "%s", err);
        goto done;
    }
    job->file_bytes = sink_bytes(file);
    job->status = 0;
done:
    assert(job->status >= -1 && job->status <= 1);
    if (file != job->out) sink_free(file);
    job->duration_us = mono_us() - start;
    uv_async_send(&job->done); /* the only cross-thread wake-up: results are set */
    return NULL;
}

/* The serializer's stack, mapped once (ser_init): pthread_create would
 * otherwise mmap a stack at every save, and mmap waits for the process's
 * mmap lock, which a reader of /proc/PID/smaps holds for tens of ms on a
 * big heap: the BGSAVE that starts the thread would stall that long. One
 * serializer runs at a time (ser_finish joins it), so one stack serves. */
#define SER_STACK_BYTES (8u << 20)
static void *ser_stack; /* main thread */

void ser_init(void) {
    if (ser_stack) return;
    void *p = mmap(NULL, SER_STACK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED) log_warning("serializer: no stack mapped ahead: %s", strerror(errno));
    else ser_stack = p;
}

int ser_start(ser_job *job, uv_loop_t *loop, uv_async_cb on_done, char *err, size_t errlen) {
    pthread_mutex_init(&job->q_lock, NULL);
    job->q_head = NULL;
    job->q_tail = &job->q_head;
    job->q_bytes = job->q_peak = job->q_obj_bytes = 0;
    atomic_init(&job->abort, 0);
    atomic_init(&job->keys_done, 0);
    job->status = 0;
    job->err[0] = '\0';
    uv_async_init(loop, &job->done, on_done);
    job->done.data = job;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    if (ser_stack) pthread_attr_setstack(&attr, ser_stack, SER_STACK_BYTES);
    int rc = pthread_create(&job->thread, &attr, ser_main, job);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        /* job->done stays open: the caller closes it, and the job is freed
         * in the close callback (libuv holds the handle until then) */
        snprintf(err, errlen, "Can't start the serializer thread: %s", strerror(rc));
        pthread_mutex_destroy(&job->q_lock);
        return -1;
    }
    return 0;
}

void ser_finish(ser_job *job) {
    pthread_join(job->thread, NULL);
    ser_item *left = queue_take(job);
    /* a finished walk left nothing behind (walk); an aborted one may have */
    assert(job->status != 0 || left == NULL);
    free_items(left);
    pthread_mutex_destroy(&job->q_lock);
}
