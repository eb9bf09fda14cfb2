/* test_cluster_route: what one node started with cluster-enabled yes and no
 * slots assigned answers (cluster/route.c): keys of unassigned slots are
 * refused with -CLUSTERDOWN Hash slot not served (plain and in MULTI, where
 * EXEC then aborts), keyless commands run, SELECT of another db is refused,
 * ASKING / READONLY / READWRITE answer OK; and outside cluster mode those
 * three are refused. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

START_TEST(unassigned_slots_refused) {
    srv *s = h_srv_start("--cluster-enabled yes");
    redisContext *c = srv_connect(s);
    expect_error(c, "CLUSTERDOWN Hash slot not served", "SET foo bar");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "GET foo");
    /* the first key's slot is unbound: that answer, before any cross-slot */
    expect_error(c, "CLUSTERDOWN Hash slot not served", "MSET a 1 b 2");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "EVAL %s 1 foo", "return 1");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "SPUBLISH ch m");
    /* no keys: served */
    expect_status(c, "PONG", "PING");
    expect_int(c, 1, "EVAL %s 0", "return 1");
    expect_int(c, 0, "PUBLISH ch m");
    expect_int(c, 0, "DBSIZE");
    /* MULTI: the refused command fails EXEC */
    expect_status(c, "OK", "MULTI");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "SET foo bar");
    expect_status(c, "QUEUED", "PING");
    expect_error(c, "EXECABORT Transaction discarded because of previous errors.", "EXEC");
    redisFree(c);
}
END_TEST

START_TEST(select_refused) {
    srv *s = h_srv_start("--cluster-enabled yes");
    redisContext *c = srv_connect(s);
    expect_error(c, "ERR SELECT is not allowed in cluster mode", "SELECT 1");
    expect_error(c, "ERR SELECT is not allowed in cluster mode", "SELECT 99");
    expect_status(c, "OK", "SELECT 0");
    expect_error(c, "ERR value is not an integer or out of range", "SELECT x");
    redisFree(c);
}
END_TEST

/* One database in a cluster: MOVE, SWAPDB and COPY ... DB n are refused
 * with Redis 7.0's texts (on a node serving every slot, so that MOVE and
 * COPY get past the routing). */
START_TEST(other_databases_refused) {
    srv *s = h_srv_start("--cluster-enabled yes");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) { /* Redis 7.0 waits ~2 s before a new node says ok */
        redisReply *r = cmd(c, "CLUSTER INFO");
        int ok = r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
        freeReplyObject(r);
        if (ok) break;
        ck_assert_msg(h_now_ms() < deadline, "cluster_state never ok");
        h_sleep_ms(20);
    }
    expect_status(c, "OK", "SET {k}a v");
    expect_error(c, "ERR MOVE is not allowed in cluster mode", "MOVE {k}a 1");
    expect_error(c, "ERR MOVE is not allowed in cluster mode", "MOVE {k}a 0");
    expect_error(c, "ERR SWAPDB is not allowed in cluster mode", "SWAPDB 0 1");
    expect_error(c, "ERR SWAPDB is not allowed in cluster mode", "SWAPDB x 1");
    expect_error(c, "ERR Copying to another database is not allowed in cluster mode",
                 "COPY {k}a {k}b DB 1");
    expect_error(c, "ERR DB index is out of range", "COPY {k}a {k}b DB 99");
    expect_int(c, 1, "COPY {k}a {k}b DB 0");
    expect_bulk(c, "v", "GET {k}b");
    redisFree(c);
}
END_TEST

static void wait_state(redisContext *c, const char *want) {
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) { /* Redis 7.0 waits ~2 s before a new node says ok */
        redisReply *r = cmd(c, "CLUSTER INFO");
        int ok = r->type == REDIS_REPLY_STRING && strstr(r->str, want);
        freeReplyObject(r);
        if (ok) return;
        ck_assert_msg(h_now_ms() < deadline, "never %s", want);
        h_sleep_ms(20);
    }
}

/* A client blocked on a key whose slot leaves this node is unblocked with
 * -MOVED (the slot given to another node), -CLUSTERDOWN Hash slot not
 * served (unassigned) or -CLUSTERDOWN The cluster is down, as Redis 7.0's
 * clusterRedirectBlockedClientIfNeeded: the write that would serve it
 * would never come here. */
/* A node serving every slot that knows a second node (a redis-server, id
 * in oid): its slots can be given away with CLUSTER SETSLOT ... NODE. */
static void two_nodes(srv **s, srv **other, char oid[41]) {
    *s = h_srv_start("--cluster-enabled yes");
    *other = h_srv_start_redis("--cluster-enabled yes");
    redisContext *c = srv_connect(*s), *o = srv_connect(*other);
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    wait_state(c, "cluster_state:ok");
    redisReply *r = cmd(o, "CLUSTER MYID");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    snprintf(oid, 41, "%s", r->str);
    freeReplyObject(r);
    expect_status(c, "OK", "CLUSTER MEET 127.0.0.1 %d", (*other)->port);
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) { /* the handshake is over: the other node is known by its id */
        r = cmd(c, "CLUSTER NODES");
        int known = r->type == REDIS_REPLY_STRING && strstr(r->str, oid);
        freeReplyObject(r);
        if (known) break;
        ck_assert_msg(h_now_ms() < deadline, "the other node never joined");
        h_sleep_ms(20);
    }
    redisFree(c);
    redisFree(o);
}

START_TEST(blocked_clients_redirected) {
    srv *s, *other;
    char oid[41];
    two_nodes(&s, &other, oid);
    redisContext *c = srv_connect(s);
    redisReply *r;
    redisContext *b1 = srv_connect(s), *b2 = srv_connect(s), *b3 = srv_connect(s);
    h_send(b1, "BLPOP {a}l 0");
    h_send(b2, "BZPOPMIN {b}z 0");
    h_send(b3, "XREAD BLOCK 0 STREAMS {c}x $");
    h_wait_info(c, "clients", "blocked_clients", 3, 5000);
    long long sa, sb;
    r = cmd(c, "CLUSTER KEYSLOT {a}l");
    sa = r->integer;
    freeReplyObject(r);
    r = cmd(c, "CLUSTER KEYSLOT {b}z");
    sb = r->integer;
    freeReplyObject(r);
    char want[128];
    /* the slot given to the other node: -MOVED to it */
    expect_status(c, "OK", "CLUSTER SETSLOT %lld NODE %s", sa, oid);
    r = h_next_reply(b1);
    snprintf(want, sizeof want, "MOVED %lld 127.0.0.1:%d", sa, other->port);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, want);
    freeReplyObject(r);
    /* unassigned, the cluster still ok without full coverage */
    expect_status(c, "OK", "CONFIG SET cluster-require-full-coverage no");
    expect_status(c, "OK", "CLUSTER DELSLOTS %lld", sb);
    r = h_next_reply(b2);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "CLUSTERDOWN Hash slot not served");
    freeReplyObject(r);
    /* the cluster down (a slot unassigned with full coverage required:
     * Redis 7.0 recomputes its state at the DELSLOTS, verso at once too):
     * every blocked client goes */
    expect_status(c, "OK", "CONFIG SET cluster-require-full-coverage yes");
    r = cmd(c, "CLUSTER KEYSLOT {d}");
    expect_status(c, "OK", "CLUSTER DELSLOTS %lld", r->integer);
    freeReplyObject(r);
    r = h_next_reply(b3);
    ck_assert_int_eq(r->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->str, "CLUSTERDOWN The cluster is down");
    freeReplyObject(r);
    h_wait_info(c, "clients", "blocked_clients", 0, 5000);
    expect_status(b1, "PONG", "PING"); /* the connections go on */
    redisFree(b1);
    redisFree(b2);
    redisFree(b3);
    redisFree(c);
}
END_TEST

/* A command a script calls must be served here: a key of another node's
 * slot is refused with Redis 7.0's text (raised by redis.call with the
 * script's place, returned by redis.pcall); local keys of several slots
 * are fine (7.0 does not track the script's slot). */
START_TEST(script_keys_routed) {
    srv *s, *other;
    char oid[41];
    two_nodes(&s, &other, oid);
    redisContext *c = srv_connect(s);
    redisReply *r = cmd(c, "CLUSTER KEYSLOT b");
    long long sb = r->integer;
    freeReplyObject(r);
    expect_status(c, "OK", "CLUSTER SETSLOT %lld NODE %s", sb, oid);
    expect_status(c, "OK", "SET a 1");
    expect_error_prefix(c, "ERR Script attempted to access a non local key in a cluster node script: ",
                        "EVAL %s 0", "return redis.call('get','b')");
    expect_error(c, "ERR Script attempted to access a non local key in a cluster node",
                 "EVAL %s 0", "return redis.pcall('get','b')");
    expect_error_prefix(c, "ERR Script attempted to access a non local key in a cluster node",
                        "EVAL %s 0", "return redis.call('set','b','x')");
    expect_bulk(c, "1", "EVAL %s 0", "return redis.call('get','a')");
    expect_nil(c, "EVAL %s 0", "redis.call('get','a'); return redis.call('get','c')");
    expect_int(c, 1, "EVAL %s 0", "return redis.call('exists','a')");
    expect_status(c, "PONG", "EVAL %s 0", "return redis.call('ping')");
    expect_int(c, 1, "DBSIZE"); /* the refused SET wrote nothing */
    redisFree(c);
}
END_TEST

START_TEST(asking_readonly_readwrite) {
    srv *s = h_srv_start("--cluster-enabled yes"), *plain = h_srv_start(NULL);
    redisContext *c = srv_connect(s), *p = srv_connect(plain);
    expect_status(c, "OK", "ASKING");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "GET foo"); /* no slot importing */
    expect_status(c, "OK", "READONLY");
    expect_error(c, "CLUSTERDOWN Hash slot not served", "GET foo");
    expect_status(c, "OK", "READWRITE");
    expect_error(c, "ERR wrong number of arguments for 'asking' command", "ASKING x");
    const char *err = "ERR This instance has cluster support disabled";
    expect_error(p, err, "ASKING");
    expect_error(p, err, "READONLY");
    expect_error(p, err, "READWRITE");
    expect_status(p, "OK", "SELECT 1");
    redisFree(c);
    redisFree(p);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_route");
    h_add_dropall(s, "unassigned_slots_refused", unassigned_slots_refused, 30);
    h_add_dropall(s, "select_refused", select_refused, 30);
    h_add_dropall(s, "other_databases_refused", other_databases_refused, 30);
    h_add_dropall(s, "blocked_clients_redirected", blocked_clients_redirected, 60);
    h_add_dropall(s, "script_keys_routed", script_keys_routed, 60);
    h_add_dropall(s, "asking_readonly_readwrite", asking_readonly_readwrite, 30);
    return h_main(s);
}
