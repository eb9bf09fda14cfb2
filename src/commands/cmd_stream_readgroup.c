/* cmd_stream_readgroup: Redis 7.0's XREADGROUP: ">" delivers new entries
 * (the group's last id and entries-read advanced, PEL entries for the
 * consumer unless NOACK), an id serves the consumer's own history; BLOCK
 * through block_on_streams. Propagated as 7.0.15 does it: each delivery
 * as "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID
 * LASTID id", a NOACK read as "XGROUP SETID key group id ENTRIESREAD n"
 * after "XGROUP CREATECONSUMER" when it made the consumer; a history read
 * not at all. Main thread only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "stream_cg.h"
#include "stream_cmd.h"
#include "util.h"

/* ---- XREADGROUP ---- */

typedef struct xrg_args {
    const arg *group, *consumer;
    long long count;     /* 0: no limit */
    int block;           /* BLOCK given */
    int64_t deadline;    /* its deadline, 0: none */
    int noack;
    int streams_arg, nstreams;
} xrg_args;

/* The options before STREAMS, as xreadCommand parses them: 0 after
 * replying an error. */
static int xrg_parse(client *c, xrg_args *a) {
    memset(a, 0, sizeof *a);
    for (int i = 1; i < c->argc; i++) {
        int more = c->argc - i - 1;
        const arg *o = &c->argv[i];
        if (arg_is(o, "block") && more) {
            if (c->flags & CLIENT_SCRIPT) {
                reply_errorf(c, "ERR %.*s command is not allowed with BLOCK option from scripts",
                             cg_clamp_len(c->argv[0].len), c->argv[0].p);
                return 0;
            }
            if (!block_parse_timeout_ms(c, &c->argv[++i], &a->deadline)) return 0;
            a->block = 1;
        } else if (arg_is(o, "count") && more) {
            if (!arg_ll(c, &c->argv[++i], &a->count)) return 0;
            if (a->count < 0) a->count = 0;
        } else if (arg_is(o, "streams") && more) {
            a->streams_arg = i + 1;
            int n = c->argc - a->streams_arg;
            if (n % 2) {
                reply_error(c, "ERR Unbalanced XREAD list of streams: for each stream key an ID "
                               "or '$' must be specified.");
                return 0;
            }
            a->nstreams = n / 2;
            break;
        } else if (arg_is(o, "group") && more >= 2) {
            a->group = &c->argv[i + 1];
            a->consumer = &c->argv[i + 2];
            i += 2;
        } else if (arg_is(o, "noack")) {
            a->noack = 1;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    if (a->streams_arg == 0) {
        reply_syntax_error(c);
        return 0;
    }
    if (!a->group) {
        reply_error(c, "ERR Missing GROUP option for XREADGROUP");
        return 0;
    }
    return 1;
}

/* The id the group's last delivered id becomes when ">" is served from
 * `last` with count (0: no limit): the count-th live entry after it, or
 * the last one. */
static stream_id xrg_last_after(const obj *s, stream_id last, long long count) {
    stream_iter it;
    stream_id id, out = last;
    size_t nf;
    if (!sid_incr(&last)) return out;
    stream_iter_init(&it, s, last, STREAM_ID_MAX, 0);
    for (long long k = 0; (count == 0 || k < count) && stream_iter_next(&it, &id, &nf); k++)
        out = id;
    return out;
}

/* Which streams are served (ready[i]), in order as Redis decides them one
 * after the other: a key named twice with ">" sees the group as its
 * earlier occurrence leaves it. Returns how many. */
static int xrg_plan(client *c, const xrg_args *a, const char *newonly, char *ready) {
    int n = a->nstreams, nready = 0;
    for (int i = 0; i < n; i++) {
        /* one read lookup per stream, as Redis's serving pass (its hits) */
        const arg *k = &c->argv[a->streams_arg + i];
        int wrong;
        vt_entry *e = stream_lookup(c, k, &wrong);
        stream_group g;
        ready[i] = 0;
        if (!e || !stream_group_get(e->val, a->group->p, a->group->len, &g)) continue;
        if (!newonly[i]) { /* an id: the consumer's history, always */
            ready[i] = 1;
            nready++;
            continue;
        }
        /* ">": an earlier ">" on the same key moved the group on */
        stream_id last = g.last_id;
        for (int j = 0; j < i; j++) {
            const arg *kj = &c->argv[a->streams_arg + j];
            if (ready[j] && newonly[j] && kj->len == k->len && !memcmp(kj->p, k->p, k->len))
                last = xrg_last_after(e->val, last, a->count);
        }
        /* entries past the group's last id (streamLastValidID) */
        stream_id top;
        ready[i] = (char)(stream_last_valid_id(e->val, &top) && sid_cmp(top, last) > 0);
        nready += ready[i];
    }
    return nready;
}

/* The consumer's history from after `after`: its pending ids, each
 * replied with its entry (delivery count + 1, delivery time now) or, when
 * the entry was deleted, as [id, nil]. */
static void xrg_history(client *c, obj *s, uint64_t gid, uint64_t cid, stream_id after,
                        long long count, int64_t now) {
    cg_ids ids = {0};
    if (sid_incr(&after)) {
        stream_pel_iter it;
        stream_id id;
        stream_nack n;
        stream_pel_iter_init(&it, s, gid, cid, after, STREAM_ID_MAX);
        while ((count == 0 || (long long)ids.n < count) && stream_pel_iter_next(&it, &id, &n))
            cg_ids_push(&ids, id);
    }
    reply_array(c, (long long)ids.n);
    for (size_t i = 0; i < ids.n; i++) {
        if (!stream_has(s, ids.v[i])) {
            reply_array(c, 2);
            stream_reply_id(c, ids.v[i]);
            reply_nil_array(c);
            continue;
        }
        cg_reply_entry(c, s, ids.v[i]);
        stream_nack n;
        int ok = stream_pel_get(s, gid, ids.v[i], &n);
        assert(ok);
        (void)ok;
        n.delivery_time = now;
        n.delivery_count++;
        stream_pel_put(s, gid, ids.v[i], &n);
    }
    cg_ids_free(&ids);
}

/* New entries for the group (">"): replied, the group's last id and
 * entries-read advanced, PEL entries given to the consumer unless NOACK;
 * each delivery propagated as XCLAIM, a NOACK read as XGROUP SETID. */
static void xrg_new(client *c, const xrg_args *a, const arg *k, obj *s, stream_group *g,
                    stream_consumer cons, int64_t now) {
    cg_ids ids = {0};
    stream_id start = g->last_id;
    stream_iter it;
    stream_id id;
    size_t nf;
    if (sid_incr(&start)) {
        stream_iter_init(&it, s, start, STREAM_ID_MAX, 0);
        while ((a->count == 0 || (long long)ids.n < a->count) && stream_iter_next(&it, &id, &nf))
            cg_ids_push(&ids, id);
    }
    reply_array(c, (long long)ids.n);
    for (size_t i = 0; i < ids.n; i++) cg_reply_entry(c, s, ids.v[i]);
    int advanced = 0;
    for (size_t i = 0; i < ids.n; i++) {
        id = ids.v[i];
        if (sid_cmp(id, g->last_id) > 0) {
            if (g->entries_read != STREAM_ENTRIES_READ_INVALID &&
                !stream_range_has_tombstones(s, id, NULL))
                g->entries_read++;
            else if (stream_meta_get(s)->entries_added)
                g->entries_read = stream_estimate_entries_read(s, id);
            g->last_id = id;
            advanced = 1;
        }
        if (!a->noack) {
            stream_nack n = {cons.cid, now, 1};
            stream_pel_put(s, g->gid, id, &n);
            cg_prop_xclaim_id(c, k, a->group, (stream_str){a->consumer->p, a->consumer->len}, id, &n,
                           g->last_id);
        }
    }
    stream_group_update(s, a->group->p, a->group->len, g);
    if (a->noack && advanced) cg_prop_setid(c, k, a->group, g);
    cg_ids_free(&ids);
}

/* Serves stream i (ready): [key, entries]. */
static void xrg_serve(client *c, const xrg_args *a, int i, int newonly, stream_id after,
                      int64_t now) {
    const arg *k = &c->argv[a->streams_arg + i];
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_groups(c, k, &w, &e);
    assert(s);
    stream_group g;
    int ok = stream_group_get(s, a->group->p, a->group->len, &g);
    assert(ok);
    (void)ok;
    stream_consumer cons;
    if (cg_consumer_touch(c, s, g.gid, k, a->consumer, now, &cons) && a->noack)
        cg_prop_createconsumer(c, k, a->group, a->consumer);
    if (c->resp == 2) reply_array(c, 2);
    reply_bulk(c, k->p, k->len);
    if (newonly)
        xrg_new(c, a, k, s, &g, cons, now);
    else
        xrg_history(c, s, g.gid, cons.cid, after, a->count, now);
    stream_write_end(&w);
    server_dirty(1);
}

/* Redis's XREAD_BLOCKED_DEFAULT_COUNT: a blocked reader without COUNT is
 * served at most this many entries. */
#define XRG_BLOCKED_COUNT 1000

/* The blocked command runs again because `only` got entries (or its group
 * was destroyed): that stream alone is served, as Redis 7.0 serves a
 * blocked XREADGROUP; nothing ready (another consumer took the entries)
 * blocks again in its place. */
static void xrg_rerun(client *c, xrg_args *a, const arg *only) {
    int i = 0;
    while (i < a->nstreams) {
        const arg *k = &c->argv[a->streams_arg + i];
        if (k->len == only->len && memcmp(k->p, only->p, k->len) == 0) break;
        i++;
    }
    assert(i < a->nstreams);
    int wrong;
    vt_entry *e = stream_lookup(c, only, &wrong);
    stream_group g;
    if (wrong || !e || !stream_group_get(e->val, a->group->p, a->group->len, &g)) {
        if (!wrong)
            reply_error(c, "NOGROUP the consumer group this client was blocked on no longer "
                           "exists");
        return;
    }
    if (a->count == 0) a->count = XRG_BLOCKED_COUNT;
    /* served when the stream's last id passed the group's, as Redis 7.0's
     * serveClientsBlockedOnStreamKey: entries added and deleted since
     * answer an empty list */
    if (sid_cmp(stream_meta_get(e->val)->last_id, g.last_id) <= 0) {
        block_on_streams(c, only, 1, a->deadline, BLOCK_STREAM_GROUP);
        return;
    }
    if (c->resp == 2)
        reply_array(c, 1);
    else
        reply_map(c, 1);
    xrg_serve(c, a, i, 1, STREAM_ID_MAX, wall_ms());
}

void cmd_xreadgroup(client *c) {
    xrg_args a;
    if (!xrg_parse(c, &a)) return;
    arg served;
    const arg *only = block_served_key(c, &served);
    if (only) {
        xrg_rerun(c, &a, only);
        cmd_propagate_none(c);
        return;
    }
    int n = a.nstreams;
    stream_id *ids = xmalloc((size_t)n * sizeof *ids);
    char *newonly = xmalloc((size_t)n);
    for (int i = 0; i < n; i++) {
        const arg *k = &c->argv[a.streams_arg + i], *ida = &c->argv[a.streams_arg + n + i];
        int wrong;
        vt_entry *e = stream_lookup(c, k, &wrong);
        if (wrong) goto done;
        stream_group g;
        if (!e || !stream_group_get(e->val, a.group->p, a.group->len, &g)) {
            cg_reply_nogroup(c, k, a.group, " in XREADGROUP with GROUP option");
            goto done;
        }
        newonly[i] = 0;
        if (ida->len == 1 && ida->p[0] == '$') {
            reply_error(c, "ERR The $ ID is meaningless in the context of XREADGROUP: you want "
                           "to read the history of this consumer by specifying a proper ID, or "
                           "use the > ID to get new messages. The $ ID would just return an "
                           "empty result set.");
            goto done;
        }
        if (ida->len == 1 && ida->p[0] == '>') {
            newonly[i] = 1;
            ids[i] = STREAM_ID_MAX;
        } else if (!stream_parse_id(c, ida, 0, 1, NULL, &ids[i])) {
            goto done;
        }
    }
    char *ready = xmalloc((size_t)n);
    int nready = xrg_plan(c, &a, newonly, ready);
    if (nready) {
        int64_t now = wall_ms();
        if (c->resp == 2)
            reply_array(c, nready);
        else
            reply_map(c, nready);
        for (int i = 0; i < n; i++)
            if (ready[i]) xrg_serve(c, &a, i, newonly[i], ids[i], now);
    } else if (a.block && block_allowed(c)) {
        block_on_streams(c, &c->argv[a.streams_arg], n, a.deadline, BLOCK_STREAM_GROUP);
    } else {
        reply_nil_array(c); /* nothing, or may not wait (MULTI): as on timeout */
    }
    free(ready);
done:
    cmd_propagate_none(c);
    free(ids);
    free(newonly);
}

