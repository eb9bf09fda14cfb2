/* conf: the table of config parameters, the Redis-style config file and
 * "--name value" argument parsers, CONFIG GET and CONFIG SET (see conf.h).
 *
 * Every parameter is one row of `params`: its name, its type, where it lives
 * in struct conf, its default and whether CONFIG SET may change it. Loading,
 * CONFIG GET and CONFIG SET all go through the same row, so the three can
 * never disagree. Error texts are Redis 7.0's, word for word, because tools
 * and tests compare them. The rows of the Redis parameters verso takes
 * without acting on them (PF_NOEFFECT: logged once when set) come from
 * conf_compat_params.h, included at the end of the same table; the row type
 * is in conf_int.h. Main thread only. */
#include "conf.h"
#include "conf_int.h"
#include "acl_conf.h"
#include "log.h"
#include "notify.h"
#include "util.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define REDIS_VERSION_SHOWN "7.0.15"

/* ---- a growable string, for values and option text ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = xrealloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_str(sbuf *b, const char *s) { sb_add(b, s, strlen(s)); }

static void sb_ll(sbuf *b, long long v)
{
    char t[24];
    sb_add(b, t, ll_to_str(t, v));
}

static char *sb_take(sbuf *b) { return b->p ? b->p : xstrdup(""); }

/* ---- splitting (config lines go through util's split_args) ---- */

/* Splits a CONFIG SET value of a multi-argument parameter on single spaces,
 * as Redis does ("" gives no argument, "a  b" gives an empty one). */
static char **split_spaces(const char *s, int *argc)
{
    char **v = xmalloc(sizeof(*v) * (strlen(s) + 1));
    int n = 0;
    for (const char *sp; *s || n; s = sp + 1) {
        if (!(sp = strchr(s, ' '))) {
            v[n++] = xstrdup(s);
            break;
        }
        v[n++] = xstrndup(s, (size_t)(sp - s));
    }
    *argc = n;
    return v;
}

/* ---- the parameter table ---- */

static const conf_enum loglevel_enum[] = {
    {"debug", LOG_DEBUG}, {"verbose", LOG_VERBOSE}, {"notice", LOG_NOTICE},
    {"warning", LOG_WARNING}, {NULL, 0}};
static const conf_enum fsync_enum[] = {
    {"everysec", FSYNC_EVERYSEC}, {"always", FSYNC_ALWAYS}, {"no", FSYNC_NO}, {NULL, 0}};
static const conf_enum compression_enum[] = {
    {"lz4", SNAP_COMPRESS_LZ4}, {"none", SNAP_COMPRESS_NONE}, {NULL, 0}};
static const conf_enum bgsave_enum[] = {
    {"forkless", BGSAVE_FORKLESS}, {"fork", BGSAVE_FORK}, {NULL, 0}};
static const conf_enum policy_enum[] = {
    {"volatile-lru", MAXMEM_VOLATILE_LRU}, {"volatile-lfu", MAXMEM_VOLATILE_LFU},
    {"volatile-random", MAXMEM_VOLATILE_RANDOM}, {"volatile-ttl", MAXMEM_VOLATILE_TTL},
    {"allkeys-lru", MAXMEM_ALLKEYS_LRU}, {"allkeys-lfu", MAXMEM_ALLKEYS_LFU},
    {"allkeys-random", MAXMEM_ALLKEYS_RANDOM}, {"noeviction", MAXMEM_NOEVICTION},
    {NULL, 0}};
static const conf_enum protected_enum[] = {
    {"no", DEBUG_CMD_NO}, {"yes", DEBUG_CMD_YES}, {"local", DEBUG_CMD_LOCAL}, {NULL, 0}};
static const conf_enum diskless_load_enum[] = {
    {"disabled", REPL_LOAD_DISABLED}, {"on-empty-db", REPL_LOAD_ON_EMPTY_DB},
    {"swapdb", REPL_LOAD_SWAPDB}, {NULL, 0}};
static const conf_enum supervised_enum[] = {
    {"upstart", 0}, {"systemd", 1}, {"auto", 2}, {"no", 3}, {NULL, 0}};

static int fail(char *err, size_t errlen, const char *reason)
{
    snprintf(err, errlen, "%s", reason);
    return -1;
}

static const char *check_hz(long long *v)
{
    /* Redis accepts any int and keeps it within its limits */
    if (*v < 1) *v = 1;
    if (*v > 500) *v = 500;
    return NULL;
}

/* ---- special parameters: save, bind, client-output-buffer-limit ---- */

/* "save <seconds> <changes> ..." as Redis 7: "" clears; while loading, the
 * first save directive replaces the defaults and the next ones add to it;
 * CONFIG SET replaces. */
static int set_save(conf *c, int argc, char **argv, int loading, char *err, size_t errlen)
{
    if (argc == 1 && argv[0][0] == '\0') {
        c->nsave = 0;
        argc = 0;
    }
    if (argc == 1 && strchr(argv[0], ' ')) {
        /* --save "3600 1" as one argument, which redis-server accepts */
        int n;
        char **v = split_spaces(argv[0], &n);
        int rc = set_save(c, n, v, loading, err, errlen);
        for (int i = 0; i < n; i++) free(v[i]);
        free(v);
        return rc;
    }
    if (argc % 2) return fail(err, errlen, "Invalid save parameters");
    for (int j = 0; j < argc; j++) {
        char *end;
        long long v = strtoll(argv[j], &end, 10);
        if (*end != '\0' || (j % 2 == 0 && v < 1) || (j % 2 == 1 && v < 0))
            return fail(err, errlen, "Invalid save parameters");
    }
    int base = (!loading || !c->load_saw_save) ? 0 : c->nsave;
    if (base + argc / 2 > CONF_MAX_SAVEPOINTS) {
        snprintf(err, errlen, "Too many save points (at most %d)", CONF_MAX_SAVEPOINTS);
        return -1;
    }
    if (loading) c->load_saw_save = 1;
    c->nsave = base;
    for (int j = 0; j < argc; j += 2) {
        c->save[c->nsave].seconds = strtoll(argv[j], NULL, 10);
        c->save[c->nsave].changes = strtoll(argv[j + 1], NULL, 10);
        c->nsave++;
    }
    return 0;
}

static char *get_save(const conf *c)
{
    sbuf b = {0};
    for (int i = 0; i < c->nsave; i++) {
        sb_str(&b, i ? " " : "");
        sb_ll(&b, c->save[i].seconds);
        sb_str(&b, " ");
        sb_ll(&b, c->save[i].changes);
    }
    return sb_take(&b);
}

static int set_bind(conf *c, int argc, char **argv, int loading, char *err, size_t errlen)
{
    (void)loading;
    if (argc > CONF_MAX_BIND) return fail(err, errlen, "Too many bind addresses specified.");
    if (argc == 1 && argv[0][0] == '\0') argc = 0;
    for (int i = 0; i < c->nbind; i++) free(c->bind[i]);
    for (int i = 0; i < argc; i++) c->bind[i] = xstrdup(argv[i]);
    c->nbind = argc;
    return 0;
}

static char *get_bind(const conf *c)
{
    sbuf b = {0};
    for (int i = 0; i < c->nbind; i++) {
        sb_str(&b, i ? " " : "");
        sb_str(&b, c->bind[i]);
    }
    return sb_take(&b);
}

/* "client-output-buffer-limit <class> <hard> <soft> <seconds> ...": the
 * normal, replica (alias slave) and pubsub classes, as Redis; classes not
 * named keep their values. */
static int obuf_class(const char *name)
{
    if (!strcasecmp(name, "normal")) return CONF_OBUF_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica")) return CONF_OBUF_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CONF_OBUF_PUBSUB;
    return -1;
}

static int set_obuf(conf *c, int argc, char **argv, int loading, char *err, size_t errlen)
{
    (void)loading;
    conf_obuf v[CONF_OBUF_CLASSES];
    memcpy(v, c->obuf, sizeof v);
    if (argc % 4)
        return fail(err, errlen, "Wrong number of arguments in buffer limit configuration.");
    for (int j = 0; j < argc; j += 4) {
        int k = obuf_class(argv[j]);
        char *end;
        if (k < 0)
            return fail(err, errlen,
                        "Invalid client class specified in buffer limit configuration.");
        v[k].soft_seconds = strtoll(argv[j + 3], &end, 10);
        if (argv[j + 1][0] == '-' || argv[j + 2][0] == '-' ||
            !str_to_memsize(argv[j + 1], &v[k].hard) || !str_to_memsize(argv[j + 2], &v[k].soft) ||
            v[k].soft_seconds < 0 || *end != '\0')
            return fail(err, errlen, "Error in hard, soft or soft_seconds setting in "
                                     "buffer limit configuration.");
    }
    memcpy(c->obuf, v, sizeof v);
    return 0;
}

static char *get_obuf(const conf *c)
{
    char buf[256];
    const conf_obuf *o = c->obuf;
    snprintf(buf, sizeof(buf), "normal %lld %lld %lld slave %lld %lld %lld pubsub %lld %lld %lld",
             o[0].hard, o[0].soft, o[0].soft_seconds, o[1].hard, o[1].soft, o[1].soft_seconds,
             o[2].hard, o[2].soft, o[2].soft_seconds);
    return xstrdup(buf);
}

/* "replicaof <host> <port>" (alias slaveof): the master to follow from
 * startup; "no one" or "" (what CONFIG GET shows for none): none. */
static int set_replicaof(conf *c, int argc, char **argv, int loading, char *err, size_t errlen)
{
    (void)loading;
    int empty = argc == 0 || (argc == 1 && !argv[0][0]);
    if (!empty && argc != 2) return fail(err, errlen, "wrong number of arguments");
    if (empty || (!strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one"))) {
        free(c->replicaof_host);
        c->replicaof_host = NULL;
        c->replicaof_port = 0;
        return 0;
    }
    for (const char *h = argv[0]; *h; h++)
        if ((unsigned char)*h <= ' ' || *h == 0x7f) return fail(err, errlen, "Invalid master host");
    if (!argv[0][0]) return fail(err, errlen, "Invalid master host");
    char *end;
    long port = strtol(argv[1], &end, 10);
    if (!argv[1][0] || *end || port < 0 || port > 65535)
        return fail(err, errlen, "Invalid master port");
    free(c->replicaof_host);
    c->replicaof_host = xstrdup(argv[0]);
    c->replicaof_port = (int)port;
    return 0;
}

static char *get_replicaof(const conf *c)
{
    if (!c->replicaof_host) return xstrdup("");
    char buf[320];
    snprintf(buf, sizeof buf, "%s %d", c->replicaof_host, c->replicaof_port);
    return xstrdup(buf);
}

static int set_notify(conf *c, int argc, char **argv, int loading, char *err, size_t errlen)
{
    (void)loading;
    if (argc > 1) return fail(err, errlen, "wrong number of arguments");
    int flags = argc ? notify_flags_parse(argv[0], strlen(argv[0])) : 0;
    if (flags < 0) return fail(err, errlen, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
    c->notify_keyspace_events = flags;
    return 0;
}

static char *get_notify(const conf *c)
{
    char buf[32];
    notify_flags_format(c->notify_keyspace_events, buf);
    return xstrdup(buf);
}

/* latency-tracking-info-percentiles: numbers within [0, 100] (Redis's
 * texts); "" sets none; one argument with spaces is split, as Redis splits
 * a multi-argument parameter given as one (--latency-tracking-info-percentiles
 * "50 99"). */
static int set_percentiles(conf *c, int argc, char **argv, int loading, char *err,
                           size_t errlen)
{
    (void)loading;
    if (argc == 1 && argv[0][0] == '\0') argc = 0;
    if (argc == 1 && strchr(argv[0], ' ')) {
        int n;
        char **parts = split_spaces(argv[0], &n);
        int rc = set_percentiles(c, n, parts, loading, err, errlen);
        for (int i = 0; i < n; i++) free(parts[i]);
        free(parts);
        return rc;
    }
    double *v = argc ? xmalloc((size_t)argc * sizeof *v) : NULL;
    for (int j = 0; j < argc; j++) {
        char *end;
        errno = 0;
        v[j] = strtod(argv[j], &end);
        if (!argv[j][0] || *end || isspace((unsigned char)argv[j][0]) || errno == ERANGE ||
            isnan(v[j])) {
            free(v);
            return fail(err, errlen, "Invalid latency-tracking-info-percentiles parameters");
        }
        if (v[j] > 100.0 || v[j] < 0.0) {
            free(v);
            return fail(err, errlen,
                        "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
        }
    }
    free(c->latency_percentiles);
    c->latency_percentiles = v;
    c->nlatency_percentiles = argc;
    return 0;
}

/* "%f" without trailing zeros or point, as Redis's trimDoubleString. */
static void trim_double(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, "%f", v);
    char *dot = strchr(buf, '.');
    if (!dot) return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0') *end-- = '\0';
    if (end == dot) *end = '\0';
}

static char *get_percentiles(const conf *c)
{
    sbuf b = {0};
    for (int j = 0; j < c->nlatency_percentiles; j++) {
        char f[64];
        trim_double(f, sizeof f, c->latency_percentiles[j]);
        if (j) sb_str(&b, " ");
        sb_str(&b, f);
    }
    return sb_take(&b);
}

static const conf_param params[] = {
    /* network */
    {"port", P_INT, 0, FIELD(port), .min = 0, .max = 65535, .def = 6379}, /* listen_set_port */
    {"bind", P_SPECIAL, PF_MULTI, .sdef = "127.0.0.1", .set = set_bind, /* listen_set_bind */
     .get = get_bind},
    {"tcp-backlog", P_INT, PF_IMMUTABLE, FIELD(tcp_backlog), .min = 0, .max = INT_MAX,
     .def = 511},
    {"protected-mode", P_BOOL, 0, FIELD(protected_mode), .def = 1},
    {"timeout", P_INT, 0, FIELD(timeout), .min = 0, .max = INT_MAX, .def = 0},
    {"tcp-keepalive", P_INT, 0, FIELD(tcp_keepalive), .min = 0, .max = INT_MAX, .def = 300},
    {"maxclients", P_INT, 0, FIELD(maxclients), .min = 1, .max = UINT_MAX, .def = 10000},
    {"requirepass", P_STR, PF_BYTES, BYTES_FIELD(requirepass), .sdef = ""},
    /* limits */
    {"proto-max-bulk-len", P_MEM, 0, FIELD(proto_max_bulk_len), .min = 1024 * 1024,
     .max = LLONG_MAX, .def = 512LL * 1024 * 1024},
    {"client-query-buffer-limit", P_MEM, 0, FIELD(client_query_buffer_limit),
     .min = 1024 * 1024, .max = LLONG_MAX, .def = 1024LL * 1024 * 1024},
    {"client-output-buffer-limit", P_SPECIAL, PF_MULTI,
     .sdef = "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
     .set = set_obuf, .get = get_obuf},
    /* general */
    {"databases", P_INT, PF_IMMUTABLE, FIELD(databases), .min = 1, .max = INT_MAX, .def = 16},
    {"loglevel", P_ENUM, 0, FIELD(loglevel), .def = LOG_NOTICE, .enums = loglevel_enum},
    {"logfile", P_STR, PF_IMMUTABLE, FIELD(logfile), .sdef = ""},
    {"pidfile", P_STR, PF_IMMUTABLE, FIELD(pidfile), .sdef = ""},
    {"hz", P_INT, 0, FIELD(hz), .min = 0, .max = INT_MAX, .def = 10, .check = check_hz},
    {"enable-debug-command", P_ENUM, PF_IMMUTABLE, FIELD(enable_debug_command),
     .def = DEBUG_CMD_NO, .enums = protected_enum},
    {"dir", P_STR, PF_PROTECTED, FIELD(dir), .sdef = "./data"},
    /* snapshots */
    {"dbfilename", P_STR, PF_PROTECTED | PF_FILENAME, FIELD(dbfilename), .sdef = "dump.rdb"},
    {"save", P_SPECIAL, PF_MULTI, .sdef = "3600 1 300 100 60 10000", .set = set_save,
     .get = get_save},
    {"stop-writes-on-bgsave-error", P_BOOL, 0, FIELD(stop_writes_on_bgsave_error), .def = 1},
    {"rdbcompression", P_BOOL, 0, FIELD(rdbcompression), .def = 1},
    {"rdb-key-save-delay", P_INT, PF_HIDDEN, FIELD(rdb_key_save_delay), .min = INT_MIN,
     .max = INT_MAX, .def = 0},
    {"rdbchecksum", P_BOOL, PF_IMMUTABLE, FIELD(rdbchecksum), .def = 1},
    {"snapshot-compression", P_ENUM, 0, FIELD(snapshot_compression), .def = SNAP_COMPRESS_NONE,
     .enums = compression_enum},
    {"bgsave-method", P_ENUM, 0, FIELD(bgsave_method), .def = BGSAVE_FORKLESS,
     .enums = bgsave_enum},
    /* AOF */
    {"appendonly", P_BOOL, 0, FIELD(appendonly), .def = 0},
    {"appendfsync", P_ENUM, 0, FIELD(appendfsync), .def = FSYNC_EVERYSEC, .enums = fsync_enum},
    {"appenddirname", P_STR, PF_IMMUTABLE | PF_DIRNAME, FIELD(appenddirname),
     .sdef = "appendonlydir"},
    {"appendfilename", P_STR, PF_IMMUTABLE | PF_FILENAME, FIELD(appendfilename),
     .sdef = "appendonly.aof"},
    {"aof-load-truncated", P_BOOL, 0, FIELD(aof_load_truncated), .def = 1},
    {"aof-use-rdb-preamble", P_BOOL, 0, FIELD(aof_use_rdb_preamble), .def = 1},
    {"auto-aof-rewrite-percentage", P_INT, 0, FIELD(auto_aof_rewrite_percentage), .min = 0,
     .max = INT_MAX, .def = 100},
    {"auto-aof-rewrite-min-size", P_MEM, 0, FIELD(auto_aof_rewrite_min_size), .min = 0,
     .max = LLONG_MAX, .def = 64LL * 1024 * 1024},
    {"aof-max-backlog", P_MEM, 0, FIELD(aof_max_backlog), .min = 1, .max = LLONG_MAX,
     .def = 64LL * 1024 * 1024},
    /* memory limit (evict.c) */
    {"maxmemory", P_MEM, 0, FIELD(maxmemory), .min = 0, .max = LLONG_MAX, .def = 0},
    {"maxmemory-policy", P_ENUM, 0, FIELD(maxmemory_policy), .def = MAXMEM_NOEVICTION,
     .enums = policy_enum},
    {"maxmemory-samples", P_INT, 0, FIELD(maxmemory_samples), .min = 1, .max = INT_MAX, .def = 5},
    {"maxmemory-eviction-tenacity", P_INT, 0, FIELD(maxmemory_eviction_tenacity), .min = 0,
     .max = 100, .def = 10},
    /* verso: count what a running forkless save retains (doc/design.md,
     * "Eviction during a save"); no: Redis's rule, as fork copy-on-write */
    {"maxmemory-include-save", P_BOOL, 0, FIELD(maxmemory_include_save), .def = 0},
    {"lfu-log-factor", P_INT, 0, FIELD(lfu_log_factor), .min = 0, .max = INT_MAX, .def = 10},
    {"lfu-decay-time", P_INT, 0, FIELD(lfu_decay_time), .min = 0, .max = INT_MAX, .def = 1},
    /* collections (the *-ziplist-* names are Redis's aliases: same field) */
    {"hash-max-listpack-entries", P_INT, 0, FIELD(hash_max_listpack_entries), .min = 0,
     .max = LONG_MAX, .def = 512},
    {"hash-max-ziplist-entries", P_INT, 0, FIELD(hash_max_listpack_entries), .min = 0,
     .max = LONG_MAX, .def = 512},
    {"hash-max-listpack-value", P_MEM, 0, FIELD(hash_max_listpack_value), .min = 0,
     .max = LLONG_MAX, .def = 64},
    {"hash-max-ziplist-value", P_MEM, 0, FIELD(hash_max_listpack_value), .min = 0,
     .max = LLONG_MAX, .def = 64},
    {"list-max-listpack-size", P_INT, 0, FIELD(list_max_listpack_size), .min = INT_MIN,
     .max = INT_MAX, .def = -2},
    {"list-max-ziplist-size", P_INT, 0, FIELD(list_max_listpack_size), .min = INT_MIN,
     .max = INT_MAX, .def = -2},
    {"list-compress-depth", P_INT, PF_NOEFFECT, FIELD(list_compress_depth), .min = 0,
     .max = INT_MAX, .def = 0},
    {"set-max-intset-entries", P_INT, 0, FIELD(set_max_intset_entries), .min = 0,
     .max = LONG_MAX, .def = 512},
    {"zset-max-listpack-entries", P_INT, 0, FIELD(zset_max_listpack_entries), .min = 0,
     .max = LONG_MAX, .def = 128},
    {"zset-max-ziplist-entries", P_INT, 0, FIELD(zset_max_listpack_entries), .min = 0,
     .max = LONG_MAX, .def = 128},
    {"zset-max-listpack-value", P_MEM, 0, FIELD(zset_max_listpack_value), .min = 0,
     .max = LLONG_MAX, .def = 64},
    {"zset-max-ziplist-value", P_MEM, 0, FIELD(zset_max_listpack_value), .min = 0,
     .max = LLONG_MAX, .def = 64},
    /* lazyfree */
    {"lazyfree-lazy-eviction", P_BOOL, 0, FIELD(lazyfree_lazy_eviction), .def = 0},
    {"lazyfree-lazy-expire", P_BOOL, 0, FIELD(lazyfree_lazy_expire), .def = 0},
    {"lazyfree-lazy-server-del", P_BOOL, 0, FIELD(lazyfree_lazy_server_del), .def = 0},
    {"lazyfree-lazy-user-del", P_BOOL, 0, FIELD(lazyfree_lazy_user_del), .def = 0},
    {"lazyfree-lazy-user-flush", P_BOOL, 0, FIELD(lazyfree_lazy_user_flush), .def = 0},
    /* replication (repl/); the slave-* names are Redis's aliases */
    {"replicaof", P_SPECIAL, PF_IMMUTABLE | PF_MULTI, .sdef = "no one", .set = set_replicaof,
     .get = get_replicaof},
    {"slaveof", P_SPECIAL, PF_IMMUTABLE | PF_MULTI, .sdef = "no one", .set = set_replicaof,
     .get = get_replicaof},
    {"masterauth", P_STR, PF_BYTES, BYTES_FIELD(masterauth), .sdef = ""},
    {"masteruser", P_STR, 0, FIELD(masteruser), .sdef = ""},
    {"replica-read-only", P_BOOL, 0, FIELD(replica_read_only), .def = 1},
    {"slave-read-only", P_BOOL, 0, FIELD(replica_read_only), .def = 1},
    {"replica-serve-stale-data", P_BOOL, 0, FIELD(replica_serve_stale_data), .def = 1},
    {"slave-serve-stale-data", P_BOOL, 0, FIELD(replica_serve_stale_data), .def = 1},
    {"replica-priority", P_INT, 0, FIELD(replica_priority), .min = 0, .max = INT_MAX, .def = 100},
    {"slave-priority", P_INT, 0, FIELD(replica_priority), .min = 0, .max = INT_MAX, .def = 100},
    {"replica-announced", P_BOOL, 0, FIELD(replica_announced), .def = 1},
    {"replica-announce-ip", P_STR, 0, FIELD(replica_announce_ip), .sdef = ""},
    {"slave-announce-ip", P_STR, 0, FIELD(replica_announce_ip), .sdef = ""},
    {"replica-announce-port", P_INT, 0, FIELD(replica_announce_port), .min = 0, .max = 65535,
     .def = 0},
    {"slave-announce-port", P_INT, 0, FIELD(replica_announce_port), .min = 0, .max = 65535,
     .def = 0},
    {"replica-lazy-flush", P_BOOL, PF_NOEFFECT, FIELD(replica_lazy_flush), .def = 0},
    {"slave-lazy-flush", P_BOOL, PF_NOEFFECT, FIELD(replica_lazy_flush), .def = 0},
    {"replica-ignore-maxmemory", P_BOOL, 0, FIELD(replica_ignore_maxmemory), .def = 1},
    {"slave-ignore-maxmemory", P_BOOL, 0, FIELD(replica_ignore_maxmemory), .def = 1},
    {"repl-diskless-sync", P_BOOL, 0, FIELD(repl_diskless_sync), .def = 1},
    {"repl-diskless-sync-delay", P_INT, 0, FIELD(repl_diskless_sync_delay), .min = 0,
     .max = INT_MAX, .def = 5},
    {"repl-diskless-sync-max-replicas", P_INT, 0, FIELD(repl_diskless_sync_max_replicas),
     .min = 0, .max = INT_MAX, .def = 0},
    {"repl-diskless-load", P_ENUM, PF_NOEFFECT, FIELD(repl_diskless_load),
     .def = REPL_LOAD_DISABLED, .enums = diskless_load_enum},
    {"repl-ping-replica-period", P_INT, 0, FIELD(repl_ping_replica_period), .min = 1,
     .max = INT_MAX, .def = 10},
    {"repl-ping-slave-period", P_INT, 0, FIELD(repl_ping_replica_period), .min = 1,
     .max = INT_MAX, .def = 10},
    {"repl-timeout", P_INT, 0, FIELD(repl_timeout), .min = 1, .max = INT_MAX, .def = 60},
    {"repl-disable-tcp-nodelay", P_BOOL, PF_NOEFFECT, FIELD(repl_disable_tcp_nodelay), .def = 0},
    {"repl-backlog-size", P_MEM, 0, FIELD(repl_backlog_size), .min = 1, .max = LLONG_MAX,
     .def = 1024 * 1024},
    {"repl-backlog-ttl", P_INT, 0, FIELD(repl_backlog_ttl), .min = 0, .max = LONG_MAX,
     .def = 3600},
    {"min-replicas-to-write", P_INT, 0, FIELD(min_replicas_to_write), .min = 0, .max = INT_MAX,
     .def = 0},
    {"min-slaves-to-write", P_INT, 0, FIELD(min_replicas_to_write), .min = 0, .max = INT_MAX,
     .def = 0},
    {"min-replicas-max-lag", P_INT, 0, FIELD(min_replicas_max_lag), .min = 0, .max = INT_MAX,
     .def = 10},
    {"min-slaves-max-lag", P_INT, 0, FIELD(min_replicas_max_lag), .min = 0, .max = INT_MAX,
     .def = 10},
    /* keyspace notifications (notify.c) */
    {"notify-keyspace-events", P_SPECIAL, 0, .sdef = "", .set = set_notify, .get = get_notify},
    /* scripting */
    {"busy-reply-threshold", P_INT, 0, FIELD(busy_reply_threshold), .min = 0, .max = LLONG_MAX,
     .def = 5000},
    {"lua-time-limit", P_INT, 0, FIELD(busy_reply_threshold), .min = 0, .max = LLONG_MAX,
     .def = 5000},
    /* ---- scripting: more parameters here ---- */
    /* introspection */
    {"slowlog-log-slower-than", P_INT, 0, FIELD(slowlog_log_slower_than), .min = -1,
     .max = LLONG_MAX, .def = 10000},
    {"slowlog-max-len", P_INT, 0, FIELD(slowlog_max_len), .min = 0, .max = LONG_MAX, .def = 128},
    {"latency-monitor-threshold", P_INT, 0, FIELD(latency_monitor_threshold), .min = 0,
     .max = LLONG_MAX, .def = 0},
    {"latency-tracking", P_BOOL, 0, FIELD(latency_tracking), .def = 1},
    {"latency-tracking-info-percentiles", P_SPECIAL, PF_MULTI, .sdef = "50 99 99.9",
     .set = set_percentiles, .get = get_percentiles},
    /* ---- introspection: more parameters here ---- */
    /* clients */
    {"tracking-table-max-keys", P_INT, 0, FIELD(tracking_table_max_keys), .min = 0,
     .max = LONG_MAX, .def = 1000000},
    /* ---- clients: more parameters here ---- */
    /* loading */
    {"loading-process-events-interval-bytes", P_INT, PF_HIDDEN,
     FIELD(loading_process_events_interval_bytes), .min = 1024, .max = INT_MAX,
     .def = 2 * 1024 * 1024},
    {"key-load-delay", P_INT, PF_HIDDEN, FIELD(key_load_delay), .min = INT_MIN, .max = INT_MAX,
     .def = 0},
    /* ---- loading: more parameters here ---- */
    /* the crash report */
    {"use-exit-on-panic", P_BOOL, PF_HIDDEN, FIELD(use_exit_on_panic), .def = 0},
    /* ---- config coverage: more parameters here ---- */
    /* accepted so that Redis tools and config files work; no effect */
#include "conf_compat_params.h"
};

#define NPARAMS (sizeof(params) / sizeof(params[0]))

static const conf_param *param_find(const char *name)
{
    for (size_t i = 0; i < NPARAMS; i++)
        if (!strcasecmp(params[i].name, name)) return &params[i];
    return NULL;
}

/* ---- reading and writing one parameter ---- */

static char **str_field(const conf *c, const conf_param *p)
{
    return (char **)((char *)c + p->off);
}

static size_t *len_field(const conf *c, const conf_param *p)
{
    assert(p->flags & PF_BYTES);
    return (size_t *)((char *)c + p->lenoff);
}

/* A PF_BYTES parameter takes n bytes (NUL-terminated as well). */
static void set_bytes(conf *c, const conf_param *p, const char *s, size_t n)
{
    char **f = str_field(c, p);
    free(*f);
    *f = xstrndup(s, n);
    *len_field(c, p) = n;
}

static long long num_get(const conf *c, const conf_param *p)
{
    const char *f = (const char *)c + p->off;
    return p->size == sizeof(int) ? *(const int *)f : *(const long long *)f;
}

/* An int field keeps at most INT_MAX (maxclients admits UINT_MAX, as
 * Redis, and no server gets near either). */
static void num_put(conf *c, const conf_param *p, long long v)
{
    char *f = (char *)c + p->off;
    if (p->size == sizeof(int)) *(int *)f = v > INT_MAX ? INT_MAX : (int)v;
    else *(long long *)f = v;
}

static const char *enum_name(const conf_enum *e, long long v)
{
    for (; e->name; e++)
        if (e->val == v) return e->name;
    return "unknown";
}

/* The value of a PF_ENUM parameter on the heap: the name of that value, or
 * for PF_FLAGS the names of its bits in table order ("nosave now"), as
 * Redis's configEnumGetName. */
static char *enum_format(const conf_param *p, long long v)
{
    if (!(p->flags & PF_FLAGS) || !v) return xstrdup(enum_name(p->enums, v));
    sbuf b = {0};
    long long left = v;
    for (const conf_enum *e = p->enums; e->name; e++) {
        if (e->val == v) {
            free(b.p);
            return xstrdup(e->name);
        }
        if (e->val && (left & e->val) == e->val) {
            sb_str(&b, b.len ? " " : "");
            sb_str(&b, e->name);
            left &= ~(long long)e->val;
        }
    }
    if (left || !b.p) {
        free(b.p);
        return xstrdup("unknown");
    }
    return b.p;
}

/* One enum name, or for PF_FLAGS every argument's bits OR'ed (at least
 * one argument). */
static int parse_enum(const conf_param *p, int argc, char **argv, long long *v, char *err,
                      size_t errlen)
{
    int ok = argc > 0;
    *v = 0;
    for (int i = 0; i < argc && ok; i++) {
        ok = 0;
        for (const conf_enum *e = p->enums; e->name && !ok; e++) {
            if (!strcasecmp(e->name, argv[i])) {
                *v |= e->val;
                ok = 1;
            }
        }
    }
    if (ok) return 0;
    size_t n = (size_t)snprintf(err, errlen, "argument(s) must be one of the following: ");
    for (const conf_enum *e = p->enums; e->name && n < errlen; e++)
        n += (size_t)snprintf(err + n, errlen - n, "%s%s", e == p->enums ? "" : ", ", e->name);
    return -1;
}

static int parse_num(const conf_param *p, const char *s, long long *v, char *err,
                     size_t errlen)
{
    size_t n = strlen(s);
    if (p->type == P_MEM) {
        if (s[0] != '-' && str_to_memsize(s, v)) {
            /* a memory value */
        } else if ((p->flags & PF_PERCENT) && n > 1 && s[n - 1] == '%' &&
                   str_to_ll(s, n - 1, v) && *v >= 0) {
            *v = -*v; /* a percentage is kept negative, as Redis */
            if (*v < p->min) {
                snprintf(err, errlen, "percentage argument must be less or equal to %lld",
                         -p->min);
                return -1;
            }
            return 0;
        } else {
            return fail(err, errlen, (p->flags & PF_PERCENT)
                                         ? "argument must be a memory or percent value"
                                         : "argument must be a memory value");
        }
    } else if (p->flags & PF_OCTAL) {
        char *end;
        errno = 0;
        *v = strtoll(s, &end, 8);
        if (errno || *end) /* "" is 0, as Redis's strtoll */
            return fail(err, errlen, "argument couldn't be parsed as an octal number");
        if (*v < p->min || *v > p->max) {
            snprintf(err, errlen, "argument must be between %llo and %llo inclusive",
                     (unsigned long long)p->min, (unsigned long long)p->max);
            return -1;
        }
        return 0;
    } else if (!str_to_ll(s, n, v)) {
        return fail(err, errlen, "argument couldn't be parsed into an integer");
    }
    if (*v < p->min || *v > p->max) {
        snprintf(err, errlen, "argument must be between %lld and %lld inclusive", p->min,
                 p->max);
        return -1;
    }
    return 0;
}

/* A string parameter from its arguments (one unless PF_MULTI, then kept
 * as the norm function writes them, or joined by spaces). */
static int set_str(conf *c, const conf_param *p, int argc, char **argv, char *err,
                   size_t errlen)
{
    const char *s = argc ? argv[0] : "";
    if ((p->flags & (PF_FILENAME | PF_DIRNAME)) && (strchr(s, '/') || strchr(s, '\\'))) {
        snprintf(err, errlen, "%s can't be a path, just a %s", p->name,
                 p->flags & PF_DIRNAME ? "dirname" : "filename");
        return -1;
    }
    char *v;
    if (p->norm) {
        char *one[1] = {""};
        v = p->norm(argc ? argc : 1, argc ? argv : one, err, errlen);
        if (!v) return -1;
    } else {
        sbuf b = {0};
        for (int i = 0; i < argc; i++) {
            sb_str(&b, i ? " " : "");
            sb_str(&b, argv[i]);
        }
        v = sb_take(&b);
    }
    if (!p->size) {
        free(v);
        return 0;
    }
    char **f = str_field(c, p);
    free(*f);
    *f = v;
    return 0;
}

/* Sets p from its arguments (argc is 1 unless PF_MULTI). loading: from a
 * file or the command line rather than CONFIG SET. */
static int param_set(conf *c, const conf_param *p, int argc, char **argv, int loading,
                     char *err, size_t errlen)
{
    long long v = 0;
    switch (p->type) {
    case P_SPECIAL:
        return p->set(c, argc, argv, loading, err, errlen);
    case P_STR:
        if (p->flags & PF_BYTES) {
            set_bytes(c, p, argc ? argv[0] : "", argc ? strlen(argv[0]) : 0);
            return 0;
        }
        return set_str(c, p, argc, argv, err, errlen);
    case P_BOOL:
        if (!strcasecmp(argv[0], "yes")) v = 1;
        else if (strcasecmp(argv[0], "no")) return fail(err, errlen, "argument must be 'yes' or 'no'");
        break;
    case P_ENUM:
        if (parse_enum(p, (p->flags & PF_FLAGS) ? argc : 1, argv, &v, err, errlen) < 0)
            return -1;
        break;
    default:
        if (parse_num(p, argv[0], &v, err, errlen) < 0) return -1;
    }
    const char *why = p->check ? p->check(&v) : NULL;
    if (why) return fail(err, errlen, why);
    if (p->size) num_put(c, p, v);
    return 0;
}

/* The value as CONFIG GET shows it, on the heap. */
static char *param_format(const conf *c, const conf_param *p)
{
    char buf[32];
    if (p->type == P_SPECIAL) return p->get(c);
    if (!p->size) return xstrdup(p->sdef);
    if (p->type == P_STR) return xstrdup(*str_field(c, p) ? *str_field(c, p) : "");
    long long v = num_get(c, p);
    if (p->type == P_BOOL) return xstrdup(v ? "yes" : "no");
    if (p->type == P_ENUM) return enum_format(p, v);
    if ((p->flags & PF_PERCENT) && v < 0) snprintf(buf, sizeof buf, "%lld%%", -v);
    else if (p->flags & PF_OCTAL) snprintf(buf, sizeof buf, "%llo", (unsigned long long)v);
    else ll_to_str(buf, v);
    return xstrdup(buf);
}

/* The value as CONFIG GET shows it, on the heap, and its length (a
 * PF_BYTES value may hold NUL bytes). */
static char *param_format_len(const conf *c, const conf_param *p, size_t *len)
{
    if (p->flags & PF_BYTES) {
        *len = *len_field(c, p);
        return xstrndup(*str_field(c, p), *len);
    }
    char *v = param_format(c, p);
    *len = strlen(v);
    return v;
}

static int param_changed(const conf *a, const conf *b, const conf_param *p)
{
    size_t la, lb;
    char *va = param_format_len(a, p, &la), *vb = param_format_len(b, p, &lb);
    int changed = la != lb || memcmp(va, vb, la) != 0;
    free(va);
    free(vb);
    return changed;
}

/* ---- whole conf ---- */

/* 1 when params[i] is another name of an earlier parameter's field
 * (slave-announce-ip): its string is owned once. */
static int is_alias(size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (params[j].size && params[j].off == params[i].off) return 1;
    return 0;
}

void conf_init(conf *c)
{
    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < NPARAMS; i++) {
        const conf_param *p = &params[i];
        if (p->type == P_SPECIAL) {
            int argc;
            char **argv = split_args(p->sdef, &argc);
            char err[CONF_ERRLEN];
            int rc = p->set(c, argc, argv, 0, err, sizeof(err));
            assert(rc == 0); /* the defaults are valid */
            (void)rc;
            free_args(argv, argc);
        } else if (p->size && p->type == P_STR) {
            if (!is_alias(i)) *str_field(c, p) = xstrdup(p->sdef);
        } else if (p->size) {
            num_put(c, p, p->def);
        }
    }
}

void conf_free(conf *c)
{
    for (size_t i = 0; i < NPARAMS; i++) {
        if (params[i].type == P_STR && params[i].size && !is_alias(i)) {
            char **f = str_field(c, &params[i]);
            free(*f);
            *f = NULL;
        }
    }
    for (int i = 0; i < c->nbind; i++) free(c->bind[i]);
    c->nbind = 0;
    free(c->replicaof_host);
    c->replicaof_host = NULL;
    free(c->latency_percentiles);
    c->latency_percentiles = NULL;
}

/* A deep copy: dst owns copies of every string. */
static void conf_dup(conf *dst, const conf *src)
{
    *dst = *src;
    for (size_t i = 0; i < NPARAMS; i++) {
        if (params[i].type == P_STR && params[i].size && !is_alias(i)) {
            char **f = str_field(dst, &params[i]);
            if (*f && (params[i].flags & PF_BYTES)) *f = xstrndup(*f, *len_field(dst, &params[i]));
            else if (*f) *f = xstrdup(*f);
        }
    }
    if (src->replicaof_host) dst->replicaof_host = xstrdup(src->replicaof_host);
    for (int i = 0; i < src->nbind; i++) dst->bind[i] = xstrdup(src->bind[i]);
    if (src->nlatency_percentiles) {
        size_t n = (size_t)src->nlatency_percentiles * sizeof(double);
        dst->latency_percentiles = xmalloc(n);
        memcpy(dst->latency_percentiles, src->latency_percentiles, n);
    }
}

/* ---- config file and command line ---- */

/* Directives Redis 7.0 still reads from a config file (with one argument)
 * and ignores. */
static int is_deprecated(int argc, char **argv)
{
    static const char *const names[] = {"list-max-ziplist-entries", "list-max-ziplist-value",
                                        "lua-replicate-commands"};
    for (size_t i = 0; argc == 2 && i < sizeof names / sizeof *names; i++)
        if (!strcasecmp(argv[0], names[i])) return 1;
    return 0;
}

/* conf_apply with each word's length (NULL: strlen's): requirepass,
 * masterauth and a user's rules keep a NUL ("\x00") of theirs. */
static int apply_len(conf *c, int argc, char **argv, const size_t *lens, char *err,
                     size_t errlen)
{
    if (argc < 1) return fail(err, errlen, "Bad directive or wrong number of arguments");
    const conf_param *p = param_find(argv[0]);
    if (!p && is_deprecated(argc, argv)) return 0;
    /* "user name rules...": ACL users, applied at startup (acl_file.c) */
    if (!p && !strcasecmp(argv[0], "user") && argc >= 2)
        return acl_conf_user_line(argc - 1, argv + 1, lens ? lens + 1 : NULL, err, errlen);
    if (!p) return fail(err, errlen, "Bad directive or wrong number of arguments");
    if (!(p->flags & PF_MULTI) && argc != 2) return fail(err, errlen, "wrong number of arguments");
    if ((p->flags & PF_BYTES) && lens) {
        set_bytes(c, p, argv[1], lens[1]);
        return 0;
    }
    if ((p->flags & PF_MULTI) && argc == 2 && strchr(argv[1], ' ')) {
        /* several words as one ("--bind '127.0.0.1 ::1'", a quoted file
         * value): its words, as Redis 7.0 splits a multi-argument
         * parameter's only argument */
        int n;
        size_t *wl = NULL;
        char **w = split_args_len(argv[1], &n, &wl);
        if (!w) return fail(err, errlen, "Unbalanced quotes in configuration line");
        int rc = param_set(c, p, n, w, 1, err, errlen);
        free_args(w, n);
        free(wl);
        return rc;
    }
    return param_set(c, p, argc - 1, argv + 1, 1, err, errlen);
}

int conf_apply(conf *c, int argc, char **argv, char *err, size_t errlen)
{
    return apply_len(c, argc, argv, NULL, err, errlen);
}

static char *trim(char *s)
{
    s += strspn(s, " \t\r\n");
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    return s;
}

static int apply_line(conf *c, const char *line, char *err, size_t errlen)
{
    int argc, rc = 0;
    size_t *lens = NULL;
    char **argv = split_args_len(line, &argc, &lens);
    if (!argv) return fail(err, errlen, "Unbalanced quotes in configuration line");
    if (argc > 0) rc = apply_len(c, argc, argv, lens, err, errlen);
    free_args(argv, argc);
    free(lens);
    return rc;
}

/* "include <path>": that file's directives, here, as Redis: a pattern
 * with * ? or [ takes every matching file (none is fine), a plain path must
 * open. An error inside it is reported at its own line. The included lines
 * do not shift the numbers of the command line's. */
static int include_files(conf *c, const char *path, char *err, size_t errlen)
{
    int saved = c->load_newlines, rc = 0;
    c->load_newlines = 0; /* the included file's lines count from 1 */
    if (!strpbrk(path, "*?[")) {
        rc = conf_load_file(c, path, err, errlen);
    } else {
        glob_t g;
        if (glob(path, 0, NULL, &g) == 0) {
            for (size_t i = 0; i < g.gl_pathc && rc == 0; i++) {
                c->load_newlines = 0;
                rc = conf_load_file(c, g.gl_pathv[i], err, errlen);
            }
            globfree(&g);
        }
    }
    c->load_newlines = saved;
    return rc;
}

/* 1 when the line is "include <path>" (argc 2), which load_text handles. */
static int is_include(const char *line, char **path)
{
    if (strncasecmp(line, "include", 7) || !strchr(" \t", line[7]) || !line[7]) return 0;
    int argc;
    char **argv = split_args(line, &argc);
    int yes = argv && argc == 2;
    if (yes) *path = xstrdup(argv[1]);
    free_args(argv, argc);
    return yes;
}

/* Applies every line of text (modified in place); its first line is line
 * number `first` in error messages. */
static int load_text(conf *c, char *text, int first, char *err, size_t errlen)
{
    char reason[CONF_ERRLEN];
    int linenum = first;
    for (char *line = text; line; linenum++) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *t = trim(line);
        char *inc = NULL;
        if (*t && *t != '#' && is_include(t, &inc)) {
            int rc = include_files(c, inc, err, errlen);
            free(inc);
            if (rc < 0) return -1;
        } else if (*t && *t != '#' && apply_line(c, t, reason, sizeof(reason)) < 0) {
            snprintf(err, errlen,
                     "\n*** FATAL CONFIG FILE ERROR (Redis " REDIS_VERSION_SHOWN ") ***\n"
                     "Reading the configuration file, at line %d\n>>> '%s'\n%s",
                     linenum, t, reason);
            return -1;
        }
        line = nl ? nl + 1 : NULL;
    }
    return 0;
}

int conf_load_file(conf *c, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "Fatal error, can't open config file '%s': %s", path,
                 strerror(errno));
        return -1;
    }
    sbuf text = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) sb_add(&text, buf, n);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    char *s = sb_take(&text);
    if (rerr) {
        snprintf(err, errlen, "Fatal error, can't read config file '%s': %s", path,
                 strerror(rerr));
        free(s);
        return -1;
    }
    int first = c->load_newlines + 1;
    for (const char *p = s; (p = strchr(p, '\n')) != NULL; p++) c->load_newlines++;
    int rc = load_text(c, s, first, err, errlen);
    free(s);
    return rc;
}

/* Whether a "--name" argument holds its value too ("--port 7000"). */
static int has_value(const char *arg)
{
    int n;
    char **v = split_args(arg, &n);
    if (!v) return 1;
    free_args(v, n);
    return n != 1;
}

static int is_option(const char *arg) { return arg[0] == '-' && arg[1] == '-'; }

/* Turns "--port" "7000" "--save" "60" "1" into "port \"7000\" \nsave \"60\"
 * \"1\" " as Redis does: "--name" starts a line unless the previous name
 * still waits for its value; a bare "--save" means save "". */
static char *args_to_text(int argc, char **argv)
{
    sbuf o = {0};
    int name_done = 1; /* the last --name got a value, so --x is a name */
    for (int j = 0; j < argc; j++) {
        if (name_done && is_option(argv[j])) {
            if (o.len) sb_str(&o, "\n");
            sb_str(&o, argv[j] + 2);
            sb_str(&o, " ");
            name_done = has_value(argv[j]);
            if (!name_done && !strcasecmp(argv[j], "--save") &&
                (j == argc - 1 || is_option(argv[j + 1]))) {
                sb_str(&o, "\"\"");
                name_done = 1;
            }
        } else {
            char *q = quote_arg(argv[j]);
            sb_str(&o, q);
            sb_str(&o, " ");
            free(q);
            name_done = 1;
        }
    }
    return sb_take(&o);
}

int conf_load_args(conf *c, int argc, char **argv, char *err, size_t errlen)
{
    if (argc <= 0) return 0;
    char *text = args_to_text(argc, argv);
    /* Redis appends "\n" and the options to the file's text */
    int rc = load_text(c, text, c->load_newlines + 2, err, errlen);
    free(text);
    return rc;
}

/* ---- CONFIG REWRITE's lines (conf_rewrite.c writes the file) ---- */

/* The row params[i] is another name of (its canonical row): an earlier row
 * with the same field, or the same setter (slaveof -> replicaof). */
static size_t canonical_row(size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (params[i].size && params[j].size && params[j].off == params[i].off) return j;
        if (params[i].set && params[j].set == params[i].set) return j;
    }
    return i;
}

const char *conf_canonical_name(const char *name)
{
    const conf_param *p = param_find(name);
    return p ? params[canonical_row((size_t)(p - params))].name : NULL;
}

/* A memory value as Redis's rewriteConfigFormatMemory: 1gb, 64mb, 4kb or
 * bytes. */
static void format_memory(char *buf, size_t len, long long v)
{
    const long long gb = 1024LL * 1024 * 1024, mb = 1024 * 1024, kb = 1024;
    if (v && v % gb == 0) snprintf(buf, len, "%lldgb", v / gb);
    else if (v && v % mb == 0) snprintf(buf, len, "%lldmb", v / mb);
    else if (v && v % kb == 0) snprintf(buf, len, "%lldkb", v / kb);
    else snprintf(buf, len, "%lld", v);
}

static void emit_line(conf_line_fn fn, void *priv, const char *name, const char *args, int force)
{
    sbuf b = {0};
    sb_str(&b, name);
    sb_str(&b, " ");
    sb_str(&b, args);
    char *line = sb_take(&b);
    fn(priv, name, line, force);
    free(line);
}

/* The lines of one special parameter, as Redis's rewrite functions for
 * them: one save line per save point (always written, save "" when none),
 * one client-output-buffer-limit line per class (written when the class
 * is not at its default), replicaof only while following a master. */
static void special_lines(const conf *c, const conf *def, const conf_param *p, conf_line_fn fn,
                          void *priv)
{
    char buf[160];
    if (p->set == set_save) {
        if (c->nsave == 0) emit_line(fn, priv, p->name, "\"\"", 1);
        for (int i = 0; i < c->nsave; i++) {
            snprintf(buf, sizeof buf, "%lld %lld", c->save[i].seconds, c->save[i].changes);
            emit_line(fn, priv, p->name, buf, 1);
        }
    } else if (p->set == set_obuf) {
        static const char *const cls[CONF_OBUF_CLASSES] = {"normal", "replica", "pubsub"};
        for (int k = 0; k < CONF_OBUF_CLASSES; k++) {
            char h[32], so[32];
            const conf_obuf *o = &c->obuf[k], *d = &def->obuf[k];
            format_memory(h, sizeof h, o->hard);
            format_memory(so, sizeof so, o->soft);
            snprintf(buf, sizeof buf, "%s %s %s %lld", cls[k], h, so, o->soft_seconds);
            emit_line(fn, priv, p->name, buf, memcmp(o, d, sizeof *o) != 0);
        }
    } else if (p->set == set_replicaof) {
        if (c->replicaof_host) {
            char *args = xmalloc(strlen(c->replicaof_host) + 24);
            sprintf(args, "%s %d", c->replicaof_host, c->replicaof_port);
            emit_line(fn, priv, p->name, args, 1);
            free(args);
        }
    } else {
        char *v = p->get(c), *dv = p->get(def);
        emit_line(fn, priv, p->name, v, strcmp(v, dv) != 0);
        free(v);
        free(dv);
    }
}

void conf_rewrite_each(const conf *c, conf_line_fn fn, void *priv)
{
    conf def;
    conf_init(&def);
    for (size_t i = 0; i < NPARAMS; i++) {
        const conf_param *p = &params[i];
        if (canonical_row(i) != i) continue;
        if (p->type == P_SPECIAL) {
            special_lines(c, &def, p, fn, priv);
            continue;
        }
        char *v = param_format(c, p), *dv = param_format(&def, p);
        int force = strcmp(v, dv) != 0;
        if (p->type == P_STR && (p->flags & PF_MULTI)) {
            /* several words, written as such (oom-score-adj-values 0 200 800) */
            emit_line(fn, priv, p->name, *v ? v : "\"\"", force);
        } else if (p->flags & PF_BYTES) {
            char *q = quote_arg_len(*str_field(c, p), *len_field(c, p));
            emit_line(fn, priv, p->name, q, param_changed(c, &def, p));
            free(q);
        } else if (p->type == P_STR) {
            /* dir: the working directory (the server chdir'ed into it),
             * absolute and always written, as Redis */
            char cwd[PATH_MAX];
            int is_dir = !strcmp(p->name, "dir") && getcwd(cwd, sizeof cwd);
            char *q = quote_arg(is_dir ? cwd : v);
            emit_line(fn, priv, p->name, q, force || is_dir);
            free(q);
        } else if (p->type == P_MEM && num_get(c, p) >= 0) {
            char m[32];
            format_memory(m, sizeof m, num_get(c, p));
            emit_line(fn, priv, p->name, m, force);
        } else {
            emit_line(fn, priv, p->name, v, force);
        }
        free(v);
        free(dv);
    }
    conf_free(&def);
}

/* ---- CONFIG GET / CONFIG SET ---- */

void conf_get(const conf *c, const char *pattern, conf_emit_fn emit, void *priv)
{
    if (!strpbrk(pattern, "[*?")) {
        /* an exact name answers under the spelling asked, as Redis 7.0 */
        const conf_param *p = param_find(pattern);
        if (!p) return;
        size_t n;
        char *v = param_format_len(c, p, &n);
        emit(priv, pattern, v, n);
        free(v);
        return;
    }
    size_t plen = strlen(pattern);
    for (size_t i = 0; i < NPARAMS; i++) {
        const conf_param *p = &params[i];
        if (p->flags & PF_HIDDEN) continue;
        if (!glob_match(pattern, plen, p->name, strlen(p->name), 1)) continue;
        size_t n;
        char *v = param_format_len(c, p, &n);
        emit(priv, p->name, v, n);
        free(v);
    }
}

static conf_hook_fn conf_hook; /* main thread only */

/* ---- parameters without effect: said once in the log ---- */

static unsigned char noeffect_logged[NPARAMS]; /* per canonical row; main thread only */

/* Logs, the first time only, that the parameter of row i does nothing in
 * verso. */
static void log_noeffect(size_t i)
{
    size_t r = canonical_row(i);
    if (!(params[r].flags & PF_NOEFFECT) || noeffect_logged[r]) return;
    noeffect_logged[r] = 1;
    log_warning("Config parameter '%s' is accepted for compatibility with Redis "
                "but has no effect in verso", params[r].name);
}

void conf_log_noeffect(const conf *c)
{
    conf def;
    conf_init(&def);
    for (size_t i = 0; i < NPARAMS; i++)
        if ((params[i].flags & PF_NOEFFECT) && param_changed(&def, c, &params[i])) log_noeffect(i);
    conf_free(&def);
}

int conf_has_effect(const char *name)
{
    const conf_param *p = param_find(name);
    return p && !(p->flags & PF_NOEFFECT);
}

void conf_set_hook(conf_hook_fn fn) { conf_hook = fn; }

#define SET_FAILED "ERR CONFIG SET failed (possibly related to argument '%s') - %s"

/* Finds the row of every name; the first bad name (unknown, immutable,
 * repeated) fails the whole command, as Redis checks names first. */
static int resolve_names(int n, char **names, const conf_param **ps, int allow_protected,
                         char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        const conf_param *p = param_find(names[i]);
        const char *why = NULL;
        if (!p) {
            snprintf(err, errlen,
                     "ERR Unknown option or number of arguments for CONFIG SET - '%s'",
                     names[i]);
            return -1;
        }
        if (p->flags & PF_IMMUTABLE) why = "can't set immutable config";
        else if ((p->flags & PF_PROTECTED) && !allow_protected) why = "can't set protected config";
        for (int j = 0; j < i && !why; j++)
            if (ps[j] == p) why = "duplicate parameter";
        if (why) {
            snprintf(err, errlen, SET_FAILED, names[i], why);
            return -1;
        }
        ps[i] = p;
    }
    return 0;
}

static int set_values(conf *now, int n, const conf_param **ps, char **values,
                      const size_t *vlens, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        if ((ps[i]->flags & PF_BYTES) && vlens) {
            set_bytes(now, ps[i], values[i], vlens[i]);
            continue;
        }
        char reason[CONF_ERRLEN];
        char *one[1] = {values[i]};
        int argc = 1, rc;
        char **argv = one;
        if (ps[i]->flags & PF_MULTI) argv = split_spaces(values[i], &argc);
        rc = param_set(now, ps[i], argc, argv, 0, reason, sizeof(reason));
        if (argv != one) free_args(argv, argc);
        if (rc < 0) {
            snprintf(err, errlen, SET_FAILED, ps[i]->name, reason);
            return -1;
        }
    }
    return 0;
}

/* Asks the hook about every changed parameter. `live` already holds the
 * new values (the hooks read the server's conf, so every value is in place
 * before the first hook runs, as Redis applies all then calls the apply
 * functions); `old` holds the previous ones. On a veto, `live` gets the old
 * values back and the hooks that accepted are called again with old and
 * new swapped, so they can undo; *live then owns the old values and
 * `old` the rejected ones. */
static int run_hooks(conf *old, conf *live, int n, const conf_param **ps, char *err,
                     size_t errlen)
{
    if (!conf_hook) return 0;
    for (int i = 0; i < n; i++) {
        char reason[CONF_ERRLEN] = "";
        if (!param_changed(old, live, ps[i])) continue;
        if (conf_hook(old, live, ps[i]->name, reason, sizeof(reason)) == 0) continue;
        conf rejected = *live;
        *live = *old;
        *old = rejected;
        for (int j = i - 1; j >= 0; j--) {
            char ignored[CONF_ERRLEN];
            if (param_changed(old, live, ps[j]))
                conf_hook(old, live, ps[j]->name, ignored, sizeof(ignored));
        }
        if (reason[0]) snprintf(err, errlen, SET_FAILED, ps[i]->name, reason);
        else snprintf(err, errlen, "ERR CONFIG SET failed (possibly related to argument '%s')",
                      ps[i]->name);
        return -1;
    }
    return 0;
}

int conf_set(conf *c, int npairs, char **names, char **values, char *err, size_t errlen)
{
    return conf_set_from(c, 0, npairs, names, values, err, errlen);
}

int conf_set_from(conf *c, int client_local, int npairs, char **names, char **values, char *err,
                  size_t errlen)
{
    return conf_set_bytes(c, client_local, npairs, names, values, NULL, err, errlen);
}

int conf_set_bytes(conf *c, int client_local, int npairs, char **names, char **values,
                   const size_t *vlens, char *err, size_t errlen)
{
    int mode = c->enable_protected_configs;
    int allow_protected = mode == DEBUG_CMD_YES || (mode == DEBUG_CMD_LOCAL && client_local);
    if (npairs <= 0) return 0;
    const conf_param **ps = xcalloc((size_t)npairs, sizeof(*ps));
    int rc = -1;
    if (resolve_names(npairs, names, ps, allow_protected, err, errlen) == 0) {
        conf now;
        conf_dup(&now, c);
        if (set_values(&now, npairs, ps, values, vlens, err, errlen) == 0) {
            conf old = *c; /* c takes over now's strings, old keeps c's */
            *c = now;
            rc = run_hooks(&old, c, npairs, ps, err, errlen);
            conf_free(&old); /* on a veto: the rejected values */
            for (int i = 0; i < npairs && rc == 0; i++) log_noeffect((size_t)(ps[i] - params));
        } else {
            conf_free(&now);
        }
    }
    free(ps);
    return rc;
}
