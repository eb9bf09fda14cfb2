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

/* One command: name key, then n items made by item(i), in batches of 256
 * items per command. per: words per item (HSET 2, ZADD 2, others 1). */
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
    /* BGSAVE and the writes in one batch: the save holds the hashes */
    redisAppendCommand(c, "BGSAVE");
    for (int i = 0; i < 20; i++) redisAppendCommand(c, "HSET h%d f1 changed", i);
    for (int i = 0; i < 21; i++) {
        redisReply *r;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        freeReplyObject(r);
    }
    ck_assert_int_gt(h_info_int(c, "persistence", "forkless_copied_nodes"), 0);
    h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, 30000);
    expect_bulk(c, "changed", "HGET h3 f1");
}
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
    return h_main(s);
}
