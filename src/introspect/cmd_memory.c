/* cmd_memory: MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP, with
 * Redis 7.0's reply shapes and errors (the figures are verso's own).
 *
 * USAGE counts a key as its value's allocation, which carries the key (a
 * collection: the header and every node its trees reach, obj_coll_mem), and
 * its table entry. Redis
 * samples a collection's elements (SAMPLES, default 5) and extrapolates;
 * verso walks the nodes instead, which is exact and O(nodes) (a node holds
 * many elements), so SAMPLES is checked as Redis checks it and then not
 * needed. STATS reports the fields of Redis's getMemoryOverheadData from
 * INFO's figures and the allocator's counters (info_allocator); DOCTOR
 * applies Redis's thresholds to them. MALLOC-STATS and PURGE go to the
 * allocator linked in: jemalloc's malloc_stats_print and arena purge, or
 * glibc's malloc_info and malloc_trim. Main thread only. */
#include <limits.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client_mem.h"
#include "cmd.h"
#include "db.h"
#include "hooks.h"
#include "info.h"
#include "introspect.h"
#include "net.h"
#include "util.h"

#ifdef HAVE_JEMALLOC
#include <jemalloc/jemalloc.h>
#endif

static const char *const memory_help[] = {
    "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return memory problems reports.",
    "MALLOC-STATS",
    "    Return internal statistics report from the memory allocator.",
    "PURGE",
    "    Attempt to purge dirty pages for reclamation by the allocator.",
    "STATS",
    "    Return information about the memory usage of the server.",
    "USAGE <key> [SAMPLES <count>]",
    "    Return memory in bytes used by <key> and its value. Nested values are",
    "    sampled up to <count> times (default: 5, 0 means sample all).",
    "HELP",
    "    Prints this help.",
    NULL};

/* ---- USAGE ---- */

static void memory_usage(client *c) {
    for (int j = 3; j < c->argc; j++) {
        long long samples;
        if (arg_is(&c->argv[j], "samples") && j + 1 < c->argc) {
            if (!arg_ll(c, &c->argv[j + 1], &samples)) return;
            if (samples < 0) {
                reply_syntax_error(c);
                return;
            }
            j++;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    /* As Redis (dictFind): no lazy expiry, no access clock, no statistics. */
    vt_entry *e = vt_find(db_get(c->db)->t, c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_nil(c);
        return;
    }
    size_t val = obj_is_coll(e->val) ? obj_coll_mem(e->val) : obj_mem(e->val);
    /* the value's allocation holds the key too (obj.h, keyed values) */
    reply_int(c, (long long)(val + sizeof(vt_entry)));
}

/* ---- STATS, DOCTOR ---- */

/* Redis's struct redisMemOverhead, the part verso can fill. */
typedef struct mem_overhead {
    size_t peak, total, startup, clients, replicas, overhead, keys, per_key, dataset;
    size_t alloc, active, resident, rss;
    double dataset_pct, peak_pct, alloc_frag, alloc_rss, rss_extra, frag;
    long long alloc_frag_bytes, alloc_rss_bytes, rss_extra_bytes, frag_bytes;
    size_t nclients;
    size_t backlog, aof; /* replication.backlog, aof.buffer (hooks.h) */
} mem_overhead;

static double ratio(size_t a, size_t b) { return b ? (double)a / (double)b : 0.0; }

/* A database's overhead.hashtable.main: its table's bytes beyond an empty
 * table's, which startup.allocated holds (Redis's dict allocates its
 * buckets with the first key; verso's table its first segment at once). */
static size_t table_overhead(const vt *t) {
    size_t empty = vt_mem_empty();
    return vt_mem(t) > empty ? vt_mem(t) - empty : 0;
}

/* total: used_memory as the caller reports it (INFO's own reading, so that
 * its dataset and overhead add up to it). */
static void overhead_get(mem_overhead *m, size_t total) {
    memset(m, 0, sizeof *m);
    m->total = total;
    m->peak = info_peak_memory();
    m->startup = info_startup_memory();
    m->rss = info_rss();
    m->clients = client_mem_normal(); /* client_mem.h */
    m->replicas = client_mem_replicas();
    m->nclients = server.nclients;
    m->backlog = hooks_buffer_memory(HOOKS_MEM_BACKLOG);
    m->aof = hooks_buffer_memory(HOOKS_MEM_AOF);
    /* Redis 7.0's overhead.total; its dataset is the rest of used_memory */
    m->overhead = m->startup + m->clients + m->replicas + m->backlog + m->aof;
    for (int i = 0; i < server.cfg.databases; i++) {
        vt *t = db_get(i)->t;
        m->keys += vt_size(t);
        if (vt_size(t)) m->overhead += table_overhead(t);
    }
    size_t net = m->total > m->startup ? m->total - m->startup : 0;
    m->per_key = m->keys ? net / m->keys : 0;
    m->dataset = m->total > m->overhead ? m->total - m->overhead : 0;
    m->dataset_pct = net ? (double)m->dataset * 100.0 / (double)net : 0.0;
    m->peak_pct = ratio(m->total, m->peak) * 100.0;
    info_alloc a;
    info_allocator(&a);
    m->alloc = a.allocated;
    m->active = a.active;
    m->resident = a.resident;
    m->alloc_frag = ratio(m->active, m->alloc);
    m->alloc_frag_bytes = (long long)m->active - (long long)m->alloc;
    m->alloc_rss = ratio(m->resident, m->active);
    m->alloc_rss_bytes = (long long)m->resident - (long long)m->active;
    m->rss_extra = ratio(m->rss, m->resident);
    m->rss_extra_bytes = (long long)m->rss - (long long)m->resident;
    m->frag = ratio(m->rss, m->total);
    m->frag_bytes = (long long)m->rss - (long long)m->total;
}

void memory_info_fields(vbuf *b, size_t used_memory) {
    mem_overhead m;
    overhead_get(&m, used_memory);
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    size_t sysmem = pages > 0 && psize > 0 ? (size_t)pages * (size_t)psize : 0;
    char hs[32];
    info_human(hs, sizeof hs, (double)sysmem);
    vbuf_appendf(b, "used_memory_peak_perc:%.2f%%\r\nused_memory_overhead:%zu\r\n"
                    "used_memory_startup:%zu\r\nused_memory_dataset:%zu\r\n"
                    "used_memory_dataset_perc:%.2f%%\r\nallocator_allocated:%zu\r\n"
                    "allocator_active:%zu\r\nallocator_resident:%zu\r\n"
                    "total_system_memory:%zu\r\ntotal_system_memory_human:%s\r\n"
                    "allocator_frag_ratio:%.2f\r\nallocator_frag_bytes:%lld\r\n"
                    "allocator_rss_ratio:%.2f\r\nallocator_rss_bytes:%lld\r\n"
                    "rss_overhead_ratio:%.2f\r\nrss_overhead_bytes:%lld\r\n"
                    "mem_fragmentation_bytes:%lld\r\nmem_clients_normal:%zu\r\n"
                    "active_defrag_running:0\r\n",
                 m.peak_pct, m.overhead, m.startup, m.dataset, m.dataset_pct, m.alloc, m.active,
                 m.resident, sysmem, hs, m.alloc_frag, m.alloc_frag_bytes, m.alloc_rss,
                 m.alloc_rss_bytes, m.rss_extra, m.rss_extra_bytes, m.frag_bytes, m.clients);
}

static void pair_int(client *c, const char *name, long long v) {
    reply_bulk_str(c, name);
    reply_int(c, v);
}

static void pair_double(client *c, const char *name, double v) {
    reply_bulk_str(c, name);
    reply_double(c, v);
}

static void memory_stats(client *c) {
    mem_overhead m;
    overhead_get(&m, info_used_memory());
    int ndbs = 0;
    for (int i = 0; i < server.cfg.databases; i++) ndbs += vt_size(db_get(i)->t) > 0;
    reply_map(c, 27 + ndbs);
    pair_int(c, "peak.allocated", (long long)m.peak);
    pair_int(c, "total.allocated", (long long)m.total);
    pair_int(c, "startup.allocated", (long long)m.startup);
    pair_int(c, "replication.backlog", (long long)m.backlog);
    pair_int(c, "clients.slaves", (long long)m.replicas);
    pair_int(c, "clients.normal", (long long)m.clients);
    pair_int(c, "cluster.links", 0);
    pair_int(c, "aof.buffer", (long long)m.aof);
    pair_int(c, "lua.caches", 0);
    pair_int(c, "functions.caches", 0);
    for (int i = 0; i < server.cfg.databases; i++) {
        vt *t = db_get(i)->t;
        if (!vt_size(t)) continue;
        char name[32];
        snprintf(name, sizeof name, "db.%d", i);
        reply_bulk_str(c, name);
        reply_map(c, 3);
        pair_int(c, "overhead.hashtable.main", (long long)table_overhead(t));
        pair_int(c, "overhead.hashtable.expires", 0); /* expires live in the entries */
        pair_int(c, "overhead.hashtable.slot-to-keys", 0);
    }
    pair_int(c, "overhead.total", (long long)m.overhead);
    pair_int(c, "keys.count", (long long)m.keys);
    pair_int(c, "keys.bytes-per-key", (long long)m.per_key);
    pair_int(c, "dataset.bytes", (long long)m.dataset);
    pair_double(c, "dataset.percentage", m.dataset_pct);
    pair_double(c, "peak.percentage", m.peak_pct);
    pair_int(c, "allocator.allocated", (long long)m.alloc);
    pair_int(c, "allocator.active", (long long)m.active);
    pair_int(c, "allocator.resident", (long long)m.resident);
    pair_double(c, "allocator-fragmentation.ratio", m.alloc_frag);
    pair_int(c, "allocator-fragmentation.bytes", m.alloc_frag_bytes);
    pair_double(c, "allocator-rss.ratio", m.alloc_rss);
    pair_int(c, "allocator-rss.bytes", m.alloc_rss_bytes);
    pair_double(c, "rss-overhead.ratio", m.rss_extra);
    pair_int(c, "rss-overhead.bytes", m.rss_extra_bytes);
    pair_double(c, "fragmentation", m.frag);
    pair_int(c, "fragmentation.bytes", m.frag_bytes);
}

#define MB10 (10LL << 20)

/* Redis's getMemoryDoctorReport: its thresholds and texts (the scripts and
 * replica checks have nothing to look at here). */
static void memory_doctor(client *c) {
    mem_overhead m;
    overhead_get(&m, info_used_memory());
    int big_peak = 0, high_frag = 0, high_alloc_frag = 0, high_alloc_rss = 0,
        high_proc_rss = 0, big_client_buf = 0;
    int empty = m.total < (5u << 20);
    if (!empty) {
        big_peak = ratio(m.peak, m.total) > 1.5;
        high_frag = m.frag > 1.4 && m.frag_bytes > MB10;
        high_alloc_frag = m.alloc_frag > 1.1 && m.alloc_frag_bytes > MB10;
        high_alloc_rss = m.alloc_rss > 1.1 && m.alloc_rss_bytes > MB10;
        high_proc_rss = m.rss_extra > 1.1 && m.rss_extra_bytes > MB10;
        big_client_buf = m.nclients && m.clients / m.nclients > 1024 * 200;
    }
    vbuf b = {0};
    if (empty) {
        vbuf_append_str(&b,
            "Hi Sam, this instance is empty or is using very little memory, my issues detector "
            "can't be used in these conditions. Please, leave for your mission on Earth and fill "
            "it with some data. The new Sam and I will be back to our programming as soon as I "
            "finished rebooting.\n");
    } else if (!(big_peak | high_frag | high_alloc_frag | high_alloc_rss | high_proc_rss |
                 big_client_buf)) {
        vbuf_append_str(&b, "Hi Sam, I can't find any memory issue in your instance. I can only "
                            "account for what occurs on this base.\n");
    } else {
        vbuf_append_str(&b, "Sam, I detected a few issues in this Redis instance memory implants:\n\n");
        if (big_peak)
            vbuf_append_str(&b, " * Peak memory: In the past this instance used more than 150% the memory that is currently using. The allocator is normally not able to release memory after a peak, so you can expect to see a big fragmentation ratio, however this is actually harmless and is only due to the memory peak, and if the Redis instance Resident Set Size (RSS) is currently bigger than expected, the memory will be used as soon as you fill the Redis instance with more data. If the memory peak was only occasional and you want to try to reclaim memory, please try the MEMORY PURGE command, otherwise the only other option is to shutdown and restart the instance.\n\n");
        if (high_frag)
            vbuf_appendf(&b, " * High total RSS: This instance has a memory fragmentation and RSS overhead greater than 1.4 (this means that the Resident Set Size of the Redis process is much larger than the sum of the logical allocations Redis performed). This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. If the problem is a large peak memory, then there is no issue. Otherwise, make sure you are using the Jemalloc allocator and not the default libc malloc. Note: The currently used allocator is \"%s\".\n\n", info_allocator_name());
        if (high_alloc_frag)
            vbuf_append_str(&b, " * High allocator fragmentation: This instance has an allocator external fragmentation greater than 1.1. This problem is usually due either to a large peak memory (check if there is a peak memory entry above in the report) or may result from a workload that causes the allocator to fragment memory a lot. You can try enabling 'activedefrag' config option.\n\n");
        if (high_alloc_rss)
            vbuf_append_str(&b, " * High allocator RSS overhead: This instance has an RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the allocator is much larger than the sum what the allocator actually holds). This problem is usually due to a large peak memory (check if there is a peak memory entry above in the report), you can try the MEMORY PURGE command to reclaim it.\n\n");
        if (high_proc_rss)
            vbuf_append_str(&b, " * High process RSS overhead: This instance has non-allocator RSS memory overhead is greater than 1.1 (this means that the Resident Set Size of the Redis process is much larger than the RSS the allocator holds). This problem may be due to Lua scripts or Modules.\n\n");
        if (big_client_buf)
            vbuf_append_str(&b, " * Big client buffers: The clients output buffers in this instance are greater than 200K per client (on average). This may result from different causes, like Pub/Sub clients subscribed to channels bot not receiving data fast enough, so that data piles on the Redis instance output buffer, or clients sending commands with large replies or very large sequences of commands in the same pipeline. Please use the CLIENT LIST command in order to investigate the issue if it causes problems in your instance, or to understand better why certain clients are using a big amount of memory.\n\n");
        vbuf_append_str(&b, "I'm here to keep you safe, Sam. I want to help you.\n");
    }
    reply_verbatim(c, b.data, b.len, "txt");
    vbuf_free(&b);
}

/* ---- MALLOC-STATS, PURGE ---- */

#ifdef HAVE_JEMALLOC
static void je_write(void *f, const char *s) { fputs(s, f); }
#endif

/* jemalloc's report as Redis prints it, or glibc's malloc_info (XML); a
 * bulk string either way. */
static void memory_malloc_stats(client *c) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int ok = f != NULL;
    if (f) {
#ifdef HAVE_JEMALLOC
        malloc_stats_print(je_write, f, NULL);
        ok = !ferror(f);
#else
        ok = malloc_info(0, f) == 0;
#endif
        if (fclose(f) != 0) ok = 0;
    }
    if (ok) reply_verbatim(c, buf, len, "txt");
    else reply_bulk_str(c, "Stats not supported for the current allocator");
    free(buf);
}

/* Gives free memory back to the kernel: jemalloc purges every arena's
 * dirty pages (as Redis's jemalloc_purge); glibc returns free memory at
 * the heap's top and in whole free pages. */
static void memory_purge(void) {
#ifdef HAVE_JEMALLOC
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", (unsigned)MALLCTL_ARENAS_ALL);
    (void)mallctl(name, NULL, NULL, NULL, 0);
#else
    malloc_trim(0);
#endif
}

void cmd_memory(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, memory_help);
    } else if (!strcmp(sub, "usage")) {
        memory_usage(c);
    } else if (!strcmp(sub, "stats")) {
        memory_stats(c);
    } else if (!strcmp(sub, "doctor")) {
        memory_doctor(c);
    } else if (!strcmp(sub, "malloc-stats")) {
        memory_malloc_stats(c);
    } else { /* purge */
        memory_purge();
        reply_ok(c);
    }
}
