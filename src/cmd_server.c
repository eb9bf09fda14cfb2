/* cmd_server: connection and server commands: PING ECHO CONFIG COMMAND
 * CLIENT HELLO AUTH TIME QUIT SHUTDOWN DEBUG (INFO is in info.c). Replies and
 * error texts follow Redis 7.0. Main thread only. */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "conf.h"
#include "db.h"
#include "lazyfree.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "pubsub.h"
#include "util.h"

/* "ERR wrong number of arguments for 'config|get' command" */
static void reply_sub_arity(client *c, const char *cmd) {
    char sub[32];
    size_t n = c->argv[1].len < sizeof sub - 1 ? c->argv[1].len : sizeof sub - 1;
    for (size_t i = 0; i < n; i++) sub[i] = (char)tolower((unsigned char)c->argv[1].p[i]);
    sub[n] = '\0';
    reply_errorf(c, "ERR wrong number of arguments for '%s|%s' command", cmd, sub);
}

static void reply_unknown_subcommand(client *c, const char *cmd) {
    reply_errorf(c, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                 (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p, cmd);
}

void cmd_ping(client *c) {
    if (c->argc > 2) { reply_wrong_args(c); return; }
    if (c->flags & CLIENT_PUBSUB) { /* RESP2's subscribed context: ["pong", arg or ""] */
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

/* 1 when user/password match the default user; replies the error if not. */
static int check_password(client *c, const arg *user, const arg *pass) {
    const char *want = server.cfg.requirepass;
    int ok = want[0] && (!user || arg_is(user, "default")) &&
             pass->len == strlen(want) && memcmp(pass->p, want, pass->len) == 0;
    if (!ok) {
        reply_error(c, "WRONGPASS invalid username-password pair or user is disabled.");
        return 0;
    }
    c->flags |= CLIENT_AUTHED;
    return 1;
}

void cmd_auth(client *c) {
    if (c->argc > 3) { reply_syntax_error(c); return; }
    if (c->argc == 2 && !server.cfg.requirepass[0]) {
        reply_error(c, "ERR AUTH <password> called without any password configured for the "
                       "default user. Are you sure your configuration is correct?");
        return;
    }
    if (check_password(c, c->argc == 3 ? &c->argv[1] : NULL, &c->argv[c->argc - 1]))
        reply_ok(c);
}

static int valid_client_name(const arg *a) {
    for (size_t i = 0; i < a->len; i++)
        if (a->p[i] < '!' || a->p[i] > '~') return 0;
    return 1;
}

static int set_client_name(client *c, const arg *a) {
    if (!valid_client_name(a)) {
        reply_error(c, "ERR Client names cannot contain spaces, newlines or special characters.");
        return 0;
    }
    free(c->name);
    c->name = a->len ? xstrndup(a->p, a->len) : NULL;
    return 1;
}

void cmd_hello(client *c) {
    if (c->argc >= 2) {
        long long ver;
        if (!str_to_ll(c->argv[1].p, c->argv[1].len, &ver) || ver < 0 || ver > INT32_MAX) {
            reply_error(c, "ERR Protocol version is not an integer or out of range");
            return;
        }
        if (ver < 2 || ver > 3) {
            reply_error(c, "NOPROTO unsupported protocol version");
            return;
        }
        if (ver == 3) {
            reply_error(c, "NOPROTO sorry, this protocol version is not supported");
            return;
        }
    }
    for (int i = 2; i < c->argc; i++) {
        int more = c->argc - i - 1;
        if (arg_is(&c->argv[i], "auth") && more >= 2) {
            if (!check_password(c, &c->argv[i + 1], &c->argv[i + 2])) return;
            i += 2;
        } else if (arg_is(&c->argv[i], "setname") && more >= 1) {
            if (!set_client_name(c, &c->argv[i + 1])) return;
            i += 1;
        } else {
            reply_errorf(c, "ERR Syntax error in HELLO option '%.*s'", (int)c->argv[i].len,
                         c->argv[i].p);
            return;
        }
    }
    if (!(c->flags & CLIENT_AUTHED)) {
        reply_error(c, "NOAUTH HELLO must be called with the client already authenticated, "
                       "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to "
                       "authenticate the client and select the RESP protocol version at the "
                       "same time");
        return;
    }
    reply_array(c, 14);
    reply_bulk_str(c, "server");
    reply_bulk_str(c, "redis");
    reply_bulk_str(c, "version");
    reply_bulk_str(c, VERSO_REDIS_VERSION);
    reply_bulk_str(c, "proto");
    reply_int(c, 2);
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
    reply_array(c, r.n);
    vbuf_append(&c->reply, r.items.data, r.items.len);
    vbuf_free(&r.items);
}

static void config_set(client *c) {
    if (c->argc < 4 || (c->argc - 2) % 2 != 0) {
        reply_errorf(c, "ERR wrong number of arguments for 'config|set' command");
        return;
    }
    char **names, **values;
    int n = arg_dup_all(c, 2, 2, &names);
    arg_dup_all(c, 3, 2, &values);
    char err[CONF_ERRLEN];
    if (conf_set(&server.cfg, n, names, values, err, sizeof err) == 0) reply_ok(c);
    else reply_error(c, err);
    free_strv(names, n);
    free_strv(values, n);
}

static void config_resetstat(client *c) {
    memset(&server.stat, 0, sizeof server.stat);
    lazyfree_reset_stats();
    for (size_t i = 0; i < cmd_count_all(); i++) {
        cmd_def *d = cmd_at_all(i);
        d->calls = d->usec = d->failed = 0;
    }
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

/* ---- CLIENT ---- */

static void client_line(vbuf *b, const client *c) {
    int64_t now = mono_ms();
    char flags[8], *f = flags; /* Redis's letters, in its order */
    if (c->flags & CLIENT_REPLICA) *f++ = 'S';
    if (c->flags & CLIENT_MASTER) *f++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *f++ = 'P';
    if (c->flags & CLIENT_MULTI) *f++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *f++ = 'b';
    if (c->flags & CLIENT_DIRTY_CAS) *f++ = 'd';
    if (f == flags) *f++ = 'N';
    *f = '\0';
    size_t sub, psub, ssub;
    pubsub_counts(c, &sub, &psub, &ssub);
    /* straight into b: a long name must not cut the line */
    vbuf_appendf(b,
             "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
             "sub=%zu psub=%zu ssub=%zu multi=%lld qbuf=%zu qbuf-free=%zu argv-mem=0 multi-mem=0 "
             "rbs=%zu rbp=0 obl=%zu oll=0 omem=%zu tot-mem=%zu events=r cmd=%s user=default "
             "redir=-1 resp=2\n",
             (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? c->name : "",
             (long long)((now - c->ctime_ms) / 1000), (long long)((now - c->last_ms) / 1000),
             flags, c->db, sub, psub, ssub, multi_queued(c), c->in.len, c->in.cap - c->in.len,
             c->reply.cap, c->reply.len, c->inflight.len,
             c->in.cap + c->reply.cap + c->inflight.cap + sizeof *c,
             c->lastcmd ? c->lastcmd->fullname : "NULL");
}

/* CLIENT KILL's types (TYPE normal|master|replica|slave|pubsub), as
 * Redis's getClientType: a master link is "master", a replica "slave",
 * then a subscriber "pubsub". */
enum { KILL_ANY = -1, KILL_NORMAL, KILL_REPLICA, KILL_PUBSUB, KILL_MASTER };

static int client_type(const client *c) {
    if (c->flags & CLIENT_MASTER) return KILL_MASTER;
    if (c->flags & CLIENT_REPLICA) return KILL_REPLICA;
    if (c->flags & CLIENT_PUBSUB) return KILL_PUBSUB;
    return KILL_NORMAL;
}

static int client_type_by_name(const arg *a) {
    if (arg_is(a, "normal")) return KILL_NORMAL;
    if (arg_is(a, "slave") || arg_is(a, "replica")) return KILL_REPLICA;
    if (arg_is(a, "pubsub")) return KILL_PUBSUB;
    if (arg_is(a, "master")) return KILL_MASTER;
    return -2;
}

typedef struct kill_filter {
    long long id;            /* 0: any */
    int type;                /* KILL_ANY or a type */
    const arg *addr, *laddr; /* NULL: any */
    int skipme;
} kill_filter;

static int arg_eq_str(const arg *a, const char *s) {
    return a->len == strlen(s) && !memcmp(a->p, s, a->len);
}

/* The new form's "<filter> <value>" pairs; 0 after replying an error. */
static int kill_parse(client *c, kill_filter *f) {
    for (int i = 2; i < c->argc; i += 2) {
        if (i + 1 >= c->argc) { reply_syntax_error(c); return 0; }
        const arg *k = &c->argv[i], *v = &c->argv[i + 1];
        if (arg_is(k, "id")) {
            if (!str_to_ll(v->p, v->len, &f->id) || f->id <= 0) {
                reply_error(c, "ERR client-id should be greater than 0");
                return 0;
            }
        } else if (arg_is(k, "type")) {
            f->type = client_type_by_name(v);
            if (f->type == -2) {
                reply_errorf(c, "ERR Unknown client type '%.*s'", (int)v->len, v->p);
                return 0;
            }
        } else if (arg_is(k, "addr")) {
            f->addr = v;
        } else if (arg_is(k, "laddr")) {
            f->laddr = v;
        } else if (arg_is(k, "user")) {
            if (!arg_eq_str(v, "default")) { /* verso's only user (no ACL yet) */
                reply_errorf(c, "ERR No such user '%.*s'", (int)v->len, v->p);
                return 0;
            }
        } else if (arg_is(k, "skipme")) {
            if (arg_is(v, "yes")) f->skipme = 1;
            else if (arg_is(v, "no")) f->skipme = 0;
            else { reply_syntax_error(c); return 0; }
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

/* CLIENT KILL ip:port (the old form: +OK or "No such client") or the
 * filters ID TYPE USER ADDR LADDR SKIPME (every one must match; replies the
 * number killed), as Redis 7.0's clientKillCommand. The caller itself is
 * closed after its reply. */
static void client_kill(client *c) {
    kill_filter f = {0, KILL_ANY, NULL, NULL, 1};
    if (c->argc == 3) {
        f.addr = &c->argv[2];
        f.skipme = 0;
    } else if (!kill_parse(c, &f)) {
        return;
    }
    long long killed = 0;
    for (client *o = server.clients, *next; o; o = next) {
        next = o->next;
        if (f.addr && !arg_eq_str(f.addr, o->addr)) continue;
        if (f.laddr && !arg_eq_str(f.laddr, o->laddr)) continue;
        if (f.type != KILL_ANY && client_type(o) != f.type) continue;
        if (f.id && o->id != (uint64_t)f.id) continue;
        if (o == c && f.skipme) continue;
        if (o == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else net_close_client(o);
        killed++;
    }
    if (c->argc > 3) reply_int(c, killed);
    else if (killed) reply_ok(c);
    else reply_error(c, "ERR No such client");
}

/* CLIENT LIST [TYPE normal|master|replica|pubsub | ID id [id ...]], as
 * Redis 7.0 (the ID form in the order asked). */
static void client_list(client *c) {
    vbuf b = {0};
    if (c->argc == 4 && arg_is(&c->argv[2], "type")) {
        int type = client_type_by_name(&c->argv[3]);
        if (type == -2) {
            reply_errorf(c, "ERR Unknown client type '%.*s'", (int)c->argv[3].len, c->argv[3].p);
            return;
        }
        for (client *o = server.clients; o; o = o->next)
            if (client_type(o) == type) client_line(&b, o);
    } else if (c->argc >= 4 && arg_is(&c->argv[2], "id")) {
        long long id;
        for (int j = 3; j < c->argc; j++) {
            if (!str_to_ll(c->argv[j].p, c->argv[j].len, &id)) {
                reply_error(c, "ERR Invalid client ID");
                vbuf_free(&b);
                return;
            }
        }
        for (int j = 3; j < c->argc; j++) {
            str_to_ll(c->argv[j].p, c->argv[j].len, &id);
            for (client *o = server.clients; o; o = o->next)
                if (o->id == (uint64_t)id) client_line(&b, o);
        }
    } else if (c->argc != 2) {
        reply_syntax_error(c);
        return;
    } else {
        for (client *o = server.clients; o; o = o->next) client_line(&b, o);
    }
    reply_bulk(c, b.data ? b.data : "", b.len);
    vbuf_free(&b);
}

void cmd_client(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "id") && c->argc == 2) {
        reply_int(c, (long long)c->id);
    } else if (arg_is(sub, "getname") && c->argc == 2) {
        if (c->name) reply_bulk_str(c, c->name);
        else reply_nil(c);
    } else if (arg_is(sub, "setname") && c->argc == 3) {
        if (set_client_name(c, &c->argv[2])) reply_ok(c);
    } else if (arg_is(sub, "list")) {
        client_list(c);
    } else if (arg_is(sub, "info") && c->argc == 2) {
        vbuf b = {0};
        client_line(&b, c);
        reply_bulk(c, b.data, b.len);
        vbuf_free(&b);
    } else if (arg_is(sub, "kill") && c->argc >= 3) {
        client_kill(c);
    } else if (arg_is(sub, "setinfo") && c->argc == 4) {
        reply_ok(c);
    } else if (arg_is(sub, "id") || arg_is(sub, "getname") || arg_is(sub, "setname") ||
               arg_is(sub, "list") || arg_is(sub, "info") || arg_is(sub, "kill") ||
               arg_is(sub, "setinfo")) {
        reply_sub_arity(c, "client");
    } else {
        reply_unknown_subcommand(c, "CLIENT");
    }
}

/* ---- SHUTDOWN / DEBUG ---- */

void cmd_shutdown(client *c) {
    int nosave = 0, save = 0, force = 0;
    for (int i = 1; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "nosave")) nosave = 1;
        else if (arg_is(&c->argv[i], "save")) save = 1;
        else if (arg_is(&c->argv[i], "force")) force = 1;
        else if (arg_is(&c->argv[i], "now")) continue;
        else { reply_syntax_error(c); return; }
    }
    if (nosave && save) { reply_syntax_error(c); return; }
    char err[512];
    server_shutdown(nosave, save, force, err, sizeof err);
    reply_error(c, err); /* only reached when shutdown failed */
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
            v = obj_new_zeroed((size_t)size);
            memcpy(v->data, val, vlen < (size_t)size ? vlen : (size_t)size);
        } else {
            v = obj_new_raw(val, vlen);
        }
        db_set(d, key, klen, v, VT_NO_EXPIRE);
        server_dirty(1);
    }
    free(key);
    reply_ok(c);
}

void cmd_debug(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "populate") && c->argc >= 3 && c->argc <= 5) {
        debug_populate(c);
    } else if (arg_is(sub, "sleep") && c->argc == 3) {
        char buf[64];
        snprintf(buf, sizeof buf, "%.*s", (int)(c->argv[2].len < 63 ? c->argv[2].len : 63),
                 c->argv[2].p);
        double secs = strtod(buf, NULL);
        struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
        nanosleep(&ts, NULL);
        reply_ok(c);
    } else {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try DEBUG HELP.", (int)sub->len, sub->p);
    }
}
