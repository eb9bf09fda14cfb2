/* test_acl_sentinel: Redis Sentinel (Debian's redis-sentinel) watching a
 * master whose default user is off, through `sentinel auth-user` /
 * `sentinel auth-pass` and the user Redis's docs give for Sentinel
 * (allchannels +multi +slaveof +ping +exec +subscribe +config|rewrite +role
 * +publish +info +client|setname +client|kill +script|kill). The master and
 * its replica (which replicates as user repl, masteruser / masterauth) are
 * the server under test, with config files that Sentinel rewrites.
 *
 * sentinel_auth_user runs in phases on shared nodes: a sentinel with a
 * wrong password leaves an `auth` entry in the master's ACL LOG and sees
 * the master down; two sentinels with the right one see the master ok, its
 * replica and each other (their hellos go through PUBLISH / SUBSCRIBE as
 * sentinel-user); a SENTINEL FAILOVER promotes the replica and turns the
 * old master into its replica, Sentinel's CONFIG REWRITE keeping the user
 * lines; no node logged an ACL denial of anything Sentinel sent.
 * sentinel_auth_pass is the same with requirepass and `sentinel auth-pass`
 * alone (no ACL LOG, no users to check): what a deployment without users
 * does, and what verso can do before it has ACL. Bounded
 * (down-after-milliseconds 1000; the slowest step is Sentinel's 8 s wait
 * before it converts the old master: about 13 s a test). */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* How the nodes authenticate: users (the case the file is about), or
 * only requirepass with `sentinel auth-pass` (which verso has without ACL). */
typedef struct auth_case {
    const char *node_conf;
    const char *admin_user; /* NULL: AUTH admin_pass (the default user) */
    const char *admin_pass;
    const char *sentinel_user; /* NULL: no auth-user line */
    int has_acl;               /* ACL LOG and user lines to check */
} auth_case;

static const auth_case users_case = {
    .node_conf = "user default off\n"
                 "user admin on >adminpw ~* &* +@all\n"
                 "user repl on >secret +psync +replconf +ping\n"
                 "user sentinel-user on >pw allchannels +multi +slaveof +ping +exec +subscribe "
                 "+config|rewrite +role +publish +info +client|setname +client|kill "
                 "+script|kill\n"
                 "masteruser repl\n"
                 "masterauth secret\n",
    .admin_user = "admin",
    .admin_pass = "adminpw",
    .sentinel_user = "sentinel-user",
    .has_acl = 1,
};

static const auth_case requirepass_case = {
    .node_conf = "requirepass pw\nmasterauth pw\n",
    .admin_pass = "pw",
};

static const auth_case *ac; /* the running test's */

typedef struct sentinel {
    pid_t pid;
    int port;
    char dir[PATH_MAX];
    char log[PATH_MAX + 16];
} sentinel;

#define NSENT 3 /* two with the right password, one with a wrong one */
static sentinel sents[NSENT];

/* A connection to 127.0.0.1:port, as admin when auth; NULL when it does
 * not answer (Sentinel kills the normal clients of nodes it reconfigures,
 * so every poll takes a fresh one). */
static redisContext *try_connect(int port, int auth) {
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", port, tv);
    if (!c || c->err) {
        if (c) redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, tv);
    if (auth) {
        redisReply *r = ac->admin_user
                            ? redisCommand(c, "AUTH %s %s", ac->admin_user, ac->admin_pass)
                            : redisCommand(c, "AUTH %s", ac->admin_pass);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        if (r) freeReplyObject(r);
        if (!ok) {
            redisFree(c);
            return NULL;
        }
    }
    return c;
}

/* One INFO field of the node or sentinel on port into buf ("" if none). */
static void info_field(int port, int auth, const char *section, const char *field, char *buf,
                       size_t cap) {
    buf[0] = '\0';
    redisContext *c = try_connect(port, auth);
    if (!c) return;
    redisReply *r = redisCommand(c, "INFO %s", section);
    if (r && r->type == REDIS_REPLY_STRING) h_info_field(r->str, field, buf, cap);
    if (r) freeReplyObject(r);
    redisFree(c);
}

static void dump_logs(void) {
    for (int i = 0; i < NSENT; i++) {
        if (!sents[i].log[0]) continue;
        size_t len;
        char *log = h_slurp(sents[i].log, &len, 0);
        fprintf(stderr, "---- sentinel %d (port %d) ----\n%s\n", i, sents[i].port,
                log ? log : "");
        free(log);
    }
}

/* Waits until the sentinel's INFO sentinel master0 line starts with want. */
static void wait_master0(const sentinel *s, const char *want, int timeout_ms) {
    long long end = h_now_ms() + h_scaled_ms(timeout_ms);
    char got[512];
    for (;;) {
        info_field(s->port, 0, "sentinel", "master0", got, sizeof got);
        if (!strncmp(got, want, strlen(want))) return;
        if (h_now_ms() > end) {
            dump_logs();
            ck_abort_msg("sentinel %d: master0 '%s', want '%s...'", s->port, got, want);
        }
        h_sleep_ms(50);
    }
}

/* Starts a sentinel monitoring 127.0.0.1:master_port with password pass,
 * in a dir beside the node's (the harness removes the base dir). */
static void sentinel_start(sentinel *s, const srv *node, int master_port, const char *pass) {
    snprintf(s->dir, sizeof s->dir, "%s", node->dir);
    char *slash = strrchr(s->dir, '/');
    ck_assert_ptr_nonnull(slash);
    snprintf(slash, sizeof s->dir - (size_t)(slash - s->dir), "/sentinel.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    snprintf(s->log, sizeof s->log, "%s/sentinel.log", s->dir);
    s->port = h_free_port();
    char conf[PATH_MAX + 16];
    snprintf(conf, sizeof conf, "%s/sentinel.conf", s->dir);
    FILE *f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f,
            "port %d\nbind 127.0.0.1\ndir %s\n"
            "sentinel monitor mymaster 127.0.0.1 %d 2\n"
            "sentinel auth-pass mymaster %s\n"
            "sentinel down-after-milliseconds mymaster 1000\n"
            "sentinel failover-timeout mymaster 10000\n",
            s->port, s->dir, master_port, pass);
    if (ac->sentinel_user) fprintf(f, "sentinel auth-user mymaster %s\n", ac->sentinel_user);
    ck_assert_int_eq(fclose(f), 0);
    const char *argv[] = {"redis-sentinel", conf, NULL};
    s->pid = h_spawn(argv, s->log);
}

static void sentinel_wait_up(const sentinel *s) {
    long long end = h_now_ms() + h_scaled_ms(10000);
    char got[64];
    do {
        info_field(s->port, 0, "server", "redis_mode", got, sizeof got);
        if (!strcmp(got, "sentinel")) return;
        h_sleep_ms(20);
    } while (h_now_ms() < end);
    dump_logs();
    ck_abort_msg("sentinel on port %d does not answer", s->port);
}

static void sentinel_stop(sentinel *s) {
    if (s->pid > 0) h_spawn_kill(s->pid);
    s->pid = 0;
}

static void teardown(void) {
    if (getenv("VERSO_SENTINEL_LOGS")) dump_logs();
    for (int i = 0; i < NSENT; i++) sentinel_stop(&sents[i]);
    memset(sents, 0, sizeof sents);
    h_srv_drop_all();
}

/* Fails unless the node's ACL LOG is empty: Sentinel was refused nothing. */
static void expect_no_denials(int port) {
    redisContext *c = try_connect(port, 1);
    ck_assert_ptr_nonnull(c);
    redisReply *r = redisCommand(c, "ACL LOG");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    if (r->elements) {
        const redisReply *e = r->element[0];
        char first[512] = "";
        for (size_t i = 0; i + 1 < e->elements && i < 10; i += 2) {
            size_t n = strlen(first);
            snprintf(first + n, sizeof first - n, " %s=%s", e->element[i]->str,
                     e->element[i + 1]->type == REDIS_REPLY_STRING ? e->element[i + 1]->str
                                                                   : "?");
        }
        ck_abort_msg("node %d: %zu ACL LOG entries, the newest:%s", port, r->elements, first);
    }
    freeReplyObject(r);
    redisFree(c);
}

/* Whether the node's config file has a line starting with prefix. */
static void expect_conf_line(const srv *s, const char *prefix, int want) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    int has = !strncmp(text, prefix, strlen(prefix));
    for (const char *q = text; !has && (q = strchr(q, '\n')) != NULL; q++)
        has = !strncmp(q + 1, prefix, strlen(prefix));
    ck_assert_msg(has == want, "%s: line '%s' %s:\n%s", path, prefix, want ? "missing" : "present",
                  text);
    free(text);
}

/* 1 when every good sentinel names master_port as the master, it says
 * role:master and replica_port follows it with its link up. */
static int settled(int master_port, int replica_port) {
    char v[64], want[16];
    snprintf(want, sizeof want, "%d", master_port);
    for (int i = 0; i < 2; i++) {
        redisContext *c = try_connect(sents[i].port, 0);
        if (!c) return 0;
        redisReply *r = redisCommand(c, "SENTINEL get-master-addr-by-name mymaster");
        int ok = r && r->type == REDIS_REPLY_ARRAY && r->elements == 2 &&
                 !strcmp(r->element[1]->str, want);
        if (r) freeReplyObject(r);
        redisFree(c);
        if (!ok) return 0;
    }
    info_field(master_port, 1, "replication", "role", v, sizeof v);
    if (strcmp(v, "master")) return 0;
    info_field(replica_port, 1, "replication", "master_port", v, sizeof v);
    if (strcmp(v, want)) return 0;
    info_field(replica_port, 1, "replication", "master_link_status", v, sizeof v);
    return !strcmp(v, "up");
}

/* The entries of the ACL LOG of c hold an auth refusal of the sentinel's
 * user. */
static void expect_auth_refused(redisContext *c) {
    redisReply *log = expect_array(c, -1, "ACL LOG");
    char want[128];
    snprintf(want, sizeof want, "reason=auth,context=toplevel,object=AUTH,username=%s,",
             ac->sentinel_user);
    int auth_seen = 0;
    for (size_t i = 0; i < log->elements; i++) {
        const redisReply *e = log->element[i];
        char line[256] = "";
        for (size_t j = 0; j + 1 < e->elements; j += 2)
            if (e->element[j + 1]->type == REDIS_REPLY_STRING) {
                size_t n = strlen(line);
                snprintf(line + n, sizeof line - n, "%s=%s,", e->element[j]->str,
                         e->element[j + 1]->str);
            }
        auth_seen |= strstr(line, want) != NULL;
    }
    ck_assert_msg(auth_seen, "no ACL LOG entry %s", want);
    freeReplyObject(log);
    expect_status(c, "OK", "ACL LOG RESET");
}

static void sentinel_case(const auth_case *which) {
    ac = which;
    srv *m = h_srv_start_conf(0, ac->node_conf, "--repl-diskless-sync-delay 0");
    srv *r = h_srv_start_conf(0, ac->node_conf,
                              "--repl-diskless-sync-delay 0 --replicaof 127.0.0.1 %d", m->port);
    sentinel_start(&sents[2], m, m->port, "wrong");
    for (int i = 0; i < 2; i++) sentinel_start(&sents[i], m, m->port, "pw");
    for (int i = 0; i < NSENT; i++) sentinel_wait_up(&sents[i]);
    long long t0 = h_now_ms();

    /* the wrong password: refused at AUTH, the master unreachable for it */
    redisContext *mc = try_connect(m->port, 1);
    ck_assert_ptr_nonnull(mc);
    char want[256];
    snprintf(want, sizeof want, "name=mymaster,status=sdown,address=127.0.0.1:%d", m->port);
    wait_master0(&sents[2], want, 10000);
    sentinel_stop(&sents[2]);
    if (ac->has_acl) expect_auth_refused(mc);

    /* the right one: master, replica and the other sentinel seen */
    snprintf(want, sizeof want, "name=mymaster,status=ok,address=127.0.0.1:%d,slaves=1,sentinels=2",
             m->port);
    for (int i = 0; i < 2; i++) wait_master0(&sents[i], want, 20000);
    redisReply *numsub = expect_array(mc, 2, "PUBSUB NUMSUB __sentinel__:hello");
    check_int(numsub->element[1], 2);
    freeReplyObject(numsub);
    redisReply *cl = cmd(mc, "CLIENT LIST");
    ck_assert_int_eq(cl->type, REDIS_REPLY_STRING);
    char user_field[64];
    snprintf(user_field, sizeof user_field, " user=%s ",
             ac->sentinel_user ? ac->sentinel_user : "default");
    int named = 0;
    for (const char *p = cl->str; (p = strstr(p, user_field)) != NULL; p++) named++;
    ck_assert_msg(named >= 4, "%d connections with%s:\n%s", named, user_field, cl->str);
    ck_assert_msg(strstr(cl->str, "-cmd ") && strstr(cl->str, "-pubsub "), "%s", cl->str);
    freeReplyObject(cl);
    redisFree(mc);
    long long seen_ms = h_now_ms() - t0;

    /* a failover driven through the user's commands */
    redisContext *sc = try_connect(sents[0].port, 0);
    ck_assert_ptr_nonnull(sc);
    long long end = h_now_ms() + h_scaled_ms(10000);
    for (;;) {
        redisReply *fr = cmd(sc, "SENTINEL FAILOVER mymaster");
        int ok = fr->type == REDIS_REPLY_STATUS;
        char got[256];
        h_reply_str(fr, got, sizeof got);
        freeReplyObject(fr);
        if (ok) break;
        ck_assert_msg(h_now_ms() < end, "SENTINEL FAILOVER: %s", got);
        h_sleep_ms(100);
    }
    redisFree(sc);
    long long failover_at = h_now_ms();
    end = h_now_ms() + h_scaled_ms(30000);
    while (!settled(r->port, m->port)) {
        if (h_now_ms() > end) {
            dump_logs();
            ck_abort_msg("no settled failover to %d", r->port);
        }
        h_sleep_ms(100);
    }
    long long failover_ms = h_now_ms() - failover_at;
    redisContext *nc = try_connect(r->port, 1);
    ck_assert_ptr_nonnull(nc);
    expect_status(nc, "OK", "SET after-failover 1");
    expect_int(nc, 1, "WAIT 1 %d", h_scaled_ms(5000));
    redisFree(nc);
    /* Sentinel's CONFIG REWRITE (in the transaction of its SLAVEOF) wrote
     * the new roles and kept the users */
    char line[64];
    snprintf(line, sizeof line, "replicaof 127.0.0.1 %d", r->port);
    expect_conf_line(m, line, 1);
    expect_conf_line(r, "replicaof ", 0);
    if (ac->has_acl) {
        expect_no_denials(m->port);
        expect_no_denials(r->port);
        expect_conf_line(m, "user sentinel-user on ", 1);
        expect_conf_line(r, "user sentinel-user on ", 1);
    }
    fprintf(stderr, "acl_sentinel (%s): master, replica and sentinels seen in %lld ms, failover "
                    "settled in %lld ms\n", ac->has_acl ? "auth-user" : "auth-pass", seen_ms,
            failover_ms);
}

START_TEST(sentinel_auth_user) { sentinel_case(&users_case); }
END_TEST

START_TEST(sentinel_auth_pass) { sentinel_case(&requirepass_case); }
END_TEST

int main(void) {
    Suite *s = suite_create("acl_sentinel");
    TCase *tc = tcase_create("sentinel_auth");
    tcase_add_checked_fixture(tc, NULL, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, sentinel_auth_user);
    tcase_add_test(tc, sentinel_auth_pass);
    suite_add_tcase(s, tc);
    return h_main(s);
}
