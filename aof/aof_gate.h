/* aof_gate: which replies wait for an fsync and which writes wait for the
 * AOF writer to catch up (see aof.h for the rules). It keeps the set of
 * in-flight key hashes (appendfsync always), the parked clients and the
 * AOF's state of each client (client.aof).
 * Main thread only. */
#ifndef VERSO_AOF_GATE_H
#define VERSO_AOF_GATE_H

#include <stdint.h>

#include "cmd.h"

/* Every key of command d given as (db, argc, argv), as the command table
 * describes them. */
typedef void (*gate_key_fn)(void *priv, int db, const arg *key);
void gate_for_each_key_args(int db, const cmd_def *d, int argc, const arg *argv, gate_key_fn fn,
                            void *priv);

/* In-flight writes (always). The keys of every command the AOF logs are
 * pended (gate_inflight_pend_args, from its propagation consumer: what a
 * script or an EXEC ran is logged command by command) and become in flight
 * at `offset` when the command that logged them ends (gate_inflight_commit:
 * the end of its whole batch, so a transaction's keys wait for its EXEC).
 * gate_inflight_wait* give the offset a command reading keys must wait for. */
void gate_inflight_pend_args(int db, const cmd_def *d, int argc, const arg *argv);
void gate_inflight_commit(uint64_t offset);
uint64_t gate_inflight_wait(const client *c, const cmd_def *d, uint64_t synced);
uint64_t gate_inflight_wait_args(int db, const cmd_def *d, int argc, const arg *argv,
                                 uint64_t synced);
/* Offset of the latest in-flight write, 0 when none. */
uint64_t gate_inflight_max(void);
/* Forget writes durable at `synced`. */
void gate_inflight_synced(uint64_t synced);
void gate_inflight_clear(void);

/* The AOF's state of one client (client.aof): its holds (aof.c) and its
 * parking (here). NULL until the AOF first holds or parks the client;
 * freed when the client closes (aof_client_closed). */
typedef struct aof_client {
    uint64_t hold_offset;         /* replies wait until the AOF is fsynced
                                     up to this offset (always) */
    size_t hold_reply_at;         /* reply.len where the held replies begin */
    client *park_next;            /* the parked list */
    int64_t parked_at_ms;
    size_t parked_bytes;
} aof_client;
/* c's state, made when it has none. */
aof_client *gate_client(client *c);
/* Frees c's state (c closed: it is no longer parked). */
void gate_client_free(client *c);

/* Parking: c is flagged CLIENT_INPUT_PARKED while parked. */
void gate_park(client *c);
int gate_parked_count(void);
uint64_t gate_parked_total(void);
/* Removes and returns the parked client to resume next: smallest payload
 * first, with aging so that a large write waiting long goes first. */
client *gate_unpark_next(void);
void gate_unpark(client *c);  /* client closed */

#endif
