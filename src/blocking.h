/* blocking: clients blocked on keys (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP,
 * BZPOPMIN BZPOPMAX BZMPOP), as Redis 7.0 serves them.
 *
 * A blocking command that finds nothing to pop calls block_on_keys: the
 * client then runs nothing else (its further input waits) until it is
 * served, its timeout passes (the command's nil reply) or it disconnects.
 * Every path that creates a key (db.c) signals it with block_signal_key;
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
/* A key of db was created (any type): blocked clients on it are served
 * after the current command. O(1) when nobody is blocked in that db. */
void block_signal_key(int db, const char *key, size_t len);

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

#endif
