/* test_cluster_route: what one node started with cluster-enabled yes and no
 * slots assigned answers (cluster/route.c): keys of unassigned slots are
 * refused with -CLUSTERDOWN Hash slot not served (plain and in MULTI, where
 * EXEC then aborts), keyless commands run, SELECT of another db is refused,
 * ASKING / READONLY / READWRITE answer OK; and outside cluster mode those
 * three are refused. */
#include <check.h>
#include <stdlib.h>

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
    h_add_dropall(s, "asking_readonly_readwrite", asking_readonly_readwrite, 30);
    return h_main(s);
}
