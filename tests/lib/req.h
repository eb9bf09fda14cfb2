/* req: assertions for hot test loops. Check's ck_assert records every
 * passing check (a write per call); these call into Check only on failure,
 * so loops of millions of checks stay cheap. */
#ifndef VERSO_TEST_REQ_H
#define VERSO_TEST_REQ_H

#include <check.h>

#define REQ(cond)                                                            \
    do {                                                                     \
        if (!(cond)) ck_abort_msg("%s:%d: failed: %s", __FILE__, __LINE__, #cond); \
    } while (0)
/* Equality of two integers (compared and printed as long long). */
#define REQ_EQ(a, b)                                                         \
    do {                                                                     \
        long long a_ = (long long)(a), b_ = (long long)(b);                  \
        if (a_ != b_)                                                        \
            ck_abort_msg("%s:%d: %s == %s failed: %lld != %lld", __FILE__,  \
                         __LINE__, #a, #b, a_, b_);                          \
    } while (0)

#endif
