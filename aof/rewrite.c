/* rewrite: one key as the commands that rebuild it (see rewrite.h). Each
 * command is built in a small buffer and handed to out() whole, so the
 * memory used is one command's (64 elements), whatever the value's size. */
#include "rewrite.h"

#include <stdio.h>
#include <string.h>

#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
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
