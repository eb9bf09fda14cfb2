/* stream_cg: what the consumer-group commands share (cmd_stream_cg.c,
 * cmd_stream_readgroup.c, cmd_stream_claim.c; cmd_stream_cg_util.c):
 * Redis 7.0's NOGROUP text, the propagation forms of the group commands
 * (streamPropagateXCLAIM, streamPropagateGroupID,
 * streamPropagateConsumerCreation), consumers made on first use, small id
 * lists and the one-entry reply. Main thread only. */
#ifndef VERSO_STREAM_CG_H
#define VERSO_STREAM_CG_H

#include <stddef.h>
#include <stdint.h>

#include "stream_cmd.h"

/* A name's length as Redis's error texts print it (at most 1024). */
int cg_clamp_len(size_t len);
/* "NOGROUP No such key 'k' or consumer group 'g'<suffix>". */
void cg_reply_nogroup(client *c, const arg *k, const arg *g, const char *suffix);
/* The stream at k and its group gname (*g): NULL with the reply sent
 * (WRONGTYPE, or NOGROUP when the key or the group is missing). */
vt_entry *cg_lookup_group(client *c, const arg *k, const arg *gname, stream_group *g);
/* An integer argument, or the command's own error text (msg) replied. */
int cg_arg_ll(client *c, const arg *a, const char *msg, long long *out);

/* Propagates "XCLAIM key group consumer 0 id TIME t RETRYCOUNT n FORCE
 * JUSTID LASTID last": on a replica or at AOF load the PEL entry becomes
 * n (or goes, when the entry does not exist there either). id as given
 * (XCLAIM propagates its argument's text), or as a stream_id. */
void cg_prop_xclaim(client *c, const arg *key, const arg *group, stream_str consumer,
                    const arg *id, const stream_nack *n, stream_id last);
void cg_prop_xclaim_id(client *c, const arg *key, const arg *group, stream_str consumer,
                       stream_id id, const stream_nack *n, stream_id last);
/* Propagates "XGROUP SETID key group <last id> ENTRIESREAD <n>". */
void cg_prop_setid(client *c, const arg *key, const arg *group, const stream_group *g);
/* Propagates "XGROUP CREATECONSUMER key group consumer". */
void cg_prop_createconsumer(client *c, const arg *key, const arg *group, const arg *name);

/* The consumer `name` of group gid, created when missing (Redis's
 * streamCreateConsumer: the xgroup-createconsumer event, one change); its
 * seen_time becomes now either way. Returns 1 when it was created. */
int cg_consumer_touch(client *c, obj *s, uint64_t gid, const arg *key, const arg *name,
                      int64_t now, stream_consumer *out);
/* The name of a PEL entry's owner (t_stream keeps it). */
stream_str cg_owner_name(const obj *s, uint64_t gid, uint64_t cid);

/* A growable list of ids ({0} is empty). */
typedef struct cg_ids {
    stream_id *v;
    size_t n, cap;
} cg_ids;
void cg_ids_push(cg_ids *l, stream_id id);
void cg_ids_free(cg_ids *l);

/* Replies the live entry id (it exists) as [id, [f, v...]]. */
void cg_reply_entry(client *c, const obj *s, stream_id id);

#endif
