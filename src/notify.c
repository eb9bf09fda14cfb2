/* notify: keyspace notifications (see notify.h). */
#include "notify.h"

#include <string.h>

#include "server.h"

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
    }
    if (flags & NOTIFY_KEYSPACE) *p++ = 'K';
    if (flags & NOTIFY_KEYEVENT) *p++ = 'E';
    if (flags & NOTIFY_KEY_MISS) *p++ = 'm';
    if (flags & NOTIFY_NEW) *p++ = 'n';
    *p = '\0';
}

/* Scaffolding: the notifications helper fills this in. */
void notify_keyspace_event(int type, const char *event, const char *key, size_t keylen,
                           int dbid) {
    (void)type, (void)event, (void)key, (void)keylen, (void)dbid;
}
