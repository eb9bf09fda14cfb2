/* Integration tests of the stream entry commands (src/commands/cmd_stream.c):
 * XADD (ids: explicit, ms-*, *, 0-0, the max id, seq overflow, leading
 * zeros; NOMKSTREAM; MAXLEN/MINID with = ~ LIMIT and every parse error in
 * Redis's order), XRANGE/XREVRANGE (COUNT, exclusive bounds), XLEN, XDEL,
 * XTRIM (node-shaped ~ trims with a small stream-node-max-entries), XSETID,
 * XREAD without BLOCK (RESP2 and RESP3 shapes), streams in the generic
 * commands (TYPE OBJECT MEMORY COPY RENAME DEL EXPIRE SORT SCAN RANDOMKEY
 * INFO), keyspace events, scripts and MULTI, and what the AOF receives (the
 * generated id, the exact form of an approximate trim). Every test runs
 * against redis-server too (VERSO_SERVER=/usr/bin/redis-server). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "reply_repr.h"

static void teardown(void) {
    h_teardown();
    h_srv_drop_all();
}

/* ---- XADD ---- */

START_TEST(xadd_ids) {
    redisContext *c = h_c;
    expect_bulk(c, "1-1", "XADD s 1-1 a 1");
    expect_bulk(c, "1-2", "XADD s 1-* b 2");        /* ms-*: the next seq of that ms */
    expect_bulk(c, "5-0", "XADD s 5-* c 3");        /* a later ms: seq 0 */
    expect_bulk(c, "7-3", "XADD s %s d 4", "00007-0003"); /* leading zeros */
    expect_bulk(c, "8-0", "XADD s 8 e 5");          /* ms alone: seq 0 */
    expect_repr(c, "[[1-1,[a,1]],[1-2,[b,2]],[5-0,[c,3]],[7-3,[d,4]],[8-0,[e,5]]]",
                "XRANGE s - +");
    expect_int(c, 5, "XLEN s");
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD s 8-0 x y");
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD s 7-* x y");
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD s 1 x y");
    expect_error(c, "ERR The ID specified in XADD must be greater than 0-0", "XADD s 0-0 x y");
    expect_error(c, "ERR The ID specified in XADD must be greater than 0-0", "XADD n 0 x y");
    expect_int(c, 0, "EXISTS n");                   /* no empty key left */
    expect_bulk(c, "0-1", "XADD z 0-* x y");        /* 0-* on a new stream */
    expect_bulk(c, "0-2", "XADD z 0-* x y");
    /* * after an id in the future: the next seq of that ms */
    expect_bulk(c, "99999999999999-5", "XADD f 99999999999999-5 a b");
    expect_bulk(c, "99999999999999-6", "XADD f * a b");
    /* * now: a time-based id, then strictly increasing */
    redisReply *r = cmd(c, "XADD t * a b");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    long long ms = atoll(r->str);
    freeReplyObject(r);
    ck_assert(ms > 1600000000000LL);
    r = expect_array(c, 1, "XRANGE t - +");
    freeReplyObject(r);
    /* the edges of the id space */
    const char *max = "18446744073709551615-18446744073709551615";
    expect_bulk(c, "18446744073709551615-18446744073709551614",
                "XADD m 18446744073709551615-18446744073709551614 a b");
    expect_bulk(c, max, "XADD m * a b");
    expect_error(c, "ERR The stream has exhausted the last possible ID, unable to add more items",
                 "XADD m * a b");
    expect_error(c, "ERR The stream has exhausted the last possible ID, unable to add more items",
                 "XADD m 18446744073709551615-* a b");
    expect_repr(c, "[[18446744073709551615-18446744073709551615,[a,b]]]", "XRANGE m (18446744073709551615-18446744073709551614 +");
    expect_bulk(c, "18446744073709551615-0", "XADD mm 18446744073709551615 a b");
    expect_error(c, "ERR Invalid stream ID specified as stream command argument",
                 "XADD mm 18446744073709551616-0 a b");
    expect_error(c, "ERR Invalid stream ID specified as stream command argument",
                 "XADD mm 1-18446744073709551616 a b");
    /* field values of any bytes, and several pairs */
    expect_bulk(c, "1-0", "XADD b 1-0 %b %b f2 v2", "k\0x", (size_t)3, "", (size_t)0);
    r = expect_array(c, 1, "XRANGE b - +");
    ck_assert_uint_eq(r->element[0]->element[1]->elements, 4);
    ck_assert_uint_eq(r->element[0]->element[1]->element[0]->len, 3);
    ck_assert_uint_eq(r->element[0]->element[1]->element[1]->len, 0);
    freeReplyObject(r);
}
END_TEST

/* The seq of "ms-*" overflowing: Redis 7.0.15 leaves errno unset on that
 * path, so its reply is the "too large" one (on a fresh server no earlier
 * error set EDOM: see doc/compat.md). */
START_TEST(xadd_seq_overflow) {
    redisContext *c = h_c;
    expect_bulk(c, "1-18446744073709551615", "XADD s 1-18446744073709551615 a b");
    expect_error(c, "ERR Elements are too large to be stored", "XADD s 1-* a b");
    /* "*" moves to the next ms instead */
    expect_bulk(c, "2-0", "XADD s 2-* a b");
    expect_bulk(c, "5-18446744073709551615", "XADD f 5-18446744073709551615 a b");
    /* an id in the future, its seq at the max: * moves on to the next ms */
    expect_bulk(c, "99999999999999-18446744073709551615",
                "XADD g 99999999999999-18446744073709551615 a b");
    expect_bulk(c, "100000000000000-0", "XADD g * a b");
}
END_TEST

START_TEST(xadd_nomkstream_wrongtype) {
    redisContext *c = h_c;
    expect_nil(c, "XADD s NOMKSTREAM * a b");
    expect_int(c, 0, "EXISTS s");
    expect_nil(c, "XADD s NOMKSTREAM MAXLEN 5 * a b");
    expect_int(c, 0, "EXISTS s");
    expect_bulk(c, "1-0", "XADD s 1-0 a b");
    expect_bulk(c, "2-0", "XADD s NOMKSTREAM 2-0 a b");
    expect_bulk(c, "3-0", "XADD s MAXLEN 5 NOMKSTREAM 3-0 a b");
    expect_status(c, "OK", "SET str v");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XADD str * a b");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XADD str NOMKSTREAM * a b");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XLEN str");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XRANGE str - +");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XDEL str 1-0");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XTRIM str MAXLEN 0");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XSETID str 1-0");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XREAD STREAMS str 0");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XREAD STREAMS s str 0 0");
}
END_TEST

/* Each of streamParseAddOrTrimArgsOrReply's errors, and the checks that
 * follow, in Redis's order. */
START_TEST(xadd_errors) {
    redisContext *c = h_c;
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_bulk(c, "1-0", "XADD s 1-0 a b");
    expect_error(c, "ERR wrong number of arguments for 'xadd' command", "XADD s * a");
    expect_error(c, "ERR wrong number of arguments for 'xadd' command", "XADD s MAXLEN 5 * a");
    expect_error(c, "ERR wrong number of arguments for 'xadd' command", "XADD s * a b c");
    expect_error(c, "ERR wrong number of arguments for 'xadd' command", "XADD s MAXLEN 5 6");
    expect_error(c, "ERR value is not an integer or out of range", "XADD s MAXLEN x * a b");
    expect_error(c, "ERR value is not an integer or out of range", "XADD s MAXLEN ~ x * a b");
    expect_error(c, "ERR The MAXLEN argument must be >= 0.", "XADD s MAXLEN -1 * a b");
    expect_error(c, "ERR The MAXLEN argument must be >= 0.", "XADD s MAXLEN = -1 * a b");
    expect_error(c, inv, "XADD s MINID x * a b");
    expect_error(c, inv, "XADD s MINID - * a b");
    expect_error(c, inv, "XADD s MINID ~ + * a b");
    expect_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
                 "XADD s MAXLEN 1 MINID 1 * a b");
    expect_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
                 "XADD s MINID 1 MAXLEN 1 * a b");
    expect_error(c, "ERR value is not an integer or out of range", "XADD s LIMIT x * a b");
    expect_error(c, "ERR The LIMIT argument must be >= 0.", "XADD s MAXLEN ~ 1 LIMIT -1 * a b");
    expect_error(c, "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy",
                 "XADD s LIMIT 1 * a b");
    expect_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option",
                 "XADD s MAXLEN 1 LIMIT 1 * a b");
    expect_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option",
                 "XADD s MAXLEN = 1 LIMIT 10 * a b");
    /* LIMIT 0 without a strategy passes the first check (a non-zero limit),
     * not the second */
    expect_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option",
                 "XADD s LIMIT 0 2-0 a b");
    expect_bulk(c, "2-0", "XADD s MAXLEN ~ 5 LIMIT 0 2-0 a b");
    /* a word that is no option is the id */
    expect_error(c, inv, "XADD s FOO * a b");
    expect_error(c, inv, "XADD s + a b");
    expect_error(c, inv, "XADD s - a b");
    expect_error(c, inv, "XADD s 1-x a b");
    expect_error(c, inv, "XADD s 1-1-1 a b");
    expect_error(c, inv, "XADD s -1 a b");
    expect_error(c, inv, "XADD s 5- a b");
    expect_error(c, inv, "XADD s *-1 a b");
    expect_error(c, inv, "XADD s 1-** a b");
    /* the id is parsed before the arity of the pairs is checked */
    expect_error(c, inv, "XADD s MAXLEN 1 x a");
    expect_int(c, 2, "XLEN s");
}
END_TEST

/* ---- XRANGE XREVRANGE XLEN ---- */

START_TEST(xrange_options) {
    redisContext *c = h_c;
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_repr(c, "[]", "XRANGE s - +");
    expect_repr(c, "[]", "XRANGE s - + COUNT 0");  /* a missing key: empty first */
    expect_int(c, 0, "XLEN s");
    char want[64];
    for (int i = 1; i <= 5; i++) {
        snprintf(want, sizeof want, "%d-%d", i, i);
        expect_bulk(c, want, "XADD s %d-%d f %d", i, i, i);
    }
    expect_repr(c, "[[1-1,[f,1]],[2-2,[f,2]]]", "XRANGE s - + COUNT 2");
    expect_repr(c, "[[5-5,[f,5]],[4-4,[f,4]]]", "XREVRANGE s + - COUNT 2");
    expect_repr(c, "[[2-2,[f,2]],[3-3,[f,3]],[4-4,[f,4]]]", "XRANGE s 2 4");
    expect_repr(c, "[[4-4,[f,4]],[3-3,[f,3]],[2-2,[f,2]]]", "XREVRANGE s 4 2");
    expect_repr(c, "[[3-3,[f,3]]]", "XRANGE s (2-2 (4-4");
    expect_repr(c, "[[3-3,[f,3]]]", "XREVRANGE s (4-4 (2-2");
    expect_repr(c, "[[3-3,[f,3]],[4-4,[f,4]]]", "XRANGE s (2-2 4");
    /* an incomplete start has seq 0, an incomplete end the max seq */
    expect_repr(c, "[[3-3,[f,3]]]", "XRANGE s 3 3");
    expect_repr(c, "[[3-3,[f,3]]]", "XRANGE s (3 3");  /* (3-0: from 3-1 to 3-max */
    expect_repr(c, "[]", "XRANGE s (3-3 3");
    expect_repr(c, "[[3-3,[f,3]]]", "XRANGE s (3-2 (3-4");
    expect_repr(c, "[]", "XRANGE s 4 2");
    expect_repr(c, "[]", "XREVRANGE s 2 4");
    expect_repr(c, "[[1-1,[f,1]],[2-2,[f,2]],[3-3,[f,3]],[4-4,[f,4]],[5-5,[f,5]]]",
                "XRANGE s (0-0 +");
    expect_repr(c, "[[5-5,[f,5]]]", "XRANGE s 5 18446744073709551615-18446744073709551615");
    expect_repr(c, "[[1-1,[f,1]]]", "XRANGE s - + COUNT 1 COUNT 1");
    expect_repr(c, "[[1-1,[f,1]],[2-2,[f,2]]]", "XRANGE s - + COUNT 1 count 2");
    /* COUNT 0 and negative: a null array */
    expect_nil(c, "XRANGE s - + COUNT 0");
    expect_nil(c, "XRANGE s - + COUNT -3");
    expect_nil(c, "XREVRANGE s + - COUNT 0");
    /* errors */
    expect_error(c, inv, "XRANGE s (- +");
    expect_error(c, inv, "XRANGE s - (+");
    expect_error(c, inv, "XRANGE s x +");
    expect_error(c, inv, "XRANGE s - 1-x");
    expect_error(c, inv, "XRANGE s ( +");
    expect_error(c, "ERR invalid end ID for the interval", "XRANGE s - (0-0");
    expect_error(c, "ERR invalid start ID for the interval",
                 "XRANGE s (18446744073709551615-18446744073709551615 +");
    expect_error(c, "ERR invalid start ID for the interval",
                 "XREVRANGE s + (18446744073709551615-18446744073709551615");
    /* the start is checked before the end */
    expect_error(c, "ERR invalid start ID for the interval",
                 "XRANGE s (18446744073709551615-18446744073709551615 x");
    expect_error(c, "ERR syntax error", "XRANGE s - + COUNT");
    expect_error(c, "ERR syntax error", "XRANGE s - + FOO 1");
    expect_error(c, "ERR value is not an integer or out of range", "XRANGE s - + COUNT x");
    /* ids before COUNT, COUNT before the type */
    expect_status(c, "OK", "SET str v");
    expect_error(c, "ERR syntax error", "XRANGE str - + FOO");
    expect_error(c, inv, "XRANGE str x +");
}
END_TEST

/* ---- XDEL ---- */

START_TEST(xdel_entries) {
    redisContext *c = h_c;
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_int(c, 0, "XDEL s 1-1");
    expect_int(c, 0, "XDEL s bad");   /* a missing key answers before the ids are read */
    char want[32];
    for (int i = 1; i <= 4; i++) {
        snprintf(want, sizeof want, "%d-0", i);
        expect_bulk(c, want, "XADD s %d-0 f v", i);
    }
    /* every id is checked before anything is deleted */
    expect_error(c, inv, "XDEL s 1-0 bad");
    expect_error(c, inv, "XDEL s 1-0 +");
    expect_error(c, inv, "XDEL s -");
    expect_int(c, 4, "XLEN s");
    expect_int(c, 2, "XDEL s 1-0 3 9-9 1-0");
    expect_int(c, 0, "XDEL s 1-0");
    expect_int(c, 2, "XLEN s");
    expect_repr(c, "[[2-0,[f,v]],[4-0,[f,v]]]", "XRANGE s - +");
    /* deleting every entry keeps an empty stream, and its last id */
    expect_int(c, 2, "XDEL s 2 4");
    expect_int(c, 0, "XLEN s");
    expect_int(c, 1, "EXISTS s");
    expect_repr(c, "[]", "XRANGE s - +");
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD s 4-0 f v");
    expect_bulk(c, "4-1", "XADD s 4-* f v");
}
END_TEST

/* ---- XTRIM ---- */

START_TEST(xtrim_exact) {
    redisContext *c = h_c;
    expect_int(c, 0, "XTRIM s MAXLEN 0");
    char want[32];
    for (int i = 1; i <= 10; i++) {
        snprintf(want, sizeof want, "%d-0", i);
        expect_bulk(c, want, "XADD s %d-0 f %d", i, i);
    }
    expect_int(c, 2, "XTRIM s MAXLEN 8");
    expect_int(c, 0, "XTRIM s MAXLEN = 8");
    expect_int(c, 8, "XLEN s");
    expect_repr(c, "[[3-0,[f,3]]]", "XRANGE s - + COUNT 1");
    expect_int(c, 2, "XTRIM s MINID 5");
    expect_int(c, 0, "XTRIM s MINID = 5-0");
    expect_repr(c, "[[5-0,[f,5]]]", "XRANGE s - + COUNT 1");
    expect_int(c, 1, "XTRIM s MINID 5-1");
    expect_int(c, 5, "XTRIM s MAXLEN 0");
    expect_int(c, 0, "XLEN s");
    expect_int(c, 1, "EXISTS s");
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_error(c, "ERR wrong number of arguments for 'xtrim' command", "XTRIM s MAXLEN");
    expect_error(c, "ERR syntax error, XTRIM must be called with a trimming strategy",
                 "XTRIM s LIMIT 0 LIMIT 0");
    expect_error(c, "ERR syntax error", "XTRIM s FOO 1");
    expect_error(c, "ERR syntax error", "XTRIM s MAXLEN 1 NOMKSTREAM");
    expect_error(c, "ERR syntax error", "XTRIM s MAXLEN 1 *");
    expect_error(c, "ERR value is not an integer or out of range", "XTRIM s MAXLEN ~");
    expect_error(c, "ERR The MAXLEN argument must be >= 0.", "XTRIM s MAXLEN -1");
    expect_error(c, inv, "XTRIM s MINID -");
    expect_error(c, inv, "XTRIM s MINID +");
    expect_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are not compatible",
                 "XTRIM s MAXLEN 1 MINID 1");
    expect_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option",
                 "XTRIM s MAXLEN 1 LIMIT 10");
    expect_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option",
                 "XTRIM s LIMIT 10 MAXLEN 1");
    expect_error(c, "ERR The LIMIT argument must be >= 0.", "XTRIM s MAXLEN ~ 1 LIMIT -1");
    /* parsed before the key is looked at */
    expect_error(c, "ERR The MAXLEN argument must be >= 0.", "XTRIM nokey MAXLEN -1");
    expect_int(c, 0, "XTRIM nokey MAXLEN 0");
}
END_TEST

/* ~ trims whole nodes: with stream-node-max-entries 3, ten entries are
 * nodes [1 2 3] [4 5 6] [7 8 9] [10]. */
static void fill10(redisContext *c, const char *key) {
    char want[32];
    for (int i = 1; i <= 10; i++) {
        snprintf(want, sizeof want, "%d-0", i);
        expect_bulk(c, want, "XADD %s %d-0 f %d", key, i, i);
    }
}

static void expect_first(redisContext *c, const char *key, const char *id) {
    redisReply *r = cmd(c, "XRANGE %s - + COUNT 1", key);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 1, "XRANGE %s", key);
    check_bulk(r->element[0]->element[0], id);
    freeReplyObject(r);
}

START_TEST(xtrim_nodes) {
    srv *s = h_srv_start("--stream-node-max-entries 3");
    redisContext *c = srv_connect(s);
    fill10(c, "a");
    expect_int(c, 3, "XTRIM a MAXLEN ~ 5");   /* the next node would leave 4 < 5 */
    expect_first(c, "a", "4-0");
    expect_int(c, 0, "XTRIM a MAXLEN ~ 5");
    expect_int(c, 3, "XTRIM a MAXLEN ~ 4");
    expect_int(c, 4, "XLEN a");
    fill10(c, "b");
    expect_int(c, 6, "XTRIM b MINID ~ 9");     /* [7 8 9] holds 9: it stays */
    expect_first(c, "b", "7-0");
    expect_int(c, 3, "XTRIM b MINID ~ 10-0");
    fill10(c, "l");
    expect_int(c, 3, "XTRIM l MAXLEN ~ 0 LIMIT 5"); /* a second node would pass 5 */
    expect_int(c, 6, "XTRIM l MAXLEN ~ 0 LIMIT 6");
    expect_int(c, 1, "XTRIM l MAXLEN ~ 0 LIMIT 0"); /* 0: no limit; the last node too */
    expect_int(c, 0, "XLEN l");
    /* deleted entries: a node counts its live ones */
    fill10(c, "d");
    expect_int(c, 2, "XDEL d 1 2");
    expect_int(c, 1, "XTRIM d MAXLEN ~ 7");    /* node [3] goes, 7 left */
    expect_first(c, "d", "4-0");
    /* an exact trim marks entries inside a node */
    expect_int(c, 2, "XTRIM d MAXLEN 5");
    expect_first(c, "d", "6-0");
    expect_int(c, 1, "XTRIM d MAXLEN ~ 3");    /* [6] goes: 4 left, [7 8 9] would leave 1 */
    expect_first(c, "d", "7-0");
    redisFree(c);
}
END_TEST

START_TEST(xtrim_default_limit) {
    srv *s = h_srv_start("--stream-node-max-entries 1");
    redisContext *c = srv_connect(s);
    char want[32];
    for (int i = 1; i <= 250; i++) {
        snprintf(want, sizeof want, "%d-0", i);
        expect_bulk(c, want, "XADD big %d-0 f v", i);
    }
    /* ~ without LIMIT: at most 100 * stream-node-max-entries entries */
    expect_int(c, 100, "XTRIM big MAXLEN ~ 0");
    expect_int(c, 150, "XLEN big");
    expect_bulk(c, "251-0", "XADD big MAXLEN ~ 0 251-0 f v");
    expect_int(c, 51, "XLEN big");
    expect_int(c, 51, "XTRIM big MAXLEN 0");   /* exact: no limit */
    redisFree(c);
}
END_TEST

/* ---- XSETID ---- */

START_TEST(xsetid_checks) {
    redisContext *c = h_c;
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_error(c, "ERR no such key", "XSETID s 1-0");
    expect_error(c, inv, "XSETID s +");
    expect_error(c, inv, "XSETID s x");
    /* options are read before the key */
    expect_error(c, "ERR syntax error", "XSETID s 1-0 FOO");
    expect_error(c, "ERR entries_added must be positive", "XSETID s 1-0 ENTRIESADDED -1");
    expect_error(c, "ERR value is not an integer or out of range", "XSETID s 1-0 ENTRIESADDED x");
    expect_error(c, "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id",
                 "XSETID s 1-0 MAXDELETEDID 2-0");
    expect_error(c, inv, "XSETID s 1-0 MAXDELETEDID -");
    expect_error(c, "ERR syntax error", "XSETID s 1-0 ENTRIESADDED");
    expect_error(c, "ERR syntax error", "XSETID s 5-0 MAXDELETEDID 4-0 FOO");
    expect_bulk(c, "1-0", "XADD s 1-0 a b");
    expect_bulk(c, "5-0", "XADD s 5-0 a b");
    expect_error(c, "ERR The ID specified in XSETID is smaller than the target stream top item",
                 "XSETID s 4-9");
    expect_error(c, "ERR The entries_added specified in XSETID is smaller than the target stream length",
                 "XSETID s 5-0 ENTRIESADDED 1");
    expect_status(c, "OK", "XSETID s 5-0 ENTRIESADDED 2 MAXDELETEDID 3-0");
    expect_status(c, "OK", "XSETID s 100");          /* 100-0 */
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD s 100-0 a b");
    expect_bulk(c, "100-1", "XADD s 100-* a b");
    /* the top live entry counts, not the last id: below it after XDEL */
    expect_int(c, 1, "XDEL s 100-1");
    expect_status(c, "OK", "XSETID s 5-0");
    expect_bulk(c, "6-0", "XADD s 6-0 a b");
    /* an empty stream takes any id */
    expect_int(c, 3, "XTRIM s MAXLEN 0");
    expect_status(c, "OK", "XSETID s 1-0");
    expect_status(c, "OK", "XSETID s 18446744073709551615-18446744073709551615");
    expect_error(c, "ERR The stream has exhausted the last possible ID, unable to add more items",
                 "XADD s * a b");
    expect_status(c, "OK", "SET str v");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XSETID str 1-0");
}
END_TEST

/* ---- XREAD (no BLOCK) ---- */

START_TEST(xread_sync) {
    redisContext *c = h_c;
    const char *inv = "ERR Invalid stream ID specified as stream command argument";
    expect_nil(c, "XREAD STREAMS s 0");
    expect_bulk(c, "1-0", "XADD s 1-0 a 1");
    expect_bulk(c, "2-0", "XADD s 2-0 b 2");
    expect_bulk(c, "3-0", "XADD t 3-0 c 3");
    expect_repr(c, "[[s,[[1-0,[a,1]],[2-0,[b,2]]]]]", "XREAD STREAMS s 0");
    expect_repr(c, "[[s,[[2-0,[b,2]]]],[t,[[3-0,[c,3]]]]]", "XREAD STREAMS s nokey t 1-0 0 0");
    expect_repr(c, "[[s,[[1-0,[a,1]]]],[t,[[3-0,[c,3]]]]]", "XREAD COUNT 1 STREAMS s t 0 0");
    expect_repr(c, "[[s,[[1-0,[a,1]],[2-0,[b,2]]]]]", "XREAD COUNT 0 STREAMS s 0");
    expect_repr(c, "[[s,[[1-0,[a,1]],[2-0,[b,2]]]]]", "XREAD COUNT -5 STREAMS s 0");
    expect_repr(c, "[[s,[[1-0,[a,1]]]],[s,[[2-0,[b,2]]]]]", "XREAD COUNT 1 STREAMS s s 0 1");
    expect_repr(c, "[[t,[[3-0,[c,3]]]]]", "XREAD STREAMS s t 2-0 2");
    expect_nil(c, "XREAD STREAMS s $");
    expect_nil(c, "XREAD STREAMS s t 2 3");
    expect_nil(c, "XREAD COUNT 3 STREAMS nokey $");
    /* the last live entry counts: nothing after 1-0 once 2-0 is deleted */
    expect_int(c, 1, "XDEL s 2-0");
    expect_nil(c, "XREAD STREAMS s 1-0");
    /* errors */
    expect_error(c, "ERR wrong number of arguments for 'xread' command", "XREAD STREAMS s");
    expect_error(c, "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.",
                 "XREAD STREAMS s t 0");
    expect_error(c, "ERR syntax error", "XREAD COUNT 1 STREAMS");
    expect_error(c, "ERR syntax error", "XREAD FOO 1 STREAMS s 0");
    expect_error(c, "ERR syntax error", "XREAD COUNT 1 BLOCK 1 s 0");
    expect_error(c, "ERR value is not an integer or out of range", "XREAD COUNT x STREAMS s 0");
    expect_error(c, "ERR timeout is not an integer or out of range", "XREAD BLOCK 1.5 STREAMS s 0");
    expect_error(c, "ERR timeout is not an integer or out of range", "XREAD BLOCK x STREAMS s 0");
    expect_error(c, "ERR timeout is negative", "XREAD BLOCK -1 STREAMS s 0");
    expect_error(c, "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.",
                 "XREAD GROUP g c STREAMS s 0");
    expect_error(c, "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.",
                 "XREAD NOACK STREAMS s 0");
    expect_error(c, "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.",
                 "XREAD STREAMS s >");
    expect_error(c, inv, "XREAD STREAMS s +");     /* "+" came in 7.4 */
    expect_error(c, inv, "XREAD STREAMS s -");
    expect_error(c, inv, "XREAD STREAMS s x");
    /* ids are read in order, the type checked on the way */
    expect_status(c, "OK", "SET str v");
    expect_error(c, inv, "XREAD STREAMS s str x 0");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XREAD STREAMS str s 0 x");
}
END_TEST

/* RESP3: a map of key -> entries; nothing: a null. Exact bytes. */
static void raw_expect(int fd, const char *send, const char *want) {
    ck_assert_int_eq(raw_send_str(fd, send), 0);
    char got[1024];
    int closed = 0;
    raw_read(fd, got, sizeof got, strlen(want), h_scaled_ms(5000), &closed);
    ck_assert_msg(strcmp(got, want) == 0, "got '%s'\nwant '%s'", got, want);
}

START_TEST(xread_resp3) {
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    expect_bulk(h_c, "2-0", "XADD t 2-0 b 2");
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"), 0);
    char junk[4096];
    int closed = 0;
    raw_read(fd, junk, sizeof junk, sizeof junk - 1, 300, &closed); /* HELLO's map */
    raw_expect(fd, "*6\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$1\r\ns\r\n$1\r\nt\r\n$1\r\n0\r\n$1\r\n0\r\n",
               "%2\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n"
               "$1\r\nt\r\n*1\r\n*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nb\r\n$1\r\n2\r\n");
    raw_expect(fd, "*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$1\r\ns\r\n$1\r\n$\r\n", "_\r\n");
    raw_expect(fd, "*6\r\n$6\r\nXRANGE\r\n$1\r\ns\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nCOUNT\r\n$1\r\n0\r\n",
               "_\r\n");
    raw_expect(fd, "*5\r\n$4\r\nXADD\r\n$1\r\nn\r\n$10\r\nNOMKSTREAM\r\n$1\r\n*\r\n$1\r\na\r\n",
               "-ERR wrong number of arguments for 'xadd' command\r\n");
    raw_expect(fd, "*6\r\n$4\r\nXADD\r\n$1\r\nn\r\n$10\r\nNOMKSTREAM\r\n$1\r\n*\r\n$1\r\na\r\n$1\r\nb\r\n",
               "_\r\n");
    close(fd);
    /* RESP2: the null array and the null bulk */
    fd = raw_connect(h_srv->port);
    raw_expect(fd, "*4\r\n$5\r\nXREAD\r\n$7\r\nSTREAMS\r\n$1\r\ns\r\n$1\r\n$\r\n", "*-1\r\n");
    raw_expect(fd, "*6\r\n$4\r\nXADD\r\n$1\r\nn\r\n$10\r\nNOMKSTREAM\r\n$1\r\n*\r\n$1\r\na\r\n$1\r\nb\r\n",
               "$-1\r\n");
    raw_expect(fd, "*6\r\n$6\r\nXRANGE\r\n$1\r\ns\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nCOUNT\r\n$1\r\n0\r\n",
               "*-1\r\n");
    close(fd);
}
END_TEST

/* ---- streams in the generic commands ---- */

START_TEST(generic_commands) {
    redisContext *c = h_c;
    expect_bulk(c, "1-0", "XADD s 1-0 a 1");
    expect_bulk(c, "2-0", "XADD s 2-0 b 2");
    expect_status(c, "stream", "TYPE s");
    expect_bulk(c, "stream", "OBJECT ENCODING s");
    expect_int_range(c, 1, 1000000, "MEMORY USAGE s");
    expect_int_range(c, 1, 1000000, "MEMORY USAGE s SAMPLES 0");
    /* COPY: an independent stream */
    expect_int(c, 1, "COPY s c");
    expect_bulk(c, "3-0", "XADD c 3-0 x y");
    expect_int(c, 2, "XLEN s");
    expect_int(c, 3, "XLEN c");
    expect_int(c, 0, "COPY s c");
    expect_int(c, 1, "COPY s c REPLACE");
    expect_int(c, 2, "XLEN c");
    /* its last id travels with it */
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD c 2-0 x y");
    expect_status(c, "OK", "RENAME c r");
    expect_int(c, 0, "EXISTS c");
    expect_repr(c, "[[1-0,[a,1]],[2-0,[b,2]]]", "XRANGE r - +");
    expect_int(c, 1, "EXPIRE r 100");
    expect_int_range(c, 1, 100, "TTL r");
    expect_int(c, 1, "PERSIST r");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value", "SORT s");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "SORT s BY nosort");
    expect_error(c, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "SORT_RO s");
    expect_status(c, "OK", "SET str v");
    expect_int(c, 1, "LPUSH l v");
    redisReply *rep = expect_array(c, 2, "SCAN 0 TYPE stream COUNT 100");
    ck_assert_uint_eq(rep->element[1]->elements, 2); /* s and r */
    freeReplyObject(rep);
    expect_repr(c, "[0,[]]", "SCAN 0 TYPE hash COUNT 100");
    expect_int(c, 1, "DEL s");
    expect_int(c, 1, "UNLINK r");
    expect_bulk(c, "1-0", "XADD only 1-0 a b");
    expect_int(c, 2, "DEL str l");
    expect_bulk(c, "only", "RANDOMKEY");
    long long keys = 0;
    char *info = h_info(c, "keyspace"), val[128];
    ck_assert(h_info_field(info, "db0", val, sizeof val));
    free(info);
    ck_assert_msg(sscanf(val, "keys=%lld", &keys) == 1 && keys == 1, "db0:%s", val);
    expect_int(c, 1, "MOVE only 1");
    expect_status(c, "OK", "SELECT 1");
    expect_int(c, 1, "XLEN only");
    expect_status(c, "OK", "FLUSHALL");
    expect_int(c, 0, "EXISTS only");
}
END_TEST

/* ---- keyspace events ('t') ---- */

START_TEST(keyspace_events) {
    redisContext *c = h_c, *sub = srv_connect(h_srv);
    expect_status(c, "OK", "CONFIG SET notify-keyspace-events Et");
    redisReply *r = cmd(sub, "PSUBSCRIBE __keyevent@0__:*");
    freeReplyObject(r);
    expect_bulk(c, "1-0", "XADD s 1-0 a b");
    expect_bulk(c, "2-0", "XADD s MAXLEN 1 2-0 a b");
    expect_int(c, 1, "XDEL s 2-0");
    expect_int(c, 0, "XDEL s 2-0");          /* nothing deleted: no event */
    expect_bulk(c, "3-0", "XADD s 3-0 a b");
    expect_int(c, 0, "XTRIM s MAXLEN 5");    /* nothing trimmed: no event */
    expect_int(c, 1, "XTRIM s MINID 4");
    expect_status(c, "OK", "XSETID s 9-0");
    expect_status(c, "OK", "CONFIG SET notify-keyspace-events Eg");
    expect_int(c, 1, "DEL s");               /* a 'g' event: the end mark */
    const char *events[] = {"xadd", "xadd", "xtrim", "xdel", "xadd", "xtrim", "xsetid", "del"};
    for (size_t i = 0; i < sizeof events / sizeof *events; i++) {
        r = h_next_reply(sub);
        ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 4, "event %zu", i);
        char want[64];
        snprintf(want, sizeof want, "__keyevent@0__:%s", events[i]);
        check_bulk(r->element[2], want);
        check_bulk(r->element[3], "s");
        freeReplyObject(r);
    }
    /* 'A' holds 't' */
    expect_status(c, "OK", "CONFIG SET notify-keyspace-events EA");
    expect_bulk(c, "1-0", "XADD s2 1-0 a b");
    r = h_next_reply(sub);
    check_bulk(r->element[2], "__keyevent@0__:xadd");
    freeReplyObject(r);
    redisFree(sub);
}
END_TEST

/* ---- scripts and MULTI ---- */

START_TEST(scripts_and_multi) {
    redisContext *c = h_c;
    expect_bulk(c, "1-0", "EVAL %s 1 s", "return redis.call('XADD', KEYS[1], '1-0', 'a', 'b')");
    expect_int(c, 1, "EVAL %s 1 s", "return redis.call('XLEN', KEYS[1])");
    expect_repr(c, "[[1-0,[a,b]]]", "EVAL %s 1 s", "return redis.call('XRANGE', KEYS[1], '-', '+')");
    expect_repr(c, "[[s,[[1-0,[a,b]]]]]", "EVAL %s 1 s",
                "return redis.call('XREAD', 'STREAMS', KEYS[1], '0')");
    expect_repr(c, "[[s,[[1-0,[a,b]]]]]", "EVAL_RO %s 1 s",
                "return redis.call('XREAD', 'STREAMS', KEYS[1], '0')");
    expect_error_prefix(c, "ERR xread command is not allowed with BLOCK option from scripts",
                        "EVAL %s 1 s", "return redis.call('xread', 'BLOCK', '0', 'STREAMS', KEYS[1], '$')");
    expect_error_prefix(c, "ERR Write commands are not allowed from read-only scripts",
                        "EVAL_RO %s 1 s", "return redis.call('XADD', KEYS[1], '*', 'a', 'b')");
    expect_error_prefix(c, "ERR The ID specified in XADD is equal or smaller", "EVAL %s 1 s",
                        "return redis.call('XADD', KEYS[1], '1-0', 'a', 'b')");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "XADD s 2-0 c d");
    expect_status(c, "QUEUED", "XLEN s");
    expect_status(c, "QUEUED", "XRANGE s (1-0 +");
    expect_status(c, "QUEUED", "XREAD BLOCK 0 STREAMS s $");  /* may not wait: nil */
    expect_status(c, "QUEUED", "XREAD BLOCK 0 STREAMS s 1-0");
    expect_status(c, "QUEUED", "XTRIM s MAXLEN 1");
    expect_repr(c, "[2-0,:2,[[2-0,[c,d]]],nil,[[s,[[2-0,[c,d]]]]],:1]", "EXEC");
}
END_TEST

/* ---- propagation: the AOF's forms ---- */

/* The INCR file of s (the last one of its manifest), whole. */
static char *incr_file(const srv *s, size_t *len) {
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
    return h_slurp(path, len, 1);
}

/* The AOF's commands as lines of blank-separated words. */
static char *aof_lines(const srv *s) {
    size_t len;
    char *raw = incr_file(s, &len), *out = malloc(len + 1), *p = raw;
    size_t n = 0;
    while (p < raw + len && *p == '*') {
        long argc = strtol(p + 1, &p, 10);
        p += 2;
        for (long i = 0; i < argc; i++) {
            long bl = strtol(p + 1, &p, 10);
            p += 2;
            if (i) out[n++] = ' ';
            memcpy(out + n, p, (size_t)bl);
            n += (size_t)bl;
            p += bl + 2;
        }
        out[n++] = '\n';
    }
    out[n] = '\0';
    free(raw);
    return out;
}

START_TEST(aof_forms) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always --stream-node-max-entries 3");
    redisContext *c = srv_connect(s);
    char want[32];
    for (int i = 1; i <= 10; i++) {
        snprintf(want, sizeof want, "%d-1", i);
        expect_bulk(c, want, "XADD s %d-1 a b", i);
    }
    redisReply *r = cmd(c, "XADD s MAXLEN ~ 5 LIMIT 10 * a b");
    char id1[64];
    snprintf(id1, sizeof id1, "%s", r->str);
    freeReplyObject(r);
    r = cmd(c, "XADD s MAXLEN ~ 2 * a b");
    char id2[64];
    snprintf(id2, sizeof id2, "%s", r->str);
    freeReplyObject(r);
    expect_int(c, 0, "XTRIM s MINID ~ 100 LIMIT 3");  /* nothing: not propagated */
    expect_int(c, 0, "XTRIM s MAXLEN = 100");
    expect_bulk(c, "5-0", "XADD t 5-* a b");
    expect_bulk(c, "6-0", "XADD t 6-0 a b");
    expect_bulk(c, "7-0", "XADD t 7-0 a b");
    expect_bulk(c, "8-0", "XADD t 8-0 a b");
    expect_int(c, 3, "XTRIM t MINID ~ 8-0");
    expect_bulk(c, "9-0", "XADD t MINID ~ 0 9-0 a b");  /* ~ rewritten even when nothing went */
    expect_int(c, 2, "XTRIM s MAXLEN 1");
    expect_int(c, 1, "XDEL t 9-0");
    expect_status(c, "OK", "XSETID t 10-0");
    char *aof = aof_lines(s);
    char line[256];
    snprintf(line, sizeof line, "XADD s MAXLEN = 5 LIMIT 10 %s a b\n", id1);
    ck_assert_msg(strcasestr(aof, line), "no '%s' in:\n%s", line, aof);
    snprintf(line, sizeof line, "XADD s MAXLEN = 3 %s a b\n", id2);
    ck_assert_msg(strcasestr(aof, line), "no '%s' in:\n%s", line, aof);
    ck_assert_msg(!strcasestr(aof, "XTRIM s MINID") && !strcasestr(aof, "MAXLEN = 100"),
                  "a no-op trim in:\n%s", aof);
    ck_assert_msg(strcasestr(aof, "XADD t 5-0 a b\n"), "XADD t 5-0 in:\n%s", aof);
    ck_assert_msg(strcasestr(aof, "XTRIM t MINID = 8-0\n"), "XTRIM t MINID = 8-0 in:\n%s", aof);
    ck_assert_msg(strcasestr(aof, "XADD t MINID = 8-0 9-0 a b\n"), "XADD t MINID = 8-0 in:\n%s",
                  aof);
    ck_assert_msg(strcasestr(aof, "XTRIM s MAXLEN 1\n"), "XTRIM s MAXLEN 1 in:\n%s", aof);
    ck_assert_msg(strcasestr(aof, "XDEL t 9-0\n"), "XDEL in:\n%s", aof);
    ck_assert_msg(strcasestr(aof, "XSETID t 10-0\n"), "XSETID in:\n%s", aof);
    free(aof);
    redisReply *before_s = cmd(c, "XRANGE s - +"), *before_t = cmd(c, "XRANGE t - +");
    redisFree(c);
    /* replayed (the LIMIT kept with `=` is taken from the AOF): the same */
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes --stream-node-max-entries 3");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    char a[4096], b[4096];
    h_repr(before_s, a, sizeof a);
    expect_repr(c, a, "XRANGE s - +");
    h_repr(before_t, b, sizeof b);
    expect_repr(c, b, "XRANGE t - +");
    ck_assert_str_eq(b, "[[8-0,[a,b]]]");
    expect_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream top item",
                 "XADD t 10-0 a b");
    freeReplyObject(before_s);
    freeReplyObject(before_t);
    redisFree(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("stream");
    TCase *tc = tcase_create("stream");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, xadd_ids);
    tcase_add_test(tc, xadd_seq_overflow);
    tcase_add_test(tc, xadd_nomkstream_wrongtype);
    tcase_add_test(tc, xadd_errors);
    tcase_add_test(tc, xrange_options);
    tcase_add_test(tc, xdel_entries);
    tcase_add_test(tc, xtrim_exact);
    tcase_add_test(tc, xtrim_nodes);
    tcase_add_test(tc, xtrim_default_limit);
    tcase_add_test(tc, xsetid_checks);
    tcase_add_test(tc, xread_sync);
    tcase_add_test(tc, xread_resp3);
    tcase_add_test(tc, generic_commands);
    tcase_add_test(tc, keyspace_events);
    tcase_add_test(tc, scripts_and_multi);
    tcase_add_test(tc, aof_forms);
    suite_add_tcase(s, tc);
    return h_main(s);
}
