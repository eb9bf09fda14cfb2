/* pubsub: channels, patterns and shard channels (PUBLISH, SUBSCRIBE, ...),
 * as Redis 7.0 (messages as push types under RESP3): the subscribed context
 * (RESP2 only: a RESP3 subscriber may run any command), the CLIENT_PUBSUB
 * flag (client-output-buffer-limit's pubsub class), PUBSUB's
 * introspection. Main thread only. */
#ifndef VERSO_PUBSUB_H
#define VERSO_PUBSUB_H

#include <stddef.h>

#include "server.h"

/* Registers the subscribed-context gate; at startup. */
void pubsub_init(void);
/* A client is closing: drop its subscriptions. */
void pubsub_client_closed(client *c);
/* Delivers a message; returns the number of receivers (PUBLISH's reply). */
long long pubsub_publish(const char *channel, size_t clen, const char *msg, size_t mlen);
/* Delivers a message to this node's subscribers of a shard channel
 * (SPUBLISH's delivery; the cluster bus's PUBLISHSHARD). */
long long pubsub_publish_shard(const char *channel, size_t clen, const char *msg, size_t mlen);
/* Cluster mode: PUBLISH and SPUBLISH reach the other nodes over the
 * cluster bus (shard: SPUBLISH, to the nodes of this shard), not the
 * replication stream, as Redis's clusterPropagatePublish[Shard]. The
 * cluster wing sets the function at start; NULL: replication carries them. */
typedef void pubsub_cluster_fn(int shard, const char *channel, size_t clen, const char *msg,
                               size_t mlen);
void pubsub_set_cluster_publish(pubsub_cluster_fn *fn);
/* Calls fn for each channel, pattern (pattern = 1) and shard channel c is
 * subscribed to (ACL: a user's subscribers that lose a channel). */
void pubsub_each_name(const client *c, void (*fn)(void *priv, int pattern, const char *p,
                                                  size_t len), void *priv);
/* Bytes c's own tables of names hold (client_mem.h). */
size_t pubsub_client_mem(const client *c);
/* c's channels, patterns and shard channels (CLIENT LIST's sub= psub= ssub=). */
void pubsub_counts(const client *c, size_t *sub, size_t *psub, size_t *ssub);
/* Channels, patterns and shard channels with at least one subscriber
 * (INFO stats' pubsub_channels, pubsub_patterns, pubsubshard_channels). */
void pubsub_stats(size_t *channels, size_t *patterns, size_t *shard_channels);

#endif
