/* backlog: the replication backlog (see repl_int.h), a ring holding the
 * last repl-backlog-size bytes of the replication stream, from which a
 * reconnecting replica's partial resync (+CONTINUE) is served.
 *
 * The ring is allocated whole when the backlog is created (the first
 * replica's sync, or a replica for its sub-replicas) and freed by
 * backlog_free (repl-backlog-ttl without replicas). `end` is the stream
 * offset of the last byte held: it follows R.offset (callers append, then
 * advance R.offset by the same count). Main thread only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "fullsync_priv.h"
#include "repl_int.h"

static struct {
    char *buf;          /* NULL: no backlog */
    size_t size;        /* ring capacity */
    size_t idx;         /* where the next byte goes */
    size_t histlen;     /* bytes held (<= size) */
    long long end;      /* stream offset of the last byte held */
} B;

/* The stream's history changed under the backlog (a replica's full sync
 * set R.offset anew): what it holds describes no offset any more. */
static void resync_history(void) {
    if (B.end == R.offset) return;
    B.idx = 0;
    B.histlen = 0;
    B.end = R.offset;
}

int backlog_exists(void) { return B.buf != NULL; }

void backlog_create(void) {
    if (B.buf) {
        resync_history();
        return;
    }
    long long size = server.cfg.repl_backlog_size;
    assert(size > 0);
    B.size = (size_t)size;
    B.buf = xmalloc(B.size);
    B.idx = 0;
    B.histlen = 0;
    B.end = R.offset;
    primary_consumer_sync();
}

void backlog_free(void) {
    free(B.buf);
    B.buf = NULL;
    B.size = B.idx = B.histlen = 0;
    primary_consumer_sync();
}

void backlog_append(const char *p, size_t n) {
    if (!B.buf) return;
    resync_history();
    B.end += (long long)n;
    if (n >= B.size) { /* only the last size bytes stay */
        memcpy(B.buf, p + (n - B.size), B.size);
        B.idx = 0;
        B.histlen = B.size;
        return;
    }
    size_t first = B.size - B.idx < n ? B.size - B.idx : n;
    memcpy(B.buf + B.idx, p, first);
    if (first < n) memcpy(B.buf, p + first, n - first);
    B.idx = (B.idx + n) % B.size;
    B.histlen = B.histlen + n > B.size ? B.size : B.histlen + n;
}

/* Stream offset of the first byte held. */
static long long first_offset(void) { return B.end - (long long)B.histlen + 1; }

int backlog_covers(long long offset) {
    if (!B.buf) return 0;
    resync_history();
    return offset >= first_offset() && offset <= B.end + 1;
}

void backlog_copy_from(long long offset, vbuf *b) {
    assert(backlog_covers(offset));
    size_t n = (size_t)(B.end + 1 - offset);
    /* the byte at `offset` sits n bytes before idx in the ring */
    size_t start = (B.idx + B.size - n) % B.size;
    size_t first = B.size - start < n ? B.size - start : n;
    vbuf_append(b, B.buf + start, first);
    if (first < n) vbuf_append(b, B.buf, n - first);
}

void backlog_resize(long long size) {
    assert(size > 0);
    if (!B.buf) return; /* created later with the configured size */
    size_t keep = B.histlen < (size_t)size ? B.histlen : (size_t)size;
    vbuf v;
    vbuf_init(&v);
    if (keep) backlog_copy_from(B.end + 1 - (long long)keep, &v);
    free(B.buf);
    B.size = (size_t)size;
    B.buf = xmalloc(B.size);
    if (keep) memcpy(B.buf, v.data, keep);
    B.idx = keep % B.size;
    B.histlen = keep;
    vbuf_free(&v);
}

void backlog_info(vbuf *b) {
    vbuf_appendf(b,
                 "repl_backlog_active:%d\r\nrepl_backlog_size:%lld\r\n"
                 "repl_backlog_first_byte_offset:%lld\r\nrepl_backlog_histlen:%zu\r\n",
                 B.buf != NULL, B.buf ? (long long)B.size : server.cfg.repl_backlog_size,
                 B.buf ? first_offset() : 0, B.histlen);
}
