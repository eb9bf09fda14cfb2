/* testrand: the tests' random numbers. One generator (splitmix64: any seed,
 * zero included, gives a full-period stream), drawn either from the
 * program's own stream (rnd, restarted by rnd_seed) or from a stream whose
 * state the caller keeps (rnd_r: one per thread or per model). A test whose
 * seed is not fixed takes it from rnd_seed_env, which prints it, so that
 * setting the variable it names repeats a failing run.
 *
 * The program's stream is not locked: a threaded test draws from it on one
 * thread only, or gives each thread its own rnd_r state. */
#ifndef VERSO_TESTRAND_H
#define VERSO_TESTRAND_H

#include <assert.h>
#include <stdint.h>

/* The next number of the stream whose state is *state (advances it). */
uint64_t rnd_r(uint64_t *state);

/* The next number of the program's stream (seeded 0x9e3779b97f4a7c15 until
 * rnd_seed). */
uint64_t rnd(void);
void rnd_seed(uint64_t seed);

/* From the program's stream: [0, n) (0 when n is 0), [0, n) as an int
 * (n > 0), [lo, hi] (lo <= hi). Inline, so that the compiler sees their
 * ranges (snprintf of a drawn number into a small buffer). */
static inline uint64_t rnd_below(uint64_t n) { return n ? rnd() % n : 0; }

static inline int rnd_int(int n) {
    assert(n > 0);
    return (int)(rnd() % (uint64_t)n);
}

static inline long long rnd_in(long long lo, long long hi) {
    assert(lo <= hi);
    return lo + (long long)(rnd() % ((uint64_t)(hi - lo) + 1));
}

/* $var as a decimal seed when set, else one from the clock and the pid;
 * prints "<name>: <var>=<seed>" on stdout, seeds the program's stream with
 * it and returns it. */
uint64_t rnd_seed_env(const char *name, const char *var);

#endif
