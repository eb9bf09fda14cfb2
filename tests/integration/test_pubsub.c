/* Integration tests of pub/sub (src/pubsub/pubsub.c) and of the rest of what
 * Sentinel needs from a node that is not replication: SUBSCRIBE PSUBSCRIBE
 * SSUBSCRIBE and their UNSUBSCRIBE forms (reply counts, nil when none),
 * PUBLISH / SPUBLISH receivers and message forms, the subscribed context
 * (its error, PING's ["pong", x]), PUBSUB's subcommands, CLIENT LIST's
 * sub/psub/ssub and P flag, a slow subscriber closed by the pubsub output
 * limit, redis-py's pubsub(), CLIENT KILL's filters and old form, SCRIPT
 * without scripts, CONFIG REWRITE. Every test runs against redis-server
 * too (VERSO_SERVER=/usr/bin/redis-server). */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* ---- helpers ---- */



/* The next reply must be [a, b, c] or [a, b, c, d] of bulks, with an
 * integer last when cnt >= 0 (the (un)subscribe forms; b NULL: nil). */
static void expect_push(redisContext *c, const char *a, const char *b, const char *d3,
                        long long cnt) {
    redisReply *r = h_next_reply(c);
    char buf[128];
    size_t want = cnt >= 0 ? 3 : (d3 ? 4 : 3);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == want, "got %s (want %zu)",
                  h_reply_str(r, buf, sizeof buf), want);
    check_bulk(r->element[0], a);
    if (b) check_bulk(r->element[1], b);
    else check_nil(r->element[1]);
    if (cnt >= 0) check_int(r->element[2], cnt);
    else if (d3) {
        /* pmessage: pattern, channel, payload; d3 "chan|payload" */
        const char *bar = strchr(d3, '|');
        ck_assert_ptr_nonnull(bar);
        ck_assert_int_eq(r->element[2]->type, REDIS_REPLY_STRING);
        ck_assert_int_eq(r->element[3]->type, REDIS_REPLY_STRING);
        ck_assert(r->element[2]->len == (size_t)(bar - d3) &&
                  !memcmp(r->element[2]->str, d3, r->element[2]->len));
        ck_assert_str_eq(r->element[3]->str, bar + 1);
    }
    freeReplyObject(r);
}

#define expect_sub(c, word, name, cnt) expect_push(c, word, name, NULL, cnt)

/* A message: ["message"|"smessage", chan, payload]. */
static void expect_msg(redisContext *c, const char *kind, const char *chan, const char *payload) {
    redisReply *r = h_next_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 3, "type %d", r->type);
    check_bulk(r->element[0], kind);
    check_bulk(r->element[1], chan);
    check_bulk(r->element[2], payload);
    freeReplyObject(r);
}

static void subscribe(redisContext *c, const char *cmd, const char *name, long long cnt) {
    h_send(c, "%s %s", cmd, name);
    char word[32];
    snprintf(word, sizeof word, "%s", cmd);
    for (char *p = word; *p; p++) *p = (char)(*p | 0x20);
    expect_sub(c, word, name, cnt);
}

/* The CLIENT LIST line of the client named name, or fails. */
static char *client_line(redisContext *c, const char *name) {
    redisReply *r = cmd(c, "CLIENT LIST");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char key[64];
    snprintf(key, sizeof key, " name=%s ", name);
    char *p = strstr(r->str, key);
    ck_assert_msg(p, "no client %s in:\n%s", name, r->str);
    while (p > r->str && p[-1] != '\n') p--;
    char *line = strndup(p, strcspn(p, "\n"));
    freeReplyObject(r);
    return line;
}

static void expect_field(const char *line, const char *field) {
    char want[64];
    snprintf(want, sizeof want, " %s ", field);
    ck_assert_msg(strstr(line, want), "no '%s' in: %s", field, line);
}

/* ---- subscribe, publish ---- */

START_TEST(subscribe_and_publish) {
    redisContext *a = srv_connect(h_srv), *b = srv_connect(h_srv);
    h_send(a, "SUBSCRIBE ch1 ch2");
    expect_sub(a, "subscribe", "ch1", 1);
    expect_sub(a, "subscribe", "ch2", 2);
    h_send(a, "PSUBSCRIBE ch* c?1");
    expect_sub(a, "psubscribe", "ch*", 3);
    expect_sub(a, "psubscribe", "c?1", 4);
    subscribe(a, "SUBSCRIBE", "ch1", 4); /* again: no new subscription */
    h_send(b, "SSUBSCRIBE ch1");
    expect_sub(b, "ssubscribe", "ch1", 1);   /* shard channels count apart */
    h_send(b, "SUBSCRIBE ch1");
    expect_sub(b, "subscribe", "ch1", 1);

    expect_int(h_c, 4, "PUBLISH ch1 hello");  /* a, a's two patterns, b */
    expect_int(h_c, 1, "SPUBLISH ch1 shard"); /* b only */
    expect_int(h_c, 0, "PUBLISH nope x");
    expect_int(h_c, 2, "PUBLISH ch2 two");    /* a's channel and ch* */
    expect_int(h_c, 0, "SPUBLISH ch2 x");

    expect_msg(a, "message", "ch1", "hello");
    /* the two pmessages in either order (Redis walks a hash table) */
    redisReply *p1 = h_next_reply(a), *p2 = h_next_reply(a);
    ck_assert(p1->type == REDIS_REPLY_ARRAY && p1->elements == 4);
    ck_assert(p2->type == REDIS_REPLY_ARRAY && p2->elements == 4);
    check_bulk(p1->element[0], "pmessage");
    check_bulk(p2->element[0], "pmessage");
    int ch_first = !strcmp(p1->element[1]->str, "ch*");
    check_bulk(p1->element[1], ch_first ? "ch*" : "c?1");
    check_bulk(p2->element[1], ch_first ? "c?1" : "ch*");
    check_bulk(p1->element[2], "ch1");
    check_bulk(p2->element[3], "hello");
    freeReplyObject(p1);
    freeReplyObject(p2);
    expect_msg(a, "message", "ch2", "two");
    expect_push(a, "pmessage", "ch*", "ch2|two", -1);
    expect_msg(b, "message", "ch1", "hello");
    expect_msg(b, "smessage", "ch1", "shard");

    /* binary names and payloads */
    h_send(b, "SUBSCRIBE %b", "a\0b", (size_t)3);
    redisReply *r = h_next_reply(b);
    ck_assert(r->element[1]->len == 3 && !memcmp(r->element[1]->str, "a\0b", 3));
    freeReplyObject(r);
    expect_int(h_c, 1, "PUBLISH %b %b", "a\0b", (size_t)3, "x\0y", (size_t)3);
    r = h_next_reply(b);
    ck_assert(r->element[2]->len == 3 && !memcmp(r->element[2]->str, "x\0y", 3));
    freeReplyObject(r);
    redisFree(a);
    redisFree(b);
}
END_TEST

START_TEST(unsubscribe_forms) {
    redisContext *a = srv_connect(h_srv);
    h_send(a, "UNSUBSCRIBE");
    expect_sub(a, "unsubscribe", NULL, 0);
    h_send(a, "PUNSUBSCRIBE");
    expect_sub(a, "punsubscribe", NULL, 0);
    h_send(a, "SUNSUBSCRIBE");
    expect_sub(a, "sunsubscribe", NULL, 0);
    h_send(a, "UNSUBSCRIBE never");          /* not subscribed: still answered */
    expect_sub(a, "unsubscribe", "never", 0);
    expect_status(a, "PONG", "PING");          /* not in the subscribed context */

    h_send(a, "SUBSCRIBE a");
    expect_sub(a, "subscribe", "a", 1);
    h_send(a, "PSUBSCRIBE p*");
    expect_sub(a, "psubscribe", "p*", 2);
    h_send(a, "SSUBSCRIBE s");
    expect_sub(a, "ssubscribe", "s", 1);
    h_send(a, "UNSUBSCRIBE");
    expect_sub(a, "unsubscribe", "a", 1);
    h_send(a, "PUNSUBSCRIBE p* q*");
    expect_sub(a, "punsubscribe", "p*", 0);
    expect_sub(a, "punsubscribe", "q*", 0);
    /* still subscribed to a shard channel: still in the context */
    h_send(a, "PING");
    redisReply *r = h_next_reply(a);
    ck_assert(r->type == REDIS_REPLY_ARRAY && r->elements == 2);
    freeReplyObject(r);
    h_send(a, "SUNSUBSCRIBE s");
    expect_sub(a, "sunsubscribe", "s", 0);
    expect_status(a, "PONG", "PING");
    expect_bulk(a, "x", "PING x");
    expect_int(h_c, 0, "PUBLISH a m");
    expect_int(h_c, 0, "PUBSUB NUMPAT");
    r = expect_array(h_c, 0, "PUBSUB CHANNELS");
    freeReplyObject(r);
    redisFree(a);
}
END_TEST

START_TEST(subscribed_context) {
    redisContext *a = srv_connect(h_srv);
    subscribe(a, "SUBSCRIBE", "c", 1);
    expect_error(a, "ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                    "QUIT / RESET are allowed in this context", "GET x");
    expect_error(a, "ERR Can't execute 'client|info': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / "
                    "PING / QUIT / RESET are allowed in this context", "CLIENT INFO");
    redisReply *r = expect_array(a, 2, "PING");
    check_bulk(r->element[0], "pong");
    check_bulk(r->element[1], "");
    freeReplyObject(r);
    r = expect_array(a, 2, "PING hi");
    check_bulk(r->element[0], "pong");
    check_bulk(r->element[1], "hi");
    freeReplyObject(r);
    expect_error(a, "ERR wrong number of arguments for 'ping' command", "PING a b");
    subscribe(a, "PSUBSCRIBE", "x*", 2);
    expect_status(a, "OK", "QUIT");
    redisFree(a);

    /* SUBSCRIBE inside MULTI runs (Redis's legacy), SSUBSCRIBE does not */
    redisContext *m = srv_connect(h_srv);
    expect_status(m, "OK", "MULTI");
    expect_status(m, "QUEUED", "SSUBSCRIBE s");
    expect_status(m, "QUEUED", "SUBSCRIBE y");
    r = expect_array(m, 2, "EXEC");
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_ERROR);
    ck_assert_str_eq(r->element[0]->str, "ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
    ck_assert(r->element[1]->type == REDIS_REPLY_ARRAY && r->element[1]->elements == 3);
    freeReplyObject(r);
    expect_error_prefix(m, "ERR Can't execute 'get'", "GET x");
    expect_int(h_c, 1, "PUBLISH y hi");
    expect_msg(m, "message", "y", "hi");
    redisFree(m);
    expect_error(h_c, "ERR wrong number of arguments for 'subscribe' command", "SUBSCRIBE");
    expect_error(h_c, "ERR wrong number of arguments for 'publish' command", "PUBLISH a");
}
END_TEST

/* ---- PUBSUB ---- */

static int has_bulk(const redisReply *r, const char *s) {
    for (size_t i = 0; i < r->elements; i++)
        if (r->element[i]->type == REDIS_REPLY_STRING && !strcmp(r->element[i]->str, s)) return 1;
    return 0;
}

START_TEST(pubsub_introspection) {
    redisContext *a = srv_connect(h_srv), *b = srv_connect(h_srv);
    subscribe(a, "SUBSCRIBE", "ch1", 1);
    subscribe(a, "SUBSCRIBE", "ch2", 2);
    subscribe(b, "SUBSCRIBE", "ch1", 1);
    subscribe(a, "PSUBSCRIBE", "ch*", 3);
    subscribe(b, "PSUBSCRIBE", "ch*", 2);
    subscribe(b, "PSUBSCRIBE", "x*", 3);
    subscribe(b, "SSUBSCRIBE", "s1", 1);

    redisReply *r = expect_array(h_c, 2, "PUBSUB CHANNELS");
    ck_assert(has_bulk(r, "ch1") && has_bulk(r, "ch2"));
    freeReplyObject(r);
    r = expect_array(h_c, 1, "PUBSUB CHANNELS *2");
    check_bulk(r->element[0], "ch2");
    freeReplyObject(r);
    r = expect_array(h_c, 6, "PUBSUB NUMSUB ch1 ch2 zz");
    check_bulk(r->element[0], "ch1");
    check_int(r->element[1], 2);
    check_bulk(r->element[2], "ch2");
    check_int(r->element[3], 1);
    check_bulk(r->element[4], "zz");
    check_int(r->element[5], 0);
    freeReplyObject(r);
    r = expect_array(h_c, 0, "PUBSUB NUMSUB");
    freeReplyObject(r);
    expect_int(h_c, 2, "PUBSUB NUMPAT"); /* unique patterns */
    /* INFO stats counts them as Redis 7.0 does */
    ck_assert_int_eq(h_info_int(h_c, "stats", "pubsub_channels"), 2);
    ck_assert_int_eq(h_info_int(h_c, "stats", "pubsub_patterns"), 2);
    ck_assert_int_eq(h_info_int(h_c, "stats", "pubsubshard_channels"), 1);
    r = expect_array(h_c, 1, "PUBSUB SHARDCHANNELS");
    check_bulk(r->element[0], "s1");
    freeReplyObject(r);
    r = expect_array(h_c, 0, "PUBSUB SHARDCHANNELS c*");
    freeReplyObject(r);
    r = expect_array(h_c, 4, "PUBSUB SHARDNUMSUB s1 ch1");
    check_int(r->element[1], 1);
    check_int(r->element[3], 0);
    freeReplyObject(r);
    r = expect_array(h_c, 14, "PUBSUB HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "PUBSUB <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    expect_error(h_c, "ERR unknown subcommand 'FOO'. Try PUBSUB HELP.", "PUBSUB FOO");
    expect_error(h_c, "ERR wrong number of arguments for 'pubsub' command", "PUBSUB");
    /* shard channels are not keys (NOT_KEY key specs) */
    expect_error(h_c, "ERR The command has no key arguments", "COMMAND GETKEYS SPUBLISH ch m");
    expect_error(h_c, "ERR The command has no key arguments", "COMMAND GETKEYS SSUBSCRIBE a b");
    expect_error(h_c, "ERR wrong number of arguments for 'pubsub|numpat' command",
                 "PUBSUB NUMPAT x");
    expect_error(h_c, "ERR unknown subcommand or wrong number of arguments for 'CHANNELS'. "
                      "Try PUBSUB HELP.", "PUBSUB CHANNELS a b");

    /* CLIENT LIST: sub= psub= ssub= and the P flag */
    redisContext *n = srv_connect(h_srv);
    expect_status(n, "OK", "CLIENT SETNAME plain");
    redisFree(a);
    redisFree(n);
    n = NULL;
    a = srv_connect(h_srv);
    expect_status(a, "OK", "CLIENT SETNAME subber");
    subscribe(a, "SUBSCRIBE", "k1", 1);
    subscribe(a, "SUBSCRIBE", "k2", 2);
    subscribe(a, "PSUBSCRIBE", "k*", 3);
    subscribe(a, "SSUBSCRIBE", "sk", 1);
    char *line = client_line(h_c, "subber");
    expect_field(line, "flags=P");
    expect_field(line, "sub=2");
    expect_field(line, "psub=1");
    expect_field(line, "ssub=1");
    free(line);
    /* a client that quits drops its subscriptions */
    redisFree(b);
    h_sleep_ms(100);
    r = expect_array(h_c, 4, "PUBSUB NUMSUB ch1 x");
    for (int tries = 0; tries < 100 && r->element[1]->integer != 0; tries++) {
        freeReplyObject(r);
        h_sleep_ms(20);
        r = expect_array(h_c, 4, "PUBSUB NUMSUB ch1 x");
    }
    check_int(r->element[1], 0);
    freeReplyObject(r);
    expect_int(h_c, 1, "PUBSUB NUMPAT"); /* k* only */
    redisFree(a);
}
END_TEST

/* ---- a slow subscriber ---- */

/* A command as a multibulk on fd, one word per argument */
static void raw_words(int fd, const char *const *words, int n) {
    size_t cap = 64;
    for (int i = 0; i < n; i++) cap += strlen(words[i]) + 32;
    char *buf = malloc(cap);
    ck_assert_ptr_nonnull(buf);
    int len = snprintf(buf, cap, "*%d\r\n", n);
    for (int i = 0; i < n; i++)
        len += snprintf(buf + len, cap - (size_t)len, "$%zu\r\n%s\r\n", strlen(words[i]),
                        words[i]);
    ck_assert_int_eq(raw_send(fd, buf, (size_t)len), 0);
    free(buf);
}

/* A RESP3 client subscribed to the keyspace events and blocked on a list,
 * pushed past the pubsub output limit by the events of the clients served
 * before it, in the same push: it is closed after the walk over the
 * blocked clients (closing it during the walk freed what the walk read
 * next), and the clients after it are still served. Redis may hand the
 * dying client an element; verso skips it, so nothing pushed is lost. */
START_TEST(subscriber_closed_while_clients_are_served) {
    /* events of 20 KB (the key is in each): the second one takes the victim
     * past 30000 bytes while the client just before it is served (Redis,
     * whose limit does not count its 16 KB reply buffer, closes it a step
     * later) */
    enum { KEYLEN = 20000 };
    char *key = malloc(KEYLEN + 1);
    ck_assert_ptr_nonnull(key);
    memset(key, 'k', KEYLEN);
    key[KEYLEN] = '\0';
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events El");
    expect_status(h_c, "OK", "CONFIG SET client-output-buffer-limit %s", "pubsub 30000 0 0");
    const char *const blpop[] = {"BLPOP", key, "0"};
    int first = raw_connect(h_srv->port), second = raw_connect(h_srv->port);
    raw_words(first, blpop, 3);
    raw_words(second, blpop, 3);
    int victim = raw_connect(h_srv->port);
    static const char *const hello[] = {"HELLO", "3"};
    static const char *const sub[] = {"SUBSCRIBE", "__keyevent@0__:lpop"};
    char buf[1024];
    int closed = 0;
    raw_words(victim, hello, 2);
    raw_read(victim, buf, sizeof buf, 1, 5000, &closed);
    h_sleep_ms(100); /* the whole HELLO map */
    raw_read(victim, buf, sizeof buf, 0, 100, &closed);
    raw_words(victim, sub, 2);
    const char *conf = ">3\r\n$9\r\nsubscribe\r\n$19\r\n__keyevent@0__:lpop\r\n:1\r\n";
    size_t n = raw_read(victim, buf, sizeof buf, strlen(conf), 5000, &closed);
    ck_assert(n == strlen(conf) && !memcmp(buf, conf, n));
    raw_words(victim, blpop, 3);
    int last = raw_connect(h_srv->port);
    raw_words(last, blpop, 3);
    h_wait_info(h_c, "clients", "blocked_clients", 4, 5000);

    expect_int(h_c, 4, "RPUSH %s a b c d", key);
    /* each served client gets [key, element]: the element is the last byte */
    size_t want = (size_t)snprintf(buf, sizeof buf, "*2\r\n$%d\r\n", KEYLEN) + KEYLEN + 9;
    char *got = malloc(want + 1);
    n = raw_read(first, got, want + 1, want, 5000, &closed);
    ck_assert_msg(n == want && got[want - 3] == 'a', "n %zu want %zu tail %.12s", n, want, n >= 12 ? got + n - 12 : got);
    n = raw_read(second, got, want + 1, want, 5000, &closed);
    ck_assert(n == want && got[want - 3] == 'b');
    ck_assert_int_eq(raw_wait_closed(victim, 10000, NULL), 1);
    n = raw_read(last, got, want + 1, want, 5000, &closed);
    ck_assert_uint_eq(n, want);
    char e = got[want - 3];
    ck_assert_msg(e == 'c' || e == 'd', "last got %c", e);
    expect_int(h_c, e == 'c' ? 1 : 0, "LLEN %s", key);
    if (!srv_is_reference()) ck_assert_int_eq(e, 'c'); /* verso loses nothing */
    expect_status(h_c, "PONG", "PING");
    free(got);
    free(key);
    close(first);
    close(second);
    close(victim);
    close(last);
}
END_TEST


/* A subscriber that never reads is closed by the pubsub output limit
 * (1 MB hard here), so the server never holds more than that for it: it
 * receives far less than was published and is gone from NUMSUB. */
START_TEST(slow_subscriber_closed) {
    expect_status(h_c, "OK", "CONFIG SET client-output-buffer-limit %s", "pubsub 1mb 0 0");
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "SUBSCRIBE slow\r\n"), 0);
    char buf[256];
    int closed = 0;
    raw_read(fd, buf, sizeof buf, 33, 5000, &closed); /* the subscribe reply */
    ck_assert_int_eq(closed, 0);
    size_t msglen = 64 * 1024, total = 0;
    char *msg = malloc(msglen);
    memset(msg, 'm', msglen);
    long long receivers = 1;
    int i;
    for (i = 0; i < 1024 && receivers > 0; i++) { /* up to 64 MB */
        redisReply *r = cmd(h_c, "PUBLISH slow %b", msg, msglen);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        receivers = r->integer;
        freeReplyObject(r);
        total += msglen;
    }
    free(msg);
    ck_assert_msg(receivers == 0, "the subscriber is still there after %zu bytes", total);
    expect_int(h_c, 0, "PUBLISH slow again");
    redisReply *r = expect_array(h_c, 2, "PUBSUB NUMSUB slow");
    check_int(r->element[1], 0);
    freeReplyObject(r);
    size_t got = 0;
    ck_assert_int_eq(raw_wait_closed(fd, 10000, &got), 1);
    ck_assert_msg(got < 16u * 1024 * 1024, "the subscriber got %zu bytes of %zu", got, total);
    close(fd);
    char *log = srv_log_read(h_srv);
    ck_assert_msg(strstr(log, "for overcoming of output buffer limits"), "log:\n%s", log);
    free(log);
}
END_TEST

/* ---- redis-py ---- */

START_TEST(redis_py_pubsub) {
    char script[4096], port[16], *out = NULL;
    snprintf(script, sizeof script, "%s/tests/integration/redispy_pubsub.py", VERSO_TOP_SRCDIR);
    snprintf(port, sizeof port, "%d", h_srv->port);
    const char *argv[] = {"/usr/bin/python3", script, port, NULL};
    int st = h_run(NULL, &out, 60000, argv);
    ck_assert_msg(st == 0 && strstr(out, "redispy_pubsub: ok"),
                  "redispy_pubsub.py (status 0x%x):\n%s", st, out);
    free(out);
}
END_TEST

/* ---- CLIENT KILL ---- */

static long long client_id(redisContext *c) {
    redisReply *r = cmd(c, "CLIENT ID");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    long long id = r->integer;
    freeReplyObject(r);
    return id;
}

/* 1 when c's connection was closed by the server. */
static int is_closed(redisContext *c) {
    redisReply *r = redisCommand(c, "PING");
    if (r) freeReplyObject(r);
    return r == NULL;
}

/* "addr" or "laddr" of c, from CLIENT INFO. */
static void client_addr(redisContext *c, const char *field, char *out, size_t cap) {
    redisReply *r = cmd(c, "CLIENT INFO");
    char key[16];
    snprintf(key, sizeof key, " %s=", field);
    const char *p = strstr(r->str, key);
    ck_assert_ptr_nonnull(p);
    p += strlen(key);
    size_t n = strcspn(p, " ");
    ck_assert(n < cap);
    memcpy(out, p, n);
    out[n] = '\0';
    freeReplyObject(r);
}

START_TEST(client_kill_filters) {
    /* errors, as Redis 7.0 words them */
    expect_error(h_c, "ERR Unknown client type 'foo'", "CLIENT KILL TYPE foo");
    expect_error(h_c, "ERR No such user 'bob'", "CLIENT KILL USER bob");
    expect_error(h_c, "ERR client-id should be greater than 0", "CLIENT KILL ID x");
    expect_error(h_c, "ERR client-id should be greater than 0", "CLIENT KILL ID 0");
    expect_error(h_c, "ERR No such client", "CLIENT KILL 1.2.3.4:5");
    expect_error(h_c, "ERR syntax error", "CLIENT KILL ID 1 SKIPME");
    expect_error(h_c, "ERR syntax error", "CLIENT KILL a b");
    expect_error(h_c, "ERR syntax error", "CLIENT KILL USER default SKIPME maybe");
    expect_int(h_c, 0, "CLIENT KILL TYPE master");
    expect_int(h_c, 0, "CLIENT KILL TYPE replica");
    expect_int(h_c, 0, "CLIENT KILL TYPE slave");
    expect_int(h_c, 0, "CLIENT KILL ID 999999");

    /* TYPE pubsub: the subscribers only */
    redisContext *s1 = srv_connect(h_srv), *s2 = srv_connect(h_srv), *n1 = srv_connect(h_srv);
    subscribe(s1, "SUBSCRIBE", "a", 1);
    subscribe(s2, "PSUBSCRIBE", "a*", 1);
    expect_int(h_c, 2, "CLIENT KILL TYPE pubsub");
    ck_assert(is_closed(s1) && is_closed(s2) && !is_closed(n1));
    redisFree(s1);
    redisFree(s2);
    /* TYPE normal skips the caller (SKIPME yes by default) */
    expect_int(h_c, 1, "CLIENT KILL TYPE normal");
    ck_assert(is_closed(n1));
    redisFree(n1);
    /* ID, ADDR, LADDR, USER: every filter must match */
    redisContext *x = srv_connect(h_srv), *y = srv_connect(h_srv);
    long long xid = client_id(x);
    char addr[64], laddr[64];
    client_addr(y, "addr", addr, sizeof addr);
    client_addr(y, "laddr", laddr, sizeof laddr);
    expect_int(h_c, 0, "CLIENT KILL ID %lld TYPE pubsub", xid);
    expect_int(h_c, 1, "CLIENT KILL ID %lld USER default", xid);
    ck_assert(is_closed(x));
    redisFree(x);
    expect_int(h_c, 0, "CLIENT KILL ADDR %s LADDR 1.2.3.4:5", addr);
    expect_int(h_c, 1, "CLIENT KILL ADDR %s LADDR %s", addr, laddr);
    ck_assert(is_closed(y));
    redisFree(y);
    /* the old form: +OK */
    y = srv_connect(h_srv);
    client_addr(y, "addr", addr, sizeof addr);
    expect_status(h_c, "OK", "CLIENT KILL %s", addr);
    ck_assert(is_closed(y));
    redisFree(y);
    /* SKIPME no: the caller too, after its reply */
    redisContext *me = srv_connect(h_srv);
    expect_int(me, 1, "CLIENT KILL ID %lld SKIPME no", client_id(me));
    ck_assert(is_closed(me));
    redisFree(me);
    expect_status(h_c, "PONG", "PING");
}
END_TEST

/* CLIENT LIST TYPE / ID: the subscribers, the ones asked for. */
START_TEST(client_list_filters) {
    redisContext *a = srv_connect(h_srv), *b = srv_connect(h_srv);
    expect_status(a, "OK", "CLIENT SETNAME subber");
    expect_status(b, "OK", "CLIENT SETNAME plain");
    subscribe(a, "SUBSCRIBE", "x", 1);
    redisReply *r = cmd(h_c, "CLIENT LIST TYPE pubsub");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_msg(strstr(r->str, " name=subber ") && !strstr(r->str, " name=plain ") &&
                  strchr(r->str, '\n') == r->str + r->len - 1, "%s", r->str);
    freeReplyObject(r);
    r = cmd(h_c, "CLIENT LIST TYPE normal");
    ck_assert(strstr(r->str, " name=plain ") && !strstr(r->str, " name=subber "));
    freeReplyObject(r);
    expect_bulk(h_c, "", "CLIENT LIST TYPE master");
    expect_bulk(h_c, "", "CLIENT LIST TYPE replica");
    long long id = client_id(b);
    r = cmd(h_c, "CLIENT LIST ID 999999 %lld", id);
    ck_assert(r->type == REDIS_REPLY_STRING && strstr(r->str, " name=plain ") &&
              strchr(r->str, '\n') == r->str + r->len - 1);
    freeReplyObject(r);
    expect_error(h_c, "ERR Unknown client type 'foo'", "CLIENT LIST TYPE foo");
    expect_error(h_c, "ERR Invalid client ID", "CLIENT LIST ID 1 x");
    expect_error(h_c, "ERR syntax error", "CLIENT LIST foo");
    expect_error(h_c, "ERR syntax error", "CLIENT LIST TYPE");
    expect_error(h_c, "ERR syntax error", "CLIENT LIST TYPE normal ID 3");
    redisFree(a);
    redisFree(b);
}
END_TEST

/* ---- SCRIPT without scripts ---- */

START_TEST(script_without_engine) {
    expect_error(h_c, "NOTBUSY No scripts in execution right now.", "SCRIPT KILL");
    redisReply *r = expect_array(h_c, 2, "SCRIPT EXISTS a b");
    check_int(r->element[0], 0);
    check_int(r->element[1], 0);
    freeReplyObject(r);
    expect_status(h_c, "OK", "SCRIPT FLUSH");
    expect_status(h_c, "OK", "SCRIPT FLUSH ASYNC");
    expect_status(h_c, "OK", "SCRIPT FLUSH sync");
    expect_error(h_c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option", "SCRIPT FLUSH x");
    expect_error(h_c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option", "SCRIPT FLUSH ASYNC SYNC");
    r = expect_array(h_c, 17, "SCRIPT HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    freeReplyObject(r);
    expect_error(h_c, "ERR unknown subcommand 'FOO'. Try SCRIPT HELP.", "SCRIPT FOO");
    expect_error(h_c, "ERR wrong number of arguments for 'script' command", "SCRIPT");
    expect_error(h_c, "ERR wrong number of arguments for 'script|kill' command", "SCRIPT KILL x");
}
END_TEST

/* ---- servers a test starts beside h_srv ---- */

#define MAX_EXTRA_SRV 4
static srv *extra_srvs[MAX_EXTRA_SRV]; /* stopped by the teardown */
static int nextra_srvs;

static srv *track(srv *s) {
    ck_assert_int_lt(nextra_srvs, MAX_EXTRA_SRV);
    extra_srvs[nextra_srvs++] = s;
    return s;
}

static srv *h_srv_start_conf_tracked(const char *text) { return track(srv_start_conf(text, NULL)); }

/* ---- CONFIG REWRITE ---- */



static const char rewrite_conf[] =
    "# my comment\n"
    "bind 127.0.0.1\n"
    "\n"
    "maxmemory 100mb\n"
    "slave-read-only no\n"
    "# another\n"
    "hash-max-ziplist-entries 100\n"
    "client-output-buffer-limit pubsub 32mb 8mb 60\n"
    "timeout 0\n"
    "hz 10\n"
    "hz 11\n";

/* What the file must begin with after the CONFIG SETs below, the same for
 * Redis and verso (the appended lines follow in each one's table order). */
static const char rewritten_head[] =
    "# my comment\n"
    "bind 127.0.0.1\n"
    "\n"
    "maxmemory 1gb\n"
    "replica-read-only no\n"
    "# another\n"
    "hash-max-listpack-entries 100\n"
    "client-output-buffer-limit normal 1mb 2mb 3\n"
    "timeout 30\n"
    "hz 10\n"
    "\n"
    "# ??? unknown-thing 5\n"
    "\n"
    "# Generated by CONFIG REWRITE\n";

START_TEST(config_rewrite) {
    expect_error(h_c, "ERR The server is running without a config file", "CONFIG REWRITE");
    srv *s = h_srv_start_conf_tracked(rewrite_conf);
    redisContext *c = srv_connect(s);
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    expect_status(c, "OK", "CONFIG SET maxmemory 1gb");
    expect_status(c, "OK", "CONFIG SET timeout 30");
    expect_status(c, "OK", "CONFIG SET hz 10");
    expect_status(c, "OK", "CONFIG SET maxmemory-policy allkeys-lru");
    expect_status(c, "OK", "CONFIG SET client-output-buffer-limit %s", "normal 1mb 2mb 3");
    expect_status(c, "OK", "CONFIG SET repl-backlog-size 3000000");
    expect_status(c, "OK", "CONFIG SET auto-aof-rewrite-min-size 65mb");
    /* a line the server does not know, added since it started */
    FILE *f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("unknown-thing 5\n", f);
    ck_assert_int_eq(fclose(f), 0);
    expect_status(c, "OK", "CONFIG REWRITE");
    size_t len;
    char *text = h_slurp(path, &len, 1);
    ck_assert_msg(!strncmp(text, rewritten_head, strlen(rewritten_head)), "rewritten:\n%s", text);
    char line[PATH_MAX + 16], dir[PATH_MAX];
    ck_assert_ptr_nonnull(realpath(s->dir, dir));
    const char *want[] = {"maxmemory-policy allkeys-lru", "repl-backlog-size 3000000",
                          "auto-aof-rewrite-min-size 65mb", "save \"\"", "enable-debug-command yes",
                          NULL};
    for (int i = 0; want[i]; i++)
        ck_assert_msg(h_has_line(text, want[i]), "no '%s' in:\n%s", want[i], text);
    snprintf(line, sizeof line, "port %d", s->port);
    ck_assert_msg(h_has_line(text, line), "no '%s' in:\n%s", line, text);
    snprintf(line, sizeof line, "dir \"%s\"", dir);
    ck_assert_msg(h_has_line(text, line), "no '%s' in:\n%s", line, text);
    ck_assert(!h_has_line(text, "slave-read-only no") && !h_has_line(text, "hz 11"));
    /* at defaults and not in the file: not written */
    ck_assert(!strstr(text, "\ndatabases ") && !strstr(text, "\nappendonly "));

    /* stable: rewriting again changes nothing after the first rewrite's
     * final newline (Redis keeps one blank line there) */
    expect_status(c, "OK", "CONFIG REWRITE");
    char *again = h_slurp(path, &len, 1);
    expect_status(c, "OK", "CONFIG REWRITE");
    char *third = h_slurp(path, &len, 1);
    ck_assert_str_eq(again, third);
    free(again);
    free(third);
    redisFree(c);

    /* the file starts a server with the values set at runtime */
    srv *s2 = h_srv_start_conf_tracked(text);
    free(text);
    c = srv_connect(s2);
    redisReply *r = expect_array(c, 2, "CONFIG GET maxmemory");
    check_bulk(r->element[1], "1073741824");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET client-output-buffer-limit");
    check_bulk(r->element[1], "normal 1048576 2097152 3 slave 268435456 67108864 60 "
                              "pubsub 33554432 8388608 60");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET maxmemory-policy");
    check_bulk(r->element[1], "allkeys-lru");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET hash-max-listpack-entries");
    check_bulk(r->element[1], "100");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET replica-read-only");
    check_bulk(r->element[1], "no");
    freeReplyObject(r);
    redisFree(c);
}
END_TEST

/* ---- PUBLISH reaches replicas ---- */

/* A PUBLISH on a primary is heard by the subscribers of its replica (Redis
 * propagates it), both ways between the server under test and
 * redis-server. Needs replication on both sides. */
static void publish_through(srv *primary, srv *replica) {
    redisContext *pc = srv_connect(primary), *rc = srv_connect(replica);
    expect_status(rc, "OK", "REPLICAOF 127.0.0.1 %d", primary->port);
    h_wait_info_str(rc, "replication", "master_link_status", "up", 20000);
    redisContext *sub = srv_connect(replica);
    struct timeval tv = {h_scaled_ms(10000) / 1000, 0};
    redisSetTimeout(sub, tv);
    subscribe(sub, "SUBSCRIBE", "news", 1);
    subscribe(sub, "PSUBSCRIBE", "n*", 2);
    expect_int(pc, 0, "PUBLISH news hello"); /* nobody on the primary itself */
    expect_msg(sub, "message", "news", "hello");
    expect_push(sub, "pmessage", "n*", "news|hello", -1);
    /* and in order with the writes around it */
    expect_status(pc, "OK", "SET k v");
    expect_int(pc, 0, "PUBLISH news after-set");
    expect_msg(sub, "message", "news", "after-set");
    expect_push(sub, "pmessage", "n*", "news|after-set", -1);
    redisFree(sub);
    expect_bulk(rc, "v", "GET k");
    redisFree(pc);
    redisFree(rc);
}

START_TEST(publish_reaches_replicas) {
    const char *fast = "--repl-diskless-sync-delay 0";
    publish_through(h_srv, track(srv_start_redis("%s", fast)));
    srv *rp = track(srv_start_redis("%s", fast));
    publish_through(rp, track(srv_start(fast)));
}
END_TEST

/* PUBLISH reaches replicas but not the AOF (Redis propagates it to
 * replicas only): a restart replays the data, not the messages. */
START_TEST(publish_not_in_aof) {
    srv *s = track(srv_start("--appendonly yes --appendfsync always"));
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET k v");
    expect_int(c, 0, "PUBLISH ch message-not-logged");
    expect_status(c, "OK", "MULTI");
    expect_status(c, "QUEUED", "PUBLISH ch also-not-logged");
    expect_status(c, "QUEUED", "SET k2 v2");
    redisReply *r = expect_array(c, 2, "EXEC");
    freeReplyObject(r);
    expect_status(c, "OK", "SET k3 v3"); /* after the transaction, fsynced */
    char cmdline[2300];
    snprintf(cmdline, sizeof cmdline, "cat %s/appendonlydir/*.incr.aof", s->dir);
    char *out = NULL;
    const char *argv[] = {"sh", "-c", cmdline, NULL};
    ck_assert_int_eq(h_run(NULL, &out, 10000, argv), 0);
    ck_assert_msg(strstr(out, "k3") != NULL, "the AOF lacks the last SET: %s", out);
    ck_assert_msg(strstr(out, "PUBLISH") == NULL && strstr(out, "not-logged") == NULL,
                  "PUBLISH reached the AOF: %s", out);
    ck_assert_msg(strstr(out, "MULTI") == NULL, "a lone SET was wrapped: %s", out);
    free(out);
    redisFree(c);
}
END_TEST

static void teardown(void) {
    for (int i = 0; i < nextra_srvs; i++) srv_stop(extra_srvs[i]);
    nextra_srvs = 0;
    h_teardown();
    h_srv_drop_all();
}

int main(void) {
    Suite *s = suite_create("pubsub");
    TCase *tc = tcase_create("pubsub");
    tcase_add_checked_fixture(tc, h_setup, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, subscribe_and_publish);
    tcase_add_test(tc, unsubscribe_forms);
    tcase_add_test(tc, subscribed_context);
    tcase_add_test(tc, pubsub_introspection);
    tcase_add_test(tc, slow_subscriber_closed);
    tcase_add_test(tc, redis_py_pubsub);
    tcase_add_test(tc, client_kill_filters);
    tcase_add_test(tc, client_list_filters);
    tcase_add_test(tc, script_without_engine);
    tcase_add_test(tc, config_rewrite);
    tcase_add_test(tc, publish_reaches_replicas);
    tcase_add_test(tc, publish_not_in_aof);
    tcase_add_test(tc, subscriber_closed_while_clients_are_served);
    suite_add_tcase(s, tc);
    return h_main(s);
}
