/* cmd_set: the set commands (SADD SREM SCARD SISMEMBER SMISMEMBER SMEMBERS
 * SRANDMEMBER SPOP SMOVE SINTER SINTERCARD SUNION SDIFF and their STORE
 * forms, SSCAN) with Redis 7.0's replies, errors and propagation, on the
 * sets of t_set.h.
 *
 * Order of replies. Redis iterates an intset in ascending integer order and
 * a hashtable in its own order; verso's trees are in hash order. So a reply
 * that Redis makes by iterating a set whose encoding is intset (SMEMBERS of
 * an intset, SINTER whose smallest set is one, SUNION / SDIFF whose result
 * Redis builds as one, SSCAN of one) lists the integers in ascending order,
 * and every other reply is in the tree's hash order.
 *
 * Writes follow the collections' pattern (db_write, obj_coll_writable, the
 * change, vt_write_done, then db_delete of an emptied key); nothing is
 * replied while a bucket is held. Multi-key commands read their sources
 * first (holding a reference to each), compute the result as a list of
 * members in tree order (pointers into the sources' trees), then reply it
 * or store it as a new set built bottom-up. Main thread only. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "t_set.h"
#include "util.h"

#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* ---- member lists (in tree order unless said) ---- */

typedef struct mlist {
    set_hmember *v;
    size_t n, cap;
} mlist;

static void ml_push(mlist *l, uint32_t h, const char *m, size_t ml) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (set_hmember){h, m, ml};
}

static int ml_all_int(const mlist *l) {
    for (size_t i = 0; i < l->n; i++)
        if (!set_member_int(l->v[i].m, l->v[i].ml, NULL)) return 0;
    return 1;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* Replies n members as a RESP3 set (an array when !as_set, and always
 * under RESP2): in ascending integer order when `intset` (every member is
 * then an integer), else in the given order. */
static void reply_members_as(client *c, const set_hmember *v, size_t n, int intset, int as_set) {
    (as_set ? reply_set : reply_array)(c, (long long)n);
    if (!intset) {
        for (size_t i = 0; i < n; i++) reply_bulk(c, v[i].m, v[i].ml);
        return;
    }
    long long *iv = xmalloc((n ? n : 1) * sizeof *iv);
    for (size_t i = 0; i < n; i++) {
        int ok = set_member_int(v[i].m, v[i].ml, &iv[i]);
        assert(ok);
        (void)ok;
    }
    qsort(iv, n, sizeof *iv, cmp_ll);
    for (size_t i = 0; i < n; i++) reply_bulk_ll(c, iv[i]);
    free(iv);
}

/* SMEMBERS, SPOP, SINTER/SUNION/SDIFF: a set. */
static void reply_members(client *c, const set_hmember *v, size_t n, int intset) {
    reply_members_as(c, v, n, intset, 1);
}

/* Every member of s, in tree order. */
static void ml_from_set(mlist *l, const obj *s) {
    set_iter it;
    const char *m;
    size_t ml;
    uint32_t h;
    set_iter_init(&it, s);
    while (set_iter_next_h(&it, &m, &ml, &h)) ml_push(l, h, m, ml);
}

/* The whole set as Redis iterates it (SMEMBERS, SRANDMEMBER with a count
 * at least its size). */
static void reply_whole_set(client *c, const obj *s, int as_set) {
    mlist l = {0};
    ml_from_set(&l, s);
    reply_members_as(c, l.v, l.n, s->enc == OBJ_ENC_INTSET, as_set);
    free(l.v);
}

/* ---- lookups and writes ---- */

static obj *get_set(client *c, db *d, const arg *k, int read, int *wrong) {
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_SET, read, wrong);
    return e ? e->val : NULL;
}

/* Opens key k for a write (creating an empty set when absent): the set to
 * change, unshared. The caller ends with vt_write_done(w) and then deletes
 * the key if it emptied it. */
static obj *write_begin(db *d, const arg *k, vt_wr *w, vt_entry **ep) {
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 1, w, &created);
    if (created) vt_set_val(w, e, set_new());
    e->val = obj_coll_writable(e->val);
    *ep = e;
    return e->val;
}

/* The keyspace events of a set change: `event`, then "del" when the change
 * emptied (and so deleted) the set, as Redis. */
static void notify_set(client *c, const char *event, const arg *k, int deleted) {
    notify_keyspace_event(NOTIFY_SET, event, k->p, k->len, c->db);
    if (deleted) notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
}

static int args_eq(const arg *a, const arg *b) {
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* ---- single-key commands ---- */

void cmd_sadd(client *c) {
    db *d = db_get(c->db);
    const arg *k = &c->argv[1];
    int wrong;
    obj *s = get_set(c, d, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    /* Nothing new: no write (no copy during a save, WATCH not touched). */
    int j = 2;
    while (s && j < c->argc && set_has(s, c->argv[j].p, c->argv[j].len)) j++;
    if (j == c->argc) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    vt_entry *e;
    s = write_begin(d, k, &w, &e);
    long long added = 0;
    for (; j < c->argc; j++) added += set_add(s, c->argv[j].p, c->argv[j].len);
    vt_write_done(&w);
    server_dirty(added);
    notify_set(c, "sadd", k, 0);
    reply_int(c, added);
}

void cmd_srem(client *c) {
    db *d = db_get(c->db);
    const arg *k = &c->argv[1];
    int wrong;
    obj *s = get_set(c, d, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    int j = 2;
    while (s && j < c->argc && !set_has(s, c->argv[j].p, c->argv[j].len)) j++;
    if (!s || j == c->argc) { /* nothing to remove: no write */
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    vt_entry *e;
    s = write_begin(d, k, &w, &e);
    long long removed = 0;
    for (; j < c->argc && set_len(s) > 0; j++)
        removed += set_rem(s, c->argv[j].p, c->argv[j].len);
    int empty = set_len(s) == 0;
    vt_write_done(&w);
    if (empty) db_delete(d, k->p, k->len);
    server_dirty(removed);
    notify_set(c, "srem", k, empty);
    reply_int(c, removed);
}

void cmd_scard(client *c) {
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    reply_int(c, s ? (long long)set_len(s) : 0);
}

void cmd_sismember(client *c) {
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    reply_int(c, s && set_has(s, c->argv[2].p, c->argv[2].len));
}

void cmd_smismember(client *c) {
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    reply_array(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) reply_int(c, s && set_has(s, c->argv[j].p, c->argv[j].len));
}

void cmd_smembers(client *c) {
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!s) {
        reply_set(c, 0);
        return;
    }
    reply_whole_set(c, s, 1);
}

/* SMOVE source destination member (Redis's smoveCommand: an absent source
 * answers 0 before any type check of the destination). */
void cmd_smove(client *c) {
    db *d = db_get(c->db);
    const arg *src = &c->argv[1], *dst = &c->argv[2], *m = &c->argv[3];
    int wrong;
    obj *s = get_set(c, d, src, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!s) {
        reply_int(c, 0);
        return;
    }
    obj_incref(s); /* across the destination's lookup */
    get_set(c, d, dst, DB_LOOKUP_WRITE, &wrong);
    int member = set_has(s, m->p, m->len);
    obj_decref(s);
    if (wrong) return;
    if (args_eq(src, dst) || !member) {
        reply_int(c, member);
        return;
    }
    vt_wr w;
    vt_entry *e;
    s = write_begin(d, src, &w, &e);
    set_rem(s, m->p, m->len);
    int empty = set_len(s) == 0;
    vt_write_done(&w);
    if (empty) db_delete(d, src->p, src->len);
    server_dirty(1);
    notify_set(c, "srem", src, empty);
    /* A destination that holds the member already is not written (Redis
     * signals it only when the member was added). */
    vt_entry *de = db_lookup(d, dst->p, dst->len);
    if (!de || !set_has(de->val, m->p, m->len)) {
        s = write_begin(d, dst, &w, &e);
        set_add(s, m->p, m->len);
        vt_write_done(&w);
        server_dirty(1);
        notify_set(c, "sadd", dst, 0);
    }
    reply_int(c, 1);
}

/* ---- SRANDMEMBER ---- */

void cmd_srandmember(client *c) {
    if (c->argc > 3) {
        reply_syntax_error(c);
        return;
    }
    long long l = 1;
    if (c->argc == 3) {
        if (!arg_ll(c, &c->argv[2], &l)) return;
        if (l == LLONG_MIN) {
            reply_errorf(c, "ERR value is out of range, value must between %lld and %lld",
                         -LLONG_MAX, LLONG_MAX);
            return;
        }
    }
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    const char *m;
    size_t ml;
    if (c->argc == 2) {
        if (!s) {
            reply_nil(c);
            return;
        }
        set_at(s, draw_below(set_len(s)), &m, &ml);
        reply_bulk(c, m, ml);
        return;
    }
    if (!s || l == 0) {
        reply_array(c, 0);
        return;
    }
    uint64_t size = set_len(s), count = l < 0 ? (uint64_t)-l : (uint64_t)l;
    if (l < 0 || count == 1) { /* repeats allowed: independent draws */
        reply_array(c, (long long)count);
        for (uint64_t i = 0; i < count; i++) {
            set_at(s, draw_below(size), &m, &ml);
            reply_bulk(c, m, ml);
        }
        return;
    }
    if (count >= size) {
        reply_whole_set(c, s, 0);
        return;
    }
    uint64_t *r = draw_distinct(count, size);
    reply_array(c, (long long)count);
    for (uint64_t i = 0; i < count; i++) {
        set_at(s, r[i], &m, &ml);
        reply_bulk(c, m, ml);
    }
    free(r);
}

/* ---- SPOP ---- */

static void propagate_srem(client *c, const arg *k, const char *m, size_t ml) {
    arg v[3] = {{"SREM", 4}, *k, {m, ml}};
    cmd_propagate(c, 3, v);
}

/* SPOP key count with count >= the set's size: the whole set, replied as
 * Redis's SUNION of it (so ascending integers when that union is an intset),
 * the key deleted and DEL propagated. */
static void spop_all(client *c, db *d, const arg *k, obj *s) {
    mlist l = {0};
    ml_from_set(&l, s);
    int intset = s->enc == OBJ_ENC_INTSET ||
                 (l.n <= (size_t)server.cfg.set_max_intset_entries && ml_all_int(&l));
    obj_incref(s); /* the members are read after the delete */
    db_delete(d, k->p, k->len);
    reply_members(c, l.v, l.n, intset);
    obj_decref(s);
    free(l.v);
    server_dirty((long long)l.n);
    notify_set(c, "spop", k, 1);
    arg v[2] = {{"DEL", 3}, *k};
    cmd_propagate(c, 2, v);
}

/* SPOP key count with count < the set's size: count random members
 * removed (copied first: the reply is written after the write is done),
 * each propagated as an SREM. */
static void spop_count(client *c, db *d, const arg *k, uint64_t count) {
    vt_wr w;
    vt_entry *e;
    obj *s = write_begin(d, k, &w, &e);
    uint64_t size = set_len(s);
    assert(count < size);
    set_hmember *v = xmalloc((size_t)count * sizeof *v);
    size_t *off = xmalloc((size_t)count * sizeof *off), len = 0, cap = 64;
    char *buf = xmalloc(cap); /* the popped members' bytes, one after the other */
    for (uint64_t i = 0; i < count; i++) {
        uint64_t rank = draw_below(size - i);
        const char *m;
        size_t ml;
        set_at(s, rank, &m, &ml);
        if (len + ml > cap) {
            cap = (len + ml) * 2 + 64;
            buf = xrealloc(buf, cap);
        }
        if (ml) memcpy(buf + len, m, ml);
        off[i] = len;
        v[i].ml = ml;
        len += ml;
        set_del_at(s, rank);
    }
    /* Redis's third case (few members stay): it keeps a new set of the
     * remaining members (encoded afresh) and replies the popped ones in the
     * old set's order. */
    int keep_new = (size - count) * 5 <= count;
    int intset = s->enc == OBJ_ENC_INTSET;
    if (keep_new) set_reset_encoding(s);
    vt_write_done(&w);
    for (size_t i = 0; i < count; i++) {
        v[i].m = buf + off[i];
        v[i].h = keep_new ? set_hash(v[i].m, v[i].ml) : 0;
    }
    if (keep_new) set_sort_hmembers(v, (size_t)count);
    reply_members(c, v, (size_t)count, keep_new && intset);
    for (size_t i = 0; i < count; i++) propagate_srem(c, k, v[i].m, v[i].ml);
    server_dirty((long long)count);
    notify_set(c, "spop", k, 0);
    free(v);
    free(off);
    free(buf);
}

void cmd_spop(client *c) {
    if (c->argc > 3) {
        reply_syntax_error(c);
        return;
    }
    long long count = 0;
    if (c->argc == 3) {
        if (!str_to_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0) {
            reply_error(c, ERR_POSITIVE);
            return;
        }
    }
    db *d = db_get(c->db);
    const arg *k = &c->argv[1];
    int wrong;
    obj *s = get_set(c, d, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (c->argc == 3) {
        if (!s || count == 0) reply_set(c, 0);
        else if ((uint64_t)count >= set_len(s)) spop_all(c, d, k, s);
        else spop_count(c, d, k, (uint64_t)count);
        return;
    }
    if (!s) {
        reply_nil(c);
        return;
    }
    vt_wr w;
    vt_entry *e;
    s = write_begin(d, k, &w, &e);
    uint64_t rank = draw_below(set_len(s));
    const char *m;
    size_t ml;
    set_at(s, rank, &m, &ml);
    char *copy = xmalloc(ml + 1);
    if (ml) memcpy(copy, m, ml);
    set_del_at(s, rank);
    int empty = set_len(s) == 0;
    vt_write_done(&w);
    if (empty) db_delete(d, k->p, k->len);
    notify_set(c, "spop", k, empty);
    propagate_srem(c, k, copy, ml);
    reply_bulk(c, copy, ml);
    free(copy);
    server_dirty(1);
}

/* ---- SSCAN ---- */

static void reply_cursor(client *c, uint64_t cursor) {
    char buf[32];
    size_t n = ll_to_str(buf, (long long)cursor);
    reply_array(c, 2);
    reply_bulk(c, buf, n);
}

/* SSCAN key cursor [MATCH pattern] [COUNT count]. The cursor of a
 * hashtable set is the hash to resume at: every member of a hash is
 * returned in the same batch, so a set that grows or shrinks between calls
 * still returns each member present throughout exactly once. An intset
 * returns everything at once with cursor 0, as Redis does. */
void cmd_sscan(client *c) {
    uint64_t cursor;
    if (!arg_scan_cursor(c, &c->argv[2], &cursor)) return;
    int wrong;
    obj *s = get_set(c, db_get(c->db), &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!s) {
        reply_cursor(c, 0);
        reply_array(c, 0);
        return;
    }
    long long count = 10;
    const arg *pat = NULL;
    for (int i = 3; i < c->argc; i += 2) {
        int more = c->argc - i >= 2;
        if (more && arg_is(&c->argv[i], "count")) {
            if (!arg_ll(c, &c->argv[i + 1], &count)) return;
            if (count < 1) {
                reply_syntax_error(c);
                return;
            }
        } else if (more && arg_is(&c->argv[i], "match")) {
            pat = &c->argv[i + 1];
            if (pat->len == 1 && pat->p[0] == '*') pat = NULL;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    mlist l = {0};
    uint64_t next = 0;
    if (s->enc == OBJ_ENC_INTSET) {
        ml_from_set(&l, s);
    } else if (cursor <= UINT32_MAX) {
        set_iter it;
        const char *m;
        size_t ml;
        uint32_t h;
        set_iter_init_at(&it, s, set_rank_of_hash(s, (uint32_t)cursor));
        while (set_iter_next_h(&it, &m, &ml, &h)) {
            if (l.n >= (uint64_t)count && h != l.v[l.n - 1].h) {
                next = h;
                break;
            }
            ml_push(&l, h, m, ml);
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++)
        if (!pat || glob_match(pat->p, pat->len, l.v[i].m, l.v[i].ml, 0)) l.v[kept++] = l.v[i];
    reply_cursor(c, next);
    reply_members_as(c, l.v, kept, s->enc == OBJ_ENC_INTSET, 0); /* SSCAN: an array */
    free(l.v);
}

/* ---- SINTER SINTERCARD SUNION SDIFF and the STORE forms ---- */

/* The source sets of a multi-key command, a reference held on each; NULL
 * for an absent key (an empty set). */
typedef struct sources {
    obj **v;
    const arg *keys;
    size_t n;
} sources;

static void sources_free(sources *src) {
    for (size_t i = 0; i < src->n; i++)
        if (src->v[i]) obj_decref(src->v[i]);
    free(src->v);
}

/* Looks every key up (Redis checks them all before anything else): 0 after
 * a WRONGTYPE reply, nothing held then. */
static int sources_load(client *c, db *d, const arg *keys, size_t n, sources *src) {
    src->v = xcalloc(n ? n : 1, sizeof *src->v);
    src->keys = keys;
    src->n = n;
    for (size_t i = 0; i < n; i++) {
        int wrong;
        obj *s = get_set(c, d, &keys[i], DB_LOOKUP_READ, &wrong);
        if (wrong) {
            src->n = i;
            sources_free(src);
            return 0;
        }
        if (s) obj_incref(s);
        src->v[i] = s;
    }
    return 1;
}

static const sources *sort_src; /* for by_card: qsort has no context */

/* By cardinality, then position (Redis's qsort is glibc's stable merge). */
static int by_card(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    uint64_t x = set_len(sort_src->v[i]), y = set_len(sort_src->v[j]);
    if (x != y) return x < y ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The intersection in the order of the smallest set (Redis iterates it):
 * *intset_order says whether that set is an intset. With out NULL only the
 * count, stopping at limit (0: none). Every source is present. */
static uint64_t inter(const sources *src, mlist *out, uint64_t limit, int *intset_order) {
    size_t *idx = xmalloc(src->n * sizeof *idx);
    for (size_t i = 0; i < src->n; i++) idx[i] = i;
    sort_src = src;
    qsort(idx, src->n, sizeof *idx, by_card);
    const obj *first = src->v[idx[0]];
    *intset_order = first->enc == OBJ_ENC_INTSET;
    uint64_t card = 0;
    set_iter it;
    const char *m;
    size_t ml;
    uint32_t h;
    set_iter_init(&it, first);
    while (set_iter_next_h(&it, &m, &ml, &h)) {
        size_t j;
        for (j = 1; j < src->n; j++) {
            const obj *o = src->v[idx[j]];
            if (o != first && !set_has(o, m, ml)) break;
        }
        if (j < src->n) continue;
        card++;
        if (out) ml_push(out, h, m, ml);
        else if (limit && card >= limit) break;
    }
    free(idx);
    return card;
}

/* The union, deduplicated, in tree order. */
static void uni(const sources *src, mlist *out) {
    size_t present = 0;
    for (size_t i = 0; i < src->n; i++)
        if (src->v[i]) {
            ml_from_set(out, src->v[i]);
            present++;
        }
    if (present < 2) return; /* one tree: already sorted and distinct */
    set_sort_hmembers(out->v, out->n);
    size_t kept = 0;
    for (size_t i = 0; i < out->n; i++) {
        const set_hmember *a = &out->v[i];
        if (kept) {
            const set_hmember *b = &out->v[kept - 1];
            if (a->h == b->h && a->ml == b->ml && memcmp(a->m, b->m, a->ml) == 0) continue;
        }
        out->v[kept++] = *a;
    }
    out->n = kept;
}

/* The members of the first set that no other holds, in tree order.
 * Returns 1 when Redis's result is a hashtable whatever it holds: it chose
 * its second algorithm (copy the first set, then remove the others) and the
 * first set does not fit an intset. */
static int diff(const sources *src, mlist *out) {
    const obj *first = src->v[0];
    if (!first) return 0;
    for (size_t j = 1; j < src->n; j++)
        if (src->v[j] && args_eq(&src->keys[j], &src->keys[0])) return 0; /* same set */
    long long one = 0, two = 0;
    for (size_t j = 0; j < src->n; j++) {
        if (!src->v[j]) continue;
        one += (long long)set_len(first);
        two += (long long)set_len(src->v[j]);
    }
    int algo2 = one / 2 > two;
    set_iter it;
    const char *m;
    size_t ml;
    uint32_t h;
    set_iter_init(&it, first);
    while (set_iter_next_h(&it, &m, &ml, &h)) {
        size_t j;
        for (j = 1; j < src->n; j++)
            if (src->v[j] && set_has(src->v[j], m, ml)) break;
        if (j == src->n) ml_push(out, h, m, ml);
    }
    if (!algo2) return 0;
    if (set_len(first) > (uint64_t)server.cfg.set_max_intset_entries) return 1;
    if (first->enc == OBJ_ENC_INTSET) return 0;
    mlist all = {0};
    ml_from_set(&all, first);
    int ints = ml_all_int(&all);
    free(all.v);
    return !ints;
}

/* The STORE forms: dst becomes a set of the result (whatever it held, its
 * TTL dropped), or is deleted when the result is empty; replies the size. */
static void store_result(client *c, db *d, const arg *dst, const mlist *l, int force_ht,
                         const char *event) {
    if (l->n == 0) {
        if (db_delete(d, dst->p, dst->len)) {
            server_dirty(1);
            notify_keyspace_event(NOTIFY_GENERIC, "del", dst->p, dst->len, c->db);
        }
        reply_int(c, 0);
        return;
    }
    obj *s = set_from_sorted(l->v, l->n);
    if (force_ht) s->enc = OBJ_ENC_HASHTABLE;
    db_set(d, dst->p, dst->len, s, VT_NO_EXPIRE);
    server_dirty(1);
    notify_set(c, event, dst, 0);
    reply_int(c, (long long)l->n);
}

enum { OP_INTER, OP_UNION, OP_DIFF };

/* Redis's sinterGenericCommand / sunionDiffGenericCommand. dst: the STORE
 * forms' destination, or NULL to reply the members; card_only: SINTERCARD. */
static void set_op(client *c, int op, const arg *keys, size_t n, const arg *dst, int card_only,
                   uint64_t limit) {
    db *d = db_get(c->db);
    sources src;
    if (!sources_load(c, d, keys, n, &src)) return;
    mlist l = {0};
    int intset = 0, force_ht = 0;
    int absent = 0;
    for (size_t i = 0; i < n; i++) absent |= src.v[i] == NULL;
    if (op == OP_INTER && card_only) {
        reply_int(c, absent ? 0 : (long long)inter(&src, NULL, limit, &intset));
        sources_free(&src);
        return;
    }
    if (op == OP_INTER) {
        if (!absent) inter(&src, &l, 0, &intset);
    } else {
        if (op == OP_UNION) uni(&src, &l);
        else force_ht = diff(&src, &l);
        intset = !force_ht && l.n <= (size_t)server.cfg.set_max_intset_entries && ml_all_int(&l);
    }
    static const char *const store_events[] = {"sinterstore", "sunionstore", "sdiffstore"};
    if (dst) store_result(c, d, dst, &l, force_ht, store_events[op]);
    else reply_members(c, l.v, l.n, intset);
    free(l.v);
    sources_free(&src);
}

void cmd_sinter(client *c) { set_op(c, OP_INTER, c->argv + 1, (size_t)c->argc - 1, NULL, 0, 0); }

void cmd_sinterstore(client *c) {
    set_op(c, OP_INTER, c->argv + 2, (size_t)c->argc - 2, &c->argv[1], 0, 0);
}

void cmd_sunion(client *c) { set_op(c, OP_UNION, c->argv + 1, (size_t)c->argc - 1, NULL, 0, 0); }

void cmd_sunionstore(client *c) {
    set_op(c, OP_UNION, c->argv + 2, (size_t)c->argc - 2, &c->argv[1], 0, 0);
}

void cmd_sdiff(client *c) { set_op(c, OP_DIFF, c->argv + 1, (size_t)c->argc - 1, NULL, 0, 0); }

void cmd_sdiffstore(client *c) {
    set_op(c, OP_DIFF, c->argv + 2, (size_t)c->argc - 2, &c->argv[1], 0, 0);
}

/* SINTERCARD numkeys key [key ...] [LIMIT limit] */
void cmd_sintercard(client *c) {
    long long numkeys, limit = 0;
    if (!str_to_ll(c->argv[1].p, c->argv[1].len, &numkeys) || numkeys < 1) {
        reply_error(c, "ERR numkeys should be greater than 0");
        return;
    }
    if (numkeys > c->argc - 2) {
        reply_error(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    for (int j = 2 + (int)numkeys; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "limit") && j + 1 < c->argc) {
            j++;
            if (!str_to_ll(c->argv[j].p, c->argv[j].len, &limit) || limit < 0) {
                reply_error(c, "ERR LIMIT can't be negative");
                return;
            }
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    set_op(c, OP_INTER, c->argv + 2, (size_t)numkeys, NULL, 1, (uint64_t)limit);
}
