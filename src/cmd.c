/* cmd: the command table, the dispatcher and the reply helpers (cmd.h).
 * Main thread only. */
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hooks.h"
#include "multi.h"
#include "propagate.h"
#include "util.h"

#define W CMD_WRITE
#define R CMD_READONLY
#define F CMD_FAST
#define A CMD_ADMIN
#define N CMD_NOAUTH
#define L CMD_LOADING
#define M CMD_DENYOOM

/* name, handler, arity, flags, first key, last key, step, group, summary */
static cmd_def table[] = {
    /* strings */
    {"get", cmd_get, 2, R | F, 1, 1, 1, "string", "Returns the string value of a key.", 0, 0, 0},
    {"set", cmd_set, -3, W | M, 1, 1, 1, "string", "Sets the string value of a key.", 0, 0, 0},
    {"setnx", cmd_setnx, 3, W | M | F, 1, 1, 1, "string", "Set the string value of a key only when the key doesn't exist.", 0, 0, 0},
    {"setex", cmd_setex, 4, W | M, 1, 1, 1, "string", "Sets the string value and expiration time of a key.", 0, 0, 0},
    {"psetex", cmd_psetex, 4, W | M, 1, 1, 1, "string", "Sets the string value and expiration time in milliseconds of a key.", 0, 0, 0},
    {"getset", cmd_getset, 3, W | M | F, 1, 1, 1, "string", "Returns the previous string value of a key after setting it to a new value.", 0, 0, 0},
    {"getdel", cmd_getdel, 2, W | F, 1, 1, 1, "string", "Returns the string value of a key after deleting the key.", 0, 0, 0},
    {"getex", cmd_getex, -2, W | F, 1, 1, 1, "string", "Returns the string value of a key after setting its expiration time.", 0, 0, 0},
    {"mget", cmd_mget, -2, R | F, 1, -1, 1, "string", "Atomically returns the string values of one or more keys.", 0, 0, 0},
    {"mset", cmd_mset, -3, W | M, 1, -1, 2, "string", "Atomically creates or modifies the string values of one or more keys.", 0, 0, 0},
    {"msetnx", cmd_msetnx, -3, W | M, 1, -1, 2, "string", "Atomically modifies the string values of one or more keys only when all keys don't exist.", 0, 0, 0},
    {"append", cmd_append, 3, W | M | F, 1, 1, 1, "string", "Appends a string to the value of a key. Creates the key if it doesn't exist.", 0, 0, 0},
    {"strlen", cmd_strlen, 2, R | F, 1, 1, 1, "string", "Returns the length of a string value.", 0, 0, 0},
    {"incr", cmd_incr, 2, W | M | F, 1, 1, 1, "string", "Increments the integer value of a key by one.", 0, 0, 0},
    {"decr", cmd_decr, 2, W | M | F, 1, 1, 1, "string", "Decrements the integer value of a key by one.", 0, 0, 0},
    {"incrby", cmd_incrby, 3, W | M | F, 1, 1, 1, "string", "Increments the integer value of a key by a number.", 0, 0, 0},
    {"decrby", cmd_decrby, 3, W | M | F, 1, 1, 1, "string", "Decrements a number from the integer value of a key.", 0, 0, 0},
    {"incrbyfloat", cmd_incrbyfloat, 3, W | M | F, 1, 1, 1, "string", "Increment the floating point value of a key by a number.", 0, 0, 0},
    {"getrange", cmd_getrange, 4, R, 1, 1, 1, "string", "Returns a substring of the string stored at a key.", 0, 0, 0},
    {"substr", cmd_getrange, 4, R, 1, 1, 1, "string", "Returns a substring from a string value.", 0, 0, 0},
    {"setrange", cmd_setrange, 4, W | M, 1, 1, 1, "string", "Overwrites a part of a string value with another by an offset.", 0, 0, 0},
    /* keys */
    {"del", cmd_del, -2, W, 1, -1, 1, "generic", "Deletes one or more keys.", 0, 0, 0},
    {"unlink", cmd_unlink, -2, W | F, 1, -1, 1, "generic", "Asynchronously deletes one or more keys.", 0, 0, 0},
    {"exists", cmd_exists, -2, R | F, 1, -1, 1, "generic", "Determines whether one or more keys exist.", 0, 0, 0},
    {"type", cmd_type, 2, R | F, 1, 1, 1, "generic", "Determines the type of value stored at a key.", 0, 0, 0},
    {"keys", cmd_keys, 2, R, 0, 0, 0, "generic", "Returns all key names that match a pattern.", 0, 0, 0},
    {"scan", cmd_scan, -2, R, 0, 0, 0, "generic", "Iterates over the key names in the database.", 0, 0, 0},
    {"randomkey", cmd_randomkey, 1, R, 0, 0, 0, "generic", "Returns a random key name from the database.", 0, 0, 0},
    {"rename", cmd_rename, 3, W, 1, 2, 1, "generic", "Renames a key and overwrites the destination.", 0, 0, 0},
    {"renamenx", cmd_renamenx, 3, W | F, 1, 2, 1, "generic", "Renames a key only when the target key name doesn't exist.", 0, 0, 0},
    {"expire", cmd_expire, -3, W | F, 1, 1, 1, "generic", "Sets the expiration time of a key in seconds.", 0, 0, 0},
    {"pexpire", cmd_pexpire, -3, W | F, 1, 1, 1, "generic", "Sets the expiration time of a key in milliseconds.", 0, 0, 0},
    {"expireat", cmd_expireat, -3, W | F, 1, 1, 1, "generic", "Sets the expiration time of a key to a Unix timestamp.", 0, 0, 0},
    {"pexpireat", cmd_pexpireat, -3, W | F, 1, 1, 1, "generic", "Sets the expiration time of a key to a Unix milliseconds timestamp.", 0, 0, 0},
    {"expiretime", cmd_expiretime, 2, R | F, 1, 1, 1, "generic", "Returns the expiration time of a key as a Unix timestamp.", 0, 0, 0},
    {"pexpiretime", cmd_pexpiretime, 2, R | F, 1, 1, 1, "generic", "Returns the expiration time of a key as a Unix milliseconds timestamp.", 0, 0, 0},
    {"ttl", cmd_ttl, 2, R | F, 1, 1, 1, "generic", "Returns the expiration time in seconds of a key.", 0, 0, 0},
    {"pttl", cmd_pttl, 2, R | F, 1, 1, 1, "generic", "Returns the expiration time in milliseconds of a key.", 0, 0, 0},
    {"persist", cmd_persist, 2, W | F, 1, 1, 1, "generic", "Removes the expiration time of a key.", 0, 0, 0},
    {"dbsize", cmd_dbsize, 1, R | F, 0, 0, 0, "server", "Returns the number of keys in the database.", 0, 0, 0},
    {"select", cmd_select, 2, F | L, 0, 0, 0, "connection", "Changes the selected database.", 0, 0, 0},
    {"flushdb", cmd_flushdb, -1, W, 0, 0, 0, "server", "Remove all keys from the current database.", 0, 0, 0},
    {"flushall", cmd_flushall, -1, W, 0, 0, 0, "server", "Removes all keys from all databases.", 0, 0, 0},
    /* server and connection */
    {"ping", cmd_ping, -1, F | L, 0, 0, 0, "connection", "Returns the server's liveliness response.", 0, 0, 0},
    {"echo", cmd_echo, 2, F | L, 0, 0, 0, "connection", "Returns the given string.", 0, 0, 0},
    {"info", cmd_info, -1, L, 0, 0, 0, "server", "Returns information and statistics about the server.", 0, 0, 0},
    {"config", cmd_config, -2, A | L, 0, 0, 0, "server", "A container for server configuration commands.", 0, 0, 0},
    {"command", cmd_command, -1, L, 0, 0, 0, "server", "Returns detailed information about all commands.", 0, 0, 0},
    {"client", cmd_client, -2, L, 0, 0, 0, "connection", "A container for client connection commands.", 0, 0, 0},
    {"hello", cmd_hello, -1, N | F | L, 0, 0, 0, "connection", "Handshakes with the Redis server.", 0, 0, 0},
    {"auth", cmd_auth, -2, N | F | L, 0, 0, 0, "connection", "Authenticates the connection.", 0, 0, 0},
    {"time", cmd_time, 1, F | L, 0, 0, 0, "server", "Returns the server time.", 0, 0, 0},
    {"quit", cmd_quit, -1, N | F | L, 0, 0, 0, "connection", "Closes the connection.", 0, 0, 0},
    {"shutdown", cmd_shutdown, -1, A | L, 0, 0, 0, "server", "Synchronously saves the database(s) to disk and shuts down the Redis server.", 0, 0, 0},
    {"debug", cmd_debug, -2, A | L | CMD_PROTECTED, 0, 0, 0, "server", "A container for debugging commands.", 0, 0, 0},
    /* persistence */
    {"save", cmd_save, 1, A, 0, 0, 0, "server", "Synchronously saves the database(s) to disk.", 0, 0, 0},
    {"bgsave", cmd_bgsave, -1, A, 0, 0, 0, "server", "Asynchronously saves the database(s) to disk.", 0, 0, 0},
    {"bgrewriteaof", cmd_bgrewriteaof, 1, A, 0, 0, 0, "server", "Asynchronously rewrites the append-only file to disk.", 0, 0, 0},
    /* transactions */
    {"multi", cmd_multi, 1, F | L, 0, 0, 0, "transactions", "Starts a transaction.", 0, 0, 0},
    {"exec", cmd_exec, 1, L, 0, 0, 0, "transactions", "Executes all commands in a transaction.", 0, 0, 0},
    {"discard", cmd_discard, 1, F | L, 0, 0, 0, "transactions", "Discards a transaction.", 0, 0, 0},
    {"watch", cmd_watch, -2, F | L, 1, -1, 1, "transactions", "Monitors changes to keys to determine the execution of a transaction.", 0, 0, 0},
    {"unwatch", cmd_unwatch, 1, F | L, 0, 0, 0, "transactions", "Forgets about watched keys of a transaction.", 0, 0, 0},
    {"lastsave", cmd_lastsave, 1, F | L, 0, 0, 0, "server", "Returns the Unix timestamp of the last successful save to disk.", 0, 0, 0},
};

#define NCMDS (sizeof table / sizeof table[0])
#define LOOKUP_SIZE 256 /* power of two, > 2 * NCMDS */

static cmd_def *lookup[LOOKUP_SIZE];
static cmd_gate_fn *write_gates; /* grows with each registration */
static size_t nwrite_gates;
static int propagated;  /* the running handler called cmd_propagate */

static unsigned name_hash(const char *s, size_t len) {
    unsigned h = 5381;
    for (size_t i = 0; i < len; i++) h = h * 33 + (unsigned)(s[i] | 0x20);
    return h;
}

void cmd_init(void) {
    _Static_assert(LOOKUP_SIZE > 2 * NCMDS, "command lookup table too small");
    for (size_t i = 0; i < NCMDS; i++) {
        unsigned h = name_hash(table[i].name, strlen(table[i].name)) & (LOOKUP_SIZE - 1);
        while (lookup[h]) h = (h + 1) & (LOOKUP_SIZE - 1);
        lookup[h] = &table[i];
    }
}

const cmd_def *cmd_lookup(const char *name, size_t len) {
    unsigned h = name_hash(name, len) & (LOOKUP_SIZE - 1);
    for (; lookup[h]; h = (h + 1) & (LOOKUP_SIZE - 1)) {
        const cmd_def *d = lookup[h];
        if (strlen(d->name) == len && strncasecmp(d->name, name, len) == 0) return d;
    }
    return NULL;
}

size_t cmd_count(void) { return NCMDS; }
const cmd_def *cmd_at(size_t i) { return i < NCMDS ? &table[i] : NULL; }

void cmd_add_write_gate(cmd_gate_fn fn) {
    write_gates = xrealloc(write_gates, (nwrite_gates + 1) * sizeof *write_gates);
    write_gates[nwrite_gates++] = fn;
}

void cmd_propagate(client *c, int argc, const arg *argv) {
    propagated = 1;
    propagate(c->db, argc, argv);
}

void cmd_propagate_raw(int db, int argc, const arg *argv) { propagate(db, argc, argv); }

static void reply_unknown(client *c) {
    char args[160];
    size_t n = 0;
    args[0] = '\0';
    for (int i = 1; i < c->argc && n < 128; i++) {
        int w = snprintf(args + n, sizeof args - n, "'%.*s' ",
                         (int)(c->argv[i].len > 128 - n ? 128 - n : c->argv[i].len),
                         c->argv[i].p);
        if (w < 0) break;
        n += (size_t)w;
        if (n >= sizeof args) { n = sizeof args - 1; break; }
    }
    reply_errorf(c, "ERR unknown command '%.*s', with args beginning with: %s",
                 (int)(c->argv[0].len > 128 ? 128 : c->argv[0].len), c->argv[0].p, args);
}

static int arity_ok(const cmd_def *d, int argc) {
    return d->arity > 0 ? argc == d->arity : argc >= -d->arity;
}

/* Whether the peer is 127.0.0.1 or ::1, as Redis's islocalClient (c->addr
 * is "ip:port"). */
static int client_is_local(const client *c) {
    const char *colon = strrchr(c->addr, ':');
    size_t n = colon ? (size_t)(colon - c->addr) : strlen(c->addr);
    return (n == 9 && memcmp(c->addr, "127.0.0.1", 9) == 0) ||
           (n == 3 && memcmp(c->addr, "::1", 3) == 0);
}

/* enable-debug-command: yes, or local and the client is local. */
static int protected_allowed(const client *c) {
    int v = server.cfg.enable_debug_command;
    return v == DEBUG_CMD_YES || (v == DEBUG_CMD_LOCAL && client_is_local(c));
}

/* Checks that refuse a command before it runs; 1 when it may run. The
 * order is Redis's processCommand: arity, protected, auth, writes. */
static int may_run(client *c, const cmd_def *d) {
    if (!arity_ok(d, c->argc)) {
        reply_errorf(c, "ERR wrong number of arguments for '%s' command", d->name);
        return 0;
    }
    if ((d->flags & CMD_PROTECTED) && !protected_allowed(c)) {
        reply_error(c, "ERR DEBUG command not allowed. If the enable-debug-command option "
                       "is set to \"local\", you can run it from a local connection, "
                       "otherwise you need to set this option in the configuration file, "
                       "and then restart the server.");
        return 0;
    }
    if (!(c->flags & CLIENT_AUTHED) && !(d->flags & CMD_NOAUTH)) {
        reply_error(c, "NOAUTH Authentication required.");
        return 0;
    }
    if ((d->flags & CMD_WRITE) || multi_exec_writes(c, d)) {
        for (size_t i = 0; i < nwrite_gates; i++) {
            const char *why = write_gates[i]();
            if (why) {
                reply_error(c, why);
                return 0;
            }
        }
    }
    return 1;
}

void cmd_call(client *c, const cmd_def *d) {
    long long dirty = server.dirty;
    uint64_t errors = server.stat.errors;
    int64_t start = mono_us();
    int outer_propagated = propagated; /* EXEC's, around its commands */
    propagated = 0;
    prop_begin();
    d->proc(c);
    cmd_def *md = (cmd_def *)d;
    md->usec += (uint64_t)(mono_us() - start);
    md->calls++;
    if (server.stat.errors != errors) md->failed++;
    /* Only write commands that changed something reach the AOF: SAVE lowers
     * server.dirty and DEBUG POPULATE raises it, neither may be replayed
     * (the AOF loader refuses them), as in Redis. */
    if ((d->flags & CMD_WRITE) && server.dirty > dirty && !propagated)
        prop_end_cmd(c->db, c->argc, c->argv);
    else
        prop_end_cmd(c->db, 0, NULL);
    propagated = outer_propagated;
}

int cmd_dispatch(client *c) {
    const cmd_def *d = cmd_lookup(c->argv[0].p, c->argv[0].len);
    if (!d) {
        server.stat.commands++;
        reply_unknown(c);
        multi_rejected(c, NULL, 0);
        return CMD_RAN;
    }
    if (multi_queues(c, d)) { /* inside MULTI: checked now, run by EXEC */
        c->cmd = d;
        if (may_run(c, d)) multi_queue(c, d);
        else multi_rejected(c, d, 0);
        c->cmd = NULL;
        return CMD_RAN;
    }
    if (hooks_before_command(c, d)) return CMD_PARKED;
    server.stat.commands++;
    c->cmd = d;
    c->lastcmd = d;
    size_t reply_at = c->reply.len;
    if (!may_run(c, d)) {
        ((cmd_def *)d)->failed++;
        multi_rejected(c, d, reply_at);
        hooks_after_command(c, d);
        return CMD_RAN;
    }
    cmd_call(c, d);
    hooks_after_command(c, d);
    c->cmd = NULL;
    return CMD_RAN;
}

/* ---- replies ---- */

void reply_ok(client *c) { resp_add_status(&c->reply, "OK"); }
void reply_status(client *c, const char *s) { resp_add_status(&c->reply, s); }

void reply_error(client *c, const char *s) {
    server.stat.errors++;
    resp_add_error(&c->reply, s);
}

void reply_errorf(client *c, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    reply_error(c, buf);
}

void reply_int(client *c, long long v) { resp_add_int(&c->reply, v); }
void reply_bulk(client *c, const char *p, size_t len) { resp_add_bulk(&c->reply, p, len); }
void reply_bulk_str(client *c, const char *s) { resp_add_bulk_str(&c->reply, s); }
void reply_bulk_ll(client *c, long long v) { resp_add_bulk_ll(&c->reply, v); }
void reply_nil(client *c) { resp_add_nil(&c->reply); }
void reply_array(client *c, long long n) { resp_add_array(&c->reply, n); }
void reply_syntax_error(client *c) { reply_error(c, "ERR syntax error"); }
void reply_not_int(client *c) { reply_error(c, "ERR value is not an integer or out of range"); }

void reply_bulk_obj(client *c, const obj *o) {
    char buf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, buf, &len);
    resp_add_bulk(&c->reply, s, len);
}

/* The running command's name, for error texts. */
static const char *running_name(const client *c) { return c->cmd ? c->cmd->name : "unknown"; }

void reply_wrong_args(client *c) {
    reply_errorf(c, "ERR wrong number of arguments for '%s' command", running_name(c));
}

void reply_invalid_expire(client *c) {
    reply_errorf(c, "ERR invalid expire time in '%s' command", running_name(c));
}

int arg_is(const arg *a, const char *lower) {
    size_t n = strlen(lower);
    return a->len == n && strncasecmp(a->p, lower, n) == 0;
}

int arg_ll(client *c, const arg *a, long long *out) {
    if (str_to_ll(a->p, a->len, out)) return 1;
    reply_not_int(c);
    return 0;
}
