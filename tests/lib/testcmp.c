/* testcmp: the tests' qsort comparators (see testcmp.h). */
#include "testcmp.h"

#include <hiredis/hiredis.h>
#include <string.h>

int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmp_reply_str(const void *a, const void *b) {
    const redisReply *x = *(redisReply *const *)a, *y = *(redisReply *const *)b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->str, y->str, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}
