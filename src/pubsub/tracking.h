/* tracking: server-assisted client-side caching (CLIENT TRACKING), as
 * Redis 7.0 does it.
 *
 * A client with tracking on (default mode) has every key of the read-only
 * commands it runs remembered in the tracking table (key -> ids of the
 * clients that may cache it; OPTIN/OPTOUT with CLIENT CACHING choose which
 * commands count). When a key changes (db.h's db_key_changed calls
 * tracking_invalidate_key next to multi_touch_key: writes, deletions,
 * expiry, eviction), every client in its entry gets one invalidation
 * message and the entry is dropped. A client in BCAST mode is in no entry:
 * it subscribes to key prefixes ("" for all), and the keys changed under
 * each prefix during one loop iteration are sent to it together before the
 * loop sleeps. FLUSHDB/FLUSHALL (and a replica's full sync) send every
 * tracking client a null ("every key") and empty the table.
 * tracking-table-max-keys bounds the table: before each command (and at
 * each cron tick, for an idle server), random keys are invalidated until
 * it fits, as Redis's trackingLimitUsedSlots.
 *
 * Messages: RESP3 clients get the push ">2 invalidate <keys|null>"; a
 * RESP2 client redirects them (REDIRECT id) to a client in RESP2 pub/sub
 * mode, which receives them as a "message" of channel
 * __redis__:invalidate; when the redirect target is gone the client is
 * flagged broken_redirect (and a RESP3 one is told "tracking-redir-broken").
 * A message for the client whose command runs now is sent after that
 * command's reply (client_command_done calls tracking_command_done).
 *
 * Main thread only. */
#ifndef VERSO_TRACKING_H
#define VERSO_TRACKING_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* Tracked keys plus broadcast prefixes: tracking_invalidate_key's fast path. */
extern size_t tracking_live;

/* Registers the subsystem's hooks (before_sleep: broadcasts; before_command:
 * the table's limit; client_closed; after_flush; dataset_replaced). At
 * startup. */
void tracking_init(void);

/* A key changed (any db: the table is global, as Redis's). by_server:
 * expiry or eviction made the change, not a client's command: the
 * broadcast to BCAST NOLOOP clients leaves it out for nobody. A change a
 * script makes counts as its fake client's, as in Redis 7.0 (the caller in
 * BCAST NOLOOP mode hears of it); the default mode's NOLOOP leaves out the
 * changes made while the client's own command runs. */
void tracking_invalidate_key_slow(const char *key, size_t len, int by_server);
static inline void tracking_invalidate_key(const char *key, size_t len, int by_server) {
    if (tracking_live) tracking_invalidate_key_slow(key, len, by_server);
}

/* After read-only command d ran for c (cmd_call): remembers its keys for
 * c, or for the script's caller when c is the scripting client. */
void tracking_remember(client *c, const cmd_def *d);
static inline void tracking_after_call(client *c, const cmd_def *d) {
    if (c->flags & (CLIENT_TRACKING | CLIENT_SCRIPT)) tracking_remember(c, d);
}

/* c's command is over (its reply written): sends the invalidations that
 * waited for it and ends a CLIENT CACHING that applied to it. */
void tracking_command_done(client *c, const cmd_def *d);

/* CLIENT TRACKING / CACHING / GETREDIR / TRACKINGINFO (cmd_client.c
 * dispatches them here). */
void tracking_cmd_tracking(client *c);
void tracking_cmd_caching(client *c);
void tracking_cmd_getredir(client *c);
void tracking_cmd_trackinginfo(client *c);
/* Tracking off for c (CLIENT TRACKING off, RESET). */
void tracking_disable(client *c);

/* CLIENT LIST's flags and redir=. */
int tracking_flag_letters(const client *c, char *out); /* "t", "R", "B": count written */
long long tracking_redir(const client *c);             /* -1 when off */
/* Bytes c's tracking options hold: its BCAST prefixes (client_mem.h). */
size_t tracking_client_mem(const client *c);

/* INFO: tracking_clients, and the stats tracking_total_keys/items/prefixes. */
size_t tracking_clients(void);
void tracking_info_stats(vbuf *b);

#endif
