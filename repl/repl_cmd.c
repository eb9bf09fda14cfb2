/* repl_cmd: the rows of replication's commands (cmd.h's cmd_register):
 * PSYNC, SYNC, REPLCONF, WAIT (primary.c), REPLICAOF, SLAVEOF (replica.c),
 * ROLE (repl.c) and FAILOVER (failover.c), with their flags, key specs and docs as Redis
 * 7.0.15's. Main thread only. */
#include "cmd.h"
#include "repl.h"
#include "repl_int.h"
static const cmd_arg psync_args[] = {
    {.name = "replicationid", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg replicaof_args_host_port_args[] = {
    {.name = "host", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg replicaof_args_no_one_args[] = {
    {.name = "no", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NO"},
    {.name = "one", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ONE"},
    {0}};
static const cmd_arg replicaof_args_args[] = {
    {.name = "host-port", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = replicaof_args_host_port_args},
    {.name = "no-one", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = replicaof_args_no_one_args},
    {0}};
static const cmd_arg replicaof_args[] = {
    {.name = "args", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = replicaof_args_args},
    {0}};
static const cmd_arg slaveof_args_host_port_args[] = {
    {.name = "host", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg slaveof_args_no_one_args[] = {
    {.name = "no", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NO"},
    {.name = "one", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ONE"},
    {0}};
static const cmd_arg slaveof_args_args[] = {
    {.name = "host-port", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = slaveof_args_host_port_args},
    {.name = "no-one", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = slaveof_args_no_one_args},
    {0}};
static const cmd_arg slaveof_args[] = {
    {.name = "args", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = slaveof_args_args},
    {0}};
static const char *const wait_tips[] = {"request_policy:all_shards", "response_policy:agg_min", NULL};
static const cmd_arg wait_args[] = {
    {.name = "numreplicas", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "timeout", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};

static const cmd_arg failover_target_args[] = {
    {.name = "host", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "force", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FORCE", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg failover_args[] = {
    {.name = "target", .type = ARG_BLOCK, .key_spec_index = -1, .token = "TO", .flags = ARGF_OPTIONAL, .subargs = failover_target_args},
    {.name = "abort", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ABORT", .flags = ARGF_OPTIONAL},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "TIMEOUT", .flags = ARGF_OPTIONAL},
    {0}};

static cmd_def repl_cmds[] = {
    {.name = "psync", .proc = cmd_psync, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "2.8.0", .summary = "Internal command used for replication",
     .args = psync_args},
    {.name = "sync", .proc = cmd_sync, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0", .summary = "Internal command used for replication"},
    {.name = "replconf", .proc = cmd_replconf, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_ALLOW_BUSY, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "3.0.0",
     .summary = "An internal command for configuring the replication stream",
     .complexity = "O(1)", .doc_flags = DOC_SYSCMD},
    {.name = "replicaof", .proc = cmd_replicaof, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "5.0.0",
     .summary = "Make the server a replica of another instance, or promote it as master.",
     .complexity = "O(1)", .args = replicaof_args},
    {.name = "slaveof", .proc = cmd_slaveof, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0",
     .summary = "Make the server a replica of another instance, or promote it as master.",
     .complexity = "O(1)", .doc_flags = DOC_DEPRECATED, .deprecated_since = "5.0.0",
     .replaced_by = "`REPLICAOF`", .args = slaveof_args},
    {.name = "wait", .proc = cmd_wait, .arity = 3, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = wait_tips, .group = "generic", .since = "3.0.0",
     .summary = "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
     .complexity = "O(1)", .args = wait_args},
    {.name = "role", .proc = cmd_role, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_ADMIN | CAT_FAST | CAT_DANGEROUS,
     .group = "server", .since = "2.8.12",
     .summary = "Return the role of the instance in the context of replication",
     .complexity = "O(1)"},
    {.name = "failover", .proc = cmd_failover, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "6.2.0",
     .summary = "Start a coordinated failover between this server and one of its replicas.",
     .complexity = "O(1)", .args = failover_args},
};

void repl_register_commands(void) {
    cmd_register(repl_cmds, sizeof repl_cmds / sizeof repl_cmds[0]);
}
