/* server: the one global struct of verso and the types every module shares.
 *
 * The main thread owns `server` and everything reachable from it, except
 * where a field says otherwise. Background threads (snapshot serializer,
 * AOF writer and its fsync threads, lazyfree, the full sync's sender, the
 * replica's loader) never touch it: they get what they need when their job
 * starts and report back through a queue and a uv_async_t wake-up. */
#ifndef VERSO_SERVER_H
#define VERSO_SERVER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <uv.h>

#include "conf.h"
#include "resp.h"
#include "vbuf.h"
#include "vt.h"

#define VERSO_VERSION "0.1.0"
/* What INFO reports as redis_version: the Redis release whose commands,
 * replies and file formats verso follows. */
#define VERSO_REDIS_VERSION "7.0.15"

/* One command argument: bytes in the client's query buffer, valid while the
 * command runs. */
typedef struct arg {
    const char *p;
    size_t len;
} arg;

/* A copy of argv and the bytes it points to, in one allocation that free()
 * releases (cmd.c; a command kept past its query buffer: MULTI's queue, a batch of
 * propagated commands, a transaction being loaded). */
arg *args_dup(int argc, const arg *argv);

enum {
    CLIENT_CLOSE_AFTER_REPLY = 1 << 0, /* QUIT, protocol error */
    CLIENT_CLOSING = 1 << 1,           /* uv_close issued */
    CLIENT_READ_PAUSED = 1 << 2,       /* output backlog: reading stopped */
    CLIENT_AUTHED = 1 << 3,
    CLIENT_PENDING_WRITE = 1 << 4,     /* on server.pending_writes */
    CLIENT_INPUT_PARKED = 1 << 6,      /* input parked: a command a hook's
                                          before_command parked waits to run
                                          (the AOF's backlog); the client is
                                          not read, its input not processed,
                                          until the subsystem resumes it */
    CLIENT_REPLY_HELD = 1 << 7,        /* replies held: a hook's reply_held
                                          said wait (the AOF's fsync), so it
                                          left the write queue; the holder
                                          clears it and calls net_want_write */
    CLIENT_MULTI = 1 << 8,             /* inside MULTI: commands are queued */
    CLIENT_DIRTY_CAS = 1 << 9,         /* a watched key changed: EXEC fails */
    CLIENT_DIRTY_EXEC = 1 << 10,       /* a queuing error: EXEC aborts */
    CLIENT_BLOCKED = 1 << 11,          /* blocked on keys (blocking.h): its
                                          input waits, it is still read */
    CLIENT_LOADER = 1 << 15,           /* replays a file at startup (the AOF's
                                          fake client): runs while loading */
    CLIENT_REPLICA = 1 << 16,          /* a replica of this server (after SYNC
                                          or PSYNC, repl/): client-output-buffer-
                                          limit's replica class applies */
    CLIENT_MASTER = 1 << 17,           /* the connection to our master (repl/):
                                          its replies are dropped, its commands
                                          pass the write gates and OOM, and
                                          every request it consumed goes to
                                          hooks.input_applied */
    CLIENT_PUBSUB = 1 << 18,           /* subscribed to a channel or pattern
                                          (pubsub.c): the pubsub class applies */
    CLIENT_MONITOR = 1 << 19,          /* MONITOR: gets every command (monitor.c) */
    CLIENT_TRACKING = 1 << 20,         /* CLIENT TRACKING on (tracking.c) */
    CLIENT_REPLY_OFF = 1 << 21,        /* CLIENT REPLY OFF: replies dropped */
    CLIENT_REPLY_SKIP_NEXT = 1 << 22,  /* CLIENT REPLY SKIP: the next command's */
    CLIENT_REPLY_SKIP = 1 << 23,       /* this command's reply is dropped */
    CLIENT_NO_EVICT = 1 << 24,         /* CLIENT NO-EVICT on */
    CLIENT_SCRIPT = 1 << 25,           /* the fake client scripts call
                                          commands through (script_lua.c) */
    CLIENT_UNBLOCKED_ERR = 1 << 26,    /* CLIENT UNBLOCK ... ERROR pending */
    CLIENT_CLOSE_ASAP = 1 << 27,       /* closed before the loop sleeps
                                          (net_close_asap) */
    CLIENT_ASKING = 1 << 28,           /* ASKING: the next command may use an
                                          importing slot (cluster/route.c) */
    CLIENT_READONLY = 1 << 29,         /* READONLY: a cluster replica serves
                                          its primary's slots' reads */
    CLIENT_SLICED = 1 << 30,           /* a bulk stream (a slot import's
                                          link): its input runs a slice of
                                          NET_SLICE_US per loop iteration,
                                          others served between (net.c) */
};

typedef struct cmd_def cmd_def;

typedef struct client {
    uv_tcp_t tcp;                 /* tcp.data points back here */
    uint64_t id;
    struct client *prev, *next;   /* server.clients */
    struct client *pw_next;       /* server.pending_writes */
    int flags;
    int resp;                     /* protocol: 2, or 3 after HELLO 3 */
    int db;                       /* selected database */
    char *name;                   /* CLIENT SETNAME, or NULL */
    char addr[64];                /* peer ip:port */
    char laddr[64];               /* local ip:port */
    int fd;
    struct tls_conn *tls;         /* its TLS session (tls.h), NULL when the
                                     connection is plaintext */
    struct tls_hs *tls_hs;        /* net.c: its handshake on the thread pool
                                     (NULL when none has run) */
    /* input */
    vbuf in;                      /* query buffer */
    size_t qpos;                  /* start of the unparsed part of `in` */
    resp_req req;
    int argc;
    arg *argv;
    int argv_cap;
    int req_ready;                /* req holds a whole command not yet run
                                     (it was parked) */
    struct acl_user *user;        /* acl/: its user (the default one until
                                     AUTH/HELLO), NULL for the server's own
                                     clients (master link, AOF loader),
                                     which have every permission */
    const cmd_def *cmd;           /* running command */
    const cmd_def *lastcmd;
    struct multi_state *mstate;   /* multi.c: queued commands, watched keys
                                     (NULL until MULTI or WATCH) */
    struct block_state *bstate;   /* blocking.c: the keys and command it is
                                     blocked on (NULL unless blocked) */
    struct pubsub_state *pubsub;  /* pubsub.c: its channels and patterns
                                     (NULL until it subscribes) */
    struct tracking_state *tracking; /* tracking.c: CLIENT TRACKING's
                                     options (NULL while off) */
    void *repl;                   /* repl/: a replica's or the master link's
                                     state (NULL for other clients) */
    void *aof;                    /* aof/: its holds and parking (NULL
                                     until the AOF holds or parks it; freed
                                     by its client_closed hook) */
    long long woff;               /* repl/: the replication stream's offset
                                     after this client's last write (WAIT) */
    /* output */
    vbuf reply;                   /* replies not yet handed to the kernel */
    vbuf inflight;                /* bytes of the uv_write in progress */
    size_t reply_cap;             /* reply.cap after the last flush (INFO's
                                     reply_buffer_expands) */
    uv_write_t wreq;
    int writing;                  /* a uv_write is in progress */
    int64_t obuf_soft_since_ms;   /* when the soft output limit was passed */
    int slice_pending;            /* CLIENT_SLICED: input left for the next
                                     iteration (reading stopped till then) */
    /* times (monotonic ms) */
    int64_t ctime_ms;
    int64_t last_ms;
    /* client_mem.c: its memory as last counted in the clients' totals, and
     * its place among the clients maxmemory-clients may evict */
    size_t mem;                   /* tot-mem when last counted */
    int mem_type;                 /* the total it counts in (CLIENT_TYPE_*),
                                     -1 while counted in none */
    int mem_bucket;               /* its eviction bucket, -1 when it is in
                                     none (not evictable) */
    struct client *mb_prev, *mb_next; /* its bucket's list */
} client;

/* Redis's client types (getClientType): the master link, a replica, a
 * subscriber, every other client. */
enum { CLIENT_TYPE_NORMAL, CLIENT_TYPE_REPLICA, CLIENT_TYPE_PUBSUB, CLIENT_TYPE_MASTER,
       CLIENT_TYPES };

static inline int client_type(const client *c) {
    if (c->flags & CLIENT_MASTER) return CLIENT_TYPE_MASTER;
    if (c->flags & CLIENT_REPLICA) return CLIENT_TYPE_REPLICA;
    if (c->flags & CLIENT_PUBSUB) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

typedef struct db {
    vt *t;
    int id;
    uint64_t expire_cursor;       /* active expiry's vt_scan cursor */
    long long avg_ttl;            /* ms, estimated by active expiry */
} db;

typedef struct stats {
    uint64_t commands;            /* total_commands_processed */
    uint64_t connections;         /* total_connections_received */
    uint64_t rejected_conn;       /* rejected_connections */
    uint64_t expired_keys;
    uint64_t keyspace_hits;
    uint64_t keyspace_misses;
    uint64_t net_input_bytes;
    uint64_t net_output_bytes;
    uint64_t errors;              /* total_error_replies */
    uint64_t obuf_disconnects;    /* client_output_buffer_limit_disconnections */
    uint64_t qbuf_disconnects;    /* client_query_buffer_limit_disconnections */
    uint64_t expire_cycle_us;     /* expire_cycle_cpu_milliseconds * 1000 */
    uint64_t evicted_keys;        /* evict.c */
    uint64_t evicted_clients;     /* client_mem.c: maxmemory-clients */
    uint64_t sync_full;           /* repl/: full resyncs served */
    uint64_t sync_partial_ok;     /* repl/: partial resyncs accepted */
    uint64_t sync_partial_err;    /* repl/: partial resyncs refused */
    uint64_t net_repl_input_bytes; /* repl/: read from the master (Redis 7.0 counts
                                      them apart from total_net_input_bytes) */
    /* written to replicas: their command stream (net.c) and the full
     * syncs' payload (the fan-out writer's thread, snapshot/rdb_io.c) */
    _Atomic uint64_t net_repl_output_bytes;
    uint64_t reads_processed;     /* total_reads_processed: reads of client input */
    uint64_t writes_processed;    /* total_writes_processed: writes of replies */
    uint64_t reply_buffer_shrinks; /* a client's reply buffer freed when idle */
    uint64_t reply_buffer_expands; /* a client's reply buffer grown for a reply */
    double expired_stale_perc;    /* active expiry: running share of expired keys */
} stats;

typedef struct server_t {
    conf cfg;
    char *config_file;            /* absolute path, or NULL */
    char *executable;             /* absolute path of argv[0] */
    uv_loop_t *loop;
    uv_tcp_t *listeners[CONF_MAX_BIND]; /* listen.c's (allocated, freed once closed) */
    int nlisteners;
    uv_tcp_t *tls_listeners[CONF_MAX_BIND]; /* on tls-port, as listeners */
    int ntls_listeners;
    uv_timer_t cron;              /* runs on_cron (server.c) at cfg.hz */
    uv_timer_t expire_fast;       /* active expiry between cron ticks while
                                     expired keys pile up (server.c) */
    uv_prepare_t before_sleep;    /* flushes replies once per iteration */
    uv_signal_t sig_term, sig_int;
    db *dbs;                      /* cfg.databases of them */
    client *clients;              /* list of connected clients */
    size_t nclients;
    client *pending_writes;       /* clients with replies to flush */
    uint64_t next_client_id;
    stats stat;
    int64_t start_mono_us;
    int64_t start_wall_ms;
    long long dirty;              /* changes since the last successful save */
    uint32_t lruclock;            /* evict.c: LRU clock, seconds mod 2^24 */
    int fork_child;               /* a fork save's child runs (snap.c): lookups
                                     leave access clocks alone, as Redis, so
                                     that reads copy no page */
    int shutdown_asap;            /* signal received: shut down in cron */
    int loading;                  /* restoring at startup (server_loading_*) */
    int async_loading;            /* a replica's loader thread fills fresh
                                     tables while the old ones are served
                                     (repl/): INFO async_loading */
    int64_t loading_start_time;   /* wall seconds, INFO loading_start_time */
    uint64_t loading_total_bytes; /* of the files being loaded (0: unknown) */
    uint64_t loading_loaded_bytes;
    uint64_t loading_events_at;   /* events are processed when the loaded
                                     bytes reach this */
    int upstream;                 /* 1 while this server replicates a master
                                     (repl/ sets it): keys expire only by the
                                     master's DEL (reads by other clients see
                                     an expired key as missing, nothing is
                                     deleted), no active expiry, HELLO and
                                     INFO say role replica; set by
                                     server_set_upstream */
    client *current_client;       /* the client whose command runs (NULL
                                     outside commands) */
    char runid[41];
    pid_t pid;
} server_t;

extern server_t server;

/* The role changes (repl/: REPLICAOF, a failover, a promotion): sets
 * server.upstream and, when it changed, tells the subsystems
 * (hooks_role_changed). */
void server_set_upstream(int on);

/* Called for every change to a key (the dirty counter of save points). */
static inline void server_dirty(long long n) { server.dirty += n; }

/* Start-up (server.c): reads the configuration (argv), opens the log,
 * enters the data directory, creates the loop and the databases, and
 * registers the core's modules. 0, or the process exit code after logging
 * why. */
int server_setup(int argc, char **argv);
/* After the subsystems registered (app/main.c, hooks.h gives the order):
 * builds the command lookup from the core's table and the registered
 * rows. */
void server_setup_done(void);
/* Listens (and handles SIGTERM/SIGINT) before the data is loaded, so that
 * clients connecting during a long load are answered (-LOADING) rather than
 * refused. 0, or the exit code after logging why. */
int server_listen(void);
/* Runs the loop until shutdown (after server_listen and the load). The exit
 * code on failure. */
int server_serve(void);
/* Loading at startup (snapshot/, aof/ call these, main thread, before
 * server_serve): start sets server.loading; progress records how far the
 * load is (bytes of total; total 0 keeps the known total) and, every
 * loading-process-events-interval-bytes, serves the clients once without
 * blocking (accepts, reads, runs what may run while loading, answers the
 * rest -LOADING, writes replies), as Redis's processEventsWhileBlocked; a
 * SIGTERM/SIGINT received meanwhile exits at once without saving. The cost
 * between two such points is one comparison. */
void server_loading_start(void);
void server_loading_progress(uint64_t loaded_bytes, uint64_t total_bytes);
void server_loading_end(void);
/* One turn of serving now, whatever the bytes loaded (a long step of the
 * load that reads nothing: pre-sizing a table). No-op unless loading. */
void server_loading_events(void);

/* Finishes a shutdown (shutdown.h starts them): save if asked (or save
 * points set and nosave == 0), close clients, exit. Returns only on failure, with err;
 * with force (SHUTDOWN FORCE) a failed save is logged and it exits anyway. */
int server_shutdown(int nosave, int save, int force, char *err, size_t errlen);

#endif
