/* test_coll_diff_gen: random commands for the differential test
 * (test_coll_diff.c) over a small key space: every hash, list, set and
 * sorted set command with its options, counts (0, negative, huge), ranges
 * (negative indexes, inf, exclusive and lex bounds), bad numbers, wrong
 * arity and junk arguments, and the generic commands (DEL, EXPIRE, RENAME,
 * COPY, TYPE, OBJECT ENCODING, SORT, ...) on those keys. Keys of one type
 * are mostly used by that type's commands; the shared keys "k" and "str"
 * and any other key now and then give WRONGTYPE. Deterministic for a seed
 * (dc_seed). */
#include "test_coll_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rs = 88172645463325252ULL;

void dc_seed(uint64_t seed) { rs = seed * 0x9E3779B97F4A7C15ULL + 1; }

uint64_t dc_rand(void) {
    rs ^= rs << 13;
    rs ^= rs >> 7;
    rs ^= rs << 17;
    return rs;
}

static int rn(int n) { return (int)(dc_rand() % (uint64_t)n); }
static int pct(int p) { return rn(100) < p; }
#define PICK(arr) ((arr)[rn((int)(sizeof(arr) / sizeof((arr)[0])))])

void dc_push(dcmd *c, const char *s) {
    if (c->argc >= DC_MAXARGS) return;
    c->len[c->argc] = strlen(s);
    c->argv[c->argc++] = strdup(s);
}

static void pushf(dcmd *c, const char *fmt, int v) {
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    dc_push(c, b);
}

void dc_free(dcmd *c) {
    for (int i = 0; i < c->argc; i++) free(c->argv[i]);
    c->argc = 0;
}

/* ---- keys and values ---- */

enum { T_HASH, T_LIST, T_SET, T_ZSET, T_ANY };
static const char *hkeys[] = {"h1", "h2"};
static const char *lkeys[] = {"l1", "l2"};
static const char *skeys[] = {"s1", "s2", "s3"};
static const char *zkeys[] = {"z1", "z2", "z3"};
static const char *shared[] = {"k", "str", "nokey"};

static const char *key_of(int t) {
    int r = rn(100);
    if (t == T_ANY || r >= 88) {
        switch (rn(5)) {
        case 0: return PICK(hkeys);
        case 1: return PICK(lkeys);
        case 2: return PICK(skeys);
        case 3: return PICK(zkeys);
        default: return PICK(shared);
        }
    }
    if (r >= 80) return PICK(shared);
    switch (t) {
    case T_HASH: return PICK(hkeys);
    case T_LIST: return PICK(lkeys);
    case T_SET: return PICK(skeys);
    default: return PICK(zkeys);
    }
}

static char longbuf[4][80];

/* An element: a short word, an integer (intset material), or now and then
 * a long one (past the listpack value limits) or an odd number. */
static const char *elem(void) {
    static const char *words[] = {"a", "b", "c", "d", "e", "f", "g", "h"};
    static const char *ints[] = {"-3", "-1", "0", "1", "2", "3", "4", "5", "7", "10", "12"};
    static const char *odd[] = {"", "007", "1.0", "+1", "9223372036854775807",
                                "-9223372036854775808", "18446744073709551616",
                                "-0", " 1", "aa", "ab", "b\x01z"};
    int r = rn(100);
    if (r < 42) return PICK(words);
    if (r < 84) return PICK(ints);
    if (r < 96) return PICK(odd);
    int i = rn(4);
    memset(longbuf[i], 'x', 70);
    longbuf[i][70] = (char)('0' + i);
    longbuf[i][71] = '\0';
    return longbuf[i];
}

static const char *value(void) {
    static const char *vals[] = {"v0", "v1", "v2", "1", "-7", "10.5", "0", "abc",
                                 "9223372036854775806", "1e3", "", "3.0"};
    if (pct(5)) return elem();
    return PICK(vals);
}

static const char *count(void) {
    static const char *common[] = {"0", "1", "2", "3", "5", "-1", "-2", "-5", "10", "-10"};
    static const char *odd[] = {"1000000", "-9223372036854775808", "9223372036854775807",
                                "x", "1.5", "-0", "", "4611686018427387904",
                                "-4611686018427387904"};
    return pct(85) ? PICK(common) : PICK(odd);
}

/* A count for the RAND commands: no reply of millions of elements. */
static const char *rcount(void) {
    static const char *odd[] = {"-9223372036854775808", "9223372036854775807", "x",
                                "1.5", "1000000", "-4611686018427387904"};
    if (pct(8)) return PICK(odd);
    static const char *common[] = {"0", "1", "2", "3", "5", "-1", "-2", "-5", "10", "-12", "200"};
    return PICK(common);
}

static const char *index_(void) {
    static const char *v[] = {"0", "1", "2", "-1", "-2", "-3", "3", "5", "-100", "100",
                              "9223372036854775807", "-9223372036854775808", "a", "1.5"};
    static const char *common[] = {"0", "1", "2", "-1", "-2", "3", "-3"};
    return pct(75) ? PICK(common) : PICK(v);
}

static const char *score(void) {
    static const char *common[] = {"0", "1", "2", "-1", "1.5", "-2.5", "3", "10", "2", "1"};
    static const char *odd[] = {"+inf", "-inf", "inf", "1e3", "0x10", "nan", "abc", "",
                                "(1", "-0", "1e400", "0.1", "4.9e-324",
                                "9007199254740993"};
    return pct(85) ? PICK(common) : PICK(odd);
}

static const char *sbound(void) {
    static const char *v[] = {"-inf", "+inf", "0", "1", "(1", "(2", "-1", "(-1", "1.5",
                              "3", "(inf", "(-inf", "abc", "(", "[1", "2", "10", "inf"};
    return PICK(v);
}

static const char *lbound(void) {
    static const char *v[] = {"-", "+", "[a", "(a", "[c", "(d", "[f", "[h", "(b",
                              "a", "[", "(", "[1", "(3", "+", "-", "[0", "(ab"};
    return PICK(v);
}

static const char *timeout(void) {
    if (pct(4)) return pct(50) ? "-1" : "abc";
    return "0.01";
}

static void push_keys(dcmd *c, int t, int n) {
    for (int i = 0; i < n; i++) dc_push(c, key_of(t));
}

static void numkeys(dcmd *c, int t) {
    int n = 1 + rn(3);
    if (pct(3)) {
        dc_push(c, PICK(((const char *[]){"0", "-1", "x", "9"})));
    } else {
        pushf(c, "%d", n);
    }
    push_keys(c, t, n);
}

/* xSCAN's cursor (0, or a bad one) and options. */
static void scan_args(dcmd *c) {
    c->mode = M_SCAN;
    dc_push(c, pct(94) ? "0" : PICK(((const char *[]){"abc", "-1", "18446744073709551616", ""})));
    if (pct(40)) {
        dc_push(c, "MATCH");
        dc_push(c, PICK(((const char *[]){"*", "f*", "g1*", "[ab]*", "*1", "n?", "1*", "x*"})));
    }
    if (pct(40)) {
        dc_push(c, "COUNT");
        dc_push(c, PICK(((const char *[]){"1", "3", "10", "1000", "0", "-1", "x"})));
    }
}

/* ---- hashes ---- */

static const char *field(void) {
    static const char *f[] = {"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "1", "-2"};
    return pct(92) ? PICK(f) : elem();
}

static void gen_hash(dcmd *c) {
    static const char *cmds[] = {"HSET", "HSET", "HSET", "HSETNX", "HGET", "HMGET",
                                 "HMSET", "HDEL", "HDEL", "HLEN", "HSTRLEN", "HEXISTS",
                                 "HKEYS", "HVALS", "HGETALL", "HINCRBY", "HINCRBYFLOAT",
                                 "HRANDFIELD", "HSCAN", "HSETBIG"};
    const char *name = PICK(cmds);
    int n;
    if (strcmp(name, "HSETBIG") == 0) { /* past the listpack entry limit */
        dc_push(c, "HSET");
        dc_push(c, key_of(T_HASH));
        for (int i = 0; i < 40; i++) {
            pushf(c, "g%d", rn(150));
            dc_push(c, value());
        }
        return;
    }
    dc_push(c, name);
    dc_push(c, key_of(T_HASH));
    if (!strcmp(name, "HSET") || !strcmp(name, "HMSET")) {
        n = 1 + rn(4);
        for (int i = 0; i < n; i++) {
            dc_push(c, field());
            dc_push(c, value());
        }
    } else if (!strcmp(name, "HSETNX")) {
        dc_push(c, field());
        dc_push(c, value());
    } else if (!strcmp(name, "HGET") || !strcmp(name, "HSTRLEN") ||
               !strcmp(name, "HEXISTS")) {
        dc_push(c, field());
    } else if (!strcmp(name, "HMGET") || !strcmp(name, "HDEL")) {
        n = 1 + rn(4);
        for (int i = 0; i < n; i++) dc_push(c, field());
    } else if (!strcmp(name, "HKEYS") || !strcmp(name, "HVALS")) {
        c->mode = M_SORT;
    } else if (!strcmp(name, "HGETALL")) {
        c->mode = M_PAIRS;
    } else if (!strcmp(name, "HINCRBY")) {
        dc_push(c, field());
        dc_push(c, pct(85) ? PICK(((const char *[]){"1", "-3", "100", "0"}))
                           : PICK(((const char *[]){"x", "1.5", "9223372036854775807",
                                                    "-9223372036854775808", ""})));
    } else if (!strcmp(name, "HINCRBYFLOAT")) {
        dc_push(c, field());
        dc_push(c, pct(85) ? PICK(((const char *[]){"1", "-3.5", "0.1", "1e2", "0"}))
                           : PICK(((const char *[]){"x", "inf", "nan", "1e308", "", "-inf"})));
    } else if (!strcmp(name, "HRANDFIELD")) {
        c->mode = M_RAND;
        if (pct(75)) {
            const char *cnt = rcount();
            dc_push(c, cnt);
            /* -2^62 is out of range with WITHVALUES only (Redis 7.0.15):
             * without it both servers would build a reply of 2^62 elements */
            if (!strcmp(cnt, "-4611686018427387904")) dc_push(c, "WITHVALUES");
            else if (pct(50)) dc_push(c, pct(95) ? "WITHVALUES" : "WITHSCORES");
        }
    } else if (!strcmp(name, "HSCAN")) {
        scan_args(c);
    }
}

/* ---- lists ---- */

static const char *side(void) { return pct(97) ? (pct(50) ? "LEFT" : "RIGHT") : "UP"; }

static void gen_list(dcmd *c) {
    static const char *cmds[] = {"LPUSH", "RPUSH", "RPUSH", "LPUSHX", "RPUSHX", "LPOP",
                                 "RPOP", "LLEN", "LINDEX", "LSET", "LINSERT", "LRANGE",
                                 "LRANGE", "LREM", "LTRIM", "LPOS", "LMOVE", "RPOPLPUSH",
                                 "LMPOP", "BLPOP", "BRPOP", "BLMOVE", "BRPOPLPUSH", "BLMPOP"};
    const char *name;
    do name = PICK(cmds); /* fewer blocking ones: a timeout costs ~100 ms in Redis */
    while (name[0] == 'B' && pct(75));
    dc_push(c, name);
    if (!strcmp(name, "LMPOP") || !strcmp(name, "BLMPOP")) {
        if (name[0] == 'B') dc_push(c, timeout());
        numkeys(c, T_LIST);
        dc_push(c, side());
        if (pct(60)) {
            dc_push(c, "COUNT");
            dc_push(c, count());
        }
        return;
    }
    if (!strcmp(name, "BLPOP") || !strcmp(name, "BRPOP")) {
        push_keys(c, T_LIST, 1 + rn(2));
        dc_push(c, timeout());
        return;
    }
    dc_push(c, key_of(T_LIST));
    if (strstr(name, "PUSH") && strcmp(name, "RPOPLPUSH") && strcmp(name, "BRPOPLPUSH")) {
        int n = 1 + rn(pct(5) ? 60 : 4);
        for (int i = 0; i < n; i++) dc_push(c, elem());
    } else if (!strcmp(name, "LPOP") || !strcmp(name, "RPOP")) {
        if (pct(50)) dc_push(c, count());
    } else if (!strcmp(name, "LINDEX")) {
        dc_push(c, index_());
    } else if (!strcmp(name, "LSET")) {
        dc_push(c, index_());
        dc_push(c, elem());
    } else if (!strcmp(name, "LINSERT")) {
        dc_push(c, pct(95) ? (pct(50) ? "BEFORE" : "AFTER") : "MIDDLE");
        dc_push(c, elem());
        dc_push(c, elem());
    } else if (!strcmp(name, "LRANGE") || !strcmp(name, "LTRIM")) {
        dc_push(c, index_());
        dc_push(c, index_());
    } else if (!strcmp(name, "LREM")) {
        dc_push(c, count());
        dc_push(c, elem());
    } else if (!strcmp(name, "LPOS")) {
        dc_push(c, elem());
        for (int i = rn(3); i > 0; i--) {
            int o = rn(3);
            dc_push(c, o == 0 ? "RANK" : o == 1 ? "COUNT" : "MAXLEN");
            dc_push(c, pct(30) ? count() : index_());
        }
    } else if (!strcmp(name, "LMOVE") || !strcmp(name, "BLMOVE")) {
        dc_push(c, key_of(T_LIST));
        dc_push(c, side());
        dc_push(c, side());
        if (name[0] == 'B') dc_push(c, timeout());
    } else if (!strcmp(name, "RPOPLPUSH") || !strcmp(name, "BRPOPLPUSH")) {
        dc_push(c, key_of(T_LIST));
        if (name[0] == 'B') dc_push(c, timeout());
    }
}

/* ---- sets ---- */

static void gen_set(dcmd *c) {
    static const char *cmds[] = {"SADD", "SADD", "SADD", "SREM", "SCARD", "SISMEMBER",
                                 "SMISMEMBER", "SMEMBERS", "SRANDMEMBER", "SPOP", "SMOVE",
                                 "SINTER", "SINTERCARD", "SUNION", "SDIFF", "SINTERSTORE",
                                 "SUNIONSTORE", "SDIFFSTORE", "SSCAN", "SADDBIG"};
    const char *name = PICK(cmds);
    if (!strcmp(name, "SADDBIG")) { /* past the intset limit */
        dc_push(c, "SADD");
        dc_push(c, key_of(T_SET));
        for (int i = 0; i < 60; i++) pushf(c, pct(70) ? "%d" : "m%d", rn(700));
        return;
    }
    dc_push(c, name);
    if (!strcmp(name, "SINTERCARD")) {
        numkeys(c, T_SET);
        if (pct(50)) {
            dc_push(c, "LIMIT");
            dc_push(c, count());
        }
        return;
    }
    if (!strcmp(name, "SINTER") || !strcmp(name, "SUNION") || !strcmp(name, "SDIFF")) {
        push_keys(c, T_SET, 1 + rn(3));
        c->mode = M_SORT;
        return;
    }
    dc_push(c, key_of(T_SET));
    if (!strcmp(name, "SADD") || !strcmp(name, "SREM") || !strcmp(name, "SMISMEMBER")) {
        int n = 1 + rn(5);
        for (int i = 0; i < n; i++) dc_push(c, elem());
    } else if (!strcmp(name, "SISMEMBER")) {
        dc_push(c, elem());
    } else if (!strcmp(name, "SMEMBERS")) {
        c->mode = M_SORT;
    } else if (!strcmp(name, "SRANDMEMBER")) {
        c->mode = M_RAND;
        /* no huge negative count: SRANDMEMBER has no bound below -LONG_MAX
         * in Redis 7.0 and would build a reply of 2^62 elements */
        if (pct(70)) {
            const char *n = rcount();
            dc_push(c, strcmp(n, "-4611686018427387904") ? n : "-3");
        }
    } else if (!strcmp(name, "SPOP")) {
        c->mode = M_SPOP;
        if (pct(60)) dc_push(c, pct(90) ? PICK(((const char *[]){"0", "1", "2", "3", "10"}))
                                        : PICK(((const char *[]){"-1", "x", "1000000"})));
    } else if (!strcmp(name, "SMOVE")) {
        dc_push(c, key_of(T_SET));
        dc_push(c, elem());
    } else if (strstr(name, "STORE")) {
        push_keys(c, T_SET, 1 + rn(3));
    } else if (!strcmp(name, "SSCAN")) {
        scan_args(c);
    }
}

/* ---- sorted sets ---- */

static void zrange_opts(dcmd *c, int by) {
    if (by == 1) dc_push(c, "BYSCORE");
    if (by == 2) dc_push(c, "BYLEX");
    if (pct(35)) dc_push(c, "REV");
    if (pct(35)) {
        dc_push(c, "LIMIT");
        dc_push(c, index_());
        dc_push(c, count());
    }
}

static void push_bounds(dcmd *c, int by) {
    const char *(*f)(void) = by == 0 ? index_ : by == 1 ? sbound : lbound;
    dc_push(c, f());
    dc_push(c, f());
}

static void gen_zset_read(dcmd *c, const char *name) {
    dc_push(c, name);
    if (!strcmp(name, "ZRANGE") || !strcmp(name, "ZRANGESTORE")) {
        if (name[6] == 'S') dc_push(c, key_of(T_ZSET));
        dc_push(c, key_of(T_ZSET));
        int by = rn(3);
        push_bounds(c, by);
        zrange_opts(c, by);
        if (name[6] != 'S' && pct(40)) dc_push(c, "WITHSCORES");
        return;
    }
    dc_push(c, key_of(T_ZSET));
    int by = strstr(name, "BYLEX") || strstr(name, "LEX") ? 2
             : strstr(name, "SCORE") || !strcmp(name, "ZCOUNT") ? 1 : 0;
    push_bounds(c, by);
    if (strstr(name, "RANGEBY")) {
        if (by == 1 && pct(40)) dc_push(c, "WITHSCORES");
        if (pct(35)) {
            dc_push(c, "LIMIT");
            dc_push(c, index_());
            dc_push(c, count());
        }
    } else if (!strcmp(name, "ZREVRANGE") && pct(40)) {
        dc_push(c, "WITHSCORES");
    }
}

static void gen_zset_ops(dcmd *c, const char *name) {
    dc_push(c, name);
    int store = strstr(name, "STORE") != NULL;
    if (store) dc_push(c, key_of(T_ZSET));
    if (!strcmp(name, "ZINTERCARD")) {
        numkeys(c, T_ZSET);
        if (pct(50)) {
            dc_push(c, "LIMIT");
            dc_push(c, count());
        }
        return;
    }
    int n = 1 + rn(3);
    if (pct(3)) dc_push(c, PICK(((const char *[]){"0", "-1", "x", "9"})));
    else pushf(c, "%d", n);
    for (int i = 0; i < n; i++) dc_push(c, pct(80) ? key_of(T_ZSET) : key_of(T_SET));
    if (strncmp(name, "ZDIFF", 5) != 0) {
        if (pct(40)) {
            dc_push(c, "WEIGHTS");
            for (int i = 0; i < n; i++)
                dc_push(c, PICK(((const char *[]){"1", "2", "-1", "0", "0.5", "inf", "x"})));
        }
        if (pct(40)) {
            dc_push(c, "AGGREGATE");
            dc_push(c, PICK(((const char *[]){"SUM", "MIN", "MAX", "sum", "AVG"})));
        }
    }
    if (!store && pct(50)) dc_push(c, "WITHSCORES");
}

static void gen_zset(dcmd *c) {
    static const char *cmds[] = {
        "ZADD", "ZADD", "ZADD", "ZADD", "ZINCRBY", "ZREM", "ZCARD", "ZCOUNT", "ZLEXCOUNT",
        "ZSCORE", "ZMSCORE", "ZRANK", "ZREVRANK", "ZRANGE", "ZRANGE", "ZRANGESTORE",
        "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX",
        "ZREMRANGEBYRANK", "ZREMRANGEBYSCORE", "ZREMRANGEBYLEX", "ZPOPMIN", "ZPOPMAX",
        "BZPOPMIN", "BZPOPMAX", "ZMPOP", "BZMPOP", "ZRANDMEMBER", "ZUNION", "ZINTER",
        "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD", "ZSCAN",
        "ZADDBIG"};
    const char *name;
    do name = PICK(cmds);
    while (name[0] == 'B' && pct(75));
    if (!strcmp(name, "ZADDBIG")) { /* past the listpack entry limit */
        dc_push(c, "ZADD");
        dc_push(c, key_of(T_ZSET));
        for (int i = 0; i < 40; i++) {
            pushf(c, "%d", rn(20));
            pushf(c, "n%d", rn(150));
        }
        return;
    }
    if (strstr(name, "RANGE") && strncmp(name, "ZREMRANGE", 9) != 0) {
        gen_zset_read(c, name);
        return;
    }
    if (!strcmp(name, "ZCOUNT") || !strcmp(name, "ZLEXCOUNT") ||
        !strncmp(name, "ZREMRANGE", 9)) {
        gen_zset_read(c, name);
        return;
    }
    if (!strncmp(name, "ZUNION", 6) || !strncmp(name, "ZINTER", 6) ||
        !strncmp(name, "ZDIFF", 5)) {
        gen_zset_ops(c, name);
        return;
    }
    dc_push(c, name);
    if (!strcmp(name, "ZMPOP") || !strcmp(name, "BZMPOP")) {
        if (name[0] == 'B') {
            c->argc--;
            free(c->argv[c->argc]);
            dc_push(c, name);
            dc_push(c, timeout());
        }
        numkeys(c, T_ZSET);
        dc_push(c, pct(97) ? (pct(50) ? "MIN" : "MAX") : "MID");
        if (pct(60)) {
            dc_push(c, "COUNT");
            dc_push(c, count());
        }
        return;
    }
    if (!strcmp(name, "BZPOPMIN") || !strcmp(name, "BZPOPMAX")) {
        push_keys(c, T_ZSET, 1 + rn(2));
        dc_push(c, timeout());
        return;
    }
    dc_push(c, key_of(T_ZSET));
    if (!strcmp(name, "ZADD")) {
        static const char *flags[] = {"NX", "XX", "GT", "LT", "CH", "INCR"};
        for (int i = rn(3); i > 0; i--) dc_push(c, PICK(flags));
        int n = 1 + rn(4);
        for (int i = 0; i < n; i++) {
            dc_push(c, score());
            dc_push(c, elem());
        }
    } else if (!strcmp(name, "ZINCRBY")) {
        dc_push(c, score());
        dc_push(c, elem());
    } else if (!strcmp(name, "ZREM") || !strcmp(name, "ZMSCORE")) {
        int n = 1 + rn(4);
        for (int i = 0; i < n; i++) dc_push(c, elem());
    } else if (!strcmp(name, "ZSCORE") || !strcmp(name, "ZRANK") ||
               !strcmp(name, "ZREVRANK")) {
        dc_push(c, elem());
    } else if (!strcmp(name, "ZPOPMIN") || !strcmp(name, "ZPOPMAX")) {
        if (pct(50)) dc_push(c, count());
    } else if (!strcmp(name, "ZRANDMEMBER")) {
        c->mode = M_RAND;
        if (pct(75)) {
            const char *n = rcount();
            dc_push(c, n);
            /* -2^62 is out of range with WITHSCORES only (Redis 7.0.15):
             * without it both servers would build a reply of 2^62 elements */
            if (!strcmp(n, "-4611686018427387904")) dc_push(c, "WITHSCORES");
            else if (pct(50)) dc_push(c, pct(95) ? "WITHSCORES" : "WITHVALUES");
        }
    } else if (!strcmp(name, "ZSCAN")) {
        scan_args(c);
    }
}

/* ---- generic commands ---- */

static void gen_sort(dcmd *c) {
    dc_push(c, pct(80) ? "SORT" : "SORT_RO");
    int ro = c->argv[0][4] == '_';
    dc_push(c, key_of(T_ANY));
    int nosort = 0, by = pct(50);
    if (by) {
        dc_push(c, "BY");
        int r = rn(4);
        nosort = r == 0;
        dc_push(c, r == 0 ? "nosort" : r == 1 ? "w_*" : r == 2 ? "wh_*->f" : "nokey_*");
    }
    int limit = pct(30);
    if (limit) {
        dc_push(c, "LIMIT");
        dc_push(c, index_());
        dc_push(c, count());
    }
    for (int i = pct(40) ? 1 + rn(2) : 0; i > 0; i--) {
        dc_push(c, "GET");
        dc_push(c, PICK(((const char *[]){"#", "w_*", "wh_*->f", "nokey_*"})));
    }
    if (pct(40)) dc_push(c, pct(50) ? "ASC" : "DESC");
    /* ALPHA with a BY pattern: Redis breaks no ties between equal (or
     * missing) weights, so their order follows the input's and the sort's
     * and is unspecified; not generated. */
    if (!(by && !nosort) && pct(50)) dc_push(c, "ALPHA");
    int store = !ro && pct(20);
    if (store) {
        dc_push(c, "STORE");
        dc_push(c, key_of(T_LIST));
    }
    if (nosort && !store) c->mode = M_NOSORT;
}

static void gen_generic(dcmd *c) {
    static const char *cmds[] = {"DEL", "UNLINK", "EXISTS", "EXPIRE", "PEXPIRE", "TTL",
                                 "PTTL", "PERSIST", "RENAME", "RENAMENX", "COPY", "TYPE",
                                 "OBJECT", "OBJECT", "SORT", "SORT", "SORT", "MEMORY", "SET"};
    const char *name = PICK(cmds);
    if (!strcmp(name, "SORT")) {
        gen_sort(c);
        return;
    }
    dc_push(c, name);
    if (!strcmp(name, "OBJECT")) {
        dc_push(c, "ENCODING");
        dc_push(c, key_of(T_ANY));
    } else if (!strcmp(name, "MEMORY")) {
        dc_push(c, "USAGE");
        dc_push(c, key_of(T_ANY));
        c->mode = M_MEMORY;
    } else if (!strcmp(name, "SET")) {
        dc_push(c, PICK(shared));
        dc_push(c, value());
    } else if (!strcmp(name, "DEL") || !strcmp(name, "UNLINK") || !strcmp(name, "EXISTS")) {
        push_keys(c, T_ANY, 1 + rn(2));
    } else if (!strcmp(name, "EXPIRE") || !strcmp(name, "PEXPIRE")) {
        dc_push(c, key_of(T_ANY));
        dc_push(c, pct(80) ? (name[0] == 'P' ? "500000" : "500")
                           : PICK(((const char *[]){"0", "-1", "x"})));
        if (pct(20)) dc_push(c, PICK(((const char *[]){"NX", "XX", "GT", "LT"})));
    } else if (!strcmp(name, "TTL") || !strcmp(name, "PTTL")) {
        dc_push(c, key_of(T_ANY));
        c->mode = M_TTL;
    } else if (!strcmp(name, "RENAME") || !strcmp(name, "RENAMENX") ||
               !strcmp(name, "COPY")) {
        dc_push(c, key_of(T_ANY));
        dc_push(c, key_of(T_ANY));
        if (name[0] == 'C' && pct(50)) dc_push(c, "REPLACE");
    } else {
        dc_push(c, key_of(T_ANY));
    }
}

void dc_gen(dcmd *c) {
    c->argc = 0;
    c->mode = M_EXACT;
    int r = rn(100);
    if (r < 22) gen_hash(c);
    else if (r < 44) gen_list(c);
    else if (r < 64) gen_set(c);
    else if (r < 90) gen_zset(c);
    else gen_generic(c);
    /* wrong arity or a junk argument, now and then */
    int m = rn(100);
    int huge = c->argc > 2 && !strcmp(c->argv[c->argc - 2], "-4611686018427387904");
    if (m < 3 && c->argc > 1 && !huge) { /* (not WITHVALUES after -2^62: see rcount) */
        c->argc--;
        free(c->argv[c->argc]);
        c->argv[c->argc] = NULL;
    } else if (m < 6) {
        dc_push(c, PICK(((const char *[]){"junk", "WITHSCORES", "LIMIT", "COUNT", "1"})));
    }
}
