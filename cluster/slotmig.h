/* slotmig: atomic slot migration without fork (Valkey 9.0's CLUSTER
 * MIGRATESLOTS, GETSLOTMIGRATIONS, CANCELSLOTMIGRATIONS), inside cluster/.
 *
 * Who owns what:
 *   slotmig.c      the jobs' log (both directions: what GETSLOTMIGRATIONS
 *                  lists)
 *   slotmig_cmd.c  the three user commands
 *   slotmig_src.c  the source's side (EXPORT): the link to the target's
 *                  client port, the forkless save restricted to the slots
 *                  (savequeue.h's SNAP_TO_SLOTS) streamed into it as
 *                  commands, the writes to the slots after the cut
 *                  (buffered from the propagation path, then live), the
 *                  pause of those slots' writes, the handoff
 *   slotmig_dst.c  the target's side (IMPORT): CLUSTER SYNCSLOTS, the
 *                  import link's commands applied to slots this node does
 *                  not own yet (no client can reach them: -MOVED), the
 *                  ownership taken at FINISH, the slots' keys dropped on
 *                  failure
 *
 * The protocol, source -> target on one connection to the target's client
 * port (the replies the source reads are marked <-):
 *   [AUTH masteruser masterauth]                  <- +OK
 *   CLUSTER SYNCSLOTS ESTABLISH name source-id start end [start end ...]
 *                                                 <- +OK, or an error
 *   the slots' keys at the cut, then every write to them after it, as
 *   commands (SELECT 0 first); the target sends no reply to them: at the
 *   first error one of them gets, it fails the import, sends that error
 *   and closes the link; among them, once the snapshot is sent, one at
 *   a time:
 *   CLUSTER SYNCSLOTS PING                        <- +PONG: what came
 *                                                    before it is applied
 *   CLUSTER SYNCSLOTS FINISH name                 <- +OK once the target
 *                                                    owns the slots (a new
 *                                                    config epoch, broadcast)
 * A link closed before FINISH's +OK (or CLUSTER SYNCSLOTS ABORT name)
 * fails the import: the target drops what it loaded of those slots.
 * The target tells its replicas and its AOF, around the import's writes:
 *   CLUSTER SYNCSLOTS STAGE start end [...]       the slots are loading
 *   CLUSTER SYNCSLOTS UNSTAGE start end [...]     owned, or dropped
 *
 * Main thread only. */
#ifndef VERSO_CLUSTER_SLOTMIG_H
#define VERSO_CLUSTER_SLOTMIG_H

#include <stdint.h>

#include "cluster_int.h"

enum sm_op { SM_EXPORT, SM_IMPORT };

/* A job's state; the last three are terminal (GETSLOTMIGRATIONS's names in
 * sm_state_name). */
enum sm_state {
    SM_CONNECTING,       /* source: connecting, authenticating, ESTABLISH */
    SM_WAITING_SAVE,     /* source: the save waits in the save queue */
    SM_SNAPSHOT,         /* source: the save streams; target: loading */
    SM_STREAMING,        /* source: the buffered and live writes */
    SM_PAUSED,           /* source: the slots' writes paused, FINISH sent */
    SM_SUCCESS,
    SM_FAILED,
    SM_CANCELLED,
};

typedef struct sm_job {
    char name[CL_NAMELEN];           /* 40 hex characters, no NUL */
    int op;                          /* enum sm_op */
    int state;                       /* enum sm_state */
    uint8_t slots[KEYSLOT_COUNT / 8];/* the slots moved */
    char source[CL_NAMELEN];         /* the source primary's name */
    char target[CL_NAMELEN];         /* the target primary's name */
    long long create_time;           /* unix s */
    long long last_update_time;      /* unix s: the state last changed */
    long long last_ack_time;         /* unix s: the peer last heard */
    char message[256];               /* "" or why (failed, cancelled) */
    uint64_t keys;                   /* keys sent / received at the cut */
    uint64_t bytes;                  /* bytes sent / received */
    long long pause_us;              /* source: the write pause at the handoff */
    void *priv;                      /* the side's own state (NULL once ended) */
    struct sm_job *next;             /* the log, newest first */
} sm_job;

/* ---- slotmig.c: the log ---- */

/* A new job in the log (state SM_CONNECTING), its name random when name
 * is NULL. Never NULL. Old ended jobs beyond the log's length are freed. */
sm_job *sm_job_new(int op, const char *name, const uint8_t *slots);
/* The job named name (40 characters) in direction op, or NULL. */
sm_job *sm_job_find(int op, const char *name);
/* Sets the state (and message, when msg is not NULL) and its time. */
void sm_job_set_state(sm_job *j, int state, const char *msg);
int sm_job_active(const sm_job *j);
/* The first job in the log (newest first; sm_job.next for the others). */
sm_job *sm_jobs(void);
const char *sm_state_name(int state);
/* 1 when slot is in the set. */
static inline int sm_has_slot(const uint8_t *set, unsigned slot) {
    return (set[slot >> 3] >> (slot & 7)) & 1;
}
static inline void sm_add_slot(uint8_t *set, unsigned slot) {
    set[slot >> 3] |= (uint8_t)(1u << (slot & 7));
}
/* "0-10 20-30" for the set (GETSLOTMIGRATIONS' slot_ranges); buf of cap. */
void sm_slots_text(const uint8_t *set, char *buf, size_t cap);

/* Key names copied out of a slot's walk (db_slot_keys forbids changes
 * during it): db_slot_keys(d, slot, max, sm_keys_add, &batch), max at most
 * SM_KEYS_MAX - batch.n; sm_keys_free frees the names (all at once: they
 * live in the batch's blocks). Start from {.n = 0} or zeroed memory. */
#define SM_KEYS_MAX 256
typedef struct sm_keys_block sm_keys_block;
typedef struct sm_keys {
    char *keys[SM_KEYS_MAX];
    size_t lens[SM_KEYS_MAX];
    size_t n;
    sm_keys_block *blocks;    /* where the names are, newest first */
    char *at;                 /* the free part of the newest block */
    size_t room;
} sm_keys;
void sm_keys_add(void *priv, const char *key, size_t len);
void sm_keys_free(sm_keys *kb);

/* Parses "start end [start end ...]" at argv[first..argc) into slots
 * (zeroed first); 0, or -1 with the error replied. */
int sm_parse_ranges(client *c, int first, uint8_t *slots);

/* The keys of slots (KEYSLOT_COUNT bits) are deleted a batch per loop
 * iteration (sm_drop_step), each DEL propagated, except while the slot is
 * this node's or an import brings it. */
void sm_drop_keys(const uint8_t *slots);
void sm_drop_step(void);
/* 1 while slot's keys wait to be dropped. */
int sm_dropping(unsigned slot);
/* Marks slots staged (on) or not: an import loads their keys. propagate:
 * the mark goes to the replicas and the AOF as CLUSTER SYNCSLOTS STAGE or
 * UNSTAGE (the import's primary; its replicas and the AOF's replay apply
 * it without). */
void sm_stage(const uint8_t *slots, int on, int propagate);
/* On a primary: drops the keys of staged slots no active import brings
 * and that this node does not own, unstages those it owns (cron). */
void sm_staged_cron(void);

/* Registers the commands and both sides (cluster_init, cluster mode only). */
void slotmig_init(void);

/* ---- slotmig_cmd.c: the rows' procs (cmd_cluster_table.c) ---- */
void sm_cmd_migrateslots(client *c);
void sm_cmd_getslotmigrations(client *c);
void sm_cmd_cancelslotmigrations(client *c);

/* ---- slotmig_src.c ---- */
void sm_src_init(void);
/* Starts an export of slots to target (checked by the caller: a known
 * primary other than myself; every slot mine). 0, or -1 with err. */
int sm_src_start(const uint8_t *slots, cluster_node *target, char *err, size_t errlen);
/* Cancels the job (an active export): the source keeps everything. */
void sm_src_cancel(sm_job *j, const char *why);

/* ---- slotmig_dst.c ---- */
/* Registers the import link's hooks. */
void sm_dst_init(void);
/* CLUSTER SYNCSLOTS (the row's proc). */
void sm_cmd_syncslots(client *c);
/* cluster.h's cluster_import_link: 1 when c is an active import's link. */

#endif
