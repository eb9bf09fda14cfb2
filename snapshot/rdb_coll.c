/* rdb_coll: hashes, lists, sets and sorted sets in RDB values (see
 * rdb_coll.h for which types are written and read).
 *
 * Writing walks the value with the types' iterators (t_*.h) and hands
 * strings and lengths to the writer (rdb_priv.h); the small forms and the
 * quicklist nodes are packed with listpack.c one blob at a time.
 *
 * Reading collects the elements (strings stay where the blob holds them;
 * strings of plain forms and of quicklist nodes, which the next read would
 * overwrite, and integers turned into decimal are copied into an arena of
 * 1 MiB blocks), then builds the value once with the type's *_from_*
 * builder, which also refuses duplicates. Arrays grow as elements arrive,
 * never from a length the file claims. */
#include "rdb_coll.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_zset.h"
#include "util.h"
#include "listpack.h"
#include "rdb_stream.h"

static _Atomic int list_fill = -2;
static _Atomic uint64_t packed_threshold = UINT64_C(1) << 30;

void rdb_coll_set_list_fill(int fill) { atomic_store(&list_fill, fill); }
int rdb_get_list_fill(void) { return atomic_load(&list_fill); }
void rdb_set_packed_threshold(uint64_t bytes) { atomic_store(&packed_threshold, bytes); }

/* ==== writing ==== */

unsigned rdb_coll_type(const obj *v) {
    switch (v->type) {
    case OBJ_HASH: return v->enc == OBJ_ENC_LISTPACK ? RDB_TYPE_HASH_LISTPACK : RDB_TYPE_HASH;
    case OBJ_LIST: return RDB_TYPE_LIST_QUICKLIST_2;
    case OBJ_SET: return v->enc == OBJ_ENC_INTSET ? RDB_TYPE_SET_INTSET : RDB_TYPE_SET;
    case OBJ_ZSET: return v->enc == OBJ_ENC_LISTPACK ? RDB_TYPE_ZSET_LISTPACK : RDB_TYPE_ZSET_2;
    case OBJ_STREAM: return RDB_TYPE_STREAM_LISTPACKS_2;
    }
    assert(0 && "not a collection");
    return 0;
}

/* A blob as one RDB string; frees it. */
static int w_blob(rdb_writer *w, vbuf *b) {
    int rc = rdbw_string(w, b->data, b->len);
    vbuf_free(b);
    return rc;
}

/* The iteration gave a count other than the value's length: a broken
 * value, reported rather than written as a file that would not load. */
static int w_count_mismatch(rdb_writer *w, const char *type, uint64_t want, uint64_t got) {
    char msg[128];
    snprintf(msg, sizeof msg, "%s of length %llu iterated %llu elements", type,
             (unsigned long long)want, (unsigned long long)got);
    return rdbw_fail(w, msg);
}

static int w_hash(rdb_writer *w, const obj *h) {
    hash_iter it;
    const char *f, *v;
    size_t fl, vl;
    uint64_t n = 0, len = hash_len(h);
    hash_iter_init(&it, h);
    if (h->enc == OBJ_ENC_LISTPACK) {
        vbuf b;
        vbuf_init(&b);
        lp_begin(&b);
        while (hash_iter_next(&it, &f, &fl, &v, &vl)) {
            lp_append(&b, f, fl);
            lp_append(&b, v, vl);
            n++;
        }
        lp_end(&b, 2 * n);
        if (n != len) {
            vbuf_free(&b);
            return w_count_mismatch(w, "hash", len, n);
        }
        return w_blob(w, &b);
    }
    if (rdbw_len(w, len)) return -1;
    while (hash_iter_next(&it, &f, &fl, &v, &vl)) {
        if (rdbw_string(w, f, fl) || rdbw_string(w, v, vl)) return -1;
        n++;
    }
    return n == len ? 0 : w_count_mismatch(w, "hash", len, n);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* An intset: the members (integers: the set's encoding says so) sorted. */
static int w_intset(rdb_writer *w, const obj *s) {
    uint64_t len = set_len(s), n = 0;
    int64_t *v = xmalloc((len ? len : 1) * sizeof *v);
    set_iter it;
    set_iter_init(&it, s);
    const char *m;
    size_t ml;
    while (n < len && set_iter_next(&it, &m, &ml)) {
        long long x;
        if (!str_to_ll(m, ml, &x)) {
            free(v);
            return rdbw_fail(w, "set encoded as intset holds a member that is not an integer");
        }
        v[n++] = x;
    }
    if (n != len || set_iter_next(&it, &m, &ml)) {
        free(v);
        return w_count_mismatch(w, "set", len, n);
    }
    qsort(v, n, sizeof *v, cmp_i64);
    vbuf b;
    vbuf_init(&b);
    is_encode(&b, v, n);
    free(v);
    return w_blob(w, &b);
}

static int w_set(rdb_writer *w, const obj *s) {
    if (s->enc == OBJ_ENC_INTSET) return w_intset(w, s);
    uint64_t len = set_len(s), n = 0;
    if (rdbw_len(w, len)) return -1;
    set_iter it;
    set_iter_init(&it, s);
    const char *m;
    size_t ml;
    while (set_iter_next(&it, &m, &ml)) {
        if (rdbw_string(w, m, ml)) return -1;
        n++;
    }
    return n == len ? 0 : w_count_mismatch(w, "set", len, n);
}

/* A score as Redis 7.0's d2string writes it into a listpack: integral
 * values within +-2^52 as integers, else %.17g. */
static size_t d2string(char *buf, size_t len, double v) {
    if (isnan(v)) return (size_t)snprintf(buf, len, "nan");
    if (isinf(v)) return (size_t)snprintf(buf, len, v < 0 ? "-inf" : "inf");
    if (v == 0) return (size_t)snprintf(buf, len, signbit(v) ? "-0" : "0");
    if (v > -4503599627370495.0 && v < 4503599627370496.0 && v == (double)(long long)v)
        return ll_to_str(buf, (long long)v);
    return (size_t)snprintf(buf, len, "%.17g", v);
}

static int w_zset(rdb_writer *w, const obj *z) {
    zset_iter it;
    const char *m;
    size_t ml;
    double sc;
    uint64_t n = 0, len = zset_len(z);
    zset_iter_init(&it, z);
    if (z->enc == OBJ_ENC_LISTPACK) {
        vbuf b;
        vbuf_init(&b);
        lp_begin(&b);
        char buf[64];
        while (zset_iter_next(&it, &m, &ml, &sc)) {
            lp_append(&b, m, ml);
            lp_append(&b, buf, d2string(buf, sizeof buf, sc));
            n++;
        }
        lp_end(&b, 2 * n);
        if (n != len) {
            vbuf_free(&b);
            return w_count_mismatch(w, "zset", len, n);
        }
        return w_blob(w, &b);
    }
    if (rdbw_len(w, len)) return -1;
    while (zset_iter_next(&it, &m, &ml, &sc)) {
        uint64_t bits;
        memcpy(&bits, &sc, sizeof bits);
        unsigned char le[8];
        for (int i = 0; i < 8; i++) le[i] = (unsigned char)(bits >> (8 * i));
        if (rdbw_string(w, m, ml) || rdbw_raw(w, le, sizeof le)) return -1;
        n++;
    }
    return n == len ? 0 : w_count_mismatch(w, "zset", len, n);
}

/* ---- lists: quicklist nodes as Redis 7.0 fills them pushing at the tail
 * (quicklist.c: _quicklistNodeAllowInsert, packed_threshold) ---- */

typedef struct qnode {
    int fill;
    uint64_t threshold;
    int open;          /* a packed node takes more elements */
    size_t sz;         /* its listpack bytes */
    uint64_t count;
} qnode;

static const size_t ql_levels[] = { 4096, 8192, 16384, 32768, 65536 };
#define QL_SAFETY_LIMIT 8192
#define QL_SIZE_ESTIMATE_OVERHEAD 8

static int ql_allow(const qnode *q, size_t sz) {
    if (!q->open || sz >= q->threshold) return 0;
    size_t new_sz = q->sz + sz + QL_SIZE_ESTIMATE_OVERHEAD;
    if (q->fill < 0 && new_sz <= ql_levels[(size_t)(-q->fill) - 1]) return 1;
    if (new_sz > QL_SAFETY_LIMIT) return 0;
    return (long long)q->count < q->fill;
}

/* Places one element: 0 it joins the open node, 1 it starts a packed node,
 * 2 it is a plain node of its own. */
static int ql_place(qnode *q, const char *p, size_t n) {
    if (ql_allow(q, n)) {
        q->sz += lp_entry_size(p, n);
        q->count++;
        return 0;
    }
    if (n >= q->threshold) {
        q->open = 0;
        return 2;
    }
    q->open = 1;
    q->sz = LP_EMPTY_SIZE + lp_entry_size(p, n);
    q->count = 1;
    return 1;
}

static void ql_init(qnode *q, int fill) {
    if (fill > 32767) fill = 32767;   /* quicklistSetFill's bounds */
    if (fill < -5) fill = -5;
    *q = (qnode){fill, atomic_load(&packed_threshold), 0, 0, 0};
}

static int w_node(rdb_writer *w, vbuf *b, uint64_t count) {
    lp_end(b, count);
    return rdbw_len(w, QL_NODE_PACKED) || rdbw_string(w, b->data, b->len) ? -1 : 0;
}

static int w_list(rdb_writer *w, const obj *l) {
    uint64_t len = list_len(l), nodes = 0, n = 0;
    list_iter it;
    const char *p;
    size_t pl;
    qnode q;
    ql_init(&q, rdbw_list_fill(w));
    list_iter_init(&it, l);
    while (list_iter_next(&it, &p, &pl)) {   /* pass 1: the number of nodes */
        rdbw_element(w);
        if (ql_place(&q, p, pl) != 0) nodes++;
        n++;
    }
    if (n != len) return w_count_mismatch(w, "list", len, n);
    if (rdbw_len(w, nodes)) return -1;
    ql_init(&q, rdbw_list_fill(w));
    vbuf b;
    vbuf_init(&b);
    uint64_t in_node = 0, written = 0;
    int rc = 0;
    list_iter_init(&it, l);
    while (rc == 0 && list_iter_next(&it, &p, &pl)) {   /* pass 2: node by node */
        int where = ql_place(&q, p, pl);
        if (where != 0 && in_node > 0) {
            rc = w_node(w, &b, in_node);
            in_node = 0;
            written++;
        }
        if (rc) break;
        if (where == 2) {
            rc = rdbw_len(w, QL_NODE_PLAIN) || rdbw_string(w, p, pl) ? -1 : 0;
            written++;
            continue;
        }
        if (where == 1) lp_begin(&b);
        rdbw_element(w);
        lp_append(&b, p, pl);
        in_node++;
    }
    if (rc == 0 && in_node > 0) {
        rc = w_node(w, &b, in_node);
        written++;
    }
    vbuf_free(&b);
    if (rc == 0 && written != nodes) return w_count_mismatch(w, "list (nodes)", nodes, written);
    return rc;
}

int rdb_coll_write(rdb_writer *w, const obj *v) {
    switch (v->type) {
    case OBJ_HASH: return w_hash(w, v);
    case OBJ_LIST: return w_list(w, v);
    case OBJ_SET: return w_set(w, v);
    case OBJ_ZSET: return w_zset(w, v);
    case OBJ_STREAM: return rdb_stream_write(w, v);
    }
    return rdbw_fail(w, "unknown value type");
}

/* ==== reading ==== */

#define AR_BLOCK (1u << 20)

/* Bytes that must outlive the next read: blocks of AR_BLOCK, a string
 * bigger than a quarter of one in a block of its own. Pointers are stable. */
typedef struct arena {
    char **blocks;
    size_t nblocks, cap;
    char *cur;
    size_t left;
} arena;

static char *ar_block(arena *a, size_t n) {
    if (a->nblocks == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 16;
        a->blocks = xrealloc(a->blocks, a->cap * sizeof *a->blocks);
    }
    return a->blocks[a->nblocks++] = xmalloc(n ? n : 1);
}

static const char *ar_put(arena *a, const char *p, size_t n) {
    if (n == 0) return "";   /* p may be NULL then */
    if (n > AR_BLOCK / 4) {
        char *d = ar_block(a, n);
        memcpy(d, p, n);
        return d;
    }
    if (n > a->left) {
        a->cur = ar_block(a, AR_BLOCK);
        a->left = AR_BLOCK;
    }
    char *d = a->cur;
    memcpy(d, p, n);
    a->cur += n;
    a->left -= n;
    return d;
}

static void ar_free(arena *a) {
    for (size_t i = 0; i < a->nblocks; i++) free(a->blocks[i]);
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

/* A growing array of elements (one of the builders' structs). */
typedef struct vec {
    void *v;
    size_t n, cap, size;
} vec;

static void *vec_push(vec *x) {
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->v = xrealloc(x->v, x->cap * x->size);
    }
    return (char *)x->v + x->size * x->n++;
}

/* Everything one value's reading holds. */
typedef struct rctx {
    rd *r;
    unsigned type;
    uint64_t at;       /* offset of the value */
    arena a;
    vec v;
    int copy;          /* strings must go to the arena (plain forms, nodes) */
    const char *pend;  /* a hash pair's field / a zset member waiting for its
                          value / score */
    size_t pendl;
    int has_pend;
} rctx;

/* An element's bytes, kept for the builder (see rc.copy). */
static const char *keep(rctx *c, const blob_ent *e, size_t *len) {
    char buf[OBJ_INTBUF];
    const char *p = blob_ent_str(e, buf, len);
    if (e->is_int || c->copy) return ar_put(&c->a, p, *len);
    return p;
}

static const char *type_label(unsigned t) {
    switch (t) {
    case RDB_TYPE_LIST: return "list";
    case RDB_TYPE_SET: return "set";
    case RDB_TYPE_ZSET: return "zset";
    case RDB_TYPE_HASH: return "hash";
    case RDB_TYPE_ZSET_2: return "zset";
    case RDB_TYPE_HASH_ZIPMAP: return "hash (zipmap)";
    case RDB_TYPE_LIST_ZIPLIST: return "list (ziplist)";
    case RDB_TYPE_SET_INTSET: return "set (intset)";
    case RDB_TYPE_ZSET_ZIPLIST: return "zset (ziplist)";
    case RDB_TYPE_HASH_ZIPLIST: return "hash (ziplist)";
    case RDB_TYPE_LIST_QUICKLIST: return "list (quicklist)";
    case RDB_TYPE_HASH_LISTPACK: return "hash (listpack)";
    case RDB_TYPE_ZSET_LISTPACK: return "zset (listpack)";
    case RDB_TYPE_LIST_QUICKLIST_2: return "list (quicklist v2)";
    }
    return "?";
}

int rdb_coll_readable(unsigned type) {
    switch (type) {
    case RDB_TYPE_LIST: case RDB_TYPE_SET: case RDB_TYPE_ZSET: case RDB_TYPE_HASH:
    case RDB_TYPE_ZSET_2: case RDB_TYPE_HASH_ZIPMAP: case RDB_TYPE_LIST_ZIPLIST:
    case RDB_TYPE_SET_INTSET: case RDB_TYPE_ZSET_ZIPLIST: case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_LIST_QUICKLIST: case RDB_TYPE_HASH_LISTPACK: case RDB_TYPE_ZSET_LISTPACK:
    case RDB_TYPE_LIST_QUICKLIST_2: case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
        return 1;
    }
    return 0;
}

/* A score written as text (a zset listpack/ziplist entry, RDB_TYPE_ZSET):
 * the whole text must be a number, and not NaN. */
static int parse_score(const char *p, size_t n, double *out) {
    char buf[128];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + n || isnan(d)) return -1;
    *out = d;
    return 0;
}

/* One element of a value, in file order: for hashes and zsets the pairs'
 * halves alternate. */
static int add_elem(rctx *c, const blob_ent *e) {
    size_t n;
    switch (c->type) {
    case RDB_TYPE_LIST: case RDB_TYPE_LIST_ZIPLIST: case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2: {
        const char *p = keep(c, e, &n);
        *(list_elem *)vec_push(&c->v) = (list_elem){p, n};
        return 0;
    }
    case RDB_TYPE_SET: case RDB_TYPE_SET_INTSET: {
        const char *p = keep(c, e, &n);
        *(set_member *)vec_push(&c->v) = (set_member){p, n};
        return 0;
    }
    case RDB_TYPE_HASH: case RDB_TYPE_HASH_ZIPMAP: case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK: {
        const char *p = keep(c, e, &n);
        if (!c->has_pend) {
            c->pend = p;
            c->pendl = n;
            c->has_pend = 1;
            return 0;
        }
        *(hash_pair *)vec_push(&c->v) = (hash_pair){c->pend, c->pendl, p, n};
        c->has_pend = 0;
        return 0;
    }
    default: {   /* zset blobs: member, score */
        if (!c->has_pend) {
            c->pend = keep(c, e, &c->pendl);
            c->has_pend = 1;
            return 0;
        }
        double sc;
        if (e->is_int) {
            sc = (double)e->v;
        } else if (parse_score(e->p, e->n, &sc)) {
            return rdbr_fail(c->r, c->at, "%s: score \"%.*s\" is not a number",
                             type_label(c->type), (int)(e->n > 40 ? 40 : e->n), e->p);
        }
        *(zset_member *)vec_push(&c->v) = (zset_member){c->pend, c->pendl, sc};
        c->has_pend = 0;
        return 0;
    }
    }
}

/* A string of the stream as an element. */
static int add_rstr(rctx *c, const rstr *s) {
    blob_ent e = {s->p, s->len, s->is_int, s->v};
    return add_elem(c, &e);
}

/* A blob: a string (never an integer encoding). */
static int read_blob(rctx *c, rstr *s, const char *what) {
    uint64_t at = rdbr_off(c->r);
    if (rdbr_string(c->r, s)) return -1;
    if (s->is_int)
        return rdbr_fail(c->r, at, "%s: %s is an integer, not a blob", type_label(c->type), what);
    return 0;
}

/* Decodes one validated-on-the-spot blob of kind `kind` ('l' listpack,
 * 'z' ziplist, 'i' intset, 'm' zipmap) into elements. *count: its entries
 * (pairs for a zipmap). */
static int add_blob(rctx *c, int kind, const rstr *s, uint64_t at, uint64_t *count) {
    const unsigned char *b = (const unsigned char *)s->p;
    char why[192];
    int bad = kind == 'l' ? lp_validate(b, s->len, count, why, sizeof why)
              : kind == 'z' ? zl_validate(b, s->len, count, why, sizeof why)
              : kind == 'i' ? is_validate(b, s->len, count, why, sizeof why)
                            : zm_validate(b, s->len, count, why, sizeof why);
    if (bad) return rdbr_fail(c->r, at, "%s: %s", type_label(c->type), why);
    blob_ent e, e2;
    if (kind == 'l') {
        lp_iter it;
        lp_iter_init(&it, b);
        while (lp_iter_next(&it, &e))
            if (add_elem(c, &e)) return -1;
    } else if (kind == 'z') {
        zl_iter it;
        zl_iter_init(&it, b);
        while (zl_iter_next(&it, &e))
            if (add_elem(c, &e)) return -1;
    } else if (kind == 'i') {
        for (uint64_t i = 0; i < *count; i++) {
            e = (blob_ent){NULL, 0, 1, is_get(b, i)};
            if (add_elem(c, &e)) return -1;
        }
    } else {
        zm_iter it;
        zm_iter_init(&it, b);
        while (zm_iter_next(&it, &e, &e2))
            if (add_elem(c, &e) || add_elem(c, &e2)) return -1;
    }
    return 0;
}

/* A length of elements for a plain form, checked against the bytes left
 * (every element takes at least min_bytes). */
static int read_count(rctx *c, uint64_t *n, uint64_t min_bytes) {
    uint64_t at = rdbr_off(c->r);
    if (rdbr_len(c->r, n, type_label(c->type))) return -1;
    uint64_t left = rdbr_left(c->r);
    if (left != UINT64_MAX && *n > left / min_bytes)
        return rdbr_fail(c->r, at, "%s of %llu elements exceeds the %llu bytes left",
                         type_label(c->type), (unsigned long long)*n,
                         (unsigned long long)left);
    return 0;
}

/* A score of RDB_TYPE_ZSET: a length byte (253 nan, 254 +inf, 255 -inf)
 * then that many characters. */
static int read_text_score(rctx *c, double *sc) {
    uint64_t at = rdbr_off(c->r);
    unsigned char l;
    char buf[256];
    if (rdbr_raw(c->r, &l, 1)) return -1;
    if (l == 254) { *sc = INFINITY; return 0; }
    if (l == 255) { *sc = -INFINITY; return 0; }
    if (l == 253) return rdbr_fail(c->r, at, "zset: NaN score");
    if (rdbr_raw(c->r, buf, l)) return -1;
    if (parse_score(buf, l, sc))
        return rdbr_fail(c->r, at, "zset: score \"%.*s\" is not a number", (int)(l > 40 ? 40 : l),
                         buf);
    return 0;
}

static int read_binary_score(rctx *c, double *sc) {
    unsigned char le[8];
    if (rdbr_raw(c->r, le, sizeof le)) return -1;
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++) bits |= (uint64_t)le[i] << (8 * i);
    memcpy(sc, &bits, sizeof *sc);
    return 0;
}

/* Plain forms: a count then strings (pairs for hashes; member + score for
 * zsets). */
static int read_plain(rctx *c) {
    int hash = c->type == RDB_TYPE_HASH, zset = c->type == RDB_TYPE_ZSET || c->type == RDB_TYPE_ZSET_2;
    uint64_t n;
    if (read_count(c, &n, hash ? 2 : zset ? 2 : 1)) return -1;
    c->copy = 1;
    for (uint64_t i = 0; i < n; i++) {
        rstr s;
        if (rdbr_string(c->r, &s) || add_rstr(c, &s)) return -1;
        if (hash && (rdbr_string(c->r, &s) || add_rstr(c, &s))) return -1;
        if (zset) {
            double sc;
            uint64_t at = rdbr_off(c->r);
            if (c->type == RDB_TYPE_ZSET ? read_text_score(c, &sc) : read_binary_score(c, &sc))
                return -1;
            if (isnan(sc)) return rdbr_fail(c->r, at, "zset: NaN score");
            zset_member *m = vec_push(&c->v);
            *m = (zset_member){c->pend, c->pendl, sc};
            c->has_pend = 0;
        }
    }
    return 0;
}

/* Quicklists: a count of nodes, each a ziplist (v1) or a container and a
 * listpack or plain element (v2). Empty nodes are skipped, as Redis does. */
static int read_quicklist(rctx *c) {
    uint64_t n;
    if (read_count(c, &n, 1)) return -1;
    c->copy = 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t container = QL_NODE_PACKED, at = rdbr_off(c->r), cnt;
        if (c->type == RDB_TYPE_LIST_QUICKLIST_2) {
            if (rdbr_len(c->r, &container, "quicklist container")) return -1;
            if (container != QL_NODE_PLAIN && container != QL_NODE_PACKED)
                return rdbr_fail(c->r, at, "%s: bad node container %llu", type_label(c->type),
                                 (unsigned long long)container);
        }
        rstr s;
        if (container == QL_NODE_PLAIN) {
            if (rdbr_string(c->r, &s) || add_rstr(c, &s)) return -1;
            continue;
        }
        at = rdbr_off(c->r);
        if (read_blob(c, &s, "node") ||
            add_blob(c, c->type == RDB_TYPE_LIST_QUICKLIST ? 'z' : 'l', &s, at, &cnt))
            return -1;
    }
    return 0;
}

/* The single blob of a small form. */
static int read_small(rctx *c) {
    int kind;
    switch (c->type) {
    case RDB_TYPE_HASH_ZIPMAP: kind = 'm'; break;
    case RDB_TYPE_SET_INTSET: kind = 'i'; break;
    case RDB_TYPE_HASH_LISTPACK: case RDB_TYPE_ZSET_LISTPACK: kind = 'l'; break;
    default: kind = 'z';
    }
    rstr s;
    uint64_t at = rdbr_off(c->r), cnt;
    if (read_blob(c, &s, "the value") || add_blob(c, kind, &s, at, &cnt)) return -1;
    if (c->has_pend)
        return rdbr_fail(c->r, at, "%s: an odd number of entries (%llu)", type_label(c->type),
                         (unsigned long long)cnt);
    return 0;
}

/* The value from the elements collected; NULL when the builder refuses. */
static obj *build(rctx *c) {
    switch (c->type) {
    case RDB_TYPE_LIST: case RDB_TYPE_LIST_ZIPLIST: case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return list_from_elems(c->v.v, c->v.n);
    case RDB_TYPE_SET: case RDB_TYPE_SET_INTSET:
        return set_from_members(c->v.v, c->v.n);
    case RDB_TYPE_HASH: case RDB_TYPE_HASH_ZIPMAP: case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return hash_from_pairs(c->v.v, c->v.n);
    default:
        return zset_from_members(c->v.v, c->v.n);
    }
}

static size_t elem_size(unsigned type) {
    switch (type) {
    case RDB_TYPE_LIST: case RDB_TYPE_LIST_ZIPLIST: case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2:
        return sizeof(list_elem);
    case RDB_TYPE_SET: case RDB_TYPE_SET_INTSET:
        return sizeof(set_member);
    case RDB_TYPE_HASH: case RDB_TYPE_HASH_ZIPMAP: case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK:
        return sizeof(hash_pair);
    default:
        return sizeof(zset_member);
    }
}

int rdb_coll_read(rd *r, unsigned type, obj **val) {
    if (type == RDB_TYPE_STREAM_LISTPACKS || type == RDB_TYPE_STREAM_LISTPACKS_2)
        return rdb_stream_read(r, type, val);
    rctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.type = type;
    c.at = rdbr_off(r);
    c.v.size = elem_size(type);
    int rc;
    switch (type) {
    case RDB_TYPE_LIST: case RDB_TYPE_SET: case RDB_TYPE_ZSET: case RDB_TYPE_HASH:
    case RDB_TYPE_ZSET_2:
        rc = read_plain(&c);
        break;
    case RDB_TYPE_LIST_QUICKLIST: case RDB_TYPE_LIST_QUICKLIST_2:
        rc = read_quicklist(&c);
        break;
    default:
        rc = read_small(&c);
    }
    if (rc == 0 && c.v.n == 0) {
        rc = 1;   /* empty: the caller skips the key */
    } else if (rc == 0) {
        *val = build(&c);
        if (!*val)
            rc = rdbr_fail(r, c.at, "%s: a duplicated %s%s", type_label(type),
                           elem_size(type) == sizeof(hash_pair) ? "field" : "member",
                           elem_size(type) == sizeof(zset_member) ? " or a NaN score" : "");
    }
    free(c.v.v);
    ar_free(&c.a);
    return rc;
}
