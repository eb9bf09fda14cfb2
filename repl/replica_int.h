/* replica_int: what replica.c (the link to the master), replica_info.c
 * (INFO, ROLE, the gates) and replica_load.c (a full sync's payload)
 * share; nothing else includes it.
 *
 * A payload is received on the main thread (replica.c reads the socket
 * without blocking and hands the bytes to payload_feed), which writes the
 * RDB bytes into a pipe; a loader thread reads the pipe and builds fresh
 * tables (restore_into_tables) while the main thread keeps serving the old
 * data; payload_swap puts the new tables in place on the main thread. The
 * bytes that follow the payload (the start of the master's stream) are
 * left to the caller. Main thread only, except the loader thread's own
 * fields (see replica_load.c). */
#ifndef VERSO_REPLICA_INT_H
#define VERSO_REPLICA_INT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "repl_int.h"

typedef struct rl_payload rl_payload;

/* The load ended (main thread): ok 1 when every byte arrived and the
 * loader built the tables (the caller then calls payload_swap), ok 0 with
 * why (the caller drops the link; the payload frees itself). */
typedef void rl_done_fn(int ok, const char *why);
/* The pipe drained below its limit: the caller may read the socket again. */
typedef void rl_resume_fn(void);

/* Starts receiving a payload: mark (40 bytes) for "$EOF:<mark>", else
 * NULL and len for "$<len>". Starts the loader thread. NULL with err. */
rl_payload *payload_start(const char *mark, long long len, rl_done_fn *done,
                          rl_resume_fn *resume, char *err, size_t errlen);
/* Bytes read from the master: returns how many belong to the payload
 * (the rest is the master's stream); *complete is set to 1 when the
 * payload ended with these bytes. Never calls done: once the caller has
 * consumed the bytes, payload_settle reports a load already over. */
size_t payload_feed(rl_payload *p, const char *buf, size_t n, int *complete);
void payload_settle(rl_payload *p);
/* 1 while the pipe holds too many bytes: stop reading until resume. */
int payload_full(const rl_payload *p);
/* After done(1): every database's table is replaced by the loaded one (the
 * old ones freed in the background); frees p. Returns the payload's
 * repl-stream-db (the database the stream goes on in), -1 when absent. */
int payload_swap(rl_payload *p);
/* Gives up (the link dropped, REPLICAOF): the loader is stopped, what it
 * built freed; p frees itself later. Not after done. */
void payload_cancel(rl_payload *p);
/* INFO master_sync_*: the payload's size (-1: EOF-marked, unknown), the
 * bytes received, and whether the loader is still loading after the last
 * byte arrived. */
long long payload_total(const rl_payload *p);
long long payload_received(const rl_payload *p);
int payload_complete(const rl_payload *p);

/* ---- replica.c: the link's state (read by replica_info.c) ---- */
/* RC_*: this replica's connection to its primary (Redis's repl_state,
 * folded); the primary's view of each of its replicas is RS_* in
 * repl_int.h. HS_*: the handshake steps. */
enum {
    RC_NONE = 0,    /* not a replica */
    RC_CONNECT,     /* must connect (retried every second) */
    RC_CONNECTING,  /* resolving or connecting */
    RC_HANDSHAKE,   /* PING ... PSYNC */
    RC_TRANSFER,    /* receiving (or loading) the payload */
    RC_CONNECTED,   /* the master client runs the stream */
};
enum { HS_PONG = 1, HS_AUTH, HS_PORT, HS_IP, HS_CAPA, HS_PSYNC, HS_BULK, HS_PAYLOAD };

typedef struct replica_state {
    int state;               /* RC_* */
    char *host;
    int port;
    int have_history;        /* PSYNC R.replid R.offset+1 (else ? -1) */
    uint64_t gen;            /* bumped by each new attempt: stale callbacks */
    /* the link until it becomes the master client */
    int fd;
    uv_poll_t *poll;
    int poll_events;         /* what RP.poll watches now */
    int poll_want;           /* what the state machine asked for (watch):
                                UV_WRITABLE is added while tls has unsent
                                ciphertext */
    struct tls_conn *tls;    /* tls-replication: the session on fd (tls.h),
                                handed to the master client with fd */
    uv_getaddrinfo_t *gai;
    int hs;                  /* HS_*: the handshake step */
    vbuf in;                 /* bytes read, not consumed */
    int64_t last_io_ms;      /* mono ms of the last byte from the master */
    int64_t last_try_ms;     /* mono ms of the last connection attempt */
    int64_t last_nl_ms;      /* mono ms of the last "\n" sent while loading */
    time_t down_since;       /* unix s the link went down (0: never up) */
    /* a full sync */
    char sync_id[REPL_ID_LEN + 1];
    long long sync_offset;
    rl_payload *payload;
    /* the master client */
    client *master;
    int ack_now;             /* GETACK in the running request */
    int64_t last_ack_ms;
    vbuf multi;              /* a transaction's bytes until its EXEC ran */
    int master_db;           /* the master client's database when the link
                                dropped: a +CONTINUE stream goes on in it */
    int adopt_pending;       /* replicaof from the config: take the loaded
                                snapshot's history at the first cron tick */
} replica_state;
/* main thread only */
extern replica_state RP;


/* replica_info.c: READONLY and MASTERDOWN (replica_hooks' client_gate). */
const char *replica_gate(const client *c, const cmd_def *d);

#endif
