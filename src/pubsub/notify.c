/* notify: keyspace notifications (see notify.h): the consumer list and
 * the pub/sub consumer. Main thread only. */
#include "notify.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pubsub.h"
#include "server.h"
#include "util.h"

int notify_flags_parse(const char *s, size_t len) {
    int flags = 0;
    for (size_t i = 0; i < len; i++) {
        switch (s[i]) {
        case 'A': flags |= NOTIFY_ALL; break;
        case 'g': flags |= NOTIFY_GENERIC; break;
        case '$': flags |= NOTIFY_STRING; break;
        case 'l': flags |= NOTIFY_LIST; break;
        case 's': flags |= NOTIFY_SET; break;
        case 'h': flags |= NOTIFY_HASH; break;
        case 'z': flags |= NOTIFY_ZSET; break;
        case 'x': flags |= NOTIFY_EXPIRED; break;
        case 'e': flags |= NOTIFY_EVICTED; break;
        case 'K': flags |= NOTIFY_KEYSPACE; break;
        case 'E': flags |= NOTIFY_KEYEVENT; break;
        case 't': flags |= NOTIFY_STREAM; break;
        case 'm': flags |= NOTIFY_KEY_MISS; break;
        case 'd': flags |= NOTIFY_MODULE; break;
        case 'n': flags |= NOTIFY_NEW; break;
        default: return -1;
        }
    }
    return flags;
}

void notify_flags_format(int flags, char *buf) {
    char *p = buf;
    if ((flags & NOTIFY_ALL) == NOTIFY_ALL) {
        *p++ = 'A';
    } else {
        if (flags & NOTIFY_GENERIC) *p++ = 'g';
        if (flags & NOTIFY_STRING) *p++ = '$';
        if (flags & NOTIFY_LIST) *p++ = 'l';
        if (flags & NOTIFY_SET) *p++ = 's';
        if (flags & NOTIFY_HASH) *p++ = 'h';
        if (flags & NOTIFY_ZSET) *p++ = 'z';
        if (flags & NOTIFY_EXPIRED) *p++ = 'x';
        if (flags & NOTIFY_EVICTED) *p++ = 'e';
        if (flags & NOTIFY_STREAM) *p++ = 't';
        if (flags & NOTIFY_MODULE) *p++ = 'd';
        /* Redis 7.0 writes n here only: "KEAn" reads back as "AKE" */
        if (flags & NOTIFY_NEW) *p++ = 'n';
    }
    if (flags & NOTIFY_KEYSPACE) *p++ = 'K';
    if (flags & NOTIFY_KEYEVENT) *p++ = 'E';
    if (flags & NOTIFY_KEY_MISS) *p++ = 'm';
    *p = '\0';
}

/* ---- consumers ---- */

typedef struct consumer {
    notify_consumer_fn *fn;
    void *priv;
} consumer;

static consumer *consumers; /* main thread only */
static size_t nconsumers, consumers_cap;

void notify_register(notify_consumer_fn *fn, void *priv) {
    assert(fn);
    if (nconsumers == consumers_cap) {
        consumers_cap = consumers_cap ? consumers_cap * 2 : 4;
        consumers = xrealloc(consumers, consumers_cap * sizeof(consumer));
    }
    consumers[nconsumers++] = (consumer){fn, priv};
}

int notify_unregister(notify_consumer_fn *fn, void *priv) {
    for (size_t i = 0; i < nconsumers; i++) {
        if (consumers[i].fn != fn || consumers[i].priv != priv) continue;
        memmove(&consumers[i], &consumers[i + 1], (nconsumers - i - 1) * sizeof(consumer));
        nconsumers--;
        return 1;
    }
    return 0;
}

void notify_keyspace_event(int type, const char *event, const char *key, size_t keylen,
                           int dbid) {
    assert(event && (key || keylen == 0));
    for (size_t i = 0; i < nconsumers; i++)
        consumers[i].fn(consumers[i].priv, type, event, key, keylen, dbid);
}

/* ---- the pub/sub consumer ---- */

/* prefix + "<dbid>__:" + name, in buf when it fits, else allocated
 * (*heap set: the caller frees it). */
static char *channel_name(const char *prefix, int dbid, const char *name, size_t len,
                          char *buf, size_t cap, size_t *outlen, char **heap) {
    char head[48];
    int hl = snprintf(head, sizeof head, "%s%d__:", prefix, dbid);
    assert(hl > 0 && (size_t)hl < sizeof head);
    size_t total = (size_t)hl + len;
    char *p = buf;
    *heap = NULL;
    if (total > cap) p = *heap = xmalloc(total);
    memcpy(p, head, (size_t)hl);
    if (len) memcpy(p + hl, name, len);
    *outlen = total;
    return p;
}

void notify_pubsub_consumer(void *priv, int type, const char *event, const char *key,
                            size_t keylen, int dbid) {
    (void)priv;
    int flags = server.cfg.notify_keyspace_events;
    if (!(flags & type)) return;
    size_t evlen = strlen(event);
    char buf[256], *heap, *ch;
    size_t chlen;
    if (flags & NOTIFY_KEYSPACE) {
        ch = channel_name("__keyspace@", dbid, key, keylen, buf, sizeof buf, &chlen, &heap);
        pubsub_publish(ch, chlen, event, evlen);
        free(heap);
    }
    if (flags & NOTIFY_KEYEVENT) {
        ch = channel_name("__keyevent@", dbid, event, evlen, buf, sizeof buf, &chlen, &heap);
        pubsub_publish(ch, chlen, key, keylen);
        free(heap);
    }
}
