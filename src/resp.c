/* resp: the request parser and the RESP2/RESP3 reply encoder (see resp.h).
 *
 * The parser follows Redis 7.0's processMultibulkBuffer and
 * processInlineBuffer (networking.c) rule for rule, error texts included,
 * and its inline tokenizer follows sdssplitargs (sds.c). Redis quirks kept on
 * purpose, so that a client sees the same thing from both servers:
 *  - a header line ends at its first '\r' and the byte after it is skipped
 *    unread; so are the two bytes after a bulk's payload;
 *  - Redis finds line ends with strchr() on its NUL-terminated query buffer,
 *    so a NUL before the line end hides it: the parser waits for more bytes
 *    until the 64 KiB limit turns the wait into an error;
 *  - inline: a line ends at '\n' (a '\r' before it is dropped), empty
 *    arguments ("" or '') are kept, blanks are C isspace() but only
 *    ' ', '\t', '\r', '\n' end an unquoted word.
 *
 * Incremental state lives in resp_req: pos is how far the command has been
 * parsed (always at a line or bulk boundary), bulklen the announced length of
 * the bulk whose header is already behind pos. A resumed call never looks at
 * bytes before pos again, so a 512 MB bulk arriving in 16 KB reads costs one
 * length comparison per read. Only a header line or an inline line that is
 * not yet terminated is searched again (bounded by max_inline, as in Redis).
 */
#include "resp.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Argument arrays or inline buffers grown past these (by a huge command)
 * are freed on reset instead of being kept for the client's lifetime. */
#define RESP_KEEP_ARGS 1024
#define RESP_KEEP_INLINE (16 * 1024)

static const char ERR_MBULK_LEN[] = "Protocol error: invalid multibulk length";
static const char ERR_BULK_LEN[] = "Protocol error: invalid bulk length";
static const char ERR_UNAUTH_MBULK[] =
    "Protocol error: unauthenticated multibulk length";
static const char ERR_UNAUTH_BULK[] = "Protocol error: unauthenticated bulk length";
static const char ERR_MBULK_STR[] =
    "Protocol error: too big mbulk count string";
static const char ERR_BULK_STR[] = "Protocol error: too big bulk count string";
static const char ERR_INLINE_BIG[] = "Protocol error: too big inline request";
static const char ERR_QUOTES[] =
    "Protocol error: unbalanced quotes in request";

/* ---- request state ---- */

void resp_req_init(resp_req *r) {
    memset(r, 0, sizeof *r);
    r->bulklen = -1;
}

void resp_req_free(resp_req *r) {
    free(r->argoff);
    free(r->arglen);
    free(r->inline_buf);
    resp_req_init(r);
}

void resp_req_reset(resp_req *r) {
    r->kind = 0;
    r->nargs = 0;
    r->bulklen = -1;
    r->pos = 0;
    r->argc = 0;
    if (r->argcap > RESP_KEEP_ARGS) {
        free(r->argoff);
        free(r->arglen);
        r->argoff = r->arglen = NULL;
        r->argcap = 0;
    }
    if (r->inline_cap > RESP_KEEP_INLINE) {
        free(r->inline_buf);
        r->inline_buf = NULL;
        r->inline_cap = 0;
    }
}

const char *resp_arg(const resp_req *r, const char *buf, int i) {
    assert(i >= 0 && i < r->argc);
    return (r->kind == 'i' ? r->inline_buf : buf) + r->argoff[i];
}

/* Doubles the argument arrays, but never past `most` entries: a client that
 * announces a million arguments gets memory as they arrive, not up front
 * (as Redis 7.0 grows c->argv). */
static void grow_args(resp_req *r, long long most) {
    long long cap = r->argcap ? (long long)r->argcap * 2 : 8;
    if (cap > most) cap = most;
    assert(cap > r->argcap);
    r->argoff = xrealloc(r->argoff, (size_t)cap * sizeof *r->argoff);
    r->arglen = xrealloc(r->arglen, (size_t)cap * sizeof *r->arglen);
    r->argcap = (int)cap;
}

static void push_arg(resp_req *r, size_t off, size_t len, long long most) {
    if (r->argc == r->argcap) grow_args(r, most);
    r->argoff[r->argc] = off;
    r->arglen[r->argc] = len;
    r->argc++;
}

static int fail(const char *msg, const char **err) {
    *err = msg;
    return RESP_ERROR;
}

/* First `c` in p[0..n), or NULL when there is none or a NUL comes first:
 * what strchr() on Redis's query buffer finds. */
static const char *line_end(const char *p, size_t n, char c) {
    const char *e = memchr(p, c, n);
    if (e && memchr(p, '\0', (size_t)(e - p))) return NULL;
    return e;
}

/* ---- multibulk ---- */

/* "*<n>\r\n" at buf[0]. Sets pos past it and nargs (0 for n <= 0). */
static int mbulk_header(resp_req *r, const char *buf, size_t len,
                        const resp_limits *lim, const char **err) {
    const char *cr = line_end(buf, len, '\r');
    if (!cr) return len > lim->max_inline ? fail(ERR_MBULK_STR, err) : RESP_MORE;
    size_t n = (size_t)(cr - buf);
    if (n + 2 > len) return RESP_MORE;    /* the byte after '\r' is missing */
    long long count;
    if (!str_to_ll(buf + 1, n - 1, &count) || count > lim->max_multibulk ||
        count > INT_MAX)
        return fail(ERR_MBULK_LEN, err);
    if (count > RESP_UNAUTH_MAX_ARGS && lim->unauthenticated)
        return fail(ERR_UNAUTH_MBULK, err);
    r->pos = n + 2;
    r->nargs = count > 0 ? count : 0;
    return RESP_DONE;
}

/* "$<len>\r\n" at buf[pos]. Sets bulklen and moves pos past it. */
static int bulk_header(resp_req *r, const char *buf, size_t len,
                       const resp_limits *lim, const char **err) {
    const char *p = buf + r->pos;
    size_t avail = len - r->pos;
    const char *cr = line_end(p, avail, '\r');
    if (!cr) return avail > lim->max_inline ? fail(ERR_BULK_STR, err) : RESP_MORE;
    size_t n = (size_t)(cr - p);
    if (n + 2 > avail) return RESP_MORE;
    if (p[0] != '$') {
        /* Redis's addReplyErrorFormat turns '\r' and '\n' into spaces. */
        char got = (p[0] == '\r' || p[0] == '\n') ? ' ' : p[0];
        snprintf(r->errbuf, sizeof r->errbuf,
                 "Protocol error: expected '$', got '%c'", got);
        return fail(r->errbuf, err);
    }
    long long blen;
    if (!str_to_ll(p + 1, n - 1, &blen) || blen < 0 || blen > lim->max_bulk_len)
        return fail(ERR_BULK_LEN, err);
    if (blen > RESP_UNAUTH_MAX_BULK && lim->unauthenticated)
        return fail(ERR_UNAUTH_BULK, err);
    r->pos += n + 2;
    r->bulklen = blen;
    return RESP_DONE;
}

static int parse_multibulk(resp_req *r, const char *buf, size_t len,
                           const resp_limits *lim, const char **err) {
    if (r->pos == 0) {                    /* header not parsed yet */
        int rc = mbulk_header(r, buf, len, lim, err);
        if (rc != RESP_DONE || r->nargs == 0) return rc;
    }
    while (r->argc < r->nargs) {
        if (r->bulklen < 0) {
            int rc = bulk_header(r, buf, len, lim, err);
            if (rc != RESP_DONE) return rc;
        }
        size_t need = (size_t)r->bulklen + 2;
        if (len - r->pos < need) return RESP_MORE;
        push_arg(r, r->pos, (size_t)r->bulklen, r->nargs);
        r->pos += need;
        r->bulklen = -1;
    }
    return RESP_DONE;
}

/* ---- inline (sdssplitargs rules, util.h's split_word) ---- */

/* Splits the line s[0..n) into r's arguments, copied into inline_buf. */
static int split_line(resp_req *r, const char *s, size_t n) {
    size_t i = 0, out = 0;
    if (r->inline_cap < n) {
        free(r->inline_buf);
        r->inline_buf = xmalloc(n);
        r->inline_cap = n;
    }
    for (;;) {
        size_t start = out;
        int rc = split_word(s, n, &i, r->inline_buf, &out);
        if (rc <= 0) return rc;
        push_arg(r, start, out - start, INT_MAX);
    }
}

static int parse_inline(resp_req *r, const char *buf, size_t len,
                        const resp_limits *lim, const char **err) {
    const char *nl = line_end(buf, len, '\n');
    if (!nl)
        return len > lim->max_inline ? fail(ERR_INLINE_BIG, err) : RESP_MORE;
    size_t n = (size_t)(nl - buf);
    if (n > 0 && buf[n - 1] == '\r') n--;
    r->argc = 0;
    if (split_line(r, buf, n) != 0) return fail(ERR_QUOTES, err);
    r->pos = (size_t)(nl - buf) + 1;
    return RESP_DONE;
}

int resp_parse(resp_req *r, const char *buf, size_t len,
               const resp_limits *lim, const char **err) {
    assert(len >= r->pos);
    if (r->kind == 0) {
        if (len == 0) return RESP_MORE;
        r->kind = buf[0] == '*' ? '*' : 'i';
    }
    if (r->kind == '*') return parse_multibulk(r, buf, len, lim, err);
    return parse_inline(r, buf, len, lim, err);
}

/* ---- reply encoding ---- */

/* prefix, s[0..n), "\r\n" */
static void add_line(vbuf *b, char prefix, const char *s, size_t n) {
    vbuf_reserve(b, n + 3);
    char *p = b->data + b->len;
    *p++ = prefix;
    memcpy(p, s, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    b->len = (size_t)(p - b->data);
}

/* prefix, decimal v, "\r\n" */
static void add_ll_line(vbuf *b, char prefix, long long v) {
    vbuf_reserve(b, 32);
    char *p = b->data + b->len;
    *p++ = prefix;
    p += ll_to_str(p, v);
    *p++ = '\r';
    *p++ = '\n';
    b->len = (size_t)(p - b->data);
}

void resp_add_status(vbuf *b, const char *s) { add_line(b, '+', s, strlen(s)); }

static void add_error_len(vbuf *b, const char *s, size_t n) {
    size_t start = b->len + 1;
    add_line(b, '-', s, n);
    for (size_t i = 0; i < n; i++) {
        char *c = b->data + start + i;
        if (*c == '\r' || *c == '\n') *c = ' ';
    }
}

void resp_add_error(vbuf *b, const char *s) { add_error_len(b, s, strlen(s)); }

/* As Redis's addReplyErrorFormat: format, trim '\r'/'\n' at both ends
 * (sdstrim), then the ones left inside become spaces. */
void resp_add_errorf(vbuf *b, const char *fmt, ...) {
    char small[256];
    char *s = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) n = 0;
    if ((size_t)n >= sizeof small) {
        s = xmalloc((size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(s, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    size_t lo = 0, hi = (size_t)n;
    while (lo < hi && (s[lo] == '\r' || s[lo] == '\n')) lo++;
    while (hi > lo && (s[hi - 1] == '\r' || s[hi - 1] == '\n')) hi--;
    add_error_len(b, s + lo, hi - lo);
    if (s != small) free(s);
}

void resp_add_int(vbuf *b, long long v) { add_ll_line(b, ':', v); }

void resp_add_bulk(vbuf *b, const char *p, size_t len) {
    add_ll_line(b, '$', (long long)len);
    vbuf_reserve(b, len + 2);
    if (len) memcpy(b->data + b->len, p, len);
    memcpy(b->data + b->len + len, "\r\n", 2);
    b->len += len + 2;
}

void resp_add_bulk_str(vbuf *b, const char *s) { resp_add_bulk(b, s, strlen(s)); }

void resp_add_bulk_ll(vbuf *b, long long v) {
    char tmp[32];
    size_t n = ll_to_str(tmp, v);
    resp_add_bulk(b, tmp, n);
}

void resp_add_nil(vbuf *b) { vbuf_append(b, "$-1\r\n", 5); }

void resp_add_nil_array(vbuf *b) { vbuf_append(b, "*-1\r\n", 5); }

void resp_add_array(vbuf *b, long long n) { add_ll_line(b, '*', n); }

void resp_add_map(vbuf *b, long long n) { add_ll_line(b, '%', n); }
void resp_add_set(vbuf *b, long long n) { add_ll_line(b, '~', n); }
void resp_add_push(vbuf *b, long long n) { add_ll_line(b, '>', n); }
void resp_add_attribute(vbuf *b, long long n) { add_ll_line(b, '|', n); }
void resp_add_null(vbuf *b) { vbuf_append(b, "_\r\n", 3); }
void resp_add_bool(vbuf *b, int v) { vbuf_append(b, v ? "#t\r\n" : "#f\r\n", 4); }

void resp_add_double(vbuf *b, double d) {
    char tmp[64];
    if (isinf(d)) {
        add_line(b, ',', d > 0 ? "inf" : "-inf", d > 0 ? 3 : 4);
    } else { /* NaN too: "nan" or "-nan", as Redis's snprintf prints it */
        int n = snprintf(tmp, sizeof tmp, "%.17g", d);
        add_line(b, ',', tmp, (size_t)n);
    }
}

void resp_add_bignum(vbuf *b, const char *p, size_t len) { add_line(b, '(', p, len); }

void resp_add_verbatim(vbuf *b, const char *p, size_t len, const char *ext) {
    assert(strlen(ext) == 3);
    add_ll_line(b, '=', (long long)len + 4);
    vbuf_append(b, ext, 3);
    vbuf_append(b, ":", 1);
    if (len) vbuf_append(b, p, len);
    vbuf_append(b, "\r\n", 2);
}
