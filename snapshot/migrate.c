/* migrate: MIGRATE, as Redis 7.0 answers it (its cluster.c:
 * migrateCommand, migrateGetSocket, migrateCloseTimedoutSockets), without
 * stalling the server.
 *
 * The keys found go to the target as RESTORE commands (RESTORE-ASKING in
 * cluster mode, as Redis sends them) carrying their DUMP payloads, after
 * AUTH and SELECT when needed, over a connection kept for the next MIGRATE
 * to the same host:port (at most MIGRATE_CACHE of them, closed after
 * MIGRATE_IDLE_S seconds unused, as Redis's migrate_cached_sockets).
 *
 * Redis does all of it on its main thread, blocking: every other client
 * waits for the whole transfer. Here the main thread only starts it
 * (cmd_migrate): it takes a reference to each key's value and notes its
 * remaining TTL, hands the job to a thread of its own (migrate_io.h: the
 * connect, AUTH, SELECT, the serialization of each value, the writes and
 * the replies, each bounded by the timeout) and blocks the caller (its
 * connection waits; the loop goes on). When the thread ends, the main
 * thread finishes (on_done): the keys the target acknowledged are deleted
 * (unless COPY) and propagated as one DEL, the caller gets Redis's reply,
 * the connection goes back to the cache. Inside MULTI/EXEC or a script,
 * where the caller cannot block, the same job runs on the main thread, as
 * in Redis (so does it for the master link, and when no thread can
 * start). The deleted values' last references go to the lazyfree thread.
 *
 * Meanwhile a command that could write one of the keys being migrated is
 * parked (mig_before_command) and dispatched again, in arrival order,
 * when a MIGRATE ends (parked again while another still holds its key):
 * one naming such a key
 * (any db), and every write whose keys are not all known beforehand
 * (FLUSHALL, FLUSHDB, SWAPDB, a script or an EXEC that may write). Reads
 * run. So the key a MIGRATE deletes is the value it sent; a key that
 * expiry or eviction removed meanwhile is not deleted again (its DEL went
 * with the expiry).
 *
 * Threads: everything here is main thread only but mig_worker, which runs
 * mig_run on the op's job and nothing else. The job crosses to the worker
 * at pthread_create (filled before, read-only for the main thread after)
 * and back at pthread_join (in on_done, woken by uv_async_send); the
 * values cross as references (obj.h: immutable while shared). */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl.h"
#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "dump_payload.h"
#include "hooks.h"
#include "lazyfree.h"
#include "log.h"
#include "migrate_io.h"
#include "multi.h"
#include "net.h"
#include "notify.h"
#include "rdb.h"
#include "util.h"

#define MIGRATE_CACHE 64    /* Redis's MIGRATE_SOCKET_CACHE_ITEMS */
#define MIGRATE_IDLE_S 10   /* Redis's MIGRATE_SOCKET_CACHE_TTL */

/* ---- the connection cache (main thread only) ---- */

typedef struct cached_conn {
    char *name;         /* "host:port" as given; NULL: a free slot */
    int fd;
    tls_conn *tls;      /* its TLS session (tls-cluster), else NULL */
    long long last_db;  /* the target's selected db, -1 unknown */
    int64_t last_use_ms;
} cached_conn;

static cached_conn cache[MIGRATE_CACHE];

static size_t cache_count(void) {
    size_t n = 0;
    for (int i = 0; i < MIGRATE_CACHE; i++) n += cache[i].name != NULL;
    return n;
}

static void cache_drop(cached_conn *cc) {
    close(cc->fd);
    tls_free(cc->tls);
    free(cc->name);
    *cc = (cached_conn){0};
}

static cached_conn *cache_find(const char *name) {
    for (int i = 0; i < MIGRATE_CACHE; i++)
        if (cache[i].name && !strcmp(cache[i].name, name)) return &cache[i];
    return NULL;
}

/* Takes name's connection out of the cache for a job (it is the job's
 * until the job ends): its fd, session and db, or -1. A connection made
 * with TLS serves only a TLS job, and a plain one a plain job (tls-cluster
 * changed meanwhile): the other kind is dropped. */
static int cache_take(const char *name, int tls, tls_conn **sess, long long *last_db) {
    cached_conn *cc = cache_find(name);
    *last_db = -1;
    *sess = NULL;
    if (!cc) return -1;
    if ((cc->tls != NULL) != (tls != 0)) {
        cache_drop(cc);
        return -1;
    }
    int fd = cc->fd;
    *sess = cc->tls;
    *last_db = cc->last_db;
    free(cc->name);
    *cc = (cached_conn){0};
    return fd;
}

/* A job's connection comes back (a full cache drops one at random, as
 * Redis; a job to the same target that ended first keeps its place, this
 * one is closed). */
static void cache_put(const char *name, int fd, tls_conn *tls, long long last_db) {
    if (cache_find(name)) {
        close(fd);
        tls_free(tls);
        return;
    }
    if (cache_count() == MIGRATE_CACHE) cache_drop(&cache[random() % MIGRATE_CACHE]);
    cached_conn *cc = cache;
    while (cc->name) cc++;
    *cc = (cached_conn){xstrdup(name), fd, tls, last_db, mono_ms()};
}

/* Cron: connections unused for MIGRATE_IDLE_S seconds are closed. */
static void migrate_cron(void) {
    int64_t now = mono_ms();
    for (int i = 0; i < MIGRATE_CACHE; i++)
        if (cache[i].name && now - cache[i].last_use_ms > MIGRATE_IDLE_S * 1000)
            cache_drop(&cache[i]);
}

/* ---- the MIGRATEs in flight and the commands they park (main thread) ---- */

/* Bits of an op's key filter: a write looks at the keys themselves only
 * when its key's bit is set, so that a MIGRATE of many keys costs other
 * writes one hash each. */
#define MIG_FILTER_WORDS 64
#define MIG_FILTER_BIT(h) ((h) % (MIG_FILTER_WORDS * 64))

typedef struct mig_op {
    mig_job job;              /* the worker's between pthread_create and
                                 pthread_join; the main thread's otherwise */
    char name[300];           /* "host:port": the cache's name */
    client *c;                /* the caller; NULL once it closed */
    int db;                   /* the caller's db */
    int copy;
    uint64_t filter[MIG_FILTER_WORDS]; /* a bit per key hash (key_migrating) */
    pthread_t thread;
    uv_async_t *done;         /* the worker's wake-up (data: the op); its
                                 own allocation, freed when closed */
    struct mig_op *next;      /* ops: the MIGRATEs in flight */
} mig_op;

static struct {
    mig_op *ops;              /* in flight, with a worker */
    client **parked;          /* parked writers, in arrival order (NULL:
                                 closed) */
    size_t nparked, capparked;
    client **resuming;        /* the list resume_parked walks (NULL:
                                 done or closed) */
    size_t nresuming;
    uint64_t parked_total;    /* INFO's migrate_parked_total */
    uint64_t streamed_total;  /* INFO's migrate_streamed_payloads */
} M;

/* 1 when a MIGRATE in flight holds a key named k (whatever its db). */
static int key_migrating(const char *k, size_t len) {
    uint64_t bit = MIG_FILTER_BIT(vt_hash(k, len));
    for (const mig_op *op = M.ops; op; op = op->next) {
        if (!(op->filter[bit / 64] >> (bit % 64) & 1)) continue;
        for (int i = 0; i < op->job.nkeys; i++)
            if (op->job.keys[i].len == len && !memcmp(op->job.keys[i].name, k, len)) return 1;
    }
    return 0;
}

static int is_script(const cmd_def *d) {
    return d->proc == cmd_eval || d->proc == cmd_evalsha || d->proc == cmd_eval_ro ||
           d->proc == cmd_evalsha_ro || d->proc == cmd_fcall || d->proc == cmd_fcall_ro;
}

/* Whether d, run by c now, could write a key a MIGRATE in flight holds:
 * a write naming one; a write whose keys are not all in its argv (no
 * keys: FLUSHALL, FLUSHDB, SWAPDB; a script; EXEC of writes). */
static int may_touch_migrating(const client *c, const cmd_def *d) {
    int flags = cmd_flags_of(d, c->argc, c->argv) | multi_exec_flags(c, d);
    /* a script (one EXEC queued) that may write carries may-replicate
     * rather than write (cmd_flags_of); PUBLISH's alone does not count */
    int open_ended = is_script(d) || d->proc == cmd_exec;
    if (open_ended && (flags & (CMD_WRITE | CMD_MAY_REPLICATE))) return 1;
    if (!(flags & CMD_WRITE)) return 0;
    if (!cmd_has_keys(d)) return 1;
    cmd_keyrefs refs = {0};
    cmd_get_keys(d, c->argc, c->argv, &refs);
    int hit = 0;
    for (size_t i = 0; i < refs.n && !hit; i++) {
        const arg *k = &c->argv[refs.v[i].pos];
        hit = key_migrating(k->p, k->len);
    }
    cmd_keys_free(&refs);
    return hit;
}

/* The before_command hook: parks c's command (CLIENT_BLOCKED: its input
 * waits, it is still read) while it could write a key being migrated. Not
 * the server's own clients (the loader, a script's: the script itself was
 * parked or not as a whole) nor one without a connection; a command the
 * checks refuse at once (arity, authentication) is answered now, as
 * CLIENT PAUSE does. O(1) while no MIGRATE is in flight. */
static int mig_before_command(client *c, const cmd_def *d) {
    if (!M.ops || (c->flags & (CLIENT_LOADER | CLIENT_SCRIPT)) || c->tcp.data != c) return 0;
    if (!cmd_arity_ok(d, c->argc) || (acl_auth_required(c) && !(d->flags & CMD_NOAUTH)))
        return 0;
    if (!may_touch_migrating(c, d)) return 0;
    if (M.nparked == M.capparked) {
        M.capparked = M.capparked ? M.capparked * 2 : 8;
        M.parked = xrealloc(M.parked, M.capparked * sizeof *M.parked);
    }
    M.parked[M.nparked++] = c;
    M.parked_total++;
    c->lastcmd = d; /* CLIENT LIST's cmd= shows what waits */
    c->flags |= CLIENT_BLOCKED;
    return 1;
}

/* A MIGRATE ended: every parked command is dispatched again, in arrival
 * order (one that still touches a MIGRATE in flight parks again, in the
 * same order). The list is taken first: what runs may park or close
 * clients. */
static void resume_parked(void) {
    if (M.resuming) return; /* a MIGRATE ended from a resumed command: the
                               walk in progress takes its parked ones */
    while (M.nparked) {
        M.resuming = M.parked;
        M.nresuming = M.nparked;
        M.parked = NULL;
        M.nparked = M.capparked = 0;
        for (size_t i = 0; i < M.nresuming; i++) {
            client *c = M.resuming[i];
            if (!c) continue;
            M.resuming[i] = NULL;
            net_resume_parked(c);
        }
        free(M.resuming);
        M.resuming = NULL;
        M.nresuming = 0;
        if (M.ops) break; /* those parked again wait for the next end */
    }
}

static void mig_client_closed(client *c) {
    for (size_t i = 0; i < M.nparked; i++)
        if (M.parked[i] == c) M.parked[i] = NULL;
    for (size_t i = 0; i < M.nresuming; i++)
        if (M.resuming[i] == c) M.resuming[i] = NULL;
    for (mig_op *op = M.ops; op; op = op->next)
        if (op->c == c) op->c = NULL;
}

static void migrate_info(const char *section, vbuf *b) {
    if (strcmp(section, "stats")) return;
    size_t inflight = 0, parked = 0;
    for (const mig_op *op = M.ops; op; op = op->next) inflight++;
    for (size_t i = 0; i < M.nparked; i++) parked += M.parked[i] != NULL;
    vbuf_appendf(b, "migrate_cached_sockets:%zu\r\n", cache_count());
    vbuf_appendf(b, "migrate_in_flight:%zu\r\nmigrate_parked_clients:%zu\r\n"
                    "migrate_parked_total:%llu\r\nmigrate_streamed_payloads:%llu\r\n",
                 inflight, parked, (unsigned long long)M.parked_total,
                 (unsigned long long)M.streamed_total);
}

/* ---- the command ---- */

typedef struct migrate_opts {
    int copy, replace;
    const arg *user, *pass;   /* AUTH pass, AUTH2 user pass */
    int first, nkeys;         /* the keys: argv[first .. first + nkeys) */
    long dbid, timeout;
} migrate_opts;

/* Redis 7.0's argument parsing; 0 after replying an error. */
static int parse(client *c, migrate_opts *o) {
    *o = (migrate_opts){.first = 3, .nkeys = 1};
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const arg *a = &c->argv[j];
        if (arg_is(a, "copy")) {
            o->copy = 1;
        } else if (arg_is(a, "replace")) {
            o->replace = 1;
        } else if (arg_is(a, "auth") && more >= 1) {
            o->pass = &c->argv[++j];
        } else if (arg_is(a, "auth2") && more >= 2) {
            o->user = &c->argv[++j];
            o->pass = &c->argv[++j];
        } else if (arg_is(a, "keys")) {
            if (c->argv[3].len != 0) {
                reply_error(c, "ERR When using MIGRATE KEYS option, the key argument must be "
                               "set to the empty string");
                return 0;
            }
            o->first = j + 1;
            o->nkeys = c->argc - j - 1;
            break;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    long long timeout, dbid;
    if (!arg_ll(c, &c->argv[5], &timeout) || !arg_ll(c, &c->argv[4], &dbid)) return 0;
    o->timeout = timeout <= 0 ? 1000 : (long)timeout;
    o->dbid = (long)dbid;
    return 1;
}

/* Values whose payload is streamed rather than built in memory: a
 * collection of more than MIG_STREAM_ELEMENTS elements (the free effort
 * counts them, O(1)), a string of MIG_STREAM_BYTES or more. Streaming
 * serializes the value twice; below these a payload costs little memory. */
#define MIG_STREAM_ELEMENTS 65536
#define MIG_STREAM_BYTES (4u << 20)
static int is_big(const obj *v) {
    return obj_is_coll(v) ? lazyfree_effort(v) > MIG_STREAM_ELEMENTS
                          : obj_strlen(v) >= MIG_STREAM_BYTES;
}

static char *dup_arg(const arg *a) {
    char *p = xmalloc(a->len + 1);
    memcpy(p, a->p, a->len);
    p[a->len] = '\0';
    return p;
}

/* A new op for c's MIGRATE: the arguments copied (c's argv lives in its
 * query buffer, which a blocked client's further input may move), a
 * reference to every key's value still there with its TTL, the cached
 * connection taken out of the cache. */
static mig_op *op_new(client *c, const migrate_opts *o) {
    mig_op *op = xcalloc(1, sizeof *op);
    mig_job *j = &op->job;
    snprintf(j->host, sizeof j->host, "%.*s", (int)c->argv[1].len, c->argv[1].p);
    snprintf(j->port, sizeof j->port, "%.*s", (int)c->argv[2].len, c->argv[2].p);
    snprintf(op->name, sizeof op->name, "%.*s:%.*s", (int)c->argv[1].len, c->argv[1].p,
             (int)c->argv[2].len, c->argv[2].p);
    op->c = c;
    op->db = c->db;
    op->copy = o->copy;
    j->restore = server.cfg.compat.cluster_enabled ? "RESTORE-ASKING" : "RESTORE";
    j->tls_wanted = server.cfg.compat.tls_cluster != 0; /* as Redis 7.0's migrateGetSocket */
    j->replace = o->replace;
    /* the writer's options are atomics the worker's rdb_writer reads */
    rdb_set_writer_opts(server.cfg.list_max_listpack_size, server.cfg.rdb_key_save_delay);
    j->compress = server.cfg.rdbcompression ? RDB_COMPRESS_LZF : 0;
    if (o->user) {
        j->user = dup_arg(o->user);
        j->user_len = o->user->len;
    }
    if (o->pass) {
        j->pass = dup_arg(o->pass);
        j->pass_len = o->pass->len;
    }
    j->dbid = o->dbid;
    j->timeout_ms = o->timeout;
    j->keys = xcalloc((size_t)o->nkeys, sizeof *j->keys);
    db *d = db_get(c->db);
    int64_t now = wall_ms();
    for (int i = 0; i < o->nkeys; i++) {
        const arg *k = &c->argv[o->first + i];
        vt_entry *e = db_lookup_notouch(d, k->p, k->len);
        if (!e) continue;
        long long ttl = 0;
        if (vt_expire(e) != VT_NO_EXPIRE) {
            ttl = vt_expire(e) - now;
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        mig_key *mk = &j->keys[j->nkeys++];
        mk->name = dup_arg(k);
        mk->len = k->len;
        obj_incref(e->val);
        mk->val = e->val;
        mk->ttl = ttl;
        mk->stream = is_big(e->val) && !j->tls_wanted; /* TLS: built in memory */
        uint64_t bit = MIG_FILTER_BIT(vt_hash(k->p, k->len));
        op->filter[bit / 64] |= UINT64_C(1) << (bit % 64);
    }
    j->fd = cache_take(op->name, j->tls_wanted, &j->tls, &j->last_db);
    return op;
}

/* The op's references go last: after the delete of a big key the value's
 * last one is the op's, freed on the lazyfree thread whatever
 * lazyfree-lazy-server-del says, so that finishing a MIGRATE does not
 * stall the loop on freeing what it sent (Redis frees it inline unless
 * that switch is on: its MIGRATE has stalled everyone already). */
static void op_free(mig_op *op) {
    mig_job *j = &op->job;
    for (int i = 0; i < j->nkeys; i++) {
        free(j->keys[i].name);
        lazyfree_drop(j->keys[i].val, 1);
    }
    free(j->keys);
    free((char *)j->user);
    free((char *)j->pass);
    free(op);
}

/* The keys the target took leave (unless COPY): each one still holding
 * the value sent (expiry or eviction may have removed it meanwhile), with
 * its keyspace event; one DEL propagated for all, through the caller when
 * it runs the job itself (its propagation batch), else as the server's
 * own command. */
static void delete_acked(mig_op *op, client *runner) {
    mig_job *j = &op->job;
    if (op->copy) return;
    db *d = db_get(op->db);
    arg *del = xmalloc(sizeof *del * (size_t)(j->nkeys + 1));
    int ndel = 0;
    for (int i = 0; i < j->nkeys; i++) {
        mig_key *k = &j->keys[i];
        if (!k->acked) continue;
        vt_entry *e = db_lookup_notouch(d, k->name, k->len);
        if (!e || e->val != k->val) continue;
        db_delete(d, k->name, k->len);
        notify_keyspace_event(NOTIFY_GENERIC, "del", k->name, k->len, op->db);
        server_dirty(1);
        del[++ndel] = (arg){k->name, k->len};
    }
    if (ndel) { /* replicas and the AOF delete what the target took */
        del[0] = (arg){"DEL", 3};
        if (runner) cmd_propagate(runner, ndel + 1, del);
        else cmd_propagate_raw(op->db, ndel + 1, del);
    }
    free(del);
}

static void reply_to(client *c, const mig_job *j) {
    switch (j->status) {
    case MIG_OK: reply_ok(c); break;
    case MIG_ERR_CONNECT: reply_error(c, "IOERR error or timeout connecting to the client"); break;
    case MIG_ERR_WRITE: reply_error(c, "IOERR error or timeout writing to target instance"); break;
    case MIG_ERR_READ: reply_error(c, "IOERR error or timeout reading to target instance"); break;
    default:
        assert(j->status == MIG_ERR_TARGET);
        reply_errorf(c, "ERR Target instance replied with error: %s", j->error);
    }
}

/* The job ran: keys deleted, the caller answered, the connection cached. */
static void op_finish(mig_op *op, client *runner) {
    for (int i = 0; i < op->job.nkeys; i++) M.streamed_total += op->job.keys[i].streamed != 0;
    delete_acked(op, runner);
    if (op->job.fd >= 0) cache_put(op->name, op->job.fd, op->job.tls, op->job.last_db);
    op->job.fd = -1;
    op->job.tls = NULL; /* the cache's now */
    vbuf_free(&op->job.tls_in);
    if (op->c) reply_to(op->c, &op->job);
}

/* Worker thread: the job, then the wake-up. Touches nothing but op->job
 * (and the async handle, whose uv_async_send is thread-safe). */
static void *mig_worker(void *p) {
    mig_op *op = p;
    mig_run(&op->job);
    uv_async_send(op->done);
    return NULL;
}

static void free_handle(uv_handle_t *h) { free(h); }

/* Main thread, woken by the worker: the job is the main thread's again
 * after the join. */
static void on_done(uv_async_t *a) {
    mig_op *op = a->data;
    int rc = pthread_join(op->thread, NULL);
    assert(rc == 0);
    (void)rc;
    mig_op **pp = &M.ops;
    while (*pp != op) pp = &(*pp)->next;
    *pp = op->next;
    op_finish(op, NULL);
    client *c = op->c;
    uv_close((uv_handle_t *)op->done, free_handle);
    op_free(op);
    if (c) { /* the caller goes on with its input, as WAIT's */
        c->flags &= ~CLIENT_BLOCKED;
        net_want_write(c);
        if (!(c->flags & CLIENT_CLOSING)) {
            net_skip_pending(c);
            net_process_input(c);
            net_update_reading(c);
        }
    }
    resume_parked();
}

/* Hands op to a worker thread of its own (op->job is the worker's from
 * here to on_done's join): 0, or -1 when no thread could start (logged;
 * the op is still the caller's to run). */
static int start_worker(mig_op *op) {
    op->done = xmalloc(sizeof *op->done);
    if (uv_async_init(server.loop, op->done, on_done) != 0) {
        log_warning("MIGRATE: no wake-up handle, migrating on the main thread");
        free(op->done);
        return -1;
    }
    op->done->data = op;
    int rc = pthread_create(&op->thread, NULL, mig_worker, op);
    if (rc != 0) {
        log_warning("MIGRATE: cannot start a thread (%s), migrating on the main thread",
                    strerror(rc));
        uv_close((uv_handle_t *)op->done, free_handle);
        return -1;
    }
    op->next = M.ops;
    M.ops = op;
    return 0;
}

/* MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 * [AUTH password | AUTH2 username password] [KEYS key ...] */
void cmd_migrate(client *c) {
    migrate_opts o;
    if (!parse(c, &o)) return;
    db *d = db_get(c->db);
    /* the keys here (a read: hits and misses counted); none: NOKEY */
    int present = 0;
    for (int j = 0; j < o.nkeys; j++)
        present += db_lookup_read(d, c->argv[o.first + j].p, c->argv[o.first + j].len) != NULL;
    if (!present) {
        reply_status(c, "NOKEY");
        return;
    }
    mig_op *op = op_new(c, &o);
    /* the caller waits unless it cannot (inside EXEC or a script, as
     * Redis; the master link, whose stream must not stop); a TLS MIGRATE
     * runs here, blocking, as Redis's (TLS sessions are main thread only) */
    if (block_allowed(c) && !(c->flags & CLIENT_MASTER) && !op->job.tls_wanted &&
        start_worker(op) == 0) {
        c->flags |= CLIENT_BLOCKED; /* its further input waits (net.c) */
        return;
    }
    mig_run(&op->job);
    op_finish(op, c);
    op_free(op);
}

/* Redis 7.0's migrateGetKeys: argv[3], or what follows KEYS (AUTH's and
 * AUTH2's arguments are no keys). */
static int migrate_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    (void)d;
    out->n = 0;
    int first = 3, num = 1;
    for (int i = 6; i < argc; i++) {
        if (arg_is(&argv[i], "auth2")) {
            i += 2;
        } else if (arg_is(&argv[i], "auth")) {
            i++;
        } else if (arg_is(&argv[i], "keys")) {
            first = i + 1;
            num = argc - first;
            break;
        }
    }
    for (int i = 0; i < num && first + i < argc; i++)
        cmd_keys_add(out, first + i, KS_RW | KS_ACCESS | KS_DELETE);
    return 1;
}

/* ---- the row (cmd.h's cmd_register; key specs and docs as Redis 7.0.15's) ---- */

static const cmd_key_spec migrate_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(3), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_ACCESS | KS_DELETE | KS_INCOMPLETE, BS_KEYWORD("KEYS", -2),
     FK_RANGE(-1, 1, 0)},
};
static const char *const migrate_tips[] = {"nondeterministic_output", NULL};
static const char *const migrate_history[] = {"3.0.0", "Added the `COPY` and `REPLACE` options.", "3.0.6", "Added the `KEYS` option.", "4.0.7", "Added the `AUTH` option.", "6.0.0", "Added the `AUTH2` option.", NULL};
static const cmd_arg migrate_key_or_empty_string_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "empty_string", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = ""},
    {0}};
static const cmd_arg migrate_authentication_username_password_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg migrate_authentication_args[] = {
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1, .token = "AUTH", .since = "4.0.7", .flags = ARGF_OPTIONAL},
    {.name = "username_password", .type = ARG_BLOCK, .key_spec_index = -1, .token = "AUTH2", .since = "6.0.0", .flags = ARGF_OPTIONAL, .subargs = migrate_authentication_username_password_args},
    {0}};
static const cmd_arg migrate_args[] = {
    {.name = "host", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key_or_empty_string", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = migrate_key_or_empty_string_args},
    {.name = "destination-db", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "timeout", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "copy", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "COPY", .since = "3.0.0", .flags = ARGF_OPTIONAL},
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE", .since = "3.0.0", .flags = ARGF_OPTIONAL},
    {.name = "authentication", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = migrate_authentication_args},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .token = "KEYS", .since = "3.0.6", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};

static cmd_def migrate_cmds[] = {
    {.name = "migrate", .proc = cmd_migrate, .arity = -6, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(migrate_keys),
     .getkeys = migrate_getkeys, .tips = migrate_tips, .group = "generic", .since = "2.6.0",
     .summary = "Atomically transfer a key from a Redis instance to another one.",
     .complexity = "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.",
     .history = migrate_history, .args = migrate_args},
};

static const hooks migrate_hooks = {.name = "migrate",
                                    .cron = migrate_cron,
                                    .before_command = mig_before_command,
                                    .client_closed = mig_client_closed,
                                    .info = migrate_info};

void migrate_register_commands(void) {
    cmd_register(migrate_cmds, sizeof migrate_cmds / sizeof migrate_cmds[0]);
    hooks_register(&migrate_hooks);
}
