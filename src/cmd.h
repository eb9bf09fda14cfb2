/* cmd: the command table and the dispatcher.
 *
 * Every command is one cmd_def: name, handler, arity (Redis convention:
 * N exactly, -N at least N), flags and key positions (for COMMAND INFO).
 * cmd_dispatch asks the subsystems' hooks (hooks.h) whether the command runs
 * now, checks existence, arity, authentication and the write gates (MISCONF),
 * runs the handler, propagates its changes (propagate.h) and counts
 * statistics. Handlers write their reply with the reply_*
 * helpers below. Main thread only. */
#ifndef VERSO_CMD_H
#define VERSO_CMD_H

#include "server.h"

enum {
    CMD_WRITE = 1 << 0,     /* may change the keyspace (MISCONF applies) */
    CMD_READONLY = 1 << 1,
    CMD_NOAUTH = 1 << 2,    /* allowed before AUTH (AUTH, HELLO, QUIT) */
    CMD_FAST = 1 << 3,
    CMD_ADMIN = 1 << 4,
    CMD_LOADING = 1 << 5,   /* allowed while loading */
    CMD_DENYOOM = 1 << 6,
    CMD_PROTECTED = 1 << 7, /* refused unless enable-debug-command allows it */
};

typedef void cmd_proc(client *c);

struct cmd_def {
    const char *name;       /* lower case */
    cmd_proc *proc;
    int arity;
    int flags;
    int first_key, last_key, key_step;
    const char *group;      /* "string", "generic", "server", "connection" */
    const char *summary;
    /* main thread only: statistics for INFO commandstats */
    uint64_t calls;
    uint64_t usec;
    uint64_t failed;
};

/* Builds the lookup table; call once at startup. */
void cmd_init(void);
const cmd_def *cmd_lookup(const char *name, size_t len);
/* Runs c->argc/c->argv (argc > 0). Returns CMD_RAN, or CMD_PARKED when
 * the AOF backlog is full and the command must run later (the caller
 * keeps it and stops reading the client; aof.c resumes it). */
enum { CMD_RAN = 0, CMD_PARKED = 1 };
int cmd_dispatch(client *c);
/* Runs an admitted command d with c->argc/argv: the handler, statistics,
 * propagation (one batch, see propagate.h). The dispatcher and EXEC. */
void cmd_call(client *c, const cmd_def *d);
/* Iteration for COMMAND / COMMAND COUNT. */
size_t cmd_count(void);
const cmd_def *cmd_at(size_t i);

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
void reply_nil(client *c);
void reply_array(client *c, long long n);
void reply_syntax_error(client *c);                /* "ERR syntax error" */
void reply_wrong_args(client *c);                  /* for c->cmd */
void reply_not_int(client *c);    /* "ERR value is not an integer or out of range" */
void reply_invalid_expire(client *c);  /* "ERR invalid expire time in '<cmd>' command" */

/* Argument helpers. */
int arg_is(const arg *a, const char *lower);       /* case-insensitive equal */
/* Parses an integer argument; on failure replies "ERR value is not an
 * integer or out of range" and returns 0. */
int arg_ll(client *c, const arg *a, long long *out);

/* Propagation (propagate.h: to the AOF, and next to replicas): the
 * dispatcher propagates every write command that changed something
 * (server.dirty grew) exactly as it was sent. A handler
 * whose command must be replayed in another form (a relative expiry made
 * absolute: SET k v EX 10 -> SET k v PXAT <ms>; EXPIRE -> PEXPIREAT; GETEX
 * EX -> PEXPIREAT; SETEX -> SET PXAT ...; INCRBYFLOAT -> SET KEEPTTL) calls
 * cmd_propagate with the replacement, possibly several times (one command
 * each); the original is then not propagated. */
void cmd_propagate(client *c, int argc, const arg *argv);
/* Propagates a command the server itself issues (the DEL of an expired
 * key), outside of any handler's own propagation. */
void cmd_propagate_raw(int db, int argc, const arg *argv);
/* A write gate returns NULL when write commands may run, or the whole error
 * to answer them with (MISCONF after a failed save, ...). */
typedef const char *(*cmd_gate_fn)(void);
void cmd_add_write_gate(cmd_gate_fn fn);

/* Handlers, grouped by file. */
/* cmd_string.c */
cmd_proc cmd_get, cmd_set, cmd_setnx, cmd_setex, cmd_psetex, cmd_getset,
    cmd_getdel, cmd_getex, cmd_mget, cmd_mset, cmd_msetnx, cmd_append,
    cmd_strlen, cmd_incr, cmd_decr, cmd_incrby, cmd_decrby, cmd_incrbyfloat,
    cmd_getrange, cmd_setrange;
/* cmd_keys.c */
cmd_proc cmd_del, cmd_unlink, cmd_exists, cmd_type, cmd_keys, cmd_scan,
    cmd_randomkey, cmd_rename, cmd_renamenx, cmd_expire, cmd_pexpire,
    cmd_expireat, cmd_pexpireat, cmd_expiretime, cmd_pexpiretime, cmd_ttl,
    cmd_pttl, cmd_persist, cmd_dbsize, cmd_select, cmd_flushdb, cmd_flushall;
/* cmd_server.c */
cmd_proc cmd_ping, cmd_echo, cmd_info, cmd_config, cmd_command, cmd_client,
    cmd_hello, cmd_auth, cmd_time, cmd_quit, cmd_shutdown, cmd_debug;
/* multi.c */
cmd_proc cmd_multi, cmd_exec, cmd_discard, cmd_watch, cmd_unwatch;
/* snapshot/snap_cmd.c (issue: snapshots) */
cmd_proc cmd_save, cmd_bgsave, cmd_lastsave;
/* aof/aof_cmd.c (issue: AOF) */
cmd_proc cmd_bgrewriteaof;

#endif
