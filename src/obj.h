/* obj: refcounted objects, used for both keys and values. Every value
 * carries its type (OBJ_STRING today; the collections' tags are reserved so
 * that they plug in without reshaping): commands check it through
 * db_lookup_typed, which answers WRONGTYPE.
 *
 * An obj is immutable while it is shared: whoever holds a reference may read
 * it from any thread, and only the holder of the single reference
 * (refcount == 1) may change it in place. The forkless serializer relies on
 * this: it takes a reference to a key and its value under the bucket lock and
 * encodes them later, outside the lock, while the main thread goes on. A
 * write to a value the serializer still holds makes a new value (copy-on-write
 * at object level, see obj_writable).
 *
 * Values are stored RAW (bytes) or INT (a canonical decimal integer kept as an
 * int64, as Redis's OBJ_ENCODING_INT). Keys are always RAW. */
#ifndef VERSO_OBJ_H
#define VERSO_OBJ_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "ptree.h"

/* Value types, with Redis's numbering (RDB and DUMP use their own codes). */
enum { OBJ_STRING = 0, OBJ_LIST = 1, OBJ_SET = 2, OBJ_ZSET = 3, OBJ_HASH = 4, OBJ_NTYPES };
enum { OBJ_ENC_RAW = 0, OBJ_ENC_INT = 1 };
/* Collection encodings: what OBJECT ENCODING answers, the encoding Redis 7.0
 * would use for the same value. Every collection is stored as ptrees (see
 * below); the type sets enc as Redis converts: the small form while the
 * value is within the *-max-listpack-* (set-max-intset-entries) limits, then
 * the big form for good. */
enum {
    OBJ_ENC_LISTPACK = 2, OBJ_ENC_HASHTABLE = 3, OBJ_ENC_INTSET = 4,
    OBJ_ENC_SKIPLIST = 5, OBJ_ENC_QUICKLIST = 6,
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
    uint16_t unused;
    size_t len;                /* RAW: byte length; INT: 0; a collection:
                                  its number of trees. The room for
                                  data is what the allocator gave
                                  (malloc_usable_size), so the header stays
                                  16 bytes with a size_t length. */
    char data[];               /* RAW: len bytes + NUL; INT: an int64 (memcpy);
                                  a collection: len ptree handles */
} obj;

/* Constructors return an object with refcount 1. */
obj *obj_new_raw(const char *p, size_t len);
obj *obj_new_int(int64_t v);
/* A RAW value of len zero bytes (calloc: pages are touched only when
 * written, so DEBUG POPULATE of a huge size costs what it writes). */
obj *obj_new_zeroed(size_t len);
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
 * same object with one more reference (a later write copies it, see
 * obj_writable); a collection's copy is a new obj sharing its trees (O(1):
 * a later write to either copies the nodes it changes). */
obj *obj_copy(obj *o);

/* ---- collections ----
 * A collection (hash, list, set, sorted set) is an obj whose data holds
 * `len` ptree handles (1; the sorted set 2: by score and by member). Its
 * refcount works as a string's: the serializer takes a reference to the
 * obj; a write to a shared collection first makes a new obj sharing the
 * same trees (O(1), obj_coll_writable), then writes through it, which
 * copies only the shared nodes on its path (ptree.h). */
obj *obj_new_coll(int type, int enc, int ntrees, const int *kinds);
static inline ptree *obj_tree(obj *o, int i) { return (ptree *)(void *)o->data + i; }
static inline const ptree *obj_ctree(const obj *o, int i) {
    return (const ptree *)(const void *)o->data + i;
}
static inline int obj_is_coll(const obj *o) { return o->type != OBJ_STRING; }
/* o itself when unshared, else a new obj sharing o's trees (the caller's
 * reference to o is dropped): the caller stores the result in place of o
 * and may then write its trees. */
obj *obj_coll_writable(obj *o);
/* Bytes of a collection's nodes (walks them: MEMORY USAGE, not hot paths;
 * obj_mem of a collection is its header alone, O(1)). */
size_t obj_coll_mem(const obj *o);
/* Allocation accounting for memory an obj owns outside its own block (ptree
 * nodes): adds / removes p's allocator size to obj_mem_total. Any thread. */
void obj_mem_account_add(void *p);
void obj_mem_account_sub(void *p);

/* Copy-on-write for in-place edits (APPEND, SETRANGE): returns `o` itself when
 * it is RAW, unshared and has room for `need` bytes, else a new RAW object with
 * the same bytes and at least `need` bytes of capacity; in that case the
 * caller's reference to `o` has been dropped. The caller stores the returned
 * pointer in place of `o`. */
obj *obj_writable(obj *o, size_t need);
/* Appends bytes to a RAW object returned by obj_writable. */
void obj_raw_append(obj *o, const char *p, size_t n);

#endif
