/* test_aof_interop: our multi-part AOF against Redis 7.0's own tools.
 *
 *  - files Redis 7.0 writes (redis-server --appendonly yes, after a
 *    BGREWRITEAOF: an RDB base with keys, an INCR file with SET ... PXAT,
 *    INCR, DEL, SELECT) are parsed by aofm_load and replayed by
 *    aof_load_files;
 *  - a directory we write (aofm_save, a base from rdb_writer with
 *    aof_base=1, a hand-written RESP INCR) passes redis-check-aof and is
 *    served by redis-server; what Redis appends to it we load back;
 *  - a truncated INCR: redis-check-aof and our loader agree on where the
 *    last whole command ends, and after our cut Redis finds it valid;
 *  - manifests, bad and odd: redis-server refuses exactly those we refuse,
 *    with the same text and line (redis-check-aof is no oracle here: it
 *    only takes a file starting with "file" for a manifest).
 *
 * Needs redis-server and redis-check-aof (7.0) on PATH. The servers are
 * the harness's (srv_start_redis: a free port of 127.0.0.1, dies with the
 * test process); redis_verdict starts its own, expected to refuse. */
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
#include <time.h>
#include <unistd.h>

#include "aof_load.h"
#include "harness.h"
#include "log.h"
#include "util.h"
#include "vbuf.h"

static char tdir[64];

static void setup(void) {
    snprintf(tdir, sizeof tdir, "/tmp/test_aofi.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tdir));
    char logp[128];
    snprintf(logp, sizeof logp, "%s/verso.log", tdir);
    ck_assert_int_eq(log_open(logp, LOG_NOTICE), 0);
}

static void teardown(void) {
    log_open("/dev/null", LOG_WARNING);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- a redis-server ---- */

/* redis-server (harness: srv_start_redis) in dir with AOF on, its client. */
typedef struct rsrv {
    srv *s;
    redisContext *c;
} rsrv;

/* Starts redis-server in dir with AOF on; appenddirname may be NULL. */
static void redis_start(rsrv *r, const char *dir, const char *appenddirname) {
    r->s = srv_start_redis("--dir '%s' --appendonly yes --appendfsync always%s%s", dir,
                           appenddirname ? " --appenddirname " : "",
                           appenddirname ? appenddirname : "");
    r->c = srv_connect(r->s);
    h_wait_loaded(r->c, 10000);
}

/* SHUTDOWN, which must end the server with status 0. */
static void redis_shutdown(rsrv *r) {
    redisReply *rep = redisCommand(r->c, "SHUTDOWN");   /* no reply: it exits */
    if (rep) freeReplyObject(rep);
    redisFree(r->c);
    r->c = NULL;
    ck_assert_msg(srv_wait_exit(r->s, h_scaled_ms(10000)), "redis-server did not shut down");
    ck_assert(WIFEXITED(r->s->exit_status) && WEXITSTATUS(r->s->exit_status) == 0);
    srv_stop(r->s);
    r->s = NULL;
}

/* Runs a shell command; returns its exit status, output in *out. */
static int run(char **out, const char *fmt, ...) {
    char cmd[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    vbuf b;
    vbuf_init(&b);
    char tmp[4096];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, p)) > 0) vbuf_append(&b, tmp, n);
    vbuf_append(&b, "", 1);
    int st = pclose(p);
    *out = b.data;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* ---- recording a replay ---- */

typedef struct rec {
    vbuf cmds;      /* "ARG|ARG|...\n" per command */
    vbuf keys;      /* "db key=val ttl?\n" per base key */
} rec;

static int rec_exec(void *priv, int argc, const arg *argv, char *err, size_t errlen) {
    (void)err;
    (void)errlen;
    rec *r = priv;
    for (int i = 0; i < argc; i++) {
        if (i) vbuf_append(&r->cmds, "|", 1);
        vbuf_append(&r->cmds, argv[i].p, argv[i].len);
    }
    vbuf_append(&r->cmds, "\n", 1);
    return 0;
}

static int rec_key(void *priv, int dbid, obj *key, obj *val, int64_t expire, char *err,
                   size_t errlen) {
    (void)err;
    (void)errlen;
    rec *r = priv;
    char kb[OBJ_INTBUF], vb[OBJ_INTBUF], line[256];
    size_t kl, vl;
    const char *k = obj_str(key, kb, &kl), *v = obj_str(val, vb, &vl);
    snprintf(line, sizeof line, "%d %.*s=%.*s %s\n", dbid, (int)kl, k, (int)vl, v,
             expire >= 0 ? "ttl" : "-");
    vbuf_append_str(&r->keys, line);
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static const rdb_load_cb rec_cb = { .key = rec_key };

/* Loads dir's manifest and files into r (NUL-terminated texts). */
static int replay(const char *dir, int tok, rec *r, aof_load_stats *st, char *err,
                  size_t errlen) {
    aof_manifest m;
    vbuf_init(&r->cmds);
    vbuf_init(&r->keys);
    ck_assert_msg(aofm_load(dir, "appendonly.aof", &m, err, errlen) == 0, "%s", err);
    int rc = aof_load_files(dir, &m, tok, wall_ms(), &rec_cb, r, rec_exec, r, st, err, errlen);
    aofm_free(&m);
    vbuf_append(&r->cmds, "", 1);
    vbuf_append(&r->keys, "", 1);
    return rc;
}

static void rec_free(rec *r) {
    vbuf_free(&r->cmds);
    vbuf_free(&r->keys);
}

static void has(const char *text, const char *needle) {
    ck_assert_msg(strstr(text, needle) != NULL, "'%s' not in:\n%s", needle, text);
}

/* ---- Redis writes, we read ---- */

static void redis_writes(rsrv *s) {
    expect_status(s->c, "OK", "SET a 1 EX 1000");
    expect_status(s->c, "OK", "SET s hello");
    for (int i = 0; i < 3; i++) expect_int(s->c, i + 1, "INCR counter");
    expect_status(s->c, "Background append only file rewriting started", "BGREWRITEAOF");
    /* the rewrite is done (the manifest names base 2, checked after) */
    h_wait_info(s->c, "persistence", "aof_rewrite_in_progress", 0, 10000);
    h_wait_info(s->c, "persistence", "aof_rewrite_scheduled", 0, 10000);
    h_wait_info_str(s->c, "persistence", "aof_last_bgrewrite_status", "ok", 10000);
    expect_status(s->c, "OK", "SET b 2 EX 1000");
    expect_int(s->c, 4, "INCR counter");
    expect_int(s->c, 1, "DEL s");
    expect_status(s->c, "OK", "SELECT 2");
    expect_status(s->c, "OK", "SET k2 v2");
    expect_status(s->c, "OK", "SET %s %b", "bin", "a\r\nb\0c", (size_t)6);
}

START_TEST(test_redis_writes_we_load) {
    rsrv s;
    redis_start(&s, tdir, NULL);
    redis_writes(&s);
    redis_shutdown(&s);
    char adir[128], err[512];
    snprintf(adir, sizeof adir, "%s/appendonlydir", tdir);
    aof_manifest m;
    ck_assert_msg(aofm_load(adir, "appendonly.aof", &m, err, sizeof err) == 0, "%s", err);
    ck_assert_str_eq(m.base.name, "appendonly.aof.2.base.rdb");   /* after the rewrite */
    ck_assert_int_eq(m.nincr, 1);
    ck_assert_str_eq(m.incrs[0].name, "appendonly.aof.2.incr.aof");
    ck_assert_int_eq(m.curr_incr_seq, 2);
    aofm_free(&m);
    rec r;
    aof_load_stats st;
    ck_assert_msg(replay(adir, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    /* the base holds the state at the rewrite */
    has(r.keys.data, "0 a=1 ttl\n");
    has(r.keys.data, "0 s=hello -\n");
    has(r.keys.data, "0 counter=3 -\n");
    ck_assert_uint_eq(st.base_keys, 3);
    /* the incr holds the writes after it, as Redis propagates them */
    has(r.cmds.data, "SELECT|0\nSET|b|2|PXAT|");
    has(r.cmds.data, "\nINCR|counter\nDEL|s\nSELECT|2\nSET|k2|v2\n");
    ck_assert_uint_eq(st.commands, 7);
    ck_assert(memmem(r.cmds.data, r.cmds.len, "SET|bin|a\r\nb\0c\n", 16) != NULL);
    ck_assert_uint_eq(st.truncated_bytes, 0);
    rec_free(&r);
}
END_TEST

/* ---- we write, Redis reads ---- */

static void resp_cmd(vbuf *b, ...) {
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, b);
    const char *a;
    while ((a = va_arg(ap, const char *)) != NULL) argv[argc++] = a;
    va_end(ap);
    char hdr[48];
    snprintf(hdr, sizeof hdr, "*%d\r\n", argc);
    vbuf_append_str(b, hdr);
    for (int i = 0; i < argc; i++) {
        snprintf(hdr, sizeof hdr, "$%zu\r\n", strlen(argv[i]));
        vbuf_append_str(b, hdr);
        vbuf_append_str(b, argv[i]);
        vbuf_append(b, "\r\n", 2);
    }
}

static void put_file(const char *dir, const char *name, const void *p, size_t n) {
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (n) ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

static void write_base(const char *adir) {
    char path[256], err[RDB_ERRLEN];
    snprintf(path, sizeof path, "%s/appendonly.aof.1.base.rdb", adir);
    rdb_aux aux = { "7.0.15", wall_ms() / 1000, 0, 1, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(path, RDB_COMPRESS_NONE, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    static const char *kv[][3] = { { "0", "base:a", "1" }, { "0", "base:int", "12345" },
                                   { "5", "base:x", "hello" } };
    for (int i = 0; i < 3; i++) {
        obj *k = obj_new_raw(kv[i][1], strlen(kv[i][1]));
        obj *v = obj_new_value(kv[i][2], strlen(kv[i][2]));
        int64_t exp = i == 2 ? wall_ms() + 3600 * 1000 : -1;
        ck_assert_int_eq(rdb_writer_put(w, atoi(kv[i][0]), k, v, exp), 0);
        obj_decref(k);
        obj_decref(v);
    }
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
}

/* Our appendonly dir: manifest + base + incr; returns the incr bytes. */
static vbuf write_our_dir(const char *adir) {
    ck_assert_int_eq(mkdir(adir, 0755), 0);
    write_base(adir);
    vbuf b;
    vbuf_init(&b);
    char pxat[32];
    snprintf(pxat, sizeof pxat, "%lld", (long long)(wall_ms() + 3600 * 1000));
    resp_cmd(&b, "SELECT", "0", NULL);
    resp_cmd(&b, "SET", "x", "1", NULL);
    resp_cmd(&b, "INCR", "x", NULL);
    resp_cmd(&b, "DEL", "base:a", NULL);
    resp_cmd(&b, "SELECT", "3", NULL);
    resp_cmd(&b, "SET", "y", "hello", NULL);
    resp_cmd(&b, "SET", "z", "v", "PXAT", pxat, NULL);
    put_file(adir, "appendonly.aof.1.incr.aof", b.data, b.len);
    aof_manifest m;
    aofm_init(&m);
    char *bn = aofm_new_base_name(&m, "appendonly.aof");
    char *in = aofm_new_incr_name(&m, "appendonly.aof");
    m.base = (aof_file){ bn, m.curr_base_seq, 'b' };
    m.incrs = xmalloc(sizeof *m.incrs);
    m.incrs[0] = (aof_file){ in, m.curr_incr_seq, 'i' };
    m.nincr = 1;
    char err[512];
    ck_assert_msg(aofm_save(adir, "appendonly.aof", &m, err, sizeof err) == 0, "%s", err);
    aofm_free(&m);
    return b;
}

START_TEST(test_we_write_redis_loads) {
    char adir[128];
    snprintf(adir, sizeof adir, "%s/ouraof", tdir);
    vbuf inc = write_our_dir(adir);
    char *out;
    int rc = run(&out, "redis-check-aof '%s/appendonly.aof.manifest' 2>&1", adir);
    ck_assert_msg(rc == 0, "redis-check-aof: %s", out);
    has(out, "RDB preamble is OK, proceeding with AOF tail");
    has(out, "All AOF files and manifest are valid");
    free(out);
    rsrv s;
    redis_start(&s, tdir, "ouraof");
    expect_bulk(s.c, "2", "GET x");
    expect_bulk(s.c, "12345", "GET base:int");
    expect_int(s.c, 0, "EXISTS base:a");
    expect_int(s.c, 2, "DBSIZE");
    expect_status(s.c, "OK", "SELECT 3");
    expect_bulk(s.c, "hello", "GET y");
    expect_int_range(s.c, 3500 * 1000 + 1, LLONG_MAX, "PTTL z");
    expect_status(s.c, "OK", "SELECT 5");
    expect_bulk(s.c, "hello", "GET base:x");
    expect_int_range(s.c, 3501, LLONG_MAX, "TTL base:x");
    /* Redis appends to our last INCR file; we load that back */
    expect_status(s.c, "OK", "SELECT 0");
    expect_int(s.c, 3, "INCR x");
    redis_shutdown(&s);
    rec r;
    aof_load_stats st;
    char err[512];
    ck_assert_msg(replay(adir, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    has(r.keys.data, "0 base:a=1 -\n0 base:int=12345 -\n5 base:x=hello ttl\n");
    has(r.cmds.data, "SELECT|0\nSET|x|1\nINCR|x\nDEL|base:a\nSELECT|3\nSET|y|hello\nSET|z|v|PXAT|");
    has(r.cmds.data, "\nSELECT|0\nINCR|x\n");
    ck_assert_uint_eq(st.commands, 9);
    rec_free(&r);
    vbuf_free(&inc);
}
END_TEST

/* ---- truncation: the same verdict as redis-check-aof ---- */

/* What redis-check-aof found valid in the incr file (it reports the base
 * first, on a line of its own). */
static long long ok_up_to(const char *out) {
    const char *p = strstr(out, "filename=appendonly.aof.1.incr.aof, ");
    ck_assert_ptr_nonnull(p);
    p = strstr(p, "ok_up_to=");
    ck_assert_ptr_nonnull(p);
    return atoll(p + 9);
}

START_TEST(test_truncation_agrees_with_redis) {
    char adir[128];
    snprintf(adir, sizeof adir, "%s/ouraof", tdir);
    vbuf inc = write_our_dir(adir);
    size_t whole = inc.len;
    resp_cmd(&inc, "SET", "cut", "this value never makes it", NULL);
    for (size_t cut = whole + 1; cut < inc.len; cut += 7) {
        put_file(adir, "appendonly.aof.1.incr.aof", inc.data, cut);
        char *out, err[512];
        int rc = run(&out, "redis-check-aof '%s/appendonly.aof.manifest' 2>&1", adir);
        ck_assert_msg(rc == 1, "cut %zu: redis-check-aof: %s", cut, out);
        ck_assert_int_eq(ok_up_to(out), (long long)whole);
        free(out);
        rec r;
        aof_load_stats st;
        ck_assert_int_eq(replay(adir, 0, &r, &st, err, sizeof err), -1);
        char want[128];
        snprintf(want, sizeof want, "appendonly.aof.1.incr.aof: offset %zu: unexpected end", whole);
        ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
        rec_free(&r);
        ck_assert_int_eq(replay(adir, 1, &r, &st, err, sizeof err), 0);
        ck_assert_uint_eq(st.truncated_bytes, cut - whole);
        rec_free(&r);
        rc = run(&out, "redis-check-aof '%s/appendonly.aof.manifest' 2>&1", adir);
        ck_assert_msg(rc == 0, "after our cut: %s", out);
        ck_assert_int_eq(ok_up_to(out), (long long)whole);
        free(out);
    }
    vbuf_free(&inc);
}
END_TEST

/* ---- manifests: the same refusals as Redis's reader ---- */

static const char *const manifests[] = {
    /* accepted by both */
    "file appendonly.aof.1.base.rdb seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n",
    "# comment\nFILE appendonly.aof.1.incr.aof SEQ 1x TYPE incr extra key\n",
    "file \"appendonly.aof.1.incr.aof\" seq 1 type i\nfile 'old one' seq 1 type h\n",
    "# only a comment\n",
    "# by hand\n  FILE \"my base\\x21.rdb\" Seq 7 TYPE b  \r\nfile 'it s' seq 3 type h\n"
    "type i seq 4 file \"a\\\"b c\\n\" future-key whatever\nfile 'q\\'s' seq 1 type h\n",
    /* refused by both */
    "",
    "file appendonly.aof.1.incr.aof seq 1 type i",
    "file a seq 1 type i\n\n",
    "file a seq 1\n",
    "file a seq 1 type i x\n",
    "file \"a seq 1 type i\n",
    "file \"a\"b seq 1 type i\n",
    "file a seq 0 type i\n",
    "file a seq abc type i\n",
    "file a seq 1 kind i\n",
    "file dir/a seq 1 type i\n",
    "file ..\\a seq 1 type i\n",
    "file a seq 1 type b\nfile b seq 2 type b\n",
    "file a seq 2 type i\nfile b seq 3 type i\nfile c seq 3 type i\n",
    "file a seq -1 type i\n",
    "file a seq 1 type x\n",
    "file a seq 1 type b\nfile \"a\\\\b\" seq 2 type i\n",
    "file 'a' seq 1 type i\nfile \"b seq 2 type i\n",
};

/* Starts redis-server on dir (its appendonlydir holds the manifest) and
 * returns its log once it has refused the manifest, or got past it (ready,
 * or stopped for another reason). The server is killed. */
/* *out: what redis-server logged (malloc'd). Out-parameter rather than a
 * return value: gcc 12 saw a dangling pointer in the inlined local. */
static void redis_verdict(const char *dir, char **out) {
    char sock[160], logf[160], cmdline[1024];
    snprintf(sock, sizeof sock, "%s/redis.sock", dir);
    snprintf(logf, sizeof logf, "%s/redis.log", dir);
    unlink(logf);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", sock, "--dir", dir,
               "--appendonly", "yes", "--save", "", "--daemonize", "no", "--logfile", logf,
               (char *)NULL);
        _exit(127);
    }
    int status, exited = 0;
    for (int i = 0; i < 500 && !exited; i++) {       /* 10 s */
        exited = waitpid(pid, &status, WNOHANG) == pid;
        FILE *f = fopen(logf, "r");
        if (f) {
            char line[1024];
            while (!exited && fgets(line, sizeof line, f))
                if (strstr(line, "eady to accept connections")) exited = -1;
            fclose(f);
        }
        if (!exited) usleep(20000);
    }
    if (exited <= 0) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    }
    snprintf(cmdline, sizeof cmdline, "cat '%s'", logf);
    run(out, "%s", cmdline);
}

static void check_manifest_parity(const char *text) {
    char dir[128], adir[160], err[512];
    snprintf(dir, sizeof dir, "%s/m", tdir);
    snprintf(adir, sizeof adir, "%s/appendonlydir", dir);
    char rm[256];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(rm), 0);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    ck_assert_int_eq(mkdir(adir, 0755), 0);
    put_file(adir, "appendonly.aof.manifest", text, strlen(text));
    put_file(adir, "appendonly.aof.1.incr.aof", "", 0);
    aof_manifest m;
    int ours = aofm_load(adir, "appendonly.aof", &m, err, sizeof err);
    char *out;
    redis_verdict(dir, &out);
    int theirs_bad = strstr(out, "FATAL AOF MANIFEST FILE ERROR") != NULL;
    if (ours == 0) {
        aofm_free(&m);
        ck_assert_msg(!theirs_bad, "we accept, Redis refuses '%s':\n%s", text, out);
        /* and Redis got past the manifest: it runs, or it wants the files */
        ck_assert_msg(strstr(out, "eady to accept connections") ||
                      strstr(out, "Unable to obtain the AOF file"), "'%s':\n%s", text, out);
    } else {
        ck_assert_int_eq(ours, -1);
        ck_assert_msg(theirs_bad, "we refuse (%s), Redis accepts '%s':\n%s", err, text, out);
        const char *what = strrchr(err, ':') + 2;       /* Redis's text */
        has(out, what);
        const char *at = strstr(out, "at line ");
        if (at) {
            char want[32];
            snprintf(want, sizeof want, ": line %d: ", atoi(at + 8));
            has(err, want);
        }
    }
    free(out);
}

START_TEST(test_manifest_parity) {
    for (size_t i = 0; i < sizeof manifests / sizeof manifests[0]; i++)
        check_manifest_parity(manifests[i]);
}
END_TEST

static Suite *interop_suite(void) {
    Suite *s = suite_create("aof_interop");
    TCase *tc = tcase_create("interop");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_redis_writes_we_load);
    tcase_add_test(tc, test_we_write_redis_loads);
    tcase_add_test(tc, test_truncation_agrees_with_redis);
    tcase_add_test(tc, test_manifest_parity);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return h_main(interop_suite()); }
