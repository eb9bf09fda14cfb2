/* shutdown: SHUTDOWN and SIGTERM's wait for lagging replicas, as Redis 7.0.
 *
 * A shutdown without NOW, when shutdown-timeout is not 0 and a subsystem
 * wants it to wait (hooks' shutdown_wait: replicas behind the stream's
 * end), does not finish at once: writes are paused (pause_hold), the
 * SHUTDOWN caller is blocked (other clients are served, their writes
 * postponed), and each cron tick finishes it (server_shutdown) once
 * nothing waits any more or shutdown-timeout has passed. SHUTDOWN ABORT
 * cancels it: the blocked callers are answered with the error, writes
 * resume. A shutdown that fails (a save failed, no FORCE) is cancelled
 * the same way. Main thread only. */
#ifndef VERSO_SHUTDOWN_H
#define VERSO_SHUTDOWN_H

#include "server.h"

enum { SHUT_NOSAVE = 1, SHUT_SAVE = 2, SHUT_NOW = 4, SHUT_FORCE = 8 };

/* Registers the hooks (cron, a blocked caller that closes). At startup. */
void shutdown_init(void);
/* Starts a shutdown with SHUT_* flags for c (NULL: a signal). Exits when
 * it finishes at once; returns 1 when it waits (c is blocked until it
 * ends; also when one was already waiting: c joins it), -1 with the
 * error to answer when it failed. */
int shutdown_request(client *c, int flags, char *err, size_t errlen);
/* SHUTDOWN ABORT: cancels a waiting shutdown, or a signal's not started
 * yet. 0, or -1 when there is none. */
int shutdown_abort(void);
/* INFO server: shutdown_in_milliseconds while one waits (as Redis 7.0). */
void shutdown_info(vbuf *b);
/* SHUTDOWN callers blocked (INFO's blocked_clients counts them). */
size_t shutdown_blocked(void);

#endif
