/* forksave: fork BGSAVE (see forksave.h). */
#include "forksave.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "introspect.h"
#include "log.h"
#include "util.h"
#include "syncsave.h"

/* The child's report, written to the pipe in one write (< PIPE_BUF). */
typedef struct child_report {
    int ok;
    uint64_t cow_bytes;
    uint64_t keys;
    char err[RDB_ERRLEN];
} child_report;

static int report_fd = -1; /* parent: read end of the running child's pipe */

uint64_t forksave_private_dirty(void) {
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) f = fopen("/proc/self/smaps", "r");
    if (!f) return 0;
    char line[256];
    uint64_t total = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long kb;
        if (sscanf(line, "Private_Dirty: %llu kB", &kb) == 1) total += kb * 1024;
    }
    fclose(f);
    return total;
}

static void child_main(int fd, sink *out, const char *tmp, const char *path, int compress,
                       const rdb_aux *aux) {
    log_set_role('C');
    child_report r;
    memset(&r, 0, sizeof r);
    r.ok = (out ? syncsave_write_sink(out, compress, aux, &r.keys, r.err, sizeof r.err)
                : syncsave_write(tmp, path, compress, aux, &r.keys, r.err, sizeof r.err)) == 0;
    r.cow_bytes = forksave_private_dirty();
    if (r.ok)
        log_notice("Fork save: %llu keys written, %llu MB of copy-on-write",
                   (unsigned long long)r.keys, (unsigned long long)(r.cow_bytes >> 20));
    ssize_t w = write(fd, &r, sizeof r);
    _exit(r.ok && w == (ssize_t)sizeof r ? 0 : 1);
}

static pid_t start_child(sink *out, const char *tmp, const char *path, int compress,
                         const rdb_aux *aux, int64_t *fork_us, char *err, size_t errlen) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "Can't create the report pipe: %s", strerror(errno));
        return -1;
    }
    int64_t start = mono_us();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_main(fds[1], out, tmp, path, compress, aux);
    }
    *fork_us = mono_us() - start;
    if (pid > 0) latency_add_us("fork", *fork_us); /* the latency monitor's event */
    close(fds[1]);
    if (pid < 0) {
        snprintf(err, errlen, "Can't save in background: fork: %s", strerror(errno));
        close(fds[0]);
        return -1;
    }
    report_fd = fds[0];
    return pid;
}

pid_t forksave_start(const char *tmp, const char *path, int compress, const rdb_aux *aux,
                     int64_t *fork_us, char *err, size_t errlen) {
    return start_child(NULL, tmp, path, compress, aux, fork_us, err, errlen);
}

pid_t forksave_start_sink(sink *out, int compress, const rdb_aux *aux, int64_t *fork_us,
                          char *err, size_t errlen) {
    return start_child(out, NULL, NULL, compress, aux, fork_us, err, errlen);
}

int forksave_poll(pid_t pid, fork_result *res) {
    int status;
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == 0) return 0;
    memset(res, 0, sizeof *res);
    child_report rep;
    memset(&rep, 0, sizeof rep);
    ssize_t n = report_fd >= 0 ? read(report_fd, &rep, sizeof rep) : -1;
    if (report_fd >= 0) close(report_fd);
    report_fd = -1;
    if (n == (ssize_t)sizeof rep) {
        res->ok = rep.ok;
        res->cow_bytes = rep.cow_bytes;
        res->keys = rep.keys;
        memcpy(res->err, rep.err, sizeof res->err);
    }
    if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        res->ok = 0;
        if (!res->err[0]) {
            if (r > 0 && WIFSIGNALED(status))
                snprintf(res->err, sizeof res->err, "child terminated by signal %d",
                         WTERMSIG(status));
            else
                snprintf(res->err, sizeof res->err, "child failed");
        }
    }
    return 1;
}

void forksave_kill(pid_t pid) {
    kill(pid, SIGUSR1);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (report_fd >= 0) close(report_fd);
    report_fd = -1;
}
