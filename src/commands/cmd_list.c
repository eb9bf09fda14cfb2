/* cmd_list: the list commands (LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP LLEN
 * LINDEX LSET LINSERT LRANGE LREM LTRIM LPOS LMOVE RPOPLPUSH LMPOP) and the
 * blocking ones (BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP), with Redis 7.0's
 * replies, error texts, argument checking order and propagation.
 *
 * Values are t_list objs. Reads go through db_lookup_typed and read the
 * tree; replies are written before the write that follows them (an element
 * pointer stays valid until that write). Writes follow the collections'
 * pattern: db_write, obj_coll_writable, the O(log n) tree change,
 * vt_write_done, then db_delete when the list became empty (Redis deletes
 * empty lists). Scans (LREM, LINSERT's pivot) run before the write begins,
 * so a save never waits for more than the tree changes.
 *
 * Blocking commands serve at once when a list has data and then propagate
 * their non-blocking form as Redis 7.0 does (BLPOP -> LPOP key, BLMOVE ->
 * LMOVE, BRPOPLPUSH -> RPOPLPUSH, BLMPOP/LMPOP -> LPOP/RPOP key count);
 * otherwise they block through blocking.h, which runs them again when a
 * key they wait for is created. Main thread only. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "resp.h"
#include "t_list.h"
#include "util.h"

#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* ---- helpers ---- */

/* The list at k (WRONGTYPE replied and *wrong set when another type). */
static vt_entry *lookup(client *c, const arg *k, int read, int *wrong) {
    return db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_LIST, read, wrong);
}

/* Begins a write to the list at k: the writable list, creating it when
 * `create` (NULL when absent and !create). End with write_end. The
 * commands look a key up before writing it; a key with an expire time can
 * pass it in between (a millisecond boundary), so a write without `create`
 * may find nothing: the command then acts as if the key was gone. */
static obj *write_begin(client *c, const arg *k, int create, vt_wr *w, vt_entry **ep) {
    int created;
    vt_entry *e = db_write(db_get(c->db), k->p, k->len, create, w, &created);
    if (!e) return NULL;
    if (created) vt_set_val(w, e, list_new());
    e->val = obj_coll_writable(e->val);
    *ep = e;
    return e->val;
}

/* Ends a write; deletes the key when its list is now empty (1 then). */
static int write_end(client *c, const arg *k, vt_wr *w, vt_entry *e) {
    int empty = list_len(e->val) == 0;
    vt_write_done(w);
    if (empty) db_delete(db_get(c->db), k->p, k->len);
    return empty;
}

/* The keyspace events of a list change: `event`, then "del" when the
 * change emptied (and so deleted) the list, as Redis. */
static void notify_list(client *c, const char *event, const arg *k, int deleted) {
    notify_keyspace_event(NOTIFY_LIST, event, k->p, k->len, c->db);
    if (deleted) notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
}

static const char *pop_event(int where) { return where == LIST_HEAD ? "lpop" : "rpop"; }
static const char *push_event(int where) { return where == LIST_HEAD ? "lpush" : "rpush"; }

/* Deletes n elements at an end of the list at k (which exists). */
static void pop_n(client *c, const arg *k, int where, uint64_t n) {
    vt_wr w;
    vt_entry *e;
    obj *l = write_begin(c, k, 0, &w, &e);
    if (!l) return;
    list_pop(l, where, n);
    int deleted = write_end(c, k, &w, e);
    server_dirty((long long)n);
    notify_list(c, pop_event(where), k, deleted);
}

/* An integer argument >= min, else the error msg (also for a non-integer),
 * as Redis's getRangeLongFromObjectOrReply with a message. */
static int arg_ll_min(client *c, const arg *a, long long min, const char *msg, long long *out) {
    if (!str_to_ll(a->p, a->len, out) || *out < min) {
        reply_error(c, msg);
        return 0;
    }
    return 1;
}

/* LEFT / RIGHT, else a syntax error. */
static int arg_side(client *c, const arg *a, int *where) {
    if (arg_is(a, "left")) *where = LIST_HEAD;
    else if (arg_is(a, "right")) *where = LIST_TAIL;
    else {
        reply_syntax_error(c);
        return 0;
    }
    return 1;
}

/* Replies n elements from rank, towards the tail or (reverse) the head. */
static void reply_range(client *c, const obj *l, uint64_t rank, uint64_t n, int reverse) {
    list_iter it;
    const char *p;
    size_t len;
    reply_array(c, (long long)n);
    list_iter_init_at(&it, l, rank, reverse);
    for (uint64_t i = 0; i < n; i++) {
        int ok = list_iter_next(&it, &p, &len);
        (void)ok;
        reply_bulk(c, p, len);
    }
}

/* Replies the first n (capped) elements at an end, in popping order, and
 * returns how many. */
static uint64_t reply_end(client *c, const obj *l, int where, uint64_t n) {
    uint64_t len = list_len(l);
    if (n > len) n = len;
    if (where == LIST_HEAD) reply_range(c, l, 0, n, 0);
    else reply_range(c, l, len - 1, n, 1);
    return n;
}

/* Redis's range rule (LRANGE, LTRIM): negative indexes from the tail,
 * start clamped to 0, end to len - 1. 1 and *rank, *n when not empty. */
static int norm_range(long long start, long long end, uint64_t len, uint64_t *rank, uint64_t *n) {
    long long llen = (long long)len;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) return 0;
    if (end >= llen) end = llen - 1;
    *rank = (uint64_t)start;
    *n = (uint64_t)(end - start) + 1;
    return 1;
}

static void propagate_pop(client *c, int where, const arg *k, uint64_t count, int with_count) {
    char buf[32];
    arg v[3] = {{where == LIST_HEAD ? "LPOP" : "RPOP", 4}, *k, {buf, 0}};
    if (with_count) v[2].len = ll_to_str(buf, (long long)count);
    cmd_propagate(c, with_count ? 3 : 2, v);
}

/* ---- push ---- */

static void push_generic(client *c, int where, int xx) {
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e && xx) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    obj *l = write_begin(c, k, 1, &w, &e);
    for (int j = 2; j < c->argc; j++) list_push(l, where, c->argv[j].p, c->argv[j].len);
    uint64_t len = list_len(l);
    vt_write_done(&w);
    server_dirty(c->argc - 2);
    notify_list(c, push_event(where), k, 0);
    reply_int(c, (long long)len);
}

void cmd_lpush(client *c) { push_generic(c, LIST_HEAD, 0); }
void cmd_rpush(client *c) { push_generic(c, LIST_TAIL, 0); }
void cmd_lpushx(client *c) { push_generic(c, LIST_HEAD, 1); }
void cmd_rpushx(client *c) { push_generic(c, LIST_TAIL, 1); }

/* ---- pop ---- */

static void pop_generic(client *c, int where) {
    if (c->argc > 3) {
        reply_wrong_args(c);
        return;
    }
    int hascount = c->argc == 3;
    long long count = 0;
    if (hascount && !arg_ll_min(c, &c->argv[2], 0, ERR_POSITIVE, &count)) return;
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        if (hascount) reply_nil_array(c);
        else reply_nil(c);
        return;
    }
    if (hascount && count == 0) {
        reply_array(c, 0);
        return;
    }
    uint64_t n = 1;
    if (!hascount) {
        const char *p;
        size_t len;
        int ok = list_index(e->val, where == LIST_HEAD ? 0 : -1, &p, &len);
        (void)ok;
        reply_bulk(c, p, len);
    } else {
        n = reply_end(c, e->val, where, (uint64_t)count);
    }
    pop_n(c, k, where, n);
}

void cmd_lpop(client *c) { pop_generic(c, LIST_HEAD); }
void cmd_rpop(client *c) { pop_generic(c, LIST_TAIL); }

/* ---- reads: LLEN LINDEX LRANGE LPOS ---- */

void cmd_llen(client *c) {
    int wrong;
    vt_entry *e = lookup(c, &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    reply_int(c, e ? (long long)list_len(e->val) : 0);
}

void cmd_lindex(client *c) {
    int wrong;
    vt_entry *e = lookup(c, &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) {
        reply_nil(c);
        return;
    }
    long long index;
    if (!arg_ll(c, &c->argv[2], &index)) return;
    const char *p;
    size_t n;
    if (list_index(e->val, index, &p, &n)) reply_bulk(c, p, n);
    else reply_nil(c);
}

void cmd_lrange(client *c) {
    long long start, end;
    if (!arg_ll(c, &c->argv[2], &start) || !arg_ll(c, &c->argv[3], &end)) return;
    int wrong;
    vt_entry *e = lookup(c, &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    uint64_t rank, n;
    if (!e || !norm_range(start, end, list_len(e->val), &rank, &n)) {
        reply_array(c, 0);
        return;
    }
    reply_range(c, e->val, rank, n, 0);
}

typedef struct lpos_opts {
    long long rank, count, maxlen; /* count -1: not given */
} lpos_opts;

static int lpos_parse(client *c, lpos_opts *o) {
    o->rank = 1;
    o->count = -1;
    o->maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        int more = j + 1 < c->argc;
        if (arg_is(a, "rank") && more) {
            if (!arg_ll(c, &c->argv[++j], &o->rank)) return 0;
            if (o->rank == 0) {
                reply_error(c, "ERR RANK can't be zero: use 1 to start from the first match, "
                               "2 from the second ... or use negative to start from the end "
                               "of the list");
                return 0;
            }
        } else if (arg_is(a, "count") && more) {
            if (!arg_ll_min(c, &c->argv[++j], 0, "ERR COUNT can't be negative", &o->count))
                return 0;
        } else if (arg_is(a, "maxlen") && more) {
            if (!arg_ll_min(c, &c->argv[++j], 0, "ERR MAXLEN can't be negative", &o->maxlen))
                return 0;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

void cmd_lpos(client *c) {
    lpos_opts o;
    if (!lpos_parse(c, &o)) return;
    int reverse = o.rank < 0;
    /* |rank|. LLONG_MIN has none: Redis 7.0 negates it in place, where it
     * stays negative, so every match from the tail qualifies and COUNT
     * never stops the walk (its test overflows too); verso does the same. */
    int rank_min = o.rank == LLONG_MIN;
    long long rank = !reverse ? o.rank : rank_min ? 1 : -o.rank;
    int wrong;
    vt_entry *e = lookup(c, &c->argv[1], DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) {
        if (o.count != -1) reply_array(c, 0);
        else reply_nil(c);
        return;
    }
    const arg *ele = &c->argv[2];
    uint64_t len = list_len(e->val), index = 0;
    long long matches = 0;
    long long *found = NULL;
    size_t nfound = 0, cap = 0;
    list_iter it;
    const char *p;
    size_t n;
    list_iter_init_at(&it, e->val, reverse ? len - 1 : 0, reverse);
    while ((o.maxlen == 0 || index < (uint64_t)o.maxlen) && list_iter_next(&it, &p, &n)) {
        if (n == ele->len && (n == 0 || memcmp(p, ele->p, n) == 0) && ++matches >= rank) {
            if (nfound == cap) {
                cap = cap ? cap * 2 : 16;
                found = xrealloc(found, cap * sizeof *found);
            }
            found[nfound++] = (long long)(reverse ? len - index - 1 : index);
            if (o.count == -1 || (!rank_min && o.count && (long long)nfound >= o.count)) break;
        }
        index++;
    }
    if (o.count != -1) {
        reply_array(c, (long long)nfound);
        for (size_t i = 0; i < nfound; i++) reply_int(c, found[i]);
    } else if (nfound) {
        reply_int(c, found[0]);
    } else {
        reply_nil(c);
    }
    free(found);
}

/* ---- in-place writes: LSET LINSERT LREM LTRIM ---- */

void cmd_lset(client *c) {
    const arg *k = &c->argv[1], *v = &c->argv[3];
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    long long index;
    uint64_t rank;
    if (!arg_ll(c, &c->argv[2], &index)) return;
    if (!list_rank(e->val, index, &rank)) {
        reply_error(c, "ERR index out of range");
        return;
    }
    vt_wr w;
    obj *l = write_begin(c, k, 0, &w, &e);
    if (!l) {
        reply_error(c, "ERR no such key");
        return;
    }
    list_set(l, (long long)rank, v->p, v->len);
    vt_write_done(&w);
    server_dirty(1);
    notify_list(c, "lset", k, 0);
    reply_ok(c);
}

void cmd_linsert(client *c) {
    int after;
    if (arg_is(&c->argv[2], "after")) after = 1;
    else if (arg_is(&c->argv[2], "before")) after = 0;
    else {
        reply_syntax_error(c);
        return;
    }
    const arg *k = &c->argv[1], *pivot = &c->argv[3], *v = &c->argv[4];
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    uint64_t rank;
    if (!list_find(e->val, pivot->p, pivot->len, &rank)) {
        reply_int(c, -1);
        return;
    }
    vt_wr w;
    obj *l = write_begin(c, k, 0, &w, &e);
    if (!l) {
        reply_int(c, 0);
        return;
    }
    list_insert(l, rank + (uint64_t)after, v->p, v->len);
    uint64_t len = list_len(l);
    vt_write_done(&w);
    server_dirty(1);
    notify_list(c, "linsert", k, 0);
    reply_int(c, (long long)len);
}

/* A run of consecutive ranks to delete. */
typedef struct rem_run { uint64_t rank, n; } rem_run;

void cmd_lrem(client *c) {
    const arg *k = &c->argv[1], *ele = &c->argv[3];
    long long count;
    if (!arg_ll(c, &c->argv[2], &count)) return;
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    int reverse = count < 0;
    uint64_t limit = !reverse ? (uint64_t)count : (uint64_t)(-(count + 1)) + 1;
    uint64_t len = list_len(e->val), removed = 0, index = 0;
    rem_run *runs = NULL;
    size_t nruns = 0, cap = 0;
    list_iter it;
    const char *p;
    size_t n;
    list_iter_init_at(&it, e->val, reverse ? len - 1 : 0, reverse);
    while ((limit == 0 || removed < limit) && list_iter_next(&it, &p, &n)) {
        uint64_t rank = reverse ? len - index - 1 : index;
        index++;
        if (n != ele->len || (n && memcmp(p, ele->p, n) != 0)) continue;
        removed++;
        /* runs are kept in scan order; each extends towards the scan */
        rem_run *last = nruns ? &runs[nruns - 1] : NULL;
        if (last && !reverse && last->rank + last->n == rank) {
            last->n++;
        } else if (last && reverse && last->rank == rank + 1) {
            last->rank--;
            last->n++;
        } else {
            if (nruns == cap) {
                cap = cap ? cap * 2 : 16;
                runs = xrealloc(runs, cap * sizeof *runs);
            }
            runs[nruns++] = (rem_run){rank, 1};
        }
    }
    if (removed) {
        vt_wr w;
        obj *l = write_begin(c, k, 0, &w, &e);
        if (l) {
            /* from the highest ranks down, so that the others stay put */
            for (size_t i = 0; i < nruns; i++) {
                const rem_run *r = &runs[reverse ? i : nruns - 1 - i];
                list_del_range(l, r->rank, r->n);
            }
            int deleted = write_end(c, k, &w, e);
            server_dirty((long long)removed);
            notify_list(c, "lrem", k, deleted);
        } else {
            removed = 0;
        }
    }
    free(runs);
    reply_int(c, (long long)removed);
}

void cmd_ltrim(client *c) {
    const arg *k = &c->argv[1];
    long long start, end;
    if (!arg_ll(c, &c->argv[2], &start) || !arg_ll(c, &c->argv[3], &end)) return;
    int wrong;
    vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (!e) {
        reply_ok(c);
        return;
    }
    uint64_t len = list_len(e->val), rank, n;
    if (!norm_range(start, end, len, &rank, &n)) {
        rank = len;
        n = 0;
    }
    uint64_t rtrim = len - rank - n;
    /* Redis signals the key (WATCH) even when nothing is trimmed: write */
    vt_wr w;
    obj *l = write_begin(c, k, 0, &w, &e);
    if (!l) {
        reply_ok(c);
        return;
    }
    list_del_range(l, rank + n, rtrim);
    list_del_range(l, 0, rank);
    int deleted = write_end(c, k, &w, e);
    server_dirty((long long)(rank + rtrim));
    notify_list(c, "ltrim", k, deleted);
    reply_ok(c);
}

/* ---- LMOVE RPOPLPUSH LMPOP ---- */

enum { MOVE_DONE = 0, MOVE_NOSRC = 1, MOVE_ERR = 2 };

/* Moves an element from src's end `from` to dst's end `to` and replies it
 * (src == dst rotates the list). MOVE_NOSRC when src is absent (nothing
 * replied), MOVE_ERR after a WRONGTYPE reply. */
static int move_elem(client *c, const arg *src, const arg *dst, int from, int to) {
    int wrong;
    vt_entry *se = lookup(c, src, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return MOVE_ERR;
    if (!se) return MOVE_NOSRC;
    if (!lookup(c, dst, DB_LOOKUP_WRITE, &wrong) && wrong) return MOVE_ERR;
    const char *p;
    size_t n;
    int ok = list_index(se->val, from == LIST_HEAD ? 0 : -1, &p, &n);
    (void)ok;
    char *copy = xmalloc(n ? n : 1);
    memcpy(copy, p, n);
    vt_wr w;
    vt_entry *e;
    obj *l = write_begin(c, src, 0, &w, &e);
    if (!l) {
        free(copy);
        return MOVE_NOSRC;
    }
    list_pop(l, from, 1);
    int deleted = 0;
    if (src->len == dst->len && memcmp(src->p, dst->p, src->len) == 0) {
        list_push(l, to, copy, n);
        vt_write_done(&w);
    } else {
        deleted = write_end(c, src, &w, e);
        l = write_begin(c, dst, 1, &w, &e);
        list_push(l, to, copy, n);
        vt_write_done(&w);
    }
    server_dirty(1);
    /* Redis's order: the push on dst, then the pop on src */
    notify_list(c, push_event(to), dst, 0);
    notify_list(c, pop_event(from), src, deleted);
    reply_bulk(c, copy, n);
    free(copy);
    return MOVE_DONE;
}

void cmd_lmove(client *c) {
    int from, to;
    if (!arg_side(c, &c->argv[3], &from) || !arg_side(c, &c->argv[4], &to)) return;
    if (move_elem(c, &c->argv[1], &c->argv[2], from, to) == MOVE_NOSRC) reply_nil(c);
}

void cmd_rpoplpush(client *c) {
    if (move_elem(c, &c->argv[1], &c->argv[2], LIST_TAIL, LIST_HEAD) == MOVE_NOSRC)
        reply_nil(c);
}

/* Pops up to count elements from the first non-empty list of keys, replies
 * [key, [elements]] and propagates [LR]POP key n. 1 when it replied
 * (served or WRONGTYPE), 0 when every list is empty (nothing replied). */
static int mpop_try(client *c, const arg *keys, int nkeys, int where, long long count) {
    for (int j = 0; j < nkeys; j++) {
        int wrong;
        vt_entry *e = lookup(c, &keys[j], DB_LOOKUP_WRITE, &wrong);
        if (wrong) return 1;
        if (!e) continue;
        reply_array(c, 2);
        reply_bulk(c, keys[j].p, keys[j].len);
        uint64_t n = reply_end(c, e->val, where, (uint64_t)count);
        pop_n(c, &keys[j], where, n);
        propagate_pop(c, where, &keys[j], n, 1);
        return 1;
    }
    return 0;
}

/* LMPOP / BLMPOP's arguments from numkeys at argv[idx] (LEFT is
 * LIST_HEAD, RIGHT LIST_TAIL). */
static int mpop_parse(client *c, int idx, int *nkeys, int *where, long long *count) {
    _Static_assert(LIST_HEAD == 0 && LIST_TAIL == 1, "arg_mpop's 0 / 1");
    return arg_mpop(c, idx, "left", "right", nkeys, where, count);
}

void cmd_lmpop(client *c) {
    int nkeys, where;
    long long count;
    if (!mpop_parse(c, 1, &nkeys, &where, &count)) return;
    if (!mpop_try(c, &c->argv[2], nkeys, where, count)) reply_nil_array(c);
}

/* ---- blocking ---- */

static void bpop_generic(client *c, int where) {
    int64_t deadline;
    if (!block_parse_timeout(c, &c->argv[c->argc - 1], &deadline)) return;
    for (int j = 1; j < c->argc - 1; j++) {
        const arg *k = &c->argv[j];
        int wrong;
        vt_entry *e = lookup(c, k, DB_LOOKUP_WRITE, &wrong);
        if (wrong) return;
        if (!e) continue;
        const char *p;
        size_t n;
        int ok = list_index(e->val, where == LIST_HEAD ? 0 : -1, &p, &n);
        (void)ok;
        reply_array(c, 2);
        reply_bulk(c, k->p, k->len);
        reply_bulk(c, p, n);
        pop_n(c, k, where, 1);
        propagate_pop(c, where, k, 1, 0);
        return;
    }
    if (block_allowed(c)) block_on_keys(c, &c->argv[1], c->argc - 2, deadline, BLOCK_NIL_ARRAY);
    else reply_nil_array(c);
}

void cmd_blpop(client *c) { bpop_generic(c, LIST_HEAD); }
void cmd_brpop(client *c) { bpop_generic(c, LIST_TAIL); }

/* BLMOVE / BRPOPLPUSH: an LMOVE when src has data (propagated as `as`:
 * LMOVE with the sides, or RPOPLPUSH), else block on src. */
static void bmove_generic(client *c, int from, int to, const arg *timeout, int as_lmove) {
    int64_t deadline;
    if (!block_parse_timeout(c, timeout, &deadline)) return;
    const arg *src = &c->argv[1], *dst = &c->argv[2];
    int r = move_elem(c, src, dst, from, to);
    if (r == MOVE_DONE) {
        arg v[5] = {{"LMOVE", 5}, *src, *dst, {NULL, 0}, {NULL, 0}};
        if (as_lmove) {
            v[3] = c->argv[3];
            v[4] = c->argv[4];
            cmd_propagate(c, 5, v);
        } else {
            v[0] = (arg){"RPOPLPUSH", 9};
            cmd_propagate(c, 3, v);
        }
    } else if (r == MOVE_NOSRC) {
        if (block_allowed(c)) block_on_keys(c, src, 1, deadline, BLOCK_NIL_BULK);
        else reply_nil(c);
    }
}

void cmd_blmove(client *c) {
    int from, to;
    if (!arg_side(c, &c->argv[3], &from) || !arg_side(c, &c->argv[4], &to)) return;
    bmove_generic(c, from, to, &c->argv[5], 1);
}

void cmd_brpoplpush(client *c) { bmove_generic(c, LIST_TAIL, LIST_HEAD, &c->argv[3], 0); }

void cmd_blmpop(client *c) {
    int nkeys, where;
    long long count;
    if (!mpop_parse(c, 2, &nkeys, &where, &count)) return;
    int64_t deadline;
    if (!block_parse_timeout(c, &c->argv[1], &deadline)) return;
    if (mpop_try(c, &c->argv[3], nkeys, where, count)) return;
    if (block_allowed(c)) block_on_keys(c, &c->argv[3], nkeys, deadline, BLOCK_NIL_ARRAY);
    else reply_nil_array(c);
}
