/* Integration tests: snapshots of a real verso-server. A forkless and a fork
 * BGSAVE under a storm of writes give exactly the state at the moment BGSAVE
 * answered (checked key by key after a restart); FLUSHALL/FLUSHDB abort a
 * save cleanly; BGSAVE/BGSAVE SCHEDULE/LASTSAVE answer as Redis; a failed
 * save reports err and gates writes (MISCONF); a damaged or truncated dump
 * stops startup with file and offset and is left untouched; kill -9 during a
 * save keeps the previous dump; SHUTDOWN/SIGTERM save when they should;
 * keys expired by load time are skipped and counted.
 *
 * Sizes scale with $VERSO_TEST_SCALE (a factor, default 1: 200k keys for
 * the point-in-time tests; the program takes ~15 s, ~30 s with the server
 * under ASan). Every server a test starts is killed by the fixture
 * teardown, also when the test fails. */
#include "harness.h"
#include "testrand.h"

#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include <lz4frame.h>

#define NDB 16

/* An assertion for hot loops: ck_assert records every passing check as a
 * message to the runner, which costs seconds over 400k keys. */
#define REQUIRE(cond, ...)                \
    do {                                  \
        if (!(cond))                      \
            ck_abort_msg(__VA_ARGS__);    \
    } while (0)

/* ------------------------------------------------------------ fixture */

#define start_srv h_srv_start /* remembered: teardown kills it */

/* ------------------------------------------------------------- helpers */

static double test_scale(void)
{
    const char *s = getenv("VERSO_TEST_SCALE");
    double v = s && *s ? atof(s) : 1.0;
    return v > 0 ? v : 1.0;
}

static int scaled(int n)
{
    int v = (int)(n * test_scale());
    return v < 1 ? 1 : v;
}

static long long wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


/* Random binary bytes (NULs, CR/LF included), length in [lo, hi]. */
static size_t rnd_val(char *buf, size_t lo, size_t hi)
{
    size_t len = lo + rnd_below(hi - lo + 1);
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(rnd() >> 56);
    return len;
}

static char *slurp(const char *path, size_t *len) { return h_slurp(path, len, 0); }

static void put_file(const char *path, const char *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static const char *dump_of(const srv *s, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/dump.rdb", s->dir);
    return buf;
}

/* Files named temp-* in dir (a save's temp files). */
static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, "temp-", 5) == 0;
    closedir(d);
    return n;
}

static long long pinfo(redisContext *c, const char *field)
{
    return h_info_int(c, "persistence", field);
}

/* The field is want now (no waiting). */
#define expect_pinfo_str(c, field, want) h_wait_info_str(c, "persistence", field, want, 0)

#define wait_save_done(c, timeout_ms) \
    (void)h_wait_info(c, "persistence", "rdb_bgsave_in_progress", 0, timeout_ms)

/* Reads one pipelined reply; fails on I/O error. */
static redisReply *get_reply(redisContext *c)
{
    redisReply *r = NULL;
    REQUIRE(redisGetReply(c, (void **)&r) == REDIS_OK && r, "no reply: %s",
            c->errstr);
    return r;
}

/* SHUTDOWN NOSAVE (or the given variant), frees c, waits for a clean exit. */
static void shutdown_srv(srv *s, redisContext *c, const char *how)
{
    redisReply *r = redisCommand(c, how);
    if (r)
        freeReplyObject(r); /* only an error would come back */
    redisFree(c);
    ck_assert_msg(srv_wait_exit(s, 20000), "server did not exit on %s", how);
    ck_assert_msg(WIFEXITED(s->exit_status) && WEXITSTATUS(s->exit_status) == 0,
                  "%s: wait status 0x%x", how, s->exit_status);
}

/* A fresh server on the data dir of an earlier one. */
static srv *restart_on(const srv *old, const char *extra)
{
    return start_srv("--dir '%s' --dbfilename dump.rdb %s", old->dir,
                     extra ? extra : "");
}

/* ----------------------------------------------- model: keys at a moment */

typedef struct kv {
    char *key, *val;
    size_t klen, vlen;
    long long expire; /* unix ms, -1 none */
} kv;

typedef struct kvset {
    kv *e;
    size_t n, cap;
} kvset;

typedef struct model {
    kvset db[NDB];
} model;

static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

static char *dup_bytes(const char *p, size_t n)
{
    char *d = malloc(n + 1);
    REQUIRE(d != NULL, "out of memory");
    memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

static void kvset_add(kvset *s, const redisReply *k, const redisReply *v,
                      long long expire)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 1024;
        s->e = realloc(s->e, s->cap * sizeof *s->e);
        ck_assert_ptr_nonnull(s->e);
    }
    kv *e = &s->e[s->n++];
    e->key = dup_bytes(k->str, k->len);
    e->klen = k->len;
    e->val = dup_bytes(v->str, v->len);
    e->vlen = v->len;
    e->expire = expire;
}

static void model_free(model *m)
{
    for (int d = 0; d < NDB; d++) {
        for (size_t i = 0; i < m->db[d].n; i++) {
            free(m->db[d].e[i].key);
            free(m->db[d].e[i].val);
        }
        free(m->db[d].e);
    }
    memset(m, 0, sizeof *m);
}

static size_t model_size(const model *m)
{
    size_t n = 0;
    for (int d = 0; d < NDB; d++)
        n += m->db[d].n;
    return n;
}

/* GET + PEXPIRETIME of each key, pipelined. A key gone in between
 * (expired) is left out. */
static void read_values(redisContext *c, kvset *s, redisReply **keys, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        redisAppendCommand(c, "GET %b", keys[i]->str, keys[i]->len);
        redisAppendCommand(c, "PEXPIRETIME %b", keys[i]->str, keys[i]->len);
    }
    for (size_t i = 0; i < n; i++) {
        redisReply *v = get_reply(c), *t = get_reply(c);
        REQUIRE(v->type == REDIS_REPLY_STRING || v->type == REDIS_REPLY_NIL,
                "GET %s: type %d", keys[i]->str, v->type);
        REQUIRE(t->type == REDIS_REPLY_INTEGER, "PEXPIRETIME %s: type %d",
                keys[i]->str, t->type);
        if (v->type == REDIS_REPLY_STRING && t->integer != -2)
            kvset_add(s, keys[i], v, t->integer);
        freeReplyObject(v);
        freeReplyObject(t);
    }
}

static void read_db(redisContext *c, int db, kvset *s)
{
    expect_status(c, "OK", "SELECT %d", db);
    char cursor[64] = "0";
    do {
        redisReply *r = expect_array(c, 2, "SCAN %s COUNT 1000", cursor);
        ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_STRING);
        snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
        read_values(c, s, r->element[1]->element, r->element[1]->elements);
        freeReplyObject(r);
    } while (strcmp(cursor, "0") != 0);
    if (s->n > 1)
        qsort(s->e, s->n, sizeof *s->e, kv_cmp);
    size_t o = 0; /* SCAN may repeat a key: keep one */
    for (size_t i = 0; i < s->n; i++) {
        if (o > 0 && kv_cmp(&s->e[o - 1], &s->e[i]) == 0) {
            free(s->e[i].key);
            free(s->e[i].val);
            continue;
        }
        s->e[o++] = s->e[i];
    }
    s->n = o;
}

/* Every key, value and absolute expire of every database. */
static void read_model(redisContext *c, model *m)
{
    memset(m, 0, sizeof *m);
    for (int d = 0; d < NDB; d++)
        read_db(c, d, &m->db[d]);
    expect_status(c, "OK", "SELECT 0");
}

static void fail_key(int db, const kv *e, const char *what)
{
    ck_abort_msg("db %d key '%.*s' (%zu bytes): %s", db,
                 (int)(e->klen > 80 ? 80 : e->klen), e->key, e->klen, what);
}

static void compare_kv(int db, const kv *w, const kv *g)
{
    char msg[256];
    if (w->vlen != g->vlen || memcmp(w->val, g->val, w->vlen) != 0) {
        snprintf(msg, sizeof msg, "value differs: want %zu bytes '%.40s', got %zu "
                 "bytes '%.40s'", w->vlen, w->val, g->vlen, g->val);
        fail_key(db, w, msg);
    }
    if (w->expire != g->expire) {
        snprintf(msg, sizeof msg, "expire differs: want %lld, got %lld",
                 w->expire, g->expire);
        fail_key(db, w, msg);
    }
}

/* got must equal want, except keys of want whose expire is <= now, which
 * may be missing. Returns how many such keys were missing. */
static size_t compare_models(const model *want, const model *got, long long now)
{
    size_t gone = 0;
    for (int d = 0; d < NDB; d++) {
        const kvset *w = &want->db[d], *g = &got->db[d];
        size_t i = 0, j = 0;
        while (i < w->n || j < g->n) {
            int c = i == w->n ? 1 : j == g->n ? -1 : kv_cmp(&w->e[i], &g->e[j]);
            if (c == 0) {
                compare_kv(d, &w->e[i++], &g->e[j++]);
            } else if (c < 0) {
                if (w->e[i].expire < 0 || w->e[i].expire > now)
                    fail_key(d, &w->e[i], "missing after restore");
                gone++;
                i++;
            } else {
                fail_key(d, &g->e[j], "restored but not in the state at BGSAVE");
            }
        }
    }
    return gone;
}

/* ------------------------------------------------- filling the dataset */

/* Per database: DEBUG POPULATE keys p<db>:<i> of psize bytes, and keys
 * r<db>:<i> random binary values, i<db>:<i> integers, t<db>:<i> long TTLs,
 * s<db>:<i> TTLs of 1.5-5 s (some expire during the test). */
typedef struct fillspec {
    int db, pop, psize, rnd, ints, ttl, shortttl;
} fillspec;

static fillspec g_fill[3];

static void fill_spec_scale(void)
{
    static const fillspec full[3] = {
        { 0, 100000, 200, 25000, 5000, 10000, 2000 },
        { 1, 30000, 150, 8000, 2000, 3000, 1000 },
        { 3, 10000, 300, 2500, 500, 1000, 500 },
    };
    for (int i = 0; i < 3; i++) {
        g_fill[i] = full[i];
        g_fill[i].pop = scaled(full[i].pop);
        g_fill[i].rnd = scaled(full[i].rnd);
        g_fill[i].ints = scaled(full[i].ints);
        g_fill[i].ttl = scaled(full[i].ttl);
        g_fill[i].shortttl = scaled(full[i].shortttl);
    }
}

static const char *const g_ints[] = {
    "0", "-1", "7", "-42", "1000000", "9223372036854775807",
    "-9223372036854775808", "123456789012", "007", "-0", "+5", " 12",
};

static void drain(redisContext *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        redisReply *r = get_reply(c);
        REQUIRE(r->type != REDIS_REPLY_ERROR, "fill: %s", r->str);
        freeReplyObject(r);
    }
}

static void fill_db(redisContext *c, const fillspec *f)
{
    char val[512];
    expect_status(c, "OK", "SELECT %d", f->db);
    expect_status(c, "OK", "DEBUG POPULATE %d p%d %d", f->pop, f->db, f->psize);
    for (int i = 0; i < f->rnd; i++) {
        size_t n = rnd_val(val, 100, 300);
        redisAppendCommand(c, "SET r%d:%d %b", f->db, i, val, n);
    }
    for (int i = 0; i < f->ints; i++) {
        const char *v = i % 3 ? g_ints[rnd_below(sizeof g_ints / sizeof *g_ints)] : "5";
        redisAppendCommand(c, "SET i%d:%d %s", f->db, i, v);
    }
    for (int i = 0; i < f->ttl; i++) {
        size_t n = rnd_val(val, 20, 200);
        redisAppendCommand(c, "SET t%d:%d %b PX %d", f->db, i, val, n,
                           3600000 + (int)rnd_below(3600000));
    }
    for (int i = 0; i < f->shortttl; i++)
        redisAppendCommand(c, "SET s%d:%d v%d PX %d", f->db, i, i,
                           1500 + (int)rnd_below(3500));
    drain(c, (size_t)(f->rnd + f->ints + f->ttl + f->shortttl));
}

static void fill_all(redisContext *c)
{
    fill_spec_scale();
    for (int i = 0; i < 3; i++)
        fill_db(c, &g_fill[i]);
    expect_status(c, "OK", "SELECT 0");
}

/* ------------------------------------------------------------- hammer */

typedef struct hammer {
    long long sent_writes;     /* write commands sent so far */
    long long overlap_writes;  /* writes sent before the last INFO that still
                                  saw the save running */
    long long newkeys;
    int rounds;
} hammer;

/* An existing key name of the filled dataset in database f->db. */
static int pick_key(const fillspec *f, char *buf, size_t cap)
{
    switch (rnd_below(5)) {
    case 0: return snprintf(buf, cap, "r%d:%zu", f->db, rnd_below((size_t)f->rnd));
    case 1: return snprintf(buf, cap, "t%d:%zu", f->db, rnd_below((size_t)f->ttl));
    case 2: return snprintf(buf, cap, "s%d:%zu", f->db, rnd_below((size_t)f->shortttl));
    case 3: return snprintf(buf, cap, "i%d:%zu", f->db, rnd_below((size_t)f->ints));
    default: return snprintf(buf, cap, "p%d:%zu", f->db, rnd_below((size_t)f->pop));
    }
}

/* Appends one random write to database f->db. */
static void hammer_one(redisContext *h, hammer *hs, const fillspec *f)
{
    char k[64], k2[64], val[256];
    pick_key(f, k, sizeof k);
    unsigned op = (unsigned)rnd_below(100);
    size_t n = rnd_val(val, 10, 200);
    if (op < 30) {          /* new keys: splits */
        redisAppendCommand(h, "SET n%d:%lld %b", f->db, hs->newkeys++, val, n);
    } else if (op < 45) {
        redisAppendCommand(h, "SET %s %b", k, val, n);
    } else if (op < 52) {
        redisAppendCommand(h, "DEL %s", k);
    } else if (op < 59) {
        redisAppendCommand(h, "APPEND %s %b", k, val, n);
    } else if (op < 66) {
        redisAppendCommand(h, "INCR i%d:%d", f->db, (int)rnd_below((size_t)f->ints));
    } else if (op < 71) {
        redisAppendCommand(h, "EXPIRE %s %d", k, 100000 + (int)rnd_below(1000));
    } else if (op < 77) {   /* expires while the save runs */
        redisAppendCommand(h, "PEXPIRE %s %d", k, 1 + (int)rnd_below(50));
    } else if (op < 83) {
        redisAppendCommand(h, "PERSIST t%d:%d", f->db, (int)rnd_below((size_t)f->ttl));
    } else if (op < 89) {   /* short-lived new keys */
        redisAppendCommand(h, "SET e%d:%lld v PX %d", f->db, hs->newkeys++,
                           1 + (int)rnd_below(100));
    } else if (op < 93) {
        redisAppendCommand(h, "SETRANGE %s 3 %b", k, val, (size_t)5);
    } else if (op < 96) {
        pick_key(f, k2, sizeof k2);
        redisAppendCommand(h, "MSET %s %b %s x", k, val, n, k2);
    } else {
        redisAppendCommand(h, "RENAME %s m%d:%lld", k, f->db, hs->newkeys++);
    }
    hs->sent_writes++;
}

/* One pipelined round of writes over the three databases, then INFO.
 * Returns rdb_bgsave_in_progress as that INFO saw it. */
static int hammer_round(redisContext *h, hammer *hs, int per_db)
{
    size_t cmds = 0;
    for (int i = 0; i < 3; i++) {
        redisAppendCommand(h, "SELECT %d", g_fill[i].db);
        for (int j = 0; j < per_db; j++)
            hammer_one(h, hs, &g_fill[i]);
        cmds += (size_t)per_db + 1;
    }
    redisAppendCommand(h, "INFO persistence");
    for (size_t i = 0; i < cmds; i++)
        freeReplyObject(get_reply(h)); /* errors (INCR on text...) are fine */
    redisReply *r = get_reply(h);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    char v[32];
    ck_assert(h_info_field(r->str, "rdb_bgsave_in_progress", v, sizeof v));
    freeReplyObject(r);
    hs->rounds++;
    if (atoi(v) == 1)
        hs->overlap_writes = hs->sent_writes;
    return atoi(v);
}

/* ------------------------------------- 1, 2: point-in-time under writes */

/* INFO after the save under writes; returns the memory the save held
 * (forkless: peak of retained pre-images; fork: the child's COW size). */
static long long check_save_info(redisContext *c, const char *method,
                                 const model *want, long long saves,
                                 const hammer *hs)
{
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    expect_pinfo_str(c, "rdb_last_bgsave_type", method);
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves + 1);
    long long saved = pinfo(c, "rdb_last_save_keys");
    long long n = (long long)model_size(want);
    ck_assert_msg(saved <= n && saved >= n - scaled(3500),
                  "rdb_last_save_keys %lld, %lld keys before BGSAVE", saved, n);
    if (strcmp(method, "fork") == 0) {
        ck_assert_int_eq(pinfo(c, "total_forks"), 1);
        long long cow = pinfo(c, "rdb_last_cow_size");
        ck_assert_msg(cow > 0, "fork save under writes reports no COW");
        return cow;
    }
    long long peak = pinfo(c, "forkless_peak_retained_bytes");
    ck_assert_msg(hs->overlap_writes < 1000 || peak > 0,
                  "forkless save retained nothing under %lld writes",
                  hs->overlap_writes);
    return peak;
}

static void point_in_time(const char *method)
{
    long long t0 = h_now_ms();
    rnd_seed(UINT64_C(0x5eed0000) + (uint64_t)(method[1]));
    srv *s = start_srv("--bgsave-method %s --snapshot-compression lz4", method);
    redisContext *c = srv_connect(s);
    fill_all(c);
    model want;
    read_model(c, &want);
    ck_assert_uint_ge(model_size(&want), (size_t)scaled(195000));
    long long saves = pinfo(c, "rdb_saves");
    long long t_fill = h_now_ms();

    redisContext *h = srv_connect(s);
    expect_status(c, "Background saving started", "BGSAVE");
    hammer hs = { 0 };
    long long deadline = h_now_ms() + 60000;
    while (hammer_round(h, &hs, 300) != 0)
        ck_assert_msg(h_now_ms() < deadline, "save did not end within 60 s");
    long long t_save = h_now_ms();

    ck_assert_msg(hs.overlap_writes > 0,
                  "no write overlapped the save (%d rounds): test proves nothing",
                  hs.rounds);
    long long retained = check_save_info(c, method, &want, saves, &hs);
    redisFree(h);
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");

    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    model got;
    read_model(c2, &got);
    size_t gone = compare_models(&want, &got, wall_ms());
    printf("point-in-time %s: %zu keys at BGSAVE, %lld writes overlapped the save "
           "(%lld sent, %d rounds), %zu expired since, retained/COW %lld B; "
           "fill+model %lld ms, save %lld ms, total %lld ms\n",
           method, model_size(&want), hs.overlap_writes, hs.sent_writes, hs.rounds,
           gone, retained, t_fill - t0, t_save - t_fill, h_now_ms() - t0);
    model_free(&want);
    model_free(&got);
    redisFree(c2);
}

START_TEST(point_in_time_forkless) { point_in_time("forkless"); }
END_TEST

START_TEST(point_in_time_fork) { point_in_time("fork"); }
END_TEST

/* cluster-enabled yes: the tables place keys by slot (vt.h's per-slot
 * index); a save under writes is still the state at BGSAVE, and the dump
 * loads back into slotted tables (every key found where its hash puts it). */
START_TEST(point_in_time_cluster_mode)
{
    const int n = 50000;
    srv *s = start_srv("--cluster-enabled yes --rdb-key-save-delay 20");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE %d", n);
    redisReply *d = h_cmd(__FILE__, __LINE__, c, "DEBUG DIGEST");
    ck_assert_int_eq(d->type, REDIS_REPLY_STATUS);
    char digest[64];
    snprintf(digest, sizeof digest, "%s", d->str); /* the state at BGSAVE */
    freeReplyObject(d);
    /* lookups by key (DEBUG DIGEST-VALUE, which a slotless node serves):
     * the load put the keys where the slotted hash finds them */
    const char *probe = "DEBUG DIGEST-VALUE key:0 key:1 key:7 key:14 key:49999 nokey";
    redisReply *pv = expect_array(c, 6, probe);
    expect_status(c, "Background saving started", "BGSAVE");
    for (int i = 0; i < n; i += 7) {
        if (i % 3 == 0) h_send(c, "DEL key:%d", i);
        else h_send(c, "SET key:%d changed", i);
        h_send(c, "SET fresh:%d x", i);
    }
    for (int i = 0; i < n; i += 7) {
        freeReplyObject(h_next_reply(c));
        freeReplyObject(h_next_reply(c));
    }
    ck_assert_int_eq(pinfo(c, "rdb_bgsave_in_progress"), 1); /* they overlapped */
    wait_save_done(c, 30000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");

    srv *s2 = restart_on(s, "--cluster-enabled yes");
    redisContext *c2 = srv_connect(s2);
    expect_int(c2, n, "DBSIZE");
    /* (no GET: a node that serves no slot answers CLUSTERDOWN) */
    expect_status(c2, digest, "DEBUG DIGEST");
    redisReply *pv2 = expect_array(c2, 6, probe);
    for (size_t i = 0; i < 6; i++) ck_assert_str_eq(pv2->element[i]->str, pv->element[i]->str);
    ck_assert_str_ne(pv->element[0]->str, pv->element[5]->str); /* key:0 found */
    freeReplyObject(pv);
    freeReplyObject(pv2);
    redisFree(c2);
}
END_TEST

/* ------------------------------------ 3: FLUSHALL/FLUSHDB abort a save */

/* BGSAVE, INFO and `flush` in one pipeline: the flush runs while the save
 * certainly runs (INFO shows it). */
static void bgsave_then_flush(redisContext *c, const char *flush)
{
    redisAppendCommand(c, "BGSAVE");
    redisAppendCommand(c, "INFO persistence");
    redisAppendCommand(c, flush);
    redisReply *r = get_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS &&
                  strcmp(r->str, "Background saving started") == 0,
                  "BGSAVE: type %d '%s'", r->type, r->str ? r->str : "");
    freeReplyObject(r);
    r = get_reply(c);
    char v[32];
    ck_assert(r->type == REDIS_REPLY_STRING &&
              h_info_field(r->str, "rdb_bgsave_in_progress", v, sizeof v));
    ck_assert_msg(strcmp(v, "1") == 0, "the save ended before %s", flush);
    freeReplyObject(r);
    r = get_reply(c);
    ck_assert_msg(r->type == REDIS_REPLY_STATUS && strcmp(r->str, "OK") == 0,
                  "%s: type %d", flush, r->type);
    freeReplyObject(r);
}

/* The save ended, not as a failure, and left the old dump alone. */
static void check_aborted(const srv *s, redisContext *c, const char *dump0,
                          size_t len0, long long saves)
{
    char path[4096];
    wait_save_done(c, 20000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves);
    size_t len = 0;
    char *now = slurp(dump_of(s, path, sizeof path), &len);
    ck_assert_msg(now && len == len0 && memcmp(now, dump0, len) == 0,
                  "dump.rdb changed by an aborted save");
    free(now);
    ck_assert_int_eq(count_temp_files(s->dir), 0);
}

static void flush_aborts(const char *method)
{
    char path[4096];
    srv *s = start_srv("--bgsave-method %s --snapshot-compression lz4", method);
    redisContext *c = srv_connect(s);
    int n = scaled(200000);
    expect_status(c, "OK", "DEBUG POPULATE %d a 100", n);
    expect_status(c, "OK", "SELECT 1");
    expect_status(c, "OK", "DEBUG POPULATE %d b 100", n / 4);
    expect_status(c, "OK", "SAVE");
    long long saves = pinfo(c, "rdb_saves");
    size_t len0;
    char *dump0 = slurp(dump_of(s, path, sizeof path), &len0);
    ck_assert_ptr_nonnull(dump0);

    /* FLUSHDB of db 1 (the connection's database) */
    bgsave_then_flush(c, "FLUSHDB");
    check_aborted(s, c, dump0, len0, saves);
    expect_int(c, 0, "DBSIZE");
    expect_status(c, "OK", "SELECT 0");
    expect_int(c, n, "DBSIZE");

    /* FLUSHALL */
    bgsave_then_flush(c, "FLUSHALL");
    check_aborted(s, c, dump0, len0, saves);
    ck_assert(srv_log_wait(s, "bort", 2000));
    expect_int(c, 0, "DBSIZE");

    /* the server serves on and saves again */
    expect_status(c, "OK", "SET after flush");
    expect_bulk(c, "flush", "GET after");
    expect_status(c, "Background saving started", "BGSAVE");
    wait_save_done(c, 20000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves + 1);
    ck_assert_int_eq(pinfo(c, "rdb_last_save_keys"), 1);
    free(dump0);
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");
    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    expect_int(c2, 1, "DBSIZE");
    expect_bulk(c2, "flush", "GET after");
    redisFree(c2);
}

START_TEST(flush_aborts_forkless) { flush_aborts("forkless"); }
END_TEST

START_TEST(flush_aborts_fork) { flush_aborts("fork"); }
END_TEST

/* ------------------------------ 4: BGSAVE twice, SCHEDULE and LASTSAVE */

START_TEST(bgsave_busy_schedule_lastsave)
{
    srv *s = start_srv("--snapshot-compression lz4");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE %d k 200", scaled(200000));
    redisReply *r = cmd(c, "LASTSAVE");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    long long last0 = r->integer;
    freeReplyObject(r);
    long long saves = pinfo(c, "rdb_saves");
    h_sleep_ms(1100); /* LASTSAVE counts seconds */

    redisAppendCommand(c, "BGSAVE");
    redisAppendCommand(c, "BGSAVE");
    redisAppendCommand(c, "SAVE");
    redisAppendCommand(c, "BGSAVE SCHEDULE");
    redisAppendCommand(c, "INFO persistence");
    const char *want[4] = { "Background saving started",
                            "ERR Background save already in progress",
                            "ERR Background save already in progress",
                            "Background saving scheduled" };
    for (int i = 0; i < 4; i++) {
        r = get_reply(c);
        ck_assert_msg((r->type == REDIS_REPLY_STATUS || r->type == REDIS_REPLY_ERROR) &&
                      strcmp(r->str, want[i]) == 0,
                      "reply %d: want '%s', got type %d '%s'", i, want[i], r->type,
                      r->str ? r->str : "");
        freeReplyObject(r);
    }
    r = get_reply(c);
    ck_assert_ptr_nonnull(strstr(r->str, "rdb_bgsave_in_progress:1"));
    freeReplyObject(r);

    /* the scheduled save follows the first one */
    long long end = h_now_ms() + 30000;
    while (pinfo(c, "rdb_saves") < saves + 2 || pinfo(c, "rdb_bgsave_in_progress")) {
        ck_assert_msg(h_now_ms() < end, "scheduled save did not happen");
        h_sleep_ms(10);
    }
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves + 2);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    r = cmd(c, "LASTSAVE");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    ck_assert_int_gt(r->integer, last0);
    freeReplyObject(r);

    /* with no save running, SCHEDULE starts one at once */
    expect_status(c, "Background saving started", "BGSAVE SCHEDULE");
    wait_save_done(c, 20000);
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves + 3);
    expect_error_prefix(c, "ERR", "BGSAVE NOW");
    redisFree(c);
}
END_TEST

/* The save queue's order (doc/design.md, "The save queue"): while a BGSAVE
 * runs, BGSAVE SCHEDULE and then BGREWRITEAOF both wait; when it ends the
 * AOF rewrite's base goes first, then the scheduled BGSAVE (the base's
 * save has ended by then; its manifest may still be on its way). */
START_TEST(queue_order_rewrite_then_bgsave)
{
    srv *s = start_srv("--appendonly yes --rdb-key-save-delay 1000");
    redisContext *c = srv_connect(s);
    h_wait_info(c, "persistence", "aof_rewrite_in_progress", 0, 20000);
    expect_status(c, "OK", "DEBUG POPULATE 500 k");
    long long saves = pinfo(c, "rdb_saves");
    expect_status(c, "Background saving started", "BGSAVE");
    expect_status(c, "Background saving scheduled", "BGSAVE SCHEDULE");
    expect_status(c, "Background append only file rewriting scheduled", "BGREWRITEAOF");
    ck_assert_int_eq(pinfo(c, "aof_rewrite_scheduled"), 1);
    ck_assert_int_eq(pinfo(c, "rdb_bgsave_in_progress"), 1);
    long long end = h_now_ms() + 30000;
    while (pinfo(c, "rdb_saves") < saves + 2 || pinfo(c, "rdb_bgsave_in_progress") ||
           pinfo(c, "aof_rewrite_scheduled") || pinfo(c, "aof_rewrite_in_progress")) {
        ck_assert_msg(h_now_ms() < end, "the queued saves did not run");
        h_sleep_ms(20);
    }
    char *log = srv_log_read(s);
    const char *first = strstr(log, "Background saving (forkless) terminated with success");
    const char *base = first ? strstr(first, "AOF base write started") : NULL;
    const char *second = base ? strstr(base, "Background saving started") : NULL;
    ck_assert_msg(second, "want BGSAVE, AOF base, scheduled BGSAVE in that order:\n%s", log);
    free(log);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    expect_pinfo_str(c, "aof_last_bgrewrite_status", "ok");

    /* while an AOF base is written, BGSAVE answers as Redis's does */
    expect_status(c, "Background append only file rewriting started", "BGREWRITEAOF");
    expect_error(c, "ERR An AOF log rewriting in progress: can't BGSAVE right now. Use "
                    "BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.",
                 "BGSAVE");
    ck_assert_int_eq(pinfo(c, "rdb_bgsave_in_progress"), 0);
    expect_status(c, "Background saving scheduled", "BGSAVE SCHEDULE");
    end = h_now_ms() + 30000;
    while (pinfo(c, "rdb_saves") < saves + 3 || pinfo(c, "rdb_bgsave_in_progress")) {
        ck_assert_msg(h_now_ms() < end, "the scheduled save did not run");
        h_sleep_ms(20);
    }
    redisFree(c);
}
END_TEST

/* ------------------------------------------- 5: a failing background save */

static void obstacle(const srv *s, long long pid, const char *suffix, int make)
{
    char dir[4096], inner[4200];
    snprintf(dir, sizeof dir, "%s/temp-%lld%s.rdb", s->dir, pid, suffix);
    snprintf(inner, sizeof inner, "%s/x", dir);
    if (make) {
        ck_assert_int_eq(mkdir(dir, 0755), 0);
        put_file(inner, "x", 1);
    } else {
        ck_assert_int_eq(unlink(inner), 0);
        ck_assert_int_eq(rmdir(dir), 0);
    }
}

static void save_fails(const char *method)
{
    char path[4096];
    srv *s = start_srv("--save 3600 1 --stop-writes-on-bgsave-error yes "
                       "--bgsave-method %s", method);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE 1000 k");
    expect_status(c, "OK", "SAVE");
    size_t len0;
    char *dump0 = slurp(dump_of(s, path, sizeof path), &len0);
    ck_assert_ptr_nonnull(dump0);
    long long pid = h_info_int(c, "server", "process_id");
    const char *suffix = strcmp(method, "fork") == 0 ? "-fork" : "-forkless";

    obstacle(s, pid, suffix, 1);
    expect_status(c, "OK", "SET k:1 changed");
    expect_status(c, "Background saving started", "BGSAVE");
    wait_save_done(c, 20000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "err");
    expect_error_prefix(c, "MISCONF", "SET k:2 changed");
    expect_error_prefix(c, "MISCONF", "DEL k:3");
    expect_bulk(c, "changed", "GET k:1");          /* reads go on */
    expect_bulk(c, "value:2", "GET k:2");
    obstacle(s, pid, "", 1);                       /* SAVE's temp file */
    expect_error_prefix(c, "ERR", "SAVE");
    obstacle(s, pid, "", 0);
    size_t len;
    char *dump = slurp(path, &len);
    ck_assert_msg(dump && len == len0 && memcmp(dump, dump0, len) == 0,
                  "a failed save changed dump.rdb");
    free(dump);

    obstacle(s, pid, suffix, 0);
    expect_status(c, "Background saving started", "BGSAVE");
    wait_save_done(c, 20000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    expect_status(c, "OK", "SET k:2 changed");
    ck_assert_int_eq(count_temp_files(s->dir), 0);
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");
    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    expect_int(c2, 1000, "DBSIZE");
    expect_bulk(c2, "changed", "GET k:1");
    expect_bulk(c2, "value:2", "GET k:2"); /* set after the save */
    redisFree(c2);
    free(dump0);
}

START_TEST(failed_save_forkless) { save_fails("forkless"); }
END_TEST

START_TEST(failed_save_fork) { save_fails("fork"); }
END_TEST

/* ------------------------------ 6: a damaged snapshot refuses to start */

/* The plain bytes of an LZ4 frame (NULL when it does not decode). */
static unsigned char *lz4_plain(const char *z, size_t zlen, size_t *out)
{
    LZ4F_dctx *dctx;
    if (LZ4F_isError(LZ4F_createDecompressionContext(&dctx, LZ4F_VERSION))) return NULL;
    size_t cap = 1 << 20, len = 0, pos = 0;
    unsigned char *p = malloc(cap);
    for (;;) {
        if (cap - len < (1 << 16)) p = realloc(p, cap *= 2);
        size_t dst = cap - len, src = zlen - pos;
        size_t rc = LZ4F_decompress(dctx, p + len, &dst, z + pos, &src, NULL);
        len += dst;
        pos += src;
        if (LZ4F_isError(rc)) { free(p); p = NULL; break; }
        if (rc == 0) break;                      /* the frame ended */
        if (src == 0 && dst == 0) { free(p); p = NULL; break; }  /* cut short */
    }
    LZ4F_freeDecompressionContext(dctx);
    *out = len;
    return p;
}

/* Flips a byte at or after `from` that changes what the file holds. In an
 * LZ4 frame some bytes do not (a match offset pointing at an identical
 * run): flipping one leaves the same snapshot, which must load; the first
 * flip whose frame decodes differently, or not at all, is kept. */
static void flip_damaging(char *dump, size_t len, size_t from, int lz4)
{
    size_t plen = 0, qlen = 0;
    unsigned char *plain = lz4 ? lz4_plain(dump, len, &plen) : NULL;
    ck_assert(!lz4 || plain);
    for (size_t at = from; at < len; at++) {
        dump[at] ^= 0x5a;
        if (!lz4) return;
        unsigned char *q = lz4_plain(dump, len, &qlen);
        int same = q && qlen == plen && memcmp(q, plain, plen) == 0;
        free(q);
        if (!same) { free(plain); return; }
        dump[at] ^= 0x5a;
    }
    ck_abort_msg("no byte of the LZ4 frame changes the snapshot");
}

static void damaged_dump(const char *compression, int truncate)
{
    char path[4096], val[512];
    srv *s = start_srv("--snapshot-compression %s", compression);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE %d k 50", scaled(20000));
    for (int i = 0; i < 2000; i++) {
        size_t n = rnd_val(val, 50, 400);
        redisAppendCommand(c, "SET r:%d %b PX 3600000", i, val, n);
    }
    drain(c, 2000);
    expect_status(c, "OK", "SAVE");
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");
    size_t len;
    char *dump = slurp(dump_of(s, path, sizeof path), &len);
    ck_assert_ptr_nonnull(dump);
    ck_assert_uint_gt(len, 10000);
    if (truncate)
        len /= 2;
    else
        flip_damaging(dump, len, len / 2, !strcmp(compression, "lz4"));
    put_file(path, dump, len);

    char port[16], *out = NULL;
    snprintf(port, sizeof port, "%d", h_free_port());
    const char *argv[] = { srv_binary(), "--port", port, "--bind", "127.0.0.1",
                           "--dir", s->dir, "--dbfilename", "dump.rdb",
                           "--save", "", NULL };
    int st = h_run(NULL, &out, 30000, argv);
    ck_assert_msg(st != -1, "server still running on a damaged dump: %s", out);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0,
                  "server did not fail on a damaged dump (status 0x%x): %s", st, out);
    ck_assert_msg(strstr(out, "dump.rdb") && strstr(out, "offset"),
                  "message names no file/offset: %s", out);
    size_t len2;
    char *after = slurp(path, &len2);
    ck_assert_msg(after && len2 == len && memcmp(after, dump, len) == 0,
                  "the damaged dump was changed");
    free(after);
    free(dump);
    free(out);
}

START_TEST(damaged_dump_flipped_lz4) { damaged_dump("lz4", 0); }
END_TEST

START_TEST(damaged_dump_flipped_plain) { damaged_dump("none", 0); }
END_TEST

START_TEST(damaged_dump_truncated_lz4) { damaged_dump("lz4", 1); }
END_TEST

START_TEST(damaged_dump_truncated_plain) { damaged_dump("none", 1); }
END_TEST

/* ------------------------- 7: kill -9 during a save keeps the old dump */

START_TEST(kill9_during_bgsave)
{
    char path[4096];
    srv *s = start_srv("--snapshot-compression none");
    redisContext *c = srv_connect(s);
    int na = scaled(100000);
    expect_status(c, "OK", "DEBUG POPULATE %d a", na);
    expect_status(c, "OK", "SET t:1 v PX 3600000");
    expect_status(c, "OK", "SAVE");
    size_t len0;
    char *dump0 = slurp(dump_of(s, path, sizeof path), &len0);
    ck_assert_ptr_nonnull(dump0);
    /* a new state, big enough for a save of a few hundred ms */
    expect_status(c, "OK", "DEBUG POPULATE %d b 500", scaled(200000));
    expect_status(c, "OK", "SET a:1 changed");
    expect_int(c, 1, "DEL a:2");
    expect_status(c, "Background saving started", "BGSAVE");
    long long end = h_now_ms() + 20000;
    while (pinfo(c, "current_save_keys_processed") == 0) {
        ck_assert_msg(pinfo(c, "rdb_bgsave_in_progress") == 1,
                      "save ended before it could be killed");
        ck_assert(h_now_ms() < end);
    }
    srv_kill9(s);
    redisFree(c);
    ck_assert_msg(WIFSIGNALED(s->exit_status), "server was not killed");
    ck_assert_int_ge(count_temp_files(s->dir), 1); /* the torn temp file */
    size_t len;
    char *dump = slurp(path, &len);
    ck_assert_msg(dump && len == len0 && memcmp(dump, dump0, len) == 0,
                  "dump.rdb changed by a killed save");

    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    expect_int(c2, na + 1, "DBSIZE");
    ck_assert_int_eq(pinfo(c2, "rdb_last_load_keys_loaded"), na + 1);
    expect_bulk(c2, "value:1", "GET a:1");
    expect_bulk(c2, "value:2", "GET a:2");
    expect_bulk(c2, "value:0", "GET a:0");
    expect_int(c2, 0, "EXISTS b:0");
    expect_int_range(c2, 3500000, 3600000, "PTTL t:1");
    for (int i = 0; i < 200; i++) {
        int k = (int)rnd_below((size_t)na);
        char want[32];
        snprintf(want, sizeof want, "value:%d", k);
        if (k != 1)
            expect_bulk(c2, want, "GET a:%d", k);
    }
    free(dump0);
    free(dump);
    redisFree(c2);
}
END_TEST

/* ------------------------------------- 8: SHUTDOWN and SIGTERM saving */

/* Starts a server with `extra`, writes two keys, ends it with `how` (a
 * command, or "SIGTERM"); returns whether it left a dump that holds them. */
static int ends_with_dump(const char *extra, const char *how)
{
    char path[4096];
    srv *s = start_srv("%s", extra);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "SET k1 v1");
    expect_status(c, "OK", "SET k2 v2 PX 3600000");
    if (strcmp(how, "SIGTERM") == 0) {
        redisFree(c);
        ck_assert_int_eq(kill(s->pid, SIGTERM), 0);
        ck_assert(srv_wait_exit(s, 20000));
        ck_assert(WIFEXITED(s->exit_status) && WEXITSTATUS(s->exit_status) == 0);
    } else {
        shutdown_srv(s, c, how);
    }
    if (access(dump_of(s, path, sizeof path), F_OK) != 0)
        return 0;
    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    expect_int(c2, 2, "DBSIZE");
    expect_bulk(c2, "v1", "GET k1");
    expect_int_range(c2, 3500000, 3600000, "PTTL k2");
    redisFree(c2);
    return 1;
}

START_TEST(shutdown_saves_when_it_should)
{
    ck_assert_msg(ends_with_dump("--save 3600 1", "SHUTDOWN"),
                  "SHUTDOWN with save points did not save");
    ck_assert_msg(!ends_with_dump("--save 3600 1", "SHUTDOWN NOSAVE"),
                  "SHUTDOWN NOSAVE saved");
    ck_assert_msg(ends_with_dump("--save 3600 1", "SIGTERM"),
                  "SIGTERM with save points did not save");
    ck_assert_msg(!ends_with_dump("", "SHUTDOWN"),
                  "SHUTDOWN without save points saved");
    ck_assert_msg(ends_with_dump("", "SHUTDOWN SAVE"),
                  "SHUTDOWN SAVE did not save");
}
END_TEST

/* -------------------------------- 9: keys expired by load time are skipped */

START_TEST(expired_keys_skipped_at_load)
{
    srv *s = start_srv("--snapshot-compression lz4");
    redisContext *c = srv_connect(s);
    for (int db = 0; db < 2; db++) {
        expect_status(c, "OK", "SELECT %d", db);
        for (int i = 0; i < 25; i++)
            expect_status(c, "OK", "SET x:%d v PX %d", i, h_scaled_ms(400)); /* until SAVE */
        for (int i = 0; i < 50; i++)
            expect_status(c, "OK", "SET keep:%d v%d", i, i);
        for (int i = 0; i < 10; i++)
            expect_status(c, "OK", "SET later:%d w PX 3600000", i);
    }
    expect_status(c, "OK", "SAVE");
    shutdown_srv(s, c, "SHUTDOWN NOSAVE");
    h_sleep_ms(h_scaled_ms(600)); /* every x:* has expired */
    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    ck_assert_int_eq(pinfo(c2, "rdb_last_load_keys_expired"), 50);
    ck_assert_int_eq(pinfo(c2, "rdb_last_load_keys_loaded"), 120);
    for (int db = 0; db < 2; db++) {
        expect_status(c2, "OK", "SELECT %d", db);
        expect_int(c2, 60, "DBSIZE");
        expect_int(c2, 0, "EXISTS x:0 x:7 x:24");
        expect_bulk(c2, "v49", "GET keep:49");
        expect_int_range(c2, 3500000, 3600000, "PTTL later:9");
    }
    redisFree(c2);
}
END_TEST

/* ------------------------------- 10: FLUSHALL with save points saves at once */

START_TEST(flushall_saves_with_save_points)
{
    /* As Redis: with save points, FLUSHALL writes the empty dataset at once,
     * also when it aborts a running forkless save, so that a crash right
     * after it cannot bring the flushed keys back. */
    srv *s = start_srv("--save 3600 1");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE 200000 k 100");
    expect_status(c, "OK", "SAVE");
    redisReply *r = redisCommand(c, "BGSAVE");
    ck_assert(r && r->type == REDIS_REPLY_STATUS);
    freeReplyObject(r);
    expect_status(c, "OK", "FLUSHALL");
    expect_status(c, "OK", "SET after flush");
    long long deadline = h_now_ms() + 10000;
    while (pinfo(c, "rdb_bgsave_in_progress") != 0 && h_now_ms() < deadline)
        h_sleep_ms(10);
    redisFree(c);
    srv_kill9(s);
    srv *s2 = restart_on(s, NULL);
    redisContext *c2 = srv_connect(s2);
    /* The flushed keys are gone; the SET after FLUSHALL may be in the
     * dump (the save after an aborted forkless save runs when it ends). */
    expect_int(c2, 0, "EXISTS k:0 k:1 k:199999");
    redisReply *n = redisCommand(c2, "DBSIZE");
    ck_assert(n && n->type == REDIS_REPLY_INTEGER && n->integer <= 1);
    freeReplyObject(n);
    redisFree(c2);
}
END_TEST

/* ------------------------------- 6: the serializer thread cannot start */

#ifndef VERSO_THREADFAIL_SHIM
#error "VERSO_THREADFAIL_SHIM comes from tests/lib/test_paths.h (Makefile.am writes it)"
#endif

/* pthread_create fails (tests/integration/threadfail.so, while a file
 * exists): BGSAVE answers the error, the server goes on serving with
 * nothing of the failed job left behind, and once threads start again a
 * BGSAVE succeeds. Freed memory is filled (MALLOC_PERTURB_, or ASan's
 * max_free_fill_size), so that libuv (not instrumented) touching a handle
 * in freed memory crashes the server instead of reading stale bytes. */
START_TEST(serializer_thread_fails)
{
    char flag[4096], asan[2048];
    snprintf(flag, sizeof flag, "/tmp/verso-threadfail-%d", (int)getpid());
    unlink(flag);
    setenv("THREADFAIL_FILE", flag, 1);
    setenv("MALLOC_PERTURB_", "165", 1);
    h_preload_on(VERSO_THREADFAIL_SHIM);
    snprintf(asan, sizeof asan, "%s:max_free_fill_size=1048576", getenv("ASAN_OPTIONS"));
    setenv("ASAN_OPTIONS", asan, 1);
    srv *s = start_srv("--bgsave-method forkless");
    static const char *const vars[] = { "THREADFAIL_FILE", "MALLOC_PERTURB_", NULL };
    h_preload_off(vars);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE 1000 k");
    long long saves = pinfo(c, "rdb_saves");
    FILE *f = fopen(flag, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    for (int i = 0; i < 3; i++) {
        redisReply *r = cmd(c, "BGSAVE");
        ck_assert_msg(r->type == REDIS_REPLY_ERROR &&
                      strstr(r->str, "Can't start the serializer thread"),
                      "BGSAVE %d: type %d '%s'", i, r->type, r->str ? r->str : "");
        freeReplyObject(r);
        ck_assert_int_eq(pinfo(c, "rdb_bgsave_in_progress"), 0);
        h_sleep_ms(50); /* loop iterations: the closed handle is processed */
        expect_status(c, "PONG", "PING");
    }
    expect_pinfo_str(c, "rdb_last_bgsave_status", "err");
    unlink(flag);
    expect_status(c, "OK", "SET k:1 changed");
    expect_status(c, "Background saving started", "BGSAVE");
    wait_save_done(c, 20000);
    expect_pinfo_str(c, "rdb_last_bgsave_status", "ok");
    ck_assert_int_eq(pinfo(c, "rdb_saves"), saves + 1);
    ck_assert_int_eq(count_temp_files(s->dir), 0);
    expect_int(c, 1000, "DBSIZE");
    redisFree(c);
}
END_TEST

/* ------------------------------------------------------------------ main */

int main(void)
{
    Suite *su = suite_create("snapshot");
    h_add_dropall(su, "point_in_time_forkless", point_in_time_forkless, 180);
    h_add_dropall(su, "point_in_time_fork", point_in_time_fork, 180);
    h_add_dropall(su, "point_in_time_cluster_mode", point_in_time_cluster_mode, 60);
    h_add_dropall(su, "flush_aborts_forkless", flush_aborts_forkless, 60);
    h_add_dropall(su, "flush_aborts_fork", flush_aborts_fork, 60);
    h_add_dropall(su, "bgsave_busy_schedule_lastsave", bgsave_busy_schedule_lastsave, 60);
    h_add_dropall(su, "queue_order_rewrite_then_bgsave", queue_order_rewrite_then_bgsave, 60);
    h_add_dropall(su, "failed_save_forkless", failed_save_forkless, 60);
    h_add_dropall(su, "failed_save_fork", failed_save_fork, 60);
    h_add_dropall(su, "damaged_dump_flipped_lz4", damaged_dump_flipped_lz4, 60);
    h_add_dropall(su, "damaged_dump_flipped_plain", damaged_dump_flipped_plain, 60);
    h_add_dropall(su, "damaged_dump_truncated_lz4", damaged_dump_truncated_lz4, 60);
    h_add_dropall(su, "damaged_dump_truncated_plain", damaged_dump_truncated_plain, 60);
    h_add_dropall(su, "kill9_during_bgsave", kill9_during_bgsave, 60);
    h_add_dropall(su, "shutdown_saves_when_it_should", shutdown_saves_when_it_should, 60);
    h_add_dropall(su, "expired_keys_skipped_at_load", expired_keys_skipped_at_load, 60);
    h_add_dropall(su, "flushall_saves_with_save_points", flushall_saves_with_save_points, 60);
    h_add_dropall(su, "serializer_thread_fails", serializer_thread_fails, 60);
    return h_main(su);
}
