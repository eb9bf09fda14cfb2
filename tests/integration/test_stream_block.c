/* Integration tests of XREAD BLOCK (cmd_stream.c on src/blocking.c): woken
 * by XADD from another client, "$" standing for the last id when the
 * client blocked, several clients and several keys (only the stream that
 * got data is answered), COUNT (and the default of a served XREAD), an id
 * the new entries do not pass, timeouts, BLOCK 0, MULTI (no waiting inside,
 * XADD inside wakes after EXEC), CLIENT UNBLOCK, a key deleted or replaced
 * by another type, the RESP3 shape of a served reply, scripts. Every test
 * runs against redis-server too (VERSO_SERVER=/usr/bin/redis-server). */
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

static void blocked_now(long long n) {
    h_wait_info(h_c, "clients", "blocked_clients", n, 5000);
}

/* c sends the command and is blocked by it: blocked_clients reaches n. */
#define block(c, n, ...) (h_send(c, __VA_ARGS__), blocked_now(n))

static redisContext *client(void) {
    redisContext *c = srv_connect(h_srv);
    struct timeval tv = {10, 0};
    redisSetTimeout(c, tv);
    return c;
}

static long long client_id(redisContext *c) {
    redisReply *r = cmd(c, "CLIENT ID");
    long long id = r->integer;
    freeReplyObject(r);
    return id;
}

START_TEST(woken_by_xadd) {
    redisContext *b = client();
    block(b, 1, "XREAD BLOCK 0 STREAMS s 0");
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");  /* creates the key */
    next_repr(b, "[[s,[[1-0,[a,1]]]]]");
    blocked_now(0);
    block(b, 1, "XREAD BLOCK 0 STREAMS s 1-0");
    expect_bulk(h_c, "2-0", "XADD s 2-0 b 2");  /* an existing stream */
    next_repr(b, "[[s,[[2-0,[b,2]]]]]");
    /* the client runs its next command afterwards */
    expect_int(b, 2, "XLEN s");
    redisFree(b);
}
END_TEST

START_TEST(dollar) {
    redisContext *b = client();
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_bulk(h_c, "2-0", "XADD s 2-0 b 2");
    next_repr(b, "[[s,[[2-0,[b,2]]]]]");
    /* $ is the last id at block time, also when entries follow before the
     * client is served: both arrive */
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "XADD s 3-0 c 3");
    expect_status(h_c, "QUEUED", "XADD s 4-0 d 4");
    expect_repr(h_c, "[3-0,4-0]", "EXEC");
    next_repr(b, "[[s,[[3-0,[c,3]],[4-0,[d,4]]]]]");
    /* $ on a missing key: everything the new stream gets */
    block(b, 1, "XREAD BLOCK 0 STREAMS nokey $");
    expect_bulk(h_c, "7-0", "XADD nokey 7-0 x y");
    next_repr(b, "[[nokey,[[7-0,[x,y]]]]]");
    /* $ after a XSETID past the top entry */
    expect_status(h_c, "OK", "XSETID s 10-0");
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_bulk(h_c, "10-1", "XADD s 10-* e 5");
    next_repr(b, "[[s,[[10-1,[e,5]]]]]");
    redisFree(b);
}
END_TEST

START_TEST(several_clients) {
    redisContext *b[3];
    for (int i = 0; i < 3; i++) {
        b[i] = client();
        block(b[i], i + 1, "XREAD BLOCK 0 STREAMS s $");
    }
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    for (int i = 0; i < 3; i++) next_repr(b[i], "[[s,[[1-0,[a,1]]]]]");
    blocked_now(0);
    /* each keeps its own id: the one past 1-0 waits */
    expect_repr(b[0], "[[s,[[1-0,[a,1]]]]]", "XREAD BLOCK 0 STREAMS s 0"); /* no wait */
    block(b[1], 1, "XREAD BLOCK 0 STREAMS s 5-0");
    block(b[2], 2, "XREAD BLOCK 0 STREAMS s $");
    expect_bulk(h_c, "3-0", "XADD s 3-0 b 2");
    next_repr(b[2], "[[s,[[3-0,[b,2]]]]]");
    blocked_now(1);
    expect_bulk(h_c, "6-0", "XADD s 6-0 c 3");
    next_repr(b[1], "[[s,[[6-0,[c,3]]]]]");
    blocked_now(0);
    for (int i = 0; i < 3; i++) redisFree(b[i]);
}
END_TEST

START_TEST(several_keys) {
    redisContext *b = client();
    expect_bulk(h_c, "1-0", "XADD a 1-0 x 1");
    block(b, 1, "XREAD BLOCK 0 STREAMS a b $ $");
    expect_bulk(h_c, "2-0", "XADD b 2-0 y 2");
    next_repr(b, "[[b,[[2-0,[y,2]]]]]");   /* only the stream that got data */
    /* two streams written in one transaction: the first signalled answers */
    block(b, 1, "XREAD BLOCK 0 STREAMS a b 1-0 2-0");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "XADD b 3-0 y 3");
    expect_status(h_c, "QUEUED", "XADD a 4-0 x 4");
    expect_repr(h_c, "[3-0,4-0]", "EXEC");
    next_repr(b, "[[b,[[3-0,[y,3]]]]]");
    expect_int(b, 1, "EXISTS a");
    /* another key of the command now of another type: the ready one is
     * served all the same */
    block(b, 1, "XREAD BLOCK 0 STREAMS a b $ $");
    expect_int(h_c, 1, "DEL b");
    expect_status(h_c, "OK", "SET b str");
    expect_bulk(h_c, "5-0", "XADD a 5-0 x 5");
    next_repr(b, "[[a,[[5-0,[x,5]]]]]");
    expect_error(b, "WRONGTYPE Operation against a key holding the wrong kind of value",
                 "XREAD BLOCK 0 STREAMS a b $ $");
    redisFree(b);
}
END_TEST

START_TEST(counts) {
    redisContext *b = client();
    block(b, 1, "XREAD COUNT 2 BLOCK 0 STREAMS s 0");
    expect_status(h_c, "OK", "MULTI");
    for (int i = 1; i <= 3; i++) expect_status(h_c, "QUEUED", "XADD s %d-0 f %d", i, i);
    redisReply *r = expect_array(h_c, 3, "EXEC");
    freeReplyObject(r);
    next_repr(b, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]");
    /* without COUNT a served XREAD gets at most 1000 entries per stream */
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_status(h_c, "OK", "MULTI");
    for (int i = 1; i <= 1005; i++) expect_status(h_c, "QUEUED", "XADD s 9-* f v");
    r = expect_array(h_c, 1005, "EXEC");
    freeReplyObject(r);
    r = h_next_reply(b);
    ck_assert_uint_eq(r->element[0]->element[1]->elements, 1000);
    freeReplyObject(r);
    /* an XREAD that needs no wait answers them all */
    r = expect_array(b, 1, "XREAD BLOCK 0 STREAMS s 3-0");
    ck_assert_uint_eq(r->element[0]->element[1]->elements, 1005);
    freeReplyObject(r);
    redisFree(b);
}
END_TEST

START_TEST(timeouts) {
    redisContext *b = client();
    long long t0 = h_now_ms();
    expect_nil(b, "XREAD BLOCK 150 STREAMS s $");
    long long waited = h_now_ms() - t0;
    ck_assert_msg(waited >= 140 && waited < h_scaled_ms(3000), "waited %lld ms", waited);
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    t0 = h_now_ms();
    expect_nil(b, "XREAD BLOCK 100 STREAMS s 1-0");
    ck_assert(h_now_ms() - t0 >= 90);
    /* data there: no wait at all */
    expect_repr(b, "[[s,[[1-0,[a,1]]]]]", "XREAD BLOCK 100000 STREAMS s 0");
    /* BLOCK 0 waits until data comes */
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    h_sleep_ms(300);
    blocked_now(1);
    expect_bulk(h_c, "2-0", "XADD s 2-0 b 2");
    next_repr(b, "[[s,[[2-0,[b,2]]]]]");
    expect_error(b, "ERR timeout is negative", "XREAD BLOCK -1 STREAMS s $");
    expect_error(b, "ERR timeout is not an integer or out of range", "XREAD BLOCK 0.5 STREAMS s $");
    redisFree(b);
}
END_TEST

START_TEST(transactions) {
    redisContext *b = client();
    /* inside MULTI nothing waits: a nil as on timeout */
    expect_status(b, "OK", "MULTI");
    expect_status(b, "QUEUED", "XREAD BLOCK 0 STREAMS s $");
    expect_repr(b, "[nil]", "EXEC");
    /* XADD in a transaction wakes the reader after EXEC, with everything */
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "XADD s 1-0 a 1");
    expect_status(h_c, "QUEUED", "XADD s 2-0 b 2");
    expect_repr(h_c, "[1-0,2-0]", "EXEC");
    next_repr(b, "[[s,[[1-0,[a,1]],[2-0,[b,2]]]]]");
    /* added then deleted inside: Redis 7.0 serves a blocked reader when the
     * last id moved past its own, with what is left: nothing */
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "XADD s 3-0 c 3");
    expect_status(h_c, "QUEUED", "XDEL s 3-0");
    expect_repr(h_c, "[3-0,:1]", "EXEC");
    next_repr(b, "[[s,[]]]");
    /* XREAD that need not wait compares the last live entry: it waits */
    block(b, 1, "XREAD BLOCK 0 STREAMS s 2-0");
    expect_bulk(h_c, "4-0", "XADD s 4-0 d 4");
    next_repr(b, "[[s,[[4-0,[d,4]]]]]");
    redisFree(b);
}
END_TEST

START_TEST(client_unblock) {
    redisContext *b = client();
    long long id = client_id(b);
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld", id);
    expect_nil(b, "PING x");  /* the nil of a timeout... */
    redisReply *r = h_next_reply(b);  /* ...then its next command */
    freeReplyObject(r);
    blocked_now(0);
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld ERROR", id);
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
    freeReplyObject(r);
    expect_int(h_c, 0, "CLIENT UNBLOCK %lld", id);
    redisFree(b);
}
END_TEST

START_TEST(key_replaced) {
    redisContext *b = client();
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    block(b, 1, "XREAD BLOCK 0 STREAMS s $");
    /* deleted and made a list: XREAD waits on (only XREADGROUP is told) */
    expect_int(h_c, 1, "DEL s");
    expect_int(h_c, 1, "LPUSH s x");
    h_sleep_ms(100);
    blocked_now(1);
    expect_int(h_c, 1, "DEL s");
    expect_status(h_c, "OK", "SET s v");
    expect_int(h_c, 1, "DEL s");
    h_sleep_ms(50);
    blocked_now(1);
    /* a new stream: its entries are after the old last id? no: the id was
     * resolved to 1-0, so a new entry 1-0 is not served, 2-0 is */
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    h_sleep_ms(50);
    blocked_now(1);
    expect_bulk(h_c, "2-0", "XADD s 2-0 b 2");
    next_repr(b, "[[s,[[2-0,[b,2]]]]]");
    redisFree(b);
}
END_TEST

/* A served reply in RESP3: a map of one key. */
START_TEST(served_resp3) {
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n"), 0);
    char buf[4096];
    int closed = 0;
    raw_read(fd, buf, sizeof buf, sizeof buf - 1, 300, &closed);
    ck_assert_int_eq(raw_send_str(fd, "*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$1\r\n0\r\n$7\r\nSTREAMS"
                                      "\r\n$1\r\ns\r\n$1\r\n$\r\n"),
                     0);
    blocked_now(1);
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    const char *want = "%1\r\n$1\r\ns\r\n*1\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\na\r\n$1\r\n1\r\n";
    raw_read(fd, buf, sizeof buf, strlen(want), h_scaled_ms(5000), &closed);
    ck_assert_msg(strcmp(buf, want) == 0, "got '%s'", buf);
    /* a timeout in RESP3: a null */
    ck_assert_int_eq(raw_send_str(fd, "*6\r\n$5\r\nXREAD\r\n$5\r\nBLOCK\r\n$2\r\n50\r\n$7\r\nSTREAMS"
                                      "\r\n$1\r\ns\r\n$1\r\n$\r\n"),
                     0);
    raw_read(fd, buf, sizeof buf, 3, h_scaled_ms(5000), &closed);
    ck_assert_str_eq(buf, "_\r\n");
    close(fd);
}
END_TEST

/* Pipelined commands wait behind a blocked XREAD; a disconnect while
 * blocked leaves nothing behind. */
START_TEST(pipeline_and_close) {
    redisContext *b = client();
    h_send(b, "XREAD BLOCK 0 STREAMS s $");
    h_send(b, "XLEN s");
    blocked_now(1);
    expect_bulk(h_c, "1-0", "XADD s 1-0 a 1");
    next_repr(b, "[[s,[[1-0,[a,1]]]]]");
    next_repr(b, ":1");
    block(b, 1, "XREAD BLOCK 0 STREAMS s t $ $");
    redisFree(b);
    blocked_now(0);
    expect_bulk(h_c, "2-0", "XADD s 2-0 a 1");
    expect_bulk(h_c, "3-0", "XADD t 3-0 a 1");
    expect_int(h_c, 2, "XLEN s");
}
END_TEST

int main(void) {
    Suite *s = suite_create("stream_block");
    TCase *tc = tcase_create("stream_block");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, woken_by_xadd);
    tcase_add_test(tc, dollar);
    tcase_add_test(tc, several_clients);
    tcase_add_test(tc, several_keys);
    tcase_add_test(tc, counts);
    tcase_add_test(tc, timeouts);
    tcase_add_test(tc, transactions);
    tcase_add_test(tc, client_unblock);
    tcase_add_test(tc, key_replaced);
    tcase_add_test(tc, served_resp3);
    tcase_add_test(tc, pipeline_and_close);
    suite_add_tcase(s, tc);
    return h_main(s);
}
