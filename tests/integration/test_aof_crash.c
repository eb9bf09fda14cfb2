/* Integration tests: the AOF's promises under kill -9 and a slow disk,
 * with appendfsync always (test_aof.c has the files: rewrite, damage,
 * interop).
 *
 *  - crash_loop: eight client threads (one hiredis context each) write their
 *    own keys with SET, INCR and APPEND and record every reply; the server
 *    is killed with SIGKILL 50-400 ms into the load (in some rounds while a
 *    BGREWRITEAOF runs), restarted on the same directory (aof-load-truncated
 *    at its default, yes) and every key is checked. Each thread has at most
 *    one command in flight, so after a restart a key must hold its last
 *    acknowledged value or the one its single unacknowledged write gives;
 *    anything else (an acknowledged write lost, a value nobody wrote) fails.
 *    The model then adopts what the server has;
 *  - ack_before_first_base_*: a write acknowledged while the first base of
 *    the AOF is still being written (fsyncs slowed by bench/fsyncdelay.so)
 *    survives kill -9 too, AOF on at startup or by CONFIG SET;
 *  - parking: with the disk stalled, writes past aof-max-backlog are parked
 *    while reads stay fast; on release small writes go before a large one;
 *  - held_replies: a SET's reply waits for its fsync, a GET of that key
 *    from another client waits too, a GET of another key and PING do not;
 *    the same for a key a script writes without declaring it, and a
 *    script's reply waits for the writes in flight;
 *  - config_set_appendonly: turning the AOF on at runtime writes a base,
 *    turning it off stops appending.
 *
 * Every server a test starts is killed by the fixture teardown. */
#include "harness.h"

#include <dirent.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef VERSO_FSYNC_SHIM
#error "build with -DVERSO_FSYNC_SHIM='\"<absolute path of bench/fsyncdelay.so>\"'"
#endif

#define NTHREADS 8
#define NKEYS 40     /* keys of each kind per thread */
#define NKINDS 3     /* s: SET, n: INCR, a: APPEND */
#define ROUNDS 30
#define MAXVAL 64    /* longest SET value / APPEND chunk */

/* ------------------------------------------------------------ fixture */

static void setup(void) {}

static char g_delay[4096];      /* the shim's FSYNC_DELAY_FILE, if any */
static void shim_off(void);

static void teardown(void)
{
    shim_off(); /* in case a start under the shim failed */
    if (g_delay[0])
        unlink(g_delay);
    g_delay[0] = '\0';
    h_srv_drop_all();
}

/* srv_start, remembered so that teardown kills it whatever happens. The
 * first server of a test owns the data dir; later ones are started on it
 * with "--dir" (their own dir only holds their log). */
#define start_srv h_srv_start

/* The next srv_start runs under bench/fsyncdelay.so: FSYNC_DELAY_FILE=file
 * when file is not NULL, else FSYNC_DELAY_US=us. shim_off() restores. */
static void shim_on(const char *file, long us)
{
    char v[32];
    snprintf(v, sizeof v, "%ld", us);
    if (file)
        setenv("FSYNC_DELAY_FILE", file, 1);
    else
        setenv("FSYNC_DELAY_US", v, 1);
    h_preload_on(VERSO_FSYNC_SHIM);
}

static void shim_off(void)
{
    static const char *const vars[] = { "FSYNC_DELAY_US", "FSYNC_DELAY_FILE", NULL };
    h_preload_off(vars);
}

static long long info_int(redisContext *c, const char *field)
{
    return h_info_int(c, "persistence", field);
}

/* Polls INFO persistence until field >= want; fails after timeout_ms
 * (scaled). */
#define wait_info_ge(c, field, want, timeout_ms) \
    (void)h_wait_info_ge(c, "persistence", field, want, timeout_ms)

/* ------------------------------------------------------------- the model */

typedef struct kv {
    char val[4200];     /* acknowledged value */
    size_t len;
    int exists;
    char pend[4200];    /* the value after the unacknowledged write */
    size_t plen;
    int has_pend;
} kv;

typedef struct worker {
    int id;
    redisContext *c;
    kv keys[NKINDS][NKEYS];
    uint64_t rng;
    int *stop;                 /* set by the main thread (atomic) */
    long long acked, sent;
    char error[512];        /* a reply that contradicts the model */
} worker;

static const char kind_char[NKINDS] = { 's', 'n', 'a' };

static uint64_t rnd(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545f4914f6cdd1dULL;
}

static void key_name(char *buf, size_t cap, int kind, int thread, int j)
{
    snprintf(buf, cap, "%c:%d:%d", kind_char[kind], thread, j);
}

/* Fills k->pend with the value the next write gives; returns the chunk
 * to send in *arg (SET value, APPEND chunk), *alen its length. */
static void plan_write(worker *w, int kind, kv *k, char *arg, size_t *alen)
{
    *alen = 0;
    if (kind == 1) { /* INCR */
        long long v = k->exists ? strtoll(k->val, NULL, 10) : 0;
        k->plen = (size_t)snprintf(k->pend, sizeof k->pend, "%lld", v + 1);
    } else {
        size_t n = 1 + rnd(&w->rng) % MAXVAL;
        for (size_t i = 0; i < n; i++)
            arg[i] = (char)(rnd(&w->rng) >> 56); /* any byte, CR LF NUL too */
        *alen = n;
        size_t base = kind == 2 && k->exists ? k->len : 0;
        if (base + n > sizeof k->pend)
            base = 0; /* never reached: APPEND stops at 4000 bytes */
        memcpy(k->pend, k->val, base);
        memcpy(k->pend + base, arg, n);
        k->plen = base + n;
    }
    k->has_pend = 1;
}

/* Whether reply r acknowledges the planned write of k. */
static int reply_ok(int kind, const kv *k, const redisReply *r)
{
    switch (kind) {
    case 0: return r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
    case 1:
        return r->type == REDIS_REPLY_INTEGER &&
               r->integer == strtoll(k->pend, NULL, 10);
    default:
        return r->type == REDIS_REPLY_INTEGER && r->integer == (long long)k->plen;
    }
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    char chunk[MAXVAL], name[64];
    while (!__atomic_load_n(w->stop, __ATOMIC_RELAXED)) {
        int kind = (int)(rnd(&w->rng) % NKINDS);
        int j = (int)(rnd(&w->rng) % NKEYS);
        kv *k = &w->keys[kind][j];
        if (kind == 2 && k->exists && k->len > 4000)
            kind = 0, k = &w->keys[0][j]; /* keep APPEND values bounded */
        size_t alen;
        plan_write(w, kind, k, chunk, &alen);
        key_name(name, sizeof name, kind, w->id, j);
        w->sent++;
        redisReply *r = kind == 1 ? redisCommand(w->c, "INCR %s", name)
                      : kind == 0 ? redisCommand(w->c, "SET %s %b", name, chunk, alen)
                                  : redisCommand(w->c, "APPEND %s %b", name, chunk, alen);
        if (!r)
            break; /* the server died: this write stays pending */
        int ok = reply_ok(kind, k, r);
        if (!ok) {
            char got[256];
            snprintf(w->error, sizeof w->error, "thread %d: write to %s got %s",
                     w->id, name, h_reply_str(r, got, sizeof got));
        }
        freeReplyObject(r);
        if (!ok)
            break;
        memcpy(k->val, k->pend, k->plen);
        k->len = k->plen;
        k->exists = 1;
        k->has_pend = 0;
        w->acked++;
    }
    return NULL;
}

/* A reply for a message: values are binary, so a length and hex bytes. */
static const char *describe(const redisReply *r, char *buf, size_t cap)
{
    if (r->type != REDIS_REPLY_STRING)
        return h_reply_str(r, buf, cap);
    int n = snprintf(buf, cap, "a %zu-byte value (", r->len);
    for (size_t i = 0; i < r->len && i < 16 && n > 0 && (size_t)n + 4 < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%02x", (unsigned char)r->str[i]);
    if (n > 0 && (size_t)n + 5 < cap)
        snprintf(buf + n, cap - (size_t)n, "%s)", r->len > 16 ? "..." : "");
    return buf;
}

typedef struct totals {
    long long acked, pending_kept, pending_lost;
} totals;

/* Every key of w against the server; the model adopts a pending write the
 * server kept. */
static void verify_worker(redisContext *c, worker *w, int round, totals *t)
{
    char name[64];
    for (int kind = 0; kind < NKINDS; kind++)
        for (int j = 0; j < NKEYS; j++) {
            key_name(name, sizeof name, kind, w->id, j);
            redisAppendCommand(c, "GET %s", name);
        }
    for (int kind = 0; kind < NKINDS; kind++)
        for (int j = 0; j < NKEYS; j++) {
            kv *k = &w->keys[kind][j];
            redisReply *r = NULL;
            key_name(name, sizeof name, kind, w->id, j);
            ck_assert_msg(redisGetReply(c, (void **)&r) == REDIS_OK && r,
                          "round %d: GET %s: no reply", round, name);
            int is_nil = r->type == REDIS_REPLY_NIL;
            int is_str = r->type == REDIS_REPLY_STRING;
            int acked = k->exists ? is_str && r->len == k->len &&
                                        !memcmp(r->str, k->val, k->len)
                                  : is_nil;
            int pend = k->has_pend && is_str && r->len == k->plen &&
                       !memcmp(r->str, k->pend, k->plen);
            char got[256];
            ck_assert_msg(acked || pend,
                          "round %d: %s is %s; want the acknowledged %s (%zu bytes)%s",
                          round, name, describe(r, got, sizeof got),
                          k->exists ? "value" : "nothing", k->len,
                          k->has_pend ? " or the pending write's" : "");
            if (pend && !acked) {
                memcpy(k->val, k->pend, k->plen);
                k->len = k->plen;
                k->exists = 1;
            }
            if (k->has_pend)
                *(pend ? &t->pending_kept : &t->pending_lost) += 1;
            k->has_pend = 0;
            freeReplyObject(r);
        }
}

/* ------------------------------------------------ 1: crash loop (always) */

static srv *restart(const srv *owner)
{
    return start_srv("--dir '%s' --appendonly yes --appendfsync always", owner->dir);
}

/* One round of load on s, killed after kill_ms; a BGREWRITEAOF is sent
 * at rewrite_ms when >= 0. */
static void load_and_kill(srv *s, worker *ws, int kill_ms, int rewrite_ms, int round)
{
    static int stop; /* static: threads may outlive a failed test's frame */
    stop = 0;
    pthread_t tid[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        ws[i].c = srv_connect(s);
        ws[i].stop = &stop;
        ws[i].error[0] = '\0';
    }
    redisContext *admin = srv_connect(s);
    long long t0 = h_now_ms();
    for (int i = 0; i < NTHREADS; i++)
        ck_assert_int_eq(pthread_create(&tid[i], NULL, worker_main, &ws[i]), 0);
    char rw[256] = "";
    if (rewrite_ms >= 0) {
        h_sleep_ms(rewrite_ms);
        redisReply *r = redisCommand(admin, "BGREWRITEAOF");
        int ok = r && (r->type == REDIS_REPLY_STATUS ||
                       (r->type == REDIS_REPLY_ERROR && strstr(r->str, "in progress")));
        if (!ok)
            h_reply_str(r, rw, sizeof rw);
        freeReplyObject(r);
    }
    long long left = t0 + kill_ms - h_now_ms();
    if (left > 0)
        h_sleep_ms((int)left);
    srv_kill9(s);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(tid[i], NULL);
    for (int i = 0; i < NTHREADS; i++) {
        redisFree(ws[i].c);
        ws[i].c = NULL;
        ck_assert_msg(ws[i].error[0] == '\0', "round %d: %s", round, ws[i].error);
    }
    redisFree(admin);
    ck_assert_msg(rw[0] == '\0', "round %d: BGREWRITEAOF: %s", round, rw);
}

START_TEST(crash_loop)
{
    long long start = h_now_ms();
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    srand(seed);
    fprintf(stderr, "crash_loop: seed %u\n", seed);
    worker *ws = calloc(NTHREADS, sizeof *ws);
    ck_assert_ptr_nonnull(ws);
    for (int i = 0; i < NTHREADS; i++) {
        ws[i].id = i;
        ws[i].rng = UINT64_C(0x9e3779b97f4a7c15) * (uint64_t)(i + 1) ^ seed;
    }
    srv *owner = start_srv("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(owner);
    redisReply *cfg = cmd(c, "CONFIG GET aof-load-truncated");
    ck_assert_int_eq(cfg->type, REDIS_REPLY_ARRAY);
    ck_assert_str_eq(cfg->element[1]->str, "yes"); /* the default */
    freeReplyObject(cfg);
    wait_info_ge(c, "aof_rewrites", 1, 10000); /* the first base is on disk */
    redisFree(c);

    totals t = { 0, 0, 0 };
    srv *s = owner;
    int rewrites = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        int kill_ms = 50 + rand() % 351;
        /* every third round a BGREWRITEAOF: at a random moment, or just
         * before the kill (to catch the base being written) */
        int rewrite_ms = round % 3 ? -1 : round % 2 ? rand() % kill_ms : kill_ms - 2;
        rewrites += rewrite_ms >= 0;
        load_and_kill(s, ws, kill_ms, rewrite_ms, round);
        s = restart(owner);
        c = srv_connect(s);
        ck_assert_int_eq(info_int(c, "aof_enabled"), 1);
        for (int i = 0; i < NTHREADS; i++)
            verify_worker(c, &ws[i], round, &t);
        redisFree(c);
    }
    for (int i = 0; i < NTHREADS; i++)
        t.acked += ws[i].acked;
    /* The load must have been real for the check to mean anything. */
    ck_assert_int_gt(t.acked, 1000);
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/appendonlydir", owner->dir);
    int nfiles = 0;
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        nfiles += e->d_name[0] != '.';
    closedir(d);
    fprintf(stderr, "crash_loop: %d files left in appendonlydir\n", nfiles);
    fprintf(stderr,
            "crash_loop: %d kills (%d after a BGREWRITEAOF), %lld acknowledged writes "
            "all kept; unacknowledged at the kill: %lld kept, %lld lost; %.1f s\n",
            ROUNDS, rewrites, t.acked, t.pending_kept, t.pending_lost,
            (double)(h_now_ms() - start) / 1000.0);
    free(ws);
}
END_TEST

/* ------------------- acknowledged while the first base is being written */

/* fsyncs take 300 ms, so the first base (temp file fsync, rename, manifest
 * fsync) is still being written when the SET's own fsync completes and it
 * is acknowledged. The write must survive kill -9 all the same. */
static void ack_before_first_base(int at_startup)
{
    shim_on(NULL, 300000);
    srv *owner = start_srv(at_startup ? "--appendonly yes --appendfsync always"
                                      : "--appendonly no --appendfsync always");
    shim_off();
    redisContext *c = srv_connect(owner);
    if (!at_startup)
        expect_status(c, "OK", "CONFIG SET appendonly yes");
    long long t0 = h_now_ms();
    expect_status(c, "OK", "SET durable yes");
    long long took = h_now_ms() - t0;
    long long rewrites = info_int(c, "aof_rewrites");
    srv_kill9(owner);
    redisFree(c);
    fprintf(stderr, "ack_before_first_base(%s): SET took %lld ms, aof_rewrites %lld "
            "at the kill\n", at_startup ? "startup" : "CONFIG SET", took, rewrites);
    srv *s = restart(owner);
    c = srv_connect(s);
    redisReply *r = cmd(c, "GET durable");
    char got[256];
    ck_assert_msg(r->type == REDIS_REPLY_STRING && !strcmp(r->str, "yes"),
                  "a SET acknowledged (after %lld ms) while the first base was still "
                  "being written (aof_rewrites %lld) is lost after kill -9: GET gives %s",
                  took, rewrites, h_reply_str(r, got, sizeof got));
    freeReplyObject(r);
    redisFree(c);
}

START_TEST(ack_before_first_base_startup) { ack_before_first_base(1); }
END_TEST

START_TEST(ack_before_first_base_config_set) { ack_before_first_base(0); }
END_TEST

/* ------------------------------------------------- files of the AOF */

static void put_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "open %s", path);
    ck_assert_int_ge(fputs(text, f), 0);
    ck_assert_int_eq(fclose(f), 0);
}

static char *slurp(const char *path, size_t *len) { return h_slurp(path, len, 1); }

/* The manifest of s's data dir: *nbase base lines, *nincr incr lines, the
 * last incr's path into incr. 0 when there is no manifest. */
static int manifest(const srv *s, int *nbase, int *nincr, char *incr, size_t cap)
{
    char path[4096], line[1100], name[256];
    snprintf(path, sizeof path, "%s/appendonlydir/appendonly.aof.manifest", s->dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    *nbase = *nincr = 0;
    while (fgets(line, sizeof line, f)) {
        long long seq;
        char type;
        ck_assert_msg(sscanf(line, "file %255s seq %lld type %c", name, &seq, &type) == 3,
                      "manifest line '%s'", line);
        *nbase += type == 'b';
        *nincr += type == 'i';
        if (type == 'i')
            snprintf(incr, cap, "%s/appendonlydir/%s", s->dir, name);
    }
    fclose(f);
    return 1;
}

/* The current INCR file's content. */
static char *read_incr(const srv *s, size_t *len)
{
    char incr[4096];
    int nb, ni;
    ck_assert_int_eq(manifest(s, &nb, &ni, incr, sizeof incr), 1);
    ck_assert_int_ge(ni, 1);
    return slurp(incr, len);
}

/* Sends a command without waiting for its reply. */
static void send_only(redisContext *c, const char *fmt, const char *arg)
{
    redisAppendCommand(c, fmt, arg);
    int done = 0;
    while (!done)
        ck_assert_int_eq(redisBufferWrite(c, &done), REDIS_OK);
}

static redisReply *reply_of(redisContext *c)
{
    redisReply *r = NULL;
    ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
    ck_assert_ptr_nonnull(r);
    return r;
}

/* ----------------------------------- 5: parking with a stalled disk */

#define NSMALL 16
#define BIG (1024 * 1024)

/* One client sending its commands (pipelined) and reading the replies. */
typedef struct sender {
    redisContext *c;
    char *cmds[16];
    size_t lens[16];
    int n;
    int ok;             /* every reply was +OK */
    long long done_ms;  /* when the last reply arrived */
    pthread_t tid;
} sender;

static void sender_add(sender *s, const char *key, const char *val, size_t len)
{
    ck_assert_int_lt(s->n, 16);
    int n = redisFormatCommand(&s->cmds[s->n], "SET %s %b", key, val, len);
    ck_assert_int_gt(n, 0);
    s->lens[s->n++] = (size_t)n;
}

static void *sender_main(void *arg)
{
    sender *s = arg;
    for (int i = 0; i < s->n; i++)
        redisAppendFormattedCommand(s->c, s->cmds[i], s->lens[i]);
    s->ok = 1;
    for (int i = 0; i < s->n; i++) {
        redisReply *r = NULL;
        if (redisGetReply(s->c, (void **)&r) != REDIS_OK || !r) {
            s->ok = 0;
            break;
        }
        s->ok &= r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK");
        freeReplyObject(r);
    }
    s->done_ms = h_now_ms();
    return NULL;
}

static void sender_go(sender *s)
{
    ck_assert_int_eq(pthread_create(&s->tid, NULL, sender_main, s), 0);
}

static void sender_end(sender *s)
{
    pthread_join(s->tid, NULL);
    redisFree(s->c);
    for (int i = 0; i < s->n; i++)
        redisFreeCommand(s->cmds[i]);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

/* GET of an unrelated key and PING, 10 times each: the slowest in ms. */
static long long slowest_read(redisContext *c)
{
    long long worst = 0;
    for (int i = 0; i < 10; i++) {
        long long t = h_now_ms();
        expect_bulk(c, "quick", "GET other");
        long long t2 = h_now_ms();
        expect_status(c, "PONG", "PING");
        long long t3 = h_now_ms();
        worst = t2 - t > worst ? t2 - t : worst;
        worst = t3 - t2 > worst ? t3 - t2 : worst;
        h_sleep_ms(20);
    }
    return worst;
}

/* The disk stalls (2 s per fsync): a filler client's pipeline of 8 KB SETs
 * passes aof-max-backlog (64 KB) and is parked, then NSMALL/2 clients'
 * 100-byte SETs, one client's 1 MB SET and NSMALL/2 more small SETs are
 * parked behind it, in that order. Reads on another
 * connection stay fast. On release, the order in which parked writes are
 * resumed is the order in which they are appended to the AOF: every small
 * SET must be there before the big one (their scores differ ~10^4 times, so
 * aging cannot reorder them), and the replies say the same (median small
 * completion <= big completion). */
/* A server under the shim, its delay read from g_delay (now 0). */
static srv *start_stallable(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(g_delay, sizeof g_delay, "%s/verso-fsyncdelay.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(g_delay);
    ck_assert_int_ge(fd, 0);
    close(fd);
    put_text(g_delay, "0\n");
    shim_on(g_delay, 0);
    srv *s = start_srv("--appendonly yes --appendfsync always --aof-max-backlog 64kb");
    shim_off();
    return s;
}

static sender g_fill, g_big, g_small[NSMALL];

/* Connects the senders and formats their SETs. */
static void make_senders(const srv *s)
{
    static char val[BIG];
    memset(val, 'x', sizeof val);
    memset(&g_fill, 0, sizeof g_fill);
    memset(&g_big, 0, sizeof g_big);
    memset(g_small, 0, sizeof g_small);
    char key[32];
    g_fill.c = srv_connect(s);
    for (int i = 0; i < 12; i++) {
        snprintf(key, sizeof key, "fill:%d", i);
        sender_add(&g_fill, key, val, 8192);
    }
    g_big.c = srv_connect(s);
    sender_add(&g_big, "parkBIG", val, BIG);
    for (int i = 0; i < NSMALL; i++) {
        g_small[i].c = srv_connect(s);
        snprintf(key, sizeof key, "parkS:%02d", i);
        sender_add(&g_small[i], key, val, 100);
    }
}

/* Stalls the disk and parks every sender; returns the connection whose
 * SET started the stalled fsync (its reply still to read). */
static redisContext *park_all(const srv *s, redisContext *c)
{
    put_text(g_delay, "2000000\n");
    h_sleep_ms(250); /* the shim re-reads the file at most every 100 ms */
    /* One SET starts the stalled fsync; until it ends, the writer thread
     * writes nothing, so what follows piles up as backlog. */
    redisContext *t = srv_connect(s);
    send_only(t, "SET stall %s", "1");
    wait_info_ge(c, "aof_pending_bio_fsync", 1, 1500);
    sender_go(&g_fill);
    wait_info_ge(c, "aof_parked_clients", 1, 1500);
    /* Half the small SETs park before the big one and half after, so that
     * neither first-come nor last-come order passes for smallest-first. */
    for (int i = 0; i < NSMALL / 2; i++)
        sender_go(&g_small[i]);
    wait_info_ge(c, "aof_parked_clients", 1 + NSMALL / 2, 1500);
    sender_go(&g_big);
    wait_info_ge(c, "aof_parked_clients", 2 + NSMALL / 2, 1500);
    for (int i = NSMALL / 2; i < NSMALL; i++)
        sender_go(&g_small[i]);
    wait_info_ge(c, "aof_parked_clients", 2 + NSMALL, 1500);
    ck_assert_int_gt(info_int(c, "aof_backlog_bytes"), 64 * 1024);
    return t;
}

/* Every small SET is in the AOF before the big one. */
static void check_aof_order(const srv *s)
{
    size_t len;
    char key[32], *aof = read_incr(s, &len);
    char *bigat = memmem(aof, len, "parkBIG", 7);
    ck_assert_ptr_nonnull(bigat);
    for (int i = 0; i < NSMALL; i++) {
        snprintf(key, sizeof key, "parkS:%02d", i);
        char *at = memmem(aof, len, key, strlen(key));
        ck_assert_msg(at && at < bigat, "%s is %s the AOF", key,
                      at ? "after the 1 MB SET in" : "missing from");
    }
    free(aof);
}

START_TEST(parking)
{
    srv *s = start_stallable();
    redisContext *c = srv_connect(s);
    wait_info_ge(c, "aof_rewrites", 1, 10000);
    expect_status(c, "OK", "SET other quick");
    long long parked_before = info_int(c, "aof_parked_total");
    make_senders(s);
    redisContext *t = park_all(s, c);
    long long worst = slowest_read(c);
    /* writes wait for a 2 s fsync; reads must not (the bound is scaled for
     * sanitizers and stays far below the fsync) */
    ck_assert_msg(worst < h_scaled_ms(50), "a read took %lld ms while writes were parked", worst);
    ck_assert_int_eq(info_int(c, "aof_parked_clients"), 2 + NSMALL); /* still stalled */

    long long release = h_now_ms(), done[NSMALL];
    put_text(g_delay, "0\n");
    sender_end(&g_fill);
    sender_end(&g_big);
    for (int i = 0; i < NSMALL; i++) {
        sender_end(&g_small[i]);
        ck_assert_msg(g_small[i].ok, "small SET %d failed", i);
        done[i] = g_small[i].done_ms;
    }
    ck_assert(g_fill.ok && g_big.ok);
    redisReply *r = reply_of(t);
    ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
    freeReplyObject(r);
    redisFree(t);
    qsort(done, NSMALL, sizeof *done, cmp_ll);
    fprintf(stderr, "parking: reads <= %lld ms while parked; after the release, small "
            "SETs done at %lld..%lld ms (median %lld), the 1 MB SET at %lld ms\n", worst,
            done[0] - release, done[NSMALL - 1] - release, done[NSMALL / 2] - release,
            g_big.done_ms - release);
    /* Replies under `always` go out per fsync batch, so writes resumed
     * together answer within the same millisecond or so in any order: the
     * order they ran in is the AOF's (check_aof_order); the reply times
     * only must not put the small ones behind the big one by a batch. */
    ck_assert_int_le(done[NSMALL / 2], g_big.done_ms + h_scaled_ms(50));
    check_aof_order(s);
    ck_assert_int_eq(info_int(c, "aof_parked_clients"), 0);
    ck_assert_int_ge(info_int(c, "aof_parked_total") - parked_before, 2 + NSMALL);
    expect_int(c, BIG, "STRLEN parkBIG");
    expect_int(c, 8192, "STRLEN fill:11");
    expect_int(c, 100, "STRLEN parkS:%02d", NSMALL - 1);
    redisFree(c);
}
END_TEST

/* Scripts that may write are parked like writes while the backlog is full
 * (a stalled disk must not let EVAL grow it without bound); a read-only
 * script is not. */
START_TEST(parking_scripts)
{
    srv *s = start_stallable();
    redisContext *c = srv_connect(s);
    wait_info_ge(c, "aof_rewrites", 1, 10000);
    long long parked_before = info_int(c, "aof_parked_total");
    put_text(g_delay, "2000000\n");
    h_sleep_ms(250); /* the shim re-reads the file at most every 100 ms */
    redisContext *t = srv_connect(s);
    send_only(t, "SET stall %s", "1");
    wait_info_ge(c, "aof_pending_bio_fsync", 1, 1500);
    redisContext *f = srv_connect(s);
    char *val = malloc(8192);
    ck_assert_ptr_nonnull(val);
    memset(val, 'f', 8191);
    val[8191] = '\0';
    for (int i = 0; i < 20; i++) /* 160 KB: past aof-max-backlog (64 KB) */
        ck_assert_int_eq(redisAppendCommand(f, "SET fill:%d %s", i, val), REDIS_OK);
    int done = 0;
    while (!done) ck_assert_int_eq(redisBufferWrite(f, &done), REDIS_OK);
    free(val);
    wait_info_ge(c, "aof_parked_clients", 1, 1500);
    redisContext *e = srv_connect(s);
    send_only(e, "EVAL %s 0", "return redis.call('SET', 'byscript', 'x')");
    wait_info_ge(c, "aof_parked_clients", 2, 1500);
    expect_int(c, 1, "EVAL_RO %s 0", "return 1"); /* not parked */
    put_text(g_delay, "0\n");
    for (int i = 0; i < 20; i++) {
        redisReply *r = reply_of(f);
        ck_assert_int_eq(r->type, REDIS_REPLY_STATUS);
        freeReplyObject(r);
    }
    redisReply *r = reply_of(e);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && !strcmp(r->str, "OK"), "EVAL failed");
    freeReplyObject(r);
    r = reply_of(t);
    freeReplyObject(r);
    expect_bulk(c, "x", "GET byscript");
    ck_assert_int_ge(info_int(c, "aof_parked_total") - parked_before, 2);
    redisFree(e);
    redisFree(f);
    redisFree(t);
    redisFree(c);
}
END_TEST

/* ------------------------------------- 6: held replies under always */

/* fsyncs take F = 200 ms (scaled by h_time_scale(), as every bound below
 * is a fraction of F: under a sanitizer both the fsync and the server are
 * slower). A's SET is answered after its fsync; C's GET of the same key,
 * sent once the SET ran (aof_inflight_keys 1), waits for the same fsync and
 * sees the new value; B's GET of another key and PING do not wait (well
 * under F). */
START_TEST(held_replies)
{
    const long long F = h_scaled_ms(200);
    shim_on(NULL, F * 1000);
    srv *s = start_srv("--appendonly yes --appendfsync always");
    shim_off();
    redisContext *a = srv_connect(s), *b = srv_connect(s), *c = srv_connect(s);
    wait_info_ge(b, "aof_rewrites", 1, 20000);
    expect_status(b, "OK", "SET other quick");
    expect_status(b, "OK", "SET held old");

    long long t0 = h_now_ms();
    send_only(a, "SET held %s", "new");
    while (info_int(b, "aof_inflight_keys") == 0 && h_now_ms() - t0 < F * 3 / 4) {
    }
    long long tc = h_now_ms();
    send_only(c, "GET %s", "held");
    long long tb = h_now_ms();
    expect_bulk(b, "quick", "GET other");
    expect_status(b, "PONG", "PING");
    long long b_ms = h_now_ms() - tb;
    /* C's reply first: its time is its own, not A's */
    redisReply *rc = reply_of(c);
    long long c_done = h_now_ms();
    redisReply *ra = reply_of(a);
    long long a_done = h_now_ms();
    ck_assert_msg(ra->type == REDIS_REPLY_STATUS && !strcmp(ra->str, "OK"), "SET failed");
    check_bulk(rc, "new");
    freeReplyObject(ra);
    freeReplyObject(rc);
    fprintf(stderr, "held_replies: SET %lld ms; GET of it (sent %lld ms later) %lld ms; "
            "GET of another key + PING %lld ms\n", a_done - t0, tc - t0, c_done - tc, b_ms);
    ck_assert_int_ge(a_done - t0, F - 10);
    ck_assert_int_lt(b_ms, F / 4);
    ck_assert_int_ge(c_done - t0, F - 20); /* not before the SET's fsync */
    redisFree(a);
    redisFree(b);
    redisFree(c);
}
END_TEST

/* Scripts under always, with the same F: a key a script writes without
 * declaring it (numkeys 0) is in flight like any other, so a GET of it
 * waits for the script's fsync; and a script's reply waits for the writes in
 * flight, since it may read keys it did not declare. */
/* Until commandstats shows `stat` (the command sent on another connection
 * ran), at most 3/4 F after t0. */
static void wait_ran(redisContext *b, const char *stat, long long t0, long long F)
{
    for (;;) {
        char *info = h_info(b, "commandstats");
        int ran = strstr(info, stat) != NULL;
        free(info);
        if (ran || h_now_ms() - t0 >= F * 3 / 4) return;
    }
}

START_TEST(held_replies_scripts)
{
    const long long F = h_scaled_ms(200);
    shim_on(NULL, F * 1000);
    srv *s = start_srv("--appendonly yes --appendfsync always");
    shim_off();
    redisContext *a = srv_connect(s), *b = srv_connect(s), *c = srv_connect(s);
    wait_info_ge(b, "aof_rewrites", 1, 20000);
    expect_status(b, "OK", "SET held old");

    /* a script's undeclared write, then a GET of it: C's reply is read
     * first, so its time is its own */
    long long t0 = h_now_ms();
    send_only(a, "EVAL %s 0", "return redis.call('SET', 'held', 'new')");
    wait_ran(b, "cmdstat_eval:calls=1,", t0, F);
    long long tc = h_now_ms();
    send_only(c, "GET %s", "held");
    redisReply *rc = reply_of(c);
    long long c_done = h_now_ms();
    redisReply *ra = reply_of(a);
    ck_assert_msg(ra->type == REDIS_REPLY_STATUS && !strcmp(ra->str, "OK"), "EVAL failed");
    check_bulk(rc, "new");
    freeReplyObject(ra);
    freeReplyObject(rc);
    fprintf(stderr, "held_replies_scripts: GET of the script's key (sent %lld ms after the "
            "EVAL) answered %lld ms after it\n", tc - t0, c_done - t0);
    ck_assert_int_ge(c_done - t0, F - 20); /* not before the script's fsync */

    /* a write, then a script reading it */
    t0 = h_now_ms();
    send_only(a, "SET read-by-script %s", "fresh");
    wait_ran(b, "cmdstat_set:calls=2,", t0, F);
    send_only(c, "EVAL_RO %s 0", "return redis.call('GET', 'read-by-script')");
    rc = reply_of(c);
    c_done = h_now_ms();
    ra = reply_of(a);
    check_bulk(rc, "fresh");
    freeReplyObject(ra);
    freeReplyObject(rc);
    ck_assert_int_ge(c_done - t0, F - 20); /* not before the SET's fsync */
    redisFree(a);
    redisFree(b);
    redisFree(c);
}
END_TEST

/* ------------------------------ 7: CONFIG SET appendonly at runtime */

START_TEST(config_set_appendonly)
{
    srv *s = start_srv("--appendonly no --appendfsync always");
    redisContext *c = srv_connect(s);
    for (int i = 0; i < 100; i++)
        expect_status(c, "OK", "SET pre:%d %d", i, i);
    int nb, ni;
    char incr[4096];
    ck_assert_int_eq(manifest(s, &nb, &ni, incr, sizeof incr), 0);
    expect_status(c, "OK", "CONFIG SET appendonly yes");
    wait_info_ge(c, "aof_rewrites", 1, 20000);
    ck_assert_int_eq(info_int(c, "aof_enabled"), 1);
    ck_assert_int_eq(manifest(s, &nb, &ni, incr, sizeof incr), 1);
    ck_assert_msg(nb == 1 && ni == 1, "manifest: %d bases, %d incrs", nb, ni);
    ck_assert_int_gt(info_int(c, "aof_base_size"), 100 * 5);
    for (int i = 0; i < 50; i++)
        expect_status(c, "OK", "SET post:%d %d", i, i);
    size_t len;
    char *aof = read_incr(s, &len);
    ck_assert_ptr_nonnull(memmem(aof, len, "post:49", 7));
    free(aof);

    expect_status(c, "OK", "CONFIG SET appendonly no");
    ck_assert_int_eq(info_int(c, "aof_enabled"), 0);
    expect_status(c, "OK", "SET off:1 x");
    h_sleep_ms(100);
    aof = read_incr(s, &len);
    ck_assert_ptr_null(memmem(aof, len, "off:1", 5));
    free(aof);
    srv_kill9(s);
    redisFree(c);

    srv *s2 = restart(s);
    c = srv_connect(s2);
    expect_int(c, 150, "DBSIZE");
    expect_bulk(c, "99", "GET pre:99");
    expect_bulk(c, "49", "GET post:49");
    expect_nil(c, "GET off:1");
    redisFree(c);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *s = suite_create("aof_crash");
    TCase *tc = tcase_create("crash");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 240);
    tcase_add_test(tc, crash_loop);
    tcase_add_test(tc, ack_before_first_base_startup);
    tcase_add_test(tc, ack_before_first_base_config_set);
    tcase_add_test(tc, parking);
    tcase_add_test(tc, parking_scripts);
    tcase_add_test(tc, held_replies);
    tcase_add_test(tc, held_replies_scripts);
    tcase_add_test(tc, config_set_appendonly);
    suite_add_tcase(s, tc);
    return h_main(s);
}
