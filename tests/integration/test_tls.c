/* Integration tests: TLS for clients (tls-port beside the plain port).
 * Certificates are made by the test (tests/lib/tls_util.h: a CA, server
 * and client certificates, one signed by another CA, an expired one).
 * Covered: commands and big replies over TLS (our blocking OpenSSL client,
 * redis-cli --tls, redis-benchmark --tls, redis-py ssl=True with and
 * without a client certificate), tls-auth-clients yes/optional/no, the
 * startup and CONFIG SET errors Redis 7.0 gives, certificates and the TLS
 * port changed at runtime, protocols, ciphers, an encrypted key and DH
 * parameters, plaintext and garbage sent to the TLS port, and handshakes
 * that stall while other clients are served. Every case also runs against
 * redis-server (VERSO_SERVER=/usr/bin/redis-server). */
#include "harness.h"
#include "tls_util.h"

#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A server with a TLS port (and its plain one for control); extra are
 * more arguments. */
static srv *start_tls(int *tls_port, const char *extra) {
    *tls_port = h_free_port();
    return h_srv_start("%s %s", tls_server_args(*tls_port), extra ? extra : "");
}

static tlsc *must_connect(int port, const char *cert, const char *key) {
    char err[512];
    tlsc *c = tlsc_connect(port, cert, key, err, sizeof err);
    ck_assert_msg(c != NULL, "TLS connect: %s", err);
    return c;
}

/* 1 when a client showing cert/key is served: the handshake succeeds and
 * PING answers PONG (TLS 1.3 lets the client finish its handshake before
 * the server has checked its certificate: the refusal shows on the first
 * read). */
static int served(int port, const char *cert, const char *key) {
    char err[512];
    tlsc *c = tlsc_connect(port, cert, key, err, sizeof err);
    if (!c) {
        fprintf(stderr, "tls: port %d, certificate %s: %s\n", port, cert ? cert : "none", err);
        return 0;
    }
    redisReply *r = tlsc_cmd(c, "PING");
    int ok = r && r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "PONG");
    if (!ok)
        fprintf(stderr, "tls: port %d, certificate %s: PING answered %s\n", port,
                cert ? cert : "none", r ? (r->str ? r->str : "?") : "nothing");
    if (r) freeReplyObject(r);
    tlsc_close(c);
    return ok;
}

static void check_status(redisReply *r, const char *want) {
    ck_assert_msg(r != NULL, "no reply over TLS");
    h_check(__FILE__, __LINE__, r, H_WANT(H_STATUS, want, 0, 0));
    freeReplyObject(r);
}

START_TEST(commands_over_tls)
{
    int port;
    srv *s = start_tls(&port, NULL);
    tlsc *c = must_connect(port, tls_cert("client.crt"), tls_cert("client.key"));
    check_status(tlsc_cmd(c, "PING"), "PONG");
    check_status(tlsc_cmd(c, "SET k v"), "OK");
    redisReply *r = tlsc_cmd(c, "GET k");
    ck_assert_ptr_nonnull(r);
    check_bulk(r, "v");
    freeReplyObject(r);
    /* a 4 MB value both ways: many records, partial writes */
    size_t big = 4u << 20;
    char *v = malloc(big);
    for (size_t i = 0; i < big; i++) v[i] = (char)('a' + i % 26);
    char *req = NULL;
    const char *argv[] = {"SET", "big", v};
    size_t lens[] = {3, 3, big};
    long long n = redisFormatCommandArgv(&req, 3, argv, lens);
    ck_assert_int_eq(tlsc_send(c, req, (size_t)n), 0);
    free(req);
    check_status(tlsc_reply(c), "OK");
    r = tlsc_cmd(c, "GET big");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, big);
    ck_assert(memcmp(r->str, v, big) == 0);
    freeReplyObject(r);
    free(v);
    /* a pipeline of 20,000 commands in one go */
    const char *incr = "*2\r\n$4\r\nINCR\r\n$3\r\nctr\r\n";
    size_t il = strlen(incr);
    char *pipe = malloc(il * 20000);
    for (int i = 0; i < 20000; i++) memcpy(pipe + (size_t)i * il, incr, il);
    ck_assert_int_eq(tlsc_send(c, pipe, il * 20000), 0);
    free(pipe);
    for (int i = 1; i <= 20000; i++) {
        r = tlsc_reply(c);
        ck_assert_ptr_nonnull(r);
        ck_assert_int_eq(r->integer, i);
        freeReplyObject(r);
    }
    /* the plain port sees the same data */
    redisContext *p = srv_connect(s);
    expect_bulk(p, "v", "GET k");
    expect_bulk(p, "20000", "GET ctr");
    redisFree(p);
    /* QUIT: its +OK, then the connection ends */
    check_status(tlsc_cmd(c, "QUIT"), "OK");
    ck_assert_ptr_null(tlsc_reply(c));
    tlsc_close(c);
    h_srv_drop_all();
}
END_TEST

START_TEST(auth_clients)
{
    int port;
    srv *s = start_tls(&port, "--tls-auth-clients yes");
    char cc[PATH_MAX + 64], ck[PATH_MAX + 64];
    snprintf(cc, sizeof cc, "%s", tls_cert("client.crt"));
    snprintf(ck, sizeof ck, "%s", tls_cert("client.key"));
    ck_assert(served(port, cc, ck));
    ck_assert_msg(!served(port, NULL, NULL), "served without a certificate");
    ck_assert_msg(!served(port, tls_cert("rogue.crt"), tls_cert("rogue.key")),
                  "served with a certificate of another CA");
    ck_assert_msg(!served(port, tls_cert("expired.crt"), tls_cert("expired.key")),
                  "served with an expired certificate");
    redisContext *p = srv_connect(s);
    /* optional: no certificate is fine, a bad one is not */
    expect_status(p, "OK", "CONFIG SET tls-auth-clients optional");
    ck_assert(served(port, NULL, NULL));
    ck_assert(served(port, cc, ck));
    ck_assert(!served(port, tls_cert("rogue.crt"), tls_cert("rogue.key")));
    /* no: no certificate is asked for */
    expect_status(p, "OK", "CONFIG SET tls-auth-clients no");
    ck_assert(served(port, NULL, NULL));
    ck_assert(served(port, tls_cert("rogue.crt"), tls_cert("rogue.key")));
    redisReply *r = expect_array(p, 2, "CONFIG GET tls-auth-clients");
    check_bulk(r->element[1], "no");
    freeReplyObject(r);
    redisFree(p);
    h_srv_drop_all();
}
END_TEST

/* "--tls --cacert ... --cert ... --key ..." for Redis's tools. */
static void tool_tls_args(const char **argv, int *n) {
    argv[(*n)++] = "--tls";
    argv[(*n)++] = "--cacert";
    argv[(*n)++] = tls_cert("ca.crt");
    argv[(*n)++] = "--cert";
    argv[(*n)++] = tls_cert("client.crt");
    argv[(*n)++] = "--key";
    argv[(*n)++] = tls_cert("client.key");
}

START_TEST(redis_tools)
{
    int port;
    start_tls(&port, NULL);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    const char *argv[32];
    int n = 0;
    argv[n++] = "redis-cli";
    tool_tls_args(argv, &n);
    argv[n++] = "-p";
    argv[n++] = ps;
    int base = n;
    const char *cmds[][4] = {{"SET", "tool", "42", NULL}, {"INCR", "tool", NULL, NULL}};
    const char *want[] = {"OK\n", "43\n"};
    for (int i = 0; i < 2; i++) {
        n = base;
        for (int k = 0; cmds[i][k]; k++) argv[n++] = cmds[i][k];
        argv[n] = NULL;
        char *out = NULL;
        int st = h_run(NULL, &out, 10000, argv);
        ck_assert_msg(st == 0 && !strcmp(out, want[i]), "redis-cli %s: %d %s", cmds[i][0], st,
                      out);
        free(out);
    }
    n = 0;
    argv[n++] = "redis-benchmark";
    tool_tls_args(argv, &n);
    argv[n++] = "-p";
    argv[n++] = ps;
    argv[n++] = "-t";
    argv[n++] = "set,get";
    argv[n++] = "-n";
    argv[n++] = "5000";
    argv[n++] = "-P";
    argv[n++] = "16";
    argv[n++] = "-q";
    argv[n] = NULL;
    char *out = NULL;
    int st = h_run(NULL, &out, 60000, argv);
    ck_assert_msg(st == 0 && strstr(out, "SET: ") && strstr(out, "GET: ") &&
                      strstr(out, "requests per second"),
                  "redis-benchmark --tls: %d %s", st, out);
    free(out);
    h_srv_drop_all();
}
END_TEST

START_TEST(redis_py)
{
    int port;
    start_tls(&port, "--tls-auth-clients optional");
    char script[PATH_MAX], ps[16];
    snprintf(script, sizeof script, "%s/tests/integration/redispy_tls.py", VERSO_TOP_SRCDIR);
    snprintf(ps, sizeof ps, "%d", port);
    const char *argv[] = {"/usr/bin/python3", script, ps, tls_certs_dir(), NULL};
    char *out = NULL;
    int st = h_run(NULL, &out, 60000, argv);
    ck_assert_msg(st == 0 && strstr(out, "redispy_tls ok"), "redispy_tls.py (0x%x):\n%s", st,
                  out);
    free(out);
    h_srv_drop_all();
}
END_TEST

/* Runs the server with args expected to make it exit; its output must
 * hold want. */
static void bad_start(const char *args, const char *want) {
    char *out = NULL;
    int st = srv_run_bad("", args, &out, 10000);
    ck_assert_msg(st != -1 && !(WIFEXITED(st) && WEXITSTATUS(st) == 0),
                  "server ran with %s:\n%s", args, out);
    ck_assert_msg(strstr(out, want), "no '%s' for %s in:\n%s", want, args, out);
    free(out);
}

START_TEST(startup_errors)
{
    char a[4096];
    const char *d = tls_certs_dir();
    int tp = h_free_port();
    bad_start("--tls-port 1", "No tls-cert-file configured!");
    snprintf(a, sizeof a, "--tls-port %d --tls-cert-file %s/server.crt", tp, d);
    bad_start(a, "No tls-key-file configured!");
    snprintf(a, sizeof a, "--tls-port %d --tls-cert-file %s/server.crt --tls-key-file "
             "%s/server.key", tp, d, d);
    bad_start(a, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified");
    snprintf(a, sizeof a, "%s --tls-key-file %s/server-enc.key --tls-key-file-pass wrong",
             tls_server_args(tp), d);
    bad_start(a, "Failed to load private key");
    snprintf(a, sizeof a, "%s --tls-protocols TLSv9", tls_server_args(tp));
    bad_start(a, "Invalid tls-protocols specified");
    snprintf(a, sizeof a, "%s --tls-ciphers nosuchcipher", tls_server_args(tp));
    bad_start(a, "Failed to configure ciphers");
    snprintf(a, sizeof a, "%s --tls-cert-file %s/nosuch.crt", tls_server_args(tp), d);
    bad_start(a, "Failed to load certificate");
    /* the passphrase and DH parameters that are right load */
    int port;
    char extra[2048];
    snprintf(extra, sizeof extra, "--tls-key-file %s/server-enc.key --tls-key-file-pass "
             "verso-pass --tls-dh-params-file %s/dh.pem", d, d);
    start_tls(&port, extra);
    ck_assert(served(port, tls_cert("client.crt"), tls_cert("client.key")));
    h_srv_drop_all();
}
END_TEST

START_TEST(config_set_runtime)
{
    int port;
    srv *s = start_tls(&port, NULL);
    char cc[PATH_MAX + 64], ck[PATH_MAX + 64];
    snprintf(cc, sizeof cc, "%s", tls_cert("client.crt"));
    snprintf(ck, sizeof ck, "%s", tls_cert("client.key"));
    tlsc *old = must_connect(port, cc, ck);
    redisContext *p = srv_connect(s);
    /* a file that is not there: refused, the old certificate stays */
    char q[PATH_MAX + 64];
    snprintf(q, sizeof q, "CONFIG SET tls-cert-file %s/nosuch.crt", tls_certs_dir());
    expect_error(p, "ERR CONFIG SET failed (possibly related to argument 'tls-cert-file') - "
                    "Unable to update TLS configuration. Check server logs.", q);
    ck_assert(served(port, cc, ck));
    expect_error(p, "ERR CONFIG SET failed (possibly related to argument 'tls-protocols') - "
                    "Unable to update TLS configuration. Check server logs.",
                 "CONFIG SET tls-protocols TLSv9");
    /* the client certificate as the server's (another CN): new
     * connections see it, the one open goes on */
    redisReply *r = cmd(p, "CONFIG SET tls-cert-file %s tls-key-file %s", cc, ck);
    h_check(__FILE__, __LINE__, r, H_WANT(H_STATUS, "OK", 0, 0));
    freeReplyObject(r);
    tlsc *fresh = must_connect(port, cc, ck);
    char cn[256];
    tlsc_peer_cn(fresh, cn, sizeof cn);
    ck_assert_str_eq(cn, "verso test client");
    tlsc_peer_cn(old, cn, sizeof cn);
    ck_assert_str_eq(cn, "localhost");
    check_status(tlsc_cmd(old, "PING"), "PONG");
    check_status(tlsc_cmd(fresh, "PING"), "PONG");
    tlsc_close(fresh);
    tlsc_close(old);
    /* the TLS port moves: the new one serves, the old one is closed */
    int np = h_free_port();
    expect_status(p, "OK", "CONFIG SET tls-port %d", np);
    ck_assert(served(np, cc, ck));
    ck_assert(!served(port, cc, ck));
    /* a port taken: refused with Redis's text, the listener stays */
    expect_error(p, "ERR CONFIG SET failed (possibly related to argument 'tls-port') - "
                    "Unable to listen on this port. Check server logs.",
                 "CONFIG SET tls-port %d", s->port);
    ck_assert(served(np, cc, ck));
    expect_status(p, "OK", "CONFIG SET tls-port 0");
    ck_assert(!served(np, cc, ck));
    redisFree(p);
    h_srv_drop_all();
}
END_TEST

/* Runs a python snippet with argv port, CA, client cert, client key;
 * returns its output (malloc'd), failing the test unless it exits 0. */
static char *py_tls(const char *code, int port) {
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    const char *argv[] = {"/usr/bin/python3", "-c", code, ps, tls_cert("ca.crt"),
                          tls_cert("client.crt"), tls_cert("client.key"), NULL};
    char *out = NULL;
    int st = h_run(NULL, &out, 20000, argv);
    ck_assert_msg(st == 0, "python: %s", out);
    return out;
}

/* The cipher agreed with a client offering TLS 1.2 at most (max12) or
 * any version. */
static char *agreed_cipher(int port, int max12) {
    char code[1024];
    snprintf(code, sizeof code,
             "import ssl,socket,sys\n"
             "ctx=ssl.create_default_context(cafile=sys.argv[2])\n"
             "%s"
             "ctx.load_cert_chain(sys.argv[3],sys.argv[4])\n"
             "s=ctx.wrap_socket(socket.create_connection(('127.0.0.1',int(sys.argv[1]))),"
             "server_hostname='localhost')\n"
             "print(s.cipher()[0])\n",
             max12 ? "ctx.maximum_version=ssl.TLSVersion.TLSv1_2\n" : "");
    return py_tls(code, port);
}

START_TEST(protocols)
{
    int port;
    srv *s = start_tls(&port, "--tls-protocols TLSv1.2");
    redisContext *p = srv_connect(s);
    const char *d = tls_certs_dir();
    char ca[PATH_MAX];
    snprintf(ca, sizeof ca, "%s/ca.crt", d);
    char ps[16];
    snprintf(ps, sizeof ps, "%d", port);
    /* python's ssl module pins the version the client offers */
    const char *py =
        "import ssl,socket,sys\n"
        "ctx=ssl.create_default_context(cafile=sys.argv[2])\n"
        "v=getattr(ssl.TLSVersion,sys.argv[3])\n"
        "ctx.minimum_version=v; ctx.maximum_version=v\n"
        "ctx.load_cert_chain(sys.argv[4],sys.argv[5])\n"
        "try:\n"
        "  s=ctx.wrap_socket(socket.create_connection(('127.0.0.1',int(sys.argv[1]))),"
        "server_hostname='localhost')\n"
        "  s.sendall(b'PING\\r\\n'); r=s.recv(100)\n"
        "  print('ok' if r==b'+PONG\\r\\n' else 'refused', s.version())\n"
        "except Exception as e: print('refused', e)\n";
    struct { const char *protos, *ver, *want; } cases[] = {
        {NULL, "TLSv1_2", "ok TLSv1.2"}, {NULL, "TLSv1_3", "refused"},
        {"TLSv1.3", "TLSv1_3", "ok TLSv1.3"}, {"TLSv1.3", "TLSv1_2", "refused"},
        {"TLSv1.2 TLSv1.3", "TLSv1_2", "ok TLSv1.2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].protos)
            expect_status(p, "OK", "CONFIG SET tls-protocols %s", cases[i].protos);
        const char *argv[] = {"/usr/bin/python3", "-c", py, ps, ca, cases[i].ver,
                              tls_cert("client.crt"), tls_cert("client.key"), NULL};
        char *out = NULL;
        int st = h_run(NULL, &out, 20000, argv);
        ck_assert_msg(st == 0 && !strncmp(out, cases[i].want, strlen(cases[i].want)),
                      "case %zu (%s): %s", i, cases[i].ver, out);
        free(out);
    }
    /* TLS 1.2 ciphers: only the one allowed is agreed */
    expect_status(p, "OK", "CONFIG SET tls-protocols TLSv1.2 tls-ciphers ECDHE-ECDSA-AES128-GCM-SHA256");
    char *out = agreed_cipher(port, 1);
    ck_assert_str_eq(out, "ECDHE-ECDSA-AES128-GCM-SHA256\n");
    free(out);
    /* TLS 1.3 suites likewise */
    expect_status(p, "OK", "CONFIG SET tls-protocols TLSv1.3 tls-ciphersuites TLS_CHACHA20_POLY1305_SHA256");
    out = agreed_cipher(port, 0);
    ck_assert_str_eq(out, "TLS_CHACHA20_POLY1305_SHA256\n");
    free(out);
    redisFree(p);
    h_srv_drop_all();
}
END_TEST

/* tls-prefer-server-ciphers picks the server's order (TLS 1.2), and the
 * session cache resumes a session as redis-server's does for the same
 * settings. */
START_TEST(cipher_order_and_sessions)
{
    int port;
    srv *s = start_tls(&port, "--tls-protocols TLSv1.2 --tls-ciphers "
                              "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256");
    redisContext *p = srv_connect(s);
    const char *order =
        "import ssl,socket,sys\n"
        "ctx=ssl.create_default_context(cafile=sys.argv[2])\n"
        "ctx.load_cert_chain(sys.argv[3],sys.argv[4])\n"
        "ctx.set_ciphers('ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384')\n"
        "s=ctx.wrap_socket(socket.create_connection(('127.0.0.1',int(sys.argv[1]))),"
        "server_hostname='localhost')\n"
        "print(s.cipher()[0])\n";
    char *out = py_tls(order, port);
    ck_assert_str_eq(out, "ECDHE-ECDSA-AES128-GCM-SHA256\n"); /* the client's first */
    free(out);
    expect_status(p, "OK", "CONFIG SET tls-prefer-server-ciphers yes");
    out = py_tls(order, port);
    ck_assert_str_eq(out, "ECDHE-ECDSA-AES256-GCM-SHA384\n"); /* the server's first */
    free(out);
    /* a second connection offering the first one's session */
    const char *resume =
        "import ssl,socket,sys\n"
        "ctx=ssl.create_default_context(cafile=sys.argv[2])\n"
        "ctx.load_cert_chain(sys.argv[3],sys.argv[4])\n"
        "ctx.options|=ssl.OP_NO_TICKET\n"
        "def conn(sess=None):\n"
        "  s=ctx.wrap_socket(socket.create_connection(('127.0.0.1',int(sys.argv[1]))),"
        "server_hostname='localhost',session=sess)\n"
        "  s.sendall(b'PING\\r\\n'); s.recv(16); return s\n"
        "a=conn(); b=conn(a.session)\n"
        "print('reused' if b.session_reused else 'new')\n";
    out = py_tls(resume, port);
    ck_assert_str_eq(out, "reused\n"); /* session ids, from the server's cache */
    free(out);
    expect_status(p, "OK", "CONFIG SET tls-session-caching no");
    out = py_tls(resume, port);
    ck_assert_str_eq(out, "new\n");
    free(out);
    redisFree(p);
    h_srv_drop_all();
}
END_TEST

/* tls-ca-cert-dir alone (an OpenSSL hashed directory) checks clients. */
START_TEST(ca_cert_dir)
{
    int port = h_free_port();
    const char *d = tls_certs_dir();
    h_srv_start("--tls-port %d --tls-cert-file %s/server.crt --tls-key-file %s/server.key "
                "--tls-ca-cert-dir %s/cadir", port, d, d, d);
    ck_assert(served(port, tls_cert("client.crt"), tls_cert("client.key")));
    ck_assert(!served(port, tls_cert("rogue.crt"), tls_cert("rogue.key")));
    h_srv_drop_all();
}
END_TEST

/* Plaintext and garbage on the TLS port: the connection is closed, the
 * server goes on serving. */
START_TEST(garbage_on_tls_port)
{
    int port;
    srv *s = start_tls(&port, NULL);
    const char *inputs[] = {
        "PING\r\n",
        "*1\r\n$4\r\nPING\r\n",
        "\x16\x03\x01\x00\x05garbage-after-a-record-header-that-lies-about-its-length",
        "\x16\x03\x01\xff\xff",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        int fd = raw_connect(port);
        ck_assert_int_eq(raw_send(fd, inputs[i], strlen(inputs[i])), 0);
        if (i < 2) { /* not TLS at all: refused at once */
            size_t total = 0;
            ck_assert_msg(raw_wait_closed(fd, h_scaled_ms(5000), &total),
                          "input %zu: connection still open", i);
            /* nothing readable as RESP came back */
            ck_assert_int_eq(total == 0 || total < 64, 1);
        }
        close(fd);
    }
    /* 256 random bytes */
    int fd = raw_connect(port);
    char rnd[256];
    for (size_t i = 0; i < sizeof rnd; i++) rnd[i] = (char)(rand() & 0xff);
    rnd[0] = 0x16; /* looks like a handshake record */
    raw_send(fd, rnd, sizeof rnd);
    size_t total = 0;
    ck_assert(raw_wait_closed(fd, h_scaled_ms(5000), &total));
    close(fd);
    ck_assert(served(port, tls_cert("client.crt"), tls_cert("client.key")));
    redisContext *p = srv_connect(s);
    expect_status(p, "PONG", "PING");
    redisFree(p);
    h_srv_drop_all();
}
END_TEST

/* Handshakes that stall (connections that send nothing, or half a
 * ClientHello) hold nobody else: a TLS client's commands are answered
 * at once meanwhile, and new handshakes complete. */
START_TEST(stalled_handshakes)
{
    int port;
    srv *s = start_tls(&port, NULL);
    enum { NSTALL = 50 };
    int fds[NSTALL];
    for (int i = 0; i < NSTALL; i++) {
        fds[i] = raw_connect(port);
        /* half of them send the first bytes of a ClientHello */
        if (i & 1) raw_send(fds[i], "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11);
    }
    tlsc *c = must_connect(port, tls_cert("client.crt"), tls_cert("client.key"));
    long long worst = 0;
    for (int i = 0; i < 200; i++) {
        long long t0 = h_now_ms();
        check_status(tlsc_cmd(c, "PING"), "PONG");
        long long dt = h_now_ms() - t0;
        if (dt > worst) worst = dt;
    }
    ck_assert_msg(worst < h_scaled_ms(200), "a PING took %lld ms", worst);
    for (int i = 0; i < 5; i++) ck_assert(served(port, tls_cert("client.crt"),
                                                 tls_cert("client.key")));
    /* the stalled ones are clients like any other until they go */
    redisContext *p = srv_connect(s);
    long long n = h_info_int(p, "clients", "connected_clients");
    ck_assert_int_ge(n, NSTALL);
    for (int i = 0; i < NSTALL; i++) close(fds[i]);
    long long t0 = h_now_ms();
    while (h_info_int(p, "clients", "connected_clients") > 3 && h_now_ms() - t0 < 5000)
        h_sleep_ms(20);
    ck_assert_int_le(h_info_int(p, "clients", "connected_clients"), 3);
    redisFree(p);
    tlsc_close(c);
    h_srv_drop_all();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tls");
    TCase *tc = tcase_create("tls");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, commands_over_tls);
    tcase_add_test(tc, auth_clients);
    tcase_add_test(tc, redis_tools);
    tcase_add_test(tc, redis_py);
    tcase_add_test(tc, startup_errors);
    tcase_add_test(tc, config_set_runtime);
    tcase_add_test(tc, protocols);
    tcase_add_test(tc, cipher_order_and_sessions);
    tcase_add_test(tc, ca_cert_dir);
    tcase_add_test(tc, garbage_on_tls_port);
    tcase_add_test(tc, stalled_handshakes);
    suite_add_tcase(s, tc);
    return h_main(s);
}
