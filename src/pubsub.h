/* pubsub: channels, patterns and shard channels (PUBLISH, SUBSCRIBE, ...),
 * as Redis 7.0. Placeholder: the pub/sub engineer fills it. Main thread. */
#ifndef VERSO_PUBSUB_H
#define VERSO_PUBSUB_H

#include "server.h"

/* Registers the subscribed-context gate; at startup. */
void pubsub_init(void);
/* A client is closing: drop its subscriptions. */
void pubsub_client_closed(client *c);
/* Delivers a message; returns the number of receivers (PUBLISH's reply). */
long long pubsub_publish(const char *channel, size_t clen, const char *msg, size_t mlen);

#endif
