/* test_rdb_stream: streams through the RDB encoding (snapshot/rdb_stream.c).
 *
 * (1) streams built with t_stream.h (nodes cut by stream-node-max-*, XDEL
 *     marks, exact and approximate trims, groups, consumers, PELs, an empty
 *     stream with groups) through rdb_write_value / rdb_read_value: the same
 *     stream back, and its encoding again the same bytes;
 * (2) a redis-server 7.0 started here runs XADD / XDEL / XTRIM with the same
 *     ids and stream-node-max-* as our builder: our encoding of our stream is
 *     its DUMP payload byte for byte, and the stream record of our file is
 *     the one of its SAVEd dump.rdb; with groups (XREADGROUP, XCLAIM, XACK),
 *     its DUMP decodes to what XRANGE / XPENDING / XINFO say and re-encodes
 *     to the same bytes; type 15 (Redis 5 to 6.2) loads with entries-added
 *     and entries-read derived as Redis 7.0 derives them;
 * (4) the AOF rewrite of a stream (aof/rewrite.c): Redis 7.0's commands,
 *     and redis-server running them rebuilds the stream it DUMPed;
 * (3) damaged payloads (crafted one fault at a time, and random damage)
 *     refused with a reason, never a crash (run it under ASan); type 21
 *     (7.2's) refused by name.
 * Needs redis-server on PATH for (2). */
#include <check.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "inproc.h"
#include "listpack.h"
#include "rdb.h"
#include "rdb_io.h"
#include "server.h"
#include "t_stream.h"
#include "util.h"
#include "vbuf.h"
#include "rewrite.h"
#include "harness.h"
#include "rdb_testutil.h"
#include "testrand.h"

static stream_id ID(uint64_t ms, uint64_t seq) { return (stream_id){ms, seq}; }

static void set_node_max(long long entries, long long bytes) {
    server.cfg.compat.stream_node_max_entries = entries;
    server.cfg.compat.stream_node_max_bytes = bytes;
}

/* ---- rendering a stream: entries, metadata, groups, PELs, consumers ---- */

static void put_id(vbuf *b, stream_id id) {
    vbuf_appendf(b, "%llu-%llu", (unsigned long long)id.ms, (unsigned long long)id.seq);
}

static char *render_seen(const obj *s, int seen);
static char *render(const obj *s) { return render_seen(s, 1); }

/* seen: with the consumers' seen-times (not when a server's commands
 * rebuilt the stream: they set them to the time they ran). */
static char *render_seen(const obj *s, int seen) {
    vbuf b;
    vbuf_init(&b);
    const stream_meta *m = stream_meta_get(s);
    vbuf_appendf(&b, "len=%llu last=", (unsigned long long)m->length);
    put_id(&b, m->last_id);
    vbuf_appendf(&b, " first=");
    put_id(&b, m->first_id);
    vbuf_appendf(&b, " maxdel=");
    put_id(&b, m->max_deleted_id);
    vbuf_appendf(&b, " added=%llu nodes=%llu\n", (unsigned long long)m->entries_added,
                 (unsigned long long)stream_node_count(s));
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) {
        put_id(&b, id);
        for (size_t i = 0; i < nf; i++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            vbuf_appendf(&b, " %.*s=%.*s", (int)f.len, f.p, (int)v.len, v.p);
        }
        vbuf_append(&b, "\n", 1);
    }
    stream_group_iter gi;
    stream_str gname;
    stream_group g;
    stream_group_iter_init(&gi, s);
    while (stream_group_iter_next(&gi, &gname, &g)) {
        vbuf_appendf(&b, "group %.*s last=", (int)gname.len, gname.p);
        put_id(&b, g.last_id);
        vbuf_appendf(&b, " read=%lld\n", (long long)g.entries_read);
        stream_pel_iter pi;
        stream_nack nk;
        stream_pel_iter_init(&pi, s, g.gid, STREAM_NO_CONSUMER, STREAM_ID_MIN, STREAM_ID_MAX);
        while (stream_pel_iter_next(&pi, &id, &nk)) {
            stream_str cn;
            ck_assert(stream_consumer_name(s, g.gid, nk.cid, &cn));
            vbuf_appendf(&b, " pel ");
            put_id(&b, id);
            vbuf_appendf(&b, " %.*s t=%lld n=%llu\n", (int)cn.len, cn.p,
                         (long long)nk.delivery_time, (unsigned long long)nk.delivery_count);
        }
        stream_consumer_iter ci;
        stream_str cname;
        stream_consumer c;
        stream_consumer_iter_init(&ci, s, g.gid);
        while (stream_consumer_iter_next(&ci, &cname, &c)) {
            vbuf_appendf(&b, " consumer %.*s seen=%lld:", (int)cname.len, cname.p,
                         seen ? (long long)c.seen_time : 0LL);
            stream_pel_iter_init(&pi, s, g.gid, c.cid, STREAM_ID_MIN, STREAM_ID_MAX);
            while (stream_pel_iter_next(&pi, &id, &nk)) {
                vbuf_append(&b, " ", 1);
                put_id(&b, id);
            }
            vbuf_append(&b, "\n", 1);
        }
    }
    vbuf_append(&b, "", 1);
    return b.data;
}

/* v's DUMP encoding (no footer); caller frees. */
static unsigned char *encode(const obj *v, int compress, size_t *len) {
    sink *out = sink_mem_open("test");
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_write_value(out, v, compress, err, sizeof err) == 0, "%s", err);
    const unsigned char *p = sink_mem_data(out, len);
    unsigned char *copy = xmalloc(*len);
    memcpy(copy, p, *len);
    sink_free(out);
    return copy;
}

/* Decodes a payload: the value, or NULL with the error in err. */
static obj *decode(const void *p, size_t n, char *err, size_t errlen) {
    source *src = source_mem_open(p, n, "payload");
    obj *v = NULL;
    int rc = rdb_read_value(src, &v, err, errlen);
    source_free(src);
    return rc == 0 ? v : NULL;
}

/* Encodes s, decodes it: the same stream; encodes that: the same bytes. */
static void roundtrip(const obj *s) {
    for (int compress = 0; compress <= RDB_COMPRESS_LZF; compress += RDB_COMPRESS_LZF) {
        size_t n, n2;
        unsigned char *p = encode(s, compress, &n);
        ck_assert_uint_eq(p[0], 19);
        char err[RDB_ERRLEN];
        obj *back = decode(p, n, err, sizeof err);
        ck_assert_msg(back != NULL, "%s", err);
        ck_assert_int_eq(back->type, OBJ_STREAM);
        char *a = render(s), *b = render(back);
        ck_assert_str_eq(a, b);
        unsigned char *p2 = encode(back, compress, &n2);
        ck_assert(n == n2 && memcmp(p, p2, n) == 0);
        free(a);
        free(b);
        free(p);
        free(p2);
        obj_decref(back);
    }
}

/* Appends id with nf fields: "f<k>" (or "g<k>" when other) = a value
 * mixing integers and strings. */
static void add(obj *s, stream_id id, int nf, int other) {
    char fb[8][16], vb[8][48];
    stream_str fv[16];
    for (int k = 0; k < nf; k++) {
        snprintf(fb[k], sizeof fb[k], other ? "g%d" : "f%d", k);
        if (k % 3 == 0) snprintf(vb[k], sizeof vb[k], "%llu", (unsigned long long)id.ms * 7);
        else if (k % 3 == 1) snprintf(vb[k], sizeof vb[k], "-%d", k * 100000);
        else snprintf(vb[k], sizeof vb[k], "value-%llu-%llu", (unsigned long long)id.ms,
                      (unsigned long long)id.seq);
        fv[2 * k] = (stream_str){fb[k], strlen(fb[k])};
        fv[2 * k + 1] = (stream_str){vb[k], strlen(vb[k])};
    }
    stream_append(s, id, fv, (size_t)nf);
}

static uint64_t group(obj *s, const char *name, stream_id last, int64_t read) {
    stream_group g = {0, last, read};
    ck_assert(stream_group_create(s, name, strlen(name), &g));
    return g.gid;
}

static uint64_t consumer(obj *s, uint64_t gid, const char *name, int64_t seen) {
    stream_consumer c = {0, seen};
    ck_assert(stream_consumer_create(s, gid, name, strlen(name), &c));
    return c.cid;
}

static void pend(obj *s, uint64_t gid, uint64_t cid, stream_id id, int64_t t, uint64_t n) {
    stream_nack nk = {cid, t, n};
    stream_pel_put(s, gid, id, &nk);
}

/* ==== (1) ==== */

START_TEST(test_roundtrip_shapes) {
    inproc_conf();
    set_node_max(100, 4096);
    obj *s = stream_new();
    add(s, ID(1, 0), 1, 0);
    roundtrip(s);
    /* many nodes; same and other fields; seq jumps; a negative seq delta */
    for (uint64_t i = 2; i < 1500; i++) add(s, ID(1000 + i / 3, i % 3 ? i : 0), 1 + (int)(i % 4), i % 7 == 0);
    add(s, ID(5000, 9), 2, 0);
    add(s, ID(5001, 1), 2, 0);
    roundtrip(s);
    /* XDEL marks, a whole node deleted, exact and approximate trims */
    for (uint64_t i = 100; i < 400; i += 3) stream_delete(s, ID(1000 + i / 3, i % 3 ? i : 0));
    for (uint64_t i = 700; i < 900; i++) stream_delete(s, ID(1000 + i / 3, i % 3 ? i : 0));
    roundtrip(s);
    stream_trim_maxlen(s, 1000, 0, 0);
    roundtrip(s);
    stream_trim_maxlen(s, 600, 1, 10000);
    roundtrip(s);
    /* groups, consumers, PELs; entries-read unknown; a consumer without
     * pending entries; a group without consumers */
    uint64_t g1 = group(s, "g1", ID(2000, 5), 42);
    uint64_t g2 = group(s, "a-group", ID(0, 0), STREAM_ENTRIES_READ_INVALID);
    group(s, "empty", ID(5001, 1), 1500);
    uint64_t c1 = consumer(s, g1, "alice", 1700000000123LL);
    uint64_t c2 = consumer(s, g1, "bob", 1700000000456LL);
    consumer(s, g1, "idle", 5);
    uint64_t c3 = consumer(s, g2, "alice", 7);
    for (uint64_t i = 0; i < 300; i++) pend(s, g1, i % 2 ? c1 : c2, ID(1400 + i, 0), 1700000000000LL + (int64_t)i, i + 1);
    pend(s, g2, c3, ID(1, 0), 99, 1);   /* an id no longer in the stream */
    roundtrip(s);
    obj_decref(s);
    /* small nodes by bytes, by entries; no limit */
    static const long long shapes[][2] = { {0, 60}, {3, 0}, {0, 0}, {1, 4096} };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        set_node_max(shapes[k][0], shapes[k][1]);
        s = stream_new();
        for (uint64_t i = 1; i < 300; i++) add(s, ID(i, 0), 1 + (int)(i % 3), i % 5 == 0);
        for (uint64_t i = 1; i < 300; i += 4) stream_delete(s, ID(i, 0));
        roundtrip(s);
        obj_decref(s);
    }
    set_node_max(100, 4096);
    /* an empty stream (every entry deleted) keeps its metadata and groups */
    s = stream_new();
    add(s, ID(10, 1), 2, 0);
    add(s, ID(11, 1), 2, 0);
    stream_delete(s, ID(10, 1));
    stream_delete(s, ID(11, 1));
    ck_assert_uint_eq(stream_node_count(s), 0);
    uint64_t g = group(s, "g", ID(11, 1), 2);
    pend(s, g, consumer(s, g, "c", 3), ID(11, 1), 4, 5);
    roundtrip(s);
    obj_decref(s);
    /* a new stream (XGROUP CREATE MKSTREAM) */
    s = stream_new();
    roundtrip(s);
    obj_decref(s);
    conf_free(&server.cfg);
}
END_TEST

/* ==== (2) Redis ==== */

static srv *rsrv;
static redisContext *rctx;
static char rdir[256];

static void redis_up(void) {
    char dump[320];
    rt_tmpdir_make("test_rdb_stream", rdir, sizeof rdir, dump, sizeof dump);
    rsrv = srv_start_redis("--appendonly no --rdbcompression no --dir %s", rdir);
    rctx = srv_connect(rsrv);
}

static void redis_down(void) {
    if (rctx) redisFree(rctx);
    rctx = NULL;
    if (rsrv) {
        srv_kill9(rsrv);
        srv_stop(rsrv);
        rt_tmpdir_remove(rdir);
    }
    rsrv = NULL;
}

static redisReply *rq(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rctx, fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
    return r;
}

#define rok(...) freeReplyObject(rq(__VA_ARGS__))

/* Redis's DUMP of key, without the footer; caller frees. */
static unsigned char *redis_dump(const char *key, size_t *n) {
    redisReply *r = rq("DUMP %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    *n = r->len - 10;
    unsigned char *p = xmalloc(*n);
    memcpy(p, r->str, *n);
    freeReplyObject(r);
    return p;
}

static void same_bytes(const char *what, const unsigned char *ours, size_t on,
                       const unsigned char *theirs, size_t tn) {
    size_t d = 0;
    while (d < on && d < tn && ours[d] == theirs[d]) d++;
    ck_assert_msg(on == tn && d == on, "%s: ours %zu bytes, Redis's %zu, first difference at %zu",
                  what, on, tn, d);
}

/* Our entries against Redis's XRANGE. */
static void same_entries(const char *key, const obj *s) {
    redisReply *r = rq("XRANGE %s - +", key);
    stream_iter it;
    stream_id id;
    size_t nf, i = 0;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) {
        ck_assert_uint_lt(i, r->elements);
        redisReply *e = r->element[i++];
        char ids[STREAM_ID_STRMAX];
        sid_format(ids, id);
        ck_assert_str_eq(e->element[0]->str, ids);
        ck_assert_uint_eq(e->element[1]->elements, 2 * nf);
        for (size_t k = 0; k < nf; k++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            ck_assert(f.len == e->element[1]->element[2 * k]->len &&
                      memcmp(f.p, e->element[1]->element[2 * k]->str, f.len) == 0);
            ck_assert(v.len == e->element[1]->element[2 * k + 1]->len &&
                      memcmp(v.p, e->element[1]->element[2 * k + 1]->str, v.len) == 0);
        }
    }
    ck_assert_uint_eq(i, r->elements);
    freeReplyObject(r);
}

/* The same XADD on Redis and on our stream. */
static void both_add(obj *s, const char *key, stream_id id, int nf, int other) {
    add(s, id, nf, other);
    stream_iter it;
    stream_id got;
    size_t n;
    stream_iter_init(&it, s, id, id, 0);
    ck_assert(stream_iter_next(&it, &got, &n));
    const char *argv[20];
    size_t lens[20];
    char ids[STREAM_ID_STRMAX];
    sid_format(ids, id);
    argv[0] = "XADD", argv[1] = key, argv[2] = ids;
    int argc = 3;
    for (size_t k = 0; k < n; k++) {
        stream_str f, v;
        stream_iter_field(&it, &f, &v);
        argv[argc] = f.p, lens[argc++] = f.len;
        argv[argc] = v.p, lens[argc++] = v.len;
    }
    for (int k = 0; k < 3; k++) lens[k] = strlen(argv[k]);
    redisReply *r = redisCommandArgv(rctx, argc, argv, lens);
    ck_assert(r && r->type == REDIS_REPLY_STRING);
    freeReplyObject(r);
}

static void both_del(obj *s, const char *key, stream_id id) {
    ck_assert(stream_delete(s, id));
    char ids[STREAM_ID_STRMAX];
    sid_format(ids, id);
    rok("XDEL %s %s", key, ids);
}

/* The stream record of a plain RDB file holding one key: from its type
 * byte to the EOF opcode. */
static unsigned char *file_record(const char *path, const char *key, size_t *n) {
    size_t fl;
    unsigned char *f = read_file(path, &fl);
    size_t kl = strlen(key);
    for (size_t i = 0; i + 2 + kl < fl; i++) {
        if (f[i] == 19 && f[i + 1] == kl && memcmp(f + i + 2, key, kl) == 0) {
            ck_assert_uint_eq(f[fl - 9], 0xFF);
            *n = fl - 9 - i;
            memmove(f, f + i, *n);
            return f;
        }
    }
    ck_abort_msg("%s: no stream record for %s", path, key);
    return NULL;
}

/* Redis SAVEs its dataset (the key only); our file for s has the same
 * stream record. */
static void same_saved_record(const obj *s, const char *key) {
    rok("SAVE");
    char path[300], tmp[300], err[RDB_ERRLEN];
    snprintf(path, sizeof path, "%s/dump.rdb", rdir);
    size_t tn;
    unsigned char *theirs = file_record(path, key, &tn);
    snprintf(path, sizeof path, "%s/ours.rdb", rdir);
    snprintf(tmp, sizeof tmp, "%s/ours.rdb.tmp", rdir);
    rdb_writer *w = rdb_writer_open(tmp, 0, &(rdb_aux){.redis_ver = "7.0.15"}, err, sizeof err);
    ck_assert_msg(w, "%s", err);
    ck_assert(rdb_writer_put_key(w, 0, key, strlen(key), s, -1) == 0);
    ck_assert(rdb_writer_finish(w, err, sizeof err) == 0);
    ck_assert(rdb_commit_file(tmp, path, err, sizeof err) == 0);
    size_t on;
    unsigned char *ours = file_record(path, key, &on);
    same_bytes("file record", ours, on, theirs, tn);
    free(ours);
    free(theirs);
}

/* Entries only: our stream built with the same commands encodes to
 * Redis's bytes, for each node shape. */
START_TEST(test_redis_same_bytes) {
    inproc_conf();
    redis_up();
    static const long long shapes[][2] = { {100, 4096}, {5, 0}, {0, 200}, {0, 0}, {1, 1} };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        rok("FLUSHALL");
        rok("CONFIG SET stream-node-max-entries %lld", shapes[k][0]);
        rok("CONFIG SET stream-node-max-bytes %lld", shapes[k][1]);
        set_node_max(shapes[k][0], shapes[k][1]);
        obj *s = stream_new();
        for (uint64_t i = 1; i <= 700; i++)
            both_add(s, "st", ID(1600000000000ULL + i / 4, i % 4 == 3 ? 200 : i % 4), 1 + (int)(i % 3), i % 11 == 0);
        /* XDEL inside nodes and of a whole node */
        for (uint64_t i = 10; i <= 60; i += 7) both_del(s, "st", ID(1600000000000ULL + i / 4, i % 4 == 3 ? 200 : i % 4));
        for (uint64_t i = 300; i <= 330; i++) both_del(s, "st", ID(1600000000000ULL + i / 4, i % 4 == 3 ? 200 : i % 4));
        size_t on, tn;
        unsigned char *theirs = redis_dump("st", &tn), *ours = encode(s, 0, &on);
        same_bytes("after XADD/XDEL", ours, on, theirs, tn);
        free(ours);
        free(theirs);
        /* exact then approximate trims (LIMIT as XTRIM's default) */
        rok("XTRIM st MAXLEN 500");
        stream_trim_maxlen(s, 500, 0, 0);
        rok("XTRIM st MAXLEN ~ 250");
        stream_trim_maxlen(s, 250, 1, shapes[k][0] ? 100 * (uint64_t)shapes[k][0] : 0);
        rok("XTRIM st MINID 1600000000150");
        stream_trim_minid(s, ID(1600000000150ULL, 0), 0, 0);
        theirs = redis_dump("st", &tn);
        ours = encode(s, 0, &on);
        same_bytes("after XTRIM", ours, on, theirs, tn);
        same_entries("st", s);
        same_saved_record(s, "st");
        free(ours);
        free(theirs);
        obj_decref(s);
    }
    rok("CONFIG SET stream-node-max-entries 100");
    rok("CONFIG SET stream-node-max-bytes 4096");
    redis_down();
    conf_free(&server.cfg);
}
END_TEST

/* Our decoded stream against XPENDING and XINFO GROUPS / CONSUMERS. */
static void same_groups(const char *key, const obj *s) {
    redisReply *gr = rq("XINFO GROUPS %s", key);
    ck_assert_uint_eq(gr->elements, stream_group_count(s));
    for (size_t i = 0; i < gr->elements; i++) {
        redisReply *g = gr->element[i];
        const char *name = g->element[1]->str;
        stream_group sg;
        ck_assert(stream_group_get(s, name, strlen(name), &sg));
        char last[STREAM_ID_STRMAX];
        sid_format(last, sg.last_id);
        ck_assert_str_eq(g->element[7]->str, last);       /* last-delivered-id */
        if (g->element[9]->type == REDIS_REPLY_INTEGER)   /* entries-read */
            ck_assert_int_eq(g->element[9]->integer, sg.entries_read);
        else
            ck_assert_int_eq(sg.entries_read, STREAM_ENTRIES_READ_INVALID);
        redisReply *p = rq("XPENDING %s %s - + 100000", key, name);
        stream_pel_iter pi;
        stream_id id;
        stream_nack nk;
        size_t k = 0;
        stream_pel_iter_init(&pi, s, sg.gid, STREAM_NO_CONSUMER, STREAM_ID_MIN, STREAM_ID_MAX);
        while (stream_pel_iter_next(&pi, &id, &nk)) {
            ck_assert_uint_lt(k, p->elements);
            redisReply *e = p->element[k++];
            char ids[STREAM_ID_STRMAX];
            sid_format(ids, id);
            ck_assert_str_eq(e->element[0]->str, ids);
            stream_str cn;
            ck_assert(stream_consumer_name(s, sg.gid, nk.cid, &cn));
            ck_assert(cn.len == e->element[1]->len && memcmp(cn.p, e->element[1]->str, cn.len) == 0);
            ck_assert_int_eq(e->element[3]->integer, (long long)nk.delivery_count);
        }
        ck_assert_uint_eq(k, p->elements);
        freeReplyObject(p);
        redisReply *c = rq("XINFO CONSUMERS %s %s", key, name);
        size_t nc = 0;
        stream_consumer_iter ci;
        stream_str cname;
        stream_consumer sc;
        stream_consumer_iter_init(&ci, s, sg.gid);
        while (stream_consumer_iter_next(&ci, &cname, &sc)) {
            ck_assert_uint_lt(nc, c->elements);
            redisReply *e = c->element[nc++];
            ck_assert(cname.len == e->element[1]->len && memcmp(cname.p, e->element[1]->str, cname.len) == 0);
            ck_assert_int_eq(e->element[3]->integer, (long long)stream_consumer_pending(s, sg.gid, sc.cid));
        }
        ck_assert_uint_eq(nc, c->elements);
        freeReplyObject(c);
    }
    freeReplyObject(gr);
}

/* Groups, consumers, PELs: Redis's DUMP decodes to what its commands say
 * and our encoding of it is its bytes. */
START_TEST(test_redis_groups) {
    inproc_conf();
    redis_up();
    for (int i = 0; i < 400; i++) rok("XADD st * f %d g v%d", i, i);
    rok("XGROUP CREATE st g1 0");
    rok("XGROUP CREATE st g2 $");
    rok("XGROUP CREATE st g3 0 ENTRIESREAD 3");
    rok("XGROUP CREATE st g4 0-0");
    rok("XGROUP SETID st g4 1-1 ENTRIESREAD 0");
    rok("XGROUP CREATECONSUMER st g1 idle");
    rok("XREADGROUP GROUP g1 alice COUNT 50 STREAMS st >");
    rok("XREADGROUP GROUP g1 bob COUNT 70 STREAMS st >");
    rok("XREADGROUP GROUP g1 bob COUNT 10 STREAMS st 0");
    rok("XREADGROUP GROUP g3 carol COUNT 5 STREAMS st >");
    rok("XREADGROUP GROUP g1 nobody NOACK COUNT 5 STREAMS st >");
    redisReply *r = rq("XRANGE st - + COUNT 30");
    for (size_t i = 0; i < 30; i += 3) rok("XACK st g1 %s", r->element[i]->element[0]->str);
    for (size_t i = 1; i < 30; i += 4) rok("XCLAIM st g1 carol 0 %s", r->element[i]->element[0]->str);
    rok("XDEL st %s", r->element[2]->element[0]->str);
    freeReplyObject(r);
    rok("XADD st 99999999999999-5 x y");
    size_t tn, on;
    unsigned char *theirs = redis_dump("st", &tn);
    char err[RDB_ERRLEN];
    obj *s = decode(theirs, tn, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    same_entries("st", s);
    same_groups("st", s);
    redisReply *info = rq("XINFO STREAM st");
    ck_assert_int_eq(info->element[1]->integer, (long long)stream_len(s));
    ck_assert_int_eq(info->element[11]->integer, (long long)stream_meta_get(s)->entries_added);
    freeReplyObject(info);
    unsigned char *ours = encode(s, 0, &on);
    same_bytes("with groups", ours, on, theirs, tn);
    free(ours);
    free(theirs);
    same_saved_record(s, "st");
    obj_decref(s);
    /* a stream XGROUP CREATE MKSTREAM made, and one whose entries all went */
    rok("XGROUP CREATE empty g $ MKSTREAM");
    rok("XADD gone 5-5 a b");
    rok("XDEL gone 5-5");
    const char *keys[] = {"empty", "gone"};
    for (int k = 0; k < 2; k++) {
        theirs = redis_dump(keys[k], &tn);
        s = decode(theirs, tn, err, sizeof err);
        ck_assert_msg(s != NULL, "%s", err);
        ck_assert_uint_eq(stream_len(s), 0);
        ours = encode(s, 0, &on);
        same_bytes(keys[k], ours, on, theirs, tn);
        free(ours);
        free(theirs);
        obj_decref(s);
    }
    redis_down();
    conf_free(&server.cfg);
}
END_TEST

/* ==== crafted payloads ==== */

static void c_len(vbuf *b, uint64_t v) {
    unsigned char x[9];
    if (v < 64) {
        x[0] = (unsigned char)v;
        vbuf_append(b, x, 1);
    } else if (v < 16384) {
        x[0] = (unsigned char)(0x40 | v >> 8);
        x[1] = (unsigned char)v;
        vbuf_append(b, x, 2);
    } else {
        x[0] = 0x81;
        for (int i = 0; i < 8; i++) x[1 + i] = (unsigned char)(v >> (56 - 8 * i));
        vbuf_append(b, x, 9);
    }
}

static void c_str(vbuf *b, const void *p, size_t n) {
    c_len(b, n);
    vbuf_append(b, p, n);
}

static void c_rawid(vbuf *b, uint64_t ms, uint64_t seq) {
    unsigned char x[16];
    for (int i = 0; i < 8; i++) {
        x[i] = (unsigned char)(ms >> (56 - 8 * i));
        x[8 + i] = (unsigned char)(seq >> (56 - 8 * i));
    }
    vbuf_append(b, x, 16);
}

static void c_ms(vbuf *b, int64_t t) {
    unsigned char x[8];
    for (int i = 0; i < 8; i++) x[i] = (unsigned char)((uint64_t)t >> (8 * i));
    vbuf_append(b, x, 8);
}

/* What to break in a crafted stream. */
enum fault {
    F_NONE, F_KEYLEN, F_LP_GARBAGE, F_MASTER_COUNT, F_LPCOUNT, F_ZERO_TERM, F_ORDER,
    F_LENGTH, F_LASTID, F_DUP_GROUP, F_PEL_MISSING, F_PEL_NO_CONSUMER, F_DUP_CONSUMER,
    F_DUP_PEL, F_EMPTY_LP, F_NODE_ORDER, F_TRUNCATED, F_FLAGS, F_NFIELDS,
};

/* A node of entries ms = base..base+n-1 (seq 0), fields "a" "b"; entry
 * ms base+1 deleted. */
static void c_nodekey(vbuf *b, uint64_t ms) {
    vbuf k;
    vbuf_init(&k);
    c_rawid(&k, ms, 0);
    c_str(b, k.data, k.len);
    vbuf_free(&k);
}

static void c_node(vbuf *b, uint64_t base, int n, enum fault f) {
    c_nodekey(b, base);
    vbuf lp;
    vbuf_init(&lp);
    lp_begin(&lp);
    lp_append_int(&lp, f == F_MASTER_COUNT ? n : n - 1);
    lp_append_int(&lp, 1);
    lp_append_int(&lp, 2);
    lp_append(&lp, "a", 1);
    lp_append(&lp, "b", 1);
    lp_append_int(&lp, f == F_ZERO_TERM ? 1 : 0);
    uint64_t elems = 6;
    for (int i = 0; i < n; i++) {
        int flags = 2 | (i == 1 ? 1 : 0);
        if (f == F_FLAGS && i == 2) flags = 4;
        lp_append_int(&lp, flags);
        lp_append_int(&lp, f == F_ORDER && i == 3 ? 1 : i);
        lp_append_int(&lp, 0);
        lp_append(&lp, "1", 1);
        lp_append(&lp, "xy", 2);
        lp_append_int(&lp, f == F_LPCOUNT && i == 2 ? 4 : 5);
        elems += 6;
    }
    if (f == F_NFIELDS) {   /* an entry with its own fields and a count of 0 */
        lp_append_int(&lp, 0);
        lp_append_int(&lp, n);
        lp_append_int(&lp, 0);
        lp_append_int(&lp, 0);
        lp_append_int(&lp, 4);
        elems += 5;
    }
    lp_end(&lp, elems);
    if (f == F_LP_GARBAGE) lp.data[lp.len - 3] = (char)0xF9;
    c_str(b, lp.data, lp.len);
    vbuf_free(&lp);
}

static vbuf craft(enum fault f) {
    vbuf b;
    vbuf_init(&b);
    unsigned char t = 19;
    vbuf_append(&b, &t, 1);
    c_len(&b, f == F_EMPTY_LP ? 3 : 2);
    if (f == F_KEYLEN) {
        c_str(&b, "0123456789abcde", 15);
    }
    c_node(&b, 100, 5, f);
    c_node(&b, f == F_NODE_ORDER ? 102 : 200, 4, F_NONE);
    if (f == F_EMPTY_LP) {
        c_nodekey(&b, 300);
        vbuf lp;
        vbuf_init(&lp);
        lp_begin(&lp);
        lp_end(&lp, 0);
        c_str(&b, lp.data, lp.len);
        vbuf_free(&lp);
    }
    c_len(&b, f == F_LENGTH ? 8 : 7);   /* length: 4 + 3 live */
    c_len(&b, f == F_LASTID ? 202 : 203);
    c_len(&b, 0);
    c_len(&b, 100), c_len(&b, 0);      /* first id */
    c_len(&b, 201), c_len(&b, 0);      /* max deleted id */
    c_len(&b, 9);                      /* entries added */
    c_len(&b, f == F_DUP_GROUP ? 2 : 1);
    for (int g = 0; g < (f == F_DUP_GROUP ? 2 : 1); g++) {
        c_str(&b, "grp", 3);
        c_len(&b, 200), c_len(&b, 0);
        c_len(&b, 5);
        c_len(&b, f == F_DUP_PEL ? 3 : 2);
        c_rawid(&b, 100, 0), c_ms(&b, 1000), c_len(&b, 2);
        c_rawid(&b, 200, 0), c_ms(&b, 2000), c_len(&b, 1);
        if (f == F_DUP_PEL) c_rawid(&b, 200, 0), c_ms(&b, 2000), c_len(&b, 1);
        c_len(&b, f == F_DUP_CONSUMER ? 2 : 1);
        for (int c = 0; c < (f == F_DUP_CONSUMER ? 2 : 1); c++) {
            c_str(&b, "cons", 4);
            c_ms(&b, 3000);
            c_len(&b, f == F_PEL_NO_CONSUMER ? 1 : 2);
            c_rawid(&b, 100, 0);
            if (f != F_PEL_NO_CONSUMER) c_rawid(&b, f == F_PEL_MISSING ? 150 : 200, 0);
        }
    }
    if (f == F_TRUNCATED) b.len -= 5;
    return b;
}

START_TEST(test_crafted) {
    inproc_conf();
    vbuf ok = craft(F_NONE);
    char err[RDB_ERRLEN];
    obj *s = decode(ok.data, ok.len, err, sizeof err);
    ck_assert_msg(s != NULL, "%s", err);
    char *got = render(s);
    ck_assert_str_eq(got,
        "len=7 last=203-0 first=100-0 maxdel=201-0 added=9 nodes=2\n"
        "100-0 a=1 b=xy\n102-0 a=1 b=xy\n103-0 a=1 b=xy\n104-0 a=1 b=xy\n"
        "200-0 a=1 b=xy\n202-0 a=1 b=xy\n203-0 a=1 b=xy\n"
        "group grp last=200-0 read=5\n"
        " pel 100-0 cons t=1000 n=2\n pel 200-0 cons t=2000 n=1\n"
        " consumer cons seen=3000: 100-0 200-0\n");
    free(got);
    roundtrip(s);
    obj_decref(s);
    vbuf_free(&ok);
    static const struct { enum fault f; const char *want; } cases[] = {
        {F_KEYLEN, "not the size of a stream ID"},
        {F_LP_GARBAGE, "listpack integrity check failed"},
        {F_MASTER_COUNT, "its master entry says"},
        {F_LPCOUNT, "bad entry 2"},
        {F_ZERO_TERM, "bad master entry"},
        {F_ORDER, "bad entry 3"},
        {F_FLAGS, "bad entry 2"},
        {F_NFIELDS, "bad entry 5"},
        {F_LENGTH, "length 8, but 7 live entries"},
        {F_LASTID, "inconsistent"},
        {F_DUP_GROUP, "duplicated consumer group name \"grp\""},
        {F_PEL_MISSING, "consumer entry 150-0 not found in the group's global PEL"},
        {F_PEL_NO_CONSUMER, "inconsistent"},
        {F_DUP_CONSUMER, "duplicate consumer \"cons\""},
        {F_DUP_PEL, "duplicated global PEL entry"},
        {F_EMPTY_LP, "empty listpack inside stream"},
        {F_NODE_ORDER, "bad master entry"},
        {F_TRUNCATED, "payload"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vbuf b = craft(cases[i].f);
        err[0] = '\0';
        s = decode(b.data, b.len, err, sizeof err);
        ck_assert_msg(s == NULL, "fault %d accepted", cases[i].f);
        ck_assert_msg(strstr(err, cases[i].want), "fault %d: \"%s\" lacks \"%s\"", cases[i].f,
                      err, cases[i].want);
        vbuf_free(&b);
    }
    /* 7.2's STREAM_LISTPACKS_3 and random damage */
    ok = craft(F_NONE);
    ok.data[0] = 21;
    ck_assert_ptr_null(decode(ok.data, ok.len, err, sizeof err));
    ck_assert_msg(strstr(err, "value type 21 (stream) is not supported"), "%s", err);
    ok.data[0] = 19;
    rnd_seed_env("test_rdb_stream damage", "VT_TEST_SEED");
    for (int round = 0; round < 20000; round++) {
        vbuf d;
        vbuf_init(&d);
        vbuf_append(&d, ok.data, ok.len);
        int flips = 1 + (int)rnd_below(3);
        for (int k = 0; k < flips; k++) d.data[1 + rnd_below(d.len - 1)] ^= (char)(1 + rnd_below(255));
        if (rnd_below(4) == 0) d.len = 1 + rnd_below(d.len);
        s = decode(d.data, d.len, err, sizeof err);
        if (s) obj_decref(s);
        vbuf_free(&d);
    }
    vbuf_free(&ok);
    conf_free(&server.cfg);
}
END_TEST

/* ==== (4) the AOF rewrite's commands ==== */

static int collect(void *ctx, const void *p, size_t n) {
    vbuf_append(ctx, p, n);
    return 0;
}

/* The commands in RESP bytes as "ARG ARG ...\n" lines; *count: how many. */
static char *resp_lines(const char *p, size_t n, int *count) {
    vbuf b;
    vbuf_init(&b);
    const char *end = p + n;
    *count = 0;
    while (p < end) {
        ck_assert(*p == '*');
        long argc = strtol(p + 1, NULL, 10);
        p = strchr(p, '\n') + 1;
        for (long i = 0; i < argc; i++) {
            ck_assert(*p == '$');
            long len = strtol(p + 1, NULL, 10);
            p = strchr(p, '\n') + 1;
            vbuf_appendf(&b, "%s%.*s", i ? " " : "", (int)len, p);
            p += len + 2;
        }
        vbuf_append(&b, "\n", 1);
        (*count)++;
    }
    vbuf_append(&b, "", 1);
    return b.data;
}

START_TEST(test_aof_rewrite_commands) {
    inproc_conf();
    obj *s = stream_new();
    add(s, ID(5, 1), 2, 0);
    add(s, ID(6, 0), 1, 1);
    add(s, ID(7, 0), 1, 1);
    stream_delete(s, ID(6, 0));
    stream_meta_mut(s)->last_id = ID(9, 9);
    uint64_t g = group(s, "g", ID(7, 0), 3);
    uint64_t c = consumer(s, g, "c1", 10);
    consumer(s, g, "c0", 10);
    pend(s, g, c, ID(5, 1), 1700000000000LL, 2);
    pend(s, g, c, ID(6, 0), 1700000000001LL, 1);
    group(s, "h", ID(0, 0), STREAM_ENTRIES_READ_INVALID);
    vbuf out;
    vbuf_init(&out);
    ck_assert(aofrw_key("k", 1, s, 1999999999999LL, collect, &out) == 0);
    int n;
    char *text = resp_lines(out.data, out.len, &n);
    ck_assert_str_eq(text,
        "XADD k 5-1 f0 35 f1 -100000\n"
        "XADD k 7-0 g0 49\n"
        "XSETID k 9-9 ENTRIESADDED 3 MAXDELETEDID 6-0\n"
        "XGROUP CREATE k g 7-0 ENTRIESREAD 3\n"
        "XGROUP CREATECONSUMER k g c0\n"
        "XCLAIM k g c1 0 5-1 TIME 1700000000000 RETRYCOUNT 2 JUSTID FORCE\n"
        "XCLAIM k g c1 0 6-0 TIME 1700000000001 RETRYCOUNT 1 JUSTID FORCE\n"
        "XGROUP CREATE k h 0-0 ENTRIESREAD -1\n"
        "PEXPIREAT k 1999999999999\n");
    free(text);
    vbuf_free(&out);
    obj_decref(s);
    /* an empty stream */
    s = stream_new();
    add(s, ID(3, 3), 1, 0);
    stream_delete(s, ID(3, 3));
    vbuf_init(&out);
    ck_assert(aofrw_key("e", 1, s, -1, collect, &out) == 0);
    text = resp_lines(out.data, out.len, &n);
    ck_assert_str_eq(text, "XADD e MAXLEN 0 0-1 x y\nXSETID e 3-3 ENTRIESADDED 1 MAXDELETEDID 3-3\n");
    free(text);
    vbuf_free(&out);
    obj_decref(s);
    conf_free(&server.cfg);
}
END_TEST

/* Redis runs our rewrite of a stream it DUMPed: the same stream (but the
 * consumers' seen-times, which its commands set to now). */
START_TEST(test_aof_rewrite_on_redis) {
    inproc_conf();
    redis_up();
    for (int i = 0; i < 500; i++) rok("XADD st * f %d g v%d", i, i);
    rok("XADD st MAXLEN = 450 * x y");
    rok("XGROUP CREATE st g1 0");
    rok("XGROUP CREATE st g2 $ ENTRIESREAD 7");
    rok("XGROUP CREATECONSUMER st g2 lonely");
    rok("XREADGROUP GROUP g1 alice COUNT 80 STREAMS st >");
    rok("XREADGROUP GROUP g1 bob COUNT 90 STREAMS st >");
    redisReply *r = rq("XRANGE st - + COUNT 40");
    for (size_t i = 0; i < 40; i += 3) rok("XACK st g1 %s", r->element[i]->element[0]->str);
    /* deleted entries acked first: Redis 7.0's XCLAIM drops a pending id
     * whose entry is gone, so its own rewrite loses such ids too */
    for (size_t i = 0; i < 40; i += 6) rok("XDEL st %s", r->element[i]->element[0]->str);
    freeReplyObject(r);
    rok("XGROUP CREATE st2 g 0 MKSTREAM");
    const char *keys[] = {"st", "st2"};
    for (int k = 0; k < 2; k++) {
        size_t tn;
        unsigned char *theirs = redis_dump(keys[k], &tn);
        char err[RDB_ERRLEN];
        obj *s = decode(theirs, tn, err, sizeof err);
        ck_assert_msg(s != NULL, "%s", err);
        free(theirs);
        vbuf out;
        vbuf_init(&out);
        ck_assert(aofrw_key("copy", 4, s, -1, collect, &out) == 0);
        rok("DEL copy");
        int n;
        free(resp_lines(out.data, out.len, &n));
        ck_assert_int_eq(redisAppendFormattedCommand(rctx, out.data, out.len), REDIS_OK);
        for (int i = 0; i < n; i++) {
            void *rep;
            ck_assert_int_eq(redisGetReply(rctx, &rep), REDIS_OK);
            redisReply *x = rep;
            ck_assert_msg(x->type != REDIS_REPLY_ERROR, "%s: command %d: %s", keys[k], i, x->str);
            freeReplyObject(x);
        }
        vbuf_free(&out);
        theirs = redis_dump("copy", &tn);
        obj *back = decode(theirs, tn, err, sizeof err);
        ck_assert_msg(back != NULL, "%s", err);
        char *a = render_seen(s, 0), *b = render_seen(back, 0);
        /* the rebuilt stream's nodes are cut where its XADDs cut them */
        char *na = strstr(a, " nodes="), *nb = strstr(b, " nodes=");
        memmove(na, strchr(na, '\n'), strlen(strchr(na, '\n')) + 1);
        memmove(nb, strchr(nb, '\n'), strlen(strchr(nb, '\n')) + 1);
        size_t d = 0;
        while (a[d] && a[d] == b[d]) d++;
        ck_assert_msg(a[d] == b[d], "%s: rebuilt stream differs at %zu: ours \"%.80s\" Redis's \"%.80s\"",
                      keys[k], d, a + (d > 20 ? d - 20 : 0), b + (d > 20 ? d - 20 : 0));
        free(a);
        free(b);
        free(theirs);
        obj_decref(back);
        obj_decref(s);
    }
    redis_down();
    conf_free(&server.cfg);
}
END_TEST

static void teardown(void) { redis_down(); }

static Suite *stream_suite(void) {
    Suite *s = suite_create("rdb_stream");
    TCase *tv = tcase_create("values");
    tcase_add_test(tv, test_roundtrip_shapes);
    tcase_add_test(tv, test_crafted);
    tcase_add_test(tv, test_aof_rewrite_commands);
    tcase_set_timeout(tv, 120);
    suite_add_tcase(s, tv);
    TCase *tr = tcase_create("redis");
    tcase_add_checked_fixture(tr, NULL, teardown);
    tcase_add_test(tr, test_redis_same_bytes);
    tcase_add_test(tr, test_redis_groups);
    tcase_add_test(tr, test_aof_rewrite_on_redis);
    tcase_set_timeout(tr, 180);
    suite_add_tcase(s, tr);
    return s;
}

int main(void) { return h_main(stream_suite()); }
