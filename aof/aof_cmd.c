/* aof_cmd: BGREWRITEAOF, as Redis 7 answers it. Main thread only. */
#include "aof.h"

void cmd_bgrewriteaof(client *c) {
    char err[512];
    int rc = aof_rewrite(err, sizeof err);
    if (rc == 0) reply_status(c, "Background append only file rewriting started");
    else if (rc == 1) reply_status(c, "Background append only file rewriting scheduled");
    else reply_error(c, err);
}
