/* Integration tests: verso's snapshots against Redis 7.0 itself. verso's
 * default dump (LZF strings, as rdbcompression yes), one with
 * `rdbcompression no` and one with `rdbchecksum no` pass redis-check-rdb and
 * redis-server serves the same keys, values and TTLs from them; an LZ4 dump
 * passes redis-check-rdb after `lz4 -d`; verso loads a dump.rdb written by
 * redis-server (int-encoded and LZF-compressed strings, expires, several
 * databases), also one saved with `rdbchecksum no`.
 *
 * Needs redis-server, redis-check-rdb and lz4 on PATH. The dataset is
 * generated here and kept as the expected state: every server is checked
 * against it key by key. Every process and directory a test makes is
 * removed by the fixture teardown, also on failure. */
#include "harness.h"
#include "testrand.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 8
#define BIG (1024 * 1024)

/* An assertion for loops over every key: ck_assert records each passing
 * check as a message to the runner. */
#define REQUIRE(cond, ...)                \
    do {                                  \
        if (!(cond))                      \
            ck_abort_msg(__VA_ARGS__);    \
    } while (0)

/* ------------------------------------------------------------ fixture */

static srv *g_redis[MAX_PROCS];
static int g_nredis;
static char g_dirs[MAX_PROCS][PATH_MAX];
static int g_ndirs;

static int rm_entry(const char *path, const struct stat *sb, int flag,
                    struct FTW *ftw)
{
    (void)sb; (void)flag; (void)ftw;
    remove(path);
    return 0;
}

static void setup(void) { g_nredis = g_ndirs = 0; }

static void teardown(void)
{
    for (int i = 0; i < g_nredis; i++) {
        srv_kill9(g_redis[i]);
        srv_stop(g_redis[i]);
    }
    h_srv_drop_all();
    for (int i = 0; i < g_ndirs; i++)
        nftw(g_dirs[i], rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_nredis = g_ndirs = 0;
}

/* One base directory per program (main removes it, also after failed
 * tests), one fresh sub-directory per use. */
static char g_base[1024];

static const char *new_dir(void)
{
    ck_assert_int_lt(g_ndirs, MAX_PROCS);
    char *d = g_dirs[g_ndirs];
    snprintf(d, PATH_MAX, "%s/d.XXXXXX", g_base);
    ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp %s: %s", d, strerror(errno));
    g_ndirs++;
    return d;
}

static srv *start_verso(const char *dir, const char *extra)
{
    return h_srv_start("--dir '%s' --dbfilename dump.rdb %s", dir, extra);
}

/* ------------------------------------------------------ redis-server */

/* Starts redis-server (harness: srv_start_redis) on dir, loading its
 * dump.rdb if any, with one more option when opt is not NULL; returns a
 * client once the dump is loaded (INFO loading:0). */
static redisContext *start_redis_opt(const char *dir, const char *opt, const char *val)
{
    ck_assert_int_lt(g_nredis, MAX_PROCS);
    srv *s = srv_start_redis("--dir '%s' --dbfilename dump.rdb --appendonly no %s %s", dir,
                             opt ? opt : "", val ? val : "");
    g_redis[g_nredis++] = s;
    redisContext *c = srv_connect(s);
    struct timeval tv = { 30, 0 };
    redisSetTimeout(c, tv);
    h_wait_loaded(c, 20000);
    return c;
}

static redisContext *start_redis(const char *dir) { return start_redis_opt(dir, NULL, NULL); }

/* ------------------------------------------------------------- files */

static char *slurp(const char *path, size_t *len) { return h_slurp(path, len, 1); }

static void copy_file(const char *from, const char *to)
{
    size_t len;
    char *buf = slurp(from, &len);
    FILE *f = fopen(to, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
    free(buf);
}

/* Runs a tool; fails unless it exits 0. Returns its output (malloc'd). */
static char *run_ok(const char *const argv[])
{
    char *out = NULL;
    int st = h_run(NULL, &out, 120000, argv);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "%s %s failed (status 0x%x): %.2000s", argv[0], argv[1], st, out);
    return out;
}

/* redis-check-rdb passes the file; also says `also` when not NULL. */
static void check_rdb_ok(const char *path, const char *also)
{
    const char *argv[] = { "redis-check-rdb", path, NULL };
    char *out = run_ok(argv);
    ck_assert_msg(strstr(out, "RDB looks OK") != NULL && (!also || strstr(out, also)),
                  "redis-check-rdb %s: %.2000s", path, out);
    free(out);
}

/* ---------------------------------------------- the expected dataset */

typedef struct item {
    int db;
    char *key, *val;
    size_t klen, vlen;
    long long expire; /* unix ms, -1 none */
} item;

static item *g_items;
static size_t g_nitems, g_capitems;
static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void add_item(int db, const char *key, size_t klen, const char *val,
                     size_t vlen, long long expire)
{
    if (g_nitems == g_capitems) {
        g_capitems = g_capitems ? g_capitems * 2 : 1024;
        g_items = realloc(g_items, g_capitems * sizeof *g_items);
        ck_assert_ptr_nonnull(g_items);
    }
    item *it = &g_items[g_nitems++];
    it->db = db;
    it->key = malloc(klen + 1);
    it->val = malloc(vlen + 1);
    REQUIRE(it->key && it->val, "out of memory");
    memcpy(it->key, key, klen);
    memcpy(it->val, val, vlen);
    it->klen = klen;
    it->vlen = vlen;
    it->expire = expire;
}

static void add_str(int db, const char *key, const char *val, long long expire)
{
    add_item(db, key, strlen(key), val, strlen(val), expire);
}

static void free_items(void)
{
    for (size_t i = 0; i < g_nitems; i++) {
        free(g_items[i].key);
        free(g_items[i].val);
    }
    free(g_items);
    g_items = NULL;
    g_nitems = g_capitems = 0;
}

static const char *const g_ints[] = {
    "0", "1", "-1", "127", "-128", "255", "32767", "-32768", "65535",
    "2147483647", "-2147483648", "4294967295", "12345678901",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808",
    "007", "-0", "+1", " 5", "1e3", "3.14",
};

/* A value of len bytes: random binary, or words LZF squeezes well. */
static char *make_val(size_t len, int compressible)
{
    static const char *words[] = { "snapshot ", "verso ", "redis ", "fork ", "lz4 " };
    char *v = malloc(len + 1);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < len;) {
        if (!compressible) {
            v[i++] = (char)(rnd() >> 56);
            continue;
        }
        const char *w = words[rnd() % 5];
        for (; *w && i < len; w++)
            v[i++] = *w;
    }
    return v;
}

/* The special keys of one database. */
static void gen_special(int db, long long now)
{
    char key[1200];
    for (size_t i = 0; i < sizeof g_ints / sizeof *g_ints; i++) {
        snprintf(key, sizeof key, "int:%zu", i);
        add_str(db, key, g_ints[i], i % 4 == 0 ? now + 3600000 + (long long)i : -1);
    }
    add_str(db, "empty", "", -1);
    add_str(db, "far", "expires in 2100", 4102444800123LL);
    add_item(db, "bin\0key\r\n", 9, "bin\0val\r\n\xff", 10, now + 7200000);
    memset(key, 'K', 1000);
    snprintf(key + 1000, 16, ":%d", db);
    add_str(db, key, "a long key", -1);
    char *big = make_val(BIG, db != 0);  /* db 0: incompressible */
    add_item(db, "big", 3, big, BIG, db == 2 ? now + 5400000 : -1);
    free(big);
}

/* Strings of every kind in databases 0, 2 and 15; the whole expected state. */
static void gen_items(uint64_t seed)
{
    rnd_seed(seed);
    long long now = wall_ms();
    static const int dbs[3] = { 0, 2, 15 };
    for (int d = 0; d < 3; d++) {
        int db = dbs[d];
        gen_special(db, now);
        char key[64], num[32];
        for (int i = 0; i < 1500; i++) {
            size_t len = 1 + rnd() % 400;
            char *v = make_val(len, i % 3 == 0);
            long long exp = i % 3 == 1 ? now + 3600000 + (long long)(rnd() % 3600000) : -1;
            snprintf(key, sizeof key, "s:%d", i);
            add_item(db, key, strlen(key), v, len, exp);
            free(v);
        }
        for (int i = 0; i < 500; i++) {
            long long n = (long long)(rnd() % 2000000000001ULL) - 1000000000000LL;
            snprintf(key, sizeof key, "n:%d", i);
            snprintf(num, sizeof num, "%lld", n >> (rnd() % 40));
            add_str(db, key, num, i % 5 == 0 ? now + 3600000 + i : -1);
        }
    }
}

/* Writes the dataset with SET ... PXAT, pipelined. */
static void fill_items(redisContext *c)
{
    int db = -1;
    size_t n = 0;
    for (size_t i = 0; i < g_nitems; i++) {
        const item *it = &g_items[i];
        if (it->db != db) {
            db = it->db;
            redisAppendCommand(c, "SELECT %d", db);
            n++;
        }
        if (it->expire >= 0)
            redisAppendCommand(c, "SET %b %b PXAT %lld", it->key, it->klen,
                               it->val, it->vlen, it->expire);
        else
            redisAppendCommand(c, "SET %b %b", it->key, it->klen, it->val, it->vlen);
        n++;
    }
    for (size_t i = 0; i < n; i++) {
        redisReply *r = NULL;
        REQUIRE(redisGetReply(c, (void **)&r) == REDIS_OK && r, "fill: no reply");
        REQUIRE(r->type == REDIS_REPLY_STATUS, "fill: %s", r->str);
        freeReplyObject(r);
    }
    expect_status(c, "OK", "SELECT 0");
}

static void check_item(const char *who, const item *it, redisReply *v,
                       redisReply *t)
{
    REQUIRE(v->type == REDIS_REPLY_STRING && v->len == it->vlen &&
            memcmp(v->str, it->val, it->vlen) == 0,
            "%s: db %d key '%.60s': value differs (type %d, %zu bytes, want %zu)",
            who, it->db, it->key, v->type,
            v->type == REDIS_REPLY_STRING ? v->len : 0, it->vlen);
    REQUIRE(t->type == REDIS_REPLY_INTEGER && t->integer == it->expire,
            "%s: db %d key '%.60s': PEXPIRETIME %lld, want %lld", who, it->db,
            it->key, t->integer, it->expire);
}

/* The server at c holds exactly the dataset: per database the same number
 * of keys, and every key with its value and PEXPIRETIME. */
static void check_items(redisContext *c, const char *who)
{
    int db = -1;
    size_t start = 0;
    for (size_t i = 0; i <= g_nitems; i++) {
        if (i < g_nitems && g_items[i].db == db)
            continue;
        if (db >= 0) {
            expect_status(c, "OK", "SELECT %d", db);
            expect_int(c, (long long)(i - start), "DBSIZE");
            for (size_t j = start; j < i; j++) {
                redisAppendCommand(c, "GET %b", g_items[j].key, g_items[j].klen);
                redisAppendCommand(c, "PEXPIRETIME %b", g_items[j].key,
                                   g_items[j].klen);
            }
            for (size_t j = start; j < i; j++) {
                redisReply *v = NULL, *t = NULL;
                REQUIRE(redisGetReply(c, (void **)&v) == REDIS_OK && v &&
                        redisGetReply(c, (void **)&t) == REDIS_OK && t,
                        "%s: no reply", who);
                check_item(who, &g_items[j], v, t);
                freeReplyObject(v);
                freeReplyObject(t);
            }
        }
        if (i < g_nitems) {
            db = g_items[i].db;
            start = i;
        }
    }
    expect_status(c, "OK", "SELECT 0");
    for (int d = 0; d < 16; d++)
        if (d != 0 && d != 2 && d != 15) {
            expect_status(c, "OK", "SELECT %d", d);
            expect_int(c, 0, "DBSIZE");
        }
    expect_status(c, "OK", "SELECT 0");
}

/* ---------------------------------------------------------------- tests */

/* verso fills and SAVEs with the given compression; returns its dir, the
 * server stopped. */
static const char *verso_dump(const char *compression)
{
    const char *dir = new_dir();
    srv *s = start_verso(dir, compression);
    redisContext *c = srv_connect(s);
    fill_items(c);
    check_items(c, "verso before SAVE");
    expect_status(c, "OK", "SAVE");
    redisReply *r = redisCommand(c, "SHUTDOWN NOSAVE");
    if (r)
        freeReplyObject(r);
    redisFree(c);
    ck_assert(srv_wait_exit(s, 20000));
    return dir;
}

/* Bytes of every key and value of the dataset, as strings. */
static size_t raw_bytes(void)
{
    size_t raw = 0;
    for (size_t i = 0; i < g_nitems; i++)
        raw += g_items[i].klen + g_items[i].vlen;
    return raw;
}

/* The 8 bytes after EOF, as stored (little endian). */
static uint64_t stored_crc(const char *buf, size_t len)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)(unsigned char)buf[len - 8 + (size_t)i] << (8 * i);
    return v;
}

/* verso SAVEs the dataset with `args`; its dump.rdb is a plain RDB 10 that
 * redis-check-rdb passes (saying `also` too) and from which redis-server
 * serves exactly the dataset. Returns the dump (malloc'd), its size in
 * *len. */
static char *redis_reads_verso_dump(const char *args, const char *also, size_t *len)
{
    const char *vdir = verso_dump(args);
    char src[PATH_MAX + 16], dst[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/dump.rdb", vdir);
    char *dump = slurp(src, len);
    ck_assert_msg(*len > 9 && memcmp(dump, "REDIS0010", 9) == 0, "not a plain RDB 10 file");
    check_rdb_ok(src, also);

    const char *rdir = new_dir();
    snprintf(dst, sizeof dst, "%s/dump.rdb", rdir);
    copy_file(src, dst);
    redisContext *c = start_redis(rdir);
    check_items(c, "redis-server on verso's dump");
    redisFree(c);
    return dump;
}

/* The default: strings LZF-compressed as Redis's rdbcompression yes. */
START_TEST(redis_reads_verso_default_dump)
{
    gen_items(0x1234);
    size_t len;
    free(redis_reads_verso_dump("", "Checksum OK", &len));
    /* two 1 MiB values and a third of the others are words that LZF
     * squeezes: the dump is only that small if it used LZF */
    ck_assert_msg(len + 1500000 < raw_bytes(), "dump %zu B, keys and values %zu B: "
                  "LZF not exercised", len, raw_bytes());
    free_items();
}
END_TEST

START_TEST(redis_reads_verso_uncompressed_dump)
{
    gen_items(0x2345);
    size_t len;
    free(redis_reads_verso_dump("--rdbcompression no", "Checksum OK", &len));
    ck_assert_msg(len > raw_bytes(), "dump %zu B, keys and values %zu B: compressed",
                  len, raw_bytes());
    free_items();
}
END_TEST

START_TEST(redis_reads_verso_dump_without_checksum)
{
    gen_items(0x3456);
    size_t len;
    char *dump = redis_reads_verso_dump("--rdbchecksum no", "checksum disabled", &len);
    ck_assert(stored_crc(dump, len) == 0);
    free(dump);
    free_items();
}
END_TEST

START_TEST(lz4_dump_is_an_rdb_inside)
{
    gen_items(0x5678);
    const char *vdir = verso_dump("--snapshot-compression lz4");
    char src[PATH_MAX + 16], plain[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/dump.rdb", vdir);
    snprintf(plain, sizeof plain, "%s/plain.rdb", vdir);
    size_t len;
    char *head = slurp(src, &len);
    ck_assert_msg((unsigned char)head[0] == 0x04 && (unsigned char)head[1] == 0x22 &&
                  (unsigned char)head[2] == 0x4d && (unsigned char)head[3] == 0x18,
                  "not an LZ4 frame");
    free(head);
    const char *argv[] = { "lz4", "-d", "-f", "-q", src, plain, NULL };
    free(run_ok(argv));
    check_rdb_ok(plain, "Checksum OK");

    /* and Redis serves the decompressed stream */
    const char *rdir = new_dir();
    char dst[PATH_MAX + 16];
    snprintf(dst, sizeof dst, "%s/dump.rdb", rdir);
    copy_file(plain, dst);
    redisContext *c = start_redis(rdir);
    check_items(c, "redis-server on verso's lz4 -d dump");
    redisFree(c);
    free_items();
}
END_TEST

/* redis-server SAVEs the dataset (with one more option when opt is not
 * NULL); verso loads that dump.rdb and serves exactly the dataset. */
static void verso_reads_redis_dump(const char *opt, const char *val)
{
    gen_items(0x9abc);
    const char *rdir = new_dir();
    redisContext *c = start_redis_opt(rdir, opt, val);
    fill_items(c);
    check_items(c, "redis-server");
    expect_status(c, "OK", "SAVE");
    redisFree(c);

    char src[PATH_MAX + 16], dst[PATH_MAX + 16];
    snprintf(src, sizeof src, "%s/dump.rdb", rdir);
    size_t len, raw = raw_bytes();
    char *dump = slurp(src, &len);
    ck_assert_msg(len + 1500000 < raw, "Redis did not compress (dump %zu B, "
                  "keys and values %zu B): LZF not exercised", len, raw);
    /* the checksum is there, or zero with rdbchecksum no */
    ck_assert((stored_crc(dump, len) == 0) == (opt && !strcmp(opt, "--rdbchecksum")));
    free(dump);
    const char *vdir = new_dir();
    snprintf(dst, sizeof dst, "%s/dump.rdb", vdir);
    copy_file(src, dst);
    srv *s = start_verso(vdir, "");
    redisContext *vc = srv_connect(s);
    ck_assert_int_eq(h_info_int(vc, "persistence", "rdb_last_load_keys_loaded"),
                     (long long)g_nitems);
    check_items(vc, "verso on redis-server's dump");
    redisFree(vc);
    free_items();
}

START_TEST(verso_reads_redis_default_dump) { verso_reads_redis_dump(NULL, NULL); }
END_TEST

START_TEST(verso_reads_redis_dump_without_checksum)
{
    verso_reads_redis_dump("--rdbchecksum", "no");
}
END_TEST

int main(void)
{
    srand((unsigned)getpid() ^ (unsigned)time(NULL));
    Suite *su = suite_create("snapshot_interop");
    TCase *tc = tcase_create("interop");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, redis_reads_verso_default_dump);
    tcase_add_test(tc, redis_reads_verso_uncompressed_dump);
    tcase_add_test(tc, redis_reads_verso_dump_without_checksum);
    tcase_add_test(tc, lz4_dump_is_an_rdb_inside);
    tcase_add_test(tc, verso_reads_redis_default_dump);
    tcase_add_test(tc, verso_reads_redis_dump_without_checksum);
    suite_add_tcase(su, tc);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_base, sizeof g_base, "%s/verso-interop.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_base)) {
        perror(g_base);
        return 1;
    }
    int rc = h_main(su);
    nftw(g_base, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}
