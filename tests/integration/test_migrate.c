/* Integration tests of MIGRATE outside cluster mode, with Redis 7.0's
 * replies: the server under test (verso, or redis-server with
 * VERSO_SERVER) migrating to Redis's own redis-server, from redis-server to
 * it, and to another server under test; every type of value and its TTL,
 * KEYS, COPY, REPLACE (BUSYKEY from the target without it), NOKEY, the
 * destination db, AUTH and AUTH2, the cached connection; a target that is
 * down or never answers (IOERR, within the timeout). */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TARGET_ERR "ERR Target instance replied with error: "

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

int main(void)
{
    Suite *s = suite_create("migrate");
    h_add_dropall(s, "under_test_to_redis", under_test_to_redis, 60);
    h_add_dropall(s, "redis_to_under_test", redis_to_under_test, 60);
    h_add_dropall(s, "under_test_to_under_test", under_test_to_under_test, 60);
    h_add_dropall(s, "target_down_or_silent", target_down_or_silent, 60);
    h_add_dropall(s, "propagated_as_del", propagated_as_del, 60);
    return h_main(s);
}
