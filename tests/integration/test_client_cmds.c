/* Integration tests of the CLIENT subcommands of issue 11 and RESET:
 * CLIENT PAUSE/UNPAUSE (WRITE and ALL, what is postponed and what is
 * answered at once, expiry frozen, the later end and stricter kind win),
 * REPLY ON/OFF/SKIP, NO-EVICT, UNBLOCK [TIMEOUT|ERROR], HELP, INFO/LIST
 * fields and flags, TRACKING in RESP2 REDIRECT mode (default, OPTIN/OPTOUT
 * with CACHING, NOLOOP, BCAST with prefixes, broken redirect, flush,
 * expiry, tracking-table-max-keys also on an idle server, the keys scripts
 * declare, RENAME's order, BCAST NOLOOP and the server's own changes) with
 * every option error, scripts under PAUSE WRITE by their flags, GETREDIR,
 * TRACKINGINFO, RESET, and the INFO fields of clients and tracking. Every
 * test runs against redis-server too (VERSO_SERVER=/usr/bin/redis-server).
 * The resp3 case (push messages after HELLO 3) needs HELLO 3, which the
 * RESP3 work brings. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- helpers ---- */

static void teardown(void) {
    h_teardown();
    h_srv_drop_all();
}

static long long client_id(redisContext *c) {
    redisReply *r = cmd(c, "CLIENT ID");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    long long id = r->integer;
    freeReplyObject(r);
    return id;
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

/* Reads exactly the bytes of want (waiting up to 5 s, scaled). */
static void raw_expect(int fd, const char *want) {
    char got[4096];
    int closed = 0;
    size_t n = raw_read(fd, got, sizeof got, strlen(want), h_scaled_ms(5000), &closed);
    ck_assert_msg(n == strlen(want) && !memcmp(got, want, n), "got '%s', want '%s'", got, want);
}

/* Nothing arrives on fd within ms. */
static void raw_silent(int fd, int ms) {
    char got[256];
    int closed = 0;
    size_t n = raw_read(fd, got, sizeof got, 1, ms, &closed);
    ck_assert_msg(n == 0 && !closed, "unexpected reply '%s'", got);
}



/* The value of field name (" name=") in a CLIENT INFO/LIST line, into out. */
static void line_field(const char *line, const char *name, char *out, size_t cap) {
    char key[64];
    snprintf(key, sizeof key, " %s=", name);
    const char *p = strstr(line, key);
    if (!p && !strncmp(line, key + 1, strlen(key) - 1)) p = line - 1;
    ck_assert_msg(p != NULL, "no %s in '%s'", name, line);
    p += strlen(key);
    size_t n = strcspn(p, " \n");
    ck_assert(n < cap);
    memcpy(out, p, n);
    out[n] = '\0';
}

static void info_field(redisContext *c, const char *name, char *out, size_t cap) {
    redisReply *r = cmd(c, "CLIENT INFO");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    line_field(r->str, name, out, cap);
    freeReplyObject(r);
}

static void expect_info_field(redisContext *c, const char *name, const char *want) {
    char got[128];
    info_field(c, name, got, sizeof got);
    ck_assert_msg(!strcmp(got, want), "%s=%s, want %s", name, got, want);
}

/* An invalidation message on a RESP2 redirect target: ["message",
 * "__redis__:invalidate", [keys...]] (keys NULL: the flush's nil). */
static void expect_invalidate(redisContext *sub, int nkeys, const char *const *keys) {
    redisReply *r = h_next_reply(sub);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3, "type %d", r->type);
    check_bulk(r->element[0], "message");
    check_bulk(r->element[1], "__redis__:invalidate");
    if (!keys) {
        check_nil(r->element[2]);
    } else {
        redisReply *k = r->element[2];
        ck_assert_msg(k->type == REDIS_REPLY_ARRAY && (int)k->elements == nkeys,
                      "type %d, %zu keys", k->type, k->elements);
        for (int i = 0; i < nkeys; i++) check_bulk(k->element[i], keys[i]);
    }
    freeReplyObject(r);
}

static void expect_invalidate1(redisContext *sub, const char *key) {
    expect_invalidate(sub, 1, &key);
}

/* A subscriber to __redis__:invalidate; *id set to its client id. */
static redisContext *redirect_target(long long *id) {
    redisContext *s = srv_connect(h_srv);
    *id = client_id(s);
    redisReply *r = expect_array(s, 3, "SUBSCRIBE __redis__:invalidate");
    freeReplyObject(r);
    return s;
}

/* Nothing is pending on the subscriber: a PING answers first. */
static void expect_no_message(redisContext *sub) {
    redisReply *r = expect_array(sub, 2, "PING");
    check_bulk(r->element[0], "pong");
    freeReplyObject(r);
}

/* ---- HELP, INFO, LIST ---- */

START_TEST(help)
{
    redisReply *r = expect_array(h_c, 48, "CLIENT HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[1]->str, "CACHING (YES|NO)");
    ck_assert_str_eq(r->element[31]->str, "PAUSE <timeout> [WRITE|ALL]");
    ck_assert_str_eq(r->element[40]->str, "         [OPTIN] [OPTOUT] [NOLOOP]");
    ck_assert_str_eq(r->element[47]->str, "    Prints this help.");
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    expect_error(h_c, "ERR wrong number of arguments for 'client|help' command", "CLIENT HELP x");
}
END_TEST

START_TEST(info_fields)
{
    static const char *const names[] = {
        "id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub",
        "ssub", "multi", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl",
        "oll", "omem", "tot-mem", "events", "cmd", "user", "redir", "resp", NULL};
    redisReply *r = cmd(h_c, "CLIENT INFO");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_msg(r->len > 0 && r->str[r->len - 1] == '\n', "no newline: '%s'", r->str);
    /* the fields, exactly these, in this order */
    char *copy = strndup(r->str, r->len - 1), *save = NULL;
    int i = 0;
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), i++) {
        ck_assert_msg(names[i] != NULL, "extra field '%s'", w);
        size_t n = strlen(names[i]);
        ck_assert_msg(!strncmp(w, names[i], n) && w[n] == '=', "field %d: '%s', want %s", i,
                      w, names[i]);
    }
    ck_assert_msg(names[i] == NULL, "missing field %s", names[i]);
    free(copy);
    freeReplyObject(r);
    expect_info_field(h_c, "flags", "N");
    expect_info_field(h_c, "cmd", "client|info");
    expect_info_field(h_c, "events", "r");
    expect_info_field(h_c, "redir", "-1");
    expect_info_field(h_c, "resp", "2");
    expect_info_field(h_c, "multi", "-1");
    expect_info_field(h_c, "argv-mem", "10"); /* "client" + "info" */
    expect_info_field(h_c, "user", "default");
    /* flags: x in MULTI (CLIENT INFO cannot be queued: another client
     * looks), e for NO-EVICT, t for tracking */
    redisContext *o = srv_connect(h_srv);
    long long oid = client_id(o);
    expect_status(o, "OK", "MULTI");
    expect_status(o, "QUEUED", "GET a");
    r = cmd(h_c, "CLIENT LIST ID %lld", oid);
    char v[64];
    line_field(r->str, "flags", v, sizeof v);
    ck_assert_str_eq(v, "x");
    line_field(r->str, "multi", v, sizeof v);
    ck_assert_str_eq(v, "1");
    freeReplyObject(r);
    redisFree(o);
    expect_status(h_c, "OK", "CLIENT NO-EVICT on");
    expect_info_field(h_c, "flags", "e");
    expect_status(h_c, "OK", "CLIENT TRACKING on");
    expect_info_field(h_c, "flags", "te");
    expect_info_field(h_c, "redir", "0");
    expect_status(h_c, "OK", "CLIENT TRACKING off");
    expect_status(h_c, "OK", "CLIENT NO-EVICT off");
    expect_info_field(h_c, "flags", "N");
    expect_error(h_c, "ERR syntax error", "CLIENT NO-EVICT maybe");
    expect_error(h_c, "ERR wrong number of arguments for 'client|no-evict' command",
                 "CLIENT NO-EVICT");
}
END_TEST

/* CLIENT LIST lists clients in connection order. */
START_TEST(list_order)
{
    redisContext *b = srv_connect(h_srv), *c = srv_connect(h_srv);
    long long ids[3] = {client_id(h_c), client_id(b), client_id(c)};
    redisReply *r = cmd(h_c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    int n = 0;
    for (char *line = r->str; *line; n++) {
        char v[32];
        line_field(line, "id", v, sizeof v);
        ck_assert_int_lt(n, 3);
        ck_assert_int_eq(atoll(v), ids[n]);
        line = strchr(line, '\n') + 1;
    }
    ck_assert_int_eq(n, 3);
    freeReplyObject(r);
    redisFree(b);
    redisFree(c);
}
END_TEST

START_TEST(info_sections)
{
    static const char *const fields[] = {
        "connected_clients", "cluster_connections", "maxclients",
        "client_recent_max_input_buffer", "client_recent_max_output_buffer",
        "blocked_clients", "tracking_clients", "clients_in_timeout_table", NULL};
    char *info = h_info(h_c, "clients"), v[64];
    for (int i = 0; fields[i]; i++)
        ck_assert_msg(h_info_field(info, fields[i], v, sizeof v), "no %s", fields[i]);
    free(info);
    info = h_info(h_c, "stats");
    ck_assert(h_info_field(info, "tracking_total_keys", v, sizeof v));
    ck_assert(h_info_field(info, "tracking_total_items", v, sizeof v));
    ck_assert(h_info_field(info, "tracking_total_prefixes", v, sizeof v));
    free(info);
    ck_assert_int_eq(h_info_int(h_c, "clients", "cluster_connections"), 0);
    ck_assert_int_eq(h_info_int(h_c, "clients", "tracking_clients"), 0);
    /* two tracking clients reading the same key: one key, two items */
    redisContext *b = srv_connect(h_srv);
    expect_status(h_c, "OK", "CLIENT TRACKING on");
    expect_status(b, "OK", "CLIENT TRACKING on BCAST PREFIX p PREFIX q");
    ck_assert_int_eq(h_info_int(h_c, "clients", "tracking_clients"), 2);
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_prefixes"), 2);
    redisContext *c = srv_connect(h_srv);
    expect_status(c, "OK", "CLIENT TRACKING on");
    expect_nil(h_c, "GET k");
    expect_nil(c, "GET k");
    expect_nil(c, "GET k2");
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_keys"), 2);
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_items"), 3);
    /* a blocked client with a timeout is in the timeout table */
    h_send(c, "BLPOP nolist 100");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    ck_assert_int_eq(h_info_int(h_c, "clients", "clients_in_timeout_table"), 1);
    redisFree(c);
    h_wait_info(h_c, "clients", "clients_in_timeout_table", 0, 5000);
    ck_assert_int_eq(h_info_int(h_c, "clients", "tracking_clients"), 2);
    redisFree(b);
    h_wait_info(h_c, "clients", "tracking_clients", 1, 5000);
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_prefixes"), 0);
    expect_status(h_c, "OK", "SET k v");
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_keys"), 1);
    ck_assert_int_eq(h_info_int(h_c, "stats", "tracking_total_items"), 1);
}
END_TEST

/* ---- REPLY ---- */

START_TEST(reply_modes)
{
    int fd = raw_connect(h_srv->port);
    raw_cmd(fd, "CLIENT REPLY OFF");
    raw_cmd(fd, "SET x 1");
    raw_cmd(fd, "GET x");
    raw_cmd(fd, "CLIENT REPLY SKIP"); /* ignored while OFF */
    raw_cmd(fd, "CLIENT REPLY ON");
    raw_expect(fd, "+OK\r\n");
    raw_cmd(fd, "CLIENT REPLY SKIP");
    raw_cmd(fd, "GET x");
    raw_cmd(fd, "GET x");
    raw_expect(fd, "$1\r\n1\r\n");
    /* SKIP then MULTI: MULTI's +OK goes, the rest answers */
    raw_cmd(fd, "CLIENT REPLY SKIP");
    raw_cmd(fd, "MULTI");
    raw_cmd(fd, "GET x");
    raw_cmd(fd, "EXEC");
    raw_expect(fd, "+QUEUED\r\n*1\r\n$1\r\n1\r\n");
    /* errors are dropped too */
    raw_cmd(fd, "CLIENT REPLY OFF");
    raw_cmd(fd, "NOSUCHCOMMAND");
    raw_cmd(fd, "CLIENT REPLY bogus");
    raw_cmd(fd, "CLIENT REPLY ON");
    raw_expect(fd, "+OK\r\n");
    raw_cmd(fd, "CLIENT REPLY bogus");
    raw_expect(fd, "-ERR syntax error\r\n");
    raw_cmd(fd, "CLIENT REPLY");
    raw_expect(fd, "-ERR wrong number of arguments for 'client|reply' command\r\n");
    /* subscribing answers and messages come whatever REPLY says */
    raw_cmd(fd, "CLIENT REPLY OFF");
    raw_cmd(fd, "SUBSCRIBE ch");
    raw_expect(fd, "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n");
    expect_int(h_c, 1, "PUBLISH ch m");
    raw_expect(fd, "*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nm\r\n");
    raw_cmd(fd, "RESET");
    raw_expect(fd, "+RESET\r\n");
    raw_cmd(fd, "GET x");
    raw_expect(fd, "$1\r\n1\r\n");
    close(fd);
}
END_TEST

/* ---- RESET ---- */

START_TEST(reset)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "CLIENT SETNAME nm");
    expect_status(c, "OK", "SELECT 3");
    expect_status(c, "OK", "SET k3 v");
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    expect_status(c, "OK", "CLIENT TRACKING on");
    expect_status(c, "OK", "WATCH k3");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "RESET", "RESET"); /* runs at once inside MULTI */
    expect_error(c, "ERR EXEC without MULTI", "EXEC");
    expect_nil(c, "CLIENT GETNAME");
    expect_nil(c, "GET k3"); /* db 0 */
    expect_int(c, -1, "CLIENT GETREDIR");
    expect_info_field(c, "flags", "e"); /* NO-EVICT stays, as Redis 7.0 */
    expect_info_field(c, "name", "");
    expect_info_field(c, "db", "0");
    expect_info_field(c, "resp", "2");
    /* unwatched: a change to k3 no longer fails a transaction */
    expect_status(c, "OK", "SELECT 3");
    expect_status(c, "OK", "WATCH k3");
    expect_status(c, "RESET", "RESET");
    redisContext *o = srv_connect(h_srv);
    expect_status(o, "OK", "SELECT 3");
    expect_status(o, "OK", "SET k3 w");
    expect_status(c, "OK", "SELECT 3");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "GET k3");
    redisReply *r = expect_array(c, 1, "EXEC");
    check_bulk(r->element[0], "w");
    freeReplyObject(r);
    redisFree(o);
    expect_error(c, "ERR wrong number of arguments for 'reset' command", "RESET x");
    /* a MONITOR client is a normal one again */
    expect_status(c, "OK", "MONITOR");
    expect_status(c, "RESET", "RESET");
    expect_status(c, "OK", "SET k4 v");
    expect_bulk(c, "v", "GET k4");
}
END_TEST

/* RESET authenticates as the default user again: with requirepass, that
 * is unauthenticated. */
START_TEST(reset_auth)
{
    srv *s = h_srv_start("--requirepass secret");
    redisContext *c = srv_connect(s);
    expect_error_prefix(c, "NOAUTH", "GET k");
    expect_status(c, "RESET", "RESET"); /* allowed before AUTH */
    expect_status(c, "OK", "AUTH secret");
    expect_nil(c, "GET k");
    expect_status(c, "RESET", "RESET");
    expect_error_prefix(c, "NOAUTH", "GET k");
    redisFree(c);
}
END_TEST

/* ---- PAUSE ---- */

START_TEST(pause_errors)
{
    expect_error(h_c, "ERR timeout is not an integer or out of range", "CLIENT PAUSE x");
    expect_error(h_c, "ERR timeout is not an integer or out of range", "CLIENT PAUSE 1.5");
    expect_error(h_c, "ERR timeout is negative", "CLIENT PAUSE -1");
    expect_error(h_c, "ERR CLIENT PAUSE mode must be WRITE or ALL", "CLIENT PAUSE 10 bogus");
    expect_error(h_c, "ERR CLIENT PAUSE mode must be WRITE or ALL", "CLIENT PAUSE x bogus");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'pause'. "
                      "Try CLIENT HELP.", "CLIENT pause 10 write x");
    expect_error(h_c, "ERR wrong number of arguments for 'client|pause' command",
                 "CLIENT PAUSE");
    expect_error(h_c, "ERR wrong number of arguments for 'client|unpause' command",
                 "CLIENT UNPAUSE x");
    expect_status(h_c, "OK", "CLIENT PAUSE 0");
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    expect_status(h_c, "OK", "SET k v");
}
END_TEST

START_TEST(pause_write)
{
    expect_status(h_c, "OK", "SET x 1");
    expect_status(h_c, "OK", "CLIENT PAUSE 100000 WRITE");
    int w = raw_connect(h_srv->port), p = raw_connect(h_srv->port);
    raw_cmd(w, "SET x 2");
    raw_cmd(w, "GET x"); /* behind the postponed SET */
    raw_cmd(p, "PUBLISH ch m"); /* may replicate: postponed too */
    int k = raw_connect(h_srv->port);
    raw_cmd(k, "SET y 1");
    h_wait_info(h_c, "clients", "blocked_clients", 3, 5000);
    close(k); /* a postponed client that goes away */
    h_wait_info(h_c, "clients", "blocked_clients", 2, 5000);
    /* reads run, and so do the commands refused before the pause */
    expect_bulk(h_c, "1", "GET x");
    redisContext *o = srv_connect(h_srv);
    expect_error(o, "ERR wrong number of arguments for 'set' command", "SET x");
    expect_error_prefix(o, "ERR unknown command", "NOSUCHCOMMAND");
    expect_int(o, 0, "EXISTS nokey");
    /* a transaction is postponed at EXEC when it writes */
    expect_status(o, "OK", "MULTI");
    expect_status(o, "QUEUED", "GET x");
    redisReply *r = expect_array(o, 1, "EXEC");
    check_bulk(r->element[0], "1");
    freeReplyObject(r);
    redisReply *info = cmd(h_c, "CLIENT LIST");
    ck_assert_msg(strstr(info->str, "flags=b ") != NULL, "%s", info->str);
    ck_assert_msg(strstr(info->str, "cmd=set ") != NULL, "%s", info->str);
    freeReplyObject(info);
    raw_silent(w, 200);
    raw_silent(p, 1);
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    raw_expect(w, "+OK\r\n$1\r\n2\r\n");
    raw_expect(p, ":0\r\n");
    h_wait_info(h_c, "clients", "blocked_clients", 0, 5000);
    expect_int(h_c, 0, "EXISTS y");
    close(w);
    close(p);
    redisFree(o);
}
END_TEST

/* Scripts are judged by their flags (Redis 7.0's getCommandFlags): a
 * no-writes one (EVAL with the shebang, EVALSHA of it, EVAL_RO, FCALL and
 * FCALL_RO of a no-writes function, a transaction of them) and SCRIPT LOAD
 * run at once; EVAL without a shebang, a function that may write (by
 * FCALL_RO too, which then refuses it) wait for the end. */
START_TEST(pause_scripts)
{
    redisContext *c = h_c, *o = srv_connect(h_srv);
    const char *ro = "#!lua flags=no-writes\nreturn redis.call('get','x')";
    expect_status(c, "OK", "SET x 1");
    expect_bulk(c, "lib", "FUNCTION LOAD %s",
                "#!lua name=lib\n"
                "redis.register_function{function_name='ro', flags={'no-writes'},\n"
                "  callback=function(k, a) return redis.call('get', 'x') end}\n"
                "redis.register_function('rw', function(k, a) return redis.call('get', 'x') end)");
    redisReply *r = cmd(c, "SCRIPT LOAD %s", ro);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char sha[41];
    snprintf(sha, sizeof sha, "%s", r->str);
    freeReplyObject(r);
    expect_status(c, "OK", "CLIENT PAUSE 100000 WRITE");
    int w1 = raw_connect(h_srv->port), w2 = raw_connect(h_srv->port),
        w3 = raw_connect(h_srv->port);
    raw_cmd(w1, "EVAL return 0");
    raw_cmd(w2, "FCALL rw 0");
    raw_cmd(w3, "FCALL_RO rw 0");
    h_wait_info(c, "clients", "blocked_clients", 3, 5000);
    expect_bulk(o, "1", "EVAL %s 0", ro);
    expect_bulk(o, "1", "EVALSHA %s 0", sha);
    expect_bulk(o, "1", "EVAL_RO %s 0", "return redis.call('get','x')");
    expect_bulk(o, "1", "FCALL ro 0");
    expect_bulk(o, "1", "FCALL_RO ro 0");
    r = cmd(o, "SCRIPT LOAD %s", "return 2");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    freeReplyObject(r);
    expect_status(o, "OK", "MULTI");
    expect_status(o, "QUEUED", "EVAL %s 0", ro);
    expect_status(o, "QUEUED", "FCALL ro 0");
    r = expect_array(o, 2, "EXEC");
    check_bulk(r->element[0], "1");
    check_bulk(r->element[1], "1");
    freeReplyObject(r);
    raw_silent(w1, 100);
    raw_silent(w2, 1);
    raw_silent(w3, 1);
    expect_status(c, "OK", "CLIENT UNPAUSE");
    raw_expect(w1, "$-1\r\n");
    raw_expect(w2, "$1\r\n1\r\n");
    raw_expect(w3, "-ERR Can not execute a script with write flag using *_ro command.\r\n");
    close(w1);
    close(w2);
    close(w3);
    redisFree(o);
}
END_TEST

/* A transaction queued before the pause waits at its EXEC. */
START_TEST(pause_exec)
{
    redisContext *o = srv_connect(h_srv);
    expect_status(o, "OK", "MULTI");
    expect_status(o, "QUEUED", "SET m 1");
    expect_status(h_c, "OK", "CLIENT PAUSE 100000 WRITE");
    h_send(o, "EXEC");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    expect_int(h_c, 0, "EXISTS m");
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    redisReply *r = h_next_reply(o);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements, 1);
    freeReplyObject(r);
    expect_int(h_c, 1, "EXISTS m");
    redisFree(o);
}
END_TEST

/* ALL postpones every command (the pausing client's too) until the end;
 * a new pause keeps the later end and the stricter kind. */
START_TEST(pause_all)
{
    expect_status(h_c, "OK", "CLIENT PAUSE 1500 WRITE");
    expect_status(h_c, "OK", "CLIENT PAUSE 10 ALL");
    long long t0 = h_now_ms();
    int r = raw_connect(h_srv->port);
    h_sleep_ms(100);
    raw_cmd(r, "GET x"); /* ALL, until the later end */
    raw_silent(r, 300);
    raw_expect(r, "$-1\r\n");
    long long waited = h_now_ms() - t0;
    ck_assert_msg(waited >= 1400, "answered after %lld ms", waited);
    close(r);
    expect_status(h_c, "OK", "SET x 1");
}
END_TEST

/* Keys neither expire nor get evicted while paused: an expired key reads
 * as missing but stays until the pause ends. */
START_TEST(pause_frozen_keys)
{
    long long expired = h_info_int(h_c, "stats", "expired_keys");
    /* in one transaction: the pause starts before the key can expire */
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "SET e 1 PX 50");
    expect_status(h_c, "QUEUED", "CLIENT PAUSE 100000 WRITE");
    redisReply *r = expect_array(h_c, 2, "EXEC");
    freeReplyObject(r);
    h_sleep_ms(300);
    expect_nil(h_c, "GET e");
    expect_int(h_c, 1, "DBSIZE");
    ck_assert_int_eq(h_info_int(h_c, "stats", "expired_keys"), expired);
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    expect_nil(h_c, "GET e");
    expect_int(h_c, 0, "DBSIZE");
    ck_assert_int_eq(h_info_int(h_c, "stats", "expired_keys"), expired + 1);
}
END_TEST

START_TEST(pause_no_eviction)
{
    expect_status(h_c, "OK", "MSET a 1 b 2");
    expect_status(h_c, "OK", "CONFIG SET maxmemory-policy allkeys-random");
    expect_status(h_c, "OK", "CLIENT PAUSE 100000 WRITE");
    expect_status(h_c, "OK", "CONFIG SET maxmemory 1");
    h_sleep_ms(200);
    expect_bulk(h_c, "1", "GET a");
    expect_int(h_c, 2, "DBSIZE");
    ck_assert_int_eq(h_info_int(h_c, "stats", "evicted_keys"), 0);
    expect_status(h_c, "OK", "CLIENT UNPAUSE");
    expect_int(h_c, 0, "DBSIZE"); /* evicted before it runs */
    ck_assert_int_eq(h_info_int(h_c, "stats", "evicted_keys"), 2);
    expect_status(h_c, "OK", "CONFIG SET maxmemory 0");
}
END_TEST

/* ---- UNBLOCK ---- */

START_TEST(unblock)
{
    redisContext *b = srv_connect(h_srv);
    long long id = client_id(b);
    expect_int(h_c, 0, "CLIENT UNBLOCK %lld", id); /* not blocked */
    expect_int(h_c, 0, "CLIENT UNBLOCK 999999");
    expect_error(h_c, "ERR value is not an integer or out of range", "CLIENT UNBLOCK x");
    expect_error(h_c, "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR",
                 "CLIENT UNBLOCK x bogus");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'unblock'. "
                      "Try CLIENT HELP.", "CLIENT unblock 1 timeout x");
    h_send(b, "BLPOP l 0");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld", id);
    redisReply *r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    h_send(b, "BLMOVE l m LEFT RIGHT 0");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld TIMEOUT", id);
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    h_send(b, "BZPOPMIN z 100");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    long long errors = h_info_int(h_c, "stats", "total_error_replies");
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld error", id);
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "UNBLOCKED client unblocked via CLIENT UNBLOCK");
    freeReplyObject(r);
    ck_assert_int_eq(h_info_int(h_c, "stats", "total_error_replies"), errors + 1);
    ck_assert_int_eq(h_info_int(h_c, "clients", "blocked_clients"), 0);
    ck_assert_int_eq(h_info_int(h_c, "clients", "clients_in_timeout_table"), 0);
    /* its pipelined input runs after */
    h_send(b, "BLPOP l 0");
    h_send(b, "PING");
    h_wait_info(h_c, "clients", "blocked_clients", 1, 5000);
    expect_int(h_c, 1, "CLIENT UNBLOCK %lld", id);
    r = h_next_reply(b);
    ck_assert_int_eq(r->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    r = h_next_reply(b);
    ck_assert_str_eq(r->str, "PONG");
    freeReplyObject(r);
    redisFree(b);
}
END_TEST

/* ---- TRACKING (RESP2, REDIRECT) ---- */

START_TEST(tracking_errors)
{
    redisContext *c = h_c;
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_error(c, "ERR The client ID you want redirect to does not exist",
                 "CLIENT TRACKING on REDIRECT 999999");
    expect_error(c, "ERR A client can only redirect to a single other client",
                 "CLIENT TRACKING on REDIRECT %lld REDIRECT %lld", sid, sid);
    expect_error(c, "ERR value is not an integer or out of range",
                 "CLIENT TRACKING on REDIRECT x");
    expect_error(c, "ERR PREFIX option requires BCAST mode to be enabled",
                 "CLIENT TRACKING on PREFIX x");
    expect_error(c, "ERR OPTIN and OPTOUT are not compatible with BCAST",
                 "CLIENT TRACKING on BCAST OPTIN");
    expect_error(c, "ERR OPTIN and OPTOUT are not compatible with BCAST",
                 "CLIENT TRACKING on OPTIN OPTOUT BCAST");
    expect_error(c, "ERR You can't specify both OPTIN mode and OPTOUT mode",
                 "CLIENT TRACKING on OPTIN OPTOUT");
    expect_error(c, "ERR syntax error", "CLIENT TRACKING on foo");
    expect_error(c, "ERR syntax error", "CLIENT TRACKING maybe");
    expect_error(c, "ERR syntax error", "CLIENT TRACKING on REDIRECT");
    expect_error(c, "ERR syntax error", "CLIENT TRACKING on PREFIX");
    /* options are parsed even for off */
    expect_error(c, "ERR The client ID you want redirect to does not exist",
                 "CLIENT TRACKING off REDIRECT 999999");
    expect_status(c, "OK", "CLIENT TRACKING off PREFIX x");
    expect_status(c, "OK", "CLIENT TRACKING on OPTIN");
    expect_error(c, "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for "
                    "this client, and then re-enabling it with a different mode.",
                 "CLIENT TRACKING on OPTOUT");
    expect_error(c, "ERR You can't switch BCAST mode on/off before disabling tracking for "
                    "this client, and then re-enabling it with a different mode.",
                 "CLIENT TRACKING on BCAST");
    expect_status(c, "OK", "CLIENT TRACKING off");
    expect_status(c, "OK", "CLIENT TRACKING on BCAST PREFIX a");
    expect_error(c, "ERR Prefix 'ab' overlaps with an existing prefix 'a'. Prefixes for a "
                    "single client must not overlap.", "CLIENT TRACKING on BCAST PREFIX ab");
    expect_error(c, "ERR Prefix 'x' overlaps with another provided prefix 'xy'. Prefixes for "
                    "a single client must not overlap.",
                 "CLIENT TRACKING on BCAST PREFIX x PREFIX xy");
    expect_error(c, "ERR Prefix 'xy' overlaps with another provided prefix 'x'. Prefixes for "
                    "a single client must not overlap.",
                 "CLIENT TRACKING on BCAST PREFIX xy PREFIX x");
    expect_status(c, "OK", "CLIENT TRACKING off");
    /* CACHING */
    expect_error(c, "ERR CLIENT CACHING can be called only when the client is in tracking mode "
                    "with OPTIN or OPTOUT mode enabled", "CLIENT CACHING yes");
    expect_status(c, "OK", "CLIENT TRACKING on");
    expect_error(c, "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN "
                    "mode.", "CLIENT CACHING yes");
    expect_error(c, "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT "
                    "mode.", "CLIENT CACHING no");
    expect_error(c, "ERR syntax error", "CLIENT CACHING maybe");
    expect_error(c, "ERR wrong number of arguments for 'client|caching' command",
                 "CLIENT CACHING yes x");
    redisFree(s);
}
END_TEST

START_TEST(tracking_redirect)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_int(c, -1, "CLIENT GETREDIR");
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    expect_int(c, sid, "CLIENT GETREDIR");
    char want[32];
    snprintf(want, sizeof want, "%lld", sid);
    expect_info_field(c, "redir", want);
    expect_info_field(c, "flags", "t");
    redisReply *r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    check_bulk(r->element[0], "flags");
    ck_assert_uint_eq(r->element[1]->elements, 1);
    check_bulk(r->element[1]->element[0], "on");
    check_bulk(r->element[2], "redirect");
    check_int(r->element[3], sid);
    check_bulk(r->element[4], "prefixes");
    ck_assert_uint_eq(r->element[5]->elements, 0);
    freeReplyObject(r);
    /* keys read are remembered; a change by anyone invalidates them once */
    expect_nil(c, "GET k");
    r = expect_array(c, 2, "MGET k2 k3");
    freeReplyObject(r);
    expect_status(w, "OK", "SET k 1");
    expect_invalidate1(s, "k");
    expect_status(w, "OK", "SET k 2"); /* not read again: no message */
    expect_int(w, 1, "DEL k");
    expect_status(w, "OK", "SET k2 1");
    expect_invalidate1(s, "k2");
    expect_status(c, "OK", "SET k3 1"); /* the client's own change too */
    expect_invalidate1(s, "k3");
    expect_no_message(s);
    /* a write command reads nothing for the cache */
    expect_int(c, 1, "INCR n");
    expect_status(w, "OK", "SET n 5");
    expect_no_message(s);
    /* flush: a nil for every key */
    expect_nil(c, "GET f");
    expect_status(w, "OK", "FLUSHDB");
    expect_invalidate(s, 0, NULL);
    expect_status(w, "OK", "FLUSHALL");
    expect_invalidate(s, 0, NULL);
    expect_status(w, "OK", "SET f 1");
    expect_no_message(s); /* the flush emptied the table */
    /* a key of another db is the same key for tracking */
    expect_status(c, "OK", "SELECT 2");
    expect_nil(c, "GET d");
    expect_status(w, "OK", "SET d 1");
    expect_invalidate1(s, "d");
    /* a target subscribed to any channel receives them */
    redisContext *s2 = srv_connect(h_srv);
    long long id2 = client_id(s2);
    r = expect_array(s2, 3, "SUBSCRIBE other");
    freeReplyObject(r);
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", id2);
    expect_nil(c, "GET o");
    expect_status(w, "OK", "SET o 1");
    expect_invalidate1(s2, "o");
    /* the target goes away: broken redirect */
    redisFree(s2);
    h_wait_info(w, "clients", "connected_clients", 3, 5000);
    expect_nil(c, "GET o"); /* db 2 */
    expect_status(w, "OK", "SET o 2");
    r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[0], "on");
    check_bulk(r->element[1]->element[1], "broken_redirect");
    check_int(r->element[3], id2);
    freeReplyObject(r);
    expect_info_field(c, "flags", "tR");
    /* off: nothing more */
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    expect_info_field(c, "flags", "t");
    expect_status(c, "OK", "CLIENT TRACKING off");
    expect_status(w, "OK", "SET d 2");
    expect_no_message(s);
    r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    check_bulk(r->element[1]->element[0], "off");
    check_int(r->element[3], -1);
    freeReplyObject(r);
    redisFree(s);
    redisFree(w);
}
END_TEST

/* Expiry and eviction invalidate as a change does. */
START_TEST(tracking_expire)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    expect_status(w, "OK", "SET e 1 PX 400");
    expect_bulk(c, "1", "GET e");
    expect_invalidate1(s, "e"); /* the active expiry deletes it */
    expect_status(w, "OK", "CONFIG SET maxmemory-policy allkeys-random");
    expect_status(w, "OK", "SET big %0512d", 0);
    expect_int(c, 512, "STRLEN big");
    expect_status(w, "OK", "CONFIG SET maxmemory 1");
    expect_error_prefix(w, "OOM", "SET more x"); /* evicts big first */
    expect_invalidate1(s, "big");
    expect_status(w, "OK", "CONFIG SET maxmemory 0");
    redisFree(s);
    redisFree(w);
}
END_TEST

START_TEST(tracking_optin_optout)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on OPTIN REDIRECT %lld", sid);
    expect_nil(c, "GET a"); /* not tracked */
    expect_status(c, "OK", "CLIENT CACHING yes");
    redisReply *r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    ck_assert_uint_eq(r->element[1]->elements, 3);
    check_bulk(r->element[1]->element[1], "optin");
    check_bulk(r->element[1]->element[2], "caching-yes");
    freeReplyObject(r);
    expect_nil(c, "GET b"); /* tracked */
    expect_nil(c, "GET c"); /* CACHING applied to one command only */
    /* and to a whole transaction */
    expect_status(c, "OK", "CLIENT CACHING yes");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "GET t1");
    expect_status(c, "QUEUED", "GET t2");
    r = expect_array(c, 2, "EXEC");
    freeReplyObject(r);
    expect_status(w, "OK", "MSET a 1 b 1 c 1 t1 1 t2 1");
    expect_invalidate1(s, "b");
    expect_invalidate1(s, "t1");
    expect_invalidate1(s, "t2");
    expect_no_message(s);
    expect_status(c, "OK", "CLIENT TRACKING off");
    expect_status(c, "OK", "CLIENT TRACKING on OPTOUT REDIRECT %lld", sid);
    expect_status(c, "OK", "CLIENT CACHING no");
    expect_bulk(c, "1", "GET a"); /* not tracked */
    expect_bulk(c, "1", "GET b"); /* tracked */
    r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[1], "optout");
    freeReplyObject(r);
    expect_status(w, "OK", "MSET a 2 b 2");
    expect_invalidate1(s, "b");
    expect_no_message(s);
    redisFree(s);
    redisFree(w);
}
END_TEST

START_TEST(tracking_noloop)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on NOLOOP REDIRECT %lld", sid);
    redisReply *r = expect_array(c, 2, "MGET x y");
    freeReplyObject(r);
    expect_status(c, "OK", "SET x 1"); /* its own change: no message */
    expect_status(w, "OK", "SET y 1");
    expect_invalidate1(s, "y");
    expect_no_message(s);
    redisFree(s);
    redisFree(w);
}
END_TEST

START_TEST(tracking_bcast)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on BCAST PREFIX b PREFIX a REDIRECT %lld", sid);
    expect_status(c, "OK", "CLIENT TRACKING on BCAST PREFIX c REDIRECT %lld", sid);
    redisReply *r = expect_array(c, 6, "CLIENT TRACKINGINFO");
    ck_assert_uint_eq(r->element[1]->elements, 2);
    check_bulk(r->element[1]->element[1], "bcast");
    ck_assert_uint_eq(r->element[5]->elements, 3);
    check_bulk(r->element[5]->element[0], "a");
    check_bulk(r->element[5]->element[1], "b");
    check_bulk(r->element[5]->element[2], "c");
    freeReplyObject(r);
    expect_info_field(c, "flags", "tB");
    /* one message per prefix, keys sorted, after the command */
    expect_status(w, "OK", "MSET a1 1 b2 2 z3 3 a0 x");
    static const char *const ka[] = {"a0", "a1"};
    expect_invalidate(s, 2, ka);
    expect_invalidate1(s, "b2");
    expect_no_message(s);
    /* reads are not tracked in BCAST mode: only changes count */
    expect_bulk(c, "1", "GET a1");
    expect_status(w, "OK", "SET z3 4");
    expect_no_message(s);
    /* NOLOOP leaves out the keys the client changed itself */
    expect_status(c, "OK", "CLIENT TRACKING off");
    expect_status(c, "OK", "CLIENT TRACKING on BCAST NOLOOP REDIRECT %lld", sid);
    expect_status(c, "OK", "SET own 1");
    expect_status(w, "OK", "SET theirs 1");
    expect_invalidate1(s, "theirs");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET own 2");
    expect_status(c, "QUEUED", "SET own2 2");
    r = expect_array(c, 2, "EXEC");
    freeReplyObject(r);
    expect_no_message(s);
    redisFree(s);
    redisFree(w);
}
END_TEST

/* tracking-table-max-keys: past it, keys are dropped from the table with
 * an invalidation, as if changed. */
START_TEST(tracking_table_limit)
{
    redisContext *c = h_c;
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CONFIG SET tracking-table-max-keys 1");
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    expect_nil(c, "GET a");
    expect_nil(c, "GET b"); /* two keys now */
    expect_status(c, "PONG", "PING"); /* the next command makes room */
    ck_assert_int_eq(h_info_int(c, "stats", "tracking_total_keys"), 1);
    redisReply *r = h_next_reply(s);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    redisReply *k = r->element[2];
    ck_assert_uint_eq(k->elements, 1);
    ck_assert_msg(!strcmp(k->element[0]->str, "a") || !strcmp(k->element[0]->str, "b"),
                  "evicted %s", k->element[0]->str);
    freeReplyObject(r);
    expect_no_message(s);
    redisFree(s);
}
END_TEST

/* The limit holds on an idle server too: no command has to follow the
 * CONFIG SET that lowers it (Redis's serverCron). */
START_TEST(tracking_table_limit_idle)
{
    redisContext *c = h_c;
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    redisReply *r = expect_array(c, 2, "MGET a b");
    freeReplyObject(r);
    expect_status(c, "OK", "CONFIG SET tracking-table-max-keys 1");
    r = h_next_reply(s); /* nothing else is sent to the server */
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    redisReply *k = r->element[2];
    ck_assert_uint_eq(k->elements, 1);
    ck_assert_msg(!strcmp(k->element[0]->str, "a") || !strcmp(k->element[0]->str, "b"),
                  "evicted %s", k->element[0]->str);
    freeReplyObject(r);
    expect_no_message(s);
    redisFree(s);
}
END_TEST

/* A script remembers the keys it declares (EVAL's, FCALL's key arguments),
 * not the ones it reads, and only once it runs a read-only command (Redis
 * 7.0 remembers its caller's command keys); EVAL_RO and FCALL_RO alike, in
 * a transaction too. */
START_TEST(tracking_scripts)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    expect_nil(c, "EVAL %s 2 k1 k2", "redis.call('set', 'k3', 'x')");
    expect_status(w, "OK", "MSET k1 1 k2 1 k3 1");
    expect_no_message(s);
    expect_nil(c, "EVAL %s 2 k1 k2", "return redis.call('get', 'k4')");
    expect_status(w, "OK", "MSET k4 2 k3 2 k2 2 k1 2");
    expect_invalidate1(s, "k2");
    expect_invalidate1(s, "k1");
    expect_no_message(s);
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "EVAL_RO %s 1 k2", "return redis.call('get', 'k4')");
    redisReply *r = expect_array(c, 1, "EXEC");
    freeReplyObject(r);
    expect_status(w, "OK", "MSET k4 3 k2 3");
    expect_invalidate1(s, "k2");
    expect_no_message(s);
    expect_bulk(c, "lib", "FUNCTION LOAD %s",
                "#!lua name=lib\nredis.register_function{function_name='f', flags={'no-writes'}, "
                "callback=function(k, a) return redis.call('get', 'k4') end}");
    expect_bulk(c, "3", "FCALL_RO f 1 k1");
    expect_status(w, "OK", "MSET k4 4 k1 4");
    expect_invalidate1(s, "k1");
    expect_no_message(s);
    redisFree(s);
    redisFree(w);
}
END_TEST

/* RENAME onto an existing key changes the source, then the destination
 * (Redis's order): the invalidations come in that order. */
START_TEST(tracking_rename_order)
{
    redisContext *c = h_c, *w = srv_connect(h_srv);
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(w, "OK", "MSET a 1 b 2");
    expect_status(c, "OK", "CLIENT TRACKING on REDIRECT %lld", sid);
    redisReply *r = expect_array(c, 2, "MGET b a");
    freeReplyObject(r);
    expect_status(w, "OK", "RENAME a b");
    expect_invalidate1(s, "a");
    expect_invalidate1(s, "b");
    expect_no_message(s);
    redisFree(s);
    redisFree(w);
}
END_TEST

/* BCAST NOLOOP leaves out the client's own changes, not the ones the
 * server makes (expiry, lazily on the client's own read too) nor those of
 * its scripts (their fake client's, as in Redis 7.0). Redis's "Tracking
 * gets notification of lazy expired keys": inside the transaction the key
 * has not expired yet (time is EXEC's), the active expiry deletes it. */
START_TEST(tracking_bcast_noloop_expiry)
{
    redisContext *c = h_c;
    long long sid;
    redisContext *s = redirect_target(&sid);
    expect_status(c, "OK", "CLIENT TRACKING on BCAST REDIRECT %lld NOLOOP", sid);
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "SET mykey myval PX 1");
    expect_status(c, "QUEUED", "SET mykeyotherkey myval");
    expect_status(c, "QUEUED", "DEBUG SLEEP 0.1");
    expect_status(c, "QUEUED", "GET mykey");
    redisReply *r = expect_array(c, 4, "EXEC");
    check_bulk(r->element[3], "myval");
    freeReplyObject(r);
    expect_invalidate1(s, "mykey");
    expect_no_message(s);
    expect_status(c, "OK", "DEBUG SET-ACTIVE-EXPIRE 0");
    expect_status(c, "OK", "SET e 1 PX 20");
    h_sleep_ms(50);
    expect_nil(c, "GET e");
    expect_invalidate1(s, "e");
    expect_status(c, "OK", "DEBUG SET-ACTIVE-EXPIRE 1");
    expect_nil(c, "EVAL %s 0", "redis.call('set', 'sk', '1')");
    expect_invalidate1(s, "sk");
    expect_no_message(s);
    redisFree(s);
}
END_TEST

/* ---- RESP3 push messages (needs HELLO 3) ---- */

START_TEST(tracking_resp3)
{
    int fd = raw_connect(h_srv->port), o = raw_connect(h_srv->port);
    raw_cmd(fd, "HELLO 3");
    char got[1024];
    int closed = 0;
    raw_read(fd, got, sizeof got, 1, h_scaled_ms(5000), &closed);
    ck_assert_msg(got[0] == '%', "HELLO 3: '%s'", got);
    h_sleep_ms(100);
    raw_read(fd, got, sizeof got, sizeof got - 1, 100, &closed); /* the rest of the map */
    raw_cmd(fd, "CLIENT TRACKING on");
    raw_expect(fd, "+OK\r\n");
    raw_cmd(fd, "GET k");
    raw_expect(fd, "_\r\n");
    /* the client's own change: the push follows the reply */
    raw_cmd(fd, "SET k v");
    raw_expect(fd, "+OK\r\n>2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
    raw_cmd(fd, "GET k");
    raw_expect(fd, "$1\r\nv\r\n");
    raw_cmd(o, "SET k w");
    raw_expect(o, "+OK\r\n");
    raw_expect(fd, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
    raw_cmd(fd, "FLUSHALL");
    raw_expect(fd, "+OK\r\n>2\r\n$10\r\ninvalidate\r\n_\r\n");
    raw_cmd(fd, "CLIENT TRACKINGINFO");
    raw_expect(fd, "%3\r\n$5\r\nflags\r\n~1\r\n$2\r\non\r\n$8\r\nredirect\r\n:0\r\n"
                   "$8\r\nprefixes\r\n*0\r\n");
    /* pushes come through CLIENT REPLY OFF */
    raw_cmd(fd, "GET k");
    raw_expect(fd, "_\r\n");
    raw_cmd(fd, "CLIENT REPLY OFF");
    raw_cmd(o, "SET k x");
    raw_expect(o, "+OK\r\n");
    raw_expect(fd, ">2\r\n$10\r\ninvalidate\r\n*1\r\n$1\r\nk\r\n");
    raw_cmd(fd, "CLIENT REPLY ON");
    raw_expect(fd, "+OK\r\n");
    /* the redirect target goes away: a RESP3 client is told at each message */
    int t = raw_connect(h_srv->port);
    raw_cmd(t, "CLIENT ID");
    raw_read(t, got, sizeof got, 3, h_scaled_ms(5000), &closed);
    long long tid = atoll(got + 1);
    char words[64], want[128];
    snprintf(words, sizeof words, "CLIENT TRACKING on REDIRECT %lld", tid);
    raw_cmd(fd, words);
    raw_expect(fd, "+OK\r\n");
    raw_cmd(fd, "GET rk");
    raw_expect(fd, "_\r\n");
    close(t);
    h_wait_info(h_c, "clients", "connected_clients", 3, 5000);
    raw_cmd(o, "SET rk 1");
    raw_expect(o, "+OK\r\n");
    snprintf(want, sizeof want, ">2\r\n$21\r\ntracking-redir-broken\r\n:%lld\r\n", tid);
    raw_expect(fd, want);
    /* BCAST */
    raw_cmd(fd, "CLIENT TRACKING off");
    raw_expect(fd, "+OK\r\n");
    raw_cmd(fd, "CLIENT TRACKING on BCAST PREFIX a");
    raw_expect(fd, "+OK\r\n");
    raw_cmd(o, "MSET a2 1 b 1 a1 1");
    raw_expect(o, "+OK\r\n");
    raw_expect(fd, ">2\r\n$10\r\ninvalidate\r\n*2\r\n$2\r\na1\r\n$2\r\na2\r\n");
    close(fd);
    close(o);
}
END_TEST

int main(void) {
    Suite *s = suite_create("client_cmds");
    TCase *tc = tcase_create("client_cmds");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, help);
    tcase_add_test(tc, info_fields);
    tcase_add_test(tc, list_order);
    tcase_add_test(tc, info_sections);
    tcase_add_test(tc, reply_modes);
    tcase_add_test(tc, reset);
    tcase_add_test(tc, reset_auth);
    tcase_add_test(tc, pause_errors);
    tcase_add_test(tc, pause_write);
    tcase_add_test(tc, pause_exec);
    tcase_add_test(tc, pause_scripts);
    tcase_add_test(tc, pause_all);
    tcase_add_test(tc, pause_frozen_keys);
    tcase_add_test(tc, pause_no_eviction);
    tcase_add_test(tc, unblock);
    tcase_add_test(tc, tracking_errors);
    tcase_add_test(tc, tracking_redirect);
    tcase_add_test(tc, tracking_expire);
    tcase_add_test(tc, tracking_optin_optout);
    tcase_add_test(tc, tracking_noloop);
    tcase_add_test(tc, tracking_bcast);
    tcase_add_test(tc, tracking_table_limit);
    tcase_add_test(tc, tracking_table_limit_idle);
    tcase_add_test(tc, tracking_scripts);
    tcase_add_test(tc, tracking_rename_order);
    tcase_add_test(tc, tracking_bcast_noloop_expiry);
    suite_add_tcase(s, tc);
    TCase *t3 = tcase_create("resp3");
    tcase_add_checked_fixture(t3, h_setup, teardown);
    tcase_set_timeout(t3, 60);
    tcase_add_test(t3, tracking_resp3);
    suite_add_tcase(s, t3);
    return h_main(s);
}
