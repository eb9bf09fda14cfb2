/* Placeholder for the backlog's unit test (issue 10): its owner replaces it. */
#include <check.h>
#include <stdlib.h>

#include "../../repl/repl_int.h"

START_TEST(empty_backlog_covers_nothing) { ck_assert_int_eq(backlog_exists(), 0); }
END_TEST

int main(void) {
    Suite *s = suite_create("backlog");
    TCase *tc = tcase_create("backlog");
    tcase_add_test(tc, empty_backlog_covers_nothing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
