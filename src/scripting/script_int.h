/* script_int: what the scripting files share among themselves (the engine
 * script_lua.c, the conversions script_conv.c, the libraries script_libs.c
 * and script_msgpack.c). Not for other modules: they use script_lua.h. Main
 * thread only. */
#ifndef VERSO_SCRIPT_INT_H
#define VERSO_SCRIPT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lua.h"
#include "server.h"

/* Parses one RESP reply at p[0..len) (a whole reply: the fake client's
 * buffer) and pushes it as Redis's redisProtocolToLuaType does (resp 2 or
 * 3 types). Returns the bytes used, 0 on a malformed reply (a bug). */
size_t scriptl_resp_to_lua(lua_State *L, const char *p, size_t len);
/* Pushes Redis's error table {err = "<CODE> msg"} from an error text with
 * or without its leading '-' and code (luaPushErrorBuff). */
void scriptl_push_error(lua_State *L, const char *err, size_t len);

/* An error reply to c from a script (text with its code, no '-'): CR/LF
 * trimmed at the ends and spaces inside; counted in the error statistics
 * (reply_error) when count, else written as is and c->cmd counted failed. */
void scriptl_error_reply(client *c, const char *s, int count);
/* 0 when the error table on top came from a command's error reply (counted
 * then: Redis's ignore_error_stats_update), else 1. */
int scriptl_error_counts(lua_State *L);

/* The libraries Redis embeds that are ours (Redis's API): struct,
 * cmsgpack and bit (LuaBitOp's, script_bit.c), opened as globals;
 * math.random and math.randomseed replaced by Redis's deterministic
 * generator. cjson is lua-cjson's, built with Lua (Makefile.am's "Lua"
 * part), which has no header for it. */
int scriptl_open_struct(lua_State *L);
int scriptl_open_cmsgpack(lua_State *L);
int scriptl_open_bit(lua_State *L);
int luaopen_cjson(lua_State *L);
void scriptl_install_random(lua_State *L);
/* redisSrand48, what math.randomseed calls (no script is reseeded before it
 * runs, as in Redis 7.0). */
void scriptl_srand48(int32_t seed);

#endif
