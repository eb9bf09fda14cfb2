/* cmd_stream_cg: Redis 7.0's consumer-group management on the stream type:
 * XGROUP (CREATE SETID DESTROY CREATECONSUMER DELCONSUMER HELP), XACK and
 * XPENDING, with 7.0.15's replies, error texts in its order and keyspace
 * events. XREADGROUP is cmd_stream_readgroup.c, XCLAIM and XAUTOCLAIM
 * cmd_stream_claim.c, XINFO cmd_stream_info.c, their common parts
 * cmd_stream_cg_util.c (stream_cg.h). Main thread only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "notify.h"
#include "stream_cg.h"
#include "stream_cmd.h"
#include "util.h"

/* "NOGROUP No such consumer group 'g' for key name 'k'" (XGROUP). */
static void reply_nogroup_for_key(client *c, const arg *g, const arg *k) {
    reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'", cg_clamp_len(g->len),
                 g->p, cg_clamp_len(k->len), k->p);
}

/* An integer argument with the command's own error text. */
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

static void xgroup_create(client *c, const obj *rs, int64_t entries_read) {
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
    obj *s = rs ? stream_write_groups(c, k, &w, &e) : stream_write_begin(c, k, 1, &w, &e);
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
    obj *s = stream_write_groups(c, k, &w, &e);
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
    obj *s = stream_write_groups(c, k, &w, &e);
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
    obj *s = stream_write_groups(c, k, &w, &e);
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
    obj *s = stream_write_groups(c, k, &w, &e);
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
        xgroup_create(c, rs, entries_read);
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
    obj *s = stream_write_groups(c, k, &w, &e);
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
        stream_str owner = cg_owner_name(s, g->gid, n.cid);
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
    stream_group g;
    vt_entry *e = cg_lookup_group(c, k, gname, &g);
    if (!e) return;
    if (c->argc == 3)
        xpending_summary(c, e->val, &g);
    else
        xpending_range(c, e->val, &g, start, end, count, minidle, consumer);
}

