/* restore: a snapshot's keys into the databases (see restore.h).
 * Main thread only (startup). */
#include "restore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/db.h"
#include "../src/evict.h"
#include "../src/log.h"
#include "../src/util.h"

#define BATCH 64          /* keys per batch: the prefetch window */

typedef struct item {
    int db;
    obj *key;
    obj *val;
    int64_t expire;
    uint64_t hash;
} item;

/* ---- inserting (main thread) ---- */

static void insert(const item *it) {
    vt_wr w;
    int created;
    vt_entry *e = vt_write(db_get(it->db)->t, it->key->data, it->key->len, 1, &w, &created);
    if (created) evict_new_entry(e);
    obj *old = e->val;
    e->val = it->val;
    vt_set_expire(&w, e, it->expire);
    vt_write_done(&w);
    if (old) obj_decref(old);
    obj_decref(it->key);
}

/* Hash and prefetch the whole batch's buckets, then insert: the misses of a
 * batch overlap instead of coming one after the other. */
static void insert_batch(item *items, int n) {
    for (int i = 0; i < n; i++) {
        items[i].hash = vt_hash(items[i].key->data, items[i].key->len);
        vt_prefetch(db_get(items[i].db)->t, items[i].hash);
    }
    for (int i = 0; i < n; i++) insert(&items[i]);
}

static void drop_items(item *items, int n) {
    for (int i = 0; i < n; i++) {
        obj_decref(items[i].key);
        obj_decref(items[i].val);
    }
}

static void reserve(int db, uint64_t keys) {
    if (db >= 0 && db < server.cfg.databases && vt_size(db_get(db)->t) == 0)
        vt_reserve(db_get(db)->t, (size_t)keys);
}

static int check_db(int db, char *err, size_t errlen) {
    if (db >= 0 && db < server.cfg.databases) return 0;
    snprintf(err, errlen, "database %d out of range (databases is %d)", db,
             server.cfg.databases);
    return -1;
}

static void log_progress(void *priv, uint64_t done, uint64_t total, uint64_t keys) {
    (void)priv;
    log_notice("Loading: %llu keys, %.0f%% of the file (%llu/%llu bytes)",
               (unsigned long long)keys, total ? 100.0 * (double)done / (double)total : 0.0,
               (unsigned long long)done, (unsigned long long)total);
}

/* ---- callbacks ---- */

static struct {
    item items[BATCH];
    int n;
} L;

static void inline_flush(void) {
    insert_batch(L.items, L.n);
    L.n = 0;
}

static void inline_resize(void *priv, int db, uint64_t keys, uint64_t expires) {
    (void)priv;
    (void)expires;
    inline_flush(); /* keys read before go in before a resize */
    reserve(db, keys);
}

static int inline_key(void *priv, int db, obj *key, obj *val, int64_t expire, char *err,
                      size_t errlen) {
    (void)priv;
    if (check_db(db, err, errlen) != 0) {
        obj_decref(key);
        obj_decref(val);
        return -1;
    }
    L.items[L.n++] = (item){db, key, val, expire, 0};
    if (L.n == BATCH) inline_flush();
    return 0;
}

static void inline_end(void *priv, int ok) {
    (void)priv;
    if (ok) inline_flush();
    drop_items(L.items, L.n);
    L.n = 0;
}

static const rdb_load_cb inline_cb = {inline_resize, inline_key, log_progress, inline_end};

const rdb_load_cb *restore_callbacks(void) { return &inline_cb; }

/* ---- main thread ---- */

int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen) {
    return rdb_load_file(path, wall_ms(), &inline_cb, NULL, st, err, errlen);
}
