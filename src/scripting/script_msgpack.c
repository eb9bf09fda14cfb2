/* script_msgpack: cmsgpack for scripts, our own C implementation of Redis's
 * lua_cmsgpack API: cmsgpack.pack(v1, v2, ...) (the encodings
 * concatenated), cmsgpack.unpack(s) (every value in s), unpack_one(s
 * [,offset]) and unpack_limit(s, limit [,offset]) (the next offset, -1 at
 * the end, then the values). Encoding as Redis's: integers (numbers equal
 * to their int64) in the smallest form, other numbers float32 when exact
 * else float64, strings as fixstr/str8/str16/str32, tables as arrays when
 * their keys are exactly 1..n (empty: array) else maps, nesting deeper than
 * 16 as nil, other types as nil. Decoding takes every MessagePack type but
 * ext. Main thread only. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lauxlib.h"
#include "script_int.h"
#include "vbuf.h"

#define MP_MAX_NESTING 16

/* Encoding writes into a vbuf (luaL_Buffer cannot be interleaved with the
 * table walks' stack use); nothing in it raises a Lua error, so the vbuf
 * is always freed. */
static void put_be(vbuf *b, uint8_t tag, uint64_t v, int bytes) {
    char buf[9];
    buf[0] = (char)tag;
    for (int i = 0; i < bytes; i++) buf[1 + i] = (char)(v >> (8 * (bytes - 1 - i)) & 0xff);
    vbuf_append(b, buf, (size_t)bytes + 1);
}

static void put_byte(vbuf *b, unsigned v) {
    char ch = (char)(uint8_t)v;
    vbuf_append(b, &ch, 1);
}

static void enc_int(vbuf *b, int64_t v) {
    if (v >= 0) {
        if (v <= 127) put_byte(b, (unsigned)v);
        else if (v <= 0xff) put_be(b, 0xcc, (uint64_t)v, 1);
        else if (v <= 0xffff) put_be(b, 0xcd, (uint64_t)v, 2);
        else if (v <= 0xffffffffLL) put_be(b, 0xce, (uint64_t)v, 4);
        else put_be(b, 0xcf, (uint64_t)v, 8);
    } else {
        if (v >= -32) put_byte(b, (unsigned)(uint8_t)(int8_t)v);
        else if (v >= -128) put_be(b, 0xd0, (uint64_t)v & 0xff, 1);
        else if (v >= -32768) put_be(b, 0xd1, (uint64_t)v & 0xffff, 2);
        else if (v >= -2147483648LL) put_be(b, 0xd2, (uint64_t)v & 0xffffffff, 4);
        else put_be(b, 0xd3, (uint64_t)v, 8);
    }
}

static void enc_number(vbuf *b, lua_Number n) {
    if (!isinf(n) && !isnan(n) && n >= -9.2233720368547758e18 && n < 9.2233720368547758e18 &&
        (lua_Number)(int64_t)n == n) {
        enc_int(b, (int64_t)n);
    } else if ((double)(float)n == n || isnan(n)) {
        float f = (float)n;
        uint32_t u;
        memcpy(&u, &f, 4);
        put_be(b, 0xca, u, 4);
    } else {
        double d = n;
        uint64_t u;
        memcpy(&u, &d, 8);
        put_be(b, 0xcb, u, 8);
    }
}

static void enc_len(vbuf *b, size_t n, unsigned fix, size_t fixmax, uint8_t t8, uint8_t t16,
                    uint8_t t32) {
    if (n <= fixmax) put_byte(b, fix | (unsigned)n);
    else if (t8 && n <= 0xff) put_be(b, t8, n, 1);
    else if (n <= 0xffff) put_be(b, t16, n, 2);
    else put_be(b, t32, n, 4);
}

/* Keys exactly 1..n: the table is an array of n. */
static int table_array_len(lua_State *L, int idx, size_t *n) {
    size_t count = 0;
    lua_Number max = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            return 0;
        }
        lua_Number k = lua_tonumber(L, -1);
        if (k <= 0 || floor(k) != k) {
            lua_pop(L, 1);
            return 0;
        }
        if (k > max) max = k;
        count++;
    }
    *n = count;
    return max == (lua_Number)count;
}

static void enc_value(lua_State *L, vbuf *b, int idx, int level);

static void enc_table(lua_State *L, vbuf *b, int idx, int level) {
    size_t n;
    if (table_array_len(L, idx, &n)) {
        enc_len(b, n, 0x90, 15, 0, 0xdc, 0xdd);
        for (size_t j = 1; j <= n; j++) {
            lua_rawgeti(L, idx, (int)j);
            enc_value(L, b, lua_gettop(L), level + 1);
            lua_pop(L, 1);
        }
        return;
    }
    n = 0;
    lua_pushnil(L);
    while (lua_next(L, idx)) n++, lua_pop(L, 1);
    enc_len(b, n, 0x80, 15, 0, 0xde, 0xdf);
    lua_pushnil(L);
    while (lua_next(L, idx)) {
        int top = lua_gettop(L);
        enc_value(L, b, top - 1, level + 1);
        enc_value(L, b, top, level + 1);
        lua_pop(L, 1);
    }
}

static void enc_value(lua_State *L, vbuf *b, int idx, int level) {
    switch (lua_type(L, idx)) {
    case LUA_TBOOLEAN:
        put_byte(b, lua_toboolean(L, idx) ? 0xc3 : 0xc2);
        break;
    case LUA_TNUMBER:
        enc_number(b, lua_tonumber(L, idx));
        break;
    case LUA_TSTRING: {
        size_t len;
        const char *s = lua_tolstring(L, idx, &len);
        enc_len(b, len, 0xa0, 31, 0xd9, 0xda, 0xdb);
        vbuf_append(b, s, len);
        break;
    }
    case LUA_TTABLE:
        if (level >= MP_MAX_NESTING || !lua_checkstack(L, 4)) put_byte(b, 0xc0);
        else enc_table(L, b, idx, level);
        break;
    default:
        put_byte(b, 0xc0);
    }
}

static int mp_pack(lua_State *L) {
    int n = lua_gettop(L);
    if (n == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    vbuf b;
    vbuf_init(&b);
    for (int i = 1; i <= n; i++) enc_value(L, &b, i, 0);
    lua_pushlstring(L, b.data ? b.data : "", b.len);
    vbuf_free(&b);
    return 1;
}

/* ---- decoding ---- */

typedef struct { const unsigned char *p; size_t left; int err; } mp_cur;

static uint64_t get_be(mp_cur *c, int bytes) {
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = v << 8 | c->p[i];
    c->p += bytes;
    c->left -= (size_t)bytes;
    return v;
}

#define NEED(c, n)                        \
    do {                                  \
        if ((c)->left < (size_t)(n)) {    \
            (c)->err = 1;                 \
            return;                       \
        }                                 \
    } while (0)

static void dec_value(lua_State *L, mp_cur *c);

static void dec_str(lua_State *L, mp_cur *c, size_t len) {
    NEED(c, len);
    lua_pushlstring(L, (const char *)c->p, len);
    c->p += len;
    c->left -= len;
}

static void dec_array(lua_State *L, mp_cur *c, size_t n) {
    /* one table per level: the Lua stack bounds the nesting (and so the
     * C recursion), with Redis's error (CVE-2021-32626) */
    luaL_checkstack(L, 4, "in function mp_decode_to_lua_array");
    lua_newtable(L);
    for (size_t i = 1; i <= n && !c->err; i++) {
        dec_value(L, c);
        if (c->err) return;
        lua_rawseti(L, -2, (int)i);
    }
}

static void dec_map(lua_State *L, mp_cur *c, size_t n) {
    luaL_checkstack(L, 4, "in function mp_decode_to_lua_hash");
    lua_newtable(L);
    for (size_t i = 0; i < n && !c->err; i++) {
        dec_value(L, c);
        if (c->err) return;
        dec_value(L, c);
        if (c->err) return;
        if (lua_isnil(L, -2)) lua_pop(L, 2); /* nil keys cannot be stored */
        else lua_settable(L, -3);
    }
}

static void dec_value(lua_State *L, mp_cur *c) {
    NEED(c, 1);
    unsigned t = get_be(c, 1) & 0xff;
    if (t <= 0x7f) { lua_pushnumber(L, t); return; }
    if (t >= 0xe0) { lua_pushnumber(L, (int8_t)t); return; }
    if ((t & 0xf0) == 0x80) { dec_map(L, c, t & 0x0f); return; }
    if ((t & 0xf0) == 0x90) { dec_array(L, c, t & 0x0f); return; }
    if ((t & 0xe0) == 0xa0) { dec_str(L, c, t & 0x1f); return; }
    switch (t) {
    case 0xc0: lua_pushnil(L); return;
    case 0xc2: lua_pushboolean(L, 0); return;
    case 0xc3: lua_pushboolean(L, 1); return;
    case 0xc4: case 0xd9: NEED(c, 1); dec_str(L, c, (size_t)get_be(c, 1)); return;
    case 0xc5: case 0xda: NEED(c, 2); dec_str(L, c, (size_t)get_be(c, 2)); return;
    case 0xc6: case 0xdb: NEED(c, 4); dec_str(L, c, (size_t)get_be(c, 4)); return;
    case 0xca: {
        NEED(c, 4);
        uint32_t u = (uint32_t)get_be(c, 4);
        float f;
        memcpy(&f, &u, 4);
        lua_pushnumber(L, f);
        return;
    }
    case 0xcb: {
        NEED(c, 8);
        uint64_t u = get_be(c, 8);
        double d;
        memcpy(&d, &u, 8);
        lua_pushnumber(L, d);
        return;
    }
    case 0xcc: NEED(c, 1); lua_pushnumber(L, (lua_Number)get_be(c, 1)); return;
    case 0xcd: NEED(c, 2); lua_pushnumber(L, (lua_Number)get_be(c, 2)); return;
    case 0xce: NEED(c, 4); lua_pushnumber(L, (lua_Number)get_be(c, 4)); return;
    case 0xcf: NEED(c, 8); lua_pushnumber(L, (lua_Number)get_be(c, 8)); return;
    case 0xd0: NEED(c, 1); lua_pushnumber(L, (int8_t)get_be(c, 1)); return;
    case 0xd1: NEED(c, 2); lua_pushnumber(L, (int16_t)get_be(c, 2)); return;
    case 0xd2: NEED(c, 4); lua_pushnumber(L, (int32_t)get_be(c, 4)); return;
    case 0xd3: NEED(c, 8); lua_pushnumber(L, (lua_Number)(int64_t)get_be(c, 8)); return;
    case 0xdc: NEED(c, 2); dec_array(L, c, (size_t)get_be(c, 2)); return;
    case 0xdd: NEED(c, 4); dec_array(L, c, (size_t)get_be(c, 4)); return;
    case 0xde: NEED(c, 2); dec_map(L, c, (size_t)get_be(c, 2)); return;
    case 0xdf: NEED(c, 4); dec_map(L, c, (size_t)get_be(c, 4)); return;
    default: c->err = 2; return; /* ext types and reserved bytes */
    }
}

/* Redis's mp_unpack_full: decodes from offset up to limit values, all of
 * them when limit and offset are both 0 (then no offset is returned);
 * otherwise the next offset (-1 at the end) comes first. Only the string
 * is left on the stack below the values. */
static int mp_unpack_full(lua_State *L, lua_Integer limit, lua_Integer offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int decode_all = !limit && !offset;
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.",
                          (int)offset, (int)len);
    if ((size_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", (int)offset,
                          (int)len);
    if (decode_all) limit = INT_MAX;
    mp_cur c = {(const unsigned char *)s + offset, len - (size_t)offset, 0};
    int cnt = 0;
    while (c.left > 0 && cnt < limit) {
        luaL_checkstack(L, 2,
                        "too many return values at once; use unpack_one or unpack_limit instead.");
        dec_value(L, &c);
        if (c.err == 1) return luaL_error(L, "Missing bytes in input.");
        if (c.err) return luaL_error(L, "Bad data format in input.");
        cnt++;
    }
    if (!decode_all) {
        luaL_checkstack(L, 1, "in function mp_unpack_full");
        lua_pushinteger(L, c.left == 0 ? -1 : (lua_Integer)(len - c.left));
        lua_insert(L, 2);
        cnt++;
    }
    return cnt;
}

static int mp_unpack(lua_State *L) {
    luaL_checkstring(L, 1);
    lua_settop(L, 1);
    return mp_unpack_full(L, 0, 0);
}

static int mp_unpack_one(lua_State *L) {
    lua_Integer offset = luaL_optinteger(L, 2, 0);
    lua_settop(L, 1);
    return mp_unpack_full(L, 1, offset);
}

static int mp_unpack_limit(lua_State *L) {
    lua_Integer limit = luaL_checkinteger(L, 2);
    lua_Integer offset = luaL_optinteger(L, 3, 0);
    lua_settop(L, 1);
    return mp_unpack_full(L, limit, offset);
}

int scriptl_open_cmsgpack(lua_State *L) {
    static const luaL_Reg fns[] = {{"pack", mp_pack},
                                   {"unpack", mp_unpack},
                                   {"unpack_one", mp_unpack_one},
                                   {"unpack_limit", mp_unpack_limit},
                                   {NULL, NULL}};
    luaL_register(L, "cmsgpack", fns);
    /* Redis's module fields, for scripts that print them */
    lua_pushstring(L, "cmsgpack");
    lua_setfield(L, -2, "_NAME");
    lua_pushstring(L, "lua-cmsgpack 0.4.0");
    lua_setfield(L, -2, "_VERSION");
    lua_pushstring(L, "Copyright (C) 2012, Salvatore Sanfilippo");
    lua_setfield(L, -2, "_COPYRIGHT");
    lua_pushstring(L, "MessagePack C implementation for Lua");
    lua_setfield(L, -2, "_DESCRIPTION");
    return 1;
}
