/* cmd_script: SCRIPT without a scripting engine yet (issue 11 brings one):
 * no script ever runs and the cache is always empty, so KILL answers
 * NOTBUSY, EXISTS zeros and FLUSH OK, with Redis 7.0's argument checks and
 * texts (Sentinel sends SCRIPT KILL to a node that looks busy). LOAD and
 * DEBUG are not in the command table. Main thread only. */
#include <assert.h>
#include <string.h>

#include "cmd.h"

static const char *const script_help[] = {
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
    NULL};

/* The dispatcher resolved the subcommand (c->cmd) and checked its arity. */
void cmd_script(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "kill")) {
        reply_error(c, "NOTBUSY No scripts in execution right now.");
    } else if (!strcmp(sub, "exists")) {
        reply_array(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++) reply_int(c, 0);
    } else if (!strcmp(sub, "flush")) {
        if (c->argc > 3 || (c->argc == 3 && !arg_is(&c->argv[2], "sync") &&
                            !arg_is(&c->argv[2], "async"))) {
            reply_error(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        reply_ok(c);
    } else {
        assert(!strcmp(sub, "help"));
        cmd_reply_help(c, script_help);
    }
}

/* Scaffolding: the scripting helper fills these in. */
void cmd_eval(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_evalsha(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_eval_ro(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_evalsha_ro(client *c) { reply_error(c, "ERR not implemented yet"); }
