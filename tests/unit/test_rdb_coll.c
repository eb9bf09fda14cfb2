/* test_rdb_coll: the packed blobs inside RDB collections
 * (snapshot/listpack.c): listpack, ziplist, intset and zipmap, every integer
 * and string entry encoding at its boundaries with the bytes Redis writes
 * for them; back-lengths and prev-lengths at their size boundaries; corrupt
 * blobs refused with a reason; random damage never read out of bounds (run
 * it under ASan). Values through the RDB encoding and Redis's DUMP payloads:
 * test_rdb_coll_values. */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listpack.h"
#include "obj.h"
#include "util.h"
#include "vbuf.h"

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

int main(void) {
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
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
