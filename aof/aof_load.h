/* aof_load: replaying a multi-part AOF at startup.
 *
 * Loads the BASE (an RDB snapshot, through rdb_load_preamble, when its
 * name ends in .rdb or it starts with "REDIS" or the LZ4 magic, then the
 * RESP commands after a plain RDB, as Redis 7.0 does; else a RESP file)
 * then every INCR file in manifest order,
 * handing each RESP command to the caller's exec callback. A truncated last
 * command of the last INCR file is cut off (the file is truncated to the
 * last whole command) with a warning when truncated_ok; any other damage
 * stops the load with an error naming the file and the byte offset. */
#ifndef VERSO_AOF_LOAD_H
#define VERSO_AOF_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "rdb.h"
#include "server.h"
#include "manifest.h"

/* Runs one command; returns 0, or -1 with err (unknown command, wrong
 * arity, an error reply) which stops the load. */
typedef int (*aof_exec_fn)(void *priv, int argc, const arg *argv, char *err, size_t errlen);

typedef struct aof_load_stats {
    uint64_t commands;
    uint64_t base_keys;
    uint64_t base_expired;
    uint64_t truncated_bytes;  /* cut off the last INCR file */
    uint64_t total_bytes;
} aof_load_stats;

/* dir is the appendonly directory. Keys of an RDB base whose expire time is
 * before now_ms are skipped (counted in base_expired); the server passes
 * INT64_MIN, keeping them all as Redis does for an AOF base: the INCRs
 * after it may still act on them (PERSIST, RENAME...), and expiry runs once
 * the whole AOF is loaded. 0 or -1 with err. */
int aof_load_files(const char *dir, const aof_manifest *m, int truncated_ok, int64_t now_ms,
                   const rdb_load_cb *base_cb, void *base_priv, aof_exec_fn exec,
                   void *exec_priv, aof_load_stats *st, char *err, size_t errlen);

#endif
