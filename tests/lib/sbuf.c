/* sbuf: the differential tests' text buffer (see sbuf.h). */
#include "sbuf.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_cat(sbuf *b, const char *s, size_t l)
{
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n] = '\0';
}

void sb_str(sbuf *b, const char *s) { sb_cat(b, s, strlen(s)); }

void sb_esc(sbuf *b, const char *s, size_t l)
{
    for (size_t i = 0; i < l; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 32 && ch < 127 && ch != '\\') {
            sb_cat(b, &s[i], 1);
        } else {
            char t[8];
            snprintf(t, sizeof t, "\\x%02x", ch);
            sb_str(b, t);
        }
    }
}
