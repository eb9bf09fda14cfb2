/* testcmp: qsort comparators of the tests, for sorting what a server
 * returns in no fixed order (SMEMBERS, KEYS, HGETALL...) before comparing
 * it with what a test expects. */
#ifndef VERSO_TESTCMP_H
#define VERSO_TESTCMP_H

/* Elements are char * (NUL-ended strings): strcmp order. */
int cmp_str(const void *a, const void *b);
/* Elements are redisReply * of strings: byte order, a prefix first. */
int cmp_reply_str(const void *a, const void *b);
/* Elements are long long: ascending. */
int cmp_ll(const void *a, const void *b);

#endif
