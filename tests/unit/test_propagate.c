/* Unit tests for the core's extension points: the propagation path
 * (propagate.h) fans every change out to each registered consumer, and the
 * subsystem hooks (hooks.h) are called by the dispatcher and the keyspace.
 * Commands run through the real dispatcher on an in-process keyspace. */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "db.h"
#include "hooks.h"
#include "multi.h"
#include "propagate.h"
#include "inproc.h"
#include "util.h"

/* A consumer that records what reached it, as "db:ARG ARG ...", and the
 * definition that came with each command. */
typedef struct recorder {
    char log[16][128];
    const cmd_def *def[16];
    int n;
} recorder;

static void record(void *priv, int dbid, const cmd_def *d, int argc, const arg *argv) {
    recorder *r = priv;
    ck_assert_int_lt(r->n, 16);
    /* every command comes with the definition its argv names */
    ck_assert_ptr_nonnull(d);
    ck_assert_ptr_eq(d, cmd_lookup_argv(argc, argv, NULL));
    r->def[r->n] = d;
    char *p = r->log[r->n++];
    size_t off = (size_t)snprintf(p, 128, "%d:", dbid);
    for (int i = 0; i < argc && off < 128; i++)
        off += (size_t)snprintf(p + off, 128 - off, "%s%.*s", i ? " " : "", (int)argv[i].len,
                                argv[i].p);
}

/* Runs one command given as words; returns cmd_dispatch's result. */
static int run(client *c, const char *words) { return inproc_dispatch(c, words); }

START_TEST(test_fan_out_to_every_consumer) {
    inproc_init();
    recorder a = {0}, b = {0};
    client *c = inproc_client();
    ck_assert(!prop_active());
    run(c, "SET k1 v"); /* no consumer: nothing to record, nothing breaks */
    prop_add(record, &a);
    prop_add(record, &b);
    ck_assert(prop_active());
    run(c, "SET k2 v");
    run(c, "GET k2");        /* a read propagates nothing */
    run(c, "DEL missing");   /* a write that changed nothing neither */
    c->db = 3;
    run(c, "INCR n");
    ck_assert_int_eq(a.n, 2);
    ck_assert_int_eq(b.n, 2);
    ck_assert_str_eq(a.log[0], "0:SET k2 v");
    ck_assert_str_eq(a.log[1], "3:INCR n");
    ck_assert_str_eq(b.log[1], "3:INCR n");
    /* A handler's replacement form reaches every consumer instead of the
     * original: a relative expiry becomes absolute. */
    run(c, "EXPIRE n 100");
    ck_assert_int_eq(a.n, 3);
    ck_assert(strncmp(a.log[2], "3:PEXPIREAT n ", 14) == 0);
    ck_assert_str_eq(a.log[2], b.log[2]);
    /* each with its own definition: the one dispatched, the replacement's */
    ck_assert_str_eq(a.def[0]->fullname, "set");
    ck_assert_str_eq(a.def[1]->fullname, "incr");
    ck_assert_str_eq(a.def[2]->fullname, "pexpireat");
    ck_assert_ptr_eq(a.def[2], b.def[2]);
    /* Removing one leaves the other. */
    prop_remove(record, &a);
    run(c, "SET k3 v");
    ck_assert_int_eq(a.n, 3);
    ck_assert_int_eq(b.n, 4);
    prop_remove(record, &b);
    ck_assert(!prop_active());
    inproc_client_free(c);
}
END_TEST

/* A transaction, and a command that propagates several, reach the
 * consumers as one block wrapped in MULTI/EXEC (Redis 7.0: only when the
 * block holds more than one command). */
START_TEST(test_batches_wrapped) {
    inproc_init();
    recorder a = {0};
    client *c = inproc_client();
    prop_add(record, &a);
    run(c, "MULTI");
    run(c, "SET a 1");
    run(c, "SELECT 2");
    run(c, "INCR n");
    run(c, "GET a");
    ck_assert_int_eq(a.n, 0); /* queued: nothing ran yet */
    run(c, "EXEC");
    ck_assert_int_eq(a.n, 4);
    ck_assert_str_eq(a.log[0], "0:MULTI");
    ck_assert_str_eq(a.log[1], "0:SET a 1");
    ck_assert_str_eq(a.log[2], "2:INCR n");
    ck_assert_str_eq(a.log[3], "2:EXEC");
    /* read-only: nothing; one write: not wrapped; aborted: nothing */
    run(c, "MULTI");
    run(c, "GET a");
    run(c, "EXEC");
    ck_assert_int_eq(a.n, 4);
    run(c, "MULTI");
    run(c, "SET b 1");
    run(c, "GET b");
    run(c, "EXEC");
    ck_assert_int_eq(a.n, 5);
    ck_assert_str_eq(a.log[4], "2:SET b 1");
    run(c, "MULTI");
    run(c, "SET b 2");
    run(c, "NOSUCH");
    run(c, "EXEC");
    ck_assert(memmem(c->reply.data, c->reply.len, "EXECABORT", 9) != NULL);
    ck_assert_int_eq(a.n, 5);
    /* lazy expiry inside a write: its DEL and the write go together */
    run(c, "SET e v PX 1");
    ck_assert_int_eq(a.n, 6);
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, NULL);
    run(c, "SET e w");
    ck_assert_int_eq(a.n, 10);
    ck_assert_str_eq(a.log[6], "2:MULTI");
    ck_assert_str_eq(a.log[7], "2:DEL e");
    ck_assert_str_eq(a.log[8], "2:SET e w");
    ck_assert_str_eq(a.log[9], "2:EXEC");
    ck_assert_str_eq(a.def[6]->fullname, "multi");
    ck_assert_str_eq(a.def[7]->fullname, "del");
    ck_assert_str_eq(a.def[9]->fullname, "exec");
    prop_remove(record, &a);
    multi_client_free(c);
    inproc_client_free(c);
}
END_TEST

/* A message (PUBLISH) reaches consumers of everything, not those of data
 * only (the AOF); in a transaction each gets what it takes, wrapped when
 * that is more than one command. */
START_TEST(test_messages_skip_data_consumers) {
    inproc_init();
    recorder all = {0}, data = {0};
    client *c = inproc_client();
    prop_add(record, &all);
    prop_add_data(record, &data);
    run(c, "PUBLISH ch hello");
    ck_assert_int_eq(all.n, 1);
    ck_assert_str_eq(all.log[0], "0:PUBLISH ch hello");
    ck_assert_int_eq(data.n, 0);
    run(c, "MULTI");
    run(c, "SET k 1");
    run(c, "PUBLISH ch x");
    run(c, "EXEC");
    ck_assert_int_eq(all.n, 5);
    ck_assert_str_eq(all.log[1], "0:MULTI");
    ck_assert_str_eq(all.log[3], "0:PUBLISH ch x");
    ck_assert_str_eq(all.log[4], "0:EXEC");
    ck_assert_int_eq(data.n, 1); /* the SET alone, not wrapped */
    ck_assert_str_eq(data.log[0], "0:SET k 1");
    run(c, "MULTI");
    run(c, "PUBLISH ch y");
    run(c, "PUBLISH ch z");
    run(c, "EXEC");
    ck_assert_int_eq(all.n, 9);
    ck_assert_int_eq(data.n, 1); /* only messages: nothing, no empty MULTI/EXEC */
    prop_remove(record, &all);
    prop_remove(record, &data);
    inproc_client_free(c);
}
END_TEST

/* ---- hooks ---- */

static int after_calls, kept, flushed_all;
static int park_writes;

static int before_command(client *c, const cmd_def *d) {
    (void)c;
    return park_writes && (d->flags & CMD_WRITE);
}
static void after_command(client *c, const cmd_def *d) {
    (void)c;
    (void)d;
    after_calls++;
}
static int keep_table(vt *t) {
    vt_free(t); /* "later", for the test: now */
    kept++;
    return 1;
}
static void after_flush(int all) { flushed_all += all; }
static void info_fields(const char *section, vbuf *b) {
    if (!strcmp(section, "persistence")) vbuf_append(b, "test_field:1\r\n", 14);
}

static const hooks test_hooks = {
    .name = "test",
    .before_command = before_command,
    .after_command = after_command,
    .keep_retired_table = keep_table,
    .after_flush = after_flush,
    .info = info_fields,
};

START_TEST(test_hooks_called_by_the_core) {
    inproc_init();
    hooks_register(&test_hooks);
    client *c = inproc_client();
    park_writes = 1;
    ck_assert_int_eq(run(c, "SET parked v"), CMD_PARKED);
    ck_assert_int_eq(run(c, "GET parked"), CMD_RAN);
    ck_assert_int_eq(after_calls, 1); /* GET ran; the parked SET did not */
    park_writes = 0;
    /* refused by the checks (arity, unknown): no after_command */
    ck_assert_int_eq(run(c, "GET"), CMD_RAN);
    ck_assert_int_eq(run(c, "SET k"), CMD_RAN);
    ck_assert_int_eq(run(c, "NOSUCH k"), CMD_RAN);
    ck_assert_int_eq(after_calls, 1);
    ck_assert_int_eq(run(c, "SET parked v"), CMD_RAN);
    ck_assert_int_eq(run(c, "FLUSHALL"), CMD_RAN);
    ck_assert_int_eq(kept, server.cfg.databases); /* every replaced table offered */
    ck_assert_int_eq(flushed_all, 1);
    ck_assert_int_eq(run(c, "INFO persistence"), CMD_RAN);
    ck_assert(memmem(c->reply.data, c->reply.len, "test_field:1\r\n", 14) != NULL);
    inproc_client_free(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("propagate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_fan_out_to_every_consumer);
    tcase_add_test(tc, test_batches_wrapped);
    tcase_add_test(tc, test_messages_skip_data_consumers);
    tcase_add_test(tc, test_hooks_called_by_the_core);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
