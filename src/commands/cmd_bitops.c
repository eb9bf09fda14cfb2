/* cmd_bitops: bitmaps on strings (SETBIT GETBIT BITCOUNT BITPOS BITOP
 * BITFIELD BITFIELD_RO) and LCS, with Redis 7.0's replies, error texts,
 * argument order and keyspace events.
 *
 * Bit 0 is the most significant bit of byte 0. A write that changes a
 * string in place (SETBIT, BITFIELD) goes through db_write and
 * obj_writable as SETRANGE does: the value the forkless serializer may hold
 * is copied first, grown zero-filled to the last byte written. A SETBIT that
 * would change nothing (same bit, no growth) does not write, as Redis 7.0
 * does not signal it; a BITFIELD that grows nothing writes through the
 * table (vt_write) and tells the key changed only when a field changed.
 * BITOP stores a new value (db_set) or deletes its destination. Main thread
 * only. */
#include <assert.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "evict.h"
#include "notify.h"
#include "util.h"

#define ERR_BIT_OFFSET "ERR bit offset is not an integer or out of range"

/* ---- shared helpers ---- */

/* Redis's getBitOffsetFromArgument: a bit offset, or with `hash` and a
 * "#n" argument n * bits. Below proto-max-bulk-len bytes, except for the
 * master's commands and AOF replay (as Redis's mustObeyClient). */
static int parse_bit_offset(client *c, const arg *a, int hash, int bits, uint64_t *out) {
    int skip = hash && bits > 0 && a->len > 0 && a->p[0] == '#';
    long long off;
    if (!str_to_ll(a->p + skip, a->len - (size_t)skip, &off) ||
        (skip && __builtin_mul_overflow(off, bits, &off)) || off < 0)
        goto bad;
    int obey = server.loading || (c->flags & CLIENT_MASTER);
    if (!obey && (off >> 3) >= server.cfg.proto_max_bulk_len) goto bad;
    *out = (uint64_t)off;
    return 1;
bad:
    reply_error(c, ERR_BIT_OFFSET);
    return 0;
}

/* The bytes of a string value (INT values in buf). */
static const uint8_t *value_bytes(const obj *o, char *buf, size_t *len) {
    return (const uint8_t *)obj_str(o, buf, len);
}

/* Opens key k for an in-place write reaching byte need - 1 (Redis's
 * lookupStringForBitCommand): creates it or grows it zero-filled. The
 * caller checked the type, writes into the returned RAW object, then calls
 * vt_write_done(w). *grew: created or longer than before. */
static obj *open_for_bits(db *d, const arg *k, size_t need, vt_wr *w, int *grew) {
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 1, w, &created);
    obj *o;
    *grew = 1;
    if (created) {
        o = vt_set_val(w, e, obj_kv_new_zeroed(k->p, k->len, need));
    } else {
        size_t old = obj_strlen(e->val), len = old > need ? old : need;
        o = obj_writable(e->val, len);
        if (len > old) {
            memset(o->data + old, 0, len - old);
            o->len = len;
            o->data[len] = '\0';
        } else {
            *grew = 0;
        }
    }
    e->val = o;
    return o;
}

static long long popcount(const uint8_t *p, size_t n) {
    long long count = 0;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        count += __builtin_popcountll(w);
    }
    for (; i < n; i++) count += __builtin_popcount(p[i]);
    return count;
}

/* ---- SETBIT GETBIT ---- */

void cmd_setbit(client *c) {
    const arg *k = &c->argv[1];
    uint64_t off;
    long long on;
    if (!parse_bit_offset(c, &c->argv[2], 0, 0, &off)) return;
    if (!str_to_ll(c->argv[3].p, c->argv[3].len, &on) || (on & ~1LL)) {
        reply_error(c, "ERR bit is not an integer or out of range");
        return;
    }
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    size_t byte = (size_t)(off >> 3);
    unsigned mask = 1u << (7 - (off & 7));
    if (e) { /* unchanged bit, no growth: nothing to write */
        char buf[OBJ_INTBUF];
        size_t len;
        const uint8_t *s = value_bytes(e->val, buf, &len);
        if (byte < len && !!(s[byte] & mask) == on) {
            reply_int(c, on);
            return;
        }
    }
    vt_wr w;
    int grew;
    obj *o = open_for_bits(d, k, byte + 1, &w, &grew);
    uint8_t *p = (uint8_t *)o->data;
    int old = (p[byte] & mask) != 0;
    if (on) p[byte] = (uint8_t)(p[byte] | mask);
    else p[byte] = (uint8_t)(p[byte] & ~mask);
    vt_write_done(&w);
    notify_keyspace_event(NOTIFY_STRING, "setbit", k->p, k->len, c->db);
    server_dirty(1);
    reply_int(c, old);
}

void cmd_getbit(client *c) {
    uint64_t off;
    if (!parse_bit_offset(c, &c->argv[2], 0, 0, &off)) return;
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_STRING,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    int bit = 0;
    if (e) {
        char buf[OBJ_INTBUF];
        size_t len;
        const uint8_t *s = value_bytes(e->val, buf, &len);
        size_t byte = (size_t)(off >> 3);
        if (byte < len) bit = (s[byte] >> (7 - (off & 7))) & 1;
    }
    reply_int(c, bit);
}

/* ---- BITCOUNT BITPOS ---- */

/* A range [start, end] of BITCOUNT / BITPOS in bytes or (bit mode) bits,
 * normalised as Redis does: negative from the end, clamped to the string.
 * Returns the range in bits (*sb..*eb); 0 when it is empty. */
static int norm_range(long long start, long long end, int isbit, size_t strlen, uint64_t *sb,
                      uint64_t *eb) {
    long long total = (long long)strlen;
    if (isbit) total <<= 3;
    if (start < 0) start += total;
    if (end < 0) end += total;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= total) end = total - 1;
    if (start > end) return 0;
    *sb = isbit ? (uint64_t)start : (uint64_t)start << 3;
    *eb = isbit ? (uint64_t)end : ((uint64_t)end << 3) + 7;
    return 1;
}

/* The BIT / BYTE argument: 1 bit, 0 byte, -1 after a syntax error. */
static int parse_unit(client *c, const arg *a) {
    if (arg_is(a, "bit")) return 1;
    if (arg_is(a, "byte")) return 0;
    reply_syntax_error(c);
    return -1;
}

/* Set bits of s in the bit range [sb, eb]. */
static long long count_bits(const uint8_t *s, uint64_t sb, uint64_t eb) {
    size_t first = (size_t)(sb >> 3), last = (size_t)(eb >> 3);
    long long n = popcount(s + first, last - first + 1);
    n -= __builtin_popcount(s[first] & (0xffu << (8 - (sb & 7))) & 0xff);
    n -= __builtin_popcount(s[last] & ((1u << (7 - (eb & 7))) - 1));
    return n;
}

void cmd_bitcount(client *c) {
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_STRING,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) { /* Redis 7.0 answers 0 before it looks at the arguments */
        reply_int(c, 0);
        return;
    }
    char buf[OBJ_INTBUF];
    size_t len;
    const uint8_t *s = value_bytes(e->val, buf, &len);
    long long start = 0, end = -1;
    int isbit = 0;
    if (c->argc == 4 || c->argc == 5) {
        if (!arg_ll(c, &c->argv[2], &start) || !arg_ll(c, &c->argv[3], &end)) return;
        if (start < 0 && end < 0 && start > end) {
            reply_int(c, 0);
            return;
        }
        if (c->argc == 5 && (isbit = parse_unit(c, &c->argv[4])) < 0) return;
    } else if (c->argc != 2) {
        reply_syntax_error(c);
        return;
    }
    uint64_t sb, eb;
    reply_int(c, norm_range(start, end, isbit, len, &sb, &eb) ? count_bits(s, sb, eb) : 0);
}

/* The first bit equal to `bit` in the bit range [sb, eb] of s, or -1. */
static long long find_bit(const uint8_t *s, uint64_t sb, uint64_t eb, int bit) {
    uint8_t skip = bit ? 0x00 : 0xff;
    uint64_t skip64 = bit ? 0 : UINT64_MAX;
    uint64_t i = sb;
    while (i <= eb) {
        size_t byte = (size_t)(i >> 3);
        if ((i & 7) == 0 && i + 63 <= eb) { /* whole words without it */
            uint64_t w;
            memcpy(&w, s + byte, 8);
            if (w == skip64) {
                i += 64;
                continue;
            }
        }
        if ((i & 7) == 0 && i + 7 <= eb && s[byte] == skip) { /* whole bytes */
            i += 8;
            continue;
        }
        if (((s[byte] >> (7 - (i & 7))) & 1) == bit) return (long long)i;
        i++;
    }
    return -1;
}

void cmd_bitpos(client *c) {
    long long bit;
    if (!arg_ll(c, &c->argv[2], &bit)) return;
    if (bit != 0 && bit != 1) {
        reply_error(c, "ERR The bit argument must be 1 or 0.");
        return;
    }
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_STRING,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) { /* an endless run of zero bits */
        reply_int(c, bit ? -1 : 0);
        return;
    }
    char buf[OBJ_INTBUF];
    size_t len;
    const uint8_t *s = value_bytes(e->val, buf, &len);
    long long start = 0, end = -1;
    int isbit = 0, end_given = 0;
    if (c->argc >= 4 && c->argc <= 6) {
        if (!arg_ll(c, &c->argv[3], &start)) return;
        if (c->argc == 6 && (isbit = parse_unit(c, &c->argv[5])) < 0) return;
        if (c->argc >= 5) {
            if (!arg_ll(c, &c->argv[4], &end)) return;
            end_given = 1;
        }
    } else if (c->argc != 3) {
        reply_syntax_error(c);
        return;
    }
    uint64_t sb, eb;
    if (!norm_range(start, end, isbit, len, &sb, &eb)) {
        reply_int(c, -1);
        return;
    }
    long long pos = find_bit(s, sb, eb, (int)bit);
    /* Looking for a clear bit without an explicit end: the string is
     * followed by zeros, so the first one is just past it. */
    if (pos < 0 && bit == 0 && !end_given) pos = (long long)len << 3;
    reply_int(c, pos);
}

/* ---- BITOP ---- */

enum { BITOP_AND, BITOP_OR, BITOP_XOR, BITOP_NOT };

/* dst[0..n) = op over the sources (each zero-padded to n). */
static void bitop_compute(int op, uint8_t *dst, size_t n, int nsrc, const uint8_t *const *src,
                          const size_t *len) {
    for (size_t i = 0; i < n; i++) {
        uint8_t v = i < len[0] ? src[0][i] : 0;
        if (op == BITOP_NOT) v = (uint8_t)~v;
        for (int j = 1; j < nsrc; j++) {
            uint8_t b = i < len[j] ? src[j][i] : 0;
            if (op == BITOP_AND) v &= b;
            else if (op == BITOP_OR) v |= b;
            else v ^= b;
        }
        dst[i] = v;
    }
}

/* The sources of BITOP (an absent key is empty); 0 after WRONGTYPE. INT
 * values are copied into bufs (OBJ_INTBUF bytes each). */
static int bitop_sources(client *c, db *d, int nsrc, const uint8_t **src, size_t *len,
                         char *bufs, size_t *maxlen) {
    *maxlen = 0;
    for (int j = 0; j < nsrc; j++) {
        const arg *k = &c->argv[3 + j];
        int wrong;
        vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_READ, &wrong);
        if (wrong) return 0;
        src[j] = NULL;
        len[j] = 0;
        if (e) src[j] = value_bytes(e->val, bufs + (size_t)j * OBJ_INTBUF, &len[j]);
        if (len[j] > *maxlen) *maxlen = len[j];
    }
    return 1;
}

void cmd_bitop(client *c) {
    const arg *opn = &c->argv[1], *dest = &c->argv[2];
    int op;
    if (arg_is(opn, "and")) op = BITOP_AND;
    else if (arg_is(opn, "or")) op = BITOP_OR;
    else if (arg_is(opn, "xor")) op = BITOP_XOR;
    else if (arg_is(opn, "not")) op = BITOP_NOT;
    else {
        reply_syntax_error(c);
        return;
    }
    if (op == BITOP_NOT && c->argc != 4) {
        reply_error(c, "ERR BITOP NOT must be called with a single source key.");
        return;
    }
    int nsrc = c->argc - 3;
    const uint8_t **src = xmalloc((size_t)nsrc * sizeof *src);
    size_t *len = xmalloc((size_t)nsrc * sizeof *len), maxlen;
    char *bufs = xmalloc((size_t)nsrc * OBJ_INTBUF);
    db *d = db_get(c->db);
    if (bitop_sources(c, d, nsrc, src, len, bufs, &maxlen)) {
        if (maxlen) {
            obj *o = obj_kv_new_zeroed(dest->p, dest->len, maxlen);
            bitop_compute(op, (uint8_t *)o->data, maxlen, nsrc, src, len);
            db_set(d, dest->p, dest->len, o, VT_NO_EXPIRE);
            notify_keyspace_event(NOTIFY_STRING, "set", dest->p, dest->len, c->db);
            server_dirty(1);
        } else if (db_delete(d, dest->p, dest->len)) {
            notify_keyspace_event(NOTIFY_GENERIC, "del", dest->p, dest->len, c->db);
            server_dirty(1);
        }
        reply_int(c, (long long)maxlen);
    }
    free(src);
    free(len);
    free(bufs);
}

/* ---- LCS ---- */

typedef struct lcs_range { uint32_t a0, a1, b0, b1; } lcs_range;

typedef struct lcs_opts {
    int getlen, getidx, withmatchlen;
    long long minmatchlen;
} lcs_opts;

/* LCS's options after the two keys; 0 after replying an error. */
static int lcs_parse(client *c, lcs_opts *o) {
    memset(o, 0, sizeof *o);
    for (int j = 3; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        if (arg_is(a, "idx")) o->getidx = 1;
        else if (arg_is(a, "len")) o->getlen = 1;
        else if (arg_is(a, "withmatchlen")) o->withmatchlen = 1;
        else if (arg_is(a, "minmatchlen") && j + 1 < c->argc) {
            if (!arg_ll(c, &c->argv[++j], &o->minmatchlen)) return 0;
            if (o->minmatchlen < 0) o->minmatchlen = 0;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    if (o->getidx && o->getlen) {
        reply_error(c, "ERR If you want both the length and indexes, please just use IDX.");
        return 0;
    }
    return 1;
}

/* Walks the table back from (alen, blen) as Redis's lcsCommand does: the
 * LCS string into res (when not NULL) and the matching ranges, in the
 * order found (from the ends of the strings), into *ranges. */
static size_t lcs_walk(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen,
                       const uint32_t *dp, char *res, const lcs_opts *o, lcs_range **ranges) {
#define LCS(i, j) dp[(size_t)(i) * ((size_t)blen + 1) + (j)]
    size_t nr = 0, cap = 0;
    uint32_t idx = LCS(alen, blen), i = alen, j = blen;
    uint32_t as = alen, ae = 0, bs = 0, be = 0; /* as == alen: no range open */
    while (i > 0 && j > 0) {
        int emit = 0;
        if (a[i - 1] == b[j - 1]) {
            if (res) res[idx - 1] = (char)a[i - 1];
            if (as == alen) {
                as = ae = i - 1;
                bs = be = j - 1;
            } else if (as == i && bs == j) { /* extends the range backwards */
                as--;
                bs--;
            } else {
                emit = 1;
            }
            if (as == 0 || bs == 0) emit = 1;
            idx--;
            i--;
            j--;
        } else {
            if (LCS(i - 1, j) > LCS(i, j - 1)) i--;
            else j--;
            if (as != alen) emit = 1;
        }
        if (emit) {
            uint32_t mlen = ae - as + 1;
            if (o->getidx && (o->minmatchlen == 0 || mlen >= o->minmatchlen)) {
                if (nr == cap) {
                    cap = cap ? cap * 2 : 16;
                    *ranges = xrealloc(*ranges, cap * sizeof **ranges);
                }
                (*ranges)[nr++] = (lcs_range){as, ae, bs, be};
            }
            as = alen;
        }
    }
    return nr;
#undef LCS
}

static void lcs_reply_idx(client *c, const lcs_range *r, size_t nr, uint32_t len, int withlen) {
    reply_map(c, 2);
    reply_bulk_str(c, "matches");
    reply_array(c, (long long)nr);
    for (size_t k = 0; k < nr; k++) {
        reply_array(c, 2 + withlen);
        reply_array(c, 2);
        reply_int(c, r[k].a0);
        reply_int(c, r[k].a1);
        reply_array(c, 2);
        reply_int(c, r[k].b0);
        reply_int(c, r[k].b1);
        if (withlen) reply_int(c, (long long)r[k].a1 - r[k].a0 + 1);
    }
    reply_bulk_str(c, "len");
    reply_int(c, len);
}

/* The LCS table of a and b: dp[i][j] the LCS length of a[0..i) and
 * b[0..j); NULL when it cannot be allocated. */
static uint32_t *lcs_table(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen) {
    size_t w = (size_t)blen + 1, cells;
    if (__builtin_mul_overflow((size_t)alen + 1, w, &cells) ||
        cells > SIZE_MAX / sizeof(uint32_t))
        return NULL;
    uint32_t *dp = malloc(cells * sizeof *dp);
    if (!dp) return NULL;
    for (size_t i = 0; i <= alen; i++) {
        for (size_t j = 0; j <= blen; j++) {
            uint32_t v;
            if (i == 0 || j == 0) v = 0;
            else if (a[i - 1] == b[j - 1]) v = dp[(i - 1) * w + j - 1] + 1;
            else {
                uint32_t l1 = dp[(i - 1) * w + j], l2 = dp[i * w + j - 1];
                v = l1 > l2 ? l1 : l2;
            }
            dp[i * w + j] = v;
        }
    }
    return dp;
}

void cmd_lcs(client *c) {
    db *d = db_get(c->db);
    vt_entry *ea = db_lookup_read(d, c->argv[1].p, c->argv[1].len);
    vt_entry *eb = db_lookup_read(d, c->argv[2].p, c->argv[2].len);
    if ((ea && ea->val->type != OBJ_STRING) || (eb && eb->val->type != OBJ_STRING)) {
        reply_error(c, "ERR The specified keys must contain string values");
        return;
    }
    lcs_opts o;
    if (!lcs_parse(c, &o)) return;
    char bufa[OBJ_INTBUF], bufb[OBJ_INTBUF];
    size_t la = 0, lb = 0;
    const uint8_t *a = ea ? value_bytes(ea->val, bufa, &la) : (const uint8_t *)"";
    const uint8_t *b = eb ? value_bytes(eb->val, bufb, &lb) : (const uint8_t *)"";
    if (la >= UINT32_MAX - 1 || lb >= UINT32_MAX - 1) {
        reply_error(c, "ERR String too long for LCS");
        return;
    }
    uint32_t alen = (uint32_t)la, blen = (uint32_t)lb;
    uint32_t *dp = lcs_table(a, alen, b, blen);
    if (!dp) {
        reply_error(c, "ERR Insufficient memory, failed allocating transient memory for LCS");
        return;
    }
    uint32_t len = dp[(size_t)alen * ((size_t)blen + 1) + blen];
    if (o.getlen) {
        reply_int(c, len);
    } else {
        char *res = o.getidx ? NULL : xmalloc((size_t)len + 1);
        lcs_range *ranges = NULL;
        size_t nr = lcs_walk(a, alen, b, blen, dp, res, &o, &ranges);
        if (o.getidx) lcs_reply_idx(c, ranges, nr, len, o.withmatchlen);
        else reply_bulk(c, res, len);
        free(res);
        free(ranges);
    }
    free(dp);
}

/* ---- BITFIELD BITFIELD_RO ---- */

enum { BF_GET, BF_SET, BF_INCRBY };
enum { BF_WRAP, BF_SAT, BF_FAIL };

typedef struct bf_op {
    uint64_t offset;
    long long value; /* SET's value, INCRBY's increment */
    int opcode, owtype, bits, sign;
} bf_op;

/* The unsigned bits-wide field at bit offset off (bits past len read 0). */
static uint64_t bf_get_u(const uint8_t *p, size_t len, uint64_t off, int bits) {
    uint64_t v = 0;
    for (int i = 0; i < bits; i++, off++) {
        size_t byte = (size_t)(off >> 3);
        unsigned b = byte < len ? ((unsigned)p[byte] >> (7 - (off & 7))) & 1u : 0u;
        v = (v << 1) | b;
    }
    return v;
}

static int64_t bf_get_i(const uint8_t *p, size_t len, uint64_t off, int bits) {
    uint64_t v = bf_get_u(p, len, off, bits);
    if (bits < 64 && (v & ((uint64_t)1 << (bits - 1)))) v |= UINT64_MAX << bits;
    return (int64_t)v;
}

/* Writes the low bits of v at bit offset off (the string is long enough). */
static void bf_set(uint8_t *p, uint64_t off, int bits, uint64_t v) {
    for (int i = bits - 1; i >= 0; i--, off++) {
        size_t byte = (size_t)(off >> 3);
        uint8_t mask = (uint8_t)(1u << (7 - (off & 7)));
        if ((v >> i) & 1) p[byte] = (uint8_t)(p[byte] | mask);
        else p[byte] = (uint8_t)(p[byte] & ~mask);
    }
}

/* value + incr in an unsigned field of `bits` (Redis's
 * checkUnsignedBitfieldOverflow): 0 when it fits, else 1 (or -1 for an
 * underflow) with *res the wrapped or saturated result. */
static int bf_overflow_u(uint64_t value, int64_t incr, int bits, int ow, uint64_t *res) {
    uint64_t max = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    int64_t maxincr = (int64_t)(max - value), minincr = -(int64_t)value;
    int dir = 0;
    if (value > max || (incr > 0 && incr > maxincr)) dir = 1;
    else if (incr < 0 && incr < minincr) dir = -1;
    if (!dir) return 0;
    if (ow == BF_WRAP) {
        *res = (value + (uint64_t)incr) & ~(UINT64_MAX << bits);
        return 1;
    }
    if (ow == BF_SAT) *res = dir > 0 ? max : 0;
    return dir;
}

/* The same for a signed field (checkSignedBitfieldOverflow). */
static int bf_overflow_i(int64_t value, int64_t incr, int bits, int ow, int64_t *res) {
    int64_t max = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
    int64_t min = -max - 1;
    /* may wrap: only used once value is known to be in range */
    int64_t maxincr = (int64_t)((uint64_t)max - (uint64_t)value);
    int64_t minincr = (int64_t)((uint64_t)min - (uint64_t)value);
    int dir = 0;
    if (value > max || (bits != 64 && incr > maxincr) ||
        (value >= 0 && incr > 0 && incr > maxincr))
        dir = 1;
    else if (value < min || (bits != 64 && incr < minincr) ||
             (value < 0 && incr < 0 && incr < minincr))
        dir = -1;
    if (!dir) return 0;
    if (ow == BF_WRAP) {
        uint64_t r = (uint64_t)value + (uint64_t)incr;
        if (bits < 64) {
            uint64_t mask = UINT64_MAX << bits;
            r = (r & ((uint64_t)1 << (bits - 1))) ? r | mask : r & ~mask;
        }
        *res = (int64_t)r;
        return 1;
    }
    if (ow == BF_SAT) *res = dir > 0 ? max : min;
    return dir;
}

/* "i8", "u16": Redis's getBitfieldTypeFromArgument. */
static int bf_parse_type(client *c, const arg *a, int *sign, int *bits) {
    long long n;
    if (a->len >= 2 && (a->p[0] == 'i' || a->p[0] == 'u') &&
        str_to_ll(a->p + 1, a->len - 1, &n) && n >= 1 && n <= (a->p[0] == 'i' ? 64 : 63)) {
        *sign = a->p[0] == 'i';
        *bits = (int)n;
        return 1;
    }
    reply_error(c, "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is "
                   "not supported but i64 is.");
    return 0;
}

/* Parses BITFIELD's operations into *ops (malloc'd); the number of them,
 * or -1 after replying an error. *last: the last bit a SET/INCRBY writes
 * (-1 when there is none). */
static int bf_parse(client *c, bf_op **ops, int64_t *last) {
    int n = 0, ow = BF_WRAP;
    *ops = xmalloc((size_t)c->argc * sizeof **ops);
    *last = -1;
    for (int j = 2; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        int rem = c->argc - j - 1, opcode;
        if (arg_is(a, "get") && rem >= 2) opcode = BF_GET;
        else if (arg_is(a, "set") && rem >= 3) opcode = BF_SET;
        else if (arg_is(a, "incrby") && rem >= 3) opcode = BF_INCRBY;
        else if (arg_is(a, "overflow") && rem >= 1) {
            const arg *t = &c->argv[++j];
            if (arg_is(t, "wrap")) ow = BF_WRAP;
            else if (arg_is(t, "sat")) ow = BF_SAT;
            else if (arg_is(t, "fail")) ow = BF_FAIL;
            else {
                reply_error(c, "ERR Invalid OVERFLOW type specified");
                return -1;
            }
            continue;
        } else {
            reply_syntax_error(c);
            return -1;
        }
        bf_op *o = &(*ops)[n];
        o->opcode = opcode;
        o->owtype = ow;
        o->value = 0;
        if (!bf_parse_type(c, &c->argv[j + 1], &o->sign, &o->bits)) return -1;
        if (!parse_bit_offset(c, &c->argv[j + 2], 1, o->bits, &o->offset)) return -1;
        if (opcode != BF_GET) {
            int64_t end = (int64_t)(o->offset + (uint64_t)o->bits - 1);
            if (end > *last) *last = end;
            if (!arg_ll(c, &c->argv[j + 3], &o->value)) return -1;
        }
        n++;
        j += opcode == BF_GET ? 2 : 3;
    }
    return n;
}

/* Runs a SET or INCRBY on p, replying its result; the write is skipped
 * (nil reply) on an overflow with FAIL. Returns 1 when the field changed. */
static int bf_write(client *c, const bf_op *o, uint8_t *p, size_t len) {
    int ovf;
    if (o->sign) {
        int64_t old = bf_get_i(p, len, o->offset, o->bits), nv, wrapped = 0, ret;
        if (o->opcode == BF_INCRBY) {
            ovf = bf_overflow_i(old, o->value, o->bits, o->owtype, &wrapped);
            nv = ovf ? wrapped : (int64_t)((uint64_t)old + (uint64_t)o->value);
            ret = nv;
        } else {
            nv = o->value;
            ovf = bf_overflow_i(nv, 0, o->bits, o->owtype, &wrapped);
            if (ovf) nv = wrapped;
            ret = old;
        }
        if (ovf && o->owtype == BF_FAIL) {
            reply_null(c);
            return 0;
        }
        reply_int(c, ret);
        bf_set(p, o->offset, o->bits, (uint64_t)nv);
        return old != nv;
    } else {
        uint64_t old = bf_get_u(p, len, o->offset, o->bits), nv, wrapped = 0, ret;
        if (o->opcode == BF_INCRBY) {
            ovf = bf_overflow_u(old, o->value, o->bits, o->owtype, &wrapped);
            nv = ovf ? wrapped : old + (uint64_t)o->value;
            ret = nv;
        } else {
            nv = (uint64_t)o->value;
            ovf = bf_overflow_u(nv, 0, o->bits, o->owtype, &wrapped);
            if (ovf) nv = wrapped;
            ret = old;
        }
        if (ovf && o->owtype == BF_FAIL) {
            reply_null(c);
            return 0;
        }
        reply_int(c, (long long)ret);
        bf_set(p, o->offset, o->bits, nv);
        return old != nv;
    }
}

static void bf_reply_get(client *c, const bf_op *o, const uint8_t *p, size_t len) {
    if (o->sign) reply_int(c, bf_get_i(p, len, o->offset, o->bits));
    else reply_int(c, (long long)bf_get_u(p, len, o->offset, o->bits));
}

static void bitfield_generic(client *c, int ro) {
    const arg *k = &c->argv[1];
    bf_op *ops;
    int64_t last;
    int n = bf_parse(c, &ops, &last);
    if (n < 0) goto done;
    db *d = db_get(c->db);
    int wrong;
    if (last < 0) { /* only GETs: a read */
        vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_READ, &wrong);
        if (wrong) goto done;
        char buf[OBJ_INTBUF];
        size_t len = 0;
        const uint8_t *p = e ? value_bytes(e->val, buf, &len) : NULL;
        reply_array(c, n);
        for (int j = 0; j < n; j++) bf_reply_get(c, &ops[j], p, len);
        goto done;
    }
    if (ro) {
        reply_error(c, "ERR BITFIELD_RO only supports the GET subcommand");
        goto done;
    }
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) goto done;
    vt_wr w;
    int grew;
    size_t need = (size_t)((uint64_t)last >> 3) + 1;
    obj *o;
    int told = 1; /* db_write told the key changed */
    if (e && obj_strlen(e->val) >= need) {
        /* no growth: the table's own write, and the key is told changed
         * (WATCH, tracking) only when a field changed, as Redis 7.0
         * signals it only then */
        int made;
        e = vt_write(d->t, k->p, k->len, 0, &w, &made);
        assert(e && !made);
        evict_touch(e);
        o = obj_writable(e->val, obj_strlen(e->val));
        e->val = o;
        grew = 0;
        told = 0;
    } else {
        o = open_for_bits(d, k, need, &w, &grew);
    }
    uint8_t *p = (uint8_t *)o->data;
    long long changes = 0;
    reply_array(c, n);
    for (int j = 0; j < n; j++) {
        if (ops[j].opcode == BF_GET) {
            bf_reply_get(c, &ops[j], p, o->len);
        } else if (bf_write(c, &ops[j], p, o->len) || grew) {
            changes++; /* a write that changed the field or the length, as Redis 7.0 */
        }
    }
    vt_write_done(&w);
    if (changes && !told) db_key_changed(c->db, k->p, k->len);
    if (changes) {
        notify_keyspace_event(NOTIFY_STRING, "setbit", k->p, k->len, c->db);
        server_dirty(changes);
    } else if (grew) {
        /* Created or grown with every write refused by FAIL: Redis 7.0
         * neither signals nor propagates this (its replicas lack the key);
         * verso propagates it so that AOF and replicas hold the same
         * bytes, without an event, as Redis sends none. */
        server_dirty(1);
    }
done:
    free(ops);
}

void cmd_bitfield(client *c) { bitfield_generic(c, 0); }
void cmd_bitfield_ro(client *c) { bitfield_generic(c, 1); }

/* BITFIELD's key: RW unless every operation is a GET (Redis's
 * bitfieldGetKeys). */
int bitfield_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    (void)d;
    if (argc < 2) return 0;
    int flags = KS_RO | KS_ACCESS;
    for (int i = 2; i < argc; i++)
        if (arg_is(&argv[i], "set") || arg_is(&argv[i], "incrby"))
            flags = KS_RW | KS_ACCESS | KS_UPDATE;
    cmd_keys_add(out, 1, flags);
    return 1;
}
