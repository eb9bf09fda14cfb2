/* sbuf: a growable NUL-terminated text buffer for the differential tests'
 * canonical replies (test_coll_diff, test_stream_diff, test_txn_diff). */
#ifndef VERSO_TEST_SBUF_H
#define VERSO_TEST_SBUF_H

#include <stddef.h>

typedef struct sbuf { char *p; size_t n, cap; } sbuf;

/* Appends l bytes of s (the test fails when memory runs out). */
void sb_cat(sbuf *b, const char *s, size_t l);
void sb_str(sbuf *b, const char *s);
/* Readable bytes: printable ASCII as is, the rest (and '\') as \xNN. */
void sb_esc(sbuf *b, const char *s, size_t l);

#endif
