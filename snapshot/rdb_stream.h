/* rdb_stream: streams in RDB values, both ways, as Redis 7.0 does
 * (rdb.c's OBJ_STREAM parts).
 *
 * Writing: RDB_TYPE_STREAM_LISTPACKS_2 (19): the nodes (per node its
 * 16-byte big-endian master id as a string, then its listpack, rebuilt
 * from the stream's node model as streamAppendItem lays it out, so the
 * bytes are Redis's), the length, last id, first id, max-deleted id,
 * entries-added, then the consumer groups (name, last id, entries-read,
 * the global PEL with delivery times and counts, the consumers with their
 * seen-time and pending ids). Read-only on the stream: the serializer's
 * thread may write a stream it holds a reference to while the main thread
 * writes a copy.
 *
 * Reading: types 15 (STREAM_LISTPACKS, 5.0 to 6.2) and 19. Every
 * listpack is validated as Redis's deep sanitization does (its encoding,
 * the master entry, each entry's layout and lp-count), and the stream
 * built with t_stream.h's loaders refuses what does not fit (ids out of
 * order, counts that disagree, duplicated groups / consumers / PEL ids,
 * a consumer's id not in its group's PEL, a PEL id without a consumer).
 * Type 21 (7.2's STREAM_LISTPACKS_3) is not read (Redis 7.0 cannot either). */
#ifndef VERSO_RDB_STREAM_H
#define VERSO_RDB_STREAM_H

#include "obj.h"
#include "rdb_priv.h"

/* s's value after the type byte (RDB_TYPE_STREAM_LISTPACKS_2). 0, or -1
 * with the error in the writer. */
int rdb_stream_write(rdb_writer *w, const obj *s);
/* A stream of type 15 or 19: 0 with *val a new reference (an empty stream
 * is a value: Redis keeps it), -1 on damage (rdbr_fail called). */
int rdb_stream_read(rd *r, unsigned type, obj **val);

#endif
