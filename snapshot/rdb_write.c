/* rdb_write: the snapshot writer (see rdb.h for the contract and
 * doc/snapshot-format.md for the bytes).
 *
 * Every byte of the plain RDB stream goes through one 256 KiB buffer. A
 * flush first advances the CRC64 over the buffered bytes (one big crc64
 * call, not one per field; none with RDB_NO_CHECKSUM), then hands them to
 * the sink (rdb_io.h); with LZ4 on, as one block of the frame, compressed
 * when a probe of its start says it is worth it (w_flush).
 * Keys are encoded straight into the buffer; only values larger than what
 * is left of it go through the chunked copy. Strings are int-encoded when
 * they are canonical integers, LZF-compressed with RDB_COMPRESS_LZF as
 * Redis's rdbcompression does (straight into the buffer when they fit),
 * else written verbatim. Collections' bodies are rdb_coll.c's, through the
 * primitives at the end of this file (rdb_priv.h).
 *
 * The first failed write or compression makes the writer failed: the error
 * is kept, every later put returns -1 at once and finish reports it. */
#include "rdb.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <lz4.h>
#include <lz4frame.h>
#include <lzf.h>
#include <stdarg.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"
#include "crc64.h"
#include "rdb_coll.h"
#include "rdb_fmt.h"
#include "rdb_priv.h"

#define WBUF_SIZE (256u << 10)
/* Room for the fixed-size parts of one key: SELECTDB + RESIZEDB + expire +
 * type + two length prefixes, all at their largest. */
#define WBUF_FIXED 64

typedef struct db_hint {
    uint64_t keys, expires;
    uint8_t declared;   /* rdb_writer_dbsize was called */
    uint8_t selected;   /* SELECTDB (and RESIZEDB) already written */
} db_hint;

struct rdb_writer {
    sink *out;
    int owns_out;             /* opened by rdb_writer_open: freed with the writer */
    unsigned char *buf;       /* plain RDB bytes not yet flushed */
    size_t len;
    size_t crc_done;          /* buf[0..crc_done) is already in crc */
    uint64_t crc;
    LZ4F_cctx *cctx;          /* NULL when not LZ4 */
    int lzf;                  /* RDB_COMPRESS_LZF: LZF strings > 20 bytes */
    int nocrc;                /* RDB_NO_CHECKSUM: crc stays 0 */
    int yield;                /* RDB_YIELD: sched_yield every YIELD_US */
    int consume;              /* RDB_CONSUME: values walked consuming */
    uint32_t elems;           /* collection elements encoded */
    int64_t last_yield_us;    /* mono_us() of the last yield */
    unsigned char *zbuf;      /* compressor output */
    size_t zcap;
    size_t zhead;             /* frame header waiting at the start of zbuf */
    uint64_t file_bytes;      /* bytes handed to the sink */
    int cur_db;               /* database of the last key, -1 before any */
    db_hint *dbs;
    int ndbs;
    int list_fill;            /* list-max-listpack-size at opening */
    int key_delay_us;         /* rdb-key-save-delay at opening */
    int failed;
    char err[RDB_ERRLEN];
    rdb_cmds_fn cmds;         /* rdb_aux.as_commands: RESP commands, not RDB */
};

/* ---- errors and raw output ---- */

static void w_fail(rdb_writer *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void w_fail(rdb_writer *w, const char *fmt, ...) {
    if (w->failed) return;   /* keep the first error, it is the cause */
    int n = snprintf(w->err, sizeof w->err, "%s: ", sink_name(w->out));
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && (size_t)n < sizeof w->err)
        vsnprintf(w->err + n, sizeof w->err - (size_t)n, fmt, ap);
    va_end(ap);
    w->failed = 1;
}

/* The sink's error, which names the sink, becomes the writer's. */
static int w_sink_failed(rdb_writer *w) {
    if (!w->failed) {
        snprintf(w->err, sizeof w->err, "%s", sink_error(w->out));
        w->failed = 1;
    }
    return -1;
}

static int write_all(rdb_writer *w, const void *p, size_t n) {
    if (sink_write(w->out, p, n) != 0) return w_sink_failed(w);
    w->file_bytes += n;
    return 0;
}

static int lz4_check(rdb_writer *w, size_t r, const char *what) {
    if (!LZ4F_isError(r)) return 0;
    w_fail(w, "%s: %s", what, LZ4F_getErrorName(r));
    return -1;
}

/* The probe that decides whether a block is worth compressing: its first
 * LZ4_PROBE bytes, compressed alone, must save at least 1/LZ4_PROBE_GAIN of
 * them; else the block is stored as is (an uncompressed block of the
 * frame, which every LZ4 frame reader takes). On 300-byte random values
 * LZ4 saves ~2% (the keys) for ~17% of the save's CPU; the probe costs
 * 1/16 of that. Data that compresses compresses in its first 16 KB too. */
#define LZ4_PROBE (16u << 10)
#define LZ4_PROBE_GAIN 16
#define LZ4_ACCEL 8   /* compressionLevel -8 of the frame (w_start_lz4) */
#define LZ4_BLOCK_HEAD 4   /* a frame block's size field, before buf */

static int lz4_worth(const unsigned char *p, size_t n) {
    if (n > LZ4_PROBE) n = LZ4_PROBE;
    char out[LZ4_COMPRESSBOUND(LZ4_PROBE)];
    int z = LZ4_compress_fast((const char *)p, out, (int)n, (int)sizeof out, LZ4_ACCEL);
    return z > 0 && (size_t)z <= n - n / LZ4_PROBE_GAIN;
}

/* The n buffered bytes as an uncompressed block of the frame (the frame
 * format's block: a 4-byte little-endian size with its top bit set, then
 * the bytes), written straight from the buffer: the LZ4_BLOCK_HEAD bytes
 * before buf hold the size. Only while the frame has no content checksum
 * (liblz4 would not see these bytes) and holds no buffered input (w_flush
 * flushes it after each block). liblz4 1.9.4's LZ4F_uncompressedUpdate
 * would copy the block once more, and corrupted the heap here. */
static int w_raw_block(rdb_writer *w, size_t n) {
    assert(n <= WBUF_SIZE && !w->nocrc);
    uint32_t size = (uint32_t)n | UINT32_C(0x80000000);
    unsigned char *p = w->buf - LZ4_BLOCK_HEAD;
    for (int i = 0; i < LZ4_BLOCK_HEAD; i++) p[i] = (unsigned char)(size >> (8 * i));
    return write_all(w, p, n + LZ4_BLOCK_HEAD);
}

/* Advances the CRC over the buffered bytes and hands them to the file:
 * plain, or as one LZ4 block, compressed when the probe says it is worth
 * it (always when the frame carries the content checksum). */
static int w_flush(rdb_writer *w) {
    if (w->failed) return -1;
    if (!w->nocrc) w->crc = crc64(w->crc, w->buf + w->crc_done, w->len - w->crc_done);
    w->crc_done = 0;
    size_t n = w->len;
    w->len = 0;
    if (!w->cctx) return write_all(w, w->buf, n);
    if (w->zhead) {   /* the frame header, held back since open */
        if (write_all(w, w->zbuf, w->zhead)) return -1;
        w->zhead = 0;
    }
    if (n == 0) return 0;
    if (!w->nocrc && !lz4_worth(w->buf, n)) return w_raw_block(w, n);
    size_t z = LZ4F_compressUpdate(w->cctx, w->zbuf, w->zcap, w->buf, n, NULL);
    if (lz4_check(w, z, "LZ4F_compressUpdate")) return -1;
    /* a block shorter than the frame's is buffered by liblz4: out with it,
     * so that nothing is held back when a raw block follows */
    size_t f = LZ4F_flush(w->cctx, w->zbuf + z, w->zcap - z, NULL);
    if (lz4_check(w, f, "LZ4F_flush")) return -1;
    return write_all(w, w->zbuf, z + f);
}

/* Makes room for n contiguous bytes (n <= WBUF_SIZE). */
static int w_room(rdb_writer *w, size_t n) {
    if (WBUF_SIZE - w->len >= n) return 0;
    return w_flush(w);
}

static int w_bytes(rdb_writer *w, const void *p, size_t n) {
    const unsigned char *c = p;
    while (n > 0) {
        if (w->len == WBUF_SIZE && w_flush(w)) return -1;
        size_t k = WBUF_SIZE - w->len;
        if (k > n) k = n;
        memcpy(w->buf + w->len, c, k);
        w->len += k;
        c += k;
        n -= k;
    }
    return 0;
}

/* ---- encoders into the buffer (callers made room with w_room) ---- */

static void put_byte(rdb_writer *w, unsigned v) { w->buf[w->len++] = (unsigned char)v; }

static void put_len(rdb_writer *w, uint64_t len) {
    unsigned char *p = w->buf + w->len;
    if (len < (1u << 6)) {
        p[0] = (unsigned char)len;
        w->len += 1;
    } else if (len < (1u << 14)) {
        p[0] = (unsigned char)((RDB_LEN_14BIT << 6) | (len >> 8));
        p[1] = (unsigned char)len;
        w->len += 2;
    } else if (len <= UINT32_MAX) {
        p[0] = RDB_LEN_32BIT;
        for (int i = 0; i < 4; i++) p[1 + i] = (unsigned char)(len >> (24 - 8 * i));
        w->len += 5;
    } else {
        p[0] = RDB_LEN_64BIT;
        for (int i = 0; i < 8; i++) p[1 + i] = (unsigned char)(len >> (56 - 8 * i));
        w->len += 9;
    }
}

static void put_le(rdb_writer *w, uint64_t v, int nbytes) {
    for (int i = 0; i < nbytes; i++) w->buf[w->len++] = (unsigned char)(v >> (8 * i));
}

/* As Redis's rdbEncodeInteger: INT8/16/32 when v fits, else 0. */
static int put_int_enc(rdb_writer *w, long long v) {
    int enc, nbytes;
    if (v >= INT8_MIN && v <= INT8_MAX) { enc = RDB_ENC_INT8; nbytes = 1; }
    else if (v >= INT16_MIN && v <= INT16_MAX) { enc = RDB_ENC_INT16; nbytes = 2; }
    else if (v >= INT32_MIN && v <= INT32_MAX) { enc = RDB_ENC_INT32; nbytes = 4; }
    else return 0;
    put_byte(w, (RDB_LEN_ENCVAL << 6) | (unsigned)enc);
    put_le(w, (uint64_t)v, nbytes);
    return 1;
}

/* The LZF header at its largest: the encoding byte and two 9-byte lengths. */
#define LZF_HEAD 19

/* As Redis's rdbSaveLzfStringObject: LZF only when the compressed bytes fit
 * in len - 4 (so it saves at least 4 bytes), as encoding byte, compressed
 * length, length, data. A string that fits in the buffer is compressed
 * straight into it, behind room for the header; a larger one into a
 * temporary buffer. 1 written, 0 not worth it (nothing written), -1 failed.
 * The caller made room for the prefix (WBUF_FIXED). */
static int w_lzf(rdb_writer *w, const char *s, size_t len) {
    assert(len > 4);
    if (len > UINT_MAX) return 0;   /* liblzf takes unsigned int lengths */
    unsigned char *out, *tmp = NULL;
    if (len + LZF_HEAD <= WBUF_SIZE) {
        if (w_room(w, len + LZF_HEAD)) return -1;
        out = w->buf + w->len + LZF_HEAD;
    } else {
        out = tmp = xmalloc(len - 4);
    }
    unsigned clen = lzf_compress(s, (unsigned)len, out, (unsigned)(len - 4));
    if (clen == 0) {
        free(tmp);
        return 0;
    }
    put_byte(w, (RDB_LEN_ENCVAL << 6) | RDB_ENC_LZF);
    put_len(w, clen);
    put_len(w, len);
    if (tmp) {
        int rc = w_bytes(w, tmp, clen);
        free(tmp);
        return rc ? -1 : 1;
    }
    memmove(w->buf + w->len, out, clen);   /* the header took <= LZF_HEAD */
    w->len += clen;
    return 1;
}

/* A string as Redis's rdbSaveRawString: int-encoded when the bytes are a
 * canonical integer that fits in 32 bits; with LZF on, LZF when longer than
 * 20 bytes (Redis: shorter never compresses) and worth it; else length +
 * bytes. The caller made room for the prefix (WBUF_FIXED). */
static int w_string(rdb_writer *w, const char *s, size_t len) {
    long long v;
    if (len <= 11 && str_to_ll(s, len, &v) && put_int_enc(w, v)) return 0;
    if (w->lzf && len > 20) {
        int r = w_lzf(w, s, len);
        if (r != 0) return r < 0 ? -1 : 0;
    }
    put_len(w, len);
    if (WBUF_SIZE - w->len >= len) {   /* the common case: no chunking */
        memcpy(w->buf + w->len, s, len);
        w->len += len;
        return 0;
    }
    return w_bytes(w, s, len);
}

static int w_obj(rdb_writer *w, const obj *o) {
    if (o->enc == OBJ_ENC_INT) {
        int64_t v;
        memcpy(&v, o->data, sizeof v);
        if (put_int_enc(w, v)) return 0;
    }
    char ibuf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, ibuf, &len);
    return w_string(w, s, len);
}

/* An AUX field whose value is an integer, written as Redis does
 * (rdbSaveAuxFieldStrInt: the decimal string, int-encoded when it fits). */
static int w_aux(rdb_writer *w, const char *key, const char *sval, long long ival) {
    char ibuf[OBJ_INTBUF];
    if (!sval) {
        ll_to_str(ibuf, ival);
        sval = ibuf;
    }
    if (w_room(w, WBUF_FIXED + strlen(key) + strlen(sval))) return -1;
    put_byte(w, RDB_OP_AUX);
    w_string(w, key, strlen(key));
    return w_string(w, sval, strlen(sval));
}

/* The function libraries (rdbSaveFunctions): opcode 245 and the code as a
 * string, each. */
static int w_functions(rdb_writer *w, obj *const *codes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (w_room(w, WBUF_FIXED)) return -1;
        put_byte(w, RDB_OP_FUNCTION2);
        if (w_obj(w, codes[i])) return -1;
    }
    return 0;
}

/* The same as commands (an AOF without the RDB preamble): FUNCTION LOAD
 * <code> each, as Redis's rewriteFunctions. */
static int w_functions_cmds(rdb_writer *w, obj *const *codes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        char ibuf[OBJ_INTBUF], head[64];
        size_t len;
        const char *code = obj_str(codes[i], ibuf, &len);
        int k = snprintf(head, sizeof head, "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$%zu\r\n",
                         len);
        if (w_bytes(w, head, (size_t)k) || w_bytes(w, code, len) || w_bytes(w, "\r\n", 2))
            return -1;
    }
    return 0;
}

static int w_header(rdb_writer *w, const rdb_aux *aux) {
    char magic[16];
    snprintf(magic, sizeof magic, "%s%04d", RDB_MAGIC, RDB_VERSION_WRITTEN);
    if (w_bytes(w, magic, strlen(magic))) return -1;
    rdb_aux def = { "7.0.15", (int64_t)time(NULL), 0, 0, NULL, {0}, NULL, 0, NULL};
    if (!aux) aux = &def;
    if (w_aux(w, "redis-ver", aux->redis_ver ? aux->redis_ver : def.redis_ver, 0) ||
        w_aux(w, "redis-bits", NULL, (long long)(sizeof(void *) * 8)) ||
        w_aux(w, "ctime", NULL, aux->ctime) ||
        w_aux(w, "used-mem", NULL, aux->used_mem))
        return -1;
    if (aux->repl.set && (w_aux(w, "repl-stream-db", NULL, aux->repl.stream_db) ||
                          w_aux(w, "repl-id", aux->repl.id, 0) ||
                          w_aux(w, "repl-offset", NULL, aux->repl.offset)))
        return -1;
    if (aux->staged_slots && w_aux(w, "verso-staged-slots", aux->staged_slots, 0)) return -1;
    if (w_aux(w, "aof-base", NULL, aux->aof_base ? 1 : 0)) return -1;
    return w_functions(w, aux->functions, aux->nfunctions);
}

/* ---- open / put / finish ---- */

static int w_start_lz4(rdb_writer *w) {
    LZ4F_preferences_t prefs;
    memset(&prefs, 0, sizeof prefs);
    /* Measured on 1M x 300 random bytes: 256 KB independent blocks compress
     * as well as 4 MB linked ones here and keep the reader's buffers small. */
    prefs.frameInfo.blockSizeID = LZ4F_max256KB;
    prefs.frameInfo.blockMode = LZ4F_blockIndependent;
    /* One checksum covers the stream: the RDB CRC64 inside it, verified by
     * the loader after decompression. The frame's content checksum (xxHash32
     * of the same bytes, ~15% of the save's CPU) only when that is off
     * (RDB_NO_CHECKSUM), so that the file is still checked. */
    prefs.frameInfo.contentChecksumFlag =
        w->nocrc ? LZ4F_contentChecksumEnabled : LZ4F_noContentChecksum;
    /* The fast compressor with acceleration 8: on incompressible values it
     * costs half the CPU of level 0 (the forkless serializer shares a core
     * with the main thread when the server is pinned), and on repetitive
     * data it loses well under 1% of the ratio (measured with lz4 --fast). */
    prefs.compressionLevel = -LZ4_ACCEL;
    if (lz4_check(w, LZ4F_createCompressionContext(&w->cctx, LZ4F_VERSION),
                  "LZ4F_createCompressionContext"))
        return -1;
    /* Room for the frame header, kept until the first flush (so that open
     * does no I/O beyond creating the file), plus one buffer's output. */
    w->zcap = LZ4F_HEADER_SIZE_MAX + LZ4F_compressBound(WBUF_SIZE, &prefs);
    w->zbuf = xmalloc(w->zcap);
    size_t z = LZ4F_compressBegin(w->cctx, w->zbuf, w->zcap, &prefs);
    if (lz4_check(w, z, "LZ4F_compressBegin")) return -1;
    w->zhead = z;
    return 0;
}

static void w_free(rdb_writer *w) {
    if (w->owns_out) sink_free(w->out);
    if (w->cctx) LZ4F_freeCompressionContext(w->cctx);
    free(w->zbuf);
    free(w->buf - LZ4_BLOCK_HEAD);
    free(w->dbs);
    free(w);
}

static _Atomic int key_save_delay;

void rdb_set_writer_opts(int list_fill, int key_save_delay_us) {
    rdb_coll_set_list_fill(list_fill);
    atomic_store(&key_save_delay, key_save_delay_us);
}

static rdb_writer *w_new(sink *out, int owns_out) {
    rdb_writer *w = xcalloc(1, sizeof *w);
    w->out = out;
    w->owns_out = owns_out;
    w->cur_db = -1;
    w->list_fill = rdb_get_list_fill();
    w->key_delay_us = atomic_load(&key_save_delay);
    w->buf = (unsigned char *)xmalloc(LZ4_BLOCK_HEAD + WBUF_SIZE) + LZ4_BLOCK_HEAD;
    return w;
}

static rdb_writer *w_open(sink *out, int owns_out, int compress, const rdb_aux *aux,
                          char *err, size_t errlen) {
    rdb_writer *w = w_new(out, owns_out);
    w->lzf = (compress & RDB_COMPRESS_LZF) != 0;
    w->nocrc = (compress & RDB_NO_CHECKSUM) != 0;
    w->yield = (compress & RDB_YIELD) != 0;
    w->consume = (compress & RDB_CONSUME) != 0;
    if (aux && aux->as_commands) { /* commands: no header, no frame */
        w->cmds = aux->as_commands;
        w->nocrc = 1;
        if (w_functions_cmds(w, aux->functions, aux->nfunctions)) {
            snprintf(err, errlen, "%s", w->err);
            sink_abort(w->out);
            w_free(w);
            return NULL;
        }
        return w;
    }
    if (((compress & RDB_COMPRESS_LZ4) && w_start_lz4(w)) || w_header(w, aux)) {
        snprintf(err, errlen, "%s", w->err);
        sink_abort(w->out);
        w_free(w);
        return NULL;
    }
    return w;
}

rdb_writer *rdb_writer_open_sink(sink *out, int compress, const rdb_aux *aux,
                                 char *err, size_t errlen) {
    return w_open(out, 0, compress, aux, err, errlen);
}

rdb_writer *rdb_writer_open(const char *path, int compress, const rdb_aux *aux,
                            char *err, size_t errlen) {
    sink *out = sink_file_open(path, NULL, err, errlen);
    return out ? w_open(out, 1, compress, aux, err, errlen) : NULL;
}

void rdb_writer_dbsize(rdb_writer *w, int db, uint64_t keys, uint64_t expires) {
    if (db < 0 || db >= (1 << 20)) return;   /* a hint: ignore nonsense */
    if (db >= w->ndbs) {
        int n = db + 1;
        w->dbs = xrealloc(w->dbs, (size_t)n * sizeof *w->dbs);
        memset(w->dbs + w->ndbs, 0, (size_t)(n - w->ndbs) * sizeof *w->dbs);
        w->ndbs = n;
    }
    w->dbs[db].keys = keys;
    w->dbs[db].expires = expires;
    w->dbs[db].declared = 1;
}

/* SELECTDB when the database changes; RESIZEDB the first time only. */
static void w_select(rdb_writer *w, int db) {
    put_byte(w, RDB_OP_SELECTDB);
    put_len(w, (uint64_t)db);
    w->cur_db = db;
    if (db >= w->ndbs) return;
    db_hint *h = &w->dbs[db];
    if (h->declared && !h->selected) {
        put_byte(w, RDB_OP_RESIZEDB);
        put_len(w, h->keys);
        put_len(w, h->expires);
    }
    h->selected = 1;
}

static int w_out(void *ctx, const void *p, size_t n) { return w_bytes(ctx, p, n); }

/* rdb_aux.as_commands: SELECT when the database changes, then the key's
 * commands. */
static int w_put_cmds(rdb_writer *w, int db, const char *key, size_t klen, const obj *val,
                      int64_t expire) {
    if (db != w->cur_db) {
        char sel[64], num[OBJ_INTBUF];
        size_t n = ll_to_str(num, db);
        int k = snprintf(sel, sizeof sel, "*2\r\n$6\r\nSELECT\r\n$%zu\r\n%s\r\n", n, num);
        if (w_bytes(w, sel, (size_t)k)) return -1;
        w->cur_db = db;
    }
    return w->cmds(key, klen, val, expire, w_out, w) != 0 || w->failed ? -1 : 0;
}

int rdb_writer_put_key(rdb_writer *w, int db, const char *key, size_t klen, const obj *val,
                       int64_t expire) {
    if (w->failed) return -1;
    if (db < 0) {
        w_fail(w, "bad database index %d", db);
        return -1;
    }
    if (w->cmds) return w_put_cmds(w, db, key, klen, val, expire);
    if (w_room(w, 2 * WBUF_FIXED + klen < WBUF_SIZE ? 2 * WBUF_FIXED + klen : WBUF_SIZE))
        return -1;
    if (db != w->cur_db) w_select(w, db);
    if (expire != -1) {
        put_byte(w, RDB_OP_EXPIRETIME_MS);
        put_le(w, (uint64_t)expire, 8);
    }
    put_byte(w, obj_is_coll(val) ? rdb_coll_type(val) : RDB_TYPE_STRING);
    if (w_string(w, key, klen)) return -1;
    if (w_room(w, WBUF_FIXED)) return -1;
    int rc = obj_is_coll(val) ? rdb_coll_write(w, val) : w_obj(w, val);
    if (w->key_delay_us > 0) usleep((useconds_t)w->key_delay_us);   /* testing knob */
    return rc;
}

int rdb_writer_put(rdb_writer *w, int db, const obj *key, const obj *val,
                   int64_t expire) {
    char ibuf[OBJ_INTBUF];
    size_t klen;
    const char *k = obj_str(key, ibuf, &klen);
    return rdb_writer_put_key(w, db, k, klen, val, expire);
}

int rdb_writer_put_kv(rdb_writer *w, int db, const obj *kv, int64_t expire) {
    size_t klen;
    const char *k = obj_kv_key(kv, &klen);
    return rdb_writer_put_key(w, db, k, klen, kv, expire);
}

uint64_t rdb_writer_bytes(const rdb_writer *w) { return w->file_bytes; }

const char *rdb_writer_error(const rdb_writer *w) { return w->err; }

/* EOF, the CRC64 of everything before it (EOF included; 0 with
 * RDB_NO_CHECKSUM, as Redis with rdbchecksum no), the end of the LZ4 frame. */
static int w_trailer(rdb_writer *w) {
    if (w->cmds) return w_flush(w); /* commands: nothing after the last */
    if (w_room(w, 16)) return -1;
    put_byte(w, RDB_OP_EOF);
    if (!w->nocrc) w->crc = crc64(w->crc, w->buf + w->crc_done, w->len - w->crc_done);
    w->crc_done = w->len;
    put_le(w, w->crc, 8);
    w->crc_done = w->len;   /* the checksum does not checksum itself */
    if (w_flush(w)) return -1;
    if (!w->cctx) return 0;
    size_t z = LZ4F_compressEnd(w->cctx, w->zbuf, w->zcap, NULL);
    if (lz4_check(w, z, "LZ4F_compressEnd")) return -1;
    return write_all(w, w->zbuf, z);
}

int rdb_writer_finish(rdb_writer *w, char *err, size_t errlen) {
    if (!w->failed && w_trailer(w) == 0 && sink_finish(w->out) != 0) w_sink_failed(w);
    if (w->failed) sink_abort(w->out);
    int rc = w->failed ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", w->err);
    w_free(w);
    return rc;
}

void rdb_writer_abort(rdb_writer *w) {
    sink_abort(w->out);
    w_free(w);
}

/* ---- primitives for the collection codecs (rdb_priv.h) ---- */

int rdbw_len(rdb_writer *w, uint64_t len) {
    if (w->failed || w_room(w, 9)) return -1;
    put_len(w, len);
    return 0;
}

/* The serializer yields when it has encoded for YIELD_US since its last
 * yield (the clock read every 128 elements): a main thread sharing its core
 * waits about that long at most, and a save of big values is not slowed by
 * yields far more frequent than the scheduler needs (every 512 elements
 * made a save of 1.5 GB of collections 2.3x longer under write load, and
 * its memory growth with it). */
#define YIELD_US 1000

void rdbw_element(rdb_writer *w) {
    if (!w->yield || (++w->elems & 127) != 0) return;
    int64_t now = mono_us();
    if (now - w->last_yield_us < YIELD_US) return;
    sched_yield();
    w->last_yield_us = mono_us();
}

int rdbw_string(rdb_writer *w, const char *s, size_t len) {
    if (w->failed || w_room(w, WBUF_FIXED)) return -1;
    rdbw_element(w);
    return w_string(w, s, len);
}

int rdbw_raw(rdb_writer *w, const void *p, size_t n) {
    return w->failed ? -1 : w_bytes(w, p, n);
}

int rdbw_fail(rdb_writer *w, const char *msg) {
    w_fail(w, "%s", msg);
    return -1;
}

int rdbw_consume(const rdb_writer *w) { return w->consume; }

int rdbw_list_fill(const rdb_writer *w) { return w->list_fill; }

/* ---- commit ---- */

int rdb_commit_file(const char *tmp, const char *path, char *err, size_t errlen) {
    return sink_commit_file(tmp, path, err, errlen);
}

/* ---- one value (DUMP) ---- */

int rdb_write_value(sink *out, const obj *val, int compress, char *err, size_t errlen) {
    rdb_writer *w = w_new(out, 0);
    w->lzf = (compress & RDB_COMPRESS_LZF) != 0;
    put_byte(w, obj_is_coll(val) ? rdb_coll_type(val) : RDB_TYPE_STRING);
    int rc = ((obj_is_coll(val) ? rdb_coll_write(w, val) : w_obj(w, val)) || w_flush(w)) ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", w->err);
    w_free(w);
    return rc;
}

int rdb_write_functions(sink *out, obj *const *codes, size_t n, int compress, char *err,
                        size_t errlen) {
    rdb_writer *w = w_new(out, 0);
    w->lzf = (compress & RDB_COMPRESS_LZF) != 0;
    int rc = (w_functions(w, codes, n) || w_flush(w)) ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", w->err);
    w_free(w);
    return rc;
}
