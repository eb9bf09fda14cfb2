/* clusterload.c: the cluster benchmark's client (bench/cluster.sh, `make
 * bench-cluster`): a Redis Cluster client in the way cluster clients work
 * (a slot map from CLUSTER SLOTS, -MOVED updates it, -ASK sends ASKING and
 * the command to the named node, -TRYAGAIN retries), against any seed node
 * of a cluster of verso or redis-server nodes. One invocation, one job:
 *
 *   --mode fill   --keys N keys `key:%012d` of --value B bytes (seeded:
 *                 every server gets the same data), pipelined 1000 deep
 *                 per node;
 *   --mode zset   one sorted set --key K of --members M members
 *                 (`m:%010d`, score = index), ZADDs of 500 members, 20 in
 *                 flight;
 *   --mode load   --conns C threads, one SET in flight each, to random
 *                 keys of the --keys filled (values from a 1 MiB random
 *                 pool), until the file --stop exists (or --seconds); a
 *                 PING every 2 ms to --ping-port (SCHED_FIFO when allowed)
 *                 keeps every round trip; every 100 ms the RSS of --pids
 *                 (comma-separated) is sampled. Latency is what the
 *                 application sees: first send to the final OK, redirects
 *                 included. Prints one line of `name=value` figures.
 *
 * Times are CLOCK_MONOTONIC. The slot of a key is src/base/keyslot.c's. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <hiredis.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keyslot.h"

#define MAX_CONNS 64
#define MAX_NODES 64
#define MAX_PIDS 8
#define POOL_LEN (1u << 20)

struct opts {
    const char *host, *mode, *key, *stop, *pids;
    int port, conns, value, ping_port, seconds;
    long keys, members;
    uint64_t seed;
};

struct lats { uint32_t *us; size_t n, cap; };

static struct {
    struct opts o;
    pthread_rwlock_t map_lock;
    char *owner[KEYSLOT_COUNT];          /* "ip:port" of the slot's primary, under map_lock */
    char *pool;                          /* POOL_LEN random bytes, read-only after start */
    atomic_int stop;
    atomic_llong ops, moved, ask, tryagain, other;
    struct lats set_lat[MAX_CONNS];      /* writer i only; read after join */
    struct lats ping_lat;                /* ping thread only */
    long long rss0[MAX_PIDS], rss_max[MAX_PIDS];
    int pid[MAX_PIDS], npids;
    char first_error[256];
} G;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void die(const char *what) {
    fprintf(stderr, "clusterload: %s\n", what);
    exit(1);
}

static void lat_add(struct lats *l, int64_t ns) {
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1 << 16;
        l->us = realloc(l->us, l->cap * sizeof *l->us);
        if (!l->us) die("out of memory");
    }
    int64_t us = ns / 1000;
    l->us[l->n++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* ---- the slot map ---- */

static void map_set(unsigned slot, const char *endpoint) {
    pthread_rwlock_wrlock(&G.map_lock);
    if (!G.owner[slot] || strcmp(G.owner[slot], endpoint) != 0) {
        free(G.owner[slot]);
        G.owner[slot] = strdup(endpoint);
    }
    pthread_rwlock_unlock(&G.map_lock);
}

/* Copies the owner of slot into buf; 0, or -1 when the slot has none. */
static int map_get(unsigned slot, char *buf, size_t cap) {
    pthread_rwlock_rdlock(&G.map_lock);
    int rc = -1;
    if (G.owner[slot]) {
        snprintf(buf, cap, "%s", G.owner[slot]);
        rc = 0;
    }
    pthread_rwlock_unlock(&G.map_lock);
    return rc;
}

static void map_load(redisContext *c) {
    redisReply *r = redisCommand(c, "CLUSTER SLOTS");
    if (!r || r->type != REDIS_REPLY_ARRAY) die("CLUSTER SLOTS failed");
    for (size_t i = 0; i < r->elements; i++) {
        redisReply *e = r->element[i];
        if (e->elements < 3) continue;
        char ep[128];
        const char *ip = e->element[2]->element[0]->str;
        snprintf(ep, sizeof ep, "%s:%lld", ip && *ip ? ip : G.o.host,
                 e->element[2]->element[1]->integer);
        for (long long s = e->element[0]->integer; s <= e->element[1]->integer; s++)
            map_set((unsigned)s, ep);
    }
    freeReplyObject(r);
}

/* ---- one thread's connections, one per node ---- */

struct conns { char *name[MAX_NODES]; redisContext *c[MAX_NODES]; int n; };

static redisContext *conn_to(struct conns *cs, const char *endpoint) {
    for (int i = 0; i < cs->n; i++)
        if (strcmp(cs->name[i], endpoint) == 0) {
            if (cs->c[i]->err == 0) return cs->c[i];
            redisFree(cs->c[i]);
            cs->c[i] = NULL;
            char host[100];
            int port;
            if (sscanf(endpoint, "%99[^:]:%d", host, &port) != 2) die("bad endpoint");
            cs->c[i] = redisConnect(host, port);
            if (!cs->c[i] || cs->c[i]->err) die("reconnect failed");
            return cs->c[i];
        }
    if (cs->n == MAX_NODES) die("too many nodes");
    char host[100];
    int port;
    if (sscanf(endpoint, "%99[^:]:%d", host, &port) != 2) die("bad endpoint");
    redisContext *c = redisConnect(host, port);
    if (!c || c->err) die("connect failed");
    cs->name[cs->n] = strdup(endpoint);
    cs->c[cs->n++] = c;
    return c;
}

static void conns_free(struct conns *cs) {
    for (int i = 0; i < cs->n; i++) {
        if (cs->c[i]) redisFree(cs->c[i]);
        free(cs->name[i]);
    }
    cs->n = 0;
}

static void note_error(const char *s) {
    if (!G.first_error[0]) snprintf(G.first_error, sizeof G.first_error, "%s", s);
}

/* Runs one command (argv) for a key of slot `slot` as a cluster client does:
 * follows MOVED (updating the map) and ASK, retries TRYAGAIN. 0 on a reply
 * that is not an error, -1 on another error. */
static int cluster_call(struct conns *cs, unsigned slot, int argc, const char **argv,
                        const size_t *lens) {
    char ep[128];
    if (map_get(slot, ep, sizeof ep) != 0) die("a slot has no owner");
    int asking = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        redisContext *c = conn_to(cs, ep);
        if (asking) redisAppendCommand(c, "ASKING");
        redisAppendCommandArgv(c, argc, argv, lens);
        redisReply *r = NULL;
        if (asking) {
            if (redisGetReply(c, (void **)&r) != REDIS_OK) return -1;
            freeReplyObject(r);
        }
        if (redisGetReply(c, (void **)&r) != REDIS_OK) {
            note_error("connection error");
            atomic_fetch_add(&G.other, 1);
            return -1;
        }
        asking = 0;
        if (r->type != REDIS_REPLY_ERROR) {
            freeReplyObject(r);
            return 0;
        }
        unsigned s;
        char target[128];
        if (sscanf(r->str, "MOVED %u %127s", &s, target) == 2) {
            atomic_fetch_add(&G.moved, 1);
            map_set(s, target);
            snprintf(ep, sizeof ep, "%s", target);
        } else if (sscanf(r->str, "ASK %u %127s", &s, target) == 2) {
            atomic_fetch_add(&G.ask, 1);
            snprintf(ep, sizeof ep, "%s", target);
            asking = 1;
        } else if (strncmp(r->str, "TRYAGAIN", 8) == 0) {
            atomic_fetch_add(&G.tryagain, 1);
            usleep(1000);
        } else {
            atomic_fetch_add(&G.other, 1);
            note_error(r->str);
            freeReplyObject(r);
            return -1;
        }
        freeReplyObject(r);
    }
    note_error("too many redirections");
    return -1;
}

/* ---- fill ---- */

static void fill_keys(void) {
    struct conns cs = {0};
    char *val = malloc((size_t)G.o.value);
    uint64_t seed = G.o.seed;
    int pending[MAX_NODES] = {0};
    for (long i = 0; i < G.o.keys; i++) {
        char key[32], ep[128];
        int klen = snprintf(key, sizeof key, "key:%012ld", i);
        for (int b = 0; b < G.o.value; b++) val[b] = (char)('a' + splitmix(&seed) % 26);
        if (map_get(key_hash_slot(key, (size_t)klen), ep, sizeof ep) != 0) die("slot unowned");
        redisContext *c = conn_to(&cs, ep);
        int ci = 0;
        while (cs.c[ci] != c) ci++;
        redisAppendCommand(c, "SET %b %b", key, (size_t)klen, val, (size_t)G.o.value);
        if (++pending[ci] == 1000) {
            for (; pending[ci] > 0; pending[ci]--) {
                redisReply *r;
                if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR)
                    die("SET failed while filling");
                freeReplyObject(r);
            }
        }
    }
    for (int ci = 0; ci < cs.n; ci++)
        for (; pending[ci] > 0; pending[ci]--) {
            redisReply *r;
            if (redisGetReply(cs.c[ci], (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR)
                die("SET failed while filling");
            freeReplyObject(r);
        }
    conns_free(&cs);
    free(val);
    printf("filled=%ld\n", G.o.keys);
}

static void fill_zset(void) {
    struct conns cs = {0};
    size_t klen = strlen(G.o.key);
    char ep[128];
    if (map_get(key_hash_slot(G.o.key, klen), ep, sizeof ep) != 0) die("slot unowned");
    redisContext *c = conn_to(&cs, ep);
    enum { PER = 500 };
    const char *argv[2 + 2 * PER];
    size_t lens[2 + 2 * PER];
    char (*buf)[2][24] = malloc(sizeof(char[PER][2][24]));
    int inflight = 0;
    for (long base = 0; base < G.o.members; base += PER) {
        int argc = 2;
        argv[0] = "ZADD";
        lens[0] = 4;
        argv[1] = G.o.key;
        lens[1] = klen;
        for (long i = base; i < base + PER && i < G.o.members; i++) {
            int j = (int)(i - base);
            lens[argc] = (size_t)snprintf(buf[j][0], 24, "%ld", i);
            argv[argc++] = buf[j][0];
            lens[argc] = (size_t)snprintf(buf[j][1], 24, "m:%010ld", i);
            argv[argc++] = buf[j][1];
        }
        redisAppendCommandArgv(c, argc, argv, lens); /* hiredis copies the arguments */
        if (++inflight == 20)
            for (; inflight > 0; inflight--) {
                redisReply *r;
                if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR)
                    die("ZADD failed");
                freeReplyObject(r);
            }
    }
    for (; inflight > 0; inflight--) {
        redisReply *r;
        if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR)
            die("ZADD failed");
        freeReplyObject(r);
    }
    free(buf);
    conns_free(&cs);
    printf("zset_members=%ld\n", G.o.members);
}

/* ---- load ---- */

static void *writer_main(void *arg) {
    int id = (int)(intptr_t)arg;
    struct conns cs = {0};
    uint64_t seed = G.o.seed + (uint64_t)id * 7919;
    while (!atomic_load(&G.stop)) {
        char key[32];
        long k = (long)(splitmix(&seed) % (uint64_t)G.o.keys);
        int klen = snprintf(key, sizeof key, "key:%012ld", k);
        size_t off = splitmix(&seed) % (POOL_LEN - (size_t)G.o.value);
        const char *argv[3] = {"SET", key, G.pool + off};
        size_t lens[3] = {3, (size_t)klen, (size_t)G.o.value};
        int64_t t0 = now_ns();
        if (cluster_call(&cs, key_hash_slot(key, (size_t)klen), 3, argv, lens) == 0) {
            lat_add(&G.set_lat[id], now_ns() - t0);
            atomic_fetch_add(&G.ops, 1);
        }
    }
    conns_free(&cs);
    return NULL;
}

static void *ping_main(void *arg) {
    (void)arg;
    struct sched_param sp = {.sched_priority = 1};
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp); /* best effort */
    redisContext *c = redisConnect(G.o.host, G.o.ping_port);
    if (!c || c->err) die("ping connect failed");
    while (!atomic_load(&G.stop)) {
        int64_t t0 = now_ns();
        redisReply *r = redisCommand(c, "PING");
        if (!r) die("ping failed");
        freeReplyObject(r);
        lat_add(&G.ping_lat, now_ns() - t0);
        usleep(2000);
    }
    redisFree(c);
    return NULL;
}

static long long rss_kb(int pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %lld", &kb) == 1) break;
    fclose(f);
    return kb;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static double pct(const struct lats *l, double p) {
    if (l->n == 0) return 0;
    size_t i = (size_t)(p * (double)(l->n - 1));
    return l->us[i] / 1000.0;
}

static void run_load(void) {
    G.pool = malloc(POOL_LEN);
    uint64_t seed = G.o.seed ^ 0xabcdef;
    for (size_t i = 0; i < POOL_LEN; i++) G.pool[i] = (char)('a' + splitmix(&seed) % 26);
    if (G.o.pids) {
        char *dup = strdup(G.o.pids), *save = NULL;
        for (char *t = strtok_r(dup, ",", &save); t && G.npids < MAX_PIDS; t = strtok_r(NULL, ",", &save)) {
            G.pid[G.npids] = atoi(t);
            G.rss0[G.npids] = G.rss_max[G.npids] = rss_kb(G.pid[G.npids]);
            G.npids++;
        }
        free(dup);
    }
    pthread_t w[MAX_CONNS], pt;
    for (int i = 0; i < G.o.conns; i++) pthread_create(&w[i], NULL, writer_main, (void *)(intptr_t)i);
    if (G.o.ping_port) pthread_create(&pt, NULL, ping_main, NULL);
    int64_t start = now_ns();
    while (!atomic_load(&G.stop)) {
        usleep(100000);
        for (int i = 0; i < G.npids; i++) {
            long long kb = rss_kb(G.pid[i]);
            if (kb > G.rss_max[i]) G.rss_max[i] = kb;
        }
        if (G.o.stop && access(G.o.stop, F_OK) == 0) atomic_store(&G.stop, 1);
        if (G.o.seconds && now_ns() - start > (int64_t)G.o.seconds * 1000000000) atomic_store(&G.stop, 1);
    }
    for (int i = 0; i < G.o.conns; i++) pthread_join(w[i], NULL);
    if (G.o.ping_port) pthread_join(pt, NULL);
    double secs = (double)(now_ns() - start) / 1e9;
    struct lats all = {0};
    for (int i = 0; i < G.o.conns; i++)
        for (size_t j = 0; j < G.set_lat[i].n; j++) lat_add(&all, (int64_t)G.set_lat[i].us[j] * 1000);
    qsort(all.us, all.n, sizeof *all.us, cmp_u32);
    qsort(G.ping_lat.us, G.ping_lat.n, sizeof *G.ping_lat.us, cmp_u32);
    size_t ping_over5 = 0;
    for (size_t i = 0; i < G.ping_lat.n; i++) ping_over5 += G.ping_lat.us[i] > 5000;
    printf("seconds=%.2f ops=%lld ops_s=%.0f moved=%lld ask=%lld tryagain=%lld errors=%lld "
           "p50_ms=%.3f p99_ms=%.3f max_ms=%.3f ping_n=%zu ping_max_ms=%.3f ping_over5ms=%zu",
           secs, atomic_load(&G.ops), (double)atomic_load(&G.ops) / secs, atomic_load(&G.moved),
           atomic_load(&G.ask), atomic_load(&G.tryagain), atomic_load(&G.other), pct(&all, 0.5),
           pct(&all, 0.99), all.n ? all.us[all.n - 1] / 1000.0 : 0.0, G.ping_lat.n,
           G.ping_lat.n ? G.ping_lat.us[G.ping_lat.n - 1] / 1000.0 : 0.0, ping_over5);
    for (int i = 0; i < G.npids; i++)
        printf(" rss_growth_mb_%d=%.1f", i, (double)(G.rss_max[i] - G.rss0[i]) / 1024.0);
    printf("\n");
    if (G.first_error[0]) fprintf(stderr, "clusterload: first error: %s\n", G.first_error);
    free(all.us);
}

int main(int argc, char **argv) {
    G.o = (struct opts){.host = "127.0.0.1", .port = 30001, .mode = "load", .conns = 8,
                        .value = 300, .keys = 1000000, .members = 2000000, .key = "{big}z",
                        .seed = 42};
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--host")) G.o.host = v;
        else if (!strcmp(k, "--port")) G.o.port = atoi(v);
        else if (!strcmp(k, "--mode")) G.o.mode = v;
        else if (!strcmp(k, "--conns")) G.o.conns = atoi(v);
        else if (!strcmp(k, "--value")) G.o.value = atoi(v);
        else if (!strcmp(k, "--keys")) G.o.keys = atol(v);
        else if (!strcmp(k, "--members")) G.o.members = atol(v);
        else if (!strcmp(k, "--key")) G.o.key = v;
        else if (!strcmp(k, "--stop")) G.o.stop = v;
        else if (!strcmp(k, "--seconds")) G.o.seconds = atoi(v);
        else if (!strcmp(k, "--ping-port")) G.o.ping_port = atoi(v);
        else if (!strcmp(k, "--pids")) G.o.pids = v;
        else if (!strcmp(k, "--seed")) G.o.seed = strtoull(v, NULL, 10);
        else die("unknown option");
    }
    if (G.o.conns < 1 || G.o.conns > MAX_CONNS || G.o.value < 1 || G.o.value > 65536 ||
        G.o.keys < 1)
        die("bad options");
    pthread_rwlock_init(&G.map_lock, NULL);
    redisContext *seed = redisConnect(G.o.host, G.o.port);
    if (!seed || seed->err) die("cannot connect to the seed node");
    map_load(seed);
    redisFree(seed);
    if (!strcmp(G.o.mode, "fill")) fill_keys();
    else if (!strcmp(G.o.mode, "zset")) fill_zset();
    else if (!strcmp(G.o.mode, "load")) run_load();
    else die("unknown mode");
    return 0;
}
