/* rdb_coll: hashes, lists, sets and sorted sets in RDB values, both ways
 * (the types' bodies; rdb_write.c and rdb_read.c keep the stream around
 * them, listpack.c the packed blobs).
 *
 * Writing, as Redis 7.0 writes (so that redis-check-rdb and redis-server 7.0
 * take the file): hash HASH_LISTPACK (16) when its encoding is listpack,
 * else HASH (4); list QUICKLIST_2 (18) with listpack nodes filled as
 * list-max-listpack-size fills Redis's (PLAIN nodes for elements of
 * packed_threshold bytes and more); set SET_INTSET (11) when intset, else
 * SET (2); zset ZSET_LISTPACK (17) when listpack, else ZSET_2 (5). Plain
 * forms are written element by element and quicklists one node at a time,
 * walking the value's trees with the types' iterators (read-only: the
 * serializer's thread may do it while the main thread writes other
 * versions of the value). The small forms' blobs are bounded by the
 * *-max-listpack-* limits.
 *
 * Reading: every type Redis 7.0 writes or still loads: LIST (1), SET (2),
 * ZSET (3), HASH (4), ZSET_2 (5), HASH_ZIPMAP (9), LIST_ZIPLIST (10),
 * SET_INTSET (11), ZSET_ZIPLIST (12), HASH_ZIPLIST (13), LIST_QUICKLIST
 * (14), HASH_LISTPACK (16), ZSET_LISTPACK (17), LIST_QUICKLIST_2 (18).
 * Everything is validated (lengths, blobs, scores, duplicates); each value
 * is built bottom-up in one pass by the types' *_from_* builders.
 *
 * Streams (STREAM_LISTPACKS_2 (19) written, 15 and 19 read) go through the
 * same entry points to rdb_stream.c. */
#ifndef VERSO_RDB_COLL_H
#define VERSO_RDB_COLL_H

#include <stdint.h>

#include "obj.h"
#include "rdb_priv.h"

/* RDB value types (Redis's rdb.h). */
enum {
    RDB_TYPE_LIST = 1, RDB_TYPE_SET = 2, RDB_TYPE_ZSET = 3, RDB_TYPE_HASH = 4,
    RDB_TYPE_ZSET_2 = 5, RDB_TYPE_MODULE_PRE_GA = 6, RDB_TYPE_MODULE_2 = 7,
    RDB_TYPE_HASH_ZIPMAP = 9, RDB_TYPE_LIST_ZIPLIST = 10, RDB_TYPE_SET_INTSET = 11,
    RDB_TYPE_ZSET_ZIPLIST = 12, RDB_TYPE_HASH_ZIPLIST = 13, RDB_TYPE_LIST_QUICKLIST = 14,
    RDB_TYPE_STREAM_LISTPACKS = 15, RDB_TYPE_HASH_LISTPACK = 16,
    RDB_TYPE_ZSET_LISTPACK = 17, RDB_TYPE_LIST_QUICKLIST_2 = 18,
    RDB_TYPE_STREAM_LISTPACKS_2 = 19,
};
/* Quicklist v2 node containers. */
enum { QL_NODE_PLAIN = 1, QL_NODE_PACKED = 2 };

/* The RDB type byte rdb_coll_write writes for v (a collection). */
unsigned rdb_coll_type(const obj *v);
/* v's value (after the type byte). 0, or -1 with the error in the writer. */
int rdb_coll_write(rdb_writer *w, const obj *v);

/* 1 when rdb_coll_read reads this type byte. */
int rdb_coll_readable(unsigned type);
/* A value of a readable type. 0 with *val a new reference; 1 when the
 * value is empty (Redis skips such keys on load; RESTORE refuses them);
 * -1 on damage (rdbr_fail called). */
int rdb_coll_read(rd *r, unsigned type, obj **val);

/* The list fill rdb_set_writer_opts set last (rdb_write.c takes it at a
 * writer's opening). */
int rdb_get_list_fill(void);
void rdb_coll_set_list_fill(int fill);
/* Elements of this many bytes or more go to PLAIN nodes (Redis 7.0's
 * packed_threshold, 1 GiB; its DEBUG QUICKLIST-PACKED-THRESHOLD). Tests
 * lower it. */
void rdb_set_packed_threshold(uint64_t bytes);

#endif
