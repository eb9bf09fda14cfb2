/* obj: refcounted objects: values, and keys where a key travels on its own
 * (the RDB loader's records). Every value carries its type (OBJ_STRING,
 * OBJ_LIST, OBJ_SET, OBJ_ZSET, OBJ_HASH, OBJ_STREAM): commands check it
 * through db_lookup_typed, which answers WRONGTYPE. A value stored in a table
 * carries its key too ("keyed values", below).
 *
 * An obj is immutable while it is shared: whoever holds a reference may read
 * it from any thread, and only the holder of the single reference
 * (refcount == 1) may change it in place. The forkless serializer relies on
 * this: it takes a reference to a value (which holds its key) under the
 * bucket lock and encodes it later, outside the lock, while the main thread
 * goes on. A write to a value the serializer still holds makes a new value
 * (copy-on-write at object level, see obj_writable).
 *
 * Strings are stored RAW (bytes) or INT (a canonical decimal integer kept as
 * an int64, as Redis's OBJ_ENCODING_INT), a key obj always RAW; collections
 * as ptrees (below). */
#ifndef VERSO_OBJ_H
#define VERSO_OBJ_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ptree.h"

/* Value types, with Redis's numbering (RDB and DUMP use their own codes;
 * 5 is Redis's module type, which verso has not). */
enum {
    OBJ_STRING = 0, OBJ_LIST = 1, OBJ_SET = 2, OBJ_ZSET = 3, OBJ_HASH = 4, OBJ_STREAM = 6,
    OBJ_NTYPES
};
enum { OBJ_ENC_RAW = 0, OBJ_ENC_INT = 1 };
/* Collection encodings: what OBJECT ENCODING answers, the encoding Redis 7.0
 * would use for the same value. Every collection is stored as ptrees (see
 * below); the type sets enc as Redis converts: the small form while the
 * value is within the *-max-listpack-* (set-max-intset-entries) limits, then
 * the big form for good. */
enum {
    OBJ_ENC_LISTPACK = 2, OBJ_ENC_HASHTABLE = 3, OBJ_ENC_INTSET = 4,
    OBJ_ENC_SKIPLIST = 5, OBJ_ENC_QUICKLIST = 6, OBJ_ENC_STREAM = 7,
};

/* Largest length an obj can describe (its size must fit in ptrdiff_t).
 * What a client may store is bounded by proto-max-bulk-len, as in Redis;
 * this only bounds what a loader accepts from a file. */
#define OBJ_MAX_LEN ((size_t)PTRDIFF_MAX - 64)
/* Room for the decimal form of any int64 plus NUL. */
#define OBJ_INTBUF 24

typedef struct obj {
    _Atomic uint32_t refcount; /* atomic: main thread and serializer */
    uint8_t type;              /* OBJ_*; fixed at creation */
    uint8_t enc;               /* OBJ_ENC_*; changed only while unshared */
    uint16_t kv;               /* OBJ_KV* flags: 0 unless the obj is a
                                  table's value carrying its key (below) */
    size_t len;                /* RAW: byte length; INT: 0; a collection:
                                  its number of trees. The room for
                                  data is what the allocator gave
                                  (malloc_usable_size), so the header stays
                                  16 bytes with a size_t length. */
    char data[];               /* RAW: len bytes + NUL; INT: an int64 (memcpy);
                                  a collection: len ptree handles */
} obj;

/* ---- keyed values ----
 * A value stored in a table (vt.h) carries its key and the table entry's
 * metadata in its own allocation, in front of the header, so that a key
 * costs one allocation and the table holds one pointer per key:
 *
 *   [expire, int64, with OBJ_KV_EXPIRE] [key bytes, padded to 8]
 *   [obj_kvmeta, 8 bytes] [obj header] [data]
 *
 * Keys of 4 GiB or more keep their length as a uint64 at the end of the key
 * area (meta.klen is then UINT32_MAX). The key bytes never change while the
 * obj lives; the metadata and the expire are the table's (vt.c says which
 * thread touches what). Such an obj ("kv") is the value of exactly one
 * table entry, or of none once removed; a value going to another key (COPY,
 * MOVE, RENAME) gets a new kv (obj_kv_make). Values too big to copy cheaply
 * (over OBJ_KV_EXPIRE_ROOM bytes) always have the expire slot, so that
 * setting an expire never copies them. */
enum { OBJ_KV = 1, OBJ_KV_EXPIRE = 2 };
#define OBJ_KV_EXPIRE_ROOM 512
#define OBJ_KV_NO_EXPIRE INT64_C(-1)

typedef struct obj_kvmeta {
    uint32_t klen;      /* key length, UINT32_MAX: see above */
    uint8_t epoch;      /* vt's save mark (under the bucket lock) */
    uint8_t access[3];  /* evict.c's access clock (main thread only) */
} obj_kvmeta;

static inline int obj_is_kv(const obj *o) { return o->kv & OBJ_KV; }
static inline obj_kvmeta *obj_kv_meta(const obj *o) {
    return (obj_kvmeta *)(void *)((char *)(uintptr_t)o - sizeof(obj_kvmeta));
}
/* Bytes of the key area (key, padding, long length) for a key of klen. */
static inline size_t obj_kv_keyarea(size_t klen) {
    size_t n = klen >= UINT32_MAX ? klen + sizeof(uint64_t) : klen;
    return (n + 7) & ~(size_t)7;
}
static inline const char *obj_kv_key(const obj *o, size_t *len) {
    const obj_kvmeta *m = obj_kv_meta(o);
    size_t klen = m->klen;
    if (m->klen == UINT32_MAX) {
        uint64_t l;
        __builtin_memcpy(&l, (const char *)m - sizeof l, sizeof l);
        klen = (size_t)l;
    }
    *len = klen;
    return (const char *)m - obj_kv_keyarea(klen);
}
static inline int obj_kv_key_eq(const obj *o, const char *k, size_t len) {
    size_t n;
    const char *p = obj_kv_key(o, &n);
    return n == len && (len == 0 || __builtin_memcmp(p, k, len) == 0);
}
/* The expire slot (the obj has OBJ_KV_EXPIRE). */
static inline int64_t *obj_kv_expire_slot(const obj *o) {
    size_t n;
    const char *k = obj_kv_key(o, &n);
    return (int64_t *)(void *)((char *)(uintptr_t)k - sizeof(int64_t));
}
static inline int64_t obj_kv_expire(const obj *o) {
    return (o->kv & OBJ_KV_EXPIRE) ? *obj_kv_expire_slot(o) : OBJ_KV_NO_EXPIRE;
}
static inline void obj_kvmeta_set_access(obj_kvmeta *m, uint32_t v) {
    m->access[0] = (uint8_t)v;
    m->access[1] = (uint8_t)(v >> 8);
    m->access[2] = (uint8_t)(v >> 16);
}
static inline uint32_t obj_kv_access(const obj *o) {
    const uint8_t *a = obj_kv_meta(o)->access;
    return (uint32_t)a[0] | (uint32_t)a[1] << 8 | (uint32_t)a[2] << 16;
}
static inline void obj_kv_set_access(obj *o, uint32_t v) {
    obj_kvmeta_set_access(obj_kv_meta(o), v);
}
/* val's content as the value of key (klen bytes), with the metadata `meta`
 * (klen ignored) and the expire (OBJ_KV_NO_EXPIRE for none). Takes the
 * caller's reference to val: an unshared val's content moves (a
 * collection's trees with it), a shared one's is copied (strings) or shared
 * (trees). */
obj *obj_kv_make(obj *val, const char *key, size_t klen, const obj_kvmeta *meta,
                 int64_t expire);
/* A new kv holding the value bytes p[0..len) as obj_new_value would (INT
 * when canonical), with zeroed metadata and no expire, but room for one when
 * expire_slot (the key is about to get one: vt_set_expire then writes it in
 * place): SET's path, one allocation and one copy. */
obj *obj_kv_new_value(const char *key, size_t klen, const char *p, size_t len, int expire_slot);
/* The same, RAW whatever the bytes, without expire room; and len zero bytes
 * (calloc'd, as obj_new_zeroed). */
obj *obj_kv_new_raw(const char *key, size_t klen, const char *p, size_t len);
obj *obj_kv_new_zeroed(const char *key, size_t klen, size_t len);
/* Sets a kv's expire. Returns the obj to store in its place: o itself when
 * it has the slot (or expire is OBJ_KV_NO_EXPIRE), else a new kv with the
 * slot (the caller's reference to o dropped). */
obj *obj_kv_set_expire(obj *o, int64_t expire);

/* Constructors return an object with refcount 1. */
obj *obj_new_raw(const char *p, size_t len);
obj *obj_new_int(int64_t v);
/* A RAW value of len zero bytes (calloc: pages are touched only when
 * written, so DEBUG POPULATE of a huge size costs what it writes). */
obj *obj_new_zeroed(size_t len);
/* The same carrying o's key, metadata and expire when o is a kv: a new
 * encoding of o's value (HyperLogLog's sparse to dense) replaces it in its
 * entry. */
obj *obj_new_zeroed_like(const obj *o, size_t len);
/* A value from client bytes: INT when the bytes are a canonical integer
 * (str_to_ll accepts them and they are at most 20 bytes), RAW otherwise. */
obj *obj_new_value(const char *p, size_t len);

static inline void obj_incref(obj *o) {
    atomic_fetch_add_explicit(&o->refcount, 1, memory_order_relaxed);
}
/* Drops one reference and frees the object when it was the last. Any thread. */
void obj_decref(obj *o);
static inline int obj_shared(const obj *o) {
    return atomic_load_explicit(&o->refcount, memory_order_acquire) > 1;
}

/* The bytes of a string object. For INT values the decimal form is written
 * into buf (OBJ_INTBUF bytes). */
const char *obj_str(const obj *o, char *buf, size_t *len);
size_t obj_strlen(const obj *o);
/* 1 and *out set when the value is an integer (INT, or RAW whose bytes parse
 * with str_to_ll); 0 otherwise. */
int obj_get_ll(const obj *o, long long *out);
/* Bytes this object takes in memory (header + data), for accounting. */
size_t obj_mem(const obj *o);
/* What the allocator gave this object (usable size: jemalloc's size class;
 * under glibc plus its chunk header): the unit of obj_mem_total. */
size_t obj_alloc_size(const obj *o);
/* Allocator bytes of every object alive now (any thread; relaxed). */
size_t obj_mem_total(void);
int obj_eq_bytes(const obj *o, const char *p, size_t len);

/* The type's name as TYPE answers it ("string", "list", ...). */
const char *obj_type_name(int type);
/* The encoding's name as OBJECT ENCODING answers it: strings "int",
 * "embstr" (up to 44 bytes, as Redis 7.0 creates them) or "raw". */
const char *obj_encoding_name(const obj *o);
/* A value for COPY: strings are immutable while shared, so the copy is the
 * same object with one more reference (storing it under the destination key
 * copies its bytes behind that key: obj_kv_make); a collection's copy is a
 * new obj, without a key, sharing its trees (O(1): a later write to either
 * copies the nodes it changes). */
obj *obj_copy(obj *o);

/* ---- collections ----
 * A collection (hash, list, set, sorted set, stream) is an obj whose data
 * holds `len` ptree handles (1; the sorted set 2: by score and by member;
 * the stream OBJ_STREAM_TREES) and, for a stream, OBJ_STREAM_META bytes
 * of metadata after them (t_stream.h), copied with the handles. Its
 * refcount works as a string's: the serializer takes a reference to the
 * obj; a write to a shared collection first makes a new obj sharing the
 * same trees (O(1), obj_coll_writable), then writes through it, which
 * copies only the shared nodes on its path (ptree.h). */
#define OBJ_STREAM_TREES 6
#define OBJ_STREAM_META 80
obj *obj_new_coll(int type, int enc, int ntrees, const int *kinds);
static inline ptree *obj_tree(obj *o, int i) { return (ptree *)(void *)o->data + i; }
static inline const ptree *obj_ctree(const obj *o, int i) {
    return (const ptree *)(const void *)o->data + i;
}
static inline int obj_is_coll(const obj *o) { return o->type != OBJ_STRING; }
/* o itself when unshared, else a new obj sharing o's trees, with o's key,
 * metadata and expire when o is a kv (the caller's reference to o is
 * dropped): the caller stores the result in place of o and may then write
 * its trees. */
obj *obj_coll_writable(obj *o);
/* Bytes of a collection's nodes (walks them: MEMORY USAGE, not hot paths;
 * obj_mem of a collection is its header alone, O(1)). */
size_t obj_coll_mem(const obj *o);
/* Allocation accounting for memory an obj owns outside its own block (ptree
 * nodes, a save's queue items): adds / removes p's allocator size to
 * obj_mem_total (add returns it). Any thread. */
size_t obj_mem_account_add(void *p);
void obj_mem_account_sub(void *p);
/* What the allocator charges for heap block p, in obj_mem_total's unit,
 * without counting it: for memory accounted elsewhere (vt.c's tables). */
size_t obj_block_bytes(void *p);

/* Copy-on-write for in-place edits (APPEND, SETRANGE): returns `o` itself when
 * it is RAW, unshared and has room for `need` bytes, else a new RAW object with
 * the same bytes (and a kv's key, metadata and expire) and at least `need`
 * bytes of capacity; in that case the caller's reference to `o` has been
 * dropped. The caller stores the returned pointer in place of `o`. */
obj *obj_writable(obj *o, size_t need);
/* Appends bytes to a RAW object returned by obj_writable. */
void obj_raw_append(obj *o, const char *p, size_t n);

#endif
