/* cmd_sort: SORT and SORT_RO (see cmd_sort.h). Main thread only. */
#include "cmd_sort.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "notify.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_zset.h"
#include "util.h"

/* Room for `more` elements after *n in *out. */
static obj **feed_grow(obj ***out, size_t n, uint64_t more) {
    assert(more <= SIZE_MAX / sizeof(obj *) - n);
    *out = xrealloc(*out, (n + (size_t)more) * sizeof(obj *) + 1);
    return *out;
}

/* The list's elements, head to tail. */
static void feed_list(obj *o, obj ***out, size_t *n) {
    obj **v = feed_grow(out, *n, list_len(o));
    list_iter it;
    const char *p;
    size_t len;
    list_iter_init(&it, o);
    while (list_iter_next(&it, &p, &len)) v[(*n)++] = obj_new_raw(p, len);
}

/* The set's members, in the tree's (hash) order. */
static void feed_set(obj *o, obj ***out, size_t *n) {
    obj **v = feed_grow(out, *n, set_len(o));
    set_iter it;
    const char *p;
    size_t len;
    set_iter_init(&it, o);
    while (set_iter_next(&it, &p, &len)) v[(*n)++] = obj_new_raw(p, len);
}

/* The sorted set's members by ascending score (the order BY nosort keeps). */
static void feed_zset(obj *o, obj ***out, size_t *n) {
    obj **v = feed_grow(out, *n, zset_len(o));
    zset_iter it;
    const char *p;
    size_t len;
    double score;
    zset_iter_init(&it, o);
    while (zset_iter_next(&it, &p, &len, &score)) v[(*n)++] = obj_new_raw(p, len);
}

/* Per value type: how to list its elements. Lists, sets and sorted sets
 * fill their slot; NULL: the type is not sortable (WRONGTYPE). */
static sort_feed_fn *const feeds[OBJ_NTYPES] = {
    [OBJ_LIST] = feed_list, [OBJ_SET] = feed_set, [OBJ_ZSET] = feed_zset,
};

int sort_parse(client *c, int readonly, sort_opts *o) {
    memset(o, 0, sizeof *o);
    o->limit_start = 0;
    o->limit_count = -1;
    o->gets = xmalloc((size_t)c->argc * sizeof *o->gets);
    for (int j = 2; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const arg *a = &c->argv[j];
        if (arg_is(a, "asc")) {
            o->desc = 0;
        } else if (arg_is(a, "desc")) {
            o->desc = 1;
        } else if (arg_is(a, "alpha")) {
            o->alpha = 1;
        } else if (arg_is(a, "limit") && left >= 2) {
            if (!arg_ll(c, &c->argv[j + 1], &o->limit_start) ||
                !arg_ll(c, &c->argv[j + 2], &o->limit_count))
                return 0;
            j += 2;
        } else if (!readonly && arg_is(a, "store") && left >= 1) {
            o->store = &c->argv[++j];
        } else if (arg_is(a, "by") && left >= 1) {
            o->by = &c->argv[++j];
            if (!memchr(o->by->p, '*', o->by->len)) o->dontsort = 1;
        } else if (arg_is(a, "get") && left >= 1) {
            o->gets[o->ngets++] = &c->argv[++j];
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

obj *sort_lookup_pattern(db *d, const arg *pat, obj *elem) {
    if (pat->len == 1 && pat->p[0] == '#') {
        obj_incref(elem);
        return elem;
    }
    const char *star = memchr(pat->p, '*', pat->len);
    if (!star) return NULL;
    size_t prefix = (size_t)(star - pat->p), rest = pat->len - prefix - 1;
    /* "->field" after the '*' (and not at the very end): a hash field */
    const char *field = NULL;
    for (size_t i = 0; i + 2 < rest; i++) {
        if (star[1 + i] == '-' && star[2 + i] == '>') {
            field = star + 3 + i;
            rest = i;
            break;
        }
    }
    char buf[OBJ_INTBUF];
    size_t elen;
    const char *es = obj_str(elem, buf, &elen);
    char *key = xmalloc(prefix + elen + rest + 1);
    memcpy(key, pat->p, prefix);
    memcpy(key + prefix, es, elen);
    memcpy(key + prefix + elen, star + 1, rest);
    vt_entry *e = db_lookup_read(d, key, prefix + elen + rest);
    free(key);
    if (!e) return NULL;
    if (field) {
        if (e->val->type != OBJ_HASH) return NULL;
        const char *v;
        size_t vl;
        size_t flen = pat->len - (size_t)(field - pat->p);
        return hash_get(e->val, field, flen, &v, &vl) ? obj_new_raw(v, vl) : NULL;
    }
    if (e->val->type != OBJ_STRING) return NULL;
    obj_incref(e->val);
    return e->val;
}

typedef struct sort_item {
    obj *elem;
    obj *by;        /* ALPHA with BY: the BY value (NULL when missing) */
    double score;   /* numeric sort */
} sort_item;

static int sort_desc, sort_alpha, sort_by; /* for the comparator */

static int cmp_bytes(const obj *a, const obj *b) {
    char ba[OBJ_INTBUF], bb[OBJ_INTBUF];
    size_t la, lb;
    const char *sa = obj_str(a, ba, &la), *sb = obj_str(b, bb, &lb);
    int r = memcmp(sa, sb, la < lb ? la : lb);
    return r ? r : (la > lb) - (la < lb);
}

/* Redis's sortCompare: numbers, ties broken by the bytes; ALPHA compares
 * the bytes (a missing BY value first). verso compares bytes, not
 * strcoll: the server runs in the C locale, where both agree. */
static int sort_cmp(const void *pa, const void *pb) {
    const sort_item *a = pa, *b = pb;
    int r;
    if (!sort_alpha) {
        r = a->score > b->score ? 1 : a->score < b->score ? -1 : cmp_bytes(a->elem, b->elem);
    } else if (sort_by) {
        if (!a->by || !b->by) r = a->by == b->by ? 0 : a->by ? 1 : -1;
        else r = cmp_bytes(a->by, b->by);
    } else {
        r = cmp_bytes(a->elem, b->elem);
    }
    return sort_desc ? -r : r;
}

/* A value as a double, as SORT reads it: strtod of the whole bytes. */
static int obj_score(const obj *o, double *out) {
    long long ll;
    if (o->enc == OBJ_ENC_INT && obj_get_ll(o, &ll)) {
        *out = (double)ll;
        return 1;
    }
    char buf[OBJ_INTBUF];
    size_t n;
    const char *s = obj_str(o, buf, &n);
    char *z = xstrndup(s, n), *end;
    errno = 0;
    *out = strtod(z, &end);
    int ok = *end == '\0' && errno != ERANGE && !isnan(*out);
    free(z);
    return ok;
}

/* Fills scores / BY values; 0 when a score is not a number. */
static int sort_load(db *d, const sort_opts *o, sort_item *v, size_t n) {
    int ok = 1;
    for (size_t j = 0; j < n; j++) {
        obj *byval = o->by ? sort_lookup_pattern(d, o->by, v[j].elem) : v[j].elem;
        if (!byval) continue;
        if (o->alpha) {
            if (o->by) v[j].by = byval;
        } else {
            if (!obj_score(byval, &v[j].score)) ok = 0;
            if (o->by) obj_decref(byval);
        }
    }
    return ok;
}

/* The STORE destination becomes a list of the outlen selected values (a
 * missing GET value stored as ""), replacing whatever it held; an empty
 * result deletes it (Redis's sortCommandGeneric). */
static void sort_store(client *c, const sort_opts *o, const sort_item *v, long long start,
                       long long end, size_t outlen) {
    db *d = db_get(c->db);
    if (outlen == 0) {
        if (db_delete(d, o->store->p, o->store->len)) {
            server_dirty(1);
            notify_keyspace_event(NOTIFY_GENERIC, "del", o->store->p, o->store->len, c->db);
        }
        reply_int(c, 0);
        return;
    }
    list_elem *el = xmalloc(outlen * sizeof *el);
    obj **hold = xmalloc(outlen * sizeof *hold); /* references behind el */
    char (*ibuf)[OBJ_INTBUF] = xmalloc(outlen * sizeof *ibuf);
    size_t k = 0;
    for (long long j = start; j <= end; j++) {
        for (int g = 0; g < (o->ngets ? o->ngets : 1); g++, k++) {
            obj *val = v[j].elem;
            if (o->ngets) val = sort_lookup_pattern(d, o->gets[g], v[j].elem);
            else obj_incref(val);
            hold[k] = val;
            if (val) el[k].p = obj_str(val, ibuf[k], &el[k].n);
            else el[k] = (list_elem){"", 0};
        }
    }
    assert(k == outlen);
    db_set(d, o->store->p, o->store->len, list_from_elems(el, outlen), VT_NO_EXPIRE);
    for (size_t i = 0; i < outlen; i++)
        if (hold[i]) obj_decref(hold[i]);
    free(hold);
    free(ibuf);
    free(el);
    server_dirty((long long)outlen);
    notify_keyspace_event(NOTIFY_LIST, "sortstore", o->store->p, o->store->len, c->db);
    reply_int(c, (long long)outlen);
}

void sort_run(client *c, const sort_opts *o, obj **elems, size_t n) {
    db *d = db_get(c->db);
    sort_item *v = xcalloc(n ? n : 1, sizeof *v);
    for (size_t j = 0; j < n; j++) v[j].elem = elems[j];
    free(elems);
    long long len = (long long)n;
    /* Redis 7.0 clamps offset and count to the length first (no overflow) */
    long long start = o->limit_start < 0 ? 0 : o->limit_start > len ? len : o->limit_start;
    long long lcount = o->limit_count > len ? len : o->limit_count;
    long long end = lcount < 0 ? len - 1 : start + lcount - 1;
    if (start >= len) {
        start = len - 1;
        end = len - 2;
    }
    if (end >= len) end = len - 1;
    int ok = 1;
    if (!o->dontsort) {
        ok = sort_load(d, o, v, n);
        sort_desc = o->desc;
        sort_alpha = o->alpha;
        sort_by = o->by != NULL;
        if (n > 1) qsort(v, n, sizeof *v, sort_cmp);
    }
    long long count = end - start + 1;
    if (count < 0) count = 0;
    size_t outlen = (size_t)count * (size_t)(o->ngets ? o->ngets : 1);
    if (!ok) {
        reply_error(c, "ERR One or more scores can't be converted into double");
    } else if (o->store) {
        sort_store(c, o, v, start, end, outlen);
    } else {
        reply_array(c, (long long)outlen);
        for (long long j = start; j <= end; j++) {
            if (!o->ngets) reply_bulk_obj(c, v[j].elem);
            for (int g = 0; g < o->ngets; g++) {
                obj *val = sort_lookup_pattern(d, o->gets[g], v[j].elem);
                if (!val) {
                    reply_nil(c);
                    continue;
                }
                reply_bulk_obj(c, val);
                obj_decref(val);
            }
        }
    }
    for (size_t j = 0; j < n; j++) {
        obj_decref(v[j].elem);
        if (v[j].by) obj_decref(v[j].by);
    }
    free(v);
}

/* Redis's SORT converts a listpack sorted set to a skiplist for good
 * ("Destructively convert encoded sorted sets for SORT"): OBJECT ENCODING
 * and the RDB type then say so. Only the encoding changes, so the write
 * goes to the table directly (vt_write: a save gets its version first), not
 * through db_write, which would signal WATCH as Redis does not. */
static void zset_to_skiplist(db *d, const char *key, size_t len) {
    vt_wr w;
    vt_entry *e = vt_write(d->t, key, len, 0, &w, NULL);
    assert(e && e->val->type == OBJ_ZSET);
    e->val = obj_coll_writable(e->val);
    e->val->enc = OBJ_ENC_SKIPLIST;
    vt_write_done(&w);
}

static void sort_generic(client *c, int readonly) {
    sort_opts o;
    if (!sort_parse(c, readonly, &o)) {
        free(o.gets);
        return;
    }
    vt_entry *e = db_lookup_read(db_get(c->db), c->argv[1].p, c->argv[1].len);
    obj **elems = NULL;
    size_t n = 0;
    if (e) {
        sort_feed_fn *feed = feeds[e->val->type];
        if (!feed) {
            db_reply_wrongtype(c);
            free(o.gets);
            return;
        }
        feed(e->val, &elems, &n);
        int type = e->val->type;
        if (type == OBJ_ZSET && e->val->enc == OBJ_ENC_LISTPACK)
            zset_to_skiplist(db_get(c->db), c->argv[1].p, c->argv[1].len);
        /* Redis: BY nosort keeps a list's or sorted set's order, reversed
         * by DESC; a set stored, or sorted by a script, is sorted anyway,
         * by its elements' bytes (ALPHA, the BY pattern dropped; DESC,
         * LIMIT and GET kept), so that the result does not depend on the
         * set's internal order (replicas, AOF, effects replication). */
        if (o.dontsort && o.desc && (type == OBJ_LIST || type == OBJ_ZSET))
            for (size_t i = 0; i < n / 2; i++) {
                obj *t = elems[i];
                elems[i] = elems[n - 1 - i];
                elems[n - 1 - i] = t;
            }
        if (o.dontsort && type == OBJ_SET && (o.store || (c->flags & CLIENT_SCRIPT))) {
            o.dontsort = 0;
            o.alpha = 1;
            o.by = NULL;
        }
    }
    sort_run(c, &o, elems, n);
    free(o.gets);
}

void cmd_sort(client *c) { sort_generic(c, 0); }
void cmd_sort_ro(client *c) { sort_generic(c, 1); }

/* SORT's keys: the sorted key, and SORT's STORE destination (Redis's
 * sortGetKeys, which skips the arguments of LIMIT, GET and BY). */
int sort_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    out->n = 0;
    if (argc < 2) return 0;
    cmd_keys_add(out, 1, KS_RO | KS_ACCESS);
    if (strcmp(d->name, "sort") != 0) return 1;
    int store = 0;
    for (int i = 2; i < argc; i++) {
        if (arg_is(&argv[i], "limit")) i += 2;
        else if (arg_is(&argv[i], "get") || arg_is(&argv[i], "by")) i += 1;
        else if (arg_is(&argv[i], "store") && i + 1 < argc) store = i + 1; /* the last */
    }
    if (store) cmd_keys_add(out, store, KS_OW | KS_UPDATE);
    return 1;
}
