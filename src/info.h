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
/* n bytes as Redis's bytesToHuman writes them ("10.00M"). */
void info_human(char *out, size_t len, double n);

#endif
