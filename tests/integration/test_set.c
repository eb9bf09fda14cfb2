/* Integration tests: the set commands (SADD SREM SCARD SISMEMBER SMISMEMBER
 * SMEMBERS SRANDMEMBER SPOP SMOVE SINTER SINTERCARD SUNION SDIFF, the STORE
 * forms, SSCAN) against a real server, with Redis 7.0's replies, errors,
 * encodings (OBJECT ENCODING), reply orders where Redis defines them (an
 * intset iterates in ascending order), propagation to the AOF, and a
 * randomized model test. Each test gets a fresh server (h_setup) and its
 * client h_c; the same program passes against redis-server 7.0. */
#include "harness.h"
#include "testcmp.h"
#include "testrand.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_POSITIVE "ERR value is out of range, must be positive"

/* ---- helpers ---- */

/* The blank-separated words of s (heap copies in a NULL-ended array). */
static char **words(const char *s, size_t *n)
{
    char **v = calloc(strlen(s) + 2, sizeof *v);
    char *dup = strdup(s), *save = NULL;
    *n = 0;
    for (char *w = strtok_r(dup, " ", &save); w; w = strtok_r(NULL, " ", &save))
        v[(*n)++] = strdup(w);
    free(dup);
    return v;
}

static void free_words(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

/* Checks that array reply r holds exactly the words of want: in that order
 * (ordered) or in any order. */
static void check_members(const char *file, int line, const redisReply *r, int ordered,
                          const char *want)
{
    if (r->type != REDIS_REPLY_ARRAY)
        _ck_assert_failed(file, line, "Failed", "want an array, got type %d (%s)", r->type,
                          r->str ? r->str : "");
    size_t n;
    char **w = words(want, &n);
    char **got = calloc(r->elements + 1, sizeof *got);
    for (size_t i = 0; i < r->elements; i++) {
        if (r->element[i]->type != REDIS_REPLY_STRING)
            _ck_assert_failed(file, line, "Failed", "element %zu is not a bulk", i);
        got[i] = r->element[i]->str;
    }
    if (!ordered) {
        qsort(w, n, sizeof *w, cmp_str);
        qsort(got, r->elements, sizeof *got, cmp_str);
    }
    int ok = n == r->elements;
    for (size_t i = 0; ok && i < n; i++)
        ok = strcmp(w[i], got[i]) == 0;
    if (!ok) {
        char buf[2048];
        size_t len = 0;
        buf[0] = '\0';
        for (size_t i = 0; i < r->elements && len < sizeof buf - 64; i++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s ", got[i]);
        free(got);
        free_words(w, n);
        _ck_assert_failed(file, line, "Failed", "want [%s]%s, got [%s]", want,
                          ordered ? " in order" : "", buf);
    }
    free(got);
    free_words(w, n);
}

static void expect_members(const char *file, int line, redisContext *c, int ordered,
                           const char *want, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (!r)
        _ck_assert_failed(file, line, "Failed", "no reply: %s", c->errstr);
    check_members(file, line, r, ordered, want);
    freeReplyObject(r);
}

/* The reply must hold exactly these members, in any order / in order. */
#define expect_set(c, want, ...) expect_members(__FILE__, __LINE__, c, 0, want, __VA_ARGS__)
#define expect_seq(c, want, ...) expect_members(__FILE__, __LINE__, c, 1, want, __VA_ARGS__)

static int has_str(const redisReply *r, const char *s)
{
    for (size_t i = 0; i < r->elements; i++)
        if (strcmp(r->element[i]->str, s) == 0)
            return 1;
    return 0;
}

/* Every element of array r is distinct. */
static int all_distinct(const redisReply *r)
{
    for (size_t i = 0; i < r->elements; i++)
        for (size_t j = i + 1; j < r->elements; j++)
            if (strcmp(r->element[i]->str, r->element[j]->str) == 0)
                return 0;
    return 1;
}

/* Array r lists integers in strictly ascending order. */
static int ascending_ints(const redisReply *r)
{
    for (size_t i = 1; i < r->elements; i++)
        if (atoll(r->element[i - 1]->str) >= atoll(r->element[i]->str))
            return 0;
    return 1;
}

/* ---- basics ---- */

START_TEST(sadd_srem_scard)
{
    redisContext *c = h_c;
    expect_int(c, 3, "SADD s a b c");
    expect_int(c, 1, "SADD s a b d");
    expect_int(c, 0, "SADD s a a a");
    expect_int(c, 4, "SCARD s");
    expect_status(c, "set", "TYPE s");
    expect_set(c, "a b c d", "SMEMBERS s");
    expect_int(c, 1, "SISMEMBER s a");
    expect_int(c, 0, "SISMEMBER s zz");
    expect_int(c, 0, "SISMEMBER nokey a");
    redisReply *r = expect_array(c, 4, "SMISMEMBER s a zz d a");
    check_int(r->element[0], 1);
    check_int(r->element[1], 0);
    check_int(r->element[2], 1);
    check_int(r->element[3], 1);
    freeReplyObject(r);
    r = expect_array(c, 2, "SMISMEMBER nokey a b");
    check_int(r->element[0], 0);
    check_int(r->element[1], 0);
    freeReplyObject(r);
    expect_int(c, 0, "SCARD nokey");
    expect_set(c, "", "SMEMBERS nokey");

    expect_int(c, 2, "SREM s a zz b a");
    expect_int(c, 0, "SREM s a");
    expect_int(c, 0, "SREM nokey a");
    expect_int(c, 0, "EXISTS nokey");
    expect_int(c, 2, "SCARD s");
    /* removing the last member deletes the key */
    expect_int(c, 2, "SREM s c d x");
    expect_int(c, 0, "EXISTS s");
    expect_status(c, "none", "TYPE s");

    /* binary-safe members, the empty member */
    const char bin[] = "a\0b\r\nc";
    expect_int(c, 2, "SADD b %b %s", bin, sizeof bin - 1, "");
    expect_int(c, 1, "SISMEMBER b %b", bin, sizeof bin - 1);
    expect_int(c, 0, "SISMEMBER b a");
    expect_int(c, 1, "SISMEMBER b %s", "");
    r = expect_array(c, 2, "SMEMBERS b");
    int saw_bin = 0, saw_empty = 0;
    for (size_t i = 0; i < 2; i++) {
        saw_bin |= r->element[i]->len == sizeof bin - 1 &&
                   memcmp(r->element[i]->str, bin, sizeof bin - 1) == 0;
        saw_empty |= r->element[i]->len == 0;
    }
    ck_assert(saw_bin && saw_empty);
    freeReplyObject(r);

    /* a big member */
    size_t big = 100000;
    char *m = malloc(big);
    memset(m, 'x', big);
    expect_int(c, 1, "SADD b %b", m, big);
    expect_int(c, 1, "SISMEMBER b %b", m, big);
    expect_int(c, 1, "SREM b %b", m, big);
    expect_int(c, 0, "SISMEMBER b %b", m, big);
    free(m);
}
END_TEST

START_TEST(wrongtype)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET str v");
    expect_int(c, 2, "SADD s a b");
    const char *cmds[] = {
        "SADD str a", "SREM str a", "SCARD str", "SISMEMBER str a", "SMISMEMBER str a",
        "SMEMBERS str", "SRANDMEMBER str", "SRANDMEMBER str 2", "SPOP str", "SPOP str 2",
        "SMOVE str s a", "SMOVE s str a", "SMOVE s str nonmember", "SINTER s str",
        "SINTER nokey str", "SINTER str nokey", "SUNION s str", "SDIFF s str", "SDIFF nokey str",
        "SINTERSTORE d s str", "SUNIONSTORE d str s", "SDIFFSTORE d s str",
        "SINTERCARD 2 s str", "SINTERCARD 2 nokey str", "SSCAN str 0", "SSCAN str 0 COUNT 0",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
        expect_error(c, ERR_WRONGTYPE, cmds[i]);
    /* nothing changed, no destination was created */
    expect_int(c, 0, "EXISTS d");
    expect_bulk(c, "v", "GET str");
    expect_set(c, "a b", "SMEMBERS s");
    /* an absent source answers 0 before the destination's type is checked */
    expect_int(c, 0, "SMOVE nokey str a");
    /* SPOP's count is parsed before the lookup */
    expect_error(c, ERR_POSITIVE, "SPOP str -1");
    /* a STORE destination of any type is replaced */
    expect_int(c, 2, "SUNIONSTORE str s");
    expect_status(c, "set", "TYPE str");
    expect_status(c, "OK", "SET str v");
    expect_int(c, 0, "SINTERSTORE str s nokey");
    expect_int(c, 0, "EXISTS str");
}
END_TEST

START_TEST(arity_and_syntax)
{
    redisContext *c = h_c;
    const char *cases[][2] = {
        {"SADD s", "sadd"},           {"SREM s", "srem"},
        {"SCARD", "scard"},           {"SCARD a b", "scard"},
        {"SISMEMBER s", "sismember"}, {"SISMEMBER s a b", "sismember"},
        {"SMISMEMBER s", "smismember"}, {"SMEMBERS", "smembers"},
        {"SMEMBERS a b", "smembers"}, {"SRANDMEMBER", "srandmember"},
        {"SPOP", "spop"},             {"SMOVE a b", "smove"},
        {"SMOVE a b c d", "smove"},   {"SINTER", "sinter"},
        {"SINTERSTORE d", "sinterstore"}, {"SUNION", "sunion"},
        {"SUNIONSTORE d", "sunionstore"}, {"SDIFF", "sdiff"},
        {"SDIFFSTORE d", "sdiffstore"}, {"SINTERCARD 1", "sintercard"},
        {"SSCAN s", "sscan"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "ERR wrong number of arguments for '%s' command",
                 cases[i][1]);
        expect_error(c, want, cases[i][0]);
    }
    expect_int(c, 3, "SADD s a b c");
    expect_error(c, ERR_SYNTAX, "SPOP s 1 2");
    expect_error(c, ERR_SYNTAX, "SRANDMEMBER s 1 2");
    expect_error(c, ERR_POSITIVE, "SPOP s -1");
    expect_error(c, ERR_POSITIVE, "SPOP s abc");
    expect_error(c, ERR_POSITIVE, "SPOP s 1.5");
    expect_error(c, ERR_INT, "SRANDMEMBER s abc");
    expect_error(c, ERR_INT, "SRANDMEMBER s 99999999999999999999");
    expect_error(c, "ERR value is out of range, value must between -9223372036854775807 and "
                    "9223372036854775807",
                 "SRANDMEMBER s -9223372036854775808");
    expect_int(c, 3, "SCARD s");
}
END_TEST

/* Writes that change nothing do not touch a WATCHed key (Redis signals a
 * key only when a member was added or removed). */
START_TEST(watch_and_noop_writes)
{
    redisContext *c = h_c;
    expect_int(c, 2, "SADD s a b");
    expect_int(c, 1, "SADD d a");
    expect_status(c, "OK", "WATCH s d");
    expect_int(c, 0, "SADD s a b");
    expect_int(c, 0, "SREM s zz");
    expect_int(c, 0, "SMOVE s d zz");
    expect_int(c, 0, "SREM nokey a");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET x 1");
    redisReply *r = expect_array(c, 1, "EXEC");
    freeReplyObject(r);
    /* SMOVE to a set that has the member: only the source changed */
    expect_status(c, "OK", "WATCH d");
    expect_int(c, 1, "SMOVE s d a");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET x 2");
    r = expect_array(c, 1, "EXEC");
    freeReplyObject(r);
    expect_status(c, "OK", "WATCH s");
    expect_int(c, 1, "SMOVE s d b");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET x 3");
    expect_nil(c, "EXEC");
    expect_int(c, 0, "EXISTS s");
    expect_set(c, "a b", "SMEMBERS d");
}
END_TEST

/* ---- encodings and orders ---- */

START_TEST(encodings)
{
    redisContext *c = h_c;
    expect_int(c, 3, "SADD i 3 -1 2");
    expect_bulk(c, "intset", "OBJECT ENCODING i");
    expect_seq(c, "-1 2 3", "SMEMBERS i");
    expect_int(c, 1, "SADD i -9223372036854775808");
    expect_int(c, 1, "SADD i 9223372036854775807");
    expect_bulk(c, "intset", "OBJECT ENCODING i");
    expect_seq(c, "-9223372036854775808 -1 2 3 9223372036854775807", "SMEMBERS i");
    /* a member an intset cannot hold converts for good */
    expect_int(c, 1, "SADD i x");
    expect_bulk(c, "hashtable", "OBJECT ENCODING i");
    expect_int(c, 1, "SREM i x");
    expect_bulk(c, "hashtable", "OBJECT ENCODING i");
    const char *not_int[] = {"01", "-0", "+1", " 1", "1 ", "9223372036854775808", "1.0", "0x1"};
    for (size_t k = 0; k < sizeof not_int / sizeof not_int[0]; k++) {
        char key[16];
        snprintf(key, sizeof key, "n%zu", k);
        expect_int(c, 2, "SADD %s 1 %s", key, not_int[k]);
        expect_bulk(c, "hashtable", "OBJECT ENCODING %s", key);
    }
    /* a first member that is not an integer */
    expect_int(c, 1, "SADD h abc");
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    expect_int(c, 1, "SADD z 0");
    expect_bulk(c, "intset", "OBJECT ENCODING z");

    /* set-max-intset-entries: more members than it allows convert */
    expect_status(c, "OK", "CONFIG SET set-max-intset-entries 4");
    expect_int(c, 4, "SADD l 1 2 3 4");
    expect_bulk(c, "intset", "OBJECT ENCODING l");
    expect_int(c, 1, "SADD l 5");
    expect_bulk(c, "hashtable", "OBJECT ENCODING l");
    expect_int(c, 5, "SADD m 1 2 3 4 5");
    expect_bulk(c, "hashtable", "OBJECT ENCODING m");
    expect_status(c, "OK", "CONFIG SET set-max-intset-entries 512");
    char cmdbuf[8192];
    size_t len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD big");
    for (int k = 0; k < 512; k++)
        len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " %d", k);
    expect_int(c, 512, cmdbuf);
    expect_bulk(c, "intset", "OBJECT ENCODING big");
    expect_int(c, 1, "SADD big 512");
    expect_bulk(c, "hashtable", "OBJECT ENCODING big");
}
END_TEST

START_TEST(store_encodings_and_orders)
{
    redisContext *c = h_c;
    expect_int(c, 6, "SADD h a 5 3 1 2 4");
    expect_int(c, 3, "SADD i 4 2 3");
    /* SINTER iterates the smallest set: an intset gives ascending order */
    expect_seq(c, "2 3 4", "SINTER h i");
    expect_seq(c, "2 3 4", "SINTER i h");
    expect_int(c, 3, "SINTERSTORE d h i");
    expect_bulk(c, "intset", "OBJECT ENCODING d");
    /* SUNION / SDIFF build an intset result when it fits one */
    expect_int(c, 1, "SREM h a");
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    expect_seq(c, "1 2 3 4 5", "SUNION h");
    expect_seq(c, "1 2 3 4 5", "SUNION i h nokey");
    expect_seq(c, "1 5", "SDIFF h i");
    expect_int(c, 5, "SUNIONSTORE u h");
    expect_bulk(c, "intset", "OBJECT ENCODING u");
    expect_int(c, 1, "SADD h b");
    expect_int(c, 6, "SUNIONSTORE u h i");
    expect_bulk(c, "hashtable", "OBJECT ENCODING u");
    expect_set(c, "1 2 3 4 5 b", "SUNION h i");
    /* SDIFF's second algorithm (first set much bigger than the others)
     * copies the first set: a hashtable whatever the result holds. */
    char cmdbuf[512];
    size_t len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD f a");
    for (int k = 1; k <= 19; k++)
        len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " %d", k);
    expect_int(c, 20, cmdbuf);
    expect_int(c, 1, "SADD g1 a");
    expect_int(c, 1, "SADD g2 1");
    expect_int(c, 18, "SDIFFSTORE d2 f g1 g2");
    expect_bulk(c, "hashtable", "OBJECT ENCODING d2");
    expect_int(c, 19, "SDIFFSTORE d1 f g1");
    expect_bulk(c, "intset", "OBJECT ENCODING d1");
    redisReply *r = expect_array(c, 19, "SDIFF f g1");
    ck_assert(ascending_ints(r));
    freeReplyObject(r);
    /* set-max-intset-entries bounds store results too */
    expect_status(c, "OK", "CONFIG SET set-max-intset-entries 3");
    expect_int(c, 19, "SUNIONSTORE d3 d1");
    expect_bulk(c, "hashtable", "OBJECT ENCODING d3");
    expect_int(c, 3, "SINTERSTORE d4 d1 i");
    expect_bulk(c, "intset", "OBJECT ENCODING d4");
    /* an intset larger than a lowered limit still iterates in order */
    expect_seq(c, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19", "SMEMBERS d1");
    expect_status(c, "OK", "CONFIG SET set-max-intset-entries 512");
}
END_TEST

/* ---- random members ---- */

START_TEST(srandmember)
{
    redisContext *c = h_c;
    expect_nil(c, "SRANDMEMBER nokey");
    expect_set(c, "", "SRANDMEMBER nokey 5");
    expect_set(c, "", "SRANDMEMBER nokey -5");
    expect_int(c, 5, "SADD s a b c d e");
    expect_set(c, "", "SRANDMEMBER s 0");
    for (int round = 0; round < 20; round++) {
        redisReply *r = cmd(c, "SRANDMEMBER s");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        ck_assert(strchr("abcde", r->str[0]) && r->len == 1);
        freeReplyObject(r);
        for (int count = 1; count <= 7; count++) {
            r = expect_array(c, count < 5 ? count : 5, "SRANDMEMBER s %d", count);
            ck_assert(all_distinct(r));
            for (size_t i = 0; i < r->elements; i++)
                ck_assert(r->element[i]->len == 1 && strchr("abcde", r->element[i]->str[0]));
            freeReplyObject(r);
        }
        r = expect_array(c, 30, "SRANDMEMBER s -30");
        for (size_t i = 0; i < r->elements; i++)
            ck_assert(r->element[i]->len == 1 && strchr("abcde", r->element[i]->str[0]));
        freeReplyObject(r);
    }
    expect_set(c, "a b c d e", "SRANDMEMBER s 5");
    expect_set(c, "a b c d e", "SRANDMEMBER s 100");
    /* every member shows up over many draws (negative count: repeats) */
    redisReply *r = expect_array(c, 1000, "SRANDMEMBER s -1000");
    const char *all[] = {"a", "b", "c", "d", "e"};
    for (size_t k = 0; k < 5; k++)
        ck_assert(has_str(r, all[k]));
    freeReplyObject(r);
    /* a big set, counts on both sides of the sampling strategies */
    char cmdbuf[8192];
    size_t len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD big");
    for (int k = 0; k < 300; k++)
        len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " m%d", k);
    expect_int(c, 300, cmdbuf);
    long long counts[] = {1, 2, 50, 99, 100, 101, 250, 299, 300, 301};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        long long want = counts[k] < 300 ? counts[k] : 300;
        r = expect_array(c, want, "SRANDMEMBER big %lld", counts[k]);
        ck_assert(all_distinct(r));
        for (size_t i = 0; i < r->elements; i++)
            ck_assert(r->element[i]->str[0] == 'm');
        freeReplyObject(r);
    }
    /* an intset's whole set comes in ascending order */
    expect_int(c, 4, "SADD i 30 -2 10 7");
    expect_seq(c, "-2 7 10 30", "SRANDMEMBER i 4");
    expect_seq(c, "-2 7 10 30", "SRANDMEMBER i 10");
}
END_TEST

START_TEST(spop)
{
    redisContext *c = h_c;
    expect_nil(c, "SPOP nokey");
    expect_set(c, "", "SPOP nokey 3");
    expect_set(c, "", "SPOP nokey 0");
    expect_int(c, 5, "SADD s a b c d e");
    expect_set(c, "", "SPOP s 0");
    expect_int(c, 5, "SCARD s");
    redisReply *r = cmd(c, "SPOP s");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    expect_int(c, 0, "SISMEMBER s %s", r->str);
    expect_int(c, 4, "SCARD s");
    freeReplyObject(r);
    r = expect_array(c, 2, "SPOP s 2");
    ck_assert(all_distinct(r));
    for (size_t i = 0; i < 2; i++)
        expect_int(c, 0, "SISMEMBER s %s", r->element[i]->str);
    freeReplyObject(r);
    expect_int(c, 2, "SCARD s");
    r = expect_array(c, 2, "SPOP s 10");
    ck_assert(all_distinct(r));
    freeReplyObject(r);
    expect_int(c, 0, "EXISTS s");
    /* popping the last member alone deletes the key too */
    expect_int(c, 1, "SADD one x");
    expect_bulk(c, "x", "SPOP one");
    expect_int(c, 0, "EXISTS one");
    expect_int(c, 1, "SADD one x");
    expect_set(c, "x", "SPOP one 1");
    expect_int(c, 0, "EXISTS one");

    /* big counts (Redis keeps a new set of the few members left: encoded
     * afresh, so an all-integer hashtable comes back as an intset) */
    char cmdbuf[512];
    size_t len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD h a");
    for (int k = 1; k <= 20; k++)
        len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " %d", k);
    expect_int(c, 21, cmdbuf);
    expect_int(c, 1, "SREM h a");
    r = expect_array(c, 19, "SPOP h 19");
    ck_assert(all_distinct(r));
    freeReplyObject(r);
    expect_int(c, 1, "SCARD h");
    expect_bulk(c, "intset", "OBJECT ENCODING h");
    /* ... and replies an intset's popped members in ascending order */
    expect_int(c, 20, "SADD i 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20");
    r = expect_array(c, 18, "SPOP i 18");
    ck_assert(all_distinct(r));
    ck_assert(ascending_ints(r));
    freeReplyObject(r);
    expect_bulk(c, "intset", "OBJECT ENCODING i");
    /* a count not far below the size, on a big set */
    len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD b");
    for (int k = 0; k < 50; k++)
        len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " m%d", k);
    expect_int(c, 50, cmdbuf);
    r = expect_array(c, 30, "SPOP b 30");
    ck_assert(all_distinct(r));
    for (size_t i = 0; i < r->elements; i++)
        expect_int(c, 0, "SISMEMBER b %s", r->element[i]->str);
    freeReplyObject(r);
    expect_int(c, 20, "SCARD b");
    /* count >= size on an intset: the whole set in ascending order */
    expect_int(c, 3, "SADD w 9 -4 1");
    expect_seq(c, "-4 1 9", "SPOP w 3");
    expect_int(c, 0, "EXISTS w");
}
END_TEST

/* ---- SMOVE ---- */

START_TEST(smove)
{
    redisContext *c = h_c;
    expect_int(c, 3, "SADD src a b c");
    expect_int(c, 1, "SADD dst x");
    expect_int(c, 1, "SMOVE src dst a");
    expect_set(c, "b c", "SMEMBERS src");
    expect_set(c, "a x", "SMEMBERS dst");
    expect_int(c, 0, "SMOVE src dst a"); /* not in src */
    expect_int(c, 0, "SMOVE nokey dst a");
    expect_int(c, 0, "EXISTS nokey");
    /* to a new key */
    expect_int(c, 1, "SMOVE src fresh b");
    expect_set(c, "b", "SMEMBERS fresh");
    /* already in dst: src loses it, dst unchanged */
    expect_int(c, 1, "SADD dst c");
    expect_int(c, 1, "SMOVE src dst c");
    expect_int(c, 0, "EXISTS src"); /* emptied: deleted */
    expect_set(c, "a c x", "SMEMBERS dst");
    /* same key: membership */
    expect_int(c, 1, "SMOVE dst dst a");
    expect_int(c, 0, "SMOVE dst dst zz");
    expect_set(c, "a c x", "SMEMBERS dst");
    /* encodings follow SADD / SREM */
    expect_int(c, 2, "SADD ints 1 2");
    expect_int(c, 1, "SMOVE dst ints x");
    expect_bulk(c, "hashtable", "OBJECT ENCODING ints");
    expect_int(c, 1, "SMOVE ints newints 1");
    expect_bulk(c, "intset", "OBJECT ENCODING newints");
}
END_TEST

/* ---- SINTER SUNION SDIFF, STORE forms, SINTERCARD ---- */

START_TEST(set_operations)
{
    redisContext *c = h_c;
    expect_int(c, 4, "SADD a 1 2 3 x");
    expect_int(c, 4, "SADD b 2 3 4 x");
    expect_int(c, 3, "SADD c 3 x y");
    expect_set(c, "3 x", "SINTER a b c");
    expect_set(c, "1 2 3 4 x y", "SUNION a b c");
    expect_set(c, "1", "SDIFF a b c");
    expect_set(c, "1 2 3 x", "SINTER a");
    expect_set(c, "1 2 3 x", "SINTER a a");
    expect_set(c, "", "SINTER a nokey");
    expect_set(c, "", "SINTER nokey a");
    expect_set(c, "1 2 3 x", "SUNION nokey a");
    expect_set(c, "", "SUNION nokey other");
    expect_set(c, "1 2 3 x", "SDIFF a nokey");
    expect_set(c, "", "SDIFF nokey a");
    expect_set(c, "", "SDIFF a b a");
    expect_set(c, "", "SDIFF a a");
    expect_set(c, "4", "SDIFF b a c");

    /* STORE: reply the size, replace whatever the destination held (its TTL
     * too), delete it when the result is empty */
    expect_int(c, 2, "SINTERSTORE d a b c");
    expect_set(c, "3 x", "SMEMBERS d");
    expect_status(c, "OK", "SET d string EX 100");
    expect_int(c, 6, "SUNIONSTORE d a b c");
    expect_int(c, -1, "TTL d");
    expect_set(c, "1 2 3 4 x y", "SMEMBERS d");
    expect_int(c, 1, "SDIFFSTORE d a b c");
    expect_set(c, "1", "SMEMBERS d");
    expect_int(c, 0, "SINTERSTORE d a nokey");
    expect_int(c, 0, "EXISTS d");
    expect_int(c, 0, "SINTERSTORE d a nokey"); /* again: nothing to delete */
    expect_int(c, 1, "SADD d z");
    expect_int(c, 0, "SDIFFSTORE d a a");
    expect_int(c, 0, "EXISTS d");
    expect_int(c, 1, "SADD d z");
    expect_int(c, 0, "SUNIONSTORE d nokey");
    expect_int(c, 0, "EXISTS d");
    expect_int(c, 1, "SADD d z");
    expect_int(c, 0, "SINTERSTORE d a y"); /* y absent */
    expect_int(c, 0, "EXISTS d");
    /* the destination as a source */
    expect_int(c, 5, "SUNIONSTORE a a b");
    expect_set(c, "1 2 3 4 x", "SMEMBERS a");
    expect_int(c, 0, "SINTERSTORE a a c y2"); /* y2 absent */
    expect_int(c, 0, "EXISTS a");
    expect_int(c, 4, "SADD a 1 2 3 x");
    expect_int(c, 2, "SINTERSTORE a a c");
    expect_set(c, "3 x", "SMEMBERS a");
    expect_int(c, 2, "SDIFFSTORE b b a c");
    expect_set(c, "2 4", "SMEMBERS b"); /* 2 3 4 x minus 3 x minus 3 x y */
}
END_TEST

START_TEST(sintercard)
{
    redisContext *c = h_c;
    expect_int(c, 5, "SADD a 1 2 3 4 5");
    expect_int(c, 4, "SADD b 2 3 4 x");
    expect_int(c, 3, "SINTERCARD 2 a b");
    expect_int(c, 3, "SINTERCARD 2 a b LIMIT 0");
    expect_int(c, 2, "SINTERCARD 2 a b LIMIT 2");
    expect_int(c, 3, "SINTERCARD 2 a b limit 3");
    expect_int(c, 3, "SINTERCARD 2 a b LIMIT 10");
    expect_int(c, 3, "SINTERCARD 2 a b LIMIT 1 LIMIT 10");
    expect_int(c, 5, "SINTERCARD 1 a");
    expect_int(c, 0, "SINTERCARD 2 a nokey");
    expect_int(c, 0, "SINTERCARD 1 nokey");
    expect_error(c, "ERR numkeys should be greater than 0", "SINTERCARD 0 a");
    expect_error(c, "ERR numkeys should be greater than 0", "SINTERCARD -1 a");
    expect_error(c, "ERR numkeys should be greater than 0", "SINTERCARD x a");
    expect_error(c, "ERR Number of keys can't be greater than number of args",
                 "SINTERCARD 3 a b");
    expect_error(c, "ERR LIMIT can't be negative", "SINTERCARD 2 a b LIMIT -1");
    expect_error(c, "ERR LIMIT can't be negative", "SINTERCARD 2 a b LIMIT x");
    expect_error(c, ERR_SYNTAX, "SINTERCARD 2 a b LIMIT");
    expect_error(c, ERR_SYNTAX, "SINTERCARD 2 a b FOO 1");
    expect_error(c, ERR_SYNTAX, "SINTERCARD 1 a b");
}
END_TEST

/* Sets of thousands of members (many tree nodes): the set operations'
 * sizes, then SPOP until empty returns every member exactly once. */
START_TEST(big_sets)
{
    redisContext *c = h_c;
    enum { N = 3000 };
    /* a: multiples of 2 below 2N (words), b: multiples of 3 */
    for (int k = 0; k < 2 * N; k += 200) {
        char ca[4096], cb[4096];
        size_t la = (size_t)snprintf(ca, sizeof ca, "SADD a"), lb = (size_t)snprintf(cb, sizeof cb, "SADD b");
        for (int j = k; j < k + 200; j++) {
            if (j % 2 == 0)
                la += (size_t)snprintf(ca + la, sizeof ca - la, " w%d", j);
            if (j % 3 == 0)
                lb += (size_t)snprintf(cb + lb, sizeof cb - lb, " w%d", j);
        }
        redisReply *r = cmd(c, ca);
        freeReplyObject(r);
        r = cmd(c, cb);
        freeReplyObject(r);
    }
    expect_int(c, N, "SCARD a");
    expect_int(c, 2000, "SCARD b");
    expect_int(c, 1000, "SINTERCARD 2 a b");        /* multiples of 6 */
    expect_int(c, 100, "SINTERCARD 2 a b LIMIT 100");
    expect_int(c, 4000, "SUNIONSTORE u a b");
    expect_int(c, 2000, "SDIFFSTORE d a b");
    expect_int(c, 1000, "SDIFFSTORE d2 b a");
    expect_int(c, 1000, "SINTERSTORE i a b");
    expect_bulk(c, "hashtable", "OBJECT ENCODING u");
    redisReply *r = expect_array(c, 1000, "SINTER a b");
    for (size_t k = 0; k < r->elements; k++)
        ck_assert_int_eq(atoi(r->element[k]->str + 1) % 6, 0);
    freeReplyObject(r);
    r = expect_array(c, 2000, "SDIFF a b");
    for (size_t k = 0; k < r->elements; k++)
        ck_assert_int_ne(atoi(r->element[k]->str + 1) % 3, 0);
    freeReplyObject(r);
    /* SPOP in slices until the key is gone */
    static char seen[2 * N];
    memset(seen, 0, sizeof seen);
    long long left = 4000;
    int counts[] = {1, 7, 500, 3000, 100};
    for (int k = 0; left > 0; k++) {
        int cnt = counts[k % 5];
        long long want = cnt < left ? cnt : left;
        r = expect_array(c, want, "SPOP u %d", cnt);
        for (size_t j = 0; j < r->elements; j++) {
            int m = atoi(r->element[j]->str + 1);
            ck_assert(m >= 0 && m < 2 * N && !seen[m]);
            seen[m] = 1;
        }
        freeReplyObject(r);
        left -= want;
        expect_int(c, left, "SCARD u");
    }
    expect_int(c, 0, "EXISTS u");
}
END_TEST

/* ---- SSCAN ---- */

/* Scans key with SSCAN (COUNT count, MATCH pat when not NULL) to the end;
 * returns every member returned (duplicates kept) and their count. */
static char **scan_all(redisContext *c, const char *key, int count, const char *pat,
                       size_t *n, int *calls)
{
    char **v = NULL;
    size_t cap = 0;
    *n = 0;
    *calls = 0;
    char cursor[32] = "0";
    do {
        redisReply *r = pat ? cmd(c, "SSCAN %s %s COUNT %d MATCH %s", key, cursor, count, pat)
                            : cmd(c, "SSCAN %s %s COUNT %d", key, cursor, count);
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(r->elements, 2);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        redisReply *m = r->element[1];
        for (size_t i = 0; i < m->elements; i++) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 64;
                v = realloc(v, cap * sizeof *v);
            }
            v[(*n)++] = strdup(m->element[i]->str);
        }
        freeReplyObject(r);
        ck_assert_int_lt(++*calls, 100000);
    } while (strcmp(cursor, "0") != 0);
    return v;
}

START_TEST(sscan)
{
    redisContext *c = h_c;
    redisReply *r = expect_array(c, 2, "SSCAN nokey 0");
    check_bulk(r->element[0], "0");
    ck_assert_uint_eq(r->element[1]->elements, 0);
    freeReplyObject(r);
    expect_error(c, "ERR invalid cursor", "SSCAN nokey abc");
    expect_error(c, "ERR invalid cursor", "SSCAN nokey 18446744073709551616");
    /* options are read after the lookup: an absent key answers first */
    r = expect_array(c, 2, "SSCAN nokey 0 COUNT abc");
    freeReplyObject(r);
    expect_int(c, 3, "SADD s a b c");
    expect_error(c, ERR_SYNTAX, "SSCAN s 0 COUNT 0");
    expect_error(c, ERR_INT, "SSCAN s 0 COUNT abc");
    expect_error(c, ERR_SYNTAX, "SSCAN s 0 COUNT");
    expect_error(c, ERR_SYNTAX, "SSCAN s 0 TYPE string");
    expect_error(c, ERR_SYNTAX, "SSCAN s 0 FOO bar");

    /* an intset: everything at once, ascending, cursor 0, whatever cursor */
    expect_int(c, 4, "SADD i 5 -3 10 1");
    r = expect_array(c, 2, "SSCAN i 0 COUNT 1");
    check_bulk(r->element[0], "0");
    check_members(__FILE__, __LINE__, r->element[1], 1, "-3 1 5 10");
    freeReplyObject(r);
    r = expect_array(c, 2, "SSCAN i 12345 MATCH 1*");
    check_bulk(r->element[0], "0");
    check_members(__FILE__, __LINE__, r->element[1], 1, "1 10");
    freeReplyObject(r);

    /* a hashtable: every member exactly once over a full iteration */
    enum { N = 1000 };
    for (int k = 0; k < N; k += 100) {
        char cmdbuf[2048];
        size_t len = (size_t)snprintf(cmdbuf, sizeof cmdbuf, "SADD big");
        for (int j = k; j < k + 100; j++)
            len += (size_t)snprintf(cmdbuf + len, sizeof cmdbuf - len, " m%d", j);
        expect_int(c, 100, cmdbuf);
    }
    int counts[] = {1, 7, 100, 5000};
    for (size_t t = 0; t < sizeof counts / sizeof counts[0]; t++) {
        size_t n;
        int calls;
        char **v = scan_all(c, "big", counts[t], NULL, &n, &calls);
        qsort(v, n, sizeof *v, cmp_str);
        size_t distinct = 0;
        for (size_t i = 0; i < n; i++)
            distinct += i == 0 || strcmp(v[i - 1], v[i]) != 0;
        ck_assert_uint_eq(distinct, N);
        if (!srv_is_reference()) /* verso: hash cursors never repeat */
            ck_assert_uint_eq(n, N);
        if (counts[t] == 1)
            ck_assert_int_gt(calls, 10);
        for (size_t i = 0; i < n; i++)
            free(v[i]);
        free(v);
    }
    /* MATCH filters each batch */
    size_t n;
    int calls;
    char **v = scan_all(c, "big", 10, "m1?", &n, &calls);
    qsort(v, n, sizeof *v, cmp_str);
    size_t distinct = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert(strlen(v[i]) == 3 && strncmp(v[i], "m1", 2) == 0);
        distinct += i == 0 || strcmp(v[i - 1], v[i]) != 0;
    }
    ck_assert_uint_eq(distinct, 10);
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);

    /* changes between calls: members present throughout are all returned */
    char cursor[32] = "0";
    int seen[N] = {0};
    int step = 0;
    do {
        r = cmd(c, "SSCAN big %s COUNT 20", cursor);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        for (size_t i = 0; i < r->element[1]->elements; i++) {
            const char *m = r->element[1]->element[i]->str;
            if (m[0] == 'm' && atoi(m + 1) < N)
                seen[atoi(m + 1)] = 1;
        }
        freeReplyObject(r);
        /* add new members, remove some of the second half */
        expect_int(c, 1, "SADD big new%d", step);
        expect_int(c, 1, "SREM big m%d", N / 2 + step);
        step++;
        ck_assert_int_lt(step, N / 2);
    } while (strcmp(cursor, "0") != 0);
    for (int k = 0; k < N / 2; k++)
        ck_assert_msg(seen[k], "m%d missed", k);
}
END_TEST

/* ---- propagation (the AOF shows what replicas would receive) ---- */

/* The commands of s's current INCR AOF file, SELECT left out. */
static redisReply **aof_commands(const srv *s, size_t *n)
{
    char path[4096], line[1100], name[256], incr[4096] = "";
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof line, f)) {
        long long seq;
        char type;
        if (sscanf(line, "file %255s seq %lld type %c", name, &seq, &type) == 3 && type == 'i')
            snprintf(incr, sizeof incr, "%s/appendonlydir/%s", s->dir, name);
    }
    fclose(f);
    ck_assert(incr[0]);
    size_t len;
    char *text = h_slurp(incr, &len, 1);
    redisReader *rd = redisReaderCreate();
    redisReaderFeed(rd, text, len);
    redisReply **v = NULL;
    *n = 0;
    void *r;
    while (redisReaderGetReply(rd, &r) == REDIS_OK && r) {
        redisReply *rr = r;
        ck_assert_int_eq(rr->type, REDIS_REPLY_ARRAY);
        if (strcasecmp(rr->element[0]->str, "select") == 0) {
            freeReplyObject(rr);
            continue;
        }
        v = realloc(v, (*n + 1) * sizeof *v);
        v[(*n)++] = rr;
    }
    redisReaderFree(rd);
    free(text);
    return v;
}

/* Command i of v is argv (blank-separated words, compared case-insensitively
 * for the name). */
static void check_cmd(redisReply **v, size_t n, size_t i, const char *want)
{
    ck_assert_msg(i < n, "AOF has %zu commands, want #%zu: %s", n, i, want);
    size_t nw;
    char **w = words(want, &nw);
    int ok = v[i]->elements == nw && strcasecmp(v[i]->element[0]->str, w[0]) == 0;
    for (size_t k = 1; ok && k < nw; k++)
        ok = strcmp(v[i]->element[k]->str, w[k]) == 0;
    char got[512];
    size_t len = 0;
    got[0] = '\0';
    for (size_t k = 0; k < v[i]->elements && len < sizeof got - 64; k++)
        len += (size_t)snprintf(got + len, sizeof got - len, "%s ", v[i]->element[k]->str);
    free_words(w, nw);
    ck_assert_msg(ok, "AOF command #%zu: want '%s', got '%s'", i, want, got);
}

START_TEST(propagation)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_int(c, 3, "SADD s a b c");
    redisReply *p1 = cmd(c, "SPOP s");
    redisReply *p2 = expect_array(c, 1, "SPOP s 1");
    expect_set(c, "", "SPOP s 0");
    expect_nil(c, "SPOP nokey");
    expect_int(c, 0, "SREM s zz"); /* no change: nothing propagated */
    expect_int(c, 4, "SADD t 1 2 3 4");
    redisReply *p3 = expect_array(c, 2, "SPOP t 2");
    redisReply *p4 = expect_array(c, 1, "SPOP s 5");
    expect_int(c, 1, "SADD u x");
    expect_int(c, 1, "SADD v y");
    expect_int(c, 1, "SMOVE u v x");
    expect_int(c, 0, "SMOVE u v x");
    expect_int(c, 4, "SUNIONSTORE w v t"); /* x y + two of t */
    expect_int(c, 0, "SINTERSTORE w v nokey");
    expect_int(c, 0, "SINTERSTORE w v nokey");
    expect_int(c, 1, "SREM v x");
    expect_int(c, 0, "SREM v x");

    size_t n;
    redisReply **v = aof_commands(s, &n);
    char want[256];
    size_t i = 0;
    check_cmd(v, n, i++, "SADD s a b c");
    snprintf(want, sizeof want, "SREM s %s", p1->str);
    check_cmd(v, n, i++, want);
    snprintf(want, sizeof want, "SREM s %s", p2->element[0]->str);
    check_cmd(v, n, i++, want);
    check_cmd(v, n, i++, "SADD t 1 2 3 4");
    check_cmd(v, n, i++, "MULTI");
    for (size_t k = 0; k < 2; k++) {
        snprintf(want, sizeof want, "SREM t %s", p3->element[k]->str);
        check_cmd(v, n, i++, want);
    }
    check_cmd(v, n, i++, "EXEC");
    check_cmd(v, n, i++, "DEL s");
    (void)p4;
    check_cmd(v, n, i++, "SADD u x");
    check_cmd(v, n, i++, "SADD v y");
    check_cmd(v, n, i++, "SMOVE u v x");
    check_cmd(v, n, i++, "SUNIONSTORE w v t");
    check_cmd(v, n, i++, "SINTERSTORE w v nokey");
    check_cmd(v, n, i++, "SREM v x");
    ck_assert_uint_eq(i, n);
    for (size_t k = 0; k < n; k++)
        freeReplyObject(v[k]);
    free(v);
    freeReplyObject(p1);
    freeReplyObject(p2);
    freeReplyObject(p3);
    freeReplyObject(p4);
    redisFree(c);
}
END_TEST

/* ---- randomized model test ----
 * Five keys over a universe of 40 members (30 integers, 10 words), a
 * bitmask per key as the model; a sixth key holds a string (WRONGTYPE).
 * Every reply is checked against the model; SPOP and SRANDMEMBER against
 * the properties they promise. */

enum { NMEM = 40, NKEYS = 5, STRKEY = NKEYS, NOPS = 4000 };
static char mem_name[NMEM][8];
static const char *key_name[NKEYS + 1] = {"k0", "k1", "k2", "k3", "k4", "str"};

typedef struct model {
    uint64_t m[NKEYS];
    unsigned seed;
    int op;
} model;

static int mem_index(const char *s)
{
    for (int i = 0; i < NMEM; i++)
        if (strcmp(mem_name[i], s) == 0)
            return i;
    return -1;
}

#define MCHECK(md, cond, fmt, ...) \
    ck_assert_msg(cond, "seed %u op %d: " fmt, (md)->seed, (md)->op, ##__VA_ARGS__)

/* The members of an array reply as a mask (each must be known; *dups set
 * when one repeats). */
static uint64_t reply_mask(model *md, const redisReply *r, int *dups)
{
    MCHECK(md, r->type == REDIS_REPLY_ARRAY, "want an array");
    uint64_t mask = 0;
    *dups = 0;
    for (size_t i = 0; i < r->elements; i++) {
        int k = mem_index(r->element[i]->str);
        MCHECK(md, k >= 0, "unknown member '%s'", r->element[i]->str);
        if (mask & (UINT64_C(1) << k))
            *dups = 1;
        mask |= UINT64_C(1) << k;
    }
    return mask;
}

static redisReply *run(redisContext *c, int argc, const char **argv)
{
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    ck_assert_msg(r != NULL, "no reply: %s", c->errstr);
    return r;
}

static void want_int(model *md, redisReply *r, long long v)
{
    MCHECK(md, r->type == REDIS_REPLY_INTEGER && r->integer == v,
           "want %lld, got type %d int %lld (%s)", v, r->type, r->integer, r->str ? r->str : "");
    freeReplyObject(r);
}

static void want_wrongtype(model *md, redisReply *r)
{
    MCHECK(md, r->type == REDIS_REPLY_ERROR && strcmp(r->str, ERR_WRONGTYPE) == 0,
           "want WRONGTYPE");
    freeReplyObject(r);
}

/* A key for a source: the string key now and then. */
static int src_key(void) { return rnd_int(25) == 0 ? STRKEY : rnd_int(NKEYS); }

static void op_set_op(model *md, redisContext *c, int which, int store)
{
    static const char *names[3][2] = {{"SINTER", "SINTERSTORE"}, {"SUNION", "SUNIONSTORE"},
                                      {"SDIFF", "SDIFFSTORE"}};
    const char *argv[8];
    int argc = 0, nsrc = 1 + rnd_int(3), dst = rnd_int(NKEYS), wrong = 0;
    argv[argc++] = names[which][store];
    if (store)
        argv[argc++] = key_name[dst];
    uint64_t res = 0;
    for (int i = 0; i < nsrc; i++) {
        int k = src_key();
        argv[argc++] = key_name[k];
        uint64_t m = k == STRKEY ? 0 : md->m[k];
        wrong |= k == STRKEY;
        if (i == 0)
            res = m;
        else if (which == 0)
            res &= m;
        else if (which == 1)
            res |= m;
        else
            res &= ~m;
    }
    redisReply *r = run(c, argc, argv);
    if (wrong) {
        want_wrongtype(md, r);
        return;
    }
    if (store) {
        want_int(md, r, __builtin_popcountll(res));
        md->m[dst] = res;
        return;
    }
    int dups;
    uint64_t got = reply_mask(md, r, &dups);
    MCHECK(md, !dups && got == res, "%s: got %llx want %llx", argv[0],
           (unsigned long long)got, (unsigned long long)res);
    freeReplyObject(r);
}

static void op_spop_srand(model *md, redisContext *c, int pop)
{
    int k = rnd_int(NKEYS), cnt = pop ? rnd_int(7) : rnd_int(13) - 6;
    int card = __builtin_popcountll(md->m[k]);
    char cbuf[16];
    snprintf(cbuf, sizeof cbuf, "%d", cnt);
    const char *argv[3] = {pop ? "SPOP" : "SRANDMEMBER", key_name[k], cbuf};
    redisReply *r = run(c, 3, argv);
    int dups;
    uint64_t got = reply_mask(md, r, &dups);
    size_t want = cnt >= 0 ? (size_t)(cnt < card ? cnt : card) : (card ? (size_t)-cnt : 0);
    MCHECK(md, r->elements == want, "%s %d: %zu members, want %zu", argv[0],
           cnt, r->elements, want);
    MCHECK(md, (got & ~md->m[k]) == 0, "%s returned a non-member", argv[0]);
    MCHECK(md, cnt < 0 || !dups, "%s repeated a member", argv[0]);
    if (pop)
        md->m[k] &= ~got;
    freeReplyObject(r);
}

static void op_smove(model *md, redisContext *c)
{
    int s = src_key(), d = src_key(), m = rnd_int(NMEM);
    const char *argv[4] = {"SMOVE", key_name[s], key_name[d], mem_name[m]};
    redisReply *r = run(c, 4, argv);
    uint64_t bit = UINT64_C(1) << m;
    if (s == STRKEY || (md->m[s] && d == STRKEY)) {
        want_wrongtype(md, r);
        return;
    }
    if (!md->m[s] || !(md->m[s] & bit)) {
        want_int(md, r, 0);
        return;
    }
    want_int(md, r, 1);
    md->m[s] &= ~bit;
    md->m[d] |= bit;
}

/* SADD / SREM / SMISMEMBER with up to 4 members. */
static void op_members(model *md, redisContext *c, int what)
{
    static const char *names[3] = {"SADD", "SREM", "SMISMEMBER"};
    int k = rnd_int(NKEYS), n = 1 + rnd_int(4);
    const char *argv[6] = {names[what], key_name[k]};
    int idx[4];
    uint64_t mask = 0;
    for (int i = 0; i < n; i++) {
        idx[i] = rnd_int(NMEM);
        argv[2 + i] = mem_name[idx[i]];
        mask |= UINT64_C(1) << idx[i];
    }
    redisReply *r = run(c, 2 + n, argv);
    if (what == 0) {
        want_int(md, r, __builtin_popcountll(mask & ~md->m[k]));
        md->m[k] |= mask;
    } else if (what == 1) {
        want_int(md, r, __builtin_popcountll(mask & md->m[k]));
        md->m[k] &= ~mask;
    } else {
        MCHECK(md, r->type == REDIS_REPLY_ARRAY && r->elements == (size_t)n, "SMISMEMBER");
        for (int i = 0; i < n; i++)
            MCHECK(md, r->element[i]->integer == (long long)((md->m[k] >> idx[i]) & 1), "SMISMEMBER");
        freeReplyObject(r);
    }
}

static void op_sintercard(model *md, redisContext *c)
{
    int n = 1 + rnd_int(3), lim = rnd_int(3) ? -1 : rnd_int(5), wrong = 0;
    const char *argv[8];
    char nbuf[8], lbuf[8];
    snprintf(nbuf, sizeof nbuf, "%d", n);
    int argc = 0;
    argv[argc++] = "SINTERCARD";
    argv[argc++] = nbuf;
    uint64_t res = ~UINT64_C(0);
    for (int i = 0; i < n; i++) {
        int k = src_key();
        argv[argc++] = key_name[k];
        wrong |= k == STRKEY;
        res &= k == STRKEY ? 0 : md->m[k];
    }
    if (lim >= 0) {
        snprintf(lbuf, sizeof lbuf, "%d", lim);
        argv[argc++] = "LIMIT";
        argv[argc++] = lbuf;
    }
    redisReply *r = run(c, argc, argv);
    if (wrong) {
        want_wrongtype(md, r);
        return;
    }
    long long card = __builtin_popcountll(res);
    want_int(md, r, lim > 0 && lim < card ? lim : card);
}

static void check_all(model *md, redisContext *c)
{
    for (int k = 0; k < NKEYS; k++) {
        const char *argv[2] = {"SMEMBERS", key_name[k]};
        redisReply *r = run(c, 2, argv);
        int dups;
        uint64_t got = reply_mask(md, r, &dups);
        MCHECK(md, !dups && got == md->m[k], "SMEMBERS %s: got %llx want %llx", key_name[k], (unsigned long long)got, (unsigned long long)md->m[k]);
        freeReplyObject(r);
        const char *ex[2] = {"EXISTS", key_name[k]};
        want_int(md, run(c, 2, ex), md->m[k] != 0);
    }
}

START_TEST(model_random)
{
    redisContext *c = h_c;
    for (int i = 0; i < NMEM; i++)
        snprintf(mem_name[i], sizeof mem_name[i], i < 30 ? "%d" : "x%d", i < 30 ? i - 10 : i);
    model md = {{0}, (unsigned)time(NULL), 0};
    const char *seed_env = getenv("SET_MODEL_SEED");
    if (seed_env)
        md.seed = (unsigned)strtoul(seed_env, NULL, 10);
    fprintf(stderr, "model_random: seed %u\n", md.seed);
    rnd_seed(md.seed);
    expect_status(c, "OK", "SET str v");
    for (md.op = 0; md.op < NOPS; md.op++) {
        int k = rnd_int(NKEYS), kind = rnd_int(20);
        char mbuf[8];
        switch (kind) {
        case 0: case 1: case 2: op_members(&md, c, 0); break;
        case 3: case 4: op_members(&md, c, 1); break;
        case 5: op_members(&md, c, 2); break;
        case 6: {
            const char *argv[2] = {"SCARD", key_name[k]};
            want_int(&md, run(c, 2, argv), __builtin_popcountll(md.m[k]));
            break;
        }
        case 7: {
            int m = rnd_int(NMEM);
            snprintf(mbuf, sizeof mbuf, "%s", mem_name[m]);
            const char *argv[3] = {"SISMEMBER", key_name[k], mbuf};
            want_int(&md, run(c, 3, argv), (long long)((md.m[k] >> m) & 1));
            break;
        }
        case 8: op_smove(&md, c); break;
        case 9: {
            const char *argv[2] = {"SPOP", key_name[k]};
            redisReply *r = run(c, 2, argv);
            if (!md.m[k]) {
                MCHECK(&md, r->type == REDIS_REPLY_NIL, "SPOP: want nil");
            } else {
                int m = r->type == REDIS_REPLY_STRING ? mem_index(r->str) : -1;
                MCHECK(&md, m >= 0 && ((md.m[k] >> m) & 1), "SPOP: not a member");
                md.m[k] &= ~(UINT64_C(1) << m);
            }
            freeReplyObject(r);
            break;
        }
        case 10: op_spop_srand(&md, c, 1); break;
        case 11: op_spop_srand(&md, c, 0); break;
        case 12: case 13: op_set_op(&md, c, rnd_int(3), 0); break;
        case 14: case 15: op_set_op(&md, c, rnd_int(3), 1); break;
        case 16: op_sintercard(&md, c); break;
        case 17: {
            if (rnd_int(4))
                break;
            const char *argv[2] = {"DEL", key_name[k]};
            want_int(&md, run(c, 2, argv), md.m[k] != 0);
            md.m[k] = 0;
            break;
        }
        default: break;
        }
        if (md.op % 100 == 99)
            check_all(&md, c);
    }
    check_all(&md, c);
    expect_bulk(c, "v", "GET str");
}
END_TEST

/* SORT of a set BY nosort with STORE: Redis sorts anyway, and by the
 * elements' bytes (forced ALPHA, BY dropped), whatever ALPHA or BY say, so
 * that the stored list does not depend on the set's internal order. */
START_TEST(sort_nosort_store) {
    expect_int(h_c, 5, "SADD s 10 9 b a 100");
    expect_int(h_c, 5, "SORT s BY nosort STORE dst");
    redisReply *r = expect_array(h_c, 5, "LRANGE dst 0 -1");
    const char *want[] = {"10", "100", "9", "a", "b"};
    for (int i = 0; i < 5; i++) check_bulk(r->element[i], want[i]);
    freeReplyObject(r);
    expect_status(h_c, "OK", "SET w_a 1");
    expect_int(h_c, 10, "SORT s BY nosort GET # GET w_* ALPHA DESC STORE dst");
    r = expect_array(h_c, 10, "LRANGE dst 0 -1");
    const char *want2[] = {"b", "", "a", "1", "9", "", "100", "", "10", ""};
    for (int i = 0; i < 10; i++) check_bulk(r->element[i], want2[i]);
    freeReplyObject(r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("set");
    TCase *tc = tcase_create("set");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, sadd_srem_scard);
    tcase_add_test(tc, wrongtype);
    tcase_add_test(tc, arity_and_syntax);
    tcase_add_test(tc, watch_and_noop_writes);
    tcase_add_test(tc, encodings);
    tcase_add_test(tc, store_encodings_and_orders);
    tcase_add_test(tc, srandmember);
    tcase_add_test(tc, spop);
    tcase_add_test(tc, smove);
    tcase_add_test(tc, set_operations);
    tcase_add_test(tc, sintercard);
    tcase_add_test(tc, big_sets);
    tcase_add_test(tc, sscan);
    tcase_add_test(tc, sort_nosort_store);
    tcase_add_test(tc, model_random);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "propagation", propagation, 60);
    return h_main(s);
}
