/* test_repl_stream: streams through replication: the full sync (the
 * forkless diskless payload, repl/fullsync.c, written by the snapshot's one
 * encoder) and the command stream after it.
 *
 * verso -> verso, verso -> redis-server 7.0 and redis-server 7.0 -> verso:
 * the primary holds streams of every shape (stream_populate: groups, PELs,
 * consumers without pending entries, trims, deletions, an empty stream);
 * after the full sync every stream's DUMP is the primary's byte for byte
 * (both with rdbcompression no: the same encoding, seen-times included);
 * then stream traffic on the primary (stream_traffic: XADD with trims,
 * XREADGROUP, XACK, XCLAIM, XAUTOCLAIM, XGROUP CREATE / SETID / DESTROY /
 * CREATECONSUMER / DELCONSUMER, XSETID, DEL and re-create) reaches the
 * replica: the same entries, groups, consumers and PELs (XINFO STREAM
 * FULL, but the consumers' seen-times: each server sets them when it
 * applies a command; and a group's entries-read and lag, which Redis
 * 7.0's own replicas do not keep: see stream_text.h). */
#include "harness.h"
#include "repl_data.h"
#include "repl_util.h"
#include "stream_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE_ARGS "--repl-diskless-sync-delay 0 --repl-timeout 20 --rdbcompression no"
#define LINK_MS 60000
#define NKEYS 5

static const char *key_name(int i) {
    static char buf[32];
    snprintf(buf, sizeof buf, "p:st:%d", i);
    return buf;
}

/* The primary's streams: made there by its own commands. */
static void fill(redisContext *p) { ck_assert_int_eq(stream_populate(p, "p", 3000), NKEYS); }

static void same_dumps(redisContext *a, redisContext *b) {
    for (int i = 0; i < NKEYS; i++) {
        redisReply *x = cmd(a, "DUMP %s", key_name(i)), *y = cmd(b, "DUMP %s", key_name(i));
        ck_assert_msg(x->type == REDIS_REPLY_STRING && y->type == REDIS_REPLY_STRING,
                      "%s missing", key_name(i));
        ck_assert_msg(x->len == y->len && memcmp(x->str, y->str, x->len) == 0,
                      "%s: the replica's DUMP (%zu bytes) is not the primary's (%zu)", key_name(i),
                      y->len, x->len);
        freeReplyObject(x);
        freeReplyObject(y);
    }
}

static void same_streams(redisContext *a, redisContext *b, int mode) {
    for (int i = 0; i < NKEYS; i++) {
        char *x = stream_text(a, key_name(i), mode);
        char *y = stream_text(b, key_name(i), mode);
        if (strcmp(x, y) != 0) {
            size_t d = 0;
            while (x[d] && x[d] == y[d]) d++;
            ck_abort_msg("%s differs at %zu:\n--- primary %.300s\n--- replica %.300s",
                         key_name(i), d, x + (d > 100 ? d - 100 : 0), y + (d > 100 ? d - 100 : 0));
        }
        free(x);
        free(y);
    }
}

static void run_pair(srv *ps, srv *rs) {
    redisContext *p = srv_connect(ps), *r = srv_connect(rs);
    fill(p);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", ps->port);
    h_wait_info_str(r, "replication", "master_link_status", "up", LINK_MS);
    ru_wait_caught_up(p, r, LINK_MS);
    same_dumps(p, r);
    same_streams(p, r, STREAM_TEXT_ALL);
    /* the command stream after the sync */
    stream_traffic(p, "p", 40);
    ru_wait_caught_up(p, r, LINK_MS);
    same_streams(p, r, STREAM_TEXT_REPLICA);
    ck_assert_int_ge(repl_compare_datasets(p, r), NKEYS);
    redisFree(p);
    redisFree(r);
}

START_TEST(verso_to_verso) { run_pair(h_srv_start(NODE_ARGS), h_srv_start(NODE_ARGS)); }
END_TEST

START_TEST(verso_to_redis) { run_pair(h_srv_start(NODE_ARGS), h_srv_start_redis(NODE_ARGS)); }
END_TEST

START_TEST(redis_to_verso) { run_pair(h_srv_start_redis(NODE_ARGS), h_srv_start(NODE_ARGS)); }
END_TEST

int main(void) {
    Suite *s = suite_create("repl_stream");
    h_add_dropall(s, "verso_to_verso", verso_to_verso, 240);
    h_add_dropall(s, "verso_to_redis", verso_to_redis, 240);
    h_add_dropall(s, "redis_to_verso", redis_to_verso, 240);
    return h_main(s);
}
