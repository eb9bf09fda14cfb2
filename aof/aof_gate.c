/* aof_gate: in-flight key set and parked clients (see aof_gate.h). */
#include "aof_gate.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "vt.h"

/* ---- keys of a command ---- */

void gate_for_each_key_args(int dbid, const cmd_def *d, int argc, const arg *argv, gate_key_fn fn,
                            void *priv) {
    cmd_keyrefs k = {0};
    cmd_get_keys(d, argc, argv, &k);
    for (size_t i = 0; i < k.n; i++) fn(priv, dbid, &argv[k.v[i].pos]);
    cmd_keys_free(&k);
}


/* ---- in-flight set: open addressing on key hashes ----
 * A hash collision only makes a read wait for an fsync it did not need. */

typedef struct slot {
    uint64_t h;    /* 0: free */
    uint64_t off;
} slot;

static struct {
    slot *slots;
    size_t cap, n;
    uint64_t max;
} F;

static uint64_t key_hash(int dbid, const arg *k) {
    uint64_t h = vt_hash(k->p, k->len) ^ ((uint64_t)dbid * UINT64_C(0x9e3779b97f4a7c15));
    return h ? h : 1;
}

static void set_put(uint64_t h, uint64_t off);

static void grow(void) {
    slot *old = F.slots;
    size_t oldcap = F.cap;
    F.cap = F.cap ? F.cap * 2 : 1024;
    F.slots = xcalloc(F.cap, sizeof(slot));
    F.n = 0;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].h) set_put(old[i].h, old[i].off);
    free(old);
}

static void set_put(uint64_t h, uint64_t off) {
    if ((F.n + 1) * 2 > F.cap) grow();
    size_t i = h & (F.cap - 1);
    while (F.slots[i].h && F.slots[i].h != h) i = (i + 1) & (F.cap - 1);
    if (!F.slots[i].h) F.n++;
    F.slots[i].h = h;
    if (off > F.slots[i].off) F.slots[i].off = off;
}

static uint64_t set_get(uint64_t h) {
    if (!F.n) return 0;
    for (size_t i = h & (F.cap - 1); F.slots[i].h; i = (i + 1) & (F.cap - 1))
        if (F.slots[i].h == h) return F.slots[i].off;
    return 0;
}

/* Keys of what the running command logged (gate_inflight_pend_args), in
 * flight once its whole batch is in the stream (gate_inflight_commit). */
static struct {
    uint64_t *h;
    size_t n, cap;
} PEND;

static void pend_key(void *priv, int dbid, const arg *k) {
    (void)priv;
    if (PEND.n == PEND.cap) {
        PEND.cap = PEND.cap ? PEND.cap * 2 : 16;
        PEND.h = xrealloc(PEND.h, PEND.cap * sizeof *PEND.h);
    }
    PEND.h[PEND.n++] = key_hash(dbid, k);
}

void gate_inflight_pend_args(int dbid, const cmd_def *d, int argc, const arg *argv) {
    gate_for_each_key_args(dbid, d, argc, argv, pend_key, NULL);
}

void gate_inflight_commit(uint64_t offset) {
    for (size_t i = 0; i < PEND.n; i++) set_put(PEND.h[i], offset);
    if (PEND.n && offset > F.max) F.max = offset;
    PEND.n = 0;
}

typedef struct wait_ctx { uint64_t synced, wait; } wait_ctx;

static void wait_key(void *priv, int dbid, const arg *k) {
    wait_ctx *w = priv;
    uint64_t off = set_get(key_hash(dbid, k));
    if (off > w->synced && off > w->wait) w->wait = off;
}

uint64_t gate_inflight_wait_args(int dbid, const cmd_def *d, int argc, const arg *argv,
                                 uint64_t synced) {
    if (F.max <= synced) return 0;
    /* keyless reads (KEYS, SCAN, DBSIZE...) see the whole keyspace; PING, INFO... none */
    if (!cmd_has_keys(d)) return (d->flags & CMD_READONLY) ? F.max : 0;
    wait_ctx w = {synced, 0};
    gate_for_each_key_args(dbid, d, argc, argv, wait_key, &w);
    return w.wait;
}

uint64_t gate_inflight_wait(const client *c, const cmd_def *d, uint64_t synced) {
    return gate_inflight_wait_args(c->db, d, c->argc, c->argv, synced);
}

uint64_t gate_inflight_max(void) { return F.max; }

void gate_inflight_clear(void) {
    if (F.n) memset(F.slots, 0, F.cap * sizeof(slot));
    F.n = 0;
    F.max = 0;
}

void gate_inflight_synced(uint64_t synced) {
    if (F.max && synced >= F.max) gate_inflight_clear();
}

/* ---- the AOF's state of a client ---- */

aof_client *gate_client(client *c) {
    if (!c->aof) c->aof = xcalloc(1, sizeof(aof_client));
    return c->aof;
}

void gate_client_free(client *c) {
    assert(!(c->flags & CLIENT_INPUT_PARKED));
    free(c->aof);
    c->aof = NULL;
}

/* ---- parked clients ---- */

static struct {
    client *head;
    int count;
    uint64_t total;
} P;

/* The next parked client after c (c is parked, so it has its state). */
static client **park_next(client *c) { return &((aof_client *)c->aof)->park_next; }

void gate_park(client *c) {
    aof_client *ac = gate_client(c);
    c->flags |= CLIENT_INPUT_PARKED;
    ac->parked_at_ms = mono_ms();
    ac->parked_bytes = c->req.pos;
    ac->park_next = P.head;
    P.head = c;
    P.count++;
    P.total++;
}

int gate_parked_count(void) { return P.count; }
uint64_t gate_parked_total(void) { return P.total; }

void gate_unpark(client *c) {
    if (!(c->flags & CLIENT_INPUT_PARKED)) return;
    for (client **p = &P.head; *p; p = park_next(*p)) {
        if (*p == c) {
            *p = *park_next(c);
            P.count--;
            break;
        }
    }
    c->flags &= ~CLIENT_INPUT_PARKED;
}

client *gate_unpark_next(void) {
    if (!P.head) return NULL;
    int64_t now = mono_ms();
    client *best = NULL;
    double best_score = 0;
    for (client *c = P.head; c; c = *park_next(c)) {
        /* Payload shrinks with waiting time: bytes / (1 + ms waited / 100),
         * half its weight after 100 ms, a third after 200 ms, so no large
         * write starves. */
        const aof_client *ac = c->aof;
        double age = (double)(now - ac->parked_at_ms);
        double score = (double)ac->parked_bytes / (1.0 + age / 100.0);
        if (!best || score < best_score) { best = c; best_score = score; }
    }
    gate_unpark(best);
    return best;
}
