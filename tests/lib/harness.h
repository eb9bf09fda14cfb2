/* harness: start a real server binary and talk to it, for the integration
 * tests (Check programs under tests/integration/).
 *
 * Which binary: $VERSO_SERVER if set, else VERSO_SERVER_PATH (from
 * test_paths.h, which make writes into the build's tests/lib: the absolute
 * paths of the server, the LD_PRELOAD shims and the source tree), else
 * ../../src/verso-server next to the test program itself. Pointing
 * VERSO_SERVER at Redis's own redis-server runs the same tests against the
 * reference; srv_is_reference() tells a test which one it faces, for the
 * very few places where verso deliberately differs (HELLO 3). Every server
 * gets "--enable-debug-command yes" (both refuse DEBUG by default); a later
 * "--enable-debug-command" in the extra arguments overrides it.
 *
 * Every server runs in a fresh directory under one per-program base dir, on a
 * free port of 127.0.0.1, with its stdout/stderr in <dir>/server.log. A
 * server dies with the test process that started it (PR_SET_PDEATHSIG), so a
 * failing or timed-out test leaves no process behind; h_main() removes the
 * base dir when the program ends.
 *
 * The expect_* macros send one command (hiredis printf-like format) and fail
 * the test, at the caller's file and line, unless the reply is exactly what
 * is named. */
#ifndef VERSO_HARNESS_H
#define VERSO_HARNESS_H

#include <check.h>
#include <hiredis/hiredis.h>
#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "test_paths.h"

typedef struct srv {
    pid_t pid;            /* -1 once reaped */
    int port;
    int exit_status;      /* waitpid status once reaped */
    char dir[2048];       /* the server's --dir, removed by srv_stop */
    char log[PATH_MAX];   /* <dir>/server.log: the server's stdout+stderr */
} srv;

/* ---- the binary ---- */
const char *srv_binary(void);
int srv_is_reference(void);          /* binary is Redis's redis-server */

/* ---- lifecycle ---- */
/* Starts the server with "--port N --bind 127.0.0.1 --dir D --save ''
 * --enable-debug-command yes" plus
 * extra arguments (printf format, then split on blanks; '...' and "..." group,
 * so "--requirepass 'a b'" is two arguments; NULL for none). Waits until it
 * answers PING (any reply, even NOAUTH, but -LOADING only when
 * h_ready_while_loading is set), 10 s at most; fails the test with the tail
 * of its log otherwise. */
extern int h_ready_while_loading;
srv *srv_start(const char *extra_fmt, ...);
/* Same, with a config file (conf_text written to <dir>/server.conf) as the
 * first argument, as redis-server takes it. */
srv *srv_start_conf(const char *conf_text, const char *extra_fmt, ...);
/* srv_start with RLIMIT_NOFILE (soft and hard) set to nofile in the
 * server's process, as `prlimit --nofile=N:N` would. */
srv *srv_start_nofile(int nofile, const char *extra_fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* SIGTERM, wait up to 10 s, then SIGKILL; removes the dir; frees s. */
void srv_stop(srv *s);
/* SIGKILL and reap (dir and struct stay until srv_stop). */
void srv_kill9(srv *s);
/* Waits up to timeout_ms for the server to exit on its own. Returns 1 if it
 * exited (s->exit_status holds the waitpid status), 0 if still running. */
int srv_wait_exit(srv *s, int timeout_ms);
/* Reads the whole log (malloc'd, NUL-terminated; "" if none). */
char *srv_log_read(const srv *s);
/* Polls the log up to timeout_ms for needle. */
int srv_log_wait(const srv *s, const char *needle, int timeout_ms);

/* Runs the server binary with a config file and arguments expected to make
 * it fail (a free port, 127.0.0.1 and a scratch --dir are added after
 * them); waits up to timeout_ms. Returns the waitpid status (or -1 on
 * timeout, the process then killed) and stores stdout+stderr in *out
 * (malloc'd). */
int srv_run_bad(const char *conf_text, const char *args, char **out,
                int timeout_ms);

/* Starts Redis's own server ($REDIS_SERVER, else redis-server on PATH)
 * whatever VERSO_SERVER says, as srv_start does (same base arguments: a
 * later --dir in extra overrides the scratch one), for the interop tests.
 * PING may still answer LOADING: h_wait_loaded waits for the data. */
const char *h_redis_binary(void);
srv *srv_start_redis(const char *extra_fmt, ...) __attribute__((format(printf, 1, 2)));

/* A port of 127.0.0.1 free now (20000-32000), for a process started by
 * other means (h_run). */
int h_free_port(void);
/* 1 when something accepts TCP connections on ip:port (IPv4 or IPv6). */
int h_accepts(const char *ip, int port);
/* A socket of the test's listening on ip:port (port 0: any; SO_REUSEADDR,
 * as a server's), to make an address busy; -1 when it cannot be bound. */
int h_listen_on(const char *ip, int port);

/* ---- connections ---- */
redisContext *srv_connect(const srv *s);   /* fails the test on error */

/* srv_start, and the server is remembered: h_srv_drop_all (a fixture's
 * teardown calls it) kills every remembered server with -9 and removes its
 * dir, so that a failing test leaves no process behind. */
srv *h_srv_start(const char *extra_fmt, ...) __attribute__((format(printf, 1, 2)));
void h_srv_drop_all(void);
/* h_srv_start on the data dir of an earlier server (--dir owner->dir; the
 * new server's own dir only holds its log). */
srv *h_srv_start_on(const srv *owner, const char *extra_fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A whole file, NUL-terminated, its length in *len. NULL when it cannot be
 * opened, or the test fails then when must_exist. */
char *h_slurp(const char *path, size_t *len, int must_exist);
/* 1 when text (a file's) holds line as one whole line ('\n' ended). */
int h_has_line(const char *text, const char *line);
/* Raw TCP socket to the server (blocking), for protocol tests. */
int raw_connect(int port);
/* raw_connect with the socket's receive buffer set to rcvbuf bytes before
 * the connect (0: the kernel's default). */
int raw_connect_rcvbuf(int port, int rcvbuf);
/* 0 when all was sent, -1 when the peer closed or 10 s passed blocked. */
int raw_send(int fd, const void *buf, size_t len);
int raw_send_str(int fd, const char *s);
/* Reads until `want` bytes arrived, the peer closed, or timeout_ms passed
 * in all; returns the bytes read into buf (NUL-terminated, cap counts the
 * NUL); *closed is set to 1 if the peer closed (EOF or reset). */
size_t raw_read(int fd, char *buf, size_t cap, size_t want, int timeout_ms,
                int *closed);
/* Reads and discards until EOF/reset; returns 1 if closed within timeout_ms,
 * 0 otherwise. *total (if not NULL) gets the bytes discarded. */
int raw_wait_closed(int fd, int timeout_ms, size_t *total);

/* ---- other programs (redis-cli, redis-benchmark) ---- */
/* Runs argv (argv[0] looked up in PATH) with stdin_text (NULL: /dev/null)
 * on its stdin; collects stdout+stderr into *out (malloc'd). Returns the
 * waitpid status, or -1 on timeout (the process is killed). */
int h_run(const char *stdin_text, char **out, int timeout_ms,
          const char *const argv[]);

/* ---- replies ---- */
/* What a reply must be: kind, text (status, error, error prefix, bulk),
 * integer bounds lo..hi (int), or element count lo (array, -1: any). */
enum { H_STATUS, H_ERROR, H_ERROR_PREFIX, H_BULK, H_INT, H_NIL, H_ARRAY };
typedef struct h_want {
    int kind;
    const char *str;
    long long lo, hi;
} h_want;

#define H_WANT(kind, str, lo, hi) ((h_want){ kind, str, lo, hi })
#define H_EXPECT(want, c, ...) h_expect(__FILE__, __LINE__, c, want, __VA_ARGS__)
#define cmd(c, ...) h_cmd(__FILE__, __LINE__, c, __VA_ARGS__)
#define expect_status(c, want, ...) \
    (void)H_EXPECT(H_WANT(H_STATUS, want, 0, 0), c, __VA_ARGS__)
#define expect_error(c, want, ...) \
    (void)H_EXPECT(H_WANT(H_ERROR, want, 0, 0), c, __VA_ARGS__)
#define expect_error_prefix(c, prefix, ...) \
    (void)H_EXPECT(H_WANT(H_ERROR_PREFIX, prefix, 0, 0), c, __VA_ARGS__)
#define expect_bulk(c, want, ...) \
    (void)H_EXPECT(H_WANT(H_BULK, want, 0, 0), c, __VA_ARGS__)
#define expect_int(c, want, ...) \
    (void)H_EXPECT(H_WANT(H_INT, NULL, want, want), c, __VA_ARGS__)
#define expect_int_range(c, lo, hi, ...) \
    (void)H_EXPECT(H_WANT(H_INT, NULL, lo, hi), c, __VA_ARGS__)
#define expect_nil(c, ...) (void)H_EXPECT(H_WANT(H_NIL, NULL, 0, 0), c, __VA_ARGS__)
/* An array of n elements (n < 0: any length); the caller frees it. */
#define expect_array(c, n, ...) H_EXPECT(H_WANT(H_ARRAY, NULL, n, n), c, __VA_ARGS__)
/* Checks a reply already in hand (e.g. an element of an array). */
#define check_bulk(r, want) \
    h_check(__FILE__, __LINE__, r, H_WANT(H_BULK, want, 0, 0))
#define check_int(r, want) \
    h_check(__FILE__, __LINE__, r, H_WANT(H_INT, NULL, want, want))
#define check_nil(r) h_check(__FILE__, __LINE__, r, H_WANT(H_NIL, NULL, 0, 0))

/* Sends a command (hiredis format) without waiting for its reply. */
void h_send(redisContext *c, const char *fmt, ...);
/* The next reply on c (waits for it; the test fails on an I/O error); the
 * caller frees it. */
redisReply *h_next_reply(redisContext *c);
/* Any reply, the test fails if there is none (I/O error); caller frees. */
redisReply *h_cmd(const char *file, int line, redisContext *c,
                  const char *fmt, ...);
/* Sends the command (hiredis format), fails at file:line unless the reply
 * is as wanted; returns it for H_ARRAY (caller frees), else NULL. */
redisReply *h_expect(const char *file, int line, redisContext *c, h_want w,
                     const char *fmt, ...);
void h_check(const char *file, int line, const redisReply *r, h_want w);
/* The value of a map reply's field (RESP2: a flat array of name, value),
 * or NULL when it has none. */
const redisReply *h_map_field(const redisReply *m, const char *name);
/* "status 'OK'", "int 3", "bulk 'x'", ... into buf, for messages. */
const char *h_reply_str(const redisReply *r, char *buf, size_t cap);

/* ---- INFO ---- */
/* INFO [section] as one malloc'd string; field value lookup into buf
 * ("" and 0 returned when the field is absent, 1 when present). */
char *h_info(redisContext *c, const char *section);
int h_info_field(const char *info, const char *field, char *buf, size_t cap);
long long h_info_int(redisContext *c, const char *section, const char *field);
/* Polls INFO [section] every 10 ms until the integer field is == (H_EQ),
 * >= (H_GE) or <= (H_LE) want; returns its value, or fails the test at the
 * caller's line with the last value after timeout_ms (scaled by
 * h_time_scale()). The field must exist. */
enum { H_EQ, H_GE, H_LE };
long long h_wait_info_at(const char *file, int line, redisContext *c,
                         const char *section, const char *field, int op,
                         long long want, int timeout_ms);
#define h_wait_info(c, section, field, want, timeout_ms) \
    h_wait_info_at(__FILE__, __LINE__, c, section, field, H_EQ, want, timeout_ms)
#define h_wait_info_ge(c, section, field, want, timeout_ms) \
    h_wait_info_at(__FILE__, __LINE__, c, section, field, H_GE, want, timeout_ms)
/* The same for a field's text. */
void h_wait_info_str_at(const char *file, int line, redisContext *c,
                        const char *section, const char *field,
                        const char *want, int timeout_ms);
#define h_wait_info_str(c, section, field, want, timeout_ms) \
    h_wait_info_str_at(__FILE__, __LINE__, c, section, field, want, timeout_ms)
/* A server that may be loading its data: waits (timeout_ms, scaled) until
 * INFO persistence says loading:0. */
#define h_wait_loaded(c, timeout_ms) h_wait_info(c, "persistence", "loading", 0, timeout_ms)

/* ---- time ---- */
long long h_now_ms(void);
void h_sleep_ms(int ms);
/* The factor by which timeouts and wall-clock bounds are stretched: 1, or 5
 * in a sanitizer build (detected at compile time); $VERSO_TIME_SCALE (>= 1)
 * overrides. h_scaled_ms(ms) = ms * h_time_scale(). A bound that proves
 * something is fast (vs. something that waits) is scaled, not dropped. */
int h_time_scale(void);
int h_scaled_ms(int ms);

/* How many entries the directory at path holds, other than . and .. (the
 * test fails when it cannot be opened). */
int h_dir_entries(const char *path);

/* Makes <s->dir>/dump.rdb a non-empty directory, so that a save's final
 * rename over it fails (a failed save on demand). */
void h_break_dump(const srv *s);

/* ---- LD_PRELOAD shims (bench/fsyncdelay.so, diskfull.so, threadfail.so) ---- */
/* Servers started from now on run with LD_PRELOAD=shim and ASAN_OPTIONS
 * extended with verify_asan_link_order=0 (a shim preloaded ahead of the
 * ASan runtime); the shim's own variables are the caller's to set.
 * h_preload_off() restores ASAN_OPTIONS, unsets LD_PRELOAD and every name
 * in the NULL-terminated list vars; it does nothing when no shim is on. */
void h_preload_on(const char *shim);
void h_preload_off(const char *const *vars);

/* ---- the default fixture: one fresh server and one client per test ---- */
extern srv *h_srv;
extern redisContext *h_c;
void h_setup(void);
void h_teardown(void);

/* Adds test t as its own TCase named name to su, with the given timeout
 * (seconds) and the checked fixture setup/teardown (either may be NULL). */
void h_add_tcase(Suite *su, const char *name, const TTest *t, int timeout_s,
                 SFun setup, SFun teardown);
/* h_add_tcase with no setup and h_srv_drop_all as teardown: every server a
 * test starts through h_srv_start is killed, also when the test fails. */
void h_add_dropall(Suite *su, const char *name, const TTest *t, int timeout_s);

/* Runs the suite (CK_NORMAL; CK_FORK from the environment), removes every
 * server dir, returns the process exit code. */
int h_main(Suite *s);

#endif

/* ---- more processes and logs (replication tests) ---- */
/* Starts n servers at once (spec i: Redis's own binary when redis, else
 * the one under test, with args as h_srv_start's, NULL: none) into out[i],
 * each remembered for h_srv_drop_all: all are spawned before any is
 * awaited, so a test of several nodes waits for one start-up, not n. */
typedef struct {
    int redis;
    const char *args;
} h_srv_spec;
void h_srv_start_all(int n, const h_srv_spec specs[], srv *out[]);
/* srv_start_redis, and the server is remembered for h_srv_drop_all. */
srv *h_srv_start_redis(const char *extra_fmt, ...) __attribute__((format(printf, 1, 2)));
/* srv_start_conf (redis: Redis's own binary, as srv_start_redis), the
 * server remembered for h_srv_drop_all; extra_fmt may be NULL. */
srv *h_srv_start_conf(int redis, const char *conf_text, const char *extra_fmt, ...);
/* Starts argv (argv[0] looked up in PATH) in the background, stdin from
 * /dev/null, stdout+stderr appended to out_path; it dies with the test
 * process. Returns its pid (h_spawn_kill ends it). */
pid_t h_spawn(const char *const argv[], const char *out_path);
/* SIGKILL and reap a process h_spawn started; returns its wait status. */
int h_spawn_kill(pid_t pid);
/* Polls the server's log up to timeout_ms (scaled) for any of the
 * NULL-terminated needles; returns the index of the first one found (in
 * the order given), -1 on timeout. */
int srv_log_wait_any(const srv *s, int timeout_ms, const char *const needles[]);
/* How many times needle occurs in the server's log now. */
int srv_log_count(const srv *s, const char *needle);
/* VmRSS of a process in kB (-1 when unreadable). */
long h_rss_kb(pid_t pid);
