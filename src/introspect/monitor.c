/* monitor: MONITOR, as Redis 7.0's (introspect.h).
 *
 * A MONITOR client gets one status line per command any client ran, after
 * it ran ("<sec>.<usec> [<db> <ip:port>] "arg" ...", args escaped as
 * Redis's sdscatrepr; "lua" instead of the address for a script's
 * commands), except admin and skip-monitor commands, commands refused
 * before running, and a blocked command's second run. EVAL and EVALSHA are
 * shown before the commands their script calls (cmdstats.c), EXEC after
 * the commands of its transaction. Secrets show as "(redacted)".
 *
 * A MONITOR client keeps running commands that do not touch the keyspace
 * (PING, INFO, CLIENT...): those that read or write keys get Redis's
 * "Replica can't interact with the keyspace" (a monitor is a replica to
 * Redis). RESET and closing the connection end MONITOR mode. Its hooks
 * (the gate, the closing) are registered at startup (monitor_init) and
 * return at once for other clients. Main thread only. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "hooks.h"
#include "introspect.h"
#include "net.h"
#include "util.h"

static client **mons;   /* the MONITOR clients, in the order they started */
static size_t nmons, capmons;

size_t monitor_count(void) { return nmons; }

void monitor_remove(client *c) {
    if (!(c->flags & CLIENT_MONITOR)) return;
    c->flags &= ~CLIENT_MONITOR;
    for (size_t i = 0; i < nmons; i++) {
        if (mons[i] != c) continue;
        memmove(mons + i, mons + i + 1, (nmons - i - 1) * sizeof *mons);
        nmons--;
        return;
    }
}

/* Redis's processCommand: a replica (a monitor is one) may not run what
 * reads, writes or may replicate. */
static const char *monitor_gate(const client *c, const cmd_def *d) {
    if (!(c->flags & CLIENT_MONITOR)) return NULL;
    if (d->flags & (CMD_WRITE | CMD_READONLY | CMD_MAY_REPLICATE))
        return "ERR Replica can't interact with the keyspace";
    return NULL;
}

/* Both return at once for a client that is no monitor. */
static const hooks monitor_hooks = {
    .name = "monitor",
    .client_gate = monitor_gate,
    .client_closed = monitor_remove,
};

void monitor_init(void) { hooks_register(&monitor_hooks); }

void cmd_monitor(client *c) {
    if (c->flags & (CLIENT_MULTI | CLIENT_SCRIPT)) { /* Redis's CLIENT_DENY_BLOCKING */
        reply_error(c, "ERR MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    if (c->flags & (CLIENT_MONITOR | CLIENT_REPLICA)) return; /* already: no reply */
    c->flags |= CLIENT_MONITOR;
    for (size_t i = 0; i < nmons; i++)
        if (mons[i] == c) { /* its flag was cleared by hand (an in-process client) */
            reply_ok(c);
            return;
        }
    if (nmons == capmons) {
        capmons = capmons ? capmons * 2 : 4;
        mons = xrealloc(mons, capmons * sizeof *mons);
    }
    mons[nmons++] = c;
    reply_ok(c);
}

/* ---- redaction ---- */

int introspect_redacted(const cmd_def *d, int argc, const arg *argv, int i) {
    const char *name = d->parent ? d->parent->name : d->name;
    if (i <= 0 || i >= argc) return 0;
    if (!strcmp(name, "auth")) return 1;
    if (!strcmp(name, "hello")) { /* HELLO [protover [AUTH user pass] [SETNAME n]] */
        for (int j = 2; j + 2 < argc; j++)
            if (arg_is(&argv[j], "auth") && (i == j + 1 || i == j + 2)) return 1;
        return 0;
    }
    if (!strcmp(name, "migrate")) { /* ... [AUTH pass | AUTH2 user pass] [KEYS ...] */
        for (int j = 6; j < argc; j++) {
            if (arg_is(&argv[j], "keys")) break;
            if (arg_is(&argv[j], "auth") && i == j + 1) return 1;
            if (arg_is(&argv[j], "auth2") && (i == j + 1 || i == j + 2)) return 1;
        }
    }
    return 0;
}

/* ---- the line ---- */

void monitor_feed(client *c, int dbid, int argc, const arg *argv) {
    if (!nmons) return;
    vbuf line = {0};
    int64_t now = wall_us();
    vbuf_appendf(&line, "%lld.%06lld [%d %s] ", (long long)(now / 1000000),
                 (long long)(now % 1000000), dbid, (c->flags & CLIENT_SCRIPT) ? "lua" : c->addr);
    const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
    for (int j = 0; j < argc; j++) {
        if (j) vbuf_append(&line, " ", 1);
        if (d && introspect_redacted(d, argc, argv, j)) vbuf_append_str(&line, "\"(redacted)\"");
        else vbuf_append_repr(&line, argv[j].p, argv[j].len);
    }
    vbuf_append(&line, "", 1); /* NUL for the status reply */
    for (size_t i = 0; i < nmons; i++) {
        /* a closing client gets nothing more (Redis's prepareClientToWrite):
         * a monitor's own QUIT is not shown to it */
        if (mons[i]->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSING)) continue;
        if (!(mons[i]->flags & CLIENT_MONITOR)) continue; /* see cmd_monitor */
        reply_status(mons[i], line.data);
        net_want_write(mons[i]);
    }
    vbuf_free(&line);
}
