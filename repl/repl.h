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

/* ---- for the cluster wing (cluster/replicas.c, cluster/failover.c) ----
 * What a cluster node asks of replication (repl_cluster.c): Redis 7.0's
 * replicationSetMaster / replicationUnsetMaster / replicationGetSlaveOffset
 * and the link's age its elections weigh. Main thread only. */

/* Follows host:port as REPLICAOF host port does (a forkless diskless full
 * sync, or a partial one with our own history); nothing when that is the
 * primary followed already. */
void repl_follow(const char *host, int port);
/* Stops following, as REPLICAOF NO ONE: a primary with a new replid (the
 * old one kept as replid2, so the other replicas continue with a partial
 * resync). Nothing when not following. */
void repl_promote(void);
/* 1 while following a primary (*host and *port, when not NULL, name it:
 * host valid until the next repl_follow/repl_promote); 0 when a primary. */
int repl_following(const char **host, int *port);
/* The replication offset: a replica's, of the stream applied from its
 * primary (Redis's replicationGetSlaveOffset); a primary's
 * master_repl_offset. */
long long repl_offset(void);
/* 1 while the link to the primary is up (the stream is applied). */
int repl_link_up(void);
/* How old the replica's data may be, in ms: since the last byte from the
 * primary while the link is up, since the link went down when it is down;
 * -1 when the link was never up since this process started following. */
long long repl_link_age_ms(void);
/* A primary in a cluster's manual failover: while held, no PINGs go into
 * the stream, so the replica can reach the offset it was told (Redis
 * 7.0's replicationCron skips them while mf_end is set). */
void repl_hold_pings(int hold);

#endif
