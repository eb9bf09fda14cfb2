/* cmd_cluster_table: the rows of the CLUSTER command and its 7.0
 * subcommands (cmd.h's cmd_register), with flags, arity and docs as Redis
 * 7.0.15's COMMAND INFO / COMMAND DOCS give them (scripts/cmdtable_from_redis.py).
 * Every subcommand runs cmd_cluster (cmd_cluster.c). */
#include "cmd.h"
#include "cmd_cluster.h"
#include "slotmig.h"

static const cmd_arg cluster_addslots_args[] = {
    {.name = "slot", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const cluster_getkeysinslot_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_getkeysinslot_args[] = {
    {.name = "slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_reset_hard_soft_args[] = {
    {.name = "hard", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "HARD"},
    {.name = "soft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SOFT"},
    {0}};
static const cmd_arg cluster_reset_args[] = {
    {.name = "hard_soft", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = cluster_reset_hard_soft_args},
    {0}};
static const char *const cluster_meet_history[] = {"4.0.0", "Added the optional `cluster_bus_port` argument.", NULL};
static const cmd_arg cluster_meet_args[] = {
    {.name = "ip", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "cluster_bus_port", .type = ARG_INTEGER, .key_spec_index = -1, .since = "4.0.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg cluster_failover_options_args[] = {
    {.name = "force", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FORCE"},
    {.name = "takeover", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "TAKEOVER"},
    {0}};
static const cmd_arg cluster_failover_args[] = {
    {.name = "options", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = cluster_failover_options_args},
    {0}};
static const char *const cluster_count_failure_reports_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_count_failure_reports_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_set_config_epoch_args[] = {
    {.name = "config-epoch", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const char *const cluster_bumpepoch_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_keyslot_args[] = {
    {.name = "key", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const cluster_slaves_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_slaves_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_replicate_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const cluster_shards_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_setslot_subcommand_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1, .token = "IMPORTING"},
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1, .token = "MIGRATING"},
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1, .token = "NODE"},
    {.name = "stable", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "STABLE"},
    {0}};
static const cmd_arg cluster_setslot_args[] = {
    {.name = "slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "subcommand", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = cluster_setslot_subcommand_args},
    {0}};
static const cmd_arg cluster_countkeysinslot_args[] = {
    {.name = "slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_forget_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_addslotsrange_start_slot_end_slot_args[] = {
    {.name = "start-slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end-slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_addslotsrange_args[] = {
    {.name = "start-slot_end-slot", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = cluster_addslotsrange_start_slot_end_slot_args},
    {0}};
static const char *const cluster_info_tips[] = {"nondeterministic_output", NULL};
static const char *const cluster_nodes_tips[] = {"nondeterministic_output", NULL};
static const char *const cluster_slots_tips[] = {"nondeterministic_output", NULL};
static const char *const cluster_slots_history[] = {"4.0.0", "Added node IDs.", "7.0.0", "Added additional networking metadata field.", NULL};
static const char *const cluster_replicas_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg cluster_replicas_args[] = {
    {.name = "node-id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_delslots_args[] = {
    {.name = "slot", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg cluster_delslotsrange_start_slot_end_slot_args[] = {
    {.name = "start-slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end-slot", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg cluster_delslotsrange_args[] = {
    {.name = "start-slot_end-slot", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = cluster_delslotsrange_start_slot_end_slot_args},
    {0}};
static const char *const cluster_links_tips[] = {"nondeterministic_output", NULL};

/* ---- commands.c: key specs (and subcommands) ---- */
static cmd_def cluster_subcmds[] = {
    {.name = "addslots", .proc = cmd_cluster, .arity = -3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0", .summary = "Assign new hash slots to receiving node",
     .complexity = "O(N) where N is the total number of hash slot arguments",
     .args = cluster_addslots_args},
    {.name = "getkeysinslot", .proc = cmd_cluster, .arity = 4, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_getkeysinslot_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Return local key names in the specified hash slot",
     .complexity = "O(log(N)) where N is the number of requested keys",
     .args = cluster_getkeysinslot_args},
    {.name = "flushslots", .proc = cmd_cluster, .arity = 2, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0", .summary = "Delete a node's own slots information",
     .complexity = "O(1)"},
    {.name = "reset", .proc = cmd_cluster, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0", .summary = "Reset a Redis Cluster node",
     .complexity = "O(N) where N is the number of known nodes. The command may execute a FLUSHALL as a side effect.",
     .args = cluster_reset_args},
    {.name = "meet", .proc = cmd_cluster, .arity = -4, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Force a node cluster to handshake with another node", .complexity = "O(1)",
     .history = cluster_meet_history, .args = cluster_meet_args},
    {.name = "failover", .proc = cmd_cluster, .arity = -2, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Forces a replica to perform a manual failover of its master.",
     .complexity = "O(1)", .args = cluster_failover_args},
    {.name = "count-failure-reports", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = cluster_count_failure_reports_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Return the number of failure reports active for a given node",
     .complexity = "O(N) where N is the number of failure reports",
     .args = cluster_count_failure_reports_args},
    {.name = "set-config-epoch", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Set the configuration epoch in a new node", .complexity = "O(1)",
     .args = cluster_set_config_epoch_args},
    {.name = "bumpepoch", .proc = cmd_cluster, .arity = 2, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = cluster_bumpepoch_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Advance the cluster config epoch", .complexity = "O(1)"},
    {.name = "keyslot", .proc = cmd_cluster, .arity = 3, .flags = CMD_STALE, .acl = CAT_SLOW,
     .group = "cluster", .since = "3.0.0",
     .summary = "Returns the hash slot of the specified key",
     .complexity = "O(N) where N is the number of bytes in the key",
     .args = cluster_keyslot_args},
    {.name = "slaves", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = cluster_slaves_tips, .group = "cluster", .since = "3.0.0",
     .summary = "List replica nodes of the specified master node", .complexity = "O(1)",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "5.0.0",
     .replaced_by = "`CLUSTER REPLICAS`", .args = cluster_slaves_args},
    {.name = "replicate", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Reconfigure a node as a replica of the specified master node",
     .complexity = "O(1)", .args = cluster_replicate_args},
    {.name = "shards", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_shards_tips, .group = "cluster", .since = "7.0.0",
     .summary = "Get array of cluster slots to node mappings",
     .complexity = "O(N) where N is the total number of cluster nodes"},
    {.name = "help", .proc = cmd_cluster, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "cluster", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "setslot", .proc = cmd_cluster, .arity = -4, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0", .summary = "Bind a hash slot to a specific node",
     .complexity = "O(1)", .args = cluster_setslot_args},
    {.name = "saveconfig", .proc = cmd_cluster, .arity = 2, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Forces the node to save cluster state on disk", .complexity = "O(1)"},
    {.name = "countkeysinslot", .proc = cmd_cluster, .arity = 3, .flags = CMD_STALE, .acl = CAT_SLOW,
     .group = "cluster", .since = "3.0.0",
     .summary = "Return the number of local keys in the specified hash slot",
     .complexity = "O(1)", .args = cluster_countkeysinslot_args},
    {.name = "forget", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0", .summary = "Remove a node from the nodes table",
     .complexity = "O(1)", .args = cluster_forget_args},
    {.name = "addslotsrange", .proc = cmd_cluster, .arity = -4, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "7.0.0", .summary = "Assign new hash slots to receiving node",
     .complexity = "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
     .args = cluster_addslotsrange_args},
    {.name = "myid", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .group = "cluster", .since = "3.0.0", .summary = "Return the node id",
     .complexity = "O(1)"},
    {.name = "info", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_info_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Provides info about Redis Cluster node state", .complexity = "O(1)"},
    {.name = "nodes", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_nodes_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Get Cluster config for the node",
     .complexity = "O(N) where N is the total number of Cluster nodes"},
    {.name = "slots", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_slots_tips, .group = "cluster", .since = "3.0.0",
     .summary = "Get array of Cluster slot to node mappings",
     .complexity = "O(N) where N is the total number of Cluster nodes",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "7.0.0",
     .replaced_by = "`CLUSTER SHARDS`", .history = cluster_slots_history},
    {.name = "replicas", .proc = cmd_cluster, .arity = 3, .flags = CMD_ADMIN | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = cluster_replicas_tips, .group = "cluster", .since = "5.0.0",
     .summary = "List replica nodes of the specified master node", .complexity = "O(1)",
     .args = cluster_replicas_args},
    {.name = "delslots", .proc = cmd_cluster, .arity = -3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "3.0.0",
     .summary = "Set hash slots as unbound in receiving node",
     .complexity = "O(N) where N is the total number of hash slot arguments",
     .args = cluster_delslots_args},
    {.name = "delslotsrange", .proc = cmd_cluster, .arity = -4, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "7.0.0",
     .summary = "Set hash slots as unbound in receiving node",
     .complexity = "O(N) where N is the total number of the slots between the start slot and end slot arguments.",
     .args = cluster_delslotsrange_args},
    {.name = "links", .proc = cmd_cluster, .arity = 2, .flags = CMD_STALE, .acl = CAT_SLOW,
     .tips = cluster_links_tips, .group = "cluster", .since = "7.0.0",
     .summary = "Returns a list of all TCP links to and from peer nodes in cluster",
     .complexity = "O(N) where N is the total number of Cluster nodes"},
    /* Valkey 9.0's atomic slot migration (slotmig_cmd.c) */
    {.name = "migrateslots", .proc = sm_cmd_migrateslots, .arity = -7, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "9.0.0",
     .summary = "Migrate the given slots to the given node atomically, without fork",
     .complexity = "O(N) where N is the total number of the slots between all start slot and end slot arguments."},
    {.name = "getslotmigrations", .proc = sm_cmd_getslotmigrations, .arity = 2, .flags = CMD_ADMIN | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "9.0.0",
     .summary = "Get the status of ongoing and recently finished slot import and export operations",
     .complexity = "O(N), where N is the number of active slot import and export jobs."},
    {.name = "cancelslotmigrations", .proc = sm_cmd_cancelslotmigrations, .arity = 2, .flags = CMD_ADMIN | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "9.0.0",
     .summary = "Cancel all current ongoing slot migration operations", .complexity = "O(N)"},
    {.name = "syncslots", .proc = sm_cmd_syncslots, .arity = -3, .flags = CMD_ADMIN | CMD_STALE | CMD_NO_ASYNC_LOADING | CMD_REPLAYED, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "cluster", .since = "9.0.0",
     .summary = "An internal command of atomic slot migration (ESTABLISH, FINISH, ABORT)",
     .complexity = "Depends on subcommand."},
    {0}};

static cmd_def cluster_cmds[] = {
    {.name = "cluster", .proc = cmd_cluster, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "cluster", .since = "3.0.0", .summary = "A container for cluster commands",
     .complexity = "Depends on subcommand.", .subcmds = cluster_subcmds},
};

void cl_cmd_register(void) { cmd_register(cluster_cmds, sizeof cluster_cmds / sizeof cluster_cmds[0]); }
