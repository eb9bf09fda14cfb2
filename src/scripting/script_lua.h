/* script_lua: the Lua 5.1 engine that EVAL (cmd_script.c) and FUNCTION
 * (function_lua.c) run scripts with, as Redis 7.0's script_lua.c + script.c.
 *
 * What it owns:
 * - sandboxed states (scriptl_state_new): the libraries Redis loads (base
 *   without print/dofile/loadfile, table, string, math with Redis's
 *   deterministic math.random, cjson, bit, cmsgpack, struct; no os, io,
 *   package, debug), the `redis` table (call, pcall, error_reply,
 *   status_reply, sha1hex, log, setresp, set_repl, replicate_commands,
 *   breakpoint, debug, acl_check_cmd, REDIS_VERSION...), the error handler
 *   that adds "script: <name>, on <source>:<line>." to errors, and the
 *   readonly globals of 7.0 (scriptl_protect_globals);
 * - running one Lua function for a client (scriptl_call): KEYS/ARGV,
 *   redis.call through a fake client (CLIENT_SCRIPT) and cmd_call, so the
 *   writes propagate inside the caller's batch (MULTI ... EXEC, see
 *   propagate.h), the reply converted to RESP (2 or 3), busy handling;
 * - the busy state: after busy-reply-threshold ms a count hook serves the
 *   other clients (they get -BUSY except for allow-busy commands: SCRIPT
 *   KILL, FUNCTION KILL, SHUTDOWN NOSAVE...) and checks for a kill.
 *
 * Threads and lifetimes: main thread only, everything. A lua_State lives from
 * scriptl_state_new until scriptl_state_free (its owner: the EVAL cache, or
 * the FUNCTION library set). The run context (scriptl_run) lives on the C
 * stack of scriptl_call: only one script runs at a time (script_lua.c's
 * `cur`; scriptl_running() is 0 outside a run). The fake client is created at
 * the first run and lives until exit. Nothing here is touched by another
 * thread; the loop is not re-entered (the count hook reads sockets itself and
 * flushes replies with net.c, it never calls uv_run), so neither cron nor a
 * save can start inside a script: a forkless save's cut falls before or after
 * a script, never within it. */
#ifndef VERSO_SCRIPT_LUA_H
#define VERSO_SCRIPT_LUA_H

#include <stddef.h>
#include <stdint.h>

#include "lua.h"
#include "server.h"

/* Script flags, Redis 7.0's SCRIPT_FLAG_* (shebang "flags=" for EVAL,
 * `flags` of redis.register_function for FUNCTION). */
enum {
    SCRIPT_FLAG_NO_WRITES = 1 << 0,
    SCRIPT_FLAG_ALLOW_OOM = 1 << 1,
    SCRIPT_FLAG_ALLOW_STALE = 1 << 2,
    SCRIPT_FLAG_NO_CLUSTER = 1 << 3,
    SCRIPT_FLAG_EVAL_COMPAT_MODE = 1 << 4, /* EVAL without a shebang */
    SCRIPT_FLAG_ALLOW_CROSS_SLOT = 1 << 5,
};
/* The flag a name stands for ("no-writes", "allow-oom", "allow-stale",
 * "no-cluster", "allow-cross-slot-keys"), 0 when none. */
int scriptl_flag_by_name(const char *name, size_t len);
/* Redis's scriptFlagsToCmdFlags: a command's flags (CMD_*) with write,
 * deny-oom and stale as the script's flags (SCRIPT_FLAG_*) say (write
 * unless no-writes, deny-oom unless no-writes or allow-oom, stale with
 * allow-stale), without may-replicate. */
int scriptl_cmd_flags(int cmd_flags, int script_flags);

/* What a state is for: EVAL's (KEYS/ARGV as globals) or a function
 * library's (keys and args as the function's two arguments). */
enum { SCRIPTL_EVAL = 0, SCRIPTL_FUNCTION = 1 };

/* A new sandboxed state with every library and the redis table. For
 * SCRIPTL_EVAL the globals are protected at once; for SCRIPTL_FUNCTION the
 * caller adds what it needs (redis.register_function...) and then calls
 * scriptl_protect_globals. Never NULL (aborts on out of memory, as xmalloc). */
lua_State *scriptl_state_new(int kind);
/* Makes the globals of L read only as Redis 7.0 does: reading a missing
 * global raises "Script attempted to access nonexistent global variable
 * 'x'", writing any global (or a field of a library table: redis, string,
 * cjson...) raises "Attempt to modify a readonly table". */
void scriptl_protect_globals(lua_State *L);
void scriptl_state_free(lua_State *L);
/* Bytes the state uses (INFO's used_memory_vm_*). */
size_t scriptl_state_memory(lua_State *L);

/* The checks Redis 7.0 makes before a script runs (processCommand with the
 * script's flags, then scriptPrepareForRun), in its order: READONLY for a
 * script that may write on a read-only replica, MASTERDOWN on a stale
 * replica unless allow-stale, then (shebang scripts) MISCONF/NOREPLICAS
 * for one that may write, "*_ro" with a writing script, OOM unless
 * allow-oom/no-writes. 1 when it may run, 0 after replying the error to c.
 * ro: EVAL_RO, FCALL_RO. */
int scriptl_prepare(client *c, int flags, int ro);

/* Runs the Lua function on top of L's stack (popped) for client c and
 * writes its reply to c (or the error: "ERR ... script: <name>, on
 * @user_script:<line>."). name: what errors call it (EVAL: the sha1, a
 * function's name); flags: SCRIPT_FLAG_*; ro: called as *_RO (write
 * commands refused). keys/args: the KEYS and ARGV (valid for the call).
 * The caller ran scriptl_prepare. Busy handling: from busy-reply-threshold
 * on, other clients are served -BUSY while it runs. */
void scriptl_call(lua_State *L, int kind, client *c, const char *name, int flags, int ro,
                  int nkeys, const arg *keys, int nargs, const arg *args);

/* Registers the busy gate (hooks.h's client_gate: -BUSY while a script is
 * past busy-reply-threshold; it returns at once while none runs). At
 * startup, after replication's hooks (hooks.h gives the order). */
void scriptl_init(void);
/* 1 while a script runs (inside scriptl_call), else 0. */
int scriptl_running(void);
/* 1 once the running script passed busy-reply-threshold (other clients
 * get -BUSY). */
int scriptl_timedout(void);
/* SCRIPT KILL (is_eval = 1) and FUNCTION KILL (0): replies OK, NOTBUSY,
 * UNKILLABLE, or BUSY when the kind differs, as Redis 7.0. */
void scriptl_kill(client *c, int is_eval);

/* Converts the Lua value at the top of L into a reply to c (Redis's
 * luaReplyToRedisReply; resp: the script's redis.setresp). Leaves it on
 * the stack. */
void scriptl_reply(client *c, lua_State *L, int resp);

/* The lower-case hex SHA1 of p[0..len) (EVAL's script names). */
void scriptl_sha1hex(char out[41], const char *p, size_t len);

/* EVAL's INFO memory fields (cmd_script.c): used_memory_lua,
 * used_memory_vm_eval, used_memory_lua_human, used_memory_scripts_eval,
 * number_of_cached_scripts, as Redis 7.0 names them. */
void script_info_memory(vbuf *b);
/* EVAL's Lua state (used_memory_vm_eval) and its script cache
 * (used_memory_scripts_eval). */
size_t script_vm_memory(void);
size_t script_cache_memory(void);

#endif
