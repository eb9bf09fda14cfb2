/* Integration tests of introspection (src/introspect/introspect.h): MONITOR's lines
 * and its client's restrictions, SLOWLOG (entries, truncation, redaction,
 * max length, errors), LATENCY (events from DEBUG SLEEP, LATEST, HISTORY,
 * GRAPH, DOCTOR, RESET, HISTOGRAM), OBJECT ENCODING/FREQ/REFCOUNT/IDLETIME,
 * MEMORY USAGE of each type, INFO's sections and the commandstats /
 * errorstats / latencystats values, CONFIG RESETSTAT. Every test runs
 * against redis-server too (VERSO_SERVER=/usr/bin/redis-server): only
 * deterministic replies are compared. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- helpers ---- */

/* Not tracked: each test stops its server with srv_stop, which fails the
 * test unless it exits with 0 (under ASan: no leak, no error at exit). */
static srv *start(void) { return srv_start(NULL); }

/* The next MONITOR line without its "<sec>.<usec> " prefix. */
static char *monitor_line(redisContext *m) {
    void *v = NULL;
    ck_assert_msg(redisGetReply(m, &v) == REDIS_OK && v, "no monitor line: %s", m->errstr);
    redisReply *r = v;
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    const char *sp = strchr(r->str, ' ');
    ck_assert_ptr_nonnull(sp);
    /* "1796083430.029646": seconds, a point, six digits */
    ck_assert_int_eq((int)(sp - r->str), (int)(strchr(r->str, '.') - r->str) + 7);
    char *out = strdup(sp + 1);
    freeReplyObject(r);
    return out;
}

/* "[<db> 127.0.0.1:<port>] <rest>": checks the db and the address, returns rest. */
static void expect_line(redisContext *m, int db, const char *rest) {
    char *l = monitor_line(m);
    char want[32];
    snprintf(want, sizeof want, "[%d 127.0.0.1:", db);
    ck_assert_msg(!strncmp(l, want, strlen(want)), "line '%s'", l);
    const char *p = strstr(l, "] ");
    ck_assert_ptr_nonnull(p);
    ck_assert_str_eq(p + 2, rest);
    free(l);
}

static int info_has(const char *info, const char *needle) { return strstr(info, needle) != NULL; }

/* ---- MONITOR ---- */

START_TEST(monitor_lines) {
    srv *s = start();
    redisContext *c = srv_connect(s), *m = srv_connect(s);
    expect_status(m, "OK", "MONITOR");
    expect_status(c, "OK", "SET a b");
    expect_line(m, 0, "\"SET\" \"a\" \"b\"");
    /* a refused command (arity, unknown) is not shown */
    expect_error_prefix(c, "ERR wrong number", "GET");
    expect_error_prefix(c, "ERR unknown command", "NOSUCH x");
    /* escaped as sdscatrepr */
    expect_status(c, "OK", "SET %b %b", "q\"\\\n\x01", (size_t)5, "\t\r", (size_t)2);
    expect_line(m, 0, "\"SET\" \"q\\\"\\\\\\n\\x01\" \"\\t\\r\"");
    /* AUTH's arguments are redacted, a failed AUTH is shown */
    expect_error_prefix(c, "", "AUTH user pass");
    expect_line(m, 0, "\"AUTH\" \"(redacted)\" \"(redacted)\"");
    /* a transaction: MULTI, its commands, then EXEC */
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET k 1");
    expect_status(c, "QUEUED", "INCR k");
    freeReplyObject(expect_array(c, 2, "EXEC"));
    expect_line(m, 0, "\"MULTI\"");
    expect_line(m, 0, "\"SET\" \"k\" \"1\"");
    expect_line(m, 0, "\"INCR\" \"k\"");
    expect_line(m, 0, "\"EXEC\"");
    /* a script command is shown before it runs (whatever it answers) */
    freeReplyObject(cmd(c, "EVAL %s 0", "return 1"));
    expect_line(m, 0, "\"EVAL\" \"return 1\" \"0\"");
    /* admin commands are not shown; the db is the one after the command */
    expect_status(c, "OK", "CONFIG SET slowlog-max-len 128");
    expect_status(c, "OK", "SELECT 3");
    expect_line(m, 3, "\"SELECT\" \"3\"");
    expect_status(c, "OK", "SELECT 0");
    expect_line(m, 0, "\"SELECT\" \"0\"");
    redisFree(c);
    redisFree(m);
    srv_stop(s);
}
END_TEST

/* A MONITOR client keeps running commands that leave the keyspace alone
 * and sees its own; keyspace commands are refused as for a replica. */
START_TEST(monitor_client_restrictions) {
    srv *s = start();
    redisContext *m = srv_connect(s);
    expect_status(m, "OK", "MONITOR");
    expect_error(m, "ERR Replica can't interact with the keyspace", "GET a");
    expect_error(m, "ERR Replica can't interact with the keyspace", "SET a 1");
    expect_status(m, "PONG", "PING");
    expect_line(m, 0, "\"PING\"");
    expect_bulk(m, "x", "ECHO x");
    expect_line(m, 0, "\"ECHO\" \"x\"");
    /* MONITOR again: no reply at all; the next reply is PING's */
    redisAppendCommand(m, "MONITOR");
    expect_status(m, "PONG", "PING");
    expect_line(m, 0, "\"PING\"");
    /* inside a transaction the keyspace command is refused when queued */
    expect_status(m, "OK", "MULTI");
    expect_line(m, 0, "\"MULTI\"");
    expect_error(m, "ERR Replica can't interact with the keyspace", "GET a");
    expect_error_prefix(m, "EXECABORT", "EXEC");
    expect_line(m, 0, "\"EXEC\"");
    redisFree(m);
    /* MONITOR inside MULTI: refused at EXEC */
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "MONITOR");
    redisReply *r = expect_array(c, 1, "EXEC");
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->element[0]->str, "ERR MONITOR isn't allowed for DENY BLOCKING client");
    freeReplyObject(r);
    expect_status(c, "OK", "SET a 1"); /* not a monitor */
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- SLOWLOG ---- */

static redisReply *slowlog_get(redisContext *c, int n) {
    redisReply *r = cmd(c, "SLOWLOG GET %d", n);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    return r;
}

START_TEST(slowlog_entries) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET slowlog-log-slower-than 0");
    expect_status(c, "OK", "SLOWLOG RESET");
    expect_status(c, "OK", "CLIENT SETNAME sl-client");
    /* 40 arguments, one of 200 bytes */
    const char *argv[40];
    size_t lens[40];
    char big[200], names[40][8];
    memset(big, 'x', sizeof big);
    argv[0] = "RPUSH";
    lens[0] = 5;
    argv[1] = "list";
    lens[1] = 4;
    argv[2] = big;
    lens[2] = sizeof big;
    for (int i = 3; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "e%d", i);
        argv[i] = names[i];
        lens[i] = strlen(names[i]);
    }
    redisReply *r = redisCommandArgv(c, 40, argv, lens);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    freeReplyObject(r);
    expect_error_prefix(c, "WRONGPASS", "AUTH someone wrong");
    r = slowlog_get(c, 2);
    ck_assert_int_eq((int)r->elements, 2);
    /* newest first: AUTH, redacted */
    redisReply *e = r->element[0];
    ck_assert_int_eq((int)e->elements, 6);
    ck_assert_int_eq((int)e->element[3]->elements, 3);
    check_bulk(e->element[3]->element[0], "AUTH");
    check_bulk(e->element[3]->element[1], "(redacted)");
    check_bulk(e->element[3]->element[2], "(redacted)");
    /* RPUSH: 32 arguments, the last says how many more; 128 bytes kept */
    e = r->element[1];
    ck_assert_int_eq(e->element[0]->type, REDIS_REPLY_INTEGER);
    ck_assert_int_eq(e->element[1]->type, REDIS_REPLY_INTEGER);
    ck_assert_int_eq(e->element[2]->type, REDIS_REPLY_INTEGER);
    ck_assert_int_eq(r->element[0]->element[0]->integer, e->element[0]->integer + 1);
    redisReply *a = e->element[3];
    ck_assert_int_eq((int)a->elements, 32);
    check_bulk(a->element[0], "RPUSH");
    char want[200];
    snprintf(want, sizeof want, "%.128s... (72 more bytes)", big);
    check_bulk(a->element[2], want);
    check_bulk(a->element[30], "e30");
    check_bulk(a->element[31], "... (9 more arguments)");
    ck_assert(!strncmp(e->element[4]->str, "127.0.0.1:", 10));
    check_bulk(e->element[5], "sl-client");
    freeReplyObject(r);
    /* the length, the max length (applied at the next entry), GET -1 */
    expect_status(c, "OK", "CONFIG SET slowlog-max-len 3");
    expect_int(c, 3, "SLOWLOG LEN");
    r = slowlog_get(c, -1);
    ck_assert_int_eq((int)r->elements, 3);
    freeReplyObject(r);
    r = slowlog_get(c, 0);
    ck_assert_int_eq((int)r->elements, 0);
    freeReplyObject(r);
    /* a transaction: its commands, not EXEC */
    expect_status(c, "OK", "SLOWLOG RESET");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET k v");
    freeReplyObject(expect_array(c, 1, "EXEC"));
    r = slowlog_get(c, 10);
    ck_assert_int_eq((int)r->elements, 3); /* SET, MULTI, SLOWLOG RESET */
    check_bulk(r->element[0]->element[3]->element[0], "SET");
    check_bulk(r->element[1]->element[3]->element[0], "MULTI");
    check_bulk(r->element[2]->element[3]->element[1], "RESET");
    freeReplyObject(r);
    /* off: nothing more is logged */
    expect_status(c, "OK", "CONFIG SET slowlog-log-slower-than -1");
    expect_status(c, "OK", "SLOWLOG RESET");
    expect_status(c, "OK", "SET k v");
    expect_int(c, 0, "SLOWLOG LEN");
    /* errors */
    expect_error(c, "ERR count should be greater than or equal to -1", "SLOWLOG GET -2");
    expect_error(c, "ERR count should be greater than or equal to -1", "SLOWLOG GET x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.",
                 "SLOWLOG get 1 2");
    expect_error(c, "ERR unknown subcommand 'foo'. Try SLOWLOG HELP.", "SLOWLOG foo");
    r = expect_array(c, 12, "SLOWLOG HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- LATENCY ---- */

START_TEST(latency_events) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    redisReply *r = cmd(c, "LATENCY DOCTOR");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert(!strncmp(r->str, "I'm sorry, Dave, I can't do that. Latency monitoring is disabled", 64));
    freeReplyObject(r);
    freeReplyObject(expect_array(c, 0, "LATENCY LATEST"));
    expect_status(c, "OK", "CONFIG SET latency-monitor-threshold 1");
    r = cmd(c, "LATENCY DOCTOR");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert(!strncmp(r->str, "Dave, no latency spike was observed during the lifetime", 55));
    freeReplyObject(r);
    expect_status(c, "OK", "DEBUG SLEEP 0.05");
    r = expect_array(c, 1, "LATENCY LATEST");
    redisReply *e = r->element[0];
    ck_assert_int_eq((int)e->elements, 4);
    check_bulk(e->element[0], "command");
    ck_assert_int_ge(e->element[2]->integer, 50);
    ck_assert_int_ge(e->element[3]->integer, e->element[2]->integer);
    long long when = e->element[1]->integer;
    freeReplyObject(r);
    r = expect_array(c, 1, "LATENCY HISTORY command");
    ck_assert_int_eq(r->element[0]->element[0]->integer, when);
    ck_assert_int_ge(r->element[0]->element[1]->integer, 50);
    freeReplyObject(r);
    freeReplyObject(expect_array(c, 0, "LATENCY HISTORY nosuch"));
    r = cmd(c, "LATENCY GRAPH command");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert(!strncmp(r->str, "command - high ", 15));
    /* one sample: the sparkline's bottom row holds it, then its age */
    ck_assert_ptr_nonnull(strstr(r->str, "\n--------------------------------------------------------------------------------\n \n \n \n_\n \n"));
    freeReplyObject(r);
    expect_error(c, "ERR No samples available for event 'nosuch'", "LATENCY GRAPH nosuch");
    r = cmd(c, "LATENCY DOCTOR");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert(!strncmp(r->str, "Dave, I have observed latency spikes in this Redis instance.", 60));
    ck_assert_ptr_nonnull(strstr(r->str, "1. command: 1 latency spikes (average "));
    ck_assert_ptr_nonnull(strstr(r->str, "- Check your Slow Log to understand"));
    freeReplyObject(r);
    expect_int(c, 0, "LATENCY RESET nosuch");
    expect_int(c, 1, "LATENCY RESET nosuch COMMAND");
    freeReplyObject(expect_array(c, 0, "LATENCY LATEST"));
    expect_status(c, "OK", "DEBUG SLEEP 0.01");
    expect_int(c, 1, "LATENCY RESET");
    /* a fast command under the threshold: no event */
    expect_status(c, "OK", "SET k v");
    freeReplyObject(expect_array(c, 0, "LATENCY LATEST"));
    expect_error(c, "ERR unknown subcommand 'foo'. Try LATENCY HELP.", "LATENCY foo");
    r = expect_array(c, 17, "LATENCY HELP");
    ck_assert_str_eq(r->element[12]->str, "HISTOGRAM [COMMAND ...]");
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* The highest sample of event in LATENCY HISTORY (0: none). */
static long long history_max(redisContext *c, const char *event) {
    redisReply *r = cmd(c, "LATENCY HISTORY %s", event);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    long long max = 0;
    for (size_t i = 0; i < r->elements; i++)
        if (r->element[i]->element[1]->integer > max) max = r->element[i]->element[1]->integer;
    freeReplyObject(r);
    return max;
}

/* The AOF's events under appendfsync always, on a disk made slow by the
 * fsyncdelay shim (every write(2) and fsync of the AOF takes >= 30 ms):
 * "aof-write" and "aof-fsync-always" reach the delay. */
START_TEST(latency_aof_events) {
    setenv("FSYNC_DELAY_US", "30000", 1);
    setenv("WRITE_DELAY_US", "30000", 1);
    h_preload_on(VERSO_FSYNC_SHIM);
    srv *s = srv_start("--appendonly yes --appendfsync always");
    static const char *const vars[] = {"FSYNC_DELAY_US", "WRITE_DELAY_US", NULL};
    h_preload_off(vars);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET latency-monitor-threshold 10");
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    long long w = 0, f = 0;
    for (int i = 0; (w < 30 || f < 30) && h_now_ms() < deadline; i++) {
        expect_status(c, "OK", "SET k%d v", i);
        w = history_max(c, "aof-write");
        f = history_max(c, "aof-fsync-always");
    }
    ck_assert_int_ge(w, 30);
    ck_assert_int_ge(f, 30);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* LATENCY HISTOGRAM: {command: {calls, histogram_usec: {usec: cumulative}}} */
START_TEST(latency_histogram) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    for (int i = 0; i < 3; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "CONFIG SET maxmemory 0");
    redisReply *r = expect_array(c, 4, "LATENCY HISTOGRAM set nosuch config");
    check_bulk(r->element[0], "set");
    redisReply *h = r->element[1];
    ck_assert_int_eq((int)h->elements, 4);
    check_bulk(h->element[0], "calls");
    check_int(h->element[1], 3);
    check_bulk(h->element[2], "histogram_usec");
    redisReply *b = h->element[3];
    ck_assert(b->elements >= 2 && b->elements % 2 == 0);
    /* cumulative counts grow to the number of calls */
    long long prev = 0;
    for (size_t i = 1; i < b->elements; i += 2) {
        ck_assert_int_gt(b->element[i]->integer, prev);
        prev = b->element[i]->integer;
    }
    ck_assert_int_eq(prev, 3);
    check_bulk(r->element[2], "config|set"); /* a container: its subcommands */
    freeReplyObject(r);
    /* without names: every command that ran */
    r = cmd(c, "LATENCY HISTOGRAM");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_int_ge((int)r->elements, 6); /* set, config|set, latency|histogram */
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- OBJECT, MEMORY USAGE ---- */

START_TEST(object_subcommands) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET s hello");
    expect_status(c, "OK", "SET i 123");
    expect_status(c, "OK", "SET big %s", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    expect_int(c, 3, "RPUSH l a b c");
    expect_int(c, 3, "SADD st 1 2 3");
    expect_int(c, 2, "SADD st2 a b");
    expect_int(c, 1, "HSET h f v");
    expect_int(c, 1, "ZADD z 1 a");
    expect_bulk(c, "embstr", "OBJECT ENCODING s");
    expect_bulk(c, "int", "OBJECT ENCODING i");
    expect_bulk(c, "raw", "OBJECT ENCODING big");
    expect_bulk(c, "quicklist", "OBJECT ENCODING l");
    expect_bulk(c, "intset", "OBJECT ENCODING st");
    expect_bulk(c, "hashtable", "OBJECT ENCODING st2");
    expect_bulk(c, "listpack", "OBJECT ENCODING h");
    expect_bulk(c, "listpack", "OBJECT ENCODING z");
    expect_nil(c, "OBJECT ENCODING nokey");
    expect_int(c, 1, "OBJECT REFCOUNT s");
    expect_int(c, 2147483647, "OBJECT REFCOUNT i"); /* a shared integer to Redis */
    expect_int(c, 1, "OBJECT REFCOUNT l");
    expect_int_range(c, 0, 5, "OBJECT IDLETIME s");
    expect_error(c, "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                    "Please note that when switching between policies at runtime LRU and LFU "
                    "data will take some time to adjust.",
                 "OBJECT FREQ s");
    /* allkeys-lfu: a new key starts at 5; its first access always counts */
    expect_status(c, "OK", "CONFIG SET maxmemory-policy allkeys-lfu");
    expect_status(c, "OK", "SET f v");
    expect_int(c, 5, "OBJECT FREQ f");
    expect_bulk(c, "v", "GET f");
    expect_int(c, 6, "OBJECT FREQ f");
    expect_int(c, 6, "OBJECT FREQ f"); /* OBJECT itself is no access */
    expect_nil(c, "OBJECT FREQ nokey");
    expect_error(c, "ERR An LFU maxmemory policy is selected, idle time not tracked. Please "
                    "note that when switching between policies at runtime LRU and LFU data "
                    "will take some time to adjust.",
                 "OBJECT IDLETIME f");
    expect_error(c, "ERR unknown subcommand 'foo'. Try OBJECT HELP.", "OBJECT foo");
    expect_error(c, "ERR wrong number of arguments for 'object|encoding' command",
                 "OBJECT ENCODING");
    redisReply *r = expect_array(c, -1, "OBJECT HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(memory_usage_types) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET s hello");
    expect_status(c, "OK", "SET i 123");
    expect_int(c, 3, "RPUSH l a b c");
    expect_int(c, 3, "SADD st 1 2 3");
    expect_int(c, 1, "HSET h f v");
    expect_int(c, 1, "ZADD z 1 a");
    const char *keys[] = {"s", "i", "l", "st", "h", "z"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        expect_int_range(c, 16, 100000, "MEMORY USAGE %s", keys[i]);
        expect_int_range(c, 16, 100000, "MEMORY USAGE %s SAMPLES 0", keys[i]);
    }
    expect_nil(c, "MEMORY USAGE nokey");
    expect_nil(c, "MEMORY USAGE nokey SAMPLES 5");
    expect_error(c, "ERR syntax error", "MEMORY USAGE s SAMPLES -1");
    expect_error(c, "ERR value is not an integer or out of range", "MEMORY USAGE s SAMPLES x");
    expect_error(c, "ERR syntax error", "MEMORY USAGE s FOO");
    expect_error(c, "ERR wrong number of arguments for 'memory|usage' command", "MEMORY USAGE");
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(memory_stats_doctor) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, -1, "MEMORY STATS");
    ck_assert(r->elements >= 20 && r->elements % 2 == 0);
    check_bulk(r->element[0], "peak.allocated");
    check_bulk(r->element[2], "total.allocated");
    check_bulk(r->element[4], "startup.allocated");
    freeReplyObject(r);
    r = cmd(c, "MEMORY DOCTOR");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert(!strncmp(r->str, "Hi Sam", 6) || !strncmp(r->str, "Sam, I detected", 15));
    freeReplyObject(r);
    r = cmd(c, "MEMORY MALLOC-STATS");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    freeReplyObject(r);
    expect_status(c, "OK", "MEMORY PURGE");
    r = expect_array(c, -1, "MEMORY HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- INFO ---- */
/* MEMORY STATS's value after name (an integer or a RESP2 double), or the
 * test fails; a nested map (db.N) is found by its own name. */
static long long stats_int(const redisReply *r, const char *name) {
    for (size_t i = 0; i + 1 < r->elements; i += 2) {
        const redisReply *v = r->element[i + 1];
        if (v->type == REDIS_REPLY_ARRAY) {
            if (!strcmp(r->element[i]->str, name)) return (long long)v->elements;
            for (size_t j = 0; j + 1 < v->elements; j += 2)
                if (!strcmp(v->element[j]->str, name)) return v->element[j + 1]->integer;
        } else if (!strcmp(r->element[i]->str, name)) {
            return v->type == REDIS_REPLY_INTEGER ? v->integer : atoll(v->str);
        }
    }
    ck_abort_msg("MEMORY STATS has no %s", name);
    return 0;
}

#define MEM_KEYS 20000
#define MEM_VAL 300

/* INFO memory and MEMORY STATS read from the allocator's counters: they
 * follow the data (used_memory grows by about what was stored and falls
 * back when it is deleted) and agree with each other. */
START_TEST(memory_figures_follow_data) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    char val[MEM_VAL + 1];
    memset(val, 'x', MEM_VAL);
    val[MEM_VAL] = '\0';
    long long u0 = h_info_int(c, "memory", "used_memory");
    for (int i = 0; i < MEM_KEYS; i++) h_send(c, "SET key:%012d %s", i, val);
    for (int i = 0; i < MEM_KEYS; i++) freeReplyObject(h_next_reply(c));
    char *info = h_info(c, "memory");
    char v[128];
    ck_assert(h_info_field(info, "used_memory", v, sizeof v));
    long long u1 = atoll(v);
    ck_assert(h_info_field(info, "used_memory_peak", v, sizeof v));
    ck_assert_int_ge(atoll(v), u1);
    ck_assert(h_info_field(info, "allocator_allocated", v, sizeof v));
    long long alloc = atoll(v);
    ck_assert(h_info_field(info, "allocator_active", v, sizeof v));
    long long active = atoll(v);
    ck_assert(h_info_field(info, "allocator_resident", v, sizeof v));
    long long resident = atoll(v);
    ck_assert(h_info_field(info, "mem_allocator", v, sizeof v));
    int jemalloc = !strncmp(v, "jemalloc-", 9);
    ck_assert_msg(jemalloc || !strcmp(v, "libc"), "mem_allocator:%s", v);
    free(info);
    /* each key holds at least its payload, and not three times it */
    long long payload = (long long)MEM_KEYS * (16 + MEM_VAL);
    ck_assert_msg(u1 - u0 >= payload && u1 - u0 <= 3 * payload,
                  "used_memory grew by %lld for %lld bytes of keys and values", u1 - u0, payload);
    ck_assert_int_ge(alloc, u0 + payload);
    ck_assert_int_ge(active, alloc);
    if (jemalloc) ck_assert_int_ge(resident, active);
    redisReply *r = expect_array(c, -1, "MEMORY STATS");
    ck_assert_int_eq(stats_int(r, "keys.count"), MEM_KEYS);
    long long total = stats_int(r, "total.allocated");
    /* the same counters read a moment later: only this connection's
     * buffers differ */
    ck_assert_msg(total >= u1 - (1 << 20) && total <= u1 + (1 << 20),
                  "total.allocated %lld, used_memory %lld", total, u1);
    ck_assert_int_ge(stats_int(r, "peak.allocated"), total);
    ck_assert_int_gt(stats_int(r, "overhead.hashtable.main"), 0);
    ck_assert_int_ge(stats_int(r, "dataset.bytes"), payload / 2);
    long long per_key = stats_int(r, "keys.bytes-per-key");
    ck_assert_msg(per_key >= 16 + MEM_VAL && per_key <= 3 * (16 + MEM_VAL), "bytes-per-key %lld",
                  per_key);
    ck_assert_int_ge(stats_int(r, "allocator.active"), stats_int(r, "allocator.allocated"));
    freeReplyObject(r);
    expect_status(c, "OK", "FLUSHALL");
    expect_status(c, "OK", "MEMORY PURGE");
    long long u2 = h_info_int(c, "memory", "used_memory");
    ck_assert_msg(u2 <= u0 + payload / 5, "used_memory %lld after FLUSHALL (%lld before the SETs)",
                  u2, u0);
    redisFree(c);
    srv_stop(s);
}
END_TEST


/* Commands replayed from the AOF at startup are not counted (Redis's
 * isAOFLoadingContext). */
START_TEST(aof_replay_not_counted) {
    srv *s = srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET k v");
    expect_int(c, 1, "INCR n");
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    expect_bulk(c, "v", "GET k");
    char *info = h_info(c, "commandstats");
    ck_assert_msg(!info_has(info, "cmdstat_set:") && !info_has(info, "cmdstat_incr:"), "%s", info);
    ck_assert(info_has(info, "cmdstat_get:calls=1,"));
    free(info);
    redisFree(c);
    srv_stop(s); /* dead: removes its dir; s2 goes with the fixture */
}
END_TEST

/* The "# Name" headers of INFO <args>, space-separated. */
static void headers(redisContext *c, const char *args, char *out, size_t cap) {
    const char *argv[8] = {"INFO"};
    char copy[128];
    snprintf(copy, sizeof copy, "%s", args);
    int argc = 1;
    for (char *t = strtok(copy, " "); t && argc < 8; t = strtok(NULL, " ")) argv[argc++] = t;
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    out[0] = '\0';
    size_t n = 0;
    for (const char *p = r->str; (p = strstr(p, "# ")); p++) {
        if (p != r->str && p[-1] != '\n') continue;
        const char *end = strstr(p, "\r\n");
        n += (size_t)snprintf(out + n, cap - n, "%s%.*s", n ? " " : "", (int)(end - p - 2), p + 2);
    }
    freeReplyObject(r);
}

START_TEST(info_sections) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    char h[512];
    const char *def = "Server Clients Memory Persistence Stats Replication CPU Modules Errorstats "
                      "Cluster Keyspace";
    const char *all = "Server Clients Memory Persistence Stats Replication CPU Modules "
                      "Commandstats Errorstats Latencystats Cluster Keyspace";
    headers(c, "", h, sizeof h);
    ck_assert_str_eq(h, def);
    headers(c, "default", h, sizeof h);
    ck_assert_str_eq(h, def);
    headers(c, "all", h, sizeof h);
    ck_assert_str_eq(h, all);
    headers(c, "everything", h, sizeof h);
    ck_assert_str_eq(h, all);
    headers(c, "errorstats stats", h, sizeof h);
    ck_assert_str_eq(h, "Stats Errorstats");
    headers(c, "commandstats CPU commandstats", h, sizeof h);
    ck_assert_str_eq(h, "CPU Commandstats");
    headers(c, "nosuch", h, sizeof h);
    ck_assert_str_eq(h, "");
    char *info = h_info(c, "cluster");
    ck_assert(info_has(info, "cluster_enabled:0\r\n"));
    free(info);
    /* Redis 7.0's fields of other sections */
    const char *other[][2] = {
        {"server", "configured_hz:"}, {"server", "lru_clock:"}, {"server", "io_threads_active:0"},
        {"server", "monotonic_clock:"}, {"cpu", "used_cpu_sys_main_thread:"},
        {"cpu", "used_cpu_user_main_thread:"}, {"memory", "used_memory_overhead:"},
        {"memory", "used_memory_startup:"}, {"memory", "used_memory_dataset:"},
        {"memory", "used_memory_dataset_perc:"}, {"memory", "used_memory_peak_perc:"},
        {"memory", "allocator_allocated:"}, {"memory", "allocator_frag_ratio:"},
        {"memory", "rss_overhead_ratio:"}, {"memory", "mem_fragmentation_bytes:"},
        {"memory", "mem_clients_normal:"}, {"memory", "total_system_memory:"},
        {"memory", "used_memory_scripts:"}, {"memory", "used_memory_scripts_human:"},
        {"memory", "used_memory_vm_total:"}, {"memory", "used_memory_vm_total_human:"},
        {"memory", "mem_replication_backlog:"}, {"memory", "mem_cluster_links:0\r\n"},
        {"memory", "mem_aof_buffer:"}, {"persistence", "current_cow_peak:"},
        {"persistence", "current_cow_size:"}, {"persistence", "current_cow_size_age:"},
        {"persistence", "current_fork_perc:"}, {"persistence", "module_fork_in_progress:0\r\n"},
        {"persistence", "module_fork_last_cow_size:0\r\n"}, {"server", "redis_build_id:"}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        info = h_info(c, other[i][0]);
        ck_assert_msg(info_has(info, other[i][1]), "no %s", other[i][1]);
        free(info);
    }
    /* Stats fields of Redis 7.0 */
    info = h_info(c, "stats");
    const char *fields[] = {
        "instantaneous_ops_per_sec:", "instantaneous_input_kbps:", "instantaneous_output_kbps:",
        "expired_time_cap_reached_count:", "unexpected_error_replies:", "evicted_clients:",
        "migrate_cached_sockets:", "slave_expires_tracked_keys:", "active_defrag_hits:",
        "active_defrag_misses:", "active_defrag_key_hits:", "active_defrag_key_misses:",
        "total_active_defrag_time:", "current_active_defrag_time:",
        "io_threaded_reads_processed:", "io_threaded_writes_processed:",
        "total_error_replies:", "expire_cycle_cpu_milliseconds:", "dump_payload_sanitizations:",
        "total_reads_processed:", "total_writes_processed:", "expired_stale_perc:",
        "total_net_repl_input_bytes:", "total_net_repl_output_bytes:",
        "instantaneous_input_repl_kbps:", "instantaneous_output_repl_kbps:",
        "reply_buffer_shrinks:", "reply_buffer_expands:"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ck_assert_msg(info_has(info, fields[i]), "no %s", fields[i]);
    free(info);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* The values of fields monitoring reads (prometheus's redis_exporter):
 * reads and writes processed grow with each command, a non-empty build
 * id, the scripts' memory as the sums Redis 7.0 gives. */
START_TEST(info_monitoring_fields) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    char *info = h_info(c, "server");
    char id[64];
    ck_assert(h_info_field(info, "redis_build_id", id, sizeof id));
    ck_assert_msg(id[0] && strlen(id) <= 16 && strspn(id, "0123456789abcdef") == strlen(id),
                  "build id '%s'", id);                  /* Redis: %llx, so up to 16 */
    free(info);
    long long r0 = h_info_int(c, "stats", "total_reads_processed");
    long long w0 = h_info_int(c, "stats", "total_writes_processed");
    for (int i = 0; i < 5; i++) expect_status(c, "PONG", "PING");
    ck_assert_int_ge(h_info_int(c, "stats", "total_reads_processed"), r0 + 6);
    ck_assert_int_ge(h_info_int(c, "stats", "total_writes_processed"), w0 + 6);
    redisReply *r = cmd(c, "SCRIPT LOAD %s", "return 'a fairly long script body to count'");
    freeReplyObject(r);
    expect_bulk(c, "lib", "FUNCTION LOAD %s",
                "#!lua name=lib\nredis.register_function('f', function() return 1 end)");
    long long scripts = h_info_int(c, "memory", "used_memory_scripts");
    long long eval = h_info_int(c, "memory", "used_memory_scripts_eval");
    long long fns = h_info_int(c, "memory", "used_memory_functions");
    ck_assert_int_gt(eval, 0);
    ck_assert_int_eq(scripts, eval + fns);
    long long vm = h_info_int(c, "memory", "used_memory_vm_total");
    ck_assert_int_eq(vm, h_info_int(c, "memory", "used_memory_vm_eval") +
                             h_info_int(c, "memory", "used_memory_vm_functions"));
    info = h_info(c, "stats");
    char perc[32];
    ck_assert(h_info_field(info, "expired_stale_perc", perc, sizeof perc));
    ck_assert_str_eq(perc, "0.00");                    /* no key expired */
    free(info);
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(info_stats_values) {
    srv *s = start();
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "CONFIG RESETSTAT");
    expect_bulk(c, "v", "GET k");
    expect_error_prefix(c, "ERR value is not an integer", "INCR k");
    expect_error_prefix(c, "WRONGTYPE", "LPUSH k x");
    expect_error_prefix(c, "ERR wrong number", "GET");
    expect_error_prefix(c, "ERR unknown command", "NOSUCH");
    expect_error_prefix(c, "ERR unknown subcommand", "CONFIG NOSUCH");
    char *info = h_info(c, "commandstats");
    const char *p = strstr(info, "cmdstat_get:calls=1,usec=");
    ck_assert_msg(p, "%s", info);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=1,failed_calls=0\r\n", 34));
    p = strstr(info, "cmdstat_incr:calls=1,");
    ck_assert_ptr_nonnull(p);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=0,failed_calls=1\r\n", 34));
    p = strstr(info, "cmdstat_lpush:calls=1,");
    ck_assert_ptr_nonnull(p);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=0,failed_calls=1\r\n", 34));
    ck_assert(info_has(info, "cmdstat_config|resetstat:calls=1,"));
    ck_assert(!info_has(info, "cmdstat_set:"));
    free(info);
    info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\nerrorstat_ERR:count=4\r\nerrorstat_WRONGTYPE:count=1\r\n");
    free(info);
    ck_assert_int_eq(h_info_int(c, "stats", "total_error_replies"), 5);
    info = h_info(c, "latencystats");
    p = strstr(info, "latency_percentiles_usec_get:p50=");
    ck_assert_msg(p, "%s", info);
    ck_assert_ptr_nonnull(strstr(p, ",p99="));
    ck_assert_ptr_nonnull(strstr(p, ",p99.9="));
    free(info);
    /* an error inside EXEC is its command's, not EXEC's; EXECABORT is EXEC's */
    expect_status(c, "OK", "CONFIG RESETSTAT");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "INCR k");
    freeReplyObject(expect_array(c, 1, "EXEC"));
    expect_status(c, "OK", "MULTI");
    expect_error_prefix(c, "ERR wrong number", "GET");
    expect_error_prefix(c, "EXECABORT", "EXEC");
    info = h_info(c, "commandstats");
    p = strstr(info, "cmdstat_exec:calls=2,");
    ck_assert_msg(p, "%s", info);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=0,failed_calls=1\r\n", 34));
    p = strstr(info, "cmdstat_incr:calls=1,");
    ck_assert_ptr_nonnull(p);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=0,failed_calls=1\r\n", 34));
    p = strstr(info, "cmdstat_get:calls=0,");
    ck_assert_ptr_nonnull(p);
    ck_assert(!strncmp(strstr(p, ",rejected_calls="), ",rejected_calls=1,failed_calls=0\r\n", 34));
    free(info);
    info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\nerrorstat_ERR:count=2\r\nerrorstat_EXECABORT:count=1\r\n");
    free(info);
    /* scripts (Redis 7.0's scriptCall, afterErrorReply): a command a script
     * may not run is a rejected call and an error counted at once (though a
     * pcall drops it); a command's error the script replies is not counted
     * again, but the script's command failed */
    expect_status(c, "OK", "CONFIG RESETSTAT");
    expect_int(c, 1, "EVAL %s 0", "redis.pcall('hset', 'h', 'f') redis.pcall('nosuch') return 1");
    expect_error_prefix(c, "ERR value is not an integer", "EVAL %s 0",
                        "return redis.pcall('incr', 'k')");
    expect_error_prefix(c, "ERR Write commands are not allowed", "EVAL_RO %s 0",
                        "return redis.call('set', 'k', 'v')");
    freeReplyObject(expect_array(c, 2, "EVAL %s 0", "return {1, redis.pcall('incr', 'k')}"));
    info = h_info(c, "commandstats");
    static const char *const script_stats[] = {
        "cmdstat_hset:calls=0,", ",rejected_calls=1,failed_calls=0\r\n",
        "cmdstat_set:calls=0,", ",rejected_calls=1,failed_calls=0\r\n",
        "cmdstat_incr:calls=2,", ",rejected_calls=0,failed_calls=2\r\n",
        "cmdstat_eval:calls=3,", ",rejected_calls=0,failed_calls=2\r\n",
        "cmdstat_eval_ro:calls=1,", ",rejected_calls=0,failed_calls=1\r\n"};
    for (size_t i = 0; i < sizeof script_stats / sizeof script_stats[0]; i += 2) {
        p = strstr(info, script_stats[i]);
        ck_assert_msg(p, "no %s in %s", script_stats[i], info);
        ck_assert_msg(!strncmp(strstr(p, ",rejected_calls="), script_stats[i + 1], 34), "%s: %.80s",
                      script_stats[i], strstr(p, ",rejected_calls="));
    }
    free(info);
    info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\nerrorstat_ERR:count=5\r\n");
    free(info);
    ck_assert_int_eq(h_info_int(c, "stats", "total_error_replies"), 5);
    /* the percentiles shown */
    expect_status(c, "OK", "CONFIG SET latency-tracking-info-percentiles %s", "0 12.5 100");
    redisReply *r = expect_array(c, 2, "CONFIG GET latency-tracking-info-percentiles");
    check_bulk(r->element[1], "0 12.5 100");
    freeReplyObject(r);
    info = h_info(c, "latencystats");
    p = strstr(info, "latency_percentiles_usec_incr:p0=");
    ck_assert_msg(p, "%s", info);
    ck_assert_ptr_nonnull(strstr(p, ",p12.5="));
    ck_assert_ptr_nonnull(strstr(p, ",p100="));
    free(info);
    expect_error_prefix(c, "ERR CONFIG SET failed (possibly related to argument "
                           "'latency-tracking-info-percentiles') - latency-tracking-info-percentiles "
                           "parameters should sit between [0.0,100.0]",
                        "CONFIG SET latency-tracking-info-percentiles 101");
    expect_error_prefix(c, "ERR CONFIG SET failed (possibly related to argument "
                           "'latency-tracking-info-percentiles') - Invalid "
                           "latency-tracking-info-percentiles parameters",
                        "CONFIG SET latency-tracking-info-percentiles x");
    /* RESETSTAT clears all of it */
    expect_status(c, "OK", "CONFIG RESETSTAT");
    info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\n");
    free(info);
    info = h_info(c, "commandstats");
    ck_assert(!info_has(info, "cmdstat_get:"));
    ck_assert(!info_has(info, "cmdstat_incr:"));
    free(info);
    info = h_info(c, "latencystats");
    ck_assert(!info_has(info, "latency_percentiles_usec_get:"));
    free(info);
    ck_assert_int_eq(h_info_int(c, "stats", "total_error_replies"), 0);
    /* latency-tracking no: no histogram */
    expect_status(c, "OK", "CONFIG SET latency-tracking no");
    expect_bulk(c, "v", "GET k");
    info = h_info(c, "latencystats");
    ck_assert(!info_has(info, "latency_percentiles_usec_get:"));
    free(info);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* "calls=C,rejected_calls=R,failed_calls=F" of cmdstat_<name> in INFO
 * commandstats, into out ("" when absent). */
static void cmdstat(redisContext *c, const char *name, char *out, size_t cap) {
    char *info = h_info(c, "commandstats");
    char want[64];
    snprintf(want, sizeof want, "\r\ncmdstat_%s:", name);
    const char *p = strstr(info, want);
    out[0] = '\0';
    if (p) {
        p += strlen(want);
        const char *rej = strstr(p, ",rejected_calls="), *end = strstr(p, "\r\n");
        snprintf(out, cap, "%.*s%.*s", (int)(strchr(p, ',') - p), p, (int)(end - rej), rej);
    }
    free(info);
}

#define expect_cmdstat(c, name, want)                                          \
    do {                                                                       \
        char got_[128];                                                        \
        cmdstat(c, name, got_, sizeof got_);                                   \
        ck_assert_msg(!strcmp(got_, want), "%s: %s, want %s", name, got_, want); \
    } while (0)

/* Redis 7.0's counting around scripts and blocked clients: an error a
 * script's command replied counts on that command and makes the script
 * failed (errorstats once); a command a script may not run (arity, a
 * read-only script's write) counts as rejected; CLIENT UNBLOCK makes the
 * blocked command failed, TIMEOUT as ERROR (Redis's updateStatsOnUnblock). */
START_TEST(commandstats_scripts_unblock) {
    srv *s = start();
    redisContext *c = srv_connect(s), *b = srv_connect(s);
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "CONFIG RESETSTAT");
    expect_error_prefix(c, "ERR value is not an integer", "EVAL %s 0", "return redis.call('incr','k')");
    expect_error_prefix(c, "ERR value is not an integer", "EVAL %s 0", "return redis.pcall('incr','k')");
    expect_cmdstat(c, "eval", "calls=2,rejected_calls=0,failed_calls=2");
    expect_cmdstat(c, "incr", "calls=2,rejected_calls=0,failed_calls=2");
    char *info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\nerrorstat_ERR:count=2\r\n");
    free(info);
    expect_status(c, "OK", "CONFIG RESETSTAT");
    expect_error_prefix(c, "ERR Wrong number of args", "EVAL %s 0", "return redis.call('get','a','b')");
    expect_error_prefix(c, "ERR Write commands are not allowed", "EVAL_RO %s 0",
                        "return redis.call('set','a','b')");
    expect_cmdstat(c, "get", "calls=0,rejected_calls=1,failed_calls=0");
    expect_cmdstat(c, "set", "calls=0,rejected_calls=1,failed_calls=0");
    expect_cmdstat(c, "eval", "calls=1,rejected_calls=0,failed_calls=1");
    expect_cmdstat(c, "eval_ro", "calls=1,rejected_calls=0,failed_calls=1");
    info = h_info(c, "errorstats");
    ck_assert_str_eq(info, "# Errorstats\r\nerrorstat_ERR:count=2\r\n");
    free(info);
    /* CLIENT UNBLOCK, ERROR then TIMEOUT */
    expect_status(c, "OK", "CONFIG RESETSTAT");
    long long id = 0;
    redisReply *r = cmd(b, "CLIENT ID");
    id = r->integer;
    freeReplyObject(r);
    const char *how[] = {"ERROR", "TIMEOUT"};
    for (int i = 0; i < 2; i++) {
        h_send(b, "BLPOP nolist 10");
        h_wait_info(c, "clients", "blocked_clients", 1, 5000);
        expect_int(c, 1, "CLIENT UNBLOCK %lld %s", id, how[i]);
        r = h_next_reply(b);
        ck_assert_int_eq(r->type, i ? REDIS_REPLY_NIL : REDIS_REPLY_ERROR);
        freeReplyObject(r);
    }
    expect_cmdstat(c, "blpop", "calls=2,rejected_calls=0,failed_calls=2");
    /* a timeout alone is no failure */
    expect_nil(b, "BLPOP nolist 0.01");
    expect_cmdstat(c, "blpop", "calls=3,rejected_calls=0,failed_calls=2");
    redisFree(b);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* latency-tracking-info-percentiles given as one argument, and empty. */
START_TEST(percentiles_config) {
    srv *s = srv_start("--latency-tracking-info-percentiles '1 2'");
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 2, "CONFIG GET latency-tracking-info-percentiles");
    check_bulk(r->element[1], "1 2");
    freeReplyObject(r);
    expect_status(c, "OK", "CONFIG SET latency-tracking-info-percentiles %s", "");
    r = expect_array(c, 2, "CONFIG GET latency-tracking-info-percentiles");
    check_bulk(r->element[1], "");
    freeReplyObject(r);
    char *info = h_info(c, "latencystats");
    ck_assert_msg(info_has(info, "\r\nlatency_percentiles_usec_config|get:\r\n"), "%s", info);
    free(info);
    redisFree(c);
    srv_stop(s);
}
END_TEST

int main(void) {
    Suite *s = suite_create("introspect");
    TCase *tc = tcase_create("introspect");
    tcase_add_checked_fixture(tc, h_setup, h_srv_drop_all);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, monitor_lines);
    tcase_add_test(tc, monitor_client_restrictions);
    tcase_add_test(tc, slowlog_entries);
    tcase_add_test(tc, latency_events);
    tcase_add_test(tc, latency_histogram);
    tcase_add_test(tc, latency_aof_events);
    tcase_add_test(tc, object_subcommands);
    tcase_add_test(tc, memory_usage_types);
    tcase_add_test(tc, memory_stats_doctor);
    tcase_add_test(tc, memory_figures_follow_data);
    tcase_add_test(tc, aof_replay_not_counted);
    tcase_add_test(tc, info_sections);
    tcase_add_test(tc, info_stats_values);
    tcase_add_test(tc, commandstats_scripts_unblock);
    tcase_add_test(tc, info_monitoring_fields);
    tcase_add_test(tc, percentiles_config);
    suite_add_tcase(s, tc);
    return h_main(s);
}
