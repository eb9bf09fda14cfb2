/* Unit tests for the AOF writer thread (aof/writer.c): every byte submitted
 * reaches the files exactly once and in order (across a file switch, partial
 * writes and failing writes), the fsync policies (group commit under always,
 * the everysec clock and its fsync threads, no), the error states, and stop.
 *
 * Each test runs a libuv loop on its own thread, as the server does, and
 * reads the writer's progress in the on_progress callback. The stream of
 * bytes is a function of the position, so a file is checked without keeping
 * a copy of what was submitted. Failures are injected through the writer's
 * test hooks (aofw_test_set_write_fn / _fsync_fn) and /dev/full; the
 * fsync-thread races are forced with aofw_test_set_fsync_wake_hook. */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "writer.h"
#include "harness.h" /* h_scaled_ms */
#include "conf.h"
#include "util.h"
#include "vbuf.h"

static char base_dir[256];

typedef struct tctx {
    uv_loop_t loop;
    uv_timer_t tick;            /* keeps UV_RUN_ONCE returning */
    aofw *w;
    aofw_stats st;              /* as of the last on_progress */
    int progress_calls;
    void (*hook)(struct tctx *t); /* runs after each on_progress */
    uint64_t pos;               /* stream bytes submitted so far */
    vbuf buf;                   /* filled and submitted, as the AOF's */
    /* file switch test */
    int fd1, fd2;
    uint64_t switch_pos;
    int saw_old_closed;
    /* closed-loop clients (group commit) */
    int nclients;
    uint64_t client_end[64];
    uint64_t commits, target;
} tctx;

static unsigned char stream_byte(uint64_t p) {
    uint64_t x = (p + 1) * 0x9E3779B97F4A7C15ull;
    return (unsigned char)((x >> 56) ^ (x >> 29));
}

static void fill_stream(unsigned char *out, uint64_t from, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = stream_byte(from + i);
}

static void path_of(char *out, size_t len, const char *name) {
    snprintf(out, len, "%s/%s", base_dir, name);
}

static int open_aof(const char *name) {
    char p[512];
    path_of(p, sizeof p, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    return fd;
}

/* The file holds exactly stream[from, from + len). */
static void check_file(const char *name, uint64_t from, uint64_t len) {
    char p[512];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *got = malloc(len + 1), *want = malloc(len + 1);
    size_t n = fread(got, 1, len + 1, f);
    fclose(f);
    ck_assert_uint_eq(n, len);
    fill_stream(want, from, len);
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
    free(want);
    unlink(p);
}

static int fd_is_open(int fd) { return fcntl(fd, F_GETFD) != -1 || errno != EBADF; }

static void on_progress(void *priv) {
    tctx *t = priv;
    aofw_stats st;
    aofw_get_stats(t->w, &st);
    ck_assert_uint_le(st.synced, st.written);
    ck_assert_uint_le(st.written, st.submitted);
    ck_assert_uint_ge(st.written, t->st.written); /* monotonic */
    ck_assert_uint_ge(st.synced, t->st.synced);
    t->st = st;
    t->progress_calls++;
    if (t->hook) t->hook(t);
}

static void on_tick(uv_timer_t *h) { (void)h; }

static void t_start(tctx *t, int fd, int policy) {
    memset(t, 0, sizeof *t);
    ck_assert_int_eq(uv_loop_init(&t->loop), 0);
    uv_timer_init(&t->loop, &t->tick);
    uv_timer_start(&t->tick, on_tick, 5, 5);
    char err[256] = "";
    t->w = aofw_start(&t->loop, fd, policy, on_progress, t, err, sizeof err);
    ck_assert_msg(t->w != NULL, "aofw_start: %s", err);
}

/* Runs the loop until pred holds or timeout_ms pass; returns pred. */
static int run_until(tctx *t, int (*pred)(tctx *t), int64_t timeout_ms) {
    int64_t end = mono_ms() + timeout_ms;
    while (!pred(t) && mono_ms() < end) uv_run(&t->loop, UV_RUN_ONCE);
    return pred(t);
}

static int never(tctx *t) { (void)t; return 0; }
static void run_for(tctx *t, int64_t ms) { run_until(t, never, ms); }

static int t_stop(tctx *t) {
    int rc = aofw_stop(t->w);
    t->w = NULL;
    vbuf_free(&t->buf);
    uv_close((uv_handle_t *)&t->tick, NULL);
    uv_run(&t->loop, UV_RUN_DEFAULT); /* runs the writer's close callback */
    ck_assert_int_eq(uv_loop_close(&t->loop), 0);
    return rc;
}

/* Submits the next n stream bytes; the vbuf is handed over, not copied. */
static void submit_stream(tctx *t, size_t n) {
    vbuf *b = &t->buf;
    ck_assert_uint_eq(b->len, 0);
    vbuf_reserve(b, n);
    fill_stream((unsigned char *)b->data, t->pos, n);
    b->len = n;
    char *was = b->data;
    aofw_submit(t->w, b);
    /* emptied: no storage, or a written buffer back from the pool */
    ck_assert_uint_eq(b->len, 0);
    ck_assert(b->data != was);
    ck_assert(b->data ? b->cap > 0 : b->cap == 0);
    t->pos += n;
}

static int all_written(tctx *t) { return t->st.written == t->pos; }
static int all_synced(tctx *t) { return t->st.synced == t->pos; }
static int write_failed(tctx *t) { return t->progress_calls && !t->st.write_ok; }
static int recovered(tctx *t) { return t->st.write_ok == 1 && all_synced(t); }

static uint64_t rng_next(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ---- 1. the stream, across a file switch ---- */

static void switch_hook(tctx *t) {
    if (t->fd2 && t->st.written > t->switch_pos) {
        /* a byte went to the new file: the old one is fsynced and closed */
        ck_assert(!fd_is_open(t->fd1));
        ck_assert(fd_is_open(t->fd2));
        t->saw_old_closed = 1;
    }
}

START_TEST(test_stream_with_switch) {
    tctx t;
    int fd1 = open_aof("s1.aof");
    t_start(&t, fd1, FSYNC_NO);
    t.fd1 = fd1;
    t.hook = switch_hook;
    uint64_t seed = 0x1234567;
    const int nsubmits = 120;
    for (int i = 0; i < nsubmits; i++) {
        if (i == nsubmits / 2) {
            int fd2 = open_aof("s2.aof");
            t.switch_pos = t.pos;
            t.fd2 = fd2;
            aofw_switch_file(t.w, fd2);
        }
        /* 1 B .. 1 MB, log-uniform: both tiny and large writes */
        size_t n = 1 + rng_next(&seed) % ((size_t)1 << (rng_next(&seed) % 21));
        submit_stream(&t, n);
        if (i % 8 == 0) uv_run(&t.loop, UV_RUN_NOWAIT);
    }
    ck_assert(run_until(&t, all_written, 20000));
    ck_assert(t.saw_old_closed);
    ck_assert_uint_eq(t.st.submitted, t.pos);
    ck_assert_uint_eq(t.st.fsyncs, 1); /* policy no: only the switch fsyncs */
    ck_assert_uint_eq(aofw_backlog(t.w), 0);
    ck_assert_int_eq(t_stop(&t), 0);
    ck_assert(!fd_is_open(t.fd2));
    check_file("s1.aof", 0, t.switch_pos);
    check_file("s2.aof", t.switch_pos, t.pos - t.switch_pos);
}
END_TEST

/* ---- stop drains whatever is queued ---- */

START_TEST(test_stop_drains) {
    tctx t;
    t_start(&t, open_aof("d.aof"), FSYNC_ALWAYS);
    for (int i = 0; i < 24; i++) submit_stream(&t, (size_t)((1 << 20) + 17 * i));
    ck_assert_int_eq(t_stop(&t), 0); /* at once: most of it is still queued */
    check_file("d.aof", 0, t.pos);
}
END_TEST

/* ---- 2. always: group commit ---- */

START_TEST(test_always_group_commit_tight_loop) {
    tctx t;
    t_start(&t, open_aof("a.aof"), FSYNC_ALWAYS);
    const int nsubmits = 5000;
    for (int i = 0; i < nsubmits; i++) submit_stream(&t, 100);
    ck_assert(run_until(&t, all_synced, 20000));
    ck_assert_uint_eq(t.st.written, t.pos);
    ck_assert_uint_ge(t.st.fsyncs, 1);
    /* an fsync takes far longer than a submit: batches grow while it runs */
    ck_assert_msg(t.st.fsyncs * 4 < (uint64_t)nsubmits, "%llu fsyncs for %d submits",
                  (unsigned long long)t.st.fsyncs, nsubmits);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("a.aof", 0, t.pos);
}
END_TEST

/* Closed loop as in the server: each client's next command waits until its
 * previous one is fsynced; commands are handed over once per callback. */
static void clients_hook(tctx *t) {
    vbuf *b = &t->buf;
    for (int i = 0; i < t->nclients; i++) {
        if (t->client_end[i] > t->st.synced) continue; /* reply still held */
        if (t->client_end[i]) t->commits++;
        if (t->commits >= t->target) continue;
        unsigned char cmd[64];
        fill_stream(cmd, t->pos + b->len, sizeof cmd);
        vbuf_append(b, cmd, sizeof cmd);
        t->client_end[i] = t->pos + b->len;
    }
    size_t n = b->len;
    if (n) aofw_submit(t->w, b);
    t->pos += n;
}

static int clients_done(tctx *t) { return t->commits >= t->target && all_synced(t); }

START_TEST(test_always_group_commit_clients) {
    tctx t;
    t_start(&t, open_aof("c.aof"), FSYNC_ALWAYS);
    t.nclients = 50;
    t.target = 2000;
    t.hook = clients_hook;
    clients_hook(&t);
    ck_assert(run_until(&t, clients_done, 20000));
    double per_fsync = (double)t.commits / (double)t.st.fsyncs;
    ck_assert_msg(per_fsync >= 20, "%.1f commits per fsync", per_fsync);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("c.aof", 0, t.pos);
}
END_TEST

/* ---- 3. everysec and no ---- */

/* Overlapping group commits: an fsync that blocks until released. */
static _Atomic int gate_inside, gate_open;
static int gated_fsync(int fd) {
    atomic_fetch_add(&gate_inside, 1);
    while (!atomic_load(&gate_open)) usleep(1000);
    return fdatasync(fd);
}
static int fsyncs_inside_n;
static int n_inside(tctx *t) { (void)t; return atomic_load(&gate_inside) >= fsyncs_inside_n; }

/* Under always, a batch written while earlier fsyncs run gets its own fsync
 * at once, up to eight at a time (a slow network disk: an fsync is mostly
 * latency), so a write waits for about one fsync, not for the rest of the
 * running ones. Eight batches, each written while the fsyncs of all the
 * earlier ones are still blocked, are all being fsynced together. */
START_TEST(test_always_eight_fsyncs_overlap) {
    atomic_store(&gate_inside, 0);
    atomic_store(&gate_open, 0);
    aofw_test_set_fsync_fn(gated_fsync);
    tctx t;
    t_start(&t, open_aof("overlap.aof"), FSYNC_ALWAYS);
    aofw_test_set_fsync_fn(NULL);
    for (int i = 1; i <= 8; i++) {
        submit_stream(&t, 100);
        fsyncs_inside_n = i;
        ck_assert_msg(run_until(&t, n_inside, h_scaled_ms(3000)),
                      "batch %d: %d fsyncs running, not %d", i, atomic_load(&gate_inside), i);
    }
    ck_assert_uint_eq(t.st.synced, 0);
    atomic_store(&gate_open, 1);
    ck_assert(run_until(&t, all_synced, h_scaled_ms(3000)));
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("overlap.aof", 0, t.pos);
}
END_TEST

START_TEST(test_everysec_lags_then_catches_up) {
    tctx t;
    int64_t t0 = mono_ms();
    t_start(&t, open_aof("e.aof"), FSYNC_EVERYSEC);
    submit_stream(&t, 1000);
    ck_assert(run_until(&t, all_written, 5000));
    ck_assert_uint_eq(t.st.synced, 0); /* the first fsync is due 1 s after start */
    ck_assert(run_until(&t, all_synced, h_scaled_ms(3000)));
    int64_t took = mono_ms() - t0;
    /* not before the 1 s clock; not much after it (scaled: sanitizers) */
    ck_assert_msg(took >= 800 && took <= h_scaled_ms(2500), "synced after %lld ms",
                  (long long)took);
    ck_assert_uint_eq(t.st.fsyncs, 1);
    ck_assert_uint_eq(t.st.delayed_fsync, 0);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("e.aof", 0, t.pos);
}
END_TEST

static _Atomic int fsync_calls;
static int slow_first_fsync(int fd) {
    if (atomic_fetch_add(&fsync_calls, 1) == 0) usleep(2500 * 1000);
    return fdatasync(fd);
}

typedef struct sampler {
    tctx *t;
    uv_timer_t submit_timer, sample_timer;
    int64_t until_ms;
    aofw_stats mid;
    uint64_t mid_backlog;
} sampler;

static void on_submit_timer(uv_timer_t *h) {
    sampler *s = h->data;
    if (mono_ms() < s->until_ms) submit_stream(s->t, 1024);
    else uv_timer_stop(h);
}

static void on_sample_timer(uv_timer_t *h) {
    sampler *s = h->data;
    aofw_get_stats(s->t->w, &s->mid);
    s->mid_backlog = aofw_backlog(s->t->w);
}

/* A slow fsync (2.5 s) does not hold up the writes, and the next fsync,
 * covering bytes written more than 2 s before, counts as delayed. */
START_TEST(test_everysec_slow_fsync_does_not_block_writes) {
    atomic_store(&fsync_calls, 0);
    aofw_test_set_fsync_fn(slow_first_fsync);
    tctx t;
    t_start(&t, open_aof("slow.aof"), FSYNC_EVERYSEC);
    aofw_test_set_fsync_fn(NULL);
    sampler s = {.t = &t, .until_ms = mono_ms() + 4000};
    uv_timer_init(&t.loop, &s.submit_timer);
    uv_timer_init(&t.loop, &s.sample_timer);
    s.submit_timer.data = s.sample_timer.data = &s;
    uv_timer_start(&s.submit_timer, on_submit_timer, 0, 50);
    uv_timer_start(&s.sample_timer, on_sample_timer, 3000, 0); /* mid slow fsync */
    run_for(&t, 4100);
    ck_assert_uint_eq(s.mid.pending_fsync, 1);
    ck_assert_uint_eq(s.mid.synced, 0);
    ck_assert_uint_gt(s.mid.written, 50 * 1024); /* writes went on meanwhile */
    ck_assert_uint_le(s.mid_backlog, 2 * 1024);
    ck_assert(run_until(&t, all_synced, 3000));
    ck_assert_uint_eq(t.st.delayed_fsync, 1);
    ck_assert_int_ge(t.st.last_fsync_us, 0);
    uv_close((uv_handle_t *)&s.submit_timer, NULL);
    uv_close((uv_handle_t *)&s.sample_timer, NULL);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("slow.aof", 0, t.pos);
}
END_TEST

START_TEST(test_no_policy_never_fsyncs_until_stop) {
    tctx t;
    t_start(&t, open_aof("n.aof"), FSYNC_NO);
    for (int i = 0; i < 50; i++) submit_stream(&t, 4000);
    ck_assert(run_until(&t, all_written, 5000));
    run_for(&t, 1300);
    ck_assert_uint_eq(t.st.fsyncs, 0);
    ck_assert_uint_eq(t.st.synced, 0);
    ck_assert_int_eq(t_stop(&t), 0); /* 0: stop fsynced everything */
    check_file("n.aof", 0, t.pos);
}
END_TEST

START_TEST(test_policy_change_to_always) {
    tctx t;
    t_start(&t, open_aof("p.aof"), FSYNC_NO);
    submit_stream(&t, 5000);
    ck_assert(run_until(&t, all_written, 5000));
    ck_assert_uint_eq(t.st.synced, 0);
    aofw_set_policy(t.w, FSYNC_ALWAYS);
    int64_t t0 = mono_ms();
    ck_assert(run_until(&t, all_synced, 5000));
    /* at once, not on the 1 s clock: the bound is scaled (sanitizers) but
     * stays below that clock */
    ck_assert_int_lt(mono_ms() - t0, h_scaled_ms(500) < 900 ? h_scaled_ms(500) : 900);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("p.aof", 0, t.pos);
}
END_TEST

/* ---- 4. errors ---- */

/* Writes at most 64 KB per call (short writes, always) and at most `budget`
 * bytes in all (-1: no limit); then fails with ENOSPC. */
static _Atomic long long write_budget = -1;
static ssize_t budget_write(int fd, const void *p, size_t n) {
    long long b = atomic_load(&write_budget);
    if (b == 0) {
        errno = ENOSPC;
        return -1;
    }
    if (n > 65536) n = 65536;
    if (b > 0 && (long long)n > b) n = (size_t)b;
    ssize_t r = write(fd, p, n);
    if (r > 0 && b > 0) atomic_fetch_sub(&write_budget, r);
    return r;
}

START_TEST(test_write_failure_keeps_bytes_and_recovers) {
    atomic_store(&write_budget, 1000);
    aofw_test_set_write_fn(budget_write);
    tctx t;
    t_start(&t, open_aof("f.aof"), FSYNC_ALWAYS);
    aofw_test_set_write_fn(NULL);
    submit_stream(&t, 5000); /* 1000 bytes fit, then the disk is "full" */
    submit_stream(&t, 3000);
    ck_assert(run_until(&t, write_failed, 5000));
    ck_assert_str_eq(t.st.last_error, "No space left on device");
    submit_stream(&t, 200000); /* queued behind the failing bytes */
    run_for(&t, 300);
    aofw_stats st;
    aofw_get_stats(t.w, &st);
    ck_assert_uint_eq(st.written, 1000); /* exactly the short write */
    ck_assert_uint_eq(st.synced, 1000);  /* always: what was written is fsynced */
    ck_assert_uint_eq(aofw_backlog(t.w), t.pos - 1000);
    ck_assert_int_eq(st.write_ok, 0);
    atomic_store(&write_budget, -1); /* space is back: the next retry works */
    ck_assert(run_until(&t, recovered, 3000));
    ck_assert_uint_eq(aofw_backlog(t.w), 0);
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("f.aof", 0, t.pos); /* no gap, no duplicate */
}
END_TEST

START_TEST(test_dev_full_then_stop_gives_up) {
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    tctx t;
    t_start(&t, fd, FSYNC_NO);
    submit_stream(&t, 10000);
    ck_assert(run_until(&t, write_failed, 5000));
    ck_assert_str_eq(t.st.last_error, "No space left on device");
    ck_assert_uint_eq(t.st.written, 0);
    ck_assert_uint_eq(aofw_backlog(t.w), 10000);
    int fd2 = open_aof("full2.aof");
    aofw_switch_file(t.w, fd2); /* behind bytes that can never be written */
    submit_stream(&t, 100);
    run_for(&t, 200);
    ck_assert_uint_eq(aofw_backlog(t.w), 10100);
    int64_t t0 = mono_ms();
    ck_assert_int_eq(t_stop(&t), -1); /* gives up instead of hanging */
    int64_t took = mono_ms() - t0;
    ck_assert_msg(took < h_scaled_ms(4500), "stop took %lld ms", (long long)took);
    ck_assert(!fd_is_open(fd2)); /* the dropped switch's file is closed too */
    check_file("full2.aof", 0, 0);
}
END_TEST

static _Atomic int fsync_fail = 0;
static int failing_fsync(int fd) {
    if (atomic_load(&fsync_fail)) {
        errno = EIO;
        return -1;
    }
    return fdatasync(fd);
}

static int fsynced_twice(tctx *t) { return all_written(t) && t->st.fsyncs >= 2; }

/* After a failed fsync nothing more counts as synced: the kernel may have
 * dropped the pages, and a later fsync success would not prove them. */
START_TEST(test_fsync_failure_is_sticky) {
    atomic_store(&fsync_fail, 1);
    aofw_test_set_fsync_fn(failing_fsync);
    tctx t;
    t_start(&t, open_aof("s.aof"), FSYNC_ALWAYS);
    aofw_test_set_fsync_fn(NULL);
    submit_stream(&t, 3000);
    ck_assert(run_until(&t, write_failed, 5000));
    ck_assert_str_eq(t.st.last_error, "Input/output error");
    ck_assert_uint_eq(t.st.synced, 0);
    atomic_store(&fsync_fail, 0);
    submit_stream(&t, 3000);
    ck_assert(run_until(&t, fsynced_twice, 5000));
    ck_assert_uint_eq(t.st.synced, 0);
    ck_assert_int_eq(t.st.write_ok, 0);
    ck_assert_int_eq(t_stop(&t), -1);
    check_file("s.aof", 0, t.pos); /* the bytes themselves are all there */
}
END_TEST

/* ---- 5. a file switch never leaves an fsync behind on the old fd ----
 * An everysec fsync of file 1 is posted (or running) when a rewrite switches
 * to file 2: the fsync threads must not fsync fd 1 once it is closed (EBADF,
 * a sticky failure that refuses every later write) nor a later file that got
 * the same fd number. The fsync hook checks each fsync is of a file the
 * writer owns; the wake hook holds fsync threads before they take a request. */

static struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    dev_t dev[2];
    ino_t ino[2];
    int nfiles;
    int bad_fsyncs;     /* fsyncs of a closed fd or of a file not the writer's */
    char bad[160];
    int entered;        /* fsync calls begun */
    int hold_first;     /* 1: the first fsync blocks until released */
    int released;
    int held;           /* fsync threads waiting in the wake hook */
    int tickets;        /* wake-ups the hook lets through */
    int open;           /* 1: the hook lets every wake-up through */
} race = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void race_reset(void) {
    pthread_mutex_lock(&race.lock);
    race.nfiles = race.bad_fsyncs = race.entered = race.hold_first = race.released = 0;
    race.held = race.tickets = race.open = 0;
    race.bad[0] = '\0';
    pthread_mutex_unlock(&race.lock);
}

static void race_own(int fd) {
    struct stat st;
    ck_assert_int_eq(fstat(fd, &st), 0);
    pthread_mutex_lock(&race.lock);
    race.dev[race.nfiles] = st.st_dev;
    race.ino[race.nfiles++] = st.st_ino;
    pthread_mutex_unlock(&race.lock);
}

static void race_set(int *field, int v) {
    pthread_mutex_lock(&race.lock);
    *field = v;
    pthread_cond_broadcast(&race.cond);
    pthread_mutex_unlock(&race.lock);
}

static int race_get(const int *field) {
    pthread_mutex_lock(&race.lock);
    int v = *field;
    pthread_mutex_unlock(&race.lock);
    return v;
}

static int checking_fsync(int fd) {
    pthread_mutex_lock(&race.lock);
    int nth = race.entered++;
    pthread_cond_broadcast(&race.cond);
    while (nth == 0 && race.hold_first && !race.released)
        pthread_cond_wait(&race.cond, &race.lock);
    struct stat st;
    int err = fstat(fd, &st) == 0 ? 0 : errno;
    int known = 0;
    for (int i = 0; i < race.nfiles && !err; i++)
        if (st.st_dev == race.dev[i] && st.st_ino == race.ino[i]) known = 1;
    if (!known) {
        race.bad_fsyncs++;
        snprintf(race.bad, sizeof race.bad, "fsync of fd %d: %s", fd,
                 err ? strerror(err) : "a file the writer does not own");
    }
    pthread_mutex_unlock(&race.lock);
    return fdatasync(fd);
}

static void holding_wake_hook(void) {
    pthread_mutex_lock(&race.lock);
    race.held++;
    pthread_cond_broadcast(&race.cond);
    while (!race.open && race.tickets == 0) pthread_cond_wait(&race.cond, &race.lock);
    if (!race.open) race.tickets--;
    race.held--;
    pthread_mutex_unlock(&race.lock);
}

static int one_held(tctx *t) { (void)t; return race_get(&race.held) >= 1; }
static int two_held(tctx *t) { return all_written(t) && race_get(&race.held) >= 2; }
static int first_fsync_entered(tctx *t) { (void)t; return race_get(&race.entered) >= 1; }
static int first_file_closed(tctx *t) { return !fd_is_open(t->fd1); }

/* Starts an everysec writer on r1.aof with the checking fsync (and the
 * holding wake hook), submits 100 bytes, switches to r2.aof and submits
 * 100 more; `held` waits for the everysec fsync of r1 to be posted first. */
static void start_race(tctx *t, int with_wake_hook, int (*held)(tctx *t)) {
    int fd1 = open_aof("r1.aof"), fd2 = open_aof("r2.aof");
    race_own(fd1);
    race_own(fd2);
    aofw_test_set_fsync_fn(checking_fsync);
    if (with_wake_hook) aofw_test_set_fsync_wake_hook(holding_wake_hook);
    t_start(t, fd1, FSYNC_EVERYSEC);
    aofw_test_set_fsync_fn(NULL);
    aofw_test_set_fsync_wake_hook(NULL);
    t->fd1 = fd1;
    t->fd2 = fd2;
    submit_stream(t, 100);
    /* ~1 s after the start the writer posts the everysec fsync of r1 */
    ck_assert(run_until(t, held, 5000));
    aofw_switch_file(t->w, fd2);
    submit_stream(t, 100);
    ck_assert(run_until(t, all_written, 5000)); /* switched: r1's close is queued */
}

static void finish_race(tctx *t) {
    int rc = t_stop(t);
    ck_assert_msg(race.bad_fsyncs == 0, "%d bad fsyncs, last: %s", race.bad_fsyncs, race.bad);
    ck_assert_int_eq(rc, 0); /* every byte fsynced, no sticky failure */
    check_file("r1.aof", 0, 100);
    check_file("r2.aof", 100, 100);
}

/* The everysec fsync of r1 is posted, not yet taken, when the close of r1 is
 * queued; the close is served first. reuse: a file opened after the close
 * gets r1's fd number before the stale request could be served. */
static void switch_with_posted_fsync(int reuse) {
    race_reset();
    tctx t;
    start_race(&t, 1, one_held);
    ck_assert(run_until(&t, two_held, 5000)); /* a second thread woke for the close */
    race_set(&race.tickets, 1);                /* one of them goes: it serves the close */
    ck_assert(run_until(&t, first_file_closed, 5000));
    int fd3 = -1;
    if (reuse) {
        fd3 = open_aof("r3.aof");
        ck_assert_int_eq(fd3, t.fd1);
    }
    race_set(&race.open, 1); /* the other thread goes: nothing may be left for r1 */
    finish_race(&t);
    if (reuse) {
        close(fd3);
        check_file("r3.aof", 0, 0);
    }
}

START_TEST(test_switch_cancels_posted_fsync) { switch_with_posted_fsync(0); }
END_TEST

START_TEST(test_switch_posted_fsync_fd_reused) { switch_with_posted_fsync(1); }
END_TEST

/* The everysec fsync of r1 is taken and running (held inside fsync) when the
 * close of r1 is queued: the close waits for it. A writer that closes at once
 * does so within microseconds; 1 s only delays a correct one. */
START_TEST(test_switch_waits_for_running_fsync) {
    race_reset();
    race_set(&race.hold_first, 1);
    tctx t;
    start_race(&t, 0, first_fsync_entered);
    run_until(&t, first_file_closed, 1000);
    race_set(&race.released, 1);
    finish_race(&t);
}
END_TEST

/* ---- written buffers come back to be filled again ---- */

/* A buffer the writer has written is handed back by a later aofw_submit
 * (empty, its capacity kept), so the main thread appends into pages it has
 * already touched instead of faulting in fresh ones; the bytes written from
 * recycled buffers are those submitted. */
START_TEST(test_submit_recycles_written_buffers) {
    tctx t;
    t_start(&t, open_aof("r.aof"), FSYNC_NO);
    submit_stream(&t, 300000);
    ck_assert_ptr_null(t.buf.data); /* nothing written yet to give back */
    ck_assert(run_until(&t, all_written, h_scaled_ms(3000)));
    submit_stream(&t, 1000);
    ck_assert_ptr_nonnull(t.buf.data);
    ck_assert_uint_ge(t.buf.cap, 300000);
    submit_stream(&t, 200000); /* fits: no reallocation */
    ck_assert(run_until(&t, all_written, h_scaled_ms(3000)));
    /* a buffer larger than the pool keeps is freed, not kept */
    submit_stream(&t, (size_t)5 << 20);
    ck_assert(run_until(&t, all_written, h_scaled_ms(3000)));
    for (int i = 0; i < 8; i++) {
        submit_stream(&t, 4096);
        ck_assert(t.buf.data == NULL || t.buf.cap < ((size_t)5 << 20));
    }
    ck_assert_int_eq(t_stop(&t), 0);
    check_file("r.aof", 0, t.pos);
}
END_TEST

/* ---- old files are removed by an fsync thread ---- */

static _Atomic int unlink_entered, unlink_open;
static int gated_unlink(const char *path) {
    atomic_fetch_add(&unlink_entered, 1);
    while (!atomic_load(&unlink_open)) usleep(1000);
    return unlink(path);
}
static int unlink_started(tctx *t) { (void)t; return atomic_load(&unlink_entered) == 1; }

/* The step a rewrite's manifest runs on the writer thread: queue the old
 * file's removal. */
static int queue_unlink_step(void *arg, int run) {
    tctx *t = arg;
    if (run) {
        char p[512];
        path_of(p, sizeof p, "old.aof");
        aofw_unlink_later(t->w, p);
    }
    return 0;
}

/* Removing an old file of hundreds of MB takes 50-200 ms (page cache and
 * blocks freed): it runs on an fsync thread, and the writer goes on writing
 * while it does. A removal still queued or running at stop is done before
 * aofw_stop returns. */
START_TEST(test_unlink_does_not_stop_writes) {
    close(open_aof("old.aof"));
    char old[512];
    path_of(old, sizeof old, "old.aof");
    atomic_store(&unlink_entered, 0);
    atomic_store(&unlink_open, 0);
    aofw_test_set_unlink_fn(gated_unlink);
    tctx t;
    t_start(&t, open_aof("u.aof"), FSYNC_EVERYSEC);
    aofw_test_set_unlink_fn(NULL);
    submit_stream(&t, 1000);
    aofw_run(t.w, queue_unlink_step, &t);
    ck_assert(run_until(&t, unlink_started, h_scaled_ms(3000)));
    for (int i = 0; i < 4; i++) submit_stream(&t, (size_t)1 << 20);
    ck_assert_msg(run_until(&t, all_written, h_scaled_ms(3000)),
                  "written %llu of %llu while a removal runs",
                  (unsigned long long)t.st.written, (unsigned long long)t.pos);
    ck_assert_int_eq(access(old, F_OK), 0); /* still held in the removal */
    atomic_store(&unlink_open, 1);
    ck_assert_int_eq(t_stop(&t), 0);
    ck_assert_int_eq(access(old, F_OK), -1); /* removed by the time stop returns */
    ck_assert_int_eq(errno, ENOENT);
    check_file("u.aof", 0, t.pos);
}
END_TEST

/* A failed test leaves its files behind: clear the directory at the end. */
static void remove_base_dir(void) {
    DIR *d = opendir(base_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            snprintf(p, sizeof p, "%s/%s", base_dir, e->d_name);
            unlink(p);
        }
        closedir(d);
    }
    rmdir(base_dir);
}

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(base_dir, sizeof base_dir, "%s/aofw-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(base_dir)) {
        perror("mkdtemp");
        return EXIT_FAILURE;
    }
    Suite *s = suite_create("aof_writer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_stream_with_switch);
    tcase_add_test(tc, test_stop_drains);
    tcase_add_test(tc, test_always_group_commit_tight_loop);
    tcase_add_test(tc, test_always_group_commit_clients);
    tcase_add_test(tc, test_always_eight_fsyncs_overlap);
    tcase_add_test(tc, test_everysec_lags_then_catches_up);
    tcase_add_test(tc, test_everysec_slow_fsync_does_not_block_writes);
    tcase_add_test(tc, test_no_policy_never_fsyncs_until_stop);
    tcase_add_test(tc, test_policy_change_to_always);
    tcase_add_test(tc, test_write_failure_keeps_bytes_and_recovers);
    tcase_add_test(tc, test_dev_full_then_stop_gives_up);
    tcase_add_test(tc, test_fsync_failure_is_sticky);
    tcase_add_test(tc, test_switch_cancels_posted_fsync);
    tcase_add_test(tc, test_switch_posted_fsync_fd_reused);
    tcase_add_test(tc, test_switch_waits_for_running_fsync);
    tcase_add_test(tc, test_unlink_does_not_stop_writes);
    tcase_add_test(tc, test_submit_recycles_written_buffers);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    remove_base_dir();
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
