/* lazyfree: the background freeing thread and its queue (see lazyfree.h).
 *
 * The main thread appends jobs (a value or a table, with the number of
 * objects it counts for) to a FIFO under `mu` and signals `cv`; the thread
 * takes one job at a time, frees it outside the lock, then moves its count
 * from pending to freed. Nothing comes back to the main thread: a freed
 * value has no owner left, so no wake-up of the loop is needed. */
#include "lazyfree.h"

#include <assert.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "util.h"

typedef struct lf_job {
    struct lf_job *next;
    obj *val;       /* a value's last reference, or NULL */
    vt *table;      /* a retired table, or NULL */
    size_t objects; /* what it counts for in the statistics */
} lf_job;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    lf_job *head, *tail; /* under mu: jobs not yet taken */
    int stop;            /* under mu: drain the queue, then exit */
    int running;         /* main thread only: the thread exists */
    pthread_t tid;       /* main thread only */
} L = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL, 0, 0, 0};

static _Atomic size_t pending; /* atomic: queued or being freed */
static _Atomic size_t freed;   /* atomic: freed by the thread */

static void job_run(lf_job *j) {
    if (j->val) obj_decref(j->val);
    if (j->table) vt_free(j->table);
}

/* The thread: frees jobs in queue order until stopped with an empty queue. */
static void *lf_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&L.mu);
    for (;;) {
        while (!L.head && !L.stop) pthread_cond_wait(&L.cv, &L.mu);
        lf_job *j = L.head;
        if (!j) break; /* stop, and nothing left */
        L.head = j->next;
        if (!L.head) L.tail = NULL;
        pthread_mutex_unlock(&L.mu);
        job_run(j);
        atomic_fetch_sub_explicit(&pending, j->objects, memory_order_relaxed);
        atomic_fetch_add_explicit(&freed, j->objects, memory_order_relaxed);
        free(j);
        pthread_mutex_lock(&L.mu);
    }
    pthread_mutex_unlock(&L.mu);
    return NULL;
}

static void enqueue(obj *val, vt *table, size_t objects) {
    if (!L.running) { /* not started (unit tests) or stopped: inline */
        lf_job j = {NULL, val, table, objects};
        job_run(&j);
        return;
    }
    lf_job *j = xmalloc(sizeof *j);
    *j = (lf_job){NULL, val, table, objects};
    atomic_fetch_add_explicit(&pending, objects, memory_order_relaxed);
    pthread_mutex_lock(&L.mu);
    if (L.tail) L.tail->next = j;
    else L.head = j;
    L.tail = j;
    pthread_cond_signal(&L.cv);
    pthread_mutex_unlock(&L.mu);
}

static const hooks lf_hooks = {.name = "lazyfree", .shutdown = lazyfree_stop};

void lazyfree_init(void) { hooks_register(&lf_hooks); }

int lazyfree_start(char *err, size_t errlen) {
    if (L.running) return 0;
    pthread_mutex_lock(&L.mu);
    L.stop = 0;
    pthread_mutex_unlock(&L.mu);
    int rc = pthread_create(&L.tid, NULL, lf_main, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "can't start the lazyfree thread: %s", strerror(rc));
        return -1;
    }
    L.running = 1;
    return 0;
}

void lazyfree_stop(void) {
    if (!L.running) return;
    pthread_mutex_lock(&L.mu);
    L.stop = 1;
    pthread_cond_signal(&L.cv);
    pthread_mutex_unlock(&L.mu);
    pthread_join(L.tid, NULL);
    L.running = 0;
    assert(!L.head);
}

size_t lazyfree_effort(const obj *v) {
    if (!obj_is_coll(v)) return 1;
    switch (v->enc) {
    case OBJ_ENC_LISTPACK:
    case OBJ_ENC_INTSET:
        return 1; /* one leaf, as Redis's single allocation */
    default:
        return (size_t)pt_count(obj_ctree(v, 0));
    }
}

void lazyfree_drop(obj *v, int lazy) {
    if (lazy && lazyfree_effort(v) > LAZYFREE_THRESHOLD && !obj_shared(v))
        enqueue(v, NULL, 1);
    else
        obj_decref(v);
}

void lazyfree_table(vt *t, int lazy) {
    if (lazy) enqueue(NULL, t, vt_size(t));
    else vt_free(t);
}

size_t lazyfree_pending(void) { return atomic_load_explicit(&pending, memory_order_relaxed); }
size_t lazyfree_freed(void) { return atomic_load_explicit(&freed, memory_order_relaxed); }
void lazyfree_reset_stats(void) { atomic_store_explicit(&freed, 0, memory_order_relaxed); }
