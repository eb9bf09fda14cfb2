/* diskfull: an LD_PRELOAD shim for the integration tests that makes
 * creating some files fail with ENOSPC, as on a full disk, while the server
 * runs (root ignores permissions, so chmod cannot do it):
 *
 *   LD_PRELOAD=diskfull.so DISKFULL_MATCH=temp-rewriteaof DISKFULL_FILE=/tmp/x
 *
 * While the file DISKFULL_FILE exists, open()/openat() with O_CREAT of a
 * path containing DISKFULL_MATCH fails with ENOSPC, after sleeping
 * DISKFULL_DELAY_US microseconds (default 0: a slow failure, so that a test
 * can act while it is pending); otherwise (and for every other path) the
 * real call runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static int full(const char *path, int flags) {
    if (!(flags & O_CREAT) || !path) return 0;
    const char *match = getenv("DISKFULL_MATCH"), *file = getenv("DISKFULL_FILE");
    if (!match || !*match || !file || !*file || !strstr(path, match)) return 0;
    if (access(file, F_OK) != 0) return 0;
    const char *d = getenv("DISKFULL_DELAY_US");
    long us = d ? atol(d) : 0;
    if (us > 0) usleep((useconds_t)us);
    return 1;
}

static mode_t mode_arg(int flags, va_list ap) {
    return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

/* The part every wrapper shares: mode from the varargs, and ENOSPC when
 * full(); expands inside a wrapper whose parameters are path and flags. */
#define SHIM_MODE_OR_FAIL                                                     \
    va_list ap;                                                               \
    va_start(ap, flags);                                                      \
    mode_t mode = mode_arg(flags, ap);                                        \
    va_end(ap);                                                               \
    if (full(path, flags)) {                                                  \
        errno = ENOSPC;                                                       \
        return -1;                                                            \
    }

#define SHIM_OPEN(name)                                                       \
    int name(const char *path, int flags, ...) {                             \
        static int (*real)(const char *, int, ...);                          \
        if (!real) real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        SHIM_MODE_OR_FAIL                                                     \
        return real(path, flags, mode);                                       \
    }

#define SHIM_OPENAT(name)                                                     \
    int name(int dirfd, const char *path, int flags, ...) {                  \
        static int (*real)(int, const char *, int, ...);                     \
        if (!real) real = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, #name); \
        SHIM_MODE_OR_FAIL                                                     \
        return real(dirfd, path, flags, mode);                                \
    }

SHIM_OPEN(open)
SHIM_OPEN(open64)
SHIM_OPENAT(openat)
SHIM_OPENAT(openat64)
