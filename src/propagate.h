/* propagate: the one path by which every change to the keyspace leaves the
 * core, in command form.
 *
 * After a write command has run, the dispatcher propagates it once (or the
 * replacement forms its handler gave, cmd.h's cmd_propagate: relative
 * expiries made absolute, ...); expiry and eviction propagate the DEL they
 * did. Each propagated command goes to every registered consumer in
 * registration order, with the database it ran in: the AOF now, replicas
 * and keyspace notifications next. A consumer that is off is simply not in
 * the list; with no consumer, propagation costs one branch.
 *
 * Main thread only. The arguments are valid only during the call: a
 * consumer that keeps them copies them. */
#ifndef VERSO_PROPAGATE_H
#define VERSO_PROPAGATE_H

#include "server.h"

typedef void (*prop_fn)(void *priv, int db, int argc, const arg *argv);

/* Adds a consumer (fn, priv); adding the same pair twice is a bug. */
void prop_add(prop_fn fn, void *priv);
/* Removes it; a pair that is not registered is ignored. */
void prop_remove(prop_fn fn, void *priv);
/* 1 when at least one consumer is registered. */
int prop_active(void);
/* Hands one command to every consumer. */
void propagate(int db, int argc, const arg *argv);

#endif
