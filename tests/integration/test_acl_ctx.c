/* Integration tests: ACL checks in their contexts, as Redis 7.0.15: MULTI
 * (queue time, and again at EXEC), scripts and functions (redis.call under
 * the caller's user, Lua's error texts, ACL LOG context lua), pub/sub
 * (subscribers that lose a channel are disconnected), users deleted or
 * replaced (their clients disconnected, CLIENT KILL USER), the config
 * file's user lines, the aclfile (ACL LOAD / SAVE, startup errors) and
 * acl-pubsub-default. Run against redis-server too (VERSO_SERVER). The
 * users, rules and ACL commands themselves are in test_acl.c. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const redisReply *field(const redisReply *map, const char *name) {
    const redisReply *v = h_map_field(map, name);
    ck_assert_msg(v, "no field '%s' in the reply", name);
    return v;
}

/* Whether the server closed c (a command gets no reply). */
static int closed(redisContext *c) {
    redisReply *r = redisCommand(c, "PING");
    if (!r) return 1;
    freeReplyObject(r);
    return 0;
}

static redisContext *login(const char *user, const char *pass) {
    redisContext *c = srv_connect(h_srv);
    expect_status(c, "OK", "AUTH %s %s", user, pass);
    return c;
}

START_TEST(multi_checks)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER a on >p ~k* &ch* +get +set +publish +multi +exec");
    redisContext *u = login("a", "p");
    /* refused when queued: the transaction fails */
    expect_status(u, "OK", "MULTI");
    expect_error(u, "NOPERM this user has no permissions to access one of the keys used as "
                    "arguments", "GET x");
    expect_status(u, "QUEUED", "GET k1");
    expect_error(u, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    /* allowed when queued, no longer at EXEC */
    expect_status(u, "OK", "MULTI");
    expect_status(u, "QUEUED", "GET k1");
    expect_status(u, "QUEUED", "PUBLISH ch1 x");
    expect_status(u, "QUEUED", "SET k2 v");
    expect_status(u, "QUEUED", "SET k3 v");
    expect_status(c, "OK", "ACL SETUSER a -get resetchannels resetkeys ~k3");
    redisReply *r = expect_array(u, 4, "EXEC");
    const char *pre = "NOPERM ACLs rules changed between the moment the transaction was "
                      "accumulated and the EXEC call. This command is no longer allowed for the "
                      "following reason: ";
    char want[512];
    snprintf(want, sizeof want, "%sno permission to execute the command or subcommand", pre);
    ck_assert_str_eq(r->element[0]->str, want);
    snprintf(want, sizeof want, "%sno permission to access one of the channels used as arguments", pre);
    ck_assert_str_eq(r->element[1]->str, want);
    snprintf(want, sizeof want, "%sno permission to touch the specified keys", pre);
    ck_assert_str_eq(r->element[2]->str, want);
    ck_assert_str_eq(r->element[3]->str, "OK");
    freeReplyObject(r);
    expect_bulk(c, "v", "GET k3");
    expect_nil(c, "GET k2");
    r = expect_array(c, -1, "ACL LOG");
    ck_assert_uint_eq(r->elements, 4);
    ck_assert_str_eq(field(r->element[0], "context")->str, "multi");
    ck_assert_str_eq(field(r->element[0], "object")->str, "k2");
    ck_assert_str_eq(field(r->element[2], "object")->str, "get");
    ck_assert_str_eq(field(r->element[3], "object")->str, "x");
    ck_assert_str_eq(field(r->element[3], "context")->str, "multi");
    ck_assert_ptr_nonnull(strstr(field(r->element[3], "client-info")->str, " cmd=get "));
    freeReplyObject(r);
    redisFree(u);
}
END_TEST

START_TEST(scripts_run_as_caller)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER a on >p ~k* &ch* +get +eval +fcall +publish");
    expect_bulk(c, "lib", "FUNCTION LOAD %s",
                "#!lua name=lib\nredis.register_function('fdel', function(k) "
                "return redis.call('del', k[1]) end)");
    redisContext *u = login("a", "p");
    redisReply *r = cmd(u, "EVAL %s 0", "return redis.call('del','k')");
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_ptr_nonnull(strstr(r->str, "ERR The user executing the script can't run this "
                                         "command or subcommand script: "));
    freeReplyObject(r);
    r = cmd(u, "EVAL %s 0", "return redis.call('get','zz')");
    ck_assert_ptr_nonnull(strstr(r->str, "ERR The user executing the script can't access at "
                                         "least one of the keys mentioned in the command "
                                         "arguments script: "));
    freeReplyObject(r);
    expect_error(u, "ERR The user executing the script can't access at least one of the keys "
                    "mentioned in the command arguments",
                 "EVAL %s 0", "return redis.pcall('get','zz')");
    r = cmd(u, "EVAL %s 0", "return redis.call('publish','zz','x')");
    ck_assert_ptr_nonnull(strstr(r->str, "ERR The user executing the script can't publish to "
                                         "the channel mentioned in the command script: "));
    freeReplyObject(r);
    expect_int(u, 0, "EVAL %s 0", "return redis.call('publish','ch1','x')");
    expect_nil(u, "EVAL %s 0", "return redis.acl_check_cmd('get','zz')"); /* false */
    expect_int(u, 1, "EVAL %s 0", "return redis.acl_check_cmd('get','k1')");
    expect_nil(u, "EVAL %s 0", "return redis.acl_check_cmd('del','k1')");
    r = cmd(u, "FCALL fdel 1 k1");
    ck_assert_ptr_nonnull(strstr(r->str, "ERR The user executing the script can't run this "
                                         "command or subcommand script: "));
    freeReplyObject(r);
    /* the default user's scripts may do anything */
    expect_int(c, 0, "FCALL fdel 1 k1");
    expect_int(c, 1, "EVAL %s 0", "return redis.acl_check_cmd('del','k1')");
    r = expect_array(c, -1, "ACL LOG");
    ck_assert_uint_eq(r->elements, 3);
    ck_assert_str_eq(field(r->element[0], "context")->str, "lua");
    ck_assert_str_eq(field(r->element[0], "object")->str, "del");
    ck_assert_int_eq(field(r->element[0], "count")->integer, 2);
    ck_assert_ptr_nonnull(strstr(field(r->element[0], "client-info")->str, " cmd=fcall "));
    ck_assert_str_eq(field(r->element[1], "reason")->str, "channel");
    ck_assert_int_eq(field(r->element[2], "count")->integer, 2); /* call and pcall of zz */
    freeReplyObject(r);
    redisFree(u);
}
END_TEST

START_TEST(pubsub_kills_and_deletes)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER k on >p +@all ~* &ch*");
    redisContext *a = login("k", "p"), *b = login("k", "p"), *d = login("k", "p");
    redisReply *r = expect_array(a, 3, "SUBSCRIBE ch1");
    freeReplyObject(r);
    r = expect_array(b, 3, "PSUBSCRIBE ch*");
    freeReplyObject(r);
    r = expect_array(d, 3, "SUBSCRIBE ch2");
    freeReplyObject(r);
    /* ch* as a pattern is no longer allowed: its subscriber goes */
    expect_status(c, "OK", "ACL SETUSER k resetchannels &ch1 &ch2");
    ck_assert(!closed(a));
    ck_assert(closed(b));
    ck_assert(!closed(d));
    /* more channels: nobody goes */
    expect_status(c, "OK", "ACL SETUSER k &ch3");
    ck_assert(!closed(a));
    expect_status(c, "OK", "ACL SETUSER k resetchannels &ch2");
    ck_assert(closed(a));
    ck_assert(!closed(d));
    redisFree(a);
    redisFree(b);
    /* ACL DELUSER closes the user's clients, not the others */
    redisContext *e = login("k", "p");
    expect_int(c, 1, "ACL DELUSER k");
    ck_assert(closed(d));
    ck_assert(closed(e));
    ck_assert(!closed(c));
    redisFree(d);
    redisFree(e);
    /* a client deleting its own user gets the reply, then is closed */
    expect_status(c, "OK", "ACL SETUSER k2 on nopass +@all");
    redisContext *f = login("k2", "x");
    expect_int(f, 1, "ACL DELUSER k2");
    ck_assert(closed(f));
    redisFree(f);
    /* CLIENT KILL USER, CLIENT LIST's user= */
    expect_status(c, "OK", "ACL SETUSER k3 on nopass +@all");
    redisContext *g = login("k3", "x");
    r = cmd(c, "CLIENT LIST");
    ck_assert_ptr_nonnull(strstr(r->str, " user=k3 "));
    ck_assert_ptr_nonnull(strstr(r->str, " user=default "));
    freeReplyObject(r);
    expect_error(c, "ERR No such user 'nosuch'", "CLIENT KILL USER nosuch");
    expect_int(c, 1, "CLIENT KILL USER k3");
    ck_assert(closed(g));
    redisFree(g);
    expect_int(c, 0, "CLIENT KILL USER k3");
}
END_TEST

START_TEST(pubsub_default_allchannels)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER n1");
    expect_status(c, "OK", "CONFIG SET acl-pubsub-default allchannels");
    expect_status(c, "OK", "ACL SETUSER n2");
    expect_status(c, "OK", "ACL SETUSER n1 reset");
    redisReply *r = expect_array(c, 3, "ACL LIST");
    check_bulk(r->element[1], "user n1 off sanitize-payload &* -@all");
    check_bulk(r->element[2], "user n2 off &* -@all");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET acl-pubsub-default");
    check_bulk(r->element[1], "allchannels");
    freeReplyObject(r);
}
END_TEST

/* The master link runs with every permission: CLIENT LIST names its user
 * "(superuser)"; the master's user for the replica (masteruser) needs
 * the replication commands. */
START_TEST(master_link_superuser)
{
    srv *m = h_srv_start("%s", "");
    redisContext *mc = srv_connect(m);
    expect_status(mc, "OK", "ACL SETUSER repl on >rp +psync +replconf +ping");
    expect_status(mc, "OK", "SET k v");
    srv *r = h_srv_start("--replicaof 127.0.0.1 %d --masteruser repl --masterauth rp", m->port);
    redisContext *rc = srv_connect(r);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    redisReply *l = cmd(rc, "CLIENT LIST TYPE master");
    ck_assert_ptr_nonnull(strstr(l->str, " user=(superuser) "));
    freeReplyObject(l);
    l = cmd(mc, "CLIENT LIST TYPE replica");
    ck_assert_ptr_nonnull(strstr(l->str, " user=repl "));
    freeReplyObject(l);
    redisFree(rc);
    redisFree(mc);
}
END_TEST

/* A scratch directory for files a server reads at startup. */
static void scratch(char *dir, size_t cap) {
    snprintf(dir, cap, "/tmp/verso-acl-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

START_TEST(config_user_lines)
{
    srv *s = srv_start_conf("user alice on >a +@all ~*\n"
                       "user bob on nopass +get ~k* (+set ~s*)\n"
                       "user default on nopass ~* &* +@all -flushall\n", "");
    redisContext *c = srv_connect(s);
    expect_error_prefix(c, "NOPERM", "FLUSHALL");
    expect_status(c, "OK", "AUTH bob x");
    expect_status(c, "OK", "SET s1 v");
    expect_error_prefix(c, "NOPERM", "SET k1 v");
    expect_status(c, "OK", "AUTH alice a");
    redisReply *r = expect_array(c, 3, "ACL LIST");
    check_bulk(r->element[0], "user alice on "
                              "#ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb "
                              "~* resetchannels +@all");
    check_bulk(r->element[1], "user bob on nopass ~k* resetchannels -@all +get "
                              "(~s* resetchannels -@all +set)");
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* CONFIG REWRITE writes every user as a `user` line, where the old ones
 * were, then after the signature. */
START_TEST(config_rewrite_users)
{
    srv *s = srv_start_conf("user bob on >x +get\n", "");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "ACL SETUSER carol on nopass +@all (~a +set)");
    expect_status(c, "OK", "CONFIG REWRITE");
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    const char *bob = strstr(text, "user bob on "
                                   "#2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 "
                                   "resetchannels -@all +get\n");
    const char *sig = strstr(text, "# Generated by CONFIG REWRITE\n");
    const char *carol = strstr(text, "user carol on nopass resetchannels +@all (~a resetchannels "
                                     "-@all +set)\n");
    const char *def = strstr(text, "user default on nopass ~* &* +@all\n");
    ck_assert_msg(bob && sig && carol && def && bob < sig && sig < carol && carol < def,
                  "rewritten:\n%s", text);
    free(text);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* Startup refused with Redis's words. */
static void expect_refused(const char *conf, const char *args, const char *needle) {
    char *out = NULL;
    int st = srv_run_bad(conf, args, &out, 10000);
    ck_assert_msg(st != 0, "the server started with: %s %s", conf, args);
    ck_assert_msg(strstr(out, needle), "'%s' not in:\n%s", needle, out);
    free(out);
}

START_TEST(startup_errors)
{
    expect_refused("user bob on +nosuch\n", "",
                   "Error loading ACL rule '+nosuch' for the user named 'bob': Unknown command "
                   "or category name in ACL");
    expect_refused("user bob on +nosuch\n", "", "Critical error while loading ACLs. Exiting.");
    expect_refused("user bob\nuser bob on\n", "",
                   "Error in user declaration 'bob': Duplicate user found. A user can only be "
                   "defined once in config files");
    expect_refused("user bob on\naclfile /nonexistent/users.acl\n", "",
                   "Configuring Redis with users defined in redis.conf and at the same setting "
                   "an ACL file path is invalid.");
    /* checked as the file is read (Redis names the word at the refused
     * rule's index in the line) */
    expect_refused("user bob on foo\n", "", "Error in user declaration 'bob': Syntax error");
    expect_refused("user bob on >x ~a allkeys ~b\n", "",
                   "Error in user declaration '~a': Adding a pattern after the * pattern (or "
                   "the 'allkeys' flag) is not valid");
    expect_refused("user bob on nopass +get ~k* (+set ~s*\n", "",
                   "Error in user declaration '+get': ");
    expect_refused("aclfile /nonexistent/users.acl\n", "",
                   "Aborting Redis startup because of ACL errors: Error loading ACLs, opening "
                   "file '/nonexistent/users.acl': No such file or directory");
}
END_TEST

START_TEST(aclfile_load_save)
{
    char dir[64], path[128], bad[200];
    scratch(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/users.acl", dir);
    write_file(path, "user bob on >x +get ~k*\n\nuser alice on nopass +@all ~* &*\n");
    srv *s = srv_start("--aclfile %s", path);
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 3, "ACL LIST");
    check_bulk(r->element[1], "user bob on "
                              "#2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 "
                              "~k* resetchannels -@all +get");
    check_bulk(r->element[2], "user default on nopass ~* &* +@all");
    freeReplyObject(r);
    redisContext *bob = srv_connect(s);
    expect_status(bob, "OK", "AUTH bob x");
    expect_status(c, "OK", "ACL SETUSER carol on >c +set");
    expect_status(c, "OK", "ACL SAVE");
    size_t savedlen;
    char *saved = h_slurp(path, &savedlen, 1);
    ck_assert_str_eq(saved,
                     "user alice on nopass ~* &* +@all\n"
                     "user bob on #2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 "
                     "~k* resetchannels -@all +get\n"
                     "user carol on #2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6 "
                     "resetchannels -@all +set\n"
                     "user default on nopass ~* &* +@all\n");
    free(saved);
    /* a file with errors changes nothing */
    write_file(path, "user bob on >x +nosuch +nosuch2 %X~a\nusr x\nuser dave (+get\n"
                     "user eve on\nuser eve off\n");
    snprintf(bad, sizeof bad, "ERR %s:1: Error in applying operation '+nosuch': ", path);
    r = cmd(c, "ACL LOAD");
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    char want[2048];
    snprintf(want, sizeof want,
             "ERR %s:1: Error in applying operation '+nosuch': Unknown command or category name "
             "in ACL. %s:1: Error in applying operation '+nosuch2': Unknown command or category "
             "name in ACL. %s:1: Syntax error. %s:2 should start with user keyword followed by "
             "the username. %s:3: Unmatched parenthesis in selector definition.WARNING: "
             "Duplicate user 'eve' found on line 5. WARNING: ACL errors detected, no change to "
             "the previously active ACL rules was performed",
             path, path, path, path, path);
    ck_assert_str_eq(r->str, want);
    freeReplyObject(r);
    r = expect_array(c, 4, "ACL USERS");
    freeReplyObject(r);
    expect_nil(bob, "GET k1");
    /* a good file replaces every user; their clients are closed */
    write_file(path, "user bob on >y +set\n");
    expect_status(c, "OK", "ACL LOAD");
    r = expect_array(c, 2, "ACL LIST");
    check_bulk(r->element[0], "user bob on "
                              "#a1fce4363854ff888cff4b8e7875d600c2682390412a8cf79b37d0b11148b0fa "
                              "resetchannels -@all +set");
    freeReplyObject(r);
    ck_assert(closed(bob));
    ck_assert(!closed(c));
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'aclfile') - can't "
                    "set immutable config", "CONFIG SET aclfile /x");
    redisFree(bob);
    redisFree(c);
    srv_stop(s);
    unlink(path);
    rmdir(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acl_ctx");
    TCase *tc = tcase_create("acl_ctx");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, multi_checks);
    tcase_add_test(tc, scripts_run_as_caller);
    tcase_add_test(tc, pubsub_kills_and_deletes);
    tcase_add_test(tc, pubsub_default_allchannels);
    tcase_add_test(tc, config_user_lines);
    tcase_add_test(tc, startup_errors);
    tcase_add_test(tc, config_rewrite_users);
    tcase_add_test(tc, aclfile_load_save);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "master_link_superuser", master_link_superuser, 60);
    return h_main(s);
}
