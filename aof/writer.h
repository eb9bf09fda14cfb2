/* writer: the AOF writer thread and its fsync threads. It writes the bytes
 * the main thread hands over and fsyncs them according to the policy, so
 * that the main thread never calls write() or fsync() on the AOF.
 *
 * The main thread submits whole buffers (once per loop iteration) and file
 * switches, in order; the thread takes everything queued at once, writes
 * it, and under `always` asks for one fsync covering the whole batch (group
 * commit); up to eight such fsyncs may overlap, so a write arriving while an
 * fsync runs need not wait for it to end (on a slow network disk an fsync is
 * mostly latency). Progress is published as two monotonic byte counters (written,
 * synced) over all files since start, and the main loop is woken with a
 * uv_async_t after each batch so that it can release held replies.
 *
 * Thread boundaries: the submission queue is under a mutex + condition
 * variable (held for a push or a list swap, never across I/O); counters
 * and the status are atomics; files handed over belong to the writer's
 * threads, which close them (see writer.c). */
#ifndef VERSO_AOF_WRITER_H
#define VERSO_AOF_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "vbuf.h"

typedef struct aofw aofw;

typedef struct aofw_stats {
    uint64_t submitted;     /* bytes handed over by the main thread */
    uint64_t written;       /* bytes write()n to files */
    uint64_t synced;        /* bytes covered by a completed fsync */
    uint64_t fsyncs;        /* fsync calls done */
    uint64_t delayed_fsync; /* everysec: fsyncs that started when the oldest
                             * byte they cover had been written > 2 s before */
    uint64_t pending_fsync; /* fsyncs running now (aof_pending_bio_fsync); up to
                             * eight overlap under always */
    int write_ok;           /* 0 after a failed write until one succeeds; a
                             * failed fsync makes it 0 for good (see writer.c) */
    char last_error[256];   /* strerror of the last failure */
    int64_t last_fsync_us;  /* duration of the last fsync */
} aofw_stats;

/* Main thread. `fd` is the open INCR file (O_APPEND); policy is FSYNC_*
 * of conf.h. on_progress runs on the loop after each batch. On success the
 * fd belongs to the writer; on failure (NULL, err filled) it stays the
 * caller's. */
aofw *aofw_start(uv_loop_t *loop, int fd, int policy, void (*on_progress)(void *priv),
                 void *priv, char *err, size_t errlen);
/* Main thread: hands buf's bytes to the thread (the vbuf is emptied and
 * may be reused at once; its storage changes hands, and buf may get the
 * storage of a buffer already written back: empty, with its capacity). */
void aofw_submit(aofw *w, vbuf *buf);
/* Main thread: every byte submitted from now on goes to new_fd; the writer
 * fsyncs and closes the old fd after writing what was queued before. */
void aofw_switch_file(aofw *w, int new_fd);
/* The same, with a step the writer thread runs before the switch (after
 * writing what was queued before it): before(arg, 1) does the work and
 * returns 0 or an errno (then the switch is retried like a failed write);
 * before(arg, 0) releases arg, and is always called once. The AOF uses it to
 * persist the manifest naming the new file before any byte of that file can
 * be acknowledged, without an fsync on the main thread. */
typedef int (*aofw_switch_fn)(void *arg, int run);
void aofw_switch_file_after(aofw *w, int new_fd, aofw_switch_fn before, void *arg);
/* Runs before(arg, ...) on the writer thread in queue order, with no file
 * switch (new_fd -1): e.g. publish a manifest, then delete old files. */
static inline void aofw_run(aofw *w, aofw_switch_fn fn, void *fnarg) {
    aofw_switch_file_after(w, -1, fn, fnarg);
}
/* Any thread: an fsync thread removes the file at path, when no fsync is
 * waiting for it (the AOF's old files after a rewrite: removing a file of
 * hundreds of MB drops its page cache and frees its blocks, 50-200 ms that
 * must not stop the writing). Files still queued at aofw_stop are removed
 * before it returns. */
void aofw_unlink_later(aofw *w, const char *path);
/* Main thread: change the fsync policy (CONFIG SET appendfsync). */
void aofw_set_policy(aofw *w, int policy);
/* Any thread: a consistent copy of the counters. */
void aofw_get_stats(aofw *w, aofw_stats *st);
/* Any thread, lock-free: the written and synced counters (no order between
 * the two loads; each only grows). */
void aofw_progress(aofw *w, uint64_t *written, uint64_t *synced);
/* Main thread: the slowest write(2) and fsync (microseconds) since the
 * last call, which resets both (the latency monitor's aof-write and
 * aof-fsync-always events). */
void aofw_take_latency(aofw *w, int64_t *write_us, int64_t *fsync_us);
/* Bytes submitted but not yet written (the backlog). */
uint64_t aofw_backlog(aofw *w);
/* Main thread: writes and fsyncs everything queued, stops the threads,
 * closes the file. Waits (used at shutdown and when AOF is turned off).
 * Returns 0 when every submitted byte was written and fsynced, -1 when some
 * were lost (a write still failing after two more tries, or a failed
 * fsync; logged). w must not be used afterwards: it is freed by the close
 * callback of its uv_async_t, on the loop's next iteration (run the loop
 * before uv_loop_close, as libuv requires anyway). */
int aofw_stop(aofw *w);

/* For tests only: replace write(2) / fdatasync(2) / unlink(2) in writers started after
 * the call (NULL restores the real one), to inject failures. */
void aofw_test_set_write_fn(ssize_t (*fn)(int fd, const void *p, size_t n));
void aofw_test_set_fsync_fn(int (*fn)(int fd));
void aofw_test_set_unlink_fn(int (*fn)(const char *path));
/* For tests only: in writers started after the call, fn runs on an fsync
 * thread each time it wakes up with a request to serve, before it looks at
 * the requests (without the lock). A test blocks in it to hold the thread in
 * the window where a request is posted but not yet taken (see
 * test_aof_writer.c). NULL: none; production pays one pointer test per
 * wake-up. */
void aofw_test_set_fsync_wake_hook(void (*fn)(void));

#endif
