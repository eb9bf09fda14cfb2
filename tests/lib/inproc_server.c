/* inproc_server: the in-process server's set-up (see inproc.h), apart from
 * the Check-based client helpers of inproc.c so that the fuzz targets link
 * it without Check. */
#include "inproc.h"

#include <assert.h>
#include <string.h>
#include <unistd.h>

#include "aof.h"
#include "db.h"
#include "evict.h"
#include "pubsub.h"
#include "repl.h"
#include "server.h"
#include "snap.h"
#include "util.h"

enum { DEPTH_NONE, DEPTH_KEYSPACE, DEPTH_SERVER };
static int g_depth = DEPTH_NONE;

void inproc_conf(void) { conf_init(&server.cfg); }

void inproc_init(void) {
    if (g_depth != DEPTH_NONE) return;
    g_depth = DEPTH_KEYSPACE;
    inproc_conf();
    /* the subsystems' commands, as snap_init, aof_init and repl_init
     * register them in the server (their other start-up needs a loop) */
    snap_register_commands();
    aof_register_commands();
    repl_register_commands();
    cmd_init(); /* after every registration (cmd.h) */
    db_init_all(server.cfg.databases);
}

void inproc_init_server(void) {
    if (g_depth == DEPTH_SERVER) return;
    assert(g_depth == DEPTH_NONE); /* not on top of inproc_init */
    g_depth = DEPTH_SERVER;
    inproc_conf();
    server.pid = getpid();
    server.start_mono_us = mono_us();
    server.start_wall_ms = wall_ms();
    memset(server.runid, 'f', sizeof server.runid - 1);
    server.loop = uv_default_loop();
    /* DEBUG (POPULATE, RELOAD...) is part of what the command fuzzer runs. */
    server.cfg.enable_debug_command = DEBUG_CMD_YES;
    db_init_all(server.cfg.databases);
    evict_init();
    pubsub_init(); /* the subscribed-context gate, as server.c registers it */
    snap_init();
    aof_init();
    repl_register_commands(); /* the table the server has */
    cmd_init(); /* after every registration (cmd.h) */
}
