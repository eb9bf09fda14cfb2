/* repl_int: what the parts of repl/ share (not for the rest of verso).
 *
 *   repl.c      the replication ids and offset, INFO replication, ROLE,
 *               hook registration (calls each part's *_init)
 *   backlog.c   the backlog ring: the stream's last repl-backlog-size bytes
 *   primary.c   replicas of this server: the stream (propagation consumer
 *               and proxy), PSYNC/SYNC/REPLCONF/WAIT, partial resync,
 *               pings, acks, timeouts, min-replicas, INFO slaveN lines
 *   fullsync.c  the snapshot of a full resync: one save shared by the
 *               replicas waiting, streamed into their sockets (EOF-marked,
 *               forkless or fork) or through a temp file ($<len>)
 *   replica.c   following a master: REPLICAOF, the handshake, the master
 *               client, acks, reconnects
 *   replica_load.c  a full sync's payload, loaded on a thread into fresh
 *               tables
 *   replica_info.c  the replica's ROLE and INFO fields and its gates
 *               (READONLY, MASTERDOWN)
 *   history.c   a primary's history in its saves and back after a restart
 *   failover.c  FAILOVER: pause writes, wait for a replica's ack, hand
 *               over to it with PSYNC ... FAILOVER
 *   (replica.c, replica_load.c and replica_info.c share replica_int.h;
 *   primary.c, fullsync.c and backlog.c share fullsync_priv.h)
 *
 * Main thread only, except where fullsync.c and replica_load.c say
 * otherwise. */
#ifndef VERSO_REPL_INT_H
#define VERSO_REPL_INT_H

#include <stddef.h>
#include <stdint.h>

#include "cmd.h"
#include "server.h"
#include "vbuf.h"

#define REPL_ID_LEN 40

/* The handlers of replication's commands, registered from repl_cmd.c's
 * rows: primary.c's, replica.c's and repl.c's. */
cmd_proc cmd_psync, cmd_sync, cmd_replconf, cmd_wait;
cmd_proc cmd_replicaof, cmd_slaveof;
cmd_proc cmd_role;
cmd_proc cmd_failover;

/* ---- repl.c: the replication identity ---- */
typedef struct repl_state {
    char replid[REPL_ID_LEN + 1];   /* master_replid: the history we serve */
    char replid2[REPL_ID_LEN + 1];  /* master_replid2: the history we served
                                       before a promotion (40 '0': none) */
    long long offset;               /* master_repl_offset: bytes of the
                                       stream up to now */
    long long second_offset;        /* second_repl_offset: first offset
                                       replid2 does not cover (-1: none) */
    int stream_db;                  /* the database the stream's last SELECT
                                       chose; -1 makes the next command
                                       emitted start with a SELECT */
} repl_state;
extern repl_state R;

/* A fresh random replid (40 hex digits). */
void repl_new_id(char out[REPL_ID_LEN + 1]);
/* A promotion (REPLICAOF NO ONE), as Redis's shiftReplicationId:
 * replid2 = replid, second_offset = offset + 1, new replid. */
void repl_shift_id(void);
/* A new history (a full sync from a master sets it from +FULLRESYNC). */
void repl_set_id(const char *replid, long long offset);

/* ---- backlog.c ---- */
/* Creates the backlog (repl-backlog-size), empty, its next byte being
 * R.offset + 1. Does nothing when it exists. */
void backlog_create(void);
void backlog_free(void);
int backlog_exists(void);
/* Appends bytes (the caller advances R.offset). */
void backlog_append(const char *p, size_t n);
/* 1 when the backlog holds every byte from `offset` (a PSYNC's offset: the
 * first byte the replica misses) up to R.offset. */
int backlog_covers(long long offset);
/* Copies the bytes from `offset` to R.offset into b (backlog_covers). */
void backlog_copy_from(long long offset, vbuf *b);
/* CONFIG SET repl-backlog-size: a new size, keeping what fits. */
void backlog_resize(long long size);
/* INFO: repl_backlog_active/size/first_byte_offset/histlen. */
void backlog_info(vbuf *b);

/* ---- primary.c ---- */
/* RS_*: a replica link's state as this primary sees it (client->repl of a
 * CLIENT_REPLICA); a replica's own connection state is RC_* in replica_int.h. */
enum {
    RS_WAIT_BGSAVE_START = 1, /* wants a full sync; no save serves it yet */
    RS_WAIT_BGSAVE_END,       /* its payload is being sent; the stream after
                                 its cut accumulates in c->reply, held */
    RS_ONLINE,                /* receives the stream */
};
typedef struct fs_target fs_target;
typedef struct replica_link {
    client *c;
    int state;                /* RS_* */
    int capa_eof;             /* REPLCONF capa eof: diskless payload */
    int capa_psync2;          /* REPLCONF capa psync2 */
    int old_sync;             /* came by SYNC: no +FULLRESYNC line */
    int listening_port;       /* REPLCONF listening-port */
    int functions_only;       /* REPLCONF rdb-filter-only functions: a
                                 payload of the libraries, no keys */
    char ip[64];              /* REPLCONF ip-address, else the peer's */
    long long sync_offset;    /* the stream offset at its cut */
    long long ack_offset;     /* last REPLCONF ACK */
    int64_t ack_ms;           /* mono ms of the last ACK (lag) */
    fs_target *target;        /* fullsync.c's handle while waiting/sending */
} replica_link;

void primary_init(void);
/* Appends bytes to the stream: the backlog, every replica past its cut,
 * R.offset. The propagation consumer uses it, and a replica proxies its
 * master's stream through it (so offsets agree along a chain). */
void repl_feed(const char *p, size_t n);
/* fullsync.c, at the cut of the save that serves rl (main thread, between
 * commands): its stream starts now (rl->sync_offset = R.offset), the next
 * command emitted starts with SELECT, rl->state = RS_WAIT_BGSAVE_END. */
void primary_sync_cut(replica_link *rl);
/* fullsync.c: rl's payload was sent in full (ok 1: it goes online and its
 * buffered stream is flushed) or failed (ok 0: it is disconnected, with
 * why in the log). */
void primary_sync_done(replica_link *rl, int ok, const char *why);
/* Disconnects every replica (a promotion or demotion changes the
 * history; they reconnect and PSYNC). */
void primary_drop_replicas(void);
/* INFO replication: connected_slaves, slaveN lines, min_slaves_good_slaves. */
void primary_info(vbuf *b);
/* ROLE of a master: the replicas' ip, port and ack offset. */
void primary_role(client *c);
size_t primary_replica_count(void);
/* The i-th replica (i < primary_replica_count()), oldest first. */
const replica_link *primary_replica_at(size_t i);
/* Bytes of stream the replicas' links hold or have not sent yet (INFO
 * memory's mem_clients_slaves). */
size_t primary_buffered_bytes(void);

/* ---- fullsync.c ---- */
void fullsync_init(void);
/* A full sync for rl (state RS_WAIT_BGSAVE_START, output flushed): fullsync
 * starts or schedules a save (repl-diskless-sync-delay / -max-replicas),
 * calls primary_sync_cut at its cut, sends "+FULLRESYNC <replid> <offset>"
 * (unless rl->old_sync), then the payload ($EOF:<mark> ... <mark> when
 * rl->capa_eof and repl-diskless-sync, else $<len> through a temp file),
 * then primary_sync_done. */
void fullsync_request(replica_link *rl);
/* rl's connection is closing: stop sending to it (its socket is shut down
 * so that a thread writing to it fails; the save goes on for the others,
 * or is aborted when none is left). */
void fullsync_drop(replica_link *rl);
/* Cron: "\n" keepalives to replicas waiting (their save is a request in
 * the save queue, which starts it when the sync delay allows). */
void fullsync_cron(void);
/* 1 while a replication save runs (BGSAVE then answers that one is in
 * progress, as Redis). */
int fullsync_in_progress(void);
void fullsync_info(vbuf *b);

/* ---- replica.c ---- */
void replica_init(void);
/* 1 while configured to follow a master (REPLICAOF host port). */
int replica_active(void);
/* INFO replication fields of a replica (master_host ... slave_read_only). */
void replica_info(vbuf *b);
/* ROLE of a replica. */
void replica_role(client *c);
/* REPLCONF GETACK from our master: send REPLCONF ACK <offset> once the
 * current request is counted. */
void replica_getack(client *c);
/* 1 while the link to our master is up (its stream is applied). */
int replica_link_up(void);
/* Follows host:port as REPLICAOF host port does (FAILOVER's hand-over). */
void replica_follow(const char *host, int port);
/* Becomes a master as REPLICAOF NO ONE does (a new history; a PSYNC ...
 * FAILOVER, a FAILOVER aborted after its hand-over). */
void replica_promote(void);
/* The database our master's stream is on now (a chained replica's payload
 * tells its sub-replicas, repl-stream-db). */
int replica_stream_db(void);

/* ---- history.c ---- */
/* What a primary's save records (replica.c's save hook calls it when this
 * server follows no master): its replid and offset while it has a
 * backlog, else nothing (out stays unset). */
struct rdb_repl_aux;
void history_primary_save(struct rdb_repl_aux *out);
/* primary.c: the backlog was made at startup from a saved history: the
 * repl-backlog-ttl counts from now. */
void primary_backlog_restored(void);

/* ---- failover.c ---- */
enum { FO_NONE = 0, FO_WAIT_SYNC, FO_IN_PROGRESS };
void failover_init(void);
int failover_state(void);               /* FO_* */
/* 1 while a FAILOVER with a TIMEOUT waits, or a cluster manual failover
 * holds them (repl_hold_pings): no pings into the stream. */
int failover_holds_pings(void);
const char *failover_state_name(void);  /* INFO's master_failover_state */
/* The target accepted our PSYNC ... FAILOVER (+CONTINUE or +FULLRESYNC):
 * the failover ends (a refusal is failover_abort's). */
void failover_psync_accepted(void);
/* Ends a failover in progress (a master again if it had handed over). */
void failover_abort(const char *why);

#endif
