/* cmd_zset: the sorted set commands (ZADD ZINCRBY ZREM ZCARD ZSCORE ZMSCORE
 * ZRANK ZREVRANK ZCOUNT ZLEXCOUNT, the ZRANGE family and ZRANGESTORE,
 * ZREMRANGEBY*, ZPOPMIN ZPOPMAX ZMPOP and the blocking BZPOPMIN BZPOPMAX
 * BZMPOP) with Redis 7.0's replies and errors (RESP2). ZUNION / ZINTER /
 * ZDIFF / ZINTERCARD, ZRANDMEMBER and ZSCAN are in cmd_zset_ops.c. Ranges
 * are turned into rank intervals of the score tree (O(log n)), then walked.
 * Main thread only. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "t_zset.h"
#include "util.h"

#define ERR_NOT_FLOAT "ERR value is not a valid float"
#define ERR_RANGE_FLOAT "ERR min or max is not a float"
#define ERR_RANGE_LEX "ERR min or max not valid string range item"
#define ERR_NAN "ERR resulting score is not a number (NaN)"

static void reply_score(client *c, double s) {
    reply_double(c, s); /* RESP2: zset_fmt_score's text */
}

/* The sorted set at key for reading: NULL when absent or of another type
 * (*wrong set and WRONGTYPE answered). */
static const obj *zread(client *c, const arg *k, int *wrong) {
    vt_entry *e = db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_ZSET, DB_LOOKUP_READ, wrong);
    return e ? e->val : NULL;
}

/* ---- ranges ---- */

typedef struct zspec { double min, max; int minex, maxex; } zspec;
/* A lex bound: inf -1 for '-', 1 for '+', else the bytes and ex. */
typedef struct lexb { const char *p; size_t len; int ex, inf; } lexb;

/* One bound of Redis's zslParseRange: "(" for exclusive, then strtod of
 * the rest, which must end the string and not be NaN. */
static int parse_score_bound(const arg *a, double *v, int *ex) {
    char small[64];
    char *buf = a->len < sizeof small ? small : xmalloc(a->len + 1);
    memcpy(buf, a->p, a->len);
    buf[a->len] = '\0';
    char *p = buf, *end;
    *ex = 0;
    if (p[0] == '(') {
        p++;
        *ex = 1;
    }
    *v = strtod(p, &end);
    int ok = end[0] == '\0' && !isnan(*v);
    if (buf != small) free(buf);
    return ok;
}

static int parse_zspec(const arg *min, const arg *max, zspec *r) {
    return parse_score_bound(min, &r->min, &r->minex) && parse_score_bound(max, &r->max, &r->maxex);
}

static int parse_lex_bound(const arg *a, lexb *b) {
    b->p = NULL;
    b->len = 0;
    b->inf = 0;
    b->ex = 1;
    if (a->len == 0) return 0;
    switch (a->p[0]) {
    case '+': b->inf = 1; return a->len == 1;
    case '-': b->inf = -1; return a->len == 1;
    case '(': break;
    case '[': b->ex = 0; break;
    default: return 0;
    }
    b->p = a->p + 1;
    b->len = a->len - 1;
    return 1;
}

static int parse_lex(const arg *min, const arg *max, lexb *lo, lexb *hi) {
    return parse_lex_bound(min, lo) && parse_lex_bound(max, hi);
}

/* The ascending rank interval [*lo, *hi) of a score range. */
static void score_ranks(const obj *z, const zspec *r, uint64_t *lo, uint64_t *hi) {
    *lo = zset_rank_of_score(z, r->min, r->minex);
    *hi = zset_rank_of_score(z, r->max, !r->maxex);
    if (*hi < *lo) *hi = *lo;
}

static void lex_ranks(const obj *z, const lexb *min, const lexb *max, uint64_t *lo, uint64_t *hi) {
    uint64_t n = zset_len(z);
    *lo = min->inf < 0 ? 0 : min->inf > 0 ? n : zset_rank_of_lex(z, min->p, min->len, min->ex);
    *hi = max->inf > 0 ? n : max->inf < 0 ? 0 : zset_rank_of_lex(z, max->p, max->len, !max->ex);
    if (*hi < *lo) *hi = *lo;
}

/* Rank range [start, end] as Redis sanitizes it: 0 when empty, else the
 * ascending first rank and the count. */
static uint64_t rank_interval(long long start, long long end, uint64_t len, uint64_t *first) {
    long long llen = (long long)len;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) return 0;
    if (end >= llen) end = llen - 1;
    *first = (uint64_t)start;
    return (uint64_t)(end - start + 1);
}

/* The keyspace events of a zset change: `event`, then "del" when the
 * change emptied (and so deleted) the zset, as Redis. */
static void notify_zset(client *c, const char *event, const arg *k, int deleted) {
    notify_keyspace_event(NOTIFY_ZSET, event, k->p, k->len, c->db);
    if (deleted) notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
}

/* ---- ZADD ZINCRBY ---- */

enum { ZA_NX = 1, ZA_XX = 2, ZA_GT = 4, ZA_LT = 8, ZA_CH = 16, ZA_INCR = 32 };

/* One member as Redis's zsetAdd: 0 on a NaN result; else *added or *updated
 * counted, *done 1 unless nothing was done (NX/XX/GT/LT), *out the score.
 * With `dry` z is only read (what the member would do). */
static int zadd_one(obj *z, int fl, int dry, const arg *m, double s, long long *added,
                    long long *updated, int *done, double *out) {
    double cur;
    *done = 0;
    if (zset_score(z, m->p, m->len, &cur)) {
        if (fl & ZA_NX) return 1;
        if (fl & ZA_INCR) {
            s += cur;
            if (isnan(s)) return 0;
        }
        if (((fl & ZA_LT) && s >= cur) || ((fl & ZA_GT) && s <= cur)) return 1;
        *done = 1;
        *out = s;
        if (s != cur) {
            if (!dry) zset_set_known(z, m->p, m->len, 1, cur, s);
            (*updated)++;
        }
        return 1;
    }
    if (fl & ZA_XX) return 1;
    if (!dry) zset_set_known(z, m->p, m->len, 0, 0, s);
    (*added)++;
    *done = 1;
    *out = s;
    return 1;
}

static int zadd_flags(client *c, int *fl, int *idx) {
    int i = 2;
    for (; i < c->argc; i++) {
        const arg *a = &c->argv[i];
        if (arg_is(a, "nx")) *fl |= ZA_NX;
        else if (arg_is(a, "xx")) *fl |= ZA_XX;
        else if (arg_is(a, "ch")) *fl |= ZA_CH;
        else if (arg_is(a, "incr")) *fl |= ZA_INCR;
        else if (arg_is(a, "gt")) *fl |= ZA_GT;
        else if (arg_is(a, "lt")) *fl |= ZA_LT;
        else break;
    }
    *idx = i;
    int elements = c->argc - i;
    if (elements == 0 || elements % 2) {
        reply_syntax_error(c);
        return 0;
    }
    if ((*fl & ZA_NX) && (*fl & ZA_XX)) {
        reply_error(c, "ERR XX and NX options at the same time are not compatible");
        return 0;
    }
    if (((*fl & ZA_GT) && (*fl & ZA_NX)) || ((*fl & ZA_LT) && (*fl & ZA_NX)) ||
        ((*fl & ZA_GT) && (*fl & ZA_LT))) {
        reply_error(c, "ERR GT, LT, and/or NX options at the same time are not compatible");
        return 0;
    }
    if ((*fl & ZA_INCR) && elements > 2) {
        reply_error(c, "ERR INCR option supports a single increment-element pair");
        return 0;
    }
    return 1;
}

/* ZADD, and ZINCRBY (fl = ZA_INCR): Redis's zaddGenericCommand. */
static void zadd_generic(client *c, int fl) {
    int idx;
    if (!zadd_flags(c, &fl, &idx)) return;
    size_t n = (size_t)(c->argc - idx) / 2;
    double *scores = xmalloc(n * sizeof *scores);
    for (size_t j = 0; j < n; j++) {
        const arg *a = &c->argv[idx + 2 * (int)j];
        if (!zset_parse_double(a->p, a->len, &scores[j])) {
            reply_error(c, ERR_NOT_FLOAT);
            free(scores);
            return;
        }
    }
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_ZSET, DB_LOOKUP_WRITE, &wrong);
    long long added = 0, updated = 0, processed = 0;
    double score = 0;
    int nan = 0;
    if (wrong) goto out;
    for (size_t j = 0; e && j < n && !nan; j++) { /* first a dry run over the set */
        int done;
        if (!zadd_one(e->val, fl, 1, &c->argv[idx + 2 * (int)j + 1], scores[j], &added,
                      &updated, &done, &score))
            nan = 1;
        processed += done;
    }
    /* a write only when a member is added or changes score: else the key is
     * not touched (WATCH), as Redis signals it only then */
    int write = e ? added || updated : !(fl & ZA_XX);
    if (write) {
        added = updated = processed = 0;
        vt_wr w;
        int created;
        e = db_write(d, k->p, k->len, 1, &w, &created);
        if (created) vt_set_val(&w, e, zset_new());
        e->val = obj_coll_writable(e->val);
        for (size_t j = 0; j < n && !nan; j++) {
            int done;
            if (!zadd_one(e->val, fl, 0, &c->argv[idx + 2 * (int)j + 1], scores[j], &added,
                          &updated, &done, &score))
                nan = 1;
            processed += done;
        }
        vt_write_done(&w);
    }
    if (nan) {
        reply_error(c, ERR_NAN);
        goto out;
    }
    server_dirty(added + updated);
    if (added || updated) notify_zset(c, (fl & ZA_INCR) ? "zincr" : "zadd", k, 0);
    if (fl & ZA_INCR) {
        if (processed) reply_score(c, score);
        else reply_nil(c);
    } else {
        reply_int(c, (fl & ZA_CH) ? added + updated : added);
    }
out:
    free(scores);
}

void cmd_zadd(client *c) { zadd_generic(c, 0); }
void cmd_zincrby(client *c) { zadd_generic(c, ZA_INCR); }

/* ---- ZREM ZCARD ZSCORE ZMSCORE ZRANK ---- */

void cmd_zrem(client *c) {
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_ZSET, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    int first = 2; /* the first member present: none, no write (WATCH) */
    double score;
    while (e && first < c->argc &&
           !zset_score(e->val, c->argv[first].p, c->argv[first].len, &score))
        first++;
    if (!e || first == c->argc) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    int created;
    e = db_write(d, k->p, k->len, 0, &w, &created);
    e->val = obj_coll_writable(e->val);
    long long deleted = 0;
    for (int i = first; i < c->argc; i++) deleted += zset_rem(e->val, c->argv[i].p, c->argv[i].len);
    uint64_t left = zset_len(e->val);
    vt_write_done(&w);
    if (left == 0) db_delete(d, k->p, k->len);
    server_dirty(deleted);
    if (deleted) notify_zset(c, "zrem", k, left == 0);
    reply_int(c, deleted);
}

void cmd_zcard(client *c) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (!wrong) reply_int(c, z ? (long long)zset_len(z) : 0);
}

void cmd_zscore(client *c) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    double s;
    if (z && zset_score(z, c->argv[2].p, c->argv[2].len, &s)) reply_score(c, s);
    else reply_nil(c);
}

void cmd_zmscore(client *c) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    reply_array(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        double s;
        if (z && zset_score(z, c->argv[i].p, c->argv[i].len, &s)) reply_score(c, s);
        else reply_nil(c);
    }
}

static void zrank_generic(client *c, int rev) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    uint64_t r;
    if (z && zset_rank(z, c->argv[2].p, c->argv[2].len, &r, NULL))
        reply_int(c, (long long)(rev ? zset_len(z) - 1 - r : r));
    else
        reply_nil(c);
}

void cmd_zrank(client *c) { zrank_generic(c, 0); }
void cmd_zrevrank(client *c) { zrank_generic(c, 1); }

/* ---- ZCOUNT ZLEXCOUNT ---- */

void cmd_zcount(client *c) {
    zspec r;
    if (!parse_zspec(&c->argv[2], &c->argv[3], &r)) {
        reply_error(c, ERR_RANGE_FLOAT);
        return;
    }
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    uint64_t lo = 0, hi = 0;
    if (z) score_ranks(z, &r, &lo, &hi);
    reply_int(c, (long long)(hi - lo));
}

void cmd_zlexcount(client *c) {
    lexb min, max;
    if (!parse_lex(&c->argv[2], &c->argv[3], &min, &max)) {
        reply_error(c, ERR_RANGE_LEX);
        return;
    }
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    uint64_t lo = 0, hi = 0;
    if (z) lex_ranks(z, &min, &max, &lo, &hi);
    reply_int(c, (long long)(hi - lo));
}

/* ---- the ZRANGE family ---- */

enum { RT_AUTO, RT_RANK, RT_SCORE, RT_LEX };
enum { DIR_AUTO, DIR_FWD, DIR_REV };

/* Replies (or stores at dst) the n members from ascending rank first
 * (reverse: from rank first downward). z may be NULL when n is 0. */
static void range_emit(client *c, const obj *z, uint64_t first, uint64_t n, int reverse,
                       int withscores, const arg *dst, int len_known) {
    zset_iter it;
    if (n) zset_iter_at(&it, z, first, reverse);
    if (!dst) {
        if (withscores) reply_pairs(c, (long long)n);
        else reply_array(c, (long long)n);
        for (uint64_t i = 0; i < n; i++) {
            const char *m;
            size_t ml;
            double s;
            int ok = zset_iter_next(&it, &m, &ml, &s);
            assert(ok);
            (void)ok;
            if (withscores) reply_pair(c);
            reply_bulk(c, m, ml);
            if (withscores) reply_score(c, s);
        }
        return;
    }
    db *d = db_get(c->db);
    if (n == 0) {
        if (db_delete(d, dst->p, dst->len)) {
            server_dirty(1);
            notify_keyspace_event(NOTIFY_GENERIC, "del", dst->p, dst->len, c->db);
        }
        reply_int(c, 0);
        return;
    }
    /* Built member by member as Redis 7.0 does: big from the start when n
     * says so (a rank range: len_known; BYSCORE/BYLEX tell Redis no length),
     * else a listpack until it overflows (its -0 scores becoming 0). */
    obj *res = len_known && n > (uint64_t)server.cfg.zset_max_listpack_entries
                   ? zset_new_skiplist() : zset_new();
    for (uint64_t i = 0; i < n; i++) {
        const char *m;
        size_t ml;
        double s;
        int ok = zset_iter_next(&it, &m, &ml, &s);
        assert(ok);
        (void)ok;
        zset_set(res, m, ml, s);
    }
    db_set(d, dst->p, dst->len, res, VT_NO_EXPIRE);
    server_dirty(1);
    notify_zset(c, "zrangestore", dst, 0);
    reply_int(c, (long long)n);
}

typedef struct zrange_opts {
    int withscores, rangetype, direction;
    long long offset, limit;
} zrange_opts;

static int zrange_parse_opts(client *c, int from, int store, zrange_opts *o) {
    for (int j = from; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const arg *a = &c->argv[j];
        if (!store && arg_is(a, "withscores")) {
            o->withscores = 1;
        } else if (arg_is(a, "limit") && left >= 2) {
            if (!arg_ll(c, &c->argv[j + 1], &o->offset) || !arg_ll(c, &c->argv[j + 2], &o->limit))
                return 0;
            j += 2;
        } else if (o->direction == DIR_AUTO && arg_is(a, "rev")) {
            o->direction = DIR_REV;
        } else if (o->rangetype == RT_AUTO && arg_is(a, "bylex")) {
            o->rangetype = RT_LEX;
        } else if (o->rangetype == RT_AUTO && arg_is(a, "byscore")) {
            o->rangetype = RT_SCORE;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    if (o->direction == DIR_AUTO) o->direction = DIR_FWD;
    if (o->rangetype == RT_AUTO) o->rangetype = RT_RANK;
    if (o->limit != -1 && o->rangetype == RT_RANK) {
        reply_error(c, "ERR syntax error, LIMIT is only supported in combination with either "
                       "BYSCORE or BYLEX");
        return 0;
    }
    if (o->withscores && o->rangetype == RT_LEX) {
        reply_error(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX");
        return 0;
    }
    return 1;
}

/* Redis's zrangeGenericCommand: key at argv[ki], then min and max. */
static void zrange_generic(client *c, int ki, const arg *dst, int rangetype, int direction) {
    zrange_opts o = {0, rangetype, direction, 0, -1};
    if (!zrange_parse_opts(c, ki + 3, dst != NULL, &o)) return;
    int rev = o.direction == DIR_REV;
    const arg *mina = &c->argv[ki + 1], *maxa = &c->argv[ki + 2];
    if (rev && o.rangetype != RT_RANK) {
        const arg *t = mina;
        mina = maxa;
        maxa = t;
    }
    long long start = 0, end = 0;
    zspec sr;
    lexb lmin, lmax;
    switch (o.rangetype) {
    case RT_RANK:
        if (!arg_ll(c, mina, &start) || !arg_ll(c, maxa, &end)) return;
        break;
    case RT_SCORE:
        if (!parse_zspec(mina, maxa, &sr)) {
            reply_error(c, ERR_RANGE_FLOAT);
            return;
        }
        break;
    default:
        if (!parse_lex(mina, maxa, &lmin, &lmax)) {
            reply_error(c, ERR_RANGE_LEX);
            return;
        }
        break;
    }
    int wrong;
    const obj *z = zread(c, &c->argv[ki], &wrong);
    if (wrong) return;
    uint64_t first = 0, n = 0;
    if (z && o.rangetype == RT_RANK) {
        n = rank_interval(start, end, zset_len(z), &first);
        if (rev && n) first = zset_len(z) - 1 - first;
    } else if (z) {
        uint64_t lo, hi;
        if (o.rangetype == RT_SCORE) score_ranks(z, &sr, &lo, &hi);
        else lex_ranks(z, &lmin, &lmax, &lo, &hi);
        uint64_t total = hi - lo;
        if (o.offset >= 0 && (uint64_t)o.offset < total) {
            n = total - (uint64_t)o.offset;
            if (o.limit >= 0 && (uint64_t)o.limit < n) n = (uint64_t)o.limit;
            first = rev ? hi - 1 - (uint64_t)o.offset : lo + (uint64_t)o.offset;
        }
    }
    range_emit(c, z, first, n, rev, o.withscores, dst, o.rangetype == RT_RANK);
}

void cmd_zrange(client *c) { zrange_generic(c, 1, NULL, RT_AUTO, DIR_AUTO); }
void cmd_zrangestore(client *c) { zrange_generic(c, 2, &c->argv[1], RT_AUTO, DIR_AUTO); }
void cmd_zrevrange(client *c) { zrange_generic(c, 1, NULL, RT_RANK, DIR_REV); }
void cmd_zrangebyscore(client *c) { zrange_generic(c, 1, NULL, RT_SCORE, DIR_FWD); }
void cmd_zrevrangebyscore(client *c) { zrange_generic(c, 1, NULL, RT_SCORE, DIR_REV); }
void cmd_zrangebylex(client *c) { zrange_generic(c, 1, NULL, RT_LEX, DIR_FWD); }
void cmd_zrevrangebylex(client *c) { zrange_generic(c, 1, NULL, RT_LEX, DIR_REV); }

/* ---- ZREMRANGEBY* ---- */

/* Deletes ascending ranks [first, first + n) of key's zset (present). */
static void zdelete_ranks(client *c, const arg *k, uint64_t first, uint64_t n,
                          const char *event) {
    db *d = db_get(c->db);
    if (n) {
        vt_wr w;
        int created;
        vt_entry *e = db_write(d, k->p, k->len, 0, &w, &created);
        e->val = obj_coll_writable(e->val);
        zset_delete_range(e->val, first, n);
        uint64_t left = zset_len(e->val);
        vt_write_done(&w);
        if (left == 0) db_delete(d, k->p, k->len);
        server_dirty((long long)n);
        notify_zset(c, event, k, left == 0);
    }
    reply_int(c, (long long)n);
}

static void zremrange_generic(client *c, int rangetype) {
    long long start = 0, end = 0;
    zspec sr;
    lexb lmin, lmax;
    if (rangetype == RT_RANK) {
        if (!arg_ll(c, &c->argv[2], &start) || !arg_ll(c, &c->argv[3], &end)) return;
    } else if (rangetype == RT_SCORE) {
        if (!parse_zspec(&c->argv[2], &c->argv[3], &sr)) {
            reply_error(c, ERR_RANGE_FLOAT);
            return;
        }
    } else if (!parse_lex(&c->argv[2], &c->argv[3], &lmin, &lmax)) {
        reply_error(c, ERR_RANGE_LEX);
        return;
    }
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_ZSET, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    uint64_t first = 0, n = 0, lo, hi;
    if (rangetype == RT_RANK) {
        n = rank_interval(start, end, zset_len(e->val), &first);
    } else {
        if (rangetype == RT_SCORE) score_ranks(e->val, &sr, &lo, &hi);
        else lex_ranks(e->val, &lmin, &lmax, &lo, &hi);
        first = lo;
        n = hi - lo;
    }
    static const char *const events[] = {
        [RT_RANK] = "zremrangebyrank", [RT_SCORE] = "zremrangebyscore", [RT_LEX] = "zremrangebylex"};
    zdelete_ranks(c, k, first, n, events[rangetype]);
}

void cmd_zremrangebyrank(client *c) { zremrange_generic(c, RT_RANK); }
void cmd_zremrangebyscore(client *c) { zremrange_generic(c, RT_SCORE); }
void cmd_zremrangebylex(client *c) { zremrange_generic(c, RT_LEX); }

/* ---- ZPOPMIN ZPOPMAX ZMPOP and the blocking forms ---- */

enum { POP_FLAT, POP_PAIRS, POP_KEYED, POP_NESTED };

/* Pops up to count members of the non-empty zset at key (the minimums, or
 * the maximums when max) and replies: POP_FLAT member score ... (ZPOPMIN
 * key), POP_PAIRS the same as pairs (ZPOPMIN key count: nested in RESP3), POP_KEYED
 * key member score ... (BZPOPMIN), POP_NESTED key [[member score] ...]
 * (ZMPOP). The reply is written from the tree before the write. Returns
 * the number of members popped. */
static uint64_t zpop_key(client *c, const arg *k, const obj *z, int max, uint64_t count,
                         int mode) {
    uint64_t len = zset_len(z), n = count < len ? count : len;
    if (mode == POP_FLAT) {
        reply_array(c, (long long)(2 * n));
    } else if (mode == POP_PAIRS) {
        reply_pairs(c, (long long)n);
    } else if (mode == POP_KEYED) {
        reply_array(c, (long long)(2 * n + 1));
        reply_bulk(c, k->p, k->len);
    } else {
        reply_array(c, 2);
        reply_bulk(c, k->p, k->len);
        reply_array(c, (long long)n);
    }
    zset_iter it;
    zset_iter_at(&it, z, max ? len - 1 : 0, max);
    for (uint64_t i = 0; i < n; i++) {
        const char *m;
        size_t ml;
        double s;
        int ok = zset_iter_next(&it, &m, &ml, &s);
        assert(ok);
        (void)ok;
        if (mode == POP_NESTED) reply_array(c, 2);
        else if (mode == POP_PAIRS) reply_pair(c);
        reply_bulk(c, m, ml);
        reply_score(c, s);
    }
    db *d = db_get(c->db);
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 0, &w, &created);
    e->val = obj_coll_writable(e->val);
    zset_delete_range(e->val, max ? len - n : 0, n);
    vt_write_done(&w);
    if (n == len) db_delete(d, k->p, k->len);
    server_dirty((long long)n);
    if (n) notify_zset(c, max ? "zpopmax" : "zpopmin", k, n == len);
    return n;
}

/* What ZMPOP and BZMPOP (count >= 0) and BZPOPMIN/MAX (count -1) leave in
 * the AOF and the replicas' stream, as Redis 7.0: ZPOPMIN/ZPOPMAX key, with
 * the count of members popped for the *MPOP forms. */
static void zpop_propagate(client *c, const arg *k, int max, long long count, uint64_t popped) {
    char nbuf[OBJ_INTBUF];
    int nl = snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)popped);
    arg v[3] = {{max ? "ZPOPMAX" : "ZPOPMIN", 7}, *k, {nbuf, (size_t)nl}};
    cmd_propagate(c, count < 0 ? 2 : 3, v);
}

static void zpop_cmd(client *c, int max) {
    if (c->argc > 3) {
        reply_syntax_error(c);
        return;
    }
    long long count = 1;
    if (c->argc == 3) {
        if (!str_to_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0) {
            reply_error(c, "ERR value is out of range, must be positive");
            return;
        }
    }
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_ZSET,
                                  DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e || count == 0) {
        reply_array(c, 0);
        return;
    }
    zpop_key(c, &c->argv[1], e->val, max, (uint64_t)count, c->argc == 3 ? POP_PAIRS : POP_FLAT);
}

void cmd_zpopmin(client *c) { zpop_cmd(c, 0); }
void cmd_zpopmax(client *c) { zpop_cmd(c, 1); }

/* The first key of keys[0..n) holding a non-empty zset: its index, -1 when
 * none, -2 when a key of another type came first (WRONGTYPE answered). */
static int first_zset(client *c, const arg *keys, int n, const obj **z) {
    db *d = db_get(c->db);
    for (int i = 0; i < n; i++) {
        int wrong;
        vt_entry *e = db_lookup_typed(c, d, keys[i].p, keys[i].len, OBJ_ZSET, DB_LOOKUP_WRITE, &wrong);
        if (wrong) return -2;
        if (e) {
            *z = e->val;
            return i;
        }
    }
    return -1;
}

void cmd_zmpop(client *c) {
    int nkeys, max;
    long long count;
    if (!arg_mpop(c, 1, "min", "max", &nkeys, &max, &count)) return;
    const obj *z = NULL;
    int i = first_zset(c, &c->argv[2], nkeys, &z);
    if (i == -2) return;
    if (i < 0) {
        reply_nil_array(c);
        return;
    }
    const arg *k = &c->argv[2 + i];
    zpop_propagate(c, k, max, count, zpop_key(c, k, z, max, (uint64_t)count, POP_NESTED));
}

/* BZPOPMIN BZPOPMAX (count -1) and BZMPOP: pops at once from the first
 * non-empty key and propagates the non-blocking form (zpop_propagate);
 * else blocks. */
static void bzpop_generic(client *c, const arg *keys, int nkeys, const arg *timeout, int max,
                          long long count) {
    int64_t deadline;
    if (!block_parse_timeout(c, timeout, &deadline)) return;
    const obj *z = NULL;
    int i = first_zset(c, keys, nkeys, &z);
    if (i == -2) return;
    if (i >= 0) {
        const arg *k = &keys[i];
        uint64_t n = zpop_key(c, k, z, max, count < 0 ? 1 : (uint64_t)count,
                              count < 0 ? POP_KEYED : POP_NESTED);
        zpop_propagate(c, k, max, count, n);
        return;
    }
    if (!block_allowed(c)) {
        reply_nil_array(c);
        return;
    }
    block_on_keys(c, keys, nkeys, deadline, BLOCK_NIL_ARRAY);
}

void cmd_bzpopmin(client *c) {
    bzpop_generic(c, &c->argv[1], c->argc - 2, &c->argv[c->argc - 1], 0, -1);
}

void cmd_bzpopmax(client *c) {
    bzpop_generic(c, &c->argv[1], c->argc - 2, &c->argv[c->argc - 1], 1, -1);
}

void cmd_bzmpop(client *c) {
    int nkeys, max;
    long long count;
    if (!arg_mpop(c, 2, "min", "max", &nkeys, &max, &count)) return;
    bzpop_generic(c, &c->argv[3], nkeys, &c->argv[1], max, count);
}
