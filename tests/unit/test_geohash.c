/* test_geohash: the geo index's arithmetic (src/types/geohash.c) and the
 * order of results (src/commands/geo_sort.c) below the commands. The
 * expected scores, coordinates, hashes and distances are redis-server
 * 7.0.15's replies for the same points (GEOADD, GEOPOS, GEOHASH, GEODIST);
 * the commands' match with Redis is tests/integration/test_geo's and
 * test_geo_diff's. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "geo_sort.h"
#include "geohash.h"

/* A coordinate as Redis prints it ("%.17f", trailing zeros dropped). */
static const char *human(double v) {
    static char buf[2][64];
    static int k;
    char *b = buf[k++ & 1];
    int n = snprintf(b, 64, "%.17f", v);
    while (n > 0 && b[n - 1] == '0') b[--n] = '\0';
    if (n > 0 && b[n - 1] == '.') b[--n] = '\0';
    return b;
}

START_TEST(scores_of_known_points) {
    /* GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania */
    ck_assert_uint_eq(geo_cell52(13.361389, 38.115556), 3479099956230698ULL);
    ck_assert_uint_eq(geo_cell52(15.087269, 37.502669), 3479447370796909ULL);
    ck_assert(geo_score(13.361389, 38.115556) == 3479099956230698.0);
    /* the corners: 0, and one past the last cell on both axes at the top */
    ck_assert_uint_eq(geo_cell52(-180, GEO_LAT_MIN), 0);
    ck_assert_uint_eq(geo_cell52(180, GEO_LAT_MAX), (1ULL << 53) | (1ULL << 52));
    ck_assert_uint_eq(geo_cell52(180, GEO_LAT_MIN) >> 52, 2); /* longitude: odd bits */
    /* above 2^53 the score is the integer rounded to even, as ZADD's */
    uint64_t odd = geo_cell52(180, 0.1);
    ck_assert_uint_ge(odd, 1ULL << 53);
    ck_assert(geo_score(180, 0.1) == (double)odd);
}
END_TEST

START_TEST(decode_and_hash) {
    double xy[2];
    geo_decode_score(3479099956230698.0, xy);
    ck_assert_str_eq(human(xy[0]), "13.36138933897018433");
    ck_assert_str_eq(human(xy[1]), "38.11555639549629859");
    char h[12];
    geo_hash_string(3479099956230698.0, h);
    ck_assert_str_eq(h, "sqc8b49rny0");
    geo_hash_string(3479447370796909.0, h);
    ck_assert_str_eq(h, "sqdtr74hyu0");
    /* scores a GEOADD never gives (ZADD z -1 a inf b 1e300 c 5 d): what
     * Redis's (uint64_t) cast makes of them on x86-64, then clamped */
    ck_assert_uint_eq(geo_score_bits(-1), UINT64_MAX);
    ck_assert_uint_eq(geo_score_bits(INFINITY), 0);
    ck_assert_uint_eq(geo_score_bits(-INFINITY), 1ULL << 63);
    ck_assert_uint_eq(geo_score_bits(1e300), 0);
    ck_assert_uint_eq(geo_score_bits(0x1p63), 1ULL << 63);
    ck_assert_uint_eq(geo_score_bits(1.5), 1);
    geo_decode_score(-1, xy);
    ck_assert_str_eq(human(xy[0]), "180");
    ck_assert_str_eq(human(xy[1]), "85.0511287799999991");
    geo_decode_score(INFINITY, xy);
    ck_assert_str_eq(human(xy[0]), "-179.99999731779098511");
    ck_assert_str_eq(human(xy[1]), "-85.05112751263942528");
    geo_decode_score(5, xy);
    ck_assert_str_eq(human(xy[1]), "-85.05111990847595393");
    geo_hash_string(-1, h);
    ck_assert_str_eq(h, "bp05b5048p0");
    geo_hash_string(5, h);
    ck_assert_str_eq(h, "00bh0hbj240");
}
END_TEST

START_TEST(distances) {
    char buf[64];
    double d = geo_distance(13.36138933897018433, 38.11555639549629859, 15.08726745843887329,
                            37.50266842333162032);
    snprintf(buf, sizeof buf, "%.4f", d);
    ck_assert_str_eq(buf, "166274.1516"); /* GEODIST Sicily Palermo Catania */
    ck_assert(geo_distance(10, 20, 10, 20) == 0);
    /* antipodes: half the circumference */
    double half = geo_distance(0, 0, 180, 0);
    ck_assert(fabs(half - M_PI * 6372797.560856) < 1e-6);
    /* across the antimeridian: the short way */
    ck_assert(geo_distance(179.9, 0, -179.9, 0) < 23000);
    /* symmetric */
    ck_assert(geo_distance(1, 2, 3, 4) == geo_distance(3, 4, 1, 2));
}
END_TEST

START_TEST(cells_and_neighbours) {
    geo_hash h;
    ck_assert(geo_encode(geo_lon_range(), geo_lat_range(), 13.361389, 38.115556, 26, &h));
    ck_assert_uint_eq(geo_align52(h), 3479099956230698ULL);
    /* outside the index's limits, or a bad step */
    ck_assert(!geo_encode(geo_lon_range(), geo_lat_range(), 0, 86, 26, &h));
    ck_assert(!geo_encode(geo_lon_range(), geo_lat_range(), 0, 0, 0, &h));
    ck_assert(!geo_encode(geo_lon_range(), geo_lat_range(), 0, 0, 33, &h));
    /* step 1: 4 cells; from the south-west one every move lands on the
     * others, east and west wrapping around the antimeridian */
    geo_hash sw = {0, 1}, n[8];
    geo_neighbors(sw, n);
    ck_assert_uint_eq(n[GEO_N].bits, 1);  /* latitude bit */
    ck_assert_uint_eq(n[GEO_S].bits, 1);  /* wraps */
    ck_assert_uint_eq(n[GEO_E].bits, 2);  /* longitude bit */
    ck_assert_uint_eq(n[GEO_W].bits, 2);
    ck_assert_uint_eq(n[GEO_NE].bits, 3);
    ck_assert_uint_eq(n[GEO_SW].bits, 3);
    /* the last column at step 26: east wraps to column 0, same row */
    geo_hash east_edge;
    ck_assert(geo_encode(geo_lon_range(), geo_lat_range(), 179.9999999, 10, 26, &east_edge));
    geo_neighbors(east_edge, n);
    geo_area a, b;
    ck_assert(geo_decode(geo_lon_range(), geo_lat_range(), n[GEO_E], &a));
    ck_assert(geo_decode(geo_lon_range(), geo_lat_range(), east_edge, &b));
    ck_assert(a.lon.min == -180);
    ck_assert(a.lat.min == b.lat.min && a.lat.max == b.lat.max);
    /* a cell's score range is its 52-bit prefix */
    uint64_t lo, hi;
    geo_cell_scores((geo_hash){5, 2}, &lo, &hi);
    ck_assert_uint_eq(lo, 5ULL << 48);
    ck_assert_uint_eq(hi, 6ULL << 48);
    /* "no cell" decodes to nothing */
    ck_assert(!geo_decode(geo_lon_range(), geo_lat_range(), (geo_hash){0, 0}, &a));
}
END_TEST

START_TEST(steps_and_cover) {
    ck_assert_uint_eq(geo_steps_for_radius(0, 0), 26);
    ck_assert_uint_eq(geo_steps_for_radius(100000, 0), 7);
    ck_assert_uint_eq(geo_steps_for_radius(100000, 70), 6);  /* wider towards the poles */
    ck_assert_uint_eq(geo_steps_for_radius(100000, -85), 5);
    ck_assert_uint_eq(geo_steps_for_radius(40000000, 0), 1); /* the whole earth */
    ck_assert_uint_eq(geo_steps_for_radius(0.001, 0), 26);
    /* a small circle keeps its centre cell and drops far neighbours */
    geo_shape s = {.type = GEO_CIRCLE, .xy = {13.361389, 38.115556}, .conversion = 1, .radius = 10};
    geo_hash cells[9];
    geo_cover(&s, cells);
    ck_assert_uint_ge(cells[0].step, 20);
    int kept = 0;
    for (int i = 0; i < 9; i++) kept += !(cells[i].bits == 0 && cells[i].step == 0);
    ck_assert_int_ge(kept, 1);
    ck_assert_int_le(kept, 4);
    /* a huge one: step 1, nothing dropped */
    s.radius = 40000;
    s.conversion = 1000;
    geo_cover(&s, cells);
    for (int i = 0; i < 9; i++) ck_assert_uint_eq(cells[i].step, 1);
}
END_TEST

START_TEST(shapes) {
    double d;
    geo_shape c = {.type = GEO_CIRCLE, .xy = {0, 0}, .conversion = 1000, .radius = 100};
    ck_assert(geo_within(&c, 0, 0.8, &d)); /* ~89 km */
    ck_assert(d > 88000 && d < 90000);
    ck_assert(!geo_within(&c, 0, 0.9, &d)); /* ~100.1 km */
    c.radius = 0; /* radius 0: the centre's own position only */
    ck_assert(geo_within(&c, 0, 0, &d));
    ck_assert(d == 0);
    ck_assert(!geo_within(&c, 0, 1e-9, &d));
    /* a box 200 km wide, 20 km high around the equator */
    geo_shape b = {.type = GEO_BOX, .xy = {0, 0}, .conversion = 1000, .width = 200, .height = 20};
    ck_assert(geo_within(&b, 0.8, 0, &d));
    ck_assert(!geo_within(&b, 0, 0.2, &d)); /* ~22 km north */
    ck_assert(geo_within(&b, -0.8, 0.05, &d));
}
END_TEST

static int cmp_dist(const void *a, const void *b) {
    double x = ((const geo_point *)a)->dist, y = ((const geo_point *)b)->dist;
    return x > y ? 1 : x < y ? -1 : 0;
}

START_TEST(sort_partial) {
    enum { N = 500 };
    geo_point v[N], ref[N];
    srand(7);
    for (int count = 1; count <= N; count += 37) {
        for (int i = 0; i < N; i++) {
            /* few distinct distances: many ties */
            v[i] = (geo_point){0, 0, (double)(rand() % 50), (double)i, NULL, 0};
            ref[i] = v[i];
        }
        qsort(ref, N, sizeof *ref, cmp_dist);
        geo_sort(v, N, 0, (size_t)count);
        for (int i = 0; i < count; i++) ck_assert(v[i].dist == ref[i].dist);
        /* still a permutation: each original index once */
        int seen[N] = {0};
        for (int i = 0; i < N; i++) seen[(int)v[i].score]++;
        for (int i = 0; i < N; i++) ck_assert_int_eq(seen[i], 1);
        geo_sort(v, N, 1, (size_t)count); /* descending */
        for (int i = 0; i < count; i++) ck_assert(v[i].dist == ref[N - 1 - i].dist);
    }
}
END_TEST

int main(void) {
    Suite *s = suite_create("geohash");
    TCase *tc = tcase_create("geohash");
    tcase_add_test(tc, scores_of_known_points);
    tcase_add_test(tc, decode_and_hash);
    tcase_add_test(tc, distances);
    tcase_add_test(tc, cells_and_neighbours);
    tcase_add_test(tc, steps_and_cover);
    tcase_add_test(tc, shapes);
    tcase_add_test(tc, sort_partial);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
