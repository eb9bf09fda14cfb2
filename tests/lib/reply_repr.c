/* reply_repr: replies as one line of text (see reply_repr.h). */
#include "reply_repr.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

typedef struct out {
    char *p;
    size_t len, cap;
} out;

static void put(out *o, const char *s, size_t n) {
    for (size_t i = 0; i < n && o->len + 1 < o->cap; i++) o->p[o->len++] = s[i];
    o->p[o->len] = '\0';
}

static void repr(out *o, const redisReply *r) {
    char num[32];
    switch (r->type) {
    case REDIS_REPLY_STRING: put(o, r->str, r->len); break;
    case REDIS_REPLY_STATUS: put(o, "+", 1); put(o, r->str, r->len); break;
    case REDIS_REPLY_ERROR: put(o, "-", 1); put(o, r->str, r->len); break;
    case REDIS_REPLY_INTEGER:
        put(o, num, (size_t)snprintf(num, sizeof num, ":%lld", r->integer));
        break;
    case REDIS_REPLY_NIL: put(o, "nil", 3); break;
    case REDIS_REPLY_ARRAY:
        put(o, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) put(o, ",", 1);
            repr(o, r->element[i]);
        }
        put(o, "]", 1);
        break;
    default: put(o, "?", 1); break;
    }
}

const char *h_repr(const redisReply *r, char *buf, size_t cap) {
    out o = {buf, 0, cap};
    buf[0] = '\0';
    repr(&o, r);
    return buf;
}

static void check_repr(const char *file, int line, redisReply *r, const char *want,
                       const char *what) {
    static char got[65536];
    h_repr(r, got, sizeof got);
    freeReplyObject(r);
    ck_assert_msg(strcmp(got, want) == 0, "%s:%d: %s:\n got  %s\n want %s", file, line, what, got,
                  want);
}

void h_expect_repr(const char *file, int line, redisContext *c, const char *want,
                   const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r != NULL, "%s:%d: %s: I/O error %s", file, line, fmt, c->errstr);
    check_repr(file, line, r, want, fmt);
}

void h_next_repr(const char *file, int line, redisContext *c, const char *want) {
    redisReply *r = h_next_reply(c);
    check_repr(file, line, r, want, "next reply");
}
