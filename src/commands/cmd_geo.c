/* cmd_geo: the geo commands (GEOADD GEODIST GEOHASH GEOPOS GEOSEARCH
 * GEOSEARCHSTORE GEORADIUS GEORADIUSBYMEMBER and their _RO forms) on sorted
 * sets whose scores are geohash.h's 52-bit cells, with Redis 7.0's
 * replies, error texts, keyspace events and propagation (GEOADD is
 * replayed as the ZADD it amounts to, as Redis does; the STORE forms as
 * sent). A search scans the score ranges of the 9 cells geo_cover gives,
 * keeps the members inside the shape, sorts them (geo_sort.h) and replies
 * or stores them. Main thread only. */
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "geo_sort.h"
#include "geohash.h"
#include "notify.h"
#include "t_zset.h"
#include "util.h"

#define ERR_NOT_FLOAT "ERR value is not a valid float"

/* ---- arguments ---- */

/* A double as Redis's getDoubleFromObjectOrReply reads it; err is the
 * reply when it is not one. */
static int arg_double(client *c, const arg *a, double *out, const char *err) {
    if (zset_parse_double(a->p, a->len, out)) return 1;
    reply_error(c, err);
    return 0;
}

/* argv[0] longitude, argv[1] latitude, within the index's limits. */
static int arg_lonlat(client *c, const arg *argv, double xy[2]) {
    if (!arg_double(c, &argv[0], &xy[0], ERR_NOT_FLOAT) ||
        !arg_double(c, &argv[1], &xy[1], ERR_NOT_FLOAT))
        return 0;
    if (xy[0] < GEO_LONG_MIN || xy[0] > GEO_LONG_MAX || xy[1] < GEO_LAT_MIN || xy[1] > GEO_LAT_MAX) {
        reply_errorf(c, "ERR invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
        return 0;
    }
    return 1;
}

/* A unit's meters (any case). */
static int arg_unit(client *c, const arg *a, double *to_meters) {
    if (arg_is(a, "m")) *to_meters = 1;
    else if (arg_is(a, "km")) *to_meters = 1000;
    else if (arg_is(a, "ft")) *to_meters = 0.3048;
    else if (arg_is(a, "mi")) *to_meters = 1609.34;
    else {
        reply_error(c, "ERR unsupported unit provided. please use M, KM, FT, MI");
        return 0;
    }
    return 1;
}

/* BYRADIUS's (and GEORADIUS's) "radius unit" at argv. */
static int arg_radius(client *c, const arg *argv, geo_shape *s) {
    double r;
    if (!arg_double(c, &argv[0], &r, "ERR need numeric radius")) return 0;
    if (r < 0) {
        reply_error(c, "ERR radius cannot be negative");
        return 0;
    }
    s->radius = r;
    return arg_unit(c, &argv[1], &s->conversion);
}

/* BYBOX's "width height unit" at argv. */
static int arg_box(client *c, const arg *argv, geo_shape *s) {
    double w, h;
    if (!arg_double(c, &argv[0], &w, "ERR need numeric width") ||
        !arg_double(c, &argv[1], &h, "ERR need numeric height"))
        return 0;
    if (h < 0 || w < 0) {
        reply_error(c, "ERR height or width cannot be negative");
        return 0;
    }
    s->width = w;
    s->height = h;
    return arg_unit(c, &argv[2], &s->conversion);
}

/* The position of a member: 0 when the zset has no such member. */
static int member_pos(const obj *z, const arg *m, double xy[2]) {
    double score;
    if (!zset_score(z, m->p, m->len, &score)) return 0;
    geo_decode_score(score, xy);
    return 1;
}

/* ---- replies ---- */

/* A distance with 4 decimals, a bulk string in both protocols, as Redis
 * 7.0.15's fixedpoint_d2string writes it: d * 10^4 rounded to the nearest
 * integer (llrint: ties to even), then split at the point. It differs from
 * printf's "%.4f" where d is within an ulp of a tie. Distances are at most
 * half the earth's circumference in feet: far from LLONG_MAX / 10^4. */
static void reply_distance(client *c, double d) {
    long long s = llrint(d * 10000.0);
    unsigned long long u = s < 0 ? 0 - (unsigned long long)s : (unsigned long long)s;
    char buf[48];
    int n = snprintf(buf, sizeof buf, "%s%llu.%04llu", s < 0 ? "-" : "", u / 10000, u % 10000);
    assert(n > 0 && (size_t)n < sizeof buf);
    reply_bulk(c, buf, (size_t)n);
}

/* A coordinate as Redis's addReplyHumanLongDouble: "%.17Lf" without its
 * trailing zeros, a bulk string (RESP2) or a double (RESP3). */
static void reply_coord(client *c, double v) {
    char buf[400];
    size_t n = ld_to_str(buf, sizeof buf, (long double)v);
    assert(n > 0);
    if (c->resp < 3) {
        reply_bulk(c, buf, n);
        return;
    }
    vbuf_append(&c->reply, ",", 1);
    vbuf_append(&c->reply, buf, n);
    vbuf_append(&c->reply, "\r\n", 2);
}

static void reply_pos(client *c, const double xy[2]) {
    reply_array(c, 2);
    reply_coord(c, xy[0]);
    reply_coord(c, xy[1]);
}

/* The zset at key for reading: NULL when absent; *wrong set (WRONGTYPE
 * answered) when of another type. */
static const obj *zread(client *c, const arg *k, int *wrong) {
    vt_entry *e = db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_ZSET, DB_LOOKUP_READ, wrong);
    return e ? e->val : NULL;
}

/* ---- GEOADD ---- */

/* 1 when GEOADD's members would add or move a member of z (else the
 * key is not written: a WATCH on it holds, as Redis's ZADD). */
static int geoadd_changes(const obj *z, const client *c, int first, int n, const uint64_t *cells,
                          int nx, int xx) {
    for (int i = 0; i < n; i++) {
        const arg *m = &c->argv[first + 3 * i + 2];
        double cur;
        if (zset_score(z, m->p, m->len, &cur) ? !nx && cur != (double)cells[i] : !xx) return 1;
    }
    return 0;
}

/* GEOADD key [NX|XX] [CH] lon lat member ...: ZADD with the cells as
 * scores, propagated as that ZADD (the scores in decimal). */
void cmd_geoadd(client *c) {
    int nx = 0, xx = 0, ch = 0, first = 2;
    for (; first < c->argc; first++) {
        const arg *a = &c->argv[first];
        if (arg_is(a, "nx")) nx = 1;
        else if (arg_is(a, "xx")) xx = 1;
        else if (arg_is(a, "ch")) ch = 1;
        else break;
    }
    int n = (c->argc - first) / 3;
    if ((c->argc - first) % 3 || (nx && xx) || n == 0) {
        reply_syntax_error(c);
        return;
    }
    uint64_t *cells = xmalloc((size_t)n * sizeof *cells);
    for (int i = 0; i < n; i++) {
        double xy[2];
        if (!arg_lonlat(c, &c->argv[first + 3 * i], xy)) {
            free(cells);
            return;
        }
        cells[i] = geo_cell52(xy[0], xy[1]);
    }
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_ZSET, DB_LOOKUP_WRITE, &wrong);
    long long added = 0, updated = 0;
    if (wrong) goto out;
    if (e ? geoadd_changes(e->val, c, first, n, cells, nx, xx) : !xx) {
        vt_wr w;
        int created;
        e = db_write(d, k->p, k->len, 1, &w, &created);
        if (created) vt_set_val(&w, e, zset_new());
        e->val = obj_coll_writable(e->val);
        for (int i = 0; i < n; i++) {
            const arg *m = &c->argv[first + 3 * i + 2];
            double cur, score = (double)cells[i];
            if (zset_score(e->val, m->p, m->len, &cur)) {
                if (nx || cur == score) continue;
                zset_set(e->val, m->p, m->len, score);
                updated++;
            } else if (!xx) {
                zset_set(e->val, m->p, m->len, score);
                added++;
            }
        }
        vt_write_done(&w);
    }
    if (added || updated) {
        server_dirty(added + updated);
        notify_keyspace_event(NOTIFY_ZSET, "zadd", k->p, k->len, c->db);
        /* ZADD key [flags as sent] score member ... */
        int argc = first + 2 * n;
        arg *v = xmalloc((size_t)argc * sizeof *v);
        char (*num)[24] = xmalloc((size_t)n * sizeof *num);
        v[0] = (arg){"zadd", 4};
        for (int i = 1; i < first; i++) v[i] = c->argv[i];
        for (int i = 0; i < n; i++) {
            size_t l = ll_to_str(num[i], (long long)cells[i]);
            v[first + 2 * i] = (arg){num[i], l};
            v[first + 2 * i + 1] = c->argv[first + 3 * i + 2];
        }
        cmd_propagate(c, argc, v);
        free(num);
        free(v);
    }
    reply_int(c, ch ? added + updated : added);
out:
    free(cells);
}

/* ---- GEODIST GEOHASH GEOPOS ---- */

void cmd_geodist(client *c) {
    double to_meters = 1;
    if (c->argc == 5) {
        if (!arg_unit(c, &c->argv[4], &to_meters)) return;
    } else if (c->argc > 5) {
        reply_syntax_error(c);
        return;
    }
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    double a[2], b[2];
    if (!z || !member_pos(z, &c->argv[2], a) || !member_pos(z, &c->argv[3], b)) {
        reply_null(c);
        return;
    }
    reply_distance(c, geo_distance(a[0], a[1], b[0], b[1]) / to_meters);
}

void cmd_geohash(client *c) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    reply_array(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        double score;
        if (!z || !zset_score(z, c->argv[i].p, c->argv[i].len, &score)) {
            reply_null(c);
            continue;
        }
        char buf[12];
        geo_hash_string(score, buf);
        reply_bulk(c, buf, 11);
    }
}

void cmd_geopos(client *c) {
    int wrong;
    const obj *z = zread(c, &c->argv[1], &wrong);
    if (wrong) return;
    reply_array(c, c->argc - 2);
    for (int i = 2; i < c->argc; i++) {
        double xy[2];
        if (z && member_pos(z, &c->argv[i], xy)) reply_pos(c, xy);
        else reply_nil_array(c);
    }
}

/* ---- the search ---- */

typedef struct geo_matches { geo_point *v; size_t n, cap; } geo_matches;

static void matches_free(geo_matches *m) {
    for (size_t i = 0; i < m->n; i++) free(m->v[i].member);
    free(m->v);
}

static void matches_add(geo_matches *m, const double xy[2], double dist, double score,
                        const char *member, size_t len) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 8;
        m->v = xrealloc(m->v, m->cap * sizeof *m->v);
    }
    char *copy = xmalloc(len + 1);
    if (len) memcpy(copy, member, len);
    copy[len] = '\0';
    m->v[m->n++] = (geo_point){xy[0], xy[1], dist, score, copy, len};
}

/* The members of one cell (scores in [min, max)) inside the shape, until
 * `limit` matches in all (0: no limit). */
static void scan_cell(const obj *z, geo_hash cell, const geo_shape *s, size_t limit,
                      geo_matches *m) {
    uint64_t lo, hi;
    geo_cell_scores(cell, &lo, &hi);
    double min = (double)lo, max = (double)hi;
    uint64_t rank = zset_rank_of_score(z, min, 0);
    if (rank >= zset_len(z)) return;
    zset_iter it;
    zset_iter_at(&it, z, rank, 0);
    const char *member;
    size_t len;
    double score;
    while (zset_iter_next(&it, &member, &len, &score) && score < max) {
        double xy[2], dist;
        geo_decode_score(score, xy);
        if (geo_within(s, xy[0], xy[1], &dist)) matches_add(m, xy, dist, score, member, len);
        if (m->n && limit && m->n >= limit) break;
    }
}

/* Redis's membersOfAllNeighbors: the 9 cells in order, skipping "no cell"
 * and a cell equal to the last one scanned (huge radii give repeats). */
static void scan_cover(const obj *z, const geo_shape *s, size_t limit, geo_matches *m) {
    geo_hash cells[9];
    geo_cover(s, cells);
    size_t last = 0;
    for (size_t i = 0; i < 9; i++) {
        if (cells[i].bits == 0 && cells[i].step == 0) continue;
        if (last && cells[i].bits == cells[last].bits && cells[i].step == cells[last].step)
            continue;
        if (m->n && limit && m->n >= limit) break;
        scan_cell(z, cells[i], s, limit, m);
        last = i;
    }
}

enum {
    G_COORDS = 1,   /* GEORADIUS: key lon lat radius unit */
    G_MEMBER = 2,   /* GEORADIUSBYMEMBER: key member radius unit */
    G_NOSTORE = 4,  /* the _RO forms */
    G_SEARCH = 8,   /* GEOSEARCH's FROM... / BY... arguments */
    G_SEARCHSTORE = 16,
};
enum { SORT_NONE, SORT_ASC, SORT_DESC };

typedef struct geo_query {
    geo_shape shape;
    const arg *store;
    int storedist, withdist, withhash, withcoord, any, sort;
    int frommember, fromlonlat, byradius, bybox;
    long long count;
} geo_query;

/* The optional arguments from argv[from] on, as Redis's georadiusGeneric
 * reads them (a FROMMEMBER is looked up as it is read when z exists). */
static int parse_options(client *c, int from, int flags, const obj *z, geo_query *q) {
    for (int i = from; i < c->argc; i++) {
        const arg *a = &c->argv[i];
        int left = c->argc - i - 1;
        int search = (flags & G_SEARCH) != 0;
        int can_store = !(flags & G_NOSTORE) && !search;
        if (arg_is(a, "withdist")) {
            q->withdist = 1;
        } else if (arg_is(a, "withhash")) {
            q->withhash = 1;
        } else if (arg_is(a, "withcoord")) {
            q->withcoord = 1;
        } else if (arg_is(a, "any")) {
            q->any = 1;
        } else if (arg_is(a, "asc")) {
            q->sort = SORT_ASC;
        } else if (arg_is(a, "desc")) {
            q->sort = SORT_DESC;
        } else if (arg_is(a, "count") && left >= 1) {
            if (!arg_ll(c, &c->argv[i + 1], &q->count)) return 0;
            if (q->count <= 0) {
                reply_error(c, "ERR COUNT must be > 0");
                return 0;
            }
            i++;
        } else if ((arg_is(a, "store") || arg_is(a, "storedist")) && left >= 1 && can_store) {
            q->store = &c->argv[i + 1];
            q->storedist = arg_is(a, "storedist");
            i++;
        } else if (arg_is(a, "storedist") && (flags & G_SEARCHSTORE)) {
            q->storedist = 1;
        } else if (arg_is(a, "frommember") && left >= 1 && search && !q->fromlonlat) {
            if (z && !member_pos(z, &c->argv[i + 1], q->shape.xy)) {
                reply_error(c, "ERR could not decode requested zset member");
                return 0;
            }
            q->frommember = 1;
            i++;
        } else if (arg_is(a, "fromlonlat") && left >= 2 && search && !q->frommember) {
            if (!arg_lonlat(c, &c->argv[i + 1], q->shape.xy)) return 0;
            q->fromlonlat = 1;
            i += 2;
        } else if (arg_is(a, "byradius") && left >= 2 && search && !q->bybox) {
            if (!arg_radius(c, &c->argv[i + 1], &q->shape)) return 0;
            q->shape.type = GEO_CIRCLE;
            q->byradius = 1;
            i += 2;
        } else if (arg_is(a, "bybox") && left >= 3 && search && !q->byradius) {
            if (!arg_box(c, &c->argv[i + 1], &q->shape)) return 0;
            q->shape.type = GEO_BOX;
            q->bybox = 1;
            i += 3;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

/* The checks after the options, in Redis's order. */
static int check_query(client *c, int flags, const geo_query *q) {
    const arg *name = &c->argv[0];
    if (q->store && (q->withdist || q->withhash || q->withcoord)) {
        reply_errorf(c, "ERR %s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                     (flags & G_SEARCHSTORE) ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return 0;
    }
    if ((flags & G_SEARCH) && !(q->frommember || q->fromlonlat)) {
        reply_errorf(c, "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for %.*s",
                     (int)(name->len > 128 ? 128 : name->len), name->p);
        return 0;
    }
    if ((flags & G_SEARCH) && !(q->byradius || q->bybox)) {
        reply_errorf(c, "ERR exactly one of BYRADIUS and BYBOX can be specified for %.*s",
                     (int)(name->len > 128 ? 128 : name->len), name->p);
        return 0;
    }
    if (q->any && !q->count) {
        reply_error(c, "ERR the ANY argument requires COUNT argument");
        return 0;
    }
    return 1;
}

/* STORE / STOREDIST / GEOSEARCHSTORE: the first n matches as a new zset
 * at q->store (scores the cells, or the distances in the unit), or the key
 * deleted when there are none; replies n. */
static void store_matches(client *c, int flags, const geo_query *q, geo_matches *m, size_t n) {
    db *d = db_get(c->db);
    const arg *dst = q->store;
    if (n == 0) {
        if (db_delete(d, dst->p, dst->len)) {
            server_dirty(1);
            notify_keyspace_event(NOTIFY_GENERIC, "del", dst->p, dst->len, c->db);
        }
        reply_int(c, 0);
        return;
    }
    /* built big, then made small when it fits, as Redis's zslInsert +
     * zsetConvertToListpackIfNeeded */
    obj *res = zset_new_skiplist();
    for (size_t i = 0; i < n; i++) {
        const geo_point *p = &m->v[i];
        zset_set(res, p->member, p->len, q->storedist ? p->dist / q->shape.conversion : p->score);
    }
    zset_convert_if_small(res);
    db_set(d, dst->p, dst->len, res, VT_NO_EXPIRE);
    server_dirty((long long)n);
    notify_keyspace_event(NOTIFY_ZSET, (flags & G_SEARCH) ? "geosearchstore" : "georadiusstore",
                          dst->p, dst->len, c->db);
    reply_int(c, (long long)n);
}

static void reply_matches(client *c, const geo_query *q, const geo_matches *m, size_t n) {
    int opts = q->withdist + q->withhash + q->withcoord;
    reply_array(c, (long long)n);
    for (size_t i = 0; i < n; i++) {
        const geo_point *p = &m->v[i];
        if (opts) reply_array(c, opts + 1);
        reply_bulk(c, p->member, p->len);
        if (q->withdist) reply_distance(c, p->dist / q->shape.conversion);
        if (q->withhash) reply_int(c, (long long)p->score);
        if (q->withcoord) {
            double xy[2] = {p->lon, p->lat};
            reply_pos(c, xy);
        }
    }
}

/* Redis's georadiusGeneric: the zset at argv[src], the centre and shape
 * from the fixed arguments (GEORADIUS*) or the options (GEOSEARCH*). */
static void geo_search(client *c, int src, int flags) {
    int wrong;
    const obj *z = zread(c, &c->argv[src], &wrong);
    if (wrong) return;
    geo_query q;
    memset(&q, 0, sizeof q);
    int base;
    if (flags & G_COORDS) {
        base = 6;
        q.shape.type = GEO_CIRCLE;
        if (!arg_lonlat(c, &c->argv[2], q.shape.xy) || !arg_radius(c, &c->argv[4], &q.shape))
            return;
    } else if (flags & G_MEMBER) {
        base = 5;
        /* without the key, the reply only depends on the options */
        if (z) {
            q.shape.type = GEO_CIRCLE;
            if (!member_pos(z, &c->argv[2], q.shape.xy)) {
                reply_error(c, "ERR could not decode requested zset member");
                return;
            }
            if (!arg_radius(c, &c->argv[3], &q.shape)) return;
        }
    } else {
        base = (flags & G_SEARCHSTORE) ? 3 : 2;
        if (flags & G_SEARCHSTORE) q.store = &c->argv[1];
    }
    if (!parse_options(c, base, flags, z, &q) || !check_query(c, flags, &q)) return;

    geo_matches m = {NULL, 0, 0};
    if (!z) goto done;
    /* COUNT returns the nearest ones: sorted, unless ANY takes the first */
    if (q.count && q.sort == SORT_NONE && !q.any) q.sort = SORT_ASC;
    scan_cover(z, &q.shape, q.any ? (size_t)q.count : 0, &m);
done:;
    size_t n = q.count && (size_t)q.count < m.n ? (size_t)q.count : m.n;
    if (q.sort != SORT_NONE) geo_sort(m.v, m.n, q.sort == SORT_DESC, n);
    if (q.store) store_matches(c, flags, &q, &m, n);
    else reply_matches(c, &q, &m, n);
    matches_free(&m);
}

void cmd_georadius(client *c) { geo_search(c, 1, G_COORDS); }
void cmd_georadiusbymember(client *c) { geo_search(c, 1, G_MEMBER); }
void cmd_georadius_ro(client *c) { geo_search(c, 1, G_COORDS | G_NOSTORE); }
void cmd_georadiusbymember_ro(client *c) { geo_search(c, 1, G_MEMBER | G_NOSTORE); }
void cmd_geosearch(client *c) { geo_search(c, 1, G_SEARCH); }
void cmd_geosearchstore(client *c) { geo_search(c, 2, G_SEARCH | G_SEARCHSTORE); }
