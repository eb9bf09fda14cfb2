/* savequeue: the one queue of background saves. Every subsystem that wants
 * a snapshot written in the background (BGSAVE and save points here, the
 * AOF rewrite's base in aof/, a full sync's payload in repl/) submits a
 * request; one save runs at a time; a request that cannot start waits in
 * the queue and the queue starts it once nothing runs and it is ready;
 * when a save ends, one place (snapq_ended) calls its requester back. The
 * order, and who is called back when, are in doc/design.md ("The save
 * queue"). Main thread only.
 *
 * A request names its target (what the save writes: its kind, and what
 * its owner fills in at the instant it starts), gets its method (forkless
 * or fork: cfg.bgsave_method, where the kind allows a fork) from the queue,
 * and its done callback. It is the owner's storage (usually static), linked
 * into the queue while it waits: the queue allocates nothing. */
#ifndef VERSO_SAVEQUEUE_H
#define VERSO_SAVEQUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "rdb.h"

/* What a save writes, in the queue's order: a waiting request of a lower
 * kind starts first. */
enum snap_kind {
    SNAP_TO_REPLICAS = 0, /* a full sync's payload into a sink (repl/fullsync.c) */
    SNAP_TO_AOF_BASE,     /* an AOF rewrite's base file (aof/aof.c) */
    SNAP_TO_FILE,         /* cfg.dbfilename: BGSAVE [SCHEDULE], save points */
    SNAP_TO_SLOTS,        /* a set of cluster slots' keys, as commands, into
                             a sink (cluster/slotmig_src.c): forkless only */
    SNAP_NKINDS
};

/* How a save runs (also snap.h's INFO types). */
enum { SNAP_NONE = 0, SNAP_FORKLESS = 1, SNAP_FORK = 2 };

/* A save's target, as the queue hands it to the request's begin callback at
 * the instant the save starts: kind and method are set, the owner fills
 * the member of its kind (SNAP_TO_FILE has none: cfg.dbfilename). */
typedef struct snap_target {
    int kind;
    int method;                       /* SNAP_FORKLESS or SNAP_FORK */
    union {
        struct {                      /* SNAP_TO_AOF_BASE */
            char tmp[4096];           /* written first, renamed to path */
            char path[4096];
            rdb_cmds_fn cmds;         /* NULL: an RDB preamble; else the
                                         commands it writes (rdb.h) */
        } aof;
        struct {                      /* SNAP_TO_REPLICAS */
            sink *out;                /* the owner's: a fan-out to replica
                                         sockets or a temp file; the save
                                         writes it until done is called */
            rdb_repl_aux repl;        /* repl-stream-db, repl-id, repl-offset */
            int functions_only;       /* REPLCONF rdb-filter-only functions:
                                         the libraries, no keys (always
                                         forkless: nothing to fork for) */
        } replicas;
        struct {                      /* SNAP_TO_SLOTS */
            sink *out;                /* the owner's: a fan-out with the
                                         target node's socket */
            const uint8_t *set;       /* KEYSLOT_COUNT bits: the slots whose
                                         keys (db 0's) are written; the
                                         owner's, unchanged until done */
            rdb_cmds_fn cmds;         /* how a key is written as commands */
        } slots;
    } u;
} snap_target;

/* What done is told. */
typedef struct snap_result {
    int started;          /* 0: it never ran (begin or the start failed) */
    int status;           /* 0 ok, -1 failed, 1 aborted */
    const char *err;      /* why, when status != 0 (valid during done) */
    int method;           /* SNAP_FORKLESS or SNAP_FORK */
    uint64_t bytes;       /* forkless: bytes written (file or sink); fork: 0 */
    uint64_t keys;        /* keys written */
    int64_t duration_us;  /* forkless: the thread's time */
    size_t peak_extra;    /* forkless: peak of the retained pre-images */
} snap_result;

typedef struct snap_req snap_req;
struct snap_req {
    int kind;             /* enum snap_kind */
    /* NULL, or 1 when the request may start now. Asked only for a request
     * waiting in the queue, when no save runs: before the loop sleeps and
     * from the cron (a start condition such as a delay or a drained
     * socket). */
    int (*ready)(void *priv);
    /* NULL, or called at the instant the save starts, on the main thread
     * between two commands: fills the target (t->kind and t->method are
     * set). 0, or -1 with err (the save does not start). */
    int (*begin)(void *priv, snap_target *t, char *err, size_t errlen);
    /* Called once for every request whose begin was called: when its save
     * ended, or at once when begin or the start failed (started 0). The
     * next save starts after it returns (never from inside it). */
    void (*done)(void *priv, const snap_result *r);
    void *priv;           /* as the request was when its save started */
    /* the queue's */
    snap_req *next;
    int queued;
};

/* How snap_submit treats a request that cannot start at once. */
enum snap_when {
    SNAP_NOW,             /* start now, or fail with the busy error */
    SNAP_NOW_OR_QUEUE,    /* start now, else wait in the queue */
    SNAP_QUEUE            /* wait in the queue even when nothing runs: the
                             queue starts it before the loop sleeps, when
                             ready says so */
};
/* 0 started; 1 waits in the queue (also when it already did); -1 with err
 * to send a client: refused (SNAP_NOW while a save runs: "ERR Background
 * save already in progress", or for a BGSAVE while an AOF base is being
 * written, Redis's "ERR An AOF log rewriting in progress..."), or it could
 * not start (then done has run, with started 0). Starting now ignores
 * ready. From inside a begin or done callback nothing starts: the request
 * waits (SNAP_NOW is refused). */
int snap_submit(snap_req *r, int when, char *err, size_t errlen);
/* Takes r out of the queue, if it waits there (a running save goes on). */
void snap_withdraw(snap_req *r);
/* Takes r out of the queue and, if its save runs, aborts it (done then
 * comes with status 1). */
void snap_cancel(snap_req *r, const char *why);
/* 1 while r waits in the queue. */
int snap_queued(const snap_req *r);

/* ---- snapshot/ only: between the queue and snap.c, which runs saves ---- */

/* The busy error (see snap_submit) for `asking`, NULL for SAVE. -1. */
int snapq_refuse(const snap_req *asking, char *err, size_t errlen);
/* Starts the first ready request waiting, when nothing runs (the
 * snapshot module's before_sleep and cron). */
void snapq_run_next(void);
/* The running save ended (snap.c, once for each save snap_run started):
 * calls its requester back. */
void snapq_ended(const snap_result *r);
/* The running save's kind, or -1. */
int snapq_running_kind(void);
/* Per kind: whether cfg.bgsave_method may fork it; whether FLUSHALL and
 * FLUSHDB abort it; whether INFO counts it as a BGSAVE
 * (rdb_bgsave_in_progress, rdb_last_bgsave_time_sec, rdb_last_save_keys);
 * its name in the log. */
typedef struct snap_kind_info {
    const char *name;
    int may_fork;
    int flush_aborts;
    int is_bgsave;
} snap_kind_info;
const snap_kind_info *snapq_kind(int kind);

/* snap.c: starts the save of t (kind and method set). 0, or -1 with err. */
int snap_run(const snap_target *t, char *err, size_t errlen);
/* snap.c: asks the running save to stop; it ends as aborted. */
void snap_run_abort(const char *why);

#endif
