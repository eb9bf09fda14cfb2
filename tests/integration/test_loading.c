/* test_loading: a server loading its data at startup serves clients, as
 * Redis 7.0 does: it accepts connections, answers "-LOADING Redis is loading
 * the dataset in memory" to commands not flagged for loading, serves INFO
 * with loading:1 and the loading_* fields, and a SHUTDOWN or SIGTERM during
 * the load exits without saving (what is loaded is part of the data). For an
 * RDB load and an AOF load. key-load-delay (Redis's testing knob) makes the
 * load last long enough to be watched. Runs against redis-server too. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "harness.h"

#define NKEYS 20000
#define LOADING_ERR "LOADING Redis is loading the dataset in memory"
/* 50 us per key: a load of ~1-2 s */
#define SLOW_LOAD "--key-load-delay 50 --loading-process-events-interval-bytes 1024"

static long long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int is_loading_error(const redisReply *r) {
    return r->type == REDIS_REPLY_ERROR && !strcmp(r->str, LOADING_ERR);
}

/* A server with NKEYS keys saved in dump.rdb, then killed. */
static srv *saved_dataset(void) {
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE %d key", NKEYS);
    expect_status(c, "OK", "SAVE");
    redisFree(c);
    srv_kill9(s);
    return s;
}

static long long info_ll(const char *info, const char *field) {
    char buf[64];
    ck_assert_msg(h_info_field(info, field, buf, sizeof buf), "INFO lacks %s", field);
    return atoll(buf);
}

/* While loading: -LOADING to data commands, INFO's loading fields with a
 * total of total_bytes (0: not checked) and progress between two reads. */
static void check_loading(redisContext *c, long long total_bytes) {
    redisReply *r = cmd(c, "GET key:1");
    ck_assert_msg(is_loading_error(r), "GET while loading: %s",
                  r->type == REDIS_REPLY_ERROR ? r->str : "not an error");
    freeReplyObject(r);
    r = cmd(c, "PING");
    ck_assert(is_loading_error(r));
    freeReplyObject(r);
    /* what the load depends on cannot change under it; the rest can */
    expect_error(c, LOADING_ERR, "CONFIG SET appendonly %s", total_bytes ? "yes" : "no");
    expect_error(c, LOADING_ERR, "CONFIG SET maxmemory-samples 7 repl-diskless-load swapdb");
    expect_status(c, "OK", "CONFIG SET maxmemory-samples 6");
    /* DEBUG is flagged loading, but its subcommands would touch the tables
     * the load builds: verso refuses it meanwhile (Redis runs it) */
    if (!srv_is_reference()) expect_error(c, LOADING_ERR, "DEBUG POPULATE 10 other");

    char *info = h_info(c, "persistence");
    ck_assert_int_eq(info_ll(info, "loading"), 1);
    ck_assert_int_eq(info_ll(info, "async_loading"), 0);
    long long start = info_ll(info, "loading_start_time");
    long long now = (long long)time(NULL);
    ck_assert(start <= now && start >= now - 60);
    long long total = info_ll(info, "loading_total_bytes");
    if (total_bytes) ck_assert_int_eq(total, total_bytes);
    long long loaded = info_ll(info, "loading_loaded_bytes");
    ck_assert(loaded >= 0 && loaded <= total);
    char buf[64];
    ck_assert(h_info_field(info, "loading_loaded_perc", buf, sizeof buf));
    double perc = atof(buf);
    ck_assert(perc >= 0 && perc <= 100);
    ck_assert(h_info_field(info, "loading_eta_seconds", buf, sizeof buf));
    free(info);

    /* the load goes on while we watch */
    long long t0 = h_now_ms(), later = loaded;
    while (later == loaded && h_now_ms() - t0 < 5000) {
        h_sleep_ms(20);
        info = h_info(c, "persistence");
        if (info_ll(info, "loading") == 0) { /* finished meanwhile: it progressed */
            free(info);
            return;
        }
        later = info_ll(info, "loading_loaded_bytes");
        free(info);
    }
    ck_assert_int_gt(later, loaded);
}

static void check_loaded(redisContext *c, long long keys) {
    h_wait_loaded(c, 30000);
    expect_int(c, keys, "DBSIZE");
    expect_bulk(c, "value:1", "GET key:1");
    char *info = h_info(c, "persistence");
    char buf[64];
    ck_assert(!h_info_field(info, "loading_total_bytes", buf, sizeof buf));
    free(info);
}

START_TEST(rdb_load_serves_clients) {
    srv *s = saved_dataset();
    char dump[4096];
    snprintf(dump, sizeof dump, "%s/dump.rdb", s->dir);
    long long size = file_size(dump);
    ck_assert_int_gt(size, 0);

    h_ready_while_loading = 1;
    srv *s2 = h_srv_start_on(s, SLOW_LOAD);
    h_ready_while_loading = 0;
    redisContext *c = srv_connect(s2);
    check_loading(c, size);
    check_loaded(c, NKEYS);
    redisFree(c);
}
END_TEST

START_TEST(aof_load_serves_clients) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    h_wait_loaded(c, 10000);
    expect_status(c, "OK", "DEBUG POPULATE %d key", NKEYS);
    /* the keys go into the AOF's base (an RDB preamble), then one command
     * into the INCR file */
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 20000);
    h_wait_info(c, "persistence", "aof_rewrite_scheduled", 0, 20000);
    expect_status(c, "OK", "SET after-rewrite yes");
    redisFree(c);
    srv_kill9(s);

    h_ready_while_loading = 1;
    srv *s2 = h_srv_start_on(s, "--appendonly yes " SLOW_LOAD);
    h_ready_while_loading = 0;
    c = srv_connect(s2);
    check_loading(c, 0);
    check_loaded(c, NKEYS + 1);
    expect_bulk(c, "yes", "GET after-rewrite");
    redisFree(c);
}
END_TEST

/* What a load would lose must never be written: SHUTDOWN (which saves when
 * save points are set) and SIGTERM during the load exit without saving. */
static void stop_while_loading(int by_signal) {
    srv *s = saved_dataset();
    char dump[4096];
    snprintf(dump, sizeof dump, "%s/dump.rdb", s->dir);
    size_t len0;
    char *before = h_slurp(dump, &len0, 1);

    h_ready_while_loading = 1;
    srv *s2 = h_srv_start_on(s, "--save '3600 1' " SLOW_LOAD);
    h_ready_while_loading = 0;
    redisContext *c = srv_connect(s2);
    redisReply *r = cmd(c, "GET key:1");
    ck_assert(is_loading_error(r));
    freeReplyObject(r);
    if (by_signal) {
        ck_assert_int_eq(kill(s2->pid, SIGTERM), 0);
    } else {
        r = redisCommand(c, "SHUTDOWN");
        freeReplyObject(r); /* no reply: the connection closes */
    }
    ck_assert_msg(srv_wait_exit(s2, h_scaled_ms(10000)) == 1, "still running");
    redisFree(c);

    size_t len1;
    char *after = h_slurp(dump, &len1, 1);
    ck_assert_uint_eq(len0, len1);
    ck_assert(memcmp(before, after, len0) == 0);
    free(before);
    free(after);
}

START_TEST(shutdown_while_loading_saves_nothing) { stop_while_loading(0); }
END_TEST

START_TEST(sigterm_while_loading_saves_nothing) { stop_while_loading(1); }
END_TEST

/* A replica's full sync loads into fresh tables while the old data is still
 * served: async_loading:1, reads see the old data, then the new data
 * replaces it. verso does this for every full sync (deliberately); Redis 7.0
 * only with repl-diskless-load swapdb and the same replication id, so a new
 * replica of redis-server shows loading:1 and answers -LOADING instead. */
START_TEST(replica_serves_old_data_while_loading) {
    srv *m = h_srv_start("--repl-diskless-sync-delay 0");
    redisContext *mc = srv_connect(m);
    expect_status(mc, "OK", "DEBUG POPULATE %d key", NKEYS);
    srv *r = h_srv_start("--repl-diskless-load swapdb " SLOW_LOAD);
    redisContext *rc = srv_connect(r);
    expect_status(rc, "OK", "SET old yes");
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", m->port);
    int ref = srv_is_reference();
    const char *field = ref ? "loading" : "async_loading";
    long long t0 = h_now_ms();
    int seen = 0;
    while (!seen && h_now_ms() - t0 < h_scaled_ms(20000)) {
        char *info = h_info(rc, "persistence");
        seen = info_ll(info, field) == 1;
        if (seen) ck_assert_int_eq(info_ll(info, ref ? "async_loading" : "loading"), 0);
        free(info);
        if (!seen) h_sleep_ms(5);
    }
    ck_assert_msg(seen, "%s:1 never seen", field);
    if (ref) {
        redisReply *g = cmd(rc, "GET old");
        ck_assert(is_loading_error(g));
        freeReplyObject(g);
    } else {
        expect_bulk(rc, "yes", "GET old");
    }
    h_wait_info(rc, "persistence", field, 0, 30000);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 30000);
    expect_int(rc, NKEYS, "DBSIZE");
    expect_nil(rc, "GET old");
    redisFree(rc);
    redisFree(mc);
}
END_TEST

int main(void) {
    Suite *s = suite_create("loading");
    h_add_dropall(s, "rdb", rdb_load_serves_clients, 120);
    h_add_dropall(s, "aof", aof_load_serves_clients, 120);
    h_add_dropall(s, "shutdown", shutdown_while_loading_saves_nothing, 120);
    h_add_dropall(s, "sigterm", sigterm_while_loading_saves_nothing, 120);
    h_add_dropall(s, "replica", replica_serves_old_data_while_loading, 120);
    return h_main(s);
}
