/* lpsize: the byte sizes of Redis's listpack elements (listpack.c's
 * lpEncodeIntegerGetType, lpEncodeString and lpEncodeBacklen boundaries).
 * Shared by the writers of listpacks (snapshot/listpack.c) and by the types
 * that mirror where Redis cuts its listpack nodes (t_stream.c's node sizes,
 * which decide XTRIM ~ and the RDB's nodes). Pure functions, any thread. */
#ifndef VERSO_LPSIZE_H
#define VERSO_LPSIZE_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Bytes of the back-length that follows an element of l bytes (`<` and
 * not `<=` beyond the first boundary, as lpEncodeBacklen). */
static inline size_t lp_backlen_size(uint64_t l) {
    if (l <= 127) return 1;
    if (l < 16383) return 2;
    if (l < 2097151) return 3;
    if (l < 268435455) return 4;
    return 5;
}

/* Integer encoding size (header + data). */
static inline size_t lp_int_size(long long v) {
    if (v >= 0 && v <= 127) return 1;
    if (v >= -4096 && v <= 4095) return 2;
    if (v >= -32768 && v <= 32767) return 3;
    if (v >= -8388608 && v <= 8388607) return 4;
    if (v >= -2147483648LL && v <= 2147483647LL) return 5;
    return 9;
}

/* String encoding size (header + data). */
static inline size_t lp_str_size(size_t n) {
    if (n < 64) return 1 + n;
    if (n < 4096) return 2 + n;
    return 5 + n;
}

/* Bytes an integer element takes, back-length included. */
static inline size_t lp_int_entry_size(long long v) {
    size_t l = lp_int_size(v);
    return l + lp_backlen_size(l);
}

/* Bytes lpAppend adds for these bytes: an integer encoding when they are a
 * canonical int64 (str_to_ll), else a string one; back-length included. */
static inline size_t lp_entry_size(const char *p, size_t n) {
    long long v;
    size_t l = str_to_ll(p, n, &v) ? lp_int_size(v) : lp_str_size(n);
    return l + lp_backlen_size(l);
}

#endif
