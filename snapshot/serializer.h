/* serializer: the forkless snapshot, written by a background thread while
 * the main thread keeps serving.
 *
 * The main thread builds a job (epoch E, the segment lists of every table
 * from vt_save_begin, the output path) and starts it. The serializer thread
 * then walks every listed bucket with vt_capture_bucket and encodes what it
 * captured outside the bucket lock; before each bucket it drains the
 * priority queue of pre-images that the main thread handed over (through
 * ser_capture, the tables' capture callback) just before changing an entry
 * the walk had not reached. Every key that existed at E is written once,
 * with its value at E. When the file is written, fsynced and renamed into
 * place (through a file sink, rdb_io.h), the thread wakes the main loop
 * (uv_async_t) and exits.
 *
 * Thread boundaries: the job's queue is under q_lock (held for a push or a
 * list swap, never across I/O); progress counters are atomics; everything
 * else is written by one side before the other reads it (set up before
 * pthread_create, results before uv_async_send). */
#ifndef VERSO_SERIALIZER_H
#define VERSO_SERIALIZER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <uv.h>

#include "rdb.h"
#include "vt.h"

typedef struct ser_item {
    struct ser_item *next;
    int db;
    unsigned self_bytes;      /* this item's allocator bytes, counted in
                                 obj_mem_total (used_memory) while queued */
    obj *val;                 /* a kv: the key is in it (obj.h) */
    int64_t expire;           /* at capture */
} ser_item;

typedef struct ser_db {
    struct ser_job *job;      /* back pointer for the capture callback */
    int id;
    vt *table;                /* main thread only (vt_save_end) */
    vt_seg **segs;            /* set up by main before start */
    size_t nsegs;
    uint8_t *want;            /* a slots job's: segs[i] holds keys of its
                                 slots (vt_save_slot_segs); NULL: all do */
    uint64_t keys, expires;   /* at E */
} ser_db;

typedef struct ser_job {
    /* set by the main thread before the thread starts; read-only after */
    uint64_t epoch;
    int ndb;
    ser_db *dbs;
    char path[4096];          /* final file */
    char tmp[4096];           /* temp file, renamed to path */
    sink *out;                /* when set, written instead of the file (a
                                 replication save's fan-out to replica
                                 sockets): the thread finishes it, its
                                 owner frees it after on_done */
    const uint8_t *slots;     /* NULL, or KEYSLOT_COUNT bits: only the keys
                                 of these slots are written (and handed
                                 over), a slot migration's save; the
                                 owner's, unchanged until on_done */
    int compress;             /* rdb_writer_open flags (snap_rdb_flags) */
    rdb_aux aux;
    uint64_t keys_total;
    /* main -> serializer: pre-images handed over before a change */
    pthread_mutex_t q_lock;
    ser_item *q_head;         /* under q_lock */
    ser_item **q_tail;        /* under q_lock */
    size_t q_bytes;           /* under q_lock: bytes held by queued items */
    size_t q_peak;            /* under q_lock: peak of q_bytes */
    size_t q_obj_bytes;       /* under q_lock: allocator bytes of the queued
                                 items, keys and values (obj_alloc_size),
                                 which maxmemory leaves out unless
                                 maxmemory-include-save (evict.c) */
    /* control and progress */
    atomic_int abort;         /* atomic: main asks the thread to stop */
    _Atomic uint64_t keys_done; /* atomic: keys written so far */
    /* results: written by the thread before it signals done */
    int status;               /* 0 ok, -1 failed, 1 aborted */
    char err[RDB_ERRLEN + 256];
    uint64_t file_bytes;
    int64_t duration_us;
    /* main thread only */
    uv_async_t done;
    pthread_t thread;
} ser_job;

/* Main thread, at startup: maps the serializer's stack once, so that
 * starting a save maps nothing (see serializer.c). Without it (or when the
 * map fails) the thread gets the default stack. */
void ser_init(void);
/* Main thread: starts the job (which must be set up with its tables in
 * vt_save_begin state); on_done runs on the loop when the thread ends.
 * -1 with err when the thread cannot start: job->done is initialised all
 * the same, and the caller closes it (uv_close) and frees the job in the
 * close callback, as after a job that ran (never before: libuv keeps the
 * handle in its closing list until the callback has run). */
int ser_start(ser_job *job, uv_loop_t *loop, uv_async_cb on_done, char *err, size_t errlen);
/* Main thread: the tables' capture callback (priv is a ser_db). */
void ser_capture(void *priv, obj *val, int64_t expire);
/* Main thread, after on_done: joins the thread and drops what the queue
 * still holds. */
void ser_finish(ser_job *job);
/* Bytes held by the queue now, and at its peak (any thread). */
size_t ser_queue_bytes(ser_job *job, size_t *peak);
/* Allocator bytes of the keys and values in the queue now (any thread). */
size_t ser_queue_obj_bytes(ser_job *job);

#endif
