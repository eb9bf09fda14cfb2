/* Integration tests of the scripting sandbox against the Lua bugs Redis
 * fixed: one test per CVE, each holding the exploit input, asserting the
 * reply of a fixed Redis and that the server is still up after it (PING
 * from the same client and from a second one). The Lua is verso's own
 * build (deps/lua/patches, Makefile.am's "Lua" part). Every test runs
 * against redis-server too (VERSO_SERVER=/usr/bin/redis-server): Debian
 * 12's 7.0.15-1~deb12u6 and later carry Redis's fixes and give the same
 * replies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static void teardown(void) {
    h_teardown();
    h_srv_drop_all();
}

/* The error EVAL's script must answer starts with want (the rest is the
 * script's sha and line). */
#define eval_error(c, want, script) expect_error_prefix(c, want, "EVAL %s 0", script)

/* The error of a write to a read-only table: made by Lua code (with the
 * script's position) and by a C function (rawset, table.insert...). */
static const char ro[] = "ERR user_script:1: Attempt to modify a readonly table script: ";
static const char ro_c[] = "ERR Attempt to modify a readonly table script: ";

/* The server answers, on c and on a new connection. */
static void still_up(redisContext *c) {
    expect_status(c, "PONG", "PING");
    redisContext *other = srv_connect(h_srv);
    expect_status(other, "PONG", "PING");
    redisFree(other);
}

/* CVE-2025-49844: the parser kept the chunk name's string only in a C
 * local until the prototype stored it. A load() reader that collects
 * garbage on its first call freed it: the error message then named
 * whatever reused the memory ("[string \"abcdefg1\"]", a use-after-free
 * under ASan). Anchored, the name is load()'s default, "=(load)". */
START_TEST(cve_2025_49844_parser_uaf) {
    redisContext *c = h_c;
    const char *script =
        "local n = 0 "
        "local f = load(function() "
        "  n = n + 1 "
        "  if n == 1 then "
        "    collectgarbage('collect') "
        "    return \"local abcdefg1 = 1 error('boom')\" "
        "  end "
        "  return nil "
        "end) "
        "local ok, e = pcall(f) "
        "return e";
    for (int i = 0; i < 3; i++) expect_bulk(c, "(load):1: boom", "EVAL %s 0", script);
    /* loadstring of sources built at run time, collections between them */
    expect_int(c, 200, "EVAL %s 0",
               "local s = 0 for i = 1, 200 do collectgarbage('collect') "
               "s = s + loadstring('return ' .. i .. ' - ' .. (i - 1))() end return s");
    still_up(c);
}
END_TEST

/* CVE-2025-46817: unpack() counted e - i + 1 in int; the range
 * INT_MIN..INT_MAX overflowed it and pushed past the stack (SIGSEGV). */
START_TEST(cve_2025_46817_unpack) {
    redisContext *c = h_c;
    eval_error(c, "ERR user_script:1: too many results to unpack script: ",
               "return unpack({}, -2147483648, 2147483647)");
    eval_error(c, "ERR user_script:1: too many results to unpack script: ",
               "return unpack({}, -2, 2147483647)");
    eval_error(c, "ERR user_script:1: too many results to unpack script: ",
               "return unpack({}, 1, 8000)");
    /* ranges at the ends of int still work */
    redisReply *r = expect_array(c, 0, "EVAL %s 0", "return {unpack({}, 2147483646, 2147483647)}");
    freeReplyObject(r);
    expect_nil(c, "EVAL %s 0", "return unpack({1, 2}, 2147483647, 2147483647)");
    expect_int(c, 2, "EVAL %s 0", "return select('#', unpack({}, -2147483648, -2147483647))");
    expect_int(c, 3, "EVAL %s 0", "return select(3, unpack({1, 2, 3}))");
    expect_int(c, 7900, "EVAL %s 0", "return select('#', unpack({}, 1, 7900))");
    still_up(c);
}
END_TEST

/* CVE-2025-46818: the metatable of strings is shared by every script and
 * so by every client. A script that replaced getmetatable('').__index.upper
 * (or the metatable's __index) changed ('abc'):upper() for everyone; the
 * metatables of the basic types and the library tables are read only. */
START_TEST(cve_2025_46818_basic_type_metatables) {
    redisContext *c = h_c;
    eval_error(c, ro, "getmetatable('').__index.upper = function() return 'HIJACKED' end");
    eval_error(c, ro, "getmetatable('').__index = {upper = function() return 'HIJACKED' end}");
    eval_error(c, ro, "getmetatable('').__add = function() return 1 end");
    eval_error(c, ro, "local mt = getmetatable('a') mt.__index = nil");
    eval_error(c, ro_c, "rawset(getmetatable(''), '__index', {})");
    eval_error(c, ro_c, "rawset(getmetatable('').__index, 'upper', tostring)");
    eval_error(c, ro_c, "setmetatable(getmetatable(''), {__index = function() return 1 end})");
    eval_error(c, ro_c, "table.insert(getmetatable('').__index, 1)");
    /* every client still gets the real string library */
    expect_bulk(c, "ABC", "EVAL %s 0", "return ('abc'):upper()");
    redisContext *other = srv_connect(h_srv);
    expect_bulk(other, "ABC", "EVAL %s 0", "return ('abc'):upper()");
    expect_bulk(other, "bc", "EVAL %s 0", "return ('abc'):sub(2)");
    expect_bulk(other, "X", "EVAL %s 0", "return getmetatable('').__index.upper('x')");
    redisFree(other);
    /* the other basic types have no metatable a script could reach */
    expect_bulk(c, "nil nil nil", "EVAL %s 0",
                "return tostring(getmetatable(1)) .. ' ' .. tostring(getmetatable(true)) .. ' ' "
                ".. tostring(getmetatable(nil))");
    still_up(c);
}
END_TEST

/* CVE-2025-46819: an error before the first token (2^31 newlines streamed
 * through load()'s reader: "chunk has too many lines") formatted an
 * uninitialized token, an out-of-bounds read that crashed the server. The
 * long-bracket levels are counted in size_t now; their replies stay. */
START_TEST(cve_2025_46819_lexer) {
    redisContext *c = h_c;
    expect_bulk(c, "(load):2147483645: chunk has too many lines", "EVAL %s 0",
                "local s = string.rep('\\n', 2^20) local n = 0 "
                "local f, e = load(function() n = n + 1 if n <= 2048 then return s end end) "
                "return e");
    still_up(c);
    expect_bulk(c, "x", "EVAL %s 0", "return loadstring('return [==[x]==]')()");
    expect_bulk(c, " ]] [[ ", "EVAL %s 0", "return loadstring('return [=[ ]] [[ ]=]')()");
    expect_int(c, 7, "EVAL %s 0", "return loadstring('--[==[ c ]] ]=] ]==] return 7')()");
    expect_bulk(c, " [[ ", "EVAL %s 0", "return loadstring('return [[ [[ ]]')()");
    expect_bulk(c, "[string \"return [==\"]:1: invalid long string delimiter near '[=='",
                "EVAL %s 0", "return select(2, loadstring('return [=='))");
    expect_bulk(c, "[string \"return [==[abc\"]:1: unfinished long string near '<eof>'",
                "EVAL %s 0", "return select(2, loadstring('return [==[abc'))");
    expect_bulk(c, "[string \"--[==[ abc\"]:1: unfinished long comment near '<eof>'",
                "EVAL %s 0", "return select(2, loadstring('--[==[ abc'))");
    /* a long run of '=' in a bracket */
    expect_int(c, 100000, "EVAL %s 0",
               "local eq = string.rep('=', 100000) "
               "return #loadstring('return [' .. eq .. '[' .. string.rep('a', 100000) .. ']' .. eq "
               ".. ']')()");
    still_up(c);
}
END_TEST

/* CVE-2024-46981: SCRIPT FLUSH closed the Lua state with its garbage
 * uncollected; Redis (and verso) collect it fully first. No script can
 * make a userdata with a finalizer (newproxy is gone), and the state is
 * rebuilt fine after every flush. */
START_TEST(cve_2024_46981_flush_gc) {
    redisContext *c = h_c;
    eval_error(c, "ERR user_script:1: Script attempted to access nonexistent global variable "
                  "'newproxy' script: ",
               "return newproxy(true)");
    for (int round = 0; round < 3; round++) {
        expect_int(c, 20000, "EVAL %s 0",
                   "local t = {} for i = 1, 20000 do local x = {i, tostring(i)} x[3] = x "
                   "t[i] = x end local co = coroutine.create(function() coroutine.yield(t) end) "
                   "coroutine.resume(co) return #t");
        expect_bulk(c, "{\"a\":[1,2]}", "EVAL %s 0", "return cjson.encode({a = {1, 2}})");
        redisReply *r = cmd(c, "SCRIPT LOAD %s", "return 'cached'");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        freeReplyObject(r);
        expect_status(c, "OK", round == 1 ? "SCRIPT FLUSH ASYNC" : "SCRIPT FLUSH");
        expect_int(c, 0, "EVAL %s 0", "return #KEYS");
        expect_int(c, 2, "EVAL %s 0", "return 1 + 1");
    }
    still_up(c);
}
END_TEST

/* CVE-2024-31449: bit.tohex(x, INT_MIN) negated the count into a
 * negative one and wrote before its buffer (SIGSEGV). */
START_TEST(cve_2024_31449_bit_tohex) {
    redisContext *c = h_c;
    expect_bulk(c, "0000FFFF", "EVAL %s 0", "return bit.tohex(65535, -2147483648)");
    expect_bulk(c, "0000FFFF", "EVAL %s 0", "return bit.tohex(65535, -2147483647)");
    expect_bulk(c, "0000ffff", "EVAL %s 0", "return bit.tohex(65535, 2147483647)");
    expect_bulk(c, "ffffffff", "EVAL %s 0", "return bit.tohex(-1)");
    expect_bulk(c, "00FF", "EVAL %s 0", "return bit.tohex(255, -4)");
    expect_bulk(c, "", "EVAL %s 0", "return bit.tohex(255, 0)");
    /* the rest of LuaBitOp's API, as Redis's lua_bit answers */
    redisReply *r = expect_array(c, 9, "EVAL %s 0",
                                 "return {bit.tobit(2^32 + 1), bit.tobit(1.5), bit.tobit(2.5), "
                                 "bit.tobit(0xffffffff), bit.lshift(1, 33), bit.arshift(-256, 4), "
                                 "bit.rol(0x12345678, 12), bit.bswap(0x12345678), bit.bnot(0)}");
    const long long want[] = {1, 2, 2, -1, 2, -16, 0x45678123, 0x78563412, -1};
    for (size_t i = 0; i < 9; i++) check_int(r->element[i], want[i]);
    freeReplyObject(r);
    eval_error(c, "ERR user_script:1: bad argument #1 to 'tohex' (number expected, got string) "
                  "script: ",
               "return bit.tohex('x')");
    eval_error(c, "ERR user_script:1: bad argument #1 to 'band' (number expected, got no value) "
                  "script: ",
               "return bit.band()");
    still_up(c);
}
END_TEST

/* CVE-2022-24834: cjson reserved len * 6 + 2 bytes in int, which a
 * 357913941-byte string makes 2^31: nothing was reserved and the string
 * was written past a 1 KB buffer. cmsgpack grows its buffer in size_t. */
START_TEST(cve_2022_24834_cjson_cmsgpack) {
    redisContext *c = h_c;
    expect_int(c, 357913943, "EVAL %s 0", "return #cjson.encode(string.rep('a', 357913941))");
    still_up(c);
    expect_int(c, 357913946, "EVAL %s 0", "return #cmsgpack.pack(string.rep('a', 357913941))");
    still_up(c);
    /* the worst case of the reservation: every byte escaped */
    expect_int(c, 6 * 1000000 + 2, "EVAL %s 0",
               "return #cjson.encode(string.rep('\\1', 1000000))");
    expect_int(c, 1000000, "EVAL %s 0",
               "return #cjson.decode(cjson.encode(string.rep('\\1', 1000000)))");
    still_up(c);
}
END_TEST

/* Sends EVAL script 0 on a raw socket and returns all that arrives within
 * a second (malloc'd): replies nested deeper than hiredis reads. */
static char *raw_eval(const char *script, size_t cap) {
    int fd = raw_connect(h_srv->port);
    char head[64];
    snprintf(head, sizeof head, "*3\r\n$4\r\nEVAL\r\n$%zu\r\n", strlen(script));
    ck_assert_int_eq(raw_send_str(fd, head), 0);
    ck_assert_int_eq(raw_send_str(fd, script), 0);
    ck_assert_int_eq(raw_send_str(fd, "\r\n$1\r\n0\r\n"), 0);
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    int closed = 0;
    raw_read(fd, buf, cap, cap - 1, h_scaled_ms(1000), &closed);
    ck_assert_int_eq(closed, 0);
    close(fd);
    return buf;
}

/* CVE-2021-32626: pushing many values without lua_checkstack wrote past
 * the Lua stack: a reply that nests without end, deep MessagePack, many
 * results or arguments. Each now stops at the stack's bound with Redis's
 * error. */
START_TEST(cve_2021_32626_lua_stack) {
    redisContext *c = h_c;
    char *out = raw_eval("local a = {} local b = {a} a[1] = b return a", 1 << 20);
    ck_assert_msg(!strncmp(out, "*1\r\n*1\r\n*1\r\n", 12), "reply: %.40s", out);
    ck_assert_msg(strstr(out, "-ERR reached lua stack limit\r\n") != NULL, "no stack limit error");
    free(out);
    eval_error(c, "ERR user_script:1: stack overflow (in function mp_decode_to_lua_array) script: ",
               "return cmsgpack.unpack(string.rep('\\145', 10000) .. '\\192')");
    eval_error(c, "ERR user_script:1: stack overflow (too many return values at once; use "
                  "unpack_one or unpack_limit instead.) script: ",
               "return #{cmsgpack.unpack(string.rep('\\192', 10000))}");
    expect_int(c, 100, "EVAL %s 0",
               "local t = cmsgpack.unpack(string.rep('\\145', 100) .. '\\192') local d = 0 "
               "while type(t) == 'table' do d = d + 1 t = t[1] end return d");
    /* redis.call with thousands of arguments */
    expect_int(c, 7900, "EVAL %s 0",
               "local t = {'rpush', 'l'} for i = 1, 7900 do t[#t + 1] = i end "
               "return redis.call(unpack(t))");
    eval_error(c, "ERR user_script:1: too many results to unpack script: ",
               "local t = {'rpush', 'l2'} for i = 1, 8100 do t[#t + 1] = i end "
               "return redis.call(unpack(t))");
    expect_int(c, 7900, "LLEN l");
    still_up(c);
}
END_TEST

/* CVE-2022-0543 (Debian's Redis only: the package library reached
 * package.loadlib, hence liblua's io.popen): nothing of package, require,
 * module or loadlib is reachable, through the globals or the libraries. */
START_TEST(cve_2022_0543_loadlib) {
    redisContext *c = h_c;
    eval_error(c, "ERR user_script:1: Script attempted to access nonexistent global variable "
                  "'package' script: ",
               "local io_l = package.loadlib('/usr/lib/x86_64-linux-gnu/liblua5.1.so.0', "
               "'luaopen_io') local io = io_l() return io.popen('id'):read('*a')");
    eval_error(c, "ERR user_script:1: Script attempted to access nonexistent global variable "
                  "'require' script: ",
               "return require('io')");
    eval_error(c, "ERR user_script:1: Script attempted to access nonexistent global variable "
                  "'io' script: ",
               "return io.popen('id')");
    eval_error(c, "ERR user_script:1: Script attempted to access nonexistent global variable "
                  "'os' script: ",
               "return os.execute('id')");
    expect_int(c, 1, "EVAL %s 0",
               "return rawget(_G, 'package') == nil and rawget(_G, 'require') == nil and "
               "rawget(_G, 'module') == nil and rawget(_G, 'loadlib') == nil and "
               "rawget(_G, 'io') == nil and rawget(_G, 'os') == nil");
    still_up(c);
}
END_TEST

/* Precompiled chunks are refused (Redis since CVE-2015-4335): loadstring
 * of string.dump's output and an EVAL body that starts with "\033Lua"
 * both meet the text parser. */
START_TEST(binary_chunks_refused) {
    redisContext *c = h_c;
    expect_bulk(c, "nil [string \"\033LuaQ\"]:1: unexpected symbol near 'char(27)'", "EVAL %s 0",
                "local f, e = loadstring(string.dump(function() return 1 end)) "
                "return tostring(f) .. ' ' .. e");
    expect_bulk(c, "(load):1: unexpected symbol near 'char(27)'", "EVAL %s 0",
                "local d = string.dump(function() return 1 end) local n = 0 "
                "local f, e = load(function() n = n + 1 if n == 1 then return d end end) "
                "return e");
    static const char body[] = "\033LuaQ\000\001\004\010\004\010";
    expect_error(c, "ERR Error compiling script (new function): user_script:1: unexpected symbol "
                    "near 'char(27)'",
                 "EVAL %b 0", body, sizeof body - 1);
    still_up(c);
}
END_TEST

/* Redis 7.0's protected globals: no global can be set, and the library
 * tables are read only wherever a script reaches them (by name, through
 * a local, by rawset, table.insert or setmetatable). */
START_TEST(readonly_globals_and_libraries) {
    redisContext *c = h_c;
    eval_error(c, ro, "x = 1");
    eval_error(c, ro, "_G.x = 1");
    const char *libs[] = {"redis", "string", "table", "math", "cjson",
                          "bit", "struct", "cmsgpack", "coroutine"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
        char s[128];
        snprintf(s, sizeof s, "%s.x = 1", libs[i]);
        eval_error(c, ro, s);
        snprintf(s, sizeof s, "local l = %s l.x = 1", libs[i]);
        eval_error(c, ro, s);
        snprintf(s, sizeof s, "rawset(%s, 'x', 1)", libs[i]);
        eval_error(c, ro_c, s);
        snprintf(s, sizeof s, "table.insert(%s, 1)", libs[i]);
        eval_error(c, ro_c, s);
        snprintf(s, sizeof s, "setmetatable(%s, {})", libs[i]);
        eval_error(c, ro_c, s);
    }
    eval_error(c, ro, "redis.call = function() return 1 end");
    eval_error(c, ro_c, "rawset(_G, 'x', 1)");
    eval_error(c, ro_c, "table.insert(_G, 1)");
    eval_error(c, ro_c, "setmetatable(_G, {})");
    /* nothing leaked into the next script */
    expect_int(c, 1, "EVAL %s 0", "return rawget(_G, 'x') == nil and string.x == nil and 1 or 0");
    still_up(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("lua_security");
    TCase *tc = tcase_create("lua");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, cve_2025_49844_parser_uaf);
    tcase_add_test(tc, cve_2025_46817_unpack);
    tcase_add_test(tc, cve_2025_46818_basic_type_metatables);
    tcase_add_test(tc, cve_2025_46819_lexer);
    tcase_add_test(tc, cve_2024_46981_flush_gc);
    tcase_add_test(tc, cve_2024_31449_bit_tohex);
    tcase_add_test(tc, cve_2022_24834_cjson_cmsgpack);
    tcase_add_test(tc, cve_2021_32626_lua_stack);
    tcase_add_test(tc, cve_2022_0543_loadlib);
    tcase_add_test(tc, binary_chunks_refused);
    tcase_add_test(tc, readonly_globals_and_libraries);
    suite_add_tcase(s, tc);
    return h_main(s);
}
