/* upgrade: a Redis 6 single-file AOF turned into the multi-part layout
 * (see upgrade.h). The order, manifest first and then the move, is Redis
 * 7.0's: whichever step a crash interrupts, the next start finds the old
 * file where the rules upgrade it again. */
#include "upgrade.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "manifest.h"
#include "util.h"

static int is_file(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static int is_dir(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Redis 7.0's three cases (upgrade.h). */
static int needs_upgrade(const aof_manifest *m, const char *dirname, const char *filename) {
    if (!is_file(filename)) return 0;
    if (!is_dir(dirname)) return 1;
    if (m->nincr > 0) return 0;
    if (!m->base.name) return 1;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dirname, filename);
    return !strcmp(m->base.name, filename) && !is_file(path);
}

int aof_upgrade_old_file(aof_manifest *m, const char *dirname, const char *filename,
                         char *err, size_t errlen) {
    if (!needs_upgrade(m, dirname, filename)) return 0;
    if (mkdir(dirname, 0755) != 0 && (errno != EEXIST || !is_dir(dirname))) {
        snprintf(err, errlen, "Can't open or create append-only dir %s: %s", dirname,
                 errno == EEXIST ? "it exists and is not a directory" : strerror(errno));
        return -1;
    }
    free(m->base.name);
    m->base = (aof_file){xstrdup(filename), 1, 'b'};
    m->curr_base_seq = 1;
    if (aofm_save(dirname, filename, m, err, errlen) != 0) return -1;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dirname, filename);
    if (rename(filename, path) != 0) {
        snprintf(err, errlen, "Error trying to move the old AOF file %s into dir %s: %s",
                 filename, dirname, strerror(errno));
        return -1;
    }
    /* the move is durable before any INCR is written after the base */
    if (aofm_fsync_dir(dirname) != 0 || aofm_fsync_dir(".") != 0) {
        snprintf(err, errlen, "Fail to fsync the directories after moving %s into %s: %s",
                 filename, dirname, strerror(errno));
        return -1;
    }
    log_notice("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
               filename, dirname);
    return 1;
}
