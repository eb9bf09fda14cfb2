/* script_conv: the type conversions between Redis replies and Lua values
 * both ways, as Redis 7.0's script_lua.c (redisProtocolToLuaType and
 * luaReplyToRedisReply), RESP2 and RESP3. Main thread only. */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "introspect.h"
#include "lauxlib.h"
#include "script_int.h"
#include "script_lua.h"
#include "util.h"

/* ---- Redis -> Lua ---- */

void scriptl_push_error(lua_State *L, const char *err, size_t len) {
    const char *code = "ERR", *msg = err;
    size_t codelen = 3, msglen = len;
    if (len && err[0] == '-') {
        const char *sp = memchr(err, ' ', len);
        if (!sp) {
            msg = err + 1;
            msglen = len - 1;
        } else {
            code = err + 1;
            codelen = (size_t)(sp - err - 1);
            msg = sp + 1;
            msglen = len - (size_t)(msg - err);
        }
    }
    while (msglen && (msg[0] == '\r' || msg[0] == '\n')) msg++, msglen--;
    while (msglen && (msg[msglen - 1] == '\r' || msg[msglen - 1] == '\n')) msglen--;
    lua_newtable(L);
    lua_pushstring(L, "err");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    luaL_addlstring(&b, code, codelen);
    luaL_addchar(&b, ' ');
    luaL_addlstring(&b, msg, msglen);
    luaL_pushresult(&b);
    lua_settable(L, -3);
}

/* The line at p (up to CRLF): its length, or -1 when incomplete. */
static long long line_len(const char *p, size_t len) {
    const char *e = memchr(p, '\r', len);
    if (!e || (size_t)(e - p) + 1 >= len) return -1;
    return e - p;
}

static long long line_ll(const char *p, size_t n) {
    long long v = 0;
    if (!str_to_ll(p, n, &v)) return 0;
    return v;
}

static void set_field_table(lua_State *L, const char *name) {
    /* value on top, a new table below: {name = value} */
    lua_newtable(L);
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_settable(L, -3);
    lua_remove(L, -2);
}

static size_t parse_aggregate(lua_State *L, char type, long long n, const char *p, size_t len) {
    size_t used = 0;
    /* a level of nesting takes stack slots: raise past the Lua stack's
     * bound rather than write beyond it (CVE-2021-32626) */
    luaL_checkstack(L, 5, "reached lua stack limit");
    lua_newtable(L);
    for (long long i = 0; i < n; i++) {
        if (type == '%') {
            size_t k = scriptl_resp_to_lua(L, p + used, len - used);
            if (!k) return 0;
            used += k;
            size_t v = scriptl_resp_to_lua(L, p + used, len - used);
            if (!v) return 0;
            used += v;
            lua_settable(L, -3);
        } else if (type == '~') {
            size_t k = scriptl_resp_to_lua(L, p + used, len - used);
            if (!k) return 0;
            used += k;
            lua_pushboolean(L, 1);
            lua_settable(L, -3);
        } else {
            size_t k = scriptl_resp_to_lua(L, p + used, len - used);
            if (!k) return 0;
            used += k;
            lua_rawseti(L, -2, (int)i + 1);
        }
    }
    if (type == '%') set_field_table(L, "map");
    else if (type == '~') set_field_table(L, "set");
    return used;
}

size_t scriptl_resp_to_lua(lua_State *L, const char *p, size_t len) {
    if (len < 3) return 0;
    long long ll = line_len(p + 1, len - 1);
    if (ll < 0) return 0;
    const char *s = p + 1;
    size_t n = (size_t)ll, hdr = 1 + n + 2;
    switch (p[0]) {
    case '+':
        lua_pushlstring(L, s, n);
        set_field_table(L, "ok");
        return hdr;
    case '-': {
        char *t = xmalloc(n + 1);
        t[0] = '-';
        memcpy(t + 1, s, n);
        scriptl_push_error(L, t, n + 1);
        free(t);
        /* counted when the command replied it: not again as the script's */
        lua_pushboolean(L, 1);
        lua_setfield(L, -2, "ignore_error_stats_update");
        return hdr;
    }
    case ':':
        lua_pushnumber(L, (lua_Number)line_ll(s, n));
        return hdr;
    case '_':
        lua_pushnil(L);
        return hdr;
    case '#':
        lua_pushboolean(L, n && s[0] == 't');
        return hdr;
    case ',': {
        char buf[64];
        size_t k = n < sizeof buf - 1 ? n : sizeof buf - 1;
        memcpy(buf, s, k);
        buf[k] = '\0';
        lua_pushnumber(L, strtod(buf, NULL));
        set_field_table(L, "double");
        return hdr;
    }
    case '(':
        lua_pushlstring(L, s, n);
        set_field_table(L, "big_number");
        return hdr;
    case '$':
    case '=': {
        long long blen = line_ll(s, n);
        if (blen < 0) {
            lua_pushboolean(L, 0);
            return hdr;
        }
        if (hdr + (size_t)blen + 2 > len) return 0;
        const char *b = p + hdr;
        if (p[0] == '$') {
            lua_pushlstring(L, b, (size_t)blen);
        } else {
            lua_newtable(L);
            lua_pushstring(L, "format");
            lua_pushlstring(L, b, blen >= 3 ? 3 : (size_t)blen);
            lua_settable(L, -3);
            lua_pushstring(L, "string");
            lua_pushlstring(L, blen >= 4 ? b + 4 : b, blen >= 4 ? (size_t)blen - 4 : 0);
            lua_settable(L, -3);
            set_field_table(L, "verbatim_string");
        }
        return hdr + (size_t)blen + 2;
    }
    case '*':
    case '>':
    case '%':
    case '~': {
        long long cnt = line_ll(s, n);
        if (cnt < 0) {
            lua_pushboolean(L, 0);
            return hdr;
        }
        size_t used = parse_aggregate(L, p[0], cnt, p + hdr, len - hdr);
        return used || cnt == 0 ? hdr + used : 0;
    }
    case '|': { /* attributes: skipped, the reply follows */
        long long cnt = line_ll(s, n);
        size_t used = parse_aggregate(L, '%', cnt, p + hdr, len - hdr);
        lua_pop(L, 1);
        if (!used && cnt) return 0;
        size_t v = scriptl_resp_to_lua(L, p + hdr + used, len - hdr - used);
        return v ? hdr + used + v : 0;
    }
    default:
        return 0;
    }
}

/* ---- Lua -> Redis ---- */

void scriptl_error_reply(client *c, const char *s, int count) {
    size_t lo = 0, hi = strlen(s);
    while (lo < hi && (s[lo] == '\r' || s[lo] == '\n')) lo++;
    while (hi > lo && (s[hi - 1] == '\r' || s[hi - 1] == '\n')) hi--;
    char *t = xmalloc(hi - lo + 1);
    memcpy(t, s + lo, hi - lo);
    t[hi - lo] = '\0';
    if (count) {
        reply_error(c, t); /* total_error_replies and the rest */
    } else {
        resp_add_error(&c->reply, t);
        introspect_call_failed_uncounted(c); /* the script failed all the same */
    }
    free(t);
}

/* 1 unless the error table on top says it was counted already. */
int scriptl_error_counts(lua_State *L) {
    lua_getfield(L, -1, "ignore_error_stats_update");
    int ignore = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return !ignore;
}

static void to_reply(client *c, lua_State *L, int resp);

/* t[name] of the table on top, pushed; its Lua type returned. */
static int field(lua_State *L, const char *name) {
    lua_pushstring(L, name);
    lua_rawget(L, -2);
    return lua_type(L, -1);
}

/* A copy of the string on top with CR/LF as spaces (status, big number). */
static char *no_crlf(lua_State *L, size_t *len) {
    const char *s = lua_tolstring(L, -1, len);
    char *t = xmalloc(*len + 1);
    for (size_t i = 0; i < *len; i++) t[i] = (s[i] == '\r' || s[i] == '\n') ? ' ' : s[i];
    t[*len] = '\0';
    return t;
}

/* The table on top: error, status, double, big number, verbatim, map,
 * set, else an array up to the first nil. Leaves it on the stack. */
static void table_reply(client *c, lua_State *L, int resp) {
    if (field(L, "err") == LUA_TSTRING) {
        const char *msg = lua_tostring(L, -1);
        lua_pushvalue(L, -2);
        int count = scriptl_error_counts(L);
        lua_pop(L, 1);
        scriptl_error_reply(c, msg, count);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (field(L, "ok") == LUA_TSTRING) {
        size_t len;
        char *t = no_crlf(L, &len);
        reply_status(c, t);
        free(t);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (field(L, "double") == LUA_TNUMBER) {
        reply_double(c, lua_tonumber(L, -1));
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (field(L, "big_number") == LUA_TSTRING) {
        size_t len;
        char *t = no_crlf(L, &len);
        reply_bignum(c, t, len);
        free(t);
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    if (field(L, "verbatim_string") == LUA_TTABLE) {
        if (field(L, "format") == LUA_TSTRING) {
            lua_pushstring(L, "string");
            lua_rawget(L, -3); /* of the verbatim_string table, below format */
            if (lua_type(L, -1) == LUA_TSTRING) {
                size_t len;
                const char *s = lua_tolstring(L, -1, &len);
                char fmt[4] = {0};
                strncpy(fmt, lua_tostring(L, -2), 3);
                reply_verbatim(c, s, len, fmt);
                lua_pop(L, 3);
                return;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    int is_map = field(L, "map") == LUA_TTABLE, is_set = 0;
    if (!is_map) {
        lua_pop(L, 1);
        is_set = field(L, "set") == LUA_TTABLE;
    }
    if (is_map || is_set) {
        long long n = 0;
        lua_pushnil(L);
        while (lua_next(L, -2)) n++, lua_pop(L, 1);
        if (is_map) reply_map(c, n);
        else reply_set(c, n);
        lua_pushnil(L);
        while (lua_next(L, -2)) {
            if (is_map) {
                lua_pushvalue(L, -2);
                to_reply(c, L, resp); /* the key */
                to_reply(c, L, resp); /* the value */
            } else {
                lua_pop(L, 1);
                lua_pushvalue(L, -1);
                to_reply(c, L, resp);
            }
        }
        lua_pop(L, 1);
        return;
    }
    lua_pop(L, 1);
    long long n = 0;
    for (;;) {
        lua_rawgeti(L, -1, (int)n + 1);
        int nil = lua_isnil(L, -1);
        lua_pop(L, 1);
        if (nil) break;
        n++;
    }
    reply_array(c, n);
    for (long long j = 1; j <= n; j++) {
        lua_rawgeti(L, -1, (int)j);
        to_reply(c, L, resp);
    }
}

/* Converts and pops the value on top. */
static void to_reply(client *c, lua_State *L, int resp) {
    if (!lua_checkstack(L, 4)) {
        reply_error(c, "ERR reached lua stack limit");
        lua_pop(L, 1);
        return;
    }
    switch (lua_type(L, -1)) {
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, -1, &len);
        reply_bulk(c, s, len);
        break;
    }
    case LUA_TBOOLEAN:
        if (resp == 2) {
            if (lua_toboolean(L, -1)) reply_int(c, 1);
            else reply_null(c);
        } else {
            reply_bool(c, lua_toboolean(L, -1));
        }
        break;
    case LUA_TNUMBER:
        reply_int(c, (long long)lua_tonumber(L, -1));
        break;
    case LUA_TTABLE:
        table_reply(c, L, resp);
        break;
    default:
        reply_null(c);
    }
    lua_pop(L, 1);
}

void scriptl_reply(client *c, lua_State *L, int resp) {
    lua_pushvalue(L, -1);
    to_reply(c, L, resp);
}
