/* primary: the replicas of this server (see repl_int.h).
 *
 * Owns the replication stream: the propagation consumer encodes every
 * propagated command as RESP (with SELECT when the database changes) and
 * hands it to repl_feed, which appends it to the backlog and to every
 * replica past its cut. Owns PSYNC/SYNC (partial resync from the backlog,
 * else a full sync through fullsync.c), REPLCONF, WAIT, the min-replicas
 * gate, the pings into the stream, the replicas' timeouts, INFO's slaveN
 * lines and ROLE.
 *
 * A replica's stream is held, in its link's own buffer (held), while its
 * payload is sent and, after an EOF-marked payload, until its first
 * REPLCONF ACK (as Redis 7.0: the replica finds the end of such a payload
 * by its last bytes, so nothing may follow it at once). The held bytes are
 * kept out of c->reply so that the client is still read (net.c pauses
 * reading a client whose output passes NET_OBUF_PAUSE, which would keep
 * the releasing ACK out); client-output-buffer-limit replica is applied to
 * them here, as net.c applies it to c->reply.
 *
 * Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "pause.h"
#include "propagate.h"
#include "resp.h"
#include "util.h"
#include "fullsync_priv.h"
#include "repl_int.h"

/* A replica's (or a would-be replica's, after REPLCONF) state: c->repl. */
typedef struct plink {
    replica_link rl;          /* first: c->repl points at the plink */
    int rdb_only;             /* REPLCONF rdb-only 1: the payload, then close */
    int hold;                 /* its stream goes to `held`, not c->reply */
    int acked_payload;        /* an ACK came while its payload was in flight:
                                 the replica has it all (a replica acks only
                                 once it has loaded it), though the save's
                                 end has not reached the main thread yet */
    vbuf held;
    int64_t soft_since_ms;    /* held bytes over the soft limit since */
    int close_asap;           /* over the output limit: closed after the feed */
} plink;

typedef struct waiter {
    client *c;
    long long offset;         /* the stream offset its writes reached */
    long long numreplicas;
    int64_t deadline_ms;      /* mono ms, 0: none */
} waiter;

static struct {
    plink **v;                /* the replicas (CLIENT_REPLICA), oldest first */
    size_t n, cap;
    waiter *w;                /* clients blocked in WAIT */
    size_t nw, capw;
    int want_getack;          /* send REPLCONF GETACK before sleeping */
    int consumer_on;          /* the propagation consumer is registered */
    int64_t no_replicas_since_ms;
    int64_t last_ping_ms;
    vbuf enc;                 /* scratch: one command as RESP */
} P;

static plink *link_of(const client *c) {
    if (!c->repl || (c->flags & CLIENT_MASTER)) return NULL;
    return c->repl;
}

/* "ip:port" by its listening port, as Redis's replicationGetSlaveName. */
static const char *replica_name(const replica_link *rl, char *buf, size_t len) {
    if (rl->listening_port) snprintf(buf, len, "%s:%d", rl->ip, rl->listening_port);
    else snprintf(buf, len, "client id #%llu", (unsigned long long)rl->c->id);
    return buf;
}

static plink *link_get(client *c) {
    plink *pl = link_of(c);
    if (pl) return pl;
    pl = xcalloc(1, sizeof *pl);
    pl->rl.c = c;
    pl->rl.ack_ms = mono_ms();
    vbuf_init(&pl->held);
    /* the peer's address without its port ("127.0.0.1:5000", "[::1]:5000") */
    const char *colon = strrchr(c->addr, ':');
    size_t n = colon ? (size_t)(colon - c->addr) : strlen(c->addr);
    const char *ip = c->addr;
    if (n >= 2 && ip[0] == '[' && ip[n - 1] == ']') {
        ip++;
        n -= 2;
    }
    if (n >= sizeof pl->rl.ip) n = sizeof pl->rl.ip - 1;
    memcpy(pl->rl.ip, ip, n);
    pl->rl.ip[n] = '\0';
    c->repl = pl;
    return pl;
}

/* ---- the stream ---- */

static void consumer(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv);

/* The backlog and the consumer exist together: backlog_create and
 * backlog_free call it (a replica's backlog too: the consumer ignores
 * commands while server.upstream, and feeds the stream at once when a
 * promotion ends it). */
void primary_consumer_sync(void) {
    if (backlog_exists() && !P.consumer_on) {
        prop_add(consumer, NULL);
        P.consumer_on = 1;
    } else if (!backlog_exists() && P.consumer_on) {
        prop_remove(consumer, NULL);
        P.consumer_on = 0;
    }
}

static void encode(vbuf *b, int argc, const arg *argv) {
    resp_add_array(b, argc);
    for (int i = 0; i < argc; i++) resp_add_bulk(b, argv[i].p, argv[i].len);
}

/* The propagation consumer: every command that changed the dataset, with
 * SELECT first when its database is not the stream's. A replica proxies
 * its master's bytes instead (replica.c calls repl_feed). */
static void consumer(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv) {
    (void)priv;
    (void)d; /* the stream carries every command alike */
    if (server.upstream) {
        R.stream_db = -1; /* the master's bytes chose databases we did not track */
        return;
    }
    P.enc.len = 0;
    if (dbid != R.stream_db) {
        char num[24];
        int len = snprintf(num, sizeof num, "%d", dbid);
        arg sel[2] = {{"SELECT", 6}, {num, (size_t)len}};
        encode(&P.enc, 2, sel);
        R.stream_db = dbid;
    }
    encode(&P.enc, argc, argv);
    repl_feed(P.enc.data, P.enc.len);
    /* WAIT waits for the stream up to the client's own last write */
    if (server.current_client) server.current_client->woff = R.offset;
}

/* client-output-buffer-limit replica on the held stream plus c's output;
 * 1 when the replica must go (the log line is net.c's). */
static int held_over_limit(plink *pl) {
    const conf_obuf *lim = &server.cfg.obuf[CONF_OBUF_REPLICA];
    size_t used = pl->held.len + net_pending_output(pl->rl.c);
    int over = lim->hard && used >= (size_t)lim->hard;
    if (lim->soft && used >= (size_t)lim->soft) {
        int64_t now = mono_ms();
        if (!pl->soft_since_ms) pl->soft_since_ms = now;
        else if (now - pl->soft_since_ms >= lim->soft_seconds * 1000) over = 1;
    } else {
        pl->soft_since_ms = 0;
    }
    if (over) {
        log_warning("Client id=%llu addr=%s scheduled to be closed ASAP for overcoming of "
                    "output buffer limits.", (unsigned long long)pl->rl.c->id, pl->rl.c->addr);
        server.stat.obuf_disconnects++;
    }
    return over;
}

void repl_feed(const char *p, size_t n) {
    backlog_append(p, n);
    int closing = 0;
    for (size_t i = 0; i < P.n; i++) {
        plink *pl = P.v[i];
        client *c = pl->rl.c;
        if (pl->rl.state < RS_WAIT_BGSAVE_END || pl->rdb_only || pl->close_asap) continue;
        if (pl->hold) {
            vbuf_append(&pl->held, p, n);
            if (held_over_limit(pl)) closing = pl->close_asap = 1;
        } else {
            vbuf_append(&c->reply, p, n);
            net_want_write(c); /* net.c applies the output limit */
        }
    }
    R.offset += (long long)n;
    for (size_t i = P.n; closing && i-- > 0;)
        if (P.v[i]->close_asap) net_close_client(P.v[i]->rl.c);
}

/* The held stream goes out now. */
static void release(plink *pl) {
    client *c = pl->rl.c;
    pl->hold = 0;
    if (pl->held.len) {
        if (c->reply.len == 0) {
            vbuf t = c->reply;
            c->reply = pl->held;
            pl->held = t;
        } else {
            vbuf_append(&c->reply, pl->held.data, pl->held.len);
        }
        pl->held.len = 0;
    }
    vbuf_shrink(&pl->held, 0);
    net_want_write(c);
}

void primary_sync_cut(replica_link *rl) {
    plink *pl = (plink *)rl;
    rl->sync_offset = R.offset;
    R.stream_db = -1;
    rl->state = RS_WAIT_BGSAVE_END;
    pl->hold = 1;
}

void primary_sync_done(replica_link *rl, int ok, const char *why) {
    plink *pl = (plink *)rl;
    client *c = rl->c;
    char name[128];
    replica_name(rl, name, sizeof name);
    int eof = fullsync_target_eof(rl->target);
    rl->target = NULL; /* fullsync.c frees it with its save */
    if (!ok) {
        log_warning("Full synchronization with replica %s failed: %s", name, why);
        net_close_client(c);
        return;
    }
    if (pl->rdb_only) {
        log_notice("Synchronization with replica %s succeeded (rdb-only)", name);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        release(pl);
        return;
    }
    rl->state = RS_ONLINE;
    rl->ack_ms = mono_ms();
    if (eof && !pl->acked_payload) {
        log_notice("Streamed RDB transfer with replica %s succeeded (socket). Waiting for "
                   "REPLCONF ACK from replica to enable streaming", name);
    } else {
        log_notice("Synchronization with replica %s succeeded", name);
        release(pl);
    }
}

void primary_drop_replicas(void) {
    while (P.n) net_close_client(P.v[P.n - 1]->rl.c);
}

size_t primary_replica_count(void) { return P.n; }

const replica_link *primary_replica_at(size_t i) {
    assert(i < P.n);
    return &P.v[i]->rl;
}

size_t primary_buffered_bytes(void) {
    size_t n = 0;
    for (size_t i = 0; i < P.n; i++) n += P.v[i]->held.len + net_pending_output(P.v[i]->rl.c);
    return n;
}

/* ---- PSYNC, SYNC ---- */

static void replicas_add(plink *pl) {
    if (P.n == P.cap) {
        P.cap = P.cap ? P.cap * 2 : 4;
        P.v = xrealloc(P.v, P.cap * sizeof *P.v);
    }
    P.v[P.n++] = pl;
    pl->rl.c->flags |= CLIENT_REPLICA;
}

/* +CONTINUE: 1 when the replica's history is ours and the backlog holds
 * what it misses (PSYNC2: replid2 up to second_offset). */
static int try_partial(client *c, plink *pl) {
    const arg *id = &c->argv[1];
    long long offset;
    char name[128];
    replica_name(&pl->rl, name, sizeof name);
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &offset)) return 0;
    int ours = id->len == REPL_ID_LEN && !memcmp(id->p, R.replid, REPL_ID_LEN);
    int before = id->len == REPL_ID_LEN && !memcmp(id->p, R.replid2, REPL_ID_LEN) &&
                 offset <= R.second_offset;
    if (!ours && !before) {
        if (id->len != 1 || id->p[0] != '?') {
            if (id->len == REPL_ID_LEN && !memcmp(id->p, R.replid2, REPL_ID_LEN))
                log_notice("Partial resynchronization not accepted: Requested offset for "
                           "second ID was %lld, but I can reply up to %lld", offset,
                           R.second_offset);
            else
                log_notice("Partial resynchronization not accepted: Replication ID mismatch "
                           "(Replica asked for '%.*s', my replication IDs are '%s' and '%s')",
                           (int)id->len, id->p, R.replid, R.replid2);
        } else {
            log_notice("Full resync requested by replica %s", name);
        }
        return 0;
    }
    if (!backlog_covers(offset)) {
        log_notice("Unable to partial resync with replica %s for lack of backlog (Replica "
                   "request was: %lld).", name, offset);
        return 0;
    }
    pl->rl.state = RS_ONLINE;
    pl->rl.ack_ms = mono_ms();
    replicas_add(pl);
    if (pl->rl.capa_psync2) vbuf_appendf(&c->reply, "+CONTINUE %s\r\n", R.replid);
    else vbuf_append_str(&c->reply, "+CONTINUE\r\n");
    size_t before_len = c->reply.len;
    backlog_copy_from(offset, &c->reply);
    log_notice("Partial resynchronization request from %s accepted. Sending %zu bytes of "
               "backlog starting from offset %lld.", name, c->reply.len - before_len, offset);
    return 1;
}

/* PSYNC <replid> <offset> FAILOVER: our master hands over to us (its
 * FAILOVER); replid must be our master's history, which is ours. 0, or -1
 * when refused (answered). */
static int psync_failover(client *c) {
    if (c->argc <= 3 || !arg_is(&c->argv[3], "failover")) return 0;
    const arg *id = &c->argv[1];
    log_warning("Failover request received for replid %.*s.", (int)id->len, id->p);
    if (id->len != REPL_ID_LEN || memcmp(id->p, R.replid, REPL_ID_LEN) != 0) {
        reply_error(c, "ERR PSYNC FAILOVER replid must match my replid.");
        return -1;
    }
    if (server.upstream) {
        replica_promote();
        log_notice("MASTER MODE enabled (failover request from 'id=%llu addr=%s')",
                   (unsigned long long)c->id, c->addr);
    }
    return 0;
}

static void sync_command(client *c, int psync) {
    if (c->flags & (CLIENT_REPLICA | CLIENT_MASTER)) return; /* ignored, as Redis */
    if (psync && psync_failover(c) != 0) return;
    if (failover_state() != FO_NONE) {
        reply_error(c, "NOMASTERLINK Can't SYNC while failing over");
        return;
    }
    if (server.upstream && !replica_link_up()) {
        reply_error(c, "NOMASTERLINK Can't SYNC while not connected with my master");
        return;
    }
    if (net_pending_output(c) > 0 || c->writing) {
        reply_error(c, "ERR SYNC and PSYNC are invalid with pending output");
        return;
    }
    plink *pl = link_get(c);
    if (pl->rl.functions_only && !pl->rl.capa_eof) {
        /* a filtered payload is always sent diskless (it is no dump file) */
        reply_error(c, "ERR Filtered replica requires EOF capability");
        return;
    }
    char name[128];
    log_notice("Replica %s asks for synchronization", replica_name(&pl->rl, name, sizeof name));
    if (psync && try_partial(c, pl)) {
        server.stat.sync_partial_ok++;
        return;
    }
    /* PSYNC ? -1 asks for a full sync; any other PSYNC wanted a partial one */
    if (psync && !(c->argv[1].len == 1 && c->argv[1].p[0] == '?')) server.stat.sync_partial_err++;
    server.stat.sync_full++;
    pl->rl.old_sync = !psync;
    pl->rl.state = RS_WAIT_BGSAVE_START;
    pl->rl.ack_ms = mono_ms();
    replicas_add(pl);
    if (!backlog_exists()) {
        if (!server.upstream) { /* a new history: no past one is valid */
            repl_new_id(R.replid);
            memset(R.replid2, '0', REPL_ID_LEN);
            R.second_offset = -1;
        }
        backlog_create();
        R.stream_db = -1;
        log_notice("Replication backlog created, my new replication IDs are '%s' and '%s'",
                   R.replid, R.replid2);
    }
    fullsync_request(&pl->rl);
}

void cmd_psync(client *c) { sync_command(c, 1); }
void cmd_sync(client *c) { sync_command(c, 0); }

/* ---- REPLCONF ---- */

static void replconf_ack(client *c, const arg *a) {
    plink *pl = link_of(c);
    long long off;
    if (!pl || !(c->flags & CLIENT_REPLICA)) return;
    if (!str_to_ll(a->p, a->len, &off)) return;
    if (off > pl->rl.ack_offset) pl->rl.ack_offset = off;
    pl->rl.ack_ms = mono_ms();
    if (pl->rl.state == RS_ONLINE && pl->hold) release(pl);
    else if (pl->rl.state == RS_WAIT_BGSAVE_END) pl->acked_payload = 1;
}

/* REPLCONF rdb-filter-only "<filter> ...": what the payload includes, its
 * words split as Redis's sdssplitargs; the one filter is "functions" (the
 * libraries, no keys); "" is no filter. 0, or -1 when refused (answered). */
static int rdb_filter_only(client *c, plink *pl, const arg *val) {
    char *word = xmalloc(val->len + 1);
    size_t pos = 0, len = 0;
    int n = 0, rc;
    while ((rc = split_word(val->p, val->len, &pos, word, &len)) == 1) {
        arg w = {word, len};
        if (!arg_is(&w, "functions")) {
            reply_errorf(c, "ERR Unsupported rdb-filter-only option: %.*s", (int)len, word);
            free(word);
            return -1;
        }
        n++;
        len = 0;
    }
    free(word);
    if (rc < 0) {
        reply_error(c, "ERR Missing rdb-filter-only values");
        return -1;
    }
    pl->rl.functions_only = n > 0;
    return 0;
}

void cmd_replconf(client *c) {
    if (c->argc % 2 == 0) {
        reply_syntax_error(c);
        return;
    }
    for (int j = 1; j < c->argc; j += 2) {
        const arg *opt = &c->argv[j], *val = &c->argv[j + 1];
        if (arg_is(opt, "listening-port")) {
            long long port;
            if (!arg_ll(c, val, &port)) return;
            link_get(c)->rl.listening_port = (int)port;
        } else if (arg_is(opt, "ip-address")) {
            plink *pl = link_get(c);
            if (val->len >= sizeof pl->rl.ip) {
                reply_errorf(c, "ERR REPLCONF ip-address provided by replica instance is too "
                                "long: %zu bytes", val->len);
                return;
            }
            memcpy(pl->rl.ip, val->p, val->len);
            pl->rl.ip[val->len] = '\0';
        } else if (arg_is(opt, "capa")) {
            plink *pl = link_get(c);
            if (arg_is(val, "eof")) pl->rl.capa_eof = 1;
            else if (arg_is(val, "psync2")) pl->rl.capa_psync2 = 1;
        } else if (arg_is(opt, "ack")) {
            replconf_ack(c, val); /* no reply, as Redis */
            return;
        } else if (arg_is(opt, "getack")) {
            if (c->flags & CLIENT_MASTER) replica_getack(c);
            return;
        } else if (arg_is(opt, "rdb-filter-only")) {
            if (rdb_filter_only(c, link_get(c), val) != 0) return;
        } else if (arg_is(opt, "rdb-only")) {
            long long v;
            if (!arg_ll(c, val, &v)) return;
            if (v != 0 && v != 1) {
                reply_error(c, "ERR value is out of range, must be positive");
                return;
            }
            link_get(c)->rdb_only = (int)v;
        } else {
            reply_errorf(c, "ERR Unrecognized REPLCONF option: %.*s", (int)opt->len, opt->p);
            return;
        }
    }
    reply_ok(c);
}

/* ---- WAIT ---- */

static long long acks_at(long long offset) {
    long long n = 0;
    for (size_t i = 0; i < P.n; i++)
        if (P.v[i]->rl.state == RS_ONLINE && P.v[i]->rl.ack_offset >= offset) n++;
    return n;
}

void cmd_wait(client *c) {
    if (server.upstream) {
        reply_error(c, "ERR WAIT cannot be used with replica instances. Please also note that "
                       "since Redis 4.0 if a replica is configured to be writable (which is not "
                       "the default) writes to replicas are just local and are not propagated.");
        return;
    }
    long long num, timeout;
    if (!arg_ll(c, &c->argv[1], &num)) return;
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &timeout)) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return;
    }
    if (timeout < 0) {
        reply_error(c, "ERR timeout is negative");
        return;
    }
    long long acked = acks_at(c->woff);
    if (acked >= num || !block_allowed(c)) {
        reply_int(c, acked);
        return;
    }
    if (P.nw == P.capw) {
        P.capw = P.capw ? P.capw * 2 : 4;
        P.w = xrealloc(P.w, P.capw * sizeof *P.w);
    }
    P.w[P.nw++] = (waiter){c, c->woff, num, timeout ? mono_ms() + timeout : 0};
    c->flags |= CLIENT_BLOCKED; /* its further input waits (net.c) */
    P.want_getack = 1;
}

static void waiter_remove(size_t i) {
    P.w[i] = P.w[--P.nw];
}

/* Answers the WAITs that have their acks or whose time is up. They are
 * taken off the list first: running a resumed client's next commands may
 * close or block other clients (which changes the list). */
static void serve_waiters(void) {
    int64_t now = mono_ms();
    size_t n = 0;
    client **ready = NULL;
    for (size_t i = P.nw; i-- > 0;) {
        waiter w = P.w[i];
        long long acked = acks_at(w.offset);
        if (acked < w.numreplicas && (!w.deadline_ms || now < w.deadline_ms)) continue;
        waiter_remove(i);
        reply_int(w.c, acked);
        w.c->flags &= ~CLIENT_BLOCKED;
        ready = xrealloc(ready, (n + 1) * sizeof *ready);
        ready[n++] = w.c;
    }
    for (size_t i = 0; i < n; i++) {
        client *c = ready[i];
        net_want_write(c);
        if (c->flags & CLIENT_CLOSING) continue; /* freed on a later iteration */
        net_skip_pending(c);
        net_process_input(c);
        net_update_reading(c);
    }
    free(ready);
}

/* ---- the gate, INFO, ROLE ---- */

static long long good_replicas(void) {
    int64_t now = mono_ms();
    long long n = 0;
    for (size_t i = 0; i < P.n; i++)
        if (P.v[i]->rl.state == RS_ONLINE &&
            (now - P.v[i]->rl.ack_ms) / 1000 <= server.cfg.min_replicas_max_lag)
            n++;
    return n;
}

static const char *noreplicas_gate(const client *c, const cmd_def *d) {
    if (!server.cfg.min_replicas_to_write || !server.cfg.min_replicas_max_lag ||
        server.upstream || (c->flags & CLIENT_MASTER))
        return NULL;
    if (!(d->flags & CMD_WRITE) && !multi_exec_writes(c, d)) return NULL;
    if (good_replicas() >= server.cfg.min_replicas_to_write) return NULL;
    return "NOREPLICAS Not enough good replicas to write.";
}

static const char *state_name(const replica_link *rl) {
    if (rl->state == RS_ONLINE) return "online";
    if (rl->state == RS_WAIT_BGSAVE_END && fullsync_target_sending(rl->target)) return "send_bulk";
    return "wait_bgsave";
}

void primary_info(vbuf *b) {
    vbuf_appendf(b, "connected_slaves:%zu\r\n", P.n);
    if (server.cfg.min_replicas_to_write && server.cfg.min_replicas_max_lag)
        vbuf_appendf(b, "min_slaves_good_slaves:%lld\r\n", good_replicas());
    int64_t now = mono_ms();
    for (size_t i = 0; i < P.n; i++) {
        const replica_link *rl = &P.v[i]->rl;
        vbuf_appendf(b, "slave%zu:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", i, rl->ip,
                     rl->listening_port, state_name(rl), rl->ack_offset,
                     (long long)((now - rl->ack_ms) / 1000));
    }
}

void primary_role(client *c) {
    size_t online = 0;
    for (size_t i = 0; i < P.n; i++) online += P.v[i]->rl.state == RS_ONLINE;
    reply_array(c, 3);
    reply_bulk_str(c, "master");
    reply_int(c, R.offset);
    reply_array(c, (long long)online);
    for (size_t i = 0; i < P.n; i++) {
        const replica_link *rl = &P.v[i]->rl;
        if (rl->state != RS_ONLINE) continue;
        reply_array(c, 3);
        reply_bulk_str(c, rl->ip);
        reply_bulk_ll(c, rl->listening_port);
        reply_bulk_ll(c, rl->ack_offset);
    }
}

/* ---- the loop ---- */

static void send_getack(void) {
    static const char getack[] = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n";
    P.want_getack = 0;
    if (!server.upstream && P.n) repl_feed(getack, sizeof getack - 1);
}

static void before_sleep(void) {
    if (P.want_getack) send_getack();
    if (P.nw) serve_waiters();
}

/* Replicas silent (no ACK) for repl-timeout go, as Redis's replicationCron;
 * a payload in flight has its own limit (fullsync.c). */
static void drop_timed_out(int64_t now) {
    for (size_t i = P.n; i-- > 0;) {
        plink *pl = P.v[i];
        if (pl->rl.state != RS_ONLINE || pl->rl.old_sync) continue;
        if (now - pl->rl.ack_ms <= (int64_t)server.cfg.repl_timeout * 1000) continue;
        char name[128];
        log_warning("Disconnecting timedout replica (streaming sync): %s",
                    replica_name(&pl->rl, name, sizeof name));
        net_close_client(pl->rl.c);
    }
}

static void cron(void) {
    int64_t now = mono_ms();
    /* no pings while a FAILOVER with a TIMEOUT waits (as Redis 7.0): the
     * target must reach our offset */
    if (P.n && !server.upstream && !failover_holds_pings() &&
        now - P.last_ping_ms >= (int64_t)server.cfg.repl_ping_replica_period * 1000) {
        static const char ping[] = "*1\r\n$4\r\nPING\r\n";
        P.last_ping_ms = now;
        repl_feed(ping, sizeof ping - 1);
    }
    drop_timed_out(now);
    if (!P.n && backlog_exists() && !server.upstream && server.cfg.repl_backlog_ttl &&
        now - P.no_replicas_since_ms > (int64_t)server.cfg.repl_backlog_ttl * 1000) {
        repl_new_id(R.replid);
        memset(R.replid2, '0', REPL_ID_LEN);
        R.second_offset = -1;
        backlog_free();
        log_notice("Replication backlog freed after %d seconds without connected replicas.",
                   server.cfg.repl_backlog_ttl);
    }
    fullsync_cron();
}

static int reply_held(const client *c) {
    const plink *pl = link_of(c);
    return pl && (pl->hold || pl->rl.state == RS_WAIT_BGSAVE_END);
}

static void client_closed(client *c) {
    for (size_t i = 0; i < P.nw; i++)
        if (P.w[i].c == c) {
            waiter_remove(i);
            break;
        }
    plink *pl = link_of(c);
    if (!pl) return;
    if (pl->rl.target) fullsync_drop(&pl->rl);
    for (size_t i = 0; i < P.n; i++) {
        if (P.v[i] != pl) continue;
        memmove(&P.v[i], &P.v[i + 1], (P.n - i - 1) * sizeof *P.v);
        P.n--;
        char name[128];
        log_notice("Connection with replica %s lost.", replica_name(&pl->rl, name, sizeof name));
        if (!P.n) P.no_replicas_since_ms = mono_ms();
        break;
    }
    vbuf_free(&pl->held);
    free(pl);
    c->repl = NULL;
}

/* ---- shutdown ---- */

static int lagging_replicas(void) {
    int n = 0;
    for (size_t i = 0; i < P.n; i++) n += P.v[i]->rl.ack_offset != R.offset;
    return n;
}

/* A shutdown waits while a replica has not acked the whole stream; at its
 * start the replicas are asked for an ack (unless writes are paused
 * already, as Redis: the stream then stays as it is). */
static int shutdown_wait(int start) {
    if (!lagging_replicas()) return 0;
    if (start && pause_kind() == PAUSE_OFF) send_getack();
    return 1;
}

/* As the shutdown proceeds: which replicas did not get the whole stream. */
static int prepare_shutdown(int nosave, int save, char *err, size_t errlen) {
    (void)nosave;
    (void)save;
    (void)err;
    (void)errlen;
    int64_t now = mono_ms();
    for (size_t i = 0; i < P.n; i++) {
        const replica_link *rl = &P.v[i]->rl;
        if (rl->ack_offset == R.offset) continue;
        char name[128];
        log_warning("Lagging replica %s reported offset %lld behind master, lag=%lld, state=%s.",
                    replica_name(rl, name, sizeof name), R.offset - rl->ack_offset,
                    rl->state == RS_ONLINE ? (long long)((now - rl->ack_ms) / 1000) : 0LL,
                    state_name(rl));
    }
    if (P.n)
        log_notice("%zu of %zu replicas are in sync when shutting down.",
                   P.n - (size_t)lagging_replicas(), P.n);
    return 0;
}

static int config_changed(const conf *old, const conf *now, const char *name, char *err,
                          size_t errlen) {
    (void)err;
    (void)errlen;
    if (!strcmp(name, "repl-backlog-size") && old->repl_backlog_size != now->repl_backlog_size)
        backlog_resize(now->repl_backlog_size);
    return 0;
}

static const hooks primary_hooks = {
    .name = "replication (primary)",
    .client_gate = noreplicas_gate,
    .cron = cron,
    .before_sleep = before_sleep,
    .reply_held = reply_held,
    .client_closed = client_closed,
    .config_changed = config_changed,
    .shutdown_wait = shutdown_wait,
    .prepare_shutdown = prepare_shutdown,
};

void primary_backlog_restored(void) { P.no_replicas_since_ms = mono_ms(); }

void primary_init(void) {
    vbuf_init(&P.enc);
    P.no_replicas_since_ms = P.last_ping_ms = mono_ms(); /* first ping a period in */
    hooks_register(&primary_hooks);
}
