/* cmd_hash: the hash commands (HSET HSETNX HMSET HGET HMGET HDEL HLEN
 * HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY HINCRBYFLOAT HRANDFIELD
 * HSCAN) with Redis 7.0's replies, error texts and propagation, on the
 * t_hash.h type.
 *
 * Writes follow the collections' pattern: the type is checked first
 * (db_lookup_typed), then db_write + obj_coll_writable and only the tree
 * work until vt_write_done (a save may hold the bucket); replies come
 * after; a hash left empty is deleted, as Redis does. HINCRBYFLOAT is
 * propagated as HSET with the value it produced. Main thread only. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "t_hash.h"
#include "util.h"

/* Room for HINCRBYFLOAT's result, as Redis's MAX_LONG_DOUBLE_CHARS. */
#define LD_BUF (5 * 1024)

/* The hash at argv[1] for a read command: NULL when absent or of another
 * type (*wrong set and WRONGTYPE replied). */
static obj *hash_read(client *c, int *wrong) {
    const arg *k = &c->argv[1];
    vt_entry *e = db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_HASH, DB_LOOKUP_READ,
                                  wrong);
    return e ? e->val : NULL;
}

/* The same for a write command (no hit/miss statistics). */
static obj *hash_lookup_write(client *c, int *wrong) {
    const arg *k = &c->argv[1];
    vt_entry *e = db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_HASH, DB_LOOKUP_WRITE,
                                  wrong);
    return e ? e->val : NULL;
}

/* Sets n field/value pairs of argv (from argv[first]) in the hash at
 * argv[1], creating it; the type was checked. Returns the fields added. */
static long long hash_set_argv(client *c, int first, int n) {
    const arg *k = &c->argv[1];
    vt_wr w;
    int created;
    vt_entry *e = db_write(db_get(c->db), k->p, k->len, 1, &w, &created);
    if (created) vt_set_val(&w, e, hash_new());
    e->val = obj_coll_writable(e->val);
    long long added = 0;
    for (int i = 0; i < n; i++) {
        const arg *f = &c->argv[first + 2 * i], *v = &c->argv[first + 2 * i + 1];
        added += hash_set(e->val, f->p, f->len, v->p, v->len);
    }
    vt_write_done(&w);
    return added;
}

static void hset_generic(client *c, int is_hmset) {
    if (c->argc % 2 == 1) {
        reply_wrong_args(c);
        return;
    }
    int wrong;
    hash_lookup_write(c, &wrong);
    if (wrong) return;
    int n = (c->argc - 2) / 2;
    long long added = hash_set_argv(c, 2, n);
    server_dirty(n);
    notify_keyspace_event(NOTIFY_HASH, "hset", c->argv[1].p, c->argv[1].len, c->db);
    if (is_hmset) reply_ok(c);
    else reply_int(c, added);
}

void cmd_hset(client *c) { hset_generic(c, 0); }
void cmd_hmset(client *c) { hset_generic(c, 1); }

void cmd_hsetnx(client *c) {
    int wrong;
    obj *h = hash_lookup_write(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    if (h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl)) {
        reply_int(c, 0);
        return;
    }
    hash_set_argv(c, 2, 1);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_HASH, "hset", c->argv[1].p, c->argv[1].len, c->db);
    reply_int(c, 1);
}

void cmd_hget(client *c) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    if (h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl)) reply_bulk(c, v, vl);
    else reply_nil(c);
}

void cmd_hmget(client *c) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    reply_array(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        const char *v;
        size_t vl;
        if (h && hash_get(h, c->argv[i].p, c->argv[i].len, &v, &vl)) reply_bulk(c, v, vl);
        else reply_nil(c);
    }
}

void cmd_hdel(client *c) {
    int wrong;
    obj *h = hash_lookup_write(c, &wrong);
    if (wrong) return;
    /* Nothing to delete: no write at all (WATCH is not touched, as Redis
     * signals only when a field went). */
    int any = 0;
    for (int i = 2; h && i < c->argc && !any; i++) {
        const char *v;
        size_t vl;
        any = hash_get(h, c->argv[i].p, c->argv[i].len, &v, &vl);
    }
    if (!any) {
        reply_int(c, 0);
        return;
    }
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 0, &w, &created);
    e->val = obj_coll_writable(e->val);
    long long deleted = 0;
    for (int i = 2; i < c->argc; i++) deleted += hash_del(e->val, c->argv[i].p, c->argv[i].len);
    int empty = hash_len(e->val) == 0;
    vt_write_done(&w);
    if (empty) db_delete(d, k->p, k->len);
    server_dirty(deleted);
    notify_keyspace_event(NOTIFY_HASH, "hdel", k->p, k->len, c->db);
    if (empty) notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
    reply_int(c, deleted);
}

void cmd_hlen(client *c) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    reply_int(c, h ? (long long)hash_len(h) : 0);
}

void cmd_hstrlen(client *c) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    if (h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl)) reply_int(c, (long long)vl);
    else reply_int(c, 0);
}

void cmd_hexists(client *c) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    reply_int(c, h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl));
}

enum { HG_KEYS = 1, HG_VALS = 2, HG_PAIRS = 4 /* HRANDFIELD's [field, value] pairs */ };

/* Every field and/or value of h, in the tree's order. */
static void reply_all(client *c, const obj *h, int what) {
    uint64_t n = hash_len(h);
    if (what & HG_PAIRS) reply_pairs(c, (long long)n);
    else if (what == (HG_KEYS | HG_VALS)) reply_map(c, (long long)n);
    else reply_array(c, (long long)n);
    hash_iter it;
    hash_iter_init(&it, h);
    const char *f, *v;
    size_t fl, vl;
    while (hash_iter_next(&it, &f, &fl, &v, &vl)) {
        if (what & HG_PAIRS) reply_pair(c);
        if (what & HG_KEYS) reply_bulk(c, f, fl);
        if (what & HG_VALS) reply_bulk(c, v, vl);
    }
}

/* HKEYS, HVALS, HGETALL. */
static void hgetall_generic(client *c, int what) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    if (h) reply_all(c, h, what);
    else if (what == (HG_KEYS | HG_VALS)) reply_map(c, 0);
    else reply_array(c, 0);
}

void cmd_hkeys(client *c) { hgetall_generic(c, HG_KEYS); }
void cmd_hvals(client *c) { hgetall_generic(c, HG_VALS); }
void cmd_hgetall(client *c) { hgetall_generic(c, HG_KEYS | HG_VALS); }

/* Stores value (len n) in field argv[2] of the hash at argv[1]. */
static void hash_store_field(client *c, const char *value, size_t n) {
    const arg *k = &c->argv[1], *f = &c->argv[2];
    vt_wr w;
    int created;
    vt_entry *e = db_write(db_get(c->db), k->p, k->len, 1, &w, &created);
    if (created) vt_set_val(&w, e, hash_new());
    e->val = obj_coll_writable(e->val);
    hash_set(e->val, f->p, f->len, value, n);
    vt_write_done(&w);
    server_dirty(1);
}

void cmd_hincrby(client *c) {
    long long incr, value = 0;
    if (!arg_ll(c, &c->argv[3], &incr)) return;
    int wrong;
    obj *h = hash_lookup_write(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    if (h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl) && !str_to_ll(v, vl, &value)) {
        reply_error(c, "ERR hash value is not an integer");
        return;
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) ||
        (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        reply_error(c, "ERR increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[32];
    size_t n = ll_to_str(buf, value);
    hash_store_field(c, buf, n);
    notify_keyspace_event(NOTIFY_HASH, "hincrby", c->argv[1].p, c->argv[1].len, c->db);
    reply_int(c, value);
}

void cmd_hincrbyfloat(client *c) {
    long double value = 0, incr;
    const arg *a = &c->argv[3];
    if (!str_to_ld(a->p, a->len, &incr)) {
        reply_error(c, "ERR value is not a valid float");
        return;
    }
    if (isnan(incr) || isinf(incr)) {
        reply_error(c, "ERR value is NaN or Infinity");
        return;
    }
    int wrong;
    obj *h = hash_lookup_write(c, &wrong);
    if (wrong) return;
    const char *v;
    size_t vl;
    if (h && hash_get(h, c->argv[2].p, c->argv[2].len, &v, &vl) && !str_to_ld(v, vl, &value)) {
        reply_error(c, "ERR hash value is not a float");
        return;
    }
    value += incr;
    if (isnan(value) || isinf(value)) {
        reply_error(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    char *buf = xmalloc(LD_BUF);
    size_t n = ld_to_str(buf, LD_BUF, value);
    hash_store_field(c, buf, n);
    notify_keyspace_event(NOTIFY_HASH, "hincrbyfloat", c->argv[1].p, c->argv[1].len, c->db);
    reply_bulk(c, buf, n);
    /* Replayed as the value it produced (Redis 7.0 rewrites it as HSET), so
     * that float formatting can never make a replay differ. */
    arg pv[4] = {{"HSET", 4}, c->argv[1], c->argv[2], {buf, n}};
    cmd_propagate(c, 4, pv);
    free(buf);
}

/* ---- HRANDFIELD ---------------------------------------------------------- */

static void reply_rank(client *c, const obj *h, uint64_t rank, int withvalues) {
    const char *f, *v;
    size_t fl, vl;
    int ok = hash_at(h, rank, &f, &fl, &v, &vl);
    assert(ok);
    (void)ok;
    if (withvalues) reply_pair(c);
    reply_bulk(c, f, fl);
    if (withvalues) reply_bulk(c, v, vl);
}

/* HRANDFIELD key count [WITHVALUES] (Redis's hrandfieldWithCountCommand):
 * a negative count draws with repeats, a positive one distinct fields. */
static void hrandfield_count(client *c, long long l, int withvalues) {
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    if (!h || l == 0) {
        reply_array(c, 0);
        return;
    }
    uint64_t size = hash_len(h);
    if (l < 0) {
        uint64_t count = (uint64_t)-l;
        if (withvalues) reply_pairs(c, (long long)count);
        else reply_array(c, (long long)count);
        for (uint64_t i = 0; i < count; i++) reply_rank(c, h, draw_below(size), withvalues);
        return;
    }
    uint64_t count = (uint64_t)l;
    if (count >= size) {
        reply_all(c, h, withvalues ? HG_KEYS | HG_VALS | HG_PAIRS : HG_KEYS);
        return;
    }
    if (withvalues) reply_pairs(c, (long long)count);
    else reply_array(c, (long long)count);
    uint64_t *ranks = draw_distinct(count, size);
    for (uint64_t i = 0; i < count; i++) reply_rank(c, h, ranks[i], withvalues);
    free(ranks);
}

void cmd_hrandfield(client *c) {
    if (c->argc >= 3) {
        long long l;
        if (!arg_ll(c, &c->argv[2], &l)) return;
        if (l < -LLONG_MAX) {
            reply_errorf(c, "ERR value is out of range, value must between %lld and %lld",
                         -LLONG_MAX, LLONG_MAX);
            return;
        }
        int withvalues = 0;
        if (c->argc > 4 || (c->argc == 4 && !arg_is(&c->argv[3], "withvalues"))) {
            reply_syntax_error(c);
            return;
        }
        if (c->argc == 4) {
            withvalues = 1;
            if (l < -LLONG_MAX / 2 || l > LLONG_MAX / 2) {
                reply_error(c, "ERR value is out of range");
                return;
            }
        }
        hrandfield_count(c, l, withvalues);
        return;
    }
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    if (!h) {
        reply_nil(c);
        return;
    }
    const char *f, *v;
    size_t fl, vl;
    int ok = hash_at(h, draw_below(hash_len(h)), &f, &fl, &v, &vl);
    assert(ok);
    (void)ok;
    reply_bulk(c, f, fl);
}

/* ---- HSCAN ---------------------------------------------------------------- */

typedef struct scan_item {
    const char *f, *v;
    size_t fl, vl;
} scan_item;

typedef struct scan_list {
    scan_item *v;
    size_t n, cap;
    const arg *pat;   /* NULL: every field */
} scan_list;

static void scan_visit(void *priv, const char *f, size_t fl, const char *v, size_t vl) {
    scan_list *l = priv;
    if (l->pat && !glob_match(l->pat->p, l->pat->len, f, fl, 0)) return;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (scan_item){f, v, fl, vl};
}

/* HSCAN's options (Redis's scanGenericCommand, which reads them once the
 * key is found): COUNT n (>= 1), MATCH pattern. */
static int parse_hscan_opts(client *c, long long *count, const arg **pat) {
    *count = 10;
    *pat = NULL;
    for (int i = 3; i < c->argc; i += 2) {
        const arg *a = &c->argv[i];
        if (i + 1 < c->argc && arg_is(a, "count")) {
            if (!arg_ll(c, &c->argv[i + 1], count)) return 0;
            if (*count < 1) {
                reply_syntax_error(c);
                return 0;
            }
        } else if (i + 1 < c->argc && arg_is(a, "match")) {
            const arg *p = &c->argv[i + 1];
            *pat = p->len == 1 && p->p[0] == '*' ? NULL : p;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

void cmd_hscan(client *c) {
    uint64_t cursor;
    if (!arg_scan_cursor(c, &c->argv[2], &cursor)) return;
    int wrong;
    obj *h = hash_read(c, &wrong);
    if (wrong) return;
    if (!h) {
        reply_array(c, 2);
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    long long count;
    const arg *pat;
    if (!parse_hscan_opts(c, &count, &pat)) return;
    scan_list l = {NULL, 0, 0, pat};
    uint64_t next = 0;
    if (h->enc == OBJ_ENC_LISTPACK) {
        /* the small form answers everything at once, as Redis's listpack */
        hash_iter it;
        hash_iter_init(&it, h);
        const char *f, *v;
        size_t fl, vl;
        while (hash_iter_next(&it, &f, &fl, &v, &vl)) scan_visit(&l, f, fl, v, vl);
    } else {
        size_t want = count > (long long)(SIZE_MAX / 2) ? SIZE_MAX / 2 : (size_t)count;
        next = hash_scan(h, cursor, want, scan_visit, &l);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)next);
    reply_array(c, 2);
    reply_bulk(c, buf, (size_t)n);
    reply_array(c, (long long)(2 * l.n));
    for (size_t i = 0; i < l.n; i++) {
        reply_bulk(c, l.v[i].f, l.v[i].fl);
        reply_bulk(c, l.v[i].v, l.v[i].vl);
    }
    free(l.v);
}
