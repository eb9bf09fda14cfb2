/* proxy: a TCP relay for the replication tests, so that a test can cut a
 * link between two servers and restore it.
 *
 * proxy_start listens on a free port of 127.0.0.1 and relays every
 * connection it accepts to 127.0.0.1:<target>, both ways, from one thread
 * of the test process (poll() over all sockets; nothing else touches
 * them). proxy_cut closes every relayed connection (both sides) and, until
 * proxy_restore, accepts new connections only to close them at once (the
 * peer sees a connection that opens then ends, as with a dead route).
 * Counters are atomic; the control calls return once the relay thread has
 * done what they ask. Thread boundary: every field below the mutex is
 * the relay thread's own except where proxy.c says otherwise. */
#ifndef VERSO_TEST_PROXY_H
#define VERSO_TEST_PROXY_H

#include <stddef.h>

typedef struct proxy proxy;

/* Starts the relay to 127.0.0.1:target_port; fails the test on error. */
proxy *proxy_start(int target_port);
/* The port it listens on. */
int proxy_port(const proxy *p);
/* Closes every relayed connection; refuses new ones until restored. */
void proxy_cut(proxy *p);
void proxy_restore(proxy *p);
/* Limits what goes target -> client to bytes_per_sec in all (0: no
 * limit), e.g. to make a full sync last while writes go on. */
void proxy_throttle(proxy *p, unsigned long long bytes_per_sec);
/* Bytes relayed client -> target (up) and target -> client (down). */
unsigned long long proxy_bytes_up(const proxy *p);
unsigned long long proxy_bytes_down(const proxy *p);
/* Connections relayed since the start (refused ones not counted), and
 * connections refused while cut. */
unsigned long proxy_accepted(const proxy *p);
unsigned long proxy_refused(const proxy *p);
/* Relayed connections open now. */
size_t proxy_open(const proxy *p);
/* Stops the thread, closes everything, frees p. */
void proxy_stop(proxy *p);

#endif
