/* kvs.c: closed-loop load generator for the AOF group-commit benchmark (the
 * "KVS setup"), driven by bench/aof.sh against verso or redis-server.
 *
 * One invocation = one run against one already started server:
 *   1. fill: SET key:000000 .. key:NNNNNN (--keys, default 100,001) with
 *      --value-byte values over one connection, pipelined FILL_BATCH deep;
 *      not timed;
 *   2. load: --threads (4) threads x --conns (50) connections each. Every
 *      connection keeps exactly one request in flight (closed loop: send,
 *      wait for the reply, send the next). Each request picks a random key
 *      among the filled ones and is a SET with probability 1/(1+--gets)
 *      (default SET:GET 1:10), else a GET;
 *   3. after --duration seconds the threads stop; replies that arrive later
 *      are not counted, requests still in flight are abandoned.
 *
 * A thread drives its 50 non-blocking sockets with one epoll set; commands
 * are formatted by hand (fixed-width keys), replies parsed with hiredis's
 * redisReader. Latency is send -> reply read, CLOCK_MONOTONIC, recorded in
 * per-thread log-linear histograms (64 sub-buckets per power of two, ~1.6 %
 * resolution, microseconds) merged at the end. Every reply is checked (SET:
 * +OK, GET: a bulk string of the value size); anything else counts as an error.
 *
 * `kvs -F FILE` instead measures the disk: 50 x (append 4 KiB, fdatasync)
 * to FILE (deleted after), and prints "FSYNC median_us=.. mean_us=..";
 * bench/aof.sh runs it with and without the fsync-delay shim.
 *
 * Output: a human-readable summary, then one machine-readable line
 *   RESULT ops=.. secs=.. ops_s=.. set_n=.. set_p50_us=.. set_p99_us=..
 *          set_max_us=.. get_n=.. get_p50_us=.. get_p99_us=.. get_max_us=..
 *          errors=..
 * Exit status: 0 ok, 1 usage or connection failure, 2 bad replies seen.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <hiredis.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FILL_BATCH 1000
#define KEY_DIGITS 6            /* key:%06ld; --keys must stay <= 10^6 */
#define SUB_BITS 6              /* 64 sub-buckets per power of two */
#define SUB (1u << SUB_BITS)
#define NBUCKETS 2048           /* covers up to ~2^37 us */
#define CMD_MAX 256

struct opts {
    const char *host;
    int port, threads, conns, gets, vsize, fill; /* fill: 0 no, 1 yes, 2 only */
    const char *probe;
    long keys;
    double duration;
    uint64_t seed;
};

typedef struct hist {
    uint64_t n[NBUCKETS];
    uint64_t count, max, sum;
} hist;

typedef struct conn {
    int fd;
    redisReader *rd;
    int is_set;                 /* what the request in flight is */
    int64_t sent_us;
    char out[CMD_MAX];
    int out_len, out_off;       /* unsent bytes: out[out_off..out_len) */
} conn;

typedef struct worker {
    pthread_t tid;
    int id, epfd;
    conn *c;
    uint64_t rng;
    hist set, get;
    uint64_t errors;
    const char *first_error;
    int failed;
} worker;

static struct opts O = {"127.0.0.1", 6379, 4, 50, 10, 32, 1, NULL, 100001, 20.0, 1};
static char *g_value;           /* the vsize-byte value every SET writes */
static pthread_barrier_t g_start;
static int64_t g_t0_us, g_end_us;

/* ---- small helpers ---- */

static int64_t now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- histogram: value v (us) -> bucket; exact below 2*SUB ---- */

static int hist_index(uint64_t v) {
    if (v < 2 * SUB) return (int)v;
    int e = 63 - __builtin_clzll(v) - SUB_BITS;     /* >= 1 */
    int i = (int)(SUB * (uint64_t)e + (v >> e));
    return i < NBUCKETS ? i : NBUCKETS - 1;
}

/* Highest value that falls in bucket i (HdrHistogram reports the same). */
static uint64_t hist_upper(int i) {
    if (i < (int)(2 * SUB)) return (uint64_t)i;
    int e = i / SUB - 1;
    uint64_t lo = ((uint64_t)(i - SUB * e)) << e;
    return lo + ((uint64_t)1 << e) - 1;
}

static void hist_add(hist *h, uint64_t v) {
    h->n[hist_index(v)]++;
    h->count++;
    h->sum += v;
    if (v > h->max) h->max = v;
}

static void hist_merge(hist *into, const hist *h) {
    for (int i = 0; i < NBUCKETS; i++) into->n[i] += h->n[i];
    into->count += h->count;
    into->sum += h->sum;
    if (h->max > into->max) into->max = h->max;
}

static uint64_t hist_pct(const hist *h, double p) {
    if (h->count == 0) return 0;
    uint64_t want = (uint64_t)(p / 100.0 * (double)h->count + 0.999999);
    if (want == 0) want = 1;
    uint64_t seen = 0;
    for (int i = 0; i < NBUCKETS; i++) {
        seen += h->n[i];
        if (seen >= want) {
            uint64_t u = hist_upper(i);
            return u < h->max ? u : h->max;
        }
    }
    return h->max;
}

/* ---- sockets ---- */

static int tcp_connect(void) {
    struct addrinfo hints = {0}, *res = NULL;
    char port[16];
    snprintf(port, sizeof port, "%d", O.port);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(O.host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, "kvs: %s: %s\n", O.host, gai_strerror(rc));
        return -1;
    }
    int fd = socket(res->ai_family, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) != 0) {
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, "kvs: connect %s:%d: %s\n", O.host, O.port, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* "*3\r\n$3\r\nSET\r\n$10\r\nkey:000042\r\n$32\r\n<value>\r\n" or the GET. */
static int format_cmd(char *out, int is_set, long key) {
    const int klen = 4 + KEY_DIGITS;
    int n;
    if (is_set)
        n = snprintf(out, CMD_MAX, "*3\r\n$3\r\nSET\r\n$%d\r\nkey:%0*ld\r\n$%d\r\n", klen,
                     KEY_DIGITS, key, O.vsize);
    else
        return snprintf(out, CMD_MAX, "*2\r\n$3\r\nGET\r\n$%d\r\nkey:%0*ld\r\n", klen,
                        KEY_DIGITS, key);
    memcpy(out + n, g_value, (size_t)O.vsize);
    memcpy(out + n + O.vsize, "\r\n", 2);
    return n + O.vsize + 2;
}

/* ---- one worker thread ---- */

static void note_error(worker *w, const char *what) {
    if (w->errors++ == 0) w->first_error = what;
}

/* Writes what is left of c->out; asks for EPOLLOUT only when the socket is
 * full (rare: commands are < 100 bytes). Returns -1 on a dead socket. */
static int conn_flush(worker *w, conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t k = write(c->fd, c->out + c->out_off, (size_t)(c->out_len - c->out_off));
        if (k > 0) {
            c->out_off += (int)k;
            continue;
        }
        if (k < 0 && errno == EINTR) continue;
        if (k < 0 && errno == EAGAIN) {
            struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
            return epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
        }
        return -1;
    }
    return 0;
}

static int conn_send_next(worker *w, conn *c) {
    uint64_t r = splitmix64(&w->rng);
    c->is_set = (r % (uint64_t)(1 + O.gets)) == 0;
    long key = (long)((r >> 32) % (uint64_t)O.keys);
    c->out_len = format_cmd(c->out, c->is_set, key);
    c->out_off = 0;
    c->sent_us = now_us();
    return conn_flush(w, c);
}

static void check_reply(worker *w, const conn *c, const redisReply *r) {
    if (c->is_set) {
        if (r->type != REDIS_REPLY_STATUS || strcmp(r->str, "OK") != 0)
            note_error(w, r->type == REDIS_REPLY_ERROR ? r->str : "SET: not +OK");
    } else if (r->type != REDIS_REPLY_STRING || (int)r->len != O.vsize) {
        note_error(w, r->type == REDIS_REPLY_ERROR ? r->str : "GET: wrong reply");
    }
}

/* Reads what arrived; for the one reply a connection can have, records its
 * latency (if it completed inside the timed window) and sends the next. */
static int conn_readable(worker *w, conn *c) {
    char buf[4096];
    ssize_t k = read(c->fd, buf, sizeof buf);
    if (k == 0) return -1;
    if (k < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    int64_t t = now_us();
    if (redisReaderFeed(c->rd, buf, (size_t)k) != REDIS_OK) return -1;
    for (;;) {
        void *rep = NULL;
        if (redisReaderGetReply(c->rd, &rep) != REDIS_OK) return -1;
        if (!rep) return 0;
        check_reply(w, c, rep);
        freeReplyObject(rep);
        if (t > g_end_us) return 1;
        hist_add(c->is_set ? &w->set : &w->get, (uint64_t)(t - c->sent_us));
        if (conn_send_next(w, c) != 0) return -1;
    }
}

static int worker_setup(worker *w) {
    w->epfd = epoll_create1(0);
    w->c = calloc((size_t)O.conns, sizeof(conn));
    if (w->epfd < 0 || !w->c) return -1;
    for (int i = 0; i < O.conns; i++) {
        conn *c = &w->c[i];
        c->fd = tcp_connect();
        c->rd = redisReaderCreate();
        if (c->fd < 0 || !c->rd) return -1;
        fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->fd, &ev) != 0) return -1;
    }
    return 0;
}

static int worker_loop(worker *w) {
    struct epoll_event evs[64];
    for (int i = 0; i < O.conns; i++)
        if (conn_send_next(w, &w->c[i]) != 0) return -1;
    while (now_us() < g_end_us) {
        int n = epoll_wait(w->epfd, evs, 64, 10);
        if (n < 0 && errno != EINTR) return -1;
        for (int i = 0; i < n; i++) {
            conn *c = evs[i].data.ptr;
            if ((evs[i].events & EPOLLOUT) && c->out_off < c->out_len) {
                if (conn_flush(w, c) != 0) return -1;
                if (c->out_off == c->out_len) {
                    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd, &ev);
                }
            }
            if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
                if (conn_readable(w, c) < 0) return -1;
        }
    }
    return 0;
}

static void *worker_main(void *arg) {
    worker *w = arg;
    if (worker_setup(w) != 0) w->failed = 1;
    pthread_barrier_wait(&g_start);     /* main sets g_t0_us / g_end_us */
    pthread_barrier_wait(&g_start);
    if (!w->failed && worker_loop(w) != 0) {
        fprintf(stderr, "kvs: thread %d: connection lost: %s\n", w->id, strerror(errno));
        w->failed = 1;
    }
    for (int i = 0; w->c && i < O.conns; i++) {
        if (w->c[i].fd >= 0) close(w->c[i].fd);
        if (w->c[i].rd) redisReaderFree(w->c[i].rd);
    }
    free(w->c);
    if (w->epfd >= 0) close(w->epfd);
    return NULL;
}

/* ---- fill ---- */

static int fill(void) {
    redisContext *c = redisConnect(O.host, O.port);
    if (!c || c->err) {
        fprintf(stderr, "kvs: fill: %s\n", c ? c->errstr : "out of memory");
        return -1;
    }
    char cmd[CMD_MAX];
    int rc = 0;
    for (long k = 0; k < O.keys && rc == 0; k += FILL_BATCH) {
        long end = k + FILL_BATCH < O.keys ? k + FILL_BATCH : O.keys;
        for (long i = k; i < end; i++) {
            int n = format_cmd(cmd, 1, i);
            redisAppendFormattedCommand(c, cmd, (size_t)n);
        }
        for (long i = k; i < end; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || !r || r->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "kvs: fill: %s\n", r ? r->str : c->errstr);
                rc = -1;
            }
            if (r) freeReplyObject(r);
            if (rc) break;
        }
    }
    redisFree(c);
    return rc;
}

/* ---- fsync probe ---- */

static int fsync_probe(const char *path) {
    enum { N = 50 };
    char block[4096];
    int64_t us[N], sum = 0;
    memset(block, 'f', sizeof block);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        fprintf(stderr, "kvs: %s: %s\n", path, strerror(errno));
        return 1;
    }
    for (int i = 0; i < N; i++) {
        int64_t t = now_us();
        if (write(fd, block, sizeof block) != (ssize_t)sizeof block || fdatasync(fd) != 0) {
            fprintf(stderr, "kvs: %s: %s\n", path, strerror(errno));
            close(fd);
            unlink(path);
            return 1;
        }
        us[i] = now_us() - t;
        sum += us[i];
    }
    close(fd);
    unlink(path);
    for (int i = 1; i < N; i++)         /* insertion sort: N is tiny */
        for (int j = i; j > 0 && us[j - 1] > us[j]; j--) {
            int64_t x = us[j];
            us[j] = us[j - 1];
            us[j - 1] = x;
        }
    printf("FSYNC median_us=%lld mean_us=%lld\n", (long long)us[N / 2], (long long)(sum / N));
    return 0;
}

/* ---- main ---- */

static void usage(void) {
    fprintf(stderr,
            "usage: kvs [-h host] [-p port] [-t threads=4] [-c conns/thread=50]\n"
            "           [-d seconds=20] [-k keys=100001] [-g gets-per-set=10]\n"
            "           [-v value-bytes=32] [-s seed=1] [-n (no fill) | -f (fill only)]\n"
            "       kvs -F file   (fsync probe)\n");
    exit(1);
}

static void parse(int argc, char **argv) {
    int ch;
    while ((ch = getopt(argc, argv, "h:p:t:c:d:k:g:v:s:nfF:")) != -1) {
        switch (ch) {
        case 'h': O.host = optarg; break;
        case 'p': O.port = atoi(optarg); break;
        case 't': O.threads = atoi(optarg); break;
        case 'c': O.conns = atoi(optarg); break;
        case 'd': O.duration = atof(optarg); break;
        case 'k': O.keys = atol(optarg); break;
        case 'g': O.gets = atoi(optarg); break;
        case 'v': O.vsize = atoi(optarg); break;
        case 's': O.seed = strtoull(optarg, NULL, 10); break;
        case 'n': O.fill = 0; break;
        case 'f': O.fill = 2; break;
        case 'F': O.probe = optarg; break;
        default: usage();
        }
    }
    if (O.threads < 1 || O.conns < 1 || O.duration <= 0 || O.keys < 1 || O.keys > 1000000 ||
        O.gets < 0 || O.vsize < 1 || O.vsize > 128 || O.port <= 0)
        usage();
}

static void report(worker *ws) {
    hist *set = calloc(1, sizeof(hist)), *get = calloc(1, sizeof(hist));
    uint64_t errors = 0;
    const char *first = NULL;
    for (int i = 0; i < O.threads; i++) {
        hist_merge(set, &ws[i].set);
        hist_merge(get, &ws[i].get);
        errors += ws[i].errors;
        if (!first) first = ws[i].first_error;
    }
    double secs = (double)(g_end_us - g_t0_us) / 1e6;
    uint64_t ops = set->count + get->count;
    printf("kvs: %d threads x %d conns, SET:GET 1:%d, %d-byte values, %ld keys, %.1f s\n",
           O.threads, O.conns, O.gets, O.vsize, O.keys, secs);
    printf("  ops/s %.0f   SET p50 %.3f ms p99 %.3f ms max %.3f ms (n=%llu)\n",
           (double)ops / secs, hist_pct(set, 50) / 1e3, hist_pct(set, 99) / 1e3,
           set->max / 1e3, (unsigned long long)set->count);
    printf("               GET p50 %.3f ms p99 %.3f ms max %.3f ms (n=%llu)\n",
           hist_pct(get, 50) / 1e3, hist_pct(get, 99) / 1e3, get->max / 1e3,
           (unsigned long long)get->count);
    if (errors) printf("  %llu bad replies, first: %s\n", (unsigned long long)errors, first);
    printf("RESULT ops=%llu secs=%.3f ops_s=%.0f set_n=%llu set_p50_us=%llu set_p99_us=%llu "
           "set_max_us=%llu get_n=%llu get_p50_us=%llu get_p99_us=%llu get_max_us=%llu "
           "errors=%llu\n",
           (unsigned long long)ops, secs, (double)ops / secs, (unsigned long long)set->count,
           (unsigned long long)hist_pct(set, 50), (unsigned long long)hist_pct(set, 99),
           (unsigned long long)set->max, (unsigned long long)get->count,
           (unsigned long long)hist_pct(get, 50), (unsigned long long)hist_pct(get, 99),
           (unsigned long long)get->max, (unsigned long long)errors);
    free(set);
    free(get);
}

int main(int argc, char **argv) {
    parse(argc, argv);
    if (O.probe) return fsync_probe(O.probe);
    g_value = malloc((size_t)O.vsize);
    for (int i = 0; i < O.vsize; i++) g_value[i] = (char)('a' + i % 26);
    if (O.fill && fill() != 0) return 1;
    if (O.fill == 2) {
        printf("FILLED keys=%ld\n", O.keys);
        return 0;
    }
    worker *ws = calloc((size_t)O.threads, sizeof(worker));
    pthread_barrier_init(&g_start, NULL, (unsigned)O.threads + 1);
    for (int i = 0; i < O.threads; i++) {
        ws[i].id = i;
        ws[i].epfd = -1;
        ws[i].rng = O.seed * 0x100000001b3ULL + (uint64_t)i;
        if (pthread_create(&ws[i].tid, NULL, worker_main, &ws[i]) != 0) return 1;
    }
    pthread_barrier_wait(&g_start);     /* every connection is open */
    g_t0_us = now_us();
    g_end_us = g_t0_us + (int64_t)(O.duration * 1e6);
    pthread_barrier_wait(&g_start);
    int failed = 0;
    for (int i = 0; i < O.threads; i++) {
        pthread_join(ws[i].tid, NULL);
        failed |= ws[i].failed;
    }
    if (failed) return 1;
    report(ws);
    uint64_t errors = 0;
    for (int i = 0; i < O.threads; i++) errors += ws[i].errors;
    free(ws);
    free(g_value);
    return errors ? 2 : 0;
}
