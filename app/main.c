/* main: the verso-server program, the one place that knows every part.
 *
 *   verso-server [config-file] [--name value ...]
 *
 * Sets up the core (src/server.c: configuration, log, data directory,
 * databases, the core's modules), registers the subsystems with the core
 * (snapshot/, aof/, then repl/: their commands and hooks; hooks.h gives
 * the whole order and why it matters), lets the core finish (its late
 * hooks, the command lookup: server_setup_done), listens, loads
 * the data (the AOF when it is on and exists, else the snapshot) while
 * answering clients -LOADING, then serves. The core
 * includes no subsystem header: this file is where they meet. */
#include <stdio.h>
#include <string.h>

#include "acl.h"
#include "aof.h"
#include "cluster.h"
#include "route.h"
#include "repl.h"
#include "snap.h"
#include "log.h"
#include "server.h"

static void usage(void) {
    fprintf(stderr,
            "Usage: verso-server [/path/to/verso.conf] [options]\n"
            "       verso-server -v or --version\n"
            "       verso-server -h or --help\n\n"
            "Examples:\n"
            "       verso-server (run the server with default config)\n"
            "       verso-server /etc/verso/verso.conf\n"
            "       verso-server --port 7777\n"
            "       verso-server /etc/verso.conf --loglevel verbose --dir ./data\n");
}

/* The AOF when it is on and exists, else the snapshot; then the AOF is
 * opened for appending. */
static int load_data(char *err, size_t errlen) {
    int rc = aof_load_startup(err, errlen);
    if (rc < 0) {
        log_warning("Fatal error loading the append only file: %s. Exiting.", err);
        return -1;
    }
    if (rc == 1 && snap_load_startup(err, errlen) != 0) {
        log_warning("Fatal error loading the DB: %s. Exiting.", err);
        return -1;
    }
    if (aof_open_startup(err, errlen) != 0) {
        log_warning("Can't open the append only file: %s. Exiting.", err);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printf("verso server v=%s (Redis %s compatible)\n", VERSO_VERSION, VERSO_REDIS_VERSION);
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage();
        return 0;
    }
    int rc = server_setup(argc, argv);
    if (rc != 0) return rc;
    route_init(); /* ASKING, READONLY, READWRITE in every mode; its gate before NOREPLICAS */
    snap_init();
    aof_init();
    repl_init();
    cluster_init();
    server_setup_done();
    if (acl_load_startup() != 0) return 1; /* the config's user lines or the aclfile */
    rc = server_listen();
    if (rc != 0) return rc;
    char err[1024];
    if (load_data(err, sizeof err) != 0) return 1;
    repl_data_loaded();
    return server_serve();
}
