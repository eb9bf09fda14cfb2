/* inproc: the in-process command runner shared by the unit tests that run
 * commands through the real dispatcher (test_cmd, test_propagate): the
 * keyspace and command table set up once, a fake authenticated client, and
 * one command given as space-separated words. Single-threaded. */
#ifndef VERSO_TEST_INPROC_H
#define VERSO_TEST_INPROC_H

#include <check.h>

#include "cmd.h"

/* conf_init, the subsystems' command registration (snapshot, AOF,
 * replication, as the server registers them), cmd_init and db_init_all,
 * the first time only. */
void inproc_init(void);

/* A zeroed client flagged CLIENT_AUTHED (free with inproc_client_free). */
client *inproc_client(void);
void inproc_client_free(client *c);

/* Splits words at spaces into c's argv (static storage, valid until the
 * next call), clears c's reply buffer and returns cmd_dispatch(c). */
int inproc_dispatch(client *c, const char *words);

/* Runs the suite in this process (CK_NOFORK: the keyspace is shared by
 * the tests); returns EXIT_SUCCESS or EXIT_FAILURE. */
int inproc_run(Suite *s);

#endif
