/* Unit tests for notify.h: the consumer list (every registered consumer
 * gets every event, in registration order, whatever notify-keyspace-events
 * says; unregistering removes exactly one), the events commands send when
 * run through the real dispatcher on an in-process keyspace, and the
 * notify-keyspace-events parse/format pair. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "inproc.h"
#include "notify.h"

/* A consumer that records "type:event:key@db". */
typedef struct recorder {
    char log[32][96];
    int n;
    int id;
} recorder;

static int order[64], norder;

static void record(void *priv, int type, const char *event, const char *key, size_t keylen,
                   int dbid) {
    recorder *r = priv;
    ck_assert_int_lt(r->n, 32);
    snprintf(r->log[r->n++], 96, "%d:%s:%.*s@%d", type, event, (int)keylen, key, dbid);
    if (norder < 64) order[norder++] = r->id;
}

START_TEST(test_consumers) {
    inproc_init();
    server.cfg.notify_keyspace_events = 0; /* consumers filter themselves */
    recorder a = {.id = 1}, b = {.id = 2};
    notify_register(record, &a);
    notify_register(record, &b);
    client *c = inproc_client();
    norder = 0;
    inproc_dispatch(c, "SET k v");
    c->db = 2;
    inproc_dispatch(c, "RPUSH l x");
    inproc_dispatch(c, "GET nosuch");
    ck_assert_int_eq(a.n, 5);
    ck_assert_str_eq(a.log[0], "16384:new:k@0");
    ck_assert_str_eq(a.log[1], "8:set:k@0");
    ck_assert_str_eq(a.log[2], "16384:new:l@2");
    ck_assert_str_eq(a.log[3], "16:rpush:l@2");
    ck_assert_str_eq(a.log[4], "2048:keymiss:nosuch@2");
    ck_assert_int_eq(b.n, 5);
    for (int i = 0; i < norder; i++) ck_assert_int_eq(order[i], 1 + i % 2);
    /* removing one leaves the other */
    ck_assert_int_eq(notify_unregister(record, &a), 1);
    ck_assert_int_eq(notify_unregister(record, &a), 0);
    inproc_dispatch(c, "DEL l");
    ck_assert_int_eq(a.n, 5);
    ck_assert_int_eq(b.n, 6);
    ck_assert_str_eq(b.log[5], "4:del:l@2");
    ck_assert_int_eq(notify_unregister(record, &b), 1);
    inproc_client_free(c);
}
END_TEST

START_TEST(test_flags) {
    char buf[32];
    static const struct { const char *in, *out; } cases[] = {
        {"KEA", "AKE"},  {"Elg", "glE"}, {"g$lshzxetd", "A"}, {"KEmn", "nKEm"},
        {"KEAn", "AKE"}, {"", ""},       {"x", "x"},          {"AKEm", "AKEm"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int f = notify_flags_parse(cases[i].in, strlen(cases[i].in));
        ck_assert_int_ge(f, 0);
        notify_flags_format(f, buf);
        ck_assert_str_eq(buf, cases[i].out);
    }
    ck_assert_int_eq(notify_flags_parse("KEAn", 4) & NOTIFY_NEW, NOTIFY_NEW);
    ck_assert_int_eq(notify_flags_parse("KQ", 2), -1);
    ck_assert_int_eq(notify_flags_parse("A", 1) & (NOTIFY_NEW | NOTIFY_KEY_MISS), 0);
}
END_TEST

int main(void) {
    Suite *s = suite_create("notify");
    TCase *tc = tcase_create("notify");
    tcase_add_test(tc, test_consumers);
    tcase_add_test(tc, test_flags);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
