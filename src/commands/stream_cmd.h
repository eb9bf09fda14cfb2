/* stream_cmd: what the stream commands share (cmd_stream.c: entries,
 * XADD XRANGE XREAD XTRIM XDEL XSETID...; cmd_stream_cg.c: consumer
 * groups, XREADGROUP XACK XPENDING XCLAIM XAUTOCLAIM XGROUP XINFO): key
 * lookup and write framing, Redis 7.0's id parsing with its error
 * replies, and the entry replies. Main thread only. */
#ifndef VERSO_STREAM_CMD_H
#define VERSO_STREAM_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "t_stream.h"
#include "vt.h"

/* Redis 7.0's invalid-id error, shared by the stream commands. */
#define STREAM_ERR_INVALID_ID "ERR Invalid stream ID specified as stream command argument"

/* The stream at k for a read (WRONGTYPE replied and *wrong set when
 * another type); NULL when absent. */
vt_entry *stream_lookup(client *c, const arg *k, int *wrong);
/* The same for a command about to write: db_lookup_typed's write form. */
vt_entry *stream_lookup_write(client *c, const arg *k, int *wrong);

/* Begins a write to the stream at k: the writable stream, created empty
 * when absent and `create` (NULL when absent and !create). End with
 * stream_write_end (the stream is never deleted for being empty: Redis
 * keeps empty streams). */
obj *stream_write_begin(client *c, const arg *k, int create, vt_wr *w, vt_entry **ep);
void stream_write_end(vt_wr *w);
/* Begins a write to the existing stream at k (the caller has just found
 * it with stream_lookup*, so it is not expired) that changes only its
 * consumer groups or its last ID: as Redis 7.0's group commands (XGROUP
 * SETID, XACK, XREADGROUP, XCLAIM...) and XSETID it does not count as a
 * modification of the key
 * (no signalModifiedKey: WATCH and client-side caching are not told).
 * End with stream_write_end. */
obj *stream_write_groups(client *c, const arg *k, vt_wr *w, vt_entry **ep);

/* Parses an id as streamGenericParseIDOrReply: "-" (0-0) and "+" (max)
 * unless strict, "ms" (seq = missing_seq) or "ms-seq"; seq_given (may be
 * NULL) says whether the seq was there, and with seq_given "ms-*" is
 * accepted (seq 0, *seq_given 0: XADD's). On error replies
 * STREAM_ERR_INVALID_ID and returns 0. */
int stream_parse_id(client *c, const arg *a, uint64_t missing_seq, int strict, int *seq_given,
                    stream_id *out);
/* A range bound of XRANGE / XPENDING / XAUTOCLAIM: "(" before an id
 * makes it exclusive (streamParseIntervalIDOrReply: the id then moves one
 * step inward; "-" and "+" may not be exclusive). `end`: 1 for the upper
 * bound (missing seq UINT64_MAX, exclusive moves down). 0 with the reply
 * sent on a bad id (STREAM_ERR_INVALID_ID) or an exclusive step past the
 * edge ("ERR invalid start|end ID for the interval"). */
int stream_parse_bound(client *c, const arg *a, int end, stream_id *out);

/* The id of the last live entry (Redis's streamLastValidID): 1, or 0
 * (and 0-0) when the stream is empty. O(log n). */
int stream_last_valid_id(const obj *s, stream_id *out);

/* Replies an id as a bulk "ms-seq". */
void stream_reply_id(client *c, stream_id id);
/* Replies the entry the iterator stands on: [id, [f1, v1, ...]]. */
void stream_reply_entry(client *c, stream_iter *it, stream_id id, size_t nfields);
/* Replies up to count (0: all) entries of [start, end] as an array (a
 * deferred length, so no counting pass): XRANGE's reply. Returns the
 * number replied; *last (may be NULL) the last id replied. */
size_t stream_reply_range(client *c, const obj *s, stream_id start, stream_id end, size_t count,
                          int reverse, stream_id *last);

/* Redis 7.0's streamRangeHasTombstones: whether an entry deleted from
 * the stream (its max_deleted_id) may lie in [start, end] (end NULL: to
 * the top). */
int stream_range_has_tombstones(const obj *s, stream_id start, const stream_id *end);
/* Redis 7.0's streamEstimateDistanceFromFirstEverEntry: the entries-read
 * counter of a group whose last delivered id is id, or
 * STREAM_ENTRIES_READ_INVALID when it cannot be known. */
int64_t stream_estimate_entries_read(const obj *s, stream_id id);
/* Redis 7.0's consumer group lag (XINFO GROUPS, XINFO STREAM FULL): 1 and
 * *lag, or 0 when unknown (replied as a nil). */
int stream_group_lag(const obj *s, const stream_group *g, int64_t *lag);
/* addReplySubcommandSyntaxError: "ERR unknown subcommand or wrong number
 * of arguments for '<argv[1]>'. Try <CMD> HELP." */
void stream_reply_sub_syntax(client *c, const char *cmd);

#endif
