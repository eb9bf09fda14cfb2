/* info: the INFO command: sections server, clients, memory, persistence,
 * stats, replication, cpu, modules, errorstats, cluster, commandstats,
 * latencystats and keyspace, with Redis 7 field names (a subsystem appends
 * its fields through hooks.h's info hook). Every field reports a real value.
 * Main thread only. */
#ifndef VERSO_INFO_H
#define VERSO_INFO_H

#include <stddef.h>

/* Bytes allocated by the allocator plus the tables' slab segments, which
 * it does not see (used_memory; it also tracks the peak), and resident set
 * size. info_allocated is the same figure without the peak. Main thread
 * (glibc's figure reads subsystems' buffers, hooks_buffer_memory). */
#include "vbuf.h"

/* INFO everything's text (the crash report). */
void info_render_all(vbuf *b);
size_t info_used_memory(void);
size_t info_allocated(void);
size_t info_rss(void);
/* The allocator's own figures, each with the tables' slabs added (their
 * carved segments to allocated, their whole mappings to active and
 * resident): bytes allocated, bytes in the pages it has in use (active >=
 * allocated) and bytes resident. jemalloc: its counters (stats.*,
 * refreshed through "epoch"); ASan/TSan: the sanitizer's allocated bytes;
 * glibc: a base taken at startup plus what is counted where it is
 * allocated (objects, tables, clients, buffers: no heap walk). Under glibc
 * active is allocated plus the slabs' uncarved rest, and resident is the
 * process's RSS. Main thread. */
typedef struct info_alloc {
    size_t allocated, active, resident;
} info_alloc;
void info_allocator(info_alloc *a);
/* INFO mem_allocator: "jemalloc-5.3.0" or "libc". */
const char *info_allocator_name(void);
/* used_memory_peak (main thread). */
size_t info_peak_memory(void);
/* Records used_memory once the server is set up (MEMORY STATS
 * startup.allocated); main thread. */
void info_mark_startup(void);
size_t info_startup_memory(void);
/* The cluster wing gives INFO its bus links' figures: cluster_connections
 * (Clients) and mem_cluster_links (Memory); 0 until it does (outside
 * cluster mode). Main thread, before the loop runs. */
void info_set_cluster_links(size_t (*count)(void), size_t (*mem)(void));
/* n bytes as Redis's bytesToHuman writes them ("10.00M"). */
void info_human(char *out, size_t len, double n);

#endif
