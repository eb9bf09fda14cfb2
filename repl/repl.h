/* repl: replication with Redis 7.0's protocol (doc/replication.md).
 *
 * A primary serves PSYNC/SYNC: partial resyncs from its backlog, full
 * resyncs whose snapshot a forkless save streams straight into the
 * replicas' sockets (fullsync.c), then the command stream. A replica
 * follows a master (REPLICAOF): handshake, payload, stream, acks. Both
 * roles can hold at once (a chained replica). The core knows none of it:
 * repl_init registers the commands, the hooks (with their gates), the
 * propagation consumer. Main thread only unless a file says otherwise. */
#ifndef VERSO_REPL_H
#define VERSO_REPL_H

/* Sets replication up (state, hooks, gates) and, when the configuration
 * names a master (replicaof), starts following it once the loop runs. */
void repl_init(void);
/* Registers replication's commands (PSYNC, SYNC, REPLCONF, WAIT,
 * REPLICAOF, SLAVEOF, ROLE) with the command table (cmd_register: before
 * cmd_init). repl_init calls it; a test that runs commands without
 * replication's start calls it itself. */
void repl_register_commands(void);
/* The data is loaded (app/main.c, before the loop serves): a primary whose
 * snapshot recorded its replication history continues it, so that its
 * replicas resume with a partial resync (history.c). */
void repl_data_loaded(void);

#endif
