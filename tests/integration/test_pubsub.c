/* Placeholder for test_pubsub (issue 10): its owner replaces it. */
#include "harness.h"

START_TEST(role_answers) {
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 3, "ROLE");
    check_bulk(r->element[0], "master");
    freeReplyObject(r);
    redisFree(c);
}
END_TEST

static void teardown(void) { h_srv_drop_all(); }

int main(void) {
    Suite *s = suite_create("pubsub");
    TCase *tc = tcase_create("pubsub");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, role_answers);
    suite_add_tcase(s, tc);
    return h_main(s);
}
