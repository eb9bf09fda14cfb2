/* cmd_zset_ops: the sorted set commands over several keys or random /
 * cursor access: ZUNION ZINTER ZDIFF (and their STORE forms, WEIGHTS,
 * AGGREGATE, WITHSCORES; a source may be a set, its members scored 1),
 * ZINTERCARD, ZRANDMEMBER and ZSCAN, with Redis 7.0's replies and errors
 * (RESP2). Results are accumulated in a temporary sorted set (t_zset.h).
 * A set source is read through its tree as t_set.h lays it out (key =
 * 32-bit member hash, big-endian, then the member). Main thread only. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "t_zset.h"
#include "util.h"
#include "vt.h"

static void reply_score(client *c, double s) {
    reply_double(c, s); /* RESP2: zset_fmt_score's text */
}

/* ---- sources: a sorted set, a set, or nothing (absent key) ---- */

typedef struct zsrc {
    const obj *o;   /* NULL: absent */
    double weight;
    size_t idx;     /* argument order, for a stable sort */
} zsrc;

static uint64_t src_len(const zsrc *s) {
    if (!s->o) return 0;
    return s->o->type == OBJ_ZSET ? zset_len(s->o) : pt_count(obj_ctree(s->o, 0));
}

static int src_find(const zsrc *s, const char *m, size_t ml, double *score) {
    if (!s->o) return 0;
    if (s->o->type == OBJ_ZSET) return zset_score(s->o, m, ml, score);
    char small[128];
    char *k = ml + 4 <= sizeof small ? small : xmalloc(ml + 4);
    uint32_t h = (uint32_t)(vt_hash(m, ml) >> 32);
    k[0] = (char)(h >> 24);
    k[1] = (char)(h >> 16);
    k[2] = (char)(h >> 8);
    k[3] = (char)h;
    if (ml) memcpy(k + 4, m, ml);
    uint64_t r;
    int found = pt_seek(obj_ctree(s->o, 0), k, ml + 4, &r, NULL);
    if (k != small) free(k);
    if (found) *score = 1.0;
    return found;
}

typedef struct src_iter { zset_iter zi; int isset; } src_iter;

static void src_iter_init(src_iter *it, const zsrc *s) {
    it->isset = s->o->type == OBJ_SET;
    pt_iter_init(&it->zi.it, obj_ctree(s->o, 0), 0, 0);
}

static int src_iter_next(src_iter *it, const char **m, size_t *ml, double *score) {
    if (!it->isset) return zset_iter_next(&it->zi, m, ml, score);
    pt_item item;
    if (!pt_iter_next(&it->zi.it, &item)) return 0;
    assert(item.klen >= 4);
    *m = item.key + 4;
    *ml = item.klen - 4;
    *score = 1.0;
    return 1;
}

static int src_cmp(const void *a, const void *b) {
    const zsrc *x = a, *y = b;
    uint64_t lx = src_len(x), ly = src_len(y);
    if (lx != ly) return lx < ly ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

enum { OP_UNION, OP_INTER, OP_DIFF };
enum { AGG_SUM, AGG_MIN, AGG_MAX };

static void aggregate(double *target, double val, int agg) {
    if (agg == AGG_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0.0;
    } else if (agg == AGG_MIN) {
        *target = val < *target ? val : *target;
    } else {
        *target = val > *target ? val : *target;
    }
}

typedef struct zop_opts { int agg, withscores; long long limit; } zop_opts;

/* The options after the keys (from argv[j]): 1, or 0 with the error
 * answered. */
static int zop_parse_opts(client *c, int j, zsrc *src, size_t n, int op, int card, int store,
                          zop_opts *o) {
    while (j < c->argc) {
        int left = c->argc - j;
        const arg *a = &c->argv[j];
        if (op != OP_DIFF && !card && (size_t)left >= n + 1 && arg_is(a, "weights")) {
            j++;
            for (size_t i = 0; i < n; i++, j++) {
                if (!zset_parse_double(c->argv[j].p, c->argv[j].len, &src[i].weight)) {
                    reply_error(c, "ERR weight value is not a float");
                    return 0;
                }
            }
        } else if (op != OP_DIFF && !card && left >= 2 && arg_is(a, "aggregate")) {
            const arg *v = &c->argv[j + 1];
            if (arg_is(v, "sum")) o->agg = AGG_SUM;
            else if (arg_is(v, "min")) o->agg = AGG_MIN;
            else if (arg_is(v, "max")) o->agg = AGG_MAX;
            else {
                reply_syntax_error(c);
                return 0;
            }
            j += 2;
        } else if (!store && !card && arg_is(a, "withscores")) {
            o->withscores = 1;
            j++;
        } else if (card && left >= 2 && arg_is(a, "limit")) {
            const arg *v = &c->argv[j + 1];
            if (!str_to_ll(v->p, v->len, &o->limit) || o->limit < 0) {
                reply_error(c, "ERR LIMIT can't be negative");
                return 0;
            }
            j += 2;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

static void zop_union(obj *acc, zsrc *src, size_t n, int agg) {
    for (size_t i = 0; i < n; i++) {
        if (src_len(&src[i]) == 0) continue;
        src_iter it;
        src_iter_init(&it, &src[i]);
        const char *m;
        size_t ml;
        double s;
        while (src_iter_next(&it, &m, &ml, &s)) {
            double score = src[i].weight * s, cur;
            if (isnan(score)) score = 0;
            if (zset_score(acc, m, ml, &cur)) {
                aggregate(&cur, score, agg);
                score = cur;
            }
            zset_set(acc, m, ml, score);
        }
    }
}

/* ZINTER into acc, or (acc NULL) the count up to limit (0: no limit). */
static uint64_t zop_inter(obj *acc, zsrc *src, size_t n, int agg, long long limit) {
    uint64_t card = 0;
    if (src_len(&src[0]) == 0) return 0;
    src_iter it;
    src_iter_init(&it, &src[0]);
    const char *m;
    size_t ml;
    double s;
    while (src_iter_next(&it, &m, &ml, &s)) {
        double score = src[0].weight * s, value;
        if (isnan(score)) score = 0;
        size_t j;
        for (j = 1; j < n; j++) {
            if (src[j].o == src[0].o) {
                value = s * src[j].weight;
            } else if (src_find(&src[j], m, ml, &value)) {
                value *= src[j].weight;
            } else {
                break;
            }
            aggregate(&score, value, agg);
        }
        if (j < n) continue;
        if (!acc) {
            card++;
            if (limit && card >= (uint64_t)limit) break;
        } else {
            zset_set(acc, m, ml, score);
        }
    }
    return card;
}

static void zop_diff(obj *acc, zsrc *src, size_t n) {
    if (src_len(&src[0]) == 0) return;
    src_iter it;
    src_iter_init(&it, &src[0]);
    const char *m;
    size_t ml;
    double s, v;
    while (src_iter_next(&it, &m, &ml, &s)) {
        size_t j;
        for (j = 1; j < n; j++)
            if (src[j].o == src[0].o || src_find(&src[j], m, ml, &v)) break;
        if (j == n) zset_set(acc, m, ml, s);
    }
}

/* Writes or replies the result acc (whose reference is taken). */
static void zop_finish(client *c, obj *acc, const arg *dst, int withscores, int op) {
    static const char *const events[] = {
        [OP_UNION] = "zunionstore", [OP_INTER] = "zinterstore", [OP_DIFF] = "zdiffstore"};
    uint64_t len = zset_len(acc);
    if (dst) {
        db *d = db_get(c->db);
        if (len) {
            zset_convert_if_small(acc);
            db_set(d, dst->p, dst->len, acc, VT_NO_EXPIRE);
            server_dirty(1);
            notify_keyspace_event(NOTIFY_ZSET, events[op], dst->p, dst->len, c->db);
        } else {
            obj_decref(acc);
            if (db_delete(d, dst->p, dst->len)) {
                server_dirty(1);
                notify_keyspace_event(NOTIFY_GENERIC, "del", dst->p, dst->len, c->db);
            }
        }
        reply_int(c, (long long)len);
        return;
    }
    if (withscores) reply_pairs(c, (long long)len);
    else reply_array(c, (long long)len);
    zset_iter it;
    zset_iter_init(&it, acc);
    const char *m;
    size_t ml;
    double s;
    while (zset_iter_next(&it, &m, &ml, &s)) {
        if (withscores) reply_pair(c);
        reply_bulk(c, m, ml);
        if (withscores) reply_score(c, s);
    }
    obj_decref(acc);
}

/* Redis's zunionInterDiffGenericCommand: numkeys at argv[ni]. */
static void zop_generic(client *c, const arg *dst, int ni, int op, int card) {
    long long setnum;
    if (!arg_ll(c, &c->argv[ni], &setnum)) return;
    if (setnum < 1) {
        reply_errorf(c, "ERR at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (setnum > c->argc - (ni + 1)) {
        reply_syntax_error(c);
        return;
    }
    size_t n = (size_t)setnum;
    zsrc *src = xcalloc(n, sizeof *src);
    db *d = db_get(c->db);
    for (size_t i = 0; i < n; i++) {
        const arg *k = &c->argv[ni + 1 + (int)i];
        vt_entry *e = db_lookup_read(d, k->p, k->len);
        if (e && e->val->type != OBJ_ZSET && e->val->type != OBJ_SET) {
            db_reply_wrongtype(c);
            free(src);
            return;
        }
        src[i].o = e ? e->val : NULL;
        src[i].weight = 1.0;
        src[i].idx = i;
    }
    zop_opts o = {AGG_SUM, 0, 0};
    if (!zop_parse_opts(c, ni + 1 + (int)n, src, n, op, card, dst != NULL, &o)) {
        free(src);
        return;
    }
    if (op != OP_DIFF) qsort(src, n, sizeof *src, src_cmp);
    if (card) {
        reply_int(c, (long long)zop_inter(NULL, src, n, o.agg, o.limit));
        free(src);
        return;
    }
    obj *acc = zset_new_skiplist();
    if (op == OP_UNION) zop_union(acc, src, n, o.agg);
    else if (op == OP_INTER) zop_inter(acc, src, n, o.agg, 0);
    else zop_diff(acc, src, n);
    free(src);
    zop_finish(c, acc, dst, o.withscores, op);
}

void cmd_zunion(client *c) { zop_generic(c, NULL, 1, OP_UNION, 0); }
void cmd_zinter(client *c) { zop_generic(c, NULL, 1, OP_INTER, 0); }
void cmd_zdiff(client *c) { zop_generic(c, NULL, 1, OP_DIFF, 0); }
void cmd_zunionstore(client *c) { zop_generic(c, &c->argv[1], 2, OP_UNION, 0); }
void cmd_zinterstore(client *c) { zop_generic(c, &c->argv[1], 2, OP_INTER, 0); }
void cmd_zdiffstore(client *c) { zop_generic(c, &c->argv[1], 2, OP_DIFF, 0); }
void cmd_zintercard(client *c) { zop_generic(c, NULL, 1, OP_INTER, 1); }

/* ---- ZRANDMEMBER ---- */

static void reply_rank(client *c, const obj *z, uint64_t r, int withscores) {
    const char *m;
    size_t ml;
    double s;
    int ok = zset_at(z, r, &m, &ml, &s);
    assert(ok);
    (void)ok;
    if (withscores) reply_pair(c);
    reply_bulk(c, m, ml);
    if (withscores) reply_score(c, s);
}

static void zrandmember_count(client *c, long long l, int withscores) {
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_ZSET,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e || l == 0) {
        reply_array(c, 0);
        return;
    }
    const obj *z = e->val;
    uint64_t size = zset_len(z), count = l < 0 ? (uint64_t)(-l) : (uint64_t)l;
    int uniq = l > 0;
    if (!uniq || count == 1) {
        if (withscores) reply_pairs(c, (long long)count);
        else reply_array(c, (long long)count);
        for (uint64_t i = 0; i < count; i++) reply_rank(c, z, draw_below(size), withscores);
        return;
    }
    if (count >= size) {
        /* The whole set, highest first as Redis 7.0 answers it. */
        if (withscores) reply_pairs(c, (long long)size);
        else reply_array(c, (long long)size);
        zset_iter it;
        zset_iter_at(&it, z, size - 1, 1);
        const char *m;
        size_t ml;
        double s;
        while (zset_iter_next(&it, &m, &ml, &s)) {
            if (withscores) reply_pair(c);
            reply_bulk(c, m, ml);
            if (withscores) reply_score(c, s);
        }
        return;
    }
    uint64_t *r = draw_distinct(count, size);
    if (withscores) reply_pairs(c, (long long)count);
    else reply_array(c, (long long)count);
    for (uint64_t i = 0; i < count; i++) reply_rank(c, z, r[i], withscores);
    free(r);
}

void cmd_zrandmember(client *c) {
    if (c->argc >= 3) {
        long long l;
        if (!arg_ll(c, &c->argv[2], &l)) return;
        if (l < -INT64_MAX) {
            reply_error(c, "ERR value is out of range, value must between -9223372036854775807 "
                           "and 9223372036854775807");
            return;
        }
        if (c->argc > 4 || (c->argc == 4 && !arg_is(&c->argv[3], "withscores"))) {
            reply_syntax_error(c);
            return;
        }
        if (c->argc == 4 && (l < -INT64_MAX / 2 || l > INT64_MAX / 2)) {
            reply_error(c, "ERR value is out of range");
            return;
        }
        zrandmember_count(c, l, c->argc == 4);
        return;
    }
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_ZSET,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) {
        reply_nil(c);
        return;
    }
    reply_rank(c, e->val, draw_below(zset_len(e->val)), 0);
}

/* ---- ZSCAN ---- */

typedef struct scan_out {
    const char **m;
    size_t *ml;
    double *s;
    size_t n, cap;
    const arg *pat;
} scan_out;

static void scan_add(void *priv, const char *m, size_t ml, double score) {
    scan_out *o = priv;
    if (o->pat && !glob_match(o->pat->p, o->pat->len, m, ml, 0)) return;
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 16;
        o->m = xrealloc(o->m, o->cap * sizeof *o->m);
        o->ml = xrealloc(o->ml, o->cap * sizeof *o->ml);
        o->s = xrealloc(o->s, o->cap * sizeof *o->s);
    }
    o->m[o->n] = m;
    o->ml[o->n] = ml;
    o->s[o->n] = score;
    o->n++;
}

void cmd_zscan(client *c) {
    uint64_t cursor;
    if (!arg_scan_cursor(c, &c->argv[2], &cursor)) return;
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_ZSET,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) {
        reply_array(c, 2);
        reply_bulk(c, "0", 1);
        reply_array(c, 0);
        return;
    }
    long long count = 10;
    scan_out o = {0};
    for (int i = 3; i < c->argc; i += 2) {
        int left = c->argc - i;
        if (arg_is(&c->argv[i], "count") && left >= 2) {
            if (!arg_ll(c, &c->argv[i + 1], &count)) return;
            if (count < 1) {
                reply_syntax_error(c);
                return;
            }
        } else if (arg_is(&c->argv[i], "match") && left >= 2) {
            const arg *p = &c->argv[i + 1];
            o.pat = (p->len == 1 && p->p[0] == '*') ? NULL : p;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    uint64_t next = 0;
    if (e->val->enc == OBJ_ENC_LISTPACK) {
        zset_iter it;
        zset_iter_init(&it, e->val);
        const char *m;
        size_t ml;
        double s;
        while (zset_iter_next(&it, &m, &ml, &s)) scan_add(&o, m, ml, s);
    } else {
        next = zset_scan(e->val, cursor, (uint64_t)count, scan_add, &o);
        if (next >= (UINT64_C(1) << 32)) next = 0;
    }
    reply_array(c, 2);
    reply_bulk_ll(c, (long long)next);
    reply_array(c, (long long)(2 * o.n));
    for (size_t i = 0; i < o.n; i++) {
        reply_bulk(c, o.m[i], o.ml[i]);
        char buf[ZSET_SCORE_BUF];
        if (e->val->enc == OBJ_ENC_LISTPACK)
            reply_bulk(c, buf, zset_fmt_listpack_score(buf, o.s[i]));
        else /* a bulk in RESP3 too, as Redis's */
            reply_bulk(c, buf, zset_fmt_score(buf, o.s[i]));
    }
    free(o.m);
    free(o.ml);
    free(o.s);
}
