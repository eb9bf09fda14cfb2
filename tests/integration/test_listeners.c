/* test_listeners: CONFIG SET bind at runtime, as Redis 7.0's changeBindAddr
 * (src/listen.c): the new addresses listen and the old ones stop, connected
 * clients stay, several addresses, optional ("-addr") ones, "*" and "",
 * the TLS listeners moved with the plain ones; an address that cannot be
 * bound (not on this host, invalid, in use) is refused with Redis's text
 * and every listener stays as it was; CONFIG GET and CONFIG REWRITE show
 * the new value. 127.0.0.2 and 127.0.0.3 are loopback addresses on Linux;
 * ::1 is used when this host has it. Every case also runs against
 * redis-server (VERSO_SERVER=/usr/bin/redis-server). */
#include "harness.h"
#include "tls_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BIND_FAILED "ERR CONFIG SET failed (possibly related to argument 'bind') - " \
                    "Failed to bind to specified addresses."
/* Not an address of this host (TEST-NET-3), unless bindable() says it is. */
#define FOREIGN "203.0.113.1"

/* Whether ip is an address of this host. */
static int bindable(const char *ip) {
    int fd = h_listen_on(ip, 0);
    if (fd >= 0) close(fd);
    return fd >= 0;
}

static void expect_bind(redisContext *c, const char *want) {
    redisReply *r = expect_array(c, 2, "CONFIG GET bind");
    check_bulk(r->element[1], want);
    freeReplyObject(r);
}

static void ping_at(const char *ip, int port) {
    redisContext *c = redisConnect(ip, port);
    ck_assert_msg(c && !c->err, "connect %s:%d: %s", ip, port, c ? c->errstr : "?");
    expect_status(c, "PONG", "PING");
    redisFree(c);
}

/* Several addresses, then others: the new ones accept, the old ones stop,
 * the client connected meanwhile stays. */
START_TEST(bind_moves)
{
    int port = h_srv->port;
    expect_status(h_c, "OK", "CONFIG SET bind %s", "127.0.0.1 127.0.0.2");
    expect_bind(h_c, "127.0.0.1 127.0.0.2");
    ck_assert(h_accepts("127.0.0.1", port));
    ping_at("127.0.0.2", port);
    const char *other = bindable("::1") ? "::1 127.0.0.2" : "127.0.0.2";
    expect_status(h_c, "OK", "CONFIG SET bind %s", other);
    expect_bind(h_c, other);
    ck_assert(!h_accepts("127.0.0.1", port));
    ping_at("127.0.0.2", port);
    if (bindable("::1")) ping_at("::1", port);
    expect_status(h_c, "PONG", "PING"); /* connected through the old address */
    expect_status(h_c, "OK", "CONFIG SET bind 127.0.0.1");
    ck_assert(h_accepts("127.0.0.1", port));
    ck_assert(!h_accepts("127.0.0.2", port));
    if (bindable("::1")) ck_assert(!h_accepts("::1", port));
}
END_TEST

/* A bind that fails changes nothing: the address of no interface, an
 * invalid one, one in use, the same one twice. */
START_TEST(bind_failure_keeps_old)
{
    int port = h_srv->port;
    if (!bindable(FOREIGN)) {
        expect_error(h_c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.1 " FOREIGN);
        expect_bind(h_c, "127.0.0.1");
        ping_at("127.0.0.1", port);
        ck_assert(srv_log_wait(h_srv, "Failed applying new configuration. Possibly related "
                                      "to new bind setting. Restoring previous settings.",
                               5000));
        /* optional: skipped */
        expect_status(h_c, "OK", "CONFIG SET bind %s", "127.0.0.1 -" FOREIGN);
        expect_bind(h_c, "127.0.0.1 -" FOREIGN);
        ping_at("127.0.0.1", port);
        expect_status(h_c, "OK", "CONFIG SET bind 127.0.0.1");
    }
    /* the address that did open closes again */
    expect_error(h_c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.2 999.999.999.999");
    ck_assert(!h_accepts("127.0.0.2", port));
    ping_at("127.0.0.1", port);
    int fd = h_listen_on("127.0.0.2", port);
    ck_assert_int_ge(fd, 0);
    expect_error(h_c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.1 127.0.0.2");
    close(fd);
    expect_error(h_c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.1 127.0.0.1");
    expect_bind(h_c, "127.0.0.1");
    ping_at("127.0.0.1", port);
    ck_assert(!h_accepts("127.0.0.2", port));
    expect_status(h_c, "PONG", "PING");
}
END_TEST

/* "*" (every IPv4 address, which Linux will not bind beside 127.0.0.1 on
 * the same port) and back; "" listens nowhere, the clients stay. */
START_TEST(bind_wildcard_and_none)
{
    int port = h_srv->port;
    expect_status(h_c, "OK", "CONFIG SET bind *");
    expect_bind(h_c, "*");
    ping_at("127.0.0.1", port);
    ping_at("127.0.0.3", port);
    if (!bindable(FOREIGN)) { /* the wildcard closed for 127.0.0.1, then back */
        expect_error(h_c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.1 " FOREIGN);
        expect_bind(h_c, "*");
        ping_at("127.0.0.3", port);
        ping_at("127.0.0.1", port);
    }
    expect_status(h_c, "OK", "CONFIG SET bind 127.0.0.1");
    ping_at("127.0.0.1", port);
    ck_assert(!h_accepts("127.0.0.3", port));
    expect_status(h_c, "OK", "CONFIG SET bind %s", "");
    expect_bind(h_c, "");
    ck_assert(!h_accepts("127.0.0.1", port));
    expect_status(h_c, "PONG", "PING");
    expect_status(h_c, "OK", "CONFIG SET bind 127.0.0.1");
    ping_at("127.0.0.1", port);
}
END_TEST

/* CONFIG REWRITE writes the new addresses. */
START_TEST(bind_rewritten)
{
    srv *s = h_srv_start_conf(0, "bind 127.0.0.1\n", NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET bind %s", "127.0.0.1 -127.0.0.2");
    expect_status(c, "OK", "CONFIG REWRITE");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    ck_assert_msg(h_has_line(text, "bind 127.0.0.1 -127.0.0.2"), "rewritten:\n%s", text);
    free(text);
    redisFree(c);
}
END_TEST

/* With tls-port the TLS listeners move too, and stay TLS; a TLS address in
 * use refuses the whole change, plain listeners included. */
START_TEST(bind_moves_tls)
{
    int tp = h_free_port();
    srv *s = h_srv_start("%s", tls_server_args(tp));
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET bind %s", "127.0.0.1 127.0.0.2");
    ck_assert(h_accepts("127.0.0.2", tp));
    ping_at("127.0.0.2", s->port);
    char err[512];
    tlsc *t = tlsc_connect(tp, tls_cert("client.crt"), tls_cert("client.key"), err, sizeof err);
    ck_assert_msg(t != NULL, "TLS connect: %s", err);
    redisReply *r = tlsc_cmd(t, "PING");
    ck_assert(r != NULL);
    h_check(__FILE__, __LINE__, r, H_WANT(H_STATUS, "PONG", 0, 0));
    freeReplyObject(r);
    int fd = h_listen_on("127.0.0.3", tp);
    ck_assert_int_ge(fd, 0);
    expect_error(c, BIND_FAILED, "CONFIG SET bind %s", "127.0.0.1 127.0.0.3");
    close(fd);
    expect_bind(c, "127.0.0.1 127.0.0.2");
    ck_assert(!h_accepts("127.0.0.3", s->port));
    ck_assert(h_accepts("127.0.0.2", tp));
    ck_assert(h_accepts("127.0.0.2", s->port));
    expect_status(c, "OK", "CONFIG SET bind 127.0.0.2");
    ck_assert(!h_accepts("127.0.0.1", tp));
    ck_assert(h_accepts("127.0.0.2", tp));
    r = tlsc_cmd(t, "PING"); /* the TLS client stays */
    ck_assert(r != NULL);
    h_check(__FILE__, __LINE__, r, H_WANT(H_STATUS, "PONG", 0, 0));
    freeReplyObject(r);
    tlsc_close(t);
    expect_status(c, "PONG", "PING");
    redisFree(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("listeners");
    TCase *tc = tcase_create("listeners");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, bind_moves);
    tcase_add_test(tc, bind_failure_keeps_old);
    tcase_add_test(tc, bind_wildcard_and_none);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "bind_rewritten", bind_rewritten, 60);
    h_add_dropall(s, "bind_moves_tls", bind_moves_tls, 60);
    return h_main(s);
}
