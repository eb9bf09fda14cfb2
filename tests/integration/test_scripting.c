/* Integration tests of Lua scripting: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO
 * and SCRIPT: the type conversions both ways (RESP2, redis.setresp(3),
 * a RESP3 client), error texts, the sandbox, the libraries (cjson,
 * cmsgpack, struct, bit), busy scripts (-BUSY, SCRIPT KILL, UNKILLABLE,
 * SHUTDOWN NOSAVE), effects replication in the AOF, a save cut next to a
 * script, keys expiring as of the script's start, and INFO's scripting
 * fields. Every test runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static void teardown(void) {
    h_teardown();
    h_srv_drop_all();
}

/* EVAL of a script without keys must answer the error err exactly. */
#define eval_error(c, err, script) expect_error(c, err, "EVAL %s 0", script)

/* The 40 hex digits of sha1(script) (as EVAL names it in errors). */
static void script_sha(redisContext *c, const char *script, char sha[41]) {
    redisReply *r = cmd(c, "SCRIPT LOAD %s", script);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 40);
    memcpy(sha, r->str, 41);
    freeReplyObject(r);
}

/* The error EVAL script must answer: "<msg> script: <sha>, on @user_script:<line>." */
static void eval_script_error(redisContext *c, const char *script, const char *msg, int line) {
    char sha[41], want[512];
    script_sha(c, script, sha);
    snprintf(want, sizeof want, "%s script: %s, on @user_script:%d.", msg, sha, line);
    expect_error(c, want, "EVAL %s 0", script);
}

START_TEST(lua_to_redis_conversions) {
    redisContext *c = h_c;
    expect_int(c, 3, "EVAL %s 0", "return 3.99");
    expect_int(c, -2, "EVAL %s 0", "return -2.5");
    expect_bulk(c, "ciao", "EVAL %s 0", "return 'ciao'");
    expect_int(c, 1, "EVAL %s 0", "return true");
    expect_nil(c, "EVAL %s 0", "return false");
    expect_nil(c, "EVAL %s 0", "return nil");
    expect_status(c, "FINE", "EVAL %s 0", "return redis.status_reply('FINE')");
    expect_status(c, "a  b", "EVAL %s 0", "return {ok='a\\r\\nb'}");
    expect_error(c, "My Error", "EVAL %s 0", "return redis.error_reply('My Error')");
    expect_error(c, "ERR x", "EVAL %s 0", "return redis.error_reply('x')");
    expect_error(c, "CODE the msg", "EVAL %s 0", "return redis.error_reply('-CODE the msg')");
    expect_error(c, "no code", "EVAL %s 0", "return {err='no code'}");
    expect_error(c, "ERR wrong number or type of arguments", "EVAL %s 0",
                 "return redis.error_reply()");
    /* arrays stop at the first nil; nested arrays; numbers truncated */
    redisReply *r = expect_array(c, 5, "EVAL %s 0", "return {1,2,3,'x',{1.5,{true}},nil,7}");
    check_int(r->element[0], 1);
    check_bulk(r->element[3], "x");
    ck_assert_int_eq(r->element[4]->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->element[4]->elements, 2);
    check_int(r->element[4]->element[0], 1);
    check_int(r->element[4]->element[1]->element[0], 1);
    freeReplyObject(r);
    r = expect_array(c, 2, "EVAL %s 0", "return {1,2,nil,4}");
    freeReplyObject(r);
    /* RESP3-only forms to a RESP2 client */
    expect_bulk(c, "3.5", "EVAL %s 0", "return {double=3.5}");
    expect_bulk(c, "123", "EVAL %s 0", "return {big_number='123'}");
    expect_bulk(c, "hi", "EVAL %s 0", "return {verbatim_string={format='txt', string='hi'}}");
    r = expect_array(c, 2, "EVAL %s 0", "return {map={a='1'}}");
    check_bulk(r->element[0], "a");
    check_bulk(r->element[1], "1");
    freeReplyObject(r);
    r = expect_array(c, 1, "EVAL %s 0", "return {set={a=true}}");
    check_bulk(r->element[0], "a");
    freeReplyObject(r);
    /* KEYS and ARGV */
    r = expect_array(c, 4, "EVAL %s 2 k1 k2 a1 a2", "return {KEYS[1],KEYS[2],ARGV[1],ARGV[2]}");
    check_bulk(r->element[0], "k1");
    check_bulk(r->element[3], "a2");
    freeReplyObject(r);
    expect_int(c, 0, "EVAL %s 0", "return #KEYS + #ARGV");
    expect_bulk(c, "x", "EVAL %s 0", "KEYS[1] = 'x' return KEYS[1]");
}
END_TEST

START_TEST(redis_to_lua_conversions) {
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s 10");
    /* integer -> number, bulk -> string, nil -> false, status -> {ok}, array -> table */
    expect_bulk(c, "number", "EVAL %s 0", "return type(redis.call('incr','s'))");
    expect_bulk(c, "string", "EVAL %s 0", "return type(redis.call('get','s'))");
    expect_int(c, 1, "EVAL %s 0", "return redis.call('get','nosuch') == false");
    expect_bulk(c, "PONG", "EVAL %s 0", "return redis.call('ping').ok");
    expect_status(c, "PONG", "EVAL %s 0", "return redis.call('ping')");
    expect_int(c, 3, "EVAL %s 0", "redis.call('rpush','l','a','b','c') return #redis.call('lrange','l',0,-1)");
    expect_bulk(c, "ERR value is not an integer or out of range", "EVAL %s 0",
                "return redis.pcall('incrby','s','x').err");
    /* numbers as arguments: "%.17g", integers without a point */
    expect_bulk(c, "1.5", "EVAL %s 0", "return redis.call('echo', 1.5)");
    expect_bulk(c, "10", "EVAL %s 0", "return redis.call('echo', 10)");
    /* SELECT inside a script stays inside it */
    expect_status(c, "OK", "EVAL %s 0", "return redis.call('select', 1)");
    expect_bulk(c, "11", "GET s");
    /* blocking commands answer at once from a script */
    eval_script_error(c, "return redis.call('blpop', 'nosuch', 0)",
                      "ERR This Redis command is not allowed from script", 1);
    expect_nil(c, "EVAL %s 0", "return redis.call('lpop', 'nosuch')");
}
END_TEST

/* EVAL script 0 on the raw RESP3 connection fd must answer exactly want. */
static void resp3_expect(int fd, const char *script, const char *want) {
    char req[512], buf[512];
    snprintf(req, sizeof req, "*3\r\n$4\r\nEVAL\r\n$%zu\r\n%s\r\n$1\r\n0\r\n", strlen(script),
             script);
    ck_assert_int_eq(raw_send_str(fd, req), 0);
    int closed = 0;
    size_t n = raw_read(fd, buf, sizeof buf, strlen(want), h_scaled_ms(5000), &closed);
    buf[n] = '\0';
    ck_assert_msg(n == strlen(want) && !memcmp(buf, want, n), "EVAL %s: got '%s', want '%s'",
                  script, buf, want);
}

START_TEST(resp3_from_scripts) {
    redisContext *c = h_c;
    /* redis.setresp(3): nil is nil, not false; true/false are booleans
     * (:1 / :0 to a RESP2 client) */
    expect_int(c, 1, "EVAL %s 0", "redis.setresp(3) return redis.call('get','nosuch') == nil");
    expect_int(c, 1, "EVAL %s 0", "redis.setresp(3) return true");
    expect_int(c, 0, "EVAL %s 0", "redis.setresp(3) return false");
    expect_status(c, "PONG", "EVAL %s 0", "redis.setresp(3) return redis.call('ping')");
    eval_script_error(c, "redis.setresp(4)", "ERR RESP version must be 2 or 3.", 1);
    eval_script_error(c, "redis.setresp()", "ERR redis.setresp() requires one argument.", 1);
    /* a RESP3 client (raw bytes: hiredis here predates RESP3) */
    expect_int(c, 1, "HSET h f v");
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "HELLO 3\r\nPING\r\n"), 0);
    char buf[4096];
    size_t got = 0;
    long long deadline = h_now_ms() + h_scaled_ms(5000);
    while (got < 7 || memcmp(buf + got - 7, "+PONG\r\n", 7) != 0) {
        int closed = 0;
        got += raw_read(fd, buf + got, sizeof buf - got, 1, 100, &closed);
        ck_assert_msg(!closed && h_now_ms() < deadline && got < sizeof buf - 1, "HELLO 3");
    }
    resp3_expect(fd, "return {double=3.5}", ",3.5\r\n");
    resp3_expect(fd, "return {map={a=1}}", "%1\r\n$1\r\na\r\n:1\r\n");
    resp3_expect(fd, "return {set={a=true}}", "~1\r\n$1\r\na\r\n");
    resp3_expect(fd, "return {big_number='1234567890123456789012'}", "(1234567890123456789012\r\n");
    resp3_expect(fd, "return {verbatim_string={format='txt', string='hi'}}", "=6\r\ntxt:hi\r\n");
    resp3_expect(fd, "redis.setresp(3) return true", "#t\r\n");
    resp3_expect(fd, "redis.setresp(3) return false", "#f\r\n");
    resp3_expect(fd, "return true", ":1\r\n");
    resp3_expect(fd, "return false", "_\r\n");
    resp3_expect(fd, "return nil", "_\r\n");
    resp3_expect(fd, "redis.setresp(3) return redis.call('hgetall','h').map.f", "$1\r\nv\r\n");
    resp3_expect(fd, "redis.setresp(3) return redis.call('hgetall','h')",
                 "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
    resp3_expect(fd, "return redis.call('hgetall','h')", "*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
    close(fd);
}
END_TEST

START_TEST(call_errors) {
    redisContext *c = h_c;
    eval_script_error(c, "return redis.call('nosuch')",
                      "ERR Unknown Redis command called from script", 1);
    eval_script_error(c, "return redis.call('get')",
                      "ERR Wrong number of args calling Redis command from script", 1);
    eval_script_error(c, "return redis.call('subscribe','x')",
                      "ERR This Redis command is not allowed from script", 1);
    eval_script_error(c, "return redis.call('multi')",
                      "ERR This Redis command is not allowed from script", 1);
    eval_script_error(c, "\nreturn redis.call()",
                      "ERR Please specify at least one argument for this redis lib call", 2);
    eval_script_error(c, "return redis.call({})",
                      "ERR Lua redis lib command arguments must be strings or integers", 1);
    expect_status(c, "OK", "SET s a");
    eval_script_error(c, "return redis.call('incr','s')",
                      "ERR value is not an integer or out of range", 1);
    eval_script_error(c, "return redis.call('lpush','s','x')",
                      "WRONGTYPE Operation against a key holding the wrong kind of value", 1);
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "EVAL %s 0", "return redis.pcall('lpush','s','x')");
    /* Lua's pcall is Redis's: a raised error table arrives as its err */
    expect_bulk(c, "ERR value is not an integer or out of range", "EVAL %s 0",
                "local ok, e = pcall(redis.call, 'incr', 's') return e");
    expect_bulk(c, "string", "EVAL %s 0",
                "local ok, e = pcall(function() return redis.call('incr', 's') end) "
                "return type(e)");
    expect_bulk(c, "x y", "EVAL %s 0", "local ok, e = pcall(error, {err='x y'}) return e");
    expect_bulk(c, "number", "EVAL %s 0", "local ok, e = pcall(error, {err=5}) return type(e)");
    expect_bulk(c, "table", "EVAL %s 0", "local ok, e = pcall(error, {}) return type(e)");
    expect_int(c, 9, "EVAL %s 0",
               "local ok, a, b = pcall(function(x) return x, 2 end, 7) "
               "return (ok and 1 or 0) + a * 0 + b * 4");
    eval_script_error(c, "local ok, e = pcall(redis.call, 'incr', 's') error(e)",
                      "ERR user_script:1: ERR value is not an integer or out of range", 1);
    expect_bulk(c, "string", "EVAL %s 0",
                "local ok, e = pcall(redis.call, 'nosuch') return type(e)");
    eval_script_error(c, "error('boom')", "ERR user_script:1: boom", 1);
    eval_script_error(c, "error({err='x y'})", "x y", 1);
    eval_script_error(c, "return redis.log(1)", "ERR redis.log() requires two arguments or more.", 1);
    eval_script_error(c, "return redis.set_repl(12)",
                      "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or "
                      "REPL_NONE.", 1);
    /* compile errors and shebangs */
    expect_error(c, "ERR Error compiling script (new function): user_script:1: unexpected "
                    "symbol near '<eof>'", "EVAL %s 0", "return 1 +");
    expect_error(c, "ERR Unexpected engine in script shebang: #!foo", "EVAL %s 0", "#!foo\nreturn 1");
    expect_error(c, "ERR Unexpected flag in script shebang: bad", "EVAL %s 0",
                 "#!lua flags=bad\nreturn 1");
    expect_error(c, "ERR Unknown lua shebang option: xx", "EVAL %s 0", "#!lua xx\nreturn 1");
    expect_error(c, "ERR Invalid script shebang", "EVAL %s 0", "#!lua");
    expect_int(c, 1, "EVAL %s 0", "#!lua flags=no-writes,allow-oom\nreturn 1");
    /* numkeys */
    expect_error(c, "ERR Number of keys can't be negative", "EVAL %s -1", "return 1");
    expect_error(c, "ERR Number of keys can't be greater than number of args", "EVAL %s 3 a",
                 "return 1");
    expect_error(c, "ERR value is not an integer or out of range", "EVAL %s x", "return 1");
    expect_error(c, "ERR wrong number of arguments for 'eval' command", "EVAL %s", "return 1");
}
END_TEST

START_TEST(read_only_scripts) {
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k v");
    eval_script_error(c, "#!lua flags=no-writes\nreturn redis.call('set','x',1)",
                      "ERR Write commands are not allowed from read-only scripts.", 2);
    char sha[41];
    script_sha(c, "return redis.call('set','x',1)", sha);
    char want[256];
    snprintf(want, sizeof want, "ERR Write commands are not allowed from read-only scripts. "
                                "script: %s, on @user_script:1.", sha);
    expect_error(c, want, "EVAL_RO %s 0", "return redis.call('set','x',1)");
    expect_error(c, want, "EVALSHA_RO %s 0", sha);
    expect_bulk(c, "v", "EVAL_RO %s 1 k", "return redis.call('get', KEYS[1])");
    expect_bulk(c, "v", "EVAL_RO %s 1 k", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])");
    expect_error(c, "ERR Can not execute a script with write flag using *_ro command.",
                 "EVAL_RO %s 0", "#!lua\nreturn 1");
    expect_nil(c, "GET x");
    /* pcall gets the error as a table */
    expect_bulk(c, "ERR Write commands are not allowed from read-only scripts.", "EVAL_RO %s 0",
                "return redis.pcall('set','x',1).err");
    /* nor the may-replicate ones (PFCOUNT, PUBLISH) */
    expect_bulk(c, "ERR Write commands are not allowed from read-only scripts.", "EVAL_RO %s 0",
                "return redis.pcall('pfcount','h').err");
    expect_bulk(c, "ERR Write commands are not allowed from read-only scripts.", "EVAL %s 0",
                "#!lua flags=no-writes\nreturn redis.pcall('publish','ch','m').err");
    expect_int(c, 0, "EVAL %s 0", "return redis.call('pfcount','h')");
}
END_TEST

START_TEST(script_cache) {
    redisContext *c = h_c;
    char sha[41];
    script_sha(c, "return 'loaded'", sha);
    ck_assert_str_eq(sha, "b534286061d4b9e4026607613b95c06c06015ae8");
    expect_bulk(c, "loaded", "EVALSHA %s 0", sha);
    expect_bulk(c, "loaded", "EVALSHA %s 0", "B534286061D4B9E4026607613B95C06C06015AE8");
    redisReply *r = expect_array(c, 4, "SCRIPT EXISTS %s ffffffffffffffffffffffffffffffffffffffff x "
                                       "B534286061D4B9E4026607613B95C06C06015AE8", sha);
    check_int(r->element[0], 1);
    check_int(r->element[1], 0);
    check_int(r->element[2], 0);
    check_int(r->element[3], 1);
    freeReplyObject(r);
    expect_error(c, "NOSCRIPT No matching script. Please use EVAL.", "EVALSHA 0123 0");
    expect_error(c, "NOSCRIPT No matching script. Please use EVAL.",
                 "EVALSHA ffffffffffffffffffffffffffffffffffffffff 0");
    /* EVAL caches too */
    expect_int(c, 7, "EVAL %s 0", "return 7");
    char sha7[41];
    script_sha(c, "return 7", sha7);
    expect_int(c, 7, "EVALSHA %s 0", sha7);
    ck_assert_int_eq(h_info_int(c, "memory", "number_of_cached_scripts"), 2);
    /* the commands a script runs count in total_commands_processed and
     * commandstats, as Redis's call() counts them */
    long long before = h_info_int(c, "stats", "total_commands_processed");
    expect_nil(c, "EVAL %s 0", "redis.call('set','a','1') redis.call('get','a') redis.call('get','a')");
    ck_assert_int_eq(h_info_int(c, "stats", "total_commands_processed") - before, 5);
    /* an error is counted once: where a command replied it, or as the
     * script's reply */
    static const char *const errs[] = {
        "return redis.call('incr','s')", "return redis.pcall('incr','s')", "error('x')",
        "return redis.error_reply('x')", "return redis.call('nosuch')",
        "local r = redis.pcall('incr','s') return 1", NULL};
    expect_status(c, "OK", "SET s a");
    for (int i = 0; errs[i]; i++) {
        before = h_info_int(c, "stats", "total_error_replies");
        redisReply *e = cmd(c, "EVAL %s 0", errs[i]);
        freeReplyObject(e);
        ck_assert_msg(h_info_int(c, "stats", "total_error_replies") - before == 1, "%s", errs[i]);
    }
    char *cs = h_info(c, "commandstats");
    ck_assert_msg(strstr(cs, "cmdstat_get:calls=2,"), "%s", cs);
    free(cs);
    ck_assert_int_gt(h_info_int(c, "memory", "used_memory_scripts_eval"), 0);
    ck_assert_int_gt(h_info_int(c, "memory", "used_memory_lua"), 0);
    ck_assert_int_gt(h_info_int(c, "memory", "used_memory_vm_eval"), 0);
    expect_error(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option", "SCRIPT FLUSH x");
    expect_status(c, "OK", "SCRIPT FLUSH ASYNC");
    expect_error(c, "NOSCRIPT No matching script. Please use EVAL.", "EVALSHA %s 0", sha);
    ck_assert_int_eq(h_info_int(c, "memory", "number_of_cached_scripts"), 0);
    expect_status(c, "OK", "SCRIPT FLUSH");
    expect_status(c, "OK", "SCRIPT FLUSH SYNC");
    expect_error(c, "NOTBUSY No scripts in execution right now.", "SCRIPT KILL");
    expect_status(c, "OK", "SCRIPT DEBUG NO");
    expect_error(c, "ERR Use SCRIPT DEBUG YES/SYNC/NO", "SCRIPT DEBUG maybe");
}
END_TEST

START_TEST(sandbox) {
    redisContext *c = h_c;
    static const char *const missing[] = {"os", "io", "print", "loadfile", "dofile", "require",
                                          "package", "module", "debug", "getfenv", "newproxy", NULL};
    for (int i = 0; missing[i]; i++) {
        char script[64], msg[160];
        snprintf(script, sizeof script, "return %s", missing[i]);
        snprintf(msg, sizeof msg, "ERR user_script:1: Script attempted to access nonexistent "
                                  "global variable '%s'", missing[i]);
        eval_script_error(c, script, msg, 1);
    }
    eval_script_error(c, "x = 1", "ERR user_script:1: Attempt to modify a readonly table", 1);
    eval_script_error(c, "_G.x = 1", "ERR user_script:1: Attempt to modify a readonly table", 1);
    eval_script_error(c, "redis.call = nil", "ERR user_script:1: Attempt to modify a readonly table", 1);
    eval_script_error(c, "string.upper = nil", "ERR user_script:1: Attempt to modify a readonly table", 1);
    eval_script_error(c, "cjson.encode = nil", "ERR user_script:1: Attempt to modify a readonly table", 1);
    eval_script_error(c, "rawset(_G, 'x', 1)", "ERR Attempt to modify a readonly table", 1);
    eval_script_error(c, "rawset(redis, 'x', 1)", "ERR Attempt to modify a readonly table", 1);
    eval_script_error(c, "setmetatable(_G, {})", "ERR Attempt to modify a readonly table", 1);
    expect_bulk(c, "function", "EVAL %s 0", "return type(rawget(redis, 'call'))");
    expect_int(c, 1, "EVAL %s 0", "local t = setmetatable({}, {}) rawset(t, 'a', 1) return rawget(t, 'a')");
    expect_bulk(c, "user_script:1: Attempt to modify a readonly table", "EVAL %s 0",
                "local ok, e = pcall(function() x = 1 end) return e");
    /* the globals a script sees, as Redis 7.0's */
    redisReply *r = expect_array(c, -1, "EVAL %s 0",
                                 "local t={} for k in pairs(_G) do t[#t+1]=k end table.sort(t) return t");
    static const char *const globals[] = {
        "ARGV", "KEYS", "_G", "_VERSION", "__redis__err__handler", "assert", "bit", "cjson",
        "cmsgpack", "collectgarbage", "coroutine", "error", "gcinfo", "getmetatable", "ipairs",
        "load", "loadstring", "math", "next", "pairs", "pcall", "rawequal", "rawget", "rawset",
        "redis", "select", "setmetatable", "string", "struct", "table", "tonumber", "tostring",
        "type", "unpack", "xpcall", NULL};
    size_t n = 0;
    while (globals[n]) n++;
    ck_assert_uint_eq(r->elements, n);
    for (size_t i = 0; i < n; i++) check_bulk(r->element[i], globals[i]);
    freeReplyObject(r);
    /* library functions still work through the protection */
    expect_bulk(c, "ABC", "EVAL %s 0", "return string.upper('abc')");
    expect_bulk(c, "ABC", "EVAL %s 0", "return ('abc'):upper()");
    expect_int(c, 3, "EVAL %s 0", "local n = 0 for k, v in pairs(redis) do if k == 'call' or k == 'pcall' or k == 'sha1hex' then n = n + 1 end end return n");
    /* versions and helpers */
    expect_bulk(c, "7.0.15", "EVAL %s 0", "return redis.REDIS_VERSION");
    expect_int(c, 0x07000f, "EVAL %s 0", "return redis.REDIS_VERSION_NUM");
    expect_bulk(c, "da39a3ee5e6b4b0d3255bfef95601890afd80709", "EVAL %s 0", "return redis.sha1hex('')");
    expect_nil(c, "EVAL %s 0", "return redis.set_repl(redis.REPL_ALL)");
    expect_int(c, 1, "EVAL %s 0", "return redis.replicate_commands()");
    expect_nil(c, "EVAL %s 0", "return redis.breakpoint()");
    expect_nil(c, "EVAL %s 0", "return redis.log(redis.LOG_WARNING, 'from a script')");
    expect_nil(c, "EVAL %s 0", "return redis.debug('x')");
}
END_TEST

/* math.random as Redis 7.0: one generator, seeded as Redis at start (the
 * same sequence on every fresh server), not reseeded per script. */
START_TEST(deterministic_random) {
    redisContext *c = h_c;
    expect_bulk(c, "0.39646477363839", "EVAL %s 0", "return tostring(math.random())");
    redisReply *r = expect_array(c, 3, "EVAL %s 0",
                                 "return {math.random(100), math.random(1,10), tostring(math.random())}");
    check_int(r->element[0], 85);
    check_int(r->element[1], 4);
    check_bulk(r->element[2], "0.44658343468168");
    freeReplyObject(r);
    expect_bulk(c, "0.52483957937213", "EVAL %s 0", "math.randomseed(5) return tostring(math.random())");
}
END_TEST

/* The reply's strings joined with ' '. */
static void join_reply(const redisReply *r, char *buf, size_t cap) {
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    buf[0] = '\0';
    for (size_t i = 0; i < r->elements; i++) {
        ck_assert_int_eq(r->element[i]->type, REDIS_REPLY_STRING);
        if (i) strncat(buf, " ", cap - strlen(buf) - 1);
        strncat(buf, r->element[i]->str, cap - strlen(buf) - 1);
    }
}

#define expect_joined(c, want, ...) do { \
    char buf_[512]; \
    redisReply *r_ = cmd(c, __VA_ARGS__); \
    join_reply(r_, buf_, sizeof buf_); \
    freeReplyObject(r_); \
    ck_assert_str_eq(buf_, want); \
} while (0)

/* SORT / SORT_RO of a set BY a constant (no '*'), called from a script, is
 * sorted anyway (ALPHA, the BY dropped; DESC, LIMIT, GET kept), so that the
 * script's result does not hang on the set's order; a list or a sorted set
 * keeps its own order. */
START_TEST(sort_by_constant_in_scripts) {
    redisContext *c = h_c;
    for (int i = 19; i >= 0; i--) expect_int(c, 1, "SADD s m%02d", i);
    const char *up = "m00 m01 m02 m03 m04 m05 m06 m07 m08 m09 m10 m11 m12 m13 m14 m15 m16 "
                     "m17 m18 m19";
    const char *down = "m19 m18 m17 m16 m15 m14 m13 m12 m11 m10 m09 m08 m07 m06 m05 m04 m03 "
                       "m02 m01 m00";
    expect_joined(c, up, "EVAL %s 1 s", "return redis.call('sort', KEYS[1], 'by', 'nosort')");
    expect_joined(c, down, "EVAL %s 1 s",
                  "return redis.call('sort_ro', KEYS[1], 'by', 'nokey', 'desc')");
    expect_joined(c, "m01 m02", "EVAL %s 1 s",
                  "return redis.call('sort', KEYS[1], 'by', 'nosort', 'limit', 1, 2)");
    expect_joined(c, "m18 m17", "EVAL_RO %s 1 s",
                  "return redis.call('sort_ro', KEYS[1], 'by', 'x', 'desc', 'limit', 1, 2, "
                  "'get', '#')");
    expect_bulk(c, "fs", "FUNCTION LOAD %s",
                "#!lua name=fs\nredis.register_function('fsort', function(keys) "
                "return redis.call('sort', keys[1], 'by', 'k') end)");
    expect_joined(c, up, "FCALL fsort 1 s");
    /* numbers too are compared as bytes there */
    expect_int(c, 4, "SADD n 10 9 100 -1");
    expect_joined(c, "-1 10 100 9", "EVAL %s 1 n",
                  "return redis.call('sort', KEYS[1], 'by', 'nosort')");
    /* lists and sorted sets keep their order */
    expect_int(c, 3, "RPUSH l c a b");
    expect_joined(c, "c a b", "EVAL %s 1 l", "return redis.call('sort', KEYS[1], 'by', 'nosort')");
    expect_joined(c, "b a c", "EVAL %s 1 l",
                  "return redis.call('sort', KEYS[1], 'by', 'nosort', 'desc')");
    expect_int(c, 3, "ZADD z 1 c 2 a 3 b");
    expect_joined(c, "c a b", "EVAL %s 1 z", "return redis.call('sort', KEYS[1], 'by', 'nosort')");
}
END_TEST

START_TEST(libraries) {
    redisContext *c = h_c;
    /* cjson */
    expect_bulk(c, "{\"a\":1}", "EVAL %s 0", "return cjson.encode({a=1})");
    expect_int(c, 3, "EVAL %s 0", "return cjson.decode('[1,2,{\"a\":3}]')[3].a");
    expect_bulk(c, "{\"x\":[1,2,3]}", "EVAL %s 0", "return cjson.encode(cjson.decode('{\"x\":[1,2,3]}'))");
    expect_bulk(c, "[1.5,\"x\",null]", "EVAL %s 0", "return cjson.encode(cjson.decode('[1.5,\"x\",null]'))");
    expect_int(c, 1, "EVAL %s 0", "return cjson.decode('null') == cjson.null");
    /* cmsgpack: Redis's bytes, and round trips */
    static const char hex[] =
        "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', "
        "string.byte(c)) end)) end ";
    char script[1024];
    snprintf(script, sizeof script, "%s", hex);
    strcat(script, "return hex(cmsgpack.pack(1.5, -1, -100, 300, 70000, 5000000000, -5000000000, "
                   "-40000, 'hello', true, false, 0.1, {}, {1,2}, {a=1}, string.rep('x', 40)))");
    expect_bulk(c, "ca3fc00000ffd09ccd012cce00011170cf000000012a05f200d3fffffffed5fa0e00d2ffff63c0"
                   "a568656c6c6fc3c2cb3fb999999999999a9092010281a16101d928"
                   "78787878787878787878787878787878787878787878787878787878787878787878787878787878",
                "EVAL %s 0", script);
    redisReply *r = expect_array(c, 3, "EVAL %s 0",
        "local a,b,c = cmsgpack.unpack(cmsgpack.pack(1,'x',{1,2})) return {a,b,c[2]}");
    check_int(r->element[0], 1);
    check_bulk(r->element[1], "x");
    check_int(r->element[2], 2);
    freeReplyObject(r);
    expect_int(c, 5, "EVAL %s 0", "return cmsgpack.unpack(cmsgpack.pack({a={b={c=5}}})).a.b.c");
    expect_bulk(c, "y", "EVAL %s 0", "local t = cmsgpack.unpack(cmsgpack.pack({1,2,{x='y'}})) return t[3].x");
    snprintf(script, sizeof script, "%s", hex);
    strcat(script, "return hex(cmsgpack.pack({[1]=1,[3]=3}, {[1.5]=1}, 255, 256, 65535, 65536, "
                   "-33, -129, -32769, -2147483649, 3.4e38, 1e300))");
    expect_bulk(c, "820101030381ca3fc0000001ccffcd0100cdffffce00010000d0dfd1ff7fd2ffff7fffd3ffffffff"
                   "7fffffffcb47eff933c78cdfadcb7e37e43c8800759c", "EVAL %s 0", script);
    r = expect_array(c, 3, "EVAL %s 0", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 0)}");
    freeReplyObject(r);
    eval_script_error(c, "return {cmsgpack.unpack(string.char(0x93, 1))}",
                      "ERR user_script:1: Missing bytes in input.", 1);
    eval_script_error(c, "return {cmsgpack.unpack(string.char(0xc1))}",
                      "ERR user_script:1: Bad data format in input.", 1);
    r = expect_array(c, 2, "EVAL %s 0", "return {cmsgpack.unpack_one(cmsgpack.pack(1,2,3))}");
    check_int(r->element[0], 1);
    check_int(r->element[1], 1);
    freeReplyObject(r);
    r = expect_array(c, 3, "EVAL %s 0", "return {cmsgpack.unpack_limit(cmsgpack.pack(1,2,3), 2, 1)}");
    check_int(r->element[0], -1);
    check_int(r->element[1], 2);
    check_int(r->element[2], 3);
    freeReplyObject(r);
    /* struct */
    snprintf(script, sizeof script, "%s", hex);
    strcat(script, "return hex(struct.pack('>I2<i4bBhHlLTfd', 258, -3, -1, 255, -2, 65534, -5, 7, "
                   "9, 1.5, 2.25))");
    expect_bulk(c, "0102fdfffffffffffefffefffbffffffffffffff07000000000000000900000000000000"
                   "0000c03f0000000000000240", "EVAL %s 0", script);
    r = expect_array(c, 12, "EVAL %s 0",
        "return {struct.unpack('>I2<i4bBhHlLTfd', struct.pack('>I2<i4bBhHlLTfd', 258, -3, -1, "
        "255, -2, 65534, -5, 7, 9, 1.5, 2.25))}");
    check_int(r->element[0], 258);
    check_int(r->element[1], -3);
    check_int(r->element[2], -1);
    check_int(r->element[3], 255);
    check_int(r->element[4], -2);
    check_int(r->element[5], 65534);
    check_int(r->element[6], -5);
    check_int(r->element[11], 49); /* the next position */
    freeReplyObject(r);
    expect_int(c, 8, "EVAL %s 0", "return struct.size('!4bi')");
    r = expect_array(c, 2, "EVAL %s 0", "return {struct.unpack('bc0', struct.pack('b', 3) .. 'abc')}");
    check_bulk(r->element[0], "abc");
    check_int(r->element[1], 5);
    freeReplyObject(r);
    eval_script_error(c, "return struct.size('s')",
                      "ERR user_script:1: bad argument #1 to 'size' (option 's' has no fixed size)", 1);
    eval_script_error(c, "return struct.unpack('i', 'a')",
                      "ERR user_script:1: bad argument #2 to 'unpack' (data string too short)", 1);
    /* bit */
    expect_int(c, 8, "EVAL %s 0", "return bit.band(12, 10)");
    expect_int(c, 6, "EVAL %s 0", "return bit.bxor(5, 3)");
    expect_bulk(c, "0000ffff", "EVAL %s 0", "return bit.tohex(65535)");
    r = expect_array(c, 3, "EVAL %s 0", "return {bit.tobit(0xffffffff), bit.bnot(0), bit.arshift(-256, 4)}");
    check_int(r->element[0], -1);
    check_int(r->element[1], -1);
    check_int(r->element[2], -16);
    freeReplyObject(r);
}
END_TEST

/* Sends EVAL script 0 on a raw socket (the reply is read later). */
static int eval_async(const srv *s, const char *script) {
    int fd = raw_connect(s->port);
    char buf[1024];
    snprintf(buf, sizeof buf, "*3\r\n$4\r\nEVAL\r\n$%zu\r\n%s\r\n$1\r\n0\r\n", strlen(script), script);
    ck_assert_int_eq(raw_send_str(fd, buf), 0);
    return fd;
}

/* Polls PING on c until it answers -BUSY (the script passed the threshold). */
static void wait_busy(redisContext *c) {
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        redisReply *r = cmd(c, "PING");
        int busy = r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "BUSY ", 5);
        if (busy)
            ck_assert_str_eq(r->str, "BUSY Redis is busy running a script. You can only call "
                                     "SCRIPT KILL or SHUTDOWN NOSAVE.");
        freeReplyObject(r);
        if (busy) return;
        ck_assert_msg(h_now_ms() < deadline, "the script never made the server busy");
        h_sleep_ms(20);
    }
}

/* Servers of these tests are stopped with srv_stop, which fails the test
 * unless they exit with 0 on SIGTERM (under ASan: no leak, no error). */
START_TEST(busy_and_kill) {
    srv *s = srv_start("--busy-reply-threshold 100");
    redisContext *other = srv_connect(s);
    int fd = eval_async(s, "local i = 0 while true do i = i + 1 end");
    wait_busy(other);
    /* a connection made while busy is served too */
    redisContext *late = srv_connect(s);
    expect_error(late, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                       "SHUTDOWN NOSAVE.", "GET x");
    expect_status(late, "OK", "SCRIPT KILL");
    char buf[512];
    int closed = 0;
    raw_read(fd, buf, sizeof buf, 40, h_scaled_ms(10000), &closed);
    ck_assert_msg(!strncmp(buf, "-ERR Script killed by user with SCRIPT KILL... script: ", 55),
                  "killed script's reply: %s", buf);
    expect_status(other, "PONG", "PING");
    expect_error(other, "NOTBUSY No scripts in execution right now.", "SCRIPT KILL");
    /* a pcall in the script cannot catch the kill */
    int fd2 = eval_async(s, "while true do pcall(function() local i = 0 while true do i = i + 1 end end) end");
    wait_busy(other);
    expect_status(other, "OK", "SCRIPT KILL");
    raw_read(fd2, buf, sizeof buf, 40, h_scaled_ms(10000), &closed);
    ck_assert_msg(!strncmp(buf, "-ERR Script killed by user with SCRIPT KILL...", 46), "%s", buf);
    expect_status(other, "PONG", "PING");
    close(fd);
    close(fd2);
    redisFree(late);
    redisFree(other);
    srv_stop(s);
}
END_TEST

START_TEST(unkillable_then_shutdown_nosave) {
    srv *s = srv_start("--busy-reply-threshold 100");
    redisContext *other = srv_connect(s);
    int fd = eval_async(s, "redis.call('set','x','y') local i = 0 while true do i = i + 1 end");
    wait_busy(other);
    expect_error(other, "UNKILLABLE Sorry the script already executed write commands against the "
                        "dataset. You can either wait the script termination or kill the server "
                        "in a hard way using the SHUTDOWN NOSAVE command.", "SCRIPT KILL");
    expect_error(other, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                        "SHUTDOWN NOSAVE.", "SHUTDOWN");
    expect_error(other, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                        "SHUTDOWN NOSAVE.", "SHUTDOWN SAVE");
    redisReply *r = redisCommand(other, "SHUTDOWN NOSAVE");
    if (r) freeReplyObject(r); /* the server exits: no reply */
    ck_assert_int_eq(srv_wait_exit(s, h_scaled_ms(10000)), 1);
    ck_assert_msg(WIFEXITED(s->exit_status) && WEXITSTATUS(s->exit_status) == 0,
                  "exit status 0x%x", s->exit_status);
    close(fd);
    redisFree(other);
    srv_stop(s);
}
END_TEST

/* A failed save with stop-writes-on-bgsave-error: scripts that may write
 * are refused before running (shebang) or at their first write. */
START_TEST(misconf_scripts) {
    srv *s = h_srv_start("--save '3600 1'");
    redisContext *c = srv_connect(s);
    h_break_dump(s);
    expect_status(c, "Background saving started", "BGSAVE");
    h_wait_info_str(c, "persistence", "rdb_last_bgsave_status", "err", 20000);
    expect_error(c, "MISCONF Redis is configured to save RDB snapshots, but it's currently "
                    "unable to persist to disk. Commands that may modify the data set are "
                    "disabled, because this instance is configured to report errors during "
                    "writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). "
                    "Please check the Redis logs for details about the RDB error.",
                 "EVAL %s 0", "#!lua\nreturn 1");
    expect_int(c, 1, "EVAL %s 0", "#!lua flags=no-writes\nreturn 1");
    expect_int(c, 2, "EVAL %s 0", "return 2");
    eval_script_error(c, "return redis.call('set','x','1')",
                      "MISCONF Redis is configured to save RDB snapshots, but it's currently "
                      "unable to persist to disk. Commands that may modify the data set are "
                      "disabled, because this instance is configured to report errors during "
                      "writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). "
                      "Please check the Redis logs for details about the RDB error.", 1);
    redisFree(c);
}
END_TEST

/* A stale replica (its master unreachable, replica-serve-stale-data no)
 * runs only scripts flagged allow-stale, and those only commands flagged
 * stale. */
START_TEST(stale_replica_scripts) {
    srv *s = h_srv_start("--replicaof 127.0.0.1 %d --replica-serve-stale-data no", h_free_port());
    redisContext *c = srv_connect(s);
    const char *down = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set "
                       "to 'no'.";
    expect_error(c, down, "EVAL %s 0", "return 1");
    expect_error(c, "READONLY You can't write against a read only replica.", "EVAL %s 0",
                 "#!lua\nreturn 1");
    expect_error(c, down, "EVAL %s 0", "#!lua flags=no-writes\nreturn 1");
    expect_int(c, 1, "EVAL %s 0", "#!lua flags=no-writes,allow-stale\nreturn 1");
    expect_int(c, 1, "EVAL %s 0", "#!lua flags=no-writes,allow-stale\nreturn #redis.call('time')/2");
    eval_script_error(c, "#!lua flags=no-writes,allow-stale\nreturn redis.call('get','x')",
                      "ERR Can not execute the command on a stale replica", 2);
    expect_error(c, "READONLY You can't write against a read only replica.", "EVAL %s 0",
                 "#!lua flags=allow-stale\nreturn 1");
    redisFree(c);
}
END_TEST

/* A client blocked on a key that a busy script pushed to is served after
 * the script, never inside it (an allow-busy command run from the
 * script's hook must not serve it). */
START_TEST(blocked_client_served_after_script) {
    srv *s = srv_start("--busy-reply-threshold 100");
    redisContext *other = srv_connect(s);
    int bfd = raw_connect(s->port);
    ck_assert_int_eq(raw_send_str(bfd, "BLPOP q 0\r\n"), 0);
    h_wait_info(other, "clients", "blocked_clients", 1, 5000);
    int fd = eval_async(s, "redis.call('lpush','q','a') local t = redis.call('time')[1] "
                           "while tonumber(redis.call('time')[1]) < t + 3 do end return 1");
    wait_busy(other);
    expect_error_prefix(other, "UNKILLABLE ", "SCRIPT KILL");
    char buf[256];
    int closed = 0;
    size_t n = raw_read(bfd, buf, sizeof buf, 1, 300, &closed);
    ck_assert_msg(n == 0, "BLPOP served inside the script: %s", buf);
    n = raw_read(fd, buf, sizeof buf, 4, h_scaled_ms(20000), &closed);
    ck_assert_str_eq(buf, ":1\r\n");
    n = raw_read(bfd, buf, sizeof buf, 18, h_scaled_ms(5000), &closed);
    ck_assert_str_eq(buf, "*2\r\n$1\r\nq\r\n$1\r\na\r\n");
    close(fd);
    close(bfd);
    redisFree(other);
    srv_stop(s);
}
END_TEST

/* Effects replication: the AOF holds the writes a script made, in
 * MULTI/EXEC when more than one, never EVAL. */
START_TEST(effects_in_aof) {
    srv *s = srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_bulk(c, "2", "EVAL %s 1 a", "redis.call('set',KEYS[1],'1') redis.call('incr',KEYS[1]) "
                                      "redis.call('get', 'nosuch') return redis.call('get',KEYS[1])");
    expect_int(c, 1, "EVAL %s 0", "return redis.call('rpush','alone','x')");
    expect_nil(c, "EVAL %s 0", "return redis.call('get','readonly')");
    /* a script inside a transaction: its writes inside the transaction's MULTI/EXEC */
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "EVAL %s 0", "return redis.call('set','y','1')");
    expect_status(c, "QUEUED", "SET z 2");
    redisReply *r = expect_array(c, 2, "EXEC");
    freeReplyObject(r);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.1.incr.aof", s->dir);
    size_t len;
    char *aof = h_slurp(path, &len, 1);
    const char *want = "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\na\r\n$1\r\n1\r\n"
                       "*2\r\n$4\r\nincr\r\n$1\r\na\r\n*1\r\n$4\r\nEXEC\r\n"
                       "*3\r\n$5\r\nrpush\r\n$5\r\nalone\r\n$1\r\nx\r\n"
                       "*1\r\n$5\r\nMULTI\r\n*3\r\n$3\r\nset\r\n$1\r\ny\r\n$1\r\n1\r\n"
                       "*3\r\n$3\r\nSET\r\n$1\r\nz\r\n$1\r\n2\r\n*1\r\n$4\r\nEXEC\r\n";
    ck_assert_msg(strstr(aof, want), "AOF:\n%s", aof);
    ck_assert_msg(!strcasestr(aof, "eval") && !strstr(aof, "readonly"), "AOF:\n%s", aof);
    free(aof);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* Sends a command on c without reading its reply. */
static void send_only(redisContext *c, const char *fmt, const char *a1) {
    redisAppendCommand(c, fmt, a1);
    int done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(c, &done), REDIS_OK);
}

static redisReply *get_reply(redisContext *c) {
    redisReply *r = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    return r;
}

/* A save's cut never falls inside a script (verso's BGSAVE is forkless by
 * default: bgsave-method forkless; Redis's forks). A script that rewrites every
 * key of a large dataset right after a BGSAVE started leaves the save with
 * none of its writes; a BGSAVE sent while such a script runs (under the
 * busy threshold: it waits) saves all of them. */
START_TEST(save_cut_outside_scripts) {
    srv *s = h_srv_start(NULL);
    redisContext *a = srv_connect(s), *b = srv_connect(s);
    expect_status(a, "OK", "DEBUG POPULATE 200000 k");
    const char *script = "for i = 0, 199999 do redis.call('set', 'k:' .. i, 'x') end "
                         "redis.call('set', 'last', 1) return 1";
    /* a save started right before the script */
    expect_status(b, "Background saving started", "BGSAVE");
    expect_int(a, 1, "EVAL %s 0", script);
    h_wait_info(a, "persistence", "rdb_bgsave_in_progress", 0, 60000);
    srv *check = h_srv_start_on(s, "%s", "");
    redisContext *cc = srv_connect(check); /* check stays up: h_srv_drop_all stops it */
    h_wait_loaded(cc, 60000);
    expect_int(cc, 200000, "DBSIZE");
    expect_bulk(cc, "value:0", "GET k:0");
    expect_bulk(cc, "value:199999", "GET k:199999");
    expect_int(cc, 0, "EXISTS last");
    redisFree(cc);
    /* a save asked for while the script runs */
    const char *script2 = "for i = 0, 199999 do redis.call('set', 'k:' .. i, 'y') end "
                          "redis.call('set', 'last', 2) return 2";
    send_only(a, "EVAL %s 0", script2);
    h_sleep_ms(20);
    send_only(b, "%s", "BGSAVE");
    redisReply *r = get_reply(a);
    check_int(r, 2);
    freeReplyObject(r);
    r = get_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    h_wait_info(a, "persistence", "rdb_bgsave_in_progress", 0, 60000);
    check = h_srv_start_on(s, "%s", "");
    cc = srv_connect(check);
    h_wait_loaded(cc, 60000);
    expect_int(cc, 200001, "DBSIZE");
    expect_bulk(cc, "y", "GET k:0");
    expect_bulk(cc, "y", "GET k:199999");
    expect_bulk(cc, "2", "GET last");
    redisFree(cc);
    redisFree(a);
    redisFree(b);
}
END_TEST

/* A script sees keys expire as of its start (Redis 7.0's script time
 * snapshot): a key it sets to expire in 1 ms is there after a busy wait of
 * 20 ms. Inside a transaction a script takes its own snapshot: the key
 * EXEC still saw has expired for it. */
START_TEST(script_fixed_time)
{
    redisContext *c = h_c;
    expect_bulk(c, "v", "EVAL %s 0",
                "redis.call('set', 'k', 'v', 'px', 1)\n"
                "local t = redis.call('time')\n"
                "local s = t[1] * 1000000 + t[2]\n"
                "while true do\n"
                "  local n = redis.call('time')\n"
                "  if n[1] * 1000000 + n[2] - s > 20000 then break end\n"
                "end\n"
                "return redis.call('get', 'k')");
    expect_nil(c, "GET k");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET k2 v PX 1");
    expect_status(c, "QUEUED", "DEBUG SLEEP 0.05");
    expect_status(c, "QUEUED", "EXISTS k2");
    expect_status(c, "QUEUED", "EVAL %s 0", "return redis.call('exists', 'k2')");
    redisReply *r = expect_array(c, 4, "EXEC");
    check_int(r->element[2], 1);
    check_int(r->element[3], 0);
    freeReplyObject(r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("scripting");
    TCase *tc = tcase_create("eval");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, lua_to_redis_conversions);
    tcase_add_test(tc, redis_to_lua_conversions);
    tcase_add_test(tc, resp3_from_scripts);
    tcase_add_test(tc, call_errors);
    tcase_add_test(tc, read_only_scripts);
    tcase_add_test(tc, script_cache);
    tcase_add_test(tc, script_fixed_time);
    tcase_add_test(tc, sandbox);
    tcase_add_test(tc, deterministic_random);
    tcase_add_test(tc, sort_by_constant_in_scripts);
    tcase_add_test(tc, libraries);
    tcase_add_test(tc, busy_and_kill);
    tcase_add_test(tc, unkillable_then_shutdown_nosave);
    tcase_add_test(tc, misconf_scripts);
    tcase_add_test(tc, stale_replica_scripts);
    tcase_add_test(tc, blocked_client_served_after_script);
    tcase_add_test(tc, effects_in_aof);
    tcase_add_test(tc, save_cut_outside_scripts);
    suite_add_tcase(s, tc);
    return h_main(s);
}
