/* propagate: the consumer list and the fan-out (see propagate.h). Main
 * thread only. */
#include "propagate.h"

#include <assert.h>
#include <string.h>

#include "util.h"

typedef struct consumer {
    prop_fn fn;
    void *priv;
} consumer;

static consumer *consumers;
static size_t nconsumers, cap;

void prop_add(prop_fn fn, void *priv) {
    for (size_t i = 0; i < nconsumers; i++)
        assert(consumers[i].fn != fn || consumers[i].priv != priv);
    if (nconsumers == cap) {
        cap = cap ? cap * 2 : 4;
        consumers = xrealloc(consumers, cap * sizeof *consumers);
    }
    consumers[nconsumers++] = (consumer){fn, priv};
}

void prop_remove(prop_fn fn, void *priv) {
    for (size_t i = 0; i < nconsumers; i++) {
        if (consumers[i].fn == fn && consumers[i].priv == priv) {
            memmove(&consumers[i], &consumers[i + 1], (nconsumers - i - 1) * sizeof *consumers);
            nconsumers--;
            return;
        }
    }
}

int prop_active(void) { return nconsumers > 0; }

void propagate(int dbid, int argc, const arg *argv) {
    assert(argc > 0);
    for (size_t i = 0; i < nconsumers; i++) consumers[i].fn(consumers[i].priv, dbid, argc, argv);
}
