/* script_lua: the Lua engine (script_lua.h): sandboxed states with the
 * redis table, redis.call through a fake client, running a script for a
 * client with busy handling. Main thread only. */
#include "script_lua.h"

#include <assert.h>
#include <errno.h>
#include <nettle/sha1.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "acl.h"
#include "cmd.h"
#include "db.h"
#include "debug.h"
#include "evict.h"
#include "hooks.h"
#include "introspect.h"
#include "lauxlib.h"
#include "log.h"
#include "lualib.h"
#include "net.h"
#include "script_int.h"
#include "util.h"

/* Instructions between two calls of the count hook (Redis's value). */
#define HOOK_COUNT 100000
/* Redis runs a GC step every this many EVAL calls. */
#define GC_PERIOD 50

typedef struct scriptl_run {
    client *caller;
    lua_State *L;
    const char *name;
    int kind;         /* SCRIPTL_EVAL, SCRIPTL_FUNCTION */
    int flags;        /* SCRIPT_FLAG_* */
    int ro;           /* refuse write commands */
    int resp;         /* redis.setresp: 2 or 3 */
    int write_dirty;  /* a write command was called (SCRIPT KILL refuses) */
    int oom;          /* over maxmemory when the script started */
    int timedout;     /* past busy-reply-threshold */
    int killed;       /* SCRIPT KILL / FUNCTION KILL asked */
    int64_t start_ms;
} scriptl_run;

static scriptl_run *cur;     /* the running script (NULL outside scriptl_call) */
static client *fake;         /* redis.call's client, created at the first run */
static unsigned gc_count;

static const struct { const char *name; int flag; } flag_names[] = {
    {"no-writes", SCRIPT_FLAG_NO_WRITES},   {"allow-oom", SCRIPT_FLAG_ALLOW_OOM},
    {"allow-stale", SCRIPT_FLAG_ALLOW_STALE}, {"no-cluster", SCRIPT_FLAG_NO_CLUSTER},
    {"allow-cross-slot-keys", SCRIPT_FLAG_ALLOW_CROSS_SLOT},
};

int scriptl_flag_by_name(const char *name, size_t len) {
    for (size_t i = 0; i < sizeof flag_names / sizeof flag_names[0]; i++)
        if (strlen(flag_names[i].name) == len && !memcmp(flag_names[i].name, name, len))
            return flag_names[i].flag;
    return 0;
}

int scriptl_cmd_flags(int cmd_flags, int script_flags) {
    cmd_flags &= ~(CMD_STALE | CMD_DENYOOM | CMD_WRITE | CMD_MAY_REPLICATE);
    if (!(script_flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES))) cmd_flags |= CMD_DENYOOM;
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES)) cmd_flags |= CMD_WRITE;
    if (script_flags & SCRIPT_FLAG_ALLOW_STALE) cmd_flags |= CMD_STALE;
    return cmd_flags;
}

int scriptl_running(void) { return cur != NULL; }
int scriptl_timedout(void) { return cur && cur->timedout; }

/* ---- redis.* ---- */

/* Raises (redis.call) or returns (redis.pcall) the error table on top. */
static int error_out(lua_State *L, int raise) { return raise ? lua_error(L) : 1; }

static int push_err_raise(lua_State *L, const char *msg, int raise) {
    scriptl_push_error(L, msg, strlen(msg));
    return error_out(L, raise);
}

/* The start of the stale replica gate's error (replica_info.c). */
#define MASTERDOWN "MASTERDOWN "

/* The checks of Redis's scriptCall before a command runs from a script:
 * NULL, or the error text (a static or gate string). */
static const char *call_refused(scriptl_run *r, const cmd_def *d, int argc, const arg *argv,
                                int *gate) {
    if (!d) return "Unknown Redis command called from script";
    if (!cmd_arity_ok(d, argc))
        return "Wrong number of args calling Redis command from script";
    if ((d->flags & CMD_NOSCRIPT) && !debug_deny_scripts_disabled)
        return "This Redis command is not allowed from script";
    if (fake->user) { /* the caller's permissions (acl.h), logged as Lua's */
        int pos;
        int v = acl_check(fake->user, d, argc, argv, &pos);
        if (v != ACL_OK) {
            acl_log_denied(r->caller, v, ACL_CTX_LUA, d, argv, pos);
            if (v == ACL_DENIED_CMD)
                return "The user executing the script can't run this command or subcommand";
            if (v == ACL_DENIED_KEY)
                return "The user executing the script can't access at least one of the keys "
                       "mentioned in the command arguments";
            return "The user executing the script can't publish to the channel mentioned in "
                   "the command";
        }
    }
    /* a read-only script runs no may-replicate command either (PFCOUNT,
     * PUBLISH), as Redis's scriptVerifyWriteCommandAllow */
    if ((d->flags & (CMD_WRITE | CMD_MAY_REPLICATE)) &&
        (r->ro || (r->flags & SCRIPT_FLAG_NO_WRITES)))
        return "Write commands are not allowed from read-only scripts.";
    const char *why = cmd_gates_error(fake, d);
    if (why && !strncmp(why, MASTERDOWN, strlen(MASTERDOWN)))
        return "Can not execute the command on a stale replica";
    if (why) {
        *gate = 1; /* a whole error with its code: the caller adds '-' */
        return why;
    }
    why = hooks_script_call_error(r->caller, d, argc, argv); /* the cluster's keys */
    if (why) return why;
    if (server.cfg.maxmemory && !(r->flags & SCRIPT_FLAG_ALLOW_OOM) && !r->write_dirty &&
        r->oom && (d->flags & CMD_DENYOOM) && !(r->caller->flags & CLIENT_MASTER))
        return "-OOM command not allowed when used memory > 'maxmemory'.";
    return NULL;
}

/* A command refused before it ran from the script (the error table on
 * top): counted now as Redis's scriptCall does, in the error statistics
 * (not again when the script replies it) and as a rejected call of d
 * (NULL: an unknown command). */
static void count_refusal(lua_State *L, const cmd_def *d) {
    lua_getfield(L, -1, "err");
    server.stat.errors++;
    introspect_error_reply(fake, lua_tostring(L, -1));
    lua_pop(L, 1);
    lua_pushboolean(L, 1);
    lua_setfield(L, -2, "ignore_error_stats_update");
    introspect_call_rejected((cmd_def *)d);
}

/* redis.call (raise = 1) and redis.pcall (0): Redis's luaRedisGenericCommand. */
static int generic_call(lua_State *L, int raise) {
    scriptl_run *r = cur;
    int argc = lua_gettop(L);
    if (!r) return luaL_error(L, "redis.call/pcall can only be called inside a script invocation");
    if (argc == 0)
        return push_err_raise(L, "Please specify at least one argument for this redis lib call",
                              raise);
    arg *argv = xmalloc(sizeof(arg) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        int t = lua_type(L, j + 1);
        if (t == LUA_TNUMBER) {
            /* "%.17g" as Redis: lua_tolstring would lose precision */
            char buf[64];
            int n = snprintf(buf, sizeof buf, "%.17g", (double)lua_tonumber(L, j + 1));
            lua_pushlstring(L, buf, (size_t)n);
            lua_replace(L, j + 1);
        } else if (t != LUA_TSTRING) {
            free(argv);
            return push_err_raise(L, "Lua redis lib command arguments must be strings or integers",
                                  raise);
        }
        argv[j].p = lua_tolstring(L, j + 1, &argv[j].len);
    }
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    int gate = 0;
    const char *why = call_refused(r, d, argc, argv, &gate);
    if (why) {
        free(argv);
        if (!gate) {
            scriptl_push_error(L, why, strlen(why));
        } else {
            size_t n = strlen(why);
            char *e = xmalloc(n + 2);
            e[0] = '-';
            memcpy(e + 1, why, n + 1);
            scriptl_push_error(L, e, n + 1);
            free(e);
        }
        count_refusal(L, d);
        return error_out(L, raise);
    }
    if (d->flags & CMD_WRITE) r->write_dirty = 1;
    fake->argc = argc;
    fake->argv = argv;
    fake->cmd = d;
    fake->resp = r->resp;
    fake->reply.len = 0;
    server.stat.commands++; /* as Redis's call(): total_commands_processed */
    cmd_call(fake, d);
    fake->cmd = NULL;
    fake->argv = NULL;
    fake->argc = 0;
    free(argv);
    size_t used = scriptl_resp_to_lua(L, fake->reply.data, fake->reply.len);
    assert(used == fake->reply.len);
    int is_err = fake->reply.len && fake->reply.data[0] == '-';
    fake->reply.len = 0;
    vbuf_shrink(&fake->reply, 64 * 1024);
    return is_err ? error_out(L, raise) : 1;
}

static int l_call(lua_State *L) { return generic_call(L, 1); }
static int l_pcall(lua_State *L) { return generic_call(L, 0); }

static int l_error_reply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING)
        return push_err_raise(L, "wrong number or type of arguments", 0);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    if (s[0] == '-') {
        scriptl_push_error(L, s, len);
    } else {
        char *t = xmalloc(len + 2);
        t[0] = '-';
        memcpy(t + 1, s, len);
        t[len + 1] = '\0';
        scriptl_push_error(L, t, len + 1);
        free(t);
    }
    return 1;
}

static int l_status_reply(lua_State *L) {
    if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING)
        return push_err_raise(L, "wrong number or type of arguments", 0);
    lua_newtable(L);
    lua_pushstring(L, "ok");
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    return 1;
}

static void sha1hex(char out[41], const char *p, size_t len) {
    struct sha1_ctx ctx;
    uint8_t dig[SHA1_DIGEST_SIZE];
    sha1_init(&ctx);
    sha1_update(&ctx, len, (const uint8_t *)p);
    sha1_digest(&ctx, sizeof dig, dig);
    for (int i = 0; i < SHA1_DIGEST_SIZE; i++) snprintf(out + 2 * i, 3, "%02x", dig[i]);
}

void scriptl_sha1hex(char out[41], const char *p, size_t len) { sha1hex(out, p, len); }

static int l_sha1hex(lua_State *L) {
    if (lua_gettop(L) != 1) return push_err_raise(L, "wrong number of arguments", 1);
    size_t len;
    const char *s = lua_tolstring(L, 1, &len);
    char hex[41];
    sha1hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(L, hex);
    return 1;
}

static int l_log(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc < 2) return push_err_raise(L, "redis.log() requires two arguments or more.", 1);
    if (!lua_isnumber(L, 1)) return push_err_raise(L, "First argument must be a number.", 1);
    int level = (int)lua_tonumber(L, 1);
    if (level < LOG_DEBUG || level > LOG_WARNING) return push_err_raise(L, "Invalid debug level.", 1);
    if (level < server.cfg.loglevel) return 0;
    vbuf b = {0};
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(L, j, &len);
        if (!s) continue;
        if (j != 2) vbuf_append(&b, " ", 1);
        vbuf_append(&b, s, len);
    }
    log_msg(level, "%.*s", (int)b.len, b.data ? b.data : "");
    vbuf_free(&b);
    return 0;
}

static int l_setresp(lua_State *L) {
    if (!cur) return luaL_error(L, "redis.setresp can only be called inside a script invocation");
    if (lua_gettop(L) != 1)
        return push_err_raise(L, "redis.setresp() requires one argument.", 1);
    int resp = (int)lua_tonumber(L, -1);
    if (resp != 2 && resp != 3) return push_err_raise(L, "RESP version must be 2 or 3.", 1);
    cur->resp = resp;
    return 0;
}

/* Effects replication is the only mode (as Redis 7.0): set_repl checks
 * its argument and changes nothing (every write propagates). */
static int l_set_repl(lua_State *L) {
    if (!cur) return luaL_error(L, "redis.set_repl can only be called inside a script invocation");
    if (lua_gettop(L) != 1) return push_err_raise(L, "redis.set_repl() requires one argument.", 1);
    int flags = (int)lua_tonumber(L, -1);
    if (flags & ~3)
        return push_err_raise(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, "
                                 "REPL_ALL or REPL_NONE.", 1);
    return 0;
}

static int l_replicate_commands(lua_State *L) {
    lua_pushboolean(L, 1);
    return 1;
}

static int l_breakpoint(lua_State *L) {
    lua_pushboolean(L, 0);
    return 1;
}

static int l_debug(lua_State *L) {
    (void)L;
    return 0;
}

/* redis.acl_check_cmd(cmd, args...): whether the script's user may run
 * it (acl.h), unknown commands raise as Redis's does. */
static int l_acl_check_cmd(lua_State *L) {
    int argc = lua_gettop(L);
    if (argc == 0)
        return push_err_raise(L, "Please specify at least one argument for this redis lib call", 1);
    arg *argv = xmalloc(sizeof(arg) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        argv[j].p = lua_tolstring(L, j + 1, &argv[j].len);
        if (!argv[j].p) {
            free(argv);
            return push_err_raise(L, "Lua redis lib command arguments must be strings or integers",
                                  1);
        }
    }
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    if (!d) {
        free(argv);
        return push_err_raise(L, "Invalid command passed to redis.acl_check_cmd()", 1);
    }
    int pos;
    int ok = acl_check(fake ? fake->user : NULL, d, argc, argv, &pos) == ACL_OK;
    free(argv);
    lua_pushboolean(L, ok);
    return 1;
}

/* The global pcall, Redis's in place of Lua's: an error table raised in
 * the call (redis.call's errors, error({err=...})) reaches the caller as
 * its err field when that is a string or number, as in Redis 7.0; other
 * errors as raised. pcall() without a function is Lua's error. */
static int l_lua_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    int argc = lua_gettop(L);
    if (lua_pcall(L, argc - 1, LUA_MULTRET, 0) == 0) {
        lua_pushboolean(L, 1);
        lua_insert(L, 1);
        return lua_gettop(L);
    }
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "err");
        if (lua_isstring(L, -1)) lua_replace(L, -2);
        else lua_pop(L, 1);
    }
    lua_pushboolean(L, 0);
    lua_insert(L, -2);
    return 2;
}

static void set_num(lua_State *L, const char *name, lua_Number v) {
    lua_pushstring(L, name);
    lua_pushnumber(L, v);
    lua_settable(L, -3);
}

static void set_fn(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushstring(L, name);
    lua_pushcfunction(L, f);
    lua_settable(L, -3);
}

static void register_redis(lua_State *L) {
    lua_newtable(L);
    set_fn(L, "call", l_call);
    set_fn(L, "pcall", l_pcall);
    set_fn(L, "error_reply", l_error_reply);
    set_fn(L, "status_reply", l_status_reply);
    set_fn(L, "sha1hex", l_sha1hex);
    set_fn(L, "log", l_log);
    set_fn(L, "setresp", l_setresp);
    set_fn(L, "set_repl", l_set_repl);
    set_fn(L, "replicate_commands", l_replicate_commands);
    set_fn(L, "breakpoint", l_breakpoint);
    set_fn(L, "debug", l_debug);
    set_fn(L, "acl_check_cmd", l_acl_check_cmd);
    set_num(L, "LOG_DEBUG", LOG_DEBUG);
    set_num(L, "LOG_VERBOSE", LOG_VERBOSE);
    set_num(L, "LOG_NOTICE", LOG_NOTICE);
    set_num(L, "LOG_WARNING", LOG_WARNING);
    set_num(L, "REPL_NONE", 0);
    set_num(L, "REPL_AOF", 1);
    set_num(L, "REPL_SLAVE", 2);
    set_num(L, "REPL_REPLICA", 2);
    set_num(L, "REPL_ALL", 3);
    lua_pushstring(L, "REDIS_VERSION");
    lua_pushstring(L, VERSO_REDIS_VERSION);
    lua_settable(L, -3);
    int maj = 0, min = 0, pat = 0;
    sscanf(VERSO_REDIS_VERSION, "%d.%d.%d", &maj, &min, &pat);
    set_num(L, "REDIS_VERSION_NUM", (lua_Number)((maj << 16) | (min << 8) | pat));
    lua_setglobal(L, "redis");
    lua_pushcfunction(L, l_lua_pcall);
    lua_setglobal(L, "pcall");
}

/* ---- states ---- */

static void open_lib(lua_State *L, const char *name, lua_CFunction f) {
    lua_pushcfunction(L, f);
    lua_pushstring(L, name);
    lua_call(L, 1, 1);
    if (name[0] && lua_istable(L, -1)) lua_setglobal(L, name);
    else lua_pop(L, 1);
}

/* Redis's __redis__err__handler: errors become {err=, source=, line=}. */
static const char err_handler[] =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}\n"
    "  end\n"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end\n"
    "  return err\n"
    "end\n";

/* The metatables of the types that are not tables (strings have one,
 * with __index = the string library) are shared by every script of the
 * state, and so by every client: read only (Lua's patch 0004), as Redis
 * makes them since CVE-2025-46818, so that no script can change what
 * ('x'):upper() does for the others. */
static void protect_basic_metatables(lua_State *L) {
    lua_pushnil(L);
    lua_pushboolean(L, 0);
    lua_pushnumber(L, 0);
    lua_pushliteral(L, "");
    lua_pushlightuserdata(L, NULL);
    lua_pushcfunction(L, l_debug);
    for (int idx = -6; idx < 0; idx++) {
        if (!lua_getmetatable(L, idx)) continue;
        lua_enablereadonlytable(L, -1, 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 6);
}

lua_State *scriptl_state_new(int kind) {
    lua_State *L = luaL_newstate();
    if (!L) {
        log_warning("Lua: out of memory creating a state");
        abort();
    }
    open_lib(L, "", luaopen_base);
    open_lib(L, LUA_TABLIBNAME, luaopen_table);
    open_lib(L, LUA_STRLIBNAME, luaopen_string);
    open_lib(L, LUA_MATHLIBNAME, luaopen_math);
    open_lib(L, LUA_DBLIBNAME, luaopen_debug);
    open_lib(L, "cjson", luaopen_cjson);
    open_lib(L, "bit", scriptl_open_bit);
    open_lib(L, "struct", scriptl_open_struct);
    open_lib(L, "cmsgpack", scriptl_open_cmsgpack);
    scriptl_install_random(L);
    static const char *const removed[] = {"print", "dofile", "loadfile", "getfenv", "setfenv",
                                          "newproxy", "module", "require", NULL};
    for (int i = 0; removed[i]; i++) {
        lua_pushnil(L);
        lua_setglobal(L, removed[i]);
    }
    register_redis(L);
    protect_basic_metatables(L);
    if (luaL_loadbuffer(L, err_handler, sizeof err_handler - 1, "@err_handler") ||
        lua_pcall(L, 0, 0, 0)) {
        log_warning("Lua: error handler: %s", lua_tostring(L, -1));
        abort();
    }
    if (kind == SCRIPTL_EVAL) scriptl_protect_globals(L);
    return L;
}

/* The globals become an empty proxy: reads go to the real table (kept in
 * the registry as __real_G, where KEYS/ARGV are set) and raise on a missing
 * name; the proxy is a read-only table (Lua's patch 0004), so writes raise
 * "Attempt to modify a readonly table". Library tables get the same
 * read-only proxy and are read only themselves; pairs/next/ipairs see
 * through proxies. */

/* freeze(t): makes t read only, returns it (protect_code's, which cannot). */
static int l_freeze(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_enablereadonlytable(L, 1, 1);
    return 1;
}

/* __index of the globals proxy: upvalue 1 is the real globals table. A C
 * function, so that the error handler reports the script's line (it
 * skips a C frame) as Redis does. */
static int globals_index(lua_State *L) {
    lua_pushvalue(L, 2);
    lua_rawget(L, lua_upvalueindex(1));
    if (!lua_isnil(L, -1)) return 1;
    luaL_where(L, 1);
    lua_pushfstring(L, "Script attempted to access nonexistent global variable '%s'",
                    lua_isstring(L, 2) ? lua_tostring(L, 2) : "?");
    lua_concat(L, 2);
    return lua_error(L);
}

/* Upvalue 1 of the three below: the proxies' table (proxy -> real). */
static int is_proxy(lua_State *L, int idx) {
    lua_pushvalue(L, idx);
    lua_rawget(L, lua_upvalueindex(1));
    int yes = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return yes;
}

static int ro_error(lua_State *L) {
    lua_pushstring(L, "Attempt to modify a readonly table");
    return lua_error(L);
}

/* rawset and setmetatable refuse a protected table, as Redis's read-only
 * tables do; rawget reads through the proxy. */
static int ro_rawset(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    if (is_proxy(L, 1)) return ro_error(L);
    luaL_checkany(L, 2);
    luaL_checkany(L, 3);
    lua_settop(L, 3);
    lua_rawset(L, 1);
    return 1;
}

static int ro_rawget(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checkany(L, 2);
    lua_pushvalue(L, 1);
    lua_rawget(L, lua_upvalueindex(1));
    int t = lua_isnil(L, -1) ? 1 : lua_gettop(L);
    lua_pushvalue(L, 2);
    lua_rawget(L, t);
    return 1;
}

/* upvalue 2: the base library's setmetatable (refused here for a read-only
 * table too, so that the error is this C function's, as Redis's is) */
static int ro_setmetatable(lua_State *L) {
    if (lua_istable(L, 1) && (is_proxy(L, 1) || lua_isreadonlytable(L, 1))) return ro_error(L);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static const char protect_code[] =
    "local freeze, gindex, libs = ...\n"
    "local G = _G\n"
    "local real = setmetatable({}, {__mode = 'k'})\n"
    "local rawget, rawset, error, type, tostring, setmetatable, next, ipairs ="
    "  rawget, rawset, error, type, tostring, setmetatable, next, ipairs\n"
    "local function proxy(t)\n"
    "  local p = setmetatable({}, {__index = t, __metatable = false})\n"
    "  real[p] = t\n"
    "  return freeze(p)\n"
    "end\n"
    "for _, n in ipairs(libs) do\n"
    "  if type(rawget(G, n)) == 'table' then rawset(G, n, proxy(rawget(G, n))) end\n"
    "end\n"
    "local function unwrap(t) return real[t] or t end\n"
    "rawset(G, 'next', function(t, k) return next(unwrap(t), k) end)\n"
    "rawset(G, 'pairs', function(t) return next, unwrap(t), nil end)\n"
    "rawset(G, 'ipairs', function(t) return ipairs(unwrap(t)) end)\n"
    "local P = freeze(setmetatable({}, {__index = gindex, __metatable = false}))\n"
    "real[P] = G\n"
    "rawset(G, '_G', P)\n"
    "return P, G, real\n";

/* The library tables are read only themselves (Lua's patch 0004): the
 * proxies guard the names in the globals, the flag guards the tables
 * wherever a script reaches them (getmetatable('').__index is string).
 * Pushes the list of their names for protect_code. */
static void protect_libraries(lua_State *L) {
    static const char *const libs[] = {"redis", "string", "table", "math", "cjson", "bit",
                                       "struct", "cmsgpack", "coroutine", NULL};
    lua_newtable(L);
    for (int i = 0; libs[i]; i++) {
        lua_getglobal(L, libs[i]);
        if (lua_istable(L, -1)) lua_enablereadonlytable(L, -1, 1);
        lua_pop(L, 1);
        lua_pushstring(L, libs[i]);
        lua_rawseti(L, -2, i + 1);
    }
}

void scriptl_protect_globals(lua_State *L) {
    int fail = luaL_loadbuffer(L, protect_code, sizeof protect_code - 1, "@protect");
    if (!fail) {
        lua_pushcfunction(L, l_freeze);
        lua_pushvalue(L, LUA_GLOBALSINDEX);
        lua_pushcclosure(L, globals_index, 1);
        protect_libraries(L);
        fail = lua_pcall(L, 3, 3, 0);
    }
    if (fail) {
        log_warning("Lua: protecting globals: %s", lua_tostring(L, -1));
        abort();
    }
    /* P, G, real on the stack: the raw accessors, set in G */
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, ro_rawset, 1);
    lua_setfield(L, -3, "rawset");
    lua_pushvalue(L, -1);
    lua_pushcclosure(L, ro_rawget, 1);
    lua_setfield(L, -3, "rawget");
    lua_getfield(L, -2, "setmetatable");
    lua_pushcclosure(L, ro_setmetatable, 2);
    lua_setfield(L, -2, "setmetatable");
    lua_setfield(L, LUA_REGISTRYINDEX, "__real_G"); /* G */
    lua_replace(L, LUA_GLOBALSINDEX);              /* P */
}

/* A full collection first, while the state is whole: whatever a
 * finalizer does then meets a working state, not one lua_close is tearing
 * down (Redis's answer to CVE-2024-46981, SCRIPT FLUSH). */
void scriptl_state_free(lua_State *L) {
    assert(!cur || cur->L != L);
    if (!L) return;
    lua_gc(L, LUA_GCCOLLECT, 0);
    lua_close(L);
}

size_t scriptl_state_memory(lua_State *L) {
    return (size_t)lua_gc(L, LUA_GCCOUNT, 0) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB, 0);
}

/* ---- running ---- */

/* -BUSY for every command of another client while a script is past
 * busy-reply-threshold, unless the command is flagged allow-busy. */
static const char *busy_gate(const client *c, const cmd_def *d) {
    if (!cur || !cur->timedout || (c->flags & CLIENT_SCRIPT)) return NULL;
    if (d->flags & CMD_ALLOW_BUSY) {
        /* SHUTDOWN only with NOSAVE: a save would hold half a script */
        if (strcmp(d->name, "shutdown") != 0) return NULL;
        for (int i = 1; i < c->argc; i++)
            if (arg_is(&c->argv[i], "nosave")) return NULL;
    }
    return cur->kind == SCRIPTL_EVAL
               ? "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                 "SHUTDOWN NOSAVE."
               : "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                 "SHUTDOWN NOSAVE.";
}

static void engine_init(void) {
    if (fake) return;
    fake = xcalloc(1, sizeof *fake);
    fake->flags = CLIENT_SCRIPT | CLIENT_AUTHED;
    fake->resp = 2;
    fake->id = UINT64_MAX; /* never a connection's */
    snprintf(fake->addr, sizeof fake->addr, "%s", "");
    resp_req_init(&fake->req);
}

static const hooks scripting_hooks = {.name = "scripting", .client_gate = busy_gate};

void scriptl_init(void) { hooks_register(&scripting_hooks); }

/* Redis's processEventsWhileBlocked for a script past the threshold: reads
 * what the other clients sent (straight from their sockets, the loop is
 * not re-entered), runs it (the busy gate answers -BUSY to all but
 * allow-busy commands) and flushes the replies. The caller, replicas and
 * the master link are not read; new connections wait in the backlog. */
static void serve_while_busy(void) {
    client *saved = server.current_client;
    net_accept_now();
    for (client *c = server.clients, *next; c; c = next) {
        next = c->next;
        if (c == cur->caller || c->fd <= 0 ||
            (c->flags & (CLIENT_CLOSING | CLIENT_READ_PAUSED | CLIENT_INPUT_PARKED | CLIENT_BLOCKED |
                         CLIENT_MASTER | CLIENT_REPLICA | CLIENT_CLOSE_AFTER_REPLY)))
            continue;
        if (net_read_now(c) <= 0) continue;
        net_process_input(c);
        net_update_reading(c);
    }
    server.current_client = saved;
    net_flush_all();
}

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    scriptl_run *r = cur;
    if (!r) return;
    if (!r->timedout && mono_ms() - r->start_ms >= server.cfg.busy_reply_threshold) {
        r->timedout = 1;
        log_warning("Slow script detected: still in execution after %lld milliseconds. "
                    "You can try killing the script using the %s command. Script name is: %s.",
                    (long long)(mono_ms() - r->start_ms),
                    r->kind == SCRIPTL_EVAL ? "SCRIPT KILL" : "FUNCTION KILL", r->name);
    }
    if (r->timedout) serve_while_busy();
    if (r->killed) {
        /* Redis 7.0 names SCRIPT KILL here for functions too */
        log_warning("Lua script killed by user with SCRIPT KILL.");
        /* every line from now on: a pcall in the script cannot catch it
         * and go on */
        lua_sethook(L, count_hook, LUA_MASKLINE, 0);
        push_err_raise(L, "Script killed by user with SCRIPT KILL...", 1);
    }
}

void scriptl_kill(client *c, int is_eval) {
    if (!cur) {
        reply_error(c, "NOTBUSY No scripts in execution right now.");
    } else if (cur->caller->flags & CLIENT_MASTER) {
        reply_error(c, "UNKILLABLE The busy script was sent by a master instance in the context "
                       "of replication and cannot be killed.");
    } else if (cur->write_dirty) {
        reply_error(c, "UNKILLABLE Sorry the script already executed write commands against the "
                       "dataset. You can either wait the script termination or kill the server "
                       "in a hard way using the SHUTDOWN NOSAVE command.");
    } else if (is_eval != (cur->kind == SCRIPTL_EVAL)) {
        reply_error(c, is_eval ? "BUSY Redis is busy running a script. You can only call "
                                 "FUNCTION KILL or SHUTDOWN NOSAVE."
                               : "BUSY Redis is busy running a script. You can only call "
                                 "SCRIPT KILL or SHUTDOWN NOSAVE.");
    } else {
        cur->killed = 1;
        reply_ok(c);
    }
}

/* As Redis 7.0's processCommand + scriptPrepareForRun for EVAL/FCALL:
 * a script that may write (a shebang without no-writes) is a write command
 * for the gates (READONLY first, then MISCONF, NOREPLICAS); a script not
 * flagged allow-stale is refused by a stale replica; then *_RO and OOM. */
int scriptl_prepare(client *c, int flags, int ro) {
    int master = (c->flags & CLIENT_MASTER) != 0;
    int may_write = !(flags & (SCRIPT_FLAG_EVAL_COMPAT_MODE | SCRIPT_FLAG_NO_WRITES));
    const char *wgate = may_write && !master ? cmd_gates_error(c, cmd_lookup("set", 3)) : NULL;
    if (wgate && !strncmp(wgate, "READONLY", 8)) {
        reply_error(c, wgate);
        return 0;
    }
    if (!(flags & SCRIPT_FLAG_ALLOW_STALE)) {
        const char *why = cmd_gates_error(c, cmd_lookup("get", 3));
        if (why && !strncmp(why, MASTERDOWN, strlen(MASTERDOWN))) {
            reply_error(c, why);
            return 0;
        }
    }
    if (flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) return 1;
    if (wgate && strncmp(wgate, MASTERDOWN, strlen(MASTERDOWN)) != 0) {
        reply_error(c, wgate); /* MISCONF, NOREPLICAS */
        return 0;
    }
    if (may_write && ro) {
        reply_error(c, "ERR Can not execute a script with write flag using *_ro command.");
        return 0;
    }
    if (server.cfg.maxmemory && !master &&
        !(flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)) && evict_refuse(CMD_DENYOOM)) {
        reply_error(c, "OOM command not allowed when used memory > 'maxmemory'.");
        return 0;
    }
    return 1;
}

/* Pushes a Lua array of the arguments. */
static void push_args(lua_State *L, int n, const arg *a) {
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushlstring(L, a[i].p, a[i].len);
        lua_rawseti(L, -2, i + 1);
    }
}

/* A formatted string, malloc'd. */
static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    if (n <= 0) s[0] = '\0';
    return s;
}

/* The reply for the error value on top of L (Redis's luaCallFunction). */
static void reply_script_error(client *c, lua_State *L, const char *name) {
    char *text;
    int count = 1;
    if (!lua_istable(L, -1)) {
        const char *msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : "execution failure";
        text = xasprintf("ERR Error running script %s, %.100s\n", name, msg);
    } else {
        count = scriptl_error_counts(L);
        lua_getfield(L, -1, "err");
        lua_getfield(L, -2, "source");
        lua_getfield(L, -3, "line");
        const char *msg = lua_tostring(L, -3), *src = lua_tostring(L, -2);
        const char *line = lua_isnumber(L, -1) || lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL;
        if (src && line)
            text = xasprintf("%s script: %s, on %s:%s.", msg ? msg : "", name, src, line);
        else
            text = xasprintf("%s", msg ? msg : "");
        lua_pop(L, 3);
    }
    scriptl_error_reply(c, text, count);
    free(text);
}

void scriptl_call(lua_State *L, int kind, client *c, const char *name, int flags, int ro,
                  int nkeys, const arg *keys, int nargs, const arg *args) {
    assert(!cur);
    engine_init();
    scriptl_run r = {.caller = c, .L = L, .name = name, .kind = kind, .flags = flags,
                     .ro = ro, .resp = 2, .start_ms = mono_ms()};
    r.oom = server.cfg.maxmemory && evict_refuse(CMD_DENYOOM);
    lua_getglobal(L, "__redis__err__handler");
    lua_insert(L, -2); /* handler, function */
    int nparams = 0;
    if (kind == SCRIPTL_EVAL) {
        lua_getfield(L, LUA_REGISTRYINDEX, "__real_G");
        push_args(L, nkeys, keys);
        lua_setfield(L, -2, "KEYS");
        push_args(L, nargs, args);
        lua_setfield(L, -2, "ARGV");
        lua_pop(L, 1);
    } else {
        push_args(L, nkeys, keys);
        push_args(L, nargs, args);
        nparams = 2;
    }
    fake->db = c->db;
    /* the master's scripts pass the gates as its commands do */
    fake->flags = CLIENT_SCRIPT | CLIENT_AUTHED | (c->flags & CLIENT_MASTER);
    fake->user = c->user; /* redis.call runs under the caller's user */
    cur = &r;
    int64_t time_prev = db_time_snapshot(); /* keys expire as of the script's start */
    lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_COUNT);
    int err = lua_pcall(L, nparams, 1, -(nparams + 2));
    lua_sethook(L, NULL, 0, 0);
    db_time_release(time_prev);
    cur = NULL;
    fake->user = NULL; /* no user outlives its script here (ACL DELUSER) */
    if (r.timedout) {
        log_warning("Slow script finished after %lld milliseconds",
                    (long long)(mono_ms() - r.start_ms));
        net_flush_all();
    }
    if (err) reply_script_error(c, L, name);
    else scriptl_reply(c, L, r.resp);
    lua_pop(L, 2); /* the result (or error), the handler */
    if (kind == SCRIPTL_EVAL && ++gc_count == GC_PERIOD) {
        lua_gc(L, LUA_GCSTEP, GC_PERIOD);
        gc_count = 0;
    }
}
