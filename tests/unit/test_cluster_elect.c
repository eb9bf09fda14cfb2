/* test_cluster_elect: the election's rules (cluster/elect.c) over a node
 * table built with state.c's calls: the rank by offset
 * (clusterGetSlaveRank), the delay, the election's timeout, the data age
 * (cluster-replica-validity-factor), and every reason a primary refuses a
 * vote (clusterSendFailoverAuthIfNeeded) and the vote it grants. */
#include <check.h>
#include <string.h>

#include "cluster_int.h"
#include "inproc.h"

/* The cluster: primaries A (myself, slots 0-99, epoch 3), B (100-199,
 * epoch 5, FAIL) with replicas R1, R2, R3; C a primary without slots. */
static cluster_node *A, *B, *C, *R1, *R2, *R3;

static cluster_node *node(int flags) {
    cluster_node *n = cl_node_new(NULL, flags);
    cl_node_add(n);
    return n;
}

static void setup(void) {
    cl_state_clear();
    memset(&cl, 0, sizeof cl);
    A = node(CL_NODE_PRIMARY | CL_NODE_MYSELF);
    cl.myself = A;
    B = node(CL_NODE_PRIMARY | CL_NODE_FAIL);
    C = node(CL_NODE_PRIMARY);
    R1 = node(CL_NODE_REPLICA);
    R2 = node(CL_NODE_REPLICA);
    R3 = node(CL_NODE_REPLICA);
    cl_node_set_primary(R1, B);
    cl_node_set_primary(R2, B);
    cl_node_set_primary(R3, B);
    for (unsigned s = 0; s < 100; s++) ck_assert_int_eq(cl_slot_add(A, s), 0);
    for (unsigned s = 100; s < 200; s++) ck_assert_int_eq(cl_slot_add(B, s), 0);
    A->config_epoch = 3;
    B->config_epoch = 5;
    cl.current_epoch = 7;
    cl.last_vote_epoch = 6;
}

START_TEST(test_rank) {
    setup();
    R2->repl_offset = 100;
    R3->repl_offset = 50;
    ck_assert_int_eq(cl_elect_rank(R1, 60), 1);  /* R2 is ahead */
    ck_assert_int_eq(cl_elect_rank(R1, 40), 2);  /* both are */
    ck_assert_int_eq(cl_elect_rank(R1, 100), 0); /* a tie is no rank */
    R2->flags |= CL_NODE_NOFAILOVER;             /* it never runs: not counted */
    ck_assert_int_eq(cl_elect_rank(R1, 40), 1);
    ck_assert_int_eq(cl_elect_rank(A, 0), 0);    /* a primary */
}
END_TEST

START_TEST(test_delay_and_timeouts) {
    ck_assert_int_eq(cl_elect_delay(0, 0), 500);
    ck_assert_int_eq(cl_elect_delay(0, 499), 999);
    ck_assert_int_eq(cl_elect_delay(0, 500), 500); /* rnd % 500 */
    ck_assert_int_eq(cl_elect_delay(2, 10), 2510);
    ck_assert_int_eq(cl_elect_auth_timeout(15000), 30000);
    ck_assert_int_eq(cl_elect_auth_timeout(500), 2000); /* 2 s at least */
}
END_TEST

START_TEST(test_data_age) {
    /* limit: ping period * 1000 + node_timeout * factor, after taking
     * node_timeout off the age */
    ck_assert_int_eq(cl_elect_data_fresh(1000000, 1000, 0, 10), 1); /* factor 0: any age */
    ck_assert_int_eq(cl_elect_data_fresh(-1, 1000, 10, 10), 0);     /* never synced */
    ck_assert_int_eq(cl_elect_data_fresh(0, 1000, 10, 10), 1);
    ck_assert_int_eq(cl_elect_data_fresh(21000, 1000, 10, 10), 1);  /* 20000 <= 20000 */
    ck_assert_int_eq(cl_elect_data_fresh(21001, 1000, 10, 10), 0);
    ck_assert_int_eq(cl_elect_data_fresh(800, 1000, 1, 0), 1);      /* under the timeout */
}
END_TEST

static uint8_t claim[KEYSLOT_COUNT / 8];

static int vote(const cluster_node *req, uint64_t epoch, uint64_t config_epoch, int force,
                long long now, char *why) {
    return cl_elect_may_vote(req, epoch, config_epoch, claim, force, now, 1000, why, 160);
}

START_TEST(test_votes) {
    char why[160];
    setup();
    memset(claim, 0, sizeof claim);
    for (unsigned s = 100; s < 200; s++) claim[s >> 3] |= (uint8_t)(1u << (s & 7));
    long long now = 100000;

    ck_assert_int_eq(vote(R1, 7, 5, 0, now, why), 1); /* B's replica, B FAIL */

    ck_assert_int_eq(vote(R1, 6, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "reqEpoch (6) < curEpoch(7)");

    cl.last_vote_epoch = 7;
    ck_assert_int_eq(vote(R1, 7, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "already voted for epoch 7");
    cl.last_vote_epoch = 6;

    ck_assert_int_eq(vote(C, 7, 0, 0, now, why), 0);
    ck_assert_str_eq(why, "it is a master node");

    B->flags &= ~CL_NODE_FAIL;
    ck_assert_int_eq(vote(R1, 7, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "its master is up");
    ck_assert_int_eq(vote(R1, 7, 5, 1, now, why), 1); /* FORCEACK: a manual failover */
    B->flags |= CL_NODE_FAIL;

    B->voted_time = now - 1500; /* voted for a replica of B 1.5 s ago */
    ck_assert_int_eq(vote(R2, 7, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "can't vote about this master before 500 milliseconds");
    B->voted_time = now - 2000;
    ck_assert_int_eq(vote(R2, 7, 5, 0, now, why), 1);

    /* a claimed slot whose owner has a newer config epoch */
    claim[0] |= 1; /* slot 0: A's, epoch 3 */
    ck_assert_int_eq(vote(R1, 7, 2, 0, now, why), 0);
    ck_assert_str_eq(why, "slot 0 epoch (3) > reqEpoch (2)");
    claim[0] &= (uint8_t)~1u;
    ck_assert_int_eq(vote(R1, 7, 4, 0, now, why), 0);
    ck_assert_str_eq(why, "slot 100 epoch (5) > reqEpoch (4)");

    /* a replica, or a primary without slots, does not vote */
    cl.myself = C;
    ck_assert_int_eq(vote(R1, 7, 5, 0, now, why), 0);
    cl.myself = A;
    cl_node_set_primary(R3, NULL); /* R3 known as a primary now */
    ck_assert_int_eq(vote(R3, 7, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "it is a master node");
    cl_node_set_primary(R1, NULL);
    R1->flags = CL_NODE_REPLICA; /* a replica whose primary is unknown */
    ck_assert_int_eq(vote(R1, 7, 5, 0, now, why), 0);
    ck_assert_str_eq(why, "I don't know its master");
}
END_TEST

int main(void) {
    inproc_conf();
    Suite *s = suite_create("cluster_elect");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, NULL, cl_state_clear); /* frees the table */
    tcase_add_test(tc, test_rank);
    tcase_add_test(tc, test_delay_and_timeouts);
    tcase_add_test(tc, test_data_age);
    tcase_add_test(tc, test_votes);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
