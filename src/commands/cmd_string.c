/* cmd_string: the string commands (GET, SET and its variants, MGET/MSET,
 * APPEND, STRLEN, GETRANGE/SETRANGE, the INCR family and INCRBYFLOAT), with
 * Redis 7.0's replies, error texts and propagation.
 *
 * Keys are reached through db.h only. Values are obj: a new value replaces the
 * old one (db_set), and the two in-place edits (APPEND, SETRANGE) go through
 * obj_writable, which copies a value the snapshot serializer may still be
 * reading. Relative expiries are propagated in absolute form (SET k v PXAT ms,
 * PEXPIREAT), as Redis 7 does, so that an AOF replay gives the same keys.
 * Main thread only. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "util.h"

/* SET / GETEX options, as Redis's OBJ_SET_* flags. */
enum {
    SO_NX = 1 << 0,
    SO_XX = 1 << 1,
    SO_GET = 1 << 2,
    SO_KEEPTTL = 1 << 3,
    SO_PERSIST = 1 << 4,
    SO_EX = 1 << 5,
    SO_PX = 1 << 6,
    SO_EXAT = 1 << 7,
    SO_PXAT = 1 << 8,
};
#define SO_EXPIRES (SO_EX | SO_PX | SO_EXAT | SO_PXAT)

/* Room for INCRBYFLOAT's result, as Redis's MAX_LONG_DOUBLE_CHARS. */
#define LD_BUF (5 * 1024)

/* ---- option parsing and expire times ---------------------------------- */

/* One expiry option (EX/PX/EXAT/PXAT) is accepted when no other expiry,
 * KEEPTTL or PERSIST came before and a value follows. */
static int expire_opt(const arg *a, int flags, int has_next) {
    static const struct { const char *name; int flag; } opts[] = {
        {"ex", SO_EX}, {"px", SO_PX}, {"exat", SO_EXAT}, {"pxat", SO_PXAT}};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++) {
        if (!arg_is(a, opts[i].name)) continue;
        if (!has_next || (flags & (SO_KEEPTTL | SO_PERSIST))) return 0;
        if (flags & SO_EXPIRES & ~opts[i].flag) return 0;
        return opts[i].flag;
    }
    return 0;
}

/* Parses SET's options (is_set) or GETEX's from argv[first]: the same rules
 * as Redis's parseExtendedStringArgumentsOrReply (an option may repeat; NX
 * and XX, or two different expiries, or KEEPTTL/PERSIST with an expiry, do
 * not mix). Replies "ERR syntax error" and returns 0 on a bad combination. */
static int parse_set_opts(client *c, int first, int is_set, int *flags,
                          const arg **expire) {
    for (int j = first; j < c->argc; j++) {
        const arg *a = &c->argv[j];
        int f;
        if (is_set && arg_is(a, "nx") && !(*flags & SO_XX)) {
            *flags |= SO_NX;
        } else if (is_set && arg_is(a, "xx") && !(*flags & SO_NX)) {
            *flags |= SO_XX;
        } else if (is_set && arg_is(a, "get")) {
            *flags |= SO_GET;
        } else if (is_set && arg_is(a, "keepttl") &&
                   !(*flags & (SO_PERSIST | SO_EXPIRES))) {
            *flags |= SO_KEEPTTL;
        } else if (!is_set && arg_is(a, "persist") &&
                   !(*flags & (SO_KEEPTTL | SO_EXPIRES))) {
            *flags |= SO_PERSIST;
        } else if ((f = expire_opt(a, *flags, j + 1 < c->argc)) != 0) {
            *flags |= f;
            *expire = &c->argv[++j];
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

/* The absolute expire time (unix ms) of an EX/PX/EXAT/PXAT value, as Redis's
 * getExpireMillisecondsOrReply: positive, and no overflow once converted. */
static int expire_when(client *c, int flags, const arg *a, long long *when) {
    long long ms;
    if (!arg_ll(c, a, &ms)) return 0;
    int seconds = (flags & (SO_EX | SO_EXAT)) != 0;
    if (ms <= 0 || (seconds && ms > LLONG_MAX / 1000)) goto bad;
    if (seconds) ms *= 1000;
    if (flags & (SO_EX | SO_PX)) {
        long long now = wall_ms();
        if (ms > LLONG_MAX - now) goto bad;
        ms += now;
    }
    *when = ms;
    return 1;
bad:
    reply_invalid_expire(c);
    return 0;
}

/* Deletes k; when it was there, counts the change and propagates a DEL. */
static void delete_propagated(client *c, db *d, const arg *k) {
    if (!db_delete(d, k->p, k->len)) return;
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
    arg v[2] = {{"DEL", 3}, *k};
    cmd_propagate(c, 2, v);
}

/* ---- GET / SET family ----------------------------------------------- */

/* The string entry of argv[1] (counting a hit or a miss), or NULL after
 * replying nil (absent) or WRONGTYPE (*wrong set). */
static vt_entry *lookup_or_nil(client *c, db *d, int *wrong) {
    const arg *k = &c->argv[1];
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_READ, wrong);
    if (!e && !*wrong) reply_nil(c);
    return e;
}

/* Replies the value of argv[1] or nil; 0 when it replied WRONGTYPE (Redis's
 * getGenericCommand). */
static int reply_value(client *c) {
    int wrong;
    vt_entry *e = lookup_or_nil(c, db_get(c->db), &wrong);
    if (e) reply_bulk_obj(c, e->val);
    return !wrong;
}

void cmd_get(client *c) { reply_value(c); }

/* SET's key flags depend on its GET option (Redis's setGetKeys). */
int set_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    (void)d;
    if (argc < 2) return 0;
    int flags = KS_OW | KS_UPDATE;
    for (int i = 3; i < argc; i++)
        if (arg_is(&argv[i], "get")) flags = KS_RW | KS_ACCESS | KS_UPDATE;
    cmd_keys_add(out, 1, flags);
    return 1;
}

/* SET without its GET options, as Redis propagates it. */
static void propagate_set_without_get(client *c) {
    arg *v = xmalloc((size_t)c->argc * sizeof *v);
    int n = 0;
    for (int j = 0; j < c->argc; j++)
        if (j < 3 || !arg_is(&c->argv[j], "get")) v[n++] = c->argv[j];
    cmd_propagate(c, n, v);
    free(v);
}

static void propagate_set_pxat(client *c, const arg *k, const arg *val, long long when) {
    char buf[32];
    size_t n = ll_to_str(buf, when);
    arg v[5] = {{"SET", 3}, *k, *val, {"PXAT", 4}, {buf, n}};
    cmd_propagate(c, 5, v);
}

/* The common part of SET, SETNX, SETEX and PSETEX (Redis's
 * setGenericCommand). `setnx` selects SETNX's integer replies. */
static void set_generic(client *c, int flags, const arg *k, const arg *val,
                        const arg *expire, int setnx) {
    long long when = 0;
    if (expire && !expire_when(c, flags, expire, &when)) return;
    db *d = db_get(c->db);
    if ((flags & SO_GET) && !reply_value(c)) return;
    int found = db_lookup(d, k->p, k->len) != NULL;
    if (((flags & SO_NX) && found) || ((flags & SO_XX) && !found)) {
        if (flags & SO_GET) return;
        if (setnx) reply_int(c, 0);
        else reply_nil(c);
        return;
    }
    int64_t exp = expire ? when : (flags & SO_KEEPTTL) ? DB_KEEPTTL : VT_NO_EXPIRE;
    db_set_bytes(d, k->p, k->len, val->p, val->len, exp);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "set", k->p, k->len, c->db);
    if (expire) notify_keyspace_event(NOTIFY_GENERIC, "expire", k->p, k->len, c->db);
    if (expire) propagate_set_pxat(c, k, val, when);
    else if (flags & SO_GET) propagate_set_without_get(c);
    if (flags & SO_GET) return;
    if (setnx) reply_int(c, 1);
    else reply_ok(c);
}

void cmd_set(client *c) {
    int flags = 0;
    const arg *expire = NULL;
    if (!parse_set_opts(c, 3, 1, &flags, &expire)) return;
    set_generic(c, flags, &c->argv[1], &c->argv[2], expire, 0);
}

void cmd_setnx(client *c) { set_generic(c, SO_NX, &c->argv[1], &c->argv[2], NULL, 1); }

void cmd_setex(client *c) { set_generic(c, SO_EX, &c->argv[1], &c->argv[3], &c->argv[2], 0); }

void cmd_psetex(client *c) { set_generic(c, SO_PX, &c->argv[1], &c->argv[3], &c->argv[2], 0); }

void cmd_getset(client *c) {
    const arg *k = &c->argv[1], *val = &c->argv[2];
    if (!reply_value(c)) return;
    db_set_bytes(db_get(c->db), k->p, k->len, val->p, val->len, VT_NO_EXPIRE);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "set", k->p, k->len, c->db);
    arg v[3] = {{"SET", 3}, *k, *val};
    cmd_propagate(c, 3, v);
}

void cmd_getdel(client *c) {
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = lookup_or_nil(c, d, &wrong);
    if (!e) return;
    reply_bulk_obj(c, e->val);
    delete_propagated(c, d, &c->argv[1]);
}

/* What GETEX does to the key once the value is replied (Redis's getexCommand):
 * an absolute time already past deletes it (propagated as DEL), another
 * expiry is set (PEXPIREAT), PERSIST drops the expire (PERSIST). */
static void getex_apply(client *c, db *d, int flags, int has_expire, long long when) {
    const arg *k = &c->argv[1];
    if ((flags & (SO_EXAT | SO_PXAT)) && when <= wall_ms() && !server.loading) {
        delete_propagated(c, d, k);
    } else if (has_expire) {
        if (!db_set_expire(d, k->p, k->len, when)) return;
        server_dirty(1);
        notify_keyspace_event(NOTIFY_GENERIC, "expire", k->p, k->len, c->db);
        char buf[32];
        size_t n = ll_to_str(buf, when);
        arg v[3] = {{"PEXPIREAT", 9}, *k, {buf, n}};
        cmd_propagate(c, 3, v);
    } else if (flags & SO_PERSIST) {
        vt_entry *e = db_lookup(d, k->p, k->len);
        if (!e || vt_expire(e) == VT_NO_EXPIRE) return;
        if (!db_set_expire(d, k->p, k->len, VT_NO_EXPIRE)) return;
        server_dirty(1);
        notify_keyspace_event(NOTIFY_GENERIC, "persist", k->p, k->len, c->db);
        arg v[2] = {{"PERSIST", 7}, *k};
        cmd_propagate(c, 2, v);
    }
}

void cmd_getex(client *c) {
    int flags = 0;
    const arg *expire = NULL;
    if (!parse_set_opts(c, 2, 0, &flags, &expire)) return;
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = lookup_or_nil(c, d, &wrong);
    if (!e) return;
    long long when = 0;
    if (expire && !expire_when(c, flags, expire, &when)) return;
    reply_bulk_obj(c, e->val);
    getex_apply(c, d, flags, expire != NULL, when);
}

void cmd_mget(client *c) {
    db *d = db_get(c->db);
    reply_array(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        vt_entry *e = db_lookup_read(d, c->argv[j].p, c->argv[j].len);
        /* another type reads as nil, as in Redis */
        if (e && e->val->type == OBJ_STRING) reply_bulk_obj(c, e->val);
        else reply_nil(c);
    }
}

static void mset_generic(client *c, int nx) {
    if (c->argc % 2 == 0) {
        reply_wrong_args(c);
        return;
    }
    db *d = db_get(c->db);
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (db_lookup(d, c->argv[j].p, c->argv[j].len)) {
                reply_int(c, 0);
                return;
            }
        }
    }
    for (int j = 1; j < c->argc; j += 2) {
        const arg *k = &c->argv[j], *v = &c->argv[j + 1];
        db_set_bytes(d, k->p, k->len, v->p, v->len, VT_NO_EXPIRE);
        notify_keyspace_event(NOTIFY_STRING, "set", k->p, k->len, c->db);
    }
    server_dirty((c->argc - 1) / 2);
    if (nx) reply_int(c, 1);
    else reply_ok(c);
}

void cmd_mset(client *c) { mset_generic(c, 0); }
void cmd_msetnx(client *c) { mset_generic(c, 1); }

/* ---- in-place edits: APPEND, SETRANGE ------------------------------- */

/* Redis's checkStringLength: size + append within proto-max-bulk-len (and
 * within what an obj can hold), without overflow. AOF replay is exempt from
 * the configured limit, as Redis exempts its AOF client. */
static int check_len(client *c, unsigned long long size, unsigned long long append) {
    unsigned long long total = size + append;
    unsigned long long limit = OBJ_MAX_LEN;
    if (!server.loading && server.cfg.proto_max_bulk_len >= 0 &&
        (unsigned long long)server.cfg.proto_max_bulk_len < limit)
        limit = (unsigned long long)server.cfg.proto_max_bulk_len;
    if (total > limit || total < size) {
        reply_error(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return 0;
    }
    return 1;
}

/* Writes p[0..n) at offset off of a writable RAW object, zero-filling any
 * gap after its current end (room for off + n bytes was asked for). */
static void raw_write_at(obj *o, size_t off, const char *p, size_t n) {
    if (off > o->len) memset(o->data + o->len, 0, off - o->len);
    memcpy(o->data + off, p, n);
    if (off + n > o->len) {
        o->len = off + n;
        o->data[o->len] = '\0';
    }
}

/* Writes p[0..n) at offset off of key's value (created empty if absent),
 * keeping its expire; `append` writes at the value's end instead. Returns the
 * new length. The lengths were checked by the caller. */
static size_t edit_value(db *d, const arg *k, int append, size_t off,
                         const char *p, size_t n) {
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 1, &w, &created);
    /* a new value is as long as written, no room to grow (Redis's SETRANGE
     * of a missing key: sdsnewlen) */
    obj *o = created ? vt_set_val(&w, e, obj_kv_new_zeroed(k->p, k->len, append ? 0 : off + n))
                     : e->val;
    size_t len = obj_strlen(o);
    if (append) off = len;
    o = obj_writable(o, off + n > len ? off + n : len);
    raw_write_at(o, off, p, n);
    e->val = o;
    vt_write_done(&w);
    return o->len;
}

void cmd_append(client *c) {
    const arg *k = &c->argv[1], *a = &c->argv[2];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    size_t total;
    if (!e) {
        db_set_bytes(d, k->p, k->len, a->p, a->len, VT_NO_EXPIRE);
        total = a->len;
    } else {
        if (!check_len(c, obj_strlen(e->val), a->len)) return;
        total = edit_value(d, k, 1, 0, a->p, a->len);
    }
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "append", k->p, k->len, c->db);
    reply_int(c, (long long)total);
}

void cmd_setrange(client *c) {
    const arg *k = &c->argv[1], *a = &c->argv[3];
    long long off;
    if (!arg_ll(c, &c->argv[2], &off)) return;
    if (off < 0) {
        reply_error(c, "ERR offset is out of range");
        return;
    }
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    if (a->len == 0) { /* nothing to write: the current length */
        reply_int(c, e ? (long long)obj_strlen(e->val) : 0);
        return;
    }
    if (!check_len(c, (unsigned long long)off, a->len)) return;
    size_t total = edit_value(d, k, 0, (size_t)off, a->p, a->len);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "setrange", k->p, k->len, c->db);
    reply_int(c, (long long)total);
}

void cmd_strlen(client *c) {
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_STRING,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    reply_int(c, e ? (long long)obj_strlen(e->val) : 0);
}

void cmd_getrange(client *c) {
    long long start, end;
    if (!arg_ll(c, &c->argv[2], &start) || !arg_ll(c, &c->argv[3], &end)) return;
    int wrong;
    vt_entry *e = db_lookup_typed(c, db_get(c->db), c->argv[1].p, c->argv[1].len, OBJ_STRING,
                                  DB_LOOKUP_READ, &wrong);
    if (wrong) return;
    if (!e) {
        reply_bulk(c, "", 0);
        return;
    }
    char buf[OBJ_INTBUF];
    size_t n;
    const char *s = obj_str(e->val, buf, &n);
    long long len = (long long)n;
    /* Redis 7.0's arithmetic, including its quirk that an end far below
     * -len clamps to 0 (GETRANGE "hello" 0 -100 is "h"). */
    if (start < 0 && end < 0 && start > end) {
        reply_bulk(c, "", 0);
        return;
    }
    if (start < 0) start += len;
    if (end < 0) end += len;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= len) end = len - 1;
    if (start > end || len == 0) reply_bulk(c, "", 0);
    else reply_bulk(c, s + start, (size_t)(end - start + 1));
}

/* ---- counters ---------------------------------------------------------- */

static void incr_decr(client *c, long long incr) {
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    long long v = 0;
    if (e && !obj_get_ll(e->val, &v)) {
        reply_not_int(c);
        return;
    }
    if ((incr < 0 && v < 0 && incr < LLONG_MIN - v) ||
        (incr > 0 && v > 0 && incr > LLONG_MAX - v)) {
        reply_error(c, "ERR increment or decrement would overflow");
        return;
    }
    v += incr;
    /* A new object rather than an in-place change: the old one may be held
     * by the snapshot serializer. */
    db_set(d, k->p, k->len, obj_new_int(v), DB_KEEPTTL);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "incrby", k->p, k->len, c->db);
    reply_int(c, v);
}

void cmd_incr(client *c) { incr_decr(c, 1); }
void cmd_decr(client *c) { incr_decr(c, -1); }

void cmd_incrby(client *c) {
    long long incr;
    if (arg_ll(c, &c->argv[2], &incr)) incr_decr(c, incr);
}

void cmd_decrby(client *c) {
    long long incr;
    if (!arg_ll(c, &c->argv[2], &incr)) return;
    if (incr == LLONG_MIN) {
        reply_error(c, "ERR decrement would overflow");
        return;
    }
    incr_decr(c, -incr);
}

/* A value as a long double, as Redis's getLongDoubleFromObject. */
static int obj_get_ld(const obj *o, long double *out) {
    long long ll;
    if (o->enc == OBJ_ENC_INT && obj_get_ll(o, &ll)) {
        *out = (long double)ll;
        return 1;
    }
    return str_to_ld(o->data, o->len, out);
}

void cmd_incrbyfloat(client *c) {
    const arg *k = &c->argv[1], *a = &c->argv[2];
    db *d = db_get(c->db);
    int wrong;
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, DB_LOOKUP_WRITE, &wrong);
    if (wrong) return;
    long double v = 0, incr;
    if ((e && !obj_get_ld(e->val, &v)) || !str_to_ld(a->p, a->len, &incr)) {
        reply_error(c, "ERR value is not a valid float");
        return;
    }
    v += incr;
    if (isnan(v) || isinf(v)) {
        reply_error(c, "ERR increment would produce NaN or Infinity");
        return;
    }
    char *buf = xmalloc(LD_BUF);
    size_t n = ld_to_str(buf, LD_BUF, v);
    db_set_bytes(d, k->p, k->len, buf, n, DB_KEEPTTL);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STRING, "incrbyfloat", k->p, k->len, c->db);
    reply_bulk(c, buf, n);
    /* Replayed as the value it produced, so that float formatting can never
     * make a replay differ. */
    arg pv[4] = {{"SET", 3}, *k, {buf, n}, {"KEEPTTL", 7}};
    cmd_propagate(c, 4, pv);
    free(buf);
}
