/* rdb_read: the snapshot loader (see rdb.h for the contract and
 * doc/snapshot-format.md for the bytes).
 *
 * The source (rdb_io.h: a file, an fd, memory) is read as a stream through
 * one buffer of plain RDB bytes (1 MiB, or the size for smaller plain
 * files), filled 256 KB at a time by source_read or by the LZ4 frame
 * decompressor, so memory stays bounded whatever
 * the file size: that buffer, the 256 KB compressed input buffer, and a
 * scratch buffer for strings larger than the buffer, which grows only as
 * their bytes actually arrive. Strings that fit are handed out as pointers
 * into the buffer, without copying.
 *
 * The CRC64 is advanced lazily over the bytes consumed, each time the buffer
 * is compacted, so that it costs one crc64 call per refill, not per field.
 *
 * Collections' bodies are rdb_coll.c's, through the primitives at the end of
 * this file (rdb_priv.h).
 *
 * Any damage stops the load with "<name>: offset <N>: <what>", the name
 * being the source's (the path for files), with 'key "<key>": ' before
 * <what> when it is in a value. Keys already
 * handed to the callback before the damage was found may be wrong (the CRC is
 * only known at the end): the caller must discard everything on -1. */
#include "rdb.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lz4frame.h>
#include <lzf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"
#include "vbuf.h"
#include "crc64.h"
#include "rdb_coll.h"
#include "rdb_fmt.h"
#include "rdb_priv.h"

#define RBUF_SIZE (1u << 20)
/* read(2) size for plain files and for LZ4 input */
#define READ_CHUNK (256u << 10)
#define ZBUF_SIZE READ_CHUNK
/* LZF decompresses to at most 88x its input (a 3-byte back reference
 * copies 264 bytes); the uncompressed size is also capped as Redis's
 * proto-max-bulk-len default, so a damaged length cannot make us allocate
 * gigabytes before the data proves it. */
#define LZF_MAX_RATIO 88
#define LZF_MAX_LEN (512ull << 20)
/* Scratch buffers above this are freed after use. */
#define SCRATCH_KEEP (4u << 20)

struct rd {
    const char *path;          /* the source's name */
    source *src;
    uint64_t fsize;            /* SOURCE_SIZE_UNKNOWN for pipes and sockets */
    int lz4;
    int ver;
    const rdb_load_cb *cb;
    void *priv;
    rdb_load_stats *st;
    int64_t now_ms;
    uint64_t next_progress_at; /* stream offset of the next progress call */
    /* plain RDB stream: buf[pos..len) is unread; buf[0] is at stream offset
     * base; crc covers the stream up to base + crc_pos */
    unsigned char *buf;
    size_t bufsize;            /* RBUF_SIZE, less for small files */
    size_t pos, len, crc_pos;
    uint64_t base, crc;
    int src_end;               /* the source has no more plain bytes */
    /* LZ4 input: zbuf[zpos..zlen) unread, zbuf[0] at file offset zbase */
    LZ4F_dctx *dctx;
    unsigned char *zbuf;
    size_t zcap;               /* ZBUF_SIZE, less for small files */
    size_t zpos, zlen;
    uint64_t zbase;
    int zeof, frame_done;
    vbuf scratch, lzf;
    const obj *key;            /* the key whose value is being read: errors name it,
                                  strings are built with it (obj.h, keyed values) */
    char *err;
    size_t errlen;
    int failed;
    int tail_ok;               /* rdb_load_preamble: bytes may follow a plain RDB */
};

static inline uint64_t rd_off(const rd *r) { return r->base + r->pos; }

/* ---- errors ---- */

static int rd_vfail(rd *r, uint64_t off, const char *where, const char *fmt, va_list ap) {
    if (r->failed) return -1;   /* the first error is the cause */
    int n = snprintf(r->err, r->errlen, "%s: offset %llu%s: ", r->path,
                     (unsigned long long)off, where);
    if (r->key && n > 0 && (size_t)n < r->errlen) {
        /* the key's name, printable bytes only, at most 64 of them */
        size_t klen = r->key->len, show = klen > 64 ? 64 : klen;
        int k = snprintf(r->err + n, r->errlen - (size_t)n, "key \"");
        for (size_t i = 0; i < show && k > 0 && (size_t)(n + k) + 8 < r->errlen; i++) {
            unsigned char c = (unsigned char)r->key->data[i];
            r->err[n + k++] = c >= 32 && c < 127 && c != '"' ? (char)c : '?';
        }
        if (k > 0 && (size_t)(n + k) + 8 < r->errlen)
            k += snprintf(r->err + n + k, r->errlen - (size_t)(n + k), "%s\": ",
                          show < klen ? "..." : "");
        if (k > 0) n += k;
    }
    if (n > 0 && (size_t)n < r->errlen) vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
    r->failed = 1;
    return -1;
}

/* An error in the RDB stream; for LZ4 files the offset is in the
 * decompressed stream. */
__attribute__((format(printf, 3, 4)))
static int rd_fail(rd *r, uint64_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rd_vfail(r, off, r->lz4 ? " of the decompressed stream" : "", fmt, ap);
    va_end(ap);
    return -1;
}

/* An error in the file itself (I/O, LZ4 frame): a file offset. */
__attribute__((format(printf, 3, 4)))
static int rd_zfail(rd *r, uint64_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rd_vfail(r, off, r->lz4 ? " of the compressed file" : "", fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- sources of plain bytes ---- */

/* The source failed: its message (which names it and the offset) is ours. */
static int rd_src_fail(rd *r) {
    if (r->failed) return -1;
    snprintf(r->err, r->errlen, "%s", source_error(r->src));
    r->failed = 1;
    return -1;
}

static int src_plain(rd *r) {
    size_t room = r->bufsize - r->len;
    ssize_t k = source_read(r->src, r->buf + r->len, room < READ_CHUNK ? room : READ_CHUNK);
    if (k < 0) return rd_src_fail(r);
    if (k == 0) r->src_end = 1;
    r->len += (size_t)k;
    return 0;
}

static int z_read(rd *r) {
    r->zbase += r->zlen;
    r->zpos = r->zlen = 0;
    ssize_t k = source_read(r->src, r->zbuf, r->zcap);
    if (k < 0) return rd_src_fail(r);
    if (k == 0) r->zeof = 1;
    r->zlen = (size_t)k;
    return 0;
}

/* Decompresses until some plain bytes arrive or the frame ends. Errors of
 * the frame (bad header, block, content checksum) come from LZ4F. */
static int src_lz4(rd *r) {
    for (;;) {
        if (r->frame_done) {
            r->src_end = 1;
            return 0;
        }
        if (r->zpos == r->zlen && !r->zeof && z_read(r)) return -1;
        size_t dst = r->bufsize - r->len, src = r->zlen - r->zpos;
        size_t ret = LZ4F_decompress(r->dctx, r->buf + r->len, &dst,
                                     r->zbuf + r->zpos, &src, NULL);
        r->zpos += src;
        r->len += dst;
        if (LZ4F_isError(ret))
            return rd_zfail(r, r->zbase + r->zpos, "bad LZ4 frame: %s",
                            LZ4F_getErrorName(ret));
        if (ret == 0) r->frame_done = 1;
        if (dst > 0) return 0;
        if (!r->frame_done && src == 0 && r->zeof)
            return rd_zfail(r, r->zbase + r->zpos,
                            "truncated LZ4 frame (the file ends inside it)");
    }
}

/* Progress is reported between keys, every RD_PROGRESS_STEP bytes of the
 * stream (one comparison per key); a single big key is one step. */
#define RD_PROGRESS_STEP (4u << 10)

static void rd_progress(rd *r) {
    if (!r->cb || !r->cb->progress) return;
    uint64_t done = r->lz4 ? r->zbase + r->zpos : r->base + r->pos;
    r->cb->progress(r->priv, done, r->fsize == SOURCE_SIZE_UNKNOWN ? 0 : r->fsize,
                    r->st->keys_loaded);
}

/* Moves the unread bytes to the front, after adding the consumed ones to
 * the CRC. */
static void rd_compact(rd *r) {
    r->crc = crc64(r->crc, r->buf + r->crc_pos, r->pos - r->crc_pos);
    memmove(r->buf, r->buf + r->pos, r->len - r->pos);
    r->base += r->pos;
    r->len -= r->pos;
    r->pos = r->crc_pos = 0;
}

static int rd_fill(rd *r) { return r->lz4 ? src_lz4(r) : src_plain(r); }

/* Makes n (<= bufsize) bytes available at buf + pos. */
static int rd_need_slow(rd *r, size_t n) {
    rd_compact(r);
    while (r->len - r->pos < n) {
        if (r->src_end)
            return rd_fail(r, r->base + r->len, "unexpected end of %s",
                           r->lz4 ? "the decompressed stream" : "file");
        if (rd_fill(r)) return -1;
    }
    return 0;
}

static inline int rd_need(rd *r, size_t n) {
    return r->len - r->pos >= n ? 0 : rd_need_slow(r, n);
}

/* ---- primitives ---- */

static inline int rd_u8(rd *r, unsigned *v) {
    if (rd_need(r, 1)) return -1;
    *v = r->buf[r->pos++];
    return 0;
}

static int rd_le(rd *r, int n, uint64_t *v) {
    if (rd_need(r, (size_t)n)) return -1;
    *v = 0;
    for (int i = 0; i < n; i++) *v |= (uint64_t)r->buf[r->pos + (size_t)i] << (8 * i);
    r->pos += (size_t)n;
    return 0;
}

static int rd_be(rd *r, int n, uint64_t *v) {
    if (rd_need(r, (size_t)n)) return -1;
    *v = 0;
    for (int i = 0; i < n; i++) *v = (*v << 8) | r->buf[r->pos + (size_t)i];
    r->pos += (size_t)n;
    return 0;
}

/* A length prefix; *special is set when it names a string encoding. */
static int rd_len_any(rd *r, uint64_t *len, int *special) {
    uint64_t at = rd_off(r);
    unsigned b;
    if (rd_u8(r, &b)) return -1;
    *special = 0;
    switch (b >> 6) {
    case RDB_LEN_6BIT:
        *len = b & 0x3f;
        return 0;
    case RDB_LEN_14BIT: {
        unsigned lo;
        if (rd_u8(r, &lo)) return -1;
        *len = ((uint64_t)(b & 0x3f) << 8) | lo;
        return 0;
    }
    case RDB_LEN_ENCVAL:
        *special = 1;
        *len = b & 0x3f;
        return 0;
    }
    if (b == RDB_LEN_32BIT) return rd_be(r, 4, len);
    if (b == RDB_LEN_64BIT) return rd_be(r, 8, len);
    return rd_fail(r, at, "bad length prefix 0x%02x", b);
}

static int rd_len(rd *r, uint64_t *len, const char *what) {
    uint64_t at = rd_off(r);
    int special;
    if (rd_len_any(r, len, &special)) return -1;
    if (special) return rd_fail(r, at, "%s: a string encoding where a length belongs", what);
    return 0;
}

/* ---- strings ---- */

/* Plain bytes left in a plain file; unbounded when the size is unknown. */
static uint64_t rd_left_in_file(const rd *r) {
    if (r->fsize == SOURCE_SIZE_UNKNOWN) return UINT64_MAX;
    return r->fsize > rd_off(r) ? r->fsize - rd_off(r) : 0;
}

/* len raw bytes: a pointer into the buffer when they fit, else a copy in
 * scratch that grows as the bytes arrive. */
static int rd_raw(rd *r, uint64_t len, uint64_t at, rstr *s) {
    if (len > OBJ_MAX_LEN)
        return rd_fail(r, at, "string length %llu is too large", (unsigned long long)len);
    if (!r->lz4 && len > rd_left_in_file(r))
        return rd_fail(r, at, "string length %llu exceeds the %llu bytes left in the file",
                       (unsigned long long)len, (unsigned long long)rd_left_in_file(r));
    s->is_int = 0;
    s->len = (size_t)len;
    if (len <= r->bufsize) {
        if (rd_need(r, (size_t)len)) return -1;
        s->p = (const char *)r->buf + r->pos;
        r->pos += (size_t)len;
        return 0;
    }
    vbuf_reset(&r->scratch);
    if (!r->lz4 && r->fsize != SOURCE_SIZE_UNKNOWN)
        vbuf_reserve(&r->scratch, (size_t)len);  /* the file holds it */
    while (r->scratch.len < len) {
        if (rd_need(r, 1)) return -1;
        size_t k = r->len - r->pos;
        if (k > len - r->scratch.len) k = (size_t)(len - r->scratch.len);
        vbuf_append(&r->scratch, r->buf + r->pos, k);
        r->pos += k;
    }
    s->p = r->scratch.data;
    return 0;
}

static int rd_lzf(rd *r, uint64_t at, rstr *s) {
    uint64_t clen, len;
    if (rd_len(r, &clen, "LZF compressed length") || rd_len(r, &len, "LZF length"))
        return -1;
    if (clen == 0 || len == 0 || clen > LZF_MAX_LEN || len > clen * LZF_MAX_RATIO)
        return rd_fail(r, at, "bad LZF string lengths (compressed %llu, plain %llu)",
                       (unsigned long long)clen, (unsigned long long)len);
    if (len > LZF_MAX_LEN)
        return rd_fail(r, at, "LZF string of %llu bytes is over the %llu MB limit",
                       (unsigned long long)len, LZF_MAX_LEN >> 20);
    rstr c;
    if (rd_raw(r, clen, at, &c)) return -1;
    vbuf_reset(&r->lzf);
    vbuf_reserve(&r->lzf, (size_t)len);
    unsigned n = lzf_decompress(c.p, (unsigned)clen, r->lzf.data, (unsigned)len);
    if (n != len)
        return rd_fail(r, at, "LZF string does not decompress to its %llu bytes",
                       (unsigned long long)len);
    s->is_int = 0;
    s->p = r->lzf.data;
    s->len = (size_t)len;
    return 0;
}

static int rd_string(rd *r, rstr *s) {
    uint64_t at = rd_off(r), len, v;
    int special;
    if (rd_len_any(r, &len, &special)) return -1;
    if (!special) return rd_raw(r, len, at, s);
    switch (len) {
    case RDB_ENC_INT8:
        if (rd_le(r, 1, &v)) return -1;
        s->v = (int8_t)v;
        break;
    case RDB_ENC_INT16:
        if (rd_le(r, 2, &v)) return -1;
        s->v = (int16_t)v;
        break;
    case RDB_ENC_INT32:
        if (rd_le(r, 4, &v)) return -1;
        s->v = (int32_t)v;
        break;
    case RDB_ENC_LZF:
        return rd_lzf(r, at, s);
    default:
        return rd_fail(r, at, "unknown string encoding %llu", (unsigned long long)len);
    }
    s->is_int = 1;
    return 0;
}

static void rd_trim_scratch(rd *r) {
    if (r->scratch.cap > SCRATCH_KEEP) vbuf_free(&r->scratch);
    if (r->lzf.cap > SCRATCH_KEEP) vbuf_free(&r->lzf);
}

/* ---- opcodes ---- */

static int rd_refuse(rd *r, uint64_t at, unsigned op);
static const char *type_name(unsigned t);

/* A value of type `type`, whose byte (at offset at) was just read: 0 with
 * *val set, 1 for an empty collection (no value), -1 on damage. */
static int rd_value(rd *r, uint64_t at, unsigned type, int64_t expire, obj **val) {
    if (type != RDB_TYPE_STRING) {
        if (!rdb_coll_readable(type)) return rd_refuse(r, at, type);
        return rdb_coll_read(r, type, val);
    }
    rstr s;
    if (rd_string(r, &s)) return -1;
    if (!r->key) { /* a lone value (RESTORE's payload) */
        *val = s.is_int ? obj_new_int(s.v) : obj_new_value(s.p, s.len);
        return 0;
    }
    /* built with its key (the loader stores it as it is), with room for its
     * expire */
    char ibuf[OBJ_INTBUF];
    if (s.is_int) {
        s.p = ibuf;
        s.len = ll_to_str(ibuf, s.v);
    }
    *val = obj_kv_new_value(r->key->data, r->key->len, s.p, s.len, expire != -1);
    return 0;
}

/* One string key and its value of type `type`, handed to the callback
 * unless expired or empty (an empty collection is skipped, as Redis does). */
static int rd_key(rd *r, uint64_t at, unsigned type, int db, int64_t expire) {
    rstr s;
    if (rd_string(r, &s)) return -1;
    obj *key;
    if (s.is_int) {
        char ibuf[OBJ_INTBUF];
        key = obj_new_raw(ibuf, ll_to_str(ibuf, s.v));
    } else {
        key = obj_new_raw(s.p, s.len);
    }
    obj *val = NULL;
    r->key = key;
    int vrc = rd_value(r, at, type, expire, &val);
    r->key = NULL;
    if (vrc != 0) {
        obj_decref(key);
        if (vrc < 0) return -1;
        r->st->keys_empty++;
        return 0;
    }
    rd_trim_scratch(r);
    if (expire != -1 && expire < r->now_ms) {
        obj_decref(key);
        obj_decref(val);
        r->st->keys_expired++;
        return 0;
    }
    char cerr[RDB_ERRLEN] = "";
    int rc = r->cb->key_at
                 ? r->cb->key_at(r->priv, db, key, val, expire, &at, cerr, sizeof cerr)
                 : r->cb->key(r->priv, db, key, val, expire, cerr, sizeof cerr);
    if (rc != 0) return rd_fail(r, at, "%s", cerr[0] ? cerr : "key refused by the loader");
    r->st->keys_loaded++;
    return 0;
}

/* The data ended at `at`: a batching callee inserts what it holds now, and
 * may refuse a key it saw earlier (its offset comes back in at). */
static int rd_flush_keys(rd *r, uint64_t at) {
    if (!r->cb->key_at) return 0;
    char cerr[RDB_ERRLEN] = "";
    if (r->cb->key_at(r->priv, -1, NULL, NULL, -1, &at, cerr, sizeof cerr) != 0)
        return rd_fail(r, at, "%s", cerr[0] ? cerr : "key refused by the loader");
    return 0;
}

static int rd_selectdb(rd *r, uint64_t at, int *db) {
    uint64_t v;
    if (rd_len(r, &v, "SELECTDB")) return -1;
    if (v > INT_MAX) return rd_fail(r, at, "database index %llu out of range", (unsigned long long)v);
    *db = (int)v;
    return 0;
}

/* RESIZEDB is a hint; a damaged one must not make the callee allocate
 * beyond what the rest of the file could hold (a key takes >= 3 bytes; an
 * LZ4 frame expands at most 255x, so the whole file, not only what is left
 * of it, bounds what is still to come: bytes already decompressed into the
 * buffers came from it; an unknown size caps at 2^28 keys). */
static int rd_resizedb(rd *r, int db) {
    uint64_t keys, expires;
    if (rd_len(r, &keys, "RESIZEDB") || rd_len(r, &expires, "RESIZEDB")) return -1;
    uint64_t left = r->lz4 ? r->fsize * 256 : rd_left_in_file(r);
    if (r->fsize == SOURCE_SIZE_UNKNOWN) left = 3ull << 28;
    uint64_t max = left / 3;
    if (keys > max) keys = max;
    if (expires > keys) expires = keys;
    if (r->cb->resize) r->cb->resize(r->priv, db, keys, expires);
    return 0;
}

static int aux_is(const rstr *k, const char *name) {
    return !k->is_int && k->len == strlen(name) && !memcmp(k->p, name, k->len);
}

/* "a-b,c-d,..." (slots, a <= b < 16384) into set; -1 when malformed. */
static int parse_staged(const char *p, size_t n, uint8_t *set) {
    memset(set, 0, 16384 / 8);
    size_t i = 0;
    while (i < n) {
        long a = 0, b = 0;
        int da = 0, db = 0;
        while (i < n && p[i] >= '0' && p[i] <= '9' && da < 6) a = a * 10 + (p[i++] - '0'), da++;
        if (!da || i >= n || p[i++] != '-') return -1;
        while (i < n && p[i] >= '0' && p[i] <= '9' && db < 6) b = b * 10 + (p[i++] - '0'), db++;
        if (!db || a > b || b >= 16384 || (i < n && p[i++] != ',')) return -1;
        for (long s = a; s <= b; s++) set[s >> 3] |= (uint8_t)(1u << (s & 7));
    }
    return 0;
}

/* AUX fields are read and ignored, but for the replication ones (a
 * replication payload's, or a replica's own save): repl-stream-db (where
 * the stream goes on), repl-id and repl-offset (the history the data is
 * at, for a partial resync after a restart); and verso-staged-slots, the
 * slots an atomic slot import was loading at the cut (a malformed one is
 * ignored as an unknown field: the keys load either way). */
static int rd_aux(rd *r) {
    rstr k, v;
    if (rd_string(r, &k)) return -1;
    int which = aux_is(&k, "repl-stream-db") ? 1 : aux_is(&k, "repl-id") ? 2
                : aux_is(&k, "repl-offset") ? 3 : aux_is(&k, "verso-staged-slots") ? 4 : 0;
    if (rd_string(r, &v)) return -1;
    if (which == 4 && !v.is_int)
        r->st->has_staged = parse_staged(v.p, v.len, r->st->staged) == 0;
    long long n = v.v;
    int num = v.is_int || (which != 2 && str_to_ll(v.p, v.len, &n));
    if (which == 1 && num && n >= 0 && n <= INT_MAX) r->st->repl_stream_db = (int)n;
    if (which == 2 && !v.is_int && v.len == sizeof r->st->repl_id - 1) {
        memcpy(r->st->repl_id, v.p, v.len);
        r->st->repl_id[v.len] = '\0';
    }
    if (which == 3 && num && n >= 0) r->st->repl_offset = n;
    rd_trim_scratch(r);
    return 0;
}

static const char *type_name(unsigned t) {
    static const char *const names[] = {
        [1] = "list", [2] = "set", [3] = "zset", [4] = "hash", [5] = "zset",
        [6] = "module", [7] = "module", [9] = "hash (zipmap)",
        [10] = "list (ziplist)", [11] = "set (intset)", [12] = "zset (ziplist)",
        [13] = "hash (ziplist)", [14] = "list (quicklist)", [15] = "stream",
        [16] = "hash (listpack)", [17] = "zset (listpack)",
        [18] = "list (quicklist)", [19] = "stream", [20] = "set (listpack)",
        [21] = "stream",
    };
    return t < sizeof names / sizeof names[0] ? names[t] : NULL;
}

static int rd_refuse(rd *r, uint64_t at, unsigned op) {
    if (op == RDB_OP_MODULE_AUX)
        return rd_fail(r, at, "module data (MODULE_AUX opcode 0xf7) is not supported");
    if (op == RDB_OP_FUNCTION2 || op == RDB_OP_FUNCTION_PRE_GA)
        return rd_fail(r, at, "functions (FUNCTION opcode 0x%02x) are not supported", op);
    const char *name = type_name(op);
    if (name)
        return rd_fail(r, at, "value type %u (%s) is not supported", op, name);
    return rd_fail(r, at, "unknown value type or opcode 0x%02x", op);
}

/* A function library (opcode 245): its code, to cb->function. */
static int rd_function(rd *r, uint64_t at) {
    rstr code;
    if (rd_string(r, &code)) return -1;
    char ibuf[OBJ_INTBUF];
    if (code.is_int) {
        code.len = ll_to_str(ibuf, code.v);
        code.p = ibuf;
    }
    char cerr[RDB_ERRLEN] = "";
    if (r->cb->function(r->priv, code.p, code.len, cerr, sizeof cerr) != 0)
        return rd_fail(r, at, "%s", cerr[0] ? cerr : "function library refused by the loader");
    rd_trim_scratch(r);
    return 0;
}

/* ---- primitives for the collection codecs (rdb_priv.h) ---- */

uint64_t rdbr_off(const rd *r) { return rd_off(r); }

uint64_t rdbr_left(const rd *r) { return r->lz4 ? UINT64_MAX : rd_left_in_file(r); }

int rdbr_len(rd *r, uint64_t *len, const char *what) { return rd_len(r, len, what); }

int rdbr_string(rd *r, rstr *s) { return rd_string(r, s); }

int rdbr_raw(rd *r, void *p, size_t n) {
    if (rd_need(r, n)) return -1;
    memcpy(p, r->buf + r->pos, n);
    r->pos += n;
    return 0;
}

int rdbr_fail(rd *r, uint64_t off, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    rd_vfail(r, off, r->lz4 ? " of the decompressed stream" : "", fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- the end ---- */

/* After the checksum: the plain stream must end, then the LZ4 frame (whose
 * content checksum LZ4F verifies as it ends), then the file. */
static int rd_end(rd *r) {
    uint64_t at = rd_off(r);
    r->st->rdb_end = at;
    if (r->tail_ok && !r->lz4) return 0;     /* the AOF tail is the caller's */
    for (;;) {
        if (r->len > r->pos)
            return rd_fail(r, at, "unexpected data after the RDB checksum");
        if (r->src_end) break;
        rd_compact(r);
        if (rd_fill(r)) return -1;
    }
    if (!r->lz4) return 0;
    if (r->zpos == r->zlen && !r->zeof && z_read(r)) return -1;
    if (r->zpos < r->zlen)
        return rd_zfail(r, r->zbase + r->zpos, "trailing data after the LZ4 frame");
    r->st->rdb_end = r->zbase + r->zpos;
    return 0;
}

static int rd_trailer(rd *r) {
    r->crc = crc64(r->crc, r->buf + r->crc_pos, r->pos - r->crc_pos);
    r->crc_pos = r->pos;
    uint64_t computed = r->crc;
    if (r->ver >= RDB_VERSION_CKSUM) {
        uint64_t at = rd_off(r), stored;
        if (rd_le(r, 8, &stored)) return -1;
        /* 0 means "saved with rdbchecksum no": nothing to check, as Redis */
        if (stored != 0 && stored != computed)
            return rd_fail(r, at, "bad CRC64 checksum (file says %016llx, data gives %016llx)",
                           (unsigned long long)stored, (unsigned long long)computed);
    }
    return rd_end(r);
}

static int rd_body(rd *r) {
    int64_t expire = -1;
    int db = 0;
    uint64_t v;
    for (;;) {
        uint64_t at = rd_off(r);
        unsigned op;
        if (rd_u8(r, &op)) return -1;
        int rc = 0;
        if (op < RDB_OP_FUNCTION2 && (op == RDB_TYPE_STRING || type_name(op))) {
            /* a key: its name is read first, so that errors name it */
            rc = rd_key(r, at, op, db, expire);
            expire = -1;
            if (rc) return -1;
            if (at >= r->next_progress_at) {
                r->next_progress_at = at + RD_PROGRESS_STEP;
                rd_progress(r);
            }
            continue;
        }
        switch (op) {
        case RDB_OP_EXPIRETIME_MS:
            rc = rd_le(r, 8, &v);
            expire = (int64_t)v;
            break;
        case RDB_OP_EXPIRETIME:   /* seconds, before RDB version 3 */
            rc = rd_le(r, 4, &v);
            expire = (int64_t)(int32_t)(uint32_t)v * 1000;
            break;
        case RDB_OP_SELECTDB: rc = rd_selectdb(r, at, &db); break;
        case RDB_OP_RESIZEDB: rc = rd_resizedb(r, db); break;
        case RDB_OP_AUX: rc = rd_aux(r); break;
        case RDB_OP_IDLE: rc = rd_len(r, &v, "IDLE"); break;   /* LRU hint: ignored */
        case RDB_OP_FREQ: rc = rd_le(r, 1, &v); break;         /* LFU hint: ignored */
        case RDB_OP_FUNCTION2:
            if (!r->cb->function) return rd_refuse(r, at, op);
            rc = rd_function(r, at);
            break;
        case RDB_OP_EOF: return rd_flush_keys(r, at) || rd_trailer(r) ? -1 : 0;
        default: return rd_refuse(r, at, op);
        }
        if (rc) return -1;
    }
}

static int rd_header(rd *r) {
    if (rd_need(r, 9)) return -1;
    const unsigned char *h = r->buf + r->pos;
    if (memcmp(h, RDB_MAGIC, 5) != 0)
        return rd_fail(r, 0, "bad magic: neither an RDB file (\"REDIS\") nor an LZ4 frame");
    int ver = 0;
    for (int i = 5; i < 9; i++) {
        if (h[i] < '0' || h[i] > '9') return rd_fail(r, 5, "bad RDB version field");
        ver = ver * 10 + (h[i] - '0');
    }
    if (ver < RDB_VERSION_MIN || ver > RDB_VERSION_MAX)
        return rd_fail(r, 5, "unsupported RDB version %d (verso reads %d to %d)", ver,
                       RDB_VERSION_MIN, RDB_VERSION_MAX);
    r->ver = ver;
    r->pos += 9;
    return 0;
}

/* ---- entry points ---- */

/* Reads the first bytes to tell an LZ4 frame from plain RDB; they go to the
 * buffer they belong to (compressed input or plain bytes). */
static int rd_open(rd *r) {
    r->fsize = source_size(r->src);
    unsigned char m[4];
    ssize_t n = source_read(r->src, m, sizeof m);
    if (n < 0) return rd_src_fail(r);
    uint32_t v = (uint32_t)m[0] | (uint32_t)m[1] << 8 | (uint32_t)m[2] << 16 | (uint32_t)m[3] << 24;
    r->lz4 = n == 4 && v == RDB_LZ4_MAGIC;
    /* Buffers no bigger than the file needs: a plain file is its own size,
     * an LZ4 frame expands at most 255x (a small file must not cost a
     * megabyte, e.g. to a fuzzer under ASan). */
    uint64_t need = r->fsize == SOURCE_SIZE_UNKNOWN ? RBUF_SIZE
                    : r->lz4 && r->fsize <= RBUF_SIZE / 256 ? r->fsize * 256
                                                            : r->fsize;
    r->bufsize = need < RBUF_SIZE ? (need < 4096 ? 4096 : (size_t)need) : RBUF_SIZE;
    r->zcap = r->fsize < ZBUF_SIZE ? (r->fsize < 4096 ? 4096 : (size_t)r->fsize) : ZBUF_SIZE;
    r->buf = xmalloc(r->bufsize);
    if (!r->lz4) {
        memcpy(r->buf, m, (size_t)n);
        r->len = (size_t)n;
        return 0;
    }
    size_t rc = LZ4F_createDecompressionContext(&r->dctx, LZ4F_VERSION);
    if (LZ4F_isError(rc)) return rd_zfail(r, 0, "LZ4F: %s", LZ4F_getErrorName(rc));
    r->zbuf = xmalloc(r->zcap);
    memcpy(r->zbuf, m, sizeof m);
    r->zlen = sizeof m;
    return 0;
}

static void rd_init(rd *r, source *src, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->path = source_name(src);
    r->src = src;
    r->err = err;
    r->errlen = errlen;
    vbuf_init(&r->scratch);
    vbuf_init(&r->lzf);
}

static void rd_free(rd *r) {
    if (r->dctx) LZ4F_freeDecompressionContext(r->dctx);
    free(r->zbuf);
    free(r->buf);
    vbuf_free(&r->scratch);
    vbuf_free(&r->lzf);
}

static int load_from(source *src, int64_t now_ms, const rdb_load_cb *cb, void *priv,
                     rdb_load_stats *st, int tail_ok, char *err, size_t errlen) {
    memset(st, 0, sizeof *st);
    st->repl_stream_db = -1;
    st->repl_offset = -1;
    rd r;
    rd_init(&r, src, err, errlen);
    r.cb = cb;
    r.priv = priv;
    r.st = st;
    r.now_ms = now_ms;
    r.tail_ok = tail_ok;

    int rc = (rd_open(&r) || rd_header(&r) || rd_body(&r)) ? -1 : 0;
    if (cb->end) cb->end(priv, rc == 0);

    st->compressed = r.lz4;
    st->file_bytes = r.fsize == SOURCE_SIZE_UNKNOWN ? source_offset(src) : r.fsize;
    rd_free(&r);
    return rc;
}

int rdb_load(source *src, int64_t now_ms, const rdb_load_cb *cb, void *priv,
             rdb_load_stats *st, char *err, size_t errlen) {
    return load_from(src, now_ms, cb, priv, st, 0, err, errlen);
}

int rdb_load_preamble(source *src, int64_t now_ms, const rdb_load_cb *cb, void *priv,
                      rdb_load_stats *st, char *err, size_t errlen) {
    return load_from(src, now_ms, cb, priv, st, 1, err, errlen);
}

int rdb_load_file(const char *path, int64_t now_ms, const rdb_load_cb *cb,
                  void *priv, rdb_load_stats *st, char *err, size_t errlen) {
    memset(st, 0, sizeof *st);
    source *src = source_file_open(path, err, errlen);
    if (!src) return errno == ENOENT ? 1 : -1;
    int rc = rdb_load(src, now_ms, cb, priv, st, err, errlen);
    source_free(src);
    return rc;
}

int rdb_read_functions(source *src, uint64_t end, rdb_function_fn fn, void *priv, char *err,
                       size_t errlen) {
    rd r;
    rd_init(&r, src, err, errlen);
    r.ver = RDB_VERSION_WRITTEN;
    r.fsize = source_size(src);
    r.bufsize = r.fsize < RBUF_SIZE ? (r.fsize < 4096 ? 4096 : (size_t)r.fsize) : RBUF_SIZE;
    r.buf = xmalloc(r.bufsize);
    int rc = 0;
    while (rc == 0 && rd_off(&r) < end) {
        unsigned op;
        rstr code = {NULL, 0, 0, 0};
        char ibuf[OBJ_INTBUF];
        if (rd_u8(&r, &op)) {
            rc = -1;
            break;
        }
        if (op == RDB_OP_FUNCTION2) {
            if (rd_string(&r, &code)) {
                rc = -1;
                break;
            }
            if (code.is_int) {
                code.len = ll_to_str(ibuf, code.v);
                code.p = ibuf;
            }
        }
        rc = fn(priv, (int)op, code.p, code.len);
    }
    rd_free(&r);
    return rc;
}

int rdb_read_value(source *src, obj **val, char *err, size_t errlen) {
    rd r;
    rd_init(&r, src, err, errlen);
    r.ver = RDB_VERSION_WRITTEN;
    r.fsize = source_size(src);
    r.bufsize = r.fsize < RBUF_SIZE ? (r.fsize < 4096 ? 4096 : (size_t)r.fsize) : RBUF_SIZE;
    r.buf = xmalloc(r.bufsize);
    unsigned type;
    int rc = rd_u8(&r, &type) ? -1 : rd_value(&r, 0, type, -1, val);
    if (rc == 1) rc = rd_fail(&r, 0, "empty value of type %u", type);
    rd_free(&r);
    return rc;
}
