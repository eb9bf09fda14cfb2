/* geohash: the arithmetic of Redis 7.0's geo index, as pure functions. A
 * position is stored as a sorted set score: the 26-bit longitude and
 * latitude cells (over -180..180 and -85.05112878..85.05112878, the
 * Web Mercator limits) interleaved into a 52-bit integer, latitude bits in
 * the even positions. A search covers its shape with the cell that holds
 * the centre and its 8 neighbours, at a precision (step) estimated from the
 * radius, then checks each candidate with the haversine distance. Every
 * number here is computed in the order Redis's geohash.c and
 * geohash_helper.c compute it, so that scores, distances and coordinates
 * are the same doubles bit for bit. No state; any thread. */
#ifndef VERSO_GEOHASH_H
#define VERSO_GEOHASH_H

#include <stddef.h>
#include <stdint.h>

#define GEO_LAT_MIN (-85.05112878)
#define GEO_LAT_MAX 85.05112878
#define GEO_LONG_MIN (-180.0)
#define GEO_LONG_MAX 180.0
#define GEO_STEP_MAX 26 /* 26 bits per coordinate: 52 in a score */

/* A cell: `step` bits of each coordinate, interleaved in the low 2*step
 * bits. bits 0 with step 0 is "no cell" (an excluded neighbour). */
typedef struct geo_hash { uint64_t bits; uint8_t step; } geo_hash;
typedef struct geo_range { double min, max; } geo_range;
typedef struct geo_area { geo_range lon, lat; } geo_area;

/* The cell of (lon, lat) at `step` (1..32) within the ranges: 1, or 0 when
 * the point is outside them or the WGS84 limits (*h untouched then when
 * the arguments are invalid). */
int geo_encode(geo_range lon_r, geo_range lat_r, double lon, double lat, uint8_t step, geo_hash *h);
/* The rectangle a cell covers: 1, or 0 for "no cell". */
int geo_decode(geo_range lon_r, geo_range lat_r, geo_hash h, geo_area *a);
/* The index's own ranges (WGS84 longitude, Mercator latitude). */
geo_range geo_lon_range(void);
geo_range geo_lat_range(void);

/* The 8 neighbours of a cell, in Redis's order: north, south, east, west,
 * north-east, north-west, south-east, south-west. East of the last column
 * wraps to the first (the antimeridian), and so on. */
enum { GEO_N, GEO_S, GEO_E, GEO_W, GEO_NE, GEO_NW, GEO_SE, GEO_SW };
void geo_neighbors(geo_hash h, geo_hash out[8]);

/* The cell's bits shifted to 52 bits: the smallest score inside it. */
uint64_t geo_align52(geo_hash h);
/* The scores of a cell's members: [*min, *max). */
void geo_cell_scores(geo_hash h, uint64_t *min, uint64_t *max);

/* The 52-bit cell of a valid (lon, lat) (bit 52 or 53 set at the top
 * latitude or at longitude 180), and the score GEOADD stores for it: that
 * integer as a double (rounded to even above 2^53, as Redis's ZADD of its
 * decimal text is). */
uint64_t geo_cell52(double lon, double lat);
double geo_score(double lon, double lat);
/* A score back to its 64 bits as Redis's (uint64_t) cast does on x86-64
 * (negative and out-of-range scores included: a sorted set may hold any
 * score). */
uint64_t geo_score_bits(double score);
/* The centre of the 52-bit cell of a score, clamped into the index's
 * ranges: xy[0] longitude, xy[1] latitude. Every score decodes. */
void geo_decode_score(double score, double xy[2]);
/* GEOHASH's 11 characters (the position re-encoded over latitude -90..90,
 * base32, the 11th always '0'); out holds 12 bytes. */
void geo_hash_string(double score, char out[12]);

/* Great-circle distance in meters (haversine on a sphere of radius
 * 6372797.560856 m). */
double geo_distance(double lon1, double lat1, double lon2, double lat2);

/* A search shape. Sizes are in the unit, conversion is meters per unit. */
enum { GEO_CIRCLE = 1, GEO_BOX = 2 };
typedef struct geo_shape {
    int type;
    double xy[2];        /* the centre */
    double conversion;
    double radius;       /* GEO_CIRCLE */
    double width, height; /* GEO_BOX */
} geo_shape;

/* Whether the point (lon, lat) is inside the shape; *dist is then its
 * distance to the centre in meters. */
int geo_within(const geo_shape *s, double lon, double lat, double *dist);

/* The cells to scan for a shape: cells[0] the centre's, then the
 * neighbours in geo_neighbors's order; those that cannot hold a match are
 * "no cell" (bits 0, step 0). */
void geo_cover(const geo_shape *s, geo_hash cells[9]);
/* The step geo_cover starts from for a radius in meters at latitude lat. */
uint8_t geo_steps_for_radius(double meters, double lat);

#endif
