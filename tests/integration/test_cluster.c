/* test_cluster: one node in cluster mode (cluster/cmd_cluster.c,
 * cluster/nodes_conf.c), checked against redis-server 7.0 too
 * (VERSO_SERVER=/usr/bin/redis-server passes the same test):
 *   - every CLUSTER subcommand's replies and argument errors on a fresh
 *     node, and outside cluster mode;
 *   - a nodes.conf written before the start that names a second node
 *     (never reached) owning half the slots, a replica of it and two open
 *     migrations: MOVED / ASK / CROSSSLOT / CLUSTERDOWN, the endpoint
 *     types, SLOTS / SHARDS / REPLICAS, SETSLOT's checks, FORGET;
 *   - nodes.conf across restarts (id, slots, epochs, migrations; a save
 *     after a change without SAVECONFIG; kill -9 right after SAVECONFIG),
 *     a corrupt or locked file refused with Redis's messages, files
 *     written by redis-server loaded by verso and the reverse;
 *   - a slow disk (fsync delayed) does not hold the loop up (verso only:
 *     Redis fsyncs on its loop). */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define ID_C "cccccccccccccccccccccccccccccccccccccccc"
#define ID_Z "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"

/* Keys of known slots (CLUSTER KEYSLOT checks them below). */
#define KEY_SLOT0 "k596"
#define KEY_SLOT5 "k12912"
#define KEY_SLOT100 "k2136"
#define KEY_SLOT9000 "k52280"

/* ---- helpers ---- */

static char tmp_dir[256];

/* A scratch directory for config files named by absolute path. */
static const char *scratch(void) {
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/verso-test-cluster.XXXXXX");
        if (!mkdtemp(tmp_dir)) abort();
    }
    return tmp_dir;
}

static void scratch_file(char *out, size_t cap, const char *name) {
    snprintf(out, cap, "%s/%s", scratch(), name);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
}

static char *reply_text(redisContext *c, const char *fmt, const char *arg) {
    redisReply *r = arg ? cmd(c, fmt, arg) : cmd(c, fmt);
    ck_assert_msg(r->type == REDIS_REPLY_STRING ||
                      r->type == REDIS_REPLY_STATUS,
                  "reply type %d", r->type);
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

static char *myid(redisContext *c) {
    char *id = reply_text(c, "CLUSTER MYID", NULL);
    ck_assert_uint_eq(strlen(id), 40);
    return id;
}

/* The value of a CLUSTER INFO field. */
static long long cinfo_int(redisContext *c, const char *field) {
    char *info = reply_text(c, "CLUSTER INFO", NULL), buf[64];
    int found = h_info_field(info, field, buf, sizeof buf);
    ck_assert_msg(found, "CLUSTER INFO has no %s:\n%s", field, info);
    free(info);
    return atoll(buf);
}

static void wait_state(redisContext *c, const char *want, int timeout_ms) {
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    char line[64];
    snprintf(line, sizeof line, "cluster_state:%s\r\n", want);
    for (;;) {
        char *info = reply_text(c, "CLUSTER INFO", NULL);
        int ok = strstr(info, line) != NULL;
        if (ok || h_now_ms() > end) {
            ck_assert_msg(ok, "cluster_state never became %s:\n%s", want, info);
            free(info);
            return;
        }
        free(info);
        h_sleep_ms(50);
    }
}

/* The CLUSTER NODES line of the node whose id is id (malloc'd, no
 * newline), NULL when none. */
static char *nodes_line(redisContext *c, const char *id) {
    char *all = reply_text(c, "CLUSTER NODES", NULL);
    char *p = strstr(all, id), *line = NULL;
    while (p && p != all && p[-1] != '\n') p = strstr(p + 1, id);
    if (p) {
        char *nl = strchr(p, '\n');
        ck_assert_ptr_nonnull(nl);
        line = strndup(p, (size_t)(nl - p));
    }
    free(all);
    return line;
}

static void expect_line(redisContext *c, const char *id, const char *want) {
    char *line = nodes_line(c, id);
    ck_assert_msg(line && !strcmp(line, want), "CLUSTER NODES line\n  got  %s\n  want %s",
                  line ? line : "(none)", want);
    free(line);
}

/* The file's text contains needle within timeout_ms. */
static void wait_file_has(const char *path, const char *needle, int timeout_ms) {
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    for (;;) {
        size_t len;
        char *text = h_slurp(path, &len, 0);
        int ok = text && strstr(text, needle);
        if (ok || h_now_ms() > end) {
            ck_assert_msg(ok, "%s never held '%s':\n%s", path, needle, text ? text : "(none)");
            free(text);
            return;
        }
        free(text);
        h_sleep_ms(20);
    }
}

/* ---- a fresh node: every subcommand ---- */

static void check_errors(redisContext *c) {
    const char *range = "ERR Invalid or out of range slot";
    expect_error(c, "ERR wrong number of arguments for 'cluster' command", "CLUSTER");
    expect_error(c, "ERR unknown subcommand 'foo'. Try CLUSTER HELP.", "CLUSTER foo");
    expect_error(c, "ERR wrong number of arguments for 'cluster|nodes' command", "CLUSTER NODES x");
    expect_error(c, "ERR wrong number of arguments for 'cluster|addslots' command", "CLUSTER ADDSLOTS");
    expect_error(c, range, "CLUSTER ADDSLOTS x");
    expect_error(c, range, "CLUSTER ADDSLOTS 1 x");
    expect_error(c, range, "CLUSTER ADDSLOTS -1");
    expect_error(c, range, "CLUSTER ADDSLOTS 16384");
    expect_error(c, "ERR Slot 5000 specified multiple times", "CLUSTER ADDSLOTS 5000 5000");
    expect_error(c, "ERR Slot 6000 is already unassigned", "CLUSTER DELSLOTS 6000");
    expect_error(c, "ERR wrong number of arguments for 'cluster|addslotsrange' command",
                 "CLUSTER ADDSLOTSRANGE 1");
    expect_error(c, "ERR wrong number of arguments for 'cluster|addslotsrange' command",
                 "CLUSTER ADDSLOTSRANGE 1 2 3");
    expect_error(c, "ERR start slot number 10 is greater than end slot number 5",
                 "CLUSTER ADDSLOTSRANGE 10 5");
    expect_error(c, "ERR Slot 7005 specified multiple times",
                 "CLUSTER ADDSLOTSRANGE 7000 7010 7005 7020");
    expect_error(c, range, "CLUSTER ADDSLOTSRANGE x 5");
    expect_error(c, "ERR Slot 8000 is already unassigned", "CLUSTER DELSLOTSRANGE 8000 8001");
    expect_error(c, "ERR wrong number of arguments for 'cluster|setslot' command", "CLUSTER SETSLOT 1");
    expect_error(c, range, "CLUSTER SETSLOT x STABLE");
    expect_error(c, range, "CLUSTER SETSLOT 20000 STABLE");
    const char *setslot = "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP";
    expect_error(c, setslot, "CLUSTER SETSLOT 1 foo");
    expect_error(c, setslot, "CLUSTER SETSLOT 1 STABLE extra");
    expect_error(c, setslot, "CLUSTER SETSLOT 1 MIGRATING");
    expect_error(c, setslot, "CLUSTER SETSLOT 9000 foo abc");
    expect_error(c, "ERR I'm not the owner of hash slot 9000", "CLUSTER SETSLOT 9000 MIGRATING abc");
    expect_error(c, "ERR I don't know about node abc", "CLUSTER SETSLOT 9000 IMPORTING abc");
    expect_error(c, "ERR Unknown node abc", "CLUSTER SETSLOT 9000 NODE abc");
    expect_error(c, "ERR wrong number of arguments for 'cluster|meet' command", "CLUSTER MEET 1.2.3.4");
    expect_error(c, "ERR Invalid TCP base port specified: x", "CLUSTER MEET 1.2.3.4 x");
    expect_error(c, "ERR Invalid TCP bus port specified: x", "CLUSTER MEET 1.2.3.4 1 x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'MEET'. Try CLUSTER HELP.",
                 "CLUSTER MEET 1.2.3.4 1 2 3");
    expect_error(c, "ERR Invalid node address specified: 1.2.3.4:0", "CLUSTER MEET 1.2.3.4 0");
    expect_error(c, "ERR Invalid node address specified: 1.2.3.4:70000", "CLUSTER MEET 1.2.3.4 70000");
    expect_error(c, "ERR Invalid node address specified: nothost:7000", "CLUSTER MEET nothost 7000");
    expect_error(c, "ERR Unknown node abc", "CLUSTER FORGET abc");
    expect_error(c, "ERR Unknown node abc", "CLUSTER REPLICATE abc");
    expect_error(c, "ERR Unknown node abc", "CLUSTER COUNT-FAILURE-REPORTS abc");
    expect_error(c, "ERR Unknown node abc", "CLUSTER REPLICAS abc");
    expect_error(c, "ERR Unknown node abc", "CLUSTER SLAVES abc");
    expect_error(c, "ERR syntax error", "CLUSTER FAILOVER x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'FAILOVER'. Try CLUSTER HELP.",
                 "CLUSTER FAILOVER FORCE x");
    expect_error(c, "ERR syntax error", "CLUSTER RESET x");
    expect_error(c, "ERR unknown subcommand or wrong number of arguments for 'RESET'. Try CLUSTER HELP.",
                 "CLUSTER RESET HARD x");
    expect_error(c, "ERR value is not an integer or out of range", "CLUSTER SET-CONFIG-EPOCH x");
    expect_error(c, "ERR Invalid config epoch specified: -1", "CLUSTER SET-CONFIG-EPOCH -1");
    expect_error(c, "ERR value is not an integer or out of range", "CLUSTER COUNTKEYSINSLOT x");
    expect_error(c, "ERR Invalid slot", "CLUSTER COUNTKEYSINSLOT -1");
    expect_error(c, "ERR Invalid slot", "CLUSTER COUNTKEYSINSLOT 16384");
    expect_error(c, "ERR value is not an integer or out of range", "CLUSTER GETKEYSINSLOT x 1");
    expect_error(c, "ERR value is not an integer or out of range", "CLUSTER GETKEYSINSLOT 1 x");
    const char *getkeys = "ERR Invalid slot or number of keys";
    expect_error(c, getkeys, "CLUSTER GETKEYSINSLOT 1 -1");
    expect_error(c, getkeys, "CLUSTER GETKEYSINSLOT 16384 1");
    expect_error(c, "ERR wrong number of arguments for 'cluster|keyslot' command", "CLUSTER KEYSLOT");
    expect_error(c, "ERR wrong number of arguments for 'cluster|links' command", "CLUSTER LINKS x");
    char *id = myid(c);
    expect_error(c, "ERR I tried hard but I can't forget myself...", "CLUSTER FORGET %s", id);
    free(id);
}

static void check_queries(redisContext *c, const char *id, int port) {
    redisReply *r = expect_array(c, 56, "CLUSTER HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[55]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_int(c, 12182, "CLUSTER KEYSLOT foo");
    expect_int(c, 3443, "CLUSTER KEYSLOT {user1000}.following");
    expect_int(c, 0, "CLUSTER KEYSLOT %s", "");
    expect_int(c, 0, "CLUSTER KEYSLOT " KEY_SLOT0);
    expect_int(c, 5, "CLUSTER KEYSLOT " KEY_SLOT5);
    expect_int(c, 100, "CLUSTER KEYSLOT " KEY_SLOT100);
    expect_int(c, 9000, "CLUSTER KEYSLOT " KEY_SLOT9000);
    char want[256];
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 0 connected\n", id, port,
             port + 10000);
    expect_bulk(c, want, "CLUSTER NODES");
    expect_int(c, 0, "CLUSTER COUNT-FAILURE-REPORTS %s", id);
    r = expect_array(c, 0, "CLUSTER REPLICAS %s", id);
    freeReplyObject(r);
    r = expect_array(c, 0, "CLUSTER SLOTS");
    freeReplyObject(r);
    /* COMMAND's view: a container of the 27 subcommands, no keys (verso:
     * 4 more, Valkey 9.0's slot migration: doc/compat.md) */
    r = expect_array(c, 1, "COMMAND INFO cluster");
    ck_assert_uint_eq(r->element[0]->elements, 10);
    ck_assert_int_eq(r->element[0]->element[1]->integer, -2);
    ck_assert_uint_eq(r->element[0]->element[9]->elements, srv_is_reference() ? 27 : 31);
    freeReplyObject(r);
    expect_error(c, "ERR The command has no key arguments", "COMMAND GETKEYS cluster keyslot foo");
}

static void check_slots_changes(redisContext *c, const char *id, int port) {
    char want[512];
    expect_status(c, "OK", "CLUSTER ADDSLOTS 1 2 3 100");
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 200 300");
    expect_error(c, "ERR Slot 1 is already busy", "CLUSTER ADDSLOTS 1");
    expect_error(c, "ERR Slot 250 is already busy", "CLUSTER ADDSLOTSRANGE 250 260");
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 0 connected 1-3 100 200-300", id,
             port, port + 10000);
    expect_line(c, id, want);
    expect_status(c, "OK", "CLUSTER DELSLOTS 2");
    expect_status(c, "OK", "CLUSTER DELSLOTSRANGE 250 300");
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 0 connected 1 3 100 200-249", id,
             port, port + 10000);
    expect_line(c, id, want);
    expect_bulk(c,
                "cluster_state:fail\r\ncluster_slots_assigned:53\r\ncluster_slots_ok:53\r\n"
                "cluster_slots_pfail:0\r\ncluster_slots_fail:0\r\ncluster_known_nodes:1\r\n"
                "cluster_size:1\r\ncluster_current_epoch:0\r\ncluster_my_epoch:0\r\n"
                "cluster_stats_messages_sent:0\r\ncluster_stats_messages_received:0\r\n"
                "total_cluster_links_buffer_limit_exceeded:0\r\n",
                "CLUSTER INFO");
    /* SLOTS: 4 ranges, myself with an unknown ip and no metadata */
    redisReply *r = expect_array(c, 4, "CLUSTER SLOTS");
    redisReply *first = r->element[0];
    ck_assert_uint_eq(first->elements, 3);
    check_int(first->element[0], 1);
    check_int(first->element[1], 1);
    ck_assert_uint_eq(first->element[2]->elements, 4);
    check_bulk(first->element[2]->element[0], "");
    check_int(first->element[2]->element[1], port);
    check_bulk(first->element[2]->element[2], id);
    ck_assert_uint_eq(first->element[2]->element[3]->elements, 0);
    check_int(r->element[3]->element[0], 200);
    check_int(r->element[3]->element[1], 249);
    freeReplyObject(r);
    /* SHARDS: one shard, its slot ranges as integer pairs */
    r = expect_array(c, 1, "CLUSTER SHARDS");
    const redisReply *slots = h_map_field(r->element[0], "slots");
    ck_assert_ptr_nonnull(slots);
    ck_assert_uint_eq(slots->elements, 8);
    check_int(slots->element[0], 1);
    check_int(slots->element[1], 1);
    check_int(slots->element[6], 200);
    check_int(slots->element[7], 249);
    const redisReply *nodes = h_map_field(r->element[0], "nodes");
    ck_assert_uint_eq(nodes->elements, 1);
    check_bulk(h_map_field(nodes->element[0], "id"), id);
    check_int(h_map_field(nodes->element[0], "port"), port);
    check_bulk(h_map_field(nodes->element[0], "ip"), "");
    check_bulk(h_map_field(nodes->element[0], "endpoint"), "");
    check_bulk(h_map_field(nodes->element[0], "role"), "master");
    check_bulk(h_map_field(nodes->element[0], "health"), "online");
    ck_assert_ptr_null(h_map_field(nodes->element[0], "hostname"));
    freeReplyObject(r);
    /* epochs */
    expect_status(c, "BUMPED 1", "CLUSTER BUMPEPOCH");
    expect_status(c, "STILL 1", "CLUSTER BUMPEPOCH");
    expect_error(c, "ERR Node config epoch is already non-zero", "CLUSTER SET-CONFIG-EPOCH 5");
    expect_status(c, "OK", "CLUSTER FLUSHSLOTS");
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 1 connected", id, port,
             port + 10000);
    expect_line(c, id, want);
    expect_status(c, "OK", "CLUSTER RESET HARD");
    char *newid = myid(c);
    ck_assert_str_ne(newid, id);
    ck_assert_int_eq(cinfo_int(c, "cluster_my_epoch"), 0);
    expect_status(c, "OK", "CLUSTER SET-CONFIG-EPOCH 5");
    ck_assert_int_eq(cinfo_int(c, "cluster_my_epoch"), 5);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 5);
    expect_status(c, "STILL 5", "CLUSTER BUMPEPOCH");
    expect_status(c, "OK", "CLUSTER RESET SOFT");
    expect_bulk(c, newid, "CLUSTER MYID");
    ck_assert_int_eq(cinfo_int(c, "cluster_my_epoch"), 5);
    free(newid);
}

/* Keys: all slots served, the state turns ok (after Redis's delays). */
static void check_keys(redisContext *c) {
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    wait_state(c, "ok", 5000);
    ck_assert_int_eq(cinfo_int(c, "cluster_size"), 1);
    expect_status(c, "OK", "SET foo 1");
    expect_status(c, "OK", "SET {foo}2 2");
    expect_status(c, "OK", "SET " KEY_SLOT0 " 3");
    expect_error(c, "CROSSSLOT Keys in request don't hash to the same slot", "MSET a 1 b 2");
    expect_int(c, 2, "CLUSTER COUNTKEYSINSLOT 12182");
    expect_int(c, 0, "CLUSTER COUNTKEYSINSLOT 12183");
    redisReply *r = expect_array(c, 2, "CLUSTER GETKEYSINSLOT 12182 10");
    int foo = !strcmp(r->element[0]->str, "foo") || !strcmp(r->element[1]->str, "foo");
    int foo2 = !strcmp(r->element[0]->str, "{foo}2") || !strcmp(r->element[1]->str, "{foo}2");
    ck_assert(foo && foo2);
    freeReplyObject(r);
    r = expect_array(c, 1, "CLUSTER GETKEYSINSLOT 12182 1");
    freeReplyObject(r);
    r = expect_array(c, 0, "CLUSTER GETKEYSINSLOT 12182 0");
    freeReplyObject(r);
    r = expect_array(c, 1, "CLUSTER GETKEYSINSLOT 0 5");
    check_bulk(r->element[0], KEY_SLOT0);
    freeReplyObject(r);
    expect_error(c, "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.", "CLUSTER FLUSHSLOTS");
    expect_error(c, "ERR CLUSTER RESET can't be called with master nodes containing keys",
                 "CLUSTER RESET");
    char *id = myid(c);
    expect_status(c, "OK", "CLUSTER SETSLOT 12182 NODE %s", id);
    free(id);
    expect_int(c, 2, "DEL foo {foo}2");
    expect_int(c, 1, "DEL " KEY_SLOT0);
    expect_status(c, "OK", "CLUSTER RESET");
    r = expect_array(c, 0, "CLUSTER SLOTS");
    freeReplyObject(r);
    wait_state(c, "fail", 2000);
    expect_error(c, "CLUSTERDOWN Hash slot not served", "GET foo");
}

START_TEST(fresh_node) {
    h_srv_spec specs[2] = {{0, "--cluster-enabled yes --cluster-node-timeout 500"}, {0, NULL}};
    srv *s[2];
    h_srv_start_all(2, specs, s);
    redisContext *c = srv_connect(s[0]), *plain = srv_connect(s[1]);
    char *id = myid(c);
    check_errors(c);
    check_queries(c, id, s[0]->port);
    check_slots_changes(c, id, s[0]->port);
    check_keys(c);
    free(id);
    /* outside cluster mode: refused, arity first */
    const char *off = "ERR This instance has cluster support disabled";
    expect_error(plain, off, "CLUSTER HELP");
    expect_error(plain, off, "CLUSTER KEYSLOT foo");
    expect_error(plain, off, "CLUSTER INFO");
    expect_error(plain, off, "CLUSTER MYID");
    expect_error(plain, "ERR wrong number of arguments for 'cluster' command", "CLUSTER");
    expect_error(plain, "ERR unknown subcommand 'foo'. Try CLUSTER HELP.", "CLUSTER foo");
    expect_error(plain, "ERR wrong number of arguments for 'cluster|nodes' command",
                 "CLUSTER NODES x");
    char *info = h_info(plain, "cluster");
    ck_assert_str_eq(info, "# Cluster\r\ncluster_enabled:0\r\n");
    free(info);
    info = h_info(c, "cluster");
    ck_assert_str_eq(info, "# Cluster\r\ncluster_enabled:1\r\n");
    free(info);
    ck_assert_int_eq(h_info_int(c, "clients", "cluster_connections"), 0);
    redisFree(c);
    redisFree(plain);
}
END_TEST

/* ---- a second node in nodes.conf ---- */

/* myself A serves 0-8191 and is moving slot 5 to B, importing 9000 from
 * B; B (never reached) serves 8192-16383, with hostname fakehost; C is
 * B's replica. */
static const char two_nodes_conf[] =
    ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 2 connected 0-8191 [5->-" ID_B
    "] [9000-<-" ID_B "]\n" ID_B " 127.0.0.1:1@2,fakehost master - 0 0 1 connected 8192-16383\n" ID_C
    " 127.0.0.2:3@4 slave " ID_B " 0 0 1 connected\n"
    "vars currentEpoch 3 lastVoteEpoch 1\n";

static void check_redirects(redisContext *c) {
    expect_error(c, "MOVED 12182 127.0.0.1:1", "GET foo");
    expect_error(c, "CROSSSLOT Keys in request don't hash to the same slot", "MSET a 1 b 2");
    expect_error(c, "MOVED 15495 127.0.0.1:1", "MSET {a}1 1 {a}2 2");
    expect_nil(c, "GET " KEY_SLOT100);
    /* migrating slot 5: a missing key is asked of B */
    expect_error(c, "ASK 5 127.0.0.1:1", "GET " KEY_SLOT5);
    expect_error(c, "ASK 5 127.0.0.1:1", "SET " KEY_SLOT5 " v");
    expect_int(c, 0, "CLUSTER COUNTKEYSINSLOT 5");
    expect_status(c, "OK", "SET " KEY_SLOT100 " v");
    expect_int(c, 1, "CLUSTER COUNTKEYSINSLOT 100");
    expect_error(c, "ERR Can't assign hashslot 100 to a different node while I still hold keys for this hash slot.",
                 "CLUSTER SETSLOT 100 NODE " ID_B);
    expect_int(c, 1, "DEL " KEY_SLOT100);
    /* importing 9000: served after ASKING only */
    expect_error(c, "MOVED 9000 127.0.0.1:1", "GET " KEY_SLOT9000);
    expect_status(c, "OK", "ASKING");
    expect_nil(c, "GET " KEY_SLOT9000);
    /* the endpoint types */
    expect_status(c, "OK", "CONFIG SET cluster-preferred-endpoint-type hostname");
    expect_error(c, "MOVED 12182 fakehost:1", "GET foo");
    redisReply *r = expect_array(c, 2, "CLUSTER SLOTS");
    for (size_t i = 0; i < 2; i++) {
        const redisReply *range = r->element[i], *node = range->element[2];
        ck_assert_uint_eq(range->elements, 3); /* C has no data: not listed */
        if (range->element[0]->integer == 0) {
            check_bulk(node->element[0], "?");
            ck_assert_uint_eq(node->element[3]->elements, 2);
            check_bulk(node->element[3]->element[0], "ip");
            check_bulk(node->element[3]->element[1], "127.0.0.1");
        } else {
            check_int(range->element[0], 8192);
            check_int(range->element[1], 16383);
            check_bulk(node->element[0], "fakehost");
            check_int(node->element[1], 1);
            check_bulk(node->element[2], ID_B);
            ck_assert_uint_eq(node->element[3]->elements, 2);
            check_bulk(node->element[3]->element[0], "ip");
        }
    }
    freeReplyObject(r);
    expect_status(c, "OK", "CONFIG SET cluster-preferred-endpoint-type unknown-endpoint");
    expect_error(c, "MOVED 12182 :1", "GET foo");
    expect_status(c, "OK", "CONFIG SET cluster-preferred-endpoint-type ip");
    r = expect_array(c, 2, "CLUSTER SLOTS");
    for (size_t i = 0; i < 2; i++) {
        const redisReply *node = r->element[i]->element[2];
        check_bulk(node->element[0], "127.0.0.1");
        if (r->element[i]->element[0]->integer == 8192) {
            ck_assert_uint_eq(node->element[3]->elements, 2);
            check_bulk(node->element[3]->element[0], "hostname");
            check_bulk(node->element[3]->element[1], "fakehost");
        } else {
            ck_assert_uint_eq(node->element[3]->elements, 0);
        }
    }
    freeReplyObject(r);
}

static void check_shards(redisContext *c) {
    redisReply *r = expect_array(c, 2, "CLUSTER SHARDS");
    for (size_t i = 0; i < 2; i++) {
        const redisReply *slots = h_map_field(r->element[i], "slots");
        const redisReply *nodes = h_map_field(r->element[i], "nodes");
        ck_assert_int_eq(slots->element[0]->type, REDIS_REPLY_INTEGER);
        if (slots->element[0]->integer == 0) {
            ck_assert_uint_eq(nodes->elements, 1);
            check_bulk(h_map_field(nodes->element[0], "id"), ID_A);
            continue;
        }
        check_int(slots->element[0], 8192);
        check_int(slots->element[1], 16383);
        ck_assert_uint_eq(nodes->elements, 2);
        const redisReply *b = nodes->element[0], *rep = nodes->element[1];
        ck_assert_uint_eq(b->elements, 2 * 8);
        check_bulk(h_map_field(b, "id"), ID_B);
        check_int(h_map_field(b, "port"), 1);
        check_bulk(h_map_field(b, "endpoint"), "127.0.0.1");
        check_bulk(h_map_field(b, "hostname"), "fakehost");
        check_bulk(h_map_field(b, "role"), "master");
        check_bulk(h_map_field(b, "health"), "online");
        check_bulk(h_map_field(rep, "id"), ID_C);
        check_bulk(h_map_field(rep, "ip"), "127.0.0.2");
        check_bulk(h_map_field(rep, "role"), "replica");
        check_int(h_map_field(rep, "replication-offset"), 0);
        check_bulk(h_map_field(rep, "health"), "loading");
    }
    freeReplyObject(r);
    r = expect_array(c, 1, "CLUSTER REPLICAS " ID_B);
    ck_assert(!strncmp(r->element[0]->str, ID_C " 127.0.0.2:3@4 slave " ID_B " ", 40 + 21 + 41));
    freeReplyObject(r);
    expect_error(c, "ERR The specified node is not a master", "CLUSTER REPLICAS " ID_C);
    r = expect_array(c, 0, "CLUSTER SLAVES " ID_A);
    freeReplyObject(r);
}

static void check_setslot(redisContext *c, int port) {
    expect_error(c, "ERR I'm not the owner of hash slot 9001", "CLUSTER SETSLOT 9001 MIGRATING " ID_B);
    expect_error(c, "ERR I'm already the owner of hash slot 100", "CLUSTER SETSLOT 100 IMPORTING " ID_B);
    expect_error(c, "ERR Target node is not a master", "CLUSTER SETSLOT 100 MIGRATING " ID_C);
    expect_error(c, "ERR Target node is not a master", "CLUSTER SETSLOT 9001 IMPORTING " ID_C);
    expect_error(c, "ERR Target node is not a master", "CLUSTER SETSLOT 9001 NODE " ID_C);
    expect_error(c, "ERR I don't know about node " ID_Z, "CLUSTER SETSLOT 100 MIGRATING " ID_Z);
    expect_error(c, "ERR Unknown node " ID_Z, "CLUSTER SETSLOT 100 NODE " ID_Z);
    expect_error(c, "ERR The user can assign a config epoch only when the node does not know any other node.",
                 "CLUSTER SET-CONFIG-EPOCH 10");
    expect_status(c, "OK", "CLUSTER SETSLOT 5 STABLE");
    expect_status(c, "OK", "CLUSTER SETSLOT 100 MIGRATING " ID_B);
    char want[512];
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 2 connected 0-8191 [100->-" ID_B
                  "] [9000-<-" ID_B "]",
             port, port + 10000);
    expect_line(c, ID_A, want);
    /* the slot it imported becomes its own, with a new epoch */
    expect_status(c, "OK", "CLUSTER SETSLOT 9000 NODE " ID_A);
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 4 connected 0-8191 9000 [100->-" ID_B "]",
             port, port + 10000);
    expect_line(c, ID_A, want);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 4);
    expect_status(c, "STILL 4", "CLUSTER BUMPEPOCH");
    /* SETSLOT NODE with no keys ends the migration */
    expect_status(c, "OK", "CLUSTER SETSLOT 100 NODE " ID_B);
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 4 connected 0-99 101-8191 9000", port,
             port + 10000);
    expect_line(c, ID_A, want);
}

START_TEST(second_node) {
    char conf[512];
    scratch_file(conf, sizeof conf, "two-nodes.conf");
    write_text(conf, two_nodes_conf);
    srv *s = h_srv_start("--cluster-enabled yes --cluster-config-file %s", conf);
    redisContext *c = srv_connect(s);
    wait_state(c, "ok", 5000);
    ck_assert_int_eq(cinfo_int(c, "cluster_known_nodes"), 3);
    ck_assert_int_eq(cinfo_int(c, "cluster_size"), 2);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 3);
    ck_assert_int_eq(cinfo_int(c, "cluster_my_epoch"), 2);
    ck_assert_int_eq(cinfo_int(c, "cluster_slots_assigned"), 16384);
    char want[512];
    /* myself keeps its ip from the file, its ports are the config's */
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 2 connected 0-8191 [5->-" ID_B
                  "] [9000-<-" ID_B "]",
             s->port, s->port + 10000);
    expect_line(c, ID_A, want);
    char *b = nodes_line(c, ID_B);
    ck_assert_ptr_nonnull(b);
    ck_assert(!strncmp(b, ID_B " 127.0.0.1:1@2,fakehost master - ", 40 + 31));
    ck_assert_ptr_nonnull(strstr(b, " 0 1 disconnected 8192-16383"));
    free(b);
    check_redirects(c);
    check_shards(c);
    check_setslot(c, s->port);
    /* a slot with no owner: the cluster is down, or the slot alone when
     * full coverage is not required */
    expect_status(c, "OK", "CLUSTER DELSLOTS 0");
    wait_state(c, "fail", 2000);
    expect_error(c, "CLUSTERDOWN The cluster is down", "GET " KEY_SLOT100);
    expect_status(c, "OK", "CONFIG SET cluster-require-full-coverage no");
    wait_state(c, "ok", 5000);
    expect_error(c, "CLUSTERDOWN Hash slot not served", "GET " KEY_SLOT0);
    expect_nil(c, "GET " KEY_SLOT5);
    /* FORGET */
    expect_status(c, "OK", "CLUSTER FORGET " ID_C);
    b = nodes_line(c, ID_C);
    ck_assert_ptr_null(b);
    ck_assert_int_eq(cinfo_int(c, "cluster_known_nodes"), 2);
    expect_error(c, "ERR I tried hard but I can't forget myself...", "CLUSTER FORGET " ID_A);
    redisFree(c);
}
END_TEST

/* ---- nodes.conf across restarts ---- */

START_TEST(restart_keeps_state) {
    char conf[512];
    scratch_file(conf, sizeof conf, "restart.conf");
    write_text(conf, two_nodes_conf);
    const char *args = "--cluster-enabled yes --cluster-config-file %s";
    srv *s = h_srv_start(args, conf);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLUSTER SETSLOT 10 MIGRATING " ID_B);
    expect_status(c, "OK", "CLUSTER SETSLOT 9001 IMPORTING " ID_B);
    expect_status(c, "BUMPED 4", "CLUSTER BUMPEPOCH");
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(s); /* right after the reply */
    redisFree(c);
    srv *s2 = h_srv_start(args, conf);
    c = srv_connect(s2);
    char want[512];
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 4 connected 0-8191 [5->-" ID_B "] [10->-" ID_B
                  "] [9000-<-" ID_B "] [9001-<-" ID_B "]",
             s2->port, s2->port + 10000);
    expect_line(c, ID_A, want);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 4);
    ck_assert_int_eq(cinfo_int(c, "cluster_known_nodes"), 3);
    char *line = nodes_line(c, ID_C);
    ck_assert(!strncmp(line, ID_C " 127.0.0.2:3@4 slave " ID_B " ", 40 + 21 + 41));
    free(line);
    size_t len;
    char *text = h_slurp(conf, &len, 1);
    ck_assert_ptr_nonnull(strstr(text, "\nvars currentEpoch 4 lastVoteEpoch 1\n"));
    free(text);
    /* a change is saved without SAVECONFIG (before the loop sleeps) */
    expect_status(c, "OK", "CLUSTER DELSLOTS 8191");
    wait_file_has(conf, "connected 0-8190 ", 3000);
    srv_kill9(s2);
    redisFree(c);
    srv *s3 = h_srv_start(args, conf);
    c = srv_connect(s3);
    line = nodes_line(c, ID_A);
    ck_assert_ptr_nonnull(strstr(line, " connected 0-8190 [5->-"));
    free(line);
    redisFree(c);

    /* a fresh node: its id and slots survive a restart in the data dir */
    srv *f = h_srv_start("--cluster-enabled yes");
    c = srv_connect(f);
    char *id = myid(c);
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 99");
    expect_status(c, "OK", "CLUSTER SET-CONFIG-EPOCH 7");
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(f);
    redisFree(c);
    srv *f2 = h_srv_start_on(f, "--cluster-enabled yes");
    c = srv_connect(f2);
    expect_bulk(c, id, "CLUSTER MYID");
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 7 connected 0-99", id, f2->port,
             f2->port + 10000);
    expect_line(c, id, want);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 7);
    free(id);
    redisFree(c);
}
END_TEST

/* A cluster node's AOF is replayed at startup, before the cluster's state
 * is ok: its writes are not redirected (they were, and the node could not
 * start: "CLUSTERDOWN" loading the AOF). */
static void wait_state_ok(redisContext *c) {
    long long until = h_now_ms() + h_scaled_ms(5000);
    for (;;) {
        redisReply *r = cmd(c, "CLUSTER INFO");
        int ok = r->type == REDIS_REPLY_STRING && strstr(r->str, "cluster_state:ok");
        freeReplyObject(r);
        if (ok) return;
        ck_assert_msg(h_now_ms() < until, "the cluster's state is not ok");
        h_sleep_ms(20);
    }
}

START_TEST(aof_replays) {
    const char *args = "--cluster-enabled yes --appendonly yes --appendfsync always";
    srv *s = h_srv_start("%s", args);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 16383");
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    wait_state_ok(c);
    expect_status(c, "OK", "SET foo bar");
    expect_int(c, 2, "RPUSH list a b");
    srv_kill9(s);
    redisFree(c);
    srv *s2 = h_srv_start_on(s, "%s", args);
    c = srv_connect(s2);
    wait_state_ok(c);
    expect_bulk(c, "bar", "GET foo");
    expect_int(c, 2, "LLEN list");
    redisFree(c);
}
END_TEST

/* ---- refused files ---- */

static void expect_refused(const char *text, const char *msg) {
    char conf[512], args[700];
    scratch_file(conf, sizeof conf, "bad.conf");
    write_text(conf, text);
    snprintf(args, sizeof args, "--cluster-enabled yes --cluster-config-file %s", conf);
    char *out = NULL;
    int st = srv_run_bad("", args, &out, h_scaled_ms(10000));
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d for:\n%s\n%s", st, text, out);
    ck_assert_msg(strstr(out, msg), "no '%s' for:\n%s\n%s", msg, text, out);
    free(out);
}

START_TEST(corrupt_files) {
    const char *msg = "Unrecoverable error: corrupted cluster config file";
    expect_refused("garbage\n", msg);
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0\n", msg); /* truncated */
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 16384\n", msg);
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 5-16384\n", msg);
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [16384->-" ID_B "]\n", msg);
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [5->-abc]\n", msg);
    expect_refused("ABCDEF 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n", msg); /* bad id */
    expect_refused(ID_A " 127.0.0.1@17000 myself,master - 0 0 0 connected\n", msg); /* no port */
    expect_refused(ID_A " 127.0.0.1:7000@17000 master - 0 0 0 connected\n", msg); /* no myself */
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master bad 0 0 0 connected\n", msg);
    expect_refused(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\nvars currentEpoch\n", msg);
}
END_TEST

START_TEST(empty_file_and_lock) {
    char conf[512];
    scratch_file(conf, sizeof conf, "locked.conf");
    write_text(conf, ""); /* empty: a new node, as no file */
    srv *s = h_srv_start("--cluster-enabled yes --cluster-config-file %s", conf);
    redisContext *c = srv_connect(s);
    char *id = myid(c);
    char line[128];
    snprintf(line, sizeof line, "%s :", id);
    wait_file_has(conf, line, 3000);
    /* a second server on the same file refuses to start */
    char msg[700];
    snprintf(msg, sizeof msg,
             "Sorry, the cluster configuration file %s is already used by a different Redis "
             "Cluster node. Please make sure that different nodes use different cluster "
             "configuration files.",
             conf);
    char args[700], *out = NULL;
    snprintf(args, sizeof args, "--cluster-enabled yes --cluster-config-file %s", conf);
    int st = srv_run_bad("", args, &out, h_scaled_ms(10000));
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d:\n%s", st, out);
    ck_assert_msg(strstr(out, msg), "%s", out);
    free(out);
    /* the lock holds across saves (the file is replaced by a rename) */
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    expect_status(c, "OK", "CLUSTER ADDSLOTS 1");
    wait_file_has(conf, "connected 1\n", 3000);
    st = srv_run_bad("", args, &out, h_scaled_ms(10000));
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d:\n%s", st, out);
    ck_assert_msg(strstr(out, msg), "%s", out);
    free(out);
    /* and Redis's own server sees the same lock */
    char port[16];
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[] = {h_redis_binary(), "--port", port, "--cluster-enabled", "yes",
                          "--cluster-config-file", conf, "--dir", scratch(), "--save", "",
                          NULL};
    st = h_run(NULL, &out, h_scaled_ms(10000), argv);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 1, "status %d:\n%s", st, out);
    ck_assert_msg(strstr(out, "is already used by a different Redis Cluster node"), "%s", out);
    free(out);
    free(id);
    redisFree(c);
}
END_TEST

/* ---- files between verso and redis-server ---- */

START_TEST(interop_files) {
    char conf[512];
    scratch_file(conf, sizeof conf, "interop.conf");
    unlink(conf);
    const char *args = "--cluster-enabled yes --cluster-config-file %s";
    /* redis-server writes, the server under test reads */
    srv *r = h_srv_start_redis(args, conf);
    redisContext *c = srv_connect(r);
    char *id = myid(c);
    expect_status(c, "OK", "CLUSTER SET-CONFIG-EPOCH 3");
    expect_status(c, "OK", "CLUSTER ADDSLOTSRANGE 0 10 500 600");
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(r);
    redisFree(c);
    srv *v = h_srv_start(args, conf);
    c = srv_connect(v);
    expect_bulk(c, id, "CLUSTER MYID");
    char want[512];
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 3 connected 0-10 500-600", id,
             v->port, v->port + 10000);
    expect_line(c, id, want);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 3);
    /* the server under test writes, redis-server reads */
    expect_status(c, "OK", "CLUSTER DELSLOTSRANGE 500 600");
    expect_status(c, "OK", "CLUSTER ADDSLOTS 20");
    expect_status(c, "STILL 3", "CLUSTER BUMPEPOCH");
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(v);
    redisFree(c);
    r = h_srv_start_redis(args, conf);
    c = srv_connect(r);
    expect_bulk(c, id, "CLUSTER MYID");
    snprintf(want, sizeof want, "%s :%d@%d myself,master - 0 0 3 connected 0-10 20", id, r->port,
             r->port + 10000);
    expect_line(c, id, want);
    ck_assert_int_eq(cinfo_int(c, "cluster_current_epoch"), 3);
    srv_kill9(r);
    redisFree(c);
    /* a file with a second node, a replica and migrations, both ways */
    write_text(conf, two_nodes_conf);
    r = h_srv_start_redis(args, conf);
    c = srv_connect(r);
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(r);
    redisFree(c);
    v = h_srv_start(args, conf);
    c = srv_connect(v);
    snprintf(want, sizeof want,
             ID_A " 127.0.0.1:%d@%d myself,master - 0 0 2 connected 0-8191 [5->-" ID_B
                  "] [9000-<-" ID_B "]",
             v->port, v->port + 10000);
    expect_line(c, ID_A, want);
    char *line = nodes_line(c, ID_C);
    ck_assert(!strncmp(line, ID_C " 127.0.0.2:3@4 slave " ID_B " ", 40 + 21 + 41));
    ck_assert_ptr_nonnull(strstr(line, " 1 disconnected"));
    free(line);
    expect_status(c, "OK", "CLUSTER SAVECONFIG");
    srv_kill9(v);
    redisFree(c);
    r = h_srv_start_redis(args, conf);
    c = srv_connect(r);
    expect_line(c, ID_A, (snprintf(want, sizeof want,
                                   ID_A " 127.0.0.1:%d@%d myself,master - 0 0 2 connected 0-8191 [5->-" ID_B
                                        "] [9000-<-" ID_B "]",
                                   r->port, r->port + 10000),
                          want));
    ck_assert_int_eq(cinfo_int(c, "cluster_known_nodes"), 3);
    free(id);
    redisFree(c);
}
END_TEST

/* ---- a slow disk ---- */

START_TEST(save_does_not_block) {
    char conf[512];
    scratch_file(conf, sizeof conf, "slow.conf");
    unlink(conf);
    setenv("FSYNC_DELAY_US", "700000", 1);
    h_preload_on(VERSO_FSYNC_SHIM);
    srv *s = h_srv_start("--cluster-enabled yes --cluster-config-file %s", conf);
    const char *vars[] = {"FSYNC_DELAY_US", NULL};
    h_preload_off(vars);
    redisContext *c = srv_connect(s);
    /* BUMPEPOCH asks for an fsynced save: the loop answers on */
    long long t0 = h_now_ms();
    expect_status(c, "BUMPED 1", "CLUSTER BUMPEPOCH");
    expect_status(c, "PONG", "PING");
    expect_status(c, "OK", "CLUSTER ADDSLOTS 7");
    expect_status(c, "PONG", "PING");
    long long took = h_now_ms() - t0;
    if (!srv_is_reference()) /* redis-server fsyncs on its loop */
        ck_assert_msg(took < h_scaled_ms(400), "the loop waited %lld ms", took);
    wait_file_has(conf, " 1 connected 7\n", 5000);
    redisFree(c);
}
END_TEST

int main(void) {
    scratch(); /* before the tests: a forked test's would be lost */
    Suite *s = suite_create("cluster");
    h_add_dropall(s, "fresh_node", fresh_node, 60);
    h_add_dropall(s, "second_node", second_node, 60);
    h_add_dropall(s, "restart_keeps_state", restart_keeps_state, 60);
    h_add_dropall(s, "aof_replays", aof_replays, 60);
    h_add_dropall(s, "corrupt_files", corrupt_files, 60);
    h_add_dropall(s, "empty_file_and_lock", empty_file_and_lock, 60);
    h_add_dropall(s, "interop_files", interop_files, 60);
    h_add_dropall(s, "save_does_not_block", save_does_not_block, 60);
    int rc = h_main(s);
    if (tmp_dir[0]) {
        char cmdline[300];
        snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", tmp_dir);
        if (system(cmdline) != 0) rc = 1;
    }
    return rc;
}
