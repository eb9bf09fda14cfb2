/* cmd: the command table and the dispatcher.
 *
 * Every command is one cmd_def in the declarative table (commands.c, and
 * the rows the subsystems register: cmd_register below): name,
 * handler, arity (Redis convention: N exactly, -N at least N), flags, ACL
 * categories, key specs (Redis 7) and documentation; containers (CONFIG,
 * CLIENT, COMMAND, OBJECT) list their subcommands. The dispatcher, COMMAND
 * and its subcommands, and the AOF's in-flight key tracking all read it.
 * cmd_dispatch takes a request through the stages that the list at the top
 * of cmd.c numbers, in that order (lookup, CLIENT PAUSE, MULTI queueing,
 * the hooks' parking, the checks and gates, the call with its propagation
 * and statistics, blocking); when several checks refuse, the first in that
 * list answers. Handlers write their reply with the reply_* helpers below.
 * Main thread only. */
#ifndef VERSO_CMD_H
#define VERSO_CMD_H

#include "server.h"

/* Command flags, as Redis 7.0 names them in COMMAND INFO (reply order is
 * Redis's, see flag_names in cmd_command.c). The dispatcher enforces WRITE (write gates),
 * PROTECTED, NOAUTH and LOADING; DENYOOM is for the OOM check, NO_MULTI and
 * ALLOW_BUSY for transactions and scripts; the others are descriptive. */
enum {
    CMD_WRITE = 1 << 0,     /* may change the keyspace (MISCONF applies) */
    CMD_READONLY = 1 << 1,
    CMD_NOAUTH = 1 << 2,    /* allowed before AUTH (AUTH, HELLO) */
    CMD_FAST = 1 << 3,
    CMD_ADMIN = 1 << 4,
    CMD_LOADING = 1 << 5,   /* allowed while loading */
    CMD_DENYOOM = 1 << 6,   /* refused when over maxmemory */
    CMD_PROTECTED = 1 << 7, /* refused unless enable-debug-command allows it */
    CMD_PUBSUB = 1 << 8,
    CMD_NOSCRIPT = 1 << 9,
    CMD_BLOCKING = 1 << 10,
    CMD_STALE = 1 << 11,
    CMD_SKIP_MONITOR = 1 << 12,
    CMD_SKIP_SLOWLOG = 1 << 13,
    CMD_ASKING = 1 << 14,
    CMD_NO_MANDATORY_KEYS = 1 << 15,
    CMD_NO_ASYNC_LOADING = 1 << 16,
    CMD_NO_MULTI = 1 << 17,  /* refused inside MULTI */
    CMD_ALLOW_BUSY = 1 << 18,
    CMD_MOVABLE_KEYS = 1 << 19, /* derived by cmd_init from the key specs */
    CMD_MAY_REPLICATE = 1 << 20,
    /* Redis's CMD_TOUCHES_ARBITRARY_KEYS (not listed by COMMAND INFO):
     * run directly, what it propagates (lazy-expiry DELs) goes out
     * without MULTI/EXEC (propagate.h) */
    CMD_TOUCHES_ARBITRARY_KEYS = 1 << 21,
    /* not a write, yet propagated and replayed from an AOF: a mark the
     * server itself propagates (CLUSTER SYNCSLOTS STAGE); not listed by
     * COMMAND INFO */
    CMD_REPLAYED = 1 << 22,
};

/* ACL categories, in Redis's order (COMMAND INFO lists them so). */
enum {
    CAT_KEYSPACE = 1 << 0, CAT_READ = 1 << 1, CAT_WRITE = 1 << 2, CAT_SET = 1 << 3,
    CAT_SORTEDSET = 1 << 4, CAT_LIST = 1 << 5, CAT_HASH = 1 << 6, CAT_STRING = 1 << 7,
    CAT_BITMAP = 1 << 8, CAT_HYPERLOGLOG = 1 << 9, CAT_GEO = 1 << 10, CAT_STREAM = 1 << 11,
    CAT_PUBSUB = 1 << 12, CAT_ADMIN = 1 << 13, CAT_FAST = 1 << 14, CAT_SLOW = 1 << 15,
    CAT_BLOCKING = 1 << 16, CAT_DANGEROUS = 1 << 17, CAT_CONNECTION = 1 << 18,
    CAT_TRANSACTION = 1 << 19, CAT_SCRIPTING = 1 << 20,
};
#define CAT_COUNT 21
extern const char *const cmd_cat_names[CAT_COUNT]; /* without '@' */

/* Key specs (Redis 7): where the keys of a command are. begin_search finds
 * the first key (an argv index, or the argument after a keyword searched
 * from startfrom: negative searches backwards from the end); find_keys
 * takes the keys from there (a range: lastkey relative to the first key, or
 * negative from the end; keystep; limit divides what is left; or keynum:
 * the count at keynumidx, the first key firstkey after it). */
enum {
    KS_RO = 1 << 0, KS_RW = 1 << 1, KS_OW = 1 << 2, KS_RM = 1 << 3,
    KS_ACCESS = 1 << 4, KS_UPDATE = 1 << 5, KS_INSERT = 1 << 6, KS_DELETE = 1 << 7,
    KS_NOT_KEY = 1 << 8, KS_INCOMPLETE = 1 << 9, KS_VARIABLE_FLAGS = 1 << 10,
};
enum { KS_BS_INVALID = 0, KS_BS_UNKNOWN, KS_BS_INDEX, KS_BS_KEYWORD };
enum { KS_FK_INVALID = 0, KS_FK_UNKNOWN, KS_FK_RANGE, KS_FK_KEYNUM };

typedef struct cmd_key_spec {
    const char *notes;
    int flags;                  /* KS_* */
    int bs_type;
    int bs_index;               /* INDEX */
    const char *bs_keyword;     /* KEYWORD */
    int bs_startfrom;
    int fk_type;
    int fk_lastkey, fk_limit;   /* RANGE */
    int fk_keynumidx, fk_firstkey; /* KEYNUM */
    int fk_keystep;             /* both */
} cmd_key_spec;

#define BS_INDEX(i) .bs_type = KS_BS_INDEX, .bs_index = (i)
#define BS_KEYWORD(kw, from) .bs_type = KS_BS_KEYWORD, .bs_keyword = (kw), .bs_startfrom = (from)
#define BS_UNKNOWN .bs_type = KS_BS_UNKNOWN
#define FK_RANGE(last, step, lim) \
    .fk_type = KS_FK_RANGE, .fk_lastkey = (last), .fk_keystep = (step), .fk_limit = (lim)
#define FK_KEYNUM(idx, first, step) \
    .fk_type = KS_FK_KEYNUM, .fk_keynumidx = (idx), .fk_firstkey = (first), .fk_keystep = (step)
#define FK_UNKNOWN .fk_type = KS_FK_UNKNOWN
#define KEY_SPECS(a) .key_specs = (a), .nkey_specs = (int)(sizeof(a) / sizeof((a)[0]))

/* Arguments, for COMMAND DOCS. Arrays end with an entry whose name is NULL. */
enum { ARG_STRING, ARG_INTEGER, ARG_DOUBLE, ARG_KEY, ARG_PATTERN, ARG_UNIX_TIME,
       ARG_PURE_TOKEN, ARG_ONEOF, ARG_BLOCK };
enum { ARGF_OPTIONAL = 1, ARGF_MULTIPLE = 2, ARGF_MULTIPLE_TOKEN = 4 };
typedef struct cmd_arg {
    const char *name;
    int type;
    int key_spec_index;         /* -1: not a key */
    const char *token, *since, *deprecated_since;
    int flags;
    const struct cmd_arg *subargs;
} cmd_arg;
enum { DOC_DEPRECATED = 1, DOC_SYSCMD = 2 };

/* The keys of one command line: argv positions and their key spec flags. */
typedef struct cmd_key_ref { int pos, flags; } cmd_key_ref;
typedef struct cmd_keyrefs {
    cmd_key_ref *v;             /* small, or heap when more */
    size_t n, cap;
    cmd_key_ref small[8];
} cmd_keyrefs;

typedef void cmd_proc(client *c);
/* For commands whose keys the specs cannot find (SORT's STORE). */
typedef int cmd_getkeys_proc(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out);

struct cmd_def {
    const char *name;           /* lower case; a subcommand's own name ("get") */
    cmd_proc *proc;
    int arity;                  /* N exactly, -N at least N (argv[0] counts) */
    int flags;                  /* CMD_* */
    int acl;                    /* CAT_* */
    const cmd_key_spec *key_specs;
    int nkey_specs;
    cmd_getkeys_proc *getkeys;  /* used when the specs cannot say (an
                                   unknown spec, or variable flags) */
    const char *const *tips;    /* NULL-terminated */
    const char *group, *since, *summary, *complexity;
    int doc_flags;
    const char *deprecated_since, *replaced_by;
    const char *const *history; /* version, text, ..., NULL */
    const cmd_arg *args;
    cmd_def *subcmds;           /* container: its subcommands, ending with name NULL */
    /* set by cmd_init */
    unsigned id;                /* its index in cmd_at_all: the ACL's bit */
    cmd_def *parent;
    char *fullname;             /* "config|get"; the name for a command */
    int legacy_first, legacy_last, legacy_step; /* COMMAND INFO's, from the specs */
    /* main thread only: statistics for INFO commandstats */
    uint64_t calls;
    uint64_t usec;
    uint64_t failed;
    uint64_t rejected;          /* refused before running */
    struct lat_hist *hist;      /* latencystats (cmdstats.c; NULL until it ran) */
};

/* The core's table itself (commands.c): top-level entries, in table order. */
size_t commands_count(void);
cmd_def *commands_table(void);
/* The rule of registration: a subsystem outside the core (snapshot/, aof/,
 * repl/) keeps the rows of the commands it implements and registers them
 * at startup, from its init (hooks.h gives the order), BEFORE cmd_init
 * builds the lookup: cmd_init folds them in, a registration after it
 * fails an assert. No lookup sees a command until cmd_init.
 * cmd_register adds n top-level commands (kept by pointer: rows must
 * outlive the server; their statistics are counted in them); they follow
 * the core's table, in registration order, in COMMAND's replies and INFO
 * commandstats. cmd_register_sub adds n subcommands to the core's
 * container `container` (its name, e.g. "function"): the rows are copied
 * after the container's own subcommands. */
void cmd_register(cmd_def *rows, size_t n);
void cmd_register_sub(const char *container, const cmd_def *rows, size_t n);
/* Builds the lookup (sized from the table and the registered rows) and
 * derives the legacy key range and CMD_MOVABLE_KEYS; call once at startup,
 * after every subsystem registered its commands (again is a no-op). */
void cmd_init(void);
/* A top-level command by name (any case), NULL when unknown. */
const cmd_def *cmd_lookup(const char *name, size_t len);
/* A container's subcommand by name (any case), NULL when unknown. */
const cmd_def *cmd_lookup_sub(const cmd_def *parent, const char *name, size_t len);
/* The command an argv runs: the subcommand when argv[0] is a container and
 * argc >= 2; NULL when unknown (*container set when argv[0] is a container
 * whose subcommand is unknown). */
const cmd_def *cmd_lookup_argv(int argc, const arg *argv, const cmd_def **container);
/* Whether argc (the name included) fits d's arity: the first check of
 * every command (a refusal at dispatch, in a script, COMMAND GETKEYS). */
int cmd_arity_ok(const cmd_def *d, int argc);
/* The keys of argv for command d, from its key specs (or its getkeys).
 * Returns 1, or 0 when a spec cannot be applied (a bad numkeys...): then
 * out->n is 0. argc must fit d's arity (cmd_arity_ok): only a command that
 * passed its checks has keys. Positions past argc are skipped (variadic
 * commands report their own errors). Free with cmd_keys_free. */
int cmd_get_keys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out);
/* As cmd_get_keys, with the shard channels too (NOT_KEY specs: SPUBLISH,
 * SSUBSCRIBE...), as the cluster's routing sees them. */
int cmd_get_keys_and_shard_channels(const cmd_def *d, int argc, const arg *argv,
                                    cmd_keyrefs *out);
void cmd_keys_add(cmd_keyrefs *k, int pos, int flags);
void cmd_keys_free(cmd_keyrefs *k);
/* Whether d (or one of its specs) names keys at all. */
int cmd_has_keys(const cmd_def *d);
/* Redis 7.0's getCommandFlags: d's flags, except for a script (EVAL,
 * EVALSHA, FCALL and their _RO forms) whose flags are known (a shebang, a
 * cached script, a loaded function): then write, deny-oom and stale come
 * from the script's flags (scriptFlagsToCmdFlags) and may-replicate goes.
 * The checks before a command runs (gates, OOM, CLIENT PAUSE WRITE) and
 * MULTI's queue read them. */
int cmd_flags_of(const cmd_def *d, int argc, const arg *argv);
/* Runs c->argc/c->argv (argc > 0). Returns CMD_RAN, or CMD_PARKED when
 * the AOF backlog is full and the command must run later (the caller
 * keeps it and stops reading the client; aof.c resumes it), or when the
 * command blocked on keys (the caller keeps it as its pending request and
 * runs nothing more of that client's input; blocking.c serves it). After a
 * command that ran, serves the clients blocked on keys it created
 * (blocking.h). */
enum { CMD_RAN = 0, CMD_PARKED = 1 };
int cmd_dispatch(client *c);
/* Runs an admitted command d with c->argc/argv: the handler, statistics,
 * propagation (one batch, see propagate.h). The dispatcher and EXEC. */
void cmd_call(client *c, const cmd_def *d);
/* Iteration over the top-level commands (COMMAND, COMMAND COUNT). */
size_t cmd_count(void);
const cmd_def *cmd_at(size_t i);
/* Iteration over every command and subcommand (INFO commandstats). */
size_t cmd_count_all(void);
cmd_def *cmd_at_all(size_t i);

/* ---- replies (append to c->reply) ---- */
void reply_ok(client *c);
void reply_status(client *c, const char *s);
void reply_error(client *c, const char *s);       /* whole text, "ERR ..." */
void reply_errorf(client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void reply_int(client *c, long long v);
void reply_bulk(client *c, const char *p, size_t len);
void reply_bulk_str(client *c, const char *s);
void reply_bulk_obj(client *c, const obj *o);
void reply_bulk_ll(client *c, long long v);
void reply_nil(client *c);                   /* a null bulk: $-1, RESP3 _ */
void reply_array(client *c, long long n);
/* Protocol-aware replies: RESP3 types for a client after HELLO 3, their
 * RESP2 forms otherwise (as Redis 7.0's addReplyMap & co). */
void reply_map(client *c, long long n);      /* RESP2: array of 2n */
void reply_set(client *c, long long n);      /* RESP2: array */
void reply_push(client *c, long long n);     /* RESP2: array */
void reply_null(client *c);                  /* RESP2: $-1 */
void reply_nil_array(client *c);             /* RESP2: *-1, RESP3: _ */
void reply_bool(client *c, int v);           /* RESP2: :1 / :0 */
void reply_double(client *c, double d);      /* RESP2: bulk "%.17g", inf, -inf */
void reply_bignum(client *c, const char *p, size_t len); /* RESP2: bulk */
void reply_verbatim(client *c, const char *p, size_t len, const char *ext); /* RESP2: bulk */
/* n (member, score|value) pairs as Redis 7.0 replies WITHSCORES and
 * WITHVALUES: RESP2 one flat array of 2n, RESP3 an array of n two-element
 * arrays, each opened by reply_pair (nothing under RESP2). */
void reply_pairs(client *c, long long n);
void reply_pair(client *c);
void reply_syntax_error(client *c);                /* "ERR syntax error" */
void reply_wrong_args(client *c);                  /* for c->cmd */
void reply_not_int(client *c);    /* "ERR value is not an integer or out of range" */
void reply_invalid_expire(client *c);  /* "ERR invalid expire time in '<cmd>' command" */
/* A HELP reply: the NULL-terminated lines as status replies. */
void cmd_reply_help(client *c, const char *const *lines);
/* "ERR wrong number of arguments for '<cmd>|<sub>' command" (sub is argv[1],
 * lower-cased) and "ERR unknown subcommand '<sub>'. Try <CMD> HELP." */
void reply_sub_arity(client *c, const char *cmd);
void reply_unknown_subcommand(client *c, const char *cmd);

/* Argument helpers (and args_dup, server.h). */
int arg_is(const arg *a, const char *lower);       /* case-insensitive equal */
/* Parses an integer argument; on failure replies "ERR value is not an
 * integer or out of range" and returns 0. */
int arg_ll(client *c, const arg *a, long long *out);
/* A SCAN-family cursor as Redis's parseScanCursorOrReply reads it (strtoul:
 * a sign, leading zeros and an empty string are accepted, leading blanks
 * are not); on failure replies "ERR invalid cursor" and returns 0. */
int arg_scan_cursor(client *c, const arg *a, uint64_t *out);
/* LMPOP / ZMPOP and their blocking forms from numkeys at argv[ni]:
 * "numkeys key... <first|second> [COUNT n]" as Redis 7.0 checks it.
 * *which is 0 for the word `first`, 1 for `second`; *count defaults to 1.
 * On an error replies Redis's text and returns 0. */
int arg_mpop(client *c, int ni, const char *first, const char *second, int *nkeys, int *which,
             long long *count);

/* Propagation (propagate.h: to the AOF and the replicas): the
 * dispatcher propagates every write command that changed something
 * (server.dirty grew) exactly as it was sent. A handler
 * whose command must be replayed in another form (a relative expiry made
 * absolute: SET k v EX 10 -> SET k v PXAT <ms>; EXPIRE -> PEXPIREAT; GETEX
 * EX -> PEXPIREAT; SETEX -> SET PXAT ...; INCRBYFLOAT -> SET KEEPTTL) calls
 * cmd_propagate with the replacement, possibly several times (one command
 * each); the original is then not propagated. */
void cmd_propagate(client *c, int argc, const arg *argv);
/* The running command propagates nothing, though it changed something
 * (Redis's preventCommandPropagation: XREADGROUP serving a consumer's
 * history, whose changes Redis does not replay). */
void cmd_propagate_none(client *c);
/* Propagates a command the server itself issues (the DEL of an expired
 * key), outside of any handler's own propagation. */
void cmd_propagate_raw(int db, int argc, const arg *argv);
/* A handler's message that changes no data (PUBLISH): it reaches replicas,
 * not the AOF (propagate.h's propagate_message). */
void cmd_propagate_message(client *c, int argc, const arg *argv);
/* What the gates (hooks.h: each module's write_gate when d writes, then
 * every client_gate) say about c running d: NULL, or the first error.
 * The dispatcher checks every command with it; redis.call checks a
 * script's commands with it (script_lua.c). */
const char *cmd_gates_error(const client *c, const cmd_def *d);

/* The core's handlers, grouped by file (the subsystems declare theirs). */
/* cmd_string.c */
cmd_proc cmd_get, cmd_set, cmd_setnx, cmd_setex, cmd_psetex, cmd_getset,
    cmd_getdel, cmd_getex, cmd_mget, cmd_mset, cmd_msetnx, cmd_append,
    cmd_strlen, cmd_incr, cmd_decr, cmd_incrby, cmd_decrby, cmd_incrbyfloat,
    cmd_getrange, cmd_setrange;
cmd_getkeys_proc set_getkeys;
/* cmd_type.c */
/* OBJECT REFCOUNT's answer for o (cmd_type.c; DEBUG OBJECT's too). */
long long object_refcount_as_redis(const obj *o);
cmd_proc cmd_object, cmd_copy, cmd_move, cmd_touch, cmd_sort, cmd_sort_ro;
cmd_getkeys_proc sort_getkeys;
/* cmd_keys.c */
cmd_proc cmd_del, cmd_unlink, cmd_exists, cmd_type, cmd_keys, cmd_scan,
    cmd_randomkey, cmd_rename, cmd_renamenx, cmd_expire, cmd_pexpire,
    cmd_expireat, cmd_pexpireat, cmd_expiretime, cmd_pexpiretime, cmd_ttl,
    cmd_pttl, cmd_persist, cmd_dbsize, cmd_select, cmd_flushdb, cmd_flushall, cmd_swapdb;
/* cmd_server.c */
cmd_proc cmd_ping, cmd_echo, cmd_info, cmd_config,
    cmd_hello, cmd_auth, cmd_time, cmd_quit, cmd_shutdown, cmd_debug;
/* cmd_client.c */
cmd_proc cmd_client, cmd_reset;
/* cmd_module.c, cmd_lolwut.c */
cmd_proc cmd_module, cmd_lolwut;
/* CLIENT SETNAME's check and store (HELLO SETNAME too): 1, or 0 after
 * replying the error. */
int client_set_name(client *c, const arg *a);
/* c's line of CLIENT LIST (with its '\n'), appended to b (ACL LOG's
 * client-info too). */
void client_info_line(vbuf *b, const client *c);
/* After each command that ran (cmd_dispatch): CLIENT REPLY OFF/SKIP drop
 * what it wrote from reply_at on, SKIP moves on, CLIENT CACHING ends, and
 * tracking messages for c follow its reply. */
void client_command_done(client *c, size_t reply_at);
/* cmd_bitops.c */
cmd_proc cmd_setbit, cmd_getbit, cmd_bitcount, cmd_bitpos, cmd_bitop, cmd_bitfield,
    cmd_bitfield_ro, cmd_lcs;
cmd_getkeys_proc bitfield_getkeys;
/* cmd_hll.c */
cmd_proc cmd_pfadd, cmd_pfcount, cmd_pfmerge, cmd_pfdebug, cmd_pfselftest;
/* monitor.c, slowlog.c, latency.c */
cmd_proc cmd_monitor, cmd_slowlog, cmd_latency;
/* cmd_script.c (EVAL family; SCRIPT) and cmd_function.c */
/* cmd_flags_of for EVAL, EVALSHA and their _RO forms (cmd_script.c), for
 * FCALL and FCALL_RO (cmd_function.c). */
int eval_cmd_flags(const cmd_def *d, int argc, const arg *argv);
int fcall_cmd_flags(const cmd_def *d, int argc, const arg *argv);
cmd_proc cmd_eval, cmd_evalsha, cmd_eval_ro, cmd_evalsha_ro, cmd_function, cmd_fcall,
    cmd_fcall_ro;
/* cmd_command.c */
cmd_proc cmd_command;
/* multi.c */
cmd_proc cmd_multi, cmd_exec, cmd_discard, cmd_watch, cmd_unwatch;
/* cmd_hash.c */
cmd_proc cmd_hdel, cmd_hexists, cmd_hget, cmd_hgetall, cmd_hincrby,
    cmd_hincrbyfloat, cmd_hkeys, cmd_hlen, cmd_hmget, cmd_hmset,
    cmd_hrandfield, cmd_hscan, cmd_hset, cmd_hsetnx, cmd_hstrlen, cmd_hvals;
/* cmd_list.c */
cmd_proc cmd_blmove, cmd_blmpop, cmd_blpop, cmd_brpop, cmd_brpoplpush,
    cmd_lindex, cmd_linsert, cmd_llen, cmd_lmove, cmd_lmpop, cmd_lpop,
    cmd_lpos, cmd_lpush, cmd_lpushx, cmd_lrange, cmd_lrem, cmd_lset,
    cmd_ltrim, cmd_rpop, cmd_rpoplpush, cmd_rpush, cmd_rpushx;
/* cmd_set.c */
cmd_proc cmd_sadd, cmd_scard, cmd_sdiff, cmd_sdiffstore, cmd_sinter,
    cmd_sintercard, cmd_sinterstore, cmd_sismember, cmd_smembers,
    cmd_smismember, cmd_smove, cmd_spop, cmd_srandmember, cmd_srem, cmd_sscan,
    cmd_sunion, cmd_sunionstore;
/* cmd_zset.c */
cmd_proc cmd_bzmpop, cmd_bzpopmax, cmd_bzpopmin, cmd_zadd, cmd_zcard,
    cmd_zcount, cmd_zdiff, cmd_zdiffstore, cmd_zincrby, cmd_zinter,
    cmd_zintercard, cmd_zinterstore, cmd_zlexcount, cmd_zmpop, cmd_zmscore,
    cmd_zpopmax, cmd_zpopmin, cmd_zrandmember, cmd_zrange, cmd_zrangebylex,
    cmd_zrangebyscore, cmd_zrangestore, cmd_zrank, cmd_zrem,
    cmd_zremrangebylex, cmd_zremrangebyrank, cmd_zremrangebyscore,
    cmd_zrevrange, cmd_zrevrangebylex, cmd_zrevrangebyscore, cmd_zrevrank,
    cmd_zscan, cmd_zscore, cmd_zunion, cmd_zunionstore;
/* cmd_geo.c */
cmd_proc cmd_geoadd, cmd_geodist, cmd_geohash, cmd_geopos, cmd_geosearch,
    cmd_geosearchstore, cmd_georadius, cmd_georadius_ro, cmd_georadiusbymember,
    cmd_georadiusbymember_ro;
/* cmd_stream.c */
cmd_proc cmd_xadd, cmd_xdel, cmd_xlen, cmd_xrange, cmd_xread, cmd_xrevrange, cmd_xsetid,
    cmd_xtrim;
/* cmd_stream_cg.c */
cmd_proc cmd_xack, cmd_xautoclaim, cmd_xclaim, cmd_xgroup, cmd_xinfo, cmd_xpending,
    cmd_xreadgroup;
/* cmd_memory.c */
cmd_proc cmd_memory;
/* pubsub.c */
cmd_proc cmd_publish, cmd_subscribe, cmd_psubscribe, cmd_unsubscribe, cmd_punsubscribe,
    cmd_pubsub, cmd_spublish, cmd_ssubscribe, cmd_sunsubscribe;
/* cmd_script.c: SCRIPT */
cmd_proc cmd_script;

#endif
