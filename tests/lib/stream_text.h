/* stream_text: a stream key as text, for comparing two servers' streams
 * (the files, replication and point-in-time tests): XINFO STREAM key FULL
 * COUNT 0 (metadata, every entry, every group with its PEL, every
 * consumer with its pending ids) rendered recursively, optionally without
 * the times a server sets when it runs a command (a consumer's seen-time:
 * a replica or an AOF load sets it to its own clock), or without any time
 * (delivery times too). And a generator of streams of every shape. */
#ifndef VERSO_STREAM_TEXT_H
#define VERSO_STREAM_TEXT_H

#include <hiredis/hiredis.h>

enum {
    STREAM_TEXT_ALL = 0,       /* every field */
    STREAM_TEXT_NO_SEEN = 1,   /* without consumers' seen-time */
    STREAM_TEXT_NO_TIMES = 2,  /* without seen-time and delivery times */
    STREAM_TEXT_REPLICA = 3,   /* without seen-time, and without a group's
                                  entries-read and lag: Redis 7.0's
                                  XREADGROUP propagates its effects as
                                  XCLAIM ... LASTID, which leaves a
                                  replica's entries-read unknown */
    STREAM_TEXT_REBUILT = 4,   /* without seen-time and the radix tree's
                                  keys and nodes: a stream rebuilt by
                                  commands (the AOF rewrite's) has its
                                  nodes cut where those XADDs cut them */
};

/* The stream at key as text (malloc'd); the test fails when the key is
 * not a stream. */
char *stream_text(redisContext *c, const char *key, int mode);

/* An XINFO STREAM ... FULL reply as stream_text renders it (malloc'd). */
char *stream_text_of(const redisReply *r, int mode);

/* Streams "<tag>:st:<i>" of every shape on c (XADD with and without trims,
 * XDEL, XTRIM, groups with XREADGROUP, XACK, XCLAIM, consumers without
 * pending entries, an empty stream with a group, a stream whose entries
 * were all deleted): n_entries entries in the biggest. Returns the number
 * of keys made. */
int stream_populate(redisContext *c, const char *tag, int n_entries);

/* Stream traffic on the streams stream_populate(c, tag, ...) made, of
 * every command a replica or the AOF must replay deterministically:
 * XADD (with trims), XDEL, XTRIM, XREADGROUP (new and history, NOACK),
 * XACK, XCLAIM (with and without JUSTID, IDLE, RETRYCOUNT, FORCE),
 * XAUTOCLAIM, XGROUP CREATE / SETID / DESTROY / CREATECONSUMER /
 * DELCONSUMER, XSETID, DEL and re-create. rounds: how many times over. */
void stream_traffic(redisContext *c, const char *tag, int rounds);

#endif
