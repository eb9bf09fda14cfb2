/* reply_repr: a reply as one line of text, to compare whole nested
 * replies (stream entries, XREAD's streams) with one string: a bulk as its
 * bytes, "+status", "-error", ":integer", "nil" (a null bulk or array),
 * "[a,b]" for an array. */
#ifndef VERSO_REPLY_REPR_H
#define VERSO_REPLY_REPR_H

#include <hiredis/hiredis.h>
#include <stddef.h>

/* r's text into buf (cut at cap - 1 bytes); returns buf. */
const char *h_repr(const redisReply *r, char *buf, size_t cap);
/* Sends the command (hiredis format) and fails at file:line unless its
 * reply's text is want. */
void h_expect_repr(const char *file, int line, redisContext *c, const char *want,
                   const char *fmt, ...);
#define expect_repr(c, want, ...) h_expect_repr(__FILE__, __LINE__, c, want, __VA_ARGS__)
/* The same for the next reply of a command sent before (h_send). */
void h_next_repr(const char *file, int line, redisContext *c, const char *want);
#define next_repr(c, want) h_next_repr(__FILE__, __LINE__, c, want)

#endif
