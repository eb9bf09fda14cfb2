/* rewrite: the AOF base as commands (aof-use-rdb-preamble no), as Redis
 * 7.0's rewriteAppendOnlyFileRio writes it: per key SET, or RPUSH / SADD /
 * ZADD / HMSET with at most AOF_REWRITE_ITEMS_PER_CMD elements each, a
 * stream as rewriteStreamObject (XADD per entry, XSETID, XGROUP CREATE,
 * XGROUP CREATECONSUMER, XCLAIM ... JUSTID FORCE per pending entry), then
 * PEXPIREAT when the key has an expire. The forkless serializer calls it
 * for every key it writes (rdb_aux.as_commands), on its own thread, with
 * the key's bytes and a reference to the value: it only reads them (the
 * t_*.h iterators). */
#ifndef VERSO_AOF_REWRITE_H
#define VERSO_AOF_REWRITE_H

#include <stdint.h>

#include "rdb.h"

/* Redis's AOF_REWRITE_ITEMS_PER_CMD. */
#define AOF_REWRITE_ITEMS_PER_CMD 64

/* rdb_cmds_fn: writes the commands that rebuild key through out. */
int aofrw_key(const char *key, size_t klen, const obj *val, int64_t expire, rdb_out_fn out,
              void *ctx);

#endif
