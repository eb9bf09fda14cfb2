/* hll: the HyperLogLog representation (see hll.h): hashing, the dense and
 * sparse encodings, promotion, merge, the cardinality estimate and the
 * self-test. Byte-compatible with Redis 7.0: the same element added to the
 * same HLL gives the same bytes, including the sparse opcode layout that
 * Redis's in-place update produces, so that both read each other's RDBs. */
#include "hll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

#define HLL_SEED 0xadc83b19ULL
#define HLL_ALPHA_INF 0.721347520444481703680 /* constant for 0.5/ln(2) */
#define SPARSE_VAL_MAX_VALUE 32
#define SPARSE_VAL_MAX_LEN 4
#define SPARSE_ZERO_MAX_LEN 64
#define SPARSE_XZERO_MAX_LEN 16384

/* ---- sparse opcodes ---- */

static inline int op_is_zero(const uint8_t *p) { return (*p & 0xc0) == 0; }
static inline int op_is_xzero(const uint8_t *p) { return (*p & 0xc0) == 0x40; }
static inline int op_is_val(const uint8_t *p) { return (*p & 0x80) != 0; }
static inline long op_zero_len(const uint8_t *p) { return (*p & 0x3f) + 1; }
/* Reads p[1]: a string always has a byte past its end (the NUL). */
static inline long op_xzero_len(const uint8_t *p) { return (((*p & 0x3f) << 8) | p[1]) + 1; }
static inline int op_val_value(const uint8_t *p) { return ((*p >> 2) & 0x1f) + 1; }
static inline long op_val_len(const uint8_t *p) { return (*p & 0x3) + 1; }
static inline void op_set_val(uint8_t *p, int val, long len) {
    *p = (uint8_t)(((val - 1) << 2) | (len - 1) | 0x80);
}
static inline void op_set_zero(uint8_t *p, long len) { *p = (uint8_t)(len - 1); }
static inline void op_set_xzero(uint8_t *p, long len) {
    p[0] = (uint8_t)(((len - 1) >> 8) | 0x40);
    p[1] = (uint8_t)((len - 1) & 0xff);
}
/* A run of zero registers as ZERO (up to 64) or XZERO; returns its size. */
static int op_put_zeros(uint8_t *p, long len) {
    if (len > SPARSE_ZERO_MAX_LEN) {
        op_set_xzero(p, len);
        return 2;
    }
    op_set_zero(p, len);
    return 1;
}

/* ---- dense registers: 6 bits each, LSB first ---- */

static inline uint8_t dense_get(const uint8_t *r, long i) {
    size_t byte = (size_t)i * HLL_BITS / 8;
    unsigned fb = (unsigned)(i * HLL_BITS) & 7;
    unsigned v = (unsigned)r[byte] >> fb;
    if (fb > 8 - HLL_BITS) v |= (unsigned)r[byte + 1] << (8 - fb);
    return (uint8_t)(v & HLL_REGISTER_MAX);
}

static inline void dense_set(uint8_t *r, long i, uint8_t val) {
    size_t byte = (size_t)i * HLL_BITS / 8;
    unsigned fb = (unsigned)(i * HLL_BITS) & 7;
    r[byte] = (uint8_t)((r[byte] & ~(63u << fb)) | ((unsigned)val << fb));
    if (fb > 8 - HLL_BITS) {
        unsigned rs = 8 - fb;
        r[byte + 1] = (uint8_t)((r[byte + 1] & ~(63u >> rs)) | ((unsigned)val >> rs));
    }
}

static inline uint8_t *regs(obj *o) { return (uint8_t *)o->data + HLL_HDR_SIZE; }
static inline const uint8_t *cregs(const obj *o) {
    return (const uint8_t *)o->data + HLL_HDR_SIZE;
}

uint8_t hll_dense_get(const obj *o, long i) { return dense_get(cregs(o), i); }

size_t hll_sparse_max_bytes(void) { return HLL_SPARSE_MAX_BYTES; }

/* ---- hashing ---- */

/* MurmurHash2, 64-bit version (Austin Appleby, public domain), reading the
 * input as little endian on every host, as Redis's variant does. */
static uint64_t murmur64a(const void *key, size_t len, uint64_t seed) {
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    const uint8_t *data = key;
    /* Redis passes the length as an int: the same bits for any length a
     * client can send (proto-max-bulk-len < 2^31 by default). */
    uint64_t h = seed ^ ((uint64_t)(int)len * m);
    size_t nblocks = len / 8;
    for (size_t i = 0; i < nblocks; i++, data += 8) {
        uint64_t k = 0;
        for (int b = 7; b >= 0; b--) k = (k << 8) | data[b];
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t rest = len & 7;
    if (rest) {
        for (size_t b = rest; b > 0; b--) h ^= (uint64_t)data[b - 1] << (8 * (b - 1));
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

int hll_pattern(const char *ele, size_t len, long *index) {
    uint64_t hash = murmur64a(ele, len, HLL_SEED);
    *index = (long)(hash & (HLL_REGISTERS - 1));
    hash >>= HLL_P;
    hash |= (uint64_t)1 << (63 - HLL_P); /* the loop ends */
    int count = 1;
    while ((hash & 1) == 0) {
        count++;
        hash >>= 1;
    }
    return count;
}

/* ---- objects ---- */

obj *hll_new(void) {
    int nx = (HLL_REGISTERS + SPARSE_XZERO_MAX_LEN - 1) / SPARSE_XZERO_MAX_LEN;
    obj *o = obj_new_zeroed(HLL_HDR_SIZE + (size_t)nx * 2);
    memcpy(o->data, "HYLL", 4);
    o->data[4] = HLL_SPARSE;
    uint8_t *p = regs(o);
    for (long left = HLL_REGISTERS; left > 0; p += 2) {
        long n = left > SPARSE_XZERO_MAX_LEN ? SPARSE_XZERO_MAX_LEN : left;
        op_set_xzero(p, n);
        left -= n;
    }
    return o;
}

int hll_is_valid(const obj *o) {
    if (o->type != OBJ_STRING || o->enc != OBJ_ENC_RAW) return 0;
    if (o->len < HLL_HDR_SIZE || memcmp(o->data, "HYLL", 4) != 0) return 0;
    int enc = hll_encoding(o);
    if (enc > HLL_SPARSE) return 0;
    if (enc == HLL_DENSE && o->len != HLL_DENSE_SIZE) return 0;
    return 1;
}

int hll_cache_get(const obj *o, uint64_t *card) {
    const uint8_t *c = (const uint8_t *)o->data + 8;
    if (c[7] & 0x80) return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | c[i];
    *card = v;
    return 1;
}

void hll_cache_set(obj *o, uint64_t card) {
    uint8_t *c = (uint8_t *)o->data + 8;
    for (int i = 0; i < 8; i++) c[i] = (uint8_t)(card >> (8 * i));
}

void hll_cache_invalidate(obj *o) { o->data[15] = (char)((uint8_t)o->data[15] | 0x80); }

/* ---- sparse walking ---- */

/* The opcode of a sparse HLL covering register index: its address, the
 * first register it covers, its span and the opcode before it (NULL when
 * first). NULL when the encoding ends before index (corrupt). */
static uint8_t *sparse_find(uint8_t *p, uint8_t *end, long index, long *first, long *span,
                            uint8_t **prev) {
    long f = 0, s = 0;
    *prev = NULL;
    while (p < end) {
        int oplen = 1;
        if (op_is_zero(p)) {
            s = op_zero_len(p);
        } else if (op_is_val(p)) {
            s = op_val_len(p);
        } else {
            s = op_xzero_len(p);
            oplen = 2;
        }
        if (index <= f + s - 1) break;
        *prev = p;
        p += oplen;
        f += s;
    }
    if (s == 0 || p >= end) return NULL;
    *first = f;
    *span = s;
    return p;
}

int hll_to_dense(obj **op) {
    obj *o = *op;
    if (hll_encoding(o) == HLL_DENSE) return 0;
    obj *d = obj_new_zeroed_like(o, HLL_DENSE_SIZE); /* o's key, if it has one */
    memcpy(d->data, o->data, HLL_HDR_SIZE); /* magic and cached cardinality */
    d->data[4] = HLL_DENSE;
    const uint8_t *p = cregs(o), *end = (const uint8_t *)o->data + o->len;
    long idx = 0;
    while (p < end) {
        if (op_is_zero(p)) {
            idx += op_zero_len(p++);
        } else if (op_is_xzero(p)) {
            idx += op_xzero_len(p);
            p += 2;
        } else {
            long run = op_val_len(p);
            int val = op_val_value(p);
            if (run + idx > HLL_REGISTERS) { /* overflow: corrupt, as Redis 7.0.15 */
                idx = -1;
                break;
            }
            while (run--) dense_set(regs(d), idx++, (uint8_t)val);
            p++;
        }
    }
    if (idx != HLL_REGISTERS) {
        obj_decref(d);
        return -1;
    }
    obj_decref(o);
    *op = d;
    return 0;
}

/* Merges adjacent VAL opcodes of the same value (up to 5 opcodes from p),
 * as Redis does after an update so that the bytes stay the same. */
static void sparse_merge_vals(obj *o, uint8_t *p, uint8_t *end) {
    int scan = 5;
    while (p < end && scan--) {
        if (op_is_xzero(p)) {
            p += 2;
            continue;
        }
        if (op_is_zero(p)) {
            p++;
            continue;
        }
        if (p + 1 < end && op_is_val(p + 1) && op_val_value(p) == op_val_value(p + 1)) {
            long len = op_val_len(p) + op_val_len(p + 1);
            if (len <= SPARSE_VAL_MAX_LEN) {
                op_set_val(p + 1, op_val_value(p), len);
                memmove(p, p + 1, (size_t)(end - p - 1));
                o->len--;
                end--;
                continue;
            }
        }
        p++;
    }
}

/* Replaces the opcode at p (covering first..first+span-1, not a VAL
 * already >= count) by the sequence that sets register index to count.
 * Returns 0, or 1 when the result would exceed the sparse size limit (the
 * caller promotes; nothing changed). */
static int sparse_split(obj *o, uint8_t *p, uint8_t *end, long index, long first, long span,
                        uint8_t count) {
    uint8_t seq[5], *n = seq;
    long last = first + span - 1;
    int xzero = op_is_xzero(p);
    if (!op_is_val(p)) {
        if (index != first) n += op_put_zeros(n, index - first);
        op_set_val(n++, count, 1);
        if (index != last) n += op_put_zeros(n, last - index);
    } else {
        int cur = op_val_value(p);
        if (index != first) op_set_val(n++, cur, index - first);
        op_set_val(n++, count, 1);
        if (index != last) op_set_val(n++, cur, last - index);
    }
    long seqlen = n - seq, oldlen = xzero ? 2 : 1, delta = seqlen - oldlen;
    if (delta > 0 && o->len + (size_t)delta > hll_sparse_max_bytes()) return 1;
    uint8_t *next = p + oldlen;
    if (delta && next < end) memmove(next + delta, next, (size_t)(end - next));
    o->len = (size_t)((long)o->len + delta);
    memcpy(p, seq, (size_t)seqlen);
    return 0;
}

static int sparse_set(obj **op, long index, uint8_t count) {
    if (count > SPARSE_VAL_MAX_VALUE) goto promote;
    /* Room for the worst split (XZERO -> XZERO VAL XZERO: 3 more bytes), so
     * the pointers below stay valid. */
    obj *o = obj_writable(*op, (*op)->len + 3);
    *op = o;
    uint8_t *sparse = regs(o), *end = (uint8_t *)o->data + o->len, *prev;
    long first, span;
    uint8_t *p = sparse_find(sparse, end, index, &first, &span, &prev);
    if (!p) return -1;
    if (op_is_val(p)) {
        if (op_val_value(p) >= count) return 0;
        if (span == 1) {
            op_set_val(p, count, 1);
            goto updated;
        }
    } else if (op_is_zero(p) && span == 1) {
        op_set_val(p, count, 1);
        goto updated;
    }
    if (sparse_split(o, p, end, index, first, span, count)) goto promote;
    end = (uint8_t *)o->data + o->len;
updated:
    sparse_merge_vals(o, prev ? prev : sparse, end);
    o->data[o->len] = '\0';
    hll_cache_invalidate(o);
    return 1;
promote:
    if (hll_to_dense(op) != 0) return -1;
    uint8_t *r = regs(*op);
    if (dense_get(r, index) < count) dense_set(r, index, count);
    return 1;
}

int hll_set(obj **op, long index, uint8_t count) {
    if (hll_encoding(*op) == HLL_SPARSE) return sparse_set(op, index, count);
    uint8_t *r = regs(*op);
    if (dense_get(r, index) >= count) return 0;
    dense_set(r, index, count);
    return 1;
}

int hll_add(obj **op, const char *ele, size_t len) {
    long index;
    int count = hll_pattern(ele, len, &index);
    int ret = hll_set(op, index, (uint8_t)count);
    /* The dense path leaves the cache to the caller (PFADD invalidates it
     * once); the sparse path already did. */
    if (ret == 1) hll_cache_invalidate(*op);
    return ret;
}

int hll_would_change(const obj *o, const char *ele, size_t len) {
    long index;
    int count = hll_pattern(ele, len, &index);
    if (hll_encoding(o) == HLL_DENSE) return count > dense_get(cregs(o), index);
    uint8_t *start = (uint8_t *)(uintptr_t)cregs(o), *prev;
    long first, span;
    uint8_t *p = sparse_find(start, (uint8_t *)(uintptr_t)o->data + o->len, index, &first,
                             &span, &prev);
    if (!p) return -1;
    int cur = op_is_val(p) ? op_val_value(p) : 0;
    return count > cur;
}

/* ---- counting and merging ---- */

static double hll_sigma(double x) {
    if (x == 1.) return INFINITY;
    double zprev, y = 1, z = x;
    do {
        x *= x;
        zprev = z;
        z += x * y;
        y += y;
    } while (zprev != z);
    return z;
}

static double hll_tau(double x) {
    if (x == 0. || x == 1.) return 0.;
    double zprev, y = 1.0, z = 1 - x;
    do {
        x = sqrt(x);
        zprev = z;
        y *= 0.5;
        z -= pow(1 - x, 2) * y;
    } while (zprev != z);
    return z / 3;
}

/* Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog
 * sketches", arXiv:1702.01284) from the register histogram, in Redis's
 * order of operations so the cached cardinality has the same bits. */
static uint64_t estimate(const int *histo) {
    double m = HLL_REGISTERS;
    double z = m * hll_tau((m - histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; --j) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * hll_sigma(histo[0] / m);
    return (uint64_t)llroundl(HLL_ALPHA_INF * m * m / z);
}

uint64_t hll_count(const obj *o, int *invalid) {
    int histo[64] = {0};
    const uint8_t *r = cregs(o);
    if (hll_encoding(o) == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++) histo[dense_get(r, i)]++;
    } else {
        const uint8_t *end = (const uint8_t *)o->data + o->len;
        long idx = 0;
        while (r < end) {
            long run;
            if (op_is_zero(r)) {
                run = op_zero_len(r++);
                histo[0] += (int)run;
            } else if (op_is_xzero(r)) {
                run = op_xzero_len(r);
                r += 2;
                histo[0] += (int)run;
            } else {
                run = op_val_len(r);
                histo[op_val_value(r++)] += (int)run;
            }
            idx += run;
        }
        if (idx != HLL_REGISTERS && invalid) *invalid = 1;
    }
    return estimate(histo);
}

uint64_t hll_count_raw(const uint8_t *r) {
    int histo[64] = {0};
    for (long i = 0; i < HLL_REGISTERS; i++) histo[r[i] & 63]++;
    return estimate(histo);
}

int hll_merge(uint8_t *max, const obj *o) {
    const uint8_t *r = cregs(o);
    if (hll_encoding(o) == HLL_DENSE) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t v = dense_get(r, i);
            if (v > max[i]) max[i] = v;
        }
        return 0;
    }
    const uint8_t *end = (const uint8_t *)o->data + o->len;
    long i = 0;
    while (r < end) {
        if (op_is_zero(r)) {
            i += op_zero_len(r++);
        } else if (op_is_xzero(r)) {
            i += op_xzero_len(r);
            r += 2;
        } else {
            long run = op_val_len(r);
            uint8_t v = (uint8_t)op_val_value(r++);
            if (run + i > HLL_REGISTERS) return -1; /* overflow: corrupt */
            for (; run > 0; run--, i++)
                if (v > max[i]) max[i] = v;
        }
    }
    return i == HLL_REGISTERS ? 0 : -1;
}

/* ---- debugging ---- */

char *hll_decode(const obj *o, size_t *len) {
    size_t cap = 64, n = 0;
    char *s = xmalloc(cap);
    const uint8_t *p = cregs(o), *end = (const uint8_t *)o->data + o->len;
    while (p < end) {
        char item[32];
        int w;
        if (op_is_zero(p)) {
            w = snprintf(item, sizeof item, "z:%ld ", op_zero_len(p));
            p++;
        } else if (op_is_xzero(p)) {
            w = snprintf(item, sizeof item, "Z:%ld ", op_xzero_len(p));
            p += 2;
        } else {
            w = snprintf(item, sizeof item, "v:%d,%ld ", op_val_value(p), op_val_len(p));
            p++;
        }
        if (n + (size_t)w + 1 > cap) {
            cap = (n + (size_t)w + 1) * 2;
            s = xrealloc(s, cap);
        }
        memcpy(s + n, item, (size_t)w);
        n += (size_t)w;
    }
    while (n > 0 && s[n - 1] == ' ') n--;
    s[n] = '\0';
    *len = n;
    return s;
}

/* A small PRNG for the self-test (xorshift64*). */
static uint64_t st_next(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* Test 1 of PFSELFTEST: every register keeps what was set, without
 * touching its neighbours. */
static int selftest_registers(uint64_t *rng, char *err, size_t errlen) {
    uint8_t *dense = xcalloc(1, HLL_DENSE_SIZE - HLL_HDR_SIZE + 1);
    uint8_t *bytes = xmalloc(HLL_REGISTERS);
    int rc = 0;
    for (int cycle = 0; cycle < 1000 && rc == 0; cycle++) {
        for (long i = 0; i < HLL_REGISTERS; i++) {
            bytes[i] = (uint8_t)(st_next(rng) & HLL_REGISTER_MAX);
            dense_set(dense, i, bytes[i]);
        }
        for (long i = 0; i < HLL_REGISTERS; i++) {
            uint8_t v = dense_get(dense, i);
            if (v != bytes[i]) {
                snprintf(err, errlen, "TESTFAILED Register %ld should be %d but is %d", i,
                         bytes[i], v);
                rc = -1;
                break;
            }
        }
    }
    free(dense);
    free(bytes);
    return rc;
}

int hll_selftest(char *err, size_t errlen) {
    uint64_t rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ULL | 1;
    if (selftest_registers(&rng, err, errlen) != 0) return -1;
    /* Test 2: the estimate stays within 6 standard errors, with a dense and
     * a sparse HLL fed the same elements and agreeing at every checkpoint. */
    obj *dense = obj_new_zeroed(HLL_DENSE_SIZE);
    memcpy(dense->data, "HYLL", 4);
    obj *sparse = hll_new();
    double relerr = 1.04 / sqrt(HLL_REGISTERS);
    int64_t checkpoint = 1;
    uint64_t seed = st_next(&rng);
    int rc = 0;
    for (uint64_t j = 1; j <= 10000000 && rc == 0; j++) {
        uint64_t ele = j ^ seed;
        hll_add(&dense, (const char *)&ele, sizeof ele);
        hll_add(&sparse, (const char *)&ele, sizeof ele);
        if ((int64_t)j != checkpoint) continue;
        if (j < hll_sparse_max_bytes() / 2 && hll_encoding(sparse) != HLL_SPARSE) {
            snprintf(err, errlen, "TESTFAILED sparse encoding not used");
            rc = -1;
        } else if (hll_count(dense, NULL) != hll_count(sparse, NULL)) {
            snprintf(err, errlen, "TESTFAILED dense/sparse disagree");
            rc = -1;
        } else {
            int64_t abserr = checkpoint - (int64_t)hll_count(dense, NULL);
            uint64_t maxerr = (uint64_t)ceil(relerr * 6 * (double)checkpoint);
            if (j == 10) maxerr = 1; /* collisions make 10 noisy */
            if (abserr < 0) abserr = -abserr;
            if (abserr > (int64_t)maxerr) {
                snprintf(err, errlen, "TESTFAILED Too big error. card:%llu abserr:%llu",
                         (unsigned long long)checkpoint, (unsigned long long)abserr);
                rc = -1;
            }
            checkpoint *= 10;
        }
    }
    obj_decref(dense);
    obj_decref(sparse);
    return rc;
}
