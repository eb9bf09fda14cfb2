/* pubsub: channels, patterns and shard channels as Redis 7.0 (arrays
 * under RESP2, push messages under RESP3): PUBLISH SUBSCRIBE PSUBSCRIBE
 * UNSUBSCRIBE PUNSUBSCRIBE PUBSUB SPUBLISH SSUBSCRIBE SUNSUBSCRIBE, the
 * subscribed-context gate and the CLIENT_PUBSUB flag (which puts a
 * subscriber in the pubsub class of client-output-buffer-limit).
 *
 * Three namespaces (channels, patterns, shard channels), each a table from
 * name to the subscribers in subscription order (global), and per client a
 * table of its own names per namespace (c->pubsub). PUBLISH appends the
 * message to every receiver's reply buffer; a receiver whose pending output
 * passes the pubsub class's hard limit is closed once the delivery is over
 * (as Redis checks the limit on every reply), the soft limit is net.c's.
 * Main thread only. */
#include "pubsub.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "net.h"
#include "notify.h"
#include "resp.h"
#include "util.h"

/* ---- a table of binary names (chained, doubled at load 1) ---- */

typedef struct ps_node {
    struct ps_node *next;
    uint64_t h;
    client **subs; /* global tables: subscribers in order; NULL per client */
    size_t nsubs, cap;
    size_t len;
    char name[];
} ps_node;

typedef struct ps_map {
    ps_node **b;
    size_t nb, n;
    size_t bytes; /* of its nodes (names included) */
} ps_map;

static uint64_t ps_hash(const char *p, size_t len) { return XXH3_64bits(p, len); }

static ps_node *map_find(const ps_map *m, const char *p, size_t len) {
    if (!m->nb) return NULL;
    uint64_t h = ps_hash(p, len);
    for (ps_node *n = m->b[h & (m->nb - 1)]; n; n = n->next)
        if (n->h == h && n->len == len && !memcmp(n->name, p, len)) return n;
    return NULL;
}

static void map_grow(ps_map *m) {
    size_t nb = m->nb ? m->nb * 2 : 16;
    ps_node **b = xcalloc(nb, sizeof *b);
    for (size_t i = 0; i < m->nb; i++) {
        for (ps_node *n = m->b[i], *next; n; n = next) {
            next = n->next;
            n->next = b[n->h & (nb - 1)];
            b[n->h & (nb - 1)] = n;
        }
    }
    free(m->b);
    m->b = b;
    m->nb = nb;
}

/* Adds a name known to be absent. */
static ps_node *map_add(ps_map *m, const char *p, size_t len) {
    if (m->n >= m->nb) map_grow(m);
    ps_node *n = xcalloc(1, sizeof *n + len + 1);
    n->h = ps_hash(p, len);
    n->len = len;
    memcpy(n->name, p, len);
    m->bytes += sizeof *n + len + 1;
    n->next = m->b[n->h & (m->nb - 1)];
    m->b[n->h & (m->nb - 1)] = n;
    m->n++;
    return n;
}

static void map_del(ps_map *m, ps_node *node) {
    ps_node **pp = &m->b[node->h & (m->nb - 1)];
    while (*pp != node) pp = &(*pp)->next;
    *pp = node->next;
    m->n--;
    m->bytes -= sizeof *node + node->len + 1;
    free(node->subs);
    free(node);
    if (m->n == 0) { /* an idle server keeps no buckets */
        free(m->b);
        m->b = NULL;
        m->nb = 0;
    }
}

/* ---- namespaces ---- */

enum { PS_CHAN = 0, PS_PAT = 1, PS_SHARD = 2, PS_KINDS = 3 };

typedef struct pubsub_state {
    ps_map mine[PS_KINDS]; /* the client's names per kind */
} pubsub_state;

static ps_map all[PS_KINDS]; /* name -> subscribers */

/* Names of the replies per kind. */
static const char *const sub_word[PS_KINDS] = {"subscribe", "psubscribe", "ssubscribe"};
static const char *const unsub_word[PS_KINDS] = {"unsubscribe", "punsubscribe", "sunsubscribe"};

static size_t count_of(const client *c, int kind) {
    return c->pubsub ? c->pubsub->mine[kind].n : 0;
}

/* The count a (un)subscribe reply carries: channels + patterns, or shard
 * channels alone, as Redis 7.0. */
static long long reply_count(const client *c, int kind) {
    if (kind == PS_SHARD) return (long long)count_of(c, PS_SHARD);
    return (long long)(count_of(c, PS_CHAN) + count_of(c, PS_PAT));
}

static void update_flag(client *c) {
    if (count_of(c, PS_CHAN) + count_of(c, PS_PAT) + count_of(c, PS_SHARD))
        c->flags |= CLIENT_PUBSUB;
    else
        c->flags &= ~CLIENT_PUBSUB;
}

void pubsub_counts(const client *c, size_t *sub, size_t *psub, size_t *ssub) {
    *sub = count_of(c, PS_CHAN);
    *psub = count_of(c, PS_PAT);
    *ssub = count_of(c, PS_SHARD);
}

size_t pubsub_client_mem(const client *c) {
    if (!c->pubsub) return 0;
    size_t n = sizeof *c->pubsub;
    for (int k = 0; k < PS_KINDS; k++)
        n += c->pubsub->mine[k].bytes + c->pubsub->mine[k].nb * sizeof(ps_node *);
    return n;
}

void pubsub_each_name(const client *c, void (*fn)(void *priv, int pattern, const char *p,
                                                  size_t len), void *priv) {
    if (!c->pubsub) return;
    for (int k = 0; k < PS_KINDS; k++) {
        const ps_map *m = &c->pubsub->mine[k];
        for (size_t i = 0; i < m->nb; i++)
            for (const ps_node *n = m->b[i]; n; n = n->next) fn(priv, k == PS_PAT, n->name, n->len);
    }
}

void pubsub_stats(size_t *channels, size_t *patterns, size_t *shard_channels) {
    *channels = all[PS_CHAN].n;
    *patterns = all[PS_PAT].n;
    *shard_channels = all[PS_SHARD].n;
}

static void reply_subscribed(client *c, int kind, const char *word, const char *p, size_t len) {
    reply_push(c, 3);
    reply_bulk_str(c, word);
    if (p) reply_bulk(c, p, len);
    else reply_nil(c);
    reply_int(c, reply_count(c, kind));
}

static void subscribe_one(client *c, int kind, const char *p, size_t len) {
    if (!c->pubsub) c->pubsub = xcalloc(1, sizeof *c->pubsub);
    ps_map *mine = &c->pubsub->mine[kind];
    if (!map_find(mine, p, len)) {
        map_add(mine, p, len);
        ps_node *g = map_find(&all[kind], p, len);
        if (!g) g = map_add(&all[kind], p, len);
        if (g->nsubs == g->cap) {
            g->cap = g->cap ? g->cap * 2 : 4;
            g->subs = xrealloc(g->subs, g->cap * sizeof *g->subs);
        }
        g->subs[g->nsubs++] = c;
    }
    reply_subscribed(c, kind, sub_word[kind], p, len);
}

/* Drops c from the subscribers of name p (kind); 1 when it was one. Keeps
 * the order of the others. */
static int unsubscribe_one(client *c, int kind, const char *p, size_t len, int notify) {
    ps_node *n = c->pubsub ? map_find(&c->pubsub->mine[kind], p, len) : NULL;
    if (n) {
        ps_node *g = map_find(&all[kind], p, len);
        assert(g); /* every name a client holds is in the global table */
        size_t i = 0;
        while (i < g->nsubs && g->subs[i] != c) i++;
        assert(i < g->nsubs);
        memmove(g->subs + i, g->subs + i + 1, (g->nsubs - i - 1) * sizeof *g->subs);
        if (--g->nsubs == 0) map_del(&all[kind], g);
        /* the reply names the channel after it is gone from the count */
        char *name = xmalloc(len + 1);
        memcpy(name, p, len);
        map_del(&c->pubsub->mine[kind], n);
        if (notify) reply_subscribed(c, kind, unsub_word[kind], name, len);
        free(name);
        return 1;
    }
    if (notify) reply_subscribed(c, kind, unsub_word[kind], p, len);
    return 0;
}

/* UNSUBSCRIBE with no argument: every name of the kind, or one reply with
 * a nil name when there is none. */
static void unsubscribe_all(client *c, int kind, int notify) {
    ps_map *mine = c->pubsub ? &c->pubsub->mine[kind] : NULL;
    if (!mine || mine->n == 0) {
        if (notify) reply_subscribed(c, kind, unsub_word[kind], NULL, 0);
        return;
    }
    /* bucket by bucket (one pass, not a scan per name); the last removal
     * frees the buckets (nb = 0), which ends both loops */
    for (size_t b = 0; b < mine->nb; b++) {
        while (mine->nb && mine->b[b]) {
            ps_node *n = mine->b[b];
            unsubscribe_one(c, kind, n->name, n->len, notify);
        }
    }
}

void pubsub_client_closed(client *c) {
    if (!c->pubsub) return;
    for (int k = 0; k < PS_KINDS; k++) unsubscribe_all(c, k, 0);
    free(c->pubsub);
    c->pubsub = NULL;
    c->flags &= ~CLIENT_PUBSUB;
}

/* ---- delivery ---- */

/* A receiver whose output passed the hard limit is closed before the loop
 * sleeps (net_close_asap), not now: closing unsubscribes and unblocks, which
 * must not happen while this walk, or a command serving blocked clients,
 * goes over the lists it is in. It gets nothing more meanwhile. */
static void check_limit(client *c) {
    long long hard = server.cfg.obuf[CONF_OBUF_PUBSUB].hard;
    if (!(c->flags & CLIENT_PUBSUB) || !hard || net_pending_output(c) < (size_t)hard) return;
    log_warning("Client id=%llu addr=%s scheduled to be closed ASAP for overcoming of "
                "output buffer limits.", (unsigned long long)c->id, c->addr);
    server.stat.obuf_disconnects++;
    net_close_asap(c);
}

static void deliver(client *to, const char *kindword, const ps_node *pat, const char *ch,
                    size_t clen, const char *msg, size_t mlen) {
    if (to->flags & CLIENT_CLOSE_ASAP) return;
    reply_push(to, pat ? 4 : 3);
    reply_bulk_str(to, kindword);
    if (pat) reply_bulk(to, pat->name, pat->len);
    reply_bulk(to, ch, clen);
    reply_bulk(to, msg, mlen);
    net_want_write(to);
    check_limit(to);
}

static long long publish_kind(int kind, const char *ch, size_t clen, const char *msg,
                              size_t mlen) {
    long long receivers = 0;
    ps_node *g = map_find(&all[kind], ch, clen);
    for (size_t i = 0; g && i < g->nsubs; i++, receivers++)
        deliver(g->subs[i], kind == PS_SHARD ? "smessage" : "message", NULL, ch, clen, msg,
                mlen);
    if (kind == PS_CHAN) {
        const ps_map *pm = &all[PS_PAT];
        for (size_t b = 0; b < pm->nb; b++) {
            for (ps_node *p = pm->b[b]; p; p = p->next) {
                if (!glob_match(p->name, p->len, ch, clen, 0)) continue;
                for (size_t i = 0; i < p->nsubs; i++, receivers++)
                    deliver(p->subs[i], "pmessage", p, ch, clen, msg, mlen);
            }
        }
    }
    return receivers;
}

long long pubsub_publish(const char *channel, size_t clen, const char *msg, size_t mlen) {
    return publish_kind(PS_CHAN, channel, clen, msg, mlen);
}

long long pubsub_publish_shard(const char *channel, size_t clen, const char *msg, size_t mlen) {
    return publish_kind(PS_SHARD, channel, clen, msg, mlen);
}

static pubsub_cluster_fn *cluster_publish; /* cluster/gossip.c's, in cluster mode */

void pubsub_set_cluster_publish(pubsub_cluster_fn *fn) { cluster_publish = fn; }

/* Where a published message goes beyond this node: the cluster bus in
 * cluster mode (a call out to cluster/), else the replication stream. */
static void publish_onward(client *c, int shard) {
    if (cluster_publish)
        cluster_publish(shard, c->argv[1].p, c->argv[1].len, c->argv[2].p, c->argv[2].len);
    else
        cmd_propagate_message(c, c->argc, c->argv);
}

/* ---- the subscribed context ---- */

/* RESP2: a subscribed client may only (un)subscribe, PING, QUIT or RESET;
 * a RESP3 one may run anything (replies and pushes are told apart). */
static const char *subscribed_gate(const client *c, const cmd_def *d) {
    static char err[256];
    if (!(c->flags & CLIENT_PUBSUB) || c->resp > 2) return NULL;
    const char *n = d->parent ? d->parent->name : d->name;
    static const char *const ok[] = {"subscribe", "psubscribe", "ssubscribe", "unsubscribe",
                                     "punsubscribe", "sunsubscribe", "ping", "quit", "reset",
                                     NULL};
    for (size_t i = 0; ok[i]; i++)
        if (!strcmp(n, ok[i])) return NULL;
    snprintf(err, sizeof err,
             "ERR Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / "
             "RESET are allowed in this context",
             d->fullname);
    return err;
}

static const hooks pubsub_hooks = {.name = "pubsub", .client_gate = subscribed_gate};

void pubsub_init(void) {
    hooks_register(&pubsub_hooks);
    notify_register(notify_pubsub_consumer, NULL); /* keyspace events */
}

/* ---- commands ---- */

static void subscribe_cmd(client *c, int kind) {
    for (int j = 1; j < c->argc; j++) subscribe_one(c, kind, c->argv[j].p, c->argv[j].len);
    update_flag(c);
}

static void unsubscribe_cmd(client *c, int kind) {
    if (c->argc == 1) unsubscribe_all(c, kind, 1);
    for (int j = 1; j < c->argc; j++) unsubscribe_one(c, kind, c->argv[j].p, c->argv[j].len, 1);
    update_flag(c);
}

/* SUBSCRIBE runs inside EXEC as in Redis (a legacy it keeps); SSUBSCRIBE
 * does not. */
void cmd_subscribe(client *c) { subscribe_cmd(c, PS_CHAN); }
void cmd_psubscribe(client *c) { subscribe_cmd(c, PS_PAT); }
void cmd_unsubscribe(client *c) { unsubscribe_cmd(c, PS_CHAN); }
void cmd_punsubscribe(client *c) { unsubscribe_cmd(c, PS_PAT); }
void cmd_sunsubscribe(client *c) { unsubscribe_cmd(c, PS_SHARD); }

void cmd_ssubscribe(client *c) {
    if (c->flags & CLIENT_MULTI) {
        reply_error(c, "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
        return;
    }
    subscribe_cmd(c, PS_SHARD);
}

/* PUBLISH changes no key but goes to replicas as Redis propagates it (so
 * that their subscribers, Sentinel's hello included, hear it), not to the
 * AOF (a message); in cluster mode the bus carries it instead. */
void cmd_publish(client *c) {
    long long n = publish_kind(PS_CHAN, c->argv[1].p, c->argv[1].len, c->argv[2].p,
                               c->argv[2].len);
    publish_onward(c, 0);
    reply_int(c, n);
}

void cmd_spublish(client *c) {
    long long n = publish_kind(PS_SHARD, c->argv[1].p, c->argv[1].len, c->argv[2].p,
                               c->argv[2].len);
    publish_onward(c, 1);
    reply_int(c, n);
}

/* ---- PUBSUB ---- */

static void reply_names(client *c, int kind, const arg *pattern) {
    const ps_map *m = &all[kind];
    size_t n = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) reply_array(c, (long long)n);
        for (size_t b = 0; b < m->nb; b++) {
            for (const ps_node *e = m->b[b]; e; e = e->next) {
                if (pattern && !glob_match(pattern->p, pattern->len, e->name, e->len, 0))
                    continue;
                if (pass) reply_bulk(c, e->name, e->len);
                else n++;
            }
        }
    }
}

static void reply_numsub(client *c, int kind) {
    reply_array(c, (long long)(c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        const ps_node *e = map_find(&all[kind], c->argv[j].p, c->argv[j].len);
        reply_bulk(c, c->argv[j].p, c->argv[j].len);
        reply_int(c, e ? (long long)e->nsubs : 0);
    }
}

static const char *const pubsub_help[] = {
    "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CHANNELS [<pattern>]",
    "    Return the currently active channels matching a <pattern> (default: '*').",
    "NUMPAT",
    "    Return number of subscriptions to patterns.",
    "NUMSUB [<channel> ...]",
    "    Return the number of subscribers for the specified channels, excluding",
    "    pattern subscriptions(default: no channels).",
    "SHARDCHANNELS [<pattern>]",
    "    Return the currently active shard level channels matching a <pattern> (default: '*').",
    "SHARDNUMSUB [<shardchannel> ...]",
    "    Return the number of subscribers for the specified shard level channel(s)",
    "HELP",
    "    Prints this help.",
    NULL};

/* The dispatcher resolved the subcommand (c->cmd) and checked its arity. */
void cmd_pubsub(client *c) {
    const char *sub = c->cmd->name;
    if ((!strcmp(sub, "channels") || !strcmp(sub, "shardchannels")) && c->argc > 3) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try PUBSUB HELP.", (int)c->argv[1].len, c->argv[1].p);
    } else if (!strcmp(sub, "channels")) {
        reply_names(c, PS_CHAN, c->argc == 3 ? &c->argv[2] : NULL);
    } else if (!strcmp(sub, "shardchannels")) {
        reply_names(c, PS_SHARD, c->argc == 3 ? &c->argv[2] : NULL);
    } else if (!strcmp(sub, "numsub")) {
        reply_numsub(c, PS_CHAN);
    } else if (!strcmp(sub, "shardnumsub")) {
        reply_numsub(c, PS_SHARD);
    } else if (!strcmp(sub, "numpat")) {
        reply_int(c, (long long)all[PS_PAT].n); /* unique patterns, as Redis 7.0 */
    } else {
        assert(!strcmp(sub, "help"));
        cmd_reply_help(c, pubsub_help);
    }
}
