/* rdb_io: the sinks and sources under the RDB writer and loader (see
 * rdb_io.h for the contract).
 *
 * One struct per direction with a kind tag (sinks: file, fd, memory,
 * fan-out; sources: file, fd, memory): a switch is shorter and plainer
 * than a table of function pointers. */
#include "rdb_io.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "util.h"
#include "vbuf.h"

enum { IO_FILE, IO_FD, IO_MEM, IO_FANOUT };

/* One socket of a fan-out sink. */
typedef struct fan_target {
    int fd;               /* the owner's (a dup of a replica's socket) */
    char *name;
    vbuf prefix;          /* written before its first payload byte */
    int started;          /* prefix sent */
    int dead;             /* failed: written to no more */
    char err[RDB_IO_ERRLEN];
} fan_target;

struct sink {
    int kind;
    int fd;               /* IO_FILE: ours, -1 once closed; IO_FD: the caller's */
    char *name;           /* the path for files */
    char *final;          /* IO_FILE: rename target, NULL when none */
    vbuf mem;             /* IO_MEM; IO_FANOUT: the suffix */
    fan_target *fan;      /* IO_FANOUT: the targets */
    size_t nfan, live;
    int timeout_ms;       /* IO_FANOUT: a target taking nothing this long dies */
    const atomic_int *stop; /* IO_FANOUT: waits give up when it is set */
    uint64_t bytes;
    int failed;
    int done;             /* finished or aborted */
    char err[RDB_IO_ERRLEN];
};

struct source {
    int kind;
    int fd;               /* IO_FILE: ours; IO_FD: the caller's */
    char *name;
    const unsigned char *mem;  /* IO_MEM */
    uint64_t size;        /* SOURCE_SIZE_UNKNOWN for pipes and sockets */
    uint64_t off;
    int failed;
    char err[RDB_IO_ERRLEN];
};

/* Keeps the first error as "<name>: <what>". */
static void fail_msg(char *err, int *failed, const char *name, const char *fmt, va_list ap) {
    if (*failed) return;
    int n = snprintf(err, RDB_IO_ERRLEN, "%s: ", name);
    if (n > 0 && n < RDB_IO_ERRLEN) vsnprintf(err + n, RDB_IO_ERRLEN - (size_t)n, fmt, ap);
    *failed = 1;
}

__attribute__((format(printf, 2, 3)))
static int sink_fail(sink *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_msg(s->err, &s->failed, s->name, fmt, ap);
    va_end(ap);
    return -1;
}

__attribute__((format(printf, 2, 3)))
static int source_fail(source *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_msg(s->err, &s->failed, s->name, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- sinks ---- */

static sink *sink_new(int kind, int fd, const char *name) {
    sink *s = xcalloc(1, sizeof *s);
    s->kind = kind;
    s->fd = fd;
    s->name = xstrdup(name);
    vbuf_init(&s->mem);
    return s;
}

sink *sink_file_open(const char *path, const char *final, char *err, size_t errlen) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "%s: open: %s", path, strerror(errno));
        return NULL;
    }
    sink *s = sink_new(IO_FILE, fd, path);
    if (final) s->final = xstrdup(final);
    return s;
}

sink *sink_fd_open(int fd, const char *name) { return sink_new(IO_FD, fd, name); }

sink *sink_mem_open(const char *name) { return sink_new(IO_MEM, -1, name); }

/* Waits until fd takes more bytes (a non-blocking fd that said EAGAIN). */
static int wait_writable(int fd) {
    struct pollfd p = { .fd = fd, .events = POLLOUT };
    int r;
    do r = poll(&p, 1, -1); while (r < 0 && errno == EINTR);
    return r < 0 ? -1 : 0;
}

static int fd_write_all(sink *s, const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t r = write(s->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_writable(s->fd) == 0)
            continue;
        if (r <= 0) return sink_fail(s, "write: %s", r < 0 ? strerror(errno) : "wrote nothing");
        p += r;
        n -= (size_t)r;
        s->bytes += (uint64_t)r;
    }
    return 0;
}

/* ---- fan-out ---- */

sink *sink_fanout_open(const char *name, int timeout_ms) {
    sink *s = sink_new(IO_FANOUT, -1, name);
    s->timeout_ms = timeout_ms;
    return s;
}

void sink_fanout_add(sink *s, int fd, const char *name, const void *prefix, size_t len) {
    assert(s->kind == IO_FANOUT && s->bytes == 0);
    s->fan = xrealloc(s->fan, (s->nfan + 1) * sizeof *s->fan);
    fan_target *t = &s->fan[s->nfan++];
    memset(t, 0, sizeof *t);
    t->fd = fd;
    t->name = xstrdup(name);
    vbuf_init(&t->prefix);
    vbuf_append(&t->prefix, prefix, len);
    s->live++;
}

void sink_fanout_set_suffix(sink *s, const void *p, size_t n) {
    assert(s->kind == IO_FANOUT);
    s->mem.len = 0;
    vbuf_append(&s->mem, p, n);
}

size_t sink_fanout_count(const sink *s) { return s->nfan; }

void sink_fanout_set_stop(sink *s, const atomic_int *stop) {
    if (s->kind == IO_FANOUT) s->stop = stop;
}

/* Waits until t's socket takes more: 1, or 0 when it took nothing for
 * timeout_ms or the owner asked to stop (t's error set). */
#define FAN_POLL_SLICE_MS 100
static int target_wait(sink *s, fan_target *t) {
    int waited = 0;
    for (;;) {
        if (s->stop && atomic_load(s->stop)) {
            snprintf(t->err, sizeof t->err, "%s: the save was stopped", t->name);
            return 0;
        }
        struct pollfd pf = {.fd = t->fd, .events = POLLOUT};
        int pr = poll(&pf, 1, FAN_POLL_SLICE_MS);
        if (pr > 0) return 1;
        if (pr < 0 && errno != EINTR) {
            snprintf(t->err, sizeof t->err, "%s: poll: %s", t->name, strerror(errno));
            return 0;
        }
        if (pr == 0) waited += FAN_POLL_SLICE_MS;
        if (s->timeout_ms > 0 && waited >= s->timeout_ms) {
            snprintf(t->err, sizeof t->err, "%s: took nothing for %d ms", t->name,
                     s->timeout_ms);
            return 0;
        }
    }
}

const char *sink_fanout_error(const sink *s, size_t i) {
    assert(i < s->nfan);
    return s->fan[i].err;
}

/* Writes everything to one target: 0, or -1 with the target dead. */
static int target_write(sink *s, fan_target *t, const unsigned char *p, size_t n) {
    while (n > 0) {
        ssize_t r = write(t->fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (target_wait(s, t)) continue;
            break;
        }
        if (r <= 0) {
            snprintf(t->err, sizeof t->err, "%s: write: %s", t->name,
                     r < 0 ? strerror(errno) : "wrote nothing");
            break;
        }
        p += r;
        n -= (size_t)r;
        /* a full sync's payload: INFO's total_net_repl_output_bytes */
        atomic_fetch_add_explicit(&server.stat.net_repl_output_bytes, (uint64_t)r,
                                  memory_order_relaxed);
    }
    if (n == 0) return 0;
    t->dead = 1;
    s->live--;
    return -1;
}

/* The same bytes to every live target (after its prefix); fails when none
 * is left. */
static int fanout_write(sink *s, const unsigned char *p, size_t n) {
    for (size_t i = 0; i < s->nfan; i++) {
        fan_target *t = &s->fan[i];
        if (t->dead) continue;
        if (!t->started) {
            t->started = 1;
            if (target_write(s, t, (const unsigned char *)t->prefix.data, t->prefix.len) != 0)
                continue;
        }
        target_write(s, t, p, n);
    }
    if (s->live == 0) return sink_fail(s, "every replica failed (%s)", s->nfan ? s->fan[0].err : "none");
    s->bytes += n;
    return 0;
}

int sink_write(sink *s, const void *p, size_t n) {
    if (s->failed) return -1;
    if (s->done) return sink_fail(s, "write after the end");
    if (s->kind == IO_FANOUT) return fanout_write(s, p, n);
    if (s->kind != IO_MEM) return fd_write_all(s, p, n);
    vbuf_append(&s->mem, p, n);
    s->bytes += n;
    return 0;
}

/* fsync and close of our file, then the rename when there is a final name. */
static int file_finish(sink *s) {
    if (fsync(s->fd) != 0) sink_fail(s, "fsync: %s", strerror(errno));
    int fd = s->fd;
    s->fd = -1;
    if (close(fd) != 0) sink_fail(s, "close: %s", strerror(errno));
    if (s->failed || !s->final) return s->failed ? -1 : 0;
    char err[RDB_IO_ERRLEN];
    if (sink_commit_file(s->name, s->final, err, sizeof err) != 0) {
        snprintf(s->err, sizeof s->err, "%s", err);
        s->failed = 1;
        unlink(s->name);
        return -1;
    }
    return 0;
}

int sink_finish(sink *s) {
    if (s->failed || s->done) {
        if (!s->done) sink_abort(s);
        return s->failed ? -1 : sink_fail(s, "finish after the end");
    }
    int rc = 0;
    if (s->kind == IO_FILE) {
        rc = file_finish(s);
    } else if (s->kind == IO_FANOUT) {
        rc = fanout_write(s, (const unsigned char *)s->mem.data, s->mem.len);
        if (rc == 0) s->bytes -= s->mem.len; /* the suffix is no payload */
    } else if (s->kind == IO_FD) {
        struct stat sb;
        if (fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode) && fsync(s->fd) != 0)
            rc = sink_fail(s, "fsync: %s", strerror(errno));
    }
    s->done = 1;
    return rc;
}

void sink_abort(sink *s) {
    if (s->done) return;
    s->done = 1;
    if (s->kind != IO_FILE) return;
    if (s->fd >= 0) close(s->fd);
    s->fd = -1;
    if (s->final) unlink(s->name);
}

uint64_t sink_bytes(const sink *s) { return s->bytes; }
const char *sink_error(const sink *s) { return s->err; }
const char *sink_name(const sink *s) { return s->name; }

const unsigned char *sink_mem_data(const sink *s, size_t *len) {
    *len = s->mem.len;
    return (const unsigned char *)s->mem.data;
}

void sink_free(sink *s) {
    if (!s) return;
    sink_abort(s);
    vbuf_free(&s->mem);
    for (size_t i = 0; i < s->nfan; i++) {
        free(s->fan[i].name);
        vbuf_free(&s->fan[i].prefix);
    }
    free(s->fan);
    free(s->final);
    free(s->name);
    free(s);
}

int sink_commit_file(const char *tmp, const char *path, char *err, size_t errlen) {
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "rename %s to %s: %s", tmp, path, strerror(errno));
        return -1;
    }
    /* The directory entry is durable only once the directory is fsynced. */
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: open directory %s: %s", path, dir, strerror(errno));
        return -1;
    }
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    if (rc != 0) {
        snprintf(err, errlen, "%s: fsync of directory %s: %s", path, dir, strerror(saved));
        return -1;
    }
    return 0;
}

/* ---- sources ---- */

static source *source_new(int kind, int fd, const char *name) {
    source *s = xcalloc(1, sizeof *s);
    s->kind = kind;
    s->fd = fd;
    s->name = xstrdup(name);
    s->size = SOURCE_SIZE_UNKNOWN;
    return s;
}

static void fd_size(source *s) {
    struct stat sb;
    if (fstat(s->fd, &sb) == 0 && S_ISREG(sb.st_mode)) s->size = (uint64_t)sb.st_size;
}

source *source_file_open(const char *path, char *err, size_t errlen) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int saved = errno;
        snprintf(err, errlen, "%s: offset 0: open: %s", path, strerror(saved));
        errno = saved;
        return NULL;
    }
    source *s = source_new(IO_FILE, fd, path);
    fd_size(s);
    return s;
}

source *source_fd_open(int fd, const char *name) {
    source *s = source_new(IO_FD, fd, name);
    fd_size(s);
    return s;
}

source *source_mem_open(const void *p, size_t len, const char *name) {
    source *s = source_new(IO_MEM, -1, name);
    s->mem = p;
    s->size = len;
    return s;
}

ssize_t source_read(source *s, void *p, size_t n) {
    if (s->failed) return -1;
    if (n > SSIZE_MAX) n = SSIZE_MAX;
    if (s->kind == IO_MEM) {
        uint64_t left = s->size - s->off;
        if (n > left) n = (size_t)left;
        memcpy(p, s->mem + s->off, n);
        s->off += n;
        return (ssize_t)n;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(s->fd, (char *)p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0)
            return source_fail(s, "offset %llu: read: %s",
                               (unsigned long long)(s->off + got), strerror(errno));
        if (k == 0) break;
        got += (size_t)k;
    }
    s->off += got;
    return (ssize_t)got;
}

int source_read_exact(source *s, void *p, size_t n) {
    ssize_t k = source_read(s, p, n);
    if (k < 0) return -1;
    if ((size_t)k < n)
        return source_fail(s, "offset %llu: unexpected end of the data (%zu of %zu bytes read)",
                           (unsigned long long)s->off, (size_t)k, n);
    return 0;
}

uint64_t source_offset(const source *s) { return s->off; }
uint64_t source_size(const source *s) { return s->size; }
const char *source_error(const source *s) { return s->err; }
const char *source_name(const source *s) { return s->name; }

void source_free(source *s) {
    if (!s) return;
    if (s->kind == IO_FILE && s->fd >= 0) close(s->fd);
    free(s->name);
    free(s);
}
