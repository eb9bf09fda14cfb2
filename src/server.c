/* server: the core's life cycle: configuration and start-up of the core,
 * the loop's cron timer, before-sleep hook and signals, and shutdown.
 *
 * The program (app/main.c) calls server_setup, registers the subsystems
 * (hooks.h gives the order), calls server_setup_done and server_listen,
 * loads the data (serving clients now and then through
 * server_loading_progress: -LOADING, INFO), then calls
 * server_serve, which runs the libuv loop on the main thread: client I/O
 * (net.c), a cron timer at `hz` (idle clients, active expiry, the
 * subsystems' cron) and a before-sleep hook that flushes replies.
 * SIGTERM/SIGINT shut down as SHUTDOWN does. Main thread only. */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "blocking.h"
#include "acl.h"
#include "client_mem.h"
#include "cmd.h"
#include "db.h"
#include "evict.h"
#include "debug.h"
#include "hooks.h"
#include "info.h"
#include "introspect.h"
#include "lazyfree.h"
#include "listen.h"
#include "log.h"
#include "net.h"
#include "oom_score.h"
#include "pause.h"
#include "shutdown.h"
#include "tls.h"
#include "pubsub.h"
#include "replica_keys.h"
#include "script_lua.h"
#include "tracking.h"
#include "util.h"

server_t server;

static void make_runid(void) {
    unsigned char r[20];
    random_bytes(r, sizeof r);
    for (int i = 0; i < 20; i++) snprintf(server.runid + 2 * i, 3, "%02x", r[i]);
}

/* mkdir -p of the data directory, then chdir into it as Redis does. */
static int enter_dir(const char *dir, char *err, size_t errlen) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "Can't create the data directory '%s': %s", dir, strerror(errno));
        return -1;
    }
    if (chdir(path) != 0) {
        snprintf(err, errlen, "Can't chdir to '%s': %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* CONFIG SET tls-port, as Redis 7.0's applyTLSPort: the contexts built
 * first if they were not, then the listeners moved. */
static int set_tls_port(const conf *now, char *err, size_t errlen) {
    char why[512];
    if (now->compat.tls_port && !tls_ready() && tls_configure(now, why, sizeof why) != 0) {
        log_warning("%s", why);
        snprintf(err, errlen, "Unable to update TLS configuration. Check server logs.");
        return -1;
    }
    return listen_set_tls_port(now->compat.tls_port, err, errlen);
}

static int conf_hook(const conf *old, const conf *now, const char *name, char *err,
                     size_t errlen) {
    if (!strcmp(name, "loglevel")) log_set_level(now->loglevel);
    if (!strcmp(name, "dir")) return enter_dir(now->dir, err, errlen);
    if (!strcmp(name, "maxclients") && now->maxclients > old->maxclients)
        return net_set_maxclients(now->maxclients, err, errlen);
    if (!strcmp(name, "maxmemory")) evict_limit_changed();
    if (!strcmp(name, "port") && server.loop) return listen_set_port(now->port, err, errlen);
    if (!strcmp(name, "tls-port") && server.loop) return set_tls_port(now, err, errlen);
    if (!strcmp(name, "bind") && server.loop) return listen_set_bind(err, errlen);
    if (tls_config_changed(old, now, name, err, errlen) != 0) return -1;
    return hooks_config_changed(old, now, name, err, errlen);
}

static void on_expire_fast(uv_timer_t *t) {
    if (!db_active_expire(1000)) uv_timer_stop(t);
}

static void on_cron(uv_timer_t *t) {
    (void)t;
    if (server.shutdown_asap) {
        char err[512];
        log_warning("Received SIGTERM scheduling shutdown...");
        server.shutdown_asap = 0;
        if (shutdown_request(NULL, 0, err, sizeof err) < 0) /* else it waits for replicas */
            log_warning("SIGTERM received but errors trying to shut down the server: %s", err);
    }
    net_clients_cron();
    /* Active expiry: 1 ms of every cron tick (1% of a tick at hz 10), and
     * while expired keys pile up 1 ms every 2 ms until they are gone (up
     * to half the main thread, about what Redis's slow and fast cycles
     * take together, in slices a command waits 1 ms for at most, where
     * Redis's slow cycle takes up to 25 ms) */
    if (db_active_expire(1000) && !uv_is_active((uv_handle_t *)&server.expire_fast))
        uv_timer_start(&server.expire_fast, on_expire_fast, 2, 2);
    db_tables_cron();
    evict_cron();
    hooks_cron();
}

static void on_before_sleep(uv_prepare_t *p) {
    (void)p;
    block_handle_ready(); /* keys created outside a dispatched command */
    hooks_before_sleep();
    client_mem_evict(); /* maxmemory-clients, after the iteration's input and replies */
    net_flush_all();
}

static void on_signal(uv_signal_t *s, int signum) {
    (void)s;
    (void)signum;
    server.shutdown_asap = 1;
}

int server_shutdown(int nosave, int save, int force, char *err, size_t errlen) {
    if (server.loading) { /* what is loaded is part of the data: never save it */
        nosave = 1;
        save = 0;
    }
    if (hooks_prepare_shutdown(nosave, save, err, errlen) != 0) {
        if (force) {
            log_warning("Error trying to save the DB. Exit anyway.");
        } else {
            log_warning("Error trying to save the DB, can't exit.");
            snprintf(err, errlen, "ERR Errors trying to SHUTDOWN. Check logs.");
            return -1;
        }
    }
    hooks_shutdown();
    net_flush_all();
    if (server.cfg.pidfile[0]) unlink(server.cfg.pidfile);
    log_warning("verso is now ready to exit, bye bye...");
    exit(0);
}

static int load_config(int argc, char **argv, char *err, size_t errlen) {
    conf_init(&server.cfg);
    int first = 1;
    if (argc > 1 && strncmp(argv[1], "--", 2) != 0) {
        char abs[PATH_MAX];
        server.config_file = xstrdup(realpath(argv[1], abs) ? abs : argv[1]);
        if (conf_load_file(&server.cfg, argv[1], err, errlen) != 0) return -1;
        first = 2;
    }
    return conf_load_args(&server.cfg, argc - first, argv + first, err, errlen);
}

static void write_pidfile(void) {
    if (!server.cfg.pidfile[0]) return;
    FILE *f = fopen(server.cfg.pidfile, "w");
    if (!f) {
        log_warning("Failed to write PID file: %s", strerror(errno));
        return;
    }
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

/* On kernels with the EEVDF scheduler (Linux 6.12+), a short time slice lets
 * the main thread preempt a background thread (the forkless serializer, the
 * AOF writer) as soon as a client needs it, instead of waiting out the other
 * thread's slice (3 ms by default): a PING must not wait for a save. Older
 * kernels refuse or ignore it; nothing depends on it. */
struct verso_sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
};

static void shorten_main_slice(void) {
    struct verso_sched_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.sched_policy = SCHED_OTHER;
    a.sched_runtime = 100000; /* ns: the shortest slice the kernel accepts */
    if (syscall(SYS_sched_setattr, 0, &a, 0) != 0)
        log_verbose("sched_setattr (short slice): %s", strerror(errno));
}
static void start_loop_handles(void) {
    uv_timer_init(server.loop, &server.cron);
    uint64_t period = (uint64_t)(1000 / (server.cfg.hz > 0 ? server.cfg.hz : 10));
    uv_timer_start(&server.cron, on_cron, period, period);
    uv_timer_init(server.loop, &server.expire_fast);
    uv_prepare_init(server.loop, &server.before_sleep);
    uv_prepare_start(&server.before_sleep, on_before_sleep);
}

static void start_signal_handles(void) {
    uv_signal_init(server.loop, &server.sig_term);
    uv_signal_start(&server.sig_term, on_signal, SIGTERM);
    uv_signal_init(server.loop, &server.sig_int);
    uv_signal_start(&server.sig_int, on_signal, SIGINT);
}

/* glibc malloc grows and shrinks its heap with brk, which takes the
 * process's mmap lock for writing: while anything reads the page tables
 * under that lock (a monitor reading /proc/PID/smaps of a 1.5 GB server
 * takes ~10-30 ms), an allocation that moves the heap's top waits for it,
 * and the main thread with it. Growing by at least 64 MB and giving back
 * only 256 MB of free top at once makes those calls rare (untouched pages
 * cost no RSS); jemalloc in Redis behaves alike. */
static void tune_malloc(void) {
    if (!mallopt(M_TOP_PAD, 64 << 20) || !mallopt(M_TRIM_THRESHOLD, 256 << 20))
        log_warning("mallopt failed: the heap grows in small steps");
    /* Setting those switches off glibc's adaptive mmap threshold, which
     * would otherwise rise to the size of the big blocks a program frees:
     * every value over 128 KB then got its own mmap, fresh zeroed pages
     * faulted in on each SET and an munmap on each overwrite (half the
     * time of a 180 KB SET). 32 MB is the most the adaptive threshold
     * reaches; bigger blocks still get their own mapping. */
    if (!mallopt(M_MMAP_THRESHOLD, 32 << 20))
        log_warning("mallopt failed: values over 128 KB are mapped one by one");
}

int server_setup(int argc, char **argv) {
    char err[CONF_ERRLEN + 512];
    char exe[PATH_MAX];
    server.executable = xstrdup(realpath(argv[0], exe) ? exe : argv[0]);
    if (load_config(argc, argv, err, sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (log_open(server.cfg.logfile, server.cfg.loglevel) != 0) {
        fprintf(stderr, "Can't open the log file %s: %s\n", server.cfg.logfile, strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    crash_install();
    tune_malloc();
    server.pid = getpid();
    server.start_mono_us = mono_us();
    server.start_wall_ms = wall_ms();
    make_runid();
    log_notice("oO0OoO0OoO0Oo verso %s is starting oO0OoO0OoO0Oo", VERSO_VERSION);
    log_notice("verso version=%s, Redis compatibility=%s, bits=64, pid=%d", VERSO_VERSION,
               VERSO_REDIS_VERSION, (int)server.pid);
    if (enter_dir(server.cfg.dir, err, sizeof err) != 0) {
        log_warning("%s", err);
        return 1;
    }
    if (net_adjust_fd_limit(err, sizeof err) != 0) {
        log_warning("%s", err);
        return 1;
    }
    if (tls_wanted(&server.cfg) && tls_configure(&server.cfg, err, sizeof err) != 0) {
        log_warning("%s", err);
        log_warning("Failed to configure TLS. Check logs for more info.");
        return 1;
    }
    conf_set_hook(conf_hook);
    conf_log_noeffect(&server.cfg);
    server.loop = uv_default_loop();
    vt_index_slots(server.cfg.compat.cluster_enabled); /* before any table */
    db_init_all(server.cfg.databases);
    evict_init();
    pubsub_init();
    tracking_init();
    pause_init();
    shutdown_init();
    lazyfree_init();
    rkeys_init();
    oom_score_init();
    if (lazyfree_start(err, sizeof err) != 0) {
        log_warning("%s", err);
        return 1;
    }
    info_mark_startup();
    return 0;
}

void server_setup_done(void) {
    cmdstats_init();
    scriptl_init();  /* BUSY answers after replication's gates */
    monitor_init();  /* and a monitor's refusal after BUSY */
    acl_register_commands();
    cmd_init();      /* every command registered: the lookup */
    acl_init();      /* the default user: its command bits need the lookup */
}

int server_listen(void) {
    char err[512];
    if (listen_open(err, sizeof err) != 0) {
        log_warning("%s", err);
        return 1;
    }
    write_pidfile();
    start_signal_handles();
    return 0;
}

int server_serve(void) {
    char err[128];
    shorten_main_slice();
    (void)oom_score_apply(err, sizeof err); /* logged; as Redis, it starts anyway */
    start_loop_handles();
    log_notice("Server initialized");
    /* as Redis 7.0: one line per kind of listener */
    if (server.nlisteners) log_notice("Ready to accept connections tcp");
    if (server.ntls_listeners) log_notice("Ready to accept connections tls");
    uv_run(server.loop, UV_RUN_DEFAULT);
    return 0;
}

void server_set_upstream(int on) {
    if (server.upstream == on) return;
    server.upstream = on;
    hooks_role_changed();
}

/* ---- loading ---- */

/* One turn of the loop that does not wait: new connections, their input
 * (cmd_dispatch answers -LOADING to what may not run), then their replies.
 * Timers (cron) are not running yet, so no save, expiry or replication
 * starts. */
static void process_events_while_loading(void) {
    if (server.shutdown_asap) {
        log_warning("Received SIGTERM or SIGINT during loading, exiting now without saving");
        log_warning("User requested shutdown...");
        char err[256];
        server_shutdown(1, 0, 1, err, sizeof err); /* exits */
    }
    uv_run(server.loop, UV_RUN_NOWAIT);
    net_flush_all();
}

void server_loading_start(void) {
    server.loading = 1;
    server.loading_start_time = wall_ms() / 1000;
    server.loading_total_bytes = 0; /* the loader's progress tells it */
    server.loading_loaded_bytes = 0;
    server.loading_events_at = (uint64_t)server.cfg.loading_process_events_interval_bytes;
    process_events_while_loading(); /* who connected meanwhile hears -LOADING now */
}

void server_loading_progress(uint64_t loaded_bytes, uint64_t total_bytes) {
    if (!server.loading) return; /* a load outside startup (a fuzzer's) only reads */
    server.loading_loaded_bytes = loaded_bytes;
    if (total_bytes) server.loading_total_bytes = total_bytes;
    if (loaded_bytes < server.loading_events_at) return;
    server.loading_events_at =
        loaded_bytes + (uint64_t)server.cfg.loading_process_events_interval_bytes;
    process_events_while_loading();
}

void server_loading_events(void) {
    if (server.loading) process_events_while_loading();
}

void server_loading_end(void) {
    server.loading = 0;
    server.loading_total_bytes = server.loading_loaded_bytes = 0;
}
