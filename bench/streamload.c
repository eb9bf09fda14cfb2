/* streamload.c: load generator and sampler of the streams benchmark
 * (bench/streams.sh, `make bench-streams`). One invocation does one job
 * against one already started server (verso or redis-server):
 *
 *   --mode fill   KEYS streams of ENTRIES entries each (one key, --key (`s`),
 *                 when --keys 1, else `s:%06d`), explicit IDs `<i>-1` (i from 1),
 *                 3 fields f1 f2 f3 of 20 B each (60 B of values per entry,
 *                 seeded, the same for every server), pipelined 1000 deep;
 *                 then --groups G groups g1..gG created at 0 and --pending P
 *                 entries of each read by XREADGROUP without an ack (PEL).
 *   --mode save   the save run, on the stream `s` filled before: --conns (8)
 *                 connections doing XADD s MAXLEN ~ ENTRIES * ... (one in
 *                 flight each, every round trip kept), --groups (2) consumer
 *                 connections (group gK, consumer cK) doing XREADGROUP COUNT
 *                 10 STREAMS s > then XACK of what they got, a PING every
 *                 2 ms (SCHED_FIFO thread, every round trip kept), a
 *                 sampler every 100 ms (Pss of the server + its children,
 *                 /proc/PID/smaps_rollup, children by ppid: a fork's
 *                 copy-on-write shows in the sum; the server's own RSS; the
 *                 children's Private_Dirty), BGSAVE at t = 2 s, INFO
 *                 persistence every 20 ms until rdb_bgsave_in_progress:0,
 *                 load until done + 1 s. Appends one line of figures to
 *                 --tsv (header if the file is new).
 *   --mode ack    throughput of XREADGROUP COUNT 10 + XACK on a filled
 *                 stream `t` with group --group (created at 0 here): --conns
 *                 (50) connections, --pipeline P requests in flight each, one
 *                 thread (all connections send, then all read, as
 *                 redis-benchmark's event loop keeps them all busy), until
 *                 the group has read the whole stream; prints
 *                 "<pairs/s> <entries/s> <pairs>".
 *
 * All times come from CLOCK_MONOTONIC; t_ms is relative to the load start.
 * The sampler's Pss code is spike.c's (the same race handling at fork and
 * exit), kept here so that this tool stands alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILL_BATCH 1000
#define VAL_LEN 20
#define MAX_CONNS 256

struct opts {
    const char *host, *mode, *method, *tsv, *group, *key;
    int port, run, conns, groups, pipeline;
    long keys, entries, pending, pid;
    uint64_t seed;
    int settle_ms, bgsave_at_ms, tail_ms, sample_ms, ping_ms, poll_ms, max_save_s;
};

struct lat { int64_t sent_ns, rtt_ns; };
struct lats { struct lat *v; size_t n, cap; };
struct sample { int64_t t_ms, pss, rss, child_dirty; int saving; };

static struct {
    struct opts o;
    int64_t t0_ns;
    atomic_int go, stop, failed;
    atomic_llong xadds, acked, reads;
    struct lats xadd[MAX_CONNS];      /* XADD thread i only; read after join */
    struct lats ping;                 /* PING thread only */
    int ping_fifo;
    struct sample *samples;           /* sampler only */
    size_t nsamples, cap_samples;
    char errmsg[256];
} G;

/* ---------- helpers ---------- */

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(int64_t t_ns)
{
    struct timespec ts = { t_ns / 1000000000LL, t_ns % 1000000000LL };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void fail(const char *what, const char *detail)
{
    if (atomic_exchange(&G.failed, 1) == 0)
        snprintf(G.errmsg, sizeof G.errmsg, "%s: %s", what, detail ? detail : "?");
    atomic_store(&G.stop, 1);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* VAL_LEN printable bytes (hex digits) from the generator. */
static void value(char *out, uint64_t *s)
{
    static const char hex[] = "0123456789abcdef";
    uint64_t a = splitmix64(s), b = splitmix64(s);
    for (int i = 0; i < VAL_LEN; i++) {
        uint64_t w = i < 16 ? a : b;
        out[i] = hex[(w >> ((i % 16) * 4)) & 15];
    }
    out[VAL_LEN] = '\0';
}

static redisContext *connect_server(void)
{
    struct timeval tv = { 5, 0 };
    redisContext *c = redisConnectWithTimeout(G.o.host, G.o.port, tv);
    if (!c || c->err) {
        fprintf(stderr, "streamload: connect %s:%d: %s\n", G.o.host, G.o.port,
                c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    struct timeval rt = { G.o.max_save_s + 60, 0 };
    redisSetTimeout(c, rt);
    return c;
}

static void lat_add(struct lats *l, int64_t sent, int64_t rtt)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 65536;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) {
            perror("realloc");
            exit(1);
        }
    }
    l->v[l->n++] = (struct lat){ sent, rtt };
}

static long long info_ll(const char *info, const char *field)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\n%s:", field);
    const char *p = strstr(info, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static char *info_get(redisContext *c, const char *section)
{
    redisReply *r = redisCommand(c, "INFO %s", section);
    if (!r || r->type != REDIS_REPLY_STRING) {
        if (r)
            freeReplyObject(r);
        return NULL;
    }
    char *s = strdup(r->str);
    freeReplyObject(r);
    return s;
}

/* Reads the pipelined replies of n commands; 0 if none was an error. */
static int drain(redisContext *c, long n, const char *what)
{
    for (long i = 0; i < n; i++) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK) {
            fprintf(stderr, "streamload: %s: %s\n", what, c->errstr);
            return -1;
        }
        int bad = r->type == REDIS_REPLY_ERROR;
        if (bad)
            fprintf(stderr, "streamload: %s: %s\n", what, r->str);
        freeReplyObject(r);
        if (bad)
            return -1;
    }
    return 0;
}

/* ---------- fill ---------- */

static void append_xadd(redisContext *c, const char *key, const char *id, uint64_t *s,
                        const char *trim)
{
    char v[3][VAL_LEN + 1];
    for (int k = 0; k < 3; k++)
        value(v[k], s);
    if (trim)
        redisAppendCommand(c, "XADD %s MAXLEN ~ %s %s f1 %s f2 %s f3 %s", key, trim, id,
                           v[0], v[1], v[2]);
    else
        redisAppendCommand(c, "XADD %s %s f1 %s f2 %s f3 %s", key, id, v[0], v[1], v[2]);
}

static int do_fill(void)
{
    redisContext *c = connect_server();
    if (!c)
        return 1;
    uint64_t s = G.o.seed;
    char key[64], id[48];
    for (long k = 0; k < G.o.keys; k++) {
        if (G.o.keys == 1)
            snprintf(key, sizeof key, "%s", G.o.key);
        else
            snprintf(key, sizeof key, "s:%06ld", k);
        long inflight = 0;
        for (long i = 1; i <= G.o.entries; i++) {
            snprintf(id, sizeof id, "%ld-1", i);
            append_xadd(c, key, id, &s, NULL);
            if (++inflight == FILL_BATCH) {
                if (drain(c, inflight, "fill XADD"))
                    return 1;
                inflight = 0;
            }
        }
        if (drain(c, inflight, "fill XADD"))
            return 1;
        for (int g = 1; g <= G.o.groups; g++) {
            redisAppendCommand(c, "XGROUP CREATE %s g%d 0", key, g);
            if (G.o.pending > 0)
                redisAppendCommand(c, "XREADGROUP GROUP g%d c1 COUNT %ld STREAMS %s >", g,
                                   G.o.pending, key);
            if (drain(c, G.o.pending > 0 ? 2 : 1, "fill XGROUP/XREADGROUP"))
                return 1;
        }
    }
    redisFree(c);
    return 0;
}

/* ---------- the save run: load threads ---------- */

static void *xadd_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    redisContext *c = connect_server();
    if (!c) {
        fail("XADD connection", "connect failed");
        return NULL;
    }
    uint64_t s = G.o.seed * 1000003u + (uint64_t)i + 1;
    char trim[32];
    snprintf(trim, sizeof trim, "%ld", G.o.entries);
    while (!atomic_load(&G.go) && !atomic_load(&G.stop))
        usleep(200);
    while (!atomic_load(&G.stop)) {
        append_xadd(c, "s", "*", &s, trim);
        int64_t t = now_ns();
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK) {
            fail("XADD", c->errstr);
            break;
        }
        int64_t rtt = now_ns() - t;
        if (r->type != REDIS_REPLY_STRING) {
            fail("XADD reply", r->type == REDIS_REPLY_ERROR ? r->str : "not a bulk");
            freeReplyObject(r);
            break;
        }
        freeReplyObject(r);
        lat_add(&G.xadd[i], t, rtt);
        atomic_fetch_add(&G.xadds, 1);
    }
    redisFree(c);
    return NULL;
}

/* XREADGROUP's reply [[key, [[id, fields] ...]]]: the entries. */
static const redisReply *entries_of(const redisReply *r)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 1)
        return NULL;
    const redisReply *k = r->element[0];
    if (k->type != REDIS_REPLY_ARRAY || k->elements != 2 ||
        k->element[1]->type != REDIS_REPLY_ARRAY)
        return NULL;
    return k->element[1];
}

/* XACK key group <the ids of an XREADGROUP reply>, appended; 1 if there
 * was any id. */
static int append_ack(redisContext *c, const char *key, const char *group, const redisReply *r)
{
    const redisReply *e = entries_of(r);
    if (!e || e->elements == 0)
        return 0;
    const char *argv[3 + 64];
    size_t len[3 + 64];
    int n = 0;
    argv[n] = "XACK", len[n++] = 4;
    argv[n] = key, len[n++] = strlen(key);
    argv[n] = group, len[n++] = strlen(group);
    for (size_t k = 0; k < e->elements && n < 3 + 64; k++) {
        const redisReply *id = e->element[k]->element[0];
        argv[n] = id->str, len[n++] = id->len;
    }
    redisAppendCommandArgv(c, n, argv, len);
    return 1;
}

static void *consumer_thread(void *arg)
{
    int g = (int)(intptr_t)arg;
    redisContext *c = connect_server();
    if (!c) {
        fail("consumer connection", "connect failed");
        return NULL;
    }
    char group[16], consumer[16];
    snprintf(group, sizeof group, "g%d", g);
    snprintf(consumer, sizeof consumer, "c%d", g);
    while (!atomic_load(&G.go) && !atomic_load(&G.stop))
        usleep(200);
    while (!atomic_load(&G.stop)) {
        redisReply *r = redisCommand(c, "XREADGROUP GROUP %s %s COUNT 10 STREAMS s >", group,
                                     consumer);
        if (!r || r->type == REDIS_REPLY_ERROR) {
            fail("XREADGROUP", r ? r->str : c->errstr);
            if (r)
                freeReplyObject(r);
            break;
        }
        atomic_fetch_add(&G.reads, 1);
        const redisReply *e = entries_of(r);
        long n = e ? (long)e->elements : 0;
        if (append_ack(c, "s", group, r)) {
            redisReply *a;
            if (redisGetReply(c, (void **)&a) != REDIS_OK || a->type != REDIS_REPLY_INTEGER) {
                fail("XACK", a && a->type == REDIS_REPLY_ERROR ? a->str : c->errstr);
                break;
            }
            freeReplyObject(a);
        }
        freeReplyObject(r);
        atomic_fetch_add(&G.acked, n);
        if (n == 0)
            usleep(1000); /* caught up with the writers */
    }
    redisFree(c);
    return NULL;
}

static void *ping_thread(void *arg)
{
    (void)arg;
    redisContext *c = connect_server();
    if (!c) {
        fail("PING connection", "connect failed");
        return NULL;
    }
    struct sched_param sp = { .sched_priority = 10 };
    G.ping_fifo = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0;
    int64_t period = (int64_t)G.o.ping_ms * 1000000LL, next = G.t0_ns;
    while (!atomic_load(&G.go) && !atomic_load(&G.stop))
        usleep(200);
    while (!atomic_load(&G.stop)) {
        sleep_until(next);
        int64_t t = now_ns();
        redisReply *r = redisCommand(c, "PING");
        int64_t rtt = now_ns() - t;
        if (!r || r->type != REDIS_REPLY_STATUS) {
            fail("PING", r ? r->str : c->errstr);
            break;
        }
        freeReplyObject(r);
        lat_add(&G.ping, t, rtt);
        next += period;
        if (next <= t + rtt)
            next += ((t + rtt - next) / period + 1) * period;
    }
    redisFree(c);
    return NULL;
}

/* ---------- memory sampling (spike.c's method) ---------- */

static int read_proc(const char *path, char *buf, size_t n)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r <= 0)
        return -1;
    buf[r] = '\0';
    return 0;
}

static int64_t rollup_field(const char *buf, const char *field)
{
    const char *p = strstr(buf, field);
    return p ? strtoll(p + strlen(field), NULL, 10) * 1024 : 0;
}

/* Pss of one process (its Rss and Private_Dirty if asked); 0 if gone. */
static int64_t pss_of(long pid, int64_t *rss, int64_t *dirty)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", pid);
    if (read_proc(path, buf, sizeof buf) != 0)
        return 0;
    if (rss)
        *rss = rollup_field(buf, "\nRss:");
    if (dirty)
        *dirty = rollup_field(buf, "\nPrivate_Dirty:");
    return rollup_field(buf, "\nPss:");
}

#define PF_EXITING_FLAG 0x4u
#define MAX_CHILDREN 16

static long stat_of(const char *pid, int *exiting)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    if (read_proc(path, buf, sizeof buf) != 0)
        return -1;
    const char *p = strrchr(buf, ')');
    char state;
    long ppid;
    unsigned flags;
    if (!p || sscanf(p + 1, " %c %ld %*d %*d %*d %*d %u", &state, &ppid, &flags) != 3)
        return -1;
    *exiting = (flags & PF_EXITING_FLAG) && state != 'Z' && state != 'X';
    return ppid;
}

static int list_children(long *pids)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0, busy = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int exiting = 0;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        if (stat_of(e->d_name, &exiting) != G.o.pid)
            continue;
        busy |= exiting;
        if (n < MAX_CHILDREN)
            pids[n++] = strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    return busy ? -1 : n;
}

/* Summed Pss of the server and its children, retaken if a child appeared,
 * vanished or was exiting meanwhile (spike.c: pss_total). */
static void sample_memory(struct sample *s)
{
    long before[MAX_CHILDREN], after[MAX_CHILDREN];
    for (int attempt = 0; attempt < 50; attempt++) {
        int nb = list_children(before);
        s->pss = pss_of(G.o.pid, &s->rss, NULL);
        s->child_dirty = 0;
        for (int i = 0; i < nb; i++) {
            int64_t d = 0;
            s->pss += pss_of(before[i], NULL, &d);
            s->child_dirty += d;
        }
        int na = list_children(after);
        if (nb >= 0 && na == nb && !memcmp(before, after, (size_t)nb * sizeof *before))
            return;
        usleep(2000);
    }
}

static atomic_int saving;

static void *sampler_thread(void *arg)
{
    (void)arg;
    int64_t period = (int64_t)G.o.sample_ms * 1000000LL;
    int64_t next = G.t0_ns - (int64_t)G.o.settle_ms * 1000000LL;
    for (;;) {
        sleep_until(next);
        struct sample s = { .t_ms = (now_ns() - G.t0_ns) / 1000000LL };
        sample_memory(&s);
        s.saving = atomic_load(&saving);
        if (G.nsamples == G.cap_samples) {
            G.cap_samples = G.cap_samples ? G.cap_samples * 2 : 1024;
            G.samples = realloc(G.samples, G.cap_samples * sizeof *G.samples);
        }
        G.samples[G.nsamples++] = s;
        if (atomic_load(&G.stop))
            break;
        next += period;
        if (next <= now_ns())
            next = now_ns() + period;
    }
    return NULL;
}

/* ---------- figures ---------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

struct pct { double p50, p99, max; long n; };

/* Percentiles (ms) of the round trips in the lats that overlap [lo, hi)
 * (inside) or do not, starting after from_ns (outside). */
static struct pct percentiles(struct lats *ls, int nls, int64_t lo, int64_t hi, int inside,
                              int64_t from_ns)
{
    size_t n = 0;
    for (int i = 0; i < nls; i++)
        n += ls[i].n;
    int64_t *v = malloc((n + 1) * sizeof *v);
    size_t m = 0;
    for (int i = 0; i < nls; i++)
        for (size_t k = 0; k < ls[i].n; k++) {
            struct lat l = ls[i].v[k];
            int over = l.sent_ns < hi && l.sent_ns + l.rtt_ns > lo;
            if (inside ? over : (!over && l.sent_ns >= from_ns))
                v[m++] = l.rtt_ns;
        }
    struct pct p = { 0, 0, 0, (long)m };
    if (m) {
        qsort(v, m, sizeof *v, cmp_i64);
        p.p50 = (double)v[m / 2] / 1e6;
        p.p99 = (double)v[(size_t)((double)(m - 1) * 0.99)] / 1e6;
        p.max = (double)v[m - 1] / 1e6;
    }
    free(v);
    return p;
}

static int do_save(void)
{
    if (G.o.conns > MAX_CONNS)
        G.o.conns = MAX_CONNS;
    redisContext *c = connect_server();
    if (!c)
        return 1;
    redisReply *r0 = redisCommand(c, "XLEN s");
    long long len0 = r0 && r0->type == REDIS_REPLY_INTEGER ? r0->integer : -1;
    if (r0)
        freeReplyObject(r0);
    G.t0_ns = now_ns() + (int64_t)G.o.settle_ms * 1000000LL;
    pthread_t th[MAX_CONNS], ct[16], pt, st;
    pthread_create(&st, NULL, sampler_thread, NULL);
    for (int i = 0; i < G.o.conns; i++)
        pthread_create(&th[i], NULL, xadd_thread, (void *)(intptr_t)i);
    for (int g = 1; g <= G.o.groups && g <= 16; g++)
        pthread_create(&ct[g - 1], NULL, consumer_thread, (void *)(intptr_t)g);
    pthread_create(&pt, NULL, ping_thread, NULL);
    sleep_until(G.t0_ns);
    atomic_store(&G.go, 1);

    sleep_until(G.t0_ns + (int64_t)G.o.bgsave_at_ms * 1000000LL);
    long long xadds_at_save = atomic_load(&G.xadds), acked_at_save = atomic_load(&G.acked);
    int64_t t_sent = now_ns();
    atomic_store(&saving, 1);
    redisReply *r = redisCommand(c, "BGSAVE");
    int64_t t_reply = now_ns();
    char status[128] = "ok";
    if (!r || r->type == REDIS_REPLY_ERROR) {
        snprintf(status, sizeof status, "BGSAVE: %.100s", r ? r->str : c->errstr);
        fail("BGSAVE", status);
    }
    if (r)
        freeReplyObject(r);
    int64_t t_done = t_reply;
    while (!atomic_load(&G.stop)) {
        usleep((useconds_t)G.o.poll_ms * 1000);
        char *info = info_get(c, "persistence");
        if (!info) {
            fail("INFO persistence", c->errstr);
            break;
        }
        long long inprog = info_ll(info, "rdb_bgsave_in_progress");
        free(info);
        if (inprog == 0) {
            t_done = now_ns();
            break;
        }
        if (now_ns() - t_sent > (int64_t)G.o.max_save_s * 1000000000LL) {
            fail("save", "did not finish in max-save-s");
            break;
        }
    }
    atomic_store(&saving, 0);
    long long xadds_at_done = atomic_load(&G.xadds), acked_at_done = atomic_load(&G.acked);
    sleep_until(now_ns() + (int64_t)G.o.tail_ms * 1000000LL);
    atomic_store(&G.stop, 1);
    for (int i = 0; i < G.o.conns; i++)
        pthread_join(th[i], NULL);
    for (int g = 1; g <= G.o.groups && g <= 16; g++)
        pthread_join(ct[g - 1], NULL);
    pthread_join(pt, NULL);
    pthread_join(st, NULL);
    if (atomic_load(&G.failed)) {
        fprintf(stderr, "streamload: %s\n", G.errmsg);
        return 1;
    }

    char *pers = info_get(c, "persistence"), *stats = info_get(c, "stats");
    long long cow = pers ? info_ll(pers, "rdb_last_cow_size") : -1;
    long long last_status_ok = pers && strstr(pers, "rdb_last_bgsave_status:ok") != NULL;
    long long fork_usec = stats ? info_ll(stats, "latest_fork_usec") : -1;
    if (fork_usec < 0 && pers)
        fork_usec = info_ll(pers, "latest_fork_usec");
    long long stall = pers ? info_ll(pers, "rdb_last_bgsave_start_stall_usec") : -1;
    free(pers);
    free(stats);
    r0 = redisCommand(c, "XLEN s");
    long long len1 = r0 && r0->type == REDIS_REPLY_INTEGER ? r0->integer : -1;
    if (r0)
        freeReplyObject(r0);
    redisFree(c);

    /* memory: baseline = median of the samples of the second before BGSAVE */
    int64_t base_v[64];
    int nb = 0;
    int64_t lo_ms = (t_sent - G.t0_ns) / 1000000LL - 1000, hi_ms = lo_ms + 1000;
    int64_t done_ms = (t_done - G.t0_ns) / 1000000LL;
    int64_t peak = 0, rss_base = 0, rss_peak = 0, dirty_peak = 0;
    for (size_t k = 0; k < G.nsamples; k++) {
        struct sample *s = &G.samples[k];
        if (s->t_ms >= lo_ms && s->t_ms < hi_ms && nb < 64) {
            base_v[nb++] = s->pss;
            rss_base = s->rss;
        }
        if (s->t_ms >= hi_ms && s->t_ms <= done_ms + G.o.sample_ms) {
            if (s->pss > peak)
                peak = s->pss;
            if (s->rss > rss_peak)
                rss_peak = s->rss;
            if (s->child_dirty > dirty_peak)
                dirty_peak = s->child_dirty;
        }
    }
    qsort(base_v, (size_t)nb, sizeof *base_v, cmp_i64);
    int64_t base = nb ? base_v[nb / 2] : 0;
    double save_s = (double)(t_done - t_reply) / 1e9;
    int64_t from = G.t0_ns + 500000000LL;
    struct pct in = percentiles(G.xadd, G.o.conns, t_sent, t_done, 1, from);
    struct pct out = percentiles(G.xadd, G.o.conns, t_sent, t_done, 0, from);
    struct pct pin = percentiles(&G.ping, 1, t_sent, t_done, 1, from);
    struct pct pout = percentiles(&G.ping, 1, t_sent, t_done, 0, from);
    double before_s = (double)(t_sent - G.t0_ns) / 1e9;
    double xadd_before = (double)xadds_at_save / before_s;
    double xadd_during = save_s > 0 ? (double)(xadds_at_done - xadds_at_save) / save_s : 0;
    double ack_before = (double)acked_at_save / before_s;
    double ack_during = save_s > 0 ? (double)(acked_at_done - acked_at_save) / save_s : 0;

    struct stat sb;
    int fresh = stat(G.o.tsv, &sb) != 0 || sb.st_size == 0;
    FILE *f = fopen(G.o.tsv, "a");
    if (!f) {
        perror(G.o.tsv);
        return 1;
    }
    if (fresh)
        fprintf(f, "method\trun\tstatus\tlen_before\tlen_after\tsave_s\tgrowth_mb\tbaseline_mb"
                   "\trss_growth_mb\tchild_dirty_mb\tcow_mb\tfork_usec\tstall_usec"
                   "\txadd_p50_save\txadd_p99_save\txadd_max_save\txadd_n_save"
                   "\txadd_p50_out\txadd_p99_out\txadd_max_out\tping_max_save\tping_p99_save"
                   "\tping_max_out\txadd_s_before\txadd_s_during\tack_s_before\tack_s_during"
                   "\tping_fifo\n");
    fprintf(f, "%s\t%d\t%s\t%lld\t%lld\t%.3f\t%.2f\t%.1f\t%.2f\t%.2f\t%.2f\t%lld\t%lld"
               "\t%.3f\t%.3f\t%.3f\t%ld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.0f\t%.0f\t%.0f"
               "\t%.0f\t%d\n",
            G.o.method, G.o.run, last_status_ok ? status : "save-failed", len0, len1, save_s,
            (double)(peak - base) / 1048576.0, (double)base / 1048576.0,
            (double)(rss_peak - rss_base) / 1048576.0, (double)dirty_peak / 1048576.0,
            cow >= 0 ? (double)cow / 1048576.0 : -1.0, fork_usec, stall, in.p50, in.p99,
            in.max, in.n, out.p50, out.p99, out.max, pin.max, pin.p99, pout.max, xadd_before,
            xadd_during, ack_before, ack_during, G.ping_fifo);
    fclose(f);
    return 0;
}

/* ---------- XREADGROUP + XACK throughput ---------- */

/* Writes out every connection's pipelined commands (hiredis writes a
 * context's buffer only when one reads a reply from it: without this the
 * connections would take turns). */
static int flush_all(redisContext **cs, int n)
{
    for (int i = 0; i < n; i++)
        for (int done = 0; !done;)
            if (redisBufferWrite(cs[i], &done) != REDIS_OK) {
                fprintf(stderr, "streamload: write: %s\n", cs[i]->errstr);
                return 1;
            }
    return 0;
}

static int do_ack(void)
{
    int n = G.o.conns > MAX_CONNS ? MAX_CONNS : G.o.conns, p = G.o.pipeline;
    redisContext *cs[MAX_CONNS];
    for (int i = 0; i < n; i++)
        if (!(cs[i] = connect_server()))
            return 1;
    redisReply *r = redisCommand(cs[0], "XGROUP CREATE t %s 0", G.o.group);
    if (!r || r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "streamload: XGROUP CREATE: %s\n", r ? r->str : cs[0]->errstr);
        return 1;
    }
    freeReplyObject(r);
    long long pairs = 0, entries = 0;
    int64_t t0 = now_ns();
    for (int done = 0; !done;) {
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p; k++)
                redisAppendCommand(cs[i], "XREADGROUP GROUP %s c%d COUNT 10 STREAMS t >",
                                   G.o.group, i);
        if (flush_all(cs, n))
            return 1;
        long acks[MAX_CONNS] = { 0 };
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p; k++) {
                if (redisGetReply(cs[i], (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR) {
                    fprintf(stderr, "streamload: XREADGROUP: %s\n",
                            r && r->type == REDIS_REPLY_ERROR ? r->str : cs[i]->errstr);
                    return 1;
                }
                const redisReply *e = entries_of(r);
                if (!e || e->elements == 0)
                    done = 1;
                else
                    entries += (long long)e->elements;
                acks[i] += append_ack(cs[i], "t", G.o.group, r);
                freeReplyObject(r);
            }
        if (flush_all(cs, n))
            return 1;
        for (int i = 0; i < n; i++) {
            if (drain(cs[i], acks[i], "XACK"))
                return 1;
            pairs += acks[i];
        }
    }
    double s = (double)(now_ns() - t0) / 1e9;
    printf("%.0f %.0f %lld\n", (double)pairs / s, (double)entries / s, pairs);
    for (int i = 0; i < n; i++)
        redisFree(cs[i]);
    return 0;
}

/* ---------- main ---------- */

static void usage(void)
{
    fprintf(stderr,
            "usage: streamload --mode fill|save|ack --port P [--host H] [--keys K]\n"
            "  [--entries E] [--groups G] [--pending N] [--conns C] [--pipeline P]\n"
            "  [--group NAME] [--key NAME] [--pid PID] [--method NAME] [--run R] [--tsv FILE]\n"
            "  [--seed S] [--bgsave-at-ms 2000] [--settle-ms 1000] [--tail-ms 1000]\n"
            "  [--sample-ms 100] [--max-save-s 600]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    G.o = (struct opts){ .host = "127.0.0.1", .mode = NULL, .method = "server",
                         .tsv = "streams-save-runs.tsv", .group = "gt", .key = "s", .conns = 8,
                         .groups = 0, .pipeline = 1, .keys = 1, .entries = 0, .seed = 1,
                         .settle_ms = 1000, .bgsave_at_ms = 2000, .tail_ms = 1000,
                         .sample_ms = 100, .ping_ms = 2, .poll_ms = 20, .max_save_s = 600 };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        i++;
        if (!strcmp(a, "--mode")) G.o.mode = v;
        else if (!strcmp(a, "--host")) G.o.host = v;
        else if (!strcmp(a, "--port")) G.o.port = atoi(v);
        else if (!strcmp(a, "--keys")) G.o.keys = atol(v);
        else if (!strcmp(a, "--entries")) G.o.entries = atol(v);
        else if (!strcmp(a, "--groups")) G.o.groups = atoi(v);
        else if (!strcmp(a, "--pending")) G.o.pending = atol(v);
        else if (!strcmp(a, "--conns")) G.o.conns = atoi(v);
        else if (!strcmp(a, "--pipeline")) G.o.pipeline = atoi(v);
        else if (!strcmp(a, "--group")) G.o.group = v;
        else if (!strcmp(a, "--key")) G.o.key = v;
        else if (!strcmp(a, "--pid")) G.o.pid = atol(v);
        else if (!strcmp(a, "--method")) G.o.method = v;
        else if (!strcmp(a, "--run")) G.o.run = atoi(v);
        else if (!strcmp(a, "--tsv")) G.o.tsv = v;
        else if (!strcmp(a, "--seed")) G.o.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--bgsave-at-ms")) G.o.bgsave_at_ms = atoi(v);
        else if (!strcmp(a, "--settle-ms")) G.o.settle_ms = atoi(v);
        else if (!strcmp(a, "--tail-ms")) G.o.tail_ms = atoi(v);
        else if (!strcmp(a, "--sample-ms")) G.o.sample_ms = atoi(v);
        else if (!strcmp(a, "--max-save-s")) G.o.max_save_s = atoi(v);
        else usage();
    }
    if (!G.o.mode || !G.o.port || G.o.pipeline < 1 || G.o.conns < 1)
        usage();
    if (!strcmp(G.o.mode, "fill"))
        return do_fill();
    if (!strcmp(G.o.mode, "save")) {
        if (!G.o.pid || G.o.entries <= 0)
            usage();
        return do_save();
    }
    if (!strcmp(G.o.mode, "ack"))
        return do_ack();
    usage();
    return 2;
}
