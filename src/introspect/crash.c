/* crash: the bug report Redis 7.0 writes to its log when it crashes (a
 * fatal signal), fails an assertion or panics (see debug.h). Its section
 * markers are Redis's, which tools and test suites grep for:
 *
 *   === REDIS BUG REPORT START: Cut & paste starting from here ===
 *   verso <version> crashed by signal: <n>, si_code: <c>
 *   ------ STACK TRACE ------            (backtrace())
 *   ------ INFO OUTPUT ------            (INFO everything)
 *   ------ CLIENT LIST OUTPUT ------
 *   ------ CURRENT CLIENT INFO ------    (the client, its argv)
 *   === REDIS BUG REPORT END. Make sure to include from START to END. ===
 *
 * after which the process dies of the same signal (a core dump when the
 * limits allow it). An assertion or a panic ends in abort(), or _exit(1)
 * with use-exit-on-panic.
 *
 * Async-signal-safety is pragmatic, as Redis's: the header, the signal
 * line and the stack trace are written first, straight to the log's
 * descriptor (no lock, no allocation: log_raw, log_msg's one write(2));
 * the INFO and client parts then allocate, as Redis's do, and may fail if
 * the heap is what broke. A crash while the report is being written (a
 * second fault, or another thread crashing meanwhile) does not start a
 * second report: the process dies of that signal at once. The handlers run
 * on an alternate stack, so a stack overflow still gets its report. */
#include <execinfo.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include "cmd.h"
#include "debug.h"
#include "hooks.h"
#include "info.h"
#include "log.h"
#include "vbuf.h"

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])

static atomic_int reporting; /* 1 once a report has started */

static void raw_str(const char *s) { log_raw(s, strlen(s)); }

/* 1 for the first caller, 0 when a report is already being written. */
static int report_start(void) {
    if (atomic_exchange(&reporting, 1)) return 0;
    raw_str("\n\n=== REDIS BUG REPORT START: Cut & paste starting from here ===\n");
    return 1;
}

/* Default action for sig, then sig again: the process dies of it. */
static _Noreturn void die_of(int sig) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    sigemptyset(&act.sa_mask);
    act.sa_handler = SIG_DFL;
    sigaction(sig, &act, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* not reached: the default action of every fatal signal ends it */
}

static void remove_handlers(void) {
    for (size_t i = 0; i < NFATAL; i++) signal(fatal_signals[i], SIG_DFL);
}

/* ---- the sections ---- */

static void *instruction_at(const void *uctx) {
    const ucontext_t *uc = uctx;
    if (!uc) return NULL;
#if defined(__x86_64__)
    return (void *)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (void *)uc->uc_mcontext.pc;
#else
    return NULL;
#endif
}

/* backtrace_symbols_fd writes each frame straight to the log, without
 * allocating. eip: where the fault was (NULL for an assertion). */
static void stack_trace(void *eip) {
    int fd = log_fd_get();
    raw_str("\n------ STACK TRACE ------\n");
    if (eip) {
        raw_str("EIP:\n");
        backtrace_symbols_fd(&eip, 1, fd);
    }
    raw_str("\nBacktrace:\n");
    void *frames[100];
    int n = backtrace(frames, 100);
    backtrace_symbols_fd(frames, n, fd);
}

/* INFO, every client, and the one whose command was running. */
static void server_state(void) {
    vbuf b = {0};
    info_render_all(&b);
    raw_str("\n------ INFO OUTPUT ------\n");
    log_raw(b.data ? b.data : "", b.len);
    b.len = 0;
    for (client *o = server.clients; o; o = o->next) client_info_line(&b, o);
    raw_str("\n------ CLIENT LIST OUTPUT ------\n");
    log_raw(b.data ? b.data : "", b.len);
    raw_str("\n------ CURRENT CLIENT INFO ------\n");
    const client *c = server.current_client;
    if (c) {
        b.len = 0;
        client_info_line(&b, c);
        for (int j = 0; j < c->argc; j++) {
            char head[32];
            snprintf(head, sizeof head, "argv[%d]: '", j);
            vbuf_append_str(&b, head);
            vbuf_append_repr(&b, c->argv[j].p, c->argv[j].len);
            vbuf_append(&b, "'\n", 2);
        }
        log_raw(b.data, b.len);
    }
    vbuf_free(&b);
}

static void report_end(void) {
    raw_str("\n=== REDIS BUG REPORT END. Make sure to include from START to END. ===\n\n"
            "       Please report the crash with this report and the steps that led to it.\n\n");
}

/* ---- the signal handler ---- */

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx) {
    if (!report_start()) die_of(sig); /* a crash while reporting one */
    log_warning("verso %s crashed by signal: %d, si_code: %d", VERSO_VERSION, sig,
                info->si_code);
    if (sig == SIGSEGV || sig == SIGBUS)
        log_warning("Accessing address: %p", info->si_addr);
    if (info->si_code <= SI_USER && info->si_pid != -1)
        log_warning("Killed by PID: %ld, UID: %d", (long)info->si_pid, (int)info->si_uid);
    void *eip = instruction_at(uctx);
    if (eip) log_warning("Crashed running the instruction at: %p", eip);
    stack_trace(eip);
    server_state();
    report_end();
    die_of(sig);
}

static int handlers_on;

static void install_handlers(void) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    sigemptyset(&act.sa_mask);
    /* SA_NODEFER: a fault inside the handler is delivered, and then finds
     * `reporting` set (die_of) */
    act.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    act.sa_sigaction = on_fatal_signal;
    for (size_t i = 0; i < NFATAL; i++) sigaction(fatal_signals[i], &act, NULL);
    handlers_on = 1;
}

void crash_config_changed(void) {
    if (server.cfg.compat.crash_log_enabled && !handlers_on) install_handlers();
    if (!server.cfg.compat.crash_log_enabled && handlers_on) {
        remove_handlers();
        handlers_on = 0;
    }
}

static int config_hook(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen) {
    (void)old;
    (void)now;
    (void)err;
    (void)errlen;
    if (!strcmp(name, "crash-log-enabled")) crash_config_changed();
    return 0;
}

static const hooks crash_hooks = {.name = "crash", .config_changed = config_hook};

void crash_install(void) {
    /* the main thread's alternate stack (a stack overflow's report runs
     * there); the pages are never freed */
    size_t size = 256 * 1024;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
        stack_t ss = {.ss_sp = p, .ss_size = size, .ss_flags = 0};
        if (sigaltstack(&ss, NULL) != 0) munmap(p, size);
    }
    /* the first backtrace() loads libgcc (it allocates): not in a handler */
    void *frame[1];
    (void)backtrace(frame, 1);
    hooks_register(&crash_hooks);
    crash_config_changed();
}

/* ---- assertions and panics ---- */

static _Noreturn void fail_end(void) {
    if (server.cfg.compat.crash_log_enabled) {
        stack_trace(NULL);
        server_state();
    }
    remove_handlers(); /* abort() must not start a second report */
    report_end();
    if (server.cfg.use_exit_on_panic) _exit(1);
    abort();
}

_Noreturn void crash_assert(const client *c, const char *expr, const char *file, int line) {
    if (!report_start()) die_of(SIGABRT);
    if (c) {
        log_warning("=== ASSERTION FAILED CLIENT CONTEXT ===");
        log_warning("client->flags = %llu", (unsigned long long)(unsigned)c->flags);
        log_warning("client->conn = fd=%d", c->fd);
        log_warning("client->argc = %d", c->argc);
        for (int j = 0; j < c->argc; j++)
            log_warning("client->argv[%d] = \"%.*s\" (refcount: 1)", j,
                        c->argv[j].len > 128 ? 128 : (int)c->argv[j].len, c->argv[j].p);
    }
    log_warning("=== ASSERTION FAILED ===");
    log_warning("==> %s:%d '%s' is not true", file, line, expr);
    fail_end();
}

_Noreturn void crash_panic(const char *file, int line, const char *fmt, ...) {
    if (!report_start()) die_of(SIGABRT);
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_warning("------------------------------------------------");
    log_warning("!!! Software Failure. Press left mouse button to continue");
    log_warning("Guru Meditation: %s #%s:%d", msg, file, line);
    fail_end();
}
