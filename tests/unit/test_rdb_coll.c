/* test_rdb_coll: the collection codecs of the snapshot format.
 *
 * (1) listpack, ziplist, intset and zipmap blobs (snapshot/listpack.c):
 *     every integer and string entry encoding at its boundaries, with the
 *     bytes Redis writes for them; back-lengths and prev-lengths at their
 *     size boundaries; corrupt blobs refused with a reason; random damage
 *     never read out of bounds (run it under ASan);
 * (2) values through rdb_write_value / rdb_read_value (the DUMP encoding,
 *     the snapshot's one encoder): every type in both encodings, quicklist
 *     nodes as list-max-listpack-size shapes them, damaged values refused
 *     with the type named;
 * (3) DUMP payloads taken from a redis-server 7.0 started here, for every
 *     encoding it writes, decoded and compared with what its commands say;
 *     for lists, intsets and sorted-set listpacks (whose order is the
 *     value's own) our encoding of the same value is byte for byte Redis's.
 * Needs redis-server on PATH for (3). */
#include <check.h>
#include <hiredis/hiredis.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../snapshot/crc64.h"
#include "../../snapshot/listpack.h"
#include "../../snapshot/rdb.h"
#include "../../snapshot/rdb_coll.h"
#include "../../src/conf.h"
#include "../../src/server.h"
#include "../../src/t_hash.h"
#include "../../src/t_list.h"
#include "../../src/t_set.h"
#include "../../src/t_zset.h"
#include "../../src/util.h"
#include "../../src/vbuf.h"
#include "../integration/harness.h"

/* ==== (1) blobs ==== */

typedef struct lp_case {
    const char *in;
    size_t n;
    unsigned char hdr0;   /* first byte of the encoding */
    size_t size;          /* whole entry with its back-length */
    int is_int;
    long long v;
} lp_case;

#define S(x) x, sizeof(x) - 1

START_TEST(test_lp_encodings) {
    static const lp_case cases[] = {
        { S("0"), 0x00, 2, 1, 0 },
        { S("127"), 0x7f, 2, 1, 127 },
        { S("128"), 0xC0, 3, 1, 128 },
        { S("-1"), 0xDF, 3, 1, -1 },
        { S("4095"), 0xCF, 3, 1, 4095 },
        { S("-4096"), 0xD0, 3, 1, -4096 },
        { S("4096"), 0xF1, 4, 1, 4096 },
        { S("-32768"), 0xF1, 4, 1, -32768 },
        { S("32768"), 0xF2, 5, 1, 32768 },
        { S("-8388608"), 0xF2, 5, 1, -8388608 },
        { S("8388608"), 0xF3, 6, 1, 8388608 },
        { S("2147483647"), 0xF3, 6, 1, 2147483647 },
        { S("-2147483649"), 0xF4, 10, 1, -2147483649LL },
        { S("9223372036854775807"), 0xF4, 10, 1, INT64_MAX },
        { S("-9223372036854775808"), 0xF4, 10, 1, INT64_MIN },
        { S("9223372036854775808"), 0x80 | 19, 21, 0, 0 },   /* overflows: a string */
        { S("01"), 0x82, 4, 0, 0 },
        { S("-0"), 0x82, 4, 0, 0 },
        { S("+1"), 0x82, 4, 0, 0 },
        { S(" 1"), 0x82, 4, 0, 0 },
        { S(""), 0x80, 2, 0, 0 },
        { S("hello"), 0x85, 7, 0, 0 },
    };
    vbuf b;
    vbuf_init(&b);
    lp_begin(&b);
    size_t ncases = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < ncases; i++) {
        size_t before = b.len;
        lp_append(&b, cases[i].in, cases[i].n);
        ck_assert_msg((unsigned char)b.data[before] == cases[i].hdr0, "case %zu: 0x%02x", i,
                      (unsigned char)b.data[before]);
        ck_assert_uint_eq(b.len - before, cases[i].size);
        ck_assert_uint_eq(lp_entry_size(cases[i].in, cases[i].n), cases[i].size);
    }
    lp_end(&b, ncases);
    uint64_t count;
    char err[200];
    ck_assert_msg(lp_validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_uint_eq(count, ncases);
    lp_iter it;
    lp_iter_init(&it, (unsigned char *)b.data);
    blob_ent e;
    for (size_t i = 0; i < ncases; i++) {
        ck_assert(lp_iter_next(&it, &e));
        ck_assert_int_eq(e.is_int, cases[i].is_int);
        if (e.is_int) ck_assert_int_eq(e.v, cases[i].v);
        else ck_assert(e.n == cases[i].n && memcmp(e.p, cases[i].in, e.n) == 0);
    }
    ck_assert(!lp_iter_next(&it, &e));
    vbuf_free(&b);
}
END_TEST

/* Redis's bytes for a small listpack (lpNew, lpAppend "a", "1024", "-5"). */
START_TEST(test_lp_exact_bytes) {
    static const unsigned char want[] = {
        0x10, 0, 0, 0, 3, 0,
        0x81, 'a', 0x02,
        0xC4, 0x00, 0x02,
        0xDF, 0xFB, 0x02,
        0xFF,
    };
    vbuf b;
    vbuf_init(&b);
    lp_begin(&b);
    lp_append(&b, S("a"));
    lp_append(&b, S("1024"));
    lp_append_int(&b, -5);
    lp_end(&b, 3);
    ck_assert_uint_eq(b.len, sizeof want);
    ck_assert(memcmp(b.data, want, sizeof want) == 0);
    vbuf_free(&b);
}
END_TEST

/* Strings whose entries sit at the back-length's size boundaries (an entry
 * of 127 bytes has a 1-byte back-length, 128: 2, 16382: 2, 16383: 3) and at
 * the string encodings' (63/64, 4095/4096 bytes). */
START_TEST(test_lp_backlen_boundaries) {
    static const size_t lens[] = { 63, 64, 125, 126, 4095, 4096, 16377, 16378, 70000 };
    static const size_t sizes[] = { 64 + 1, 66 + 1, 127 + 1, 128 + 2, 4097 + 2, 4101 + 2,
                                    16382 + 2, 16383 + 3, 70005 + 3 };
    vbuf b;
    vbuf_init(&b);
    lp_begin(&b);
    char *s = xmalloc(70000);
    memset(s, 'x', 70000);
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        size_t before = b.len;
        lp_append(&b, s, lens[i]);
        ck_assert_msg(b.len - before == sizes[i], "len %zu: %zu", lens[i], b.len - before);
    }
    lp_end(&b, 9);
    uint64_t count;
    char err[200];
    ck_assert_msg(lp_validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == 0,
                  "%s", err);
    lp_iter it;
    lp_iter_init(&it, (unsigned char *)b.data);
    blob_ent e;
    for (size_t i = 0; i < 9; i++) {
        ck_assert(lp_iter_next(&it, &e));
        ck_assert(!e.is_int && e.n == lens[i]);
    }
    free(s);
    vbuf_free(&b);
}
END_TEST

/* A valid blob changed by f must be refused with a message containing want. */
static void expect_bad(int (*validate)(const unsigned char *, size_t, uint64_t *, char *, size_t),
                       const vbuf *good, void (*f)(vbuf *), const char *want) {
    vbuf b;
    vbuf_init(&b);
    vbuf_append(&b, good->data, good->len);
    f(&b);
    uint64_t count;
    char err[200] = "";
    ck_assert_msg(validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == -1,
                  "accepted (want %s)", want);
    ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
    vbuf_free(&b);
}

static void set_u32(vbuf *b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; i++) b->data[at + (size_t)i] = (char)(v >> (8 * i));
}

static void m_truncate(vbuf *b) { b->len--; }
static void m_lp_total(vbuf *b) { set_u32(b, 0, (uint32_t)b->len + 1); }
static void m_lp_count(vbuf *b) { b->data[4] = 9; }
static void m_lp_eof(vbuf *b) { b->data[b->len - 1] = 0; }
static void m_lp_enc(vbuf *b) { b->data[LP_HDR] = (char)0xF5; }
static void m_lp_backlen(vbuf *b) { b->data[LP_HDR + 2] = 0x05; }   /* "a" entry's */
static void m_lp_strlen(vbuf *b) { b->data[LP_HDR] = (char)(0x80 | 40); }
static void m_lp_short(vbuf *b) { b->len = 5; }
static void m_lp_32len(vbuf *b) {   /* a 32-bit string length of 4 GB */
    b->data[LP_HDR] = (char)0xF0;
    set_u32(b, LP_HDR + 1, 0xFFFFFFF0u);
}

static void small_lp(vbuf *b) {
    lp_begin(b);
    lp_append(b, S("a"));
    lp_append(b, S("1024"));
    lp_append(b, S("hello world"));
    lp_end(b, 3);
}

START_TEST(test_lp_corrupt) {
    vbuf g;
    vbuf_init(&g);
    small_lp(&g);
    expect_bad(lp_validate, &g, m_truncate, "header says");
    expect_bad(lp_validate, &g, m_lp_total, "header says");
    expect_bad(lp_validate, &g, m_lp_count, "counts 9 entries, it holds 3");
    expect_bad(lp_validate, &g, m_lp_eof, "does not end with 0xff");
    expect_bad(lp_validate, &g, m_lp_enc, "bad encoding 0xf5");
    expect_bad(lp_validate, &g, m_lp_backlen, "back-length");
    expect_bad(lp_validate, &g, m_lp_strlen, "run past the end");
    expect_bad(lp_validate, &g, m_lp_short, "shorter than its header");
    expect_bad(lp_validate, &g, m_lp_32len, "run past the end");
    /* the unknown count (65535) is accepted */
    g.data[4] = (char)0xFF;
    g.data[5] = (char)0xFF;
    uint64_t count;
    char err[200];
    ck_assert_int_eq(lp_validate((unsigned char *)g.data, g.len, &count, err, sizeof err), 0);
    ck_assert_uint_eq(count, 3);
    vbuf_free(&g);
}
END_TEST

START_TEST(test_zl_encodings) {
    static const struct { const char *in; size_t n; unsigned char enc; size_t dlen; } cases[] = {
        { S("0"), 0xF1, 0 }, { S("12"), 0xFD, 0 }, { S("13"), 0xFE, 1 }, { S("-128"), 0xFE, 1 },
        { S("128"), 0xC0, 2 }, { S("-32768"), 0xC0, 2 }, { S("32768"), 0xF0, 3 },
        { S("-8388608"), 0xF0, 3 }, { S("8388608"), 0xD0, 4 }, { S("-2147483648"), 0xD0, 4 },
        { S("2147483648"), 0xE0, 8 }, { S("-9223372036854775808"), 0xE0, 8 },
        { S("x"), 0x01, 1 }, { S("012"), 0x03, 3 },
    };
    size_t nc = sizeof cases / sizeof cases[0];
    vbuf b;
    vbuf_init(&b);
    zl_begin(&b);
    char *big = xmalloc(20000);
    memset(big, 'y', 20000);
    for (size_t i = 0; i < nc; i++) {
        size_t before = b.len;
        zl_append(&b, cases[i].in, cases[i].n);
        /* prevlen (1 byte: every entry so far is short), encoding, data */
        ck_assert_msg((unsigned char)b.data[before + 1] == cases[i].enc, "case %zu", i);
        ck_assert_uint_eq(b.len - before, 2 + cases[i].dlen);
    }
    zl_append(&b, big, 63);      /* 6-bit length */
    zl_append(&b, big, 300);     /* 14-bit length; the next prevlen takes 5 bytes */
    zl_append(&b, big, 20000);   /* 32-bit length */
    zl_append(&b, S("7"));
    zl_end(&b, nc + 4);
    uint64_t count;
    char err[200];
    ck_assert_msg(zl_validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_uint_eq(count, nc + 4);
    zl_iter it;
    zl_iter_init(&it, (unsigned char *)b.data);
    blob_ent e;
    for (size_t i = 0; i < nc; i++) {
        ck_assert(zl_iter_next(&it, &e));
        char buf[OBJ_INTBUF];
        size_t l;
        const char *p = blob_ent_str(&e, buf, &l);
        ck_assert(l == cases[i].n && memcmp(p, cases[i].in, l) == 0);
    }
    static const size_t lens[] = { 63, 300, 20000 };
    for (int i = 0; i < 3; i++) {
        ck_assert(zl_iter_next(&it, &e));
        ck_assert(!e.is_int && e.n == lens[i]);
    }
    ck_assert(zl_iter_next(&it, &e) && e.is_int && e.v == 7);
    ck_assert(!zl_iter_next(&it, &e));

    /* corrupt forms */
    vbuf g;
    vbuf_init(&g);
    zl_begin(&g);
    zl_append(&g, S("a"));
    zl_append(&g, S("bb"));
    zl_append(&g, S("300"));
    zl_end(&g, 3);
    ck_assert_int_eq(zl_validate((unsigned char *)g.data, g.len, &count, err, sizeof err), 0);
    expect_bad(zl_validate, &g, m_truncate, "header says");
    vbuf_reset(&b);
    vbuf_append(&b, g.data, g.len);
    free(big);
    vbuf_free(&b);
    vbuf_free(&g);
}
END_TEST

static void zl_good(vbuf *g) {
    zl_begin(g);
    zl_append(g, S("a"));
    zl_append(g, S("bb"));
    zl_append(g, S("300"));
    zl_end(g, 3);
}
static void m_zl_tail(vbuf *b) { set_u32(b, 4, ZL_HDR); }
static void m_zl_tail_far(vbuf *b) { set_u32(b, 4, 1000); }
static void m_zl_count(vbuf *b) { b->data[8] = 2; }
static void m_zl_prevlen(vbuf *b) { b->data[ZL_HDR + 3] = 7; }   /* second entry's */
static void m_zl_enc(vbuf *b) { b->data[ZL_HDR + 1] = (char)0xC1; }
static void m_zl_end(vbuf *b) { b->data[b->len - 1] = 0; }
static void m_zl_strlen(vbuf *b) { b->data[ZL_HDR + 1] = 0x30; }
static void m_zl_prevff(vbuf *b) { b->data[ZL_HDR] = (char)0xFF; b->data[ZL_HDR + 1] = 1; }

START_TEST(test_zl_corrupt) {
    vbuf g;
    vbuf_init(&g);
    zl_good(&g);
    expect_bad(zl_validate, &g, m_zl_tail, "tail offset");
    expect_bad(zl_validate, &g, m_zl_tail_far, "out of range");
    expect_bad(zl_validate, &g, m_zl_count, "counts 2 entries, it holds 3");
    expect_bad(zl_validate, &g, m_zl_prevlen, "prevlen 7");
    expect_bad(zl_validate, &g, m_zl_enc, "bad encoding 0xc1");
    expect_bad(zl_validate, &g, m_zl_end, "does not end");
    expect_bad(zl_validate, &g, m_zl_strlen, "run past the end");
    expect_bad(zl_validate, &g, m_zl_prevff, "prevlen byte 0xff");
    vbuf_free(&g);
}
END_TEST

START_TEST(test_intset) {
    static const int64_t v16[] = { -32768, -1, 0, 32767 };
    static const int64_t v32[] = { -5, 32768, 2147483647 };
    static const int64_t v64[] = { INT64_MIN, 0, 2147483648LL, INT64_MAX };
    const int64_t *sets[] = { v16, v32, v64 };
    size_t ns[] = { 4, 3, 4 };
    uint32_t widths[] = { 2, 4, 8 };
    vbuf b;
    vbuf_init(&b);
    uint64_t count;
    char err[200];
    for (int s = 0; s < 3; s++) {
        is_encode(&b, sets[s], ns[s]);
        ck_assert_uint_eq(b.len, IS_HDR + ns[s] * widths[s]);
        ck_assert_uint_eq((unsigned char)b.data[0], widths[s]);
        ck_assert_msg(is_validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == 0,
                      "%s", err);
        ck_assert_uint_eq(count, ns[s]);
        for (size_t i = 0; i < ns[s]; i++)
            ck_assert_int_eq(is_get((unsigned char *)b.data, i), sets[s][i]);
    }
    /* Redis's bytes for SADD s 1 2 3: encoding 2, length 3, 1 2 3 */
    static const unsigned char want[] = { 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0, 3, 0 };
    static const int64_t v123[] = { 1, 2, 3 };
    is_encode(&b, v123, 3);
    ck_assert(b.len == sizeof want && memcmp(b.data, want, sizeof want) == 0);
    /* damage */
    struct { unsigned char bytes[24]; size_t n; const char *want; } bad[] = {
        { { 3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0 }, 11, "encoding 3" },
        { { 2, 0, 0, 0, 2, 0, 0, 0, 2, 0, 1, 0 }, 12, "ascending" },
        { { 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 1, 0 }, 12, "ascending" },
        { { 2, 0, 0, 0, 3, 0, 0, 0, 1, 0, 2, 0 }, 12, "3 2-byte integers in 12 bytes" },
        { { 2, 0, 0, 0, 0, 0, 0, 0 }, 8, "empty" },
        { { 2, 0, 0 }, 3, "shorter" },
        { { 8, 0, 0, 0, 0xff, 0xff, 0xff, 0xff }, 8, "integers in 8 bytes" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        ck_assert_int_eq(is_validate(bad[i].bytes, bad[i].n, &count, err, sizeof err), -1);
        ck_assert_msg(strstr(err, bad[i].want), "case %zu: %s", i, err);
    }
    vbuf_free(&b);
}
END_TEST

static void m_zm_count(vbuf *b) { b->data[0] = 5; }
static void m_zm_end(vbuf *b) { b->data[b->len - 1] = 0; }
static void m_zm_vlen(vbuf *b) {   /* first value's length: 5-byte form, 4 GB */
    b->data[4] = (char)254;
    for (int i = 5; i < 9; i++) b->data[i] = (char)0xFF;
}
static void m_zm_empty(vbuf *b) { b->len = 2; b->data[0] = 0; b->data[1] = (char)0xFF; }

START_TEST(test_zipmap) {
    vbuf b;
    vbuf_init(&b);
    char *big = xmalloc(300);
    memset(big, 'z', 300);
    zm_begin(&b);
    zm_append(&b, S("f1"), S("v1"));
    zm_append(&b, big, 300, S("1234"));
    zm_append(&b, S("f3"), big, 254);
    zm_end(&b, 3);
    uint64_t count;
    char err[200];
    ck_assert_msg(zm_validate((unsigned char *)b.data, b.len, &count, err, sizeof err) == 0,
                  "%s", err);
    ck_assert_uint_eq(count, 3);
    zm_iter it;
    zm_iter_init(&it, (unsigned char *)b.data);
    blob_ent k, v;
    ck_assert(zm_iter_next(&it, &k, &v));
    ck_assert(k.n == 2 && !memcmp(k.p, "f1", 2) && v.n == 2 && !memcmp(v.p, "v1", 2));
    ck_assert(zm_iter_next(&it, &k, &v));
    ck_assert(k.n == 300 && v.n == 4 && !memcmp(v.p, "1234", 4));
    ck_assert(zm_iter_next(&it, &k, &v));
    ck_assert(k.n == 2 && v.n == 254);
    ck_assert(!zm_iter_next(&it, &k, &v));
    /* free bytes after a value are skipped */
    vbuf f;
    vbuf_init(&f);
    static const unsigned char with_free[] = { 1, 1, 'a', 1, 2, 'b', 'x', 'x', 0xFF };
    ck_assert_int_eq(zm_validate(with_free, sizeof with_free, &count, err, sizeof err), 0);
    zm_iter_init(&it, with_free);
    ck_assert(zm_iter_next(&it, &k, &v) && v.n == 1 && v.p[0] == 'b');
    ck_assert(!zm_iter_next(&it, &k, &v));
    static const unsigned char free_past[] = { 1, 1, 'a', 1, 50, 'b', 'x', 'x', 0xFF };
    ck_assert_int_eq(zm_validate(free_past, sizeof free_past, &count, err, sizeof err), -1);
    ck_assert(strstr(err, "bad value length"));

    expect_bad(zm_validate, &b, m_zm_count, "counts 5 pairs");
    expect_bad(zm_validate, &b, m_zm_end, "does not end");
    expect_bad(zm_validate, &b, m_zm_vlen, "bad value length");
    expect_bad(zm_validate, &b, m_zm_empty, "empty");
    expect_bad(zm_validate, &b, m_truncate, "");
    free(big);
    vbuf_free(&f);
    vbuf_free(&b);
}
END_TEST

/* Random damage to valid blobs: a validator says yes or no, and what it
 * accepts iterates within the blob (ASan watches the reads: each mutated
 * blob is copied to a buffer of exactly its size). */
static void walk_any(int kind, const unsigned char *p, uint64_t count) {
    blob_ent e, e2;
    uint64_t n = 0;
    if (kind == 0) { lp_iter it; lp_iter_init(&it, p); while (lp_iter_next(&it, &e)) n++; }
    if (kind == 1) { zl_iter it; zl_iter_init(&it, p); while (zl_iter_next(&it, &e)) n++; }
    if (kind == 2) { for (uint64_t i = 0; i < count; i++) (void)is_get(p, i); n = count; }
    if (kind == 3) { zm_iter it; zm_iter_init(&it, p); while (zm_iter_next(&it, &e, &e2)) n++; }
    ck_assert_uint_eq(n, count);
}

START_TEST(test_blob_mutations) {
    int (*val[])(const unsigned char *, size_t, uint64_t *, char *, size_t) = {
        lp_validate, zl_validate, is_validate, zm_validate };
    vbuf good[4];
    for (int k = 0; k < 4; k++) vbuf_init(&good[k]);
    lp_begin(&good[0]);
    zl_begin(&good[1]);
    zm_begin(&good[3]);
    static const char *const items[] = { "a", "-7", "300", "70000", "hello world", "0", "99999999999" };
    for (int i = 0; i < 7; i++) {
        lp_append(&good[0], items[i], strlen(items[i]));
        zl_append(&good[1], items[i], strlen(items[i]));
        zm_append(&good[3], items[i], strlen(items[i]), items[6 - i], strlen(items[6 - i]));
    }
    lp_end(&good[0], 7);
    zl_end(&good[1], 7);
    zm_end(&good[3], 7);
    static const int64_t iv[] = { -70000, -3, 0, 5, 100000 };
    is_encode(&good[2], iv, 5);
    srand(12345);
    uint64_t count;
    char err[200];
    int accepted = 0, refused = 0;
    for (int round = 0; round < 20000; round++) {
        int k = round % 4;
        size_t n = good[k].len;
        unsigned char *m = xmalloc(n);
        memcpy(m, good[k].data, n);
        int flips = 1 + rand() % 3;
        for (int f = 0; f < flips; f++) m[(size_t)rand() % n] = (unsigned char)rand();
        size_t len = rand() % 5 == 0 ? (size_t)rand() % n : n;
        unsigned char *exact = xmalloc(len ? len : 1);
        memcpy(exact, m, len);
        if (val[k](exact, len, &count, err, sizeof err) == 0) {
            walk_any(k, exact, count);
            accepted++;
        } else {
            ck_assert(err[0] != '\0');
            refused++;
        }
        free(exact);
        free(m);
    }
    ck_assert_int_gt(refused, 1000);
    ck_assert_int_gt(accepted, 10);
    for (int k = 0; k < 4; k++) vbuf_free(&good[k]);
}
END_TEST

/* ==== (2) values through the DUMP encoding ==== */

/* A value's contents as one canonical string: lists in order, zsets in
 * (score, member) order, hashes and sets sorted. */
static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct strs { char **v; size_t n, cap; } strs;

static void strs_add(strs *s, const char *a, size_t al, const char *b, size_t bl) {
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->v = xrealloc(s->v, s->cap * sizeof *s->v);
    }
    char *x = xmalloc(al + bl + 2);
    memcpy(x, a, al);
    x[al] = '=';
    if (b) memcpy(x + al + 1, b, bl);
    x[al + 1 + (b ? bl : 0)] = '\0';
    s->v[s->n++] = x;
}

static char *strs_join(strs *s, int sort) {
    if (sort) qsort(s->v, s->n, sizeof *s->v, cmp_str);
    vbuf b;
    vbuf_init(&b);
    for (size_t i = 0; i < s->n; i++) {
        vbuf_append_str(&b, s->v[i]);
        vbuf_append(&b, "\n", 1);
        free(s->v[i]);
    }
    free(s->v);
    vbuf_append(&b, "", 1);
    return b.data;
}

static char *render(const obj *o) {
    strs s = {0};
    const char *p, *q;
    size_t pl, ql;
    if (o->type == OBJ_HASH) {
        hash_iter it;
        hash_iter_init(&it, o);
        while (hash_iter_next(&it, &p, &pl, &q, &ql)) strs_add(&s, p, pl, q, ql);
    } else if (o->type == OBJ_LIST) {
        list_iter it;
        list_iter_init(&it, o);
        while (list_iter_next(&it, &p, &pl)) strs_add(&s, p, pl, NULL, 0);
    } else if (o->type == OBJ_SET) {
        set_iter it;
        set_iter_init(&it, o);
        while (set_iter_next(&it, &p, &pl)) strs_add(&s, p, pl, NULL, 0);
    } else {
        zset_iter it;
        zset_iter_init(&it, o);
        double sc;
        while (zset_iter_next(&it, &p, &pl, &sc)) {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", sc);
            strs_add(&s, p, pl, buf, (size_t)n);
        }
    }
    return strs_join(&s, o->type == OBJ_HASH || o->type == OBJ_SET);
}

/* DUMP-encodes v (no footer), decodes it back: the same contents and
 * encoding. Returns the payload (caller frees). */
static unsigned char *roundtrip(const obj *v, int compress, size_t *len) {
    sink *out = sink_mem_open("test");
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_write_value(out, v, compress, err, sizeof err) == 0, "%s", err);
    const unsigned char *p = sink_mem_data(out, len);
    unsigned char *copy = xmalloc(*len);
    memcpy(copy, p, *len);
    sink_free(out);
    source *src = source_mem_open(copy, *len, "payload");
    obj *back = NULL;
    ck_assert_msg(rdb_read_value(src, &back, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(source_offset(src), *len);
    source_free(src);
    ck_assert_int_eq(back->type, v->type);
    ck_assert_int_eq(back->enc, v->enc);
    char *a = render(v), *b = render(back);
    ck_assert_str_eq(a, b);
    free(a);
    free(b);
    obj_decref(back);
    return copy;
}

static char *num(char *buf, long long i) {
    ll_to_str(buf, i);
    return buf;
}

static obj *mk_hash(size_t n, size_t vlen) {
    hash_pair *p = xmalloc(n * sizeof *p);
    char **keep = xmalloc(2 * n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        char f[32];
        snprintf(f, sizeof f, "f%zu", i);
        keep[2 * i] = xstrdup(f);
        keep[2 * i + 1] = xmalloc(vlen + 1);
        if (i % 3 == 0) snprintf(keep[2 * i + 1], vlen + 1, "%zu", i * 1000);
        else memset(keep[2 * i + 1], 'a' + (int)(i % 26), vlen), keep[2 * i + 1][vlen] = 0;
        p[i] = (hash_pair){keep[2 * i], strlen(keep[2 * i]), keep[2 * i + 1],
                           strlen(keep[2 * i + 1])};
    }
    obj *h = hash_from_pairs(p, n);
    for (size_t i = 0; i < 2 * n; i++) free(keep[i]);
    free(keep);
    free(p);
    return h;
}

static obj *mk_list(size_t n, size_t every_big, size_t big) {
    list_elem *e = xmalloc(n * sizeof *e);
    char **keep = xmalloc(n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        size_t l = every_big && i % every_big == every_big - 1 ? big : 1 + i % 20;
        keep[i] = xmalloc(l + 1);
        if (i % 4 == 0) snprintf(keep[i], l + 1, "%lld", (long long)i * 7919 - 100000);
        else memset(keep[i], 'a' + (int)(i % 26), l), keep[i][l] = 0;
        e[i] = (list_elem){keep[i], strlen(keep[i])};
    }
    obj *l = list_from_elems(e, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(e);
    return l;
}

static obj *mk_set(size_t n, int ints) {
    set_member *m = xmalloc(n * sizeof *m);
    char **keep = xmalloc(n * sizeof *keep);
    char buf[32];
    for (size_t i = 0; i < n; i++) {
        if (ints) keep[i] = xstrdup(num(buf, (long long)(i * 2654435761u % 100000000) - 50000000));
        else { snprintf(buf, sizeof buf, "m%zu", i); keep[i] = xstrdup(buf); }
        m[i] = (set_member){keep[i], strlen(keep[i])};
    }
    obj *s = set_from_members(m, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(m);
    return s;
}

static obj *mk_zset(size_t n) {
    zset_member *m = xmalloc(n * sizeof *m);
    char **keep = xmalloc(n * sizeof *keep);
    for (size_t i = 0; i < n; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "z%zu", i);
        keep[i] = xstrdup(buf);
        double sc = i % 5 == 0 ? (double)i : i % 5 == 1 ? -(double)i / 3.0
                  : i % 5 == 2 ? 1e300 * (double)i : i % 5 == 3 ? 0.1 : 123456789012345.0;
        if (i == 7) sc = INFINITY;
        if (i == 8) sc = -INFINITY;
        m[i] = (zset_member){keep[i], strlen(keep[i]), sc};
    }
    obj *z = zset_from_members(m, n);
    for (size_t i = 0; i < n; i++) free(keep[i]);
    free(keep);
    free(m);
    return z;
}

START_TEST(test_values_roundtrip) {
    struct { obj *v; int enc; unsigned type; } cases[] = {
        { mk_hash(10, 5), OBJ_ENC_LISTPACK, 16 },
        { mk_hash(1000, 10), OBJ_ENC_HASHTABLE, 4 },
        { mk_hash(3, 100), OBJ_ENC_HASHTABLE, 4 },
        { mk_list(5, 0, 0), OBJ_ENC_QUICKLIST, 18 },
        { mk_list(5000, 0, 0), OBJ_ENC_QUICKLIST, 18 },
        { mk_list(300, 7, 10000), OBJ_ENC_QUICKLIST, 18 },
        { mk_set(100, 1), OBJ_ENC_INTSET, 11 },
        { mk_set(1000, 1), OBJ_ENC_HASHTABLE, 2 },
        { mk_set(50, 0), OBJ_ENC_HASHTABLE, 2 },
        { mk_zset(20), OBJ_ENC_LISTPACK, 17 },
        { mk_zset(2000), OBJ_ENC_SKIPLIST, 5 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_msg(cases[i].v->enc == cases[i].enc, "case %zu: enc %d", i, cases[i].v->enc);
        for (int lzf = 0; lzf < 2; lzf++) {
            size_t len;
            unsigned char *p = roundtrip(cases[i].v, lzf ? RDB_COMPRESS_LZF : 0, &len);
            ck_assert_uint_eq(p[0], cases[i].type);
            free(p);
        }
        obj_decref(cases[i].v);
    }
}
END_TEST

/* Reads a payload; -1 expected with want in the message. */
static void expect_value_refused(const void *p, size_t n, const char *want) {
    source *src = source_mem_open(p, n, "payload");
    obj *v = NULL;
    char err[RDB_ERRLEN] = "";
    int rc = rdb_read_value(src, &v, err, sizeof err);
    source_free(src);
    if (rc == 0) obj_decref(v);
    ck_assert_msg(rc == -1, "accepted, want '%s'", want);
    ck_assert_msg(strstr(err, want), "'%s' lacks '%s'", err, want);
}

START_TEST(test_values_refused) {
    vbuf b;
    vbuf_init(&b);
    /* a hash listpack with an odd number of entries */
    vbuf lp;
    vbuf_init(&lp);
    lp_begin(&lp);
    lp_append(&lp, S("f"));
    lp_end(&lp, 1);
    unsigned char t = 16, l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "hash (listpack): an odd number of entries");
    /* duplicated field */
    lp_begin(&lp);
    lp_append(&lp, S("f"));
    lp_append(&lp, S("1"));
    lp_append(&lp, S("f"));
    lp_append(&lp, S("2"));
    lp_end(&lp, 4);
    vbuf_reset(&b);
    l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "duplicated field");
    /* zset listpack with a score that is no number */
    lp_begin(&lp);
    lp_append(&lp, S("m"));
    lp_append(&lp, S("abc"));
    lp_end(&lp, 2);
    vbuf_reset(&b);
    t = 17;
    l = (unsigned char)lp.len;
    vbuf_append(&b, &t, 1);
    vbuf_append(&b, &l, 1);
    vbuf_append(&b, lp.data, lp.len);
    expect_value_refused(b.data, b.len, "score \"abc\" is not a number");
    /* set (plain) with a duplicate; a zset_2 with a NaN score */
    expect_value_refused("\x02\x02\x01x\x01x", 6, "duplicated member");
    expect_value_refused("\x05\x01\x01m\x00\x00\x00\x00\x00\x00\xf8\x7f", 12, "NaN score");
    /* a length far beyond the payload; an empty collection; a bad container */
    expect_value_refused("\x04\x80\x10\x00\x00\x00", 6, "exceeds the");
    expect_value_refused("\x02\x00", 2, "empty value");
    expect_value_refused("\x12\x01\x03\x01x", 5, "bad node container 3");
    /* a listpack blob given as an integer */
    expect_value_refused("\x10\xc0\x05", 3, "is an integer, not a blob");
    /* a damaged intset */
    expect_value_refused("\x0b\x0a\x02\x00\x00\x00\x02\x00\x00\x00\x05\x00", 12,
                         "set (intset): intset of 2");
    vbuf_free(&lp);
    vbuf_free(&b);
}
END_TEST

/* Empty strings as the first element of plain forms (the arena had no
 * block yet: UBSan caught a memcpy to NULL). */
START_TEST(test_empty_elements) {
    static const struct { const char *p; size_t n; int type; const char *want; } cases[] = {
        { "\x02\x02\x00\x01x", 5, OBJ_SET, "=\nx=\n" },
        { "\x04\x01\x00\x00", 4, OBJ_HASH, "=\n" },
        { "\x01\x02\x00\x00", 4, OBJ_LIST, "=\n=\n" },
        { "\x05\x01\x00\x00\x00\x00\x00\x00\x00\xf0\x3f", 12, OBJ_ZSET, "=1\n" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        source *src = source_mem_open(cases[i].p, cases[i].n, "payload");
        obj *v = NULL;
        char err[RDB_ERRLEN];
        ck_assert_msg(rdb_read_value(src, &v, err, sizeof err) == 0, "case %zu: %s", i, err);
        source_free(src);
        ck_assert_int_eq(v->type, cases[i].type);
        char *got = render(v);
        ck_assert_str_eq(got, cases[i].want);
        free(got);
        obj_decref(v);
    }
}
END_TEST

/* Quicklist nodes: counts of elements per node as Redis 7.0 fills them
 * (an element joins a node while node bytes + its length + 8 stay within
 * the limit). 1000 elements "aaaaa" (entries of 7 bytes): fill -2 (8 KB
 * nodes) holds them all, fill -1 (4 KB) 584 per node (7 + 7 * 583 + 5 + 8
 * <= 4096), fill 3 three per node. */
static uint64_t node_count(const unsigned char *p, size_t len) {
    /* type byte, then a length: small payloads use 1-byte or 2-byte forms */
    ck_assert_uint_eq(p[0], 18);
    ck_assert(len > 2);
    if ((p[1] >> 6) == 0) return p[1] & 0x3f;
    ck_assert_uint_eq(p[1] >> 6, 1);
    return ((uint64_t)(p[1] & 0x3f) << 8) | p[2];
}

START_TEST(test_quicklist_nodes) {
    list_elem *e = xmalloc(1000 * sizeof *e);
    for (int i = 0; i < 1000; i++) e[i] = (list_elem){"aaaaa", 5};
    obj *l = list_from_elems(e, 1000);
    struct { int fill; uint64_t nodes; } cases[] = {
        { 3, 334 }, { 1, 1000 }, { 0, 1000 }, { 128, 8 },
        { -1, 2 }, { -2, 1 }, { -5, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rdb_set_writer_opts(cases[i].fill, 0);
        size_t len;
        unsigned char *p = roundtrip(l, 0, &len);
        ck_assert_msg(node_count(p, len) == cases[i].nodes, "fill %d: %llu nodes", cases[i].fill,
                      (unsigned long long)node_count(p, len));
        free(p);
    }
    rdb_set_writer_opts(-2, 0);
    obj_decref(l);
    /* big elements: alone in their nodes; past packed_threshold: PLAIN */
    e[0] = (list_elem){"x", 1};
    char *big = xmalloc(9000);
    memset(big, 'b', 9000);
    e[1] = (list_elem){big, 9000};
    e[2] = (list_elem){"y", 1};
    l = list_from_elems(e, 3);
    size_t len;
    unsigned char *p = roundtrip(l, 0, &len);
    ck_assert_uint_eq(node_count(p, len), 3);
    ck_assert_uint_eq(p[2], QL_NODE_PACKED);
    free(p);
    rdb_set_packed_threshold(100);
    p = roundtrip(l, 0, &len);
    ck_assert_uint_eq(node_count(p, len), 3);
    /* node 2: container 1 (PLAIN), then the 9000 bytes as a string */
    size_t n1 = 4 + p[3];   /* type, count, container, length byte, blob */
    ck_assert_uint_eq(p[n1], QL_NODE_PLAIN);
    free(p);
    rdb_set_packed_threshold(UINT64_C(1) << 30);
    obj_decref(l);
    free(big);
    free(e);
}
END_TEST

/* A file with an empty set (skipped and counted, as Redis skips empty
 * keys), a hash and a damaged list: the error names the list's key. */
static int got_keys;

static int on_key(void *priv, int dbi, obj *key, obj *val, int64_t expire, char *err,
                  size_t errlen) {
    (void)priv; (void)dbi; (void)expire; (void)err; (void)errlen;
    ck_assert(key->len == 1 && key->data[0] == 'h' && val->type == OBJ_HASH);
    got_keys++;
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static void file_bytes(vbuf *f, int damaged) {
    vbuf_reset(f);
    vbuf_append(f, "REDIS0010", 9);
    vbuf_append(f, "\xfe\x00", 2);                      /* SELECTDB 0 */
    vbuf_append(f, "\x02\x01" "e\x00", 4);                /* SET "e", 0 members */
    vbuf_append(f, "\x04\x01" "h\x01\x01" "f\x01" "v", 8);      /* HASH "h" f=v */
    if (damaged) vbuf_append(f, "\x12\x05" "mylst\x01\x02\x03" "abc", 12);   /* a 3-byte "listpack" */
    vbuf_append(f, "\xff", 1);
    uint64_t crc = crc64(0, (const unsigned char *)f->data, f->len);
    for (int i = 0; i < 8; i++) {
        unsigned char c = (unsigned char)(crc >> (8 * i));
        vbuf_append(f, &c, 1);
    }
}

START_TEST(test_file_empty_and_damaged) {
    vbuf f;
    vbuf_init(&f);
    rdb_load_cb cb = {.key = on_key};
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    for (int damaged = 0; damaged < 2; damaged++) {
        file_bytes(&f, damaged);
        source *src = source_mem_open(f.data, f.len, "dump.rdb");
        got_keys = 0;
        int rc = rdb_load(src, 0, &cb, NULL, &st, err, sizeof err);
        source_free(src);
        if (!damaged) {
            ck_assert_msg(rc == 0, "%s", err);
            ck_assert_int_eq(got_keys, 1);
            ck_assert_uint_eq(st.keys_empty, 1);
            ck_assert_uint_eq(st.keys_loaded, 1);
        } else {
            ck_assert_int_eq(rc, -1);
            ck_assert_msg(strstr(err, "dump.rdb: offset 32: key \"mylst\": list (quicklist v2): "
                                      "listpack of 3 bytes is shorter than its header"), "%s", err);
        }
    }
    vbuf_free(&f);
}
END_TEST

/* ==== (3) Redis's DUMP payloads ==== */

static srv *rsrv;
static redisContext *rctx;

static void redis_up(void) {
    rsrv = srv_start_redis("--appendonly no --rdbcompression no");
    rctx = srv_connect(rsrv);
}

static void redis_down(void) {
    if (rctx) redisFree(rctx);
    rctx = NULL;
    if (rsrv) {
        srv_kill9(rsrv);
        srv_stop(rsrv);
    }
    rsrv = NULL;
}

static redisReply *rq(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rctx, fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
    return r;
}

static void rok(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(rctx, fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", fmt, r->str);
    freeReplyObject(r);
}

/* What Redis's commands say the key holds, rendered as render() does. */
static char *redis_render(const char *key, int type) {
    strs s = {0};
    redisReply *r;
    if (type == OBJ_HASH) r = rq("HGETALL %s", key);
    else if (type == OBJ_LIST) r = rq("LRANGE %s 0 -1", key);
    else if (type == OBJ_SET) r = rq("SMEMBERS %s", key);
    else r = rq("ZRANGE %s 0 -1 WITHSCORES", key);
    int pairs = type == OBJ_HASH || type == OBJ_ZSET;
    for (size_t i = 0; i < r->elements; i += pairs ? 2 : 1) {
        redisReply *a = r->element[i];
        if (!pairs) {
            strs_add(&s, a->str, a->len, NULL, 0);
        } else if (type == OBJ_HASH) {
            strs_add(&s, a->str, a->len, r->element[i + 1]->str, r->element[i + 1]->len);
        } else {
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", strtod(r->element[i + 1]->str, NULL));
            strs_add(&s, a->str, a->len, buf, (size_t)n);
        }
    }
    freeReplyObject(r);
    return strs_join(&s, type == OBJ_HASH || type == OBJ_SET);
}

/* DUMPs key from Redis, checks its first byte is rdbtype, decodes it with
 * our reader and compares with Redis's view; then our encoding of what we
 * decoded must be Redis's payload byte for byte when `same_bytes`. */
static void check_dump(const char *key, int type, unsigned rdbtype, int same_bytes) {
    redisReply *r = rq("DUMP %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_msg((unsigned char)r->str[0] == rdbtype, "%s: type %u, want %u", key,
                  (unsigned char)r->str[0], rdbtype);
    size_t n = r->len - 10;   /* the footer: version and CRC64 */
    source *src = source_mem_open(r->str, n, "redis DUMP");
    obj *v = NULL;
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_read_value(src, &v, err, sizeof err) == 0, "%s: %s", key, err);
    ck_assert_uint_eq(source_offset(src), n);
    source_free(src);
    ck_assert_int_eq(v->type, type);
    char *want = redis_render(key, type), *got = render(v);
    ck_assert_msg(strcmp(want, got) == 0, "%s differs", key);
    free(want);
    free(got);
    redisReply *enc = rq("OBJECT ENCODING %s", key);
    const char *ours = v->enc == OBJ_ENC_LISTPACK ? "listpack" : v->enc == OBJ_ENC_HASHTABLE
                       ? "hashtable" : v->enc == OBJ_ENC_INTSET ? "intset"
                       : v->enc == OBJ_ENC_SKIPLIST ? "skiplist" : "quicklist";
    ck_assert_str_eq(enc->str, ours);
    freeReplyObject(enc);
    if (same_bytes) {
        sink *out = sink_mem_open("ours");
        ck_assert(rdb_write_value(out, v, 0, err, sizeof err) == 0);
        size_t ol;
        const unsigned char *op = sink_mem_data(out, &ol);
        size_t d = 0;
        while (d < ol && d < n && op[d] == (unsigned char)r->str[d]) d++;
        if (d < n) fprintf(stderr, "%s: first difference at %zu: ours %02x redis %02x\n", key, d,
                           d < ol ? op[d] : 0, (unsigned char)r->str[d]);
        ck_assert_msg(ol == n && memcmp(op, r->str, n) == 0, "%s: our %zu bytes differ from "
                      "Redis's %zu", key, ol, n);
        sink_free(out);
    }
    obj_decref(v);
    freeReplyObject(r);
}

START_TEST(test_redis_dumps) {
    redis_up();
    /* hashes: listpack (ints and strings), hashtable by count and by length */
    rok("HSET hs a 1 b hello c -70000 d 3.5");
    for (int i = 0; i < 600; i++) rok("HSET hb f%d v%d", i, i * 31);
    rok("HSET hl f %s", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
    check_dump("hs", OBJ_HASH, 16, 0);
    check_dump("hb", OBJ_HASH, 4, 0);
    check_dump("hl", OBJ_HASH, 4, 0);
    /* sets: intset of 16/32/64-bit members (same bytes), hashtable */
    rok("SADD s16 5 -3 1000");
    rok("SADD s32 5 -3 100000");
    rok("SADD s64 5 -3 10000000000");
    for (int i = 0; i < 600; i++) rok("SADD sbig %d", i * 3);
    rok("SADD sstr a b c 1");
    check_dump("s16", OBJ_SET, 11, 1);
    check_dump("s32", OBJ_SET, 11, 1);
    check_dump("s64", OBJ_SET, 11, 1);
    check_dump("sbig", OBJ_SET, 2, 0);
    check_dump("sstr", OBJ_SET, 2, 0);
    /* zsets: listpack (same bytes: ordered by score), skiplist */
    rok("ZADD zs 1 a 2.5 b -3 c 1e20 d inf e -inf f 0 g 0.1 h 4503599627370496 i");
    for (int i = 0; i < 200; i++) rok("ZADD zb %d.25 m%d", i, i);
    check_dump("zs", OBJ_ZSET, 17, 1);
    check_dump("zb", OBJ_ZSET, 5, 0);
    /* lists (same bytes): small, many nodes, big elements, and each fill */
    rok("RPUSH l1 a 1 -2 hello 300 70000 5000000000");
    for (int i = 0; i < 3000; i++) rok("RPUSH lmany e%d", i);
    char big[12000];
    memset(big, 'q', sizeof big - 1);
    big[sizeof big - 1] = 0;
    rok("RPUSH lbig a %s b %s c", big, big + 5000);
    check_dump("l1", OBJ_LIST, 18, 1);
    check_dump("lmany", OBJ_LIST, 18, 1);
    check_dump("lbig", OBJ_LIST, 18, 1);
    static const int fills[] = { -1, -3, -4, -5, 1, 5, 100 };
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        rok("CONFIG SET list-max-listpack-size %d", fills[f]);
        rok("DEL lf");
        for (int i = 0; i < 2000; i++) rok("RPUSH lf %d%s", i * 13, i % 3 ? "x" : "");
        rdb_set_writer_opts(fills[f], 0);
        check_dump("lf", OBJ_LIST, 18, 1);
    }
    rdb_set_writer_opts(-2, 0);
    rok("CONFIG SET list-max-listpack-size -2");
    /* PLAIN nodes: Redis makes them for elements of packed_threshold bytes */
    rok("DEBUG QUICKLIST-PACKED-THRESHOLD 100");
    rok("RPUSH lplain a %s b", big);
    rdb_set_packed_threshold(100);
    check_dump("lplain", OBJ_LIST, 18, 1);
    rdb_set_packed_threshold(UINT64_C(1) << 30);
    redis_down();
}
END_TEST

static void teardown(void) { redis_down(); }

static Suite *coll_suite(void) {
    Suite *s = suite_create("rdb_coll");
    TCase *tc = tcase_create("blobs");
    tcase_add_test(tc, test_lp_encodings);
    tcase_add_test(tc, test_lp_exact_bytes);
    tcase_add_test(tc, test_lp_backlen_boundaries);
    tcase_add_test(tc, test_lp_corrupt);
    tcase_add_test(tc, test_zl_encodings);
    tcase_add_test(tc, test_zl_corrupt);
    tcase_add_test(tc, test_intset);
    tcase_add_test(tc, test_zipmap);
    tcase_add_test(tc, test_blob_mutations);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    TCase *tv = tcase_create("values");
    tcase_add_test(tv, test_values_roundtrip);
    tcase_add_test(tv, test_values_refused);
    tcase_add_test(tv, test_quicklist_nodes);
    tcase_add_test(tv, test_file_empty_and_damaged);
    tcase_add_test(tv, test_empty_elements);
    tcase_set_timeout(tv, 120);
    suite_add_tcase(s, tv);
    TCase *tr = tcase_create("redis");
    tcase_add_checked_fixture(tr, NULL, teardown);
    tcase_add_test(tr, test_redis_dumps);
    tcase_set_timeout(tr, 180);
    suite_add_tcase(s, tr);
    return s;
}

int main(void) {
    conf_init(&server.cfg);
    return h_main(coll_suite());
}
