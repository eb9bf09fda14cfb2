/* hooks: how subsystems outside the core plug into it.
 *
 * The core (src/) runs commands, owns clients, databases and the loop; it
 * knows nothing of persistence or replication. A subsystem (snapshot/,
 * aof/, repl/), and a core module that needs the same points (pub/sub,
 * tracking, MONITOR...), fills one `hooks` struct with the callbacks it
 * needs (any may be NULL) and registers it once at startup; the core calls
 * every registered struct, in registration order, at the points named
 * below. Changes to the keyspace reach subsystems through the propagation
 * path (propagate.h), not through these hooks.
 *
 * The ways to register, all at startup unless said:
 *   hooks_register       this struct (with the command gates)
 *   cmd_register(_sub)   a subsystem's command rows (cmd.h), before cmd_init
 *   notify_register      keyspace-event consumers (notify.h: pubsub_init)
 *   conf_set_hook        the one CONFIG SET hook (server.c's, which calls
 *                        hooks_config_changed)
 *   snap_set_repl_info   the one source of what a save records of
 *                        replication (replica_init)
 *   prop_add(_data)      propagation consumers, at run time: the AOF's
 *                        while appendonly is on, replication's once its
 *                        backlog exists (propagate.h; each removes itself)
 *
 * The order (app/main.c, then server.c; each init registers, in order):
 *   server_setup:  crash_install  "crash": config_changed
 *                                 (crash-log-enabled)
 *                  pubsub_init    "pubsub": client_gate (subscribed
 *                                 context); notify_register
 *                  tracking_init  "tracking"
 *                  pause_init     "pause"
 *                  shutdown_init  "shutdown": cron, client_closed
 *                  lazyfree_init  "lazyfree": shutdown
 *                  rkeys_init     "replica keys": after_flush,
 *                                 dataset_replaced (replica_keys.h)
 *                  oom_score_init "oom score": config_changed
 *                                 (oom-score-adj, -values), role_changed
 *   route_init:    ASKING READONLY READWRITE; "cluster route":
 *                  client_gate (MOVED, ASK, CROSSSLOT, TRYAGAIN,
 *                  CLUSTERDOWN; cluster mode only), script_call_gate (a
 *                  script's keys of another node), cron (clients blocked
 *                  on keys whose slot left), after_command
 *   snap_init:     SAVE BGSAVE LASTSAVE DUMP RESTORE RESTORE-ASKING
 *                  FUNCTION DUMP/RESTORE MIGRATE;
 *                  "snapshot": write_gate (MISCONF, a failed save),
 *                  before_sleep and cron (the save queue starts what
 *                  waits: savequeue.h); "migrate": before_command (parks
 *                  a write that could touch a key a MIGRATE in flight
 *                  holds, until it ends: snapshot/migrate.c),
 *                  client_closed, cron (its cached connections), info
 *   aof_init:      BGREWRITEAOF; "aof": write_gate (MISCONF, a failed AOF
 *                  write), before_command (parks writes), reply_held
 *   repl_init:     PSYNC SYNC REPLCONF WAIT REPLICAOF SLAVEOF ROLE;
 *                  "replication", "replication (primary)": client_gate
 *                  (NOREPLICAS), "replica":
 *                  client_gate (READONLY, MASTERDOWN); snap_set_repl_info
 *   cluster_init:  CLUSTER (every mode); in cluster mode "cluster": cron
 *                  (gossip, failover, replicas at 10 Hz), before_sleep
 *                  (the to-do flags: state, nodes.conf saves), info,
 *                  shutdown (nodes.conf saved); "slotmig" (an export:
 *                  before_command parks the moving slots' writes at the
 *                  handoff, before_sleep, cron, client_closed) and
 *                  "slotmig-import" (before_command, after_command: the
 *                  import link's replies; reply_held: FINISH's; cron:
 *                  staged slots of an ended import; after_flush:
 *                  a flush fails the imports; client_closed)
 *                  (cluster/slotmig*.c); pubsub's cluster hook
 *                  (PUBLISH and SPUBLISH over the bus); INFO's
 *                  cluster_connections and mem_cluster_links
 *   server_setup_done: cmdstats_init "introspect" (cron), scriptl_init
 *                  "scripting": client_gate (BUSY), monitor_init
 *                  "monitor": client_gate, client_closed;
 *                  acl_register_commands: ACL; then cmd_init builds the
 *                  command lookup from every row registered; acl_init
 *                  "acl": config_changed (requirepass).
 * Where the order matters:
 *   - the gates: the first error wins (hooks_gates_error): every
 *     write_gate (snapshot's MISCONF, then the AOF's), then every
 *     client_gate: the subscribed context, the cluster's redirections,
 *     NOREPLICAS, READONLY and
 *     MASTERDOWN, BUSY, a monitor's "Replica can't interact with the
 *     keyspace". So the scripting and monitor register after repl/.
 *   - before_command: the first hook that parks a command (MIGRATE's,
 *     then the AOF's) stops the walk; the hooks after it see the command when it is
 *     resumed. Tracking's (which trims its table) runs before the AOF's.
 *   - the command rows: COMMAND, COMMAND INFO/DOCS/LIST and INFO
 *     commandstats list the core's table, then the cluster route's, the snapshot's, the AOF's,
 *     replication's and the ACL's rows; cmd_init must come after all of
 *     them.
 *   - shutdown: the lazyfree thread stops before the AOF flushes and the
 *     replica drops its master.
 * Elsewhere nothing is known to depend on the order; keep it.
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
    /* Whether write commands may run: NULL, or the whole error to answer
     * them with (MISCONF after a failed save or AOF write). Asked for
     * every write command except the master's (CLIENT_MASTER), before any
     * client_gate. */
    const char *(*write_gate)(void);
    /* Whether c may run d: NULL, or the whole error to answer (the
     * subscribed context, NOREPLICAS, READONLY, MASTERDOWN, BUSY, a
     * monitor touching keys). Asked for every command, after the write
     * gates; it must return at once when it does not apply (it is on every
     * command's path). */
    const char *(*client_gate)(const client *c, const cmd_def *d);
    /* A script's redis.call / redis.pcall of d with argc/argv, run for
     * caller (the client that sent EVAL or FCALL), after the client gates
     * passed: NULL, or the error text to raise without its "ERR " (the
     * cluster's "Script attempted to access a non local key in a cluster
     * node"). It must return at once when it does not apply. */
    const char *(*script_call_gate)(const client *caller, const cmd_def *d, int argc,
                                    const arg *argv);
    /* A command ran (cmd.c's stage 7). Never called for one refused by
     * the checks (arity, auth, OOM, a gate...): its arguments may not fit
     * its key specs, and it read and wrote nothing. */
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
     * save's queue): maxmemory does not count them (unless
     * maxmemory-include-save), as Redis does not count a fork child's
     * copy-on-write (doc/eviction.md). */
    size_t (*not_counted_memory)(void);
    /* Bytes of this subsystem's buffers of kind HOOKS_MEM_* (0 for a kind
     * it has none of): MEMORY STATS replication.backlog and aof.buffer,
     * both part of used_memory_overhead; under glibc used_memory adds
     * them too, its base being taken at startup (info.c). Main thread. */
    size_t (*buffer_memory)(int kind);
    /* ---- the server's role ---- */
    /* server.upstream changed (server_set_upstream): the server began or
     * stopped replicating a master (REPLICAOF, a failover, a cluster or
     * sentinel promotion). A replica that only changes master is no
     * change. */
    void (*role_changed)(void);
    /* ---- the operator's surface ---- */
    /* INFO: append this subsystem's fields to section `section` (lower
     * case, e.g. "persistence"), in INFO's "name:value\r\n" form. */
    void (*info)(const char *section, vbuf *b);
    /* CONFIG SET changed parameter `name` (conf_hook_fn's contract: 0, or
     * -1 with err to refuse; the values are then rolled back). */
    int (*config_changed)(const conf *old, const conf *now, const char *name, char *err,
                          size_t errlen);
    /* DEBUG RELOAD [NOSAVE] [NOFLUSH] [MERGE] (flags: HOOKS_RELOAD_*):
     * save the dataset (unless NOSAVE), empty the databases (unless
     * NOFLUSH) and load the file back (MERGE: its keys replace those
     * there). 0, or -1 with the whole error to answer. */
    int (*debug_reload)(int flags, char *err, size_t errlen);
    /* DEBUG LOADAOF: write out what the AOF buffers hold, empty the
     * databases and load the AOF back. 0, or -1 with the whole error. */
    int (*debug_loadaof)(char *err, size_t errlen);
    /* DEBUG CHANGE-REPL-ID: a new replication id, the second one cleared. */
    void (*debug_change_repl_id)(void);
    /* SHUTDOWN (without NOW) and SIGTERM, before the first step: 1 while
     * this subsystem wants the shutdown to wait, at most shutdown-timeout,
     * writes paused meanwhile (replicas behind the stream's end); `start`
     * is 1 on the first call, when it may ask for what it waits for
     * (REPLCONF GETACK). Asked again every cron tick. */
    int (*shutdown_wait)(int start);
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
/* The gates' verdict on c running d: when `writes`, every write_gate, then
 * every client_gate, each in registration order; the first error, or
 * NULL. */
const char *hooks_gates_error(const client *c, const cmd_def *d, int writes);
/* Every script_call_gate in registration order: the first error, or NULL. */
const char *hooks_script_call_error(const client *caller, const cmd_def *d, int argc,
                                    const arg *argv);
void hooks_client_closed(client *c);
void hooks_input_applied(client *c, const char *p, size_t n);
void hooks_before_flush(void);
void hooks_retire_table(vt *t);                          /* frees t if none keeps it */
int hooks_keep_retired_table(vt *t);                     /* 1: a subsystem took t */
void hooks_after_flush(int all);
void hooks_dataset_replaced(void);
void hooks_role_changed(void);
void hooks_info(const char *section, vbuf *b);
size_t hooks_not_counted_memory(void);                   /* sum over subsystems */
enum { HOOKS_MEM_BACKLOG, HOOKS_MEM_AOF };
size_t hooks_buffer_memory(int kind);                    /* sum over subsystems */
int hooks_config_changed(const conf *old, const conf *now, const char *name, char *err,
                         size_t errlen);
/* DEBUG RELOAD's options. */
enum { HOOKS_RELOAD_NOSAVE = 1, HOOKS_RELOAD_NOFLUSH = 2, HOOKS_RELOAD_MERGE = 4 };
/* The first subsystem's; 1 when none has the hook (the subcommand is then
 * answered an error). */
int hooks_debug_reload(int flags, char *err, size_t errlen);
int hooks_debug_loadaof(char *err, size_t errlen);
int hooks_debug_change_repl_id(void);
/* 1 when any subsystem wants the shutdown to wait (each is asked). */
int hooks_shutdown_wait(int start);
int hooks_prepare_shutdown(int nosave, int save, char *err, size_t errlen);
void hooks_shutdown(void);

#endif
