/* geohash: the geo index's cells, scores, distances and search cover (see
 * geohash.h). The floating-point expressions keep Redis 7.0's operand
 * order (geohash.c, geohash_helper.c): a reordered sum or product would
 * round differently and break bit-for-bit equality of the replies. */
#include "geohash.h"

#include <assert.h>
#include <math.h>

#define EARTH_RADIUS_IN_METERS 6372797.560856
#define MERCATOR_MAX 20037726.37

static const double D_R = M_PI / 180.0;

static double deg_rad(double ang) { return ang * D_R; }
static double rad_deg(double ang) { return ang / D_R; }

/* ---- bit interleaving ---- */

/* The 32 bits of v spread to the even positions of 64. */
static uint64_t spread(uint32_t v) {
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

/* The even bits of x packed into 32 (the inverse of spread). */
static uint32_t compact(uint64_t x) {
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

/* Latitude in the even bits, longitude in the odd ones. */
static uint64_t interleave(uint32_t lat, uint32_t lon) { return spread(lat) | (spread(lon) << 1); }

geo_range geo_lon_range(void) { return (geo_range){GEO_LONG_MIN, GEO_LONG_MAX}; }
geo_range geo_lat_range(void) { return (geo_range){GEO_LAT_MIN, GEO_LAT_MAX}; }

/* ---- cells ---- */

int geo_encode(geo_range lon_r, geo_range lat_r, double lon, double lat, uint8_t step, geo_hash *h) {
    if (step > 32 || step == 0) return 0;
    if (lon > GEO_LONG_MAX || lon < GEO_LONG_MIN || lat > GEO_LAT_MAX || lat < GEO_LAT_MIN) return 0;
    h->bits = 0;
    h->step = step;
    if (lat < lat_r.min || lat > lat_r.max || lon < lon_r.min || lon > lon_r.max) return 0;
    double lat_off = (lat - lat_r.min) / (lat_r.max - lat_r.min);
    double lon_off = (lon - lon_r.min) / (lon_r.max - lon_r.min);
    lat_off *= (double)(1ULL << step);
    lon_off *= (double)(1ULL << step);
    /* in [0, 2^step]: the top edge itself gives 2^step, one bit past the
     * cell's, as in Redis (a score at lon 180 or the top latitude) */
    h->bits = interleave((uint32_t)lat_off, (uint32_t)lon_off);
    return 1;
}

int geo_decode(geo_range lon_r, geo_range lat_r, geo_hash h, geo_area *a) {
    if (h.bits == 0 && h.step == 0) return 0;
    uint32_t ilat = compact(h.bits), ilon = compact(h.bits >> 1);
    double cells = (double)(1ULL << h.step);
    double lat_scale = lat_r.max - lat_r.min, lon_scale = lon_r.max - lon_r.min;
    /* ilat + 1 wraps at 2^32 as Redis's unsigned arithmetic does */
    a->lat.min = lat_r.min + ((double)ilat * 1.0 / cells) * lat_scale;
    a->lat.max = lat_r.min + ((double)(uint32_t)(ilat + 1) * 1.0 / cells) * lat_scale;
    a->lon.min = lon_r.min + ((double)ilon * 1.0 / cells) * lon_scale;
    a->lon.max = lon_r.min + ((double)(uint32_t)(ilon + 1) * 1.0 / cells) * lon_scale;
    return 1;
}

/* One coordinate's cell index moved by d (+1/-1), modulo 2^step. */
static uint32_t move(uint32_t i, int d, uint8_t step) {
    uint64_t mask = (1ULL << step) - 1;
    return (uint32_t)(((uint64_t)i + (uint64_t)(int64_t)d) & mask);
}

static geo_hash moved(geo_hash h, int dlon, int dlat) {
    uint32_t ilat = compact(h.bits), ilon = compact(h.bits >> 1);
    if (dlon) ilon = move(ilon, dlon, h.step);
    if (dlat) ilat = move(ilat, dlat, h.step);
    return (geo_hash){interleave(ilat, ilon), h.step};
}

void geo_neighbors(geo_hash h, geo_hash out[8]) {
    out[GEO_N] = moved(h, 0, 1);
    out[GEO_S] = moved(h, 0, -1);
    out[GEO_E] = moved(h, 1, 0);
    out[GEO_W] = moved(h, -1, 0);
    out[GEO_NE] = moved(h, 1, 1);
    out[GEO_NW] = moved(h, -1, 1);
    out[GEO_SE] = moved(h, 1, -1);
    out[GEO_SW] = moved(h, -1, -1);
}

uint64_t geo_align52(geo_hash h) { return h.bits << (52 - h.step * 2); }

void geo_cell_scores(geo_hash h, uint64_t *min, uint64_t *max) {
    *min = geo_align52(h);
    h.bits++;
    *max = geo_align52(h);
}

/* ---- scores ---- */

uint64_t geo_cell52(double lon, double lat) {
    geo_hash h = {0, 0};
    int ok = geo_encode(geo_lon_range(), geo_lat_range(), lon, lat, GEO_STEP_MAX, &h);
    assert(ok);
    (void)ok;
    return geo_align52(h);
}

double geo_score(double lon, double lat) { return (double)geo_cell52(lon, lat); }

/* cvttsd2si: truncation, or INT64_MIN when out of range or NaN. */
static int64_t x86_truncate(double d) {
    if (d >= -0x1p63 && d < 0x1p63) return (int64_t)d;
    return INT64_MIN;
}

uint64_t geo_score_bits(double score) {
    /* what gcc emits for (uint64_t)d: below 2^63 (or NaN) a signed
     * truncation, else a truncation of d - 2^63 with the top bit flipped */
    if (!(score >= 0x1p63)) return (uint64_t)x86_truncate(score);
    return (uint64_t)x86_truncate(score - 0x1p63) ^ (1ULL << 63);
}

static double clamp(double v, double lo, double hi) {
    if (v > hi) v = hi;
    if (v < lo) v = lo;
    return v;
}

void geo_decode_score(double score, double xy[2]) {
    geo_hash h = {geo_score_bits(score), GEO_STEP_MAX};
    geo_area a;
    int ok = geo_decode(geo_lon_range(), geo_lat_range(), h, &a);
    (void)ok; /* step 26 is never "no cell" */
    xy[0] = clamp((a.lon.min + a.lon.max) / 2, GEO_LONG_MIN, GEO_LONG_MAX);
    xy[1] = clamp((a.lat.min + a.lat.max) / 2, GEO_LAT_MIN, GEO_LAT_MAX);
}

void geo_hash_string(double score, char out[12]) {
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    double xy[2];
    geo_decode_score(score, xy);
    geo_hash h = {0, 0};
    geo_encode((geo_range){-180, 180}, (geo_range){-90, 90}, xy[0], xy[1], 26, &h);
    for (int i = 0; i < 10; i++) out[i] = alphabet[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
    out[10] = '0'; /* 52 bits give 10 characters and 2 bits: Redis prints 0 */
    out[11] = '\0';
}

/* ---- distances and shapes ---- */

double geo_distance(double lon1d, double lat1d, double lon2d, double lat2d) {
    double lat1r = deg_rad(lat1d), lon1r = deg_rad(lon1d);
    double lat2r = deg_rad(lat2d), lon2r = deg_rad(lon2d);
    double u = sin((lat2r - lat1r) / 2);
    double v = sin((lon2r - lon1r) / 2);
    return 2.0 * EARTH_RADIUS_IN_METERS * asin(sqrt(u * u + cos(lat1r) * cos(lat2r) * v * v));
}

int geo_within(const geo_shape *s, double lon, double lat, double *dist) {
    if (s->type == GEO_CIRCLE) {
        *dist = geo_distance(s->xy[0], s->xy[1], lon, lat);
        return *dist <= s->radius * s->conversion;
    }
    double width = s->width * s->conversion, height = s->height * s->conversion;
    /* the box is axis-aligned: its half-width along the point's parallel,
     * its half-height along the point's meridian */
    double lon_dist = geo_distance(lon, lat, s->xy[0], lat);
    double lat_dist = geo_distance(lon, lat, lon, s->xy[1]);
    if (lon_dist > width / 2 || lat_dist > height / 2) return 0;
    *dist = geo_distance(s->xy[0], s->xy[1], lon, lat);
    return 1;
}

uint8_t geo_steps_for_radius(double meters, double lat) {
    if (meters == 0) return 26;
    int step = 1;
    while (meters < MERCATOR_MAX) {
        meters *= 2;
        step++;
    }
    step -= 2; /* so that most radii fit in the 9 cells */
    if (lat > 66 || lat < -66) { /* meridians converge towards the poles */
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > 26) step = 26;
    return (uint8_t)step;
}

/* The shape's bounding box: [0] min lon, [1] min lat, [2] max lon, [3] max
 * lat; the longitude span taken at the latitude edge nearer the pole. */
static void bounding_box(const geo_shape *s, double b[4]) {
    double lon = s->xy[0], lat = s->xy[1];
    double height = s->conversion * (s->type == GEO_CIRCLE ? s->radius : s->height / 2);
    double width = s->conversion * (s->type == GEO_CIRCLE ? s->radius : s->width / 2);
    const double lat_delta = rad_deg(height / EARTH_RADIUS_IN_METERS);
    const double lon_delta_top = rad_deg(width / EARTH_RADIUS_IN_METERS / cos(deg_rad(lat + lat_delta)));
    const double lon_delta_bottom = rad_deg(width / EARTH_RADIUS_IN_METERS / cos(deg_rad(lat - lat_delta)));
    int south = lat < 0;
    b[0] = south ? lon - lon_delta_bottom : lon - lon_delta_top;
    b[2] = south ? lon + lon_delta_bottom : lon + lon_delta_top;
    b[1] = lat - lat_delta;
    b[3] = lat + lat_delta;
}

static void cells_at(const geo_shape *s, uint8_t steps, geo_hash cells[9], geo_area *area) {
    geo_encode(geo_lon_range(), geo_lat_range(), s->xy[0], s->xy[1], steps, &cells[0]);
    geo_neighbors(cells[0], cells + 1);
    geo_decode(geo_lon_range(), geo_lat_range(), cells[0], area);
}

static void drop(geo_hash cells[9], int a, int b, int c) {
    cells[1 + a] = cells[1 + b] = cells[1 + c] = (geo_hash){0, 0};
}

void geo_cover(const geo_shape *s, geo_hash cells[9]) {
    double b[4];
    bounding_box(s, b);
    double min_lon = b[0], min_lat = b[1], max_lon = b[2], max_lat = b[3];
    double radius = s->type == GEO_CIRCLE
                        ? s->radius
                        : sqrt((s->width / 2) * (s->width / 2) + (s->height / 2) * (s->height / 2));
    radius *= s->conversion;
    uint8_t steps = geo_steps_for_radius(radius, s->xy[1]);
    geo_area area;
    cells_at(s, steps, cells, &area);

    /* A step one coarser when a side neighbour does not reach the box's
     * edge (a centre near its cell's border). */
    geo_area n, so, e, w;
    geo_range lonr = geo_lon_range(), latr = geo_lat_range();
    geo_decode(lonr, latr, cells[1 + GEO_N], &n);
    geo_decode(lonr, latr, cells[1 + GEO_S], &so);
    geo_decode(lonr, latr, cells[1 + GEO_E], &e);
    geo_decode(lonr, latr, cells[1 + GEO_W], &w);
    int coarser = n.lat.max < max_lat || so.lat.min > min_lat || e.lon.max < max_lon ||
                  w.lon.min > min_lon;
    if (steps > 1 && coarser) {
        steps--;
        cells_at(s, steps, cells, &area);
    }

    /* The neighbours beyond an edge the box does not cross hold nothing. */
    if (steps >= 2) {
        if (area.lat.min < min_lat) drop(cells, GEO_S, GEO_SW, GEO_SE);
        if (area.lat.max > max_lat) drop(cells, GEO_N, GEO_NE, GEO_NW);
        if (area.lon.min < min_lon) drop(cells, GEO_W, GEO_SW, GEO_NW);
        if (area.lon.max > max_lon) drop(cells, GEO_E, GEO_SE, GEO_NE);
    }
}
