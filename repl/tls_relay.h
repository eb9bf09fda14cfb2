/* tls_relay: a full sync's payload to a TLS replica (see tls_relay.c).
 *
 * The thread that writes a payload (the serializer's fan-out sink, the
 * disk path's sender thread, a fork child) writes into a plain fd; a TLS
 * session is main thread only. A relay gives that thread one end of a
 * socketpair and moves what arrives at the other end, on the loop, into
 * the replica client's connection (net_write_direct: sealed, ahead of its
 * held replies), pausing while the client's output is over a bound so the
 * writing thread blocks on the socketpair instead of memory growing.
 *
 * Main thread only, except the fd tls_relay_start hands out, which is the
 * writing thread's. */
#ifndef VERSO_TLS_RELAY_H
#define VERSO_TLS_RELAY_H

#include <stddef.h>

#include "server.h"

typedef struct tls_relay tls_relay;

/* The relay ended (main thread): ok 1 when the writer's end closed (every
 * copy of it) and every byte went to net_write_direct, ok 0 with why
 * (the socketpair or the client failed). Called once; the relay must then
 * be freed (tls_relay_free, which may be called from the callback). */
typedef void tls_relay_done_fn(void *priv, int ok, const char *why);

/* A relay to c: *writer_fd is the writing thread's end (blocking, close on
 * exec; the caller closes it when the writing is over, which the relay
 * sees as the end). NULL with err. */
tls_relay *tls_relay_start(client *c, int *writer_fd, tls_relay_done_fn *done, void *priv,
                           char *err, size_t errlen);
/* Stops relaying (no callback from now on) and frees r once libuv let
 * its handles go; a writer still writing gets EPIPE (the reading end is
 * closed). NULL does nothing. */
void tls_relay_free(tls_relay *r);
/* Bytes moved to the client so far. */
unsigned long long tls_relay_bytes(const tls_relay *r);

#endif
