/* replica_keys: the keys a writable replica expires itself (see
 * replica_keys.h): a chained hash set of names, each with a bitmap of its
 * databases, walked by a cursor over the buckets. Main thread only. */
#include "replica_keys.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "db.h"
#include "hooks.h"
#include "log.h"
#include "server.h"
#include "util.h"

typedef struct rkey {
    struct rkey *next;
    uint64_t dbs;        /* bit n: set in database n */
    size_t len;
    char name[];
} rkey;

static struct {
    rkey **b;            /* buckets (a power of two of them) */
    size_t nb, n;
    size_t cursor;       /* the next bucket the cron looks at */
} K;

static size_t bucket_of(const char *key, size_t len) {
    return (size_t)XXH3_64bits(key, len) & (K.nb - 1);
}

static void grow(void) {
    size_t nb = K.nb ? K.nb * 2 : 16;
    rkey **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < K.nb; i++)
        for (rkey *k = K.b[i], *next; k; k = next) {
            next = k->next;
            size_t at = (size_t)XXH3_64bits(k->name, k->len) & (nb - 1);
            k->next = b[at];
            b[at] = k;
        }
    free(K.b);
    K.b = b;
    K.nb = nb;
    K.cursor = 0;
}

static void forget_all(void) {
    for (size_t i = 0; i < K.nb; i++)
        for (rkey *k = K.b[i], *next; k; k = next) {
            next = k->next;
            free(k);
        }
    free(K.b);
    memset(&K, 0, sizeof K);
}

void rkeys_expire_set(int dbid, const char *key, size_t len) {
    const client *c = server.current_client;
    if (!server.upstream || server.cfg.replica_read_only || !c || (c->flags & CLIENT_MASTER))
        return;
    if (dbid < 0 || dbid > 63) {
        log_warning("Writable replica used with DB > 63: the expires of its keys are not "
                    "tracked");
        return;
    }
    if (K.n >= K.nb) grow();
    size_t at = bucket_of(key, len);
    for (rkey *k = K.b[at]; k; k = k->next)
        if (k->len == len && !memcmp(k->name, key, len)) {
            k->dbs |= UINT64_C(1) << dbid;
            return;
        }
    rkey *k = xmalloc(sizeof *k + len);
    k->dbs = UINT64_C(1) << dbid;
    k->len = len;
    memcpy(k->name, key, len);
    k->next = K.b[at];
    K.b[at] = k;
    K.n++;
}

/* One name: expires it where its time passed; 1 while some database still
 * holds it with an expire to come. */
static int visit(rkey *k, int64_t now) {
    uint64_t left = 0;
    for (int id = 0; id < 64 && id < server.cfg.databases; id++) {
        uint64_t bit = UINT64_C(1) << id;
        if ((k->dbs & bit) && db_expire_if_due(db_get(id), k->name, k->len, now)) left |= bit;
    }
    k->dbs = left;
    return left != 0;
}

void rkeys_expire_cycle(int64_t budget_us) {
    if (K.n == 0) return;
    int64_t start = mono_us();
    int64_t now = wall_ms();
    for (size_t seen = 0; seen < K.nb; seen++) {
        rkey **link = &K.b[K.cursor];
        while (*link) {
            rkey *k = *link;
            if (visit(k, now)) {
                link = &k->next;
                continue;
            }
            *link = k->next;
            free(k);
            K.n--;
        }
        K.cursor = (K.cursor + 1) & (K.nb - 1);
        if ((seen & 63) == 63 && mono_us() - start >= budget_us) break;
    }
}

size_t rkeys_count(void) { return K.n; }

static void after_flush(int all) {
    if (all) forget_all();
}

static const hooks rkeys_hooks = {
    .name = "replica keys",
    .after_flush = after_flush,
    .dataset_replaced = forget_all,
};

void rkeys_init(void) { hooks_register(&rkeys_hooks); }
