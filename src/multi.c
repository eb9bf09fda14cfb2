/* multi: transactions and WATCH (see multi.h). Owns each client's queued
 * commands and watched keys (client.mstate) and the table of watched keys.
 * Main thread only. */
#include "multi.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "cmd.h"
#include "db.h"
#include "resp.h"
#include "util.h"

/* ---- the watched-keys table: (db, key) -> clients watching it ---- */

typedef struct wkey {
    struct wkey *next;      /* bucket chain */
    uint64_t h;
    int db;
    client **clients;
    size_t nclients, cap;
    size_t len;
    char key[];
} wkey;

static struct {
    wkey **buckets;
    size_t nbuckets;        /* power of two, or 0 */
} W;

size_t multi_watched_keys;

/* One queued command: its arguments copied (argv and bytes in one block). */
typedef struct mcmd {
    const cmd_def *d;
    int argc;
    arg *argv;
    int db;                 /* where it ran (set by EXEC) */
} mcmd;

typedef struct watched {
    wkey *k;
    int expired;            /* the key was logically expired when watched */
} watched;

struct multi_state {
    mcmd *cmds;
    size_t n, cap;
    int flags;              /* the union of the queued commands' cmd_flags_of */
    int inv_flags;          /* the union of their complements */
    int ran;                /* cmds are what the last EXEC ran */
    size_t argbytes;        /* the queued commands' argv copies */
    watched *w;
    size_t nw, wcap;
};

static uint64_t wk_hash(int dbid, const char *key, size_t len) {
    return vt_hash(key, len) ^ ((uint64_t)(unsigned)dbid * 0x9e3779b97f4a7c15ULL);
}

static wkey *wk_find(int dbid, const char *key, size_t len, uint64_t h) {
    if (!W.nbuckets) return NULL;
    for (wkey *k = W.buckets[h & (W.nbuckets - 1)]; k; k = k->next)
        if (k->h == h && k->db == dbid && k->len == len && memcmp(k->key, key, len) == 0) return k;
    return NULL;
}

static void wk_grow(void) {
    size_t n = W.nbuckets ? W.nbuckets * 2 : 64;
    wkey **b = xcalloc(n, sizeof *b);
    for (size_t i = 0; i < W.nbuckets; i++) {
        for (wkey *k = W.buckets[i], *next; k; k = next) {
            next = k->next;
            k->next = b[k->h & (n - 1)];
            b[k->h & (n - 1)] = k;
        }
    }
    free(W.buckets);
    W.buckets = b;
    W.nbuckets = n;
}

static wkey *wk_add(int dbid, const char *key, size_t len, uint64_t h) {
    if (multi_watched_keys + 1 > W.nbuckets) wk_grow();
    wkey *k = xcalloc(1, sizeof *k + len);
    k->h = h;
    k->db = dbid;
    k->len = len;
    memcpy(k->key, key, len);
    k->next = W.buckets[h & (W.nbuckets - 1)];
    W.buckets[h & (W.nbuckets - 1)] = k;
    multi_watched_keys++;
    return k;
}

static void wk_remove_client(wkey *k, client *c) {
    for (size_t i = 0; i < k->nclients; i++) {
        if (k->clients[i] == c) {
            k->clients[i] = k->clients[--k->nclients];
            break;
        }
    }
    if (k->nclients) return;
    for (wkey **p = &W.buckets[k->h & (W.nbuckets - 1)]; *p; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            break;
        }
    }
    free(k->clients);
    free(k);
    multi_watched_keys--;
}

/* ---- per-client state ---- */

static struct multi_state *state(client *c) {
    if (!c->mstate) c->mstate = xcalloc(1, sizeof *c->mstate);
    return c->mstate;
}

static void free_queue(struct multi_state *ms) {
    for (size_t i = 0; i < ms->n; i++) free(ms->cmds[i].argv);
    free(ms->cmds);
    ms->cmds = NULL;
    ms->n = ms->cap = 0;
    ms->argbytes = 0;
    ms->flags = ms->inv_flags = 0;
    ms->ran = 0;
}

static void unwatch_all(client *c) {
    struct multi_state *ms = c->mstate;
    if (!ms) return;
    for (size_t i = 0; i < ms->nw; i++) wk_remove_client(ms->w[i].k, c);
    free(ms->w);
    ms->w = NULL;
    ms->nw = ms->wcap = 0;
}

static void discard(client *c) {
    if (c->mstate) free_queue(c->mstate);
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    unwatch_all(c);
}

void multi_client_free(client *c) {
    if (!c->mstate) return;
    discard(c);
    free(c->mstate);
    c->mstate = NULL;
}

/* ---- the dispatcher's side ---- */

int multi_queues(client *c, const cmd_def *d) {
    if (c->mstate && c->mstate->ran) free_queue(c->mstate);
    if (!(c->flags & CLIENT_MULTI)) return 0;
    return d->proc != cmd_exec && d->proc != cmd_discard && d->proc != cmd_multi &&
           d->proc != cmd_watch && d->proc != cmd_quit && d->proc != cmd_reset;
}

void multi_queue(client *c, const cmd_def *d) {
    struct multi_state *ms = state(c);
    /* after an error the transaction will not run: keep no more commands */
    if (!(c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC))) {
        arg *argv = args_dup(c->argc, c->argv);
        if (ms->n == ms->cap) {
            ms->cap = ms->cap ? ms->cap * 2 : 8;
            ms->cmds = xrealloc(ms->cmds, ms->cap * sizeof *ms->cmds);
        }
        ms->cmds[ms->n++] = (mcmd){d, c->argc, argv, 0};
        ms->argbytes += (size_t)c->argc * sizeof(arg);
        for (int i = 0; i < c->argc; i++) ms->argbytes += c->argv[i].len;
        int flags = cmd_flags_of(d, c->argc, c->argv);
        ms->flags |= flags;
        ms->inv_flags |= ~flags;
    }
    reply_status(c, "QUEUED");
}

void multi_rejected(client *c, const cmd_def *d, size_t reply_at) {
    if (d && d->proc == cmd_exec) {
        /* the error just written, without '-' and CRLF */
        assert(c->reply.len > reply_at + 3 && c->reply.data[reply_at] == '-');
        size_t n = c->reply.len - reply_at - 3;
        const char *text = c->reply.data + reply_at + 1;
        /* Redis formats its "ERR" refusals (arity, protected) without the
         * code here: "... because of: wrong number of arguments ..." */
        if (n >= 4 && memcmp(text, "ERR ", 4) == 0) text += 4, n -= 4;
        char *why = xstrndup(text, n);
        c->reply.len = reply_at;
        server.stat.errors--; /* counted once, as the EXECABORT below */
        discard(c);
        reply_errorf(c, "EXECABORT Transaction discarded because of: %s", why);
        free(why);
        return;
    }
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}

void multi_for_each_queued(const client *c, multi_queued_fn fn, void *priv) {
    const struct multi_state *ms = c->mstate;
    if (!(c->flags & CLIENT_MULTI) || !ms || ms->ran) return;
    for (size_t i = 0; i < ms->n; i++) fn(priv, ms->cmds[i].d, ms->cmds[i].argc, ms->cmds[i].argv);
}

int multi_queued_flags(const client *c) {
    return (c->flags & CLIENT_MULTI) && c->mstate && !c->mstate->ran ? c->mstate->flags : 0;
}

int multi_exec_flags(const client *c, const cmd_def *d) {
    if (d->proc != cmd_exec || !(c->flags & CLIENT_MULTI) || !c->mstate) return 0;
    return c->mstate->flags;
}

int multi_exec_writes(const client *c, const cmd_def *d) {
    return (multi_exec_flags(c, d) & CMD_WRITE) != 0;
}

int multi_exec_lacks(const client *c, const cmd_def *d, int flag) {
    if (d->proc != cmd_exec || !(c->flags & CLIENT_MULTI) || !c->mstate) return 0;
    return (c->mstate->inv_flags & flag) != 0;
}

size_t multi_mem(const client *c) {
    const struct multi_state *ms = c->mstate;
    if (!ms) return 0;
    return sizeof *ms + ms->argbytes + ms->cap * sizeof(mcmd) + ms->wcap * sizeof(watched);
}

long long multi_queued(const client *c) {
    if (!(c->flags & CLIENT_MULTI)) return -1;
    return c->mstate ? (long long)c->mstate->n : 0;
}

void multi_for_each_ran(const client *c, multi_ran_fn fn, void *priv) {
    const struct multi_state *ms = c->mstate;
    if (!ms || !ms->ran) return;
    for (size_t i = 0; i < ms->n; i++)
        fn(priv, ms->cmds[i].db, ms->cmds[i].d, ms->cmds[i].argc, ms->cmds[i].argv);
}

/* ---- the commands ---- */

void cmd_multi(client *c) {
    if (c->flags & CLIENT_MULTI) {
        reply_error(c, "ERR MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    reply_ok(c);
}

void cmd_discard(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        reply_error(c, "ERR DISCARD without MULTI");
        return;
    }
    discard(c);
    reply_ok(c);
}

/* A watched key that has expired since WATCH fails EXEC (Redis's
 * isWatchedKeyExpired), even before expiry deletes it. */
static int watched_key_expired(const client *c) {
    const struct multi_state *ms = c->mstate;
    if (!ms) return 0;
    int64_t now = db_now();
    for (size_t i = 0; i < ms->nw; i++) {
        if (ms->w[i].expired) continue;
        const wkey *k = ms->w[i].k;
        vt_entry *e = vt_find(db_get(k->db)->t, k->key, k->len);
        if (e && db_expired(e, now)) return 1;
    }
    return 0;
}

/* The reason EXEC gives for a queued command the user may no longer run. */
static const char *exec_denied_reason(int verdict) {
    if (verdict == ACL_DENIED_CMD) return "no permission to execute the command or subcommand";
    if (verdict == ACL_DENIED_KEY) return "no permission to touch the specified keys";
    return "no permission to access one of the channels used as arguments";
}

void cmd_exec(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        reply_error(c, "ERR EXEC without MULTI");
        return;
    }
    if (watched_key_expired(c)) c->flags |= CLIENT_DIRTY_CAS;
    if (c->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) {
        if (c->flags & CLIENT_DIRTY_EXEC)
            reply_error(c, "EXECABORT Transaction discarded because of previous errors.");
        else
            reply_nil_array(c);
        discard(c);
        return;
    }
    unwatch_all(c);
    struct multi_state *ms = state(c);
    int argc = c->argc;
    arg *argv = c->argv;
    const cmd_def *self = c->cmd;
    reply_array(c, (long long)ms->n);
    for (size_t i = 0; i < ms->n; i++) {
        mcmd *m = &ms->cmds[i];
        c->argc = m->argc;
        c->argv = m->argv;
        c->cmd = m->d;
        m->db = c->db;
        /* the user's permissions again: they may have changed since the
         * command was queued (Redis 7.0's execCommand) */
        int pos, v = acl_check(c->user, m->d, m->argc, m->argv, &pos);
        if (v != ACL_OK) {
            acl_log_denied(c, v, ACL_CTX_MULTI, m->d, m->argv, pos);
            reply_errorf(c, "NOPERM ACLs rules changed between the moment the transaction was "
                            "accumulated and the EXEC call. This command is no longer allowed "
                            "for the following reason: %s", exec_denied_reason(v));
            continue;
        }
        server.stat.commands++;
        cmd_call(c, m->d);
    }
    c->argc = argc;
    c->argv = argv;
    c->cmd = self;
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    ms->ran = 1; /* kept for the after_command hooks, freed by the next command */
}

void cmd_watch(client *c) {
    if (c->flags & CLIENT_MULTI) {
        reply_error(c, "ERR WATCH inside MULTI is not allowed");
        return;
    }
    struct multi_state *ms = state(c);
    int64_t now = db_now();
    for (int j = 1; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        uint64_t h = wk_hash(c->db, a->p, a->len);
        wkey *k = wk_find(c->db, a->p, a->len, h);
        int already = 0;
        for (size_t i = 0; k && i < ms->nw && !already; i++) already = ms->w[i].k == k;
        if (already) continue;
        if (!k) k = wk_add(c->db, a->p, a->len, h);
        if (k->nclients == k->cap) {
            k->cap = k->cap ? k->cap * 2 : 2;
            k->clients = xrealloc(k->clients, k->cap * sizeof *k->clients);
        }
        k->clients[k->nclients++] = c;
        if (ms->nw == ms->wcap) {
            ms->wcap = ms->wcap ? ms->wcap * 2 : 4;
            ms->w = xrealloc(ms->w, ms->wcap * sizeof *ms->w);
        }
        vt_entry *e = vt_find(db_get(c->db)->t, a->p, a->len);
        ms->w[ms->nw++] = (watched){k, e && db_expired(e, now)};
    }
    reply_ok(c);
}

void cmd_unwatch(client *c) {
    unwatch_all(c);
    c->flags &= ~CLIENT_DIRTY_CAS;
    reply_ok(c);
}

/* ---- touching ---- */

/* Whether c watched k while it was already expired; such a key deleted by
 * expiry is logically unchanged (Redis 7.0's watchedKey.expired). */
static watched *watch_of(client *c, const wkey *k) {
    struct multi_state *ms = c->mstate;
    for (size_t i = 0; i < ms->nw; i++)
        if (ms->w[i].k == k) return &ms->w[i];
    return NULL;
}

/* Called after the change. */
void multi_touch_key_slow(int dbid, const char *key, size_t len) {
    wkey *k = wk_find(dbid, key, len, wk_hash(dbid, key, len));
    if (!k) return;
    int gone = vt_find(db_get(dbid)->t, key, len) == NULL;
    for (size_t i = 0; i < k->nclients; i++) {
        client *c = k->clients[i];
        watched *w = watch_of(c, k);
        if (w && w->expired && gone) {
            w->expired = 0; /* the expired key is deleted: no change */
            continue;
        }
        c->flags |= CLIENT_DIRTY_CAS;
    }
}

/* As Redis 7.0's touchAllWatchedKeysInDb(emptied, replaced_with): a
 * watched key of db dbid that exists in either table changes, except an
 * expired key watched as expired that is now absent or expired again (no
 * logical change: its flag clears when absent) and an absent key that
 * becomes an expired one (watched as expired from now on). */
void multi_touch_swap(int dbid, vt *emptied, vt *with) {
    if (!multi_watched_keys) return;
    int64_t now = wall_ms();
    for (size_t b = 0; b < W.nbuckets; b++) {
        for (wkey *k = W.buckets[b]; k; k = k->next) {
            if (k->db != dbid) continue;
            vt_entry *old = vt_find(emptied, k->key, k->len);
            vt_entry *nw = vt_find(with, k->key, k->len);
            if (!old && !nw) continue;
            for (size_t i = 0; i < k->nclients; i++) {
                client *c = k->clients[i];
                watched *w = watch_of(c, k);
                if (w && w->expired) {
                    if (!nw) {
                        w->expired = 0;
                        continue;
                    }
                    if (db_expired(nw, now)) continue;
                } else if (!old && db_expired(nw, now)) {
                    if (w) w->expired = 1;
                    continue;
                }
                c->flags |= CLIENT_DIRTY_CAS;
            }
        }
    }
}

void multi_touch_flush(db *d) {
    if (!multi_watched_keys) return;
    for (size_t b = 0; b < W.nbuckets; b++) {
        for (wkey *k = W.buckets[b]; k; k = k->next) {
            if (k->db != d->id || !vt_find(d->t, k->key, k->len)) continue;
            for (size_t i = 0; i < k->nclients; i++) k->clients[i]->flags |= CLIENT_DIRTY_CAS;
        }
    }
}
