/* test_cluster_route: the redirection decision (cluster/route.c) over a
 * test double of cluster.h's queries: three fake nodes, slot owners and
 * SETSLOT states the tests set, myself a primary or a replica. Every verdict
 * and its text as Redis 7.0's getNodeByQuery / clusterRedirectClient. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "cmd.h"
#include "inproc.h"
#include "keyslot.h"
#include "route.h"
#include "server.h"

/* ---- the test double of cluster.h ---- */
struct cluster_node {
    const char *ip;
    int port;
    const cluster_node *primary;
};
static cluster_node node_a = {"10.0.0.1", 7000, NULL}, node_b = {"10.0.0.2", 7001, NULL},
                    node_c = {"10.0.0.3", 7002, NULL};
static const cluster_node *me = &node_a;
static const cluster_node *owner[KEYSLOT_COUNT], *migrating[KEYSLOT_COUNT],
    *importing[KEYSLOT_COUNT];
static int state_ok = 1;

void cluster_init(void) {}
int cluster_enabled(void) { return 1; }
const cluster_node *cluster_myself(void) { return me; }
const cluster_node *cluster_slot_owner(unsigned s) { return owner[s]; }
const cluster_node *cluster_slot_migrating_to(unsigned s) { return migrating[s]; }
const cluster_node *cluster_slot_importing_from(unsigned s) { return importing[s]; }
int cluster_state_ok(void) { return state_ok; }
int cluster_import_link(const void *c) { (void)c; return 0; }
const cluster_node *cluster_node_primary(const cluster_node *n) { return n->primary; }
size_t cluster_node_redirect_endpoint(const cluster_node *n, int tls, char *buf, size_t cap) {
    int len = snprintf(buf, cap, "%s:%d", n->ip, n->port + (tls ? 1000 : 0));
    return (size_t)len;
}

/* ---- queries ---- */
static const char *present[8]; /* keys that exist "here" */

static int exists(void *priv, const char *k, size_t len) {
    (void)priv;
    for (int i = 0; present[i]; i++)
        if (strlen(present[i]) == len && !memcmp(present[i], k, len)) return 1;
    return 0;
}

#define MAXW 8
typedef struct line { arg argv[MAXW]; int argc; } line;

static void split(line *l, const char *words) {
    static char buf[16][256];
    static int bi;
    char *s = buf[bi++ % 16];
    snprintf(s, 256, "%s", words);
    l->argc = 0;
    for (char *t = strtok(s, " "); t; t = strtok(NULL, " ")) {
        l->argv[l->argc].p = t;
        l->argv[l->argc].len = strlen(t);
        l->argc++;
    }
}

static char text[400];
static unsigned got_slot;

/* The verdict for the command lines (several: an EXEC's queue), its text
 * in `text` ("" for ROUTE_OK). */
static route_verdict decide_q(route_query *q, int n, const char **lines) {
    line l[4];
    route_cmd rc[4];
    int write = 0;
    for (int i = 0; i < n; i++) {
        split(&l[i], lines[i]);
        rc[i].d = cmd_lookup_argv(l[i].argc, l[i].argv, NULL);
        ck_assert_msg(rc[i].d != NULL, "%s", lines[i]);
        rc[i].argc = l[i].argc;
        rc[i].argv = l[i].argv;
        write |= (rc[i].d->flags & CMD_WRITE) != 0;
    }
    q->cmds = rc;
    q->n = (size_t)n;
    q->write = write;
    q->key_exists = exists;
    if (n == 1) q->migrate = !strcmp(rc[0].d->name, "migrate");
    const cluster_node *node;
    route_verdict v = route_decide(q, &got_slot, &node);
    text[0] = 0;
    if (v != ROUTE_OK) route_error_text(v, got_slot, node, 0, text, sizeof text);
    return v;
}

static route_verdict decide(const char *words) {
    route_query q = {0};
    return decide_q(&q, 1, &words);
}

static unsigned slot_of(const char *k) { return key_hash_slot(k, strlen(k)); }

static void setup(void) {
    inproc_init();
    memset(owner, 0, sizeof owner);
    memset(migrating, 0, sizeof migrating);
    memset(importing, 0, sizeof importing);
    memset(present, 0, sizeof present);
    me = &node_a;
    node_a.primary = NULL;
    state_ok = 1;
    server.cfg.compat.cluster_allow_reads_when_down = 0;
    server.cfg.compat.cluster_allow_pubsubshard_when_down = 1;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        owner[s] = s < 5461 ? &node_a : s < 10923 ? &node_b : &node_c;
}

/* slots: foo 12182 (c), bar 5061 (a), hello 866 (a), {bar}x = bar's */

START_TEST(served_here_and_keyless) {
    ck_assert_int_eq(decide("get bar"), ROUTE_OK);
    ck_assert_uint_eq(got_slot, 5061);
    ck_assert_int_eq(decide("mset bar 1 {bar}x 2"), ROUTE_OK);
    ck_assert_int_eq(decide("ping"), ROUTE_OK);
    ck_assert_int_eq(decide("eval return 0"), ROUTE_OK); /* numkeys 0 */
    owner[5061] = NULL;
    ck_assert_int_eq(decide("ping"), ROUTE_OK);          /* no keys: never down */
}
END_TEST

START_TEST(moved) {
    ck_assert_int_eq(decide("get foo"), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    ck_assert_int_eq(decide("set hello{foo} 1"), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    /* EVAL and FCALL: their declared keys */
    ck_assert_int_eq(decide("eval x 1 foo"), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    ck_assert_int_eq(decide("fcall f 1 foo"), ROUTE_MOVED);
    ck_assert_int_eq(decide("eval x 1 bar"), ROUTE_OK);
}
END_TEST

START_TEST(crossslot) {
    ck_assert_int_eq(decide("mget bar hello"), ROUTE_CROSSSLOT);
    ck_assert_str_eq(text, "CROSSSLOT Keys in request don't hash to the same slot");
    ck_assert_int_eq(decide("mget bar bar"), ROUTE_OK); /* the same key twice */
    ck_assert_int_eq(decide("eval x 2 bar foo"), ROUTE_CROSSSLOT);
    /* slot checks before ownership: two slots of another node too */
    ck_assert_int_eq(decide("mget foo bar"), ROUTE_CROSSSLOT);
}
END_TEST

START_TEST(unbound_and_down) {
    owner[5061] = NULL;
    ck_assert_int_eq(decide("get bar"), ROUTE_DOWN_UNBOUND);
    ck_assert_str_eq(text, "CLUSTERDOWN Hash slot not served");
    /* the first key's slot unbound answers before a cross-slot second */
    ck_assert_int_eq(decide("mget bar hello"), ROUTE_DOWN_UNBOUND);
    owner[5061] = &node_a;
    state_ok = 0;
    ck_assert_int_eq(decide("get bar"), ROUTE_DOWN_STATE);
    ck_assert_str_eq(text, "CLUSTERDOWN The cluster is down");
    server.cfg.compat.cluster_allow_reads_when_down = 1;
    ck_assert_int_eq(decide("get bar"), ROUTE_OK);
    ck_assert_int_eq(decide("get foo"), ROUTE_MOVED); /* reads still redirect */
    ck_assert_int_eq(decide("set bar 1"), ROUTE_DOWN_RO_STATE);
    ck_assert_str_eq(text, "CLUSTERDOWN The cluster is down and only accepts read commands");
    ck_assert_int_eq(decide("ping"), ROUTE_OK);
}
END_TEST

START_TEST(migrating_ask) {
    migrating[5061] = &node_b;
    ck_assert_int_eq(decide("get bar"), ROUTE_ASK);
    ck_assert_str_eq(text, "ASK 5061 10.0.0.2:7001");
    present[0] = "bar";
    ck_assert_int_eq(decide("get bar"), ROUTE_OK);
    /* one key of two missing: ASK (7.0 has no TRYAGAIN on the source) */
    ck_assert_int_eq(decide("mget bar {bar}x"), ROUTE_ASK);
    ck_assert_str_eq(text, "ASK 5061 10.0.0.2:7001");
    present[1] = "{bar}x";
    ck_assert_int_eq(decide("mget bar {bar}x"), ROUTE_OK);
    /* MIGRATE works here on a slot in transition */
    ck_assert_int_eq(decide("migrate 10.0.0.2 7001 nokey{bar} 0 1000"), ROUTE_OK);
    /* migrating matters only on the owner */
    migrating[12182] = &node_b;
    ck_assert_int_eq(decide("get foo"), ROUTE_MOVED);
}
END_TEST

START_TEST(importing_asking) {
    owner[12182] = &node_c;
    importing[12182] = &node_c;
    ck_assert_int_eq(decide("get foo"), ROUTE_MOVED); /* no ASKING */
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    route_query q = {.asking = 1};
    const char *one[] = {"get foo"};
    ck_assert_int_eq(decide_q(&q, 1, one), ROUTE_OK);
    const char *two[] = {"mget foo {foo}y"};
    memset(&q, 0, sizeof q);
    q.asking = 1;
    ck_assert_int_eq(decide_q(&q, 1, two), ROUTE_TRYAGAIN);
    ck_assert_str_eq(text, "TRYAGAIN Multiple keys request during rehashing of slot");
    present[0] = "foo";
    present[1] = "{foo}y";
    memset(&q, 0, sizeof q);
    q.asking = 1;
    ck_assert_int_eq(decide_q(&q, 1, two), ROUTE_OK);
}
END_TEST

START_TEST(readonly_replica) {
    node_a.primary = &node_c; /* myself replicates c */
    ck_assert_int_eq(decide("get foo"), ROUTE_MOVED);
    route_query q = {.readonly = 1};
    const char *rd[] = {"get foo"};
    ck_assert_int_eq(decide_q(&q, 1, rd), ROUTE_OK);
    const char *wr[] = {"set foo 1"};
    memset(&q, 0, sizeof q);
    q.readonly = 1;
    ck_assert_int_eq(decide_q(&q, 1, wr), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    /* another primary's slot: MOVED even READONLY */
    owner[5061] = &node_b;
    const char *other[] = {"get bar"};
    memset(&q, 0, sizeof q);
    q.readonly = 1;
    ck_assert_int_eq(decide_q(&q, 1, other), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 5061 10.0.0.2:7001");
}
END_TEST

START_TEST(exec_queue) {
    /* EXEC: every queued command's keys, as one request */
    route_query q = {0};
    const char *same[] = {"set bar 1", "get {bar}x"};
    ck_assert_int_eq(decide_q(&q, 2, same), ROUTE_OK);
    const char *cross[] = {"set bar 1", "get hello"};
    memset(&q, 0, sizeof q);
    ck_assert_int_eq(decide_q(&q, 2, cross), ROUTE_CROSSSLOT);
    const char *far[] = {"ping", "get foo"};
    memset(&q, 0, sizeof q);
    ck_assert_int_eq(decide_q(&q, 2, far), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
}
END_TEST

START_TEST(shard_channels) {
    /* SPUBLISH / SSUBSCRIBE: the shard channel routes as a key */
    ck_assert_int_eq(decide("spublish foo m"), ROUTE_MOVED);
    ck_assert_str_eq(text, "MOVED 12182 10.0.0.3:7002");
    ck_assert_int_eq(decide("ssubscribe bar"), ROUTE_OK);
    ck_assert_int_eq(decide("ssubscribe bar hello"), ROUTE_CROSSSLOT);
    /* a replica of the owner serves shard pub/sub without READONLY */
    node_a.primary = &node_c;
    ck_assert_int_eq(decide("ssubscribe foo"), ROUTE_OK);
    node_a.primary = NULL;
    state_ok = 0; /* cluster-allow-pubsubshard-when-down yes */
    ck_assert_int_eq(decide("spublish bar m"), ROUTE_OK);
    server.cfg.compat.cluster_allow_pubsubshard_when_down = 0;
    ck_assert_int_eq(decide("spublish bar m"), ROUTE_DOWN_STATE);
    /* plain pub/sub has no channel keys: any node */
    ck_assert_int_eq(decide("publish foo m"), ROUTE_OK);
}
END_TEST

START_TEST(redirect_endpoint_tls) {
    route_error_text(ROUTE_MOVED, 7, &node_b, 1, text, sizeof text);
    ck_assert_str_eq(text, "MOVED 7 10.0.0.2:8001");
    route_error_text(ROUTE_ASK, 16383, &node_c, 0, text, sizeof text);
    ck_assert_str_eq(text, "ASK 16383 10.0.0.3:7002");
    ck_assert_uint_eq(slot_of("bar"), 5061);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_route");
    TCase *t = tcase_create("decide");
    tcase_add_checked_fixture(t, setup, NULL);
    tcase_add_test(t, served_here_and_keyless);
    tcase_add_test(t, moved);
    tcase_add_test(t, crossslot);
    tcase_add_test(t, unbound_and_down);
    tcase_add_test(t, migrating_ask);
    tcase_add_test(t, importing_asking);
    tcase_add_test(t, readonly_replica);
    tcase_add_test(t, exec_queue);
    tcase_add_test(t, shard_channels);
    tcase_add_test(t, redirect_endpoint_tls);
    suite_add_tcase(s, t);
    return inproc_run(s);
}
