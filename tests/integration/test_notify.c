/* Integration tests of keyspace notifications (src/pubsub/notify.c and the
 * notify_keyspace_event calls in the commands, db.c and evict.c): a client
 * subscribed to `__key*__:*` must see exactly the messages Redis 7.0 sends,
 * in its order, for each group of commands (strings, keys, hashes, lists,
 * sets, zsets, blocking pops when served), for lazy and active expiry
 * (expired), eviction (evicted), the new (n) and key-miss (m) classes, the
 * K / E channel selection, and CONFIG SET / GET of notify-keyspace-events.
 * Every test runs against redis-server too
 * (VERSO_SERVER=/usr/bin/redis-server). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Published by the test after the commands of a step: the collector reads
 * up to it (it matches __key*__:* but is no keyspace event). */
#define MARKER "__keyevent@0__:zz-marker"

static redisContext *sub; /* subscribed to __key*__:* */

static void setup(void) {
    h_setup();
    sub = srv_connect(h_srv);
    redisReply *r = cmd(sub, "PSUBSCRIBE __key*__:*");
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    freeReplyObject(r);
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEA");
}

static void teardown(void) {
    if (sub) redisFree(sub);
    sub = NULL;
    h_teardown();
}

/* ---- collecting events ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[1024];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    ck_assert(n >= 0 && (size_t)n < sizeof tmp);
    if (b->len + (size_t)n + 3 > b->cap) {
        b->cap = (b->len + (size_t)n + 3) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    if (b->len) {
        memcpy(b->p + b->len, ", ", 2);
        b->len += 2;
    }
    memcpy(b->p + b->len, tmp, (size_t)n);
    b->len += (size_t)n;
    b->p[b->len] = '\0';
}

/* A channel "__keyspace@<db>__:<rest>" (or keyevent): *db and the rest. */
static int parse_channel(const redisReply *ch, const char *kind, int *db, const char **rest,
                         size_t *restlen) {
    size_t kl = strlen(kind);
    if (ch->len < kl || memcmp(ch->str, kind, kl) != 0) return 0;
    char *end;
    long v = strtol(ch->str + kl, &end, 10);
    if (end == ch->str + kl || strncmp(end, "__:", 3) != 0) return 0;
    *db = (int)v;
    *rest = end + 3;
    *restlen = ch->len - (size_t)(*rest - ch->str);
    return 1;
}

typedef struct pending {
    int on, db;
    char key[1024], event[64];
} pending;

static void flush_pending(sbuf *b, pending *pd) {
    if (!pd->on) return;
    if (pd->db) sb_add(b, "K:%s %s@%d", pd->event, pd->key, pd->db);
    else sb_add(b, "K:%s %s", pd->event, pd->key);
    pd->on = 0;
}

/* The events published since the last call, as "event key" (key@db
 * outside db 0) separated by ", ": a keyspace message followed by its
 * keyevent twin (Redis's order) makes one item; a keyspace message alone is
 * "K:event key", a keyevent message alone "E:event key". The caller frees. */
static char *events(void) {
    expect_int_range(h_c, 1, 1000, "PUBLISH %s x", MARKER);
    sbuf b = {NULL, 0, 0};
    sb_add(&b, "%s", "");
    b.len = 0;
    pending pd = {0};
    for (;;) {
        void *v = NULL;
        ck_assert_msg(redisGetReply(sub, &v) == REDIS_OK && v, "no message: %s", sub->errstr);
        redisReply *r = v;
        ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 4, "not a pmessage");
        const redisReply *ch = r->element[2], *pl = r->element[3];
        int db;
        const char *rest;
        size_t rl;
        if (ch->len == strlen(MARKER) && memcmp(ch->str, MARKER, ch->len) == 0) {
            freeReplyObject(r);
            break;
        }
        if (parse_channel(ch, "__keyspace@", &db, &rest, &rl)) {
            flush_pending(&b, &pd);
            ck_assert(rl < sizeof pd.key && pl->len < sizeof pd.event);
            pd.on = 1;
            pd.db = db;
            snprintf(pd.key, sizeof pd.key, "%.*s", (int)rl, rest);
            snprintf(pd.event, sizeof pd.event, "%.*s", (int)pl->len, pl->str);
        } else if (parse_channel(ch, "__keyevent@", &db, &rest, &rl)) {
            if (pd.on && pd.db == db && strlen(pd.event) == rl && !memcmp(pd.event, rest, rl) &&
                strlen(pd.key) == pl->len && !memcmp(pd.key, pl->str, pl->len)) {
                pd.on = 0;
                if (db) sb_add(&b, "%.*s %.*s@%d", (int)rl, rest, (int)pl->len, pl->str, db);
                else sb_add(&b, "%.*s %.*s", (int)rl, rest, (int)pl->len, pl->str);
            } else {
                flush_pending(&b, &pd);
                sb_add(&b, "E:%.*s %.*s", (int)rl, rest, (int)pl->len, pl->str);
            }
        } else {
            ck_abort_msg("unexpected channel %.*s", (int)ch->len, ch->str);
        }
        freeReplyObject(r);
    }
    flush_pending(&b, &pd);
    return b.p;
}

#define expect_events(want) expect_events_at(__FILE__, __LINE__, want)
static void expect_events_at(const char *file, int line, const char *want) {
    char *got = events();
    ck_assert_msg(strcmp(got, want) == 0, "%s:%d: events\n  got:  [%s]\n  want: [%s]", file,
                  line, got, want);
    free(got);
}

/* Runs a command, any reply but an I/O error. */
static void run(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(h_c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r != NULL, "no reply: %s", h_c->errstr);
    ck_assert_msg(r->type != REDIS_REPLY_ERROR, "error reply: %s", r->str);
    freeReplyObject(r);
}

/* ---- command groups ---- */

START_TEST(strings) {
    run("SET s v");
    expect_events("set s");
    run("SET s v EX 100");
    run("SET s v NX");
    run("SETNX s2 x");
    run("SETEX s3 100 v");
    run("PSETEX s3 100000 v");
    expect_events("set s, expire s, set s2, set s3, expire s3, set s3, expire s3");
    run("GETSET s v2");
    run("SET s v GET");
    run("MSET a 1 b 2");
    run("MSETNX a 1 c 3");
    expect_events("set s, set s, set a, set b");
    run("APPEND a x");
    run("APPEND newk x");
    run("SETRANGE a 0 z");
    run("SETRANGE a 0 %b", "", (size_t)0);
    run("SETRANGE nosuch 0 %b", "", (size_t)0);
    expect_events("append a, append newk, setrange a");
    run("INCR n");
    run("DECRBY n 5");
    run("DECR n");
    run("INCRBYFLOAT n 1.5");
    expect_events("incrby n, incrby n, incrby n, incrbyfloat n");
}
END_TEST

START_TEST(strings_del_expire) {
    run("SET a 1");
    run("SET s v");
    run("GETDEL a");
    run("GETDEL a");
    run("GETEX s EX 100");
    run("GETEX s PERSIST");
    run("GETEX s PERSIST");
    run("GETEX s");
    run("GETEX s PXAT 1");
    run("GET nosuch");
    expect_events("set a, set s, del a, expire s, persist s, del s");
}
END_TEST

START_TEST(keys) {
    run("SET a 1");
    run("SET b 2");
    run("DEL a b c");
    expect_events("set a, set b, del a, del b");
    run("SET x 1");
    run("SET y 2");
    run("RENAME x y");
    run("RENAMENX y z");
    run("RENAME z z");
    expect_events("set x, set y, rename_from x, rename_to y, rename_from y, rename_to z");
    run("EXPIRE z 100");
    run("PEXPIRE z 100000");
    run("EXPIRE z 100 NX");
    run("PERSIST z");
    run("PERSIST z");
    run("EXPIREAT z 1");
    expect_events("expire z, expire z, persist z, del z");
    run("SET m 1");
    run("MOVE m 1");
    run("SET c1 v");
    run("COPY c1 c2");
    run("COPY c1 c2");
    run("COPY c1 c2 REPLACE");
    run("COPY c1 c3 DB 2");
    expect_events("set m, move_from m, move_to m@1, set c1, copy_to c2, copy_to c2, "
                  "copy_to c3@2");
    redisReply *d = cmd(h_c, "DUMP c1");
    ck_assert_int_eq(d->type, REDIS_REPLY_STRING);
    run("RESTORE r 0 %b", d->str, d->len);
    run("RESTORE r 0 %b REPLACE", d->str, d->len);
    run("RESTORE r 1 %b REPLACE ABSTTL", d->str, d->len);
    freeReplyObject(d);
    expect_events("restore r, restore r, del r");
    run("RPUSH l 3 1 2");
    run("SORT l STORE sl");
    run("SORT nosuch STORE sl");
    run("SORT nosuch STORE sl");
    run("UNLINK c1");
    run("FLUSHDB");
    run("FLUSHALL");
    expect_events("rpush l, sortstore sl, del sl, del c1");
}
END_TEST

START_TEST(hashes) {
    run("HSET h f v g w");
    run("HSETNX h f x");
    run("HSETNX h z x");
    run("HMSET h a 1");
    expect_events("hset h, hset h, hset h");
    run("HINCRBY h a 2");
    run("HINCRBYFLOAT h a 1.5");
    run("HDEL h nosuch");
    run("HDEL h f g");
    run("HDEL h z a");
    expect_events("hincrby h, hincrbyfloat h, hdel h, hdel h, del h");
}
END_TEST

START_TEST(lists) {
    run("LPUSH l a b");
    run("RPUSH l c");
    run("LPUSHX nol a");
    run("RPUSHX l d");
    run("LINSERT l BEFORE c x");
    run("LINSERT l BEFORE nosuch x");
    run("LSET l 0 z");
    run("LREM l 0 x");
    run("LREM l 0 nosuch");
    run("LTRIM l 0 -1");
    expect_events("lpush l, rpush l, rpush l, linsert l, lset l, lrem l, ltrim l");
    run("LPOP l");
    run("RPOP l 2");
    run("LPOP l 0");
    run("LMOVE l l2 LEFT RIGHT");
    expect_events("lpop l, rpop l, rpush l2, lpop l, del l");
    run("RPUSH l2 b");
    run("RPOPLPUSH l2 l2");
    run("LMPOP 2 nol l2 LEFT COUNT 5");
    expect_events("rpush l2, lpush l2, rpop l2, lpop l2, del l2");
    run("RPUSH t 1 2 3");
    run("LTRIM t 5 10");
    expect_events("rpush t, ltrim t, del t");
}
END_TEST

/* A second client blocks with `blockcmd`; `pushcmd` serves it. */
static void blocked_then_served(const char *blockcmd, const char *pushcmd) {
    redisContext *b = srv_connect(h_srv);
    ck_assert_int_eq(redisAppendCommand(b, blockcmd), REDIS_OK);
    int done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(b, &done), REDIS_OK);
    h_wait_info(h_c, "clients", "blocked_clients", 1, 10000);
    run(pushcmd);
    void *r = NULL;
    ck_assert(redisGetReply(b, &r) == REDIS_OK && r);
    ck_assert_int_ne(((redisReply *)r)->type, REDIS_REPLY_NIL);
    freeReplyObject(r);
    redisFree(b);
}

START_TEST(blocking_served) {
    blocked_then_served("BLPOP bl 0", "RPUSH bl x");
    expect_events("rpush bl, lpop bl, del bl");
    blocked_then_served("BLMOVE src dst LEFT LEFT 0", "RPUSH src y");
    expect_events("rpush src, lpush dst, lpop src, del src");
    blocked_then_served("BZPOPMIN bz 0", "ZADD bz 1 a");
    expect_events("zadd bz, zpopmin bz, del bz");
    blocked_then_served("BLMPOP 0 1 bm RIGHT COUNT 3", "RPUSH bm 1 2");
    expect_events("rpush bm, rpop bm, del bm");
}
END_TEST

START_TEST(sets) {
    run("SADD s a b c");
    run("SADD s a");
    run("SREM s nosuch");
    run("SREM s a");
    run("SMOVE s s2 b");
    run("SMOVE s s2 nosuch");
    run("SADD s2 c");
    run("SMOVE s s2 c");
    expect_events("sadd s, srem s, srem s, sadd s2, sadd s2, srem s, del s");
    run("SPOP s2");
    run("SADD s3 1 2 3 4 5");
    run("SPOP s3 2");
    run("SPOP s3 0");
    run("SPOP s3 10");
    run("SPOP s2");
    run("SPOP s2");
    expect_events("spop s2, sadd s3, spop s3, spop s3, del s3, spop s2, del s2");
    run("SADD x 1 2");
    run("SADD y 2 3");
    run("SINTERSTORE d x y");
    run("SUNIONSTORE d x y");
    run("SDIFFSTORE d x y");
    run("SINTERSTORE d x nosuch");
    run("SINTERSTORE d x nosuch");
    run("SUNIONSTORE d nosuch");
    expect_events("sadd x, sadd y, sinterstore d, sunionstore d, sdiffstore d, del d");
}
END_TEST

START_TEST(zsets) {
    run("ZADD z 1 a 2 b");
    run("ZADD z 1 a");
    run("ZADD z 5 a");
    run("ZADD z NX 9 a");
    run("ZINCRBY z 1 b");
    run("ZADD z INCR 1 b");
    run("ZREM z nosuch");
    run("ZREM z a");
    expect_events("zadd z, zadd z, zincr z, zincr z, zrem z");
    run("ZADD z 1 c 2 d 3 e");
    run("ZREMRANGEBYRANK z 0 0");
    run("ZREMRANGEBYSCORE z 2 2");
    run("ZREMRANGEBYSCORE z 100 200");
    run("ZADD zl 0 a 0 b 0 c");
    run("ZREMRANGEBYLEX zl [a [a");
    run("ZREMRANGEBYLEX zl [x [y");
    run("ZPOPMIN zl");
    run("ZPOPMAX zl 5");
    run("ZPOPMIN nosuch");
    expect_events("zadd z, zremrangebyrank z, zremrangebyscore z, zadd zl, zremrangebylex zl, "
                  "zpopmin zl, zpopmax zl, del zl");
    run("ZADD u1 1 a 2 b");
    run("ZADD u2 1 b");
    run("ZUNIONSTORE dst 2 u1 u2");
    run("ZINTERSTORE dst 2 u1 u2");
    run("ZDIFFSTORE dst 2 u1 u2");
    run("ZRANGESTORE dst u1 0 0");
    run("ZINTERSTORE dst 2 u1 nosuch");
    run("ZRANGESTORE dst nosuch 0 -1");
    run("ZMPOP 1 u1 MIN COUNT 5");
    run("ZREMRANGEBYRANK u2 0 -1");
    expect_events("zadd u1, zadd u2, zunionstore dst, zinterstore dst, zdiffstore dst, "
                  "zrangestore dst, del dst, zpopmin u1, del u1, zremrangebyrank u2, del u2");
}
END_TEST

/* ---- expiry, eviction ---- */

START_TEST(expired_lazy) {
    expect_status(h_c, "OK", "DEBUG SET-ACTIVE-EXPIRE 0");
    run("SET k v PX 1");
    run("SET k2 v PX 1");
    run("SET k3 v PX 1");
    h_sleep_ms(50);
    expect_nil(h_c, "GET k");
    run("SET k2 w");
    expect_events("set k, expire k, set k2, expire k2, set k3, expire k3, expired k, "
                  "expired k2, set k2");
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEAmn");
    expect_int(h_c, 0, "EXISTS k3");
    expect_events("expired k3, keymiss k3");
    expect_status(h_c, "OK", "DEBUG SET-ACTIVE-EXPIRE 1");
}
END_TEST

START_TEST(expired_active) {
    run("SET k v PX 30");
    run("HSET h f v");
    run("PEXPIRE h 30");
    expect_events("set k, expire k, hset h, expire h");
    /* the active cycle deletes both, in its own order, with no access */
    long long deadline = h_now_ms() + h_scaled_ms(10000);
    char *got = NULL;
    size_t seen = 0;
    while (seen < 2 && h_now_ms() < deadline) {
        h_sleep_ms(50);
        free(got);
        got = events();
        if (!*got) continue;
        ck_assert_msg(strcmp(got, "expired k") == 0 || strcmp(got, "expired h") == 0 ||
                          strcmp(got, "expired k, expired h") == 0 ||
                          strcmp(got, "expired h, expired k") == 0,
                      "got [%s]", got);
        seen += strchr(got, ',') ? 2 : 1;
    }
    free(got);
    ck_assert_uint_eq(seen, 2);
    expect_int(h_c, 0, "DBSIZE");
}
END_TEST

START_TEST(evicted) {
    for (int i = 0; i < 5; i++) run("SET e%d v", i);
    expect_events("set e0, set e1, set e2, set e3, set e4");
    expect_status(h_c, "OK", "CONFIG SET maxmemory-policy allkeys-lru");
    expect_status(h_c, "OK", "CONFIG SET maxmemory 1");
    expect_error_prefix(h_c, "OOM", "SET trigger x");
    expect_status(h_c, "OK", "CONFIG SET maxmemory 0");
    expect_int(h_c, 0, "DBSIZE");
    char *got = events();
    /* every key once, in the pool's order */
    for (int i = 0; i < 5; i++) {
        char want[32];
        snprintf(want, sizeof want, "evicted e%d", i);
        char *at = strstr(got, want);
        ck_assert_msg(at && !strstr(at + 1, want), "%s in [%s]", want, got);
    }
    ck_assert_msg(strlen(got) == 5 * strlen("evicted e0") + 4 * 2, "got [%s]", got);
    free(got);
}
END_TEST

/* ---- classes and channels ---- */

START_TEST(new_and_keymiss) {
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEn");
    run("SET a 1");
    run("SET a 2");
    run("LPUSH l x");
    run("LPUSH l y");
    run("SET b 1");
    run("RENAME a b");
    run("GET nosuch");
    expect_events("new a, new l, new b, new b");
    /* every way a key is created */
    run("SETRANGE sr 2 x");
    run("APPEND ap x");
    run("INCR in");
    run("HINCRBY hi f 1");
    run("SADD sa m");
    run("ZADD za 1 m");
    run("SMOVE sa sm m");
    run("COPY za zc");
    run("MOVE zc 3");
    run("SUNIONSTORE su sm");
    run("RPUSH ls x");
    run("LMOVE ls lm LEFT LEFT");
    run("DEBUG SLEEP 0");
    expect_events("new sr, new ap, new in, new hi, new sa, new za, new sm, new zc, new zc@3, "
                  "new su, new ls, new lm");
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEm");
    run("GET nosuch");
    run("HGET nosuch2 f");
    run("EXISTS nosuch3");
    run("SET nosuch4 x");
    run("GET nosuch4");
    expect_events("keymiss nosuch, keymiss nosuch2, keymiss nosuch3");
    /* the reads of other commands */
    run("SINTERSTORE d1 nos1 nos2");
    run("ZUNIONSTORE d2 1 nos3");
    run("LRANGE nos4 0 -1");
    run("ZSCORE nos5 m");
    run("MGET nos6 nosuch4");
    run("TTL nos7");
    run("COPY nos8 dst");
    expect_events("keymiss nos1, keymiss nos2, keymiss nos3, keymiss nos4, keymiss nos5, "
                  "keymiss nos6, keymiss nos7, keymiss nos8");
    /* KEAn: A and n (its CONFIG GET form hides the n) */
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEAn");
    run("SET brandnew 1");
    expect_events("new brandnew, set brandnew");
    /* A includes neither n nor m */
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEA");
    run("GET nosuch");
    run("SET fresh 1");
    expect_events("set fresh");
}
END_TEST

START_TEST(channels) {
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events K$");
    run("SET a 1");
    run("LPUSH l x");
    expect_events("K:set a");
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events Eg");
    run("SET a 1");
    run("DEL a");
    expect_events("E:del a");
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events A");
    run("SET a 1");
    expect_events("");
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events %s", "");
    run("SET a 1");
    expect_events("");
    /* the database of the key */
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEA");
    expect_status(h_c, "OK", "SELECT 5");
    run("SET a 1");
    expect_status(h_c, "OK", "SELECT 0");
    expect_events("set a@5");
    /* a key with a blank and binary bytes, and a long one (channel name
     * beyond any fixed buffer) */
    run("SET %b v", "a b\x01", (size_t)4);
    char big[600];
    memset(big, 'k', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    run("SET %s v", big);
    char *got = events();
    char want[700];
    snprintf(want, sizeof want, "set a b\x01, set %s", big);
    ck_assert_str_eq(got, want);
    free(got);
}
END_TEST

/* CONFIG SET then GET of notify-keyspace-events: Redis's canonical form. */
static void round_trip(const char *set, const char *want) {
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events %s", set);
    redisReply *r = expect_array(h_c, 2, "CONFIG GET notify-keyspace-events");
    check_bulk(r->element[1], want);
    freeReplyObject(r);
}

START_TEST(config_round_trip) {
    round_trip("KEA", "AKE");
    round_trip("Elg", "glE");
    round_trip("g$lshzxetd", "A");
    round_trip("KEmn", "nKEm");
    round_trip("Ex", "xE");
    round_trip("AK", "AK");
    round_trip("z$", "$z");
    round_trip("KEAm", "AKEm");
    /* Redis 7.0 writes n only without A (keyspaceEventsFlagsToString), though
     * the class stays on */
    round_trip("KEAn", "AKE");
    round_trip("gn", "gn");
    round_trip("", "");
    expect_error(h_c,
                 "ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') "
                 "- Invalid event class character. Use 'Ag$lshzxeKEtmdn'.",
                 "CONFIG SET notify-keyspace-events Q");
    redisReply *r = expect_array(h_c, 2, "CONFIG GET notify-keyspace-events");
    check_bulk(r->element[1], "");
    freeReplyObject(r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("notify");
    TCase *tc = tcase_create("notify");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, strings);
    tcase_add_test(tc, strings_del_expire);
    tcase_add_test(tc, keys);
    tcase_add_test(tc, hashes);
    tcase_add_test(tc, lists);
    tcase_add_test(tc, blocking_served);
    tcase_add_test(tc, sets);
    tcase_add_test(tc, zsets);
    tcase_add_test(tc, expired_lazy);
    tcase_add_test(tc, expired_active);
    tcase_add_test(tc, evicted);
    tcase_add_test(tc, new_and_keymiss);
    tcase_add_test(tc, channels);
    tcase_add_test(tc, config_round_trip);
    suite_add_tcase(s, tc);
    return h_main(s);
}
