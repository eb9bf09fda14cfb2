/* function_lua: the Lua side of FUNCTION (see function.h), on the engine
 * of script_lua.h.
 *
 * Every library runs in one sandboxed state of its own kind
 * (SCRIPTL_FUNCTION), as Redis 7.0's function_lua.c: a library's body is
 * compiled as the chunk "@user_function" with, as its globals, a read-only
 * proxy table whose metatable's __index is the load-time API while the body
 * runs (a `redis` table with register_function, log, the LOG_* levels and
 * REDIS_VERSION[_NUM], nothing else: any other global raises "Script
 * attempted to access nonexistent global variable") and the state's real
 * globals (the redis.* API, the libraries) afterwards, when FCALL calls
 * the functions the body registered. The body runs for at most the load
 * timeout (FUNCTION LOAD: 500 ms, "FUNCTION LOAD timeout"). Main thread
 * only. */
#ifndef VERSO_FUNCTION_LUA_H
#define VERSO_FUNCTION_LUA_H

#include <stddef.h>
#include <stdint.h>

#include "function.h"
#include "server.h"

#define FNLUA_LOAD_TIMEOUT_MS 500

/* Makes the state (once; fnlua_create calls it). */
void fnlua_init(void);
/* Runs body (the code after the metadata line, from its '\n') in the load
 * environment; each redis.register_function adds a function to li
 * (function_lib_add). 0, or -1 with *err (heap): "Error compiling
 * function: ..." or "Error registering functions: ...". */
int fnlua_create(fn_lib *li, const char *body, size_t len, int64_t timeout_ms, char **err);
/* Drops a registered callback. */
void fnlua_unref(int ref);
/* Bytes the state uses. */
size_t fnlua_memory(void);
/* FCALL / FCALL_RO: runs f for c with keys and args (checks made, reply
 * written). */
void fnlua_call(client *c, fn_func *f, int ro, int nkeys, const arg *keys, int nargs,
                const arg *args);

/* FUNCTION STATS's start: the map's header and running_script (nil, or
 * the running function's name, its caller's command and the time it has
 * run). 1, or 0 after replying BUSY (an EVAL script runs, as Redis). */
int fnlua_stats_running(client *c);

/* function.c's, for this file: adds a function to the library being
 * created (name checked: len bytes, a NUL among them refused; unique in li,
 * case-insensitively). 0, or -1 with *err (heap). */
int function_lib_add(fn_lib *li, const char *name, size_t len, const char *desc, int flags,
                     int ref, char **err);
/* Letters, digits and '_', at least one (functionsVerifyName). */
int function_name_ok(const char *s, size_t len);

#endif
