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

/* Bytes in front of the header: the key, metadata and expire of a kv. */
static size_t obj_prefix(const obj *o) {
    if (!obj_is_kv(o)) return 0;
    size_t klen;
    obj_kv_key(o, &klen);
    return sizeof(obj_kvmeta) + obj_kv_keyarea(klen) +
           ((o->kv & OBJ_KV_EXPIRE) ? sizeof(int64_t) : 0);
}

/* The allocation an obj lives in. */
static void *obj_base(const obj *o) { return (char *)(uintptr_t)o - obj_prefix(o); }

size_t obj_alloc_size(const obj *o) { return alloc_bytes(obj_base(o)); }

size_t obj_mem_total(void) { return atomic_load_explicit(&obj_bytes, memory_order_relaxed); }

/* Bytes of data room: what the allocator gave beyond the header (at least
 * what was asked for). Any thread holding a reference: the block is not
 * reallocated while shared. */
static size_t obj_cap(const obj *o) {
    return malloc_usable_size(obj_base(o)) - obj_prefix(o) - sizeof(obj);
}

/* Writes a kv's prefix (key, metadata, expire slot when has_expire) at base
 * and returns where its header goes. */
static obj *kv_prefix_write(char *base, const char *key, size_t klen,
                            const obj_kvmeta *meta, int has_expire, int64_t expire) {
    if (has_expire) {
        memcpy(base, &expire, sizeof expire);
        base += sizeof expire;
    }
    size_t area = obj_kv_keyarea(klen);
    if (klen) memcpy(base, key, klen);
    memset(base + klen, 0, area - klen);
    if (klen >= UINT32_MAX) {
        uint64_t l = klen;
        memcpy(base + area - sizeof l, &l, sizeof l);
    }
    obj_kvmeta *m = (obj_kvmeta *)(void *)(base + area);
    *m = meta ? *meta : (obj_kvmeta){0};
    m->klen = klen >= UINT32_MAX ? UINT32_MAX : (uint32_t)klen;
    obj *o = (obj *)(void *)(m + 1);
    o->kv = (uint16_t)(OBJ_KV | (has_expire ? OBJ_KV_EXPIRE : 0));
    return o;
}

/* A new RAW string object with room for cap data bytes (zeroed when
 * `zero`: calloc, whose fresh pages are touched only when written); with
 * key != NULL, a kv of that key (metadata meta, expire slot when
 * has_expire). */
static obj *obj_alloc_kv(size_t cap, const char *key, size_t klen,
                         const obj_kvmeta *meta, int has_expire, int64_t expire, int zero) {
    assert(cap <= OBJ_MAX_LEN + 1);
    size_t prefix = key ? sizeof(obj_kvmeta) + obj_kv_keyarea(klen) +
                          (has_expire ? sizeof(int64_t) : 0) : 0;
    size_t size = prefix + sizeof(obj) + cap;
    char *base = zero ? xcalloc(1, size) : xmalloc(size);
    count_add(base);
    obj *o;
    if (key) {
        o = kv_prefix_write(base, key, klen, meta, has_expire, expire);
    } else {
        o = (obj *)(void *)base;
        o->kv = 0;
    }
    atomic_init(&o->refcount, 1);
    o->type = OBJ_STRING;
    o->enc = OBJ_ENC_RAW;
    o->len = 0;
    return o;
}

static obj *obj_alloc_raw(size_t cap) { return obj_alloc_kv(cap, NULL, 0, NULL, 0, 0, 0); }

/* Bytes a collection's data holds: its tree handles, and a stream's
 * metadata after them. */
static size_t coll_size(int type, size_t ntrees) {
    return ntrees * sizeof(ptree) + (type == OBJ_STREAM ? OBJ_STREAM_META : 0);
}

/* Bytes of data an obj's content takes (what a move or copy carries). */
static size_t obj_content(const obj *o) {
    if (obj_is_coll(o)) return coll_size(o->type, o->len);
    if (o->enc == OBJ_ENC_INT) return sizeof(int64_t);
    return o->len + 1;
}

obj *obj_kv_make(obj *val, const char *key, size_t klen, const obj_kvmeta *meta,
                 int64_t expire) {
    assert(key || klen == 0);
    size_t size = obj_content(val);
    int slot = expire != OBJ_KV_NO_EXPIRE || size > OBJ_KV_EXPIRE_ROOM ||
               (val->kv & OBJ_KV_EXPIRE);
    size_t prefix = sizeof(obj_kvmeta) + obj_kv_keyarea(klen) + (slot ? sizeof(int64_t) : 0);
    if (!obj_shared(val) && obj_prefix(val) == prefix) {
        /* an unshared kv whose prefix has the new one's size (RENAME to a
         * key as long, give or take the padding): rewritten in place */
        obj *n = kv_prefix_write(obj_base(val), key ? key : "", klen, meta, slot, expire);
        assert(n == val);
        return n;
    }
    obj *n = obj_alloc_kv(size, key ? key : "", klen, meta, slot, expire, 0);
    n->type = val->type;
    n->enc = val->enc;
    n->len = val->len;
    if (!obj_is_coll(val)) {
        memcpy(n->data, val->data, size);
        obj_decref(val);
    } else if (!obj_shared(val)) {
        /* the trees move: val's block goes without dropping them */
        memcpy(n->data, val->data, size);
        void *base = obj_base(val);
        count_sub(base);
        free(base);
    } else {
        size_t trees = val->len * sizeof(ptree);
        for (size_t i = 0; i < val->len; i++)
            pt_share(obj_tree(n, (int)i), obj_ctree(val, (int)i));
        memcpy(n->data + trees, val->data + trees, size - trees);
        obj_decref(val);
    }
    return n;
}

/* A copy of kv o's prefix fields (key, metadata, expire) onto a new RAW
 * object with room for cap bytes (zeroed when `zero`). */
static obj *kv_alloc_like(const obj *o, size_t cap, int zero) {
    if (!obj_is_kv(o)) return obj_alloc_kv(cap, NULL, 0, NULL, 0, 0, zero);
    size_t klen;
    const char *key = obj_kv_key(o, &klen);
    int slot = (o->kv & OBJ_KV_EXPIRE) || cap > OBJ_KV_EXPIRE_ROOM;
    return obj_alloc_kv(cap, key, klen, obj_kv_meta(o), slot, obj_kv_expire(o), zero);
}

obj *obj_new_zeroed_like(const obj *o, size_t len) {
    assert(len <= OBJ_MAX_LEN);
    obj *n = kv_alloc_like(o, len + 1, 1);
    n->len = len;
    return n;
}

obj *obj_kv_new_zeroed(const char *key, size_t klen, size_t len) {
    assert(len <= OBJ_MAX_LEN);
    obj *o = obj_alloc_kv(len + 1, key, klen, NULL, len + 1 > OBJ_KV_EXPIRE_ROOM,
                          OBJ_KV_NO_EXPIRE, 1);
    o->len = len;
    return o;
}

/* A RAW kv of p[0..len) (expire room when slot). */
static obj *kv_new_raw(const char *key, size_t klen, const char *p, size_t len, int slot) {
    assert(len <= OBJ_MAX_LEN);
    obj *o = obj_alloc_kv(len + 1, key, klen, NULL, slot || len + 1 > OBJ_KV_EXPIRE_ROOM,
                          OBJ_KV_NO_EXPIRE, 0);
    if (len) memcpy(o->data, p, len);
    o->data[len] = '\0';
    o->len = len;
    return o;
}

obj *obj_kv_new_raw(const char *key, size_t klen, const char *p, size_t len) {
    return kv_new_raw(key, klen, p, len, 0);
}

obj *obj_kv_new_value(const char *key, size_t klen, const char *p, size_t len, int expire_slot) {
    long long v;
    if (len <= 20 && str_to_ll(p, len, &v)) {
        int64_t i = v;
        obj *o = obj_alloc_kv(sizeof i, key, klen, NULL, expire_slot, OBJ_KV_NO_EXPIRE, 0);
        o->enc = OBJ_ENC_INT;
        memcpy(o->data, &i, sizeof i);
        return o;
    }
    return kv_new_raw(key, klen, p, len, expire_slot);
}

obj *obj_kv_set_expire(obj *o, int64_t expire) {
    assert(obj_is_kv(o));
    if (o->kv & OBJ_KV_EXPIRE) {
        *obj_kv_expire_slot(o) = expire;
        return o;
    }
    if (expire == OBJ_KV_NO_EXPIRE) return o;
    size_t klen;
    const char *key = obj_kv_key(o, &klen);
    obj_kvmeta meta = *obj_kv_meta(o);
    /* key points into o: obj_kv_make copies it into the new kv (the prefix
     * grows by the slot, so never in place) before it drops o */
    return obj_kv_make(o, key, klen, &meta, expire);
}

obj *obj_new_raw(const char *p, size_t len) { return obj_kv_new_raw(NULL, 0, p, len); }

obj *obj_new_zeroed(size_t len) {
    assert(len <= OBJ_MAX_LEN);
    obj *o = obj_alloc_kv(len + 1, NULL, 0, NULL, 0, 0, 1);
    o->len = len;
    return o;
}

obj *obj_new_int(int64_t v) {
    obj *o = obj_alloc_raw(sizeof(int64_t));
    o->enc = OBJ_ENC_INT;
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
        void *base = obj_base(o);
        count_sub(base);
        free(base);
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

size_t obj_mem(const obj *o) { return obj_prefix(o) + sizeof(obj) + obj_cap(o); }

int obj_eq_bytes(const obj *o, const char *p, size_t len) {
    char buf[OBJ_INTBUF];
    size_t n;
    const char *s = obj_str(o, buf, &n);
    return n == len && memcmp(s, p, len) == 0;
}

const char *obj_type_name(int type) {
    static const char *const names[OBJ_NTYPES] = {
        [OBJ_STRING] = "string", [OBJ_LIST] = "list", [OBJ_SET] = "set",
        [OBJ_ZSET] = "zset", [OBJ_HASH] = "hash", [OBJ_STREAM] = "stream",
    };
    assert(type >= 0 && type < OBJ_NTYPES && names[type]);
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
        case OBJ_ENC_STREAM: return "stream";
        default: return "unknown";
        }
    }
}

obj *obj_new_coll(int type, int enc, int ntrees, const int *kinds) {
    assert(type != OBJ_STRING && type < OBJ_NTYPES && ntrees >= 1 &&
           ntrees <= (type == OBJ_STREAM ? OBJ_STREAM_TREES : 2));
    obj *o = obj_alloc_raw(coll_size(type, (size_t)ntrees));
    memset(o->data, 0, coll_size(type, (size_t)ntrees));
    o->type = (uint8_t)type;
    o->enc = (uint8_t)enc;
    o->len = (size_t)ntrees;
    for (int i = 0; i < ntrees; i++) pt_init(obj_tree(o, i), kinds[i]);
    return o;
}

/* A new obj of o's type and encoding holding second handles on its trees,
 * carrying o's key and metadata when o is a kv and `keyed`. */
static obj *coll_share(const obj *o, int keyed) {
    size_t size = coll_size(o->type, o->len), trees = o->len * sizeof(ptree);
    obj *n = keyed ? kv_alloc_like(o, size, 0) : obj_alloc_raw(size);
    n->type = o->type;
    n->enc = o->enc;
    n->len = o->len;
    for (size_t i = 0; i < o->len; i++) pt_share(obj_tree(n, (int)i), obj_ctree(o, (int)i));
    memcpy(n->data + trees, o->data + trees, size - trees);
    return n;
}

obj *obj_coll_writable(obj *o) {
    assert(obj_is_coll(o));
    if (!obj_shared(o)) return o;
    obj *n = coll_share(o, 1);
    obj_decref(o);
    return n;
}

size_t obj_coll_mem(const obj *o) {
    size_t m = obj_mem(o);
    for (size_t i = 0; i < o->len; i++) m += pt_mem(obj_ctree(o, (int)i));
    return m;
}

size_t obj_mem_account_add(void *p) {
    count_add(p);
    return alloc_bytes(p);
}
void obj_mem_account_sub(void *p) { count_sub(p); }
size_t obj_block_bytes(void *p) { return alloc_bytes(p); }

obj *obj_copy(obj *o) {
    switch (o->type) {
    case OBJ_STRING:
        obj_incref(o);
        return o;
    default:
        return coll_share(o, 0); /* for another key: obj_kv_make gives it one */
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
        size_t prefix = obj_prefix(o);
        char *base = obj_base(o);
        count_sub(base);
        base = xrealloc(base, prefix + sizeof(obj) + cap);
        count_add(base);
        return (obj *)(void *)(base + prefix);
    }
    obj *n = kv_alloc_like(o, cap, 0);
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
