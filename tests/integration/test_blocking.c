/* Integration tests of blocking on keys (src/blocking.c): BLPOP BRPOP
 * BLMOVE BRPOPLPUSH BLMPOP BZPOPMIN BZPOPMAX BZMPOP served by writes of
 * other clients, first blocked first served, several keys, timeouts (their
 * nil replies, timing, parsing), pipelined input waiting behind a blocked
 * command, transactions (a push and a pop inside MULTI wake nobody, a push
 * wakes after EXEC, a blocking command inside MULTI answers at once),
 * chains (a served BLMOVE wakes the next), disconnects, CLIENT KILL,
 * INFO blocked_clients, CLIENT LIST's 'b', and the non-blocking forms the
 * AOF receives. Every test runs against redis-server too
 * (VERSO_SERVER=/usr/bin/redis-server). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- helpers ---- */



static void blocked_now(long long n) {
    h_wait_info(h_c, "clients", "blocked_clients", n, 5000);
}

/* c sends the command and is blocked by it: blocked_clients reaches n. */
#define block(c, n, ...) (h_send(c, __VA_ARGS__), blocked_now(n))

/* The reply must be [key, value] (BLPOP, BRPOP). */
static void expect_kv(redisContext *c, const char *key, const char *val) {
    redisReply *r = h_next_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 2, "type %d", r->type);
    check_bulk(r->element[0], key);
    check_bulk(r->element[1], val);
    freeReplyObject(r);
}

/* The reply must be [key, member, score] (BZPOPMIN, BZPOPMAX). */
static void expect_kms(redisContext *c, const char *key, const char *member, const char *score) {
    redisReply *r = h_next_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3, "type %d", r->type);
    check_bulk(r->element[0], key);
    check_bulk(r->element[1], member);
    check_bulk(r->element[2], score);
    freeReplyObject(r);
}

static void expect_next_bulk(redisContext *c, const char *want) {
    redisReply *r = h_next_reply(c);
    check_bulk(r, want);
    freeReplyObject(r);
}

static void expect_next_nil(redisContext *c) {
    redisReply *r = h_next_reply(c);
    check_nil(r);
    freeReplyObject(r);
}

/* A raw RESP command from blank-separated words. */
static void raw_cmd(int fd, const char *words) {
    char buf[1024], copy[512];
    snprintf(copy, sizeof copy, "%s", words);
    char *v[32], *save = NULL;
    int n = 0;
    for (char *w = strtok_r(copy, " ", &save); w && n < 32; w = strtok_r(NULL, " ", &save))
        v[n++] = w;
    size_t len = (size_t)snprintf(buf, sizeof buf, "*%d\r\n", n);
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "$%zu\r\n%s\r\n", strlen(v[i]), v[i]);
    ck_assert_int_eq(raw_send(fd, buf, len), 0);
}

/* The exact bytes a blocking command times out with (RESP2). */
static void expect_raw_timeout(const char *command, const char *want) {
    int fd = raw_connect(h_srv->port);
    raw_cmd(fd, command);
    char got[64];
    int closed = 0;
    raw_read(fd, got, sizeof got, strlen(want), h_scaled_ms(5000), &closed);
    ck_assert_msg(!strcmp(got, want), "%s: got '%s', want '%s'", command, got, want);
    close(fd);
}

static void teardown(void) {
    h_teardown();
    h_srv_drop_all();
}

/* ---- tests ---- */

/* INFO commandstats' calls of command name. */
static long long stat_calls(const char *name) {
    char field[64], val[256];
    char *info = h_info(h_c, "commandstats");
    snprintf(field, sizeof field, "cmdstat_%s", name);
    long long calls = h_info_field(info, field, val, sizeof val) ? atoll(val + 6) : 0;
    free(info);
    return calls;
}

START_TEST(served_by_push) {
    redisContext *b = srv_connect(h_srv);
    block(b, 1, "BLPOP k 0");
    expect_int(h_c, 0, "EXISTS k");
    long long commands = h_info_int(h_c, "stats", "total_commands_processed");
    expect_int(h_c, 2, "RPUSH k a b");
    expect_kv(b, "k", "a");
    expect_int(h_c, 1, "LLEN k");
    blocked_now(0);
    /* served: counted once, when it blocked (two INFOs, RPUSH, LLEN since) */
    ck_assert_int_eq(stat_calls("blpop"), 1);
    ck_assert_int_eq(h_info_int(h_c, "stats", "total_commands_processed"), commands + 5);
    /* BRPOP pops from the tail */
    block(b, 1, "BRPOP k2 0");
    expect_int(h_c, 3, "RPUSH k2 x y z");
    expect_kv(b, "k2", "z");
    /* a key pushed before blocking: answered at once */
    h_send(b, "BLPOP k2 0");
    expect_kv(b, "k2", "x");
    blocked_now(0);
    redisFree(b);
}
END_TEST

START_TEST(fifo_fairness) {
    redisContext *c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = srv_connect(h_srv);
        block(c[i], i + 1, "BLPOP k 0");
    }
    /* two elements: the first two blocked are served, the third waits */
    expect_int(h_c, 2, "RPUSH k a b");
    expect_kv(c[0], "k", "a");
    expect_kv(c[1], "k", "b");
    blocked_now(1);
    expect_int(h_c, 0, "EXISTS k");
    expect_int(h_c, 1, "RPUSH k c");
    expect_kv(c[2], "k", "c");
    blocked_now(0);
    /* blocked again in another order: served in that order */
    block(c[2], 1, "BRPOP q 0");
    block(c[0], 2, "BRPOP q 0");
    block(c[1], 3, "BRPOP q 0");
    expect_int(h_c, 3, "LPUSH q 1 2 3"); /* q = 3 2 1: tail first */
    expect_kv(c[2], "q", "1");
    expect_kv(c[0], "q", "2");
    expect_kv(c[1], "q", "3");
    for (int i = 0; i < 3; i++) redisFree(c[i]);
}
END_TEST

START_TEST(several_keys) {
    redisContext *b = srv_connect(h_srv);
    block(b, 1, "BLPOP a b c 0");
    expect_int(h_c, 1, "RPUSH c x");
    expect_kv(b, "c", "x");
    blocked_now(0);
    /* removed from every key: a push to another one stays */
    expect_int(h_c, 1, "RPUSH b y");
    expect_int(h_c, 1, "LLEN b");
    expect_int(h_c, 1, "DEL b");
    /* the same key twice: served once */
    block(b, 1, "BLPOP d d 0");
    expect_int(h_c, 2, "RPUSH d 1 2");
    expect_kv(b, "d", "1");
    expect_int(h_c, 1, "LLEN d");
    /* two keys made ready by one transaction: the first signalled serves */
    block(b, 1, "BLPOP e f 0");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "RPUSH f from-f");
    expect_status(h_c, "QUEUED", "RPUSH e from-e");
    freeReplyObject(expect_array(h_c, 2, "EXEC"));
    expect_kv(b, "f", "from-f");
    expect_int(h_c, 1, "LLEN e");
    expect_int(h_c, 0, "EXISTS f");
    /* another key of the list turned into a string: the ready key serves */
    block(b, 1, "BLPOP g h 0");
    expect_status(h_c, "OK", "SET g str");
    expect_int(h_c, 1, "RPUSH h v");
    expect_kv(b, "h", "v");
    redisFree(b);
}
END_TEST

START_TEST(wrong_type_stays_blocked) {
    redisContext *b = srv_connect(h_srv);
    /* a key already of another type: WRONGTYPE at once */
    expect_status(h_c, "OK", "SET s v");
    expect_error_prefix(h_c, "WRONGTYPE", "BLPOP s 0");
    expect_error_prefix(h_c, "WRONGTYPE", "BZPOPMIN s 0");
    /* a key that becomes a string or a zset: still blocked (Redis 7.0) */
    block(b, 1, "BLPOP k 0");
    expect_status(h_c, "OK", "SET k str");
    expect_int(h_c, 1, "DEL k");
    expect_int(h_c, 1, "ZADD k 1 m");
    expect_status(h_c, "PONG", "PING");
    blocked_now(1);
    expect_int(h_c, 1, "DEL k");
    expect_int(h_c, 1, "RPUSH k v");
    expect_kv(b, "k", "v");
    /* and a zset client skips a list key */
    block(b, 1, "BZPOPMIN z 0");
    expect_int(h_c, 1, "RPUSH z v");
    expect_int(h_c, 1, "DEL z");
    expect_int(h_c, 1, "ZADD z 5 m");
    expect_kms(b, "z", "m", "5");
    /* BLMOVE served while its destination is a string: WRONGTYPE, the
     * element stays in the source */
    block(b, 1, "BLMOVE src dst LEFT RIGHT 0");
    expect_status(h_c, "OK", "SET dst str");
    expect_int(h_c, 1, "RPUSH src x");
    redisReply *r = h_next_reply(b);
    ck_assert_msg(r->type == REDIS_REPLY_ERROR && !strncmp(r->str, "WRONGTYPE", 9), "type %d",
                  r->type);
    freeReplyObject(r);
    blocked_now(0);
    expect_int(h_c, 1, "LLEN src");
    redisFree(b);
}
END_TEST

START_TEST(timeouts) {
    redisContext *b = srv_connect(h_srv);
    long long t0 = h_now_ms();
    redisReply *r = cmd(b, "BLPOP k 0.2");
    long long dt = h_now_ms() - t0;
    check_nil(r);
    freeReplyObject(r);
    ck_assert_msg(dt >= 150 && dt < h_scaled_ms(3000), "BLPOP 0.2 took %lld ms", dt);
    blocked_now(0);
    /* the exact nil (RESP2): a null array whatever the command, BLMOVE
     * and BRPOPLPUSH too (Redis 7.0's replyToBlockedClientTimedOut) */
    expect_raw_timeout("BLPOP k 0.01", "*-1\r\n");
    expect_raw_timeout("BRPOP k 0.01", "*-1\r\n");
    expect_raw_timeout("BLMOVE k d LEFT RIGHT 0.01", "*-1\r\n");
    expect_raw_timeout("BRPOPLPUSH k d 0.01", "*-1\r\n");
    expect_raw_timeout("BLMPOP 0.01 2 k k2 LEFT", "*-1\r\n");
    expect_raw_timeout("BZPOPMIN z 0.01", "*-1\r\n");
    expect_raw_timeout("BZPOPMAX z 0.01", "*-1\r\n");
    expect_raw_timeout("BZMPOP 0.01 1 z MIN COUNT 2", "*-1\r\n");
    /* below a millisecond: rounded up, times out */
    expect_nil(b, "BLPOP k 0.0001");
    /* a client that timed out is no longer served: the element stays */
    expect_int(h_c, 1, "RPUSH k x");
    expect_int(h_c, 1, "LLEN k");
    /* after a timeout its pipelined input runs */
    h_send(b, "BLPOP none 0.05");
    h_send(b, "PING");
    expect_next_nil(b);
    redisReply *p = h_next_reply(b);
    ck_assert(p->type == REDIS_REPLY_STATUS && !strcmp(p->str, "PONG"));
    freeReplyObject(p);
    redisFree(b);
}
END_TEST

START_TEST(timeout_parsing) {
    static const char *const not_float[] = {"abc", "", " 1", "1 ", "nan", "-nan", "1e", "1_0",
                                            "1e5000", "1e-5000", NULL};
    static const char *const negative[] = {"-1", "-0.5", "-0.0011", "inf", "-inf", "1e30",
                                           "1e16", "1e400", NULL};
    for (int i = 0; not_float[i]; i++) {
        expect_error(h_c, "ERR timeout is not a float or out of range", "BLPOP k %s",
                     not_float[i]);
        expect_error(h_c, "ERR timeout is not a float or out of range", "BZPOPMIN k %s",
                     not_float[i]);
    }
    for (int i = 0; negative[i]; i++) {
        expect_error(h_c, "ERR timeout is negative", "BLPOP k %s", negative[i]);
        expect_error(h_c, "ERR timeout is negative", "BLMOVE a b LEFT LEFT %s", negative[i]);
    }
    expect_error(h_c, "ERR timeout is negative", "BRPOPLPUSH a b -1");
    expect_error(h_c, "ERR timeout is negative", "BLMPOP -1 1 a LEFT");
    expect_error(h_c, "ERR timeout is negative", "BZMPOP -1 1 a MIN");
    /* forms strtold accepts: block (0 and -0.0009 round to "for ever") */
    static const char *const waits[] = {"0", "-0", "-0.0009", "0x10", "+5", ".5e3", NULL};
    for (int i = 0; waits[i]; i++) {
        redisContext *b = srv_connect(h_srv);
        block(b, 1, "BLPOP k%d %s", i, waits[i]);
        expect_int(h_c, 1, "RPUSH k%d v", i);
        char key[16];
        snprintf(key, sizeof key, "k%d", i);
        expect_kv(b, key, "v");
        redisFree(b);
    }
}
END_TEST

START_TEST(forever) {
    redisContext *b = srv_connect(h_srv);
    block(b, 1, "BLPOP k 0");
    h_sleep_ms(1200);
    blocked_now(1);
    const char *list;
    redisReply *r = cmd(h_c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    list = strstr(r->str, "flags=b ");
    ck_assert_msg(list && strstr(list, "cmd=blpop"), "CLIENT LIST:\n%s", r->str);
    freeReplyObject(r);
    /* idle timeout spares a blocked client (Redis: no idle timeout while blocked) */
    expect_status(h_c, "OK", "CONFIG SET timeout 1");
    h_sleep_ms(2500);
    redisFree(h_c); /* idle: closed by the server */
    h_c = srv_connect(h_srv);
    blocked_now(1);
    expect_int(h_c, 1, "RPUSH k v");
    expect_kv(b, "k", "v");
    expect_status(h_c, "OK", "CONFIG SET timeout 0");
    redisFree(b);
}
END_TEST

START_TEST(pipeline_waits) {
    redisContext *b = srv_connect(h_srv);
    h_send(b, "BLPOP k 0");
    h_send(b, "SET after 1");
    h_send(b, "RPUSH k mine");
    blocked_now(1);
    h_sleep_ms(100);
    expect_nil(h_c, "GET after");
    expect_int(h_c, 0, "EXISTS k");
    expect_int(h_c, 1, "RPUSH k theirs");
    expect_kv(b, "k", "theirs");
    redisReply *r = h_next_reply(b);
    ck_assert(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"));
    freeReplyObject(r);
    r = h_next_reply(b);
    check_int(r, 1);
    freeReplyObject(r);
    expect_bulk(h_c, "1", "GET after");
    expect_int(h_c, 1, "LLEN k");
    /* a blocking command further down a pipeline blocks there */
    h_send(b, "DEL k");
    h_send(b, "BRPOP k 0");
    h_send(b, "SET after 2");
    r = h_next_reply(b);
    check_int(r, 1);
    freeReplyObject(r);
    blocked_now(1);
    expect_bulk(h_c, "1", "GET after");
    expect_int(h_c, 1, "LPUSH k z");
    expect_kv(b, "k", "z");
    r = h_next_reply(b);
    ck_assert(r->type == REDIS_REPLY_STATUS);
    freeReplyObject(r);
    expect_bulk(h_c, "2", "GET after");
    redisFree(b);
}
END_TEST

START_TEST(transactions) {
    redisContext *b = srv_connect(h_srv);
    block(b, 1, "BLPOP k 0");
    /* a push and a pop inside one transaction wake nobody */
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "RPUSH k x");
    expect_status(h_c, "QUEUED", "LPOP k");
    redisReply *r = expect_array(h_c, 2, "EXEC");
    check_int(r->element[0], 1);
    check_bulk(r->element[1], "x");
    freeReplyObject(r);
    expect_status(h_c, "PONG", "PING");
    blocked_now(1);
    /* a push inside a transaction wakes after EXEC: the transaction saw
     * both elements */
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "RPUSH k a");
    expect_status(h_c, "QUEUED", "RPUSH k b");
    expect_status(h_c, "QUEUED", "LLEN k");
    r = expect_array(h_c, 3, "EXEC");
    check_int(r->element[2], 2);
    freeReplyObject(r);
    expect_kv(b, "k", "a");
    expect_int(h_c, 1, "LLEN k");
    /* a push then FLUSHALL / FLUSHDB in one transaction wakes nobody */
    expect_int(h_c, 1, "DEL k");
    block(b, 1, "BLPOP k 0");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "RPUSH k a");
    expect_status(h_c, "QUEUED", "FLUSHALL");
    freeReplyObject(expect_array(h_c, 2, "EXEC"));
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "RPUSH k a");
    expect_status(h_c, "QUEUED", "FLUSHDB");
    freeReplyObject(expect_array(h_c, 2, "EXEC"));
    expect_status(h_c, "OK", "FLUSHALL");
    expect_status(h_c, "PONG", "PING");
    blocked_now(1);
    expect_int(h_c, 1, "RPUSH k after");
    expect_kv(b, "k", "after");
    /* blocking commands inside MULTI answer at once, as on timeout */
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "BLPOP none 0");
    expect_status(h_c, "QUEUED", "BRPOPLPUSH none d 0");
    expect_status(h_c, "QUEUED", "BLMOVE none d LEFT LEFT 0");
    expect_status(h_c, "QUEUED", "BZPOPMIN none 0");
    expect_status(h_c, "QUEUED", "BLMPOP 0 1 none LEFT");
    expect_status(h_c, "QUEUED", "BZMPOP 0 1 none MAX");
    expect_status(h_c, "QUEUED", "RPUSH some v");
    expect_status(h_c, "QUEUED", "BLPOP some 0");
    r = expect_array(h_c, 8, "EXEC");
    for (int i = 0; i < 6; i++) check_nil(r->element[i]);
    ck_assert_int_eq(r->element[7]->type, REDIS_REPLY_ARRAY);
    check_bulk(r->element[7]->element[1], "v");
    freeReplyObject(r);
    blocked_now(0);
    redisFree(b);
}
END_TEST

START_TEST(blmove_chain) {
    redisContext *m = srv_connect(h_srv), *p = srv_connect(h_srv), *q = srv_connect(h_srv);
    block(m, 1, "BLMOVE a b LEFT RIGHT 0");
    block(q, 2, "BRPOPLPUSH b c 0");
    block(p, 3, "BLPOP c 0");
    expect_int(h_c, 1, "RPUSH a x");
    expect_next_bulk(m, "x");
    expect_next_bulk(q, "x");
    expect_kv(p, "c", "x");
    expect_int(h_c, 0, "EXISTS a b c");
    blocked_now(0);
    /* a served push to a key its own client waits on: BLMOVE a a rotates */
    block(m, 1, "BLMOVE r r RIGHT LEFT 0");
    expect_int(h_c, 2, "RPUSH r 1 2");
    expect_next_bulk(m, "2");
    redisReply *r = expect_array(h_c, 2, "LRANGE r 0 -1");
    check_bulk(r->element[0], "2");
    check_bulk(r->element[1], "1");
    freeReplyObject(r);
    /* BLMPOP and BZMPOP served by the key that became ready */
    block(m, 1, "BLMPOP 0 2 l1 l2 RIGHT COUNT 5");
    expect_int(h_c, 2, "RPUSH l2 u v");
    r = h_next_reply(m);
    ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    check_bulk(r->element[0], "l2");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[0], "v");
    check_bulk(r->element[1]->element[1], "u");
    freeReplyObject(r);
    block(m, 1, "BZMPOP 0 2 z1 z2 MAX");
    expect_int(h_c, 2, "ZADD z2 1 lo 2 hi");
    r = h_next_reply(m);
    ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    check_bulk(r->element[0], "z2");
    ck_assert_uint_eq(r->element[1]->elements, 1);
    check_bulk(r->element[1]->element[0]->element[0], "hi");
    freeReplyObject(r);
    redisFree(m);
    redisFree(p);
    redisFree(q);
}
END_TEST

START_TEST(killed_and_closed) {
    redisContext *b = srv_connect(h_srv), *b2 = srv_connect(h_srv);
    redisReply *r = cmd(b2, "CLIENT ID");
    long long id2 = r->integer;
    freeReplyObject(r);
    block(b, 1, "BLPOP k 0");
    block(b2, 2, "BLPOP k other 0");
    /* a blocked client that disconnects is no longer served */
    redisFree(b);
    blocked_now(1);
    /* CLIENT KILL of a blocked client */
    expect_int(h_c, 1, "CLIENT KILL ID %lld", id2);
    blocked_now(0);
    redisFree(b2);
    expect_int(h_c, 1, "RPUSH k v");
    expect_int(h_c, 1, "RPUSH other v");
    expect_int(h_c, 1, "LLEN k");
    expect_int(h_c, 1, "LLEN other");
}
END_TEST

START_TEST(zsets) {
    redisContext *b = srv_connect(h_srv), *b2 = srv_connect(h_srv);
    block(b, 1, "BZPOPMIN z 0");
    block(b2, 2, "BZPOPMAX z 0");
    expect_int(h_c, 3, "ZADD z 1 a 2 b 3 c");
    expect_kms(b, "z", "a", "1");
    expect_kms(b2, "z", "c", "3");
    expect_int(h_c, 1, "ZCARD z");
    expect_nil(b, "BZPOPMIN none 0.05");
    redisFree(b);
    redisFree(b2);
}
END_TEST

START_TEST(other_key_writes) {
    redisContext *b = srv_connect(h_srv);
    /* RENAME, COPY and MOVE create the key the client waits on */
    block(b, 1, "BLPOP dst 0");
    expect_int(h_c, 1, "RPUSH src r");
    expect_status(h_c, "OK", "RENAME src dst");
    expect_kv(b, "dst", "r");
    block(b, 1, "BLPOP dst 0");
    expect_int(h_c, 1, "RPUSH src c");
    expect_int(h_c, 1, "COPY src dst");
    expect_kv(b, "dst", "c");
    block(b, 1, "BLPOP dst 0");
    expect_status(h_c, "OK", "SELECT 1");
    expect_int(h_c, 1, "RPUSH dst m");
    expect_int(h_c, 1, "MOVE dst 0");
    expect_kv(b, "dst", "m");
    /* a client waits in its own database only */
    expect_status(b, "OK", "SELECT 1");
    block(b, 1, "BLPOP k 0");
    expect_status(h_c, "OK", "SELECT 0");
    expect_int(h_c, 1, "RPUSH k zero");
    expect_status(h_c, "OK", "SELECT 1");
    expect_int(h_c, 1, "RPUSH k one");
    expect_kv(b, "k", "one");
    expect_status(h_c, "OK", "SELECT 0");
    expect_int(h_c, 1, "LLEN k");
    redisFree(b);
}
END_TEST

/* ---- a randomized model: first blocked, first served ---- */

#define M_KEYS 4
#define M_CLIENTS 8

typedef struct mclient {
    redisContext *c;
    int waiting;                /* blocked in the model */
    long long since;            /* block order */
    int keys[3], nkeys;
} mclient;

typedef struct mlist {
    int v[16384];
    size_t head, len;
} mlist;

static mclient M[M_CLIENTS];
static mlist L[M_KEYS];
static long long m_order;

static int m_nwaiting(void) {
    int n = 0;
    for (int i = 0; i < M_CLIENTS; i++) n += M[i].waiting;
    return n;
}

/* The earliest blocked client waiting on key k, -1 if none. */
static int m_first_waiter(int k) {
    int best = -1;
    for (int i = 0; i < M_CLIENTS; i++) {
        if (!M[i].waiting) continue;
        int on = 0;
        for (int j = 0; j < M[i].nkeys; j++) on |= M[i].keys[j] == k;
        if (on && (best < 0 || M[i].since < M[best].since)) best = i;
    }
    return best;
}

static void m_expect_served(int i, int k, int v) {
    char key[8], val[16];
    snprintf(key, sizeof key, "mk%d", k);
    snprintf(val, sizeof val, "%d", v);
    expect_kv(M[i].c, key, val);
    M[i].waiting = 0;
}

/* Serves the waiters of key k from its model list, first blocked first. */
static void m_serve(int k) {
    int w;
    while (L[k].len && (w = m_first_waiter(k)) >= 0) {
        m_expect_served(w, k, L[k].v[L[k].head]);
        L[k].head++;
        L[k].len--;
    }
}

static void m_block(int i, unsigned *seed) {
    mclient *m = &M[i];
    m->nkeys = 1 + (int)(rand_r(seed) % 3);
    char command[64] = "BLPOP";
    for (int j = 0; j < m->nkeys; j++) {
        m->keys[j] = (int)(rand_r(seed) % M_KEYS);
        size_t n = strlen(command);
        snprintf(command + n, sizeof command - n, " mk%d", m->keys[j]);
    }
    strcat(command, " 0");
    h_send(m->c, command);
    for (int j = 0; j < m->nkeys; j++) {
        int k = m->keys[j];
        if (L[k].len) { /* answered at once from the first non-empty key */
            m->waiting = 1;
            m_expect_served(i, k, L[k].v[L[k].head]);
            L[k].head++;
            L[k].len--;
            return;
        }
    }
    m->waiting = 1;
    m->since = ++m_order;
    blocked_now(m_nwaiting());
}

static void m_push(int *next, unsigned *seed) {
    int tx = rand_r(seed) % 4 == 0;
    int nkeys = tx ? 2 + (int)(rand_r(seed) % 2) : 1, order[3];
    if (tx) expect_status(h_c, "OK", "MULTI");
    for (int j = 0; j < nkeys; j++) {
        int k = order[j] = (int)(rand_r(seed) % M_KEYS), n = 1 + (int)(rand_r(seed) % 3);
        char command[96];
        int len = snprintf(command, sizeof command, "RPUSH mk%d", k);
        for (int e = 0; e < n; e++) {
            ck_assert(L[k].head + L[k].len < sizeof L[k].v / sizeof L[k].v[0]);
            L[k].v[L[k].head + L[k].len++] = *next;
            len += snprintf(command + len, sizeof command - (size_t)len, " %d", (*next)++);
        }
        if (tx) expect_status(h_c, "QUEUED", command);
        else expect_int(h_c, (long long)L[k].len, command);
    }
    if (tx) freeReplyObject(expect_array(h_c, nkeys, "EXEC"));
    /* after the command (EXEC), keys in the order they were made ready */
    for (int j = 0; j < nkeys; j++) m_serve(order[j]);
}

START_TEST(model_fifo) {
    unsigned seed = (unsigned)h_now_ms();
    int next = 0;
    fprintf(stderr, "model_fifo: seed %u\n", seed);
    memset(M, 0, sizeof M);
    memset(L, 0, sizeof L);
    for (int i = 0; i < M_CLIENTS; i++) {
        M[i].c = srv_connect(h_srv);
        struct timeval tv = {10, 0}; /* a wrong prediction fails, not hangs */
        redisSetTimeout(M[i].c, tv);
    }
    for (int step = 0; step < 1500; step++) {
        int i = (int)(rand_r(&seed) % M_CLIENTS), what = (int)(rand_r(&seed) % 10);
        if (what < 5 && !M[i].waiting) {
            m_block(i, &seed);
        } else if (what == 5 && M[i].waiting) { /* a waiter goes away */
            redisFree(M[i].c);
            M[i].waiting = 0;
            M[i].c = srv_connect(h_srv);
            struct timeval tv = {10, 0};
            redisSetTimeout(M[i].c, tv);
            blocked_now(m_nwaiting());
        } else {
            m_push(&next, &seed);
        }
    }
    /* what is left in the lists is what the model kept */
    for (int k = 0; k < M_KEYS; k++)
        expect_int(h_c, (long long)L[k].len, "LLEN mk%d", k);
    for (int i = 0; i < M_CLIENTS; i++) redisFree(M[i].c);
}
END_TEST

/* The INCR file of s (the last one of its manifest), whole. */
static char *incr_file(const srv *s) {
    char path[4200], line[512], name[256] = "";
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "no manifest at %s", path);
    while (fgets(line, sizeof line, f)) {
        char n[256], type = 0;
        long long seq;
        if (sscanf(line, "file %255s seq %lld type %c", n, &seq, &type) == 3 && type == 'i')
            snprintf(name, sizeof name, "%s", n);
    }
    fclose(f);
    ck_assert_msg(name[0], "no incr file in the manifest");
    snprintf(path, sizeof path, "%s/appendonlydir/%s", s->dir, name);
    size_t len;
    return h_slurp(path, &len, 1);
}

START_TEST(aof_forms) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s), *b = srv_connect(s);
    h_send(b, "BLPOP k 0");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 2, "RPUSH k a b");
    expect_kv(b, "k", "a");
    h_send(b, "BLMOVE src dst LEFT RIGHT 0");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "RPUSH src m");
    expect_next_bulk(b, "m");
    h_send(b, "BZPOPMIN z 0");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 2, "ZADD z 1 a 2 b");
    expect_kms(b, "z", "a", "1");
    char *aof = incr_file(s);
    const char *push = strstr(aof, "RPUSH\r\n$1\r\nk\r\n");
    const char *pop = strstr(aof, "$4\r\nLPOP\r\n$1\r\nk\r\n");
    ck_assert_msg(push && pop && push < pop, "RPUSH then LPOP k in:\n%s", aof);
    /* Redis writes the directions in lower case */
    const char *move =
        strcasestr(aof, "$5\r\nLMOVE\r\n$3\r\nsrc\r\n$3\r\ndst\r\n$4\r\nLEFT\r\n$5\r\nRIGHT\r\n");
    ck_assert_msg(move, "LMOVE src dst LEFT RIGHT in:\n%s", aof);
    ck_assert_msg(strstr(aof, "$7\r\nZPOPMIN\r\n$1\r\nz\r\n"), "ZPOPMIN z in:\n%s", aof);
    ck_assert_msg(!strstr(aof, "BLPOP") && !strstr(aof, "BLMOVE") && !strstr(aof, "BZPOPMIN"),
                  "a blocking form in:\n%s", aof);
    free(aof);
    redisFree(b);
    redisFree(c);
    /* replayed: the same data */
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    redisReply *r = expect_array(c, 1, "LRANGE k 0 -1");
    check_bulk(r->element[0], "b");
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS src");
    r = expect_array(c, 1, "LRANGE dst 0 -1");
    check_bulk(r->element[0], "m");
    freeReplyObject(r);
    r = expect_array(c, 2, "ZRANGE z 0 -1 WITHSCORES");
    check_bulk(r->element[0], "b");
    freeReplyObject(r);
    redisFree(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("blocking");
    TCase *tc = tcase_create("blocking");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, served_by_push);
    tcase_add_test(tc, fifo_fairness);
    tcase_add_test(tc, several_keys);
    tcase_add_test(tc, wrong_type_stays_blocked);
    tcase_add_test(tc, timeouts);
    tcase_add_test(tc, timeout_parsing);
    tcase_add_test(tc, forever);
    tcase_add_test(tc, pipeline_waits);
    tcase_add_test(tc, transactions);
    tcase_add_test(tc, blmove_chain);
    tcase_add_test(tc, killed_and_closed);
    tcase_add_test(tc, zsets);
    tcase_add_test(tc, other_key_writes);
    tcase_add_test(tc, aof_forms);
    tcase_add_test(tc, model_fifo);
    suite_add_tcase(s, tc);
    return h_main(s);
}
