/* Integration tests: upgrading from Redis 6's single append-only file.
 *
 * Redis before 7.0 left <dir>/appendonly.aof: RESP commands, or an RDB
 * (aof-use-rdb-preamble yes) then commands. A start with appendonly yes
 * must load it and turn it into Redis 7.0's layout: appendonlydir/ holding
 * the old file, unchanged and under its own name, as the base
 * ("file appendonly.aof seq 1 type b"), a new appendonly.aof.1.incr.aof
 * for what comes next, and the manifest listing both. The files are made
 * here: commands written by the test, and RDB preambles from redis-server
 * 7.0's SAVE (RDB 10, every type, a stream with a group and a pending
 * entry) and by hand (RDB 9, as 6.2 writes it, with rdbchecksum no).
 *
 *  - plain and preamble AOFs upgrade (the log says so), with the default
 *    names and with an appendfilename / appenddirname of one's own, serve their data,
 *    take writes into the new INCR, restart from the new layout, rewrite
 *    (the old base is deleted), and redis-server 7.0 loads the directory
 *    left behind with the same data;
 *  - a crash between the manifest and the move (the manifest names
 *    appendonly.aof, which is still in the data dir) upgrades again;
 *  - a manifest listing INCR files wins: an old file beside it is ignored
 *    and left as it is; appendonly no loads dump.rdb, not the old file;
 *  - a truncated old AOF (in the commands, or in the tail after the RDB)
 *    loads up to its last whole command with aof-load-truncated yes, the
 *    moved base cut there; with no, and for a damaged file (garbage in the
 *    commands, a bad RDB checksum), the start is refused and the file's
 *    bytes are kept, so a fixed file then loads.
 *
 * Every test runs against verso and against redis-server 7.0
 * (VERSO_SERVER=/usr/bin/redis-server). Every server a test starts is
 * killed by the fixture teardown. */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static srv *g_redis; /* the redis-server of a test (the RDB maker, the interop check) */

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

/* ------------------------------------------------------------ helpers */

static void put_file(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "open %s: %s", path, strerror(errno));
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void path_in(char *buf, size_t cap, const srv *s, const char *name)
{
    snprintf(buf, cap, "%s/%s", s->dir, name);
}

static int exists(const srv *s, const char *name)
{
    char path[4096];
    struct stat sb;
    path_in(path, sizeof path, s, name);
    return stat(path, &sb) == 0;
}

/* The file s->dir/name holds exactly buf[0..len). */
static void expect_file(const srv *s, const char *name, const char *buf, size_t len)
{
    char path[4096];
    path_in(path, sizeof path, s, name);
    size_t n;
    char *got = h_slurp(path, &n, 1);
    ck_assert_msg(n == len && memcmp(got, buf, len) == 0,
                  "%s: %zu bytes, not the %zu expected (or other bytes)", name, n, len);
    free(got);
}

static void expect_manifest(const srv *s, const char *want)
{
    expect_file(s, "appendonlydir/appendonly.aof.manifest", want, strlen(want));
}

static void expect_in(const char *out, const char *needle)
{
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in:\n%s", needle, out);
}

/* vbuf-like growing buffer of RESP commands */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void buf_add(buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

/* One command in RESP, its words NULL-terminated. */
static void resp(buf *b, const char *const *argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    char head[64];
    buf_add(b, head, (size_t)snprintf(head, sizeof head, "*%d\r\n", argc));
    for (int i = 0; i < argc; i++) {
        size_t n = strlen(argv[i]);
        buf_add(b, head, (size_t)snprintf(head, sizeof head, "$%zu\r\n", n));
        buf_add(b, argv[i], n);
        buf_add(b, "\r\n", 2);
    }
}

#define RESP(b, ...) resp(b, (const char *const[]){ __VA_ARGS__, NULL })

/* A stopped server's data dir, for the files the test writes: the server
 * made it and is gone (kill -9: it saves nothing). */
static srv *empty_dir(void)
{
    srv *s = h_srv_start("--appendonly no");
    srv_kill9(s);
    return s;
}

/* A connection once the server has loaded its data (redis-server answers
 * LOADING until then; verso loads before it listens). */
static redisContext *connect_loaded(const srv *s)
{
    redisContext *c = srv_connect(s);
    long long end = h_now_ms() + h_scaled_ms(30000);
    for (;;) {
        redisReply *r = cmd(c, "PING");
        int loading = r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "LOADING", 7);
        freeReplyObject(r);
        if (!loading)
            return c;
        ck_assert_msg(h_now_ms() < end, "still loading after 30 s");
        h_sleep_ms(10);
    }
}

/* Starts the server binary on owner's dir with appendonly yes and `extra`
 * (NULL-terminated words), expecting it to refuse; returns its output. */
static char *refused_start(const srv *owner, const char *const *extra)
{
    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[32] = { srv_binary(), "--port", port, "--bind", "127.0.0.1",
                             "--dir", owner->dir, "--save", "", "--appendonly", "yes" };
    int n = 11;
    for (int i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int st = h_run(NULL, &out, h_scaled_ms(30000), argv);
    ck_assert_msg(st != -1, "the server did not refuse to start: %s", out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0,
                  "the server did not exit non-zero (status 0x%x): %s", st, out);
    return out;
}

static const char MIGRATED[] =
    "Successfully migrated an old-style AOF file (appendonly.aof) into the AOF "
    "directory (appendonlydir).";
static const char UPGRADED_MANIFEST[] =
    "file appendonly.aof seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n";

/* ------------------------------------------------------- the datasets */

/* The plain AOF: commands in two databases, a MULTI/EXEC, an expire. */
static void plain_aof(buf *b)
{
    RESP(b, "SELECT", "0");
    RESP(b, "SET", "s", "v");
    RESP(b, "RPUSH", "l", "a", "b", "c");
    RESP(b, "INCR", "n");
    RESP(b, "INCR", "n");
    RESP(b, "HSET", "h", "f", "v");
    RESP(b, "MULTI");
    RESP(b, "ZADD", "z", "1", "a", "2", "b");
    RESP(b, "SADD", "set", "x", "y");
    RESP(b, "EXEC");
    RESP(b, "PEXPIREAT", "s", "4102444800000");  /* 2100-01-01 */
    RESP(b, "XADD", "st", "1-1", "f", "v");
    RESP(b, "XGROUP", "CREATE", "st", "g", "0");
    RESP(b, "SELECT", "2");
    RESP(b, "SET", "d2", "in-db2");
    RESP(b, "DEL", "gone");
}

static void check_plain(redisContext *c)
{
    expect_status(c, "OK", "SELECT 0");
    expect_bulk(c, "v", "GET s");
    expect_int(c, 4102444800000LL, "PEXPIRETIME s");
    expect_int(c, 3, "LLEN l");
    expect_bulk(c, "c", "LINDEX l 2");
    expect_bulk(c, "2", "GET n");
    expect_bulk(c, "v", "HGET h f");
    expect_bulk(c, "2", "ZSCORE z b");
    expect_int(c, 2, "SCARD set");
    expect_int(c, 1, "XLEN st");
    freeReplyObject(expect_array(c, 1, "XINFO GROUPS st"));
    expect_int(c, 7, "DBSIZE");
    expect_status(c, "OK", "SELECT 2");
    expect_bulk(c, "in-db2", "GET d2");
    expect_int(c, 1, "DBSIZE");
    expect_status(c, "OK", "SELECT 0");
}

/* What the preamble RDB holds (made by redis-server 7.0's SAVE). */
static void fill_rdb_dataset(redisContext *c)
{
    expect_status(c, "OK", "SET s v");
    expect_status(c, "OK", "SET n 12345");
    expect_int(c, 3, "RPUSH l a b c");
    expect_int(c, 3, "SADD iset 1 2 3");
    expect_int(c, 2, "SADD set x y");
    expect_int(c, 2, "ZADD z 1 a 2 b");
    expect_int(c, 1, "HSET h f v");
    expect_status(c, "OK", "SET ttl v PXAT 4102444800000");
    expect_bulk(c, "1-1", "XADD st 1-1 f v");
    expect_bulk(c, "2-1", "XADD st 2-1 f w");
    expect_status(c, "OK", "XGROUP CREATE st g 0");
    freeReplyObject(expect_array(c, 1, "XREADGROUP GROUP g alice COUNT 1 STREAMS st >"));
    expect_status(c, "OK", "SELECT 2");
    expect_status(c, "OK", "SET d2 in-db2");
    expect_status(c, "OK", "SELECT 0");
}

/* The commands after the preamble. */
static void preamble_tail(buf *b)
{
    RESP(b, "SELECT", "0");
    RESP(b, "INCR", "n");
    RESP(b, "RPUSH", "l", "d");
    RESP(b, "DEL", "set");
    RESP(b, "SET", "tail", "1");
    RESP(b, "XACK", "st", "g", "1-1");
}

/* with_tail: the tail's commands were applied too. */
static void check_rdb_dataset(redisContext *c, int with_tail)
{
    expect_status(c, "OK", "SELECT 0");
    expect_bulk(c, "v", "GET s");
    expect_bulk(c, with_tail ? "12346" : "12345", "GET n");
    expect_int(c, with_tail ? 4 : 3, "LLEN l");
    expect_int(c, 1, "SISMEMBER iset 2");
    expect_int(c, with_tail ? 0 : 2, "SCARD set");
    expect_bulk(c, "2", "ZSCORE z b");
    expect_bulk(c, "v", "HGET h f");
    expect_int(c, 4102444800000LL, "PEXPIRETIME ttl");
    expect_int(c, 2, "XLEN st");
    redisReply *r = expect_array(c, 4, "XPENDING st g");
    check_int(r->element[0], with_tail ? 0 : 1);
    freeReplyObject(r);
    if (with_tail)
        expect_bulk(c, "1", "GET tail");
    else
        expect_nil(c, "GET tail");
    expect_int(c, 9, "DBSIZE");  /* the tail drops "set", adds "tail" */
    expect_status(c, "OK", "SELECT 2");
    expect_bulk(c, "in-db2", "GET d2");
    expect_status(c, "OK", "SELECT 0");
}

/* redis-server 7.0's dump.rdb of fill_rdb_dataset (malloc'd). */
static char *redis_rdb(size_t *len)
{
    g_redis = srv_start_redis(NULL);
    redisContext *c = srv_connect(g_redis);
    fill_rdb_dataset(c);
    expect_status(c, "OK", "SAVE");
    redisFree(c);
    char path[4096];
    path_in(path, sizeof path, g_redis, "dump.rdb");
    char *rdb = h_slurp(path, len, 1);
    ck_assert_msg(*len > 9 && !memcmp(rdb, "REDIS0010", 9), "not an RDB 10");
    srv_kill9(g_redis);
    srv_stop(g_redis);
    g_redis = NULL;
    return rdb;
}

/* An RDB 9 as Redis 6.2 writes it with rdbchecksum no: AUX redis-ver,
 * db 0 with "k9" = "nine" (an expire in 2100) and "i9" = 99 (an int-encoded
 * string), then EOF and a zero checksum. */
static void rdb9(buf *b)
{
    static const unsigned char bytes[] = {
        'R', 'E', 'D', 'I', 'S', '0', '0', '0', '9',
        0xFA, 9, 'r', 'e', 'd', 'i', 's', '-', 'v', 'e', 'r', 6, '6', '.', '2', '.', '1', '4',
        0xFE, 0,                      /* SELECTDB 0 */
        0xFB, 2, 1,                   /* RESIZEDB 2 keys, 1 expire */
        0xFC, 0x00, 0xD8, 0xC3, 0x2C, 0xBB, 0x03, 0x00, 0x00, /* 4102444800000 ms */
        0, 2, 'k', '9', 4, 'n', 'i', 'n', 'e',
        0, 2, 'i', '9', 0xC0, 99,     /* int8-encoded 99 */
        0xFF, 0, 0, 0, 0, 0, 0, 0, 0,
    };
    buf_add(b, bytes, sizeof bytes);
}

/* ------------------------------------------- the upgrade and after */

/* The names of an AOF: appendfilename and appenddirname. */
typedef struct names {
    const char *file, *dir;
} names;

static const names DEFAULT_NAMES = { "appendonly.aof", "appendonlydir" };

/* "<dir>/<file><suffix>" into buf. */
static const char *in_aofdir(char *out, size_t cap, const names *n, const char *suffix)
{
    snprintf(out, cap, "%s/%s%s", n->dir, n->file, suffix);
    return out;
}

static void expect_manifest_of(const srv *s, const names *n, const char *want)
{
    char name[512];
    size_t len = strlen(want);
    expect_file(s, in_aofdir(name, sizeof name, n, ".manifest"), want, len);
}

/* Checks the layout right after the upgrade, writes one key, restarts from
 * the new layout, rewrites, and has redis-server 7.0 load what is left.
 * `check` is the dataset's check, n the names the servers were given. */
static void after_upgrade(srv *s, srv *s2, const names *n, const buf *old,
                          void (*check)(redisContext *, int), int arg)
{
    char name[512], want[1024];
    redisContext *c = connect_loaded(s2);
    check(c, arg);
    /* the old file moved, unchanged, and the manifest is Redis's */
    ck_assert_msg(!exists(s, n->file), "%s is still in the data dir", n->file);
    expect_file(s, in_aofdir(name, sizeof name, n, ""), old->p, old->len);
    snprintf(want, sizeof want, "file %s seq 1 type b\nfile %s.1.incr.aof seq 1 type i\n",
             n->file, n->file);
    expect_manifest_of(s, n, want);
    ck_assert_msg(exists(s, in_aofdir(name, sizeof name, n, ".1.incr.aof")), "no INCR file");
    char *log = srv_log_read(s2);
    snprintf(want, sizeof want,
             "Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
             n->file, n->dir);
    expect_in(log, want);
    free(log);
    /* writes go to the INCR, after the base (in db 5: the datasets' counts
     * stay as they are) */
    expect_status(c, "OK", "SELECT 5");
    expect_status(c, "OK", "SET later x");
    srv_kill9(s2);
    redisFree(c);

    srv *s3 = h_srv_start_on(s, "--appendonly yes --appendfsync always --appendfilename %s "
                             "--appenddirname %s", n->file, n->dir);
    c = connect_loaded(s3);
    check(c, arg);
    expect_status(c, "OK", "SELECT 5");
    expect_bulk(c, "x", "GET later");
    log = srv_log_read(s3);
    ck_assert_msg(!strstr(log, "migrated"), "a second upgrade: %s", log);
    free(log);
    /* a rewrite replaces the old base, which goes */
    long long before = h_info_int(c, "persistence", "aof_rewrites");
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    h_wait_info_ge(c, "persistence", "aof_rewrites", before + 1, 30000);
    h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 30000);
    h_wait_info_str(c, "persistence", "aof_last_bgrewrite_status", "ok", 0);
    expect_status(c, "OK", "SET after-rewrite y");
    /* the old base is deleted once the rewrite's manifest is out (Redis:
     * in the background) */
    in_aofdir(name, sizeof name, n, "");
    long long end = h_now_ms() + h_scaled_ms(10000);
    while (exists(s, name) && h_now_ms() < end)
        h_sleep_ms(10);
    ck_assert_msg(!exists(s, name), "the old base is still there");
    snprintf(want, sizeof want, "file %s.2.base.rdb seq 2 type b\nfile %s.2.incr.aof seq 2 type i\n",
             n->file, n->file);
    expect_manifest_of(s, n, want);
    srv_kill9(s3);
    redisFree(c);

    /* redis-server 7.0 loads the directory as it is */
    g_redis = srv_start_redis("--dir '%s' --appendonly yes --appendfilename %s "
                              "--appenddirname %s", s->dir, n->file, n->dir);
    c = connect_loaded(g_redis);
    check(c, arg);
    expect_status(c, "OK", "SELECT 5");
    expect_bulk(c, "x", "GET later");
    expect_bulk(c, "y", "GET after-rewrite");
    redisFree(c);
}

static void check_plain_cb(redisContext *c, int unused)
{
    (void)unused;
    check_plain(c);
}

/* _i: 0 the default names, 1 appendfilename and appenddirname of one's own
 * (the same ones Redis 6 was given). */
START_TEST(upgrade_plain)
{
    static const names own = { "old6.aof", "aof-parts" };
    const names *n = _i ? &own : &DEFAULT_NAMES;
    srv *s = empty_dir();
    buf old = { 0 };
    plain_aof(&old);
    char path[4096];
    path_in(path, sizeof path, s, n->file);
    put_file(path, old.p, old.len);
    ck_assert(!exists(s, n->dir));
    srv *s2 = h_srv_start_on(s, "--appendonly yes --appendfsync always --appendfilename %s "
                             "--appenddirname %s", n->file, n->dir);
    after_upgrade(s, s2, n, &old, check_plain_cb, 0);
    free(old.p);
}
END_TEST

/* _i: 0 redis-server's RDB 10 with a tail, 1 the same without a tail, 2 a
 * hand-made RDB 9 with a tail. */
static void check_rdb9(redisContext *c, int unused)
{
    (void)unused;
    expect_bulk(c, "nine", "GET k9");
    expect_int(c, 4102444800000LL, "PEXPIRETIME k9");
    expect_bulk(c, "100", "GET i9");
    expect_bulk(c, "1", "GET tail");
    expect_int(c, 3, "DBSIZE");
}

START_TEST(upgrade_preamble)
{
    srv *s = empty_dir();
    buf old = { 0 };
    if (_i == 2) {
        rdb9(&old);
        RESP(&old, "SELECT", "0");
        RESP(&old, "INCR", "i9");
        RESP(&old, "SET", "tail", "1");
    } else {
        size_t n;
        char *rdb = redis_rdb(&n);
        buf_add(&old, rdb, n);
        free(rdb);
        if (_i == 0)
            preamble_tail(&old);
    }
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, old.p, old.len);
    srv *s2 = h_srv_start_on(s, "--appendonly yes --appendfsync always");
    if (_i == 2)
        after_upgrade(s, s2, &DEFAULT_NAMES, &old, check_rdb9, 0);
    else
        after_upgrade(s, s2, &DEFAULT_NAMES, &old, check_rdb_dataset, _i == 0);
    free(old.p);
}
END_TEST

/* A crash after the manifest was written, before the move: the manifest
 * names appendonly.aof, which is still in the data dir. */
START_TEST(upgrade_after_crash)
{
    srv *s = empty_dir();
    buf old = { 0 };
    plain_aof(&old);
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, old.p, old.len);
    path_in(path, sizeof path, s, "appendonlydir");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    path_in(path, sizeof path, s, "appendonlydir/appendonly.aof.manifest");
    static const char half[] = "file appendonly.aof seq 1 type b\n";
    put_file(path, half, sizeof half - 1);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    redisContext *c = connect_loaded(s2);
    check_plain(c);
    redisFree(c);
    ck_assert(!exists(s, "appendonly.aof"));
    expect_file(s, "appendonlydir/appendonly.aof", old.p, old.len);
    expect_manifest(s, UPGRADED_MANIFEST);
    char *log = srv_log_read(s2);
    expect_in(log, MIGRATED);
    free(log);
    free(old.p);
}
END_TEST

/* An AOF directory whose manifest lists an INCR: the old file beside it is
 * not read, not moved, not changed. */
START_TEST(manifest_wins)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET current 1");
    srv_kill9(s);
    redisFree(c);
    buf old = { 0 };
    RESP(&old, "SELECT", "0");
    RESP(&old, "SET", "old", "1");
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, old.p, old.len);
    char *manifest;
    size_t mlen;
    path_in(path, sizeof path, s, "appendonlydir/appendonly.aof.manifest");
    manifest = h_slurp(path, &mlen, 1);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = connect_loaded(s2);
    expect_bulk(c, "1", "GET current");
    expect_nil(c, "GET old");
    expect_int(c, 1, "DBSIZE");
    redisFree(c);
    expect_file(s, "appendonly.aof", old.p, old.len);
    ck_assert(!exists(s, "appendonlydir/appendonly.aof"));
    expect_file(s, "appendonlydir/appendonly.aof.manifest", manifest, mlen);
    char *log = srv_log_read(s2);
    ck_assert_msg(!strstr(log, "migrated"), "an upgrade: %s", log);
    free(log);
    free(manifest);
    free(old.p);
}
END_TEST

/* appendonly no: dump.rdb is loaded, the old AOF is left alone. */
START_TEST(appendonly_no_loads_rdb)
{
    srv *s = h_srv_start("--appendonly no");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET from-rdb 1");
    expect_status(c, "OK", "SAVE");
    srv_kill9(s);
    redisFree(c);
    buf old = { 0 };
    plain_aof(&old);
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, old.p, old.len);
    srv *s2 = h_srv_start_on(s, "--appendonly no");
    c = connect_loaded(s2);
    expect_bulk(c, "1", "GET from-rdb");
    expect_int(c, 1, "DBSIZE");
    expect_int(c, 0, "EXISTS s");
    redisFree(c);
    expect_file(s, "appendonly.aof", old.p, old.len);
    ck_assert_msg(!exists(s, "appendonlydir"), "appendonlydir was created");
    free(old.p);
}
END_TEST

/* A truncated last command. _i: 0 a plain AOF, 1 the tail after an RDB
 * preamble (redis-server's). aof-load-truncated yes loads what is whole
 * and cuts the moved base there; no refuses, the bytes kept. */
START_TEST(upgrade_truncated)
{
    srv *s = empty_dir();
    buf old = { 0 };
    if (_i == 0) {
        plain_aof(&old);
    } else {
        size_t n;
        char *rdb = redis_rdb(&n);
        buf_add(&old, rdb, n);
        free(rdb);
        preamble_tail(&old);
    }
    size_t whole = old.len;
    RESP(&old, "SET", "cut", "never-whole");
    old.len -= 5;
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, old.p, old.len);

    static const char *const no[] = { "--aof-load-truncated", "no", NULL };
    char *out = refused_start(s, no);
    expect_in(out, "appendonly.aof");
    free(out);
    /* the bytes are all there (Redis moved the file before loading it) */
    if (exists(s, "appendonly.aof"))
        expect_file(s, "appendonly.aof", old.p, old.len);
    else
        expect_file(s, "appendonlydir/appendonly.aof", old.p, old.len);

    srv *s2 = h_srv_start_on(s, "--appendonly yes --aof-load-truncated yes");
    redisContext *c = connect_loaded(s2);
    if (_i == 0)
        check_plain(c);
    else
        check_rdb_dataset(c, 1);
    expect_int(c, 0, "EXISTS cut");
    redisFree(c);
    expect_file(s, "appendonlydir/appendonly.aof", old.p, whole);
    expect_manifest(s, UPGRADED_MANIFEST);
    ck_assert(!exists(s, "appendonly.aof"));
    free(old.p);
}
END_TEST

/* A damaged old file. _i: 0 garbage between commands, 1 a bad CRC64 in
 * redis-server's RDB preamble. The start is refused, the bytes are kept;
 * the fixed file then loads. */
START_TEST(upgrade_corrupt)
{
    srv *s = empty_dir();
    buf good = { 0 }, bad = { 0 };
    if (_i == 0) {
        plain_aof(&good);
        buf_add(&bad, good.p, good.len);
        buf_add(&bad, "GARBAGE\r\n", 9);
        RESP(&bad, "SET", "after-garbage", "1");
    } else {
        size_t n;
        char *rdb = redis_rdb(&n);
        buf_add(&good, rdb, n);
        free(rdb);
        preamble_tail(&good);
        buf_add(&bad, good.p, good.len);
        bad.p[n - 3] ^= 0x40;      /* in the RDB's CRC64 */
    }
    char path[4096];
    path_in(path, sizeof path, s, "appendonly.aof");
    put_file(path, bad.p, bad.len);
    char *out = refused_start(s, NULL);
    expect_in(out, "appendonly.aof");
    free(out);
    const char *where = exists(s, "appendonly.aof") ? "appendonly.aof"
                                                     : "appendonlydir/appendonly.aof";
    expect_file(s, where, bad.p, bad.len);
    /* fixed in place (as redis-check-aof --fix would), it loads */
    path_in(path, sizeof path, s, where);
    put_file(path, good.p, good.len);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    redisContext *c = connect_loaded(s2);
    if (_i == 0)
        check_plain(c);
    else
        check_rdb_dataset(c, 1);
    redisFree(c);
    expect_manifest(s, UPGRADED_MANIFEST);
    free(good.p);
    free(bad.p);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("aof_upgrade");
    TCase *tc = tcase_create("aof_upgrade");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, upgrade_plain, 0, 2);
    tcase_add_loop_test(tc, upgrade_preamble, 0, 3);
    tcase_add_test(tc, upgrade_after_crash);
    tcase_add_test(tc, manifest_wins);
    tcase_add_test(tc, appendonly_no_loads_rdb);
    tcase_add_loop_test(tc, upgrade_truncated, 0, 2);
    tcase_add_loop_test(tc, upgrade_corrupt, 0, 2);
    suite_add_tcase(s, tc);
    return h_main(s);
}
