/* test_coll_diff: the random command generator (test_coll_diff_gen.c) and
 * the driver that runs each command on verso and on redis-server and
 * compares the replies (test_coll_diff.c) share this. */
#ifndef TEST_COLL_DIFF_H
#define TEST_COLL_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* How the two replies are compared (see test_coll_diff.c). */
enum {
    M_EXACT,   /* byte for byte */
    M_SORT,    /* an array whose order is unspecified: as a multiset */
    M_PAIRS,   /* a flat field/value array in unspecified order: pairs as a multiset */
    M_SCAN,    /* xSCAN key 0 ...: the whole iteration's elements as a set */
    M_RAND,    /* HRANDFIELD / SRANDMEMBER / ZRANDMEMBER: by properties */
    M_SPOP,    /* SPOP: by properties, then both servers made equal again */
    M_TTL,     /* TTL / PTTL: equal when negative, else close */
    M_MEMORY,  /* MEMORY USAGE: both an integer, or both the same other reply */
    M_NOSORT,  /* SORT .. BY nosort: exact unless the key is a set */
};

enum { DC_MAXARGS = 96 };

typedef struct dcmd {
    int argc;
    char *argv[DC_MAXARGS]; /* malloc'd */
    size_t len[DC_MAXARGS];
    int mode;
} dcmd;

uint64_t dc_rand(void);
void dc_seed(uint64_t seed);
/* One random command into c (dc_free releases its arguments). */
void dc_gen(dcmd *c);
void dc_push(dcmd *c, const char *s);
void dc_free(dcmd *c);
/* The keys the generator uses (for the state comparison: every key). */

#endif
