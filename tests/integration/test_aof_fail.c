/* Integration tests: the AOF when rewrites fail (a full disk, simulated by
 * tests/integration/diskfull.so: creating the rewrite's temp base fails with
 * ENOSPC while a control file exists), and a rewrite that ends a long
 * manifest.
 *
 *  - many_incrs_deleted: a rewrite of an AOF whose manifest lists 300 INCR
 *    files deletes all of them;
 *  - failed_rewrites_add_no_files: BGREWRITEAOF failing again and again
 *    with no write in between adds no INCR file; under a write load,
 *    automatic rewrites back off after failures instead of adding an INCR
 *    file per try; once the disk has room a rewrite ends the pile;
 *  - first_base_fails_always: `appendfsync always` + CONFIG SET appendonly
 *    yes while the base cannot be written: writes (those already waiting
 *    for the base included) are answered "MISCONF Errors writing to the AOF
 *    file: ...", INFO says aof_last_bgrewrite_status:err; when the disk has
 *    room again the base is written and writes succeed.
 *
 * Every server a test starts is killed by the fixture teardown. */
#include "harness.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#ifndef VERSO_DISKFULL_SHIM
#error "build with -DVERSO_DISKFULL_SHIM='\"<absolute path of tests/integration/diskfull.so>\"'"
#endif

/* ------------------------------------------------------------ fixture */

static char g_full[4096]; /* the shim's control file: exists = disk full */
static void shim_off(void)
{
    static const char *const vars[] = { "DISKFULL_MATCH", "DISKFULL_FILE",
                                        "DISKFULL_DELAY_US", NULL };
    h_preload_off(vars);
}

/* The next server starts under the shim: rewrite temp files fail while
 * g_full exists (it does not yet), after delay_us. */
static void shim_on(long delay_us)
{
    char d[32];
    snprintf(d, sizeof d, "%ld", delay_us);
    setenv("DISKFULL_DELAY_US", d, 1);
    snprintf(g_full, sizeof g_full, "/tmp/verso-diskfull-%d", (int)getpid());
    unlink(g_full);
    setenv("DISKFULL_MATCH", "temp-rewriteaof", 1);
    setenv("DISKFULL_FILE", g_full, 1);
    h_preload_on(VERSO_DISKFULL_SHIM);
}

static void disk_full(int on)
{
    if (on) {
        FILE *f = fopen(g_full, "w");
        ck_assert_ptr_nonnull(f);
        fclose(f);
    } else {
        unlink(g_full);
    }
}

static void setup(void) {}

static void teardown(void)
{
    shim_off();
    if (g_full[0])
        unlink(g_full);
    g_full[0] = '\0';
    h_srv_drop_all();
}

#define start_srv h_srv_start

/* A server under the shim (the disk not full yet). */
static srv *start_shimmed(long delay_us, const char *extra)
{
    shim_on(delay_us);
    srv *s = start_srv("%s", extra);
    shim_off();
    return s;
}

/* ------------------------------------------------------------- helpers */

static long long info_int(redisContext *c, const char *field)
{
    return h_info_int(c, "persistence", field);
}

static void info_str(redisContext *c, const char *field, char *v, size_t cap)
{
    char *info = h_info(c, "persistence");
    h_info_field(info, field, v, cap);
    free(info);
}

/* Waits until no rewrite runs (20 s at most, scaled). */
#define wait_idle(c) (void)h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 20000)

/* BGREWRITEAOF, then wait for its end; returns aof_last_bgrewrite_status. */
static int rewrite_ok(redisContext *c)
{
    wait_idle(c);
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    wait_idle(c);
    char v[32];
    info_str(c, "aof_last_bgrewrite_status", v, sizeof v);
    return !strcmp(v, "ok");
}

static void put_file(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_msg(f != NULL, "open %s", path);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Number of INCR lines in the manifest, and of entries in the directory. */
static int manifest_incrs(const srv *s)
{
    char path[4096], line[1100];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no manifest at %s", path);
    int n = 0;
    while (fgets(line, sizeof line, f))
        n += strstr(line, " type i") != NULL;
    fclose(f);
    return n;
}

static int dir_entries(const srv *s)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/appendonlydir", s->dir);
    return h_dir_entries(path);
}

/* ------------------------------------ 13: a manifest of 300 INCR files */

START_TEST(many_incrs_deleted)
{
    enum { N = 300 };
    srv *s = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    srv_kill9(s); /* its base (empty) stays */
    redisFree(c);
    /* keep the base, replace the INCRs by N files of one SET each */
    char path[4096], base[256] = "";
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    size_t len;
    char *m = h_slurp(path, &len, 1);
    ck_assert_int_eq(sscanf(m, "file %255s seq", base), 1);
    free(m);
    char *man = malloc((size_t)N * 100 + 512);
    size_t mlen = (size_t)sprintf(man, "file %s seq 1 type b\n", base);
    for (int i = 1; i <= N; i++) {
        char name[128], cmdbuf[128], fpath[4096];
        snprintf(name, sizeof name, "appendonly.aof.%d.incr.aof", i);
        int n = snprintf(cmdbuf, sizeof cmdbuf,
                         "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$%d\r\nk%d\r\n$1\r\nv\r\n",
                         (int)snprintf(NULL, 0, "k%d", i), i);
        snprintf(fpath, sizeof fpath, "%s/appendonlydir/%s", s->dir, name);
        put_file(fpath, cmdbuf, (size_t)n);
        mlen += (size_t)sprintf(man + mlen, "file %s seq %d type i\n", name, i);
    }
    put_file(path, man, mlen);
    free(man);

    srv *s2 = start_srv("--dir '%s' --appendonly yes --appendfsync always", s->dir);
    c = srv_connect(s2);
    expect_int(c, N, "DBSIZE");
    ck_assert_int_eq(dir_entries(s), N + 2);
    ck_assert(rewrite_ok(c));
    long long end = h_now_ms() + 20000;
    while (dir_entries(s) != 3 && h_now_ms() < end)
        h_sleep_ms(20); /* old files are deleted on the writer thread */
    ck_assert_int_eq(dir_entries(s), 3); /* manifest, base, one incr */
    ck_assert_int_eq(manifest_incrs(s), 1);
    expect_int(c, N, "DBSIZE");
    redisFree(c);
}
END_TEST

/* ------------------------------- 13: failed rewrites pile up no files */

START_TEST(failed_rewrites_add_no_files)
{
    srv *s = start_shimmed(0, "--appendonly yes --appendfsync everysec "
                           "--auto-aof-rewrite-percentage 1 --auto-aof-rewrite-min-size 1");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET k 0");
    ck_assert(rewrite_ok(c)); /* the disk is fine so far */
    int incrs = manifest_incrs(s);
    disk_full(1);
    /* no write in between: each failure leaves the same empty INCR */
    for (int i = 0; i < 5; i++)
        ck_assert(!rewrite_ok(c));
    ck_assert_int_eq(manifest_incrs(s), incrs);
    ck_assert_int_ge(info_int(c, "aof_rewrites_consecutive_failures"), 5);
    /* writes go on: automatic rewrites (1% growth) back off instead of
     * trying (and adding an INCR) every cron tick */
    long long end = h_now_ms() + 6000;
    for (int i = 0; h_now_ms() < end; i++) {
        expect_status(c, "OK", "SET k%d %d", i % 50, i);
        h_sleep_ms(20);
    }
    int during = manifest_incrs(s);
    ck_assert_msg(during <= incrs + 2, "%d INCR files after 6 s of failing rewrites (were %d)",
                  during, incrs);
    char v[32];
    info_str(c, "aof_last_bgrewrite_status", v, sizeof v);
    ck_assert_str_eq(v, "err");
    /* room again: one rewrite ends the pile */
    disk_full(0);
    ck_assert(rewrite_ok(c));
    end = h_now_ms() + 20000;
    while (dir_entries(s) != 3 && h_now_ms() < end)
        h_sleep_ms(20);
    ck_assert_int_eq(dir_entries(s), 3);
    ck_assert_int_eq(info_int(c, "aof_rewrites_consecutive_failures"), 0);
    redisFree(c);
}
END_TEST

/* ------------------------- 14: the first base fails under `always` */

START_TEST(first_base_fails_always)
{
    /* the base fails 500 ms after it starts: the SET runs while it is
     * pending, so its reply waits for the base */
    srv *s = start_shimmed(500000, "--appendfsync always");
    redisContext *c = srv_connect(s);
    struct timeval tv = { 20, 0 };
    redisSetTimeout(c, tv); /* a write blocked for good fails the test */
    expect_status(c, "OK", "SET before 1");
    disk_full(1);
    redisAppendCommand(c, "CONFIG SET appendonly yes");
    redisAppendCommand(c, "SET k 1");
    redisAppendCommand(c, "PING");
    redisReply *r;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    ck_assert_msg(redisGetReply(c, (void **)&r) == REDIS_OK, "SET: no reply (%s)", c->errstr);
    ck_assert_msg(r->type == REDIS_REPLY_ERROR &&
                      !strncmp(r->str, "MISCONF Errors writing to the AOF file: ", 40),
                  "SET: %s", r->str);
    freeReplyObject(r);
    /* queued behind the held SET on the same connection: the same error */
    ck_assert_msg(redisGetReply(c, (void **)&r) == REDIS_OK, "PING: no reply (%s)", c->errstr);
    ck_assert_msg(r->type == REDIS_REPLY_ERROR, "PING: %s", r->str);
    freeReplyObject(r);
    expect_bulk(c, "1", "GET k"); /* it ran in memory, but was not acknowledged */
    /* later writes: refused with the reason, at once */
    expect_error_prefix(c, "MISCONF Errors writing to the AOF file: ", "SET k 2");
    char v[32];
    info_str(c, "aof_last_bgrewrite_status", v, sizeof v);
    ck_assert_str_eq(v, "err");
    expect_status(c, "PONG", "PING"); /* reads are served */
    expect_bulk(c, "1", "GET before");
    /* room again: the retried base makes the AOF whole, writes succeed */
    disk_full(0);
    long long end = h_now_ms() + 30000;
    for (;;) {
        r = cmd(c, "SET k 3");
        int ok = r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (ok)
            break;
        ck_assert_msg(h_now_ms() < end, "writes still refused 30 s after the disk had room");
        h_sleep_ms(100);
    }
    info_str(c, "aof_last_bgrewrite_status", v, sizeof v);
    ck_assert_str_eq(v, "ok");
    srv_kill9(s);
    redisFree(c);
    srv *s2 = start_srv("--dir '%s' --appendonly yes", s->dir);
    c = srv_connect(s2);
    expect_bulk(c, "3", "GET k");
    expect_bulk(c, "1", "GET before");
    redisFree(c);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("aof_fail");
    TCase *tc = tcase_create("aof_fail");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, many_incrs_deleted);
    tcase_add_test(tc, failed_rewrites_add_no_files);
    tcase_add_test(tc, first_base_fails_always);
    suite_add_tcase(s, tc);
    return h_main(s);
}
