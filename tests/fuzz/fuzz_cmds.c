/* fuzz_cmds: random command sequences through the real dispatcher
 * (cmd_dispatch) against the in-process keyspace, strings and collections.
 *
 * The input is decoded into commands: a byte picks the name from the
 * command table (0xff: a length byte and the name follow), a byte the
 * argument count (0-7), and per argument a byte picks a word from a small
 * vocabulary (keys shared across types, fields, numbers, options) or, for
 * bytes >= 0xc0, takes the next (b & 0x3f) input bytes as the argument;
 * 0xbc/0xbd give a 300/5000-byte value (out of line in the trees) and
 * 0xbf/0xbe a repeat form: the arguments after the key so far, n*8 / n*64
 * more times (n the next byte) with the repetition number appended, so one
 * command adds up to thousands of elements (trees several levels deep;
 * at most MAX_EXPANDED arguments). A fake client runs them one by one; its
 * reply buffer is checked to hold exactly one well-formed RESP2 reply per
 * command, then emptied; a blocking command that blocks is unblocked at
 * once. BGSAVE starts a real forkless save on its serializer thread (into
 * the scratch directory) that runs on while the next commands change the
 * keys (writes then copy the shared tree nodes, as COPY's do); the libuv
 * loop is polled between inputs so that it completes. After each input the
 * collections under the vocabulary's keys are checked (check_collections:
 * pt_check of every tree, the hash prefixes of hash/set keys, length
 * commands against full reads). The AOF is on under appendfsync always
 * (start_aof), and its writer thread's fsyncs are reported to the loop
 * only between inputs: every write of an input stays in flight for the rest
 * of it, so the commands after it, refused ones included (wrong arity,
 * unknown), take the AOF's read-wait path (its key lookups). Left out: SHUTDOWN, DEBUG SLEEP, CONFIG
 * (only GET, HELP and SET of a collection shape limit run), BGREWRITEAOF,
 * DEBUG POPULATE / SETRANGE sizes that would allocate megabytes and random
 * counts beyond 100000. Every 256 inputs the databases are emptied, so
 * memory stays bounded; at exit every value must have been freed. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aof.h"
#include "snap.h"
#include "cmd.h"
#include "blocking.h"
#include "db.h"
#include "obj.h"
#include "pubsub.h"
#include "server.h"
#include "t_stream.h"
#include "util.h"
#include "vt.h"
#include "fuzz_common.h"

#define MAX_ARGS 8

/* The words an argument byte picks (t % NVOCAB for t < ARG_SPECIAL). The
 * first NVOCAB_OLD are the strings-era vocabulary in its order (the older
 * seeds index them); collection words follow. */
static const char *const vocab[] = {
    "k0", "k1", "k2", "k3", "{k}a", "k:0", "key:1", "", "v", "hello", "0", "1", "-1", "2",
    "10", "100", "1000", "-100", "3.5", "-0.0", "1e3", "inf", "-inf", "nan", "+1",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "4294967296",
    "1700000000", "1700000000000", "99999999999999", "EX", "PX", "EXAT", "PXAT", "NX", "XX",
    "GT", "LT", "KEEPTTL", "GET", "PERSIST", "MATCH", "COUNT", "TYPE", "string", "*", "k*",
    "?0", "[a-k]*", "\\", "NOSAVE", "SCHEDULE", "populate", "sleep", "help", "get", "set",
    "id", "getname", "setname", "list", "info", "kill", "all", "everything", "keyspace",
    "stats", "persistence", "memory", "server", "clients", "commandstats", "count", "docs",
    "ASYNC", "SYNC", "15", "16", "a b", "\r\n", "\x00",
    /* collections: keys of their own (the old ones are shared across types) */
    "h0", "l0", "s0", "z0",
    /* fields, members, elements */
    "f", "f1", "f2", "m", "m1", "m2", "a", "b", "c", "x", "3", "5", "-2", "-5", "64", "128",
    "512", "600", "-10", "0.5", "1.5e300", "-1e-300",
    /* options */
    "BEFORE", "AFTER", "LEFT", "RIGHT", "RANK", "MAXLEN", "WITHSCORES", "WITHVALUES",
    "BYSCORE", "BYLEX", "REV", "LIMIT", "CH", "INCR", "WEIGHTS", "AGGREGATE", "SUM", "MIN",
    "MAX", "REPLACE", "DB", "STORE", "BY", "ALPHA", "DESC", "ASC", "nosort", "#", "*->f",
    "(1", "[a", "(a", "[z", "-", "+", "(-inf", "hash", "zset", "encoding", "refcount",
    "hash-max-listpack-entries", "hash-max-listpack-value", "list-max-listpack-size",
    "set-max-intset-entries", "zset-max-listpack-entries", "zset-max-listpack-value",
    "list-compress-depth",
    /* geo and streams (appended: the seeds index the words above) */
    "x0", "g0", "13.361389", "38.115556", "180", "-85.05112878", "BYRADIUS", "BYBOX",
    "FROMMEMBER", "FROMLONLAT", "WITHCOORD", "WITHDIST", "WITHHASH", "ANY", "STOREDIST", "km",
    "mi", "ft", "STREAMS", "GROUP", "BLOCK", "NOACK", "NOMKSTREAM", "MINID", "~", "=", "$", ">",
    "0-0", "1-1", "5-*", "18446744073709551615-18446744073709551615", "ENTRIESREAD", "MKSTREAM",
    "CREATE", "SETID", "DESTROY", "CREATECONSUMER", "DELCONSUMER", "IDLE", "TIME",
    "RETRYCOUNT", "FORCE", "JUSTID", "LASTID", "FULL", "ENTRIESADDED", "MAXDELETEDID",
    "stream-node-max-entries", "stream-node-max-bytes", "consumers", "groups", "stream",
    "g1", "c1",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])
#define NVOCAB_OLD 83   /* the last old word is "\x00", one NUL byte */
/* Argument bytes from ARG_SPECIAL to 0xbf are special forms; from 0xc0 raw. */
enum { ARG_SPECIAL = 0xbc, ARG_LONG = 0xbc, ARG_HUGE = 0xbd, ARG_MEMBERS = 0xbe,
       ARG_REPEAT = 0xbf, ARG_RAW = 0xc0 };
/* The command byte that names its command instead of indexing the table:
 * CMD_NAMED, a length byte (<= 32), the name. Seeds written this way keep
 * their meaning when commands are added to the table. */
enum { CMD_NAMED = 0xff };
/* The keys the invariant check looks at after each input. */
static const char *const check_keys[] = {
    "k0", "k1", "k2", "k3", "{k}a", "k:0", "key:1", "", "h0", "l0", "s0", "z0", "x0", "g0",
};
#define NCHECK (sizeof check_keys / sizeof check_keys[0])
/* Most elements a repeat form adds; ARG_REPEAT count byte n gives n * 8. */
#define REPEAT_STEP 8
/* Most arguments one command gets from repeat forms. */
#define MAX_EXPANDED 20000

static client fake;
static unsigned long inputs;

typedef struct rd {
    const uint8_t *p, *end;
} rd;

static int next(rd *r) { return r->p < r->end ? *r->p++ : -1; }

/* One well-formed RESP2 or RESP3 (after HELLO 3) value at s[*i..n):
 * advances *i past it. */
static int resp_value(const char *s, size_t n, size_t *i, int depth) {
    /* COMMAND's entries nest key specs inside subcommands inside commands:
     * ten levels and more; the limit only stops a runaway recursion. */
    if (*i >= n || depth > 64) return 0;
    char t = s[*i];
    const char *e = memchr(s + *i, '\r', n - *i);
    if (!e || (size_t)(e - s) + 1 >= n || e[1] != '\n') return 0;
    size_t line = (size_t)(e - s) - *i - 1;
    const char *body = s + *i + 1;
    *i = (size_t)(e - s) + 2;
    long long v;
    switch (t) {
    case '+':
    case '-':
    case ',':
    case '(':
        return memchr(body, '\n', line) == NULL;
    case '_':
        return line == 0;
    case '#':
        return line == 1 && (body[0] == 't' || body[0] == 'f');
    case ':':
        return str_to_ll(body, line, &v);
    case '=':
    case '$':
        if (!str_to_ll(body, line, &v) || v < -1) return 0;
        if (v == -1) return 1;
        if (n - *i < (size_t)v + 2 || memcmp(s + *i + v, "\r\n", 2) != 0) return 0;
        *i += (size_t)v + 2;
        return 1;
    case '*':
    case '~':
    case '>':
    case '%':
    case '|':
        if (!str_to_ll(body, line, &v) || v < -1) return 0;
        if (t == '%' || t == '|') v *= 2;
        for (long long k = 0; k < v; k++)
            if (!resp_value(s, n, i, depth + 1)) return 0;
        /* an attribute comes before the reply it describes */
        return t != '|' || resp_value(s, n, i, depth + 1);
    default:
        return 0;
    }
}

/* Commands left out, or their arguments that would sleep or allocate much. */
static int skip(int argc, const arg *argv) {
    const arg *a = argv;
    if (arg_is(a, "shutdown") || arg_is(a, "bgrewriteaof")) return 1;
    /* a replica's commands need a socket and the loop: PSYNC/SYNC hand the
     * connection to the stream, REPLICAOF connects out, WAIT blocks until
     * replicas ack (test_repl* cover them) */
    if (arg_is(a, "psync") || arg_is(a, "sync") || arg_is(a, "replicaof") ||
        arg_is(a, "slaveof") || arg_is(a, "wait"))
        return 1;
    /* CLIENT REPLY OFF/SKIP drop the reply each command is checked by */
    if (arg_is(a, "client") && argc >= 2 && arg_is(&argv[1], "reply")) return 1;
    if (arg_is(a, "config")) {
        if (argc >= 2 && (arg_is(&argv[1], "get") || arg_is(&argv[1], "help"))) return 0;
        /* CONFIG SET of one collection shape limit (its words are in the
         * vocabulary): conversions at small sizes */
        return !(argc == 4 && arg_is(&argv[1], "set") && argv[2].len > 5 &&
                 (memcmp(argv[2].p, "hash-", 5) == 0 || memcmp(argv[2].p, "list-", 5) == 0 ||
                  memcmp(argv[2].p, "set-m", 5) == 0 || memcmp(argv[2].p, "zset-", 5) == 0));
    }
    long long v;
    if (arg_is(a, "debug")) {
        if (argc >= 2 && arg_is(&argv[1], "sleep")) return 1;
        /* the crashes DEBUG makes on purpose (crash.c's report, tested by
         * test_debug) */
        if (argc >= 2 && (arg_is(&argv[1], "segfault") || arg_is(&argv[1], "panic") ||
                          arg_is(&argv[1], "assert")))
            return 1;
        if (argc >= 3 && str_to_ll(argv[2].p, argv[2].len, &v) && v > 200) return 1;
        if (argc >= 5 && str_to_ll(argv[4].p, argv[4].len, &v) && v > 4096) return 1;
    }
    if (arg_is(a, "setrange") && argc >= 3 && str_to_ll(argv[2].p, argv[2].len, &v) &&
        v > 65536)
        return 1;
    /* bit offsets as far as SETRANGE's: a 512 MB string is one SETBIT away */
    if (arg_is(a, "setbit") || arg_is(a, "bitfield")) {
        for (int i = 2; i < argc; i++) {
            const arg *o = &argv[i];
            int hash = o->len > 1 && o->p[0] == '#';
            long long lim = hash ? 8192 : 524288; /* #n counts in fields of up to 64 bits */
            if (str_to_ll(o->p + hash, o->len - (size_t)hash, &v) && (v > lim || v < -lim))
                return 1;
        }
    }
    if (arg_is(a, "pfselftest")) return 1; /* seconds per call under ASan */
    /* a negative count repeats elements: as many as asked */
    if ((arg_is(a, "srandmember") || arg_is(a, "hrandfield") || arg_is(a, "zrandmember")) &&
        argc >= 3 && str_to_ll(argv[2].p, argv[2].len, &v) && (v < -100000 || v > 100000))
        return 1;
    return 0;
}

/* Runs one command on the fake client and checks its reply: exactly one
 * well-formed RESP2 value. A blocking command that blocks (CMD_PARKED, no
 * reply yet) is unblocked at once, as if its client had gone: one client
 * cannot send the push that would serve it. The reply stays in fake.reply
 * until the next command. */
static void run(int argc, const arg *argv) {
    if (argc == 0 || skip(argc, argv)) return;
    if (argc > fake.argv_cap) {
        fake.argv = xrealloc(fake.argv, sizeof(arg) * (size_t)argc);
        fake.argv_cap = argc;
    }
    fake.argc = argc;
    memcpy(fake.argv, argv, sizeof(arg) * (size_t)argc);
    fake.reply.len = 0;
    /* a transaction and its watches span the commands of one input */
    fake.flags = CLIENT_AUTHED | (fake.flags & (CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC |
                                                CLIENT_PUBSUB));
    int rc = cmd_dispatch(&fake);
    if (rc == CMD_PARKED) {
        assert((fake.flags & CLIENT_BLOCKED) && fake.reply.len == 0);
        block_client_closed(&fake);
        assert(!(fake.flags & CLIENT_BLOCKED));
        return;
    }
    assert(rc == CMD_RAN);
    /* one reply, but one per channel for (P|S)(UN)SUBSCRIBE, as Redis */
    static const char *const per_channel_cmds[] = {"subscribe", "unsubscribe", "psubscribe",
                                                    "punsubscribe", "ssubscribe",
                                                    "sunsubscribe"};
    int per_channel = 0;
    for (size_t k = 0; k < sizeof per_channel_cmds / sizeof *per_channel_cmds; k++)
        per_channel |= arg_is(&argv[0], per_channel_cmds[k]);
    /* EXEC's array counts commands, and a queued SUBSCRIBE a b answers two
     * replies (Redis does the same): what follows the array is theirs */
    per_channel |= arg_is(&argv[0], "exec");
    /* RESP3 push messages (the (un)subscribe replies, a message to itself,
     * DEBUG PROTOCOL push) come beside the reply */
    size_t i = 0, values = 0, pushes = 0;
    while (i < fake.reply.len && fake.reply.data[i] == '>' &&
           resp_value(fake.reply.data, fake.reply.len, &i, 0))
        pushes++;
    while (i < fake.reply.len && resp_value(fake.reply.data, fake.reply.len, &i, 0)) values++;
    if (values + pushes == 0 || i != fake.reply.len || (values > 1 && !per_channel) ||
        (values == 0 && !per_channel)) {
        fprintf(stderr, "bad reply to %.*s: %.*s\n", (int)argv[0].len, argv[0].p,
                (int)fake.reply.len, fake.reply.data);
        abort();
    }
    assert(fake.db >= 0 && fake.db < server.cfg.databases);
    static int trace = -1; /* VERSO_FUZZ_TRACE=1: each command and its reply */
    if (trace < 0) trace = getenv("VERSO_FUZZ_TRACE") != NULL;
    if (trace) {
        for (int k = 0; k < argc && k < 8; k++)
            fprintf(stderr, "%.*s ", (int)(argv[k].len > 20 ? 20 : argv[k].len), argv[k].p);
        fprintf(stderr, argc > 8 ? "... (%d arguments)\n" : "\n", argc);
        fprintf(stderr, "  -> %.*s\n", (int)(fake.reply.len > 100 ? 100 : fake.reply.len),
                fake.reply.data);
    }
}

/* ---- the invariant check after each input ---- */

static void run2(const char *cmd, const char *key, size_t klen) {
    arg v[2] = {{cmd, strlen(cmd)}, {key, klen}};
    run(2, v);
}

/* The integer of the reply in fake.reply (":n"), or the length of its
 * top-level array ("*n"). */
static long long reply_num(char want) {
    long long v;
    assert(fake.reply.len >= 4 && fake.reply.data[0] == want);
    const char *e = memchr(fake.reply.data, '\r', fake.reply.len);
    assert(e && str_to_ll(fake.reply.data + 1, (size_t)(e - fake.reply.data) - 1, &v));
    return v;
}

/* Every tree of a collection: pt_check, its count by iteration, and for the
 * hash-ordered trees (hash, set, the zset's member tree) that each key
 * starts with the big-endian 32-bit hash of the rest. Sets whose encoding
 * is intset hold integers only. */
static void check_trees(const obj *o) {
    for (size_t i = 0; i < o->len; i++) {
        const ptree *t = obj_ctree(o, (int)i);
        assert(pt_check(t));
        int hashed = o->type == OBJ_HASH || o->type == OBJ_SET || (o->type == OBJ_ZSET && i == 1);
        pt_iter it;
        pt_item item;
        uint64_t n = 0;
        pt_iter_init(&it, t, 0, 0);
        while (pt_iter_next(&it, &item)) {
            n++;
            if (!hashed) continue;
            assert(item.klen >= 4);
            uint32_t h = (uint32_t)(vt_hash(item.key + 4, item.klen - 4) >> 32);
            const unsigned char *k = (const unsigned char *)item.key;
            assert(((uint32_t)k[0] << 24 | (uint32_t)k[1] << 16 | (uint32_t)k[2] << 8 | k[3]) == h);
            long long v;
            if (o->type == OBJ_SET && o->enc == OBJ_ENC_INTSET)
                assert(str_to_ll(item.key + 4, item.klen - 4, &v));
        }
        assert(n == pt_count(t));
    }
}

/* A stream: XLEN against its length, XRANGE - + against the entries its
 * iteration gives (0 when it expired meanwhile). */
static void check_stream(const obj *o, const char *key, size_t klen) {
    uint64_t n = 0;
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init(&it, o, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) n++;
    assert(n == stream_len(o));
    run2("XLEN", key, klen);
    long long len = reply_num(':');
    if (len == 0) return;
    assert((uint64_t)len == n);
    arg v[4] = {{"XRANGE", 6}, {key, klen}, {"-", 1}, {"+", 1}};
    run(4, v);
    assert(reply_num('*') == len);
}

/* For each key of check_keys holding a collection in the current db: the
 * trees (check_trees), then its length command against the number of
 * elements its full read returns and the tree's count. */
static void check_collections(void) {
    static const char *const len_cmd[OBJ_NTYPES] = {
        [OBJ_LIST] = "LLEN", [OBJ_SET] = "SCARD", [OBJ_ZSET] = "ZCARD", [OBJ_HASH] = "HLEN"};
    static const char *const all_cmd[OBJ_NTYPES] = {
        [OBJ_SET] = "SMEMBERS", [OBJ_HASH] = "HGETALL"};
    if (fake.flags & CLIENT_MULTI) {
        static const arg discard[1] = {{"DISCARD", 7}};
        run(1, discard);
    }
    /* the reads below need the client out of the subscribed context and
     * in RESP2 (reply_num reads RESP2 arrays) */
    pubsub_client_closed(&fake);
    fake.resp = 2;
    db *d = db_get(fake.db);
    for (size_t k = 0; k < NCHECK; k++) {
        const char *key = check_keys[k];
        size_t klen = strlen(key);
        vt_entry *e = db_lookup_read_notouch(d, key, klen);
        if (!e || !obj_is_coll(e->val)) continue;
        obj *o = e->val;
        obj_incref(o); /* the commands below may expire the key */
        check_trees(o);
        if (o->type == OBJ_STREAM) {
            check_stream(o, key, klen);
            obj_decref(o);
            continue;
        }
        uint64_t count = pt_count(obj_ctree(o, 0));
        int type = o->type;
        run2(len_cmd[type], key, klen);
        if (type == OBJ_ZSET && fake.reply.data[0] == '-') { /* not merged yet */
            obj_decref(o);
            continue;
        }
        long long n = reply_num(':');
        if (n != 0) { /* 0: expired meanwhile (a zset until merged: an error) */
            assert((uint64_t)n == count);
            if (type == OBJ_LIST) {
                arg v[4] = {{"LRANGE", 6}, {key, klen}, {"0", 1}, {"-1", 2}};
                run(4, v);
            } else if (type == OBJ_ZSET) {
                arg v[4] = {{"ZRANGE", 6}, {key, klen}, {"0", 1}, {"-1", 2}};
                run(4, v);
            } else {
                run2(all_cmd[type], key, klen);
            }
            assert(reply_num('*') == (type == OBJ_HASH ? 2 * n : n));
        }
        obj_decref(o);
    }
}

/* At a normal exit (end of the run), before LeakSanitizer's check: the
 * running save stopped, the databases emptied and their values freed, so
 * that what is left is a leak; obj_mem_total must then be 0 (it counts the
 * ptree's blobs, which LeakSanitizer is told to ignore: see ptree_node.c). */
static void free_keyspace(void) {
    if (!fake.argv) return;
    aof_shutdown();
    char err[256];
    (void)snap_shutdown(1, 0, err, sizeof err);
    for (int i = 0; i < server.cfg.databases; i++) db_flush(db_get(i));
    for (int i = 0; i < 10 && snap_in_progress(); i++) uv_run(server.loop, UV_RUN_NOWAIT);
    uv_run(server.loop, UV_RUN_NOWAIT);
    /* every value and tree node freed (blobs LeakSanitizer is told to
     * ignore included) */
    if (obj_mem_total() != 0) {
        fprintf(stderr, "fuzz_cmds: %zu bytes of values still allocated at exit\n",
                obj_mem_total());
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fz_enter_dir(argc, argv); /* saves write temp files in the working directory */
    atexit(free_keyspace);
    return 0;
}

/* ---- decoding ---- */

/* The bytes of the arguments of the command being decoded: argv entries
 * point into it by offset until the command is complete (it grows). */
typedef struct argbuf {
    char *p;
    size_t len, cap;
} argbuf;

static void buf_reserve(argbuf *b, size_t n) {
    if (b->cap - b->len < n) {
        b->cap = b->cap * 2 > b->len + n ? b->cap * 2 : b->len + n + 256;
        b->p = xrealloc(b->p, b->cap);
    }
}

static size_t buf_add(argbuf *b, const char *p, size_t n) {
    buf_reserve(b, n);
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
    return b->len - n;
}

typedef struct cmdv {
    arg *v;        /* the arguments, the command name first */
    size_t *off;   /* v[i]'s bytes at this offset of the argbuf, or SIZE_MAX
                      when v[i].p already points at them */
    int n, cap;
} cmdv;

static void cv_push(cmdv *c, const char *p, size_t len, size_t off) {
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 64;
        c->v = xrealloc(c->v, sizeof *c->v * (size_t)c->cap);
        c->off = xrealloc(c->off, sizeof *c->off * (size_t)c->cap);
    }
    c->v[c->n].p = p;
    c->v[c->n].len = len;
    c->off[c->n++] = off;
}

/* A long value for ARG_LONG / ARG_HUGE (kept out of the tree's leaves). */
static const char *long_value(size_t n) {
    static char *v;
    if (!v) {
        v = xmalloc(5000);
        for (size_t i = 0; i < 5000; i++) v[i] = (char)('a' + i % 26);
    }
    assert(n <= 5000);
    return v;
}

/* The repeat form: the arguments from the third (or the second when there
 * are only two) up to here, repeated count times, each with the repetition
 * number appended ("f" "v" -> "f0" "v0" "f1" "v1"...: numbers stay numbers,
 * members stay distinct), so one command adds many elements. */
static void repeat(cmdv *c, argbuf *b, size_t count) {
    int first = c->n > 2 ? 2 : 1, last = c->n;
    if (first >= last) return;
    /* repeats of repeats multiply: the arguments stay under MAX_EXPANDED */
    size_t room = (MAX_EXPANDED - (size_t)c->n) / (size_t)(last - first);
    if (c->n >= MAX_EXPANDED) room = 0;
    if (count > room) count = room;
    for (size_t j = 0; j < count; j++) {
        char num[24];
        int nl = snprintf(num, sizeof num, "%zu", j);
        for (int i = first; i < last; i++) {
            const char *p = c->off[i] == SIZE_MAX ? c->v[i].p : NULL;
            size_t len = c->v[i].len;
            buf_reserve(b, len + (size_t)nl); /* b->p stays put while copying */
            size_t off = buf_add(b, p ? p : b->p + c->off[i], len);
            buf_add(b, num, (size_t)nl);
            cv_push(c, NULL, len + (size_t)nl, off);
        }
    }
}

/* The AOF on under appendfsync always, its first base written (the
 * in-process server has no CONFIG SET hook of the server's: aof.h's calls
 * directly), with a backlog as large as an input can make, so that no
 * write parks. */
static void start_aof(void) {
    char err[256];
    server.cfg.aof_max_backlog = 1LL << 30;
    server.cfg.appendfsync = FSYNC_ALWAYS;
    aof_set_fsync(FSYNC_ALWAYS);
    server.cfg.appendonly = 1;
    if (aof_set_enabled(1, err, sizeof err) != 0) {
        fprintf(stderr, "fuzz_cmds: turning the AOF on: %s\n", err);
        abort();
    }
    while (snap_in_progress()) uv_run(server.loop, UV_RUN_ONCE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init_server();
    if (!fake.argv) {
        fake.argv = xmalloc(sizeof(arg) * MAX_ARGS);
        fake.argv_cap = MAX_ARGS;
        fake.id = 1;
        snprintf(fake.addr, sizeof fake.addr, "127.0.0.1:1");
        snprintf(fake.laddr, sizeof fake.laddr, "127.0.0.1:6379");
        fake.fd = -1;
        start_aof();
    }
    uv_run(server.loop, UV_RUN_NOWAIT); /* a finished save reports back */
    if (++inputs % 256 == 0) {
        for (int i = 0; i < server.cfg.databases; i++)
            if (db_size(db_get(i)) > 0) db_flush(db_get(i));
    }
    fake.db = 0;
    /* each input starts outside any transaction, with nothing watched */
    static const arg discard[1] = {{"DISCARD", 7}}, unwatch[1] = {{"UNWATCH", 7}};
    if (fake.flags & CLIENT_MULTI) run(1, discard);
    run(1, unwatch);
    pubsub_client_closed(&fake); /* and subscribed to nothing */
    fake.resp = 2;               /* and in RESP2 (HELLO 3 may have switched) */
    rd r = {data, data + size};
    size_t ncmds = cmd_count();
    static cmdv c;
    static argbuf b;
    int t;
    while ((t = next(&r)) >= 0) {
        c.n = 0;
        b.len = 0;
        if (t == CMD_NAMED) {
            int l = next(&r);
            size_t len = l < 0 ? 0 : (size_t)l % 33;
            if (len > (size_t)(r.end - r.p)) len = (size_t)(r.end - r.p);
            cv_push(&c, (const char *)r.p, len, SIZE_MAX);
            r.p += len;
        } else {
            const char *name = cmd_at((size_t)t % ncmds)->name;
            cv_push(&c, name, strlen(name), SIZE_MAX);
        }
        int n = next(&r);
        int argc = 1 + (n < 0 ? 0 : n % MAX_ARGS);
        for (int i = 1; i < argc; i++) {
            t = next(&r);
            if (t < 0) t = 0;
            if (t >= ARG_RAW) {
                size_t len = (size_t)(t & 0x3f);
                if (len > (size_t)(r.end - r.p)) len = (size_t)(r.end - r.p);
                cv_push(&c, (const char *)r.p, len, SIZE_MAX);
                r.p += len;
            } else if (t == ARG_LONG || t == ARG_HUGE) {
                size_t len = t == ARG_LONG ? 300 : 5000;
                cv_push(&c, long_value(len), len, SIZE_MAX);
            } else if (t == ARG_REPEAT || t == ARG_MEMBERS) {
                /* ARG_MEMBERS: the same with the count read as n * 64 */
                int m = next(&r);
                repeat(&c, &b, (size_t)(m < 0 ? 0 : m) * (t == ARG_REPEAT ? REPEAT_STEP : 64));
            } else {
                size_t w = (size_t)t % NVOCAB;
                cv_push(&c, vocab[w], w == NVOCAB_OLD - 1 ? 1 : strlen(vocab[w]), SIZE_MAX);
            }
        }
        for (int i = 0; i < c.n; i++)
            if (c.off[i] != SIZE_MAX) c.v[i].p = b.p + c.off[i];
        run(c.n, c.v);
    }
    check_collections();
    return 0;
}
