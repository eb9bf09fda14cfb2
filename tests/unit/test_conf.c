/* Unit tests for conf: defaults, config file and argument parsing with
 * Redis 7's exact error texts, CONFIG GET formatting and CONFIG SET
 * all-or-nothing with the hook; the example verso.conf against the table. */
#include "conf.h"
#include "log.h"
#include "util.h"

#include <check.h>
#include <errno.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FATAL_HEAD "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\n"

static char tmpdir[] = "/tmp/verso_conf_XXXXXX";

/* Writes text to a fresh file in tmpdir; returns its path (static). */
static const char *write_conf(const char *text)
{
    static char path[256];
    static int seq;
    snprintf(path, sizeof(path), "%s/t%d.conf", tmpdir, seq++);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fputs(text, f) >= 0, 1);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Loads text as a config file into a fresh conf; returns conf_load_file's
 * result, err holds its message. */
static int load(conf *c, const char *text, char *err)
{
    conf_init(c);
    err[0] = '\0';
    return conf_load_file(c, write_conf(text), err, CONF_ERRLEN);
}

/* Expects text to fail at line `line`, showing `shown`, with `reason`. */
static void expect_file_error(const char *text, int line, const char *shown,
                              const char *reason)
{
    conf c;
    char err[CONF_ERRLEN], want[CONF_ERRLEN];
    ck_assert_int_eq(load(&c, text, err), -1);
    snprintf(want, sizeof(want),
             FATAL_HEAD "Reading the configuration file, at line %d\n>>> '%s'\n%s", line,
             shown, reason);
    ck_assert_str_eq(err, want);
    conf_free(&c);
}

/* CONFIG GET collector */
typedef struct got {
    int n;
    char names[256][64];
    char values[256][256];
} got;

static void collect(void *priv, const char *name, const char *value, size_t vlen)
{
    (void)vlen; /* the values here hold no NUL */
    got *g = priv;
    ck_assert_int_lt(g->n, 256);
    snprintf(g->names[g->n], sizeof(g->names[0]), "%s", name);
    snprintf(g->values[g->n], sizeof(g->values[0]), "%s", value);
    g->n++;
}

/* The value of one exact name (fails the test if absent). */
static const char *get1(const conf *c, const char *name)
{
    static got g;
    g.n = 0;
    conf_get(c, name, collect, &g);
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.names[0], name);
    return g.values[0];
}

static int has_name(const got *g, const char *name)
{
    for (int i = 0; i < g->n; i++)
        if (!strcmp(g->names[i], name)) return 1;
    return 0;
}

/* ---- defaults ---- */

START_TEST(test_defaults)
{
    conf c;
    conf_init(&c);
    ck_assert_int_eq(c.port, 6379);
    ck_assert_int_eq(c.nbind, 1);
    ck_assert_str_eq(c.bind[0], "127.0.0.1");
    ck_assert_int_eq(c.tcp_backlog, 511);
    ck_assert_int_eq(c.protected_mode, 1);
    ck_assert_int_eq(c.timeout, 0);
    ck_assert_int_eq(c.tcp_keepalive, 300);
    ck_assert_int_eq(c.maxclients, 10000);
    ck_assert_str_eq(c.requirepass, "");
    ck_assert_int_eq(c.proto_max_bulk_len, 512LL * 1024 * 1024);
    ck_assert_int_eq(c.client_query_buffer_limit, 1024LL * 1024 * 1024);
    ck_assert_int_eq(c.obuf[0].hard, 0);
    ck_assert_int_eq(c.obuf[0].soft, 0);
    ck_assert_int_eq(c.obuf[0].soft_seconds, 0);
    ck_assert_int_eq(c.databases, 16);
    ck_assert_int_eq(c.loglevel, LOG_NOTICE);
    ck_assert_str_eq(c.logfile, "");
    ck_assert_str_eq(c.pidfile, "");
    ck_assert_int_eq(c.hz, 10);
    ck_assert_str_eq(c.dir, "./data");
    ck_assert_str_eq(c.dbfilename, "dump.rdb");
    ck_assert_int_eq(c.nsave, 3);
    ck_assert_int_eq(c.save[0].seconds, 3600);
    ck_assert_int_eq(c.save[0].changes, 1);
    ck_assert_int_eq(c.save[2].seconds, 60);
    ck_assert_int_eq(c.save[2].changes, 10000);
    ck_assert_int_eq(c.stop_writes_on_bgsave_error, 1);
    ck_assert_int_eq(c.rdbcompression, 1);
    ck_assert_int_eq(c.rdbchecksum, 1);
    ck_assert_int_eq(c.snapshot_compression, SNAP_COMPRESS_NONE);
    ck_assert_int_eq(c.bgsave_method, BGSAVE_FORKLESS);
    ck_assert_int_eq(c.appendonly, 0);
    ck_assert_int_eq(c.appendfsync, FSYNC_EVERYSEC);
    ck_assert_str_eq(c.appenddirname, "appendonlydir");
    ck_assert_str_eq(c.appendfilename, "appendonly.aof");
    ck_assert_int_eq(c.aof_load_truncated, 1);
    ck_assert_int_eq(c.auto_aof_rewrite_percentage, 100);
    ck_assert_int_eq(c.auto_aof_rewrite_min_size, 64LL * 1024 * 1024);
    ck_assert_int_eq(c.aof_max_backlog, 64LL * 1024 * 1024);
    ck_assert_int_eq(c.enable_debug_command, DEBUG_CMD_NO);
    ck_assert_str_eq(get1(&c, "enable-debug-command"), "no");
    char err[CONF_ERRLEN];
    char *local[] = {"enable-debug-command", "local"};
    ck_assert_int_eq(conf_apply(&c, 2, local, err, sizeof err), 0);
    ck_assert_int_eq(c.enable_debug_command, DEBUG_CMD_LOCAL);
    char *bad[] = {"enable-debug-command", "maybe"};
    ck_assert_int_eq(conf_apply(&c, 2, bad, err, sizeof err), -1);
    ck_assert_str_eq(err, "argument(s) must be one of the following: no, yes, local");
    conf_free(&c);
}
END_TEST

START_TEST(test_get_formatting)
{
    conf c;
    conf_init(&c);
    ck_assert_str_eq(get1(&c, "save"), "3600 1 300 100 60 10000");
    ck_assert_str_eq(get1(&c, "appendonly"), "no");
    ck_assert_str_eq(get1(&c, "protected-mode"), "yes");
    ck_assert_str_eq(get1(&c, "bind"), "127.0.0.1");
    ck_assert_str_eq(get1(&c, "proto-max-bulk-len"), "536870912");
    ck_assert_str_eq(get1(&c, "client-output-buffer-limit"),
                     "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60");
    ck_assert_str_eq(get1(&c, "appendfsync"), "everysec");
    ck_assert_str_eq(get1(&c, "loglevel"), "notice");
    ck_assert_str_eq(get1(&c, "snapshot-compression"), "none");
    ck_assert_str_eq(get1(&c, "bgsave-method"), "forkless");
    ck_assert_str_eq(get1(&c, "dir"), "./data");
    ck_assert_str_eq(get1(&c, "requirepass"), "");
    ck_assert_str_eq(get1(&c, "maxmemory"), "0");
    ck_assert_str_eq(get1(&c, "maxmemory-policy"), "noeviction");
    ck_assert_str_eq(get1(&c, "daemonize"), "no");
    ck_assert_str_eq(get1(&c, "io-threads"), "1");
    ck_assert_str_eq(get1(&c, "supervised"), "no");
    ck_assert_str_eq(get1(&c, "rdb-del-sync-files"), "no");
    ck_assert_str_eq(get1(&c, "maxclients"), "10000");
    /* save with no point is the empty string; bind lists are space-separated */
    c.nsave = 0;
    ck_assert_str_eq(get1(&c, "save"), "");
    free(c.bind[0]);
    c.bind[0] = xstrdup("127.0.0.1");
    c.bind[1] = xstrdup("::1");
    c.nbind = 2;
    ck_assert_str_eq(get1(&c, "bind"), "127.0.0.1 ::1");
    conf_free(&c);
}
END_TEST

START_TEST(test_get_patterns)
{
    conf c;
    got g = {0};
    conf_init(&c);
    conf_get(&c, "*", collect, &g);
    ck_assert_int_ge(g.n, 38);
    ck_assert(has_name(&g, "port") && has_name(&g, "save") && has_name(&g, "maxmemory"));
    g.n = 0;
    conf_get(&c, "append*", collect, &g);
    ck_assert_int_eq(g.n, 4); /* appendonly appendfsync appenddirname appendfilename */
    ck_assert(has_name(&g, "appendonly") && has_name(&g, "appendfsync"));
    ck_assert(has_name(&g, "appenddirname") && has_name(&g, "appendfilename"));
    g.n = 0;
    conf_get(&c, "*MAX*", collect, &g); /* patterns ignore case */
    ck_assert_int_eq(g.n, 33); /* 8 (with maxmemory-include-save) + the collections'
                                  11 + replication's 5 (aliases included) +
                                  slowlog-max-len, tracking-table-max-keys +
                                  the compatibility ones: acllog-max-len,
                                  active-defrag-cycle-max, active-defrag-max-scan-fields,
                                  maxmemory-clients, hll-sparse-max-bytes,
                                  stream-node-max-bytes, stream-node-max-entries */
    ck_assert(has_name(&g, "maxclients") && has_name(&g, "proto-max-bulk-len"));
    ck_assert(has_name(&g, "aof-max-backlog") && has_name(&g, "maxmemory"));
    ck_assert(has_name(&g, "maxmemory-policy") && has_name(&g, "maxmemory-samples"));
    ck_assert(has_name(&g, "maxmemory-eviction-tenacity"));
    g.n = 0;
    conf_get(&c, "p?rt", collect, &g);
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.names[0], "port");
    ck_assert_str_eq(g.values[0], "6379");
    g.n = 0;
    conf_get(&c, "[st]ave", collect, &g);
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.names[0], "save");
    /* an exact name matches without case and answers under the name asked */
    g.n = 0;
    conf_get(&c, "PORT", collect, &g);
    ck_assert_int_eq(g.n, 1);
    ck_assert_str_eq(g.names[0], "PORT");
    ck_assert_str_eq(g.values[0], "6379");
    g.n = 0;
    conf_get(&c, "nosuch", collect, &g);
    conf_get(&c, "nosuch*", collect, &g);
    conf_get(&c, "por", collect, &g);
    ck_assert_int_eq(g.n, 0);
    conf_free(&c);
}
END_TEST

/* ---- config file ---- */

START_TEST(test_file_every_type)
{
    conf c;
    char err[CONF_ERRLEN];
    const char *text = "# a comment\n"
                       "\n"
                       "   \t  \n"
                       "  port 7001  \r\n"
                       "PROTECTED-MODE No\n"
                       "bind 10.0.0.1 ::1\n"
                       "timeout 30\n"
                       "maxclients 4294967295\n"
                       "requirepass s3cret\n"
                       "proto-max-bulk-len 2mb\n"
                       "client-query-buffer-limit 1gb\n"
                       "client-output-buffer-limit normal 1mb 512kb 10 pubsub 1 2 3\n"
                       "databases 4\n"
                       "loglevel WARNING\n"
                       "logfile /tmp/x.log\n"
                       "hz 100\n"
                       "dir /var/lib/verso\n"
                       "dbfilename snap.rdb\n"
                       "rdbchecksum no\n"
                       "snapshot-compression lz4\n"
                       "bgsave-method fork\n"
                       "appendonly yes\n"
                       "appendfsync always\n"
                       "appendfilename verso.aof\n"
                       "auto-aof-rewrite-percentage 0\n"
                       "auto-aof-rewrite-min-size 1k\n"
                       "aof-max-backlog 100\n"
                       "maxmemory 1gb\n"
                       "maxmemory-policy allkeys-lru\n"
                       "daemonize no\n"
                       "io-threads 4\n"
                       "supervised systemd\n"
                       "rdb-del-sync-files yes";  /* no final newline */
    ck_assert_int_eq(load(&c, text, err), 0);
    ck_assert_str_eq(err, "");
    ck_assert_int_eq(c.port, 7001);
    ck_assert_int_eq(c.protected_mode, 0);
    ck_assert_int_eq(c.nbind, 2);
    ck_assert_str_eq(c.bind[0], "10.0.0.1");
    ck_assert_str_eq(c.bind[1], "::1");
    ck_assert_int_eq(c.timeout, 30);
    ck_assert_int_gt(c.maxclients, 1000000); /* kept as INT_MAX in an int */
    ck_assert_str_eq(c.requirepass, "s3cret");
    ck_assert_int_eq(c.proto_max_bulk_len, 2 * 1024 * 1024);
    ck_assert_int_eq(c.client_query_buffer_limit, 1024LL * 1024 * 1024);
    ck_assert_int_eq(c.obuf[0].hard, 1024 * 1024);
    ck_assert_int_eq(c.obuf[0].soft, 512 * 1024);
    ck_assert_int_eq(c.obuf[0].soft_seconds, 10);
    ck_assert_int_eq(c.databases, 4);
    ck_assert_int_eq(c.loglevel, LOG_WARNING);
    ck_assert_str_eq(c.logfile, "/tmp/x.log");
    ck_assert_int_eq(c.hz, 100);
    ck_assert_str_eq(c.dir, "/var/lib/verso");
    ck_assert_str_eq(c.dbfilename, "snap.rdb");
    ck_assert_int_eq(c.rdbchecksum, 0);
    ck_assert_int_eq(c.snapshot_compression, SNAP_COMPRESS_LZ4);
    ck_assert_int_eq(c.bgsave_method, BGSAVE_FORK);
    ck_assert_int_eq(c.appendonly, 1);
    ck_assert_int_eq(c.appendfsync, FSYNC_ALWAYS);
    ck_assert_str_eq(c.appendfilename, "verso.aof");
    ck_assert_int_eq(c.auto_aof_rewrite_percentage, 0);
    ck_assert_int_eq(c.auto_aof_rewrite_min_size, 1000);
    ck_assert_int_eq(c.aof_max_backlog, 100);
    ck_assert_int_eq(c.maxmemory, 1024LL * 1024 * 1024);
    ck_assert_int_eq(c.maxmemory_policy, MAXMEM_ALLKEYS_LRU);
    ck_assert_str_eq(get1(&c, "maxmemory"), "1073741824");
    ck_assert_str_eq(get1(&c, "maxmemory-policy"), "allkeys-lru");
    /* the compatibility names keep the value set, without effect */
    ck_assert_int_eq(c.compat.io_threads, 4);
    ck_assert_str_eq(get1(&c, "io-threads"), "4");
    ck_assert_str_eq(get1(&c, "supervised"), "systemd");
    ck_assert_str_eq(get1(&c, "rdb-del-sync-files"), "yes");
    /* every class is kept (the file set normal and pubsub) */
    ck_assert_str_eq(get1(&c, "client-output-buffer-limit"),
                     "normal 1048576 524288 10 slave 268435456 67108864 60 pubsub 1 2 3");
    /* untouched parameters keep their defaults */
    ck_assert_int_eq(c.tcp_keepalive, 300);
    ck_assert_int_eq(c.nsave, 3);
    conf_free(&c);
}
END_TEST

START_TEST(test_memory_units)
{
    static const struct { const char *arg; long long bytes; } cases[] = {
        {"1", 1}, {"1b", 1}, {"1k", 1000}, {"1kb", 1024}, {"1K", 1000}, {"1KB", 1024},
        {"1m", 1000000}, {"1mb", 1048576}, {"1Mb", 1048576}, {"1g", 1000000000},
        {"1gb", 1073741824}, {"3GB", 3221225472LL}, {"0", 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        conf c;
        char err[CONF_ERRLEN], text[128];
        snprintf(text, sizeof(text), "auto-aof-rewrite-min-size %s\n", cases[i].arg);
        ck_assert_int_eq(load(&c, text, err), 0);
        ck_assert_int_eq(c.auto_aof_rewrite_min_size, cases[i].bytes);
        conf_free(&c);
    }
    expect_file_error("auto-aof-rewrite-min-size 1xb\n", 1, "auto-aof-rewrite-min-size 1xb",
                      "argument must be a memory value");
    expect_file_error("auto-aof-rewrite-min-size -1\n", 1, "auto-aof-rewrite-min-size -1",
                      "argument must be a memory value");
    expect_file_error("auto-aof-rewrite-min-size 1.5mb\n", 1,
                      "auto-aof-rewrite-min-size 1.5mb", "argument must be a memory value");
    expect_file_error("proto-max-bulk-len 1k\n", 1, "proto-max-bulk-len 1k",
                      "argument must be between 1048576 and 9223372036854775807 inclusive");
}
END_TEST

START_TEST(test_quoting)
{
    conf c;
    char err[CONF_ERRLEN];
    ck_assert_int_eq(load(&c, "requirepass \"a b\\x41\\n\\t\\\"q\\\\\"\n", err), 0);
    ck_assert_str_eq(c.requirepass, "a bA\n\t\"q\\");
    conf_free(&c);
    ck_assert_int_eq(load(&c, "requirepass 'it\\'s \"x\"'\n", err), 0);
    ck_assert_str_eq(c.requirepass, "it's \"x\"");
    conf_free(&c);
    ck_assert_int_eq(load(&c, "requirepass \"\"\nlogfile ''\n", err), 0);
    ck_assert_str_eq(c.requirepass, "");
    ck_assert_str_eq(c.logfile, "");
    conf_free(&c);
    /* a quote inside a word starts a quoted part of the same word */
    ck_assert_int_eq(load(&c, "requirepass ab\"c d\"\n", err), 0);
    ck_assert_str_eq(c.requirepass, "abc d");
    conf_free(&c);
    expect_file_error("port 1\nport \"1\"x\n", 2, "port \"1\"x",
                      "Unbalanced quotes in configuration line");
    expect_file_error("requirepass \"abc\n", 1, "requirepass \"abc",
                      "Unbalanced quotes in configuration line");
    expect_file_error("requirepass 'abc\n", 1, "requirepass 'abc",
                      "Unbalanced quotes in configuration line");
    /* a quoted value is still one argument: "a b" is not two */
    expect_file_error("port \"12 3\"\n", 1, "port \"12 3\"",
                      "argument couldn't be parsed into an integer");
}
END_TEST

START_TEST(test_file_errors)
{
    expect_file_error("port 99999999\n", 1, "port 99999999",
                      "argument must be between 0 and 65535 inclusive");
    expect_file_error("\n# c\nfoo bar\n", 3, "foo bar", "Bad directive or wrong number of arguments");
    expect_file_error("include a b\n", 1, "include a b",
                      "Bad directive or wrong number of arguments");
    expect_file_error("port\n", 1, "port", "wrong number of arguments");
    expect_file_error("requirepass a b\n", 1, "requirepass a b", "wrong number of arguments");
    expect_file_error("   port   abc   \r\n", 1, "port   abc",
                      "argument couldn't be parsed into an integer");
    expect_file_error("port 01\n", 1, "port 01", "argument couldn't be parsed into an integer");
    expect_file_error("port +1\n", 1, "port +1", "argument couldn't be parsed into an integer");
    expect_file_error("maxclients 0\n", 1, "maxclients 0",
                      "argument must be between 1 and 4294967295 inclusive");
    expect_file_error("timeout -1\n", 1, "timeout -1",
                      "argument must be between 0 and 2147483647 inclusive");
    expect_file_error("appendonly maybe\n", 1, "appendonly maybe",
                      "argument must be 'yes' or 'no'");
    expect_file_error("appendfsync sometimes\n", 1, "appendfsync sometimes",
                      "argument(s) must be one of the following: everysec, always, no");
    expect_file_error("loglevel x\n", 1, "loglevel x",
                      "argument(s) must be one of the following: debug, verbose, notice, warning");
    expect_file_error("snapshot-compression zstd\n", 1, "snapshot-compression zstd",
                      "argument(s) must be one of the following: lz4, none");
    expect_file_error("bgsave-method x\n", 1, "bgsave-method x",
                      "argument(s) must be one of the following: forkless, fork");
    expect_file_error("maxmemory-policy foo\n", 1, "maxmemory-policy foo",
                      "argument(s) must be one of the following: volatile-lru, volatile-lfu, "
                      "volatile-random, volatile-ttl, allkeys-lru, allkeys-lfu, "
                      "allkeys-random, noeviction");
    expect_file_error("save 10\n", 1, "save 10", "Invalid save parameters");
    expect_file_error("save a b\n", 1, "save a b", "Invalid save parameters");
    expect_file_error("save 0 1\n", 1, "save 0 1", "Invalid save parameters");
    expect_file_error("save 1 -1\n", 1, "save 1 -1", "Invalid save parameters");
    expect_file_error("daemonize yes\n", 1, "daemonize yes", "verso runs in the foreground");
    expect_file_error("daemonize\n", 1, "daemonize", "wrong number of arguments");
    expect_file_error("dbfilename a/b\n", 1, "dbfilename a/b",
                      "dbfilename can't be a path, just a filename");
    expect_file_error("appendfilename a/b\n", 1, "appendfilename a/b",
                      "appendfilename can't be a path, just a filename");
    expect_file_error("appenddirname a/b\n", 1, "appenddirname a/b",
                      "appenddirname can't be a path, just a dirname");
    expect_file_error("io-threads 0\n", 1, "io-threads 0",
                      "argument must be between 1 and 128 inclusive");
    expect_file_error("bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", 1,
                      "bind 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
                      "Too many bind addresses specified.");
    expect_file_error("client-output-buffer-limit normal 1 2\n", 1,
                      "client-output-buffer-limit normal 1 2",
                      "Wrong number of arguments in buffer limit configuration.");
    expect_file_error("client-output-buffer-limit master 1 2 3\n", 1,
                      "client-output-buffer-limit master 1 2 3",
                      "Invalid client class specified in buffer limit configuration.");
    expect_file_error("client-output-buffer-limit normal 1mb 2k -3\n", 1,
                      "client-output-buffer-limit normal 1mb 2k -3",
                      "Error in hard, soft or soft_seconds setting in buffer limit configuration.");
    /* the first error stops loading: later lines are not applied */
    conf c;
    char err[CONF_ERRLEN];
    ck_assert_int_eq(load(&c, "port 1\nport x\nport 3\n", err), -1);
    ck_assert_int_eq(c.port, 1);
    conf_free(&c);
    /* a missing file */
    conf_init(&c);
    ck_assert_int_eq(conf_load_file(&c, "/nonexistent/verso.conf", err, sizeof(err)), -1);
    ck_assert_str_eq(err, "Fatal error, can't open config file '/nonexistent/verso.conf': "
                          "No such file or directory");
    conf_free(&c);
}
END_TEST

START_TEST(test_hz_clamped_and_empty_multi)
{
    conf c;
    char err[CONF_ERRLEN];
    ck_assert_int_eq(load(&c, "hz 0\n", err), 0);
    ck_assert_int_eq(c.hz, 1);
    conf_free(&c);
    ck_assert_int_eq(load(&c, "hz 1000\n", err), 0);
    ck_assert_int_eq(c.hz, 500);
    conf_free(&c);
    /* bind "" means no address; client-output-buffer-limit with nothing is a no-op */
    ck_assert_int_eq(load(&c, "bind \"\"\nclient-output-buffer-limit\n", err), 0);
    ck_assert_int_eq(c.nbind, 0);
    ck_assert_str_eq(get1(&c, "bind"), "");
    conf_free(&c);
    /* replicaof: a master, then "" (what CONFIG GET shows for none) clears it,
     * as "no one" does (fuzz_conf's round trip found "" refused) */
    ck_assert_int_eq(load(&c, "replicaof 10.0.0.1 6380\n", err), 0);
    ck_assert_str_eq(get1(&c, "replicaof"), "10.0.0.1 6380");
    ck_assert_str_eq(get1(&c, "slaveof"), "10.0.0.1 6380");
    conf_free(&c);
    ck_assert_int_eq(load(&c, "replicaof 10.0.0.1 6380\nreplicaof \"\"\n", err), 0);
    ck_assert_ptr_null(c.replicaof_host);
    ck_assert_str_eq(get1(&c, "replicaof"), "");
    conf_free(&c);
    ck_assert_int_eq(load(&c, "replicaof 10.0.0.1 6380\nslaveof no one\n", err), 0);
    ck_assert_ptr_null(c.replicaof_host);
    conf_free(&c);
    ck_assert_int_eq(load(&c, "replicaof 10.0.0.1\n", err), -1);
    conf_free(&c);
    /* no empty host or port (CONFIG GET would not read back) */
    ck_assert_int_eq(load(&c, "replicaof \"\" \"\"\n", err), -1);
    conf_free(&c);
    ck_assert_int_eq(load(&c, "replicaof \"a b\" 1\n", err), -1);
    conf_free(&c);
}
END_TEST

START_TEST(test_save_lines)
{
    conf c;
    char err[CONF_ERRLEN];
    /* save "" clears */
    ck_assert_int_eq(load(&c, "save \"\"\n", err), 0);
    ck_assert_int_eq(c.nsave, 0);
    ck_assert_str_eq(get1(&c, "save"), "");
    conf_free(&c);
    /* the first save line replaces the defaults, the next ones add */
    ck_assert_int_eq(load(&c, "save 900 1\nport 1\nsave 300 10 60 10000\n", err), 0);
    ck_assert_int_eq(c.nsave, 3);
    ck_assert_str_eq(get1(&c, "save"), "900 1 300 10 60 10000");
    conf_free(&c);
    /* save "" then more lines: the later ones add to nothing */
    ck_assert_int_eq(load(&c, "save \"\"\nsave 5 1\n", err), 0);
    ck_assert_str_eq(get1(&c, "save"), "5 1");
    conf_free(&c);
    /* a bare "save" clears too (no pair at all) */
    ck_assert_int_eq(load(&c, "save\n", err), 0);
    ck_assert_int_eq(c.nsave, 0);
    conf_free(&c);
    /* no save line at all keeps the defaults */
    ck_assert_int_eq(load(&c, "port 1\n", err), 0);
    ck_assert_str_eq(get1(&c, "save"), "3600 1 300 100 60 10000");
    conf_free(&c);
    /* more points than the table holds */
    ck_assert_int_eq(load(&c, "save 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8\n"
                              "save 9 9 10 10 11 11 12 12 13 13 14 14 15 15 16 16\n"
                              "save 17 17\n", err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at line 3\n>>> 'save 17 17'\nToo many save points"));
    ck_assert_int_eq(c.nsave, 16);
    conf_free(&c);
}
END_TEST

/* ---- command-line arguments ---- */

static int load_args(conf *c, char *err, int argc, ...)
{
    char *argv[32];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc; i++) argv[i] = va_arg(ap, char *);
    va_end(ap);
    err[0] = '\0';
    return conf_load_args(c, argc, argv, err, CONF_ERRLEN);
}

START_TEST(test_args)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 9, "--port", "7000", "--save", "60", "1", "--bind",
                               "1.2.3.4", "::1", "--requirepass"), -1);
    ck_assert_str_eq(err, FATAL_HEAD "Reading the configuration file, at line 5\n"
                          ">>> 'requirepass'\nwrong number of arguments");
    conf_free(&c);

    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 10, "--port", "7000", "--save", "60", "1", "--bind",
                               "1.2.3.4", "::1", "--requirepass", "a \"b\"\n"), 0);
    ck_assert_int_eq(c.port, 7000);
    ck_assert_str_eq(get1(&c, "save"), "60 1");
    ck_assert_str_eq(get1(&c, "bind"), "1.2.3.4 ::1");
    ck_assert_str_eq(c.requirepass, "a \"b\"\n");
    conf_free(&c);

    /* errors show the line Redis builds (values quoted) and count from 2 */
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 2, "--port", "99999999"), -1);
    ck_assert_str_eq(err, FATAL_HEAD "Reading the configuration file, at line 2\n"
                          ">>> 'port \"99999999\"'\n"
                          "argument must be between 0 and 65535 inclusive");
    ck_assert_int_eq(load_args(&c, err, 3, "--port", "1", "2"), -1);
    ck_assert_str_eq(err, FATAL_HEAD "Reading the configuration file, at line 2\n"
                          ">>> 'port \"1\" \"2\"'\nwrong number of arguments");
    ck_assert_int_eq(load_args(&c, err, 2, "--nosuch", "x"), -1);
    ck_assert_ptr_nonnull(strstr(err, "at line 2\n>>> 'nosuch \"x\"'\nBad directive"));
    conf_free(&c);
}
END_TEST

START_TEST(test_args_forms)
{
    conf c;
    char err[CONF_ERRLEN];
    /* "--port 7000" as one argument holds name and value */
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 3, "--port 7000", "--hz", "20"), 0);
    ck_assert_int_eq(c.port, 7000);
    ck_assert_int_eq(c.hz, 20);
    /* a value may start with "--" when its name waits for it */
    ck_assert_int_eq(load_args(&c, err, 2, "--requirepass", "--secret"), 0);
    ck_assert_str_eq(c.requirepass, "--secret");
    conf_free(&c);
    /* a multi-word parameter's words as one argument, as Redis splits them */
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 6, "--bind", "127.0.0.1 -::1", "--oom-score-adj-values",
                               "10 20 30", "--shutdown-on-sigint", "nosave now"), 0);
    ck_assert_int_eq(c.nbind, 2);
    ck_assert_str_eq(c.bind[1], "-::1");
    ck_assert_str_eq(get1(&c, "oom-score-adj-values"), "10 20 30");
    ck_assert_str_eq(get1(&c, "shutdown-on-sigint"), "nosave now");
    conf_free(&c);
    /* a bare --save, last or followed by an option, means save "" */
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 3, "--save", "--port", "7001"), 0);
    ck_assert_int_eq(c.nsave, 0);
    ck_assert_int_eq(c.port, 7001);
    conf_free(&c);
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 3, "--port", "7002", "--save"), 0);
    ck_assert_int_eq(c.nsave, 0);
    conf_free(&c);
    conf_init(&c);
    ck_assert_int_eq(load_args(&c, err, 2, "--save", ""), 0);
    ck_assert_int_eq(c.nsave, 0);
    ck_assert_int_eq(load_args(&c, err, 0), 0);
    conf_free(&c);
}
END_TEST

START_TEST(test_file_then_args)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    /* two lines and a final newline: the options start at line 4 */
    ck_assert_int_eq(conf_load_file(&c, write_conf("save 900 1\nport 2\n"), err, sizeof(err)), 0);
    ck_assert_int_eq(load_args(&c, err, 5, "--save", "60", "1", "--port", "99999999"), -1);
    ck_assert_ptr_nonnull(strstr(err, "at line 5\n>>> 'port \"99999999\"'\n"));
    /* the file's save line replaced the defaults; the argument's added */
    ck_assert_str_eq(get1(&c, "save"), "900 1 60 1");
    ck_assert_int_eq(c.port, 2);
    conf_free(&c);
    /* without a final newline the last line still counts once */
    conf_init(&c);
    ck_assert_int_eq(conf_load_file(&c, write_conf("port 2"), err, sizeof(err)), 0);
    ck_assert_int_eq(load_args(&c, err, 2, "--port", "x"), -1);
    ck_assert_ptr_nonnull(strstr(err, "at line 2\n"));
    conf_free(&c);
}
END_TEST

/* ---- CONFIG SET ---- */

static int set_pairs(conf *c, char *err, int npairs, ...)
{
    char *names[16], *values[16];
    va_list ap;
    va_start(ap, npairs);
    for (int i = 0; i < npairs; i++) {
        names[i] = va_arg(ap, char *);
        values[i] = va_arg(ap, char *);
    }
    va_end(ap);
    err[0] = '\0';
    return conf_set(c, npairs, names, values, err, CONF_ERRLEN);
}

START_TEST(test_set_basic)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(set_pairs(&c, err, 4, "timeout", "30", "APPENDONLY", "yes", "requirepass",
                               "pw", "proto-max-bulk-len", "1gb"), 0);
    ck_assert_int_eq(c.timeout, 30);
    ck_assert_int_eq(c.appendonly, 1);
    ck_assert_str_eq(c.requirepass, "pw");
    ck_assert_int_eq(c.proto_max_bulk_len, 1024LL * 1024 * 1024);
    ck_assert_int_eq(set_pairs(&c, err, 1, "save", "60 1 300 10"), 0);
    ck_assert_str_eq(get1(&c, "save"), "60 1 300 10");
    ck_assert_int_eq(set_pairs(&c, err, 1, "save", "900 2"), 0); /* SET replaces */
    ck_assert_str_eq(get1(&c, "save"), "900 2");
    ck_assert_int_eq(set_pairs(&c, err, 1, "save", ""), 0);
    ck_assert_int_eq(c.nsave, 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "client-output-buffer-limit", "normal 1mb 2k 3"), 0);
    ck_assert_int_eq(c.obuf[0].hard, 1048576);
    ck_assert_int_eq(c.obuf[0].soft, 2000);
    ck_assert_int_eq(c.obuf[0].soft_seconds, 3);
    /* other classes are accepted and leave the normal limits alone */
    ck_assert_int_eq(set_pairs(&c, err, 1, "client-output-buffer-limit", "replica 5 6 7"), 0);
    ck_assert_int_eq(c.obuf[0].hard, 1048576);
    ck_assert_int_eq(c.obuf[0].soft_seconds, 3);
    ck_assert_int_eq(set_pairs(&c, err, 2, "hz", "0", "loglevel", "WARNING"), 0);
    ck_assert_int_eq(c.hz, 1);
    ck_assert_int_eq(c.loglevel, LOG_WARNING);
    ck_assert_int_eq(set_pairs(&c, err, 2, "maxmemory", "100mb", "maxmemory-policy",
                               "allkeys-lru"), 0);
    ck_assert_str_eq(get1(&c, "maxmemory"), "104857600");
    ck_assert_str_eq(get1(&c, "maxmemory-policy"), "allkeys-lru");
    ck_assert_int_eq(set_pairs(&c, err, 4, "maxmemory-samples", "64", "lfu-log-factor", "0",
                               "lfu-decay-time", "5", "maxmemory-eviction-tenacity", "0"), 0);
    ck_assert_int_eq(c.maxmemory_samples, 64);
    ck_assert_int_eq(c.lfu_decay_time, 5);
    ck_assert_int_eq(c.maxmemory_eviction_tenacity, 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "bgsave-method", "fork"), 0);
    ck_assert_int_eq(c.bgsave_method, BGSAVE_FORK);
    conf_free(&c);
}
END_TEST

/* Expects CONFIG SET name value to fail as Redis: "ERR CONFIG SET failed
 * (possibly related to argument '<arg>') - <reason>". */
static void expect_set_error(const char *name, const char *value, const char *arg,
                             const char *reason)
{
    conf c;
    char err[CONF_ERRLEN], want[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(set_pairs(&c, err, 1, name, value), -1);
    snprintf(want, sizeof(want),
             "ERR CONFIG SET failed (possibly related to argument '%s') - %s", arg, reason);
    ck_assert_str_eq(err, want);
    conf_free(&c);
}

START_TEST(test_set_errors)
{
    const char *imm = "can't set immutable config";
    expect_set_error("port", "70000", "port", "argument must be between 0 and 65535 inclusive");
    expect_set_error("Databases", "3", "Databases", imm); /* the name as given */
    expect_set_error("daemonize", "no", "daemonize", imm);
    expect_set_error("appenddirname", "x", "appenddirname", imm);
    expect_set_error("tcp-backlog", "10", "tcp-backlog", imm);
    expect_set_error("dir", "/tmp", "dir", "can't set protected config");
    expect_set_error("maxclients", "0", "maxclients",
                     "argument must be between 1 and 4294967295 inclusive");
    expect_set_error("MAXCLIENTS", "abc", "maxclients", /* the canonical name */
                     "argument couldn't be parsed into an integer");
    expect_set_error("appendonly", "maybe", "appendonly", "argument must be 'yes' or 'no'");
    expect_set_error("appendfsync", "x", "appendfsync",
                     "argument(s) must be one of the following: everysec, always, no");
    expect_set_error("proto-max-bulk-len", "1", "proto-max-bulk-len",
                     "argument must be between 1048576 and 9223372036854775807 inclusive");
    expect_set_error("save", "60", "save", "Invalid save parameters");
    expect_set_error("save", "5 1 ", "save", "Invalid save parameters");
    expect_set_error("client-output-buffer-limit", "normal 1 2", "client-output-buffer-limit",
                     "Wrong number of arguments in buffer limit configuration.");

    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(set_pairs(&c, err, 1, "foo", "bar"), -1);
    ck_assert_str_eq(err, "ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
    ck_assert_int_eq(set_pairs(&c, err, 2, "hz", "1", "HZ", "2"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument 'HZ') - "
                          "duplicate parameter");
    /* names are checked before any value: the unknown name wins */
    ck_assert_int_eq(set_pairs(&c, err, 2, "hz", "x", "nosuch", "1"), -1);
    ck_assert_str_eq(err, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
    ck_assert_int_eq(c.hz, 10);
    conf_free(&c);
}
END_TEST

START_TEST(test_set_all_or_nothing)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    char *old_pass = c.requirepass;
    ck_assert_int_eq(set_pairs(&c, err, 4, "timeout", "30", "requirepass", "new",
                               "save", "1 1", "tcp-keepalive", "-5"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'tcp-keepalive') - argument must be between 0 and 2147483647 "
                          "inclusive");
    ck_assert_int_eq(c.timeout, 0);
    ck_assert_ptr_eq(c.requirepass, old_pass);
    ck_assert_str_eq(c.requirepass, "");
    ck_assert_str_eq(get1(&c, "save"), "3600 1 300 100 60 10000");
    ck_assert_int_eq(c.tcp_keepalive, 300);
    conf_free(&c);
}
END_TEST

/* A hook that records its calls and vetoes one name. */
static struct {
    int calls;
    char seen[8][64];
    const char *veto;
    long long old_timeout, new_timeout;
} hk;

static int test_hook(const conf *old, const conf *now, const char *name, char *err,
                     size_t errlen)
{
    ck_assert_int_lt(hk.calls, 8);
    int off = !strcmp(name, "appendonly") && old->appendonly && !now->appendonly;
    snprintf(hk.seen[hk.calls++], sizeof(hk.seen[0]), "%s%s", name, off ? "(off)" : "");
    if (!strcmp(name, "timeout")) {
        hk.old_timeout = old->timeout;
        hk.new_timeout = now->timeout;
    }
    if (hk.veto && !strcmp(name, hk.veto)) {
        snprintf(err, errlen, "%s refused by hook", name);
        return -1;
    }
    return 0;
}

static int silent_veto(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen)
{
    (void)old, (void)now, (void)name, (void)err, (void)errlen;
    return 1;
}

START_TEST(test_set_hook)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    memset(&hk, 0, sizeof(hk));
    conf_set_hook(test_hook);
    /* called once per changed parameter, with old and new values */
    ck_assert_int_eq(set_pairs(&c, err, 3, "timeout", "5", "hz", "10", "appendonly", "yes"), 0);
    ck_assert_int_eq(hk.calls, 2); /* hz did not change */
    ck_assert_str_eq(hk.seen[0], "timeout");
    ck_assert_str_eq(hk.seen[1], "appendonly");
    ck_assert_int_eq(hk.old_timeout, 0);
    ck_assert_int_eq(hk.new_timeout, 5);
    ck_assert_int_eq(c.timeout, 5);
    ck_assert_int_eq(c.appendonly, 1);

    /* a veto undoes everything and calls back the hooks that accepted */
    memset(&hk, 0, sizeof(hk));
    hk.veto = "requirepass";
    ck_assert_int_eq(set_pairs(&c, err, 3, "appendonly", "no", "requirepass", "x", "timeout",
                               "9"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'requirepass') - requirepass refused by hook");
    ck_assert_int_eq(hk.calls, 3);
    ck_assert_str_eq(hk.seen[0], "appendonly(off)"); /* yes -> no */
    ck_assert_str_eq(hk.seen[1], "requirepass");
    ck_assert_str_eq(hk.seen[2], "appendonly");       /* swapped back: no -> yes */
    ck_assert_int_eq(c.appendonly, 1);
    ck_assert_str_eq(c.requirepass, "");
    ck_assert_int_eq(c.timeout, 5);

    /* a veto without a reason still names the parameter */
    conf_set_hook(silent_veto);
    ck_assert_int_eq(set_pairs(&c, err, 1, "hz", "50"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument 'hz')");
    ck_assert_int_eq(c.hz, 10);
    /* without a hook the change is kept */
    memset(&hk, 0, sizeof(hk));
    conf_set_hook(NULL);
    ck_assert_int_eq(set_pairs(&c, err, 1, "hz", "50"), 0);
    ck_assert_int_eq(c.hz, 50);
    ck_assert_int_eq(hk.calls, 0);
    conf_free(&c);
}
END_TEST

/* The hooks read the live conf (server.cfg): every new value must be there
 * before the first hook runs, and the old ones back before the undo. */
static struct {
    conf *live;
    int fsync_seen, fsync_in_undo, calls;
} lv;

static int live_hook(const conf *old, const conf *now, const char *name, char *err,
                     size_t errlen)
{
    ck_assert_ptr_eq(now, lv.live);
    lv.calls++;
    if (!strcmp(name, "appendonly") && now->appendonly) lv.fsync_seen = lv.live->appendfsync;
    if (!strcmp(name, "appendonly") && !now->appendonly) lv.fsync_in_undo = lv.live->appendfsync;
    if (!strcmp(name, "timeout") && now->timeout == 7) {
        (void)old;
        snprintf(err, errlen, "no");
        return -1;
    }
    return 0;
}

START_TEST(test_set_hooks_see_all_values)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    memset(&lv, 0, sizeof(lv));
    lv.live = &c;
    conf_set_hook(live_hook);
    ck_assert_int_eq(c.appendfsync, FSYNC_EVERYSEC);
    /* appendonly's hook (the writer starts) reads the new appendfsync */
    ck_assert_int_eq(set_pairs(&c, err, 2, "appendonly", "yes", "appendfsync", "always"), 0);
    ck_assert_int_eq(lv.fsync_seen, FSYNC_ALWAYS);
    ck_assert_int_eq(c.appendonly, 1);
    ck_assert_int_eq(c.appendfsync, FSYNC_ALWAYS);
    /* a veto: the undo of appendonly runs with the old appendfsync back */
    ck_assert_int_eq(set_pairs(&c, err, 2, "appendfsync", "no", "appendonly", "no"), 0);
    memset(&lv, 0, sizeof(lv));
    lv.live = &c;
    lv.fsync_in_undo = -1;
    ck_assert_int_eq(set_pairs(&c, err, 3, "appendfsync", "always", "appendonly", "yes",
                               "timeout", "7"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'timeout') - no");
    ck_assert_int_eq(lv.fsync_seen, FSYNC_ALWAYS);
    ck_assert_int_eq(lv.fsync_in_undo, FSYNC_NO);
    ck_assert_int_eq(c.appendonly, 0);
    ck_assert_int_eq(c.appendfsync, FSYNC_NO);
    ck_assert_int_eq(c.timeout, 0);
    conf_set_hook(NULL);
    conf_free(&c);
}
END_TEST

/* ---- the parameters kept for Redis compatibility ---- */

/* Sets one parameter as a config file line would (name args...). */
static int apply_line_args(conf *c, char *err, int argc, ...)
{
    char *argv[8];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc; i++) argv[i] = va_arg(ap, char *);
    va_end(ap);
    err[0] = '\0';
    return conf_apply(c, argc, argv, err, CONF_ERRLEN);
}

/* Octal (unixsocketperm), memory-or-percent (maxmemory-clients): texts and
 * formats of redis-server 7.0.15. */
START_TEST(test_compat_octal_percent)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_str_eq(get1(&c, "unixsocketperm"), "0");
    ck_assert_int_eq(apply_line_args(&c, err, 2, "unixsocketperm", "700"), 0);
    ck_assert_int_eq(c.compat.unixsocketperm, 0700);
    ck_assert_str_eq(get1(&c, "unixsocketperm"), "700");
    ck_assert_int_eq(apply_line_args(&c, err, 2, "unixsocketperm", "999"), -1);
    ck_assert_str_eq(err, "argument couldn't be parsed as an octal number");
    ck_assert_int_eq(apply_line_args(&c, err, 2, "unixsocketperm", "1000"), -1);
    ck_assert_str_eq(err, "argument must be between 0 and 777 inclusive");
    ck_assert_int_eq(apply_line_args(&c, err, 2, "unixsocketperm", ""), 0); /* strtoll's 0 */
    ck_assert_str_eq(get1(&c, "unixsocketperm"), "0");
    /* deprecated directives Redis 7.0 still reads and ignores */
    ck_assert_int_eq(apply_line_args(&c, err, 2, "list-max-ziplist-entries", "5"), 0);
    ck_assert_int_eq(apply_line_args(&c, err, 2, "lua-replicate-commands", "yes"), 0);
    ck_assert_int_eq(apply_line_args(&c, err, 3, "list-max-ziplist-value", "5", "6"), -1);
    ck_assert_str_eq(err, "Bad directive or wrong number of arguments");
    ck_assert_int_eq(set_pairs(&c, err, 1, "list-max-ziplist-entries", "5"), -1);
    ck_assert_str_eq(err, "ERR Unknown option or number of arguments for CONFIG SET - "
                          "'list-max-ziplist-entries'");
    ck_assert_int_eq(set_pairs(&c, err, 1, "unixsocketperm", "700"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'unixsocketperm') - can't set immutable config");

    ck_assert_int_eq(set_pairs(&c, err, 1, "maxmemory-clients", "10%"), 0);
    ck_assert_int_eq(c.compat.maxmemory_clients, -10);
    ck_assert_str_eq(get1(&c, "maxmemory-clients"), "10%");
    ck_assert_int_eq(set_pairs(&c, err, 1, "maxmemory-clients", "1gb"), 0);
    ck_assert_str_eq(get1(&c, "maxmemory-clients"), "1073741824");
    ck_assert_int_eq(set_pairs(&c, err, 1, "maxmemory-clients", "0%"), 0);
    ck_assert_str_eq(get1(&c, "maxmemory-clients"), "0");
    conf_free(&c);
    expect_set_error("maxmemory-clients", "101%", "maxmemory-clients",
                     "percentage argument must be less or equal to 100");
    expect_set_error("maxmemory-clients", "-5%", "maxmemory-clients",
                     "argument must be a memory or percent value");
    expect_set_error("hll-sparse-max-bytes", "-1", "hll-sparse-max-bytes",
                     "argument must be a memory value");
}
END_TEST

/* Bit-flag enums (shutdown-on-sig*), multi-word strings, string checks,
 * enums with two names for one value, aliases. */
START_TEST(test_compat_flags_and_strings)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_str_eq(get1(&c, "shutdown-on-sigint"), "default");
    ck_assert_int_eq(set_pairs(&c, err, 1, "shutdown-on-sigint", "force now nosave"), 0);
    ck_assert_str_eq(get1(&c, "shutdown-on-sigint"), "nosave now force");
    ck_assert_int_eq(set_pairs(&c, err, 1, "shutdown-on-sigint", "default NOW"), 0);
    ck_assert_str_eq(get1(&c, "shutdown-on-sigint"), "now");
    ck_assert_str_eq(get1(&c, "shutdown-on-sigterm"), "default");
    ck_assert_int_eq(apply_line_args(&c, err, 3, "shutdown-on-sigterm", "save", "now"), 0);
    ck_assert_str_eq(get1(&c, "shutdown-on-sigterm"), "save now");

    ck_assert_int_eq(set_pairs(&c, err, 1, "oom-score-adj-values", "100 50 0"), 0);
    ck_assert_str_eq(get1(&c, "oom-score-adj-values"), "100 50 0");

    ck_assert_int_eq(set_pairs(&c, err, 1, "oom-score-adj", "relative"), 0);
    ck_assert_str_eq(get1(&c, "oom-score-adj"), "yes"); /* one value, two names */
    ck_assert_int_eq(set_pairs(&c, err, 1, "cluster-slave-validity-factor", "3"), 0);
    ck_assert_str_eq(get1(&c, "cluster-replica-validity-factor"), "3");
    ck_assert_int_eq(set_pairs(&c, err, 1, "cluster-announce-hostname", "ok-host.x"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "proc-title-template", "{{title}} {port}"), 0);
    ck_assert_str_eq(get1(&c, "proc-title-template"), "{{title}} {port}");
    ck_assert_int_eq(set_pairs(&c, err, 1, "tls-cert-file", "/etc/x.pem"), 0);
    ck_assert_str_eq(get1(&c, "tls-cert-file"), "/etc/x.pem");
    conf_free(&c);

    const char *list =
        "argument(s) must be one of the following: default, save, nosave, now, force";
    expect_set_error("shutdown-on-sigint", "", "shutdown-on-sigint", list);
    expect_set_error("shutdown-on-sigint", "now later", "shutdown-on-sigint", list);
    expect_set_error("shutdown-on-sigterm", "nosave save", "shutdown-on-sigterm",
                     "shutdown options SAVE and NOSAVE can't be used simultaneously");
    expect_set_error("oom-score-adj-values", "1 2", "oom-score-adj-values",
                     "wrong number of arguments");
    expect_set_error("oom-score-adj-values", "-3000 0 0", "oom-score-adj-values",
                     "Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
    expect_set_error("cluster-announce-hostname", "a_b", "cluster-announce-hostname",
                     "Hostnames may only contain alphanumeric characters, hyphens or dots");
    const char *tpl_bad = "template format is invalid or contains unknown variables";
    expect_set_error("proc-title-template", "{title}", "proc-title-template", tpl_bad);
    expect_set_error("proc-title-template", "x {bad}", "proc-title-template", tpl_bad);
    expect_set_error("proc-title-template", "{title", "proc-title-template", tpl_bad);
    expect_set_error("proc-title-template", "", "proc-title-template", tpl_bad);
    expect_set_error("activedefrag", "yes", "activedefrag",
                     "Active defragmentation cannot be enabled: it requires a Redis server "
                     "compiled with a modified Jemalloc like the one shipped by default with "
                     "the Redis source distribution");
    expect_set_error("syslog-facility", "local0", "syslog-facility", "can't set immutable config");
    expect_set_error("acl-pubsub-default", "some", "acl-pubsub-default",
                     "argument(s) must be one of the following: allchannels, resetchannels");
    expect_set_error("active-defrag-cycle-max", "100", "active-defrag-cycle-max",
                     "argument must be between 1 and 99 inclusive");
    expect_set_error("tls-session-caching", "maybe", "tls-session-caching",
                     "argument must be 'yes' or 'no'");
}
END_TEST

/* CONFIG SET of several parameters, new ones among them, is all or nothing. */
START_TEST(test_compat_set_all_or_nothing)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(set_pairs(&c, err, 4, "tls-port", "6380", "maxmemory", "1mb",
                               "oom-score-adj-values", "1 2 3", "maxmemory-clients", "101%"),
                     -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'maxmemory-clients') - percentage argument must be less or equal "
                          "to 100");
    ck_assert_str_eq(get1(&c, "tls-port"), "0");
    ck_assert_str_eq(get1(&c, "maxmemory"), "0");
    ck_assert_str_eq(get1(&c, "oom-score-adj-values"), "0 200 800");
    ck_assert_str_eq(get1(&c, "maxmemory-clients"), "0");
    /* an immutable one among them: refused before any value is parsed */
    ck_assert_int_eq(set_pairs(&c, err, 2, "tls-port", "6380", "cluster-enabled", "yes"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'cluster-enabled') - can't set immutable config");
    ck_assert_str_eq(get1(&c, "tls-port"), "0");
    /* an alias with its parameter: both set in turn, the last wins (Redis
     * sees two configs there, not a duplicate) */
    ck_assert_int_eq(set_pairs(&c, err, 2, "cluster-replica-no-failover", "yes",
                               "cluster-slave-no-failover", "no"), 0);
    ck_assert_str_eq(get1(&c, "cluster-replica-no-failover"), "no");
    ck_assert_int_eq(set_pairs(&c, err, 3, "tls-port", "6380", "maxmemory-clients", "5%",
                               "shutdown-on-sigterm", "nosave"), 0);
    ck_assert_str_eq(get1(&c, "tls-port"), "6380");
    ck_assert_str_eq(get1(&c, "maxmemory-clients"), "5%");
    ck_assert_str_eq(get1(&c, "shutdown-on-sigterm"), "nosave");
    /* bind changes at runtime (the server's hook moves the listeners) */
    ck_assert_int_eq(set_pairs(&c, err, 1, "bind", "127.0.0.1 -::1"), 0);
    ck_assert_str_eq(get1(&c, "bind"), "127.0.0.1 -::1");
    conf_free(&c);
}
END_TEST

/* enable-protected-configs: dir and dbfilename change only when allowed. */
START_TEST(test_protected_configs)
{
    conf c;
    char err[CONF_ERRLEN];
    char *names[] = {"dbfilename"}, *values[] = {"x.rdb"};
    const char *refused = "ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                          "can't set protected config";
    conf_init(&c);
    ck_assert_int_eq(conf_set_from(&c, 1, 1, names, values, err, sizeof err), -1);
    ck_assert_str_eq(err, refused);
    ck_assert_int_eq(apply_line_args(&c, err, 2, "enable-protected-configs", "local"), 0);
    ck_assert_int_eq(conf_set_from(&c, 0, 1, names, values, err, sizeof err), -1);
    ck_assert_str_eq(err, refused);
    ck_assert_int_eq(conf_set_from(&c, 1, 1, names, values, err, sizeof err), 0);
    ck_assert_str_eq(c.dbfilename, "x.rdb");
    ck_assert_int_eq(apply_line_args(&c, err, 2, "enable-protected-configs", "yes"), 0);
    values[0] = "y.rdb";
    ck_assert_int_eq(conf_set(&c, 1, names, values, err, sizeof err), 0);
    ck_assert_str_eq(c.dbfilename, "y.rdb");
    ck_assert_int_eq(set_pairs(&c, err, 1, "enable-protected-configs", "no"), -1);
    ck_assert_str_eq(err, "ERR CONFIG SET failed (possibly related to argument "
                          "'enable-protected-configs') - can't set immutable config");
    ck_assert_int_eq(conf_has_effect("enable-protected-configs"), 1);
    ck_assert_int_eq(conf_has_effect("tls-port"), 1);
    ck_assert_int_eq(conf_has_effect("io-threads"), 0);
    ck_assert_int_eq(conf_has_effect("oom-score-adj"), 1);
    ck_assert_int_eq(conf_has_effect("oom-score-adj-values"), 1);
    ck_assert_int_eq(conf_has_effect("maxmemory"), 1);
    ck_assert_int_eq(conf_has_effect("nosuch"), 0);
    conf_free(&c);
}
END_TEST

/* Counts the lines of the file holding needle. */
static int count_lines_with(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strstr(line, needle)) n++;
    fclose(f);
    return n;
}

/* A parameter without effect is logged once, the first time it is set
 * (CONFIG SET, or a non-default value at startup); aliases count as their
 * parameter; parameters with an effect are not logged. */
START_TEST(test_noeffect_logged_once)
{
    char path[300], err[CONF_ERRLEN];
    snprintf(path, sizeof path, "%s/noeffect.log", tmpdir);
    unlink(path);
    ck_assert_int_eq(log_open(path, LOG_NOTICE), 0);
    conf c;
    ck_assert_int_eq(load(&c, "io-threads 4\nactive-defrag-cycle-min 1\n", err), 0);
    conf_log_noeffect(&c);
    conf_log_noeffect(&c);
    ck_assert_int_eq(count_lines_with(path, "'io-threads'"), 1);
    /* default: not logged */
    ck_assert_int_eq(count_lines_with(path, "'active-defrag-cycle-min'"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "active-defrag-cycle-min", "10"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "active-defrag-cycle-min", "11"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "active-defrag-cycle-min", "x"), -1);
    ck_assert_int_eq(count_lines_with(path, "'active-defrag-cycle-min'"), 1);
    ck_assert_int_eq(set_pairs(&c, err, 1, "stream-node-max-entries", "1"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "stream-node-max-entries", "2"), 0);
    ck_assert_int_eq(count_lines_with(path, "'stream-node-max-entries'"), 1);
    /* TLS has an effect now */
    ck_assert_int_eq(set_pairs(&c, err, 1, "tls-port", "6380"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 1, "cluster-announce-tls-port", "1"), 0);
    ck_assert_int_eq(count_lines_with(path, "tls-port"), 0);
    /* the cluster's parameters have an effect now (aliases included) */
    ck_assert_int_eq(set_pairs(&c, err, 1, "cluster-slave-validity-factor", "1"), 0);
    ck_assert_int_eq(count_lines_with(path, "validity-factor"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 2, "maxmemory", "1mb", "timeout", "5"), 0);
    ck_assert_int_eq(count_lines_with(path, "'maxmemory'"), 0);
    ck_assert_int_eq(count_lines_with(path, "no effect in verso"), 3);
    /* a refused CONFIG SET logs nothing */
    ck_assert_int_eq(set_pairs(&c, err, 2, "tls-replication", "yes", "timeout", "x"), -1);
    ck_assert_int_eq(count_lines_with(path, "'tls-replication'"), 0);
    conf_free(&c);
}
END_TEST

typedef struct lines_seen {
    char text[4096];
} lines_seen;

static void keep_line(void *priv, const char *name, const char *line, int force)
{
    lines_seen *l = priv;
    (void)name;
    if (!force) return;
    size_t n = strlen(l->text);
    snprintf(l->text + n, sizeof(l->text) - n, "%s\n", line);
}

/* CONFIG REWRITE writes the compatibility parameters set away from their
 * default as Redis does, and the file reads back to the same values. */
START_TEST(test_compat_rewrite_round_trip)
{
    conf c, back;
    char err[CONF_ERRLEN];
    conf_init(&c);
    ck_assert_int_eq(apply_line_args(&c, err, 2, "unixsocketperm", "700"), 0);
    ck_assert_int_eq(apply_line_args(&c, err, 2, "cluster-enabled", "yes"), 0);
    ck_assert_int_eq(set_pairs(&c, err, 7, "tls-port", "6380", "maxmemory-clients", "10%",
                               "oom-score-adj-values", "1 2 3", "shutdown-on-sigint", "now nosave",
                               "proc-title-template", "{title} x", "cluster-slave-validity-factor",
                               "7", "stream-node-max-bytes", "8kb"), 0);
    static lines_seen seen;
    seen.text[0] = '\0';
    conf_rewrite_each(&c, keep_line, &seen);
    const char *want[] = {"unixsocketperm 700\n", "cluster-enabled yes\n", "tls-port 6380\n",
                          "maxmemory-clients 10%\n", "oom-score-adj-values 1 2 3\n",
                          "shutdown-on-sigint nosave now\n",
                          "proc-title-template \"{title} x\"\n",
                          "cluster-replica-validity-factor 7\n", "stream-node-max-bytes 8kb\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(seen.text, want[i]), "no line %s in:\n%s", want[i], seen.text);
    ck_assert_ptr_null(strstr(seen.text, "cluster-slave-validity-factor"));

    char path[300];
    snprintf(path, sizeof path, "%s/rewrite-compat.conf", tmpdir);
    unlink(path);
    ck_assert_int_eq(conf_rewrite(&c, path, err, sizeof err), 0);
    conf_init(&back);
    ck_assert_msg(conf_load_file(&back, path, err, sizeof err) == 0, "%s", err);
    static got all;
    all.n = 0;
    conf_get(&c, "*", collect, &all);
    for (int i = 0; i < all.n; i++) {
        if (!strcmp(all.names[i], "dir")) continue; /* written as the cwd */
        const char *v = get1(&back, all.names[i]);
        ck_assert_msg(!strcmp(v, all.values[i]), "%s: '%s' read back as '%s'", all.names[i],
                      all.values[i], v);
    }
    conf_free(&back);
    conf_free(&c);
}
END_TEST

/* include: a file, a glob (no match is fine), errors at the included
 * file's own line, argument line numbers not shifted. */
START_TEST(test_include)
{
    conf c;
    char err[CONF_ERRLEN], text[2048];
    char dir[300];
    snprintf(dir, sizeof dir, "%s/inc", tmpdir);
    ck_assert_int_eq(mkdir(dir, 0755) == 0 || errno == EEXIST, 1);
    char p1[400], p2[400];
    snprintf(p1, sizeof p1, "%s/a.conf", dir);
    snprintf(p2, sizeof p2, "%s/b.conf", dir);
    FILE *f = fopen(p1, "w");
    ck_assert_ptr_nonnull(f);
    fputs("timeout 7\ntls-port 6380\n", f);
    fclose(f);
    f = fopen(p2, "w");
    ck_assert_ptr_nonnull(f);
    fputs("hz 20\n", f);
    fclose(f);
    snprintf(text, sizeof text, "port 7000\ninclude %s\nINCLUDE %s/*.conf\n"
                                "include %s/none-*.conf\nmaxclients 5\n",
             p1, dir, dir);
    ck_assert_msg(load(&c, text, err) == 0, "%s", err);
    ck_assert_int_eq(c.timeout, 7);
    ck_assert_int_eq(c.hz, 20);
    ck_assert_int_eq(c.maxclients, 5);
    ck_assert_str_eq(get1(&c, "tls-port"), "6380");
    /* the arguments are numbered after the main file's 5 lines */
    char *args[] = {"--port", "x"};
    ck_assert_int_eq(conf_load_args(&c, 2, args, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "at line 7\n"));
    conf_free(&c);

    f = fopen(p2, "w");
    ck_assert_ptr_nonnull(f);
    fputs("# x\nhz abc\n", f);
    fclose(f);
    snprintf(text, sizeof text, "port 7000\ninclude %s\n", p2);
    expect_file_error(text, 2, "hz abc", "argument couldn't be parsed into an integer");
    snprintf(text, sizeof text, "include %s/missing.conf\n", dir);
    ck_assert_int_eq(load(&c, text, err), -1);
    char want[600];
    snprintf(want, sizeof want, "Fatal error, can't open config file '%s/missing.conf': "
                                "No such file or directory", dir);
    ck_assert_str_eq(err, want);
    conf_free(&c);
}
END_TEST

/* No two rows answer to one name (rows added in several places of the
 * table, e.g. by parallel changes, must not collide). */
START_TEST(test_names_unique)
{
    conf c;
    conf_init(&c);
    static got all;
    all.n = 0;
    conf_get(&c, "*", collect, &all);
    for (int i = 0; i < all.n; i++)
        for (int j = i + 1; j < all.n; j++)
            ck_assert_msg(strcasecmp(all.names[i], all.names[j]), "%s twice", all.names[i]);
    conf_free(&c);
}
END_TEST

/* ---- conf_apply ---- */

START_TEST(test_apply)
{
    conf c;
    char err[CONF_ERRLEN];
    conf_init(&c);
    char *a1[] = {"Dir", "/srv/verso"};
    ck_assert_int_eq(conf_apply(&c, 2, a1, err, sizeof(err)), 0);
    ck_assert_str_eq(c.dir, "/srv/verso");
    char *a2[] = {"port", "x"};
    ck_assert_int_eq(conf_apply(&c, 2, a2, err, sizeof(err)), -1);
    ck_assert_str_eq(err, "argument couldn't be parsed into an integer");
    char *a3[] = {"save", "10", "1", "20", "2"};
    ck_assert_int_eq(conf_apply(&c, 5, a3, err, sizeof(err)), 0);
    ck_assert_str_eq(get1(&c, "save"), "10 1 20 2");
    conf_free(&c);
}
END_TEST

/* ---- the example verso.conf ---- */

/* verso.conf at the top of the source tree: from $srcdir when the test
 * harness sets it, else from this file's path. */
static void example_path(char *out, size_t len)
{
    const char *srcdir = getenv("srcdir");
    if (srcdir && *srcdir) {
        snprintf(out, len, "%s/verso.conf", srcdir);
        return;
    }
    const char *me = __FILE__;
    const char *tail = strstr(me, "tests/unit/test_conf.c");
    ck_assert_ptr_nonnull(tail);
    snprintf(out, len, "%.*sverso.conf", (int)(tail - me), me);
}

/* 1 when a directive line of the file (not a comment) names the parameter. */
static int file_sets(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof(line), f)) {
        char *t = line + strspn(line, " \t");
        size_t n = strcspn(t, " \t\r\n");
        if (*t != '#' && n == strlen(name) && !strncasecmp(t, name, n)) found = 1;
    }
    fclose(f);
    return found;
}

/* The example parses, sets every parameter of the table, and each to its
 * default: a parameter added, renamed or given a new default without the
 * example following fails here. */
START_TEST(test_example_conf_lists_every_default)
{
    char path[4096], err[CONF_ERRLEN] = "";
    example_path(path, sizeof(path));
    conf defaults, loaded;
    conf_init(&defaults);
    conf_init(&loaded);
    ck_assert_msg(conf_load_file(&loaded, path, err, sizeof(err)) == 0, "%s:%s", path, err);
    static got all;
    all.n = 0;
    conf_get(&defaults, "*", collect, &all);
    ck_assert_int_gt(all.n, 30);
    for (int i = 0; i < all.n; i++) {
        ck_assert_msg(file_sets(path, all.names[i]), "%s does not set %s", path, all.names[i]);
        const char *v = get1(&loaded, all.names[i]);
        ck_assert_msg(!strcmp(v, all.values[i]), "%s: %s is '%s' there, the default is '%s'",
                      path, all.names[i], v, all.values[i]);
    }
    conf_free(&defaults);
    conf_free(&loaded);
}
END_TEST

static Suite *conf_suite(void)
{
    Suite *s = suite_create("conf");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_get_formatting);
    tcase_add_test(tc, test_get_patterns);
    tcase_add_test(tc, test_file_every_type);
    tcase_add_test(tc, test_memory_units);
    tcase_add_test(tc, test_quoting);
    tcase_add_test(tc, test_file_errors);
    tcase_add_test(tc, test_hz_clamped_and_empty_multi);
    tcase_add_test(tc, test_save_lines);
    tcase_add_test(tc, test_args);
    tcase_add_test(tc, test_args_forms);
    tcase_add_test(tc, test_file_then_args);
    tcase_add_test(tc, test_set_basic);
    tcase_add_test(tc, test_set_errors);
    tcase_add_test(tc, test_set_all_or_nothing);
    tcase_add_test(tc, test_set_hook);
    tcase_add_test(tc, test_set_hooks_see_all_values);
    tcase_add_test(tc, test_apply);
    tcase_add_test(tc, test_compat_octal_percent);
    tcase_add_test(tc, test_compat_flags_and_strings);
    tcase_add_test(tc, test_compat_set_all_or_nothing);
    tcase_add_test(tc, test_protected_configs);
    tcase_add_test(tc, test_noeffect_logged_once);
    tcase_add_test(tc, test_compat_rewrite_round_trip);
    tcase_add_test(tc, test_names_unique);
    tcase_add_test(tc, test_include);
    tcase_add_test(tc, test_example_conf_lists_every_default);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    log_open("/dev/null", LOG_WARNING); /* the no-effect lines of CONFIG SET */
    SRunner *sr = srunner_create(conf_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
