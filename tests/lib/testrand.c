/* testrand: the tests' random numbers (see testrand.h). */
#include "testrand.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static uint64_t g_state = 0x9e3779b97f4a7c15ULL;

uint64_t rnd_r(uint64_t *state) { /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t rnd(void) { return rnd_r(&g_state); }

void rnd_seed(uint64_t seed) { g_state = seed; }

uint64_t rnd_seed_env(const char *name, const char *var) {
    const char *e = getenv(var);
    uint64_t s = e && *e ? strtoull(e, NULL, 10)
                         : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    printf("%s: %s=%llu\n", name, var, (unsigned long long)s);
    fflush(stdout);
    rnd_seed(s);
    return s;
}
