/* cmd: the command table (the core's and the rows the subsystems
 * register), the dispatcher and the reply helpers (cmd.h).
 *
 * The dispatcher (cmd_dispatch) takes one request, c->argc/c->argv,
 * through these stages, in this order; dispatch() reads in the same order,
 * one line or one stage_ function per stage, and the dispatcher's
 * functions are labelled with the number of their stage. A stage that
 * refuses or parks the command ends the request there (a refusal still
 * gets 9, not 6 to 8), so when several refusals apply the first one in this
 * list is the reply (Redis's processCommand order). Past stage 5 only a
 * command that passed its checks goes on: nothing after it (a hook, a
 * consumer, a gate's key lookup) sees a refused command or its keys.
 *
 *  0. maxmemory-clients (client_mem.h): the biggest clients are evicted
 *     while the clients' memory is over it; an evicted client's request
 *     ends here, unanswered (it is closing).
 *  1. Lookup: the command, or a container's subcommand. Unknown: the error
 *     (not counted as a command), and a transaction in progress fails at
 *     EXEC.
 *  2. CLIENT PAUSE (pause.h): a command the pause holds is parked, to be
 *     dispatched again when the pause ends.
 *  3. MULTI: inside a transaction the command gets stage 5's checks and is
 *     queued for EXEC, or refused (the transaction then fails at EXEC).
 *  4. The subsystems' before_command hooks (hooks.h): one may park the
 *     command (the AOF's full backlog). Past this point the command is
 *     c->cmd and c->lastcmd; once past stage 5 it counts
 *     (total_commands_processed).
 *  5. The checks, the first that refuses answers: a. arity, b. protected
 *     (enable-debug-command), c. authentication, then inside MULTI a
 *     command flagged no_multi (SAVE, SHUTDOWN...), d. the user's ACL
 *     permissions (acl.h: the command, its keys, its channels; NOPERM,
 *     logged in ACL LOG), e. OOM (maxmemory: evicts first, then refuses
 *     deny-oom commands, an EXEC that queued one, anything MULTI would
 *     queue), f. the subsystems' gates, in one call: the write gates
 *     (MISCONF) for a write or an EXEC of writes, not from the master, then
 *     the client gates (READONLY, NOREPLICAS, MASTERDOWN, the subscribed
 *     context), g. loading. e and f read the flags cmd_flags_of gives (a
 *     script's own; EXEC: its queued commands'). A refused command is
 *     counted as rejected and goes on at stage 9.
 *  6. The call (cmd_call, also EXEC's and scripts' way to run a command),
 *     with server.current_client = c and the expiry time held (db_now; a
 *     nested call keeps the outer one's): a. a propagation batch opens, b. the
 *     handler runs, c. the keys a tracking client read are remembered,
 *     d. statistics, slow log,
 *     latency, MONITOR, e. propagation: the command itself when it is a
 *     write that changed something and its handler propagated no form of
 *     its own (cmd_propagate); the batch closes and goes to the consumers
 *     (propagate.h).
 *  7. The subsystems' after_command hooks, for a command that ran.
 *  8. Blocking: a command that blocked on keys is parked (blocking.c serves
 *     it); the keys this command created serve the clients blocked on them.
 *  9. client_command_done, for a command that ran or was refused, not for
 *     a parked one: CLIENT REPLY OFF/SKIP, tracking after the reply.
 *
 * Main thread only. */
#include "cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <limits.h>

#include "acl.h"
#include "blocking.h"
#include "client_mem.h"
#include "db.h"
#include "evict.h"
#include "hooks.h"
#include "introspect.h"
#include "multi.h"
#include "pause.h"
#include "propagate.h"
#include "tracking.h"
#include "script_lua.h"
#include "util.h"

static cmd_def **sorted;     /* top-level commands by name, for bsearch */
static cmd_def **tops;       /* top-level commands: the core's table, then
                                the registered rows in registration order */
static size_t ncmds;
static cmd_def **all;        /* every command and subcommand */
static size_t nall;
/* Rows the subsystems registered (cmd_register, cmd_register_sub), folded
 * into the table by cmd_init. */
typedef struct cmd_rows {
    const char *container;   /* NULL: top-level commands (rows) */
    cmd_def *rows;           /* top-level: kept */
    const cmd_def *subs;     /* a container's: copied */
    size_t n;
} cmd_rows;
static cmd_rows *regs;
static size_t nregs;
static int propagated;  /* the running handler called cmd_propagate */
static const cmd_def *running; /* the command cmd_call runs (innermost) */

const char *const cmd_cat_names[CAT_COUNT] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap",
    "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
    "dangerous", "connection", "transaction", "scripting"};

static int by_name(const void *a, const void *b) {
    return strcmp((*(cmd_def *const *)a)->name, (*(cmd_def *const *)b)->name);
}

/* Redis's populateCommandLegacyRangeSpec: the first/last/step COMMAND INFO
 * reports, from the INDEX+RANGE specs; any spec it cannot express (or an
 * incomplete one) makes the command's keys movable. */
static void derive_legacy_range(cmd_def *d) {
    d->legacy_first = d->legacy_last = d->legacy_step = 0;
    if (d->nkey_specs == 0) return;
    const cmd_key_spec *s = d->key_specs;
    if (d->nkey_specs == 1 && s->bs_type == KS_BS_INDEX && s->fk_type == KS_FK_RANGE) {
        d->legacy_first = s->bs_index;
        d->legacy_last = s->fk_lastkey < 0 ? s->fk_lastkey : s->bs_index + s->fk_lastkey;
        d->legacy_step = s->fk_keystep;
        if (s->flags & KS_INCOMPLETE) d->flags |= CMD_MOVABLE_KEYS;
        return;
    }
    int first = INT_MAX;
    unsigned last = 0, prev_last = 0;
    for (int i = 0; i < d->nkey_specs; i++) {
        s = &d->key_specs[i];
        if (s->bs_type != KS_BS_INDEX || s->fk_type != KS_FK_RANGE || s->fk_keystep != 1 ||
            (prev_last && prev_last != (unsigned)(s->bs_index - 1))) {
            d->flags |= CMD_MOVABLE_KEYS;
            continue;
        }
        if (s->flags & KS_INCOMPLETE) d->flags |= CMD_MOVABLE_KEYS;
        if (s->bs_index < first) first = s->bs_index;
        int abs_last = s->fk_lastkey >= 0 ? s->fk_lastkey + s->bs_index : s->fk_lastkey;
        if ((unsigned)abs_last > last) last = (unsigned)abs_last;
        prev_last = last;
    }
    if (first == INT_MAX) {
        d->flags |= CMD_MOVABLE_KEYS;
        return;
    }
    d->legacy_first = first;
    d->legacy_last = (int)last;
    d->legacy_step = 1;
}

static void add_all(cmd_def *d) {
    d->id = (unsigned)nall;
    all = xrealloc(all, (nall + 1) * sizeof *all);
    all[nall++] = d;
}

static void init_one(cmd_def *d, cmd_def *parent) {
    d->parent = parent;
    if (parent) {
        size_t n = strlen(parent->name) + 1 + strlen(d->name) + 1;
        d->fullname = xmalloc(n);
        snprintf(d->fullname, n, "%s|%s", parent->name, d->name);
    } else {
        d->fullname = xstrdup(d->name);
    }
    derive_legacy_range(d);
    add_all(d);
    for (cmd_def *s = d->subcmds; s && s->name; s++) init_one(s, d);
}

static void add_rows(cmd_rows r) {
    assert(!sorted); /* cmd.h: before cmd_init */
    regs = xrealloc(regs, (nregs + 1) * sizeof *regs);
    regs[nregs++] = r;
}

void cmd_register(cmd_def *rows, size_t n) { add_rows((cmd_rows){.rows = rows, .n = n}); }

void cmd_register_sub(const char *container, const cmd_def *rows, size_t n) {
    assert(container);
    add_rows((cmd_rows){.container = container, .subs = rows, .n = n});
}

/* The container's subcommands followed by r's rows, in one new array
 * (ending with name NULL) that becomes its subcmds. */
static void append_subcmds(const cmd_rows *r) {
    cmd_def *parent = NULL;
    for (size_t i = 0; i < ncmds && !parent; i++)
        if (!strcmp(tops[i]->name, r->container)) parent = tops[i];
    assert(parent && parent->subcmds); /* a container of the table */
    size_t have = 0;
    while (parent->subcmds[have].name) have++;
    cmd_def *subs = xcalloc(have + r->n + 1, sizeof *subs);
    memcpy(subs, parent->subcmds, have * sizeof *subs);
    memcpy(subs + have, r->subs, r->n * sizeof *subs);
    parent->subcmds = subs;
}

void cmd_init(void) {
    if (sorted) return;
    cmd_def *t = commands_table();
    size_t n = commands_count();
    for (size_t i = 0; i < nregs; i++)
        if (!regs[i].container) n += regs[i].n;
    tops = xmalloc(n * sizeof *tops);
    for (size_t i = 0; i < commands_count(); i++) tops[ncmds++] = &t[i];
    for (size_t i = 0; i < nregs; i++)
        for (size_t j = 0; !regs[i].container && j < regs[i].n; j++)
            tops[ncmds++] = &regs[i].rows[j];
    assert(ncmds == n);
    for (size_t i = 0; i < nregs; i++)
        if (regs[i].container) append_subcmds(&regs[i]);
    sorted = xmalloc(ncmds * sizeof *sorted);
    for (size_t i = 0; i < ncmds; i++) {
        sorted[i] = tops[i];
        init_one(tops[i], NULL);
    }
    qsort(sorted, ncmds, sizeof *sorted, by_name);
    for (size_t i = 1; i < ncmds; i++)
        assert(strcmp(sorted[i - 1]->name, sorted[i]->name) < 0); /* no duplicates */
}

/* Compares a table name (lower case) with len bytes of any case. */
static int name_cmp(const char *name, const char *p, size_t len) {
    for (size_t i = 0; i < len; i++) {
        int a = (unsigned char)name[i], b = tolower((unsigned char)p[i]);
        if (a == 0) return -1; /* name is shorter (p may hold a NUL byte) */
        if (a != b) return a - b;
    }
    return (unsigned char)name[len];
}

const cmd_def *cmd_lookup(const char *name, size_t len) {
    size_t lo = 0, hi = ncmds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = name_cmp(sorted[mid]->name, name, len);
        if (r == 0) return sorted[mid];
        if (r < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* Linear: containers have a handful of subcommands. */
const cmd_def *cmd_lookup_sub(const cmd_def *parent, const char *name, size_t len) {
    for (const cmd_def *s = parent->subcmds; s && s->name; s++)
        if (name_cmp(s->name, name, len) == 0) return s;
    return NULL;
}

const cmd_def *cmd_lookup_argv(int argc, const arg *argv, const cmd_def **container) {
    if (container) *container = NULL;
    const cmd_def *d = cmd_lookup(argv[0].p, argv[0].len);
    if (!d || !d->subcmds || argc < 2) return d;
    const cmd_def *s = cmd_lookup_sub(d, argv[1].p, argv[1].len);
    if (!s && container) *container = d;
    return s;
}

size_t cmd_count(void) { return ncmds; }
const cmd_def *cmd_at(size_t i) { return i < ncmds ? tops[i] : NULL; }
size_t cmd_count_all(void) { return nall; }
cmd_def *cmd_at_all(size_t i) { return i < nall ? all[i] : NULL; }

/* ---- keys from the key specs (Redis's getKeysUsingKeySpecs) ---- */

void cmd_keys_add(cmd_keyrefs *k, int pos, int flags) {
    if (!k->v) {
        k->v = k->small;
        k->cap = sizeof k->small / sizeof k->small[0];
    }
    if (k->n == k->cap) {
        size_t cap = k->cap * 2;
        cmd_key_ref *v = xmalloc(cap * sizeof *v);
        memcpy(v, k->v, k->n * sizeof *v);
        if (k->v != k->small) free(k->v);
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = (cmd_key_ref){pos, flags};
}

void cmd_keys_free(cmd_keyrefs *k) {
    if (k->v && k->v != k->small) free(k->v);
    k->v = NULL;
    k->n = k->cap = 0;
}

/* The argv index of the first key of spec s, or 0 when there is none. */
static int spec_first(const cmd_key_spec *s, int argc, const arg *argv) {
    if (s->bs_type == KS_BS_INDEX) return s->bs_index;
    if (s->bs_type != KS_BS_KEYWORD) return -1;
    int start = s->bs_startfrom > 0 ? s->bs_startfrom : argc + s->bs_startfrom;
    int end = s->bs_startfrom > 0 ? argc - 1 : 0;
    for (int i = start; i != end; i = start <= end ? i + 1 : i - 1) {
        if (i >= argc || i < 1) break;
        size_t n = strlen(s->bs_keyword);
        if (argv[i].len == n && strncasecmp(argv[i].p, s->bs_keyword, n) == 0) return i + 1;
    }
    return 0;
}

/* Adds the keys of one spec; 0 when it cannot be applied. */
static int spec_keys(const cmd_def *d, const cmd_key_spec *s, int argc, const arg *argv,
                     cmd_keyrefs *out) {
    int first = spec_first(s, argc, argv), last, step = s->fk_keystep;
    if (first < 0) return 0;
    if (first == 0) return 1; /* keyword absent: no keys from this spec */
    if (s->fk_type == KS_FK_RANGE) {
        if (s->fk_lastkey >= 0) last = first + s->fk_lastkey;
        else if (!s->fk_limit) last = argc + s->fk_lastkey;
        else last = first + ((argc - first) / s->fk_limit + s->fk_lastkey);
    } else if (s->fk_type == KS_FK_KEYNUM) {
        long long numkeys;
        int idx = first + s->fk_keynumidx;
        if (idx >= argc) return 0;
        if (!str_to_ll(argv[idx].p, argv[idx].len, &numkeys) || numkeys < 0) return 0;
        if (numkeys > argc) numkeys = argc; /* the rest would be past argc */
        first += s->fk_firstkey;
        last = first + (int)numkeys - 1;
    } else {
        return 0;
    }
    assert(step > 0);
    for (int i = first; i <= last; i += step) {
        /* Variadic commands have no arity check at dispatch for this:
         * they report their own error. */
        if (i >= argc || i < first) {
            assert(d->arity < 0);
            continue;
        }
        cmd_keys_add(out, i, s->flags);
    }
    return 1;
}

/* Redis's getKeysFromCommandWithSpecs: the specs when they can answer
 * (every spec known, flags fixed), else the command's getkeys. Specs of
 * arguments that are not keys (SPUBLISH's shard channel) are skipped, as
 * Redis's default search does. */
static int get_keys(const cmd_def *d, int argc, const arg *argv, int not_keys, cmd_keyrefs *out) {
    assert(cmd_arity_ok(d, argc)); /* a refused command has no keys */
    out->n = 0;
    /* As Redis 7.0's getKeysFromCommandWithSpecs: the specs unless one has
     * variable flags, or is incomplete and a getkeys knows better (MIGRATE
     * ... "" ... KEYS k1 k2: the specs would count the empty key too). */
    int unreliable = 0;
    for (int j = 0; j < d->nkey_specs; j++)
        unreliable |= d->key_specs[j].flags & (KS_VARIABLE_FLAGS | (d->getkeys ? KS_INCOMPLETE : 0));
    if (d->nkey_specs && !unreliable) {
        int j;
        for (j = 0; j < d->nkey_specs; j++) {
            if ((d->key_specs[j].flags & KS_NOT_KEY) && !not_keys) continue; /* a shard channel */
            if (!spec_keys(d, &d->key_specs[j], argc, argv, out)) break;
        }
        if (j == d->nkey_specs) return 1;
        out->n = 0;
    }
    return d->getkeys ? d->getkeys(d, argc, argv, out) : 0;
}

int cmd_get_keys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    return get_keys(d, argc, argv, 0, out);
}

int cmd_get_keys_and_shard_channels(const cmd_def *d, int argc, const arg *argv,
                                    cmd_keyrefs *out) {
    return get_keys(d, argc, argv, 1, out);
}

int cmd_flags_of(const cmd_def *d, int argc, const arg *argv) {
    if (!(d->acl & CAT_SCRIPTING)) return d->flags;
    if (d->proc == cmd_eval || d->proc == cmd_eval_ro || d->proc == cmd_evalsha ||
        d->proc == cmd_evalsha_ro)
        return eval_cmd_flags(d, argc, argv);
    if (d->proc == cmd_fcall || d->proc == cmd_fcall_ro) return fcall_cmd_flags(d, argc, argv);
    return d->flags;
}

/* As Redis's doesCommandHaveKeys: a getkeys, or a spec of real keys (not
 * only NOT_KEY ones: SPUBLISH, SSUBSCRIBE, SUNSUBSCRIBE have none). */
int cmd_has_keys(const cmd_def *d) {
    if (d->getkeys) return 1;
    for (int j = 0; j < d->nkey_specs; j++)
        if (!(d->key_specs[j].flags & KS_NOT_KEY)) return 1;
    return 0;
}

const char *cmd_gates_error(const client *c, const cmd_def *d) {
    return hooks_gates_error(c, d, (d->flags & CMD_WRITE) != 0);
}

/* The definition of a command to propagate (propagate.h: the consumers
 * get it): the running command's when argv is its own, else looked up once
 * here for every consumer (a handler's replacement form, the server's own
 * DEL). Only asked when a consumer is registered. */
static const cmd_def *def_of(const client *c, int argc, const arg *argv) {
    if (c && running && argv == c->argv && argc == c->argc) return running;
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    assert(d); /* the server propagates only commands it has */
    return d;
}

void cmd_propagate(client *c, int argc, const arg *argv) {
    propagated = 1;
    if (prop_active()) propagate(c->db, def_of(c, argc, argv), argc, argv);
}

void cmd_propagate_none(client *c) {
    (void)c;
    propagated = 1;
}

void cmd_propagate_raw(int dbid, int argc, const arg *argv) {
    if (prop_active()) propagate(dbid, def_of(NULL, argc, argv), argc, argv);
}

void cmd_propagate_message(client *c, int argc, const arg *argv) {
    propagated = 1;
    if (prop_active()) propagate_message(c->db, def_of(c, argc, argv), argc, argv);
}

/* ---- the dispatcher: the stages listed at the top of this file, in order ---- */

/* 1. "ERR unknown command 'x', with args beginning with: 'a' 'b' " */
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

int cmd_arity_ok(const cmd_def *d, int argc) {
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

/* enable-debug-command (DEBUG) or enable-module-command (MODULE LOAD,
 * LOADEX, UNLOAD): yes, or local and the client is local. */
static int protected_allowed(const client *c, const cmd_def *d) {
    int v = d->proc == cmd_module ? server.cfg.compat.enable_module_command
                                  : server.cfg.enable_debug_command;
    return v == DEBUG_CMD_YES || (v == DEBUG_CMD_LOCAL && client_is_local(c));
}

/* CMD_DENYOOM when d is refused under OOM beyond its own flags: an EXEC of
 * a transaction that queued a deny-oom command, or a command MULTI queues
 * (queuing takes memory; not DISCARD, QUIT, RESET). */
static int oom_extra_flags(const client *c, const cmd_def *d) {
    if (!(c->flags & CLIENT_MULTI)) return 0;
    if (d->proc == cmd_exec) return multi_exec_flags(c, d) & CMD_DENYOOM;
    return d->proc == cmd_discard || d->proc == cmd_quit || d->proc == cmd_reset ? 0 : CMD_DENYOOM;
}

/* 5. The checks that refuse a command before it runs (stage 3 runs them
 * too, on a command MULTI queues); 1 when it may run, else 0 with the
 * error replied. The first that refuses answers, in the list's order (5a
 * to 5g), as Redis's processCommand; the gates (5f: hooks.h's write_gate,
 * then client_gate) answer in the order hooks.h gives. */
static int may_run(client *c, const cmd_def *d) {
    if (!cmd_arity_ok(d, c->argc)) {
        reply_errorf(c, "ERR wrong number of arguments for '%s' command", d->fullname);
        return 0;
    }
    if ((d->flags & CMD_PROTECTED) && !protected_allowed(c, d)) {
        int module = d->proc == cmd_module;
        reply_errorf(c, "ERR %s command not allowed. If the %s option is set to \"local\", "
                        "you can run it from a local connection, otherwise you need to set "
                        "this option in the configuration file, and then restart the server.",
                     module ? "MODULE" : "DEBUG",
                     module ? "enable-module-command" : "enable-debug-command");
        return 0;
    }
    if (acl_auth_required(c) && !(d->flags & CMD_NOAUTH)) {
        reply_error(c, "NOAUTH Authentication required.");
        return 0;
    }
    if ((d->flags & CMD_NO_MULTI) && (c->flags & CLIENT_MULTI)) {
        reply_error(c, "ERR Command not allowed inside a transaction");
        return 0;
    }
    /* the user's permissions (acl.h): command, keys, channels */
    if (c->user && !acl_check_client(c, d, (c->flags & CLIENT_MULTI) ? ACL_CTX_MULTI
                                                                   : ACL_CTX_TOPLEVEL))
        return 0;
    /* the flags a script's own flags give (cmd_flags_of), for what follows */
    int flags = cmd_flags_of(d, c->argc, c->argv);
    cmd_def as_flagged;
    const cmd_def *gd = d;
    if (flags != d->flags) {
        as_flagged = *d;
        as_flagged.flags = flags;
        gd = &as_flagged;
    }
    /* maxmemory (evict.h): evicts first; refuses deny-oom commands when
     * nothing more can be evicted: an EXEC when it queued one, and every
     * command MULTI would queue (as Redis's processCommand). One branch
     * when maxmemory is 0. */
    int master = (c->flags & CLIENT_MASTER) != 0; /* obeyed as Redis obeys its master */
    if (server.cfg.maxmemory && !master && evict_refuse(flags | oom_extra_flags(c, d))) {
        reply_error(c, "OOM command not allowed when used memory > 'maxmemory'.");
        return 0;
    }
    const char *why =
        hooks_gates_error(c, gd, !master && ((flags & CMD_WRITE) || multi_exec_writes(c, d)));
    if (why) {
        reply_error(c, why);
        return 0;
    }
    /* DEBUG is flagged loading as in Redis, but its subcommands touch the
     * tables a load is building (POPULATE, RELOAD...): refused meanwhile */
    if (server.loading && (!(d->flags & CMD_LOADING) || d->proc == cmd_debug) &&
        !(c->flags & CLIENT_LOADER)) {
        reply_error(c, "LOADING Redis is loading the dataset in memory");
        return 0;
    }
    return 1;
}

/* 1. "ERR unknown subcommand 'x'. Try CONFIG HELP." (the container's name
 * in upper case, as Redis). */
static void reply_unknown_sub(client *c, const cmd_def *container) {
    char up[32];
    size_t n = strlen(container->name);
    assert(n < sizeof up);
    for (size_t i = 0; i <= n; i++) up[i] = (char)toupper((unsigned char)container->name[i]);
    reply_errorf(c, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                 (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p, up);
}

/* 1. Lookup: the command (a container's subcommand), or NULL after the
 * error was replied; a transaction in progress then fails at EXEC. */
static const cmd_def *stage_lookup(client *c) {
    const cmd_def *container;
    const cmd_def *d = cmd_lookup_argv(c->argc, c->argv, &container);
    if (d) return d;
    if (container) reply_unknown_sub(c, container);
    else reply_unknown(c);
    multi_rejected(c, NULL, 0);
    return NULL;
}

/* 3. Inside MULTI: checked now (stage 5's checks), then queued for EXEC,
 * or refused (counted as rejected, and the transaction fails at EXEC). Not
 * counted as a command here: EXEC counts each one it runs. */
static int stage_queue(client *c, const cmd_def *d) {
    c->cmd = d;
    c->lastcmd = d; /* CLIENT LIST's (and ACL LOG's) cmd=, as Redis */
    if (may_run(c, d)) {
        multi_queue(c, d);
    } else {
        introspect_call_rejected((cmd_def *)d);
        multi_rejected(c, d, 0);
    }
    c->cmd = NULL;
    return CMD_RAN;
}

/* 5. The checks, for a command about to run: 1 when it may; else it is
 * counted as rejected (an EXEC refused discards its transaction with
 * EXECABORT) and 0. c->cmd stays set. */
static int stage_checks(client *c, const cmd_def *d) {
    size_t reply_at = c->reply.len;
    if (may_run(c, d)) return 1;
    introspect_call_rejected((cmd_def *)d);
    multi_rejected(c, d, reply_at);
    return 0;
}

/* 6e. Propagation: the command itself when it is a write that changed
 * something (server.dirty grew) and its handler propagated no form of its
 * own; closes the batch cmd_call opened. SAVE lowers server.dirty and
 * DEBUG POPULATE raises it, neither may be replayed (the AOF loader
 * refuses them), as in Redis. */
static void stage_propagate(const client *c, const cmd_def *d, long long dirty_before) {
    if ((d->flags & CMD_WRITE) && server.dirty > dirty_before && !propagated)
        prop_end_cmd(c->db, d, c->argc, c->argv);
    else
        prop_end_cmd(c->db, NULL, 0, NULL);
}

/* 6. The call: stages 6a to 6e. EXEC calls it for each queued command and
 * scripts for each redis.call(), so the state of the caller's own call
 * (propagated, running) is kept around it. */
void cmd_call(client *c, const cmd_def *d) {
    long long dirty = server.dirty;
    uint64_t errors = server.stat.errors;
    int rerun = c->bstate != NULL; /* a blocked command served (blocking.c) */
    introspect_call_start(c, d, rerun);
    int64_t start = mono_us();
    int64_t time_prev = db_time_hold(); /* fixed for this command (EXEC: all of it) */
    int outer_propagated = propagated; /* EXEC's, around its commands */
    const cmd_def *outer_running = running;
    propagated = 0;
    running = d;
    prop_begin(d);               /* 6a */
    d->proc(c);                  /* 6b */
    tracking_after_call(c, d);   /* 6c: the keys a tracking client read */
    /* 6d: statistics, slow log, latency, MONITOR (introspect.h) */
    introspect_call_done(c, (cmd_def *)d, mono_us() - start, errors, rerun);
    stage_propagate(c, d, dirty); /* 6e */
    db_time_release(time_prev);
    propagated = outer_propagated;
    running = outer_running;
}

/* 8. Blocking: CMD_PARKED when the command blocked on keys. The keys this
 * command (or EXEC) created serve the clients blocked on them; not while a
 * busy script runs (SCRIPT KILL from the script's hook): its keys are
 * served after it. */
static int stage_blocking(const client *c) {
    int rc = (c->flags & CLIENT_BLOCKED) ? CMD_PARKED : CMD_RAN;
    if (!scriptl_running()) block_handle_ready();
    return rc;
}

/* Stages 1 to 8. */
static int dispatch(client *c) {
    const cmd_def *d = stage_lookup(c);                /* 1 */
    if (!d) return CMD_RAN;
    if (pause_postpones(c, d)) return CMD_PARKED;       /* 2: runs when the pause ends */
    if (multi_queues(c, d)) return stage_queue(c, d);   /* 3 */
    if (hooks_before_command(c, d)) return CMD_PARKED;  /* 4 */
    c->cmd = d;
    c->lastcmd = d;
    if (!stage_checks(c, d)) return CMD_RAN;            /* 5: refused, on to 9 */
    server.stat.commands++; /* a refused command is none, as in Redis */
    server.current_client = c;
    cmd_call(c, d);                                     /* 6 */
    server.current_client = NULL;
    hooks_after_command(c, d);                          /* 7 */
    c->cmd = NULL;
    return stage_blocking(c);                           /* 8 */
}

int cmd_dispatch(client *c) {
    /* 0. maxmemory-clients: the biggest clients go first, and a client that
     * goes itself runs nothing more (as Redis's processCommand) */
    client_mem_evict();
    if (c->flags & CLIENT_CLOSE_ASAP) return CMD_RAN;
    size_t reply_at = c->reply.len;
    int rc = dispatch(c);
    if (rc == CMD_RAN) client_command_done(c, reply_at); /* 9: CLIENT REPLY, tracking */
    return rc;
}

/* ---- replies ---- */

/* "ERR wrong number of arguments for 'config|get' command" */
void reply_sub_arity(client *c, const char *cmd) {
    char sub[32];
    size_t n = c->argv[1].len < sizeof sub - 1 ? c->argv[1].len : sizeof sub - 1;
    for (size_t i = 0; i < n; i++) sub[i] = (char)tolower((unsigned char)c->argv[1].p[i]);
    sub[n] = '\0';
    reply_errorf(c, "ERR wrong number of arguments for '%s|%s' command", cmd, sub);
}

void reply_unknown_subcommand(client *c, const char *cmd) {
    reply_errorf(c, "ERR unknown subcommand '%.*s'. Try %s HELP.",
                 (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p, cmd);
}

void reply_ok(client *c) { resp_add_status(&c->reply, "OK"); }
void reply_status(client *c, const char *s) { resp_add_status(&c->reply, s); }

void reply_error(client *c, const char *s) {
    server.stat.errors++;
    introspect_error_reply(c, s); /* errorstats */
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
void reply_nil(client *c) { reply_null(c); }
void reply_array(client *c, long long n) { resp_add_array(&c->reply, n); }
void reply_map(client *c, long long n) {
    if (c->resp >= 3) resp_add_map(&c->reply, n);
    else resp_add_array(&c->reply, n * 2);
}
void reply_set(client *c, long long n) {
    if (c->resp >= 3) resp_add_set(&c->reply, n);
    else resp_add_array(&c->reply, n);
}
void reply_push(client *c, long long n) {
    if (c->resp >= 3) resp_add_push(&c->reply, n);
    else resp_add_array(&c->reply, n);
}
void reply_null(client *c) {
    if (c->resp >= 3) resp_add_null(&c->reply);
    else resp_add_nil(&c->reply);
}
void reply_nil_array(client *c) {
    if (c->resp >= 3) resp_add_null(&c->reply);
    else resp_add_nil_array(&c->reply);
}
void reply_bool(client *c, int v) {
    if (c->resp >= 3) resp_add_bool(&c->reply, v);
    else resp_add_int(&c->reply, v ? 1 : 0);
}
void reply_double(client *c, double d) {
    if (c->resp >= 3) {
        resp_add_double(&c->reply, d);
    } else if (isinf(d)) {
        resp_add_bulk_str(&c->reply, d > 0 ? "inf" : "-inf");
    } else {
        char tmp[64];
        int n = snprintf(tmp, sizeof tmp, "%.17g", d);
        resp_add_bulk(&c->reply, tmp, (size_t)n);
    }
}
void reply_bignum(client *c, const char *p, size_t len) {
    if (c->resp >= 3) resp_add_bignum(&c->reply, p, len);
    else resp_add_bulk(&c->reply, p, len);
}
void reply_verbatim(client *c, const char *p, size_t len, const char *ext) {
    if (c->resp >= 3) resp_add_verbatim(&c->reply, p, len, ext);
    else resp_add_bulk(&c->reply, p, len);
}
void reply_pairs(client *c, long long n) { resp_add_array(&c->reply, c->resp >= 3 ? n : 2 * n); }
void reply_pair(client *c) {
    if (c->resp >= 3) resp_add_array(&c->reply, 2);
}
void reply_syntax_error(client *c) { reply_error(c, "ERR syntax error"); }
void reply_not_int(client *c) { reply_error(c, "ERR value is not an integer or out of range"); }

void reply_bulk_obj(client *c, const obj *o) {
    char buf[OBJ_INTBUF];
    size_t len;
    const char *s = obj_str(o, buf, &len);
    resp_add_bulk(&c->reply, s, len);
}

/* The running command's name, for error texts. */
static const char *running_name(const client *c) { return c->cmd ? c->cmd->fullname : "unknown"; }

void reply_wrong_args(client *c) {
    reply_errorf(c, "ERR wrong number of arguments for '%s' command", running_name(c));
}

void reply_invalid_expire(client *c) {
    reply_errorf(c, "ERR invalid expire time in '%s' command", running_name(c));
}

arg *args_dup(int argc, const arg *argv) {
    assert(argc >= 0);
    size_t bytes = (size_t)argc * sizeof(arg);
    for (int i = 0; i < argc; i++) bytes += argv[i].len;
    arg *copy = xmalloc(bytes ? bytes : 1);
    char *p = (char *)(copy + argc);
    for (int i = 0; i < argc; i++) {
        if (argv[i].len) memcpy(p, argv[i].p, argv[i].len);
        copy[i] = (arg){p, argv[i].len};
        p += argv[i].len;
    }
    return copy;
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

int arg_mpop(client *c, int ni, const char *first, const char *second, int *nkeys, int *which,
             long long *count) {
    long long nk;
    if (!str_to_ll(c->argv[ni].p, c->argv[ni].len, &nk) || nk < 1) {
        reply_error(c, "ERR numkeys should be greater than 0");
        return 0;
    }
    if (nk >= c->argc - ni - 1) { /* no room for the word after the keys */
        reply_syntax_error(c);
        return 0;
    }
    int wi = ni + (int)nk + 1;
    if (arg_is(&c->argv[wi], first)) *which = 0;
    else if (arg_is(&c->argv[wi], second)) *which = 1;
    else {
        reply_syntax_error(c);
        return 0;
    }
    *count = -1;
    for (int j = wi + 1; j < c->argc; j++) {
        if (*count == -1 && arg_is(&c->argv[j], "count") && j + 1 < c->argc) {
            j++;
            if (!str_to_ll(c->argv[j].p, c->argv[j].len, count) || *count < 1) {
                reply_error(c, "ERR count should be greater than 0");
                return 0;
            }
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    if (*count == -1) *count = 1;
    *nkeys = (int)nk;
    return 1;
}

int arg_scan_cursor(client *c, const arg *a, uint64_t *out) {
    char *s = xstrndup(a->p, a->len), *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int ok = !isspace((unsigned char)s[0]) && *end == '\0' && errno != ERANGE;
    free(s);
    if (!ok) {
        reply_error(c, "ERR invalid cursor");
        return 0;
    }
    *out = v;
    return 1;
}
