/* propagate: the consumer list, the fan-out and the batches that wrap
 * several commands in MULTI/EXEC (see propagate.h). Main thread only. */
#include "propagate.h"

#include <assert.h>
#include <stdlib.h>
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

/* ---- batches ---- */

typedef struct held {
    int db;
    int argc;
    arg *argv;            /* argv and the bytes in one allocation */
} held;

static int depth;         /* open batches */
static held *pending;     /* commands of the outermost batch */
static size_t npending, pending_cap;

static void emit(int dbid, int argc, const arg *argv) {
    for (size_t i = 0; i < nconsumers; i++) consumers[i].fn(consumers[i].priv, dbid, argc, argv);
}

static void hold(int dbid, int argc, const arg *argv) {
    arg *copy = args_dup(argc, argv);
    if (npending == pending_cap) {
        pending_cap = pending_cap ? pending_cap * 2 : 8;
        pending = xrealloc(pending, pending_cap * sizeof *pending);
    }
    pending[npending++] = (held){dbid, argc, copy};
}

void propagate(int dbid, int argc, const arg *argv) {
    assert(argc > 0);
    if (nconsumers == 0) return;
    if (depth > 0) hold(dbid, argc, argv);
    else emit(dbid, argc, argv);
}

void prop_begin(void) { depth++; }

void prop_end_cmd(int dbid, int argc, const arg *argv) {
    assert(depth > 0);
    if (depth > 1 || npending > 0) {
        if (argc > 0) propagate(dbid, argc, argv);
        if (--depth > 0) return;
    } else {
        depth--;
        if (argc > 0 && nconsumers > 0) emit(dbid, argc, argv); /* the common case */
        return;
    }
    if (npending == 0) return;
    static const arg multi[1] = {{"MULTI", 5}}, exec[1] = {{"EXEC", 4}};
    int wrap = npending > 1;
    if (wrap) emit(pending[0].db, 1, multi);
    for (size_t i = 0; i < npending; i++) {
        emit(pending[i].db, pending[i].argc, pending[i].argv);
        free(pending[i].argv);
    }
    if (wrap) emit(pending[npending - 1].db, 1, exec);
    npending = 0;
}
