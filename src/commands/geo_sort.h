/* geo_sort: the order of a geo search's matches, by distance, as Redis 7.0
 * gives it: the C library's qsort when every match is returned, else
 * Redis's partial quicksort (pqsort.c: Bentley & McIlroy's, recursing only
 * into the parts that overlap the first `count`). Matches at equal
 * distances then come out in the same order as Redis's, which a
 * different sort would not give. Main thread only (no state). */
#ifndef VERSO_GEO_SORT_H
#define VERSO_GEO_SORT_H

#include <stddef.h>

/* One match: its decoded position, distance to the centre in meters, score
 * and a copy of the member (owned by the array's user). */
typedef struct geo_point {
    double lon, lat, dist, score;
    char *member;
    size_t len;
} geo_point;

/* Sorts v[0..n) by distance (descending when desc) so that v[0..count)
 * are the first count in that order (count <= n; all of v when count == n). */
void geo_sort(geo_point *v, size_t n, int desc, size_t count);

#endif
