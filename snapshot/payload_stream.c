/* payload_stream: a DUMP payload streamed through a pipe (see
 * payload_stream.h). */
#include "payload_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "crc64.h"
#include "rdb.h"
#include "rdb_fmt.h"
#include "rdb_io.h"
#include "util.h"

#define PUMP_BUF (64 * 1024)

/* The helper thread's side: what it reads from the pipe, where it writes
 * it (fd -1: nowhere). Filled before pthread_create; the helper's until
 * pthread_join; the caller's after. */
typedef struct pump {
    int rfd;
    int out_fd;
    long timeout_ms;
    uint64_t len, crc;
    int failed, timed_out;
    char err[128];
} pump;

/* Writes p[0..n) to fd within timeout_ms: 0, or -1 (errno ETIMEDOUT on a
 * timeout). */
static int write_within(int fd, const unsigned char *p, size_t n, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
        int64_t left = deadline - mono_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pf = {fd, POLLOUT, 0};
        if (poll(&pf, 1, (int)(left > 1000000 ? 1000000 : left)) < 0 && errno != EINTR) return -1;
    }
    return 0;
}

/* Helper thread: drains the pipe, counting, checksumming and writing; on
 * a failed write it stops reading and closes the pipe, so that the
 * serializing thread's next write fails (EPIPE) instead of blocking. */
static void *pump_main(void *arg) {
    pump *u = arg;
    unsigned char *buf = xmalloc(PUMP_BUF);
    for (;;) {
        ssize_t r = read(u->rfd, buf, PUMP_BUF);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        u->crc = crc64(u->crc, buf, (size_t)r);
        u->len += (uint64_t)r;
        if (u->out_fd >= 0 && write_within(u->out_fd, buf, (size_t)r, u->timeout_ms) != 0) {
            u->timed_out = errno == ETIMEDOUT;
            snprintf(u->err, sizeof u->err, "write: %s", strerror(errno));
            u->failed = 1;
            break;
        }
    }
    free(buf);
    close(u->rfd);
    return NULL;
}

/* Serializes val into a pipe that a helper thread drains as u says. 0, or
 * -1 with err. */
static int pump_value(const obj *val, int compress, pump *u, char *err, size_t errlen) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        return -1;
    }
    u->rfd = fds[0];
    pthread_t t;
    int rc = pthread_create(&t, NULL, pump_main, u);
    if (rc != 0) {
        close(fds[0]);
        close(fds[1]);
        snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
        return -1;
    }
    sink *s = sink_fd_open(fds[1], "MIGRATE payload"); /* fds[1] stays ours */
    char werr[RDB_ERRLEN];
    int wrc = rdb_write_value(s, val, compress, werr, sizeof werr);
    sink_free(s);
    close(fds[1]); /* the helper's end of input */
    rc = pthread_join(t, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "join: %s", strerror(rc));
        return -1;
    }
    if (u->failed) {
        snprintf(err, errlen, "%s", u->err);
        return -1;
    }
    if (wrc != 0) {
        snprintf(err, errlen, "%s", werr);
        return -1;
    }
    return 0;
}

int pstream_measure(const obj *val, int compress, pstream_info *info, char *err, size_t errlen) {
    pump u = {.rfd = -1, .out_fd = -1};
    if (pump_value(val, compress, &u, err, errlen) != 0) return -1;
    info->body_len = u.len;
    info->body_crc = u.crc;
    /* the footer, as dump_payload_finish makes it */
    unsigned char *f = info->footer;
    f[0] = (unsigned char)(RDB_VERSION_WRITTEN & 0xff);
    f[1] = (unsigned char)(RDB_VERSION_WRITTEN >> 8);
    uint64_t crc = crc64(u.crc, f, 2);
    for (int i = 0; i < 8; i++) f[2 + i] = (unsigned char)(crc >> (8 * i));
    info->payload_len = u.len + sizeof info->footer;
    return 0;
}

int pstream_send(const obj *val, int compress, const pstream_info *info, int fd,
                 long timeout_ms, int *timed_out, char *err, size_t errlen) {
    pump u = {.rfd = -1, .out_fd = fd, .timeout_ms = timeout_ms};
    *timed_out = 0;
    int rc = pump_value(val, compress, &u, err, errlen);
    *timed_out = u.timed_out;
    if (rc != 0) return -1;
    if (u.len != info->body_len || u.crc != info->body_crc) {
        snprintf(err, errlen, "the value serialized differently the second time");
        return -1;
    }
    return 0;
}
