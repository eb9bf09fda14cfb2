/* resp: request parsing and reply encoding (RESP2 and RESP3).
 *
 * The parser reads one command at a time from a client's query buffer, in
 * either form Redis accepts: multibulk (*<n>\r\n$<len>\r\n<bytes>\r\n...) or
 * inline (words separated by spaces, with "..." and '...' quoting as
 * Redis's sdssplitargs). It is incremental: when a command is not complete
 * it keeps what it learned (position, arguments so far) and the next call,
 * with the same buffer start and more bytes, carries on. Arguments are
 * offsets into the buffer, so no byte is copied and the buffer may be
 * reallocated between calls (but not consumed) while a command is partial.
 *
 * The encoder appends RESP2 and RESP3 replies to a vbuf. All functions are main thread
 * only in the server, but hold no global state. */
#ifndef VERSO_RESP_H
#define VERSO_RESP_H

#include <stddef.h>
#include <stdint.h>

#include "vbuf.h"

typedef struct resp_limits {
    long long max_bulk_len;      /* proto-max-bulk-len */
    long long max_multibulk;     /* INT_MAX (net.c), as in Redis 7.0 */
    size_t max_inline;           /* 64 KiB in Redis (PROTO_INLINE_MAX_SIZE) */
    int unauthenticated;         /* the client has yet to AUTH: at most
                                    RESP_UNAUTH_MAX_ARGS arguments of at most
                                    RESP_UNAUTH_MAX_BULK bytes, as Redis 7 */
} resp_limits;

#define RESP_UNAUTH_MAX_ARGS 10
#define RESP_UNAUTH_MAX_BULK 16384

typedef struct resp_req {
    /* main thread only (one parser per client) */
    int kind;            /* 0: not started, '*': multibulk, 'i': inline */
    long long nargs;     /* multibulk: count announced */
    long long bulklen;   /* multibulk: length of the bulk being read, -1 none */
    size_t pos;          /* bytes of this command consumed by the parser */
    int argc;
    int argcap;
    size_t *argoff;      /* argument i: buf + argoff[i], arglen[i] bytes */
    size_t *arglen;
    char *inline_buf;    /* inline form: every argument lives here */
    size_t inline_cap;
    char errbuf[48];     /* formatted error text that *err may point to */
} resp_req;

enum {
    RESP_DONE = 0,  /* a whole command: argc/argoff/arglen; it took pos bytes */
    RESP_MORE = 1,  /* incomplete: call again with more bytes */
    RESP_ERROR = 2, /* protocol error: *err is Redis's text (no "-ERR ") */
};

void resp_req_init(resp_req *r);
void resp_req_free(resp_req *r);
/* Forget the current command (after RESP_DONE, once the caller has consumed
 * r->pos bytes, or after an error). */
void resp_req_reset(resp_req *r);
/* Parse from buf[0..len). On RESP_DONE, argument i is at
 * resp_arg(r, buf, i) with r->arglen[i] bytes (inline arguments are
 * copied to r->inline_buf, since quoting changes their bytes). An empty
 * inline line, "*0" and "*-1" give RESP_DONE with argc == 0 (the caller
 * skips it). *err stays valid until the next call on r. Error texts are
 * Redis 7's:
 * "Protocol error: invalid multibulk length", "Protocol error: invalid bulk
 * length", "Protocol error: expected '$', got 'x'", "Protocol error: too big
 * inline request", "Protocol error: too big mbulk count string",
 * "Protocol error: too big bulk count string", "Protocol error: unbalanced
 * quotes in request". */
int resp_parse(resp_req *r, const char *buf, size_t len,
               const resp_limits *lim, const char **err);
const char *resp_arg(const resp_req *r, const char *buf, int i);

/* ---- reply encoding ---- */
void resp_add_status(vbuf *b, const char *s);            /* +s\r\n */
/* -s\r\n; s is the whole error with its code ("ERR ...", "WRONGTYPE ...");
 * newlines in s are replaced by spaces, as Redis does. */
void resp_add_error(vbuf *b, const char *s);
void resp_add_errorf(vbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void resp_add_int(vbuf *b, long long v);                  /* :v\r\n */
void resp_add_bulk(vbuf *b, const char *p, size_t len);   /* $len\r\n...\r\n */
void resp_add_bulk_str(vbuf *b, const char *s);
void resp_add_bulk_ll(vbuf *b, long long v);
void resp_add_nil(vbuf *b);                               /* $-1\r\n */
void resp_add_nil_array(vbuf *b);                         /* *-1\r\n */
void resp_add_array(vbuf *b, long long n);                /* *n\r\n */
/* RESP3 types (HELLO 3). The client-level reply_* helpers (cmd.h) choose
 * between these and their RESP2 forms; these always write the RESP3 one. */
void resp_add_map(vbuf *b, long long n);                  /* %n\r\n: n pairs */
void resp_add_set(vbuf *b, long long n);                  /* ~n\r\n */
void resp_add_push(vbuf *b, long long n);                 /* >n\r\n */
void resp_add_attribute(vbuf *b, long long n);            /* |n\r\n: n pairs, then the reply */
void resp_add_null(vbuf *b);                              /* _\r\n */
void resp_add_bool(vbuf *b, int v);                       /* #t / #f */
/* ,<double>\r\n as Redis 7.0's addReplyDouble: inf, -inf, else %.17g (nan, -nan) */
void resp_add_double(vbuf *b, double d);
void resp_add_bignum(vbuf *b, const char *p, size_t len); /* (<digits> */
/* =<len+4>\r\n<ext>:<bytes>\r\n; ext is 3 characters ("txt") */
void resp_add_verbatim(vbuf *b, const char *p, size_t len, const char *ext);

#endif
