/* cmd_function: FUNCTION LOAD/DELETE/FLUSH/LIST/STATS/KILL/HELP and
 * FCALL/FCALL_RO, as Redis 7.0.15's functions.c answers them (FUNCTION
 * DUMP and RESTORE, which use the RDB codec, are snapshot/function_cmd.c's).
 * The registry is function.c's, the Lua side function_lua.c's. A command
 * that changes the libraries counts one change (server.dirty), so the
 * dispatcher propagates it as it was sent to the AOF and the replicas, as
 * Redis does. Main thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "function.h"
#include "function_lua.h"
#include "script_lua.h"
#include "util.h"

/* addReplySubcommandSyntaxError */
static void reply_sub_syntax(client *c) {
    int n = c->argv[1].len > 128 ? 128 : (int)c->argv[1].len;
    reply_errorf(c,
                 "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                 "FUNCTION HELP.",
                 n, c->argv[1].p);
}

static void reply_err_text(client *c, char *err) {
    reply_errorf(c, "ERR %s", err);
    free(err);
}

/* FUNCTION LOAD [REPLACE] code */
static void fn_load(client *c) {
    int replace = 0, pos = 2;
    while (pos < c->argc - 1) {
        const arg *a = &c->argv[pos++];
        if (arg_is(a, "replace")) {
            replace = 1;
            continue;
        }
        reply_errorf(c, "ERR Unknown option given: %.*s", (int)a->len, a->p);
        return;
    }
    if (pos >= c->argc) {
        reply_error(c, "ERR Function code is missing");
        return;
    }
    const arg *code = &c->argv[pos];
    /* a master's or the AOF's load has no timeout (mustObeyClient) */
    int64_t timeout = c->flags & (CLIENT_MASTER | CLIENT_LOADER) ? 0 : FNLUA_LOAD_TIMEOUT_MS;
    char *err = NULL;
    char *name = function_create(code->p, code->len, replace, timeout, &err);
    if (!name) {
        reply_err_text(c, err);
        return;
    }
    server_dirty(1);
    reply_bulk_str(c, name);
    free(name);
}

static void fn_delete(client *c) {
    if (!function_delete(c->argv[2].p, c->argv[2].len)) {
        reply_error(c, "ERR Library not found");
        return;
    }
    server_dirty(1);
    reply_ok(c);
}

static void fn_flush(client *c) {
    if (c->argc > 3) {
        reply_sub_syntax(c);
        return;
    }
    /* SYNC and ASYNC both free the libraries now: they are small, and a
     * library's Lua callbacks belong to the main thread's state */
    if (c->argc == 3 && !arg_is(&c->argv[2], "sync") && !arg_is(&c->argv[2], "async")) {
        reply_error(c, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    function_flush();
    server_dirty(1);
    reply_ok(c);
}

static void reply_flags(client *c, int flags) {
    long long n = 0;
    for (int i = 0; function_flag_name(i); i++) n += (flags >> i) & 1;
    reply_set(c, n);
    for (int i = 0; function_flag_name(i); i++)
        if (flags & (1 << i)) reply_status(c, function_flag_name(i));
}

static void reply_lib(client *c, const fn_lib *li, int withcode) {
    reply_map(c, withcode ? 4 : 3);
    reply_bulk_str(c, "library_name");
    reply_bulk_str(c, li->name);
    reply_bulk_str(c, "engine");
    reply_bulk_str(c, "LUA");
    reply_bulk_str(c, "functions");
    reply_array(c, (long long)li->nfuncs);
    for (size_t i = 0; i < li->nfuncs; i++) {
        const fn_func *f = li->funcs[i];
        reply_map(c, 3);
        reply_bulk_str(c, "name");
        reply_bulk_str(c, f->name);
        reply_bulk_str(c, "description");
        if (f->desc) reply_bulk_str(c, f->desc);
        else reply_null(c);
        reply_bulk_str(c, "flags");
        reply_flags(c, f->flags);
    }
    if (withcode) {
        reply_bulk_str(c, "library_code");
        reply_bulk_obj(c, li->code);
    }
}

/* FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE] */
static void fn_list(client *c) {
    int withcode = 0;
    const arg *pat = NULL;
    for (int i = 2; i < c->argc; i++) {
        const arg *a = &c->argv[i];
        if (!withcode && arg_is(a, "withcode")) {
            withcode = 1;
            continue;
        }
        if (!pat && arg_is(a, "libraryname")) {
            if (i >= c->argc - 1) {
                reply_error(c, "ERR library name argument was not given");
                return;
            }
            pat = &c->argv[++i];
            continue;
        }
        reply_errorf(c, "ERR Unknown argument %.*s", (int)a->len, a->p);
        return;
    }
    size_t n = function_lib_count(), match = 0;
    for (size_t i = 0; i < n; i++) {
        const fn_lib *li = function_lib_at(i);
        match += !pat || glob_match(pat->p, pat->len, li->name, strlen(li->name), 1);
    }
    reply_array(c, (long long)match);
    for (size_t i = 0; i < n; i++) {
        const fn_lib *li = function_lib_at(i);
        if (!pat || glob_match(pat->p, pat->len, li->name, strlen(li->name), 1))
            reply_lib(c, li, withcode);
    }
}

static void fn_stats(client *c) {
    if (!fnlua_stats_running(c)) return;
    reply_bulk_str(c, "engines");
    reply_map(c, 1);
    reply_bulk_str(c, "LUA");
    reply_map(c, 2);
    reply_bulk_str(c, "libraries_count");
    reply_int(c, (long long)function_lib_count());
    reply_bulk_str(c, "functions_count");
    reply_int(c, (long long)function_count());
}

static const char *const help_lines[] = {
    "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LOAD [REPLACE] <FUNCTION CODE>",
    "    Create a new library with the given library name and code.",
    "DELETE <LIBRARY NAME>",
    "    Delete the given library.",
    "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
    "    Return general information on all the libraries:",
    "    * Library name",
    "    * The engine used to run the Library",
    "    * Library description",
    "    * Functions list",
    "    * Library code (if WITHCODE is given)",
    "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
    "STATS",
    "    Return information about the current function running:",
    "    * Function name",
    "    * Command used to run the function",
    "    * Duration in MS that the function is running",
    "    If no function is running, return nil",
    "    In addition, returns a list of available engines.",
    "KILL",
    "    Kill the current running function.",
    "FLUSH [ASYNC|SYNC]",
    "    Delete all the libraries.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the libraries.",
    "    * SYNC: Synchronously flush the libraries.",
    "DUMP",
    "    Return a serialized payload representing the current libraries, can be restored using "
    "FUNCTION RESTORE command",
    "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
    "    Restore the libraries represented by the given payload, it is possible to give a "
    "restore policy to",
    "    control how to handle existing libraries (default APPEND):",
    "    * FLUSH: delete all existing libraries.",
    "    * APPEND: appends the restored libraries to the existing libraries. On collision, "
    "abort.",
    "    * REPLACE: appends the restored libraries to the existing libraries, On collision, "
    "replace the old",
    "      libraries with the new libraries (notice that even on this option there is a "
    "chance of failure",
    "      in case of functions name collision with another library).",
    "HELP",
    "    Prints this help.",
    NULL,
};

/* The subcommands' arity is the dispatcher's (the table); this picks the
 * handler by name. */
void cmd_function(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "load")) fn_load(c);
    else if (arg_is(sub, "delete")) fn_delete(c);
    else if (arg_is(sub, "flush")) fn_flush(c);
    else if (arg_is(sub, "list")) fn_list(c);
    else if (arg_is(sub, "stats")) fn_stats(c);
    else if (arg_is(sub, "kill")) scriptl_kill(c, 0);
    else if (arg_is(sub, "help")) cmd_reply_help(c, help_lines);
    else reply_unknown_subcommand(c, "FUNCTION");
}

/* A function's flags (FN_*) as a script's (SCRIPT_FLAG_*). */
static int script_flags(int fnflags) {
    return ((fnflags & FN_NO_WRITES) ? SCRIPT_FLAG_NO_WRITES : 0) |
           ((fnflags & FN_ALLOW_OOM) ? SCRIPT_FLAG_ALLOW_OOM : 0) |
           ((fnflags & FN_ALLOW_STALE) ? SCRIPT_FLAG_ALLOW_STALE : 0);
}

/* Redis runs FCALL through processCommand's checks with the function's
 * flags as the command's (fcallGetCommandFlags, scriptFlagsToCmdFlags):
 * write and deny-oom unless no-writes (or allow-oom), stale only with
 * allow-stale. The dispatcher checked them too (cmd_flags_of) when the
 * function existed then; this checks them as the call starts (a FCALL
 * queued before its function was loaded): -READONLY on a replica,
 * MISCONF, MASTERDOWN... The error, or NULL. */
static const char *flag_gates(client *c, int fnflags) {
    if (c->flags & (CLIENT_MASTER | CLIENT_LOADER)) return NULL; /* obeyed as sent */
    cmd_def d = *c->cmd;
    d.flags = scriptl_cmd_flags(d.flags, script_flags(fnflags));
    return cmd_gates_error(c, &d);
}

/* Redis's fcallGetCommandFlags: the function's flags as the command's, or
 * the command's own when there is no such function. */
int fcall_cmd_flags(const cmd_def *d, int argc, const arg *argv) {
    assert(argc >= 2);
    const fn_func *f = function_find(argv[1].p, argv[1].len);
    return f ? scriptl_cmd_flags(d->flags, script_flags(f->flags)) : d->flags;
}

/* fcallCommandGeneric */
static void fcall(client *c, int ro) {
    fn_func *f = function_find(c->argv[1].p, c->argv[1].len);
    if (!f) {
        reply_error(c, "ERR Function not found");
        return;
    }
    const char *why = flag_gates(c, f->flags);
    if (why) {
        reply_error(c, why);
        return;
    }
    long long numkeys;
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &numkeys)) {
        reply_error(c, "ERR Bad number of keys provided");
        return;
    }
    if (numkeys > c->argc - 3) {
        reply_error(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        reply_error(c, "ERR Number of keys can't be negative");
        return;
    }
    int nk = (int)numkeys;
    fnlua_call(c, f, ro, nk, c->argv + 3, c->argc - 3 - nk, c->argv + 3 + nk);
}

void cmd_fcall(client *c) { fcall(c, 0); }
void cmd_fcall_ro(client *c) { fcall(c, 1); }
