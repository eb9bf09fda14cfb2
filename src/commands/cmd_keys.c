/* cmd_keys: the generic key commands (DEL, EXISTS, TYPE, KEYS, SCAN,
 * RANDOMKEY, RENAME, the EXPIRE/TTL family, PERSIST) and the database ones
 * (DBSIZE, SELECT, FLUSHDB, FLUSHALL), with Redis 7.0's replies and errors.
 *
 * Keys are reached through db.h; the walks (KEYS, SCAN, RANDOMKEY) read the
 * table with vt_scan / vt_random and never change it while inside a walk:
 * they collect names first, then act. Relative expiries are propagated as
 * PEXPIREAT, an expiry already past as DEL, as Redis 7 does.
 * Main thread only. */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "db_slots.h"
#include "hooks.h"
#include "notify.h"
#include "util.h"

static db *cur_db(const client *c) { return db_get(c->db); }

/* ---- DEL, EXISTS, TYPE ------------------------------------------------- */

/* Redis's delGenericCommand: a big value is freed on the lazyfree thread
 * by UNLINK, and by DEL with lazyfree-lazy-user-del (lazyfree.h). */
static void del_generic(client *c, int lazy) {
    db *d = cur_db(c);
    long long n = 0;
    for (int j = 1; j < c->argc; j++) {
        if (!db_delete_lazy(d, c->argv[j].p, c->argv[j].len, lazy)) continue;
        notify_keyspace_event(NOTIFY_GENERIC, "del", c->argv[j].p, c->argv[j].len, c->db);
        n++;
    }
    server_dirty(n);
    reply_int(c, n);
}

void cmd_del(client *c) { del_generic(c, server.cfg.lazyfree_lazy_user_del); }
void cmd_unlink(client *c) { del_generic(c, 1); }

void cmd_exists(client *c) {
    db *d = cur_db(c);
    long long n = 0;
    for (int j = 1; j < c->argc; j++)
        if (db_lookup_read_notouch(d, c->argv[j].p, c->argv[j].len)) n++;
    reply_int(c, n);
}

void cmd_type(client *c) {
    vt_entry *e = db_lookup_read_notouch(cur_db(c), c->argv[1].p, c->argv[1].len);
    reply_status(c, e ? obj_type_name(e->val->type) : "none");
}

/* ---- KEYS, SCAN -------------------------------------------------------- */

/* Keys collected by a walk: the values that carry them (obj_kv_key). */
typedef struct key_list {
    obj **v;
    size_t n, cap;
    const arg *pat;   /* KEYS: filter in the walk; NULL for SCAN */
    int64_t now;
    const db *d;      /* KEYS: its hidden slots' keys are left out */
} key_list;

static void key_list_push(key_list *l, obj *k) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = k;
}

static int pattern_all(const arg *pat) { return pat->len == 1 && pat->p[0] == '*'; }

/* KEYS: live keys matching the pattern. The table does not change until the
 * reply is written, so the values holding the keys need no reference of ours. */
static void keys_visit(void *priv, vt_entry *e) {
    key_list *l = priv;
    if (db_expired(e, l->now)) return;
    size_t klen;
    const char *key = vt_key(e, &klen);
    if (!pattern_all(l->pat) && !glob_match(l->pat->p, l->pat->len, key, klen, 0))
        return;
    if (db_key_hidden(l->d, key, klen)) return;
    key_list_push(l, e->val);
}

static void reply_key_of(client *c, const obj *kv) {
    size_t klen;
    const char *key = obj_kv_key(kv, &klen);
    reply_bulk(c, key, klen);
}

void cmd_keys(client *c) {
    vt *t = cur_db(c)->t;
    key_list l = {NULL, 0, 0, &c->argv[1], db_now(), cur_db(c)};
    vt_walk(t, keys_visit, &l);
    reply_array(c, (long long)l.n);
    for (size_t i = 0; i < l.n; i++) reply_key_of(c, l.v[i]);
    free(l.v);
}

/* SCAN: every key visited, with a reference (filtering may delete keys). */
static void scan_visit(void *priv, vt_entry *e) {
    obj_incref(e->val);
    key_list_push(priv, e->val);
}

typedef struct scan_opts {
    long long count;
    const arg *pat;   /* NULL: every key */
    const arg *type;  /* NULL: every type */
} scan_opts;

static int parse_scan_opts(client *c, scan_opts *o) {
    o->count = 10;
    o->pat = o->type = NULL;
    for (int i = 2; i < c->argc; i += 2) {
        const arg *a = &c->argv[i];
        if (i + 1 >= c->argc) {
            reply_syntax_error(c);
            return 0;
        }
        if (arg_is(a, "count")) {
            if (!arg_ll(c, &c->argv[i + 1], &o->count)) return 0;
            if (o->count < 1) {
                reply_syntax_error(c);
                return 0;
            }
        } else if (arg_is(a, "match")) {
            o->pat = pattern_all(&c->argv[i + 1]) ? NULL : &c->argv[i + 1];
        } else if (arg_is(a, "type")) {
            o->type = &c->argv[i + 1];
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

/* Redis's filter order: pattern, then type (a lookup that counts a hit or a
 * miss and deletes an expired key, which then has type "none"), then expiry
 * (a lookup that deletes an expired key). A hidden slot's key is never
 * kept (db_slots.h). */
static int scan_keep(db *d, const scan_opts *o, const obj *kv) {
    size_t klen;
    const char *key = obj_kv_key(kv, &klen); /* kv is ours: alive if deleted */
    if (o->pat && !glob_match(o->pat->p, o->pat->len, key, klen, 0)) return 0;
    if (db_key_hidden(d, key, klen)) return 0;
    if (o->type) {
        vt_entry *e = db_lookup_read_notouch(d, key, klen);
        return arg_is(o->type, e ? obj_type_name(e->val->type) : "none");
    }
    return db_lookup_notouch(d, key, klen) != NULL;
}

void cmd_scan(client *c) {
    uint64_t cursor;
    scan_opts o;
    if (!arg_scan_cursor(c, &c->argv[1], &cursor) || !parse_scan_opts(c, &o)) return;
    db *d = cur_db(c);
    key_list l = {NULL, 0, 0, NULL, 0, d};
    /* Up to ten steps when the table is sparse, as Redis bounds its walk at
     * ten times COUNT buckets. */
    size_t want = o.count > (long long)(SIZE_MAX / 2) ? SIZE_MAX / 2 : (size_t)o.count;
    int steps = 0;
    do {
        cursor = vt_scan(d->t, cursor, want - l.n, scan_visit, &l);
    } while (cursor != 0 && l.n < want && ++steps < 10);
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (scan_keep(d, &o, l.v[i])) l.v[kept++] = l.v[i];
        else obj_decref(l.v[i]);
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%llu", (unsigned long long)cursor);
    reply_array(c, 2);
    reply_bulk(c, buf, (size_t)n);
    reply_array(c, (long long)kept);
    for (size_t i = 0; i < kept; i++) {
        reply_key_of(c, l.v[i]);
        obj_decref(l.v[i]);
    }
    free(l.v);
}

/* RANDOMKEY drew a key of a hidden slot RANDOM_HIDDEN_TRIES times: the
 * first visible key of the table instead. */
#define RANDOM_HIDDEN_TRIES 64

typedef struct visible_walk {
    const db *d;
    vt_entry *found;
} visible_walk;

static void first_visible(void *priv, vt_entry *e) {
    visible_walk *w = priv;
    if (!w->found && !db_entry_hidden(w->d, e)) w->found = e;
}

static vt_entry *random_visible(db *d) {
    for (int i = 0; i < RANDOM_HIDDEN_TRIES; i++) {
        vt_entry *e = vt_random(d->t);
        if (!e || !db_entry_hidden(d, e)) return e;
    }
    if (!db_visible_size(d)) return NULL;
    visible_walk w = {d, NULL};
    uint64_t cursor = 0;
    do cursor = vt_scan(d->t, cursor, 1024, first_visible, &w);
    while (!w.found && cursor != 0);
    assert(w.found); /* db_visible_size counted one */
    return w.found;
}

/* As Redis's dbRandomKey: an expired key drawn is deleted and another drawn;
 * every retry removes a key, so the loop ends. */
void cmd_randomkey(client *c) {
    db *d = cur_db(c);
    for (;;) {
        vt_entry *e = random_visible(d);
        if (!e) {
            reply_nil(c);
            return;
        }
        obj *kv = e->val;
        if (!db_expired(e, db_now())) {
            reply_key_of(c, kv);
            return;
        }
        obj_incref(kv); /* its key outlives the deletion */
        size_t klen;
        const char *key = obj_kv_key(kv, &klen);
        db_lookup(d, key, klen); /* deletes it */
        obj_decref(kv);
    }
}

/* ---- RENAME ------------------------------------------------------------ */

static void rename_generic(client *c, int nx) {
    const arg *src = &c->argv[1], *dst = &c->argv[2];
    db *d = cur_db(c);
    int same = src->len == dst->len && memcmp(src->p, dst->p, src->len) == 0;
    vt_entry *e = db_lookup(d, src->p, src->len);
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (same) {
        if (nx) reply_int(c, 0);
        else reply_ok(c);
        return;
    }
    obj *val = e->val;
    int64_t expire = vt_expire(e);
    if (db_lookup(d, dst->p, dst->len)) {
        if (nx) {
            reply_int(c, 0);
            return;
        }
        /* Redis deletes the destination and adds it anew (a "new" event);
         * the change is signalled by db_set, after the source's, in
         * Redis's order (the invalidation messages follow it) */
        db_remove(d, dst->p, dst->len, server.cfg.lazyfree_lazy_server_del);
    }
    /* The source goes first: its value, no longer shared (unless a save
     * holds it), moves to the new key without a copy when the two keys'
     * prefixes are the same size (obj_kv_make). db_set takes our reference. */
    obj_incref(val);
    db_delete(d, src->p, src->len);
    db_set(d, dst->p, dst->len, val, expire);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "rename_from", src->p, src->len, c->db);
    notify_keyspace_event(NOTIFY_GENERIC, "rename_to", dst->p, dst->len, c->db);
    if (nx) reply_int(c, 1);
    else reply_ok(c);
}

void cmd_rename(client *c) { rename_generic(c, 0); }
void cmd_renamenx(client *c) { rename_generic(c, 1); }

/* ---- EXPIRE family ----------------------------------------------------- */

enum { EXP_NX = 1, EXP_XX = 2, EXP_GT = 4, EXP_LT = 8 };

/* Redis's parseExtendedExpireArgumentsOrReply. */
static int parse_expire_flags(client *c, int *flags) {
    *flags = 0;
    for (int j = 3; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        if (arg_is(a, "nx")) *flags |= EXP_NX;
        else if (arg_is(a, "xx")) *flags |= EXP_XX;
        else if (arg_is(a, "gt")) *flags |= EXP_GT;
        else if (arg_is(a, "lt")) *flags |= EXP_LT;
        else {
            /* Redis prints the option as a C string: up to a NUL byte. */
            reply_errorf(c, "ERR Unsupported option %.*s",
                         (int)strnlen(a->p, a->len > 512 ? 512 : a->len), a->p);
            return 0;
        }
    }
    if ((*flags & EXP_NX) && (*flags & (EXP_XX | EXP_GT | EXP_LT))) {
        reply_error(c, "ERR NX and XX, GT or LT options at the same time are not compatible");
        return 0;
    }
    if ((*flags & EXP_GT) && (*flags & EXP_LT)) {
        reply_error(c, "ERR GT and LT options at the same time are not compatible");
        return 0;
    }
    return 1;
}

/* 1 when the NX/XX/GT/LT conditions let the new expire `when` replace
 * `cur` (VT_NO_EXPIRE counting as an infinite TTL). */
static int expire_allowed(int flags, int64_t cur, long long when) {
    if ((flags & EXP_NX) && cur != VT_NO_EXPIRE) return 0;
    if ((flags & EXP_XX) && cur == VT_NO_EXPIRE) return 0;
    if ((flags & EXP_GT) && (cur == VT_NO_EXPIRE || when <= cur)) return 0;
    if ((flags & EXP_LT) && cur != VT_NO_EXPIRE && when >= cur) return 0;
    return 1;
}

/* The absolute time of EXPIRE's argument, with Redis's overflow checks. */
static int expire_arg(client *c, long long basetime, int seconds, long long *when) {
    long long w;
    if (!arg_ll(c, &c->argv[2], &w)) return 0;
    if (seconds) {
        if (w > LLONG_MAX / 1000 || w < LLONG_MIN / 1000) goto bad;
        w *= 1000;
    }
    if (w > LLONG_MAX - basetime) goto bad;
    *when = w + basetime;
    return 1;
bad:
    reply_invalid_expire(c);
    return 0;
}

/* PEXPIREAT k when [flags...]: Redis rewrites the command name and the time
 * and keeps the options. */
static void propagate_pexpireat(client *c, long long when) {
    char buf[32];
    size_t n = ll_to_str(buf, when);
    arg *v = xmalloc((size_t)c->argc * sizeof *v);
    v[0] = (arg){"PEXPIREAT", 9};
    v[1] = c->argv[1];
    v[2] = (arg){buf, n};
    for (int j = 3; j < c->argc; j++) v[j] = c->argv[j];
    cmd_propagate(c, c->argc, v);
    free(v);
}

static void expire_generic(client *c, long long basetime, int seconds) {
    int flags;
    long long when;
    if (!parse_expire_flags(c, &flags) || !expire_arg(c, basetime, seconds, &when)) return;
    const arg *k = &c->argv[1];
    db *d = cur_db(c);
    vt_entry *e = db_lookup(d, k->p, k->len);
    if (!e || !expire_allowed(flags, vt_expire(e), when)) {
        reply_int(c, 0);
        return;
    }
    if (when <= wall_ms() && !server.loading) {
        db_delete_lazy(d, k->p, k->len, server.cfg.lazyfree_lazy_expire);
        server_dirty(1);
        notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
        arg v[2] = {{"DEL", 3}, *k};
        cmd_propagate(c, 2, v);
        reply_int(c, 1);
        return;
    }
    if (!db_set_expire(d, k->p, k->len, when)) {
        reply_int(c, 0);
        return;
    }
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "expire", k->p, k->len, c->db);
    propagate_pexpireat(c, when);
    reply_int(c, 1);
}

void cmd_expire(client *c) { expire_generic(c, wall_ms(), 1); }
void cmd_pexpire(client *c) { expire_generic(c, wall_ms(), 0); }
void cmd_expireat(client *c) { expire_generic(c, 0, 1); }
void cmd_pexpireat(client *c) { expire_generic(c, 0, 0); }

/* TTL, PTTL, EXPIRETIME, PEXPIRETIME: -2 no key, -1 no expire; seconds are
 * rounded to the nearest, as Redis's (ttl+500)/1000 (without its overflow). */
static void ttl_generic(client *c, int ms, int absolute) {
    vt_entry *e = db_lookup_read_notouch(cur_db(c), c->argv[1].p, c->argv[1].len);
    if (!e) {
        reply_int(c, -2);
        return;
    }
    if (vt_expire(e) == VT_NO_EXPIRE) {
        reply_int(c, -1);
        return;
    }
    long long ttl = absolute ? vt_expire(e) : vt_expire(e) - wall_ms();
    if (ttl < 0) ttl = 0;
    reply_int(c, ms ? ttl : ttl / 1000 + (ttl % 1000 >= 500));
}

void cmd_ttl(client *c) { ttl_generic(c, 0, 0); }
void cmd_pttl(client *c) { ttl_generic(c, 1, 0); }
void cmd_expiretime(client *c) { ttl_generic(c, 0, 1); }
void cmd_pexpiretime(client *c) { ttl_generic(c, 1, 1); }

void cmd_persist(client *c) {
    const arg *k = &c->argv[1];
    db *d = cur_db(c);
    vt_entry *e = db_lookup(d, k->p, k->len);
    if (!e || vt_expire(e) == VT_NO_EXPIRE || !db_set_expire(d, k->p, k->len, VT_NO_EXPIRE)) {
        reply_int(c, 0);
        return;
    }
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "persist", k->p, k->len, c->db);
    reply_int(c, 1);
}

/* ---- databases --------------------------------------------------------- */

void cmd_dbsize(client *c) { reply_int(c, (long long)db_visible_size(cur_db(c))); }

void cmd_select(client *c) {
    long long id;
    if (!arg_ll(c, &c->argv[1], &id)) return;
    if (id < INT_MIN || id > INT_MAX) {
        reply_errorf(c, "ERR value is out of range, value must between %d and %d",
                     INT_MIN, INT_MAX);
        return;
    }
    if (server.cfg.compat.cluster_enabled && id != 0) { /* one database in a cluster */
        reply_error(c, "ERR SELECT is not allowed in cluster mode");
        return;
    }
    if (id < 0 || id >= server.cfg.databases) {
        reply_error(c, "ERR DB index is out of range");
        return;
    }
    c->db = (int)id;
    reply_ok(c);
}

/* A database index as Redis's getIntFromObjectOrReply with a message:
 * an integer that fits an int, else "-ERR <what>". */
static int db_index_arg(client *c, const arg *a, const char *what, int *out) {
    long long v;
    if (!str_to_ll(a->p, a->len, &v) || v < INT_MIN || v > INT_MAX) {
        reply_errorf(c, "ERR %s", what);
        return 0;
    }
    *out = (int)v;
    return 1;
}

/* SWAPDB index1 index2: the same index is a no-op that still counts as a
 * change and is propagated, as in Redis 7.0. */
void cmd_swapdb(client *c) {
    int id1, id2;
    if (server.cfg.compat.cluster_enabled) { /* one database in a cluster */
        reply_error(c, "ERR SWAPDB is not allowed in cluster mode");
        return;
    }
    if (!db_index_arg(c, &c->argv[1], "invalid first DB index", &id1) ||
        !db_index_arg(c, &c->argv[2], "invalid second DB index", &id2))
        return;
    if (id1 < 0 || id1 >= server.cfg.databases || id2 < 0 || id2 >= server.cfg.databases) {
        reply_error(c, "ERR DB index is out of range");
        return;
    }
    db_swap(id1, id2);
    server_dirty(1);
    cmd_propagate(c, c->argc, c->argv);
    reply_ok(c);
}

/* The optional ASYNC|SYNC argument (Redis's getFlushCommandFlags): *lazy
 * is 1 when the old tables are freed on the lazyfree thread (ASYNC, or no
 * argument with lazyfree-lazy-user-flush). 0 after replying an error. */
static int flush_args_ok(client *c, int *lazy) {
    *lazy = server.cfg.lazyfree_lazy_user_flush;
    if (c->argc == 1) return 1;
    if (c->argc == 2 && arg_is(&c->argv[1], "sync")) {
        *lazy = 0;
        return 1;
    }
    if (c->argc == 2 && arg_is(&c->argv[1], "async")) {
        *lazy = 1;
        return 1;
    }
    reply_syntax_error(c);
    return 0;
}

/* Redis propagates FLUSHDB/FLUSHALL even when nothing was removed. */
void cmd_flushdb(client *c) {
    int lazy;
    if (!flush_args_ok(c, &lazy)) return;
    db *d = cur_db(c);
    long long n = (long long)db_size(d);
    db_flush_lazy(d, lazy);
    server_dirty(n);
    hooks_after_flush(0);
    cmd_propagate(c, c->argc, c->argv);
    reply_ok(c);
}

/* dirty += keys removed, as Redis 7.0 counts it (checked against 7.0.15: an
 * empty FLUSHALL adds nothing). Whether a save follows is the snapshot
 * module's business. */
void cmd_flushall(client *c) {
    int lazy;
    if (!flush_args_ok(c, &lazy)) return;
    long long n = 0;
    for (int i = 0; i < server.cfg.databases; i++) {
        db *d = db_get(i);
        n += (long long)db_size(d);
        db_flush_lazy(d, lazy);
    }
    server_dirty(n);
    hooks_after_flush(1);
    cmd_propagate(c, c->argc, c->argv);
    reply_ok(c);
}
