/* route: the redirection decision of cluster mode (Redis 7.0's
 * getNodeByQuery), its error texts, the gate that applies it on the command
 * path, and ASKING / READONLY / READWRITE. See route.h. Main thread only. */
#include "route.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "hooks.h"
#include "keyslot.h"
#include "multi.h"
#include "util.h"

/* ---- the decision ---- */

/* What the walk over a query's keys found. */
typedef struct walk {
    const arg *first;        /* the first key, NULL when none yet */
    unsigned slot;
    const cluster_node *owner;
    int migrating, importing; /* the slot is in transition on this node */
    int multiple_keys;        /* more than one distinct key */
    int missing_keys;         /* keys of a slot in transition absent here */
    int shard_channels;       /* a shard pub/sub command is in the query */
} walk;

static int same_key(const arg *a, const arg *b) {
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

/* Adds one key (or shard channel) to the walk; the verdict when it ends
 * the decision (unbound slot, cross slot), else ROUTE_OK. */
static route_verdict walk_key(walk *w, const route_query *q, const arg *key) {
    unsigned slot = key_hash_slot(key->p, key->len);
    if (!w->first) {
        w->first = key;
        w->slot = slot;
        w->owner = cluster_slot_owner(slot);
        if (!w->owner) return ROUTE_DOWN_UNBOUND;
        if (w->owner == cluster_myself() && cluster_slot_migrating_to(slot)) w->migrating = 1;
        else if (cluster_slot_importing_from(slot)) w->importing = 1;
    } else if (!same_key(w->first, key)) {
        if (slot != w->slot) return ROUTE_CROSSSLOT;
        w->multiple_keys = 1;
    }
    if ((w->migrating || w->importing) && !q->key_exists(q->priv, key->p, key->len))
        w->missing_keys++;
    return ROUTE_OK;
}

static route_verdict walk_cmd(walk *w, const route_query *q, const route_cmd *rc) {
    for (int j = 0; j < rc->d->nkey_specs; j++)
        if (rc->d->key_specs[j].flags & KS_NOT_KEY) w->shard_channels = 1;
    cmd_keyrefs keys;
    memset(&keys, 0, sizeof keys);
    cmd_get_keys_and_shard_channels(rc->d, rc->argc, rc->argv, &keys);
    route_verdict v = ROUTE_OK;
    for (size_t k = 0; k < keys.n && v == ROUTE_OK; k++)
        v = walk_key(w, q, &rc->argv[keys.v[k].pos]);
    cmd_keys_free(&keys);
    return v;
}

/* Cluster down with keys: served only when reads are allowed (shard
 * channels: when pub/sub is) and this is a read. */
static route_verdict down_verdict(const walk *w, const route_query *q) {
    if (w->shard_channels)
        return server.cfg.compat.cluster_allow_pubsubshard_when_down ? ROUTE_OK : ROUTE_DOWN_STATE;
    if (!server.cfg.compat.cluster_allow_reads_when_down) return ROUTE_DOWN_STATE;
    return q->write ? ROUTE_DOWN_RO_STATE : ROUTE_OK;
}

route_verdict route_decide(const route_query *q, unsigned *slot, const cluster_node **node) {
    walk w;
    memset(&w, 0, sizeof w);
    *node = NULL;
    *slot = 0;
    for (size_t i = 0; i < q->n; i++) {
        route_verdict v = walk_cmd(&w, q, &q->cmds[i]);
        if (v != ROUTE_OK) return v;
    }
    if (!w.first) return ROUTE_OK; /* no keys: any node serves it */
    *slot = w.slot;
    if (!cluster_state_ok()) {
        route_verdict v = down_verdict(&w, q);
        if (v != ROUTE_OK) return v;
    }
    /* MIGRATE moves keys of a slot in transition from here */
    if ((w.migrating || w.importing) && q->migrate) return ROUTE_OK;
    if (w.migrating && w.missing_keys) {
        *node = cluster_slot_migrating_to(w.slot);
        return ROUTE_ASK;
    }
    if (w.importing && q->asking) return w.multiple_keys && w.missing_keys ? ROUTE_TRYAGAIN : ROUTE_OK;
    /* a READONLY client (or shard pub/sub) on a replica of the owner reads */
    const cluster_node *me = cluster_myself();
    if ((q->readonly || w.shard_channels) && !q->write && cluster_node_primary(me) == w.owner)
        return ROUTE_OK;
    if (w.owner == me) return ROUTE_OK;
    *node = w.owner;
    return ROUTE_MOVED;
}

void route_error_text(route_verdict v, unsigned slot, const cluster_node *n, int tls, char *buf,
                      size_t cap) {
    assert(v != ROUTE_OK);
    const char *text = NULL;
    switch (v) {
    case ROUTE_MOVED:
    case ROUTE_ASK: {
        assert(n);
        char ep[300];
        cluster_node_redirect_endpoint(n, tls, ep, sizeof ep);
        snprintf(buf, cap, "%s %u %s", v == ROUTE_MOVED ? "MOVED" : "ASK", slot, ep);
        return;
    }
    case ROUTE_TRYAGAIN: text = "TRYAGAIN Multiple keys request during rehashing of slot"; break;
    case ROUTE_CROSSSLOT: text = "CROSSSLOT Keys in request don't hash to the same slot"; break;
    case ROUTE_DOWN_STATE: text = "CLUSTERDOWN The cluster is down"; break;
    case ROUTE_DOWN_RO_STATE:
        text = "CLUSTERDOWN The cluster is down and only accepts read commands";
        break;
    case ROUTE_DOWN_UNBOUND: text = "CLUSTERDOWN Hash slot not served"; break;
    case ROUTE_OK: break;
    }
    snprintf(buf, cap, "%s", text);
}

/* ---- the gate ---- */

static int key_exists_db0(void *priv, const char *key, size_t len) {
    (void)priv;
    return db_lookup_read_notouch(db_get(0), key, len) != NULL;
}

/* EXEC's queue gathered into route_cmds. */
typedef struct queue {
    route_cmd *v;
    size_t n, cap;
} queue;

static void queue_add(void *priv, const cmd_def *d, int argc, const arg *argv) {
    queue *qu = priv;
    if (qu->n == qu->cap) {
        qu->cap = qu->cap ? qu->cap * 2 : 8;
        qu->v = xrealloc(qu->v, qu->cap * sizeof *qu->v);
    }
    qu->v[qu->n++] = (route_cmd){d, argc, argv};
}

/* As Redis's processCommand: not for our master nor the AOF's loader (its
 * commands run before the cluster's state is known), nor for a command without
 * keys (or shard channels) other than EXEC. EXEC is routed with all its
 * queued commands' keys; a redirect while queuing fails the EXEC. */
static const char *route_gate(const client *c, const cmd_def *d) {
    static char err[400];
    if (!cluster_enabled() || (c->flags & (CLIENT_MASTER | CLIENT_LOADER))) return NULL;
    /* a slot import's link writes the slots it brings (slotmig_dst.c) */
    if (cluster_import_link(c)) return NULL;
    /* only c's own command line (scripts ask the gates with stand-ins:
     * a "set" for a script that writes, the commands it calls) */
    if (!c->cmd || c->cmd->proc != d->proc || !cmd_arity_ok(d, c->argc)) return NULL;
    int exec = d->proc == cmd_exec;
    if (!exec && d->nkey_specs == 0 && !d->getkeys) return NULL;
    if (exec && !(c->flags & CLIENT_MULTI)) return NULL; /* EXEC answers its error */
    route_cmd one = {d, c->argc, c->argv};
    queue qu = {0};
    route_query q = {.cmds = &one, .n = 1, .key_exists = key_exists_db0};
    if (exec) {
        multi_for_each_queued(c, queue_add, &qu);
        q.cmds = qu.v;
        q.n = qu.n;
    }
    /* d's flags are cmd_flags_of's (a script's own); EXEC writes when a
     * queued command does */
    q.write = (d->flags & CMD_WRITE) || (exec && (multi_queued_flags(c) & CMD_WRITE));
    q.asking = (c->flags & CLIENT_ASKING) || (d->flags & CMD_ASKING);
    q.readonly = (c->flags & CLIENT_READONLY) != 0;
    q.migrate = d->name && strcmp(d->name, "migrate") == 0;
    unsigned slot;
    const cluster_node *n;
    route_verdict v = route_decide(&q, &slot, &n);
    free(qu.v);
    if (v == ROUTE_OK) return NULL;
    route_error_text(v, slot, n, c->tls != NULL, err, sizeof err);
    return err;
}

/* Redis 7.0's scriptVerifyClusterState: a command a script calls must be
 * served here, with the caller's ASKING and READONLY; not for our master
 * nor a file being loaded. Keyless commands pass, as in getNodeByQuery. */
static const char *route_script_call(const client *caller, const cmd_def *d, int argc,
                                     const arg *argv) {
    if (!cluster_enabled() || (caller->flags & (CLIENT_MASTER | CLIENT_LOADER))) return NULL;
    if (d->nkey_specs == 0 && !d->getkeys) return NULL;
    route_cmd one = {d, argc, argv};
    route_query q = {.cmds = &one, .n = 1, .key_exists = key_exists_db0};
    q.write = (d->flags & CMD_WRITE) != 0;
    q.asking = (caller->flags & CLIENT_ASKING) != 0;
    q.readonly = (caller->flags & CLIENT_READONLY) != 0;
    q.migrate = d->name && strcmp(d->name, "migrate") == 0;
    unsigned slot;
    const cluster_node *n;
    switch (route_decide(&q, &slot, &n)) {
    case ROUTE_OK: return NULL;
    case ROUTE_DOWN_RO_STATE:
        return "Script attempted to execute a write command while the cluster is down and "
               "readonly";
    case ROUTE_DOWN_STATE: return "Script attempted to execute a command while the cluster is down";
    default: return "Script attempted to access a non local key in a cluster node";
    }
}

static void cmd_asking(client *c);

/* ASKING lasts one command (outside MULTI), as Redis's resetClient. */
static void route_after_command(client *c, const cmd_def *d) {
    if (!(c->flags & CLIENT_MULTI) && d->proc != cmd_asking) c->flags &= ~CLIENT_ASKING;
}

/* ---- ASKING, READONLY, READWRITE ---- */

static int cluster_mode_or_error(client *c) {
    if (cluster_enabled()) return 1;
    reply_error(c, "ERR This instance has cluster support disabled");
    return 0;
}

static void cmd_asking(client *c) {
    if (!cluster_mode_or_error(c)) return;
    c->flags |= CLIENT_ASKING;
    reply_ok(c);
}

static void cmd_readonly(client *c) {
    if (!cluster_mode_or_error(c)) return;
    c->flags |= CLIENT_READONLY;
    reply_ok(c);
}

static void cmd_readwrite(client *c) {
    if (!cluster_mode_or_error(c)) return;
    c->flags &= ~CLIENT_READONLY;
    reply_ok(c);
}

static cmd_def route_cmds[] = {
    {.name = "asking", .proc = cmd_asking, .arity = 1, .flags = CMD_FAST,
     .acl = CAT_FAST | CAT_CONNECTION, .group = "cluster", .since = "3.0.0",
     .summary = "Sent by cluster clients after an -ASK redirect", .complexity = "O(1)"},
    {.name = "readonly", .proc = cmd_readonly, .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "cluster", .since = "3.0.0",
     .summary = "Enables read queries for a connection to a cluster replica node",
     .complexity = "O(1)"},
    {.name = "readwrite", .proc = cmd_readwrite, .arity = 1,
     .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "cluster", .since = "3.0.0",
     .summary = "Disables read queries for a connection to a cluster replica node",
     .complexity = "O(1)"},
};

/* Redis 7.0's clusterRedirectBlockedClientIfNeeded, for every client
 * blocked on keys (BLPOP, BZPOPMIN, XREAD BLOCK...): when the cluster is
 * down, or the keys' slot is no longer served here (nor imported), the
 * client is unblocked with -CLUSTERDOWN or -MOVED, as the write that
 * would serve it may never come here. A READONLY client blocked on a read
 * stays on the replica of the slot's owner. Run by the cron (10 times a
 * second by default): Redis checks in clientsCron, every client within
 * about a second. */
static void route_blocked_cron(void) {
    if (!cluster_enabled() || block_blocked_clients() == 0) return;
    const cluster_node *me = cluster_myself();
    for (client *c = server.clients; c; c = c->next) {
        size_t len;
        int writes;
        const char *key = block_first_key(c, &len, &writes);
        if (!key) continue;
        char err[400];
        if (!cluster_state_ok()) {
            route_error_text(ROUTE_DOWN_STATE, 0, NULL, 0, err, sizeof err);
            block_unblock_error(c, err);
            continue;
        }
        unsigned slot = key_hash_slot(key, len);
        const cluster_node *owner = cluster_slot_owner(slot);
        if ((c->flags & CLIENT_READONLY) && !writes && owner && cluster_node_primary(me) == owner)
            owner = me;
        if (owner == me || cluster_slot_importing_from(slot)) continue;
        route_error_text(owner ? ROUTE_MOVED : ROUTE_DOWN_UNBOUND, slot, owner, c->tls != NULL, err,
                         sizeof err);
        block_unblock_error(c, err);
    }
}

static const hooks route_hooks = {
    .name = "cluster route",
    .cron = route_blocked_cron,
    .client_gate = route_gate,
    .script_call_gate = route_script_call,
    .after_command = route_after_command,
};

void route_init(void) {
    cmd_register(route_cmds, sizeof route_cmds / sizeof route_cmds[0]);
    hooks_register(&route_hooks);
}
