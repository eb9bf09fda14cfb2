/* Integration tests: COMMAND and its subcommands (INFO, DOCS, COUNT, LIST,
 * GETKEYS, GETKEYSANDFLAGS, HELP), derived from the declarative table, and
 * the type-aware generic commands (TYPE, OBJECT, COPY, MOVE, TOUCH, SORT,
 * SORT_RO, RENAME), with Redis 7.0's replies: every expected text here was
 * checked against redis-server 7.0.15 (VERSO_SERVER=/usr/bin/redis-server). */
#include "harness.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_SAME "ERR source and destination objects are the same"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"

/* A reply as compact text: arrays as [a,b], nil as "nil". */
static void repr(const redisReply *r, char *out, size_t cap, size_t *o)
{
    switch (r->type) {
    case REDIS_REPLY_ARRAY:
        *o += (size_t)snprintf(out + *o, cap - *o, "[");
        for (size_t i = 0; i < r->elements && *o < cap; i++) {
            if (i) *o += (size_t)snprintf(out + *o, cap - *o, ",");
            repr(r->element[i], out, cap, o);
        }
        *o += (size_t)snprintf(out + *o, cap - *o, "]");
        break;
    case REDIS_REPLY_INTEGER:
        *o += (size_t)snprintf(out + *o, cap - *o, "%lld", r->integer);
        break;
    case REDIS_REPLY_NIL:
        *o += (size_t)snprintf(out + *o, cap - *o, "nil");
        break;
    default:
        *o += (size_t)snprintf(out + *o, cap - *o, "%s", r->str);
    }
    ck_assert_uint_lt(*o, cap);
}

/* The reply of a command as text (static buffer). */
static const char *cmd_repr(redisContext *c, const char *command)
{
    static char out[16384];
    size_t o = 0;
    redisReply *r = cmd(c, command);
    repr(r, out, sizeof out, &o);
    freeReplyObject(r);
    return out;
}

START_TEST(command_info_fields)
{
    redisContext *c = h_c;
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO get"),
        "[[get,2,[readonly,fast],1,1,1,[@read,@string,@fast],[],"
        "[[flags,[RO,access],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,0,keystep,1,limit,0]]]],[]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO set"),
        "[[set,-3,[write,denyoom],1,1,1,[@write,@string,@slow],[],"
        "[[notes,RW and ACCESS due to the optional `GET` argument,"
        "flags,[RW,access,update,variable_flags],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,0,keystep,1,limit,0]]]],[]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO mset"),
        "[[mset,-3,[write,denyoom],1,-1,2,[@write,@string,@slow],"
        "[request_policy:multi_shard,response_policy:all_succeeded],"
        "[[flags,[OW,update],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,-1,keystep,2,limit,0]]]],[]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO del"),
        "[[del,-2,[write],1,-1,1,[@keyspace,@write,@slow],"
        "[request_policy:multi_shard,response_policy:agg_sum],"
        "[[flags,[RM,delete],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,-1,keystep,1,limit,0]]]],[]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO expire"),
        "[[expire,-3,[write,fast],1,1,1,[@keyspace,@write,@fast],[],"
        "[[flags,[RW,update],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,0,keystep,1,limit,0]]]],[]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO config|get"),
        "[[config|get,-3,[admin,noscript,loading,stale],0,0,0,"
        "[@admin,@slow,@dangerous],[],[],[]]]");
    /* SORT: the specs it cannot express make its keys movable */
    ck_assert_str_eq(cmd_repr(c, "COMMAND INFO copy nosuchcommand"),
        "[[copy,-3,[write,denyoom],1,2,1,[@keyspace,@write,@slow],[],"
        "[[flags,[RO,access],begin_search,[type,index,spec,[index,1]],"
        "find_keys,[type,range,spec,[lastkey,0,keystep,1,limit,0]]],"
        "[flags,[OW,update],begin_search,[type,index,spec,[index,2]],"
        "find_keys,[type,range,spec,[lastkey,0,keystep,1,limit,0]]]],[]],nil]");
    redisReply *r = expect_array(c, 1, "COMMAND INFO sort");
    ck_assert_str_eq(r->element[0]->element[2]->element[2]->str, "movablekeys");
    ck_assert_uint_eq(r->element[0]->element[8]->elements, 3);
    freeReplyObject(r);
    /* a container lists its subcommands, each a full entry */
    r = expect_array(c, 1, "COMMAND INFO config");
    ck_assert_str_eq(r->element[0]->element[0]->str, "config");
    ck_assert_int_eq(r->element[0]->element[1]->integer, -2);
    ck_assert_uint_ge(r->element[0]->element[9]->elements, 4);
    for (size_t i = 0; i < r->element[0]->element[9]->elements; i++) {
        const redisReply *sub = r->element[0]->element[9]->element[i];
        ck_assert_uint_eq(sub->elements, 10);
        ck_assert(strncmp(sub->element[0]->str, "config|", 7) == 0);
    }
    freeReplyObject(r);
}
END_TEST

START_TEST(command_count_list_docs)
{
    redisContext *c = h_c;
    redisReply *all = expect_array(c, -1, "COMMAND");
    redisReply *n = cmd(c, "COMMAND COUNT");
    ck_assert_int_eq(n->type, REDIS_REPLY_INTEGER);
    ck_assert_int_eq(n->integer, (long long)all->elements);
    for (size_t i = 0; i < all->elements; i++) {
        ck_assert_uint_eq(all->element[i]->elements, 10);
        ck_assert_int_eq(all->element[i]->element[0]->type, REDIS_REPLY_STRING);
    }
    /* COMMAND DOCS nests deeper than hiredis reads: check its header raw */
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "COMMAND DOCS\r\n"), 0);
    char head[64], want[64];
    int closed = 0;
    snprintf(want, sizeof want, "*%lld\r\n", 2 * n->integer);
    raw_read(fd, head, sizeof head, strlen(want), 10000, &closed);
    ck_assert(strncmp(head, want, strlen(want)) == 0);
    close(fd);
    freeReplyObject(expect_array(c, n->integer, "COMMAND INFO"));
    freeReplyObject(n);
    freeReplyObject(all);
    /* statistics per subcommand, under its full name */
    freeReplyObject(expect_array(c, 2, "CONFIG GET maxmemory"));
    char *info = h_info(c, "commandstats");
    ck_assert_ptr_nonnull(strstr(info, "cmdstat_config|get:calls=1,"));
    free(info);
    /* LIST: commands and subcommands; FILTERBY keeps those that match */
    redisReply *r = expect_array(c, -1, "COMMAND LIST FILTERBY PATTERN config*");
    int get = 0, cfg = 0;
    for (size_t i = 0; i < r->elements; i++) {
        get += !strcmp(r->element[i]->str, "config|get");
        cfg += !strcmp(r->element[i]->str, "config");
        ck_assert(strncmp(r->element[i]->str, "config", 6) == 0);
    }
    ck_assert_int_eq(get + cfg, 2);
    freeReplyObject(r);
    r = expect_array(c, -1, "COMMAND LIST FILTERBY ACLCAT string");
    int found_get = 0;
    for (size_t i = 0; i < r->elements; i++) found_get += !strcmp(r->element[i]->str, "get");
    ck_assert_int_eq(found_get, 1);
    freeReplyObject(r);
    freeReplyObject(expect_array(c, 0, "COMMAND LIST FILTERBY ACLCAT nosuchcat"));
    freeReplyObject(expect_array(c, 0, "COMMAND LIST FILTERBY MODULE x"));
    expect_error(c, ERR_SYNTAX, "COMMAND LIST FILTERBY foo x");
    expect_error(c, ERR_SYNTAX, "COMMAND LIST foo");
    /* DOCS */
    ck_assert_str_eq(cmd_repr(c, "COMMAND DOCS get nosuchcommand"),
        "[get,[summary,Get the value of a key,since,1.0.0,group,string,complexity,O(1),"
        "arguments,[[name,key,type,key,key_spec_index,0]]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND DOCS nosuchcommand"), "[]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND DOCS object|refcount"),
        "[object|refcount,[summary,Get the number of references to the value of the key,"
        "since,2.2.3,group,generic,complexity,O(1),"
        "arguments,[[name,key,type,key,key_spec_index,0]]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND DOCS getset"),
        "[getset,[summary,Set the string value of a key and return its old value,"
        "since,1.0.0,group,string,complexity,O(1),doc_flags,[deprecated],"
        "deprecated_since,6.2.0,replaced_by,`SET` with the `!GET` argument,"
        "arguments,[[name,key,type,key,key_spec_index,0],[name,value,type,string]]]]");
    r = expect_array(c, 21, "COMMAND HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    expect_error(c, "ERR unknown subcommand 'foo'. Try COMMAND HELP.", "COMMAND foo");
    expect_error(c, "ERR wrong number of arguments for 'command|count' command",
                 "COMMAND COUNT x");
}
END_TEST

START_TEST(command_getkeys)
{
    redisContext *c = h_c;
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS get a"), "[a]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS mset a 1 b 2 c 3"), "[a,b,c]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS del a b c"), "[a,b,c]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS rename a b"), "[a,b]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS sort a LIMIT 0 1 GET x STORE y BY z"),
                     "[a,y]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS sort_ro a GET x"), "[a]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS object encoding k"), "[k]");
    /* MIGRATE's KEYS form: an incomplete spec, so its getkeys (the empty
     * key is no key: redis-cli --cluster reshard relies on it) */
    {
        char out[256];
        size_t o = 0;
        redisReply *r = cmd(c, "COMMAND GETKEYS migrate h 1 %s 0 5000 KEYS foo bar", "");
        repr(r, out, sizeof out, &o);
        freeReplyObject(r);
        ck_assert_str_eq(out, "[foo,bar]");
    }
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYS migrate h 1 k 0 5000 AUTH KEYS"), "[k]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYSANDFLAGS set a b"), "[[a,[OW,update]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYSANDFLAGS set a b GET"),
                     "[[a,[RW,access,update]]]");
    ck_assert_str_eq(cmd_repr(c, "COMMAND GETKEYSANDFLAGS copy a b"),
                     "[[a,[RO,access]],[b,[OW,update]]]");
    expect_error(c, "ERR Invalid command specified", "COMMAND GETKEYS nosuch a");
    expect_error(c, "ERR The command has no key arguments", "COMMAND GETKEYS echo x");
    expect_error(c, "ERR The command has no key arguments", "COMMAND GETKEYS config get x");
    expect_error(c, "ERR Invalid number of arguments specified for command",
                 "COMMAND GETKEYS get a b");
    expect_error(c, "ERR wrong number of arguments for 'command|getkeys' command",
                 "COMMAND GETKEYS get");
}
END_TEST

START_TEST(type_object)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s hello");
    expect_status(c, "OK", "SET i 12345");
    expect_status(c, "OK", "SET r %s", "0123456789012345678901234567890123456789abcde");
    expect_status(c, "OK", "SET e %s", "0123456789012345678901234567890123456789abcd");
    expect_status(c, "string", "TYPE s");
    expect_status(c, "none", "TYPE nokey");
    expect_bulk(c, "embstr", "OBJECT ENCODING s");
    expect_bulk(c, "int", "OBJECT ENCODING i");
    expect_bulk(c, "raw", "OBJECT ENCODING r");   /* 45 bytes */
    expect_bulk(c, "embstr", "OBJECT ENCODING e"); /* 44 bytes */
    expect_nil(c, "OBJECT ENCODING nokey");
    expect_nil(c, "OBJECT REFCOUNT nokey");
    expect_nil(c, "OBJECT FREQ nokey");
    expect_int(c, 1, "OBJECT REFCOUNT s");
    expect_int_range(c, 0, 10, "OBJECT IDLETIME s");
    expect_error(c, "ERR An LFU maxmemory policy is not selected, access frequency not "
                    "tracked. Please note that when switching between policies at runtime "
                    "LRU and LFU data will take some time to adjust.", "OBJECT FREQ s");
    redisReply *r = expect_array(c, 15, "OBJECT HELP");
    ck_assert_str_eq(r->element[14]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_error(c, "ERR unknown subcommand 'foo'. Try OBJECT HELP.", "OBJECT foo s");
    expect_error(c, "ERR wrong number of arguments for 'object|encoding' command",
                 "OBJECT ENCODING");
    expect_error(c, "ERR wrong number of arguments for 'object' command", "OBJECT");
}
END_TEST

/* The access clock (LRU time or LFU counter, second resolution): OBJECT
 * IDLETIME grows while a key is left alone, an access resets it, OBJECT
 * itself does not; under an LFU policy FREQ reads the counter and IDLETIME
 * is refused. */
START_TEST(object_idletime_freq)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET idle v");
    expect_status(c, "OK", "SET busy v");
    usleep(2600 * 1000);
    expect_int_range(c, 2, 4, "OBJECT IDLETIME idle");
    expect_int_range(c, 2, 4, "OBJECT IDLETIME idle"); /* OBJECT did not touch it */
    expect_bulk(c, "v", "GET busy");
    expect_int_range(c, 0, 1, "OBJECT IDLETIME busy");
    expect_status(c, "OK", "CONFIG SET maxmemory-policy allkeys-lfu");
    expect_status(c, "OK", "SET lfu v");
    expect_int_range(c, 5, 6, "OBJECT FREQ lfu"); /* LFU_INIT_VAL, maybe one increment */
    for (int i = 0; i < 200; i++) expect_bulk(c, "v", "GET lfu");
    expect_int_range(c, 6, 255, "OBJECT FREQ lfu");
    expect_error(c, "ERR An LFU maxmemory policy is selected, idle time not tracked. Please "
                    "note that when switching between policies at runtime LRU and LFU data "
                    "will take some time to adjust.", "OBJECT IDLETIME lfu");
    expect_status(c, "OK", "CONFIG SET maxmemory-policy noeviction");
}
END_TEST

START_TEST(copy_move_touch_rename)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s hello EX 100");
    expect_int(c, 1, "COPY s d");
    expect_bulk(c, "hello", "GET d");
    expect_int_range(c, 90, 100, "TTL d");       /* the expire is copied */
    expect_int(c, 0, "COPY s d");                /* destination exists */
    expect_status(c, "OK", "SET s world");
    expect_int(c, 1, "COPY s d REPLACE");
    expect_bulk(c, "world", "GET d");
    expect_int(c, -1, "TTL d");
    expect_int(c, 0, "COPY nokey d2");
    expect_int(c, 1, "COPY s s DB 1");
    expect_int(c, 1, "COPY s s2 db 1 replace");
    expect_error(c, ERR_SAME, "COPY s s");
    expect_error(c, ERR_SAME, "COPY s s DB 0");
    expect_error(c, ERR_INT, "COPY s x DB x");
    expect_error(c, "ERR DB index is out of range", "COPY s x DB 99");
    expect_error(c, ERR_SYNTAX, "COPY s x foo");
    expect_error(c, ERR_SYNTAX, "COPY s x DB");
    /* a copy written to does not change the original (copy-on-write) */
    expect_int(c, 10, "APPEND d 12345");
    expect_bulk(c, "world", "GET s");
    expect_int(c, 1, "INCR counter");
    expect_int(c, 1, "COPY counter counter2");
    expect_int(c, 2, "INCR counter2");
    expect_bulk(c, "1", "GET counter");
    /* MOVE */
    expect_status(c, "OK", "SET m v PX 100000");
    expect_int(c, 1, "MOVE m 2");
    expect_int(c, 0, "EXISTS m");
    expect_int(c, 0, "MOVE m 2");
    expect_status(c, "OK", "SELECT 2");
    expect_bulk(c, "v", "GET m");
    expect_int_range(c, 90000, 100000, "PTTL m");
    expect_status(c, "OK", "SET back x");
    expect_status(c, "OK", "SELECT 0");
    expect_status(c, "OK", "SET back y");
    expect_int(c, 0, "MOVE back 2");   /* exists in the target */
    expect_error(c, ERR_SAME, "MOVE back 0");
    expect_error(c, ERR_INT, "MOVE back x");
    expect_error(c, "ERR DB index is out of range", "MOVE back 99");
    expect_error(c, "ERR DB index is out of range", "MOVE back -1");
    /* TOUCH counts the keys that exist */
    expect_int(c, 2, "TOUCH s back nokey");
    expect_int(c, 0, "TOUCH nokey");
    expect_error(c, "ERR wrong number of arguments for 'touch' command", "TOUCH");
    /* RENAME moves the value whatever its encoding, with its expire */
    expect_status(c, "OK", "SET n 42 EX 100");
    expect_status(c, "OK", "RENAME n n2");
    expect_bulk(c, "int", "OBJECT ENCODING n2");
    expect_int_range(c, 90, 100, "TTL n2");
}
END_TEST

START_TEST(sort_errors_and_empty)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET s v");
    expect_error(c, ERR_WRONGTYPE, "SORT s");
    expect_error(c, ERR_WRONGTYPE, "SORT_RO s");
    expect_error(c, ERR_WRONGTYPE, "SORT s BY w_* GET # LIMIT 0 10 DESC ALPHA");
    freeReplyObject(expect_array(c, 0, "SORT nokey"));
    freeReplyObject(expect_array(c, 0, "SORT_RO nokey"));
    freeReplyObject(expect_array(c, 0, "SORT nokey BY w_* GET # GET x_* LIMIT 0 10 DESC ALPHA"));
    freeReplyObject(expect_array(c, 0, "SORT nokey BY nosort ASC"));
    /* options are parsed before the key is looked at */
    expect_error(c, ERR_SYNTAX, "SORT s foo");
    expect_error(c, ERR_SYNTAX, "SORT nokey LIMIT 0");
    expect_error(c, ERR_SYNTAX, "SORT nokey GET");
    expect_error(c, ERR_INT, "SORT nokey LIMIT a 1");
    expect_error(c, ERR_INT, "SORT nokey LIMIT 0 b");
    expect_error(c, ERR_SYNTAX, "SORT_RO nokey STORE dst");
    /* STORE of an empty result deletes the destination */
    expect_int(c, 0, "SORT nokey STORE dst");
    expect_status(c, "OK", "SET dst x");
    expect_int(c, 0, "SORT nokey STORE dst");
    expect_int(c, 0, "EXISTS dst");
    expect_error(c, "ERR wrong number of arguments for 'sort' command", "SORT");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("command");
    TCase *tc = tcase_create("command");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 40);
    tcase_add_test(tc, command_info_fields);
    tcase_add_test(tc, command_count_list_docs);
    tcase_add_test(tc, command_getkeys);
    tcase_add_test(tc, type_object);
    tcase_add_test(tc, object_idletime_freq);
    tcase_add_test(tc, copy_move_touch_rename);
    tcase_add_test(tc, sort_errors_and_empty);
    suite_add_tcase(s, tc);
    return h_main(s);
}
