/* cmd_server: connection and server commands: PING ECHO TIME QUIT AUTH
 * HELLO CONFIG SHUTDOWN DEBUG (POPULATE, SLEEP, PROTOCOL, ...; CLIENT is in
 * cmd_client.c, COMMAND in src/introspect/cmd_command.c, INFO in
 * src/introspect/info.c). Replies and error texts follow Redis 7.0. Main
 * thread only. */
#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "acl.h"
#include "cmd.h"
#include "conf.h"
#include "db.h"
#include "hooks.h"
#include "introspect.h"
#include "lazyfree.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "pubsub.h"
#include "shutdown.h"
#include "util.h"

void cmd_ping(client *c) {
    if (c->argc > 2) { reply_wrong_args(c); return; }
    if ((c->flags & CLIENT_PUBSUB) && c->resp == 2) { /* RESP2's subscribed context: ["pong", arg or ""] */
        reply_array(c, 2);
        reply_bulk_str(c, "pong");
        reply_bulk(c, c->argc == 2 ? c->argv[1].p : "", c->argc == 2 ? c->argv[1].len : 0);
        return;
    }
    if (c->argc == 2) reply_bulk(c, c->argv[1].p, c->argv[1].len);
    else reply_status(c, "PONG");
}

void cmd_echo(client *c) { reply_bulk(c, c->argv[1].p, c->argv[1].len); }

void cmd_time(client *c) {
    int64_t us = wall_us();
    reply_array(c, 2);
    reply_bulk_ll(c, us / 1000000);
    reply_bulk_ll(c, us % 1000000);
}

void cmd_quit(client *c) {
    reply_ok(c);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

/* ---- AUTH / HELLO ---- */

/* 1 when user (NULL: the default user) exists, is on and takes the
 * password (acl.h: c is then authenticated as that user); else replies
 * WRONGPASS (the failure is in ACL LOG). */
static int check_password(client *c, const arg *user, const arg *pass) {
    if (acl_authenticate(c, user, pass)) return 1;
    reply_error(c, "WRONGPASS invalid username-password pair or user is disabled.");
    return 0;
}

void cmd_auth(client *c) {
    if (c->argc > 3) { reply_syntax_error(c); return; }
    if (c->argc == 2 && acl_default_nopass()) {
        reply_error(c, "ERR AUTH <password> called without any password configured for the "
                       "default user. Are you sure your configuration is correct?");
        return;
    }
    if (check_password(c, c->argc == 3 ? &c->argv[1] : NULL, &c->argv[c->argc - 1]))
        reply_ok(c);
}

/* HELLO [protover [AUTH user pass] [SETNAME name]], as Redis 7.0's
 * helloCommand: AUTH authenticates as it is parsed, SETNAME is checked
 * then and applied once the client is known to be authenticated, and the
 * protocol switches just before the reply (a map under the new one). */
void cmd_hello(client *c) {
    long long ver = 0;
    if (c->argc >= 2) {
        if (!str_to_ll(c->argv[1].p, c->argv[1].len, &ver)) {
            reply_error(c, "ERR Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            reply_error(c, "NOPROTO unsupported protocol version");
            return;
        }
    }
    const arg *name = NULL;
    for (int i = 2; i < c->argc; i++) {
        int more = c->argc - i - 1;
        if (arg_is(&c->argv[i], "auth") && more >= 2) {
            if (!check_password(c, &c->argv[i + 1], &c->argv[i + 2])) return;
            i += 2;
        } else if (arg_is(&c->argv[i], "setname") && more >= 1) {
            name = &c->argv[i + 1];
            for (size_t j = 0; j < name->len; j++) {
                if (name->p[j] < '!' || name->p[j] > '~') {
                    reply_error(c, "ERR Client names cannot contain spaces, newlines or "
                                   "special characters.");
                    return;
                }
            }
            i += 1;
        } else {
            reply_errorf(c, "ERR Syntax error in HELLO option '%.*s'", (int)c->argv[i].len,
                         c->argv[i].p);
            return;
        }
    }
    if (acl_auth_required(c)) {
        reply_error(c, "NOAUTH HELLO must be called with the client already authenticated, "
                       "otherwise the HELLO AUTH <user> <pass> option can be used to "
                       "authenticate the client and select the RESP protocol version at the "
                       "same time");
        return;
    }
    if (name && !client_set_name(c, name)) return; /* checked above: cannot fail */
    if (ver) c->resp = (int)ver;
    reply_map(c, 7);
    reply_bulk_str(c, "server");
    reply_bulk_str(c, "redis");
    reply_bulk_str(c, "version");
    reply_bulk_str(c, VERSO_REDIS_VERSION);
    reply_bulk_str(c, "proto");
    reply_int(c, c->resp);
    reply_bulk_str(c, "id");
    reply_int(c, (long long)c->id);
    reply_bulk_str(c, "mode");
    reply_bulk_str(c, "standalone");
    reply_bulk_str(c, "role");
    reply_bulk_str(c, server.upstream ? "replica" : "master");
    reply_bulk_str(c, "modules");
    reply_array(c, 0);
}

/* ---- CONFIG ---- */

typedef struct conf_reply {
    client *c;
    vbuf items;     /* name\0value\0 pairs, counted in n */
    long long n;
} conf_reply;

static void conf_collect(void *priv, const char *name, const char *value) {
    conf_reply *r = priv;
    char cwd[PATH_MAX];
    /* dir: where the server is (it chdir'ed there), absolute, as Redis */
    if (!strcasecmp(name, "dir") && getcwd(cwd, sizeof cwd)) value = cwd;
    resp_add_bulk_str(&r->items, name);
    resp_add_bulk_str(&r->items, value);
    r->n += 2;
}

static int arg_dup_all(client *c, int from, int step, char ***out) {
    int n = (c->argc - from + step - 1) / step;
    char **v = xcalloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++)
        v[i] = xstrndup(c->argv[from + i * step].p, c->argv[from + i * step].len);
    *out = v;
    return n;
}

static void free_strv(char **v, int n) {
    for (int i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void config_get(client *c) {
    conf_reply r = {c, {0}, 0};
    for (int i = 2; i < c->argc; i++) {
        char *pat = xstrndup(c->argv[i].p, c->argv[i].len);
        conf_get(&server.cfg, pat, conf_collect, &r);
        free(pat);
    }
    reply_map(c, r.n / 2);
    vbuf_append(&c->reply, r.items.data, r.items.len);
    vbuf_free(&r.items);
}

/* Whether the peer is 127.0.0.1 or ::1 (c->addr is "ip:port"), for
 * enable-protected-configs local. */
static int config_client_local(const client *c) {
    const char *colon = strrchr(c->addr, ':');
    size_t n = colon ? (size_t)(colon - c->addr) : strlen(c->addr);
    return (n == 9 && memcmp(c->addr, "127.0.0.1", 9) == 0) ||
           (n == 3 && memcmp(c->addr, "::1", 3) == 0);
}

/* What a load in progress depends on (Redis 7.0's DENY_LOADING_CONFIG):
 * CONFIG SET of these answers -LOADING while loading. */
static int sets_what_loading_needs(int n, char **names) {
    for (int i = 0; i < n; i++) {
        const char *name = conf_canonical_name(names[i]);
        if (name && (!strcmp(name, "appendonly") || !strcmp(name, "repl-diskless-load")))
            return 1;
    }
    return 0;
}

static void config_set(client *c) {
    if (c->argc < 4) {
        reply_errorf(c, "ERR wrong number of arguments for 'config|set' command");
        return;
    }
    if (c->argc % 2 != 0) { /* a name without its value */
        reply_error(c, "ERR syntax error");
        return;
    }
    char **names, **values;
    int n = arg_dup_all(c, 2, 2, &names);
    arg_dup_all(c, 3, 2, &values);
    if (server.loading && sets_what_loading_needs(n, names)) {
        reply_error(c, "LOADING Redis is loading the dataset in memory");
        free_strv(names, n);
        free_strv(values, n);
        return;
    }
    char err[CONF_ERRLEN];
    if (conf_set_from(&server.cfg, config_client_local(c), n, names, values, err, sizeof err) == 0)
        reply_ok(c);
    else reply_error(c, err);
    free_strv(names, n);
    free_strv(values, n);
}

static void config_resetstat(client *c) {
    memset(&server.stat, 0, sizeof server.stat);
    lazyfree_reset_stats();
    introspect_reset_stats(); /* commandstats, errorstats, latencystats... */
    reply_ok(c);
}

/* CONFIG REWRITE: the file the server started with (conf_rewrite). */
static void config_rewrite(client *c) {
    if (!server.config_file) {
        reply_error(c, "ERR The server is running without a config file");
        return;
    }
    char err[256];
    if (conf_rewrite(&server.cfg, server.config_file, err, sizeof err) != 0) {
        log_warning("CONFIG REWRITE failed: %s", err);
        reply_errorf(c, "ERR Rewriting config file: %s", err);
        return;
    }
    log_notice("CONFIG REWRITE executed with success.");
    reply_ok(c);
}

void cmd_config(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "get") && c->argc >= 3) config_get(c);
    else if (arg_is(sub, "set")) config_set(c);
    else if (arg_is(sub, "resetstat") && c->argc == 2) config_resetstat(c);
    else if (arg_is(sub, "rewrite") && c->argc == 2) config_rewrite(c);
    else if (arg_is(sub, "help") && c->argc == 2) {
        static const char *help[] = {
            "CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "GET <pattern>", "    Return parameters matching the glob-like <pattern> and their values.",
            "SET <directive> <value>", "    Set the configuration <directive> to <value>.",
            "RESETSTAT", "    Reset statistics reported by the INFO command.",
            "REWRITE", "    Rewrite the configuration file.",
            "HELP", "    Print this help."};
        reply_array(c, (long long)(sizeof help / sizeof help[0]));
        for (size_t i = 0; i < sizeof help / sizeof help[0]; i++) reply_status(c, help[i]);
    } else if (arg_is(sub, "get") || arg_is(sub, "resetstat") || arg_is(sub, "help") ||
               arg_is(sub, "rewrite")) {
        reply_sub_arity(c, "config");
    } else {
        reply_unknown_subcommand(c, "CONFIG");
    }
}

/* ---- SHUTDOWN / DEBUG ---- */

void cmd_shutdown(client *c) {
    int flags = 0, abort = 0;
    for (int i = 1; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "nosave")) flags |= SHUT_NOSAVE;
        else if (arg_is(&c->argv[i], "save")) flags |= SHUT_SAVE;
        else if (arg_is(&c->argv[i], "force")) flags |= SHUT_FORCE;
        else if (arg_is(&c->argv[i], "now")) flags |= SHUT_NOW;
        else if (arg_is(&c->argv[i], "abort")) abort = 1;
        else { reply_syntax_error(c); return; }
    }
    if ((abort && flags) || ((flags & SHUT_NOSAVE) && (flags & SHUT_SAVE))) {
        reply_syntax_error(c);
        return;
    }
    if (abort) {
        if (shutdown_abort() == 0) reply_ok(c);
        else reply_error(c, "ERR No shutdown in progress.");
        return;
    }
    char err[512];
    if (shutdown_request(c, flags, err, sizeof err) < 0) reply_error(c, err);
    /* else it waits for the replicas (c is blocked): the exit, or an error */
}

static void debug_populate(client *c) {
    long long count, size = 0;
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0) {
        reply_error(c, "ERR value is out of range, must be positive");
        return;
    }
    const char *prefix = "key";
    size_t plen = 3;
    if (c->argc >= 4) { prefix = c->argv[3].p; plen = c->argv[3].len; }
    if (c->argc >= 5 && !arg_ll(c, &c->argv[4], &size)) return;
    if (size < 0) {
        reply_error(c, "ERR value is out of range, must be positive");
        return;
    }
    /* verso's own bound (Redis has none and dies of it): a value no bigger
     * than a client may SET. */
    if (size > server.cfg.proto_max_bulk_len) {
        reply_error(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return;
    }
    db *d = db_get(c->db);
    char *key = xmalloc(plen + 32);  /* "<prefix>:<j>" */
    memcpy(key, prefix, plen);
    key[plen] = ':';
    char val[64];
    for (long long j = 0; j < count; j++) {
        size_t klen = plen + 1 + ll_to_str(key + plen + 1, j);
        if (db_lookup(d, key, klen)) continue;
        size_t vlen = (size_t)snprintf(val, sizeof val, "value:%lld", j);
        obj *v;
        if (size) {
            /* "value:N" zero-padded or cut to `size` bytes, as Redis */
            v = obj_kv_new_zeroed(key, klen, (size_t)size);
            memcpy(v->data, val, vlen < (size_t)size ? vlen : (size_t)size);
        } else {
            v = obj_kv_new_raw(key, klen, val, vlen);
        }
        db_set(d, key, klen, v, VT_NO_EXPIRE);
        server_dirty(1);
    }
    free(key);
    reply_ok(c);
}

/* DEBUG PROTOCOL <type>: one reply of each RESP3 type (and its RESP2
 * form), as Redis 7.0 answers it for client libraries' tests. */
static void debug_protocol(client *c) {
    const arg *t = &c->argv[2];
    if (arg_is(t, "string")) {
        reply_bulk_str(c, "Hello World");
    } else if (arg_is(t, "integer")) {
        reply_int(c, 12345);
    } else if (arg_is(t, "double")) {
        reply_double(c, 3.141);
    } else if (arg_is(t, "bignum")) {
        reply_bignum(c, "1234567999999999999999999999999999999", 37);
    } else if (arg_is(t, "null")) {
        reply_null(c);
    } else if (arg_is(t, "array") || arg_is(t, "set")) {
        (arg_is(t, "set") ? reply_set : reply_array)(c, 3);
        for (int j = 0; j < 3; j++) reply_int(c, j);
    } else if (arg_is(t, "map")) {
        reply_map(c, 3);
        for (int j = 0; j < 3; j++) {
            reply_int(c, j);
            reply_bool(c, j == 1);
        }
    } else if (arg_is(t, "attrib")) {
        if (c->resp >= 3) { /* RESP2 has no attributes: the reply alone */
            resp_add_attribute(&c->reply, 1);
            reply_bulk_str(c, "key-popularity");
            reply_array(c, 2);
            reply_bulk_str(c, "key:123");
            reply_int(c, 90);
        }
        reply_bulk_str(c, "Some real reply following the attribute");
    } else if (arg_is(t, "push")) {
        if (c->resp < 3) {
            reply_error(c, "ERR RESP2 is not supported by this command");
            return;
        }
        reply_push(c, 2);
        reply_bulk_str(c, "server-cpu-usage");
        reply_int(c, 42);
        reply_bulk_str(c, "Some real reply following the push reply");
    } else if (arg_is(t, "true") || arg_is(t, "false")) {
        reply_bool(c, arg_is(t, "true"));
    } else if (arg_is(t, "verbatim")) {
        reply_verbatim(c, "This is a verbatim\nstring", 25, "txt");
    } else {
        reply_error(c, "ERR Wrong protocol type name. Please use one of the following: "
                       "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|"
                       "true|false");
    }
}

void cmd_debug(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "populate") && c->argc >= 3 && c->argc <= 5) {
        debug_populate(c);
    } else if (arg_is(sub, "protocol") && c->argc == 3) {
        debug_protocol(c);
    } else if (arg_is(sub, "sleep") && c->argc == 3) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(c->argv[2].len < 63 ? c->argv[2].len : 63),
                 c->argv[2].p);
        double secs = strtod(buf, NULL);
        struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
        nanosleep(&ts, NULL);
        reply_ok(c);
    } else if (arg_is(sub, "reload") && (c->argc == 2 || (c->argc == 3 && arg_is(&c->argv[2], "nosave")))) {
        char err[512];
        int rc = hooks_debug_reload(c->argc == 2, err, sizeof err);
        if (rc == 0) reply_ok(c);
        else if (rc < 0) reply_error(c, err);
        else reply_error(c, "ERR DEBUG RELOAD needs the snapshot module");
    } else if (arg_is(sub, "set-active-expire") && c->argc == 3) {
        long long on;
        if (!arg_ll(c, &c->argv[2], &on)) return;
        db_set_active_expire(on != 0);
        reply_ok(c);
    } else {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try DEBUG HELP.", (int)sub->len, sub->p);
    }
}
