/* blocking: clients blocked on keys (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP,
 * BZPOPMIN BZPOPMAX BZMPOP, XREAD and XREADGROUP with BLOCK), as Redis 7.0
 * serves them.
 *
 * A blocking command that finds nothing to pop calls block_on_keys: the
 * client then runs nothing else (its further input waits) until it is
 * served, its timeout passes (the command's nil reply) or it disconnects.
 * Every path that creates a key (db.c) signals it with block_signal_key,
 * and so does every write that adds entries to an existing stream (XADD);
 * after the current command ends (after EXEC for a transaction, so a push
 * and a pop in one transaction wake nobody), the clients blocked on each
 * signalled key are served in the order they blocked: each one's command
 * runs again through cmd_call as if it had just arrived; when it finds
 * data it replies and propagates its non-blocking form (LPOP, LMOVE,
 * ZPOPMIN...), otherwise it stays blocked in its place. Inside MULTI/EXEC
 * (block_allowed 0) a blocking command answers at once as on timeout.
 * Main thread only. */
#ifndef VERSO_BLOCKING_H
#define VERSO_BLOCKING_H

#include <stdint.h>

#include "server.h"

/* The nil a blocking command answers with when it may not block (inside
 * MULTI: BLMOVE and BRPOPLPUSH a nil bulk, the others a nil array). A
 * blocked client that times out gets a nil array whatever its command, as
 * Redis 7.0's replyToBlockedClientTimedOut answers (BLMOVE too). */
enum { BLOCK_NIL_ARRAY = 0, BLOCK_NIL_BULK = 1 };

/* Parses a blocking command's timeout (seconds, fractional allowed) into an
 * absolute unix-ms deadline, 0 for none. On a bad value replies Redis's
 * error ("ERR timeout is not a float or out of range", "ERR timeout is
 * negative") and returns 0; 1 otherwise. */
int block_parse_timeout(client *c, const arg *a, int64_t *deadline_ms);
/* The same for a timeout in milliseconds (XREAD / XREADGROUP BLOCK): an
 * integer ("ERR timeout is not an integer or out of range", "ERR timeout
 * is negative"); a deadline past INT64_MAX waits for ever, as Redis 7.0's
 * sum overflows. */
int block_parse_timeout_ms(client *c, const arg *a, int64_t *deadline_ms);
/* 0 when c must not block now (inside EXEC, or a script later; a client
 * without a connection: the AOF loader, in-process test clients). */
int block_allowed(const client *c);
/* Blocks c on keys (of db c->db) until deadline_ms (0: forever). The
 * handler returns at once; nothing more of c's input runs until it is
 * served (its command runs again, see above) or times out. When the
 * command runs again because a key became ready and still finds nothing,
 * calling this again keeps the client's place and deadline. timeout_reply
 * (BLOCK_NIL_*) is the command's own nil, kept for the record: the timeout
 * answers a nil array (above). */
void block_on_keys(client *c, const arg *keys, int nkeys, int64_t deadline_ms, int timeout_reply);
/* A key of db was created (any type), or a stream got new entries (XADD;
 * XGROUP DESTROY too, so that its readers learn it): blocked clients on it
 * are served after the current command. O(1) when nobody is blocked in
 * that db. */
void block_signal_key(int db, const char *key, size_t len);

/* ---- stream readers (XREAD, XREADGROUP) ----
 * block_on_streams blocks as block_on_keys (keys: the STREAMS keys), with
 * two differences. The command runs again with its whole argv (its ids
 * follow the keys, so nothing is narrowed): block_served_key says which
 * key is ready, and the command reads only that key, as Redis 7.0 serves
 * a blocked XREAD with the one stream that got data. A timeout or CLIENT
 * UNBLOCK answers a nil array (RESP3: null).
 * flags BLOCK_STREAM_GROUP (XREADGROUP): when the key is deleted (DEL,
 * UNLINK, expiry, eviction, RENAME or MOVE away, FLUSHDB/FLUSHALL) or
 * overwritten with another type (SET...), the client is unblocked with
 * Redis 7.0's "-UNBLOCKED the stream key no longer exists" after the
 * command (db.c calls block_signal_deleted / block_signal_flushed); the
 * groups code does nothing for it. When its group is destroyed, XGROUP
 * DESTROY calls block_signal_key: the command runs again, sees
 * block_served_key non-NULL with no group and answers Redis 7.0's
 * "-NOGROUP the consumer group this client was blocked on no longer
 * exists" itself. */
enum { BLOCK_STREAM_GROUP = 1 };
void block_on_streams(client *c, const arg *keys, int nkeys, int64_t deadline_ms, int flags);
/* Replaces argument i of c's stored command (c just blocked, not a run
 * again): XREAD's "$" becomes the id it stood for when the client
 * blocked, so entries added later are delivered when it runs again. The
 * bytes are copied. */
void block_set_arg(client *c, int i, const char *p, size_t len);
/* While c's blocked command runs again because a key is ready: that key
 * (in *out, valid until the command returns), else NULL (a first run). */
const arg *block_served_key(const client *c, arg *out);
/* A key of db was deleted or overwritten (db.c): BLOCK_STREAM_GROUP
 * clients on it are unblocked with the error above after the command. The
 * same for every key of db (its table replaced: FLUSHDB, FLUSHALL, SWAPDB).
 * O(1) when no such client is blocked in that db. */
void block_signal_deleted(int db, const char *key, size_t len);
void block_signal_flushed(int db);
/* SWAPDB put a new table in db's place (`before` was there): the keys
 * clients block on that exist now are signalled (Redis 7.0's
 * scanDatabaseForReadyKeys), and so are the streams that XREADGROUP
 * readers wait on and that are gone (scanDatabaseForDeletedStreams). */
void block_signal_swapped(int db, vt *before);

/* ---- the core's side (net.c, cmd.c, server.c) ---- */
/* Ready keys plus served or timed-out clients whose input waits to be
 * processed: block_handle_ready's fast path. */
extern size_t block_pending;
void block_handle_ready_slow(void);
/* Serves the clients blocked on every ready key (FIFO per key), then runs
 * the input that waited behind each served or timed-out client; loops
 * until nothing is ready. The dispatcher calls it after every top-level
 * command (after EXEC for a transaction, after the command's propagation
 * batch), the loop before sleeping. Nested calls return at once. */
static inline void block_handle_ready(void) {
    if (block_pending) block_handle_ready_slow();
}
/* c is going away (disconnect, CLIENT KILL): removed from every key. */
void block_client_closed(client *c);
/* INFO's blocked_clients, and clients_in_timeout_table (those with a
 * deadline). */
size_t block_blocked_clients(void);
size_t block_timeout_clients(void);
/* CLIENT UNBLOCK: c, blocked on keys, is answered as on timeout (a nil
 * array) or, with error, "-UNBLOCKED client unblocked via CLIENT UNBLOCK",
 * and its waiting input runs after the current command. 0 when c is not
 * blocked on keys. */
int block_unblock(client *c, int error);
/* The first key c is blocked on (its length in *len; *writes: the blocked
 * command is a write), or NULL when c is not blocked on keys: the
 * cluster's cron checks the keys' slot (one slot per command in a
 * cluster). */
const char *block_first_key(const client *c, size_t *len, int *writes);
/* Unblocks c with the whole error err (the cluster's -MOVED or
 * -CLUSTERDOWN for a key whose slot left this node); its waiting input
 * runs after the current command. 0 when c is not blocked on keys. */
int block_unblock_error(client *c, const char *err);

#endif
