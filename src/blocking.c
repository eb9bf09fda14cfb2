/* blocking: clients blocked on keys (see blocking.h).
 *
 * Owns the table of blocked keys ((db, key) -> FIFO of the clients blocked
 * on it, a chained hash table with a count of keys per db for
 * block_signal_key's fast path), the list of keys signalled ready, the
 * timeout heap (clients with a deadline, earliest first, behind one libuv
 * timer armed for the earliest) and the queue of served or timed-out
 * clients whose waiting input is run next.
 *
 * A blocked client keeps its command as the pending request of its query
 * buffer (net.c stops processing its input on CLIENT_BLOCKED but keeps
 * reading, so a disconnect is seen) and a copy of its argv here. Serving a
 * ready key runs, for each client blocked on it in the order they blocked,
 * while the key exists: the client's command again through cmd_dispatch
 * (hooks, propagation, statistics as for a command that just arrived), its
 * keys narrowed to the ready one (BLPOP a b 0 served by b runs BLPOP b 0;
 * BLMPOP's numkeys becomes 1) so that, as in Redis 7.0, the key that became
 * ready is the one served, whatever the other keys hold. A client whose
 * command pops a type other than the key's (BLPOP on a key now a zset) is
 * skipped and stays blocked, as in Redis 7.0. When the command blocks
 * again (nothing to pop after all) the client keeps its place and its
 * deadline; otherwise it is unregistered from every key and its pipelined
 * input runs once the ready keys are all served.
 *
 * Main thread only (the timer runs on the loop). */
#include "blocking.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "introspect.h"
#include "net.h"
#include "util.h"

typedef struct bnode bnode;

typedef struct bkey {
    struct bkey *next;          /* bucket chain */
    struct bkey *ready_next;    /* ready list */
    uint64_t h;
    int db;
    int ready;                  /* on the ready list */
    int pinned;                 /* being served: freed by the server */
    bnode *head, *tail;         /* blocked clients, first blocked first */
    size_t len;
    char key[];
} bkey;

struct bnode {
    client *c;
    bkey *k;
    bnode *prev, *next;
};

struct block_state {
    arg *argv;                  /* the blocked command (args_dup) */
    int argc;
    int first;                  /* argv index of the first key, -1: keys not in argv */
    int nkeys;                  /* keys as given (repeats included) */
    const cmd_def *cmd;
    bnode *nodes;               /* one per distinct key */
    size_t nnodes;
    int64_t deadline;           /* unix ms; 0: none */
    size_t heap_at;             /* index in B.heap when deadline != 0 */
    int reply;                  /* BLOCK_NIL_* (see block_on_keys) */
    int type;                   /* OBJ_* the command pops; -1: any */
    int db;
    int flags;                  /* BLOCK_STREAM_GROUP */
};

static struct {
    bkey **buckets;
    size_t nbuckets, nkeys;     /* nbuckets: power of two, or 0 */
    size_t *per_db;             /* blocked keys per db (cfg.databases) */
    bkey *ready_head, *ready_tail;
    client **heap;              /* by deadline */
    size_t nheap, heapcap;
    client **resume;            /* served / timed out: input to run */
    size_t nresume, resume_at, resumecap;
    uv_timer_t timer;
    int timer_init;
    int64_t armed_for;          /* deadline the timer is set for, 0: none */
    size_t nblocked;
    client *rerun;              /* whose command runs again right now */
    const bkey *served;         /* the ready key it runs again for */
    size_t *groups_per_db;      /* BLOCK_STREAM_GROUP clients blocked per db */
    int handling;
} B;

size_t block_pending;

/* ---- timeout parsing (Redis 7.0's getTimeoutFromObjectOrReply) ---- */

int block_parse_timeout(client *c, const arg *a, int64_t *deadline_ms) {
    /* string2ld: strtold on the whole argument, no blanks, no nan */
    char buf[5 * 1024];
    long double v = 0;
    int ok = a->len > 0 && a->len < sizeof buf;
    if (ok) {
        memcpy(buf, a->p, a->len);
        buf[a->len] = '\0';
        char *end;
        errno = 0;
        v = strtold(buf, &end);
        if (isspace((unsigned char)buf[0]) || *end != '\0' ||
            (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || v == 0)) ||
            errno == EINVAL || isnan(v))
            ok = 0;
    }
    if (!ok) {
        reply_error(c, "ERR timeout is not a float or out of range");
        return 0;
    }
    /* Milliseconds rounded up (0.0001 waits 1 ms, -0.0009 is 0: forever);
     * a value out of long long's range converts to LLONG_MIN on x86-64, so
     * Redis calls it negative (1e16, inf): so do we. */
    long double ms = ceill(v * 1000.0L);
    long long t = ms >= -9223372036854775808.0L && ms < 9223372036854775808.0L ? (long long)ms
                                                                                : LLONG_MIN;
    if (t < 0) {
        reply_error(c, "ERR timeout is negative");
        return 0;
    }
    if (t == 0) {
        *deadline_ms = 0;
        return 1;
    }
    int64_t now = wall_ms();
    /* Redis's sum overflows and the client waits for ever: so here too */
    *deadline_ms = t > INT64_MAX - now ? INT64_MAX : now + t;
    return 1;
}

int block_parse_timeout_ms(client *c, const arg *a, int64_t *deadline_ms) {
    long long t;
    if (!str_to_ll(a->p, a->len, &t)) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return 0;
    }
    if (t < 0) {
        reply_error(c, "ERR timeout is negative");
        return 0;
    }
    int64_t now = wall_ms();
    *deadline_ms = t == 0 ? 0 : t > INT64_MAX - now ? INT64_MAX : now + t;
    return 1;
}

int block_allowed(const client *c) {
    /* CLIENT_MULTI while a handler runs: EXEC is running it. A client with
     * no connection (the AOF loader, the in-process clients of the unit
     * tests and fuzzers) has nobody to wait for a reply: it answers at once
     * too, as Redis's CLIENT_DENY_BLOCKING clients. */
    return !(c->flags & (CLIENT_MULTI | CLIENT_LOADER)) && c->tcp.data == c;
}

size_t block_blocked_clients(void) { return B.nblocked; }

/* ---- the key table ---- */

static uint64_t key_hash(int dbid, const char *key, size_t len) {
    return vt_hash(key, len) ^ ((uint64_t)(unsigned)dbid * 0x9e3779b97f4a7c15ULL);
}

static bkey *key_find(int dbid, const char *key, size_t len, uint64_t h) {
    if (!B.nbuckets) return NULL;
    for (bkey *k = B.buckets[h & (B.nbuckets - 1)]; k; k = k->next)
        if (k->h == h && k->db == dbid && k->len == len && memcmp(k->key, key, len) == 0)
            return k;
    return NULL;
}

static void table_grow(void) {
    size_t n = B.nbuckets ? B.nbuckets * 2 : 64;
    bkey **b = xcalloc(n, sizeof *b);
    for (size_t i = 0; i < B.nbuckets; i++) {
        for (bkey *k = B.buckets[i], *next; k; k = next) {
            next = k->next;
            k->next = b[k->h & (n - 1)];
            b[k->h & (n - 1)] = k;
        }
    }
    free(B.buckets);
    B.buckets = b;
    B.nbuckets = n;
}

static bkey *key_add(int dbid, const char *key, size_t len, uint64_t h) {
    if (!B.per_db) B.per_db = xcalloc((size_t)server.cfg.databases, sizeof *B.per_db);
    if (B.nkeys + 1 > B.nbuckets) table_grow();
    bkey *k = xcalloc(1, sizeof *k + len);
    k->h = h;
    k->db = dbid;
    k->len = len;
    memcpy(k->key, key, len);
    k->next = B.buckets[h & (B.nbuckets - 1)];
    B.buckets[h & (B.nbuckets - 1)] = k;
    B.nkeys++;
    B.per_db[dbid]++;
    return k;
}

/* Frees k once no client waits on it and nothing refers to it. */
static void key_maybe_free(bkey *k) {
    if (k->head || k->ready || k->pinned) return;
    for (bkey **p = &B.buckets[k->h & (B.nbuckets - 1)]; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            break;
        }
    }
    B.nkeys--;
    B.per_db[k->db]--;
    free(k);
}

void block_signal_key(int dbid, const char *key, size_t len) {
    if (!B.per_db || !B.per_db[dbid]) return;
    bkey *k = key_find(dbid, key, len, key_hash(dbid, key, len));
    if (!k || k->ready) return;
    k->ready = 1;
    k->ready_next = NULL;
    if (B.ready_tail) B.ready_tail->ready_next = k;
    else B.ready_head = k;
    B.ready_tail = k;
    block_pending++;
}

void block_signal_deleted(int dbid, const char *key, size_t len) {
    if (!B.groups_per_db || !B.groups_per_db[dbid]) return;
    block_signal_key(dbid, key, len);
}

void block_signal_flushed(int dbid) {
    if (!B.groups_per_db || !B.groups_per_db[dbid]) return;
    for (size_t i = 0; i < B.nbuckets; i++)
        for (bkey *k = B.buckets[i]; k; k = k->next)
            if (k->db == dbid) block_signal_key(dbid, k->key, k->len);
}

void block_signal_swapped(int dbid, vt *before) {
    if (!B.per_db || !B.per_db[dbid]) return;
    int groups = B.groups_per_db && B.groups_per_db[dbid];
    vt *now = db_get(dbid)->t;
    for (size_t i = 0; i < B.nbuckets; i++)
        for (bkey *k = B.buckets[i]; k; k = k->next) {
            if (k->db != dbid) continue;
            vt_entry *e = vt_find(now, k->key, k->len);
            vt_entry *old = groups && !e ? vt_find(before, k->key, k->len) : NULL;
            if (e || (old && old->val->type == OBJ_STREAM)) block_signal_key(dbid, k->key, k->len);
        }
}

/* ---- the timeout heap ---- */

static int64_t deadline_at(size_t i) { return B.heap[i]->bstate->deadline; }

static void heap_set(size_t i, client *c) {
    B.heap[i] = c;
    c->bstate->heap_at = i;
}

static void heap_sift_up(size_t i) {
    client *c = B.heap[i];
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (deadline_at(parent) <= c->bstate->deadline) break;
        heap_set(i, B.heap[parent]);
        i = parent;
    }
    heap_set(i, c);
}

static void heap_sift_down(size_t i) {
    client *c = B.heap[i];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        int64_t best = c->bstate->deadline;
        if (l < B.nheap && deadline_at(l) < best) m = l, best = deadline_at(l);
        if (l + 1 < B.nheap && deadline_at(l + 1) < best) m = l + 1;
        if (m == i) break;
        heap_set(i, B.heap[m]);
        i = m;
    }
    heap_set(i, c);
}

static void heap_push(client *c) {
    if (B.nheap == B.heapcap) {
        B.heapcap = B.heapcap ? B.heapcap * 2 : 16;
        B.heap = xrealloc(B.heap, B.heapcap * sizeof *B.heap);
    }
    B.heap[B.nheap++] = c;
    heap_sift_up(B.nheap - 1);
}

static void heap_remove(client *c) {
    size_t i = c->bstate->heap_at;
    assert(i < B.nheap && B.heap[i] == c);
    client *last = B.heap[--B.nheap];
    if (last == c) return;
    heap_set(i, last);
    heap_sift_up(i);
    heap_sift_down(last->bstate->heap_at);
}

static void on_timer(uv_timer_t *t);

/* Arms the timer for the earliest deadline (wall clock: a deadline is
 * checked again when the timer fires, so a clock step only delays it). */
static void timer_arm(void) {
    if (!B.nheap) {
        if (B.armed_for) uv_timer_stop(&B.timer);
        B.armed_for = 0;
        return;
    }
    int64_t due = deadline_at(0);
    if (B.armed_for == due) return;
    if (!B.timer_init) {
        uv_timer_init(server.loop, &B.timer);
        B.timer_init = 1;
    }
    int64_t now = wall_ms();
    uv_update_time(server.loop);
    uv_timer_start(&B.timer, on_timer, due > now ? (uint64_t)(due - now) : 0, 0);
    B.armed_for = due;
}

/* ---- blocking and unblocking ---- */

static int wanted_type(const cmd_def *d) {
    if (d->acl & CAT_LIST) return OBJ_LIST;
    if (d->acl & CAT_SORTEDSET) return OBJ_ZSET;
    if (d->acl & CAT_STREAM) return OBJ_STREAM;
    return -1;
}

/* block_on_keys and block_on_streams: keep_argv (the command runs again
 * with its whole argv, not narrowed to the ready key), flags. */
static void block_common(client *c, const arg *keys, int nkeys, int64_t deadline_ms,
                         int timeout_reply, int keep_argv, int flags) {
    assert(nkeys > 0 && block_allowed(c) && c->cmd);
    if (c == B.rerun) { /* served, found nothing after all: keeps its place */
        assert(c->bstate);
        c->flags |= CLIENT_BLOCKED;
        return;
    }
    assert(!c->bstate && !(c->flags & CLIENT_BLOCKED));
    struct block_state *b = xcalloc(1, sizeof *b);
    b->argv = args_dup(c->argc, c->argv);
    b->argc = c->argc;
    uintptr_t kp = (uintptr_t)keys, lo = (uintptr_t)c->argv,
              hi = (uintptr_t)(c->argv + c->argc);
    b->first = !keep_argv && kp >= lo && kp + (size_t)nkeys * sizeof(arg) <= hi
                   ? (int)(keys - c->argv)
                   : -1;
    b->nkeys = nkeys;
    b->cmd = c->cmd;
    b->deadline = deadline_ms;
    b->reply = timeout_reply;
    b->type = wanted_type(c->cmd);
    b->db = c->db;
    b->flags = flags;
    if (flags & BLOCK_STREAM_GROUP) {
        if (!B.groups_per_db)
            B.groups_per_db = xcalloc((size_t)server.cfg.databases, sizeof *B.groups_per_db);
        B.groups_per_db[c->db]++;
    }
    b->nodes = xcalloc((size_t)nkeys, sizeof *b->nodes);
    c->bstate = b;
    for (int i = 0; i < nkeys; i++) {
        uint64_t h = key_hash(c->db, keys[i].p, keys[i].len);
        bkey *k = key_find(c->db, keys[i].p, keys[i].len, h);
        if (!k) k = key_add(c->db, keys[i].p, keys[i].len, h);
        if (k->tail && k->tail->c == c) continue; /* a repeated key */
        bnode *n = &b->nodes[b->nnodes++];
        *n = (bnode){c, k, k->tail, NULL};
        if (k->tail) k->tail->next = n;
        else k->head = n;
        k->tail = n;
    }
    if (deadline_ms) {
        heap_push(c);
        timer_arm();
    }
    c->flags |= CLIENT_BLOCKED;
    B.nblocked++;
}

void block_on_keys(client *c, const arg *keys, int nkeys, int64_t deadline_ms,
                   int timeout_reply) {
    block_common(c, keys, nkeys, deadline_ms, timeout_reply, 0, 0);
}

void block_on_streams(client *c, const arg *keys, int nkeys, int64_t deadline_ms, int flags) {
    block_common(c, keys, nkeys, deadline_ms, BLOCK_NIL_ARRAY, 1, flags);
}

void block_set_arg(client *c, int i, const char *p, size_t len) {
    struct block_state *b = c->bstate;
    assert(b && c != B.rerun && i >= 0 && i < b->argc);
    arg *v = xmalloc((size_t)b->argc * sizeof *v);
    memcpy(v, b->argv, (size_t)b->argc * sizeof *v);
    v[i] = (arg){p, len};
    arg *copy = args_dup(b->argc, v);
    free(v);
    free(b->argv);
    b->argv = copy;
}

const arg *block_served_key(const client *c, arg *out) {
    if (c != B.rerun || !B.served) return NULL;
    *out = (arg){B.served->key, B.served->len};
    return out;
}

/* Removes c from every key and the heap; c is no longer blocked. */
static void unblock(client *c) {
    struct block_state *b = c->bstate;
    for (size_t i = 0; i < b->nnodes; i++) {
        bnode *n = &b->nodes[i];
        bkey *k = n->k;
        if (n->prev) n->prev->next = n->next;
        else k->head = n->next;
        if (n->next) n->next->prev = n->prev;
        else k->tail = n->prev;
        key_maybe_free(k);
    }
    if (b->deadline) {
        heap_remove(c);
        timer_arm();
    }
    if (b->flags & BLOCK_STREAM_GROUP) B.groups_per_db[b->db]--;
    free(b->nodes);
    free(b->argv);
    free(b);
    c->bstate = NULL;
    c->flags &= ~CLIENT_BLOCKED;
    /* it was waiting on us, not idle: the idle timeout counts from now, so
     * the clients cron cannot close it before its reply is written */
    c->last_ms = mono_ms();
    B.nblocked--;
}

static void queue_resume(client *c) {
    if (B.nresume == B.resumecap) {
        B.resumecap = B.resumecap ? B.resumecap * 2 : 16;
        B.resume = xrealloc(B.resume, B.resumecap * sizeof *B.resume);
    }
    B.resume[B.nresume++] = c;
    block_pending++;
}

void block_client_closed(client *c) {
    for (size_t i = B.resume_at; i < B.nresume; i++)
        if (B.resume[i] == c) B.resume[i] = NULL;
    if (c->bstate) unblock(c);
}

int block_unblock(client *c, int error) {
    if (!c->bstate || c == B.rerun) return 0;
    introspect_call_failed((cmd_def *)c->bstate->cmd); /* either way, as Redis 7.0 */
    if (error) reply_error(c, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
    else resp_add_nil_array(&c->reply); /* as a timeout */
    unblock(c);
    net_skip_pending(c);
    queue_resume(c);
    return 1;
}

const char *block_first_key(const client *c, size_t *len, int *writes) {
    const struct block_state *b = c->bstate;
    if (!b || b->nnodes == 0) return NULL;
    *writes = (b->cmd->flags & CMD_WRITE) != 0;
    *len = b->nodes[0].k->len;
    return b->nodes[0].k->key;
}

int block_unblock_error(client *c, const char *err) {
    if (!c->bstate || c == B.rerun) return 0;
    reply_error(c, err);
    unblock(c);
    net_skip_pending(c);
    queue_resume(c);
    return 1;
}

size_t block_timeout_clients(void) { return B.nheap; }

static void on_timer(uv_timer_t *t) {
    (void)t;
    B.armed_for = 0;
    int64_t now = wall_ms();
    while (B.nheap && deadline_at(0) <= now) {
        client *c = B.heap[0];
        /* a null array whatever the command (BLMOVE too), as Redis 7.0's
         * replyToBlockedClientTimedOut */
        reply_nil_array(c);
        unblock(c);
        net_skip_pending(c);
        queue_resume(c);
    }
    timer_arm();
    block_handle_ready();
}

/* ---- serving ---- */

/* The argv c's command runs with when key k is ready: its keys narrowed
 * to k when they are a range of argv (and numkeys made 1 when a KEYNUM
 * spec counts them); *argc set. Freed by the caller. */
static arg *serve_argv(const struct block_state *b, const bkey *k, int *argc) {
    arg *v = xmalloc((size_t)b->argc * sizeof *v);
    if (b->first < 0 || b->nkeys == 1) {
        memcpy(v, b->argv, (size_t)b->argc * sizeof *v);
        *argc = b->argc;
        return v;
    }
    int n = 0;
    for (int i = 0; i < b->first; i++) v[n++] = b->argv[i];
    v[n++] = (arg){k->key, k->len};
    for (int i = b->first + b->nkeys; i < b->argc; i++) v[n++] = b->argv[i];
    const cmd_key_spec *s = b->cmd->nkey_specs ? &b->cmd->key_specs[0] : NULL;
    if (s && s->bs_type == KS_BS_INDEX && s->fk_type == KS_FK_KEYNUM) {
        int numkeys = s->bs_index + s->fk_keynumidx;
        if (numkeys + s->fk_firstkey == b->first && numkeys < b->first) v[numkeys] = (arg){"1", 1};
    }
    *argc = n;
    return v;
}

/* Runs c's command again for ready key k. */
static void serve_client(client *c, bkey *k) {
    struct block_state *b = c->bstate;
    int argc;
    arg *argv = serve_argv(b, k, &argc);
    arg *own_argv = c->argv;
    int own_argc = c->argc;
    assert(c->db == b->db);
    c->argv = argv;
    c->argc = argc;
    c->flags &= ~CLIENT_BLOCKED;
    c->last_ms = mono_ms(); /* as unblock: not idle */
    B.rerun = c;
    B.served = k;
    /* Redis counts a blocking command once, when it first runs: its run
     * again adds time to its statistics, not a call */
    cmd_def *d = (cmd_def *)b->cmd;
    uint64_t calls = d->calls, commands = server.stat.commands;
    cmd_dispatch(c);
    if (!(c->flags & CLIENT_INPUT_PARKED)) {
        d->calls = calls;
        server.stat.commands = commands;
    }
    B.rerun = NULL;
    B.served = NULL;
    c->argv = own_argv;
    c->argc = own_argc;
    free(argv);
    if (c->flags & CLIENT_BLOCKED) return; /* still nothing: stays in place */
    unblock(c);
    /* AOF backlog parking: the AOF runs the command from the query buffer
     * when it resumes the client (a fresh block if it then waits again). */
    if (c->flags & CLIENT_INPUT_PARKED) return;
    net_skip_pending(c);
    queue_resume(c);
}

/* A BLOCK_STREAM_GROUP client whose stream is gone (deleted, or now
 * another type): Redis 7.0's unblockDeletedStreamReadgroupClients. */
static void unblock_deleted(client *c) {
    reply_error(c, "UNBLOCKED the stream key no longer exists");
    unblock(c);
    net_skip_pending(c);
    queue_resume(c);
}

/* Serves k's clients, first blocked first, while k exists. */
static void serve_key(bkey *k) {
    db *d = db_get(k->db);
    k->pinned = 1;
    for (bnode *n = k->head, *next; n; n = next) {
        next = n->next;
        vt_entry *e = db_lookup_notouch(d, k->key, k->len);
        client *c = n->c;
        int gone = !e || (c->bstate->type >= 0 && e->val->type != c->bstate->type);
        if (gone && (c->bstate->flags & BLOCK_STREAM_GROUP)) {
            unblock_deleted(c);
            continue;
        }
        if (!e) {
            if (B.groups_per_db && B.groups_per_db[k->db]) continue; /* a group reader later */
            break;
        }
        if (c->flags & CLIENT_CLOSE_ASAP) continue; /* dying: what it popped would be lost */
        if (gone) continue;
        serve_client(c, k);
    }
    k->pinned = 0;
    key_maybe_free(k);
}

void block_handle_ready_slow(void) {
    if (B.handling) return;
    B.handling = 1;
    int64_t time_prev = 0;
    int held = 0; /* one time for the blocked clients served in a row */
    for (;;) {
        if (B.ready_head) {
            if (!held) time_prev = db_time_hold(), held = 1;
            bkey *k = B.ready_head;
            B.ready_head = k->ready_next;
            if (!B.ready_head) B.ready_tail = NULL;
            k->ready = 0;
            block_pending--;
            serve_key(k);
        } else if (B.resume_at < B.nresume) {
            if (held) db_time_release(time_prev), held = 0;
            client *c = B.resume[B.resume_at++];
            block_pending--;
            if (!c) continue; /* closed meanwhile */
            net_process_input(c);
            net_update_reading(c);
            net_want_write(c);
        } else {
            break;
        }
    }
    if (held) db_time_release(time_prev);
    B.nresume = B.resume_at = 0;
    B.handling = 0;
}
