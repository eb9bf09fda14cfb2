/* propagate: the consumer list, the fan-out and the batches that wrap
 * several commands in MULTI/EXEC (see propagate.h). Main thread only. */
#include "propagate.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

typedef struct consumer {
    prop_fn fn;
    void *priv;
    int data_only;        /* prop_add_data: messages are not for it */
} consumer;

static consumer *consumers;
static size_t nconsumers, cap;

static void add(prop_fn fn, void *priv, int data_only) {
    for (size_t i = 0; i < nconsumers; i++)
        assert(consumers[i].fn != fn || consumers[i].priv != priv);
    if (nconsumers == cap) {
        cap = cap ? cap * 2 : 4;
        consumers = xrealloc(consumers, cap * sizeof *consumers);
    }
    consumers[nconsumers++] = (consumer){fn, priv, data_only};
}

void prop_add(prop_fn fn, void *priv) { add(fn, priv, 0); }
void prop_add_data(prop_fn fn, void *priv) { add(fn, priv, 1); }

void prop_remove(prop_fn fn, void *priv) {
    for (size_t i = 0; i < nconsumers; i++) {
        if (consumers[i].fn == fn && consumers[i].priv == priv) {
            memmove(&consumers[i], &consumers[i + 1], (nconsumers - i - 1) * sizeof *consumers);
            nconsumers--;
            return;
        }
    }
}

static int muted; /* prop_mute */

void prop_mute(int on) { muted = on; }

int prop_active(void) { return nconsumers > 0 && !muted; }

/* ---- batches ---- */

typedef struct held {
    int db;
    const cmd_def *d;
    int argc;
    int message;          /* propagate_message: not for data-only consumers */
    arg *argv;            /* argv and the bytes in one allocation */
} held;

static int depth;         /* open batches */
static int unwrapped;     /* the outermost batch's command touches
                             arbitrary keys: no MULTI/EXEC around it */
static held *pending;     /* commands of the outermost batch */
static size_t npending, pending_cap;

static void emit(int dbid, const cmd_def *d, int argc, const arg *argv, int message) {
    for (size_t i = 0; i < nconsumers; i++)
        if (!message || !consumers[i].data_only)
            consumers[i].fn(consumers[i].priv, dbid, d, argc, argv);
}

static void hold(int dbid, const cmd_def *d, int argc, const arg *argv, int message) {
    arg *copy = args_dup(argc, argv);
    if (npending == pending_cap) {
        pending_cap = pending_cap ? pending_cap * 2 : 8;
        pending = xrealloc(pending, pending_cap * sizeof *pending);
    }
    pending[npending++] = (held){dbid, d, argc, message, copy};
}

static void prop(int dbid, const cmd_def *d, int argc, const arg *argv, int message) {
    assert(argc > 0 && d);
    if (nconsumers == 0 || muted) return;
    if (depth > 0) hold(dbid, d, argc, argv, message);
    else emit(dbid, d, argc, argv, message);
}

void propagate(int dbid, const cmd_def *d, int argc, const arg *argv) {
    prop(dbid, d, argc, argv, 0);
}
void propagate_message(int dbid, const cmd_def *d, int argc, const arg *argv) {
    prop(dbid, d, argc, argv, 1);
}

/* MULTI's or EXEC's definition, for the wrapping of a batch: looked up
 * once (the table is built before any command runs). */
static const cmd_def *wrap_def(const cmd_def **cache, const arg *name) {
    if (!*cache) *cache = cmd_lookup(name->p, name->len);
    assert(*cache);
    return *cache;
}

/* The outermost batch's commands to one consumer: those it takes, in
 * MULTI/EXEC when more than one. */
static void emit_pending(const consumer *k) {
    static const arg multi[1] = {{"MULTI", 5}}, exec[1] = {{"EXEC", 4}};
    static const cmd_def *multi_d, *exec_d;
    size_t n = 0, first = 0, last = 0;
    for (size_t i = 0; i < npending; i++) {
        if (pending[i].message && k->data_only) continue;
        if (n++ == 0) first = i;
        last = i;
    }
    if (n == 0) return;
    int wrap = n > 1 && !unwrapped;
    if (wrap) k->fn(k->priv, pending[first].db, wrap_def(&multi_d, multi), 1, multi);
    for (size_t i = first; i <= last; i++)
        if (!pending[i].message || !k->data_only)
            k->fn(k->priv, pending[i].db, pending[i].d, pending[i].argc, pending[i].argv);
    if (wrap) k->fn(k->priv, pending[last].db, wrap_def(&exec_d, exec), 1, exec);
}

void prop_begin(const cmd_def *d) {
    if (depth++ == 0) unwrapped = d && (d->flags & CMD_TOUCHES_ARBITRARY_KEYS);
}

void prop_end_cmd(int dbid, const cmd_def *d, int argc, const arg *argv) {
    assert(depth > 0);
    if (depth > 1 || npending > 0) {
        if (argc > 0) propagate(dbid, d, argc, argv);
        if (--depth > 0) return;
    } else {
        depth--;
        if (argc > 0 && nconsumers > 0 && !muted) { /* the common case */
            assert(d);
            emit(dbid, d, argc, argv, 0);
        }
        return;
    }
    if (npending == 0) return;
    for (size_t k = 0; k < nconsumers; k++) emit_pending(&consumers[k]);
    for (size_t i = 0; i < npending; i++) free(pending[i].argv);
    npending = 0;
}
