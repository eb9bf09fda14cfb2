/* cmd_server: connection and server commands: PING ECHO TIME QUIT AUTH
 * HELLO CONFIG SHUTDOWN (CLIENT is in cmd_client.c, COMMAND in
 * src/introspect/cmd_command.c, INFO in src/introspect/info.c, DEBUG in
 * src/introspect/debug.c). Replies and error texts follow Redis 7.0. Main
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
    vbuf items;     /* the reply's name, value bulks, counted in n */
    long long n;
    char **names;   /* the names given so far (nnames) */
    size_t nnames;
} conf_reply;

/* A name once only across the patterns, ASCII case ignored, as Redis 7.0
 * (CONFIG GET maxmemory maxmemory*: one maxmemory; an alias, slaveof, is
 * a name of its own). */
static int conf_seen(conf_reply *r, const char *name) {
    for (size_t i = 0; i < r->nnames; i++)
        if (!strcasecmp(r->names[i], name)) return 1;
    r->names = xrealloc(r->names, (r->nnames + 1) * sizeof *r->names);
    r->names[r->nnames++] = xstrdup(name);
    return 0;
}

static void conf_collect(void *priv, const char *name, const char *value, size_t vlen) {
    conf_reply *r = priv;
    if (conf_seen(r, name)) return;
    char cwd[PATH_MAX];
    /* dir: where the server is (it chdir'ed there), absolute, as Redis */
    if (!strcasecmp(name, "dir") && getcwd(cwd, sizeof cwd)) {
        value = cwd;
        vlen = strlen(cwd);
    }
    resp_add_bulk_str(&r->items, name);
    resp_add_bulk(&r->items, value, vlen);
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
    conf_reply r = {c, {0}, 0, NULL, 0};
    for (int i = 2; i < c->argc; i++) {
        char *pat = xstrndup(c->argv[i].p, c->argv[i].len);
        conf_get(&server.cfg, pat, conf_collect, &r);
        free(pat);
    }
    reply_map(c, r.n / 2);
    vbuf_append(&c->reply, r.items.data, r.items.len);
    vbuf_free(&r.items);
    free_strv(r.names, (int)r.nnames);
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
    size_t *vlens = xmalloc((size_t)n * sizeof *vlens); /* requirepass: any bytes */
    for (int i = 0; i < n; i++) vlens[i] = c->argv[3 + 2 * i].len;
    if (server.loading && sets_what_loading_needs(n, names)) {
        reply_error(c, "LOADING Redis is loading the dataset in memory");
        free_strv(names, n);
        free_strv(values, n);
        free(vlens);
        return;
    }
    char err[CONF_ERRLEN];
    if (conf_set_bytes(&server.cfg, config_client_local(c), n, names, values, vlens, err,
                       sizeof err) == 0)
        reply_ok(c);
    else reply_error(c, err);
    free_strv(names, n);
    free_strv(values, n);
    free(vlens);
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

/* ---- SHUTDOWN ---- */

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

