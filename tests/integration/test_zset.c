/* Integration tests: sorted set commands (ZADD and its options, ZINCRBY
 * ZREM ZCARD ZSCORE ZMSCORE ZRANK ZREVRANK ZCOUNT ZLEXCOUNT, the ZRANGE
 * family and ZRANGESTORE, ZREMRANGEBY*, ZPOPMIN ZPOPMAX ZMPOP, ZUNION ZINTER
 * ZDIFF and their STORE forms, ZINTERCARD, ZRANDMEMBER, ZSCAN, the blocking
 * BZPOPMIN BZPOPMAX BZMPOP, OBJECT ENCODING transitions, what the AOF
 * records) against a real server, with Redis 7.0's replies and errors
 * (RESP2); the randomized model tests are in test_zset_model.c. Each test
 * gets a fresh server (h_setup) and its client h_c. */
#include "harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_SYNTAX "ERR syntax error"
#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_FLOAT "ERR value is not a valid float"
#define ERR_RANGE "ERR min or max is not a float"
#define ERR_LEX "ERR min or max not valid string range item"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"

/* The reply must be an array whose elements, joined by single spaces (nil
 * as "(nil)", integers in decimal), read exactly `want`. */
void check_list_at(const char *file, int line, redisReply *r, const char *want) {
    char got[8192];
    size_t n = 0;
    got[0] = '\0';
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY, "%s:%d: not an array: %s", file, line,
                  r->type == REDIS_REPLY_ERROR ? r->str : "?");
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *e = r->element[i];
        char tmp[64];
        const char *s = tmp;
        size_t len;
        if (e->type == REDIS_REPLY_STRING || e->type == REDIS_REPLY_STATUS) {
            s = e->str;
            len = e->len;
        } else if (e->type == REDIS_REPLY_INTEGER) {
            len = (size_t)snprintf(tmp, sizeof tmp, "%lld", e->integer);
        } else if (e->type == REDIS_REPLY_NIL) {
            len = (size_t)snprintf(tmp, sizeof tmp, "(nil)");
        } else if (e->type == REDIS_REPLY_ARRAY) {
            len = (size_t)snprintf(tmp, sizeof tmp, "[%zu]", e->elements);
        } else {
            len = (size_t)snprintf(tmp, sizeof tmp, "?");
        }
        ck_assert_msg(n + len + 2 < sizeof got, "%s:%d: reply too long", file, line);
        if (i) got[n++] = ' ';
        memcpy(got + n, s, len);
        n += len;
        got[n] = '\0';
    }
    ck_assert_msg(strcmp(got, want) == 0, "%s:%d: got \"%s\", want \"%s\"", file, line, got, want);
    freeReplyObject(r);
}
#define expect_list(c, want, ...) \
    check_list_at(__FILE__, __LINE__, cmd(c, __VA_ARGS__), want)

/* test_zset_model.c */
void zset_model_tcases(Suite *s);

START_TEST(zadd_options)
{
    redisContext *c = h_c;
    expect_int(c, 3, "ZADD z 1 a 2 b 3 c");
    expect_list(c, "a 1 b 2 c 3", "ZRANGE z 0 -1 WITHSCORES");
    expect_int(c, 0, "ZADD z 5 a");
    expect_bulk(c, "5", "ZSCORE z a");
    /* NX: only new members; XX: only existing ones */
    expect_int(c, 1, "ZADD z NX 100 a 4 d");
    expect_bulk(c, "5", "ZSCORE z a");
    expect_int(c, 0, "ZADD z XX 7 a 8 e");
    expect_bulk(c, "7", "ZSCORE z a");
    expect_nil(c, "ZSCORE z e");
    /* CH counts changed scores too */
    expect_int(c, 2, "ZADD z CH 8 a 9 f 9 f");
    expect_int(c, 0, "ZADD z CH 8 a");
    /* GT / LT only move a score one way; new members are still added */
    expect_int(c, 1, "ZADD z GT CH 1 a 10 b");
    expect_list(c, "8 10", "ZMSCORE z a b");
    expect_int(c, 2, "ZADD z LT CH 1 a 20 b 0 g");
    expect_list(c, "1 10 0", "ZMSCORE z a b g");
    expect_int(c, 0, "ZADD z XX GT 0 a");
    /* XX on a missing key creates nothing */
    expect_int(c, 0, "ZADD nokey XX 1 a");
    expect_int(c, 0, "EXISTS nokey");
    /* INCR: the new score, nil when nothing was done */
    expect_bulk(c, "3.5", "ZADD z INCR 2.5 a");
    expect_bulk(c, "2.5", "ZADD z INCR 2.5 new");
    expect_nil(c, "ZADD z NX INCR 1 a");
    expect_nil(c, "ZADD z XX INCR 1 missing");
    expect_nil(c, "ZADD z GT INCR -1 a");
    expect_bulk(c, "2.5", "ZADD z LT CH INCR -1 a");
    expect_bulk(c, "2.5", "ZADD z INCR 0 a");
    expect_error(c, ERR_SYNTAX, "ZADD z LT INCR -1 CH a");
    /* errors, in Redis's order */
    expect_error(c, ERR_SYNTAX, "ZADD z NX 1");
    expect_error(c, ERR_SYNTAX, "ZADD z 1 a 2");
    expect_error(c, ERR_SYNTAX, "ZADD z FOO 1 a");
    expect_error(c, "ERR XX and NX options at the same time are not compatible",
                 "ZADD z NX XX 1 a");
    expect_error(c, "ERR GT, LT, and/or NX options at the same time are not compatible",
                 "ZADD z GT LT 1 a");
    expect_error(c, "ERR GT, LT, and/or NX options at the same time are not compatible",
                 "ZADD z NX GT 1 a");
    expect_error(c, "ERR INCR option supports a single increment-element pair",
                 "ZADD z INCR 1 a 2 b");
    expect_error(c, ERR_FLOAT, "ZADD z 1 a x b");
    expect_error(c, ERR_FLOAT, "ZADD z nan a");
    expect_error(c, ERR_FLOAT, "ZADD z %s a", " 1");
    expect_error(c, ERR_FLOAT, "ZADD z %s a", "1 ");
    expect_error(c, ERR_FLOAT, "ZADD z %s a", "");
    expect_error(c, ERR_FLOAT, "ZADD z 1e400 a");
    expect_nil(c, "ZSCORE z x");
    /* a NaN result is refused and changes nothing */
    expect_int(c, 1, "ZADD n inf a");
    expect_error(c, "ERR resulting score is not a number (NaN)", "ZADD n INCR -inf a");
    expect_error(c, "ERR resulting score is not a number (NaN)", "ZINCRBY n -inf a");
    expect_bulk(c, "inf", "ZSCORE n a");
    expect_error(c, "ERR wrong number of arguments for 'zadd' command", "ZADD z");
    expect_error(c, "ERR wrong number of arguments for 'zadd' command", "ZADD z 1");
}
END_TEST

START_TEST(zincrby_and_scores)
{
    redisContext *c = h_c;
    expect_bulk(c, "1", "ZINCRBY z 1 a");
    expect_bulk(c, "3.5", "ZINCRBY z 2.5 a");
    expect_bulk(c, "-1.5", "ZINCRBY z -5 a");
    expect_error(c, ERR_FLOAT, "ZINCRBY z x a");
    expect_error(c, ERR_SYNTAX, "ZINCRBY z nx a");
    /* formatting: %.17g, inf, -inf; integers as integers */
    const char *cases[][2] = {
        {"1.1", "1.1000000000000001"}, {"0.1", "0.10000000000000001"},
        {"1e17", "1e+17"}, {"123.456", "123.456"}, {"inf", "inf"}, {"-inf", "-inf"},
        {"+inf", "inf"}, {"-Infinity", "-inf"}, {"1e15", "1000000000000000"},
        {"5e-324", "4.9406564584124654e-324"}, {"0x10", "16"}, {"-3", "-3"},
        {"1.5e300", "1.5000000000000001e+300"}, {"9007199254740993", "9007199254740992"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        expect_int(c, 1, "ZADD s %s m", cases[i][0]);
        expect_bulk(c, cases[i][1], "ZSCORE s m");
        expect_list(c, "m", "ZRANGE s 0 -1");
        redisReply *r = cmd(c, "ZRANGE s 0 -1 WITHSCORES");
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(r->elements, 2);
        check_bulk(r->element[1], cases[i][1]);
        freeReplyObject(r);
        expect_int(c, 1, "ZREM s m");
        expect_int(c, 0, "EXISTS s");
    }
    /* -0: a listpack keeps it as 0, a skiplist as -0 */
    expect_int(c, 1, "ZADD lp -0 a");
    expect_bulk(c, "0", "ZSCORE lp a");
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-entries 0");
    expect_int(c, 3, "ZADD sk -0 a 0 b -0 c");
    expect_list(c, "a -0 b 0 c -0", "ZRANGE sk 0 -1 WITHSCORES");
    expect_int(c, 3, "ZCOUNT sk 0 0");
    expect_int(c, 3, "ZCOUNT sk -0 -0");
    /* a ZUNION/ZINTER result is built big: -0 stays until a store makes it
     * small; ZRANGESTORE starts small or big by the result's size */
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-entries 2");
    expect_int(c, 3, "ZADD w 0 a 1 b 0 c");
    expect_list(c, "b -1 a -0 c -0", "ZUNION 1 w WEIGHTS -1 WITHSCORES");
    expect_int(c, 3, "ZUNIONSTORE big 1 w WEIGHTS -1");
    expect_list(c, "b -1 a -0 c -0", "ZRANGE big 0 -1 WITHSCORES");
    expect_int(c, 2, "ZADD w2 0 a 1 b");
    expect_int(c, 2, "ZUNIONSTORE small 1 w2 WEIGHTS -1");
    expect_list(c, "b -1 a 0", "ZRANGE small 0 -1 WITHSCORES");
    expect_bulk(c, "listpack", "OBJECT ENCODING small");
    expect_int(c, 3, "ZRANGESTORE rs big 0 -1");
    expect_list(c, "b -1 a -0 c -0", "ZRANGE rs 0 -1 WITHSCORES");
    expect_int(c, 2, "ZRANGESTORE rs big 1 2");
    expect_list(c, "a 0 c 0", "ZRANGE rs 0 -1 WITHSCORES");
}
END_TEST

START_TEST(zrange_by_rank)
{
    redisContext *c = h_c;
    expect_list(c, "", "ZRANGE nokey 0 -1");
    /* equal scores sort by member bytes */
    expect_int(c, 6, "ZADD z 2 c 1 b 1 a 3 d 2 ba 2 b2");
    expect_list(c, "a b b2 ba c d", "ZRANGE z 0 -1");
    expect_list(c, "a 1 b 1", "ZRANGE z 0 1 WITHSCORES");
    expect_list(c, "c d", "ZRANGE z -2 -1");
    expect_list(c, "a b b2 ba c d", "ZRANGE z -100 100");
    expect_list(c, "", "ZRANGE z 4 2");
    expect_list(c, "", "ZRANGE z 6 10");
    expect_list(c, "", "ZRANGE z -1 -2");
    expect_list(c, "d", "ZRANGE z 5 5");
    expect_list(c, "d c ba", "ZREVRANGE z 0 2");
    expect_list(c, "d 3 c 2", "ZREVRANGE z 0 1 WITHSCORES");
    expect_list(c, "a", "ZREVRANGE z -1 -1");
    expect_list(c, "d c", "ZRANGE z 0 1 REV");
    expect_list(c, "d 3", "ZRANGE z 0 0 REV WITHSCORES");
    expect_error(c, ERR_INT, "ZRANGE z a 1");
    expect_error(c, ERR_INT, "ZRANGE z 0 1.5");
    expect_error(c, ERR_SYNTAX, "ZRANGE z 0 1 FOO");
    expect_error(c, ERR_SYNTAX, "ZREVRANGE z 0 1 REV");
    expect_error(c, ERR_SYNTAX, "ZRANGE z 0 1 REV REV");
    expect_error(c, ERR_SYNTAX, "ZRANGE z 0 1 BYSCORE BYLEX");
    expect_error(c, "ERR syntax error, LIMIT is only supported in combination with either "
                    "BYSCORE or BYLEX", "ZRANGE z 0 1 LIMIT 0 1");
    expect_error(c, ERR_SYNTAX, "ZRANGE z 0 1 LIMIT 0");
    expect_error(c, "ERR wrong number of arguments for 'zrange' command", "ZRANGE z 0");
    expect_int(c, 0, "ZRANK z a");
    expect_int(c, 3, "ZRANK z ba");
    expect_int(c, 5, "ZREVRANK z a");
    expect_nil(c, "ZRANK z nope");
    expect_nil(c, "ZREVRANK nokey a");
    expect_error(c, "ERR wrong number of arguments for 'zrank' command", "ZRANK z a b");
}
END_TEST

START_TEST(zrange_by_score)
{
    redisContext *c = h_c;
    expect_int(c, 7, "ZADD z -inf ninf 1 a 2 b 2 c 3 d 4.5 e inf pinf");
    expect_list(c, "ninf a b c d e pinf", "ZRANGEBYSCORE z -inf +inf");
    expect_list(c, "a b c d", "ZRANGEBYSCORE z 1 3");
    expect_list(c, "b c", "ZRANGEBYSCORE z (1 (3");
    expect_list(c, "b 2 c 2", "ZRANGEBYSCORE z 2 2 WITHSCORES");
    expect_list(c, "", "ZRANGEBYSCORE z (2 2");
    expect_list(c, "", "ZRANGEBYSCORE z 3 1");
    expect_list(c, "ninf", "ZRANGEBYSCORE z -inf (1");
    expect_list(c, "e pinf", "ZRANGEBYSCORE z (3 inf");
    expect_list(c, "pinf", "ZRANGEBYSCORE z (4.5 +inf");
    expect_list(c, "", "ZRANGEBYSCORE z (inf +inf");
    expect_list(c, "pinf inf", "ZRANGEBYSCORE z inf inf WITHSCORES");
    expect_list(c, "ninf -inf", "ZRANGEBYSCORE z -inf -inf WITHSCORES");
    /* LIMIT offset count: negative count means all, negative offset nothing */
    expect_list(c, "b c", "ZRANGEBYSCORE z 1 3 LIMIT 1 2");
    expect_list(c, "b c d", "ZRANGEBYSCORE z 1 3 LIMIT 1 -1");
    expect_list(c, "b c d", "ZRANGEBYSCORE z 1 3 LIMIT 1 -5");
    expect_list(c, "", "ZRANGEBYSCORE z 1 3 LIMIT 1 0");
    expect_list(c, "", "ZRANGEBYSCORE z 1 3 LIMIT -1 2");
    expect_list(c, "", "ZRANGEBYSCORE z 1 3 LIMIT 4 2");
    expect_list(c, "", "ZRANGEBYSCORE z 1 3 LIMIT 100 2");
    expect_list(c, "d", "ZRANGEBYSCORE z 1 3 LIMIT 3 100");
    expect_list(c, "c 2 b 2", "ZREVRANGEBYSCORE z 3 1 WITHSCORES LIMIT 1 2");
    expect_list(c, "d c b a", "ZREVRANGEBYSCORE z 3 1");
    expect_list(c, "c b", "ZREVRANGEBYSCORE z (3 (1");
    expect_list(c, "", "ZREVRANGEBYSCORE z 1 3");
    expect_list(c, "a ninf", "ZREVRANGEBYSCORE z 1 -inf LIMIT 0 2");
    expect_list(c, "e d", "ZRANGE z 4.5 3 BYSCORE REV");
    expect_list(c, "e 4.5", "ZRANGE z (3 4.5 BYSCORE WITHSCORES");
    expect_list(c, "d c", "ZRANGE z +inf 1 BYSCORE REV LIMIT 2 2");
    /* bound syntax */
    expect_list(c, "a", "ZRANGEBYSCORE z 1 1.0");
    expect_list(c, "a b c", "ZRANGEBYSCORE z 0x1 2e0");
    expect_error(c, ERR_RANGE, "ZRANGEBYSCORE z x 1");
    expect_error(c, ERR_RANGE, "ZRANGEBYSCORE z 1 [2");
    expect_error(c, ERR_RANGE, "ZRANGEBYSCORE z 1 nan");
    expect_error(c, ERR_RANGE, "ZRANGEBYSCORE z ((1 2");
    expect_error(c, ERR_RANGE, "ZRANGE z a b BYSCORE");
    expect_error(c, ERR_SYNTAX, "ZRANGEBYSCORE z 1 2 LIMIT 1");
    expect_error(c, ERR_SYNTAX, "ZRANGEBYSCORE z 1 2 BYLEX");
    expect_error(c, ERR_SYNTAX, "ZRANGEBYSCORE z 1 2 REV");
    expect_error(c, ERR_INT, "ZRANGEBYSCORE z 1 2 LIMIT x 1");
    /* ZCOUNT */
    expect_int(c, 7, "ZCOUNT z -inf +inf");
    expect_int(c, 2, "ZCOUNT z (1 (3");
    expect_int(c, 0, "ZCOUNT z 3 1");
    expect_int(c, 0, "ZCOUNT nokey 1 3");
    expect_int(c, 1, "ZCOUNT z %s 1", "");
    expect_int(c, 1, "ZCOUNT z ( 1");
    expect_error(c, ERR_RANGE, "ZCOUNT z a 1");
    expect_error(c, ERR_RANGE, "ZCOUNT nokey a 1");
}
END_TEST

START_TEST(zrange_by_lex)
{
    redisContext *c = h_c;
    expect_int(c, 7, "ZADD z 0 a 0 b 0 c 0 d 0 e 0 f 0 %s", "");
    expect_list(c, " a b c d e f", "ZRANGEBYLEX z - +");
    expect_list(c, "b c d", "ZRANGEBYLEX z [b [d");
    expect_list(c, "c", "ZRANGEBYLEX z (b (d");
    expect_list(c, "", "ZRANGEBYLEX z + -");
    expect_list(c, "", "ZRANGEBYLEX z [c (c");
    expect_list(c, "c", "ZRANGEBYLEX z [c [c");
    expect_list(c, " a b", "ZRANGEBYLEX z - (c");
    expect_list(c, "a b", "ZRANGEBYLEX z ( (c");
    expect_list(c, " a", "ZRANGEBYLEX z [ [a");
    expect_list(c, "e f", "ZRANGEBYLEX z (d +");
    expect_list(c, "b c", "ZRANGEBYLEX z - + LIMIT 2 2");
    expect_list(c, "", "ZRANGEBYLEX z - + LIMIT -1 2");
    expect_list(c, "e d", "ZREVRANGEBYLEX z + - LIMIT 1 2");
    expect_list(c, "d c b", "ZREVRANGEBYLEX z [d [b");
    expect_list(c, "c b", "ZRANGE z (d [b BYLEX REV");
    expect_list(c, "", "ZRANGEBYLEX z - -");
    expect_list(c, "b", "ZRANGEBYLEX z [b [b1");
    expect_int(c, 7, "ZLEXCOUNT z - +");
    expect_int(c, 3, "ZLEXCOUNT z [b [d");
    expect_int(c, 0, "ZLEXCOUNT z + -");
    expect_int(c, 0, "ZLEXCOUNT nokey - +");
    expect_error(c, ERR_LEX, "ZRANGEBYLEX z a [b");
    expect_error(c, ERR_LEX, "ZRANGEBYLEX z [a b");
    expect_error(c, ERR_LEX, "ZRANGEBYLEX z -a +");
    expect_error(c, ERR_LEX, "ZRANGEBYLEX z - ++");
    expect_error(c, ERR_LEX, "ZRANGEBYLEX z %s +", "");
    expect_error(c, ERR_LEX, "ZLEXCOUNT z 1 2");
    expect_error(c, ERR_LEX, "ZRANGE z 0 -1 BYLEX");
    expect_error(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
                 "ZRANGE z - + BYLEX WITHSCORES");
    expect_error(c, "ERR syntax error, WITHSCORES not supported in combination with BYLEX",
                 "ZRANGEBYLEX z - + WITHSCORES");
    expect_error(c, ERR_SYNTAX, "ZRANGEBYLEX z - + BYSCORE");
}
END_TEST

START_TEST(zrangestore)
{
    redisContext *c = h_c;
    expect_int(c, 5, "ZADD src 1 a 2 b 3 c 4 d 5 e");
    expect_int(c, 3, "ZRANGESTORE dst src 1 3");
    expect_list(c, "b 2 c 3 d 4", "ZRANGE dst 0 -1 WITHSCORES");
    expect_int(c, 2, "ZRANGESTORE dst src 0 1 REV");
    expect_list(c, "d 4 e 5", "ZRANGE dst 0 -1 WITHSCORES");
    expect_int(c, 2, "ZRANGESTORE dst src (1 4 BYSCORE LIMIT 1 2");
    expect_list(c, "c d", "ZRANGE dst 0 -1");
    expect_int(c, 1, "ZRANGESTORE dst src [a (b BYLEX");
    expect_list(c, "a", "ZRANGE dst 0 -1");
    expect_int(c, 1, "ZRANGESTORE dst src +inf 5 BYSCORE REV");
    expect_list(c, "e", "ZRANGE dst 0 -1");
    /* an empty result deletes the destination; any type is overwritten */
    expect_int(c, 0, "ZRANGESTORE dst src 10 20");
    expect_int(c, 0, "EXISTS dst");
    expect_status(c, "OK", "SET str x");
    expect_int(c, 0, "ZRANGESTORE str nokey 0 -1");
    expect_int(c, 0, "EXISTS str");
    expect_status(c, "OK", "SET str x");
    expect_int(c, 1, "EXPIRE str 100");
    expect_int(c, 5, "ZRANGESTORE str src 0 -1");
    expect_status(c, "zset", "TYPE str");
    expect_int(c, -1, "TTL str");
    /* the source and the destination may be the same key */
    expect_int(c, 2, "ZRANGESTORE src src 0 1");
    expect_list(c, "a b", "ZRANGE src 0 -1");
    expect_error(c, ERR_SYNTAX, "ZRANGESTORE dst src 0 1 WITHSCORES");
    expect_status(c, "OK", "SET s x");
    expect_error(c, ERR_WRONGTYPE, "ZRANGESTORE dst s 0 1");
    expect_error(c, ERR_RANGE, "ZRANGESTORE dst src a b BYSCORE");
    expect_error(c, "ERR wrong number of arguments for 'zrangestore' command",
                 "ZRANGESTORE dst src 0");
}
END_TEST

START_TEST(zrem_zcard_zmscore)
{
    redisContext *c = h_c;
    expect_int(c, 0, "ZCARD z");
    expect_int(c, 0, "ZREM z a");
    expect_int(c, 3, "ZADD z 1 a 2 b 3 c");
    expect_int(c, 3, "ZCARD z");
    expect_list(c, "1 (nil) 3", "ZMSCORE z a x c");
    expect_list(c, "(nil) (nil)", "ZMSCORE nokey a b");
    expect_int(c, 2, "ZREM z a a x b");
    expect_int(c, 1, "ZCARD z");
    expect_int(c, 1, "ZREM z c");
    expect_int(c, 0, "EXISTS z");
    expect_error(c, "ERR wrong number of arguments for 'zmscore' command", "ZMSCORE z");
    expect_error(c, "ERR wrong number of arguments for 'zrem' command", "ZREM z");
}
END_TEST

/* Writes that change nothing do not touch a WATCHed key (Redis signals a
 * key only when a member went or changed). */
START_TEST(watch_and_noop_writes)
{
    redisContext *c = h_c;
    expect_int(c, 2, "ZADD z 1 a 2 b");
    expect_status(c, "OK", "WATCH z");
    expect_int(c, 0, "ZREM z x y");
    expect_int(c, 0, "ZREMRANGEBYSCORE z 5 6");
    expect_int(c, 0, "ZREMRANGEBYRANK z 5 6");
    expect_int(c, 0, "ZADD z XX 3 x");
    expect_int(c, 0, "ZADD z 1 a 2 b");
    expect_int(c, 0, "ZADD z CH GT 0 a");
    expect_bulk(c, "1", "ZINCRBY z 0 a");
    expect_bulk(c, "2", "ZADD z INCR 0 b");
    expect_nil(c, "ZADD z NX INCR 5 b");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET x 1");
    redisReply *r = expect_array(c, 1, "EXEC");
    freeReplyObject(r);
    expect_status(c, "OK", "WATCH z");
    expect_int(c, 1, "ZREM z x b");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET x 2");
    expect_nil(c, "EXEC");
}
END_TEST

START_TEST(zremrange)
{
    redisContext *c = h_c;
    expect_int(c, 0, "ZREMRANGEBYRANK nokey 0 -1");
    expect_int(c, 0, "ZREMRANGEBYSCORE nokey 0 1");
    expect_int(c, 0, "ZREMRANGEBYLEX nokey - +");
    expect_int(c, 6, "ZADD z 1 a 2 b 3 c 4 d 5 e 6 f");
    expect_int(c, 2, "ZREMRANGEBYRANK z -2 -1");
    expect_int(c, 0, "ZREMRANGEBYRANK z 5 10");
    expect_int(c, 0, "ZREMRANGEBYRANK z 2 1");
    expect_int(c, 1, "ZREMRANGEBYRANK z 0 0");
    expect_list(c, "b c d", "ZRANGE z 0 -1");
    expect_int(c, 1, "ZREMRANGEBYSCORE z (2 3");
    expect_int(c, 0, "ZREMRANGEBYSCORE z (4 +inf");
    expect_list(c, "b d", "ZRANGE z 0 -1");
    expect_int(c, 2, "ZREMRANGEBYSCORE z -inf +inf");
    expect_int(c, 0, "EXISTS z");
    expect_int(c, 5, "ZADD l 0 a 0 b 0 c 0 d 0 e");
    expect_int(c, 2, "ZREMRANGEBYLEX l (a [c");
    expect_list(c, "a d e", "ZRANGE l 0 -1");
    expect_int(c, 0, "ZREMRANGEBYLEX l + -");
    expect_int(c, 3, "ZREMRANGEBYLEX l - +");
    expect_int(c, 0, "EXISTS l");
    expect_error(c, ERR_INT, "ZREMRANGEBYRANK z a 1");
    expect_error(c, ERR_RANGE, "ZREMRANGEBYSCORE z a 1");
    expect_error(c, ERR_LEX, "ZREMRANGEBYLEX z a b");
    expect_status(c, "OK", "SET s x");
    expect_error(c, ERR_WRONGTYPE, "ZREMRANGEBYRANK s 0 1");
    expect_error(c, ERR_LEX, "ZREMRANGEBYLEX s a b"); /* the range is checked first */
}
END_TEST

START_TEST(zpop_zmpop)
{
    redisContext *c = h_c;
    expect_list(c, "", "ZPOPMIN nokey");
    expect_list(c, "", "ZPOPMAX nokey 3");
    expect_int(c, 5, "ZADD z 1 a 2 b 3 c 4 d 5 e");
    expect_list(c, "a 1", "ZPOPMIN z");
    expect_list(c, "e 5 d 4", "ZPOPMAX z 2");
    expect_list(c, "", "ZPOPMIN z 0");
    expect_list(c, "b 2 c 3", "ZPOPMIN z 10");
    expect_int(c, 0, "EXISTS z");
    expect_error(c, "ERR value is out of range, must be positive", "ZPOPMIN z -1");
    expect_error(c, "ERR value is out of range, must be positive", "ZPOPMIN z x");
    expect_error(c, ERR_SYNTAX, "ZPOPMIN z 1 2");
    /* ZMPOP numkeys key... MIN|MAX [COUNT n] */
    expect_int(c, 3, "ZADD m 1 a 2 b 3 c");
    expect_list(c, "m [1]", "ZMPOP 1 m MIN");
    redisReply *r = cmd(c, "ZMPOP 2 nokey m MAX COUNT 5");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, 2);
    check_bulk(r->element[0], "m");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[0]->element[0], "c");
    check_bulk(r->element[1]->element[0]->element[1], "3");
    check_bulk(r->element[1]->element[1]->element[0], "b");
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS m");
    r = cmd(c, "ZMPOP 1 m MIN");
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    expect_error(c, "ERR numkeys should be greater than 0", "ZMPOP 0 m MIN");
    expect_error(c, "ERR numkeys should be greater than 0", "ZMPOP x m MIN");
    expect_error(c, ERR_SYNTAX, "ZMPOP 1 m FOO");
    expect_error(c, ERR_SYNTAX, "ZMPOP 3 m MIN");
    expect_error(c, ERR_SYNTAX, "ZMPOP 2 m MIN"); /* MIN taken as a key: no MIN|MAX left */
    expect_error(c, ERR_SYNTAX, "BZMPOP 0 2 m MIN");
    expect_error(c, "ERR count should be greater than 0", "ZMPOP 1 m MIN COUNT 0");
    expect_error(c, "ERR count should be greater than 0", "ZMPOP 1 m MIN COUNT x");
    expect_error(c, ERR_SYNTAX, "ZMPOP 1 m MIN COUNT 1 COUNT 1");
    expect_error(c, ERR_SYNTAX, "ZMPOP 1 m MIN COUNT");
    expect_status(c, "OK", "SET s x");
    expect_error(c, ERR_WRONGTYPE, "ZPOPMIN s");
    expect_error(c, ERR_WRONGTYPE, "ZMPOP 2 nokey s MIN");
    expect_int(c, 1, "ZADD m 1 a");
    expect_list(c, "m [1]", "ZMPOP 2 m s MIN"); /* stops at the first zset */
}
END_TEST

START_TEST(zsetops)
{
    redisContext *c = h_c;
    expect_int(c, 3, "ZADD a 1 x 2 y 3 z");
    expect_int(c, 3, "ZADD b 10 y 20 z 30 w");
    expect_list(c, "x 1 y 12 z 23 w 30", "ZUNION 2 a b WITHSCORES");
    expect_list(c, "y 12 z 23", "ZINTER 2 a b WITHSCORES");
    expect_list(c, "y z", "ZINTER 2 a b");
    expect_list(c, "x 1", "ZDIFF 2 a b WITHSCORES");
    expect_list(c, "w", "ZDIFF 2 b a");
    expect_list(c, "x 2 y 34 z 66 w 90", "ZUNION 2 a b WEIGHTS 2 3 WITHSCORES");
    expect_list(c, "x 1 y 2 z 3 w 30", "ZUNION 2 a b AGGREGATE MIN WITHSCORES");
    expect_list(c, "x 1 y 10 z 20 w 30", "ZUNION 2 a b AGGREGATE MAX WITHSCORES");
    expect_list(c, "z -20 y -10", "ZINTER 2 a b AGGREGATE MIN WEIGHTS 1 -1 WITHSCORES");
    expect_list(c, "x 1 y 2 z 3", "ZUNION 2 a nokey WITHSCORES");
    expect_list(c, "", "ZINTER 2 a nokey");
    expect_list(c, "", "ZDIFF 2 nokey a");
    expect_list(c, "x 1 y 2 z 3", "ZDIFF 2 a nokey WITHSCORES");
    expect_list(c, "x 5 y 10 z 15", "ZINTER 2 a a WEIGHTS 2 3 WITHSCORES");
    expect_list(c, "", "ZDIFF 2 a a");
    /* inf - inf in a SUM is 0 */
    expect_int(c, 4, "ZUNIONSTORE d 2 a b WEIGHTS inf -inf");
    expect_list(c, "w -inf y 0 z 0 x inf", "ZRANGE d 0 -1 WITHSCORES");
    expect_int(c, 4, "ZUNIONSTORE d 2 a b");
    expect_list(c, "x 1 y 12 z 23 w 30", "ZRANGE d 0 -1 WITHSCORES");
    expect_int(c, 2, "ZINTERSTORE d 2 a b AGGREGATE MAX");
    expect_list(c, "y 10 z 20", "ZRANGE d 0 -1 WITHSCORES");
    expect_int(c, 1, "ZDIFFSTORE d 2 a b");
    expect_list(c, "x 1", "ZRANGE d 0 -1 WITHSCORES");
    expect_int(c, 0, "ZINTERSTORE d 2 a nokey");
    expect_int(c, 0, "EXISTS d");
    /* a destination that is also a source */
    expect_int(c, 4, "ZUNIONSTORE a 2 a b");
    expect_list(c, "x 1 y 12 z 23 w 30", "ZRANGE a 0 -1 WITHSCORES");
    expect_int(c, 3, "ZINTERCARD 2 a b");
    expect_int(c, 3, "ZINTERCARD 1 b");
    expect_int(c, 1, "ZINTERCARD 2 a b LIMIT 1");
    expect_int(c, 3, "ZINTERCARD 2 a b LIMIT 0");
    expect_int(c, 3, "ZINTERCARD 2 a b LIMIT 5");
    expect_int(c, 0, "ZINTERCARD 2 a nokey");
    /* errors */
    expect_error(c, "ERR at least 1 input key is needed for 'zunion' command", "ZUNION 0 a");
    expect_error(c, "ERR at least 1 input key is needed for 'zinterstore' command",
                 "ZINTERSTORE d 0 a");
    expect_error(c, "ERR at least 1 input key is needed for 'zdiff' command", "ZDIFF -1 a");
    expect_error(c, ERR_INT, "ZUNION x a");
    expect_error(c, ERR_SYNTAX, "ZUNION 3 a b");
    expect_error(c, ERR_SYNTAX, "ZUNION 2 a b WEIGHTS 1");
    expect_error(c, ERR_SYNTAX, "ZUNION 2 a b AGGREGATE FOO");
    expect_error(c, ERR_SYNTAX, "ZUNION 2 a b AGGREGATE");
    expect_error(c, ERR_SYNTAX, "ZUNIONSTORE d 2 a b WITHSCORES");
    expect_error(c, ERR_SYNTAX, "ZDIFF 2 a b WEIGHTS 1 2");
    expect_error(c, ERR_SYNTAX, "ZDIFF 2 a b AGGREGATE SUM");
    expect_error(c, ERR_SYNTAX, "ZINTERCARD 2 a b WITHSCORES");
    expect_error(c, ERR_SYNTAX, "ZINTERCARD 2 a b LIMIT");
    expect_error(c, "ERR weight value is not a float", "ZUNION 2 a b WEIGHTS 1 x");
    expect_error(c, "ERR weight value is not a float", "ZUNION 2 a b WEIGHTS 1 nan");
    expect_error(c, "ERR LIMIT can't be negative", "ZINTERCARD 2 a b LIMIT -1");
    expect_error(c, "ERR LIMIT can't be negative", "ZINTERCARD 2 a b LIMIT x");
    expect_error(c, "ERR at least 1 input key is needed for 'zintercard' command",
                 "ZINTERCARD 0 a");
    expect_status(c, "OK", "SET str v");
    expect_error(c, ERR_WRONGTYPE, "ZUNION 2 a str");
    expect_error(c, ERR_WRONGTYPE, "ZINTER 2 str nokey FOO"); /* keys before options */
    expect_int(c, 3, "ZUNIONSTORE str 1 b");
    expect_status(c, "zset", "TYPE str");
    expect_error(c, "ERR wrong number of arguments for 'zunionstore' command", "ZUNIONSTORE d 1");
}
END_TEST

/* Needs the set type (SADD): a set is a source whose members score 1. */
START_TEST(zsetops_set_sources)
{
    redisContext *c = h_c;
    expect_int(c, 3, "ZADD a 1 x 2 y 3 z");
    expect_int(c, 3, "SADD s x y q");
    expect_list(c, "q 1 x 2 y 3 z 3", "ZUNION 2 a s WITHSCORES");
    expect_list(c, "x 2 y 3", "ZINTER 2 a s WITHSCORES");
    expect_list(c, "q 2 x 2 y 2", "ZINTER 2 s s WITHSCORES");
    expect_list(c, "q 1", "ZDIFF 2 s a WITHSCORES");
    expect_list(c, "z 3", "ZDIFF 2 a s WITHSCORES");
    expect_int(c, 2, "ZINTERSTORE d 2 s a AGGREGATE MAX WEIGHTS 5 1");
    expect_list(c, "x 5 y 5", "ZRANGE d 0 -1 WITHSCORES");
    expect_int(c, 2, "ZINTERCARD 2 s a");
    expect_error(c, ERR_WRONGTYPE, "ZRANGE s 0 -1");
}
END_TEST

START_TEST(zrandmember)
{
    redisContext *c = h_c;
    expect_nil(c, "ZRANDMEMBER nokey");
    expect_list(c, "", "ZRANDMEMBER nokey 5");
    expect_int(c, 5, "ZADD z 1 a 2 b 3 c 4 d 5 e");
    expect_list(c, "", "ZRANDMEMBER z 0");
    /* count >= size: the whole set, highest first */
    expect_list(c, "e d c b a", "ZRANDMEMBER z 5");
    expect_list(c, "e 5 d 4 c 3 b 2 a 1", "ZRANDMEMBER z 100 WITHSCORES");
    for (int round = 0; round < 20; round++) {
        redisReply *r = cmd(c, "ZRANDMEMBER z 3 WITHSCORES");
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(r->elements, 6);
        for (size_t i = 0; i < 6; i += 2) {
            const char *m = r->element[i]->str;
            ck_assert(strlen(m) == 1 && m[0] >= 'a' && m[0] <= 'e');
            char want[2] = {(char)('1' + (m[0] - 'a')), 0};
            check_bulk(r->element[i + 1], want);
            for (size_t j = 0; j < i; j += 2) ck_assert_str_ne(m, r->element[j]->str);
        }
        freeReplyObject(r);
        /* negative: repeats allowed, exactly |count| */
        r = cmd(c, "ZRANDMEMBER z -20");
        ck_assert_uint_eq(r->elements, 20);
        freeReplyObject(r);
        r = cmd(c, "ZRANDMEMBER z");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        ck_assert(r->len == 1 && r->str[0] >= 'a' && r->str[0] <= 'e');
        freeReplyObject(r);
    }
    /* a big set (distinct picks drawn two ways) */
    for (int i = 0; i < 300; i++) expect_int(c, 1, "ZADD big %d m%d", i, i);
    int seen[300] = {0};
    redisReply *r = cmd(c, "ZRANDMEMBER big 250");
    ck_assert_uint_eq(r->elements, 250);
    for (size_t i = 0; i < r->elements; i++) {
        int k = atoi(r->element[i]->str + 1);
        ck_assert(k >= 0 && k < 300 && !seen[k]);
        seen[k] = 1;
    }
    freeReplyObject(r);
    memset(seen, 0, sizeof seen);
    r = cmd(c, "ZRANDMEMBER big 20");
    ck_assert_uint_eq(r->elements, 20);
    for (size_t i = 0; i < r->elements; i++) {
        int k = atoi(r->element[i]->str + 1);
        ck_assert(k >= 0 && k < 300 && !seen[k]);
        seen[k] = 1;
    }
    freeReplyObject(r);
    expect_error(c, ERR_SYNTAX, "ZRANDMEMBER z 1 WITHSCORES x");
    expect_error(c, ERR_SYNTAX, "ZRANDMEMBER z 1 FOO");
    expect_error(c, ERR_INT, "ZRANDMEMBER z x");
    expect_error(c, "ERR value is out of range, value must between -9223372036854775807 and "
                    "9223372036854775807", "ZRANDMEMBER z -9223372036854775808");
    expect_error(c, "ERR value is out of range", "ZRANDMEMBER z 9223372036854775807 WITHSCORES");
    expect_status(c, "OK", "SET s x");
    expect_error(c, ERR_WRONGTYPE, "ZRANDMEMBER s");
    expect_error(c, ERR_WRONGTYPE, "ZRANDMEMBER s 1");
}
END_TEST

START_TEST(zscan)
{
    redisContext *c = h_c;
    expect_list(c, "0 [0]", "ZSCAN nokey 0");
    expect_list(c, "0 [0]", "ZSCAN nokey 0 FOO"); /* options are read after the lookup */
    expect_error(c, "ERR invalid cursor", "ZSCAN nokey x");
    /* a listpack answers everything at once, its scores as it stores them */
    expect_int(c, 4, "ZADD z 1.5 a 2 b 1e17 c -0 d");
    redisReply *r = cmd(c, "ZSCAN z 0");
    ck_assert_uint_eq(r->elements, 2);
    check_bulk(r->element[0], "0");
    check_list_at(__FILE__, __LINE__, r->element[1], "d 0 a 1.5 b 2 c 100000000000000000");
    r->element[1] = NULL;
    r->elements = 1;
    freeReplyObject(r);
    r = cmd(c, "ZSCAN z 0 MATCH [ab] COUNT 1");
    check_list_at(__FILE__, __LINE__, r->element[1], "a 1.5 b 2");
    r->element[1] = NULL;
    r->elements = 1;
    freeReplyObject(r);
    expect_error(c, ERR_SYNTAX, "ZSCAN z 0 COUNT 0");
    expect_error(c, ERR_INT, "ZSCAN z 0 COUNT x");
    expect_error(c, ERR_SYNTAX, "ZSCAN z 0 MATCH");
    expect_error(c, ERR_SYNTAX, "ZSCAN z 0 TYPE zset");
    /* a skiplist: a full iteration returns every member exactly once */
    enum { N = 1000 };
    for (int i = 0; i < N; i++) expect_int(c, 1, "ZADD big %d.5 m%d", i, i);
    expect_bulk(c, "skiplist", "OBJECT ENCODING big");
    static int seen[N];
    memset(seen, 0, sizeof seen);
    char cursor[32] = "0";
    int rounds = 0, matched = 0;
    do {
        r = cmd(c, "ZSCAN big %s COUNT 20", cursor);
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        const redisReply *v = r->element[1];
        ck_assert(v->elements % 2 == 0);
        for (size_t i = 0; i < v->elements; i += 2) {
            int k = atoi(v->element[i]->str + 1);
            ck_assert(k >= 0 && k < N);
            ck_assert_int_eq(seen[k], 0);
            seen[k] = 1;
            char want[32];
            snprintf(want, sizeof want, "%d.5", k);
            check_bulk(v->element[i + 1], want);
        }
        freeReplyObject(r);
        rounds++;
    } while (strcmp(cursor, "0") != 0 && rounds < 10 * N);
    for (int i = 0; i < N; i++) ck_assert_int_eq(seen[i], 1);
    ck_assert_int_gt(rounds, 10);
    strcpy(cursor, "0");
    do {
        r = cmd(c, "ZSCAN big %s MATCH m1?", cursor);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        matched += (int)r->element[1]->elements / 2;
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    ck_assert_int_eq(matched, 10);
    expect_status(c, "OK", "SET s x");
    expect_error(c, ERR_WRONGTYPE, "ZSCAN s 0");
}
END_TEST

START_TEST(encodings)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-entries 3");
    expect_int(c, 3, "ZADD z 1 a 2 b 3 c");
    expect_bulk(c, "listpack", "OBJECT ENCODING z");
    expect_int(c, 1, "ZADD z 4 d");
    expect_bulk(c, "skiplist", "OBJECT ENCODING z");
    expect_int(c, 3, "ZREM z a b c");
    expect_bulk(c, "skiplist", "OBJECT ENCODING z"); /* for good */
    /* a store builds the small form when the result fits */
    expect_int(c, 1, "ZUNIONSTORE u 1 z");
    expect_bulk(c, "listpack", "OBJECT ENCODING u");
    expect_int(c, 1, "ZRANGESTORE r z 0 -1");
    expect_bulk(c, "listpack", "OBJECT ENCODING r");
    expect_int(c, 4, "ZADD w 1 a 2 b 3 c 4 d");
    expect_bulk(c, "skiplist", "OBJECT ENCODING w");
    expect_int(c, 4, "ZUNIONSTORE u 1 w");
    expect_bulk(c, "skiplist", "OBJECT ENCODING u");
    /* a member longer than zset-max-listpack-value */
    expect_status(c, "OK", "CONFIG SET zset-max-listpack-value 4");
    expect_int(c, 1, "ZADD v 1 abcd");
    expect_bulk(c, "listpack", "OBJECT ENCODING v");
    expect_int(c, 1, "ZADD v 1 abcde");
    expect_bulk(c, "skiplist", "OBJECT ENCODING v");
    expect_int(c, 1, "ZADD v2 1 abcde");
    expect_bulk(c, "skiplist", "OBJECT ENCODING v2");
    expect_status(c, "OK", "CONFIG SET zset-max-ziplist-entries 0");
    expect_int(c, 1, "ZADD e 1 a");
    expect_bulk(c, "skiplist", "OBJECT ENCODING e");
}
END_TEST

START_TEST(wrongtype)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s x");
    const char *cmds[] = {
        "ZADD s 1 a", "ZINCRBY s 1 a", "ZREM s a", "ZCARD s", "ZSCORE s a",
        "ZMSCORE s a", "ZRANK s a", "ZREVRANK s a", "ZCOUNT s 0 1", "ZLEXCOUNT s - +",
        "ZRANGE s 0 1", "ZREVRANGE s 0 1", "ZRANGEBYSCORE s 0 1", "ZREVRANGEBYSCORE s 1 0",
        "ZRANGEBYLEX s - +", "ZREVRANGEBYLEX s + -", "ZREMRANGEBYRANK s 0 1",
        "ZREMRANGEBYSCORE s 0 1", "ZREMRANGEBYLEX s - +", "ZPOPMIN s", "ZPOPMAX s",
        "ZMPOP 1 s MIN", "ZRANDMEMBER s", "ZUNION 1 s", "ZINTER 1 s", "ZDIFF 1 s",
        "ZINTERCARD 1 s", "ZSCAN s 0", "BZPOPMIN s 0", "BZPOPMAX s 0", "BZMPOP 0 1 s MIN",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        expect_error(c, ERR_WRONGTYPE, cmds[i]); /* no '%' in them */
    expect_bulk(c, "x", "GET s");
}
END_TEST

/* ---- blocking (needs the blocking infrastructure, src/blocking.c) ---- */

START_TEST(bzpop)
{
    redisContext *c = h_c;
    expect_int(c, 3, "ZADD z 1 a 2 b 3 c");
    expect_list(c, "z a 1", "BZPOPMIN nokey z 0");
    expect_list(c, "z c 3", "BZPOPMAX z 0");
    expect_list(c, "z [1]", "BZMPOP 0 2 nokey z MIN COUNT 5");
    expect_int(c, 0, "EXISTS z");
    /* timeouts answer a nil array */
    redisReply *r = cmd(c, "BZPOPMIN z 0.01");
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    r = cmd(c, "BZMPOP 0.01 1 z MAX");
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    expect_error(c, "ERR timeout is not a float or out of range", "BZPOPMIN z x");
    expect_error(c, "ERR timeout is negative", "BZPOPMIN z -1");
    expect_error(c, "ERR numkeys should be greater than 0", "BZMPOP 0 0 z MIN");
    expect_error(c, ERR_SYNTAX, "BZMPOP 0 1 z FOO");
    /* inside MULTI: no blocking, the timeout's reply */
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "BZPOPMIN z 0");
    r = cmd(c, "EXEC");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, 1);
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    /* a blocked client is served by a later ZADD */
    redisContext *b = srv_connect(h_srv);
    redisAppendCommand(b, "BZPOPMAX z1 z2 0");
    redisAppendCommand(b, "BZMPOP 0 1 z3 MIN COUNT 2");
    redisBufferWrite(b, &(int){0});
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 2, "ZADD z2 1 a 2 b");
    void *vr;
    ck_assert_int_eq(redisGetReply(b, &vr), REDIS_OK);
    check_list_at(__FILE__, __LINE__, vr, "z2 b 2");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 3, "ZADD z3 1 a 2 b 3 c");
    ck_assert_int_eq(redisGetReply(b, &vr), REDIS_OK);
    check_list_at(__FILE__, __LINE__, vr, "z3 [2]");
    expect_list(c, "c", "ZRANGE z3 0 -1");
    /* a store that creates the key serves too */
    redisAppendCommand(b, "BZPOPMIN d1 d2 0");
    redisBufferWrite(b, &(int){0});
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "ZUNIONSTORE d2 1 z3 WEIGHTS 2");
    ck_assert_int_eq(redisGetReply(b, &vr), REDIS_OK);
    check_list_at(__FILE__, __LINE__, vr, "d2 c 6");
    expect_int(c, 0, "EXISTS d2");
    redisFree(b);
}
END_TEST

/* What the AOF records: ZINCRBY and ZADD INCR as sent, a ZADD that changes
 * nothing not at all, BZPOPMIN as ZPOPMIN key, ZMPOP and BZMPOP as
 * ZPOPMIN/ZPOPMAX key n with n the members popped (served at once or after
 * blocking), as Redis 7.0 writes them. */
static char *read_incr_aof(const srv *s) {
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/appendonlydir", s->dir);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char *text = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strstr(e->d_name, ".incr.aof")) continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        text = h_slurp(path, &len, 1);
    }
    closedir(d);
    ck_assert_ptr_nonnull(text);
    return text;
}

START_TEST(aof_propagation)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_int(c, 4, "ZADD k 1 a 2 b 3 c 4 d");
    expect_bulk(c, "5", "ZINCRBY k 1 d");
    expect_bulk(c, "6", "ZADD k INCR 1 d");
    expect_int(c, 0, "ZADD k GT 1 d");
    expect_int(c, 0, "ZADD k 6 d");
    expect_list(c, "k a 1", "BZPOPMIN k 0");
    expect_list(c, "k [2]", "BZMPOP 0 1 k MIN COUNT 2");
    expect_list(c, "k d 6", "BZPOPMAX k 0");
    /* a client served after blocking propagates the same forms */
    redisContext *b = srv_connect(s);
    redisAppendCommand(b, "BZPOPMAX k2 0");
    redisAppendCommand(b, "BZMPOP 0 1 k2 MIN COUNT 5");
    redisBufferWrite(b, &(int){0});
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "ZADD k2 2 y");
    void *vr;
    ck_assert_int_eq(redisGetReply(b, &vr), REDIS_OK);
    check_list_at(__FILE__, __LINE__, vr, "k2 y 2");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 2, "ZADD k2 3 z 4 w");
    ck_assert_int_eq(redisGetReply(b, &vr), REDIS_OK);
    check_list_at(__FILE__, __LINE__, vr, "k2 [2]");
    redisFree(b);
    expect_int(c, 3, "ZADD m 1 a 2 b 3 c");
    expect_list(c, "m [1]", "ZMPOP 1 m MAX");
    expect_list(c, "m [2]", "ZMPOP 2 nokey m MIN COUNT 10");
    expect_int(c, 1, "ZADD m2 1 x");
    expect_list(c, "m2 [1]", "BZMPOP 0 1 m2 MAX COUNT 5");
    char *aof = read_incr_aof(s);
    const char *seq[] = {
        "*4\r\n$7\r\nZINCRBY\r\n$1\r\nk\r\n$1\r\n1\r\n$1\r\nd\r\n",
        "*5\r\n$4\r\nZADD\r\n$1\r\nk\r\n$4\r\nINCR\r\n$1\r\n1\r\n$1\r\nd\r\n",
        "*2\r\n$7\r\nZPOPMIN\r\n$1\r\nk\r\n",
        "*3\r\n$7\r\nZPOPMIN\r\n$1\r\nk\r\n$1\r\n2\r\n",
        "*2\r\n$7\r\nZPOPMAX\r\n$1\r\nk\r\n",
        "*2\r\n$7\r\nZPOPMAX\r\n$2\r\nk2\r\n",
        "*3\r\n$7\r\nZPOPMIN\r\n$2\r\nk2\r\n$1\r\n2\r\n",
        "*3\r\n$7\r\nZPOPMAX\r\n$1\r\nm\r\n$1\r\n1\r\n",
        "*3\r\n$7\r\nZPOPMIN\r\n$1\r\nm\r\n$1\r\n2\r\n",
        "*3\r\n$7\r\nZPOPMAX\r\n$2\r\nm2\r\n$1\r\n1\r\n",
    };
    const char *at = aof;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        const char *p = strstr(at, seq[i]);
        ck_assert_msg(p != NULL, "AOF lacks (in order) command %zu:\n%s", i, aof);
        at = p + strlen(seq[i]);
    }
    ck_assert_ptr_null(strstr(aof, "GT"));
    ck_assert_ptr_null(strstr(aof, "BZ"));
    ck_assert_ptr_null(strstr(aof, "MPOP"));
    ck_assert_ptr_null(strstr(aof, "mpop"));
    free(aof);
    redisFree(c);
}
END_TEST

/* Redis's SORT (and SORT_RO) converts a listpack sorted set to a skiplist
 * ("Destructively convert encoded sorted sets for SORT"), whatever the
 * options and even when the sort then fails; a syntax error leaves it. */
START_TEST(sort_converts_to_skiplist) {
    expect_int(h_c, 2, "ZADD z 1 a 2 b");
    expect_error(h_c, "ERR syntax error", "SORT z junk");
    expect_bulk(h_c, "listpack", "OBJECT ENCODING z");
    redisReply *r = expect_array(h_c, 2, "SORT_RO z ALPHA");
    freeReplyObject(r);
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING z");
    expect_int(h_c, 1, "ZADD y 1 c");
    expect_status(h_c, "OK", "SET w_c x");
    expect_error(h_c, "ERR One or more scores can't be converted into double", "SORT y BY w_*");
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING y");
    expect_int(h_c, 1, "ZADD x 1 d");
    expect_int(h_c, 1, "SORT x BY nosort STORE dst");
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING x");
    r = expect_array(h_c, 2, "ZRANGE z 0 -1");
    check_bulk(r->element[0], "a");
    freeReplyObject(r);
}
END_TEST

/* ZRANGESTORE BYSCORE/BYLEX: Redis 7.0 does not know the result's length
 * up front, so it starts a listpack (where a -0 score becomes 0) and
 * converts when it overflows; a rank range of more than the limit starts
 * as a skiplist (keeping -0). */
START_TEST(zrangestore_byscore_neg_zero) {
    expect_int(h_c, 1, "ZADD s 0 a");
    for (int i = 1; i <= 130; i++) expect_int(h_c, 1, "ZADD s %d m%d", -i, i);
    expect_int(h_c, 131, "ZUNIONSTORE z 1 s WEIGHTS -1"); /* a: -0, m<i>: i */
    expect_bulk(h_c, "-0", "ZSCORE z a");
    expect_int(h_c, 131, "ZRANGESTORE d z -1 +inf BYSCORE");
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING d");
    expect_bulk(h_c, "0", "ZSCORE d a");
    expect_int(h_c, 131, "ZRANGESTORE d z 0 -1");
    expect_bulk(h_c, "-0", "ZSCORE d a");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("zset");
    h_add_tcase(s, "zadd_options", zadd_options, 30, h_setup, h_teardown);
    h_add_tcase(s, "zincrby_and_scores", zincrby_and_scores, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrange_by_rank", zrange_by_rank, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrange_by_score", zrange_by_score, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrange_by_lex", zrange_by_lex, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrangestore", zrangestore, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrem_zcard_zmscore", zrem_zcard_zmscore, 30, h_setup, h_teardown);
    h_add_tcase(s, "watch_and_noop_writes", watch_and_noop_writes, 30, h_setup, h_teardown);
    h_add_tcase(s, "zremrange", zremrange, 30, h_setup, h_teardown);
    h_add_tcase(s, "zpop_zmpop", zpop_zmpop, 30, h_setup, h_teardown);
    h_add_tcase(s, "zsetops", zsetops, 30, h_setup, h_teardown);
    h_add_tcase(s, "zsetops_set_sources", zsetops_set_sources, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrandmember", zrandmember, 30, h_setup, h_teardown);
    h_add_tcase(s, "zscan", zscan, 60, h_setup, h_teardown);
    h_add_tcase(s, "encodings", encodings, 30, h_setup, h_teardown);
    h_add_tcase(s, "wrongtype", wrongtype, 30, h_setup, h_teardown);
    h_add_tcase(s, "sort_converts_to_skiplist", sort_converts_to_skiplist, 30, h_setup, h_teardown);
    h_add_tcase(s, "zrangestore_byscore_neg_zero", zrangestore_byscore_neg_zero, 30, h_setup, h_teardown);
    h_add_tcase(s, "bzpop", bzpop, 30, h_setup, h_teardown);
    h_add_dropall(s, "aof_propagation", aof_propagation, 30);
    zset_model_tcases(s);
    return h_main(s);
}
