/* fsyncdelay: an LD_PRELOAD shim that makes fsync(2) and fdatasync(2) slower,
 * to stand in for a slow network disk. Used the same way for verso and
 * redis-server:
 *
 *   LD_PRELOAD=bench/fsyncdelay.so FSYNC_DELAY_US=3750 verso-server ...
 *
 * FSYNC_DELAY_US (microseconds, default 0) is slept before each real call.
 * FSYNC_DELAY_FILE, when set, names a file whose content (a number of
 * microseconds) is re-read at most every 100 ms, so a test can stall and
 * release the disk while the server runs.
 *
 * WRITE_DELAY_US (microseconds, default 0) is slept before each write(2) to
 * a regular file (sockets and pipes are left alone): a slow disk for a
 * snapshot writer that calls write(2) itself (verso's serializer; stdio
 * writers such as redis-server's are not affected). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long delay_from_file(const char *path) {
    static _Atomic long cached = -1;
    static _Atomic long long last_ns = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
    if (cached >= 0 && now - last_ns < 100000000LL) return cached;
    long v = 0;
    FILE *f = fopen(path, "r");
    if (f) {
        if (fscanf(f, "%ld", &v) != 1) v = 0;
        fclose(f);
    }
    cached = v;
    last_ns = now;
    return v;
}

static long delay_us(void) {
    const char *file = getenv("FSYNC_DELAY_FILE");
    if (file && *file) return delay_from_file(file);
    const char *v = getenv("FSYNC_DELAY_US");
    return v ? atol(v) : 0;
}

static void pause_us(long us) {
    if (us <= 0) return;
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0) {}
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    pause_us(delay_us());
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    pause_us(delay_us());
    return real(fd);
}

ssize_t write(int fd, const void *buf, size_t n) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    const char *v = getenv("WRITE_DELAY_US");
    struct stat st;
    if (v && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) pause_us(atol(v));
    return real(fd, buf, n);
}
