/* function_lua: the Lua side of FUNCTION (see function_lua.h): the load
 * environment, redis.register_function, and FCALL's call into the engine
 * (script_lua.h). Texts of the errors are Redis 7.0.15's (function_lua.c).
 * Main thread only. */
#include "function_lua.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "lauxlib.h"
#include "lua.h"
#include "script_lua.h"
#include "util.h"

static struct {
    lua_State *L;
    int globals_mt;        /* registry ref: the proxy globals' metatable */
    int load_api;          /* registry ref: the load-time globals */
    int real_globals;      /* registry ref: the state's globals (runtime) */
    int globals;           /* registry ref: the proxy every chunk runs with */
    fn_lib *loading;       /* the library whose body runs now, else NULL */
    int64_t load_start_us, load_timeout_us;
    fn_func *running;      /* the function FCALL runs now, else NULL */
    client *caller;        /* ... its caller */
    int64_t run_start_ms;
} F = {.globals_mt = LUA_NOREF, .load_api = LUA_NOREF, .real_globals = LUA_NOREF,
       .globals = LUA_NOREF};

/* ---- errors as Redis's Lua code raises them ---- */

/* luaPushError + luaError: the error table {err = "ERR <msg>"}. */
static int raise_err(lua_State *L, const char *msg) {
    lua_newtable(L);
    lua_pushstring(L, "err");
    lua_pushfstring(L, "ERR %s", msg);
    lua_settable(L, -3);
    return lua_error(L);
}

/* luaExtractErrorInformation's message: a string error gets "ERR ", an
 * error table gives its err field. */
static char *error_text(lua_State *L) {
    if (lua_isstring(L, -1)) {
        const char *s = lua_tostring(L, -1);
        size_t n = strlen(s) + 5;
        char *m = xmalloc(n);
        snprintf(m, n, "ERR %s", s);
        return m;
    }
    char *m = NULL;
    if (lua_istable(L, -1)) {
        lua_getfield(L, -1, "err");
        if (lua_isstring(L, -1)) m = xstrdup(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    return m ? m : xstrdup("(null)");
}

static char *prefixed(const char *prefix, const char *msg) {
    size_t n = strlen(prefix) + strlen(msg) + 1;
    char *s = xmalloc(n);
    snprintf(s, n, "%s%s", prefix, msg);
    return s;
}

/* luaProtectedTableError: __index of a table whose missing keys are errors. */
static int missing_index(lua_State *L) {
    if (lua_gettop(L) != 2) return luaL_error(L, "Wrong number of arguments to luaProtectedTableError");
    if (!lua_isstring(L, -1) && !lua_isnumber(L, -1))
        return luaL_error(L, "Second argument to luaProtectedTableError must be a string or number");
    return luaL_error(L, "Script attempted to access nonexistent global variable '%s'",
                      lua_tostring(L, -1));
}

/* Replaces the table on top with a read-only proxy (Lua's patch 0004:
 * every write raises "Attempt to modify a readonly table") whose reads go
 * to it, and gives the table the missing-key error. */
static void push_readonly(lua_State *L) {
    lua_newtable(L);                       /* t's metatable */
    lua_pushcfunction(L, missing_index);
    lua_setfield(L, -2, "__index");
    lua_setmetatable(L, -2);
    lua_newtable(L);                       /* proxy */
    lua_newtable(L);                       /* proxy's metatable */
    lua_pushvalue(L, -3);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_enablereadonlytable(L, -1, 1);
    lua_remove(L, -2);
}

/* ---- redis.register_function ---- */

typedef struct reg_args {
    char *name, *desc;
    size_t name_len;     /* the name may hold a NUL: function_lib_add refuses it */
    int flags;
    int ref;
} reg_args;

static void reg_args_drop(lua_State *L, reg_args *a) {
    free(a->name);
    free(a->desc);
    if (a->ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, a->ref);
}

/* luaRegisterFunctionReadFlags: the table at -1 as a list of flag names. */
static int read_flags(lua_State *L, int *flags) {
    int f = 0;
    for (int j = 1;; j++) {
        lua_pushnumber(L, j);
        lua_gettable(L, -2);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        int bit = lua_isstring(L, -1) ? function_flag_bit(lua_tostring(L, -1)) : 0;
        lua_pop(L, 1);
        if (!bit) return -1;
        f |= bit;
    }
    *flags = f;
    return 0;
}

static const char *read_named(lua_State *L, reg_args *a) {
    if (!lua_istable(L, 1))
        return "calling redis.register_function with a single argument is only applicable to "
               "Lua table (representing named arguments).";
    lua_pushnil(L);
    while (lua_next(L, 1)) {
        if (lua_type(L, -2) != LUA_TSTRING && lua_type(L, -2) != LUA_TNUMBER)
            return "named argument key given to redis.register_function is not a string";
        /* a copy: lua_tostring would turn a number key into a string in
         * place, which lua_next cannot follow */
        lua_pushvalue(L, -2);
        char key[16];
        snprintf(key, sizeof key, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
        if (!strcasecmp(key, "function_name")) {
            if (!lua_isstring(L, -1))
                return "function_name argument given to redis.register_function must be a string";
            free(a->name);
            const char *n = lua_tolstring(L, -1, &a->name_len);
            a->name = xstrndup(n, a->name_len);
        } else if (!strcasecmp(key, "description")) {
            if (!lua_isstring(L, -1))
                return "description argument given to redis.register_function must be a string";
            free(a->desc);
            a->desc = xstrdup(lua_tostring(L, -1));
        } else if (!strcasecmp(key, "callback")) {
            if (!lua_isfunction(L, -1))
                return "callback argument given to redis.register_function must be a function";
            if (a->ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, a->ref);
            a->ref = luaL_ref(L, LUA_REGISTRYINDEX); /* pops the value */
            continue;
        } else if (!strcasecmp(key, "flags")) {
            if (!lua_istable(L, -1))
                return "flags argument to redis.register_function must be a table representing "
                       "function flags";
            if (read_flags(L, &a->flags) != 0) return "unknown flag given";
        } else {
            return "unknown argument given to redis.register_function";
        }
        lua_pop(L, 1);
    }
    if (!a->name) return "redis.register_function must get a function name argument";
    if (a->ref == LUA_NOREF) return "redis.register_function must get a callback argument";
    return NULL;
}

static const char *read_positional(lua_State *L, reg_args *a) {
    if (!lua_isstring(L, 1)) return "first argument to redis.register_function must be a string";
    if (!lua_isfunction(L, 2)) return "second argument to redis.register_function must be a function";
    const char *n = lua_tolstring(L, 1, &a->name_len);
    a->name = xstrndup(n, a->name_len);
    lua_settop(L, 2);
    a->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    return NULL;
}

static int l_register_function(lua_State *L) {
    if (!F.loading) return raise_err(L, "redis.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(L);
    if (argc < 1 || argc > 2) return raise_err(L, "wrong number of arguments to redis.register_function");
    reg_args a = {NULL, NULL, 0, 0, LUA_NOREF};
    const char *why = argc == 1 ? read_named(L, &a) : read_positional(L, &a);
    char *err = NULL;
    if (!why &&
        function_lib_add(F.loading, a.name, a.name_len, a.desc, a.flags, a.ref, &err) == 0) {
        free(a.name);
        free(a.desc);
        return 0;
    }
    reg_args_drop(L, &a);
    if (why) return raise_err(L, why);
    lua_pushstring(L, err);
    free(err);
    return raise_err(L, lua_tostring(L, -1));
}

/* ---- the state ---- */

/* The load-time globals: { redis = { register_function, log, LOG_*,
 * REDIS_VERSION, REDIS_VERSION_NUM } }, both read only. */
static void push_load_api(lua_State *L) {
    static const char *const copied[] = {"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE",
                                         "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM",
                                         NULL};
    lua_newtable(L);                 /* globals */
    lua_newtable(L);                 /* redis */
    lua_pushcfunction(L, l_register_function);
    lua_setfield(L, -2, "register_function");
    lua_getglobal(L, "redis");
    for (int i = 0; copied[i]; i++) {
        if (lua_istable(L, -1)) lua_getfield(L, -1, copied[i]);
        else lua_pushnil(L);
        lua_setfield(L, -3, copied[i]);
    }
    lua_pop(L, 1);
    push_readonly(L);
    lua_setfield(L, -2, "redis");
    push_readonly(L);
}

void fnlua_init(void) {
    if (F.L) return;
    lua_State *L = scriptl_state_new(SCRIPTL_FUNCTION);
    push_load_api(L);
    F.load_api = luaL_ref(L, LUA_REGISTRYINDEX);
    scriptl_protect_globals(L);
    lua_pushvalue(L, LUA_GLOBALSINDEX);
    F.real_globals = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_newtable(L);                 /* the proxy globals */
    lua_newtable(L);                 /* its metatable */
    lua_rawgeti(L, LUA_REGISTRYINDEX, F.real_globals);
    lua_setfield(L, -2, "__index");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushvalue(L, -1);
    F.globals_mt = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_setmetatable(L, -2);
    lua_enablereadonlytable(L, -1, 1); /* writes raise (Lua's patch 0004) */
    F.globals = luaL_ref(L, LUA_REGISTRYINDEX);
    F.L = L;
}

/* Where the proxy globals' reads go: ref (load API or real globals). */
static void globals_index(lua_State *L, int ref) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, F.globals_mt);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
}

/* luaEngineLoadHook: the body ran past its timeout. */
static void load_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if (mono_us() - F.load_start_us <= F.load_timeout_us) return;
    lua_sethook(L, load_hook, LUA_MASKLINE, 0); /* errors again if the body catches it */
    raise_err(L, "FUNCTION LOAD timeout");
}

int fnlua_create(fn_lib *li, const char *body, size_t len, int64_t timeout_ms, char **err) {
    fnlua_init(); /* the state is made at the first library */
    lua_State *L = F.L;
    if (luaL_loadbuffer(L, body, len, "@user_function")) {
        *err = prefixed("Error compiling function: ", lua_tostring(L, -1));
        lua_pop(L, 1);
        return -1;
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, F.globals);
    lua_setfenv(L, -2);
    globals_index(L, F.load_api);
    F.loading = li;
    if (timeout_ms > 0) {
        F.load_start_us = mono_us();
        F.load_timeout_us = timeout_ms * 1000;
        lua_sethook(L, load_hook, LUA_MASKCOUNT, 100000);
    }
    int rc = lua_pcall(L, 0, 0, 0);
    lua_sethook(L, NULL, 0, 0);
    F.loading = NULL;
    globals_index(L, F.real_globals);
    if (rc) {
        char *m = error_text(L);
        *err = prefixed("Error registering functions: ", m);
        free(m);
        lua_pop(L, 1);
        return -1;
    }
    return 0;
}

void fnlua_unref(int ref) {
    if (F.L && ref != LUA_NOREF) luaL_unref(F.L, LUA_REGISTRYINDEX, ref);
}

size_t fnlua_memory(void) { return F.L ? scriptl_state_memory(F.L) : 0; }

static int engine_flags(int fl) {
    static const int map[][2] = {
        {FN_NO_WRITES, SCRIPT_FLAG_NO_WRITES},   {FN_ALLOW_OOM, SCRIPT_FLAG_ALLOW_OOM},
        {FN_ALLOW_STALE, SCRIPT_FLAG_ALLOW_STALE}, {FN_NO_CLUSTER, SCRIPT_FLAG_NO_CLUSTER},
        {FN_ALLOW_CROSS_SLOT, SCRIPT_FLAG_ALLOW_CROSS_SLOT},
    };
    int out = 0;
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (fl & map[i][0]) out |= map[i][1];
    return out;
}

void fnlua_call(client *c, fn_func *f, int ro, int nkeys, const arg *keys, int nargs,
                const arg *args) {
    int flags = engine_flags(f->flags);
    if (!scriptl_prepare(c, flags, ro)) return;
    lua_rawgeti(F.L, LUA_REGISTRYINDEX, f->ref);
    F.running = f;
    F.caller = c;
    F.run_start_ms = mono_ms();
    scriptl_call(F.L, SCRIPTL_FUNCTION, c, f->name, flags, ro, nkeys, keys, nargs, args);
    F.running = NULL;
    F.caller = NULL;
}

int fnlua_stats_running(client *c) {
    if (scriptl_running() && !F.running) {
        reply_error(c, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                       "SHUTDOWN NOSAVE.");
        return 0;
    }
    reply_map(c, 2);
    reply_bulk_str(c, "running_script");
    if (!F.running) {
        reply_null(c);
        return 1;
    }
    reply_map(c, 3);
    reply_bulk_str(c, "name");
    reply_bulk_str(c, F.running->name);
    reply_bulk_str(c, "command");
    reply_array(c, F.caller->argc);
    for (int i = 0; i < F.caller->argc; i++)
        reply_bulk(c, F.caller->argv[i].p, F.caller->argv[i].len);
    reply_bulk_str(c, "duration_ms");
    reply_int(c, mono_ms() - F.run_start_ms);
    return 1;
}
