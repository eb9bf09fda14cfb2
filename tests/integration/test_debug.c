/* test_debug: DEBUG as tools and test suites use it, against verso and
 * (VERSO_SERVER=/usr/bin/redis-server) Redis 7.0 itself: the digests (a
 * verso and a redis-server loaded with the same random data of every type
 * print the same DEBUG DIGEST and DIGEST-VALUE), RELOAD's options,
 * LOADAOF, OBJECT's format, the testing subcommands, the hidden testing
 * parameters, and the crash report that DEBUG SEGFAULT, ASSERT and PANIC
 * leave in the log. */
#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "testrand.h"

#define ZEROS "0000000000000000000000000000000000000000"

/* ---- the digests ---- */

/* The same command to both servers; both must answer alike (no error). */
static void both(redisContext *a, redisContext *b, int argc, const char **argv) {
    redisReply *ra = redisCommandArgv(a, argc, argv, NULL);
    redisReply *rb = redisCommandArgv(b, argc, argv, NULL);
    ck_assert_ptr_nonnull(ra);
    ck_assert_ptr_nonnull(rb);
    ck_assert_msg(ra->type != REDIS_REPLY_ERROR, "%s: %s", argv[0], ra->str);
    ck_assert_msg(rb->type != REDIS_REPLY_ERROR, "%s: %s", argv[0], rb->str);
    freeReplyObject(ra);
    freeReplyObject(rb);
}

/* line split on blanks (no member holds one). */
static void both_fmt(redisContext *a, redisContext *b, const char *line) {
    char buf[512];
    const char *argv[16];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *save, *t = strtok_r(buf, " ", &save); t && argc < 16;
         t = strtok_r(NULL, " ", &save))
        argv[argc++] = t;
    both(a, b, argc, argv);
}

/* A random member: small integers (intsets, integer listpack entries),
 * short and long strings, binary bytes. */
static void rnd_member(char *buf, size_t cap) {
    switch (rnd_int(4)) {
    case 0: snprintf(buf, cap, "%lld", rnd_in(-1000, 100000)); break;
    case 1: snprintf(buf, cap, "m%llu", (unsigned long long)rnd_below(500)); break;
    case 2: snprintf(buf, cap, "long-member-%llu-%0*d", (unsigned long long)rnd_below(300), 70, 0);
        break;
    default: snprintf(buf, cap, "b\\x%02x\\x00%llu", (unsigned)rnd_below(256),
                      (unsigned long long)rnd_below(50));
    }
}

/* Loads the same random keys of every type into both servers (db 0 and
 * db 3), some with expires, small and big encodings alike. */
static void load_random(redisContext *a, redisContext *b) {
    char line[512], m[160], f[160];
    for (int db = 0; db <= 3; db += 3) {
        snprintf(line, sizeof line, "SELECT %d", db);
        both_fmt(a, b, line);
        for (int k = 0; k < 40; k++) {
            int n = rnd_int(3) == 0 ? 300 : 1 + rnd_int(20); /* big: past the listpack limits */
            switch (k % 6) {
            case 0:
                rnd_member(m, sizeof m);
                snprintf(line, sizeof line, "SET str:%d %s", k, m);
                both_fmt(a, b, line);
                break;
            case 1:
                for (int i = 0; i < n; i++) {
                    rnd_member(m, sizeof m);
                    snprintf(line, sizeof line, "%s list:%d %s", rnd_int(2) ? "RPUSH" : "LPUSH",
                             k, m);
                    both_fmt(a, b, line);
                }
                break;
            case 2:
                for (int i = 0; i < n; i++) {
                    if (k % 12 == 2) snprintf(m, sizeof m, "%lld", rnd_in(-5000, 5000));
                    else rnd_member(m, sizeof m);
                    snprintf(line, sizeof line, "SADD set:%d %s", k, m);
                    both_fmt(a, b, line);
                }
                break;
            case 3:
                for (int i = 0; i < n; i++) {
                    rnd_member(m, sizeof m);
                    double s = rnd_int(2) ? (double)rnd_in(-100, 100)
                                          : (double)rnd_in(-1000000, 1000000) / 7.0;
                    snprintf(line, sizeof line, "ZADD zset:%d %.17g %s", k, s, m);
                    both_fmt(a, b, line);
                }
                break;
            case 4:
                for (int i = 0; i < n; i++) {
                    rnd_member(f, sizeof f);
                    rnd_member(m, sizeof m);
                    snprintf(line, sizeof line, "HSET hash:%d %s %s", k, f, m);
                    both_fmt(a, b, line);
                }
                break;
            default:
                for (int i = 0; i < n; i++) {
                    rnd_member(m, sizeof m);
                    snprintf(line, sizeof line, "XADD stream:%d %d-%d f%d %s %s v", k, 1 + i,
                             rnd_int(3), rnd_int(3), m, i % 2 ? "same" : "other");
                    both_fmt(a, b, line);
                }
                snprintf(line, sizeof line, "XDEL stream:%d 1-0 2-1", k);
                both_fmt(a, b, line);
                snprintf(line, sizeof line, "XGROUP CREATE stream:%d g 0", k);
                both_fmt(a, b, line);
            }
            if (rnd_int(4) == 0) {
                snprintf(line, sizeof line, "EXPIRE %s:%d 100000",
                         (const char *[]){"str", "list", "set", "zset", "hash", "stream"}[k % 6],
                         k);
                both_fmt(a, b, line);
            }
        }
    }
}

static char *reply_str(redisContext *c, const char *cmd) {
    redisReply *r = redisCommand(c, cmd);
    ck_assert_ptr_nonnull(r);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS, "%s: type %d %s", cmd, r->type,
                  r->str ? r->str : "");
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

/* DIGEST-VALUE of every key of db 0 and 3, the same on both. */
static void same_value_digests(redisContext *v, redisContext *r) {
    for (int db = 0; db <= 3; db += 3) {
        redisReply *sel = redisCommand(v, "SELECT %d", db);
        freeReplyObject(sel);
        sel = redisCommand(r, "SELECT %d", db);
        freeReplyObject(sel);
        redisReply *keys = redisCommand(r, "KEYS *");
        ck_assert_int_eq(keys->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_gt(keys->elements, 0);
        for (size_t i = 0; i < keys->elements; i++) {
            const char *k = keys->element[i]->str;
            redisReply *dv = redisCommand(v, "DEBUG DIGEST-VALUE %s", k);
            redisReply *dr = redisCommand(r, "DEBUG DIGEST-VALUE %s", k);
            ck_assert_int_eq(dv->type, REDIS_REPLY_ARRAY);
            ck_assert_int_eq(dr->type, REDIS_REPLY_ARRAY);
            ck_assert_msg(!strcmp(dv->element[0]->str, dr->element[0]->str),
                          "db %d key %s: verso %s, redis %s", db, k, dv->element[0]->str,
                          dr->element[0]->str);
            freeReplyObject(dv);
            freeReplyObject(dr);
        }
        freeReplyObject(keys);
    }
}

START_TEST(digest_same_as_redis)
{
    rnd_seed_env("debug_digest", "VT_TEST_SEED");
    srv *vs = h_srv_start(NULL);
    srv *rs = h_srv_start_redis(NULL);
    redisContext *v = srv_connect(vs), *r = srv_connect(rs);
    /* empty: 40 zeros on both, and for a missing key */
    expect_status(v, ZEROS, "DEBUG DIGEST");
    expect_status(r, ZEROS, "DEBUG DIGEST");
    redisReply *dv = expect_array(v, 1, "DEBUG DIGEST-VALUE nokey");
    ck_assert_str_eq(dv->element[0]->str, ZEROS);
    freeReplyObject(dv);
    load_random(v, r);
    char *a = reply_str(v, "DEBUG DIGEST"), *b = reply_str(r, "DEBUG DIGEST");
    ck_assert_msg(!strcmp(a, b), "DEBUG DIGEST: verso %s, redis %s", a, b);
    ck_assert_str_ne(a, ZEROS);
    same_value_digests(v, r);
    /* any change changes it: one list element moved, one expire removed */
    both_fmt(v, r, "SELECT 0");
    both_fmt(v, r, "RPUSH list:1 x");
    char *c1 = reply_str(v, "DEBUG DIGEST");
    ck_assert_str_ne(c1, a);
    both_fmt(v, r, "SET onlyexp 1 EX 1000");
    char *c2 = reply_str(v, "DEBUG DIGEST");
    both_fmt(v, r, "PERSIST onlyexp");
    char *c3 = reply_str(v, "DEBUG DIGEST");
    ck_assert_str_ne(c2, c3);
    char *d = reply_str(r, "DEBUG DIGEST");
    ck_assert_str_eq(c3, d);
    free(a), free(b), free(c1), free(c2), free(c3), free(d);
    redisFree(v);
    redisFree(r);
}
END_TEST

/* ---- the subcommands ---- */

START_TEST(help_and_simple_subcommands)
{
    /* Debian's redis-server has jemalloc: its MALLCTL and MALLCTL-STR lines */
    size_t lines = srv_is_reference() ? 106 : 102;
    redisReply *r = expect_array(h_c, (long long)lines, "DEBUG HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[1]->str, "AOF-FLUSH-SLEEP <microsec>");
    ck_assert_str_eq(r->element[lines - 1]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_error(h_c, "foo bar", "DEBUG ERROR %s", "foo\nbar");
    expect_status(h_c, "OK", "DEBUG LOG %s", "a-line-for-the-log");
    ck_assert(srv_log_wait(h_srv, "DEBUG LOG: a-line-for-the-log", 5000));
    expect_status(h_c, "OK", "DEBUG SET-ACTIVE-EXPIRE 1");
    /* SET-DISABLE-DENY-SCRIPTS 1: scripts may call noscript commands */
    expect_error_prefix(h_c, "ERR This Redis command is not allowed from script",
                        "EVAL %s 0", "return redis.call('client','id')");
    expect_status(h_c, "OK", "DEBUG SET-DISABLE-DENY-SCRIPTS 1");
    redisReply *cl = h_cmd(__FILE__, __LINE__, h_c, "EVAL %s 0",
                           "return redis.call('client','list')");
    ck_assert_msg(cl->type == REDIS_REPLY_STRING && !strncmp(cl->str, "id=", 3), "type %d %s",
                  cl->type, cl->str ? cl->str : "");
    freeReplyObject(cl);
    expect_status(h_c, "OK", "DEBUG SET-DISABLE-DENY-SCRIPTS 0");
    expect_status(h_c, "OK", "DEBUG AOF-FLUSH-SLEEP 0");
    expect_status(h_c, "OK", "DEBUG REPLYBUFFER PEAK-RESET-TIME never");
    expect_status(h_c, "OK", "DEBUG REPLYBUFFER RESIZING 1");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'REPLYBUFFER'. "
                      "Try DEBUG HELP.", "DEBUG REPLYBUFFER x 1");
    expect_status(h_c, "OK", "DEBUG QUICKLIST-PACKED-THRESHOLD 100");
    expect_status(h_c, "OK", "DEBUG QUICKLIST-PACKED-THRESHOLD 0");
    expect_error(h_c, "ERR argument must be a memory value bigger than 1 and smaller than 4gb",
                 "DEBUG QUICKLIST-PACKED-THRESHOLD 5gb");
    /* 7.0.15 has neither (they came later) */
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'JMAP'. "
                      "Try DEBUG HELP.", "DEBUG JMAP");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for "
                      "'STRINGMATCH-LEN'. Try DEBUG HELP.", "DEBUG STRINGMATCH-LEN");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'DIGEST'. "
                      "Try DEBUG HELP.", "DEBUG DIGEST x");
    /* LISTPACK, HTSTATS-KEY */
    expect_int(h_c, 1, "HSET h f v");
    expect_status(h_c, "Listpack structure printed on stdout", "DEBUG LISTPACK h");
    expect_error(h_c, "ERR no such key", "DEBUG LISTPACK nokey");
    expect_error(h_c, "ERR The value stored at the specified key is not represented using an "
                      "hash table", "DEBUG HTSTATS-KEY h");
    expect_status(h_c, "OK", "SET s x");
    expect_error(h_c, "ERR Not a listpack encoded object.", "DEBUG LISTPACK s");
    expect_error(h_c, "ERR Out of range database", "DEBUG HTSTATS 99");
    expect_status(h_c, "OK", "CONFIG SET hash-max-listpack-entries 1");
    expect_int(h_c, 3, "HSET hh a 1 b 2 c 3");
    redisReply *ht = h_cmd(__FILE__, __LINE__, h_c, "DEBUG HTSTATS-KEY hh");
    ck_assert_msg(ht->type == REDIS_REPLY_STRING &&
                      !strncmp(ht->str, "Hash table 0 stats (main hash table):\n", 38) &&
                      strstr(ht->str, "\n number of elements: 3\n"),
                  "%s", ht->str ? ht->str : "?");
    freeReplyObject(ht);
    ht = h_cmd(__FILE__, __LINE__, h_c, "DEBUG HTSTATS 0");
    ck_assert_msg(ht->type == REDIS_REPLY_STRING && !strncmp(ht->str, "[Dictionary HT]\n", 16) &&
                      strstr(ht->str, "[Expires HT]\nHash table 0 stats (main hash table):\n"
                                      "No stats available for empty dictionaries\n"),
                  "%s", ht->str ? ht->str : "?");
    freeReplyObject(ht);
}
END_TEST

START_TEST(object_format)
{
    expect_int(h_c, 3, "RPUSH l a b c");
    redisReply *r = h_cmd(__FILE__, __LINE__, h_c, "DEBUG OBJECT l");
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    char enc[32];
    unsigned long long sl, lru, idle, nodes;
    double avg;
    int max, comp;
    unsigned long long usz;
    int n = sscanf(r->str, "Value at:%*p refcount:1 encoding:%31s serializedlength:%llu lru:%llu "
                           "lru_seconds_idle:%llu ql_nodes:%llu ql_avg_node:%lf "
                           "ql_listpack_max:%d ql_compressed:%d ql_uncompressed_size:%llu",
                   enc, &sl, &lru, &idle, &nodes, &avg, &max, &comp, &usz);
    ck_assert_msg(n == 9, "%s", r->str);
    ck_assert_str_eq(enc, "quicklist");
    ck_assert_uint_eq(sl, 19);   /* one node, 16 listpack bytes */
    ck_assert_uint_eq(nodes, 1);
    ck_assert_int_eq(max, -2);
    ck_assert_uint_eq(usz, 16);
    freeReplyObject(r);
    expect_status(h_c, "OK", "SET n 123");
    r = h_cmd(__FILE__, __LINE__, h_c, "DEBUG OBJECT n");
    ck_assert_msg(strstr(r->str, " refcount:2147483647 encoding:int serializedlength:2 lru:"),
                  "%s", r->str);
    freeReplyObject(r);
    expect_status(h_c, "OK", "SET s hello");
    r = h_cmd(__FILE__, __LINE__, h_c, "DEBUG OBJECT s");
    ck_assert_msg(!strncmp(r->str, "Value at:0x", 11) &&
                      strstr(r->str, " refcount:1 encoding:embstr serializedlength:6 lru:"),
                  "%s", r->str);
    freeReplyObject(r);
    /* intsets of 2, 4 and 8-byte members, a small hash's listpack */
    expect_int(h_c, 3, "SADD si 1 2 3");
    expect_int(h_c, 2, "SADD si2 1 100000");
    expect_int(h_c, 2, "SADD si3 1 10000000000");
    expect_int(h_c, 2, "HSET hs a 1 bb 22");
    static const struct { const char *key, *want; } lens[] = {
        {"si", " serializedlength:15 "}, {"si2", " serializedlength:17 "},
        {"si3", " serializedlength:25 "}, {"hs", " serializedlength:19 "}};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        r = h_cmd(__FILE__, __LINE__, h_c, "DEBUG OBJECT %s", lens[i].key);
        ck_assert_msg(strstr(r->str, lens[i].want), "%s: %s", lens[i].key, r->str);
        freeReplyObject(r);
    }
    /* a compressible string over 20 bytes: its LZF form's length */
    char big[101];
    memset(big, 'a', 100);
    big[100] = '\0';
    expect_status(h_c, "OK", "SET big %s", big);
    r = h_cmd(__FILE__, __LINE__, h_c, "DEBUG OBJECT big");
    ck_assert_msg(strstr(r->str, " encoding:raw serializedlength:13 lru:"), "%s", r->str);
    freeReplyObject(r);
    expect_error(h_c, "ERR no such key", "DEBUG OBJECT nokey");
}
END_TEST

START_TEST(reload_options)
{
    expect_status(h_c, "OK", "SET a 1");
    expect_error(h_c, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.",
                 "DEBUG RELOAD bogus");
    expect_status(h_c, "OK", "DEBUG RELOAD");
    expect_bulk(h_c, "1", "GET a");
    /* NOSAVE NOFLUSH MERGE: the file's keys added, its own value winning */
    expect_status(h_c, "OK", "SET a 2");
    expect_status(h_c, "OK", "SET b 3");
    expect_status(h_c, "OK", "DEBUG RELOAD NOSAVE NOFLUSH MERGE");
    expect_bulk(h_c, "1", "GET a");
    expect_bulk(h_c, "3", "GET b");
    /* NOSAVE: the file alone */
    expect_status(h_c, "OK", "DEBUG RELOAD NOSAVE");
    expect_nil(h_c, "GET b");
    expect_int(h_c, 1, "DBSIZE");
    /* a function library in memory and in the file: MERGE replaces it,
     * NOFLUSH alone fails on it */
    expect_bulk(h_c, "mylib", "FUNCTION LOAD %s",
                "#!lua name=mylib\nredis.register_function('f1', function() return 1 end)");
    expect_status(h_c, "OK", "SAVE");
    expect_status(h_c, "OK", "DEBUG RELOAD NOSAVE NOFLUSH MERGE");
    expect_error(h_c, "ERR Error trying to load the RDB dump", "DEBUG RELOAD NOSAVE NOFLUSH");
    expect_int(h_c, 1, "FCALL f1 0");
    /* no file */
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/dump.rdb", h_srv->dir);
    ck_assert_int_eq(unlink(path), 0);
    expect_error(h_c, "ERR Error trying to load the RDB dump", "DEBUG RELOAD NOSAVE");
}
END_TEST

/* key-load-delay: DEBUG RELOAD sleeps after each key, and another client
 * sees the load in progress (INFO loading:1) meanwhile. */
START_TEST(key_load_delay_shows_loading)
{
    expect_status(h_c, "OK", "DEBUG POPULATE 2000");
    expect_status(h_c, "OK", "SAVE");
    expect_status(h_c, "OK", "CONFIG SET loading-process-events-interval-bytes 1024");
    expect_status(h_c, "OK", "CONFIG SET key-load-delay 500"); /* 2000 x 0.5 ms: 1 s */
    redisContext *other = srv_connect(h_srv);
    h_send(h_c, "DEBUG RELOAD NOSAVE");
    h_wait_info_str(other, "persistence", "loading", "1", 5000);
    redisReply *r = h_next_reply(h_c);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"), "DEBUG RELOAD: %s",
                  r->str ? r->str : "?");
    freeReplyObject(r);
    expect_status(h_c, "OK", "CONFIG SET key-load-delay 0");
    expect_int(h_c, 2000, "DBSIZE");
    redisFree(other);
}
END_TEST

START_TEST(loadaof_reloads)
{
    srv *s = h_srv_start("--appendonly yes");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET a 1");
    expect_int(c, 2, "RPUSH l x y");
    expect_int(c, 1, "SADD st m");
    expect_status(c, "OK", "SELECT 2");
    expect_int(c, 1, "HSET h f v");
    char *before = reply_str(c, "DEBUG DIGEST");
    expect_status(c, "OK", "DEBUG LOADAOF");
    char *after = reply_str(c, "DEBUG DIGEST");
    ck_assert_str_eq(before, after);
    expect_int(c, 1, "DBSIZE");
    /* appending goes on: a write after it is there after the next one */
    expect_status(c, "OK", "SET later 1");
    expect_status(c, "OK", "DEBUG LOADAOF");
    expect_bulk(c, "1", "GET later");
    expect_status(c, "OK", "SELECT 0");
    expect_bulk(c, "1", "GET a");
    ck_assert(srv_log_wait(s, "Append Only File loaded by DEBUG LOADAOF", 5000));
    free(before);
    free(after);
    redisFree(c);
}
END_TEST

/* The commands DEBUG LOADAOF replays reach neither the AOF nor a replica
 * (they hold them already): an INCR replayed to the replica would count
 * twice there. */
START_TEST(loadaof_not_propagated)
{
    srv *p = h_srv_start("--appendonly yes");
    srv *r = h_srv_start("--replicaof 127.0.0.1 %d", p->port);
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 30000);
    expect_int(pc, 1, "INCR n");
    expect_status(pc, "OK", "DEBUG LOADAOF");
    expect_status(pc, "OK", "SET marker 1");
    for (int i = 0; i < 500; i++) { /* until the marker arrives */
        redisReply *m = redisCommand(rc, "GET marker");
        int there = m && m->type == REDIS_REPLY_STRING;
        freeReplyObject(m);
        if (there) break;
        h_sleep_ms(20);
    }
    expect_bulk(rc, "1", "GET marker");
    expect_bulk(rc, "1", "GET n");
    /* nor logged again: one more load still counts 1 */
    expect_status(pc, "OK", "DEBUG LOADAOF");
    expect_bulk(pc, "1", "GET n");
    redisFree(pc);
    redisFree(rc);
}
END_TEST

START_TEST(change_repl_id)
{
    char id1[64], id2[64];
    h_wait_info_str(h_c, "replication", "master_replid2",
                    "0000000000000000000000000000000000000000", 1000);
    char *info = h_info(h_c, "replication");
    ck_assert(h_info_field(info, "master_replid", id1, sizeof id1));
    free(info);
    expect_status(h_c, "OK", "DEBUG CHANGE-REPL-ID");
    info = h_info(h_c, "replication");
    ck_assert(h_info_field(info, "master_replid", id2, sizeof id2));
    free(info);
    ck_assert_str_ne(id1, id2);
    ck_assert_uint_eq(strlen(id2), 40);
    ck_assert(srv_log_wait(h_srv, "Changing replication IDs after receiving DEBUG change-repl-id",
                           5000));
}
END_TEST

/* Redis's HIDDEN_CONFIG testing knobs: out of CONFIG GET *, by name they
 * answer and CONFIG SET takes them. */
START_TEST(hidden_test_params)
{
    static const char *hidden[] = {"use-exit-on-panic", "key-load-delay", "rdb-key-save-delay",
                                   "loading-process-events-interval-bytes"};
    redisReply *all = expect_array(h_c, -1, "CONFIG GET *");
    for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++) {
        for (size_t j = 0; j < all->elements; j += 2)
            ck_assert_msg(strcmp(all->element[j]->str, hidden[i]), "%s in CONFIG GET *",
                          hidden[i]);
        redisReply *one = expect_array(h_c, 2, "CONFIG GET %s", hidden[i]);
        freeReplyObject(one);
    }
    int memcheck = 0, crashlog = 0;
    for (size_t j = 0; j < all->elements; j += 2) {
        memcheck |= !strcmp(all->element[j]->str, "crash-memcheck-enabled");
        crashlog |= !strcmp(all->element[j]->str, "crash-log-enabled");
    }
    ck_assert(memcheck && crashlog);
    freeReplyObject(all);
    expect_status(h_c, "OK", "CONFIG SET use-exit-on-panic yes");
    expect_status(h_c, "OK", "CONFIG SET key-load-delay 10");
    redisReply *r = expect_array(h_c, 2, "CONFIG GET use-exit-on-panic");
    ck_assert_str_eq(r->element[1]->str, "yes");
    freeReplyObject(r);
}
END_TEST

/* ---- the crash report ---- */

/* Sends cmd (the server dies of it), waits for the exit, returns the log. */
static char *crash_with(srv *s, const char *cmd, int *status) {
    redisContext *c = srv_connect(s);
    redisReply *r = redisCommand(c, cmd);
    if (r) freeReplyObject(r); /* NULL: the connection closed, as it should */
    redisFree(c);
    ck_assert_msg(srv_wait_exit(s, h_scaled_ms(20000)), "still running after %s", cmd);
    *status = s->exit_status;
    return srv_log_read(s);
}

static void has(const char *log, const char *needle) {
    ck_assert_msg(strstr(log, needle) != NULL, "no '%s' in the log:\n%s", needle, log);
}

START_TEST(segfault_report)
{
    srv *s = h_srv_start("--crash-memcheck-enabled no");
    int st;
    char *log = crash_with(s, "DEBUG SEGFAULT", &st);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "wait status 0x%x", st);
    has(log, "=== REDIS BUG REPORT START: Cut & paste starting from here ===");
    has(log, " crashed by signal: 11, si_code: ");
    has(log, "Accessing address: ");
    has(log, "------ STACK TRACE ------");
    has(log, "------ INFO OUTPUT ------\n# Server\r\n");
    has(log, "------ CLIENT LIST OUTPUT ------\nid=");
    has(log, "------ CURRENT CLIENT INFO ------\nid=");
    has(log, "argv[0]: '\"DEBUG\"'\nargv[1]: '\"SEGFAULT\"'");
    has(log, "=== REDIS BUG REPORT END. Make sure to include from START to END. ===");
    ck_assert(strstr(log, "STACK TRACE") < strstr(log, "INFO OUTPUT"));
    free(log);
}
END_TEST

START_TEST(assert_and_panic_reports)
{
    srv *s = h_srv_start("--crash-memcheck-enabled no");
    int st;
    char *log = crash_with(s, "DEBUG ASSERT", &st);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "wait status 0x%x", st);
    has(log, "=== REDIS BUG REPORT START: Cut & paste starting from here ===");
    has(log, "=== ASSERTION FAILED CLIENT CONTEXT ===");
    has(log, "client->argv[1] = \"ASSERT\"");
    has(log, "=== ASSERTION FAILED ===");
    has(log, "'1 == 2' is not true");
    has(log, "------ STACK TRACE ------");
    has(log, "=== REDIS BUG REPORT END.");
    ck_assert_msg(!strstr(log, "crashed by signal"), "abort() reported again:\n%s", log);
    free(log);
    /* PANIC, with use-exit-on-panic: the report, then exit status 1 */
    s = h_srv_start("--crash-memcheck-enabled no --use-exit-on-panic yes");
    log = crash_with(s, "DEBUG PANIC", &st);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "wait status 0x%x", st);
    has(log, "!!! Software Failure. Press left mouse button to continue");
    has(log, "Guru Meditation: DEBUG PANIC called at Unix time ");
    has(log, "=== REDIS BUG REPORT END.");
    free(log);
}
END_TEST

/* crash-log-enabled no: no report, the signal's default action. */
START_TEST(crash_log_disabled)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET crash-log-enabled no");
    redisFree(c);
    int st;
    char *log = crash_with(s, "DEBUG SEGFAULT", &st);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV, "wait status 0x%x", st);
    ck_assert_msg(!strstr(log, "crashed by signal"), "a report:\n%s", log);
    free(log);
}
END_TEST

int main(void) {
    Suite *s = suite_create("debug");
    h_add_dropall(s, "digest_same_as_redis", digest_same_as_redis, 120);
    h_add_tcase(s, "help_and_simple_subcommands", help_and_simple_subcommands, 30, h_setup,
                h_teardown);
    h_add_tcase(s, "object_format", object_format, 30, h_setup, h_teardown);
    h_add_tcase(s, "reload_options", reload_options, 30, h_setup, h_teardown);
    h_add_tcase(s, "key_load_delay_shows_loading", key_load_delay_shows_loading, 30, h_setup,
                h_teardown);
    h_add_dropall(s, "loadaof_reloads", loadaof_reloads, 30);
    h_add_dropall(s, "loadaof_not_propagated", loadaof_not_propagated, 60);
    h_add_tcase(s, "change_repl_id", change_repl_id, 30, h_setup, h_teardown);
    h_add_tcase(s, "hidden_test_params", hidden_test_params, 30, h_setup, h_teardown);
    h_add_dropall(s, "segfault_report", segfault_report, 60);
    h_add_dropall(s, "assert_and_panic_reports", assert_and_panic_reports, 60);
    h_add_dropall(s, "crash_log_disabled", crash_log_disabled, 60);
    return h_main(s);
}
