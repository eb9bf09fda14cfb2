/* db: databases, lazy and active expiry (see db.h). Main thread only. */
#include "db.h"

#include <assert.h>
#include <stdlib.h>

#include "blocking.h"
#include "cmd.h"
#include "evict.h"
#include "hooks.h"
#include "introspect.h"
#include "lazyfree.h"
#include "multi.h"
#include "pause.h"
#include "replica_keys.h"
#include "tracking.h"
#include "notify.h"
#include "util.h"

void db_init_all(int n) {
    server.dbs = xcalloc((size_t)n, sizeof(db));
    for (int i = 0; i < n; i++) {
        server.dbs[i].t = vt_create();
        server.dbs[i].id = i;
    }
}

db *db_get(int id) { return &server.dbs[id]; }

int db_expired(const vt_entry *e, int64_t now_ms) {
    int64_t at = vt_expire(e);
    return at != VT_NO_EXPIRE && at < now_ms; /* Redis: now > when */
}

/* 0: not held */
static int64_t held_ms;

int64_t db_now(void) { return held_ms ? held_ms : wall_ms(); }

int64_t db_time_hold(void) {
    int64_t prev = held_ms;
    if (!held_ms) held_ms = wall_ms();
    return prev;
}

int64_t db_time_snapshot(void) {
    int64_t prev = held_ms;
    held_ms = wall_ms();
    return prev;
}

void db_time_release(int64_t prev) { held_ms = prev; }

void db_key_changed(int dbid, const char *key, size_t len) {
    multi_touch_key(dbid, key, len);     /* WATCH: the watchers' EXEC fails */
    tracking_invalidate_key(key, len, 0); /* client-side caches drop it */
}

void db_key_changed_by_server(int dbid, const char *key, size_t len) {
    multi_touch_key(dbid, key, len);
    tracking_invalidate_key(key, len, 1); /* NOLOOP broadcasts include it */
}

int db_remove(db *d, const char *key, size_t len, int lazy) {
    vt_entry *e = vt_find(d->t, key, len);
    if (!e) return 0;
    obj *val = e->val;
    obj_incref(val); /* ours, so that lazyfree decides who frees it */
    int deleted = vt_delete(d->t, key, len);
    assert(deleted);
    lazyfree_drop(val, lazy);
    block_signal_deleted(d->id, key, len); /* XREADGROUP BLOCK readers learn it */
    return deleted;
}

/* Deletes an expired key and tells the AOF, as Redis propagates a DEL. */
static void expire_now(db *d, const char *key, size_t len) {
    db_remove(d, key, len, server.cfg.lazyfree_lazy_expire);
    db_key_changed_by_server(d->id, key, len);
    server.stat.expired_keys++;
    notify_keyspace_event(NOTIFY_EXPIRED, "expired", key, len, d->id);
    arg argv[2] = {{"DEL", 3}, {key, len}};
    cmd_propagate_raw(d->id, 2, argv);
}

/* Lookup with lazy expiry, without touching the access clock. While
 * loading (AOF replay, RDB restore) nothing expires: the replay must rebuild
 * the dataset the logged writes built, whatever the clock says now (a
 * PERSIST after SET PX must find its key); expiry acts once loaded. */
static vt_entry *lookup(db *d, const char *key, size_t len) {
    vt_entry *e = vt_find(d->t, key, len);
    if (e && !server.loading && db_expired(e, db_now())) {
        /* A replica leaves expiry to its master's DEL, as Redis 7.0's
         * expireIfNeeded: the master's own commands still see the key, the
         * others see it gone; nothing is deleted here. */
        if (server.upstream || pause_keys_frozen()) { /* CLIENT PAUSE: no change either */
            const client *c = server.current_client;
            return c && (c->flags & CLIENT_MASTER) ? e : NULL;
        }
        expire_now(d, key, len);
        return NULL;
    }
    return e;
}

vt_entry *db_lookup(db *d, const char *key, size_t len) {
    vt_entry *e = lookup(d, key, len);
    if (e) evict_touch(e);
    return e;
}

/* A read missed: counted, and the key-miss event (m) as Redis's lookupKey. */
static void read_miss(db *d, const char *key, size_t len) {
    server.stat.keyspace_misses++;
    notify_keyspace_event(NOTIFY_KEY_MISS, "keymiss", key, len, d->id);
}

vt_entry *db_lookup_read(db *d, const char *key, size_t len) {
    vt_entry *e = db_lookup(d, key, len);
    if (e) server.stat.keyspace_hits++;
    else read_miss(d, key, len);
    return e;
}

vt_entry *db_lookup_notouch(db *d, const char *key, size_t len) { return lookup(d, key, len); }

vt_entry *db_lookup_read_notouch(db *d, const char *key, size_t len) {
    vt_entry *e = lookup(d, key, len);
    if (e) server.stat.keyspace_hits++;
    else read_miss(d, key, len);
    return e;
}

void db_reply_wrongtype(client *c) {
    reply_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value");
}

vt_entry *db_lookup_typed(client *c, db *d, const char *key, size_t len, int type, int read,
                          int *wrong) {
    vt_entry *e = read ? db_lookup_read(d, key, len) : db_lookup(d, key, len);
    *wrong = e && e->val->type != type;
    if (!*wrong) return e;
    db_reply_wrongtype(c);
    return NULL;
}

vt_entry *db_write(db *d, const char *key, size_t len, int create, vt_wr *w, int *created) {
    lookup(d, key, len); /* applies lazy expiry first */
    int made = 0;
    vt_entry *e = vt_write(d->t, key, len, create, w, &made);
    if (created) *created = made;
    if (e && made) {
        w->access = evict_new_clock(); /* the entry's, once it has a value */
        notify_keyspace_event(NOTIFY_NEW, "new", key, len, d->id);
        block_signal_key(d->id, key, len); /* clients blocked on it: served after the command */
    }
    else if (e) evict_touch(e);
    if (e) db_key_changed(d->id, key, len); /* the caller changes it now */
    return e;
}

/* db_set, the access clock set too when `access` is given. */
static void set_val(db *d, const char *key, size_t len, obj *val, int64_t expire,
                    const uint32_t *access) {
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, key, len, 1, &w, &created);
    obj *old = e->val;
    /* the entry's reference to old becomes ours: dropped below */
    vt_set_val(&w, e, val);
    if (access) vt_access_set(e, *access);
    if (expire != DB_KEEPTTL) vt_set_expire(&w, e, expire);
    vt_write_done(&w);
    if (expire != DB_KEEPTTL && expire != VT_NO_EXPIRE) rkeys_expire_set(d->id, key, len);
    if (old) {
        lazyfree_drop(old, server.cfg.lazyfree_lazy_server_del);
        block_signal_deleted(d->id, key, len); /* overwritten: as deleted for XREADGROUP */
    }
}

void db_set(db *d, const char *key, size_t len, obj *val, int64_t expire) {
    set_val(d, key, len, val, expire, NULL);
}

void db_set_access(db *d, const char *key, size_t len, obj *val, int64_t expire,
                   uint32_t access) {
    set_val(d, key, len, val, expire, &access);
}

void db_set_bytes(db *d, const char *key, size_t len, const char *p, size_t n, int64_t expire) {
    db_set(d, key, len, obj_kv_new_value(key, len, p, n, expire != VT_NO_EXPIRE), expire);
}

int db_set_expire(db *d, const char *key, size_t len, int64_t expire) {
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, key, len, 0, &w, &created);
    if (!e) return 0;
    vt_set_expire(&w, e, expire);
    vt_write_done(&w);
    if (expire != VT_NO_EXPIRE) rkeys_expire_set(d->id, key, len);
    return 1;
}

int db_delete_lazy(db *d, const char *key, size_t len, int lazy) {
    if (!lookup(d, key, len)) return 0;
    int deleted = db_remove(d, key, len, lazy);
    if (deleted) db_key_changed(d->id, key, len);
    return deleted;
}

int db_delete(db *d, const char *key, size_t len) {
    return db_delete_lazy(d, key, len, server.cfg.lazyfree_lazy_server_del);
}

void db_replace_table(db *d, vt *t, int lazy) {
    multi_touch_flush(d); /* WATCH: every watched key of d that exists */
    block_signal_flushed(d->id);
    vt *old = d->t;
    d->t = t;
    d->expire_cursor = 0;
    d->avg_ttl = 0;
    if (!hooks_keep_retired_table(old)) lazyfree_table(old, lazy);
}

void db_flush_lazy(db *d, int lazy) {
    hooks_before_flush();
    db_replace_table(d, vt_create(), lazy);
}

void db_flush(db *d) { db_flush_lazy(d, 0); }

size_t db_size(db *d) { return vt_size(d->t); }

void db_swap(int id1, int id2) {
    assert(id1 >= 0 && id1 < server.cfg.databases && id2 >= 0 && id2 < server.cfg.databases);
    if (id1 == id2) return;
    db *a = db_get(id1), *b = db_get(id2);
    multi_touch_swap(id1, a->t, b->t);
    multi_touch_swap(id2, b->t, a->t);
    db tmp = *a;
    a->t = b->t;
    a->expire_cursor = b->expire_cursor;
    a->avg_ttl = b->avg_ttl;
    b->t = tmp.t;
    b->expire_cursor = tmp.expire_cursor;
    b->avg_ttl = tmp.avg_ttl;
    block_signal_swapped(id1, b->t);
    block_signal_swapped(id2, a->t);
}

/* ---- active expiry ---- */

typedef struct expire_scan {
    int64_t now;
    size_t seen, with_ttl, expired;
    long long ttl_sum;
    arg *keys;              /* expired keys found (copied names) */
    size_t nkeys, cap;
} expire_scan;

static void expire_visit(void *priv, vt_entry *e) {
    expire_scan *s = priv;
    s->seen++;
    int64_t at = vt_expire(e);
    if (at == VT_NO_EXPIRE) return;
    s->with_ttl++;
    if (at > s->now) {
        s->ttl_sum += at - s->now;
        return;
    }
    if (s->nkeys == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 64;
        s->keys = xrealloc(s->keys, s->cap * sizeof(arg));
    }
    size_t klen;
    const char *key = vt_key(e, &klen);
    s->keys[s->nkeys].p = xstrndup(key, klen);
    s->keys[s->nkeys].len = klen;
    s->nkeys++;
}

/* One step over a database (the buckets that may hold a key with an
 * expire: vt_scan_volatile): returns the keys expired. */
static size_t expire_step(db *d, expire_scan *s) {
    s->nkeys = 0;
    d->expire_cursor = vt_scan_volatile(d->t, d->expire_cursor, 256, expire_visit, s);
    for (size_t i = 0; i < s->nkeys; i++) {
        vt_entry *e = vt_find(d->t, s->keys[i].p, s->keys[i].len);
        if (e && db_expired(e, s->now)) expire_now(d, s->keys[i].p, s->keys[i].len);
        free((char *)s->keys[i].p);
    }
    return s->nkeys;
}

static int active_expire_on = 1; /* DEBUG SET-ACTIVE-EXPIRE */

void db_set_active_expire(int on) { active_expire_on = on; }

int db_expire_if_due(db *d, const char *key, size_t len, int64_t now_ms) {
    vt_entry *e = vt_find(d->t, key, len);
    if (!e || vt_expire(e) == VT_NO_EXPIRE) return 0;
    if (!db_expired(e, now_ms)) return 1;
    expire_now(d, key, len);
    return 0;
}

int db_active_expire(int64_t budget_us) {
    if (pause_keys_frozen()) return 0; /* CLIENT PAUSE keeps the dataset as it is */
    if (!active_expire_on) return 0;
    if (server.upstream) { /* the master's keys expire by its DEL, as Redis 7.0 */
        rkeys_expire_cycle(budget_us);
        return 0;
    }
    int64_t start = mono_us();
    expire_scan s = {0};
    size_t total_sampled = 0, total_expired = 0; /* keys with a TTL seen, expired */
    for (int i = 0; i < server.cfg.databases; i++) {
        db *d = &server.dbs[i];
        if (vt_expires(d->t) == 0) { d->avg_ttl = 0; continue; }
        s.now = wall_ms();
        s.seen = s.with_ttl = 0;
        s.ttl_sum = 0;
        size_t steps = 0, expired = 0;
        do {
            expired += expire_step(d, &s);
            steps++;
        } while (mono_us() - start < budget_us && d->expire_cursor != 0 && steps < 4096);
        total_sampled += s.with_ttl;
        total_expired += expired;
        long long live = (long long)(s.with_ttl - expired);
        if (live > 0) {
            long long avg = s.ttl_sum / live;
            d->avg_ttl = d->avg_ttl ? (d->avg_ttl / 50) * 49 + avg / 50 : avg;
        }
        if (mono_us() - start >= budget_us) break;
    }
    free(s.keys);
    /* Redis's running estimate of the keys expired but not yet deleted:
     * this cycle's share weighs 5 % */
    double perc = total_sampled ? (double)total_expired / (double)total_sampled : 0;
    server.stat.expired_stale_perc = perc * 0.05 + server.stat.expired_stale_perc * 0.95;
    int64_t took = mono_us() - start;
    server.stat.expire_cycle_us += (uint64_t)took;
    introspect_expire_cycle_done(took, took >= budget_us); /* latency, time cap */
    /* more to do: the budget ran out while over 10 % of the keys with a TTL
     * seen had expired (Redis's "acceptable stale" at effort 1) */
    return took >= budget_us && total_expired * 10 > total_sampled;
}

void db_tables_cron(void) {
    for (int i = 0; i < server.cfg.databases; i++) vt_shrink(server.dbs[i].t, 64);
}
