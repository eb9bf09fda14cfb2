/* cmd_client: the CLIENT command and its subcommands (ID GETNAME SETNAME
 * LIST INFO KILL SETINFO), with replies and error texts as Redis 7.0. Main
 * thread only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "multi.h"
#include "net.h"
#include "pubsub.h"
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
    reply_verbatim(c, b.data ? b.data : "", b.len, "txt");
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
        if (client_set_name(c, &c->argv[2])) reply_ok(c);
    } else if (arg_is(sub, "list")) {
        client_list(c);
    } else if (arg_is(sub, "info") && c->argc == 2) {
        vbuf b = {0};
        client_line(&b, c);
        reply_verbatim(c, b.data, b.len, "txt");
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


/* RESET: scaffolding, the clients helper fills it in. */
void cmd_reset(client *c) { reply_error(c, "ERR not implemented yet"); }
