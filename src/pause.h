/* pause: CLIENT PAUSE / UNPAUSE, as Redis 7.0.
 *
 * While a pause lasts, the dispatcher postpones (pause_postpones) every
 * command of a connected client other than a replica of this server (ALL;
 * the AOF loader and the scripting client run on), or only
 * those that may write or replicate (WRITE: write commands, EXEC of a
 * transaction that writes, PUBLISH, EVAL, FCALL, PFCOUNT, SCRIPT LOAD and
 * FLUSH): the client is flagged CLIENT_BLOCKED, its command stays its
 * pending request and its further input waits. Errors found before that
 * (unknown command, arity, authentication) are answered at once. Keys do
 * not expire meanwhile (a read sees an expired key as missing, nothing is
 * deleted) and nothing is evicted, so the dataset stays as it was. A new
 * pause while one lasts keeps the later end and the stricter kind. When the
 * pause ends (its time, or CLIENT UNPAUSE) the postponed commands run, in
 * the order they came, on the next loop iteration.
 *
 * Main thread only. */
#ifndef VERSO_PAUSE_H
#define VERSO_PAUSE_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

enum { PAUSE_OFF = 0, PAUSE_WRITE = 1, PAUSE_ALL = 2 };

/* The kind of pause in force (PAUSE_OFF when none or when its time is
 * over); pause_kind's fast path. */
extern int pause_type;
int pause_kind_slow(void);
static inline int pause_kind(void) { return pause_type ? pause_kind_slow() : PAUSE_OFF; }

/* Registers the hooks (a postponed client that closes). At startup. */
void pause_init(void);
/* Pauses until end_ms (monotonic) with kind PAUSE_WRITE or PAUSE_ALL. */
void pause_start(int kind, int64_t end_ms);
/* Ends the pause CLIENT PAUSE started (not a hold); the postponed clients
 * run on the next iteration once no hold keeps them. */
void pause_stop(void);
/* A pause of a server process rather than of CLIENT PAUSE, as Redis 7.0's
 * pause purposes: FAILOVER and SHUTDOWN pause writes (PAUSE_WRITE) until
 * they release it; CLIENT UNPAUSE and CLIENT PAUSE's end leave it. The
 * pause in force is the strictest of CLIENT PAUSE's and the holds. */
enum { PAUSE_HOLD_FAILOVER = 0, PAUSE_HOLD_SHUTDOWN, PAUSE_NHOLDS };
void pause_hold(int who, int kind);
void pause_release(int who);
/* The dispatcher's check for c's command d (found, not queued in MULTI):
 * 1 when it is postponed (c now waits, see above). */
int pause_postpones(client *c, const cmd_def *d);
/* Expiry and eviction wait while any pause lasts. */
static inline int pause_keys_frozen(void) { return pause_kind() != PAUSE_OFF; }
/* Clients waiting for the pause to end (INFO's blocked_clients counts them). */
size_t pause_postponed(void);

#endif
