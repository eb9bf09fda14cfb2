/* info: INFO sections (see info.h). */
#include "info.h"

#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <xxhash.h>

#include "blocking.h"
#include "client_mem.h"
#include "cmd.h"
#include "db_slots.h"
#include "db.h"
#include "evict.h"
#include "function.h"
#include "hooks.h"
#include "introspect.h"
#include "lazyfree.h"
#include "net.h"
#include "pause.h"
#include "shutdown.h"
#include "pubsub.h"
#include "tracking.h"
#include "script_lua.h"
#include "util.h"

#ifdef HAVE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

static size_t peak_memory; /* main thread only: used_memory_peak */
static size_t startup_memory; /* main thread only: MEMORY STATS startup.allocated */

/* Under AddressSanitizer malloc is ASan's, which mallinfo does not see. */
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

#ifdef HAVE_JEMALLOC
/* jemalloc's counters: "epoch" refreshes the merged statistics (a few
 * locks per arena, no heap walk). 0 when a name is unknown. */
static size_t je_stat(const char *name) {
    size_t v = 0, sz = sizeof v;
    return mallctl(name, &v, &sz, NULL, 0) == 0 ? v : 0;
}

static void je_refresh(void) {
    uint64_t epoch = 1;
    size_t sz = sizeof epoch;
    (void)mallctl("epoch", &epoch, &sz, &epoch, sz);
}
#else
/* glibc without a sanitizer: mallinfo2 walks the free lists of every arena
 * under their locks (~200 ms on a big fragmented heap), so it runs once,
 * on the nearly empty heap at startup; from then on the figure is that
 * base plus the counted objects (obj_mem_total: keys, values, collection
 * nodes) and the clients' memory (client_mem.h), and the rest of
 * glibc_tracked. Scripts are not counted. */
static size_t glibc_base;
static pthread_once_t glibc_base_once = PTHREAD_ONCE_INIT;

/* Also counted where it is allocated, and added to glibc_base with the
 * slabs' segments: the tables' heap blocks (vt_mem) and the buffers of
 * hooks_buffer_memory (the replication backlog, the AOF's). */
static size_t glibc_tracked(void) {
    vt_memstat vm;
    vt_mem_totals(&vm);
    return vm.heap + hooks_buffer_memory(HOOKS_MEM_BACKLOG) + hooks_buffer_memory(HOOKS_MEM_AOF);
}

static void glibc_base_init(void) {
#ifdef HAVE_MALLINFO2
    struct mallinfo2 mi = mallinfo2();
    size_t heap = mi.uordblks + mi.hblkhd;
#else
    struct mallinfo mi = mallinfo();
    size_t heap = (size_t)(unsigned)mi.uordblks + (size_t)(unsigned)mi.hblkhd;
#endif
    size_t counted = obj_mem_total() + glibc_tracked(); /* added back as they change */
    glibc_base = heap > counted ? heap - counted : 0;
}
#endif

void info_allocator(info_alloc *a) {
    /* the tables' slabs, mmap'd outside the allocator: the segments carved
     * are allocated; a slab's uncarved rest is mapped (active) only */
    vt_memstat vm;
    vt_mem_totals(&vm);
    size_t slabs = vm.slab, reserved = vm.mapped > vm.slab ? vm.mapped - vm.slab : 0;
#ifdef HAVE_JEMALLOC
    je_refresh();
    a->allocated = je_stat("stats.allocated") + slabs;
    a->active = je_stat("stats.active") + slabs + reserved;
    a->resident = je_stat("stats.resident") + slabs + reserved;
#else
    if (__sanitizer_get_current_allocated_bytes) {
        a->allocated = __sanitizer_get_current_allocated_bytes() + slabs;
    } else {
        pthread_once(&glibc_base_once, glibc_base_init);
        slabs += glibc_tracked(); /* with the slabs: what glibc_base leaves out */
        a->allocated = glibc_base + obj_mem_total() + slabs + client_mem_normal() +
                       client_mem_replicas();
    }
    /* glibc tells no more without a heap walk */
    a->active = a->allocated + reserved;
    a->resident = info_rss();
#endif
    if (a->active < a->allocated) a->active = a->allocated;
}

/* The allocator's bytes in use, plus the tables' slab segments (mmap'd
 * directly). */
size_t info_allocated(void) {
    info_alloc a;
    info_allocator(&a);
    return a.allocated;
}

const char *info_allocator_name(void) {
#ifdef HAVE_JEMALLOC
    static char name[64];
    if (!name[0]) {
        const char *v = NULL;
        size_t sz = sizeof v;
        if (mallctl("version", (void *)&v, &sz, NULL, 0) != 0 || !v) v = "5";
        /* "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c" -> "5.3.0" */
        snprintf(name, sizeof name, "jemalloc-%.*s", (int)strcspn(v, "-"), v);
    }
    return name;
#else
    return "libc";
#endif
}

size_t info_used_memory(void) {
    size_t used = info_allocated();
    if (used > peak_memory) peak_memory = used;
    return used;
}

size_t info_peak_memory(void) {
    info_used_memory();
    return peak_memory;
}

void info_mark_startup(void) { startup_memory = info_used_memory(); }
size_t info_startup_memory(void) { return startup_memory; }

size_t info_rss(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    unsigned long pages = 0, rss = 0;
    int n = fscanf(f, "%lu %lu", &pages, &rss);
    fclose(f);
    return n == 2 ? rss * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/* Whole lines, however long (a path in executable:, many fields). */
#define addf vbuf_appendf

void info_human(char *out, size_t len, double n) {
    const char *units = "BKMGTP";
    int u = 0;
    while (n >= 1024 && u < 5) { n /= 1024; u++; }
    if (u == 0) snprintf(out, len, "%.0fB", n);
    else snprintf(out, len, "%.2f%c", n, units[u]);
}

/* redis_build_id: 16 hex digits that name the build, as Redis's hash of
 * its version and build information: here of verso's version, the Redis
 * version it answers as, the compiler and the build's configuration. */
static const char *build_id(void) {
    static char id[17];
    if (!id[0]) {
        const char *what = "verso " VERSO_VERSION " redis " VERSO_REDIS_VERSION " cc " __VERSION__
#ifdef HAVE_JEMALLOC
                           " jemalloc"
#endif
#ifdef __SANITIZE_ADDRESS__
                           " asan"
#endif
            ;
        snprintf(id, sizeof id, "%016llx", (unsigned long long)XXH3_64bits(what, strlen(what)));
    }
    return id;
}

static void section_server(vbuf *b) {
    struct utsname un;
    uname(&un);
    int64_t up = (mono_us() - server.start_mono_us) / 1000000;
    addf(b, "# Server\r\nredis_version:%s\r\nverso_version:%s\r\nredis_mode:standalone\r\n"
            "os:%s %s %s\r\narch_bits:64\r\nmultiplexing_api:libuv\r\nprocess_id:%d\r\n"
            "run_id:%s\r\ntcp_port:%d\r\nserver_time_usec:%lld\r\nuptime_in_seconds:%lld\r\n"
            "uptime_in_days:%lld\r\nhz:%d\r\nexecutable:%s\r\nconfig_file:%s\r\n",
         VERSO_REDIS_VERSION, VERSO_VERSION, un.sysname, un.release, un.machine, (int)getpid(),
         server.runid, server.cfg.port, (long long)wall_us(), (long long)up,
         (long long)(up / 86400), server.cfg.hz, server.executable ? server.executable : "",
         server.config_file ? server.config_file : "");
    /* Redis 7.0's other fields: verso's build has no git sha, no supervision
     * nor I/O threads; the clocks it uses */
    addf(b, "redis_git_sha1:00000000\r\nredis_git_dirty:0\r\nredis_build_id:%s\r\n"
            "monotonic_clock:POSIX clock_gettime\r\n"
            "atomicvar_api:c11-builtin\r\ngcc_version:%d.%d.%d\r\nprocess_supervised:no\r\n"
            "configured_hz:%d\r\nlru_clock:%u\r\nio_threads_active:0\r\n",
         build_id(), __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__, server.cfg.hz,
         server.lruclock);
    shutdown_info(b);
}

static size_t (*cluster_links_count)(void), (*cluster_links_mem)(void);

void info_set_cluster_links(size_t (*count)(void), size_t (*mem)(void)) {
    cluster_links_count = count;
    cluster_links_mem = mem;
}

static size_t cluster_links(size_t (*fn)(void)) { return fn ? fn() : 0; }

static void section_clients(vbuf *b) {
    size_t max_in = 0, max_out = 0;
    for (client *c = server.clients; c; c = c->next) {
        if (c->in.len > max_in) max_in = c->in.len;
        if (net_pending_output(c) > max_out) max_out = net_pending_output(c);
    }
    addf(b, "# Clients\r\nconnected_clients:%zu\r\ncluster_connections:%zu\r\nmaxclients:%d\r\n"
            "client_recent_max_input_buffer:%zu\r\nclient_recent_max_output_buffer:%zu\r\n"
            "blocked_clients:%zu\r\ntracking_clients:%zu\r\nclients_in_timeout_table:%zu\r\n",
         server.nclients, cluster_links(cluster_links_count), server.cfg.maxclients, max_in, max_out,
         block_blocked_clients() + pause_postponed() + shutdown_blocked(), tracking_clients(),
         block_timeout_clients());
}

static void section_memory(vbuf *b) {
    size_t used = info_used_memory(), rss = info_rss();
    char hu[32], hp[32], hr[32];
    info_human(hu, sizeof hu, (double)used);
    info_human(hp, sizeof hp, (double)peak_memory);
    info_human(hr, sizeof hr, (double)rss);
    size_t tables = 0;
    for (int i = 0; i < server.cfg.databases; i++) tables += vt_mem(server.dbs[i].t);
    addf(b, "# Memory\r\nused_memory:%zu\r\nused_memory_human:%s\r\nused_memory_rss:%zu\r\n"
            "used_memory_rss_human:%s\r\nused_memory_peak:%zu\r\nused_memory_peak_human:%s\r\n"
            "used_memory_tables:%zu\r\n",
         used, hu, rss, hr, peak_memory, hp, tables);
    memory_info_fields(b, used);
    evict_info_memory(b, used);
    script_info_memory(b);
    function_info_memory(b);
    /* Redis 7.0's sums: both Lua states, both caches */
    size_t vm = script_vm_memory() + function_vm_memory();
    size_t scripts = script_cache_memory() + function_memory();
    char hvm[32], hsc[32];
    info_human(hvm, sizeof hvm, (double)vm);
    info_human(hsc, sizeof hsc, (double)scripts);
    addf(b, "used_memory_vm_total:%zu\r\nused_memory_vm_total_human:%s\r\n"
            "used_memory_scripts:%zu\r\nused_memory_scripts_human:%s\r\n",
         vm, hvm, scripts, hsc);
    addf(b, "mem_fragmentation_ratio:%.2f\r\nmem_allocator:%s\r\n"
            "lazyfree_pending_objects:%zu\r\nlazyfreed_objects:%zu\r\n",
         used ? (double)rss / (double)used : 0.0, info_allocator_name(), lazyfree_pending(),
         lazyfree_freed());
    addf(b, "mem_cluster_links:%zu\r\n", cluster_links(cluster_links_mem));
    hooks_info("memory", b);
}

/* While loading: Redis 7.0's loading_* fields (the ETA from the rate so
 * far, as Redis computes it). */
static void loading_fields(vbuf *b) {
    uint64_t total = server.loading_total_bytes, done = server.loading_loaded_bytes;
    double perc = total ? (double)done / (double)total * 100 : 0;
    uint64_t remaining = total > done ? total - done : (total ? 0 : 1);
    int64_t elapsed = wall_ms() / 1000 - server.loading_start_time;
    long long eta = elapsed <= 0 ? 1 : (long long)((uint64_t)elapsed * remaining / (done + 1));
    addf(b, "loading_start_time:%lld\r\nloading_total_bytes:%llu\r\n"
            "loading_loaded_bytes:%llu\r\nloading_loaded_perc:%.2f\r\n"
            "loading_eta_seconds:%lld\r\n",
         (long long)server.loading_start_time, (unsigned long long)total,
         (unsigned long long)done, perc, eta);
}

static void section_persistence(vbuf *b) {
    addf(b, "# Persistence\r\nloading:%d\r\nasync_loading:%d\r\n", server.loading,
         server.async_loading);
    hooks_info("persistence", b);
    addf(b, "module_fork_in_progress:0\r\nmodule_fork_last_cow_size:0\r\n"); /* no modules */
    if (server.loading) loading_fields(b);
}

static void section_stats(vbuf *b) {
    const stats *s = &server.stat;
    uint64_t ex_total, ex_cur;
    evict_exceeded_ms(&ex_total, &ex_cur);
    size_t chans, pats, shards;
    pubsub_stats(&chans, &pats, &shards);
    addf(b, "# Stats\r\ntotal_connections_received:%llu\r\ntotal_commands_processed:%llu\r\n"
            "total_net_input_bytes:%llu\r\ntotal_net_output_bytes:%llu\r\n"
            "total_net_repl_input_bytes:%llu\r\ntotal_net_repl_output_bytes:%llu\r\n"
            "rejected_connections:%llu\r\nsync_full:%llu\r\nsync_partial_ok:%llu\r\n"
            "sync_partial_err:%llu\r\nexpired_keys:%llu\r\nevicted_keys:%llu\r\n"
            "evicted_clients:%llu\r\ntotal_eviction_exceeded_time:%llu\r\ncurrent_eviction_exceeded_time:%llu\r\n"
            "keyspace_hits:%llu\r\nkeyspace_misses:%llu\r\npubsub_channels:%zu\r\n"
            "pubsub_patterns:%zu\r\npubsubshard_channels:%zu\r\n"
            "expire_cycle_cpu_milliseconds:%llu\r\n"
            "total_error_replies:%llu\r\nclient_query_buffer_limit_disconnections:%llu\r\n"
            "client_output_buffer_limit_disconnections:%llu\r\n",
         (unsigned long long)s->connections, (unsigned long long)s->commands,
         (unsigned long long)s->net_input_bytes, (unsigned long long)s->net_output_bytes,
         (unsigned long long)s->net_repl_input_bytes,
         (unsigned long long)atomic_load_explicit(&s->net_repl_output_bytes, memory_order_relaxed),
         (unsigned long long)s->rejected_conn, (unsigned long long)s->sync_full,
         (unsigned long long)s->sync_partial_ok, (unsigned long long)s->sync_partial_err,
         (unsigned long long)s->expired_keys,
         (unsigned long long)s->evicted_keys, (unsigned long long)s->evicted_clients,
         (unsigned long long)ex_total,
         (unsigned long long)ex_cur, (unsigned long long)s->keyspace_hits, (unsigned long long)s->keyspace_misses,
         chans, pats, shards, (unsigned long long)(s->expire_cycle_us / 1000), (unsigned long long)s->errors,
         (unsigned long long)s->qbuf_disconnects, (unsigned long long)s->obuf_disconnects);
    tracking_info_stats(b);
    introspect_info_stats(b);
    hooks_info("stats", b); /* MIGRATE's cached connections */
}

/* Every field comes from the replication subsystem (repl/). */
static void section_replication(vbuf *b) {
    addf(b, "# Replication\r\n");
    hooks_info("replication", b);
}

static void section_cpu(vbuf *b) {
    struct rusage self, kids;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
#define SECS(tv) ((double)(tv).tv_sec + (double)(tv).tv_usec / 1e6)
    struct rusage me;
    getrusage(RUSAGE_THREAD, &me); /* this is the main thread */
    addf(b, "# CPU\r\nused_cpu_sys:%.6f\r\nused_cpu_user:%.6f\r\nused_cpu_sys_children:%.6f\r\n"
            "used_cpu_user_children:%.6f\r\nused_cpu_sys_main_thread:%.6f\r\n"
            "used_cpu_user_main_thread:%.6f\r\n",
         SECS(self.ru_stime), SECS(self.ru_utime), SECS(kids.ru_stime), SECS(kids.ru_utime),
         SECS(me.ru_stime), SECS(me.ru_utime));
#undef SECS
}

static void section_commandstats(vbuf *b) {
    addf(b, "# Commandstats\r\n");
    introspect_info_commandstats(b);
}

static void section_errorstats(vbuf *b) {
    addf(b, "# Errorstats\r\n");
    introspect_info_errorstats(b);
}

static void section_latencystats(vbuf *b) {
    addf(b, "# Latencystats\r\n");
    introspect_info_latencystats(b);
}

/* No modules, no cluster: the sections exist, as Redis's do without them. */
static void section_modules(vbuf *b) { addf(b, "# Modules\r\n"); }
static void section_cluster(vbuf *b) {
    addf(b, "# Cluster\r\ncluster_enabled:%d\r\n", server.cfg.compat.cluster_enabled ? 1 : 0);
    hooks_info("cluster", b);
}

static void section_keyspace(vbuf *b) {
    addf(b, "# Keyspace\r\n");
    for (int i = 0; i < server.cfg.databases; i++) {
        db *d = db_get(i);
        size_t keys = db_visible_size(d), expires = vt_expires(d->t);
        if (!keys) continue;
        /* the hidden slots' expires are not told apart: at most keys */
        addf(b, "db%d:keys=%zu,expires=%zu,avg_ttl=%lld\r\n", i, keys,
             expires < keys ? expires : keys, d->avg_ttl);
    }
}

/* In Redis 7.0's order. by_default: INFO, INFO default; everything else
 * only by name or with all / everything (which are the same here: verso
 * has no module sections). */
typedef struct section {
    const char *name;
    void (*fn)(vbuf *b);
    int by_default;
} section;

static const section sections[] = {
    {"server", section_server, 1},         {"clients", section_clients, 1},
    {"memory", section_memory, 1},         {"persistence", section_persistence, 1},
    {"stats", section_stats, 1},           {"replication", section_replication, 1},
    {"cpu", section_cpu, 1},               {"modules", section_modules, 1},
    {"commandstats", section_commandstats, 0}, {"errorstats", section_errorstats, 1},
    {"latencystats", section_latencystats, 0}, {"cluster", section_cluster, 1},
    {"keyspace", section_keyspace, 1},
};

/* Each section once, in the table's order, whatever the arguments' order
 * and repetitions (as Redis's genInfoSectionDict). */
static int wanted(client *c, const section *s) {
    if (c->argc == 1) return s->by_default;
    for (int i = 1; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "all") || arg_is(&c->argv[i], "everything")) return 1;
        if (arg_is(&c->argv[i], "default") && s->by_default) return 1;
        if (arg_is(&c->argv[i], s->name)) return 1;
    }
    return 0;
}

void info_render_all(vbuf *b) {
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (b->len) vbuf_append(b, "\r\n", 2);
        sections[i].fn(b);
    }
}

void cmd_info(client *c) {
    vbuf b = {0};
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++) {
        if (!wanted(c, &sections[i])) continue;
        if (b.len) vbuf_append(&b, "\r\n", 2);
        sections[i].fn(&b);
    }
    reply_verbatim(c, b.data ? b.data : "", b.len, "txt");
    vbuf_free(&b);
}
