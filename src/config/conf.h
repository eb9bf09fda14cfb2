/* conf: the server's configuration, as Redis names it.
 *
 * Owns the table of every config parameter (name, type, default, whether
 * CONFIG SET may change it at runtime, bounds), parsing of a Redis-style
 * config file and of "--name value" arguments, and CONFIG GET / CONFIG SET.
 * The values live in one struct, `server.cfg` (see server.h); the rest of
 * the server reads them there. Main thread only: a background thread that
 * needs a value gets a copy when its job starts. */
#ifndef VERSO_CONF_H
#define VERSO_CONF_H

#include <stddef.h>
#include <stdint.h>

#include "conf_compat.h"

#define CONF_ERRLEN 512
#define CONF_MAX_SAVEPOINTS 16
#define CONF_MAX_BIND 16

enum { LOG_DEBUG = 0, LOG_VERBOSE = 1, LOG_NOTICE = 2, LOG_WARNING = 3 };
enum { FSYNC_NO = 0, FSYNC_ALWAYS = 1, FSYNC_EVERYSEC = 2 };
enum { BGSAVE_FORKLESS = 0, BGSAVE_FORK = 1 };
enum { SNAP_COMPRESS_NONE = 0, SNAP_COMPRESS_LZ4 = 1 };
/* enable-debug-command: Redis 7.0's protected-action setting */
enum { DEBUG_CMD_NO = 0, DEBUG_CMD_YES = 1, DEBUG_CMD_LOCAL = 2 };
/* maxmemory-policy values (evict.c) */
enum { MAXMEM_VOLATILE_LRU = 0, MAXMEM_VOLATILE_LFU, MAXMEM_VOLATILE_RANDOM,
       MAXMEM_VOLATILE_TTL, MAXMEM_ALLKEYS_LRU, MAXMEM_ALLKEYS_LFU,
       MAXMEM_ALLKEYS_RANDOM, MAXMEM_NOEVICTION };

/* repl-diskless-load */
enum { REPL_LOAD_DISABLED = 0, REPL_LOAD_ON_EMPTY_DB = 1, REPL_LOAD_SWAPDB = 2 };
/* client-output-buffer-limit classes */
enum { CONF_OBUF_NORMAL = 0, CONF_OBUF_REPLICA = 1, CONF_OBUF_PUBSUB = 2, CONF_OBUF_CLASSES = 3 };

typedef struct conf_obuf {
    long long hard, soft, soft_seconds;
} conf_obuf;

typedef struct conf_savepoint {
    long long seconds;
    long long changes;
} conf_savepoint;

typedef struct conf {
    /* network */
    int port;                           /* port (6379) */
    char *bind[CONF_MAX_BIND];          /* bind ("127.0.0.1"), several allowed */
    int nbind;
    int tcp_backlog;                    /* tcp-backlog (511) */
    int protected_mode;                 /* protected-mode (yes) */
    long long timeout;                  /* timeout, seconds idle (0 = never) */
    int tcp_keepalive;                  /* tcp-keepalive (300) */
    int maxclients;                     /* maxclients (10000) */
    /* requirepass ("" = none): any bytes, NUL ones too (as masterauth):
     * its length, and NUL-terminated as well */
    char *requirepass;
    size_t requirepass_len;
    /* limits */
    long long proto_max_bulk_len;       /* proto-max-bulk-len (512mb) */
    long long client_query_buffer_limit;/* client-query-buffer-limit (1gb) */
    conf_obuf obuf[CONF_OBUF_CLASSES];  /* client-output-buffer-limit, per
                                           class (normal 0 0 0, replica 256mb
                                           64mb 60, pubsub 32mb 8mb 60) */
    /* general */
    int databases;                      /* databases (16) */
    int loglevel;                       /* loglevel (notice) */
    char *logfile;                      /* logfile ("" = stdout) */
    char *pidfile;                      /* pidfile ("") */
    int hz;                             /* hz (10) */
    int enable_debug_command;           /* enable-debug-command no|yes|local
                                           (no); immutable, as Redis */
    char *dir;                          /* dir ("./data" for verso) */
    /* snapshots */
    char *dbfilename;                   /* dbfilename (dump.rdb) */
    conf_savepoint save[CONF_MAX_SAVEPOINTS]; /* save (3600 1 300 100 60 10000) */
    int nsave;
    int stop_writes_on_bgsave_error;    /* stop-writes-on-bgsave-error (yes) */
    int rdbcompression;                 /* rdbcompression (yes): LZF strings,
                                           unless snapshot-compression lz4 */
    int rdb_key_save_delay;             /* rdb-key-save-delay (0): microseconds
                                           slept after each key a save writes
                                           (Redis's testing knob) */
    int rdbchecksum;                    /* rdbchecksum (yes): no = zero CRC64 */
    int snapshot_compression;           /* snapshot-compression lz4|none (none):
                                           lz4 = the whole file in an LZ4 frame */
    int bgsave_method;                  /* bgsave-method forkless|fork (forkless) */
    /* AOF */
    int appendonly;                     /* appendonly (no) */
    int appendfsync;                    /* appendfsync (everysec) */
    char *appenddirname;                /* appenddirname (appendonlydir) */
    char *appendfilename;               /* appendfilename (appendonly.aof) */
    int aof_load_truncated;             /* aof-load-truncated (yes) */
    int aof_use_rdb_preamble;           /* aof-use-rdb-preamble (yes): the
                                           rewrite's base is an RDB, else
                                           commands (aof/rewrite.h) */
    long long auto_aof_rewrite_percentage; /* auto-aof-rewrite-percentage (100) */
    long long auto_aof_rewrite_min_size;   /* auto-aof-rewrite-min-size (64mb) */
    long long aof_max_backlog;          /* aof-max-backlog (64mb): verso's
                                           writer backlog before parking */
    /* memory limit (evict.c) */
    long long maxmemory;                /* maxmemory (0 = no limit) */
    int maxmemory_policy;               /* maxmemory-policy (noeviction) */
    int maxmemory_samples;              /* maxmemory-samples (5) */
    int maxmemory_eviction_tenacity;    /* maxmemory-eviction-tenacity (10) */
    int maxmemory_include_save;         /* maxmemory-include-save (no): verso's;
                                           yes counts the versions a forkless
                                           save retains (evict.c) */
    int lfu_log_factor;                 /* lfu-log-factor (10) */
    int lfu_decay_time;                 /* lfu-decay-time (1) */
    /* collections: where Redis would switch to the big encoding (t_*.c use
     * them for OBJECT ENCODING and the RDB form; *-ziplist-* are aliases) */
    int hash_max_listpack_entries;      /* hash-max-listpack-entries (512) */
    long long hash_max_listpack_value;  /* hash-max-listpack-value (64) */
    int list_max_listpack_size;         /* list-max-listpack-size (-2) */
    int list_compress_depth;            /* list-compress-depth (0) */
    int set_max_intset_entries;         /* set-max-intset-entries (512) */
    int zset_max_listpack_entries;      /* zset-max-listpack-entries (128) */
    long long zset_max_listpack_value;  /* zset-max-listpack-value (64) */
    /* lazyfree (lazyfree.c): free big values on a background thread */
    int lazyfree_lazy_eviction, lazyfree_lazy_expire, lazyfree_lazy_server_del,
        lazyfree_lazy_user_del, lazyfree_lazy_user_flush; /* all no */
    /* replication (repl/) */
    char *replicaof_host;               /* replicaof <host> <port> (none: NULL) */
    int replicaof_port;
    char *masterauth;                   /* masterauth (""), any bytes: */
    size_t masterauth_len;              /* its length */
    char *masteruser;                   /* masteruser ("") */
    int replica_read_only;              /* replica-read-only (yes) */
    int replica_serve_stale_data;       /* replica-serve-stale-data (yes) */
    int replica_priority;               /* replica-priority (100), for Sentinel */
    int replica_announced;              /* replica-announced (yes) */
    char *replica_announce_ip;          /* replica-announce-ip ("") */
    int replica_announce_port;          /* replica-announce-port (0) */
    int replica_lazy_flush;             /* replica-lazy-flush (no) */
    int replica_ignore_maxmemory;       /* replica-ignore-maxmemory (yes) */
    int repl_diskless_sync;             /* repl-diskless-sync (yes) */
    int repl_diskless_sync_delay;       /* repl-diskless-sync-delay (5 s) */
    int repl_diskless_sync_max_replicas;/* repl-diskless-sync-max-replicas (0) */
    int repl_diskless_load;             /* repl-diskless-load (disabled) */
    int repl_ping_replica_period;       /* repl-ping-replica-period (10 s) */
    int repl_timeout;                   /* repl-timeout (60 s) */
    int repl_disable_tcp_nodelay;       /* repl-disable-tcp-nodelay (no) */
    long long repl_backlog_size;        /* repl-backlog-size (1mb) */
    int repl_backlog_ttl;               /* repl-backlog-ttl (3600 s) */
    int min_replicas_to_write;          /* min-replicas-to-write (0) */
    int min_replicas_max_lag;           /* min-replicas-max-lag (10 s) */
    /* keyspace notifications (notify.c) */
    int notify_keyspace_events;         /* notify-keyspace-events (""): NOTIFY_* */
    /* scripting (script_*.c, function*.c) */
    long long busy_reply_threshold;     /* busy-reply-threshold, alias
                                           lua-time-limit (5000 ms) */
    /* ---- scripting: more fields here ---- */
    /* introspection (slowlog.c, latency.c, monitor.c) */
    long long slowlog_log_slower_than;  /* slowlog-log-slower-than (10000 us) */
    long long slowlog_max_len;          /* slowlog-max-len (128) */
    long long latency_monitor_threshold;/* latency-monitor-threshold (0 ms: off) */
    int latency_tracking;               /* latency-tracking (yes) */
    double *latency_percentiles;        /* latency-tracking-info-percentiles
                                           ("50 99 99.9"): owned, may be NULL */
    int nlatency_percentiles;
    /* ---- introspection: more fields here ---- */
    /* clients (cmd_client.c, tracking.c) */
    long long tracking_table_max_keys;  /* tracking-table-max-keys (1000000) */
    /* ---- clients: more fields here ---- */
    /* loading (server.c, snapshot/, aof/) */
    int loading_process_events_interval_bytes; /* (2mb) */
    int key_load_delay;                 /* key-load-delay (0): microseconds
                                           slept after each key a snapshot load
                                           inserts, negative: 1/-n of keys sleep
                                           1 us (Redis's testing knob) */
    /* ---- loading: more fields here ---- */
    /* the crash report (src/introspect/crash.c) */
    int use_exit_on_panic;              /* use-exit-on-panic (no): an assert
                                           or panic ends in _exit(1), not
                                           abort() (Redis's testing knob) */
    /* ---- config coverage: more fields here ---- */
    /* Redis parameters accepted without effect (conf_compat.h) */
    conf_compat compat;
    int enable_protected_configs;       /* enable-protected-configs no|yes|local
                                           (no): may CONFIG SET change dir and
                                           dbfilename; immutable, as Redis */
    /* loading state, conf.c only: newlines read by conf_load_file (argument
     * lines are numbered after the file's, as Redis does), and whether a
     * "save" directive already replaced the default save points (the next
     * ones add to it, as Redis 7) */
    int load_newlines;
    int load_saw_save;
} conf;

/* Sets every field to its default (strings are heap copies). */
void conf_init(conf *c);
void conf_free(conf *c);

/* Applies a config file then the command-line pairs (argv holds
 * "--name" "value..." as Redis accepts; call conf_load_file first). On error
 * returns -1 with err exactly as Redis prints it: "\n*** FATAL CONFIG FILE
 * ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n>>>
 * 'port 99999999'\nargument must be between 0 and 65535 inclusive". */
int conf_load_file(conf *c, const char *path, char *err, size_t errlen);
int conf_load_args(conf *c, int argc, char **argv, char *err, size_t errlen);
/* Parses one "name arg arg..." directive (as in a file line, already split).
 * Returns 0 or -1 with err (the reason only). */
int conf_apply(conf *c, int argc, char **argv, char *err, size_t errlen);

/* CONFIG GET: calls emit for every parameter whose name matches the glob
 * pattern, with its value formatted as Redis does ("yes"/"no", numbers in
 * bytes, "save" as "3600 1 300 100", ...). */
typedef void (*conf_emit_fn)(void *priv, const char *name, const char *value, size_t vlen);
void conf_get(const conf *c, const char *pattern, conf_emit_fn emit, void *priv);

/* CONFIG SET name value [name value ...]: all or nothing. Parameters that
 * cannot change at runtime answer "ERR CONFIG SET failed (possibly related
 * to argument 'port') - can't set immutable config" as Redis; err receives
 * the whole reply text, starting with "ERR ". Every value is parsed and
 * stored in c first; then the hook (if set) is called once per changed
 * parameter, in argument order, with the old values (a temporary: keep no
 * pointer into it) and c, which already holds every new value (so a hook
 * that reads another parameter, e.g. appendonly reading appendfsync, sees
 * the new one). A non-zero return undoes the whole change: c gets its old
 * values back, the hooks that already accepted are called again with old
 * and new swapped (now = c), and the client gets
 * "ERR CONFIG SET failed (possibly related to argument 'x') - <hook's err>". */
typedef int (*conf_hook_fn)(const conf *old, const conf *now, const char *name,
                            char *err, size_t errlen);
void conf_set_hook(conf_hook_fn fn);
int conf_set(conf *c, int npairs, char **names, char **values,
             char *err, size_t errlen);
/* conf_set for a client: the protected parameters (dir, dbfilename) may
 * change when enable-protected-configs is yes, or local and client_local
 * (the client is on 127.0.0.1 or ::1), as Redis's allowProtectedAction;
 * conf_set is this with client_local 0. */
int conf_set_from(conf *c, int client_local, int npairs, char **names, char **values,
                  char *err, size_t errlen);
/* conf_set_from with each value's length (NULL: strlen's): requirepass and
 * masterauth take any bytes, as Redis's SDS configs (CONFIG SET from a
 * client); the other parameters stop at a NUL. */
int conf_set_bytes(conf *c, int client_local, int npairs, char **names, char **values,
                   const size_t *vlens, char *err, size_t errlen);

/* The parameters Redis has and verso accepts without acting on them
 * (conf_compat.h): CONFIG SET logs, at warning level and the first time
 * each is set, that it has no effect. conf_log_noeffect does the same at
 * startup for those the config file or arguments set to something else than
 * their default (call it once the log is open). conf_has_effect: 0 for
 * those and for unknown names. */
void conf_log_noeffect(const conf *c);
int conf_has_effect(const char *name);

/* CONFIG REWRITE (conf_rewrite.c) reads the table through these two. */
/* The name a parameter or alias is written under (slaveof -> replicaof,
 * hash-max-ziplist-entries -> hash-max-listpack-entries), or NULL when no
 * parameter has that name. */
const char *conf_canonical_name(const char *name);
/* Calls fn for every line of every parameter (aliases skipped) in table
 * order, as Redis's rewrite writes them ("maxmemory 1gb", "dir \"/abs\"",
 * one "save s n" per save point, one client-output-buffer-limit per class,
 * replicaof only while set). force: the line must be written even where
 * the file has no line for it (the value is not the default; save and dir
 * always). */
typedef void (*conf_line_fn)(void *priv, const char *name, const char *line, int force);
void conf_rewrite_each(const conf *c, conf_line_fn fn, void *priv);
/* Rewrites the config file at path from c as Redis's CONFIG REWRITE:
 * comments and blank lines kept, unparsable or unknown lines kept as
 * "# ??? <line>", every parameter's lines replaced in place, the new ones
 * appended after "# Generated by CONFIG REWRITE", the lines left over
 * blanked (runs of blank lines shown as one), written to a temp file that
 * replaces path (fsync, rename). A missing file is written from scratch.
 * 0, or -1 with err = strerror. */
int conf_rewrite(const conf *c, const char *path, char *err, size_t errlen);

#endif
