/* hll: Redis's HyperLogLog representation on a string value, so that the
 * strings verso writes are the bytes redis-server 7.0 writes for the same
 * PFADDs (and the other way round: they are plain strings in an RDB).
 *
 * A 16-byte header: "HYLL", the encoding (0 dense, 1 sparse), three zero
 * bytes, the cached cardinality (64-bit little endian; its top bit set means
 * "stale"). Then 16384 registers of 6 bits: dense, packed LSB first (12288
 * bytes), or sparse, run-length coded with the opcodes ZERO (00xxxxxx: 1..64
 * zero registers), XZERO (01xxxxxx yyyyyyyy: 1..16384 zero registers) and
 * VAL (1vvvvvxx: 1..4 registers of value 1..32). A sparse HLL becomes dense
 * for good when a register needs a value above 32 or when it would grow past
 * HLL_SPARSE_MAX_BYTES. Elements are hashed with MurmurHash64A (seed
 * 0xadc83b19); the count is Ertl's estimator, as Redis 5+.
 *
 * Functions taking obj **op may replace the object (grow it, make it dense):
 * the caller owns *op alone (refcount 1, see obj_writable) and stores what
 * it finds there afterwards. Main thread only (no shared state besides a
 * constant table). */
#ifndef VERSO_HLL_H
#define VERSO_HLL_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

#define HLL_P 14
#define HLL_Q (64 - HLL_P)
#define HLL_REGISTERS (1 << HLL_P)
#define HLL_BITS 6
#define HLL_REGISTER_MAX ((1 << HLL_BITS) - 1)
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)
enum { HLL_DENSE = 0, HLL_SPARSE = 1 };
/* Redis's hll-sparse-max-bytes default: the size (header included) past
 * which a sparse HLL becomes dense. hll_sparse_max_bytes() is what the
 * encoder uses; it answers this constant (the parameter has no effect in
 * verso yet: wiring it is that function's one line). */
#define HLL_SPARSE_MAX_BYTES 3000
size_t hll_sparse_max_bytes(void);

/* An empty HLL: sparse, XZERO:16384, cached cardinality 0 (valid). */
obj *hll_new(void);
/* Redis's isHLLObjectOrReply checks on a string value: RAW, at least a
 * header, the magic, a known encoding, and exactly HLL_DENSE_SIZE bytes
 * when dense. 1 when they pass. */
int hll_is_valid(const obj *o);
static inline int hll_encoding(const obj *o) { return (uint8_t)o->data[4]; }

/* The register index and the run length (1..51) an element maps to. */
int hll_pattern(const char *ele, size_t len, long *index);
/* What adding the element would do without changing anything: 1 if a
 * register would grow, 0 if not, -1 when the sparse encoding is corrupt. */
int hll_would_change(const obj *o, const char *ele, size_t len);
/* Adds an element: 1 when a register grew, 0 when not, -1 when the sparse
 * encoding is corrupt. Invalidates the cached cardinality on a change. */
int hll_add(obj **op, const char *ele, size_t len);
/* Raises register index to count if it is lower (Redis's hllSparseSet /
 * hllDenseSet): same returns as hll_add. */
int hll_set(obj **op, long index, uint8_t count);
/* Makes a sparse HLL dense (no-op when dense): 0, or -1 when corrupt. */
int hll_to_dense(obj **op);

/* The cardinality from the registers (dense or sparse; *invalid set when a
 * sparse encoding does not cover exactly 16384 registers). */
uint64_t hll_count(const obj *o, int *invalid);
/* The cardinality of raw registers (one byte each). */
uint64_t hll_count_raw(const uint8_t *regs);
/* max[i] = MAX(max[i], register i of o): 0, or -1 when corrupt. */
int hll_merge(uint8_t *max, const obj *o);

/* The cached cardinality: 1 and *card set when valid. */
int hll_cache_get(const obj *o, uint64_t *card);
void hll_cache_set(obj *o, uint64_t card);
void hll_cache_invalidate(obj *o);
/* Register i of a dense HLL. */
uint8_t hll_dense_get(const obj *o, long i);

/* PFDEBUG DECODE's text of a sparse HLL ("Z:16384", "v:2,1 z:19 ...");
 * malloc'd, NUL-terminated, *len set. */
char *hll_decode(const obj *o, size_t *len);
/* PFSELFTEST: 0, or -1 with the error text (Redis's) in err. */
int hll_selftest(char *err, size_t errlen);

#endif
