/* cmd_command: COMMAND and its subcommands (COUNT, LIST [FILTERBY], INFO,
 * DOCS, GETKEYS, GETKEYSANDFLAGS, HELP), every reply derived from the
 * declarative table (commands.c) and shaped as Redis 7.0's (RESP2: sets and
 * maps as arrays). Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "util.h"

/* Redis's addReplyCommandFlags order; CMD_PROTECTED, CMD_MAY_REPLICATE are
 * hidden as in Redis. */
static const struct { int flag; const char *name; } flag_names[] = {
    {CMD_WRITE, "write"}, {CMD_READONLY, "readonly"}, {CMD_DENYOOM, "denyoom"},
    {CMD_ADMIN, "admin"}, {CMD_PUBSUB, "pubsub"}, {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"}, {CMD_LOADING, "loading"}, {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"}, {CMD_SKIP_SLOWLOG, "skip_slowlog"},
    {CMD_ASKING, "asking"}, {CMD_FAST, "fast"}, {CMD_NOAUTH, "no_auth"},
    {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"}, {CMD_NO_ASYNC_LOADING, "no_async_loading"},
    {CMD_NO_MULTI, "no_multi"}, {CMD_MOVABLE_KEYS, "movablekeys"},
    {CMD_ALLOW_BUSY, "allow_busy"}};

static const char *const ks_flag_names[] = {"RO", "RW", "OW", "RM", "access", "update",
                                            "insert", "delete", "not_key", "incomplete",
                                            "variable_flags"};

static const char *const arg_type_names[] = {"string", "integer", "double", "key", "pattern",
                                             "unix-time", "pure-token", "oneof", "block"};

static int popcount(unsigned v) { return __builtin_popcount(v); }

static void reply_flags(client *c, int flags) {
    int n = 0;
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (flags & flag_names[i].flag) n++;
    reply_set(c, n);
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (flags & flag_names[i].flag) reply_status(c, flag_names[i].name);
}

static void reply_bits(client *c, unsigned bits, const char *const *names, size_t n,
                       const char *prefix) {
    reply_set(c, popcount(bits));
    char buf[64];
    for (size_t i = 0; i < n; i++) {
        if (!(bits & (1u << i))) continue;
        snprintf(buf, sizeof buf, "%s%s", prefix, names[i]);
        reply_status(c, buf);
    }
}

static void reply_key_flags(client *c, int flags) {
    reply_bits(c, (unsigned)flags, ks_flag_names, sizeof ks_flag_names / sizeof ks_flag_names[0], "");
}

static size_t strv_len(const char *const *v) {
    size_t n = 0;
    while (v && v[n]) n++;
    return n;
}

static void reply_kv_int(client *c, const char *k, long long v) {
    reply_bulk_str(c, k);
    reply_int(c, v);
}

static void reply_key_spec(client *c, const cmd_key_spec *s) {
    reply_map(c, s->notes ? 4 : 3);
    if (s->notes) {
        reply_bulk_str(c, "notes");
        reply_bulk_str(c, s->notes);
    }
    reply_bulk_str(c, "flags");
    reply_key_flags(c, s->flags);
    reply_bulk_str(c, "begin_search");
    reply_map(c, 2);
    reply_bulk_str(c, "type");
    if (s->bs_type == KS_BS_INDEX) {
        reply_bulk_str(c, "index");
        reply_bulk_str(c, "spec");
        reply_map(c, 1);
        reply_kv_int(c, "index", s->bs_index);
    } else if (s->bs_type == KS_BS_KEYWORD) {
        reply_bulk_str(c, "keyword");
        reply_bulk_str(c, "spec");
        reply_map(c, 2);
        reply_bulk_str(c, "keyword");
        reply_bulk_str(c, s->bs_keyword);
        reply_kv_int(c, "startfrom", s->bs_startfrom);
    } else {
        reply_bulk_str(c, "unknown");
        reply_bulk_str(c, "spec");
        reply_map(c, 0);
    }
    reply_bulk_str(c, "find_keys");
    reply_map(c, 2);
    reply_bulk_str(c, "type");
    if (s->fk_type == KS_FK_RANGE) {
        reply_bulk_str(c, "range");
        reply_bulk_str(c, "spec");
        reply_map(c, 3);
        reply_kv_int(c, "lastkey", s->fk_lastkey);
        reply_kv_int(c, "keystep", s->fk_keystep);
        reply_kv_int(c, "limit", s->fk_limit);
    } else if (s->fk_type == KS_FK_KEYNUM) {
        reply_bulk_str(c, "keynum");
        reply_bulk_str(c, "spec");
        reply_map(c, 3);
        reply_kv_int(c, "keynumidx", s->fk_keynumidx);
        reply_kv_int(c, "firstkey", s->fk_firstkey);
        reply_kv_int(c, "keystep", s->fk_keystep);
    } else {
        reply_bulk_str(c, "unknown");
        reply_bulk_str(c, "spec");
        reply_map(c, 0);
    }
}

static size_t nsubcmds(const cmd_def *d) {
    size_t n = 0;
    for (const cmd_def *s = d->subcmds; s && s->name; s++) n++;
    return n;
}

/* COMMAND INFO's 10 fields. */
static void reply_command_info(client *c, const cmd_def *d) {
    if (!d) {
        reply_nil(c);
        return;
    }
    reply_array(c, 10);
    reply_bulk_str(c, d->fullname);
    reply_int(c, d->arity);
    reply_flags(c, d->flags);
    reply_int(c, d->legacy_first);
    reply_int(c, d->legacy_last);
    reply_int(c, d->legacy_step);
    reply_bits(c, (unsigned)d->acl, cmd_cat_names, CAT_COUNT, "@");
    size_t ntips = strv_len(d->tips);
    reply_set(c, (long long)ntips);
    for (size_t i = 0; i < ntips; i++) reply_bulk_str(c, d->tips[i]);
    reply_set(c, d->nkey_specs);
    for (int i = 0; i < d->nkey_specs; i++) reply_key_spec(c, &d->key_specs[i]);
    /* Redis 7.0: none is an empty set, else an array */
    (d->subcmds ? reply_array : reply_set)(c, (long long)nsubcmds(d));
    for (const cmd_def *s = d->subcmds; s && s->name; s++) reply_command_info(c, s);
}

static void reply_kv_str(client *c, const char *k, const char *v) {
    reply_bulk_str(c, k);
    reply_bulk_str(c, v);
}

static void reply_args(client *c, const cmd_arg *args) {
    size_t n = 0;
    while (args[n].name) n++;
    reply_array(c, (long long)n);
    for (const cmd_arg *a = args; a->name; a++) {
        int subs = a->type == ARG_ONEOF || a->type == ARG_BLOCK;
        long long fields = 2 + (a->key_spec_index != -1) + !!a->token + !!a->since +
                           !!a->deprecated_since + !!a->flags + subs;
        reply_map(c, fields);
        reply_kv_str(c, "name", a->name);
        reply_kv_str(c, "type", arg_type_names[a->type]);
        if (a->key_spec_index != -1) reply_kv_int(c, "key_spec_index", a->key_spec_index);
        if (a->token) reply_kv_str(c, "token", a->token);
        if (a->since) reply_kv_str(c, "since", a->since);
        if (a->flags) {
            static const char *const names[] = {"optional", "multiple", "multiple_token"};
            reply_bulk_str(c, "flags");
            reply_bits(c, (unsigned)a->flags, names, 3, "");
        }
        if (a->deprecated_since) reply_kv_str(c, "deprecated_since", a->deprecated_since);
        if (subs) {
            reply_bulk_str(c, "arguments");
            reply_args(c, a->subargs);
        }
    }
}

/* COMMAND DOCS's map for one command (Redis's addReplyCommandDocs order). */
static void reply_command_docs(client *c, const cmd_def *d) {
    long long fields = 1 + !!d->summary + !!d->since + !!d->complexity + !!d->doc_flags +
                       !!d->deprecated_since + !!d->replaced_by + !!d->history + !!d->args +
                       !!d->subcmds;
    reply_map(c, fields);
    if (d->summary) reply_kv_str(c, "summary", d->summary);
    if (d->since) reply_kv_str(c, "since", d->since);
    reply_kv_str(c, "group", d->group);
    if (d->complexity) reply_kv_str(c, "complexity", d->complexity);
    if (d->doc_flags) {
        static const char *const names[] = {"deprecated", "syscmd"};
        reply_bulk_str(c, "doc_flags");
        reply_bits(c, (unsigned)d->doc_flags, names, 2, "");
    }
    if (d->deprecated_since) reply_kv_str(c, "deprecated_since", d->deprecated_since);
    if (d->replaced_by) reply_kv_str(c, "replaced_by", d->replaced_by);
    if (d->history) {
        size_t n = strv_len(d->history) / 2;
        reply_bulk_str(c, "history");
        reply_set(c, (long long)n);
        for (size_t i = 0; i < n; i++) {
            reply_array(c, 2);
            reply_bulk_str(c, d->history[2 * i]);
            reply_bulk_str(c, d->history[2 * i + 1]);
        }
    }
    if (d->args) {
        reply_bulk_str(c, "arguments");
        reply_args(c, d->args);
    }
    if (d->subcmds) {
        reply_bulk_str(c, "subcommands");
        reply_map(c, (long long)nsubcmds(d));
        for (const cmd_def *s = d->subcmds; s && s->name; s++) {
            reply_bulk_str(c, s->fullname);
            reply_command_docs(c, s);
        }
    }
}

/* A command by its full name, "get" or "config|get" (Redis's
 * lookupCommandBySds). */
static const cmd_def *lookup_fullname(const arg *a) {
    const char *bar = memchr(a->p, '|', a->len);
    if (!bar) return cmd_lookup(a->p, a->len);
    const cmd_def *d = cmd_lookup(a->p, (size_t)(bar - a->p));
    if (!d || !d->subcmds) return NULL;
    size_t rest = a->len - (size_t)(bar - a->p) - 1;
    if (memchr(bar + 1, '|', rest)) return NULL;
    return cmd_lookup_sub(d, bar + 1, rest);
}

static void command_docs(client *c) {
    if (c->argc == 2) {
        reply_map(c, (long long)cmd_count());
        for (size_t i = 0; i < cmd_count(); i++) {
            reply_bulk_str(c, cmd_at(i)->fullname);
            reply_command_docs(c, cmd_at(i));
        }
        return;
    }
    const cmd_def **found = xmalloc((size_t)c->argc * sizeof *found);
    long long n = 0;
    for (int i = 2; i < c->argc; i++) {
        const cmd_def *d = lookup_fullname(&c->argv[i]);
        if (d) found[n++] = d;
    }
    reply_map(c, n);
    for (long long i = 0; i < n; i++) {
        reply_bulk_str(c, found[i]->fullname);
        reply_command_docs(c, found[i]);
    }
    free(found);
}

/* COMMAND LIST FILTERBY MODULE|ACLCAT|PATTERN: 1 when d passes. */
static int list_match(const cmd_def *d, int type, const arg *a) {
    if (type == 'm') return 0; /* no modules */
    if (type == 'a') {
        for (int i = 0; i < CAT_COUNT; i++)
            if (arg_is(a, cmd_cat_names[i])) return (d->acl & (1 << i)) != 0;
        return 0;
    }
    return glob_match(a->p, a->len, d->fullname, strlen(d->fullname), 1);
}

static void command_list(client *c) {
    int type = 0;
    const arg *filter = NULL;
    for (int i = 2; i < c->argc; i++) {
        if (arg_is(&c->argv[i], "filterby") && c->argc - 1 - i == 2) {
            const arg *t = &c->argv[i + 1];
            if (arg_is(t, "module")) type = 'm';
            else if (arg_is(t, "aclcat")) type = 'a';
            else if (arg_is(t, "pattern")) type = 'p';
            else { reply_syntax_error(c); return; }
            filter = &c->argv[i + 2];
            i += 2;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    long long n = 0;
    for (size_t i = 0; i < cmd_count_all(); i++)
        if (!filter || list_match(cmd_at_all(i), type, filter)) n++;
    reply_array(c, n);
    for (size_t i = 0; i < cmd_count_all(); i++) {
        const cmd_def *d = cmd_at_all(i);
        if (!filter || list_match(d, type, filter)) reply_bulk_str(c, d->fullname);
    }
}

/* COMMAND GETKEYS / GETKEYSANDFLAGS <full command>. */
static void command_getkeys(client *c, int with_flags) {
    int argc = c->argc - 2;
    const arg *argv = c->argv + 2;
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    if (!d) {
        reply_error(c, "ERR Invalid command specified");
        return;
    }
    if (!cmd_has_keys(d)) {
        reply_error(c, "ERR The command has no key arguments");
        return;
    }
    if (!cmd_arity_ok(d, argc)) {
        reply_error(c, "ERR Invalid number of arguments specified for command");
        return;
    }
    cmd_keyrefs k = {0};
    cmd_get_keys(d, argc, argv, &k);
    if (k.n == 0) {
        if (d->flags & CMD_NO_MANDATORY_KEYS) reply_array(c, 0);
        else reply_error(c, "ERR Invalid arguments specified for command");
        cmd_keys_free(&k);
        return;
    }
    reply_array(c, (long long)k.n);
    for (size_t i = 0; i < k.n; i++) {
        const arg *key = &argv[k.v[i].pos];
        if (with_flags) reply_array(c, 2);
        reply_bulk(c, key->p, key->len);
        if (with_flags) reply_key_flags(c, k.v[i].flags);
    }
    cmd_keys_free(&k);
}

static const char *const command_help[] = {
    "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "(no subcommand)",
    "    Return details about all Redis commands.",
    "COUNT",
    "    Return the total number of commands in this Redis server.",
    "LIST",
    "    Return a list of all commands in this Redis server.",
    "INFO [<command-name> ...]",
    "    Return details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "DOCS [<command-name> ...]",
    "    Return documentation details about multiple Redis commands.",
    "    If no command names are given, documentation details for all",
    "    commands are returned.",
    "GETKEYS <full-command>",
    "    Return the keys from a full Redis command.",
    "GETKEYSANDFLAGS <full-command>",
    "    Return the keys and the access flags from a full Redis command.",
    "HELP",
    "    Prints this help.",
    NULL};

void cmd_reply_help(client *c, const char *const *lines) {
    size_t n = strv_len(lines);
    reply_array(c, (long long)n);
    for (size_t i = 0; i < n; i++) reply_status(c, lines[i]);
}

/* The dispatcher has resolved the subcommand (c->cmd) and checked its arity. */
void cmd_command(client *c) {
    const char *sub = c->cmd->parent ? c->cmd->name : NULL;
    if (!sub || !strcmp(sub, "info")) {
        if (c->argc <= 2) {
            reply_array(c, (long long)cmd_count());
            for (size_t i = 0; i < cmd_count(); i++) reply_command_info(c, cmd_at(i));
            return;
        }
        reply_array(c, c->argc - 2);
        for (int i = 2; i < c->argc; i++) reply_command_info(c, lookup_fullname(&c->argv[i]));
    } else if (!strcmp(sub, "count")) {
        reply_int(c, (long long)cmd_count());
    } else if (!strcmp(sub, "docs")) {
        command_docs(c);
    } else if (!strcmp(sub, "list")) {
        command_list(c);
    } else if (!strcmp(sub, "getkeys")) {
        command_getkeys(c, 0);
    } else if (!strcmp(sub, "getkeysandflags")) {
        command_getkeys(c, 1);
    } else {
        assert(!strcmp(sub, "help"));
        cmd_reply_help(c, command_help);
    }
}
