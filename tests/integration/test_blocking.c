/* test_blocking: PLACEHOLDER (issue 9), replaced by its owner's tests. */
#include <check.h>
#include <stdlib.h>

START_TEST(placeholder) { ck_assert_int_eq(1 + 1, 2); }
END_TEST

int main(void) {
    Suite *s = suite_create("test_blocking");
    TCase *tc = tcase_create("placeholder");
    tcase_add_test(tc, placeholder);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
