/* test_aof_manifest: the multi-part AOF manifest (aof/manifest.h).
 *
 * Parsing of what Redis 7.0 writes and accepts (quoted names, comments,
 * history lines, unknown keys, CRLF), every refusal with Redis's text and
 * the line number, the exact text written (order, quoting), round trips,
 * the atomic replace (temp file, rename: the old file is never written in
 * place, no temp left behind, failures leave the old manifest), new file
 * names and deep copies. test_aof_interop checks the same cases against
 * redis-check-aof. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest.h"
#include "util.h"

static char tdir[64];
static char mpath[128];

static void setup(void) {
    snprintf(tdir, sizeof tdir, "/tmp/test_aofm.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tdir));
    snprintf(mpath, sizeof mpath, "%s/appendonly.aof.manifest", tdir);
}

static void teardown(void) {
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void write_text(const char *path, const char *s, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(s, 1, n, f), n);
    fclose(f);
}

static char *read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *buf = xmalloc(1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Loads `text` as the manifest; returns aofm_load's result. */
static int load_text(const char *text, size_t n, aof_manifest *m, char *err, size_t errlen) {
    write_text(mpath, text, n);
    err[0] = '\0';
    return aofm_load(tdir, "appendonly.aof", m, err, errlen);
}

static int count_dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

/* ---- accepted manifests ---- */

START_TEST(test_parse_redis_example) {
    /* the example at the top of Redis 7.0's aof.c */
    const char *t = "file appendonly.aof.2.base.rdb seq 2 type b\n"
                    "file appendonly.aof.1.incr.aof seq 1 type h\n"
                    "file appendonly.aof.2.incr.aof seq 2 type h\n"
                    "file appendonly.aof.3.incr.aof seq 3 type h\n"
                    "file appendonly.aof.4.incr.aof seq 4 type i\n"
                    "file appendonly.aof.5.incr.aof seq 5 type i\n";
    aof_manifest m;
    char err[256];
    ck_assert_int_eq(load_text(t, strlen(t), &m, err, sizeof err), 0);
    ck_assert_str_eq(m.base.name, "appendonly.aof.2.base.rdb");
    ck_assert_int_eq(m.base.seq, 2);
    ck_assert_int_eq(m.base.type, 'b');
    ck_assert_int_eq(m.nhistory, 3);
    ck_assert_str_eq(m.history[2].name, "appendonly.aof.3.incr.aof");
    ck_assert_int_eq(m.history[0].type, 'h');
    ck_assert_int_eq(m.nincr, 2);
    ck_assert_str_eq(m.incrs[0].name, "appendonly.aof.4.incr.aof");
    ck_assert_str_eq(m.incrs[1].name, "appendonly.aof.5.incr.aof");
    ck_assert_int_eq(m.incrs[1].seq, 5);
    ck_assert_int_eq(m.curr_base_seq, 2);
    ck_assert_int_eq(m.curr_incr_seq, 5);
    aofm_free(&m);
    ck_assert_ptr_null(m.base.name);
    ck_assert_int_eq(m.nincr, 0);
}
END_TEST

START_TEST(test_parse_quoting_and_leniency) {
    /* quotes (both kinds, escapes, \x..), keys in any case and order,
     * unknown keys, comments, blanks around, CRLF, atoll-style seq, a
     * multi-letter type value, history lines anywhere */
    const char *t = "# written by hand\n"
                    "  FILE \"my base\\x21.rdb\" Seq 7 TYPE b  \r\n"
                    "file 'it s' seq 3 type h\n"
                    "type i seq 4 file \"a\\\"b c\\n\" future-key whatever\n"
                    "#file x seq 9 type q\n"
                    "file plain.aof seq 10x type incr\n"
                    "file 'q\\'s' seq 1 type h\n";
    aof_manifest m;
    char err[256];
    ck_assert_int_eq(load_text(t, strlen(t), &m, err, sizeof err), 0);
    ck_assert_str_eq(m.base.name, "my base!.rdb");
    ck_assert_int_eq(m.base.seq, 7);
    ck_assert_int_eq(m.nhistory, 2);
    ck_assert_str_eq(m.history[0].name, "it s");
    ck_assert_str_eq(m.history[1].name, "q's");
    ck_assert_int_eq(m.nincr, 2);
    ck_assert_str_eq(m.incrs[0].name, "a\"b c\n");
    ck_assert_int_eq(m.incrs[0].seq, 4);
    ck_assert_str_eq(m.incrs[1].name, "plain.aof");
    ck_assert_int_eq(m.incrs[1].seq, 10);
    ck_assert_int_eq(m.incrs[1].type, 'i');
    ck_assert_int_eq(m.curr_incr_seq, 10);
    ck_assert_int_eq(m.curr_base_seq, 7);
    aofm_free(&m);
}
END_TEST

START_TEST(test_parse_comment_only_and_missing) {
    aof_manifest m;
    char err[256];
    /* Redis accepts a manifest of comments: no files at all */
    ck_assert_int_eq(load_text("# nothing\n", 10, &m, err, sizeof err), 0);
    ck_assert_ptr_null(m.base.name);
    ck_assert_int_eq(m.nincr + m.nhistory, 0);
    aofm_free(&m);
    /* no manifest, no directory: 1 */
    ck_assert_int_eq(unlink(mpath), 0);
    ck_assert_int_eq(aofm_load(tdir, "appendonly.aof", &m, err, sizeof err), 1);
    ck_assert_int_eq(aofm_load("/nonexistent/dir", "appendonly.aof", &m, err, sizeof err), 1);
    /* a manifest we may not read: -1 with a message */
    if (geteuid() != 0) {
        write_text(mpath, "x\n", 2);
        ck_assert_int_eq(chmod(mpath, 0), 0);
        ck_assert_int_eq(aofm_load(tdir, "appendonly.aof", &m, err, sizeof err), -1);
        ck_assert_ptr_nonnull(strstr(err, "appendonly.aof.manifest: can't open"));
    }
}
END_TEST

/* ---- refusals ---- */

typedef struct bad_case {
    const char *text;
    size_t len;             /* 0: strlen */
    const char *err;        /* the whole message */
} bad_case;

#define L1 "appendonly.aof.manifest: line 1: "
#define L2 "appendonly.aof.manifest: line 2: "
#define L3 "appendonly.aof.manifest: line 3: "
static const bad_case bad_cases[] = {
    { "", 0, "appendonly.aof.manifest: Found an empty AOF manifest" },
    { "file a seq 1 type i", 0, L1 "The AOF manifest file contains too long line" },
    { "file a seq 1 type i\nfile b seq 2 type i", 0,
      L2 "The AOF manifest file contains too long line" },
    { "\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 1 type i\n \t\r\n", 0, L2 "Invalid AOF manifest file format" },
    { "file a seq 1\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 1 type i x\n", 0, L1 "Invalid AOF manifest file format" },
    { "file \"a seq 1 type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file 'a seq 1 type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file \"a\"b seq 1 type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "name a seq 1 type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 0 type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq abc type i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 1 type \"\"\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 1 kind i\n", 0, L1 "Invalid AOF manifest file format" },
    { "file dir/a seq 1 type i\n", 0, L1 "File can't be a path, just a filename" },
    { "file ..\\a seq 1 type i\n", 0, L1 "File can't be a path, just a filename" },
    { "file /etc/passwd\n", 0, L1 "Invalid AOF manifest file format" },
    { "file a seq 1 type b\nfile b seq 2 type b\n", 0,
      L2 "Found duplicate base file information" },
    { "file a seq 2 type i\nfile b seq 3 type i\nfile c seq 3 type i\n", 0,
      L3 "Found a non-monotonic sequence number" },
    { "file a seq 5 type i\n# c\nfile c seq 4 type i\n", 0,
      L3 "Found a non-monotonic sequence number" },
    { "file a seq -1 type i\n", 0, L1 "Found a non-monotonic sequence number" },
    { "file a seq 1 type x\n", 0, L1 "Unknown AOF file type" },
    { "file a seq 1 type B\n", 0, L1 "Unknown AOF file type" },
    { "file a\0b seq 1 type i\n", 22, L1 "The AOF manifest file contains too long line" },
};

START_TEST(test_refusals) {
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        aof_manifest m;
        char err[256];
        size_t n = c->len ? c->len : strlen(c->text);
        int rc = load_text(c->text, n, &m, err, sizeof err);
        if (rc != -1 || strcmp(err, c->err) != 0)
            ck_abort_msg("case %zu: rc %d err '%s', want '%s'", i, rc, err, c->err);
        /* nothing is left allocated or half-filled */
        ck_assert_ptr_null(m.base.name);
        ck_assert_int_eq(m.nincr, 0);
        ck_assert_ptr_null(m.incrs);
    }
}
END_TEST

START_TEST(test_line_length_limit) {
    /* Redis reads with a 1024+1 byte buffer (fgets): a line of 1024 bytes
     * counting its '\n' fits, one of 1025 does not */
    aof_manifest m;
    char err[256];
    char line[2048];
    const char *tail = " seq 1 type i\n";
    for (int total = 1023; total <= 1026; total++) {
        size_t namelen = (size_t)total - 5 - strlen(tail);   /* "file " */
        int n = snprintf(line, sizeof line, "file ");
        memset(line + n, 'x', namelen);
        snprintf(line + n + namelen, sizeof line - (size_t)n - namelen, "%s", tail);
        ck_assert_uint_eq(strlen(line), (size_t)total);
        int rc = load_text(line, strlen(line), &m, err, sizeof err);
        if (total <= 1024) {
            ck_assert_int_eq(rc, 0);
            ck_assert_uint_eq(strlen(m.incrs[0].name), namelen);
            aofm_free(&m);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_str_eq(err, L1 "The AOF manifest file contains too long line");
        }
    }
    /* a long comment is read in pieces: the second piece is not a comment */
    line[0] = '#';
    memset(line + 1, 'x', 1023);
    memcpy(line + 1024, " tail\n", 6);
    ck_assert_int_eq(load_text(line, 1030, &m, err, sizeof err), -1);
    ck_assert_str_eq(err, L2 "Invalid AOF manifest file format");
}
END_TEST

/* ---- writing ---- */

static void add(aof_file **arr, int *n, const char *name, long long seq, char type) {
    *arr = xrealloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    (*arr)[*n].name = xstrdup(name);
    (*arr)[*n].seq = seq;
    (*arr)[*n].type = type;
    (*n)++;
}

static void build(aof_manifest *m) {
    aofm_init(m);
    m->base.name = xstrdup("appendonly.aof.3.base.rdb");
    m->base.seq = 3;
    m->base.type = 'b';
    add(&m->history, &m->nhistory, "appendonly.aof.2.base.rdb", 2, 'h');
    add(&m->history, &m->nhistory, "appendonly.aof.4.incr.aof", 4, 'h');
    add(&m->incrs, &m->nincr, "appendonly.aof.5.incr.aof", 5, 'i');
    add(&m->incrs, &m->nincr, "appendonly.aof.6.incr.aof", 6, 'i');
    m->curr_base_seq = 3;
    m->curr_incr_seq = 6;
}

START_TEST(test_save_exact_text) {
    aof_manifest m;
    char err[256];
    build(&m);
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    char *t = read_text(mpath);
    ck_assert_str_eq(t, "file appendonly.aof.3.base.rdb seq 3 type b\n"
                        "file appendonly.aof.2.base.rdb seq 2 type h\n"
                        "file appendonly.aof.4.incr.aof seq 4 type h\n"
                        "file appendonly.aof.5.incr.aof seq 5 type i\n"
                        "file appendonly.aof.6.incr.aof seq 6 type i\n");
    free(t);
    /* only the manifest is there: no temp file left */
    ck_assert_int_eq(count_dir_entries(tdir), 1);
    aofm_free(&m);
    /* no base: incrs only */
    aofm_init(&m);
    add(&m.incrs, &m.nincr, "appendonly.aof.1.incr.aof", 1, 'i');
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    t = read_text(mpath);
    ck_assert_str_eq(t, "file appendonly.aof.1.incr.aof seq 1 type i\n");
    free(t);
    aofm_free(&m);
}
END_TEST

START_TEST(test_save_quoting) {
    /* names that need quoting are written as sdscatrepr does and read back
     * as they were */
    static const char *names[] = { "with space.aof", "quote\"d", "no-slash", "new\nline",
                                   "tab\there", "bell\a\b", "ctl\x01\x7f", "hi\xc3\xa9",
                                   "single'quote", "" };
    aof_manifest m;
    char err[256];
    aofm_init(&m);
    int n = (int)(sizeof names / sizeof names[0]);
    for (int i = 0; i < n; i++) add(&m.incrs, &m.nincr, names[i], i + 1, 'i');
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    char *t = read_text(mpath);
    ck_assert_ptr_nonnull(strstr(t, "file \"with space.aof\" seq 1 type i\n"));
    ck_assert_ptr_nonnull(strstr(t, "file \"quote\\\"d\" seq 2"));
    ck_assert_ptr_nonnull(strstr(t, "file no-slash seq 3 type i\n"));
    ck_assert_ptr_nonnull(strstr(t, "file \"new\\nline\" seq 4"));
    ck_assert_ptr_nonnull(strstr(t, "file \"tab\\there\" seq 5"));
    ck_assert_ptr_nonnull(strstr(t, "file \"bell\\a\\b\" seq 6"));
    ck_assert_ptr_nonnull(strstr(t, "file \"ctl\\x01\\x7f\" seq 7"));
    ck_assert_ptr_nonnull(strstr(t, "file \"hi\\xc3\\xa9\" seq 8"));
    ck_assert_ptr_nonnull(strstr(t, "file \"single'quote\" seq 9"));
    ck_assert_ptr_nonnull(strstr(t, "file \"\" seq 10"));
    free(t);
    aof_manifest back;
    ck_assert_int_eq(aofm_load(tdir, "appendonly.aof", &back, err, sizeof err), 0);
    ck_assert_int_eq(back.nincr, n);
    for (int i = 0; i < n; i++) {
        ck_assert_str_eq(back.incrs[i].name, names[i]);
        ck_assert_int_eq(back.incrs[i].seq, i + 1);
    }
    aofm_free(&back);
    aofm_free(&m);
    /* a backslash is written quoted, but Redis's reader (and ours) refuses
     * it as a path separator */
    aofm_init(&m);
    add(&m.incrs, &m.nincr, "back\\slash", 1, 'i');
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    t = read_text(mpath);
    ck_assert_str_eq(t, "file \"back\\\\slash\" seq 1 type i\n");
    free(t);
    ck_assert_int_eq(aofm_load(tdir, "appendonly.aof", &back, err, sizeof err), -1);
    ck_assert_str_eq(err, L1 "File can't be a path, just a filename");
    aofm_free(&m);
}
END_TEST

START_TEST(test_round_trip) {
    aof_manifest m, back;
    char err[256];
    build(&m);
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    ck_assert_int_eq(aofm_load(tdir, "appendonly.aof", &back, err, sizeof err), 0);
    ck_assert_str_eq(back.base.name, m.base.name);
    ck_assert_int_eq(back.base.seq, 3);
    ck_assert_int_eq(back.nhistory, 2);
    ck_assert_int_eq(back.nincr, 2);
    for (int i = 0; i < 2; i++) {
        ck_assert_str_eq(back.history[i].name, m.history[i].name);
        ck_assert_int_eq(back.history[i].seq, m.history[i].seq);
        ck_assert_str_eq(back.incrs[i].name, m.incrs[i].name);
        ck_assert_int_eq(back.incrs[i].type, 'i');
    }
    ck_assert_int_eq(back.curr_base_seq, 3);
    ck_assert_int_eq(back.curr_incr_seq, 6);
    /* another name: another file */
    ck_assert_int_eq(aofm_save(tdir, "other.aof", &back, err, sizeof err), 0);
    char p2[160];
    snprintf(p2, sizeof p2, "%s/other.aof.manifest", tdir);
    char *a = read_text(mpath), *b = read_text(p2);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    aofm_free(&back);
    aofm_free(&m);
}
END_TEST

START_TEST(test_save_replaces_atomically) {
    aof_manifest m;
    char err[256];
    write_text(mpath, "file old seq 1 type i\n", 22);
    /* a stale temp file from a crash is simply overwritten */
    char tmp[160], keep[160];
    snprintf(tmp, sizeof tmp, "%s/temp-appendonly.aof.manifest", tdir);
    write_text(tmp, "garbage", 7);
    /* keep a second link to the old file: it must not change (the new
     * manifest is a new file renamed over the old name, never an in-place
     * rewrite that a crash could tear) */
    snprintf(keep, sizeof keep, "%s/old-link", tdir);
    ck_assert_int_eq(link(mpath, keep), 0);
    struct stat before, after;
    ck_assert_int_eq(stat(mpath, &before), 0);
    build(&m);
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), 0);
    ck_assert_int_eq(stat(mpath, &after), 0);
    ck_assert(before.st_ino != after.st_ino);
    char *old = read_text(keep);
    ck_assert_str_eq(old, "file old seq 1 type i\n");
    free(old);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    ck_assert_int_eq(count_dir_entries(tdir), 2);   /* manifest + old-link */
    aofm_free(&m);
}
END_TEST

START_TEST(test_save_failures) {
    aof_manifest m;
    char err[256];
    build(&m);
    /* no directory */
    err[0] = '\0';
    ck_assert_int_eq(aofm_save("/nonexistent/dir", "appendonly.aof", &m, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "temp-appendonly.aof.manifest"));
    /* the manifest name is taken by a non-empty directory: rename fails,
     * the temp file is removed, the directory is untouched */
    ck_assert_int_eq(mkdir(mpath, 0755), 0);
    char inner[200];
    snprintf(inner, sizeof inner, "%s/x", mpath);
    write_text(inner, "x", 1);
    ck_assert_int_eq(aofm_save(tdir, "appendonly.aof", &m, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "rename"));
    ck_assert_int_eq(count_dir_entries(tdir), 1);
    ck_assert_int_eq(count_dir_entries(mpath), 1);
    aofm_free(&m);
}
END_TEST

START_TEST(test_new_names_and_copy) {
    aof_manifest m;
    char err[256];
    const char *t = "file appendonly.aof.4.base.rdb seq 4 type b\n"
                    "file appendonly.aof.9.incr.aof seq 9 type i\n";
    ck_assert_int_eq(load_text(t, strlen(t), &m, err, sizeof err), 0);
    char *b = aofm_new_base_name(&m, "appendonly.aof");
    char *i1 = aofm_new_incr_name(&m, "appendonly.aof");
    char *i2 = aofm_new_incr_name(&m, "appendonly.aof");
    ck_assert_str_eq(b, "appendonly.aof.5.base.rdb");
    ck_assert_str_eq(i1, "appendonly.aof.10.incr.aof");
    ck_assert_str_eq(i2, "appendonly.aof.11.incr.aof");
    ck_assert_int_eq(m.curr_base_seq, 5);
    ck_assert_int_eq(m.curr_incr_seq, 11);
    free(b);
    free(i1);
    free(i2);
    aof_manifest fresh;
    aofm_init(&fresh);
    b = aofm_new_base_name(&fresh, "x.aof");
    ck_assert_str_eq(b, "x.aof.1.base.rdb");
    free(b);
    /* a deep copy outlives the original (ASan checks the memory) */
    aof_manifest c;
    aofm_copy(&c, &m);
    aofm_free(&m);
    ck_assert_str_eq(c.base.name, "appendonly.aof.4.base.rdb");
    ck_assert_int_eq(c.nincr, 1);
    ck_assert_str_eq(c.incrs[0].name, "appendonly.aof.9.incr.aof");
    ck_assert_int_eq(c.curr_incr_seq, 11);
    ck_assert_ptr_null(c.history);
    aof_manifest c2;
    aofm_copy(&c2, &c);
    c2.incrs[0].name[0] = 'X';
    ck_assert_str_eq(c.incrs[0].name, "appendonly.aof.9.incr.aof");
    aofm_free(&c2);
    aofm_free(&c);
}
END_TEST

static Suite *aofm_suite(void) {
    Suite *s = suite_create("aof_manifest");
    TCase *tc = tcase_create("manifest");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_parse_redis_example);
    tcase_add_test(tc, test_parse_quoting_and_leniency);
    tcase_add_test(tc, test_parse_comment_only_and_missing);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_line_length_limit);
    tcase_add_test(tc, test_save_exact_text);
    tcase_add_test(tc, test_save_quoting);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_save_replaces_atomically);
    tcase_add_test(tc, test_save_failures);
    tcase_add_test(tc, test_new_names_and_copy);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(aofm_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
