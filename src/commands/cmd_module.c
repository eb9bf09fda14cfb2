/* cmd_module: the MODULE command (LIST LOAD LOADEX UNLOAD HELP). verso
 * loads no modules: it answers as a Redis 7.0 server in which no module is
 * loaded and every load fails (LIST an empty array, LOAD and LOADEX
 * "Error loading the extension", UNLOAD "no such module"), the reason in
 * the log as Redis logs a failed dlopen. LOAD, LOADEX and UNLOAD are
 * protected (enable-module-command, checked by the dispatcher). Main
 * thread only. */
#include "cmd.h"
#include "log.h"

static const char *const module_help[] = {
    "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "LIST",
    "    Return a list of loaded modules.",
    "LOAD <path> [<arg> ...]",
    "    Load a module library from <path>, passing to it any optional arguments.",
    "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
    "    Load a module library from <path>, while passing it module configurations and optional arguments.",
    "UNLOAD <name>",
    "    Unload a module.",
    "HELP",
    "    Prints this help.",
    NULL};

/* The dispatcher has resolved the subcommand and checked its arity. */
void cmd_module(client *c) {
    const arg *sub = &c->argv[1];
    if (arg_is(sub, "list")) {
        reply_array(c, 0);
    } else if (arg_is(sub, "load") || arg_is(sub, "loadex")) {
        log_warning("Module %.*s failed to load: this server has no module support",
                    (int)c->argv[2].len, c->argv[2].p);
        reply_error(c, "ERR Error loading the extension. Please check the server logs.");
    } else if (arg_is(sub, "unload")) {
        reply_error(c, "ERR Error unloading module: no such module with that name");
    } else {
        cmd_reply_help(c, module_help); /* HELP: the only subcommand left */
    }
}
