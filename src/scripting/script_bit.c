/* script_bit: the `bit` library of scripts, our own implementation of
 * LuaBitOp 1.0.2's API (the module Redis embeds as lua_bit.c): tobit,
 * tohex, bnot, band, bor, bxor, lshift, rshift, arshift, rol, ror, bswap,
 * on 32-bit integers. Arguments become 32 bits as LuaBitOp makes them
 * (the number plus 2^52 + 2^51, whose low mantissa bits are then the
 * integer rounded to nearest-even, modulo 2^32), results are signed.
 * tohex(x, n): |n| digits (at most 8), upper case for a negative n; n of
 * -2^31 is 8 upper-case digits, where LuaBitOp negated it into a
 * negative count and wrote before its buffer (CVE-2024-31449; Redis's
 * fix gives the same reply). Main thread only (no state). */
#include <stdint.h>

#include "lauxlib.h"
#include "script_int.h"

static uint32_t bit_arg(lua_State *L, int idx) {
    union {
        lua_Number n;
        uint64_t bits;
    } u;
    u.n = luaL_checknumber(L, idx) + 6755399441055744.0; /* 2^52 + 2^51 */
    return (uint32_t)u.bits;
}

static int bit_push(lua_State *L, uint32_t b) {
    lua_pushnumber(L, (lua_Number)(int32_t)b);
    return 1;
}

static int bit_tobit(lua_State *L) { return bit_push(L, bit_arg(L, 1)); }
static int bit_bnot(lua_State *L) { return bit_push(L, ~bit_arg(L, 1)); }

static int bit_band(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    for (int i = lua_gettop(L); i > 1; i--) b &= bit_arg(L, i);
    return bit_push(L, b);
}

static int bit_bor(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    for (int i = lua_gettop(L); i > 1; i--) b |= bit_arg(L, i);
    return bit_push(L, b);
}

static int bit_bxor(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    for (int i = lua_gettop(L); i > 1; i--) b ^= bit_arg(L, i);
    return bit_push(L, b);
}

/* The shift count: the second argument modulo 32. */
static unsigned bit_count(lua_State *L) { return bit_arg(L, 2) & 31u; }

static int bit_lshift(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    return bit_push(L, b << bit_count(L));
}

static int bit_rshift(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    return bit_push(L, b >> bit_count(L));
}

static int bit_arshift(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    unsigned n = bit_count(L);
    /* the sign bit copied in from the left, without a signed shift */
    uint32_t fill = (b & 0x80000000u) && n ? ~(uint32_t)0 << (32 - n) : 0;
    return bit_push(L, (b >> n) | fill);
}

static int bit_rol(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    unsigned n = bit_count(L);
    return bit_push(L, n ? (b << n) | (b >> (32 - n)) : b);
}

static int bit_ror(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    unsigned n = bit_count(L);
    return bit_push(L, n ? (b >> n) | (b << (32 - n)) : b);
}

static int bit_bswap(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    b = (b >> 24) | ((b >> 8) & 0xff00u) | ((b & 0xff00u) << 8) | (b << 24);
    return bit_push(L, b);
}

static int bit_tohex(lua_State *L) {
    uint32_t b = bit_arg(L, 1);
    int32_t n = lua_isnone(L, 2) ? 8 : (int32_t)bit_arg(L, 2);
    const char *digits = "0123456789abcdef";
    /* the count's magnitude in unsigned arithmetic: -(-2^31) is no int */
    uint32_t count = (uint32_t)n;
    if (n < 0) {
        digits = "0123456789ABCDEF";
        count = 0u - count;
    }
    if (count > 8) count = 8;
    char buf[8];
    for (uint32_t i = count; i-- > 0; b >>= 4) buf[i] = digits[b & 15u];
    lua_pushlstring(L, buf, count);
    return 1;
}

int scriptl_open_bit(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"tobit", bit_tobit},     {"bnot", bit_bnot},       {"band", bit_band},
        {"bor", bit_bor},         {"bxor", bit_bxor},       {"lshift", bit_lshift},
        {"rshift", bit_rshift},   {"arshift", bit_arshift}, {"rol", bit_rol},
        {"ror", bit_ror},         {"bswap", bit_bswap},     {"tohex", bit_tohex},
        {NULL, NULL}};
    luaL_register(L, "bit", fns);
    return 1;
}
