/* test_rdb_lzf: the writer's string and checksum options (snapshot/rdb.h).
 *
 * RDB_COMPRESS_LZF writes strings as Redis 7.0 does with rdbcompression yes
 * (rdbSaveRawString): int encoding first, LZF only for strings longer than
 * 20 bytes and only when liblzf fits the output in len - 4 bytes, else the
 * bytes verbatim. RDB_NO_CHECKSUM writes a zero CRC64, which the loader
 * takes as "not computed", as Redis does. Encodings are checked byte by
 * byte in the file, and every file is read back through rdb_load_file.
 * What redis-server and redis-check-rdb make of such files is checked in
 * test_rdb_interop and tests/integration/test_snapshot_interop. */
#include <check.h>
#include <lzf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "crc64.h"
#include "rdb.h"
#include "rdb_fmt.h"
#include "util.h"
#include "rdb_testutil.h"
#include "testrand.h"

static char tdir[256], tpath[300];

static void setup(void) {
    rt_tmpdir_make("test_rdb_lzf", tdir, sizeof tdir, tpath, sizeof tpath);
}

static void teardown(void) { rt_tmpdir_remove(tdir); }

/* ---- records written and loaded ---- */

typedef struct recs {
    rec *v;
    size_t n, cap;
} recs;

static void recs_add(recs *r, int db, obj *k, obj *v, int64_t expire) {
    rt_rec_push(&r->v, &r->n, &r->cap, (rec){ db, k, v, expire });
}

static void recs_free(recs *r) {
    rt_recs_drop(r->v, r->n);
    memset(r, 0, sizeof *r);
}

static int cb_key(void *priv, int db, obj *k, obj *v, int64_t expire, char *err, size_t errlen) {
    (void)err, (void)errlen;
    recs_add(priv, db, k, v, expire);
    return 0;
}

static void write_recs(const char *path, int flags, const recs *d) {
    char err[RDB_ERRLEN];
    rdb_aux aux = { "7.0.15", 1700000000, 123456789, 0, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(path, flags, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    for (size_t i = 0; i < d->n; i++)
        ck_assert_msg(rdb_writer_put(w, d->v[i].db, d->v[i].key, d->v[i].val,
                                     d->v[i].expire) == 0, "%s", rdb_writer_error(w));
    ck_assert_msg(rdb_writer_finish(w, err, sizeof err) == 0, "%s", err);
}

/* Loads path and checks it holds exactly `want`, in order. */
static void load_same(const char *path, const recs *want, int lz4) {
    rdb_load_cb cb = { NULL, cb_key, NULL, NULL, NULL, NULL };
    recs got = {0};
    rdb_load_stats st;
    char err[RDB_ERRLEN] = "";
    int rc = rdb_load_file(path, 0, &cb, &got, &st, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_int_eq(st.compressed, lz4);
    ck_assert_uint_eq(got.n, want->n);
    for (size_t i = 0; i < want->n; i++) {
        ck_assert_int_eq(got.v[i].db, want->v[i].db);
        ck_assert_msg(obj_same(got.v[i].key, want->v[i].key), "key %zu differs", i);
        ck_assert_msg(obj_same(got.v[i].val, want->v[i].val), "value of key %zu differs", i);
        ck_assert(got.v[i].expire == want->v[i].expire);
    }
    recs_free(&got);
}

/* ---- data ---- */

static obj *random_obj(size_t n) {
    char *p = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) p[i] = (char)rnd();
    obj *o = obj_new_raw(p, n);
    free(p);
    return o;
}

/* JSON-like text of about n bytes: the same field names over and over,
 * random numbers and words in between (what LZF is for). */
static obj *json_obj(size_t n) {
    static const char *const words[] = { "alpha", "verso", "snapshot", "redis", "fork" };
    char *p = xmalloc(n + 64);
    size_t len = 0;
    while (len < n)
        len += (size_t)snprintf(p + len, 64, "{\"id\":%llu,\"name\":\"%s\",\"active\":true},",
                                (unsigned long long)(rnd() % 100000), words[rnd() % 5]);
    obj *o = obj_new_raw(p, n);
    free(p);
    return o;
}

/* Every kind of string, over three databases, some with expires; values
 * and keys that LZF squeezes and values it cannot, larger than the writer's
 * buffer too. */
static void make_dataset(recs *d) {
    static const int dbs[] = { 0, 3, 0, 9 };
    for (int i = 0; i < 3000; i++) {
        char kb[128];
        obj *k;
        if (i % 9 == 2)   /* a long compressible key */
            k = obj_new_raw(kb, (size_t)snprintf(kb, sizeof kb, "session:%064d", i));
        else
            k = obj_new_raw(kb, (size_t)snprintf(kb, sizeof kb, "user:%d", i));
        obj *v;
        switch (i % 6) {
        case 0: v = json_obj(21 + rnd() % 600); break;
        case 1: v = random_obj(rnd() % 400); break;
        case 2: v = obj_new_int((int64_t)(rnd() % 2000000) - 1000000); break;
        case 3: v = obj_new_raw("aaaaaaaaaaaaaaaaaaaa", 20 - rnd() % 3); break;
        case 4: v = obj_new_raw("007", 3); break;
        default: v = json_obj(300); break;
        }
        recs_add(d, dbs[(i / 50) % 4], k, v, i % 7 == 0 ? 4102444800000LL + i : -1);
    }
    recs_add(d, 3, obj_new_raw("big:json", 8), json_obj((1u << 20) + 17), -1);
    recs_add(d, 3, obj_new_raw("big:random", 10), random_obj(1u << 20), -1);
    recs_add(d, 0, obj_new_raw("mid:json", 8), json_obj(200000), 4102444800000LL);
}

/* ---- the encoding the writer chose ---- */

/* The file of one key "k" = v in database 0; returns the bytes of the file
 * and sets *at to where the value's encoding starts. */
static unsigned char *one_key(obj *v, int flags, size_t *n, size_t *at) {
    recs d = {0};
    recs_add(&d, 0, obj_new_raw("k", 1), v, -1);
    write_recs(tpath, flags, &d);
    recs_free(&d);
    unsigned char *f = read_file(tpath, n);
    static const unsigned char head[] = { RDB_OP_SELECTDB, 0, RDB_TYPE_STRING, 1, 'k' };
    unsigned char *p = memmem(f, *n, head, sizeof head);
    ck_assert_ptr_nonnull(p);
    *at = (size_t)(p - f) + sizeof head;
    return f;
}

/* Reads a length prefix at f[*at]. */
static uint64_t len_at(const unsigned char *f, size_t *at) {
    unsigned b = f[(*at)++];
    if ((b >> 6) == RDB_LEN_6BIT) return b & 0x3f;
    if ((b >> 6) == RDB_LEN_14BIT) return ((uint64_t)(b & 0x3f) << 8) | f[(*at)++];
    ck_assert_uint_eq(b, RDB_LEN_32BIT);
    uint64_t v = 0;
    for (int i = 0; i < 4; i++) v = (v << 8) | f[(*at)++];
    return v;
}

/* 1 when the value of the one-key file at f was written LZF (and then its
 * bytes decompress to s), 0 when verbatim (and then they are s). */
static int value_is_lzf(const unsigned char *f, size_t at, const char *s, size_t len) {
    if (f[at] == ((RDB_LEN_ENCVAL << 6) | RDB_ENC_LZF)) {
        at++;
        uint64_t clen = len_at(f, &at), plain = len_at(f, &at);
        ck_assert_uint_eq(plain, len);
        ck_assert_uint_le(clen, len - 4);   /* saves at least 4 bytes */
        char *out = xmalloc(len);
        ck_assert_uint_eq(lzf_decompress(f + at, (unsigned)clen, out, (unsigned)len), len);
        ck_assert_int_eq(memcmp(out, s, len), 0);
        free(out);
        return 1;
    }
    ck_assert_uint_eq(len_at(f, &at), len);
    ck_assert_int_eq(memcmp(f + at, s, len), 0);
    return 0;
}

START_TEST(test_lzf_only_above_20_bytes) {
    char a[32];
    memset(a, 'a', sizeof a);
    size_t n, at;
    /* 20 bytes: never LZF, as Redis (though LZF would shrink them) */
    unsigned char *f = one_key(obj_new_raw(a, 20), RDB_COMPRESS_LZF, &n, &at);
    ck_assert_int_eq(value_is_lzf(f, at, a, 20), 0);
    free(f);
    /* 21 bytes: LZF */
    f = one_key(obj_new_raw(a, 21), RDB_COMPRESS_LZF, &n, &at);
    ck_assert_int_eq(value_is_lzf(f, at, a, 21), 1);
    free(f);
    /* ... unless LZF is off */
    f = one_key(obj_new_raw(a, 21), RDB_COMPRESS_NONE, &n, &at);
    ck_assert_int_eq(value_is_lzf(f, at, a, 21), 0);
    free(f);
    /* integers are int-encoded first, raw or INT objects alike */
    f = one_key(obj_new_raw("12345", 5), RDB_COMPRESS_LZF, &n, &at);
    ck_assert_uint_eq(f[at], (RDB_LEN_ENCVAL << 6) | RDB_ENC_INT16);
    free(f);
    f = one_key(obj_new_int(-7), RDB_COMPRESS_LZF, &n, &at);
    ck_assert_uint_eq(f[at], (RDB_LEN_ENCVAL << 6) | RDB_ENC_INT8);
    free(f);
    /* random bytes do not compress: verbatim */
    obj *r = random_obj(300);
    obj_incref(r);
    f = one_key(r, RDB_COMPRESS_LZF, &n, &at);
    ck_assert_int_eq(value_is_lzf(f, at, r->data, 300), 0);
    free(f);
    obj_decref(r);
    /* a key longer than 20 bytes is a string like any other */
    recs d = {0};
    memset(a, 'K', sizeof a);
    recs_add(&d, 0, obj_new_raw(a, 30), obj_new_raw("v", 1), -1);
    write_recs(tpath, RDB_COMPRESS_LZF, &d);
    f = read_file(tpath, &n);
    static const unsigned char lzf_key[] = { RDB_OP_SELECTDB, 0, RDB_TYPE_STRING,
                                             (RDB_LEN_ENCVAL << 6) | RDB_ENC_LZF };
    ck_assert_ptr_nonnull(memmem(f, n, lzf_key, sizeof lzf_key));
    free(f);
    load_same(tpath, &d, 0);
    recs_free(&d);
}
END_TEST

/* Redis's rule (rdbSaveLzfStringObject): LZF only when lzf_compress fits
 * the output in len - 4 bytes. Strings of 20 distinct bytes then a run of
 * r equal bytes compress by 0, 1, 2, 3, ... bytes as r grows. */
START_TEST(test_lzf_saves_at_least_4_bytes) {
    int verbatim_saving_1_to_3 = 0, lzf = 0;
    for (int r = 1; r <= 40; r++) {
        char s[64], out[128], full[128];
        size_t len = 20 + (size_t)r;
        for (int i = 0; i < 20; i++) s[i] = (char)(i * 7 + 1);   /* no repeated trigram */
        memset(s + 20, '\xff', (size_t)r);
        unsigned whole = lzf_compress(s, (unsigned)len, full, sizeof full);
        int want = lzf_compress(s, (unsigned)len, out, (unsigned)(len - 4)) != 0;
        size_t n, at;
        unsigned char *f = one_key(obj_new_raw(s, len), RDB_COMPRESS_LZF, &n, &at);
        ck_assert_msg(value_is_lzf(f, at, s, len) == want, "r = %d", r);
        free(f);
        if (!want && whole > 0 && whole < len && whole + 4 > len) verbatim_saving_1_to_3++;
        lzf += want;
    }
    /* both sides of the rule were exercised */
    ck_assert_int_gt(verbatim_saving_1_to_3, 0);
    ck_assert_int_gt(lzf, 0);
}
END_TEST

START_TEST(test_lzf_round_trip) {
    recs d = {0};
    make_dataset(&d);
    char plain[320];
    snprintf(plain, sizeof plain, "%s/plain.rdb", tdir);
    write_recs(plain, RDB_COMPRESS_NONE, &d);
    load_same(plain, &d, 0);
    write_recs(tpath, RDB_COMPRESS_LZF, &d);
    load_same(tpath, &d, 0);
    struct stat a, b;
    ck_assert_int_eq(stat(plain, &a), 0);
    ck_assert_int_eq(stat(tpath, &b), 0);
    /* the JSON-like half of the data shrinks */
    ck_assert_msg(b.st_size * 10 < a.st_size * 7, "LZF %lld B, plain %lld B",
                  (long long)b.st_size, (long long)a.st_size);
    /* LZF inside the LZ4 frame (the server never asks for both) and LZF
     * without a checksum read back the same */
    write_recs(tpath, RDB_COMPRESS_LZF | RDB_COMPRESS_LZ4, &d);
    load_same(tpath, &d, 1);
    write_recs(tpath, RDB_COMPRESS_LZF | RDB_NO_CHECKSUM, &d);
    load_same(tpath, &d, 0);
    recs_free(&d);
}
END_TEST

/* rdbchecksum no: the same bytes but a zero CRC64, and the file loads. */
START_TEST(test_no_checksum) {
    recs d = {0};
    make_dataset(&d);
    char with[320];
    snprintf(with, sizeof with, "%s/with.rdb", tdir);
    write_recs(with, RDB_COMPRESS_NONE, &d);
    write_recs(tpath, RDB_NO_CHECKSUM, &d);
    size_t n1, n2;
    unsigned char *f1 = read_file(with, &n1), *f2 = read_file(tpath, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert_int_eq(memcmp(f1, f2, n1 - 8), 0);
    uint64_t stored = 0, zero = 0;
    for (int i = 0; i < 8; i++) {
        stored |= (uint64_t)f1[n1 - 8 + (size_t)i] << (8 * i);
        zero |= (uint64_t)f2[n2 - 8 + (size_t)i] << (8 * i);
    }
    ck_assert(stored == crc64(0, f1, n1 - 8));
    ck_assert(stored != 0);
    ck_assert(zero == 0);
    free(f1);
    free(f2);
    load_same(tpath, &d, 0);
    write_recs(tpath, RDB_NO_CHECKSUM | RDB_COMPRESS_LZ4, &d);
    load_same(tpath, &d, 1);
    recs_free(&d);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rdb_lzf");
    TCase *tc = tcase_create("rdb_lzf");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_lzf_only_above_20_bytes);
    tcase_add_test(tc, test_lzf_saves_at_least_4_bytes);
    tcase_add_test(tc, test_lzf_round_trip);
    tcase_add_test(tc, test_no_checksum);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
