/* Integration tests: the list commands (LPUSH RPUSH LPUSHX RPUSHX LPOP RPOP
 * LLEN LINDEX LSET LINSERT LRANGE LREM LTRIM LPOS LMOVE RPOPLPUSH LMPOP) and
 * the blocking ones where they answer at once (served, inside MULTI, on
 * timeout: BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP), against a real server with
 * Redis 7.0's replies and error texts; OBJECT ENCODING and Redis's quicklist
 * node rule; a 100k-element list; WATCH; what the AOF receives for the
 * commands propagated in another form (served at once or after blocking);
 * and a randomized test against a C model. Each test gets a fresh server (h_setup)
 * and its client h_c. Wake-ups and fairness are test_blocking's. */
#include "harness.h"

#include "t_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* Checks that the list at key holds exactly the space-separated words of
 * want ("" for an absent key), via LRANGE 0 -1 and LLEN. */
#define expect_list(c, key, want) expect_list_at(__FILE__, __LINE__, c, key, want)
static void expect_list_at(const char *file, int line, redisContext *c, const char *key,
                           const char *want) {
    char *copy = strdup(want), *save = NULL;
    const char *words[256];
    size_t n = 0;
    for (char *w = strtok_r(copy, " ", &save); w && n < 256; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    redisReply *r = h_cmd(file, line, c, "LRANGE %s 0 -1", key);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY, "%s:%d: LRANGE %s: not an array", file, line,
                  key);
    ck_assert_msg(r->elements == n, "%s:%d: LRANGE %s: %zu elements, want %zu (%s)", file,
                  line, key, r->elements, n, want);
    for (size_t i = 0; i < n; i++)
        h_check(file, line, r->element[i], H_WANT(H_BULK, words[i], 0, 0));
    freeReplyObject(r);
    r = h_cmd(file, line, c, "LLEN %s", key);
    h_check(file, line, r, H_WANT(H_INT, NULL, (long long)n, (long long)n));
    freeReplyObject(r);
    r = h_cmd(file, line, c, "EXISTS %s", key);
    h_check(file, line, r, H_WANT(H_INT, NULL, n ? 1 : 0, n ? 1 : 0));
    freeReplyObject(r);
    free(copy);
}

/* Checks an array reply of bulk strings against space-separated words. */
#define expect_words(c, want, ...) \
    expect_words_at(__FILE__, __LINE__, want, h_cmd(__FILE__, __LINE__, c, __VA_ARGS__))
static void expect_words_at(const char *file, int line, const char *want, redisReply *r) {
    char *copy = strdup(want), *save = NULL;
    size_t n = 0;
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY, "%s:%d: not an array (type %d)", file, line,
                  r->type);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        ck_assert_msg(n < r->elements, "%s:%d: only %zu elements, want %s", file, line,
                      r->elements, want);
        h_check(file, line, r->element[n++], H_WANT(H_BULK, w, 0, 0));
    }
    ck_assert_msg(n == r->elements, "%s:%d: %zu elements, want %zu", file, line, r->elements,
                  n);
    freeReplyObject(r);
    free(copy);
}

/* Checks an array reply of integers. */
static void expect_ints_at(const char *file, int line, redisReply *r, const long long *v,
                           size_t n) {
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == n,
                  "%s:%d: want an array of %zu", file, line, n);
    for (size_t i = 0; i < n; i++) h_check(file, line, r->element[i], H_WANT(H_INT, NULL, v[i], v[i]));
    freeReplyObject(r);
}
#define expect_ints(c, v, n, ...) \
    expect_ints_at(__FILE__, __LINE__, h_cmd(__FILE__, __LINE__, c, __VA_ARGS__), v, n)

/* The exact bytes of one reply to a raw command (RESP2), to tell the null
 * array (*-1) from the null bulk string ($-1), which hiredis merges. */
static void expect_raw(int fd, const char *command, const char *want) {
    char buf[256];
    int closed = 0;
    ck_assert_int_eq(raw_send_str(fd, command), 0);
    size_t n = raw_read(fd, buf, sizeof buf, strlen(want), h_scaled_ms(5000), &closed);
    buf[n] = 0;
    ck_assert_msg(n == strlen(want) && memcmp(buf, want, n) == 0, "%s: got '%s', want '%s'",
                  command, buf, want);
}

START_TEST(push_pop_basic)
{
    redisContext *c = h_c;
    expect_int(c, 0, "LPUSHX l a");
    expect_int(c, 0, "RPUSHX l a b");
    expect_int(c, 0, "EXISTS l");
    expect_int(c, 3, "LPUSH l a b c");
    expect_list(c, "l", "c b a");
    expect_int(c, 5, "RPUSH l d e");
    expect_list(c, "l", "c b a d e");
    expect_int(c, 7, "LPUSHX l x y");
    expect_int(c, 8, "RPUSHX l z");
    expect_list(c, "l", "y x c b a d e z");
    expect_bulk(c, "y", "LPOP l");
    expect_bulk(c, "z", "RPOP l");
    expect_words(c, "x c", "LPOP l 2");
    expect_words(c, "e d", "RPOP l 2");
    expect_words(c, "", "LPOP l 0");
    expect_words(c, "", "RPOP l 0");
    expect_list(c, "l", "b a");
    expect_words(c, "a b", "RPOP l 10");
    expect_int(c, 0, "EXISTS l");
    /* absent key: nil, also with a count (a null array) and count 0 */
    expect_nil(c, "LPOP l");
    expect_nil(c, "RPOP l");
    expect_nil(c, "LPOP l 3");
    expect_nil(c, "RPOP l 0");
    /* count errors come before the lookup */
    expect_error(c, ERR_POSITIVE, "LPOP l -1");
    expect_error(c, ERR_POSITIVE, "RPOP l abc");
    expect_error(c, "ERR wrong number of arguments for 'lpop' command", "LPOP l 1 2");
    expect_int(c, 1, "RPUSH one v");
    expect_bulk(c, "v", "LPOP one");
    expect_int(c, 0, "EXISTS one");
    /* binary-safe elements, the empty one too */
    expect_int(c, 2, "RPUSH b %b %s", "a\0b\r\n", (size_t)5, "");
    redisReply *r = cmd(c, "LPOP b");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 5);
    ck_assert(memcmp(r->str, "a\0b\r\n", 5) == 0);
    freeReplyObject(r);
    expect_bulk(c, "", "LPOP b");
    expect_int(c, 0, "EXISTS b");
    /* integers stay strings as sent */
    expect_int(c, 3, "RPUSH n 007 -0 12");
    expect_list(c, "n", "007 -0 12");
}
END_TEST

START_TEST(null_kinds)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s v");
    int fd = raw_connect(h_srv->port);
    expect_raw(fd, "LPOP nokey\r\n", "$-1\r\n");
    expect_raw(fd, "LPOP nokey 2\r\n", "*-1\r\n");
    expect_raw(fd, "LPOP nokey 0\r\n", "*-1\r\n");
    expect_raw(fd, "RPUSH l a\r\n", ":1\r\n");
    expect_raw(fd, "LPOP l 0\r\n", "*0\r\n");
    expect_raw(fd, "LMPOP 1 nokey LEFT\r\n", "*-1\r\n");
    expect_raw(fd, "LINDEX l 5\r\n", "$-1\r\n");
    expect_raw(fd, "LPOS l x\r\n", "$-1\r\n");
    expect_raw(fd, "LPOS l x COUNT 0\r\n", "*0\r\n");
    expect_raw(fd, "LMOVE nokey l LEFT LEFT\r\n", "$-1\r\n");
    expect_raw(fd, "RPOPLPUSH nokey l\r\n", "$-1\r\n");
    /* inside MULTI a blocking command answers at once as on timeout */
    expect_raw(fd, "MULTI\r\n", "+OK\r\n");
    expect_raw(fd, "BLPOP nokey 0\r\n", "+QUEUED\r\n");
    expect_raw(fd, "BRPOP nokey 0\r\n", "+QUEUED\r\n");
    expect_raw(fd, "BLMOVE nokey l LEFT LEFT 0\r\n", "+QUEUED\r\n");
    expect_raw(fd, "BRPOPLPUSH nokey l 0\r\n", "+QUEUED\r\n");
    expect_raw(fd, "BLMPOP 0 1 nokey LEFT\r\n", "+QUEUED\r\n");
    expect_raw(fd, "EXEC\r\n", "*5\r\n*-1\r\n*-1\r\n$-1\r\n$-1\r\n*-1\r\n");
    /* a timed-out client gets a null array whatever its command (Redis
     * 7.0's replyToBlockedClientTimedOut) */
    expect_raw(fd, "BLPOP nokey 0.01\r\n", "*-1\r\n");
    expect_raw(fd, "BLMOVE nokey l LEFT LEFT 0.01\r\n", "*-1\r\n");
    expect_raw(fd, "BRPOPLPUSH nokey l 0.01\r\n", "*-1\r\n");
    expect_raw(fd, "BLMPOP 0.01 1 nokey LEFT\r\n", "*-1\r\n");
    close(fd);
}
END_TEST

START_TEST(arity_and_wrongtype)
{
    redisContext *c = h_c;
    const char *cases[][2] = {
        {"LPUSH l", "lpush"},        {"RPUSH", "rpush"},       {"LPUSHX l", "lpushx"},
        {"RPUSHX l", "rpushx"},      {"LPOP", "lpop"},         {"RPOP", "rpop"},
        {"LLEN", "llen"},            {"LLEN a b", "llen"},     {"LINDEX l", "lindex"},
        {"LSET l 0", "lset"},        {"LINSERT l before p", "linsert"},
        {"LRANGE l 0", "lrange"},    {"LREM l 0", "lrem"},     {"LTRIM l 0", "ltrim"},
        {"LPOS l", "lpos"},          {"LMOVE a b left", "lmove"},
        {"RPOPLPUSH a", "rpoplpush"}, {"LMPOP 1 a", "lmpop"},   {"BLPOP l", "blpop"},
        {"BRPOP l", "brpop"},        {"BLMOVE a b left left", "blmove"},
        {"BRPOPLPUSH a b", "brpoplpush"}, {"BLMPOP 0 1 a", "blmpop"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "ERR wrong number of arguments for '%s' command",
                 cases[i][1]);
        expect_error(c, want, cases[i][0]);
    }
    expect_status(c, "OK", "SET s v");
    expect_int(c, 1, "RPUSH l a");
    const char *wrong[] = {
        "LPUSH s a", "RPUSH s a", "LPUSHX s a", "RPUSHX s a", "LPOP s", "RPOP s 2",
        "LLEN s", "LINDEX s 0", "LSET s 0 x", "LINSERT s before a b", "LRANGE s 0 -1",
        "LREM s 0 a", "LTRIM s 0 1", "LPOS s a", "LMOVE s l left left", "LMOVE l s left left",
        "RPOPLPUSH s l", "RPOPLPUSH l s", "LMPOP 2 nokey s LEFT", "BLPOP nokey s 0",
        "BRPOP s 0", "BLMOVE s l left left 0", "BLMOVE l s left left 0",
        "BRPOPLPUSH s l 0", "BLMPOP 0 1 s RIGHT",
    };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) expect_error(c, ERR_WRONGTYPE, wrong[i]);
    expect_bulk(c, "v", "GET s");
    expect_list(c, "l", "a");
    /* the first list with data is served before a later key of another type */
    expect_words(c, "l a", "BLPOP nokey l s 0");
    /* an absent source never looks at the destination */
    expect_nil(c, "LMOVE nokey s left right");
    expect_nil(c, "RPOPLPUSH nokey s");
    /* string commands on a list */
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "GET l");
    expect_status(c, "list", "TYPE l");
}
END_TEST

START_TEST(lindex_lset)
{
    redisContext *c = h_c;
    expect_nil(c, "LINDEX l 0");
    expect_nil(c, "LINDEX l notanint");  /* the lookup comes first */
    expect_error(c, "ERR no such key", "LSET l 0 x");
    expect_error(c, "ERR no such key", "LSET l x x");
    expect_int(c, 5, "RPUSH l a b c d e");
    expect_bulk(c, "a", "LINDEX l 0");
    expect_bulk(c, "c", "LINDEX l 2");
    expect_bulk(c, "e", "LINDEX l 4");
    expect_bulk(c, "e", "LINDEX l -1");
    expect_bulk(c, "a", "LINDEX l -5");
    expect_nil(c, "LINDEX l 5");
    expect_nil(c, "LINDEX l -6");
    expect_nil(c, "LINDEX l 9223372036854775807");
    expect_nil(c, "LINDEX l -9223372036854775808");
    expect_error(c, ERR_INT, "LINDEX l 1.5");
    expect_error(c, ERR_INT, "LINDEX l 9223372036854775808");
    expect_status(c, "OK", "LSET l 0 A");
    expect_status(c, "OK", "LSET l -1 E");
    expect_status(c, "OK", "LSET l -3 C");
    expect_list(c, "l", "A b C d E");
    expect_error(c, "ERR index out of range", "LSET l 5 x");
    expect_error(c, "ERR index out of range", "LSET l -6 x");
    expect_error(c, "ERR index out of range", "LSET l -9223372036854775808 x");
    expect_error(c, ERR_INT, "LSET l one x");
    expect_status(c, "OK", "LSET l 1 %s", "");
    expect_bulk(c, "", "LINDEX l 1");
}
END_TEST

START_TEST(linsert_pivots)
{
    redisContext *c = h_c;
    expect_int(c, 0, "LINSERT l BEFORE a x");
    expect_int(c, 0, "EXISTS l");
    expect_error(c, ERR_SYNTAX, "LINSERT l middle a x");
    expect_int(c, 3, "RPUSH l a b a");
    expect_error(c, ERR_SYNTAX, "LINSERT l middle a x");
    expect_int(c, -1, "LINSERT l before zz x");
    expect_int(c, 4, "LINSERT l before a x");   /* the first a */
    expect_list(c, "l", "x a b a");
    expect_int(c, 5, "LINSERT l AFTER a y");
    expect_list(c, "l", "x a y b a");
    expect_int(c, 6, "LINSERT l after b z");
    expect_int(c, 7, "linsert l After x w");
    expect_int(c, 8, "LINSERT l bEfOrE x v");
    expect_list(c, "l", "v x w a y b z a");
    /* the last element as pivot, inserting after it */
    expect_int(c, 2, "RPUSH t p q");
    expect_int(c, 3, "LINSERT t after q r");
    expect_list(c, "t", "p q r");
    expect_int(c, 4, "LINSERT t before p o");
    expect_list(c, "t", "o p q r");
    expect_int(c, -1, "LINSERT t before %s x", "");
    expect_int(c, 5, "LINSERT t after r %s", "");
    expect_int(c, 6, "LINSERT t before %s s", "");
    expect_bulk(c, "", "LINDEX t -1");
    expect_bulk(c, "s", "LINDEX t -2");
    expect_bulk(c, "r", "LINDEX t -3");
    expect_int(c, 6, "LLEN t");
}
END_TEST

START_TEST(lrange_ranges)
{
    redisContext *c = h_c;
    expect_words(c, "", "LRANGE l 0 -1");
    expect_error(c, ERR_INT, "LRANGE l a 1");
    expect_error(c, ERR_INT, "LRANGE l 0 b");
    expect_int(c, 6, "RPUSH l 0 1 2 3 4 5");
    expect_words(c, "0 1 2 3 4 5", "LRANGE l 0 -1");
    expect_words(c, "0 1 2 3 4 5", "LRANGE l -100 100");
    expect_words(c, "1 2", "LRANGE l 1 2");
    expect_words(c, "4 5", "LRANGE l -2 -1");
    expect_words(c, "5", "LRANGE l 5 5");
    expect_words(c, "", "LRANGE l 6 10");
    expect_words(c, "", "LRANGE l 3 2");
    expect_words(c, "", "LRANGE l -1 -2");
    expect_words(c, "0", "LRANGE l -7 0");
    expect_words(c, "", "LRANGE l 0 -7");
    expect_words(c, "0 1 2 3 4 5",
                 "LRANGE l -9223372036854775808 9223372036854775807");
    expect_words(c, "", "LRANGE l 9223372036854775807 -9223372036854775808");
    expect_error(c, ERR_INT, "LRANGE l 0 9223372036854775808");
}
END_TEST

START_TEST(lrem_counts)
{
    redisContext *c = h_c;
    expect_int(c, 0, "LREM l 0 a");
    expect_error(c, ERR_INT, "LREM l x a");
    expect_int(c, 9, "RPUSH l a b a a c a b a a");
    expect_int(c, 2, "LREM l 2 a");
    expect_list(c, "l", "b a c a b a a");
    expect_int(c, 2, "LREM l -2 a");
    expect_list(c, "l", "b a c a b");
    expect_int(c, 0, "LREM l 1 zz");
    expect_int(c, 2, "LREM l 0 a");
    expect_list(c, "l", "b c b");
    expect_int(c, 2, "LREM l -100 b");
    expect_list(c, "l", "c");
    expect_int(c, 1, "LREM l 1 c");
    expect_int(c, 0, "EXISTS l");
    /* runs of neighbours, from both ends */
    expect_int(c, 8, "RPUSH r x x y x x x y x");
    expect_int(c, 5, "LREM r -5 x");
    expect_list(c, "r", "x y y");
    expect_int(c, 1, "LREM r 9223372036854775807 x");
    expect_int(c, 2, "LREM r -9223372036854775808 y");
    expect_int(c, 0, "EXISTS r");
}
END_TEST

START_TEST(ltrim_ranges)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "LTRIM l 0 1");
    expect_error(c, ERR_INT, "LTRIM l a 1");
    expect_int(c, 6, "RPUSH l 0 1 2 3 4 5");
    expect_status(c, "OK", "LTRIM l 0 -1");
    expect_list(c, "l", "0 1 2 3 4 5");
    expect_status(c, "OK", "LTRIM l 1 -2");
    expect_list(c, "l", "1 2 3 4");
    expect_status(c, "OK", "LTRIM l -3 100");
    expect_list(c, "l", "2 3 4");
    expect_status(c, "OK", "LTRIM l 1 1");
    expect_list(c, "l", "3");
    expect_status(c, "OK", "LTRIM l 1 0");
    expect_int(c, 0, "EXISTS l");
    expect_int(c, 3, "RPUSH l a b c");
    expect_status(c, "OK", "LTRIM l 5 10");
    expect_int(c, 0, "EXISTS l");
    expect_int(c, 3, "RPUSH l a b c");
    expect_status(c, "OK", "LTRIM l 0 -4");
    expect_int(c, 0, "EXISTS l");
    expect_int(c, 3, "RPUSH l a b c");
    expect_status(c, "OK", "LTRIM l -100 0");
    expect_list(c, "l", "a");
}
END_TEST

START_TEST(lpos_options)
{
    redisContext *c = h_c;
    expect_nil(c, "LPOS l a");
    expect_words(c, "", "LPOS l a COUNT 2");
    expect_int(c, 8, "RPUSH l a b c 1 2 3 c c");
    expect_int(c, 2, "LPOS l c");
    expect_int(c, 6, "LPOS l c RANK 2");
    expect_int(c, 7, "LPOS l c RANK -1");
    expect_int(c, 6, "LPOS l c RANK -2");
    expect_int(c, 2, "LPOS l c RANK -3");
    expect_nil(c, "LPOS l c RANK 4");
    expect_nil(c, "LPOS l c RANK -4");
    expect_nil(c, "LPOS l zz");
    long long all[] = {2, 6, 7}, two[] = {2, 6}, back[] = {7, 6, 2}, mid[] = {6, 7};
    expect_ints(c, all, 3, "LPOS l c COUNT 0");
    expect_ints(c, two, 2, "LPOS l c COUNT 2");
    expect_ints(c, back, 3, "LPOS l c COUNT 0 RANK -1");
    expect_ints(c, mid, 2, "LPOS l c RANK 2 COUNT 5");
    expect_ints(c, all, 0, "LPOS l zz COUNT 1");
    /* MAXLEN bounds the comparisons, from the side RANK starts at */
    expect_nil(c, "LPOS l c MAXLEN 2");
    expect_int(c, 2, "LPOS l c MAXLEN 3");
    expect_ints(c, two, 1, "LPOS l c COUNT 0 MAXLEN 6");
    expect_ints(c, back, 2, "LPOS l c RANK -1 COUNT 0 MAXLEN 2");
    expect_int(c, 2, "LPOS l c MAXLEN 0");
    expect_int(c, 6, "lpos l c rank 1 maxlen 100 rank 2");
    /* errors */
    expect_error(c,
                 "ERR RANK can't be zero: use 1 to start from the first match, 2 from the "
                 "second ... or use negative to start from the end of the list",
                 "LPOS l c RANK 0");
    expect_error(c, ERR_INT, "LPOS l c RANK x");
    expect_error(c, "ERR COUNT can't be negative", "LPOS l c COUNT -1");
    expect_error(c, "ERR COUNT can't be negative", "LPOS l c COUNT x");
    expect_error(c, "ERR MAXLEN can't be negative", "LPOS l c MAXLEN -1");
    expect_error(c, ERR_SYNTAX, "LPOS l c FOO");
    expect_error(c, ERR_SYNTAX, "LPOS l c RANK");
    expect_error(c, ERR_SYNTAX, "LPOS l c COUNT 1 MAXLEN");
    /* options are checked before the key */
    expect_error(c, "ERR COUNT can't be negative", "LPOS nokey c COUNT -1");
}
END_TEST

START_TEST(lmove_rpoplpush)
{
    redisContext *c = h_c;
    expect_nil(c, "LMOVE a b LEFT RIGHT");
    expect_error(c, ERR_SYNTAX, "LMOVE a b UP RIGHT");
    expect_error(c, ERR_SYNTAX, "LMOVE a b LEFT DOWN");
    expect_int(c, 4, "RPUSH a 1 2 3 4");
    expect_bulk(c, "1", "LMOVE a b LEFT RIGHT");
    expect_bulk(c, "4", "LMOVE a b RIGHT RIGHT");
    expect_bulk(c, "2", "lmove a b left left");
    expect_list(c, "a", "3");
    expect_list(c, "b", "2 1 4");
    expect_bulk(c, "3", "LMOVE a b RIGHT LEFT");
    expect_int(c, 0, "EXISTS a");
    expect_list(c, "b", "3 2 1 4");
    /* source == destination rotates */
    expect_bulk(c, "3", "LMOVE b b LEFT RIGHT");
    expect_list(c, "b", "2 1 4 3");
    expect_bulk(c, "3", "LMOVE b b RIGHT LEFT");
    expect_list(c, "b", "3 2 1 4");
    expect_bulk(c, "3", "LMOVE b b LEFT LEFT");
    expect_list(c, "b", "3 2 1 4");
    expect_bulk(c, "4", "RPOPLPUSH b b");
    expect_list(c, "b", "4 3 2 1");
    expect_int(c, 1, "RPUSH one x");
    expect_bulk(c, "x", "LMOVE one one LEFT RIGHT");
    expect_list(c, "one", "x");
    expect_bulk(c, "x", "RPOPLPUSH one one");
    expect_list(c, "one", "x");
    /* RPOPLPUSH to another key, emptying the source */
    expect_bulk(c, "1", "RPOPLPUSH b c");
    expect_bulk(c, "x", "RPOPLPUSH one c");
    expect_int(c, 0, "EXISTS one");
    expect_list(c, "c", "x 1");
    expect_nil(c, "RPOPLPUSH one c");
    /* a wrong-type destination changes nothing */
    expect_status(c, "OK", "SET s v");
    expect_error(c, ERR_WRONGTYPE, "LMOVE b s LEFT LEFT");
    expect_list(c, "b", "4 3 2");
}
END_TEST

START_TEST(lmpop_forms)
{
    redisContext *c = h_c;
    expect_nil(c, "LMPOP 2 a b LEFT");
    expect_error(c, "ERR numkeys should be greater than 0", "LMPOP 0 a LEFT");
    expect_error(c, "ERR numkeys should be greater than 0", "LMPOP -1 a LEFT");
    expect_error(c, "ERR numkeys should be greater than 0", "LMPOP x a LEFT");
    expect_error(c, ERR_SYNTAX, "LMPOP 2 a LEFT");
    expect_error(c, ERR_SYNTAX, "LMPOP 9223372036854775807 a LEFT");
    expect_error(c, ERR_SYNTAX, "LMPOP 1 a MIDDLE");
    expect_error(c, ERR_SYNTAX, "LMPOP 1 a LEFT COUNT");
    expect_error(c, ERR_SYNTAX, "LMPOP 1 a LEFT COUNT 1 COUNT 2");
    expect_error(c, ERR_SYNTAX, "LMPOP 1 a LEFT FOO 1");
    expect_error(c, "ERR count should be greater than 0", "LMPOP 1 a LEFT COUNT 0");
    expect_error(c, "ERR count should be greater than 0", "LMPOP 1 a LEFT COUNT x");
    expect_int(c, 3, "RPUSH b 1 2 3");
    expect_int(c, 2, "RPUSH c x y");
    redisReply *r = expect_array(c, 2, "LMPOP 3 a b c LEFT");
    check_bulk(r->element[0], "b");
    ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->element[1]->elements, 1);
    check_bulk(r->element[1]->element[0], "1");
    freeReplyObject(r);
    r = expect_array(c, 2, "LMPOP 2 b c RIGHT COUNT 5");
    check_bulk(r->element[0], "b");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[0], "3");
    check_bulk(r->element[1]->element[1], "2");
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS b");
    r = expect_array(c, 2, "lmpop 2 b c left count 1");
    check_bulk(r->element[0], "c");
    check_bulk(r->element[1]->element[0], "x");
    freeReplyObject(r);
    expect_list(c, "c", "y");
}
END_TEST

/* The blocking commands when they need not block: data is there (served at
 * once, as the non-blocking form), bad arguments, a short timeout. */
START_TEST(blocking_at_once)
{
    redisContext *c = h_c;
    expect_int(c, 4, "RPUSH l a b c d");
    expect_words(c, "l a", "BLPOP nokey l 0");
    expect_words(c, "l d", "BRPOP l nokey 1.5");
    expect_bulk(c, "b", "BLMOVE l m LEFT RIGHT 0");
    expect_bulk(c, "c", "BRPOPLPUSH l m 0");
    expect_int(c, 0, "EXISTS l");
    expect_list(c, "m", "c b");
    redisReply *r = expect_array(c, 2, "BLMPOP 0 2 nokey m RIGHT COUNT 10");
    check_bulk(r->element[0], "m");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[0], "b");
    check_bulk(r->element[1]->element[1], "c");
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS m");
    /* timeouts */
    expect_error(c, "ERR timeout is negative", "BLPOP l -1");
    expect_error(c, "ERR timeout is not a float or out of range", "BLPOP l abc");
    expect_error(c, "ERR timeout is not a float or out of range", "BRPOP l 1x");
    expect_error(c, "ERR timeout is negative", "BLMOVE l m LEFT LEFT -0.5");
    expect_error(c, "ERR timeout is not a float or out of range", "BRPOPLPUSH l m x");
    expect_error(c, ERR_SYNTAX, "BLMOVE l m LEFT UP 0");
    expect_error(c, ERR_SYNTAX, "BLMOVE l m UP LEFT x");
    /* BLMPOP checks numkeys, side and count before the timeout */
    expect_error(c, "ERR numkeys should be greater than 0", "BLMPOP x 0 l LEFT");
    expect_error(c, ERR_SYNTAX, "BLMPOP x 1 l MIDDLE");
    expect_error(c, "ERR count should be greater than 0", "BLMPOP x 1 l LEFT COUNT 0");
    expect_error(c, "ERR timeout is negative", "BLMPOP -1 1 l LEFT");
    expect_error(c, "ERR timeout is not a float or out of range", "BLMPOP x 1 l LEFT");
    /* nothing comes: the timeout's nil */
    expect_nil(c, "BLPOP l 0.05");
    expect_nil(c, "BRPOP l m 0.05");
    expect_nil(c, "BLMOVE l m LEFT LEFT 0.05");
    expect_nil(c, "BRPOPLPUSH l m 0.05");
    expect_nil(c, "BLMPOP 0.05 2 l m LEFT");
    expect_int(c, 0, "EXISTS l m");
}
END_TEST

/* Whether a command touches a WATCHed key as Redis 7.0 does: every
 * change, and LTRIM even when it trims nothing; not a write that finds
 * nothing to do (LREM, LINSERT without the pivot, a pop of 0). */
static int dirties_watch(redisContext *c, redisContext *other, const char *command) {
    expect_status(c, "OK", "WATCH l");
    redisReply *r = cmd(other, command);
    ck_assert_int_ne(r->type, REDIS_REPLY_ERROR);
    freeReplyObject(r);
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "PING");
    r = cmd(c, "EXEC");
    int dirty = r->type == REDIS_REPLY_NIL;
    freeReplyObject(r);
    return dirty;
}

START_TEST(watch_touches)
{
    redisContext *c = h_c, *o = srv_connect(h_srv);
    expect_int(c, 4, "RPUSH l a b c d");
    ck_assert(dirties_watch(c, o, "LTRIM l 0 -1"));
    ck_assert(!dirties_watch(c, o, "LREM l 0 zz"));
    ck_assert(!dirties_watch(c, o, "LINSERT l BEFORE zz x"));
    ck_assert(!dirties_watch(c, o, "LPOP l 0"));
    ck_assert(!dirties_watch(c, o, "LPOS l a"));
    ck_assert(!dirties_watch(c, o, "LMOVE nokey l LEFT LEFT"));
    ck_assert(dirties_watch(c, o, "LSET l 0 a"));
    ck_assert(dirties_watch(c, o, "LMOVE l l LEFT RIGHT"));
    ck_assert(dirties_watch(c, o, "LINSERT l BEFORE a x"));
    ck_assert(dirties_watch(c, o, "LREM l 1 x"));
    ck_assert(dirties_watch(c, o, "RPUSHX l y"));
    ck_assert(dirties_watch(c, o, "LMOVE other l LEFT LEFT") == 0);
    ck_assert(dirties_watch(c, o, "RPOPLPUSH l other"));
    ck_assert(dirties_watch(c, o, "RPOPLPUSH other l"));
    ck_assert(dirties_watch(c, o, "LMPOP 1 l LEFT COUNT 100"));
    expect_int(c, 0, "EXISTS l");
    redisFree(o);
}
END_TEST

START_TEST(encoding)
{
    redisContext *c = h_c;
    /* Redis 7.0 reports every list as a quicklist (listpack lists are 7.2) */
    expect_int(c, 1, "RPUSH small a");
    expect_bulk(c, "quicklist", "OBJECT ENCODING small");
    for (int i = 0; i < 300; i++) expect_int(c, i + 1, "RPUSH big %0100d", i);
    expect_bulk(c, "quicklist", "OBJECT ENCODING big");
    expect_status(c, "OK", "CONFIG SET list-max-listpack-size 4");
    expect_int(c, 1, "RPUSH p x");
    expect_bulk(c, "quicklist", "OBJECT ENCODING p");
    expect_status(c, "OK", "CONFIG SET list-max-ziplist-size -5");
    redisReply *r = expect_array(c, 2, "CONFIG GET list-max-listpack-size");
    check_bulk(r->element[1], "-5");
    freeReplyObject(r);
    expect_status(c, "list", "TYPE p");
}
END_TEST

/* RPUSH n elements "<prefix><i>" in batches. */
static void push_many(redisContext *c, const char *key, long from, long n) {
    enum { BATCH = 1000 };
    const char *argv[BATCH + 2];
    size_t lens[BATCH + 2];
    char (*bufs)[24] = malloc(BATCH * sizeof *bufs);
    for (long done = 0; done < n;) {
        int k = (int)(n - done < BATCH ? n - done : BATCH);
        argv[0] = "RPUSH";
        lens[0] = 5;
        argv[1] = key;
        lens[1] = strlen(key);
        for (int i = 0; i < k; i++) {
            lens[i + 2] = (size_t)snprintf(bufs[i], sizeof bufs[i], "%ld", from + done + i);
            argv[i + 2] = bufs[i];
        }
        redisReply *r = redisCommandArgv(c, k + 2, argv, lens);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        done += k;
        ck_assert_int_eq(r->integer, done);
        freeReplyObject(r);
    }
    free(bufs);
}

/* LRANGE start end of a list of consecutive numbers from `first`. */
static void expect_seq(redisContext *c, const char *key, long start, long end, long first) {
    redisReply *r = cmd(c, "LRANGE %s %ld %ld", key, start, end);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, (size_t)(end - start + 1));
    for (size_t i = 0; i < r->elements; i++) {
        char want[24];
        snprintf(want, sizeof want, "%ld", first + (long)i);
        check_bulk(r->element[i], want);
    }
    freeReplyObject(r);
}

START_TEST(big_list)
{
    redisContext *c = h_c;
    const long n = 100000;
    push_many(c, "big", 0, n);
    expect_int(c, n, "LLEN big");
    expect_bulk(c, "50000", "LINDEX big 50000");
    expect_bulk(c, "49999", "LINDEX big -50001");
    expect_bulk(c, "99999", "LINDEX big -1");
    expect_nil(c, "LINDEX big 100000");
    expect_seq(c, "big", 0, 99, 0);
    expect_seq(c, "big", 49990, 50010, 49990);
    expect_seq(c, "big", 99900, 99999, 99900);
    redisReply *r = expect_array(c, n, "LRANGE big 0 -1");
    check_bulk(r->element[77777], "77777");
    freeReplyObject(r);
    /* positional writes in the middle */
    expect_status(c, "OK", "LSET big 50000 mid");
    expect_bulk(c, "mid", "LINDEX big 50000");
    expect_int(c, n + 1, "LINSERT big BEFORE mid new");
    expect_bulk(c, "new", "LINDEX big 50000");
    expect_bulk(c, "mid", "LINDEX big 50001");
    expect_int(c, 50000, "LPOS big new");
    expect_int(c, 1, "LREM big 1 new");
    expect_status(c, "OK", "LSET big 50000 50000");
    /* trims */
    expect_status(c, "OK", "LTRIM big 1000 -1001");
    expect_int(c, n - 2000, "LLEN big");
    expect_bulk(c, "1000", "LINDEX big 0");
    expect_bulk(c, "98999", "LINDEX big -1");
    expect_seq(c, "big", 49000, 49010, 50000);
    expect_status(c, "OK", "LTRIM big 10 19");
    expect_seq(c, "big", 0, 9, 1010);
    /* pops with counts over many nodes */
    push_many(c, "big2", 0, n);
    r = expect_array(c, 60000, "LPOP big2 60000");
    check_bulk(r->element[59999], "59999");
    freeReplyObject(r);
    r = expect_array(c, 40000, "RPOP big2 70000");
    check_bulk(r->element[0], "99999");
    check_bulk(r->element[39999], "60000");
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS big2");
}
END_TEST

/* What the AOF receives: the blocking commands served at once and LMPOP in
 * their non-blocking forms, as Redis 7.0 propagates them. */
START_TEST(aof_propagation)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_int(c, 6, "RPUSH l a b c d e f");
    expect_words(c, "l a", "BLPOP l 0");
    expect_words(c, "l f", "BRPOP l 0");
    expect_bulk(c, "b", "BLMOVE l m LEFT RIGHT 0");
    expect_bulk(c, "e", "BRPOPLPUSH l m 0");
    redisReply *r = expect_array(c, 2, "BLMPOP 0 1 l LEFT COUNT 5");
    freeReplyObject(r);
    r = expect_array(c, 2, "LMPOP 1 m RIGHT COUNT 1");
    freeReplyObject(r);
    expect_status(c, "OK", "LTRIM m 0 -1");   /* trims nothing: not propagated */
    expect_int(c, 0, "LREM m 0 zz");
    /* blocked, then served: the same forms */
    redisContext *b = srv_connect(s);
    ck_assert_int_eq(redisAppendCommand(b, "BLMPOP 0 2 n1 n2 RIGHT COUNT 3"), REDIS_OK);
    ck_assert_int_eq(redisAppendCommand(b, "BRPOPLPUSH n3 n4 0"), REDIS_OK);
    ck_assert_int_eq(redisBufferWrite(b, &(int){0}), REDIS_OK);
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 2, "LPUSH n2 p q");
    redisReply *br;
    ck_assert_int_eq(redisGetReply(b, (void **)&br), REDIS_OK);
    ck_assert(br->type == REDIS_REPLY_ARRAY && br->elements == 2);
    check_bulk(br->element[0], "n2");
    ck_assert_uint_eq(br->element[1]->elements, 2);
    check_bulk(br->element[1]->element[0], "p");
    check_bulk(br->element[1]->element[1], "q");
    freeReplyObject(br);
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "RPUSH n3 z");
    ck_assert_int_eq(redisGetReply(b, (void **)&br), REDIS_OK);
    check_bulk(br, "z");
    freeReplyObject(br);
    redisFree(b);
    expect_int(c, 1, "RPUSH done x");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.1.incr.aof", s->dir);
    size_t len;
    char *aof = h_slurp(path, &len, 1);
    const char *want[] = {
        "*2\r\n$4\r\nLPOP\r\n$1\r\nl\r\n",
        "*2\r\n$4\r\nRPOP\r\n$1\r\nl\r\n",
        "*5\r\n$5\r\nLMOVE\r\n$1\r\nl\r\n$1\r\nm\r\n$4\r\nLEFT\r\n$5\r\nRIGHT\r\n",
        "*3\r\n$9\r\nRPOPLPUSH\r\n$1\r\nl\r\n$1\r\nm\r\n",
        "*3\r\n$4\r\nLPOP\r\n$1\r\nl\r\n$1\r\n2\r\n",
        "*3\r\n$4\r\nRPOP\r\n$1\r\nm\r\n$1\r\n1\r\n",
        "*4\r\n$5\r\nLPUSH\r\n$2\r\nn2\r\n$1\r\np\r\n$1\r\nq\r\n",
        "*3\r\n$4\r\nRPOP\r\n$2\r\nn2\r\n$1\r\n2\r\n",
        "*3\r\n$5\r\nRPUSH\r\n$2\r\nn3\r\n$1\r\nz\r\n",
        "*3\r\n$9\r\nRPOPLPUSH\r\n$2\r\nn3\r\n$2\r\nn4\r\n",
        "*3\r\n$5\r\nRPUSH\r\n$4\r\ndone\r\n$1\r\nx\r\n",
    };
    const char *at = aof;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const char *f = strstr(at, want[i]);
        ck_assert_msg(f, "AOF lacks (in order) entry %zu; AOF:\n%s", i, aof);
        at = f + strlen(want[i]);
    }
    ck_assert_msg(!strstr(aof, "BLPOP") && !strstr(aof, "BRPOP") && !strstr(aof, "BLM") &&
                      !strstr(aof, "BRPOPLPUSH") && !strstr(aof, "LTRIM") &&
                      !strstr(aof, "LREM") && !strstr(aof, "LMPOP"),
                  "AOF holds a form it should not:\n%s", aof);
    free(aof);
    redisFree(c);
}
END_TEST

/* ---- Redis 7.0's quicklist node rule (t_list.h), checked on Redis ---- */

/* An element of one of the listpack encodings' classes. */
static size_t qn_elem(char *buf, size_t cap, unsigned *seed) {
    static const long long ints[] = {0, 127, 128, -1, 4095, -4096, 4096, 32767, -32769,
                                     8388607, 8388608, 2147483647, -2147483649LL,
                                     9223372036854775807LL};
    int kind = rand_r(seed) % 5;
    if (kind == 0)
        return (size_t)snprintf(buf, cap, "%lld", ints[rand_r(seed) % 14]);
    size_t n = kind == 1 ? 1 + (size_t)rand_r(seed) % 63
             : kind == 2 ? 64 + (size_t)rand_r(seed) % 300
             : kind == 3 ? 4090 + (size_t)rand_r(seed) % 20
                         : 10 + (size_t)rand_r(seed) % 40;
    memset(buf, 'a' + rand_r(seed) % 26, n);
    return n;
}

/* The ql_* figure of DEBUG OBJECT's line. */
static long long debug_field(const char *line, const char *name) {
    const char *p = strstr(line, name);
    ck_assert_msg(p, "no %s in '%s'", name, line);
    return atoll(p + strlen(name));
}

/* list_lp_entry_bytes and list_node_allows cut a list into the nodes Redis
 * 7.0 makes (ql_nodes) holding the listpack bytes it counts
 * (ql_uncompressed_size), for every kind of list-max-listpack-size. */
START_TEST(quicklist_nodes_match_redis)
{
    srv *s = srv_start_redis(NULL);
    redisContext *c = srv_connect(s);
    static const int fills[] = {-1, -2, -3, -4, -5, -6, 1, 7, 128, 1000};
    char *buf = malloc(8192);
    unsigned seed = 7;
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        expect_status(c, "OK", "CONFIG SET list-max-listpack-size %d", fills[f]);
        expect_int_range(c, 0, 1, "DEL l");
        long long nodes = 0;
        size_t node_bytes = 0, node_count = 0, total = 0;
        for (int i = 0; i < 1500; i++) {
            size_t n = qn_elem(buf, 8192, &seed);
            size_t eb = list_lp_entry_bytes(buf, n);
            if (!nodes || !list_node_allows(node_bytes, node_count, n, fills[f])) {
                nodes++;
                total += 7;
                node_bytes = 7;
                node_count = 0;
            }
            node_bytes += eb;
            node_count++;
            total += eb;
            expect_int(c, i + 1, "RPUSH l %b", buf, n);
        }
        redisReply *r = cmd(c, "DEBUG OBJECT l");
        ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
        ck_assert_msg(debug_field(r->str, "ql_nodes:") == nodes &&
                          debug_field(r->str, "ql_uncompressed_size:") == (long long)total,
                      "fill %d: redis %s; computed %lld nodes, %zu bytes", fills[f], r->str,
                      nodes, total);
        freeReplyObject(r);
    }
    free(buf);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- randomized model test ---- */

typedef struct model {
    char **v;
    size_t n, cap;
} model;

static void m_insert(model *m, size_t at, const char *s) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
    }
    memmove(m->v + at + 1, m->v + at, (m->n - at) * sizeof *m->v);
    m->v[at] = strdup(s);
    m->n++;
}

static void m_delete(model *m, size_t at) {
    free(m->v[at]);
    memmove(m->v + at, m->v + at + 1, (m->n - at - 1) * sizeof *m->v);
    m->n--;
}

/* Redis's index rule: 1 and *at when index is in range. */
static int m_rank(const model *m, long idx, size_t *at) {
    if (idx < 0) idx += (long)m->n;
    if (idx < 0 || idx >= (long)m->n) return 0;
    *at = (size_t)idx;
    return 1;
}

static void m_check(redisContext *c, const model *m, const char *key) {
    redisReply *r = cmd(c, "LRANGE %s 0 -1", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, m->n);
    for (size_t i = 0; i < m->n; i++) check_bulk(r->element[i], m->v[i]);
    freeReplyObject(r);
    expect_int(c, m->n ? 1 : 0, "EXISTS %s", key);
}

/* One of 8 elements, "e<k>" and 7k x's: long enough that a list of a few
 * hundred spans several tree leaves. */
static void m_elem(char *buf, size_t cap, unsigned *seed) {
    int k = rand_r(seed) % 8;
    int n = snprintf(buf, cap, "e%d", k);
    memset(buf + n, 'x', (size_t)k * 7);
    buf[n + k * 7] = 0;
}

static void m_random_op(redisContext *c, model *m, unsigned *seed) {
    char e[64];
    m_elem(e, sizeof e, seed);
    long idx = (long)((size_t)rand_r(seed) % (m->n + 6)) - (long)(m->n + 6) / 2;
    size_t at;
    redisReply *r;
    int op = rand_r(seed) % 16;
    if (op >= 12) op = 0;
    switch (op) {
    case 0: /* LPUSH / RPUSH, a bias to grow */
    case 1: {
        int head = rand_r(seed) % 2, k = 1 + rand_r(seed) % 8;
        char elems[8][64];
        const char *argv[10] = {head ? "LPUSH" : "RPUSH", "m"};
        for (int i = 0; i < k; i++) {
            m_elem(elems[i], sizeof elems[i], seed);
            argv[i + 2] = elems[i];
            m_insert(m, head ? 0 : m->n, elems[i]);
        }
        r = redisCommandArgv(c, k + 2, argv, NULL);
        ck_assert_ptr_nonnull(r);
        check_int(r, (long long)m->n);
        freeReplyObject(r);
        break;
    }
    case 2: { /* LPOP / RPOP with or without a count */
        int head = rand_r(seed) % 2;
        long cnt = rand_r(seed) % 4;
        if (rand_r(seed) % 2) {
            if (!m->n) {
                expect_nil(c, "%s m", head ? "LPOP" : "RPOP");
                break;
            }
            expect_bulk(c, m->v[head ? 0 : m->n - 1], "%s m", head ? "LPOP" : "RPOP");
            m_delete(m, head ? 0 : m->n - 1);
            break;
        }
        r = cmd(c, "%s m %ld", head ? "LPOP" : "RPOP", cnt);
        if (!m->n) {
            ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
        } else {
            size_t k = (size_t)cnt < m->n ? (size_t)cnt : m->n;
            ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
            ck_assert_uint_eq(r->elements, k);
            for (size_t i = 0; i < k; i++) {
                check_bulk(r->element[i], m->v[head ? 0 : m->n - 1]);
                m_delete(m, head ? 0 : m->n - 1);
            }
        }
        freeReplyObject(r);
        break;
    }
    case 3: /* LINDEX */
        if (m_rank(m, idx, &at)) expect_bulk(c, m->v[at], "LINDEX m %ld", idx);
        else expect_nil(c, "LINDEX m %ld", idx);
        break;
    case 4: /* LSET */
        if (!m->n) expect_error(c, "ERR no such key", "LSET m %ld %s", idx, e);
        else if (!m_rank(m, idx, &at)) expect_error(c, "ERR index out of range", "LSET m %ld %s", idx, e);
        else {
            expect_status(c, "OK", "LSET m %ld %s", idx, e);
            free(m->v[at]);
            m->v[at] = strdup(e);
        }
        break;
    case 5: { /* LINSERT */
        char pivot[64];
        m_elem(pivot, sizeof pivot, seed);
        int after = rand_r(seed) % 2;
        size_t p = 0;
        while (p < m->n && strcmp(m->v[p], pivot)) p++;
        long long want = !m->n ? 0 : p == m->n ? -1 : (long long)m->n + 1;
        expect_int(c, want, "LINSERT m %s %s %s", after ? "AFTER" : "BEFORE", pivot, e);
        if (want > 0) m_insert(m, p + (size_t)after, e);
        break;
    }
    case 6: { /* LRANGE */
        long s = (long)((size_t)rand_r(seed) % (m->n + 4)) - 2, t = idx;
        r = cmd(c, "LRANGE m %ld %ld", s, t);
        long ln = (long)m->n;
        if (s < 0) s += ln;
        if (t < 0) t += ln;
        if (s < 0) s = 0;
        if (t >= ln) t = ln - 1;
        size_t k = (s > t || s >= ln) ? 0 : (size_t)(t - s + 1);
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(r->elements, k);
        for (size_t i = 0; i < k; i++) check_bulk(r->element[i], m->v[(size_t)s + i]);
        freeReplyObject(r);
        break;
    }
    case 7: { /* LREM */
        long cnt = (long)(rand_r(seed) % 5) - 2;
        long long removed = 0;
        if (cnt >= 0) {
            for (size_t i = 0; i < m->n && (!cnt || removed < cnt);) {
                if (!strcmp(m->v[i], e)) {
                    m_delete(m, i);
                    removed++;
                } else {
                    i++;
                }
            }
        } else {
            for (size_t i = m->n; i-- > 0 && removed < -cnt;)
                if (!strcmp(m->v[i], e)) {
                    m_delete(m, i);
                    removed++;
                }
        }
        expect_int(c, removed, "LREM m %ld %s", cnt, e);
        break;
    }
    case 8: { /* LTRIM by a few at each end */
        long s = (long)(rand_r(seed) % 3), t = -1 - (long)(rand_r(seed) % 3);
        expect_status(c, "OK", "LTRIM m %ld %ld", s, t);
        long ln = (long)m->n, ts = s, te = t + ln;
        if (te >= ln) te = ln - 1;
        if (ts > te || ts >= ln) {
            while (m->n) m_delete(m, 0);
        } else {
            while ((long)m->n > te + 1) m_delete(m, m->n - 1);
            for (long i = 0; i < ts; i++) m_delete(m, 0);
        }
        break;
    }
    case 9: { /* LPOS with RANK */
        long rank = (rand_r(seed) % 2 ? 1 : -1) * (long)(1 + rand_r(seed) % 2);
        long found = -1, seen = 0;
        for (size_t i = 0; i < m->n; i++) {
            size_t j = rank > 0 ? i : m->n - 1 - i;
            if (!strcmp(m->v[j], e) && ++seen == labs(rank)) {
                found = (long)j;
                break;
            }
        }
        if (found < 0) expect_nil(c, "LPOS m %s RANK %ld", e, rank);
        else expect_int(c, found, "LPOS m %s RANK %ld", e, rank);
        break;
    }
    case 10: { /* LMOVE within the key */
        int from = rand_r(seed) % 2, to = rand_r(seed) % 2;
        if (!m->n) {
            expect_nil(c, "LMOVE m m %s %s", from ? "LEFT" : "RIGHT", to ? "LEFT" : "RIGHT");
            break;
        }
        char *v = strdup(m->v[from ? 0 : m->n - 1]);
        expect_bulk(c, v, "LMOVE m m %s %s", from ? "LEFT" : "RIGHT", to ? "LEFT" : "RIGHT");
        m_delete(m, from ? 0 : m->n - 1);
        m_insert(m, to ? 0 : m->n, v);
        free(v);
        break;
    }
    default: /* LLEN */
        expect_int(c, (long long)m->n, "LLEN m");
        break;
    }
}

START_TEST(random_model)
{
    redisContext *c = h_c;
    model m = {0};
    unsigned seed = 12345;
    size_t longest = 0;
    for (int i = 0; i < 4000; i++) {
        m_random_op(c, &m, &seed);
        if (m.n > longest) longest = m.n;
        if (i % 200 == 0) m_check(c, &m, "m");
    }
    m_check(c, &m, "m");
    /* the list grew over many leaves (and may have emptied on the way) */
    ck_assert_msg(longest >= 300, "longest %zu", longest);
    while (m.n) m_delete(&m, 0);
    free(m.v);
}
END_TEST

/* SORT LIMIT with a huge count or offset: Redis 7.0 clamps both to the
 * number of elements before computing the end (no overflow). */
START_TEST(sort_limit_huge) {
    expect_int(h_c, 5, "RPUSH l 5 4 3 2 1");
    redisReply *r = expect_array(h_c, 3, "SORT l LIMIT 2 9223372036854775807");
    check_bulk(r->element[0], "3");
    check_bulk(r->element[2], "5");
    freeReplyObject(r);
    r = expect_array(h_c, 3, "SORT l ALPHA DESC LIMIT 2 9223372036854775807 GET #");
    check_bulk(r->element[0], "3");
    freeReplyObject(r);
    r = expect_array(h_c, 0, "SORT l LIMIT 9223372036854775807 9223372036854775807");
    freeReplyObject(r);
    r = expect_array(h_c, 5, "SORT l LIMIT -9223372036854775808 9223372036854775807");
    freeReplyObject(r);
    expect_int(h_c, 4, "SORT l BY nosort LIMIT 1 9223372036854775807 STORE d");
    expect_bulk(h_c, "4", "LINDEX d 0");
}
END_TEST

/* LPOS RANK -2^63: Redis 7.0 negates the rank in place, where it stays
 * negative: every match from the tail qualifies and COUNT never stops the
 * walk (MAXLEN still does). */
START_TEST(lpos_rank_llong_min) {
    expect_int(h_c, 5, "RPUSH l a b a c a");
    expect_int(h_c, 4, "LPOS l a RANK -9223372036854775808");
    redisReply *r = expect_array(h_c, 3, "LPOS l a RANK -9223372036854775808 COUNT 1");
    check_int(r->element[0], 4);
    check_int(r->element[1], 2);
    check_int(r->element[2], 0);
    freeReplyObject(r);
    r = expect_array(h_c, 3, "LPOS l a COUNT 0 RANK -9223372036854775808");
    freeReplyObject(r);
    r = expect_array(h_c, 2, "LPOS l a RANK -9223372036854775808 COUNT 2 MAXLEN 3");
    check_int(r->element[1], 2);
    freeReplyObject(r);
    r = expect_array(h_c, 0, "LPOS l a RANK -9223372036854775807 COUNT 0");
    freeReplyObject(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("list");
    TCase *tc = tcase_create("list");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, push_pop_basic);
    tcase_add_test(tc, sort_limit_huge);
    tcase_add_test(tc, lpos_rank_llong_min);
    tcase_add_test(tc, null_kinds);
    tcase_add_test(tc, arity_and_wrongtype);
    tcase_add_test(tc, lindex_lset);
    tcase_add_test(tc, linsert_pivots);
    tcase_add_test(tc, lrange_ranges);
    tcase_add_test(tc, lrem_counts);
    tcase_add_test(tc, ltrim_ranges);
    tcase_add_test(tc, lpos_options);
    tcase_add_test(tc, lmove_rpoplpush);
    tcase_add_test(tc, lmpop_forms);
    tcase_add_test(tc, blocking_at_once);
    tcase_add_test(tc, watch_touches);
    tcase_add_test(tc, encoding);
    tcase_add_test(tc, big_list);
    tcase_add_test(tc, random_model);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "aof_propagation", aof_propagation, 60);
    h_add_tcase(s, "quicklist_nodes_match_redis", quicklist_nodes_match_redis, 60, NULL, NULL);
    return h_main(s);
}
