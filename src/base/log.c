/* log: Redis-format log lines to stdout or a file (see log.h). */
#include "log.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int log_fd = STDOUT_FILENO;      /* set before threads start */
static _Atomic int log_level = LOG_NOTICE;
static char log_role = 'M';              /* per process; set after fork */

int log_open(const char *path, int level) {
    atomic_store(&log_level, level);
    if (!path || !*path) { log_fd = STDOUT_FILENO; return 0; }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    if (log_fd != STDOUT_FILENO) close(log_fd);
    log_fd = fd;
    return 0;
}

void log_set_level(int level) { atomic_store(&log_level, level); }

void log_set_role(char role) { log_role = role; }

void log_msg(int level, const char *fmt, ...) {
    if (level < atomic_load(&log_level)) return;
    static const char marks[] = ".-*#";
    char line[1024];
    struct timeval tv;
    gettimeofday(&tv, NULL);
    struct tm tm;
    localtime_r(&tv.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%d:%c ", (int)getpid(), log_role);
    n += (int)strftime(line + n, sizeof line - (size_t)n, "%d %b %Y %H:%M:%S", &tm);
    n += snprintf(line + n, sizeof line - (size_t)n, ".%03d %c ", (int)(tv.tv_usec / 1000),
                  marks[level & 3]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    n += m;
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(log_fd, line, (size_t)n);
    (void)w; /* nowhere to report a failed log write */
}

void log_raw(const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(log_fd, p, n);
        if (w <= 0) return; /* nowhere to report it */
        p += w;
        n -= (size_t)w;
    }
}

int log_fd_get(void) { return log_fd; }
