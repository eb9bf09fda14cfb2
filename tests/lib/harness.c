/* harness: runs a real server process for the integration tests, and the
 * reply assertions they share. See harness.h for the contract.
 *
 * Processes: every process started here (servers, redis-cli...) gets
 * PR_SET_PDEATHSIG=SIGKILL, all inherited descriptors above stderr closed
 * (so a test closing a socket really closes it), and SIGPIPE back to its
 * default. Files: one base dir per test program (h_main), one sub-dir per
 * server. */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define START_TIMEOUT_MS 10000
#define STOP_TIMEOUT_MS 10000
#define START_ATTEMPTS 8
#define PORT_LO 20000
#define PORT_HI 32000 /* below the kernel's ephemeral range */

srv *h_srv;
redisContext *h_c;
static char h_base[1024];

static int pick_port(void);

/* ------------------------------------------------------------------ misc */

static void h_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static void h_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[3000];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    _ck_assert_failed(file, line, "Failed", "%s", msg);
}

#define FAIL(...) h_fail(__FILE__, __LINE__, __VA_ARGS__)

long long h_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void h_sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
    }
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    if (f) {
        size_t n;
        while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
            len += n;
            if (cap - len - 1 == 0) {
                cap *= 2;
                buf = realloc(buf, cap);
                ck_assert_ptr_nonnull(buf);
            }
        }
        fclose(f);
    }
    buf[len] = '\0';
    return buf;
}

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void rm_tree(const char *dir)
{
    if (dir[0])
        nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void ensure_base(void)
{
    if (h_base[0])
        return;
    const char *tmp = getenv("TMPDIR");
    snprintf(h_base, sizeof h_base, "%s/verso-itest.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(h_base))
        FAIL("mkdtemp %s: %s", h_base, strerror(errno));
}

/* RLIMIT_NOFILE (soft and hard) of the next server started, 0: inherited;
 * set by srv_start_nofile for one start. */
static rlim_t h_child_nofile;
/* The binary of the next server started, NULL: srv_binary(); set by
 * srv_start_redis for one start. */
static const char *h_child_binary;

/* In a freshly forked child: die with the parent, keep no descriptor of
 * the test, default SIGPIPE, output to out_path, stdin from in_fd. */
static void child_setup(pid_t parent, const char *out_path, int in_fd)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (h_child_nofile) {
        struct rlimit lim = { h_child_nofile, h_child_nofile };
        if (setrlimit(RLIMIT_NOFILE, &lim) != 0)
            _exit(127);
    }
    if (getppid() != parent)
        _exit(127);
    signal(SIGPIPE, SIG_DFL);
    int out = open(out_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (in_fd < 0)
        in_fd = open("/dev/null", O_RDONLY);
    if (out < 0 || in_fd < 0)
        _exit(127);
    dup2(in_fd, 0);
    dup2(out, 1);
    dup2(out, 2);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3U, ~0U, 0) == 0)
        return;
#endif
    for (int fd = 3; fd < 65536; fd++)
        close(fd);
}

/* Waits up to timeout_ms for pid; returns 1 and *status when it exited. */
static int wait_pid(pid_t pid, int *status, int timeout_ms)
{
    long long deadline = h_now_ms() + timeout_ms;
    int nap = 1;
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1; /* not our child any more: treat as gone */
        if (h_now_ms() >= deadline)
            return 0;
        h_sleep_ms(nap);
        nap = nap < 8 ? nap * 2 : 10; /* most exits come within a few ms */
    }
}

/* ----------------------------------------------------------- the binary */

const char *srv_binary(void)
{
    static char path[PATH_MAX];
    if (path[0])
        return path;
    const char *env = getenv("VERSO_SERVER");
    if (env && *env) {
        snprintf(path, sizeof path, "%s", env);
        return path;
    }
#ifdef VERSO_SERVER_PATH
    snprintf(path, sizeof path, "%s", VERSO_SERVER_PATH);
#else
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        n = 0;
    exe[n] = '\0';
    snprintf(path, sizeof path, "%s/../../src/verso-server", dirname(exe));
#endif
    return path;
}

int srv_is_reference(void)
{
    const char *p = srv_binary();
    const char *base = strrchr(p, '/');
    return strcmp(base ? base + 1 : p, "redis-server") == 0;
}

/* ------------------------------------------------------------- starting */

/* Splits s on blanks into argv (strdup'd); '...' and "..." group, so ""
 * is an empty argument. Returns the count. */
static int split_args(const char *s, char **argv, int max)
{
    int n = 0;
    while (s && *s) {
        while (*s == ' ' || *s == '\t' || *s == '\n')
            s++;
        if (!*s)
            break;
        char word[4096];
        size_t len = 0;
        char quote = 0;
        for (; *s && (quote || (*s != ' ' && *s != '\t' && *s != '\n')); s++) {
            if (!quote && (*s == '"' || *s == '\'')) {
                quote = *s;
            } else if (quote && *s == quote) {
                quote = 0;
            } else if (len < sizeof word - 1) {
                word[len++] = *s;
            }
        }
        word[len] = '\0';
        if (n < max)
            argv[n++] = strdup(word);
    }
    return n;
}

int h_free_port(void)
{
    return pick_port();
}

static socklen_t sockaddr_of(const char *ip, int port, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    struct sockaddr_in *a = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, ip, &a->sin_addr) == 1) {
        a->sin_family = AF_INET;
        a->sin_port = htons((uint16_t)port);
        return sizeof *a;
    }
    ck_assert_msg(inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1, "not an address: %s", ip);
    a6->sin6_family = AF_INET6;
    a6->sin6_port = htons((uint16_t)port);
    return sizeof *a6;
}

int h_accepts(const char *ip, int port)
{
    struct sockaddr_storage ss;
    socklen_t len = sockaddr_of(ip, port, &ss);
    int fd = socket(ss.ss_family, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    int ok = connect(fd, (struct sockaddr *)&ss, len) == 0;
    close(fd);
    return ok;
}

int h_listen_on(const char *ip, int port)
{
    struct sockaddr_storage ss;
    socklen_t len = sockaddr_of(ip, port, &ss);
    int fd = socket(ss.ss_family, SOCK_STREAM, 0), one = 1;
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one), 0);
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 4) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int pick_port(void)
{
    static int seeded;
    if (!seeded) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        srand((unsigned)(getpid() ^ ts.tv_nsec));
        seeded = 1;
    }
    /* servers started together have not bound theirs yet: never hand out
     * one of the last few ports again */
    static int recent[16], nrecent;
    for (int tries = 0; tries < 200; tries++) {
        int port = PORT_LO + rand() % (PORT_HI - PORT_LO);
        int seen = 0;
        for (int i = 0; i < 16; i++)
            seen |= recent[i] == port;
        if (seen)
            continue;
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        struct sockaddr_in sa = { .sin_family = AF_INET,
                                  .sin_port = htons((uint16_t)port) };
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int ok = bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        close(fd);
        if (ok) {
            recent[nrecent++ % 16] = port;
            return port;
        }
    }
    FAIL("no free port found in %d-%d", PORT_LO, PORT_HI);
}

static void log_tail(const char *path, char *out, size_t cap)
{
    char *all = read_file(path);
    size_t len = strlen(all);
    size_t keep = cap > 1 ? cap - 1 : 0;
    snprintf(out, cap, "%s", len > keep ? all + len - keep : all);
    free(all);
}

/* Starts argv (PATH lookup) with output to out_path, stdin from in_fd
 * (-1: /dev/null). */
static pid_t spawn(char *const *argv, const char *out_path, int in_fd)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        child_setup(parent, out_path, in_fd);
        execvp(argv[0], argv);
        fprintf(stderr, "harness: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* The waitpid status of pid, or -1 (and pid killed) after timeout_ms. */
static int wait_or_kill(pid_t pid, int timeout_ms)
{
    int status;
    if (wait_pid(pid, &status, timeout_ms))
        return status;
    kill(pid, SIGKILL);
    wait_pid(pid, &status, STOP_TIMEOUT_MS);
    return -1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        FAIL("writing %s: %s", path, strerror(errno));
}

int h_ready_while_loading;

/* 0: answers PING (-LOADING counts only with h_ready_while_loading); 1:
 * exited early; -1: timeout. */
static int wait_ready(srv *s)
{
    long long deadline = h_now_ms() + START_TIMEOUT_MS;
    while (h_now_ms() < deadline) {
        if (waitpid(s->pid, &s->exit_status, WNOHANG) == s->pid) {
            s->pid = -1;
            return 1;
        }
        struct timeval tv = { 0, 200000 };
        redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
        if (c && !c->err) {
            struct timeval rtv = { 2, 0 };
            redisSetTimeout(c, rtv);
            redisReply *r = redisCommand(c, "PING");
            int up = r != NULL && (h_ready_while_loading || r->type != REDIS_REPLY_ERROR ||
                                   strncmp(r->str, "LOADING", 7) != 0);
            freeReplyObject(r);
            redisFree(c);
            if (up && waitpid(s->pid, &s->exit_status, WNOHANG) == 0)
                return 0;
        } else {
            redisFree(c);
        }
        h_sleep_ms(2); /* a refused connect is cheap; a start takes ~10 ms */
    }
    return -1;
}

static int addr_in_use(const char *log)
{
    char *all = read_file(log);
    int yes = strstr(all, "in use") != NULL || strstr(all, "EADDRINUSE");
    free(all);
    return yes;
}

/* A new server's dir, log and (conf_text non-NULL) server.conf; not started. */
static srv *prepare(const char *conf_text)
{
    ensure_base();
    srv *s = calloc(1, sizeof *s);
    ck_assert_ptr_nonnull(s);
    snprintf(s->dir, sizeof s->dir, "%s/srv.XXXXXX", h_base);
    if (!mkdtemp(s->dir))
        FAIL("mkdtemp %s: %s", s->dir, strerror(errno));
    snprintf(s->log, sizeof s->log, "%s/server.log", s->dir);
    if (conf_text) {
        char conf_path[PATH_MAX + 16];
        snprintf(conf_path, sizeof conf_path, "%s/server.conf", s->dir);
        write_file(conf_path, conf_text);
    }
    return s;
}

/* Spawns bin for s on a fresh port (with s's server.conf when has_conf). */
static void launch(srv *s, const char *bin, int has_conf, const char *extra)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = strdup(bin);
    if (has_conf) {
        char conf_path[PATH_MAX + 16];
        snprintf(conf_path, sizeof conf_path, "%s/server.conf", s->dir);
        argv[argc++] = strdup(conf_path);
    }
    s->port = pick_port();
    char base_args[PATH_MAX + 128];
    snprintf(base_args, sizeof base_args,
             "--port %d --bind 127.0.0.1 --dir '%s' --save '' "
             "--enable-debug-command yes",
             s->port, s->dir);
    argc += split_args(base_args, argv + argc, 60 - argc);
    argc += split_args(extra, argv + argc, 60 - argc);
    argv[argc] = NULL;
    unlink(s->log); /* each attempt's log on its own */
    s->pid = spawn(argv, s->log, -1);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
}

/* Waits for a launched s: 1 when it answers PING, 0 when it lost a race for
 * its port (launch again); fails the test otherwise. */
static int await_up(srv *s, const char *bin)
{
    int r = wait_ready(s);
    if (r == 0)
        return 1;
    if (r == 1 && addr_in_use(s->log))
        return 0;
    char tail[1500];
    log_tail(s->log, tail, sizeof tail);
    if (r < 0)
        srv_kill9(s);
    FAIL("server %s (port %d) %s; log tail:\n%s", bin, s->port,
         r < 0 ? "did not answer PING within 10 s" : "exited at startup",
         tail);
}

static srv *start_with(const char *conf_text, const char *extra)
{
    srv *s = prepare(conf_text);
    const char *bin = h_child_binary ? h_child_binary : srv_binary();
    for (int attempt = 0; attempt < START_ATTEMPTS; attempt++) {
        launch(s, bin, conf_text != NULL, extra);
        if (await_up(s, bin))
            return s;
    }
    FAIL("server could not get a free port in %d attempts", START_ATTEMPTS);
}

srv *srv_start(const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    return start_with(NULL, extra);
}

srv *srv_start_nofile(int nofile, const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    h_child_nofile = (rlim_t)nofile;
    srv *s = start_with(NULL, extra);
    h_child_nofile = 0;
    return s;
}

const char *h_redis_binary(void)
{
    const char *env = getenv("REDIS_SERVER");
    return env && *env ? env : "redis-server";
}

srv *srv_start_redis(const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    h_child_binary = h_redis_binary();
    srv *s = start_with(NULL, extra);
    h_child_binary = NULL;
    return s;
}

#define H_MAX_TRACKED 64 /* the crash test restarts its server 30 times */
static srv *h_tracked[H_MAX_TRACKED];
static int h_ntracked;

srv *h_srv_start(const char *extra_fmt, ...)
{
    char extra[4096] = "";
    va_list ap;
    va_start(ap, extra_fmt);
    if (extra_fmt) vsnprintf(extra, sizeof extra, extra_fmt, ap); /* NULL: none, as srv_start */
    va_end(ap);
    ck_assert_int_lt(h_ntracked, H_MAX_TRACKED);
    srv *s = start_with(NULL, extra);
    h_tracked[h_ntracked++] = s;
    return s;
}

srv *h_srv_start_on(const srv *owner, const char *extra_fmt, ...)
{
    char extra[4096];
    va_list ap;
    va_start(ap, extra_fmt);
    vsnprintf(extra, sizeof extra, extra_fmt, ap);
    va_end(ap);
    return h_srv_start("--dir '%s' %s", owner->dir, extra);
}

void h_srv_drop_all(void)
{
    for (int i = 0; i < h_ntracked; i++)
        srv_kill9(h_tracked[i]);
    for (int i = h_ntracked - 1; i >= 0; i--)
        srv_stop(h_tracked[i]); /* dead already: only removes the dir */
    h_ntracked = 0;
}

char *h_slurp(const char *path, size_t *len, int must_exist)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        ck_assert_msg(!must_exist, "open %s: %s", path, strerror(errno));
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    buf[n] = '\0';
    *len = (size_t)n;
    return buf;
}

int h_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && p[n] == '\n') return 1;
    return 0;
}

srv *srv_start_conf(const char *conf_text, const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    return start_with(conf_text, extra);
}

/* ------------------------------------------------------------- stopping */

int srv_wait_exit(srv *s, int timeout_ms)
{
    if (s->pid <= 0)
        return 1;
    if (!wait_pid(s->pid, &s->exit_status, timeout_ms))
        return 0;
    s->pid = -1;
    return 1;
}

void srv_kill9(srv *s)
{
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGKILL);
    wait_pid(s->pid, &s->exit_status, STOP_TIMEOUT_MS);
    s->pid = -1;
}

void srv_stop(srv *s)
{
    if (!s)
        return;
    const char *problem = NULL;
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        if (!srv_wait_exit(s, STOP_TIMEOUT_MS)) {
            problem = "did not exit within 10 s of SIGTERM";
            srv_kill9(s);
        } else if (!WIFEXITED(s->exit_status) ||
                   WEXITSTATUS(s->exit_status) != 0) {
            problem = "did not exit with status 0 on SIGTERM";
        }
    }
    char tail[1500] = "";
    int status = s->exit_status;
    if (problem)
        log_tail(s->log, tail, sizeof tail);
    rm_tree(s->dir);
    free(s);
    if (problem)
        FAIL("server %s (wait status 0x%x); log tail:\n%s", problem, status,
             tail);
}

char *srv_log_read(const srv *s)
{
    return read_file(s->log);
}

int srv_log_wait(const srv *s, const char *needle, int timeout_ms)
{
    long long deadline = h_now_ms() + timeout_ms;
    for (;;) {
        char *all = read_file(s->log);
        int found = strstr(all, needle) != NULL;
        free(all);
        if (found)
            return 1;
        if (h_now_ms() >= deadline)
            return 0;
        h_sleep_ms(5);
    }
}

int srv_run_bad(const char *conf_text, const char *args, char **out,
                int timeout_ms)
{
    ensure_base();
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s/bad.XXXXXX", h_base);
    if (!mkdtemp(dir))
        FAIL("mkdtemp %s: %s", dir, strerror(errno));
    char conf_path[PATH_MAX + 16], out_path[PATH_MAX + 16];
    snprintf(conf_path, sizeof conf_path, "%s/server.conf", dir);
    snprintf(out_path, sizeof out_path, "%s/out.log", dir);
    write_file(conf_path, conf_text);
    char *argv[64];
    int argc = 0;
    argv[argc++] = strdup(srv_binary());
    argv[argc++] = strdup(conf_path);
    argc += split_args(args, argv + argc, 50 - argc);
    /* should it start after all, keep it off the default port */
    char safe[PATH_MAX + 128];
    snprintf(safe, sizeof safe, "--port %d --bind 127.0.0.1 --dir '%s' --save ''",
             pick_port(), dir);
    argc += split_args(safe, argv + argc, 62 - argc);
    argv[argc] = NULL;
    pid_t pid = spawn(argv, out_path, -1);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    int status = wait_or_kill(pid, timeout_ms);
    *out = read_file(out_path);
    rm_tree(dir);
    return status;
}

int h_run(const char *stdin_text, char **out, int timeout_ms,
          const char *const argv[])
{
    ensure_base();
    char out_path[PATH_MAX + 32];
    snprintf(out_path, sizeof out_path, "%s/run.%d.XXXXXX", h_base,
             (int)getpid());
    int tmpfd = mkstemp(out_path);
    if (tmpfd < 0)
        FAIL("mkstemp: %s", strerror(errno));
    close(tmpfd);
    int in[2] = { -1, -1 };
    if (stdin_text && pipe(in) != 0)
        FAIL("pipe: %s", strerror(errno));
    pid_t pid = spawn((char *const *)argv, out_path, in[0]);
    if (stdin_text) {
        close(in[0]);
        size_t len = strlen(stdin_text);
        if (write(in[1], stdin_text, len) != (ssize_t)len)
            FAIL("writing stdin of %s: %s", argv[0], strerror(errno));
        close(in[1]);
    }
    int status = wait_or_kill(pid, timeout_ms);
    *out = read_file(out_path);
    unlink(out_path);
    return status;
}

/* ---------------------------------------------------------- connections */

redisContext *srv_connect(const srv *s)
{
    struct timeval tv = { 5, 0 };
    redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
    if (!c || c->err)
        FAIL("connect to port %d: %s", s->port, c ? c->errstr : "no memory");
    struct timeval rtv = { 20, 0 };
    redisSetTimeout(c, rtv);
    return c;
}

int raw_connect(int port)
{
    return raw_connect_rcvbuf(port, 0);
}

int raw_connect_rcvbuf(int port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && rcvbuf > 0 &&
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf) != 0)
        FAIL("SO_RCVBUF %d: %s", rcvbuf, strerror(errno));
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        FAIL("raw connect to port %d: %s", port, strerror(errno));
    return fd;
}

int raw_send(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        struct pollfd pfd = { fd, POLLOUT, 0 };
        if (poll(&pfd, 1, 10000) <= 0)
            return -1;
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int raw_send_str(int fd, const char *s)
{
    return raw_send(fd, s, strlen(s));
}

size_t raw_read(int fd, char *buf, size_t cap, size_t want, int timeout_ms,
                int *closed)
{
    long long deadline = h_now_ms() + timeout_ms;
    size_t got = 0;
    *closed = 0;
    while (got < want && got + 1 < cap) {
        long long left = deadline - h_now_ms();
        struct pollfd pfd = { fd, POLLIN, 0 };
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        ssize_t n = recv(fd, buf + got, cap - 1 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *closed = 1;
            break;
        }
        got += (size_t)n;
    }
    buf[got] = '\0';
    return got;
}

int raw_wait_closed(int fd, int timeout_ms, size_t *total)
{
    long long deadline = h_now_ms() + timeout_ms;
    char buf[65536];
    size_t sum = 0;
    int closed = 0;
    while (!closed) {
        long long left = deadline - h_now_ms();
        struct pollfd pfd = { fd, POLLIN, 0 };
        if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
            break;
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            closed = 1;
        else
            sum += (size_t)n;
    }
    if (total)
        *total = sum;
    return closed;
}

/* --------------------------------------------------------------- replies */

const char *h_reply_str(const redisReply *r, char *buf, size_t cap)
{
    if (!r) {
        snprintf(buf, cap, "no reply");
        return buf;
    }
    switch (r->type) {
    case REDIS_REPLY_STATUS: snprintf(buf, cap, "status '%.200s'", r->str); break;
    case REDIS_REPLY_ERROR: snprintf(buf, cap, "error '%.300s'", r->str); break;
    case REDIS_REPLY_STRING: snprintf(buf, cap, "bulk '%.200s'", r->str); break;
    case REDIS_REPLY_INTEGER: snprintf(buf, cap, "int %lld", r->integer); break;
    case REDIS_REPLY_NIL: snprintf(buf, cap, "nil"); break;
    case REDIS_REPLY_ARRAY: snprintf(buf, cap, "array[%zu]", r->elements); break;
    default: snprintf(buf, cap, "type %d", r->type); break;
    }
    return buf;
}

/* The command as text ("SET k v"), from the hiredis format and args. */
static void describe_cmd(char *out, size_t cap, const char *fmt, va_list ap)
{
    char *resp = NULL;
    va_list cp;
    va_copy(cp, ap);
    int len = redisvFormatCommand(&resp, fmt, cp);
    va_end(cp);
    snprintf(out, cap, "%s", fmt);
    if (len <= 0 || !resp)
        return;
    size_t o = 0;
    char *p = strchr(resp, '\n');
    while (p && p + 1 < resp + len && p[1] == '$' && o + 2 < cap) {
        long alen = strtol(p + 2, &p, 10);
        p += 2; /* \r\n */
        int quote = alen == 0 || memchr(p, ' ', (size_t)alen) != NULL;
        int n = snprintf(out + o, cap - o, "%s%s%.*s%s", o ? " " : "",
                         quote ? "'" : "", (int)(alen > 60 ? 60 : alen), p,
                         quote ? "'" : "");
        o += n > 0 ? (size_t)n : 0;
        if (o >= cap)
            break;
        p += alen + 1; /* to the \n after the data */
    }
    free(resp);
}

static redisReply *vcmd(const char *file, int line, redisContext *c,
                        char *desc, size_t dcap, const char *fmt, va_list ap)
{
    describe_cmd(desc, dcap, fmt, ap);
    redisReply *r = redisvCommand(c, fmt, ap);
    if (!r)
        h_fail(file, line, "%s: no reply (%s)", desc,
               c->err ? c->errstr : "?");
    return r;
}

redisReply *h_cmd(const char *file, int line, redisContext *c,
                  const char *fmt, ...)
{
    char desc[512];
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vcmd(file, line, c, desc, sizeof desc, fmt, ap);
    va_end(ap);
    return r;
}

static int reply_matches(const redisReply *r, h_want w)
{
    if (!r)
        return 0;
    switch (w.kind) {
    case H_STATUS: return r->type == REDIS_REPLY_STATUS && !strcmp(r->str, w.str);
    case H_ERROR: return r->type == REDIS_REPLY_ERROR && !strcmp(r->str, w.str);
    case H_ERROR_PREFIX:
        return r->type == REDIS_REPLY_ERROR &&
               !strncmp(r->str, w.str, strlen(w.str));
    case H_BULK:
        return r->type == REDIS_REPLY_STRING && r->len == strlen(w.str) &&
               !memcmp(r->str, w.str, r->len);
    case H_INT:
        return r->type == REDIS_REPLY_INTEGER && r->integer >= w.lo &&
               r->integer <= w.hi;
    case H_NIL: return r->type == REDIS_REPLY_NIL;
    case H_ARRAY:
        return r->type == REDIS_REPLY_ARRAY &&
               (w.lo < 0 || r->elements == (size_t)w.lo);
    }
    return 0;
}

static const char *want_str(h_want w, char *buf, size_t cap)
{
    switch (w.kind) {
    case H_STATUS: snprintf(buf, cap, "status '%.200s'", w.str); break;
    case H_ERROR: snprintf(buf, cap, "error '%.300s'", w.str); break;
    case H_ERROR_PREFIX: snprintf(buf, cap, "error '%.200s...'", w.str); break;
    case H_BULK: snprintf(buf, cap, "bulk '%.200s'", w.str); break;
    case H_NIL: snprintf(buf, cap, "nil"); break;
    case H_ARRAY: snprintf(buf, cap, "array[%lld]", w.lo); break;
    default:
        if (w.lo == w.hi)
            snprintf(buf, cap, "int %lld", w.lo);
        else
            snprintf(buf, cap, "int in [%lld, %lld]", w.lo, w.hi);
    }
    return buf;
}

redisReply *h_expect(const char *file, int line, redisContext *c, h_want w,
                     const char *fmt, ...)
{
    char desc[512], got[512], want[512];
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = vcmd(file, line, c, desc, sizeof desc, fmt, ap);
    va_end(ap);
    if (!reply_matches(r, w)) {
        h_reply_str(r, got, sizeof got);
        freeReplyObject(r);
        h_fail(file, line, "%s: want %s, got %s", desc,
               want_str(w, want, sizeof want), got);
    }
    if (w.kind == H_ARRAY)
        return r;
    freeReplyObject(r);
    return NULL;
}

void h_check(const char *file, int line, const redisReply *r, h_want w)
{
    char got[512], want[512];
    if (!reply_matches(r, w))
        h_fail(file, line, "want %s, got %s", want_str(w, want, sizeof want),
               h_reply_str(r, got, sizeof got));
}

/* ------------------------------------------------------------------ INFO */

char *h_info(redisContext *c, const char *section)
{
    redisReply *r = section ? cmd(c, "INFO %s", section) : cmd(c, "INFO");
    char got[512];
    if (r->type != REDIS_REPLY_STRING) {
        h_reply_str(r, got, sizeof got);
        freeReplyObject(r);
        FAIL("INFO %s: want bulk, got %s", section ? section : "", got);
    }
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

int h_info_field(const char *info, const char *field, char *buf, size_t cap)
{
    size_t flen = strlen(field);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
        if (strncmp(p, field, flen) == 0 && p[flen] == ':') {
            const char *v = p + flen + 1;
            size_t n = strcspn(v, "\r\n");
            snprintf(buf, cap, "%.*s", (int)n, v);
            return 1;
        }
    }
    if (cap)
        buf[0] = '\0';
    return 0;
}

long long h_info_int(redisContext *c, const char *section, const char *field)
{
    char *info = h_info(c, section);
    char v[128];
    int found = h_info_field(info, field, v, sizeof v);
    free(info);
    if (!found)
        FAIL("INFO %s has no field '%s'", section ? section : "", field);
    return strtoll(v, NULL, 10);
}

static int info_cmp(long long got, int op, long long want)
{
    return op == H_GE ? got >= want : op == H_LE ? got <= want : got == want;
}

long long h_wait_info_at(const char *file, int line, redisContext *c,
                         const char *section, const char *field, int op,
                         long long want, int timeout_ms)
{
    long long deadline = h_now_ms() + (long long)h_scaled_ms(timeout_ms);
    long long got;
    for (;;) {
        char *info = h_info(c, section);
        char v[128];
        int found = h_info_field(info, field, v, sizeof v);
        free(info);
        if (!found)
            h_fail(file, line, "INFO %s has no field '%s'", section ? section : "", field);
        got = strtoll(v, NULL, 10);
        if (info_cmp(got, op, want))
            return got;
        if (h_now_ms() >= deadline)
            break;
        h_sleep_ms(10);
    }
    h_fail(file, line, "INFO %s: %s stayed %lld, want %s %lld (%d ms x%d)",
           section ? section : "", field, got,
           op == H_GE ? ">=" : op == H_LE ? "<=" : "==", want, timeout_ms,
           h_time_scale());
}

void h_wait_info_str_at(const char *file, int line, redisContext *c,
                        const char *section, const char *field,
                        const char *want, int timeout_ms)
{
    long long deadline = h_now_ms() + (long long)h_scaled_ms(timeout_ms);
    char v[512];
    for (;;) {
        char *info = h_info(c, section);
        int found = h_info_field(info, field, v, sizeof v);
        free(info);
        if (!found)
            h_fail(file, line, "INFO %s has no field '%s'", section ? section : "", field);
        if (strcmp(v, want) == 0)
            return;
        if (h_now_ms() >= deadline)
            break;
        h_sleep_ms(10);
    }
    h_fail(file, line, "INFO %s: %s stayed '%s', want '%s' (%d ms x%d)",
           section ? section : "", field, v, want, timeout_ms, h_time_scale());
}

/* ------------------------------------------------------------------ time */

/* Sanitizers slow the server and the tests several times over, more on a
 * busy machine: compile-time detection (gcc's __SANITIZE_*__, clang's
 * __has_feature), $VERSO_TIME_SCALE overrides. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define H_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define H_SANITIZED 1
#endif
#endif
#ifndef H_SANITIZED
#define H_SANITIZED 0
#endif

int h_time_scale(void)
{
    const char *env = getenv("VERSO_TIME_SCALE");
    if (env && *env) {
        int n = atoi(env);
        if (n >= 1)
            return n;
    }
    return H_SANITIZED ? 5 : 1;
}

int h_scaled_ms(int ms)
{
    return ms * h_time_scale();
}

/* --------------------------------------------------------------- fixture */

void h_setup(void)
{
    h_srv = srv_start(NULL);
    h_c = srv_connect(h_srv);
}

void h_teardown(void)
{
    if (h_c)
        redisFree(h_c);
    h_c = NULL;
    srv_stop(h_srv);
    h_srv = NULL;
}

int h_dir_entries(const char *path)
{
    DIR *d = opendir(path);
    ck_assert_msg(d != NULL, "opendir %s: %s", path, strerror(errno));
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    closedir(d);
    return n;
}

void h_break_dump(const srv *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/dump.rdb", s->dir);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/dump.rdb/x", s->dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
}

static char *g_preload_saved_asan;
static int g_preload_on;

void h_preload_on(const char *shim)
{
    g_preload_on = 1;
    const char *asan = getenv("ASAN_OPTIONS");
    free(g_preload_saved_asan);
    g_preload_saved_asan = asan ? strdup(asan) : NULL;
    char opts[2048];
    snprintf(opts, sizeof opts, "%s%sverify_asan_link_order=0", asan ? asan : "",
             asan && *asan ? ":" : "");
    setenv("ASAN_OPTIONS", opts, 1);
    setenv("LD_PRELOAD", shim, 1);
}

void h_preload_off(const char *const *vars)
{
    if (!g_preload_on)
        return;
    g_preload_on = 0;
    unsetenv("LD_PRELOAD");
    for (size_t i = 0; vars && vars[i]; i++)
        unsetenv(vars[i]);
    if (g_preload_saved_asan)
        setenv("ASAN_OPTIONS", g_preload_saved_asan, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(g_preload_saved_asan);
    g_preload_saved_asan = NULL;
}

void h_add_tcase(Suite *su, const char *name, const TTest *t, int timeout_s,
                 SFun setup, SFun teardown)
{
    TCase *tc = tcase_create(name);
    if (setup || teardown)
        tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, timeout_s);
    tcase_add_test(tc, t);
    suite_add_tcase(su, tc);
}

void h_add_dropall(Suite *su, const char *name, const TTest *t, int timeout_s)
{
    h_add_tcase(su, name, t, timeout_s, NULL, h_srv_drop_all);
}

int h_main(Suite *s)
{
    signal(SIGPIPE, SIG_IGN);
    ensure_base();
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    rm_tree(h_base);
    return failed == 0 ? 0 : 1;
}

/* ------------------------------- more processes and logs (replication) */

/* start_with on binary (NULL: srv_binary()), the server remembered for
 * h_srv_drop_all. */
static srv *start_tracked(const char *binary, const char *conf_text, const char *extra)
{
    ck_assert_int_lt(h_ntracked, H_MAX_TRACKED);
    h_child_binary = binary;
    srv *s = start_with(conf_text, extra);
    h_child_binary = NULL;
    h_tracked[h_ntracked++] = s;
    return s;
}

void h_srv_start_all(int n, const h_srv_spec specs[], srv *out[])
{
    ck_assert_int_le(h_ntracked + n, H_MAX_TRACKED);
    const char *bins[H_MAX_TRACKED];
    for (int i = 0; i < n; i++) { /* all spawned first, then all awaited */
        out[i] = prepare(NULL);
        bins[i] = specs[i].redis ? h_redis_binary() : srv_binary();
        launch(out[i], bins[i], 0, specs[i].args ? specs[i].args : "");
        h_tracked[h_ntracked++] = out[i]; /* dropped also if a later one fails */
    }
    for (int i = 0; i < n; i++) {
        int attempt = 1;
        while (!await_up(out[i], bins[i])) {
            if (attempt++ >= START_ATTEMPTS)
                FAIL("server could not get a free port in %d attempts", START_ATTEMPTS);
            launch(out[i], bins[i], 0, specs[i].args ? specs[i].args : "");
        }
    }
}

srv *h_srv_start_redis(const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) { /* NULL: no extra arguments, as srv_start takes it */
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    return start_tracked(h_redis_binary(), NULL, extra);
}

srv *h_srv_start_conf(int redis, const char *conf_text, const char *extra_fmt, ...)
{
    char extra[4096] = "";
    if (extra_fmt) {
        va_list ap;
        va_start(ap, extra_fmt);
        vsnprintf(extra, sizeof extra, extra_fmt, ap);
        va_end(ap);
    }
    return start_tracked(redis ? h_redis_binary() : NULL, conf_text, extra);
}

pid_t h_spawn(const char *const argv[], const char *out_path)
{
    ensure_base();
    return spawn((char *const *)argv, out_path, -1);
}

int h_spawn_kill(pid_t pid)
{
    int status = 0;
    kill(pid, SIGKILL);
    wait_pid(pid, &status, STOP_TIMEOUT_MS);
    return status;
}

int srv_log_wait_any(const srv *s, int timeout_ms, const char *const needles[])
{
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    for (;;) {
        char *all = read_file(s->log);
        for (int i = 0; needles[i]; i++) {
            if (strstr(all, needles[i])) {
                free(all);
                return i;
            }
        }
        free(all);
        if (h_now_ms() >= deadline)
            return -1;
        h_sleep_ms(20);
    }
}

int srv_log_count(const srv *s, const char *needle)
{
    char *all = read_file(s->log);
    int n = 0;
    size_t len = strlen(needle);
    for (const char *p = all; len && (p = strstr(p, needle)) != NULL; p += len)
        n++;
    free(all);
    return n;
}

long h_rss_kb(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    long kb = -1;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(f);
    return kb;
}

void h_send(redisContext *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = redisvAppendCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_int_eq(rc, REDIS_OK);
    int done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(c, &done), REDIS_OK);
}

const redisReply *h_map_field(const redisReply *m, const char *name)
{
    if (!m || m->type != REDIS_REPLY_ARRAY) return NULL;
    for (size_t i = 0; i + 1 < m->elements; i += 2)
        if (m->element[i]->type == REDIS_REPLY_STRING && !strcmp(m->element[i]->str, name))
            return m->element[i + 1];
    return NULL;
}

redisReply *h_next_reply(redisContext *c)
{
    void *r = NULL;
    ck_assert_msg(redisGetReply(c, &r) == REDIS_OK && r, "no reply: %s", c->errstr);
    return r;
}
