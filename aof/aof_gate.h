/* aof_gate: which replies wait for an fsync and which writes wait for the
 * AOF writer to catch up (see aof.h for the rules). It keeps the set of
 * in-flight key hashes (appendfsync always) and the parked clients.
 * Main thread only. */
#ifndef VERSO_AOF_GATE_H
#define VERSO_AOF_GATE_H

#include <stdint.h>

#include "../src/cmd.h"

/* Every key of command d in c's argv, as the command table describes them. */
typedef void (*gate_key_fn)(void *priv, int db, const arg *key);
void gate_for_each_key(const client *c, const cmd_def *d, gate_key_fn fn, void *priv);
/* The same for a command given as (db, argc, argv): one an EXEC ran. */
void gate_for_each_key_args(int db, const cmd_def *d, int argc, const arg *argv, gate_key_fn fn,
                            void *priv);

/* In-flight writes (always): remember that the keys of c's command are
 * durable only at `offset`; look up the offset a command must wait for. */
void gate_inflight_add(const client *c, const cmd_def *d, uint64_t offset);
uint64_t gate_inflight_wait(const client *c, const cmd_def *d, uint64_t synced);
void gate_inflight_add_args(int db, const cmd_def *d, int argc, const arg *argv,
                            uint64_t offset);
uint64_t gate_inflight_wait_args(int db, const cmd_def *d, int argc, const arg *argv,
                                 uint64_t synced);
/* Offset of the latest in-flight write, 0 when none. */
uint64_t gate_inflight_max(void);
/* Forget writes durable at `synced`. */
void gate_inflight_synced(uint64_t synced);
void gate_inflight_clear(void);

/* Parking. */
void gate_park(client *c);
int gate_parked_count(void);
uint64_t gate_parked_total(void);
/* Removes and returns the parked client to resume next: smallest payload
 * first, with aging so that a large write waiting long goes first. */
client *gate_unpark_next(void);
void gate_unpark(client *c);  /* client closed */

#endif
