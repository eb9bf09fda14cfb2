/* restore: a snapshot's keys into the databases (see restore.h).
 *
 * Thread boundary: the decoder thread and the main thread meet only in the
 * batch queue (q_lock + two condition variables, never held across work).
 * The decoder reads server.cfg.databases, which nothing changes before the
 * loop starts; it never touches a table. */
#include "restore.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/db.h"
#include "../src/log.h"
#include "../src/util.h"

#define BATCH 64          /* keys per batch: the prefetch window */
#define QUEUE_MAX 256     /* batches the decoder may run ahead */

typedef struct item {
    int db;
    obj *key;
    obj *val;
    int64_t expire;
    uint64_t hash;
} item;

enum { B_KEYS, B_RESIZE, B_END };

typedef struct batch {
    struct batch *next;
    int kind;
    int db;               /* B_RESIZE */
    uint64_t keys;        /* B_RESIZE */
    int n;                /* B_KEYS */
    item items[BATCH];
} batch;

/* ---- inserting (main thread) ---- */

static void insert(const item *it) {
    vt_wr w;
    int created;
    vt_entry *e = vt_write(db_get(it->db)->t, it->key->data, it->key->len, 1, &w, &created);
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

/* ---- in-line callbacks (AOF base) ---- */

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

/* ---- the decoder thread ---- */

typedef struct decoder {
    /* set before the thread starts */
    const char *path;
    int64_t now_ms;
    /* decoder thread only */
    batch *cur;
    /* queue */
    pthread_mutex_t q_lock;
    pthread_cond_t q_nonempty, q_room;
    batch *head, *tail;   /* under q_lock */
    int queued;           /* under q_lock */
    /* results: written by the thread before it queues B_END */
    int rc;
    rdb_load_stats st;
    char err[RDB_ERRLEN + 128];
} decoder;

static void push(decoder *d, batch *b) {
    pthread_mutex_lock(&d->q_lock);
    while (d->queued >= QUEUE_MAX) pthread_cond_wait(&d->q_room, &d->q_lock);
    b->next = NULL;
    if (d->tail) d->tail->next = b;
    else d->head = b;
    d->tail = b;
    d->queued++;
    pthread_cond_signal(&d->q_nonempty);
    pthread_mutex_unlock(&d->q_lock);
}

static batch *pop(decoder *d) {
    pthread_mutex_lock(&d->q_lock);
    while (!d->head) pthread_cond_wait(&d->q_nonempty, &d->q_lock);
    batch *b = d->head;
    d->head = b->next;
    if (!d->head) d->tail = NULL;
    d->queued--;
    pthread_cond_signal(&d->q_room);
    pthread_mutex_unlock(&d->q_lock);
    return b;
}

static void push_current(decoder *d) {
    if (d->cur && d->cur->n) push(d, d->cur);
    else free(d->cur);
    d->cur = NULL;
}

static void thread_resize(void *priv, int db, uint64_t keys, uint64_t expires) {
    decoder *d = priv;
    (void)expires;
    push_current(d);
    batch *b = xcalloc(1, sizeof *b);
    b->kind = B_RESIZE;
    b->db = db;
    b->keys = keys;
    push(d, b);
}

static int thread_key(void *priv, int db, obj *key, obj *val, int64_t expire, char *err,
                      size_t errlen) {
    decoder *d = priv;
    if (check_db(db, err, errlen) != 0) {
        obj_decref(key);
        obj_decref(val);
        return -1;
    }
    if (!d->cur) {
        d->cur = xmalloc(sizeof *d->cur);
        d->cur->kind = B_KEYS;
        d->cur->n = 0;
    }
    d->cur->items[d->cur->n++] = (item){db, key, val, expire, 0};
    if (d->cur->n == BATCH) push_current(d);
    return 0;
}

static void thread_end(void *priv, int ok) {
    decoder *d = priv;
    if (!ok && d->cur) {
        drop_items(d->cur->items, d->cur->n);
        d->cur->n = 0;
    }
    push_current(d);
}

static const rdb_load_cb thread_cb = {thread_resize, thread_key, log_progress, thread_end};

static void *decoder_main(void *arg) {
    decoder *d = arg;
    d->rc = rdb_load_file(d->path, d->now_ms, &thread_cb, d, &d->st, d->err, sizeof d->err);
    batch *end = xcalloc(1, sizeof *end);
    end->kind = B_END;
    push(d, end); /* the results above are published with it */
    return NULL;
}

/* ---- main thread ---- */

int restore_file(const char *path, rdb_load_stats *st, char *err, size_t errlen) {
    decoder d;
    memset(&d, 0, sizeof d);
    d.path = path;
    d.now_ms = wall_ms();
    pthread_mutex_init(&d.q_lock, NULL);
    pthread_cond_init(&d.q_nonempty, NULL);
    pthread_cond_init(&d.q_room, NULL);
    pthread_t tid;
    int rc = pthread_create(&tid, NULL, decoder_main, &d);
    if (rc != 0) { /* no thread: decode in line */
        rc = rdb_load_file(path, d.now_ms, &inline_cb, NULL, st, err, errlen);
    } else {
        /* On a failure the keys already inserted stay: startup stops. */
        for (int kind = B_KEYS; kind != B_END;) {
            batch *b = pop(&d);
            kind = b->kind;
            if (kind == B_RESIZE) reserve(b->db, b->keys);
            else if (kind == B_KEYS) insert_batch(b->items, b->n);
            free(b);
        }
        pthread_join(tid, NULL);
        *st = d.st;
        rc = d.rc;
        if (rc < 0) snprintf(err, errlen, "%s", d.err);
    }
    pthread_mutex_destroy(&d.q_lock);
    pthread_cond_destroy(&d.q_nonempty);
    pthread_cond_destroy(&d.q_room);
    return rc;
}
