/* inproc: the in-process command runner of the unit tests (see inproc.h). */
#include "inproc.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aof.h"
#include "db.h"
#include "repl.h"
#include "snap.h"
#include "multi.h"
#include "util.h"

void inproc_init(void) {
    static int done;
    if (done) return;
    done = 1;
    conf_init(&server.cfg);
    /* the subsystems' commands, as snap_init, aof_init and repl_init
     * register them in the server (their other start-up needs a loop) */
    snap_register_commands();
    aof_register_commands();
    repl_register_commands();
    cmd_init();
    db_init_all(server.cfg.databases);
}

client *inproc_client(void) {
    client *c = xcalloc(1, sizeof *c);
    c->flags = CLIENT_AUTHED;
    return c;
}

void inproc_client_free(client *c) {
    multi_client_free(c); /* a transaction's state and queue, as net.c's close */
    vbuf_free(&c->reply);
    free(c);
}

int inproc_dispatch(client *c, const char *words) {
    static char buf[512];
    static arg argv[32];
    size_t n = strlen(words);
    ck_assert_uint_lt(n, sizeof buf);
    memcpy(buf, words, n + 1);
    c->argc = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) {
        ck_assert_int_lt(c->argc, (int)(sizeof argv / sizeof argv[0]));
        argv[c->argc++] = (arg){t, strlen(t)};
    }
    c->argv = argv;
    c->reply.len = 0;
    return cmd_dispatch(c);
}

int inproc_run(Suite *s) {
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
