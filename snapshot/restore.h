/* restore: putting a snapshot's keys into the databases.
 *
 * Inserting is bound by one random bucket per key (a cache and TLB miss):
 * keys are inserted in batches of 64 whose buckets are prefetched first, so
 * the misses of a batch overlap; table segments live on huge pages; the
 * heap's new pages are faulted in one madvise per brk growth, not one trap
 * per page (restore.c, heap_populate). (A
 * decoder thread handing batches to the main thread was tried and measured
 * slower: 0.92-1.12 s vs 0.58-0.93 s for 1M keys, the objects then cross
 * cores.) Startup only, main thread; restore_into_tables is the exception
 * (a replica's loader thread, into tables of its own). */
#ifndef VERSO_RESTORE_H
#define VERSO_RESTORE_H

#include <stddef.h>

#include "vt.h"
#include "rdb.h"

/* Loads the snapshot at path into the databases: 0, 1 when there is no
 * file, -1 with err (file, offset, reason) on any damage. */
int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen);
/* While on, a key the databases hold already, or a function library there
 * already, is replaced by the file's (DEBUG RELOAD MERGE) instead of
 * failing the load. */
void restore_set_merge(int on);
/* The same callbacks for rdb_load (the AOF base). */
const rdb_load_cb *restore_callbacks(void);

/* Loads a snapshot from src into tables[0..ntables) (one fresh table per
 * database, the caller's): a replica's full sync, on its loader thread
 * while the main thread serves the old tables. Touches no database and no
 * server state, so any one thread may run it. Every key gets `access` as
 * its eviction clock (evict_new_clock(), taken on the main thread);
 * keys already expired are kept, as Redis's replicas keep them (their
 * master's DEL removes them). key_load_delay: the key-load-delay the main
 * thread read when the load started. 0, or -1 with err (the tables then
 * hold what was loaded: the caller frees them). The function libraries it
 * read are left in st->functions for the main thread (function_replace_all). */
int restore_into_tables(source *src, vt **tables, int ntables, uint32_t access,
                        int key_load_delay, rdb_load_stats *st, char *err, size_t errlen);

#endif
