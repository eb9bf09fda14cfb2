/* test_bullmq: BullMQ, the Node.js job queue (tests/apps/bullmq: the
 * version pinned in package.json, installed by scripts/setup.sh with npm
 * ci), against the server. Each part of tests/apps/bullmq/bullmq_test.js
 * is one test on a fresh server: a Queue and a Worker (return values,
 * states, getCompleted, getJobCounts, remove), delayed jobs, priorities
 * (the order of processing), retries with attempts and backoff, a flow
 * (FlowProducer: a parent that runs after its children), QueueEvents
 * ('added', 'completed', 'failed' from the events stream, read with XREAD
 * BLOCK). BullMQ works through Lua scripts (EVALSHA) that keep jobs in
 * hashes, lists and sorted sets and write events with XADD; the commands
 * it sends are listed in tests/apps/COMMANDS.md. Runs against redis-server
 * too (VERSO_SERVER=/usr/bin/redis-server). */
#include "apprun.h"

static void bullmq_part(const char *part) {
    app_require("tests/apps/bullmq/node_modules/bullmq/package.json",
                "scripts/setup.sh (npm ci in tests/apps/bullmq)");
    app_run_part(h_srv, "/usr/bin/node", "tests/apps/bullmq/bullmq_test.js", "bullmq", part,
                 50000);
}

#define PART(name)                \
    START_TEST(bullmq_##name) {   \
        bullmq_part(#name);       \
    }                             \
    END_TEST

PART(queue)
PART(delayed)
PART(priority)
PART(retry)
PART(flow)
PART(events)

int main(void) {
    Suite *s = suite_create("bullmq");
    const TTest *tests[] = {bullmq_queue, bullmq_delayed, bullmq_priority,
                            bullmq_retry, bullmq_flow, bullmq_events};
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++)
        h_add_tcase(s, tests[i]->name, tests[i], 60 * h_time_scale(), h_setup, h_teardown);
    return h_main(s);
}
