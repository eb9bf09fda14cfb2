/* cmd_stream_claim: Redis 7.0's XCLAIM and XAUTOCLAIM: PEL entries change
 * owner (FORCE makes them, deleted entries leave the PEL), each change
 * propagated as an absolute XCLAIM (streamPropagateXCLAIM), a moved
 * LASTID alone as XGROUP SETID. Main thread only. */
#include <assert.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "stream_cg.h"
#include "stream_cmd.h"
#include "util.h"

/* ---- XCLAIM ---- */

typedef struct xclaim_opts {
    int64_t delivery_time;   /* -1: now */
    long long retrycount;    /* -1: not given */
    int force, justid, has_lastid;
    stream_id lastid;
} xclaim_opts;

/* The options after the ids (from argv[j]): 0 after replying an error. */
static int xclaim_options(client *c, int j, int64_t now, xclaim_opts *o) {
    for (; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const arg *a = &c->argv[j];
        long long v;
        if (arg_is(a, "force")) {
            o->force = 1;
        } else if (arg_is(a, "justid")) {
            o->justid = 1;
        } else if (arg_is(a, "idle") && more) {
            if (!cg_arg_ll(c, &c->argv[++j], "ERR Invalid IDLE option argument for XCLAIM", &v))
                return 0;
            o->delivery_time = now - v;
        } else if (arg_is(a, "time") && more) {
            if (!cg_arg_ll(c, &c->argv[++j], "ERR Invalid TIME option argument for XCLAIM", &v))
                return 0;
            o->delivery_time = v;
        } else if (arg_is(a, "retrycount") && more) {
            if (!cg_arg_ll(c, &c->argv[++j], "ERR Invalid RETRYCOUNT option argument for XCLAIM",
                            &v))
                return 0;
            o->retrycount = v;
        } else if (arg_is(a, "lastid") && more) {
            if (!stream_parse_id(c, &c->argv[++j], 0, 1, NULL, &o->lastid)) return 0;
            o->has_lastid = 1;
        } else {
            reply_errorf(c, "ERR Unrecognized XCLAIM option '%.*s'", cg_clamp_len(a->len), a->p);
            return 0;
        }
    }
    return 1;
}

void cmd_xclaim(client *c) {
    const arg *k = &c->argv[1], *gname = &c->argv[2], *cname = &c->argv[3];
    stream_group g;
    vt_entry *e = cg_lookup_group(c, k, gname, &g);
    if (!e) return;
    long long minidle;
    if (!cg_arg_ll(c, &c->argv[4], "ERR Invalid min-idle-time argument for XCLAIM", &minidle))
        return;
    if (minidle < 0) minidle = 0;
    /* the ids, up to the first argument that is not one */
    int j = 5;
    stream_id tmp;
    while (j < c->argc && sid_parse(c->argv[j].p, c->argv[j].len, 0, &tmp)) j++;
    int ids_end = j;
    int64_t now = wall_ms();
    xclaim_opts o = {-1, -1, 0, 0, 0, STREAM_ID_MIN};
    if (!xclaim_options(c, j, now, &o)) return;
    int prop_last = 0;
    if (o.has_lastid && sid_cmp(o.lastid, g.last_id) > 0) {
        g.last_id = o.lastid;
        prop_last = 1;
    }
    if (o.delivery_time < 0 || o.delivery_time > now) o.delivery_time = now;

    vt_wr w;
    obj *s = stream_write_groups(c, k, &w, &e);
    if (prop_last) stream_group_update(s, gname->p, gname->len, &g);
    cg_ids claimed = {0};
    int have_cons = 0;
    stream_consumer cons = {0, 0};
    for (j = 5; j < ids_end; j++) {
        stream_id id;
        sid_parse(c->argv[j].p, c->argv[j].len, 0, &id);
        stream_nack n;
        int pending = stream_pel_get(s, g.gid, id, &n);
        if (!stream_has(s, id)) {
            /* the entry is gone: so goes its PEL entry, here and on replicas */
            if (pending) {
                cg_prop_xclaim(c, k, gname, cg_owner_name(s, g.gid, n.cid), &c->argv[j], &n,
                            g.last_id);
                prop_last = 0;
                server_dirty(1);
                stream_pel_del(s, g.gid, id);
            }
            continue;
        }
        int forced = 0;
        if (!pending) {
            if (!o.force) continue;
            n = (stream_nack){STREAM_NO_CONSUMER, now, 1};
            forced = 1;
        }
        if (!forced && minidle && now - n.delivery_time < minidle) continue;
        if (!have_cons) {
            cg_consumer_touch(c, s, g.gid, k, cname, now, &cons);
            have_cons = 1;
        }
        n.delivery_time = o.delivery_time;
        if (o.retrycount >= 0)
            n.delivery_count = (uint64_t)o.retrycount;
        else if (!o.justid)
            n.delivery_count++;
        n.cid = cons.cid;
        stream_pel_put(s, g.gid, id, &n);
        cg_ids_push(&claimed, id);
        cg_prop_xclaim(c, k, gname, (stream_str){cname->p, cname->len}, &c->argv[j], &n,
                    g.last_id);
        prop_last = 0;
        server_dirty(1);
    }
    if (prop_last) {
        cg_prop_setid(c, k, gname, &g);
        server_dirty(1);
    }
    reply_array(c, (long long)claimed.n);
    for (size_t i = 0; i < claimed.n; i++) {
        if (o.justid)
            stream_reply_id(c, claimed.v[i]);
        else
            cg_reply_entry(c, s, claimed.v[i]);
    }
    stream_write_end(&w);
    cg_ids_free(&claimed);
    cmd_propagate_none(c);
}

/* ---- XAUTOCLAIM ---- */

/* Attempts per claimed entry: Redis's attempts_factor. */
#define XAUTOCLAIM_ATTEMPTS 10

/* The first PEL id >= from: 1 and *id, or 0. */
static int pel_first_from(const obj *s, uint64_t gid, stream_id from, stream_id *id,
                          stream_nack *n) {
    stream_pel_iter it;
    stream_pel_iter_init(&it, s, gid, STREAM_NO_CONSUMER, from, STREAM_ID_MAX);
    return stream_pel_iter_next(&it, id, n);
}

void cmd_xautoclaim(client *c) {
    const arg *k = &c->argv[1], *gname = &c->argv[2], *cname = &c->argv[3];
    long long minidle, count = 100;
    int justid = 0;
    if (!cg_arg_ll(c, &c->argv[4], "ERR Invalid min-idle-time argument for XAUTOCLAIM",
                    &minidle))
        return;
    if (minidle < 0) minidle = 0;
    stream_id cur;
    if (!stream_parse_bound(c, &c->argv[5], 0, &cur)) return;
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        if (arg_is(&c->argv[j], "count") && more) {
            long long v;
            if (!str_to_ll(c->argv[j + 1].p, c->argv[j + 1].len, &v) || v < 1 ||
                v > LONG_MAX / 16) {
                reply_error(c, "ERR COUNT must be > 0");
                return;
            }
            count = v;
            j++;
        } else if (arg_is(&c->argv[j], "justid")) {
            justid = 1;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    stream_group g;
    vt_entry *e = cg_lookup_group(c, k, gname, &g);
    if (!e) return;
    vt_wr w;
    obj *s = stream_write_groups(c, k, &w, &e);
    int64_t now = wall_ms();
    long long attempts = count * XAUTOCLAIM_ATTEMPTS;
    cg_ids claimed = {0}, deleted = {0};
    int have_cons = 0, more = 1;
    stream_consumer cons = {0, 0};
    stream_id id;
    stream_nack n;
    while (attempts-- > 0 && count > 0 && more && pel_first_from(s, g.gid, cur, &id, &n)) {
        cur = id;
        more = sid_incr(&cur);
        if (!stream_has(s, id)) {
            cg_prop_xclaim_id(c, k, gname, cg_owner_name(s, g.gid, n.cid), id, &n, g.last_id);
            server_dirty(1);
            stream_pel_del(s, g.gid, id);
            cg_ids_push(&deleted, id);
            count--;
            continue;
        }
        if (minidle && now - n.delivery_time < minidle) continue;
        if (!have_cons) {
            cg_consumer_touch(c, s, g.gid, k, cname, now, &cons);
            have_cons = 1;
        }
        n.delivery_time = now;
        if (!justid) n.delivery_count++;
        n.cid = cons.cid;
        stream_pel_put(s, g.gid, id, &n);
        cg_ids_push(&claimed, id);
        count--;
        cg_prop_xclaim_id(c, k, gname, (stream_str){cname->p, cname->len}, id, &n, g.last_id);
        server_dirty(1);
    }
    stream_id next;
    if (!more || !pel_first_from(s, g.gid, cur, &next, &n)) next = STREAM_ID_MIN;
    reply_array(c, 3);
    stream_reply_id(c, next);
    reply_array(c, (long long)claimed.n);
    for (size_t i = 0; i < claimed.n; i++) {
        if (justid)
            stream_reply_id(c, claimed.v[i]);
        else
            cg_reply_entry(c, s, claimed.v[i]);
    }
    reply_array(c, (long long)deleted.n);
    for (size_t i = 0; i < deleted.n; i++) stream_reply_id(c, deleted.v[i]);
    stream_write_end(&w);
    cg_ids_free(&claimed);
    cg_ids_free(&deleted);
    cmd_propagate_none(c);
}

