/* snap_cmd: SAVE, BGSAVE [SCHEDULE] and LASTSAVE, as Redis 7 answers them.
 * Main thread only. */
#include "cmd.h"
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
    if (snap_aof_base_running() && !schedule) {
        reply_error(c, "ERR An AOF log rewriting in progress: can't BGSAVE right now. Use "
                       "BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.");
        return;
    }
    if (snap_in_progress()) {
        if (schedule) {
            snap_schedule();
            reply_status(c, "Background saving scheduled");
        } else {
            reply_error(c, "ERR Background save already in progress");
        }
        return;
    }
    char err[SNAP_ERRLEN];
    if (snap_bgsave(err, sizeof err) == 0) reply_status(c, "Background saving started");
    else reply_error(c, err);
}

void cmd_lastsave(client *c) { reply_int(c, snap_lastsave()); }
