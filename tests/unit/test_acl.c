/* Unit tests of the ACL rules (src/acl/acl.c) on the real command table,
 * in process: key permissions by the key specs' flags (%R, %W), the
 * verdict a user with several selectors gets, channels (a PSUBSCRIBE
 * pattern allowed literally only), malformed rules and selectors refused
 * without harm, and the description ACL LIST gives read back as rules
 * giving the same permissions (random rule lists). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "acl_int.h"
#include "inproc.h"
#include "testrand.h"

static acl_user *user_with(const char *rules) {
    acl_user *u = acl_user_new("t", 1);
    char *copy = strdup(rules);
    arg *argv = calloc(strlen(rules) / 2 + 1, sizeof *argv); /* a word and a space each */
    int argc = 0;
    for (char *t = strtok(copy, " "); t; t = strtok(NULL, " ")) argv[argc++] = (arg){t, strlen(t)};
    acl_rule_err e;
    int rc = acl_set_rules(u, argc, argv, &e, NULL, NULL);
    ck_assert_msg(rc == 0, "rules '%s' refused at '%s'", rules, e.op);
    free(argv);
    free(copy);
    return u;
}

/* The verdict on a command line (words split at spaces) and its errpos. */
static int check(const acl_user *u, const char *line, int *pos) {
    static char buf[256];
    static arg argv[16];
    snprintf(buf, sizeof buf, "%s", line);
    int argc = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) argv[argc++] = (arg){t, strlen(t)};
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    ck_assert_ptr_nonnull(d);
    return acl_check(u, d, argc, argv, pos);
}

START_TEST(key_permissions)
{
    acl_user *u = user_with("+@all %R~r* %W~w* ~k*");
    int pos;
    ck_assert_int_eq(check(u, "get r1", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "set r1 v", &pos), ACL_DENIED_KEY);
    ck_assert_int_eq(pos, 1);
    ck_assert_int_eq(check(u, "set w1 v", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "get w1", &pos), ACL_DENIED_KEY);
    /* LMOVE reads and deletes from its source: r1 allows no write */
    ck_assert_int_eq(check(u, "lmove k1 r1 left left", &pos), ACL_DENIED_KEY);
    ck_assert_int_eq(pos, 2);
    ck_assert_int_eq(check(u, "lmove k1 w1 left left", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "copy r1 w1", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "copy w1 r1", &pos), ACL_DENIED_KEY);
    ck_assert_int_eq(pos, 1);
    ck_assert_int_eq(check(u, "mget k1 k2 x", &pos), ACL_DENIED_KEY);
    ck_assert_int_eq(pos, 3);
    ck_assert_int_eq(check(NULL, "mget x", &pos), ACL_OK); /* the server's own clients */
    acl_user_free(u);
}
END_TEST

START_TEST(selectors_and_verdicts)
{
    acl_user *u = user_with("+get ~a &c (+set ~b) (+publish &p*)");
    int pos;
    ck_assert_int_eq(check(u, "get a", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "set b v", &pos), ACL_OK);
    /* root: command refused; first selector: key refused: the key wins */
    ck_assert_int_eq(check(u, "set a v", &pos), ACL_DENIED_KEY);
    ck_assert_int_eq(pos, 1);
    ck_assert_int_eq(check(u, "del a", &pos), ACL_DENIED_CMD);
    ck_assert_int_eq(pos, 0);
    ck_assert_int_eq(check(u, "publish p1 m", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "publish q m", &pos), ACL_DENIED_CHANNEL);
    /* AUTH and HELLO are never refused */
    ck_assert_int_eq(check(u, "auth x y", &pos), ACL_OK);
    acl_user_free(u);
    u = user_with("+subscribe +psubscribe &news.* &alerts");
    ck_assert_int_eq(check(u, "subscribe news.a alerts", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "subscribe news.a other", &pos), ACL_DENIED_CHANNEL);
    ck_assert_int_eq(pos, 2);
    ck_assert_int_eq(check(u, "psubscribe news.*", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "psubscribe news.a*", &pos), ACL_DENIED_CHANNEL);
    ck_assert_int_eq(check(u, "unsubscribe other", &pos), ACL_DENIED_CMD);
    acl_user_free(u);
    u = user_with("-@all +select|0 +config|get");
    ck_assert_int_eq(check(u, "select 0", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "select 1", &pos), ACL_DENIED_CMD);
    ck_assert_int_eq(check(u, "config get x", &pos), ACL_OK);
    ck_assert_int_eq(check(u, "config set x y", &pos), ACL_DENIED_CMD);
    acl_user_free(u);
}
END_TEST

/* Malformed rules and selectors (CVE-2024-51741 was a crash on one) are
 * refused and leave the user as it was. */
START_TEST(malformed_refused)
{
    static const char *const bad[] = {
        "%", "(%)", "(%~)", "(%~x)", "%~", "((", "(()", "(+get))", "((+get)", ")", "(~a b)",
        "(foo)", "(on)", "(>x)", "(reset)", "%RR~x", "%WRW~x", "%X~", "+", "-", "+@", "-@",
        "+|", "+get|", "+config|", "+config|get|x", "#", "!", "<x", "x~", "(+config|get|x)"};
    acl_user *u = user_with("on ~k +get");
    char *before = acl_describe_user(u);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        arg a = {bad[i], strlen(bad[i])};
        acl_rule_err e;
        acl_user *tmp = acl_user_dup(u);
        ck_assert_msg(acl_set_rules(tmp, 1, &a, &e, NULL, NULL) != 0, "'%s' accepted", bad[i]);
        char *after = acl_describe_user(tmp);
        ck_assert_str_eq(after, before);
        free(after);
        acl_user_free(tmp);
    }
    free(before);
    acl_user_free(u);
}
END_TEST

/* Random rule lists: the description, applied to a new user, describes
 * the same permissions and decides every command the same way. */
START_TEST(description_round_trip)
{
    static const char *const words[] = {
        "+@all", "-@all", "+@read", "-@read", "+@write", "-@write", "+@string", "-@string",
        "+@admin", "-@admin", "+@dangerous", "-@dangerous", "+@fast", "-@fast", "+@slow",
        "+@pubsub", "-@hash", "+@hash", "+get", "-get", "+set", "-set", "+config", "-config",
        "+config|get", "-config|set", "+client|id", "-client", "+select|0", "+select|1",
        "+flushall", "-flushdb", "+@scripting", "-eval", "+acl|whoami", "-@connection"};
    rnd_seed_env("description_round_trip", "VT_TEST_SEED");
    for (int round = 0; round < 300; round++) {
        char rules[1024] = "";
        int n = 1 + (int)rnd_below(12);
        for (int i = 0; i < n; i++) {
            strcat(rules, words[rnd_below(sizeof words / sizeof words[0])]);
            strcat(rules, " ");
        }
        acl_user *u = user_with(rules);
        char *d = acl_describe_commands(&u->sel[0]);
        acl_user *v = user_with(d);
        char *d2 = acl_describe_commands(&v->sel[0]);
        ck_assert_msg(!strcmp(d, d2), "rules '%s' described '%s', read back '%s'", rules, d, d2);
        for (size_t i = 0; i < cmd_count_all(); i++) {
            const cmd_def *cd = cmd_at_all(i);
            /* the fewest arguments its arity allows (acl_check, as the
             * dispatcher, takes only a command that passed its checks) */
            int argc = cd->arity > 0 ? cd->arity : -cd->arity;
            arg argv[16];
            ck_assert_int_le(argc, 16);
            for (int a = 0; a < argc; a++) argv[a] = (arg){"0", 1};
            if (cd->parent) argv[0] = (arg){cd->parent->name, strlen(cd->parent->name)};
            argv[cd->parent ? 1 : 0] = (arg){cd->name, strlen(cd->name)};
            int p1, p2;
            ck_assert_int_eq(acl_check(u, cd, argc, argv, &p1) == ACL_DENIED_CMD,
                             acl_check(v, cd, argc, argv, &p2) == ACL_DENIED_CMD);
        }
        free(d);
        free(d2);
        acl_user_free(u);
        acl_user_free(v);
    }
}
END_TEST

int main(void)
{
    acl_register_commands(); /* as server_setup_done, before cmd_init */
    inproc_init();
    acl_init();
    Suite *s = suite_create("acl");
    TCase *tc = tcase_create("acl");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, key_permissions);
    tcase_add_test(tc, selectors_and_verdicts);
    tcase_add_test(tc, malformed_refused);
    tcase_add_test(tc, description_round_trip);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
