/* Integration tests: server commands (PING ECHO INFO CONFIG COMMAND TIME
 * QUIT SHUTDOWN DEBUG POPULATE, unknown commands), startup and the config
 * file, against a real server with the replies of Redis 7.0. Client
 * commands (CLIENT HELLO AUTH) and connection limits are in test_clients.c. */
#include "harness.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

START_TEST(ping_echo)
{
    redisContext *c = h_c;
    expect_status(c, "PONG", "PING");
    expect_bulk(c, "hello world", "PING %s", "hello world");
    expect_bulk(c, "", "PING %s", "");
    expect_bulk(c, "x", "ECHO x");
    expect_bulk(c, "a\r\nb", "ECHO %b", "a\r\nb", (size_t)4);
    expect_status(c, "PONG", "ping");
    expect_error(c, "ERR wrong number of arguments for 'ping' command",
                 "PING a b");
    expect_error(c, "ERR wrong number of arguments for 'echo' command", "ECHO");
    expect_error(c, "ERR wrong number of arguments for 'echo' command",
                 "ECHO a b");
}
END_TEST

START_TEST(unknown_command)
{
    redisContext *c = h_c;
    expect_error(c, "ERR unknown command 'foo', with args beginning with: 'a' 'b' ",
                 "foo a b");
    expect_error(c, "ERR unknown command 'FOO', with args beginning with: ",
                 "FOO");
    expect_error(c, "ERR unknown command 'nosuch', with args beginning with: 'x' ",
                 "nosuch x");
    expect_status(c, "PONG", "PING");           /* the connection goes on */
}
END_TEST

static void expect_field(const char *info, const char *field, char *v, size_t cap)
{
    ck_assert_msg(h_info_field(info, field, v, cap),
                  "INFO has no field '%s':\n%.1500s", field, info);
}

START_TEST(info_sections_and_fields)
{
    redisContext *c = h_c;
    char *info = h_info(c, NULL);
    const char *sections[] = { "# Server\r\n", "# Clients\r\n", "# Memory\r\n",
                               "# Persistence\r\n", "# Stats\r\n", "# CPU\r\n",
                               "# Keyspace\r\n" };
    for (size_t i = 0; i < sizeof sections / sizeof sections[0]; i++)
        ck_assert_msg(strstr(info, sections[i]), "INFO lacks %s", sections[i]);
    for (const char *p = strchr(info, '\n'); p; p = strchr(p + 1, '\n'))
        ck_assert_msg(p[-1] == '\r', "INFO line not ended by CRLF");

    char v[256];
    expect_field(info, "redis_version", v, sizeof v);
    ck_assert_msg(v[0] >= '0' && v[0] <= '9', "redis_version:%s", v);
    expect_field(info, "tcp_port", v, sizeof v);
    ck_assert_int_eq(atoi(v), h_srv->port);
    expect_field(info, "process_id", v, sizeof v);
    ck_assert_int_eq(atoi(v), h_srv->pid);
    expect_field(info, "uptime_in_seconds", v, sizeof v);
    expect_field(info, "connected_clients", v, sizeof v);
    ck_assert_str_eq(v, "1");
    expect_field(info, "used_memory", v, sizeof v);
    ck_assert_msg(atoll(v) > 0, "used_memory:%s", v);
    expect_field(info, "used_memory_rss", v, sizeof v);
    ck_assert_msg(atoll(v) > 0, "used_memory_rss:%s", v);
    expect_field(info, "loading", v, sizeof v);
    ck_assert_str_eq(v, "0");
    expect_field(info, "rdb_changes_since_last_save", v, sizeof v);
    ck_assert_str_eq(v, "0");
    expect_field(info, "rdb_bgsave_in_progress", v, sizeof v);
    ck_assert_str_eq(v, "0");
    expect_field(info, "total_commands_processed", v, sizeof v);
    expect_field(info, "used_cpu_sys", v, sizeof v);
    ck_assert(atof(v) >= 0.0);
    expect_field(info, "used_cpu_user", v, sizeof v);
    ck_assert(atof(v) >= 0.0);
    ck_assert_msg(!strstr(info, "\r\ndb0:"), "empty db0 listed in keyspace");
    free(info);

    info = h_info(c, "server");
    ck_assert(strstr(info, "# Server\r\n") && !strstr(info, "# Clients"));
    free(info);
    info = h_info(c, "CPU");                     /* section names: any case */
    ck_assert(strstr(info, "# CPU\r\n") && !strstr(info, "# Server"));
    free(info);
}
END_TEST

START_TEST(info_counters_move)
{
    redisContext *c = h_c;
    long long before = h_info_int(c, "stats", "total_commands_processed");
    for (int i = 0; i < 5; i++)
        expect_status(c, "PONG", "PING");
    long long after = h_info_int(c, "stats", "total_commands_processed");
    ck_assert_int_eq(after - before, 6);         /* 5 PINGs + the first INFO */
    /* a refused command (unknown, unknown subcommand, arity) is none */
    expect_error_prefix(c, "ERR unknown command", "NOSUCH");
    expect_error_prefix(c, "ERR unknown subcommand", "CONFIG NOSUCH");
    expect_error_prefix(c, "ERR wrong number of arguments", "GET");
    ck_assert_int_eq(h_info_int(c, "stats", "total_commands_processed") - after, 1);

    expect_status(c, "OK", "SET a 1");
    expect_status(c, "OK", "SET b 2 EX 100");
    ck_assert_int_eq(h_info_int(c, "persistence", "rdb_changes_since_last_save"), 2);
    char *info = h_info(c, "keyspace");
    char v[256];
    expect_field(info, "db0", v, sizeof v);
    ck_assert_msg(strncmp(v, "keys=2,expires=1,avg_ttl=", 25) == 0, "db0:%s", v);
    free(info);

    redisContext *more[3];
    for (int i = 0; i < 3; i++) {
        more[i] = srv_connect(h_srv);
        expect_status(more[i], "PONG", "PING");
    }
    ck_assert_int_eq(h_info_int(c, "clients", "connected_clients"), 4);
    for (int i = 0; i < 3; i++)
        redisFree(more[i]);
    long long deadline = h_now_ms() + 3000;
    while (h_info_int(c, "clients", "connected_clients") != 1 &&
           h_now_ms() < deadline)
        h_sleep_ms(20);
    ck_assert_int_eq(h_info_int(c, "clients", "connected_clients"), 1);

    expect_status(c, "OK", "CONFIG RESETSTAT");
    ck_assert_int_le(h_info_int(c, "stats", "total_commands_processed"), 2);
    expect_error(c, "ERR wrong number of arguments for 'config|resetstat' command",
                 "CONFIG RESETSTAT x");
}
END_TEST

/* CONFIG GET name must answer [name, want]. */
static void expect_config(redisContext *c, const char *name, const char *want)
{
    redisReply *r = expect_array(c, 2, "CONFIG GET %s", name);
    check_bulk(r->element[0], name);
    check_bulk(r->element[1], want);
    freeReplyObject(r);
}

START_TEST(config_get_set)
{
    redisContext *c = h_c;
    char port[16], dir[PATH_MAX];
    snprintf(port, sizeof port, "%d", h_srv->port);
    ck_assert_ptr_nonnull(realpath(h_srv->dir, dir));
    expect_config(c, "port", port);
    expect_config(c, "dir", dir);
    expect_config(c, "save", "");
    expect_config(c, "timeout", "0");
    expect_config(c, "maxclients", "10000");
    expect_config(c, "databases", "16");
    expect_config(c, "requirepass", "");
    expect_config(c, "appendonly", "no");
    expect_config(c, "proto-max-bulk-len", "536870912");
    expect_config(c, "client-query-buffer-limit", "1073741824");
    expect_status(c, "OK", "CONFIG SET timeout 100");
    expect_config(c, "timeout", "100");
    expect_status(c, "OK", "CONFIG SET timeout 0 maxclients 500");
    expect_config(c, "maxclients", "500");
    redisReply *r = expect_array(c, 4, "CONFIG GET timeout maxclients");
    freeReplyObject(r);
    r = expect_array(c, 0, "CONFIG GET nosuchparam");
    freeReplyObject(r);
    r = expect_array(c, -1, "CONFIG GET *");
    ck_assert_uint_ge(r->elements, 2 * 15);
    ck_assert_int_eq(r->elements % 2, 0);
    freeReplyObject(r);
    r = expect_array(c, -1, "CONFIG GET max*");
    int found = 0;
    for (size_t i = 0; i + 1 < r->elements; i += 2)
        found |= strcmp(r->element[i]->str, "maxclients") == 0;
    ck_assert_msg(found, "CONFIG GET max* lacks maxclients");
    freeReplyObject(r);

    expect_error(c, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'",
                 "CONFIG SET nosuch x");
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'databases') - can't set immutable config",
                 "CONFIG SET databases 5");
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'timeout') - argument must be between 0 and 2147483647 inclusive",
                 "CONFIG SET timeout -1");
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be parsed into an integer",
                 "CONFIG SET timeout 7 maxclients abc");
    expect_config(c, "timeout", "0");            /* all or nothing */
    expect_error(c, "ERR wrong number of arguments for 'config|get' command",
                 "CONFIG GET");
    expect_error(c, "ERR wrong number of arguments for 'config|set' command",
                 "CONFIG SET timeout");
    expect_error(c, "ERR unknown subcommand 'foo'. Try CONFIG HELP.",
                 "CONFIG foo");
}
END_TEST

START_TEST(config_file_and_args)
{
    const char *conf = "# a comment\n"
                       "\n"
                       "timeout 7\n"
                       "databases 8\n"
                       "maxclients 50\n"
                       "loglevel notice\n"
                       "protected-mode yes\n"
                       "dbfilename my.rdb\n";
    srv *s = srv_start_conf(conf, "--timeout 9");   /* args override the file */
    redisContext *c = srv_connect(s);
    expect_config(c, "timeout", "9");
    expect_config(c, "maxclients", "50");
    expect_config(c, "dbfilename", "my.rdb");
    expect_status(c, "OK", "SELECT 7");
    expect_error(c, "ERR DB index is out of range", "SELECT 8");
    redisFree(c);
    srv_stop(s);
}
END_TEST

START_TEST(config_file_errors)
{
    struct { const char *conf, *line, *text; } bad[] = {
        { "timeout 0\nnosuchdirective yes\n", "line 2", "nosuchdirective yes" },
        { "# comment\ndatabases 4\nport 99999999\n", "line 3", "port 99999999" },
        { "maxclients abc\n", "line 1", "maxclients abc" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = NULL;
        int st = srv_run_bad(bad[i].conf, "", &out, 10000);
        ck_assert_msg(st != -1, "server with a bad config did not exit:\n%s", out);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) != 0,
                      "bad config: want exit status != 0, got 0x%x", st);
        ck_assert_msg(strstr(out, bad[i].line) && strstr(out, bad[i].text),
                      "config error should name '%s' and '%s':\n%s",
                      bad[i].line, bad[i].text, out);
        free(out);
    }
}
END_TEST

START_TEST(logs_ready)
{
    ck_assert_msg(srv_log_wait(h_srv, "Ready to accept connections", 3000),
                  "log lacks 'Ready to accept connections'");
}
END_TEST

START_TEST(logfile_option)
{
    char dir[] = "/tmp/verso-itest-logfile.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/custom.log", dir);
    srv *s = srv_start("--logfile '%s'", path);
    long long deadline = h_now_ms() + 3000;
    int found = 0;
    while (!found && h_now_ms() < deadline) {
        FILE *f = fopen(path, "r");
        char line[1024];
        while (f && !found && fgets(line, sizeof line, f))
            found = strstr(line, "Ready to accept connections") != NULL;
        if (f)
            fclose(f);
        if (!found)
            h_sleep_ms(20);
    }
    srv_stop(s);
    unlink(path);
    rmdir(dir);
    ck_assert_msg(found, "logfile %s lacks 'Ready to accept connections'", path);
}
END_TEST

/* COMMAND INFO entry: name, arity, flags, first key, last key, step. */
static void check_cmd_info(const redisReply *e, const char *name, int arity,
                           int first, int last, int step)
{
    ck_assert_msg(e->type == REDIS_REPLY_ARRAY && e->elements >= 6,
                  "COMMAND INFO %s: want an array of >= 6", name);
    check_bulk(e->element[0], name);
    check_int(e->element[1], arity);
    ck_assert_int_eq(e->element[2]->type, REDIS_REPLY_ARRAY);
    check_int(e->element[3], first);
    check_int(e->element[4], last);
    check_int(e->element[5], step);
}

START_TEST(command_introspection)
{
    redisContext *c = h_c;
    redisReply *r = cmd(c, "COMMAND COUNT");
    ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
    long long count = r->integer;
    freeReplyObject(r);
    ck_assert_int_ge(count, 50);
    r = expect_array(c, count, "COMMAND");
    freeReplyObject(r);

    r = expect_array(c, 5, "COMMAND INFO get SET mset nosuch ping");
    check_cmd_info(r->element[0], "get", 2, 1, 1, 1);
    check_cmd_info(r->element[1], "set", -3, 1, 1, 1);
    check_cmd_info(r->element[2], "mset", -3, 1, -1, 2);
    check_nil(r->element[3]);
    check_cmd_info(r->element[4], "ping", -1, 0, 0, 0);
    freeReplyObject(r);

    r = expect_array(c, 2, "COMMAND DOCS get");
    check_bulk(r->element[0], "get");
    ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_ARRAY);
    freeReplyObject(r);
    /* (all of COMMAND DOCS nests too deep for this hiredis; redis-cli reads
     * it in test_clients.c) */
    r = expect_array(c, 6, "COMMAND DOCS set ping mget");
    check_bulk(r->element[0], "set");
    check_bulk(r->element[2], "ping");
    check_bulk(r->element[4], "mget");
    freeReplyObject(r);
    r = expect_array(c, 0, "COMMAND DOCS nosuch");
    freeReplyObject(r);
    expect_error(c, "ERR unknown subcommand 'foo'. Try COMMAND HELP.",
                 "COMMAND foo");
}
END_TEST

START_TEST(time_command)
{
    redisContext *c = h_c;
    long long now = (long long)time(NULL);
    redisReply *r = expect_array(c, 2, "TIME");
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_STRING);
    ck_assert_int_eq(r->element[1]->type, REDIS_REPLY_STRING);
    long long sec = atoll(r->element[0]->str), usec = atoll(r->element[1]->str);
    freeReplyObject(r);
    ck_assert_int_le(llabs(sec - now), 5);
    ck_assert(usec >= 0 && usec <= 999999);
    expect_error(c, "ERR wrong number of arguments for 'time' command",
                 "TIME x");
}
END_TEST

START_TEST(quit_closes)
{
    int fd = raw_connect(h_srv->port);
    ck_assert_int_eq(raw_send_str(fd, "*1\r\n$4\r\nQUIT\r\n"), 0);
    char buf[64];
    int closed;
    raw_read(fd, buf, sizeof buf, 64, 5000, &closed);
    ck_assert_str_eq(buf, "+OK\r\n");
    ck_assert_msg(closed, "connection still open after QUIT");
    close(fd);
    expect_status(h_c, "PONG", "PING");
}
END_TEST

static void shutdown_with(const char *command)
{
    redisContext *c = h_c;
    expect_error(c, "ERR syntax error", "SHUTDOWN foo");
    redisReply *r = redisCommand(c, command);
    ck_assert_msg(r == NULL, "%s got a reply", command);
    ck_assert_msg(srv_wait_exit(h_srv, 10000), "server alive 10 s after %s",
                  command);
    ck_assert_msg(WIFEXITED(h_srv->exit_status) &&
                  WEXITSTATUS(h_srv->exit_status) == 0,
                  "%s: exit status 0x%x", command, h_srv->exit_status);
}

START_TEST(shutdown_nosave)
{
    shutdown_with("SHUTDOWN NOSAVE");
}
END_TEST

START_TEST(shutdown_plain)
{
    shutdown_with("SHUTDOWN");
}
END_TEST

START_TEST(debug_populate)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "SET key:5 mine");
    expect_status(c, "OK", "DEBUG POPULATE 1000");
    expect_int(c, 1000, "DBSIZE");
    expect_bulk(c, "value:0", "GET key:0");
    expect_bulk(c, "value:999", "GET key:999");
    expect_bulk(c, "mine", "GET key:5");        /* existing keys are kept */
    expect_int(c, -1, "TTL key:1");
    expect_status(c, "OK", "DEBUG POPULATE 10 foo");
    expect_int(c, 1010, "DBSIZE");
    expect_bulk(c, "value:9", "GET foo:9");
    expect_status(c, "OK", "DEBUG POPULATE 3 bar 20");
    redisReply *r = cmd(c, "GET bar:2");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, 20);
    ck_assert(memcmp(r->str, "value:2\0\0\0\0\0\0\0\0\0\0\0\0\0", 20) == 0);
    freeReplyObject(r);
    expect_status(c, "OK", "DEBUG POPULATE 2 tiny 3");
    expect_bulk(c, "val", "GET tiny:1");
    expect_status(c, "OK", "SELECT 3");
    expect_status(c, "OK", "DEBUG POPULATE 7");
    expect_int(c, 7, "DBSIZE");
    expect_status(c, "OK", "DEBUG POPULATE 0");
    expect_error(c, "ERR value is out of range, must be positive",
                 "DEBUG POPULATE -1");
    expect_error(c, "ERR value is out of range, must be positive",
                 "DEBUG POPULATE abc");
    /* a negative value size is refused with a reply (it once got none:
     * found by tests/fuzz/fuzz_cmds) */
    expect_error(c, "ERR value is out of range, must be positive",
                 "DEBUG POPULATE 1 k -1");
    expect_status(c, "PONG", "PING");
}
END_TEST

#define DEBUG_REFUSED                                                             \
    "ERR DEBUG command not allowed. If the enable-debug-command option is set to " \
    "\"local\", you can run it from a local connection, otherwise you need to "    \
    "set this option in the configuration file, and then restart the server."

/* A client whose address is 127.0.0.2 (loopback, but not "local" for
 * enable-debug-command, which admits 127.0.0.1 and ::1 only). */
static redisContext *connect_from_127_0_0_2(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in src = { .sin_family = AF_INET };
    struct sockaddr_in dst = { .sin_family = AF_INET,
                               .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, "127.0.0.2", &src.sin_addr);
    inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
    ck_assert_msg(fd >= 0 && bind(fd, (struct sockaddr *)&src, sizeof src) == 0 &&
                      connect(fd, (struct sockaddr *)&dst, sizeof dst) == 0,
                  "connect from 127.0.0.2: %s", strerror(errno));
    redisContext *c = redisConnectFd(fd);
    ck_assert_msg(c && !c->err, "redisConnectFd");
    return c;
}

/* enable-debug-command no|yes|local (Redis 7.0): refused by default with
 * Redis's text, before AUTH; immutable. */
START_TEST(debug_command_protected)
{
    srv *s = h_srv_start("--enable-debug-command no --requirepass pw");
    redisContext *c = srv_connect(s);
    expect_error(c, DEBUG_REFUSED, "DEBUG POPULATE 1");  /* before AUTH too */
    expect_status(c, "OK", "AUTH pw");
    expect_error(c, DEBUG_REFUSED, "DEBUG POPULATE 1");
    expect_error(c, DEBUG_REFUSED, "DEBUG SLEEP 0");
    expect_int(c, 0, "DBSIZE");
    redisReply *r = expect_array(c, 2, "CONFIG GET enable-debug-command");
    check_bulk(r->element[1], "no");
    freeReplyObject(r);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument "
                    "'enable-debug-command') - can't set immutable config",
                 "CONFIG SET enable-debug-command yes");
    redisFree(c);

    s = h_srv_start("--enable-debug-command local --protected-mode no");
    c = srv_connect(s);                                /* from 127.0.0.1 */
    expect_status(c, "OK", "DEBUG POPULATE 2");
    expect_int(c, 2, "DBSIZE");
    redisFree(c);
    c = connect_from_127_0_0_2(s->port);
    expect_error(c, DEBUG_REFUSED, "DEBUG POPULATE 5");
    expect_int(c, 2, "DBSIZE");
    redisFree(c);

    s = h_srv_start("--enable-debug-command yes --protected-mode no");
    c = connect_from_127_0_0_2(s->port);
    expect_status(c, "OK", "DEBUG POPULATE 3");
    expect_int(c, 3, "DBSIZE");
    redisFree(c);
    h_srv_drop_all();
}
END_TEST

#define MODULE_REFUSED                                                            \
    "ERR MODULE command not allowed. If the enable-module-command option is "     \
    "set to \"local\", you can run it from a local connection, otherwise you "    \
    "need to set this option in the configuration file, and then restart the "   \
    "server."
#define MODULE_LOAD_FAILED "ERR Error loading the extension. Please check the server logs."

/* MODULE: no module is loaded, and loading one fails as a dlopen that
 * fails does in Redis 7.0; LOAD, LOADEX and UNLOAD are refused unless
 * enable-module-command allows them (LIST and HELP never are). */
START_TEST(module_command)
{
    srv *s = h_srv_start(NULL);                        /* enable-module-command no */
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 0, "MODULE LIST");
    freeReplyObject(r);
    expect_error(c, MODULE_REFUSED, "MODULE LOAD /nonexistent/mod.so");
    expect_error(c, MODULE_REFUSED, "MODULE LOADEX /nonexistent/mod.so");
    expect_error(c, MODULE_REFUSED, "MODULE UNLOAD mod");
    r = expect_array(c, 11, "MODULE HELP");
    ck_assert_str_eq(r->element[0]->str,
                     "MODULE <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
    ck_assert_str_eq(r->element[10]->str, "    Prints this help.");
    freeReplyObject(r);
    expect_error(c, "ERR unknown subcommand 'foo'. Try MODULE HELP.", "MODULE foo");
    expect_error(c, "ERR wrong number of arguments for 'module|help' command", "MODULE HELP x");
    expect_error(c, "ERR wrong number of arguments for 'module|load' command", "MODULE LOAD");
    expect_error(c, "ERR wrong number of arguments for 'module' command", "MODULE");
    redisFree(c);

    s = h_srv_start("--enable-module-command yes");
    c = srv_connect(s);
    expect_error(c, MODULE_LOAD_FAILED, "MODULE LOAD /nonexistent/mod.so a b");
    expect_error(c, MODULE_LOAD_FAILED, "MODULE LOADEX /nonexistent/mod.so CONFIG n v ARGS x");
    expect_error(c, "ERR Error unloading module: no such module with that name",
                 "MODULE UNLOAD mod");
    r = expect_array(c, 0, "MODULE LIST");
    freeReplyObject(r);
    redisFree(c);
    h_srv_drop_all();
}
END_TEST

/* The number of lines of s ('\n'-separated, a last one unterminated too). */
static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; n++) {
        const char *nl = strchr(s, '\n');
        if (!nl) return n + 1;
        s = nl + 1;
    }
    return n;
}

/* LOLWUT as Redis 7.0: the version line alone; VERSION 5 Schotter in
 * Braille (its first two rows of squares have no randomness: compared
 * whole), VERSION 6 the skyline in four grays; the options' errors. */
START_TEST(lolwut_art)
{
    redisContext *c = h_c;
    char *info = h_info(c, "server");
    char ver[32], line[64];
    ck_assert(h_info_field(info, "redis_version", ver, sizeof ver));
    free(info);
    snprintf(line, sizeof line, "Redis ver. %s\n", ver);
    expect_bulk(c, line, "LOLWUT");
    expect_bulk(c, line, "LOLWUT VERSION 7");
    expect_bulk(c, line, "LOLWUT VERSION 4");
    expect_bulk(c, line, "LOLWUT foo");
    expect_bulk(c, line, "LOLWUT VERSION 56 1 1");
    char want[1024];
    snprintf(want, sizeof want,
             "⠀⡤⠤⠤⠤⡤⠤⠤⠤⡄\n⠀⡇⠀⠀⠀⡇⠀⠀⠀⡇\n⠀⡧⠤⠤⠤⡧⠤⠤⠤⡇\n⠀⡇⠀⠀⠀⡇⠀⠀⠀⡇\n⠀⠧⠤⠤⠤⠧⠤⠤⠤⠇\n\n"
             "Georg Nees - schotter, plotter on paper, 1968. %s", line);
    expect_bulk(c, want, "LOLWUT VERSION 5 10 2 2");
    /* the defaults: 66 columns, 8 x 12 squares: 49 rows of 66 characters */
    redisReply *r = cmd(c, "LOLWUT VERSION 5");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_int_eq(count_lines(r->str), 51);
    ck_assert_ptr_eq(strchr(r->str, '\n'), r->str + 66 * 3);
    snprintf(want, sizeof want, "\n\nGeorg Nees - schotter, plotter on paper, 1968. %s", line);
    ck_assert_str_eq(r->str + r->len - strlen(want), want);
    freeReplyObject(r);
    /* version 6: 20 rows of 80 cells, each a blank in one of four grays */
    r = cmd(c, "LOLWUT VERSION 6");
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    const char *p = r->str;
    const char *gray[] = {"\033[0;30;40m \033[0m", "\033[0;90;100m \033[0m",
                          "\033[0;37;47m \033[0m", "\033[0;97;107m \033[0m"};
    for (int y = 0; y < 20; y++) {
        for (int x = 0; x < 80; x++) {
            size_t g = 0;
            while (g < 4 && strncmp(p, gray[g], strlen(gray[g]))) g++;
            ck_assert_msg(g < 4, "row %d col %d: %.20s", y, x, p);
            p += strlen(gray[g]);
        }
        ck_assert_int_eq(*p, '\n');
        p++;
    }
    snprintf(want, sizeof want, "Dedicated to the 8 bit game developers of past and present.\n"
                                "Original 8 bit image from Plaguemon by hikikomori. %s", line);
    ck_assert_str_eq(p, want);
    freeReplyObject(r);
    expect_error(c, "ERR value is not an integer or out of range", "LOLWUT VERSION x");
    expect_error(c, "ERR value is not an integer or out of range", "LOLWUT VERSION 5 x");
    expect_error(c, "ERR value is not an integer or out of range", "LOLWUT VERSION 6 80 y");
}
END_TEST

/* Copies the file src to dst, mode 0755. */
static void copy_exec(const char *src, const char *dst)
{
    size_t len;
    char *bytes = h_slurp(src, &len, 1);
    FILE *f = fopen(dst, "wb");
    ck_assert_msg(f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0,
                  "copy to %s: %s", dst, strerror(errno));
    ck_assert_int_eq(chmod(dst, 0755), 0);
    free(bytes);
}

/* Finding 13: INFO lines were cut at 1 KiB each, so the server section lost
 * its end when the executable's path was long. The binary is copied to a
 * path of ~1.2 KB (same file name, so the harness still knows it) and
 * every field of the section must come back whole. Runs without the
 * default fixture: srv_binary() is read once per test process. */
START_TEST(info_long_lines_whole)
{
    const char *env = getenv("VERSO_SERVER");
    const char *src = env && *env ? env : VERSO_SERVER_PATH;
    const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
    char path[4096];
    snprintf(path, sizeof path, "/tmp/verso-info.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(path));
    char top[sizeof path];
    snprintf(top, sizeof top, "%s", path);
    for (int i = 0; i < 6; i++) {
        size_t n = strlen(path);
        path[n] = '/';
        memset(path + n + 1, 'd' + i, 200);
        path[n + 201] = '\0';
        ck_assert_int_eq(mkdir(path, 0700), 0);
    }
    char exe[4096 + 64];
    snprintf(exe, sizeof exe, "%s/%s", path, base);
    copy_exec(src, exe);
    setenv("VERSO_SERVER", exe, 1);
    srv *s = srv_start(NULL);
    redisContext *c = srv_connect(s);
    char *info = h_info(c, "server");
    char v[4096 + 64];
    ck_assert(h_info_field(info, "executable", v, sizeof v));
    ck_assert_str_eq(v, exe);
    ck_assert_msg(strstr(info, "\r\nconfig_file:") != NULL, "INFO server cut short");
    free(info);
    info = h_info(c, "everything");
    ck_assert_msg(strstr(info, "# Keyspace\r\n") != NULL, "INFO everything cut short");
    ck_assert(h_info_field(info, "executable", v, sizeof v));
    ck_assert_str_eq(v, exe);
    free(info);
    redisFree(c);
    srv_stop(s);
    char cmdline[sizeof top + 16];
    snprintf(cmdline, sizeof cmdline, "rm -rf '%s'", top);
    ck_assert_int_eq(system(cmdline), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("server");
    TCase *tc = tcase_create("server");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, ping_echo);
    tcase_add_test(tc, unknown_command);
    tcase_add_test(tc, info_sections_and_fields);
    tcase_add_test(tc, info_counters_move);
    tcase_add_test(tc, config_get_set);
    tcase_add_test(tc, config_file_and_args);
    tcase_add_test(tc, config_file_errors);
    tcase_add_test(tc, logs_ready);
    tcase_add_test(tc, logfile_option);
    tcase_add_test(tc, command_introspection);
    tcase_add_test(tc, time_command);
    tcase_add_test(tc, quit_closes);
    tcase_add_test(tc, shutdown_nosave);
    tcase_add_test(tc, shutdown_plain);
    tcase_add_test(tc, debug_populate);
    tcase_add_test(tc, debug_command_protected);
    tcase_add_test(tc, module_command);
    tcase_add_test(tc, lolwut_art);
    suite_add_tcase(s, tc);
    TCase *bare = tcase_create("no fixture");
    tcase_set_timeout(bare, 30);
    tcase_add_test(bare, info_long_lines_whole);
    suite_add_tcase(s, bare);
    return h_main(s);
}
