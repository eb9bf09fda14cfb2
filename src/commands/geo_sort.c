/* geo_sort: see geo_sort.h. The partial sort follows the steps of Redis
 * 7.0's pqsort (pivot choice, three-way partition, insertion sort below 7
 * elements; no early exit on input already in order, which later Redis
 * versions added) on geo_point elements, so that equal distances end where
 * Redis 7.0 puts them. */
#include "geo_sort.h"

#include <assert.h>
#include <stdlib.h>

typedef int cmp_fn(const geo_point *a, const geo_point *b);

static int by_dist(const geo_point *a, const geo_point *b) {
    if (a->dist > b->dist) return 1;
    if (a->dist == b->dist) return 0;
    return -1;
}
static int by_dist_desc(const geo_point *a, const geo_point *b) { return -by_dist(a, b); }

static int qs_asc(const void *a, const void *b) { return by_dist(a, b); }
static int qs_desc(const void *a, const void *b) { return by_dist_desc(a, b); }

static void swap(geo_point *a, geo_point *b) {
    geo_point t = *a;
    *a = *b;
    *b = t;
}

static void vecswap(geo_point *a, geo_point *b, size_t n) {
    for (size_t i = 0; i < n; i++) swap(a + i, b + i);
}

static geo_point *med3(geo_point *a, geo_point *b, geo_point *c, cmp_fn *cmp) {
    return cmp(a, b) < 0 ? (cmp(b, c) < 0 ? b : (cmp(a, c) < 0 ? c : a))
                         : (cmp(b, c) > 0 ? b : (cmp(a, c) < 0 ? a : c));
}

static void insertion(geo_point *a, size_t n, cmp_fn *cmp) {
    for (geo_point *pm = a + 1; pm < a + n; pm++)
        for (geo_point *pl = pm; pl > a && cmp(pl - 1, pl) > 0; pl--) swap(pl, pl - 1);
}

/* Whether [s, e) holds an element of [lo, hi] (pqsort's range test). */
static int overlaps(const geo_point *s, const geo_point *e, const geo_point *lo,
                    const geo_point *hi) {
    return !((lo < s && hi < s) || (lo >= e && hi >= e));
}

static void pqsort(geo_point *a, size_t n, cmp_fn *cmp, const geo_point *lo, const geo_point *hi) {
    for (;;) {
        if (n < 7) {
            insertion(a, n, cmp);
            return;
        }
        geo_point *pm = a + n / 2;
        if (n > 7) {
            geo_point *pl = a, *pn = a + n - 1;
            if (n > 40) {
                size_t d = n / 8;
                pl = med3(pl, pl + d, pl + 2 * d, cmp);
                pm = med3(pm - d, pm, pm + d, cmp);
                pn = med3(pn - 2 * d, pn - d, pn, cmp);
            }
            pm = med3(pl, pm, pn, cmp);
        }
        swap(a, pm);
        /* [a+1, pa) and (pd, a+n) collect the pivot's equals */
        geo_point *pa = a + 1, *pb = a + 1, *pc = a + n - 1, *pd = a + n - 1;
        int r;
        for (;;) {
            while (pb <= pc && (r = cmp(pb, a)) <= 0) {
                if (r == 0) swap(pa++, pb);
                pb++;
            }
            while (pb <= pc && (r = cmp(pc, a)) >= 0) {
                if (r == 0) swap(pc, pd--);
                pc--;
            }
            if (pb > pc) break;
            swap(pb++, pc--);
        }
        geo_point *pn = a + n;
        size_t m = (size_t)(pa - a) < (size_t)(pb - pa) ? (size_t)(pa - a) : (size_t)(pb - pa);
        vecswap(a, pb - m, m);
        size_t left = (size_t)(pd - pc), right = (size_t)(pn - pd - 1);
        m = left < right ? left : right;
        vecswap(pb, pn - m, m);
        size_t below = (size_t)(pb - pa), above = (size_t)(pd - pc);
        if (below > 1 && overlaps(a, a + below, lo, hi)) pqsort(a, below, cmp, lo, hi);
        if (above <= 1) return;
        a = pn - above;
        n = above;
        if (!overlaps(a, a + n, lo, hi)) return;
    }
}

void geo_sort(geo_point *v, size_t n, int desc, size_t count) {
    assert(count <= n);
    if (n == 0) return;
    if (count == n) {
        qsort(v, n, sizeof *v, desc ? qs_desc : qs_asc);
        return;
    }
    if (count == 0) return;
    pqsort(v, n, desc ? by_dist_desc : by_dist, v, v + count - 1);
}
