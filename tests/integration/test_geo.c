/* Integration tests: the geo commands (GEOADD, GEODIST, GEOHASH, GEOPOS,
 * GEORADIUS[BYMEMBER][_RO], GEOSEARCH[STORE]) against a real server, with
 * Redis 7.0's replies and errors: the tables of test_geo_cases.h (one per
 * command family, plus the edge cases: the poles, the antimeridian,
 * radius 0, huge radii, ANY with COUNT, members of any score), the RESP3
 * forms, the keyspace events and what the AOF records. Every expected text
 * was checked against redis-server 7.0.15 (VERSO_SERVER=/usr/bin/redis-server).
 * The randomized comparison with Redis is test_geo_diff. */
#include "harness.h"
#include "test_geo_cases.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- replies as text ---- */

typedef struct tbuf { char p[16384]; size_t n; } tbuf;

static void tb_add(tbuf *b, const char *s, size_t len) {
    ck_assert_uint_lt(b->n + len, sizeof b->p);
    memcpy(b->p + b->n, s, len);
    b->n += len;
    b->p[b->n] = '\0';
}

/* The compact form of test_geo_cases.h. */
static void repr(const redisReply *r, tbuf *b) {
    char tmp[32];
    switch (r->type) {
    case REDIS_REPLY_ARRAY:
        tb_add(b, "[", 1);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) tb_add(b, ",", 1);
            repr(r->element[i], b);
        }
        tb_add(b, "]", 1);
        break;
    case REDIS_REPLY_INTEGER:
        tb_add(b, tmp, (size_t)snprintf(tmp, sizeof tmp, "%lld", r->integer));
        break;
    case REDIS_REPLY_NIL: tb_add(b, "nil", 3); break;
    case REDIS_REPLY_ERROR:
        tb_add(b, "!", 1);
        tb_add(b, r->str, r->len);
        break;
    default: tb_add(b, r->str, r->len);
    }
}

/* Runs one line (arguments split at spaces) and returns its reply. */
static redisReply *run_line(redisContext *c, const char *line) {
    char *copy = strdup(line);
    const char *argv[128];
    int argc = 0;
    for (char *t = strtok(copy, " "); t; t = strtok(NULL, " ")) {
        ck_assert_int_lt(argc, 128);
        argv[argc++] = t;
    }
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    free(copy);
    ck_assert_msg(r != NULL, "no reply to %s", line);
    return r;
}

static void run_steps(const geo_step *steps) {
    for (const geo_step *s = steps; s->line; s++) {
        redisReply *r = run_line(h_c, s->line);
        if (s->reply) {
            tbuf b = {.n = 0};
            b.p[0] = '\0';
            repr(r, &b);
            ck_assert_msg(!strcmp(b.p, s->reply), "%s\n  got:  %s\n  want: %s", s->line, b.p,
                          s->reply);
        }
        freeReplyObject(r);
    }
}

START_TEST(geoadd_family) { run_steps(geoadd_steps); }
END_TEST
START_TEST(dist_hash_pos) { run_steps(dist_hash_pos_steps); }
END_TEST
START_TEST(georadius_family) { run_steps(radius_steps); }
END_TEST
START_TEST(geosearch_family) { run_steps(search_steps); }
END_TEST
START_TEST(edge_cases) { run_steps(edge_steps); }
END_TEST
START_TEST(command_table) { run_steps(command_steps); }
END_TEST

/* A member stored beyond the listpack limit: the same searches on the
 * skiplist encoding. */
START_TEST(big_zset) {
    for (int i = 0; i < 300; i++)
        expect_int(h_c, 1, "GEOADD big %d.%03d %d.5 m%d", i % 20, i, i / 20, i);
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING big");
    redisReply *r = expect_array(h_c, 3, "GEOSEARCH big FROMMEMBER m0 BYRADIUS 120 km ASC COUNT 3");
    check_bulk(r->element[0], "m0");
    check_bulk(r->element[1], "m20");
    check_bulk(r->element[2], "m1");
    freeReplyObject(r);
    expect_int(h_c, 300, "GEORADIUS big 10 7 40000 km STORE all");
    expect_bulk(h_c, "skiplist", "OBJECT ENCODING all");
    expect_int(h_c, 4, "GEOSEARCHSTORE few big FROMMEMBER m21 BYBOX 300 300 km COUNT 4");
    expect_bulk(h_c, "listpack", "OBJECT ENCODING few");
}
END_TEST

/* A GEOADD that adds or moves no member writes nothing: a WATCH on the
 * key holds (Redis's GEOADD is its ZADD). */
START_TEST(watch_and_noop_geoadd) {
    expect_int(h_c, 1, "GEOADD g 1 1 a");
    expect_status(h_c, "OK", "WATCH g");
    expect_int(h_c, 0, "GEOADD g 1 1 a");
    expect_int(h_c, 0, "GEOADD g CH 1 1 a");
    expect_int(h_c, 0, "GEOADD g NX 1 2 a");
    expect_int(h_c, 0, "GEOADD g XX 1 2 b");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "PING");
    freeReplyObject(expect_array(h_c, 1, "EXEC"));
    expect_status(h_c, "OK", "WATCH g");
    expect_int(h_c, 1, "GEOADD g CH 1 2 a");
    expect_status(h_c, "OK", "MULTI");
    expect_status(h_c, "QUEUED", "PING");
    expect_nil(h_c, "EXEC");
}
END_TEST

/* ---- RESP3 ---- */

/* Reads fd until what arrived ends with `tail`. */
static void raw_until(int fd, char *buf, size_t cap, const char *tail) {
    size_t n = 0, tl = strlen(tail);
    long long until = h_now_ms() + h_scaled_ms(10000);
    while (!(n >= tl && !memcmp(buf + n - tl, tail, tl))) {
        int closed = 0;
        ck_assert_uint_lt(n + 1, cap);
        n += raw_read(fd, buf + n, cap - n, 1, 1000, &closed);
        ck_assert(!closed);
        ck_assert_msg(h_now_ms() < until, "no %s after %s", tail, buf);
    }
}

/* Coordinates are doubles in RESP3 (human form), distances stay bulk
 * strings, missing positions are nulls. */
START_TEST(resp3_replies) {
    expect_int(h_c, 2, "GEOADD Sicily 13.361389 38.115556 Palermo 15.087269 37.502669 Catania");
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "GEOPOS Sicily Palermo nobody\r\nGEOPOS nokey a\r\n"
                                      "HELLO 3\r\nGEOPOS Sicily Palermo nobody\r\n"
                                      "GEOSEARCH Sicily FROMLONLAT 15 37 BYRADIUS 100 km "
                                      "WITHCOORD WITHDIST WITHHASH\r\n"
                                      "GEODIST Sicily Palermo nobody\r\nGEODIST Sicily Palermo Catania\r\n"
                                      "GEOHASH Sicily nobody Palermo\r\nPING\r\n"),
                     0);
    static char buf[8192];
    raw_until(fd, buf, sizeof buf, "+PONG\r\n");
    const char *resp2 = "*2\r\n*2\r\n$20\r\n13.36138933897018433\r\n$20\r\n38.11555639549629859\r\n"
                        "*-1\r\n*1\r\n*-1\r\n";
    ck_assert_msg(!strncmp(buf, resp2, strlen(resp2)), "RESP2: %s", buf);
    const char *resp3 =
        "*2\r\n*2\r\n,13.36138933897018433\r\n,38.11555639549629859\r\n_\r\n"
        "*1\r\n*4\r\n$7\r\nCatania\r\n$7\r\n56.4413\r\n:3479447370796909\r\n"
        "*2\r\n,15.08726745843887329\r\n,37.50266842333162032\r\n"
        "_\r\n$11\r\n166274.1516\r\n*2\r\n_\r\n$11\r\nsqc8b49rny0\r\n+PONG\r\n";
    ck_assert_msg(strstr(buf, resp3) != NULL, "RESP3: %s", buf);
    close(fd);
}
END_TEST

/* ---- keyspace events ---- */

/* The events since the last call, "event:key" joined by spaces, read up to
 * a marker published after them. */
static void expect_events(redisContext *sub, const char *want) {
    expect_int(h_c, 1, "PUBLISH __keyevent@0__:zz-marker x");
    tbuf b = {.n = 0};
    b.p[0] = '\0';
    for (;;) {
        redisReply *r = h_next_reply(sub);
        ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
        ck_assert_uint_eq(r->elements, 4); /* pmessage pattern channel payload */
        const char *ch = r->element[2]->str;
        if (!strcmp(ch, "__keyevent@0__:zz-marker")) {
            freeReplyObject(r);
            break;
        }
        const char *ev = strchr(ch, ':') + 1;
        if (b.n) tb_add(&b, " ", 1);
        tb_add(&b, ev, strlen(ev));
        tb_add(&b, ":", 1);
        tb_add(&b, r->element[3]->str, r->element[3]->len);
        freeReplyObject(r);
    }
    ck_assert_msg(!strcmp(b.p, want), "events: %s, want %s", b.p, want);
}

START_TEST(keyspace_events) {
    redisContext *sub = srv_connect(h_srv);
    freeReplyObject(cmd(sub, "PSUBSCRIBE __keyevent@0__:*"));
    expect_status(h_c, "OK", "CONFIG SET notify-keyspace-events KEA");
    expect_int(h_c, 2, "GEOADD k 13.361389 38.115556 Palermo 15.087269 37.502669 Catania");
    expect_int(h_c, 0, "GEOADD k NX 13.4 38.1 Palermo");
    expect_events(sub, "zadd:k");
    expect_int(h_c, 2, "GEORADIUS k 15 37 200 km STORE d1");
    expect_int(h_c, 2, "GEOSEARCHSTORE d2 k FROMMEMBER Palermo BYRADIUS 200 km STOREDIST");
    redisReply *r = expect_array(h_c, 2, "GEORADIUS_RO k 15 37 200 km");
    freeReplyObject(r);
    expect_int(h_c, 0, "GEORADIUS k 0 0 1 km STORE d1");
    expect_int(h_c, 0, "GEOSEARCHSTORE d2 nokey FROMMEMBER x BYRADIUS 1 km");
    expect_int(h_c, 0, "GEOSEARCHSTORE d3 nokey FROMMEMBER x BYRADIUS 1 km");
    expect_events(sub, "georadiusstore:d1 geosearchstore:d2 del:d1 del:d2");
    redisFree(sub);
}
END_TEST

/* ---- what the AOF records ---- */

static char *read_incr_aof(const srv *s) {
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/appendonlydir", s->dir);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    char *text = NULL;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strstr(e->d_name, ".incr.aof")) continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len;
        text = h_slurp(path, &len, 1);
    }
    closedir(d);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* GEOADD as the ZADD it amounts to (flags as sent, cells in decimal),
 * the STORE forms as sent when they wrote, nothing for the reads or for
 * writes that changed nothing: as Redis 7.0 writes them. */
START_TEST(aof_propagation) {
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_int(c, 2, "GEOADD k 13.361389 38.115556 Palermo 15.087269 37.502669 Catania");
    expect_int(c, 1, "GEOADD k ch XX 13.4 38.1 Palermo 1 1 x");
    expect_int(c, 0, "GEOADD k NX 13.4 38.1 Palermo");
    expect_int(c, 0, "GEOADD k 13.4 38.1 Palermo");
    expect_int(c, 2, "GEORADIUS k 15 37 200 km STORE d");
    expect_int(c, 0, "GEORADIUS k 0 0 1 km STORE nothere");
    expect_int(c, 1, "GEOSEARCHSTORE d2 k FROMLONLAT 15 37 BYRADIUS 100 km STOREDIST");
    freeReplyObject(expect_array(c, 2, "GEORADIUS k 15 37 200 km"));
    freeReplyObject(expect_array(c, 2, "GEOSEARCH k FROMLONLAT 15 37 BYRADIUS 200 km"));
    char *aof = read_incr_aof(s);
    const char *seq[] = {
        "*6\r\n$4\r\nzadd\r\n$1\r\nk\r\n$16\r\n3479099956230698\r\n$7\r\nPalermo\r\n"
        "$16\r\n3479447370796909\r\n$7\r\nCatania\r\n",
        "*8\r\n$4\r\nzadd\r\n$1\r\nk\r\n$2\r\nch\r\n$2\r\nXX\r\n$16\r\n3479099937378871\r\n"
        "$7\r\nPalermo\r\n$16\r\n3377822707026402\r\n$1\r\nx\r\n",
        "*8\r\n$9\r\nGEORADIUS\r\n$1\r\nk\r\n$2\r\n15\r\n$2\r\n37\r\n$3\r\n200\r\n$2\r\nkm\r\n"
        "$5\r\nSTORE\r\n$1\r\nd\r\n",
        "*10\r\n$14\r\nGEOSEARCHSTORE\r\n$2\r\nd2\r\n$1\r\nk\r\n$10\r\nFROMLONLAT\r\n"
        "$2\r\n15\r\n$2\r\n37\r\n$8\r\nBYRADIUS\r\n$3\r\n100\r\n$2\r\nkm\r\n$9\r\nSTOREDIST\r\n",
    };
    const char *at = aof;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        const char *p = strstr(at, seq[i]);
        ck_assert_msg(p != NULL, "AOF lacks (in order) command %zu:\n%s", i, aof);
        at = p + strlen(seq[i]);
    }
    ck_assert_ptr_null(strstr(aof, "GEOADD"));
    ck_assert_ptr_null(strstr(aof, "NX"));
    ck_assert_ptr_null(strstr(aof, "nothere"));
    ck_assert_ptr_null(strstr(aof, "GEOSEARCH\r\n"));
    const char *g = strstr(aof, "GEORADIUS");
    ck_assert_ptr_null(strstr(g + 1, "GEORADIUS")); /* the read is not there */
    free(aof);
    redisFree(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("geo");
    h_add_tcase(s, "geoadd_family", geoadd_family, 30, h_setup, h_teardown);
    h_add_tcase(s, "dist_hash_pos", dist_hash_pos, 30, h_setup, h_teardown);
    h_add_tcase(s, "georadius_family", georadius_family, 30, h_setup, h_teardown);
    h_add_tcase(s, "geosearch_family", geosearch_family, 30, h_setup, h_teardown);
    h_add_tcase(s, "edge_cases", edge_cases, 30, h_setup, h_teardown);
    h_add_tcase(s, "command_table", command_table, 30, h_setup, h_teardown);
    h_add_tcase(s, "big_zset", big_zset, 60, h_setup, h_teardown);
    h_add_tcase(s, "watch_and_noop_geoadd", watch_and_noop_geoadd, 30, h_setup, h_teardown);
    h_add_tcase(s, "resp3_replies", resp3_replies, 30, h_setup, h_teardown);
    h_add_tcase(s, "keyspace_events", keyspace_events, 30, h_setup, h_teardown);
    h_add_dropall(s, "aof_propagation", aof_propagation, 30);
    return h_main(s);
}
