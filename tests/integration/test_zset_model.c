/* Integration tests, part of test_zset: randomized model tests of the
 * sorted set commands. Thousands of random writes (ZADD with its options,
 * ZINCRBY, ZREM, ZPOPMIN/MAX, ZREMRANGEBYRANK/SCORE/LEX) and queries (ZRANK
 * ZREVRANK ZSCORE ZCOUNT ZLEXCOUNT, ZRANGE by rank, score and lex with
 * LIMIT, both directions) against a simple C model, with the whole set
 * compared regularly (and its OBJECT ENCODING). The seed is printed. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* test_zset.c: the reply must be an array reading `want` (space-joined). */
void check_list_at(const char *file, int line, redisReply *r, const char *want);
#define expect_list(c, want, ...) \
    check_list_at(__FILE__, __LINE__, cmd(c, __VA_ARGS__), want)

typedef struct sbuf { char *p; size_t n, cap; } sbuf;

static void sb_add(sbuf *b, const char *s) {
    size_t l = strlen(s);
    if (b->n + l + 2 > b->cap) {
        b->cap = (b->n + l + 2) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    if (b->n) b->p[b->n++] = ' ';
    memcpy(b->p + b->n, s, l + 1);
    b->n += l;
}

enum { NM = 300 };
typedef struct mmember { double s; int in; } mmember;
static mmember model[NM];
static int order[NM];
static int model_big; /* the set has held more than 128 members: skiplist */

static void mname(int i, char *buf) { snprintf(buf, 16, "m%d", i); }

static int order_cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (model[x].s != model[y].s) return model[x].s < model[y].s ? -1 : 1;
    char nx[16], ny[16];
    mname(x, nx);
    mname(y, ny);
    return strcmp(nx, ny);
}

/* The present members in (score, member) order into order[]; their count. */
static int msorted(void) {
    int n = 0;
    for (int i = 0; i < NM; i++)
        if (model[i].in) order[n++] = i;
    qsort(order, (size_t)n, sizeof order[0], order_cmp);
    return n;
}

static void fmt_score(double s, char *buf) { snprintf(buf, 32, "%.17g", s); }

/* Expected text of ranks [from, from + n) (reverse: downward), with scores. */
static char *mrange(int from, int n, int reverse, int withscores) {
    sbuf b = {NULL, 0, 0};
    sb_add(&b, "");
    b.n = 0;
    for (int k = 0; k < n; k++) {
        int i = order[reverse ? from - k : from + k];
        char buf[32];
        mname(i, buf);
        sb_add(&b, buf);
        if (withscores) {
            fmt_score(model[i].s, buf);
            sb_add(&b, buf);
        }
    }
    return b.p;
}

static double rnd_score(void) { return (double)(rand() % 101 - 50) / 2.0; }

static void model_zadd(redisContext *c) {
    static const char *flags[] = {"", "NX", "XX", "GT", "LT", "CH", "GT CH", "XX CH", "LT CH"};
    const char *fl = flags[rand() % 9];
    int npairs = 1 + rand() % 3;
    char cmdbuf[256];
    int len = snprintf(cmdbuf, sizeof cmdbuf, "ZADD k %s", fl);
    int ch = strstr(fl, "CH") != NULL, nx = strstr(fl, "NX") != NULL, xx = strstr(fl, "XX") != NULL;
    int gt = strstr(fl, "GT") != NULL, lt = strstr(fl, "LT") != NULL;
    long long added = 0, changed = 0;
    for (int p = 0; p < npairs; p++) {
        int i = rand() % NM;
        double s = rnd_score();
        len += snprintf(cmdbuf + len, sizeof cmdbuf - (size_t)len, " %.17g m%d", s, i);
        if (model[i].in) {
            if (nx || (gt && s <= model[i].s) || (lt && s >= model[i].s)) continue;
            if (s != model[i].s) changed++;
            model[i].s = s;
        } else if (!xx) {
            model[i].in = 1;
            model[i].s = s;
            added++;
        }
    }
    expect_int(c, ch ? added + changed : added, cmdbuf); /* no '%' in it */
}

static void model_check_all(redisContext *c) {
    int n = msorted();
    expect_int(c, n, "ZCARD k");
    char *want = mrange(0, n, 0, 1);
    expect_list(c, want, "ZRANGE k 0 -1 WITHSCORES");
    free(want);
    if (n) expect_bulk(c, model_big ? "skiplist" : "listpack", "OBJECT ENCODING k");
}

/* One random query or write; every reply checked against the model. */
static void model_step(redisContext *c) {
    int n = msorted(), op = rand() % 12, i = rand() % NM;
    char name[16], sc[32], *want;
    mname(i, name);
    switch (op) {
    case 0: case 1: case 2:
        model_zadd(c);
        break;
    case 3: {
        double d = rnd_score();
        model[i].s = (model[i].in ? model[i].s : 0) + d;
        model[i].in = 1;
        fmt_score(model[i].s, sc);
        expect_bulk(c, sc, "ZINCRBY k %.17g %s", d, name);
        break;
    }
    case 4: {
        int j = rand() % NM;
        int del = model[i].in + (j != i && model[j].in);
        model[i].in = model[j].in = 0;
        expect_int(c, del, "ZREM k %s m%d", name, j);
        break;
    }
    case 5: {
        int cnt = rand() % 4, max = rand() % 2, got = cnt < n ? cnt : n;
        want = mrange(max ? n - 1 : 0, got, max, 1);
        expect_list(c, want, "%s k %d", max ? "ZPOPMAX" : "ZPOPMIN", cnt);
        free(want);
        for (int k = 0; k < got; k++) model[order[max ? n - 1 - k : k]].in = 0;
        break;
    }
    case 6: {
        int r = -1;
        for (int k = 0; k < n; k++)
            if (order[k] == i) r = k;
        if (r < 0) {
            expect_nil(c, "ZRANK k %s", name);
            expect_nil(c, "ZSCORE k %s", name);
        } else {
            expect_int(c, r, "ZRANK k %s", name);
            expect_int(c, n - 1 - r, "ZREVRANK k %s", name);
            fmt_score(model[i].s, sc);
            expect_bulk(c, sc, "ZSCORE k %s", name);
        }
        break;
    }
    case 7: case 8: {
        /* a score range, bounds inclusive or not, with LIMIT, either way */
        double a = rnd_score(), b = rnd_score();
        int aex = rand() % 2, bex = rand() % 2, rev = rand() % 2;
        int off = rand() % 5, lim = rand() % 8 - 1;
        int lo = 0, hi = 0;
        for (int k = 0; k < n; k++) {
            double s = model[order[k]].s;
            if (aex ? s <= a : s < a) lo = k + 1;
            if (bex ? s < b : s <= b) hi = k + 1;
        }
        int total = hi > lo ? hi - lo : 0;
        expect_int(c, total, "ZCOUNT k %s%.17g %s%.17g", aex ? "(" : "", a, bex ? "(" : "", b);
        int m = off < total ? total - off : 0;
        if (lim >= 0 && lim < m) m = lim;
        want = mrange(rev ? hi - 1 - off : lo + off, m, rev, 1);
        if (rev)
            expect_list(c, want, "ZREVRANGEBYSCORE k %s%.17g %s%.17g WITHSCORES LIMIT %d %d",
                        bex ? "(" : "", b, aex ? "(" : "", a, off, lim);
        else
            expect_list(c, want, "ZRANGE k %s%.17g %s%.17g BYSCORE LIMIT %d %d WITHSCORES",
                        aex ? "(" : "", a, bex ? "(" : "", b, off, lim);
        free(want);
        break;
    }
    case 9: {
        int a = rand() % (n + 4) - 2 - n / 2, b = rand() % (n + 4) - 2;
        int s0 = a < 0 ? a + n : a, e0 = b < 0 ? b + n : b;
        if (s0 < 0) s0 = 0;
        if (e0 >= n) e0 = n - 1;
        int cnt = (s0 > e0 || s0 >= n) ? 0 : e0 - s0 + 1;
        want = mrange(s0, cnt, 0, 0);
        expect_list(c, want, "ZRANGE k %d %d", a, b);
        free(want);
        want = mrange(n - 1 - s0, cnt, 1, 1);
        expect_list(c, want, "ZREVRANGE k %d %d WITHSCORES", a, b);
        free(want);
        if (rand() % 4 == 0) {
            expect_int(c, cnt, "ZREMRANGEBYRANK k %d %d", a, b);
            for (int k = 0; k < cnt; k++) model[order[s0 + k]].in = 0;
        }
        break;
    }
    case 10: {
        double a = rnd_score(), b = a + (double)(rand() % 6) / 2.0;
        int del = 0;
        for (int k = 0; k < NM; k++)
            if (model[k].in && model[k].s > a && model[k].s <= b) {
                model[k].in = 0;
                del++;
            }
        expect_int(c, del, "ZREMRANGEBYSCORE k (%.17g %.17g", a, b);
        break;
    }
    default:
        model_check_all(c);
        break;
    }
    if (msorted() > 128) model_big = 1;
}

START_TEST(model_random)
{
    redisContext *c = h_c;
    unsigned seed = (unsigned)h_now_ms();
    fprintf(stderr, "test_zset model_random seed %u\n", seed);
    srand(seed);
    memset(model, 0, sizeof model);
    model_big = 0;
    for (int step = 0; step < 6000; step++) {
        model_step(c);
        if (step % 500 == 0) model_check_all(c);
    }
    model_check_all(c);
}
END_TEST

/* Lex ranges vs a model: members of 1..3 letters of "abc", all score 0. */
static int lex_in[40];
static void lex_name(int i, char *buf) { /* 3 + 9 + 27 names */
    if (i < 3) snprintf(buf, 8, "%c", 'a' + i);
    else if (i < 12) snprintf(buf, 8, "%c%c", 'a' + (i - 3) / 3, 'a' + (i - 3) % 3);
    else snprintf(buf, 8, "%c%c%c", 'a' + (i - 12) / 9, 'a' + (i - 12) / 3 % 3, 'a' + (i - 12) % 3);
}

/* A random lex bound and whether member m is above it (min) / below (max). */
static void lex_bound(char *buf, int *kind, char *val) {
    int r = rand() % 10;
    if (r == 0) { strcpy(buf, "-"); *kind = -1; return; }
    if (r == 1) { strcpy(buf, "+"); *kind = 1; return; }
    lex_name(rand() % 39, val);
    *kind = r % 2 ? 2 : 3; /* 2: '[' inclusive, 3: '(' exclusive */
    snprintf(buf, 16, "%c%s", *kind == 2 ? '[' : '(', val);
}

static int lex_ge_min(const char *m, int kind, const char *v) {
    if (kind == -1) return 1;
    if (kind == 1) return 0;
    int c = strcmp(m, v);
    return kind == 2 ? c >= 0 : c > 0;
}

static int lex_le_max(const char *m, int kind, const char *v) {
    if (kind == 1) return 1;
    if (kind == -1) return 0;
    int c = strcmp(m, v);
    return kind == 2 ? c <= 0 : c < 0;
}

START_TEST(model_lex)
{
    redisContext *c = h_c;
    unsigned seed = (unsigned)h_now_ms();
    fprintf(stderr, "test_zset model_lex seed %u\n", seed);
    srand(seed);
    memset(lex_in, 0, sizeof lex_in);
    for (int step = 0; step < 2000; step++) {
        int i = rand() % 39, op = rand() % 4;
        char name[8];
        lex_name(i, name);
        if (op == 0) {
            expect_int(c, !lex_in[i], "ZADD lx 0 %s", name);
            lex_in[i] = 1;
            continue;
        }
        if (op == 1 && rand() % 3 == 0) {
            expect_int(c, lex_in[i], "ZREM lx %s", name);
            lex_in[i] = 0;
            continue;
        }
        char bmin[16], bmax[16], vmin[8] = "", vmax[8] = "";
        int kmin, kmax;
        lex_bound(bmin, &kmin, vmin);
        lex_bound(bmax, &kmax, vmax);
        int off = rand() % 4, lim = rand() % 6 - 1, rev = rand() % 2;
        /* names in lexicographic order */
        char in[39][8];
        int n = 0;
        for (int k = 0; k < 39; k++) {
            char nm[8];
            lex_name(k, nm);
            if (lex_in[k] && lex_ge_min(nm, kmin, vmin) && lex_le_max(nm, kmax, vmax))
                strcpy(in[n++], nm);
        }
        for (int a = 1; a < n; a++)
            for (int b = a; b > 0 && strcmp(in[b - 1], in[b]) > 0; b--) {
                char t[8];
                strcpy(t, in[b]);
                strcpy(in[b], in[b - 1]);
                strcpy(in[b - 1], t);
            }
        if (op == 3 && rand() % 4 == 0) {
            expect_int(c, n, "ZREMRANGEBYLEX lx %s %s", bmin, bmax);
            for (int k = 0; k < 39; k++) {
                char nm[8];
                lex_name(k, nm);
                if (lex_ge_min(nm, kmin, vmin) && lex_le_max(nm, kmax, vmax)) lex_in[k] = 0;
            }
            continue;
        }
        expect_int(c, n, "ZLEXCOUNT lx %s %s", bmin, bmax);
        int m = off < n ? n - off : 0;
        if (lim >= 0 && lim < m) m = lim;
        sbuf b = {NULL, 0, 0};
        sb_add(&b, "");
        b.n = 0;
        for (int k = 0; k < m; k++) sb_add(&b, in[rev ? n - 1 - off - k : off + k]);
        if (rev)
            expect_list(c, b.p, "ZREVRANGEBYLEX lx %s %s LIMIT %d %d", bmax, bmin, off, lim);
        else
            expect_list(c, b.p, "ZRANGEBYLEX lx %s %s LIMIT %d %d", bmin, bmax, off, lim);
        free(b.p);
    }
}
END_TEST

void zset_model_tcases(Suite *s);
void zset_model_tcases(Suite *s)
{
    h_add_tcase(s, "model_random", model_random, 120, h_setup, h_teardown);
    h_add_tcase(s, "model_lex", model_lex, 60, h_setup, h_teardown);
}
