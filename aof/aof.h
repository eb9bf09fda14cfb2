/* aof: the append-only file, main-thread side.
 *
 * Every executed write command reaches aof_feed (a consumer of the core's
 * propagation path, propagate.h, while appendonly is on) and is appended, as it must be replayed, to a buffer that is handed
 * to the AOF writer thread (writer.h) once per loop iteration. The main
 * thread never calls write() or fsync() on the AOF.
 *
 * appendfsync always: a client's replies are held from its first write
 * command until the writer reports that the command's bytes are fsynced;
 * a command that touches a key whose latest write is still in flight (a
 * small set of key hashes, cleared as fsyncs complete; the keys are those
 * of the commands aof_feed logged, in flight from the end of their batch)
 * is held the same way, and so are keyless reads (KEYS, SCAN, DBSIZE...)
 * and scripts (they may read undeclared keys) while any write is in
 * flight. Every other read is answered at once. Replies on one connection
 * stay in order.
 *
 * Backlog limit: when the bytes handed over but not yet written pass
 * aof-max-backlog, write commands (and scripts that may write: EVAL,
 * EVALSHA, FCALL) are parked (the client stops being read until resumed),
 * smallest payload first with aging; reads are never parked.
 *
 * BGREWRITEAOF is forkless: at epoch E appends switch to a new INCR file,
 * the snapshot serializer writes the new BASE at E, then the manifest is
 * swapped atomically and the old files are deleted. Main thread only. */
#ifndef VERSO_AOF_H
#define VERSO_AOF_H

#include <stddef.h>
#include <stdint.h>

#include "cmd.h"
#include "server.h"
#include "vbuf.h"

/* Sets the AOF module up and registers its hooks with the core (after
 * the snapshot module's). */
void aof_init(void);
/* Registers BGREWRITEAOF with the command table (aof_cmd.c; cmd_register:
 * before cmd_init). aof_init calls it; a test that runs commands without
 * the AOF's start calls it itself. */
void aof_register_commands(void);
/* Startup: when appendonly is on and a manifest exists (or a Redis 6
 * single-file AOF was just moved into the AOF directory, upgrade.h), load
 * it: 0 loaded, 1 nothing to load (the caller restores the RDB snapshot),
 * -1 with err. */
int aof_load_startup(char *err, size_t errlen);
/* Startup, after loading: open the AOF for appending when appendonly is on
 * (creating the directory, a new INCR file and, when there was no AOF, a
 * base through a rewrite). 0 or -1 with err. */
int aof_open_startup(char *err, size_t errlen);

/* The hooks the AOF registers (hooks.h). aof_before_command returns 1 when
 * the command must be parked (not run now). */
int aof_before_command(client *c, const cmd_def *d);
void aof_after_command(client *c, const cmd_def *d);
/* reply_held (net.c asks it through hooks_reply_held): 1 while c's replies
 * must wait for an fsync. */
int aof_reply_held(const client *c);
void aof_client_closed(client *c);

/* Once per loop iteration: hand the buffer to the writer. */
void aof_before_sleep(void);
void aof_cron(void);

/* BGREWRITEAOF. 0 started, 1 scheduled, -1 with err. */
int aof_rewrite(char *err, size_t errlen);
/* CONFIG SET appendonly / appendfsync. 0 or -1 with err. */
int aof_set_enabled(int on, char *err, size_t errlen);
void aof_set_fsync(int policy);
/* SHUTDOWN: write and fsync everything, stop the writer. */
void aof_shutdown(void);
void aof_info(vbuf *b);

#endif
