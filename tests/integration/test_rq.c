/* test_rq: rq, the Python job queue (Debian's python3-rq, 1.13), against
 * the server. Each part of tests/apps/rq/rq_test.py is one test on a fresh
 * server: results of jobs run by `rq worker --burst` (return_value, the
 * results stream rq writes with XADD when the server says 5.0 or later,
 * the finished registry), a failing job in the FailedJobRegistry with its
 * traceback and requeued from it, Retry(max=2), depends_on (deferred jobs,
 * the order of runs, a dependency that fails), enqueue_in with the burst
 * worker's scheduler. The commands rq sends are listed in
 * tests/apps/COMMANDS.md. Runs against redis-server too
 * (VERSO_SERVER=/usr/bin/redis-server). */
#include "apprun.h"

static void rq_part(const char *part) {
    app_require("tests/apps/rq/rq_jobs.py", "the source tree");
    app_run_part(h_srv, "/usr/bin/python3", "tests/apps/rq/rq_test.py", "rq", part, 50000);
}

#define PART(name)            \
    START_TEST(rq_##name) {   \
        rq_part(#name);       \
    }                         \
    END_TEST

PART(results)
PART(failed)
PART(retry)
PART(depends)
PART(scheduled)

int main(void) {
    Suite *s = suite_create("rq");
    const TTest *tests[] = {rq_results, rq_failed, rq_retry, rq_depends, rq_scheduled};
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        h_add_tcase(s, tests[i]->name, tests[i], 60 * h_time_scale(), h_setup, h_teardown);
    return h_main(s);
}
