/* repl_util: what the replication tests share: a writer thread that loads a
 * server with every data type while a test cuts links, a preload, and a
 * comparison of two servers' datasets by per-type reads.
 *
 * Thread boundary: a writer's thread owns its own hiredis connection; the
 * test's thread only reads the atomic counters and calls writer_stop,
 * which joins it. Check assertions happen on the test's thread only (the
 * writer records its first error in w->err for writer_stop to report). */
#ifndef VERSO_TEST_REPL_UTIL_H
#define VERSO_TEST_REPL_UTIL_H

#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define RU_NDB 4 /* the writer and the preload use databases 0..RU_NDB-1 */

typedef struct ru_writer {
    int port;
    pthread_t th;
    atomic_int stop;
    atomic_long ops;          /* commands acknowledged so far */
    char err[512];            /* the writer's first error ("" if none) */
} ru_writer;

/* Starts a thread writing strings, hashes, lists, sets, zsets, counters,
 * keys with long TTLs and keys with TTLs of a few ms, in databases
 * 0..RU_NDB-1, with MULTI/EXEC blocks now and then, in pipelined batches,
 * to 127.0.0.1:port. Fails the test if it cannot connect. */
ru_writer *writer_start(int port);
/* Waits until the writer has had n more commands acknowledged than now
 * (timeout_ms scaled; the test fails otherwise). */
void writer_wait_progress(ru_writer *w, long n, int timeout_ms);
/* Stops and joins the thread; fails the test if the writer hit an error
 * (e.g. a refused write); returns the commands acknowledged. Frees w. */
long writer_stop(ru_writer *w);

/* Writes a fixed dataset of every type into databases 0..RU_NDB-1
 * (pipelined): `scale` thousand strings and proportionally many
 * collections, some with TTLs, one incompressible string of 1 MB. */
void ru_preload(redisContext *c, int scale);

/* Compares the datasets of databases 0..RU_NDB-1 of a and b: the same keys
 * (SCAN), the same type and value of each (per-type reads, sets and hashes
 * compared sorted), the same TTL presence, TTLs within ttl_tol_ms. Fails
 * the test at the caller's line naming the first difference; returns the
 * number of keys compared. */
#define ru_same_data(a, b, ttl_tol_ms) ru_same_data_at(__FILE__, __LINE__, a, b, ttl_tol_ms)
size_t ru_same_data_at(const char *file, int line, redisContext *a,
                       redisContext *b, long ttl_tol_ms);
/* The dataset of databases 0..RU_NDB-1 as one canonical malloc'd text
 * (TTLs not included), e.g. to check that a server lost nothing. */
char *ru_canon(redisContext *c);

/* Waits until the replica has applied the primary's whole stream: its
 * master_repl_offset reaches the primary's (read once at the call; the
 * primary must be quiet). Fails at the caller's line after timeout_ms. */
#define ru_wait_caught_up(p, r, timeout_ms) \
    ru_wait_caught_up_at(__FILE__, __LINE__, p, r, timeout_ms)
void ru_wait_caught_up_at(const char *file, int line, redisContext *p,
                          redisContext *r, int timeout_ms);

#endif
