/* fuzz_cmds: random command sequences through the real dispatcher
 * (cmd_dispatch) against the in-process keyspace.
 *
 * The input is decoded into commands: a byte picks the name from the
 * command table, a byte the argument count (0-7), and per argument a byte
 * picks a word from a small vocabulary (keys, numbers, options) or, for
 * bytes >= 0xc0, takes the next (b & 0x3f) input bytes as the argument. A
 * fake client runs them one by one; its reply buffer is checked to hold
 * exactly one well-formed RESP2 reply per command, then emptied. BGSAVE
 * starts a real forkless save on its serializer thread (into the scratch
 * directory) that runs on while the next commands change the keys; the
 * libuv loop is polled between inputs so that it completes. Left out:
 * SHUTDOWN, DEBUG SLEEP, CONFIG (only GET and HELP run), BGREWRITEAOF, and
 * DEBUG POPULATE / SETRANGE sizes that would allocate megabytes. Every 256
 * inputs the databases are emptied, so memory stays bounded. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../snapshot/snap.h"
#include "../../src/cmd.h"
#include "../../src/db.h"
#include "../../src/util.h"
#include "fuzz_common.h"

#define MAX_ARGS 8

static const char *const vocab[] = {
    "k0", "k1", "k2", "k3", "{k}a", "k:0", "key:1", "", "v", "hello", "0", "1", "-1", "2",
    "10", "100", "1000", "-100", "3.5", "-0.0", "1e3", "inf", "-inf", "nan", "+1",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "4294967296",
    "1700000000", "1700000000000", "99999999999999", "EX", "PX", "EXAT", "PXAT", "NX", "XX",
    "GT", "LT", "KEEPTTL", "GET", "PERSIST", "MATCH", "COUNT", "TYPE", "string", "*", "k*",
    "?0", "[a-k]*", "\\", "NOSAVE", "SCHEDULE", "populate", "sleep", "help", "get", "set",
    "id", "getname", "setname", "list", "info", "kill", "all", "everything", "keyspace",
    "stats", "persistence", "memory", "server", "clients", "commandstats", "count", "docs",
    "ASYNC", "SYNC", "15", "16", "a b", "\r\n", "\x00",
};
#define NVOCAB (sizeof vocab / sizeof vocab[0])

static client fake;
static unsigned long inputs;

typedef struct rd {
    const uint8_t *p, *end;
} rd;

static int next(rd *r) { return r->p < r->end ? *r->p++ : -1; }

/* One well-formed RESP2 value at s[*i..n): advances *i past it. */
static int resp_value(const char *s, size_t n, size_t *i, int depth) {
    /* COMMAND's entries nest key specs inside subcommands inside commands:
     * ten levels and more; the limit only stops a runaway recursion. */
    if (*i >= n || depth > 64) return 0;
    char t = s[*i];
    const char *e = memchr(s + *i, '\r', n - *i);
    if (!e || (size_t)(e - s) + 1 >= n || e[1] != '\n') return 0;
    size_t line = (size_t)(e - s) - *i - 1;
    const char *body = s + *i + 1;
    *i = (size_t)(e - s) + 2;
    long long v;
    switch (t) {
    case '+':
    case '-':
        return memchr(body, '\n', line) == NULL;
    case ':':
        return str_to_ll(body, line, &v);
    case '$':
        if (!str_to_ll(body, line, &v) || v < -1) return 0;
        if (v == -1) return 1;
        if (n - *i < (size_t)v + 2 || memcmp(s + *i + v, "\r\n", 2) != 0) return 0;
        *i += (size_t)v + 2;
        return 1;
    case '*':
        if (!str_to_ll(body, line, &v) || v < -1) return 0;
        for (long long k = 0; k < v; k++)
            if (!resp_value(s, n, i, depth + 1)) return 0;
        return 1;
    default:
        return 0;
    }
}

/* Commands left out, or their arguments that would sleep or allocate much. */
static int skip(int argc, const arg *argv) {
    const arg *a = argv;
    if (arg_is(a, "shutdown") || arg_is(a, "bgrewriteaof")) return 1;
    if (arg_is(a, "config"))
        return argc < 2 || !(arg_is(&argv[1], "get") || arg_is(&argv[1], "help"));
    long long v;
    if (arg_is(a, "debug")) {
        if (argc >= 2 && arg_is(&argv[1], "sleep")) return 1;
        if (argc >= 3 && str_to_ll(argv[2].p, argv[2].len, &v) && v > 200) return 1;
        if (argc >= 5 && str_to_ll(argv[4].p, argv[4].len, &v) && v > 4096) return 1;
    }
    if (arg_is(a, "setrange") && argc >= 3 && str_to_ll(argv[2].p, argv[2].len, &v) &&
        v > 65536)
        return 1;
    return 0;
}

static void run(int argc, const arg *argv) {
    if (argc == 0 || skip(argc, argv)) return;
    fake.argc = argc;
    memcpy(fake.argv, argv, sizeof(arg) * (size_t)argc);
    fake.reply.len = 0;
    /* a transaction and its watches span the commands of one input */
    fake.flags = CLIENT_AUTHED | (fake.flags & (CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC));
    int rc = cmd_dispatch(&fake);
    assert(rc == CMD_RAN);
    size_t i = 0;
    if (!resp_value(fake.reply.data, fake.reply.len, &i, 0) || i != fake.reply.len) {
        fprintf(stderr, "bad reply to %.*s: %.*s\n", (int)argv[0].len, argv[0].p,
                (int)fake.reply.len, fake.reply.data);
        abort();
    }
    assert(fake.db >= 0 && fake.db < server.cfg.databases);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    fz_enter_dir(argc, argv); /* saves write temp files in the working directory */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_init_server();
    if (!fake.argv) {
        fake.argv = xmalloc(sizeof(arg) * MAX_ARGS);
        fake.argv_cap = MAX_ARGS;
        fake.id = 1;
        snprintf(fake.addr, sizeof fake.addr, "127.0.0.1:1");
        snprintf(fake.laddr, sizeof fake.laddr, "127.0.0.1:6379");
        fake.fd = -1;
    }
    uv_run(server.loop, UV_RUN_NOWAIT); /* a finished save reports back */
    if (++inputs % 256 == 0) {
        for (int i = 0; i < server.cfg.databases; i++)
            if (db_size(db_get(i)) > 0) db_flush(db_get(i));
    }
    fake.db = 0;
    /* each input starts outside any transaction, with nothing watched */
    static const arg discard[1] = {{"DISCARD", 7}}, unwatch[1] = {{"UNWATCH", 7}};
    if (fake.flags & CLIENT_MULTI) run(1, discard);
    run(1, unwatch);
    rd r = {data, data + size};
    size_t ncmds = cmd_count();
    int b;
    while ((b = next(&r)) >= 0) {
        arg argv[MAX_ARGS];
        argv[0].p = cmd_at((size_t)b % ncmds)->name;
        argv[0].len = strlen(argv[0].p);
        int n = next(&r);
        int argc = 1 + (n < 0 ? 0 : n % MAX_ARGS);
        if (argc > MAX_ARGS) argc = MAX_ARGS;
        for (int i = 1; i < argc; i++) {
            int t = next(&r);
            if (t < 0) t = 0;
            if (t >= 0xc0) {
                size_t len = (size_t)(t & 0x3f);
                if (len > (size_t)(r.end - r.p)) len = (size_t)(r.end - r.p);
                argv[i].p = (const char *)r.p;
                argv[i].len = len;
                r.p += len;
            } else {
                argv[i].p = vocab[(size_t)t % NVOCAB];
                argv[i].len = (size_t)t % NVOCAB == NVOCAB - 1 ? 1 : strlen(argv[i].p);
            }
        }
        run(argc, argv);
    }
    return 0;
}
