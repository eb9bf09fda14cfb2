/* fuzz_common: the shared set-up of the fuzz targets (see fuzz_common.h). */
#include "fuzz_common.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aof.h"
#include "snap.h"
#include "cmd.h"
#include "db.h"
#include "evict.h"
#include "log.h"
#include "pubsub.h"
#include "repl.h"
#include "server.h"
#include "util.h"

static char dir[64];
static char pathbuf[PATH_MAX];

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *f) {
    (void)sb;
    (void)flag;
    (void)f;
    return remove(p);
}

static void rm_dir(void) {
    if (dir[0]) nftw(dir, rm_one, 8, FTW_DEPTH | FTW_PHYS);
}

const char *fz_dir(void) {
    if (!dir[0]) {
        /* $VERSO_FUZZ_TMP (run.sh's, removed after the run even when the
         * target crashed), else tmpfs when there is one: a file per input,
         * and fsyncs, cost little there */
        const char *top = getenv("VERSO_FUZZ_TMP");
        if (!top || !*top) top = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        snprintf(dir, sizeof dir, "%s/verso-fuzz.XXXXXX", top);
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            abort();
        }
        atexit(rm_dir);
    }
    return dir;
}

const char *fz_path(const char *name) {
    snprintf(pathbuf, sizeof pathbuf, "%s/%s", fz_dir(), name);
    return pathbuf;
}

void fz_write(const char *name, const void *data, size_t size) {
    int fd = open(fz_path(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        perror("fz_write: open");
        abort();
    }
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n <= 0) {
            perror("fz_write: write");
            abort();
        }
        p += n;
        size -= (size_t)n;
    }
    close(fd);
}

void fz_quiet_log(void) {
    static int done;
    if (done) return;
    done = 1;
    log_open("/dev/null", LOG_WARNING);
}

void fz_init_server(void) {
    static int done;
    if (done) return;
    done = 1;
    fz_quiet_log();
    conf_init(&server.cfg);
    server.pid = getpid();
    server.start_mono_us = mono_us();
    server.start_wall_ms = wall_ms();
    memset(server.runid, 'f', sizeof server.runid - 1);
    server.loop = uv_default_loop();
    /* DEBUG (POPULATE, RELOAD...) is part of what the command target runs. */
    server.cfg.enable_debug_command = DEBUG_CMD_YES;
    db_init_all(server.cfg.databases);
    evict_init();
    pubsub_init(); /* the subscribed-context gate, as server.c registers it */
    snap_init();
    aof_init();
    repl_register_commands(); /* the table the server has */
    cmd_init(); /* after every registration (cmd.h) */
}

/* path made absolute against cwd (heap; "" stays ""). */
static char *absolute(const char *cwd, const char *path) {
    if (path[0] == '/' || path[0] == '\0') return xstrdup(path);
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *out = xmalloc(n);
    snprintf(out, n, "%s/%s", cwd, path);
    return out;
}

void fz_enter_dir(int *argc, char ***argv) {
    static const char *const path_flags[] = {"-dict=", "-artifact_prefix=",
                                             "-exact_artifact_path=", "-seed_inputs="};
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) {
        perror("getcwd");
        abort();
    }
    int n = *argc, has_prefix = 0;
    char **out = xcalloc((size_t)n + 2, sizeof *out);
    for (int i = 0; i < n; i++) {
        const char *a = (*argv)[i];
        out[i] = (char *)a;
        if (i == 0) continue;
        if (a[0] != '-') {
            out[i] = absolute(cwd, a);
            continue;
        }
        for (size_t k = 0; k < sizeof path_flags / sizeof path_flags[0]; k++) {
            size_t fl = strlen(path_flags[k]);
            if (strncmp(a, path_flags[k], fl) != 0) continue;
            if (k == 1) has_prefix = 1;
            char *abs = absolute(cwd, a + fl);
            size_t len = fl + strlen(abs) + 1;
            out[i] = xmalloc(len);
            snprintf(out[i], len, "%s%s", path_flags[k], abs);
            free(abs);
        }
    }
    if (!has_prefix) {
        size_t len = strlen(cwd) + 32;
        out[n] = xmalloc(len);
        snprintf(out[n], len, "-artifact_prefix=%s/", cwd);
        n++;
    }
    out[n] = NULL;
    *argc = n;
    *argv = out; /* kept for the life of the process */
    if (chdir(fz_dir()) != 0) {
        perror("chdir");
        abort();
    }
}
