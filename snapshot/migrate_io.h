/* migrate_io: the part of a MIGRATE that talks to the target, on whatever
 * thread runs it (a worker thread of its own; the main thread inside
 * MULTI/EXEC or a script, where the caller cannot be blocked).
 *
 * mig_run takes a job the main thread filled (the target, the options, the
 * keys with a reference to each value and its remaining TTL) and does
 * what Redis 7.0's migrateCommand does on its socket: connect (unless a
 * cached connection came with the job), AUTH or AUTH2, SELECT when the
 * target's db differs, one RESTORE (RESTORE-ASKING in cluster mode) per
 * key with its DUMP payload (a big value's streamed as it is serialized,
 * payload_stream.h), then the replies, every connect, write and line read
 * bounded by the timeout. A cached connection the target had
 * closed is retried once on a new one, as Redis does. It touches nothing
 * but the job: no table, no client, no configuration (what it needs of
 * them the main thread copied in). The values are read through the
 * references the job holds (obj.h: a value is immutable while shared, a
 * write to it makes a new one), so expiry, eviction or a write elsewhere
 * never change what it reads; it does not drop them (the main thread
 * does, when it finishes the job).
 *
 * With tls-cluster (j->tls_wanted), as Redis 7.0's MIGRATE, the connection
 * is TLS: a session (tls.h) on the socket, made at connect and kept with
 * the cached connection. TLS sessions are main thread only, so such a job
 * runs on the main thread (migrate.c does not hand it to a worker), its
 * big values' payloads built in memory rather than streamed to the
 * socket. */
#ifndef VERSO_MIGRATE_IO_H
#define VERSO_MIGRATE_IO_H

#include <stddef.h>

#include "obj.h"
#include "tls.h"
#include "vbuf.h"

typedef struct mig_key {
    char *name;       /* the key's bytes (the job's copy) */
    size_t len;
    obj *val;         /* a reference the job holds; the worker only reads it */
    long long ttl;    /* ms left to live, 0: none */
    int stream;       /* a big value: its payload is streamed
                         (payload_stream.h), not built in memory */
    int acked;        /* out: the target answered its RESTORE with no error */
    int streamed;     /* out: its payload went streamed (the last try's) */
} mig_key;

/* How the job ended (the main thread turns it into Redis's reply). */
enum {
    MIG_OK = 0,
    MIG_ERR_CONNECT,  /* "IOERR error or timeout connecting to the client" */
    MIG_ERR_WRITE,    /* "IOERR error or timeout writing to target instance" */
    MIG_ERR_READ,     /* "IOERR error or timeout reading to target instance" */
    MIG_ERR_TARGET,   /* "ERR Target instance replied with error: <error>" */
};

typedef struct mig_job {
    /* in: filled by the main thread before mig_run; read-only after */
    char host[256], port[32];
    const char *restore;          /* "RESTORE" or "RESTORE-ASKING" */
    int replace;
    int compress;                 /* rdb_write_value's compress argument */
    const char *user, *pass;      /* AUTH2 user pass, AUTH pass; NULL: none */
    size_t user_len, pass_len;
    long long dbid;
    long timeout_ms;
    mig_key *keys;
    int nkeys;
    /* in and out: the connection (a cached one, or -1 to connect) and the
     * db it has selected (-1 unknown); after mig_run the connection to
     * keep, or -1 when it was closed */
    int fd;
    long long last_db;
    /* TLS (main thread only): wanted for a new connection; the session
     * on fd (a cached one's, or made at connect), kept with fd; the
     * plaintext read and not yet taken */
    int tls_wanted;
    tls_conn *tls;
    vbuf tls_in;
    /* out */
    int status;                   /* MIG_* */
    char error[512];              /* MIG_ERR_TARGET: the target's error
                                     line, without its '-' */
} mig_job;

/* Does the job (see above). Any thread; touches only j and what it points
 * to, reading the values. Fills j->status, j->error, each key's acked,
 * j->fd and j->last_db. */
void mig_run(mig_job *j);
/* Closes j's connection (its TLS session too): j->fd -1. */
void mig_close(mig_job *j);

#endif
