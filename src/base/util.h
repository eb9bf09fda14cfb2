/* util: allocation that never returns NULL, number <-> string conversions
 * with Redis's exact rules, glob matching, splitting and quoting words as
 * Redis does, and clocks.
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

/* Words as Redis's sdssplitargs splits a line (config files, manifests,
 * inline commands): blanks separate words; "..." takes \n \r \t \b \a,
 * \xHH and \<any other> (that character); '...' takes \' only; a quote may
 * open in the middle of a word (ab"cd" is abcd) and its closing quote must
 * be followed by a blank or the end. Empty words ("" or '') are kept.
 *
 * split_word reads the next word of s[0..n) (a C string ending at n or at a
 * NUL) from *pos, appending its bytes at out + *outlen and advancing both;
 * out needs room for n bytes over all the words of s. A word may hold a NUL
 * ("\x00"). Returns 1 for a word, 0 when none is left, -1 on unbalanced
 * quotes. */
int split_word(const char *s, size_t n, size_t *pos, char *out, size_t *outlen);
/* All the words of a C string as NUL-terminated heap strings (a word holding
 * a NUL reads as cut there, as Redis's sdsnew(argv[i]) sees it), or NULL on
 * unbalanced quotes. Free with free_args (which takes NULL). */
char **split_args(const char *line, int *argc);
/* The same, each word's length in *lens (heap, the caller frees it): a
 * word may hold NUL bytes ("\x00"). */
char **split_args_len(const char *line, int *argc, size_t **lens);
void free_args(char **argv, int argc);
/* s quoted as Redis's sdscatrepr, so that split_args gives it back; heap. */
char *quote_arg(const char *s);
/* The same for n bytes, NUL ones too (as "\x00"). */
char *quote_arg_len(const char *s, size_t n);
/* The same written at out, which has room for QUOTE_MAX(n) bytes (no NUL
 * added); returns the bytes written. */
#define QUOTE_MAX(n) (4 * (n) + 2)
size_t quote_into(char *out, const char *s, size_t n);

/* Clocks. Wall-clock time is for what users see (TTLs, LASTSAVE, TIME);
 * durations and scheduling use the monotonic clock. */
int64_t wall_ms(void);
int64_t wall_us(void);
int64_t mono_us(void);
static inline int64_t mono_ms(void) { return mono_us() / 1000; }

/* Fill buf with random bytes (getrandom, falling back to /dev/urandom). */
void random_bytes(void *buf, size_t n);
/* Fast non-cryptographic draws for the commands that pick at random
 * (HRANDFIELD, SRANDMEMBER, SPOP, ZRANDMEMBER): xorshift64*, seeded once
 * from random_bytes. Main thread. */
uint64_t draw_next(void);
/* Uniform in [0, n), n > 0 (the biased tail rejected). */
uint64_t draw_below(uint64_t n);
/* count distinct values of [0, size) (count < size), in random order
 * (malloc'd): a partial Fisher-Yates shuffle when count is a large part of
 * size, else draws into an open-addressed set of those taken. */
uint64_t *draw_distinct(uint64_t count, uint64_t size);

#endif
