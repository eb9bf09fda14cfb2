/* Integration tests: ACL users, rules and the ACL command (SETUSER GETUSER
 * DELUSER USERS LIST WHOAMI CAT GENPASS DRYRUN LOG HELP), AUTH and HELLO
 * with users, the NOPERM refusals at dispatch, with Redis 7.0.15's replies
 * and error texts (run against redis-server too: VERSO_SERVER). MULTI,
 * scripts, pub/sub, disconnections and the config file and aclfile are in
 * test_acl_ctx.c. */
#include "harness.h"

#include <stdlib.h>
#include <string.h>

/* The value of field `name` in a map reply (the test fails without it). */
static const redisReply *field(const redisReply *map, const char *name) {
    const redisReply *v = h_map_field(map, name);
    ck_assert_msg(v, "no field '%s' in the reply", name);
    return v;
}

static void check_str_field(const redisReply *map, const char *name, const char *want) {
    const redisReply *v = field(map, name);
    ck_assert_int_eq(v->type, REDIS_REPLY_STRING);
    ck_assert_str_eq(v->str, want);
}

/* The bulk strings of an array reply, space-separated. */
static void check_words(const redisReply *arr, const char *want) {
    char buf[4096] = "";
    ck_assert_int_eq(arr->type, REDIS_REPLY_ARRAY);
    for (size_t i = 0; i < arr->elements; i++) {
        if (i) strcat(buf, " ");
        strcat(buf, arr->element[i]->str);
    }
    ck_assert_str_eq(buf, want);
}

/* ACL LIST's line for one user. */
static void expect_list_line(redisContext *c, const char *user, const char *want) {
    redisReply *r = expect_array(c, -1, "ACL LIST");
    char prefix[256];
    snprintf(prefix, sizeof prefix, "user %s ", user);
    const char *line = NULL;
    for (size_t i = 0; i < r->elements; i++)
        if (!strncmp(r->element[i]->str, prefix, strlen(prefix))) line = r->element[i]->str;
    ck_assert_msg(line, "no user %s in ACL LIST", user);
    ck_assert_str_eq(line, want);
    freeReplyObject(r);
}

START_TEST(default_user)
{
    redisContext *c = h_c;
    redisReply *r = expect_array(c, 12, "ACL GETUSER default");
    check_words(field(r, "flags"), "on nopass");
    check_words(field(r, "passwords"), "");
    check_str_field(r, "commands", "+@all");
    check_str_field(r, "keys", "~*");
    check_str_field(r, "channels", "&*");
    ck_assert_uint_eq(field(r, "selectors")->elements, 0);
    freeReplyObject(r);
    r = expect_array(c, 1, "ACL LIST");
    check_bulk(r->element[0], "user default on nopass ~* &* +@all");
    freeReplyObject(r);
    expect_bulk(c, "default", "ACL WHOAMI");
    r = expect_array(c, 1, "ACL USERS");
    check_bulk(r->element[0], "default");
    freeReplyObject(r);
    expect_error(c, "ERR The 'default' user cannot be removed", "ACL DELUSER default");
    expect_nil(c, "ACL GETUSER nosuch");
}
END_TEST

START_TEST(setuser_getuser_shape)
{
    redisContext *c = h_c;
    expect_status(c, "OK",
                  "ACL SETUSER a on >p1 "
                  "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~k* %%R~r* "
                  "%%W~w* &ch* +get -@admin (+set ~s*) (+hget %%R~h* &x)");
    redisReply *r = expect_array(c, 12, "ACL GETUSER a");
    check_words(field(r, "flags"), "on");
    check_words(field(r, "passwords"),
                "f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a "
                "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8");
    check_str_field(r, "commands", "-@all +get");
    check_str_field(r, "keys", "~k* %R~r* %W~w*");
    check_str_field(r, "channels", "&ch*");
    const redisReply *sel = field(r, "selectors");
    ck_assert_uint_eq(sel->elements, 2);
    ck_assert_uint_eq(sel->element[0]->elements, 6);
    check_str_field(sel->element[0], "commands", "-@all +set");
    check_str_field(sel->element[0], "keys", "~s*");
    check_str_field(sel->element[0], "channels", "");
    check_str_field(sel->element[1], "commands", "-@all +hget");
    check_str_field(sel->element[1], "keys", "%R~h*");
    check_str_field(sel->element[1], "channels", "&x");
    freeReplyObject(r);
    expect_list_line(c, "a",
                     "user a on #f64551fcd6f07823cb87971cfb91446425da18286b3ab1ef935e0cbd7a69f68a "
                     "#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8 ~k* %R~r* "
                     "%W~w* resetchannels &ch* -@all +get (~s* resetchannels -@all +set) "
                     "(%R~h* resetchannels &x -@all +hget)");
    /* a new user: off, no password, nothing allowed */
    expect_status(c, "OK", "ACL SETUSER b");
    expect_list_line(c, "b", "user b off resetchannels -@all");
    /* flags and passwords */
    expect_status(c, "OK", "ACL SETUSER b on nopass skip-sanitize-payload");
    expect_list_line(c, "b", "user b on nopass skip-sanitize-payload resetchannels -@all");
    expect_status(c, "OK", "ACL SETUSER b >x >x >y sanitize-payload");
    expect_list_line(c, "b",
                     "user b on sanitize-payload "
                     "#2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881 "
                     "#a1fce4363854ff888cff4b8e7875d600c2682390412a8cf79b37d0b11148b0fa "
                     "resetchannels -@all");
    expect_status(c, "OK", "ACL SETUSER b <x "
                           "!a1fce4363854ff888cff4b8e7875d600c2682390412a8cf79b37d0b11148b0fa");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all");
    expect_status(c, "OK", "ACL SETUSER b >z resetpass");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all");
    /* keys and channels */
    expect_status(c, "OK", "ACL SETUSER b ~a ~a %%R~a %%W~b allchannels");
    expect_list_line(c, "b", "user b on sanitize-payload ~a %W~b &* -@all");
    expect_status(c, "OK", "ACL SETUSER b %%R~b allkeys resetchannels &c1 &c1 &c2");
    expect_list_line(c, "b", "user b on sanitize-payload ~* resetchannels &c1 &c2 -@all");
    expect_status(c, "OK", "ACL SETUSER b resetkeys resetchannels");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all");
    /* commands: the description is built from the bits, as Redis 7.0 */
    expect_status(c, "OK", "ACL SETUSER b allcommands -config +config|get");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels +@all -config +config|get");
    /* (one single command each: Redis names them in its dict's order) */
    expect_status(c, "OK", "ACL SETUSER b nocommands +@string -get");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all +@string -get");
    expect_status(c, "OK", "ACL SETUSER b nocommands +select|0 +select|1");
    redisReply *fa = expect_array(c, 12, "ACL GETUSER b");
    const char *cmds = field(fa, "commands")->str;
    ck_assert_msg(!strcmp(cmds, "-@all +select|0 +select|1") ||
                  !strcmp(cmds, "-@all +select|1 +select|0"), "commands '%s'", cmds);
    freeReplyObject(fa);
    expect_status(c, "OK", "ACL SETUSER b -@all +@read +@write");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all +@write +@read");
    expect_status(c, "OK", "ACL SETUSER b +@all -@all +@admin");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels -@all +@admin");
    expect_status(c, "OK", "ACL SETUSER b +@all -config +get");
    expect_list_line(c, "b", "user b on sanitize-payload resetchannels +@all -config");
    /* selectors: added, cleared; reset */
    expect_status(c, "OK", "ACL SETUSER b (+get ~x) () clearselectors (%%R~y +hget)");
    expect_list_line(c, "b",
                     "user b on sanitize-payload resetchannels +@all -config "
                     "(%R~y resetchannels -@all +hget)");
    expect_status(c, "OK", "ACL SETUSER b reset");
    expect_list_line(c, "b", "user b off sanitize-payload resetchannels -@all");
    /* selector words merged across arguments */
    expect_status(c, "OK", "ACL SETUSER b (+get ~k1) ( +set ) ( ~q* )");
    expect_list_line(c, "b",
                     "user b off sanitize-payload resetchannels -@all (~k1 resetchannels -@all "
                     "+get) (resetchannels -@all +set) (~q* resetchannels -@all)");
    r = expect_array(c, 3, "ACL USERS");
    check_words(r, "a b default");
    freeReplyObject(r);
    expect_int(c, 2, "ACL DELUSER a nosuch b");
    expect_int(c, 0, "ACL DELUSER a");
}
END_TEST

/* Each malformed rule is refused with Redis's text and changes nothing
 * (the user is not created); malformed selectors included (CVE-2024-51741
 * was a crash on one). */
START_TEST(setuser_errors)
{
    redisContext *c = h_c;
    static const struct { const char *rule, *err; } bad[] = {
        {"foo", "Syntax error"},
        {"+nonexist", "Unknown command or category name in ACL"},
        {"+@nocat", "Unknown command or category name in ACL"},
        {"-@nocat", "Unknown command or category name in ACL"},
        {"+config|nosuch", "Unknown command or category name in ACL"},
        {"+config|get|x", "Allowing first-arg of a subcommand is not supported"},
        {"+select|0|1", "Unknown command or category name in ACL"},
        {"-select|0", "Unknown command or category name in ACL"},
        {"+@all|x", "Unknown command or category name in ACL"},
        {"+get|", "Syntax error"},
        {"+", "Unknown command or category name in ACL"},
        {"-", "Unknown command or category name in ACL"},
        {"+@", "Unknown command or category name in ACL"},
        {"%X~a", "Syntax error"},
        {"%~a", "Syntax error"},
        {"%", "Syntax error"},
        {"%RR~a", "Syntax error"},
        {"x~", "Syntax error"},
        {"~a b", "Syntax error"},
        {"&a b", "Syntax error"},
        {"#abc", "The password hash must be exactly 64 characters and contain only lowercase "
                 "hexadecimal characters"},
        {"#5E884898DA28047151D0E56F8DC6292773603D0D6AABBDD62A11EF721D1542D8",
         "The password hash must be exactly 64 characters and contain only lowercase "
         "hexadecimal characters"},
        {"!abc", "The password hash must be exactly 64 characters and contain only lowercase "
                 "hexadecimal characters"},
        {"<nothere", "The password you are trying to remove from the user does not exist"},
        {")", "Syntax error"},
        {"+get)", "Unknown command or category name in ACL"},
        {"(+get))", "Unknown command or category name in ACL"},
        {"((+get)", "Syntax error"},
        {"(foo)", "Syntax error"},
        {"(%)", "Syntax error"},
        {"(%~x)", "Syntax error"},
        {"(on)", "Syntax error"},
        {"(>pass)", "Syntax error"},
        {"(nopass)", "Syntax error"},
        {"(reset)", "Syntax error"},
        {"(clearselectors)", "Syntax error"},
        {"(~a b)", "Syntax error"},
        {"resetpass)", "Syntax error"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char want[512];
        snprintf(want, sizeof want, "ERR Error in ACL SETUSER modifier '%s': %s", bad[i].rule,
                 bad[i].err);
        expect_error(c, want, "ACL SETUSER e %s", bad[i].rule);
    }
    static const char *const unmatched[] = {"(", "(+get", "(~a", "(%R"};
    for (size_t i = 0; i < sizeof unmatched / sizeof unmatched[0]; i++) {
        char want[256];
        snprintf(want, sizeof want, "ERR Unmatched parenthesis in acl selector starting at '%s'.",
                 unmatched[i]);
        expect_error(c, want, "ACL SETUSER e on %s +get", unmatched[i]);
    }
    expect_nil(c, "ACL GETUSER e");
    expect_status(c, "OK", "ACL SETUSER e on ~a");
    expect_error(c, "ERR Error in ACL SETUSER modifier '~b': Adding a pattern after the * "
                    "pattern (or the 'allkeys' flag) is not valid and does not have any effect. "
                    "Try 'resetkeys' to start with an empty list of patterns",
                 "ACL SETUSER e +get allkeys ~b");
    expect_error(c, "ERR Error in ACL SETUSER modifier '&b': Adding a pattern after the * "
                    "pattern (or the 'allchannels' flag) is not valid and does not have any "
                    "effect. Try 'resetchannels' to start with an empty list of channels",
                 "ACL SETUSER e allchannels &b");
    /* a refused SETUSER left the user as it was */
    expect_list_line(c, "e", "user e on ~a resetchannels -@all");
    expect_error(c, "ERR Usernames can't contain spaces or null characters", "ACL SETUSER %s",
                 "a b");
    expect_error(c, "ERR wrong number of arguments for 'acl|setuser' command", "ACL SETUSER");
    /* accepted oddities of 7.0.15 */
    expect_status(c, "OK", "ACL SETUSER e resetkeys %%RW %%R (%%W)");
    expect_list_line(c, "e", "user e on ~ resetchannels -@all (%W~ resetchannels -@all)");
    expect_status(c, "PONG", "PING");
}
END_TEST

START_TEST(cat_genpass_help)
{
    redisContext *c = h_c;
    redisReply *r = expect_array(c, 21, "ACL CAT");
    check_words(r, "keyspace read write set sortedset list hash string bitmap hyperloglog geo "
                   "stream pubsub admin fast slow blocking dangerous connection transaction "
                   "scripting");
    freeReplyObject(r);
    r = expect_array(c, -1, "ACL CAT transaction");
    int found = 0;
    for (size_t i = 0; i < r->elements; i++)
        found += !strcmp(r->element[i]->str, "multi") || !strcmp(r->element[i]->str, "exec");
    ck_assert_int_eq(found, 2);
    freeReplyObject(r);
    r = expect_array(c, -1, "ACL CAT ADMIN");
    found = 0;
    for (size_t i = 0; i < r->elements; i++) {
        found += !strcmp(r->element[i]->str, "config|set") || !strcmp(r->element[i]->str, "acl|setuser");
        ck_assert_str_ne(r->element[i]->str, "get");
        ck_assert_str_ne(r->element[i]->str, "config"); /* the container is @slow only */
    }
    ck_assert_int_eq(found, 2);
    freeReplyObject(r);
    expect_error(c, "ERR Unknown category 'nosuch'", "ACL CAT nosuch");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'CAT'. Try ACL HELP.",
                 "ACL CAT a b");
    r = cmd(c, "ACL GENPASS");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 64);
    ck_assert_int_eq((int)strspn(r->str, "0123456789abcdef"), 64);
    freeReplyObject(r);
    r = cmd(c, "ACL GENPASS 5");
    ck_assert_uint_eq(r->len, 2);
    freeReplyObject(r);
    r = cmd(c, "ACL GENPASS 4096");
    ck_assert_uint_eq(r->len, 1024);
    freeReplyObject(r);
    const char *e = "ERR ACL GENPASS argument must be the number of bits for the output "
                    "password, a positive number up to 4096";
    expect_error(c, e, "ACL GENPASS 0");
    expect_error(c, e, "ACL GENPASS 4097");
    expect_error(c, "ERR value is not an integer or out of range", "ACL GENPASS x");
    r = expect_array(c, 29, "ACL HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "ACL <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    expect_error(c, "ERR unknown subcommand 'foo'. Try ACL HELP.", "ACL foo");
    expect_error(c, "ERR wrong number of arguments for 'acl' command", "ACL");
    const char *nofile =
        "ERR This Redis instance is not configured to use an ACL file. You may want to specify "
        "users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
        "Redis configuration file set) in order to store users in the Redis configuration.";
    expect_error(c, nofile, "ACL LOAD");
    expect_error(c, nofile, "ACL SAVE");
}
END_TEST

START_TEST(auth_and_hello)
{
    redisContext *c = h_c;
    expect_error(c, "ERR AUTH <password> called without any password configured for the "
                    "default user. Are you sure your configuration is correct?", "AUTH x");
    expect_status(c, "OK", "AUTH default anything"); /* nopass */
    expect_status(c, "OK", "ACL SETUSER u1 on >s1 >s2 +@all ~*");
    expect_status(c, "OK", "ACL SETUSER off1 off >x +@all");
    const char *wrong = "WRONGPASS invalid username-password pair or user is disabled.";
    expect_error(c, wrong, "AUTH u1 bad");
    expect_error(c, wrong, "AUTH nouser x");
    expect_error(c, wrong, "AUTH off1 x");
    expect_error(c, "ERR syntax error", "AUTH a b c");
    expect_bulk(c, "default", "ACL WHOAMI");
    expect_status(c, "OK", "AUTH u1 s2");
    expect_bulk(c, "u1", "ACL WHOAMI");
    expect_error(c, wrong, "HELLO 2 AUTH u1 bad");
    redisReply *r = expect_array(c, 14, "HELLO 2 AUTH default x SETNAME n1");
    freeReplyObject(r);
    expect_bulk(c, "default", "ACL WHOAMI");
    expect_bulk(c, "n1", "CLIENT GETNAME");
    /* requirepass is the default user's password */
    expect_status(c, "OK", "CONFIG SET requirepass secret");
    expect_list_line(c, "default",
                     "user default on "
                     "#2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b ~* &* +@all");
    redisContext *c2 = srv_connect(h_srv);
    expect_error(c2, "NOAUTH Authentication required.", "PING");
    expect_error_prefix(c2, "NOAUTH HELLO must be called with the client already authenticated",
                        "HELLO 2");
    expect_error(c2, wrong, "AUTH wrong");
    expect_status(c2, "OK", "AUTH secret");
    expect_status(c2, "PONG", "PING");
    expect_status(c2, "RESET", "RESET");
    expect_error(c2, "NOAUTH Authentication required.", "PING");
    expect_status(c2, "OK", "AUTH u1 s1");
    expect_bulk(c2, "u1", "ACL WHOAMI");
    r = cmd(c2, "CLIENT INFO");
    ck_assert_ptr_nonnull(strstr(r->str, " user=u1 "));
    freeReplyObject(r);
    expect_status(c2, "RESET", "RESET");
    expect_error(c2, "NOAUTH Authentication required.", "ACL WHOAMI");
    redisFree(c2);
    expect_status(c, "OK", "CONFIG SET requirepass %s", "");
    expect_list_line(c, "default", "user default on nopass ~* &* +@all");
    /* a default user that is off cannot be used without AUTH */
    expect_status(c, "OK", "ACL SETUSER default off");
    c2 = srv_connect(h_srv);
    expect_error(c2, "NOAUTH Authentication required.", "PING");
    expect_error(c2, wrong, "AUTH default x");
    expect_status(c2, "OK", "AUTH u1 s1");
    redisFree(c2);
    expect_status(c, "OK", "ACL SETUSER default on");
}
END_TEST

/* Passwords are bytes: past ASCII and NUL ones too, from requirepass
 * (CONFIG SET) and from ACL SETUSER, and CONFIG GET gives them back whole. */
START_TEST(binary_passwords)
{
    redisContext *c = h_c;
    const char *wrong = "WRONGPASS invalid username-password pair or user is disabled.";
    const char pw[] = "a\0b\xff";
    expect_status(c, "OK", "CONFIG SET requirepass %b", pw, sizeof pw - 1);
    redisReply *r = expect_array(c, 2, "CONFIG GET requirepass");
    ck_assert_uint_eq(r->element[1]->len, sizeof pw - 1);
    ck_assert(!memcmp(r->element[1]->str, pw, sizeof pw - 1));
    freeReplyObject(r);
    expect_list_line(c, "default",
                     "user default on "
                     "#a37cc3026aae4d519e0b19c298fa913b4dccfdf0658cbccbb7deaa0226d5acdb "
                     "~* &* +@all");
    redisContext *c2 = srv_connect(h_srv);
    expect_error(c2, wrong, "AUTH a");
    expect_error(c2, wrong, "AUTH %b", pw, sizeof pw - 2);
    expect_status(c2, "OK", "AUTH %b", pw, sizeof pw - 1);
    expect_status(c2, "OK", "AUTH default %b", pw, sizeof pw - 1);
    r = expect_array(c2, 14, "HELLO 2 AUTH default %b", pw, sizeof pw - 1);
    freeReplyObject(r);
    /* a single NUL is a password, not none */
    expect_status(c, "OK", "CONFIG SET requirepass %b", "", (size_t)1);
    expect_error(c2, wrong, "AUTH %b", "", (size_t)0);
    expect_status(c2, "OK", "AUTH %b", "", (size_t)1);
    expect_status(c, "OK", "CONFIG SET requirepass %s", "");
    expect_list_line(c, "default", "user default on nopass ~* &* +@all");
    const char rule[] = ">x\xff\0y";
    expect_status(c, "OK", "ACL SETUSER u on %b +@all", rule, sizeof rule - 1);
    expect_error(c2, wrong, "AUTH u %b", "x\xff", (size_t)2);
    expect_status(c2, "OK", "AUTH u %b", rule + 1, sizeof rule - 2);
    expect_bulk(c2, "u", "ACL WHOAMI");
    redisFree(c2);
}
END_TEST

START_TEST(noperm_at_dispatch)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER a on >p ~k* %%R~r* %%W~w* &ch* +get +set +publish "
                           "+subscribe +psubscribe +select|1 +config|get +lmove (+del ~d*)");
    redisContext *u = srv_connect(h_srv);
    expect_status(u, "OK", "AUTH a p");
    expect_nil(u, "GET k1");
    expect_error(u, "NOPERM this user has no permissions to access one of the keys used as "
                    "arguments", "GET x");
    expect_error(u, "NOPERM this user has no permissions to run the 'hget' command", "HGET k a");
    expect_error(u, "NOPERM this user has no permissions to run the 'config|set' command",
                 "CONFIG SET a b");
    redisReply *r = expect_array(u, 2, "CONFIG GET maxmemory");
    freeReplyObject(r);
    /* %R and %W by the key specs' flags */
    expect_nil(u, "GET r1");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the keys", "SET r1 v");
    expect_status(u, "OK", "SET w1 v");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the keys", "GET w1");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the keys", "LMOVE w1 k1 LEFT LEFT");
    /* a selector allows what the root does not */
    expect_int(u, 0, "DEL d1");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the keys", "DEL k1");
    /* first-args */
    expect_status(u, "OK", "SELECT 1");
    expect_error(u, "NOPERM this user has no permissions to run the 'select' command", "SELECT 2");
    /* channels; a pattern must be allowed literally */
    expect_int(u, 0, "PUBLISH ch1 m");
    expect_error(u, "NOPERM this user has no permissions to access one of the channels used as "
                    "arguments", "PUBLISH zz m");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the channels",
                        "PSUBSCRIBE ch1*");
    expect_error_prefix(u, "NOPERM this user has no permissions to access one of the channels",
                        "SUBSCRIBE ch1 zz");
    /* AUTH and HELLO are allowed whatever the rules */
    expect_status(u, "OK", "AUTH a p");
    /* the order of refusals: arity first, then ACL */
    expect_error(u, "ERR wrong number of arguments for 'hget' command", "HGET k");
    r = cmd(c, "INFO commandstats");
    ck_assert_ptr_nonnull(strstr(r->str, "cmdstat_hget:calls=0,usec=0,usec_per_call=0.00,rejected_calls=2"));
    freeReplyObject(r);
    redisFree(u);
}
END_TEST

START_TEST(dryrun)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER a on ~k* %%R~r* &ch* +get +set +publish +psubscribe");
    expect_status(c, "OK", "ACL DRYRUN a get k1");
    expect_bulk(c, "This user has no permissions to access the 'x' key", "ACL DRYRUN a get x");
    expect_bulk(c, "This user has no permissions to access the 'r1' key", "ACL DRYRUN a set r1 v");
    expect_bulk(c, "This user has no permissions to run the 'del' command", "ACL DRYRUN a del k");
    expect_bulk(c, "This user has no permissions to run the 'config|get' command",
                "ACL DRYRUN a config get x");
    expect_status(c, "OK", "ACL DRYRUN a publish ch1 x");
    expect_bulk(c, "This user has no permissions to access the 'zz' channel",
                "ACL DRYRUN a publish zz x");
    expect_bulk(c, "This user has no permissions to access the 'c*' channel",
                "ACL DRYRUN a psubscribe c*");
    expect_status(c, "OK", "ACL DRYRUN a psubscribe ch*");
    expect_error(c, "ERR Command 'nosuch' not found", "ACL DRYRUN a nosuch");
    expect_error(c, "ERR Command 'config' not found", "ACL DRYRUN a config nosuch");
    expect_error(c, "ERR User 'nouser' not found", "ACL DRYRUN nouser get a");
    expect_error(c, "ERR wrong number of arguments for 'get' command", "ACL DRYRUN a get");
    expect_error(c, "ERR wrong number of arguments for 'acl|dryrun' command", "ACL DRYRUN a");
}
END_TEST

/* One ACL LOG entry's fields (without age and client-info's details). */
static void check_entry(const redisReply *e, long long count, const char *reason,
                        const char *ctx, const char *object, const char *user) {
    ck_assert_uint_eq(e->elements, 14);
    ck_assert_int_eq(field(e, "count")->integer, count);
    check_str_field(e, "reason", reason);
    check_str_field(e, "context", ctx);
    check_str_field(e, "object", object);
    check_str_field(e, "username", user);
    ck_assert_int_eq(field(e, "age-seconds")->type, REDIS_REPLY_STRING);
    ck_assert_ptr_nonnull(strstr(field(e, "client-info")->str, "id="));
}

START_TEST(acl_log)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "ACL SETUSER a on >p ~k* &ch* +get +publish");
    redisContext *u = srv_connect(h_srv);
    expect_error_prefix(u, "WRONGPASS", "AUTH a wrong");
    expect_error_prefix(u, "WRONGPASS", "AUTH nouser x");
    expect_status(u, "OK", "AUTH a p");
    expect_error_prefix(u, "NOPERM", "GET x");
    expect_error_prefix(u, "NOPERM", "GET x");
    expect_error_prefix(u, "NOPERM", "DEL k");
    expect_error_prefix(u, "NOPERM", "PUBLISH zz m");
    redisReply *r = expect_array(c, 5, "ACL LOG");
    check_entry(r->element[0], 1, "channel", "toplevel", "zz", "a");
    check_entry(r->element[1], 1, "command", "toplevel", "del", "a");
    check_entry(r->element[2], 2, "key", "toplevel", "x", "a");
    check_entry(r->element[3], 1, "auth", "toplevel", "AUTH", "nouser");
    check_entry(r->element[4], 1, "auth", "toplevel", "AUTH", "a");
    ck_assert_ptr_nonnull(strstr(field(r->element[0], "client-info")->str, " cmd=publish user=a "));
    freeReplyObject(r);
    /* an equal refusal moves its entry to the front */
    expect_error_prefix(u, "NOPERM", "GET x");
    r = expect_array(c, 2, "ACL LOG 2");
    check_entry(r->element[0], 3, "key", "toplevel", "x", "a");
    check_entry(r->element[1], 1, "channel", "toplevel", "zz", "a");
    freeReplyObject(r);
    r = expect_array(c, 0, "ACL LOG -1");
    freeReplyObject(r);
    expect_error(c, "ERR value is not an integer or out of range", "ACL LOG x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'LOG'. Try ACL HELP.",
                 "ACL LOG 1 2");
    /* acllog-max-len keeps the newest */
    expect_status(c, "OK", "CONFIG SET acllog-max-len 2");
    expect_error_prefix(u, "NOPERM", "HGET k a");
    r = expect_array(c, 2, "ACL LOG");
    check_entry(r->element[0], 1, "command", "toplevel", "hget", "a");
    freeReplyObject(r);
    expect_status(c, "OK", "ACL LOG RESET");
    r = expect_array(c, 0, "ACL LOG");
    freeReplyObject(r);
    r = expect_array(c, 6, "CONFIG GET acl*");
    freeReplyObject(r);
    redisFree(u);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("acl");
    TCase *tc = tcase_create("acl");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, default_user);
    tcase_add_test(tc, setuser_getuser_shape);
    tcase_add_test(tc, setuser_errors);
    tcase_add_test(tc, cat_genpass_help);
    tcase_add_test(tc, auth_and_hello);
    tcase_add_test(tc, binary_passwords);
    tcase_add_test(tc, noperm_at_dispatch);
    tcase_add_test(tc, dryrun);
    tcase_add_test(tc, acl_log);
    suite_add_tcase(s, tc);
    return h_main(s);
}
