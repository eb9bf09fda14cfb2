/* obj: refcounted objects (see obj.h for the sharing rule and the types). */
#include "obj.h"

#include <assert.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

_Static_assert(sizeof(obj) == 16, "obj header: 16 bytes per key and per value");

/* atomic (relaxed): allocator bytes of every live object, the figure that
 * maxmemory compares (evict.c). Objects are created on the main thread and
 * freed on any thread (the serializer drops the last reference of a value
 * it retained), so the count is exact at every moment: a value retained by
 * a save stays counted until the save drops it. */
static _Atomic size_t obj_bytes;

/* Under AddressSanitizer the allocator is ASan's, whose statistics (which
 * INFO reports) count requested bytes, as its malloc_usable_size does. */
extern size_t __sanitizer_get_current_allocated_bytes(void) __attribute__((weak));

/* What an allocation costs, in the unit of INFO used_memory: the usable
 * size, which is jemalloc's size class (stats.allocated counts those), plus
 * under glibc its chunk header (mallinfo2 counts chunks). */
static inline size_t alloc_bytes(void *p) {
#ifdef HAVE_JEMALLOC
    size_t header = 0;
#else
    size_t header = __sanitizer_get_current_allocated_bytes ? 0 : sizeof(size_t);
#endif
    return malloc_usable_size(p) + header;
}

static inline void count_add(void *p) {
    atomic_fetch_add_explicit(&obj_bytes, alloc_bytes(p), memory_order_relaxed);
}

static inline void count_sub(void *p) {
    atomic_fetch_sub_explicit(&obj_bytes, alloc_bytes(p), memory_order_relaxed);
}

size_t obj_alloc_size(const obj *o) { return alloc_bytes((void *)o); }

size_t obj_mem_total(void) { return atomic_load_explicit(&obj_bytes, memory_order_relaxed); }

/* Bytes of data room: what the allocator gave beyond the header (at least
 * what was asked for). Any thread holding a reference: the block is not
 * reallocated while shared. */
static size_t obj_cap(const obj *o) { return malloc_usable_size((void *)o) - sizeof(obj); }

static obj *obj_alloc_raw(size_t cap) {
    assert(cap <= OBJ_MAX_LEN + 1);
    obj *o = xmalloc(sizeof(obj) + cap);
    count_add(o);
    atomic_init(&o->refcount, 1);
    o->type = OBJ_STRING;
    o->enc = OBJ_ENC_RAW;
    o->unused = 0;
    o->len = 0;
    return o;
}

obj *obj_new_raw(const char *p, size_t len) {
    assert(len <= OBJ_MAX_LEN);
    obj *o = obj_alloc_raw(len + 1);
    if (len) memcpy(o->data, p, len);
    o->data[len] = '\0';
    o->len = len;
    return o;
}

obj *obj_new_zeroed(size_t len) {
    assert(len <= OBJ_MAX_LEN);
    obj *o = xcalloc(1, sizeof(obj) + len + 1);
    count_add(o);
    atomic_init(&o->refcount, 1);
    o->type = OBJ_STRING;
    o->enc = OBJ_ENC_RAW;
    o->len = len;
    return o;
}

obj *obj_new_int(int64_t v) {
    obj *o = xmalloc(sizeof(obj) + sizeof(int64_t));
    count_add(o);
    atomic_init(&o->refcount, 1);
    o->type = OBJ_STRING;
    o->enc = OBJ_ENC_INT;
    o->unused = 0;
    o->len = 0;
    memcpy(o->data, &v, sizeof v);
    return o;
}

obj *obj_new_value(const char *p, size_t len) {
    long long v;
    if (len <= 20 && str_to_ll(p, len, &v)) return obj_new_int(v);
    return obj_new_raw(p, len);
}

void obj_decref(obj *o) {
    if (atomic_fetch_sub_explicit(&o->refcount, 1, memory_order_acq_rel) == 1) {
        if (obj_is_coll(o))
            for (size_t i = 0; i < o->len; i++) pt_free(obj_tree(o, (int)i));
        count_sub(o);
        free(o);
    }
}

static int64_t obj_int(const obj *o) {
    int64_t v;
    memcpy(&v, o->data, sizeof v);
    return v;
}

const char *obj_str(const obj *o, char *buf, size_t *len) {
    if (o->enc == OBJ_ENC_INT) {
        *len = ll_to_str(buf, obj_int(o));
        return buf;
    }
    *len = o->len;
    return o->data;
}

size_t obj_strlen(const obj *o) {
    if (o->enc == OBJ_ENC_INT) {
        char buf[OBJ_INTBUF];
        return ll_to_str(buf, obj_int(o));
    }
    return o->len;
}

int obj_get_ll(const obj *o, long long *out) {
    if (o->enc == OBJ_ENC_INT) { *out = obj_int(o); return 1; }
    return str_to_ll(o->data, o->len, out);
}

size_t obj_mem(const obj *o) { return sizeof(obj) + obj_cap(o); }

int obj_eq_bytes(const obj *o, const char *p, size_t len) {
    char buf[OBJ_INTBUF];
    size_t n;
    const char *s = obj_str(o, buf, &n);
    return n == len && memcmp(s, p, len) == 0;
}

const char *obj_type_name(int type) {
    static const char *const names[OBJ_NTYPES] = {"string", "list", "set", "zset", "hash"};
    assert(type >= 0 && type < OBJ_NTYPES);
    return names[type];
}

/* Redis 7.0's OBJ_ENCODING_EMBSTR_SIZE_LIMIT. */
#define EMBSTR_MAX 44

const char *obj_encoding_name(const obj *o) {
    switch (o->type) {
    case OBJ_STRING:
        if (o->enc == OBJ_ENC_INT) return "int";
        return o->len <= EMBSTR_MAX ? "embstr" : "raw";
    default:
        switch (o->enc) {
        case OBJ_ENC_LISTPACK: return "listpack";
        case OBJ_ENC_HASHTABLE: return "hashtable";
        case OBJ_ENC_INTSET: return "intset";
        case OBJ_ENC_SKIPLIST: return "skiplist";
        case OBJ_ENC_QUICKLIST: return "quicklist";
        default: return "unknown";
        }
    }
}

obj *obj_new_coll(int type, int enc, int ntrees, const int *kinds) {
    assert(type != OBJ_STRING && type < OBJ_NTYPES && ntrees >= 1 && ntrees <= 2);
    obj *o = obj_alloc_raw((size_t)ntrees * sizeof(ptree));
    o->type = (uint8_t)type;
    o->enc = (uint8_t)enc;
    o->len = (size_t)ntrees;
    for (int i = 0; i < ntrees; i++) pt_init(obj_tree(o, i), kinds[i]);
    return o;
}

/* A new obj of o's type and encoding holding second handles on its trees. */
static obj *coll_share(const obj *o) {
    obj *n = obj_alloc_raw(o->len * sizeof(ptree));
    n->type = o->type;
    n->enc = o->enc;
    n->len = o->len;
    for (size_t i = 0; i < o->len; i++) pt_share(obj_tree(n, (int)i), obj_ctree(o, (int)i));
    return n;
}

obj *obj_coll_writable(obj *o) {
    assert(obj_is_coll(o));
    if (!obj_shared(o)) return o;
    obj *n = coll_share(o);
    obj_decref(o);
    return n;
}

size_t obj_coll_mem(const obj *o) {
    size_t m = obj_mem(o);
    for (size_t i = 0; i < o->len; i++) m += pt_mem(obj_ctree(o, (int)i));
    return m;
}

void obj_mem_account_add(void *p) { count_add(p); }
void obj_mem_account_sub(void *p) { count_sub(p); }

obj *obj_copy(obj *o) {
    switch (o->type) {
    case OBJ_STRING:
        obj_incref(o);
        return o;
    default:
        return coll_share(o);
    }
}

obj *obj_writable(obj *o, size_t need) {
    assert(need <= OBJ_MAX_LEN);
    if (o->enc == OBJ_ENC_RAW && !obj_shared(o) && obj_cap(o) >= need + 1) return o;
    char buf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, buf, &len);
    size_t cap = need + 1;
    if (cap < len + 1) cap = len + 1;
    /* Leave room to grow, as sds does, so repeated APPENDs are amortized. */
    if (cap < (1u << 20)) cap *= 2; else cap += 1u << 20;
    if (cap > OBJ_MAX_LEN + 1) cap = OBJ_MAX_LEN + 1; /* room to grow is optional */
    if (!obj_shared(o) && o->enc == OBJ_ENC_RAW) {
        count_sub(o);
        obj *n = xrealloc(o, sizeof(obj) + cap);
        count_add(n);
        return n;
    }
    obj *n = obj_alloc_raw(cap);
    memcpy(n->data, s, len);
    n->data[len] = '\0';
    n->len = len;
    obj_decref(o);
    return n;
}

void obj_raw_append(obj *o, const char *p, size_t n) {
    assert(n < obj_cap(o) - o->len);
    memcpy(o->data + o->len, p, n);
    o->len += n;
    o->data[o->len] = '\0';
}
