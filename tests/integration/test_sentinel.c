/* Integration test of a failover managed by Redis Sentinel (Debian's
 * redis-server in sentinel mode, three processes, quorum 2): a primary and
 * two replicas (the primary and the first replica are the server under test,
 * $VERSO_SERVER or verso; the second replica is always redis-server, so the
 * group is mixed unless VERSO_SERVER=/usr/bin/redis-server). A writer thread
 * writes and confirms each write with WAIT 2; the primary is killed with
 * SIGKILL under that load; Sentinel must promote a replica, make the other
 * follow it, and turn the old primary, restarted on its port, into a replica
 * of the new one. No write that WAIT confirmed on both replicas may be
 * missing afterwards, on any of the three nodes.
 *
 * Timings are small (down-after-milliseconds 2000, failover-timeout 5000:
 * 1000 let a busy 2-core machine fail over twice now and then);
 * the slowest step is Sentinel's own wait before it converts a returning
 * old primary (4 hello periods, 8 s, plus an INFO period). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include "harness.h"

#define NSENT 3
#define MAXKEYS 200000

/* ---- processes this test starts itself (sentinels, a restart on a fixed
 * port): the harness picks ports, Sentinel needs a config file of its own ---- */

typedef struct proc {
    pid_t pid;
    int port;
    char dir[PATH_MAX];
    char log[PATH_MAX + 64];
} proc;

static proc sentinels[NSENT];
static proc restarted; /* the old primary, back on its port */
static srv *conf_nodes[2]; /* started with a config file (not the harness's list) */
static srv *redis_replica;

static pid_t spawn(char *const argv[], const char *log) {
    pid_t parent = getpid();
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127);
        int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int in = open("/dev/null", O_RDONLY);
        if (out < 0 || in < 0) _exit(127);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        for (int fd = 3; fd < 1024; fd++) close(fd);
        execvp(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static char *slurp_log(const char *path) {
    size_t len;
    char *s = h_slurp(path, &len, 0);
    return s ? s : strdup("");
}

/* Waits until 127.0.0.1:port answers PING (10 s, scaled). */
static void wait_pong(proc *p) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    while (h_now_ms() < end) {
        struct timeval tv = {0, 200000};
        redisContext *c = redisConnectWithTimeout("127.0.0.1", p->port, tv);
        redisReply *r = c && !c->err ? redisCommand(c, "PING") : NULL;
        int up = r != NULL;
        if (r) freeReplyObject(r);
        if (c) redisFree(c);
        if (up) return;
        int st;
        if (waitpid(p->pid, &st, WNOHANG) == p->pid) {
            p->pid = -1;
            break;
        }
        h_sleep_ms(20);
    }
    char *log = slurp_log(p->log);
    ck_abort_msg("process on port %d did not answer PING; log:\n%s", p->port, log);
}

static void proc_kill(proc *p) {
    if (p->pid > 0) {
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
    }
    p->pid = 0;
}

static void rm_rf(const char *dir) {
    if (!dir[0]) return;
    char *out = NULL;
    const char *argv[] = {"rm", "-rf", dir, NULL};
    h_run(NULL, &out, 10000, argv);
    free(out);
}

/* base: a directory the harness removes at the end of the program, even
 * after a failed test (a checked teardown does not run then). */
static void start_sentinel(proc *p, int primary_port, const char *base) {
    snprintf(p->dir, sizeof p->dir, "%s/sentinel.XXXXXX", base);
    ck_assert_ptr_nonnull(mkdtemp(p->dir));
    snprintf(p->log, sizeof p->log, "%s/sentinel.log", p->dir);
    char conf[PATH_MAX + 64], text[PATH_MAX + 512];
    snprintf(conf, sizeof conf, "%s/sentinel.conf", p->dir);
    p->port = h_free_port();
    snprintf(text, sizeof text,
             "port %d\nbind 127.0.0.1\ndir %s\nlogfile \"\"\n"
             "sentinel monitor mymaster 127.0.0.1 %d 2\n"
             "sentinel down-after-milliseconds mymaster 2000\n"
             "sentinel failover-timeout mymaster 5000\n"
             "sentinel parallel-syncs mymaster 2\n",
             p->port, p->dir, primary_port);
    FILE *f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
    /* Debian's redis-sentinel (scripts/packages), the Sentinel users run */
    char *argv[] = {"redis-sentinel", conf, NULL};
    p->pid = spawn(argv, p->log);
    wait_pong(p);
}

/* The old primary again, on its port, data dir and config file, same
 * binary. */
static void restart_on(proc *p, const char *bin, int port, const char *dir) {
    p->port = port;
    p->dir[0] = '\0'; /* the dir is the harness's */
    snprintf(p->log, sizeof p->log, "%s/restart.log", dir);
    char portbuf[16], conf[PATH_MAX + 16];
    snprintf(portbuf, sizeof portbuf, "%d", port);
    snprintf(conf, sizeof conf, "%s/server.conf", dir);
    char *argv[] = {(char *)bin, conf, "--port", portbuf, "--bind", "127.0.0.1", "--dir", (char *)dir,
                    "--save", "", "--repl-diskless-sync-delay", "0", NULL};
    p->pid = spawn(argv, p->log);
    wait_pong(p);
}

static redisContext *connect_port(int port) {
    struct timeval tv = {5, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    ck_assert_msg(c && !c->err, "connect %d: %s", port, c ? c->errstr : "oom");
    redisSetTimeout(c, tv);
    return c;
}

/* ---- the writer ---- */

typedef struct writer {
    int port;
    atomic_int stop;
    atomic_long confirmed; /* writes WAIT confirmed on 2 replicas */
    atomic_long sent;
    unsigned char ok[MAXKEYS]; /* 1: key i confirmed (written before join) */
} writer;

static void *writer_main(void *arg) {
    writer *w = arg;
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", w->port, tv);
    if (!c || c->err) return NULL;
    redisSetTimeout(c, tv);
    for (long i = 0; i < MAXKEYS && !atomic_load(&w->stop); i++) {
        redisReply *r = redisCommand(c, "SET k:%ld %ld", i, i);
        if (!r) break;
        int set_ok = r->type == REDIS_REPLY_STATUS;
        freeReplyObject(r);
        atomic_fetch_add(&w->sent, 1);
        r = redisCommand(c, "WAIT 2 1000");
        if (!r) break;
        if (set_ok && r->type == REDIS_REPLY_INTEGER && r->integer >= 2) {
            w->ok[i] = 1;
            atomic_fetch_add(&w->confirmed, 1);
        }
        freeReplyObject(r);
    }
    redisFree(c);
    return NULL;
}

/* The load beside it: pipelined batches of 100 writes, unconfirmed, until
 * the primary goes away. */
typedef struct loader {
    int port;
    atomic_long done;
} loader;

static void *loader_main(void *arg) {
    loader *l = arg;
    struct timeval tv = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", l->port, tv);
    if (!c || c->err) {
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    for (long round = 0; round < 1000000; round++) {
        for (int i = 0; i < 100; i++) redisAppendCommand(c, "SET load:%d %ld", i, round);
        int ok = 1;
        for (int i = 0; i < 100 && ok; i++) {
            void *r = NULL;
            ok = redisGetReply(c, &r) == REDIS_OK && r;
            if (r) freeReplyObject(r);
        }
        if (!ok) break;
        atomic_fetch_add(&l->done, 100);
        h_sleep_ms(5); /* at most ~20k writes/s: a load, not a flood */
    }
    redisFree(c);
    return NULL;
}

/* ---- helpers ---- */

static int master_port_of_sentinel(int sport) {
    redisContext *c = connect_port(sport);
    redisReply *r = redisCommand(c, "SENTINEL get-master-addr-by-name mymaster");
    int port = 0;
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 2) port = atoi(r->element[1]->str);
    if (r) freeReplyObject(r);
    redisFree(c);
    return port;
}

static void dump_logs(void);

/* INFO replication of the node on port, read on a fresh connection (Sentinel
 * kills normal clients of the nodes it reconfigures); NULL when it does not
 * answer. */
static char *info_repl(int port) {
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    char *out = NULL;
    if (c && !c->err) {
        redisSetTimeout(c, tv);
        redisReply *r = redisCommand(c, "INFO replication");
        if (r && r->type == REDIS_REPLY_STRING) out = strdup(r->str);
        if (r) freeReplyObject(r);
    }
    if (c) redisFree(c);
    return out;
}

/* Waits until the node on port is a replica of master_port with its link
 * up (timeout_ms, scaled). */
static void wait_follows(int port, int master_port, int timeout_ms) {
    char want[16], role[32] = "", mport[16] = "", link[16] = "";
    snprintf(want, sizeof want, "%d", master_port);
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    while (h_now_ms() < end) {
        char *info = info_repl(port);
        if (info) {
            h_info_field(info, "role", role, sizeof role);
            h_info_field(info, "master_port", mport, sizeof mport);
            h_info_field(info, "master_link_status", link, sizeof link);
            free(info);
            if (!strcmp(role, "slave") && !strcmp(mport, want) && !strcmp(link, "up")) return;
        }
        h_sleep_ms(50);
    }
    dump_logs();
    ck_abort_msg("node %d does not follow %d: role=%s master_port=%s master_link_status=%s", port,
                 master_port, role, mport, link);
}

/* The master all sentinels report, or 0 while they disagree. */
static int consensus_master(void) {
    int m = master_port_of_sentinel(sentinels[0].port);
    for (int i = 1; i < NSENT && m; i++)
        if (master_port_of_sentinel(sentinels[i].port) != m) m = 0;
    return m;
}

/* 1 when the node on port says role:master. */
static int is_master(int port) {
    char role[32] = "";
    char *info = info_repl(port);
    if (info) h_info_field(info, "role", role, sizeof role);
    free(info);
    return !strcmp(role, "master");
}

/* 1 when the node on port follows master_port with its link up. */
static int follows(int port, int master_port) {
    char role[32] = "", mport[16] = "", link[16] = "", want[16];
    snprintf(want, sizeof want, "%d", master_port);
    char *info = info_repl(port);
    if (info) {
        h_info_field(info, "role", role, sizeof role);
        h_info_field(info, "master_port", mport, sizeof mport);
        h_info_field(info, "master_link_status", link, sizeof link);
    }
    free(info);
    return !strcmp(role, "slave") && !strcmp(mport, want) && !strcmp(link, "up");
}

/* Waits until the sentinels agree on a master among ports[0..n) (not
 * `not`), it says role:master and every other node follows it; returns
 * its port. */
static int wait_group(const int *ports, int n, int not, int timeout_ms) {
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    int m = 0;
    while (h_now_ms() < end) {
        m = consensus_master();
        int ok = m && m != not, in = 0;
        for (int i = 0; i < n; i++) in |= ports[i] == m;
        ok = ok && in && is_master(m);
        for (int i = 0; i < n && ok; i++)
            if (ports[i] != m) ok = follows(ports[i], m);
        if (ok) return m;
        h_sleep_ms(100);
    }
    dump_logs();
    ck_abort_msg("no settled group (sentinels' master: %d)", m);
    return 0;
}

/* Every key the writer had confirmed is on the node, with its value. */
static void check_confirmed(int port, const writer *w) {
    redisContext *c = connect_port(port);
    long checked = 0;
    for (long i = 0; i < MAXKEYS; i++) {
        if (!w->ok[i]) continue;
        redisReply *r = redisCommand(c, "GET k:%ld", i);
        ck_assert_ptr_nonnull(r);
        ck_assert_msg(r->type == REDIS_REPLY_STRING && atol(r->str) == i,
                      "node %d lost confirmed write k:%ld", port, i);
        freeReplyObject(r);
        checked++;
    }
    ck_assert_int_eq(checked, atomic_load(&w->confirmed));
    redisFree(c);
}

/* Whether the node's config file has a line starting with prefix, as
 * wanted (waits: Sentinel's CONFIG REWRITE follows its REPLICAOF). */
static void expect_conf_line(const srv *s, const char *prefix, int want) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    long long end = h_now_ms() + h_scaled_ms(10000);
    char *text = NULL;
    for (;;) {
        size_t len;
        free(text);
        text = h_slurp(path, &len, 1);
        int has = !strncmp(text, prefix, strlen(prefix));
        for (const char *q = text; !has && (q = strchr(q, '\n')) != NULL; q++)
            has = !strncmp(q + 1, prefix, strlen(prefix));
        if (has == want) break;
        ck_assert_msg(h_now_ms() < end, "%s: line '%s' %s:\n%s", path, prefix,
                      want ? "missing" : "present", text);
        h_sleep_ms(50);
    }
    free(text);
}

static void dump_logs(void) {
    for (int i = 0; i < NSENT; i++) {
        if (!sentinels[i].log[0]) continue;
        char *log = slurp_log(sentinels[i].log);
        fprintf(stderr, "---- sentinel %d (port %d) ----\n%s\n", i, sentinels[i].port, log);
        free(log);
    }
}

static void teardown(void) {
    if (getenv("VERSO_SENTINEL_LOGS")) dump_logs(); /* to see what Sentinel did */
    for (int i = 0; i < NSENT; i++) {
        proc_kill(&sentinels[i]);
        rm_rf(sentinels[i].dir);
        memset(&sentinels[i], 0, sizeof sentinels[i]);
    }
    proc_kill(&restarted);
    if (redis_replica) srv_stop(redis_replica);
    redis_replica = NULL;
    for (int i = 0; i < 2; i++) {
        if (conf_nodes[i]) srv_stop(conf_nodes[i]);
        conf_nodes[i] = NULL;
    }
    h_srv_drop_all();
}

#define DATA_ARGS "--repl-diskless-sync-delay 0"

/* The sentinels' dirs go beside the primary's, in the harness's base dir. */
static void start_sentinels(const srv *primary) {
    char base[sizeof primary->dir];
    snprintf(base, sizeof base, "%s", primary->dir);
    char *slash = strrchr(base, '/');
    ck_assert_ptr_nonnull(slash);
    *slash = '\0';
    for (int i = 0; i < NSENT; i++) start_sentinel(&sentinels[i], primary->port, base);
}

/* Every sentinel's INFO says the primary has that status, nslaves replicas
 * and NSENT sentinels (they found each other through the hello messages
 * they PUBLISH on the node's __sentinel__:hello channel). */
static void wait_sentinels(int primary_port, const char *status, int nslaves) {
    char want[160];
    snprintf(want, sizeof want, "name=mymaster,status=%s,address=127.0.0.1:%d,slaves=%d,"
             "sentinels=%d", status, primary_port, nslaves, NSENT);
    for (int i = 0; i < NSENT; i++) {
        redisContext *s = connect_port(sentinels[i].port);
        h_wait_info_str(s, "sentinel", "master0", want, 30000);
        redisFree(s);
    }
}

/* ---- the tests ---- */

/* What Sentinel needs of a node without replication: PING, INFO, its
 * hellos through PUBLISH / SUBSCRIBE; when the node dies the sentinels
 * agree it is down (odown: quorum 2). */
START_TEST(lone_primary_watched) {
    srv *p = h_srv_start(DATA_ARGS);
    start_sentinels(p);
    wait_sentinels(p->port, "ok", 0);
    redisContext *c = srv_connect(p);
    redisReply *r = expect_array(c, 2, "PUBSUB NUMSUB __sentinel__:hello");
    check_int(r->element[1], NSENT);
    freeReplyObject(r);
    redisFree(c);
    srv_kill9(p);
    wait_sentinels(p->port, "odown", 0);
}
END_TEST


#define DATA_ARGS "--repl-diskless-sync-delay 0"

START_TEST(failover_under_writes) {
    /* with config files, which Sentinel rewrites (CONFIG REWRITE) */
    srv *p = conf_nodes[0] = srv_start_conf("# test_sentinel\n", DATA_ARGS);
    srv *r1 = conf_nodes[1] = srv_start_conf("# test_sentinel\n", DATA_ARGS);
    redis_replica = srv_start_redis(DATA_ARGS);
    srv *r2 = redis_replica;
    redisContext *cp = srv_connect(p), *c1 = srv_connect(r1), *c2 = srv_connect(r2);
    expect_status(c1, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    expect_status(c2, "OK", "REPLICAOF 127.0.0.1 %d", p->port);
    wait_follows(r1->port, p->port, 20000);
    wait_follows(r2->port, p->port, 20000);
    h_wait_info(cp, "replication", "connected_slaves", 2, 10000);

    start_sentinels(p);
    wait_sentinels(p->port, "ok", 2);

    /* writes confirmed on both replicas, then the primary dies under them */
    writer *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->port = p->port;
    pthread_t th, lth;
    loader ld = {.port = p->port};
    ck_assert_int_eq(pthread_create(&lth, NULL, loader_main, &ld), 0);
    ck_assert_int_eq(pthread_create(&th, NULL, writer_main, w), 0);
    long long end = h_now_ms() + h_scaled_ms(20000);
    while ((atomic_load(&w->confirmed) < 200 || atomic_load(&ld.done) < 10000) &&
           h_now_ms() < end)
        h_sleep_ms(10);
    ck_assert_int_ge(atomic_load(&w->confirmed), 200);
    ck_assert_int_ge(atomic_load(&ld.done), 10000);
    redisFree(cp);
    int old_port = p->port;
    srv_kill9(p);
    long long killed_at = h_now_ms();
    pthread_join(th, NULL);
    pthread_join(lth, NULL);
    long confirmed = atomic_load(&w->confirmed), sent = atomic_load(&w->sent);

    /* Sentinel promotes a replica, the other follows it. Tiny timeouts on a
     * busy machine may make Sentinel fail over once more (a new master it
     * could not reach within down-after-milliseconds), so the test follows
     * whatever master the three sentinels agree on. */
    int live[2] = {r1->port, r2->port};
    int new_port = wait_group(live, 2, old_port, 60000);
    long long promoted_ms = h_now_ms() - killed_at;
    /* the old primary, back on its port, is turned into a replica */
    restart_on(&restarted, srv_binary(), old_port, p->dir);
    int all3[3] = {old_port, r1->port, r2->port};
    new_port = wait_group(all3, 3, 0, 60000);
    ck_assert_int_ne(new_port, old_port);
    long long rejoined_ms = h_now_ms() - killed_at;
    int other = new_port == r1->port ? r2->port : r1->port;

    /* Sentinel rewrote the config files of the nodes it reconfigured:
     * replicaof the new primary, none on a promoted one */
    char want_line[64];
    snprintf(want_line, sizeof want_line, "replicaof 127.0.0.1 %d", new_port);
    expect_conf_line(p, want_line, 1);
    expect_conf_line(r1, new_port == r1->port ? "replicaof " : want_line, new_port != r1->port);

    /* the new group replicates: a write reaches both replicas */
    redisContext *cn = connect_port(new_port);
    expect_status(cn, "OK", "SET after-failover yes");
    expect_int(cn, 2, "WAIT 2 %d", h_scaled_ms(10000));
    for (int i = 0; i < 3; i++) {
        int port = i == 0 ? new_port : i == 1 ? other : old_port;
        check_confirmed(port, w);
        redisContext *c = connect_port(port);
        expect_bulk(c, "yes", "GET after-failover");
        redisFree(c);
    }
    fprintf(stderr,
            "sentinel: %ld pipelined writes, %ld writes sent with WAIT, %ld confirmed by WAIT 2, "
            "none lost; promoted %s in %lld ms, old primary a replica after %lld ms\n",
            atomic_load(&ld.done), sent, confirmed, new_port == r1->port ? "the first replica" : "the redis replica",
            promoted_ms, rejoined_ms);
    free(w);
    redisFree(cn);
    redisFree(c1);
    redisFree(c2);
}
END_TEST

int main(void) {
    Suite *s = suite_create("sentinel");
    TCase *tc = tcase_create("sentinel");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 180);
    tcase_add_test(tc, lone_primary_watched);
    tcase_add_test(tc, failover_under_writes);
    suite_add_tcase(s, tc);
    return h_main(s);
}
