/* repl_util: the replication tests' writer thread, preload and dataset
 * comparison (see repl_util.h). */
#include "repl_util.h"
#include "stream_text.h"

#include "harness.h"
#include "testcmp.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ the writer */

#define W_BATCH 64

/* Appends the commands of step i (one or a MULTI block) to c; returns how
 * many replies they will produce. *db is the database the connection is
 * on, changed by the SELECT this emits. */
static int writer_step(redisContext *c, long i, int *db)
{
    int want = (int)((i / 7) % RU_NDB), n = 0; /* every step lands in every db */
    if (want != *db) {
        redisAppendCommand(c, "SELECT %d", want);
        *db = want;
        n++;
    }
    switch (i % 20) {
    case 0:
        redisAppendCommand(c, "SET s:%ld val-%ld-abcdefghijklmnopqrstuvwxyz", i % 4000, i);
        break;
    case 1:
        redisAppendCommand(c, "HSET h:%ld f%ld v%ld f%ld w%ld", i % 97, i % 13, i, i % 7, i);
        break;
    case 2:
        if (i % 7 == 0)
            redisAppendCommand(c, "LPOP l:%ld", i % 61);
        else
            redisAppendCommand(c, "RPUSH l:%ld v%ld", i % 61, i);
        break;
    case 3:
        if (i % 5 == 0)
            redisAppendCommand(c, "SREM st:%ld m%ld", i % 53, (i / 3) % 101);
        else
            redisAppendCommand(c, "SADD st:%ld m%ld", i % 53, i % 101);
        break;
    case 4:
        redisAppendCommand(c, "ZADD z:%ld %ld.5 m%ld", i % 47, i % 1000, i % 89);
        break;
    case 5:
        redisAppendCommand(c, "SET t:%ld v%ld EX %ld", i % 500, i, 200 + i % 900);
        break;
    case 6:
        redisAppendCommand(c, "INCRBY c:%ld %ld", i % 29, i % 5 + 1);
        break;
    case 7: /* gone within ms: the primary's expiry reaches the replica */
        redisAppendCommand(c, "SET e:%ld v PX %ld", i, 1 + i % 50);
        break;
    case 8:
        if (i % 3 == 0)
            redisAppendCommand(c, "DEL s:%ld", (i / 10) % 4000);
        else
            redisAppendCommand(c, "EXPIRE s:%ld %ld", (i / 10) % 4000, 300 + i % 100);
        break;
    /* commands a primary must not propagate as sent (random, relative,
     * float): SPOP, ZPOPMIN, INCRBYFLOAT, HINCRBYFLOAT, GETEX, EXPIRE */
    case 10:
        redisAppendCommand(c, "APPEND s:%ld -%ld", i % 4000, i % 10);
        break;
    case 11:
        redisAppendCommand(c, "SETRANGE s:%ld 2 XY%ld", (i / 3) % 4000, i % 10);
        break;
    case 12:
        redisAppendCommand(c, "HINCRBYFLOAT h:%ld ff 1.%ld", i % 97, i % 10);
        break;
    case 13:
        redisAppendCommand(c, "SPOP st:%ld", (i / 7) % 53);
        break;
    case 14:
        redisAppendCommand(c, "LMOVE l:%ld l:%ld LEFT RIGHT", i % 61, (i / 61) % 61);
        break;
    case 15:
        redisAppendCommand(c, "INCRBYFLOAT f:%ld 0.%ld", i % 31, i % 10);
        break;
    case 16:
        redisAppendCommand(c, "COPY s:%ld cp:%ld REPLACE", i % 4000, i % 50);
        break;
    case 17:
        redisAppendCommand(c, "ZPOPMIN z:%ld", (i / 11) % 47);
        break;
    case 18:
        redisAppendCommand(c, "GETEX t:%ld PX %ld", (i / 5) % 500, 400000 + i % 1000);
        break;
    default:
        redisAppendCommand(c, "MULTI");
        redisAppendCommand(c, "INCR c:multi");
        redisAppendCommand(c, "HSET h:multi f%ld %ld", i % 11, i);
        redisAppendCommand(c, "ZINCRBY z:multi 1 m%ld", i % 17);
        redisAppendCommand(c, "EXEC");
        n += 4;
        break;
    }
    return n + 1;
}

static void *writer_main(void *arg)
{
    ru_writer *w = arg;
    struct timeval tv = { 30, 0 };
    redisContext *c = redisConnectWithTimeout("127.0.0.1", w->port, tv);
    if (!c || c->err) {
        snprintf(w->err, sizeof w->err, "connect: %s", c ? c->errstr : "oom");
        redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    int db = 0;
    long i = 0;
    while (!atomic_load(&w->stop)) {
        int replies = 0;
        for (int k = 0; k < W_BATCH; k++)
            replies += writer_step(c, i++, &db);
        for (int k = 0; k < replies; k++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK) {
                snprintf(w->err, sizeof w->err, "reply: %s", c->errstr);
                redisFree(c);
                return NULL;
            }
            if (r->type == REDIS_REPLY_ERROR && !w->err[0])
                snprintf(w->err, sizeof w->err, "error reply: %s", r->str);
            freeReplyObject(r);
        }
        atomic_fetch_add(&w->ops, replies);
        if (w->err[0])
            break;
        h_sleep_ms(4); /* leave the 2 cores to the servers too */
    }
    redisFree(c);
    return NULL;
}

ru_writer *writer_start(int port)
{
    ru_writer *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->port = port;
    ck_assert_int_eq(pthread_create(&w->th, NULL, writer_main, w), 0);
    return w;
}

void writer_wait_progress(ru_writer *w, long n, int timeout_ms)
{
    long want = atomic_load(&w->ops) + n;
    long long deadline = h_now_ms() + h_scaled_ms(timeout_ms);
    while (atomic_load(&w->ops) < want) {
        if (w->err[0] || h_now_ms() > deadline) {
            atomic_store(&w->stop, 1);
            pthread_join(w->th, NULL);
            ck_abort_msg("writer made no progress (%ld of %ld ops): %s",
                         atomic_load(&w->ops), want, w->err);
        }
        h_sleep_ms(10);
    }
}

long writer_stop(ru_writer *w)
{
    atomic_store(&w->stop, 1);
    pthread_join(w->th, NULL);
    long ops = atomic_load(&w->ops);
    char err[512];
    snprintf(err, sizeof err, "%s", w->err);
    free(w);
    ck_assert_msg(err[0] == '\0', "writer: %s", err);
    return ops;
}

/* ----------------------------------------------------------- the preload */

static void drain(redisContext *c, long n)
{
    for (long k = 0; k < n; k++) {
        redisReply *r = NULL;
        ck_assert_msg(redisGetReply(c, (void **)&r) == REDIS_OK, "preload: %s", c->errstr);
        ck_assert_msg(r->type != REDIS_REPLY_ERROR, "preload: %s", r->str);
        freeReplyObject(r);
    }
}

void ru_preload(redisContext *c, int scale)
{
    for (int db = 0; db < RU_NDB; db++) {
        long n = 0;
        redisAppendCommand(c, "SELECT %d", db);
        n++;
        for (long i = 0; i < 1000L * scale; i++) {
            if (i % 10 == 0)
                redisAppendCommand(c, "SET p:%ld preload-%ld-%d EX %ld", i, i, db, 1000 + i);
            else
                redisAppendCommand(c, "SET p:%ld preload-%ld-%d-0123456789", i, i, db);
            n++;
            if (i % 20 == 0) {
                redisAppendCommand(c, "HSET ph:%ld a %ld b x%ld c %ld.25", i, i, i, i);
                redisAppendCommand(c, "RPUSH pl:%ld %ld x y%ld z", i, i, i);
                redisAppendCommand(c, "SADD ps:%ld %ld a%ld b c", i, i, i);
                redisAppendCommand(c, "ZADD pz:%ld 1 a 2.5 b%ld -3 c%ld", i, i, i);
                n += 4;
            }
            if (n >= 1000) {
                drain(c, n);
                n = 0;
            }
        }
        /* big collections (not listpack-encoded on either server) */
        for (long i = 0; i < 300L * scale; i++) {
            redisAppendCommand(c, "HSET bigh f%ld %ld", i, i * 7);
            redisAppendCommand(c, "RPUSH bigl %ld", i);
            redisAppendCommand(c, "SADD bigs m%ld", i);
            redisAppendCommand(c, "SADD bigi %ld", i * 3);
            redisAppendCommand(c, "ZADD bigz %ld m%ld", i % 100, i);
            n += 5;
            if (n >= 1000) {
                drain(c, n);
                n = 0;
            }
        }
        drain(c, n);
    }
    /* one string of 1 MB in db 0, that LZF cannot shrink */
    size_t big = 1 << 20;
    char *v = malloc(big);
    ck_assert_ptr_nonnull(v);
    unsigned long long x = 88172645463325252ULL;
    for (size_t k = 0; k < big; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[k] = (char)(x >> 56);
    }
    redisReply *r = redisCommand(c, "SELECT 0");
    ck_assert_ptr_nonnull(r);
    freeReplyObject(r);
    r = redisCommand(c, "SET bigstr %b", v, big);
    ck_assert_ptr_nonnull(r);
    freeReplyObject(r);
    free(v);
}

/* ------------------------------------------------------- the comparison */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        ck_assert_ptr_nonnull(b->p);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* "<len>:<bytes>," so that any bytes compare unambiguously */
static void sb_item(sbuf *b, const char *s, size_t n)
{
    char hdr[32];
    int h = snprintf(hdr, sizeof hdr, "%zu:", n);
    sb_add(b, hdr, (size_t)h);
    sb_add(b, s, n);
    sb_add(b, ",", 1);
}

typedef struct entry {
    int db;
    char *key;
    size_t klen;
    char *canon;     /* type and value, canonical */
    long long pttl;  /* -1: none */
} entry;

typedef struct keyset {
    entry *e;
    size_t n, cap;
} keyset;

typedef struct fv { redisReply *f, *v; } fv;

/* hash pairs by field */
static int cmp_pair(const void *a, const void *b)
{
    const fv *x = a, *y = b;
    return cmp_reply_str(&x->f, &y->f);
}

static void canon_value(sbuf *b, const char *type, redisReply *r)
{
    sb_add(b, type, strlen(type));
    sb_add(b, "=", 1);
    if (r->type == REDIS_REPLY_STRING) {
        sb_item(b, r->str, r->len);
        return;
    }
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY, "read of a %s: reply type %d (%s)", type,
                  r->type, r->type == REDIS_REPLY_ERROR ? r->str : "");
    size_t n = r->elements;
    if (!strcmp(type, "set")) {
        qsort(r->element, n, sizeof *r->element, cmp_reply_str);
    } else if (!strcmp(type, "hash")) {
        /* (field, value) pairs sorted by field */
        fv *a = malloc((n / 2 + 1) * sizeof *a);
        ck_assert_ptr_nonnull(a);
        for (size_t k = 0; k + 1 < n; k += 2)
            a[k / 2] = (fv){ r->element[k], r->element[k + 1] };
        qsort(a, n / 2, sizeof *a, cmp_pair);
        for (size_t k = 0; k < n / 2; k++) {
            sb_item(b, a[k].f->str, a[k].f->len);
            sb_item(b, a[k].v->str, a[k].v->len);
        }
        free(a);
        return;
    }
    for (size_t k = 0; k < n; k++)
        sb_item(b, r->element[k]->str, r->element[k]->len);
}

static void get_reply(redisContext *c, redisReply **r)
{
    ck_assert_msg(redisGetReply(c, (void **)r) == REDIS_OK, "read: %s", c->errstr);
}

/* Reads the keys of one batch: TYPE+PTTL, then the per-type read. */
static void read_batch(redisContext *c, keyset *ks, size_t from, size_t to)
{
    for (size_t k = from; k < to; k++) {
        redisAppendCommand(c, "TYPE %b", ks->e[k].key, ks->e[k].klen);
        redisAppendCommand(c, "PTTL %b", ks->e[k].key, ks->e[k].klen);
    }
    char (*types)[16] = calloc(to - from, sizeof *types);
    ck_assert_ptr_nonnull(types);
    for (size_t k = from; k < to; k++) {
        redisReply *t, *p;
        get_reply(c, &t);
        get_reply(c, &p);
        ck_assert_int_eq(t->type, REDIS_REPLY_STATUS);
        snprintf(types[k - from], sizeof types[0], "%s", t->str);
        ks->e[k].pttl = p->type == REDIS_REPLY_INTEGER ? p->integer : -3;
        freeReplyObject(t);
        freeReplyObject(p);
    }
    for (size_t k = from; k < to; k++) {
        const char *ty = types[k - from];
        const char *key = ks->e[k].key;
        size_t kl = ks->e[k].klen;
        if (!strcmp(ty, "string"))
            redisAppendCommand(c, "GET %b", key, kl);
        else if (!strcmp(ty, "hash"))
            redisAppendCommand(c, "HGETALL %b", key, kl);
        else if (!strcmp(ty, "list"))
            redisAppendCommand(c, "LRANGE %b 0 -1", key, kl);
        else if (!strcmp(ty, "set"))
            redisAppendCommand(c, "SMEMBERS %b", key, kl);
        else if (!strcmp(ty, "zset"))
            redisAppendCommand(c, "ZRANGE %b 0 -1 WITHSCORES", key, kl);
        else if (!strcmp(ty, "stream"))
            redisAppendCommand(c, "XINFO STREAM %b FULL COUNT 0", key, kl);
        else
            redisAppendCommand(c, "EXISTS %b", key, kl); /* none: gone since SCAN */
    }
    for (size_t k = from; k < to; k++) {
        redisReply *r;
        get_reply(c, &r);
        sbuf b = { 0 };
        const char *ty = types[k - from];
        if (!strcmp(ty, "none")) {
            sb_add(&b, "none", 4);
        } else if (!strcmp(ty, "stream")) {
            /* a replica's consumers were seen when it applied the stream */
            char *t = stream_text_of(r, STREAM_TEXT_REPLICA);
            sb_add(&b, "stream=", 7);
            sb_add(&b, t, strlen(t));
            free(t);
        } else
            canon_value(&b, ty, r);
        ks->e[k].canon = b.p;
        freeReplyObject(r);
    }
    free(types);
}

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->db != y->db)
        return x->db - y->db;
    size_t n = x->klen < y->klen ? x->klen : y->klen;
    int c = memcmp(x->key, y->key, n);
    return c ? c : (x->klen > y->klen) - (x->klen < y->klen);
}

static void collect(redisContext *c, keyset *ks)
{
    memset(ks, 0, sizeof *ks);
    for (int db = 0; db < RU_NDB; db++) {
        redisReply *r = redisCommand(c, "SELECT %d", db);
        ck_assert_msg(r && r->type == REDIS_REPLY_STATUS, "SELECT %d failed", db);
        freeReplyObject(r);
        size_t first = ks->n;
        char cursor[32] = "0";
        do {
            r = redisCommand(c, "SCAN %s COUNT 1000", cursor);
            ck_assert_msg(r && r->type == REDIS_REPLY_ARRAY && r->elements == 2, "SCAN failed");
            snprintf(cursor, sizeof cursor, "%s", r->element[0]->str);
            redisReply *keys = r->element[1];
            for (size_t k = 0; k < keys->elements; k++) {
                if (ks->n == ks->cap) {
                    ks->cap = ks->cap ? ks->cap * 2 : 1024;
                    ks->e = realloc(ks->e, ks->cap * sizeof *ks->e);
                    ck_assert_ptr_nonnull(ks->e);
                }
                entry *e = &ks->e[ks->n++];
                memset(e, 0, sizeof *e);
                e->db = db;
                e->klen = keys->element[k]->len;
                e->key = malloc(e->klen + 1);
                ck_assert_ptr_nonnull(e->key);
                memcpy(e->key, keys->element[k]->str, e->klen);
                e->key[e->klen] = '\0';
            }
            freeReplyObject(r);
        } while (strcmp(cursor, "0") != 0);
        /* SCAN may return a key twice: sort, drop duplicates */
        qsort(ks->e + first, ks->n - first, sizeof *ks->e, cmp_entry);
        size_t out = first;
        for (size_t k = first; k < ks->n; k++) {
            if (out > first && cmp_entry(&ks->e[out - 1], &ks->e[k]) == 0) {
                free(ks->e[k].key);
                continue;
            }
            ks->e[out++] = ks->e[k];
        }
        ks->n = out;
        for (size_t k = first; k < ks->n; k += 500)
            read_batch(c, ks, k, k + 500 < ks->n ? k + 500 : ks->n);
    }
    /* keys gone between SCAN and TYPE (expired) do not count */
    size_t out = 0;
    for (size_t k = 0; k < ks->n; k++) {
        if (!strcmp(ks->e[k].canon, "none")) {
            free(ks->e[k].key);
            free(ks->e[k].canon);
            continue;
        }
        ks->e[out++] = ks->e[k];
    }
    ks->n = out;
    redisReply *r = redisCommand(c, "SELECT 0");
    freeReplyObject(r);
}

static void ks_free(keyset *ks)
{
    for (size_t k = 0; k < ks->n; k++) {
        free(ks->e[k].key);
        free(ks->e[k].canon);
    }
    free(ks->e);
}

static void short_text(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s);
    if (n < cap) {
        snprintf(out, cap, "%s", s);
    } else {
        snprintf(out, cap, "%.*s...(%zu bytes)", (int)(cap - 32), s, n);
    }
}

size_t ru_same_data_at(const char *file, int line, redisContext *a,
                       redisContext *b, long ttl_tol_ms)
{
    keyset x, y;
    collect(a, &x);
    collect(b, &y);
    char why[1500] = "";
    size_t i = 0, j = 0;
    while (!why[0] && (i < x.n || j < y.n)) {
        int c = i == x.n ? 1 : j == y.n ? -1 : cmp_entry(&x.e[i], &y.e[j]);
        if (c < 0) {
            snprintf(why, sizeof why, "db %d key '%s' only on the first (%zu vs %zu keys)",
                     x.e[i].db, x.e[i].key, x.n, y.n);
        } else if (c > 0) {
            snprintf(why, sizeof why, "db %d key '%s' only on the second (%zu vs %zu keys)",
                     y.e[j].db, y.e[j].key, x.n, y.n);
        } else {
            entry *p = &x.e[i], *q = &y.e[j];
            if (strcmp(p->canon, q->canon) != 0) {
                char s1[600], s2[600];
                short_text(s1, sizeof s1, p->canon);
                short_text(s2, sizeof s2, q->canon);
                snprintf(why, sizeof why, "db %d key '%s' differs:\n  %s\n  %s", p->db,
                         p->key, s1, s2);
            } else if ((p->pttl < 0) != (q->pttl < 0) ||
                       llabs(p->pttl - q->pttl) > ttl_tol_ms) {
                snprintf(why, sizeof why, "db %d key '%s': PTTL %lld vs %lld", p->db, p->key,
                         p->pttl, q->pttl);
            }
            i++;
            j++;
        }
    }
    size_t n = x.n;
    ks_free(&x);
    ks_free(&y);
    if (why[0])
        _ck_assert_failed(file, line, "Failed", "datasets differ: %s", why);
    return n;
}

char *ru_canon(redisContext *c)
{
    keyset x;
    collect(c, &x);
    sbuf b = { 0 };
    sb_add(&b, "", 0);
    for (size_t k = 0; k < x.n; k++) {
        char hdr[32];
        int h = snprintf(hdr, sizeof hdr, "%d ", x.e[k].db);
        sb_add(&b, hdr, (size_t)h);
        sb_item(&b, x.e[k].key, x.e[k].klen);
        sb_add(&b, x.e[k].canon, strlen(x.e[k].canon));
        sb_add(&b, "\n", 1);
    }
    ks_free(&x);
    return b.p;
}

void ru_wait_caught_up_at(const char *file, int line, redisContext *p,
                          redisContext *r, int timeout_ms)
{
    long long want = h_info_int(p, "replication", "master_repl_offset");
    h_wait_info_at(file, line, r, "replication", "master_repl_offset", H_GE, want,
                   timeout_ms);
}
