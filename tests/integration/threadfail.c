/* threadfail: an LD_PRELOAD shim for the integration tests that makes
 * starting a thread fail, as when the process is out of threads or memory
 * for their stacks:
 *
 *   LD_PRELOAD=threadfail.so THREADFAIL_FILE=/tmp/x
 *
 * While the file THREADFAIL_FILE exists, pthread_create() fails with EAGAIN
 * without starting anything; otherwise the real call runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *t, const pthread_attr_t *attr, void *(*fn)(void *), void *arg) {
    static create_fn real;
    if (!real) real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    const char *file = getenv("THREADFAIL_FILE");
    if (file && *file && access(file, F_OK) == 0) return EAGAIN;
    return real(t, attr, fn, arg);
}
