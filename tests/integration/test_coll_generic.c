/* test_coll_generic: the generic commands on collections (issue 9) against a
 * real server, with Redis 7.0's replies: lazyfree (UNLINK, FLUSH* ASYNC and
 * the lazyfree-lazy-* paths, INFO lazyfree_pending_objects /
 * lazyfreed_objects), MEMORY USAGE/STATS/DOCTOR/MALLOC-STATS/PURGE/HELP,
 * TYPE, OBJECT ENCODING, the EXPIRE/TTL family, RENAME, COPY, MOVE,
 * DUMP/RESTORE, SORT, SCAN TYPE, and the AOF (restart, BGREWRITEAOF, with and
 * without the RDB preamble) for every type. Every test runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server); the verso-only INFO
 * field (forkless_copied_nodes) is checked on verso alone. */
#include "harness.h"
#include "testcmp.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The encodings' limits, set on both servers (Debian's redis-server does
 * not use Redis's built-in defaults for every one). */
static void set_limits(redisContext *c) {
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries 128");
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-value 64");
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-entries 128");
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-value 64");
    expect_status(c, "OK", "CONFIG SET set-max-intset-entries 512");
    expect_status(c, "OK", "CONFIG SET list-max-listpack-size -2");
}

static void setup(void) {
    h_setup();
    set_limits(h_c);
}

/* ---- building values ---- */

enum { K_HASH, K_LIST, K_SET, K_ZSET };

/* Builds key of the kind with n items: HSET f<i> v<i>, ZADD <i> m<i>,
 * RPUSH / SADD m<i> (or, with elem_size, one element of that many bytes per
 * RPUSH/SADD, starting with i), 256 items per command. */
static void fill(redisContext *c, int kind, const char *key, int n, size_t elem_size) {
    enum { BATCH = 256 };
    static const char *names[] = {"HSET", "RPUSH", "SADD", "ZADD"};
    const char **argv = malloc(sizeof *argv * (2 + 2 * BATCH));
    size_t *lens = malloc(sizeof *lens * (2 + 2 * BATCH));
    char (*bufs)[64] = malloc(sizeof *bufs * 2 * BATCH);
    char *big = NULL;
    if (elem_size > 0) {
        big = malloc(elem_size);
        memset(big, 'x', elem_size);
    }
    for (int base = 0; base < n; base += BATCH) {
        int argc = 0;
        argv[argc] = names[kind];
        lens[argc++] = strlen(names[kind]);
        argv[argc] = key;
        lens[argc++] = strlen(key);
        for (int i = base; i < n && i < base + BATCH; i++) {
            char *a = bufs[2 * (i - base)], *b = bufs[2 * (i - base) + 1];
            switch (kind) {
            case K_HASH:
                snprintf(a, 64, "f%d", i);
                snprintf(b, 64, "v%d", i);
                argv[argc] = a, lens[argc++] = strlen(a);
                argv[argc] = b, lens[argc++] = strlen(b);
                break;
            case K_ZSET:
                snprintf(a, 64, "%d", i);
                snprintf(b, 64, "m%d", i);
                argv[argc] = a, lens[argc++] = strlen(a);
                argv[argc] = b, lens[argc++] = strlen(b);
                break;
            default:
                if (big) {
                    int w = snprintf(big, elem_size, "%d", i); /* distinct */
                    big[w] = 'x';
                    argv[argc] = big, lens[argc++] = elem_size;
                    /* one element per command: big is reused */
                    redisReply *r = redisCommandArgv(c, argc, argv, lens);
                    ck_assert_ptr_nonnull(r);
                    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
                    freeReplyObject(r);
                    argc = 2;
                    continue;
                }
                snprintf(a, 64, "m%d", i);
                argv[argc] = a, lens[argc++] = strlen(a);
                break;
            }
        }
        if (argc > 2) {
            redisReply *r = redisCommandArgv(c, argc, argv, lens);
            ck_assert_ptr_nonnull(r);
            ck_assert_msg(r->type == REDIS_REPLY_INTEGER, "%s %s: %s", names[kind], key,
                          r->type == REDIS_REPLY_ERROR ? r->str : "?");
            freeReplyObject(r);
        }
    }
    free(big);
    free(bufs);
    free(lens);
    free(argv);
}

/* A hash of n fields f<i> = v<i>. */
static void big_hash(redisContext *c, const char *key, int n) { fill(c, K_HASH, key, n, 0); }

static long long lazyfreed(redisContext *c) {
    return h_info_int(c, "memory", "lazyfreed_objects");
}

/* Waits until lazyfreed_objects is want (then pending is 0). */
static void wait_freed(redisContext *c, long long want) {
    h_wait_info(c, "memory", "lazyfreed_objects", want, 10000);
    h_wait_info(c, "memory", "lazyfree_pending_objects", 0, 10000);
}

/* MEMORY USAGE key */
static long long usage(redisContext *c, const char *key) {
    redisReply *r = cmd(c, "MEMORY USAGE %s", key);
    ck_assert_msg(r->type == REDIS_REPLY_INTEGER, "MEMORY USAGE %s: type %d", key, r->type);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

/* ---- lazyfree ---- */

/* UNLINK frees a big value in the background, a small one (or a string of
 * any size) at once; DEL only with lazyfree-lazy-user-del. Each big value
 * counts once in lazyfreed_objects: the exact count shows which went. */
START_TEST(lazyfree_unlink_del)
{
    redisContext *c = h_c;
    ck_assert_int_eq(lazyfreed(c), 0);
    ck_assert_int_eq(h_info_int(c, "memory", "lazyfree_pending_objects"), 0);
    big_hash(c, "small", 10);
    expect_bulk(c, "listpack", "OBJECT ENCODING small");
    expect_int(c, 1, "UNLINK small");
    expect_status(c, "OK", "SET str %s", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    expect_int(c, 1, "UNLINK str");
    big_hash(c, "h", 500);
    big_hash(c, "keep", 500);
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    expect_int(c, 1, "UNLINK h nokey");
    wait_freed(c, 1);
    expect_int(c, 0, "EXISTS h");
    expect_int(c, 500, "HLEN keep");
    expect_bulk(c, "v499", "HGET keep f499");
    /* DEL frees at once unless lazyfree-lazy-user-del */
    big_hash(c, "h", 500);
    expect_int(c, 1, "DEL h");
    big_hash(c, "h", 500);
    expect_int(c, 1, "UNLINK h");
    wait_freed(c, 2);
    expect_status(c, "OK", "CONFIG SET lazyfree-lazy-user-del yes");
    big_hash(c, "h", 500);
    expect_int(c, 1, "DEL h");
    wait_freed(c, 3);
    /* every type: a list of 65 nodes (elements over 8 KB each are nodes of
     * their own in Redis's quicklist), a set and a sorted set of 500 */
    fill(c, K_LIST, "l", 65, 9000);
    fill(c, K_SET, "s", 500, 0);
    fill(c, K_ZSET, "z", 500, 0);
    expect_int(c, 3, "UNLINK l s z");
    wait_freed(c, 6);
    expect_int(c, 1, "DBSIZE");
    /* CONFIG RESETSTAT resets the count */
    expect_status(c, "OK", "CONFIG RESETSTAT");
    ck_assert_int_eq(lazyfreed(c), 0);
}
END_TEST

/* FLUSHDB/FLUSHALL ASYNC (or without argument with lazyfree-lazy-user-flush)
 * free the old tables in the background: every key counts. */
START_TEST(lazyfree_flush)
{
    redisContext *c = h_c;
    for (int i = 0; i < 40; i++) expect_status(c, "OK", "SET k%d v", i);
    big_hash(c, "h", 300);
    expect_status(c, "OK", "SELECT 1");
    for (int i = 0; i < 9; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "SELECT 0");
    expect_status(c, "OK", "FLUSHDB ASYNC");
    wait_freed(c, 41);
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "SELECT 1");
    expect_int(c, 9, "DBSIZE");
    expect_status(c, "OK", "FLUSHALL ASYNC");
    wait_freed(c, 50);
    expect_int(c, 0, "DBSIZE");
    /* SYNC and the default free at once */
    for (int i = 0; i < 5; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "FLUSHALL SYNC");
    for (int i = 0; i < 5; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "FLUSHDB");
    for (int i = 0; i < 5; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "CONFIG SET lazyfree-lazy-user-flush yes");
    expect_status(c, "OK", "FLUSHALL");
    wait_freed(c, 55);
    for (int i = 0; i < 3; i++) expect_status(c, "OK", "SET k%d v", i);
    expect_status(c, "OK", "FLUSHDB SYNC");
    ck_assert_int_eq(lazyfreed(c), 55);
    /* the server goes on */
    big_hash(c, "h", 300);
    expect_int(c, 300, "HLEN h");
}
END_TEST

/* Expiry and server-side deletes (an overwrite, RENAME onto a key) with
 * their switches. */
START_TEST(lazyfree_expire_server_del)
{
    redisContext *c = h_c;
    big_hash(c, "h", 300);
    expect_int(c, 1, "PEXPIRE h 1");
    h_sleep_ms(20);
    expect_int(c, 0, "EXISTS h");
    big_hash(c, "h", 300);
    expect_status(c, "OK", "SET h str"); /* overwrite: at once by default */
    ck_assert_int_eq(lazyfreed(c), 0);
    expect_int(c, 1, "DEL h");
    expect_status(c, "OK", "CONFIG SET lazyfree-lazy-expire yes");
    big_hash(c, "h", 300);
    expect_int(c, 1, "PEXPIRE h 1");
    h_sleep_ms(20);
    expect_int(c, 0, "EXISTS h");
    wait_freed(c, 1);
    big_hash(c, "h", 300);
    expect_int(c, 1, "EXPIRE h -1"); /* a time already past deletes */
    expect_int(c, 0, "EXISTS h");
    wait_freed(c, 2);
    expect_status(c, "OK", "CONFIG SET lazyfree-lazy-server-del yes");
    big_hash(c, "h", 300);
    expect_status(c, "OK", "SET h str");
    wait_freed(c, 3);
    expect_int(c, 1, "DEL h");
    big_hash(c, "h", 300);
    expect_error(c, "ERR no such key", "RENAME nosrc h");
    expect_status(c, "OK", "SET src v");
    expect_status(c, "OK", "RENAME src h");
    wait_freed(c, 4);
    expect_bulk(c, "v", "GET h");
}
END_TEST

/* Eviction with lazyfree-lazy-eviction: big hashes evicted count. */
START_TEST(lazyfree_eviction)
{
    redisContext *c = h_c;
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "h%d", i);
        big_hash(c, k, 2000);
    }
    /* what maxmemory compares, on both servers */
    long long used = h_info_int(c, "memory", "used_memory") -
                     h_info_int(c, "memory", "mem_not_counted_for_evict");
    expect_status(c, "OK", "CONFIG SET lazyfree-lazy-eviction yes");
    expect_status(c, "OK", "CONFIG SET maxmemory-policy allkeys-random");
    /* room for about 15 of the 20 hashes */
    long long one = usage(c, "h0");
    expect_status(c, "OK", "CONFIG SET maxmemory %lld", used - 5 * one);
    /* a write evicts; Redis may answer OOM while its frees are pending
     * (it evicts every key it can), verso waits for them: retry */
    int ok = 0;
    for (int i = 0; i < 500 && !ok; i++) {
        redisReply *r = cmd(c, "SET x y");
        ok = r->type == REDIS_REPLY_STATUS;
        if (!ok) ck_assert_str_eq(r->str, "OOM command not allowed when used memory > 'maxmemory'.");
        freeReplyObject(r);
        if (!ok) h_sleep_ms(10);
    }
    ck_assert(ok);
    h_wait_info_ge(c, "stats", "evicted_keys", 1, 10000);
    h_wait_info_ge(c, "memory", "lazyfreed_objects", 1, 10000);
    expect_status(c, "OK", "CONFIG SET maxmemory 0");
    long long keys = 0;
    redisReply *r = expect_array(c, -1, "KEYS h*");
    keys = (long long)r->elements;
    freeReplyObject(r);
    /* Redis may evict them all (it checks the memory every 16 keys while
     * the frees are pending); verso waits for the queued frees */
    ck_assert_int_lt(keys, 20);
}
END_TEST

/* A value freed in the background while its copy (sharing its nodes in
 * verso) is written, and while a save holds values: the copy and the data
 * stay whole (TSan runs this one over the lazyfree thread). */
START_TEST(lazyfree_shared_nodes)
{
    redisContext *c = h_c;
    for (int round = 0; round < 4; round++) {
        big_hash(c, "h", 1000);
        expect_int(c, 1, "COPY h h2 REPLACE");
        expect_int(c, 1, "UNLINK h");
        for (int i = 0; i < 1000; i += 7) expect_int(c, 0, "HSET h2 f%d w%d", i, i);
        expect_int(c, 1000, "HLEN h2");
        expect_bulk(c, "w7", "HGET h2 f7");
        expect_bulk(c, "v8", "HGET h2 f8");
    }
    wait_freed(c, 4);
    /* UNLINK while a save may hold the values */
    for (int i = 0; i < 8; i++) {
        char k[16];
        snprintf(k, sizeof k, "s%d", i);
        big_hash(c, k, 1000);
    }
    expect_status(c, "Background saving started", "BGSAVE");
    for (int i = 0; i < 8; i++) {
        expect_int(c, 1, "COPY s%d c%d", i, i);
        expect_int(c, 1, "UNLINK s%d", i);
        expect_int(c, 0, "HSET c%d f1 changed", i);
    }
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 20000);
    h_wait_info(c, "memory", "lazyfree_pending_objects", 0, 10000);
    for (int i = 0; i < 8; i++) {
        expect_int(c, 1000, "HLEN c%d", i);
        expect_bulk(c, "changed", "HGET c%d f1", i);
        expect_bulk(c, "v999", "HGET c%d f999", i);
    }
    /* values still queued at SHUTDOWN: the thread drains and the server
     * exits with status 0 (the teardown checks it; ASan: nothing leaks) */
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "q%d", i);
        big_hash(c, k, 1000);
    }
    expect_int(c, 20, "UNLINK q0 q1 q2 q3 q4 q5 q6 q7 q8 q9 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19");
    expect_status(c, "OK", "FLUSHALL ASYNC");
}
END_TEST

/* ---- MEMORY ---- */

START_TEST(memory_usage)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s v");
    ck_assert_int_gt(usage(c, "s"), 0);
    expect_nil(c, "MEMORY USAGE nokey");
    expect_nil(c, "MEMORY USAGE nokey SAMPLES 3");
    expect_error(c, "ERR syntax error", "MEMORY USAGE s SAMPLES -1");
    expect_error(c, "ERR value is not an integer or out of range", "MEMORY USAGE s SAMPLES x");
    expect_error(c, "ERR syntax error", "MEMORY USAGE s foo");
    expect_error(c, "ERR syntax error", "MEMORY USAGE s SAMPLES");
    expect_error(c, "ERR wrong number of arguments for 'memory|usage' command", "MEMORY USAGE");
    expect_error(c, "ERR unknown subcommand 'foo'. Try MEMORY HELP.", "MEMORY foo");
    expect_error(c, "ERR wrong number of arguments for 'memory' command", "MEMORY");
    /* every type: more elements, more bytes */
    const char *small[] = {"hs", "ls", "ss", "zs"}, *large[] = {"hl", "ll", "sl", "zl"};
    for (int k = K_HASH; k <= K_ZSET; k++) {
        fill(c, k, small[k], 5, 0);
        fill(c, k, large[k], 5000, 0);
        long long a = usage(c, small[k]), b = usage(c, large[k]);
        ck_assert_msg(a > 0 && b > a, "%s %lld, %s %lld", small[k], a, large[k], b);
        /* SAMPLES 0 (all) and any count answer an integer too */
        expect_int_range(c, 1, b * 4, "MEMORY USAGE %s SAMPLES 0", large[k]);
        expect_int_range(c, 1, b * 4, "MEMORY USAGE %s samples 100", large[k]);
        /* at least a few bytes per element */
        ck_assert_int_gt(b, 5000 * 4);
    }
}
END_TEST

/* The reply shapes of STATS, DOCTOR, MALLOC-STATS, PURGE and HELP. */
START_TEST(memory_other)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET a b");
    expect_status(c, "OK", "SELECT 2");
    big_hash(c, "h", 10);
    expect_status(c, "OK", "SELECT 0");
    redisReply *r = expect_array(c, -1, "MEMORY STATS");
    static const char *names[] = {
        "peak.allocated", "total.allocated", "startup.allocated", "replication.backlog",
        "clients.slaves", "clients.normal", "cluster.links", "aof.buffer", "lua.caches",
        "functions.caches", "db.0", "db.2", "overhead.total", "keys.count",
        "keys.bytes-per-key", "dataset.bytes", "dataset.percentage", "peak.percentage",
        "allocator.allocated", "allocator.active", "allocator.resident",
        "allocator-fragmentation.ratio", "allocator-fragmentation.bytes", "allocator-rss.ratio",
        "allocator-rss.bytes", "rss-overhead.ratio", "rss-overhead.bytes", "fragmentation",
        "fragmentation.bytes"};
    size_t nnames = sizeof names / sizeof names[0];
    ck_assert_uint_eq(r->elements, 2 * nnames);
    for (size_t i = 0; i < nnames; i++) {
        redisReply *k = r->element[2 * i], *v = r->element[2 * i + 1];
        ck_assert_int_eq(k->type, REDIS_REPLY_STRING);
        ck_assert_str_eq(k->str, names[i]);
        if (!strncmp(names[i], "db.", 3)) {
            ck_assert_int_eq(v->type, REDIS_REPLY_ARRAY);
            ck_assert_uint_eq(v->elements, 6);
            ck_assert_str_eq(v->element[0]->str, "overhead.hashtable.main");
            ck_assert_int_eq(v->element[1]->type, REDIS_REPLY_INTEGER);
            ck_assert_str_eq(v->element[2]->str, "overhead.hashtable.expires");
            ck_assert_str_eq(v->element[4]->str, "overhead.hashtable.slot-to-keys");
        } else if (strstr(names[i], "percentage") || strstr(names[i], "ratio") ||
                   !strcmp(names[i], "fragmentation")) {
            ck_assert_int_eq(v->type, REDIS_REPLY_STRING); /* a double in RESP2 */
            ck_assert(strtod(v->str, NULL) >= 0);
        } else {
            ck_assert_msg(v->type == REDIS_REPLY_INTEGER, "%s", names[i]);
        }
        if (!strcmp(names[i], "keys.count")) ck_assert_int_eq(v->integer, 2);
    }
    freeReplyObject(r);
    r = cmd(c, "MEMORY DOCTOR");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_msg(!strncmp(r->str, "Hi Sam, ", 8) || !strncmp(r->str, "Sam, I detected", 15),
                  "%s", r->str);
    freeReplyObject(r);
    r = cmd(c, "MEMORY MALLOC-STATS");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_gt(r->len, 0);
    freeReplyObject(r);
    expect_status(c, "OK", "MEMORY PURGE");
    r = expect_array(c, 14, "MEMORY HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[9]->str, "USAGE <key> [SAMPLES <count>]");
    ck_assert_str_eq(r->element[13]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_error(c, "ERR wrong number of arguments for 'memory|stats' command", "MEMORY STATS x");
}
END_TEST

/* INFO: the lazyfree fields (both servers) and forkless_copied_nodes (verso:
 * writes to big hashes a forkless save still holds copy tree nodes). */
START_TEST(info_fields)
{
    redisContext *c = h_c;
    char *info = h_info(c, "memory");
    char buf[64];
    ck_assert(h_info_field(info, "lazyfree_pending_objects", buf, sizeof buf));
    ck_assert(h_info_field(info, "lazyfreed_objects", buf, sizeof buf));
    free(info);
    if (srv_is_reference()) return; /* the rest is verso's own */
    ck_assert_int_eq(h_info_int(c, "persistence", "forkless_copied_nodes"), 0);
    for (int i = 0; i < 20; i++) {
        char k[16];
        snprintf(k, sizeof k, "h%d", i);
        big_hash(c, k, 3000);
    }
    for (int i = 0; i < 50000; i += 1000) {
        /* strings around them, so that the walk takes a while */
        const char *argv[2001];
        char kb[1000][16];
        argv[0] = "MSET";
        for (int j = 0; j < 1000; j++) {
            snprintf(kb[j], 16, "k%d", i + j);
            argv[1 + 2 * j] = kb[j];
            argv[2 + 2 * j] = "value";
        }
        redisReply *r = redisCommandArgv(c, 2001, argv, NULL);
        freeReplyObject(r);
    }
    /* BGSAVE, the writes and INFO in one batch: the save holds the hashes
     * (it has 70,000 keys to walk), the writes copy nodes away from it and
     * the copies count as retained bytes until the save drops them */
    redisAppendCommand(c, "BGSAVE");
    for (int i = 0; i < 20; i++) redisAppendCommand(c, "HSET h%d f1 changed", i);
    redisAppendCommand(c, "INFO persistence");
    for (int i = 0; i < 22; i++) {
        redisReply *r;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        if (i == 21) {
            ck_assert(h_info_field(r->str, "rdb_bgsave_in_progress", buf, sizeof buf));
            ck_assert_str_eq(buf, "1");
            /* the leaves (over 1 KB each) written away from: up to 20, fewer
             * when the walk passed some hashes before the writes came (a
             * loaded machine: 16 seen) */
            ck_assert(h_info_field(r->str, "forkless_retained_bytes", buf, sizeof buf));
            fprintf(stderr, "info_fields: forkless_retained_bytes %s\n", buf);
            ck_assert_int_gt(atoll(buf), 1024);
            ck_assert(h_info_field(r->str, "forkless_copied_nodes", buf, sizeof buf));
            ck_assert_int_gt(atoll(buf), 0);
        }
        freeReplyObject(r);
    }
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 30000);
    expect_bulk(c, "changed", "HGET h3 f1");
    ck_assert_int_eq(h_info_int(c, "persistence", "forkless_retained_bytes"), 0);
    /* the save's peak keeps the copied-away nodes */
    ck_assert_int_gt(h_info_int(c, "persistence", "forkless_peak_retained_bytes"), 20 * 1024);
}
END_TEST


/* ---- generic commands per type ---- */

/* An array reply's elements joined with ' ' (sorted when `sorted`). */
static char *joined(redisReply *r, int sorted) {
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    char **v = calloc(r->elements + 1, sizeof *v);
    size_t total = 1;
    for (size_t i = 0; i < r->elements; i++) {
        v[i] = r->element[i]->type == REDIS_REPLY_NIL ? "(nil)" : r->element[i]->str;
        total += strlen(v[i]) + 1;
    }
    if (sorted) qsort(v, r->elements, sizeof *v, cmp_str);
    char *out = malloc(total);
    out[0] = '\0';
    for (size_t i = 0; i < r->elements; i++) {
        if (i) strcat(out, " ");
        strcat(out, v[i]);
    }
    free(v);
    return out;
}

/* The command's array reply, joined, compared with want. */
#define expect_join(c, sorted, want, ...)                                        \
    do {                                                                         \
        redisReply *r_ = expect_array(c, -1, __VA_ARGS__);                       \
        char *j_ = joined(r_, sorted);                                           \
        ck_assert_msg(!strcmp(j_, want), "%s: got '%s', want '%s'", #__VA_ARGS__, \
                      j_, want);                                                 \
        free(j_);                                                                \
        freeReplyObject(r_);                                                     \
    } while (0)

/* A key's whole content in one canonical string ("none" when absent). */
static char *dump_key(redisContext *c, const char *key) {
    redisReply *t = cmd(c, "TYPE %s", key);
    char type[16];
    snprintf(type, sizeof type, "%s", t->str);
    freeReplyObject(t);
    redisReply *r;
    int sorted = 1;
    if (!strcmp(type, "string")) {
        r = cmd(c, "GET %s", key);
        char *out = malloc(r->len + 8);
        sprintf(out, "string:%s", r->str);
        freeReplyObject(r);
        return out;
    } else if (!strcmp(type, "hash")) {
        r = cmd(c, "HGETALL %s", key);
        /* pairs joined as "f=v" so that sorting keeps them together */
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            size_t n = r->element[i]->len + r->element[i + 1]->len + 2;
            char *fv = malloc(n);
            snprintf(fv, n, "%s=%s", r->element[i]->str, r->element[i + 1]->str);
            free(r->element[i]->str);
            r->element[i]->str = fv;
            r->element[i]->len = strlen(fv);
            r->element[i + 1]->str[0] = '\0';
        }
    } else if (!strcmp(type, "list")) {
        r = cmd(c, "LRANGE %s 0 -1", key);
        sorted = 0;
    } else if (!strcmp(type, "set")) {
        r = cmd(c, "SMEMBERS %s", key);
    } else if (!strcmp(type, "zset")) {
        r = cmd(c, "ZRANGE %s 0 -1 WITHSCORES", key);
        sorted = 0;
    } else {
        return strdup("none");
    }
    char *body = joined(r, sorted);
    freeReplyObject(r);
    char *out = malloc(strlen(body) + 32);
    sprintf(out, "%s:%s", type, body);
    free(body);
    return out;
}

static void expect_same(redisContext *c, const char *a, const char *b) {
    char *x = dump_key(c, a), *y = dump_key(c, b);
    ck_assert_msg(!strcmp(x, y), "%s and %s differ:\n%.300s\n%.300s", a, b, x, y);
    free(x);
    free(y);
}

/* One small and one big value of every type: h1 h2, l1 l2, s1 s2 (and si:
 * integers), z1 z2. */
static void make_all(redisContext *c) {
    fill(c, K_HASH, "h1", 5, 0);
    fill(c, K_HASH, "h2", 600, 0);
    fill(c, K_LIST, "l1", 5, 0);
    fill(c, K_LIST, "l2", 600, 0);
    fill(c, K_SET, "s1", 5, 0);
    fill(c, K_SET, "s2", 600, 0);
    expect_int(c, 3, "SADD si 1 2 3");
    fill(c, K_ZSET, "z1", 5, 0);
    fill(c, K_ZSET, "z2", 600, 0);
}

static const char *const all_keys[] = {"h1", "h2", "l1", "l2", "s1", "s2", "si", "z1", "z2"};
#define NALL (sizeof all_keys / sizeof all_keys[0])

START_TEST(type_encoding)
{
    redisContext *c = h_c;
    make_all(c);
    static const char *types[] = {"hash", "hash", "list", "list", "set", "set", "set", "zset",
                                  "zset"};
    /* Redis 7.0's encodings: lists are always quicklists */
    static const char *encs[] = {"listpack", "hashtable", "quicklist", "quicklist", "hashtable",
                                 "hashtable", "intset", "listpack", "skiplist"};
    for (size_t i = 0; i < NALL; i++) {
        expect_status(c, types[i], "TYPE %s", all_keys[i]);
        expect_bulk(c, encs[i], "OBJECT ENCODING %s", all_keys[i]);
        expect_int(c, 1, "OBJECT REFCOUNT %s", all_keys[i]);
    }
    /* a value too long for the small form converts */
    expect_int(c, 1, "HSET h1 long %s", "0123456789012345678901234567890123456789012345678901234567890123456789");
    expect_bulk(c, "hashtable", "OBJECT ENCODING h1");
    expect_int(c, 1, "SADD si notanint");
    expect_bulk(c, "hashtable", "OBJECT ENCODING si");
    expect_nil(c, "OBJECT ENCODING nokey");
}
END_TEST

START_TEST(expire_ttl)
{
    redisContext *c = h_c;
    make_all(c);
    for (size_t i = 0; i < NALL; i++) {
        const char *k = all_keys[i];
        expect_int(c, -1, "TTL %s", k);
        expect_int(c, 1, "EXPIRE %s 100", k);
        expect_int_range(c, 99, 100, "TTL %s", k);
        expect_int_range(c, 99000, 100000, "PTTL %s", k);
        expect_int(c, 0, "EXPIRE %s 200 NX", k);
        expect_int(c, 1, "EXPIRE %s 200 GT", k);
        expect_int(c, 1, "PERSIST %s", k);
        expect_int(c, -1, "PTTL %s", k);
        expect_int(c, -1, "EXPIRETIME %s", k);
        expect_int(c, 1, "PEXPIREAT %s 99999999999999", k);
        expect_int(c, 99999999999999LL, "PEXPIRETIME %s", k);
        expect_int(c, 1, "PEXPIRE %s 5", k);
    }
    h_sleep_ms(30);
    for (size_t i = 0; i < NALL; i++) {
        expect_int(c, -2, "TTL %s", all_keys[i]);
        expect_status(c, "none", "TYPE %s", all_keys[i]);
    }
    expect_int(c, 0, "DBSIZE");
    /* the writes of a type keep the expire, as Redis */
    fill(c, K_HASH, "h", 5, 0);
    expect_int(c, 1, "EXPIRE h 100");
    expect_int(c, 1, "HSET h new v");
    expect_int_range(c, 99, 100, "TTL h");
}
END_TEST

START_TEST(rename_copy_move)
{
    redisContext *c = h_c;
    make_all(c);
    for (size_t i = 0; i < NALL; i++) {
        const char *k = all_keys[i];
        char *before = dump_key(c, k);
        /* RENAME there and back, RENAMENX onto an existing key */
        expect_status(c, "OK", "RENAME %s tmp", k);
        expect_int(c, 0, "EXISTS %s", k);
        expect_status(c, "OK", "SET other x");
        expect_int(c, 0, "RENAMENX tmp other");
        expect_int(c, 1, "RENAMENX tmp tmp2");
        expect_status(c, "OK", "RENAME tmp2 other"); /* over another type */
        expect_int(c, 1, "RENAMENX other %s", k);
        char *after = dump_key(c, k);
        ck_assert_str_eq(before, after);
        free(after);
        /* COPY, then writes to the copy leave the original alone */
        expect_int(c, 1, "COPY %s cp", k);
        expect_same(c, k, "cp");
        expect_int(c, 0, "COPY %s cp", k);
        switch (k[0]) {
        case 'h': expect_int(c, 0, "HSET cp f0 changed"); expect_int(c, 1, "HDEL cp f1"); break;
        case 'l': expect_status(c, "OK", "LSET cp 0 changed"); expect_int_range(c, 1, 1000, "RPUSH cp x"); break;
        case 's': expect_int(c, 1, "SADD cp changed"); expect_int(c, 1, "SREM cp %s", k[1] == 'i' ? "1" : "m1"); break;
        default: expect_int(c, 0, "ZADD cp 99 m0"); expect_int(c, 1, "ZREM cp m1"); break;
        }
        after = dump_key(c, k);
        ck_assert_str_eq(before, after);
        free(after);
        char *cp = dump_key(c, "cp");
        ck_assert_str_ne(before, cp);
        free(cp);
        /* the original written, the copy unchanged */
        expect_int(c, 1, "COPY %s cp2", k);
        char *cp2 = dump_key(c, "cp2");
        expect_int(c, 1, "DEL %s", k);
        expect_int(c, 1, "COPY cp2 %s", k);
        expect_same(c, k, "cp2");
        free(cp2);
        /* COPY REPLACE onto another type, COPY DB, MOVE */
        expect_status(c, "OK", "SET cp x");
        expect_int(c, 1, "COPY %s cp REPLACE", k);
        expect_same(c, k, "cp");
        expect_int(c, 1, "COPY %s %s DB 1", k, k);
        expect_int(c, 1, "MOVE cp 2");
        expect_int(c, 0, "EXISTS cp");
        expect_status(c, "OK", "SELECT 1");
        after = dump_key(c, k);
        ck_assert_str_eq(before, after);
        free(after);
        expect_int(c, 1, "DEL %s", k);
        expect_status(c, "OK", "SELECT 2");
        after = dump_key(c, "cp");
        ck_assert_str_eq(before, after);
        free(after);
        expect_int(c, 1, "DEL cp");
        expect_status(c, "OK", "SELECT 0");
        expect_int(c, 1, "DEL cp2");
        free(before);
    }
    expect_error(c, "ERR no such key", "RENAME nokey x");
}
END_TEST

START_TEST(dump_restore)
{
    redisContext *c = h_c;
    make_all(c);
    for (size_t i = 0; i < NALL; i++) {
        const char *k = all_keys[i];
        redisReply *d = cmd(c, "DUMP %s", k);
        ck_assert_int_eq(d->type, REDIS_REPLY_STRING);
        expect_status(c, "OK", "RESTORE r 0 %b", d->str, d->len);
        expect_same(c, k, "r");
        expect_error(c, "BUSYKEY Target key name already exists.", "RESTORE r 0 %b", d->str,
                     d->len);
        expect_status(c, "OK", "RESTORE r 5000 %b REPLACE", d->str, d->len);
        expect_int_range(c, 4000, 5000, "PTTL r");
        expect_same(c, k, "r");
        /* the restored value is a value of its own */
        expect_int(c, 1, "DEL %s", k);
        expect_status(c, "OK", "RESTORE %s 0 %b", k, d->str, d->len);
        expect_same(c, k, "r");
        expect_int(c, 1, "DEL r");
        freeReplyObject(d);
    }
    expect_nil(c, "DUMP nokey");
}
END_TEST

START_TEST(sort_types)
{
    redisContext *c = h_c;
    expect_int(c, 4, "RPUSH l 3 1 2 10");
    expect_join(c, 0, "1 2 3 10", "SORT l");
    expect_join(c, 0, "10 3 2 1", "SORT l DESC");
    expect_join(c, 0, "1 10 2 3", "SORT l ALPHA");
    expect_join(c, 0, "2 3", "SORT l LIMIT 1 2");
    expect_join(c, 0, "3 2", "SORT l DESC LIMIT 1 2");
    expect_join(c, 0, "1 2 3 10", "SORT_RO l");
    /* BY nosort: the list's order, reversed by DESC, LIMIT on it */
    expect_join(c, 0, "3 1 2 10", "SORT l BY nosort");
    expect_join(c, 0, "10 2 1 3", "SORT l BY nosort DESC");
    expect_join(c, 0, "1 2", "SORT l BY nosort LIMIT 1 2");
    expect_join(c, 0, "2 1", "SORT l BY nosort DESC LIMIT 1 2");
    /* BY and GET patterns: strings and hash fields */
    expect_status(c, "OK", "MSET w_1 30 w_2 20 w_3 10 w_10 0 o_1 one o_2 two o_3 three");
    expect_join(c, 0, "10 3 2 1", "SORT l BY w_*");
    expect_join(c, 0, "(nil) 10 three 3 two 2 one 1", "SORT l BY w_* GET o_* GET #");
    for (int i = 1; i <= 3; i++) expect_int(c, 2, "HSET hh_%d f %d g x%d", i, 10 - i, i);
    expect_int(c, 2, "HSET hh_10 f 100 g x10");
    expect_join(c, 0, "3 2 1 10", "SORT l BY hh_*->f");
    expect_join(c, 0, "x3 x2 x1 x10", "SORT l BY hh_*->f GET hh_*->g");
    expect_join(c, 0, "(nil) (nil) (nil) (nil)", "SORT l GET hh_*->nofield");
    expect_join(c, 0, "(nil) (nil) (nil) (nil)", "SORT l GET w_*->f"); /* not hashes */
    /* STORE: a list (a missing GET value stored as ""), replacing the key */
    expect_status(c, "OK", "SET dst x");
    expect_int(c, 4, "SORT l STORE dst");
    expect_status(c, "list", "TYPE dst");
    expect_join(c, 0, "1 2 3 10", "LRANGE dst 0 -1");
    expect_int(c, 4, "SORT l BY w_* GET o_* STORE dst");
    expect_join(c, 0, " three two one", "LRANGE dst 0 -1");
    expect_int(c, 2, "SORT l LIMIT 0 2 STORE dst");
    expect_int(c, 2, "LLEN dst");
    expect_int(c, 0, "SORT nokey STORE dst");
    expect_int(c, 0, "EXISTS dst");
    expect_error(c, "ERR syntax error", "SORT_RO l STORE dst");
    /* sets */
    expect_int(c, 3, "SADD s 5 3 9");
    expect_join(c, 0, "3 5 9", "SORT s");
    expect_join(c, 0, "9 5 3", "SORT s DESC");
    expect_int(c, 3, "SADD sa b a c");
    expect_join(c, 0, "a b c", "SORT sa ALPHA");
    expect_int(c, 3, "SORT sa BY nosort STORE dst"); /* stored sets are sorted */
    expect_join(c, 0, "a b c", "LRANGE dst 0 -1");
    expect_error(c, "ERR One or more scores can't be converted into double", "SORT sa");
    /* sorted sets: BY nosort keeps the score order */
    expect_int(c, 3, "ZADD z 3 a 1 b 2 c");
    expect_join(c, 0, "b c a", "SORT z BY nosort");
    expect_join(c, 0, "a c b", "SORT z BY nosort DESC");
    expect_join(c, 0, "c a", "SORT z BY nosort LIMIT 1 5");
    expect_join(c, 0, "a b c", "SORT z ALPHA");
    expect_join(c, 0, "c b a", "SORT z ALPHA DESC");
    expect_int(c, 3, "ZADD zn 1 30 2 10 3 20");
    expect_join(c, 0, "10 20 30", "SORT zn");
    expect_int(c, 2, "SORT zn LIMIT 1 -1 STORE dst");
    expect_join(c, 0, "20 30", "LRANGE dst 0 -1");
    /* bigger values, sorted numerically */
    fill(c, K_ZSET, "zb", 600, 0);
    redisReply *r = expect_array(c, 600, "SORT zb BY nosort");
    ck_assert_str_eq(r->element[0]->str, "m0");
    ck_assert_str_eq(r->element[599]->str, "m599");
    freeReplyObject(r);
    /* other types */
    expect_int(c, 1, "HSET h f v");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SORT h");
    expect_status(c, "OK", "SET str v");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SORT str");
    expect_join(c, 0, "", "SORT nokey");
}
END_TEST

/* SCAN TYPE filters by type; KEYS, RANDOMKEY and DBSIZE see every key. */
START_TEST(scan_type)
{
    redisContext *c = h_c;
    make_all(c);
    expect_status(c, "OK", "SET str v");
    static const struct { const char *type, *keys; } want[] = {
        {"hash", "h1 h2"}, {"list", "l1 l2"}, {"set", "s1 s2 si"}, {"zset", "z1 z2"},
        {"string", "str"}, {"stream", ""}, {"nosuchtype", ""}};
    for (size_t t = 0; t < sizeof want / sizeof want[0]; t++) {
        char *got = calloc(1, 4096);
        char **names = calloc(64, sizeof *names);
        size_t n = 0;
        long long cursor = 0;
        do {
            redisReply *r = expect_array(c, 2, "SCAN %lld TYPE %s COUNT 3", cursor, want[t].type);
            cursor = atoll(r->element[0]->str);
            for (size_t i = 0; i < r->element[1]->elements; i++)
                names[n++] = strdup(r->element[1]->element[i]->str);
            freeReplyObject(r);
        } while (cursor != 0);
        qsort(names, n, sizeof *names, cmp_str);
        for (size_t i = 0; i < n; i++) {
            if (i) strcat(got, " ");
            strcat(got, names[i]);
            free(names[i]);
        }
        ck_assert_msg(!strcmp(got, want[t].keys), "SCAN TYPE %s: '%s'", want[t].type, got);
        free(names);
        free(got);
    }
    expect_join(c, 1, "h1 h2 l1 l2 s1 s2 si str z1 z2", "KEYS *");
    expect_join(c, 1, "s1 s2 si str", "KEYS s*");
    expect_int(c, 10, "DBSIZE");
    for (int i = 0; i < 20; i++) {
        redisReply *r = cmd(c, "RANDOMKEY");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        expect_int(c, 1, "EXISTS %s", r->str);
        freeReplyObject(r);
    }
}
END_TEST

/* ---- AOF ---- */

/* Every key's content (dump_key), in key order, as one string. */
static char *dump_all(redisContext *c) {
    redisReply *r = expect_array(c, -1, "KEYS *");
    char **names = calloc(r->elements + 1, sizeof *names);
    for (size_t i = 0; i < r->elements; i++) names[i] = r->element[i]->str;
    qsort(names, r->elements, sizeof *names, cmp_str);
    size_t cap = 1024, len = 0;
    char *out = malloc(cap);
    out[0] = '\0';
    for (size_t i = 0; i < r->elements; i++) {
        char *v = dump_key(c, names[i]);
        redisReply *t = cmd(c, "PTTL %s", names[i]);
        size_t need = strlen(names[i]) + strlen(v) + 16;
        if (len + need >= cap) {
            cap = 2 * (len + need);
            out = realloc(out, cap);
        }
        len += (size_t)sprintf(out + len, "%s=%s%s\n", names[i], v, t->integer > 0 ? " ttl" : "");
        freeReplyObject(t);
        free(v);
    }
    free(names);
    freeReplyObject(r);
    return out;
}

/* The appendonlydir file whose name contains `part` (malloc'd path). */
static char *aof_file(const srv *s, const char *part) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/appendonlydir", s->dir);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char *found = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strstr(e->d_name, part)) continue;
        found = malloc(strlen(dir) + strlen(e->d_name) + 2);
        sprintf(found, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    ck_assert_msg(found != NULL, "no %s file in %s", part, dir);
    return found;
}

static void wait_rewrite(redisContext *c) {
    h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 30000);
    h_wait_info(c, "persistence", "aof_rewrite_scheduled", 0, 30000);
    h_wait_info_str(c, "persistence", "aof_last_bgrewrite_status", "ok", 30000);
}

/* Restarts s (kill -9: appendfsync always) on owner's data dir and checks
 * the data came back. */
static srv *restart_check(const srv *owner, srv *s, redisContext **c, const char *args,
                          const char *want) {
    redisFree(*c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(owner, "%s", args);
    *c = srv_connect(s2);
    h_wait_loaded(*c, 30000);
    char *got = dump_all(*c);
    ck_assert_msg(!strcmp(got, want), "after restart:\n%.600s\nwant:\n%.600s", got, want);
    free(got);
    return s2;
}

/* Changes to every type, after a first state. */
static void more_writes(redisContext *c) {
    expect_int(c, 1, "HSET h2 new v");
    expect_int(c, 1, "HDEL h2 f7");
    expect_int(c, 1, "DEL h1");
    expect_int(c, 601, "RPUSH l2 tail");
    expect_bulk(c, "m0", "LPOP l2");
    expect_int(c, 1, "SREM s2 m3");
    expect_int(c, 1, "SADD si 42");
    expect_int(c, 0, "ZADD z2 -1.5 m9");
    expect_int(c, 1, "ZADD z1 inf top");
    expect_int(c, 1, "EXPIRE l1 1000");
    expect_int(c, 3, "SORT l2 ALPHA LIMIT 0 3 STORE sorted");
}

/* Collections survive restarts with the AOF: replayed commands, a rewrite
 * (RDB preamble or commands), writes after the rewrite. */
static void aof_roundtrip(const char *preamble) {
    char args[256];
    snprintf(args, sizeof args, "--appendonly yes --appendfsync always "
             "--aof-use-rdb-preamble %s --hash-max-listpack-entries 128 "
             "--zset-max-listpack-entries 128", preamble);
    srv *s = h_srv_start("%s", args);
    const srv *owner = s; /* its dir holds the data of every restart */
    redisContext *c = srv_connect(s);
    char getwant[64];
    snprintf(getwant, sizeof getwant, "aof-use-rdb-preamble %s", preamble);
    expect_join(c, 0, getwant, "CONFIG GET aof-use-rdb-preamble");
    make_all(c);
    fill(c, K_HASH, "hbig", 3000, 0);
    expect_int(c, 1, "PEXPIRE z2 100000000");
    expect_status(c, "OK", "SET str v");
    expect_status(c, "OK", "SELECT 3");
    fill(c, K_LIST, "l3", 100, 0);
    expect_status(c, "OK", "SELECT 0");
    char *want = dump_all(c);
    /* 1: the commands as they ran */
    s = restart_check(owner, s, &c, args, want);
    /* 2: after a rewrite */
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    wait_rewrite(c);
    char *base = aof_file(owner, ".base.");
    size_t len;
    char *text = h_slurp(base, &len, 1);
    if (!strcmp(preamble, "yes")) {
        ck_assert_msg(strstr(base, ".base.rdb") != NULL, "%s", base);
        ck_assert(len > 5 && !memcmp(text, "REDIS", 5));
    } else {
        ck_assert_msg(strstr(base, ".base.aof") != NULL, "%s", base);
        /* Redis's rewriteAppendOnlyFileRio: SELECT, then batches of 64 */
        ck_assert(!memcmp(text, "*2\r\n$6\r\nSELECT\r\n$1\r\n", 19));
        ck_assert(strstr(text, "*66\r\n$5\r\nRPUSH\r\n$2\r\nl2\r\n") != NULL);
        ck_assert(strstr(text, "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n") != NULL);
        ck_assert(strstr(text, "*38\r\n$5\r\nRPUSH\r\n$2\r\nl3\r\n") != NULL); /* 100 = 64 + 36 */
        ck_assert(strstr(text, "*130\r\n$5\r\nHMSET\r\n$4\r\nhbig\r\n") != NULL);
        ck_assert(strstr(text, "*130\r\n$4\r\nZADD\r\n$2\r\nz2\r\n") != NULL);
        ck_assert(strstr(text, "*66\r\n$4\r\nSADD\r\n$2\r\ns2\r\n") != NULL);
        ck_assert(strstr(text, "$9\r\nPEXPIREAT\r\n$2\r\nz2\r\n") != NULL);
        ck_assert(strstr(text, "*3\r\n$3\r\nSET\r\n$3\r\nstr\r\n$1\r\nv\r\n") != NULL);
    }
    free(text);
    free(base);
    s = restart_check(owner, s, &c, args, want);
    /* 3: writes after a rewrite, then the same again with a rewrite
     * between two batches */
    more_writes(c);
    free(want);
    want = dump_all(c);
    s = restart_check(owner, s, &c, args, want);
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    wait_rewrite(c);
    fill(c, K_ZSET, "z3", 300, 0);
    expect_int(c, 1, "DEL hbig");
    fill(c, K_SET, "hbig", 200, 0);
    free(want);
    want = dump_all(c);
    s = restart_check(owner, s, &c, args, want);
    free(want);
    redisFree(c);
}

START_TEST(aof_with_preamble) { aof_roundtrip("yes"); }
END_TEST

START_TEST(aof_without_preamble) { aof_roundtrip("no"); }
END_TEST

int main(void) {
    Suite *s = suite_create("coll_generic");
    h_add_tcase(s, "lazyfree_unlink_del", lazyfree_unlink_del, 60, setup, h_teardown);
    h_add_tcase(s, "lazyfree_flush", lazyfree_flush, 60, setup, h_teardown);
    h_add_tcase(s, "lazyfree_expire_server_del", lazyfree_expire_server_del, 60, setup,
                h_teardown);
    h_add_tcase(s, "lazyfree_eviction", lazyfree_eviction, 60, setup, h_teardown);
    h_add_tcase(s, "lazyfree_shared_nodes", lazyfree_shared_nodes, 90, setup, h_teardown);
    h_add_tcase(s, "memory_usage", memory_usage, 60, setup, h_teardown);
    h_add_tcase(s, "memory_other", memory_other, 60, setup, h_teardown);
    h_add_tcase(s, "info_fields", info_fields, 90, setup, h_teardown);
    h_add_tcase(s, "type_encoding", type_encoding, 60, setup, h_teardown);
    h_add_tcase(s, "expire_ttl", expire_ttl, 60, setup, h_teardown);
    h_add_tcase(s, "rename_copy_move", rename_copy_move, 60, setup, h_teardown);
    h_add_tcase(s, "dump_restore", dump_restore, 60, setup, h_teardown);
    h_add_tcase(s, "sort_types", sort_types, 60, setup, h_teardown);
    h_add_tcase(s, "scan_type", scan_type, 60, setup, h_teardown);
    h_add_dropall(s, "aof_with_preamble", aof_with_preamble, 90);
    h_add_dropall(s, "aof_without_preamble", aof_without_preamble, 90);
    return h_main(s);
}
