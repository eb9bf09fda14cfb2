/* cmd_stream_cg_util: what the consumer-group commands share
 * (stream_cg.h). Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "notify.h"
#include "stream_cg.h"
#include "stream_cmd.h"
#include "util.h"

int cg_clamp_len(size_t len) { return (int)(len > 1024 ? 1024 : len); }

/* "NOGROUP No such key 'k' or consumer group 'g'" (XPENDING, XCLAIM...). */
void cg_reply_nogroup(client *c, const arg *k, const arg *g, const char *suffix) {
    reply_errorf(c, "NOGROUP No such key '%.*s' or consumer group '%.*s'%s", cg_clamp_len(k->len),
                 k->p, cg_clamp_len(g->len), g->p, suffix);
}

vt_entry *cg_lookup_group(client *c, const arg *k, const arg *gname, stream_group *g) {
    int wrong;
    vt_entry *e = stream_lookup(c, k, &wrong);
    if (wrong) return NULL;
    if (!e || !stream_group_get(e->val, gname->p, gname->len, g)) {
        cg_reply_nogroup(c, k, gname, "");
        return NULL;
    }
    return e;
}

int cg_arg_ll(client *c, const arg *a, const char *msg, long long *out) {
    if (str_to_ll(a->p, a->len, out)) return 1;
    reply_error(c, msg);
    return 0;
}

static arg arg_of(const char *s) { return (arg){s, strlen(s)}; }

/* Propagates "XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE
 * JUSTID LASTID last": the replica's PEL entry becomes this one. */
void cg_prop_xclaim(client *c, const arg *key, const arg *group, stream_str consumer,
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
void cg_prop_xclaim_id(client *c, const arg *key, const arg *group, stream_str consumer,
                           stream_id id, const stream_nack *n, stream_id last) {
    char ibuf[STREAM_ID_STRMAX];
    arg ida = {ibuf, sid_format(ibuf, id)};
    cg_prop_xclaim(c, key, group, consumer, &ida, n, last);
}

/* Propagates "XGROUP SETID key group last ENTRIESREAD n". */
void cg_prop_setid(client *c, const arg *key, const arg *group, const stream_group *g) {
    char ibuf[STREAM_ID_STRMAX], ebuf[24];
    size_t il = sid_format(ibuf, g->last_id);
    int el = snprintf(ebuf, sizeof ebuf, "%lld", (long long)g->entries_read);
    arg v[7] = {arg_of("XGROUP"), arg_of("SETID"), *key, *group, {ibuf, il},
                arg_of("ENTRIESREAD"), {ebuf, (size_t)el}};
    cmd_propagate(c, 7, v);
}

/* Propagates "XGROUP CREATECONSUMER key group consumer". */
void cg_prop_createconsumer(client *c, const arg *key, const arg *group, const arg *name) {
    arg v[5] = {arg_of("XGROUP"), arg_of("CREATECONSUMER"), *key, *group, *name};
    cmd_propagate(c, 5, v);
}

/* The consumer `name` of group gid, created when missing (Redis's
 * streamCreateConsumer: the xgroup-createconsumer event, one change);
 * its seen_time becomes now either way. Returns 1 when it was created. */
int cg_consumer_touch(client *c, obj *s, uint64_t gid, const arg *key, const arg *name,
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
stream_str cg_owner_name(const obj *s, uint64_t gid, uint64_t cid) {
    stream_str name;
    int ok = stream_consumer_name(s, gid, cid, &name);
    assert(ok);
    (void)ok;
    return name;
}

void cg_ids_push(cg_ids *l, stream_id id) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = id;
}

void cg_ids_free(cg_ids *l) { free(l->v); }

/* Replies the live entry id (it exists) as [id, [f, v...]]. */
void cg_reply_entry(client *c, const obj *s, stream_id id) {
    stream_iter it;
    stream_id got;
    size_t nf;
    stream_iter_init(&it, s, id, id, 0);
    int ok = stream_iter_next(&it, &got, &nf);
    assert(ok);
    (void)ok;
    stream_reply_entry(c, &it, got, nf);
}

