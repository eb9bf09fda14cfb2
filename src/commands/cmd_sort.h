/* cmd_sort: SORT and SORT_RO (Redis 7.0's options, replies and errors).
 *
 * The command parses its options, checks the key's type (a string is
 * WRONGTYPE, a missing key sorts as empty) and hands the elements to
 * sort_run, which does the sorting, BY and GET pattern lookups, LIMIT and
 * STORE. The elements come from the sorted key's type: lists, sets and
 * sorted sets each have a feeder (sort_feed_fn) in cmd_sort.c's `feeds`;
 * a hash (no feeder) is WRONGTYPE, as a string. Main thread only. */
#ifndef VERSO_CMD_SORT_H
#define VERSO_CMD_SORT_H

#include "cmd.h"

typedef struct sort_opts {
    int desc, alpha;
    long long limit_start, limit_count; /* -1: none */
    const arg *by;          /* BY pattern, or NULL */
    int dontsort;           /* BY without '*' */
    const arg **gets;       /* GET patterns */
    int ngets;
    const arg *store;       /* STORE destination, or NULL */
} sort_opts;

/* Appends each element of value o to *out (refcounted: one reference
 * each), *n growing. */
typedef void sort_feed_fn(obj *o, obj ***out, size_t *n);

/* Parses argv[2..] (SORT_RO: no STORE); 0 after replying an error.
 * Free o->gets with free(). */
int sort_parse(client *c, int readonly, sort_opts *o);
/* Sorts, selects and replies (or stores) n elements; drops their
 * references and frees elems. */
void sort_run(client *c, const sort_opts *o, obj **elems, size_t n);
/* The value a BY/GET pattern names for an element (Redis's
 * lookupKeyByPattern): "#" is the element itself; the first '*' is
 * replaced by it; "->field" reads a hash field. A new reference, or NULL
 * when the key is missing or not a string (a hash for "->"). */
obj *sort_lookup_pattern(db *d, const arg *pattern, obj *elem);

#endif
