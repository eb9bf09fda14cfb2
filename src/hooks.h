/* hooks: how subsystems outside the core plug into it.
 *
 * The core (src/) runs commands, owns clients, databases and the loop; it
 * knows nothing of persistence or replication. A subsystem (snapshot/,
 * aof/, repl/) fills one `hooks` struct with
 * the callbacks it needs (any may be NULL) and registers it once at
 * startup; the core calls every registered struct, in registration order,
 * at the points named below. Changes to the keyspace reach subsystems
 * through the propagation path (propagate.h), not through these hooks.
 *
 * Main thread only: every hook runs on the loop thread, and registration
 * happens before the loop starts. */
#ifndef VERSO_HOOKS_H
#define VERSO_HOOKS_H

#include <stddef.h>

#include "server.h"

typedef struct hooks {
    const char *name;
    /* ---- the loop ---- */
    /* Every cron tick (cfg.hz). */
    void (*cron)(void);
    /* Once per loop iteration, before replies are flushed to clients. */
    void (*before_sleep)(void);
    /* ---- commands and clients ---- */
    /* A command is about to run: return 1 to park it (it is not run now;
     * the client stops being read until the subsystem resumes it). */
    int (*before_command)(client *c, const cmd_def *d);
    /* A command ran (or was refused before running). */
    void (*after_command)(client *c, const cmd_def *d);
    /* 1 while c's replies must not be sent yet; the subsystem calls
     * net_want_write(c) when they may go. */
    int (*reply_held)(const client *c);
    void (*client_closed)(client *c);
    /* A CLIENT_MASTER client consumed one whole request (n bytes at p, as
     * it came off the wire: run, queued by MULTI, or refused), in order:
     * a replica counts its offset and proxies the master's stream. */
    void (*input_applied)(client *c, const char *p, size_t n);
    /* ---- the keyspace ---- */
    /* Databases are about to be emptied (FLUSHDB, FLUSHALL). */
    void (*before_flush)(void);
    /* A table that a flush replaced: return 1 to take it over (the
     * subsystem frees it later with vt_free), 0 to let the core free it. */
    int (*keep_retired_table)(vt *t);
    /* FLUSHDB (all = 0) or FLUSHALL (all = 1) has emptied databases. */
    void (*after_flush)(int all);
    /* Every database was replaced wholesale (a replica loaded its master's
     * snapshot): what was logged or saved before no longer describes it
     * (the AOF starts a rewrite). */
    void (*dataset_replaced)(void);
    /* Bytes of keys and values the subsystem alone keeps alive (a forkless
     * save's queue): maxmemory does not count them, as Redis does not count
     * a fork child's copy-on-write (doc/eviction.md). */
    size_t (*not_counted_memory)(void);
    /* ---- the operator's surface ---- */
    /* INFO: append this subsystem's fields to section `section` (lower
     * case, e.g. "persistence"), in INFO's "name:value\r\n" form. */
    void (*info)(const char *section, vbuf *b);
    /* CONFIG SET changed parameter `name` (conf_hook_fn's contract: 0, or
     * -1 with err to refuse; the values are then rolled back). */
    int (*config_changed)(const conf *old, const conf *now, const char *name, char *err,
                          size_t errlen);
    /* SHUTDOWN, first step: save what must be saved. 0, or -1 with err
     * (the shutdown stops unless forced). */
    int (*prepare_shutdown)(int nosave, int save, char *err, size_t errlen);
    /* SHUTDOWN, last step before exit: flush and stop. */
    void (*shutdown)(void);
} hooks;

/* Registers h (kept by pointer: it must outlive the server). */
void hooks_register(const hooks *h);

/* The core's calls: each runs the hook of every registered subsystem. */
void hooks_cron(void);
void hooks_before_sleep(void);
int hooks_before_command(client *c, const cmd_def *d);  /* 1: parked */
void hooks_after_command(client *c, const cmd_def *d);
int hooks_reply_held(const client *c);                   /* 1: any holds */
void hooks_client_closed(client *c);
void hooks_input_applied(client *c, const char *p, size_t n);
void hooks_before_flush(void);
void hooks_retire_table(vt *t);                          /* frees t if none keeps it */
int hooks_keep_retired_table(vt *t);                     /* 1: a subsystem took t */
void hooks_after_flush(int all);
void hooks_dataset_replaced(void);
void hooks_info(const char *section, vbuf *b);
size_t hooks_not_counted_memory(void);                   /* sum over subsystems */
int hooks_config_changed(const conf *old, const conf *now, const char *name, char *err,
                         size_t errlen);
int hooks_prepare_shutdown(int nosave, int save, char *err, size_t errlen);
void hooks_shutdown(void);

#endif
