/* snap: snapshots of the keyspace: forkless BGSAVE on the versioned table,
 * fork BGSAVE beside it, SAVE, save points, restore on startup, and the
 * persistence figures of INFO.
 *
 * The main-thread side of every save lives here; which save runs when is
 * the save queue's (savequeue.h: the AOF's base and the full sync's
 * payload are requests there too); the forkless serializer thread is in
 * serializer.c, the fork child in forksave.c. See doc/design.md for the
 * protocol. Main thread only unless stated.
 *
 * FLUSHALL/FLUSHDB (the before_flush hook) abort a running file save or
 * AOF base cleanly (not a failure; a replication save goes on). A forkless
 * save whose thread has already finished but whose completion has not run
 * yet counts as aborted too (no success recorded; an AOF base it renamed
 * into place is removed, the rewrite is told status 1). */
#ifndef VERSO_SNAP_H
#define VERSO_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "vbuf.h"
#include "vt.h"
#include "rdb.h"
#include "savequeue.h"

#define SNAP_ERRLEN 512

/* Sets the snapshot module up and registers its hooks with the core. */
void snap_init(void);
/* Registers the snapshot's commands with the command table (cmd_register:
 * before cmd_init): SAVE, BGSAVE, LASTSAVE (snap_cmd.c), DUMP, RESTORE
 * (dump_cmd.c), FUNCTION DUMP and RESTORE (function_cmd.c). snap_init
 * calls it; a test that runs commands without the snapshot's start calls
 * it itself. */
void snap_register_commands(void);
/* Restores the snapshot at startup (cfg.dir/cfg.dbfilename). 0 (also when
 * there is no file), -1 with err naming file, offset and reason. */
int snap_load_startup(char *err, size_t errlen);

/* The rdb_writer_open flags of a save, from the config: the LZ4 frame with
 * snapshot-compression lz4 (and then no per-string LZF: compressing twice
 * costs CPU for next to nothing), else LZF strings with rdbcompression yes,
 * as Redis; RDB_NO_CHECKSUM with rdbchecksum no. An AOF base (aof_base 1)
 * is never LZ4, so that redis-check-aof and redis-server read it. */
int snap_rdb_flags(int aof_base);
/* BGSAVE: the file's request (cfg.dbfilename, cfg.bgsave_method) submitted
 * to the save queue: started now, or with `schedule` (BGSAVE SCHEDULE)
 * waiting in the queue while a save runs. 0 started, 1 scheduled, -1 with
 * the error to send (snap_submit). An AOF base and a replication payload
 * are other targets of the same queue (savequeue.h); a replication
 * payload is a plain RDB (LZF strings by rdbcompression, never LZ4:
 * replicas may be redis-server). */
int snap_bgsave(int schedule, char *err, size_t errlen);
/* The replication history a snapshot records (its repl-id, repl-offset and
 * repl-stream-db AUX fields): fn fills it and sets ->set, or leaves it
 * unset (nothing to record). Registered by repl/ at startup. Not used for
 * an AOF base. */
typedef void (*snap_repl_info_fn)(rdb_repl_aux *out);
void snap_set_repl_info(snap_repl_info_fn fn);
/* The slots an atomic slot import is loading (staged: cluster/slotmig.c),
 * recorded by every save at its cut as the AUX field verso-staged-slots
 * and given back after a load, so that a node restarted from the file, or
 * a replica that synced in the middle of an import, knows which keys an
 * ended import left. Registered by the cluster at startup; main thread. */
typedef struct snap_staged_fns {
    char *(*text)(void);                 /* "a-b,c-d" (malloc'd) or NULL */
    void (*loaded)(const uint8_t *set);  /* the file's set, NULL: none */
} snap_staged_fns;
void snap_set_staged(const snap_staged_fns *fns);
/* After a load into the databases (startup, DEBUG RELOAD, a replica's
 * full sync): the file's staged slots replace the node's. */
void snap_loaded_staged(const rdb_load_stats *st);
/* What the snapshot loaded at startup recorded: 1 and *out filled, or 0. */
int snap_loaded_repl_info(rdb_repl_aux *out);
/* SAVE: a synchronous save on the main thread (blocks clients, as Redis);
 * refused while a background save runs. */
int snap_save_sync(char *err, size_t errlen);
/* 1 while a background save runs (tests; subsystems are called back by
 * the queue instead of asking). */
int snap_in_progress(void);
/* FLUSHALL with save points: save the empty dataset at once, as Redis does,
 * so that a restart cannot bring the flushed keys back. */
void snap_after_flushall(void);
/* A table that FLUSHDB/FLUSHALL replaced: 1 when a running forkless save
 * still reads it (it is freed once the save has ended), 0 when the caller
 * frees it now. */
int snap_keep_retired_table(vt *t);
/* Save points, child reaping, progress and the queue's waiting requests;
 * called by the server cron. */
void snap_cron(void);
/* Shutdown: wait for/abort a running save, then save when `save` (or when
 * save points exist and !nosave). 0, or -1 with err. */
int snap_shutdown(int nosave, int save, char *err, size_t errlen);
/* INFO persistence (the snapshot part). */
void snap_info(vbuf *b);
/* Allocator bytes of the keys and values a running forkless save holds in
 * its queue (handed over by the main thread, not written yet): memory that
 * (but for a value the table still shares) only the save keeps alive. 0
 * when no forkless save runs. Main thread. */
size_t snap_retained_bytes(void);
int64_t snap_lastsave(void);

#endif
