/* test_config: CONFIG GET/SET/REWRITE/RESETSTAT over every parameter
 * Redis 7.0.15 has (issue 11, item 6). Runs against redis-server too
 * (VERSO_SERVER=/usr/bin/redis-server): the names, defaults, error texts
 * and rewritten lines checked here are Redis's. The parameters verso
 * accepts without acting on them (src/config/conf_compat_params.h) must answer as
 * Redis's do; only the log line saying they have no effect is verso's. */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* CONFIG GET * of redis-server 7.0.15 (Debian's build, with TLS) started
 * with no config file, generated once with
 *   redis-server --port N; redis-cli -p N config get '*' | paste - - | sort
 * Two values depend on how that server was started: dir (the working
 * directory, "" here) and port (6379 is the default). The harness starts
 * every server with --port, --bind, --dir, --save '' and
 * --enable-debug-command yes: those five are compared with what the harness
 * gave (harness_value) instead. latency-tracking-info-percentiles is
 * introspection's (branch i11-intro): until that is merged, verso lacks it
 * and the first test says so. */
static const struct {
    const char *name, *value;
} redis_params[] = {
    {"acl-pubsub-default", "resetchannels"},
    {"aclfile", ""},
    {"acllog-max-len", "128"},
    {"active-defrag-cycle-max", "25"},
    {"active-defrag-cycle-min", "1"},
    {"active-defrag-ignore-bytes", "104857600"},
    {"active-defrag-max-scan-fields", "1000"},
    {"active-defrag-threshold-lower", "10"},
    {"active-defrag-threshold-upper", "100"},
    {"active-expire-effort", "1"},
    {"activedefrag", "no"},
    {"activerehashing", "yes"},
    {"always-show-logo", "no"},
    {"aof-disable-auto-gc", "no"},
    {"aof-load-truncated", "yes"},
    {"aof-rewrite-incremental-fsync", "yes"},
    {"aof-timestamp-enabled", "no"},
    {"aof-use-rdb-preamble", "yes"},
    {"aof_rewrite_cpulist", ""},
    {"appenddirname", "appendonlydir"},
    {"appendfilename", "appendonly.aof"},
    {"appendfsync", "everysec"},
    {"appendonly", "no"},
    {"auto-aof-rewrite-min-size", "67108864"},
    {"auto-aof-rewrite-percentage", "100"},
    {"bgsave_cpulist", ""},
    {"bind", "* -::*"},
    {"bind-source-addr", ""},
    {"bio_cpulist", ""},
    {"busy-reply-threshold", "5000"},
    {"client-output-buffer-limit", "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"},
    {"client-query-buffer-limit", "1073741824"},
    {"cluster-allow-pubsubshard-when-down", "yes"},
    {"cluster-allow-reads-when-down", "no"},
    {"cluster-allow-replica-migration", "yes"},
    {"cluster-announce-bus-port", "0"},
    {"cluster-announce-hostname", ""},
    {"cluster-announce-ip", ""},
    {"cluster-announce-port", "0"},
    {"cluster-announce-tls-port", "0"},
    {"cluster-config-file", "nodes.conf"},
    {"cluster-enabled", "no"},
    {"cluster-link-sendbuf-limit", "0"},
    {"cluster-migration-barrier", "1"},
    {"cluster-node-timeout", "15000"},
    {"cluster-port", "0"},
    {"cluster-preferred-endpoint-type", "ip"},
    {"cluster-replica-no-failover", "no"},
    {"cluster-replica-validity-factor", "10"},
    {"cluster-require-full-coverage", "yes"},
    {"cluster-slave-no-failover", "no"},
    {"cluster-slave-validity-factor", "10"},
    {"crash-log-enabled", "yes"},
    {"crash-memcheck-enabled", "yes"},
    {"daemonize", "no"},
    {"databases", "16"},
    {"dbfilename", "dump.rdb"},
    {"dir", ""},
    {"disable-thp", "yes"},
    {"dynamic-hz", "yes"},
    {"enable-debug-command", "no"},
    {"enable-module-command", "no"},
    {"enable-protected-configs", "no"},
    {"hash-max-listpack-entries", "512"},
    {"hash-max-listpack-value", "64"},
    {"hash-max-ziplist-entries", "512"},
    {"hash-max-ziplist-value", "64"},
    {"hll-sparse-max-bytes", "3000"},
    {"hz", "10"},
    {"ignore-warnings", ""},
    {"io-threads", "1"},
    {"io-threads-do-reads", "no"},
    {"jemalloc-bg-thread", "yes"},
    {"latency-monitor-threshold", "0"},
    {"latency-tracking", "yes"},
    {"latency-tracking-info-percentiles", "50 99 99.9"},
    {"lazyfree-lazy-eviction", "no"},
    {"lazyfree-lazy-expire", "no"},
    {"lazyfree-lazy-server-del", "no"},
    {"lazyfree-lazy-user-del", "no"},
    {"lazyfree-lazy-user-flush", "no"},
    {"lfu-decay-time", "1"},
    {"lfu-log-factor", "10"},
    {"list-compress-depth", "0"},
    {"list-max-listpack-size", "-2"},
    {"list-max-ziplist-size", "-2"},
    {"logfile", ""},
    {"loglevel", "notice"},
    {"lua-time-limit", "5000"},
    {"masterauth", ""},
    {"masteruser", ""},
    {"maxclients", "10000"},
    {"maxmemory", "0"},
    {"maxmemory-clients", "0"},
    {"maxmemory-eviction-tenacity", "10"},
    {"maxmemory-policy", "noeviction"},
    {"maxmemory-samples", "5"},
    {"min-replicas-max-lag", "10"},
    {"min-replicas-to-write", "0"},
    {"min-slaves-max-lag", "10"},
    {"min-slaves-to-write", "0"},
    {"no-appendfsync-on-rewrite", "no"},
    {"notify-keyspace-events", ""},
    {"oom-score-adj", "no"},
    {"oom-score-adj-values", "0 200 800"},
    {"pidfile", ""},
    {"port", "6379"},
    {"proc-title-template", "{title} {listen-addr} {server-mode}"},
    {"propagation-error-behavior", "ignore"},
    {"protected-mode", "yes"},
    {"proto-max-bulk-len", "536870912"},
    {"rdb-del-sync-files", "no"},
    {"rdb-save-incremental-fsync", "yes"},
    {"rdbchecksum", "yes"},
    {"rdbcompression", "yes"},
    {"repl-backlog-size", "1048576"},
    {"repl-backlog-ttl", "3600"},
    {"repl-disable-tcp-nodelay", "no"},
    {"repl-diskless-load", "disabled"},
    {"repl-diskless-sync", "yes"},
    {"repl-diskless-sync-delay", "5"},
    {"repl-diskless-sync-max-replicas", "0"},
    {"repl-ping-replica-period", "10"},
    {"repl-ping-slave-period", "10"},
    {"repl-timeout", "60"},
    {"replica-announce-ip", ""},
    {"replica-announce-port", "0"},
    {"replica-announced", "yes"},
    {"replica-ignore-disk-write-errors", "no"},
    {"replica-ignore-maxmemory", "yes"},
    {"replica-lazy-flush", "no"},
    {"replica-priority", "100"},
    {"replica-read-only", "yes"},
    {"replica-serve-stale-data", "yes"},
    {"replicaof", ""},
    {"requirepass", ""},
    {"sanitize-dump-payload", "no"},
    {"save", "3600 1 300 100 60 10000"},
    {"server_cpulist", ""},
    {"set-max-intset-entries", "512"},
    {"set-proc-title", "yes"},
    {"shutdown-on-sigint", "default"},
    {"shutdown-on-sigterm", "default"},
    {"shutdown-timeout", "10"},
    {"slave-announce-ip", ""},
    {"slave-announce-port", "0"},
    {"slave-ignore-maxmemory", "yes"},
    {"slave-lazy-flush", "no"},
    {"slave-priority", "100"},
    {"slave-read-only", "yes"},
    {"slave-serve-stale-data", "yes"},
    {"slaveof", ""},
    {"slowlog-log-slower-than", "10000"},
    {"slowlog-max-len", "128"},
    {"socket-mark-id", "0"},
    {"stop-writes-on-bgsave-error", "yes"},
    {"stream-node-max-bytes", "4096"},
    {"stream-node-max-entries", "100"},
    {"supervised", "no"},
    {"syslog-enabled", "no"},
    {"syslog-facility", "local0"},
    {"syslog-ident", "redis"},
    {"tcp-backlog", "511"},
    {"tcp-keepalive", "300"},
    {"timeout", "0"},
    {"tls-auth-clients", "yes"},
    {"tls-ca-cert-dir", ""},
    {"tls-ca-cert-file", ""},
    {"tls-cert-file", ""},
    {"tls-ciphers", ""},
    {"tls-ciphersuites", ""},
    {"tls-client-cert-file", ""},
    {"tls-client-key-file", ""},
    {"tls-client-key-file-pass", ""},
    {"tls-cluster", "no"},
    {"tls-dh-params-file", ""},
    {"tls-key-file", ""},
    {"tls-key-file-pass", ""},
    {"tls-port", "0"},
    {"tls-prefer-server-ciphers", "no"},
    {"tls-protocols", ""},
    {"tls-replication", "no"},
    {"tls-session-cache-size", "20480"},
    {"tls-session-cache-timeout", "300"},
    {"tls-session-caching", "yes"},
    {"tracking-table-max-keys", "1000000"},
    {"unixsocket", ""},
    {"unixsocketperm", "0"},
    {"zset-max-listpack-entries", "128"},
    {"zset-max-listpack-value", "64"},
    {"zset-max-ziplist-entries", "128"},
    {"zset-max-ziplist-value", "64"},
};

#define NREDIS (sizeof redis_params / sizeof redis_params[0])

/* The value the harness's arguments give a parameter, or NULL when it
 * keeps its default. */
static const char *harness_value(const srv *s, const char *name, char *buf, size_t len)
{
    if (!strcmp(name, "port")) {
        snprintf(buf, len, "%d", s->port);
        return buf;
    }
    if (!strcmp(name, "dir")) {
        ck_assert_ptr_nonnull(realpath(s->dir, buf));
        return buf;
    }
    if (!strcmp(name, "bind")) return "127.0.0.1";
    if (!strcmp(name, "save")) return "";
    if (!strcmp(name, "enable-debug-command")) return "yes";
    return NULL;
}

/* The value of name in a CONFIG GET reply, or NULL. */
static const char *reply_value(const redisReply *r, const char *name)
{
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        if (!strcmp(r->element[i]->str, name)) return r->element[i + 1]->str;
    return NULL;
}

static const char *get1(redisContext *c, const char *name)
{
    static char out[1024];
    redisReply *r = expect_array(c, 2, "CONFIG GET %s", name);
    snprintf(out, sizeof out, "%s", r->element[1]->str);
    freeReplyObject(r);
    return out;
}

/* Every name redis-server lists, with its default. */
START_TEST(get_all_names_and_defaults)
{
    redisReply *r = expect_array(h_c, -1, "CONFIG GET *");
    ck_assert_uint_ge(r->elements, 2 * NREDIS);
    if (srv_is_reference()) ck_assert_uint_eq(r->elements, 2 * NREDIS);
    char buf[PATH_MAX];
    for (size_t i = 0; i < NREDIS; i++) {
        const char *name = redis_params[i].name;
        const char *v = reply_value(r, name);
        ck_assert_msg(v != NULL, "CONFIG GET * has no %s", name);
        const char *want = harness_value(h_srv, name, buf, sizeof buf);
        if (!want) want = redis_params[i].value;
        ck_assert_msg(!strcmp(v, want), "%s is '%s', Redis's default is '%s'", name, v, want);
    }
    freeReplyObject(r);
    /* patterns and exact names: aliases answer under their own name */
    r = expect_array(h_c, -1, "CONFIG GET cluster-*-validity-factor");
    ck_assert_uint_eq(r->elements, 4);
    freeReplyObject(r);
    r = expect_array(h_c, 4, "CONFIG GET tls-port unixsocketperm");
    ck_assert_str_eq(reply_value(r, "tls-port"), "0");
    ck_assert_str_eq(reply_value(r, "unixsocketperm"), "0");
    freeReplyObject(r);
}
END_TEST

/* The number of times name (case ignored) is a name of the reply. */
static int name_count(const redisReply *r, const char *name)
{
    int n = 0;
    for (size_t i = 0; i + 1 < r->elements; i += 2) n += !strcasecmp(r->element[i]->str, name);
    return n;
}

/* Several patterns: each name once in the reply, the first spelling kept;
 * an alias is a name of its own. */
START_TEST(get_names_once)
{
    redisReply *r = expect_array(h_c, 2, "CONFIG GET maxmemory maxmemory");
    freeReplyObject(r);
    r = expect_array(h_c, 2, "CONFIG GET MAXMEMORY maxmemory");
    ck_assert_str_eq(r->element[0]->str, "MAXMEMORY");
    freeReplyObject(r);
    r = expect_array(h_c, -1, "CONFIG GET maxmemory maxmemory* *maxmemory* maxmemory-policy");
    ck_assert_int_eq(name_count(r, "maxmemory"), 1);
    ck_assert_int_eq(name_count(r, "maxmemory-policy"), 1);
    ck_assert_int_eq(name_count(r, "maxmemory-samples"), 1);
    ck_assert_int_eq(name_count(r, "replica-ignore-maxmemory"), 1);
    ck_assert_int_eq(name_count(r, "slave-ignore-maxmemory"), 1);
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        ck_assert_msg(name_count(r, r->element[i]->str) == 1, "%s more than once",
                      r->element[i]->str);
    freeReplyObject(r);
    r = expect_array(h_c, 4, "CONFIG GET slaveof replicaof slaveof");
    ck_assert_int_eq(name_count(r, "slaveof"), 1);
    ck_assert_int_eq(name_count(r, "replicaof"), 1);
    freeReplyObject(r);
    r = expect_array(h_c, 4, "CONFIG GET replica-read-only slave-read-only *-read-only");
    freeReplyObject(r);
    r = expect_array(h_c, -1, "CONFIG GET *");
    size_t all = r->elements;
    freeReplyObject(r);
    r = expect_array(h_c, -1, "CONFIG GET maxmemory * port *");
    ck_assert_uint_eq(r->elements, all);
    freeReplyObject(r);
}
END_TEST

/* CONFIG SET name value -> the error redis-server 7.0.15 answers. */
static const struct {
    const char *name, *value, *reason;
} bad_values[] = {
    /* bool */
    {"activerehashing", "maybe", "argument must be 'yes' or 'no'"},
    {"tls-replication", "1", "argument must be 'yes' or 'no'"},
    {"appendonly", "on", "argument must be 'yes' or 'no'"},
    {"activedefrag", "yes",
     "Active defragmentation cannot be enabled: it requires a Redis server compiled with a "
     "modified Jemalloc like the one shipped by default with the Redis source distribution"},
    /* integers: parse and range */
    {"acllog-max-len", "x", "argument couldn't be parsed into an integer"},
    {"acllog-max-len", "-1", "argument must be between 0 and 9223372036854775807 inclusive"},
    {"active-defrag-cycle-min", "0", "argument must be between 1 and 99 inclusive"},
    {"active-defrag-threshold-upper", "1001", "argument must be between 0 and 1000 inclusive"},
    {"active-expire-effort", "11", "argument must be between 1 and 10 inclusive"},
    {"cluster-announce-port", "65536", "argument must be between 0 and 65535 inclusive"},
    {"cluster-node-timeout", "-1", "argument must be between 0 and 9223372036854775807 inclusive"},
    {"cluster-slave-validity-factor", "-1", "argument must be between 0 and 2147483647 inclusive"},
    {"shutdown-timeout", "1.5", "argument couldn't be parsed into an integer"},
    {"stream-node-max-entries", "-1",
     "argument must be between 0 and 9223372036854775807 inclusive"},
    {"tls-session-cache-size", "-1", "argument must be between 0 and 2147483647 inclusive"},
    {"hash-max-listpack-entries", "-1",
     "argument must be between 0 and 9223372036854775807 inclusive"},
    {"set-max-intset-entries", "-1",
     "argument must be between 0 and 9223372036854775807 inclusive"},
    {"repl-backlog-ttl", "-1", "argument must be between 0 and 9223372036854775807 inclusive"},
    {"maxclients", "0", "argument must be between 1 and 4294967295 inclusive"},
    {"list-max-listpack-size", "9223372036854775807",
     "argument must be between -2147483648 and 2147483647 inclusive"},
    /* memory, memory or percent */
    {"active-defrag-ignore-bytes", "0",
     "argument must be between 1 and 9223372036854775807 inclusive"},
    {"hll-sparse-max-bytes", "-1", "argument must be a memory value"},
    {"stream-node-max-bytes", "12xb", "argument must be a memory value"},
    {"cluster-link-sendbuf-limit", "abc", "argument must be a memory value"},
    {"maxmemory-clients", "x", "argument must be a memory or percent value"},
    {"maxmemory-clients", "-5%", "argument must be a memory or percent value"},
    {"maxmemory-clients", "101%", "percentage argument must be less or equal to 100"},
    /* enums and bit flags */
    {"acl-pubsub-default", "all",
     "argument(s) must be one of the following: allchannels, resetchannels"},
    {"cluster-preferred-endpoint-type", "x",
     "argument(s) must be one of the following: ip, hostname, unknown-endpoint"},
    {"oom-score-adj", "x", "argument(s) must be one of the following: no, yes, relative, absolute"},
    {"propagation-error-behavior", "x",
     "argument(s) must be one of the following: ignore, panic, panic-on-replicas"},
    {"sanitize-dump-payload", "x", "argument(s) must be one of the following: no, yes, clients"},
    {"tls-auth-clients", "x", "argument(s) must be one of the following: no, yes, optional"},
    {"shutdown-on-sigint", "now later",
     "argument(s) must be one of the following: default, save, nosave, now, force"},
    {"shutdown-on-sigterm", "save nosave",
     "shutdown options SAVE and NOSAVE can't be used simultaneously"},
    /* strings and multi-word values with checks */
    {"cluster-announce-hostname", "a_b",
     "Hostnames may only contain alphanumeric characters, hyphens or dots"},
    {"proc-title-template", "{title}", "template format is invalid or contains unknown variables"},
    {"proc-title-template", "{nosuch} x",
     "template format is invalid or contains unknown variables"},
    {"oom-score-adj-values", "1 2", "wrong number of arguments"},
    {"oom-score-adj-values", "0 0 2001",
     "Invalid oom-score-adj-values, elements must be between -2000 and 2000."},
    /* immutable and protected */
    {"cluster-enabled", "yes", "can't set immutable config"},
    {"io-threads", "4", "can't set immutable config"},
    {"unixsocket", "/tmp/x.sock", "can't set immutable config"},
    {"unixsocketperm", "700", "can't set immutable config"},
    {"socket-mark-id", "1", "can't set immutable config"},
    {"syslog-facility", "local1", "can't set immutable config"},
    {"enable-protected-configs", "yes", "can't set immutable config"},
    {"enable-module-command", "yes", "can't set immutable config"},
    {"daemonize", "yes", "can't set immutable config"},
    {"dbfilename", "x.rdb", "can't set protected config"},
};

START_TEST(set_errors_by_type)
{
    char want[1024];
    for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
        snprintf(want, sizeof want,
                 "ERR CONFIG SET failed (possibly related to argument '%s') - %s",
                 bad_values[i].name, bad_values[i].reason);
        expect_error(h_c, want, "CONFIG SET %s %s", bad_values[i].name, bad_values[i].value);
    }
    expect_error(h_c, "ERR Unknown option or number of arguments for CONFIG SET - 'x'",
                 "CONFIG SET x 1");
    expect_error(h_c, "ERR syntax error", "CONFIG SET tls-port 1 cluster-port");
    expect_error(h_c, "ERR wrong number of arguments for 'config|set' command",
                 "CONFIG SET tls-port");
    /* nothing of the above changed anything */
    ck_assert_str_eq(get1(h_c, "acllog-max-len"), "128");
    ck_assert_str_eq(get1(h_c, "maxmemory-clients"), "0");
    ck_assert_str_eq(get1(h_c, "shutdown-on-sigterm"), "default");
}
END_TEST

/* What verso keeps and shows of values set on the new parameters. */
START_TEST(set_and_get_values)
{
    static const struct {
        const char *name, *value, *shown;
    } ok[] = {
        {"acllog-max-len", "0", "0"},
        {"active-defrag-ignore-bytes", "200mb", "209715200"},
        {"maxmemory-clients", "10%", "10%"},
        {"maxmemory-clients", "0%", "0"},
        {"maxmemory-clients", "1k", "1000"},
        {"hll-sparse-max-bytes", "0", "0"},
        {"shutdown-on-sigint", "force now nosave", "nosave now force"},
        {"shutdown-on-sigint", "default now", "now"},
        {"shutdown-on-sigterm", "NOW", "now"},
        {"oom-score-adj-values", "100 50 0", "100 50 0"},
        {"cluster-announce-hostname", "ok-host.x", "ok-host.x"},
        {"proc-title-template", "{{title}} {port}", "{{title}} {port}"},
        {"tls-protocols", "TLSv1.2 TLSv1.3", "TLSv1.2 TLSv1.3"},
        {"acl-pubsub-default", "ALLCHANNELS", "allchannels"},
        {"sanitize-dump-payload", "clients", "clients"},
        {"cluster-slave-validity-factor", "3", "3"},
        {"ignore-warnings", "ARM64-COW-BUG", "ARM64-COW-BUG"},
        {"hash-max-listpack-entries", "1000", "1000"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        expect_status(h_c, "OK", "CONFIG SET %s %s", ok[i].name, ok[i].value);
        ck_assert_msg(!strcmp(get1(h_c, ok[i].name), ok[i].shown), "%s %s shows '%s'",
                      ok[i].name, ok[i].value, get1(h_c, ok[i].name));
    }
    ck_assert_str_eq(get1(h_c, "cluster-replica-validity-factor"), "3");
    /* a parameter and its alias in one command: both set in turn, the last
     * wins */
    expect_status(h_c, "OK", "CONFIG SET cluster-replica-no-failover yes "
                             "cluster-slave-no-failover no");
    ck_assert_str_eq(get1(h_c, "cluster-replica-no-failover"), "no");
}
END_TEST

/* Several parameters, old and new: all set, or none. */
START_TEST(set_several_is_atomic)
{
    expect_error(h_c, "ERR CONFIG SET failed (possibly related to argument 'maxmemory-clients') "
                      "- percentage argument must be less or equal to 100",
                 "CONFIG SET tls-session-cache-size 100 maxmemory 1mb oom-score-adj-values %s "
                 "activerehashing no maxmemory-clients 101%%", "1 2 3");
    ck_assert_str_eq(get1(h_c, "tls-session-cache-size"), "20480");
    ck_assert_str_eq(get1(h_c, "maxmemory"), "0");
    ck_assert_str_eq(get1(h_c, "oom-score-adj-values"), "0 200 800");
    ck_assert_str_eq(get1(h_c, "activerehashing"), "yes");
    /* a duplicate, or an immutable one, refuses the lot before any value */
    expect_error(h_c, "ERR CONFIG SET failed (possibly related to argument 'cluster-enabled') "
                      "- can't set immutable config",
                 "CONFIG SET tls-session-cache-size 100 cluster-enabled yes");
    expect_error(h_c, "ERR CONFIG SET failed (possibly related to argument 'acllog-max-len') "
                      "- duplicate parameter",
                 "CONFIG SET acllog-max-len 1 timeout 5 acllog-max-len 2");
    ck_assert_str_eq(get1(h_c, "tls-session-cache-size"), "20480");
    ck_assert_str_eq(get1(h_c, "timeout"), "0");
    expect_status(h_c, "OK", "CONFIG SET tls-session-cache-size 100 maxmemory 1mb "
                             "oom-score-adj-values %s activerehashing no maxmemory-clients 5%%",
                  "1 2 3");
    ck_assert_str_eq(get1(h_c, "tls-session-cache-size"), "100");
    ck_assert_str_eq(get1(h_c, "maxmemory"), "1048576");
    ck_assert_str_eq(get1(h_c, "oom-score-adj-values"), "1 2 3");
    ck_assert_str_eq(get1(h_c, "activerehashing"), "no");
    ck_assert_str_eq(get1(h_c, "maxmemory-clients"), "5%");
}
END_TEST

/* CONFIG REWRITE writes the new parameters as Redis does (replacing their
 * lines in place, appending the others), and the file starts a server
 * with the same values. */
START_TEST(rewrite_round_trip)
{
    static const char conf_text[] = "# compat\n"
                                    "unixsocketperm 700\n"
                                    "io-threads 1\n"
                                    "tls-session-cache-size 100\n"
                                    "cluster-slave-validity-factor 4\n";
    srv *s = srv_start_conf(conf_text, NULL);
    redisContext *c = srv_connect(s);
    ck_assert_str_eq(get1(c, "unixsocketperm"), "700");
    expect_status(c, "OK", "CONFIG SET tls-session-cache-size 200 maxmemory-clients 10%% "
                           "shutdown-on-sigint %s stream-node-max-bytes 8kb acl-pubsub-default "
                           "allchannels cluster-replica-validity-factor 7 "
                           "oom-score-adj-values %s proc-title-template %s tls-ciphers %s",
                  "nosave now", "1 2 3", "{title} {port}", "DEFAULT:!MEDIUM");
    /* a password of any bytes is written escaped and read back whole */
    expect_status(c, "OK", "CONFIG SET masterauth %b", "m\0n\xff", (size_t)4);
    expect_status(c, "OK", "CONFIG REWRITE");
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/server.conf", s->dir);
    size_t len;
    char *text = h_slurp(path, &len, 1);
    const char *head = "# compat\nunixsocketperm 700\nio-threads 1\n"
                       "tls-session-cache-size 200\ncluster-replica-validity-factor 7\n";
    ck_assert_msg(!strncmp(text, head, strlen(head)), "rewritten:\n%s", text);
    const char *want[] = {"unixsocketperm 700", "io-threads 1", "tls-session-cache-size 200",
                          "cluster-replica-validity-factor 7", "maxmemory-clients 10%",
                          "shutdown-on-sigint nosave now", "stream-node-max-bytes 8kb",
                          "acl-pubsub-default allchannels",
                          "oom-score-adj-values 1 2 3",
                          "proc-title-template \"{title} {port}\"",
                          "tls-ciphers \"DEFAULT:!MEDIUM\"",
                          "masterauth \"m\\x00n\\xff\"", NULL};
    for (int i = 0; want[i]; i++)
        ck_assert_msg(h_has_line(text, want[i]), "no '%s' in:\n%s", want[i], text);
    ck_assert_msg(!strstr(text, "cluster-slave-validity-factor"), "alias kept in:\n%s", text);
    /* defaults not in the file are not written */
    ck_assert_msg(!strstr(text, "\ntls-port ") && !strstr(text, "\nactiverehashing "),
                  "defaults written in:\n%s", text);
    redisFree(c);

    srv *s2 = srv_start_conf(text, NULL);
    free(text);
    c = srv_connect(s2);
    redisReply *r = expect_array(c, -1, "CONFIG GET *");
    static const char *same[][2] = {
        {"unixsocketperm", "700"}, {"tls-session-cache-size", "200"},
        {"maxmemory-clients", "10%"}, {"shutdown-on-sigint", "nosave now"},
        {"stream-node-max-bytes", "8192"}, {"acl-pubsub-default", "allchannels"},
        {"cluster-replica-validity-factor", "7"}, {"cluster-slave-validity-factor", "7"},
        {"oom-score-adj-values", "1 2 3"},
        {"proc-title-template", "{title} {port}"}, {"tls-ciphers", "DEFAULT:!MEDIUM"}};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const char *v = reply_value(r, same[i][0]);
        ck_assert_msg(v && !strcmp(v, same[i][1]), "%s read back as '%s'", same[i][0],
                      v ? v : "(none)");
    }
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET masterauth");
    ck_assert_uint_eq(r->element[1]->len, 4);
    ck_assert(!memcmp(r->element[1]->str, "m\0n\xff", 4));
    freeReplyObject(r);
    redisFree(c);
    srv_stop(s2);
    srv_stop(s);
}
END_TEST

/* enable-protected-configs local: a client on 127.0.0.1 may change dir and
 * dbfilename; SAVE then writes there. */
START_TEST(protected_configs_local)
{
    srv *s = h_srv_start("--enable-protected-configs local");
    redisContext *c = srv_connect(s);
    char sub[PATH_MAX + 8], real[PATH_MAX], file[PATH_MAX + 32];
    snprintf(sub, sizeof sub, "%s/sub", s->dir);
    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_ptr_nonnull(realpath(sub, real));
    expect_status(c, "OK", "CONFIG SET dir %s dbfilename other.rdb", real);
    ck_assert_str_eq(get1(c, "dir"), real);
    ck_assert_str_eq(get1(c, "dbfilename"), "other.rdb");
    expect_status(c, "OK", "SET k v");
    expect_status(c, "OK", "SAVE");
    snprintf(file, sizeof file, "%s/other.rdb", real);
    struct stat st;
    ck_assert_int_eq(stat(file, &st), 0);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                    "dbfilename can't be a path, just a filename",
                 "CONFIG SET dbfilename a/b.rdb");
    /* a relative dir is taken from the current one and shown absolute */
    char sub2[PATH_MAX + 8];
    snprintf(sub2, sizeof sub2, "%s/sub2", real);
    ck_assert_int_eq(mkdir(sub2, 0755), 0);
    expect_status(c, "OK", "CONFIG SET dir sub2");
    ck_assert_str_eq(get1(c, "dir"), sub2);
    redisFree(c);
    h_srv_drop_all();
}
END_TEST

/* verso logs once, at the first CONFIG SET of each, that a parameter has
 * no effect (and at startup for those a file or argument set); Redis acts
 * on them and says nothing, so there only the replies are checked. */
START_TEST(noeffect_logged_once)
{
    srv *s = h_srv_start("--io-threads 2");
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "CONFIG SET active-defrag-cycle-min 10");
    expect_status(c, "OK", "CONFIG SET active-defrag-cycle-min 11 activerehashing no");
    expect_status(c, "OK", "CONFIG SET stream-node-max-entries 1");
    expect_status(c, "OK", "CONFIG SET stream-node-max-entries 2");
    expect_status(c, "OK", "CONFIG SET maxmemory 10mb");
    expect_error_prefix(c, "ERR CONFIG SET failed", "CONFIG SET tls-replication yes timeout x");
    if (!srv_is_reference()) {
        const char *tail = "' is accepted for compatibility with Redis but has no effect in verso";
        char needle[256];
        const char *once[] = {"io-threads", "active-defrag-cycle-min", "activerehashing",
                              "stream-node-max-entries"};
        for (size_t i = 0; i < sizeof once / sizeof once[0]; i++) {
            snprintf(needle, sizeof needle, "'%s%s", once[i], tail);
            ck_assert_msg(srv_log_count(s, needle) == 1, "%d lines for %s",
                          srv_log_count(s, needle), once[i]);
        }
        ck_assert_int_eq(srv_log_count(s, "no effect in verso"), 4);
    }
    redisFree(c);
    h_srv_drop_all();
}
END_TEST

/* A Redis config file with directives Redis 7.0 reads and ignores, and
 * with parameters verso does not act on, starts the server. */
START_TEST(redis_config_file_starts)
{
    static const char text[] = "list-max-ziplist-entries 512\n"
                               "list-max-ziplist-value 64\n"
                               "lua-replicate-commands yes\n"
                               "unixsocketperm 700\n"
                               "io-threads 4\n"
                               "io-threads-do-reads yes\n"
                               "cluster-config-file nodes-6379.conf\n"
                               "oom-score-adj-values 0 200 800\n"
                               "shutdown-on-sigterm nosave now\n"
                               "syslog-facility local3\n"
                               "jemalloc-bg-thread yes\n"
                               "activerehashing yes\n"
                               "tls-auth-clients optional\n";
    /* and an include of another file */
    char inc[] = "/tmp/verso_test_config_XXXXXX";
    int fd = mkstemp(inc);
    ck_assert_int_ge(fd, 0);
    const char *inc_text = "tls-session-cache-size 77\n";
    ck_assert_int_eq(write(fd, inc_text, strlen(inc_text)), (ssize_t)strlen(inc_text));
    close(fd);
    char all[2048];
    snprintf(all, sizeof all, "%sinclude %s\n", text, inc);
    srv *s = srv_start_conf(all, NULL);
    unlink(inc);
    redisContext *c = srv_connect(s);
    expect_status(c, "PONG", "PING");
    ck_assert_str_eq(get1(c, "tls-session-cache-size"), "77");
    ck_assert_str_eq(get1(c, "io-threads"), "4");
    ck_assert_str_eq(get1(c, "shutdown-on-sigterm"), "nosave now");
    ck_assert_str_eq(get1(c, "syslog-facility"), "local3");
    ck_assert_str_eq(get1(c, "tls-auth-clients"), "optional");
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(resetstat)
{
    expect_status(h_c, "OK", "SET a b");
    expect_status(h_c, "OK", "CONFIG RESETSTAT");
    ck_assert_int_le(h_info_int(h_c, "stats", "total_commands_processed"), 2);
    expect_error(h_c, "ERR wrong number of arguments for 'config|resetstat' command",
                 "CONFIG RESETSTAT x");
}
END_TEST

/* CONFIG SET port rebinds as Redis 7.0 does: the new port listens, the
 * old one stops, connected clients stay; a port in use is refused and the
 * old listener stays; port 0 closes the listener. */
START_TEST(set_port_rebinds)
{
    srv *s = h_srv_start(NULL);
    redisContext *c = srv_connect(s);
    int old = s->port, fresh = h_free_port();
    expect_status(c, "OK", "CONFIG SET port %d", fresh);
    ck_assert(h_accepts("127.0.0.1", fresh));
    ck_assert(!h_accepts("127.0.0.1", old));
    expect_status(c, "PONG", "PING");                  /* the client stays */
    redisReply *r = expect_array(c, 2, "CONFIG GET port");
    char want[16];
    snprintf(want, sizeof want, "%d", fresh);
    check_bulk(r->element[1], want);
    freeReplyObject(r);
    ck_assert_int_eq(h_info_int(c, "server", "tcp_port"), fresh);
    redisContext *c2 = redisConnect("127.0.0.1", fresh);
    ck_assert(c2 && !c2->err);
    expect_status(c2, "PONG", "PING");
    /* a port in use: refused, nothing changes */
    int busy = h_free_port();
    int fd = h_listen_on("127.0.0.1", busy);
    ck_assert_int_ge(fd, 0);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'port') - Unable to "
                    "listen on this port. Check server logs.",
                 "CONFIG SET port %d", busy);
    r = expect_array(c, 2, "CONFIG GET port");
    check_bulk(r->element[1], want);
    freeReplyObject(r);
    ck_assert(h_accepts("127.0.0.1", fresh));
    ck_assert(srv_log_wait(s, "Failed applying new configuration. Possibly related to new port "
                              "setting. Restoring previous settings.", 5000));
    close(fd);
    /* port 0: no listener, the clients stay */
    expect_status(c, "OK", "CONFIG SET port 0");
    ck_assert(!h_accepts("127.0.0.1", fresh));
    expect_status(c2, "PONG", "PING");
    expect_status(c, "OK", "CONFIG SET port %d", old);
    ck_assert(h_accepts("127.0.0.1", old));
    redisFree(c2);
    redisFree(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("config");
    TCase *tc = tcase_create("config");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, get_all_names_and_defaults);
    tcase_add_test(tc, get_names_once);
    tcase_add_test(tc, set_errors_by_type);
    tcase_add_test(tc, set_and_get_values);
    tcase_add_test(tc, set_several_is_atomic);
    tcase_add_test(tc, rewrite_round_trip);
    tcase_add_test(tc, redis_config_file_starts);
    tcase_add_test(tc, resetstat);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "protected_configs_local", protected_configs_local, 60);
    h_add_dropall(s, "noeffect_logged_once", noeffect_logged_once, 60);
    h_add_dropall(s, "set_port_rebinds", set_port_rebinds, 60);
    return h_main(s);
}
