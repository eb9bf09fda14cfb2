/* spike.c: load generator and sampler for the memory-spike comparison run.
 *
 * One invocation = one run against one already started server (verso forkless,
 * verso fork or redis-server): fill N keys `key:%012d` with V seeded random
 * bytes (pipelined), settle, then for the rest of the run
 *   - 8 (--conns) threads send random SETs to existing keys (pipeline depth
 *     --pipeline), counting completed SETs and keeping every round trip;
 *   With --workload coll (make bench-collections) the data set is instead
 *   --coll-keys hashes, lists and sorted sets of --coll-elems elements each
 *   (hash fields `f:%014d` 16 B with 32 B values, list elements 32 B, zset
 *   members `m:%014d` 16 B), and the writers send, at random, HSET of an
 *   existing field, RPUSH then LPOP, or ZADD of an existing member with a new
 *   score, each to a random big key (one command in flight per connection);
 *   - one thread sends PING every 2 ms and keeps every round trip;
 *   - one thread samples every 100 ms the summed Pss of the server and of any
 *     child process (/proc/PID/smaps_rollup; children found by ppid in
 *     /proc/STAT), the SETs completed and the worst PING of the interval;
 *   - the main thread (a 10th connection) sends BGSAVE at t=2 s, polls INFO
 *     persistence every 20 ms until rdb_bgsave_in_progress:0, keeps the load
 *     for 1 s more, then reads the final INFO figures.
 * With --replica-port (make bench-replication, bench/replication.sh) the
 * save is a full sync instead: at t=2 s REPLICAOF to an empty replica, the
 * replica's INFO polled every 20 ms until master_link_status:up (see "the
 * replication leg" below), then, after the load, a check that the replica
 * holds the primary's data; its TSV has columns of its own.
 * It appends the samples to a CSV and one line of figures to a TSV; bench/
 * spike.sh starts the servers, calls this per run and summarises. All times
 * come from CLOCK_MONOTONIC; t_ms is relative to the start of the load.
 */
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
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define POOL_BYTES (1u << 20)   /* random bytes the load takes values from */
#define FILL_BATCH 1000         /* SETs per pipelined batch while filling */

struct opts {
    const char *host, *method, *csv, *tsv, *dir;
    int port, run, conns, pipeline;
    int coll;                   /* --workload coll */
    int fill_only;              /* --fill-only 1: fill, then exit */
    long coll_keys, coll_elems;
    long pid;                   /* expected server pid, 0 = any */
    long keys, vsize;
    long rate;                  /* total SET/s to aim at, 0 = as fast as possible */
    uint64_t seed;
    int settle_ms, bgsave_at_ms, tail_ms, sample_ms, ping_ms, poll_ms;
    int obuf_ms;      /* period of the primary's INFO memory poll (0: never) */
    int max_save_s;
    int replica_port;           /* --replica-port: the replication leg (below) */
    int master_port;            /* --master-port: the port REPLICAOF names (the
                                   primary's TLS port under bench-tls), else --port */
    int handshake_s;            /* --handshake-s: no transfer by then = fail */
    const char *log;            /* --log: the server's log ("took N us") */
};

struct sample {                 /* one row of the samples CSV */
    int64_t t_ms, pss;
    int64_t rss;                /* the server process's own RSS */
    int64_t obuf;               /* primary's replication buffers, -1 unknown */
    double sets_per_s, ping_ms;
    int saving;
};

struct ping { int64_t sent_ns, rtt_ns; };
/* One write's round trip (a pipelined batch's, with --pipeline > 1). */
struct lat { int64_t sent_ns, rtt_ns; };
struct lats { struct lat *v; size_t n, cap; };

/* Shared between the threads. Written as noted; all atomics, relaxed order. */
static struct {
    struct opts o;
    int64_t t0_ns;                  /* load start; set before threads start */
    long server_pid;                /* set before threads start */
    long replica_pid;               /* sync mode; set before threads start */
    const char *pool;               /* random value pool, read-only */
    atomic_int go, stop;            /* main thread sets */
    atomic_int saving;              /* main thread sets: BGSAVE sent, not done */
    atomic_llong sets_done;         /* SET threads add */
    struct lats lat[64];            /* SET thread i only, read after join */
    atomic_llong ping_max_ns;       /* PING thread maxes, sampler resets */
    struct ping *pings;             /* PING thread only, read after join */
    size_t npings, cap_pings;
    int ping_fifo;                  /* PING thread got SCHED_FIFO; read after join */
    struct sample *samples;         /* sampler only, read after join */
    size_t nsamples, cap_samples;
    char errmsg[256];
    atomic_int failed;              /* any thread sets on error */
    atomic_llong obuf;              /* main thread sets (sync mode), sampler reads */
} G;

/* ---------- small helpers ---------- */

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

static void fail(const char *fmt, const char *what)
{
    if (atomic_exchange(&G.failed, 1) == 0)
        snprintf(G.errmsg, sizeof G.errmsg, fmt, what);
    atomic_store(&G.stop, 1);
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill_random(char *buf, size_t len, uint64_t *s)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t r = splitmix64(s);
        memcpy(buf + i, &r, 8);
    }
    if (i < len) {
        uint64_t r = splitmix64(s);
        memcpy(buf + i, &r, len - i);
    }
}

static redisContext *connect_port(int port)
{
    struct timeval tv = { 5, 0 };
    redisContext *c = redisConnectWithTimeout(G.o.host, port, tv);
    if (!c || c->err) {
        fprintf(stderr, "spike: connect %s:%d: %s\n", G.o.host, port,
                c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    struct timeval rt = { G.o.max_save_s + 30, 0 };
    redisSetTimeout(c, rt);
    return c;
}

static redisContext *connect_server(void)
{
    return connect_port(G.o.port);
}

/* Value of `field:` in an INFO reply, or -1 if absent. */
static long long info_ll(const char *info, const char *field)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\n%s:", field);
    const char *p = strstr(info, pat);
    return p ? strtoll(p + strlen(pat), NULL, 10) : -1;
}

static void info_str(const char *info, const char *field, char *out, size_t n)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\n%s:", field);
    const char *p = strstr(info, pat);
    size_t i = 0;
    if (p)
        for (p += strlen(pat); *p && *p != '\r' && *p != '\n' && i + 1 < n; p++)
            out[i++] = *p;
    out[i] = '\0';
    if (i == 0)
        snprintf(out, n, "-");
}

/* INFO <section> as a malloc'd string, NULL on error. */
static char *info_get(redisContext *c, const char *section)
{
    redisReply *r = redisCommand(c, "INFO %s", section);
    if (!r || r->type != REDIS_REPLY_STRING) {
        if (r)
            freeReplyObject(r);
        return NULL;
    }
    char *s = malloc(r->len + 2);
    s[0] = '\n';                    /* so every field follows a '\n' */
    memcpy(s + 1, r->str, r->len + 1);
    freeReplyObject(r);
    return s;
}

/* ---------- fill ---------- */

static int fill(redisContext *c)
{
    uint64_t s = G.o.seed;
    char key[32], *val = malloc(G.o.vsize);
    const char *argv[3] = { "SET", key, val };
    size_t argl[3] = { 3, 0, (size_t)G.o.vsize };
    for (long base = 0; base < G.o.keys; base += FILL_BATCH) {
        long n = G.o.keys - base < FILL_BATCH ? G.o.keys - base : FILL_BATCH;
        for (long i = 0; i < n; i++) {
            argl[1] = (size_t)snprintf(key, sizeof key, "key:%012ld", base + i);
            fill_random(val, G.o.vsize, &s);
            redisAppendCommandArgv(c, 3, argv, argl);
        }
        for (long i = 0; i < n; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK ||
                r->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "spike: fill SET failed: %s\n",
                        r ? r->str : c->errstr);
                free(val);
                return -1;
            }
            freeReplyObject(r);
        }
    }
    free(val);
    return 0;
}

/* Collections: coll_keys each of hashes h:K, lists l:K, zsets z:K with
 * coll_elems elements, 1000 per command, 16 commands in flight. */
#define COLL_BATCH 1000
#define COLL_DEPTH 16

static int coll_reply(redisContext *c)
{
    redisReply *r = NULL;
    if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "spike: fill failed: %s\n", r ? r->str : c->errstr);
        if (r) freeReplyObject(r);
        return -1;
    }
    freeReplyObject(r);
    return 0;
}

static int fill_coll(redisContext *c)
{
    uint64_t s = G.o.seed;
    size_t max = 2 + 2 * COLL_BATCH;
    const char **argv = malloc(max * sizeof *argv);
    size_t *argl = malloc(max * sizeof *argl);
    char *buf = malloc((size_t)COLL_BATCH * 64 + 64);
    long inflight = 0;
    for (int type = 0; type < 3; type++) {
        for (long k = 0; k < G.o.coll_keys; k++) {
            char key[32];
            int kl = snprintf(key, sizeof key, "%c:%ld", "hlz"[type], k);
            for (long base = 0; base < G.o.coll_elems; base += COLL_BATCH) {
                long n = G.o.coll_elems - base < COLL_BATCH ? G.o.coll_elems - base : COLL_BATCH;
                size_t argc = 0;
                char *p = buf;
                argv[argc] = type == 0 ? "HSET" : type == 1 ? "RPUSH" : "ZADD";
                argl[argc] = strlen(argv[argc]);
                argc++;
                argv[argc] = key;
                argl[argc++] = (size_t)kl;
                for (long i = 0; i < n; i++) {
                    uint64_t r = splitmix64(&s);
                    if (type == 0 || type == 2) { /* field / score first */
                        if (type == 0) {
                            argl[argc] = (size_t)sprintf(p, "f:%014ld", base + i);
                        } else {
                            argl[argc] = (size_t)sprintf(p, "%" PRIu64, r % (uint64_t)1000000000);
                        }
                        argv[argc++] = p;
                        p += argl[argc - 1] + 1;
                    }
                    if (type == 2) {
                        argl[argc] = (size_t)sprintf(p, "m:%014ld", base + i);
                        argv[argc++] = p;
                        p += argl[argc - 1] + 1;
                    } else {
                        argv[argc] = G.pool + (r >> 32) % (POOL_BYTES - 32);
                        argl[argc++] = 32;
                    }
                }
                redisAppendCommandArgv(c, (int)argc, argv, argl);
                if (++inflight == COLL_DEPTH) {
                    if (coll_reply(c)) return -1;
                    inflight--;
                }
            }
        }
    }
    while (inflight-- > 0)
        if (coll_reply(c)) return -1;
    free(argv);
    free(argl);
    free(buf);
    return 0;
}

/* ---------- load threads ---------- */

static void lat_add(struct lats *l, int64_t sent, int64_t rtt)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 65536;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) { fail("%s", "out of memory"); return; }
    }
    l->v[l->n++] = (struct lat){ sent, rtt };
}

/* One collection write (or RPUSH then LPOP) to a random big key; each
 * command's round trip is kept. 0, or -1 on an error reply. */
static int coll_op(redisContext *c, uint64_t r, struct lats *l)
{
    char key[32], a[32], b[32];
    long k = (long)((r >> 8) % (uint64_t)G.o.coll_keys);
    long e = (long)((r >> 24) % (uint64_t)G.o.coll_elems);
    const char *val = G.pool + (r >> 32) % (POOL_BYTES - 32);
    const char *argv[4];
    size_t argl[4];
    int argc, n = 1, type = (int)(r % 3);
    argl[1] = (size_t)snprintf(key, sizeof key, "%c:%ld", "hlz"[type], k);
    argv[1] = key;
    for (int step = 0; step < n; step++) {
        if (type == 0) {
            argv[0] = "HSET"; argl[0] = 4;
            argl[2] = (size_t)snprintf(a, sizeof a, "f:%014ld", e); argv[2] = a;
            argv[3] = val; argl[3] = 32; argc = 4;
        } else if (type == 1) {
            n = 2;
            argv[0] = step ? "LPOP" : "RPUSH"; argl[0] = step ? 4 : 5;
            argv[2] = val; argl[2] = 32; argc = step ? 2 : 3;
        } else {
            argv[0] = "ZADD"; argl[0] = 4;
            argl[2] = (size_t)snprintf(b, sizeof b, "%" PRIu64, (r >> 16) % (uint64_t)1000000000);
            argv[2] = b;
            argl[3] = (size_t)snprintf(a, sizeof a, "m:%014ld", e); argv[3] = a; argc = 4;
        }
        int64_t t = now_ns();
        redisReply *rep = redisCommandArgv(c, argc, argv, argl);
        if (!rep || rep->type == REDIS_REPLY_ERROR) {
            fail("write during load failed: %s", rep ? rep->str : c->errstr);
            if (rep) freeReplyObject(rep);
            return -1;
        }
        freeReplyObject(rep);
        lat_add(l, t, now_ns() - t);
        atomic_fetch_add_explicit(&G.sets_done, 1, memory_order_relaxed);
    }
    return 0;
}

static void *set_thread(void *arg)
{
    long idx = (long)arg;
    redisContext *c = connect_server();
    if (!c) {
        fail("%s", "SET connection failed");
        return NULL;
    }
    uint64_t s = G.o.seed * 1000003ULL + (uint64_t)G.o.run * 131ULL + (uint64_t)idx;
    char key[32];
    const char *argv[3] = { "SET", key, NULL };
    size_t argl[3] = { 3, 0, (size_t)G.o.vsize };
    /* With --rate, each connection owes rate/conns SETs per second from t0
     * and sends what it owes, sleeping at least 1 ms when ahead (a wakeup per
     * SET would cost the load generator's core more than the SETs), and
     * catching up when the server was slow: the offered load stays the same. */
    double per_ns = (double)G.o.rate / G.o.conns / 1e9;
    long long sent = 0;
    while (!atomic_load(&G.go) && !atomic_load(&G.stop))
        usleep(200);
    while (G.o.coll && !atomic_load(&G.stop))
        if (coll_op(c, splitmix64(&s), &G.lat[idx]) != 0) {
            redisFree(c);
            return NULL;
        }
    while (!atomic_load(&G.stop)) {
        if (per_ns > 0) {
            int64_t due = G.t0_ns + (int64_t)((double)(sent + 1) / per_ns);
            int64_t now = now_ns();
            if (due > now)
                sleep_until(due > now + 1000000 ? due : now + 1000000);
            sent += G.o.pipeline;
        }
        int64_t t_sent = now_ns();
        for (int i = 0; i < G.o.pipeline; i++) {
            uint64_t r = splitmix64(&s);
            argl[1] = (size_t)snprintf(key, sizeof key, "key:%012ld",
                                       (long)(r % (uint64_t)G.o.keys));
            argv[2] = G.pool + (r >> 32) % (POOL_BYTES - G.o.vsize);
            redisAppendCommandArgv(c, 3, argv, argl);
        }
        for (int i = 0; i < G.o.pipeline; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK ||
                r->type == REDIS_REPLY_ERROR) {
                fail("SET during load failed: %s", r ? r->str : c->errstr);
                redisFree(c);
                return NULL;
            }
            freeReplyObject(r);
            atomic_fetch_add_explicit(&G.sets_done, 1, memory_order_relaxed);
        }
        lat_add(&G.lat[idx], t_sent, now_ns() - t_sent);
    }
    redisFree(c);
    return NULL;
}

static void ping_record(int64_t sent, int64_t rtt)
{
    if (G.npings == G.cap_pings) {
        G.cap_pings = G.cap_pings ? G.cap_pings * 2 : 16384;
        G.pings = realloc(G.pings, G.cap_pings * sizeof *G.pings);
    }
    G.pings[G.npings++] = (struct ping){ sent, rtt };
    long long cur = atomic_load(&G.ping_max_ns);
    while (rtt > cur && !atomic_compare_exchange_weak(&G.ping_max_ns, &cur, rtt))
        ;
}

/* PING every ping_ms on a fixed schedule; a late reply skips missed slots. */
static void *ping_thread(void *arg)
{
    (void)arg;
    redisContext *c = connect_server();
    if (!c) {
        fail("%s", "PING connection failed");
        return NULL;
    }
    /* Real-time priority, so that the PING thread is never kept waiting by
     * the SET threads on the load generator's core: its round trips then
     * measure the server. Falls back to normal priority if not permitted. */
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
            fail("PING failed: %s", r ? r->str : c->errstr);
            break;
        }
        freeReplyObject(r);
        ping_record(t, rtt);
        int64_t now = t + rtt;
        next += period;
        if (next <= now)
            next += ((now - next) / period + 1) * period;
    }
    redisFree(c);
    return NULL;
}

/* ---------- memory sampling ---------- */

/* Reads a small /proc file into buf (NUL-terminated); -1 if it is gone. */
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

/* Pss of one process in bytes (and its Rss if rss); 0 if it is gone or a
 * zombie. */
static int64_t pss_of(long pid, int64_t *rss)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%ld/smaps_rollup", pid);
    if (read_proc(path, buf, sizeof buf) != 0)
        return 0;
    const char *p = strstr(buf, "\nRss:");
    if (rss)
        *rss = p ? strtoll(p + 5, NULL, 10) * 1024 : 0;
    p = strstr(buf, "\nPss:");
    return p ? strtoll(p + 5, NULL, 10) * 1024 : 0;
}

/* What /proc/PID/stat says of a process: ppid, and whether it is exiting
 * (PF_EXITING: its memory may be going away while we read). -1 if gone. */
#define PF_EXITING_FLAG 0x4u

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
    /* after ")": state ppid pgrp session tty_nr tpgid flags */
    if (!p || sscanf(p + 1, " %c %ld %*d %*d %*d %*d %u", &state, &ppid, &flags) != 3)
        return -1;
    *exiting = (flags & PF_EXITING_FLAG) && state != 'Z' && state != 'X';
    return ppid;
}

#define MAX_CHILDREN 16

/* Direct children of the server; returns how many, -1 if one is exiting. */
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
        if (stat_of(e->d_name, &exiting) != G.server_pid)
            continue;
        busy |= exiting;
        if (n < MAX_CHILDREN)
            pids[n++] = strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    return busy ? -1 : n;
}

/* Summed Pss of the server and its direct children. Pss splits shared pages
 * between the processes, so the sum counts each page once, but only if no
 * fork or exit happens between the reads: list the children before and
 * after, and read again if the list changed or a child was exiting (a zombie
 * has released its memory already and counts 0, which is consistent). */
static int64_t pss_total(int64_t *rss)
{
    long before[MAX_CHILDREN], after[MAX_CHILDREN];
    int64_t sum = 0;
    for (int attempt = 0; attempt < 50; attempt++) {
        int nb = list_children(before);
        sum = pss_of(G.server_pid, rss);
        for (int i = 0; i < nb; i++)
            sum += pss_of(before[i], NULL);
        int na = list_children(after);
        if (nb >= 0 && na == nb && !memcmp(before, after, (size_t)nb * sizeof *before))
            return sum;
        usleep(2000);
    }
    return sum;   /* could not get a quiet moment in 100 ms: keep the last */
}

static void sample_add(struct sample s)
{
    if (G.nsamples == G.cap_samples) {
        G.cap_samples = G.cap_samples ? G.cap_samples * 2 : 1024;
        G.samples = realloc(G.samples, G.cap_samples * sizeof *G.samples);
    }
    G.samples[G.nsamples++] = s;
}

/* Samples from t = -settle until stop, on a fixed 100 ms schedule. */
static void *sampler_thread(void *arg)
{
    (void)arg;
    int64_t period = (int64_t)G.o.sample_ms * 1000000LL;
    int64_t next = G.t0_ns - (int64_t)G.o.settle_ms * 1000000LL;
    int64_t prev_t = next;
    long long prev_sets = 0;
    for (;;) {
        sleep_until(next);
        int64_t t = now_ns();
        long long sets = atomic_load(&G.sets_done);
        int64_t rss = 0;
        struct sample s = {
            .t_ms = (t - G.t0_ns) / 1000000LL,
            .pss = pss_total(&rss),
            .obuf = atomic_load(&G.obuf),
            .sets_per_s = (double)(sets - prev_sets) * 1e9 / (double)(t - prev_t),
            .ping_ms = (double)atomic_exchange(&G.ping_max_ns, 0) / 1e6,
            .saving = atomic_load(&G.saving),
        };
        s.rss = rss;
        sample_add(s);
        prev_t = t;
        prev_sets = sets;
        if (atomic_load(&G.stop))
            break;
        next += period;
        if (next <= now_ns())
            next = now_ns() + period;
    }
    return NULL;
}

/* ---------- the save ---------- */

/* Jiffies of cores 0 and 1 (server's and load's) from /proc/stat, and the
 * CPU time of the server (with its reaped children) and of this process, to
 * tell a saturated core from a waiting one and our work from anyone else's. */
struct cpu_snap {
    long long busy[2], total[2];    /* busy = all but idle and iowait */
    long long proc;                 /* user + nice + system of both cores */
    long long ours;                 /* server + children + spike */
};

/* utime + stime (+ cutime + cstime if children) of a process, in jiffies. */
static long long proc_jiffies(const char *pid, int children)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    if (read_proc(path, buf, sizeof buf) != 0)
        return 0;
    const char *p = strrchr(buf, ')');
    long long ut, st, cut, cst;
    /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt
     * majflt cmajflt utime stime cutime cstime */
    if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lld %lld %lld %lld",
                     &ut, &st, &cut, &cst) != 4)
        return 0;
    return ut + st + (children ? cut + cst : 0);
}

static void cpu_snap_take(struct cpu_snap *cs)
{
    memset(cs, 0, sizeof *cs);
    FILE *f = fopen("/proc/stat", "r");
    char line[512], pid[32];
    while (f && fgets(line, sizeof line, f)) {
        int cpu;
        long long v[8] = { 0 };
        if (sscanf(line, "cpu%d %lld %lld %lld %lld %lld %lld %lld %lld", &cpu,
                   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 9 ||
            cpu < 0 || cpu > 1)
            continue;
        for (int i = 0; i < 8; i++)
            cs->total[cpu] += v[i];
        cs->busy[cpu] = cs->total[cpu] - v[3] - v[4];
        cs->proc += v[0] + v[1] + v[2];
    }
    if (f)
        fclose(f);
    snprintf(pid, sizeof pid, "%ld", G.server_pid);
    cs->ours = proc_jiffies(pid, 1) + proc_jiffies("self", 0);
    if (G.replica_pid > 0) {            /* sync mode: the replica is ours too */
        snprintf(pid, sizeof pid, "%ld", G.replica_pid);
        cs->ours += proc_jiffies(pid, 1);
    }
}

static double cpu_busy_pct(const struct cpu_snap *a, const struct cpu_snap *b, int cpu)
{
    long long t = b->total[cpu] - a->total[cpu];
    return t > 0 ? 100.0 * (double)(b->busy[cpu] - a->busy[cpu]) / (double)t : -1.0;
}

/* CPU time of other processes on cores 0 and 1, % of both cores' time. */
static double cpu_other_pct(const struct cpu_snap *a, const struct cpu_snap *b)
{
    long long t = b->total[0] - a->total[0] + b->total[1] - a->total[1];
    long long other = (b->proc - a->proc) - (b->ours - a->ours);
    return t > 0 ? 100.0 * (double)(other > 0 ? other : 0) / (double)t : -1.0;
}

struct save_result {
    int64_t t_send, t_reply, t_done;    /* ns */
    long long sets_at_send, sets_at_reply, sets_at_done;
    struct cpu_snap cpu_go, cpu_send, cpu_done;
};

/* BGSAVE at t0 + bgsave_at, then poll INFO until it is done. */
static int run_save(redisContext *c, struct save_result *sr)
{
    sleep_until(G.t0_ns + (int64_t)G.o.bgsave_at_ms * 1000000LL);
    atomic_store(&G.saving, 1);
    cpu_snap_take(&sr->cpu_send);
    sr->sets_at_send = atomic_load(&G.sets_done);
    sr->t_send = now_ns();
    redisReply *r = redisCommand(c, "BGSAVE");
    sr->t_reply = now_ns();
    sr->sets_at_reply = atomic_load(&G.sets_done);
    if (!r || r->type == REDIS_REPLY_ERROR) {
        fprintf(stderr, "spike: BGSAVE failed: %s\n", r ? r->str : c->errstr);
        return -1;
    }
    freeReplyObject(r);
    int64_t poll = (int64_t)G.o.poll_ms * 1000000LL, next = sr->t_reply;
    int64_t deadline = sr->t_reply + (int64_t)G.o.max_save_s * 1000000000LL;
    for (;;) {
        next += poll;
        sleep_until(next);
        char *info = info_get(c, "persistence");
        int64_t t = now_ns();
        long long sets = atomic_load(&G.sets_done);
        if (!info) {
            fprintf(stderr, "spike: INFO failed: %s\n", c->errstr);
            return -1;
        }
        long long busy = info_ll(info, "rdb_bgsave_in_progress");
        free(info);
        if (busy == 0) {
            sr->t_done = t;
            sr->sets_at_done = sets;
            cpu_snap_take(&sr->cpu_done);
            atomic_store(&G.saving, 0);
            return 0;
        }
        if (t > deadline || atomic_load(&G.failed)) {
            fprintf(stderr, "spike: save not done after %d s\n", G.o.max_save_s);
            return -1;
        }
    }
}

/* ---------- the replication leg (--replica-port) ----------
 * Instead of BGSAVE, the main thread sends REPLICAOF <host> <port> at t = 2 s
 * to an empty replica (a redis-server the driver started on --replica-port),
 * then polls every poll_ms the replica's INFO replication until
 * master_link_status:up, and every sample_ms the primary's INFO memory for
 * its replication buffers (G.obuf, which the sampler records). A primary that exits, or no
 * payload byte received (master_sync_read_bytes) within --handshake-s, or no
 * link within --max-save-s, fails the run with a message saying which. */
static redisContext *R_c;           /* the replica; main thread only */

/* The primary's replication buffer bytes (Redis 7.0:
 * mem_total_replication_buffers, else mem_clients_slaves), -1 if it has
 * neither field, -2 if INFO failed. */
static long long primary_obuf(redisContext *c)
{
    char *info = info_get(c, "memory");
    if (!info)
        return -2;
    long long v = info_ll(info, "mem_total_replication_buffers");
    if (v < 0)
        v = info_ll(info, "mem_clients_slaves");
    free(info);
    return v;
}

static int run_sync(redisContext *c, struct save_result *sr)
{
    char port[16], link[64] = "-";
    snprintf(port, sizeof port, "%d", G.o.master_port ? G.o.master_port : G.o.port);
    sleep_until(G.t0_ns + (int64_t)G.o.bgsave_at_ms * 1000000LL);
    atomic_store(&G.saving, 1);
    cpu_snap_take(&sr->cpu_send);
    sr->sets_at_send = atomic_load(&G.sets_done);
    sr->t_send = now_ns();
    redisReply *r = redisCommand(R_c, "REPLICAOF %s %s", G.o.host, port);
    sr->t_reply = now_ns();
    sr->sets_at_reply = atomic_load(&G.sets_done);
    if (!r || r->type != REDIS_REPLY_STATUS) {
        fprintf(stderr, "spike: REPLICAOF failed: %s\n", r ? r->str : R_c->errstr);
        return -1;
    }
    freeReplyObject(r);
    int64_t poll = (int64_t)G.o.poll_ms * 1000000LL, next = sr->t_reply;
    int64_t deadline = sr->t_reply + (int64_t)G.o.max_save_s * 1000000000LL;
    int64_t hs_deadline = sr->t_reply + (int64_t)G.o.handshake_s * 1000000000LL;
    int transfer = 0;
    int64_t next_obuf = 0;
    for (;;) {
        next += poll;
        sleep_until(next);
        char *ri = info_get(R_c, "replication");
        int64_t t = now_ns();
        long long sets = atomic_load(&G.sets_done);
        if (!ri) {
            fprintf(stderr, "spike: replica INFO failed: %s\n", R_c->errstr);
            return -1;
        }
        info_str(ri, "master_link_status", link, sizeof link);
        /* not master_sync_in_progress: a redis replica is in that state
         * for a moment at each failed attempt, between SYNC and -ERR */
        transfer |= info_ll(ri, "master_sync_read_bytes") > 0;
        free(ri);
        if (!strcmp(link, "up")) {
            sr->t_done = t;
            sr->sets_at_done = sets;
            cpu_snap_take(&sr->cpu_done);
            atomic_store(&G.saving, 0);
            return 0;
        }
        /* INFO memory runs on the primary's main thread: once per sample
         * period, not every poll */
        int poll_obuf = G.o.obuf_ms > 0 && t >= next_obuf;
        long long ob = poll_obuf ? primary_obuf(c) : atomic_load(&G.obuf);
        if (poll_obuf)
            next_obuf = t + (int64_t)G.o.obuf_ms * 1000000LL;
        if (ob == -2 || kill((pid_t)G.server_pid, 0) != 0) {
            fprintf(stderr, "spike: primary gone during the sync (%s)\n",
                    ob == -2 ? c->errstr : "process exited");
            return -1;
        }
        atomic_store(&G.obuf, ob);
        if (!transfer && t > hs_deadline) {
            fprintf(stderr, "spike: no transfer started %d s after REPLICAOF "
                    "(replica: master_link_status:%s, no payload byte read): "
                    "the primary does not serve this replica (see the logs)\n",
                    G.o.handshake_s, link);
            return -1;
        }
        if (atomic_load(&G.failed))
            return -1;              /* run_load prints why */
        if (t > deadline) {
            fprintf(stderr, "spike: replica link not up %d s after REPLICAOF "
                    "(master_link_status:%s)\n", G.o.max_save_s, link);
            return -1;
        }
    }
}

/* ---------- results ---------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Median Pss of the samples in [from_ms, to_ms). */
static int64_t baseline_pss(int64_t from_ms, int64_t to_ms)
{
    int64_t *v = malloc((G.nsamples + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < G.nsamples; i++)
        if (G.samples[i].t_ms >= from_ms && G.samples[i].t_ms < to_ms)
            v[n++] = G.samples[i].pss;
    qsort(v, n, sizeof *v, cmp_i64);
    int64_t m = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
    free(v);
    return m;
}

static int64_t peak_pss(int64_t from_ms, int64_t to_ms)
{
    int64_t m = 0;
    for (size_t i = 0; i < G.nsamples; i++)
        if (G.samples[i].t_ms >= from_ms && G.samples[i].t_ms <= to_ms &&
            G.samples[i].pss > m)
            m = G.samples[i].pss;
    return m;
}

/* Worst round trip of the PINGs whose [sent, sent+rtt] overlaps [a, b];
 * counts them and those slower than 2 ms. */
static double worst_ping_ms(int64_t a, int64_t b, size_t *count, size_t *slow)
{
    int64_t m = 0;
    size_t n = 0, n_slow = 0;
    for (size_t i = 0; i < G.npings; i++) {
        const struct ping *p = &G.pings[i];
        if (p->sent_ns <= b && p->sent_ns + p->rtt_ns >= a) {
            n++;
            n_slow += p->rtt_ns > 2000000LL;
            if (p->rtt_ns > m)
                m = p->rtt_ns;
        }
    }
    if (count)
        *count = n;
    if (slow)
        *slow = n_slow;
    return (double)m / 1e6;
}

/* Write round trips sent in [a, b]: p50, p99, max (ms) and how many. */
static void write_lat(int64_t a, int64_t b, double *p50, double *p99, double *max, size_t *count)
{
    size_t n = 0;
    for (int i = 0; i < G.o.conns; i++) n += G.lat[i].n;
    int64_t *v = malloc((n + 1) * sizeof *v);
    n = 0;
    for (int i = 0; i < G.o.conns; i++)
        for (size_t j = 0; j < G.lat[i].n; j++)
            if (G.lat[i].v[j].sent_ns >= a && G.lat[i].v[j].sent_ns <= b)
                v[n++] = G.lat[i].v[j].rtt_ns;
    qsort(v, n, sizeof *v, cmp_i64);
    *p50 = n ? (double)v[n / 2] / 1e6 : 0;
    *p99 = n ? (double)v[n * 99 / 100] / 1e6 : 0;
    *max = n ? (double)v[n - 1] / 1e6 : 0;
    *count = n;
    free(v);
}

static int write_csv(void)
{
    FILE *f = fopen(G.o.csv, "a");
    if (!f) {
        perror(G.o.csv);
        return -1;
    }
    if (ftell(f) == 0)
        fprintf(f, "method,run,t_ms,pss_bytes,sets_per_s,ping_ms,saving,rss_bytes,obuf_bytes\n");
    for (size_t i = 0; i < G.nsamples; i++) {
        const struct sample *s = &G.samples[i];
        fprintf(f, "%s,%d,%" PRId64 ",%" PRId64 ",%.0f,%.3f,%d,%" PRId64 ",%" PRId64 "\n",
                G.o.method, G.o.run, s->t_ms, s->pss, s->sets_per_s, s->ping_ms,
                s->saving, s->rss, s->obuf);
    }
    return fclose(f);
}

static const char *TSV_HEADER =
    "method\trun\tkeys\tvsize\tconns\tpipeline\tfill_s\tbaseline_mb\tpeak_mb"
    "\tgrowth_mb\tsave_s\tinfo_save_s\tbgsave_reply_ms\tsets_before\tsets_during"
    "\tset_ratio\tping_worst_save_ms\tping_worst_before_ms\tping_worst_all_ms\tpings_save\tpings_save_over_2ms\tcow_mb"
    "\tfork_usec\tstall_usec\tpeak_retained_mb\tbgsave_type\tstatus\tdump_bytes"
    "\tcore0_before\tcore1_before\tcore0_during\tcore1_during\tping_fifo"
    "\tother_cpu_pct\trate\twrite_p50_before_ms\twrite_p99_before_ms\twrite_max_before_ms"
    "\twrite_p50_save_ms\twrite_p99_save_ms\twrite_max_save_ms\twrites_save\tworkload\n";

/* An INFO field as text, "-" if the server has no such field (redis has
 * no stall or forkless fields), scaled to MB when mb is set. */
static void info_fmt(const char *info, const char *field, int mb, char *out, size_t n)
{
    long long v = info_ll(info, field);
    if (v < 0)
        snprintf(out, n, "-");
    else if (mb)
        snprintf(out, n, "%.2f", (double)v / 1048576.0);
    else
        snprintf(out, n, "%lld", v);
}

static long long dump_size(void)
{
    char path[1024];
    struct stat st;
    if (!G.o.dir)
        return -1;
    snprintf(path, sizeof path, "%s/dump.rdb", G.o.dir);
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int write_tsv(const struct save_result *sr, double fill_s, const char *info)
{
    FILE *f = fopen(G.o.tsv, "a");
    if (!f) {
        perror(G.o.tsv);
        return -1;
    }
    if (ftell(f) == 0)
        fputs(TSV_HEADER, f);
    int64_t at = G.o.bgsave_at_ms;
    int64_t done_ms = (sr->t_done - G.t0_ns) / 1000000LL;
    int64_t send_ms = (sr->t_send - G.t0_ns) / 1000000LL;
    double base = (double)baseline_pss(at - 1000, at) / 1048576.0;
    double peak = (double)peak_pss(send_ms, done_ms) / 1048576.0;
    double save_s = (double)(sr->t_done - sr->t_reply) / 1e9;
    double before = (double)sr->sets_at_send * 1e9 / (double)(sr->t_send - G.t0_ns);
    double during = (double)(sr->sets_at_done - sr->sets_at_reply) / save_s;
    size_t np = 0, slow = 0;
    double pw_save = worst_ping_ms(sr->t_send, sr->t_done, &np, &slow);
    double pw_all = worst_ping_ms(G.t0_ns, INT64_MAX, NULL, NULL);
    double pw_before = worst_ping_ms(G.t0_ns + 500000000LL, sr->t_send, NULL, NULL);
    char type[32], status[32], tsec[32], cow[32], fork_us[32], stall[32], ret[32];
    info_str(info, "rdb_last_bgsave_type", type, sizeof type);
    info_str(info, "rdb_last_bgsave_status", status, sizeof status);
    info_fmt(info, "rdb_last_bgsave_time_sec", 0, tsec, sizeof tsec);
    info_fmt(info, "rdb_last_cow_size", 1, cow, sizeof cow);
    info_fmt(info, "latest_fork_usec", 0, fork_us, sizeof fork_us);
    info_fmt(info, "rdb_last_bgsave_start_stall_usec", 0, stall, sizeof stall);
    info_fmt(info, "forkless_peak_retained_bytes", 1, ret, sizeof ret);
    double b50, b99, bmax, s50, s99, smax;
    size_t nb, ns;
    write_lat(G.t0_ns + 500000000LL, sr->t_send, &b50, &b99, &bmax, &nb);
    write_lat(sr->t_send, sr->t_done, &s50, &s99, &smax, &ns);
    fprintf(f, "%s\t%d\t%ld\t%ld\t%d\t%d\t%.2f\t%.1f\t%.1f\t%.1f\t%.3f\t%s\t%.2f"
            "\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%zu\t%zu\t%s\t%s\t%s\t%s\t%s\t%s\t%lld"
            "\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%.1f\t%ld\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%zu\t%s\n",
            G.o.method, G.o.run, G.o.keys, G.o.vsize, G.o.conns, G.o.pipeline,
            fill_s, base, peak, peak - base, save_s, tsec,
            (double)(sr->t_reply - sr->t_send) / 1e6, before, during, during / before,
            pw_save, pw_before, pw_all, np, slow, cow, fork_us, stall, ret, type, status,
            dump_size(), cpu_busy_pct(&sr->cpu_go, &sr->cpu_send, 0),
            cpu_busy_pct(&sr->cpu_go, &sr->cpu_send, 1),
            cpu_busy_pct(&sr->cpu_send, &sr->cpu_done, 0),
            cpu_busy_pct(&sr->cpu_send, &sr->cpu_done, 1), G.ping_fifo,
            cpu_other_pct(&sr->cpu_go, &sr->cpu_done), G.o.rate, b50, b99, bmax, s50, s99,
            smax, ns, G.o.coll ? "coll" : "set");
    return fclose(f);
}

/* ---------- the replication leg's results ---------- */

/* Round trips of the PINGs overlapping [a, b]: p50, p99, p99.9, max (ms),
 * how many, how many over 1 ms and over 2 ms. */
struct ping_stats { double p50, p99, p999, max; size_t n, over1, over2; };

static struct ping_stats ping_stats(int64_t a, int64_t b)
{
    struct ping_stats ps = { 0 };
    int64_t *v = malloc((G.npings + 1) * sizeof *v);
    for (size_t i = 0; i < G.npings; i++) {
        const struct ping *p = &G.pings[i];
        if (p->sent_ns <= b && p->sent_ns + p->rtt_ns >= a) {
            v[ps.n++] = p->rtt_ns;
            ps.over1 += p->rtt_ns > 1000000LL;
            ps.over2 += p->rtt_ns > 2000000LL;
        }
    }
    qsort(v, ps.n, sizeof *v, cmp_i64);
    if (ps.n) {
        ps.p50 = (double)v[ps.n / 2] / 1e6;
        ps.p99 = (double)v[ps.n * 99 / 100] / 1e6;
        ps.p999 = (double)v[ps.n * 999 / 1000] / 1e6;
        ps.max = (double)v[ps.n - 1] / 1e6;
    }
    free(v);
    return ps;
}

/* Over the samples in [from_ms, to_ms]: the median RSS (base) and the peaks
 * of RSS, replication buffers and Pss minus those buffers (-1: unknown). */
struct mem_stats { int64_t rss_med, rss_peak, obuf_peak, net_peak; };

static struct mem_stats mem_stats(int64_t from_ms, int64_t to_ms)
{
    struct mem_stats m = { 0, 0, -1, -1 };
    int64_t *v = malloc((G.nsamples + 1) * sizeof *v);
    size_t n = 0;
    for (size_t i = 0; i < G.nsamples; i++) {
        const struct sample *s = &G.samples[i];
        if (s->t_ms < from_ms || s->t_ms > to_ms)
            continue;
        v[n++] = s->rss;
        if (s->rss > m.rss_peak)
            m.rss_peak = s->rss;
        if (s->obuf >= 0 && s->obuf > m.obuf_peak)
            m.obuf_peak = s->obuf;
        if (s->obuf >= 0 && s->pss - s->obuf > m.net_peak)
            m.net_peak = s->pss - s->obuf;
    }
    qsort(v, n, sizeof *v, cmp_i64);
    m.rss_med = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
    free(v);
    return m;
}

/* The last "took N us" in the server's log (verso: "start took", "fork
 * took"); -1 if none (redis-server logs no such figure). */
static long long log_took_us(void)
{
    FILE *f = G.o.log ? fopen(G.o.log, "r") : NULL;
    char line[2048];
    long long v = -1;
    while (f && fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " took ");
        char *e;
        long long x = p ? strtoll(p + 6, &e, 10) : -1;
        if (p && e != p + 6 && !strncmp(e, " us", 3))
            v = x;
    }
    if (f)
        fclose(f);
    return v;
}

static long long int_reply(redisContext *c, const char *cmd, const char *key)
{
    redisReply *r = key ? redisCommand(c, "%s %s", cmd, key) : redisCommand(c, "%s", cmd);
    long long v = r && r->type == REDIS_REPLY_INTEGER ? r->integer : -1;
    if (r)
        freeReplyObject(r);
    return v;
}

/* 1 if GET key (or HGET key field) reads the same on both servers. */
static int same_value(redisContext *c, const char *key, const char *field)
{
    redisReply *a = field ? redisCommand(c, "HGET %s %s", key, field) : redisCommand(c, "GET %s", key);
    redisReply *b = field ? redisCommand(R_c, "HGET %s %s", key, field) : redisCommand(R_c, "GET %s", key);
    int same = a && b && a->type == b->type && a->len == b->len &&
               (a->type != REDIS_REPLY_STRING || !memcmp(a->str, b->str, a->len));
    if (a) freeReplyObject(a);
    if (b) freeReplyObject(b);
    return same;
}

/* After the load: wait (up to 30 s) until the replica's slave_repl_offset
 * equals the primary's master_repl_offset, then compare DBSIZE and a sample
 * of the data (1000 random keys; with the collections, every big key's
 * length and 10 fields of each hash). Returns "ok" or what differs. */
static const char *verify_replica(redisContext *c, double *catchup_s)
{
    int64_t t0 = now_ns(), deadline = t0 + 30000000000LL;
    long long po, ro;
    for (;;) {
        char *pi = info_get(c, "replication"), *ri = info_get(R_c, "replication");
        po = pi ? info_ll(pi, "master_repl_offset") : -1;
        ro = ri ? info_ll(ri, "slave_repl_offset") : -1;
        free(pi);
        free(ri);
        if (po >= 0 && po == ro)
            break;
        if (now_ns() > deadline) {
            fprintf(stderr, "spike: replica at offset %lld, primary at %lld, 30 s after the load\n", ro, po);
            return "behind";
        }
        usleep(20000);
    }
    *catchup_s = (double)(now_ns() - t0) / 1e9;
    if (int_reply(c, "DBSIZE", NULL) != int_reply(R_c, "DBSIZE", NULL))
        return "dbsize-differs";
    uint64_t s = G.o.seed + 77;
    char key[32], field[32];
    if (!G.o.coll) {
        for (int i = 0; i < 1000; i++) {
            snprintf(key, sizeof key, "key:%012ld", (long)(splitmix64(&s) % (uint64_t)G.o.keys));
            if (!same_value(c, key, NULL))
                return "value-differs";
        }
        return "ok";
    }
    static const char *len_cmd[3] = { "HLEN", "LLEN", "ZCARD" };
    for (int type = 0; type < 3; type++)
        for (long k = 0; k < G.o.coll_keys; k++) {
            snprintf(key, sizeof key, "%c:%ld", "hlz"[type], k);
            if (int_reply(c, len_cmd[type], key) != int_reply(R_c, len_cmd[type], key))
                return "length-differs";
            for (int i = 0; type == 0 && i < 10; i++) {
                snprintf(field, sizeof field, "f:%014ld", (long)(splitmix64(&s) % (uint64_t)G.o.coll_elems));
                if (!same_value(c, key, field))
                    return "value-differs";
            }
        }
    return "ok";
}

static const char *SYNC_TSV_HEADER =
    "method\trun\tworkload\tkeys\tvsize\tconns\tfill_s\tbaseline_mb\tpeak_mb\tgrowth_mb"
    "\trss_baseline_mb\trss_growth_mb\tobuf_peak_mb\tgrowth_net_mb\tlink_up_s\treplicaof_reply_ms"
    "\tsets_before\tsets_during\tset_ratio\tping_worst_sync_ms\tping_p50_sync_ms"
    "\tping_p99_sync_ms\tping_p999_sync_ms\tpings_sync\tpings_sync_over_1ms"
    "\tpings_sync_over_2ms\tping_p50_before_ms\tping_p99_before_ms\tping_worst_before_ms"
    "\twrite_p50_before_ms\twrite_p99_before_ms\twrite_max_before_ms\twrite_p50_sync_ms"
    "\twrite_p99_sync_ms\twrite_max_sync_ms\tfork_usec\tstall_usec\tlog_took_us\tcow_mb"
    "\tcore0_before\tcore0_during\tcore1_before\tcore1_during\tother_cpu_pct\tping_fifo"
    "\tcatchup_s\tstatus\n";

static int write_tsv_sync(const struct save_result *sr, double fill_s, const char *info,
                          const char *status, double catchup_s)
{
    FILE *f = fopen(G.o.tsv, "a");
    if (!f) {
        perror(G.o.tsv);
        return -1;
    }
    if (ftell(f) == 0)
        fputs(SYNC_TSV_HEADER, f);
    int64_t at = G.o.bgsave_at_ms, MB = 1048576;
    int64_t done_ms = (sr->t_done - G.t0_ns) / 1000000LL;
    int64_t send_ms = (sr->t_send - G.t0_ns) / 1000000LL;
    double base = (double)baseline_pss(at - 1000, at) / MB;
    double peak = (double)peak_pss(send_ms, done_ms) / MB;
    struct mem_stats mb = mem_stats(at - 1000, at - 1), md = mem_stats(send_ms, done_ms);
    double sync_s = (double)(sr->t_done - sr->t_reply) / 1e9;
    double before = (double)sr->sets_at_send * 1e9 / (double)(sr->t_send - G.t0_ns);
    double during = (double)(sr->sets_at_done - sr->sets_at_reply) / sync_s;
    struct ping_stats ps = ping_stats(sr->t_send, sr->t_done);
    struct ping_stats pb = ping_stats(G.t0_ns + 500000000LL, sr->t_send);
    double b50, b99, bmax, s50, s99, smax;
    size_t nb, ns;
    write_lat(G.t0_ns + 500000000LL, sr->t_send, &b50, &b99, &bmax, &nb);
    write_lat(sr->t_send, sr->t_done, &s50, &s99, &smax, &ns);
    char fork_us[32], stall[32], cow[32], obuf[32] = "-", net[32] = "-", took[32] = "-";
    long long took_us = log_took_us();
    if (took_us >= 0)
        snprintf(took, sizeof took, "%lld", took_us);
    info_fmt(info, "latest_fork_usec", 0, fork_us, sizeof fork_us);
    info_fmt(info, "rdb_last_bgsave_start_stall_usec", 0, stall, sizeof stall);
    info_fmt(info, "rdb_last_cow_size", 1, cow, sizeof cow);
    if (md.obuf_peak >= 0) {
        snprintf(obuf, sizeof obuf, "%.2f", (double)md.obuf_peak / MB);
        snprintf(net, sizeof net, "%.1f", (double)md.net_peak / MB - base);
    }
    fprintf(f, "%s\t%d\t%s\t%ld\t%ld\t%d\t%.2f\t%.1f\t%.1f\t%.1f", G.o.method, G.o.run,
            G.o.coll ? "coll" : "set", G.o.keys, G.o.vsize, G.o.conns, fill_s, base, peak,
            peak - base);
    fprintf(f, "\t%.1f\t%.1f\t%s\t%s\t%.3f\t%.2f", (double)mb.rss_med / MB,
            (double)(md.rss_peak - mb.rss_med) / MB, obuf, net, sync_s,
            (double)(sr->t_reply - sr->t_send) / 1e6);
    fprintf(f, "\t%.0f\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%zu\t%zu\t%zu\t%.3f\t%.3f\t%.3f",
            before, during, during / before, ps.max, ps.p50, ps.p99, ps.p999, ps.n,
            ps.over1, ps.over2, pb.p50, pb.p99, pb.max);
    fprintf(f, "\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t%s\t%s\t%s", b50, b99, bmax, s50,
            s99, smax, fork_us, stall, took, cow);
    fprintf(f, "\t%.0f\t%.0f\t%.0f\t%.0f\t%.1f\t%d\t%.2f\t%s\n",
            cpu_busy_pct(&sr->cpu_go, &sr->cpu_send, 0), cpu_busy_pct(&sr->cpu_send, &sr->cpu_done, 0),
            cpu_busy_pct(&sr->cpu_go, &sr->cpu_send, 1), cpu_busy_pct(&sr->cpu_send, &sr->cpu_done, 1),
            cpu_other_pct(&sr->cpu_go, &sr->cpu_done), G.ping_fifo, catchup_s, status);
    return fclose(f);
}

/* ---------- main ---------- */

static void usage(void)
{
    fprintf(stderr,
        "usage: spike --port N --method NAME --run R --csv FILE --tsv FILE\n"
        "             [--dir D] [--keys 1000000] [--value 300] [--conns 8]\n"
        "             [--pipeline 1] [--seed 1] [--host 127.0.0.1]\n"
        "             [--max-save-s 300] [--pid SERVER_PID] [--sample-ms 100]\n"
        "             [--rate TOTAL_SET_PER_S (0 = closed loop)]\n"
        "             [--workload set|coll] [--coll-keys 20] [--coll-elems 500000]\n"
        "             [--fill-only 1]\n"
        "             [--replica-port P [--handshake-s 15] [--log SERVER_LOG]]\n");
    exit(2);
}

static void parse_args(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){ .host = "127.0.0.1", .method = NULL, .port = 0, .run = 1,
        .conns = 8, .pipeline = 1, .keys = 1000000, .vsize = 300, .seed = 1,
        .settle_ms = 1000, .bgsave_at_ms = 2000, .tail_ms = 1000,
        .sample_ms = 100, .obuf_ms = 100, .ping_ms = 2, .poll_ms = 20, .max_save_s = 300,
        .coll_keys = 20, .coll_elems = 500000, .handshake_s = 15 };
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--port")) o->port = atoi(v);
        else if (!strcmp(k, "--host")) o->host = v;
        else if (!strcmp(k, "--method")) o->method = v;
        else if (!strcmp(k, "--run")) o->run = atoi(v);
        else if (!strcmp(k, "--csv")) o->csv = v;
        else if (!strcmp(k, "--tsv")) o->tsv = v;
        else if (!strcmp(k, "--dir")) o->dir = v;
        else if (!strcmp(k, "--keys")) o->keys = atol(v);
        else if (!strcmp(k, "--value")) o->vsize = atol(v);
        else if (!strcmp(k, "--conns")) o->conns = atoi(v);
        else if (!strcmp(k, "--pipeline")) o->pipeline = atoi(v);
        else if (!strcmp(k, "--seed")) o->seed = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--max-save-s")) o->max_save_s = atoi(v);
        else if (!strcmp(k, "--pid")) o->pid = atol(v);
        else if (!strcmp(k, "--sample-ms")) o->sample_ms = atoi(v);
        else if (!strcmp(k, "--obuf-ms")) o->obuf_ms = atoi(v);
        else if (!strcmp(k, "--rate")) o->rate = atol(v);
        else if (!strcmp(k, "--workload")) o->coll = !strcmp(v, "coll");
        else if (!strcmp(k, "--coll-keys")) o->coll_keys = atol(v);
        else if (!strcmp(k, "--coll-elems")) o->coll_elems = atol(v);
        else if (!strcmp(k, "--fill-only")) o->fill_only = atoi(v);
        else if (!strcmp(k, "--replica-port")) o->replica_port = atoi(v);
        else if (!strcmp(k, "--master-port")) o->master_port = atoi(v);
        else if (!strcmp(k, "--handshake-s")) o->handshake_s = atoi(v);
        else if (!strcmp(k, "--log")) o->log = v;
        else usage();
    }
    if (argc % 2 == 0 || !o->port || !o->method || !o->csv || !o->tsv ||
        o->keys < 1 || o->vsize < 1 || o->vsize > (long)POOL_BYTES / 2 ||
        o->conns < 1 || o->conns > 64 || o->pipeline < 1 || o->sample_ms < 10 ||
        o->rate < 0 || o->coll_keys < 1 || o->coll_elems < 1 || (o->coll && o->pipeline != 1))
        usage();
}

/* Starts the load, runs the save, stops; returns 0 if all went well. */
static int run_load(redisContext *c, struct save_result *sr)
{
    pthread_t sets[64], ping, sampler;
    G.t0_ns = now_ns() + (int64_t)G.o.settle_ms * 1000000LL;
    pthread_create(&sampler, NULL, sampler_thread, NULL);
    for (long i = 0; i < G.o.conns; i++)
        pthread_create(&sets[i], NULL, set_thread, (void *)i);
    pthread_create(&ping, NULL, ping_thread, NULL);
    sleep_until(G.t0_ns);
    atomic_store(&G.go, 1);
    cpu_snap_take(&sr->cpu_go);
    int rc = G.o.replica_port ? run_sync(c, sr) : run_save(c, sr);
    if (rc == 0)
        sleep_until(sr->t_done + (int64_t)G.o.tail_ms * 1000000LL);
    atomic_store(&G.stop, 1);
    for (int i = 0; i < G.o.conns; i++)
        pthread_join(sets[i], NULL);
    pthread_join(ping, NULL);
    pthread_join(sampler, NULL);
    if (atomic_load(&G.failed)) {
        fprintf(stderr, "spike: %s\n", G.errmsg);
        return -1;
    }
    return rc;
}

int main(int argc, char **argv)
{
    parse_args(argc, argv, &G.o);
    redisContext *c = connect_server();
    if (!c)
        return 1;
    char *info = info_get(c, "server");
    G.server_pid = info ? info_ll(info, "process_id") : -1;
    free(info);
    if (G.server_pid <= 0 || (G.o.pid && G.o.pid != G.server_pid)) {
        fprintf(stderr, "spike: server on port %d has pid %ld, expected %ld\n",
                G.o.port, G.server_pid, G.o.pid);
        return 1;
    }
    atomic_store(&G.obuf, -1);
    if (G.o.replica_port) {
        if (!(R_c = connect_port(G.o.replica_port)))
            return 1;
        info = info_get(R_c, "server");
        G.replica_pid = info ? info_ll(info, "process_id") : -1;
        free(info);
    }
    char *pool = malloc(POOL_BYTES);
    uint64_t ps = G.o.seed ^ 0x5deece66dULL;
    fill_random(pool, POOL_BYTES, &ps);
    G.pool = pool;
    int64_t tf = now_ns();
    if ((G.o.coll ? fill_coll(c) : fill(c)) != 0)
        return 1;
    if (G.o.fill_only) {
        fprintf(stderr, "spike: filled in %.1f s\n", (double)(now_ns() - tf) / 1e9);
        free(pool);
        redisFree(c);
        return 0;
    }
    double fill_s = (double)(now_ns() - tf) / 1e9;
    struct save_result sr = { 0 };
    if (run_load(c, &sr) != 0)
        return 1;
    /* redis has latest_fork_usec in stats, verso in persistence */
    char *ip = info_get(c, "persistence"), *is = info_get(c, "stats");
    if (!ip || !is) {
        fprintf(stderr, "spike: final INFO failed\n");
        return 1;
    }
    info = malloc(strlen(ip) + strlen(is) + 1);
    strcpy(info, ip);
    strcat(info, is);
    free(ip);
    free(is);
    const char *status = "ok";
    double catchup_s = -1;
    if (R_c)
        status = verify_replica(c, &catchup_s);
    int rc = write_csv() || (R_c ? write_tsv_sync(&sr, fill_s, info, status, catchup_s)
                                 : write_tsv(&sr, fill_s, info));
    fprintf(stderr, "spike: %s run %d: fill %.1f s, %s %.2f s, %zu samples, %zu pings%s%s\n",
            G.o.method, G.o.run, fill_s, R_c ? "sync (REPLICAOF to link up)" : "save",
            (double)(sr.t_done - sr.t_reply) / 1e9, G.nsamples, G.npings,
            R_c ? ", replica check: " : "", R_c ? status : "");
    if (R_c)
        redisFree(R_c);
    free(info);
    free(pool);
    free(G.samples);
    free(G.pings);
    for (int i = 0; i < G.o.conns; i++) free(G.lat[i].v);
    redisFree(c);
    return rc ? 1 : 0;
}
