/* script_libs: script libraries Redis embeds, written here with Redis's
 * API and behaviour (bit is in script_bit.c, cmsgpack in script_msgpack.c):
 * - struct (Redis's lua_struct: pack, unpack, size; formats > < ! x b B h
 *   H l L T i[n] I[n] f d s c[n]);
 * - Redis's deterministic math.random / math.randomseed (redisLrand48, the
 *   drand48 generator, starting from Redis's initial state, rand.c's
 *   X0..X2, and not reseeded per script, as Redis 7.0: the same sequence
 *   on every fresh server).
 * Main thread only (the generator's state is global, as Redis's). */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lauxlib.h"
#include "script_int.h"

/* ---- math.random ---- */

static uint64_t rand48 = 0x1234ABCD330EULL;

void scriptl_srand48(int32_t seed) {
    rand48 = ((uint64_t)(uint32_t)seed << 16 | 0x330E) & 0xFFFFFFFFFFFFULL;
}

static int32_t lrand48_r(void) {
    rand48 = (0x5DEECE66DULL * rand48 + 0xB) & 0xFFFFFFFFFFFFULL;
    return (int32_t)(rand48 >> 17);
}

static int l_random(lua_State *L) {
    lua_Number r = (lua_Number)(lrand48_r() % INT32_MAX) / (lua_Number)INT32_MAX;
    switch (lua_gettop(L)) {
    case 0:
        lua_pushnumber(L, r);
        break;
    case 1: {
        int u = luaL_checkint(L, 1);
        luaL_argcheck(L, 1 <= u, 1, "interval is empty");
        lua_pushnumber(L, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(L, 1), u = luaL_checkint(L, 2);
        luaL_argcheck(L, l <= u, 2, "interval is empty");
        lua_pushnumber(L, floor(r * (u - l + 1)) + l);
        break;
    }
    default:
        return luaL_error(L, "wrong number of arguments");
    }
    return 1;
}

static int l_randomseed(lua_State *L) {
    scriptl_srand48(luaL_checkint(L, 1));
    return 0;
}

void scriptl_install_random(lua_State *L) {
    lua_getglobal(L, "math");
    lua_pushcfunction(L, l_random);
    lua_setfield(L, -2, "random");
    lua_pushcfunction(L, l_randomseed);
    lua_setfield(L, -2, "randomseed");
    lua_pop(L, 1);
}

/* ---- struct ---- */

#define ST_MAXINTSIZE 32
#define ST_MAXALIGN 8
enum { ST_BIG = 0, ST_LITTLE = 1 };
typedef struct { int endian, align; } st_header;

static int st_getnum(lua_State *L, const char **fmt, int df) {
    if (!isdigit((unsigned char)**fmt)) return df;
    int a = 0;
    do {
        if (a > INT_MAX / 10 || a * 10 > INT_MAX - (**fmt - '0'))
            luaL_error(L, "integral size overflow");
        a = a * 10 + *((*fmt)++) - '0';
    } while (isdigit((unsigned char)**fmt));
    return a;
}

static size_t st_optsize(lua_State *L, char opt, const char **fmt) {
    switch (opt) {
    case 'B': case 'b': return 1;
    case 'H': case 'h': return sizeof(short);
    case 'L': case 'l': return sizeof(long);
    case 'T': return sizeof(size_t);
    case 'f': return sizeof(float);
    case 'd': return sizeof(double);
    case 'x': return 1;
    case 'c': return (size_t)st_getnum(L, fmt, 1);
    case 'i': case 'I': {
        int sz = st_getnum(L, fmt, sizeof(int));
        if (sz > ST_MAXINTSIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", sz, ST_MAXINTSIZE);
        return (size_t)sz;
    }
    default: return 0;
    }
}

static size_t st_toalign(size_t len, const st_header *h, int opt, size_t size) {
    if (size == 0 || opt == 'c') return 0;
    if (size > (size_t)h->align) size = (size_t)h->align;
    return (size - (len & (size - 1))) & (size - 1);
}

static void st_control(lua_State *L, int opt, const char **fmt, st_header *h) {
    switch (opt) {
    case ' ': return;
    case '>': h->endian = ST_BIG; return;
    case '<': h->endian = ST_LITTLE; return;
    case '!': {
        int a = st_getnum(L, fmt, ST_MAXALIGN);
        if (a <= 0 || (a & (a - 1))) luaL_error(L, "alignment %d is not a power of 2", a);
        h->align = a;
        return;
    }
    default:
        luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

static void st_init(st_header *h) {
    h->endian = ST_LITTLE; /* native on the platforms verso builds for */
    h->align = 1;
}

/* A float or double in the byte order asked (memory holds little endian). */
static void st_order(char *p, size_t n, int endian) {
    if (endian == ST_LITTLE) return;
    for (size_t i = 0; i < n / 2; i++) {
        char t = p[i];
        p[i] = p[n - 1 - i];
        p[n - 1 - i] = t;
    }
}

static void st_putint(lua_State *L, luaL_Buffer *b, int argi, int endian, size_t size) {
    lua_Number n = luaL_checknumber(L, argi);
    uint64_t v = n < 0 ? (uint64_t)(int64_t)n : (uint64_t)n;
    char buf[ST_MAXINTSIZE];
    int neg = n < 0;
    for (size_t i = 0; i < size; i++) {
        size_t at = endian == ST_LITTLE ? i : size - 1 - i;
        buf[at] = (char)(i < 8 ? (v >> (8 * i) & 0xff) : (neg ? 0xffu : 0u));
    }
    luaL_addlstring(b, buf, size);
}

static int st_pack(lua_State *L) {
    st_header h;
    const char *fmt = luaL_checkstring(L, 1);
    int argi = 2;
    size_t total = 0;
    st_init(&h);
    lua_pushnil(L); /* separates the arguments from the buffer */
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    while (*fmt) {
        int opt = *fmt++;
        size_t size = st_optsize(L, (char)opt, &fmt);
        size_t pad = st_toalign(total, &h, opt, size);
        total += pad;
        while (pad-- > 0) luaL_addchar(&b, '\0');
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i':
        case 'I':
            st_putint(L, &b, argi++, h.endian, size);
            break;
        case 'x':
            luaL_addchar(&b, '\0');
            break;
        case 'f': {
            float f = (float)luaL_checknumber(L, argi++);
            st_order((char *)&f, size, h.endian);
            luaL_addlstring(&b, (char *)&f, size);
            break;
        }
        case 'd': {
            double d = luaL_checknumber(L, argi++);
            st_order((char *)&d, size, h.endian);
            luaL_addlstring(&b, (char *)&d, size);
            break;
        }
        case 'c': case 's': {
            size_t l;
            const char *s = luaL_checklstring(L, argi++, &l);
            if (size == 0) size = l;
            luaL_argcheck(L, l >= size, argi, "string too short");
            luaL_addlstring(&b, s, size);
            if (opt == 's') {
                luaL_addchar(&b, '\0');
                size++;
            }
            break;
        }
        default:
            st_control(L, opt, &fmt, &h);
        }
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

static lua_Number st_getint(const char *p, int endian, int issigned, size_t size) {
    uint64_t l = 0;
    size_t n = size > 8 ? 8 : size;
    for (size_t i = 0; i < n; i++) {
        size_t at = endian == ST_LITTLE ? n - 1 - i : size - n + i;
        l = l << 8 | (unsigned char)p[at];
    }
    if (!issigned) return (lua_Number)l;
    uint64_t mask = ~(uint64_t)0 << (n * 8 - 1);
    if (l & mask) l |= mask;
    return (lua_Number)(int64_t)l;
}

static int st_unpack(lua_State *L) {
    st_header h;
    const char *fmt = luaL_checkstring(L, 1);
    size_t ld;
    const char *data = luaL_checklstring(L, 2, &ld);
    lua_Integer start = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, start > 0, 3, "offset must be 1 or greater");
    size_t pos = (size_t)start - 1;
    int n = 0;
    st_init(&h);
    while (*fmt) {
        int opt = *fmt++;
        size_t size = st_optsize(L, (char)opt, &fmt);
        pos += st_toalign(pos, &h, opt, size);
        luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
        luaL_checkstack(L, 2, "too many results");
        switch (opt) {
        case 'b': case 'B': case 'h': case 'H': case 'l': case 'L': case 'T': case 'i':
        case 'I':
            lua_pushnumber(L, st_getint(data + pos, h.endian, islower(opt), size));
            n++;
            break;
        case 'x':
            break;
        case 'f': {
            float f;
            memcpy(&f, data + pos, size);
            st_order((char *)&f, sizeof f, h.endian);
            lua_pushnumber(L, f);
            n++;
            break;
        }
        case 'd': {
            double d;
            memcpy(&d, data + pos, size);
            st_order((char *)&d, sizeof d, h.endian);
            lua_pushnumber(L, d);
            n++;
            break;
        }
        case 'c':
            if (size == 0) {
                if (n == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
                size = (size_t)lua_tonumber(L, -1);
                lua_pop(L, 1);
                n--;
                luaL_argcheck(L, size <= ld && pos <= ld - size, 2, "data string too short");
            }
            lua_pushlstring(L, data + pos, size);
            n++;
            break;
        case 's': {
            const char *e = memchr(data + pos, '\0', ld - pos);
            if (!e) luaL_error(L, "unfinished string in data");
            size = (size_t)(e - (data + pos)) + 1;
            lua_pushlstring(L, data + pos, size - 1);
            n++;
            break;
        }
        default:
            st_control(L, opt, &fmt, &h);
        }
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos + 1);
    return n + 1;
}

static int st_size(lua_State *L) {
    st_header h;
    const char *fmt = luaL_checkstring(L, 1);
    size_t pos = 0;
    st_init(&h);
    while (*fmt) {
        int opt = *fmt++;
        size_t size = st_optsize(L, (char)opt, &fmt);
        pos += st_toalign(pos, &h, opt, size);
        if (opt == 's') luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0) luaL_argerror(L, 1, "option 'c0' has no fixed size");
        if (!isalnum(opt)) st_control(L, opt, &fmt, &h);
        pos += size;
    }
    lua_pushinteger(L, (lua_Integer)pos);
    return 1;
}

int scriptl_open_struct(lua_State *L) {
    static const luaL_Reg fns[] = {
        {"pack", st_pack}, {"unpack", st_unpack}, {"size", st_size}, {NULL, NULL}};
    luaL_register(L, "struct", fns);
    return 1;
}
