/* test_tracking_diff: a differential test of client-side caching
 * (CLIENT TRACKING) against redis-server 7.0. The server under test
 * (verso, or $VERSO_SERVER) and the reference (Redis's own) run side by
 * side, each with the same clients: five tracking clients in different
 * modes (default, NOLOOP, OPTIN, BCAST with prefixes and NOLOOP, BCAST of
 * every key), each redirecting its invalidations to a subscriber of its
 * own (RESP2, channel __redis__:invalidate), and a writer that does not
 * track. Seeded random commands go to the same client of both: reads and
 * writes of a few keys (strings and a hash), scripts that declare some
 * keys and read or write others, EVAL_RO, transactions, CLIENT CACHING yes
 * before an OPTIN read, tracking turned off and on again, FLUSHDB. After
 * every command (a transaction: after its EXEC) each subscriber is drained
 * up to the reply of a PING, and the messages it received are compared
 * with the reference's, as is every reply.
 *
 * Nothing here depends on time (no expiry, no table limit), so the
 * messages must be the same, in the same order. The seed comes from
 * rnd_seed_env (printed; TRACKING_DIFF_SEED=n repeats a run); length:
 * COMMANDS x VERSO_TEST_SCALE (or TRACKING_DIFF_COMMANDS=n). A difference
 * fails the test after printing the seed, the command number, the last
 * commands and both texts. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reply_repr.h"
#include "testrand.h"

enum { COMMANDS = 1500, NT = 5, HIST = 12, MAXARGS = 8, TEXT = 8192 };

/* The tracking clients' modes (CLIENT TRACKING on REDIRECT <id> ...). */
static const char *const modes[NT] = {"", "NOLOOP", "OPTIN", "BCAST PREFIX k1 PREFIX h NOLOOP",
                                      "BCAST"};
static const char *const keys[] = {"k0", "k1", "k2", "k10", "k21", "h0"};
#define NKEYS (sizeof keys / sizeof keys[0])

/* One server and its clients: t[NT] is the writer. */
typedef struct side {
    srv *s;
    redisContext *t[NT + 1];
    redisContext *sub[NT];
    long long sub_id[NT];
} side;

/* A command: argv and its text for the history. */
typedef struct op {
    int argc;
    const char *argv[MAXARGS];
    char text[256];
} op;

static char hist[HIST][300];
static long nhist;
static uint64_t seed;

static void remember(int who, const op *o) {
    snprintf(hist[nhist % HIST], sizeof hist[0], "%ld: client %d: %s", nhist, who, o->text);
    nhist++;
}

static void fail_diff(const char *what, const char *got, const char *want) {
    fprintf(stderr, "tracking_diff: seed %llu, command %ld: %s differ\n",
            (unsigned long long)seed, nhist - 1, what);
    for (long i = nhist > HIST ? nhist - HIST : 0; i < nhist; i++)
        fprintf(stderr, "  %s\n", hist[i % HIST]);
    fprintf(stderr, "  server under test: %s\n  redis-server:      %s\n", got, want);
    ck_abort_msg("seed %llu: %s differ at command %ld", (unsigned long long)seed, what, nhist - 1);
}

static void tracking_on(side *x, int i) {
    char id[32], mode[64];
    snprintf(id, sizeof id, "%lld", x->sub_id[i]);
    snprintf(mode, sizeof mode, "%s", modes[i]);
    const char *argv[MAXARGS + 8] = {"CLIENT", "TRACKING", "on", "REDIRECT", id};
    int argc = 5;
    for (char *save = NULL, *w = strtok_r(mode, " ", &save); w; w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    redisReply *r = redisCommandArgv(x->t[i], argc, argv, NULL);
    ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "CLIENT TRACKING on %s: %s", modes[i],
                  r ? r->str : "no reply");
    freeReplyObject(r);
}

static void side_start(side *x, int reference) {
    x->s = reference ? h_srv_start_redis("%s", "") : h_srv_start("%s", "");
    for (int i = 0; i < NT; i++) {
        x->sub[i] = srv_connect(x->s);
        redisReply *r = redisCommand(x->sub[i], "CLIENT ID");
        ck_assert(r && r->type == REDIS_REPLY_INTEGER);
        x->sub_id[i] = r->integer;
        freeReplyObject(r);
        r = redisCommand(x->sub[i], "SUBSCRIBE __redis__:invalidate");
        ck_assert(r && r->type == REDIS_REPLY_ARRAY);
        freeReplyObject(r);
    }
    for (int i = 0; i <= NT; i++) x->t[i] = srv_connect(x->s);
    for (int i = 0; i < NT; i++) tracking_on(x, i);
}

static void side_stop(side *x) {
    for (int i = 0; i < NT; i++) redisFree(x->sub[i]);
    for (int i = 0; i <= NT; i++) redisFree(x->t[i]);
}

/* Runs o on client `who` of both sides; the replies must be the same. */
static void run_both(side *v, side *r, int who, const op *o) {
    char a[TEXT], b[TEXT];
    remember(who, o);
    size_t lens[MAXARGS];
    const char *argv[MAXARGS];
    for (int i = 0; i < o->argc; i++) argv[i] = o->argv[i], lens[i] = strlen(o->argv[i]);
    redisReply *x = redisCommandArgv(v->t[who], o->argc, argv, lens);
    redisReply *y = redisCommandArgv(r->t[who], o->argc, argv, lens);
    ck_assert_msg(x && y, "no reply to %s", o->text);
    h_repr(x, a, sizeof a);
    h_repr(y, b, sizeof b);
    freeReplyObject(x);
    freeReplyObject(y);
    if (strcmp(a, b)) fail_diff("replies", a, b);
}

/* What subscriber i received, up to the reply of a PING sent now. */
static void drain(redisContext *sub, char *out, size_t cap) {
    redisReply *r = NULL;
    size_t n = 0;
    out[0] = '\0';
    redisAppendCommand(sub, "PING");
    for (;;) {
        ck_assert_msg(redisGetReply(sub, (void **)&r) == REDIS_OK && r, "subscriber: %s",
                      sub->errstr);
        int pong = r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                   r->element[0]->type == REDIS_REPLY_STRING && !strcmp(r->element[0]->str, "pong");
        if (!pong && n + 2 < cap) {
            h_repr(r, out + n, cap - n);
            n += strlen(out + n);
            if (n + 2 < cap) out[n++] = ' ', out[n] = '\0';
        }
        freeReplyObject(r);
        if (pong) return;
    }
}

static void compare_messages(side *v, side *r) {
    char a[TEXT], b[TEXT], what[64];
    for (int i = 0; i < NT; i++) {
        drain(v->sub[i], a, sizeof a);
        drain(r->sub[i], b, sizeof b);
        snprintf(what, sizeof what, "messages of client %d (%s)", i,
                 modes[i][0] ? modes[i] : "default");
        if (strcmp(a, b)) fail_diff(what, a, b);
    }
}

/* ---- the generator ---- */

static const char *key(void) { return keys[rnd_below(NKEYS - 1)]; } /* a string key */

static void op_set(op *o, int argc, ...) {
    va_list ap;
    va_start(ap, argc);
    o->argc = argc;
    size_t n = 0;
    o->text[0] = '\0';
    for (int i = 0; i < argc; i++) {
        o->argv[i] = va_arg(ap, const char *);
        int w = snprintf(o->text + n, sizeof o->text - n, "%s%s", i ? " " : "", o->argv[i]);
        if (w > 0 && n + (size_t)w < sizeof o->text) n += (size_t)w;
    }
    va_end(ap);
}

static const char *const vals[] = {"a", "bb", "12", "ccc"};

/* A read: the commands whose keys a tracking client remembers. */
static void gen_read(op *o) {
    switch (rnd_int(8)) {
    case 0: op_set(o, 2, "GET", key()); break;
    case 1: op_set(o, 3, "MGET", key(), key()); break;
    case 2: op_set(o, 2, "STRLEN", key()); break;
    case 3: op_set(o, 2, "EXISTS", key()); break;
    case 4: op_set(o, 3, "HGET", "h0", "f"); break;
    case 5: op_set(o, 4, "EVAL", "return redis.call('get', KEYS[1])", "1", key()); break;
    case 6: /* declares one key, reads another */
        op_set(o, 5, "EVAL", "return redis.call('get', ARGV[1])", "1", key(), key());
        break;
    default: op_set(o, 5, "EVAL_RO", "return redis.call('exists', ARGV[1])", "1", key(), key());
    }
}

static void gen_write(op *o) {
    switch (rnd_int(9)) {
    case 0: op_set(o, 3, "SET", key(), vals[rnd_below(4)]); break;
    case 1: op_set(o, 3, "DEL", key(), key()); break;
    case 2: op_set(o, 3, "APPEND", key(), "x"); break;
    case 3: op_set(o, 4, "HSET", "h0", "f", vals[rnd_below(4)]); break;
    case 4: op_set(o, 3, "EXPIRE", key(), "100000"); break;
    case 5: op_set(o, 2, "INCR", key()); break;
    case 6: op_set(o, 5, "EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", key(), "s");
        break;
    case 7: /* writes a key it does not declare */
        op_set(o, 4, "EVAL", "return redis.call('del', ARGV[1])", "0", key());
        break;
    default: op_set(o, 3, "RENAME", key(), key());
    }
}

static void gen_simple(op *o) {
    if (rnd_int(2)) gen_read(o);
    else gen_write(o);
}

/* One step: a command, a transaction, or a change of the clients. */
static void step(side *v, side *r) {
    int who = rnd_int(NT + 1);
    op o;
    int dice = rnd_int(100);
    if (dice < 8) { /* a transaction */
        op_set(&o, 1, "MULTI");
        run_both(v, r, who, &o);
        for (int n = 1 + rnd_int(3); n > 0; n--) {
            gen_simple(&o);
            run_both(v, r, who, &o);
        }
        op_set(&o, 1, "EXEC");
        run_both(v, r, who, &o);
    } else if (dice < 10) { /* tracking off and on again (REDIRECT and mode kept) */
        who = rnd_int(NT);
        op_set(&o, 3, "CLIENT", "TRACKING", "off");
        run_both(v, r, who, &o);
        op_set(&o, 3, "CLIENT", "TRACKING", "on"); /* for the history only */
        remember(who, &o);
        tracking_on(v, who);
        tracking_on(r, who);
    } else if (dice < 11) {
        op_set(&o, 1, "FLUSHDB");
        run_both(v, r, who, &o);
    } else if (dice < 25) { /* an OPTIN read that is cached */
        op_set(&o, 3, "CLIENT", "CACHING", "yes");
        run_both(v, r, 2, &o);
        gen_read(&o);
        run_both(v, r, 2, &o);
    } else {
        gen_simple(&o);
        run_both(v, r, who, &o);
    }
    compare_messages(v, r);
}

START_TEST(differential) {
    seed = rnd_seed_env("tracking_diff", "TRACKING_DIFF_SEED");
    const char *es = getenv("VERSO_TEST_SCALE"), *en = getenv("TRACKING_DIFF_COMMANDS");
    long scale = es && atol(es) > 0 ? atol(es) : 1;
    long total = en && atol(en) > 0 ? atol(en) : COMMANDS * scale;
    side v, r;
    side_start(&v, 0);
    side_start(&r, 1);
    nhist = 0;
    for (long i = 0; i < total; i++) step(&v, &r);
    side_stop(&v);
    side_stop(&r);
}
END_TEST

int main(void) {
    Suite *s = suite_create("tracking_diff");
    h_add_dropall(s, "differential", differential, 300);
    return h_main(s);
}
