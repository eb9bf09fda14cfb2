/* restore: a snapshot's keys into the databases (see restore.h).
 * Main thread only (startup), except restore_into_tables (any one thread,
 * into tables nobody else sees yet). */
#include "restore.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "db.h"
#include "evict.h"
#include "function.h"
#include "log.h"
#include "util.h"

#define BATCH 64          /* keys per batch: the prefetch window */

typedef struct item {
    int db;
    obj *key;
    obj *val;
    int64_t expire;
    uint64_t hash;
    uint64_t at;          /* offset of the key's record, for errors */
} item;

/* ---- inserting (main thread) ---- */

/* A loaded value into a created entry: val (taken) becomes the kv of key,
 * made with its expire slot when it has one, so that vt_set_expire does not
 * copy it again. */
static void insert_val(vt_wr *w, vt_entry *e, const obj *key, obj *val, int64_t expire) {
    if (!obj_is_kv(val)) val = obj_kv_make(val, key->data, key->len, NULL, expire);
    vt_set_val(w, e, val);
    vt_set_expire(w, e, expire);
}

/* DEBUG RELOAD MERGE (restore_set_merge): a key or a function library
 * already there is replaced. */
static int merge_dups;

void restore_set_merge(int on) { merge_dups = on; }

/* 0, or -1 when the key is already there (a duplicated key in the file:
 * Redis refuses to load it) unless merge_dups. The insert looks the key up
 * anyway, so the check costs nothing; a refused item is left to the
 * caller. */
static int insert(const item *it) {
    vt_wr w;
    int created;
    /* the hash computed for the prefetch */
    vt_entry *e = vt_insert_hashed(db_get(it->db)->t, it->hash, it->key->data, it->key->len,
                                   &w, &created);
    if (!created && merge_dups) {
        obj *old = e->val;
        insert_val(&w, e, it->key, it->val, it->expire);
        vt_write_done(&w);
        obj_decref(old);
        obj_decref(it->key);
        return 0;
    }
    if (!created) {
        vt_write_done(&w);
        return -1;
    }
    assert(e->val == NULL);
    w.access = evict_new_clock();
    insert_val(&w, e, it->key, it->val, it->expire);
    vt_write_done(&w);
    obj_decref(it->key);
    return 0;
}

static void drop_items(item *items, int n);

/* ---- faulting the heap in (main thread) ----
 * glibc's malloc grows its main heap with brk, ~132 KB at a time, and the
 * keys and values of a load land on those fresh pages: one page fault each
 * (~94K for 1M keys x 300 B). Each time the break has moved, the new part
 * is faulted in with one madvise(MADV_POPULATE_WRITE) (Linux >= 5.14): the
 * kernel still zeroes every page, but takes no trap per page (measured
 * here: 400 MB in 0.13 s of CPU instead of 0.17 s). An allocator that does
 * not grow the heap with brk (jemalloc, ASan's) leaves the break where it
 * is, and then nothing is done. Huge pages would fault 512x less often,
 * but on the 2-vCPU VM of doc/benchmarks.md their zeroing cost more than
 * they saved (glibc.malloc.hugetlb=1: 0.6-0.9 s of system time per load
 * instead of 0.2-0.3 s). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static struct {
    uintptr_t done;   /* the heap below is faulted in (page aligned) */
    uintptr_t page;   /* the page size */
    int off;          /* the kernel refused once: stop trying */
} H;

static void heap_populate(void) {
    if (H.off) return;
    void *cur = sbrk(0); /* glibc: the cached break, no system call */
    if (cur == (void *)-1) {
        H.off = 1;
        return;
    }
    if (!H.page) H.page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t brk = (uintptr_t)cur & ~(H.page - 1);
    if (H.done == 0 || brk < H.done) {
        /* first call (what is there is in use already), or the heap shrank */
        H.done = brk;
        return;
    }
    if (brk == H.done) return;
    if (madvise((void *)H.done, brk - H.done, MADV_POPULATE_WRITE) != 0 && errno != EINTR) {
        H.off = 1;    /* EINVAL before Linux 5.14; ENOMEM: the faults will say */
        return;
    }
    H.done = brk;     /* (interrupted: those pages fault in one by one) */
}

/* Hash and prefetch the whole batch's buckets, then insert: the misses of a
 * batch overlap instead of coming one after the other. 0, or -1 on a
 * duplicated key with err naming it and *at its offset (the batch is
 * consumed either way). */
static int insert_batch(item *items, int n, uint64_t *at, char *err, size_t errlen) {
    for (int i = 0; i < n; i++) {
        vt *t = db_get(items[i].db)->t;
        items[i].hash = vt_key_hash(t, items[i].key->data, items[i].key->len);
        vt_prefetch(t, items[i].hash);
    }
    for (int i = 0; i < n; i++) {
        if (insert(&items[i]) == 0) continue;
        const obj *k = items[i].key;
        snprintf(err, errlen, "Duplicated key '%.*s%s' found in RDB file (database %d)",
                 k->len > 200 ? 200 : (int)k->len, k->data, k->len > 200 ? "..." : "",
                 items[i].db);
        *at = items[i].at;
        drop_items(items + i, n - i);
        return -1;
    }
    return 0;
}

static void drop_items(item *items, int n) {
    for (int i = 0; i < n; i++) {
        obj_decref(items[i].key);
        obj_decref(items[i].val);
    }
}

/* Pre-sizing a big table faults in (and the kernel zeroes) its segments:
 * up to a second on a busy machine; clients are served meanwhile. */
static void reserve_tick(void *unused) {
    (void)unused;
    server_loading_events();
}

static void reserve(int dbid, uint64_t keys) {
    if (dbid >= 0 && dbid < server.cfg.databases && vt_size(db_get(dbid)->t) == 0)
        vt_reserve_ticked(db_get(dbid)->t, (size_t)keys, reserve_tick, NULL);
}

static int check_db(int dbid, char *err, size_t errlen) {
    if (dbid >= 0 && dbid < server.cfg.databases) return 0;
    snprintf(err, errlen, "database %d out of range (databases is %d)", dbid,
             server.cfg.databases);
    return -1;
}

/* Called every 4 KiB of the file: the core serves clients now and then
 * (server_loading_progress); the log gets a line every second. */
static void load_progress(void *priv, uint64_t done, uint64_t total, uint64_t keys) {
    (void)priv;
    static int64_t next_log_ms;
    server_loading_progress(done, total);
    int64_t now = mono_ms();
    if (!next_log_ms) next_log_ms = now + 1000;
    if (now < next_log_ms) return;
    next_log_ms = now + 1000;
    log_notice("Loading: %llu keys, %.0f%% of the file (%llu/%llu bytes)",
               (unsigned long long)keys, total ? 100.0 * (double)done / (double)total : 0.0,
               (unsigned long long)done, (unsigned long long)total);
}

/* ---- callbacks ---- */

static struct {
    item items[BATCH];
    int n;
} L;

static int inline_flush(uint64_t *at, char *err, size_t errlen) {
    int rc = insert_batch(L.items, L.n, at, err, errlen);
    L.n = 0;
    return rc;
}

/* A resize comes between keys; a duplicate found by its flush is reported
 * at the next key (or at the end of the data). */
static struct {
    int failed;
    uint64_t at;
    char err[RDB_ERRLEN];
} pending;

static void inline_resize(void *priv, int dbid, uint64_t keys, uint64_t expires) {
    (void)priv;
    (void)expires;
    /* keys read before go in before a resize */
    if (!pending.failed && inline_flush(&pending.at, pending.err, sizeof pending.err) != 0)
        pending.failed = 1;
    reserve(dbid, keys);
}

/* key-load-delay, as Redis's debugDelay: usec > 0 sleeps that long; usec < 0
 * sleeps 1 us once in -usec keys (on average). */
static void key_load_delay(int usec) {
    if (usec < 0) usec = (rand() % -usec) == 0 ? 1 : 0;
    if (usec) usleep((useconds_t)usec);
}

/* key == NULL: the data ended, insert the rest. */
static int inline_key_at(void *priv, int dbid, obj *key, obj *val, int64_t expire, uint64_t *at,
                         char *err, size_t errlen) {
    (void)priv;
    if (pending.failed) {
        if (key) obj_decref(key);
        if (val) obj_decref(val);
        *at = pending.at;
        snprintf(err, errlen, "%s", pending.err);
        return -1;
    }
    if (!key) return inline_flush(at, err, errlen);
    heap_populate();
    if (server.cfg.key_load_delay) key_load_delay(server.cfg.key_load_delay);
    if (check_db(dbid, err, errlen) != 0) {
        obj_decref(key);
        obj_decref(val);
        return -1;
    }
    L.items[L.n++] = (item){dbid, key, val, expire, 0, *at};
    if (L.n == BATCH) return inline_flush(at, err, errlen);
    return 0;
}

static int inline_key(void *priv, int dbid, obj *key, obj *val, int64_t expire, char *err,
                      size_t errlen) {
    uint64_t at = 0;
    return inline_key_at(priv, dbid, key, val, expire, &at, err, errlen);
}

static void inline_end(void *priv, int ok) {
    (void)priv;
    uint64_t at;
    char err[RDB_ERRLEN];
    if (ok && L.n) {
        /* a loader without key_at never flushed: insert the rest (a refused
         * key cannot be reported from here) */
        if (inline_flush(&at, err, sizeof err) != 0) log_warning("%s", err);
    }
    drop_items(L.items, L.n);
    L.n = 0;
    pending.failed = 0;
    H.done = 0; /* the next load starts from the break it finds */
}

/* A function library: created at once (the loading environment has no
 * timeout); a library or function that exists already fails the load, as
 * Redis's rdbFunctionLoad. */
static int inline_function(void *priv, const char *code, size_t len, char *err, size_t errlen) {
    (void)priv;
    char *why = NULL;
    char *name = function_create(code, len, merge_dups, 0, &why); /* MERGE: replaced */
    if (!name) {
        snprintf(err, errlen, "Failed loading library, %s", why);
        free(why);
        return -1;
    }
    free(name);
    return 0;
}

static const rdb_load_cb inline_cb = {inline_resize, inline_key, load_progress, inline_end,
                                      inline_key_at, inline_function};

const rdb_load_cb *restore_callbacks(void) { return &inline_cb; }

/* ---- main thread ---- */

int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen) {
    return rdb_load_file(path, wall_ms(), &inline_cb, NULL, st, err, errlen);
}

/* ---- into fresh tables (a replica's loader thread) ---- */

typedef struct into_ctx {
    vt **tables;
    int ntables;
    uint32_t access;
    int key_load_delay;
    obj **functions;     /* the libraries' codes, for the main thread */
    size_t nfunctions;
} into_ctx;

/* A library is kept as its code: the Lua state is the main thread's, which
 * creates the libraries when it swaps the tables in. */
static int into_function(void *priv, const char *code, size_t len, char *err, size_t errlen) {
    into_ctx *x = priv;
    (void)err;
    (void)errlen;
    x->functions = xrealloc(x->functions, (x->nfunctions + 1) * sizeof *x->functions);
    x->functions[x->nfunctions++] = obj_new_raw(code, len);
    return 0;
}

static void into_resize(void *priv, int dbid, uint64_t keys, uint64_t expires) {
    into_ctx *x = priv;
    (void)expires;
    if (dbid >= 0 && dbid < x->ntables && vt_size(x->tables[dbid]) == 0)
        vt_reserve(x->tables[dbid], (size_t)keys);
}

static int into_key(void *priv, int dbid, obj *key, obj *val, int64_t expire, char *err,
                    size_t errlen) {
    into_ctx *x = priv;
    if (dbid < 0 || dbid >= x->ntables) {
        snprintf(err, errlen, "database %d out of range (databases is %d)", dbid, x->ntables);
        obj_decref(key);
        obj_decref(val);
        return -1;
    }
    if (x->key_load_delay) key_load_delay(x->key_load_delay);
    vt_wr w;
    int created;
    vt_entry *e = vt_write(x->tables[dbid], key->data, key->len, 1, &w, &created);
    if (!created) {
        vt_write_done(&w);
        snprintf(err, errlen, "Duplicated key '%.*s%s' found in RDB file (database %d)",
                 key->len > 200 ? 200 : (int)key->len, key->data, key->len > 200 ? "..." : "",
                 dbid);
        obj_decref(key);
        obj_decref(val);
        return -1;
    }
    assert(e->val == NULL);
    w.access = x->access;
    insert_val(&w, e, key, val, expire);
    vt_write_done(&w);
    obj_decref(key);
    return 0;
}

int restore_into_tables(source *src, vt **tables, int ntables, uint32_t access,
                        int key_load_delay, rdb_load_stats *st, char *err, size_t errlen) {
    static const rdb_load_cb into_cb = {into_resize, into_key, NULL, NULL, NULL, into_function};
    into_ctx x = {tables, ntables, access, key_load_delay, NULL, 0};
    /* now_ms 0: no key counts as expired */
    int rc = rdb_load(src, 0, &into_cb, &x, st, err, errlen);
    if (rc == 0) {
        st->functions = x.functions;
        st->nfunctions = x.nfunctions;
    } else {
        for (size_t i = 0; i < x.nfunctions; i++) obj_decref(x.functions[i]);
        free(x.functions);
    }
    return rc;
}
