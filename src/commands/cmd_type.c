/* cmd_type: the generic commands that work on a value whatever its type:
 * OBJECT (ENCODING, REFCOUNT, IDLETIME, FREQ, HELP), COPY, MOVE, TOUCH,
 * with Redis 7.0's replies and errors. RENAME is in cmd_keys.c, SORT in
 * cmd_sort.c. A value carries its key (obj.h, keyed values): MOVE hands
 * the same value to the other table, COPY stores a copy (a string's bytes,
 * a collection's trees shared: obj_copy). Main thread only. */
#include <limits.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "evict.h"
#include "notify.h"
#include "util.h"

/* ---- OBJECT ---- */

static const char *const object_help[] = {
    "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ENCODING <key>",
    "    Return the kind of internal representation used in order to store the value",
    "    associated with a <key>.",
    "FREQ <key>",
    "    Return the access frequency index of the <key>. The returned integer is",
    "    proportional to the logarithm of the recent access frequency of the key.",
    "IDLETIME <key>",
    "    Return the idle time of the <key>, that is the approximated number of",
    "    seconds elapsed since the last access to the key.",
    "REFCOUNT <key>",
    "    Return the number of references of the value associated with the specified",
    "    <key>.",
    "HELP",
    "    Prints this help.",
    NULL};

/* OBJECT REFCOUNT: Redis keeps string values 0..9999 as its shared
 * integers (unless maxmemory is set with an LRU or LFU policy, which keep
 * an access clock per value) and reports INT_MAX for them; verso stores
 * every value alone but answers as Redis would. */
long long object_refcount_as_redis(const obj *o) {
    long long v;
    int p = server.cfg.maxmemory_policy;
    int no_shared = server.cfg.maxmemory &&
                    (p == MAXMEM_VOLATILE_LRU || p == MAXMEM_VOLATILE_LFU ||
                     p == MAXMEM_ALLKEYS_LRU || p == MAXMEM_ALLKEYS_LFU);
    if (o->type == OBJ_STRING && !strcmp(obj_encoding_name(o), "int") && !no_shared &&
        obj_get_ll(o, &v) && v >= 0 && v < 10000)
        return INT_MAX;
    return (long long)atomic_load(&o->refcount);
}

/* The dispatcher has resolved the subcommand (c->cmd) and checked its
 * arity. A missing key answers nil, as Redis. The lookup counts a hit or
 * a miss, as Redis's (LOOKUP_NOTOUCH leaves the statistics on). */
void cmd_object(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, object_help);
        return;
    }
    /* Redis's LOOKUP_NOTOUCH: OBJECT leaves the access clock alone. */
    vt_entry *e = db_lookup_read_notouch(db_get(c->db), c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_nil(c);
        return;
    }
    if (!strcmp(sub, "encoding")) {
        reply_bulk_str(c, obj_encoding_name(e->val));
    } else if (!strcmp(sub, "refcount")) {
        reply_int(c, object_refcount_as_redis(e->val));
    } else if (!strcmp(sub, "idletime")) {
        /* The access clock holds an LRU time or an LFU counter (evict.h). */
        if (evict_policy_lfu()) {
            reply_error(c, "ERR An LFU maxmemory policy is selected, idle time not tracked. "
                           "Please note that when switching between policies at runtime LRU "
                           "and LFU data will take some time to adjust.");
            return;
        }
        reply_int(c, (long long)(evict_idle_ms(e) / 1000));
    } else if (!evict_policy_lfu()) { /* FREQ */
        reply_error(c, "ERR An LFU maxmemory policy is not selected, access frequency not "
                       "tracked. Please note that when switching between policies at runtime "
                       "LRU and LFU data will take some time to adjust.");
    } else {
        reply_int(c, evict_lfu_freq(e));
    }
}

/* ---- COPY, MOVE ---- */

/* A DB argument (Redis's getIntFromObjectOrReply + selectDb); -1 after
 * replying an error. */
static int db_arg(client *c, const arg *a) {
    long long id;
    if (!arg_ll(c, a, &id)) return -1;
    if (id < INT_MIN || id > INT_MAX) {
        reply_not_int(c);
        return -1;
    }
    if (id < 0 || id >= server.cfg.databases) {
        reply_error(c, "ERR DB index is out of range");
        return -1;
    }
    return (int)id;
}

static int same_arg(const arg *a, const arg *b) {
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* COPY source destination [DB destination-db] [REPLACE] */
void cmd_copy(client *c) {
    int dstid = c->db, replace = 0;
    for (int j = 3; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "replace")) {
            replace = 1;
        } else if (arg_is(&c->argv[j], "db") && j + 1 < c->argc) {
            if ((dstid = db_arg(c, &c->argv[j + 1])) < 0) return;
            j++;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    if (server.cfg.compat.cluster_enabled && (c->db != 0 || dstid != 0)) { /* db 0 only */
        reply_error(c, "ERR Copying to another database is not allowed in cluster mode");
        return;
    }
    const arg *src = &c->argv[1], *dst = &c->argv[2];
    if (dstid == c->db && same_arg(src, dst)) {
        reply_error(c, "ERR source and destination objects are the same");
        return;
    }
    db *sd = db_get(c->db), *dd = db_get(dstid);
    vt_entry *e = db_lookup_read(sd, src->p, src->len);
    if (!e) {
        reply_int(c, 0);
        return;
    }
    obj *val = e->val;
    int64_t expire = vt_expire(e);
    if (db_lookup(dd, dst->p, dst->len)) {
        if (!replace) {
            reply_int(c, 0);
            return;
        }
        /* REPLACE: Redis deletes the old key and adds the copy (a "new"
         * event); the source is another key, its value stays */
        db_delete(dd, dst->p, dst->len);
    }
    /* db_set takes the copy's reference */
    db_set(dd, dst->p, dst->len, obj_copy(val), expire);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "copy_to", dst->p, dst->len, dstid);
    reply_int(c, 1);
}

/* MOVE key db */
void cmd_move(client *c) {
    if (server.cfg.compat.cluster_enabled) { /* one database in a cluster */
        reply_error(c, "ERR MOVE is not allowed in cluster mode");
        return;
    }
    const arg *k = &c->argv[1];
    int dstid = db_arg(c, &c->argv[2]);
    if (dstid < 0) return;
    if (dstid == c->db) {
        reply_error(c, "ERR source and destination objects are the same");
        return;
    }
    db *sd = db_get(c->db), *dd = db_get(dstid);
    vt_entry *e = db_lookup(sd, k->p, k->len);
    if (!e || db_lookup(dd, k->p, k->len)) {
        reply_int(c, 0);
        return;
    }
    obj *val = e->val;
    int64_t expire = vt_expire(e);
    /* The source goes first: its value, no longer shared (unless a save
     * holds it), is adopted by the other table as it is (same key). db_set
     * takes our reference. */
    obj_incref(val);
    db_delete(sd, k->p, k->len);
    db_set(dd, k->p, k->len, val, expire);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "move_from", k->p, k->len, c->db);
    notify_keyspace_event(NOTIFY_GENERIC, "move_to", k->p, k->len, dstid);
    reply_int(c, 1);
}

/* ---- TOUCH ---- */

/* The number of keys that exist; each lookup counts as an access. */
void cmd_touch(client *c) {
    db *d = db_get(c->db);
    long long n = 0;
    for (int j = 1; j < c->argc; j++)
        if (db_lookup_read(d, c->argv[j].p, c->argv[j].len)) n++;
    reply_int(c, n);
}
