/* log: the server log, in Redis's line format
 * "pid:M 30 Nov 2026 04:52:11.123 * message" (role M in the server process,
 * its background threads included; C in a fork child). Thread-safe: one
 * write(2) per line. */
#ifndef VERSO_LOG_H
#define VERSO_LOG_H

#include <stddef.h>

#include "conf.h"

/* Where lines go ("" or NULL: stdout) and the minimum level. Main thread,
 * before threads start or while none logs concurrently. */
int log_open(const char *path, int level);
void log_set_level(int level);
/* Role character for lines written by this process ('M' main, 'C' child). */
void log_set_role(char role);
void log_msg(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* n bytes as they are, no prefix, whatever the level (the crash report's
 * blocks): one write(2) to the log's descriptor, no lock, no allocation. */
void log_raw(const char *p, size_t n);
/* The log's descriptor (the crash report's backtrace_symbols_fd). */
int log_fd_get(void);

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_verbose(...) log_msg(LOG_VERBOSE, __VA_ARGS__)
#define log_notice(...) log_msg(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)

#endif
