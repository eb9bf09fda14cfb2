/* db_slots: a database's keys by cluster hash slot; see db_slots.h. */
#include "db_slots.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>

#include "keyslot.h"
#include "util.h"
#include "db.h"
#include "vt.h"

typedef struct slot_walk {
    unsigned slot;
    size_t max, n;
    db_slot_key_fn fn;
    void *priv;
} slot_walk;

static void walk_visit(void *priv, vt_entry *e) {
    slot_walk *w = priv;
    size_t len;
    const char *key = vt_key(e, &len);
    if (w->n >= w->max || key_hash_slot(key, len) != w->slot) return;
    w->n++;
    if (w->fn) w->fn(w->priv, key, len);
}

static void index_visit(void *priv, vt_entry *e) {
    slot_walk *w = priv;
    size_t len;
    const char *key = vt_key(e, &len);
    w->n++;
    if (w->fn) w->fn(w->priv, key, len);
}

/* A slotted table (cluster mode) walks the slot's range only; another one
 * is walked whole, once: nothing changes the table meanwhile, so no key is
 * seen twice. */
static size_t walk_slot(db *d, unsigned slot, size_t max, db_slot_key_fn fn, void *priv) {
    assert(slot < KEYSLOT_COUNT);
    slot_walk w = {.slot = slot, .max = max, .fn = fn, .priv = priv};
    if (vt_slotted(d->t)) {
        vt_slot_walk(d->t, slot, max, index_visit, &w);
        return w.n;
    }
    uint64_t cursor = 0;
    do cursor = vt_scan(d->t, cursor, 1024, walk_visit, &w);
    while (cursor != 0 && w.n < max);
    return w.n;
}

size_t db_slot_count(db *d, unsigned slot) {
    assert(slot < KEYSLOT_COUNT);
    if (vt_slotted(d->t)) return vt_slot_count(d->t, slot);
    return walk_slot(d, slot, SIZE_MAX, NULL, NULL);
}

size_t db_slot_keys(db *d, unsigned slot, size_t max, db_slot_key_fn fn, void *priv) {
    return walk_slot(d, slot, max, fn, priv);
}

typedef struct key_list {
    char **keys;
    size_t *lens;
    size_t n, cap;
} key_list;

static void collect(void *priv, const char *key, size_t len) {
    key_list *l = priv;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->keys = xrealloc(l->keys, l->cap * sizeof *l->keys);
        l->lens = xrealloc(l->lens, l->cap * sizeof *l->lens);
    }
    l->keys[l->n] = xstrndup(key, len);
    l->lens[l->n++] = len;
}

size_t db_slot_delete(db *d, unsigned slot) {
    key_list l = {0};
    walk_slot(d, slot, SIZE_MAX, collect, &l);
    size_t deleted = 0;
    for (size_t i = 0; i < l.n; i++) {
        deleted += (size_t)db_delete(d, l.keys[i], l.lens[i]);
        free(l.keys[i]);
    }
    free(l.keys);
    free(l.lens);
    return deleted;
}

/* ---- slots no client sees ---- */

static const uint8_t *hidden; /* NULL: none (db_hide_slots) */

void db_hide_slots(const uint8_t *map) { hidden = map; }

static int slot_hidden(unsigned slot) { return (hidden[slot >> 3] >> (slot & 7)) & 1; }

int db_key_hidden(const db *d, const char *key, size_t len) {
    return hidden && d->id == 0 && slot_hidden(key_hash_slot(key, len));
}

int db_entry_hidden(const db *d, const vt_entry *e) {
    if (!hidden) return 0;
    size_t klen;
    const char *key = vt_key(e, &klen);
    return db_key_hidden(d, key, klen);
}

size_t db_visible_size(db *d) {
    size_t n = db_size(d);
    if (!hidden || d->id != 0) return n;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        if (slot_hidden(s)) n -= db_slot_count(d, s);
    return n;
}
