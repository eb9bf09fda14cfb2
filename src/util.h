/* util: allocation that never returns NULL, number <-> string conversions
 * with Redis's exact rules, glob matching, and clocks.
 *
 * Every function here is pure or thread-safe; any thread may call them. */
#ifndef VERSO_UTIL_H
#define VERSO_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* Allocation failure is fatal (as in Redis): log and abort. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* Strict integer parsing as Redis's string2ll: no spaces, no leading '+',
 * no leading zeros, fits in int64. Returns 1 on success, 0 otherwise. */
int str_to_ll(const char *s, size_t len, long long *out);
/* As Redis's string2ld (for INCRBYFLOAT): returns 1 on success. */
int str_to_ld(const char *s, size_t len, long double *out);
/* Writes the decimal form of v into buf (at least 21 bytes); returns length. */
size_t ll_to_str(char *buf, long long v);
/* Formats a long double as Redis's INCRBYFLOAT reply (%.17Lg, trailing
 * zeros removed); buf must hold 5*1024 bytes; returns the length. */
size_t ld_to_str(char *buf, size_t buflen, long double v);
/* Parse a memory size such as "512mb", "1gb", "100" (bytes). Returns 1 on
 * success. */
int str_to_memsize(const char *s, long long *out);

/* Glob-style pattern matching as Redis's stringmatchlen (KEYS, SCAN MATCH). */
int glob_match(const char *pat, size_t patlen, const char *s, size_t slen, int nocase);

/* Clocks. Wall-clock time is for what users see (TTLs, LASTSAVE, TIME);
 * durations and scheduling use the monotonic clock. */
int64_t wall_ms(void);
int64_t wall_us(void);
int64_t mono_us(void);
static inline int64_t mono_ms(void) { return mono_us() / 1000; }

/* Fill buf with random bytes (getrandom, falling back to /dev/urandom). */
void random_bytes(void *buf, size_t n);

#endif
