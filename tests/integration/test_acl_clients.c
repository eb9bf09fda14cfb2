/* test_acl_clients: Redis 7.0's ACL through a real client library: each
 * part of tests/integration/redispy_acl.py (python3-redis, the behaviours
 * redis-py's own ACL tests check: ACL CAT / DRYRUN / DELUSER / GENPASS /
 * GETUSER / SETUSER with hashed passwords and selectors / HELP / LIST /
 * USERS / WHOAMI / LOG, the client-side refusals, AUTH with a user, HELLO
 * AUTH, the default user off, NOPERM on commands, keys and channels) is one
 * test here, on a fresh server; after it the server must be as clean as it
 * started (only the default user, an empty ACL log, no requirepass, no key).
 * Two parts run on servers of their own: users from config file lines
 * (userconf) and from an aclfile with ACL SAVE / LOAD (aclfile). Runs
 * against redis-server too (VERSO_SERVER=/usr/bin/redis-server). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Runs redispy_acl.py PORT PART [ARG] and fails unless it printed its ok. */
static void redispy_acl(const srv *s, const char *part, const char *arg) {
    char script[4096], port[16], *out = NULL;
    snprintf(script, sizeof script, "%s/tests/integration/redispy_acl.py", VERSO_TOP_SRCDIR);
    snprintf(port, sizeof port, "%d", s->port);
    const char *argv[] = {"/usr/bin/python3", script, port, part, arg, NULL};
    int st = h_run(NULL, &out, h_scaled_ms(60000), argv);
    char ok[64];
    snprintf(ok, sizeof ok, "redispy_acl: ok %s", part);
    ck_assert_msg(st == 0 && strstr(out, ok), "redispy_acl.py %s (status 0x%x):\n%s", part, st,
                  out);
    free(out);
}

/* What a part must leave behind on a connection allowed everything: an
 * empty ACL log and keyspace, requirepass unset. */
static void expect_clean_common(redisContext *c) {
    redisReply *r = expect_array(c, 0, "ACL LOG");
    freeReplyObject(r);
    expect_int(c, 0, "DBSIZE");
    r = expect_array(c, 2, "CONFIG GET requirepass");
    check_bulk(r->element[1], "");
    freeReplyObject(r);
}

/* The fixture's server as it started: the default user alone, as Redis
 * makes it. */
static void expect_clean(void) {
    redisContext *c = srv_connect(h_srv);
    redisReply *r = expect_array(c, 1, "ACL LIST");
    check_bulk(r->element[0], "user default on nopass ~* &* +@all");
    freeReplyObject(r);
    expect_clean_common(c);
    redisFree(c);
}

#define PART(name)                   \
    START_TEST(acl_##name) {         \
        redispy_acl(h_srv, #name, NULL); \
        expect_clean();              \
    }                                \
    END_TEST

PART(cat)
PART(dryrun)
PART(deluser)
PART(genpass)
PART(getuser_setuser)
PART(selectors)
PART(help)
PART(list)
PART(users)
PART(whoami)
PART(log)
PART(setuser_fails)
PART(auth)
PART(default_off)
PART(hello)
PART(perms)

/* Connects to a server whose default user is off, as admin. */
static redisContext *connect_admin(const srv *s) {
    redisContext *c = srv_connect(s);
    expect_error(c, "NOAUTH Authentication required.", "PING");
    expect_status(c, "OK", "AUTH admin adminpw");
    return c;
}

/* Users from `user` lines of the config file, the default one off. */
START_TEST(acl_userconf) {
    srv *s = h_srv_start_conf(0,
                              "user admin on >adminpw ~* &* +@all\n"
                              "user app on >apppw ~app:* +@string\n"
                              "user default off\n",
                              NULL);
    redispy_acl(s, "userconf", NULL);
    redisContext *c = connect_admin(s);
    expect_clean_common(c);
    redisFree(c);
}
END_TEST

/* Users from an aclfile: ACL SAVE writes it, ACL LOAD reads it back, a
 * broken file is refused as a whole. The file lives in the fixture
 * server's dir (removed with it). */
START_TEST(acl_aclfile) {
    char path[sizeof h_srv->dir + 16];
    snprintf(path, sizeof path, "%s/users.acl", h_srv->dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("user admin on >adminpw ~* &* +@all\n"
          "user reader on >rpw ~data:* +@read\n"
          "user default off nopass sanitize-payload ~* &* +@all\n",
          f);
    ck_assert_int_eq(fclose(f), 0);
    srv *s = h_srv_start("--aclfile %s", path);
    redispy_acl(s, "aclfile", path);
    redisContext *c = connect_admin(s);
    redisReply *r = expect_array(c, 3, "ACL USERS");
    check_bulk(r->element[0], "admin");
    check_bulk(r->element[2], "reader");
    freeReplyObject(r);
    expect_clean_common(c);
    redisFree(c);
}
END_TEST

static void teardown(void) {
    h_srv_drop_all();
    h_teardown();
}

int main(void) {
    Suite *s = suite_create("acl_clients");
    TCase *tc = tcase_create("redispy_acl");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, acl_cat);
    tcase_add_test(tc, acl_dryrun);
    tcase_add_test(tc, acl_deluser);
    tcase_add_test(tc, acl_genpass);
    tcase_add_test(tc, acl_getuser_setuser);
    tcase_add_test(tc, acl_selectors);
    tcase_add_test(tc, acl_help);
    tcase_add_test(tc, acl_list);
    tcase_add_test(tc, acl_users);
    tcase_add_test(tc, acl_whoami);
    tcase_add_test(tc, acl_log);
    tcase_add_test(tc, acl_setuser_fails);
    tcase_add_test(tc, acl_auth);
    tcase_add_test(tc, acl_default_off);
    tcase_add_test(tc, acl_hello);
    tcase_add_test(tc, acl_perms);
    tcase_add_test(tc, acl_userconf);
    tcase_add_test(tc, acl_aclfile);
    suite_add_tcase(s, tc);
    return h_main(s);
}
