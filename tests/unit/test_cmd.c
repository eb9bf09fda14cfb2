/* Unit tests for cmd's dispatcher: write gates (every registered gate is
 * consulted, however many there are). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static int gate_calls[8];
#define GATE(i) \
    static const char *gate##i(void) { gate_calls[i]++; return NULL; }
GATE(0) GATE(1) GATE(2) GATE(3) GATE(4) GATE(5)
static const char *gate_refuses(void) { gate_calls[6]++; return "ERR gate 7 says no"; }

/* Runs argv on a client and returns its reply text (static). */
static const char *run(client *c, int argc, const char **argv) {
    arg a[8];
    for (int i = 0; i < argc; i++) a[i] = (arg){argv[i], strlen(argv[i])};
    c->argc = argc;
    c->argv = a;
    c->reply.len = 0;
    ck_assert_int_eq(cmd_dispatch(c), CMD_RAN);
    static char out[256];
    snprintf(out, sizeof out, "%.*s", (int)c->reply.len, c->reply.data);
    c->argv = NULL;
    return out;
}

/* Finding 13: write_gates[4] dropped every gate after the fourth. */
START_TEST(test_seven_write_gates) {
    conf_init(&server.cfg);
    cmd_init();
    cmd_add_write_gate(gate0);
    cmd_add_write_gate(gate1);
    cmd_add_write_gate(gate2);
    cmd_add_write_gate(gate3);
    cmd_add_write_gate(gate4);
    cmd_add_write_gate(gate5);
    cmd_add_write_gate(gate_refuses);
    client c;
    memset(&c, 0, sizeof c);
    c.flags = CLIENT_AUTHED;
    const char *set[] = {"SET", "k", "v"};
    ck_assert_str_eq(run(&c, 3, set), "-ERR gate 7 says no\r\n");
    for (int i = 0; i < 7; i++) ck_assert_int_eq(gate_calls[i], 1);
    const char *ping[] = {"PING"};  /* not a write: no gate asked */
    ck_assert_str_eq(run(&c, 1, ping), "+PONG\r\n");
    for (int i = 0; i < 7; i++) ck_assert_int_eq(gate_calls[i], 1);
    vbuf_free(&c.reply);
    conf_free(&server.cfg);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cmd");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_seven_write_gates);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
