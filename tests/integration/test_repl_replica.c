/* test_repl_replica: the server under test (verso, or redis-server with
 * VERSO_SERVER) follows a redis-server 7.0 primary: full sync of every data
 * type with expiries (the primary's diskless EOF payload and its disk-based
 * $<len> payload), the write stream (MULTI/EXEC, SELECT), expiry only by
 * the master's DEL, a writable replica's own expiries and maxmemory,
 * READONLY, MASTERDOWN, a link cut and a restart of the
 * primary followed by a partial resync, EXEC on a replica gone stale since
 * its commands were queued, REPLICAOF NO ONE, PSYNC ... FAILOVER (the
 * promotion a primary's FAILOVER asks for), INFO replication
 * and ROLE against a redis-server replica in the same situation, and the
 * AOF of a replica across its restart. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "testcmp.h"

/* ---- redis-server primaries (srv_start_redis does not track them) ---- */

static srv *redis_srv[8];
static int nredis;

static srv *primary_start(const char *extra) {
    ck_assert_int_lt(nredis, 8);
    srv *s = srv_start_redis("--repl-diskless-sync-delay 0 %s", extra ? extra : "");
    redis_srv[nredis++] = s;
    return s;
}

static void teardown(void) {
    for (int i = 0; i < nredis; i++) {
        if (!redis_srv[i]) continue;
        srv_kill9(redis_srv[i]);
        srv_stop(redis_srv[i]);
        redis_srv[i] = NULL;
    }
    nredis = 0;
    h_srv_drop_all();
}

/* ---- helpers ---- */

static void wait_link_up(redisContext *r) {
    h_wait_info_str(r, "replication", "master_link_status", "up", 20000);
}

/* Until the replica has applied everything the primary sent. */
static void wait_caught_up(redisContext *m, redisContext *r) {
    long long want = h_info_int(m, "replication", "master_repl_offset");
    h_wait_info_at(__FILE__, __LINE__, r, "replication", "slave_repl_offset", H_GE, want, 20000);
}

/* Polls an integer reply until it equals want (timeout scaled). */
static void wait_int(redisContext *c, long long want, int timeout_ms, const char *what) {
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms), got = -1;
    for (;;) {
        redisReply *r = cmd(c, what);
        got = r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
        freeReplyObject(r);
        if (got == want || h_now_ms() > deadline) break;
        h_sleep_ms(10);
    }
    ck_assert_msg(got == want, "%s: %lld, want %lld", what, got, want);
}

/* A reply as text; arrays of members sorted when `sorted` (sets, hashes as
 * field=value pairs). */
static void reply_text(const redisReply *r, int pairs, int sorted, char *out, size_t cap) {
    size_t n = 0;
    out[0] = '\0';
    if (r->type != REDIS_REPLY_ARRAY) {
        char tmp[64];
        snprintf(out, cap, "%s", h_reply_str(r, tmp, sizeof tmp) ? tmp : "");
        if (r->type == REDIS_REPLY_STRING) snprintf(out, cap, "%.*s", (int)r->len, r->str);
        return;
    }
    size_t step = pairs ? 2 : 1, cnt = r->elements / step;
    char **items = calloc(cnt ? cnt : 1, sizeof(char *));
    for (size_t i = 0; i < cnt; i++) {
        const redisReply *a = r->element[i * step];
        const redisReply *b = pairs ? r->element[i * step + 1] : NULL;
        size_t len = a->len + (b ? b->len : 0) + 3;
        items[i] = malloc(len);
        if (b) snprintf(items[i], len, "%.*s=%.*s", (int)a->len, a->str, (int)b->len, b->str);
        else snprintf(items[i], len, "%.*s", (int)a->len, a->str);
    }
    if (sorted) qsort(items, cnt, sizeof(char *), cmp_str);
    for (size_t i = 0; i < cnt; i++) {
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s,", items[i]);
        if (n >= cap) n = cap - 1;
        free(items[i]);
    }
    free(items);
}

/* The key's type, content and whether it has a TTL, as text. */
static void key_text(redisContext *c, const char *key, char *out, size_t cap) {
    redisReply *t = cmd(c, "TYPE %s", key);
    redisReply *ttl = cmd(c, "PTTL %s", key);
    const char *type = t->str ? t->str : "?";
    redisReply *v;
    int pairs = 0, sorted = 0;
    if (!strcmp(type, "string")) v = cmd(c, "GET %s", key);
    else if (!strcmp(type, "hash")) { v = cmd(c, "HGETALL %s", key); pairs = sorted = 1; }
    else if (!strcmp(type, "list")) v = cmd(c, "LRANGE %s 0 -1", key);
    else if (!strcmp(type, "set")) { v = cmd(c, "SMEMBERS %s", key); sorted = 1; }
    else if (!strcmp(type, "zset")) { v = cmd(c, "ZRANGE %s 0 -1 WITHSCORES", key); pairs = 1; }
    else v = cmd(c, "TYPE %s", key);
    size_t n = (size_t)snprintf(out, cap, "%s ttl=%s ", type,
                                ttl->integer >= 0 ? "yes" : ttl->integer == -1 ? "none" : "gone");
    reply_text(v, pairs, sorted, out + n, cap - n);
    freeReplyObject(v);
    freeReplyObject(ttl);
    freeReplyObject(t);
}

/* Every key of databases 0..ndb-1 reads the same on both servers. */
static void same_data(redisContext *m, redisContext *r, int ndb) {
    static char a[1 << 20], b[1 << 20];
    for (int db = 0; db < ndb; db++) {
        expect_status(m, "OK", "SELECT %d", db);
        expect_status(r, "OK", "SELECT %d", db);
        redisReply *dm = cmd(m, "DBSIZE"), *dr = cmd(r, "DBSIZE");
        ck_assert_msg(dm->integer == dr->integer, "db %d: %lld keys on the primary, %lld on the "
                      "replica", db, dm->integer, dr->integer);
        freeReplyObject(dm);
        freeReplyObject(dr);
        char cursor[32] = "0";
        do {
            redisReply *s = cmd(m, "SCAN %s COUNT 500", cursor);
            ck_assert_int_eq(s->type, REDIS_REPLY_ARRAY);
            snprintf(cursor, sizeof cursor, "%s", s->element[0]->str);
            for (size_t i = 0; i < s->element[1]->elements; i++) {
                const char *key = s->element[1]->element[i]->str;
                key_text(m, key, a, sizeof a);
                key_text(r, key, b, sizeof b);
                ck_assert_msg(!strcmp(a, b), "db %d key %s: primary '%.200s', replica '%.200s'",
                              db, key, a, b);
            }
            freeReplyObject(s);
        } while (strcmp(cursor, "0"));
    }
    expect_status(m, "OK", "SELECT 0");
    expect_status(r, "OK", "SELECT 0");
}

/* Every type in small and big encodings, some with expiries, in dbs 0-2. */
static void fill_all_types(redisContext *m) {
    expect_status(m, "OK", "SET str hello");
    expect_status(m, "OK", "SET int 12345");
    expect_status(m, "OK", "SET neg -77");
    char big[5000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    expect_status(m, "OK", "SET big %s", big);
    expect_status(m, "OK", "SET ttlstr v PX 600000");
    expect_int(m, 3, "HSET hsmall a 1 b 2 c 3");
    expect_int(m, 5, "RPUSH lsmall a b c 1 2");
    expect_int(m, 4, "SADD sint 1 2 3 4");
    expect_int(m, 3, "SADD ssmall a b c");
    expect_int(m, 3, "ZADD zsmall 1 a 2.5 b -3 c");
    for (int i = 0; i < 300; i++) {
        redisReply *r;
        r = cmd(m, "HSET hbig f%d v%d", i, i); freeReplyObject(r);
        r = cmd(m, "RPUSH lbig item-%d", i); freeReplyObject(r);
        r = cmd(m, "SADD sbig member-%d", i); freeReplyObject(r);
        r = cmd(m, "SADD sbigint %d", i * 7); freeReplyObject(r);
        r = cmd(m, "ZADD zbig %d m%d", i * 3, i); freeReplyObject(r);
    }
    expect_int(m, 1, "PEXPIRE hbig 600000");
    expect_int(m, 1, "PEXPIRE zsmall 600000");
    expect_int(m, 1, "PEXPIRE lbig 600000");
    for (int db = 1; db <= 2; db++) {
        expect_status(m, "OK", "SELECT %d", db);
        expect_status(m, "OK", "SET only-in-%d %d", db, db);
        expect_int(m, 2, "SADD set-%d x y", db);
    }
    expect_status(m, "OK", "SELECT 0");
}

/* ---- tests ---- */

/* Full sync with the payload the primary's settings choose, then the
 * stream: MULTI/EXEC, several databases. */
static void full_sync_then_stream(const char *primary_extra, const char *log_needle) {
    srv *p = primary_start(primary_extra);
    redisContext *m = srv_connect(p);
    fill_all_types(m);
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    same_data(m, r, 3);
    if (!srv_is_reference())
        ck_assert_msg(srv_log_wait(s, log_needle, 1000), "no '%s' in the replica's log",
                      log_needle);

    /* the stream: plain writes, a transaction, other databases */
    expect_status(m, "OK", "SET after 1");
    expect_int(m, 12347, "INCRBY int 2");
    expect_status(m, "OK", "MULTI");
    expect_status(m, "QUEUED", "LPUSH lsmall tx");
    expect_status(m, "QUEUED", "HSET hsmall d 4");
    expect_status(m, "QUEUED", "ZINCRBY zbig 1 m1");
    expect_status(m, "QUEUED", "SADD sint 99");
    redisReply *x = expect_array(m, 4, "EXEC");
    freeReplyObject(x);
    for (int db = 3; db <= 5; db++) {
        expect_status(m, "OK", "SELECT %d", db);
        expect_status(m, "OK", "SET k-%d v%d", db, db);
        expect_int(m, 2, "RPUSH list-%d a b", db);
        expect_status(m, "OK", "MULTI");
        expect_status(m, "QUEUED", "INCR counter");
        expect_status(m, "QUEUED", "SET tx-%d yes EX 1000", db);
        x = expect_array(m, 2, "EXEC");
        freeReplyObject(x);
    }
    expect_status(m, "OK", "SELECT 0");
    expect_int(m, 1, "DEL str");
    expect_int(m, 1, "EXPIRE sbig 5000");
    wait_caught_up(m, r);
    same_data(m, r, 6);
    /* the replica acked what it applied: the primary sees its offset */
    char want[64];
    snprintf(want, sizeof want, "offset=%lld,", h_info_int(r, "replication", "slave_repl_offset"));
    long long deadline = h_now_ms() + h_scaled_ms(5000);
    int acked = 0;
    while (!acked && h_now_ms() < deadline) {
        char *info = h_info(m, "replication");
        acked = strstr(info, want) != NULL;
        free(info);
        if (!acked) h_sleep_ms(50);
    }
    ck_assert_msg(acked, "the primary never saw the replica's ACK of %s", want);
    redisFree(r);
    redisFree(m);
}

START_TEST(sync_eof_payload) {
    full_sync_then_stream("--repl-diskless-sync yes", "with EOF");
}
END_TEST

START_TEST(sync_len_payload) {
    full_sync_then_stream("--repl-diskless-sync no", "bytes from master");
}
END_TEST

/* A replica never expires a key itself: reads see it missing once its time
 * passed, but it stays until the master's DEL. */
START_TEST(expiry_by_master_del) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "DEBUG SET-ACTIVE-EXPIRE 0");
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    expect_status(m, "OK", "SET keep v");
    expect_status(m, "OK", "SET short v PX 1500");
    wait_caught_up(m, r);
    expect_bulk(r, "v", "GET short");
    h_sleep_ms(1700);
    expect_nil(r, "GET short");
    expect_int(r, 0, "EXISTS short");
    expect_int(r, -2, "PTTL short");
    h_sleep_ms(300); /* no active expiry either */
    expect_int(r, 2, "DBSIZE");
    expect_nil(m, "GET short"); /* the primary expires it: DEL in the stream */
    wait_int(r, 1, 5000, "DBSIZE");
    expect_bulk(r, "v", "GET keep");
    redisFree(r);
    redisFree(m);
}
END_TEST

/* A writable replica (replica-read-only no) expires the keys its own
 * clients gave an expire (Redis 7.0's slaveKeysWithExpire), in any
 * database, while its master's keys still wait for the master's DEL; a key
 * whose expire was removed stays. Over maxmemory it evicts nothing while
 * replica-ignore-maxmemory is yes (writes still go), and evicts once it is
 * no. */
START_TEST(writable_replica_expires_own_keys) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "DEBUG SET-ACTIVE-EXPIRE 0");
    srv *s = h_srv_start("--replica-read-only no");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    expect_status(m, "OK", "SET mk v PX 300");
    wait_caught_up(m, r);
    expect_status(r, "OK", "SET rk v PX 300");
    expect_status(r, "OK", "SET rk2 v");
    expect_int(r, 1, "PEXPIRE rk2 300");
    expect_status(r, "OK", "SET rk3 v PX 300");
    expect_int(r, 1, "PERSIST rk3");
    expect_status(r, "OK", "SELECT 5");
    expect_status(r, "OK", "SET rk5 v PX 300");
    expect_status(r, "OK", "SELECT 0");
    h_wait_info_at(__FILE__, __LINE__, r, "stats", "expired_keys", H_EQ, 3, 20000);
    h_sleep_ms(300); /* and nothing more */
    ck_assert_int_eq(h_info_int(r, "stats", "expired_keys"), 3);
    expect_int(r, 2, "DBSIZE"); /* mk (the master's, expired for reads) and rk3 */
    expect_int(r, 0, "EXISTS mk");
    expect_bulk(r, "v", "GET rk3");
    expect_status(r, "OK", "SELECT 5");
    expect_int(r, 0, "DBSIZE");
    expect_status(r, "OK", "SELECT 0");
    expect_nil(m, "GET mk"); /* the master's DEL */
    wait_int(r, 1, 5000, "DBSIZE");

    /* maxmemory on the replica */
    expect_status(r, "OK", "DEBUG POPULATE 20000 big 100");
    expect_status(r, "OK", "CONFIG SET maxmemory-policy allkeys-random");
    expect_status(r, "OK", "CONFIG SET maxmemory 1mb");
    expect_status(r, "OK", "SET over 1");
    ck_assert_int_eq(h_info_int(r, "stats", "evicted_keys"), 0);
    expect_int(r, 20002, "DBSIZE");
    expect_status(r, "OK", "CONFIG SET replica-ignore-maxmemory no");
    expect_status(r, "OK", "SET over2 1");
    ck_assert_int_gt(h_info_int(r, "stats", "evicted_keys"), 0);
    redisReply *n = cmd(r, "DBSIZE");
    ck_assert_int_lt(n->integer, 20003);
    freeReplyObject(n);
    redisFree(r);
    redisFree(m);
}
END_TEST

START_TEST(readonly_and_masterdown) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    srv *s = h_srv_start("--replica-serve-stale-data no");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    expect_status(m, "OK", "SET k v");
    wait_caught_up(m, r);
    expect_error(r, "READONLY You can't write against a read only replica.", "SET k w");
    expect_error(r, "READONLY You can't write against a read only replica.", "DEL k");
    expect_status(r, "OK", "MULTI");
    expect_error(r, "READONLY You can't write against a read only replica.", "INCR n");
    expect_error_prefix(r, "EXECABORT", "EXEC");
    expect_bulk(r, "v", "GET k");
    /* read-only off: writes go (and stay local) */
    expect_status(r, "OK", "CONFIG SET replica-read-only no");
    expect_status(r, "OK", "SET local 1");
    expect_status(r, "OK", "CONFIG SET replica-read-only yes");
    /* the link down: MASTERDOWN for data commands, INFO still answers */
    redisFree(m);
    srv_kill9(p);
    h_wait_info_str(r, "replication", "master_link_status", "down", 20000);
    expect_error(r, "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to "
                    "'no'.", "GET k");
    /* served again while stale once allowed */
    expect_status(r, "OK", "CONFIG SET replica-serve-stale-data yes");
    expect_bulk(r, "v", "GET k");
    /* a sub-replica cannot sync from a replica whose link is down */
    int fd = raw_connect(s->port);
    raw_send_str(fd, "SYNC\r\n");
    char buf[256];
    int closed = 0;
    raw_read(fd, buf, sizeof buf, 60, h_scaled_ms(5000), &closed);
    ck_assert_msg(strncmp(buf, "-NOMASTERLINK Can't SYNC while not connected with my master\r\n",
                          61) == 0, "SYNC answered '%s'", buf);
    close(fd);
    redisFree(r);
}
END_TEST

/* EXEC checks again what queuing checked, with the queued commands' flags
 * (Redis 7.0's processCommand on EXEC): a transaction queued while the
 * link was up is aborted with MASTERDOWN once the link is down, unless
 * every command may run on a stale replica (INFO); a no-writes script
 * without allow-stale is no such command. */
START_TEST(exec_on_stale_replica) {
    srv *p = primary_start(NULL);
    srv *s = h_srv_start("--replica-serve-stale-data no");
    redisContext *r = srv_connect(s), *t1 = srv_connect(s), *t2 = srv_connect(s),
                 *t3 = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    expect_status(t1, "OK", "MULTI");
    expect_status(t1, "QUEUED", "GET k");
    expect_status(t1, "QUEUED", "INFO server");
    expect_status(t2, "OK", "MULTI");
    expect_status(t2, "QUEUED", "INFO server");
    expect_status(t3, "OK", "MULTI");
    expect_status(t3, "QUEUED", "EVAL %s 0", "#!lua flags=no-writes\nreturn 1");
    srv_kill9(p);
    h_wait_info_str(r, "replication", "master_link_status", "down", 20000);
    const char *abort = "EXECABORT Transaction discarded because of: MASTERDOWN Link with "
                        "MASTER is down and replica-serve-stale-data is set to 'no'.";
    expect_error(t1, abort, "EXEC");
    redisReply *x = expect_array(t2, 1, "EXEC");
    ck_assert_int_eq(x->element[0]->type, REDIS_REPLY_STRING);
    freeReplyObject(x);
    expect_error(t3, abort, "EXEC");
    /* the transactions are over: the connections run commands again */
    expect_status(t1, "OK", "MULTI");
    expect_status(t1, "OK", "DISCARD");
    redisFree(t1);
    redisFree(t2);
    redisFree(t3);
    redisFree(r);
}
END_TEST

/* A link cut (CLIENT KILL on the primary) and a restart of the primary on
 * its own data: both resume with +CONTINUE, nothing is lost. */
START_TEST(partial_resync) {
    srv *p = primary_start("--appendonly no");
    redisContext *m = srv_connect(p);
    fill_all_types(m);
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_full"), 1);

    /* the link cut */
    expect_int(m, 1, "CLIENT KILL TYPE replica");
    expect_status(m, "OK", "SET while-cut 1");
    expect_int(m, 6, "RPUSH lsmall more");
    h_wait_info_at(__FILE__, __LINE__, m, "stats", "sync_partial_ok", H_EQ, 1, 20000);
    wait_link_up(r);
    wait_caught_up(m, r);
    same_data(m, r, 3);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_full"), 1);

    /* the primary restarts on its data (its RDB keeps the history) */
    expect_status(m, "OK", "SELECT 1");
    expect_status(m, "OK", "SET before-restart yes");
    expect_status(m, "OK", "SELECT 0");
    wait_caught_up(m, r);
    redisFree(m);
    srv *old = p;
    m = srv_connect(old);
    redisReply *bye = redisCommand(m, "SHUTDOWN SAVE");
    if (bye) freeReplyObject(bye);
    redisFree(m);
    ck_assert(srv_wait_exit(old, h_scaled_ms(10000)));
    h_wait_info_str(r, "replication", "master_link_status", "down", 20000);
    /* on the same dir: its saved RDB holds its replication id and offset */
    ck_assert_int_lt(nredis, 8);
    p = srv_start_redis("--repl-diskless-sync-delay 0 --dir '%s'", old->dir);
    redis_srv[nredis++] = p;
    m = srv_connect(p);
    h_wait_loaded(m, 10000);
    expect_status(m, "OK", "SET after-restart 1");
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    wait_caught_up(m, r);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_partial_ok"), 1);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_full"), 0);
    same_data(m, r, 3);
    redisFree(r);
    redisFree(m);
}
END_TEST

/* REPLICAOF NO ONE: the data stays, writes work, the history moves to
 * replid2 (a later PSYNC of the old history can continue). */
/* One line (with its CRLF) from fd, within 10 s. */
static void failover_read_line(int fd, char *buf, size_t cap) {
    size_t n = 0;
    int closed = 0;
    while (n + 1 < cap && (n < 2 || memcmp(buf + n - 2, "\r\n", 2) != 0)) {
        size_t got = raw_read(fd, buf + n, 2, 1, h_scaled_ms(10000), &closed);
        ck_assert_msg(got == 1, "no reply line (closed %d) after '%.*s'", closed, (int)n, buf);
        n++;
    }
    buf[n] = '\0';
}

/* PSYNC <replid> <offset> FAILOVER, as a primary's FAILOVER sends it to
 * its target: another replid is refused; its master's makes the replica a
 * master (a new history, the old one as replid2) that continues the
 * asker's stream where it is. */
START_TEST(psync_failover_promotes) {
    srv *p = primary_start("--repl-ping-replica-period 60");
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "SET k v");
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    wait_caught_up(m, r);
    char *info = h_info(r, "replication");
    char id[64], off[64], line[256];
    ck_assert(h_info_field(info, "master_replid", id, sizeof id));
    ck_assert(h_info_field(info, "master_repl_offset", off, sizeof off));
    free(info);
    int fd = raw_connect(s->port);
    raw_send_str(fd, "PSYNC 0123456789012345678901234567890123456789 1 FAILOVER\r\n");
    failover_read_line(fd, line, sizeof line);
    ck_assert_str_eq(line, "-ERR PSYNC FAILOVER replid must match my replid.\r\n");
    h_wait_info_str(r, "replication", "role", "slave", 1000);
    raw_send_str(fd, "REPLCONF capa eof capa psync2\r\n");
    failover_read_line(fd, line, sizeof line);
    ck_assert_str_eq(line, "+OK\r\n");
    char cmdline[160];
    snprintf(cmdline, sizeof cmdline, "PSYNC %s %lld FAILOVER\r\n", id, atoll(off) + 1);
    raw_send_str(fd, cmdline);
    failover_read_line(fd, line, sizeof line);
    ck_assert_msg(!strncmp(line, "+CONTINUE ", 10), "PSYNC FAILOVER: %s", line);
    h_wait_info_str(r, "replication", "role", "master", 1000);
    h_wait_info_str(r, "replication", "master_replid2", id, 1000);
    h_wait_info_str(r, "replication", "connected_slaves", "1", 1000);
    ck_assert(srv_log_wait(s, "MASTER MODE enabled (failover request from", 1000));
    expect_status(r, "OK", "SET after 1"); /* a master: it writes */
    close(fd);
    redisFree(r);
    redisFree(m);
}
END_TEST

START_TEST(promotion) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "SET k v");
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    wait_caught_up(m, r);
    expect_status(r, "OK Already connected to specified master", "REPLICAOF 127.0.0.1 %d",
                  p->port);
    expect_error(r, "ERR Invalid master port", "REPLICAOF 127.0.0.1 x");
    char hostport[64];
    snprintf(hostport, sizeof hostport, "127.0.0.1 %d", p->port);
    redisReply *cg = expect_array(r, 2, "CONFIG GET replicaof");
    check_bulk(cg->element[1], hostport);
    freeReplyObject(cg);
    char *info = h_info(r, "replication");
    char id[64], off[64], buf[64];
    ck_assert(h_info_field(info, "master_replid", id, sizeof id));
    ck_assert(h_info_field(info, "master_repl_offset", off, sizeof off));
    free(info);
    expect_status(r, "OK", "REPLICAOF NO ONE");
    expect_status(r, "OK", "REPLICAOF NO ONE");
    info = h_info(r, "replication");
    ck_assert(h_info_field(info, "role", buf, sizeof buf));
    ck_assert_str_eq(buf, "master");
    ck_assert(h_info_field(info, "master_replid2", buf, sizeof buf));
    ck_assert_str_eq(buf, id);
    ck_assert(h_info_field(info, "second_repl_offset", buf, sizeof buf));
    ck_assert_int_eq(atoll(buf), atoll(off) + 1);
    ck_assert(h_info_field(info, "master_replid", buf, sizeof buf));
    ck_assert_str_ne(buf, id);
    free(info);
    cg = expect_array(r, 2, "CONFIG GET replicaof");
    check_bulk(cg->element[1], "");
    freeReplyObject(cg);
    expect_status(r, "OK", "SET k w");
    expect_bulk(r, "w", "GET k");
    redisReply *role = expect_array(r, 3, "ROLE");
    check_bulk(role->element[0], "master");
    freeReplyObject(role);
    /* the primary no longer lists it once it closed the link */
    h_wait_info(m, "replication", "connected_slaves", 0, 10000);
    redisFree(r);
    redisFree(m);
}
END_TEST

/* The field names of INFO replication, in order, joined by ','. */
static void info_names(redisContext *c, char *out, size_t cap) {
    char *info = h_info(c, "replication");
    size_t n = 0;
    out[0] = '\0';
    for (char *line = strtok(info, "\r\n"); line; line = strtok(NULL, "\r\n")) {
        char *colon = strchr(line, ':');
        if (!colon || line[0] == '#') continue;
        *colon = '\0';
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s,", line);
        if (n >= cap) n = cap - 1;
    }
    free(info);
}

static void info_value(redisContext *c, const char *field, char *out, size_t cap) {
    char *info = h_info(c, "replication");
    if (!h_info_field(info, field, out, cap)) snprintf(out, cap, "(absent)");
    free(info);
}

static void same_fields(redisContext *ref, redisContext *r, const char *const *values) {
    char a[4096], b[4096];
    info_names(ref, a, sizeof a);
    info_names(r, b, sizeof b);
    ck_assert_msg(!strcmp(a, b), "INFO replication fields:\n redis-server: %s\n tested: %s", a,
                  b);
    for (int i = 0; values[i]; i++) {
        info_value(ref, values[i], a, sizeof a);
        info_value(r, values[i], b, sizeof b);
        ck_assert_msg(!strcmp(a, b), "%s: redis-server '%s', tested '%s'", values[i], a, b);
    }
}

/* INFO replication and ROLE as a redis-server replica of the same primary
 * shows them: connected, then with the primary gone. */
START_TEST(info_and_role_like_redis) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "SET k v");
    srv *refsrv = primary_start("--replica-priority 42");
    redisContext *ref = srv_connect(refsrv);
    srv *s = h_srv_start("--replica-priority 42");
    redisContext *r = srv_connect(s);
    expect_status(ref, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(ref);
    wait_link_up(r);
    expect_status(m, "OK", "SET k w");
    wait_caught_up(m, ref);
    wait_caught_up(m, r);
    static const char *const up[] = {"role", "master_host", "master_port", "master_link_status",
                                     "master_sync_in_progress", "slave_read_repl_offset",
                                     "slave_repl_offset", "slave_priority", "slave_read_only",
                                     "replica_announced", "master_replid", "master_repl_offset",
                                     "second_repl_offset", NULL};
    same_fields(ref, r, up);
    redisReply *a = expect_array(ref, 5, "ROLE"), *b = expect_array(r, 5, "ROLE");
    for (int i = 0; i < 5; i++) {
        char x[128], y[128];
        ck_assert_msg(!strcmp(h_reply_str(a->element[i], x, sizeof x),
                              h_reply_str(b->element[i], y, sizeof y)),
                      "ROLE[%d]: redis-server %s, tested %s", i, x, y);
    }
    freeReplyObject(a);
    freeReplyObject(b);

    /* the primary gone */
    redisFree(m);
    srv_kill9(p);
    h_wait_info_str(ref, "replication", "master_link_status", "down", 20000);
    h_wait_info_str(r, "replication", "master_link_status", "down", 20000);
    static const char *const down[] = {"role", "master_link_status", "master_last_io_seconds_ago",
                                       "master_sync_in_progress", "slave_repl_offset",
                                       "master_replid", NULL};
    same_fields(ref, r, down);
    a = expect_array(ref, 5, "ROLE");
    b = expect_array(r, 5, "ROLE");
    check_bulk(b->element[0], "slave");
    ck_assert_int_eq(b->element[4]->integer, a->element[4]->integer); /* -1: no master client */
    freeReplyObject(a);
    freeReplyObject(b);
    redisFree(ref);
    redisFree(r);
}
END_TEST

/* A replica with appendonly yes: its AOF describes the synced data (a
 * rewrite after the sync) and the stream after it, across a restart. */
START_TEST(aof_on_replica) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    fill_all_types(m);
    srv *s = h_srv_start("--appendonly yes");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "SET local-before-sync 1"); /* gone after the sync */
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    h_wait_info(r, "persistence", "aof_rewrite_in_progress", 0, 20000);
    h_wait_info(r, "persistence", "aof_rewrite_scheduled", 0, 20000);
    expect_status(m, "OK", "SET after-sync 1");
    expect_int(m, 1, "SADD ssmall d");
    wait_caught_up(m, r);
    same_data(m, r, 3);
    /* restart the replica on its data, without a master */
    redisReply *bye = redisCommand(r, "SHUTDOWN");
    if (bye) freeReplyObject(bye);
    redisFree(r);
    ck_assert(srv_wait_exit(s, h_scaled_ms(10000)));
    /* restart it as a replica of a master that is not there: the AOF
     * replays all the same (a replica's gates do not apply to it) */
    srv *s2 = h_srv_start_on(s, "--appendonly yes --replicaof 127.0.0.1 %d", h_free_port());
    r = srv_connect(s2);
    h_wait_loaded(r, 10000);
    expect_nil(r, "GET local-before-sync");
    same_data(m, r, 3);
    redisFree(r);
    redisFree(m);
}
END_TEST

/* A replica killed while the rewrite that follows its sync runs: the AOF
 * on disk still describes the data before the sync (as Redis's, whose AOF
 * is off until that rewrite ends), never the old data with the new
 * stream on top. */
START_TEST(aof_crash_before_rewrite_ends) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    for (int i = 0; i < 30; i++) {
        redisReply *x = cmd(m, "SET key-%d %d", i, i);
        freeReplyObject(x);
    }
    srv *s = h_srv_start("--appendonly yes --rdb-key-save-delay 200000");
    redisContext *r = srv_connect(s);
    h_wait_info(r, "persistence", "aof_rewrite_in_progress", 0, 20000);
    expect_status(r, "OK", "SET local-before-sync 1");
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_link_up(r);
    expect_status(m, "OK", "SET after-sync 1");
    wait_caught_up(m, r);
    expect_bulk(r, "1", "GET after-sync");
    ck_assert_int_eq(h_info_int(r, "persistence", "aof_rewrite_in_progress"), 1);
    redisFree(r);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    r = srv_connect(s2);
    h_wait_loaded(r, 10000);
    expect_bulk(r, "1", "GET local-before-sync");
    expect_nil(r, "GET after-sync");
    expect_nil(r, "GET key-1");
    redisFree(r);
    redisFree(m);
}
END_TEST

/* ---- a fake master: a socket this test drives ---- */

typedef struct fake {
    int lfd, fd;
    int port;
    char buf[1 << 16];
    size_t len;
} fake;

static void fake_listen(fake *f) {
    memset(f, 0, sizeof *f);
    f->fd = -1;
    f->lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(f->lfd, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    ck_assert_int_eq(listen(f->lfd, 4), 0);
    socklen_t len = sizeof sa;
    ck_assert_int_eq(getsockname(f->lfd, (struct sockaddr *)&sa, &len), 0);
    f->port = ntohs(sa.sin_port);
}

static void fake_accept(fake *f) {
    struct pollfd pfd = {f->lfd, POLLIN, 0};
    ck_assert_msg(poll(&pfd, 1, h_scaled_ms(10000)) == 1, "the replica did not connect");
    f->fd = accept(f->lfd, NULL, NULL);
    ck_assert_int_ge(f->fd, 0);
    f->len = 0;
}

static void fake_cut(fake *f) {
    close(f->fd);
    f->fd = -1;
}

static void fake_close(fake *f) {
    if (f->fd >= 0) close(f->fd);
    close(f->lfd);
}

/* Parses one command at f->buf into out ("ARG ARG ..."); its length, or 0
 * when incomplete. Bare newlines (keepalives) are skipped. */
static size_t parse_cmd(fake *f, char *out, size_t cap) {
    size_t pos = 0;
    while (pos < f->len && f->buf[pos] == '\n') pos++;
    if (pos >= f->len) return 0;
    ck_assert_msg(f->buf[pos] == '*', "the replica sent '%.*s'", (int)(f->len - pos),
                  f->buf + pos);
    char *nl = memchr(f->buf + pos, '\n', f->len - pos);
    if (!nl) return 0;
    int argc = atoi(f->buf + pos + 1);
    pos = (size_t)(nl - f->buf) + 1;
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < argc; i++) {
        if (pos >= f->len) return 0;
        nl = memchr(f->buf + pos, '\n', f->len - pos);
        if (!nl) return 0;
        size_t alen = (size_t)atol(f->buf + pos + 1);
        pos = (size_t)(nl - f->buf) + 1;
        if (pos + alen + 2 > f->len) return 0;
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%.*s", i ? " " : "", (int)alen,
                              f->buf + pos);
        if (n >= cap) n = cap - 1;
        pos += alen + 2;
    }
    return pos;
}

/* The next command the replica sends, as "ARG ARG ...". */
static void fake_cmd(fake *f, char *out, size_t cap) {
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        size_t used = parse_cmd(f, out, cap);
        if (used) {
            memmove(f->buf, f->buf + used, f->len - used);
            f->len -= used;
            return;
        }
        long long left = deadline - h_now_ms();
        struct pollfd pfd = {f->fd, POLLIN, 0};
        ck_assert_msg(left > 0 && poll(&pfd, 1, (int)left) == 1, "no command from the replica");
        ssize_t n = recv(f->fd, f->buf + f->len, sizeof f->buf - f->len, 0);
        ck_assert_msg(n > 0, "the replica closed the link");
        f->len += (size_t)n;
    }
}

static void fake_expect(fake *f, const char *want) {
    char got[512];
    fake_cmd(f, got, sizeof got);
    ck_assert_msg(!strcmp(got, want), "the replica sent '%s', want '%s'", got, want);
}

static void fake_send(fake *f, const void *p, size_t n) {
    ck_assert_int_eq(raw_send(f->fd, p, n), 0);
}

static void fake_send_str(fake *f, const char *s) { fake_send(f, s, strlen(s)); }

/* The handshake up to PSYNC; returns PSYNC's arguments in psync. */
static void fake_handshake(fake *f, int replica_port, const char *auth, char *psync,
                           size_t cap) {
    char want[128];
    fake_expect(f, "PING");
    fake_send_str(f, "+PONG\r\n");
    if (auth) {
        fake_expect(f, auth);
        fake_send_str(f, "+OK\r\n");
    }
    snprintf(want, sizeof want, "REPLCONF listening-port %d", replica_port);
    fake_expect(f, want);
    fake_send_str(f, "+OK\r\n");
    fake_expect(f, "REPLCONF capa eof capa psync2");
    fake_send_str(f, "+OK\r\n");
    fake_cmd(f, psync, cap);
}

#define ID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define ID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define MARK "0123456789012345678901234567890123456789"

/* An RDB with keys k1..k3 in db 0 and an expired-later key, as redis-server
 * writes it. */
static char *make_rdb(size_t *len) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    expect_status(m, "OK", "MSET k1 v1 k2 v2 k3 v3");
    expect_int(m, 3, "RPUSH list a b c");
    expect_status(m, "OK", "SAVE");
    redisFree(m);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/dump.rdb", p->dir);
    return h_slurp(path, len, 1);
}

static const char *stream_select2 = "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"
                                    "*3\r\n$3\r\nSET\r\n$1\r\nx\r\n$1\r\n1\r\n";
static const char *stream_multi = "*1\r\n$5\r\nMULTI\r\n"
                                  "*3\r\n$3\r\nSET\r\n$1\r\ny\r\n$1\r\n1\r\n";
static const char *stream_exec = "*1\r\n$4\r\nEXEC\r\n";

/* The replica's side of the protocol, exactly: the handshake with AUTH,
 * PSYNC of its own history, an EOF payload received in pieces while the
 * old data is still served, the stream right behind the mark, ACKs, and
 * the offset of a PSYNC after a cut in the middle of a transaction (the
 * transaction is asked for again), then +CONTINUE with a new id. */
START_TEST(fake_master_protocol) {
    size_t rdblen;
    char *rdb = make_rdb(&rdblen);
    fake f;
    fake_listen(&f);
    srv *s = h_srv_start("--masteruser u1 --masterauth secret");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "SET mine 1");
    char *info = h_info(r, "replication"), myid[64];
    ck_assert(h_info_field(info, "master_replid", myid, sizeof myid));
    free(info);
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", f.port);
    fake_accept(&f);
    char psync[256], want[256];
    fake_handshake(&f, s->port, "AUTH u1 secret", psync, sizeof psync);
    snprintf(want, sizeof want, "PSYNC %s 1", myid); /* its own history, offset 0 */
    ck_assert_str_eq(psync, want);

    fake_send_str(&f, "+FULLRESYNC " ID_A " 100\r\n\n\n$EOF:" MARK "\r\n");
    fake_send(&f, rdb, rdblen / 2);
    /* loading: the old data is served meanwhile */
    h_wait_info(r, "replication", "master_sync_in_progress", 1, 10000);
    expect_bulk(r, "1", "GET mine");
    if (srv_is_reference()) {
        /* redis-server finds the mark only at the end of a read */
        fake_send(&f, rdb + rdblen / 2, rdblen - rdblen / 2);
        fake_send_str(&f, MARK);
        fake_expect(&f, "REPLCONF ACK 100");
        fake_send_str(&f, stream_select2);
    } else {
        /* the rest of the RDB (the loader ends with it), then the mark
         * with the stream right behind it, in the same write */
        fake_send(&f, rdb + rdblen / 2, rdblen - rdblen / 2);
        h_sleep_ms(300);
        /* the loader has all but the bytes that may be the mark: the old
         * data is still what clients read */
        expect_bulk(r, "1", "GET mine");
        ck_assert_int_eq(h_info_int(r, "replication", "master_sync_in_progress"), 1);
        size_t sl = strlen(stream_select2);
        char *tail = malloc(40 + sl);
        memcpy(tail, MARK, 40);
        memcpy(tail + 40, stream_select2, sl);
        fake_send(&f, tail, 40 + sl);
        free(tail);
        fake_expect(&f, "REPLCONF ACK 100");
    }
    long long off = 100 + (long long)strlen(stream_select2);
    h_wait_info(r, "replication", "slave_repl_offset", off, 10000);
    wait_link_up(r);
    expect_nil(r, "GET mine");
    expect_bulk(r, "v2", "GET k2");
    expect_int(r, 3, "LLEN list");
    expect_status(r, "OK", "SELECT 2");
    expect_bulk(r, "1", "GET x");
    info = h_info(r, "replication");
    ck_assert(h_info_field(info, "master_replid", psync, sizeof psync));
    ck_assert_str_eq(psync, ID_A);
    free(info);
    snprintf(want, sizeof want, "REPLCONF ACK %lld", off);
    fake_expect(&f, want); /* the next one, a second later */

    /* a cut in the middle of a transaction: not applied, not counted */
    fake_send_str(&f, stream_multi);
    h_sleep_ms(200);
    fake_cut(&f);
    fake_accept(&f);
    fake_handshake(&f, s->port, "AUTH u1 secret", psync, sizeof psync);
    snprintf(want, sizeof want, "PSYNC %s %lld", ID_A, off + 1);
    ck_assert_str_eq(psync, want);
    expect_nil(r, "GET y");
    if (srv_is_reference()) {
        fake_send_str(&f, "+CONTINUE " ID_A "\r\n");
        h_sleep_ms(100);
        fake_send_str(&f, stream_multi);
    } else {
        char both[256];
        snprintf(both, sizeof both, "+CONTINUE " ID_A "\r\n%s", stream_multi);
        fake_send_str(&f, both);
    }
    fake_send_str(&f, stream_exec);
    off += (long long)(strlen(stream_multi) + strlen(stream_exec));
    h_wait_info(r, "replication", "slave_repl_offset", off, 10000);
    expect_bulk(r, "1", "GET y"); /* in db 2, where the stream was */

    /* +CONTINUE with a new id: the history moves to replid2 */
    fake_cut(&f);
    fake_accept(&f);
    fake_handshake(&f, s->port, "AUTH u1 secret", psync, sizeof psync);
    snprintf(want, sizeof want, "PSYNC %s %lld", ID_A, off + 1);
    ck_assert_str_eq(psync, want);
    fake_send_str(&f, "+CONTINUE " ID_B "\r\n");
    wait_link_up(r);
    info = h_info(r, "replication");
    ck_assert(h_info_field(info, "master_replid", psync, sizeof psync));
    ck_assert_str_eq(psync, ID_B);
    ck_assert(h_info_field(info, "master_replid2", psync, sizeof psync));
    ck_assert_str_eq(psync, ID_A);
    ck_assert(h_info_field(info, "second_repl_offset", psync, sizeof psync));
    ck_assert_int_eq(atoll(psync), off + 1);
    free(info);
    redisFree(r);
    fake_close(&f);
    free(rdb);
}
END_TEST

/* A payload cut short, then a damaged one. A cut link is tried again by
 * both; verso keeps serving the data it had (it loads into fresh tables,
 * where redis-server empties its data first). On a damaged RDB
 * redis-server exits (rdbCheckThenExit); verso drops the link, keeps its
 * data and tries again. */
START_TEST(fake_master_bad_payload) {
    fake f;
    fake_listen(&f);
    srv *s = h_srv_start("%s", "");
    redisContext *r = srv_connect(s);
    expect_status(r, "OK", "SET mine 1");
    expect_status(r, "OK", "REPLICAOF 127.0.0.1 %d", f.port);
    fake_accept(&f);
    char psync[256];
    fake_handshake(&f, s->port, NULL, psync, sizeof psync);
    /* a $<len> payload cut short */
    fake_send_str(&f, "+FULLRESYNC " ID_A " 5\r\n$100000\r\nREDIS0010");
    h_wait_info(r, "replication", "master_sync_in_progress", 1, 10000);
    fake_cut(&f);
    fake_accept(&f);
    fake_handshake(&f, s->port, NULL, psync, sizeof psync);
    ck_assert_msg(!strncmp(psync, "PSYNC ", 6), "got '%s'", psync);
    ck_assert(srv_log_wait(s, "I/O error trying to sync with MASTER", 1000));
    if (!srv_is_reference()) expect_bulk(r, "1", "GET mine");
    /* a damaged one */
    fake_send_str(&f, "+FULLRESYNC " ID_A " 5\r\n$EOF:" MARK "\r\nREDIS0010\xfa\x09"
                      "garbage-garbage-garbage" MARK);
    if (srv_is_reference()) {
        ck_assert(srv_wait_exit(s, h_scaled_ms(10000)));
        redisFree(r);
        fake_close(&f);
        return;
    }
    int old = f.fd;
    fake_accept(&f); /* it gives up on it and comes back */
    close(old);
    fake_handshake(&f, s->port, NULL, psync, sizeof psync);
    ck_assert_msg(!strncmp(psync, "PSYNC ", 6), "got '%s'", psync);
    ck_assert(srv_log_wait(s, "Failed trying to load the MASTER synchronization DB", 1000));
    expect_bulk(r, "1", "GET mine");
    redisFree(r);
    fake_close(&f);
}
END_TEST

/* replicaof in the config file: followed from startup, PSYNC ? -1; a
 * payload with a length, after keepalive newlines; SLAVEOF NO ONE. */
START_TEST(replicaof_in_config) {
    size_t rdblen;
    char *rdb = make_rdb(&rdblen);
    fake f;
    fake_listen(&f);
    char conf[128];
    snprintf(conf, sizeof conf, "replicaof 127.0.0.1 %d\n", f.port);
    srv *s = srv_start_conf(conf, NULL);
    redisContext *r = srv_connect(s);
    fake_accept(&f);
    char psync[256], hdr[64];
    fake_handshake(&f, s->port, NULL, psync, sizeof psync);
    ck_assert_str_eq(psync, "PSYNC ? -1");
    redisReply *role = expect_array(r, 5, "ROLE");
    check_bulk(role->element[3], "handshake");
    check_int(role->element[4], -1);
    freeReplyObject(role);
    fake_send_str(&f, "+FULLRESYNC " ID_A " 7\r\n\n");
    h_wait_info(r, "replication", "master_sync_in_progress", 1, 10000);
    role = expect_array(r, 5, "ROLE");
    check_bulk(role->element[3], "sync");
    freeReplyObject(role);
    snprintf(hdr, sizeof hdr, "\n$%zu\r\n", rdblen);
    fake_send_str(&f, hdr);
    fake_send(&f, rdb, rdblen);
    fake_expect(&f, "REPLCONF ACK 7");
    wait_link_up(r);
    expect_bulk(r, "v1", "GET k1");
    role = expect_array(r, 5, "ROLE");
    check_bulk(role->element[0], "slave");
    check_bulk(role->element[1], "127.0.0.1");
    check_int(role->element[2], f.port);
    check_bulk(role->element[3], "connected");
    check_int(role->element[4], 7);
    freeReplyObject(role);
    /* a silent master: dropped after repl-timeout, PSYNC of its history */
    expect_status(r, "OK", "CONFIG SET repl-timeout 1");
    int silent = f.fd;
    fake_accept(&f); /* the replica came back */
    close(silent);
    ck_assert(srv_log_wait(s, "MASTER timeout: no data nor PING received", 1000));
    fake_handshake(&f, s->port, NULL, psync, sizeof psync);
    ck_assert_str_eq(psync, "PSYNC " ID_A " 8");
    fake_send_str(&f, "+CONTINUE\r\n");
    wait_link_up(r);
    expect_status(r, "OK", "CONFIG SET repl-timeout 60");
    expect_status(r, "OK", "SLAVEOF NO ONE");
    expect_status(r, "OK", "SET k1 mine");
    redisFree(r);
    srv_stop(s);
    fake_close(&f);
    free(rdb);
}
END_TEST

/* A replica restarted on its own snapshot resumes with a partial resync:
 * its save recorded its master's replication id and offset (repl-id,
 * repl-offset), as Redis 7.0's rdbSaveInfo. */
START_TEST(restart_resumes) {
    srv *p = primary_start(NULL);
    redisContext *m = srv_connect(p);
    char conf[128];
    snprintf(conf, sizeof conf, "replicaof 127.0.0.1 %d\n", p->port);
    srv *s = srv_start_conf(conf, NULL);
    redisContext *r = srv_connect(s);
    wait_link_up(r);
    expect_status(m, "OK", "SELECT 3");
    expect_status(m, "OK", "SET before restart");
    expect_int(m, 3, "RPUSH l a b c");
    wait_caught_up(m, r);
    long long full = h_info_int(m, "stats", "sync_full");
    long long partial = h_info_int(m, "stats", "sync_partial_ok");
    /* SHUTDOWN saves (a replica with no save points still saves when asked) */
    redisReply *rep = redisCommand(r, "SHUTDOWN SAVE");
    if (rep) freeReplyObject(rep);
    redisFree(r);
    ck_assert(srv_wait_exit(s, h_scaled_ms(20000)));
    /* writes while it is down, in db 3 as before: the stream goes on there */
    expect_status(m, "OK", "SET during down");
    expect_int(m, 4, "RPUSH l d");
    srv *s2 = srv_start_conf(conf, "--dir '%s'", s->dir);
    r = srv_connect(s2);
    wait_link_up(r);
    wait_caught_up(m, r);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_partial_ok"), partial + 1);
    ck_assert_int_eq(h_info_int(m, "stats", "sync_full"), full);
    expect_status(r, "OK", "SELECT 3");
    expect_bulk(r, "restart", "GET before");
    expect_bulk(r, "down", "GET during");
    expect_int(r, 4, "LLEN l");
    redisFree(r);
    redisFree(m);
    srv_stop(s2);
    srv_stop(s);
}
END_TEST

int main(void) {
    Suite *su = suite_create("repl_replica");
    h_add_tcase(su, "sync_eof_payload", sync_eof_payload, 120, NULL, teardown);
    h_add_tcase(su, "sync_len_payload", sync_len_payload, 120, NULL, teardown);
    h_add_tcase(su, "expiry_by_master_del", expiry_by_master_del, 120, NULL, teardown);
    h_add_tcase(su, "readonly_and_masterdown", readonly_and_masterdown, 120, NULL, teardown);
    h_add_tcase(su, "writable_replica_expires_own_keys", writable_replica_expires_own_keys, 120,
                NULL, teardown);
    h_add_tcase(su, "exec_on_stale_replica", exec_on_stale_replica, 120, NULL, teardown);
    h_add_tcase(su, "partial_resync", partial_resync, 180, NULL, teardown);
    h_add_tcase(su, "restart_resumes", restart_resumes, 120, NULL, teardown);
    h_add_tcase(su, "promotion", promotion, 120, NULL, teardown);
    h_add_tcase(su, "psync_failover_promotes", psync_failover_promotes, 120, NULL, teardown);
    h_add_tcase(su, "info_and_role_like_redis", info_and_role_like_redis, 120, NULL, teardown);
    h_add_tcase(su, "aof_on_replica", aof_on_replica, 180, NULL, teardown);
    h_add_tcase(su, "aof_crash_before_rewrite_ends", aof_crash_before_rewrite_ends, 120, NULL,
                teardown);
    h_add_tcase(su, "fake_master_protocol", fake_master_protocol, 120, NULL, teardown);
    h_add_tcase(su, "fake_master_bad_payload", fake_master_bad_payload, 120, NULL, teardown);
    h_add_tcase(su, "replicaof_in_config", replicaof_in_config, 120, NULL, teardown);
    return h_main(su);
}
