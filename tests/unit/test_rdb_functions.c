/* test_rdb_functions: function libraries in the RDB stream (opcode 245,
 * RDB_OPCODE_FUNCTION2), as the writer puts them after the AUX fields
 * (plain, LZF and LZ4 streams; FUNCTION LOAD commands for an AOF base
 * without the preamble), the loader hands them to cb->function (or
 * refuses them without one), and FUNCTION DUMP's records read back. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdb.h"
#include "rdb_fmt.h"
#include "rdb_testutil.h"

#define CODE1 "#!lua name=a\nredis.register_function('f', function() return 1 end)"

static char g_dir[4096], g_path[4200];

static void setup(void) { rt_tmpdir_make("verso-rdbfn", g_dir, sizeof g_dir, g_path, sizeof g_path); }
static void teardown(void) { rt_tmpdir_remove(g_dir); }

/* A long, repetitive library: LZF compresses it. */
static char *long_code(void) {
    size_t cap = 8192, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s, cap, "#!lua name=b\n");
    for (int i = 0; i < 50; i++)
        n += (size_t)snprintf(s + n, cap - n, "redis.register_function('g%d', function() return %d end)\n", i, i);
    return s;
}

typedef struct seen {
    char *codes[8];
    size_t ncodes;
    int keys;
    int key_after_function; /* a key came before every library: no */
} seen;

static int on_key(void *priv, int db, obj *key, obj *val, int64_t expire, char *err, size_t errlen) {
    seen *s = priv;
    (void)db; (void)expire; (void)err; (void)errlen;
    s->keys++;
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static int on_function(void *priv, const char *code, size_t len, char *err, size_t errlen) {
    seen *s = priv;
    (void)err; (void)errlen;
    ck_assert_uint_lt(s->ncodes, 8);
    if (s->keys) s->key_after_function = 1;
    s->codes[s->ncodes++] = strndup(code, len);
    return 0;
}

static void seen_free(seen *s) {
    for (size_t i = 0; i < s->ncodes; i++) free(s->codes[i]);
}

static void write_file_with(int compress, obj **codes, size_t n) {
    rdb_aux aux = { "7.0.15", 1700000000, 0, 0, NULL, {0}, codes, n, NULL};
    char err[RDB_ERRLEN];
    rdb_writer *w = rdb_writer_open(g_path, compress, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    obj *k = obj_new_raw("k", 1), *v = obj_new_raw("v", 1);
    ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), 0);
    obj_decref(k);
    obj_decref(v);
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
}

static void round_trip(int compress) {
    char *big = long_code();
    obj *codes[2] = { obj_new_raw(CODE1, strlen(CODE1)), obj_new_raw(big, strlen(big)) };
    write_file_with(compress, codes, 2);
    if (compress & RDB_COMPRESS_LZF) {
        /* the long library is not in the file as it is */
        size_t n;
        unsigned char *f = read_file(g_path, &n);
        ck_assert_ptr_null(memmem(f, n, big, strlen(big)));
        ck_assert_ptr_nonnull(memmem(f, n, CODE1, strlen(CODE1)));
        free(f);
    }
    seen s = {0};
    rdb_load_cb cb = { .key = on_key, .function = on_function };
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_load_file(g_path, 0, &cb, &s, &st, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(s.ncodes, 2);
    ck_assert_str_eq(s.codes[0], CODE1);
    ck_assert_str_eq(s.codes[1], big);
    ck_assert_int_eq(s.keys, 1);
    ck_assert_int_eq(s.key_after_function, 0);
    seen_free(&s);
    obj_decref(codes[0]);
    obj_decref(codes[1]);
    free(big);
}

START_TEST(plain) { round_trip(RDB_COMPRESS_NONE); }
END_TEST
START_TEST(lzf) { round_trip(RDB_COMPRESS_LZF); }
END_TEST
START_TEST(lz4) { round_trip(RDB_COMPRESS_LZ4); }
END_TEST

/* A loader without cb->function refuses the file, naming the opcode. */
START_TEST(refused_without_callback) {
    obj *code = obj_new_raw(CODE1, strlen(CODE1));
    write_file_with(RDB_COMPRESS_NONE, &code, 1);
    obj_decref(code);
    seen s = {0};
    rdb_load_cb cb = { .key = on_key };
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_int_eq(rdb_load_file(g_path, 0, &cb, &s, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "functions (FUNCTION opcode 0xf5) are not supported"), "%s", err);
}
END_TEST

/* The loader's callback refusing a library stops the load with its text. */
static int refuse_function(void *priv, const char *code, size_t len, char *err, size_t errlen) {
    (void)priv; (void)code; (void)len;
    snprintf(err, errlen, "Failed loading library, nope");
    return -1;
}

START_TEST(callback_refuses) {
    obj *code = obj_new_raw(CODE1, strlen(CODE1));
    write_file_with(RDB_COMPRESS_NONE, &code, 1);
    obj_decref(code);
    seen s = {0};
    rdb_load_cb cb = { .key = on_key, .function = refuse_function };
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_int_eq(rdb_load_file(g_path, 0, &cb, &s, &st, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "Failed loading library, nope"), "%s", err);
    ck_assert_int_eq(s.keys, 0);
}
END_TEST

/* An AOF base without the preamble: FUNCTION LOAD <code> first. */
static int cmds_key(const char *key, size_t klen, const obj *val, int64_t expire, rdb_out_fn out,
                    void *ctx) {
    (void)key; (void)klen; (void)val; (void)expire;
    return out(ctx, "K", 1);
}

START_TEST(as_commands) {
    obj *code = obj_new_raw(CODE1, strlen(CODE1));
    rdb_aux aux = { "7.0.15", 0, 0, 1, cmds_key, {0}, &code, 1, NULL};
    char err[RDB_ERRLEN];
    rdb_writer *w = rdb_writer_open(g_path, 0, &aux, err, sizeof err);
    ck_assert_ptr_nonnull(w);
    obj *k = obj_new_raw("k", 1), *v = obj_new_raw("v", 1);
    ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), 0);
    obj_decref(k);
    obj_decref(v);
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
    obj_decref(code);
    size_t n;
    unsigned char *f = read_file(g_path, &n);
    char want[512];
    int wn = snprintf(want, sizeof want,
                      "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$%zu\r\n%s\r\n"
                      "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\nK",
                      strlen(CODE1), CODE1);
    ck_assert_uint_eq(n, (size_t)wn);
    ck_assert_int_eq(memcmp(f, want, n), 0);
    free(f);
}
END_TEST

/* FUNCTION DUMP's records: written by rdb_write_functions, read back by
 * rdb_read_functions; another type byte is handed over as it is. */
typedef struct recs {
    int ops[8];
    char *codes[8];
    int n;
} recs;

static int on_rec(void *priv, int op, const char *code, size_t len) {
    recs *r = priv;
    ck_assert_int_lt(r->n, 8);
    r->ops[r->n] = op;
    r->codes[r->n++] = code ? strndup(code, len) : NULL;
    return op == RDB_OP_FUNCTION2 ? 0 : -1;
}

START_TEST(dump_records) {
    char *big = long_code();
    obj *codes[2] = { obj_new_raw(CODE1, strlen(CODE1)), obj_new_raw(big, strlen(big)) };
    sink *out = sink_mem_open("payload");
    char err[RDB_ERRLEN];
    ck_assert_int_eq(rdb_write_functions(out, codes, 2, RDB_COMPRESS_LZF, err, sizeof err), 0);
    size_t len;
    const unsigned char *p = sink_mem_data(out, &len);
    ck_assert_int_eq(p[0], RDB_OP_FUNCTION2);
    unsigned char *buf = malloc(len + 3);
    memcpy(buf, p, len);
    buf[len] = 0; /* a string's type byte after them */
    buf[len + 1] = 0x01;
    buf[len + 2] = 'x';
    source *src = source_mem_open(buf, len, "payload");
    recs r = {0};
    ck_assert_msg(rdb_read_functions(src, len, on_rec, &r, err, sizeof err) == 0, "%s", err);
    source_free(src);
    ck_assert_int_eq(r.n, 2);
    ck_assert_str_eq(r.codes[0], CODE1);
    ck_assert_str_eq(r.codes[1], big);
    src = source_mem_open(buf, len + 3, "payload");
    recs r2 = {0};
    ck_assert_int_eq(rdb_read_functions(src, len + 3, on_rec, &r2, err, sizeof err), -1);
    source_free(src);
    ck_assert_int_eq(r2.n, 3);
    ck_assert_int_eq(r2.ops[2], 0);
    /* damaged: a length that runs past the data */
    buf[1] = 0x7f;
    src = source_mem_open(buf, 3, "payload");
    recs r3 = {0};
    ck_assert_int_eq(rdb_read_functions(src, 3, on_rec, &r3, err, sizeof err), -1);
    ck_assert_int_eq(r3.n, 0);
    source_free(src);
    for (int i = 0; i < r.n; i++) free(r.codes[i]);
    for (int i = 0; i < r2.n; i++) free(r2.codes[i]);
    free(buf);
    sink_free(out);
    obj_decref(codes[0]);
    obj_decref(codes[1]);
    free(big);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rdb_functions");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, plain);
    tcase_add_test(tc, lzf);
    tcase_add_test(tc, lz4);
    tcase_add_test(tc, refused_without_callback);
    tcase_add_test(tc, callback_refuses);
    tcase_add_test(tc, as_commands);
    tcase_add_test(tc, dump_records);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int nf = srunner_ntests_failed(sr);
    srunner_free(sr);
    return nf == 0 ? 0 : 1;
}
