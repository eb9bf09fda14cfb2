/* listpack: listpack, ziplist, intset and zipmap blobs (see listpack.h).
 *
 * Each validator follows its Redis counterpart (lpValidateIntegrity,
 * ziplistValidateIntegrity, intsetValidateIntegrity,
 * zipmapValidateIntegrity, all in their deep form) and says what it found
 * wrong; the iterators then decode without checks. Integers are little
 * endian in every format except the listpack 13-bit and 12-bit forms and the
 * ziplist 14-bit and 32-bit string lengths, which are big endian. */
#include "listpack.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

__attribute__((format(printf, 3, 4)))
static int bad(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static uint64_t rd_le(const unsigned char *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void wr_le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

/* The n-byte little-endian two's complement at p, sign-extended. */
static int64_t rd_sle(const unsigned char *p, int n) {
    uint64_t v = rd_le(p, n);
    if (n < 8 && (v >> (8 * n - 1)) & 1) v |= ~UINT64_C(0) << (8 * n);
    return (int64_t)v;
}

static void app_le(vbuf *b, uint64_t v, int n) {
    unsigned char t[8];
    wr_le(t, v, n);
    vbuf_append(b, t, (size_t)n);
}

static void app_byte(vbuf *b, unsigned v) {
    unsigned char c = (unsigned char)v;
    vbuf_append(b, &c, 1);
}

const char *blob_ent_str(const blob_ent *e, char *buf, size_t *len) {
    if (!e->is_int) {
        *len = e->n;
        return e->p;
    }
    *len = ll_to_str(buf, e->v);
    return buf;
}

/* ==== listpack ==== */

#define LP_EOF 0xFF

static void lp_put_backlen(vbuf *b, uint64_t l) {
    unsigned char t[5];
    size_t n = lp_backlen_size(l);
    /* most significant 7 bits first; every byte but the first has bit 7 */
    for (size_t i = 0; i < n; i++) {
        unsigned shift = (unsigned)(7 * (n - 1 - i));
        t[i] = (unsigned char)((l >> shift) & 127);
        if (i > 0) t[i] |= 128;
    }
    vbuf_append(b, t, n);
}

void lp_begin(vbuf *b) {
    vbuf_reset(b);
    static const unsigned char hdr[LP_HDR];
    vbuf_append(b, hdr, sizeof hdr);
}

void lp_append_int(vbuf *b, long long v) {
    size_t l = lp_int_size(v);
    uint64_t u = (uint64_t)v;
    switch (l) {
    case 1: app_byte(b, (unsigned)v); break;
    case 2:
        u &= 0x1fff;   /* 13-bit two's complement */
        app_byte(b, 0xC0 | (unsigned)(u >> 8));
        app_byte(b, (unsigned)(u & 0xff));
        break;
    case 3: app_byte(b, 0xF1); app_le(b, u, 2); break;
    case 4: app_byte(b, 0xF2); app_le(b, u, 3); break;
    case 5: app_byte(b, 0xF3); app_le(b, u, 4); break;
    default: app_byte(b, 0xF4); app_le(b, u, 8); break;
    }
    lp_put_backlen(b, l);
}

void lp_append(vbuf *b, const char *p, size_t n) {
    long long v;
    if (str_to_ll(p, n, &v)) {
        lp_append_int(b, v);
        return;
    }
    assert(n <= UINT32_MAX);
    if (n < 64) {
        app_byte(b, 0x80 | (unsigned)n);
    } else if (n < 4096) {
        app_byte(b, 0xE0 | (unsigned)(n >> 8));
        app_byte(b, (unsigned)(n & 0xff));
    } else {
        app_byte(b, 0xF0);
        app_le(b, n, 4);
    }
    vbuf_append(b, p, n);
    lp_put_backlen(b, lp_str_size(n));
}

void lp_end(vbuf *b, uint64_t count) {
    app_byte(b, LP_EOF);
    unsigned char *h = (unsigned char *)b->data;
    assert(b->len <= UINT32_MAX);
    wr_le(h, b->len, 4);
    wr_le(h + 4, count < LP_COUNT_UNKNOWN ? count : LP_COUNT_UNKNOWN, 2);
}

/* Bytes of the encoding header at p[0] (lpCurrentEncodedSizeBytes); 0 for a
 * byte that is no encoding. */
static size_t lp_hdr_bytes(unsigned b) {
    if ((b & 0x80) == 0 || (b & 0xC0) == 0x80 || (b & 0xE0) == 0xC0) return 1;
    if ((b & 0xF0) == 0xE0) return 2;
    if (b == 0xF0) return 5;
    if (b >= 0xF1 && b <= 0xF4) return 1;
    return 0;
}

/* Encoding + data bytes of the entry at p, whose header bytes are readable. */
static uint64_t lp_entry_len(const unsigned char *p) {
    unsigned b = p[0];
    if ((b & 0x80) == 0) return 1;
    if ((b & 0xC0) == 0x80) return 1 + (uint64_t)(b & 0x3f);
    if ((b & 0xE0) == 0xC0) return 2;
    if ((b & 0xF0) == 0xE0) return 2 + (((uint64_t)(b & 0x0f) << 8) | p[1]);
    if (b == 0xF0) return 5 + rd_le(p + 1, 4);
    static const uint64_t ints[] = { 3, 4, 5, 9 };   /* 0xF1..0xF4 */
    return ints[b - 0xF1];
}

/* The back-length ending at last (read backwards, lpDecodeBacklen). */
static uint64_t lp_decode_backlen(const unsigned char *last, size_t nbytes) {
    uint64_t v = 0;
    for (size_t i = 0; i < nbytes; i++) v |= (uint64_t)(last[-(ptrdiff_t)i] & 127) << (7 * i);
    return v;
}

int lp_validate(const unsigned char *lp, size_t len, uint64_t *count, char *err,
                size_t errlen) {
    if (len < LP_HDR + 1)
        return bad(err, errlen, "listpack of %zu bytes is shorter than its header", len);
    uint64_t total = rd_le(lp, 4), hdr_count = rd_le(lp + 4, 2);
    if (total != len)
        return bad(err, errlen, "listpack header says %llu bytes, the string has %zu",
                   (unsigned long long)total, len);
    if (lp[len - 1] != LP_EOF) return bad(err, errlen, "listpack does not end with 0xff");
    const unsigned char *p = lp + LP_HDR, *eof = lp + len - 1;
    uint64_t n = 0;
    while (p < eof) {
        size_t off = (size_t)(p - lp), hb = lp_hdr_bytes(p[0]);
        if (hb == 0)
            return bad(err, errlen, "listpack entry %llu at byte %zu: bad encoding 0x%02x",
                       (unsigned long long)n, off, p[0]);
        if (hb > (size_t)(eof - p))
            return bad(err, errlen, "listpack entry %llu at byte %zu: header runs past the end",
                       (unsigned long long)n, off);
        uint64_t el = lp_entry_len(p);
        size_t bl = lp_backlen_size(el);
        if (el > (uint64_t)(eof - p) || bl > (uint64_t)(eof - p) - el)
            return bad(err, errlen, "listpack entry %llu at byte %zu: %llu bytes run past the end",
                       (unsigned long long)n, off, (unsigned long long)(el + bl));
        if (lp_decode_backlen(p + el + bl - 1, bl) != el)
            return bad(err, errlen,
                       "listpack entry %llu at byte %zu: back-length does not match its %llu bytes",
                       (unsigned long long)n, off, (unsigned long long)el);
        p += el + bl;
        n++;
    }
    if (hdr_count != LP_COUNT_UNKNOWN && hdr_count != n)
        return bad(err, errlen, "listpack header counts %llu entries, it holds %llu",
                   (unsigned long long)hdr_count, (unsigned long long)n);
    *count = n;
    return 0;
}

void lp_iter_init(lp_iter *it, const unsigned char *lp) { it->p = lp + LP_HDR; }

int lp_iter_next(lp_iter *it, blob_ent *e) {
    const unsigned char *p = it->p;
    unsigned b = p[0];
    if (b == LP_EOF) return 0;
    uint64_t el = lp_entry_len(p);
    e->is_int = 1;
    e->p = NULL;
    e->n = 0;
    if ((b & 0x80) == 0) {
        e->v = b;
    } else if ((b & 0xC0) == 0x80) {
        e->is_int = 0;
        e->p = (const char *)p + 1;
        e->n = b & 0x3f;
    } else if ((b & 0xE0) == 0xC0) {
        uint64_t u = ((uint64_t)(b & 0x1f) << 8) | p[1];
        e->v = u >= 4096 ? (long long)u - 8192 : (long long)u;
    } else if ((b & 0xF0) == 0xE0) {
        e->is_int = 0;
        e->p = (const char *)p + 2;
        e->n = (size_t)el - 2;
    } else if (b == 0xF0) {
        e->is_int = 0;
        e->p = (const char *)p + 5;
        e->n = (size_t)el - 5;
    } else {
        e->v = rd_sle(p + 1, (int)el - 1);
    }
    it->p = p + el + lp_backlen_size(el);
    return 1;
}

/* ==== ziplist ==== */

#define ZL_END 0xFF
#define ZL_BIGLEN 254

void zl_begin(vbuf *b) {
    vbuf_reset(b);
    static const unsigned char hdr[ZL_HDR];
    vbuf_append(b, hdr, sizeof hdr);
    wr_le((unsigned char *)b->data + 4, ZL_HDR, 4);   /* zltail of an empty list */
}

/* The previous entry's size is what zltail's entry took: the distance from
 * zltail to the end of the buffer. */
void zl_append(vbuf *b, const char *p, size_t n) {
    unsigned char *h = (unsigned char *)b->data;
    size_t tail = (size_t)rd_le(h + 4, 4);
    size_t prev = tail == ZL_HDR && b->len == ZL_HDR ? 0 : b->len - tail;
    size_t at = b->len;
    if (prev < ZL_BIGLEN) {
        app_byte(b, (unsigned)prev);
    } else {
        app_byte(b, ZL_BIGLEN);
        app_le(b, prev, 4);
    }
    long long v;
    if (n > 0 && n < 32 && str_to_ll(p, n, &v)) {
        if (v >= 0 && v <= 12) app_byte(b, 0xF1 + (unsigned)v);
        else if (v >= INT8_MIN && v <= INT8_MAX) { app_byte(b, 0xFE); app_le(b, (uint64_t)v, 1); }
        else if (v >= INT16_MIN && v <= INT16_MAX) { app_byte(b, 0xC0); app_le(b, (uint64_t)v, 2); }
        else if (v >= -(1 << 23) && v <= (1 << 23) - 1) { app_byte(b, 0xF0); app_le(b, (uint64_t)v, 3); }
        else if (v >= INT32_MIN && v <= INT32_MAX) { app_byte(b, 0xD0); app_le(b, (uint64_t)v, 4); }
        else { app_byte(b, 0xE0); app_le(b, (uint64_t)v, 8); }
    } else {
        assert(n <= UINT32_MAX);
        if (n <= 0x3f) {
            app_byte(b, (unsigned)n);
        } else if (n <= 0x3fff) {
            app_byte(b, 0x40 | (unsigned)(n >> 8));
            app_byte(b, (unsigned)(n & 0xff));
        } else {
            app_byte(b, 0x80);
            for (int i = 3; i >= 0; i--) app_byte(b, (unsigned)(n >> (8 * i)) & 0xff);
        }
        vbuf_append(b, p, n);
    }
    wr_le((unsigned char *)b->data + 4, at, 4);
}

void zl_end(vbuf *b, uint64_t count) {
    app_byte(b, ZL_END);
    unsigned char *h = (unsigned char *)b->data;
    assert(b->len <= UINT32_MAX);
    wr_le(h, b->len, 4);
    wr_le(h + 8, count < ZL_COUNT_UNKNOWN ? count : ZL_COUNT_UNKNOWN, 2);
}

/* The entry at p (left > 0 bytes before the end byte): its prevlen, header
 * size and data size, checked to stay within left. 0, or -1 with what was wrong in err. */
typedef struct zl_ent { uint64_t prevlen; size_t hdr; uint64_t len; unsigned enc; } zl_ent;

static int zl_decode(const unsigned char *p, size_t left, zl_ent *z, char *err,
                     size_t errlen) {
    size_t pl = p[0] < ZL_BIGLEN ? 1 : 5;
    if (p[0] == ZL_END) return bad(err, errlen, "bad prevlen byte 0xff");
    if (pl + 1 > left) return bad(err, errlen, "header runs past the end");
    z->prevlen = pl == 1 ? p[0] : rd_le(p + 1, 4);
    unsigned e = p[pl];
    size_t eh;
    uint64_t dl;
    if ((e & 0xC0) == 0x00) { eh = 1; dl = e & 0x3f; }
    else if ((e & 0xC0) == 0x40) {
        eh = 2;
        if (pl + eh > left) return bad(err, errlen, "header runs past the end");
        dl = ((uint64_t)(e & 0x3f) << 8) | p[pl + 1];
    } else if ((e & 0xC0) == 0x80) {
        eh = 5;
        if (pl + eh > left) return bad(err, errlen, "header runs past the end");
        dl = 0;
        for (int i = 1; i <= 4; i++) dl = (dl << 8) | p[pl + (size_t)i];
        e = 0x80;
    } else {
        eh = 1;
        switch (e) {
        case 0xC0: dl = 2; break;
        case 0xD0: dl = 4; break;
        case 0xE0: dl = 8; break;
        case 0xF0: dl = 3; break;
        case 0xFE: dl = 1; break;
        default:
            if (e < 0xF1 || e > 0xFD) return bad(err, errlen, "bad encoding 0x%02x", e);
            dl = 0;
        }
    }
    if (dl > left - pl - eh) return bad(err, errlen, "%llu bytes run past the end",
                                        (unsigned long long)dl);
    z->hdr = pl + eh;
    z->len = dl;
    z->enc = e;
    return 0;
}

int zl_validate(const unsigned char *zl, size_t len, uint64_t *count, char *err,
                size_t errlen) {
    if (len < ZL_HDR + 1)
        return bad(err, errlen, "ziplist of %zu bytes is shorter than its header", len);
    uint64_t total = rd_le(zl, 4), tail = rd_le(zl + 4, 4), hdr_count = rd_le(zl + 8, 2);
    if (total != len)
        return bad(err, errlen, "ziplist header says %llu bytes, the string has %zu",
                   (unsigned long long)total, len);
    if (zl[len - 1] != ZL_END) return bad(err, errlen, "ziplist does not end with 0xff");
    if (tail > len - 1) return bad(err, errlen, "ziplist tail offset %llu is out of range",
                                   (unsigned long long)tail);
    const unsigned char *p = zl + ZL_HDR, *end = zl + len - 1, *prev = NULL;
    uint64_t n = 0, prev_size = 0;
    char why[128];
    while (p < end) {
        zl_ent z;
        if (zl_decode(p, (size_t)(end - p), &z, why, sizeof why))
            return bad(err, errlen, "ziplist entry %llu at byte %zu: %s", (unsigned long long)n,
                       (size_t)(p - zl), why);
        if (z.prevlen != prev_size)
            return bad(err, errlen, "ziplist entry %llu at byte %zu: prevlen %llu, previous "
                       "entry has %llu bytes", (unsigned long long)n, (size_t)(p - zl),
                       (unsigned long long)z.prevlen, (unsigned long long)prev_size);
        prev_size = z.hdr + z.len;
        prev = p;
        p += prev_size;
        n++;
    }
    if (prev ? (uint64_t)(prev - zl) != tail : tail != ZL_HDR)
        return bad(err, errlen, "ziplist tail offset %llu is not its last entry",
                   (unsigned long long)tail);
    if (hdr_count != ZL_COUNT_UNKNOWN && hdr_count != n)
        return bad(err, errlen, "ziplist header counts %llu entries, it holds %llu",
                   (unsigned long long)hdr_count, (unsigned long long)n);
    *count = n;
    return 0;
}

void zl_iter_init(zl_iter *it, const unsigned char *zl) { it->p = zl + ZL_HDR; }

int zl_iter_next(zl_iter *it, blob_ent *e) {
    const unsigned char *p = it->p;
    if (p[0] == ZL_END) return 0;
    zl_ent z;
    char why[8];
    /* validated: decode cannot fail, and the end is past the entry */
    int rc = zl_decode(p, SIZE_MAX, &z, why, sizeof why);
    assert(rc == 0);
    (void)rc;
    const unsigned char *d = p + z.hdr;
    e->p = NULL;
    e->n = 0;
    e->is_int = 1;
    switch (z.enc) {
    case 0xC0: e->v = rd_sle(d, 2); break;
    case 0xD0: e->v = rd_sle(d, 4); break;
    case 0xE0: e->v = rd_sle(d, 8); break;
    case 0xF0: e->v = rd_sle(d, 3); break;
    case 0xFE: e->v = rd_sle(d, 1); break;
    default:
        if (z.enc >= 0xF1 && z.enc <= 0xFD) {
            e->v = (long long)(z.enc & 0x0f) - 1;
        } else {
            e->is_int = 0;
            e->p = (const char *)d;
            e->n = (size_t)z.len;
        }
    }
    it->p = d + z.len;
    return 1;
}

/* ==== intset ==== */

void is_encode(vbuf *b, const int64_t *v, size_t n) {
    int w = 2;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < INT32_MIN || v[i] > INT32_MAX) w = 8;
        else if ((v[i] < INT16_MIN || v[i] > INT16_MAX) && w < 4) w = 4;
    }
    assert(n <= UINT32_MAX);
    vbuf_reset(b);
    vbuf_reserve(b, IS_HDR + n * (size_t)w);
    app_le(b, (uint64_t)w, 4);
    app_le(b, n, 4);
    for (size_t i = 0; i < n; i++) {
        assert(i == 0 || v[i - 1] < v[i]);
        app_le(b, (uint64_t)v[i], w);
    }
}

int is_validate(const unsigned char *is, size_t len, uint64_t *count, char *err,
                size_t errlen) {
    if (len < IS_HDR) return bad(err, errlen, "intset of %zu bytes is shorter than its header", len);
    uint64_t w = rd_le(is, 4), n = rd_le(is + 4, 4);
    if (w != 2 && w != 4 && w != 8) return bad(err, errlen, "intset encoding %llu is not 2, 4 or 8",
                                               (unsigned long long)w);
    if (IS_HDR + n * w != len)
        return bad(err, errlen, "intset of %llu %llu-byte integers in %zu bytes",
                   (unsigned long long)n, (unsigned long long)w, len);
    if (n == 0) return bad(err, errlen, "empty intset");
    for (uint64_t i = 1; i < n; i++)
        if (is_get(is, i) <= is_get(is, i - 1))
            return bad(err, errlen, "intset not in strictly ascending order at %llu",
                       (unsigned long long)i);
    *count = n;
    return 0;
}

int64_t is_get(const unsigned char *is, uint64_t i) {
    int w = (int)rd_le(is, 4);
    return rd_sle(is + IS_HDR + i * (uint64_t)w, w);
}

/* ==== zipmap ==== */

#define ZM_BIGLEN 254
#define ZM_END 255

void zm_begin(vbuf *b) {
    vbuf_reset(b);
    app_byte(b, 0);
}

static void zm_len(vbuf *b, size_t n) {
    assert(n <= UINT32_MAX);
    if (n < ZM_BIGLEN) {
        app_byte(b, (unsigned)n);
    } else {
        app_byte(b, ZM_BIGLEN);
        app_le(b, n, 4);
    }
}

void zm_append(vbuf *b, const char *k, size_t kl, const char *v, size_t vl) {
    zm_len(b, kl);
    vbuf_append(b, k, kl);
    zm_len(b, vl);
    app_byte(b, 0);   /* free */
    vbuf_append(b, v, vl);
}

void zm_end(vbuf *b, uint64_t pairs) {
    app_byte(b, ZM_END);
    b->data[0] = (char)(unsigned char)(pairs < ZM_BIGLEN ? pairs : ZM_BIGLEN);
}

/* A length at *p (left bytes before the end byte); advances *p past it. -1 when it does not fit
 * or is the end marker. */
static int zm_get_len(const unsigned char **p, size_t left, uint64_t *len) {
    const unsigned char *q = *p;
    if (left == 0 || q[0] == ZM_END) return -1;
    if (q[0] < ZM_BIGLEN) {
        *len = q[0];
        *p = q + 1;
        return 0;
    }
    if (left < 5) return -1;
    *len = rd_le(q + 1, 4);
    *p = q + 5;
    return 0;
}

int zm_validate(const unsigned char *zm, size_t len, uint64_t *count, char *err,
                size_t errlen) {
    if (len < 2) return bad(err, errlen, "zipmap of %zu bytes is shorter than its header", len);
    const unsigned char *p = zm + 1, *end = zm + len - 1;
    uint64_t n = 0, kl, vl;
    while (p < end) {
        size_t off = (size_t)(p - zm);
        if (zm_get_len(&p, (size_t)(end - p), &kl) || kl > (uint64_t)(end - p))
            return bad(err, errlen, "zipmap pair %llu at byte %zu: bad field length",
                       (unsigned long long)n, off);
        p += kl;
        if (zm_get_len(&p, (size_t)(end - p), &vl) || p >= end || (uint64_t)p[0] + vl > (uint64_t)(end - p - 1))
            return bad(err, errlen, "zipmap pair %llu at byte %zu: bad value length",
                       (unsigned long long)n, off);
        p += 1 + p[0] + vl;
        n++;
    }
    if (p != end || *end != ZM_END) return bad(err, errlen, "zipmap does not end with 0xff");
    if (n == 0) return bad(err, errlen, "empty zipmap");
    if (zm[0] != ZM_BIGLEN && zm[0] != n)
        return bad(err, errlen, "zipmap header counts %u pairs, it holds %llu", zm[0],
                   (unsigned long long)n);
    *count = n;
    return 0;
}

void zm_iter_init(zm_iter *it, const unsigned char *zm) { it->p = zm + 1; }

int zm_iter_next(zm_iter *it, blob_ent *k, blob_ent *v) {
    const unsigned char *p = it->p;
    if (p[0] == ZM_END) return 0;
    uint64_t kl, vl;
    int rc = zm_get_len(&p, SIZE_MAX, &kl);
    assert(rc == 0);
    *k = (blob_ent){(const char *)p, (size_t)kl, 0, 0};
    p += kl;
    rc = zm_get_len(&p, SIZE_MAX, &vl);
    assert(rc == 0);
    (void)rc;
    unsigned fr = p[0];
    p++;
    *v = (blob_ent){(const char *)p, (size_t)vl, 0, 0};
    it->p = p + vl + fr;
    return 1;
}
