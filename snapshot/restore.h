/* restore: putting a snapshot's keys into the databases.
 *
 * Inserting is bound by one random bucket per key (a cache and TLB miss):
 * keys are inserted in batches of 64 whose buckets are prefetched first, so
 * the misses of a batch overlap; table segments live on huge pages. (A
 * decoder thread handing batches to the main thread was tried and measured
 * slower: 0.92-1.12 s vs 0.58-0.93 s for 1M keys, the objects then cross
 * cores.) Startup only, main thread. */
#ifndef VERSO_RESTORE_H
#define VERSO_RESTORE_H

#include <stddef.h>

#include "rdb.h"

/* Loads the snapshot at path into the databases: 0, 1 when there is no
 * file, -1 with err (file, offset, reason) on any damage. */
int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen);
/* The same callbacks for rdb_load (the AOF base). */
const rdb_load_cb *restore_callbacks(void);

#endif
