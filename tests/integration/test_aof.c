/* Integration tests: the AOF files of a real verso-server (test_aof_crash.c
 * has kill -9 durability, the slow-disk behaviour and CONFIG SET appendonly).
 *
 *  - rewrite: BGREWRITEAOF under a write load (a second one is refused)
 *    leaves a manifest of one base + one incr, the old files deleted, and
 *    after a restart exactly the acknowledged writes; automatic rewrites by
 *    auto-aof-rewrite-percentage / -min-size, with aof_last_cow_size 0;
 *  - damage: a truncated last command (cut with aof-load-truncated yes,
 *    refused with no), garbage inside an INCR, a malformed manifest and a
 *    manifest naming a missing file refuse to start, naming file + offset;
 *  - interop: redis-check-aof accepts the directory (its base is a plain
 *    RDB); redis-server 7.0 loads a copy of it and serves the same data;
 *  - lazy expiry's DELs: bare from SCAN and RANDOMKEY, in MULTI/EXEC from
 *    other commands, transactions and scripts, as Redis 7.0 writes them.
 *
 * Every server a test starts (verso or redis-server) is killed by the
 * fixture teardown. */
#include "harness.h"
#include "testcmp.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FILES 16

/* ------------------------------------------------------------ fixture */

static srv *g_redis;             /* a redis-server started by the interop test */

static void setup(void) {}

static void teardown(void)
{
    if (g_redis) {
        srv_kill9(g_redis);
        srv_stop(g_redis);
        g_redis = NULL;
    }
    h_srv_drop_all();
}

#define start_srv h_srv_start /* remembered: teardown kills it */

/* ------------------------------------------------------------- helpers */

static long long info_int(redisContext *c, const char *field)
{
    return h_info_int(c, "persistence", field);
}

/* Polls INFO persistence until field >= want (or <= want when below);
 * fails after timeout_ms (scaled). Returns the last value. */
#define wait_info(c, field, want, below, timeout_ms)                                    \
    h_wait_info_at(__FILE__, __LINE__, c, "persistence", field, (below) ? H_LE : H_GE, \
                   want, timeout_ms)

/* A finished rewrite: aof_rewrites >= n, none running, status ok. */
static void wait_rewrites(redisContext *c, long long n)
{
    wait_info(c, "aof_rewrites", n, 0, 30000);
    wait_info(c, "aof_rewrite_in_progress", 0, 1, 30000);
    h_wait_info_str(c, "persistence", "aof_last_bgrewrite_status", "ok", 0);
}

static char *slurp(const char *path, size_t *len) { return h_slurp(path, len, 0); }

static void put_file(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "open %s", path);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static long long file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
}

/* <s's data dir>/appendonlydir[/name] */
static const char *aof_path(const srv *s, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/appendonlydir%s%s", s->dir, name ? "/" : "", name ? name : "");
    return buf;
}

typedef struct mfile {
    char name[256];
    long long seq;
    char type;
} mfile;

/* The manifest's lines; fails on a line not in verso's own syntax. */
static int read_manifest(const srv *s, mfile *files, int max)
{
    char path[4096], line[1100];
    FILE *f = fopen(aof_path(s, "appendonly.aof.manifest", path, sizeof path), "r");
    ck_assert_msg(f != NULL, "no manifest at %s", path);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        ck_assert_int_lt(n, max);
        ck_assert_msg(sscanf(line, "file %255s seq %lld type %c", files[n].name,
                             &files[n].seq, &files[n].type) == 3,
                      "manifest line '%s'", line);
        n++;
    }
    fclose(f);
    return n;
}

/* The manifest holds exactly one base and one incr, after it. */
static void check_base_plus_incr(const srv *s, mfile *base, mfile *incr)
{
    mfile m[MAX_FILES];
    int n = read_manifest(s, m, MAX_FILES);
    ck_assert_msg(n == 2 && m[0].type == 'b' && m[1].type == 'i',
                  "manifest: %d lines, want one base and one incr", n);
    if (base)
        *base = m[0];
    if (incr)
        *incr = m[1];
}

/* The last INCR file's name. */
static void last_incr(const srv *s, char *name, size_t cap)
{
    mfile m[MAX_FILES];
    int n = read_manifest(s, m, MAX_FILES);
    ck_assert_int_ge(n, 1);
    ck_assert_int_eq(m[n - 1].type, 'i');
    snprintf(name, cap, "%s", m[n - 1].name);
}

/* Entries of s's appendonlydir, other than . and .. */
static int count_aof_dir(const srv *s)
{
    char path[4096];
    return h_dir_entries(aof_path(s, NULL, path, sizeof path));
}

/* Starts verso on the data dir of owner (dead) with the AOF on, expecting
 * it to refuse: returns its output (malloc'd), having checked that it
 * exited non-zero. `extra` is one more "--name value" pair or NULL. */
static char *refused_start(const srv *owner, const char *name, const char *value)
{
    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[] = { srv_binary(), "--port", port, "--bind", "127.0.0.1",
                           "--dir", owner->dir, "--save", "", "--appendonly", "yes",
                           name, value, NULL };
    int st = h_run(NULL, &out, 30000, argv);
    ck_assert_msg(st != -1, "the server did not refuse to start: %s", out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0,
                  "the server did not exit non-zero (status 0x%x): %s", st, out);
    return out;
}

/* ----------------------------------------------- a model of writes */

#define NW 4        /* writer threads */
#define WKEYS 50    /* keys per thread */

typedef struct wkey {
    char val[1200];
    size_t len;
    int exists;
} wkey;

typedef struct wthread {
    int id;
    redisContext *c;
    wkey keys[WKEYS];
    int *stop;                 /* set by the main thread (atomic) */
    long long acked;
    char error[512];
} wthread;

/* Writes SET / INCR / APPEND on keys "w:<id>:<j>" until *stop, keeping
 * the model of what was acknowledged (w:..:j for j % 3 == 1 are counters). */
static void *writer_main(void *arg)
{
    wthread *w = arg;
    unsigned seed = (unsigned)w->id * 7919u + 17u;
    for (long long n = 0; !__atomic_load_n(w->stop, __ATOMIC_RELAXED); n++) {
        int j = rand_r(&seed) % WKEYS;
        wkey *k = &w->keys[j];
        char name[32], val[64], want[1200];
        snprintf(name, sizeof name, "w:%d:%d", w->id, j);
        redisReply *r;
        long long expect = -1;
        size_t wlen;
        if (j % 3 == 1) {
            wlen = (size_t)snprintf(want, sizeof want, "%lld",
                                    (k->exists ? atoll(k->val) : 0) + 1);
            expect = atoll(want);
            r = redisCommand(w->c, "INCR %s", name);
        } else if (j % 3 == 2 && k->exists && k->len < 1100) {
            int vl = snprintf(val, sizeof val, "+%lld", n);
            memcpy(want, k->val, k->len);
            memcpy(want + k->len, val, (size_t)vl);
            wlen = k->len + (size_t)vl;
            expect = (long long)wlen;
            r = redisCommand(w->c, "APPEND %s %s", name, val);
        } else {
            wlen = (size_t)snprintf(want, sizeof want, "v%d-%lld", w->id, n);
            r = redisCommand(w->c, "SET %s %s", name, want);
        }
        int ok = r && (expect < 0 ? r->type == REDIS_REPLY_STATUS
                                  : r->type == REDIS_REPLY_INTEGER && r->integer == expect);
        if (!ok) {
            char got[256];
            snprintf(w->error, sizeof w->error, "%s: got %s", name,
                     r ? h_reply_str(r, got, sizeof got) : w->c->errstr);
            freeReplyObject(r);
            return NULL;
        }
        freeReplyObject(r);
        memcpy(k->val, want, wlen);
        k->len = wlen;
        k->exists = 1;
        __atomic_fetch_add(&w->acked, 1, __ATOMIC_RELAXED);
    }
    return NULL;
}

static void writers_start(srv *s, wthread *ws, pthread_t *tid, int *stop)
{
    for (int i = 0; i < NW; i++) {
        ws[i].id = i;
        ws[i].c = srv_connect(s);
        ws[i].stop = stop;
        ck_assert_int_eq(pthread_create(&tid[i], NULL, writer_main, &ws[i]), 0);
    }
}

static void writers_stop(wthread *ws, pthread_t *tid, int *stop)
{
    __atomic_store_n(stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < NW; i++) {
        pthread_join(tid[i], NULL);
        redisFree(ws[i].c);
        ck_assert_msg(ws[i].error[0] == '\0', "writer %d: %s", i, ws[i].error);
    }
}

/* Every model key against c; returns how many keys the model has. */
static long long check_model(redisContext *c, const wthread *ws)
{
    long long n = 0;
    for (int i = 0; i < NW; i++)
        for (int j = 0; j < WKEYS; j++) {
            const wkey *k = &ws[i].keys[j];
            char name[32];
            snprintf(name, sizeof name, "w:%d:%d", i, j);
            redisReply *r = cmd(c, "GET %s", name);
            if (k->exists) {
                ck_assert_msg(r->type == REDIS_REPLY_STRING && r->len == k->len &&
                                  !memcmp(r->str, k->val, k->len),
                              "%s: want '%.*s', got '%s'", name, (int)k->len, k->val,
                              r->type == REDIS_REPLY_STRING ? r->str : "(not a string)");
                n++;
            } else {
                ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
            }
            freeReplyObject(r);
        }
    return n;
}

/* ------------------------------------------- 2: rewrite under load */

static long long acked_total(const wthread *ws)
{
    long long n = 0;
    for (int i = 0; i < NW; i++)
        n += __atomic_load_n(&ws[i].acked, __ATOMIC_RELAXED);
    return n;
}

START_TEST(rewrite_under_load)
{
    srv *s = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_rewrites(c, 1);
    const int npop = 200000;
    expect_status(c, "OK", "DEBUG POPULATE %d", npop);
    mfile ob, oi, nb, ni;
    check_base_plus_incr(s, &ob, &oi);

    static wthread ws[NW];
    memset(ws, 0, sizeof ws);
    pthread_t tid[NW];
    static int stop; /* static: threads may outlive a failed test's frame */
    stop = 0;
    writers_start(s, ws, tid, &stop);
    h_sleep_ms(200);
    long long acked_before = acked_total(ws);
    /* Pipelined: the second arrives while the first is surely running. */
    redisAppendCommand(c, "BGREWRITEAOF");
    redisAppendCommand(c, "BGREWRITEAOF");
    redisReply *r1 = NULL, *r2 = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r1), REDIS_OK);
    ck_assert_int_eq(redisGetReply(c, (void **)&r2), REDIS_OK);
    ck_assert_msg(r1->type == REDIS_REPLY_STATUS &&
                      !strcmp(r1->str, "Background append only file rewriting started"),
                  "first BGREWRITEAOF: %s", r1->str);
    ck_assert_msg(r2->type == REDIS_REPLY_ERROR &&
                      !strcmp(r2->str, "ERR Background append only file rewriting "
                                       "already in progress"),
                  "second BGREWRITEAOF: %s", r2->str);
    freeReplyObject(r1);
    freeReplyObject(r2);
    wait_rewrites(c, 2);
    long long acked_during = acked_total(ws) - acked_before;
    h_sleep_ms(200);
    writers_stop(ws, tid, &stop);
    ck_assert_int_gt(acked_during, 0);

    check_base_plus_incr(s, &nb, &ni);
    ck_assert_int_gt(nb.seq, ob.seq);
    ck_assert_int_gt(ni.seq, oi.seq);
    char path[4096];
    long long end = h_now_ms() + 5000;
    while (count_aof_dir(s) != 3 && h_now_ms() < end)
        h_sleep_ms(10); /* old files are unlinked in the background */
    ck_assert_int_eq(count_aof_dir(s), 3); /* manifest, base, incr */
    ck_assert_int_eq(file_size(aof_path(s, ob.name, path, sizeof path)), -1);
    ck_assert_int_eq(file_size(aof_path(s, oi.name, path, sizeof path)), -1);
    long long nkeys = check_model(c, ws);
    fprintf(stderr, "rewrite_under_load: %lld writes acknowledged during the rewrite, "
            "%lld in all\n", acked_during, acked_total(ws));
    srv_kill9(s);
    redisFree(c);

    srv *s2 = h_srv_start_on(s, "--appendonly yes --appendfsync always");
    c = srv_connect(s2);
    expect_int(c, npop + nkeys, "DBSIZE");
    ck_assert_int_eq(check_model(c, ws), nkeys);
    expect_bulk(c, "value:0", "GET key:0");
    expect_bulk(c, "value:199999", "GET key:199999");
    redisFree(c);
}
END_TEST

/* Pipelines n SETs of `size`-byte values on keys <prefix>:<i % nkeys>. */
static void pipeline_sets(redisContext *c, const char *prefix, int n, int nkeys, size_t size)
{
    char *val = malloc(size);
    ck_assert_ptr_nonnull(val);
    memset(val, 'v', size);
    for (int i = 0; i < n; i++)
        redisAppendCommand(c, "SET %s:%d %b", prefix, i % nkeys, val, size);
    for (int i = 0; i < n; i++) {
        redisReply *r = NULL;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
        freeReplyObject(r);
    }
    free(val);
}

START_TEST(auto_rewrite)
{
    /* rdbcompression no: the values are one byte repeated, which LZF would
     * shrink to nothing in the base, and the sizes below count them */
    srv *s = start_srv("--appendonly yes --appendfsync no --auto-aof-rewrite-percentage 100 "
                       "--auto-aof-rewrite-min-size 200kb --rdbcompression no");
    redisContext *c = srv_connect(s);
    wait_rewrites(c, 1);
    /* ~100 KB: past 100% growth, below the min size: no rewrite */
    pipeline_sets(c, "auto", 100, 20, 1000);
    h_sleep_ms(500); /* five cron runs */
    ck_assert_int_eq(info_int(c, "aof_rewrites"), 1);
    /* past the min size too */
    pipeline_sets(c, "auto", 200, 20, 1000);
    wait_rewrites(c, 2);
    ck_assert_msg(srv_log_wait(s, "Starting automatic rewriting", 1000),
                  "no 'Starting automatic rewriting' in the log");
    check_base_plus_incr(s, NULL, NULL);
    long long base = info_int(c, "aof_base_size"), cur = info_int(c, "aof_current_size");
    ck_assert_int_gt(base, 20 * 1000);   /* 20 keys of 1000 bytes */
    ck_assert_int_lt(cur, 100 * 1024);   /* the 300 KB of history are gone */
    ck_assert_int_eq(info_int(c, "aof_last_cow_size"), 0);
    /* and again once it doubles past the min size */
    pipeline_sets(c, "auto", 300, 20, 1000);
    wait_rewrites(c, 3);
    ck_assert_int_eq(info_int(c, "aof_last_cow_size"), 0);
    check_base_plus_incr(s, NULL, NULL);
    redisFree(c);
}
END_TEST

/* --------------------------------- 3: truncation and corruption */

/* A server with the AOF on and k0..k9 written, then killed. Returns it
 * (dead: its dir is the data dir), the last INCR's name, path and size. */
static srv *damaged_setup(char *name, char *path, size_t cap, long long *size)
{
    srv *s = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_rewrites(c, 1);
    for (int i = 0; i < 10; i++)
        expect_status(c, "OK", "SET k%d v%d", i, i);
    srv_kill9(s);
    redisFree(c);
    last_incr(s, name, 256);
    aof_path(s, name, path, cap);
    *size = file_size(path);
    ck_assert_int_gt(*size, 0);
    return s;
}

static void expect_in(const char *out, const char *needle)
{
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in the output:\n%s", needle, out);
}

START_TEST(truncated_last_command)
{
    char name[256], path[4096], at[64];
    long long size;
    srv *s = damaged_setup(name, path, sizeof path, &size);
    static const char tail[] = "*3\r\n$3\r\nSET\r\n$5\r\ntrunc\r\n$10\r\nabc";
    FILE *f = fopen(path, "ab");
    ck_assert_ptr_nonnull(f);
    fputs(tail, f);
    fclose(f);

    char *out = refused_start(s, "--aof-load-truncated", "no");
    expect_in(out, name);
    snprintf(at, sizeof at, "offset %lld", size);
    expect_in(out, at);
    free(out);
    ck_assert_int_eq(file_size(path), size + (long long)strlen(tail)); /* untouched */

    srv *s2 = h_srv_start_on(s, "--appendonly yes --appendfsync always"); /* default: yes */
    char *log = srv_log_read(s2);
    ck_assert_msg(strstr(log, "Truncating the AOF") && strstr(log, name),
                  "no truncation warning in the log:\n%s", log);
    free(log);
    ck_assert_int_eq(file_size(path), size); /* cut back */
    redisContext *c = srv_connect(s2);
    for (int i = 0; i < 10; i++) {
        char want[8];
        snprintf(want, sizeof want, "v%d", i);
        expect_bulk(c, want, "GET k%d", i);
    }
    expect_nil(c, "GET trunc");
    /* appends after the cut replay cleanly */
    expect_status(c, "OK", "SET after cut");
    srv_kill9(s2);
    redisFree(c);
    srv *s3 = h_srv_start_on(s, "--appendonly yes --appendfsync always");
    c = srv_connect(s3);
    expect_bulk(c, "cut", "GET after");
    expect_bulk(c, "v9", "GET k9");
    redisFree(c);
}
END_TEST

START_TEST(garbage_in_incr)
{
    char name[256], path[4096], at[64];
    long long size;
    srv *s = damaged_setup(name, path, sizeof path, &size);
    size_t len;
    char *aof = slurp(path, &len);
    ck_assert_ptr_nonnull(aof);
    char *k5 = memmem(aof, len, "\r\nk5\r\n", 6);
    ck_assert_ptr_nonnull(k5);
    while (k5 > aof && !(k5[0] == '*' && k5[-1] == '\n'))
        k5--; /* back to the start of that command */
    size_t off = (size_t)(k5 - aof);
    static const char junk[] = "this is no command\r\n";
    char *bad = malloc(len + sizeof junk);
    ck_assert_ptr_nonnull(bad);
    memcpy(bad, aof, off);
    memcpy(bad + off, junk, sizeof junk - 1);
    memcpy(bad + off + sizeof junk - 1, aof + off, len - off);
    put_file(path, bad, len + sizeof junk - 1);

    char *out = refused_start(s, NULL, NULL); /* aof-load-truncated yes */
    expect_in(out, name);
    snprintf(at, sizeof at, "offset %zu", off);
    expect_in(out, at);
    free(out);
    ck_assert_int_eq(file_size(path), (long long)(len + sizeof junk - 1)); /* untouched */
    free(aof);
    free(bad);
}
END_TEST

START_TEST(malformed_manifest)
{
    char name[256], path[4096];
    long long size;
    srv *s = damaged_setup(name, path, sizeof path, &size);
    aof_path(s, "appendonly.aof.manifest", path, sizeof path);
    static const char *bad[] = {
        "file appendonly.aof.1.base.rdb seq 1\n",     /* no type */
        "this is not a manifest\n",
        "file appendonly.aof.1.base.rdb seq 1 type b\n"
        "file appendonly.aof.2.base.rdb seq 2 type b\n", /* two bases */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        put_file(path, bad[i], strlen(bad[i]));
        char *out = refused_start(s, NULL, NULL);
        expect_in(out, "appendonly.aof.manifest");
        expect_in(out, i < 2 ? "Invalid AOF manifest file format"
                             : "Found duplicate base file information");
        free(out);
    }
}
END_TEST

START_TEST(manifest_lists_missing_file)
{
    char name[256], path[4096], mpath[4096];
    long long size;
    srv *s = damaged_setup(name, path, sizeof path, &size);
    aof_path(s, "appendonly.aof.manifest", mpath, sizeof mpath);
    size_t len;
    char *manifest = slurp(mpath, &len);
    ck_assert_ptr_nonnull(manifest);

    static const char extra[] = "file appendonly.aof.99.incr.aof seq 99 type i\n";
    FILE *f = fopen(mpath, "ab");
    ck_assert_ptr_nonnull(f);
    fputs(extra, f);
    fclose(f);
    char *out = refused_start(s, NULL, NULL);
    expect_in(out, "appendonly.aof.99.incr.aof");
    free(out);

    put_file(mpath, manifest, len); /* back as it was, then lose the base */
    mfile base;
    check_base_plus_incr(s, &base, NULL);
    ck_assert_int_eq(unlink(aof_path(s, base.name, path, sizeof path)), 0);
    out = refused_start(s, NULL, NULL);
    expect_in(out, base.name);
    free(out);
    free(manifest);
}
END_TEST

/* --------------------------------------------------- 4: interop */

typedef struct ikey {
    int db;
    char key[32];
    char *val;
    size_t len;
    int ttl;
} ikey;

#define NIKEYS 64
static ikey g_ik[NIKEYS];
static int g_nik;

/* Records that db holds key = val (with a TTL of 100000 s when ttl). */
static void irecord(int db, const char *key, const char *val, size_t len, int ttl)
{
    ck_assert_int_lt(g_nik, NIKEYS);
    ikey *k = &g_ik[g_nik++];
    k->db = db;
    snprintf(k->key, sizeof k->key, "%s", key);
    k->val = malloc(len + 1);
    ck_assert_ptr_nonnull(k->val);
    memcpy(k->val, val, len);
    k->len = len;
    k->ttl = ttl;
}

/* SET (with EX when ttl) in db, recorded in the model. */
static void iset(redisContext *c, int db, const char *key, const char *val, size_t len,
                 int ttl)
{
    expect_status(c, "OK", "SELECT %d", db);
    if (ttl)
        expect_status(c, "OK", "SET %s %b EX 100000", key, val, len);
    else
        expect_status(c, "OK", "SET %s %b", key, val, len);
    irecord(db, key, val, len, ttl);
}

/* Both servers must hold exactly the model (per-db sizes included). */
static void check_interop(redisContext *c, const char *who)
{
    int per_db[16] = { 0 };
    for (int i = 0; i < g_nik; i++) {
        ikey *k = &g_ik[i];
        per_db[k->db]++;
        expect_status(c, "OK", "SELECT %d", k->db);
        redisReply *r = cmd(c, "GET %s", k->key);
        ck_assert_msg(r->type == REDIS_REPLY_STRING && r->len == k->len &&
                          !memcmp(r->str, k->val, k->len),
                      "%s: db %d key %s differs", who, k->db, k->key);
        freeReplyObject(r);
        if (k->ttl)
            expect_int_range(c, 99000, 100000, "TTL %s", k->key);
        else
            expect_int(c, -1, "TTL %s", k->key);
    }
    for (int db = 0; db < 16; db++) {
        expect_status(c, "OK", "SELECT %d", db);
        expect_int(c, per_db[db], "DBSIZE");
    }
}

static void check_aof_tool(const srv *s, const char *when)
{
    char path[4096], *out = NULL;
    const char *argv[] = { "redis-check-aof",
                           aof_path(s, "appendonly.aof.manifest", path, sizeof path), NULL };
    int st = h_run(NULL, &out, 30000, argv);
    ck_assert_msg(st == 0 && strstr(out, "All AOF files and manifest are valid"),
                  "redis-check-aof %s (status 0x%x):\n%s", when, st, out);
    free(out);
}

/* redis-server (harness: srv_start_redis) on dir, its AOF on; a client
 * once it has loaded the AOF. */
static redisContext *start_redis_aof(const char *dir)
{
    g_redis = srv_start_redis("--dir '%s' --appendonly yes --appenddirname appendonlydir", dir);
    redisContext *c = srv_connect(g_redis);
    h_wait_loaded(c, 20000);
    return c;
}

START_TEST(redis_interop)
{
    srv *s = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_rewrites(c, 1);
    g_nik = 0;
    char name[32], val[100000];
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "str:%d", i);
        iset(c, 0, name, val, (size_t)snprintf(val, sizeof val, "value %d", i), 0);
    }
    for (int i = 0; i < 256; i++)
        val[i] = (char)i; /* NUL, CR, LF and all */
    iset(c, 0, "bin", val, 256, 0);
    memset(val, 'z', sizeof val);
    iset(c, 0, "big:lzf", val, sizeof val, 0);
    iset(c, 2, "ttl:a", "expires", 7, 1);
    iset(c, 3, "db3", "three", 5, 0);
    expect_status(c, "OK", "SELECT 0");
    for (int i = 0; i < 5; i++)
        expect_int(c, i + 1, "INCR counter");
    expect_int(c, 3, "APPEND app abc");
    check_aof_tool(s, "after writes");

    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    wait_rewrites(c, 2);
    expect_int(c, 6, "INCR counter");
    expect_int(c, 6, "APPEND app def");
    expect_int(c, 1, "DEL str:0");
    free(g_ik[0].val);
    g_ik[0] = g_ik[--g_nik]; /* str:0 is gone */
    iset(c, 0, "after:rewrite", "post", 4, 0);
    iset(c, 2, "ttl:b", "expires too", 11, 1);
    irecord(0, "counter", "6", 1, 0);
    irecord(0, "app", "abcdef", 6, 0);
    check_aof_tool(s, "after a rewrite");
    mfile base;
    check_base_plus_incr(s, &base, NULL);
    char path[4096];
    size_t blen;
    char *b = slurp(aof_path(s, base.name, path, sizeof path), &blen);
    ck_assert_msg(b && blen > 9 && !memcmp(b, "REDIS", 5), "the base is not a plain RDB");
    free(b);
    check_interop(c, "verso");
    srv_kill9(s);
    redisFree(c);

    char copy[4200], *out = NULL;
    snprintf(copy, sizeof copy, "%s/copy", s->dir);
    ck_assert_int_eq(mkdir(copy, 0755), 0);
    const char *cp[] = { "cp", "-r", aof_path(s, NULL, path, sizeof path), copy, NULL };
    ck_assert_int_eq(h_run(NULL, &out, 30000, cp), 0);
    free(out);
    c = start_redis_aof(copy);
    check_interop(c, "redis-server");
    redisFree(c);
    for (int i = 0; i < g_nik; i++)
        free(g_ik[i].val);
    g_nik = 0;
}
END_TEST

/* ------------------------------------------- lazy expiry's DELs */

/* The commands of s's last INCR file, one a line ("DEL k"), the command
 * name upper-cased, SET, SELECT and the markers' own commands left out. */
static char *incr_commands(const srv *s)
{
    char name[300], path[4096];
    last_incr(s, name, sizeof name);
    size_t len;
    char *raw = h_slurp(aof_path(s, name, path, sizeof path), &len, 1);
    size_t cap = len + 64, n = 0;
    char *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    const char *p = raw, *end = raw + len;
    while (p < end) {
        ck_assert_msg(*p == '*', "not a command at %td", p - raw);
        long argc = strtol(p + 1, (char **)&p, 10);
        p += 2;
        size_t start = n;
        for (long i = 0; i < argc; i++) {
            ck_assert(*p == '$');
            long alen = strtol(p + 1, (char **)&p, 10);
            p += 2;
            for (long k = 0; k < alen; k++)
                out[n++] = i == 0 ? (char)toupper((unsigned char)p[k]) : p[k];
            out[n++] = i + 1 < argc ? ' ' : '\n';
            p += alen + 2;
        }
        if (!strncmp(out + start, "SET ", 4) || !strncmp(out + start, "SELECT ", 7))
            n = start;
    }
    out[n] = '\0';
    free(raw);
    return out;
}

/* Keys with a 1 ms TTL, expired by the time this returns. */
static void set_expired(redisContext *c, int n, const char *prefix)
{
    for (int i = 1; i <= n; i++)
        expect_status(c, "OK", "SET %s%d v PX 1", prefix, i);
    h_sleep_ms(20);
}

/* The DELs that lines[from..] starts with, sorted (the order a SCAN or
 * RANDOMKEY meets keys in is the table's), in "DEL a|DEL b|" form; *from
 * moves past them. */
static void sorted_dels(char **lines, int nlines, int *from, char *out, size_t cap)
{
    int first = *from;
    while (*from < nlines && !strncmp(lines[*from], "DEL ", 4))
        (*from)++;
    qsort(lines + first, (size_t)(*from - first), sizeof *lines, cmp_str);
    out[0] = '\0';
    for (int i = first; i < *from; i++) {
        strncat(out, lines[i], cap - strlen(out) - 2);
        strncat(out, "|", cap - strlen(out) - 1);
    }
}

/* What lazy expiry propagates, as Redis 7.0: the DELs a SCAN or a
 * RANDOMKEY run directly causes go out bare, one by one (Redis's
 * touches-arbitrary-keys commands); those of any other command (MGET), of
 * a transaction (even of its SCAN) and of a script go out in MULTI/EXEC
 * when there are several; one alone is bare. Active expiry is off. */
START_TEST(lazy_expire_dels)
{
    srv *s = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    wait_info(c, "aof_rewrite_in_progress", 0, 1, 30000);
    wait_info(c, "aof_rewrite_scheduled", 0, 1, 30000);
    expect_status(c, "OK", "DEBUG SET-ACTIVE-EXPIRE 0");
    set_expired(c, 3, "scan:");
    long long cursor = 0;
    do {
        redisReply *r = cmd(c, "SCAN %lld COUNT 100", cursor);
        ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
        cursor = strtoll(r->element[0]->str, NULL, 10);
        ck_assert_uint_eq(r->element[1]->elements, 0);
        freeReplyObject(r);
    } while (cursor != 0);
    set_expired(c, 2, "rand:");
    expect_nil(c, "RANDOMKEY");
    set_expired(c, 1, "one:");
    expect_int(c, 0, "EXISTS one:1");
    set_expired(c, 2, "mget:");
    redisReply *r = cmd(c, "MGET mget:1 mget:2");
    ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    freeReplyObject(r);
    set_expired(c, 2, "multi:");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SCAN 0 COUNT 100");
    r = cmd(c, "EXEC");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    freeReplyObject(r);
    set_expired(c, 2, "lua:");
    expect_nil(c, "EVAL %s 2 lua:1 lua:2",
               "redis.call('get', KEYS[1]) return redis.call('get', KEYS[2])");
    set_expired(c, 2, "luascan:");
    r = cmd(c, "EVAL %s 0", "return redis.call('scan', '0', 'COUNT', '100')");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    freeReplyObject(r);

    char *text = incr_commands(s);
    char *lines[64];
    int nlines = 0;
    for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        ck_assert_int_lt(nlines, 64);
        lines[nlines++] = l;
    }
    char got[1024] = "", part[512];
    int i = 0;
    while (i < nlines) {
        if (!strcmp(lines[i], "MULTI")) {
            i++;
            sorted_dels(lines, nlines, &i, part, sizeof part);
            ck_assert_msg(i < nlines && !strcmp(lines[i], "EXEC"), "MULTI without EXEC");
            i++;
            strncat(got, "MULTI|", sizeof got - strlen(got) - 1);
            strncat(got, part, sizeof got - strlen(got) - 1);
            strncat(got, "EXEC|", sizeof got - strlen(got) - 1);
        } else if (!strncmp(lines[i], "DEL ", 4)) {
            sorted_dels(lines, nlines, &i, part, sizeof part);
            strncat(got, part, sizeof got - strlen(got) - 1);
        } else {
            ck_abort_msg("unexpected command '%s' in the AOF", lines[i]);
        }
    }
    /* (the bare DELs in a row sorted together) */
    ck_assert_str_eq(got, "DEL one:1|DEL rand:1|DEL rand:2|DEL scan:1|DEL scan:2|DEL scan:3|"
                          "MULTI|DEL mget:1|DEL mget:2|EXEC|"
                          "MULTI|DEL multi:1|DEL multi:2|EXEC|"
                          "MULTI|DEL lua:1|DEL lua:2|EXEC|"
                          "MULTI|DEL luascan:1|DEL luascan:2|EXEC|");
    free(text);
    redisFree(c);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("aof");
    TCase *tc = tcase_create("aof");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, rewrite_under_load);
    tcase_add_test(tc, auto_rewrite);
    tcase_add_test(tc, truncated_last_command);
    tcase_add_test(tc, garbage_in_incr);
    tcase_add_test(tc, malformed_manifest);
    tcase_add_test(tc, manifest_lists_missing_file);
    tcase_add_test(tc, redis_interop);
    suite_add_tcase(s, tc);
    h_add_tcase(s, "lazy_expire_dels", lazy_expire_dels, 60, setup, teardown);
    return h_main(s);
}
