/* repl_data: data sets and dataset comparison for the replication tests
 * (see repl_data.h). */
#include "repl_data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testcmp.h"
#include "stream_text.h"

/* Strings (int, short, long, with expiry), lists, hashes, sets, zsets small
 * and big (every encoding), in databases 0 and 5. */
void repl_populate(redisContext *c, const char *tag) {
    for (int db = 0; db <= 5; db += 5) {
        expect_status(c, "OK", "SELECT %d", db);
        for (int i = 0; i < 50; i++) {
            expect_status(c, "OK", "SET %s:str:%d %d", tag, i, i * 7);
            expect_status(c, "OK", "SET %s:long:%d %s-%0100d", tag, i, tag, i);
        }
        expect_status(c, "OK", "SET %s:ttl v PX 500000", tag);
        for (int i = 0; i < 300; i++) {
            freeReplyObject(cmd(c, "RPUSH %s:biglist e%d", tag, i));
            freeReplyObject(cmd(c, "HSET %s:bighash f%d v%d", tag, i, i));
            freeReplyObject(cmd(c, "SADD %s:bigset m%d", tag, i));
            freeReplyObject(cmd(c, "SADD %s:intset %d", tag, i));
            freeReplyObject(cmd(c, "ZADD %s:bigzset %d.5 m%d", tag, i, i));
        }
        freeReplyObject(cmd(c, "RPUSH %s:list a b c", tag));
        freeReplyObject(cmd(c, "HSET %s:hash a 1 b 2", tag));
        freeReplyObject(cmd(c, "SADD %s:set a b", tag));
        freeReplyObject(cmd(c, "ZADD %s:zset 1 a 2 b", tag));
        freeReplyObject(cmd(c, "EXPIRE %s:hash 100000", tag));
    }
    expect_status(c, "OK", "SELECT 0");
}

/* Writes of every kind after the sync: they reach the replica by the
 * stream (SELECT, MULTI/EXEC, deletes, expiries, FLUSHDB). */
void repl_mutate(redisContext *c) {
    expect_status(c, "OK", "SELECT 5");
    freeReplyObject(cmd(c, "DEL a:str:1 a:biglist"));
    freeReplyObject(cmd(c, "INCRBY a:str:2 1000"));
    freeReplyObject(cmd(c, "LPUSH a:list z"));
    freeReplyObject(cmd(c, "HSET a:bighash new 1"));
    freeReplyObject(cmd(c, "SREM a:bigset m3"));
    freeReplyObject(cmd(c, "ZINCRBY a:bigzset 10 m7"));
    freeReplyObject(cmd(c, "SET s:ex v EX 1000"));
    expect_status(c, "OK", "SELECT 0");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET tx:1 one");
    expect_status(c, "QUEUED", "RPUSH tx:l x y");
    freeReplyObject(cmd(c, "EXEC"));
    freeReplyObject(cmd(c, "APPEND a:long:0 more"));
    expect_status(c, "OK", "SELECT 9");
    expect_status(c, "OK", "SET gone 1");
    expect_status(c, "OK", "FLUSHDB");
    expect_status(c, "OK", "SET after-flush 1");
    expect_status(c, "OK", "SELECT 0");
}

/* n keys of 100 kB that LZF cannot shrink: a payload bigger than any
 * socket buffer. */
void repl_big_values(redisContext *c, int n) {
    char *val = malloc(100001);
    unsigned x = 12345;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < 100000; j++) {
            x = x * 1103515245u + 12345u;
            val[j] = (char)('a' + (x >> 16) % 26);
        }
        val[100000] = '\0';
        expect_status(c, "OK", "SET big:%d %s", i, val);
    }
    free(val);
}

/* One key's value as text (sorted members for sets and hashes). */
static char *value_text(redisContext *c, const char *key) {
    redisReply *t = cmd(c, "TYPE %s", key);
    char *type = strdup(t->str);
    freeReplyObject(t);
    redisReply *r;
    if (!strcmp(type, "stream")) { /* consumers' seen-times are each server's */
        char *st = stream_text(c, key, STREAM_TEXT_REPLICA);
        size_t n = strlen(st);
        char *out = malloc(n + 8);
        memcpy(out, "stream:", 7);
        memcpy(out + 7, st, n + 1);
        free(st);
        free(type);
        return out;
    }
    if (!strcmp(type, "string")) r = cmd(c, "GET %s", key);
    else if (!strcmp(type, "list")) r = cmd(c, "LRANGE %s 0 -1", key);
    else if (!strcmp(type, "hash")) r = cmd(c, "HGETALL %s", key);
    else if (!strcmp(type, "set")) r = cmd(c, "SMEMBERS %s", key);
    else if (!strcmp(type, "zset")) r = cmd(c, "ZRANGE %s 0 -1 WITHSCORES", key);
    else ck_abort_msg("key %s: type %s", key, type);
    size_t cap = 64, len = 0;
    char *out = malloc(cap);
    len = (size_t)snprintf(out, cap, "%s:", type);
    size_t n = r->type == REDIS_REPLY_ARRAY ? r->elements : 1;
    char **items = calloc(n, sizeof *items);
    for (size_t i = 0; i < n; i++) {
        redisReply *e = r->type == REDIS_REPLY_ARRAY ? r->element[i] : r;
        items[i] = strndup(e->str, e->len);
    }
    if (!strcmp(type, "hash")) { /* pairs, in field order */
        char **pairs = calloc(n / 2 + 1, sizeof *pairs);
        for (size_t i = 0; i + 1 < n; i += 2) {
            pairs[i / 2] = malloc(strlen(items[i]) + strlen(items[i + 1]) + 2);
            sprintf(pairs[i / 2], "%s=%s", items[i], items[i + 1]);
            free(items[i]);
            free(items[i + 1]);
        }
        free(items);
        items = pairs;
        n /= 2;
    }
    if (!strcmp(type, "set") || !strcmp(type, "hash")) qsort(items, n, sizeof *items, cmp_str);
    for (size_t i = 0; i < n; i++) {
        size_t need = len + strlen(items[i]) + 2;
        if (need > cap) out = realloc(out, cap = need * 2);
        len += (size_t)sprintf(out + len, "%s,", items[i]);
        free(items[i]);
    }
    free(items);
    free(type);
    freeReplyObject(r);
    return out;
}

/* Every key of every database of a is in b with the same value, the same
 * expiry or none, and b has no other key. Returns the keys compared. */
long long repl_compare_datasets(redisContext *a, redisContext *b) {
    long long total = 0;
    for (int db = 0; db < 16; db++) {
        expect_status(a, "OK", "SELECT %d", db);
        expect_status(b, "OK", "SELECT %d", db);
        redisReply *na = cmd(a, "DBSIZE"), *nb = cmd(b, "DBSIZE");
        ck_assert_msg(na->integer == nb->integer, "db %d: %lld keys on the primary, %lld on the "
                      "replica", db, na->integer, nb->integer);
        freeReplyObject(na);
        freeReplyObject(nb);
        redisReply *keys = cmd(a, "KEYS *");
        for (size_t i = 0; i < keys->elements; i++) {
            const char *k = keys->element[i]->str;
            char *va = value_text(a, k), *vb = value_text(b, k);
            ck_assert_msg(!strcmp(va, vb), "db %d key %s: primary %.200s replica %.200s", db, k,
                          va, vb);
            free(va);
            free(vb);
            redisReply *ta = cmd(a, "PTTL %s", k), *tb = cmd(b, "PTTL %s", k);
            ck_assert_msg((ta->integer < 0) == (tb->integer < 0) &&
                              llabs(ta->integer - tb->integer) < 60000,
                          "db %d key %s: pttl %lld vs %lld", db, k, ta->integer, tb->integer);
            freeReplyObject(ta);
            freeReplyObject(tb);
            total++;
        }
        freeReplyObject(keys);
    }
    expect_status(a, "OK", "SELECT 0");
    expect_status(b, "OK", "SELECT 0");
    return total;
}

