/* multi: transactions (MULTI, EXEC, DISCARD) and optimistic locking (WATCH,
 * UNWATCH), as in Redis 7.0.
 *
 * Inside MULTI the dispatcher checks each command as it would before running
 * it (existence, arity, auth, write gates) and hands it to multi_queue, which
 * copies its arguments and answers +QUEUED; a refused command flags the
 * transaction so that EXEC answers EXECABORT. EXEC runs the queue through
 * cmd_call, one command after the other with nothing in between (the loop
 * is single-threaded), and answers the array of their replies; an error of
 * one command is its reply, the others still run (no rollback). Whatever
 * the commands propagate leaves as one batch (propagate.h): MULTI ... EXEC
 * around them when there are several.
 *
 * WATCH keeps, for every watched (db, key), the clients watching it. Every
 * change to a key calls multi_touch_key (through db.h's db_key_changed:
 * writes, deletions, expiry, eviction): the watchers are flagged
 * CLIENT_DIRTY_CAS and their EXEC answers nil. A flush (db_replace_table)
 * calls multi_touch_flush for the watched keys that existed. A watched key that expires (even not yet deleted) fails EXEC as
 * well. With nothing watched, a touch is one branch.
 *
 * Main thread only. */
#ifndef VERSO_MULTI_H
#define VERSO_MULTI_H

#include "server.h"

/* Number of watched (db, key) pairs; multi_touch_key's fast path. */
extern size_t multi_watched_keys;

/* 1 when c is inside MULTI and d must be queued rather than run (all but
 * EXEC, DISCARD, MULTI, WATCH, QUIT). Also frees what the last EXEC kept. */
int multi_queues(client *c, const cmd_def *d);
/* Queues c's command d (already checked) and answers +QUEUED. */
void multi_queue(client *c, const cmd_def *d);
/* A command was refused (unknown, arity, auth, write gate...): inside MULTI
 * the transaction is flagged for EXECABORT; a refused EXEC turns its error
 * (written at c->reply from reply_at) into "EXECABORT Transaction discarded
 * because of: <error>" and discards the transaction, as Redis does. */
void multi_rejected(client *c, const cmd_def *d, size_t reply_at);
/* 1 when d is EXEC of a transaction that holds a write command (EXEC is then
 * subject to the write gates and to AOF parking, as a write). */
int multi_exec_writes(const client *c, const cmd_def *d);
/* When d is EXEC of c's transaction: the union of its queued commands'
 * flags (cmd_flags_of, as they were queued: Redis's mstate.cmd_flags),
 * else 0. */
int multi_exec_flags(const client *c, const cmd_def *d);
/* 1 when d is EXEC of c's transaction and a queued command lacks flag
 * (Redis's mstate.cmd_inv_flags: EXEC is refused on a stale replica unless
 * every command is CMD_STALE). */
int multi_exec_lacks(const client *c, const cmd_def *d, int flag);

/* c's queued commands (inside MULTI), in order, and the union of their
 * flags: the cluster router's EXEC and queuing checks (cluster/route.c). */
typedef void (*multi_queued_fn)(void *priv, const cmd_def *d, int argc, const arg *argv);
void multi_for_each_queued(const client *c, multi_queued_fn fn, void *priv);
int multi_queued_flags(const client *c);

/* The commands the last EXEC of c ran, with the db each ran in, for the
 * AOF's hold logic in its after_command hook (valid until c's next command).
 * Does nothing unless c's last command was an EXEC that ran. */
typedef void (*multi_ran_fn)(void *priv, int db, const cmd_def *d, int argc, const arg *argv);
void multi_for_each_ran(const client *c, multi_ran_fn fn, void *priv);

/* A change to key in db: flags every client watching it. */
void multi_touch_key_slow(int db, const char *key, size_t len);
static inline void multi_touch_key(int dbid, const char *key, size_t len) {
    if (multi_watched_keys) multi_touch_key_slow(dbid, key, len);
}
/* Database d is about to be emptied: flags the watchers of its keys that
 * exist now. */
void multi_touch_flush(db *d);
/* SWAPDB is about to put table `with` in place of `emptied` in db dbid:
 * flags the watchers of its keys that exist in either (Redis 7.0's
 * touchAllWatchedKeysInDb). */
void multi_touch_swap(int dbid, vt *emptied, vt *with);

/* Bytes c's transaction holds: its queue (the argv copies) and its
 * watched keys (client_mem.h, CLIENT LIST multi-mem). */
size_t multi_mem(const client *c);
/* CLIENT LIST's multi=: the number of queued commands inside MULTI, else
 * -1. */
long long multi_queued(const client *c);

/* The client is going away: its transaction and watches are dropped. */
void multi_client_free(client *c);

#endif
