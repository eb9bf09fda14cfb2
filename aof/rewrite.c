/* rewrite: one key as the commands that rebuild it (see rewrite.h). Each
 * command is built in a small buffer and handed to out() whole, so the
 * memory used is one command's (64 elements; a stream's commands, one per
 * entry or pending entry, are handed over by 16 KiB), whatever the value's
 * size. */
#include "rewrite.h"

#include <stdio.h>
#include <string.h>

#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_stream.h"
#include "t_zset.h"
#include "util.h"
#include "vt.h"
#include "vbuf.h"

static void bulk(vbuf *b, const char *p, size_t n) {
    vbuf_appendf(b, "$%zu\r\n", n);
    vbuf_append(b, p, n);
    vbuf_append(b, "\r\n", 2);
}

static void bulk_obj(vbuf *b, const obj *o) {
    char buf[OBJ_INTBUF];
    size_t n;
    const char *p = obj_str(o, buf, &n);
    bulk(b, p, n);
}

/* A key's bytes. */
typedef struct keyref {
    const char *p;
    size_t len;
} keyref;

/* "*<argc>\r\n" NAME key */
static void head(vbuf *b, uint64_t argc, const char *name, const keyref *key) {
    vbuf_appendf(b, "*%llu\r\n", (unsigned long long)argc);
    bulk(b, name, strlen(name));
    bulk(b, key->p, key->len);
}

/* Hands the buffered command(s) to out and empties the buffer. */
static int flush(vbuf *b, rdb_out_fn out, void *ctx) {
    int rc = b->len ? out(ctx, b->data, b->len) : 0;
    b->len = 0;
    return rc;
}

/* Before the i-th element of a collection of n: a new command every
 * AOF_REWRITE_ITEMS_PER_CMD elements (words per element: per). */
static int batch(vbuf *b, uint64_t i, uint64_t n, int per, const char *name, const keyref *key,
                 rdb_out_fn out, void *ctx) {
    if (i % AOF_REWRITE_ITEMS_PER_CMD) return 0;
    if (flush(b, out, ctx)) return -1;
    uint64_t items = n - i < AOF_REWRITE_ITEMS_PER_CMD ? n - i : AOF_REWRITE_ITEMS_PER_CMD;
    head(b, 2 + items * (uint64_t)per, name, key);
    return 0;
}

static int write_list(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out, void *ctx) {
    uint64_t n = list_len(val), i = 0;
    list_iter it;
    const char *p;
    size_t len;
    list_iter_init(&it, val);
    while (i < n && list_iter_next(&it, &p, &len)) {
        if (batch(b, i++, n, 1, "RPUSH", key, out, ctx)) return -1;
        bulk(b, p, len);
    }
    return i == n ? 0 : -1;
}

static int write_set(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out, void *ctx) {
    uint64_t n = set_len(val), i = 0;
    set_iter it;
    const char *p;
    size_t len;
    set_iter_init(&it, val);
    while (i < n && set_iter_next(&it, &p, &len)) {
        if (batch(b, i++, n, 1, "SADD", key, out, ctx)) return -1;
        bulk(b, p, len);
    }
    return i == n ? 0 : -1;
}

/* Scores as Redis's rioWriteBulkDouble: %.17g ("inf", "-inf" included). */
static int write_zset(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out, void *ctx) {
    uint64_t n = zset_len(val), i = 0;
    zset_iter it;
    const char *p;
    size_t len;
    double score;
    zset_iter_init(&it, val);
    while (i < n && zset_iter_next(&it, &p, &len, &score)) {
        if (batch(b, i++, n, 2, "ZADD", key, out, ctx)) return -1;
        char d[64];
        int dn = snprintf(d, sizeof d, "%.17g", score);
        bulk(b, d, (size_t)dn);
        bulk(b, p, len);
    }
    return i == n ? 0 : -1;
}

/* HMSET, as Redis 7.0's rewriteHashObject. */
static int write_hash(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out, void *ctx) {
    uint64_t n = hash_len(val), i = 0;
    hash_iter it;
    const char *f, *v;
    size_t fl, vl;
    hash_iter_init(&it, val);
    while (i < n && hash_iter_next(&it, &f, &fl, &v, &vl)) {
        if (batch(b, i++, n, 2, "HMSET", key, out, ctx)) return -1;
        bulk(b, f, fl);
        bulk(b, v, vl);
    }
    return i == n ? 0 : -1;
}

/* ---- streams, as Redis 7.0's rewriteStreamObject ---- */

static void bulk_id(vbuf *b, stream_id id) {
    char buf[STREAM_ID_STRMAX];
    bulk(b, buf, sid_format(buf, id));
}

static void bulk_ll(vbuf *b, long long v) {
    char buf[OBJ_INTBUF];
    bulk(b, buf, ll_to_str(buf, v));
}

static void bulk_str(vbuf *b, const char *s) { bulk(b, s, strlen(s)); }

/* After a command: hands the buffer over once it holds 16 KiB. */
static int maybe_flush(vbuf *b, rdb_out_fn out, void *ctx) {
    return b->len >= 16384 ? flush(b, out, ctx) : 0;
}

/* XADD key id field value ... per entry; an empty stream as
 * XADD key MAXLEN 0 0-1 x y. */
static int write_stream_entries(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out,
                                void *ctx) {
    if (stream_len(val) == 0) {
        head(b, 7, "XADD", key);
        bulk_str(b, "MAXLEN");
        bulk_str(b, "0");
        bulk_id(b, (stream_id){0, 1});
        bulk_str(b, "x");
        bulk_str(b, "y");
        return 0;
    }
    stream_iter it;
    stream_id id;
    size_t nf;
    uint64_t n = 0;
    stream_iter_init(&it, val, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) {
        head(b, 3 + 2 * (uint64_t)nf, "XADD", key);
        bulk_id(b, id);
        for (size_t i = 0; i < nf; i++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            bulk(b, f.p, f.len);
            bulk(b, v.p, v.len);
        }
        n++;
        if (maybe_flush(b, out, ctx)) return -1;
    }
    return n == stream_len(val) ? 0 : -1;
}

/* "*<argc>\r\n" XGROUP SUB key */
static void xgroup_head(vbuf *b, uint64_t argc, const char *sub, const keyref *key) {
    vbuf_appendf(b, "*%llu\r\n", (unsigned long long)argc);
    bulk_str(b, "XGROUP");
    bulk_str(b, sub);
    bulk(b, key->p, key->len);
}

/* A group's consumers: XGROUP CREATECONSUMER for one without pending
 * entries, else XCLAIM key group consumer 0 id TIME t RETRYCOUNT n JUSTID
 * FORCE per pending entry. */
static int write_consumers(vbuf *b, const keyref *key, const obj *val, const stream_str *gname,
                           uint64_t gid, rdb_out_fn out, void *ctx) {
    stream_consumer_iter ci;
    stream_str cname;
    stream_consumer c;
    stream_consumer_iter_init(&ci, val, gid);
    while (stream_consumer_iter_next(&ci, &cname, &c)) {
        if (stream_consumer_pending(val, gid, c.cid) == 0) {
            xgroup_head(b, 5, "CREATECONSUMER", key);
            bulk(b, gname->p, gname->len);
            bulk(b, cname.p, cname.len);
            if (maybe_flush(b, out, ctx)) return -1;
            continue;
        }
        stream_pel_iter pi;
        stream_id id;
        stream_nack nk;
        stream_pel_iter_init(&pi, val, gid, c.cid, STREAM_ID_MIN, STREAM_ID_MAX);
        while (stream_pel_iter_next(&pi, &id, &nk)) {
            head(b, 12, "XCLAIM", key);
            bulk(b, gname->p, gname->len);
            bulk(b, cname.p, cname.len);
            bulk_str(b, "0");
            bulk_id(b, id);
            bulk_str(b, "TIME");
            bulk_ll(b, nk.delivery_time);
            bulk_str(b, "RETRYCOUNT");
            bulk_ll(b, (long long)nk.delivery_count);
            bulk_str(b, "JUSTID");
            bulk_str(b, "FORCE");
            if (maybe_flush(b, out, ctx)) return -1;
        }
    }
    return 0;
}

/* The entries, XSETID key last ENTRIESADDED n MAXDELETEDID id, then per
 * group XGROUP CREATE key group last-id ENTRIESREAD n and its consumers. */
static int write_stream(vbuf *b, const keyref *key, const obj *val, rdb_out_fn out, void *ctx) {
    if (write_stream_entries(b, key, val, out, ctx)) return -1;
    const stream_meta *m = stream_meta_get(val);
    head(b, 7, "XSETID", key);
    bulk_id(b, m->last_id);
    bulk_str(b, "ENTRIESADDED");
    bulk_ll(b, (long long)m->entries_added);
    bulk_str(b, "MAXDELETEDID");
    bulk_id(b, m->max_deleted_id);
    stream_group_iter gi;
    stream_str gname;
    stream_group g;
    stream_group_iter_init(&gi, val);
    while (stream_group_iter_next(&gi, &gname, &g)) {
        xgroup_head(b, 7, "CREATE", key);
        bulk(b, gname.p, gname.len);
        bulk_id(b, g.last_id);
        bulk_str(b, "ENTRIESREAD");
        bulk_ll(b, g.entries_read);
        if (write_consumers(b, key, val, &gname, g.gid, out, ctx)) return -1;
    }
    return 0;
}

int aofrw_key(const char *kp, size_t klen, const obj *val, int64_t expire, rdb_out_fn out,
              void *ctx) {
    const keyref k = {kp, klen}, *key = &k;
    vbuf b = {0};
    int rc = 0;
    switch (val->type) {
    case OBJ_STRING:
        head(&b, 3, "SET", key);
        bulk_obj(&b, val);
        break;
    case OBJ_LIST: rc = write_list(&b, key, val, out, ctx); break;
    case OBJ_SET: rc = write_set(&b, key, val, out, ctx); break;
    case OBJ_ZSET: rc = write_zset(&b, key, val, out, ctx); break;
    case OBJ_HASH: rc = write_hash(&b, key, val, out, ctx); break;
    case OBJ_STREAM: rc = write_stream(&b, key, val, out, ctx); break;
    default: rc = -1; break;
    }
    if (rc == 0 && expire != VT_NO_EXPIRE) {
        char ms[OBJ_INTBUF];
        size_t n = ll_to_str(ms, expire);
        head(&b, 3, "PEXPIREAT", key);
        bulk(&b, ms, n);
    }
    if (rc == 0) rc = flush(&b, out, ctx);
    vbuf_free(&b);
    return rc;
}
