/* test_rdb: the snapshot file format (snapshot/rdb.h, crc64.h).
 *
 * Round trips through the writer and the reader (plain and LZ4), files
 * crafted byte by byte for what our writer never emits (old versions,
 * EXPIRETIME in seconds, IDLE/FREQ, LZF, every length form) and for every
 * refusal, corruption sweeps (every byte flipped, every truncation) that must
 * all be refused with an offset and leave the file as it was, and write
 * errors on a full device (/dev/full). */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lz4frame.h>
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
#include "vbuf.h"
#include "testrand.h"

/* ---- a scratch directory per test ---- */

static char tdir[256];
static size_t max_text = 500;   /* longest printable value in datasets */
static char tpath[300];

static void setup(void) {
    rt_tmpdir_make("test_rdb", tdir, sizeof tdir, tpath, sizeof tpath);
    max_text = 500;
}

static void teardown(void) { rt_tmpdir_remove(tdir); }

/* ---- records: what was written, what the loader handed over ---- */

typedef struct recs {
    rec *v;
    size_t n, cap;
    int resize_calls[32];
    uint64_t resize_keys[32], resize_exp[32];
    long refuse_after;     /* the key callback fails after this many keys; -1 never */
} recs;

static void recs_init(recs *r) {
    memset(r, 0, sizeof *r);
    r->refuse_after = -1;
}

static void recs_add(recs *r, int db, obj *k, obj *v, int64_t expire) {
    rt_rec_push(&r->v, &r->n, &r->cap, (rec){ db, k, v, expire });
}

static void recs_free(recs *r) {
    rt_recs_drop(r->v, r->n);
    recs_init(r);
}

static int cb_key(void *priv, int db, obj *k, obj *v, int64_t expire, char *err, size_t errlen) {
    recs *r = priv;
    if (r->refuse_after >= 0 && (long)r->n >= r->refuse_after) {
        snprintf(err, errlen, "DB index is out of range");
        obj_decref(k);
        obj_decref(v);
        return -1;
    }
    recs_add(r, db, k, v, expire);
    return 0;
}

static void cb_resize(void *priv, int db, uint64_t keys, uint64_t expires) {
    recs *r = priv;
    ck_assert_int_ge(db, 0);
    if (db >= 32) return;
    r->resize_calls[db]++;
    r->resize_keys[db] = keys;
    r->resize_exp[db] = expires;
}

static const rdb_load_cb CB = { .resize = cb_resize, .key = cb_key };

static int load(const char *path, int64_t now, recs *got, rdb_load_stats *st, char *err) {
    err[0] = '\0';
    return rdb_load_file(path, now, &CB, got, st, err, RDB_ERRLEN);
}

/* The loader must hand over exactly the unexpired records, in file order. */
static void assert_same(const recs *want, const recs *got, int64_t now) {
    size_t j = 0;
    for (size_t i = 0; i < want->n; i++) {
        const rec *w = &want->v[i];
        if (w->expire != -1 && w->expire < now) continue;
        ck_assert_msg(j < got->n, "record %zu missing (got %zu)", i, got->n);
        const rec *g = &got->v[j++];
        ck_assert_int_eq(g->db, w->db);
        ck_assert_msg(obj_same(g->key, w->key), "key %zu differs", i);
        ck_assert_int_eq(g->key->enc, OBJ_ENC_RAW);
        ck_assert_msg(obj_same(g->val, w->val), "value of key %zu differs", i);
        ck_assert(g->expire == w->expire);
        /* a value that reads as a canonical integer comes back INT */
        long long ll;
        char b[OBJ_INTBUF];
        size_t len;
        const char *s = obj_str(w->val, b, &len);
        int is_int = len <= 20 && str_to_ll(s, len, &ll);
        ck_assert_int_eq(g->val->enc, is_int ? OBJ_ENC_INT : OBJ_ENC_RAW);
    }
    ck_assert_uint_eq(j, got->n);
}

/* ---- datasets ---- */

static obj *rand_bytes_obj(size_t n, int printable) {
    char *p = xmalloc(n + 1);
    for (size_t i = 0; i < n; i++) p[i] = printable ? (char)('a' + rnd() % 26) : (char)rnd();
    obj *o = obj_new_raw(p, n);
    free(p);
    return o;
}

static const long long int_cases[] = {
    0, 1, -1, 127, -128, 128, -129, 32767, -32768, 32768, -32769,
    2147483647LL, -2147483647LL - 1, 2147483648LL, -2147483649LL,
    LLONG_MAX, LLONG_MIN, 1000000, -987654321,
};
static const char *const str_cases[] = {
    "007", "+5", "-0", " 1", "1 ", "12345678901", "99999999999999999999",
    "-", "", "1e3", "0x10", "123456789012345678901", "-2147483649",
};

/* n records over databases 0, 5 and 10 in runs of 37 (so the writer goes
 * back and forth), with every kind of value; every 7th key expires in the
 * future, every 13th in the past (relative to now). */
static void make_dataset(recs *d, int n, int64_t now, int big) {
    static const int dbs[] = { 0, 5, 0, 10, 5 };
    for (int i = 0; i < n; i++) {
        char kb[64];
        obj *key;
        if (i % 11 == 3) key = obj_new_raw(kb, (size_t)snprintf(kb, sizeof kb, "%d", i - 500));
        else if (i % 17 == 4) key = rand_bytes_obj(1 + rnd() % 40, 0);
        else key = obj_new_raw(kb, (size_t)snprintf(kb, sizeof kb, "key:%012d", i));
        obj *val;
        switch (i % 10) {
        case 0: val = obj_new_int(int_cases[rnd() % (sizeof int_cases / sizeof int_cases[0])]); break;
        case 1: {
            long long v = int_cases[rnd() % (sizeof int_cases / sizeof int_cases[0])];
            val = obj_new_raw(kb, ll_to_str(kb, v));
            break;
        }
        case 2: val = obj_new_raw("", 0); break;
        case 3: val = rand_bytes_obj(1 + rnd() % (max_text / 2), 0); break;
        case 4: {
            const char *s = str_cases[rnd() % (sizeof str_cases / sizeof str_cases[0])];
            val = obj_new_raw(s, strlen(s));
            break;
        }
        default: val = rand_bytes_obj(rnd() % max_text, 1); break;
        }
        if (big && i % 4999 == 500) {
            obj_decref(val);
            val = rand_bytes_obj((1u << 20) + rnd() % 3000, 0);
        }
        int64_t expire = -1;
        if (i % 7 == 0) expire = now + 1000000 + i;
        else if (i % 13 == 0) expire = now - 1000 - i;
        recs_add(d, dbs[(i / 37) % 5], key, val, expire);
    }
}

static int write_dataset(const char *path, int compress, const recs *d, int declare) {
    char err[RDB_ERRLEN];
    rdb_aux aux = { "7.0.15", 1700000000, 123456789, 0, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(path, compress, &aux, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    if (declare) {
        uint64_t keys[11] = {0}, exp[11] = {0};
        for (size_t i = 0; i < d->n; i++) {
            keys[d->v[i].db]++;
            if (d->v[i].expire != -1) exp[d->v[i].db]++;
        }
        rdb_writer_dbsize(w, 0, keys[0], exp[0]);
        rdb_writer_dbsize(w, 5, keys[5], exp[5]);  /* db 10 left undeclared */
    }
    uint64_t before = rdb_writer_bytes(w);
    for (size_t i = 0; i < d->n; i++) {
        int rc = rdb_writer_put(w, d->v[i].db, d->v[i].key, d->v[i].val, d->v[i].expire);
        ck_assert_msg(rc == 0, "%s", rdb_writer_error(w));
    }
    ck_assert_uint_ge(rdb_writer_bytes(w), before);
    int rc = rdb_writer_finish(w, err, sizeof err);
    ck_assert_msg(rc == 0, "%s", err);
    return rc;
}

/* ---- crc64 ---- */

START_TEST(test_crc64_check_value) {
    ck_assert(crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9caULL);
    ck_assert(crc64(0, "", 0) == 0);
    /* any split gives the same result as one call */
    unsigned char buf[1000];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 31 + 7);
    uint64_t whole = crc64(0, buf, sizeof buf);
    for (size_t cut = 0; cut <= sizeof buf; cut += 37)
        ck_assert(crc64(crc64(0, buf, cut), buf + cut, sizeof buf - cut) == whole);
    /* and matches the bitwise definition */
    uint64_t c = 0;
    for (size_t i = 0; i < sizeof buf; i++) {
        c ^= buf[i];
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x95ac9329ac4bc9b5ULL : c >> 1;
    }
    ck_assert(c == whole);
}
END_TEST

/* ---- round trips ---- */

static void round_trip(int compress, int n, int big) {
    int64_t now = wall_ms();
    recs want, got;
    recs_init(&want);
    recs_init(&got);
    make_dataset(&want, n, now, big);
    write_dataset(tpath, compress, &want, 1);

    rdb_load_stats st;
    char err[RDB_ERRLEN];
    int rc = load(tpath, now, &got, &st, err);
    ck_assert_msg(rc == 0, "%s", err);
    assert_same(&want, &got, now);
    ck_assert_int_eq(st.compressed, compress);
    ck_assert_uint_eq(st.keys_loaded, got.n);
    size_t expired = 0, k0 = 0, k5 = 0, e0 = 0, e5 = 0;
    for (size_t i = 0; i < want.n; i++) {
        const rec *w = &want.v[i];
        if (w->expire != -1 && w->expire < now) expired++;
        if (w->db == 0) { k0++; e0 += w->expire != -1; }
        if (w->db == 5) { k5++; e5 += w->expire != -1; }
    }
    ck_assert_uint_gt(expired, 0);
    ck_assert_uint_eq(st.keys_expired, expired);
    struct stat sb;
    ck_assert_int_eq(stat(tpath, &sb), 0);
    ck_assert_uint_eq(st.file_bytes, (uint64_t)sb.st_size);
    /* RESIZEDB: once per declared database, with the declared sizes */
    ck_assert_int_eq(got.resize_calls[0], 1);
    ck_assert_int_eq(got.resize_calls[5], 1);
    ck_assert_int_eq(got.resize_calls[10], 0);
    ck_assert_uint_eq(got.resize_keys[0], k0);
    ck_assert_uint_eq(got.resize_exp[0], e0);
    ck_assert_uint_eq(got.resize_keys[5], k5);
    ck_assert_uint_eq(got.resize_exp[5], e5);

    /* now far in the future: every key with an expire is skipped */
    recs_free(&got);
    rc = load(tpath, INT64_MAX, &got, &st, err);
    ck_assert_msg(rc == 0, "%s", err);
    assert_same(&want, &got, INT64_MAX);
    recs_free(&got);
    recs_free(&want);
}

START_TEST(test_round_trip_plain) { round_trip(RDB_COMPRESS_NONE, 20000, 1); }
END_TEST

START_TEST(test_round_trip_lz4) { round_trip(RDB_COMPRESS_LZ4, 20000, 1); }
END_TEST

START_TEST(test_round_trip_empty) {
    for (int c = 0; c < 2; c++) {
        char err[RDB_ERRLEN];
        rdb_writer *w = rdb_writer_open(tpath, c, NULL, err, sizeof err);
        ck_assert_msg(w != NULL, "%s", err);
        ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
        recs got;
        recs_init(&got);
        rdb_load_stats st;
        ck_assert_int_eq(load(tpath, 0, &got, &st, err), 0);
        ck_assert_uint_eq(got.n, 0);
        ck_assert_int_eq(st.compressed, c);
    }
}
END_TEST

/* The exact bytes of a tiny file, as Redis 7.0 would write them. */
START_TEST(test_writer_bytes_exact) {
    char err[RDB_ERRLEN];
    rdb_aux aux = { "7.0.15", 1700000000, 5000000000LL, 1, NULL, {0}, NULL, 0, NULL};
    rdb_writer *w = rdb_writer_open(tpath, RDB_COMPRESS_NONE, &aux, err, sizeof err);
    ck_assert_ptr_nonnull(w);
    rdb_writer_dbsize(w, 2, 1, 1);
    obj *k = obj_new_raw("123", 3), *v = obj_new_int(-300), *v2 = obj_new_raw("hi", 2);
    ck_assert_int_eq(rdb_writer_put(w, 2, k, v, 0x0102030405060708LL), 0);
    ck_assert_int_eq(rdb_writer_put(w, 2, v2, v2, -1), 0);
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), 0);
    size_t n;
    unsigned char *f = read_file(tpath, &n);
    static const unsigned char want_head[] =
        "REDIS0010"
        "\xfa\x09redis-ver\x06" "7.0.15"
        "\xfa\x0aredis-bits\xc0\x40"
        "\xfa\x05" "ctime\xc2\x00\xf1\x53\x65"
        "\xfa\x08used-mem\x0a" "5000000000"
        "\xfa\x08" "aof-base\xc0\x01"
        "\xfe\x02\xfb\x01\x01"
        "\xfc\x08\x07\x06\x05\x04\x03\x02\x01"
        "\x00\xc0\x7b\xc1\xd4\xfe"
        "\x00\x02hi\x02hi"
        "\xff";
    size_t hl = sizeof want_head - 1;
    ck_assert_uint_eq(n, hl + 8);
    ck_assert_int_eq(memcmp(f, want_head, hl), 0);
    uint64_t c = crc64(0, f, hl), stored = 0;
    for (int i = 0; i < 8; i++) stored |= (uint64_t)f[hl + (size_t)i] << (8 * i);
    ck_assert(c == stored);
    free(f);
    obj_decref(k);
    obj_decref(v);
    obj_decref(v2);
}
END_TEST

/* lz4 -d turns our LZ4 file into the plain one, byte for byte. */
START_TEST(test_lz4_is_a_plain_frame) {
    recs want;
    recs_init(&want);
    make_dataset(&want, 3000, 0, 0);
    char p2[320], cmd[800];
    snprintf(p2, sizeof p2, "%s/plain.rdb", tdir);
    write_dataset(tpath, RDB_COMPRESS_LZ4, &want, 1);
    write_dataset(p2, RDB_COMPRESS_NONE, &want, 1);
    snprintf(cmd, sizeof cmd, "lz4 -d -q -c '%s' | cmp -s - '%s'", tpath, p2);
    ck_assert_int_eq(system(cmd), 0);
    recs_free(&want);
}
END_TEST

/* Writes d with `flags` (LZ4 on) to tpath and plain to plain.rdb, checks
 * that the LZ4 file loads back to d and that lz4 -d gives the plain file
 * byte for byte; returns the two sizes and the frame's FLG byte. */
static void lz4_vs_plain(const recs *d, int flags, size_t *lz4_size, size_t *plain_size,
                         unsigned char *flg) {
    char p2[320], cmd[800];
    snprintf(p2, sizeof p2, "%s/plain.rdb", tdir);
    write_dataset(tpath, flags, d, 1);
    write_dataset(p2, flags & ~RDB_COMPRESS_LZ4, d, 1);
    snprintf(cmd, sizeof cmd, "lz4 -d -q -c '%s' | cmp -s - '%s'", tpath, p2);
    ck_assert_int_eq(system(cmd), 0);
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_msg(load(tpath, 0, &got, &st, err) == 0, "%s", err);
    assert_same(d, &got, 0);
    recs_free(&got);
    unsigned char *f = read_file(tpath, lz4_size);
    ck_assert_uint_gt(*lz4_size, 4);
    *flg = f[4];
    free(f);
    f = read_file(p2, plain_size);
    free(f);
}

/* LZ4 blocks that would not shrink by 1/16 (a probe of their first 16 KB
 * says so) are stored as uncompressed blocks of the frame: 2,000 x 300
 * random bytes (three blocks) cost the plain size plus a few bytes of
 * framing, repetitive values are compressed. The frame has no content
 * checksum while the RDB CRC64 covers the stream, and has one with
 * RDB_NO_CHECKSUM (then blocks are always compressed). */
START_TEST(test_lz4_stores_incompressible_blocks) {
    recs rand_vals, text_vals;
    recs_init(&rand_vals);
    recs_init(&text_vals);
    char kb[64], tb[300];
    for (size_t i = 0; i < sizeof tb; i++) tb[i] = (char)('a' + i % 7);
    for (int i = 0; i < 2000; i++) {
        size_t kl = (size_t)snprintf(kb, sizeof kb, "key:%012d", i);
        recs_add(&rand_vals, 0, obj_new_raw(kb, kl), rand_bytes_obj(300, 0), -1);
        recs_add(&text_vals, 0, obj_new_raw(kb, kl), obj_new_raw(tb, sizeof tb), -1);
    }
    size_t z, plain;
    unsigned char flg;
    lz4_vs_plain(&rand_vals, RDB_COMPRESS_LZ4, &z, &plain, &flg);
    ck_assert_uint_gt(plain, 2000 * 300);
    ck_assert_uint_ge(z, plain);        /* stored, not compressed */
    ck_assert_uint_le(z, plain + 64);   /* header, 3 block sizes, end mark */
    ck_assert_uint_eq(flg & 0x04, 0);   /* no content checksum */
    lz4_vs_plain(&text_vals, RDB_COMPRESS_LZ4, &z, &plain, &flg);
    ck_assert_uint_lt(z, plain / 4);
    ck_assert_uint_eq(flg & 0x04, 0);
    lz4_vs_plain(&rand_vals, RDB_COMPRESS_LZ4 | RDB_NO_CHECKSUM, &z, &plain, &flg);
    ck_assert_uint_eq(flg & 0x04, 0x04); /* the only checksum then */
    recs_free(&rand_vals);
    recs_free(&text_vals);
}
END_TEST

/* ---- corruption sweeps ---- */

/* Loads the damaged file: it must be refused, with the path and an offset
 * in the message. When `same_ok` (see sweep), a load that gives exactly
 * `want` is accepted instead, and 1 is returned. */
static int check_damaged(const char *what, long at, const recs *want, int same_ok) {
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    int rc = load(tpath, 0, &got, &st, err);
    if (rc == 0 && same_ok) {
        assert_same(want, &got, 0);
        recs_free(&got);
        return 1;
    }
    ck_assert_msg(rc == -1, "%s %ld: rc %d, %zu keys", what, at, rc, got.n);
    ck_assert_msg(strstr(err, "offset ") != NULL, "%s %ld: no offset in '%s'", what, at, err);
    ck_assert_msg(strncmp(err, tpath, strlen(tpath)) == 0, "%s %ld: no path in '%s'", what, at, err);
    recs_free(&got);
    return 0;
}

static void assert_refused(const char *what, long at) { check_damaged(what, at, NULL, 0); }

static void assert_file_is(const unsigned char *want, size_t n) {
    size_t m;
    unsigned char *f = read_file(tpath, &m);
    ck_assert_uint_eq(m, n);
    ck_assert_int_eq(memcmp(f, want, n), 0);
    free(f);
}

static void put_byte_at(size_t off, unsigned char b) {
    int fd = open(tpath, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)off), 1);
    close(fd);
}

/* Flips bytes at `nflip` offsets spread over the file (every offset when
 * nflip >= size), then truncates at `ntrunc` lengths; each must be refused
 * and leave the file as it was.
 *
 * One exception, for LZ4 files only: LZ4 encodings are not unique, and a
 * flipped match offset may copy the same bytes from elsewhere (a run of
 * '0' in "key:000000000012"), so the frame decodes to exactly the same RDB
 * stream and both checksums hold. Such a load must then give exactly the
 * records written (`want`); it is counted and must stay rare. */
static void sweep(const recs *want, size_t nflip, size_t ntrunc, unsigned char mask) {
    size_t n;
    unsigned char *orig = read_file(tpath, &n);
    unsigned char *cur = xmalloc(n);
    memcpy(cur, orig, n);
    int lz4 = n >= 4 && memcmp(orig, "\x04\x22\x4d\x18", 4) == 0;
    size_t steps = nflip < n ? nflip : n, same = 0;
    for (size_t s = 0; s < steps; s++) {
        size_t off = steps == n ? s : s * n / steps + rnd() % (n / steps);
        unsigned char m = mask ? mask : (unsigned char)(1 + rnd() % 255);
        cur[off] = orig[off] ^ m;
        put_byte_at(off, cur[off]);
        same += (size_t)check_damaged("flip at", (long)off, want, lz4);
        if (steps == n || s % 64 == 0) assert_file_is(cur, n);
        cur[off] = orig[off];
        put_byte_at(off, orig[off]);
    }
    ck_assert_msg(same * 50 <= steps, "%zu of %zu flips decode to the same stream", same, steps);
    steps = ntrunc < n ? ntrunc : n;
    for (size_t s = 0; s < steps; s++) {   /* shorter and shorter */
        size_t len = steps == n ? n - 1 - s : (steps - 1 - s) * n / steps + rnd() % (n / steps);
        ck_assert_int_eq(truncate(tpath, (off_t)len), 0);
        assert_refused("truncated to", (long)len);
        if (steps == n || s % 64 == 0) assert_file_is(orig, len);
    }
    write_file(tpath, orig, n);
    free(cur);
    free(orig);
}

/* ~1.5 KB: every offset is flipped (twice) and every length tried. */
static void small_file(int compress) {
    recs want;
    recs_init(&want);
    max_text = 60;
    make_dataset(&want, 30, 1000000, 0);
    write_dataset(tpath, compress, &want, 1);
    sweep(&want, SIZE_MAX, SIZE_MAX, 0x01);
    sweep(&want, SIZE_MAX, 0, 0xff);
    recs_free(&want);
}

START_TEST(test_corrupt_small_plain) { small_file(RDB_COMPRESS_NONE); }
END_TEST

START_TEST(test_corrupt_small_lz4) { small_file(RDB_COMPRESS_LZ4); }
END_TEST

/* ~300 KB: two LZ4 blocks, two reads of the plain file; kept this size so
 * that 2,400 loads stay quick under ASan. */
static void bigger_file(int compress) {
    recs want;
    recs_init(&want);
    max_text = 1000;
    make_dataset(&want, 300, 1000000, 0);
    obj *k = obj_new_raw("big", 3), *v = rand_bytes_obj(200000, 0);
    recs_add(&want, 5, k, v, -1);
    write_dataset(tpath, compress, &want, 1);
    sweep(&want, 2000, 400, 0);
    recs_free(&want);
}

START_TEST(test_corrupt_bigger_plain) { bigger_file(RDB_COMPRESS_NONE); }
END_TEST

START_TEST(test_corrupt_bigger_lz4) { bigger_file(RDB_COMPRESS_LZ4); }
END_TEST

/* ---- hand-crafted files ---- */

static void b_bytes(vbuf *b, const void *p, size_t n) { vbuf_append(b, p, n); }
static void b_u8(vbuf *b, unsigned v) { unsigned char c = (unsigned char)v; vbuf_append(b, &c, 1); }
static void b_le(vbuf *b, uint64_t v, int n) { for (int i = 0; i < n; i++) b_u8(b, (unsigned)(v >> (8 * i)) & 0xff); }
static void b_be(vbuf *b, uint64_t v, int n) { for (int i = n - 1; i >= 0; i--) b_u8(b, (unsigned)(v >> (8 * i)) & 0xff); }

static void b_len(vbuf *b, uint64_t len) {
    if (len < 64) b_u8(b, (unsigned)len);
    else if (len < 16384) { b_u8(b, 0x40 | (unsigned)(len >> 8)); b_u8(b, len & 0xff); }
    else if (len <= UINT32_MAX) { b_u8(b, 0x80); b_be(b, len, 4); }
    else { b_u8(b, 0x81); b_be(b, len, 8); }
}

static void b_str(vbuf *b, const char *s) { b_len(b, strlen(s)); b_bytes(b, s, strlen(s)); }

static void b_header(vbuf *b, int ver) {
    char h[16];
    snprintf(h, sizeof h, "REDIS%04d", ver);
    b_bytes(b, h, 9);
}

enum { CK_RIGHT, CK_ZERO, CK_WRONG };
static void b_end(vbuf *b, int ver, int ck) {
    b_u8(b, RDB_OP_EOF);
    if (ver < RDB_VERSION_CKSUM) return;
    uint64_t c = crc64(0, b->data, b->len);
    b_le(b, ck == CK_RIGHT ? c : ck == CK_ZERO ? 0 : c ^ 1, 8);
}

static int load_bytes(const vbuf *b, int64_t now, recs *got, rdb_load_stats *st, char *err) {
    write_file(tpath, b->data, b->len);
    return load(tpath, now, got, st, err);
}

/* key_at: a callee that refuses a key after the fact names its offset;
 * the end of the data is announced with key == NULL before the checksum. */
static struct {
    uint64_t offs[8];
    int n, saw_end, refuse; /* refuse: at the end, blame key index refuse */
} ka;

static int ka_key(void *priv, int db, obj *k, obj *v, int64_t expire, uint64_t *at,
                  char *err, size_t errlen) {
    (void)priv, (void)db, (void)expire;
    if (!k) {
        ka.saw_end = 1;
        if (ka.refuse < 0) return 0;
        *at = ka.offs[ka.refuse];
        snprintf(err, errlen, "Duplicated key 'k' found in RDB file (database 0)");
        return -1;
    }
    ck_assert_int_lt(ka.n, 8);
    ka.offs[ka.n++] = *at;
    obj_decref(k);
    obj_decref(v);
    return 0;
}

static const rdb_load_cb KA_CB = { NULL, cb_key, NULL, NULL, ka_key, NULL };

START_TEST(test_key_at_offsets) {
    vbuf b;
    vbuf_init(&b);
    b_header(&b, 10);
    b_u8(&b, RDB_OP_SELECTDB); b_len(&b, 0);
    size_t off1 = b.len;
    b_u8(&b, RDB_TYPE_STRING); b_str(&b, "k"); b_str(&b, "v1");
    size_t off2 = b.len;
    b_u8(&b, RDB_TYPE_STRING); b_str(&b, "k"); b_str(&b, "v2");
    b_end(&b, 10, CK_RIGHT);
    write_file(tpath, b.data, b.len);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    for (int refuse = -1; refuse <= 1; refuse++) {
        memset(&ka, 0, sizeof ka);
        ka.refuse = refuse;
        int rc = rdb_load_file(tpath, 0, &KA_CB, NULL, &st, err, sizeof err);
        ck_assert_int_eq(ka.n, 2);
        ck_assert_uint_eq(ka.offs[0], off1);
        ck_assert_uint_eq(ka.offs[1], off2);
        ck_assert_int_eq(ka.saw_end, 1);
        if (refuse < 0) {
            ck_assert_int_eq(rc, 0);
            continue;
        }
        ck_assert_int_eq(rc, -1);
        char want[RDB_ERRLEN + 320];
        snprintf(want, sizeof want, "%s: offset %zu: Duplicated key 'k' found in RDB file "
                 "(database 0)", tpath, refuse ? off2 : off1);
        ck_assert_str_eq(err, want);
    }
    vbuf_free(&b);
}
END_TEST

/* Old versions, every opcode we accept and every string form. */
static void crafted_all_forms(int ver, int ck) {
    vbuf b;
    vbuf_init(&b);
    b_header(&b, ver);
    b_u8(&b, RDB_OP_AUX); b_str(&b, "redis-ver"); b_str(&b, "2.8.0");
    b_u8(&b, RDB_OP_AUX); b_str(&b, "lua"); b_u8(&b, 0xc0); b_u8(&b, 5);
    b_u8(&b, RDB_OP_SELECTDB); b_len(&b, 3);
    b_u8(&b, RDB_OP_RESIZEDB); b_len(&b, 1ULL << 40); b_len(&b, 7);  /* absurd hint */
    /* EXPIRETIME in seconds, then a key */
    b_u8(&b, RDB_OP_EXPIRETIME); b_le(&b, 2000000000, 4);
    b_u8(&b, 0); b_str(&b, "sec"); b_str(&b, "v1");
    /* IDLE and FREQ hints, INT8/16/32 values, an int-encoded key */
    b_u8(&b, RDB_OP_IDLE); b_len(&b, 12345);
    b_u8(&b, RDB_OP_FREQ); b_u8(&b, 7);
    b_u8(&b, 0); b_u8(&b, 0xc1); b_le(&b, (uint16_t)-1234, 2); b_u8(&b, 0xc0); b_u8(&b, 0x80);
    b_u8(&b, 0); b_str(&b, "i32"); b_u8(&b, 0xc2); b_le(&b, (uint32_t)-70000, 4);
    /* 14-bit, 32-bit and 64-bit length forms (the latter two not minimal) */
    char big[300];
    memset(big, 'x', sizeof big);
    b_u8(&b, 0); b_str(&b, "l14"); b_len(&b, 300); b_bytes(&b, big, 300);
    b_u8(&b, 0); b_str(&b, "l32"); b_u8(&b, 0x80); b_be(&b, 3, 4); b_bytes(&b, "abc", 3);
    b_u8(&b, 0); b_str(&b, "l64"); b_u8(&b, 0x81); b_be(&b, 2, 8); b_bytes(&b, "de", 2);
    /* LZF value and LZF key, as Redis writes them above 20 bytes */
    char plain[2000], comp[2000];
    for (size_t i = 0; i < sizeof plain; i++) plain[i] = "abcabcabd"[i % 9];
    unsigned cl = lzf_compress(plain, sizeof plain, comp, sizeof comp);
    ck_assert_uint_gt(cl, 0);
    b_u8(&b, RDB_OP_EXPIRETIME_MS); b_le(&b, 4999, 8);  /* expired at now=5000 */
    b_u8(&b, 0); b_str(&b, "gone"); b_str(&b, "x");
    b_u8(&b, RDB_OP_EXPIRETIME_MS); b_le(&b, 5000, 8);  /* not yet, as Redis */
    b_u8(&b, 0); b_str(&b, "edge"); b_str(&b, "y");
    b_u8(&b, RDB_OP_SELECTDB); b_len(&b, 0);
    b_u8(&b, 0); b_u8(&b, 0xc3); b_len(&b, cl); b_len(&b, sizeof plain); b_bytes(&b, comp, cl);
    b_u8(&b, 0xc3); b_len(&b, cl); b_len(&b, sizeof plain); b_bytes(&b, comp, cl);
    b_u8(&b, 0); b_str(&b, "empty"); b_len(&b, 0);
    b_end(&b, ver, ck);

    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    int rc = load_bytes(&b, 5000, &got, &st, err);
    ck_assert_msg(rc == 0, "version %d: %s", ver, err);
    ck_assert_uint_eq(got.n, 9);
    ck_assert_uint_eq(st.keys_expired, 1);
    ck_assert_int_eq(got.resize_calls[3], 1);
    ck_assert_uint_le(got.resize_keys[3], b.len / 3);  /* clamped to the file */
    ck_assert_uint_le(got.resize_exp[3], got.resize_keys[3]);
    const struct { int db; const char *k; const char *v; size_t vl; int64_t e; } w[] = {
        { 3, "sec", "v1", 2, 2000000000000LL },
        { 3, "-1234", "-128", 4, -1 },
        { 3, "i32", "-70000", 6, -1 },
        { 3, "l14", big, 300, -1 },
        { 3, "l32", "abc", 3, -1 },
        { 3, "l64", "de", 2, -1 },
        { 3, "edge", "y", 1, 5000 },
    };
    for (size_t i = 0; i < 7; i++) {
        ck_assert_int_eq(got.v[i].db, w[i].db);
        ck_assert(obj_eq_bytes(got.v[i].key, w[i].k, strlen(w[i].k)));
        ck_assert(obj_eq_bytes(got.v[i].val, w[i].v, w[i].vl));
        ck_assert(got.v[i].expire == w[i].e);
    }
    ck_assert_int_eq(got.v[7].db, 0);
    ck_assert(obj_eq_bytes(got.v[7].key, plain, sizeof plain));
    ck_assert(obj_eq_bytes(got.v[7].val, plain, sizeof plain));
    ck_assert_int_eq(got.v[1].val->enc, OBJ_ENC_INT);
    ck_assert(obj_eq_bytes(got.v[8].key, "empty", 5));
    ck_assert_uint_eq(obj_strlen(got.v[8].val), 0);
    recs_free(&got);
    vbuf_free(&b);
}

START_TEST(test_crafted_versions) {
    crafted_all_forms(10, CK_RIGHT);
    crafted_all_forms(9, CK_RIGHT);
    crafted_all_forms(6, CK_ZERO);   /* checksum disabled: accepted */
    crafted_all_forms(4, CK_RIGHT);  /* no checksum before version 5 */
    crafted_all_forms(1, CK_RIGHT);
}
END_TEST

/* A file that is valid except for what `mutate` adds after one key. */
typedef void (*mutator)(vbuf *b);

static void expect_refused(mutator m, int ck, int lz4, const char *want1, const char *want2) {
    vbuf b;
    vbuf_init(&b);
    b_header(&b, 10);
    b_u8(&b, RDB_OP_SELECTDB); b_len(&b, 0);
    b_u8(&b, 0); b_str(&b, "a"); b_str(&b, "b");
    size_t at = b.len;
    m(&b);
    b_end(&b, 10, ck);
    if (lz4) {
        LZ4F_preferences_t prefs;
        memset(&prefs, 0, sizeof prefs);
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
        size_t cap = LZ4F_compressFrameBound(b.len, &prefs);
        char *z = xmalloc(cap);
        size_t zl = LZ4F_compressFrame(z, cap, b.data, b.len, &prefs);
        ck_assert(!LZ4F_isError(zl));
        vbuf_reset(&b);
        vbuf_append(&b, z, zl);
        free(z);
    }
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN], off[64];
    ck_assert_int_eq(load_bytes(&b, 0, &got, &st, err), -1);
    snprintf(off, sizeof off, "offset %zu", at);
    ck_assert_msg(strstr(err, "offset ") != NULL, "%s", err);
    if (want1) ck_assert_msg(strstr(err, want1) != NULL, "want '%s' in '%s'", want1, err);
    if (want2) ck_assert_msg(strstr(err, want2 == (const char *)1 ? off : want2) != NULL,
                             "want '%s' in '%s'", want2 == (const char *)1 ? off : want2, err);
    recs_free(&got);
    vbuf_free(&b);
}

/* A RESIZEDB hint in a small LZ4 file: the callee is asked for no more keys
 * than the file could expand to (LZ4 expands at most 255x; a key takes >= 3
 * bytes). It used to add 5 MiB of slack, so a 100-byte file reserved a
 * table for 1.7M keys (the RDB fuzz target's slowest inputs). */
START_TEST(test_resizedb_bounded_lz4) {
    vbuf b;
    vbuf_init(&b);
    b_header(&b, 10);
    b_u8(&b, RDB_OP_SELECTDB); b_len(&b, 0);
    b_u8(&b, RDB_OP_RESIZEDB); b_len(&b, UINT64_C(1) << 40); b_len(&b, UINT64_C(1) << 40);
    b_u8(&b, 0); b_str(&b, "a"); b_str(&b, "b");
    b_end(&b, 10, CK_RIGHT);
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    size_t cap = LZ4F_compressFrameBound(b.len, &prefs);
    char *z = xmalloc(cap);
    size_t zl = LZ4F_compressFrame(z, cap, b.data, b.len, &prefs);
    ck_assert(!LZ4F_isError(zl));
    vbuf_reset(&b);
    vbuf_append(&b, z, zl);
    free(z);
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_msg(load_bytes(&b, 0, &got, &st, err) == 0, "%s", err);
    ck_assert_int_eq(got.resize_calls[0], 1);
    ck_assert_uint_le(got.resize_keys[0], zl * 256 / 3);
    ck_assert_uint_ge(got.resize_keys[0], 1);
    recs_free(&got);
    vbuf_free(&b);
}
END_TEST

#define AT_MUTATION ((const char *)1)

static void m_none(vbuf *b) { (void)b; }
/* 7.2's STREAM_LISTPACKS_3: Redis 7.0 cannot read it either */
static void m_stream(vbuf *b) { b_u8(b, 21); b_str(b, "st"); b_len(b, 0); }
static void m_module(vbuf *b) { b_u8(b, 7); b_str(b, "mod"); }
static void m_module_aux(vbuf *b) { b_u8(b, RDB_OP_MODULE_AUX); b_len(b, 1); }
static void m_function(vbuf *b) { b_u8(b, RDB_OP_FUNCTION2); b_str(b, "#!lua name=x"); }
static void m_function_old(vbuf *b) { b_u8(b, RDB_OP_FUNCTION_PRE_GA); }
static void m_unknown_op(vbuf *b) { b_u8(b, 0xf0); }
static void m_huge_len(vbuf *b) { b_u8(b, 0); b_str(b, "k"); b_u8(b, 0x80); b_be(b, 0xfff00000u, 4); b_bytes(b, "xy", 2); }
static void m_len64(vbuf *b) { b_u8(b, 0); b_str(b, "k"); b_u8(b, 0x81); b_be(b, 1ULL << 63, 8); }
static void m_bad_len_prefix(vbuf *b) { b_u8(b, 0); b_str(b, "k"); b_u8(b, 0x82); }
static void m_bad_enc(vbuf *b) { b_u8(b, 0); b_str(b, "k"); b_u8(b, 0xc4); }
static void m_db_range(vbuf *b) { b_u8(b, RDB_OP_SELECTDB); b_u8(b, 0x81); b_be(b, 1ULL << 40, 8); }
static void m_enc_as_len(vbuf *b) { b_u8(b, RDB_OP_SELECTDB); b_u8(b, 0xc0); b_u8(b, 1); }
static void m_lzf_bad(vbuf *b) {
    b_u8(b, 0); b_str(b, "k"); b_u8(b, 0xc3); b_len(b, 4); b_len(b, 100);
    b_bytes(b, "\xff\xff\xff\xff", 4);
}
static void m_lzf_ratio(vbuf *b) { b_u8(b, 0); b_str(b, "k"); b_u8(b, 0xc3); b_len(b, 1); b_len(b, 100000); b_u8(b, 0); }
static void m_lzf_huge(vbuf *b) {
    b_u8(b, 0); b_str(b, "k"); b_u8(b, 0xc3); b_len(b, 10000000); b_len(b, 600000000);
}

START_TEST(test_refusals) {
    expect_refused(m_none, CK_WRONG, 0, "bad CRC64 checksum", NULL);
    expect_refused(m_none, CK_WRONG, 1, "bad CRC64 checksum", "of the decompressed stream");
    expect_refused(m_stream, CK_RIGHT, 0, "key \"st\": value type 21 (stream)", AT_MUTATION);
    expect_refused(m_module, CK_RIGHT, 1, "key \"mod\": value type 7 (module)", AT_MUTATION);
    expect_refused(m_module_aux, CK_RIGHT, 0, "MODULE_AUX", AT_MUTATION);
    expect_refused(m_function, CK_RIGHT, 0, "functions", AT_MUTATION);
    expect_refused(m_function_old, CK_RIGHT, 0, "functions", AT_MUTATION);
    expect_refused(m_unknown_op, CK_RIGHT, 0, "opcode 0xf0", AT_MUTATION);
    expect_refused(m_huge_len, CK_RIGHT, 0, "exceeds the", NULL);
    expect_refused(m_huge_len, CK_RIGHT, 1, "unexpected end of the decompressed stream", NULL);
    expect_refused(m_len64, CK_RIGHT, 0, "too large", NULL);
    expect_refused(m_bad_len_prefix, CK_RIGHT, 0, "bad length prefix 0x82", NULL);
    expect_refused(m_bad_enc, CK_RIGHT, 0, "unknown string encoding 4", NULL);
    expect_refused(m_db_range, CK_RIGHT, 0, "out of range", AT_MUTATION);
    expect_refused(m_enc_as_len, CK_RIGHT, 0, "SELECTDB", NULL);
    expect_refused(m_lzf_bad, CK_RIGHT, 0, "LZF", NULL);
    expect_refused(m_lzf_ratio, CK_RIGHT, 0, "bad LZF string lengths", NULL);
    expect_refused(m_lzf_huge, CK_RIGHT, 1, "over the 512 MB limit", NULL);
}
END_TEST

START_TEST(test_bad_headers) {
    static const struct { const char *bytes; size_t n; const char *want; } cases[] = {
        { "", 0, "offset 0: unexpected end of file" },
        { "REDIS001", 8, "unexpected end of file" },
        { "RUBIS0010\xff", 10, "bad magic" },
        { "REDIS0011\xff", 10, "unsupported RDB version 11" },
        { "REDIS0000\xff", 10, "unsupported RDB version 0" },
        { "REDIS00a0\xff", 10, "offset 5: bad RDB version field" },
        { "\x04\x22\x4d\x18", 4, "offset 4 of the compressed file" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        write_file(tpath, cases[i].bytes, cases[i].n);
        recs got;
        recs_init(&got);
        rdb_load_stats st;
        char err[RDB_ERRLEN];
        ck_assert_int_eq(load(tpath, 0, &got, &st, err), -1);
        ck_assert_msg(strstr(err, cases[i].want) != NULL, "case %zu: '%s'", i, err);
    }
}
END_TEST

START_TEST(test_missing_file_and_callback_refusal) {
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_int_eq(load(tpath, 0, &got, &st, err), 1);   /* no file: nothing */
    ck_assert_int_eq(load(tdir, 0, &got, &st, err), -1);   /* a directory */
    ck_assert_ptr_nonnull(strstr(err, "Is a directory"));

    recs want;
    recs_init(&want);
    make_dataset(&want, 100, 0, 0);
    write_dataset(tpath, RDB_COMPRESS_LZ4, &want, 0);
    got.refuse_after = 10;
    ck_assert_int_eq(load(tpath, 0, &got, &st, err), -1);
    ck_assert_msg(strstr(err, "of the decompressed stream: DB index is out of range") != NULL,
                  "%s", err);
    ck_assert_uint_eq(got.n, 10);
    recs_free(&got);
    recs_free(&want);
}
END_TEST

/* Trailing bytes after a complete file are refused, in both formats. */
START_TEST(test_trailing_garbage) {
    for (int c = 0; c < 2; c++) {
        recs want;
        recs_init(&want);
        make_dataset(&want, 50, 0, 0);
        write_dataset(tpath, c, &want, 0);
        recs_free(&want);
        size_t n;
        unsigned char *f = read_file(tpath, &n);
        f = xrealloc(f, n + 1);
        f[n] = 0;
        write_file(tpath, f, n + 1);
        assert_refused(c ? "lz4 trailing" : "plain trailing", 0);
        char err[RDB_ERRLEN];
        recs got;
        recs_init(&got);
        rdb_load_stats st;
        load(tpath, 0, &got, &st, err);
        ck_assert_msg(strstr(err, c ? "trailing data after the LZ4 frame" : "after the RDB checksum"),
                      "%s", err);
        recs_free(&got);
        free(f);
    }
}
END_TEST

/* ---- writing errors ---- */

START_TEST(test_full_disk) {
    for (int c = 0; c < 2; c++) {
        char err[RDB_ERRLEN] = "";
        /* many keys: a put fails once the 1 MiB buffer must be flushed */
        rdb_writer *w = rdb_writer_open("/dev/full", c, NULL, err, sizeof err);
        ck_assert_msg(w != NULL, "%s", err);
        obj *k = obj_new_raw("key", 3), *v = rand_bytes_obj(1000, 0);
        int rc = 0, i;
        for (i = 0; i < 10000 && rc == 0; i++) rc = rdb_writer_put(w, 0, k, v, -1);
        ck_assert_int_eq(rc, -1);
        ck_assert_int_lt(i, 10000);
        ck_assert_ptr_nonnull(strstr(rdb_writer_error(w), "No space left on device"));
        ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), -1);  /* stays failed */
        ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), -1);
        ck_assert_ptr_nonnull(strstr(err, "/dev/full: write: No space left on device"));
        /* few keys: the error surfaces from finish */
        w = rdb_writer_open("/dev/full", c, NULL, err, sizeof err);
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), 0);
        ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), -1);
        ck_assert_msg(strstr(err, "No space left on device") != NULL, "%s", err);
        obj_decref(k);
        obj_decref(v);
    }
}
END_TEST

START_TEST(test_open_errors_and_commit) {
    char err[RDB_ERRLEN], bad[320], tmp[320];
    snprintf(bad, sizeof bad, "%s/nodir/x.rdb", tdir);
    ck_assert_ptr_null(rdb_writer_open(bad, RDB_COMPRESS_NONE, NULL, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "No such file or directory"));

    /* abort leaves a temp file the caller removes */
    snprintf(tmp, sizeof tmp, "%s/temp-1.rdb", tdir);
    rdb_writer *w = rdb_writer_open(tmp, RDB_COMPRESS_LZ4, NULL, err, sizeof err);
    ck_assert_ptr_nonnull(w);
    rdb_writer_abort(w);
    ck_assert_int_eq(unlink(tmp), 0);

    recs want;
    recs_init(&want);
    make_dataset(&want, 200, 0, 0);
    write_dataset(tmp, RDB_COMPRESS_NONE, &want, 0);
    ck_assert_int_eq(rdb_commit_file(tmp, tpath, err, sizeof err), 0);
    ck_assert_int_eq(access(tmp, F_OK), -1);
    recs got;
    recs_init(&got);
    rdb_load_stats st;
    ck_assert_int_eq(load(tpath, 0, &got, &st, err), 0);
    assert_same(&want, &got, 0);
    ck_assert_int_eq(rdb_commit_file(tmp, tpath, err, sizeof err), -1);  /* tmp is gone */
    ck_assert_ptr_nonnull(strstr(err, "rename"));
    /* a relative path commits in the current directory */
    char cwd[PATH_MAX];
    ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
    ck_assert_int_eq(chdir(tdir), 0);
    ck_assert_int_eq(rdb_commit_file("dump.rdb", "moved.rdb", err, sizeof err), 0);
    ck_assert_int_eq(access("moved.rdb", F_OK), 0);
    ck_assert_int_eq(chdir(cwd), 0);
    recs_free(&got);
    recs_free(&want);
}
END_TEST

static Suite *rdb_suite(void) {
    Suite *s = suite_create("rdb");
    TCase *tc = tcase_create("rdb");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_crc64_check_value);
    tcase_add_test(tc, test_round_trip_plain);
    tcase_add_test(tc, test_round_trip_lz4);
    tcase_add_test(tc, test_round_trip_empty);
    tcase_add_test(tc, test_writer_bytes_exact);
    tcase_add_test(tc, test_lz4_is_a_plain_frame);
    tcase_add_test(tc, test_lz4_stores_incompressible_blocks);
    tcase_add_test(tc, test_corrupt_small_plain);
    tcase_add_test(tc, test_corrupt_small_lz4);
    tcase_add_test(tc, test_corrupt_bigger_plain);
    tcase_add_test(tc, test_corrupt_bigger_lz4);
    tcase_add_test(tc, test_crafted_versions);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_bad_headers);
    tcase_add_test(tc, test_missing_file_and_callback_refusal);
    tcase_add_test(tc, test_trailing_garbage);
    tcase_add_test(tc, test_full_disk);
    tcase_add_test(tc, test_open_errors_and_commit);
    tcase_add_test(tc, test_key_at_offsets);
    tcase_add_test(tc, test_resizedb_bounded_lz4);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) {
    SRunner *sr = srunner_create(rdb_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
