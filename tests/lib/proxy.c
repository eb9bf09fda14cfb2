/* proxy: the cuttable TCP relay of the replication tests (see proxy.h).
 *
 * One relay thread owns the listening socket and every relayed pair; the
 * test's thread talks to it through `cmd` (under mu) and a wake-up pipe,
 * and waits on `cv` until the thread has carried the command out. Each
 * pair holds one buffer per direction: a side is read only when the
 * buffer towards the other is empty, so a slow reader slows the writer
 * down as a direct connection would. */
#include "proxy.h"

#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROXY_BUF 65536

enum { CMD_NONE, CMD_CUT, CMD_RESTORE, CMD_STOP };

typedef struct pair {
    int fd[2];                   /* 0: the client's side, 1: the target's */
    char buf[2][PROXY_BUF];      /* buf[d]: read from fd[d], for fd[!d] */
    size_t len[2], off[2];
    int eof[2];                  /* fd[d] said EOF (or failed) */
} pair;

struct proxy {
    int port, target;            /* set before the thread starts */
    int lfd, wake[2];
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int cmd;                     /* under mu */
    unsigned long cmd_done;      /* under mu: commands carried out */
    /* relay thread only */
    pair **pairs;
    size_t npairs, cap;
    int cut;
    atomic_ullong rate;          /* set by any thread: down bytes/s, 0 none */
    long long budget;            /* relay thread: down bytes it may send now */
    long long budget_ms;         /* relay thread: when budget was refilled */
    /* atomic: read by any thread */
    atomic_ullong up, down;
    atomic_ulong accepted, refused;
    atomic_size_t open;
};

static int nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static int connect_target(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 || nonblock(fd) != 0) {
        close(fd);
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

static void pair_close(proxy *p, size_t i)
{
    pair *q = p->pairs[i];
    close(q->fd[0]);
    close(q->fd[1]);
    free(q);
    p->pairs[i] = p->pairs[--p->npairs];
    atomic_fetch_sub(&p->open, 1);
}

static void close_all(proxy *p)
{
    while (p->npairs)
        pair_close(p, p->npairs - 1);
}

static void do_accept(proxy *p)
{
    int cfd = accept(p->lfd, NULL, NULL);
    if (cfd < 0)
        return;
    if (p->cut) {
        atomic_fetch_add(&p->refused, 1);
        close(cfd);
        return;
    }
    int tfd = connect_target(p->target);
    if (tfd < 0 || nonblock(cfd) != 0) {
        if (tfd >= 0)
            close(tfd);
        close(cfd);
        return;
    }
    int one = 1;
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pair *q = calloc(1, sizeof *q);
    if (!q) {
        close(cfd);
        close(tfd);
        return;
    }
    q->fd[0] = cfd;
    q->fd[1] = tfd;
    if (p->npairs == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 8;
        pair **np = realloc(p->pairs, cap * sizeof *np);
        if (!np) {
            close(cfd);
            close(tfd);
            free(q);
            return;
        }
        p->pairs = np;
        p->cap = cap;
    }
    p->pairs[p->npairs++] = q;
    atomic_fetch_add(&p->accepted, 1);
    atomic_fetch_add(&p->open, 1);
}

/* Moves what poll reported for pair q; 0 when the pair is over. */
static int pair_io(proxy *p, pair *q, const struct pollfd *pf)
{
    for (int d = 0; d < 2; d++) {
        size_t room = PROXY_BUF;
        if (d == 1 && atomic_load(&p->rate))
            room = p->budget <= 0 ? 0 : p->budget < PROXY_BUF ? (size_t)p->budget : PROXY_BUF;
        if (room && q->len[d] == 0 && !q->eof[d] &&
            (pf[d].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(q->fd[d], q->buf[d], room);
            if (n > 0) {
                q->len[d] = (size_t)n;
                q->off[d] = 0;
                if (d == 1)
                    p->budget -= n;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                q->eof[d] = 1;
            }
        }
        if (q->len[d] > 0) {
            ssize_t n = write(q->fd[!d], q->buf[d] + q->off[d], q->len[d]);
            if (n > 0) {
                q->off[d] += (size_t)n;
                q->len[d] -= (size_t)n;
                atomic_fetch_add(d == 0 ? &p->up : &p->down, (unsigned long long)n);
            } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
                return 0;
            }
        }
    }
    /* one side ended and what it sent is delivered: end the pair */
    return !((q->eof[0] && q->len[0] == 0) || (q->eof[1] && q->len[1] == 0));
}

static int take_cmd(proxy *p)
{
    char b[64];
    while (read(p->wake[0], b, sizeof b) > 0) {
    }
    pthread_mutex_lock(&p->mu);
    int c = p->cmd;
    p->cmd = CMD_NONE;
    pthread_mutex_unlock(&p->mu);
    if (c == CMD_CUT) {
        close_all(p);
        p->cut = 1;
    } else if (c == CMD_RESTORE) {
        p->cut = 0;
    }
    return c;
}

static void cmd_done(proxy *p)
{
    pthread_mutex_lock(&p->mu);
    p->cmd_done++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static long long mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Refills the down budget (rate per second, in 10 ms steps, at most one
 * second's worth); 1 when the target side must not be read now. */
static int refill(proxy *p)
{
    unsigned long long rate = atomic_load(&p->rate);
    long long now = mono_ms();
    if (!rate) {
        p->budget_ms = now;
        return 0;
    }
    if (now - p->budget_ms >= 10) {
        p->budget += (long long)(rate * (unsigned long long)(now - p->budget_ms) / 1000);
        if (p->budget > (long long)rate)
            p->budget = (long long)rate;
        p->budget_ms = now;
    }
    return p->budget <= 0;
}

static void *relay(void *arg)
{
    proxy *p = arg;
    struct pollfd *pf = NULL;
    size_t pfcap = 0;
    for (;;) {
        int throttled = refill(p);
        size_t need = 2 + 2 * p->npairs;
        if (need > pfcap) {
            struct pollfd *np = realloc(pf, need * sizeof *np);
            if (!np)
                abort(); /* a test process out of memory: nothing sensible left */
            pf = np;
            pfcap = need;
        }
        pf[0] = (struct pollfd){ .fd = p->wake[0], .events = POLLIN };
        pf[1] = (struct pollfd){ .fd = p->lfd, .events = POLLIN };
        for (size_t i = 0; i < p->npairs; i++) {
            pair *q = p->pairs[i];
            for (int d = 0; d < 2; d++) {
                short ev = 0;
                if (q->len[d] == 0 && !q->eof[d] && !(d == 1 && throttled))
                    ev |= POLLIN;
                if (q->len[!d] > 0)
                    ev |= POLLOUT;
                pf[2 + 2 * i + (size_t)d] = (struct pollfd){ .fd = q->fd[d], .events = ev };
            }
        }
        if (poll(pf, need, throttled ? 10 : 1000) < 0 && errno != EINTR)
            abort();
        if (pf[0].revents & POLLIN) {
            int c = take_cmd(p);
            if (c != CMD_NONE)
                cmd_done(p);
            if (c == CMD_STOP)
                break;
            continue; /* the pairs may have changed under pf */
        }
        /* pairs back to front, so that pair_close's swap keeps pf in step */
        for (size_t i = p->npairs; i-- > 0;) {
            if (!pair_io(p, p->pairs[i], &pf[2 + 2 * i]))
                pair_close(p, i);
        }
        if (pf[1].revents & POLLIN)
            do_accept(p);
    }
    close_all(p);
    free(pf);
    return NULL;
}

proxy *proxy_start(int target_port)
{
    proxy *p = calloc(1, sizeof *p);
    ck_assert_ptr_nonnull(p);
    p->target = target_port;
    p->lfd = socket(AF_INET, SOCK_STREAM, 0);
    ck_assert_int_ge(p->lfd, 0);
    int one = 1;
    setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ck_assert_int_eq(bind(p->lfd, (struct sockaddr *)&a, sizeof a), 0);
    ck_assert_int_eq(listen(p->lfd, 64), 0);
    socklen_t alen = sizeof a;
    ck_assert_int_eq(getsockname(p->lfd, (struct sockaddr *)&a, &alen), 0);
    p->port = ntohs(a.sin_port);
    ck_assert_int_eq(nonblock(p->lfd), 0);
    ck_assert_int_eq(pipe(p->wake), 0);
    ck_assert_int_eq(nonblock(p->wake[0]), 0);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    ck_assert_int_eq(pthread_create(&p->th, NULL, relay, p), 0);
    return p;
}

int proxy_port(const proxy *p) { return p->port; }

/* Hands c to the relay thread and waits until it is carried out. */
static void send_cmd(proxy *p, int c)
{
    pthread_mutex_lock(&p->mu);
    p->cmd = c;
    unsigned long want = p->cmd_done + 1;
    pthread_mutex_unlock(&p->mu);
    ck_assert_int_eq(write(p->wake[1], "x", 1), 1);
    pthread_mutex_lock(&p->mu);
    while (p->cmd_done < want)
        pthread_cond_wait(&p->cv, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void proxy_cut(proxy *p) { send_cmd(p, CMD_CUT); }
void proxy_throttle(proxy *p, unsigned long long bytes_per_sec)
{
    atomic_store(&p->rate, bytes_per_sec);
    ck_assert_int_eq(write(p->wake[1], "x", 1), 1); /* poll again with it */
}
void proxy_restore(proxy *p) { send_cmd(p, CMD_RESTORE); }
unsigned long long proxy_bytes_up(const proxy *p) { return atomic_load(&p->up); }
unsigned long long proxy_bytes_down(const proxy *p) { return atomic_load(&p->down); }
unsigned long proxy_accepted(const proxy *p) { return atomic_load(&p->accepted); }
unsigned long proxy_refused(const proxy *p) { return atomic_load(&p->refused); }
size_t proxy_open(const proxy *p) { return atomic_load(&p->open); }

void proxy_stop(proxy *p)
{
    if (!p)
        return;
    send_cmd(p, CMD_STOP);
    pthread_join(p->th, NULL);
    close(p->lfd);
    close(p->wake[0]);
    close(p->wake[1]);
    free(p->pairs);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
