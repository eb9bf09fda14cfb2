/* vbuf: a growable byte buffer (see vbuf.h). */
#include "vbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void vbuf_init(vbuf *b) { b->data = NULL; b->len = 0; b->cap = 0; }

void vbuf_free(vbuf *b) { free(b->data); vbuf_init(b); }

void vbuf_reserve(vbuf *b, size_t extra) {
    if (b->cap - b->len >= extra) return;
    size_t want = b->len + extra;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < want) cap = cap < (1u << 20) ? cap * 2 : cap + cap / 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void vbuf_reserve_exact(vbuf *b, size_t extra) {
    if (b->cap - b->len >= extra) return;
    b->data = xrealloc(b->data, b->len + extra);
    b->cap = b->len + extra;
}

void vbuf_append(vbuf *b, const void *p, size_t n) {
    if (n == 0) return;
    vbuf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void vbuf_append_str(vbuf *b, const char *s) { vbuf_append(b, s, strlen(s)); }

void vbuf_appendf(vbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0) return;
    vbuf_reserve(b, (size_t)n + 1); /* vsnprintf writes a NUL after the text */
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void vbuf_consume(vbuf *b, size_t n) {
    if (n >= b->len) { b->len = 0; return; }
    memmove(b->data, b->data + n, b->len - n);
    b->len -= n;
}

void vbuf_reset(vbuf *b) { b->len = 0; }

void vbuf_shrink(vbuf *b, size_t keep) {
    if (b->len == 0 && b->cap > keep) {
        free(b->data);
        vbuf_init(b);
    }
}

void vbuf_append_repr(vbuf *b, const char *p, size_t n) {
    vbuf_reserve(b, QUOTE_MAX(n));
    b->len += quote_into(b->data + b->len, p, n);
}
