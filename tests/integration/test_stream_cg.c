/* Integration tests: Redis 7.0's consumer groups on streams (XGROUP,
 * XREADGROUP, XACK, XPENDING, XCLAIM, XAUTOCLAIM, XINFO) against a real
 * server: replies and error texts in Redis's order, the PEL's life
 * (read, claim, ack, autoclaim of deleted entries, delconsumer), lag and
 * entries-read after XDEL / XTRIM / XSETID (the cases of Redis's
 * stream-cgroups.tcl), RESP3 shapes, keyspace events, propagation (the
 * AOF holds XCLAIM / XGROUP SETID / CREATECONSUMER forms and replays to
 * the same groups; a replica gets the same groups), WATCH and keyspace
 * hits as Redis counts them, MULTI/EXEC and EVAL, XREADGROUP BLOCK, and
 * radix-tree-nodes against a model of Redis's rax. Run against
 * redis-server too (VERSO_SERVER). */
#include "harness.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define ERR_SYNTAX "ERR syntax error"
#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_ID "ERR Invalid stream ID specified as stream command argument"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"

/* ---- helpers --------------------------------------------------------- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* A reply as text: strings bare, integers as numbers, nil as "nil",
 * arrays as [a,b], errors as !text. */
static void render(sbuf *b, const redisReply *r) {
    char tmp[64];
    switch (r->type) {
    case REDIS_REPLY_STRING:
    case REDIS_REPLY_STATUS:
        sb_put(b, r->str, r->len);
        break;
    case REDIS_REPLY_ERROR:
        sb_put(b, "!", 1);
        sb_put(b, r->str, r->len);
        break;
    case REDIS_REPLY_INTEGER:
        snprintf(tmp, sizeof tmp, "%lld", r->integer);
        sb_put(b, tmp, strlen(tmp));
        break;
    case REDIS_REPLY_NIL:
        sb_put(b, "nil", 3);
        break;
    case REDIS_REPLY_ARRAY:
        sb_put(b, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) sb_put(b, ",", 1);
            render(b, r->element[i]);
        }
        sb_put(b, "]", 1);
        break;
    default:
        ck_abort_msg("unexpected reply type %d", r->type);
    }
}

/* The command's reply rendered (caller frees). */
static char *vrun(redisContext *c, const char *fmt, va_list ap) {
    redisReply *r = redisvCommand(c, fmt, ap);
    ck_assert_msg(r != NULL, "I/O error on %s", fmt);
    sbuf b = {0};
    render(&b, r);
    freeReplyObject(r);
    if (!b.p) sb_put(&b, "", 0);
    return b.p;
}

static char *run(redisContext *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = vrun(c, fmt, ap);
    va_end(ap);
    return s;
}

/* The command's rendered reply must be `want`. */
#define expect_r(c, want, ...) expect_r_at(__LINE__, c, want, __VA_ARGS__)
static void expect_r_at(int line, redisContext *c, const char *want, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *got = vrun(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(strcmp(got, want) == 0, "line %d: %s\n  got  %s\n  want %s", line, fmt, got,
                  want);
    free(got);
}

/* An integer field of a map-like reply (flat name/value array). */
static long long map_int(const redisReply *m, const char *name) {
    const redisReply *v = h_map_field(m, name);
    ck_assert_msg(v != NULL, "no field %s", name);
    ck_assert_int_eq(v->type, REDIS_REPLY_INTEGER);
    return v->integer;
}

/* XINFO GROUPS' group i: "entries-read=<n|nil> lag=<n|nil>". */
static char *group_counters(redisContext *c, const char *key, size_t i) {
    redisReply *r = cmd(c, "XINFO GROUPS %s", key);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_gt(r->elements, i);
    const redisReply *g = r->element[i];
    sbuf b = {0};
    sb_put(&b, "entries-read=", 13);
    render(&b, h_map_field(g, "entries-read"));
    sb_put(&b, " lag=", 5);
    render(&b, h_map_field(g, "lag"));
    freeReplyObject(r);
    return b.p;
}

#define expect_counters(c, key, i, want) expect_counters_at(__LINE__, c, key, i, want)
static void expect_counters_at(int line, redisContext *c, const char *key, size_t i,
                               const char *want) {
    char *got = group_counters(c, key, i);
    ck_assert_msg(strcmp(got, want) == 0, "line %d: group %zu of %s: got %s want %s", line, i,
                  key, got, want);
    free(got);
}

static void add_entries(redisContext *c, const char *key, int from, int to) {
    for (int i = from; i <= to; i++) {
        redisReply *r = cmd(c, "XADD %s %d-0 f %d", key, i, i);
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        freeReplyObject(r);
    }
}

/* ---- XGROUP -------------------------------------------------------------- */

START_TEST(xgroup_create_and_errors)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 3);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_error(c, "BUSYGROUP Consumer Group name already exists", "XGROUP CREATE s g 0");
    expect_error(c, "BUSYGROUP Consumer Group name already exists", "XGROUP CREATE s g $ MKSTREAM");
    expect_r(c, "[[name,g,consumers,0,pending,0,last-delivered-id,0-0,entries-read,nil,lag,3]]",
             "XINFO GROUPS s");
    expect_status(c, "OK", "XGROUP CREATE s g2 $");
    expect_status(c, "OK", "XGROUP CREATE s g3 1 ENTRIESREAD 1");
    expect_counters(c, "s", 1, "entries-read=nil lag=0");
    expect_counters(c, "s", 2, "entries-read=1 lag=2");
    expect_error(c, "ERR value for ENTRIESREAD must be positive or -1",
                 "XGROUP CREATE s g4 0 ENTRIESREAD -2");
    expect_error(c, ERR_INT, "XGROUP CREATE s g4 0 ENTRIESREAD x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'create'. Try XGROUP HELP.",
                 "XGROUP create s g4 0 foo");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'SETID'. Try XGROUP HELP.",
                 "XGROUP SETID s g 0 MKSTREAM");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'CREATE'. Try XGROUP HELP.",
                 "XGROUP CREATE s g4 0 ENTRIESREAD");
    expect_error(c, "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you "
                    "may want to use the MKSTREAM option to create an empty stream automatically.",
                 "XGROUP CREATE nokey g 0");
    expect_error(c, ERR_ID, "XGROUP CREATE s g4 -");
    expect_error(c, ERR_ID, "XGROUP CREATE s g4 (1");
    expect_error(c, ERR_ID, "XGROUP CREATE s g4 1-x");
    expect_error(c, "ERR unknown subcommand 'foo'. Try XGROUP HELP.", "XGROUP foo s g");
    expect_error(c, "ERR wrong number of arguments for 'xgroup|create' command", "XGROUP CREATE s g");
    /* MKSTREAM makes an empty stream */
    expect_status(c, "OK", "XGROUP CREATE e g $ MKSTREAM");
    expect_r(c, "stream", "TYPE e");
    expect_int(c, 0, "XLEN e");
    expect_r(c, "[[name,g,consumers,0,pending,0,last-delivered-id,0-0,entries-read,nil,lag,0]]",
             "XINFO GROUPS e");
    expect_status(c, "OK", "SET str x");
    expect_error(c, ERR_WRONGTYPE, "XGROUP CREATE str g 0 MKSTREAM");
    expect_error(c, ERR_WRONGTYPE, "XGROUP DESTROY str g");
    redisReply *r = expect_array(c, 17, "XGROUP HELP");
    ck_assert_str_eq(r->element[0]->str, "XGROUP <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
}
END_TEST

START_TEST(xgroup_setid_destroy_consumers)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    const char *nog = "NOGROUP No such consumer group 'nog' for key name 's'";
    expect_error(c, nog, "XGROUP SETID s nog 0");
    expect_error(c, nog, "XGROUP CREATECONSUMER s nog c");
    expect_error(c, nog, "XGROUP DELCONSUMER s nog c");
    expect_int(c, 0, "XGROUP DESTROY s nog");
    expect_status(c, "OK", "XGROUP SETID s g 3");
    expect_r(c, "[[name,g,consumers,0,pending,0,last-delivered-id,3-0,entries-read,nil,lag,nil]]",
             "XINFO GROUPS s");
    expect_status(c, "OK", "XGROUP SETID s g $ ENTRIESREAD 5");
    expect_counters(c, "s", 0, "entries-read=5 lag=0");
    expect_status(c, "OK", "XGROUP SETID s g + ");
    expect_r(c, "[[name,g,consumers,0,pending,0,last-delivered-id,"
                "18446744073709551615-18446744073709551615,entries-read,nil,lag,nil]]",
             "XINFO GROUPS s");
    expect_error(c, ERR_ID, "XGROUP SETID s g foo");
    expect_status(c, "OK", "XGROUP SETID s g 0");
    /* consumers */
    expect_int(c, 1, "XGROUP CREATECONSUMER s g alice");
    expect_int(c, 0, "XGROUP CREATECONSUMER s g alice");
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]", "XREADGROUP GROUP g bob COUNT 2 STREAMS s >");
    redisReply *r = expect_array(c, 2, "XINFO CONSUMERS s g");
    check_bulk(h_map_field(r->element[0], "name"), "alice");
    ck_assert_int_eq(map_int(r->element[0], "pending"), 0);
    check_bulk(h_map_field(r->element[1], "name"), "bob");
    ck_assert_int_eq(map_int(r->element[1], "pending"), 2);
    ck_assert_int_ge(map_int(r->element[1], "idle"), 0);
    freeReplyObject(r);
    expect_int(c, 2, "XGROUP DELCONSUMER s g bob");
    expect_int(c, 0, "XGROUP DELCONSUMER s g bob");
    expect_r(c, "[0,nil,nil,nil]", "XPENDING s g");
    expect_int(c, 1, "XGROUP DESTROY s g");
    expect_int(c, 0, "XGROUP DESTROY s g");
    expect_r(c, "[]", "XINFO GROUPS s");
}
END_TEST

START_TEST(xgroup_keyspace_events)
{
    redisContext *c = h_c;
    redisContext *sub = srv_connect(h_srv);
    expect_status(c, "OK", "CONFIG SET notify-keyspace-events Et");
    redisReply *r = cmd(sub, "PSUBSCRIBE __keyevent@0__:*");
    freeReplyObject(r);
    expect_status(c, "OK", "XGROUP CREATE s g $ MKSTREAM");
    expect_status(c, "OK", "XGROUP SETID s g 0");
    expect_int(c, 1, "XGROUP CREATECONSUMER s g c");
    expect_int(c, 0, "XGROUP DELCONSUMER s g c");
    expect_int(c, 0, "XGROUP DELCONSUMER s g nobody"); /* no event */
    add_entries(c, "s", 1, 1);
    expect_r(c, "[[s,[[1-0,[f,1]]]]]", "XREADGROUP GROUP g c2 STREAMS s >");
    expect_int(c, 1, "XGROUP DESTROY s g");
    const char *want[] = {"xgroup-create", "xgroup-setid", "xgroup-createconsumer",
                          "xgroup-delconsumer", "xadd", "xgroup-createconsumer",
                          "xgroup-destroy", NULL};
    for (int i = 0; want[i]; i++) {
        redisReply *m = h_next_reply(sub);
        ck_assert_int_eq(m->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(m->elements, 4);
        char ch[64];
        snprintf(ch, sizeof ch, "__keyevent@0__:%s", want[i]);
        check_bulk(m->element[2], ch);
        check_bulk(m->element[3], "s");
        freeReplyObject(m);
    }
    redisFree(sub);
}
END_TEST

/* ---- XREADGROUP ---------------------------------------------------------- */

START_TEST(xreadgroup_new_and_history)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]", "XREADGROUP GROUP g c1 COUNT 2 STREAMS s >");
    expect_r(c, "[[s,[[3-0,[f,3]]]]]", "XREADGROUP GROUP g c2 NOACK COUNT 1 STREAMS s >");
    expect_r(c, "[[s,[[4-0,[f,4]],[5-0,[f,5]]]]]", "xreadgroup group g c1 streams s >");
    /* nothing new: nil, and no consumer made */
    expect_r(c, "nil", "XREADGROUP GROUP g c3 STREAMS s >");
    redisReply *r = expect_array(c, 2, "XINFO CONSUMERS s g");
    freeReplyObject(r);
    expect_r(c, "[[name,g,consumers,2,pending,4,last-delivered-id,5-0,entries-read,5,lag,0]]",
             "XINFO GROUPS s");
    /* history: the consumer's own PEL, a deleted entry as [id, nil] */
    expect_int(c, 1, "XDEL s 2-0");
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,nil],[4-0,[f,4]],[5-0,[f,5]]]]]",
             "XREADGROUP GROUP g c1 STREAMS s 0");
    expect_r(c, "[[s,[[5-0,[f,5]]]]]", "XREADGROUP GROUP g c1 STREAMS s 4");
    expect_r(c, "[[s,[[1-0,[f,1]]]]]", "XREADGROUP GROUP g c1 COUNT 1 STREAMS s 0-0");
    expect_r(c, "[[s,[]]]", "XREADGROUP GROUP g c2 STREAMS s 0"); /* NOACK: no PEL */
    /* a history read creates its consumer */
    expect_r(c, "[[s,[]]]", "XREADGROUP GROUP g c9 STREAMS s 0");
    /* delivery counts: 1 (first read) + 2 history reads for 1-0 */
    r = expect_array(c, 4, "XPENDING s g - + 10 c1");
    ck_assert_int_eq(r->element[0]->element[3]->integer, 3);
    check_bulk(r->element[1]->element[0], "2-0");
    ck_assert_int_eq(r->element[1]->element[3]->integer, 1); /* deleted: not counted again */
    ck_assert_int_eq(r->element[2]->element[3]->integer, 2);
    freeReplyObject(r);
    /* re-delivery after SETID: the entries move to the reader */
    expect_status(c, "OK", "XGROUP SETID s g 0");
    expect_r(c, "[[s,[[1-0,[f,1]]]]]", "XREADGROUP GROUP g c2 COUNT 1 STREAMS s >");
    r = expect_array(c, 1, "XPENDING s g - 1-0 10");
    check_bulk(r->element[0]->element[1], "c2");
    ck_assert_int_eq(r->element[0]->element[3]->integer, 1);
    freeReplyObject(r);
    /* two streams, one with nothing to serve */
    add_entries(c, "t", 1, 1);
    expect_status(c, "OK", "XGROUP CREATE t g $");
    expect_r(c, "[[s,[[3-0,[f,3]]]]]", "XREADGROUP GROUP g c2 COUNT 1 STREAMS t s > >");
    /* a key named twice: the second ">" sees what the first left */
    expect_r(c, "[[s,[[4-0,[f,4]]]],[s,[[5-0,[f,5]]]]]",
             "XREADGROUP GROUP g c2 COUNT 1 STREAMS s s > >");
    expect_r(c, "nil", "XREADGROUP GROUP g c2 STREAMS s s > >");
    add_entries(c, "s", 6, 6);
    expect_r(c, "[[s,[[6-0,[f,6]]]]]", "XREADGROUP GROUP g c2 STREAMS s s > >");
}
END_TEST

START_TEST(xreadgroup_errors)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 2);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_status(c, "OK", "SET str x");
    const char *unbalanced = "ERR Unbalanced XREAD list of streams: for each stream key an ID or "
                             "'$' must be specified.";
    expect_error(c, "ERR wrong number of arguments for 'xreadgroup' command",
                 "XREADGROUP GROUP g c STREAMS s");
    expect_error(c, unbalanced, "XREADGROUP GROUP g c STREAMS s nokey >");
    expect_error(c, "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read "
                    "the history of this consumer by specifying a proper ID, or use the > ID to "
                    "get new messages. The $ ID would just return an empty result set.",
                 "XREADGROUP GROUP g c STREAMS s s > $");
    expect_error(c, ERR_INT, "XREADGROUP GROUP g c COUNT x STREAMS s >");
    expect_error(c, "ERR timeout is not an integer or out of range",
                 "XREADGROUP GROUP g c BLOCK x STREAMS s >");
    expect_error(c, "ERR timeout is negative", "XREADGROUP GROUP g c BLOCK -1 STREAMS s >");
    expect_error(c, ERR_SYNTAX, "XREADGROUP GROUP g c FOO STREAMS s >");
    expect_error(c, ERR_SYNTAX, "XREADGROUP GROUP g STREAMS s > x");
    expect_error(c, "ERR Missing GROUP option for XREADGROUP", "XREADGROUP COUNT 1 NOACK STREAMS s >");
    expect_error(c, ERR_ID, "XREADGROUP GROUP g c STREAMS s abc");
    expect_error(c, ERR_ID, "XREADGROUP GROUP g c STREAMS s +");
    expect_error(c, ERR_ID, "XREADGROUP GROUP g c STREAMS s -");
    expect_error(c, ERR_WRONGTYPE, "XREADGROUP GROUP g c STREAMS str >");
    expect_error(c, "NOGROUP No such key 'nokey' or consumer group 'g' in XREADGROUP with GROUP "
                    "option",
                 "XREADGROUP GROUP g c STREAMS nokey >");
    expect_error(c, "NOGROUP No such key 's' or consumer group 'nog' in XREADGROUP with GROUP "
                    "option",
                 "XREADGROUP GROUP nog c STREAMS s >");
    /* COUNT below 0 is no limit */
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]", "XREADGROUP GROUP g c COUNT -5 STREAMS s >");
    /* the errors changed nothing */
    expect_r(c, "[2,1-0,2-0,[[c,2]]]", "XPENDING s g");
}
END_TEST

/* Keyspace hits and misses as Redis counts them: XREADGROUP looks each
 * key up when checking it and again when serving; the others once. */
START_TEST(keyspace_hits)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    const struct {
        const char *cmd;
        long long hits, misses;
    } t[] = {{"XREADGROUP GROUP g c COUNT 1 STREAMS s >", 2, 0},
             {"XREADGROUP GROUP g c STREAMS s 0", 2, 0},
             {"XREADGROUP GROUP g c COUNT 1 STREAMS s s > >", 4, 0},
             {"XREADGROUP GROUP g c STREAMS s nokey > >", 1, 1},
             {"XACK s g 1", 1, 0},
             {"XPENDING nokey g", 0, 1},
             {"XCLAIM s g c 0 1", 1, 0},
             {"XAUTOCLAIM s g c 0 0", 1, 0},
             {"XINFO STREAM s", 1, 0},
             {"XINFO CONSUMERS s g", 1, 0},
             {"XGROUP SETID s g 0", 0, 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        long long h0 = h_info_int(c, "stats", "keyspace_hits");
        long long m0 = h_info_int(c, "stats", "keyspace_misses");
        redisReply *r = cmd(c, t[i].cmd);
        freeReplyObject(r);
        ck_assert_msg(h_info_int(c, "stats", "keyspace_hits") - h0 == t[i].hits, "%s: hits",
                      t[i].cmd);
        ck_assert_msg(h_info_int(c, "stats", "keyspace_misses") - m0 == t[i].misses,
                      "%s: misses", t[i].cmd);
    }
}
END_TEST

/* RESP3: a map of streams, a deleted history entry as [id, null]. */
START_TEST(xreadgroup_resp3)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 2);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    int fd = raw_connect(h_srv->port);
    char buf[4096] = "";
    int closed = 0;
    ck_assert_int_eq(raw_send_str(fd, "HELLO 3\r\n"), 0);
    size_t got = 0;
    while (!strstr(buf, "modules\r\n*0\r\n")) { /* HELLO's map ends with modules: [] */
        size_t n0 = raw_read(fd, buf + got, sizeof buf - 1 - got, 1, 2000, &closed);
        ck_assert_uint_gt(n0, 0);
        got += n0;
        buf[got] = '\0';
    }
    ck_assert_int_eq(raw_send_str(fd, "XREADGROUP GROUP g c STREAMS s >\r\n"), 0);
    const char *want = "%1\r\n$1\r\ns\r\n*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nf\r\n$1\r\n1\r\n"
                       "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\n2\r\n";
    size_t n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    expect_int(c, 1, "XDEL s 1-0");
    ck_assert_int_eq(raw_send_str(fd, "XREADGROUP GROUP g c STREAMS s 0\r\n"), 0);
    want = "%1\r\n$1\r\ns\r\n*2\r\n*2\r\n$3\r\n1-0\r\n_\r\n"
           "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nf\r\n$1\r\n2\r\n";
    n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(raw_send_str(fd, "XREADGROUP GROUP g c STREAMS s >\r\n"), 0);
    n = raw_read(fd, buf, sizeof buf - 1, 3, 2000, &closed);
    buf[n] = '\0';
    ck_assert_str_eq(buf, "_\r\n");
    ck_assert_int_eq(raw_send_str(fd, "XPENDING s g\r\n"), 0);
    want = "*4\r\n:2\r\n$3\r\n1-0\r\n$3\r\n2-0\r\n*1\r\n*2\r\n$1\r\nc\r\n$1\r\n2\r\n";
    n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    /* XINFO's records are maps */
    expect_status(c, "OK", "XGROUP CREATE e g $ MKSTREAM");
    ck_assert_int_eq(raw_send_str(fd, "XINFO GROUPS e\r\n"), 0);
    want = "*1\r\n%6\r\n$4\r\nname\r\n$1\r\ng\r\n$9\r\nconsumers\r\n:0\r\n"
           "$7\r\npending\r\n:0\r\n$17\r\nlast-delivered-id\r\n$3\r\n0-0\r\n"
           "$12\r\nentries-read\r\n_\r\n$3\r\nlag\r\n:0\r\n";
    n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(raw_send_str(fd, "XINFO STREAM e\r\n"), 0);
    want = "%10\r\n$6\r\nlength\r\n:0\r\n$15\r\nradix-tree-keys\r\n:0\r\n"
           "$16\r\nradix-tree-nodes\r\n:1\r\n$17\r\nlast-generated-id\r\n$3\r\n0-0\r\n"
           "$20\r\nmax-deleted-entry-id\r\n$3\r\n0-0\r\n$13\r\nentries-added\r\n:0\r\n"
           "$23\r\nrecorded-first-entry-id\r\n$3\r\n0-0\r\n$6\r\ngroups\r\n:1\r\n"
           "$11\r\nfirst-entry\r\n_\r\n$10\r\nlast-entry\r\n_\r\n";
    n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    ck_assert_str_eq(buf, want);
    ck_assert_int_eq(raw_send_str(fd, "XINFO CONSUMERS s nog\r\n"), 0);
    want = "-NOGROUP No such consumer group 'nog' for key name 's'\r\n";
    n = raw_read(fd, buf, sizeof buf - 1, strlen(want), 2000, &closed);
    buf[n] = '\0';
    ck_assert_str_eq(buf, want);
    close(fd);
}
END_TEST

/* ---- XACK, XPENDING --------------------------------------------------------- */

START_TEST(xack_and_xpending)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 6);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_status(c, "OK", "SET str x");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g alice COUNT 4 STREAMS s >");
    freeReplyObject(r);
    r = expect_array(c, 1, "XREADGROUP GROUP g bob STREAMS s >");
    freeReplyObject(r);
    expect_r(c, "[6,1-0,6-0,[[alice,4],[bob,2]]]", "XPENDING s g");
    /* XACK: ids parsed first, all or nothing */
    expect_error(c, ERR_ID, "XACK s g 1-0 foo");
    expect_error(c, ERR_ID, "XACK s g -");
    expect_int(c, 0, "XACK nokey g foo");
    expect_int(c, 0, "XACK s nog foo");
    expect_error(c, ERR_WRONGTYPE, "XACK str g 1");
    expect_int(c, 2, "XACK s g 1 2-0 99-0 1-0");
    expect_int(c, 0, "XACK s g 1");
    expect_r(c, "[4,3-0,6-0,[[alice,2],[bob,2]]]", "XPENDING s g");
    /* extended form: ranges, exclusive bounds, count, consumer, IDLE */
    r = expect_array(c, 4, "XPENDING s g - + 10");
    check_bulk(r->element[0]->element[0], "3-0");
    check_bulk(r->element[0]->element[1], "alice");
    ck_assert_int_ge(r->element[0]->element[2]->integer, 0);
    ck_assert_int_eq(r->element[0]->element[3]->integer, 1);
    freeReplyObject(r);
    r = expect_array(c, 2, "XPENDING s g (3-0 (6-0 10");
    check_bulk(r->element[0]->element[0], "4-0");
    check_bulk(r->element[1]->element[0], "5-0");
    freeReplyObject(r);
    r = expect_array(c, 1, "XPENDING s g - + 1 bob");
    check_bulk(r->element[0]->element[0], "5-0");
    freeReplyObject(r);
    r = expect_array(c, 0, "XPENDING s g - + 10 nobody");
    freeReplyObject(r);
    r = expect_array(c, 0, "XPENDING s g - + 0");
    freeReplyObject(r);
    r = expect_array(c, 0, "XPENDING s g - + -3");
    freeReplyObject(r);
    r = expect_array(c, 0, "XPENDING s g IDLE 3600000 - + 10");
    freeReplyObject(r);
    r = expect_array(c, 4, "XPENDING s g IDLE 0 - + 10");
    freeReplyObject(r);
    h_sleep_ms(30);
    r = expect_array(c, 2, "XPENDING s g IDLE 20 - + 10 alice");
    ck_assert_int_ge(r->element[0]->element[2]->integer, 20);
    freeReplyObject(r);
    r = expect_array(c, 0, "XPENDING s g - + 10 c x y"); /* extra arguments: Redis ignores them */
    freeReplyObject(r);
    /* errors, in Redis's order: syntax and numbers before the key */
    expect_error(c, ERR_SYNTAX, "XPENDING s g 1");
    expect_error(c, ERR_SYNTAX, "XPENDING s g IDLE 10 - +");
    expect_error(c, ERR_INT, "XPENDING s g IDLE x - + 1");
    expect_error(c, ERR_INT, "XPENDING nokey g - + x");
    expect_error(c, ERR_ID, "XPENDING s g (- + 10");
    expect_error(c, ERR_ID, "XPENDING s g - (+ 10");
    expect_error(c, ERR_ID, "XPENDING s g foo + 10");
    expect_error(c, "ERR invalid start ID for the interval",
                 "XPENDING s g (18446744073709551615-18446744073709551615 + 10");
    expect_error(c, "NOGROUP No such key 'nokey' or consumer group 'g'", "XPENDING nokey g");
    expect_error(c, "NOGROUP No such key 's' or consumer group 'nog'", "XPENDING s nog - + 1");
    expect_error(c, ERR_WRONGTYPE, "XPENDING str g");
    /* empty PEL */
    expect_int(c, 4, "XACK s g 3 4 5 6");
    expect_r(c, "[0,nil,nil,nil]", "XPENDING s g");
}
END_TEST

/* ---- XCLAIM ------------------------------------------------------------------ */

START_TEST(xclaim_semantics)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g c1 STREAMS s >");
    freeReplyObject(r);
    expect_int(c, 2, "XDEL s 2-0 4-0");
    /* deleted entries leave the PEL; a missing id is skipped */
    expect_r(c, "[[1-0,[f,1]],[3-0,[f,3]]]", "XCLAIM s g c2 0 1 2-0 3-0 99-0");
    expect_r(c, "[4,1-0,5-0,[[c1,2],[c2,2]]]", "XPENDING s g");
    /* JUSTID does not count a delivery; the count otherwise grows */
    expect_r(c, "[3-0]", "XCLAIM s g c2 0 3 JUSTID");
    r = expect_array(c, 1, "XPENDING s g 3 3 1");
    ck_assert_int_eq(r->element[0]->element[3]->integer, 2);
    freeReplyObject(r);
    /* min-idle-time: a fresh delivery is not claimed */
    expect_r(c, "[]", "XCLAIM s g c3 3600000 1 3 5");
    /* IDLE / TIME / RETRYCOUNT */
    expect_r(c, "[5-0]", "XCLAIM s g c3 0 5 IDLE 100000 RETRYCOUNT 9 JUSTID");
    r = expect_array(c, 1, "XPENDING s g 5 5 1");
    check_bulk(r->element[0]->element[1], "c3");
    ck_assert_int_ge(r->element[0]->element[2]->integer, 100000);
    ck_assert_int_eq(r->element[0]->element[3]->integer, 9);
    freeReplyObject(r);
    expect_r(c, "[5-0]", "XCLAIM s g c3 50000 5 JUSTID"); /* idle enough now */
    r = expect_array(c, 2, "TIME");
    long long now = atoll(r->element[0]->str) * 1000;
    freeReplyObject(r);
    expect_r(c, "[1-0]", "XCLAIM s g c3 0 1 TIME %lld JUSTID", now - 500000);
    r = expect_array(c, 1, "XPENDING s g 1 1 1");
    ck_assert_int_ge(r->element[0]->element[2]->integer, 500000);
    freeReplyObject(r);
    /* a TIME in the future is now */
    expect_r(c, "[1-0]", "XCLAIM s g c3 0 1 TIME %lld JUSTID", now + 10000000);
    r = expect_array(c, 1, "XPENDING s g 1 1 1");
    ck_assert_int_lt(r->element[0]->element[2]->integer, 5000);
    freeReplyObject(r);
    /* FORCE: a PEL entry for an entry nobody read */
    expect_status(c, "OK", "XGROUP CREATE s g2 $");
    expect_r(c, "[]", "XCLAIM s g2 c 0 1");
    expect_r(c, "[[1-0,[f,1]]]", "XCLAIM s g2 c 0 1 FORCE");
    r = expect_array(c, 1, "XPENDING s g2 - + 10");
    ck_assert_int_eq(r->element[0]->element[3]->integer, 2); /* Redis: 1, then the claim's +1 */
    freeReplyObject(r);
    expect_r(c, "[]", "XCLAIM s g2 c 0 2 FORCE"); /* deleted: no PEL entry */
    /* LASTID moves the group forward, never back */
    expect_r(c, "[]", "XCLAIM s g2 c 0 77 LASTID 9-9");
    expect_r(c, "[]", "XCLAIM s g2 c 0 77 LASTID 1-0");
    r = expect_array(c, 2, "XINFO GROUPS s");
    check_bulk(h_map_field(r->element[1], "last-delivered-id"), "9-9");
    freeReplyObject(r);
    expect_counters(c, "s", 1, "entries-read=nil lag=nil");
}
END_TEST

START_TEST(xclaim_errors)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 2);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_status(c, "OK", "SET str x");
    expect_error(c, "NOGROUP No such key 'nokey' or consumer group 'g'", "XCLAIM nokey g c abc 1");
    expect_error(c, "NOGROUP No such key 's' or consumer group 'nog'", "XCLAIM s nog c 0 1 foo");
    expect_error(c, ERR_WRONGTYPE, "XCLAIM str g c 0 1");
    expect_error(c, "ERR Invalid min-idle-time argument for XCLAIM", "XCLAIM s g c abc 1");
    expect_error(c, ERR_ID, "XCLAIM s g c 0 1 LASTID -");
    expect_error(c, "ERR Invalid TIME option argument for XCLAIM", "XCLAIM s g c 0 1 TIME x");
    expect_error(c, "ERR Invalid IDLE option argument for XCLAIM", "XCLAIM s g c 0 1 IDLE x");
    expect_error(c, "ERR Invalid RETRYCOUNT option argument for XCLAIM",
                 "XCLAIM s g c 0 1 RETRYCOUNT x");
    expect_error(c, "ERR Unrecognized XCLAIM option 'idle'", "XCLAIM s g c 0 1 idle");
    expect_error(c, "ERR Unrecognized XCLAIM option '-'", "XCLAIM s g c 0 -");
    expect_error(c, "ERR Unrecognized XCLAIM option 'foo'", "XCLAIM s g c 0 1 2 foo 3");
    /* an error claims nothing, even with FORCE before it */
    expect_error(c, "ERR Unrecognized XCLAIM option '3'", "XCLAIM s g c 0 1 FORCE 3");
    expect_r(c, "[0,nil,nil,nil]", "XPENDING s g");
    redisReply *r = expect_array(c, 0, "XINFO CONSUMERS s g");
    freeReplyObject(r);
}
END_TEST

/* ---- XAUTOCLAIM -------------------------------------------------------------- */

START_TEST(xautoclaim_semantics)
{
    redisContext *c = h_c;
    add_entries(c, "s", 1, 6);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g c1 STREAMS s >");
    freeReplyObject(r);
    expect_int(c, 2, "XDEL s 2-0 3-0");
    /* COUNT 1: a deleted id counts against the limit and is reported */
    expect_r(c, "[2-0,[[1-0,[f,1]]],[]]", "XAUTOCLAIM s g c2 0 - COUNT 1");
    expect_r(c, "[3-0,[],[2-0]]", "XAUTOCLAIM s g c2 0 2-0 COUNT 1");
    expect_r(c, "[4-0,[],[3-0]]", "XAUTOCLAIM s g c2 0 (2-0 COUNT 1");
    expect_r(c, "[0-0,[4-0,5-0,6-0],[]]", "XAUTOCLAIM s g c2 0 4 JUSTID");
    expect_r(c, "[4,1-0,6-0,[[c2,4]]]", "XPENDING s g");
    /* JUSTID did not count deliveries; the first call did */
    r = expect_array(c, 4, "XPENDING s g - + 10");
    ck_assert_int_eq(r->element[0]->element[3]->integer, 2);
    ck_assert_int_eq(r->element[1]->element[3]->integer, 1);
    freeReplyObject(r);
    /* min-idle-time skips fresh entries but still moves the cursor */
    expect_r(c, "[0-0,[],[]]", "XAUTOCLAIM s g c3 3600000 0");
    redisReply *cons = expect_array(c, 2, "XINFO CONSUMERS s g"); /* c3 was not made */
    freeReplyObject(cons);
    /* COUNT * 10 attempts: 25 fresh entries, COUNT 2 looks at 20 */
    add_entries(c, "t", 1, 25);
    expect_status(c, "OK", "XGROUP CREATE t g 0");
    r = expect_array(c, 1, "XREADGROUP GROUP g c1 STREAMS t >");
    freeReplyObject(r);
    expect_r(c, "[21-0,[],[]]", "XAUTOCLAIM t g c2 3600000 0 COUNT 2");
    expect_r(c, "[0-0,[],[]]", "XAUTOCLAIM t g c2 3600000 21 COUNT 2");
    /* errors: arguments before the key */
    expect_error(c, "ERR Invalid min-idle-time argument for XAUTOCLAIM", "XAUTOCLAIM s g c x 0");
    expect_error(c, "ERR COUNT must be > 0", "XAUTOCLAIM s g c 0 0 COUNT 0");
    expect_error(c, "ERR COUNT must be > 0", "XAUTOCLAIM nokey g c 0 0 COUNT x");
    expect_error(c, ERR_SYNTAX, "XAUTOCLAIM nokey g c 0 0 foo");
    expect_error(c, ERR_ID, "XAUTOCLAIM s g c 0 foo");
    expect_error(c, "ERR invalid start ID for the interval",
                 "XAUTOCLAIM s g c 0 (18446744073709551615-18446744073709551615");
    expect_error(c, "NOGROUP No such key 'nokey' or consumer group 'g'", "XAUTOCLAIM nokey g c 0 0");
    expect_error(c, "NOGROUP No such key 's' or consumer group 'nog'", "XAUTOCLAIM s nog c 0 0");
}
END_TEST

/* The PEL's life: read, claim, ack, autoclaim of deleted entries, and a
 * consumer deleted with what it held. */
START_TEST(pel_life_cycle)
{
    redisContext *c = h_c;
    add_entries(c, "q", 1, 10);
    expect_status(c, "OK", "XGROUP CREATE q workers 0");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP workers w1 COUNT 4 STREAMS q >");
    freeReplyObject(r);
    r = expect_array(c, 1, "XREADGROUP GROUP workers w2 COUNT 4 STREAMS q >");
    freeReplyObject(r);
    expect_int(c, 2, "XACK q workers 1 5");
    expect_r(c, "[6,2-0,8-0,[[w1,3],[w2,3]]]", "XPENDING q workers");
    /* w1 dies: w3 takes its entries, one of which was trimmed away */
    expect_int(c, 1, "XDEL q 3-0");
    expect_r(c, "[0-0,[2-0,4-0,6-0,7-0,8-0],[3-0]]", "XAUTOCLAIM q workers w3 0 0 JUSTID");
    expect_r(c, "[5,2-0,8-0,[[w3,5]]]", "XPENDING q workers");
    expect_int(c, 3, "XACK q workers 2 4 6");
    expect_int(c, 2, "XGROUP DELCONSUMER q workers w3");
    expect_r(c, "[0,nil,nil,nil]", "XPENDING q workers");
    expect_r(c, "[[q,[[9-0,[f,9]],[10-0,[f,10]]]]]", "XREADGROUP GROUP workers w1 STREAMS q >");
    expect_r(c, "[[name,workers,consumers,2,pending,2,last-delivered-id,10-0,entries-read,10,"
                "lag,0]]",
             "XINFO GROUPS q");
}
END_TEST

/* ---- lag and entries-read (Redis's stream-cgroups.tcl cases) ------------------ */

START_TEST(lag_read_counter)
{
    redisContext *c = h_c;
    add_entries(c, "x", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE x g1 0");
    expect_counters(c, "x", 0, "entries-read=nil lag=5");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >");
    freeReplyObject(r);
    expect_counters(c, "x", 0, "entries-read=1 lag=4");
    r = expect_array(c, 1, "XREADGROUP GROUP g1 c11 COUNT 2 STREAMS x >");
    freeReplyObject(r);
    expect_counters(c, "x", 0, "entries-read=3 lag=2");
    r = expect_array(c, 1, "XREADGROUP GROUP g1 c11 COUNT 2 STREAMS x >");
    freeReplyObject(r);
    expect_counters(c, "x", 0, "entries-read=5 lag=0");
    add_entries(c, "x", 6, 6);
    expect_counters(c, "x", 0, "entries-read=5 lag=1");
}
END_TEST

START_TEST(lag_with_xdel_xtrim)
{
    redisContext *c = h_c;
    add_entries(c, "x", 1, 5);
    expect_int(c, 1, "XDEL x 3-0");
    expect_status(c, "OK", "XGROUP CREATE x g1 0");
    expect_status(c, "OK", "XGROUP CREATE x g2 0");
    expect_counters(c, "x", 0, "entries-read=nil lag=nil");
    const char *steps[] = {"entries-read=nil lag=nil", "entries-read=nil lag=nil",
                           "entries-read=nil lag=nil", "entries-read=5 lag=0"};
    for (int i = 0; i < 4; i++) {
        redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g1 c11 COUNT 1 STREAMS x >");
        freeReplyObject(r);
        expect_counters(c, "x", 0, steps[i]);
    }
    add_entries(c, "x", 6, 6);
    expect_counters(c, "x", 0, "entries-read=5 lag=1");
    expect_int(c, 2, "XTRIM x MINID = 3-0");
    expect_counters(c, "x", 0, "entries-read=5 lag=1");
    expect_counters(c, "x", 1, "entries-read=nil lag=3");
    expect_int(c, 1, "XTRIM x MINID = 5-0");
    expect_counters(c, "x", 0, "entries-read=5 lag=1");
    expect_counters(c, "x", 1, "entries-read=nil lag=2");
    /* SETID forgets the counter unless ENTRIESREAD */
    expect_status(c, "OK", "XGROUP SETID x g2 5-0");
    expect_counters(c, "x", 1, "entries-read=nil lag=1");
    expect_status(c, "OK", "XGROUP SETID x g2 6-0 ENTRIESREAD 6");
    expect_counters(c, "x", 1, "entries-read=6 lag=0");
    /* XSETID's metadata: a deletion at the top makes the counters unknown */
    expect_status(c, "OK", "XSETID x 9-0 ENTRIESADDED 20 MAXDELETEDID 8-0");
    expect_counters(c, "x", 0, "entries-read=5 lag=nil");
    expect_counters(c, "x", 1, "entries-read=6 lag=nil");
    expect_int(c, 2, "XDEL x 5-0 6-0");
    expect_counters(c, "x", 0, "entries-read=5 lag=15");
    expect_counters(c, "x", 1, "entries-read=6 lag=14");
    add_entries(c, "x", 10, 10);
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g1 c11 STREAMS x >");
    freeReplyObject(r);
    expect_counters(c, "x", 0, "entries-read=6 lag=15");
    expect_counters(c, "x", 1, "entries-read=6 lag=15");
    /* an empty stream: the counter of the last id is entries-added */
    expect_status(c, "OK", "XGROUP CREATE x g3 0");
    expect_int(c, 1, "XDEL x 10-0");
    expect_counters(c, "x", 2, "entries-read=nil lag=0");
}
END_TEST

/* ---- XINFO --------------------------------------------------------------------- */

START_TEST(xinfo_stream_forms)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "XGROUP CREATE e g $ MKSTREAM");
    expect_r(c, "[length,0,radix-tree-keys,0,radix-tree-nodes,1,last-generated-id,0-0,"
                "max-deleted-entry-id,0-0,entries-added,0,recorded-first-entry-id,0-0,groups,1,"
                "first-entry,nil,last-entry,nil]",
             "XINFO STREAM e");
    expect_r(c, "[length,0,radix-tree-keys,0,radix-tree-nodes,1,last-generated-id,0-0,"
                "max-deleted-entry-id,0-0,entries-added,0,recorded-first-entry-id,0-0,entries,[],"
                "groups,[[name,g,last-delivered-id,0-0,entries-read,nil,lag,0,pel-count,0,"
                "pending,[],consumers,[]]]]",
             "XINFO STREAM e FULL");
    add_entries(c, "s", 1, 12);
    expect_int(c, 1, "XDEL s 1-0");
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    redisReply *r = expect_array(c, 1, "XREADGROUP GROUP g c COUNT 3 STREAMS s >");
    freeReplyObject(r);
    expect_r(c, "[length,11,radix-tree-keys,1,radix-tree-nodes,2,last-generated-id,12-0,"
                "max-deleted-entry-id,1-0,entries-added,12,recorded-first-entry-id,2-0,groups,1,"
                "first-entry,[2-0,[f,2]],last-entry,[12-0,[f,12]]]",
             "XINFO STREAM s");
    /* FULL: entries up to COUNT (10 by default, 0 for all), PEL lists too */
    r = expect_array(c, 18, "XINFO STREAM s FULL");
    ck_assert_uint_eq(h_map_field(r, "entries")->elements, 10);
    const redisReply *g = h_map_field(r, "groups")->element[0];
    check_bulk(h_map_field(g, "name"), "g");
    check_bulk(h_map_field(g, "last-delivered-id"), "4-0");
    ck_assert_int_eq(map_int(g, "entries-read"), 4);
    ck_assert_int_eq(map_int(g, "lag"), 8);
    ck_assert_int_eq(map_int(g, "pel-count"), 3);
    const redisReply *pend = h_map_field(g, "pending");
    ck_assert_uint_eq(pend->elements, 3);
    check_bulk(pend->element[0]->element[0], "2-0");
    check_bulk(pend->element[0]->element[1], "c");
    ck_assert_int_gt(pend->element[0]->element[2]->integer, 1000000000000LL);
    ck_assert_int_eq(pend->element[0]->element[3]->integer, 1);
    const redisReply *cons = h_map_field(g, "consumers")->element[0];
    check_bulk(h_map_field(cons, "name"), "c");
    ck_assert_int_gt(map_int(cons, "seen-time"), 1000000000000LL);
    ck_assert_int_eq(map_int(cons, "pel-count"), 3);
    ck_assert_uint_eq(h_map_field(cons, "pending")->elements, 3);
    ck_assert_uint_eq(h_map_field(cons, "pending")->element[2]->elements, 3);
    freeReplyObject(r);
    r = expect_array(c, 18, "XINFO STREAM s FULL COUNT 0");
    ck_assert_uint_eq(h_map_field(r, "entries")->elements, 11);
    freeReplyObject(r);
    r = expect_array(c, 18, "XINFO STREAM s FULL COUNT 2");
    ck_assert_uint_eq(h_map_field(r, "entries")->elements, 2);
    g = h_map_field(r, "groups")->element[0];
    ck_assert_uint_eq(h_map_field(g, "pending")->elements, 2);
    cons = h_map_field(g, "consumers")->element[0];
    ck_assert_uint_eq(h_map_field(cons, "pending")->elements, 2);
    freeReplyObject(r);
    r = expect_array(c, 18, "XINFO STREAM s FULL COUNT -1"); /* below 0: the default */
    ck_assert_uint_eq(h_map_field(r, "entries")->elements, 10);
    freeReplyObject(r);
    /* errors */
    expect_status(c, "OK", "SET str x");
    const char *sub = "ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.";
    expect_error(c, sub, "XINFO STREAM s foo");
    expect_error(c, sub, "XINFO STREAM s FULL COUNT");
    expect_error(c, sub, "XINFO STREAM s FULL bar 1");
    expect_error(c, sub, "XINFO STREAM s FULL COUNT 1 x");
    expect_error(c, ERR_INT, "XINFO STREAM s FULL COUNT x");
    expect_error(c, "ERR no such key", "XINFO STREAM nokey");
    expect_error(c, "ERR no such key", "XINFO GROUPS nokey");
    expect_error(c, "ERR no such key", "XINFO CONSUMERS nokey g");
    expect_error(c, ERR_WRONGTYPE, "XINFO STREAM str");
    expect_error(c, "NOGROUP No such consumer group 'nog' for key name 's'",
                 "XINFO CONSUMERS s nog");
    expect_error(c, "ERR unknown subcommand 'foo'. Try XINFO HELP.", "XINFO foo s");
    expect_error(c, "ERR wrong number of arguments for 'xinfo|help' command", "XINFO HELP a");
    r = expect_array(c, 9, "XINFO HELP");
    ck_assert_str_eq(r->element[5]->str, "STREAM <key> [FULL [COUNT <count>]");
    freeReplyObject(r);
}
END_TEST

/* Redis's rax over 16-byte big-endian master ids: a node per key end, one
 * per run of bytes with one way on, one per fork with a child per way. */
typedef struct mkey {
    unsigned char b[16];
} mkey;

static long long model_sub(const mkey *k, size_t lo, size_t hi, size_t d);
static long long model_fork(const mkey *k, size_t lo, size_t hi, size_t at) {
    long long n = 1;
    for (size_t i = lo; i < hi;) {
        size_t j = i + 1;
        while (j < hi && k[j].b[at] == k[i].b[at]) j++;
        n += model_sub(k, i, j, at + 1);
        i = j;
    }
    return n;
}
static long long model_sub(const mkey *k, size_t lo, size_t hi, size_t d) {
    if (d == 16) return 1;
    size_t l = 0;
    while (l < 16 && k[lo].b[l] == k[hi - 1].b[l]) l++;
    if (l == 16) return 2;
    if (l > d) return 1 + model_fork(k, lo, hi, l);
    return model_fork(k, lo, hi, d);
}

/* Streams of many shapes, appended only (so with stream-node-max-entries
 * N the nodes start at every N-th entry): radix-tree-keys and -nodes as
 * the model says. */
START_TEST(xinfo_radix_tree_nodes)
{
    redisContext *c = h_c;
    unsigned long long seed = 12345;
    for (int shape = 0; shape < 40; shape++) {
        int per_node = 1 + shape % 5;
        expect_status(c, "OK", "CONFIG SET stream-node-max-entries %d", per_node);
        expect_int(c, shape ? 1 : 0, "DEL s");
        int n = 1 + (shape * 7) % 60;
        mkey *masters = calloc((size_t)n, sizeof *masters);
        size_t nm = 0;
        unsigned long long ms = shape % 3 == 0 ? 1 : 1700000000000ULL;
        for (int i = 0; i < n; i++) {
            seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
            static const unsigned long long steps[] = {0, 1, 3, 255, 256, 65536, 1ULL << 33};
            unsigned long long seq = 0;
            ms += steps[(seed >> 33) % 7];
            redisReply *r = cmd(c, "XADD s %llu-* f v", ms);
            ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
            sscanf(r->str, "%llu-%llu", &ms, &seq);
            freeReplyObject(r);
            if (i % per_node == 0) {
                for (int b = 0; b < 8; b++) {
                    masters[nm].b[b] = (unsigned char)(ms >> (56 - 8 * b));
                    masters[nm].b[8 + b] = (unsigned char)(seq >> (56 - 8 * b));
                }
                nm++;
            }
        }
        redisReply *r = expect_array(c, 20, "XINFO STREAM s");
        ck_assert_int_eq(map_int(r, "radix-tree-keys"), (long long)nm);
        ck_assert_msg(map_int(r, "radix-tree-nodes") == model_sub(masters, 0, nm, 0),
                      "shape %d: %lld nodes, the model says %lld", shape,
                      map_int(r, "radix-tree-nodes"), model_sub(masters, 0, nm, 0));
        freeReplyObject(r);
        free(masters);
    }
}
END_TEST

/* ---- propagation ------------------------------------------------------------- */

static char *read_incr_aofs(const srv *s)
{
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/appendonlydir", s->dir);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "no %s", dir);
    sbuf all = {0};
    sb_put(&all, "", 0);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".incr.aof")) continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n;
        char *b = h_slurp(path, &n, 1);
        sb_put(&all, b, n);
        free(b);
    }
    closedir(d);
    return all.p;
}

/* The AOF as one line per command, words joined by spaces, numbers of 13
 * digits (unix ms) as T. */
static char *aof_lines(const char *aof) {
    sbuf b = {0};
    sb_put(&b, "", 0);
    const char *p = aof;
    while (*p == '*') {
        int argc = atoi(p + 1);
        p = strchr(p, '\n') + 1;
        for (int i = 0; i < argc; i++) {
            int len = atoi(p + 1);
            p = strchr(p, '\n') + 1;
            int is_ms = len == 13;
            for (int j = 0; j < len && is_ms; j++) is_ms = p[j] >= '0' && p[j] <= '9';
            if (i) sb_put(&b, " ", 1);
            if (is_ms)
                sb_put(&b, "T", 1);
            else
                sb_put(&b, p, (size_t)len);
            p += len + 2;
        }
        sb_put(&b, "\n", 1);
    }
    return b.p;
}

/* The groups' state as the tests compare it after a replay; without
 * `counters`, entries-read and lag are left out. */
static char *groups_state_of(redisContext *c, const char *key, int counters) {
    sbuf b = {0};
    char *s;
    redisReply *r = cmd(c, "XINFO GROUPS %s", key);
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *gi = r->element[i];
        for (size_t f = 0; f + 1 < gi->elements; f += 2) {
            const char *fname = gi->element[f]->str;
            if (!counters && (!strcmp(fname, "entries-read") || !strcmp(fname, "lag"))) continue;
            sb_put(&b, fname, strlen(fname));
            sb_put(&b, "=", 1);
            render(&b, gi->element[f + 1]);
            sb_put(&b, " ", 1);
        }
    }
    for (size_t i = 0; i < r->elements; i++) {
        const redisReply *name = h_map_field(r->element[i], "name");
        s = run(c, "XPENDING %s %s", key, name->str);
        sb_put(&b, s, strlen(s));
        free(s);
        redisReply *p = cmd(c, "XPENDING %s %s - + 100", key, name->str);
        for (size_t j = 0; j < p->elements; j++) {
            char line[256];
            snprintf(line, sizeof line, " %s:%s:%lld", p->element[j]->element[0]->str,
                     p->element[j]->element[1]->str, p->element[j]->element[3]->integer);
            sb_put(&b, line, strlen(line));
        }
        freeReplyObject(p);
    }
    freeReplyObject(r);
    return b.p;
}

static char *groups_state(redisContext *c, const char *key) { return groups_state_of(c, key, 1); }

START_TEST(propagation_in_the_aof)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    add_entries(c, "s", 1, 5);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]", "XREADGROUP GROUP g c1 COUNT 2 STREAMS s >");
    expect_r(c, "[[s,[[3-0,[f,3]]]]]", "XREADGROUP GROUP g c2 NOACK COUNT 1 STREAMS s >");
    expect_r(c, "[[s,[[1-0,[f,1]],[2-0,[f,2]]]]]", "XREADGROUP GROUP g c1 STREAMS s 0");
    expect_int(c, 1, "XDEL s 2-0");
    expect_r(c, "[[1-0,[f,1]]]", "XCLAIM s g c3 0 1 2-0 RETRYCOUNT 5");
    expect_r(c, "[]", "XCLAIM s g c3 0 77 LASTID 8-0");
    expect_r(c, "[0-0,[1-0],[]]", "XAUTOCLAIM s g c4 0 0 JUSTID");
    expect_int(c, 1, "XACK s g 1");
    char *aof = read_incr_aofs(s);
    char *lines = aof_lines(aof);
    const char *want =
        "MULTI\n"
        "XCLAIM s g c1 0 1-0 TIME T RETRYCOUNT 1 FORCE JUSTID LASTID 1-0\n"
        "XCLAIM s g c1 0 2-0 TIME T RETRYCOUNT 1 FORCE JUSTID LASTID 2-0\n"
        "EXEC\n"
        "MULTI\n"
        "XGROUP CREATECONSUMER s g c2\n"
        "XGROUP SETID s g 3-0 ENTRIESREAD 3\n"
        "EXEC\n"
        "XDEL s 2-0\n"
        "MULTI\n"
        "XCLAIM s g c3 0 1 TIME T RETRYCOUNT 5 FORCE JUSTID LASTID 3-0\n"
        "XCLAIM s g c1 0 2-0 TIME T RETRYCOUNT 2 FORCE JUSTID LASTID 3-0\n"
        "EXEC\n"
        "XGROUP SETID s g 8-0 ENTRIESREAD 3\n"
        "XCLAIM s g c4 0 1-0 TIME T RETRYCOUNT 5 FORCE JUSTID LASTID 8-0\n"
        "XACK s g 1\n";
    ck_assert_msg(strstr(lines, want) != NULL, "the AOF:\n%s\nlacks:\n%s", lines, want);
    free(aof);
    free(lines);
    char *before = groups_state(c, "s");
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    char *after = groups_state(c, "s");
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    redisFree(c);
}
END_TEST

static int rnd(unsigned long long *seed, int n) {
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((*seed >> 33) % (unsigned long long)n);
}

/* Random group traffic (reads with and without NOACK, claims with every
 * option, autoclaims, acks, SETID, consumers made and deleted, XDEL and
 * trims under them): the AOF replays to the same groups and PELs. */
START_TEST(random_ops_replay_from_aof)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always --stream-node-max-entries 4");
    redisContext *c = srv_connect(s);
    unsigned long long seed = 77;
#define RND(n) rnd(&seed, n)
    int ms = 1;
    expect_status(c, "OK", "XGROUP CREATE s g1 0 MKSTREAM");
    expect_status(c, "OK", "XGROUP CREATE s g2 0");
    for (int step = 0; step < 1500; step++) {
        const char *g = RND(2) ? "g1" : "g2";
        const char *cn = (const char *[]){"a", "b", "c"}[RND(3)];
        int id = RND(ms + 2);
        int op = RND(100);
        redisReply *r;
        if (op < 25)
            r = cmd(c, "XADD s %d-0 f %d", ms += 1 + RND(3), step);
        else if (op < 30)
            r = cmd(c, "XDEL s %d-0", id);
        else if (op < 32)
            r = cmd(c, "XTRIM s MAXLEN %s %d", RND(2) ? "=" : "~", RND(20));
        else if (op < 40)
            r = cmd(c, "XREADGROUP GROUP %s %s COUNT %d STREAMS s >", g, cn, RND(5));
        else if (op < 44)
            r = cmd(c, "XREADGROUP GROUP %s %s NOACK STREAMS s >", g, cn);
        else if (op < 48)
            r = cmd(c, "XREADGROUP GROUP %s %s STREAMS s %d", g, cn, id);
        else if (op < 56)
            r = cmd(c, "XACK s %s %d %d", g, id, RND(ms + 2));
        else if (op < 64)
            r = cmd(c, "XCLAIM s %s %s 0 %d %d %s RETRYCOUNT %d LASTID %d-0", g, cn, id,
                     RND(ms + 2), RND(2) ? "FORCE" : "JUSTID", RND(9), RND(ms + 2));
        else if (op < 70)
            r = cmd(c, "XCLAIM s %s %s 0 %d IDLE %d", g, cn, id, RND(1000));
        else if (op < 78)
            r = RND(3) ? cmd(c, "XAUTOCLAIM s %s %s 0 %d COUNT %d", g, cn, id, 1 + RND(4))
                       : cmd(c, "XAUTOCLAIM s %s %s 0 %d JUSTID", g, cn, id);
        else if (op < 84)
            r = cmd(c, "XGROUP SETID s %s %d ENTRIESREAD %d", g, id, RND(ms) - 1);
        else if (op < 88)
            r = cmd(c, "XGROUP SETID s %s $", g);
        else if (op < 93)
            r = cmd(c, "XGROUP CREATECONSUMER s %s %s", g, cn);
        else
            r = cmd(c, "XGROUP DELCONSUMER s %s %s", g, cn);
        ck_assert_msg(r->type != REDIS_REPLY_ERROR, "step %d: %s", step, r->str);
        freeReplyObject(r);
    }
#undef RND
    /* entries-read is left out: Redis 7.0.15 propagates a read without
     * NOACK as XCLAIMs, which carry the last id but not the counter, so
     * its own replay ends with other counters (verso does as Redis) */
    char *before = groups_state_of(c, "s", 0);
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes --stream-node-max-entries 4");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    char *after = groups_state_of(c, "s", 0);
    ck_assert_str_eq(after, before);
    free(before);
    free(after);
    redisFree(c);
}
END_TEST

/* A replica (synced while the keyspace is empty) gets the group commands'
 * effects through their propagated forms: the same PELs, owners, delivery
 * counts and last ids, consumers made by NOACK reads and claims. */
START_TEST(replica_gets_the_groups)
{
    srv *p = h_srv_start("--repl-diskless-sync-delay 0");
    srv *r = h_srv_start("--repl-diskless-sync-delay 0");
    redisContext *pc = srv_connect(p), *rc = srv_connect(r);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 60000);
    add_entries(pc, "s", 1, 8);
    expect_status(pc, "OK", "XGROUP CREATE s g 0");
    expect_status(pc, "OK", "XGROUP CREATE s g2 $");
    redisReply *x = expect_array(pc, 1, "XREADGROUP GROUP g a COUNT 3 STREAMS s >");
    freeReplyObject(x);
    x = expect_array(pc, 1, "XREADGROUP GROUP g b NOACK COUNT 2 STREAMS s >");
    freeReplyObject(x);
    x = expect_array(pc, 1, "XREADGROUP GROUP g c STREAMS s >");
    freeReplyObject(x);
    x = expect_array(pc, 1, "XREADGROUP GROUP g a STREAMS s 0"); /* not propagated */
    freeReplyObject(x);
    expect_int(pc, 1, "XDEL s 2-0");
    x = expect_array(pc, 2, "XCLAIM s g d 0 1 2 6-0 RETRYCOUNT 4");
    freeReplyObject(x);
    x = expect_array(pc, 3, "XAUTOCLAIM s g e 0 0 COUNT 2 JUSTID");
    freeReplyObject(x);
    x = expect_array(pc, 1, "XCLAIM s g2 f 0 8 FORCE");
    freeReplyObject(x);
    expect_int(pc, 1, "XACK s g 7");
    expect_int(pc, 1, "XGROUP CREATECONSUMER s g2 z");
    expect_status(pc, "OK", "XGROUP SETID s g2 5-0 ENTRIESREAD 5");
    char *want = groups_state_of(pc, "s", 0);
    /* the replica catches up (its offset reaches the primary's) */
    long long off = h_info_int(pc, "replication", "master_repl_offset");
    h_wait_info_ge(rc, "replication", "slave_repl_offset", off, 10000);
    char *got = groups_state_of(rc, "s", 0);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
    redisFree(pc);
    redisFree(rc);
}
END_TEST

/* MULTI/EXEC and EVAL: the commands run inside both; XREADGROUP BLOCK in
 * MULTI answers at once, in a script it is refused. */
START_TEST(multi_and_eval)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "XGROUP CREATE s g $ MKSTREAM");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "XADD s 1-0 f 1");
    expect_status(c, "QUEUED", "XREADGROUP GROUP g c STREAMS s >");
    expect_status(c, "QUEUED", "XREADGROUP GROUP g c BLOCK 0 STREAMS s >");
    expect_status(c, "QUEUED", "XPENDING s g");
    expect_status(c, "QUEUED", "XACK s g 1-0");
    expect_r(c, "[1-0,[[s,[[1-0,[f,1]]]]],nil,[1,1-0,1-0,[[c,1]]],1]", "EXEC");
    expect_r(c, "[[s,[[2-0,[f,2]]]]]",
             "EVAL %s 0",
             "redis.call('XADD','s','2-0','f','2'); "
             "return redis.call('XREADGROUP','GROUP','g','c','STREAMS','s','>')");
    expect_r(c, "[0-0,[2-0],[]]", "EVAL %s 1 s",
             "return redis.call('XAUTOCLAIM',KEYS[1],'g','d','0','0','JUSTID')");
    expect_r(c, "[[name,g,consumers,2,pending,1,last-delivered-id,2-0,entries-read,2,lag,0]]",
             "XINFO GROUPS s");
    redisReply *r = cmd(c, "EVAL %s 0",
                        "return redis.call('XREADGROUP','GROUP','g','c','BLOCK','0','STREAMS','s','>')");
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_msg(strncmp(r->str, "ERR XREADGROUP command is not allowed with BLOCK option from scripts",
                          strlen("ERR XREADGROUP command is not allowed with BLOCK option from scripts")) == 0,
                  "%s", r->str);
    freeReplyObject(r);
}
END_TEST

/* Redis's group commands and XSETID do not count as changes of the key: a
 * WATCH of it survives them (XGROUP CREATE MKSTREAM, which makes the key,
 * does not). */
START_TEST(watch_and_group_writes)
{
    redisContext *c = h_c;
    redisContext *w = srv_connect(h_srv);
    const char *ops[] = {"XGROUP SETID s g 0", "XREADGROUP GROUP g c STREAMS s >",
                         "XREADGROUP GROUP g c STREAMS s 0", "XCLAIM s g d 0 1-0",
                         "XAUTOCLAIM s g e 0 0", "XACK s g 1-0", "XGROUP CREATECONSUMER s g z",
                         "XGROUP DELCONSUMER s g z", "XGROUP CREATE s g2 0",
                         "XSETID s 2-0", "XSETID s 2-5 ENTRIESADDED 9", NULL};
    add_entries(c, "s", 1, 2);
    expect_status(c, "OK", "XGROUP CREATE s g 0");
    for (int i = 0; ops[i]; i++) {
        expect_status(w, "OK", "WATCH s");
        redisReply *r = cmd(c, ops[i]);
        ck_assert_msg(r->type != REDIS_REPLY_ERROR, "%s: %s", ops[i], r->str);
        freeReplyObject(r);
        expect_status(w, "OK", "MULTI");
        expect_status(w, "QUEUED", "PING");
        expect_r(w, "[PONG]", "EXEC");
    }
    /* XADD does change it */
    expect_status(w, "OK", "WATCH s");
    add_entries(c, "s", 3, 3);
    expect_status(w, "OK", "MULTI");
    expect_status(w, "QUEUED", "PING");
    expect_r(w, "nil", "EXEC");
    expect_status(w, "OK", "WATCH n");
    expect_status(c, "OK", "XGROUP CREATE n g $ MKSTREAM");
    expect_status(w, "OK", "MULTI");
    expect_status(w, "QUEUED", "PING");
    expect_r(w, "nil", "EXEC");
    redisFree(w);
}
END_TEST

/* ---- XREADGROUP BLOCK ---------------------------------------------------------- */

START_TEST(xreadgroup_block)
{
    redisContext *c = h_c;
    redisContext *b = srv_connect(h_srv);
    expect_status(c, "OK", "XGROUP CREATE s g $ MKSTREAM");
    /* woken by XADD */
    h_send(b, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    add_entries(c, "s", 1, 1);
    redisReply *r = h_next_reply(b);
    char *got = NULL;
    sbuf sb = {0};
    render(&sb, r);
    got = sb.p;
    ck_assert_str_eq(got, "[[s,[[1-0,[f,1]]]]]");
    free(got);
    freeReplyObject(r);
    expect_r(c, "[1,1-0,1-0,[[c,1]]]", "XPENDING s g");
    /* XGROUP DESTROY: NOGROUP */
    h_send(b, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "XGROUP DESTROY s g");
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "NOGROUP the consumer group this client was blocked on no longer exists");
    freeReplyObject(r);
    /* DEL of the key */
    expect_status(c, "OK", "XGROUP CREATE s g $");
    h_send(b, "XREADGROUP GROUP g c BLOCK 0 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_int(c, 1, "DEL s");
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "UNBLOCKED the stream key no longer exists");
    freeReplyObject(r);
    /* a timeout is a nil */
    expect_status(c, "OK", "XGROUP CREATE s g $ MKSTREAM");
    expect_r(c, "nil", "XREADGROUP GROUP g c BLOCK 50 STREAMS s >");
    /* NOACK when served after blocking: a consumer made, no PEL entry */
    h_send(b, "XREADGROUP GROUP g n BLOCK 0 NOACK STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    add_entries(c, "s", 2, 2);
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    freeReplyObject(r);
    expect_r(c, "[0,nil,nil,nil]", "XPENDING s g");
    /* two readers, one entry: the first one served, the other waits on */
    redisContext *b2 = srv_connect(h_srv);
    h_send(b, "XREADGROUP GROUP g c1 BLOCK 0 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    h_send(b2, "XREADGROUP GROUP g c2 BLOCK 300 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 2, 5000);
    add_entries(c, "s", 3, 3);
    r = h_next_reply(b);
    sb = (sbuf){0};
    render(&sb, r);
    ck_assert_str_eq(sb.p, "[[s,[[3-0,[f,3]]]]]");
    free(sb.p);
    freeReplyObject(r);
    r = h_next_reply(b2);
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    expect_r(c, "[1,3-0,3-0,[[c1,1]]]", "XPENDING s g");
    /* an entry added and deleted in one transaction: the blocked reader is
     * served an empty list (Redis compares the stream's last id), its
     * consumer made; not blocked, the same stream answers nil */
    h_send(b, "XREADGROUP GROUP g late BLOCK 0 STREAMS s >");
    h_wait_info(c, "clients", "blocked_clients", 1, 5000);
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "XADD s 9-0 f 9");
    expect_status(c, "QUEUED", "XDEL s 9-0");
    expect_r(c, "[9-0,1]", "EXEC");
    r = h_next_reply(b);
    sb = (sbuf){0};
    render(&sb, r);
    ck_assert_str_eq(sb.p, "[[s,[]]]");
    free(sb.p);
    freeReplyObject(r);
    r = expect_array(c, 3, "XINFO CONSUMERS s g");
    check_bulk(h_map_field(r->element[1], "name"), "late");
    freeReplyObject(r);
    expect_int(c, 1, "XDEL s 3-0");
    expect_r(c, "nil", "XREADGROUP GROUP g other STREAMS s >");
    redisFree(b);
    redisFree(b2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("stream_cg");
    TCase *tc = tcase_create("stream_cg");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, xgroup_create_and_errors);
    tcase_add_test(tc, xgroup_setid_destroy_consumers);
    tcase_add_test(tc, xgroup_keyspace_events);
    tcase_add_test(tc, xreadgroup_new_and_history);
    tcase_add_test(tc, xreadgroup_errors);
    tcase_add_test(tc, keyspace_hits);
    tcase_add_test(tc, xreadgroup_resp3);
    tcase_add_test(tc, xack_and_xpending);
    tcase_add_test(tc, xclaim_semantics);
    tcase_add_test(tc, xclaim_errors);
    tcase_add_test(tc, xautoclaim_semantics);
    tcase_add_test(tc, pel_life_cycle);
    tcase_add_test(tc, lag_read_counter);
    tcase_add_test(tc, lag_with_xdel_xtrim);
    tcase_add_test(tc, xinfo_stream_forms);
    tcase_add_test(tc, xinfo_radix_tree_nodes);
    tcase_add_test(tc, multi_and_eval);
    tcase_add_test(tc, watch_and_group_writes);
    tcase_add_test(tc, xreadgroup_block);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "propagation_in_the_aof", propagation_in_the_aof, 60);
    h_add_dropall(s, "random_ops_replay_from_aof", random_ops_replay_from_aof, 120);
    h_add_dropall(s, "replica_gets_the_groups", replica_gets_the_groups, 120);
    return h_main(s);
}
