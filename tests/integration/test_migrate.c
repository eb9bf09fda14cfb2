/* Integration tests of MIGRATE outside cluster mode, with Redis 7.0's
 * replies: the server under test (verso, or redis-server with
 * VERSO_SERVER) migrating to Redis's own redis-server, from redis-server to
 * it, and to another server under test; every type of value and its TTL,
 * KEYS, COPY, REPLACE (BUSYKEY from the target without it), NOKEY, the
 * destination db, AUTH and AUTH2, the cached connection; a target that is
 * down or never answers (IOERR, within the timeout). verso's MIGRATE runs
 * off its main thread: a big value's MIGRATE does not stall other clients,
 * writers of the key wait for it and then apply in Redis's order, a target
 * killed mid-transfer leaves the key in place; inside EXEC and scripts it
 * runs as in Redis. RESTORE-ASKING as Redis 7.0's. */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TARGET_ERR "ERR Target instance replied with error: "

#ifndef VERSO_THREADFAIL_SHIM
#error "VERSO_THREADFAIL_SHIM comes from tests/lib/test_paths.h (Makefile.am writes it)"
#endif

/* One value of each type, two with a TTL. */
static void fill(redisContext *c)
{
    expect_status(c, "OK", "SET str hello PX 100000");
    expect_int(c, 3, "RPUSH list a b c");
    expect_int(c, 2, "HSET hash f1 v1 f2 v2");
    expect_int(c, 3, "SADD set x y z");
    expect_int(c, 2, "ZADD zset 1 one 2 two");
    redisReply *r = cmd(c, "XADD stream 1-1 f v");
    freeReplyObject(r);
    expect_int(c, 1, "EXPIRE list 1000");
}

/* The value of key as text (an order-independent form for sets and
 * hashes), "" when absent. */
static void value_of(redisContext *c, const char *key, char *out, size_t cap)
{
    redisReply *t = cmd(c, "TYPE %s", key);
    char type[16];
    snprintf(type, sizeof type, "%s", t->str);
    freeReplyObject(t);
    const char *fmt = !strcmp(type, "string") ? "GET %s"
                      : !strcmp(type, "list") ? "LRANGE %s 0 -1"
                      : !strcmp(type, "hash") ? "HGETALL %s"
                      : !strcmp(type, "set")  ? "SORT %s ALPHA"
                      : !strcmp(type, "zset") ? "ZRANGE %s 0 -1 WITHSCORES"
                      : !strcmp(type, "stream") ? "XLEN %s"
                                              : NULL;
    out[0] = '\0';
    if (!fmt) return;
    redisReply *r = cmd(c, fmt, key);
    size_t o = (size_t)snprintf(out, cap, "%s:", type);
    if (r->type == REDIS_REPLY_STRING) snprintf(out + o, cap - o, "%s", r->str);
    else if (r->type == REDIS_REPLY_INTEGER) snprintf(out + o, cap - o, "%lld", r->integer);
    else if (!strcmp(type, "hash")) { /* HGETALL's pairs in order of field */
        int swap = r->elements == 4 && strcmp(r->element[0]->str, r->element[2]->str) > 0;
        for (size_t i = 0; i < r->elements && o < cap; i++) {
            size_t j = swap ? (i + 2) % 4 : i;
            o += (size_t)snprintf(out + o, cap - o, "%s,", r->element[j]->str);
        }
    } else
        for (size_t i = 0; i < r->elements && o < cap; i++)
            o += (size_t)snprintf(out + o, cap - o, "%s,", r->element[i]->str);
    freeReplyObject(r);
}

static const char *const keys[] = {"str", "list", "hash", "set", "zset", "stream"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Everything MIGRATE does between src and dst (fresh servers). */
static void run_pair(srv *src, srv *dst)
{
    redisContext *s = srv_connect(src), *d = srv_connect(dst);
    fill(s);
    char want[NKEYS][256], got[256];
    for (size_t i = 0; i < NKEYS; i++) value_of(s, keys[i], want[i], sizeof want[i]);
    /* one key: gone here, there with its value and TTL */
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d str 0 5000", dst->port);
    expect_int(s, 0, "EXISTS str");
    value_of(d, "str", got, sizeof got);
    ck_assert_str_eq(got, want[0]);
    expect_int_range(d, 90000, 100000, "PTTL str");
    /* KEYS, a missing one skipped; into db 3 */
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d %s 3 5000 KEYS list hash nokey set zset stream",
                  dst->port, "");
    expect_int(s, 0, "DBSIZE");
    expect_status(d, "OK", "SELECT 3");
    for (size_t i = 1; i < NKEYS; i++) {
        value_of(d, keys[i], got, sizeof got);
        ck_assert_str_eq(got, want[i]);
    }
    expect_int_range(d, 990, 1000, "TTL list");
    expect_int(d, -1, "TTL hash");
    /* the same key again: BUSYKEY from the target, kept here; REPLACE */
    expect_status(s, "OK", "SET list other");
    expect_error(s, TARGET_ERR "BUSYKEY Target key name already exists.",
                 "MIGRATE 127.0.0.1 %d list 3 5000", dst->port);
    expect_bulk(s, "other", "GET list");
    /* COPY keeps the key here */
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d list 3 5000 COPY REPLACE", dst->port);
    expect_bulk(s, "other", "GET list");
    expect_bulk(d, "other", "GET list");
    expect_status(s, "NOKEY", "MIGRATE 127.0.0.1 %d nokey 0 5000", dst->port);
    expect_status(s, "NOKEY", "MIGRATE 127.0.0.1 %d %s 0 5000 KEYS a b", dst->port, "");
    /* the connection stays cached */
    ck_assert_int_eq(h_info_int(s, "stats", "migrate_cached_sockets"), 1);
    /* argument errors */
    expect_error(s, "ERR When using MIGRATE KEYS option, the key argument must be set to the "
                    "empty string", "MIGRATE 127.0.0.1 %d list 0 5000 KEYS a", dst->port);
    expect_error(s, "ERR syntax error", "MIGRATE 127.0.0.1 %d list 0 5000 FOO", dst->port);
    expect_error(s, "ERR syntax error", "MIGRATE 127.0.0.1 %d list 0 5000 AUTH2 u", dst->port);
    expect_error(s, "ERR value is not an integer or out of range",
                 "MIGRATE 127.0.0.1 %d list x 5000", dst->port);
    expect_error(s, "ERR wrong number of arguments for 'migrate' command",
                 "MIGRATE 127.0.0.1 %d list 0", dst->port);
    /* a target that requires a password: refused without, AUTH, AUTH2 */
    expect_status(d, "OK", "ACL SETUSER mig on >mpw +@all ~*");
    expect_status(d, "OK", "CONFIG SET requirepass pw");
    /* the cached connection was authenticated before: the target drops
     * it, the next MIGRATE finds it dead and connects again (its retry) */
    expect_int(d, 1, "CLIENT KILL TYPE normal SKIPME yes");
    expect_error(s, TARGET_ERR "NOAUTH Authentication required.",
                 "MIGRATE 127.0.0.1 %d list 0 5000 REPLACE", dst->port);
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d list 0 5000 REPLACE AUTH pw", dst->port);
    expect_status(s, "OK", "SET auth2 v");
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d auth2 0 5000 AUTH2 mig mpw", dst->port);
    expect_int(s, 0, "EXISTS auth2");
    expect_status(d, "OK", "AUTH pw");
    expect_status(d, "OK", "SELECT 0");
    expect_bulk(d, "v", "GET auth2");
    expect_bulk(d, "other", "GET list");
    redisFree(s);
    redisFree(d);
}

START_TEST(under_test_to_redis)
{
    run_pair(h_srv_start(NULL), h_srv_start_redis("%s", ""));
}
END_TEST

START_TEST(redis_to_under_test)
{
    run_pair(h_srv_start_redis("%s", ""), h_srv_start(NULL));
}
END_TEST

START_TEST(under_test_to_under_test)
{
    run_pair(h_srv_start(NULL), h_srv_start(NULL));
}
END_TEST

/* A MIGRATE on a connection of its own, in a thread of the test (no
 * assertions there: the main thread checks what it stored). */
typedef struct bg_migrate {
    int port;                 /* the source's */
    char cmdline[256];        /* hiredis format, no arguments */
    redisReply *reply;
    long long took_ms;
    atomic_int done;
    pthread_t tid;
} bg_migrate;

static void *bg_migrate_main(void *p)
{
    bg_migrate *m = p;
    redisContext *c = redisConnect("127.0.0.1", m->port);
    long long t0 = h_now_ms();
    if (c && !c->err) m->reply = redisCommand(c, m->cmdline);
    m->took_ms = h_now_ms() - t0;
    if (c) redisFree(c);
    atomic_store(&m->done, 1);
    return NULL;
}

static void bg_migrate_start(bg_migrate *m, const srv *src, const char *fmt, int port)
{
    memset(m, 0, sizeof *m);
    m->port = src->port;
    snprintf(m->cmdline, sizeof m->cmdline, fmt, port);
    ck_assert_int_eq(pthread_create(&m->tid, NULL, bg_migrate_main, m), 0);
}

static redisReply *bg_migrate_join(bg_migrate *m)
{
    ck_assert_int_eq(pthread_join(m->tid, NULL), 0);
    ck_assert_msg(m->reply != NULL, "MIGRATE: no reply");
    return m->reply;
}

/* verso: waits until INFO stats' field reaches want while m runs (fails
 * if m ends first). Redis blocks during a MIGRATE: its INFO would answer
 * only after it; a short sleep lets its MIGRATE start instead. */
static void wait_while_running(redisContext *c, bg_migrate *m, const char *field, long long want)
{
    if (srv_is_reference()) {
        h_sleep_ms(50);
        return;
    }
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    while (h_info_int(c, "stats", field) < want) {
        ck_assert_msg(!atomic_load(&m->done), "the MIGRATE ended before %s reached %lld", field,
                      want);
        ck_assert_msg(h_now_ms() < deadline, "%s never reached %lld", field, want);
        h_sleep_ms(1);
    }
}

/* A listening socket that never accepts nor answers. */
static int silent_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(fd, 8), 0);
    socklen_t sl = sizeof sa;
    ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
    *port = ntohs(sa.sin_port);
    return fd;
}

/* A target that is down, unknown or silent: Redis's IOERR texts, the key
 * kept, the answer within about the timeout. */
START_TEST(target_down_or_silent)
{
    srv *src = h_srv_start(NULL);
    redisContext *s = srv_connect(src);
    expect_status(s, "OK", "SET k v");
    int down = h_free_port();
    expect_error(s, "IOERR error or timeout writing to target instance",
                 "MIGRATE 127.0.0.1 %d k 0 1000", down);
    expect_error(s, "IOERR error or timeout connecting to the client",
                 "MIGRATE nosuchhost.invalid 6379 k 0 1000");
    int port;
    int fd = silent_listener(&port);
    long long t0 = h_now_ms();
    expect_error(s, "IOERR error or timeout reading to target instance",
                 "MIGRATE 127.0.0.1 %d k 0 300", port);
    long long took = h_now_ms() - t0;
    ck_assert_msg(took >= 290 && took < h_scaled_ms(2000), "took %lld ms", took);
    expect_bulk(s, "v", "GET k");
    /* verso: other clients are served while a MIGRATE waits for a silent
     * target (Redis: not before its timeout) */
    bg_migrate m;
    bg_migrate_start(&m, src, "MIGRATE 127.0.0.1 %d k 0 1000", port);
    wait_while_running(s, &m, "migrate_in_flight", 1);
    if (!srv_is_reference()) {
        long long p0 = h_now_ms();
        expect_status(s, "PONG", "PING");
        expect_bulk(s, "v", "GET k");
        ck_assert_int_lt(h_now_ms() - p0, h_scaled_ms(100));
        ck_assert(!atomic_load(&m.done));
    }
    redisReply *r = bg_migrate_join(&m);
    ck_assert_msg(r->type == REDIS_REPLY_ERROR &&
                      !strcmp(r->str, "IOERR error or timeout reading to target instance"),
                  "MIGRATE: %s", r->str);
    freeReplyObject(r);
    ck_assert_int_eq(h_info_int(s, "stats", "migrate_cached_sockets"), 0); /* closed on error */
    close(fd);
    redisFree(s);
}
END_TEST

/* The source's replica deletes what the target acknowledged (MIGRATE is
 * propagated as DEL); COPY deletes nothing. */
START_TEST(propagated_as_del)
{
    srv *src = h_srv_start(NULL), *rep = h_srv_start(NULL), *dst = h_srv_start(NULL);
    redisContext *s = srv_connect(src), *r = srv_connect(rep);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", src->port);
    h_wait_info_str(r, "replication", "master_link_status", "up", 20000);
    expect_status(s, "OK", "MSET a 1 b 2 c 3");
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d %s 0 5000 KEYS a b", dst->port, "");
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d c 0 5000 COPY", dst->port);
    expect_status(s, "OK", "SET marker done");
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    redisReply *m;
    while ((m = cmd(r, "GET marker"))->type == REDIS_REPLY_NIL && h_now_ms() < deadline) {
        freeReplyObject(m);
        h_sleep_ms(10);
    }
    freeReplyObject(m);
    expect_bulk(r, "done", "GET marker");
    expect_int(r, 0, "EXISTS a b");
    expect_bulk(r, "3", "GET c");
    redisFree(s);
    redisFree(r);
}
END_TEST

/* ---- a big value's MIGRATE ---- */

#define BIG_N 500000

/* key: a sorted set of BIG_N members (fill_zset). */
static void fill_zset(redisContext *c, const char *key, int n);
static void fill_big_zset(redisContext *c, const char *key) { fill_zset(c, key, BIG_N); }

/* key: a sorted set of n members (a multiple of 1000) member:<i>, score
 * i, by pipelined ZADDs of 1000 members. */
static void fill_zset(redisContext *c, const char *key, int n)
{
    enum { PER = 1000 };
    static char bufs[PER][2][32];
    const char *argv[2 + 2 * PER];
    size_t lens[2 + 2 * PER];
    argv[0] = "ZADD";
    argv[1] = key;
    for (int b = 0; b < n / PER; b++) {
        for (int i = 0; i < PER; i++) {
            int m = b * PER + i;
            snprintf(bufs[i][0], sizeof bufs[i][0], "%d", m);
            snprintf(bufs[i][1], sizeof bufs[i][1], "member:%d", m);
            argv[2 + 2 * i] = bufs[i][0];
            argv[3 + 2 * i] = bufs[i][1];
        }
        for (int i = 0; i < 2 + 2 * PER; i++) lens[i] = strlen(argv[i]);
        ck_assert_int_eq(redisAppendCommandArgv(c, 2 + 2 * PER, argv, lens), REDIS_OK);
    }
    for (int b = 0; b < n / PER; b++) {
        redisReply *r = h_next_reply(c);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        freeReplyObject(r);
    }
    expect_int(c, n, "ZCARD %s", key);
}

/* The worst latency of PING and of a write to another key on c while m
 * runs (at least one of each). */
static long long worst_latency_while(redisContext *c, bg_migrate *m, int *rounds)
{
    long long worst = 0;
    *rounds = 0;
    do {
        long long t0 = h_now_ms();
        expect_status(c, "PONG", "PING");
        expect_status(c, "OK", "SET other%d x", *rounds);
        long long l = h_now_ms() - t0;
        if (l > worst) worst = l;
        (*rounds)++;
    } while (!atomic_load(&m->done));
    return worst;
}

/* ZRANGE key from..-1 WITHSCORES on a and 0..-1 on b are the same. */
static void same_zset(redisContext *a, long from, redisContext *b, const char *key)
{
    redisReply *x = cmd(a, "ZRANGE %s %ld -1 WITHSCORES", key, from);
    redisReply *y = cmd(b, "ZRANGE %s 0 -1 WITHSCORES", key);
    ck_assert_int_eq(x->type, REDIS_REPLY_ARRAY);
    ck_assert_int_eq(y->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(x->elements, y->elements);
    for (size_t i = 0; i < x->elements; i++)
        ck_assert_msg(!strcmp(x->element[i]->str, y->element[i]->str), "element %zu: %s vs %s",
                      i, x->element[i]->str, y->element[i]->str);
    freeReplyObject(x);
    freeReplyObject(y);
}

/* A sorted set of 500k members goes to redis-server, with COPY then
 * without: PINGs and writes to other keys are answered meanwhile, the
 * worst round trip under a quarter of the MIGRATE's time (Redis: all of
 * it) and 200 ms (typically a few ms; the bound leaves room for a loaded
 * machine), its payload streamed; a write to the key waits (parked) and
 * applies after, as Redis's order gives: with COPY on the source's key,
 * without it on a new key (the MIGRATE deleted the old one); a read of the
 * key runs meanwhile; the target holds the value sent. */
START_TEST(big_value_does_not_stall)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *d = srv_connect(v[1]);
    redisContext *b = srv_connect(v[0]), *w = srv_connect(v[0]);
    fill_big_zset(s, "bigz");
    int rounds;
    bg_migrate m;

    /* COPY: the write applies to the source's key, after */
    bg_migrate_start(&m, v[0], "MIGRATE 127.0.0.1 %d bigz 0 60000 COPY", v[1]->port);
    wait_while_running(s, &m, "migrate_in_flight", 1);
    h_send(w, "ZADD bigz -1 added");
    wait_while_running(s, &m, "migrate_parked_clients", 1);
    long long worst = worst_latency_while(b, &m, &rounds);
    redisReply *r = bg_migrate_join(&m);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"), "MIGRATE: %s", r->str);
    freeReplyObject(r);
    redisReply *z = h_next_reply(w);
    check_int(z, 1);
    freeReplyObject(z);
    if (!srv_is_reference()) {
        ck_assert_msg(worst < h_scaled_ms(400) && worst * 2 < m.took_ms,
                      "worst PING+SET %lld ms during a MIGRATE of %lld ms (%d rounds)", worst,
                      m.took_ms, rounds);
        ck_assert_int_eq(h_info_int(s, "stats", "migrate_parked_clients"), 0);
        ck_assert_int_eq(h_info_int(s, "stats", "migrate_streamed_payloads"), 1);
    }
    expect_int(s, BIG_N + 1, "ZCARD bigz");
    expect_int(d, BIG_N, "ZCARD bigz");
    same_zset(s, 1, d, "bigz"); /* all but "added", the first */

    /* without COPY: the key leaves; the parked write makes a new one; a
     * read of the key runs meanwhile */
    bg_migrate_start(&m, v[0], "MIGRATE 127.0.0.1 %d bigz 0 60000 REPLACE", v[1]->port);
    wait_while_running(s, &m, "migrate_in_flight", 1);
    h_send(w, "ZADD bigz 5 after");
    wait_while_running(s, &m, "migrate_parked_clients", 1);
    if (!srv_is_reference() && !atomic_load(&m.done))
        expect_int(b, BIG_N + 1, "ZCARD bigz");
    worst = worst_latency_while(b, &m, &rounds);
    r = bg_migrate_join(&m);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"), "MIGRATE: %s", r->str);
    freeReplyObject(r);
    z = h_next_reply(w);
    check_int(z, 1);
    freeReplyObject(z);
    if (!srv_is_reference())
        ck_assert_msg(worst < h_scaled_ms(400) && worst * 2 < m.took_ms,
                      "worst PING+SET %lld ms during a MIGRATE of %lld ms (%d rounds)", worst,
                      m.took_ms, rounds);
    expect_int(s, 1, "ZCARD bigz");
    expect_bulk(s, "5", "ZSCORE bigz after");
    expect_int(d, BIG_N + 1, "ZCARD bigz");
    expect_nil(d, "ZSCORE bigz after");
    redisFree(s);
    redisFree(d);
    redisFree(b);
    redisFree(w);
}
END_TEST

/* Big strings' payloads are streamed too, between small keys batched
 * around them, compressed (rdbcompression yes) or not; the target holds
 * the same bytes. */
START_TEST(big_strings_streamed)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *d = srv_connect(v[1]);
    size_t n = 6u << 20;
    char *big = malloc(n);
    ck_assert_ptr_nonnull(big);
    for (size_t i = 0; i < n; i++) big[i] = (char)('a' + (i * 7919 + i / 4096) % 26);
    expect_status(s, "OK", "SET big1 %b", big, n);
    expect_status(s, "OK", "SET big2 %b", big, n / 2 + 4u * 1024 * 1024 / 2);
    expect_status(s, "OK", "MSET small1 x small2 y");
    expect_int(s, 1, "PEXPIRE big2 100000");
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d %s 0 10000 KEYS small1 big1 small2",
                  v[1]->port, "");
    expect_status(s, "OK", "CONFIG SET rdbcompression no");
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d big2 0 10000", v[1]->port);
    if (!srv_is_reference())
        ck_assert_int_eq(h_info_int(s, "stats", "migrate_streamed_payloads"), 2);
    expect_int(s, 0, "DBSIZE");
    redisReply *r = cmd(d, "GET big1");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, n);
    ck_assert(memcmp(r->str, big, n) == 0);
    freeReplyObject(r);
    r = cmd(d, "GET big2");
    ck_assert_uint_eq(r->len, n / 2 + 4u * 1024 * 1024 / 2);
    ck_assert(memcmp(r->str, big, r->len) == 0);
    freeReplyObject(r);
    expect_int_range(d, 90000, 100000, "PTTL big2");
    expect_bulk(d, "x", "GET small1");
    expect_bulk(d, "y", "GET small2");
    free(big);
    redisFree(s);
    redisFree(d);
}
END_TEST

/* FLUSHALL (no keys) waits for the MIGRATE too; a write to another key
 * and reads do not. The target is stopped (SIGSTOP) so that the MIGRATE
 * stays in flight; then killed (-9): the source answers IOERR and keeps
 * the key; the parked FLUSHALL runs after. */
START_TEST(target_killed_mid_migrate)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *b = srv_connect(v[0]), *w = srv_connect(v[0]);
    fill_big_zset(s, "bigz");
    ck_assert_int_eq(kill(v[1]->pid, SIGSTOP), 0);
    bg_migrate m;
    bg_migrate_start(&m, v[0], "MIGRATE 127.0.0.1 %d bigz 0 60000", v[1]->port);
    wait_while_running(s, &m, "migrate_in_flight", 1);
    h_send(w, "FLUSHALL");
    wait_while_running(s, &m, "migrate_parked_clients", 1);
    if (!srv_is_reference()) {
        long long t0 = h_now_ms();
        expect_status(b, "OK", "SET k v");
        expect_int(b, BIG_N, "ZCARD bigz");
        ck_assert_int_lt(h_now_ms() - t0, h_scaled_ms(50));
        ck_assert(!atomic_load(&m.done));
    }
    srv_kill9(v[1]);
    redisReply *r = bg_migrate_join(&m);
    ck_assert_msg(r->type == REDIS_REPLY_ERROR &&
                      !strncmp(r->str, "IOERR error or timeout ", 23),
                  "MIGRATE: %s", r->str);
    freeReplyObject(r);
    /* the key stayed until the parked FLUSHALL ran, after the MIGRATE */
    redisReply *f = h_next_reply(w);
    ck_assert_msg(f->type == REDIS_REPLY_STATUS && !strcmp(f->str, "OK"), "FLUSHALL");
    freeReplyObject(f);
    expect_int(s, 0, "DBSIZE");
    redisFree(s);
    redisFree(b);
    redisFree(w);
}
END_TEST

/* A stopped target takes nothing: the streamed payload's write times out
 * (Redis's "writing" error, no retry after a timeout), the key stays, and
 * the next MIGRATE, once the target runs again, connects anew and goes. */
START_TEST(write_timeout_big_value)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *d = srv_connect(v[1]);
    fill_big_zset(s, "bigz");
    ck_assert_int_eq(kill(v[1]->pid, SIGSTOP), 0);
    long long t0 = h_now_ms();
    expect_error(s, "IOERR error or timeout writing to target instance",
                 "MIGRATE 127.0.0.1 %d bigz 0 300", v[1]->port);
    long long took = h_now_ms() - t0;
    ck_assert_msg(took >= 290 && took < h_scaled_ms(5000), "took %lld ms", took);
    expect_int(s, BIG_N, "ZCARD bigz");
    ck_assert_int_eq(kill(v[1]->pid, SIGCONT), 0);
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d bigz 0 10000 REPLACE", v[1]->port);
    expect_int(s, 0, "EXISTS bigz");
    expect_int(d, BIG_N, "ZCARD bigz");
    redisFree(s);
    redisFree(d);
}
END_TEST

/* The key expires on the source while its MIGRATE waits for a stopped
 * target: the value sent is still the one captured (the MIGRATE holds its
 * own reference), the target gets it with the TTL it had, the source has
 * nothing left to delete and answers OK. */
START_TEST(key_expires_mid_migrate)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *d = srv_connect(v[1]);
    fill_zset(s, "z", 100000);
    expect_int(s, 1, "PEXPIRE z %d", h_scaled_ms(600));
    ck_assert_int_eq(kill(v[1]->pid, SIGSTOP), 0);
    bg_migrate m;
    bg_migrate_start(&m, v[0], "MIGRATE 127.0.0.1 %d z 0 60000", v[1]->port);
    wait_while_running(s, &m, "migrate_in_flight", 1);
    if (srv_is_reference()) { /* Redis serves nobody until the MIGRATE ends */
        h_sleep_ms(h_scaled_ms(800));
    } else {
        long long deadline = h_now_ms() + h_scaled_ms(10000);
        redisReply *e;
        while ((e = cmd(s, "EXISTS z"))->integer == 1 && h_now_ms() < deadline) {
            freeReplyObject(e);
            h_sleep_ms(20);
        }
        freeReplyObject(e);
        expect_int(s, 0, "EXISTS z");
        ck_assert(!atomic_load(&m.done));
    }
    ck_assert_int_eq(kill(v[1]->pid, SIGCONT), 0);
    redisReply *r = bg_migrate_join(&m);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"), "MIGRATE: %s", r->str);
    freeReplyObject(r);
    /* restored with the TTL left at the MIGRATE's start: maybe gone by now */
    redisReply *t = cmd(d, "PTTL z");
    ck_assert_int_eq(t->type, REDIS_REPLY_INTEGER);
    if (t->integer > 0) expect_int(d, 100000, "ZCARD z");
    else ck_assert_int_eq(t->integer, -2);
    freeReplyObject(t);
    expect_int(s, 0, "DBSIZE");
    redisFree(s);
    redisFree(d);
}
END_TEST

/* Inside MULTI/EXEC and a script the caller cannot wait: MIGRATE runs
 * there and then, with the same replies. */
START_TEST(in_exec_and_script)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *d = srv_connect(v[1]);
    expect_status(s, "OK", "MSET a 1 b 2");
    expect_status(s, "OK", "MULTI");
    expect_status(s, "QUEUED", "MIGRATE 127.0.0.1 %d a 0 5000", v[1]->port);
    expect_status(s, "QUEUED", "GET a");
    redisReply *r = expect_array(s, 2, "EXEC");
    ck_assert_str_eq(r->element[0]->str, "OK");
    ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    const char *one = "return redis.call('MIGRATE', '127.0.0.1', ARGV[1], 'b', 0, 5000)";
    expect_status(s, "OK", "EVAL %s 0 %d", one, v[1]->port);
    expect_status(s, "NOKEY", "EVAL %s 0 %d", one, v[1]->port);
    expect_int(s, 0, "EXISTS a b");
    expect_bulk(d, "1", "GET a");
    expect_bulk(d, "2", "GET b");
    expect_status(s, "OK", "SET c 3");
    const char *two = "return redis.call('MIGRATE', '127.0.0.1', ARGV[1], '', 0, 5000, 'KEYS', "
                      "'c', 'a')";
    expect_status(s, "OK", "SET a again");
    expect_error_prefix(s, TARGET_ERR "BUSYKEY Target key name already exists.", "EVAL %s 0 %d",
                        two, v[1]->port);
    /* c went before a's error */
    expect_int(s, 0, "EXISTS c");
    expect_bulk(s, "again", "GET a");
    expect_bulk(d, "3", "GET c");
    redisFree(s);
    redisFree(d);
}
END_TEST

/* pthread_create fails (threadfail.so while a file exists): MIGRATE runs
 * on the main thread instead, with the same replies; once threads start
 * again it runs on its own thread. Freed memory is filled, so that libuv
 * touching the closed wake-up handle in freed memory would crash. */
START_TEST(thread_fails)
{
    char flag[4096], asan[2048];
    snprintf(flag, sizeof flag, "/tmp/verso-migrate-threadfail-%d", (int)getpid());
    unlink(flag);
    setenv("THREADFAIL_FILE", flag, 1);
    setenv("MALLOC_PERTURB_", "165", 1);
    h_preload_on(VERSO_THREADFAIL_SHIM);
    snprintf(asan, sizeof asan, "%s:max_free_fill_size=1048576",
             getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "");
    setenv("ASAN_OPTIONS", asan, 1);
    srv *src = h_srv_start(NULL);
    static const char *const vars[] = {"THREADFAIL_FILE", "MALLOC_PERTURB_", NULL};
    h_preload_off(vars);
    srv *dst = h_srv_start_redis("%s", "");
    redisContext *s = srv_connect(src), *d = srv_connect(dst);
    expect_status(s, "OK", "MSET a 1 b 2 c 3");
    FILE *f = fopen(flag, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d a 0 5000", dst->port);
    expect_status(s, "OK", "SET c 4");
    expect_status(d, "OK", "SET c busy");
    expect_error(s, TARGET_ERR "BUSYKEY Target key name already exists.",
                 "MIGRATE 127.0.0.1 %d c 0 5000", dst->port);
    h_sleep_ms(50); /* loop iterations: the closed handles are processed */
    expect_status(s, "PONG", "PING");
    if (!srv_is_reference())
        ck_assert_int_eq(srv_log_count(src, "MIGRATE: cannot start a thread"), 2);
    unlink(flag);
    expect_status(s, "OK", "MIGRATE 127.0.0.1 %d b 0 5000", dst->port);
    expect_int(s, 0, "EXISTS a b");
    expect_bulk(s, "4", "GET c");
    expect_bulk(d, "1", "GET a");
    expect_bulk(d, "2", "GET b");
    redisFree(s);
    redisFree(d);
}
END_TEST

/* The flattened text of a reply, for comparing two servers' answers. */
static void flat(const redisReply *r, char *out, size_t cap, size_t *o)
{
    char b[64];
    if (r->type == REDIS_REPLY_ARRAY) {
        for (size_t i = 0; i < r->elements; i++) flat(r->element[i], out, cap, o);
        return;
    }
    *o += (size_t)snprintf(out + *o, *o < cap ? cap - *o : 0, "%s|", h_reply_str(r, b, sizeof b));
}

/* RESTORE-ASKING: Redis 7.0's row (COMMAND INFO as redis-server answers
 * it) and RESTORE's behaviour (outside cluster mode, ASKING is not
 * needed). */
START_TEST(restore_asking)
{
    srv *v[2];
    h_srv_start_all(2, (h_srv_spec[]){{0, NULL}, {1, NULL}}, v);
    redisContext *s = srv_connect(v[0]), *ref = srv_connect(v[1]);
    char a[4096] = "", b[4096] = "";
    size_t oa = 0, ob = 0;
    redisReply *x = cmd(s, "COMMAND INFO restore-asking");
    redisReply *y = cmd(ref, "COMMAND INFO restore-asking");
    flat(x, a, sizeof a, &oa);
    flat(y, b, sizeof b, &ob);
    ck_assert_str_eq(a, b);
    ck_assert_msg(strstr(a, "asking") != NULL, "%s", a);
    freeReplyObject(x);
    freeReplyObject(y);
    expect_int(s, 3, "RPUSH l a b c");
    redisReply *p = cmd(s, "DUMP l");
    ck_assert_int_eq(p->type, REDIS_REPLY_STRING);
    expect_status(s, "OK", "RESTORE-ASKING l2 0 %b", p->str, p->len);
    expect_error(s, "BUSYKEY Target key name already exists.", "RESTORE-ASKING l2 0 %b", p->str,
                 p->len);
    expect_status(s, "OK", "RESTORE-ASKING l2 0 %b REPLACE", p->str, p->len);
    expect_status(ref, "OK", "RESTORE-ASKING l2 0 %b", p->str, p->len);
    freeReplyObject(p);
    redisReply *l = expect_array(s, 3, "LRANGE l2 0 -1");
    ck_assert_str_eq(l->element[2]->str, "c");
    freeReplyObject(l);
    l = expect_array(ref, 3, "LRANGE l2 0 -1");
    ck_assert_str_eq(l->element[0]->str, "a");
    freeReplyObject(l);
    redisFree(s);
    redisFree(ref);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("migrate");
    h_add_dropall(s, "under_test_to_redis", under_test_to_redis, 60);
    h_add_dropall(s, "redis_to_under_test", redis_to_under_test, 60);
    h_add_dropall(s, "under_test_to_under_test", under_test_to_under_test, 60);
    h_add_dropall(s, "target_down_or_silent", target_down_or_silent, 60);
    h_add_dropall(s, "propagated_as_del", propagated_as_del, 60);
    h_add_dropall(s, "big_value_does_not_stall", big_value_does_not_stall, 120);
    h_add_dropall(s, "big_strings_streamed", big_strings_streamed, 60);
    h_add_dropall(s, "target_killed_mid_migrate", target_killed_mid_migrate, 60);
    h_add_dropall(s, "write_timeout_big_value", write_timeout_big_value, 60);
    h_add_dropall(s, "key_expires_mid_migrate", key_expires_mid_migrate, 60);
    h_add_dropall(s, "in_exec_and_script", in_exec_and_script, 60);
    h_add_dropall(s, "restore_asking", restore_asking, 60);
    h_add_dropall(s, "thread_fails", thread_fails, 60);
    return h_main(s);
}
