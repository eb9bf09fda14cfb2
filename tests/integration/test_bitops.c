/* Integration tests: bitmaps (SETBIT GETBIT BITCOUNT BITPOS BITOP BITFIELD
 * BITFIELD_RO) and LCS, with Redis 7.0's replies and error texts: edge
 * cases by hand, then the same random commands sent to the server under
 * test and to Redis's own redis-server, every reply compared. Each test
 * gets a fresh server (h_setup) and its client h_c. */
#include "harness.h"
#include "testrand.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ERR_OFFSET "ERR bit offset is not an integer or out of range"
#define ERR_BIT "ERR bit is not an integer or out of range"
#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"
#define ERR_BFTYPE \
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."

/* An array reply of integers (n values, NIL for a nil), checked element
 * by element. */
#define NIL (INT64_MIN + 12345)
static void expect_ints(redisContext *c, const long long *want, size_t n, const char *fmt,
                        const char *key)
{
    redisReply *r = expect_array(c, (long long)n, fmt, key);
    for (size_t i = 0; i < n; i++) {
        if (want[i] == NIL) check_nil(r->element[i]);
        else check_int(r->element[i], want[i]);
    }
    freeReplyObject(r);
}

START_TEST(setbit_getbit)
{
    redisContext *c = h_c;
    expect_int(c, 0, "SETBIT k 7 1");
    expect_bulk(c, "\x01", "GET k");
    expect_int(c, 1, "SETBIT k 7 1");
    expect_int(c, 1, "SETBIT k 7 0");
    expect_int(c, 0, "SETBIT k 0 1");
    expect_bulk(c, "\x80", "GET k");
    expect_int(c, 1, "GETBIT k 0");
    expect_int(c, 0, "GETBIT k 1");
    expect_int(c, 0, "GETBIT k 100");
    expect_int(c, 0, "GETBIT nokey 0");
    /* clearing a bit past the end still creates / grows the string */
    expect_int(c, 0, "SETBIT z 23 0");
    expect_int(c, 3, "STRLEN z");
    expect_int(c, 0, "SETBIT k 15 0");
    expect_int(c, 2, "STRLEN k");
    /* an INT-encoded value is its decimal bytes: "1" is 0x31 */
    expect_status(c, "OK", "SET n 1");
    expect_int(c, 1, "GETBIT n 2");
    expect_int(c, 0, "GETBIT n 0");
    expect_int(c, 0, "SETBIT n 6 1");
    expect_bulk(c, "3", "GET n");
    /* errors, in Redis's order: offset, then value, then type */
    expect_error(c, ERR_OFFSET, "SETBIT k -1 1");
    expect_error(c, ERR_OFFSET, "SETBIT k x 1");
    expect_error(c, ERR_OFFSET, "SETBIT k 4294967296 1");
    expect_error(c, ERR_OFFSET, "GETBIT k 4294967296");
    expect_error(c, ERR_OFFSET, "GETBIT k #1");
    expect_error(c, ERR_BIT, "SETBIT k 0 2");
    expect_error(c, ERR_BIT, "SETBIT k 0 -1");
    expect_error(c, ERR_BIT, "SETBIT k 0 x");
    expect_error(c, ERR_OFFSET, "SETBIT k 4294967296 2");
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "SETBIT l 0 1");
    expect_error(c, ERR_WRONGTYPE, "GETBIT l 0");
    expect_error(c, ERR_BIT, "SETBIT l 0 2");
    expect_error(c, "ERR wrong number of arguments for 'setbit' command", "SETBIT k 0");
    /* the last offset: 2^32-1 reads 0 without creating anything */
    expect_int(c, 0, "GETBIT k 4294967295");
    expect_int(c, 2, "STRLEN k");
    /* the limit follows proto-max-bulk-len */
    expect_status(c, "OK", "CONFIG SET proto-max-bulk-len 1048576");
    expect_int(c, 0, "SETBIT m 8388607 1");
    expect_int(c, 1048576, "STRLEN m");
    expect_error(c, ERR_OFFSET, "SETBIT m 8388608 1");
    expect_error(c, ERR_OFFSET, "GETBIT m 8388608");
    expect_int(c, 1, "BITCOUNT m");
    expect_int(c, 8388607, "BITPOS m 1");
}
END_TEST

/* The highest offset there is: a 512 MB string (a calloc on verso: only
 * the pages written are touched). */
START_TEST(setbit_last_offset)
{
    redisContext *c = h_c;
    struct timeval tv = { 60, 0 };
    redisSetTimeout(c, tv);
    expect_int(c, 0, "SETBIT big 4294967295 1");
    expect_int(c, 536870912, "STRLEN big");
    expect_int(c, 1, "GETBIT big 4294967295");
    expect_int(c, 0, "GETBIT big 4294967294");
    expect_int(c, 1, "BITCOUNT big -1 -1");
    expect_int(c, 4294967295LL, "BITPOS big 1 -1");
    expect_int(c, 4294967295LL, "BITPOS big 1");
    expect_int(c, 0, "BITPOS big 0");
    expect_int(c, 1, "BITCOUNT big");
    expect_int(c, 1, "SETBIT big 4294967295 0");
    expect_int(c, 1, "DEL big");
}
END_TEST

START_TEST(bitcount_ranges)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k foobar");
    expect_int(c, 26, "BITCOUNT k");
    expect_int(c, 4, "BITCOUNT k 0 0");
    expect_int(c, 6, "BITCOUNT k 1 1");
    expect_int(c, 6, "BITCOUNT k 1 1 BYTE");
    expect_int(c, 17, "BITCOUNT k 5 30 BIT");
    expect_int(c, 26, "BITCOUNT k 0 -1");
    expect_int(c, 26, "BITCOUNT k -100 100");
    expect_int(c, 4, "BITCOUNT k -1 -1");
    expect_int(c, 0, "BITCOUNT k -1 -2");
    expect_int(c, 0, "BITCOUNT k 3 1");
    expect_int(c, 0, "BITCOUNT k -1 -1 bit");
    expect_int(c, 1, "BITCOUNT k -2 -2 bit");
    expect_int(c, 26, "BITCOUNT k 0 -1 bit");
    expect_int(c, 4, "BITCOUNT k 0 7 bit");
    expect_int(c, 4, "BITCOUNT k -48 -41 bit");
    expect_int(c, 0, "BITCOUNT k -1 -2 nosuchunit");
    expect_error(c, ERR_SYNTAX, "BITCOUNT k 0 1 nosuchunit");
    expect_error(c, ERR_SYNTAX, "BITCOUNT k 0");
    expect_error(c, ERR_SYNTAX, "BITCOUNT k 0 1 bit x");
    expect_error(c, ERR_INT, "BITCOUNT k a 1");
    expect_error(c, ERR_INT, "BITCOUNT k 0 b");
    /* an absent key counts 0 whatever follows, in 7.0 */
    expect_int(c, 0, "BITCOUNT nokey");
    expect_int(c, 0, "BITCOUNT nokey 0");
    expect_int(c, 0, "BITCOUNT nokey a b");
    expect_status(c, "OK", "SET n 1234567");
    expect_int(c, 26, "BITCOUNT n");
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "BITCOUNT l");
}
END_TEST

START_TEST(bitpos_ranges)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k %b", "\xff\xf0\x00", (size_t)3);
    expect_int(c, 12, "BITPOS k 0");
    expect_int(c, 0, "BITPOS k 1");
    expect_status(c, "OK", "SET k %b", "\x00\xff\xf0", (size_t)3);
    expect_int(c, 8, "BITPOS k 1 0");
    expect_int(c, 16, "BITPOS k 1 2");
    expect_int(c, 16, "BITPOS k 1 2 -1 BYTE");
    expect_int(c, 8, "BITPOS k 1 7 15 BIT");
    expect_int(c, 20, "BITPOS k 0 12 23 BIT");
    expect_int(c, 8, "BITPOS k 1 7 -3 bit");
    expect_int(c, -1, "BITPOS k 1 0 0");
    expect_int(c, 0, "BITPOS k 0 0 0");
    expect_int(c, 20, "BITPOS k 0 1");
    expect_status(c, "OK", "SET f %b", "\xff\xff\xff", (size_t)3);
    /* no clear bit: just past the end, unless the end was given */
    expect_int(c, 24, "BITPOS f 0");
    expect_int(c, 24, "BITPOS f 0 1");
    expect_int(c, -1, "BITPOS f 0 0 -1");
    expect_int(c, -1, "BITPOS f 0 8 -1 bit");
    expect_int(c, -1, "BITPOS f 1 2 1");
    expect_int(c, -1, "BITPOS f 1 -1 -2");
    expect_status(c, "OK", "SET z %b", "\x00\x00", (size_t)2);
    expect_int(c, -1, "BITPOS z 1");
    expect_int(c, 3, "BITPOS z 0 3 -1 bit");
    expect_error(c, ERR_INT, "BITPOS z 0 3 bit");
    expect_status(c, "OK", "SET e %s", "");
    expect_int(c, -1, "BITPOS e 0");
    expect_int(c, -1, "BITPOS e 1");
    /* absent: endless zeros */
    expect_int(c, 0, "BITPOS nokey 0");
    expect_int(c, -1, "BITPOS nokey 1");
    expect_int(c, 0, "BITPOS nokey 0 a b c");
    expect_error(c, "ERR The bit argument must be 1 or 0.", "BITPOS k 2");
    expect_error(c, ERR_INT, "BITPOS k x");
    expect_error(c, ERR_INT, "BITPOS k 1 x");
    expect_error(c, ERR_INT, "BITPOS k 1 x 1 bits");
    expect_error(c, ERR_SYNTAX, "BITPOS k 1 0 x bits");
    expect_error(c, ERR_INT, "BITPOS k 1 0 x bit");
    expect_error(c, ERR_SYNTAX, "BITPOS k 1 0 1 bit extra");
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "BITPOS l 1");
}
END_TEST

START_TEST(bitop_ops)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET a %b", "\xf0\x0f\xaa", (size_t)3);
    expect_status(c, "OK", "SET b %b", "\xff\x01", (size_t)2);
    expect_int(c, 3, "BITOP AND d a b");
    expect_bulk(c, "\xf0\x01", "GETRANGE d 0 1");
    expect_int(c, 0, "GETBIT d 16");
    expect_int(c, 3, "STRLEN d");
    expect_int(c, 3, "BITOP OR d a b");
    redisReply *r = cmd(c, "GET d");
    ck_assert_uint_eq(r->len, 3);
    ck_assert(memcmp(r->str, "\xff\x0f\xaa", 3) == 0);
    freeReplyObject(r);
    expect_int(c, 3, "BITOP XOR d a b nokey");
    r = cmd(c, "GET d");
    ck_assert(memcmp(r->str, "\x0f\x0e\xaa", 3) == 0);
    freeReplyObject(r);
    expect_int(c, 3, "BITOP not d a");
    r = cmd(c, "GET d");
    ck_assert(memcmp(r->str, "\x0f\xf0\x55", 3) == 0);
    freeReplyObject(r);
    /* a missing key is all zeros: AND gives zeros as long as the longest */
    expect_int(c, 3, "BITOP AND d a nokey");
    r = cmd(c, "GET d");
    ck_assert(r->len == 3 && memcmp(r->str, "\0\0\0", 3) == 0);
    freeReplyObject(r);
    /* an empty result deletes the destination */
    expect_int(c, 0, "BITOP OR d nokey1 nokey2");
    expect_int(c, 0, "EXISTS d");
    expect_status(c, "OK", "SET e %s", "");
    expect_status(c, "OK", "SET d x EX 100");
    expect_int(c, 0, "BITOP NOT d e");
    expect_int(c, 0, "EXISTS d");
    /* the destination loses its TTL and its type */
    expect_status(c, "OK", "SET d x EX 100");
    expect_int(c, 3, "BITOP OR d a");
    expect_int(c, -1, "TTL d");
    expect_int(c, 1, "RPUSH l a");
    expect_int(c, 3, "BITOP OR l a");
    expect_status(c, "string", "TYPE l");
    /* the destination may be a source */
    expect_int(c, 3, "BITOP XOR a a");
    expect_int(c, 12, "BITCOUNT a");
    expect_int(c, 3, "BITOP XOR a a a");
    expect_int(c, 0, "BITCOUNT a");
    /* INT-encoded sources are their decimal bytes */
    expect_status(c, "OK", "SET n 12");
    expect_int(c, 2, "BITOP AND d n n");
    expect_bulk(c, "12", "GET d");
    /* errors */
    expect_error(c, ERR_SYNTAX, "BITOP NAND d a b");
    expect_error(c, "ERR BITOP NOT must be called with a single source key.", "BITOP NOT d a b");
    expect_int(c, 1, "RPUSH list x");
    expect_error(c, ERR_WRONGTYPE, "BITOP AND d b list");
    expect_error(c, "ERR wrong number of arguments for 'bitop' command", "BITOP AND d");
}
END_TEST

START_TEST(bitfield_ops)
{
    redisContext *c = h_c;
    /* the examples of Redis's documentation */
    expect_ints(c, (long long[]){ 1, 0 }, 2, "BITFIELD %s INCRBY i5 100 1 GET u4 0", "k");
    expect_ints(c, (long long[]){ 1, 1 }, 2,
                "BITFIELD %s incrby u2 100 1 OVERFLOW SAT incrby u2 102 1", "m");
    expect_ints(c, (long long[]){ 2, 2 }, 2,
                "BITFIELD %s incrby u2 100 1 OVERFLOW SAT incrby u2 102 1", "m");
    expect_ints(c, (long long[]){ 3, 3 }, 2,
                "BITFIELD %s incrby u2 100 1 OVERFLOW SAT incrby u2 102 1", "m");
    expect_ints(c, (long long[]){ 0, 3 }, 2,
                "BITFIELD %s incrby u2 100 1 OVERFLOW SAT incrby u2 102 1", "m");
    expect_ints(c, (long long[]){ 1, NIL }, 2,
                "BITFIELD %s OVERFLOW FAIL incrby u2 102 1 incrby u2 102 3", "f");
    /* SET returns the old value; # offsets are in units of the type */
    expect_ints(c, (long long[]){ 0, 0, 100, 200 }, 4,
                "BITFIELD %s SET i8 #0 100 SET u8 #1 200 GET i8 0 GET u8 8", "s");
    expect_bulk(c, "d\xc8", "GET s");
    expect_ints(c, (long long[]){ -56 }, 1, "BITFIELD %s GET i8 #1", "s");
    expect_ints(c, (long long[]){ 200, 3 }, 2, "BITFIELD %s SET u8 #1 -253 GET u8 8", "s");
    /* signed WRAP / SAT / FAIL */
    expect_ints(c, (long long[]){ 0, -128 }, 2, "BITFIELD %s SET i8 0 127 INCRBY i8 0 1", "w");
    expect_ints(c, (long long[]){ 127 }, 1, "BITFIELD %s OVERFLOW WRAP INCRBY i8 0 -1", "w");
    expect_ints(c, (long long[]){ 127 }, 1, "BITFIELD %s OVERFLOW SAT INCRBY i8 0 10", "w");
    expect_ints(c, (long long[]){ -128 }, 1, "BITFIELD %s OVERFLOW SAT INCRBY i8 0 -1000", "w");
    expect_ints(c, (long long[]){ NIL }, 1, "BITFIELD %s OVERFLOW FAIL INCRBY i8 0 -1", "w");
    expect_ints(c, (long long[]){ -128 }, 1, "BITFIELD %s GET i8 0", "w");
    expect_ints(c, (long long[]){ -128, 127 }, 2,
                "BITFIELD %s OVERFLOW SAT SET i8 0 1000 GET i8 0", "w");
    expect_ints(c, (long long[]){ NIL, 127 }, 2,
                "BITFIELD %s OVERFLOW FAIL SET i8 0 128 GET i8 0", "w");
    expect_ints(c, (long long[]){ 127, -128 }, 2, "BITFIELD %s SET i8 0 128 GET i8 0", "w");
    /* 64-bit fields */
    expect_ints(c, (long long[]){ 0, INT64_MIN }, 2,
                "BITFIELD %s SET i64 0 9223372036854775807 INCRBY i64 0 1", "b");
    expect_ints(c, (long long[]){ NIL }, 1,
                "BITFIELD %s OVERFLOW FAIL INCRBY i64 0 -1", "b");
    expect_ints(c, (long long[]){ INT64_MIN + 0 }, 1, "BITFIELD %s OVERFLOW SAT INCRBY i64 0 -5",
                "b");
    expect_ints(c, (long long[]){ 0, 9223372036854775807LL, 9223372036854775807LL }, 3,
                "BITFIELD %s SET u63 3 -1 GET u63 3 OVERFLOW SAT INCRBY u63 3 1", "u");
    expect_ints(c, (long long[]){ 0 }, 1, "BITFIELD %s OVERFLOW WRAP INCRBY u63 3 1", "u");
    /* an unaligned field across bytes, beyond the end reads zeros */
    expect_ints(c, (long long[]){ 0, 0x1ffff }, 2,
                "BITFIELD %s SET u17 5 131071 GET u17 5", "x");
    expect_int(c, 3, "STRLEN x");
    expect_ints(c, (long long[]){ 0x1ffff << 3 }, 1, "BITFIELD %s GET u22 3", "x");
    expect_ints(c, (long long[]){ 0 }, 1, "BITFIELD %s GET u8 1000", "x");
    /* only GETs on an absent key: zeros, and nothing is created */
    expect_ints(c, (long long[]){ 0, 0 }, 2, "BITFIELD %s GET u8 0 GET i64 #3", "nokey");
    expect_int(c, 0, "EXISTS nokey");
    expect_ints(c, NULL, 0, "BITFIELD %s", "nokey");
    /* FAIL still creates the key, as Redis */
    expect_ints(c, (long long[]){ NIL }, 1, "BITFIELD %s OVERFLOW FAIL SET u2 #100 7",
                "new");
    expect_int(c, 26, "STRLEN new");
    /* BITFIELD_RO */
    expect_ints(c, (long long[]){ -128 }, 1, "BITFIELD_RO %s GET i8 0", "w");
    expect_error(c, "ERR BITFIELD_RO only supports the GET subcommand",
                 "BITFIELD_RO w GET i8 0 SET i8 0 1");
    expect_error(c, "ERR BITFIELD_RO only supports the GET subcommand",
                 "BITFIELD_RO w INCRBY i8 0 1");
    expect_error(c, ERR_SYNTAX, "BITFIELD_RO w GET i8");
    /* errors */
    expect_error(c, ERR_BFTYPE, "BITFIELD w GET u64 0");
    expect_error(c, ERR_BFTYPE, "BITFIELD w GET i65 0");
    expect_error(c, ERR_BFTYPE, "BITFIELD w GET i0 0");
    expect_error(c, ERR_BFTYPE, "BITFIELD w GET x8 0");
    expect_error(c, ERR_BFTYPE, "BITFIELD w GET i 0");
    expect_error(c, ERR_OFFSET, "BITFIELD w GET i8 -1");
    expect_error(c, ERR_OFFSET, "BITFIELD w GET i8 #-1");
    expect_error(c, ERR_OFFSET, "BITFIELD w GET i8 #536870912");
    expect_error(c, ERR_OFFSET, "BITFIELD w SET i8 4294967296 1");
    expect_error(c, ERR_INT, "BITFIELD w SET i8 0 x");
    expect_error(c, ERR_INT, "BITFIELD w INCRBY i8 0 1.5");
    expect_error(c, ERR_SYNTAX, "BITFIELD w GET i8");
    expect_error(c, ERR_SYNTAX, "BITFIELD w SET i8 0");
    expect_error(c, ERR_SYNTAX, "BITFIELD w FOO");
    expect_error(c, ERR_SYNTAX, "BITFIELD w OVERFLOW");
    expect_error(c, "ERR Invalid OVERFLOW type specified", "BITFIELD w OVERFLOW nope GET i8 0");
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, ERR_WRONGTYPE, "BITFIELD l GET i8 0");
    expect_error(c, ERR_WRONGTYPE, "BITFIELD l SET i8 0 1");
    expect_error(c, ERR_BFTYPE, "BITFIELD l SET u64 0 1");
}
END_TEST

/* A BITFIELD whose writes change no field and grow nothing writes
 * nothing: a WATCH of the key holds (Redis 7.0 signals the key only when a
 * write changed it). */
START_TEST(bitfield_watch_noop)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "WATCH k");
    expect_ints(c, (long long[]){ 118 }, 1, "BITFIELD %s SET u8 0 118", "k");
    expect_ints(c, (long long[]){ 118 }, 1, "BITFIELD %s INCRBY u8 0 0", "k");
    expect_ints(c, (long long[]){ NIL }, 1, "BITFIELD %s OVERFLOW FAIL INCRBY u8 0 200", "k");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "PING");
    freeReplyObject(expect_array(c, 1, "EXEC"));
    /* a changed field, or a longer string, is a change */
    const char *changes[] = {"BITFIELD %s SET u8 0 119", "BITFIELD %s SET u8 100 0", NULL};
    for (int i = 0; changes[i]; i++) {
        expect_status(c, "OK", "WATCH k");
        freeReplyObject(expect_array(c, 1, changes[i], "k"));
        expect_status(c, "OK", "MULTI");
        expect_status(c, "QUEUED", "PING");
        expect_nil(c, "EXEC");
    }
}
END_TEST

START_TEST(lcs_cmd)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "MSET key1 ohmytext key2 mynewtext");
    expect_bulk(c, "mytext", "LCS key1 key2");
    expect_int(c, 6, "LCS key1 key2 LEN");
    redisReply *r = expect_array(c, 4, "LCS key1 key2 IDX");
    check_bulk(r->element[0], "matches");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    redisReply *m = r->element[1]->element[0];
    ck_assert_uint_eq(m->elements, 2);
    check_int(m->element[0]->element[0], 4);
    check_int(m->element[0]->element[1], 7);
    check_int(m->element[1]->element[0], 5);
    check_int(m->element[1]->element[1], 8);
    m = r->element[1]->element[1];
    check_int(m->element[0]->element[0], 2);
    check_int(m->element[0]->element[1], 3);
    check_int(m->element[1]->element[0], 0);
    check_int(m->element[1]->element[1], 1);
    check_bulk(r->element[2], "len");
    check_int(r->element[3], 6);
    freeReplyObject(r);
    r = expect_array(c, 4, "LCS key1 key2 IDX MINMATCHLEN 4 WITHMATCHLEN");
    ck_assert_uint_eq(r->element[1]->elements, 1);
    m = r->element[1]->element[0];
    ck_assert_uint_eq(m->elements, 3);
    check_int(m->element[2], 4);
    freeReplyObject(r);
    r = expect_array(c, 4, "LCS key1 key2 idx minmatchlen -5");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    freeReplyObject(r);
    /* absent keys are empty strings, INT values their decimal bytes */
    expect_bulk(c, "", "LCS key1 nokey");
    expect_int(c, 0, "LCS nokey nokey LEN");
    expect_status(c, "OK", "MSET n1 123456 n2 1x3y5");
    expect_bulk(c, "135", "LCS n1 n2");
    /* errors */
    expect_error(c, "ERR If you want both the length and indexes, please just use IDX.",
                 "LCS key1 key2 LEN IDX");
    expect_error(c, ERR_SYNTAX, "LCS key1 key2 MINMATCHLEN");
    expect_error(c, ERR_SYNTAX, "LCS key1 key2 FOO");
    expect_error(c, ERR_INT, "LCS key1 key2 MINMATCHLEN x");
    expect_int(c, 1, "RPUSH l a");
    expect_error(c, "ERR The specified keys must contain string values", "LCS key1 l");
    expect_error(c, "ERR The specified keys must contain string values", "LCS l key1 FOO");
    expect_error(c, "ERR wrong number of arguments for 'lcs' command", "LCS key1");
}
END_TEST

/* ---- the same random commands here and on redis-server ---- */


static int same_reply(const redisReply *a, const redisReply *b)
{
    if (a->type != b->type) return 0;
    switch (a->type) {
    case REDIS_REPLY_INTEGER: return a->integer == b->integer;
    case REDIS_REPLY_NIL: return 1;
    case REDIS_REPLY_ARRAY:
        if (a->elements != b->elements) return 0;
        for (size_t i = 0; i < a->elements; i++)
            if (!same_reply(a->element[i], b->element[i])) return 0;
        return 1;
    default: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    }
}

/* One random bit command (argv of strings built into buf). */
static int random_command(char **argv, char bufs[][64])
{
    static const char *const keys[] = { "a", "b", "c", "n", "nokey" };
    static const char *const types[] = { "i1", "u1", "i7", "u8", "i13", "u31", "i32", "i63",
                                         "u63", "i64", "u2", "i3" };
    static const char *const ow[] = { "WRAP", "SAT", "FAIL" };
    int n = 0;
#define PUT(...) (snprintf(bufs[n], 64, __VA_ARGS__), argv[n] = bufs[n], n++)
    const char *k = keys[rnd() % 5];
    switch (rnd() % 8) {
    case 0:
        PUT("SETBIT"); PUT("%s", k); PUT("%lld", rnd_in(0, 200)); PUT("%lld", rnd_in(0, 1));
        break;
    case 1:
        PUT("BITCOUNT"); PUT("%s", k);
        if (rnd() % 4) { PUT("%lld", rnd_in(-40, 40)); PUT("%lld", rnd_in(-40, 40)); }
        if (rnd() % 2) PUT("%s", rnd() % 2 ? "BIT" : "BYTE");
        break;
    case 2:
        PUT("BITPOS"); PUT("%s", k); PUT("%lld", rnd_in(0, 1));
        if (rnd() % 4) PUT("%lld", rnd_in(-40, 40));
        if (n == 4 && rnd() % 2) PUT("%lld", rnd_in(-40, 40));
        if (n == 5 && rnd() % 2) PUT("%s", rnd() % 2 ? "BIT" : "BYTE");
        break;
    case 3: {
        PUT("BITFIELD"); PUT("%s", k);
        for (int ops = (int)rnd_in(1, 4); ops > 0; ops--) {
            int what = (int)(rnd() % 4);
            if (what == 3) { PUT("OVERFLOW"); PUT("%s", ow[rnd() % 3]); continue; }
            PUT("%s", what == 0 ? "GET" : what == 1 ? "SET" : "INCRBY");
            PUT("%s", types[rnd() % 12]);
            if (rnd() % 3 == 0) PUT("#%lld", rnd_in(0, 20)); else PUT("%lld", rnd_in(0, 150));
            if (what) {
                long long v = (long long)rnd();
                if (rnd() % 2) v = rnd_in(-300, 300);
                PUT("%lld", v);
            }
        }
        break;
    }
    case 4:
        PUT("BITOP"); PUT("%s", (const char *[]){ "AND", "OR", "XOR", "NOT" }[rnd() % 4]);
        PUT("%s", keys[rnd() % 3]);
        if (strcmp(argv[1], "NOT") == 0) PUT("%s", k);
        else for (int j = (int)rnd_in(1, 3); j > 0; j--) PUT("%s", keys[rnd() % 5]);
        break;
    case 5:
        PUT("LCS"); PUT("%s", k); PUT("%s", keys[rnd() % 5]);
        switch (rnd() % 4) {
        case 0: PUT("LEN"); break;
        case 1: PUT("IDX"); PUT("MINMATCHLEN"); PUT("%lld", rnd_in(0, 3)); break;
        case 2: PUT("IDX"); PUT("WITHMATCHLEN"); break;
        default: break;
        }
        break;
    case 6:
        PUT("GET"); PUT("%s", k);
        break;
    default:
        PUT("SET"); PUT("%s", k);
        if (rnd() % 2) PUT("%lld", rnd_in(-99999, 99999));
        else {
            int len = (int)rnd_in(0, 12);
            for (int i = 0; i < len; i++) bufs[n][i] = "ab\x00\xff\x0f" "cd"[rnd() % 7];
            bufs[n][len] = '\0';
            argv[n] = bufs[n];
            n++;
        }
        break;
    }
#undef PUT
    return n;
}

START_TEST(random_vs_redis)
{
    srv *rs = h_srv_start_redis("%s", "");
    redisContext *r = srv_connect(rs), *v = h_c;
    char *argv[32], bufs[32][64];
    size_t lens[32];
    for (int i = 0; i < 6000; i++) {
        int n = random_command(argv, bufs);
        for (int j = 0; j < n; j++) lens[j] = strlen(argv[j]);
        redisReply *a = redisCommandArgv(v, n, (const char **)argv, lens);
        redisReply *b = redisCommandArgv(r, n, (const char **)argv, lens);
        ck_assert_ptr_nonnull(a);
        ck_assert_ptr_nonnull(b);
        if (!same_reply(a, b)) {
            char cmdline[512] = "", s1[256], s2[256];
            for (int j = 0; j < n; j++) {
                strncat(cmdline, argv[j], sizeof cmdline - strlen(cmdline) - 2);
                strcat(cmdline, " ");
            }
            ck_abort_msg("command %d '%s': %s here, %s on redis-server", i, cmdline,
                         h_reply_str(a, s1, sizeof s1), h_reply_str(b, s2, sizeof s2));
        }
        freeReplyObject(a);
        freeReplyObject(b);
    }
    redisFree(r);
}
END_TEST

/* What reaches the AOF: the same commands as redis-server writes for the
 * same sequence (a write that changes nothing is not propagated; PFCOUNT
 * that caches a cardinality is), and the AOF replays to the same bytes. */
static const char *const g_prop_cmds[] = {
    "SETBIT k 1 1", "SETBIT k 1 1", "SETBIT k 1 0", "SETBIT k 100 0",
    "BITFIELD k SET u8 0 1 GET u8 0", "BITFIELD k SET u8 0 1", "BITFIELD k GET u8 0",
    "BITFIELD k OVERFLOW FAIL INCRBY u2 0 9", "BITFIELD_RO k GET u8 0",
    "BITFIELD k OVERFLOW SAT INCRBY i8 #3 1000 INCRBY i8 #3 1", "BITOP OR d k",
    "BITOP OR d nokey", "BITOP OR d nokey", "BITOP NOT d2 k", "PFADD h a", "PFADD h a",
    "PFCOUNT h", "PFCOUNT h", "PFADD h b c", "PFMERGE h2 h", "PFMERGE h2 h",
    "PFCOUNT h h2", "PFDEBUG TODENSE h", "PFDEBUG TODENSE h", "PFDEBUG GETREG h2",
    "PFDEBUG ENCODING h2", "LCS k h", "GETBIT k 3", "BITCOUNT k", "BITPOS k 1",
    "SET end 1",
};

static char *aof_incr(const srv *s, size_t *len)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.1.incr.aof", s->dir);
    return h_slurp(path, len, 1);
}

START_TEST(propagation_matches_redis)
{
    const char *args = "--appendonly yes --appendfsync always";
    srv *vs = h_srv_start("%s", args), *rs = h_srv_start_redis("%s", args);
    redisContext *v = srv_connect(vs), *r = srv_connect(rs);
    for (size_t i = 0; i < sizeof g_prop_cmds / sizeof g_prop_cmds[0]; i++) {
        redisReply *a = cmd(v, g_prop_cmds[i]), *b = cmd(r, g_prop_cmds[i]);
        char s1[128], s2[128];
        ck_assert_msg(same_reply(a, b), "%s: %s here, %s on redis-server", g_prop_cmds[i],
                      h_reply_str(a, s1, sizeof s1), h_reply_str(b, s2, sizeof s2));
        freeReplyObject(a);
        freeReplyObject(b);
    }
    size_t lv, lr;
    char *fv = aof_incr(vs, &lv), *fr = aof_incr(rs, &lr);
    ck_assert_msg(lv == lr && memcmp(fv, fr, lv) == 0, "AOF differs:\n%s\n---- redis-server:\n%s",
                  fv, fr);
    free(fv);
    free(fr);
    /* replayed: the same values */
    const char *keys[] = { "k", "d2", "h", "h2" };
    char *before[4];
    size_t blen[4];
    expect_int(v, 0, "EXISTS d");
    for (int i = 0; i < 4; i++) {
        redisReply *x = cmd(v, "GET %s", keys[i]);
        ck_assert_int_eq(x->type, REDIS_REPLY_STRING);
        before[i] = malloc(x->len + 1);
        memcpy(before[i], x->str, x->len);
        blen[i] = x->len;
        freeReplyObject(x);
    }
    redisFree(v);
    srv_kill9(vs);
    srv *vs2 = h_srv_start_on(vs, "%s", args);
    v = srv_connect(vs2);
    h_wait_loaded(v, 20000);
    expect_int(v, 0, "EXISTS d");
    for (int i = 0; i < 4; i++) {
        redisReply *x = cmd(v, "GET %s", keys[i]);
        ck_assert_msg(x->type == REDIS_REPLY_STRING && x->len == blen[i] &&
                      memcmp(x->str, before[i], blen[i]) == 0, "%s differs after replay", keys[i]);
        freeReplyObject(x);
        free(before[i]);
    }
    redisFree(v);
    /* redis-server's AOF (PFCOUNT included) loads here with the same values */
    redisReply *want[4];
    for (int i = 0; i < 4; i++) want[i] = cmd(r, "GET %s", keys[i]);
    redisFree(r);
    srv_kill9(rs);
    srv *vs3 = h_srv_start("--dir '%s' --appendonly yes", rs->dir);
    v = srv_connect(vs3);
    h_wait_loaded(v, 20000);
    for (int i = 0; i < 4; i++) {
        redisReply *x = cmd(v, "GET %s", keys[i]);
        ck_assert_msg(same_reply(x, want[i]), "%s differs from redis-server's after its AOF",
                      keys[i]);
        freeReplyObject(x);
        freeReplyObject(want[i]);
    }
    redisFree(v);
}
END_TEST

/* BITFIELD that creates its key while FAIL refuses every write: Redis 7.0
 * creates the key but propagates nothing (its replicas and AOF lack it);
 * verso propagates the creation (without an event, as Redis sends none). */
START_TEST(bitfield_fail_creation_replayed)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 1, "BITFIELD n OVERFLOW FAIL SET u2 #100 7");
    check_nil(r->element[0]);
    freeReplyObject(r);
    expect_int(c, 26, "STRLEN n");
    expect_status(c, "OK", "SET end 1");
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 20000);
    expect_int(c, srv_is_reference() ? 0 : 26, "STRLEN n");
    redisFree(c);
}
END_TEST

/* Keyspace events (notify-keyspace-events KEA): the names and the cases
 * where none is sent, as redis-server 7.0.15 sends them. */
START_TEST(keyspace_events)
{
    redisContext *c = h_c, *sub = srv_connect(h_srv);
    expect_status(c, "OK", "CONFIG SET notify-keyspace-events KEA");
    redisReply *r = redisCommand(sub, "PSUBSCRIBE __keyevent@0__:*");
    ck_assert_ptr_nonnull(r);
    freeReplyObject(r);
    static const char *const cmds[] = {
        "SETBIT k 1 1", "SETBIT k 1 1", "SETBIT k 1 0", "BITFIELD k SET u8 0 1 GET u8 0",
        "BITFIELD k SET u8 0 1", "BITFIELD k GET u8 0", "BITFIELD k OVERFLOW FAIL INCRBY u2 0 9",
        "BITOP OR d k", "BITOP OR d nokey", "BITOP OR d nokey", "PFADD h a", "PFADD h a",
        "PFCOUNT h", "PFMERGE h2 h", "PFDEBUG TODENSE h", "LCS k h", "SETBIT k 100 0",
        "GETBIT k 1", "BITCOUNT k", "BITPOS k 1", "BITFIELD_RO k GET u8 0", "PFCOUNT h h2",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) freeReplyObject(cmd(c, cmds[i]));
    expect_int_range(c, 1, 1, "PUBLISH __keyevent@0__:end x");
    static const char *const want[] = {
        "setbit k", "setbit k", "setbit k", "set d", "del d", "pfadd h", "pfadd h2",
        "setbit k", "end x",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        ck_assert_int_eq(redisGetReply(sub, (void **)&r), REDIS_OK);
        ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 4);
        char got[128];
        snprintf(got, sizeof got, "%s %s", r->element[2]->str + strlen("__keyevent@0__:"),
                 r->element[3]->str);
        ck_assert_msg(strcmp(got, want[i]) == 0, "event %zu: '%s', want '%s'", i, got, want[i]);
        freeReplyObject(r);
    }
    redisFree(sub);
}
END_TEST

static void teardown(void)
{
    h_srv_drop_all();
    h_teardown();
}

int main(void)
{
    Suite *s = suite_create("bitops");
    TCase *tc = tcase_create("bitops");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, setbit_getbit);
    tcase_add_test(tc, setbit_last_offset);
    tcase_add_test(tc, bitcount_ranges);
    tcase_add_test(tc, bitpos_ranges);
    tcase_add_test(tc, bitop_ops);
    tcase_add_test(tc, bitfield_ops);
    tcase_add_test(tc, bitfield_watch_noop);
    tcase_add_test(tc, lcs_cmd);
    tcase_add_test(tc, random_vs_redis);
    tcase_add_test(tc, propagation_matches_redis);
    tcase_add_test(tc, bitfield_fail_creation_replayed);
    tcase_add_test(tc, keyspace_events);
    suite_add_tcase(s, tc);
    return h_main(s);
}
