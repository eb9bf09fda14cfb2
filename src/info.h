/* info: the INFO command: sections server, clients, memory, persistence,
 * stats, replication, cpu, commandstats and keyspace, with Redis 7 field
 * names. Every field reports a real value. Main thread only. */
#ifndef VERSO_INFO_H
#define VERSO_INFO_H

#include <stddef.h>

/* Bytes allocated by the allocator plus the tables' slabs, which it does
 * not see (used_memory; main thread: it also tracks the peak) and resident
 * set size. info_allocated is the same figure without the peak, for any
 * thread. */
size_t info_used_memory(void);
size_t info_allocated(void);
size_t info_rss(void);
/* used_memory_peak (main thread). */
size_t info_peak_memory(void);
/* Records used_memory once the server is set up (MEMORY STATS
 * startup.allocated); main thread. */
void info_mark_startup(void);
size_t info_startup_memory(void);
/* n bytes as Redis's bytesToHuman writes them ("10.00M"). */
void info_human(char *out, size_t len, double n);

#endif
