/* propagate: the one path by which every change to the keyspace leaves the
 * core, in command form.
 *
 * After a write command has run, the dispatcher propagates it once (or the
 * replacement forms its handler gave, cmd.h's cmd_propagate: relative
 * expiries made absolute, ...); expiry and eviction propagate the DEL they
 * did. Each propagated command goes to every registered consumer in
 * registration order, with the database it ran in: the AOF and the
 * replication stream (repl/primary.c). A consumer that is off is simply not in
 * the list; with no consumer, propagation costs one branch.
 *
 * Batches: the dispatcher brackets every command it runs with
 * prop_begin / prop_end_cmd. What is propagated inside is held (copied)
 * and handed on when the outermost batch ends: one command alone, several
 * wrapped in MULTI ... EXEC (MULTI with the first command's db, EXEC with
 * the last one's), as Redis 7.0's propagatePendingCommands does (but for
 * the commands that touch arbitrary keys, see prop_begin). So a
 * command whose handler propagates several commands, and an EXEC whose
 * queued commands changed something, reach the consumers as one atomic
 * block; a read-only transaction propagates nothing. Outside a batch
 * (active expiry) a command goes out at once.
 *
 * Messages: a command that changes no data but must still reach replicas
 * (PUBLISH, as Redis propagates it to replicas only) is propagated with
 * propagate_message; consumers that keep data (the AOF) register with
 * prop_add_data and never see it. Within a batch, each consumer gets what
 * it takes, wrapped in MULTI/EXEC when that is more than one command.
 *
 * Definitions: each command reaches a consumer with its entry in the
 * command table, d: the one argv names (cmd_lookup_argv(argc, argv)), never
 * NULL. The dispatcher passes the definition it dispatched (no second
 * lookup), a handler's own argv the running command's, a handler's
 * replacement form (EXPIRE -> PEXPIREAT) and the server's own commands
 * (the DEL of expiry and eviction) the one cmd.c looks up once for all the
 * consumers, MULTI/EXEC around a batch MULTI's and EXEC's. So a consumer
 * reads d's flags and key specs (the AOF's in-flight keys) without looking
 * the command up again.
 *
 * Main thread only. The arguments are valid only during the call: a
 * consumer that keeps them copies them (d is the table's: it lives as long
 * as the server). */
#ifndef VERSO_PROPAGATE_H
#define VERSO_PROPAGATE_H

#include "server.h"

typedef void (*prop_fn)(void *priv, int db, const cmd_def *d, int argc, const arg *argv);

/* Adds a consumer (fn, priv) of every command; adding the same pair twice
 * is a bug. */
void prop_add(prop_fn fn, void *priv);
/* The same for a consumer of data changes only (no messages). */
void prop_add_data(prop_fn fn, void *priv);
/* Removes it; a pair that is not registered is ignored. */
void prop_remove(prop_fn fn, void *priv);
/* 1 when at least one consumer is registered (and propagation is not
 * muted). */
int prop_active(void);
/* While on, nothing is propagated to any consumer: a replay of a file into
 * the running server (DEBUG LOADAOF), whose commands the AOF and the
 * replicas have already. */
void prop_mute(int on);
/* Hands one command (d: its definition, not NULL) to every consumer (held
 * while a batch is open). */
void propagate(int db, const cmd_def *d, int argc, const arg *argv);
/* The same for a message (PUBLISH): consumers added by prop_add only. */
void propagate_message(int db, const cmd_def *d, int argc, const arg *argv);
/* Opens a batch (batches nest: only the outermost one emits) for running
 * command d. An outermost batch of a CMD_TOUCHES_ARBITRARY_KEYS command
 * (SCAN, RANDOMKEY run directly, not from EXEC or a script) hands its
 * commands on one by one, unwrapped, as Redis 7.0's
 * propagatePendingCommands does for them. */
void prop_begin(const cmd_def *d);
/* Closes a batch, first adding the command (db, d, argc, argv) when argc >
 * 0 (the dispatcher's own propagation of the command that ran; d may be
 * NULL when argc is 0). When that command is all the batch holds it goes
 * out without being copied. */
void prop_end_cmd(int db, const cmd_def *d, int argc, const arg *argv);

#endif
