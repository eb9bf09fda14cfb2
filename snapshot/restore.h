/* restore: putting a snapshot's keys into the databases.
 *
 * Restore is bound by two things of about the same cost: decoding the file
 * (read, checksum, parse, allocate the objects) and inserting into the
 * tables (one random bucket, a cache and TLB miss, per key). restore_file
 * does them at once: a decoder thread runs rdb_load_file and hands batches
 * of decoded keys to the main thread, which prefetches each batch's buckets
 * and inserts it. restore_callbacks inserts on the calling thread (the AOF
 * base, loaded in line with its INCR files). Startup only, main thread. */
#ifndef VERSO_RESTORE_H
#define VERSO_RESTORE_H

#include <stddef.h>

#include "rdb.h"

/* Loads the snapshot at path into the databases: 0, 1 when there is no
 * file, -1 with err (file, offset, reason) on any damage. */
int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen);
/* Callbacks for rdb_load_file that insert on the calling (main) thread. */
const rdb_load_cb *restore_callbacks(void);

#endif
