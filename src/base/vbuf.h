/* vbuf: a growable byte buffer.
 *
 * Used for client query buffers, reply buffers and encoder output. A vbuf is
 * owned by one thread at a time; handing one to another thread goes through a
 * queue whose owner documents the hand-over. */
#ifndef VERSO_VBUF_H
#define VERSO_VBUF_H

#include <stddef.h>

typedef struct vbuf {
    char *data;
    size_t len;
    size_t cap;
} vbuf;

void vbuf_init(vbuf *b);
void vbuf_free(vbuf *b);
/* Make room for `extra` more bytes; aborts on out-of-memory like every
 * allocation in verso (see util.h: xmalloc). */
void vbuf_reserve(vbuf *b, size_t extra);
/* Same, but grows to exactly len + extra (for a payload of known size). */
void vbuf_reserve_exact(vbuf *b, size_t extra);
void vbuf_append(vbuf *b, const void *p, size_t n);
void vbuf_append_str(vbuf *b, const char *s);
/* printf into the buffer, whatever the length of the result. */
void vbuf_appendf(vbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* p[0..n) quoted as Redis's sdscatrepr (util.h quote_into). */
void vbuf_append_repr(vbuf *b, const char *p, size_t n);
/* Drop the first n bytes (memmove of the rest). */
void vbuf_consume(vbuf *b, size_t n);
void vbuf_reset(vbuf *b);
/* Release memory beyond `keep` bytes of capacity when the buffer is empty. */
void vbuf_shrink(vbuf *b, size_t keep);

#endif
