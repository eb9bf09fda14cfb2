/* notify: keyspace notifications (notify-keyspace-events), as Redis 7.0.
 *
 * Commands call notify_keyspace_event after a change, with the class of the
 * event and its name ("set", "del", "expired", "lpush", ...), as Redis 7.0's
 * notifyKeyspaceEvent. The event goes to every registered consumer, in
 * registration order; each decides from the class whether it wants it.
 * Pub/sub registers at startup (pubsub_init): when notify-keyspace-events
 * enables the class it publishes __keyspace@<db>__:<key> -> event (K) and
 * __keyevent@<db>__:<event> -> key (E). Main thread only. */
#ifndef VERSO_NOTIFY_H
#define VERSO_NOTIFY_H

#include <stddef.h>

/* Classes, Redis 7.0's NOTIFY_* bits (and letters). */
enum {
    NOTIFY_KEYSPACE = 1 << 0,  /* K */
    NOTIFY_KEYEVENT = 1 << 1,  /* E */
    NOTIFY_GENERIC = 1 << 2,   /* g */
    NOTIFY_STRING = 1 << 3,    /* $ */
    NOTIFY_LIST = 1 << 4,      /* l */
    NOTIFY_SET = 1 << 5,       /* s */
    NOTIFY_HASH = 1 << 6,      /* h */
    NOTIFY_ZSET = 1 << 7,      /* z */
    NOTIFY_EXPIRED = 1 << 8,   /* x */
    NOTIFY_EVICTED = 1 << 9,   /* e */
    NOTIFY_STREAM = 1 << 10,   /* t */
    NOTIFY_KEY_MISS = 1 << 11, /* m (not part of A) */
    NOTIFY_LOADED = 1 << 12,   /* module only */
    NOTIFY_MODULE = 1 << 13,   /* d */
    NOTIFY_NEW = 1 << 14,      /* n (not part of A) */
};
#define NOTIFY_ALL (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | \
                    NOTIFY_ZSET | NOTIFY_EXPIRED | NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* "KEA" -> flags; -1 on a character Redis refuses. */
int notify_flags_parse(const char *s, size_t len);
/* flags -> Redis's canonical string (keyspaceEventsFlagsToString); buf
 * holds at least 32 bytes. */
void notify_flags_format(int flags, char *buf);

/* A consumer of keyspace events: called for every event, whatever
 * notify-keyspace-events says (the consumer filters on type). It must not
 * call notify_keyspace_event itself, nor register or remove consumers. */
typedef void notify_consumer_fn(void *priv, int type, const char *event, const char *key,
                                size_t keylen, int dbid);
/* Adds a consumer (at startup or later); priv is handed back to it. */
void notify_register(notify_consumer_fn *fn, void *priv);
/* Removes the consumer registered with (fn, priv); 0 if there is none. */
int notify_unregister(notify_consumer_fn *fn, void *priv);

/* Hands the event to every consumer (type: one NOTIFY_* class bit; event:
 * Redis's name, "set", "del", ...; key: the key's bytes). */
void notify_keyspace_event(int type, const char *event, const char *key, size_t keylen,
                           int dbid);

/* The pub/sub consumer (registered by pubsub_init): publishes the event to
 * __keyspace@<db>__:<key> and __keyevent@<db>__:<event> as the classes of
 * server.cfg.notify_keyspace_events say. */
void notify_pubsub_consumer(void *priv, int type, const char *event, const char *key,
                            size_t keylen, int dbid);

#endif
