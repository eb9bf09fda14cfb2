/* client_mem: the memory each client holds, the clients' totals that
 * used_memory and maxmemory count, and client eviction
 * (maxmemory-clients), as Redis 7.0's getClientMemoryUsage,
 * updateClientMemUsage and evictClients.
 *
 * A client's memory (CLIENT LIST tot-mem) is what verso holds for it: the
 * client struct, its query buffer's allocation, its reply buffers' (the
 * one being filled and the one being written), the ciphertext its TLS
 * session has not handed to the kernel, its argv array, its transaction's
 * queue and watched keys, its subscriptions and tracking prefixes. What
 * the kernel has queued on the socket is not counted. Arguments point into
 * the query buffer, so argv-mem is reported but already counted there.
 *
 * net.c counts a client again wherever its memory may have changed (input
 * read and run, replies added, output written, the cron); the totals per
 * client type follow in O(1). Evictable clients (normal and pubsub ones
 * without CLIENT NO-EVICT) sit in buckets by powers of two of their
 * memory, so that eviction takes the biggest first. Main thread only. */
#ifndef VERSO_CLIENT_MEM_H
#define VERSO_CLIENT_MEM_H

#include "server.h"

/* CLIENT LIST's omem: output buffers holding unsent replies. */
size_t client_mem_output(const client *c);
/* CLIENT LIST's tot-mem, computed now. */
size_t client_mem_usage(const client *c);

/* A client starts being counted (uncounted until then). */
void client_mem_init(client *c);
/* c's memory may have changed: its share of the totals and its bucket
 * follow. A closing client is left out. */
void client_mem_update(client *c);
/* c closes: it leaves the totals and its bucket. */
void client_mem_forget(client *c);

/* INFO mem_clients_normal (normal, pubsub and master clients) and the
 * replicas' own buffers. */
size_t client_mem_normal(void);
size_t client_mem_replicas(void);

/* maxmemory-clients in bytes (its percentage of maxmemory resolved, at
 * least 128 KB as Redis), 0 when client eviction is off. */
size_t client_mem_limit(void);
/* Closes the biggest evictable clients while the normal and pubsub
 * clients' memory is at or above the limit (before each command, before
 * the loop sleeps). The victims are closed before the loop next sleeps
 * (net_close_asap) and leave the totals now. */
void client_mem_evict(void);

#endif
