/* acl_log: ACL LOG, the refusals (command, key, channel, auth) kept
 * newest first, at most acllog-max-len of them. A refusal equal to a
 * recent one (same reason, context, object and user, within 60 s) counts
 * in that entry, which takes the new time and client and moves to the
 * front, as Redis 7.0's addACLLogEntry. Main thread only. */
#include "acl_int.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define GROUPING_MS 60000

typedef struct log_entry {
    long long count;
    int reason, ctx;
    char *object, *username;
    size_t objlen, ulen;
    int64_t ctime_ms;          /* wall clock */
    char *cinfo;               /* CLIENT LIST's line of the client */
    struct log_entry *next;
} log_entry;

static log_entry *head;        /* newest first */

static void entry_free(log_entry *e) {
    free(e->object);
    free(e->username);
    free(e->cinfo);
    free(e);
}

static char *client_info(const client *c) {
    vbuf b = {0};
    client_info_line(&b, c);
    if (b.len && b.data[b.len - 1] == '\n') b.len--;
    char *s = xstrndup(b.data, b.len);
    vbuf_free(&b);
    return s;
}

static int same(const log_entry *e, int reason, int ctx, const char *object, size_t objlen,
                const char *user, size_t ulen, int64_t now) {
    return e->reason == reason && e->ctx == ctx && now - e->ctime_ms <= GROUPING_MS &&
           e->objlen == objlen && !memcmp(e->object, object, objlen) && e->ulen == ulen &&
           !memcmp(e->username, user, ulen);
}

static void trim(void) {
    long long max = server.cfg.compat.acllog_max_len, n = 0;
    for (log_entry **pp = &head; *pp;) {
        if (++n > max) {
            log_entry *e = *pp;
            *pp = e->next;
            entry_free(e);
        } else {
            pp = &(*pp)->next;
        }
    }
}

void acl_log_add(client *c, int reason, int ctx, const char *object, size_t objlen,
                 const char *username, size_t ulen) {
    int64_t now = wall_ms();
    const client *who = server.current_client ? server.current_client : c;
    for (log_entry **pp = &head; *pp; pp = &(*pp)->next) {
        log_entry *e = *pp;
        if (!same(e, reason, ctx, object, objlen, username, ulen, now)) continue;
        e->count++;
        e->ctime_ms = now;
        free(e->cinfo);
        e->cinfo = client_info(who);
        *pp = e->next;
        e->next = head;
        head = e;
        return;
    }
    log_entry *e = xcalloc(1, sizeof *e);
    e->count = 1;
    e->reason = reason;
    e->ctx = ctx;
    e->object = xstrndup(object, objlen);
    e->objlen = objlen;
    e->username = xstrndup(username, ulen);
    e->ulen = ulen;
    e->ctime_ms = now;
    e->cinfo = client_info(who);
    e->next = head;
    head = e;
    trim();
}

void acl_log_reset(void) {
    while (head) {
        log_entry *e = head;
        head = e->next;
        entry_free(e);
    }
}

static const char *reason_name(int r) {
    switch (r) {
    case ACL_DENIED_CMD: return "command";
    case ACL_DENIED_KEY: return "key";
    case ACL_DENIED_CHANNEL: return "channel";
    default: return "auth";
    }
}

static const char *ctx_name(int ctx) {
    return ctx == ACL_CTX_MULTI ? "multi" : ctx == ACL_CTX_LUA ? "lua" : "toplevel";
}

/* ACL LOG [count]: the newest `count` entries (count < 0: all). */
void acl_log_reply(client *c, long long count) {
    long long n = 0;
    for (log_entry *e = head; e && (count < 0 || n < count); e = e->next) n++;
    reply_array(c, n);
    int64_t now = wall_ms();
    log_entry *e = head;
    for (long long i = 0; i < n; i++, e = e->next) {
        reply_map(c, 7);
        reply_bulk_str(c, "count");
        reply_int(c, e->count);
        reply_bulk_str(c, "reason");
        reply_bulk_str(c, reason_name(e->reason));
        reply_bulk_str(c, "context");
        reply_bulk_str(c, ctx_name(e->ctx));
        reply_bulk_str(c, "object");
        reply_bulk(c, e->object, e->objlen);
        reply_bulk_str(c, "username");
        reply_bulk(c, e->username, e->ulen);
        reply_bulk_str(c, "age-seconds");
        reply_double(c, (double)(now - e->ctime_ms) / 1000.0);
        reply_bulk_str(c, "client-info");
        reply_bulk_str(c, e->cinfo);
    }
}
