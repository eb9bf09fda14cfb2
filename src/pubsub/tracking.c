/* tracking: CLIENT TRACKING and its invalidation messages (see tracking.h).
 *
 * Owns the tracking table (key -> ids of the clients that may cache it),
 * an index of the tracking clients by id (the table holds ids, so that a
 * client that goes away leaves no dangling pointer: its ids are skipped),
 * the broadcast prefixes (prefix -> its BCAST clients and the keys changed
 * under it since the loop last slept) and the invalidations that wait for
 * the end of the running command. Main thread only. */
#include "tracking.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cmd.h"
#include "hooks.h"
#include "net.h"
#include "resp.h"
#include "script_lua.h"
#include "util.h"

enum {
    TRK_BCAST = 1 << 0,
    TRK_OPTIN = 1 << 1,
    TRK_OPTOUT = 1 << 2,
    TRK_NOLOOP = 1 << 3,
    TRK_CACHING = 1 << 4,  /* CLIENT CACHING yes (OPTIN) / no (OPTOUT) given */
    TRK_BROKEN = 1 << 5,   /* the redirect target went away */
};

struct tracking_state {
    int flags;                  /* TRK_* */
    uint64_t redirect;          /* REDIRECT's client id, 0: none */
    client *redir;              /* that client while connected, else NULL */
    char **pfx;                 /* BCAST prefixes, sorted (TRACKINGINFO) */
    size_t *pfxlen;
    size_t npfx;
};

/* ---- a table of binary keys (chained, doubled at load 1) ---- */

typedef struct tkey {
    struct tkey *next;
    uint64_t h;
    uint64_t *ids;              /* table: ids of the clients that may cache it */
    size_t n, cap;
    uint64_t who;               /* broadcast: id of the client that changed it last */
    size_t len;
    char key[];
} tkey;

typedef struct tmap {
    tkey **b;
    size_t nb, n;
} tmap;

static uint64_t key_hash(const char *p, size_t len) { return XXH3_64bits(p, len); }

/* Byte order, a prefix before what it starts (a radix tree's order). */
static int bytes_cmp(const char *a, size_t alen, const char *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    int r = n ? memcmp(a, b, n) : 0;
    return r ? r : (alen > blen) - (alen < blen);
}

static tkey *tmap_find(const tmap *m, const char *p, size_t len, uint64_t h) {
    if (!m->nb) return NULL;
    for (tkey *k = m->b[h & (m->nb - 1)]; k; k = k->next)
        if (k->h == h && k->len == len && !memcmp(k->key, p, len)) return k;
    return NULL;
}

static void tmap_grow(tmap *m) {
    size_t nb = m->nb ? m->nb * 2 : 16;
    tkey **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < m->nb; i++) {
        for (tkey *k = m->b[i], *next; k; k = next) {
            next = k->next;
            k->next = b[k->h & (nb - 1)];
            b[k->h & (nb - 1)] = k;
        }
    }
    free(m->b);
    m->b = b;
    m->nb = nb;
}

static tkey *tmap_add(tmap *m, const char *p, size_t len, uint64_t h) {
    if (m->n + 1 > m->nb) tmap_grow(m);
    tkey *k = xcalloc(1, sizeof *k + len);
    k->h = h;
    k->len = len;
    if (len) memcpy(k->key, p, len);
    k->next = m->b[h & (m->nb - 1)];
    m->b[h & (m->nb - 1)] = k;
    m->n++;
    return k;
}

static void tmap_del(tmap *m, tkey *k) {
    for (tkey **p = &m->b[k->h & (m->nb - 1)]; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            break;
        }
    }
    free(k->ids);
    free(k);
    m->n--;
}

static void tmap_clear(tmap *m) {
    for (size_t i = 0; i < m->nb; i++) {
        for (tkey *k = m->b[i], *next; k; k = next) {
            next = k->next;
            free(k->ids);
            free(k);
        }
    }
    free(m->b);
    m->b = NULL;
    m->nb = m->n = 0;
}

/* A key at random (a random bucket, then the next non-empty one). */
static tkey *tmap_random(const tmap *m) {
    if (!m->n) return NULL;
    for (size_t i = (size_t)draw_below(m->nb);; i = (i + 1) & (m->nb - 1))
        if (m->b[i]) return m->b[i];
}

/* ---- tracking clients by id (open addressing, backward-shift delete) ---- */

static struct {
    uint64_t *ids;              /* 0: empty slot (client ids start at 1) */
    client **cs;
    size_t cap, n;
} I;

static size_t id_home(uint64_t id) { return (size_t)(id * 0x9e3779b97f4a7c15ULL) & (I.cap - 1); }

static client *id_get(uint64_t id) {
    if (!I.cap) return NULL;
    for (size_t i = id_home(id);; i = (i + 1) & (I.cap - 1)) {
        if (!I.ids[i]) return NULL;
        if (I.ids[i] == id) return I.cs[i];
    }
}

static void id_insert(uint64_t id, client *c) {
    size_t i = id_home(id);
    while (I.ids[i]) i = (i + 1) & (I.cap - 1);
    I.ids[i] = id;
    I.cs[i] = c;
    I.n++;
}

static void id_put(uint64_t id, client *c) {
    assert(id && !id_get(id));
    if ((I.n + 1) * 2 > I.cap) {
        uint64_t *ids = I.ids;
        client **cs = I.cs;
        size_t cap = I.cap;
        I.cap = cap ? cap * 2 : 16;
        I.ids = xcalloc(I.cap, sizeof *I.ids);
        I.cs = xcalloc(I.cap, sizeof *I.cs);
        I.n = 0;
        for (size_t i = 0; i < cap; i++)
            if (ids[i]) id_insert(ids[i], cs[i]);
        free(ids);
        free(cs);
    }
    id_insert(id, c);
}

static void id_del(uint64_t id) {
    size_t mask = I.cap - 1, i = id_home(id);
    while (I.ids[i] != id) {
        assert(I.ids[i]);
        i = (i + 1) & mask;
    }
    I.ids[i] = 0;
    I.n--;
    /* move back the entries displaced past the hole */
    for (size_t j = (i + 1) & mask; I.ids[j]; j = (j + 1) & mask) {
        size_t home = id_home(I.ids[j]);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            I.ids[i] = I.ids[j];
            I.cs[i] = I.cs[j];
            I.ids[j] = 0;
            i = j;
        }
    }
}

/* ---- global state ---- */

typedef struct prefix {
    char *p;
    size_t len;
    client **cs;                /* its BCAST clients */
    size_t n, cap;
    tmap keys;                  /* changed since the last broadcast */
} prefix;

/* An invalidation for the client whose command runs: sent after its reply. */
typedef struct pending {
    client *c;                  /* NULL once it closed */
    char *key;                  /* NULL: the flush's null */
    size_t len;
} pending;

static struct {
    tmap table;
    uint64_t items;             /* ids over all keys (tracking_total_items) */
    size_t nclients;            /* clients with tracking on */
    prefix **pfx;
    size_t npfx;
    pending *q;
    size_t nq, capq;
    unsigned limit_rounds;      /* limit passes that ended still over */
} T;

size_t tracking_live;

static void update_live(void) { tracking_live = T.table.n + T.npfx; }

size_t tracking_clients(void) { return T.nclients; }

/* ---- messages ---- */

/* Starts a message for tracking client c: the client it goes to (c or its
 * redirect) with the header written, or NULL when nothing can be sent. */
static client *msg_begin(client *c) {
    struct tracking_state *t = c->tracking;
    client *to = c;
    int redirected = 0;
    if (t->redirect) {
        if (!t->redir) {
            t->flags |= TRK_BROKEN;
            if (c->resp > 2) {
                resp_add_push(&c->reply, 2);
                resp_add_bulk(&c->reply, "tracking-redir-broken", 21);
                resp_add_int(&c->reply, (long long)t->redirect);
                net_want_write(c);
            }
            return NULL;
        }
        to = t->redir;
        redirected = 1;
    }
    if (to->flags & CLIENT_CLOSING) return NULL;
    if (to->resp > 2) {
        resp_add_push(&to->reply, 2);
        resp_add_bulk(&to->reply, "invalidate", 10);
    } else if (redirected && (to->flags & CLIENT_PUBSUB)) {
        /* RESP2: a pub/sub message, whatever channels it subscribed to */
        resp_add_array(&to->reply, 3);
        resp_add_bulk(&to->reply, "message", 7);
        resp_add_bulk(&to->reply, "__redis__:invalidate", 20);
    } else {
        return NULL; /* RESP2 without a subscribed redirect: no way to tell it */
    }
    net_want_write(to);
    return to;
}

static void send_key(client *c, const char *key, size_t len) {
    client *to = msg_begin(c);
    if (!to) return;
    resp_add_array(&to->reply, 1);
    resp_add_bulk(&to->reply, key, len);
}

/* "every key": a null in the protocol of the tracking client, as Redis. */
static void send_null(client *c) {
    int resp = c->resp;
    client *to = msg_begin(c);
    if (!to) return;
    if (resp > 2) resp_add_null(&to->reply);
    else resp_add_nil(&to->reply);
}

static void send_proto(client *c, const vbuf *proto) {
    client *to = msg_begin(c);
    if (to) vbuf_append(&to->reply, proto->data, proto->len);
}

static void pending_add(client *c, const char *key, size_t len) {
    if (T.nq == T.capq) {
        T.capq = T.capq ? T.capq * 2 : 8;
        T.q = xrealloc(T.q, T.capq * sizeof *T.q);
    }
    T.q[T.nq++] = (pending){c, key ? xstrndup(key, len) : NULL, len};
}

static void pending_flush(void) {
    for (size_t i = 0; i < T.nq; i++) {
        pending *p = &T.q[i];
        if (p->c && p->c->tracking) {
            if (p->key) send_key(p->c, p->key, p->len);
            else send_null(p->c);
        }
        free(p->key);
    }
    T.nq = 0;
}

/* ---- invalidation ---- */

/* The client a broadcast NOLOOP leaves a change out for: the one whose
 * command made it; a script's fake client (no connection's id) while a
 * script runs; none (0) for the server's own (expiry, eviction). */
static uint64_t changer(int by_server) {
    if (by_server || !server.current_client) return 0;
    return scriptl_running() ? UINT64_MAX : server.current_client->id;
}

static void remember_broadcast(const char *key, size_t len, uint64_t who) {
    uint64_t h = 0;
    int hashed = 0;
    for (size_t i = 0; i < T.npfx; i++) {
        prefix *p = T.pfx[i];
        if (p->len > len || (p->len && memcmp(p->p, key, p->len))) continue;
        if (!hashed) h = key_hash(key, len), hashed = 1;
        tkey *k = tmap_find(&p->keys, key, len, h);
        if (!k) k = tmap_add(&p->keys, key, len, h);
        k->who = who;
    }
}

/* Tells the clients that may cache key (bcast: the prefixes too) and
 * forgets the key. key must not point into the table. */
static void invalidate(const char *key, size_t len, int bcast, int by_server) {
    if (bcast && T.npfx) remember_broadcast(key, len, changer(by_server));
    tkey *k = tmap_find(&T.table, key, len, key_hash(key, len));
    if (!k) return;
    client *cur = server.current_client;
    for (size_t i = 0; i < k->n; i++) {
        client *t = id_get(k->ids[i]);
        /* a client now in BCAST mode gets no message left from before */
        if (!t || (t->tracking->flags & TRK_BCAST)) continue;
        if ((t->tracking->flags & TRK_NOLOOP) && t == cur) continue;
        if (t == cur) pending_add(t, key, len);
        else send_key(t, key, len);
    }
    T.items -= k->n;
    tmap_del(&T.table, k);
    update_live();
}

void tracking_invalidate_key_slow(const char *key, size_t len, int by_server) {
    invalidate(key, len, 1, by_server);
}

/* FLUSHDB, FLUSHALL, a replica's new dataset: a null to every tracking
 * client, and the table is emptied. */
static void invalidate_all(void) {
    if (T.nclients) {
        for (client *c = server.clients; c; c = c->next) {
            if (!c->tracking) continue;
            if (c == server.current_client) pending_add(c, NULL, 0);
            else send_null(c);
        }
    }
    tmap_clear(&T.table);
    T.items = 0;
    update_live();
}

static void on_after_flush(int all) {
    (void)all;
    invalidate_all();
}

/* tracking-table-max-keys: random keys are invalidated (as if changed)
 * until the table fits, with an effort that grows while it does not. */
static void limit_table(void) {
    size_t max = (size_t)server.cfg.tracking_table_max_keys;
    if (!max || T.table.n <= max) {
        T.limit_rounds = 0;
        return;
    }
    for (unsigned effort = 100 * (T.limit_rounds + 1); effort > 0; effort--) {
        tkey *k = tmap_random(&T.table);
        if (!k) break;
        char *key = xstrndup(k->key, k->len);
        invalidate(key, k->len, 0, 1);
        free(key);
        if (T.table.n <= max) {
            T.limit_rounds = 0;
            return;
        }
    }
    T.limit_rounds++;
}

static int on_before_command(client *c, const cmd_def *d) {
    (void)c;
    (void)d;
    if (T.table.n) limit_table();
    return 0;
}

/* The limit applies on an idle server too (a CONFIG SET lowered it), as
 * Redis's serverCron. */
static void on_cron(void) {
    if (T.table.n && T.nclients) limit_table();
}

/* ---- broadcast (before the loop sleeps) ---- */

static int key_cmp(const void *a, const void *b) {
    const tkey *x = *(tkey *const *)a, *y = *(tkey *const *)b;
    return bytes_cmp(x->key, x->len, y->key, y->len);
}

/* The array of keys (sorted, as Redis's radix tree gives them), without
 * those last changed by client id `skip` (0: none); 0 when empty. */
static size_t build_keys(vbuf *b, tkey **keys, size_t n, uint64_t skip) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (!skip || keys[i]->who != skip) count++;
    if (!count) return 0;
    resp_add_array(b, (long long)count);
    for (size_t i = 0; i < n; i++)
        if (!skip || keys[i]->who != skip) resp_add_bulk(b, keys[i]->key, keys[i]->len);
    return count;
}

static void broadcast_prefix(prefix *p) {
    tkey **keys = xmalloc(p->keys.n * sizeof *keys);
    size_t n = 0;
    for (size_t i = 0; i < p->keys.nb; i++)
        for (tkey *k = p->keys.b[i]; k; k = k->next) keys[n++] = k;
    assert(n == p->keys.n);
    qsort(keys, n, sizeof *keys, key_cmp);
    vbuf all = {0}, own = {0};
    build_keys(&all, keys, n, 0);
    for (size_t i = 0; i < p->n; i++) {
        client *c = p->cs[i];
        if (c->tracking->flags & TRK_NOLOOP) {
            vbuf_reset(&own);
            if (build_keys(&own, keys, n, c->id)) send_proto(c, &own);
        } else {
            send_proto(c, &all);
        }
    }
    vbuf_free(&all);
    vbuf_free(&own);
    free(keys);
}

static void on_before_sleep(void) {
    if (T.nq) pending_flush(); /* their command is long over */
    for (size_t i = 0; i < T.npfx; i++) {
        prefix *p = T.pfx[i];
        if (!p->keys.n) continue;
        broadcast_prefix(p);
        tmap_clear(&p->keys);
    }
}

/* ---- remembering keys ---- */

void tracking_remember(client *c, const cmd_def *d) {
    if (!(d->flags & CMD_READONLY) || (d->flags & CMD_PUBSUB)) return;
    /* a read-only script is not tracked itself, the commands it runs are */
    if (d->proc == cmd_eval_ro || d->proc == cmd_evalsha_ro || d->proc == cmd_fcall_ro) return;
    /* a command a script runs remembers the keys the script's caller
     * declared (EVAL's, FCALL's key arguments), not its own: Redis 7.0's
     * trackingRememberKeys(script_caller) reads the caller's argv */
    client *who = c;
    if ((c->flags & CLIENT_SCRIPT) && server.current_client) {
        who = server.current_client;
        d = who->cmd;
        if (!d) return;
    }
    struct tracking_state *t = who->tracking;
    if (!t || (t->flags & TRK_BCAST)) return;
    int caching = (t->flags & TRK_CACHING) != 0;
    if (((t->flags & TRK_OPTIN) && !caching) || ((t->flags & TRK_OPTOUT) && caching)) return;
    cmd_keyrefs keys = {0};
    cmd_get_keys(d, who->argc, who->argv, &keys);
    for (size_t j = 0; j < keys.n; j++) {
        const arg *a = &who->argv[keys.v[j].pos];
        uint64_t h = key_hash(a->p, a->len);
        tkey *k = tmap_find(&T.table, a->p, a->len, h);
        if (!k) k = tmap_add(&T.table, a->p, a->len, h);
        size_t i = 0;
        while (i < k->n && k->ids[i] != who->id) i++;
        if (i < k->n) continue;
        if (k->n == k->cap) {
            k->cap = k->cap ? k->cap * 2 : 2;
            k->ids = xrealloc(k->ids, k->cap * sizeof *k->ids);
        }
        k->ids[k->n++] = who->id;
        T.items++;
    }
    cmd_keys_free(&keys);
    update_live();
}

void tracking_command_done(client *c, const cmd_def *d) {
    if (T.nq) pending_flush();
    /* CLIENT CACHING applies to the next command, or to the next
     * transaction as a whole (as Redis's resetClient) */
    if (c->tracking && !(c->flags & CLIENT_MULTI) && !(d && d->proc == cmd_client))
        c->tracking->flags &= ~TRK_CACHING;
}

/* ---- enabling and disabling ---- */

static prefix *prefix_get(const char *p, size_t len) {
    for (size_t i = 0; i < T.npfx; i++)
        if (T.pfx[i]->len == len && !memcmp(T.pfx[i]->p, p, len)) return T.pfx[i];
    prefix *x = xcalloc(1, sizeof *x);
    x->p = xstrndup(p, len);
    x->len = len;
    /* sorted: broadcasts go out prefix by prefix in Redis's (radix) order */
    size_t at = 0;
    while (at < T.npfx && bytes_cmp(T.pfx[at]->p, T.pfx[at]->len, p, len) < 0) at++;
    T.pfx = xrealloc(T.pfx, (T.npfx + 1) * sizeof *T.pfx);
    memmove(&T.pfx[at + 1], &T.pfx[at], (T.npfx - at) * sizeof *T.pfx);
    T.pfx[at] = x;
    T.npfx++;
    return x;
}

static void prefix_drop_client(prefix *x, client *c) {
    for (size_t i = 0; i < x->n; i++) {
        if (x->cs[i] != c) continue;
        memmove(&x->cs[i], &x->cs[i + 1], (x->n - i - 1) * sizeof *x->cs);
        x->n--;
        break;
    }
    if (x->n) return;
    for (size_t i = 0; i < T.npfx; i++) {
        if (T.pfx[i] != x) continue;
        memmove(&T.pfx[i], &T.pfx[i + 1], (T.npfx - i - 1) * sizeof *T.pfx);
        T.npfx--;
        break;
    }
    tmap_clear(&x->keys);
    free(x->cs);
    free(x->p);
    free(x);
}

/* Subscribes c (BCAST) to prefix p, once. */
static void add_prefix(client *c, const char *p, size_t len) {
    struct tracking_state *t = c->tracking;
    size_t at = 0;
    for (; at < t->npfx; at++) {
        int r = bytes_cmp(t->pfx[at], t->pfxlen[at], p, len);
        if (r == 0) return; /* already */
        if (r > 0) break;
    }
    t->pfx = xrealloc(t->pfx, (t->npfx + 1) * sizeof *t->pfx);
    t->pfxlen = xrealloc(t->pfxlen, (t->npfx + 1) * sizeof *t->pfxlen);
    memmove(&t->pfx[at + 1], &t->pfx[at], (t->npfx - at) * sizeof *t->pfx);
    memmove(&t->pfxlen[at + 1], &t->pfxlen[at], (t->npfx - at) * sizeof *t->pfxlen);
    t->pfx[at] = xstrndup(p, len);
    t->pfxlen[at] = len;
    t->npfx++;
    prefix *x = prefix_get(p, len);
    if (x->n == x->cap) {
        x->cap = x->cap ? x->cap * 2 : 4;
        x->cs = xrealloc(x->cs, x->cap * sizeof *x->cs);
    }
    x->cs[x->n++] = c;
}

static void enable(client *c, uint64_t redirect, client *redir, int opts, const arg *pfx,
                   size_t npfx) {
    struct tracking_state *t = c->tracking;
    if (!t) {
        t = c->tracking = xcalloc(1, sizeof *t);
        c->flags |= CLIENT_TRACKING;
        id_put(c->id, c);
        T.nclients++;
    }
    t->flags &= ~(TRK_BROKEN | TRK_BCAST | TRK_OPTIN | TRK_OPTOUT | TRK_NOLOOP);
    t->redirect = redirect;
    t->redir = redir;
    if (opts & TRK_BCAST) {
        t->flags |= TRK_BCAST;
        if (!npfx) add_prefix(c, "", 0);
        for (size_t i = 0; i < npfx; i++) add_prefix(c, pfx[i].p, pfx[i].len);
    }
    t->flags |= opts & (TRK_OPTIN | TRK_OPTOUT | TRK_NOLOOP);
    update_live();
}

void tracking_disable(client *c) {
    struct tracking_state *t = c->tracking;
    if (!t) return;
    for (size_t i = 0; i < t->npfx; i++) {
        for (size_t j = 0; j < T.npfx; j++) {
            prefix *x = T.pfx[j];
            if (x->len == t->pfxlen[i] && !memcmp(x->p, t->pfx[i], x->len)) {
                prefix_drop_client(x, c);
                break;
            }
        }
        free(t->pfx[i]);
    }
    free(t->pfx);
    free(t->pfxlen);
    free(t);
    c->tracking = NULL;
    c->flags &= ~CLIENT_TRACKING;
    id_del(c->id);
    T.nclients--;
    update_live();
}

static void on_client_closed(client *c) {
    for (size_t i = 0; i < T.nq; i++)
        if (T.q[i].c == c) T.q[i].c = NULL;
    if (T.nclients) {
        for (client *o = server.clients; o; o = o->next)
            if (o->tracking && o->tracking->redir == c) o->tracking->redir = NULL;
    }
    tracking_disable(c);
}

/* ---- CLIENT TRACKING and friends ---- */

static client *client_by_id(uint64_t id) {
    for (client *o = server.clients; o; o = o->next)
        if (o->id == id) return o;
    return NULL;
}

/* Two prefixes overlap when one starts the other (they would both match
 * some key). */
static int overlaps(const char *a, size_t alen, const char *b, size_t blen) {
    size_t n = alen < blen ? alen : blen;
    return n == 0 || !memcmp(a, b, n);
}

/* Redis's checkPrefixCollisionsOrReply: 1, or 0 after replying. */
static int prefixes_ok(client *c, const arg *pfx, size_t n) {
    const struct tracking_state *t = c->tracking;
    for (size_t i = 0; i < n; i++) {
        for (size_t e = 0; t && e < t->npfx; e++) {
            if (!overlaps(t->pfx[e], t->pfxlen[e], pfx[i].p, pfx[i].len)) continue;
            reply_errorf(c, "ERR Prefix '%.*s' overlaps with an existing prefix '%.*s'. "
                            "Prefixes for a single client must not overlap.",
                         (int)pfx[i].len, pfx[i].p, (int)t->pfxlen[e], t->pfx[e]);
            return 0;
        }
        for (size_t j = i + 1; j < n; j++) {
            if (!overlaps(pfx[i].p, pfx[i].len, pfx[j].p, pfx[j].len)) continue;
            reply_errorf(c, "ERR Prefix '%.*s' overlaps with another provided prefix '%.*s'. "
                            "Prefixes for a single client must not overlap.",
                         (int)pfx[i].len, pfx[i].p, (int)pfx[j].len, pfx[j].p);
            return 0;
        }
    }
    return 1;
}

/* The checks of Redis 7.0's CLIENT TRACKING ON, in its order: 1, or 0
 * after replying the error. */
static int on_options_ok(client *c, int opts, const arg *pfx, size_t npfx) {
    const struct tracking_state *t = c->tracking;
    if (!(opts & TRK_BCAST) && npfx) {
        reply_error(c, "ERR PREFIX option requires BCAST mode to be enabled");
        return 0;
    }
    if (t && !!(t->flags & TRK_BCAST) != !!(opts & TRK_BCAST)) {
        reply_error(c, "ERR You can't switch BCAST mode on/off before disabling tracking for "
                       "this client, and then re-enabling it with a different mode.");
        return 0;
    }
    if ((opts & TRK_BCAST) && (opts & (TRK_OPTIN | TRK_OPTOUT))) {
        reply_error(c, "ERR OPTIN and OPTOUT are not compatible with BCAST");
        return 0;
    }
    if ((opts & TRK_OPTIN) && (opts & TRK_OPTOUT)) {
        reply_error(c, "ERR You can't specify both OPTIN mode and OPTOUT mode");
        return 0;
    }
    if (t && (((opts & TRK_OPTIN) && (t->flags & TRK_OPTOUT)) ||
              ((opts & TRK_OPTOUT) && (t->flags & TRK_OPTIN)))) {
        reply_error(c, "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for "
                       "this client, and then re-enabling it with a different mode.");
        return 0;
    }
    return !(opts & TRK_BCAST) || prefixes_ok(c, pfx, npfx);
}

/* CLIENT TRACKING on|off [REDIRECT id] [BCAST] [PREFIX p ...] [OPTIN]
 * [OPTOUT] [NOLOOP]: the options are parsed (and REDIRECT's client looked
 * up) before on/off is read, as Redis. */
void tracking_cmd_tracking(client *c) {
    long long redirect = 0;
    client *redir = NULL;
    int opts = 0;
    arg *pfx = NULL;
    size_t npfx = 0;
    for (int j = 3; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const arg *a = &c->argv[j];
        if (arg_is(a, "redirect") && more) {
            j++;
            if (redirect) {
                reply_error(c, "ERR A client can only redirect to a single other client");
                goto out;
            }
            if (!arg_ll(c, &c->argv[j], &redirect)) goto out;
            if (redirect <= 0 || !(redir = client_by_id((uint64_t)redirect))) {
                reply_error(c, "ERR The client ID you want redirect to does not exist");
                goto out;
            }
        } else if (arg_is(a, "bcast")) {
            opts |= TRK_BCAST;
        } else if (arg_is(a, "optin")) {
            opts |= TRK_OPTIN;
        } else if (arg_is(a, "optout")) {
            opts |= TRK_OPTOUT;
        } else if (arg_is(a, "noloop")) {
            opts |= TRK_NOLOOP;
        } else if (arg_is(a, "prefix") && more) {
            j++;
            pfx = xrealloc(pfx, (npfx + 1) * sizeof *pfx);
            pfx[npfx++] = c->argv[j];
        } else {
            reply_syntax_error(c);
            goto out;
        }
    }
    if (arg_is(&c->argv[2], "on")) {
        if (!on_options_ok(c, opts, pfx, npfx)) goto out;
        enable(c, (uint64_t)redirect, redir, opts, pfx, npfx);
    } else if (arg_is(&c->argv[2], "off")) {
        tracking_disable(c);
    } else {
        reply_syntax_error(c);
        goto out;
    }
    reply_ok(c);
out:
    free(pfx);
}

/* CLIENT CACHING yes|no */
void tracking_cmd_caching(client *c) {
    struct tracking_state *t = c->tracking;
    if (!t) {
        reply_error(c, "ERR CLIENT CACHING can be called only when the client is in tracking "
                       "mode with OPTIN or OPTOUT mode enabled");
        return;
    }
    if (arg_is(&c->argv[2], "yes")) {
        if (!(t->flags & TRK_OPTIN)) {
            reply_error(c, "ERR CLIENT CACHING YES is only valid when tracking is enabled in "
                           "OPTIN mode.");
            return;
        }
    } else if (arg_is(&c->argv[2], "no")) {
        if (!(t->flags & TRK_OPTOUT)) {
            reply_error(c, "ERR CLIENT CACHING NO is only valid when tracking is enabled in "
                           "OPTOUT mode.");
            return;
        }
    } else {
        reply_syntax_error(c);
        return;
    }
    t->flags |= TRK_CACHING;
    reply_ok(c);
}

size_t tracking_client_mem(const client *c) {
    const struct tracking_state *t = c->tracking;
    if (!t) return 0;
    size_t n = sizeof *t + t->npfx * (sizeof *t->pfx + sizeof *t->pfxlen);
    for (size_t i = 0; i < t->npfx; i++) n += t->pfxlen[i] + 1;
    return n;
}

long long tracking_redir(const client *c) {
    return c->tracking ? (long long)c->tracking->redirect : -1;
}

void tracking_cmd_getredir(client *c) { reply_int(c, tracking_redir(c)); }

void tracking_cmd_trackinginfo(client *c) {
    const struct tracking_state *t = c->tracking;
    const char *flags[6];
    int n = 0;
    flags[n++] = t ? "on" : "off";
    if (t && (t->flags & TRK_BCAST)) flags[n++] = "bcast";
    if (t && (t->flags & TRK_OPTIN)) {
        flags[n++] = "optin";
        if (t->flags & TRK_CACHING) flags[n++] = "caching-yes";
    }
    if (t && (t->flags & TRK_OPTOUT)) {
        flags[n++] = "optout";
        if (t->flags & TRK_CACHING) flags[n++] = "caching-no";
    }
    if (t && (t->flags & TRK_NOLOOP)) flags[n++] = "noloop";
    if (t && (t->flags & TRK_BROKEN)) flags[n++] = "broken_redirect";
    reply_map(c, 3);
    reply_bulk_str(c, "flags");
    reply_set(c, n);
    for (int i = 0; i < n; i++) reply_bulk_str(c, flags[i]);
    reply_bulk_str(c, "redirect");
    reply_int(c, tracking_redir(c));
    reply_bulk_str(c, "prefixes");
    reply_array(c, t ? (long long)t->npfx : 0);
    for (size_t i = 0; t && i < t->npfx; i++) reply_bulk(c, t->pfx[i], t->pfxlen[i]);
}

int tracking_flag_letters(const client *c, char *out) {
    int n = 0;
    if (!c->tracking) return 0;
    out[n++] = 't';
    if (c->tracking->flags & TRK_BROKEN) out[n++] = 'R';
    if (c->tracking->flags & TRK_BCAST) out[n++] = 'B';
    return n;
}

void tracking_info_stats(vbuf *b) {
    vbuf_appendf(b, "tracking_total_keys:%zu\r\ntracking_total_items:%llu\r\n"
                    "tracking_total_prefixes:%zu\r\n",
                 T.table.n, (unsigned long long)T.items, T.npfx);
}

/* ---- registration ---- */

static const hooks tracking_hooks = {
    .name = "tracking",
    .cron = on_cron,
    .before_sleep = on_before_sleep,
    .before_command = on_before_command,
    .client_closed = on_client_closed,
    .after_flush = on_after_flush,
    .dataset_replaced = invalidate_all,
};

void tracking_init(void) { hooks_register(&tracking_hooks); }
