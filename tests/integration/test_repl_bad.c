/* test_repl_bad: replication peers that misbehave, with any server binary
 * under test (srv_start) and redis-server as the well-behaved peer.
 *
 * Against a primary under test, fake replicas driven from raw sockets: one
 * that sends garbage after PSYNC, one that stops reading during the payload
 * while writes go on (dropped by its output limit or by repl-timeout, the
 * primary's memory bounded), one that disconnects mid-payload (diskless and
 * disk-backed). Against a replica under test, a fake primary (a listening
 * socket driven by the test) that answers PSYNC with a truncated payload
 * ($<len> and $EOF: forms), a payload with a bad checksum, garbage instead
 * of a payload, a malformed +FULLRESYNC line. Each time: a clear log line,
 * the server alive and serving, the replica retrying, nothing lost on the
 * primary, and a real peer afterwards syncing correctly. */
#include "harness.h"
#include "repl_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define NODE_ARGS "--repl-diskless-sync-delay 0 --repl-timeout 20 --loglevel verbose"
#define LINK_MS 60000

/* ------------------------------------------------------- raw-socket I/O */

/* One line without its CRLF into buf; bare "\n" (the keepalives a primary
 * sends while a replica waits) are skipped. 0 on close or timeout. */
static int read_line(int fd, char *buf, size_t cap, int timeout_ms)
{
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    size_t n = 0;
    for (;;) {
        char ch[2];
        int closed;
        long long left = deadline - h_now_ms();
        if (left <= 0 || raw_read(fd, ch, sizeof ch, 1, (int)left, &closed) != 1)
            return 0;
        if (ch[0] == '\n') {
            if (n == 0)
                continue;
            if (buf[n - 1] == '\r')
                n--;
            buf[n] = '\0';
            return 1;
        }
        if (n + 1 < cap)
            buf[n++] = ch[0];
    }
}

static void send_all(int fd, const void *p, size_t n)
{
    ck_assert_int_eq(raw_send(fd, p, n), 0);
}

/* Sends a command as RESP (arguments as strings). */
static void send_cmd(int fd, int argc, const char *const argv[])
{
    char hdr[64];
    snprintf(hdr, sizeof hdr, "*%d\r\n", argc);
    raw_send_str(fd, hdr);
    for (int k = 0; k < argc; k++) {
        snprintf(hdr, sizeof hdr, "$%zu\r\n", strlen(argv[k]));
        raw_send_str(fd, hdr);
        raw_send_str(fd, argv[k]);
        raw_send_str(fd, "\r\n");
    }
}

/* A socket to 127.0.0.1:port with a small receive buffer (when rcvbuf > 0,
 * set before connecting so that the window stays small). */
static int connect_rcvbuf(int port, int rcvbuf)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    if (rcvbuf > 0)
        ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf), 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_msg(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0, "connect: %s",
                  strerror(errno));
    return fd;
}

/* The handshake of a Redis 7 replica, then PSYNC ? -1; the reply line
 * (+FULLRESYNC <replid> <offset>) into line. Returns the socket. */
static int fake_replica(int port, int rcvbuf, char *line, size_t cap)
{
    int fd = connect_rcvbuf(port, rcvbuf);
    char buf[256];
    send_cmd(fd, 1, (const char *[]){ "PING" });
    ck_assert(read_line(fd, buf, sizeof buf, 10000));
    ck_assert_str_eq(buf, "+PONG");
    send_cmd(fd, 3, (const char *[]){ "REPLCONF", "listening-port", "4242" });
    ck_assert(read_line(fd, buf, sizeof buf, 10000));
    ck_assert_str_eq(buf, "+OK");
    send_cmd(fd, 5, (const char *[]){ "REPLCONF", "capa", "eof", "capa", "psync2" });
    ck_assert(read_line(fd, buf, sizeof buf, 10000));
    ck_assert_str_eq(buf, "+OK");
    send_cmd(fd, 3, (const char *[]){ "PSYNC", "?", "-1" });
    ck_assert(read_line(fd, line, cap, 30000));
    ck_assert_msg(strncmp(line, "+FULLRESYNC ", 12) == 0, "PSYNC answered '%s'", line);
    return fd;
}

/* A replica of p (redis-server: the reference) syncs and holds p's data;
 * the data is then as `before` says (the canonical text taken earlier). */
static void real_replica_agrees(srv *p, const char *before)
{
    redisContext *pc = srv_connect(p);
    char *now = ru_canon(pc);
    ck_assert_msg(strcmp(now, before) == 0, "the primary's data changed");
    free(now);
    srv *r = h_srv_start_redis(NODE_ARGS);
    redisContext *rc = srv_connect(r);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", LINK_MS);
    ru_wait_caught_up(pc, rc, LINK_MS);
    ru_same_data(pc, rc, h_scaled_ms(5000));
    redisFree(rc);
    redisFree(pc);
}

static void expect_log(const srv *s, const char *what, const char *const needles[])
{
    int k = srv_log_wait_any(s, 30000, needles);
    if (k < 0) {
        char *log = srv_log_read(s);
        size_t n = strlen(log);
        ck_abort_msg("no log line for %s (looked for '%s'...); log tail:\n%s", what,
                     needles[0], n > 2500 ? log + n - 2500 : log);
    }
}

static void alive(srv *s)
{
    ck_assert_msg(!srv_wait_exit(s, 0), "the server exited (status 0x%x)", s->exit_status);
    redisContext *c = srv_connect(s);
    expect_status(c, "PONG", "PING");
    redisFree(c);
}

/* ------------------------------------------- the primary under test */

/* A replica that sends garbage right after PSYNC: the primary drops it
 * (a protocol error) and goes on. */
START_TEST(replica_sends_garbage) {
    srv *p = h_srv_start(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 2);
    char *before = ru_canon(pc);
    char line[256];
    int fd = fake_replica(p->port, 0, line, sizeof line);
    raw_send_str(fd, "*x\r\n\x01\x02\xff garbage\r\n");
    ck_assert_msg(raw_wait_closed(fd, h_scaled_ms(30000), NULL),
                  "the primary kept a replica that sent garbage");
    close(fd);
    expect_log(p, "a replica's garbage",
               (const char *const[]){ "Protocol error", "protocol error", NULL });
    h_wait_info(pc, "replication", "connected_slaves", 0, LINK_MS);
    alive(p);
    real_replica_agrees(p, before);
    free(before);
    redisFree(pc);
}
END_TEST

/* A replica that stops reading during the payload while the primary takes
 * 64 MB of writes: the primary drops it (output limit or timeout), keeps
 * serving, and its memory does not grow with what the replica missed. */
START_TEST(replica_stops_reading) {
    srv *p = h_srv_start(NODE_ARGS " --repl-backlog-size 1mb"
                         " --client-output-buffer-limit replica 4mb 2mb 10");
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 5);
    char *before = ru_canon(pc);
    char line[256];
    int fd = fake_replica(p->port, 4096, line, sizeof line);
    long base = h_rss_kb(p->pid), peak = base;
    size_t vlen = 64 * 1024;
    char *v = malloc(vlen);
    ck_assert_ptr_nonnull(v);
    memset(v, 'w', vlen);
    long long streamed = 0;
    for (int i = 0; streamed < (64LL << 20); i++) {
        redisReply *r = redisCommand(pc, "SET stall:%d %b", i % 8, v, vlen);
        ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "write %d refused", i);
        freeReplyObject(r);
        streamed += (long long)vlen;
        long rss = h_rss_kb(p->pid);
        if (rss > peak)
            peak = rss;
    }
    free(v);
    expect_log(p, "a replica that stopped reading",
               (const char *const[]){ "output buffer limits", "Disconnecting timedout replica",
                                      "Connection with replica", NULL });
    h_wait_info(pc, "replication", "connected_slaves", 0, LINK_MS);
    close(fd);
    long grown_mb = (peak - base) / 1024;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    /* ASan keeps freed blocks in its quarantine (256 MB by default) and TSan
     * maps shadow memory for what the server touches: RSS then says nothing
     * about what the server keeps; the bound is checked by the normal build */
    const long bound_mb = 512;
#else
    const long bound_mb = 32;
#endif
    ck_assert_msg(grown_mb < bound_mb, "the primary grew %ld MB (rss %ld -> %ld kB) for a stalled "
                  "replica with a 4 MB output limit", grown_mb, base, peak);
    alive(p);
    /* the writes went to the data set; the rest is as before */
    for (int i = 0; i < 8; i++)
        freeReplyObject(cmd(pc, "DEL stall:%d", i));
    real_replica_agrees(p, before);
    free(before);
    redisFree(pc);
}
END_TEST

/* What a primary logs when a replica goes (redis-server's words first). */
static const char *const lost_words[] = { "Connection with replica", "lost", "dropped" };
#define LOST_WORDS ((int)(sizeof lost_words / sizeof lost_words[0]))

/* A replica that disconnects after part of the payload, diskless then
 * disk-backed: the primary ends that transfer, loses nothing. */
START_TEST(replica_disconnects_mid_payload) {
    srv *p = h_srv_start(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 5);
    char *before = ru_canon(pc);
    const char *modes[] = { "yes", "no" };
    for (int m = 0; m < 2; m++) {
        expect_status(pc, "OK", "CONFIG SET repl-diskless-sync %s", modes[m]);
        int seen0[LOST_WORDS];
        for (int k = 0; k < LOST_WORDS; k++)
            seen0[k] = srv_log_count(p, lost_words[k]);
        char line[256], buf[65536];
        int fd = fake_replica(p->port, 4096, line, sizeof line);
        ck_assert(read_line(fd, buf, sizeof buf, 30000));
        ck_assert_msg(buf[0] == '$', "payload starts with '%s'", buf);
        int closed;
        size_t got = raw_read(fd, buf, sizeof buf, 32768, h_scaled_ms(30000), &closed);
        ck_assert_uint_gt(got, 0);
        ck_assert(!closed);
        close(fd);
        h_wait_info(pc, "replication", "connected_slaves", 0, LINK_MS);
        /* a log line about it (redis-server: "Connection with replica
         * 127.0.0.1:4242 lost.") */
        long long deadline = h_now_ms() + h_scaled_ms(30000);
        int logged = 0;
        while (!logged) {
            for (int k = 0; k < LOST_WORDS; k++)
                logged |= srv_log_count(p, lost_words[k]) > seen0[k];
            if (!logged && h_now_ms() > deadline) {
                char *log = srv_log_read(p);
                size_t n = strlen(log);
                ck_abort_msg("no log line for a replica gone mid-payload (diskless %s):\n%s",
                             modes[m], n > 2500 ? log + n - 2500 : log);
            }
            h_sleep_ms(20);
        }
        alive(p);
        expect_status(pc, "OK", "SET after-drop-%s 1", modes[m]);
        freeReplyObject(cmd(pc, "DEL after-drop-%s", modes[m]));
    }
    real_replica_agrees(p, before);
    free(before);
    redisFree(pc);
}
END_TEST

/* ------------------------------------------- the replica under test */

/* A valid RDB payload, from redis-server's SAVE (values uncompressed, so
 * that one can be corrupted in place). */
static char *make_rdb(size_t *len)
{
    srv *g = srv_start_redis("--rdbcompression no");
    redisContext *c = srv_connect(g);
    for (int i = 0; i < 200; i++)
        expect_status(c, "OK", "SET fk:%d fake-primary-value-%d-abcdefghijklmnop", i, i);
    expect_int(c, 3, "RPUSH fl a b c");
    expect_status(c, "OK", "SAVE");
    redisFree(c);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/dump.rdb", g->dir);
    char *rdb = h_slurp(path, len, 1);
    srv_stop(g);
    return rdb;
}

/* A fake primary: a listening socket on a free port. */
static int fp_listen(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(fd, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = 0 };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(fd, 8), 0);
    socklen_t sl = sizeof sa;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    *port = ntohs(sa.sin_port);
    return fd;
}

/* Accepts the replica's next connection (-1 after timeout_ms, scaled). */
static int fp_accept(int lfd, int timeout_ms)
{
    struct pollfd pfd = { lfd, POLLIN, 0 };
    if (poll(&pfd, 1, h_scaled_ms(timeout_ms)) <= 0)
        return -1;
    return accept(lfd, NULL, NULL);
}

/* Reads one RESP command; its name (upper case as sent) into name. */
static int fp_read_cmd(int fd, char *name, size_t cap)
{
    char line[512];
    if (!read_line(fd, line, sizeof line, 30000))
        return 0;
    if (line[0] != '*') { /* an inline command */
        size_t w = strcspn(line, " ");
        snprintf(name, cap, "%.*s", (int)(w < cap ? w : cap - 1), line);
        return 1;
    }
    long argc = strtol(line + 1, NULL, 10);
    for (long k = 0; k < argc; k++) {
        if (!read_line(fd, line, sizeof line, 30000) || line[0] != '$')
            return 0;
        size_t n = (size_t)strtoul(line + 1, NULL, 10);
        char arg[512];
        int closed;
        ck_assert_uint_lt(n + 2, sizeof arg);
        /* cap n + 3: recv must not take the bytes of the next command */
        if (raw_read(fd, arg, n + 3, n + 2, h_scaled_ms(30000), &closed) != n + 2)
            return 0;
        arg[n] = '\0';
        if (k == 0)
            snprintf(name, cap, "%.*s", (int)(cap - 1), arg);
    }
    return 1;
}

/* Answers the replica's handshake until its PSYNC (1) or SYNC; 0 when the
 * connection ends first. */
static int fp_handshake(int fd)
{
    char name[64];
    while (fp_read_cmd(fd, name, sizeof name)) {
        if (!strcasecmp(name, "PING"))
            raw_send_str(fd, "+PONG\r\n");
        else if (!strcasecmp(name, "PSYNC") || !strcasecmp(name, "SYNC"))
            return 1;
        else
            raw_send_str(fd, "+OK\r\n");
    }
    return 0;
}

/* The replica's next attempt that gets as far as PSYNC: earlier attempts it
 * gave up on may wait in the listen queue, closed; they are skipped.
 * Returns the connection, or -1 after timeout_ms (scaled). */
static int fp_next_attempt(int lfd, int timeout_ms)
{
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    while (h_now_ms() < deadline) {
        int fd = fp_accept(lfd, (int)((deadline - h_now_ms()) / h_time_scale()) + 1);
        if (fd < 0)
            return -1;
        if (fp_handshake(fd))
            return fd;
        close(fd);
    }
    return -1;
}

enum { BAD_TRUNC_LEN, BAD_TRUNC_EOF, BAD_CHECKSUM, BAD_GARBAGE, BAD_FULLRESYNC_LINE };

#define FAKE_ID "0123456789abcdef0123456789abcdef01234567"
#define EOF_MARK "abcdefghijabcdefghijabcdefghijabcdefghij"

/* Plays one bad primary on connection fd and closes it. */
static void fp_misbehave(int fd, int kind, const char *rdb, size_t len)
{
    char hdr[128];
    if (kind == BAD_FULLRESYNC_LINE) {
        raw_send_str(fd, "+FULLRESYNC " FAKE_ID "\r\n"); /* no offset */
    } else {
        raw_send_str(fd, "+FULLRESYNC " FAKE_ID " 100\r\n");
    }
    switch (kind) {
    case BAD_TRUNC_LEN:
        snprintf(hdr, sizeof hdr, "$%zu\r\n", len);
        raw_send_str(fd, hdr);
        send_all(fd, rdb, len / 2);
        break;
    case BAD_TRUNC_EOF:
        raw_send_str(fd, "$EOF:" EOF_MARK "\r\n");
        send_all(fd, rdb, len / 2);
        break;
    case BAD_CHECKSUM: {
        char *bad = malloc(len);
        ck_assert_ptr_nonnull(bad);
        memcpy(bad, rdb, len);
        char *at = memmem(bad, len, "fake-primary-value-7-", 21);
        ck_assert_ptr_nonnull(at);
        at[0] = 'F'; /* same length, same structure, another CRC */
        snprintf(hdr, sizeof hdr, "$%zu\r\n", len);
        raw_send_str(fd, hdr);
        send_all(fd, bad, len);
        free(bad);
        break;
    }
    case BAD_GARBAGE:
        raw_send_str(fd, "hello, I am not a payload\r\n");
        break;
    default: /* BAD_FULLRESYNC_LINE: then nothing */
        break;
    }
    /* give the replica the bytes before the end of the connection */
    h_sleep_ms(200);
    close(fd);
}

static void fake_primary_case(int kind)
{
    static const char *const words[][4] = {
        /* what redis-server 7.0 logs in each case first, then other clear
         * wordings */
        [BAD_TRUNC_LEN] = { "I/O error trying to sync with MASTER", "connection lost", NULL },
        [BAD_TRUNC_EOF] = { "I/O error trying to sync with MASTER", "connection lost", NULL },
        [BAD_CHECKSUM] = { "Wrong RDB checksum", "checksum", "CRC", NULL },
        [BAD_GARBAGE] = { "Bad protocol from MASTER", "the first byte is not '$'", NULL },
        [BAD_FULLRESYNC_LINE] = { "wrong +FULLRESYNC syntax", "+FULLRESYNC", NULL },
    };
    size_t len;
    char *rdb = make_rdb(&len);
    srv *r = h_srv_start(NODE_ARGS);
    redisContext *rc = srv_connect(r);
    expect_status(rc, "OK", "SET kept-before 1");
    int port, lfd = fp_listen(&port);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", port);
    int fd = fp_next_attempt(lfd, 30000);
    ck_assert_msg(fd >= 0, "the replica did not connect and send PSYNC");
    fp_misbehave(fd, kind, rdb, len);
    expect_log(r, "a bad primary", words[kind]);
    if (kind == BAD_CHECKSUM && srv_is_reference()) {
        /* redis-server 7.0 ends itself on a corrupt payload (it logs the
         * CRC error, runs its RDB check on the file and exits); verso must
         * not: it logs, drops the payload and retries. */
        ck_assert_msg(srv_wait_exit(r, h_scaled_ms(30000)), "redis-server survived");
        char *log = srv_log_read(r);
        ck_assert_msg(strstr(log, "RDB CRC error"), "%s", log);
        free(log);
        close(lfd);
        free(rdb);
        redisFree(rc);
        return;
    }
    alive(r);
    /* it retries: a new connection and handshake */
    fd = fp_next_attempt(lfd, 30000);
    ck_assert_msg(fd >= 0, "the replica did not retry (up to PSYNC)");
    close(fd);
    close(lfd);
    alive(r);
    if (kind != BAD_CHECKSUM)
        expect_bulk(rc, "1", "GET kept-before"); /* the old data served meanwhile */
    /* a real primary now: the replica syncs correctly */
    srv *p = h_srv_start_redis(NODE_ARGS);
    redisContext *pc = srv_connect(p);
    ru_preload(pc, 1);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", LINK_MS);
    ru_wait_caught_up(pc, rc, LINK_MS);
    ru_same_data(pc, rc, h_scaled_ms(5000));
    expect_nil(rc, "GET kept-before");
    free(rdb);
    redisFree(pc);
    redisFree(rc);
}

START_TEST(primary_truncated_len_payload) { fake_primary_case(BAD_TRUNC_LEN); }
END_TEST
START_TEST(primary_truncated_eof_payload) { fake_primary_case(BAD_TRUNC_EOF); }
END_TEST
START_TEST(primary_bad_checksum) { fake_primary_case(BAD_CHECKSUM); }
END_TEST
START_TEST(primary_garbage_payload) { fake_primary_case(BAD_GARBAGE); }
END_TEST
START_TEST(primary_bad_fullresync_line) { fake_primary_case(BAD_FULLRESYNC_LINE); }
END_TEST

int main(void)
{
    Suite *s = suite_create("repl_bad");
    h_add_dropall(s, "replica_sends_garbage", replica_sends_garbage, 300);
    h_add_dropall(s, "replica_stops_reading", replica_stops_reading, 300);
    h_add_dropall(s, "replica_disconnects_mid_payload", replica_disconnects_mid_payload, 300);
    h_add_dropall(s, "primary_truncated_len_payload", primary_truncated_len_payload, 300);
    h_add_dropall(s, "primary_truncated_eof_payload", primary_truncated_eof_payload, 300);
    h_add_dropall(s, "primary_bad_checksum", primary_bad_checksum, 300);
    h_add_dropall(s, "primary_garbage_payload", primary_garbage_payload, 300);
    h_add_dropall(s, "primary_bad_fullresync_line", primary_bad_fullresync_line, 300);
    return h_main(s);
}
