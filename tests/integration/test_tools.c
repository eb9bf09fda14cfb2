/* Integration tests of what applications and operators run against a
 * server (issue 11's "Done when"): redis-py's lock(), pubsub(), monitor(),
 * pipeline(), register_script objects and memory_usage()
 * (tests/integration/redispy_tools.py, one test per part);
 * redis-benchmark's default test list, every test completing with a rate
 * and no error; redis-cli --bigkeys, --memkeys, --hotkeys (with and
 * without an LFU policy) and `redis-cli monitor`. Every test runs against
 * redis-server too (VERSO_SERVER=/usr/bin/redis-server).
 *
 * $VERSO_BENCH_N sets redis-benchmark's -n (default 5000: the default run's
 * every test, fewer requests, so that two busy cores finish it quickly). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- redis-py ---- */

static void redispy(const char *part) {
    char script[4096], port[16], *out = NULL;
    snprintf(script, sizeof script, "%s/tests/integration/redispy_tools.py", VERSO_TOP_SRCDIR);
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = {"/usr/bin/python3", script, port, part, NULL};
    int st = h_run(NULL, &out, h_scaled_ms(60000), argv);
    char ok[64];
    snprintf(ok, sizeof ok, "redispy_tools: ok %s", part);
    ck_assert_msg(st == 0 && strstr(out, ok), "redispy_tools.py %s (status 0x%x):\n%s", part, st,
                  out);
    free(out);
}

START_TEST(redispy_lock) { redispy("lock"); }
END_TEST

START_TEST(redispy_pubsub) { redispy("pubsub"); }
END_TEST

START_TEST(redispy_monitor) { redispy("monitor"); }
END_TEST

START_TEST(redispy_pipeline) { redispy("pipeline"); }
END_TEST

START_TEST(redispy_script) { redispy("script"); }
END_TEST

START_TEST(redispy_memory_usage) { redispy("memory"); }
END_TEST

/* ---- redis-benchmark ---- */

/* redis-benchmark 7.0's default run, in its order. */
static const char *const bench_tests[] = {
    "PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "LPUSH", "RPUSH", "LPOP", "RPOP", "SADD",
    "HSET", "SPOP", "ZADD", "ZPOPMIN", "LPUSH (needed to benchmark LRANGE)",
    "LRANGE_100 (first 100 elements)", "LRANGE_300 (first 300 elements)",
    "LRANGE_500 (first 500 elements)", "LRANGE_600 (first 600 elements)", "MSET (10 keys)",
};

START_TEST(benchmark_default_run) {
    const char *n = getenv("VERSO_BENCH_N");
    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = {"redis-benchmark", "-h", "127.0.0.1", "-p", port, "-q", "-n",
                          n && *n ? n : "5000", NULL};
    int st = h_run(NULL, &out, h_scaled_ms(500000), argv);
    ck_assert_msg(st == 0, "redis-benchmark status 0x%x:\n%s", st, out);
    /* each test's final line: "NAME: <rate> requests per second, p50=..." */
    for (size_t i = 0; i < sizeof bench_tests / sizeof bench_tests[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s: ", bench_tests[i]);
        const char *at = strstr(out, want);
        for (; at; at = strstr(at + 1, want)) {
            /* the name itself, not the end of another (HSET: holds SET: ) */
            if (at > out && (isalnum((unsigned char)at[-1]) || at[-1] == '_')) continue;
            const char *p = at + strlen(want);
            char *end;
            double rate = strtod(p, &end);
            if (end != p && rate > 0 && strncmp(end, " requests per second", 20) == 0) break;
        }
        ck_assert_msg(at, "no rate for %s in:\n%s", bench_tests[i], out);
    }
    ck_assert_msg(!strstr(out, "rror") && !strstr(out, "ERR") && !strstr(out, "WARN"),
                  "an error in:\n%s", out);
    free(out);
    /* it wrote what it benchmarked */
    expect_int_range(h_c, 1, 1000000, "EXISTS key:__rand_int__");
    expect_int_range(h_c, 1, 100000000, "LLEN mylist");
}
END_TEST

/* ---- redis-cli ---- */

/* Runs redis-cli -p <port> args...; returns its status, output in *out. */
static int cli(char **out, const char *a1, const char *a2) {
    char port[16];
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = {"redis-cli", "-h", "127.0.0.1", "-p", port, a1, a2, NULL};
    return h_run(NULL, out, h_scaled_ms(30000), argv);
}

/* Six keys of every type redis-cli's scans know, one string much bigger. */
static void fill_keys(void) {
    expect_status(h_c, "OK", "SET str1 hello");
    char big[3001];
    memset(big, 'a', 3000);
    big[3000] = '\0';
    expect_status(h_c, "OK", "SET bigstr %s", big);
    expect_int(h_c, 3, "RPUSH lst a b c");
    expect_int(h_c, 1, "HSET h f v");
    expect_int(h_c, 2, "SADD s a b");
    expect_int(h_c, 1, "ZADD z 1 a");
}

static void expect_in(const char *out, const char *want) {
    ck_assert_msg(strstr(out, want), "no '%s' in:\n%s", want, out);
}

START_TEST(cli_bigkeys) {
    fill_keys();
    char *out = NULL;
    int st = cli(&out, "--bigkeys", NULL);
    ck_assert_msg(st == 0, "status 0x%x:\n%s", st, out);
    expect_in(out, "Sampled 6 keys in the keyspace!");
    expect_in(out, "Total key length in bytes is 16 (avg len 2.67)");
    expect_in(out, "Biggest string found '\"bigstr\"' has 3000 bytes");
    expect_in(out, "Biggest   list found '\"lst\"' has 3 items");
    expect_in(out, "Biggest   hash found '\"h\"' has 1 fields");
    expect_in(out, "Biggest    set found '\"s\"' has 2 members");
    expect_in(out, "Biggest   zset found '\"z\"' has 1 members");
    expect_in(out, "2 strings with 3005 bytes (33.33% of keys, avg size 1502.50)");
    free(out);
}
END_TEST

START_TEST(cli_memkeys) {
    fill_keys();
    char *out = NULL;
    int st = cli(&out, "--memkeys", NULL);
    ck_assert_msg(st == 0, "status 0x%x:\n%s", st, out);
    expect_in(out, "Sampled 6 keys in the keyspace!");
    const char *at = strstr(out, "Biggest string found '\"bigstr\"' has ");
    ck_assert_msg(at, "no biggest string in:\n%s", out);
    long long bytes = strtoll(at + strlen("Biggest string found '\"bigstr\"' has "), NULL, 10);
    ck_assert_msg(bytes >= 3000 && bytes < 10000, "bigstr: %lld bytes\n%s", bytes, out);
    expect_in(out, "Biggest   list found '\"lst\"' has ");
    expect_in(out, "Biggest    set found '\"s\"' has ");
    ck_assert_msg(!strstr(out, "rror"), "an error in:\n%s", out);
    free(out);
}
END_TEST

START_TEST(cli_hotkeys) {
    fill_keys();
    char *out = NULL;
    /* without an LFU policy: Redis's error */
    int st = cli(&out, "--hotkeys", NULL);
    ck_assert_msg(st != 0, "status 0x%x:\n%s", st, out);
    expect_in(out, "ERR An LFU maxmemory policy is not selected, access frequency not tracked.");
    free(out);
    expect_status(h_c, "OK", "CONFIG SET maxmemory-policy allkeys-lfu");
    /* str1 read often: the hottest key */
    for (int i = 0; i < 300; i++) redisAppendCommand(h_c, "GET str1");
    for (int i = 0; i < 300; i++) {
        void *r = NULL;
        ck_assert(redisGetReply(h_c, &r) == REDIS_OK && r);
        freeReplyObject(r);
    }
    st = cli(&out, "--hotkeys", NULL);
    ck_assert_msg(st == 0, "status 0x%x:\n%s", st, out);
    expect_in(out, "Sampled 6 keys in the keyspace!");
    const char *sum = strstr(out, "-------- summary -------");
    ck_assert_ptr_nonnull(sum);
    const char *first = strstr(sum, "hot key found with counter: ");
    ck_assert_msg(first, "no hot key in:\n%s", out);
    const char *nl = strchr(first, '\n');
    ck_assert_msg(nl && strstr(first, "keyname: \"str1\"") < nl, "str1 not hottest:\n%s", out);
    long long cnt = strtoll(first + strlen("hot key found with counter: "), NULL, 10);
    ck_assert_msg(cnt > 5, "counter %lld:\n%s", cnt, out);
    free(out);
}
END_TEST

START_TEST(cli_monitor) {
    char port[16], path[4096];
    snprintf(port, sizeof port, "%d", h_srv->port);
    snprintf(path, sizeof path, "%s/monitor.out", h_srv->dir);
    const char *argv[] = {"redis-cli", "-h", "127.0.0.1", "-p", port, "monitor", NULL};
    pid_t pid = h_spawn(argv, path);
    /* MONITOR answered OK: redis-cli prints it, then every command */
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    char *text = NULL;
    size_t len;
    for (;;) {
        free(text);
        text = h_slurp(path, &len, 0);
        if (text && strstr(text, "OK")) break;
        ck_assert_msg(h_now_ms() < deadline, "no OK from redis-cli monitor: %s",
                      text ? text : "(none)");
        h_sleep_ms(20);
    }
    expect_status(h_c, "OK", "SET monkey banana");
    expect_bulk(h_c, "banana", "GET monkey");
    for (;;) {
        free(text);
        text = h_slurp(path, &len, 0);
        if (text && strstr(text, "\"GET\" \"monkey\"")) break;
        ck_assert_msg(h_now_ms() < deadline, "no GET in redis-cli monitor's output: %s",
                      text ? text : "(none)");
        h_sleep_ms(20);
    }
    /* "<time> [0 127.0.0.1:port] "SET" "monkey" "banana"" */
    char *set = strstr(text, "\"SET\" \"monkey\" \"banana\"");
    ck_assert_msg(set, "no SET in: %s", text);
    ck_assert_msg(strstr(text, " [0 127.0.0.1:"), "no [db addr] in: %s", text);
    free(text);
    h_spawn_kill(pid);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tools");
    TCase *tc = tcase_create("tools");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, redispy_lock);
    tcase_add_test(tc, redispy_pubsub);
    tcase_add_test(tc, redispy_monitor);
    tcase_add_test(tc, redispy_pipeline);
    tcase_add_test(tc, redispy_script);
    tcase_add_test(tc, redispy_memory_usage);
    tcase_add_test(tc, cli_bigkeys);
    tcase_add_test(tc, cli_memkeys);
    tcase_add_test(tc, cli_hotkeys);
    tcase_add_test(tc, cli_monitor);
    suite_add_tcase(s, tc);
    TCase *bench = tcase_create("benchmark");
    tcase_add_checked_fixture(bench, h_setup, h_teardown);
    tcase_set_timeout(bench, 3000);
    tcase_add_test(bench, benchmark_default_run);
    suite_add_tcase(s, bench);
    return h_main(s);
}
