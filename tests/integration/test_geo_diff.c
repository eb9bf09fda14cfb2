/* test_geo_diff: a randomized differential test of the geo commands
 * against redis-server 7.0. Both servers run side by side and get the same
 * commands: a few thousand random points (GEOADD, in clusters: anywhere,
 * near the poles, around the antimeridian, many at one position so that
 * distances tie, a few members ZADDed with any score), then hundreds of
 * random GEOSEARCH / GEOSEARCHSTORE / GEORADIUS[BYMEMBER][_RO] (with
 * random options, stores included) / GEODIST / GEOPOS / GEOHASH queries,
 * some with invalid arguments. Replies are compared exactly (errors
 * included, ordering included), every stored destination by ZRANGE
 * WITHSCORES (so scores and distances are equal bit for bit), and the
 * source keys at the end. The seed is printed (VT_TEST_SEED=n reruns it);
 * GEO_DIFF_QUERIES=n changes the number of queries. */
#include "harness.h"
#include "testrand.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { POINTS = 3000, QUERIES = 800, DUPS = 40, MAXARGS = 32 };

static redisContext *cv, *cr; /* verso, redis */

/* ---- a growing text buffer ---- */

typedef struct sbuf { char *p; size_t n, cap; } sbuf;

static void sb_add(sbuf *b, const char *s, size_t l) {
    if (b->n + l + 1 > b->cap) {
        b->cap = (b->n + l + 1) * 2 + 256;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, s, l);
    b->n += l;
    b->p[b->n] = '\0';
}

static void repr(const redisReply *r, sbuf *b) {
    char tmp[32];
    switch (r->type) {
    case REDIS_REPLY_ARRAY:
        sb_add(b, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) sb_add(b, ",", 1);
            repr(r->element[i], b);
        }
        sb_add(b, "]", 1);
        break;
    case REDIS_REPLY_INTEGER:
        sb_add(b, tmp, (size_t)snprintf(tmp, sizeof tmp, ":%lld", r->integer));
        break;
    case REDIS_REPLY_NIL: sb_add(b, "nil", 3); break;
    case REDIS_REPLY_ERROR:
        sb_add(b, "!", 1);
        sb_add(b, r->str, r->len);
        break;
    case REDIS_REPLY_STATUS:
        sb_add(b, "+", 1);
        sb_add(b, r->str, r->len);
        break;
    default:
        sb_add(b, "$", 1);
        sb_add(b, r->str, r->len);
    }
}

/* ---- commands ---- */

typedef struct gcmd { int argc; char argv[MAXARGS][48]; } gcmd;

static void add(gcmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(gcmd *c, const char *fmt, ...) {
    ck_assert_int_lt(c->argc, MAXARGS);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->argv[c->argc++], sizeof c->argv[0], fmt, ap);
    va_end(ap);
}

static char *reply_text(redisContext *ctx, const gcmd *c) {
    const char *argv[MAXARGS];
    for (int i = 0; i < c->argc; i++) argv[i] = c->argv[i];
    redisReply *r = redisCommandArgv(ctx, c->argc, argv, NULL);
    ck_assert_ptr_nonnull(r);
    sbuf b = {NULL, 0, 0};
    sb_add(&b, "", 0);
    repr(r, &b);
    freeReplyObject(r);
    return b.p;
}

static long compared, differences, errors, empty; /* errors, [] among the replies */

static void show(const gcmd *c) {
    for (int i = 0; i < c->argc; i++) fprintf(stderr, "%s%s", i ? " " : "", c->argv[i]);
    fprintf(stderr, "\n");
}

/* Runs c on both servers; a difference is printed and counted. */
static void both(const gcmd *c) {
    char *v = reply_text(cv, c), *r = reply_text(cr, c);
    compared++;
    errors += r[0] == '!';
    empty += !strcmp(r, "[]");
    if (strcmp(v, r)) {
        differences++;
        fprintf(stderr, "geo_diff: difference on: ");
        show(c);
        fprintf(stderr, "  verso: %.2000s\n  redis: %.2000s\n", v, r);
    }
    free(v);
    free(r);
}

static void both_line(int n, ...) {
    gcmd c = {0};
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) add(&c, "%s", va_arg(ap, const char *));
    va_end(ap);
    both(&c);
}

/* ---- random arguments ---- */

static double uniform(double lo, double hi) { return lo + (hi - lo) * (double)rnd_below(1u << 30) / (double)(1u << 30); }

static int npoints;       /* members p0..p<npoints-1> of key g */
static const char *const units[] = {"m", "km", "ft", "mi", "KM", "Mi"};

/* A longitude / latitude as text: mostly "%.6f", sometimes an edge. */
static void add_lon(gcmd *c) {
    switch (rnd_int(12)) {
    case 0: add(c, "180"); break;
    case 1: add(c, "-180"); break;
    case 2: add(c, "%.6f", uniform(179, 180)); break;
    case 3: add(c, "%.6f", uniform(-180, -179)); break;
    default: add(c, "%.6f", uniform(-180, 180));
    }
}

static void add_lat(gcmd *c) {
    switch (rnd_int(12)) {
    case 0: add(c, "85.05112878"); break;
    case 1: add(c, "-85.05112878"); break;
    case 2: add(c, "%.6f", uniform(80, 85.05)); break;
    case 3: add(c, "%.6f", uniform(-85.05, -80)); break;
    default: add(c, "%.6f", uniform(-85.05, 85.05));
    }
}

/* A distance in a unit: 0, tiny, anything up to the whole earth. */
static void add_size(gcmd *c) {
    int r = rnd_int(20);
    if (r == 0) add(c, "0");
    else if (r == 1) add(c, "40000000");
    else add(c, "%.3f", exp(uniform(log(1), log(2.1e7))));
}

static void add_unit(gcmd *c) {
    if (rnd_int(60) == 0) add(c, "yd"); /* an error now and then */
    else add(c, "%s", units[rnd_int(6)]);
}

static void add_member(gcmd *c) {
    int r = rnd_int(20);
    if (r == 0) add(c, "nobody");
    else if (r < 4) add(c, "dup%d", rnd_int(DUPS));
    else if (r == 4) add(c, "z%d", rnd_int(10));
    else add(c, "p%d", rnd_int(npoints));
}

/* WITH*, COUNT [ANY], ASC/DESC in random order (stores: none of WITH*). */
static void add_options(gcmd *c, int store) {
    int n = rnd_int(5);
    for (int i = 0; i < n; i++) {
        switch (rnd_int(7)) {
        case 0: if (!store || rnd_int(30) == 0) add(c, "WITHDIST"); break;
        case 1: if (!store || rnd_int(30) == 0) add(c, "WITHCOORD"); break;
        case 2: if (!store || rnd_int(30) == 0) add(c, "WITHHASH"); break;
        case 3:
            add(c, "COUNT");
            add(c, "%d", rnd_int(40) == 0 ? 0 : 1 + rnd_int(rnd_int(2) ? 10 : 500));
            if (rnd_int(3) == 0) add(c, "ANY");
            break;
        case 4: add(c, "ASC"); break;
        case 5: add(c, "DESC"); break;
        default: if (rnd_int(40) == 0) add(c, "ANY");
        }
    }
}

static const char *src_key(void) { return rnd_int(5) == 0 ? "s" : rnd_int(30) == 0 ? "nokey" : "g"; }

/* ---- the queries ---- */

static void compare_dst(const char *dst) { both_line(4, "ZRANGE", dst, "0", "-1", "WITHSCORES"); }

static void q_geosearch(int store) {
    gcmd c = {0};
    add(&c, store ? "GEOSEARCHSTORE" : "GEOSEARCH");
    if (store) add(&c, "dst");
    add(&c, "%s", src_key());
    if (rnd_int(2)) {
        add(&c, "FROMMEMBER");
        add_member(&c);
    } else {
        add(&c, "FROMLONLAT");
        add_lon(&c);
        add_lat(&c);
    }
    if (rnd_int(2)) {
        add(&c, "BYRADIUS");
        add_size(&c);
    } else {
        add(&c, "BYBOX");
        add_size(&c);
        add_size(&c);
    }
    add_unit(&c);
    add_options(&c, store);
    if (store && rnd_int(2)) add(&c, "STOREDIST");
    both(&c);
    if (store) compare_dst("dst");
}

static void q_georadius(int bymember, int ro) {
    gcmd c = {0};
    add(&c, "GEORADIUS%s%s", bymember ? "BYMEMBER" : "", ro ? "_RO" : "");
    add(&c, "%s", src_key());
    if (bymember) {
        add_member(&c);
    } else {
        add_lon(&c);
        add_lat(&c);
    }
    add_size(&c);
    add_unit(&c);
    int store = !ro && rnd_int(3) == 0;
    add_options(&c, store);
    if (store) {
        add(&c, rnd_int(2) ? "STORE" : "STOREDIST");
        add(&c, "dst");
    }
    both(&c);
    if (store) compare_dst("dst");
}

static void q_point(void) {
    gcmd c = {0};
    int kind = rnd_int(3);
    add(&c, kind == 0 ? "GEODIST" : kind == 1 ? "GEOPOS" : "GEOHASH");
    add(&c, "%s", src_key());
    int n = kind == 0 ? 2 : 1 + rnd_int(6);
    for (int i = 0; i < n; i++) add_member(&c);
    if (kind == 0 && rnd_int(2)) add_unit(&c);
    both(&c);
}

/* ---- the data ---- */

/* POINTS members p<i> in batches of GEOADD, a few positions out of range
 * now and then (the batch then fails on both), DUPS members at one
 * position, and members ZADDed with scores GEOADD never gives. */
static void load(const char *key, int n) {
    gcmd c = {0};
    for (int i = 0; i < n; i++) {
        if (c.argc == 0) {
            add(&c, "GEOADD");
            add(&c, "%s", key);
        }
        switch (rnd_int(8)) {
        case 0: /* near a pole */
            add(&c, "%.6f", uniform(-180, 180));
            add(&c, "%.6f", rnd_int(2) ? uniform(80, 85.05112878) : uniform(-85.05112878, -80));
            break;
        case 1: /* around the antimeridian */
            add(&c, "%.6f", rnd_int(2) ? uniform(179, 180) : uniform(-180, -179));
            add(&c, "%.6f", uniform(-30, 30));
            break;
        case 2: /* a dense cluster */
            add(&c, "%.6f", uniform(13, 13.5));
            add(&c, "%.6f", uniform(38, 38.3));
            break;
        default:
            add_lon(&c);
            add_lat(&c);
        }
        add(&c, "p%d", i);
        if (c.argc + 3 > MAXARGS || i == n - 1) {
            both(&c);
            c.argc = 0;
        }
    }
    for (int i = 0; i < DUPS; i++) { /* all at Palermo: distances tie */
        if (c.argc == 0) {
            add(&c, "GEOADD");
            add(&c, "%s", key);
        }
        add(&c, "13.361389");
        add(&c, "38.115556");
        add(&c, "dup%d", i);
        if (c.argc + 3 > MAXARGS || i == DUPS - 1) {
            both(&c);
            c.argc = 0;
        }
    }
    static const char *const odd[] = {"0", "1", "-1", "4503599627370495", "4503599627370496",
                                      "1.5", "3479099956230698", "1e300", "-inf", "inf"};
    for (int i = 0; i < 10; i++) {
        char m[16];
        snprintf(m, sizeof m, "z%d", i);
        both_line(4, "ZADD", key, odd[i], m);
    }
}

START_TEST(differential) {
    uint64_t seed = rnd_seed_env("geo_diff", "VT_TEST_SEED");
    (void)seed;
    srv *sv = h_srv_start("%s", "");
    srv *sr = srv_start_redis(NULL);
    cv = srv_connect(sv);
    cr = srv_connect(sr);
    const char *eq = getenv("GEO_DIFF_QUERIES");
    long queries = eq && *eq ? atol(eq) : QUERIES;
    npoints = POINTS;
    load("g", POINTS);
    load("s", 60); /* a small one: the listpack encoding */
    both_line(3, "OBJECT", "ENCODING", "s");
    for (long i = 0; i < queries; i++) {
        int r = rnd_int(10);
        if (r < 3) q_geosearch(0);
        else if (r < 4) q_geosearch(1);
        else if (r < 7) q_georadius(rnd_int(2), rnd_int(3) == 0);
        else q_point();
    }
    compare_dst("g");
    compare_dst("s");
    printf("geo_diff: %ld replies compared (%ld errors, %ld empty), %ld differ\n", compared, errors,
           empty, differences);
    redisFree(cv);
    redisFree(cr);
    srv_stop(sr);
    ck_assert_msg(differences == 0, "%ld of %ld replies differ from redis-server (see stderr)",
                  differences, compared);
}
END_TEST

int main(void) {
    Suite *s = suite_create("geo_diff");
    h_add_dropall(s, "differential", differential, 600);
    return h_main(s);
}
