/* cmd_stream_cg: Redis 7.0's consumer-group commands on the stream type:
 * XGROUP, XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM (XINFO is
 * cmd_stream_info.c). Replies, error texts and keyspace events are
 * 7.0.15's, and so is propagation: a delivery or a claim goes out as
 * "XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n FORCE JUSTID
 * LASTID id" (streamPropagateXCLAIM), a NOACK read as "XGROUP SETID key
 * group id ENTRIESREAD n" (streamPropagateGroupID) and a consumer a NOACK
 * read created as "XGROUP CREATECONSUMER" (streamPropagateConsumerCreation);
 * the commands themselves are not propagated. Main thread only. */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "stream_cmd.h"
#include "util.h"

/* ---- shared parts ---- */

static int clamp_len(size_t len) { return (int)(len > 1024 ? 1024 : len); }

/* "NOGROUP No such key 'k' or consumer group 'g'" (XPENDING, XCLAIM...). */
static void reply_nogroup(client *c, const arg *k, const arg *g, const char *suffix) {
    reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'%s", clamp_len(k->len),
                 k->p, clamp_len(g->len), g->p, suffix);
}

/* "NOGROUP No such consumer group 'g' for key name 'k'" (XGROUP). */
static void reply_nogroup_for_key(client *c, const arg *g, const arg *k) {
    reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", clamp_len(g->len),
                 g->p, clamp_len(k->len), k->p);
}

/* An integer argument with the command's own error text. */
static int arg_ll_msg(client *c, const arg *a, const char *msg, long long *out) {
    if (str_to_ll(a->p, a->len, out)) return 1;
    reply_error(c, msg);
    return 0;
}

static arg arg_of(const char *s) { return (arg){s, strlen(s)}; }

/* Propagates "XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE
 * JUSTID LASTID last": the replica's PEL entry becomes this one. */
static void prop_xclaim(client *c, const arg *key, const arg *group, stream_str consumer,
                        const arg *id, const stream_nack *n, stream_id last) {
    char tbuf[24], rbuf[24], lbuf[STREAM_ID_STRMAX];
    int tl = snprintf(tbuf, sizeof tbuf, "%lld", (long long)n->delivery_time);
    int rl = snprintf(rbuf, sizeof rbuf, "%llu", (unsigned long long)n->delivery_count);
    size_t ll = sid_format(lbuf, last);
    arg v[14] = {arg_of("XCLAIM"), *key, *group, {consumer.p, consumer.len}, arg_of("0"), *id,
                 arg_of("TIME"), {tbuf, (size_t)tl}, arg_of("RETRYCOUNT"), {rbuf, (size_t)rl},
                 arg_of("FORCE"), arg_of("JUSTID"), arg_of("LASTID"), {lbuf, ll}};
    cmd_propagate(c, 14, v);
}

/* The same with the id given as a stream_id. */
static void prop_xclaim_id(client *c, const arg *key, const arg *group, stream_str consumer,
                           stream_id id, const stream_nack *n, stream_id last) {
    char ibuf[STREAM_ID_STRMAX];
    arg ida = {ibuf, sid_format(ibuf, id)};
    prop_xclaim(c, key, group, consumer, &ida, n, last);
}

/* Propagates "XGROUP SETID key group last ENTRIESREAD n". */
static void prop_setid(client *c, const arg *key, const arg *group, const stream_group *g) {
    char ibuf[STREAM_ID_STRMAX], ebuf[24];
    size_t il = sid_format(ibuf, g->last_id);
    int el = snprintf(ebuf, sizeof ebuf, "%lld", (long long)g->entries_read);
    arg v[7] = {arg_of("XGROUP"), arg_of("SETID"), *key, *group, {ibuf, il},
                arg_of("ENTRIESREAD"), {ebuf, (size_t)el}};
    cmd_propagate(c, 7, v);
}

/* Propagates "XGROUP CREATECONSUMER key group consumer". */
static void prop_createconsumer(client *c, const arg *key, const arg *group, const arg *name) {
    arg v[5] = {arg_of("XGROUP"), arg_of("CREATECONSUMER"), *key, *group, *name};
    cmd_propagate(c, 5, v);
}

/* The consumer `name` of group gid, created when missing (Redis's
 * streamCreateConsumer: the xgroup-createconsumer event, one change);
 * its seen_time becomes now either way. Returns 1 when it was created. */
static int consumer_touch(client *c, obj *s, uint64_t gid, const arg *key, const arg *name,
                          int64_t now, stream_consumer *out) {
    out->seen_time = now;
    if (stream_consumer_create(s, gid, name->p, name->len, out)) {
        notify_keyspace_event(NOTIFY_STREAM, "xgroup-createconsumer", key->p, key->len, c->db);
        server_dirty(1);
        return 1;
    }
    out->seen_time = now;
    stream_consumer_update(s, gid, name->p, name->len, out);
    return 0;
}

/* The name of a PEL entry's owner (it exists: the PEL and the consumers
 * are kept together by t_stream). */
static stream_str owner_name(const obj *s, uint64_t gid, uint64_t cid) {
    stream_str name;
    int ok = stream_consumer_name(s, gid, cid, &name);
    assert(ok);
    (void)ok;
    return name;
}

/* A growable list of ids. */
typedef struct id_list {
    stream_id *v;
    size_t n, cap;
} id_list;

static void ids_push(id_list *l, stream_id id) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = id;
}

static void ids_free(id_list *l) { free(l->v); }

/* Replies the live entry id (it exists) as [id, [f, v...]]. */
static void reply_one_entry(client *c, const obj *s, stream_id id) {
    stream_iter it;
    stream_id got;
    size_t nf;
    stream_iter_init(&it, s, id, id, 0);
    int ok = stream_iter_next(&it, &got, &nf);
    assert(ok);
    (void)ok;
    stream_reply_entry(c, &it, got, nf);
}

/* ---- XGROUP ---- */

static const char *const xgroup_help[] = {
    "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    "HELP",
    "    Prints this help.",
    NULL};

/* CREATE's and SETID's options from argv[5]: 0 after replying an error. */
static int xgroup_options(client *c, int create, int *mkstream, int64_t *entries_read) {
    for (int i = 5; i < c->argc; i++) {
        if (create && arg_is(&c->argv[i], "mkstream")) {
            *mkstream = 1;
        } else if (arg_is(&c->argv[i], "entriesread") && i + 1 < c->argc) {
            long long v;
            if (!arg_ll(c, &c->argv[++i], &v)) return 0;
            if (v < 0 && v != STREAM_ENTRIES_READ_INVALID) {
                reply_error(c, "ERR value for ENTRIESREAD must be positive or -1");
                return 0;
            }
            *entries_read = v;
        } else {
            stream_reply_sub_syntax(c, "XGROUP");
            return 0;
        }
    }
    return 1;
}

static void xgroup_create(client *c, const obj *rs, int mkstream, int64_t entries_read) {
    const arg *k = &c->argv[2], *gname = &c->argv[3];
    stream_group g = {0, STREAM_ID_MIN, entries_read};
    if (arg_is(&c->argv[4], "$")) {
        if (rs) g.last_id = stream_meta_get(rs)->last_id;
    } else if (!stream_parse_id(c, &c->argv[4], 0, 1, NULL, &g.last_id)) {
        return;
    }
    if (rs && stream_group_get(rs, gname->p, gname->len, &g)) {
        reply_error(c, "BUSYGROUP Consumer Group name already exists");
        return;
    }
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, mkstream, &w, &e);
    assert(s);
    int ok = stream_group_create(s, gname->p, gname->len, &g);
    assert(ok);
    (void)ok;
    stream_write_end(&w);
    reply_ok(c);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-create", k->p, k->len, c->db);
}

static void xgroup_setid(client *c, const obj *rs, stream_group g, int64_t entries_read) {
    const arg *k = &c->argv[2], *gname = &c->argv[3];
    if (c->argv[4].len == 1 && c->argv[4].p[0] == '$')
        g.last_id = stream_meta_get(rs)->last_id;
    else if (!stream_parse_id(c, &c->argv[4], 0, 0, NULL, &g.last_id))
        return;
    g.entries_read = entries_read;
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    stream_group_update(s, gname->p, gname->len, &g);
    stream_write_end(&w);
    reply_ok(c);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-setid", k->p, k->len, c->db);
}

/* DESTROY, CREATECONSUMER, DELCONSUMER: the group exists (or DESTROY
 * answers 0). */
static void xgroup_destroy(client *c, int have_group) {
    const arg *k = &c->argv[2], *gname = &c->argv[3];
    if (!have_group) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    stream_group_destroy(s, gname->p, gname->len);
    stream_write_end(&w);
    reply_int(c, 1);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-destroy", k->p, k->len, c->db);
    /* XREADGROUP clients blocked on the key answer NOGROUP when served */
    block_signal_key(c->db, k->p, k->len);
}

static void xgroup_createconsumer(client *c, const obj *rs, const stream_group *g) {
    const arg *k = &c->argv[2], *name = &c->argv[4];
    stream_consumer cons;
    if (stream_consumer_get(rs, g->gid, name->p, name->len, &cons)) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    cons.seen_time = wall_ms();
    stream_consumer_create(s, g->gid, name->p, name->len, &cons);
    stream_write_end(&w);
    reply_int(c, 1);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-createconsumer", k->p, k->len, c->db);
}

static void xgroup_delconsumer(client *c, const obj *rs, const stream_group *g) {
    const arg *k = &c->argv[2], *name = &c->argv[4];
    stream_consumer cons;
    if (!stream_consumer_get(rs, g->gid, name->p, name->len, &cons)) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    int64_t pending = stream_consumer_delete(s, g->gid, name->p, name->len);
    stream_write_end(&w);
    assert(pending >= 0);
    reply_int(c, pending);
    server_dirty(1);
    notify_keyspace_event(NOTIFY_STREAM, "xgroup-delconsumer", k->p, k->len, c->db);
}

/* The dispatcher has resolved the subcommand (c->cmd) and checked its
 * arity; the checks then come in Redis 7.0's order: options, the key,
 * the group. */
void cmd_xgroup(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, xgroup_help);
        return;
    }
    int create = !strcmp(sub, "create"), setid = !strcmp(sub, "setid");
    int mkstream = 0;
    int64_t entries_read = STREAM_ENTRIES_READ_INVALID;
    if ((create || setid) && !xgroup_options(c, create, &mkstream, &entries_read)) return;
    int wrong;
    vt_entry *e = stream_lookup_write(c, &c->argv[2], &wrong);
    if (wrong) return;
    const obj *rs = e ? e->val : NULL;
    stream_group g;
    int have_group = rs && stream_group_get(rs, c->argv[3].p, c->argv[3].len, &g);
    if (!mkstream) {
        if (!rs) {
            reply_error(c, "ERR The XGROUP subcommand requires the key to exist. Note that for "
                           "CREATE you may want to use the MKSTREAM option to create an empty "
                           "stream automatically.");
            return;
        }
        if (!have_group && !create && strcmp(sub, "destroy")) {
            reply_nogroup_for_key(c, &c->argv[3], &c->argv[2]);
            return;
        }
    }
    if (create) {
        if (c->argc > 8) {
            stream_reply_sub_syntax(c, "XGROUP");
            return;
        }
        xgroup_create(c, rs, mkstream, entries_read);
    } else if (setid) {
        if (c->argc != 5 && c->argc != 7) {
            stream_reply_sub_syntax(c, "XGROUP");
            return;
        }
        xgroup_setid(c, rs, g, entries_read);
    } else if (!strcmp(sub, "destroy")) {
        xgroup_destroy(c, have_group);
    } else if (!strcmp(sub, "createconsumer")) {
        xgroup_createconsumer(c, rs, &g);
    } else {
        assert(!strcmp(sub, "delconsumer"));
        xgroup_delconsumer(c, rs, &g);
    }
}

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
                             clamp_len(c->argv[0].len), c->argv[0].p);
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

/* Whether stream i of the command is to be served now: an explicit id
 * always (the consumer's history), ">" when the stream's last live entry
 * is past the group's last delivered id (streamLastValidID). */
static int xrg_ready(client *c, const xrg_args *a, int i, int newonly) {
    const arg *k = &c->argv[a->streams_arg + i];
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (!e) return 0;
    if (!newonly) return 1;
    stream_group g;
    if (!stream_group_get(e->val, a->group->p, a->group->len, &g)) return 0;
    stream_id top;
    return stream_last_valid_id(e->val, &top) && sid_cmp(top, g.last_id) > 0;
}

/* The consumer's history from after `after`: its pending ids, each
 * replied with its entry (delivery count + 1, delivery time now) or, when
 * the entry was deleted, as [id, nil]. */
static void xrg_history(client *c, obj *s, uint64_t gid, uint64_t cid, stream_id after,
                        long long count, int64_t now) {
    id_list ids = {0};
    if (sid_incr(&after)) {
        stream_pel_iter it;
        stream_id id;
        stream_nack n;
        stream_pel_iter_init(&it, s, gid, cid, after, STREAM_ID_MAX);
        while ((count == 0 || (long long)ids.n < count) && stream_pel_iter_next(&it, &id, &n))
            ids_push(&ids, id);
    }
    reply_array(c, (long long)ids.n);
    for (size_t i = 0; i < ids.n; i++) {
        if (!stream_has(s, ids.v[i])) {
            reply_array(c, 2);
            stream_reply_id(c, ids.v[i]);
            reply_nil_array(c);
            continue;
        }
        reply_one_entry(c, s, ids.v[i]);
        stream_nack n;
        int ok = stream_pel_get(s, gid, ids.v[i], &n);
        assert(ok);
        (void)ok;
        n.delivery_time = now;
        n.delivery_count++;
        stream_pel_put(s, gid, ids.v[i], &n);
    }
    ids_free(&ids);
}

/* New entries for the group (">"): replied, the group's last id and
 * entries-read advanced, PEL entries given to the consumer unless NOACK;
 * each delivery propagated as XCLAIM, a NOACK read as XGROUP SETID. */
static void xrg_new(client *c, const xrg_args *a, const arg *k, obj *s, stream_group *g,
                    stream_consumer cons, int64_t now) {
    id_list ids = {0};
    stream_id start = g->last_id;
    stream_iter it;
    stream_id id;
    size_t nf;
    if (sid_incr(&start)) {
        stream_iter_init(&it, s, start, STREAM_ID_MAX, 0);
        while ((a->count == 0 || (long long)ids.n < a->count) && stream_iter_next(&it, &id, &nf))
            ids_push(&ids, id);
    }
    reply_array(c, (long long)ids.n);
    for (size_t i = 0; i < ids.n; i++) reply_one_entry(c, s, ids.v[i]);
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
            prop_xclaim_id(c, k, a->group, (stream_str){a->consumer->p, a->consumer->len}, id, &n,
                           g->last_id);
        }
    }
    stream_group_update(s, a->group->p, a->group->len, g);
    if (a->noack && advanced) prop_setid(c, k, a->group, g);
    ids_free(&ids);
}

/* Serves stream i (ready): [key, entries]. */
static void xrg_serve(client *c, const xrg_args *a, int i, int newonly, stream_id after,
                      int64_t now) {
    const arg *k = &c->argv[a->streams_arg + i];
    vt_wr w;
    vt_entry *e;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    assert(s);
    stream_group g;
    int ok = stream_group_get(s, a->group->p, a->group->len, &g);
    assert(ok);
    (void)ok;
    stream_consumer cons;
    if (consumer_touch(c, s, g.gid, k, a->consumer, now, &cons) && a->noack)
        prop_createconsumer(c, k, a->group, a->consumer);
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
    if (!xrg_ready(c, a, i, 1)) {
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
            reply_nogroup(c, k, a.group, " in XREADGROUP with GROUP option");
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
    int ready = 0;
    for (int i = 0; i < n; i++) ready += xrg_ready(c, &a, i, newonly[i]);
    if (ready) {
        int64_t now = wall_ms();
        if (c->resp == 2)
            reply_array(c, ready);
        else
            reply_map(c, ready);
        for (int i = 0; i < n; i++)
            if (xrg_ready(c, &a, i, newonly[i])) xrg_serve(c, &a, i, newonly[i], ids[i], now);
    } else if (a.block && block_allowed(c)) {
        block_on_streams(c, &c->argv[a.streams_arg], n, a.deadline, BLOCK_STREAM_GROUP);
    } else {
        reply_nil_array(c); /* nothing, or may not wait (MULTI): as on timeout */
    }
done:
    cmd_propagate_none(c);
    free(ids);
    free(newonly);
}

/* ---- XACK ---- */

void cmd_xack(client *c) {
    const arg *k = &c->argv[1], *gname = &c->argv[2];
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (wrong) return;
    stream_group g;
    if (!e || !stream_group_get(e->val, gname->p, gname->len, &g)) {
        reply_int(c, 0);
        return;
    }
    /* every id first: the command is all or nothing */
    int n = c->argc - 3;
    stream_id *ids = xmalloc((size_t)n * sizeof *ids);
    for (int j = 0; j < n; j++) {
        if (!stream_parse_id(c, &c->argv[3 + j], 0, 1, NULL, &ids[j])) {
            free(ids);
            return;
        }
    }
    long long acked = 0;
    vt_wr w;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    for (int j = 0; j < n; j++) acked += stream_pel_del(s, g.gid, ids[j]);
    stream_write_end(&w);
    free(ids);
    server_dirty(acked);
    reply_int(c, acked);
}

/* ---- XPENDING ---- */

static void xpending_summary(client *c, const obj *s, const stream_group *g) {
    uint64_t total = stream_group_pending(s, g->gid);
    reply_array(c, 4);
    reply_int(c, (long long)total);
    if (total == 0) {
        reply_null(c);
        reply_null(c);
        reply_nil_array(c);
        return;
    }
    stream_pel_iter it;
    stream_id first, last;
    stream_nack n;
    stream_pel_iter_init(&it, s, g->gid, STREAM_NO_CONSUMER, STREAM_ID_MIN, STREAM_ID_MAX);
    int ok = stream_pel_iter_next(&it, &first, &n);
    assert(ok);
    (void)ok;
    last = first;
    while (stream_pel_iter_next(&it, &last, &n)) {
    }
    stream_reply_id(c, first);
    stream_reply_id(c, last);
    /* the consumers with pending entries, in name order */
    long long with = 0;
    stream_consumer_iter ci;
    stream_str name;
    stream_consumer cons;
    stream_consumer_iter_init(&ci, s, g->gid);
    while (stream_consumer_iter_next(&ci, &name, &cons))
        if (stream_consumer_pending(s, g->gid, cons.cid)) with++;
    reply_array(c, with);
    stream_consumer_iter_init(&ci, s, g->gid);
    while (stream_consumer_iter_next(&ci, &name, &cons)) {
        uint64_t p = stream_consumer_pending(s, g->gid, cons.cid);
        if (!p) continue;
        reply_array(c, 2);
        reply_bulk(c, name.p, name.len);
        reply_bulk_ll(c, (long long)p);
    }
}

static void xpending_range(client *c, const obj *s, const stream_group *g, stream_id start,
                           stream_id end, long long count, long long minidle,
                           const arg *consumer) {
    uint64_t cid = STREAM_NO_CONSUMER;
    if (consumer) {
        stream_consumer cons;
        if (!stream_consumer_get(s, g->gid, consumer->p, consumer->len, &cons)) {
            reply_array(c, 0);
            return;
        }
        cid = cons.cid;
    }
    int64_t now = wall_ms();
    stream_pel_iter it;
    stream_id id;
    stream_nack n;
    long long matched = 0;
    if (sid_cmp(start, end) <= 0) {
        stream_pel_iter_init(&it, s, g->gid, cid, start, end);
        while (matched < count && stream_pel_iter_next(&it, &id, &n))
            if (!minidle || now - n.delivery_time >= minidle) matched++;
    }
    reply_array(c, matched);
    if (!matched) return;
    stream_pel_iter_init(&it, s, g->gid, cid, start, end);
    for (long long done = 0; done < matched && stream_pel_iter_next(&it, &id, &n);) {
        int64_t idle = now - n.delivery_time;
        if (minidle && idle < minidle) continue;
        done++;
        reply_array(c, 4);
        stream_reply_id(c, id);
        stream_str owner = owner_name(s, g->gid, n.cid);
        reply_bulk(c, owner.p, owner.len);
        reply_int(c, idle < 0 ? 0 : idle);
        reply_int(c, (long long)n.delivery_count);
    }
}

void cmd_xpending(client *c) {
    const arg *k = &c->argv[1], *gname = &c->argv[2];
    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        reply_syntax_error(c);
        return;
    }
    stream_id start = STREAM_ID_MIN, end = STREAM_ID_MAX;
    long long count = 0, minidle = 0;
    const arg *consumer = NULL;
    if (c->argc >= 6) {
        int at = 3;
        if (arg_is(&c->argv[3], "idle")) {
            if (!arg_ll(c, &c->argv[4], &minidle)) return;
            if (c->argc < 8) {
                reply_syntax_error(c);
                return;
            }
            at += 2;
        }
        if (!arg_ll(c, &c->argv[at + 2], &count)) return;
        if (count < 0) count = 0;
        if (!stream_parse_bound(c, &c->argv[at], 0, &start)) return;
        if (!stream_parse_bound(c, &c->argv[at + 1], 1, &end)) return;
        if (at + 3 < c->argc) consumer = &c->argv[at + 3];
    }
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (wrong) return;
    stream_group g;
    if (!e || !stream_group_get(e->val, gname->p, gname->len, &g)) {
        reply_nogroup(c, k, gname, "");
        return;
    }
    if (c->argc == 3)
        xpending_summary(c, e->val, &g);
    else
        xpending_range(c, e->val, &g, start, end, count, minidle, consumer);
}

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
            if (!arg_ll_msg(c, &c->argv[++j], "ERR Invalid IDLE option argument for XCLAIM", &v))
                return 0;
            o->delivery_time = now - v;
        } else if (arg_is(a, "time") && more) {
            if (!arg_ll_msg(c, &c->argv[++j], "ERR Invalid TIME option argument for XCLAIM", &v))
                return 0;
            o->delivery_time = v;
        } else if (arg_is(a, "retrycount") && more) {
            if (!arg_ll_msg(c, &c->argv[++j], "ERR Invalid RETRYCOUNT option argument for XCLAIM",
                            &v))
                return 0;
            o->retrycount = v;
        } else if (arg_is(a, "lastid") && more) {
            if (!stream_parse_id(c, &c->argv[++j], 0, 1, NULL, &o->lastid)) return 0;
            o->has_lastid = 1;
        } else {
            reply_errorf(c, "ERR Unrecognized XCLAIM option '%.*s'", clamp_len(a->len), a->p);
            return 0;
        }
    }
    return 1;
}

void cmd_xclaim(client *c) {
    const arg *k = &c->argv[1], *gname = &c->argv[2], *cname = &c->argv[3];
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (wrong) return;
    stream_group g;
    if (!e || !stream_group_get(e->val, gname->p, gname->len, &g)) {
        reply_nogroup(c, k, gname, "");
        return;
    }
    long long minidle;
    if (!arg_ll_msg(c, &c->argv[4], "ERR Invalid min-idle-time argument for XCLAIM", &minidle))
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
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    if (prop_last) stream_group_update(s, gname->p, gname->len, &g);
    id_list claimed = {0};
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
                prop_xclaim(c, k, gname, owner_name(s, g.gid, n.cid), &c->argv[j], &n,
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
            consumer_touch(c, s, g.gid, k, cname, now, &cons);
            have_cons = 1;
        }
        n.delivery_time = o.delivery_time;
        if (o.retrycount >= 0)
            n.delivery_count = (uint64_t)o.retrycount;
        else if (!o.justid)
            n.delivery_count++;
        n.cid = cons.cid;
        stream_pel_put(s, g.gid, id, &n);
        ids_push(&claimed, id);
        prop_xclaim(c, k, gname, (stream_str){cname->p, cname->len}, &c->argv[j], &n,
                    g.last_id);
        prop_last = 0;
        server_dirty(1);
    }
    if (prop_last) {
        prop_setid(c, k, gname, &g);
        server_dirty(1);
    }
    reply_array(c, (long long)claimed.n);
    for (size_t i = 0; i < claimed.n; i++) {
        if (o.justid)
            stream_reply_id(c, claimed.v[i]);
        else
            reply_one_entry(c, s, claimed.v[i]);
    }
    stream_write_end(&w);
    ids_free(&claimed);
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
    if (!arg_ll_msg(c, &c->argv[4], "ERR Invalid min-idle-time argument for XAUTOCLAIM",
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
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (wrong) return;
    stream_group g;
    if (!e || !stream_group_get(e->val, gname->p, gname->len, &g)) {
        reply_nogroup(c, k, gname, "");
        return;
    }
    vt_wr w;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    int64_t now = wall_ms();
    long long attempts = count * XAUTOCLAIM_ATTEMPTS;
    id_list claimed = {0}, deleted = {0};
    int have_cons = 0, more = 1;
    stream_consumer cons = {0, 0};
    stream_id id;
    stream_nack n;
    while (attempts-- > 0 && count > 0 && more && pel_first_from(s, g.gid, cur, &id, &n)) {
        cur = id;
        more = sid_incr(&cur);
        if (!stream_has(s, id)) {
            prop_xclaim_id(c, k, gname, owner_name(s, g.gid, n.cid), id, &n, g.last_id);
            server_dirty(1);
            stream_pel_del(s, g.gid, id);
            ids_push(&deleted, id);
            count--;
            continue;
        }
        if (minidle && now - n.delivery_time < minidle) continue;
        if (!have_cons) {
            consumer_touch(c, s, g.gid, k, cname, now, &cons);
            have_cons = 1;
        }
        n.delivery_time = now;
        if (!justid) n.delivery_count++;
        n.cid = cons.cid;
        stream_pel_put(s, g.gid, id, &n);
        ids_push(&claimed, id);
        count--;
        prop_xclaim_id(c, k, gname, (stream_str){cname->p, cname->len}, id, &n, g.last_id);
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
            reply_one_entry(c, s, claimed.v[i]);
    }
    reply_array(c, (long long)deleted.n);
    for (size_t i = 0; i < deleted.n; i++) stream_reply_id(c, deleted.v[i]);
    stream_write_end(&w);
    ids_free(&claimed);
    ids_free(&deleted);
    cmd_propagate_none(c);
}
