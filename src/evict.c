/* evict: maxmemory, the access clock and eviction (see evict.h).
 *
 * Follows Redis 7.0's evict.c: the LRU clock is 24 bits of seconds; LFU
 * keeps 16 bits of minutes (last decrement time) and an 8-bit logarithmic
 * counter; the LRU, LFU and TTL policies sample maxmemory-samples keys per
 * database into a pool of the 16 best candidates (kept across calls) and
 * evict the best one still present; the random policies take a random key
 * of the next database in turn. An evicted key is deleted with vt_delete,
 * the same path as DEL: during a forkless save an entry still owed to the
 * snapshot is handed to the serializer first (vt.h). The DEL is propagated
 * to the AOF. Main thread only. */
#include "evict.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_mem.h"
#include "cmd.h"
#include "db.h"
#include "db_slots.h"
#include "hooks.h"
#include "info.h"
#include "introspect.h"
#include "lazyfree.h"
#include "log.h"
#include "pause.h"
#include "notify.h"
#include "util.h"

#define LRU_CLOCK_MAX ((1u << 24) - 1)
#define LFU_INIT_VAL 5
#define EVPOOL_SIZE 16
#define POOL_ROUNDS 64  /* sampling rounds before giving up (see evict_pool) */

typedef struct pool_entry {
    uint64_t idle;  /* higher is a better candidate */
    int db;
    char *key;      /* NULL: empty slot (malloc'd copy otherwise) */
    size_t len;
} pool_entry;

static struct {
    size_t base;                 /* fixed overhead measured at startup */
    pool_entry pool[EVPOOL_SIZE];/* ascending idle; best at the end */
    vt_entry **samples;          /* room for maxmemory-samples entries */
    size_t sample_cap;
    uv_timer_t timer;            /* goes on evicting past the time limit */
    int timer_running;
    int next_db;                 /* random policies: databases in turn */
    uint64_t rng;                /* xorshift, LFU increments */
    uint32_t minutes;            /* LFU clock: minutes mod 2^16 (cron) */
    int64_t exceeded_since_us;   /* over the limit since (0: not over) */
    uint64_t exceeded_total_us;  /* total_eviction_exceeded_time */
} E;

/* ---- clocks ------------------------------------------------------------ */

static void clocks_update(void) {
    int64_t ms = wall_ms();
    server.lruclock = (uint32_t)((ms / 1000) & LRU_CLOCK_MAX);
    E.minutes = (uint32_t)((ms / 60000) & 65535);
}

static uint64_t lru_idle_ms(uint32_t lru) {
    uint32_t now = server.lruclock;
    uint64_t d = now >= lru ? now - lru : (uint64_t)now + (LRU_CLOCK_MAX - lru);
    return d * 1000;
}

/* The counter after decay: one step per lfu-decay-time minutes elapsed. */
static uint32_t lfu_decr(uint32_t v) {
    uint32_t ldt = v >> 8, counter = v & 255;
    uint32_t elapsed = E.minutes >= ldt ? E.minutes - ldt : 65535 - ldt + E.minutes;
    uint32_t periods = server.cfg.lfu_decay_time ? elapsed / (uint32_t)server.cfg.lfu_decay_time : 0;
    return periods >= counter ? 0 : counter - periods;
}

static double rand01(void) {
    uint64_t x = E.rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    E.rng = x;
    return (double)(x >> 11) / (double)(UINT64_C(1) << 53);
}

/* Logarithmic increment: the higher the counter, the less likely. */
static uint32_t lfu_incr(uint32_t counter) {
    if (counter == 255) return 255;
    double base = (double)counter - LFU_INIT_VAL;
    if (base < 0) base = 0;
    double p = 1.0 / (base * server.cfg.lfu_log_factor + 1);
    return rand01() < p ? counter + 1 : counter;
}

void evict_touch_lfu(vt_entry *e) {
    uint32_t c = lfu_incr(lfu_decr(vt_access_get(e)));
    vt_access_set(e, E.minutes << 8 | c);
}

uint32_t evict_new_clock(void) {
    int p = server.cfg.maxmemory_policy;
    if (p == MAXMEM_ALLKEYS_LFU || p == MAXMEM_VOLATILE_LFU)
        return E.minutes << 8 | LFU_INIT_VAL;
    return server.lruclock;
}

uint32_t evict_restored_clock(long long idle_s, int freq) {
    if (evict_policy_lfu()) return freq >= 0 ? E.minutes << 8 | (uint32_t)freq : evict_new_clock();
    if (idle_s < 0) return evict_new_clock();
    uint32_t now = server.lruclock;
    /* further back than the clock goes: half its turn back, as Redis */
    if (idle_s > (long long)now) return (now + LRU_CLOCK_MAX / 2) % LRU_CLOCK_MAX;
    return now - (uint32_t)idle_s;
}

int evict_policy_lfu(void) {
    int p = server.cfg.maxmemory_policy;
    return p == MAXMEM_ALLKEYS_LFU || p == MAXMEM_VOLATILE_LFU;
}

uint64_t evict_idle_ms(const vt_entry *e) { return lru_idle_ms(vt_access_get(e)); }

int evict_lfu_freq(const vt_entry *e) { return (int)lfu_decr(vt_access_get(e)); }

/* ---- memory ------------------------------------------------------------ */

static size_t tables_mem(void) {
    size_t n = 0;
    for (int i = 0; i < server.cfg.databases; i++) n += vt_mem(db_get(i)->t);
    return n;
}

/* maxmemory-include-save yes: a save's retained bytes are counted, so
 * eviction during a save takes only keys the save has written (see
 * only_saved). */
static int include_save(void) { return server.cfg.maxmemory_include_save; }

size_t evict_counted_memory(void) {
    /* clients and the replication backlog count as Redis counts them; the
     * replicas' own buffers and the AOF's do not */
    size_t used = E.base + obj_mem_total() + tables_mem() + client_mem_normal() +
                  hooks_buffer_memory(HOOKS_MEM_BACKLOG);
    if (include_save()) return used;
    size_t retained = hooks_not_counted_memory();
    return used > retained ? used - retained : 0;
}

size_t evict_save_retained(void) { return hooks_not_counted_memory(); }

static void on_timer(uv_timer_t *t);

void evict_init(void) {
    size_t all = info_allocated(), known = obj_mem_total() + tables_mem();
    E.base = all > known ? all - known : 0;
    random_bytes(&E.rng, sizeof E.rng);
    E.rng |= 1;
    clocks_update();
    uv_timer_init(server.loop, &E.timer);
}

void evict_cron(void) { clocks_update(); }

/* ---- candidates -------------------------------------------------------- */

static int policy_allkeys(int p) {
    return p == MAXMEM_ALLKEYS_LRU || p == MAXMEM_ALLKEYS_LFU || p == MAXMEM_ALLKEYS_RANDOM;
}

static uint64_t score(int p, const vt_entry *e) {
    switch (p) {
    case MAXMEM_ALLKEYS_LFU:
    case MAXMEM_VOLATILE_LFU:
        return 255 - lfu_decr(vt_access_get(e));
    case MAXMEM_VOLATILE_TTL:
        return UINT64_MAX - (uint64_t)vt_expire(e);
    default:
        return lru_idle_ms(vt_access_get(e));
    }
}

static void pool_drop(pool_entry *pe) {
    free(pe->key);
    pe->key = NULL;
}

/* Inserts a candidate, keeping the pool sorted (Redis's
 * evictionPoolPopulate): a full pool drops its worst entry. */
static void pool_insert(int dbid, const vt_entry *e, uint64_t idle) {
    pool_entry *pool = E.pool;
    int k = 0;
    while (k < EVPOOL_SIZE && pool[k].key && pool[k].idle < idle) k++;
    if (k == 0 && pool[EVPOOL_SIZE - 1].key) return; /* worse than all */
    if (k < EVPOOL_SIZE && !pool[k].key) {
        /* an empty slot: insert there */
    } else if (!pool[EVPOOL_SIZE - 1].key) {
        memmove(pool + k + 1, pool + k, sizeof pool[0] * (size_t)(EVPOOL_SIZE - k - 1));
    } else {
        k--; /* full: drop the worst (pool[0]) and shift left */
        pool_drop(&pool[0]);
        memmove(pool, pool + 1, sizeof pool[0] * (size_t)k);
    }
    pool[k].idle = idle;
    pool[k].db = dbid;
    size_t klen;
    const char *key = vt_key(e, &klen);
    pool[k].len = klen;
    pool[k].key = xstrndup(key, klen);
}

/* Whether candidates must be keys that a running save of t has written.
 * With maxmemory-include-save the bytes a save retains are counted, and
 * evicting a key the save still owes frees nothing: its value moves to
 * the save's queue (vt_delete hands it over) and stays counted until the
 * serializer has written it. Taking such keys would evict without
 * progress, key after key, until the table was empty. A key in a bucket
 * the save has passed is freed at once, so each eviction lowers the
 * figure by that key's size, as without a save; when no such key is found
 * eviction fails (EVICT_FAIL: deny-oom commands get the OOM error) until
 * the serializer has walked further or drained what it holds. */
static int only_saved(vt *t) { return include_save() && vt_saving(t); }

/* Up to k entries of t (with an expire when vol). The walk is bounded by
 * about 10 times the buckets needed on average (more when keys with an
 * expire are rare); when it found nothing (a table emptied by deletions,
 * or keys with an expire clustered away from the random start) the walk
 * goes on until it finds some: 0 only when t has no candidate at all.
 * Restricted to saved keys (only_saved) it does not go on: the unsaved part
 * of the table may be all of it, and every command would walk it; 0 then
 * means none found in the bounded walk. */
static size_t sample(vt *t, size_t k, int vol, vt_entry **out) {
    size_t ratio = vol ? (vt_size(t) + vt_expires(t) - 1) / vt_expires(t) : 1;
    int saved = only_saved(t);
    int flags = (vol ? VT_SAMPLE_VOLATILE : 0) | (saved ? VT_SAMPLE_SAVED : 0);
    size_t n = vt_sample(t, k, flags, 10 * k * ratio, out);
    return n || saved ? n : vt_sample(t, k, flags, SIZE_MAX, out);
}

/* Samples one database into the pool. A key no client sees (an import's
 * staging area, db_slots.h) is never a candidate: an import that fills
 * the memory fails instead of evicting what it loaded. */
static void pool_populate(int dbid, int p) {
    vt *t = db_get(dbid)->t;
    size_t k = (size_t)server.cfg.maxmemory_samples;
    if (k > E.sample_cap) {
        E.samples = xrealloc(E.samples, k * sizeof *E.samples);
        E.sample_cap = k;
    }
    size_t n = sample(t, k, !policy_allkeys(p), E.samples);
    for (size_t i = 0; i < n; i++)
        if (!db_entry_hidden(db_get(dbid), E.samples[i]))
            pool_insert(dbid, E.samples[i], score(p, E.samples[i]));
}

/* Deletes the key as DEL does (handing it to a running save first) and
 * propagates DEL. `key` may point into the entry's own value (which carries
 * its key: obj.h, keyed values). */
static void evict_key(int dbid, const char *key, size_t len) {
    arg argv[2] = {{"DEL", 3}, {key, len}};
    cmd_propagate_raw(dbid, 2, argv);
    /* as Redis: eviction fails a WATCH. Before the removal: key may point
     * into the entry's value, which the removal may free. */
    db_key_changed_by_server(dbid, key, len);
    notify_keyspace_event(NOTIFY_EVICTED, "evicted", key, len, dbid); /* same reason */
    db_remove(db_get(dbid), key, len, server.cfg.lazyfree_lazy_eviction);
    server.stat.evicted_keys++;
}

/* LRU, LFU, TTL: 1 when a key was evicted. The pool may hold keys deleted
 * since they were sampled ("ghosts"): those are skipped. */
static int evict_pool(int p) {
    int allkeys = policy_allkeys(p);
    for (int round = 0; round < POOL_ROUNDS; round++) {
        size_t total = 0;
        for (int i = 0; i < server.cfg.databases; i++) {
            vt *t = db_get(i)->t;
            size_t keys = allkeys ? vt_size(t) : vt_expires(t);
            if (keys) pool_populate(i, p);
            total += keys;
        }
        if (!total) return 0;
        for (int k = EVPOOL_SIZE - 1; k >= 0; k--) {
            pool_entry *pe = &E.pool[k];
            if (!pe->key) continue;
            vt *t = db_get(pe->db)->t;
            vt_entry *e = vt_find(t, pe->key, pe->len);
            /* a key pooled before a save started may be one it still owes */
            int ok = e && (allkeys || vt_expire(e) != VT_NO_EXPIRE) &&
                     !(only_saved(t) && vt_owed_to_save(t, pe->key, pe->len)) &&
                     !db_key_hidden(db_get(pe->db), pe->key, pe->len);
            if (ok) evict_key(pe->db, pe->key, pe->len);
            pool_drop(pe);
            if (ok) return 1;
        }
    }
    return 0;
}

/* allkeys-random, volatile-random: a key of the next database that has one. */
static int evict_random(int p) {
    int allkeys = policy_allkeys(p);
    for (int i = 0; i < server.cfg.databases; i++) {
        int j = E.next_db = (E.next_db + 1) % server.cfg.databases;
        vt *t = db_get(j)->t;
        vt_entry *e = NULL;
        if (allkeys && !only_saved(t)) {
            e = vt_random(t);
            if (e && db_entry_hidden(db_get(j), e)) e = NULL; /* another time */
        } else if (allkeys ? vt_size(t) : vt_expires(t)) {
            /* one of a few found from a random place (less biased towards
             * keys that follow a long run without an expire, or of keys
             * the save has not written: only_saved) */
            vt_entry *s[16];
            size_t n = sample(t, 16, !allkeys, s);
            e = n ? s[(size_t)(rand01() * (double)n) % n] : NULL;
            if (e && db_entry_hidden(db_get(j), e)) e = NULL;
        }
        if (e) {
            size_t klen;
            const char *k = vt_key(e, &klen);
            char *key = xstrndup(k, klen); /* deleting frees the kv */
            evict_key(j, key, klen);
            free(key);
            return 1;
        }
    }
    return 0;
}

/* ---- the eviction loop -------------------------------------------------- */

/* maxmemory-eviction-tenacity as Redis maps it: 0..10 -> 0..500 us, then
 * +15% a step, 100 -> no limit. */
static uint64_t time_limit_us(void) {
    int t = server.cfg.maxmemory_eviction_tenacity;
    if (t <= 10) return 50 * (uint64_t)t;
    if (t >= 100) return UINT64_MAX;
    double us = 500.0;
    for (int i = 10; i < t; i++) us *= 1.15;
    return (uint64_t)us;
}

static void timer_start_in(uint64_t ms) {
    if (E.timer_running) return;
    E.timer_running = 1;
    uv_timer_start(&E.timer, on_timer, ms, 0);
}

static void timer_start(void) { timer_start_in(0); }

static int perform(void) {
    if (!server.cfg.maxmemory || server.loading) return EVICT_OK;
    /* a replica stays a copy of its master: only the master's DELs remove
     * keys (replica-ignore-maxmemory, as Redis's performEvictions) */
    if (server.upstream && server.cfg.replica_ignore_maxmemory) return EVICT_OK;
    if (pause_keys_frozen()) return EVICT_OK; /* CLIENT PAUSE: nothing evicted, nothing refused */
    size_t limit = (size_t)server.cfg.maxmemory;
    if (evict_counted_memory() <= limit) return EVICT_OK;
    int p = server.cfg.maxmemory_policy;
    if (p == MAXMEM_NOEVICTION) return EVICT_FAIL;
    int random = p == MAXMEM_ALLKEYS_RANDOM || p == MAXMEM_VOLATILE_RANDOM;
    int64_t start = mono_us();
    uint64_t max_us = time_limit_us();
    unsigned long n = 0;
    while (evict_counted_memory() > limit) {
        /* lazyfree-lazy-eviction: values queued for the lazyfree thread
         * are memory about to drop; evict no more until it is freed (Redis
         * checks every 16 keys and waits for its lazyfree jobs). */
        if (server.cfg.lazyfree_lazy_eviction && lazyfree_pending()) {
            timer_start_in(1);
            return EVICT_RUNNING;
        }
        if (!(random ? evict_random(p) : evict_pool(p))) return EVICT_FAIL;
        if (++n % 16 == 0 && (uint64_t)(mono_us() - start) > max_us) {
            timer_start();
            return EVICT_RUNNING;
        }
    }
    return E.timer_running ? EVICT_RUNNING : EVICT_OK;
}

int evict_perform(void) {
    /* the "eviction-cycle" latency event: timed only when the monitor is on */
    int64_t t0 = server.cfg.latency_monitor_threshold ? mono_us() : 0;
    int rc = perform();
    if (t0) latency_add_us("eviction-cycle", mono_us() - t0);
    if (rc != EVICT_OK) {
        if (!E.exceeded_since_us) E.exceeded_since_us = mono_us();
    } else if (E.exceeded_since_us) {
        E.exceeded_total_us += (uint64_t)(mono_us() - E.exceeded_since_us);
        E.exceeded_since_us = 0;
    }
    return rc;
}

static void on_timer(uv_timer_t *t) {
    (void)t;
    E.timer_running = 0;
    if (evict_perform() == EVICT_RUNNING) timer_start();
}

int evict_refuse(int cmd_flags) {
    return evict_perform() == EVICT_FAIL && (cmd_flags & CMD_DENYOOM);
}

void evict_limit_changed(void) {
    if (!server.cfg.maxmemory) return;
    size_t used = evict_counted_memory();
    if ((size_t)server.cfg.maxmemory < used)
        log_warning("WARNING: the new maxmemory value set via CONFIG SET (%lld) is smaller "
                    "than the current memory usage (%zu). This will result in key eviction "
                    "and/or the inability to accept new write commands depending on the "
                    "maxmemory-policy.", server.cfg.maxmemory, used);
    timer_start();
}

/* ---- INFO --------------------------------------------------------------- */

static const char *policy_name(int p) {
    static const char *names[] = {"volatile-lru", "volatile-lfu", "volatile-random",
                                  "volatile-ttl", "allkeys-lru", "allkeys-lfu",
                                  "allkeys-random", "noeviction"};
    return p >= 0 && p <= MAXMEM_NOEVICTION ? names[p] : "unknown";
}

void evict_info_memory(vbuf *b, size_t used_memory) {
    char line[512], hm[32];
    info_human(hm, sizeof hm, (double)server.cfg.maxmemory);
    size_t counted = evict_counted_memory();
    int n = snprintf(line, sizeof line,
                     "maxmemory:%lld\r\nmaxmemory_human:%s\r\nmaxmemory_policy:%s\r\n"
                     "mem_counted_for_evict:%zu\r\nmem_not_counted_for_evict:%zu\r\n"
                     "mem_save_retained:%zu\r\n",
                     server.cfg.maxmemory, hm, policy_name(server.cfg.maxmemory_policy),
                     counted, used_memory > counted ? used_memory - counted : 0,
                     evict_save_retained());
    if (n > 0) vbuf_append(b, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

void evict_exceeded_ms(uint64_t *total, uint64_t *current) {
    uint64_t cur = E.exceeded_since_us ? (uint64_t)(mono_us() - E.exceeded_since_us) : 0;
    *total = (E.exceeded_total_us + cur) / 1000;
    *current = cur / 1000;
}
