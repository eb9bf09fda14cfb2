/* Integration tests: the memory clients hold, as Redis 7.0 counts and
 * limits it (run them against redis-server too:
 * VERSO_SERVER=/usr/bin/redis-server).
 *
 * - CLIENT LIST's qbuf, argv-mem, multi-mem, omem and tot-mem follow what a
 *   client holds (a half-sent big argument, a transaction's queue, replies
 *   it does not read), and INFO's mem_clients_normal and used_memory with
 *   them;
 * - maxmemory-clients (bytes or a percentage of maxmemory) evicts the
 *   biggest clients first and only until the clients fit; CLIENT NO-EVICT
 *   exempts one; a client's own output buffer or a subscriber's get it
 *   evicted; INFO evicted_clients counts them;
 * - maxmemory counts the clients' buffers (Redis's maxmemory.tcl cases):
 *   many MGET readers, a dead client's half-sent command and a pub/sub
 *   fan-out evict keys without client eviction, clients with it, and
 *   used_memory stays near the limit. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define KB 1024LL
#define MB (1024LL * 1024)

/* CLIENT LIST's field `field` of the client named name, -1 when no
 * client has that name. */
static long long client_field(redisContext *c, const char *name, const char *field)
{
    redisReply *r = cmd(c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char want_name[128], want_field[64];
    snprintf(want_name, sizeof want_name, " name=%s ", name);
    snprintf(want_field, sizeof want_field, " %s=", field);
    long long v = -1;
    for (char *line = r->str; line && *line;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (strstr(line, want_name)) {
            /* the first field has no space before it */
            char *f = strncmp(line, want_field + 1, strlen(want_field) - 1) == 0
                          ? line - 1
                          : strstr(line, want_field);
            ck_assert_msg(f != NULL, "no %s in '%s'", field, line);
            v = atoll(f + strlen(want_field));
        }
        line = end ? end + 1 : NULL;
    }
    freeReplyObject(r);
    return v;
}

static int client_exists(redisContext *c, const char *name)
{
    return client_field(c, name, "id") >= 0;
}

/* A raw connection named name (CLIENT SETNAME answered). */
static int named_raw(const srv *s, const char *name)
{
    int fd = raw_connect(s->port);
    ck_assert_int_ge(fd, 0);
    char req[128], buf[64];
    int closed = 0;
    snprintf(req, sizeof req, "CLIENT SETNAME %s\r\n", name);
    ck_assert_int_eq(raw_send_str(fd, req), 0);
    raw_read(fd, buf, sizeof buf, 5, 5000, &closed);
    ck_assert_str_eq(buf, "+OK\r\n");
    return fd;
}

/* Sends the start of SET k <value of total bytes> with only `sent` bytes of
 * the value: a command the server holds, unfinished, in the query buffer. */
static void send_partial(int fd, long long total, long long sent)
{
    char hdr[96];
    snprintf(hdr, sizeof hdr, "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$%lld\r\n", total);
    ck_assert_int_eq(raw_send_str(fd, hdr), 0);
    char *body = malloc((size_t)sent);
    memset(body, 'x', (size_t)sent);
    ck_assert_int_eq(raw_send(fd, body, (size_t)sent), 0);
    free(body);
}

/* Waits until the named client's field reaches at least want. */
static long long wait_field_ge(redisContext *c, const char *name, const char *field,
                               long long want)
{
    long long v = -1, t0 = h_now_ms();
    while ((v = client_field(c, name, field)) < want && h_now_ms() - t0 < h_scaled_ms(10000))
        h_sleep_ms(10);
    ck_assert_msg(v >= want, "%s of %s: %lld, want >= %lld", field, name, v, want);
    return v;
}

static long long mem_info(redisContext *c, const char *field)
{
    return h_info_int(c, "memory", field);
}

/* ---- what CLIENT LIST and INFO count ---- */

/* A half-sent 1 MB argument: qbuf and tot-mem hold it, used_memory and
 * mem_clients_normal grow by it, and both drop when the client goes. */
START_TEST(query_buffer_counted)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    long long used0 = mem_info(c, "used_memory");
    long long clients0 = mem_info(c, "mem_clients_normal");
    int fd = named_raw(s, "big");
    send_partial(fd, 1000000, 600000);
    long long qbuf = wait_field_ge(c, "big", "qbuf", 600000);
    long long tot = client_field(c, "big", "tot-mem");
    ck_assert_int_ge(tot, qbuf);
    ck_assert_int_lt(tot, 1100 * KB); /* the argument's room, not more */
    ck_assert_int_eq(client_field(c, "big", "omem"), 0);
    /* Redis recounts a client that sends nothing more in its cron */
    long long clients1 =
        h_wait_info_at(__FILE__, __LINE__, c, "memory", "mem_clients_normal", H_GE,
                       clients0 + 550000, 2000);
    long long used1 = mem_info(c, "used_memory");
    ck_assert_msg(clients1 - clients0 >= 550000, "mem_clients_normal %lld -> %lld", clients0,
                  clients1);
    ck_assert_msg(used1 - used0 >= 550000, "used_memory %lld -> %lld", used0, used1);
    close(fd);
    long long t0 = h_now_ms();
    while (client_exists(c, "big") && h_now_ms() - t0 < 5000) h_sleep_ms(10);
    ck_assert_int_lt(mem_info(c, "mem_clients_normal"), clients0 + 200 * KB);
    ck_assert_int_lt(mem_info(c, "used_memory"), used0 + 200 * KB);
    redisFree(c);
}
END_TEST

/* multi-mem: the queued commands' arguments; argv-mem: the running
 * command's (CLIENT LIST's own "client list" is 10 bytes). */
START_TEST(multi_and_argv_mem)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    redisContext *t = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    expect_status(t, "OK", "CLIENT SETNAME tx");
    ck_assert_int_eq(client_field(c, "tx", "multi-mem"), 0);
    ck_assert_int_eq(client_field(c, "control", "argv-mem"), 10);
    ck_assert_int_eq(client_field(c, "tx", "argv-mem"), 0);
    char val[1001];
    memset(val, 'v', 1000);
    val[1000] = '\0';
    expect_status(t, "OK", "MULTI");
    for (int i = 0; i < 20; i++) expect_status(t, "QUEUED", "SET key:%d %s", i, val);
    long long mm = client_field(c, "tx", "multi-mem");
    ck_assert_msg(mm >= 20000 && mm < 60000, "multi-mem %lld", mm);
    ck_assert_int_ge(client_field(c, "tx", "tot-mem"), mm);
    expect_status(t, "OK", "DISCARD");
    ck_assert_int_lt(client_field(c, "tx", "multi-mem"), 1000);
    redisFree(t);
    redisFree(c);
}
END_TEST

/* Replies a client does not read: omem and tot-mem grow past what the
 * kernel took, mem_clients_normal with them. */
START_TEST(output_buffer_counted)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    expect_int(c, 100001, "SETRANGE big 100000 x");
    long long clients0 = mem_info(c, "mem_clients_normal");
    int fd = named_raw(s, "reader");
    char req[64];
    snprintf(req, sizeof req, "GET big\r\n");
    for (int i = 0; i < 100; i++) ck_assert_int_eq(raw_send_str(fd, req), 0); /* ~10 MB */
    wait_field_ge(c, "reader", "omem", 2 * MB);
    ck_assert_int_ge(client_field(c, "reader", "tot-mem"), 2 * MB); /* the kernel drains some */
    h_wait_info_at(__FILE__, __LINE__, c, "memory", "mem_clients_normal", H_GE,
                   clients0 + 2 * MB, 2000);
    close(fd);
    redisFree(c);
}
END_TEST

/* A client idle for a few seconds keeps no empty buffers (Redis frees an
 * idle client's query buffer after 2 s): 100 such clients hold little
 * more than their structs, where each held 64 KB of query buffer. */
START_TEST(idle_clients_release_buffers)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    int fds[100];
    char name[32];
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "idle%d", i);
        fds[i] = named_raw(s, name);
    }
    h_sleep_ms(3500);
    long long idle = client_field(c, "idle7", "tot-mem");
    ck_assert_msg(idle < 32 * KB, "an idle client's tot-mem: %lld", idle);
    long long all = mem_info(c, "mem_clients_normal");
    ck_assert_msg(all < 100 * 32 * KB, "mem_clients_normal with 100 idle clients: %lld", all);
    /* and it is served as before */
    ck_assert_int_eq(raw_send_str(fds[7], "PING\r\n"), 0);
    char buf[16];
    int closed = 0;
    raw_read(fds[7], buf, sizeof buf, 7, 5000, &closed);
    ck_assert_str_eq(buf, "+PONG\r\n");
    for (int i = 0; i < 100; i++) close(fds[i]);
    redisFree(c);
}
END_TEST

/* ---- maxmemory-clients ---- */

/* The biggest client goes first, and only until the rest fit: with 300 KB,
 * 600 KB and a small client, a limit between 300 KB and 900 KB evicts the
 * 600 KB one alone. Lowering the limit (CONFIG SET) evicts at once. */
START_TEST(evicts_biggest_first)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    expect_status(c, "OK", "CONFIG RESETSTAT");
    int a = named_raw(s, "a"), b = named_raw(s, "b"), small = named_raw(s, "small");
    send_partial(a, 300000, 300000 - 10);
    send_partial(b, 600000, 600000 - 10);
    wait_field_ge(c, "a", "qbuf", 300000 - 10);
    wait_field_ge(c, "b", "qbuf", 600000 - 10);
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 0);
    expect_status(c, "OK", "CONFIG SET maxmemory-clients %lld", 800 * KB);
    long long t0 = h_now_ms();
    while (client_exists(c, "b") && h_now_ms() - t0 < h_scaled_ms(5000)) h_sleep_ms(10);
    ck_assert(!client_exists(c, "b"));
    ck_assert(client_exists(c, "a"));
    ck_assert(client_exists(c, "small"));
    ck_assert(client_exists(c, "control"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 1);
    /* b's socket is closed by the server */
    ck_assert(raw_wait_closed(b, 5000, NULL));
    /* under the least limit (128 KB) a goes too, not the no-evict control */
    expect_status(c, "OK", "CONFIG SET maxmemory-clients 1");
    t0 = h_now_ms();
    while (client_exists(c, "a") && h_now_ms() - t0 < h_scaled_ms(5000)) h_sleep_ms(10);
    ck_assert(!client_exists(c, "a"));
    ck_assert(client_exists(c, "control"));
    expect_status(c, "OK", "CONFIG SET maxmemory-clients 0");
    close(a);
    close(b);
    close(small);
    redisFree(c);
}
END_TEST

/* CLIENT NO-EVICT on keeps a client however big; the others still go. */
START_TEST(no_evict_exempts)
{
    srv *s = h_srv_start("--maxmemory-clients 1mb");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT SETNAME control");
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    int keep = named_raw(s, "keep");
    ck_assert_int_eq(raw_send_str(keep, "CLIENT NO-EVICT on\r\n"), 0);
    char buf[16];
    int closed = 0;
    raw_read(keep, buf, sizeof buf, 5, 5000, &closed);
    ck_assert_str_eq(buf, "+OK\r\n");
    ck_assert_int_gt(client_field(c, "keep", "id"), 0);
    send_partial(keep, 2000000, 1500000);
    wait_field_ge(c, "keep", "qbuf", 1500000);
    h_sleep_ms(100);
    ck_assert(client_exists(c, "keep"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 0);
    /* over the limit through no-evict clients: a new evictable one goes */
    int other = raw_connect(s->port);
    ck_assert_int_eq(raw_send_str(other, "PING\r\n"), 0);
    ck_assert(raw_wait_closed(other, h_scaled_ms(5000), NULL));
    ck_assert(client_exists(c, "keep"));
    ck_assert_int_ge(h_info_int(c, "stats", "evicted_clients"), 1);
    close(keep);
    close(other);
    redisFree(c);
}
END_TEST

/* maxmemory-clients as a percentage of maxmemory, which follows
 * maxmemory: 5% of 20 MB (1 MB) keeps a 600 KB client, 5% of 10 MB
 * (512 KB) does not. */
START_TEST(percent_of_maxmemory)
{
    srv *s = h_srv_start("--maxmemory 20mb --maxmemory-clients 5%%");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    int fd = named_raw(s, "big");
    send_partial(fd, 600000, 600000 - 10);
    wait_field_ge(c, "big", "qbuf", 600000 - 10);
    h_sleep_ms(100);
    ck_assert(client_exists(c, "big"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 0);
    expect_status(c, "OK", "CONFIG SET maxmemory 10mb");
    ck_assert(raw_wait_closed(fd, h_scaled_ms(5000), NULL));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 1);
    close(fd);
    redisFree(c);
}
END_TEST

/* A client that piles up replies it does not read is evicted before its
 * memory passes the limit by much (Redis's "client evicted due to output
 * buf"); a subscriber that does not read, by what PUBLISH queues for it. */
START_TEST(output_and_pubsub_evicted)
{
    srv *s = h_srv_start("--maxmemory-clients 3mb");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    expect_int(c, 200001, "SETRANGE k 200000 v");
    int fd = named_raw(s, "reader");
    int sub = named_raw(s, "sub");
    ck_assert_int_eq(raw_send_str(sub, "SUBSCRIBE news\r\n"), 0);
    char buf[64];
    int closed = 0;
    raw_read(sub, buf, sizeof buf, 33, 5000, &closed); /* *3 $9 subscribe $4 news :1 */
    ck_assert_int_eq(client_field(c, "sub", "sub"), 1);
    for (int i = 0; i < 200 && client_exists(c, "reader"); i++) {
        ck_assert_int_lt(client_field(c, "reader", "tot-mem"), 3 * MB + 300 * KB);
        if (raw_send_str(fd, "GET k\r\n") != 0) break;
    }
    ck_assert(!client_exists(c, "reader"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 1);
    char *msg = malloc(100001);
    memset(msg, 'm', 100000);
    msg[100000] = '\0';
    for (int i = 0; i < 200 && client_exists(c, "sub"); i++)
        expect_int_range(c, 0, 1, "PUBLISH news %s", msg);
    free(msg);
    ck_assert(!client_exists(c, "sub"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 2);
    close(fd);
    close(sub);
    redisFree(c);
}
END_TEST

/* What a client keeps besides its buffers counts too (Redis's
 * client-eviction.tcl): under a 200 KB limit, a client that queues a big
 * transaction (_i 0), watches keys (1), subscribes to patterns (2),
 * channels (3) or shard channels (4), or adds tracking prefixes (5), is
 * evicted in the end; the control client (no-evict) stays. */
START_TEST(state_counted)
{
    static const char *const what[] = {"SET k %s", "WATCH %d", "PSUBSCRIBE %d",
                                       "SUBSCRIBE %d", "SSUBSCRIBE %d",
                                       "CLIENT TRACKING on PREFIX a%09d PREFIX b%09d BCAST"};
    srv *s = h_srv_start("--maxmemory-clients 200000");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    redisContext *rr = srv_connect(s);
    char val[10001];
    memset(val, 'v', 10000);
    val[10000] = '\0';
    if (_i == 0) expect_status(rr, "OK", "MULTI");
    int j = 0, gone = 0;
    for (; j < 200000 && !gone; j++) {
        redisReply *r = _i == 0   ? redisCommand(rr, what[0], val)
                        : _i == 5 ? redisCommand(rr, what[5], j, j)
                                  : redisCommand(rr, what[_i], j);
        if (!r) gone = 1;
        else freeReplyObject(r);
    }
    ck_assert_msg(gone, "%s: still connected after %d commands", what[_i], j);
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 1);
    redisFree(rr);
    expect_status(c, "PONG", "PING");
    redisFree(c);
}
END_TEST

/* A client over its output buffer limit is closed for that, not evicted
 * (Redis's "avoid client eviction when client is freed by output buffer
 * limit"): with a 3 MB normal limit and 10 MB maxmemory-clients, two 4 MB
 * replies beside a 6 MB query buffer close the readers and leave the
 * query buffer's client. */
START_TEST(output_limit_before_eviction)
{
    srv *s = h_srv_start("--maxmemory-clients 10mb --client-output-buffer-limit "
                         "normal 3mb 0 0");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CLIENT NO-EVICT on");
    expect_int(c, 4 * MB + 1, "SETRANGE k %lld v", 4 * MB);
    int q = named_raw(s, "qbuf-client");
    int o1 = named_raw(s, "obuf-client1"), o2 = named_raw(s, "obuf-client2");
    long long qbsize = 10 * MB - 4 * MB - MB;
    send_partial(q, qbsize, qbsize - 10);
    wait_field_ge(c, "qbuf-client", "qbuf", qbsize - 10);
    ck_assert_int_eq(raw_send_str(o1, "GET k\r\n"), 0);
    ck_assert_int_eq(raw_send_str(o2, "GET k\r\n"), 0);
    ck_assert(raw_wait_closed(o1, h_scaled_ms(5000), NULL));
    ck_assert(raw_wait_closed(o2, h_scaled_ms(5000), NULL));
    ck_assert(client_exists(c, "qbuf-client"));
    ck_assert_int_eq(h_info_int(c, "stats", "evicted_clients"), 0);
    close(q);
    close(o1);
    close(o2);
    redisFree(c);
}
END_TEST

/* A replica's buffers (Redis's "slave buffer are counted correctly"): with
 * the replica stopped, 200,000 SETRANGEs that do not grow the data set
 * pile up for it; mem_clients_slaves shows them, used_memory grows by them
 * and what maxmemory counts (used_memory - mem_not_counted_for_evict) does
 * not; CLIENT KILL TYPE replica gives them back. */
START_TEST(replica_buffers_counted)
{
    srv *m = h_srv_start("--repl-backlog-size 10240 --client-output-buffer-limit "
                         "replica 100000000 100000000 300 --repl-timeout 1200");
    srv *r = h_srv_start(NULL);
    redisContext *mc = srv_connect(m), *rc = srv_connect(r);
    for (int j = 0; j < 100; j++) expect_int(mc, 100004, "SETRANGE key:%d 100000 asdf", j);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", m->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    h_sleep_ms(200);
    long long used0 = mem_info(mc, "used_memory");
    long long counted0 = used0 - mem_info(mc, "mem_not_counted_for_evict");
    ck_assert_int_eq(kill(r->pid, SIGSTOP), 0);
    for (int k = 0; k < 200000; k += 1000) {
        for (int i = 0; i < 1000; i++) h_send(mc, "SETRANGE key:0 0 AAAAAAAAAA");
        for (int i = 0; i < 1000; i++) freeReplyObject(h_next_reply(mc));
    }
    long long slaves = mem_info(mc, "mem_clients_slaves");
    long long used1 = mem_info(mc, "used_memory");
    long long counted1 = used1 - mem_info(mc, "mem_not_counted_for_evict");
    ck_assert_msg(slaves > 2 * MB, "mem_clients_slaves %lld", slaves); /* ~9 MB sent */
    ck_assert_msg(used1 - used0 > slaves / 2, "used_memory %lld -> %lld with %lld for replicas",
                  used0, used1, slaves);
    ck_assert_msg(llabs(counted1 - counted0) < MB, "counted for maxmemory %lld -> %lld", counted0,
                  counted1);
    expect_int(mc, 1, "CLIENT KILL TYPE replica");
    h_wait_info_at(__FILE__, __LINE__, mc, "memory", "mem_clients_slaves", H_LE, 0, 5000);
    long long used2 = mem_info(mc, "used_memory");
    ck_assert_msg(used2 < used1 - slaves / 2, "used_memory after the kill %lld (was %lld)", used2,
                  used1);
    ck_assert_int_eq(kill(r->pid, SIGCONT), 0);
    expect_int(mc, 100, "DBSIZE");
    redisFree(rc);
    redisFree(mc);
}
END_TEST

/* ---- maxmemory with client buffers (Redis's maxmemory.tcl) ---- */

/* maxmemory 11 MB, allkeys-lru, 50 keys of 100 KB; with client eviction
 * (loop 1) maxmemory-clients 3 MB and the control client no-evict. */
static redisContext *mm_setup(srv **out, int client_eviction)
{
    srv *s = *out = h_srv_start("--maxmemory 11mb --maxmemory-policy allkeys-lru");
    redisContext *c = srv_connect(s);
    if (client_eviction) {
        expect_status(c, "OK", "CONFIG SET maxmemory-clients 3mb");
        expect_status(c, "OK", "CLIENT NO-EVICT on");
    }
    expect_status(c, "OK", "CONFIG RESETSTAT");
    for (int j = 0; j < 50; j++) expect_int(c, 100001, "SETRANGE %d 100000 x", j);
    expect_int(c, 50, "DBSIZE");
    return c;
}

/* Keys evicted and not clients (no client eviction), or clients and not
 * keys (client eviction). */
static int mm_evicted(redisContext *c, int client_eviction)
{
    char *info = h_info(c, "all");
    char buf[32];
    h_info_field(info, "evicted_keys", buf, sizeof buf);
    long long keys = atoll(buf);
    h_info_field(info, "evicted_clients", buf, sizeof buf);
    long long clients = atoll(buf);
    free(info);
    redisReply *r = cmd(c, "DBSIZE");
    long long dbsize = r->integer;
    freeReplyObject(r);
    if (client_eviction) return clients > 0 && keys == 0 && dbsize == 50;
    return clients == 0 && keys > 0 && dbsize < 50;
}

/* used_memory near maxmemory once eviction acted: one 100 KB reply per
 * reader, the kernel's share aside, is the slack. */
static void mm_under_limit(redisContext *c)
{
    long long used = mem_info(c, "used_memory");
    ck_assert_msg(used < 11 * MB + 2 * MB, "used_memory %lld over maxmemory 11mb", used);
}

/* 20 readers send MGET 1 without reading the 100 KB replies. */
START_TEST(mget_readers)
{
    int ce = _i;
    srv *s;
    redisContext *c = mm_setup(&s, ce);
    int fds[20];
    for (int i = 0; i < 20; i++) fds[i] = raw_connect(s->port);
    long long t0 = h_now_ms();
    while (!mm_evicted(c, ce) && h_now_ms() - t0 < 20000) {
        for (int i = 0; i < 20; i++)
            if (fds[i] >= 0 && raw_send_str(fds[i], "MGET 1\r\n") != 0) {
                close(fds[i]);
                fds[i] = -1;
            }
    }
    ck_assert(mm_evicted(c, ce));
    mm_under_limit(c);
    for (int i = 0; i < 20; i++)
        if (fds[i] >= 0) close(fds[i]);
    redisFree(c);
}
END_TEST

/* 30 clients each send 249 of the 250 arguments of a command (~250 KB)
 * and stop: their query buffers alone pass the limit. */
START_TEST(dead_client_input)
{
    int ce = _i;
    srv *s;
    redisContext *c = mm_setup(&s, ce);
    char *arg = malloc(1000 + 16);
    int n = snprintf(arg, 16, "$1000\r\n");
    memset(arg + n, 'x', 1000);
    memcpy(arg + n + 1000, "\r\n", 2);
    int fds[30];
    for (int i = 0; i < 30; i++) {
        fds[i] = raw_connect(s->port);
        if (raw_send_str(fds[i], "*250\r\n") != 0) continue;
        for (int j = 0; j < 249; j++)
            if (raw_send(fds[i], arg, (size_t)n + 1002) != 0) break;
    }
    free(arg);
    long long t0 = h_now_ms(); /* INFO and DBSIZE are commands: they evict */
    while (!mm_evicted(c, ce) && h_now_ms() - t0 < h_scaled_ms(10000)) h_sleep_ms(10);
    ck_assert(mm_evicted(c, ce));
    mm_under_limit(c);
    for (int i = 0; i < 30; i++) close(fds[i]);
    redisFree(c);
}
END_TEST

/* 20 subscribers that do not read; 100 KB messages published. */
START_TEST(pubsub_fanout)
{
    int ce = _i;
    srv *s;
    redisContext *c = mm_setup(&s, ce);
    int fds[20];
    for (int i = 0; i < 20; i++) {
        fds[i] = raw_connect(s->port);
        ck_assert_int_eq(raw_send_str(fds[i], "SUBSCRIBE bla\r\n"), 0);
        char buf[64];
        int closed = 0;
        raw_read(fds[i], buf, sizeof buf, 32, 5000, &closed);
    }
    char *msg = malloc(100001);
    memset(msg, 'x', 100000);
    msg[100000] = '\0';
    long long t0 = h_now_ms();
    while (!mm_evicted(c, ce) && h_now_ms() - t0 < 20000) {
        redisReply *r = cmd(c, "PUBLISH bla %s", msg);
        freeReplyObject(r);
    }
    free(msg);
    ck_assert(mm_evicted(c, ce));
    mm_under_limit(c);
    for (int i = 0; i < 20; i++) close(fds[i]);
    redisFree(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("client_mem");
    TCase *tc = tcase_create("client_mem");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, query_buffer_counted);
    tcase_add_test(tc, multi_and_argv_mem);
    tcase_add_test(tc, output_buffer_counted);
    tcase_add_test(tc, idle_clients_release_buffers);
    tcase_add_test(tc, evicts_biggest_first);
    tcase_add_test(tc, no_evict_exempts);
    tcase_add_test(tc, percent_of_maxmemory);
    tcase_add_test(tc, output_and_pubsub_evicted);
    tcase_add_loop_test(tc, state_counted, 0, 6);
    tcase_add_test(tc, output_limit_before_eviction);
    tcase_add_test(tc, replica_buffers_counted);
    tcase_add_loop_test(tc, mget_readers, 0, 2);
    tcase_add_loop_test(tc, dead_client_input, 0, 2);
    tcase_add_loop_test(tc, pubsub_fanout, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return h_main(suite()); }
