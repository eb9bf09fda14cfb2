/* snap_cmd: SAVE, BGSAVE [SCHEDULE] and LASTSAVE, as Redis 7 answers them,
 * and the registration of the snapshot's commands. Main thread only. */
#include "cmd.h"
#include "dump_payload.h"
#include "snap.h"

void cmd_save(client *c) {
    char err[SNAP_ERRLEN];
    if (snap_save_sync(err, sizeof err) == 0) reply_ok(c);
    else reply_error(c, err);
}

void cmd_bgsave(client *c) {
    int schedule = 0;
    if (c->argc > 2) { reply_syntax_error(c); return; }
    if (c->argc == 2) {
        if (!arg_is(&c->argv[1], "schedule")) { reply_syntax_error(c); return; }
        schedule = 1;
    }
    char err[SNAP_ERRLEN];
    int rc = snap_bgsave(schedule, err, sizeof err);
    if (rc == 0) reply_status(c, "Background saving started");
    else if (rc == 1) reply_status(c, "Background saving scheduled");
    else reply_error(c, err);
}

void cmd_lastsave(client *c) { reply_int(c, snap_lastsave()); }

/* ---- the rows (cmd.h's cmd_register; docs as Redis 7.0.15's) ---- */

static const char *const bgsave_history[] = {"3.2.2", "Added the `SCHEDULE` option.", NULL};
static const cmd_arg bgsave_args[] = {
    {.name = "schedule", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SCHEDULE", .since = "3.2.2", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const lastsave_tips[] = {"nondeterministic_output", NULL};

static cmd_def snap_cmds[] = {
    {.name = "save", .proc = cmd_save, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0", .summary = "Synchronously save the dataset to disk",
     .complexity = "O(N) where N is the total number of keys in all databases"},
    {.name = "bgsave", .proc = cmd_bgsave, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0", .summary = "Asynchronously save the dataset to disk",
     .complexity = "O(1)", .history = bgsave_history, .args = bgsave_args},
    {.name = "lastsave", .proc = cmd_lastsave, .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_ADMIN | CAT_FAST | CAT_DANGEROUS,
     .tips = lastsave_tips, .group = "server", .since = "1.0.0",
     .summary = "Get the UNIX time stamp of the last successful save to disk",
     .complexity = "O(1)"},
};

void snap_register_commands(void) {
    cmd_register(snap_cmds, sizeof snap_cmds / sizeof snap_cmds[0]);
    dump_register_commands();
    function_dump_register_commands();
    migrate_register_commands();
}
