/* upgrade: a Redis 6 single-file AOF turned into the multi-part layout.
 *
 * Redis before 7.0 kept the AOF as one file, <dir>/<appendfilename>
 * (commands, or an RDB preamble then commands). Redis 7.0 adopts it at a
 * start with appendonly yes (aof.c's loadAppendOnlyFiles and
 * aofUpgradePrepare), and so does verso, with the same rules:
 *  - it upgrades when <appendfilename> exists in the data directory and
 *    either the AOF directory does not exist, or its manifest lists no
 *    file (missing, or only comments), or the manifest lists only a base
 *    of that very name which is not in the AOF directory yet (a crash
 *    between the two steps below: the upgrade runs again);
 *  - it then creates the AOF directory, writes a manifest whose base is
 *    the old file under its own name ("file appendonly.aof seq 1 type b"),
 *    and moves the old file into the directory (rename, both directories
 *    fsynced). The file's bytes are not changed: it is the base as it is,
 *    loaded as any base (aof_load.h: an RDB preamble and its command
 *    tail, or commands only). Opening the AOF then adds the first INCR.
 * A manifest that lists INCR files (or another base) means the directory
 * is already the AOF: an old file beside it is left alone, as Redis does.
 * With appendonly no nothing here runs: the old file stays, unread.
 * Startup only (main thread, the process's cwd is the data directory). */
#ifndef VERSO_AOF_UPGRADE_H
#define VERSO_AOF_UPGRADE_H

#include <stddef.h>

#include "manifest.h"

/* m is the manifest as loaded from dirname (empty when there was none).
 * When the rules above say so, upgrades and sets m to the new manifest:
 * 1 upgraded, 0 nothing to do, -1 with err (nothing moved when the
 * manifest could not be written). */
int aof_upgrade_old_file(aof_manifest *m, const char *dirname, const char *filename,
                         char *err, size_t errlen);

#endif
