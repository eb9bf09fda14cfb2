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
    h_add_dropall(s, "asking_readonly_readwrite", asking_readonly_readwrite, 30);
    return h_main(s);
}
