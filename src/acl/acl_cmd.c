/* acl_cmd: the ACL command (SETUSER GETUSER DELUSER USERS LIST WHOAMI
 * CAT GENPASS DRYRUN LOG LOAD SAVE HELP), its rows registered with the
 * core (cmd_register, before cmd_init) and the replies, errors included,
 * of Redis 7.0.15. Main thread only. */
#include "acl_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "util.h"

static void cmd_acl(client *c);
static cmd_proc acl_whoami, acl_users, acl_list, acl_deluser, acl_save, acl_log, acl_getuser,
    acl_load, acl_genpass, acl_setuser, acl_dryrun, acl_help, acl_cat;

/* "ERR unknown subcommand or wrong number of arguments for 'x'. Try ACL
 * HELP.", Redis's addReplySubcommandSyntaxError. */
static void reply_sub_syntax(client *c) {
    reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try ACL HELP.",
                 (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p);
}

/* The container alone: the dispatcher answers arity and unknown
 * subcommands before it. */
static void cmd_acl(client *c) { reply_sub_syntax(c); }

static void acl_setuser(client *c) {
    const arg *name = &c->argv[2];
    if (!acl_valid_name(name->p, name->len)) {
        reply_error(c, "ERR Usernames can't contain spaces or null characters");
        return;
    }
    acl_user *u = acl_find(name->p, name->len);
    acl_user *tmp = u ? acl_user_dup(u) : acl_user_new(name->p, name->len);
    acl_rule_err e;
    if (acl_set_rules(tmp, c->argc - 3, c->argv + 3, &e, NULL, NULL) != 0) {
        char err[1200];
        acl_rule_err_text(&e, err, sizeof err);
        acl_user_free(tmp);
        reply_error(c, err);
        return;
    }
    if (u) {
        acl_kill_pubsub_changed(tmp, u);
        acl_user_move(u, tmp);
    } else {
        acl_add_user(tmp);
    }
    reply_ok(c);
}

static void reply_heap_str(client *c, char *s) {
    reply_bulk_str(c, s);
    free(s);
}

static void reply_selector_parts(client *c, const acl_sel *s) {
    reply_bulk_str(c, "commands");
    reply_heap_str(c, acl_describe_commands(s));
    reply_bulk_str(c, "keys");
    reply_heap_str(c, acl_describe_keys(s));
    reply_bulk_str(c, "channels");
    reply_heap_str(c, acl_describe_channels(s));
}

static void acl_getuser(client *c) {
    const acl_user *u = acl_find(c->argv[2].p, c->argv[2].len);
    if (!u) {
        reply_null(c);
        return;
    }
    static const struct { int flag; const char *name; } names[] = {
        {USER_ON, "on"}, {USER_OFF, "off"}, {USER_NOPASS, "nopass"},
        {USER_SKIP_SANITIZE, "skip-sanitize-payload"}, {USER_SANITIZE, "sanitize-payload"}};
    reply_map(c, 6);
    reply_bulk_str(c, "flags");
    long long nflags = 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) nflags += (u->flags & names[i].flag) != 0;
    reply_set(c, nflags); /* a set under RESP3, as Redis */
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (u->flags & names[i].flag) reply_bulk_str(c, names[i].name);
    reply_bulk_str(c, "passwords");
    reply_array(c, (long long)u->npass);
    for (size_t i = 0; i < u->npass; i++) reply_bulk(c, u->pass[i], 64);
    reply_selector_parts(c, &u->sel[0]);
    reply_bulk_str(c, "selectors");
    reply_array(c, (long long)u->nsel - 1);
    for (size_t i = 1; i < u->nsel; i++) {
        reply_map(c, 3);
        reply_selector_parts(c, &u->sel[i]);
    }
}

static void acl_deluser(client *c) {
    long long deleted = 0;
    for (int i = 2; i < c->argc; i++) {
        if (c->argv[i].len == 7 && !memcmp(c->argv[i].p, "default", 7)) {
            reply_error(c, "ERR The 'default' user cannot be removed");
            return;
        }
        acl_user *u = acl_find(c->argv[i].p, c->argv[i].len);
        if (!u) continue;
        acl_delete_user(u);
        deleted++;
    }
    reply_int(c, deleted);
}

static void acl_users(client *c) {
    reply_array(c, (long long)acl_nusers());
    for (size_t i = 0; i < acl_nusers(); i++) reply_bulk_str(c, acl_user_at(i)->name);
}

static void acl_list(client *c) {
    reply_array(c, (long long)acl_nusers());
    for (size_t i = 0; i < acl_nusers(); i++) {
        const acl_user *u = acl_user_at(i);
        char *d = acl_describe_user(u);
        vbuf b = {0};
        vbuf_appendf(&b, "user %s %s", u->name, d);
        reply_bulk(c, b.data, b.len);
        vbuf_free(&b);
        free(d);
    }
}

static void acl_whoami(client *c) {
    if (c->user) reply_bulk_str(c, acl_user_name(c->user));
    else reply_null(c); /* the server's own clients (a master's ACL WHOAMI) */
}

static void acl_cat(client *c) {
    if (c->argc > 3) {
        reply_sub_syntax(c);
        return;
    }
    if (c->argc == 2) {
        reply_array(c, CAT_COUNT);
        for (int i = 0; i < CAT_COUNT; i++) reply_bulk_str(c, cmd_cat_names[i]);
        return;
    }
    const arg *a = &c->argv[2];
    int cat = 0;
    for (int i = 0; i < CAT_COUNT && !cat; i++)
        if (strlen(cmd_cat_names[i]) == a->len && !strncasecmp(cmd_cat_names[i], a->p, a->len))
            cat = 1 << i;
    if (!cat) {
        reply_errorf(c, "ERR Unknown category '%.*s'", (int)a->len, a->p);
        return;
    }
    long long n = 0;
    for (size_t i = 0; i < cmd_count_all(); i++) n += (cmd_at_all(i)->acl & cat) != 0;
    reply_array(c, n);
    for (size_t i = 0; i < cmd_count_all(); i++)
        if (cmd_at_all(i)->acl & cat) reply_bulk_str(c, cmd_at_all(i)->fullname);
}

static void acl_genpass(client *c) {
    long long bits = 256;
    if (c->argc > 3) {
        reply_sub_syntax(c);
        return;
    }
    if (c->argc == 3 && !arg_ll(c, &c->argv[2], &bits)) return;
    if (bits <= 0 || bits > 4096) {
        reply_error(c, "ERR ACL GENPASS argument must be the number of bits for the output "
                       "password, a positive number up to 4096");
        return;
    }
    static const char hex[] = "0123456789abcdef";
    size_t chars = (size_t)(bits + 3) / 4;
    unsigned char raw[512];
    random_bytes(raw, (chars + 1) / 2);
    char out[1025];
    for (size_t i = 0; i < chars; i++) out[i] = hex[(raw[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    reply_bulk(c, out, chars);
}

static void acl_dryrun(client *c) {
    const acl_user *u = acl_find(c->argv[2].p, c->argv[2].len);
    if (!u) {
        reply_errorf(c, "ERR User '%.*s' not found", (int)c->argv[2].len, c->argv[2].p);
        return;
    }
    int argc = c->argc - 3;
    const arg *argv = c->argv + 3;
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    if (!d) {
        reply_errorf(c, "ERR Command '%.*s' not found", (int)argv[0].len, argv[0].p);
        return;
    }
    if (!cmd_arity_ok(d, argc)) {
        reply_errorf(c, "ERR wrong number of arguments for '%s' command", d->fullname);
        return;
    }
    int pos;
    int r = acl_check(u, d, argc, argv, &pos);
    if (r == ACL_OK) {
        reply_ok(c);
        return;
    }
    vbuf b = {0};
    if (r == ACL_DENIED_CMD)
        vbuf_appendf(&b, "This user has no permissions to run the '%s' command", d->fullname);
    else
        vbuf_appendf(&b, "This user has no permissions to access the '%.*s' %s",
                     (int)argv[pos].len, argv[pos].p, r == ACL_DENIED_KEY ? "key" : "channel");
    reply_bulk(c, b.data, b.len);
    vbuf_free(&b);
}

static void acl_log(client *c) {
    long long count = 10;
    if (c->argc > 3) {
        reply_sub_syntax(c);
        return;
    }
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "reset")) {
            acl_log_reset();
            reply_ok(c);
            return;
        }
        if (!arg_ll(c, &c->argv[2], &count)) return;
        if (count < 0) count = 0;
    }
    acl_log_reply(c, count);
}

static int have_aclfile(client *c) {
    if (server.cfg.compat.aclfile[0]) return 1;
    reply_error(c, "ERR This Redis instance is not configured to use an ACL file. You may want "
                   "to specify users via the ACL SETUSER command and then issue a CONFIG "
                   "REWRITE (assuming you have a Redis configuration file set) in order to "
                   "store users in the Redis configuration.");
    return 0;
}

static void acl_load(client *c) {
    char err[4096];
    if (!have_aclfile(c)) return;
    if (acl_file_load(err, sizeof err) != 0) reply_errorf(c, "ERR %s", err);
    else reply_ok(c);
}

static void acl_save(client *c) {
    char err[1024];
    if (!have_aclfile(c)) return;
    if (acl_file_save(err, sizeof err) != 0) {
        log_warning("%s", err);
        reply_error(c, "ERR There was an error trying to save the ACLs. Please check the server "
                       "logs for more information");
    } else {
        reply_ok(c);
    }
}

static void acl_help(client *c) {
    static const char *const help[] = {
        "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        "HELP",
        "    Prints this help.",
        NULL};
    cmd_reply_help(c, help);
}

/* ---- the rows (Redis 7.0.15's, from scripts/cmdtable_from_redis.py) ---- */

static const cmd_arg acl_deluser_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg acl_log_operation_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "reset", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RESET"},
    {0}};
static const cmd_arg acl_log_args[] = {
    {.name = "operation", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = acl_log_operation_args},
    {0}};
static const char *const acl_getuser_history[] = {"6.2.0", "Added Pub/Sub channel patterns.", "7.0.0", "Added selectors and changed the format of key and channel patterns from a list to their rule representation.", NULL};
static const cmd_arg acl_getuser_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg acl_genpass_args[] = {
    {.name = "bits", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const char *const acl_setuser_history[] = {"6.2.0", "Added Pub/Sub channel patterns.", "7.0.0", "Added selectors and key based permissions.", NULL};
static const cmd_arg acl_setuser_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "rule", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg acl_dryrun_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "command", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg acl_cat_args[] = {
    {.name = "categoryname", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};

static cmd_def acl_subcmds[] = {
    {.name = "whoami", .proc = acl_whoami, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "6.0.0",
     .summary = "Return the name of the user associated to the current connection",
     .complexity = "O(1)"},
    {.name = "users", .proc = acl_users, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "List the username of all the configured ACL rules",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "list", .proc = acl_list, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "List the current ACL rules in ACL config file format",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "deluser", .proc = acl_deluser, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "Remove the specified ACL users and the associated rules",
     .complexity = "O(1) amortized time considering the typical user.",
     .args = acl_deluser_args},
    {.name = "save", .proc = acl_save, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "Save the current ACL rules in the configured ACL file",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "log", .proc = acl_log, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "List latest events denied because of ACLs in place",
     .complexity = "O(N) with N being the number of entries shown.", .args = acl_log_args},
    {.name = "getuser", .proc = acl_getuser, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0", .summary = "Get the rules for a specific ACL user",
     .complexity = "O(N). Where N is the number of password, command and pattern rules that the user has.",
     .history = acl_getuser_history, .args = acl_getuser_args},
    {.name = "load", .proc = acl_load, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "Reload the ACLs from the configured ACL file",
     .complexity = "O(N). Where N is the number of configured users."},
    {.name = "genpass", .proc = acl_genpass, .arity = -2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "6.0.0",
     .summary = "Generate a pseudorandom secure password to use for ACL users",
     .complexity = "O(1)", .args = acl_genpass_args},
    {.name = "setuser", .proc = acl_setuser, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.0.0",
     .summary = "Modify or create the rules for a specific ACL user",
     .complexity = "O(N). Where N is the number of rules provided.",
     .history = acl_setuser_history, .args = acl_setuser_args},
    {.name = "dryrun", .proc = acl_dryrun, .arity = -4, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "7.0.0",
     .summary = "Returns whether the user can execute the given command without executing the command.",
     .complexity = "O(1).", .args = acl_dryrun_args},
    {.name = "help", .proc = acl_help, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "6.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "cat", .proc = acl_cat, .arity = -2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "6.0.0",
     .summary = "List the ACL categories or the commands inside a category",
     .complexity = "O(1) since the categories and commands are a fixed set.",
     .args = acl_cat_args},
    {0}};

static cmd_def acl_cmds[] = {
    {.name = "acl", .proc = cmd_acl, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "6.0.0",
     .summary = "A container for Access List Control commands ",
     .complexity = "Depends on subcommand.", .subcmds = acl_subcmds},
};

void acl_register_commands(void) { cmd_register(acl_cmds, sizeof acl_cmds / sizeof acl_cmds[0]); }
