/* test_cluster_conf_save: when nodes.conf is fsynced (cluster/nodes_conf.c),
 * on a disk made slow by the fsyncdelay shim (every fsync takes
 * FSYNC_MS). As Redis 7.0 (clusterSaveConfig(do_fsync)): a change of slots
 * (ADDSLOTS, DELSLOTS, SETSLOT: five saves per slot of a reshard) is
 * written without fsync, so nodes.conf shows it well before an fsync could
 * have ended; a new config epoch (BUMPEPOCH) is fsynced before the file is
 * renamed into place, so it shows only after an fsync (verso: Redis writes
 * in place and fsyncs after), and the loop answers meanwhile. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define FSYNC_MS 600

static srv *start_node(void) {
    char us[32];
    snprintf(us, sizeof us, "%d", FSYNC_MS * 1000);
    setenv("FSYNC_DELAY_US", us, 1);
    h_preload_on(VERSO_FSYNC_SHIM);
    srv *s = h_srv_start("--cluster-enabled yes");
    static const char *const vars[] = {"FSYNC_DELAY_US", NULL};
    h_preload_off(vars);
    return s;
}

/* myself's line of nodes.conf ("" when there is none yet), in buf. */
static const char *my_line(const srv *s, char *buf, size_t cap) {
    char path[2200];
    snprintf(path, sizeof path, "%s/nodes.conf", s->dir);
    size_t len;
    char *text = h_slurp(path, &len, 0);
    buf[0] = '\0';
    for (char *line = text ? strtok(text, "\n") : NULL; line; line = strtok(NULL, "\n"))
        if (strstr(line, "myself")) snprintf(buf, cap, "%s", line);
    free(text);
    return buf;
}

/* ms until myself's line of nodes.conf ends with tail (the slots); fails
 * after timeout_ms. */
static long long ms_until_slots(const srv *s, const char *tail, int timeout_ms) {
    long long t0 = h_now_ms();
    char line[4096];
    for (;;) {
        my_line(s, line, sizeof line);
        size_t n = strlen(line), t = strlen(tail);
        if (n >= t && !strcmp(line + n - t, tail)) return h_now_ms() - t0;
        ck_assert_msg(h_now_ms() - t0 < timeout_ms, "nodes.conf: myself's line is '%s', not "
                                                    "ending '%s'", line, tail);
        h_sleep_ms(2);
    }
}

/* The config epoch of myself's line (its 7th field). */
static long long my_epoch(const srv *s) {
    char line[4096];
    my_line(s, line, sizeof line);
    long long epoch = -1;
    char *p = line;
    for (int field = 0; field < 6 && p; field++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    if (p) epoch = strtoll(p, NULL, 10);
    return epoch;
}

START_TEST(slot_changes_not_fsynced) {
    srv *s = start_node();
    redisContext *c = srv_connect(s);
    /* each change shows long before an fsync could have ended */
    expect_status(c, "OK", "CLUSTER ADDSLOTS 100");
    long long ms = ms_until_slots(s, " 100", h_scaled_ms(10 * FSYNC_MS));
    ck_assert_msg(ms < FSYNC_MS / 2, "ADDSLOTS reached nodes.conf after %lld ms", ms);
    expect_status(c, "OK", "CLUSTER ADDSLOTS 101 102");
    expect_status(c, "OK", "CLUSTER DELSLOTS 100");
    ms = ms_until_slots(s, " 101-102", h_scaled_ms(10 * FSYNC_MS));
    ck_assert_msg(ms < FSYNC_MS / 2, "DELSLOTS reached nodes.conf after %lld ms", ms);
    /* a run of SETSLOTs (a reshard's) does not queue behind fsyncs */
    char id[64];
    redisReply *r = cmd(c, "CLUSTER MYID");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    snprintf(id, sizeof id, "%s", r->str);
    freeReplyObject(r);
    long long t0 = h_now_ms();
    for (int slot = 200; slot < 220; slot++)
        expect_status(c, "OK", "CLUSTER SETSLOT %d NODE %s", slot, id);
    ms = ms_until_slots(s, " 101-102 200-219", h_scaled_ms(40 * FSYNC_MS));
    ck_assert_msg(h_now_ms() - t0 < FSYNC_MS, "20 SETSLOTs reached nodes.conf after %lld ms",
                  h_now_ms() - t0);
    redisFree(c);
}
END_TEST

START_TEST(new_epoch_fsynced) {
    srv *s = start_node();
    redisContext *c = srv_connect(s);
    ms_until_slots(s, "connected", h_scaled_ms(10 * FSYNC_MS)); /* the first save */
    h_sleep_ms(3 * FSYNC_MS); /* ... and its fsyncs, if any, are over */
    ck_assert_int_eq(my_epoch(s), 0);
    redisReply *r = cmd(c, "CLUSTER BUMPEPOCH");
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    ck_assert_str_eq(r->str, "BUMPED 1");
    freeReplyObject(r);
    long long t0 = h_now_ms();
    if (!srv_is_reference()) {
        /* not renamed into place before its fsync; the loop answers */
        h_sleep_ms(FSYNC_MS / 3);
        ck_assert_int_eq(my_epoch(s), 0);
        expect_status(c, "PONG", "PING");
        ck_assert_msg(h_now_ms() - t0 < FSYNC_MS, "PING waited for the fsync");
    }
    while (my_epoch(s) != 1) {
        ck_assert_msg(h_now_ms() - t0 < h_scaled_ms(10 * FSYNC_MS), "epoch 1 never saved");
        h_sleep_ms(5);
    }
    redisFree(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cluster_conf_save");
    h_add_dropall(s, "slot_changes_not_fsynced", slot_changes_not_fsynced, 60);
    h_add_dropall(s, "new_epoch_fsynced", new_epoch_fsynced, 60);
    return h_main(s);
}
