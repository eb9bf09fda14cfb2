/* aof_cmd: BGREWRITEAOF, as Redis 7 answers it. Main thread only. */
#include "aof.h"

void cmd_bgrewriteaof(client *c) {
    char err[512];
    int rc = aof_rewrite(err, sizeof err);
    if (rc == 0) reply_status(c, "Background append only file rewriting started");
    else if (rc == 1) reply_status(c, "Background append only file rewriting scheduled");
    else reply_error(c, err);
}

/* ---- the row (cmd.h's cmd_register; docs as Redis 7.0.15's) ---- */

static cmd_def aof_cmds[] = {
    {.name = "bgrewriteaof", .proc = cmd_bgrewriteaof, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0",
     .summary = "Asynchronously rewrite the append-only file", .complexity = "O(1)"},
};

void aof_register_commands(void) {
    cmd_register(aof_cmds, sizeof aof_cmds / sizeof aof_cmds[0]);
}
