/* cmd_stream_info: XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO
 * CONSUMERS, XINFO HELP as Redis 7.0.15 replies them (RESP3 maps), with
 * the consumer groups' lag by 7.0's rules (stream_group_lag) and
 * radix-tree-nodes as the node count of the radix tree Redis would hold
 * for the stream's listpack nodes (stream_rax_nodes). Main thread only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "stream_cmd.h"
#include "util.h"

static const char *const xinfo_help[] = {
    "XINFO <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    "HELP",
    "    Prints this help.",
    NULL};

/* ---- radix-tree-nodes ---- */

/* Redis keys its listpacks by master id as 16 big-endian bytes (ms, seq). */
typedef struct rax_key {
    unsigned char b[16];
} rax_key;

static void be64(unsigned char *p, uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8) p[i] = (unsigned char)(v & 0xff);
}

static size_t common_prefix(const rax_key *a, const rax_key *b) {
    size_t i = 0;
    while (i < 16 && a->b[i] == b->b[i]) i++;
    return i;
}

static uint64_t rax_branch(const rax_key *k, size_t lo, size_t hi, size_t depth);

/* Nodes of the subtree at a node that starts at byte `depth` for the
 * sorted keys [lo, hi) sharing their first depth bytes: a key's end is a
 * node of its own; a run of bytes with one way on is one compressed node;
 * a byte with several ways on is one node with a child node per way. */
static uint64_t rax_sub(const rax_key *k, size_t lo, size_t hi, size_t depth) {
    if (depth == 16) return 1;
    size_t l = common_prefix(&k[lo], &k[hi - 1]);
    if (l == 16) return 2;                             /* compressed to the key's end */
    if (l > depth) return 1 + rax_branch(k, lo, hi, l); /* compressed to the fork */
    return rax_branch(k, lo, hi, depth);
}

static uint64_t rax_branch(const rax_key *k, size_t lo, size_t hi, size_t at) {
    uint64_t n = 1;
    for (size_t i = lo; i < hi;) {
        size_t j = i + 1;
        while (j < hi && k[j].b[at] == k[i].b[at]) j++;
        n += rax_sub(k, i, j, at + 1);
        i = j;
    }
    return n;
}

/* XINFO STREAM's radix-tree-nodes: the nodes of a compressed radix tree
 * (Redis's rax, its root included) holding the nodes' master ids. */
static uint64_t stream_rax_nodes(const obj *s) {
    uint64_t n = stream_node_count(s);
    if (n == 0) return 1;
    rax_key *k = xmalloc((size_t)n * sizeof *k);
    stream_node_iter it;
    stream_node nd;
    size_t i = 0;
    stream_node_iter_init(&it, s);
    while (i < n && stream_node_iter_next(&it, &nd)) {
        be64(k[i].b, nd.master_id.ms);
        be64(k[i].b + 8, nd.master_id.seq);
        i++;
    }
    uint64_t nodes = rax_sub(k, 0, i, 0);
    free(k);
    return nodes;
}

/* ---- replies ---- */

static void reply_field(client *c, const char *name) { reply_bulk_str(c, name); }

/* The first or last live entry, or a nil. */
static void reply_edge_entry(client *c, const obj *s, int last) {
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, last);
    if (stream_iter_next(&it, &id, &nf))
        stream_reply_entry(c, &it, id, nf);
    else
        reply_null(c);
}

static void reply_lag(client *c, const obj *s, const stream_group *g) {
    int64_t lag;
    if (stream_group_lag(s, g, &lag))
        reply_int(c, lag);
    else
        reply_null(c);
}

static void reply_entries_read(client *c, const stream_group *g) {
    if (g->entries_read != STREAM_ENTRIES_READ_INVALID)
        reply_int(c, g->entries_read);
    else
        reply_null(c);
}

/* The fields both forms of XINFO STREAM begin with. */
static void reply_stream_head(client *c, const obj *s) {
    const stream_meta *m = stream_meta_get(s);
    reply_field(c, "length");
    reply_int(c, (long long)m->length);
    reply_field(c, "radix-tree-keys");
    reply_int(c, (long long)stream_node_count(s));
    reply_field(c, "radix-tree-nodes");
    reply_int(c, (long long)stream_rax_nodes(s));
    reply_field(c, "last-generated-id");
    stream_reply_id(c, m->last_id);
    reply_field(c, "max-deleted-entry-id");
    stream_reply_id(c, m->max_deleted_id);
    reply_field(c, "entries-added");
    reply_int(c, (long long)m->entries_added);
    reply_field(c, "recorded-first-entry-id");
    stream_reply_id(c, m->first_id);
}

static uint64_t limited(uint64_t n, long long count) {
    return count > 0 && (uint64_t)count < n ? (uint64_t)count : n;
}

/* A consumer of XINFO STREAM FULL: name, seen-time, pel-count, pending. */
static void reply_full_consumer(client *c, const obj *s, uint64_t gid, stream_str name,
                                const stream_consumer *cons, long long count) {
    uint64_t pel = stream_consumer_pending(s, gid, cons->cid);
    reply_map(c, 4);
    reply_field(c, "name");
    reply_bulk(c, name.p, name.len);
    reply_field(c, "seen-time");
    reply_int(c, cons->seen_time);
    reply_field(c, "pel-count");
    reply_int(c, (long long)pel);
    reply_field(c, "pending");
    uint64_t n = limited(pel, count);
    reply_array(c, (long long)n);
    stream_pel_iter it;
    stream_id id;
    stream_nack nk;
    stream_pel_iter_init(&it, s, gid, cons->cid, STREAM_ID_MIN, STREAM_ID_MAX);
    for (uint64_t i = 0; i < n && stream_pel_iter_next(&it, &id, &nk); i++) {
        reply_array(c, 3);
        stream_reply_id(c, id);
        reply_int(c, nk.delivery_time);
        reply_int(c, (long long)nk.delivery_count);
    }
}

/* A group of XINFO STREAM FULL. */
static void reply_full_group(client *c, const obj *s, stream_str name, const stream_group *g,
                             long long count) {
    uint64_t pel = stream_group_pending(s, g->gid);
    reply_map(c, 7);
    reply_field(c, "name");
    reply_bulk(c, name.p, name.len);
    reply_field(c, "last-delivered-id");
    stream_reply_id(c, g->last_id);
    reply_field(c, "entries-read");
    reply_entries_read(c, g);
    reply_field(c, "lag");
    reply_lag(c, s, g);
    reply_field(c, "pel-count");
    reply_int(c, (long long)pel);
    reply_field(c, "pending");
    uint64_t n = limited(pel, count);
    reply_array(c, (long long)n);
    stream_pel_iter it;
    stream_id id;
    stream_nack nk;
    stream_pel_iter_init(&it, s, g->gid, STREAM_NO_CONSUMER, STREAM_ID_MIN, STREAM_ID_MAX);
    for (uint64_t i = 0; i < n && stream_pel_iter_next(&it, &id, &nk); i++) {
        stream_str owner;
        int ok = stream_consumer_name(s, g->gid, nk.cid, &owner);
        assert(ok);
        (void)ok;
        reply_array(c, 4);
        stream_reply_id(c, id);
        reply_bulk(c, owner.p, owner.len);
        reply_int(c, nk.delivery_time);
        reply_int(c, (long long)nk.delivery_count);
    }
    reply_field(c, "consumers");
    uint64_t ncons = 0;
    stream_consumer_iter ci;
    stream_str cname;
    stream_consumer cons;
    stream_consumer_iter_init(&ci, s, g->gid);
    while (stream_consumer_iter_next(&ci, &cname, &cons)) ncons++;
    reply_array(c, (long long)ncons);
    stream_consumer_iter_init(&ci, s, g->gid);
    while (stream_consumer_iter_next(&ci, &cname, &cons))
        reply_full_consumer(c, s, g->gid, cname, &cons, count);
}

static void xinfo_stream(client *c, const obj *s) {
    int full = 0;
    long long count = 10; /* FULL's default: the server is not blocked for long */
    if (c->argc > 3) {
        if (!arg_is(&c->argv[3], "full") || c->argc == 5 || c->argc > 6) {
            stream_reply_sub_syntax(c, "XINFO");
            return;
        }
        full = 1;
        if (c->argc == 6) {
            if (!arg_is(&c->argv[4], "count")) {
                stream_reply_sub_syntax(c, "XINFO");
                return;
            }
            if (!arg_ll(c, &c->argv[5], &count)) return;
            if (count < 0) count = 10;
        }
    }
    if (!full) {
        reply_map(c, 10);
        reply_stream_head(c, s);
        reply_field(c, "groups");
        reply_int(c, (long long)stream_group_count(s));
        reply_field(c, "first-entry");
        reply_edge_entry(c, s, 0);
        reply_field(c, "last-entry");
        reply_edge_entry(c, s, 1);
        return;
    }
    reply_map(c, 9);
    reply_stream_head(c, s);
    reply_field(c, "entries");
    stream_reply_range(c, s, STREAM_ID_MIN, STREAM_ID_MAX, (size_t)count, 0, NULL);
    reply_field(c, "groups");
    reply_array(c, (long long)stream_group_count(s));
    stream_group_iter gi;
    stream_str name;
    stream_group g;
    stream_group_iter_init(&gi, s);
    while (stream_group_iter_next(&gi, &name, &g)) reply_full_group(c, s, name, &g, count);
}

static void xinfo_groups(client *c, const obj *s) {
    reply_array(c, (long long)stream_group_count(s));
    stream_group_iter gi;
    stream_str name;
    stream_group g;
    stream_group_iter_init(&gi, s);
    while (stream_group_iter_next(&gi, &name, &g)) {
        uint64_t ncons = 0;
        stream_consumer_iter ci;
        stream_str cname;
        stream_consumer cons;
        stream_consumer_iter_init(&ci, s, g.gid);
        while (stream_consumer_iter_next(&ci, &cname, &cons)) ncons++;
        reply_map(c, 6);
        reply_field(c, "name");
        reply_bulk(c, name.p, name.len);
        reply_field(c, "consumers");
        reply_int(c, (long long)ncons);
        reply_field(c, "pending");
        reply_int(c, (long long)stream_group_pending(s, g.gid));
        reply_field(c, "last-delivered-id");
        stream_reply_id(c, g.last_id);
        reply_field(c, "entries-read");
        reply_entries_read(c, &g);
        reply_field(c, "lag");
        reply_lag(c, s, &g);
    }
}

static void xinfo_consumers(client *c, const obj *s) {
    const arg *k = &c->argv[2], *gname = &c->argv[3];
    stream_group g;
    if (!stream_group_get(s, gname->p, gname->len, &g)) {
        reply_errorf(c, "NOGROUP No such consumer group '%.*s' for key name '%.*s'",
                     (int)(gname->len > 1024 ? 1024 : gname->len), gname->p,
                     (int)(k->len > 1024 ? 1024 : k->len), k->p);
        return;
    }
    uint64_t n = 0;
    stream_consumer_iter ci;
    stream_str name;
    stream_consumer cons;
    stream_consumer_iter_init(&ci, s, g.gid);
    while (stream_consumer_iter_next(&ci, &name, &cons)) n++;
    reply_array(c, (long long)n);
    int64_t now = wall_ms();
    stream_consumer_iter_init(&ci, s, g.gid);
    while (stream_consumer_iter_next(&ci, &name, &cons)) {
        int64_t idle = now - cons.seen_time;
        reply_map(c, 3);
        reply_field(c, "name");
        reply_bulk(c, name.p, name.len);
        reply_field(c, "pending");
        reply_int(c, (long long)stream_consumer_pending(s, g.gid, cons.cid));
        reply_field(c, "idle");
        reply_int(c, idle < 0 ? 0 : idle);
    }
}

/* The dispatcher has resolved the subcommand (c->cmd) and checked its
 * arity. */
void cmd_xinfo(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, xinfo_help);
        return;
    }
    int wrong;
    vt_entry *e = stream_lookup(c, &c->argv[2], &wrong);
    if (wrong) return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (!strcmp(sub, "stream"))
        xinfo_stream(c, e->val);
    else if (!strcmp(sub, "groups"))
        xinfo_groups(c, e->val);
    else
        xinfo_consumers(c, e->val);
}
