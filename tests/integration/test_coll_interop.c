/* test_coll_interop: hashes, lists, sets and sorted sets between verso and
 * Redis 7.0, through snapshot files and DUMP/RESTORE.
 *
 * The dataset (fill) is written by commands to both servers: every type in
 * its small and its big encoding, integers and strings, big list elements,
 * expires, two databases. Then:
 *  - redis-server SAVEs, verso starts on that file and serves the same
 *    keys, values, TTLs and encodings as redis-server restarted on it; once
 *    with Redis's default limits, once with limits raised or lowered by
 *    CONFIG SET (a 2000-field listpack hash, 5-element quicklist nodes, PLAIN
 *    nodes through DEBUG QUICKLIST-PACKED-THRESHOLD, ...);
 *  - verso SAVEs (with and without LZF strings), redis-check-rdb accepts the
 *    file and redis-server serves the same as verso;
 *  - every key DUMPed by one server is RESTOREd by the other, both ways;
 *  - files with the encodings Redis 7.0 still loads but no longer writes
 *    (zipmap, ziplist hashes/zsets/lists, quicklist v1, linked-list LIST and
 *    text-score ZSET), built here byte by byte with snapshot/listpack.c's
 *    encoders, load in verso and in redis-server with the same contents
 *    ($VERSO_OLD_ENCODINGS_RDB: a path where the file is also written, for
 *    tests/fuzz/gen_seeds.sh).
 * Needs redis-server and redis-check-rdb on PATH. */
#include "harness.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "crc64.h"
#include "listpack.h"
#include "vbuf.h"
#include "testcmp.h"

#define MAX_PROCS 8

#define REQUIRE(cond, ...)             \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

/* ---- fixture ---- */

static srv *g_redis[MAX_PROCS];
static int g_nredis;
static char g_dirs[MAX_PROCS][PATH_MAX];
static int g_ndirs;
static char g_base[1024];

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void setup(void) { g_nredis = g_ndirs = 0; }

static void teardown(void) {
    for (int i = 0; i < g_nredis; i++) {
        srv_kill9(g_redis[i]);
        srv_stop(g_redis[i]);
    }
    h_srv_drop_all();
    for (int i = 0; i < g_ndirs; i++) nftw(g_dirs[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_nredis = g_ndirs = 0;
}

static const char *new_dir(void) {
    ck_assert_int_lt(g_ndirs, MAX_PROCS);
    char *d = g_dirs[g_ndirs];
    snprintf(d, PATH_MAX, "%s/d.XXXXXX", g_base);
    ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp %s: %s", d, strerror(errno));
    g_ndirs++;
    return d;
}

static redisContext *connect_loaded(srv *s) {
    redisContext *c = srv_connect(s);
    struct timeval tv = { 60, 0 };
    redisSetTimeout(c, tv);
    h_wait_loaded(c, 30000);
    return c;
}

static redisContext *start_redis(const char *dir, const char *extra) {
    ck_assert_int_lt(g_nredis, MAX_PROCS);
    srv *s = srv_start_redis("--dir '%s' --dbfilename dump.rdb --appendonly no %s", dir,
                             extra ? extra : "");
    g_redis[g_nredis++] = s;
    return connect_loaded(s);
}

static redisContext *start_verso(const char *dir, const char *extra) {
    srv *s = h_srv_start("--dir '%s' --dbfilename dump.rdb %s", dir, extra ? extra : "");
    return connect_loaded(s);
}

static void copy_file(const char *from, const char *to) {
    size_t len;
    char *buf = h_slurp(from, &len, 1);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(buf);
}

static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static void check_rdb_ok(const char *path) {
    const char *argv[] = { "redis-check-rdb", path, NULL };
    char *out = NULL;
    int st = h_run(NULL, &out, 120000, argv);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
                  strstr(out, "RDB looks OK"), "redis-check-rdb %s: %.3000s", path, out);
    free(out);
}

/* ---- commands ---- */

static void ok_reply(redisReply *r, const char *what) {
    ck_assert_msg(r != NULL, "%s: no reply", what);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", what, r->str);
    freeReplyObject(r);
}

static void okf(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ok_reply(r, fmt);
}

/* A command built from words (binary-safe), for long variadic ones. */
typedef struct words { const char **v; size_t *l; size_t n, cap; char **owned; size_t nown; } words;

static void w_add(words *w, const char *p, size_t n) {
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 64;
        w->v = realloc(w->v, w->cap * sizeof *w->v);
        w->l = realloc(w->l, w->cap * sizeof *w->l);
        w->owned = realloc(w->owned, w->cap * sizeof *w->owned);
    }
    char *copy = malloc(n + 1);
    memcpy(copy, p, n);
    copy[n] = 0;
    w->owned[w->nown++] = copy;
    w->v[w->n] = copy;
    w->l[w->n++] = n;
}

static void w_addf(words *w, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    w_add(w, buf, (size_t)n);
}

static void w_run(redisContext *c, words *w) {
    redisReply *r = redisCommandArgv(c, (int)w->n, w->v, w->l);
    ok_reply(r, w->v[0]);
    for (size_t i = 0; i < w->nown; i++) free(w->owned[i]);
    free(w->v);
    free(w->l);
    free(w->owned);
    memset(w, 0, sizeof *w);
}

/* A string of n bytes, varying with seed. */
static void w_addbig(words *w, size_t n, int seed) {
    char *s = malloc(n);
    for (size_t i = 0; i < n; i++) s[i] = (char)('a' + (i * 7 + (size_t)seed) % 26);
    w_add(w, s, n);
    free(s);
}

/* The dataset, the same on both servers. `big` scales the big values. */
static void fill(redisContext *c, int big) {
    words w = {0};
    /* hashes: listpack with ints and strings; hashtable by count, by length */
    okf(c, "HSET h:small a 1 b hello c -70000 d 3.5 e 99999999999 f \"\"");
    w_addf(&w, "HSET"); w_addf(&w, "h:big");
    for (int i = 0; i < 700 * big; i++) { w_addf(&w, "field:%d", i); w_addf(&w, "%d", i * 37 - 5000); }
    w_run(c, &w);
    /* 300 fields: still listpack with Redis 7.0's default limit of 512 */
    w_addf(&w, "HSET"); w_addf(&w, "h:300");
    for (int i = 0; i < 300; i++) { w_addf(&w, "f%d", i); w_addf(&w, "v%d", i); }
    w_run(c, &w);
    w_addf(&w, "HSET"); w_addf(&w, "h:long"); w_addf(&w, "f"); w_addbig(&w, 100, 1);
    w_run(c, &w);
    /* lists: small, many nodes, big elements (one of 300 KB) */
    okf(c, "RPUSH l:small a 1 -2 hello 300 70000 5000000000 \"\"");
    w_addf(&w, "RPUSH"); w_addf(&w, "l:many");
    for (int i = 0; i < 5000 * big; i++) {
        if (i % 3) w_addf(&w, "e%d", i);
        else w_addf(&w, "%d", i * 101 - 20000);
    }
    w_run(c, &w);
    w_addf(&w, "RPUSH"); w_addf(&w, "l:bigelem"); w_addf(&w, "x");
    w_addbig(&w, 10000, 2); w_addf(&w, "y"); w_addbig(&w, 300000, 3); w_addf(&w, "z");
    w_run(c, &w);
    okf(c, "LPUSH l:ttl a b c");
    okf(c, "PEXPIRE l:ttl 86400000");
    /* sets: intset (16, 32 and 64-bit), hashtable by count, by strings */
    okf(c, "SADD s:int 5 -3 1000 32767");
    okf(c, "SADD s:int64 5 -3 10000000000 -9223372036854775808");
    w_addf(&w, "SADD"); w_addf(&w, "s:big");
    for (int i = 0; i < 1000 * big; i++) w_addf(&w, "%d", i * 3 - 700);
    w_run(c, &w);
    okf(c, "SADD s:str a b c 1 2");
    /* sorted sets: listpack, skiplist by count and by member length */
    okf(c, "ZADD z:small 1 a 2.5 b -3 c 1e20 d inf e -inf f 0 g 0.1 h 3.141592653589793 i");
    w_addf(&w, "ZADD"); w_addf(&w, "z:big");
    for (int i = 0; i < 500 * big; i++) { w_addf(&w, "%d.%d", i % 97 - 40, i % 7); w_addf(&w, "m%d", i); }
    w_run(c, &w);
    w_addf(&w, "ZADD"); w_addf(&w, "z:long"); w_addf(&w, "7"); w_addbig(&w, 80, 4);
    w_run(c, &w);
    okf(c, "EXPIRE z:long 100000");
    /* another database */
    okf(c, "SELECT 3");
    okf(c, "HSET h3 x y");
    okf(c, "RPUSH l3 1 2 3");
    okf(c, "SADD s3 7");
    okf(c, "ZADD z3 1 one");
    okf(c, "SELECT 0");
}

/* ---- the state of a server, as text ---- */

typedef struct lines { char **v; size_t n, cap; } lines;

static void l_add(lines *l, const char *a, size_t al, const char *b, size_t bl) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    char *x = malloc(al + bl + 3);
    memcpy(x, a, al);
    x[al] = '=';
    if (b) memcpy(x + al + 1, b, bl);
    x[al + 1 + (b ? bl : 0)] = '\n';
    x[al + 2 + (b ? bl : 0)] = 0;
    l->v[l->n++] = x;
}

static void l_join(lines *l, int sort, vbuf *out) {
    if (sort) qsort(l->v, l->n, sizeof *l->v, cmp_str);
    for (size_t i = 0; i < l->n; i++) {
        vbuf_append_str(out, l->v[i]);
        free(l->v[i]);
    }
    free(l->v);
    memset(l, 0, sizeof *l);
}

static redisReply *cmdf(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r && r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r ? r->str : "no reply");
    return r;
}

/* One key: its type, encoding (when with_enc), whether it has a TTL, and
 * its contents (hashes and sets sorted, zset scores as %.17g). */
static void render_key(redisContext *c, const char *key, size_t klen, int with_enc, vbuf *out) {
    redisReply *t = cmdf(c, "TYPE %b", key, klen);
    redisReply *ttl = cmdf(c, "PTTL %b", key, klen);
    vbuf_appendf(out, "### %.*s %s ttl:%d", (int)klen, key, t->str, ttl->integer > 0);
    freeReplyObject(ttl);
    if (with_enc) {
        redisReply *e = cmdf(c, "OBJECT ENCODING %b", key, klen);
        vbuf_appendf(out, " %s", e->str);
        freeReplyObject(e);
    }
    vbuf_append(out, "\n", 1);
    lines l = {0};
    redisReply *r;
    int sort = 0;
    if (!strcmp(t->str, "hash")) {
        r = cmdf(c, "HGETALL %b", key, klen);
        for (size_t i = 0; i + 1 < r->elements; i += 2)
            l_add(&l, r->element[i]->str, r->element[i]->len, r->element[i + 1]->str,
                  r->element[i + 1]->len);
        sort = 1;
    } else if (!strcmp(t->str, "list")) {
        r = cmdf(c, "LRANGE %b 0 -1", key, klen);
        for (size_t i = 0; i < r->elements; i++)
            l_add(&l, r->element[i]->str, r->element[i]->len, NULL, 0);
    } else if (!strcmp(t->str, "set")) {
        r = cmdf(c, "SMEMBERS %b", key, klen);
        for (size_t i = 0; i < r->elements; i++)
            l_add(&l, r->element[i]->str, r->element[i]->len, NULL, 0);
        sort = 1;
    } else if (!strcmp(t->str, "zset")) {
        r = cmdf(c, "ZRANGE %b 0 -1 WITHSCORES", key, klen);
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", strtod(r->element[i + 1]->str, NULL));
            l_add(&l, r->element[i]->str, r->element[i]->len, buf, (size_t)n);
        }
    } else {
        r = cmdf(c, "GET %b", key, klen);
        l_add(&l, r->str, r->len, NULL, 0);
    }
    freeReplyObject(r);
    freeReplyObject(t);
    l_join(&l, sort, out);
}

/* Databases 0 and 3, keys sorted. Caller frees. */
static char *render_all(redisContext *c, int with_enc) {
    vbuf out;
    vbuf_init(&out);
    static const int dbs[] = { 0, 3 };
    for (int d = 0; d < 2; d++) {
        okf(c, "SELECT %d", dbs[d]);
        vbuf_appendf(&out, "== db %d\n", dbs[d]);
        redisReply *k = cmdf(c, "KEYS *");
        char **names = malloc((k->elements + 1) * sizeof *names);
        for (size_t i = 0; i < k->elements; i++) names[i] = k->element[i]->str;
        qsort(names, k->elements, sizeof *names, cmp_str);
        for (size_t i = 0; i < k->elements; i++) render_key(c, names[i], strlen(names[i]), with_enc, &out);
        free(names);
        freeReplyObject(k);
    }
    okf(c, "SELECT 0");
    vbuf_append(&out, "", 1);
    return out.data;
}

/* The two renderings are equal; on a difference, says where. */
static void same_state(const char *a, const char *b, const char *what) {
    if (strcmp(a, b) == 0) return;
    size_t i = 0;
    while (a[i] && a[i] == b[i]) i++;
    size_t from = i > 200 ? i - 200 : 0;
    ck_abort_msg("%s: states differ at byte %zu:\n--- A: %.400s\n--- B: %.400s", what, i,
                 a + from, b + from);
}

static void save(redisContext *c) { okf(c, "SAVE"); }

/* ---- tests ---- */

/* redis-server's file, loaded by verso: the same as redis-server itself
 * serves after a restart on it (encodings included). */
static void redis_to_verso(const char *limits, int plain_nodes, int big) {
    const char *rdir = new_dir(), *vdir = new_dir();
    redisContext *r = start_redis(rdir, limits);
    if (plain_nodes) okf(r, "DEBUG QUICKLIST-PACKED-THRESHOLD 1000");
    fill(r, big);
    save(r);
    char from[PATH_MAX + 16], to[PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/dump.rdb", rdir);
    snprintf(to, sizeof to, "%s/dump.rdb", vdir);
    copy_file(from, to);
    redisFree(r);
    redisContext *r2 = start_redis(rdir, limits);   /* Redis reloaded on its file */
    redisContext *v = start_verso(vdir, limits);
    char *want = render_all(r2, 1), *got = render_all(v, 1);
    same_state(want, got, "redis dump loaded by redis (A) and verso (B)");
    free(want);
    free(got);
    redisFree(r2);
    redisFree(v);
}

START_TEST(test_redis_file_to_verso) { redis_to_verso(NULL, 0, 1); }
END_TEST

START_TEST(test_redis_file_to_verso_limits) {
    /* a 2000-field listpack hash, 700-member listpack zset, 1000-member
     * intset; 5-element quicklist nodes; elements of 1000+ bytes in PLAIN
     * nodes on Redis's side */
    redis_to_verso("--hash-max-listpack-entries 2000 --zset-max-listpack-entries 1000 "
                   "--set-max-intset-entries 5000 --list-max-listpack-size 5 "
                   "--hash-max-listpack-value 200 --zset-max-listpack-value 100",
                   1, 1);
}
END_TEST

/* verso's file: redis-check-rdb accepts it, redis-server serves the same
 * as verso. */
static void verso_to_redis(const char *vextra) {
    const char *vdir = new_dir(), *rdir = new_dir();
    redisContext *v = start_verso(vdir, vextra);
    fill(v, 1);
    save(v);
    char from[PATH_MAX + 16], to[PATH_MAX + 16];
    snprintf(from, sizeof from, "%s/dump.rdb", vdir);
    snprintf(to, sizeof to, "%s/dump.rdb", rdir);
    copy_file(from, to);
    check_rdb_ok(to);
    redisContext *r = start_redis(rdir, NULL);
    char *want = render_all(v, 1), *got = render_all(r, 1);
    same_state(want, got, "verso (A) and redis-server on verso's dump (B)");
    free(want);
    free(got);
    redisFree(r);
    redisFree(v);
}

START_TEST(test_verso_file_to_redis) { verso_to_redis("--snapshot-compression none"); }
END_TEST

START_TEST(test_verso_file_to_redis_nolzf) {
    verso_to_redis("--snapshot-compression none --rdbcompression no --list-max-listpack-size 7");
}
END_TEST

/* Every key of `from` DUMPed and RESTOREd (with its TTL) into `to`. */
static void dump_restore_all(redisContext *from, redisContext *to) {
    static const int dbs[] = { 0, 3 };
    for (int d = 0; d < 2; d++) {
        okf(from, "SELECT %d", dbs[d]);
        okf(to, "SELECT %d", dbs[d]);
        redisReply *k = cmdf(from, "KEYS *");
        for (size_t i = 0; i < k->elements; i++) {
            const char *key = k->element[i]->str;
            size_t kl = k->element[i]->len;
            redisReply *p = cmdf(from, "DUMP %b", key, kl);
            redisReply *ttl = cmdf(from, "PTTL %b", key, kl);
            okf(to, "RESTORE %b %lld %b REPLACE", key, kl,
                ttl->integer > 0 ? ttl->integer : 0LL, p->str, p->len);
            freeReplyObject(ttl);
            freeReplyObject(p);
        }
        freeReplyObject(k);
    }
    okf(from, "SELECT 0");
    okf(to, "SELECT 0");
}

START_TEST(test_dump_restore_both_ways) {
    redisContext *r = start_redis(new_dir(), NULL), *v = start_verso(new_dir(), NULL);
    fill(r, 1);
    dump_restore_all(r, v);
    char *a = render_all(r, 0), *b = render_all(v, 0);
    same_state(a, b, "redis (A) DUMP -> verso (B) RESTORE");
    free(a);
    free(b);
    okf(r, "FLUSHALL");
    okf(v, "FLUSHALL");
    fill(v, 1);
    okf(v, "CONFIG SET rdbcompression no");
    dump_restore_all(v, r);
    a = render_all(v, 0);
    b = render_all(r, 0);
    same_state(a, b, "verso (A) DUMP -> redis (B) RESTORE");
    free(a);
    free(b);
    redisFree(r);
    redisFree(v);
}
END_TEST

/* ---- the encodings Redis 7.0 reads but no longer writes ---- */

static void b_u8(vbuf *b, unsigned v) {
    unsigned char c = (unsigned char)v;
    vbuf_append(b, &c, 1);
}

static void b_len(vbuf *b, uint64_t n) {
    if (n < 64) {
        b_u8(b, (unsigned)n);
    } else if (n < 16384) {
        b_u8(b, 0x40 | (unsigned)(n >> 8));
        b_u8(b, (unsigned)(n & 0xff));
    } else {
        b_u8(b, 0x80);
        for (int i = 3; i >= 0; i--) b_u8(b, (unsigned)(n >> (8 * i)) & 0xff);
    }
}

static void b_str(vbuf *b, const char *p, size_t n) {
    b_len(b, n);
    vbuf_append(b, p, n);
}

static void b_strz(vbuf *b, const char *s) { b_str(b, s, strlen(s)); }

static void b_blob(vbuf *b, const vbuf *blob) { b_str(b, blob->data, blob->len); }

/* An RDB version 9 file (Redis 5/6 era: quicklist v1) holding one key of
 * every old encoding; the expected state (render_all) in *want. */
static void old_encodings_file(vbuf *f) {
    vbuf_append(f, "REDIS0009", 9);
    b_u8(f, 0xFE); b_u8(f, 0);   /* SELECTDB 0 */
    vbuf blob;
    vbuf_init(&blob);
    /* HASH_ZIPMAP (9) */
    zm_begin(&blob);
    zm_append(&blob, "f1", 2, "v1", 2);
    zm_append(&blob, "num", 3, "12345", 5);
    char longv[300];
    memset(longv, 'L', sizeof longv);
    zm_append(&blob, "long", 4, longv, sizeof longv);   /* a 5-byte length */
    zm_end(&blob, 3);
    b_u8(f, 9); b_strz(f, "old:zipmap"); b_blob(f, &blob);
    /* HASH_ZIPLIST (13) */
    zl_begin(&blob);
    const char *hz[] = { "a", "1", "b", "-200", "c", "hello", "d", "4294967296" };
    for (int i = 0; i < 8; i++) zl_append(&blob, hz[i], strlen(hz[i]));
    zl_end(&blob, 8);
    b_u8(f, 13); b_strz(f, "old:hziplist"); b_blob(f, &blob);
    /* ZSET_ZIPLIST (12): member, score in score order */
    zl_begin(&blob);
    const char *zz[] = { "m1", "-1.5", "m2", "0", "m3", "7", "m4", "1e+30" };
    for (int i = 0; i < 8; i++) zl_append(&blob, zz[i], strlen(zz[i]));
    zl_end(&blob, 8);
    b_u8(f, 12); b_strz(f, "old:zziplist"); b_blob(f, &blob);
    /* LIST_ZIPLIST (10) */
    zl_begin(&blob);
    const char *lz[] = { "x", "12", "-100000", "yy", "9223372036854775807" };
    for (int i = 0; i < 5; i++) zl_append(&blob, lz[i], strlen(lz[i]));
    zl_end(&blob, 5);
    b_u8(f, 10); b_strz(f, "old:lziplist"); b_blob(f, &blob);
    /* LIST_QUICKLIST (14): three ziplist nodes, one with a 20 KB element */
    b_u8(f, 14); b_strz(f, "old:quicklist"); b_len(f, 3);
    for (int node = 0; node < 3; node++) {
        zl_begin(&blob);
        for (int i = 0; i < 50; i++) {
            char e[32];
            int n = snprintf(e, sizeof e, i % 2 ? "n%d-%d" : "%d", node, i * 1000 + node);
            zl_append(&blob, e, (size_t)n);
        }
        if (node == 1) {
            char *big = malloc(20000);
            memset(big, 'B', 20000);
            zl_append(&blob, big, 20000);
            free(big);
        }
        zl_end(&blob, node == 1 ? 51 : 50);
        b_blob(f, &blob);
    }
    /* LIST (1), SET (2), ZSET (3, text scores), HASH (4) plain forms */
    b_u8(f, 1); b_strz(f, "old:list"); b_len(f, 3);
    b_strz(f, "p"); b_u8(f, 0xC0); b_u8(f, 42); b_strz(f, "q");   /* an INT8 string */
    b_u8(f, 2); b_strz(f, "old:set"); b_len(f, 2); b_strz(f, "s1"); b_strz(f, "s2");
    b_u8(f, 3); b_strz(f, "old:zset"); b_len(f, 4);
    b_strz(f, "a"); b_u8(f, 3); vbuf_append(f, "1.5", 3);
    b_strz(f, "b"); b_u8(f, 254);                               /* +inf */
    b_strz(f, "c"); b_u8(f, 255);                               /* -inf */
    b_strz(f, "d"); b_u8(f, 2); vbuf_append(f, "-7", 2);
    /* SET_INTSET (11) */
    static const int64_t iv[] = { -40000, 1, 2, 70000 };
    is_encode(&blob, iv, 4);
    b_u8(f, 11); b_strz(f, "old:intset"); b_blob(f, &blob);
    vbuf_free(&blob);
    b_u8(f, 0xFF);
    uint64_t crc = crc64(0, (const unsigned char *)f->data, f->len);
    for (int i = 0; i < 8; i++) b_u8(f, (unsigned)(crc >> (8 * i)) & 0xff);
}

START_TEST(test_old_encodings) {
    vbuf f;
    vbuf_init(&f);
    old_encodings_file(&f);
    const char *rdir = new_dir(), *vdir = new_dir();
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/dump.rdb", rdir);
    write_bytes(p, f.data, f.len);
    check_rdb_ok(p);
    snprintf(p, sizeof p, "%s/dump.rdb", vdir);
    write_bytes(p, f.data, f.len);
    /* tests/fuzz/gen_seeds.sh takes the file as a seed of the RDB fuzzer */
    const char *seed = getenv("VERSO_OLD_ENCODINGS_RDB");
    if (seed && *seed) write_bytes(seed, f.data, f.len);
    vbuf_free(&f);
    redisContext *r = start_redis(rdir, NULL), *v = start_verso(vdir, NULL);
    char *a = render_all(r, 1), *b = render_all(v, 1);
    same_state(a, b, "old encodings in redis (A) and verso (B)");
    /* and what the file says */
    ck_assert_ptr_nonnull(strstr(b, "### old:zipmap hash ttl:0 hashtable\nf1=v1\nlong=LLL"));
    ck_assert_ptr_nonnull(strstr(b, "### old:zset zset ttl:0 listpack\nc=-inf\nd=-7\na=1.5\nb=inf\n"));
    ck_assert_ptr_nonnull(strstr(b, "### old:list list ttl:0 quicklist\np=\n42=\nq=\n"));
    ck_assert_ptr_nonnull(strstr(b, "### old:lziplist list ttl:0 quicklist\nx=\n12=\n-100000=\nyy=\n"
                                    "9223372036854775807=\n"));
    ck_assert_ptr_nonnull(strstr(b, "### old:intset set ttl:0 intset\n-40000=\n1=\n2=\n70000=\n"));
    redisReply *n = cmdf(v, "LLEN old:quicklist");
    ck_assert_int_eq(n->integer, 151);
    freeReplyObject(n);
    free(a);
    free(b);
    redisFree(r);
    redisFree(v);
}
END_TEST

/* A damaged collection in a file: verso refuses to start, naming the key. */
START_TEST(test_damaged_collection_named) {
    vbuf f;
    vbuf_init(&f);
    vbuf_append(&f, "REDIS0010", 9);
    b_u8(&f, 0xFE); b_u8(&f, 0);
    vbuf blob;
    vbuf_init(&blob);
    lp_begin(&blob);
    lp_append(&blob, "f", 1);
    lp_append(&blob, "v", 1);
    lp_end(&blob, 2);
    blob.data[LP_HDR + 2] = 9;   /* the first entry's back-length */
    b_u8(&f, 16); b_strz(&f, "broken:hash"); b_blob(&f, &blob);
    vbuf_free(&blob);
    b_u8(&f, 0xFF);
    uint64_t crc = crc64(0, (const unsigned char *)f.data, f.len);
    for (int i = 0; i < 8; i++) b_u8(&f, (unsigned)(crc >> (8 * i)) & 0xff);
    const char *dir = new_dir();
    char p[PATH_MAX + 16];
    snprintf(p, sizeof p, "%s/dump.rdb", dir);
    write_bytes(p, f.data, f.len);
    vbuf_free(&f);
    char port[16];
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[] = { srv_binary(), "--port", port, "--bind", "127.0.0.1", "--dir", dir,
                           "--dbfilename", "dump.rdb", "--save", "", NULL };
    char *out = NULL;
    int st = h_run(NULL, &out, h_scaled_ms(20000), argv);
    ck_assert_msg(st != -1 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0), "started: %s", out);
    ck_assert_msg(strstr(out, "key \"broken:hash\"") && strstr(out, "back-length"), "%s", out);
    free(out);
}
END_TEST

int main(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(g_base, sizeof g_base, "%s/test_coll_interop.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_base)) return EXIT_FAILURE;
    Suite *s = suite_create("coll_interop");
    h_add_tcase(s, "redis_file_to_verso", test_redis_file_to_verso, 120, setup, teardown);
    h_add_tcase(s, "redis_file_to_verso_limits", test_redis_file_to_verso_limits, 120, setup,
                teardown);
    h_add_tcase(s, "verso_file_to_redis", test_verso_file_to_redis, 120, setup, teardown);
    h_add_tcase(s, "verso_file_to_redis_nolzf", test_verso_file_to_redis_nolzf, 120, setup,
                teardown);
    h_add_tcase(s, "dump_restore_both_ways", test_dump_restore_both_ways, 120, setup, teardown);
    h_add_tcase(s, "old_encodings", test_old_encodings, 120, setup, teardown);
    h_add_tcase(s, "damaged_collection_named", test_damaged_collection_named, 60, setup,
                teardown);
    int rc = h_main(s);
    nftw(g_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
