/* rdb_stream: streams in RDB values (see rdb_stream.h).
 *
 * Writing walks the stream's nodes (stream_node_iter) and, with one raw
 * iterator over every entry (deleted ones included), rebuilds each node's
 * listpack with listpack.c; its size must be the node model's lp_bytes.
 * The groups, consumers and PELs follow from their iterators.
 *
 * Reading validates a node's listpack whole (lp_validate), then walks it
 * entry by entry into the stream loader (stream_loader_node / _entry,
 * which builds the trees bottom-up); strings point
 * into the blob (the loaders copy them), integers are written as decimal
 * into a per-entry buffer. Arrays grow with the entries, never from a
 * count the file claims. */
#include "rdb_stream.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "listpack.h"
#include "rdb_coll.h"
#include "t_stream.h"
#include "util.h"
#include "vbuf.h"

#define SID_RAW 16   /* a stream id as Redis's streamEncodeID: 2 x u64 BE */

static void sid_put_raw(unsigned char *p, stream_id id) {
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(id.ms >> (56 - 8 * i));
        p[8 + i] = (unsigned char)(id.seq >> (56 - 8 * i));
    }
}

static stream_id sid_get_raw(const unsigned char *p) {
    stream_id id = {0, 0};
    for (int i = 0; i < 8; i++) {
        id.ms = id.ms << 8 | p[i];
        id.seq = id.seq << 8 | p[8 + i];
    }
    return id;
}

/* rdbSaveMillisecondTime: an int64, little endian. */
static int w_ms(rdb_writer *w, int64_t t) {
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)((uint64_t)t >> (8 * i));
    return rdbw_raw(w, le, sizeof le);
}

static int w_id(rdb_writer *w, stream_id id) {
    return rdbw_len(w, id.ms) || rdbw_len(w, id.seq) ? -1 : 0;
}

/* ==== writing ==== */

/* One entry of a node into its listpack, as streamAppendItem lays it out;
 * returns the listpack elements it added. */
static uint64_t lp_entry(vbuf *b, stream_iter *it, stream_id master, stream_id id, size_t nf) {
    int flags = stream_iter_flags(it), same = flags & STREAM_FLAG_SAMEFIELDS;
    lp_append_int(b, flags);
    lp_append_int(b, (long long)(id.ms - master.ms));
    lp_append_int(b, (long long)(id.seq - master.seq));
    if (!same) lp_append_int(b, (long long)nf);
    for (size_t i = 0; i < nf; i++) {
        stream_str f, v;
        stream_iter_field(it, &f, &v);
        if (!same) lp_append(b, f.p, f.len);
        lp_append(b, v.p, v.len);
    }
    uint64_t lp_count = nf + 3 + (same ? 0 : nf + 1);
    lp_append_int(b, (long long)lp_count);
    return lp_count + 1;
}

/* A node's listpack: its master entry, then its live + deleted entries
 * taken from the raw iterator. */
static int w_node(rdb_writer *w, vbuf *b, const stream_node *n, stream_iter *it) {
    lp_begin(b);
    lp_append_int(b, (long long)n->live);
    lp_append_int(b, (long long)n->deleted);
    lp_append_int(b, (long long)n->nmaster);
    for (size_t i = 0; i < n->nmaster; i++) {
        stream_str f = stream_node_master_field(n, i);
        lp_append(b, f.p, f.len);
    }
    lp_append_int(b, 0);
    uint64_t elems = 4 + n->nmaster;
    for (uint64_t e = 0; e < n->live + n->deleted; e++) {
        stream_id id;
        size_t nf;
        if (!stream_iter_next(it, &id, &nf)) return rdbw_fail(w, "stream node with missing entries");
        elems += lp_entry(b, it, n->master_id, id, nf);
        rdbw_element(w);
    }
    lp_end(b, elems);
    assert(b->len == n->lp_bytes);   /* the node model is Redis's listpack */
    unsigned char key[SID_RAW];
    sid_put_raw(key, n->master_id);
    return rdbw_string(w, (const char *)key, sizeof key) || rdbw_string(w, b->data, b->len) ? -1
                                                                                            : 0;
}

static int w_nodes(rdb_writer *w, const obj *s) {
    if (rdbw_len(w, stream_node_count(s))) return -1;
    stream_node_iter ni;
    stream_node n;
    stream_iter it;
    if (rdbw_consume(w)) stream_iter_init_consume(&it, s);
    else stream_iter_init_raw(&it, s, STREAM_ID_MIN);
    stream_node_iter_init(&ni, s);
    vbuf b;
    vbuf_init(&b);
    int rc = 0;
    while (rc == 0 && stream_node_iter_next(&ni, &n)) rc = w_node(w, &b, &n, &it);
    vbuf_free(&b);
    return rc;
}

/* A PEL (rdbSaveStreamPEL): its count, the raw ids, and with nacks the
 * delivery time and count of each. */
static int w_pel(rdb_writer *w, const obj *s, uint64_t gid, uint64_t cid, uint64_t count) {
    if (rdbw_len(w, count)) return -1;
    stream_pel_iter pi;
    stream_id id;
    stream_nack nk;
    uint64_t n = 0;
    stream_pel_iter_init(&pi, s, gid, cid, STREAM_ID_MIN, STREAM_ID_MAX);
    while (stream_pel_iter_next(&pi, &id, &nk)) {
        unsigned char raw[SID_RAW];
        sid_put_raw(raw, id);
        if (rdbw_raw(w, raw, sizeof raw)) return -1;
        if (cid == STREAM_NO_CONSUMER && (w_ms(w, nk.delivery_time) || rdbw_len(w, nk.delivery_count)))
            return -1;
        rdbw_element(w);
        n++;
    }
    return n == count ? 0 : rdbw_fail(w, "stream PEL count mismatch");
}

static int w_consumers(rdb_writer *w, const obj *s, uint64_t gid) {
    stream_consumer_iter ci;
    stream_str name;
    stream_consumer c;
    uint64_t n = 0;
    stream_consumer_iter_init(&ci, s, gid);
    while (stream_consumer_iter_next(&ci, &name, &c)) n++;
    if (rdbw_len(w, n)) return -1;
    stream_consumer_iter_init(&ci, s, gid);
    while (stream_consumer_iter_next(&ci, &name, &c)) {
        if (rdbw_string(w, name.p, name.len) || w_ms(w, c.seen_time) ||
            w_pel(w, s, gid, c.cid, stream_consumer_pending(s, gid, c.cid)))
            return -1;
    }
    return 0;
}

static int w_groups(rdb_writer *w, const obj *s) {
    if (rdbw_len(w, stream_group_count(s))) return -1;
    stream_group_iter gi;
    stream_str name;
    stream_group g;
    stream_group_iter_init(&gi, s);
    while (stream_group_iter_next(&gi, &name, &g)) {
        if (rdbw_string(w, name.p, name.len) || w_id(w, g.last_id) ||
            rdbw_len(w, (uint64_t)g.entries_read) ||
            w_pel(w, s, g.gid, STREAM_NO_CONSUMER, stream_group_pending(s, g.gid)) ||
            w_consumers(w, s, g.gid))
            return -1;
    }
    return 0;
}

int rdb_stream_write(rdb_writer *w, const obj *s) {
    const stream_meta *m = stream_meta_get(s);
    if (w_nodes(w, s) || rdbw_len(w, m->length) || w_id(w, m->last_id) || w_id(w, m->first_id) ||
        w_id(w, m->max_deleted_id) || rdbw_len(w, m->entries_added))
        return -1;
    return w_groups(w, s);
}

/* ==== reading ==== */

/* One stream's reading. */
typedef struct sctx {
    rd *r;
    unsigned type;
    stream_loader ld;     /* the entries, until stream_loader_finish */
    obj *s;               /* then the stream */
    stream_str *fv;       /* the current entry's fields and values */
    size_t fv_cap;
    char *ibuf;           /* their integers as decimal */
    stream_str *mf;       /* the current node's master fields */
    size_t mf_cap;
    char *mibuf;          /* their integers as decimal */
    vbuf name;            /* a group's / consumer's name */
} sctx;

/* A listpack element as an integer (lpGetIntegerIfValid: an integer
 * encoding, or a string that is one). */
static int lp_int(lp_iter *it, uint64_t *left, long long *v) {
    blob_ent e;
    if (*left == 0 || !lp_iter_next(it, &e)) return 0;
    (*left)--;
    if (e.is_int) {
        *v = e.v;
        return 1;
    }
    return str_to_ll(e.p, e.n, v);
}

/* Room for n strings in *v and their integers' text in *ibuf. */
static void strs_reserve(stream_str **v, char **ibuf, size_t *cap, size_t n) {
    if (n <= *cap) return;
    *cap = n > 2 * *cap ? n : 2 * *cap;
    *v = xrealloc(*v, *cap * sizeof **v);
    *ibuf = xrealloc(*ibuf, *cap * OBJ_INTBUF);
}

/* The next listpack element into v[i] (an integer as text in ibuf). */
static int lp_str(lp_iter *it, uint64_t *left, stream_str *v, char *ibuf, size_t i) {
    blob_ent e;
    if (*left == 0 || !lp_iter_next(it, &e)) return 0;
    (*left)--;
    size_t n;
    const char *p = blob_ent_str(&e, ibuf + i * OBJ_INTBUF, &n);
    v[i] = (stream_str){p, n};
    return 1;
}

/* The master entry: count, deleted, num-fields, the fields, the 0. */
static int rd_master(sctx *c, lp_iter *it, uint64_t *left, stream_id master, uint64_t *count,
                     uint64_t *deleted) {
    long long live, del, nf, zero;
    if (!lp_int(it, left, &live) || !lp_int(it, left, &del) || !lp_int(it, left, &nf)) return 0;
    if (live < 0 || del < 0 || nf <= 0 || (uint64_t)nf > *left) return 0;
    strs_reserve(&c->mf, &c->mibuf, &c->mf_cap, (size_t)nf);
    for (size_t i = 0; i < (size_t)nf; i++)
        if (!lp_str(it, left, c->mf, c->mibuf, i)) return 0;
    if (!lp_int(it, left, &zero) || zero != 0) return 0;
    if (!stream_loader_node(&c->ld, master, c->mf, (size_t)nf)) return 0;
    *count = (uint64_t)live;
    *deleted = (uint64_t)del;
    return (int)nf;
}

/* One entry: flags, ms-diff, seq-diff, [num-fields, fields] values,
 * lp-count. 1 when it is live, 2 deleted, 0 when damaged. */
static int rd_entry(sctx *c, lp_iter *it, uint64_t *left, stream_id master, size_t nmaster) {
    long long flags, dms, dseq, nf = (long long)nmaster, lp_count;
    if (!lp_int(it, left, &flags) || !lp_int(it, left, &dms) || !lp_int(it, left, &dseq)) return 0;
    if (flags < 0 || flags > (STREAM_FLAG_DELETED | STREAM_FLAG_SAMEFIELDS)) return 0;
    int same = (int)flags & STREAM_FLAG_SAMEFIELDS;
    if (!same && (!lp_int(it, left, &nf) || nf <= 0 || (uint64_t)nf > *left / 2)) return 0;
    if (same && nmaster > *left) return 0;
    strs_reserve(&c->fv, &c->ibuf, &c->fv_cap, 2 * (size_t)nf);
    /* samefields: only the values; the fields are the master's */
    for (size_t i = 0; i < (size_t)nf; i++) {
        if (same) c->fv[2 * i] = c->mf[i];
        else if (!lp_str(it, left, c->fv, c->ibuf, 2 * i)) return 0;
        if (!lp_str(it, left, c->fv, c->ibuf, 2 * i + 1)) return 0;
    }
    long long want = nf + 3 + (same ? 0 : nf + 1);
    if (!lp_int(it, left, &lp_count) || lp_count != want) return 0;
    stream_id id = {master.ms + (uint64_t)dms, master.seq + (uint64_t)dseq};
    int del = (int)flags & STREAM_FLAG_DELETED;
    if (!stream_loader_entry(&c->ld, id, del, c->fv, (size_t)nf)) return 0;
    return del ? 2 : 1;
}

/* A node: its master id string and its listpack. */
static int rd_node(sctx *c) {
    uint64_t at = rdbr_off(c->r);
    rstr key;
    if (rdbr_string(c->r, &key)) return -1;
    if (key.is_int || key.len != SID_RAW)
        return rdbr_fail(c->r, at, "stream: node key entry is not the size of a stream ID");
    stream_id master = sid_get_raw((const unsigned char *)key.p);
    at = rdbr_off(c->r);
    rstr lp;
    if (rdbr_string(c->r, &lp)) return -1;
    if (lp.is_int) return rdbr_fail(c->r, at, "stream: node listpack is an integer");
    char why[192];
    uint64_t left;
    if (lp_validate((const unsigned char *)lp.p, lp.len, &left, why, sizeof why))
        return rdbr_fail(c->r, at, "stream: listpack integrity check failed: %s", why);
    if (left == 0) return rdbr_fail(c->r, at, "stream: empty listpack inside stream");
    lp_iter it;
    lp_iter_init(&it, (const unsigned char *)lp.p);
    uint64_t count, deleted;
    int nmaster = rd_master(c, &it, &left, master, &count, &deleted);
    if (!nmaster)
        return rdbr_fail(c->r, at, "stream: bad master entry in the node of %llu-%llu",
                         (unsigned long long)master.ms, (unsigned long long)master.seq);
    uint64_t live = 0, del = 0;
    while (left > 0) {
        int e = rd_entry(c, &it, &left, master, (size_t)nmaster);
        if (!e)
            return rdbr_fail(c->r, at, "stream: bad entry %llu in the node of %llu-%llu",
                             (unsigned long long)(live + del), (unsigned long long)master.ms,
                             (unsigned long long)master.seq);
        if (e == 1) live++;
        else del++;
    }
    if (live != count || del != deleted)
        return rdbr_fail(c->r, at,
                         "stream: node of %llu-%llu holds %llu live and %llu deleted entries, "
                         "its master entry says %llu and %llu",
                         (unsigned long long)master.ms, (unsigned long long)master.seq,
                         (unsigned long long)live, (unsigned long long)del,
                         (unsigned long long)count, (unsigned long long)deleted);
    return 0;
}

/* A count the bytes left can hold (each item takes at least min bytes). */
static int rd_count(sctx *c, uint64_t *n, uint64_t min, const char *what) {
    uint64_t at = rdbr_off(c->r);
    if (rdbr_len(c->r, n, what)) return -1;
    uint64_t left = rdbr_left(c->r);
    if (left != UINT64_MAX && *n > left / min)
        return rdbr_fail(c->r, at, "stream: %s %llu exceeds the %llu bytes left", what,
                         (unsigned long long)*n, (unsigned long long)left);
    return 0;
}

static int rd_id(sctx *c, stream_id *id, const char *what) {
    return rdbr_len(c->r, &id->ms, what) || rdbr_len(c->r, &id->seq, what) ? -1 : 0;
}

static int rd_ms(sctx *c, int64_t *t) {
    unsigned char le[8];
    if (rdbr_raw(c->r, le, sizeof le)) return -1;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | le[i];
    *t = (int64_t)v;
    return 0;
}

/* A name, copied out of the reader's buffer into c->name. */
static int rd_name(sctx *c) {
    rstr s;
    if (rdbr_string(c->r, &s)) return -1;
    char ibuf[OBJ_INTBUF];
    const char *p = s.p;
    size_t n = s.len;
    if (s.is_int) n = ll_to_str(ibuf, s.v), p = ibuf;
    c->name.len = 0;
    vbuf_append(&c->name, p, n);
    return 0;
}

/* The metadata after the nodes (type 15 lacks the first id, the max
 * deleted id and entries-added: derived as Redis 7.0 does). */
static int rd_meta(sctx *c) {
    uint64_t at = rdbr_off(c->r), length;
    stream_meta *m = stream_meta_mut(c->s);
    if (rdbr_len(c->r, &length, "stream length") || rd_id(c, &m->last_id, "stream last id"))
        return -1;
    if (c->type == RDB_TYPE_STREAM_LISTPACKS_2) {
        if (rd_id(c, &m->first_id, "stream first id") ||
            rd_id(c, &m->max_deleted_id, "stream max deleted id") ||
            rdbr_len(c->r, &m->entries_added, "stream entries added"))
            return -1;
    } else {
        m->max_deleted_id = STREAM_ID_MIN;
        m->entries_added = length;
        stream_iter it;
        stream_id id;
        size_t nf;
        stream_iter_init(&it, c->s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
        m->first_id = stream_iter_next(&it, &id, &nf) ? id : STREAM_ID_MIN;
    }
    if (length != m->length)
        return rdbr_fail(c->r, at, "stream: length %llu, but %llu live entries",
                         (unsigned long long)length, (unsigned long long)m->length);
    return 0;
}

/* Redis 7.0's streamEstimateDistanceFromFirstEverEntry: a group's
 * entries-read when the file (type 15) does not hold it. */
static int64_t estimate_entries_read(const stream_meta *m, stream_id id) {
    if (!m->entries_added) return 0;
    if (!m->length && sid_cmp(id, m->last_id) < 1) return (int64_t)m->entries_added;
    int cmp_last = sid_cmp(id, m->last_id);
    if (cmp_last == 0) return (int64_t)m->entries_added;
    if (cmp_last > 0) return STREAM_ENTRIES_READ_INVALID;
    int cmp_first = sid_cmp(id, m->first_id);
    if (sid_is_zero(m->max_deleted_id) || sid_cmp(m->max_deleted_id, m->first_id) < 0) {
        if (cmp_first < 0) return (int64_t)(m->entries_added - m->length);
        if (cmp_first == 0) return (int64_t)(m->entries_added - m->length + 1);
    }
    return STREAM_ENTRIES_READ_INVALID;
}

/* A group's global PEL: ids with their delivery time and count, owned by
 * no consumer until the consumers' lists name them. */
static int rd_group_pel(sctx *c, uint64_t gid) {
    uint64_t n;
    if (rd_count(c, &n, SID_RAW + 9, "PEL size")) return -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t at = rdbr_off(c->r);
        unsigned char raw[SID_RAW];
        stream_nack nk = {STREAM_NO_CONSUMER, 0, 0};
        if (rdbr_raw(c->r, raw, sizeof raw) || rd_ms(c, &nk.delivery_time) ||
            rdbr_len(c->r, &nk.delivery_count, "PEL delivery count"))
            return -1;
        if (!stream_pel_put(c->s, gid, sid_get_raw(raw), &nk))
            return rdbr_fail(c->r, at, "stream: duplicated global PEL entry in group \"%.*s\"",
                             (int)(c->name.len > 64 ? 64 : c->name.len), c->name.data);
    }
    return 0;
}

/* A consumer: name, seen time, the ids of its pending entries (each in
 * the group's PEL, owned by no other consumer). */
static int rd_consumer(sctx *c, uint64_t gid) {
    uint64_t at = rdbr_off(c->r);
    if (rd_name(c)) return -1;
    stream_consumer cons = {0, 0};
    if (!stream_consumer_create(c->s, gid, c->name.data, c->name.len, &cons))
        return rdbr_fail(c->r, at, "stream: duplicate consumer \"%.*s\"",
                         (int)(c->name.len > 64 ? 64 : c->name.len), c->name.data);
    if (rd_ms(c, &cons.seen_time)) return -1;
    stream_consumer_update(c->s, gid, c->name.data, c->name.len, &cons);
    uint64_t n;
    if (rd_count(c, &n, SID_RAW, "consumer PEL size")) return -1;
    for (uint64_t i = 0; i < n; i++) {
        at = rdbr_off(c->r);
        unsigned char raw[SID_RAW];
        if (rdbr_raw(c->r, raw, sizeof raw)) return -1;
        stream_id id = sid_get_raw(raw);
        stream_nack nk;
        if (!stream_pel_get(c->s, gid, id, &nk))
            return rdbr_fail(c->r, at, "stream: consumer entry %llu-%llu not found in the group's "
                             "global PEL", (unsigned long long)id.ms, (unsigned long long)id.seq);
        if (nk.cid != STREAM_NO_CONSUMER)
            return rdbr_fail(c->r, at, "stream: duplicated consumer PEL entry %llu-%llu",
                             (unsigned long long)id.ms, (unsigned long long)id.seq);
        nk.cid = cons.cid;
        stream_pel_put(c->s, gid, id, &nk);
    }
    return 0;
}

static int rd_group(sctx *c) {
    uint64_t at = rdbr_off(c->r);
    if (rd_name(c)) return -1;
    stream_group g = {0, STREAM_ID_MIN, 0};
    if (rd_id(c, &g.last_id, "group last id")) return -1;
    if (c->type == RDB_TYPE_STREAM_LISTPACKS_2) {
        uint64_t er;
        if (rdbr_len(c->r, &er, "group entries read")) return -1;
        g.entries_read = (int64_t)er;
    } else {
        g.entries_read = estimate_entries_read(stream_meta_get(c->s), g.last_id);
    }
    if (!stream_group_create(c->s, c->name.data, c->name.len, &g))
        return rdbr_fail(c->r, at, "stream: duplicated consumer group name \"%.*s\"",
                         (int)(c->name.len > 64 ? 64 : c->name.len), c->name.data);
    if (rd_group_pel(c, g.gid)) return -1;
    uint64_t n;
    if (rd_count(c, &n, 10, "consumers count")) return -1;
    for (uint64_t i = 0; i < n; i++)
        if (rd_consumer(c, g.gid)) return -1;
    return 0;
}

static int rd_stream(sctx *c) {
    uint64_t n;
    if (rd_count(c, &n, 2 + SID_RAW + LP_EMPTY_SIZE, "listpacks count")) return -1;
    uint64_t at = rdbr_off(c->r);
    for (uint64_t i = 0; i < n; i++)
        if (rd_node(c)) return -1;
    c->s = stream_loader_finish(&c->ld);
    if (!c->s) return rdbr_fail(c->r, at, "stream: a node without entries");
    if (rd_meta(c)) return -1;
    if (rd_count(c, &n, 6, "groups count")) return -1;
    for (uint64_t i = 0; i < n; i++)
        if (rd_group(c)) return -1;
    return 0;
}

int rdb_stream_read(rd *r, unsigned type, obj **val) {
    sctx c = {.r = r, .type = type};
    stream_loader_init(&c.ld);
    vbuf_init(&c.name);
    uint64_t at = rdbr_off(r);
    int rc = rd_stream(&c);
    if (rc == 0 && !stream_load_check(c.s))
        rc = rdbr_fail(r, at, "stream: inconsistent (last id below an entry, node counts, or a "
                       "pending entry without a consumer)");
    free(c.fv);
    free(c.ibuf);
    free(c.mf);
    free(c.mibuf);
    vbuf_free(&c.name);
    if (rc != 0) {
        if (c.s) obj_decref(c.s);
        else stream_loader_abort(&c.ld);
        return -1;
    }
    *val = c.s;
    return 0;
}
