/* test_rdb_coll_values: hashes, lists, sets and sorted sets through the
 * RDB encoding.
 *
 * (2) values through rdb_write_value / rdb_read_value (the DUMP encoding,
 *     the snapshot's one encoder): every type in both encodings, quicklist
 *     nodes as list-max-listpack-size shapes them, damaged values refused
 *     with the type named, empty collections in a file skipped;
 * (3) DUMP payloads taken from a redis-server 7.0 started here, for every
 *     encoding it writes, decoded and compared with what its commands say;
 *     for lists, intsets and sorted-set listpacks (whose order is the
 *     value's own) our encoding of the same value is byte for byte Redis's.
 * Needs redis-server on PATH for (3). */
#include <check.h>
#include <hiredis/hiredis.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc64.h"
#include "listpack.h"
#include "rdb.h"
#include "rdb_coll.h"
#include "conf.h"
#include "server.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_zset.h"
#include "util.h"
#include "vbuf.h"
#include "harness.h"
#include "testcmp.h"
#include "inproc.h"

#define S(x) x, sizeof(x) - 1

/* ==== (2) values through the DUMP encoding ==== */

/* A value's contents as one canonical string: lists in order, zsets in
 * (score, member) order, hashes and sets sorted. */
typedef struct strs { char **v; size_t n, cap; } strs;

static void strs_add(strs *s, const char *a, size_t al, const char *b, size_t bl) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    char *x = xmalloc(al + bl + 2);
    memcpy(x, a, al);
    x[al] = '=';
    if (b) memcpy(x + al + 1, b, bl);
    x[al + 1 + (b ? bl : 0)] = '\0';
    s->v[s->n++] = x;
}

static char *strs_join(strs *s, int sort) {
    if (sort) qsort(s->v, s->n, sizeof *s->v, cmp_str);
    vbuf b;
    vbuf_init(&b);
    for (size_t i = 0; i < s->n; i++) {
        vbuf_append_str(&b, s->v[i]);
        vbuf_append(&b, "\n", 1);
        free(s->v[i]);
    }
    free(s->v);
    vbuf_append(&b, "", 1);
    return b.data;
}

static char *render(const obj *o) {
    strs s = {0};
    const char *p, *q;
    size_t pl, ql;
    if (o->type == OBJ_HASH) {
        hash_iter it;
        hash_iter_init(&it, o);
        while (hash_iter_next(&it, &p, &pl, &q, &ql)) strs_add(&s, p, pl, q, ql);
    } else if (o->type == OBJ_LIST) {
        list_iter it;
        list_iter_init(&it, o);
        while (list_iter_next(&it, &p, &pl)) strs_add(&s, p, pl, NULL, 0);
    } else if (o->type == OBJ_SET) {
        set_iter it;
        set_iter_init(&it, o);
        while (set_iter_next(&it, &p, &pl)) strs_add(&s, p, pl, NULL, 0);
    } else {
        zset_iter it;
        zset_iter_init(&it, o);
        double sc;
        while (zset_iter_next(&it, &p, &pl, &sc)) {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", sc);
            strs_add(&s, p, pl, buf, (size_t)n);
        }
    }
    return strs_join(&s, o->type == OBJ_HASH || o->type == OBJ_SET);
}

/* DUMP-encodes v (no footer), decodes it back: the same contents and
 * encoding. Returns the payload (caller frees). */
static unsigned char *roundtrip(const obj *v, int compress, size_t *len) {
    sink *out = sink_mem_open("test");
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_write_value(out, v, compress, err, sizeof err) == 0, "%s", err);
    const unsigned char *p = sink_mem_data(out, len);
    unsigned char *copy = xmalloc(*len);
    memcpy(copy, p, *len);
    sink_free(out);
    source *src = source_mem_open(copy, *len, "payload");
    obj *back = NULL;
    ck_assert_msg(rdb_read_value(src, &back, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(source_offset(src), *len);
    source_free(src);
    ck_assert_int_eq(back->type, v->type);
    ck_assert_int_eq(back->enc, v->enc);
    char *a = render(v), *b = render(back);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    obj_decref(back);
    return copy;
}

static char *num(char *buf, long long i) {
    ll_to_str(buf, i);
    return buf;
}

static obj *mk_hash(size_t n, size_t vlen) {
    hash_pair *p = xmalloc(n * sizeof *p);
    char **keep = xmalloc(2 * n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        char f[32];
        snprintf(f, sizeof f, "f%zu", i);
        keep[2 * i] = xstrdup(f);
        keep[2 * i + 1] = xmalloc(vlen + 1);
        if (i % 3 == 0) snprintf(keep[2 * i + 1], vlen + 1, "%zu", i * 1000);
        else memset(keep[2 * i + 1], 'a' + (int)(i % 26), vlen), keep[2 * i + 1][vlen] = 0;
        p[i] = (hash_pair){keep[2 * i], strlen(keep[2 * i]), keep[2 * i + 1],
                           strlen(keep[2 * i + 1])};
    }
    obj *h = hash_from_pairs(p, n);
    for (size_t i = 0; i < 2 * n; i++) free(keep[i]);
    free(keep);
    free(p);
    return h;
}

static obj *mk_list(size_t n, size_t every_big, size_t big) {
    list_elem *e = xmalloc(n * sizeof *e);
    char **keep = xmalloc(n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        size_t l = every_big && i % every_big == every_big - 1 ? big : 1 + i % 20;
        keep[i] = xmalloc(l + 1);
        if (i % 4 == 0) snprintf(keep[i], l + 1, "%lld", (long long)i * 7919 - 100000);
        else memset(keep[i], 'a' + (int)(i % 26), l), keep[i][l] = 0;
        e[i] = (list_elem){keep[i], strlen(keep[i])};
    }
    obj *l = list_from_elems(e, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(e);
    return l;
}

static obj *mk_set(size_t n, int ints) {
    set_member *m = xmalloc(n * sizeof *m);
    char **keep = xmalloc(n * sizeof *keep);
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        if (ints) keep[i] = xstrdup(num(buf, (long long)(i * 2654435761u % 100000000) - 50000000));
        else { snprintf(buf, sizeof buf, "m%zu", i); keep[i] = xstrdup(buf); }
        m[i] = (set_member){keep[i], strlen(keep[i])};
    }
    obj *s = set_from_members(m, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(m);
    return s;
}

static obj *mk_zset(size_t n) {
    zset_member *m = xmalloc(n * sizeof *m);
    char **keep = xmalloc(n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "z%zu", i);
        keep[i] = xstrdup(buf);
        double sc = i % 5 == 0 ? (double)i : i % 5 == 1 ? -(double)i / 3.0
                  : i % 5 == 2 ? 1e300 * (double)i : i % 5 == 3 ? 0.1 : 123456789012345.0;
        if (i == 7) sc = INFINITY;
        if (i == 8) sc = -INFINITY;
        m[i] = (zset_member){keep[i], strlen(keep[i]), sc};
    }
    obj *z = zset_from_members(m, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(m);
    return z;
}

START_TEST(test_values_roundtrip) {
    struct { obj *v; int enc; unsigned type; } cases[] = {
        { mk_hash(10, 5), OBJ_ENC_LISTPACK, 16 },
        { mk_hash(1000, 10), OBJ_ENC_HASHTABLE, 4 },
        { mk_hash(3, 100), OBJ_ENC_HASHTABLE, 4 },
        { mk_list(5, 0, 0), OBJ_ENC_QUICKLIST, 18 },
        { mk_list(5000, 0, 0), OBJ_ENC_QUICKLIST, 18 },
        { mk_list(300, 7, 10000), OBJ_ENC_QUICKLIST, 18 },
        { mk_set(100, 1), OBJ_ENC_INTSET, 11 },
        { mk_set(1000, 1), OBJ_ENC_HASHTABLE, 2 },
        { mk_set(50, 0), OBJ_ENC_HASHTABLE, 2 },
        { mk_zset(20), OBJ_ENC_LISTPACK, 17 },
        { mk_zset(2000), OBJ_ENC_SKIPLIST, 5 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(cases[i].v->enc == cases[i].enc, "case %zu: enc %d", i, cases[i].v->enc);
        for (int lzf = 0; lzf < 2; lzf++) {
            size_t len;
            unsigned char *p = roundtrip(cases[i].v, lzf ? RDB_COMPRESS_LZF : 0, &len);
            ck_assert_uint_eq(p[0], cases[i].type);
            free(p);
        }
        obj_decref(cases[i].v);
    }
}
END_TEST

/* Reads a payload; -1 expected with want in the message. */
static void expect_value_refused(const void *p, size_t n, const char *want) {
    source *src = source_mem_open(p, n, "payload");
    obj *v = NULL;
    char err[RDB_ERRLEN] = "";
    int rc = rdb_read_value(src, &v, err, sizeof err);
    source_free(src);
    if (rc == 0) obj_decref(v);
    ck_assert_msg(rc == -1, "accepted, want '%s'", want);
    ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
}

START_TEST(test_values_refused) {
    vbuf b;
    vbuf_init(&b);
    /* a hash listpack with an odd number of entries */
    vbuf lp;
    vbuf_init(&lp);
    lp_begin(&lp);
    lp_append(&lp, S("f"));
    lp_end(&lp, 1);
    unsigned char t = 16, l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "hash (listpack): an odd number of entries");
    /* duplicated field */
    lp_begin(&lp);
    lp_append(&lp, S("f"));
    lp_append(&lp, S("1"));
    lp_append(&lp, S("f"));
    lp_append(&lp, S("2"));
    lp_end(&lp, 4);
    vbuf_reset(&b);
    l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "duplicated field");
    /* zset listpack with a score that is no number */
    lp_begin(&lp);
    lp_append(&lp, S("m"));
    lp_append(&lp, S("abc"));
    lp_end(&lp, 2);
    vbuf_reset(&b);
    t = 17;
    l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "score \"abc\" is not a number");
    /* set (plain) with a duplicate; a zset_2 with a NaN score */
    expect_value_refused("\x02\x02\x01x\x01x", 6, "duplicated member");
    expect_value_refused("\x05\x01\x01m\x00\x00\x00\x00\x00\x00\xf8\x7f", 12, "NaN score");
    /* a length far beyond the payload; an empty collection; a bad container */
    expect_value_refused("\x04\x80\x10\x00\x00\x00", 6, "exceeds the");
    expect_value_refused("\x02\x00", 2, "empty value");
    expect_value_refused("\x12\x01\x03\x01x", 5, "bad node container 3");
    /* a listpack blob given as an integer */
    expect_value_refused("\x10\xc0\x05", 3, "is an integer, not a blob");
    /* a damaged intset */
    expect_value_refused("\x0b\x0a\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00", 12,
                         "set (intset): intset of 2");
    vbuf_free(&lp);
    vbuf_free(&b);
}
END_TEST

/* Empty strings as the first element of plain forms (the arena had no
 * block yet: UBSan caught a memcpy to NULL). */
START_TEST(test_empty_elements) {
    static const struct { const char *p; size_t n; int type; const char *want; } cases[] = {
        { "\x02\x02\x00\x01x", 5, OBJ_SET, "=\nx=\n" },
        { "\x04\x01\x00\x00", 4, OBJ_HASH, "=\n" },
        { "\x01\x02\x00\x00", 4, OBJ_LIST, "=\n=\n" },
        { "\x05\x01\x00\x00\x00\x00\x00\x00\x00\xf0\x3f", 12, OBJ_ZSET, "=1\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        source *src = source_mem_open(cases[i].p, cases[i].n, "payload");
        obj *v = NULL;
        char err[RDB_ERRLEN];
        ck_assert_msg(rdb_read_value(src, &v, err, sizeof err) == 0, "case %zu: %s", i, err);
        source_free(src);
        ck_assert_int_eq(v->type, cases[i].type);
        char *got = render(v);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
        obj_decref(v);
    }
}
END_TEST

/* Quicklist nodes: counts of elements per node as Redis 7.0 fills them
 * (an element joins a node while node bytes + its length + 8 stay within
 * the limit). 1000 elements "aaaaa" (entries of 7 bytes): fill -2 (8 KB
 * nodes) holds them all, fill -1 (4 KB) 584 per node (7 + 7 * 583 + 5 + 8
 * <= 4096), fill 3 three per node. */
static uint64_t node_count(const unsigned char *p, size_t len) {
    /* type byte, then a length: small payloads use 1-byte or 2-byte forms */
    ck_assert_uint_eq(p[0], 18);
    ck_assert(len > 2);
    if ((p[1] >> 6) == 0) return p[1] & 0x3f;
    ck_assert_uint_eq(p[1] >> 6, 1);
    return ((uint64_t)(p[1] & 0x3f) << 8) | p[2];
}

START_TEST(test_quicklist_nodes) {
    list_elem *e = xmalloc(1000 * sizeof *e);
    for (int i = 0; i < 1000; i++) e[i] = (list_elem){"aaaaa", 5};
    obj *l = list_from_elems(e, 1000);
    struct { int fill; uint64_t nodes; } cases[] = {
        { 3, 334 }, { 1, 1000 }, { 0, 1000 }, { 128, 8 },
        { -1, 2 }, { -2, 1 }, { -5, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rdb_set_writer_opts(cases[i].fill, 0);
        size_t len;
        unsigned char *p = roundtrip(l, 0, &len);
        ck_assert_msg(node_count(p, len) == cases[i].nodes, "fill %d: %llu nodes", cases[i].fill,
                      (unsigned long long)node_count(p, len));
        free(p);
    }
    rdb_set_writer_opts(-2, 0);
    obj_decref(l);
    /* big elements: alone in their nodes; past packed_threshold: PLAIN */
    e[0] = (list_elem){"x", 1};
    char *big = xmalloc(9000);
    memset(big, 'b', 9000);
    e[1] = (list_elem){big, 9000};
    e[2] = (list_elem){"y", 1};
    l = list_from_elems(e, 3);
    size_t len;
    unsigned char *p = roundtrip(l, 0, &len);
    ck_assert_uint_eq(node_count(p, len), 3);
    ck_assert_uint_eq(p[2], QL_NODE_PACKED);
    free(p);
    rdb_set_packed_threshold(100);
    p = roundtrip(l, 0, &len);
    ck_assert_uint_eq(node_count(p, len), 3);
    /* node 2: container 1 (PLAIN), then the 9000 bytes as a string */
    size_t n1 = 4 + p[3];   /* type, count, container, length byte, blob */
    ck_assert_uint_eq(p[n1], QL_NODE_PLAIN);
    free(p);
    rdb_set_packed_threshold(UINT64_C(1) << 30);
    obj_decref(l);
    free(big);
    free(e);
}
END_TEST

/* A file with an empty set (skipped and counted, as Redis skips empty
 * keys), a hash and a damaged list: the error names the list's key. */
static int got_keys;

static int on_key(void *priv, int dbi, obj *key, obj *val, int64_t expire, char *err,
                  size_t errlen) {
    (void)priv; (void)dbi; (void)expire; (void)err; (void)errlen;
    ck_assert(key->len == 1 && key->data[0] == 'h' && val->type == OBJ_HASH);
    got_keys++;
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static void file_bytes(vbuf *f, int damaged) {
    vbuf_reset(f);
    vbuf_append(f, "REDIS0010", 9);
    vbuf_append(f, "\xfe\x00", 2);                      /* SELECTDB 0 */
    vbuf_append(f, "\x02\x01" "e\x00", 4);                /* SET "e", 0 members */
    vbuf_append(f, "\x04\x01" "h\x01\x01" "f\x01" "v", 8);      /* HASH "h" f=v */
    if (damaged) vbuf_append(f, "\x12\x05" "mylst\x01\x02\x03" "abc", 12);   /* a 3-byte "listpack" */
    vbuf_append(f, "\xff", 1);
    uint64_t crc = crc64(0, (const unsigned char *)f->data, f->len);
    for (int i = 0; i < 8; i++) {
        unsigned char c = (unsigned char)(crc >> (8 * i));
        vbuf_append(f, &c, 1);
    }
}

START_TEST(test_file_empty_and_damaged) {
    vbuf f;
    vbuf_init(&f);
    rdb_load_cb cb = {.key = on_key};
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    for (int damaged = 0; damaged < 2; damaged++) {
        file_bytes(&f, damaged);
        source *src = source_mem_open(f.data, f.len, "dump.rdb");
        got_keys = 0;
        int rc = rdb_load(src, 0, &cb, NULL, &st, err, sizeof err);
        source_free(src);
        if (!damaged) {
            ck_assert_msg(rc == 0, "%s", err);
            ck_assert_int_eq(got_keys, 1);
            ck_assert_uint_eq(st.keys_empty, 1);
            ck_assert_uint_eq(st.keys_loaded, 1);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_msg(strstr(err, "dump.rdb: offset 32: key \"mylst\": list (quicklist v2): "
                                      "listpack of 3 bytes is shorter than its header"), "%s", err);
        }
    }
    vbuf_free(&f);
}
END_TEST

/* ==== (3) Redis's DUMP payloads ==== */

static srv *rsrv;
static redisContext *rctx;

static void redis_up(void) {
    rsrv = srv_start_redis("--appendonly no --rdbcompression no");
    rctx = srv_connect(rsrv);
}

static void redis_down(void) {
    if (rctx) redisFree(rctx);
    rctx = NULL;
    if (rsrv) {
        srv_kill9(rsrv);
        srv_stop(rsrv);
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

static void rok(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rctx, fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
    freeReplyObject(r);
}

/* What Redis's commands say the key holds, rendered as render() does. */
static char *redis_render(const char *key, int type) {
    strs s = {0};
    redisReply *r;
    if (type == OBJ_HASH) r = rq("HGETALL %s", key);
    else if (type == OBJ_LIST) r = rq("LRANGE %s 0 -1", key);
    else if (type == OBJ_SET) r = rq("SMEMBERS %s", key);
    else r = rq("ZRANGE %s 0 -1 WITHSCORES", key);
    int pairs = type == OBJ_HASH || type == OBJ_ZSET;
    for (size_t i = 0; i < r->elements; i += pairs ? 2 : 1) {
        redisReply *a = r->element[i];
        if (!pairs) {
            strs_add(&s, a->str, a->len, NULL, 0);
        } else if (type == OBJ_HASH) {
            strs_add(&s, a->str, a->len, r->element[i + 1]->str, r->element[i + 1]->len);
        } else {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", strtod(r->element[i + 1]->str, NULL));
            strs_add(&s, a->str, a->len, buf, (size_t)n);
        }
    }
    freeReplyObject(r);
    return strs_join(&s, type == OBJ_HASH || type == OBJ_SET);
}

/* DUMPs key from Redis, checks its first byte is rdbtype, decodes it with
 * our reader and compares with Redis's view; then our encoding of what we
 * decoded must be Redis's payload byte for byte when `same_bytes`. */
static void check_dump(const char *key, int type, unsigned rdbtype, int same_bytes) {
    redisReply *r = rq("DUMP %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_msg((unsigned char)r->str[0] == rdbtype, "%s: type %u, want %u", key,
                  (unsigned char)r->str[0], rdbtype);
    size_t n = r->len - 10;   /* the footer: version and CRC64 */
    source *src = source_mem_open(r->str, n, "redis DUMP");
    obj *v = NULL;
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_read_value(src, &v, err, sizeof err) == 0, "%s: %s", key, err);
    ck_assert_uint_eq(source_offset(src), n);
    source_free(src);
    ck_assert_int_eq(v->type, type);
    char *want = redis_render(key, type), *got = render(v);
    ck_assert_msg(strcmp(want, got) == 0, "%s differs", key);
    free(want);
    free(got);
    redisReply *enc = rq("OBJECT ENCODING %s", key);
    const char *ours = v->enc == OBJ_ENC_LISTPACK ? "listpack" : v->enc == OBJ_ENC_HASHTABLE
                       ? "hashtable" : v->enc == OBJ_ENC_INTSET ? "intset"
                       : v->enc == OBJ_ENC_SKIPLIST ? "skiplist" : "quicklist";
    ck_assert_str_eq(enc->str, ours);
    freeReplyObject(enc);
    if (same_bytes) {
        sink *out = sink_mem_open("ours");
        ck_assert(rdb_write_value(out, v, 0, err, sizeof err) == 0);
        size_t ol;
        const unsigned char *op = sink_mem_data(out, &ol);
        size_t d = 0;
        while (d < ol && d < n && op[d] == (unsigned char)r->str[d]) d++;
        if (d < n) fprintf(stderr, "%s: first difference at %zu: ours %02x redis %02x\n", key, d,
                           d < ol ? op[d] : 0, (unsigned char)r->str[d]);
        ck_assert_msg(ol == n && memcmp(op, r->str, n) == 0, "%s: our %zu bytes differ from "
                      "Redis's %zu", key, ol, n);
        sink_free(out);
    }
    obj_decref(v);
    freeReplyObject(r);
}

START_TEST(test_redis_dumps) {
    redis_up();
    /* hashes: listpack (ints and strings), hashtable by count and by length */
    rok("HSET hs a 1 b hello c -70000 d 3.5");
    for (int i = 0; i < 600; i++) rok("HSET hb f%d v%d", i, i * 31);
    rok("HSET hl f %s", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    check_dump("hs", OBJ_HASH, 16, 0);
    check_dump("hb", OBJ_HASH, 4, 0);
    check_dump("hl", OBJ_HASH, 4, 0);
    /* sets: intset of 16/32/64-bit members (same bytes), hashtable */
    rok("SADD s16 5 -3 1000");
    rok("SADD s32 5 -3 100000");
    rok("SADD s64 5 -3 10000000000");
    for (int i = 0; i < 600; i++) rok("SADD sbig %d", i * 3);
    rok("SADD sstr a b c 1");
    check_dump("s16", OBJ_SET, 11, 1);
    check_dump("s32", OBJ_SET, 11, 1);
    check_dump("s64", OBJ_SET, 11, 1);
    check_dump("sbig", OBJ_SET, 2, 0);
    check_dump("sstr", OBJ_SET, 2, 0);
    /* zsets: listpack (same bytes: ordered by score), skiplist */
    rok("ZADD zs 1 a 2.5 b -3 c 1e20 d inf e -inf f 0 g 0.1 h 4503599627370496 i");
    for (int i = 0; i < 200; i++) rok("ZADD zb %d.25 m%d", i, i);
    check_dump("zs", OBJ_ZSET, 17, 1);
    check_dump("zb", OBJ_ZSET, 5, 0);
    /* lists (same bytes): small, many nodes, big elements, and each fill */
    rok("RPUSH l1 a 1 -2 hello 300 70000 5000000000");
    for (int i = 0; i < 3000; i++) rok("RPUSH lmany e%d", i);
    char big[12000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rok("RPUSH lbig a %s b %s c", big, big + 5000);
    check_dump("l1", OBJ_LIST, 18, 1);
    check_dump("lmany", OBJ_LIST, 18, 1);
    check_dump("lbig", OBJ_LIST, 18, 1);
    static const int fills[] = { -1, -3, -4, -5, 1, 5, 100 };
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        rok("CONFIG SET list-max-listpack-size %d", fills[f]);
        rok("DEL lf");
        for (int i = 0; i < 2000; i++) rok("RPUSH lf %d%s", i * 13, i % 3 ? "x" : "");
        rdb_set_writer_opts(fills[f], 0);
        check_dump("lf", OBJ_LIST, 18, 1);
    }
    rdb_set_writer_opts(-2, 0);
    rok("CONFIG SET list-max-listpack-size -2");
    /* PLAIN nodes: Redis makes them for elements of packed_threshold bytes */
    rok("DEBUG QUICKLIST-PACKED-THRESHOLD 100");
    rok("RPUSH lplain a %s b", big);
    rdb_set_packed_threshold(100);
    check_dump("lplain", OBJ_LIST, 18, 1);
    rdb_set_packed_threshold(UINT64_C(1) << 30);
    redis_down();
}
END_TEST

static void teardown(void) { redis_down(); }

static Suite *coll_suite(void) {
    Suite *s = suite_create("rdb_coll_values");
    TCase *tv = tcase_create("values");
    tcase_add_test(tv, test_values_roundtrip);
    tcase_add_test(tv, test_values_refused);
    tcase_add_test(tv, test_quicklist_nodes);
    tcase_add_test(tv, test_file_empty_and_damaged);
    tcase_add_test(tv, test_empty_elements);
    tcase_set_timeout(tv, 120);
    suite_add_tcase(s, tv);
    TCase *tr = tcase_create("redis");
    tcase_add_checked_fixture(tr, NULL, teardown);
    tcase_add_test(tr, test_redis_dumps);
    tcase_set_timeout(tr, 180);
    suite_add_tcase(s, tr);
    return s;
}

int main(void) {
    inproc_conf();
    return h_main(coll_suite());
}
