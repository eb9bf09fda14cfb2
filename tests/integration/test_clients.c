/* Integration tests: clients. CLIENT ID/SETNAME/GETNAME/LIST/KILL, HELLO,
 * AUTH and requirepass, the timeout and maxclients limits, 200 concurrent
 * hiredis clients, and Redis's own tools (redis-cli, redis-benchmark)
 * working unchanged against the server. */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static long long client_id(redisContext *c)
{
    redisReply *r = cmd(c, "CLIENT ID");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    long long id = r->integer;
    freeReplyObject(r);
    return id;
}

/* "127.0.0.1:port" of the client side of c. */
static void local_addr(redisContext *c, char *out, size_t cap)
{
    struct sockaddr_in sa;
    socklen_t len = sizeof sa;
    ck_assert_int_eq(getsockname(c->fd, (struct sockaddr *)&sa, &len), 0);
    snprintf(out, cap, "127.0.0.1:%d", ntohs(sa.sin_port));
}

static void expect_dead(redisContext *c, const char *why)
{
    redisReply *r = redisCommand(c, "PING");
    ck_assert_msg(r == NULL, "connection alive after %s", why);
}

START_TEST(client_id_name)
{
    redisContext *c = h_c, *c2 = srv_connect(h_srv);
    long long id1 = client_id(c), id2 = client_id(c2);
    ck_assert_int_gt(id1, 0);
    ck_assert_int_gt(id2, id1);                 /* ids only grow */
    ck_assert_int_eq(client_id(c), id1);
    expect_nil(c, "CLIENT GETNAME");
    expect_status(c, "OK", "CLIENT SETNAME first");
    expect_bulk(c, "first", "CLIENT GETNAME");
    expect_nil(c2, "CLIENT GETNAME");
    expect_error(c, "ERR Client names cannot contain spaces, newlines or special characters.",
                 "CLIENT SETNAME %s", "a b");
    expect_error(c, "ERR Client names cannot contain spaces, newlines or special characters.",
                 "CLIENT SETNAME %s", "a\nb");
    expect_bulk(c, "first", "CLIENT GETNAME");
    expect_status(c, "OK", "CLIENT SETNAME %s", "");
    expect_nil(c, "CLIENT GETNAME");
    expect_error(c, "ERR wrong number of arguments for 'client|setname' command",
                 "CLIENT SETNAME");
    expect_error(c, "ERR wrong number of arguments for 'client|id' command",
                 "CLIENT ID x");
    expect_error(c, "ERR unknown subcommand 'foo'. Try CLIENT HELP.",
                 "CLIENT foo");
    redisFree(c2);
}
END_TEST

START_TEST(client_list)
{
    redisContext *c = h_c, *c2 = srv_connect(h_srv), *c3 = srv_connect(h_srv);
    expect_status(c2, "OK", "CLIENT SETNAME two");
    expect_status(c3, "OK", "SELECT 3");
    char want_id[64], want_addr[64];
    snprintf(want_id, sizeof want_id, "id=%lld ", client_id(c2));
    local_addr(c2, want_addr, sizeof want_addr);
    redisReply *r = cmd(c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    int lines = 0, found = 0;
    for (char *line = r->str; line && *line; line = strchr(line, '\n'),
              line = line ? line + 1 : NULL) {
        lines++;
        ck_assert_msg(strncmp(line, "id=", 3) == 0, "CLIENT LIST line: %.80s", line);
        size_t len = strcspn(line, "\n");
        char one[1024];
        snprintf(one, sizeof one, "%.*s", (int)len, line);
        ck_assert_msg(strstr(one, " addr=127.0.0.1:") && strstr(one, " fd=") &&
                      strstr(one, " age=") && strstr(one, " idle=") &&
                      strstr(one, " db="), "CLIENT LIST line lacks fields: %s", one);
        if (strstr(one, " name=two ")) {
            found |= 1;
            ck_assert_msg(strncmp(one, want_id, strlen(want_id)) == 0, "%s", one);
            ck_assert_msg(strstr(one, want_addr), "%s lacks %s", one, want_addr);
        }
        if (strstr(one, " db=3 "))
            found |= 2;
    }
    ck_assert_int_eq(lines, 3);
    ck_assert_msg(found == 3, "CLIENT LIST:\n%s", r->str);
    freeReplyObject(r);
    redisFree(c2);
    redisFree(c3);
}
END_TEST

START_TEST(client_kill)
{
    redisContext *c = h_c;
    redisContext *v1 = srv_connect(h_srv), *v2 = srv_connect(h_srv),
                 *v3 = srv_connect(h_srv);
    char addr[64];
    expect_int(c, 1, "CLIENT KILL ID %lld", client_id(v1));
    expect_dead(v1, "CLIENT KILL ID");
    local_addr(v2, addr, sizeof addr);
    expect_status(v2, "PONG", "PING");
    expect_status(c, "OK", "CLIENT KILL %s", addr);
    expect_dead(v2, "CLIENT KILL ip:port");
    local_addr(v3, addr, sizeof addr);
    expect_int(c, 1, "CLIENT KILL ADDR %s", addr);
    expect_dead(v3, "CLIENT KILL ADDR");
    expect_int(c, 0, "CLIENT KILL ID 999999");
    expect_error(c, "ERR No such client", "CLIENT KILL 1.2.3.4:5");
    expect_error(c, "ERR client-id should be greater than 0", "CLIENT KILL ID abc");
    expect_status(c, "PONG", "PING");
    redisFree(v1);
    redisFree(v2);
    redisFree(v3);
    long long deadline = h_now_ms() + 3000;
    while (h_info_int(c, "clients", "connected_clients") != 1 &&
           h_now_ms() < deadline)
        h_sleep_ms(20);
    ck_assert_int_eq(h_info_int(c, "clients", "connected_clients"), 1);
}
END_TEST

/* Value of key `name` in a HELLO reply (a flat name/value array). */
static const redisReply *hello_field(const redisReply *r, const char *name)
{
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        if (r->element[i]->type == REDIS_REPLY_STRING &&
            strcmp(r->element[i]->str, name) == 0)
            return r->element[i + 1];
    ck_abort_msg("HELLO reply lacks '%s'", name);
}

START_TEST(hello)
{
    redisContext *c = h_c;
    long long id = client_id(c);
    for (int with_version = 0; with_version < 2; with_version++) {
        redisReply *r = with_version ? expect_array(c, 14, "HELLO 2")
                                     : expect_array(c, 14, "HELLO");
        check_int(hello_field(r, "proto"), 2);
        check_int(hello_field(r, "id"), id);
        check_bulk(hello_field(r, "mode"), "standalone");
        check_bulk(hello_field(r, "role"), "master");
        ck_assert_int_eq(hello_field(r, "server")->type, REDIS_REPLY_STRING);
        ck_assert_int_eq(hello_field(r, "version")->type, REDIS_REPLY_STRING);
        ck_assert_int_eq(hello_field(r, "modules")->type, REDIS_REPLY_ARRAY);
        freeReplyObject(r);
    }
    redisReply *r = expect_array(c, 14, "HELLO 2 SETNAME hi");
    freeReplyObject(r);
    expect_bulk(c, "hi", "CLIENT GETNAME");
    expect_error(c, "NOPROTO unsupported protocol version", "HELLO 4");
    expect_error(c, "NOPROTO unsupported protocol version", "HELLO 1");
    expect_error(c, "ERR Protocol version is not an integer or out of range",
                 "HELLO abc");
    expect_status(c, "PONG", "PING");           /* still RESP2 */
}
END_TEST

/* HELLO 3 switches to RESP3 (a map reply); test_resp3 checks the rest.
 * Raw socket: hiredis 0.14 cannot read RESP3. */
START_TEST(hello_3)
{
    int fd = raw_connect(h_srv->port);
    raw_send_str(fd, "*2\r\n$5\r\nHELLO\r\n$1\r\n3\r\n");
    char got[1024];
    int closed;
    raw_read(fd, got, sizeof got, 9, 5000, &closed);
    ck_assert_msg(got[0] == '%', "HELLO 3: '%s'", got);
    close(fd);
}
END_TEST

START_TEST(auth_requirepass)
{
    srv *s = srv_start("--requirepass 'se cret'");
    redisContext *c = srv_connect(s);
    expect_error(c, "NOAUTH Authentication required.", "GET a");
    expect_error(c, "NOAUTH Authentication required.", "PING");
    expect_error(c, "NOAUTH Authentication required.", "SET a b");
    expect_error(c, "WRONGPASS invalid username-password pair or user is disabled.",
                 "AUTH wrong");
    expect_error(c, "WRONGPASS invalid username-password pair or user is disabled.",
                 "AUTH other %s", "se cret");
    expect_error(c, "NOAUTH Authentication required.", "GET a");
    expect_status(c, "OK", "AUTH %s", "se cret");
    expect_nil(c, "GET a");
    expect_status(c, "OK", "SET a b");
    expect_error(c, "ERR wrong number of arguments for 'auth' command", "AUTH");

    redisContext *c2 = srv_connect(s);
    expect_status(c2, "OK", "AUTH default %s", "se cret");
    expect_bulk(c2, "b", "GET a");
    redisFree(c2);
    c2 = srv_connect(s);
    redisReply *r = expect_array(c2, 14, "HELLO 2 AUTH default %s", "se cret");
    freeReplyObject(r);
    expect_bulk(c2, "b", "GET a");
    redisFree(c2);
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(auth_without_password)
{
    redisContext *c = h_c;
    expect_error(c, "ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
                 "AUTH x");
    expect_status(c, "OK", "CONFIG SET requirepass sesame");
    expect_status(c, "PONG", "PING");   /* already authenticated: stays so */
    redisContext *c2 = srv_connect(h_srv);
    expect_error(c2, "NOAUTH Authentication required.", "PING");
    expect_status(c2, "OK", "AUTH sesame");
    expect_status(c2, "PONG", "PING");
    redisFree(c2);
}
END_TEST

START_TEST(idle_timeout)
{
    srv *s = srv_start("--timeout 1");
    int idle = raw_connect(s->port);
    raw_send_str(idle, "PING\r\n");
    char got[64];
    int closed;
    raw_read(idle, got, sizeof got, 7, 5000, &closed);
    ck_assert_str_eq(got, "+PONG\r\n");
    long long t0 = h_now_ms();
    redisContext *busy = srv_connect(s);
    long long closed_at = -1;
    while (h_now_ms() - t0 < h_scaled_ms(6000) && closed_at < 0) {
        expect_status(busy, "PONG", "PING");
        if (raw_wait_closed(idle, 250, NULL))
            closed_at = h_now_ms() - t0;
    }
    ck_assert_msg(closed_at >= 0, "idle client not closed within %d ms", h_scaled_ms(6000));
    ck_assert_msg(closed_at >= 800, "idle client closed after only %lld ms",
                  closed_at);
    expect_status(busy, "PONG", "PING");         /* the active one stays */
    close(idle);
    redisFree(busy);
    srv_stop(s);
}
END_TEST

/* A client that got past the maxclients check (retries while the server
 * still counts a connection that just closed). */
static redisContext *connect_admitted(srv *s)
{
    long long deadline = h_now_ms() + 3000;
    for (;;) {
        redisContext *c = srv_connect(s);
        redisReply *r = redisCommand(c, "PING");
        int ok = r && r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        if (ok)
            return c;
        redisFree(c);
        ck_assert_msg(h_now_ms() < deadline, "no client admitted in 3 s");
        h_sleep_ms(20);
    }
}

START_TEST(maxclients)
{
    srv *s = srv_start("--maxclients 2");
    redisContext *c1 = connect_admitted(s), *c2 = connect_admitted(s);
    for (int i = 0; i < 3; i++) {
        int fd = raw_connect(s->port);
        char got[128];
        int closed;
        raw_read(fd, got, sizeof got, sizeof got - 1, 5000, &closed);
        ck_assert_str_eq(got, "-ERR max number of clients reached\r\n");
        ck_assert(closed);
        close(fd);
    }
    expect_status(c1, "PONG", "PING");
    expect_status(c2, "PONG", "PING");
    redisFree(c1);
    redisContext *c3 = connect_admitted(s);     /* a slot freed up */
    expect_status(c3, "OK", "SET k v");
    redisFree(c2);
    redisFree(c3);
    srv_stop(s);
}
END_TEST

/* Finding 13's kind: a CLIENT LIST line was cut at 512 bytes, newline
 * included, so a long client name merged it with the next one. */
START_TEST(client_list_long_name)
{
    char name[1201];
    memset(name, 'n', 1200);
    name[1200] = '\0';
    redisContext *other = srv_connect(h_srv);
    expect_status(h_c, "OK", "CLIENT SETNAME %s", name);
    redisReply *r = cmd(h_c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    int lines = 0, found = 0;
    for (char *p = r->str, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        lines++;
        *nl = '\0';
        ck_assert_msg(strstr(p, "id=") == p && strstr(p, " resp=2") != NULL,
                      "bad CLIENT LIST line: %.80s...", p);
        if (strstr(p, name)) found++;
    }
    ck_assert_int_eq(lines, 2);
    ck_assert_int_eq(found, 1);
    freeReplyObject(r);
    redisFree(other);
}
END_TEST

/* Sends `req` on a new raw connection and checks that the reply is exactly
 * `want` followed by the server closing the connection. */
static void expect_closed_with(int port, const char *req, const char *want)
{
    int fd = raw_connect(port);
    raw_send_str(fd, req);
    char got[256];
    int closed = 0;
    raw_read(fd, got, sizeof got, sizeof got - 1, 5000, &closed);
    ck_assert_str_eq(got, want);
    ck_assert_msg(closed, "connection left open after '%s'", want);
    close(fd);
}

/* Finding 7: before AUTH, a client may announce at most 10 arguments of at
 * most 16 KiB each (Redis 7's limits), else it gets Redis's protocol error
 * and is closed, so it cannot make the server buffer large requests. */
START_TEST(unauthenticated_limits)
{
    srv *s = srv_start("--requirepass pw");
    expect_closed_with(s->port, "*11\r\n",
                       "-ERR Protocol error: unauthenticated multibulk length\r\n");
    expect_closed_with(s->port, "*100\r\n$3\r\nSET\r\n",
                       "-ERR Protocol error: unauthenticated multibulk length\r\n");
    expect_closed_with(s->port, "*2\r\n$4\r\nECHO\r\n$16385\r\n",
                       "-ERR Protocol error: unauthenticated bulk length\r\n");
    expect_closed_with(s->port, "*2\r\n$4\r\nECHO\r\n$100000\r\nxyz",
                       "-ERR Protocol error: unauthenticated bulk length\r\n");

    /* at the limits: parsed, then refused with NOAUTH, connection kept */
    size_t n = 16384;
    char *val = malloc(n);
    memset(val, 'a', n);
    redisContext *c = srv_connect(s);
    expect_error(c, "NOAUTH Authentication required.", "ECHO %b", val, n);
    expect_error(c, "NOAUTH Authentication required.", "DEL a b c d e f g h i");
    /* after AUTH (even earlier in the same pipeline) the limits are gone */
    redisAppendCommand(c, "AUTH pw");
    redisAppendCommand(c, "DEL a b c d e f g h i j k");
    redisReply *r;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    h_check(__FILE__, __LINE__, r, H_WANT(H_STATUS, "OK", 0, 0));
    freeReplyObject(r);
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    check_int(r, 0);
    freeReplyObject(r);
    free(val);
    n = 100000;
    val = malloc(n);
    memset(val, 'b', n);
    r = cmd(c, "ECHO %b", val, n);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, n);
    freeReplyObject(r);
    free(val);
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* Findings 9 and 16: under `ulimit -n 128` the server keeps 32 descriptors
 * in reserve and lowers maxclients to 96 (logging it as Redis does), so a
 * flood of connections gets "-ERR max number of clients reached" while a
 * BGSAVE still opens its file and writes go on. */
START_TEST(maxclients_fits_fd_limit)
{
    enum { NOFILE = 128, FIT = NOFILE - 32, EXTRA = 25 };
    srv *s = srv_start_nofile(NOFILE, "--save '3600 1'");
    ck_assert(srv_log_wait(s, "You requested maxclients of 10000 requiring at least "
                              "10032 max file descriptors.", 5000));
    ck_assert(srv_log_wait(s, "Server can't set maximum open files to 10032 because of "
                              "OS error: Operation not permitted.", 5000));
    ck_assert(srv_log_wait(s, "Current maximum open files is 128. maxclients has been "
                              "reduced to 96 to compensate for low ulimit. If you need "
                              "higher maxclients increase 'ulimit -n'.", 5000));
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 2, "CONFIG GET maxclients");
    check_bulk(r->element[1], "96");
    freeReplyObject(r);
    ck_assert_int_eq(h_info_int(c, "clients", "maxclients"), FIT);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - "
                    "The operating system is not able to handle the specified number of "
                    "clients, try with 96", "CONFIG SET maxclients 200");
    expect_status(c, "OK", "CONFIG SET maxclients 50");
    expect_status(c, "OK", "CONFIG SET maxclients 96");

    int fds[FIT - 1 + EXTRA];
    for (int i = 0; i < FIT - 1; i++) {          /* c is the first client */
        fds[i] = raw_connect(s->port);
        raw_send_str(fds[i], "PING\r\n");
        char got[64];
        int closed;
        raw_read(fds[i], got, sizeof got, 7, 5000, &closed);
        ck_assert_msg(!strcmp(got, "+PONG\r\n"), "client %d: got '%s'", i + 2, got);
    }
    for (int i = FIT - 1; i < FIT - 1 + EXTRA; i++) {
        fds[i] = raw_connect(s->port);
        char got[128];
        int closed;
        raw_read(fds[i], got, sizeof got, sizeof got - 1, 5000, &closed);
        ck_assert_str_eq(got, "-ERR max number of clients reached\r\n");
        ck_assert(closed);
    }
    ck_assert_int_eq(h_info_int(c, "clients", "connected_clients"), FIT);
    ck_assert_int_eq(h_info_int(c, "stats", "rejected_connections"), EXTRA);
    /* every slot taken: a save still opens its file, writes still run */
    expect_status(c, "OK", "SET k v");
    expect_status(c, "Background saving started", "BGSAVE");
    for (int i = 0; i < 500 && h_info_int(c, "persistence", "rdb_bgsave_in_progress"); i++)
        h_sleep_ms(20);
    char *info = h_info(c, "persistence");
    char status[16];
    ck_assert(h_info_field(info, "rdb_last_bgsave_status", status, sizeof status));
    ck_assert_str_eq(status, "ok");
    free(info);
    expect_status(c, "OK", "SET k2 v2");
    for (int i = 0; i < FIT - 1 + EXTRA; i++)
        close(fds[i]);
    expect_status(c, "OK", "SET k3 v3");
    redisFree(c);
    srv_stop(s);
}
END_TEST

/* ---- 200 concurrent clients ---- */

enum { THREADS = 200, OPS = 150 };

typedef struct worker {
    int port, index;
    pthread_barrier_t *ready, *go;
    char err[256];                  /* written by the worker only */
} worker;

static void *worker_run(void *arg)
{
    worker *w = arg;
    struct timeval tv = { 10, 0 };
    redisContext *c = redisConnectWithTimeout("127.0.0.1", w->port, tv);
    if (c && !c->err)
        redisSetTimeout(c, (struct timeval){ 30, 0 });
    pthread_barrier_wait(w->ready);
    pthread_barrier_wait(w->go);
    if (!c || c->err) {
        snprintf(w->err, sizeof w->err, "connect: %s", c ? c->errstr : "oom");
        redisFree(c);
        return NULL;
    }
    for (int i = 0; i < OPS && !w->err[0]; i++) {
        char key[64], val[64];
        snprintf(key, sizeof key, "w%d:k%d", w->index, i % 50);
        snprintf(val, sizeof val, "v%d.%d", w->index, i);
        redisReply *r = redisCommand(c, "SET %s %s", key, val);
        if (!r || r->type != REDIS_REPLY_STATUS)
            snprintf(w->err, sizeof w->err, "SET %s failed", key);
        freeReplyObject(r);
        r = redisCommand(c, "GET %s", key);
        if (!r || r->type != REDIS_REPLY_STRING || strcmp(r->str, val) != 0)
            snprintf(w->err, sizeof w->err, "GET %s: want %s, got %s", key,
                     val, r && r->str ? r->str : "?");
        freeReplyObject(r);
        r = redisCommand(c, "INCR shared");
        if (!r || r->type != REDIS_REPLY_INTEGER)
            snprintf(w->err, sizeof w->err, "INCR failed");
        freeReplyObject(r);
    }
    redisFree(c);
    return NULL;
}

START_TEST(concurrent_clients)
{
    static worker w[THREADS];
    pthread_t th[THREADS];
    pthread_barrier_t ready, go;
    pthread_barrier_init(&ready, NULL, THREADS + 1);
    pthread_barrier_init(&go, NULL, THREADS + 1);
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){ .port = h_srv->port, .index = i, .ready = &ready,
                         .go = &go };
        ck_assert_int_eq(pthread_create(&th[i], NULL, worker_run, &w[i]), 0);
    }
    pthread_barrier_wait(&ready);
    /* all 200 are connected at once (plus h_c) */
    long long n = h_info_int(h_c, "clients", "connected_clients");
    pthread_barrier_wait(&go);
    for (int i = 0; i < THREADS; i++)
        pthread_join(th[i], NULL);
    ck_assert_int_eq(n, THREADS + 1);
    for (int i = 0; i < THREADS; i++)
        ck_assert_msg(!w[i].err[0], "worker %d: %s", i, w[i].err);
    expect_bulk(h_c, "30000", "GET shared");
    expect_int(h_c, THREADS * 50 + 1, "DBSIZE");
    char want[64];
    snprintf(want, sizeof want, "v%d.%d", THREADS - 1, OPS - 1);
    char key[64];
    snprintf(key, sizeof key, "w%d:k%d", THREADS - 1, (OPS - 1) % 50);
    expect_bulk(h_c, want, "GET %s", key);
    pthread_barrier_destroy(&ready);
    pthread_barrier_destroy(&go);
}
END_TEST

/* ---- Redis's tools ---- */

/* Runs redis-cli -p <port> args...; checks exit status 0, returns output. */
static char *cli(const char *stdin_text, const char *a1, const char *a2,
                 const char *a3, const char *a4)
{
    char port[16];
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = { "redis-cli", "-p", port, a1, a2, a3, a4, NULL };
    char *out = NULL;
    int st = h_run(stdin_text, &out, 15000, argv);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "redis-cli %s %s: status 0x%x, output:\n%s", a1 ? a1 : "",
                  a2 ? a2 : "", st, out);
    return out;
}

START_TEST(redis_cli_commands)
{
    char *out = cli(NULL, "ping", NULL, NULL, NULL);
    ck_assert_str_eq(out, "PONG\n");
    free(out);
    out = cli(NULL, "set", "a", "b", NULL);
    ck_assert_str_eq(out, "OK\n");
    free(out);
    out = cli(NULL, "get", "a", NULL, NULL);
    ck_assert_str_eq(out, "b\n");
    free(out);
    expect_bulk(h_c, "b", "GET a");
    out = cli(NULL, "incr", "n", NULL, NULL);
    ck_assert_str_eq(out, "1\n");
    free(out);
    out = cli(NULL, "info", "server", NULL, NULL);
    ck_assert_msg(strstr(out, "redis_version:"), "%s", out);
    free(out);
    expect_status(h_c, "OK", "MSET scan:1 x scan:2 y other z");
    out = cli(NULL, "--scan", "--pattern", "scan:*", NULL);
    ck_assert_msg(strcmp(out, "scan:1\nscan:2\n") == 0 ||
                  strcmp(out, "scan:2\nscan:1\n") == 0, "--scan: '%s'", out);
    free(out);
}
END_TEST

START_TEST(redis_cli_interactive)
{
    char *out = cli("PING\nSET x 1\nGET x\nDBSIZE\n", NULL, NULL, NULL, NULL);
    ck_assert_str_eq(out, "PONG\nOK\n1\n1\n");
    free(out);
}
END_TEST

START_TEST(redis_cli_auth)
{
    srv *s = srv_start("--requirepass pw");
    char port[16];
    snprintf(port, sizeof port, "%d", s->port);
    const char *argv[] = { "redis-cli", "-p", port, "--no-auth-warning",
                           "-a", "pw", "ping", NULL };
    char *out = NULL;
    int st = h_run(NULL, &out, 15000, argv);
    ck_assert_msg(st == 0, "status 0x%x", st);
    ck_assert_str_eq(out, "PONG\n");
    free(out);
    srv_stop(s);
}
END_TEST

/* From redis-benchmark -q output: progress lines end in \r, the result
 * line is "SET: 1234.5 requests per second, p50=...". 0 if absent. */
static double bench_rps(const char *out, const char *name)
{
    char *copy = strdup(out);
    double rps = 0;
    for (char *line = strtok(copy, "\r\n"); line; line = strtok(NULL, "\r\n"))
        if (strncmp(line, name, strlen(name)) == 0 &&
            strstr(line, " requests per second"))
            rps = atof(line + strlen(name));
    free(copy);
    return rps;
}

START_TEST(redis_benchmark)
{
    char port[16];
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = { "redis-benchmark", "-p", port, "-t", "set,get",
                           "-n", "20000", "-q", NULL };
    char *out = NULL;
    int st = h_run(NULL, &out, 50000, argv);
    ck_assert_msg(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
                  "redis-benchmark: status 0x%x, output:\n%s", st, out);
    ck_assert_msg(bench_rps(out, "SET: ") > 0 && bench_rps(out, "GET: ") > 0,
                  "no 'SET/GET: <n> requests per second' in:\n%s", out);
    ck_assert_msg(!strstr(out, "WARN") && !strstr(out, "ERR"),
                  "redis-benchmark complained:\n%s", out);
    free(out);
    expect_int(h_c, 3, "STRLEN key:__rand_int__");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("clients");
    TCase *tc = tcase_create("clients");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 55);
    tcase_add_test(tc, client_id_name);
    tcase_add_test(tc, client_list);
    tcase_add_test(tc, client_kill);
    tcase_add_test(tc, hello);
    tcase_add_test(tc, hello_3);
    tcase_add_test(tc, auth_requirepass);
    tcase_add_test(tc, auth_without_password);
    tcase_add_test(tc, idle_timeout);
    tcase_add_test(tc, maxclients);
    tcase_add_test(tc, maxclients_fits_fd_limit);
    tcase_add_test(tc, client_list_long_name);
    tcase_add_test(tc, unauthenticated_limits);
    tcase_add_test(tc, concurrent_clients);
    tcase_add_test(tc, redis_cli_commands);
    tcase_add_test(tc, redis_cli_interactive);
    tcase_add_test(tc, redis_cli_auth);
    tcase_add_test(tc, redis_benchmark);
    suite_add_tcase(s, tc);
    return h_main(s);
}
