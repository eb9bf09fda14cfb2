/* slowlog: the slow log and SLOWLOG GET/LEN/RESET/HELP, as Redis 7.0's
 * (introspect.h).
 *
 * A command that ran for slowlog-log-slower-than microseconds or more
 * (negative: never; 0: every command) is logged unless its table entry
 * says skip-slowlog (EXEC, AUTH...). An entry keeps an id, the wall-clock
 * second, the duration, at most 32 arguments (the 32nd then says "... (N
 * more arguments)"), each cut to 128 bytes ("... (N more bytes)"), secrets
 * shown as "(redacted)", the client's address and name. The newest entries
 * come first; the oldest are dropped past slowlog-max-len. Main thread
 * only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "introspect.h"
#include "util.h"

#define SLOWLOG_MAX_ARGC 32
#define SLOWLOG_MAX_STRING 128

typedef struct slow_entry {
    struct slow_entry *newer, *older;
    long long id;
    long long time;              /* unix seconds */
    long long usec;
    int argc;
    arg *argv;                   /* args_dup: one allocation */
    char *addr, *name;
} slow_entry;

static slow_entry *newest, *oldest;
static size_t nentries;
static long long next_id;

static void entry_free(slow_entry *e) {
    free(e->argv);
    free(e->addr);
    free(e->name);
    free(e);
}

static void drop_oldest(void) {
    slow_entry *e = oldest;
    oldest = e->newer;
    if (oldest) oldest->older = NULL;
    else newest = NULL;
    nentries--;
    entry_free(e);
}

static void trim(void) {
    long long max = server.cfg.slowlog_max_len;
    while (nentries > (size_t)(max < 0 ? 0 : max)) drop_oldest();
}

/* The arguments as an entry keeps them (Redis's slowlogCreateEntry). */
static arg *entry_args(const cmd_def *d, int argc, const arg *argv, int *out_argc) {
    int n = argc > SLOWLOG_MAX_ARGC ? SLOWLOG_MAX_ARGC : argc;
    arg *tmp = xmalloc((size_t)(n ? n : 1) * sizeof *tmp);
    char **owned = xcalloc((size_t)(n ? n : 1), sizeof *owned);
    for (int j = 0; j < n; j++) {
        if (j == n - 1 && n != argc) {
            owned[j] = xmalloc(64);
            int w = snprintf(owned[j], 64, "... (%d more arguments)", argc - n + 1);
            tmp[j] = (arg){owned[j], (size_t)w};
        } else if (introspect_redacted(d, argc, argv, j)) {
            tmp[j] = (arg){"(redacted)", 10};
        } else if (argv[j].len > SLOWLOG_MAX_STRING) {
            size_t cap = SLOWLOG_MAX_STRING + 64;
            owned[j] = xmalloc(cap);
            memcpy(owned[j], argv[j].p, SLOWLOG_MAX_STRING);
            int w = snprintf(owned[j] + SLOWLOG_MAX_STRING, cap - SLOWLOG_MAX_STRING,
                             "... (%zu more bytes)", argv[j].len - SLOWLOG_MAX_STRING);
            tmp[j] = (arg){owned[j], SLOWLOG_MAX_STRING + (size_t)w};
        } else {
            tmp[j] = argv[j];
        }
    }
    arg *copy = args_dup(n, tmp);
    for (int j = 0; j < n; j++) free(owned[j]);
    free(owned);
    free(tmp);
    *out_argc = n;
    return copy;
}

void slowlog_push(client *c, const cmd_def *d, int argc, const arg *argv, int64_t usec) {
    long long limit = server.cfg.slowlog_log_slower_than;
    if (limit < 0 || usec < limit || (d->flags & CMD_SKIP_SLOWLOG)) return;
    slow_entry *e = xcalloc(1, sizeof *e);
    e->id = next_id++;
    e->time = (long long)time(NULL);
    e->usec = usec;
    e->argv = entry_args(d, argc, argv, &e->argc);
    e->addr = xstrdup((c->flags & CLIENT_SCRIPT) ? "?:0" : c->addr); /* as Redis: no peer */
    e->name = xstrdup(c->name ? c->name : "");
    e->older = newest;
    if (newest) newest->newer = e;
    else oldest = e;
    newest = e;
    nentries++;
    trim();
}

static void slowlog_reset(void) {
    while (oldest) drop_oldest();
}

static const char *const slowlog_help[] = {
    "SLOWLOG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "GET [<count>]",
    "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
    "    Entries are made of:",
    "    id, timestamp, time in microseconds, arguments array, client IP and port,",
    "    client name",
    "LEN",
    "    Return the length of the slowlog.",
    "RESET",
    "    Reset the slowlog.",
    "HELP",
    "    Prints this help.",
    NULL};

static void slowlog_get(client *c) {
    long long count = 10;
    if (c->argc == 3) {
        if (!str_to_ll(c->argv[2].p, c->argv[2].len, &count) || count < -1) {
            reply_error(c, "ERR count should be greater than or equal to -1");
            return;
        }
        if (count == -1) count = (long long)nentries;
    } else if (c->argc > 3) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try SLOWLOG HELP.",
                     (int)(c->argv[1].len > 128 ? 128 : c->argv[1].len), c->argv[1].p);
        return;
    }
    long long n = count < (long long)nentries ? count : (long long)nentries;
    reply_array(c, n);
    slow_entry *e = newest;
    for (long long i = 0; i < n; i++, e = e->older) {
        reply_array(c, 6);
        reply_int(c, e->id);
        reply_int(c, e->time);
        reply_int(c, e->usec);
        reply_array(c, e->argc);
        for (int j = 0; j < e->argc; j++) reply_bulk(c, e->argv[j].p, e->argv[j].len);
        reply_bulk_str(c, e->addr);
        reply_bulk_str(c, e->name);
    }
}

/* The dispatcher resolved the subcommand (c->cmd) and checked its arity. */
void cmd_slowlog(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, slowlog_help);
    } else if (!strcmp(sub, "len")) {
        reply_int(c, (long long)nentries);
    } else if (!strcmp(sub, "reset")) {
        slowlog_reset();
        reply_ok(c);
    } else {
        slowlog_get(c);
    }
}
