/* test_stream_diff_gen: random stream commands for the differential test
 * (test_stream_diff.c) on a few keys (s1 s2 s3 streams, "str" a string for
 * WRONGTYPE, "nokey" mostly missing): XADD with explicit growing IDs, `ms-*`
 * and `*` (the driver keeps `*` deterministic), NOMKSTREAM, MAXLEN/MINID
 * with = and ~ and LIMIT; XDEL, XTRIM, XRANGE/XREVRANGE (COUNT, exclusive
 * bounds), XLEN, XREAD, XGROUP (CREATE [MKSTREAM] [ENTRIESREAD], SETID,
 * DESTROY, CREATECONSUMER, DELCONSUMER), XREADGROUP (NOACK, `>`, explicit
 * IDs), XACK, XPENDING (summary and extended, IDLE, consumer), XCLAIM (IDLE,
 * TIME, RETRYCOUNT, FORCE, JUSTID, LASTID), XAUTOCLAIM, XSETID, XINFO
 * STREAM [FULL [COUNT]] / GROUPS / CONSUMERS, DEL, TYPE, EXISTS and MULTI/EXEC
 * blocks; now and then a wrong argument on purpose (bad IDs, an ID below
 * the top, unknown options, bad counts, wrong arity).
 *
 * Every time the generator puts in a command is fixed or far from now, so
 * that the replies do not depend on the clock: IDLE 0 or 2 h, TIME 1000, a
 * date of 2020 or one in the future (Redis takes now for it), min-idle 0 or
 * 1 h (which splits "delivered during the test" from "given an old time").
 * IDs the servers returned are fed back (sd_note_id) and picked from for
 * ranges, deletes, acks and claims. Deterministic for a seed. */
#include "test_stream_diff.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 88172645463325252ULL;

uint64_t sd_rand(void)
{
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static int rn(int n) { return (int)(sd_rand() % (uint64_t)n); }
static int pct(int p) { return rn(100) < p; }
#define PICK(arr) ((arr)[rn((int)(sizeof(arr) / sizeof((arr)[0])))])

/* ---- IDs ---- */

/* IDs start far in the future (year 2128), so that `*` on a stream holding
 * them gives top.ms-(top.seq+1) on both servers instead of the clock. */
static const uint64_t BASE_MS = 5000000000000ULL;
enum { POOL = 256, NKEYS = 3 };

typedef struct sid { uint64_t ms, seq; } sid;

static sid top;                 /* the highest ID issued or seen */
static sid pool[NKEYS][POOL];   /* IDs per stream key, a ring */
static int pool_n[NKEYS], pool_at[NKEYS];

static const char *skeys[NKEYS] = {"s1", "s2", "s3"};
static const char *groups[] = {"g1", "g2", "g3"};
static const char *consumers[] = {"c1", "c2", "c3"};

static int key_index(const char *key)
{
    for (int i = 0; i < NKEYS; i++)
        if (!strcmp(key, skeys[i])) return i;
    return -1;
}

static int id_gt(sid a, sid b) { return a.ms > b.ms || (a.ms == b.ms && a.seq > b.seq); }

void sd_note_id(const char *key, const char *id)
{
    sid v;
    if (sscanf(id, "%" SCNu64 "-%" SCNu64, &v.ms, &v.seq) != 2) return;
    if (v.ms >= 2 * BASE_MS) return; /* the last possible ID: nothing follows it */
    if (id_gt(v, top)) top = v;
    int k = key_index(key);
    if (k < 0) return;
    pool[k][pool_at[k]] = v;
    pool_at[k] = (pool_at[k] + 1) % POOL;
    if (pool_n[k] < POOL) pool_n[k]++;
}

void sd_next_id(char *buf, size_t n)
{
    if (pct(60)) {
        top.ms += (uint64_t)(1 + rn(3));
        top.seq = (uint64_t)rn(3);
    } else {
        top.seq += (uint64_t)(1 + rn(2));
    }
    snprintf(buf, n, "%" PRIu64 "-%" PRIu64, top.ms, top.seq);
}

void sd_seed(uint64_t seed)
{
    rs = seed * 0x9E3779B97F4A7C15ULL + 1;
    top = (sid){BASE_MS, 0};
    memset(pool_n, 0, sizeof pool_n);
    memset(pool_at, 0, sizeof pool_at);
}

/* ---- arguments ---- */

void sd_free(sdcmd *c)
{
    for (int i = 0; i < c->argc; i++) free(c->argv[i]);
    c->argc = 0;
    c->norm = SN_NONE;
    c->auto_id = 0;
}

static void push(sdcmd *c, const char *s)
{
    if (c->argc >= SD_MAXARGS) return;
    c->len[c->argc] = strlen(s);
    c->argv[c->argc++] = strdup(s);
}

static void pushf(sdcmd *c, const char *fmt, long long v)
{
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    push(c, b);
}

void sd_set_arg(sdcmd *c, int i, const char *s)
{
    free(c->argv[i]);
    c->argv[i] = strdup(s);
    c->len[i] = strlen(s);
}

/* s1 takes half of the traffic, so that it grows to several nodes. */
static const char *skey(void)
{
    int r = rn(100);
    if (r < 4) return "str";
    if (r < 7) return "nokey";
    return r < 55 ? skeys[0] : skeys[1 + r % 2];
}

/* An ID of key k that existed (or was issued), else a near one. */
static sid some_id(int k)
{
    if (k >= 0 && pool_n[k] > 0 && pct(85)) return pool[k][rn(pool_n[k])];
    sid v = {top.ms - (uint64_t)rn(40), (uint64_t)rn(3)};
    if (v.ms < BASE_MS) v.ms = BASE_MS;
    return v;
}

/* One of the oldest quarter of the IDs remembered for key k (MINID: a
 * trim that keeps most of the stream). */
static sid old_id(int k)
{
    if (k < 0 || pool_n[k] == 0) return some_id(k);
    int first = pool_n[k] < POOL ? 0 : pool_at[k];
    return pool[k][(first + rn(pool_n[k] / 4 + 1)) % POOL];
}

static const char *bad_ids[] = {"abc", "1-x", "-1", "1-", "--", "1.5", "18446744073709551616",
                                "1-18446744073709551616", " 1", "0x10"};

/* An ID argument for a range bound or a position: mostly an existing ID,
 * else a bare ms, an exclusive one, 0, or a bad one. */
static void push_id(sdcmd *c, int k, int allow_excl, int allow_bad)
{
    char b[64];
    sid v = some_id(k);
    int r = rn(100);
    if (allow_bad && r < 3) {
        push(c, PICK(bad_ids));
    } else if (allow_excl && r < 20) {
        snprintf(b, sizeof b, "(%" PRIu64 "-%" PRIu64, v.ms, v.seq);
        push(c, b);
    } else if (r < 30) {
        snprintf(b, sizeof b, "%" PRIu64, v.ms);
        push(c, b);
    } else if (r < 33) {
        push(c, "0");
    } else {
        snprintf(b, sizeof b, "%" PRIu64 "-%" PRIu64, v.ms, v.seq);
        push(c, b);
    }
}

static void push_count(sdcmd *c)
{
    static const char *odd[] = {"0", "-1", "abc", "9223372036854775808"};
    push(c, "COUNT");
    if (pct(4)) push(c, PICK(odd));
    else pushf(c, "%lld", 1 + rn(pct(70) ? 8 : 200));
}

static void push_fields(sdcmd *c)
{
    static const char *fields[] = {"a", "b", "c", "name", "n"};
    static const char *vals[] = {"1", "2", "-7", "x", "hello", "", "12345678901", "3.5",
                                 "a somewhat longer value to take node bytes"};
    int n = 1 + rn(pct(80) ? 2 : 4);
    int same = pct(60); /* same fields as most entries: Redis's master-entry case */
    for (int i = 0; i < n; i++) {
        push(c, same ? fields[i] : PICK(fields));
        push(c, PICK(vals));
    }
    if (pct(2)) push(c, "dangling"); /* odd field/value count */
}

/* [MAXLEN|MINID [=|~] threshold [LIMIT n]] */
static void push_trim(sdcmd *c, int k, int always)
{
    if (!always && !pct(20)) return;
    int minid = pct(25);
    push(c, minid ? "MINID" : "MAXLEN");
    int approx = pct(50);
    if (pct(70)) push(c, approx ? "~" : "=");
    if (minid) {
        sid v = pct(95) ? old_id(k) : some_id(k);
        char b[64];
        snprintf(b, sizeof b, "%" PRIu64 "-%" PRIu64, v.ms, v.seq);
        if (pct(3)) push(c, PICK(bad_ids));
        else push(c, b);
    } else if (pct(3)) {
        push(c, PICK(((const char *[]){"-1", "x", "1.5"})));
    } else {
        pushf(c, "%lld", pct(5) ? rn(50) : 200 + rn(600));
    }
    if (pct(approx ? 40 : 3)) { /* LIMIT needs ~ */
        push(c, "LIMIT");
        pushf(c, "%lld", pct(5) ? -1 : rn(pct(50) ? 12 : 200));
    }
}

/* ---- commands ---- */

static void gen_xadd(sdcmd *c, int multi)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XADD");
    push(c, key);
    if (pct(8)) push(c, "NOMKSTREAM");
    push_trim(c, k, 0);
    char b[64];
    int r = rn(100);
    if (r < 62) {
        sd_next_id(b, sizeof b);
        push(c, b);
    } else if (r < 74) {
        /* ms-*: the top's ms (seq + 1) or a later one (seq 0) */
        if (pct(50)) top.ms += (uint64_t)rn(3);
        snprintf(b, sizeof b, "%" PRIu64 "-*", top.ms);
        push(c, b);
    } else if (r < 86 && !multi) {
        push(c, "*");
        c->auto_id = c->argc - 1;
    } else if (r < 93) {
        sid v = some_id(k); /* at or below the top: an error */
        if (pct(30)) v = (sid){1, 1};
        snprintf(b, sizeof b, "%" PRIu64 "-%" PRIu64, v.ms, v.seq);
        push(c, b);
    } else if (r < 97) {
        push(c, PICK(((const char *[]){"0-0", "0-*", "abc", "1-x", "-", "+", "$", ">"})));
    } else if (r < 98 && pct(10)) {
        push(c, "18446744073709551615-18446744073709551615"); /* the last ID there is */
    } else {
        push(c, PICK(((const char *[]){"MAXLEN", "LIMIT", "NOMKSTREAM", "UNKNOWN"})));
        sd_next_id(b, sizeof b);
        push(c, b);
    }
    push_fields(c);
}

static void gen_xtrim(sdcmd *c)
{
    const char *key = skey();
    push(c, "XTRIM");
    push(c, key);
    if (pct(4)) {
        push(c, PICK(((const char *[]){"MAXLEN", "MINID", "SIZE", "LIMIT"})));
        if (pct(50)) push(c, "5");
        return;
    }
    push_trim(c, key_index(key), 1);
    if (pct(3)) push(c, "EXTRA");
}

static void gen_range(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key), rev = pct(35);
    push(c, rev ? "XREVRANGE" : "XRANGE");
    push(c, key);
    for (int i = 0; i < 2; i++) {
        if (pct(25)) push(c, (i == 0) != rev ? "-" : "+");
        else if (pct(4)) push(c, (i == 0) != rev ? "+" : "-");
        else push_id(c, k, 1, 1);
    }
    if (pct(40)) push_count(c);
    if (pct(2)) push(c, "EXTRA");
}

static void gen_xdel(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XDEL");
    push(c, key);
    int n = 1 + rn(4);
    for (int i = 0; i < n; i++) push_id(c, k, 0, i == n - 1);
}

static void gen_xread(sdcmd *c)
{
    push(c, "XREAD");
    if (pct(60)) push_count(c);
    if (pct(3)) push(c, "NOACK"); /* not an XREAD option */
    push(c, "STREAMS");
    int n = 1 + rn(2);
    const char *keys[2];
    for (int i = 0; i < n; i++) keys[i] = skey(), push(c, keys[i]);
    for (int i = 0; i < n; i++) {
        if (pct(15)) push(c, "$");
        else if (pct(15)) push(c, "0");
        else if (pct(3)) push(c, ">");
        else push_id(c, key_index(keys[i]), 0, 1);
    }
    if (pct(2)) push(c, "0"); /* unbalanced STREAMS */
}

static void gen_xreadgroup(sdcmd *c)
{
    push(c, "XREADGROUP");
    push(c, "GROUP");
    push(c, PICK(groups));
    push(c, PICK(consumers));
    if (pct(70)) push_count(c);
    if (pct(20)) push(c, "NOACK");
    push(c, "STREAMS");
    int n = pct(85) ? 1 : 2;
    const char *keys[2];
    for (int i = 0; i < n; i++) keys[i] = skey(), push(c, keys[i]);
    for (int i = 0; i < n; i++) {
        if (pct(75)) push(c, ">");
        else if (pct(40)) push(c, "0");
        else if (pct(5)) push(c, "$");
        else push_id(c, key_index(keys[i]), 0, 1);
    }
}

static void gen_xack(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XACK");
    push(c, key);
    push(c, PICK(groups));
    int n = pct(5) ? 0 : 1 + rn(5);
    for (int i = 0; i < n; i++) push_id(c, k, 0, i == n - 1);
}

static void gen_xgroup(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    int r = rn(100);
    push(c, "XGROUP");
    if (r < 40) {
        push(c, "CREATE");
        push(c, key);
        push(c, PICK(groups));
        if (pct(30)) push(c, "$");
        else if (pct(40)) push(c, "0");
        else push_id(c, k, 0, 1);
        if (pct(30)) push(c, "MKSTREAM");
        if (pct(25)) {
            push(c, "ENTRIESREAD");
            pushf(c, "%lld", pct(5) ? -5 : rn(60) - 1);
        }
    } else if (r < 60) {
        push(c, "SETID");
        push(c, key);
        push(c, PICK(groups));
        if (pct(25)) push(c, "$");
        else if (pct(20)) push(c, "0");
        else push_id(c, k, 0, 1);
        if (pct(30)) {
            push(c, "ENTRIESREAD");
            pushf(c, "%lld", pct(5) ? -7 : rn(60) - 1);
        }
    } else if (r < 68) {
        push(c, "DESTROY");
        push(c, key);
        push(c, PICK(groups));
    } else if (r < 82) {
        push(c, "CREATECONSUMER");
        push(c, key);
        push(c, PICK(groups));
        push(c, PICK(consumers));
    } else if (r < 94) {
        push(c, "DELCONSUMER");
        push(c, key);
        push(c, PICK(groups));
        push(c, PICK(consumers));
    } else {
        push(c, PICK(((const char *[]){"NOSUCH", "CREATE", "SETID", "HELP"})));
        if (pct(50)) push(c, key);
    }
}

/* Fixed delivery times: TIME 1000, a date of 2020, the future (now for Redis). */
static const char *fixed_times[] = {"1000", "1600000000000", "9000000000000"};

static void gen_xpending(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XPENDING");
    push(c, key);
    push(c, PICK(groups));
    if (pct(30)) return; /* summary */
    c->norm = SN_PENDING_EXT;
    if (pct(30)) {
        push(c, "IDLE");
        push(c, pct(50) ? "0" : "3600000");
    }
    if (pct(30)) push(c, "-");
    else push_id(c, k, 1, 1);
    if (pct(30)) push(c, "+");
    else push_id(c, k, 1, 1);
    pushf(c, "%lld", pct(4) ? -1 : 1 + rn(pct(50) ? 5 : 100));
    if (pct(35)) push(c, PICK(consumers));
}

static void gen_xclaim(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XCLAIM");
    push(c, key);
    push(c, PICK(groups));
    push(c, PICK(consumers));
    push(c, pct(50) ? "0" : pct(80) ? "3600000" : pct(50) ? "-1" : "x");
    int n = 1 + rn(4);
    for (int i = 0; i < n; i++) push_id(c, k, 0, i == n - 1 && pct(10));
    if (pct(25)) {
        push(c, "IDLE");
        push(c, pct(50) ? "0" : "7200000");
    }
    if (pct(25)) {
        push(c, "TIME");
        push(c, PICK(fixed_times));
    }
    if (pct(20)) {
        push(c, "RETRYCOUNT");
        pushf(c, "%lld", pct(5) ? -1 : rn(10));
    }
    if (pct(25)) push(c, "FORCE");
    if (pct(40)) push(c, "JUSTID");
    if (pct(15)) {
        push(c, "LASTID");
        push_id(c, k, 0, 1);
    }
    if (pct(2)) push(c, "BOGUS");
}

static void gen_xautoclaim(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XAUTOCLAIM");
    push(c, key);
    push(c, PICK(groups));
    push(c, PICK(consumers));
    push(c, pct(50) ? "0" : pct(90) ? "3600000" : "-1");
    if (pct(40)) push(c, "0-0");
    else if (pct(20)) push(c, "-");
    else push_id(c, k, 0, 1);
    if (pct(50)) {
        push(c, "COUNT");
        pushf(c, "%lld", pct(4) ? 0 : 1 + rn(pct(60) ? 5 : 50));
    }
    if (pct(35)) push(c, "JUSTID");
}

static void gen_xsetid(sdcmd *c)
{
    const char *key = skey();
    int k = key_index(key);
    push(c, "XSETID");
    push(c, key);
    char b[64];
    int r = rn(100);
    if (r < 55) {
        top.ms += (uint64_t)(1 + rn(5)); /* above every entry */
        snprintf(b, sizeof b, "%" PRIu64 "-%d", top.ms, rn(3));
        push(c, b);
    } else if (r < 85) {
        push_id(c, k, 0, 1); /* an existing one: below the top is an error */
    } else {
        push(c, PICK(((const char *[]){"0-0", "abc", "$", "1-1"})));
    }
    if (pct(30)) {
        push(c, "ENTRIESADDED");
        pushf(c, "%lld", pct(5) ? -1 : rn(pct(50) ? 20 : 2000));
    }
    if (pct(30)) {
        push(c, "MAXDELETEDID");
        if (pct(50)) push_id(c, k, 0, 1);
        else push(c, "0-1");
    }
}

static void gen_xinfo(sdcmd *c)
{
    const char *key = skey();
    push(c, "XINFO");
    int r = rn(100);
    if (r < 35) {
        push(c, "STREAM");
        push(c, key);
    } else if (r < 60) {
        push(c, "STREAM");
        push(c, key);
        push(c, "FULL");
        c->norm = SN_FULL;
        if (pct(40)) {
            push(c, "COUNT");
            pushf(c, "%lld", pct(5) ? -1 : rn(6));
        }
    } else if (r < 78) {
        push(c, "GROUPS");
        push(c, key);
    } else if (r < 97) {
        push(c, "CONSUMERS");
        push(c, key);
        push(c, PICK(groups));
        c->norm = SN_CONSUMERS;
    } else {
        push(c, PICK(((const char *[]){"NOSUCH", "STREAM", "CONSUMERS"})));
    }
}

static void gen_generic(sdcmd *c)
{
    int r = rn(100);
    if (r < 25) {
        push(c, "DEL");
        push(c, skey());
    } else if (r < 55) {
        push(c, "TYPE");
        push(c, skey());
    } else if (r < 75) {
        push(c, "EXISTS");
        push(c, skey());
        if (pct(50)) push(c, skey());
    } else {
        push(c, "XLEN");
        push(c, skey());
        if (pct(3)) push(c, "x");
    }
}

/* One command; multi: inside MULTI (no `*`, no time-dependent reply). */
static void gen_one(sdcmd *c, int multi)
{
    int r = rn(1000);
    if (r < 380) gen_xadd(c, multi);
    else if (r < 420) gen_xtrim(c);
    else if (r < 480) gen_range(c);
    else if (r < 520) gen_xdel(c);
    else if (r < 555) gen_xread(c);
    else if (r < 640) gen_xreadgroup(c);
    else if (r < 690) gen_xack(c);
    else if (r < 760) gen_xgroup(c);
    else if (r < 800) gen_xpending(c);
    else if (r < 850) gen_xclaim(c);
    else if (r < 880) gen_xautoclaim(c);
    else if (r < 900) gen_xsetid(c);
    else if (r < 960) gen_xinfo(c);
    else gen_generic(c);
    /* DEL of a stream is rare (of s1, the big one, rarer): most of the time
     * the keys keep growing */
    if (!strcmp(c->argv[0], "DEL") && (pct(85) || (!strcmp(c->argv[1], "s1") && pct(80)))) {
        sd_free(c);
        gen_range(c);
    }
    if (multi && c->norm != SN_NONE) { /* keep EXEC's reply free of times */
        sd_free(c);
        gen_range(c);
    }
}

void sd_gen_line(sdcmd *c, const char *line)
{
    char buf[256], *save = NULL;
    sd_free(c);
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) push(c, t);
}

void sd_gen_fill(sdcmd *c, const char *key)
{
    char b[64];
    sd_free(c);
    push(c, "XADD");
    push(c, key);
    sd_next_id(b, sizeof b);
    push(c, b);
    push_fields(c);
}

static int multi_left = -1; /* commands still to queue, -1 outside MULTI */

void sd_gen(sdcmd *c)
{
    sd_free(c);
    if (multi_left == 0) {
        push(c, pct(90) ? "EXEC" : "DISCARD");
        multi_left = -1;
        return;
    }
    if (multi_left > 0) {
        multi_left--;
        gen_one(c, 1);
        return;
    }
    if (pct(3)) {
        push(c, "MULTI");
        multi_left = 1 + rn(4);
        return;
    }
    gen_one(c, 0);
}
