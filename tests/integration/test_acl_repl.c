/* test_acl_repl: replication through an ACL user, as Redis 7.0's docs set
 * it up. The master (users from its config file: the default user off, an
 * admin, `repl` with the minimum a replica needs, +psync +replconf +ping,
 * and `norepl` without +psync) serves three replicas started at once:
 * masteruser repl / masterauth secret syncs and streams writes (the
 * master's CLIENT LIST shows it as user=repl); a wrong password fails at
 * AUTH and a user without +psync at PSYNC, each with the replica's log
 * line, INFO master_link_status:down and the master's ACL LOG entry Redis
 * gives. Then the repl user's password is rotated: the replica, cut off,
 * cannot AUTH until CONFIG SET masterauth, and then resumes by a partial
 * resync.
 *
 * verso_master: master and replicas are the server under test
 * ($VERSO_SERVER or verso). redis_master: a redis-server master and
 * replicas under test (the interop direction, which needs only the
 * replica's AUTH user pass). With VERSO_SERVER=/usr/bin/redis-server both
 * are all Redis. binary_*: passwords holding a NUL and bytes past ASCII,
 * both directions too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "repl_util.h"

#define MASTER_CONF                                                                              \
    "user default off\n"                                                                         \
    "user admin on >adminpw ~* &* +@all\n"                                                       \
    "user repl on >secret +psync +replconf +ping\n"                                              \
    "user norepl on >secret +replconf +ping\n"

static redisContext *connect_admin(const srv *s) {
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "AUTH admin adminpw");
    return c;
}

/* The value of field in one ACL LOG entry (a flat field/value array). */
static const char *entry_field(const redisReply *e, const char *field) {
    if (e->type != REDIS_REPLY_ARRAY) return NULL;
    for (size_t i = 0; i + 1 < e->elements; i += 2)
        if (e->element[i]->type == REDIS_REPLY_STRING && !strcmp(e->element[i]->str, field) &&
            e->element[i + 1]->type == REDIS_REPLY_STRING)
            return e->element[i + 1]->str;
    return NULL;
}

/* Waits until the ACL LOG of c holds an entry of that reason, object and
 * username in context toplevel; fails with the log's entries otherwise. */
static void wait_acl_log(redisContext *c, const char *reason, const char *object,
                         const char *username) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    char seen[2048] = "";
    for (;;) {
        redisReply *r = cmd(c, "ACL LOG");
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        int found = 0;
        seen[0] = '\0';
        for (size_t i = 0; i < r->elements && !found; i++) {
            const char *re = entry_field(r->element[i], "reason");
            const char *ob = entry_field(r->element[i], "object");
            const char *us = entry_field(r->element[i], "username");
            const char *cx = entry_field(r->element[i], "context");
            size_t n = strlen(seen);
            snprintf(seen + n, sizeof seen - n, " [%s %s %s %s]", re ? re : "?", ob ? ob : "?",
                     us ? us : "?", cx ? cx : "?");
            found = re && ob && us && cx && !strcmp(re, reason) && !strcmp(ob, object) &&
                    !strcmp(us, username) && !strcmp(cx, "toplevel");
        }
        freeReplyObject(r);
        if (found) return;
        ck_assert_msg(h_now_ms() < end, "no ACL LOG entry %s %s %s; entries:%s", reason, object,
                      username, seen);
        h_sleep_ms(20);
    }
}

/* The replica's log shows line, and its link is down (a new attempt may
 * be in progress at any moment: redis-server's retries at once). */
static void expect_refused(const srv *replica, const char *line) {
    const char *needles[] = {line, NULL};
    if (srv_log_wait_any(replica, 10000, needles) != 0) {
        char *log = srv_log_read(replica);
        ck_abort_msg("no '%s' in the replica's log:\n%s", line, log);
    }
    redisContext *c = srv_connect(replica);
    char *info = h_info(c, "replication"), v[64];
    ck_assert(h_info_field(info, "role", v, sizeof v) && !strcmp(v, "slave"));
    ck_assert(h_info_field(info, "master_link_status", v, sizeof v));
    ck_assert_msg(!strcmp(v, "down"), "master_link_status:%s\n%s", v, info);
    free(info);
    redisFree(c);
}

/* The master's CLIENT LIST has exactly one replica, of user repl. */
static void expect_replica_client(redisContext *m) {
    redisReply *r = cmd(m, "CLIENT LIST TYPE replica");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    const char *nl = strchr(r->str, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "not one replica:\n%s", r->str);
    ck_assert_msg(strstr(r->str, " flags=S ") && strstr(r->str, " user=repl "), "%s", r->str);
    freeReplyObject(r);
}

static void acl_repl_case(int redis_master) {
    srv *m = h_srv_start_conf(redis_master, MASTER_CONF, "--repl-diskless-sync-delay 0");
    redisContext *mc = connect_admin(m);
    ru_preload(mc, 1); /* what the full sync carries */
    /* the three replicas at once, each syncing from its start */
    srv *ok = h_srv_start("--replicaof 127.0.0.1 %d --masteruser repl --masterauth secret",
                          m->port);
    srv *badpass = h_srv_start("--replicaof 127.0.0.1 %d --masteruser repl --masterauth wrong",
                               m->port);
    srv *nopsync = h_srv_start(
        "--replicaof 127.0.0.1 %d --masteruser norepl --masterauth secret", m->port);

    expect_refused(badpass, "Unable to AUTH to MASTER: -WRONGPASS invalid username-password "
                            "pair or user is disabled.");
    wait_acl_log(mc, "auth", "AUTH", "repl");
    expect_refused(nopsync, "Unexpected reply to PSYNC from master: -NOPERM this user has no "
                            "permissions to run the 'psync' command");
    wait_acl_log(mc, "command", "psync", "norepl");
    /* (redis-server's replica then retries with SYNC, refused too, at once
     * and again: stop both, the master has seen enough) */
    srv_kill9(badpass);
    srv_kill9(nopsync);

    redisContext *rc = srv_connect(ok);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    h_wait_info(mc, "replication", "connected_slaves", 1, 10000);
    expect_replica_client(mc);
    ru_wait_caught_up(mc, rc, 20000);
    ck_assert_uint_gt(ru_same_data(mc, rc, 2000), 1000);
    expect_status(mc, "OK", "FLUSHALL");
    ru_preload(mc, 1); /* again, through the stream */
    expect_status(mc, "OK", "SET after-sync 1");
    ru_wait_caught_up(mc, rc, 20000);
    ru_same_data(mc, rc, 2000);
    expect_bulk(rc, "1", "GET after-sync");

    /* the password rotated and the link cut: refused until the replica
     * has the new one, then a partial resync */
    long long partial = h_info_int(mc, "stats", "sync_partial_ok");
    int refusals = srv_log_count(ok, "Unable to AUTH to MASTER");
    expect_status(mc, "OK", "ACL SETUSER repl resetpass >rotated");
    expect_status(mc, "OK", "ACL LOG RESET");
    expect_int(mc, 1, "CLIENT KILL USER repl");
    wait_acl_log(mc, "auth", "AUTH", "repl");
    long long end = h_now_ms() + h_scaled_ms(10000);
    while (srv_log_count(ok, "Unable to AUTH to MASTER") <= refusals) {
        ck_assert_msg(h_now_ms() < end, "the replica did not log its refused AUTH");
        h_sleep_ms(20);
    }
    ck_assert_int_eq(h_info_int(mc, "replication", "connected_slaves"), 0);
    expect_status(mc, "OK", "SET while-down 1");
    expect_status(rc, "OK", "CONFIG SET masterauth rotated");
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    h_wait_info(mc, "stats", "sync_partial_ok", partial + 1, 10000);
    expect_replica_client(mc);
    ru_wait_caught_up(mc, rc, 20000);
    expect_bulk(rc, "1", "GET while-down");
    redisFree(rc);
    redisFree(mc);
}

/* Passwords of any bytes, NUL included: the master's requirepass and a
 * user's ">pass" from its config file ("\x00" escapes), a replica's
 * masterauth from CONFIG SET (the default user) and from its config file
 * (with masteruser); both replicas sync. Before, the replica sent the
 * password cut at its NUL and was refused. */
#define BIN_MASTER_CONF                                                                          \
    "requirepass \"a\\x00b\\xff\"\n"                                                             \
    "user repl on \">x\\x00y\" +psync +replconf +ping\n"

static void binary_case(int redis_master) {
    srv *m = h_srv_start_conf(redis_master, BIN_MASTER_CONF, "--repl-diskless-sync-delay 0");
    srv *byset = h_srv_start(NULL);
    srv *byfile = h_srv_start_conf(0, "masteruser repl\nmasterauth \"x\\x00y\"\n", NULL);
    redisContext *mc = srv_connect(m);
    expect_error(mc, "WRONGPASS invalid username-password pair or user is disabled.", "AUTH a");
    expect_status(mc, "OK", "AUTH %b", "a\0b\xff", (size_t)4);
    expect_status(mc, "OK", "SET k v");
    redisContext *r1 = srv_connect(byset), *r2 = srv_connect(byfile);
    expect_status(r1, "OK", "CONFIG SET masterauth %b", "a\0b\xff", (size_t)4);
    redisReply *r = expect_array(r1, 2, "CONFIG GET masterauth");
    ck_assert_uint_eq(r->element[1]->len, 4);
    ck_assert(!memcmp(r->element[1]->str, "a\0b\xff", 4));
    freeReplyObject(r);
    r = expect_array(r2, 2, "CONFIG GET masterauth");
    ck_assert_uint_eq(r->element[1]->len, 3);
    ck_assert(!memcmp(r->element[1]->str, "x\0y", 3));
    freeReplyObject(r);
    expect_status(r1, "OK", "REPLICAOF 127.0.0.1 %d", m->port);
    expect_status(r2, "OK", "REPLICAOF 127.0.0.1 %d", m->port);
    h_wait_info_str(r1, "replication", "master_link_status", "up", 20000);
    h_wait_info_str(r2, "replication", "master_link_status", "up", 20000);
    h_wait_info(mc, "replication", "connected_slaves", 2, 10000);
    expect_bulk(r1, "v", "GET k");
    expect_bulk(r2, "v", "GET k");
    redisFree(r1);
    redisFree(r2);
    redisFree(mc);
}

START_TEST(binary_verso_master) { binary_case(0); }
END_TEST

START_TEST(binary_redis_master) { binary_case(1); }
END_TEST

START_TEST(verso_master) { acl_repl_case(0); }
END_TEST

START_TEST(redis_master) { acl_repl_case(1); }
END_TEST

int main(void) {
    Suite *s = suite_create("acl_repl");
    h_add_dropall(s, "verso_master", verso_master, 120);
    h_add_dropall(s, "redis_master", redis_master, 120);
    h_add_dropall(s, "binary_verso_master", binary_verso_master, 60);
    h_add_dropall(s, "binary_redis_master", binary_redis_master, 60);
    return h_main(s);
}
