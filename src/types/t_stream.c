/* t_stream: the stream type on six ptrees (layouts in t_stream.h). This
 * file owns the encodings of the trees' keys and values and the rules that
 * mirror Redis 7.0's t_stream.c: where a node (a listpack) ends, how XDEL
 * and trims mark and drop entries, how first_id follows. Writes: main
 * thread, on an unshared obj. Reads: any thread holding a reference. */
#include "t_stream.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpsize.h"
#include "server.h"
#include "util.h"

enum { ST_ENTRIES, ST_NODES, ST_GROUPS, ST_CONS, ST_PEL, ST_CPEL };
_Static_assert(sizeof(stream_meta) == OBJ_STREAM_META, "stream_meta is OBJ_STREAM_META bytes");
_Static_assert(ST_CPEL + 1 == OBJ_STREAM_TREES, "one ptree per ST_*");

/* Redis's STREAM_LISTPACK_MAX_SIZE: no node grows past it, no entry's
 * fields and values together may exceed it. */
#define LP_MAX_SIZE ((size_t)1 << 30)
/* A listpack's header (total bytes, count) and end byte. */
#define LP_HDR_BYTES 6
#define LP_END_BYTES 1

/* Prefix bytes of the two key forms of ST_CONS. */
#define CONS_BY_NAME 'n'
#define CONS_BY_ID 'i'

static ptree *tw(obj *s, int i) {
    assert(s->type == OBJ_STREAM && !obj_shared(s));
    return obj_tree(s, i);
}
static const ptree *tr(const obj *s, int i) {
    assert(s->type == OBJ_STREAM);
    return obj_ctree(s, i);
}

const stream_meta *stream_meta_get(const obj *s) {
    assert(s->type == OBJ_STREAM);
    return (const stream_meta *)(const void *)(s->data + OBJ_STREAM_TREES * sizeof(ptree));
}
stream_meta *stream_meta_mut(obj *s) {
    assert(s->type == OBJ_STREAM && !obj_shared(s));
    return (stream_meta *)(void *)(s->data + OBJ_STREAM_TREES * sizeof(ptree));
}

obj *stream_new(void) {
    int kinds[OBJ_STREAM_TREES];
    for (int i = 0; i < OBJ_STREAM_TREES; i++) kinds[i] = PT_KEYED;
    return obj_new_coll(OBJ_STREAM, OBJ_ENC_STREAM, OBJ_STREAM_TREES, kinds);
}

uint64_t stream_group_count(const obj *s) { return pt_count(tr(s, ST_GROUPS)); }
uint64_t stream_node_count(const obj *s) { return pt_count(tr(s, ST_NODES)); }

/* ==== ids ==== */

int sid_incr(stream_id *id) {
    if (id->seq != UINT64_MAX) {
        id->seq++;
        return 1;
    }
    if (id->ms == UINT64_MAX) return 0;
    id->ms++;
    id->seq = 0;
    return 1;
}

int sid_decr(stream_id *id) {
    if (id->seq != 0) {
        id->seq--;
        return 1;
    }
    if (id->ms == 0) return 0;
    id->ms--;
    id->seq = UINT64_MAX;
    return 1;
}

/* v in decimal at p: its length (at most 20). */
static size_t u64_dec(char *p, uint64_t v) {
    char t[20];
    size_t n = 0;
    do {
        t[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) p[i] = t[n - 1 - i];
    return n;
}

size_t sid_format(char *buf, stream_id id) {
    size_t n = u64_dec(buf, id.ms);
    buf[n++] = '-';
    n += u64_dec(buf + n, id.seq);
    buf[n] = '\0';
    assert(n < STREAM_ID_STRMAX);
    return n;
}

/* Redis's string2ull: a canonical integer (negative refused), else what
 * strtoull takes whole (leading blanks, '+', leading zeros). */
static int str_to_ull(const char *s, uint64_t *out) {
    long long ll;
    if (str_to_ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *out = (uint64_t)ll;
        return 1;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == EINVAL || errno == ERANGE || !(*s != '\0' && *end == '\0')) return 0;
    *out = v;
    return 1;
}

int sid_parse(const char *p, size_t len, uint64_t missing_seq, stream_id *out) {
    char buf[128];
    if (len > sizeof buf - 1) return 0;
    memcpy(buf, p, len);
    buf[len] = '\0'; /* as Redis: the id is read as a C string */
    char *dash = strchr(buf, '-');
    if (dash) *dash = '\0';
    uint64_t ms, seq = missing_seq;
    if (!str_to_ull(buf, &ms)) return 0;
    if (dash && !str_to_ull(dash + 1, &seq)) return 0;
    out->ms = ms;
    out->seq = seq;
    return 1;
}

/* ==== key encodings ==== */

/* An id as a key: for ms then seq, a length byte and the big-endian bytes
 * without leading zeros (memcmp order is numeric order); a seq of 0 is
 * left out (the shorter key sorts first, as 0 does). */
#define IDKEY_MAX 18
static size_t put_num(char *p, uint64_t v) {
    size_t n = 0;
    for (uint64_t t = v; t; t >>= 8) n++;
    p[0] = (char)n;
    for (size_t i = 0; i < n; i++) p[1 + i] = (char)(v >> (8 * (n - 1 - i)));
    return 1 + n;
}
static size_t get_num(const char *p, uint64_t *v) {
    size_t n = (unsigned char)p[0];
    assert(n <= 8);
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) x = x << 8 | (unsigned char)p[1 + i];
    *v = x;
    return 1 + n;
}
static size_t idkey(char *buf, stream_id id) {
    size_t n = put_num(buf, id.ms);
    return id.seq ? n + put_num(buf + n, id.seq) : n;
}
static void idkey_get(const char *k, size_t klen, stream_id *id) {
    size_t n = get_num(k, &id->ms);
    id->seq = 0;
    if (n < klen) n += get_num(k + n, &id->seq);
    assert(n == klen);
}

/* Key prefixes of a group's items (gid) and of a consumer's (gid cid):
 * the numbers as put_num writes them (a length byte, the big-endian bytes):
 * a code no other number's starts with, so a prefix is one key range, and
 * short, so that keys of one group still differ in their first 8 bytes
 * (pt_keycmp compares a word before it calls memcmp). */
#define GKEY_MAX 9
#define GCKEY_MAX 18
static size_t gkey(char *p, uint64_t gid) { return put_num(p, gid); }
static size_t gckey(char *p, uint64_t gid, uint64_t cid) {
    size_t n = put_num(p, gid);
    return n + put_num(p + n, cid);
}

/* Fixed-width little-endian fields of the records. */
static void put_u64(char *p, uint64_t v) { memcpy(p, &v, sizeof v); }
static uint64_t get_u64(const char *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Unsigned LEB128. */
#define VARINT_MAX 10
static size_t vput(char *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (char)v;
    return n;
}
static uint64_t vget(const char **pp) {
    const unsigned char *p = (const unsigned char *)*pp;
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        unsigned char b = *p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) break;
        shift += 7;
    }
    *pp = (const char *)p;
    return v;
}
static stream_str vget_str(const char **pp) {
    size_t n = (size_t)vget(pp);
    stream_str s = {*pp, n};
    *pp += n;
    return s;
}
static size_t vput_str(char *p, stream_str s) {
    size_t n = vput(p, s.len);
    if (s.len) memcpy(p + n, s.p, s.len);
    return n + s.len;
}

/* A growable scratch buffer for building values. */
typedef struct scratch {
    char *p;
    char small[512];
} scratch;
static char *scratch_get(scratch *b, size_t n) {
    b->p = n <= sizeof b->small ? b->small : xmalloc(n);
    return b->p;
}
static void scratch_done(scratch *b) {
    if (b->p != b->small) free(b->p);
}

/* ==== nodes ====
 * Node value: varint live, varint deleted, varint ebytes (the bytes of its
 * entries in Redis's listpack), varint nmaster, then the master fields
 * (varint length, bytes). */

typedef struct node {
    stream_id master;
    uint64_t live, deleted, ebytes, nmaster;
    const char *fields; /* encoded master fields (inside the tree item) */
    size_t fields_len;
    uint64_t rank;      /* in ST_NODES */
} node;

static void node_parse(const pt_item *it, uint64_t rank, node *n) {
    idkey_get(it->key, it->klen, &n->master);
    const char *p = it->val;
    n->live = vget(&p);
    n->deleted = vget(&p);
    n->ebytes = vget(&p);
    n->nmaster = vget(&p);
    n->fields = p;
    n->fields_len = it->vlen - (size_t)(p - it->val);
    n->rank = rank;
}

/* Bytes of a master entry's fields in the listpack. */
static size_t master_fields_lp(const char *f, uint64_t nf) {
    size_t b = 0;
    for (uint64_t i = 0; i < nf; i++) {
        stream_str s = vget_str(&f);
        b += lp_entry_size(s.p, s.len);
    }
    return b;
}

/* The node's listpack size, as lpBytes would answer. */
static size_t node_lp_bytes(const node *n) {
    return LP_HDR_BYTES + lp_int_entry_size((long long)n->live) +
           lp_int_entry_size((long long)n->deleted) + lp_int_entry_size((long long)n->nmaster) +
           master_fields_lp(n->fields, n->nmaster) + lp_int_entry_size(0) + n->ebytes +
           LP_END_BYTES;
}

/* Node n's item value (in b's memory: scratch_done after use). */
static char *node_encode(scratch *b, const node *n, size_t *len) {
    char *p = scratch_get(b, 4 * VARINT_MAX + n->fields_len);
    size_t l = vput(p, n->live);
    l += vput(p + l, n->deleted);
    l += vput(p + l, n->ebytes);
    l += vput(p + l, n->nmaster);
    memcpy(p + l, n->fields, n->fields_len);
    *len = l + n->fields_len;
    return p;
}

/* Writes node n (new: inserted at n->rank; else replaces it). */
static void node_store(obj *s, const node *n, int is_new) {
    char key[IDKEY_MAX];
    size_t kl = idkey(key, n->master);
    scratch b;
    size_t l;
    char *p = node_encode(&b, n, &l);
    pt_item it = {key, kl, p, l};
    if (is_new) pt_insert(tw(s, ST_NODES), n->rank, &it);
    else pt_replace(tw(s, ST_NODES), n->rank, &it);
    scratch_done(&b);
}

/* The node holding id (the last node whose master id <= id): 1, or 0
 * when id is below every node. */
static int node_of(const obj *s, stream_id id, node *n) {
    char key[IDKEY_MAX];
    size_t kl = idkey(key, id);
    uint64_t rank;
    pt_item it;
    if (!pt_seek(tr(s, ST_NODES), key, kl, &rank, NULL)) {
        if (rank == 0) return 0;
        rank--;
    }
    int ok = pt_get(tr(s, ST_NODES), rank, &it);
    assert(ok);
    node_parse(&it, rank, n);
    return 1;
}

/* Ranks [*lo, *hi) of a node's entries in ST_ENTRIES. */
static void node_entry_ranks(const obj *s, const node *n, uint64_t *lo, uint64_t *hi) {
    char key[IDKEY_MAX];
    size_t kl = idkey(key, n->master);
    pt_seek(tr(s, ST_ENTRIES), key, kl, lo, NULL);
    pt_item next;
    if (pt_get(tr(s, ST_NODES), n->rank + 1, &next)) {
        pt_seek(tr(s, ST_ENTRIES), next.key, next.klen, hi, NULL);
    } else {
        *hi = pt_count(tr(s, ST_ENTRIES));
    }
}

/* ==== entries ====
 * Entry value: a flags byte (STREAM_FLAG_*), then the values (varint
 * length, bytes) when SAMEFIELDS, else varint nfields and the pairs; the
 * last value without its length (it runs to the item's end). */

int stream_append_fits(const stream_str *fv, size_t nfields) {
    size_t tot = 0;
    for (size_t i = 0; i < 2 * nfields; i++) {
        if (fv[i].len > LP_MAX_SIZE - tot) return 0;
        tot += fv[i].len;
    }
    return 1;
}

static size_t fv_total(const stream_str *fv, size_t nfields) {
    size_t tot = 0;
    for (size_t i = 0; i < 2 * nfields; i++) tot += fv[i].len;
    return tot;
}

/* 1 when the entry's fields are node n's master fields, in order. */
static int same_fields(const node *n, const stream_str *fv, size_t nfields) {
    if (n->nmaster != nfields) return 0;
    const char *f = n->fields;
    for (size_t i = 0; i < nfields; i++) {
        stream_str m = vget_str(&f);
        if (m.len != fv[2 * i].len || (m.len && memcmp(m.p, fv[2 * i].p, m.len) != 0)) return 0;
    }
    return 1;
}

/* Bytes the entry takes in Redis's listpack (flags, the id's deltas, the
 * fields count, fields, values, lp-count). */
static size_t entry_lp_bytes(stream_id id, stream_id master, int flags, const stream_str *fv,
                             size_t nfields) {
    int same = flags & STREAM_FLAG_SAMEFIELDS;
    size_t b = lp_int_entry_size(flags) + lp_int_entry_size((long long)(id.ms - master.ms)) +
               lp_int_entry_size((long long)(id.seq - master.seq));
    if (!same) b += lp_int_entry_size((long long)nfields);
    for (size_t i = 0; i < nfields; i++) {
        if (!same) b += lp_entry_size(fv[2 * i].p, fv[2 * i].len);
        b += lp_entry_size(fv[2 * i + 1].p, fv[2 * i + 1].len);
    }
    long long lp_count = (long long)nfields + 3 + (same ? 0 : (long long)nfields + 1);
    return b + lp_int_entry_size(lp_count);
}

/* The entry item's value (in b's memory: scratch_done after use). */
static char *entry_encode(scratch *b, int flags, const stream_str *fv, size_t nfields,
                          size_t *len) {
    size_t need = 1 + VARINT_MAX;
    for (size_t i = 0; i < 2 * nfields; i++) need += VARINT_MAX + fv[i].len;
    char *p = scratch_get(b, need);
    size_t l = 0;
    p[l++] = (char)flags;
    if (!(flags & STREAM_FLAG_SAMEFIELDS)) l += vput(p + l, nfields);
    for (size_t i = 0; i < nfields; i++) {
        if (!(flags & STREAM_FLAG_SAMEFIELDS)) l += vput_str(p + l, fv[2 * i]);
        if (i + 1 < nfields) {
            l += vput_str(p + l, fv[2 * i + 1]);
        } else if (fv[2 * i + 1].len) {
            memcpy(p + l, fv[2 * i + 1].p, fv[2 * i + 1].len);
            l += fv[2 * i + 1].len;
        }
    }
    *len = l;
    return p;
}

/* Appends the entry item (id above every entry: the caller checked it
 * against last_id, which is at least the top entry's id). */
static void entry_append(obj *s, stream_id id, int flags, const stream_str *fv, size_t nfields) {
    char key[IDKEY_MAX];
    size_t kl = idkey(key, id);
    scratch b;
    size_t l;
    char *p = entry_encode(&b, flags, fv, nfields, &l);
    pt_item it = {key, kl, p, l};
    pt_insert(tw(s, ST_ENTRIES), pt_count(tr(s, ST_ENTRIES)), &it);
    scratch_done(&b);
}

/* Encodes fields as a node's master fields into a new buffer. */
static char *master_encode(const stream_str *fields, size_t stride, size_t n, size_t *len) {
    size_t need = 0;
    for (size_t i = 0; i < n; i++) need += VARINT_MAX + fields[i * stride].len;
    char *p = xmalloc(need ? need : 1);
    size_t l = 0;
    for (size_t i = 0; i < n; i++) l += vput_str(p + l, fields[i * stride]);
    *len = l;
    return p;
}

/* stream-node-max-bytes as streamAppendItem bounds it. */
static size_t node_max_bytes(void) {
    long long b = server.cfg.compat.stream_node_max_bytes;
    if (b <= 0 || (unsigned long long)b > LP_MAX_SIZE) return LP_MAX_SIZE;
    return (size_t)b;
}

static void node_remove(obj *s, const node *n);
static void node_set_counts(obj *s, node *n, uint64_t live, uint64_t deleted);

/* Drops the deleted entries at the tail whose ids are not below id.
 * There are such only when XSETID moved last_id below them (it checks the
 * last live entry, as Redis does): Redis then appends after them in the
 * listpack, out of id order; verso keeps its trees in id order, so they
 * go (they are deleted: nothing a reader sees changes; their node's
 * counts and size follow, an emptied node goes). */
static void drop_deleted_tail(obj *s, stream_id id) {
    for (;;) {
        uint64_t ne = pt_count(tr(s, ST_ENTRIES));
        if (ne == 0) return;
        pt_item it;
        pt_get(tr(s, ST_ENTRIES), ne - 1, &it);
        stream_id top;
        idkey_get(it.key, it.klen, &top);
        if (sid_cmp(top, id) < 0) return;
        assert((unsigned char)it.val[0] & STREAM_FLAG_DELETED);
        node n;
        int ok = node_of(s, top, &n);
        assert(ok && n.deleted >= 1);
        /* its listpack bytes, from its fields */
        stream_iter si;
        stream_id sid;
        size_t nf;
        stream_iter_init_raw(&si, s, top);
        ok = stream_iter_next(&si, &sid, &nf);
        assert(ok && sid_cmp(sid, top) == 0);
        stream_str *fv = xmalloc(2 * nf * sizeof *fv);
        for (size_t i = 0; i < nf; i++) stream_iter_field(&si, &fv[2 * i], &fv[2 * i + 1]);
        size_t eb = entry_lp_bytes(top, n.master, stream_iter_flags(&si), fv, nf);
        free(fv);
        assert(n.ebytes >= eb);
        if (n.live + n.deleted == 1) {
            node_remove(s, &n);
            continue;
        }
        pt_delete(tw(s, ST_ENTRIES), ne - 1);
        n.ebytes -= eb;
        node_set_counts(s, &n, n.live, n.deleted - 1);
    }
}

void stream_append(obj *s, stream_id id, const stream_str *fv, size_t nfields) {
    stream_meta *m = stream_meta_mut(s);
    assert(nfields >= 1 && sid_cmp(id, m->last_id) > 0 && stream_append_fits(fv, nfields));
    /* every entry is below last_id, or deleted (then <= max_deleted_id) */
    if (sid_cmp(id, m->max_deleted_id) <= 0) drop_deleted_tail(s, id);
    uint64_t nn = pt_count(tr(s, ST_NODES));
    node n;
    int new_node = 1;
    if (nn) {
        pt_item it;
        pt_get(tr(s, ST_NODES), nn - 1, &it);
        node_parse(&it, nn - 1, &n);
        long long max_entries = server.cfg.compat.stream_node_max_entries;
        new_node = node_lp_bytes(&n) + fv_total(fv, nfields) >= node_max_bytes() ||
                   (max_entries > 0 && n.live + n.deleted >= (uint64_t)max_entries);
    }
    char *mf = NULL;
    if (new_node) {
        n = (node){.master = id, .nmaster = nfields, .rank = nn};
        mf = master_encode(fv, 2, nfields, &n.fields_len);
        n.fields = mf;
    }
    int flags = same_fields(&n, fv, nfields) ? STREAM_FLAG_SAMEFIELDS : 0;
    n.live++;
    n.ebytes += entry_lp_bytes(id, n.master, flags, fv, nfields);
    /* the entry first: node_store's write may move the node item */
    entry_append(s, id, flags, fv, nfields);
    if (new_node) {
        node_store(s, &n, 1);
    } else {
        /* n.fields points into the node item, which node_store replaces:
         * copy them out first */
        mf = xmalloc(n.fields_len ? n.fields_len : 1);
        memcpy(mf, n.fields, n.fields_len);
        n.fields = mf;
        node_store(s, &n, 0);
    }
    free(mf);
    if (m->length == 0) m->first_id = id;
    m->length++;
    m->last_id = id;
    m->entries_added++;
}

/* ==== iteration ==== */

static void iter_setup(stream_iter *it, const obj *s, stream_id start, stream_id end, int reverse,
                       int raw) {
    memset(it, 0, sizeof *it);
    it->s = s;
    it->reverse = reverse;
    it->raw = raw;
    it->start = start;
    it->end = end;
    it->node_lo = STREAM_ID_MAX;
    it->node_hi = STREAM_ID_MIN;
    if (sid_cmp(start, end) > 0) {
        it->done = 1;
        return;
    }
    char key[IDKEY_MAX];
    uint64_t rank;
    const ptree *t = tr(s, ST_ENTRIES);
    if (!reverse) {
        pt_seek(t, key, idkey(key, start), &rank, NULL);
        pt_iter_init(&it->it, t, rank, 0);
    } else {
        if (!pt_seek(t, key, idkey(key, end), &rank, NULL)) {
            if (rank == 0) {
                it->done = 1;
                return;
            }
            rank--;
        }
        pt_iter_init(&it->it, t, rank, 1);
    }
}

void stream_iter_init(stream_iter *it, const obj *s, stream_id start, stream_id end,
                      int reverse) {
    iter_setup(it, s, start, end, reverse, 0);
}

void stream_iter_init_raw(stream_iter *it, const obj *s, stream_id start) {
    iter_setup(it, s, start, STREAM_ID_MAX, 0, 1);
}

void stream_iter_init_consume(stream_iter *it, const obj *s) {
    iter_setup(it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0, 1);
    /* the serializer's own reference: its trees are written by nobody */
    ptree *t = (ptree *)(uintptr_t)tr(s, ST_ENTRIES);
    if (!it->done) pt_iter_init_consume(&it->it, t, &s->refcount);
}

/* Points the cached master fields at the node holding the current id. */
static void iter_master(stream_iter *it) {
    if (sid_cmp(it->id, it->node_lo) >= 0 && sid_cmp(it->id, it->node_hi) <= 0) return;
    node n;
    int ok = node_of(it->s, it->id, &n);
    assert(ok);
    it->node_lo = n.master;
    it->master = n.fields;
    it->master_n = (size_t)n.nmaster;
    pt_item next;
    if (pt_get(tr(it->s, ST_NODES), n.rank + 1, &next)) {
        idkey_get(next.key, next.klen, &it->node_hi);
        int more = sid_decr(&it->node_hi);
        assert(more);
    } else {
        it->node_hi = STREAM_ID_MAX;
    }
}

int stream_iter_next(stream_iter *it, stream_id *id, size_t *nfields) {
    pt_item item;
    while (!it->done && pt_iter_next(&it->it, &item)) {
        stream_id cur;
        idkey_get(item.key, item.klen, &cur);
        if (!it->reverse ? sid_cmp(cur, it->end) > 0 : sid_cmp(cur, it->start) < 0) break;
        int flags = (unsigned char)item.val[0];
        if ((flags & STREAM_FLAG_DELETED) && !it->raw) continue;
        it->id = cur;
        it->flags = flags;
        it->samefields = flags & STREAM_FLAG_SAMEFIELDS;
        it->vp = item.val + 1;
        it->vend = item.val + item.vlen;
        if (it->samefields) {
            iter_master(it);
            it->mp = it->master;
            it->nfields = it->master_n;
        } else {
            it->nfields = (size_t)vget(&it->vp);
        }
        it->field = 0;
        *id = cur;
        *nfields = it->nfields;
        return 1;
    }
    it->done = 1;
    return 0;
}

void stream_iter_field(stream_iter *it, stream_str *field, stream_str *value) {
    assert(it->field < it->nfields);
    it->field++;
    *field = vget_str(it->samefields ? &it->mp : &it->vp);
    if (it->field < it->nfields) {
        *value = vget_str(&it->vp);
    } else {
        *value = (stream_str){it->vp, (size_t)(it->vend - it->vp)};
        it->vp = it->vend;
    }
}

/* ==== deletion and trimming ==== */

/* The entry item of id in ST_ENTRIES: 1 with its rank and flags. */
static int entry_find(const obj *s, stream_id id, uint64_t *rank, int *flags) {
    char key[IDKEY_MAX];
    pt_item it;
    if (!pt_seek(tr(s, ST_ENTRIES), key, idkey(key, id), rank, &it)) return 0;
    *flags = (unsigned char)it.val[0];
    return 1;
}

int stream_has(const obj *s, stream_id id) {
    uint64_t rank;
    int flags;
    return entry_find(s, id, &rank, &flags) && !(flags & STREAM_FLAG_DELETED);
}

/* Sets the deleted flag of the entry at rank. */
static void entry_mark_deleted(obj *s, uint64_t rank) {
    pt_item it;
    int ok = pt_get(tr(s, ST_ENTRIES), rank, &it);
    assert(ok);
    scratch b;
    char *p = scratch_get(&b, it.vlen);
    memcpy(p, it.val, it.vlen);
    p[0] = (char)(p[0] | STREAM_FLAG_DELETED);
    char key[IDKEY_MAX];
    assert(it.klen <= IDKEY_MAX);
    memcpy(key, it.key, it.klen);
    pt_item nit = {key, it.klen, p, it.vlen};
    pt_replace(tw(s, ST_ENTRIES), rank, &nit);
    scratch_done(&b);
}

/* Removes node n and all its entries. */
static void node_remove(obj *s, const node *n) {
    uint64_t lo, hi;
    node_entry_ranks(s, n, &lo, &hi);
    if (hi > lo) pt_delete_range(tw(s, ST_ENTRIES), lo, hi - lo);
    pt_delete(tw(s, ST_NODES), n->rank);
}

/* Stores new counts of node n (its other fields unchanged). */
static void node_set_counts(obj *s, node *n, uint64_t live, uint64_t deleted) {
    char *mf = xmalloc(n->fields_len ? n->fields_len : 1);
    memcpy(mf, n->fields, n->fields_len);
    n->fields = mf;
    n->live = live;
    n->deleted = deleted;
    node_store(s, n, 0);
    free(mf);
    n->fields = NULL;
}

/* first_id after a removal: the first live entry (streamGetEdgeID). */
static void update_first_id(obj *s) {
    stream_meta *m = stream_meta_mut(s);
    if (m->length == 0) {
        m->first_id = STREAM_ID_MIN;
        return;
    }
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    int ok = stream_iter_next(&it, &id, &nf);
    assert(ok);
    m->first_id = id;
}

int stream_delete(obj *s, stream_id id) {
    uint64_t rank;
    int flags;
    if (!entry_find(s, id, &rank, &flags) || (flags & STREAM_FLAG_DELETED)) return 0;
    node n;
    int ok = node_of(s, id, &n);
    assert(ok && n.live >= 1);
    if (n.live == 1) {
        node_remove(s, &n);
    } else {
        entry_mark_deleted(s, rank);
        node_set_counts(s, &n, n.live - 1, n.deleted + 1);
    }
    stream_meta *m = stream_meta_mut(s);
    m->length--;
    if (sid_cmp(id, m->max_deleted_id) > 0) m->max_deleted_id = id;
    if (m->length == 0 || sid_cmp(id, m->first_id) == 0) update_first_id(s);
    return 1;
}

/* The greatest id of node n, deleted entries included (lpGetEdgeStreamID). */
static stream_id node_last_id(const obj *s, const node *n) {
    uint64_t lo, hi;
    node_entry_ranks(s, n, &lo, &hi);
    assert(hi > lo);
    pt_item it;
    pt_get(tr(s, ST_ENTRIES), hi - 1, &it);
    stream_id id;
    idkey_get(it.key, it.klen, &id);
    return id;
}

/* streamTrim: by length (minid NULL) or by id. */
static uint64_t trim(obj *s, uint64_t maxlen, const stream_id *minid, int approx,
                     uint64_t limit) {
    stream_meta *m = stream_meta_mut(s);
    uint64_t deleted = 0;
    while (pt_count(tr(s, ST_NODES))) {
        if (!minid && m->length <= maxlen) break;
        node n;
        pt_item item;
        pt_get(tr(s, ST_NODES), 0, &item);
        node_parse(&item, 0, &n);
        if (limit && deleted + n.live > limit) break;
        int remove_node = !minid ? m->length - n.live >= maxlen
                                 : sid_cmp(node_last_id(s, &n), *minid) < 0;
        if (remove_node) {
            m->length -= n.live;
            deleted += n.live;
            node_remove(s, &n);
            continue;
        }
        if (approx) break;
        /* mark entries of this node deleted, from its head */
        uint64_t lo, hi, marked = 0;
        node_entry_ranks(s, &n, &lo, &hi);
        for (uint64_t r = lo; r < hi; r++) {
            pt_get(tr(s, ST_ENTRIES), r, &item);
            stream_id cur;
            idkey_get(item.key, item.klen, &cur);
            if (!minid ? m->length <= maxlen : sid_cmp(cur, *minid) >= 0) break;
            if (!((unsigned char)item.val[0] & STREAM_FLAG_DELETED)) {
                entry_mark_deleted(s, r);
                marked++;
                m->length--;
            }
        }
        deleted += marked;
        pt_get(tr(s, ST_NODES), 0, &item);
        node_parse(&item, 0, &n);
        node_set_counts(s, &n, n.live - marked, n.deleted + marked);
        break;
    }
    if (deleted) update_first_id(s); /* else the first entry is still there */
    return deleted;
}

uint64_t stream_trim_maxlen(obj *s, uint64_t maxlen, int approx, uint64_t limit) {
    return trim(s, maxlen, NULL, approx, limit);
}

uint64_t stream_trim_minid(obj *s, stream_id minid, int approx, uint64_t limit) {
    return trim(s, 0, &minid, approx, limit);
}

/* ==== node iteration (RDB writer) ==== */

void stream_node_iter_init(stream_node_iter *it, const obj *s) {
    pt_iter_init(&it->it, tr(s, ST_NODES), 0, 0);
}

int stream_node_iter_next(stream_node_iter *it, stream_node *out) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    node n;
    node_parse(&item, 0, &n);
    out->master_id = n.master;
    out->live = n.live;
    out->deleted = n.deleted;
    out->lp_bytes = node_lp_bytes(&n);
    out->nmaster = (size_t)n.nmaster;
    out->master = n.fields;
    return 1;
}

stream_str stream_node_master_field(const stream_node *n, size_t i) {
    assert(i < n->nmaster);
    const char *p = n->master;
    stream_str f = vget_str(&p);
    while (i--) f = vget_str(&p);
    return f;
}

/* ==== loading ==== */

void stream_loader_init(stream_loader *l) {
    memset(l, 0, sizeof *l);
    pt_build_init(&l->entries, PT_KEYED);
    pt_build_init(&l->nodes, PT_KEYED);
}

/* Adds the current node's item to the nodes builder: 0 when it has no
 * entry. */
static int loader_flush_node(stream_loader *l) {
    if (!l->has_node) return 1;
    if (l->live + l->deleted == 0) return 0;
    char key[IDKEY_MAX];
    size_t kl = idkey(key, l->master);
    node nd = {.live = l->live, .deleted = l->deleted, .ebytes = l->ebytes,
               .nmaster = l->nmaster, .fields = l->fields, .fields_len = l->fields_len};
    scratch b;
    size_t n;
    char *p = node_encode(&b, &nd, &n);
    pt_item it = {key, kl, p, n};
    pt_build_add(&l->nodes, &it);
    scratch_done(&b);
    l->has_node = 0;
    return 1;
}

int stream_loader_node(stream_loader *l, stream_id master_id, const stream_str *fields,
                       size_t nfields) {
    if (nfields == 0 || (l->has_node && sid_cmp(master_id, l->master) <= 0) ||
        (l->has_top && sid_cmp(master_id, l->top) <= 0))
        return 0;
    if (!loader_flush_node(l)) return 0;
    free(l->fields);
    l->fields = master_encode(fields, 1, nfields, &l->fields_len);
    l->master = master_id;
    l->nmaster = nfields;
    l->live = l->deleted = l->ebytes = 0;
    l->has_node = 1;
    return 1;
}

int stream_loader_entry(stream_loader *l, stream_id id, int flags, const stream_str *fv,
                        size_t nfields) {
    if (!l->has_node || nfields == 0 || (flags & ~STREAM_FLAG_DELETED)) return 0;
    if (sid_cmp(id, l->master) < 0 || (l->has_top && sid_cmp(id, l->top) <= 0)) return 0;
    node n = {.master = l->master, .nmaster = l->nmaster, .fields = l->fields,
              .fields_len = l->fields_len};
    if (same_fields(&n, fv, nfields)) flags |= STREAM_FLAG_SAMEFIELDS;
    l->ebytes += entry_lp_bytes(id, l->master, flags, fv, nfields);
    char key[IDKEY_MAX];
    size_t kl = idkey(key, id);
    scratch b;
    size_t vl;
    char *p = entry_encode(&b, flags, fv, nfields, &vl);
    pt_item it = {key, kl, p, vl};
    pt_build_add(&l->entries, &it);
    scratch_done(&b);
    if (flags & STREAM_FLAG_DELETED) {
        l->deleted++;
    } else {
        l->live++;
        l->length++;
    }
    l->top = id;
    l->has_top = 1;
    return 1;
}

obj *stream_loader_finish(stream_loader *l) {
    assert(!l->done);
    int ok = loader_flush_node(l);
    l->done = 1;
    obj *s = stream_new();
    pt_free(tw(s, ST_ENTRIES));
    pt_free(tw(s, ST_NODES));
    pt_build_finish(&l->entries, tw(s, ST_ENTRIES));
    pt_build_finish(&l->nodes, tw(s, ST_NODES));
    free(l->fields);
    l->fields = NULL;
    if (!ok) {
        obj_decref(s);
        return NULL;
    }
    stream_meta_mut(s)->length = l->length;
    return s;
}

void stream_loader_abort(stream_loader *l) {
    if (l->done) return;
    l->has_node = 0; /* nothing more to flush */
    obj *s = stream_loader_finish(l);
    if (s) obj_decref(s);
}

int stream_load_check(const obj *s) {
    const stream_meta *m = stream_meta_get(s);
    uint64_t live = 0;
    stream_node_iter ni;
    stream_node n;
    stream_node_iter_init(&ni, s);
    while (stream_node_iter_next(&ni, &n)) {
        if (n.live + n.deleted == 0) return 0; /* a node without entries */
        live += n.live;
    }
    if (live != m->length) return 0;
    uint64_t ne = pt_count(tr(s, ST_ENTRIES));
    if (ne) {
        pt_item it;
        pt_get(tr(s, ST_ENTRIES), ne - 1, &it);
        stream_id top;
        idkey_get(it.key, it.klen, &top);
        if (sid_cmp(top, m->last_id) > 0) return 0;
    }
    /* every pending entry has an owner */
    stream_pel_iter pi;
    stream_group_iter gi;
    stream_str name;
    stream_group g;
    stream_group_iter_init(&gi, s);
    while (stream_group_iter_next(&gi, &name, &g)) {
        stream_id id;
        stream_nack nk;
        stream_pel_iter_init(&pi, s, g.gid, STREAM_NO_CONSUMER, STREAM_ID_MIN, STREAM_ID_MAX);
        while (stream_pel_iter_next(&pi, &id, &nk))
            if (nk.cid == STREAM_NO_CONSUMER) return 0;
    }
    return 1;
}

/* ==== groups ====
 * ST_GROUPS: name -> gid, last id ms, last id seq, entries_read (4 x u64). */

#define GROUP_REC 32

static void group_decode(const char *p, stream_group *g) {
    g->gid = get_u64(p);
    g->last_id.ms = get_u64(p + 8);
    g->last_id.seq = get_u64(p + 16);
    g->entries_read = (int64_t)get_u64(p + 24);
}
static void group_encode(char *p, const stream_group *g) {
    put_u64(p, g->gid);
    put_u64(p + 8, g->last_id.ms);
    put_u64(p + 16, g->last_id.seq);
    put_u64(p + 24, (uint64_t)g->entries_read);
}

int stream_group_get(const obj *s, const char *name, size_t len, stream_group *g) {
    uint64_t rank;
    pt_item it;
    if (!pt_seek(tr(s, ST_GROUPS), name, len, &rank, &it)) return 0;
    assert(it.vlen == GROUP_REC);
    group_decode(it.val, g);
    return 1;
}

int stream_group_create(obj *s, const char *name, size_t len, stream_group *g) {
    uint64_t rank;
    if (pt_seek(tr(s, ST_GROUPS), name, len, &rank, NULL)) return 0;
    g->gid = stream_meta_mut(s)->next_gid++;
    char rec[GROUP_REC];
    group_encode(rec, g);
    pt_item it = {name, len, rec, GROUP_REC};
    pt_insert(tw(s, ST_GROUPS), rank, &it);
    return 1;
}

void stream_group_update(obj *s, const char *name, size_t len, const stream_group *g) {
    uint64_t rank;
    pt_item old;
    int found = pt_seek(tr(s, ST_GROUPS), name, len, &rank, &old);
    assert(found && get_u64(old.val) == g->gid);
    char rec[GROUP_REC];
    group_encode(rec, g);
    pt_item it = {name, len, rec, GROUP_REC};
    pt_replace(tw(s, ST_GROUPS), rank, &it);
}

/* Ranks [*lo, *hi) of the items of tree i whose keys start with prefix. */
static void prefix_range(const obj *s, int i, const char *prefix, size_t plen, uint64_t *lo,
                         uint64_t *hi) {
    pt_seek(tr(s, i), prefix, plen, lo, NULL);
    /* the first key past the prefix: the prefix plus one, carried */
    char up[32];
    assert(plen <= sizeof up);
    memcpy(up, prefix, plen);
    size_t ul = plen;
    while (ul && (unsigned char)up[ul - 1] == 0xff) ul--;
    if (ul == 0) {
        *hi = pt_count(tr(s, i));
        return;
    }
    up[ul - 1] = (char)((unsigned char)up[ul - 1] + 1);
    pt_seek(tr(s, i), up, ul, hi, NULL);
}

static void delete_prefix(obj *s, int i, const char *prefix, size_t plen) {
    uint64_t lo, hi;
    prefix_range(s, i, prefix, plen, &lo, &hi);
    if (hi > lo) pt_delete_range(tw(s, i), lo, hi - lo);
}

static uint64_t count_prefix(const obj *s, int i, const char *prefix, size_t plen) {
    uint64_t lo, hi;
    prefix_range(s, i, prefix, plen, &lo, &hi);
    return hi - lo;
}

int stream_group_destroy(obj *s, const char *name, size_t len) {
    stream_group g;
    if (!stream_group_get(s, name, len, &g)) return 0;
    char p[1 + GKEY_MAX];
    size_t n = gkey(p, g.gid);
    delete_prefix(s, ST_PEL, p, n);
    delete_prefix(s, ST_CPEL, p, n);
    p[0] = CONS_BY_NAME;
    n = 1 + gkey(p + 1, g.gid);
    delete_prefix(s, ST_CONS, p, n);
    p[0] = CONS_BY_ID;
    delete_prefix(s, ST_CONS, p, n);
    int removed = pt_remove(tw(s, ST_GROUPS), name, len);
    assert(removed);
    return 1;
}

void stream_group_iter_init(stream_group_iter *it, const obj *s) {
    pt_iter_init(&it->it, tr(s, ST_GROUPS), 0, 0);
}

int stream_group_iter_next(stream_group_iter *it, stream_str *name, stream_group *g) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    *name = (stream_str){item.key, item.klen};
    group_decode(item.val, g);
    return 1;
}

uint64_t stream_group_pending(const obj *s, uint64_t gid) {
    char p[GKEY_MAX];
    return count_prefix(s, ST_PEL, p, gkey(p, gid));
}

/* ==== consumers ====
 * ST_CONS: 'n' gid name -> cid, seen_time; 'i' gid cid -> name. */

/* The by-name key: its length; *heap set when it did not fit buf. */
static const char *cons_name_key(char *buf, size_t bufsize, uint64_t gid, const char *name,
                                 size_t len, size_t *kl, char **heap) {
    char pre[1 + GKEY_MAX];
    pre[0] = CONS_BY_NAME;
    size_t pl = 1 + gkey(pre + 1, gid);
    *kl = pl + len;
    char *k = *kl <= bufsize ? buf : (*heap = xmalloc(*kl));
    if (k == buf) *heap = NULL;
    memcpy(k, pre, pl);
    if (len) memcpy(k + pl, name, len);
    return k;
}
#define CONS_ID_KEY_MAX (1 + GCKEY_MAX)
static size_t cons_id_key(char *k, uint64_t gid, uint64_t cid) {
    k[0] = CONS_BY_ID;
    return 1 + gckey(k + 1, gid, cid);
}

int stream_consumer_get(const obj *s, uint64_t gid, const char *name, size_t len,
                        stream_consumer *c) {
    char buf[128], *heap;
    size_t kl;
    const char *k = cons_name_key(buf, sizeof buf, gid, name, len, &kl, &heap);
    uint64_t rank;
    pt_item it;
    int found = pt_seek(tr(s, ST_CONS), k, kl, &rank, &it);
    free(heap);
    if (!found) return 0;
    c->cid = get_u64(it.val);
    c->seen_time = (int64_t)get_u64(it.val + 8);
    return 1;
}

int stream_consumer_create(obj *s, uint64_t gid, const char *name, size_t len,
                           stream_consumer *c) {
    if (stream_consumer_get(s, gid, name, len, c)) return 0;
    c->cid = stream_meta_mut(s)->next_cid++;
    char buf[128], *heap, rec[16], ik[CONS_ID_KEY_MAX];
    size_t kl;
    const char *k = cons_name_key(buf, sizeof buf, gid, name, len, &kl, &heap);
    put_u64(rec, c->cid);
    put_u64(rec + 8, (uint64_t)c->seen_time);
    pt_item it = {k, kl, rec, sizeof rec};
    pt_put(tw(s, ST_CONS), &it);
    free(heap);
    size_t ikl = cons_id_key(ik, gid, c->cid);
    pt_item iit = {ik, ikl, name, len};
    pt_put(tw(s, ST_CONS), &iit);
    return 1;
}

void stream_consumer_update(obj *s, uint64_t gid, const char *name, size_t len,
                            const stream_consumer *c) {
    char buf[128], *heap, rec[16];
    size_t kl;
    const char *k = cons_name_key(buf, sizeof buf, gid, name, len, &kl, &heap);
    put_u64(rec, c->cid);
    put_u64(rec + 8, (uint64_t)c->seen_time);
    pt_item it = {k, kl, rec, sizeof rec};
    int added = pt_put(tw(s, ST_CONS), &it);
    assert(!added);
    free(heap);
}


int64_t stream_consumer_delete(obj *s, uint64_t gid, const char *name, size_t len) {
    stream_consumer c;
    if (!stream_consumer_get(s, gid, name, len, &c)) return -1;
    char prefix[GCKEY_MAX];
    size_t cpl = gckey(prefix, gid, c.cid);
    uint64_t lo, hi;
    prefix_range(s, ST_CPEL, prefix, cpl, &lo, &hi);
    uint64_t n = hi - lo;
    /* its entries leave the group's PEL too */
    for (uint64_t r = lo; r < hi; r++) {
        pt_item it;
        pt_get(tr(s, ST_CPEL), r, &it);
        char pk[GKEY_MAX + IDKEY_MAX];
        size_t gl = gkey(pk, gid);
        memcpy(pk + gl, it.key + cpl, it.klen - cpl);
        int removed = pt_remove(tw(s, ST_PEL), pk, gl + it.klen - cpl);
        assert(removed);
    }
    if (n) pt_delete_range(tw(s, ST_CPEL), lo, n);
    char buf[128], *heap, ik[CONS_ID_KEY_MAX];
    size_t kl;
    const char *k = cons_name_key(buf, sizeof buf, gid, name, len, &kl, &heap);
    int removed = pt_remove(tw(s, ST_CONS), k, kl);
    free(heap);
    size_t ikl = cons_id_key(ik, gid, c.cid);
    removed &= pt_remove(tw(s, ST_CONS), ik, ikl);
    assert(removed);
    return (int64_t)n;
}

int stream_consumer_name(const obj *s, uint64_t gid, uint64_t cid, stream_str *name) {
    char ik[CONS_ID_KEY_MAX];
    size_t ikl = cons_id_key(ik, gid, cid);
    uint64_t rank;
    pt_item it;
    if (!pt_seek(tr(s, ST_CONS), ik, ikl, &rank, &it)) return 0;
    *name = (stream_str){it.val, it.vlen};
    return 1;
}

uint64_t stream_consumer_pending(const obj *s, uint64_t gid, uint64_t cid) {
    char prefix[GCKEY_MAX];
    return count_prefix(s, ST_CPEL, prefix, gckey(prefix, gid, cid));
}

void stream_consumer_iter_init(stream_consumer_iter *it, const obj *s, uint64_t gid) {
    _Static_assert(sizeof it->prefix >= 1 + GKEY_MAX, "room for 'n' gid");
    it->prefix[0] = CONS_BY_NAME;
    it->plen = 1 + gkey(it->prefix + 1, gid);
    uint64_t rank;
    pt_seek(tr(s, ST_CONS), it->prefix, it->plen, &rank, NULL);
    pt_iter_init(&it->it, tr(s, ST_CONS), rank, 0);
}

int stream_consumer_iter_next(stream_consumer_iter *it, stream_str *name, stream_consumer *c) {
    pt_item item;
    if (!pt_iter_next(&it->it, &item)) return 0;
    if (item.klen < it->plen || memcmp(item.key, it->prefix, it->plen) != 0) return 0;
    *name = (stream_str){item.key + it->plen, item.klen - it->plen};
    c->cid = get_u64(item.val);
    c->seen_time = (int64_t)get_u64(item.val + 8);
    return 1;
}

/* ==== pending entries ====
 * ST_PEL: gid id -> cid, delivery_time, delivery_count (3 x u64).
 * ST_CPEL: gid cid id -> "" (no item for STREAM_NO_CONSUMER). */

#define NACK_REC 24

#define PEL_KEY_MAX (GKEY_MAX + IDKEY_MAX)
#define CPEL_KEY_MAX (GCKEY_MAX + IDKEY_MAX)
static size_t pel_key(char *k, uint64_t gid, stream_id id) {
    size_t n = gkey(k, gid);
    return n + idkey(k + n, id);
}
static size_t cpel_key(char *k, uint64_t gid, uint64_t cid, stream_id id) {
    size_t n = gckey(k, gid, cid);
    return n + idkey(k + n, id);
}
static void nack_decode(const char *p, stream_nack *n) {
    n->cid = get_u64(p);
    n->delivery_time = (int64_t)get_u64(p + 8);
    n->delivery_count = get_u64(p + 16);
}

int stream_pel_get(const obj *s, uint64_t gid, stream_id id, stream_nack *n) {
    char k[PEL_KEY_MAX];
    uint64_t rank;
    pt_item it;
    if (!pt_seek(tr(s, ST_PEL), k, pel_key(k, gid, id), &rank, &it)) return 0;
    nack_decode(it.val, n);
    return 1;
}

int stream_pel_put(obj *s, uint64_t gid, stream_id id, const stream_nack *n) {
    stream_nack old;
    int existed = stream_pel_get(s, gid, id, &old);
    char ck[CPEL_KEY_MAX];
    if (existed && old.cid != n->cid && old.cid != STREAM_NO_CONSUMER) {
        int removed = pt_remove(tw(s, ST_CPEL), ck, cpel_key(ck, gid, old.cid, id));
        assert(removed);
    }
    if ((!existed || old.cid != n->cid) && n->cid != STREAM_NO_CONSUMER) {
        pt_item cit = {ck, cpel_key(ck, gid, n->cid, id), "", 0};
        pt_put(tw(s, ST_CPEL), &cit);
    }
    char k[PEL_KEY_MAX], rec[NACK_REC];
    put_u64(rec, n->cid);
    put_u64(rec + 8, (uint64_t)n->delivery_time);
    put_u64(rec + 16, n->delivery_count);
    pt_item it = {k, pel_key(k, gid, id), rec, sizeof rec};
    pt_put(tw(s, ST_PEL), &it);
    return !existed;
}

int stream_pel_del(obj *s, uint64_t gid, stream_id id) {
    stream_nack old;
    if (!stream_pel_get(s, gid, id, &old)) return 0;
    char k[CPEL_KEY_MAX];
    if (old.cid != STREAM_NO_CONSUMER) {
        int removed = pt_remove(tw(s, ST_CPEL), k, cpel_key(k, gid, old.cid, id));
        assert(removed);
    }
    int removed = pt_remove(tw(s, ST_PEL), k, pel_key(k, gid, id));
    assert(removed);
    return 1;
}

void stream_pel_iter_init(stream_pel_iter *it, const obj *s, uint64_t gid, uint64_t cid,
                          stream_id from, stream_id to) {
    memset(it, 0, sizeof *it);
    it->s = s;
    it->gid = gid;
    it->cid = cid;
    it->to = to;
    char k[CPEL_KEY_MAX];
    uint64_t rank;
    if (cid == STREAM_NO_CONSUMER) {
        pt_seek(tr(s, ST_PEL), k, pel_key(k, gid, from), &rank, NULL);
        pt_iter_init(&it->it, tr(s, ST_PEL), rank, 0);
    } else {
        pt_seek(tr(s, ST_CPEL), k, cpel_key(k, gid, cid, from), &rank, NULL);
        pt_iter_init(&it->it, tr(s, ST_CPEL), rank, 0);
    }
    it->done = sid_cmp(from, to) > 0;
}

int stream_pel_iter_next(stream_pel_iter *it, stream_id *id, stream_nack *n) {
    pt_item item;
    if (it->done || !pt_iter_next(&it->it, &item)) {
        it->done = 1;
        return 0;
    }
    char prefix[GCKEY_MAX];
    int own = it->cid != STREAM_NO_CONSUMER;
    size_t plen = own ? gckey(prefix, it->gid, it->cid) : gkey(prefix, it->gid);
    if (item.klen <= plen || memcmp(item.key, prefix, plen) != 0) {
        it->done = 1;
        return 0;
    }
    idkey_get(item.key + plen, item.klen - plen, id);
    if (sid_cmp(*id, it->to) > 0) {
        it->done = 1;
        return 0;
    }
    if (!own) {
        nack_decode(item.val, n);
    } else {
        int ok = stream_pel_get(it->s, it->gid, *id, n);
        assert(ok);
    }
    return 1;
}
