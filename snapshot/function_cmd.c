/* function_cmd: FUNCTION DUMP and FUNCTION RESTORE, as Redis 7.0.15's
 * functions.c answers them (functionDumpCommand, functionRestoreCommand).
 *
 * The payload is the libraries as a snapshot holds them (one opcode 245
 * record each: the byte 0xF5 and the code as an RDB string, LZF when
 * rdbcompression and worth it), then the RDB version as 2 bytes little
 * endian (10) and the CRC64 (Jones) of everything before it as 8 bytes
 * little endian, so a payload from redis-server restores here and back.
 * The registry is src/scripting/function.c's; RESTORE builds the payload's libraries
 * in a context of its own and commits them with the policy only when all
 * of them loaded. Main thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "function.h"
#include "util.h"
#include "dump_payload.h"
#include "rdb.h"
#include "rdb_fmt.h"

void cmd_function_dump(client *c) {
    sink *out = sink_mem_open("FUNCTION DUMP payload");
    size_t n;
    obj **codes = function_codes(&n);
    char err[RDB_ERRLEN];
    int rc = rdb_write_functions(out, codes, n, server.cfg.rdbcompression ? RDB_COMPRESS_LZF : 0,
                                 err, sizeof err);
    function_codes_free(codes, n);
    if (rc != 0) { /* a memory sink does not fail; kept as an error, not a crash */
        reply_errorf(c, "ERR %s", err);
        sink_free(out);
        return;
    }
    dump_payload_reply(c, out);
}

typedef struct restore_ctx {
    fn_ctx *x;
    char *err; /* Redis's text, heap */
} restore_ctx;

static int restore_one(void *priv, int op, const char *code, size_t len) {
    restore_ctx *r = priv;
    if (op == RDB_OP_FUNCTION_PRE_GA) {
        r->err = xstrdup("Pre-GA function format not supported");
        return -1;
    }
    if (op != RDB_OP_FUNCTION2) {
        r->err = xstrdup("given type is not a function");
        return -1;
    }
    char *name = function_ctx_create(r->x, code, len, &r->err);
    if (!name) return -1;
    free(name);
    return 0;
}

/* FUNCTION RESTORE payload [FLUSH|APPEND|REPLACE] */
void cmd_function_restore(client *c) {
    if (c->argc > 4) {
        int n = c->argv[1].len > 128 ? 128 : (int)c->argv[1].len;
        reply_errorf(c,
                     "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                     "FUNCTION HELP.",
                     n, c->argv[1].p);
        return;
    }
    int policy = FN_RESTORE_APPEND;
    if (c->argc == 4) {
        const arg *a = &c->argv[3];
        if (arg_is(a, "append")) policy = FN_RESTORE_APPEND;
        else if (arg_is(a, "replace")) policy = FN_RESTORE_REPLACE;
        else if (arg_is(a, "flush")) policy = FN_RESTORE_FLUSH;
        else {
            reply_error(c, "ERR Wrong restore policy given, value should be either FLUSH, APPEND "
                           "or REPLACE.");
            return;
        }
    }
    const unsigned char *p = (const unsigned char *)c->argv[2].p;
    size_t len = c->argv[2].len;
    if (!dump_payload_ok(p, len)) {
        reply_error(c, "ERR DUMP payload version or checksum are wrong");
        return;
    }
    restore_ctx r = {function_ctx_new(), NULL};
    source *src = source_mem_open(p, len, "FUNCTION RESTORE payload");
    char err[RDB_ERRLEN];
    int rc = rdb_read_functions(src, len - DUMP_FOOTER, restore_one, &r, err, sizeof err);
    source_free(src);
    if (rc != 0) {
        function_ctx_free(r.x);
        if (!r.err) r.err = xstrdup("Failed loading library payload");
    } else if (function_ctx_commit(r.x, policy, &r.err) == 0) {
        server_dirty(1);
        reply_ok(c);
        return;
    }
    reply_errorf(c, "ERR %s", r.err);
    free(r.err);
}

/* ---- the rows: FUNCTION's DUMP and RESTORE subcommands (cmd.h's
 * cmd_register_sub; docs as Redis 7.0.15's) ---- */
static const char *const function_restore_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const cmd_arg function_restore_policy_args[] = {
    {.name = "flush", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FLUSH"},
    {.name = "append", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "APPEND"},
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE"},
    {0}};
static const cmd_arg function_restore_args[] = {
    {.name = "serialized-value", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "policy", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = function_restore_policy_args},
    {0}};

static const cmd_def function_dump_cmds[] = {
    {.name = "dump", .proc = cmd_function_dump, .arity = 2, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_SCRIPTING,
     .group = "scripting", .since = "7.0.0",
     .summary = "Dump all functions into a serialized binary payload",
     .complexity = "O(N) where N is the number of functions"},
    {.name = "restore", .proc = cmd_function_restore, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, .acl = CAT_WRITE | CAT_SLOW | CAT_SCRIPTING,
     .tips = function_restore_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Restore all the functions on the given payload",
     .complexity = "O(N) where N is the number of functions on the payload",
     .args = function_restore_args},
};

void function_dump_register_commands(void) {
    cmd_register_sub("function", function_dump_cmds,
                     sizeof function_dump_cmds / sizeof function_dump_cmds[0]);
}
