/* fuzz_resp: the RESP request parser (src/resp.c) on arbitrary byte streams.
 *
 * Input: byte 0 picks the limits (the server's, or tiny ones that reach the
 * "too big" errors) and seeds the split points; the rest is what a client
 * sends. The stream is parsed twice: all at once, and incrementally with the
 * visible bytes growing in pseudo-random steps, each step in a fresh
 * exact-size heap copy so that ASan catches any read past `len`. Checked:
 * every argument lies inside the consumed bytes (multibulk) or the inline
 * buffer, pos never exceeds len, errors are Redis's texts, and both ways
 * yield the same commands (unless a "too big" limit cut one of them). */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resp.h"
#include "vbuf.h"
#include "fuzz_common.h"

typedef struct run {
    vbuf cmds;      /* every command: argc, then per argument len + bytes */
    int ncmds;
    const char *err;   /* NULL, or errtext */
    char errtext[64];
} run;

static void record(run *o, const resp_req *r, const char *buf) {
    vbuf_append(&o->cmds, &r->argc, sizeof r->argc);
    for (int i = 0; i < r->argc; i++) {
        vbuf_append(&o->cmds, &r->arglen[i], sizeof r->arglen[i]);
        vbuf_append(&o->cmds, resp_arg(r, buf, i), r->arglen[i]);
    }
    o->ncmds++;
}

static void check_done(const resp_req *r, size_t len) {
    assert(r->pos > 0 && r->pos <= len);
    assert(r->argc >= 0);
    for (int i = 0; i < r->argc; i++) {
        if (r->kind == '*') {
            assert(r->argoff[i] + r->arglen[i] + 2 <= r->pos);
        } else {
            assert(r->kind == 'i');
            assert(r->argoff[i] + r->arglen[i] <= r->inline_cap);
            assert(r->arglen[i] < r->pos);
        }
    }
}

static int known_error(const char *e, const resp_limits *lim) {
    /* a client that has yet to AUTH: Redis 7's two limits (10 arguments,
     * 16 KiB bulks), and only then */
    if (lim->unauthenticated && (!strcmp(e, "Protocol error: unauthenticated multibulk length") ||
                                 !strcmp(e, "Protocol error: unauthenticated bulk length")))
        return 1;
    static const char *const texts[] = {
        "Protocol error: invalid multibulk length", "Protocol error: invalid bulk length",
        "Protocol error: too big inline request", "Protocol error: too big mbulk count string",
        "Protocol error: too big bulk count string",
        "Protocol error: unbalanced quotes in request"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (!strcmp(e, texts[i])) return 1;
    return !strncmp(e, "Protocol error: expected '$', got '", 35) && strlen(e) == 37;
}

static int too_big(const char *e) { return e && strstr(e, "too big") != NULL; }

/* Parses data[0..n), all visible at once or growing in seeded steps. */
static void parse_stream(const uint8_t *data, size_t n, const resp_limits *lim,
                         uint32_t seed, int incremental, run *o) {
    resp_req r;
    resp_req_init(&r);
    vbuf_init(&o->cmds);
    o->ncmds = 0;
    o->err = NULL;
    size_t start = 0;     /* consumed by earlier commands */
    size_t vis = incremental ? 0 : n;
    char *buf = NULL;
    for (;;) {
        size_t len = vis - start;
        free(buf);
        buf = malloc(len ? len : 1);
        if (len) memcpy(buf, data + start, len);
        const char *err = NULL;
        int rc = resp_parse(&r, buf, len, lim, &err);
        assert(r.pos <= len);
        if (rc == RESP_DONE) {
            check_done(&r, len);
            record(o, &r, buf);
            start += r.pos;
            resp_req_reset(&r);
            continue;
        }
        if (rc == RESP_ERROR) {
            assert(err && known_error(err, lim));
            snprintf(o->errtext, sizeof o->errtext, "%s", err);
            o->err = o->errtext;
            break;
        }
        assert(rc == RESP_MORE);
        if (vis == n) break;
        seed = seed * 1103515245u + 12345u;
        size_t step = 1 + (seed >> 16) % 17;
        if ((seed >> 8) % 8 == 0) step = 1 + (seed >> 12) % 300;
        vis = vis + step > n ? n : vis + step;
    }
    free(buf);
    resp_req_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const resp_limits server_lim = {512LL * 1024 * 1024, 1024 * 1024, 64 * 1024, 0};
    static const resp_limits unauth_lim = {512LL * 1024 * 1024, 1024 * 1024, 64 * 1024, 1};
    static const resp_limits tiny_lim = {16, 4, 24, 0};
    /* bit 0: tiny limits; bit 2: a client that has yet to AUTH */
    const resp_limits *lim = (data[0] & 1) ? &tiny_lim : (data[0] & 4) ? &unauth_lim : &server_lim;
    uint32_t seed = data[0];
    run whole, parts;
    parse_stream(data + 1, size - 1, lim, seed, 0, &whole);
    parse_stream(data + 1, size - 1, lim, seed, 1, &parts);
    /* Both saw the same commands, as far as both got. */
    size_t common = whole.cmds.len < parts.cmds.len ? whole.cmds.len : parts.cmds.len;
    assert(common == 0 || memcmp(whole.cmds.data, parts.cmds.data, common) == 0);
    if (!too_big(whole.err) && !too_big(parts.err)) {
        assert(whole.ncmds == parts.ncmds);
        assert(whole.cmds.len == parts.cmds.len);
        assert((whole.err == NULL) == (parts.err == NULL));
    }
    vbuf_free(&whole.cmds);
    vbuf_free(&parts.cmds);
    return 0;
}
