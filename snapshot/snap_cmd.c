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
    char err[SNAP_ERRLEN];
    int rc = snap_bgsave(schedule, err, sizeof err);
    if (rc == 0) reply_status(c, "Background saving started");
    else if (rc == 1) reply_status(c, "Background saving scheduled");
    else reply_error(c, err);
}

void cmd_lastsave(client *c) { reply_int(c, snap_lastsave()); }
