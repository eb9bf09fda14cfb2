/* stream_text: streams as text and a generator of streams (see
 * stream_text.h). */
#include "stream_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "vbuf.h"

static int is_str(const redisReply *r, const char *s) {
    return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS) &&
           r->len == strlen(s) && memcmp(r->str, s, r->len) == 0;
}

/* skip: the element index to leave out of each array below (a PEL entry's
 * delivery time), -1 none. */
static void render(vbuf *b, const redisReply *r, int mode, int skip) {
    switch (r->type) {
    case REDIS_REPLY_STRING: case REDIS_REPLY_STATUS: case REDIS_REPLY_ERROR:
        vbuf_appendf(b, "\"%.*s\"", (int)r->len, r->str);
        return;
    case REDIS_REPLY_INTEGER:
        vbuf_appendf(b, "%lld", r->integer);
        return;
    case REDIS_REPLY_NIL:
        vbuf_append_str(b, "nil");
        return;
    case REDIS_REPLY_ARRAY:
        break;
    default:
        vbuf_appendf(b, "?%d", r->type);
        return;
    }
    vbuf_append_str(b, "[");
    for (size_t i = 0; i < r->elements; i++) {
        if ((int)i == skip) continue;
        const redisReply *e = r->element[i];
        const redisReply *prev = i ? r->element[i - 1] : NULL;
        if ((mode != STREAM_TEXT_ALL && is_str(prev, "seen-time")) ||
            (mode == STREAM_TEXT_REPLICA && (is_str(prev, "entries-read") || is_str(prev, "lag"))) ||
            (mode == STREAM_TEXT_REBUILT &&
             (is_str(prev, "radix-tree-keys") || is_str(prev, "radix-tree-nodes")))) {
            vbuf_append_str(b, "- ");
            continue;
        }
        /* a group's "pel": [id, consumer, time, count]; a consumer's
         * "pending": [id, time, count] */
        int sub = -1;
        if (mode == STREAM_TEXT_NO_TIMES && is_str(prev, "pel")) sub = 2;
        if (mode == STREAM_TEXT_NO_TIMES && is_str(prev, "pending")) sub = 1;
        if (sub >= 0 && e->type == REDIS_REPLY_ARRAY) {
            vbuf_append_str(b, "[");
            for (size_t k = 0; k < e->elements; k++) {
                render(b, e->element[k], mode, sub);
                vbuf_append_str(b, " ");
            }
            vbuf_append_str(b, "] ");
            continue;
        }
        render(b, e, mode, -1);
        vbuf_append_str(b, i + 1 < r->elements && (i % 2) ? "\n" : " ");
    }
    vbuf_append_str(b, "]");
}

char *stream_text_of(const redisReply *r, int mode) {
    vbuf b;
    vbuf_init(&b);
    render(&b, r, mode, -1);
    vbuf_append(&b, "", 1);
    return b.data;
}

char *stream_text(redisContext *c, const char *key, int mode) {
    redisReply *t = cmd(c, "TYPE %s", key);
    ck_assert_msg(is_str(t, "stream"), "%s: type %s", key, t->str);
    freeReplyObject(t);
    redisReply *r = cmd(c, "XINFO STREAM %s FULL COUNT 0", key);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY,
                  "XINFO STREAM %s FULL: %s", key, r->str ? r->str : "?");
    vbuf b;
    vbuf_init(&b);
    render(&b, r, mode, -1);
    freeReplyObject(r);
    vbuf_append(&b, "", 1);
    return b.data;
}

/* A command that must not fail. */
static void ok(redisContext *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r && r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r ? r->str : c->errstr);
    freeReplyObject(r);
}

int stream_populate(redisContext *c, const char *tag, int n) {
    /* 0: a big stream, fields shared and not, int and string values */
    for (int i = 0; i < n; i++) {
        if (i % 5 == 0) ok(c, "XADD %s:st:0 * kind other n %d extra x%d", tag, i, i);
        else ok(c, "XADD %s:st:0 * f %d g value-%d", tag, i, i * 7);
    }
    redisReply *r = cmd(c, "XRANGE %s:st:0 - + COUNT 60", tag);
    for (size_t i = 0; i + 1 < r->elements; i += 7)
        ok(c, "XDEL %s:st:0 %s", tag, r->element[i]->element[0]->str);
    freeReplyObject(r);
    ok(c, "XGROUP CREATE %s:st:0 g1 0", tag);
    ok(c, "XGROUP CREATE %s:st:0 g2 $", tag);
    ok(c, "XGROUP CREATE %s:st:0 g3 0 ENTRIESREAD 2", tag);
    ok(c, "XGROUP CREATECONSUMER %s:st:0 g1 idle", tag);
    ok(c, "XREADGROUP GROUP g1 alice COUNT %d STREAMS %s:st:0 >", n / 5 + 1, tag);
    ok(c, "XREADGROUP GROUP g1 bob COUNT %d STREAMS %s:st:0 >", n / 4 + 1, tag);
    ok(c, "XREADGROUP GROUP g3 carol COUNT 7 STREAMS %s:st:0 >", tag);
    r = cmd(c, "XRANGE %s:st:0 - + COUNT 80", tag);
    for (size_t i = 0; i < r->elements; i += 3)
        ok(c, "XACK %s:st:0 g1 %s", tag, r->element[i]->element[0]->str);
    for (size_t i = 1; i < r->elements; i += 4)
        ok(c, "XCLAIM %s:st:0 g1 carol 0 %s", tag, r->element[i]->element[0]->str);
    freeReplyObject(r);
    /* 1: trimmed as it grows (exact and approximate), small nodes */
    for (int i = 0; i < n / 2; i++)
        ok(c, "XADD %s:st:1 MAXLEN %s %d * a %d", tag, i % 2 ? "~" : "=", n / 8 + 1, i);
    ok(c, "XTRIM %s:st:1 MINID 0", tag);
    /* 2: explicit ids, XSETID beyond, a group past the end */
    ok(c, "XADD %s:st:2 5-1 a 1", tag);
    ok(c, "XADD %s:st:2 5-9 a 2 b 3", tag);
    ok(c, "XADD %s:st:2 18446744073709551614-0 big id", tag);
    ok(c, "XSETID %s:st:2 18446744073709551614-7 ENTRIESADDED 40 MAXDELETEDID 5-3", tag);
    ok(c, "XGROUP CREATE %s:st:2 late $ ENTRIESREAD 40", tag);
    /* 3: empty, with a group (MKSTREAM); 4: every entry deleted */
    ok(c, "XGROUP CREATE %s:st:3 g $ MKSTREAM", tag);
    ok(c, "XADD %s:st:4 1-1 a b", tag);
    ok(c, "XADD %s:st:4 2-1 a b", tag);
    ok(c, "XGROUP CREATE %s:st:4 g 0", tag);
    ok(c, "XREADGROUP GROUP g c STREAMS %s:st:4 >", tag);
    ok(c, "XACK %s:st:4 g 1-1", tag);
    ok(c, "XDEL %s:st:4 1-1 2-1", tag);
    return 5;
}

void stream_traffic(redisContext *c, const char *tag, int rounds) {
    for (int k = 0; k < rounds; k++) {
        ok(c, "XADD %s:st:0 * f %d g t%d", tag, k, k);
        ok(c, "XADD %s:st:0 MAXLEN ~ 100000 * f %d", tag, k);
        ok(c, "XADD %s:st:1 MAXLEN 30 * a %d", tag, k);
        ok(c, "XREADGROUP GROUP g1 alice COUNT 3 STREAMS %s:st:0 >", tag);
        ok(c, "XREADGROUP GROUP g1 dave COUNT 2 STREAMS %s:st:0 >", tag);
        ok(c, "XREADGROUP GROUP g1 alice COUNT 2 STREAMS %s:st:0 0", tag);
        ok(c, "XREADGROUP GROUP g3 carol NOACK COUNT 2 STREAMS %s:st:0 >", tag);
        redisReply *p = cmd(c, "XPENDING %s:st:0 g1 - + 6", tag);
        for (size_t i = 0; i < p->elements; i++) {
            const char *id = p->element[i]->element[0]->str;
            if (i % 3 == 0) ok(c, "XACK %s:st:0 g1 %s", tag, id);
            else if (i % 3 == 1) ok(c, "XCLAIM %s:st:0 g1 bob 0 %s RETRYCOUNT 9", tag, id);
            else ok(c, "XCLAIM %s:st:0 g1 erin 0 %s JUSTID", tag, id);
        }
        freeReplyObject(p);
        ok(c, "XAUTOCLAIM %s:st:0 g1 frank 0 0-0 COUNT 3", tag);
        ok(c, "XAUTOCLAIM %s:st:0 g1 frank 0 0-0 COUNT 2 JUSTID", tag);
        redisReply *r = cmd(c, "XRANGE %s:st:0 - + COUNT 2", tag);
        if (r->elements) ok(c, "XDEL %s:st:0 %s", tag, r->element[0]->element[0]->str);
        freeReplyObject(r);
        ok(c, "XGROUP CREATECONSUMER %s:st:0 g1 c%d", tag, k);
        ok(c, "XGROUP DELCONSUMER %s:st:0 g1 c%d", tag, k - 1);
        ok(c, "XGROUP CREATE %s:st:0 tmp%d $", tag, k);
        if (k > 0) ok(c, "XGROUP DESTROY %s:st:0 tmp%d", tag, k - 1);
        ok(c, "XGROUP SETID %s:st:2 late 5-1 ENTRIESREAD 1", tag);
        ok(c, "XTRIM %s:st:1 MAXLEN ~ 10", tag);
        ok(c, "XADD %s:st:3 * new %d", tag, k);
        ok(c, "XREADGROUP GROUP g c STREAMS %s:st:3 >", tag);
        if (k % 3 == 2) {
            ok(c, "DEL %s:st:4", tag);
            ok(c, "XGROUP CREATE %s:st:4 g $ MKSTREAM ENTRIESREAD 0", tag);
            ok(c, "XADD %s:st:4 * again %d", tag, k);
        }
    }
    ok(c, "XSETID %s:st:1 18446744073709551615-0", tag);
}
