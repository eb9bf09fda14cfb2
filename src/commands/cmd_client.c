/* cmd_client: the CLIENT command and its subcommands (ID GETNAME SETNAME
 * LIST INFO KILL SETINFO PAUSE UNPAUSE REPLY NO-EVICT UNBLOCK HELP; the
 * TRACKING family is tracking.c's), RESET, and what the dispatcher does
 * after each command for them (client_command_done: CLIENT REPLY OFF/SKIP
 * drop replies, CLIENT CACHING ends, tracking messages for the client
 * follow its reply), with replies and error texts as Redis 7.0. Main
 * thread only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl.h"
#include "blocking.h"
#include "client_mem.h"
#include "cmd.h"
#include "introspect.h"
#include "multi.h"
#include "net.h"
#include "pause.h"
#include "pubsub.h"
#include "tracking.h"
#include "util.h"

static int valid_client_name(const arg *a) {
    for (size_t i = 0; i < a->len; i++)
        if (a->p[i] < '!' || a->p[i] > '~') return 0;
    return 1;
}

int client_set_name(client *c, const arg *a) {
    if (!valid_client_name(a)) {
        reply_error(c, "ERR Client names cannot contain spaces, newlines or special characters.");
        return 0;
    }
    free(c->name);
    c->name = a->len ? xstrndup(a->p, a->len) : NULL;
    return 1;
}


/* CLIENT LIST's flags: Redis 7.0's letters, in its order. */
static void client_flags(const client *c, char *f) {
    if (c->flags & CLIENT_REPLICA) *f++ = 'S';
    else if (c->flags & CLIENT_MONITOR) *f++ = 'O';
    if (c->flags & CLIENT_MASTER) *f++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *f++ = 'P';
    if (c->flags & CLIENT_MULTI) *f++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *f++ = 'b';
    f += tracking_flag_letters(c, f);
    if (c->flags & CLIENT_DIRTY_CAS) *f++ = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *f++ = 'c';
    if (c->flags & CLIENT_NO_EVICT) *f++ = 'e';
    *f = '\0';
}

/* Bytes of the arguments of the command c runs or waits to run (argv-mem). */
static size_t argv_mem(const client *c) {
    if (c != server.current_client && !c->req_ready) return 0;
    size_t n = 0;
    for (int i = 0; i < c->argc; i++) n += c->argv[i].len;
    return n;
}

void client_info_line(vbuf *b, const client *c) {
    int64_t now = mono_ms();
    char flags[16];
    client_flags(c, flags);
    if (!flags[0]) strcpy(flags, "N");
    char events[3], *e = events; /* r: being read, w: a write in progress */
    if (!(c->flags & CLIENT_READ_PAUSED)) *e++ = 'r';
    if (c->writing) *e++ = 'w';
    *e = '\0';
    size_t sub, psub, ssub;
    pubsub_counts(c, &sub, &psub, &ssub);
    /* straight into b: a long name must not cut the line */
    vbuf_appendf(b,
             "id=%llu addr=%s laddr=%s fd=%d name=%s age=%lld idle=%lld flags=%s db=%d "
             "sub=%zu psub=%zu ssub=%zu multi=%lld qbuf=%zu qbuf-free=%zu argv-mem=%zu "
             "multi-mem=%zu rbs=%zu rbp=%zu obl=%zu oll=0 omem=%zu tot-mem=%zu events=%s cmd=%s "
             "user=%s redir=%lld resp=%d\n",
             (unsigned long long)c->id, c->addr, c->laddr, c->fd, c->name ? c->name : "",
             (long long)((now - c->ctime_ms) / 1000), (long long)((now - c->last_ms) / 1000),
             flags, c->db, sub, psub, ssub, multi_queued(c), c->in.len, c->in.cap - c->in.len,
             argv_mem(c), multi_mem(c), c->reply.cap, c->reply.cap, c->reply.len,
             client_mem_output(c), client_mem_usage(c), events,
             c->lastcmd ? c->lastcmd->fullname : "NULL", acl_user_name(c->user), tracking_redir(c),
             c->resp);
}

/* CLIENT KILL's types (TYPE normal|master|replica|slave|pubsub), as
 * Redis's getClientType: a master link is "master", a replica "slave",
 * then a subscriber "pubsub". */
enum { KILL_ANY = -1 };

static int client_type_by_name(const arg *a) {
    if (arg_is(a, "normal")) return CLIENT_TYPE_NORMAL;
    if (arg_is(a, "slave") || arg_is(a, "replica")) return CLIENT_TYPE_REPLICA;
    if (arg_is(a, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (arg_is(a, "master")) return CLIENT_TYPE_MASTER;
    return -2;
}

typedef struct kill_filter {
    long long id;            /* 0: any */
    int type;                /* KILL_ANY or a type */
    const arg *addr, *laddr; /* NULL: any */
    int skipme;
    const struct acl_user *user; /* NULL: any */
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
            f->user = acl_find(v->p, v->len);
            if (!f->user) {
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
    kill_filter f = {0, KILL_ANY, NULL, NULL, 1, NULL};
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
        if (f.user && o->user != f.user) continue;
        if (o == c && f.skipme) continue;
        if (o == c) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else net_close_client(o);
        killed++;
    }
    if (c->argc > 3) reply_int(c, killed);
    else if (killed) reply_ok(c);
    else reply_error(c, "ERR No such client");
}

/* The first connected client (server.clients has the newest first):
 * CLIENT LIST lists them in connection order, as Redis. */
static client *oldest(void) {
    client *o = server.clients;
    while (o && o->next) o = o->next;
    return o;
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
        for (client *o = oldest(); o; o = o->prev)
            if (client_type(o) == type) client_info_line(&b, o);
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
                if (o->id == (uint64_t)id) client_info_line(&b, o);
        }
    } else if (c->argc != 2) {
        reply_syntax_error(c);
        return;
    } else {
        for (client *o = oldest(); o; o = o->prev) client_info_line(&b, o);
    }
    reply_verbatim(c, b.data ? b.data : "", b.len, "txt");
    vbuf_free(&b);
}
/* "ERR unknown subcommand or wrong number of arguments for 'pause'. Try
 * CLIENT HELP." (the subcommand as given), Redis's
 * addReplySubcommandSyntaxError. */
static void reply_sub_syntax(client *c) {
    reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try CLIENT HELP.",
                 (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p);
}

/* CLIENT PAUSE timeout [WRITE|ALL]: the mode is checked before the
 * timeout, as Redis. */
static void client_pause(client *c) {
    int kind = PAUSE_ALL;
    if (c->argc == 4) {
        if (arg_is(&c->argv[3], "write")) kind = PAUSE_WRITE;
        else if (arg_is(&c->argv[3], "all")) kind = PAUSE_ALL;
        else {
            reply_error(c, "ERR CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    long long ms;
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &ms)) {
        reply_error(c, "ERR timeout is not an integer or out of range");
        return;
    }
    if (ms < 0) {
        reply_error(c, "ERR timeout is negative");
        return;
    }
    int64_t now = mono_ms();
    pause_start(kind, ms > INT64_MAX - now ? INT64_MAX : now + ms);
    reply_ok(c);
}

/* CLIENT REPLY ON|OFF|SKIP: OFF and SKIP reply nothing themselves. */
static void client_reply(client *c) {
    const arg *a = &c->argv[2];
    if (arg_is(a, "on")) {
        c->flags &= ~(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        reply_ok(c);
    } else if (arg_is(a, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (arg_is(a, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        reply_syntax_error(c);
    }
}

/* CLIENT NO-EVICT ON|OFF: whether maxmemory-clients may evict c (its
 * bucket follows when net.c counts it after this command). */
static void client_no_evict(client *c) {
    if (arg_is(&c->argv[2], "on")) c->flags |= CLIENT_NO_EVICT;
    else if (arg_is(&c->argv[2], "off")) c->flags &= ~CLIENT_NO_EVICT;
    else {
        reply_syntax_error(c);
        return;
    }
    reply_ok(c);
}

/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when a client blocked on keys was
 * unblocked (the reason is checked before the id, as Redis). */
static void client_unblock(client *c) {
    int error = 0;
    if (c->argc == 4) {
        if (arg_is(&c->argv[3], "timeout")) error = 0;
        else if (arg_is(&c->argv[3], "error")) error = 1;
        else {
            reply_error(c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    long long id;
    if (!arg_ll(c, &c->argv[2], &id)) return;
    client *t = NULL;
    for (client *o = server.clients; o && !t; o = o->next)
        if (o->id == (uint64_t)id) t = o;
    reply_int(c, t && block_unblock(t, error));
}

static const char *const client_help[] = {
    "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "CACHING (YES|NO)",
    "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
    "GETREDIR",
    "    Return the client ID we are redirecting to when tracking is enabled.",
    "GETNAME",
    "    Return the name of the current connection.",
    "ID",
    "    Return the ID of the current connection.",
    "INFO",
    "    Return information about the current client connection.",
    "KILL <ip:port>",
    "    Kill connection made from <ip:port>.",
    "KILL <option> <value> [<option> <value> [...]]",
    "    Kill connections. Options are:",
    "    * ADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made from the specified address",
    "    * LADDR (<ip:port>|<unixsocket>:0)",
    "      Kill connections made to specified local address",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Kill connections by type.",
    "    * USER <username>",
    "      Kill connections authenticated by <username>.",
    "    * SKIPME (YES|NO)",
    "      Skip killing current connection (default: yes).",
    "LIST [options ...]",
    "    Return information about client connections. Options:",
    "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
    "      Return clients of specified type.",
    "UNPAUSE",
    "    Stop the current client pause, resuming traffic.",
    "PAUSE <timeout> [WRITE|ALL]",
    "    Suspend all, or just write, clients for <timeout> milliseconds.",
    "REPLY (ON|OFF|SKIP)",
    "    Control the replies sent to the current connection.",
    "SETNAME <name>",
    "    Assign the name <name> to the current connection.",
    "UNBLOCK <clientid> [TIMEOUT|ERROR]",
    "    Unblock the specified blocked client.",
    "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
    "         [OPTIN] [OPTOUT] [NOLOOP]",
    "    Control server assisted client side caching.",
    "TRACKINGINFO",
    "    Report tracking status for the current connection.",
    "NO-EVICT (ON|OFF)",
    "    Protect current client connection from eviction.",
    "HELP",
    "    Prints this help.",
    NULL,
};

/* The dispatcher has resolved the subcommand and checked the table's arity
 * (c->cmd); the handlers check what the table cannot. */
void cmd_client(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "id")) {
        reply_int(c, (long long)c->id);
    } else if (arg_is(sub, "getname")) {
        if (c->name) reply_bulk_str(c, c->name);
        else reply_nil(c);
    } else if (arg_is(sub, "setname")) {
        if (client_set_name(c, &c->argv[2])) reply_ok(c);
    } else if (arg_is(sub, "list")) {
        client_list(c);
    } else if (arg_is(sub, "info")) {
        vbuf b = {0};
        client_info_line(&b, c);
        reply_verbatim(c, b.data, b.len, "txt");
        vbuf_free(&b);
    } else if (arg_is(sub, "kill")) {
        client_kill(c);
    } else if (arg_is(sub, "setinfo")) {
        reply_ok(c);
    } else if (arg_is(sub, "pause") && c->argc <= 4) {
        client_pause(c);
    } else if (arg_is(sub, "unpause")) {
        pause_stop();
        reply_ok(c);
    } else if (arg_is(sub, "reply")) {
        client_reply(c);
    } else if (arg_is(sub, "no-evict")) {
        client_no_evict(c);
    } else if (arg_is(sub, "unblock") && c->argc <= 4) {
        client_unblock(c);
    } else if (arg_is(sub, "tracking")) {
        tracking_cmd_tracking(c);
    } else if (arg_is(sub, "caching")) {
        tracking_cmd_caching(c);
    } else if (arg_is(sub, "getredir")) {
        tracking_cmd_getredir(c);
    } else if (arg_is(sub, "trackinginfo")) {
        tracking_cmd_trackinginfo(c);
    } else if (arg_is(sub, "help")) {
        cmd_reply_help(c, client_help);
    } else {
        reply_sub_syntax(c);
    }
}

/* SUBSCRIBE and its kin answer as pushes: CLIENT REPLY OFF keeps them, as
 * Redis 7.0 does. */
static int reply_is_push(const cmd_def *d) {
    return d && (d->proc == cmd_subscribe || d->proc == cmd_psubscribe ||
                 d->proc == cmd_ssubscribe || d->proc == cmd_unsubscribe ||
                 d->proc == cmd_punsubscribe || d->proc == cmd_sunsubscribe);
}

void client_command_done(client *c, size_t reply_at) {
    int flags = c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_REPLY_SKIP_NEXT);
    if (!flags && !c->tracking) return;
    const cmd_def *d = c->argc ? cmd_lookup_argv(c->argc, c->argv, NULL) : NULL;
    if ((flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) && !reply_is_push(d) &&
        c->reply.len > reply_at)
        c->reply.len = reply_at;
    /* SKIP drops the reply of the command after CLIENT REPLY SKIP */
    c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
    tracking_command_done(c, d);
}

/* RESET, as Redis 7.0's clearClientConnectionState: the transaction and
 * watches, subscriptions, tracking, CLIENT REPLY OFF/SKIP, name, protocol
 * (2), database (0) and authentication (the default user: unauthenticated
 * again unless it needs no password) go back to a new connection's. CLIENT
 * NO-EVICT stays, as in Redis 7.0. */
void cmd_reset(client *c) {
    if (c->flags & (CLIENT_REPLICA | CLIENT_MASTER)) {
        reply_error(c, "ERR can only reset normal client connections");
        return;
    }
    tracking_disable(c);
    monitor_remove(c);
    c->db = 0;
    c->resp = 2;
    acl_client_default(c);
    multi_client_free(c); /* the queue and the watches */
    c->flags &= ~(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    pubsub_client_closed(c);
    free(c->name);
    c->name = NULL;
    c->flags &= ~(CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP_NEXT);
    reply_status(c, "RESET");
}
