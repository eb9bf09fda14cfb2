/* test_nodes_conf: nodes.conf's parser and generator (cluster/nodes_conf.c)
 * on texts in Redis 7.0's format: round trips (slots, ranges, migrations,
 * hostnames, replicas, the vars line), what the parser accepts as Redis
 * does (blank lines, unknown vars, files without @cport, CRLF), and the
 * corrupt inputs it refuses (truncated lines, bad slots, bad ids, bad
 * flags, huge numbers); and the writer thread: saves queued one after the
 * other end with the newest text on disk, their done callbacks run on the
 * loop in order, a failed write says so, cl_conf_save_now writes at once. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "cluster_int.h"
#include "server.h"
#include "vbuf.h"

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define ID_C "cccccccccccccccccccccccccccccccccccccccc"
#define CORRUPT "Unrecoverable error: corrupted cluster config file."

static int parse(const char *text) {
    cl_state_clear();
    char err[256] = "";
    int rc = cl_conf_parse(text, strlen(text), err, sizeof err);
    if (rc != 0) ck_assert_str_eq(err, CORRUPT);
    return rc;
}

static char *generate(void) {
    vbuf b;
    vbuf_init(&b);
    cl_conf_text(&b);
    vbuf_append(&b, "", 1);
    return b.data;
}

static void round_trip(const char *text) {
    ck_assert_msg(parse(text) == 0, "refused:\n%s", text);
    char *out = generate();
    size_t i = 0;
    while (out[i] && out[i] == text[i]) i++;
    ck_assert_msg(out[i] == text[i], "differs at %zu: got '%.60s' want '%.60s'", i, out + i,
                  text + i);
    free(out);
}

START_TEST(round_trips) {
    round_trip(ID_A " :7000@17000 myself,master - 0 0 0 connected\n"
                    "vars currentEpoch 0 lastVoteEpoch 0\n");
    round_trip(ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 2 connected 0 2-4 100 16383 [5->-" ID_B
                    "] [9000-<-" ID_B "]\n" ID_B
                    " 10.0.0.2:7001@17001,host-b.example master - 0 0 1 disconnected 8192-16382\n" ID_C
                    " 10.0.0.3:7002@17002 slave,fail? " ID_B " 0 0 1 disconnected\n"
                    "vars currentEpoch 3 lastVoteEpoch 18446744073709551615\n");
    /* the node table */
    ck_assert_int_eq(cl.numnodes, 3);
    cluster_node *b = cl_node_lookup(ID_B, 40), *c = cl_node_lookup(ID_C, 40);
    ck_assert_ptr_eq(cl.myself, cl_node_lookup(ID_A, 40));
    ck_assert_ptr_eq(c->primary, b);
    ck_assert_int_eq(b->numreplicas, 1);
    ck_assert_uint_eq(c->config_epoch, 0); /* its line carries its primary's */
    ck_assert_uint_eq(b->config_epoch, 1);
    ck_assert_str_eq(b->hostname, "host-b.example");
    ck_assert_int_eq(b->cport, 17001);
    ck_assert_int_eq(b->numslots, 8191);
    ck_assert_ptr_eq(cl.slots[16383], cl.myself);
    ck_assert_ptr_eq(cl.migrating_to[5], b);
    ck_assert_ptr_eq(cl.importing_from[9000], b);
    ck_assert_uint_eq(cl.last_vote_epoch, 18446744073709551615ull);
    ck_assert(c->flags & CL_NODE_PFAIL);
    /* handshake nodes are not saved */
    b->flags |= CL_NODE_HANDSHAKE;
    char *out = generate();
    ck_assert_ptr_null(strstr(out, ID_B " 10.0.0.2"));
    free(out);
    cl_state_clear();
}
END_TEST

START_TEST(accepted_as_redis) {
    /* blank lines, an unknown variable, CRLF, no @cport (older files),
     * ping/pong times (reset to now), noflags, a replica's epoch */
    ck_assert_int_eq(parse("\n" ID_A " 127.0.0.1:7000 myself,master - 0 0 5 connected 1-2\r\n\n" ID_B
                           " 127.0.0.1:7001@1 noflags - 1700000000000 1700000000001 7 connected\n"
                           "vars currentEpoch 1 lastVoteEpoch 1 someVar x\n"),
                     0);
    ck_assert_int_eq(cl.myself->cport, 17000);
    ck_assert_int_eq(cl.myself->numslots, 2);
    cluster_node *b = cl_node_lookup(ID_B, 40);
    ck_assert(b->ping_sent > 0 && b->pong_received > 0);
    /* currentEpoch is raised to the largest config epoch */
    ck_assert_uint_eq(cl.current_epoch, 7);
    /* a slot claimed twice stays with the first; a reversed range is empty */
    ck_assert_int_eq(parse(ID_A " :1@2 myself,master - 0 0 0 connected 5 9-3\n" ID_B
                           " :3@4 master - 0 0 0 connected 5-6\n"),
                     0);
    ck_assert_ptr_eq(cl.slots[5], cl.myself);
    ck_assert_int_eq(cl.myself->numslots, 1);
    ck_assert_ptr_eq(cl.slots[6], cl_node_lookup(ID_B, 40));
    cl_state_clear();
}
END_TEST

START_TEST(corrupt_inputs) {
    static const char *const bad[] = {
        "garbage\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0\n",           /* truncated */
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0\n",         /* 7 fields */
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 16384\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 1-16384\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected -1\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected x\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected 99999999999999999999999\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [16384->-" ID_B "]\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [5->-abc]\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [5->-" ID_B "\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [5]\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected [5-x-" ID_B "]\n",
        "ABCDEF 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n",
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n",
        ID_A " 127.0.0.1@17000 myself,master - 0 0 0 connected\n",     /* no port */
        ID_A " 127.0.0.1:70000@17000 myself,master - 0 0 0 connected\n",
        ID_A " 127.0.0.1:7000@x myself,master - 0 0 0 connected\n",
        ID_A " 1234567890123456789012345678901234567890123456789:1@2 myself,master - 0 0 0 connected\n",
        ID_A " 127.0.0.1:7000@17000 master - 0 0 0 connected\n",       /* no myself */
        /* myself in handshake: never saved back, so the next load would
         * have no myself (found by fuzz_nodes_conf) */
        ID_A " 127.0.0.1:7000@17000 myself,master,handshake - 0 0 0 connected\n",
        ID_A " 127.0.0.1:7000@17000 myself,master bad 0 0 0 connected\n",
        ID_A " 127.0.0.1:7000@17000 myself,master " ID_A " 0 0 0 connected\n", /* its own primary */
        ID_A " 127.0.0.1:7000@17000 myself,wizard - 0 0 0 connected\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 0 maybe\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - 0 0 184467440737095516160 connected\n",
        ID_A " 127.0.0.1:7000@17000 myself,master - x 0 0 connected\n",
        ID_A " :1@2 myself,master - 0 0 0 connected\n" ID_B " :1@2 myself,master - 0 0 0 connected\n",
        ID_A " :1@2 myself,master - 0 0 0 connected\nvars currentEpoch\n",
        ID_A " :1@2 myself,master - 0 0 0 connected\nvars currentEpoch -1\n",
        ID_A " :1@2 myself,master - 0 0 0 connected\nvars currentEpoch 99999999999999999999\n",
        "vars currentEpoch 1 lastVoteEpoch 1\n",                     /* no node */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(parse(bad[i]) == -1, "accepted:\n%s", bad[i]);
    cl_state_clear();
}
END_TEST

START_TEST(long_lines) {
    /* every other slot: 8192 single slots on one line, and a migration for
     * each of the others */
    vbuf b;
    vbuf_init(&b);
    vbuf_append_str(&b, ID_A " :1@2 myself,master - 0 0 0 connected");
    for (int s = 0; s < KEYSLOT_COUNT; s += 2) vbuf_appendf(&b, " %d", s);
    for (int s = 1; s < KEYSLOT_COUNT; s += 2) vbuf_appendf(&b, " [%d-<-" ID_B "]", s);
    vbuf_append_str(&b, "\n" ID_B " :3@4 master - 0 0 0 disconnected\nvars currentEpoch 0 lastVoteEpoch 0\n");
    vbuf_append(&b, "", 1);
    round_trip(b.data);
    ck_assert_int_eq(cl.myself->numslots, KEYSLOT_COUNT / 2);
    vbuf_free(&b);
    cl_state_clear();
}
END_TEST

/* ---- the writer ---- */

static int done_order[8], ndone, done_ok[8];

static void on_done(void *priv, int ok) {
    done_order[ndone] = (int)(long)priv;
    done_ok[ndone++] = ok;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

static void run_until(int n) {
    for (int i = 0; i < 5000 && ndone < n; i++) {
        uv_run(server.loop, UV_RUN_NOWAIT);
        usleep(1000);
    }
    ck_assert_int_eq(ndone, n);
}

static void never(uv_timer_t *t) { (void)t; }

START_TEST(writer) {
    char dir[] = "/tmp/verso-nodes-conf.XXXXXX", path[64], tmp[80];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/nodes.conf", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    server.loop = uv_default_loop();
    uv_timer_t keep; /* a referenced handle, as the server's listeners: the loop runs */
    uv_timer_init(server.loop, &keep);
    ck_assert_int_eq(uv_timer_start(&keep, never, 1000000, 0), 0);
    server.cfg.port = 7000;
    cl_state_clear();
    char err[256];
    ck_assert_int_eq(cl_conf_load(path, err, sizeof err), 1); /* a new node, saved */
    char want[128];
    snprintf(want, sizeof want, "%.40s :7000@17000 myself,master - 0 0 0 connected\n", cl.myself->name);
    ck_assert_ptr_nonnull(strstr(slurp(path), want));
    /* three saves: the last text is on disk, every callback ran, in order */
    cl_slot_add(cl.myself, 1);
    cl_conf_save(1, on_done, (void *)1L);
    cl_slot_add(cl.myself, 2);
    cl_conf_save(0, on_done, (void *)2L);
    cl_slot_add(cl.myself, 3);
    cl.current_epoch = 9;
    cl_conf_save(1, on_done, (void *)3L);
    cl_conf_save(1, NULL, NULL);
    run_until(3);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(done_order[i], i + 1);
        ck_assert_int_eq(done_ok[i], 1);
    }
    usleep(200000); /* the last save (no callback) */
    snprintf(want, sizeof want, "myself,master - 0 0 0 connected 1-3\nvars currentEpoch 9 lastVoteEpoch 0\n");
    ck_assert_ptr_nonnull(strstr(slurp(path), want));
    ck_assert_int_eq(access(tmp, F_OK), -1);
    /* the synchronous save */
    cl_slot_add(cl.myself, 4);
    ck_assert_int_eq(cl_conf_save_now(err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(slurp(path), " connected 1-4\n"));
    /* a write that fails: the temporary file cannot be created */
    ck_assert_int_eq(mkdir(tmp, 0700), 0);
    char sub[100];
    snprintf(sub, sizeof sub, "%s/x", tmp);
    FILE *f = fopen(sub, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    cl_slot_add(cl.myself, 5);
    cl_conf_save(1, on_done, (void *)4L);
    run_until(4);
    ck_assert_int_eq(done_order[3], 4);
    ck_assert_int_eq(done_ok[3], 0);
    ck_assert_int_eq(cl_conf_save_now(err, sizeof err), -1);
    ck_assert_str_eq(err, "Is a directory");
    ck_assert_ptr_nonnull(strstr(slurp(path), " connected 1-4\n")); /* untouched */
    cl_conf_shutdown();
    uv_timer_stop(&keep);
    unlink(sub);
    rmdir(tmp);
    unlink(path);
    rmdir(dir);
    cl_state_clear();
}
END_TEST

/* The node table's index by name: found after adds, gone after a delete,
 * moved by a rename, and right through the growth of the table (2000
 * nodes: several rebuilds). */
START_TEST(node_index) {
    cl_state_clear();
    enum { N = 2000 };
    static cluster_node *made[N];
    for (int i = 0; i < N; i++) {
        char name[CL_NAMELEN + 1];
        snprintf(name, sizeof name, "%040d", i);
        made[i] = cl_node_new(name, CL_NODE_PRIMARY);
        cl_node_add(made[i]);
    }
    cl.myself = made[0];
    for (int i = 0; i < N; i++) ck_assert_ptr_eq(cl_node_lookup(made[i]->name, CL_NAMELEN), made[i]);
    ck_assert_ptr_null(cl_node_lookup(ID_A, CL_NAMELEN));
    ck_assert_ptr_null(cl_node_lookup(made[1]->name, CL_NAMELEN - 1));
    char gone[CL_NAMELEN];
    memcpy(gone, made[7]->name, CL_NAMELEN);
    cl_node_delete(made[7]);
    ck_assert_ptr_null(cl_node_lookup(gone, CL_NAMELEN));
    ck_assert_ptr_eq(cl_node_lookup(made[8]->name, CL_NAMELEN), made[8]);
    char old[CL_NAMELEN];
    memcpy(old, made[9]->name, CL_NAMELEN);
    cl_node_rename(made[9], ID_B);
    ck_assert_ptr_null(cl_node_lookup(old, CL_NAMELEN));
    ck_assert_ptr_eq(cl_node_lookup(ID_B, CL_NAMELEN), made[9]);
    for (int i = 10; i < N; i++) ck_assert_ptr_eq(cl_node_lookup(made[i]->name, CL_NAMELEN), made[i]);
    cl_state_clear();
}
END_TEST

int main(void) {
    Suite *s = suite_create("nodes_conf");
    TCase *tc = tcase_create("nodes_conf");
    tcase_add_test(tc, round_trips);
    tcase_add_test(tc, accepted_as_redis);
    tcase_add_test(tc, corrupt_inputs);
    tcase_add_test(tc, long_lines);
    tcase_add_test(tc, writer);
    tcase_add_test(tc, node_index);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
