/* inproc: the one in-process server of the tests that run verso's code
 * without starting the binary: unit tests of types and codecs, the unit
 * tests that run commands through the real dispatcher (test_cmd,
 * test_propagate, test_notify, test_restore) and the fuzz targets.
 *
 * Three depths, each including the one before:
 *   inproc_conf         server.cfg at its defaults (again at every call);
 *   inproc_init         + the command table (the subsystems' commands
 *                       registered as the server does) and the databases (once);
 *   inproc_init_server  + the server's identity and start times, the libuv
 *                       loop, DEBUG enabled, eviction, pub/sub, snapshot, AOF and
 *                       replication's commands registered as server.c does (once).
 * A program uses inproc_init or inproc_init_server, not both. Then a fake
 * authenticated client and one command given as space-separated words.
 * Single-threaded (the main thread's state). inproc_init* do not use Check
 * (the fuzz targets link them); the client helpers do. */
#ifndef VERSO_TEST_INPROC_H
#define VERSO_TEST_INPROC_H

#include <check.h>

#include "cmd.h"

void inproc_conf(void);
void inproc_init(void);
void inproc_init_server(void);

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
