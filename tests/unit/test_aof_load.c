/* test_aof_load: replaying a multi-part AOF (aof/aof_load.h).
 *
 * A fake exec re-encodes every command it gets as RESP, so that a replay
 * can be compared byte for byte with the files it came from. Covered: an
 * RDB base (plain, LZ4, recognised by name or by magic) or a RESP base,
 * an RDB preamble followed by commands (Redis 6's single file, cut or not),
 * several INCR files, annotations, missing and empty files, a truncation at
 * every byte of the last command of the last file (cut with the Redis
 * warnings when allowed, an error naming the offset when not), truncation
 * and garbage in earlier files, exec errors, commands crossing the 1 MiB
 * read chunks, a damaged base, and a flip of every byte of an INCR file
 * (an error naming an offset, or a load that is exactly the flipped bytes
 * when only a payload changed; never a crash, under ASan). */
#include <check.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aof_load.h"
#include "log.h"
#include "util.h"
#include "vbuf.h"

#define NOW_MS 1700000000000LL

static char tdir[64];
static char adir[128];
static char logpath[128];

static void setup(void) {
    snprintf(tdir, sizeof tdir, "/tmp/test_aofl.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tdir));
    snprintf(adir, sizeof adir, "%s/appendonlydir", tdir);
    ck_assert_int_eq(mkdir(adir, 0755), 0);
    snprintf(logpath, sizeof logpath, "%s/log", tdir);
    ck_assert_int_eq(log_open(logpath, LOG_NOTICE), 0);
}

static void teardown(void) {
    log_open("/dev/null", LOG_WARNING);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---- files ---- */

static void apath(char *out, size_t n, const char *name) { snprintf(out, n, "%s/%s", adir, name); }

static void put_file(const char *name, const void *p, size_t n) {
    char path[256];
    apath(path, sizeof path, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (n) ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    fclose(f);
}

static vbuf get_file(const char *path) {
    vbuf b;
    vbuf_init(&b);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) vbuf_append(&b, tmp, n);
    fclose(f);
    return b;
}

static off_t file_size(const char *name) {
    char path[256];
    struct stat sb;
    apath(path, sizeof path, name);
    ck_assert_int_eq(stat(path, &sb), 0);
    return sb.st_size;
}

/* Appends one command in RESP: args with explicit lengths. */
static void cmdn(vbuf *b, int argc, const char *const *argv, const size_t *lens) {
    char hdr[48];
    snprintf(hdr, sizeof hdr, "*%d\r\n", argc);
    vbuf_append_str(b, hdr);
    for (int i = 0; i < argc; i++) {
        size_t len = lens ? lens[i] : strlen(argv[i]);
        snprintf(hdr, sizeof hdr, "$%zu\r\n", len);
        vbuf_append_str(b, hdr);
        vbuf_append(b, argv[i], len);
        vbuf_append(b, "\r\n", 2);
    }
}

/* Appends one command of NUL-terminated args (NULL ends the list). */
static void cmd(vbuf *b, ...) {
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, b);
    const char *s;
    while ((s = va_arg(ap, const char *)) != NULL) argv[argc++] = s;
    va_end(ap);
    cmdn(b, argc, argv, NULL);
}

static void write_base_rdb(const char *name, int compress) {
    char path[256], err[RDB_ERRLEN];
    apath(path, sizeof path, name);
    rdb_aux aux = { "7.0.15", NOW_MS / 1000, 0, 1, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(path, compress, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    static const char *kv[][2] = { { "a", "1" }, { "b", "hello" }, { "gone", "x" } };
    for (int i = 0; i < 3; i++) {
        obj *k = obj_new_raw(kv[i][0], strlen(kv[i][0]));
        obj *v = obj_new_value(kv[i][1], strlen(kv[i][1]));
        int64_t exp = i == 2 ? NOW_MS - 1000 : (i == 1 ? NOW_MS + 60000 : -1);
        ck_assert_int_eq(rdb_writer_put(w, i == 1 ? 3 : 0, k, v, exp), 0);
        obj_decref(k);
        obj_decref(v);
    }
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
}

/* ---- the fake server ---- */

typedef struct rec {
    vbuf cmds;        /* every command re-encoded as RESP */
    vbuf keys;        /* base keys: "db key=val expire\n" */
    int ncmds;
} rec;

static void rec_init(rec *r) {
    vbuf_init(&r->cmds);
    vbuf_init(&r->keys);
    r->ncmds = 0;
}

static void rec_free(rec *r) {
    vbuf_free(&r->cmds);
    vbuf_free(&r->keys);
}

static int fake_exec(void *priv, int argc, const arg *argv, char *err, size_t errlen) {
    rec *r = priv;
    /* no ck_assert here: each one is a write to Check's pipe, and this
     * runs for every command */
    if (argc < 1 || argc > 64) abort();
    if (argv[0].len == 4 && memcmp(argv[0].p, "BOOM", 4) == 0) {
        snprintf(err, errlen, "unknown command 'BOOM'");
        return -1;
    }
    const char *ptrs[64];
    size_t lens[64];
    for (int i = 0; i < argc; i++) {
        ptrs[i] = argv[i].p;
        lens[i] = argv[i].len;
    }
    cmdn(&r->cmds, argc, ptrs, lens);
    r->ncmds++;
    return 0;
}

static int fake_key(void *priv, int dbid, obj *key, obj *val, int64_t expire, char *err,
                    size_t errlen) {
    (void)err;
    (void)errlen;
    rec *r = priv;
    char kb[OBJ_INTBUF], vb[OBJ_INTBUF], line[256];
    size_t kl, vl;
    const char *k = obj_str(key, kb, &kl), *v = obj_str(val, vb, &vl);
    snprintf(line, sizeof line, "%d %.*s=%.*s %lld\n", dbid, (int)kl, k, (int)vl, v,
             (long long)expire);
    vbuf_append_str(&r->keys, line);
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static const rdb_load_cb base_cb = { .key = fake_key };

/* A manifest of `base` (or NULL) and n incr names. */
static void make_manifest(aof_manifest *m, const char *base, int n, const char *const *incrs) {
    aofm_init(m);
    if (base) {
        m->base.name = xstrdup(base);
        m->base.seq = 1;
        m->base.type = 'b';
    }
    m->incrs = n ? xcalloc((size_t)n, sizeof *m->incrs) : NULL;
    for (int i = 0; i < n; i++) {
        m->incrs[i].name = xstrdup(incrs[i]);
        m->incrs[i].seq = i + 1;
        m->incrs[i].type = 'i';
    }
    m->nincr = n;
}

static int load(const aof_manifest *m, int tok, rec *r, aof_load_stats *st, char *err,
                size_t errlen) {
    err[0] = '\0';
    return aof_load_files(adir, m, tok, NOW_MS, &base_cb, r, fake_exec, r, st, err, errlen);
}

static int log_has(const char *needle) {
    vbuf b = get_file(logpath);
    vbuf_append(&b, "", 1);
    int found = strstr(b.data, needle) != NULL;
    vbuf_free(&b);
    return found;
}

static void assert_bytes(const vbuf *got, const void *want, size_t n) {
    ck_assert_uint_eq(got->len, n);
    ck_assert(n == 0 || memcmp(got->data, want, n) == 0);
}

static const char *I1 = "appendonly.aof.1.incr.aof";
static const char *I2 = "appendonly.aof.2.incr.aof";
static const char *I3 = "appendonly.aof.3.incr.aof";
static const char *BRDB = "appendonly.aof.1.base.rdb";

/* ---- whole loads ---- */

START_TEST(test_base_and_incrs) {
    write_base_rdb(BRDB, RDB_COMPRESS_NONE);
    vbuf f[3], all;
    vbuf_init(&all);
    for (int i = 0; i < 3; i++) vbuf_init(&f[i]);
    cmd(&f[0], "SELECT", "0", NULL);
    cmd(&f[0], "SET", "k", "v", NULL);
    cmd(&f[0], "INCR", "n", NULL);
    cmd(&f[2], "SET", "bin", "a\r\nb\0c", NULL);   /* "\0" ends the literal: "a\r\nb" */
    cmd(&f[2], "DEL", "k", NULL);
    const char *names[3] = { I1, I2, I3 };      /* I2 stays empty */
    for (int i = 0; i < 3; i++) {
        put_file(names[i], f[i].data, f[i].len);
        vbuf_append(&all, f[i].data, f[i].len);
    }
    aof_manifest m;
    char err[512];
    make_manifest(&m, BRDB, 3, names);
    /* through a saved manifest, as at startup */
    ck_assert_int_eq(aofm_save(adir, "appendonly.aof", &m, err, sizeof err), 0);
    aofm_free(&m);
    ck_assert_int_eq(aofm_load(adir, "appendonly.aof", &m, err, sizeof err), 0);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    assert_bytes(&r.cmds, all.data, all.len);
    ck_assert_int_eq(r.ncmds, 5);
    ck_assert_uint_eq(st.commands, 5);
    vbuf_append(&r.keys, "", 1);
    char want[128];
    snprintf(want, sizeof want, "0 a=1 -1\n3 b=hello %lld\n", NOW_MS + 60000);
    ck_assert_str_eq(r.keys.data, want);
    ck_assert_uint_eq(st.base_keys, 2);
    ck_assert_uint_eq(st.base_expired, 1);
    ck_assert_uint_eq(st.truncated_bytes, 0);
    ck_assert_uint_eq(st.total_bytes, (uint64_t)(file_size(BRDB) + (off_t)all.len));
    ck_assert(log_has("DB loaded from base file appendonly.aof.1.base.rdb"));
    ck_assert(log_has("DB loaded from incr file appendonly.aof.3.incr.aof"));
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&all);
    for (int i = 0; i < 3; i++) vbuf_free(&f[i]);
}
END_TEST

/* Loads base `name` + one incr "*1 PING"; checks the base keys. */
static void check_base_kind(const char *name, int want_keys) {
    vbuf inc;
    vbuf_init(&inc);
    cmd(&inc, "PING", NULL);
    put_file(I1, inc.data, inc.len);
    aof_manifest m;
    make_manifest(&m, name, 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512];
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s: %s", name, err);
    ck_assert_uint_eq(st.base_keys, (uint64_t)want_keys);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&inc);
}

START_TEST(test_base_variants) {
    write_base_rdb(BRDB, RDB_COMPRESS_LZ4);              /* LZ4 frame, .rdb */
    check_base_kind(BRDB, 2);
    write_base_rdb("appendonly.aof.2.base.aof", RDB_COMPRESS_NONE);   /* "REDIS" magic */
    check_base_kind("appendonly.aof.2.base.aof", 2);
    write_base_rdb("appendonly.aof.3.base.aof", RDB_COMPRESS_LZ4);    /* LZ4 magic */
    check_base_kind("appendonly.aof.3.base.aof", 2);
    /* a RESP base (aof-use-rdb-preamble no): its commands come first */
    vbuf b;
    vbuf_init(&b);
    cmd(&b, "SET", "from-base", "1", NULL);
    put_file("appendonly.aof.4.base.aof", b.data, b.len);
    check_base_kind("appendonly.aof.4.base.aof", 0);
    aof_manifest m;
    make_manifest(&m, "appendonly.aof.4.base.aof", 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512];
    ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), 0);
    cmd(&b, "PING", NULL);
    assert_bytes(&r.cmds, b.data, b.len);
    rec_free(&r);
    aofm_free(&m);
    /* an empty RESP base loads nothing */
    put_file("appendonly.aof.5.base.aof", "", 0);
    check_base_kind("appendonly.aof.5.base.aof", 0);
    vbuf_free(&b);
}
END_TEST

/* A Redis 6 single-file AOF made the base by an upgrade (upgrade.h): an
 * RDB preamble and the commands after it, replayed as Redis's
 * loadSingleAppendOnlyFile does; a cut last command of the tail is cut off
 * when the base is the last file, at every byte. */
START_TEST(test_rdb_preamble_tail) {
    static const char *OLD = "appendonly.aof";
    write_base_rdb(OLD, RDB_COMPRESS_NONE);
    char path[256], err[512];
    apath(path, sizeof path, OLD);
    vbuf rdb = get_file(path), tail, f;
    vbuf_init(&tail);
    cmd(&tail, "SELECT", "0", NULL);
    cmd(&tail, "INCR", "a", NULL);
    size_t last = tail.len;
    cmd(&tail, "SET", "cut", "value", NULL);
    vbuf_init(&f);
    vbuf_append(&f, rdb.data, rdb.len);
    vbuf_append(&f, tail.data, tail.len);
    put_file(OLD, f.data, f.len);
    aof_manifest m;
    make_manifest(&m, OLD, 0, NULL);
    rec r;
    aof_load_stats st;
    rec_init(&r);
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(st.base_keys, 2);
    assert_bytes(&r.cmds, tail.data, tail.len);
    rec_free(&r);
    for (size_t cut = last + 1; cut < tail.len; cut++) {
        put_file(OLD, f.data, rdb.len + cut);
        rec_init(&r);
        ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), -1);
        char want[128];
        snprintf(want, sizeof want, "appendonly.aof: offset %zu: unexpected end of file",
                 rdb.len + last);
        ck_assert_msg(strstr(err, want) == err, "cut %zu: %s", cut, err);
        rec_free(&r);
        rec_init(&r);
        ck_assert_msg(load(&m, 1, &r, &st, err, sizeof err) == 0, "cut %zu: %s", cut, err);
        assert_bytes(&r.cmds, tail.data, last);
        ck_assert_int_eq(file_size(OLD), (off_t)(rdb.len + last));
        rec_free(&r);
    }
    /* with an INCR after it, a cut base is an error */
    put_file(OLD, f.data, f.len - 3);
    vbuf inc;
    vbuf_init(&inc);
    cmd(&inc, "PING", NULL);
    put_file(I1, inc.data, inc.len);
    aofm_free(&m);
    make_manifest(&m, OLD, 1, &I1);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "this is not the last AOF file") != NULL, "%s", err);
    rec_free(&r);
    /* an LZ4 frame must end the file: nothing may follow it */
    write_base_rdb(OLD, RDB_COMPRESS_LZ4);
    vbuf z = get_file(path);
    vbuf_append(&z, tail.data, tail.len);
    put_file(OLD, z.data, z.len);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "trailing data after the LZ4 frame") != NULL, "%s", err);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&z);
    vbuf_free(&inc);
    vbuf_free(&f);
    vbuf_free(&tail);
    vbuf_free(&rdb);
}
END_TEST

START_TEST(test_missing_and_empty) {
    write_base_rdb(BRDB, RDB_COMPRESS_NONE);
    vbuf inc;
    vbuf_init(&inc);
    cmd(&inc, "SET", "x", "1", NULL);
    put_file(I1, inc.data, inc.len);
    aof_manifest m;
    rec r;
    aof_load_stats st;
    char err[512];
    /* a missing incr, listed after present files: nothing is loaded at all */
    const char *names[2] = { I1, I2 };
    make_manifest(&m, BRDB, 2, names);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "appendonly.aof.2.incr.aof: offset 0: "));
    ck_assert_ptr_nonnull(strstr(err, "No such file"));
    ck_assert_int_eq(r.ncmds, 0);
    ck_assert_uint_eq(r.keys.len, 0);
    rec_free(&r);
    aofm_free(&m);
    /* a missing base */
    make_manifest(&m, "appendonly.aof.9.base.rdb", 1, names);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "appendonly.aof.9.base.rdb: offset 0: "));
    ck_assert_int_eq(r.ncmds, 0);
    rec_free(&r);
    aofm_free(&m);
    /* empty incrs are fine, and so is an empty manifest */
    put_file(I2, "", 0);
    make_manifest(&m, NULL, 2, names);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), 0);
    assert_bytes(&r.cmds, inc.data, inc.len);
    rec_free(&r);
    aofm_free(&m);
    make_manifest(&m, NULL, 0, NULL);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), 0);
    ck_assert_int_eq(r.ncmds, 0);
    ck_assert_uint_eq(st.total_bytes, 0);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&inc);
}
END_TEST

START_TEST(test_annotations) {
    vbuf f, want;
    vbuf_init(&f);
    vbuf_init(&want);
    vbuf_append_str(&f, "#TS:1700000000\r\n");
    cmd(&f, "SET", "a", "1", NULL);
    vbuf_append_str(&f, "#TS:1700000001\r\n#another\n");
    cmd(&f, "SET", "b", "2", NULL);
    vbuf_append_str(&f, "#TS:17000");          /* cut annotation at the end */
    cmd(&want, "SET", "a", "1", NULL);
    cmd(&want, "SET", "b", "2", NULL);
    put_file(I1, f.data, f.len);
    aof_manifest m;
    make_manifest(&m, NULL, 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512];
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    assert_bytes(&r.cmds, want.data, want.len);
    rec_free(&r);
    /* an annotation longer than Redis's 1024-byte line is refused */
    vbuf_reset(&f);
    cmd(&f, "PING", NULL);
    size_t at = f.len;
    vbuf_append(&f, "#", 1);
    for (int i = 0; i < 1100; i++) vbuf_append(&f, "x", 1);
    vbuf_append(&f, "\n", 1);
    put_file(I1, f.data, f.len);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    char want_err[128];
    snprintf(want_err, sizeof want_err, "appendonly.aof.1.incr.aof: offset %zu: bad file format", at);
    ck_assert_ptr_eq(strstr(err, want_err), err);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&f);
    vbuf_free(&want);
}
END_TEST

/* ---- truncation ---- */

START_TEST(test_truncation_every_offset) {
    vbuf f1, f2;
    vbuf_init(&f1);
    vbuf_init(&f2);
    cmd(&f1, "SET", "a", "1", NULL);
    cmd(&f2, "INCR", "a", NULL);
    cmd(&f2, "SELECT", "2", NULL);
    size_t last = f2.len;                       /* the last command starts here */
    cmd(&f2, "SET", "key:with:long:name", "value\r\n*1\r\n$4\r\nPING\r\n", NULL);
    put_file(I1, f1.data, f1.len);
    const char *names[2] = { I1, I2 };
    aof_manifest m;
    make_manifest(&m, NULL, 2, names);
    char err[512], want[160];
    snprintf(want, sizeof want, "appendonly.aof.2.incr.aof: offset %zu: unexpected end of file",
             last);
    for (size_t cut = last + 1; cut < f2.len; cut++) {
        put_file(I2, f2.data, cut);
        rec r;
        aof_load_stats st;
        /* not allowed: an error at the start of the cut command, the file
         * untouched; what came before has run */
        rec_init(&r);
        ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), -1);
        ck_assert_msg(strstr(err, want) == err, "cut %zu: %s", cut, err);
        ck_assert_int_eq(file_size(I2), (off_t)cut);
        ck_assert_int_eq(r.ncmds, 3);
        rec_free(&r);
        /* allowed: cut off, everything before loaded */
        rec_init(&r);
        ck_assert_msg(load(&m, 1, &r, &st, err, sizeof err) == 0, "cut %zu: %s", cut, err);
        ck_assert_int_eq(r.ncmds, 3);
        ck_assert_uint_eq(st.truncated_bytes, cut - last);
        ck_assert_uint_eq(st.total_bytes, f1.len + cut);
        ck_assert_int_eq(file_size(I2), (off_t)last);
        ck_assert(r.cmds.len == f1.len + last &&
                  memcmp(r.cmds.data + f1.len, f2.data, last) == 0);
        rec_free(&r);
        /* the cut file is now clean */
        rec_init(&r);
        ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), 0);
        ck_assert_int_eq(r.ncmds, 3);
        rec_free(&r);
    }
    ck_assert(log_has("!!! Warning: short read while loading the AOF file "
                      "appendonly.aof.2.incr.aof!!!"));
    snprintf(want, sizeof want, "!!! Truncating the AOF appendonly.aof.2.incr.aof at offset %zu !!!",
             last);
    ck_assert(log_has(want));
    ck_assert(log_has("AOF appendonly.aof.2.incr.aof loaded anyway because "
                      "aof-load-truncated is enabled"));
    aofm_free(&m);
    vbuf_free(&f1);
    vbuf_free(&f2);
}
END_TEST

START_TEST(test_truncation_not_in_last_file) {
    vbuf f1, f2;
    vbuf_init(&f1);
    vbuf_init(&f2);
    cmd(&f1, "SET", "a", "1", NULL);
    size_t last = f1.len;
    cmd(&f1, "SET", "b", "2", NULL);
    cmd(&f2, "PING", NULL);
    put_file(I2, f2.data, f2.len);
    const char *names[2] = { I1, I2 };
    aof_manifest m;
    make_manifest(&m, NULL, 2, names);
    char err[512], want[160];
    snprintf(want, sizeof want, "appendonly.aof.1.incr.aof: offset %zu: unexpected end of file",
             last);
    for (size_t cut = last + 1; cut < f1.len; cut++) {
        put_file(I1, f1.data, cut);
        rec r;
        aof_load_stats st;
        rec_init(&r);
        ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
        ck_assert_msg(strstr(err, want) == err, "cut %zu: %s", cut, err);
        ck_assert_ptr_nonnull(strstr(err, "not the last"));
        ck_assert_int_eq(file_size(I1), (off_t)cut);
        ck_assert_int_eq(r.ncmds, 1);
        rec_free(&r);
    }
    aofm_free(&m);
    /* a RESP base is the last file only when no incr follows */
    put_file("appendonly.aof.1.base.aof", f1.data, f1.len - 3);
    make_manifest(&m, "appendonly.aof.1.base.aof", 1, names);
    rec r;
    aof_load_stats st;
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "appendonly.aof.1.base.aof: offset"));
    rec_free(&r);
    aofm_free(&m);
    make_manifest(&m, "appendonly.aof.1.base.aof", 0, NULL);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), 0);
    ck_assert_uint_eq(st.truncated_bytes, f1.len - 3 - last);
    ck_assert_int_eq(file_size("appendonly.aof.1.base.aof"), (off_t)last);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&f1);
    vbuf_free(&f2);
}
END_TEST

/* ---- damage ---- */

typedef struct garbage {
    const char *bytes;
    size_t len;
    size_t at;              /* offset of the error from the garbage start */
    const char *what;
} garbage;

static const garbage garbages[] = {
    { "hello\r\n", 7, 0, "bad file format (expected '*')" },
    { "\r\n", 2, 0, "bad file format (expected '*')" },
    { "*0\r\n", 4, 0, "bad file format (invalid multibulk length)" },
    { "*-1\r\n", 5, 0, "bad file format (invalid multibulk length)" },
    { "*x\r\n", 4, 0, "bad file format (invalid multibulk length)" },
    { "*1\r\nx3\r\nGET\r\n", 13, 4, "bad file format (expected '$', got 'x')" },
    { "*2\r\n$3\r\nGET\r\n*1\r\n", 17, 13, "bad file format (expected '$', got '*')" },
    { "*1\r\n$-5\r\n", 9, 4, "bad file format (invalid bulk length)" },
    { "*1\r\n$abc\r\nabc\r\n", 15, 4, "bad file format (invalid bulk length)" },
    /* a NUL hides the line end: damage, not a truncation */
    { "*1\0\r\n$4\r\nPING\r\n", 15, 2,
      "bad file format (damaged command at the end of the file)" },
    { "*2\r\n$3\r\nGET\r\n$1\0\r\nk\r\n", 21, 15,
      "bad file format (damaged command at the end of the file)" },
    { "*2\r\n$3\r\nGETxx$1\r\n", 17, 11,
      "bad file format (damaged command at the end of the file)" },
    { "*2\r\n$3\r\nGET\r\n$1\r\nkX", 19, 18,
      "bad file format (damaged command at the end of the file)" },
};

/* Puts `g` after one good command in file `which` of two; expects the
 * error whatever truncated_ok says, and the file untouched. */
static void check_garbage(const garbage *g, int which) {
    vbuf f[2];
    const char *names[2] = { I1, I2 };
    for (int i = 0; i < 2; i++) {
        vbuf_init(&f[i]);
        cmd(&f[i], "SET", "a", "1", NULL);
    }
    size_t at = f[which].len + g->at;
    vbuf_append(&f[which], g->bytes, g->len);
    for (int i = 0; i < 2; i++) put_file(names[i], f[i].data, f[i].len);
    aof_manifest m;
    make_manifest(&m, NULL, 2, names);
    char err[512], want[256];
    snprintf(want, sizeof want, "%s: offset %zu: %s", names[which], at, g->what);
    for (int tok = 0; tok < 2; tok++) {
        rec r;
        aof_load_stats st;
        rec_init(&r);
        ck_assert_int_eq(load(&m, tok, &r, &st, err, sizeof err), -1);
        ck_assert_msg(strcmp(err, want) == 0, "got '%s' want '%s'", err, want);
        ck_assert_int_eq(r.ncmds, which + 1);
        ck_assert_int_eq(file_size(names[which]), (off_t)f[which].len);
        rec_free(&r);
    }
    aofm_free(&m);
    for (int i = 0; i < 2; i++) vbuf_free(&f[i]);
}

START_TEST(test_garbage) {
    for (size_t i = 0; i < sizeof garbages / sizeof garbages[0]; i++) {
        check_garbage(&garbages[i], 0);
        check_garbage(&garbages[i], 1);
    }
}
END_TEST

START_TEST(test_exec_error) {
    vbuf f;
    vbuf_init(&f);
    cmd(&f, "SET", "a", "1", NULL);
    size_t at = f.len;
    cmd(&f, "BOOM", "x", NULL);
    cmd(&f, "SET", "b", "2", NULL);
    put_file(I1, f.data, f.len);
    aof_manifest m;
    make_manifest(&m, NULL, 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512], want[160];
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    snprintf(want, sizeof want, "appendonly.aof.1.incr.aof: offset %zu: unknown command 'BOOM'",
             at);
    ck_assert_str_eq(err, want);
    ck_assert_int_eq(r.ncmds, 1);
    ck_assert_uint_eq(st.commands, 1);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&f);
}
END_TEST

START_TEST(test_damaged_rdb_base) {
    write_base_rdb(BRDB, RDB_COMPRESS_NONE);
    char path[256];
    apath(path, sizeof path, BRDB);
    vbuf b = get_file(path);
    b.data[b.len - 3] ^= 0x40;                    /* inside the CRC64 */
    put_file(BRDB, b.data, b.len);
    vbuf inc;
    vbuf_init(&inc);
    cmd(&inc, "PING", NULL);
    put_file(I1, inc.data, inc.len);
    aof_manifest m;
    make_manifest(&m, BRDB, 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512];
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    /* named as the manifest names it, not by its path */
    ck_assert_msg(strncmp(err, "appendonly.aof.1.base.rdb: offset ", 34) == 0, "%s", err);
    ck_assert_ptr_nonnull(strstr(err, "CRC64"));
    ck_assert_int_eq(r.ncmds, 0);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&b);
    vbuf_free(&inc);
}
END_TEST

/* ---- big files ---- */

START_TEST(test_commands_across_chunks) {
    /* 3 MiB value, then many small commands: chunk boundaries (1 MiB) fall
     * inside headers, payloads and CRLFs */
    vbuf f;
    vbuf_init(&f);
    size_t big = 3 * 1024 * 1024 + 7;
    char *v = xmalloc(big);
    for (size_t i = 0; i < big; i++) v[i] = (char)('a' + i % 26);
    v[100] = '\r';
    v[101] = '\n';
    const char *argv[3] = { "SET", "big", v };
    size_t lens[3] = { 3, 3, big };
    cmdn(&f, 3, argv, lens);
    char k[32], val[32];
    for (int i = 0; i < 40000; i++) {
        snprintf(k, sizeof k, "key:%d", i);
        snprintf(val, sizeof val, "%d", i * 7);
        cmd(&f, "SET", k, val, NULL);
    }
    size_t last = f.len;
    cmdn(&f, 3, argv, lens);
    put_file(I1, f.data, f.len);
    aof_manifest m;
    make_manifest(&m, NULL, 1, &I1);
    rec r;
    rec_init(&r);
    aof_load_stats st;
    char err[512];
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_int_eq(r.ncmds, 40002);
    assert_bytes(&r.cmds, f.data, f.len);
    rec_free(&r);
    /* the big last command cut in its middle */
    put_file(I1, f.data, last + big / 2);
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), 0);
    ck_assert_int_eq(r.ncmds, 40001);
    ck_assert_uint_eq(st.truncated_bytes, big / 2);
    ck_assert_int_eq(file_size(I1), (off_t)last);
    rec_free(&r);
    aofm_free(&m);
    free(v);
    vbuf_free(&f);
}
END_TEST

/* ---- flipped bytes ---- */

/* Loads the flipped file; checks the outcome is an error naming an offset
 * in the file, or a load. Returns 1 when it loaded. */
static int flip_once(const aof_manifest *m, const char *name, const vbuf *flipped, int tok,
                     rec *r) {
    aof_load_stats st;
    char err[512], pre[96];
    int rc = load(m, tok, r, &st, err, sizeof err);
    if (rc == 0) {
        ck_assert_int_eq(file_size(name), (off_t)(flipped->len - st.truncated_bytes));
        if (!tok) ck_assert_uint_eq(st.truncated_bytes, 0);
        return 1;
    }
    ck_assert_int_eq(rc, -1);
    snprintf(pre, sizeof pre, "%s: offset ", name);
    ck_assert_msg(strncmp(err, pre, strlen(pre)) == 0, "%s", err);
    unsigned long long off = strtoull(err + strlen(pre), NULL, 10);
    ck_assert_uint_le(off, flipped->len);
    ck_assert_int_eq(file_size(name), (off_t)flipped->len);
    return 0;
}

START_TEST(test_flipped_bytes) {
    vbuf f;
    vbuf_init(&f);
    /* payload[i]: byte i lies inside a bulk payload */
    char payload[512] = { 0 };
    static const char *cmds[][3] = { { "SELECT", "1", NULL }, { "SET", "alpha", "one" },
                                     { "INCR", "counter", NULL }, { "SET", "b", "xyz\r\n" },
                                     { "DEL", "alpha", NULL } };
    for (int c = 0; c < 5; c++) {
        int argc = cmds[c][2] ? 3 : 2;
        char hdr[32];
        snprintf(hdr, sizeof hdr, "*%d\r\n", argc);
        vbuf_append_str(&f, hdr);
        for (int a = 0; a < argc; a++) {
            snprintf(hdr, sizeof hdr, "$%zu\r\n", strlen(cmds[c][a]));
            vbuf_append_str(&f, hdr);
            memset(payload + f.len, 1, strlen(cmds[c][a]));
            vbuf_append_str(&f, cmds[c][a]);
            vbuf_append(&f, "\r\n", 2);
        }
    }
    ck_assert_uint_lt(f.len, sizeof payload);
    /* as the only file (the last: truncation allowed) and as the first of
     * two (never a truncation) */
    const char *names[2] = { I1, I2 };
    vbuf tail;
    vbuf_init(&tail);
    cmd(&tail, "PING", NULL);
    put_file(I2, tail.data, tail.len);
    static const int masks[] = { 0x01, 0x02, 0x10, 0x20, 0x40, 0x80, 0xff, -'\0', -'*', -'$',
                                 -'\r', -'\n', -'9' };
    int loaded = 0, refused = 0;
    for (int nfiles = 1; nfiles <= 2; nfiles++) {
        aof_manifest m;
        make_manifest(&m, NULL, nfiles, names);
        for (size_t i = 0; i < f.len; i++) {
            for (size_t k = 0; k < sizeof masks / sizeof masks[0]; k++) {
                vbuf g;
                vbuf_init(&g);
                vbuf_append(&g, f.data, f.len);
                g.data[i] = masks[k] > 0 ? (char)(g.data[i] ^ masks[k]) : (char)-masks[k];
                for (int tok = 0; tok < 2; tok++) {
                    put_file(I1, g.data, g.len);
                    rec r;
                    rec_init(&r);
                    int ok = flip_once(&m, I1, &g, tok, &r);
                    if (payload[i]) {
                        /* only a payload changed: the load is those bytes */
                        ck_assert_msg(ok, "offset %zu mask %d", i, masks[k]);
                        ck_assert(r.cmds.len >= g.len && memcmp(r.cmds.data, g.data, g.len) == 0);
                    }
                    ok ? loaded++ : refused++;
                    rec_free(&r);
                }
                vbuf_free(&g);
            }
        }
        aofm_free(&m);
    }
    fprintf(stderr, "flipped bytes: %zu offsets x %zu changes x 2 x 2: %d loaded, %d refused\n",
            f.len, sizeof masks / sizeof masks[0], loaded, refused);
    ck_assert_int_gt(refused, 0);
    vbuf_free(&tail);
    vbuf_free(&f);
}
END_TEST

/* ---- transactions ---- */

START_TEST(test_transaction) {
    vbuf f, want;
    vbuf_init(&f);
    vbuf_init(&want);
    cmd(&f, "SET", "a", "1", NULL);
    cmd(&f, "MULTI", NULL);
    cmd(&f, "SET", "b", "2", NULL);
    cmd(&f, "SELECT", "3", NULL);
    cmd(&f, "INCR", "b", NULL);
    cmd(&f, "exec", NULL);
    cmd(&f, "SET", "c", "3", NULL);
    cmd(&want, "SET", "a", "1", NULL);
    cmd(&want, "SET", "b", "2", NULL);
    cmd(&want, "SELECT", "3", NULL);
    cmd(&want, "INCR", "b", NULL);
    cmd(&want, "SET", "c", "3", NULL);
    put_file(I1, f.data, f.len);
    aof_manifest m;
    make_manifest(&m, NULL, 1, &I1);
    char err[512];
    rec r;
    rec_init(&r);
    aof_load_stats st;
    ck_assert_msg(load(&m, 0, &r, &st, err, sizeof err) == 0, "%s", err);
    /* the transaction's commands are applied at EXEC, without MULTI/EXEC */
    assert_bytes(&r.cmds, want.data, want.len);
    ck_assert_uint_eq(st.commands, 5);
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&f);
    vbuf_free(&want);
}
END_TEST

/* A file that ends anywhere inside a transaction (in its MULTI, between
 * its commands, in its EXEC) loses the whole transaction with
 * aof-load-truncated, and fails to load without it. */
START_TEST(test_truncated_transaction) {
    vbuf f;
    vbuf_init(&f);
    cmd(&f, "SET", "a", "1", NULL);
    size_t tx = f.len;
    cmd(&f, "MULTI", NULL);
    cmd(&f, "SET", "b", "2", NULL);
    cmd(&f, "INCR", "a", NULL);
    cmd(&f, "EXEC", NULL);
    aof_manifest m;
    make_manifest(&m, NULL, 1, &I1);
    char err[512], want[160];
    snprintf(want, sizeof want, "appendonly.aof.1.incr.aof: offset %zu: unexpected end of file",
             tx);
    for (size_t cut = tx + 1; cut < f.len; cut++) {
        rec r;
        aof_load_stats st;
        put_file(I1, f.data, cut);
        rec_init(&r);
        ck_assert_int_eq(load(&m, 0, &r, &st, err, sizeof err), -1);
        ck_assert_msg(strstr(err, want) == err, "cut %zu: %s", cut, err);
        ck_assert_int_eq(r.ncmds, 1);
        ck_assert_int_eq(file_size(I1), (off_t)cut);
        rec_free(&r);
        rec_init(&r);
        ck_assert_msg(load(&m, 1, &r, &st, err, sizeof err) == 0, "cut %zu: %s", cut, err);
        ck_assert_int_eq(r.ncmds, 1);   /* SET a 1 only */
        ck_assert_uint_eq(st.truncated_bytes, cut - tx);
        ck_assert_int_eq(file_size(I1), (off_t)tx);
        rec_free(&r);
    }
    ck_assert(log_has("Revert incomplete MULTI/EXEC transaction in AOF file "
                      "appendonly.aof.1.incr.aof"));
    /* not the last file: an error even with aof-load-truncated */
    const char *names[2] = { I1, I2 };
    vbuf tail;
    vbuf_init(&tail);
    cmd(&tail, "SET", "z", "9", NULL);
    put_file(I2, tail.data, tail.len);
    put_file(I1, f.data, f.len - 4);
    aofm_free(&m);
    make_manifest(&m, NULL, 2, names);
    rec r;
    aof_load_stats st;
    rec_init(&r);
    ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, want) == err, "%s", err);
    ck_assert_ptr_nonnull(strstr(err, "transaction, and this is not the last"));
    rec_free(&r);
    aofm_free(&m);
    vbuf_free(&tail);
    vbuf_free(&f);
}
END_TEST

START_TEST(test_transaction_errors) {
    static const char *const bad[][2] = {
        { "MULTI", "MULTI inside a transaction" },
        { "EXEC", "EXEC without MULTI" },
    };
    for (int i = 0; i < 2; i++) {
        vbuf f;
        vbuf_init(&f);
        cmd(&f, "SET", "a", "1", NULL);
        if (i == 0) cmd(&f, "MULTI", NULL);
        size_t at = f.len;
        cmd(&f, bad[i][0], NULL);
        cmd(&f, "EXEC", NULL);
        put_file(I1, f.data, f.len);
        aof_manifest m;
        make_manifest(&m, NULL, 1, &I1);
        char err[512], want[160];
        snprintf(want, sizeof want, "appendonly.aof.1.incr.aof: offset %zu: %s", at, bad[i][1]);
        rec r;
        aof_load_stats st;
        rec_init(&r);
        ck_assert_int_eq(load(&m, 1, &r, &st, err, sizeof err), -1);
        ck_assert_str_eq(err, want);
        rec_free(&r);
        aofm_free(&m);
        vbuf_free(&f);
    }
}
END_TEST

static Suite *aofl_suite(void) {
    Suite *s = suite_create("aof_load");
    TCase *tc = tcase_create("aof_load");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_base_and_incrs);
    tcase_add_test(tc, test_base_variants);
    tcase_add_test(tc, test_rdb_preamble_tail);
    tcase_add_test(tc, test_missing_and_empty);
    tcase_add_test(tc, test_annotations);
    tcase_add_test(tc, test_truncation_every_offset);
    tcase_add_test(tc, test_truncation_not_in_last_file);
    tcase_add_test(tc, test_garbage);
    tcase_add_test(tc, test_exec_error);
    tcase_add_test(tc, test_damaged_rdb_base);
    tcase_add_test(tc, test_commands_across_chunks);
    tcase_add_test(tc, test_flipped_bytes);
    tcase_add_test(tc, test_transaction);
    tcase_add_test(tc, test_truncated_transaction);
    tcase_add_test(tc, test_transaction_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(aofl_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
