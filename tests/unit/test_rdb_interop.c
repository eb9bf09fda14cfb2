/* test_rdb_interop: our snapshot files against the real Redis 7.0.
 *
 * (a) a plain snapshot from our writer passes redis-check-rdb and
 *     redis-server loads it with every key, value and TTL intact;
 * (a') so do our snapshots with LZF strings (rdbcompression yes, verso's
 *     default) and with a zero checksum (rdbchecksum no);
 * (b) our LZ4 snapshot, after `lz4 -d`, does the same;
 * (c) a dump.rdb that redis-server SAVEs (int-encoded and LZF strings,
 *     expires, several databases) loads through rdb_load_file intact.
 *
 * Needs redis-server, redis-check-rdb and lz4 on PATH. Each server is the
 * harness's (srv_start_redis: a free port, --dir the test's own directory)
 * and is killed by the fixture's teardown, or by the kernel
 * (PR_SET_PDEATHSIG) if the test process dies first (Check's fork mode
 * skips teardown after a failed assertion). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rdb.h"
#include "harness.h"
#include "util.h"
#include "testrand.h"

static char tdir[256];
static srv *server;
static redisContext *rc_ctx;

static void setup(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tdir, sizeof tdir, "%s/test_rdb_interop.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tdir));
}

static void stop_server(void) {
    if (rc_ctx) redisFree(rc_ctx);
    rc_ctx = NULL;
    if (server) {
        srv_kill9(server);
        srv_stop(server);
    }
    server = NULL;
}

static void teardown(void) {
    stop_server();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- processes ---- */

/* Runs a shell command; returns its exit status, output in out. */
static int run(const char *cmd, char *out, size_t outlen) {
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, outlen - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Starts redis-server (harness: srv_start_redis) on `dbfile` in tdir and
 * connects once it has loaded the file (INFO loading:0). */
static void start_server(const char *dbfile) {
    server = srv_start_redis("--dir '%s' --dbfilename '%s' --appendonly no", tdir, dbfile);
    rc_ctx = srv_connect(server);
    h_wait_loaded(rc_ctx, 10000);
}

/* ---- a model of the data: bytes, database, absolute expire ---- */

typedef struct kv {
    int db;
    char *key, *val;
    size_t klen, vlen;
    int64_t expire;
    int is_int;      /* written as an INT object (test a) */
    long long ival;
} kv;

typedef struct model {
    kv *v;
    size_t n, cap;
} model;

static void model_add(model *m, int db, const char *k, size_t kl, const char *v, size_t vl,
                      int64_t expire) {
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 256;
        m->v = xrealloc(m->v, m->cap * sizeof *m->v);
    }
    kv *e = &m->v[m->n++];
    memset(e, 0, sizeof *e);
    e->db = db;
    e->key = xmalloc(kl + 1);
    memcpy(e->key, k, kl);
    e->klen = kl;
    e->val = xmalloc(vl + 1);
    memcpy(e->val, v, vl);
    e->vlen = vl;
    e->expire = expire;
}

static void model_free(model *m) {
    for (size_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].val);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

static char *rand_buf(size_t n, int kind) {
    char *p = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) {
        if (kind == 0) p[i] = (char)rnd();                       /* binary */
        else if (kind == 1) p[i] = (char)('a' + rnd() % 26);     /* text */
        else p[i] = "verso snapshot "[i % 15];                   /* compressible */
    }
    return p;
}

static const long long ints[] = {
    0, 7, -1, -128, 127, 128, -32768, 32767, 40000, -2147483648LL, 2147483647LL,
    2147483648LL, -9223372036854775807LL - 1, 9223372036854775807LL, 1234567890123LL,
};

/* Test (a)/(b) data: 3 databases interleaved, every kind of value. */
static void make_model_a(model *m, int64_t now) {
    static const int dbs[] = { 0, 3, 0, 9, 3 };
    for (int i = 0; i < 3000; i++) {
        char k[64], v[64];
        size_t kl = (size_t)snprintf(k, sizeof k, i % 9 == 4 ? "%d" : "key:%08d", i);
        int64_t exp = i % 5 == 0 ? now + 3600000 + i : i % 11 == 0 ? now + 86400000LL * 30 : -1;
        int db = dbs[(i / 41) % 5];
        if (i % 4 == 0) {
            long long x = ints[rnd() % (sizeof ints / sizeof ints[0])];
            size_t vl = (size_t)snprintf(v, sizeof v, "%lld", x);
            model_add(m, db, k, kl, v, vl, exp);
            m->v[m->n - 1].is_int = i % 8 == 0;   /* half INT objects, half RAW */
            m->v[m->n - 1].ival = x;
        } else if (i % 4 == 1) {
            size_t vl = i % 3 ? rnd() % 300 : 0;
            char *p = rand_buf(vl, 0);
            model_add(m, db, k, kl, p, vl, exp);
            free(p);
        } else {
            size_t vl = rnd() % 200;
            char *p = rand_buf(vl, 1);
            model_add(m, db, k, kl, p, vl, exp);
            free(p);
        }
    }
    char *big = rand_buf(1 << 20, 0), *big2 = rand_buf(300000, 2);
    model_add(m, 3, "big:binary", 10, big, 1 << 20, now + 7200000);
    model_add(m, 0, "big:text", 8, big2, 300000, -1);
    free(big);
    free(big2);
}

static void write_model(const model *m, const char *path, int compress) {
    char err[RDB_ERRLEN];
    rdb_aux aux = { "7.0.15", wall_ms() / 1000, 1 << 20, 0, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(path, compress, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    uint64_t keys[16] = {0}, exp[16] = {0};
    for (size_t i = 0; i < m->n; i++) {
        keys[m->v[i].db]++;
        exp[m->v[i].db] += m->v[i].expire != -1;
    }
    for (int db = 0; db < 16; db++)
        if (keys[db]) rdb_writer_dbsize(w, db, keys[db], exp[db]);
    for (size_t i = 0; i < m->n; i++) {
        const kv *e = &m->v[i];
        obj *k = obj_new_raw(e->key, e->klen);
        obj *v = e->is_int ? obj_new_int(e->ival) : obj_new_raw(e->val, e->vlen);
        ck_assert_msg(rdb_writer_put(w, e->db, k, v, e->expire) == 0, "%s", rdb_writer_error(w));
        obj_decref(k);
        obj_decref(v);
    }
    ck_assert_msg(rdb_writer_finish(w, err, sizeof err) == 0, "%s", err);
}

static void check_rdb_ok(const char *path, size_t nkeys) {
    char cmd[400], out[65536], want[64];
    snprintf(cmd, sizeof cmd, "redis-check-rdb '%s' 2>&1", path);
    int st = run(cmd, out, sizeof out);
    ck_assert_msg(st == 0, "redis-check-rdb: %s", out);
    ck_assert_msg(strstr(out, "Checksum OK") && strstr(out, "RDB looks OK"), "%s", out);
    snprintf(want, sizeof want, "[info] %zu keys read", nkeys);
    ck_assert_msg(strstr(out, want) != NULL, "want '%s' in: %s", want, out);
    ck_assert_ptr_null(strstr(out, "RDB ERROR"));
}

/* Compares everything in the running server with the model. */
static void compare_server(const model *m) {
    int64_t now = wall_ms();
    for (int db = 0; db < 16; db++) {
        size_t count = 0;
        for (size_t i = 0; i < m->n; i++) count += m->v[i].db == db;
        expect_status(rc_ctx, "OK", "SELECT %d", db);
        expect_int(rc_ctx, (long long)count, "DBSIZE");
        for (size_t i = 0; i < m->n; i++) {
            const kv *e = &m->v[i];
            if (e->db != db) continue;
            redisAppendCommand(rc_ctx, "GET %b", e->key, e->klen);
            redisAppendCommand(rc_ctx, "PEXPIRETIME %b", e->key, e->klen);
            redisAppendCommand(rc_ctx, "PTTL %b", e->key, e->klen);
        }
        for (size_t i = 0; i < m->n; i++) {
            const kv *e = &m->v[i];
            if (e->db != db) continue;
            redisReply *g, *pe, *pt;
            ck_assert_int_eq(redisGetReply(rc_ctx, (void **)&g), REDIS_OK);
            ck_assert_int_eq(redisGetReply(rc_ctx, (void **)&pe), REDIS_OK);
            ck_assert_int_eq(redisGetReply(rc_ctx, (void **)&pt), REDIS_OK);
            ck_assert_msg(g->type == REDIS_REPLY_STRING, "db %d key %.*s: GET type %d", db,
                          (int)e->klen, e->key, g->type);
            ck_assert_uint_eq(g->len, e->vlen);
            ck_assert_msg(memcmp(g->str, e->val, e->vlen) == 0, "value of %.*s", (int)e->klen, e->key);
            ck_assert_int_eq(pe->type, REDIS_REPLY_INTEGER);
            ck_assert_int_eq(pe->integer, e->expire);
            if (e->expire == -1) {
                ck_assert_int_eq(pt->integer, -1);
            } else {
                long long want = e->expire - now;
                ck_assert_msg(pt->integer <= want + 1000 && pt->integer >= want - 10000,
                              "PTTL %lld, want about %lld", pt->integer, want);
            }
            freeReplyObject(g);
            freeReplyObject(pe);
            freeReplyObject(pt);
        }
    }
}

/* (a) */
START_TEST(test_redis_loads_our_plain_snapshot) {
    model m = {0};
    make_model_a(&m, wall_ms());
    char path[320];
    snprintf(path, sizeof path, "%s/ours.rdb", tdir);
    write_model(&m, path, RDB_COMPRESS_NONE);
    check_rdb_ok(path, m.n);
    start_server("ours.rdb");
    compare_server(&m);
    model_free(&m);
}
END_TEST

/* (a') */
START_TEST(test_redis_loads_our_lzf_snapshot) {
    model m = {0};
    make_model_a(&m, wall_ms());
    char path[320], plain[320];
    snprintf(path, sizeof path, "%s/ours.rdb", tdir);
    snprintf(plain, sizeof plain, "%s/plain.rdb", tdir);
    write_model(&m, plain, RDB_COMPRESS_NONE);
    write_model(&m, path, RDB_COMPRESS_LZF);
    struct stat a, b;
    ck_assert_int_eq(stat(plain, &a), 0);
    ck_assert_int_eq(stat(path, &b), 0);
    /* the 300 KB text value alone shrinks by far more than this */
    ck_assert_int_lt(b.st_size + 200000, a.st_size);
    check_rdb_ok(path, m.n);
    start_server("ours.rdb");
    compare_server(&m);
    model_free(&m);
}
END_TEST

START_TEST(test_redis_loads_our_snapshot_without_checksum) {
    model m = {0};
    make_model_a(&m, wall_ms());
    char path[320], cmd[400], out[65536];
    snprintf(path, sizeof path, "%s/ours.rdb", tdir);
    write_model(&m, path, RDB_COMPRESS_LZF | RDB_NO_CHECKSUM);
    snprintf(cmd, sizeof cmd, "redis-check-rdb '%s' 2>&1", path);
    ck_assert_int_eq(run(cmd, out, sizeof out), 0);
    ck_assert_msg(strstr(out, "checksum disabled") && strstr(out, "RDB looks OK"), "%s", out);
    start_server("ours.rdb");
    compare_server(&m);
    model_free(&m);
}
END_TEST

/* (b) */
START_TEST(test_our_lz4_snapshot_is_a_redis_rdb_inside) {
    model m = {0};
    make_model_a(&m, wall_ms());
    char path[320], cmd[800], out[4096];
    snprintf(path, sizeof path, "%s/ours.rdb.lz4", tdir);
    write_model(&m, path, RDB_COMPRESS_LZ4);
    snprintf(cmd, sizeof cmd, "lz4 -d -q -c '%s' > '%s/plain.rdb' 2>&1", path, tdir);
    ck_assert_int_eq(run(cmd, out, sizeof out), 0);
    snprintf(path, sizeof path, "%s/plain.rdb", tdir);
    check_rdb_ok(path, m.n);
    start_server("plain.rdb");
    compare_server(&m);
    model_free(&m);
}
END_TEST

/* ---- (c) Redis writes, we read ---- */

typedef struct loaded {
    model m;
} loaded;

static int cb_key(void *priv, int db, obj *k, obj *v, int64_t expire, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    loaded *l = priv;
    char kb[OBJ_INTBUF], vb[OBJ_INTBUF];
    size_t kl, vl;
    const char *ks = obj_str(k, kb, &kl), *vs = obj_str(v, vb, &vl);
    model_add(&l->m, db, ks, kl, vs, vl, expire);
    l->m.v[l->m.n - 1].is_int = v->enc == OBJ_ENC_INT;
    obj_decref(k);
    obj_decref(v);
    return 0;
}

static const kv *find(const model *m, int db, const char *k, size_t kl) {
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].db == db && m->v[i].klen == kl && memcmp(m->v[i].key, k, kl) == 0)
            return &m->v[i];
    return NULL;
}

/* Fills the server through SET, remembering what it holds. */
static void fill_redis(model *m) {
    static const int dbs[] = { 0, 2, 7 };
    char k[128], v[64];
    for (int i = 0; i < 1500; i++) {
        int db = dbs[i % 3];
        expect_status(rc_ctx, "OK", "SELECT %d", db);
        size_t kl;
        if (i % 10 == 3)   /* a long compressible key: Redis writes it LZF */
            kl = (size_t)snprintf(k, sizeof k, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:%d", i);
        else if (i % 10 == 5)  /* an integer key: Redis writes it int-encoded */
            kl = (size_t)snprintf(k, sizeof k, "%d", i * 37 - 20000);
        else
            kl = (size_t)snprintf(k, sizeof k, "k:%d", i);
        char *val;
        size_t vl;
        switch (i % 5) {
        case 0:
            vl = (size_t)snprintf(v, sizeof v, "%lld", ints[rnd() % (sizeof ints / sizeof ints[0])]);
            val = xstrndup(v, vl);
            break;
        case 1: vl = rnd() % 100; val = rand_buf(vl, 0); break;
        case 2: vl = 1000 + rnd() % 30000; val = rand_buf(vl, 2); break;   /* LZF */
        case 3: vl = i % 2 ? 0 : 3; val = xstrndup("007", vl); break;   /* not an int */
        default: vl = rnd() % 60; val = rand_buf(vl, 1); break;
        }
        int64_t exp = -1;
        if (i % 4 == 0) {
            expect_status(rc_ctx, "OK", "SET %b %b PX %d", k, kl, val, vl, 600000 + i);
        } else if (i % 7 == 0) {
            expect_status(rc_ctx, "OK", "SET %b %b EX %d", k, kl, val, vl, 86400);
        } else {
            expect_status(rc_ctx, "OK", "SET %b %b", k, kl, val, vl);
        }
        if (i % 4 == 0 || i % 7 == 0) {
            redisReply *r = cmd(rc_ctx, "PEXPIRETIME %b", k, kl);
            ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
            exp = r->integer;
            freeReplyObject(r);
        }
        model_add(m, db, k, kl, val, vl, exp);
        free(val);
    }
    /* large values: 2 MB compressible (LZF) and 1 MB incompressible */
    expect_status(rc_ctx, "OK", "SELECT 2");
    char *big = rand_buf(2 << 20, 2), *rnd1 = rand_buf(1 << 20, 0);
    expect_status(rc_ctx, "OK", "SET big:lzf %b", big, (size_t)(2 << 20));
    expect_status(rc_ctx, "OK", "SET big:raw %b", rnd1, (size_t)(1 << 20));
    model_add(m, 2, "big:lzf", 7, big, 2 << 20, -1);
    model_add(m, 2, "big:raw", 7, rnd1, 1 << 20, -1);
    free(big);
    free(rnd1);
}

START_TEST(test_we_load_what_redis_saves) {
    start_server("dump.rdb");
    model want = {0};
    fill_redis(&want);
    expect_status(rc_ctx, "OK", "CONFIG SET rdbcompression yes");
    expect_status(rc_ctx, "OK", "SAVE");

    char path[320];
    snprintf(path, sizeof path, "%s/dump.rdb", tdir);
    loaded got = {0};
    rdb_load_cb cb = { .key = cb_key };
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    int rc = rdb_load_file(path, wall_ms(), &cb, &got, &st, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(st.compressed, 0);
    ck_assert_uint_eq(st.keys_expired, 0);
    ck_assert_uint_eq(got.m.n, want.n);
    ck_assert_uint_eq(st.keys_loaded, want.n);
    size_t total = 0, volatile_keys = 0;
    for (size_t i = 0; i < want.n; i++) {
        const kv *w = &want.v[i];
        const kv *g = find(&got.m, w->db, w->key, w->klen);
        ck_assert_msg(g != NULL, "db %d key %.*s not loaded", w->db, (int)w->klen, w->key);
        ck_assert_uint_eq(g->vlen, w->vlen);
        ck_assert_msg(memcmp(g->val, w->val, w->vlen) == 0, "value of %.*s", (int)w->klen, w->key);
        ck_assert_int_eq(g->expire, w->expire);
        total += w->vlen;
        volatile_keys += w->expire != -1;
    }
    /* the compressible values only fit if Redis wrote them LZF */
    ck_assert_uint_lt(st.file_bytes, total / 2);

    /* far in the future every key with an expire is skipped */
    model_free(&got.m);
    rc = rdb_load_file(path, INT64_MAX, &cb, &got, &st, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(st.keys_expired, volatile_keys);
    ck_assert_uint_eq(st.keys_loaded, want.n - volatile_keys);
    model_free(&got.m);
    model_free(&want);
}
END_TEST

static Suite *interop_suite(void) {
    Suite *s = suite_create("rdb_interop");
    TCase *tc = tcase_create("redis");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_redis_loads_our_plain_snapshot);
    tcase_add_test(tc, test_redis_loads_our_lzf_snapshot);
    tcase_add_test(tc, test_redis_loads_our_snapshot_without_checksum);
    tcase_add_test(tc, test_our_lz4_snapshot_is_a_redis_rdb_inside);
    tcase_add_test(tc, test_we_load_what_redis_saves);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return h_main(interop_suite()); }
