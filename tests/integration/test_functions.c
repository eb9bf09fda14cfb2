/* test_functions: FUNCTION LOAD/LIST/DELETE/FLUSH/DUMP/RESTORE/STATS/KILL/
 * HELP and FCALL/FCALL_RO as Redis 7.0 answers them, and libraries that
 * outlive the process: in the RDB (opcode 245) both ways with redis-server,
 * in FUNCTION DUMP payloads both ways, in the AOF (FUNCTION LOAD replayed,
 * and the rewrite's base). Runs against redis-server too
 * (VERSO_SERVER=/usr/bin/redis-server): the expected replies are Redis's. */
#include <check.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "testcmp.h"

#define LIB_A "#!lua name=liba\n" \
    "redis.register_function('fa', function(keys, args) return 'a' end)"
#define LIB_B "#!lua name=libb\n" \
    "redis.register_function{function_name='setter', description='sets a key', " \
    "callback=function(keys, args) return redis.call('set', keys[1], args[1]) end}\n" \
    "redis.register_function{function_name='getter', flags={'no-writes', 'allow-stale'}, " \
    "callback=function(keys, args) return redis.call('get', keys[1]) end}"
#define LIB_A2 "#!lua name=liba\n" \
    "redis.register_function('fa2', function(keys, args) return 'a2' end)"

static void synced(redisContext *mc);

static void load_ok(redisContext *c, const char *code, const char *name) {
    expect_bulk(c, name, "FUNCTION LOAD %s", code);
}

/* The error FUNCTION LOAD [REPLACE] answers for code. */
static void load_err(redisContext *c, const char *code, const char *err) {
    expect_error(c, err, "FUNCTION LOAD %s", code);
}

/* A RESP2 map (flat array) field, or NULL. */
static const redisReply *field(const redisReply *m, const char *name) {
    ck_assert_int_eq(m->type, REDIS_REPLY_ARRAY);
    for (size_t i = 0; i + 1 < m->elements; i += 2)
        if (m->element[i]->type == REDIS_REPLY_STRING && !strcmp(m->element[i]->str, name))
            return m->element[i + 1];
    return NULL;
}

/* FUNCTION LIST's library names, sorted, joined with ',' into buf. */
static const char *lib_names(redisContext *c, char *buf, size_t cap) {
    redisReply *r = cmd(c, "FUNCTION LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    char *names[64];
    ck_assert_uint_lt(r->elements, 64);
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *n = field(r->element[i], "library_name");
        ck_assert_ptr_nonnull(n);
        names[i] = n->str;
    }
    qsort(names, r->elements, sizeof names[0], cmp_str);
    buf[0] = '\0';
    for (size_t i = 0; i < r->elements; i++) {
        if (i) strncat(buf, ",", cap - strlen(buf) - 1);
        strncat(buf, names[i], cap - strlen(buf) - 1);
    }
    freeReplyObject(r);
    return buf;
}

#define expect_libs(c, want) do { \
    char buf_[512]; \
    ck_assert_str_eq(lib_names(c, buf_, sizeof buf_), want); \
} while (0)

/* ---- FUNCTION LOAD: metadata, names, the load-time sandbox ---- */

START_TEST(load_errors) {
    redisContext *c = h_c;
    load_err(c, "redis.register_function('f', function() return 1 end)",
             "ERR Missing library metadata");
    load_err(c, "#!lua name=x", "ERR Invalid library metadata");
    load_err(c, "#!lua\n", "ERR Library name was not given");
    load_err(c, "#!lua name=a name=b\n",
             "ERR Invalid metadata value, name argument was given multiple times");
    load_err(c, "#!lua foo=a\n", "ERR Invalid metadata value given: foo=a");
    load_err(c, "#!lua name=\"ab\n", "ERR Invalid library metadata");
    load_err(c, "#!lua name=a-b\n",
             "ERR Library names can only contain letters, numbers, or underscores(_) and must "
             "be at least one character long");
    load_err(c, "#!lua name=\n",
             "ERR Library names can only contain letters, numbers, or underscores(_) and must "
             "be at least one character long");
    load_err(c, "#!py name=ab\n", "ERR Engine 'py' not found");
    load_err(c, "#!lua name=ab\n", "ERR No functions registered");
    load_err(c, "#!lua name=ab\nfoo(",
             "ERR Error compiling function: user_function:2: unexpected symbol near '<eof>'");
    expect_error(c, "ERR Unknown option given: foo", "FUNCTION LOAD foo %s", LIB_A);
    /* the last argument is the code: REPLACE alone is code without metadata */
    expect_error(c, "ERR Missing library metadata", "FUNCTION LOAD REPLACE");
    expect_error(c, "ERR wrong number of arguments for 'function|load' command", "FUNCTION LOAD");
    expect_libs(c, "");

    load_ok(c, LIB_A, "liba");
    load_err(c, LIB_A, "ERR Library 'liba' already exists");
    /* a function name is unique across libraries */
    load_err(c, "#!lua name=other\nredis.register_function('fa', function() return 1 end)",
             "ERR Function fa already exists");
    /* REPLACE swaps the library: its old functions go */
    expect_bulk(c, "liba", "FUNCTION LOAD REPLACE %s", LIB_A2);
    expect_error(c, "ERR Function not found", "FCALL fa 0");
    expect_bulk(c, "a2", "FCALL fa2 0");
    /* a failed REPLACE keeps the old library */
    expect_error(c, "ERR No functions registered", "FUNCTION LOAD REPLACE %s",
                 "#!lua name=liba\n");
    expect_bulk(c, "a2", "FCALL fa2 0");
    /* metadata: the engine name and "name=" in any case, quoted words */
    load_ok(c, "#!LUA NAME=\"q1\"\nredis.register_function('q1f', function() return 1 end)", "q1");
    expect_libs(c, "liba,q1");
}
END_TEST

/* Function names: [a-zA-Z0-9_] only (a NUL in the Lua string is refused,
 * not cut at), unique and found ignoring case; library names keep theirs. */
START_TEST(names) {
    redisContext *c = h_c;
    const char *bad = "ERR Error registering functions: ERR Library names can only contain "
                      "letters, numbers, or underscores(_) and must be at least one character long";
    load_err(c, "#!lua name=x\nredis.register_function('te\\0st', function() return 1 end)", bad);
    load_err(c, "#!lua name=x\nredis.register_function{function_name='te\\0st', "
                "callback=function() return 1 end}", bad);
    load_err(c, "#!lua name=x\nredis.register_function('te-st', function() return 1 end)", bad);
    load_err(c, "#!lua name=x\nredis.register_function('', function() return 1 end)", bad);
    expect_libs(c, "");
    expect_error(c, "ERR Function not found", "FCALL te 0");

    load_ok(c, "#!lua name=MyLib\nredis.register_function('test', function() return 't' end)",
            "MyLib");
    expect_bulk(c, "t", "FCALL TEST 0");
    expect_bulk(c, "t", "FCALL tEsT 0");
    load_err(c, "#!lua name=other\nredis.register_function('TEST', function() return 1 end)",
             "ERR Function TEST already exists");
    /* library names are case-sensitive: another library, DELETE exact */
    load_ok(c, "#!lua name=mylib\nredis.register_function('test2', function() return 2 end)",
            "mylib");
    expect_libs(c, "MyLib,mylib");
    /* LIBRARYNAME is a pattern matched ignoring case */
    freeReplyObject(expect_array(c, 2, "FUNCTION LIST LIBRARYNAME MYLIB"));
    freeReplyObject(expect_array(c, 2, "FUNCTION LIST LIBRARYNAME my*"));
    freeReplyObject(expect_array(c, 0, "FUNCTION LIST LIBRARYNAME my"));
    expect_error(c, "ERR Library not found", "FUNCTION DELETE MYLIB");
    expect_status(c, "OK", "FUNCTION DELETE mylib");
    expect_libs(c, "MyLib");
    expect_bulk(c, "t", "FCALL Test 0");
    /* the name FUNCTION LIST gives is the registered one */
    redisReply *r = expect_array(c, 1, "FUNCTION LIST");
    check_bulk(field(field(r->element[0], "functions")->element[0], "name"), "test");
    freeReplyObject(r);
    expect_status(c, "OK", "FUNCTION DELETE MyLib");
    expect_error(c, "ERR Function not found", "FCALL test 0");
}
END_TEST

START_TEST(load_sandbox) {
    redisContext *c = h_c;
    const char *pre = "ERR Error registering functions: ";
    char want[512];
    struct { const char *body, *err; } cases[] = {
        {"local x = string.format('a')",
         "ERR user_function:2: Script attempted to access nonexistent global variable 'string'"},
        {"redis.call('set', 'x', 'y')",
         "ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
        {"error('boom')",
         "ERR user_function:2: Script attempted to access nonexistent global variable 'error'"},
        {"xyz = 1", "ERR user_function:2: Attempt to modify a readonly table"},
        {"redis.register_function('g-h', function() end)",
         "ERR Library names can only contain letters, numbers, or underscores(_) and must be at "
         "least one character long"},
        {"redis.register_function('g', function() end) redis.register_function('g', function() end)",
         "ERR Function already exists in the library"},
        {"redis.register_function{function_name='g', callback=function() end, flags={'no-writes', 'bad'}}",
         "ERR unknown flag given"},
        {"redis.register_function{function_name='g', callback=function() end, foo=1}",
         "ERR unknown argument given to redis.register_function"},
        {"redis.register_function{callback=function() end}",
         "ERR redis.register_function must get a function name argument"},
        {"redis.register_function{function_name='g'}",
         "ERR redis.register_function must get a callback argument"},
        {"redis.register_function(1)",
         "ERR calling redis.register_function with a single argument is only applicable to Lua "
         "table (representing named arguments)."},
        {"redis.register_function('x', 1)",
         "ERR second argument to redis.register_function must be a function"},
        {"redis.register_function({}, 1)",
         "ERR first argument to redis.register_function must be a string"},
        {"redis.register_function()", "ERR wrong number of arguments to redis.register_function"},
        {"while true do end", "ERR FUNCTION LOAD timeout"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char code[512];
        snprintf(code, sizeof code, "#!lua name=sb\n%s", cases[i].body);
        snprintf(want, sizeof want, "%s%s", pre, cases[i].err);
        load_err(c, code, want);
    }
    /* what the load environment has: redis.log, the levels, the version */
    load_ok(c, "#!lua name=sb\nredis.log(redis.LOG_NOTICE, 'loading sb')\n"
               "local v = redis.REDIS_VERSION\n"
               "redis.register_function('ver', function() return v end)", "sb");
    expect_bulk(c, "7.0.15", "FCALL ver 0");
    expect_libs(c, "sb");
}
END_TEST

/* ---- LIST, DELETE, FLUSH, STATS, HELP, KILL ---- */

START_TEST(list_delete_flush) {
    redisContext *c = h_c;
    freeReplyObject(expect_array(c, 0, "FUNCTION LIST"));
    load_ok(c, LIB_A, "liba");
    load_ok(c, LIB_B, "libb");
    redisReply *r = expect_array(c, 1, "FUNCTION LIST LIBRARYNAME LIBB WITHCODE");
    const redisReply *lib = r->element[0];
    ck_assert_uint_eq(lib->elements, 8);
    check_bulk(field(lib, "library_name"), "libb");
    check_bulk(field(lib, "engine"), "LUA");
    check_bulk(field(lib, "library_code"), LIB_B);
    const redisReply *fns = field(lib, "functions");
    ck_assert_uint_eq(fns->elements, 2);
    int seen = 0;
    for (size_t i = 0; i < fns->elements; i++) {
        const redisReply *f = fns->element[i];
        const redisReply *name = field(f, "name"), *flags = field(f, "flags");
        if (!strcmp(name->str, "setter")) {
            check_bulk(field(f, "description"), "sets a key");
            ck_assert_uint_eq(flags->elements, 0);
            seen |= 1;
        } else {
            ck_assert_str_eq(name->str, "getter");
            check_nil(field(f, "description"));
            ck_assert_uint_eq(flags->elements, 2);
            ck_assert_int_eq(flags->element[0]->type, REDIS_REPLY_STATUS);
            ck_assert_str_eq(flags->element[0]->str, "no-writes");
            ck_assert_str_eq(flags->element[1]->str, "allow-stale");
            seen |= 2;
        }
    }
    ck_assert_int_eq(seen, 3);
    freeReplyObject(r);
    r = expect_array(c, 2, "FUNCTION LIST LIBRARYNAME lib*");
    ck_assert_uint_eq(r->element[0]->elements, 6); /* no library_code */
    freeReplyObject(r);
    r = expect_array(c, 0, "FUNCTION LIST LIBRARYNAME nomatch");
    freeReplyObject(r);
    expect_error(c, "ERR library name argument was not given", "FUNCTION LIST LIBRARYNAME");
    expect_error(c, "ERR Unknown argument foo", "FUNCTION LIST foo");
    expect_error(c, "ERR Unknown argument WITHCODE", "FUNCTION LIST WITHCODE WITHCODE");
    expect_error(c, "ERR Unknown argument LIBRARYNAME",
                 "FUNCTION LIST LIBRARYNAME a LIBRARYNAME b");

    /* STATS: nothing runs, one engine with the counts */
    r = expect_array(c, 4, "FUNCTION STATS");
    check_bulk(r->element[0], "running_script");
    check_nil(r->element[1]);
    check_bulk(r->element[2], "engines");
    const redisReply *lua = field(r->element[3], "LUA");
    check_int(field(lua, "libraries_count"), 2);
    check_int(field(lua, "functions_count"), 3);
    freeReplyObject(r);

    /* INFO memory counts them */
    ck_assert_int_eq(h_info_int(c, "memory", "number_of_functions"), 3);
    ck_assert_int_eq(h_info_int(c, "memory", "number_of_libraries"), 2);
    ck_assert_int_gt(h_info_int(c, "memory", "used_memory_vm_functions"), 0);
    ck_assert_int_gt(h_info_int(c, "memory", "used_memory_functions"), (long long)strlen(LIB_B));

    expect_error(c, "ERR Library not found", "FUNCTION DELETE nope");
    expect_error(c, "ERR wrong number of arguments for 'function|delete' command", "FUNCTION DELETE");
    expect_status(c, "OK", "FUNCTION DELETE liba");
    expect_error(c, "ERR Function not found", "FCALL fa 0");
    expect_libs(c, "libb");
    expect_error(c, "ERR FUNCTION FLUSH only supports SYNC|ASYNC option", "FUNCTION FLUSH foo");
    expect_error(c,
                 "ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION "
                 "HELP.",
                 "FUNCTION FLUSH async sync");
    expect_status(c, "OK", "FUNCTION FLUSH ASYNC");
    expect_libs(c, "");
    load_ok(c, LIB_A, "liba");
    expect_status(c, "OK", "FUNCTION FLUSH");
    expect_libs(c, "");
    /* FLUSHALL leaves the libraries alone, as Redis */
    load_ok(c, LIB_A, "liba");
    expect_status(c, "OK", "FLUSHALL");
    expect_libs(c, "liba");

    r = expect_array(c, -1, "FUNCTION HELP");
    ck_assert_uint_eq(r->elements, 40);
    ck_assert_str_eq(r->element[0]->str,
                     "FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[39]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_error(c, "NOTBUSY No scripts in execution right now.", "FUNCTION KILL");
    expect_error(c, "ERR unknown subcommand 'nope'. Try FUNCTION HELP.", "FUNCTION nope");
}
END_TEST

/* ---- FCALL / FCALL_RO ---- */

START_TEST(fcall) {
    redisContext *c = h_c;
    load_ok(c, LIB_B, "libb");
    load_ok(c, "#!lua name=kv\n"
               "redis.register_function('echo', function(keys, args) "
               "return {keys[1], args[1], #keys, #args} end)", "kv");
    expect_status(c, "OK", "FCALL setter 1 k v");
    expect_bulk(c, "v", "FCALL getter 1 k");
    expect_bulk(c, "v", "FCALL_RO getter 1 k");
    expect_bulk(c, "v", "GET k");
    expect_error(c, "ERR Can not execute a script with write flag using *_ro command.",
                 "FCALL_RO setter 1 k w");
    expect_bulk(c, "v", "GET k");
    redisReply *r = expect_array(c, 4, "FCALL echo 1 a b");
    check_bulk(r->element[0], "a");
    check_bulk(r->element[1], "b");
    check_int(r->element[2], 1);
    check_int(r->element[3], 1);
    freeReplyObject(r);
    expect_error(c, "ERR Function not found", "FCALL nope 0");
    expect_error(c, "ERR Function not found", "FCALL_RO nope 0");
    expect_error(c, "ERR Bad number of keys provided", "FCALL echo x");
    expect_error(c, "ERR Number of keys can't be negative", "FCALL echo -1");
    expect_error(c, "ERR Number of keys can't be greater than number of args", "FCALL echo 5 a");
    expect_error(c, "ERR wrong number of arguments for 'fcall' command", "FCALL echo");
    /* runtime: register_function is gone, globals stay protected */
    load_ok(c, "#!lua name=rt\n"
               "redis.register_function('glob', function(keys, args) return KEYS end)", "rt");
    expect_error(c,
                 "ERR user_function:2: Script attempted to access nonexistent global variable "
                 "'KEYS' script: glob, on @user_function:2.",
                 "FCALL glob 0");
}
END_TEST

/* With redis-server: its full sync's payload carries its libraries to the
 * server under test, and the server under test's to it. */
START_TEST(replication_interop) {
    srv *redis = h_srv_start_redis("%s", "");
    redisContext *rc = srv_connect(redis);
    load_ok(rc, LIB_A, "liba");
    srv *s = h_srv_start("%s", "");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "REPLICAOF 127.0.0.1 %d", redis->port);
    h_wait_info_str(c, "replication", "master_link_status", "up", 20000);
    synced(rc);
    expect_libs(c, "liba");
    load_ok(rc, LIB_B, "libb");
    synced(rc);
    expect_libs(c, "liba,libb");
    /* the other way: redis-server replicates the server under test */
    expect_status(c, "OK", "REPLICAOF NO ONE");
    expect_status(c, "OK", "FUNCTION DELETE liba");
    expect_status(rc, "OK", "FUNCTION FLUSH");
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", s->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    synced(c);
    expect_libs(rc, "libb");
    expect_bulk(c, "liba", "FUNCTION LOAD %s", LIB_A2);
    synced(c);
    expect_libs(rc, "liba,libb");
    redisFree(c);
    redisFree(rc);
}
END_TEST

/* FUNCTION STATS names the running function; FUNCTION KILL stops it; an
 * EVAL script is SCRIPT KILL's, not FUNCTION KILL's. */
static void wait_busy(redisContext *c) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        redisReply *r = cmd(c, "GET x");
        int busy = r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "BUSY ", 5);
        freeReplyObject(r);
        if (busy) return;
        ck_assert_msg(h_now_ms() < end, "the script never got busy");
        h_sleep_ms(20);
    }
}

/* One reply line (up to its \r\n) from a raw socket. */
static void read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    buf[0] = '\0';
    while (n < 2 || strcmp(buf + n - 2, "\r\n") != 0) {
        int closed = 0;
        ck_assert_uint_lt(n + 2, cap);
        size_t got = raw_read(fd, buf + n, 2, 1, h_scaled_ms(10000), &closed);
        ck_assert_msg(got == 1 && !closed, "no reply line (got '%s')", buf);
        n += got;
    }
}

START_TEST(stats_kill) {
    srv *s = h_srv_start("--busy-reply-threshold 100");
    redisContext *c = srv_connect(s);
    load_ok(c, "#!lua name=spin\nredis.register_function{function_name='spin', "
               "callback=function() while true do end end, flags={'no-writes'}}", "spin");
    int fd = raw_connect(s->port);
    ck_assert_int_eq(raw_send_str(fd, "*3\r\n$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n0\r\n"), 0);
    wait_busy(c);
    expect_error(c, "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                    "SHUTDOWN NOSAVE.", "GET x");
    redisReply *r = expect_array(c, 4, "FUNCTION STATS");
    const redisReply *run = r->element[1];
    check_bulk(field(run, "name"), "spin");
    const redisReply *argv = field(run, "command");
    ck_assert_uint_eq(argv->elements, 3);
    check_bulk(argv->element[0], "FCALL");
    check_bulk(argv->element[1], "spin");
    ck_assert_int_ge(field(run, "duration_ms")->integer, 100);
    freeReplyObject(r);
    expect_error(c, "BUSY Redis is busy running a script. You can only call FUNCTION KILL or "
                    "SHUTDOWN NOSAVE.", "SCRIPT KILL");
    expect_status(c, "OK", "FUNCTION KILL");
    char buf[512];
    /* Redis 7.0.15 says "with SCRIPT KILL..." for a function too */
    const char *want = " script: spin, on @user_function:2.\r\n";
    read_line(fd, buf, sizeof buf);
    ck_assert_msg(!strncmp(buf, "-ERR Script killed by user with SCRIPT KILL... script:", 54),
                  "%s", buf);
    ck_assert_msg(strlen(buf) > strlen(want) && !strcmp(buf + strlen(buf) - strlen(want), want),
                  "%s", buf);
    expect_nil(c, "GET x");

    ck_assert_int_eq(raw_send_str(fd, "*3\r\n$4\r\nEVAL\r\n$17\r\nwhile true do end\r\n$1\r\n0\r\n"), 0);
    wait_busy(c);
    expect_error(c, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                    "SHUTDOWN NOSAVE.", "FUNCTION STATS");
    expect_error(c, "BUSY Redis is busy running a script. You can only call SCRIPT KILL or "
                    "SHUTDOWN NOSAVE.", "FUNCTION KILL");
    expect_status(c, "OK", "SCRIPT KILL");
    want = "-ERR Script killed by user with SCRIPT KILL... script: "
           "694a5fe1ddb97a4c6a1bf299d9537c7d3d0f84e7, on @user_script:1.\r\n";
    read_line(fd, buf, sizeof buf);
    ck_assert_str_eq(buf, want);
    close(fd);
    redisFree(c);
}
END_TEST

/* ---- DUMP / RESTORE ---- */

/* FUNCTION DUMP's payload (heap), *len set. */
static char *dump(redisContext *c, size_t *len) {
    redisReply *r = cmd(c, "FUNCTION DUMP");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char *p = malloc(r->len);
    memcpy(p, r->str, r->len);
    *len = r->len;
    freeReplyObject(r);
    return p;
}

START_TEST(dump_restore) {
    redisContext *c = h_c;
    size_t len;
    char *empty = dump(c, &len);
    ck_assert_uint_eq(len, 10); /* the footer alone */
    load_ok(c, LIB_A, "liba");
    load_ok(c, LIB_B, "libb");
    char *p = dump(c, &len);
    ck_assert_int_eq((unsigned char)p[0], 0xF5);

    expect_error(c, "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.",
                 "FUNCTION RESTORE %b foo", p, len);
    expect_error(c,
                 "ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try "
                 "FUNCTION HELP.",
                 "FUNCTION RESTORE %b APPEND x", p, len);
    expect_error(c, "ERR DUMP payload version or checksum are wrong", "FUNCTION RESTORE xx");
    p[len - 1] ^= 1;
    expect_error(c, "ERR DUMP payload version or checksum are wrong", "FUNCTION RESTORE %b", p, len);
    p[len - 1] ^= 1;

    /* APPEND (the default) refuses a library that exists, changing nothing
     * (which of the two it names first is the order of Redis's dict) */
    expect_error_prefix(c, "ERR Library lib", "FUNCTION RESTORE %b", p, len);
    expect_status(c, "OK", "FUNCTION DELETE libb");
    expect_error(c, "ERR Library liba already exists", "FUNCTION RESTORE %b APPEND", p, len);
    expect_libs(c, "liba");
    load_ok(c, LIB_B, "libb");
    expect_libs(c, "liba,libb");
    /* REPLACE replaces them */
    load_ok(c, "#!lua name=extra\nredis.register_function('fx', function() return 'x' end)",
            "extra");
    expect_status(c, "OK", "FUNCTION RESTORE %b REPLACE", p, len);
    expect_libs(c, "extra,liba,libb");
    /* ... but not a function whose name another library holds */
    expect_status(c, "OK", "FUNCTION DELETE liba");
    load_ok(c, "#!lua name=thief\nredis.register_function('fa', function() return 't' end)",
            "thief");
    expect_error(c, "ERR Function fa already exists", "FUNCTION RESTORE %b REPLACE", p, len);
    expect_libs(c, "extra,libb,thief");
    /* FLUSH: the payload's libraries and nothing else */
    expect_status(c, "OK", "FUNCTION RESTORE %b FLUSH", p, len);
    expect_libs(c, "liba,libb");
    expect_bulk(c, "a", "FCALL fa 0");
    expect_status(c, "OK", "FUNCTION FLUSH");
    expect_status(c, "OK", "FUNCTION RESTORE %b", p, len);
    expect_libs(c, "liba,libb");
    expect_status(c, "OK", "FUNCTION RESTORE %b FLUSH", empty, (size_t)10);
    expect_libs(c, "");
    /* a payload that is not functions: a key's DUMP */
    expect_status(c, "OK", "SET k v");
    redisReply *kd = cmd(c, "DUMP k");
    expect_error(c, "ERR given type is not a function", "FUNCTION RESTORE %b", kd->str, kd->len);
    freeReplyObject(kd);
    free(p);
    free(empty);
}
END_TEST

/* A payload of redis-server restores in the server under test, and back. */
START_TEST(dump_interop_redis) {
    srv *redis = h_srv_start_redis("%s", "");
    redisContext *rc = srv_connect(redis);
    load_ok(rc, LIB_A, "liba");
    /* long enough to be LZF-compressed in the payload (rdbcompression yes) */
    char big[4096];
    int n = snprintf(big, sizeof big, "#!lua name=big\n");
    for (int i = 0; i < 40; i++)
        n += snprintf(big + n, sizeof big - (size_t)n,
                      "redis.register_function('big%d', function(keys, args) return %d end)\n", i, i);
    load_ok(rc, big, "big");
    size_t len;
    char *p = dump(rc, &len);
    ck_assert_uint_lt(len, strlen(big)); /* compressed */
    expect_status(h_c, "OK", "FUNCTION RESTORE %b", p, len);
    expect_libs(h_c, "big,liba");
    expect_int(h_c, 39, "FCALL big39 0");
    expect_bulk(h_c, "a", "FCALL fa 0");
    free(p);
    /* and back */
    load_ok(h_c, LIB_B, "libb");
    p = dump(h_c, &len);
    expect_status(rc, "OK", "FUNCTION RESTORE %b FLUSH", p, len);
    expect_libs(rc, "big,liba,libb");
    expect_status(rc, "OK", "FCALL setter 1 k v");
    expect_bulk(rc, "v", "FCALL_RO getter 1 k");
    free(p);
    redisFree(rc);
}
END_TEST

/* ---- persistence ---- */

/* Libraries are in the snapshot: a restart on the same dir has them. */
static void check_restart(const char *save_cmd, const char *opts) {
    srv *s = h_srv_start("%s", opts);
    redisContext *c = srv_connect(s);
    load_ok(c, LIB_A, "liba");
    load_ok(c, LIB_B, "libb");
    expect_status(c, "OK", "SET k v");
    redisReply *r = cmd(c, save_cmd);
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 20000);
    ck_assert_int_eq(h_info_int(c, "persistence", "rdb_changes_since_last_save"), 0);
    redisFree(c);
    srv *s2 = h_srv_start_on(s, "%s", opts);
    c = srv_connect(s2);
    h_wait_loaded(c, 20000);
    expect_libs(c, "liba,libb");
    expect_bulk(c, "a", "FCALL fa 0");
    expect_bulk(c, "v", "FCALL getter 1 k");
    redisFree(c);
}

START_TEST(restart_save) { check_restart("SAVE", ""); }
END_TEST

START_TEST(restart_bgsave) { check_restart("BGSAVE", ""); }
END_TEST

START_TEST(restart_bgsave_fork) {
    check_restart("BGSAVE", srv_is_reference() ? "" : "--bgsave-method fork");
}
END_TEST

/* A library changes the data: FUNCTION LOAD counts as a change (save
 * points see it). */
START_TEST(load_is_a_change) {
    redisContext *c = h_c;
    long long before = h_info_int(c, "persistence", "rdb_changes_since_last_save");
    load_ok(c, LIB_A, "liba");
    expect_status(c, "OK", "FUNCTION DELETE liba");
    expect_status(c, "OK", "FUNCTION FLUSH");
    ck_assert_int_eq(h_info_int(c, "persistence", "rdb_changes_since_last_save"), before + 3);
}
END_TEST

/* redis-server's RDB with functions is loaded by the server under test,
 * and its RDB by redis-server. */
START_TEST(rdb_interop_redis) {
    srv *redis = h_srv_start_redis("--dbfilename dump.rdb");
    redisContext *rc = srv_connect(redis);
    load_ok(rc, LIB_A, "liba");
    load_ok(rc, LIB_B, "libb");
    expect_status(rc, "OK", "SET k v");
    expect_status(rc, "OK", "SAVE");
    redisFree(rc);
    srv_kill9(redis); /* its dir stays */
    srv *s = h_srv_start_on(redis, "--dbfilename dump.rdb");
    redisContext *c = srv_connect(s);
    h_wait_loaded(c, 20000);
    expect_libs(c, "liba,libb");
    expect_bulk(c, "v", "FCALL getter 1 k");
    expect_error(c, "ERR Library 'liba' already exists", "FUNCTION LOAD %s", LIB_A);
    expect_bulk(c, "liba", "FUNCTION LOAD REPLACE %s",
                LIB_A2 "\nredis.register_function('more', function() return 'm' end)");
    expect_status(c, "OK", "SAVE");
    redisFree(c);
    srv_kill9(s);
    srv *r2 = h_srv_start_redis("--dir '%s' --dbfilename dump.rdb", redis->dir);
    rc = srv_connect(r2);
    h_wait_loaded(rc, 20000);
    expect_libs(rc, "liba,libb");
    expect_bulk(rc, "a2", "FCALL fa2 0");
    expect_bulk(rc, "m", "FCALL more 0");
    expect_error(rc, "ERR Function not found", "FCALL fa 0");
    expect_bulk(rc, "v", "FCALL_RO getter 1 k");
    redisFree(rc);
}
END_TEST

/* FUNCTION LOAD and DELETE reach the AOF: a restart replays them. */
START_TEST(aof_replay) {
    /* always: a reply comes after its write is in the file (kill -9 below) */
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    load_ok(c, LIB_A, "liba");
    load_ok(c, LIB_B, "libb");
    expect_status(c, "OK", "FUNCTION DELETE liba");
    expect_bulk(c, "liba", "FUNCTION LOAD %s", LIB_A2);
    expect_status(c, "OK", "FCALL setter 1 k v");
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 20000);
    expect_libs(c, "liba,libb");
    expect_bulk(c, "a2", "FCALL fa2 0");
    expect_bulk(c, "v", "GET k");
    redisFree(c);
}
END_TEST

/* A rewrite's base holds the libraries: as RDB records (preamble) or as
 * FUNCTION LOAD commands. */
static void check_rewrite(const char *preamble) {
    srv *s = h_srv_start("--appendonly yes --aof-use-rdb-preamble %s", preamble);
    redisContext *c = srv_connect(s);
    load_ok(c, LIB_A, "liba");
    load_ok(c, LIB_B, "libb");
    expect_status(c, "OK", "SET k v");
    redisReply *r = cmd(c, "BGREWRITEAOF");
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 20000);
    h_wait_info(c, "persistence", "aof_rewrite_scheduled", 0, 20000);
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 20000);
    expect_libs(c, "liba,libb");
    expect_bulk(c, "v", "FCALL getter 1 k");
    redisFree(c);
}

START_TEST(aof_rewrite_preamble) { check_rewrite("yes"); }
END_TEST

START_TEST(aof_rewrite_commands) { check_rewrite("no"); }
END_TEST

/* ---- replication ---- */

/* The master's writes reached the replica (WAIT 1). */
static void synced(redisContext *mc) {
    expect_int(mc, 1, "WAIT 1 20000");
}

/* A full sync carries the libraries (the replica's own are dropped), and
 * FUNCTION LOAD/DELETE/RESTORE/FLUSH reach the replica afterwards. */
START_TEST(replication) {
    srv *m = h_srv_start(NULL);
    redisContext *mc = srv_connect(m);
    load_ok(mc, LIB_A, "liba");
    expect_status(mc, "OK", "SET k v");
    srv *r = h_srv_start(NULL);
    redisContext *rc = srv_connect(r);
    load_ok(rc, "#!lua name=mine\nredis.register_function('m', function() return 1 end)", "mine");
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", m->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    synced(mc);
    expect_libs(rc, "liba");
    /* a function without no-writes is a write command, as Redis's
     * fcallGetCommandFlags makes it */
    expect_error(rc, "READONLY You can't write against a read only replica.", "FCALL fa 0");

    load_ok(mc, LIB_B, "libb");
    synced(mc);
    expect_libs(rc, "liba,libb");
    expect_bulk(rc, "v", "FCALL_RO getter 1 k");
    expect_error(rc, "READONLY You can't write against a read only replica.",
                 "FUNCTION LOAD %s", LIB_A2);
    expect_error(rc, "READONLY You can't write against a read only replica.",
                 "FCALL setter 1 k w");
    /* a function's writes replicate as their effects */
    expect_status(mc, "OK", "FCALL setter 1 k w");
    synced(mc);
    expect_bulk(rc, "w", "GET k");

    expect_status(mc, "OK", "FUNCTION DELETE liba");
    synced(mc);
    expect_libs(rc, "libb");
    size_t len;
    char *p = dump(mc, &len);
    expect_status(mc, "OK", "FUNCTION FLUSH");
    synced(mc);
    expect_libs(rc, "");
    expect_status(mc, "OK", "FUNCTION RESTORE %b", p, len);
    synced(mc);
    expect_libs(rc, "libb");
    free(p);
    redisFree(rc);
    redisFree(mc);
}
END_TEST

int main(void) {
    Suite *s = suite_create("functions");
    h_add_tcase(s, "load_errors", load_errors, 60, h_setup, h_teardown);
    h_add_tcase(s, "names", names, 60, h_setup, h_teardown);
    h_add_tcase(s, "load_sandbox", load_sandbox, 60, h_setup, h_teardown);
    h_add_tcase(s, "list_delete_flush", list_delete_flush, 60, h_setup, h_teardown);
    h_add_tcase(s, "fcall", fcall, 60, h_setup, h_teardown);
    h_add_tcase(s, "dump_restore", dump_restore, 60, h_setup, h_teardown);
    h_add_tcase(s, "dump_interop_redis", dump_interop_redis, 60, h_setup, h_teardown);
    h_add_tcase(s, "load_is_a_change", load_is_a_change, 60, h_setup, h_teardown);
    h_add_dropall(s, "restart_save", restart_save, 60);
    h_add_dropall(s, "restart_bgsave", restart_bgsave, 60);
    h_add_dropall(s, "restart_bgsave_fork", restart_bgsave_fork, 60);
    h_add_dropall(s, "rdb_interop_redis", rdb_interop_redis, 60);
    h_add_dropall(s, "aof_replay", aof_replay, 60);
    h_add_dropall(s, "replication", replication, 60);
    h_add_dropall(s, "replication_interop", replication_interop, 60);
    h_add_dropall(s, "stats_kill", stats_kill, 60);
    h_add_dropall(s, "aof_rewrite_preamble", aof_rewrite_preamble, 60);
    h_add_dropall(s, "aof_rewrite_commands", aof_rewrite_commands, 60);
    return h_main(s);
}
