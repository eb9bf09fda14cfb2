/* commands: the declarative command table. One entry per command (and per
 * subcommand of a container): what the dispatcher checks (arity, flags),
 * where the keys are (Redis 7 key specs, from which cmd_get_keys, COMMAND
 * GETKEYS, COMMAND INFO's legacy range and the AOF's in-flight key tracking
 * are derived), and what COMMAND INFO / COMMAND DOCS report. Flags, ACL
 * categories, key specs and docs are Redis 7.0.15's for the same commands
 * (argument docs are in commands_doc.h). To add a command of the core: its
 * handler in cmd.h, its key specs here, its entry in `table`. A subsystem's
 * commands (snapshot/, aof/, repl/: SAVE, DUMP, FUNCTION DUMP, BGREWRITEAOF,
 * PSYNC, ROLE...) are not here: their rows live beside their handlers and
 * are registered at startup (cmd.h's cmd_register). No size limit: cmd.c's
 * lookup is sized from the table and the registered rows at startup.
 * scripts/cmdtable_from_redis.py prints entries for commands Redis 7.0 has,
 * to paste. */
#include "cmd.h"

#include <stddef.h>

#include "commands_doc.h"

static const cmd_key_spec get_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec set_keys[] = {
    {.notes = "RW and ACCESS due to the optional `GET` argument", .flags = KS_RW | KS_ACCESS | KS_UPDATE | KS_VARIABLE_FLAGS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec setnx_keys[] = {
    {.flags = KS_OW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec setex_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec psetex_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec getset_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec getdel_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec getex_keys[] = {
    {.notes = "RW and UPDATE because it changes the TTL", .flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec mget_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec mset_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(-1, 2, 0)},
};
static const cmd_key_spec msetnx_keys[] = {
    {.flags = KS_OW | KS_INSERT, BS_INDEX(1), FK_RANGE(-1, 2, 0)},
};
static const cmd_key_spec append_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec strlen_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec incr_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec decr_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec incrby_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec decrby_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec incrbyfloat_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec getrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec substr_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec setrange_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec del_keys[] = {
    {.flags = KS_RM | KS_DELETE, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec unlink_keys[] = {
    {.flags = KS_RM | KS_DELETE, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec exists_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec type_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec touch_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec rename_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec renamenx_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec copy_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec move_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec object_encoding_keys[] = {
    {.flags = KS_RO, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec object_freq_keys[] = {
    {.flags = KS_RO, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec object_idletime_keys[] = {
    {.flags = KS_RO, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec object_refcount_keys[] = {
    {.flags = KS_RO, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static cmd_def object_subcmds[] = {
    {.name = "encoding", .proc = cmd_object, .arity = 3, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW, KEY_SPECS(object_encoding_keys),
     .tips = object_encoding_tips, .group = "generic", .since = "2.2.3",
     .summary = "Inspect the internal encoding of a Redis object", .complexity = "O(1)",
     .args = object_encoding_args},
    {.name = "freq", .proc = cmd_object, .arity = 3, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW, KEY_SPECS(object_freq_keys),
     .tips = object_freq_tips, .group = "generic", .since = "4.0.0",
     .summary = "Get the logarithmic access frequency counter of a Redis object",
     .complexity = "O(1)", .args = object_freq_args},
    {.name = "help", .proc = cmd_object, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_KEYSPACE | CAT_SLOW,
     .group = "generic", .since = "6.2.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "idletime", .proc = cmd_object, .arity = 3, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW, KEY_SPECS(object_idletime_keys),
     .tips = object_idletime_tips, .group = "generic", .since = "2.2.3",
     .summary = "Get the time since a Redis object was last accessed", .complexity = "O(1)",
     .args = object_idletime_args},
    {.name = "refcount", .proc = cmd_object, .arity = 3, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW, KEY_SPECS(object_refcount_keys),
     .tips = object_refcount_tips, .group = "generic", .since = "2.2.3",
     .summary = "Get the number of references to the value of the key", .complexity = "O(1)",
     .args = object_refcount_args},
    {0}};
static const cmd_key_spec sort_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.notes = "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", .flags = KS_RO | KS_ACCESS, BS_UNKNOWN, FK_UNKNOWN},
    {.notes = "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", .flags = KS_OW | KS_UPDATE, BS_UNKNOWN, FK_UNKNOWN},
};
static const cmd_key_spec sort_ro_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.notes = "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", .flags = KS_RO | KS_ACCESS, BS_UNKNOWN, FK_UNKNOWN},
};
static const cmd_key_spec expire_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pexpire_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec expireat_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pexpireat_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec expiretime_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pexpiretime_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec ttl_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pttl_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec watch_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec persist_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static cmd_def config_subcmds[] = {
    {.name = "rewrite", .proc = cmd_config, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "2.8.0",
     .summary = "Rewrite the configuration file with the in memory configuration",
     .complexity = "O(1)"},
    {.name = "get", .proc = cmd_config, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "2.0.0",
     .summary = "Get the values of configuration parameters",
     .complexity = "O(N) when N is the number of configuration parameters provided",
     .history = config_get_history, .args = config_get_args},
    {.name = "set", .proc = cmd_config, .arity = -4, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = config_set_tips, .group = "server", .since = "2.0.0",
     .summary = "Set configuration parameters to the given values",
     .complexity = "O(N) when N is the number of configuration parameters provided",
     .history = config_set_history, .args = config_set_args},
    {.name = "resetstat", .proc = cmd_config, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "2.0.0", .summary = "Reset the stats returned by INFO",
     .complexity = "O(1)"},
    {.name = "help", .proc = cmd_config, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {0}};
static cmd_def command_subcmds[] = {
    {.name = "count", .proc = cmd_command, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "server", .since = "2.8.13", .summary = "Get total number of Redis commands",
     .complexity = "O(1)"},
    {.name = "docs", .proc = cmd_command, .arity = -2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = command_docs_tips, .group = "server", .since = "7.0.0",
     .summary = "Get array of specific Redis command documentation",
     .complexity = "O(N) where N is the number of commands to look up",
     .args = command_docs_args},
    {.name = "getkeys", .proc = cmd_command, .arity = -4, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "server", .since = "2.8.13", .summary = "Extract keys given a full Redis command",
     .complexity = "O(N) where N is the number of arguments to the command"},
    {.name = "getkeysandflags", .proc = cmd_command, .arity = -4, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "server", .since = "7.0.0",
     .summary = "Extract keys and access flags given a full Redis command",
     .complexity = "O(N) where N is the number of arguments to the command"},
    {.name = "info", .proc = cmd_command, .arity = -2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = command_info_tips, .group = "server", .since = "2.8.13",
     .summary = "Get array of specific Redis command details, or all when no argument is given.",
     .complexity = "O(N) where N is the number of commands to look up",
     .history = command_info_history, .args = command_info_args},
    {.name = "list", .proc = cmd_command, .arity = -2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = command_list_tips, .group = "server", .since = "7.0.0",
     .summary = "Get an array of Redis command names",
     .complexity = "O(N) where N is the total number of Redis commands",
     .args = command_list_args},
    {.name = "help", .proc = cmd_command, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "server", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {0}};
static cmd_def module_subcmds[] = {
    {.name = "loadex", .proc = cmd_module, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_PROTECTED, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "7.0.0", .summary = "Load a module with extended parameters",
     .complexity = "O(1)", .args = module_loadex_args},
    {.name = "help", .proc = cmd_module, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "load", .proc = cmd_module, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_PROTECTED, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "4.0.0", .summary = "Load a module", .complexity = "O(1)",
     .args = module_load_args},
    {.name = "list", .proc = cmd_module, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = module_list_tips, .group = "server", .since = "4.0.0",
     .summary = "List all modules loaded by the server",
     .complexity = "O(N) where N is the number of loaded modules."},
    {.name = "unload", .proc = cmd_module, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_PROTECTED, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "4.0.0", .summary = "Unload a module", .complexity = "O(1)",
     .args = module_unload_args},
    {0}};
static cmd_def client_subcmds[] = {
    {.name = "caching", .proc = cmd_client, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "6.0.0",
     .summary = "Instruct the server about tracking or not keys in the next request",
     .complexity = "O(1)", .args = client_caching_args},
    {.name = "unpause", .proc = cmd_client, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .group = "connection", .since = "6.2.0",
     .summary = "Resume processing of clients that were paused",
     .complexity = "O(N) Where N is the number of paused clients"},
    {.name = "unblock", .proc = cmd_client, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .group = "connection", .since = "5.0.0",
     .summary = "Unblock a client blocked in a blocking command from a different connection",
     .complexity = "O(log N) where N is the number of client connections",
     .args = client_unblock_args},
    {.name = "id", .proc = cmd_client, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "5.0.0",
     .summary = "Returns the client ID for the current connection", .complexity = "O(1)"},
    {.name = "getredir", .proc = cmd_client, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "6.0.0",
     .summary = "Get tracking notifications redirection client ID if any", .complexity = "O(1)"},
    {.name = "no-evict", .proc = cmd_client, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .group = "connection", .since = "7.0.0",
     .summary = "Set client eviction mode for the current connection", .complexity = "O(1)",
     .args = client_no_evict_args},
    {.name = "tracking", .proc = cmd_client, .arity = -3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "6.0.0",
     .summary = "Enable or disable server assisted client side caching support",
     .complexity = "O(1). Some options may introduce additional complexity.",
     .args = client_tracking_args},
    {.name = "kill", .proc = cmd_client, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .group = "connection", .since = "2.4.0", .summary = "Kill the connection of a client",
     .complexity = "O(N) where N is the number of client connections",
     .history = client_kill_history, .args = client_kill_args},
    {.name = "trackinginfo", .proc = cmd_client, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "6.2.0",
     .summary = "Return information about server assisted client side caching for the current connection",
     .complexity = "O(1)"},
    {.name = "help", .proc = cmd_client, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "reply", .proc = cmd_client, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "3.2.0",
     .summary = "Instruct the server whether to reply to commands", .complexity = "O(1)",
     .args = client_reply_args},
    {.name = "info", .proc = cmd_client, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = client_info_tips, .group = "connection", .since = "6.2.0",
     .summary = "Returns information about the current client connection.",
     .complexity = "O(1)"},
    {.name = "getname", .proc = cmd_client, .arity = 2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "2.6.9", .summary = "Get the current connection name",
     .complexity = "O(1)"},
    {.name = "pause", .proc = cmd_client, .arity = -3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .group = "connection", .since = "2.9.50",
     .summary = "Stop processing commands from clients for some time", .complexity = "O(1)",
     .history = client_pause_history, .args = client_pause_args},
    {.name = "list", .proc = cmd_client, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS | CAT_CONNECTION,
     .tips = client_list_tips, .group = "connection", .since = "2.4.0",
     .summary = "Get the list of client connections",
     .complexity = "O(N) where N is the number of client connections",
     .history = client_list_history, .args = client_list_args},
    {.name = "setname", .proc = cmd_client, .arity = 3, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .group = "connection", .since = "2.6.9", .summary = "Set the current connection name",
     .complexity = "O(1)", .args = client_setname_args},
    /* client|setinfo: not in Redis 7.0 (7.2's), kept for clients that send it */
    {.name = "setinfo", .proc = cmd_client, .arity = 4, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION, .group = "connection", .since = "7.2.0", .summary = "Sets information specific to the client or connection.", .complexity = "O(1)"},
    {0}};

/* ---- collections and MEMORY ---- */
static const cmd_key_spec hset_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hsetnx_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hget_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hmget_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hmset_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hdel_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hlen_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hstrlen_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hexists_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hkeys_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hvals_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hgetall_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hincrby_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hincrbyfloat_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hrandfield_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec hscan_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lpush_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec rpush_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lpushx_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec rpushx_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec rpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec llen_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lindex_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lset_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec linsert_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lrem_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec ltrim_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lpos_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lmove_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec rpoplpush_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lmpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec blpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(-2, 1, 0)},
};
static const cmd_key_spec brpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(-2, 1, 0)},
};
static const cmd_key_spec blmove_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec brpoplpush_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec blmpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec sadd_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec srem_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec scard_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec sismember_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec smismember_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec smembers_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec srandmember_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec spop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec smove_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec sinter_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sintercard_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec sunion_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sdiff_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sinterstore_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sunionstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sdiffstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sscan_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zadd_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zincrby_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrem_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zcard_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zcount_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zlexcount_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zscore_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zmscore_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrank_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrevrank_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrangestore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrevrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrangebyscore_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrevrangebyscore_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrangebylex_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zrevrangebylex_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zremrangebyrank_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zremrangebyscore_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zremrangebylex_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zpopmin_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zpopmax_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec bzpopmin_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(-2, 1, 0)},
};
static const cmd_key_spec bzpopmax_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_RANGE(-2, 1, 0)},
};
static const cmd_key_spec zmpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec bzmpop_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zrandmember_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec zunion_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zinter_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zdiff_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zunionstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zinterstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zdiffstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zintercard_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec zscan_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
/* streams: entries (cmd_stream.c) */
static const cmd_key_spec xadd_keys[] = {
    {.notes = "UPDATE instead of INSERT because of the optional trimming feature", .flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xdel_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xlen_keys[] = {
    {.flags = KS_RO, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xread_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_KEYWORD("STREAMS", 1), FK_RANGE(-1, 1, 2)},
};
static const cmd_key_spec xrevrange_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xsetid_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xtrim_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
/* streams: consumer groups (cmd_stream_cg.c) */
static const cmd_key_spec xack_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xautoclaim_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xclaim_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xgroup_setid_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xgroup_delconsumer_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xgroup_create_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xgroup_destroy_keys[] = {
    {.flags = KS_RW | KS_DELETE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xgroup_createconsumer_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static cmd_def xgroup_subcmds[] = {
    {.name = "setid", .proc = cmd_xgroup, .arity = -5, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xgroup_setid_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Set a consumer group to an arbitrary last delivered ID value.",
     .complexity = "O(1)", .history = xgroup_setid_history, .args = xgroup_setid_args},
    {.name = "delconsumer", .proc = cmd_xgroup, .arity = 5, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xgroup_delconsumer_keys),
     .group = "stream", .since = "5.0.0", .summary = "Delete a consumer from a consumer group.",
     .complexity = "O(1)", .args = xgroup_delconsumer_args},
    {.name = "create", .proc = cmd_xgroup, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xgroup_create_keys),
     .group = "stream", .since = "5.0.0", .summary = "Create a consumer group.",
     .complexity = "O(1)", .history = xgroup_create_history, .args = xgroup_create_args},
    {.name = "destroy", .proc = cmd_xgroup, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xgroup_destroy_keys),
     .group = "stream", .since = "5.0.0", .summary = "Destroy a consumer group.",
     .complexity = "O(N) where N is the number of entries in the group's pending entries list (PEL).",
     .args = xgroup_destroy_args},
    {.name = "createconsumer", .proc = cmd_xgroup, .arity = 5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xgroup_createconsumer_keys),
     .group = "stream", .since = "6.2.0", .summary = "Create a consumer in a consumer group.",
     .complexity = "O(1)", .args = xgroup_createconsumer_args},
    {.name = "help", .proc = cmd_xgroup, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_STREAM | CAT_SLOW,
     .group = "stream", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {0}};
static const cmd_key_spec xinfo_groups_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xinfo_consumers_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xinfo_stream_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static cmd_def xinfo_subcmds[] = {
    {.name = "groups", .proc = cmd_xinfo, .arity = 3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xinfo_groups_keys),
     .group = "stream", .since = "5.0.0", .summary = "List the consumer groups of a stream",
     .complexity = "O(1)", .history = xinfo_groups_history, .args = xinfo_groups_args},
    {.name = "consumers", .proc = cmd_xinfo, .arity = 4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xinfo_consumers_keys),
     .tips = xinfo_consumers_tips, .group = "stream", .since = "5.0.0",
     .summary = "List the consumers in a consumer group", .complexity = "O(1)",
     .args = xinfo_consumers_args},
    {.name = "stream", .proc = cmd_xinfo, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xinfo_stream_keys),
     .group = "stream", .since = "5.0.0", .summary = "Get information about a stream",
     .complexity = "O(1)", .history = xinfo_stream_history, .args = xinfo_stream_args},
    {.name = "help", .proc = cmd_xinfo, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_STREAM | CAT_SLOW,
     .group = "stream", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {0}};
static const cmd_key_spec xpending_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec xreadgroup_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_KEYWORD("STREAMS", 4), FK_RANGE(-1, 1, 2)},
};
static const cmd_key_spec memory_usage_keys[] = {
    {.flags = KS_RO, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static cmd_def memory_subcmds[] = {
    {.name = "doctor", .proc = cmd_memory, .arity = 2, .flags = 0, .acl = CAT_SLOW,
     .tips = memory_doctor_tips, .group = "server", .since = "4.0.0",
     .summary = "Outputs memory problems report", .complexity = "O(1)"},
    {.name = "purge", .proc = cmd_memory, .arity = 2, .flags = 0, .acl = CAT_SLOW,
     .tips = memory_purge_tips, .group = "server", .since = "4.0.0",
     .summary = "Ask the allocator to release memory",
     .complexity = "Depends on how much memory is allocated, could be slow"},
    {.name = "malloc-stats", .proc = cmd_memory, .arity = 2, .flags = 0, .acl = CAT_SLOW,
     .tips = memory_malloc_stats_tips, .group = "server", .since = "4.0.0",
     .summary = "Show allocator internal stats",
     .complexity = "Depends on how much memory is allocated, could be slow"},
    {.name = "help", .proc = cmd_memory, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "4.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "usage", .proc = cmd_memory, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SLOW, KEY_SPECS(memory_usage_keys),
     .group = "server", .since = "4.0.0", .summary = "Estimate the memory usage of a key",
     .complexity = "O(N) where N is the number of samples.", .args = memory_usage_args},
    {.name = "stats", .proc = cmd_memory, .arity = 2, .flags = 0, .acl = CAT_SLOW,
     .tips = memory_stats_tips, .group = "server", .since = "4.0.0",
     .summary = "Show memory usage details", .complexity = "O(1)"},
    {0}};

static cmd_def pubsub_subcmds[] = {
    {.name = "numsub", .proc = cmd_pubsub, .arity = -2, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.8.0",
     .summary = "Get the count of subscribers for channels",
     .complexity = "O(N) for the NUMSUB subcommand, where N is the number of requested channels",
     .args = pubsub_numsub_args},
    {.name = "numpat", .proc = cmd_pubsub, .arity = 2, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.8.0",
     .summary = "Get the count of unique patterns pattern subscriptions", .complexity = "O(1)"},
    {.name = "help", .proc = cmd_pubsub, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "pubsub", .since = "6.2.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "channels", .proc = cmd_pubsub, .arity = -2, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.8.0", .summary = "List active channels",
     .complexity = "O(N) where N is the number of active channels, and assuming constant time pattern matching (relatively short channels and patterns)",
     .args = pubsub_channels_args},
    {.name = "shardnumsub", .proc = cmd_pubsub, .arity = -2, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "7.0.0",
     .summary = "Get the count of subscribers for shard channels",
     .complexity = "O(N) for the SHARDNUMSUB subcommand, where N is the number of requested shard channels",
     .args = pubsub_shardnumsub_args},
    {.name = "shardchannels", .proc = cmd_pubsub, .arity = -2, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "7.0.0", .summary = "List active shard channels",
     .complexity = "O(N) where N is the number of active shard channels, and assuming constant time pattern matching (relatively short shard channels).",
     .args = pubsub_shardchannels_args},
    {0}};
static const cmd_key_spec spublish_keys[] = {
    {.flags = KS_NOT_KEY, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec ssubscribe_keys[] = {
    {.flags = KS_NOT_KEY, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec sunsubscribe_keys[] = {
    {.flags = KS_NOT_KEY, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static cmd_def script_subcmds[] = {
    {.name = "flush", .proc = cmd_script, .arity = -2, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = script_flush_tips, .group = "scripting", .since = "2.6.0",
     .summary = "Remove all the scripts from the script cache.",
     .complexity = "O(N) with N being the number of scripts in cache",
     .history = script_flush_history, .args = script_flush_args},
    {.name = "debug", .proc = cmd_script, .arity = 3, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_SCRIPTING,
     .group = "scripting", .since = "3.2.0",
     .summary = "Set the debug mode for executed scripts.", .complexity = "O(1)",
     .args = script_debug_args},
    {.name = "help", .proc = cmd_script, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_SCRIPTING,
     .group = "scripting", .since = "5.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "exists", .proc = cmd_script, .arity = -3, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = script_exists_tips, .group = "scripting", .since = "2.6.0",
     .summary = "Check existence of scripts in the script cache.",
     .complexity = "O(N) with N being the number of scripts to check (so checking a single script is an O(1) operation).",
     .args = script_exists_args},
    {.name = "kill", .proc = cmd_script, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = script_kill_tips, .group = "scripting", .since = "2.6.0",
     .summary = "Kill the script currently in execution.", .complexity = "O(1)"},
    {.name = "load", .proc = cmd_script, .arity = 3, .flags = CMD_NOSCRIPT | CMD_STALE, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = script_load_tips, .group = "scripting", .since = "2.6.0",
     .summary = "Load the specified Lua script into the script cache.",
     .complexity = "O(N) with N being the length in bytes of the script body.",
     .args = script_load_args},
    {0}};

/* issue 11 */
static const cmd_key_spec eval_keys[] = {
    {.notes = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", .flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec evalsha_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec eval_ro_keys[] = {
    {.notes = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", .flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec evalsha_ro_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static cmd_def function_subcmds[] = {
    {.name = "flush", .proc = cmd_function, .arity = -2, .flags = CMD_WRITE | CMD_NOSCRIPT, .acl = CAT_WRITE | CAT_SLOW | CAT_SCRIPTING,
     .tips = function_flush_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Deleting all functions",
     .complexity = "O(N) where N is the number of functions deleted",
     .args = function_flush_args},
    {.name = "kill", .proc = cmd_function, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = function_kill_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Kill the function currently in execution.", .complexity = "O(1)"},
    {.name = "load", .proc = cmd_function, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT, .acl = CAT_WRITE | CAT_SLOW | CAT_SCRIPTING,
     .tips = function_load_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Create a function with the given arguments (name, code, description)",
     .complexity = "O(1) (considering compilation time is redundant)",
     .args = function_load_args},
    {.name = "list", .proc = cmd_function, .arity = -2, .flags = CMD_NOSCRIPT, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = function_list_tips, .group = "scripting", .since = "7.0.0",
     .summary = "List information about all the functions",
     .complexity = "O(N) where N is the number of functions", .args = function_list_args},
    {.name = "delete", .proc = cmd_function, .arity = 3, .flags = CMD_WRITE | CMD_NOSCRIPT, .acl = CAT_WRITE | CAT_SLOW | CAT_SCRIPTING,
     .tips = function_delete_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Delete a function by name", .complexity = "O(1)", .args = function_delete_args},
    {.name = "help", .proc = cmd_function, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_SCRIPTING,
     .group = "scripting", .since = "7.0.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {.name = "stats", .proc = cmd_function, .arity = 2, .flags = CMD_NOSCRIPT | CMD_ALLOW_BUSY, .acl = CAT_SLOW | CAT_SCRIPTING,
     .tips = function_stats_tips, .group = "scripting", .since = "7.0.0",
     .summary = "Return information about the function currently running (name, description, duration)",
     .complexity = "O(1)"},
    {0}};
static const cmd_key_spec fcall_keys[] = {
    {.notes = "We cannot tell how the keys will be used so we assume the worst, RW and UPDATE", .flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec fcall_ro_keys[] = {
    {.notes = "We cannot tell how the keys will be used so we assume the worst, RO and ACCESS", .flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec setbit_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec getbit_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec bitcount_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec bitpos_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec bitop_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(2), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(3), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec bitfield_keys[] = {
    {.notes = "This command allows both access and modification of the key", .flags = KS_RW | KS_ACCESS | KS_UPDATE | KS_VARIABLE_FLAGS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec bitfield_ro_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pfadd_keys[] = {
    {.flags = KS_RW | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec pfcount_keys[] = {
    {.notes = "RW because it may change the internal representation of the key, and propagate to replicas", .flags = KS_RW | KS_ACCESS, BS_INDEX(1), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec pfmerge_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_INSERT, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(-1, 1, 0)},
};
static const cmd_key_spec pfdebug_keys[] = {
    {.flags = KS_RW | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geoadd_keys[] = {
    {.flags = KS_RW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geodist_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geohash_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geopos_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geosearch_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec geosearchstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec georadius_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_KEYWORD("STORE", 6), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_KEYWORD("STOREDIST", 6), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec georadius_ro_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec georadiusbymember_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_KEYWORD("STORE", 5), FK_RANGE(0, 1, 0)},
    {.flags = KS_OW | KS_UPDATE, BS_KEYWORD("STOREDIST", 5), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec georadiusbymember_ro_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec lcs_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(1, 1, 0)},
};
static cmd_def slowlog_subcmds[] = {
    {.name = "len", .proc = cmd_slowlog, .arity = 2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = slowlog_len_tips, .group = "server", .since = "2.2.12",
     .summary = "Get the slow log's length", .complexity = "O(1)"},
    {.name = "reset", .proc = cmd_slowlog, .arity = 2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = slowlog_reset_tips, .group = "server", .since = "2.2.12",
     .summary = "Clear all entries from the slow log",
     .complexity = "O(N) where N is the number of entries in the slowlog"},
    {.name = "get", .proc = cmd_slowlog, .arity = -2, .flags = CMD_ADMIN | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = slowlog_get_tips, .group = "server", .since = "2.2.12",
     .summary = "Get the slow log's entries",
     .complexity = "O(N) where N is the number of entries returned",
     .history = slowlog_get_history, .args = slowlog_get_args},
    {.name = "help", .proc = cmd_slowlog, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "6.2.0",
     .summary = "Show helpful text about the different subcommands", .complexity = "O(1)"},
    {0}};
static cmd_def latency_subcmds[] = {
    {.name = "graph", .proc = cmd_latency, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_graph_tips, .group = "server", .since = "2.8.13",
     .summary = "Return a latency graph for the event.", .complexity = "O(1)",
     .args = latency_graph_args},
    {.name = "histogram", .proc = cmd_latency, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_histogram_tips, .group = "server", .since = "7.0.0",
     .summary = "Return the cumulative distribution of latencies of a subset of commands or all.",
     .complexity = "O(N) where N is the number of commands with latency information being retrieved.",
     .args = latency_histogram_args},
    {.name = "latest", .proc = cmd_latency, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_latest_tips, .group = "server", .since = "2.8.13",
     .summary = "Return the latest latency samples for all events.", .complexity = "O(1)"},
    {.name = "history", .proc = cmd_latency, .arity = 3, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_history_tips, .group = "server", .since = "2.8.13",
     .summary = "Return timestamp-latency samples for the event.", .complexity = "O(1)",
     .args = latency_history_args},
    {.name = "doctor", .proc = cmd_latency, .arity = 2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_doctor_tips, .group = "server", .since = "2.8.13",
     .summary = "Return a human readable latency analysis report.", .complexity = "O(1)"},
    {.name = "reset", .proc = cmd_latency, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .tips = latency_reset_tips, .group = "server", .since = "2.8.13",
     .summary = "Reset latency data for one or more events.", .complexity = "O(1)",
     .args = latency_reset_args},
    {.name = "help", .proc = cmd_latency, .arity = 2, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW,
     .group = "server", .since = "2.8.13",
     .summary = "Show helpful text about the different subcommands.", .complexity = "O(1)"},
    {0}};

static cmd_def table[] = {
    /* strings */
    {.name = "get", .proc = cmd_get, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_STRING | CAT_FAST, KEY_SPECS(get_keys),
     .group = "string", .since = "1.0.0", .summary = "Get the value of a key",
     .complexity = "O(1)", .args = get_args},
    {.name = "set", .proc = cmd_set, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(set_keys), .getkeys = set_getkeys,
     .group = "string", .since = "1.0.0", .summary = "Set the string value of a key",
     .complexity = "O(1)", .history = set_history, .args = set_args},
    {.name = "setnx", .proc = cmd_setnx, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(setnx_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Set the value of a key, only if the key does not exist", .complexity = "O(1)",
     .args = setnx_args},
    {.name = "setex", .proc = cmd_setex, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(setex_keys),
     .group = "string", .since = "2.0.0", .summary = "Set the value and expiration of a key",
     .complexity = "O(1)", .args = setex_args},
    {.name = "psetex", .proc = cmd_psetex, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(psetex_keys),
     .group = "string", .since = "2.6.0",
     .summary = "Set the value and expiration in milliseconds of a key", .complexity = "O(1)",
     .args = psetex_args},
    {.name = "getset", .proc = cmd_getset, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(getset_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Set the string value of a key and return its old value", .complexity = "O(1)",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`SET` with the `!GET` argument", .args = getset_args},
    {.name = "getdel", .proc = cmd_getdel, .arity = 2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(getdel_keys),
     .group = "string", .since = "6.2.0",
     .summary = "Get the value of a key and delete the key", .complexity = "O(1)",
     .args = getdel_args},
    {.name = "getex", .proc = cmd_getex, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(getex_keys),
     .group = "string", .since = "6.2.0",
     .summary = "Get the value of a key and optionally set its expiration",
     .complexity = "O(1)", .args = getex_args},
    {.name = "mget", .proc = cmd_mget, .arity = -2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_STRING | CAT_FAST, KEY_SPECS(mget_keys),
     .tips = mget_tips, .group = "string", .since = "1.0.0",
     .summary = "Get the values of all the given keys",
     .complexity = "O(N) where N is the number of keys to retrieve.", .args = mget_args},
    {.name = "mset", .proc = cmd_mset, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(mset_keys),
     .tips = mset_tips, .group = "string", .since = "1.0.1",
     .summary = "Set multiple keys to multiple values",
     .complexity = "O(N) where N is the number of keys to set.", .args = mset_args},
    {.name = "msetnx", .proc = cmd_msetnx, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(msetnx_keys),
     .tips = msetnx_tips, .group = "string", .since = "1.0.1",
     .summary = "Set multiple keys to multiple values, only if none of the keys exist",
     .complexity = "O(N) where N is the number of keys to set.", .args = msetnx_args},
    {.name = "append", .proc = cmd_append, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(append_keys),
     .group = "string", .since = "2.0.0", .summary = "Append a value to a key",
     .complexity = "O(1). The amortized time complexity is O(1) assuming the appended value is small and the already present value is of any size, since the dynamic string library used by Redis will double the free space available on every reallocation.",
     .args = append_args},
    {.name = "strlen", .proc = cmd_strlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_STRING | CAT_FAST, KEY_SPECS(strlen_keys),
     .group = "string", .since = "2.2.0",
     .summary = "Get the length of the value stored in a key", .complexity = "O(1)",
     .args = strlen_args},
    {.name = "incr", .proc = cmd_incr, .arity = 2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(incr_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Increment the integer value of a key by one", .complexity = "O(1)",
     .args = incr_args},
    {.name = "decr", .proc = cmd_decr, .arity = 2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(decr_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Decrement the integer value of a key by one", .complexity = "O(1)",
     .args = decr_args},
    {.name = "incrby", .proc = cmd_incrby, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(incrby_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Increment the integer value of a key by the given amount",
     .complexity = "O(1)", .args = incrby_args},
    {.name = "decrby", .proc = cmd_decrby, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(decrby_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Decrement the integer value of a key by the given number",
     .complexity = "O(1)", .args = decrby_args},
    {.name = "incrbyfloat", .proc = cmd_incrbyfloat, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STRING | CAT_FAST, KEY_SPECS(incrbyfloat_keys),
     .group = "string", .since = "2.6.0",
     .summary = "Increment the float value of a key by the given amount", .complexity = "O(1)",
     .args = incrbyfloat_args},
    {.name = "getrange", .proc = cmd_getrange, .arity = 4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STRING | CAT_SLOW, KEY_SPECS(getrange_keys),
     .group = "string", .since = "2.4.0",
     .summary = "Get a substring of the string stored at a key",
     .complexity = "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
     .args = getrange_args},
    {.name = "substr", .proc = cmd_getrange, .arity = 4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STRING | CAT_SLOW, KEY_SPECS(substr_keys),
     .group = "string", .since = "1.0.0",
     .summary = "Get a substring of the string stored at a key",
     .complexity = "O(N) where N is the length of the returned string. The complexity is ultimately determined by the returned length, but because creating a substring from an existing string is very cheap, it can be considered O(1) for small strings.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "2.0.0", .replaced_by = "`GETRANGE`",
     .args = substr_args},
    {.name = "setrange", .proc = cmd_setrange, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_STRING | CAT_SLOW, KEY_SPECS(setrange_keys),
     .group = "string", .since = "2.2.0",
     .summary = "Overwrite part of a string at key starting at the specified offset",
     .complexity = "O(1), not counting the time taken to copy the new string in place. Usually, this string is very small so the amortized complexity is O(1). Otherwise, complexity is O(M) with M being the length of the value argument.",
     .args = setrange_args},
    /* keys */
    {.name = "del", .proc = cmd_del, .arity = -2, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW, KEY_SPECS(del_keys),
     .tips = del_tips, .group = "generic", .since = "1.0.0", .summary = "Delete a key",
     .complexity = "O(N) where N is the number of keys that will be removed. When a key to remove holds a value other than a string, the individual complexity for this key is O(M) where M is the number of elements in the list, set, sorted set or hash. Removing a single key that holds a string value is O(1).",
     .args = del_args},
    {.name = "unlink", .proc = cmd_unlink, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(unlink_keys),
     .tips = unlink_tips, .group = "generic", .since = "4.0.0",
     .summary = "Delete a key asynchronously in another thread. Otherwise it is just as DEL, but non blocking.",
     .complexity = "O(1) for each key removed regardless of its size. Then the command does O(N) work in a different thread in order to reclaim memory, where N is the number of allocations the deleted objects where composed of.",
     .args = unlink_args},
    {.name = "exists", .proc = cmd_exists, .arity = -2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(exists_keys),
     .tips = exists_tips, .group = "generic", .since = "1.0.0",
     .summary = "Determine if a key exists",
     .complexity = "O(N) where N is the number of keys to check.", .history = exists_history,
     .args = exists_args},
    {.name = "type", .proc = cmd_type, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(type_keys),
     .group = "generic", .since = "1.0.0", .summary = "Determine the type stored at key",
     .complexity = "O(1)", .args = type_args},
    {.name = "touch", .proc = cmd_touch, .arity = -2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(touch_keys),
     .tips = touch_tips, .group = "generic", .since = "3.2.1",
     .summary = "Alters the last access time of a key(s). Returns the number of existing keys specified.",
     .complexity = "O(N) where N is the number of keys that will be touched.",
     .args = touch_args},
    {.name = "keys", .proc = cmd_keys, .arity = 2, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW | CAT_DANGEROUS,
     .tips = keys_tips, .group = "generic", .since = "1.0.0",
     .summary = "Find all keys matching the given pattern",
     .complexity = "O(N) with N being the number of keys in the database, under the assumption that the key names in the database and the given pattern have limited length.",
     .args = keys_args},
    {.name = "scan", .proc = cmd_scan, .arity = -2, .flags = CMD_READONLY | CMD_TOUCHES_ARBITRARY_KEYS, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW,
     .tips = scan_tips, .group = "generic", .since = "2.8.0",
     .summary = "Incrementally iterate the keys space",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection.",
     .history = scan_history, .args = scan_args},
    {.name = "randomkey", .proc = cmd_randomkey, .arity = 1, .flags = CMD_READONLY | CMD_TOUCHES_ARBITRARY_KEYS, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW,
     .tips = randomkey_tips, .group = "generic", .since = "1.0.0",
     .summary = "Return a random key from the keyspace", .complexity = "O(1)"},
    {.name = "rename", .proc = cmd_rename, .arity = 3, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW, KEY_SPECS(rename_keys),
     .group = "generic", .since = "1.0.0", .summary = "Rename a key", .complexity = "O(1)",
     .args = rename_args},
    {.name = "renamenx", .proc = cmd_renamenx, .arity = 3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(renamenx_keys),
     .group = "generic", .since = "1.0.0",
     .summary = "Rename a key, only if the new key does not exist", .complexity = "O(1)",
     .history = renamenx_history, .args = renamenx_args},
    {.name = "copy", .proc = cmd_copy, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW, KEY_SPECS(copy_keys),
     .group = "generic", .since = "6.2.0", .summary = "Copy a key",
     .complexity = "O(N) worst case for collections, where N is the number of nested items. O(1) for string values.",
     .args = copy_args},
    {.name = "move", .proc = cmd_move, .arity = 3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(move_keys),
     .group = "generic", .since = "1.0.0", .summary = "Move a key to another database",
     .complexity = "O(1)", .args = move_args},
    {.name = "object", .proc = cmd_object, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "generic", .since = "2.2.3",
     .summary = "A container for object introspection commands",
     .complexity = "Depends on subcommand.", .subcmds = object_subcmds},
    {.name = "sort", .proc = cmd_sort, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SET | CAT_SORTEDSET | CAT_LIST | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(sort_keys), .getkeys = sort_getkeys,
     .group = "generic", .since = "1.0.0",
     .summary = "Sort the elements in a list, set or sorted set",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
     .args = sort_args},
    {.name = "sort_ro", .proc = cmd_sort_ro, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SORTEDSET | CAT_LIST | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(sort_ro_keys), .getkeys = sort_getkeys,
     .group = "generic", .since = "7.0.0",
     .summary = "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
     .complexity = "O(N+M*log(M)) where N is the number of elements in the list or set to sort, and M the number of returned elements. When the elements are not sorted, complexity is O(N).",
     .args = sort_ro_args},
    {.name = "expire", .proc = cmd_expire, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(expire_keys),
     .group = "generic", .since = "1.0.0", .summary = "Set a key's time to live in seconds",
     .complexity = "O(1)", .history = expire_history, .args = expire_args},
    {.name = "pexpire", .proc = cmd_pexpire, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(pexpire_keys),
     .group = "generic", .since = "2.6.0",
     .summary = "Set a key's time to live in milliseconds", .complexity = "O(1)",
     .history = pexpire_history, .args = pexpire_args},
    {.name = "expireat", .proc = cmd_expireat, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(expireat_keys),
     .group = "generic", .since = "1.2.0",
     .summary = "Set the expiration for a key as a UNIX timestamp", .complexity = "O(1)",
     .history = expireat_history, .args = expireat_args},
    {.name = "pexpireat", .proc = cmd_pexpireat, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(pexpireat_keys),
     .group = "generic", .since = "2.6.0",
     .summary = "Set the expiration for a key as a UNIX timestamp specified in milliseconds",
     .complexity = "O(1)", .history = pexpireat_history, .args = pexpireat_args},
    {.name = "expiretime", .proc = cmd_expiretime, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(expiretime_keys),
     .group = "generic", .since = "7.0.0",
     .summary = "Get the expiration Unix timestamp for a key", .complexity = "O(1)",
     .args = expiretime_args},
    {.name = "pexpiretime", .proc = cmd_pexpiretime, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(pexpiretime_keys),
     .group = "generic", .since = "7.0.0",
     .summary = "Get the expiration Unix timestamp for a key in milliseconds",
     .complexity = "O(1)", .args = pexpiretime_args},
    {.name = "ttl", .proc = cmd_ttl, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(ttl_keys),
     .tips = ttl_tips, .group = "generic", .since = "1.0.0",
     .summary = "Get the time to live for a key in seconds", .complexity = "O(1)",
     .history = ttl_history, .args = ttl_args},
    {.name = "pttl", .proc = cmd_pttl, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST, KEY_SPECS(pttl_keys),
     .tips = pttl_tips, .group = "generic", .since = "2.6.0",
     .summary = "Get the time to live for a key in milliseconds", .complexity = "O(1)",
     .history = pttl_history, .args = pttl_args},
    {.name = "persist", .proc = cmd_persist, .arity = 2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST, KEY_SPECS(persist_keys),
     .group = "generic", .since = "2.2.0", .summary = "Remove the expiration from a key",
     .complexity = "O(1)", .args = persist_args},
    {.name = "dbsize", .proc = cmd_dbsize, .arity = 1, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_KEYSPACE | CAT_READ | CAT_FAST,
     .tips = dbsize_tips, .group = "server", .since = "1.0.0",
     .summary = "Return the number of keys in the selected database", .complexity = "O(1)"},
    {.name = "select", .proc = cmd_select, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "1.0.0",
     .summary = "Change the selected database for the current connection", .complexity = "O(1)",
     .args = select_args},
    {.name = "swapdb", .proc = cmd_swapdb, .arity = 3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_FAST | CAT_DANGEROUS,
     .group = "server", .since = "4.0.0", .summary = "Swaps two Redis databases",
     .complexity = "O(N) where N is the count of clients watching or blocking on keys from both databases.",
     .args = swapdb_args},
    {.name = "flushdb", .proc = cmd_flushdb, .arity = -1, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS,
     .tips = flushdb_tips, .group = "server", .since = "1.0.0",
     .summary = "Remove all keys from the current database",
     .complexity = "O(N) where N is the number of keys in the selected database",
     .history = flushdb_history, .args = flushdb_args},
    {.name = "flushall", .proc = cmd_flushall, .arity = -1, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS,
     .tips = flushall_tips, .group = "server", .since = "1.0.0",
     .summary = "Remove all keys from all databases",
     .complexity = "O(N) where N is the total number of keys in all databases",
     .history = flushall_history, .args = flushall_args},
    /* server and connection */
    {.name = "ping", .proc = cmd_ping, .arity = -1, .flags = CMD_FAST, .acl = CAT_FAST | CAT_CONNECTION,
     .tips = ping_tips, .group = "connection", .since = "1.0.0", .summary = "Ping the server",
     .complexity = "O(1)", .args = ping_args},
    {.name = "echo", .proc = cmd_echo, .arity = 2, .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "1.0.0", .summary = "Echo the given string",
     .complexity = "O(1)", .args = echo_args},
    {.name = "info", .proc = cmd_info, .arity = -1, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_DANGEROUS,
     .tips = info_tips, .group = "server", .since = "1.0.0",
     .summary = "Get information and statistics about the server", .complexity = "O(1)",
     .history = info_history, .args = info_args},
    {.name = "lolwut", .proc = cmd_lolwut, .arity = -1, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_FAST,
     .group = "server", .since = "5.0.0",
     .summary = "Display some computer art and the Redis version", .args = lolwut_args},
    {.name = "module", .proc = cmd_module, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "4.0.0", .summary = "A container for module commands",
     .complexity = "Depends on subcommand.", .subcmds = module_subcmds},
    {.name = "config", .proc = cmd_config, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "2.0.0",
     .summary = "A container for server configuration commands",
     .complexity = "Depends on subcommand.", .subcmds = config_subcmds},
    {.name = "command", .proc = cmd_command, .arity = -1, .flags = CMD_LOADING | CMD_STALE, .acl = CAT_SLOW | CAT_CONNECTION,
     .tips = command_tips, .group = "server", .since = "2.8.13",
     .summary = "Get array of Redis command details",
     .complexity = "O(N) where N is the total number of Redis commands",
     .subcmds = command_subcmds},
    {.name = "client", .proc = cmd_client, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "connection", .since = "2.4.0",
     .summary = "A container for client connection commands",
     .complexity = "Depends on subcommand.", .subcmds = client_subcmds},
    {.name = "hello", .proc = cmd_hello, .arity = -1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NOAUTH | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "6.0.0", .summary = "Handshake with Redis",
     .complexity = "O(1)", .history = hello_history, .args = hello_args},
    {.name = "auth", .proc = cmd_auth, .arity = -2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NOAUTH | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "1.0.0", .summary = "Authenticate to the server",
     .complexity = "O(N) where N is the number of passwords defined for the user",
     .history = auth_history, .args = auth_args},
    {.name = "time", .proc = cmd_time, .arity = 1, .flags = CMD_LOADING | CMD_STALE | CMD_FAST, .acl = CAT_FAST,
     .tips = time_tips, .group = "server", .since = "2.6.0",
     .summary = "Return the current server time", .complexity = "O(1)"},
    {.name = "quit", .proc = cmd_quit, .arity = -1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NOAUTH | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "1.0.0", .summary = "Close the connection",
     .complexity = "O(1)"},
    {.name = "shutdown", .proc = cmd_shutdown, .arity = -1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_NO_MULTI | CMD_ALLOW_BUSY, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0",
     .summary = "Synchronously save the dataset to disk and then shut down the server",
     .complexity = "O(N) when saving, where N is the total number of keys in all databases when saving data, otherwise O(1)",
     .history = shutdown_history, .args = shutdown_args},
    {.name = "debug", .proc = cmd_debug, .arity = -2, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_PROTECTED, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0", .summary = "A container for debugging commands",
     .complexity = "Depends on subcommand.", .doc_flags = DOC_SYSCMD},
    /* transactions (src/multi.c) */
    {.name = "multi", .proc = cmd_multi, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_TRANSACTION,
     .group = "transactions", .since = "1.2.0",
     .summary = "Mark the start of a transaction block", .complexity = "O(1)"},
    {.name = "exec", .proc = cmd_exec, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG, .acl = CAT_SLOW | CAT_TRANSACTION,
     .group = "transactions", .since = "1.2.0",
     .summary = "Execute all commands issued after MULTI",
     .complexity = "Depends on commands in the transaction"},
    {.name = "discard", .proc = cmd_discard, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_TRANSACTION,
     .group = "transactions", .since = "2.0.0",
     .summary = "Discard all commands issued after MULTI",
     .complexity = "O(N), when N is the number of queued commands"},
    {.name = "watch", .proc = cmd_watch, .arity = -2, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_TRANSACTION, KEY_SPECS(watch_keys),
     .group = "transactions", .since = "2.2.0",
     .summary = "Watch the given keys to determine execution of the MULTI/EXEC block",
     .complexity = "O(1) for every key.", .args = watch_args},
    {.name = "unwatch", .proc = cmd_unwatch, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_TRANSACTION,
     .group = "transactions", .since = "2.2.0", .summary = "Forget about all watched keys",
     .complexity = "O(1)"},
    /* ---- collections and MEMORY ---- */
    {.name = "hset", .proc = cmd_hset, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hset_keys),
     .group = "hash", .since = "2.0.0", .summary = "Set the string value of a hash field",
     .complexity = "O(1) for each field/value pair added, so O(N) to add N field/value pairs when the command is called with multiple field/value pairs.",
     .history = hset_history, .args = hset_args},
    {.name = "hsetnx", .proc = cmd_hsetnx, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hsetnx_keys),
     .group = "hash", .since = "2.0.0",
     .summary = "Set the value of a hash field, only if the field does not exist",
     .complexity = "O(1)", .args = hsetnx_args},
    {.name = "hget", .proc = cmd_hget, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_HASH | CAT_FAST, KEY_SPECS(hget_keys),
     .group = "hash", .since = "2.0.0", .summary = "Get the value of a hash field",
     .complexity = "O(1)", .args = hget_args},
    {.name = "hmget", .proc = cmd_hmget, .arity = -3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_HASH | CAT_FAST, KEY_SPECS(hmget_keys),
     .group = "hash", .since = "2.0.0",
     .summary = "Get the values of all the given hash fields",
     .complexity = "O(N) where N is the number of fields being requested.", .args = hmget_args},
    {.name = "hmset", .proc = cmd_hmset, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hmset_keys),
     .group = "hash", .since = "2.0.0",
     .summary = "Set multiple hash fields to multiple values",
     .complexity = "O(N) where N is the number of fields being set.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "4.0.0",
     .replaced_by = "`HSET` with multiple field-value pairs", .args = hmset_args},
    {.name = "hdel", .proc = cmd_hdel, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hdel_keys),
     .group = "hash", .since = "2.0.0", .summary = "Delete one or more hash fields",
     .complexity = "O(N) where N is the number of fields to be removed.",
     .history = hdel_history, .args = hdel_args},
    {.name = "hlen", .proc = cmd_hlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_HASH | CAT_FAST, KEY_SPECS(hlen_keys),
     .group = "hash", .since = "2.0.0", .summary = "Get the number of fields in a hash",
     .complexity = "O(1)", .args = hlen_args},
    {.name = "hstrlen", .proc = cmd_hstrlen, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_HASH | CAT_FAST, KEY_SPECS(hstrlen_keys),
     .group = "hash", .since = "3.2.0",
     .summary = "Get the length of the value of a hash field", .complexity = "O(1)",
     .args = hstrlen_args},
    {.name = "hexists", .proc = cmd_hexists, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_HASH | CAT_FAST, KEY_SPECS(hexists_keys),
     .group = "hash", .since = "2.0.0", .summary = "Determine if a hash field exists",
     .complexity = "O(1)", .args = hexists_args},
    {.name = "hkeys", .proc = cmd_hkeys, .arity = 2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_HASH | CAT_SLOW, KEY_SPECS(hkeys_keys),
     .tips = hkeys_tips, .group = "hash", .since = "2.0.0",
     .summary = "Get all the fields in a hash",
     .complexity = "O(N) where N is the size of the hash.", .args = hkeys_args},
    {.name = "hvals", .proc = cmd_hvals, .arity = 2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_HASH | CAT_SLOW, KEY_SPECS(hvals_keys),
     .tips = hvals_tips, .group = "hash", .since = "2.0.0",
     .summary = "Get all the values in a hash",
     .complexity = "O(N) where N is the size of the hash.", .args = hvals_args},
    {.name = "hgetall", .proc = cmd_hgetall, .arity = 2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_HASH | CAT_SLOW, KEY_SPECS(hgetall_keys),
     .tips = hgetall_tips, .group = "hash", .since = "2.0.0",
     .summary = "Get all the fields and values in a hash",
     .complexity = "O(N) where N is the size of the hash.", .args = hgetall_args},
    {.name = "hincrby", .proc = cmd_hincrby, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hincrby_keys),
     .group = "hash", .since = "2.0.0",
     .summary = "Increment the integer value of a hash field by the given number",
     .complexity = "O(1)", .args = hincrby_args},
    {.name = "hincrbyfloat", .proc = cmd_hincrbyfloat, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HASH | CAT_FAST, KEY_SPECS(hincrbyfloat_keys),
     .group = "hash", .since = "2.6.0",
     .summary = "Increment the float value of a hash field by the given amount",
     .complexity = "O(1)", .args = hincrbyfloat_args},
    {.name = "hrandfield", .proc = cmd_hrandfield, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_HASH | CAT_SLOW, KEY_SPECS(hrandfield_keys),
     .tips = hrandfield_tips, .group = "hash", .since = "6.2.0",
     .summary = "Get one or multiple random fields from a hash",
     .complexity = "O(N) where N is the number of fields returned", .args = hrandfield_args},
    {.name = "hscan", .proc = cmd_hscan, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_HASH | CAT_SLOW, KEY_SPECS(hscan_keys),
     .tips = hscan_tips, .group = "hash", .since = "2.8.0",
     .summary = "Incrementally iterate hash fields and associated values",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .args = hscan_args},
    {.name = "lpush", .proc = cmd_lpush, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(lpush_keys),
     .group = "list", .since = "1.0.0", .summary = "Prepend one or multiple elements to a list",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .history = lpush_history, .args = lpush_args},
    {.name = "rpush", .proc = cmd_rpush, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(rpush_keys),
     .group = "list", .since = "1.0.0", .summary = "Append one or multiple elements to a list",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .history = rpush_history, .args = rpush_args},
    {.name = "lpushx", .proc = cmd_lpushx, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(lpushx_keys),
     .group = "list", .since = "2.2.0",
     .summary = "Prepend an element to a list, only if the list exists",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .history = lpushx_history, .args = lpushx_args},
    {.name = "rpushx", .proc = cmd_rpushx, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(rpushx_keys),
     .group = "list", .since = "2.2.0",
     .summary = "Append an element to a list, only if the list exists",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .history = rpushx_history, .args = rpushx_args},
    {.name = "lpop", .proc = cmd_lpop, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(lpop_keys),
     .group = "list", .since = "1.0.0",
     .summary = "Remove and get the first elements in a list",
     .complexity = "O(N) where N is the number of elements returned", .history = lpop_history,
     .args = lpop_args},
    {.name = "rpop", .proc = cmd_rpop, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_LIST | CAT_FAST, KEY_SPECS(rpop_keys),
     .group = "list", .since = "1.0.0", .summary = "Remove and get the last elements in a list",
     .complexity = "O(N) where N is the number of elements returned", .history = rpop_history,
     .args = rpop_args},
    {.name = "llen", .proc = cmd_llen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_LIST | CAT_FAST, KEY_SPECS(llen_keys),
     .group = "list", .since = "1.0.0", .summary = "Get the length of a list",
     .complexity = "O(1)", .args = llen_args},
    {.name = "lindex", .proc = cmd_lindex, .arity = 3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_LIST | CAT_SLOW, KEY_SPECS(lindex_keys),
     .group = "list", .since = "1.0.0", .summary = "Get an element from a list by its index",
     .complexity = "O(N) where N is the number of elements to traverse to get to the element at index. This makes asking for the first or the last element of the list O(1).",
     .args = lindex_args},
    {.name = "lset", .proc = cmd_lset, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(lset_keys),
     .group = "list", .since = "1.0.0",
     .summary = "Set the value of an element in a list by its index",
     .complexity = "O(N) where N is the length of the list. Setting either the first or the last element of the list is O(1).",
     .args = lset_args},
    {.name = "linsert", .proc = cmd_linsert, .arity = 5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(linsert_keys),
     .group = "list", .since = "2.2.0",
     .summary = "Insert an element before or after another element in a list",
     .complexity = "O(N) where N is the number of elements to traverse before seeing the value pivot. This means that inserting somewhere on the left end on the list (head) can be considered O(1) and inserting somewhere on the right end (tail) is O(N).",
     .args = linsert_args},
    {.name = "lrange", .proc = cmd_lrange, .arity = 4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_LIST | CAT_SLOW, KEY_SPECS(lrange_keys),
     .group = "list", .since = "1.0.0", .summary = "Get a range of elements from a list",
     .complexity = "O(S+N) where S is the distance of start offset from HEAD for small lists, from nearest end (HEAD or TAIL) for large lists; and N is the number of elements in the specified range.",
     .args = lrange_args},
    {.name = "lrem", .proc = cmd_lrem, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(lrem_keys),
     .group = "list", .since = "1.0.0", .summary = "Remove elements from a list",
     .complexity = "O(N+M) where N is the length of the list and M is the number of elements removed.",
     .args = lrem_args},
    {.name = "ltrim", .proc = cmd_ltrim, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(ltrim_keys),
     .group = "list", .since = "1.0.0", .summary = "Trim a list to the specified range",
     .complexity = "O(N) where N is the number of elements to be removed by the operation.",
     .args = ltrim_args},
    {.name = "lpos", .proc = cmd_lpos, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_LIST | CAT_SLOW, KEY_SPECS(lpos_keys),
     .group = "list", .since = "6.0.6",
     .summary = "Return the index of matching elements on a list",
     .complexity = "O(N) where N is the number of elements in the list, for the average case. When searching for elements near the head or the tail of the list, or when the MAXLEN option is provided, the command may run in constant time.",
     .args = lpos_args},
    {.name = "lmove", .proc = cmd_lmove, .arity = 5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(lmove_keys),
     .group = "list", .since = "6.2.0",
     .summary = "Pop an element from a list, push it to another list and return it",
     .complexity = "O(1)", .args = lmove_args},
    {.name = "rpoplpush", .proc = cmd_rpoplpush, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(rpoplpush_keys),
     .group = "list", .since = "1.2.0",
     .summary = "Remove the last element in a list, prepend it to another list and return it",
     .complexity = "O(1)", .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`LMOVE` with the `RIGHT` and `LEFT` arguments", .args = rpoplpush_args},
    {.name = "lmpop", .proc = cmd_lmpop, .arity = -4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW, KEY_SPECS(lmpop_keys),
     .group = "list", .since = "7.0.0", .summary = "Pop elements from a list",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .args = lmpop_args},
    {.name = "blpop", .proc = cmd_blpop, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(blpop_keys),
     .group = "list", .since = "2.0.0",
     .summary = "Remove and get the first element in a list, or block until one is available",
     .complexity = "O(N) where N is the number of provided keys.", .history = blpop_history,
     .args = blpop_args},
    {.name = "brpop", .proc = cmd_brpop, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(brpop_keys),
     .group = "list", .since = "2.0.0",
     .summary = "Remove and get the last element in a list, or block until one is available",
     .complexity = "O(N) where N is the number of provided keys.", .history = brpop_history,
     .args = brpop_args},
    {.name = "blmove", .proc = cmd_blmove, .arity = 6, .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(blmove_keys),
     .group = "list", .since = "6.2.0",
     .summary = "Pop an element from a list, push it to another list and return it; or block until one is available",
     .complexity = "O(1)", .args = blmove_args},
    {.name = "brpoplpush", .proc = cmd_brpoplpush, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(brpoplpush_keys),
     .group = "list", .since = "2.2.0",
     .summary = "Pop an element from a list, push it to another list and return it; or block until one is available",
     .complexity = "O(1)", .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`BLMOVE` with the `RIGHT` and `LEFT` arguments",
     .history = brpoplpush_history, .args = brpoplpush_args},
    {.name = "blmpop", .proc = cmd_blmpop, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING, .acl = CAT_WRITE | CAT_LIST | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(blmpop_keys),
     .group = "list", .since = "7.0.0",
     .summary = "Pop elements from a list, or block until one is available",
     .complexity = "O(N+M) where N is the number of provided keys and M is the number of elements returned.",
     .args = blmpop_args},
    {.name = "sadd", .proc = cmd_sadd, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_SET | CAT_FAST, KEY_SPECS(sadd_keys),
     .group = "set", .since = "1.0.0", .summary = "Add one or more members to a set",
     .complexity = "O(1) for each element added, so O(N) to add N elements when the command is called with multiple arguments.",
     .history = sadd_history, .args = sadd_args},
    {.name = "srem", .proc = cmd_srem, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SET | CAT_FAST, KEY_SPECS(srem_keys),
     .group = "set", .since = "1.0.0", .summary = "Remove one or more members from a set",
     .complexity = "O(N) where N is the number of members to be removed.",
     .history = srem_history, .args = srem_args},
    {.name = "scard", .proc = cmd_scard, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SET | CAT_FAST, KEY_SPECS(scard_keys),
     .group = "set", .since = "1.0.0", .summary = "Get the number of members in a set",
     .complexity = "O(1)", .args = scard_args},
    {.name = "sismember", .proc = cmd_sismember, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SET | CAT_FAST, KEY_SPECS(sismember_keys),
     .group = "set", .since = "1.0.0",
     .summary = "Determine if a given value is a member of a set", .complexity = "O(1)",
     .args = sismember_args},
    {.name = "smismember", .proc = cmd_smismember, .arity = -3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SET | CAT_FAST, KEY_SPECS(smismember_keys),
     .group = "set", .since = "6.2.0",
     .summary = "Returns the membership associated with the given elements for a set",
     .complexity = "O(N) where N is the number of elements being checked for membership",
     .args = smismember_args},
    {.name = "smembers", .proc = cmd_smembers, .arity = 2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(smembers_keys),
     .tips = smembers_tips, .group = "set", .since = "1.0.0",
     .summary = "Get all the members in a set",
     .complexity = "O(N) where N is the set cardinality.", .args = smembers_args},
    {.name = "srandmember", .proc = cmd_srandmember, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(srandmember_keys),
     .tips = srandmember_tips, .group = "set", .since = "1.0.0",
     .summary = "Get one or multiple random members from a set",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the absolute value of the passed count.",
     .history = srandmember_history, .args = srandmember_args},
    {.name = "spop", .proc = cmd_spop, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SET | CAT_FAST, KEY_SPECS(spop_keys),
     .tips = spop_tips, .group = "set", .since = "1.0.0",
     .summary = "Remove and return one or multiple random members from a set",
     .complexity = "Without the count argument O(1), otherwise O(N) where N is the value of the passed count.",
     .history = spop_history, .args = spop_args},
    {.name = "smove", .proc = cmd_smove, .arity = 4, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SET | CAT_FAST, KEY_SPECS(smove_keys),
     .group = "set", .since = "1.0.0", .summary = "Move a member from one set to another",
     .complexity = "O(1)", .args = smove_args},
    {.name = "sinter", .proc = cmd_sinter, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(sinter_keys),
     .tips = sinter_tips, .group = "set", .since = "1.0.0",
     .summary = "Intersect multiple sets",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .args = sinter_args},
    {.name = "sintercard", .proc = cmd_sintercard, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(sintercard_keys),
     .group = "set", .since = "7.0.0",
     .summary = "Intersect multiple sets and return the cardinality of the result",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .args = sintercard_args},
    {.name = "sunion", .proc = cmd_sunion, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(sunion_keys),
     .tips = sunion_tips, .group = "set", .since = "1.0.0", .summary = "Add multiple sets",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = sunion_args},
    {.name = "sdiff", .proc = cmd_sdiff, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(sdiff_keys),
     .tips = sdiff_tips, .group = "set", .since = "1.0.0", .summary = "Subtract multiple sets",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = sdiff_args},
    {.name = "sinterstore", .proc = cmd_sinterstore, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SET | CAT_SLOW, KEY_SPECS(sinterstore_keys),
     .group = "set", .since = "1.0.0",
     .summary = "Intersect multiple sets and store the resulting set in a key",
     .complexity = "O(N*M) worst case where N is the cardinality of the smallest set and M is the number of sets.",
     .args = sinterstore_args},
    {.name = "sunionstore", .proc = cmd_sunionstore, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SET | CAT_SLOW, KEY_SPECS(sunionstore_keys),
     .group = "set", .since = "1.0.0",
     .summary = "Add multiple sets and store the resulting set in a key",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = sunionstore_args},
    {.name = "sdiffstore", .proc = cmd_sdiffstore, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SET | CAT_SLOW, KEY_SPECS(sdiffstore_keys),
     .group = "set", .since = "1.0.0",
     .summary = "Subtract multiple sets and store the resulting set in a key",
     .complexity = "O(N) where N is the total number of elements in all given sets.",
     .args = sdiffstore_args},
    {.name = "sscan", .proc = cmd_sscan, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SET | CAT_SLOW, KEY_SPECS(sscan_keys),
     .tips = sscan_tips, .group = "set", .since = "2.8.0",
     .summary = "Incrementally iterate Set elements",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .args = sscan_args},
    {.name = "zadd", .proc = cmd_zadd, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zadd_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Add one or more members to a sorted set, or update its score if it already exists",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .history = zadd_history, .args = zadd_args},
    {.name = "zincrby", .proc = cmd_zincrby, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zincrby_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Increment the score of a member in a sorted set",
     .complexity = "O(log(N)) where N is the number of elements in the sorted set.",
     .args = zincrby_args},
    {.name = "zrem", .proc = cmd_zrem, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zrem_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Remove one or more members from a sorted set",
     .complexity = "O(M*log(N)) with N being the number of elements in the sorted set and M the number of elements to be removed.",
     .history = zrem_history, .args = zrem_args},
    {.name = "zcard", .proc = cmd_zcard, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zcard_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Get the number of members in a sorted set", .complexity = "O(1)",
     .args = zcard_args},
    {.name = "zcount", .proc = cmd_zcount, .arity = 4, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zcount_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Count the members in a sorted set with scores within the given values",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = zcount_args},
    {.name = "zlexcount", .proc = cmd_zlexcount, .arity = 4, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zlexcount_keys),
     .group = "sorted-set", .since = "2.8.9",
     .summary = "Count the number of members in a sorted set between a given lexicographical range",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .args = zlexcount_args},
    {.name = "zscore", .proc = cmd_zscore, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zscore_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Get the score associated with the given member in a sorted set",
     .complexity = "O(1)", .args = zscore_args},
    {.name = "zmscore", .proc = cmd_zmscore, .arity = -3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zmscore_keys),
     .group = "sorted-set", .since = "6.2.0",
     .summary = "Get the score associated with the given members in a sorted set",
     .complexity = "O(N) where N is the number of members being requested.",
     .args = zmscore_args},
    {.name = "zrank", .proc = cmd_zrank, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zrank_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Determine the index of a member in a sorted set", .complexity = "O(log(N))",
     .args = zrank_args},
    {.name = "zrevrank", .proc = cmd_zrevrank, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zrevrank_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Determine the index of a member in a sorted set, with scores ordered from high to low",
     .complexity = "O(log(N))", .args = zrevrank_args},
    {.name = "zrange", .proc = cmd_zrange, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrange_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Return a range of members in a sorted set",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
     .history = zrange_history, .args = zrange_args},
    {.name = "zrangestore", .proc = cmd_zrangestore, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrangestore_keys),
     .group = "sorted-set", .since = "6.2.0",
     .summary = "Store a range of members from sorted set into another key",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements stored into the destination key.",
     .args = zrangestore_args},
    {.name = "zrevrange", .proc = cmd_zrevrange, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrevrange_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Return a range of members in a sorted set, by index, with scores ordered from high to low",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements returned.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` argument", .args = zrevrange_args},
    {.name = "zrangebyscore", .proc = cmd_zrangebyscore, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrangebyscore_keys),
     .group = "sorted-set", .since = "1.0.5",
     .summary = "Return a range of members in a sorted set, by score",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `BYSCORE` argument", .history = zrangebyscore_history,
     .args = zrangebyscore_args},
    {.name = "zrevrangebyscore", .proc = cmd_zrevrangebyscore, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrevrangebyscore_keys),
     .group = "sorted-set", .since = "2.2.0",
     .summary = "Return a range of members in a sorted set, by score, with scores ordered from high to low",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` and `BYSCORE` arguments",
     .history = zrevrangebyscore_history, .args = zrevrangebyscore_args},
    {.name = "zrangebylex", .proc = cmd_zrangebylex, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrangebylex_keys),
     .group = "sorted-set", .since = "2.8.9",
     .summary = "Return a range of members in a sorted set, by lexicographical range",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `BYLEX` argument", .args = zrangebylex_args},
    {.name = "zrevrangebylex", .proc = cmd_zrevrangebylex, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrevrangebylex_keys),
     .group = "sorted-set", .since = "2.8.9",
     .summary = "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements being returned. If M is constant (e.g. always asking for the first 10 elements with LIMIT), you can consider it O(log(N)).",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`ZRANGE` with the `REV` and `BYLEX` arguments",
     .args = zrevrangebylex_args},
    {.name = "zremrangebyrank", .proc = cmd_zremrangebyrank, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zremrangebyrank_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Remove all members in a sorted set within the given indexes",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .args = zremrangebyrank_args},
    {.name = "zremrangebyscore", .proc = cmd_zremrangebyscore, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zremrangebyscore_keys),
     .group = "sorted-set", .since = "1.2.0",
     .summary = "Remove all members in a sorted set within the given scores",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .args = zremrangebyscore_args},
    {.name = "zremrangebylex", .proc = cmd_zremrangebylex, .arity = 4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zremrangebylex_keys),
     .group = "sorted-set", .since = "2.8.9",
     .summary = "Remove all members in a sorted set between the given lexicographical range",
     .complexity = "O(log(N)+M) with N being the number of elements in the sorted set and M the number of elements removed by the operation.",
     .args = zremrangebylex_args},
    {.name = "zpopmin", .proc = cmd_zpopmin, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zpopmin_keys),
     .group = "sorted-set", .since = "5.0.0",
     .summary = "Remove and return members with the lowest scores in a sorted set",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
     .args = zpopmin_args},
    {.name = "zpopmax", .proc = cmd_zpopmax, .arity = -2, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST, KEY_SPECS(zpopmax_keys),
     .group = "sorted-set", .since = "5.0.0",
     .summary = "Remove and return members with the highest scores in a sorted set",
     .complexity = "O(log(N)*M) with N being the number of elements in the sorted set, and M being the number of elements popped.",
     .args = zpopmax_args},
    {.name = "bzpopmin", .proc = cmd_bzpopmin, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST | CAT_BLOCKING, KEY_SPECS(bzpopmin_keys),
     .group = "sorted-set", .since = "5.0.0",
     .summary = "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .history = bzpopmin_history, .args = bzpopmin_args},
    {.name = "bzpopmax", .proc = cmd_bzpopmax, .arity = -3, .flags = CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_FAST | CAT_BLOCKING, KEY_SPECS(bzpopmax_keys),
     .group = "sorted-set", .since = "5.0.0",
     .summary = "Remove and return the member with the highest score from one or more sorted sets, or block until one is available",
     .complexity = "O(log(N)) with N being the number of elements in the sorted set.",
     .history = bzpopmax_history, .args = bzpopmax_args},
    {.name = "zmpop", .proc = cmd_zmpop, .arity = -4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zmpop_keys),
     .group = "sorted-set", .since = "7.0.0",
     .summary = "Remove and return members with scores in a sorted set",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
     .args = zmpop_args},
    {.name = "bzmpop", .proc = cmd_bzmpop, .arity = -5, .flags = CMD_WRITE | CMD_BLOCKING, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(bzmpop_keys),
     .group = "sorted-set", .since = "7.0.0",
     .summary = "Remove and return members with scores in a sorted set or block until one is available",
     .complexity = "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements in the sorted set, and M being the number of elements popped.",
     .args = bzmpop_args},
    {.name = "zrandmember", .proc = cmd_zrandmember, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zrandmember_keys),
     .tips = zrandmember_tips, .group = "sorted-set", .since = "6.2.0",
     .summary = "Get one or multiple random elements from a sorted set",
     .complexity = "O(N) where N is the number of elements returned", .args = zrandmember_args},
    {.name = "zunion", .proc = cmd_zunion, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zunion_keys),
     .group = "sorted-set", .since = "6.2.0", .summary = "Add multiple sorted sets",
     .complexity = "O(N)+O(M*log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
     .args = zunion_args},
    {.name = "zinter", .proc = cmd_zinter, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zinter_keys),
     .group = "sorted-set", .since = "6.2.0", .summary = "Intersect multiple sorted sets",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
     .args = zinter_args},
    {.name = "zdiff", .proc = cmd_zdiff, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zdiff_keys),
     .group = "sorted-set", .since = "6.2.0", .summary = "Subtract multiple sorted sets",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
     .args = zdiff_args},
    {.name = "zunionstore", .proc = cmd_zunionstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zunionstore_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Add multiple sorted sets and store the resulting sorted set in a new key",
     .complexity = "O(N)+O(M log(M)) with N being the sum of the sizes of the input sorted sets, and M being the number of elements in the resulting sorted set.",
     .args = zunionstore_args},
    {.name = "zinterstore", .proc = cmd_zinterstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zinterstore_keys),
     .group = "sorted-set", .since = "2.0.0",
     .summary = "Intersect multiple sorted sets and store the resulting sorted set in a new key",
     .complexity = "O(N*K)+O(M*log(M)) worst case with N being the smallest input sorted set, K being the number of input sorted sets and M being the number of elements in the resulting sorted set.",
     .args = zinterstore_args},
    {.name = "zdiffstore", .proc = cmd_zdiffstore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zdiffstore_keys),
     .group = "sorted-set", .since = "6.2.0",
     .summary = "Subtract multiple sorted sets and store the resulting sorted set in a new key",
     .complexity = "O(L + (N-K)log(N)) worst case where L is the total number of elements in all the sets, N is the size of the first set, and K is the size of the result set.",
     .args = zdiffstore_args},
    {.name = "zintercard", .proc = cmd_zintercard, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zintercard_keys),
     .group = "sorted-set", .since = "7.0.0",
     .summary = "Intersect multiple sorted sets and return the cardinality of the result",
     .complexity = "O(N*K) worst case with N being the smallest input sorted set, K being the number of input sorted sets.",
     .args = zintercard_args},
    {.name = "zscan", .proc = cmd_zscan, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_SORTEDSET | CAT_SLOW, KEY_SPECS(zscan_keys),
     .tips = zscan_tips, .group = "sorted-set", .since = "2.8.0",
     .summary = "Incrementally iterate sorted sets elements and associated scores",
     .complexity = "O(1) for every call. O(N) for a complete iteration, including enough command calls for the cursor to return back to 0. N is the number of elements inside the collection..",
     .args = zscan_args},
    /* streams: entries (cmd_stream.c) */
    {.name = "xadd", .proc = cmd_xadd, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xadd_keys),
     .tips = xadd_tips, .group = "stream", .since = "5.0.0",
     .summary = "Appends a new entry to a stream",
     .complexity = "O(1) when adding a new entry, O(N) when trimming where N being the number of entries evicted.",
     .history = xadd_history, .args = xadd_args},
    {.name = "xdel", .proc = cmd_xdel, .arity = -3, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xdel_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Removes the specified entries from the stream. Returns the number of items actually deleted, that may be different from the number of IDs passed in case certain IDs do not exist.",
     .complexity = "O(1) for each single item to delete in the stream, regardless of the stream size.",
     .args = xdel_args},
    {.name = "xlen", .proc = cmd_xlen, .arity = 2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_STREAM | CAT_FAST, KEY_SPECS(xlen_keys),
     .group = "stream", .since = "5.0.0", .summary = "Return the number of entries in a stream",
     .complexity = "O(1)", .args = xlen_args},
    {.name = "xrange", .proc = cmd_xrange, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xrange_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval",
     .complexity = "O(N) with N being the number of elements being returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .history = xrange_history, .args = xrange_args},
    {.name = "xread", .proc = cmd_xread, .arity = -4, .flags = CMD_READONLY | CMD_BLOCKING, .acl = CAT_READ | CAT_STREAM | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(xread_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Return never seen elements in multiple streams, with IDs greater than the ones reported by the caller for each stream. Can block.",
     .complexity = "For each stream mentioned: O(N) with N being the number of elements being returned, it means that XREAD-ing with a fixed COUNT is O(1). Note that when the BLOCK option is used, XADD will pay O(M) time in order to serve the M clients blocked on the stream getting new data.",
     .args = xread_args},
    {.name = "xrevrange", .proc = cmd_xrevrange, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xrevrange_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Return a range of elements in a stream, with IDs matching the specified IDs interval, in reverse order (from greater to smaller IDs) compared to XRANGE",
     .complexity = "O(N) with N being the number of elements returned. If N is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1).",
     .history = xrevrange_history, .args = xrevrange_args},
    {.name = "xsetid", .proc = cmd_xsetid, .arity = -3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xsetid_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "An internal command for replicating stream values", .complexity = "O(1)",
     .history = xsetid_history, .args = xsetid_args},
    {.name = "xtrim", .proc = cmd_xtrim, .arity = -4, .flags = CMD_WRITE, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW, KEY_SPECS(xtrim_keys),
     .tips = xtrim_tips, .group = "stream", .since = "5.0.0",
     .summary = "Trims the stream to (approximately if '~' is passed) a certain size",
     .complexity = "O(N), with N being the number of evicted entries. Constant times are very small however, since entries are organized in macro nodes containing multiple entries that can be released with a single deallocation.",
     .history = xtrim_history, .args = xtrim_args},
    /* streams: consumer groups (cmd_stream_cg.c) */

    {.name = "xack", .proc = cmd_xack, .arity = -4, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xack_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Marks a pending message as correctly processed, effectively removing it from the pending entries list of the consumer group. Return value of the command is the number of messages successfully acknowledged, that is, the IDs we were actually able to resolve in the PEL.",
     .complexity = "O(1) for each message ID processed.", .args = xack_args},
    {.name = "xautoclaim", .proc = cmd_xautoclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xautoclaim_keys),
     .tips = xautoclaim_tips, .group = "stream", .since = "6.2.0",
     .summary = "Changes (or acquires) ownership of messages in a consumer group, as if the messages were delivered to the specified consumer.",
     .complexity = "O(1) if COUNT is small.", .history = xautoclaim_history,
     .args = xautoclaim_args},
    {.name = "xclaim", .proc = cmd_xclaim, .arity = -6, .flags = CMD_WRITE | CMD_FAST, .acl = CAT_WRITE | CAT_STREAM | CAT_FAST, KEY_SPECS(xclaim_keys),
     .tips = xclaim_tips, .group = "stream", .since = "5.0.0",
     .summary = "Changes (or acquires) ownership of a message in a consumer group, as if the message was delivered to the specified consumer.",
     .complexity = "O(log N) with N being the number of messages in the PEL of the consumer group.",
     .args = xclaim_args},
    {.name = "xgroup", .proc = cmd_xgroup, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "stream", .since = "5.0.0", .summary = "A container for consumer groups commands",
     .complexity = "Depends on subcommand.", .subcmds = xgroup_subcmds},
    {.name = "xinfo", .proc = cmd_xinfo, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "stream", .since = "5.0.0",
     .summary = "A container for stream introspection commands",
     .complexity = "Depends on subcommand.", .subcmds = xinfo_subcmds},
    {.name = "xpending", .proc = cmd_xpending, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STREAM | CAT_SLOW, KEY_SPECS(xpending_keys),
     .tips = xpending_tips, .group = "stream", .since = "5.0.0",
     .summary = "Return information and entries from a stream consumer group pending entries list, that are messages fetched but never acknowledged.",
     .complexity = "O(N) with N being the number of elements returned, so asking for a small fixed number of entries per call is O(1). O(M), where M is the total number of entries scanned when used with the IDLE filter. When the command returns just the summary and the list of consumers is small, it runs in O(1) time; otherwise, an additional O(N) time for iterating every consumer.",
     .history = xpending_history, .args = xpending_args},
    {.name = "xreadgroup", .proc = cmd_xreadgroup, .arity = -7, .flags = CMD_WRITE | CMD_BLOCKING, .acl = CAT_WRITE | CAT_STREAM | CAT_SLOW | CAT_BLOCKING, KEY_SPECS(xreadgroup_keys),
     .group = "stream", .since = "5.0.0",
     .summary = "Return new entries from a stream using a consumer group, or access the history of the pending entries for a given consumer. Can block.",
     .complexity = "For each stream mentioned: O(M) with M being the number of elements returned. If M is constant (e.g. always asking for the first 10 elements with COUNT), you can consider it O(1). On the other side when XREADGROUP blocks, XADD will pay the O(N) time in order to serve the N clients blocked on the stream getting new data.",
     .args = xreadgroup_args},
    {.name = "memory", .proc = cmd_memory, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "4.0.0",
     .summary = "A container for memory diagnostics commands",
     .complexity = "Depends on subcommand.", .subcmds = memory_subcmds},
    /* pub/sub, scripting (issue 10) */
    {.name = "publish", .proc = cmd_publish, .arity = 3, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, .acl = CAT_PUBSUB | CAT_FAST,
     .group = "pubsub", .since = "2.0.0", .summary = "Post a message to a channel",
     .complexity = "O(N+M) where N is the number of clients subscribed to the receiving channel and M is the total number of subscribed patterns (by any client).",
     .args = publish_args},
    {.name = "subscribe", .proc = cmd_subscribe, .arity = -2, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.0.0",
     .summary = "Listen for messages published to the given channels",
     .complexity = "O(N) where N is the number of channels to subscribe to.",
     .args = subscribe_args},
    {.name = "psubscribe", .proc = cmd_psubscribe, .arity = -2, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.0.0",
     .summary = "Listen for messages published to channels matching the given patterns",
     .complexity = "O(N) where N is the number of patterns the client is already subscribed to.",
     .args = psubscribe_args},
    {.name = "unsubscribe", .proc = cmd_unsubscribe, .arity = -1, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.0.0",
     .summary = "Stop listening for messages posted to the given channels",
     .complexity = "O(N) where N is the number of clients already subscribed to a channel.",
     .args = unsubscribe_args},
    {.name = "punsubscribe", .proc = cmd_punsubscribe, .arity = -1, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW,
     .group = "pubsub", .since = "2.0.0",
     .summary = "Stop listening for messages posted to channels matching the given patterns",
     .complexity = "O(N+M) where N is the number of patterns the client is already subscribed and M is the number of total patterns subscribed in the system (by any client).",
     .args = punsubscribe_args},
    {.name = "pubsub", .proc = cmd_pubsub, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "pubsub", .since = "2.8.0", .summary = "A container for Pub/Sub commands",
     .complexity = "Depends on subcommand.", .subcmds = pubsub_subcmds},
    {.name = "spublish", .proc = cmd_spublish, .arity = 3, .flags = CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, .acl = CAT_PUBSUB | CAT_FAST, KEY_SPECS(spublish_keys),
     .group = "pubsub", .since = "7.0.0", .summary = "Post a message to a shard channel",
     .complexity = "O(N) where N is the number of clients subscribed to the receiving shard channel.",
     .args = spublish_args},
    {.name = "ssubscribe", .proc = cmd_ssubscribe, .arity = -2, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW, KEY_SPECS(ssubscribe_keys),
     .group = "pubsub", .since = "7.0.0",
     .summary = "Listen for messages published to the given shard channels",
     .complexity = "O(N) where N is the number of shard channels to subscribe to.",
     .args = ssubscribe_args},
    {.name = "sunsubscribe", .proc = cmd_sunsubscribe, .arity = -1, .flags = CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_PUBSUB | CAT_SLOW, KEY_SPECS(sunsubscribe_keys),
     .group = "pubsub", .since = "7.0.0",
     .summary = "Stop listening for messages posted to the given shard channels",
     .complexity = "O(N) where N is the number of clients already subscribed to a shard channel.",
     .args = sunsubscribe_args},
    {.name = "script", .proc = cmd_script, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "scripting", .since = "2.6.0",
     .summary = "A container for Lua scripts management commands",
     .complexity = "Depends on subcommand.", .subcmds = script_subcmds},
    /* issue 11: scripting, bitmaps, HyperLogLog, LCS, introspection */
    {.name = "eval", .proc = cmd_eval, .arity = -3, .flags = CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_MAY_REPLICATE, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(eval_keys),
     .group = "scripting", .since = "2.6.0", .summary = "Execute a Lua script server side",
     .complexity = "Depends on the script that is executed.", .args = eval_args},
    {.name = "evalsha", .proc = cmd_evalsha, .arity = -3, .flags = CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_MAY_REPLICATE, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(evalsha_keys),
     .group = "scripting", .since = "2.6.0", .summary = "Execute a Lua script server side",
     .complexity = "Depends on the script that is executed.", .args = evalsha_args},
    {.name = "eval_ro", .proc = cmd_eval_ro, .arity = -3, .flags = CMD_READONLY | CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(eval_ro_keys),
     .group = "scripting", .since = "7.0.0",
     .summary = "Execute a read-only Lua script server side",
     .complexity = "Depends on the script that is executed.", .args = eval_ro_args},
    {.name = "evalsha_ro", .proc = cmd_evalsha_ro, .arity = -3, .flags = CMD_READONLY | CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(evalsha_ro_keys),
     .group = "scripting", .since = "7.0.0",
     .summary = "Execute a read-only Lua script server side",
     .complexity = "Depends on the script that is executed.", .args = evalsha_ro_args},
    {.name = "function", .proc = cmd_function, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "scripting", .since = "7.0.0", .summary = "A container for function commands",
     .complexity = "Depends on subcommand.", .subcmds = function_subcmds},
    {.name = "fcall", .proc = cmd_fcall, .arity = -3, .flags = CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS | CMD_MAY_REPLICATE, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(fcall_keys),
     .group = "scripting", .since = "7.0.0", .summary = "Invoke a function",
     .complexity = "Depends on the function that is executed.", .args = fcall_args},
    {.name = "fcall_ro", .proc = cmd_fcall_ro, .arity = -3, .flags = CMD_READONLY | CMD_NOSCRIPT | CMD_STALE | CMD_SKIP_MONITOR | CMD_NO_MANDATORY_KEYS, .acl = CAT_SLOW | CAT_SCRIPTING, KEY_SPECS(fcall_ro_keys),
     .group = "scripting", .since = "7.0.0", .summary = "Invoke a read-only function",
     .complexity = "Depends on the function that is executed.", .args = fcall_ro_args},
    {.name = "setbit", .proc = cmd_setbit, .arity = 4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_BITMAP | CAT_SLOW, KEY_SPECS(setbit_keys),
     .group = "bitmap", .since = "2.2.0",
     .summary = "Sets or clears the bit at offset in the string value stored at key",
     .complexity = "O(1)", .args = setbit_args},
    {.name = "getbit", .proc = cmd_getbit, .arity = 3, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_BITMAP | CAT_FAST, KEY_SPECS(getbit_keys),
     .group = "bitmap", .since = "2.2.0",
     .summary = "Returns the bit value at offset in the string value stored at key",
     .complexity = "O(1)", .args = getbit_args},
    {.name = "bitcount", .proc = cmd_bitcount, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_BITMAP | CAT_SLOW, KEY_SPECS(bitcount_keys),
     .group = "bitmap", .since = "2.6.0", .summary = "Count set bits in a string",
     .complexity = "O(N)", .history = bitcount_history, .args = bitcount_args},
    {.name = "bitpos", .proc = cmd_bitpos, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_BITMAP | CAT_SLOW, KEY_SPECS(bitpos_keys),
     .group = "bitmap", .since = "2.8.7", .summary = "Find first bit set or clear in a string",
     .complexity = "O(N)", .history = bitpos_history, .args = bitpos_args},
    {.name = "bitop", .proc = cmd_bitop, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_BITMAP | CAT_SLOW, KEY_SPECS(bitop_keys),
     .group = "bitmap", .since = "2.6.0",
     .summary = "Perform bitwise operations between strings", .complexity = "O(N)",
     .args = bitop_args},
    {.name = "bitfield", .proc = cmd_bitfield, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_BITMAP | CAT_SLOW, KEY_SPECS(bitfield_keys), .getkeys = bitfield_getkeys,
     .group = "bitmap", .since = "3.2.0",
     .summary = "Perform arbitrary bitfield integer operations on strings",
     .complexity = "O(1) for each subcommand specified", .args = bitfield_args},
    {.name = "bitfield_ro", .proc = cmd_bitfield_ro, .arity = -2, .flags = CMD_READONLY | CMD_FAST, .acl = CAT_READ | CAT_BITMAP | CAT_FAST, KEY_SPECS(bitfield_ro_keys),
     .group = "bitmap", .since = "6.0.0",
     .summary = "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
     .complexity = "O(1) for each subcommand specified", .args = bitfield_ro_args},
    {.name = "pfadd", .proc = cmd_pfadd, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM | CMD_FAST, .acl = CAT_WRITE | CAT_HYPERLOGLOG | CAT_FAST, KEY_SPECS(pfadd_keys),
     .group = "hyperloglog", .since = "2.8.9",
     .summary = "Adds the specified elements to the specified HyperLogLog.",
     .complexity = "O(1) to add every element.", .args = pfadd_args},
    {.name = "pfcount", .proc = cmd_pfcount, .arity = -2, .flags = CMD_READONLY | CMD_MAY_REPLICATE, .acl = CAT_READ | CAT_HYPERLOGLOG | CAT_SLOW, KEY_SPECS(pfcount_keys),
     .group = "hyperloglog", .since = "2.8.9",
     .summary = "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
     .complexity = "O(1) with a very small average constant time when called with a single key. O(N) with N being the number of keys, and much bigger constant times, when called with multiple keys.",
     .args = pfcount_args},
    {.name = "pfmerge", .proc = cmd_pfmerge, .arity = -2, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_HYPERLOGLOG | CAT_SLOW, KEY_SPECS(pfmerge_keys),
     .group = "hyperloglog", .since = "2.8.9",
     .summary = "Merge N different HyperLogLogs into a single one.",
     .complexity = "O(N) to merge N HyperLogLogs, but with high constant times.",
     .args = pfmerge_args},
    {.name = "pfdebug", .proc = cmd_pfdebug, .arity = 3, .flags = CMD_WRITE | CMD_DENYOOM | CMD_ADMIN, .acl = CAT_WRITE | CAT_HYPERLOGLOG | CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(pfdebug_keys),
     .group = "hyperloglog", .since = "2.8.9",
     .summary = "Internal commands for debugging HyperLogLog values", .complexity = "N/A",
     .doc_flags = DOC_SYSCMD, .args = pfdebug_args},
    {.name = "pfselftest", .proc = cmd_pfselftest, .arity = 1, .flags = CMD_ADMIN, .acl = CAT_HYPERLOGLOG | CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "hyperloglog", .since = "2.8.9",
     .summary = "An internal command for testing HyperLogLog values", .complexity = "N/A",
     .doc_flags = DOC_SYSCMD},
    {.name = "geoadd", .proc = cmd_geoadd, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_GEO | CAT_SLOW, KEY_SPECS(geoadd_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Add one or more geospatial items in the geospatial index represented using a sorted set",
     .complexity = "O(log(N)) for each item added, where N is the number of elements in the sorted set.",
     .history = geoadd_history, .args = geoadd_args},
    {.name = "geodist", .proc = cmd_geodist, .arity = -4, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(geodist_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Returns the distance between two members of a geospatial index",
     .complexity = "O(log(N))", .args = geodist_args},
    {.name = "geohash", .proc = cmd_geohash, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(geohash_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Returns members of a geospatial index as standard geohash strings",
     .complexity = "O(log(N)) for each member requested, where N is the number of elements in the sorted set.",
     .args = geohash_args},
    {.name = "geopos", .proc = cmd_geopos, .arity = -2, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(geopos_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Returns longitude and latitude of members of a geospatial index",
     .complexity = "O(N) where N is the number of members requested.", .args = geopos_args},
    {.name = "geosearch", .proc = cmd_geosearch, .arity = -7, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(geosearch_keys),
     .group = "geo", .since = "6.2.0",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle.",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
     .history = geosearch_history, .args = geosearch_args},
    {.name = "geosearchstore", .proc = cmd_geosearchstore, .arity = -8, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_GEO | CAT_SLOW, KEY_SPECS(geosearchstore_keys),
     .group = "geo", .since = "6.2.0",
     .summary = "Query a sorted set representing a geospatial index to fetch members inside an area of a box or a circle, and store the result in another key.",
     .complexity = "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around the shape provided as the filter and M is the number of items inside the shape",
     .history = geosearchstore_history, .args = geosearchstore_args},
    {.name = "georadius", .proc = cmd_georadius, .arity = -6, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_GEO | CAT_SLOW, KEY_SPECS(georadius_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a point",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` argument",
     .history = georadius_history, .args = georadius_args},
    {.name = "georadius_ro", .proc = cmd_georadius_ro, .arity = -6, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(georadius_ro_keys),
     .group = "geo", .since = "3.2.10", .summary = "A read-only variant for GEORADIUS",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` with the `BYRADIUS` argument", .history = georadius_ro_history,
     .args = georadius_ro_args},
    {.name = "georadiusbymember", .proc = cmd_georadiusbymember, .arity = -5, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_WRITE | CAT_GEO | CAT_SLOW, KEY_SPECS(georadiusbymember_keys),
     .group = "geo", .since = "3.2.0",
     .summary = "Query a sorted set representing a geospatial index to fetch members matching a given maximum distance from a member",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and `FROMMEMBER` arguments",
     .history = georadiusbymember_history, .args = georadiusbymember_args},
    {.name = "georadiusbymember_ro", .proc = cmd_georadiusbymember_ro, .arity = -5, .flags = CMD_READONLY, .acl = CAT_READ | CAT_GEO | CAT_SLOW, KEY_SPECS(georadiusbymember_ro_keys),
     .group = "geo", .since = "3.2.10", .summary = "A read-only variant for GEORADIUSBYMEMBER",
     .complexity = "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area delimited by center and radius and M is the number of items inside the index.",
     .doc_flags = DOC_DEPRECATED, .deprecated_since = "6.2.0",
     .replaced_by = "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
     .args = georadiusbymember_ro_args},
    {.name = "lcs", .proc = cmd_lcs, .arity = -3, .flags = CMD_READONLY, .acl = CAT_READ | CAT_STRING | CAT_SLOW, KEY_SPECS(lcs_keys),
     .group = "string", .since = "7.0.0", .summary = "Find longest common substring",
     .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
     .args = lcs_args},
    {.name = "monitor", .proc = cmd_monitor, .arity = 1, .flags = CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, .acl = CAT_ADMIN | CAT_SLOW | CAT_DANGEROUS,
     .group = "server", .since = "1.0.0",
     .summary = "Listen for all requests received by the server in real time"},
    {.name = "slowlog", .proc = cmd_slowlog, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "2.2.12", .summary = "A container for slow log commands",
     .complexity = "Depends on subcommand.", .subcmds = slowlog_subcmds},
    {.name = "latency", .proc = cmd_latency, .arity = -2, .flags = 0, .acl = CAT_SLOW,
     .group = "server", .since = "2.8.13",
     .summary = "A container for latency diagnostics commands",
     .complexity = "Depends on subcommand.", .subcmds = latency_subcmds},
    {.name = "reset", .proc = cmd_reset, .arity = 1, .flags = CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NOAUTH | CMD_ALLOW_BUSY, .acl = CAT_FAST | CAT_CONNECTION,
     .group = "connection", .since = "6.2.0", .summary = "Reset the connection",
     .complexity = "O(1)"},
};

size_t commands_count(void) { return sizeof table / sizeof table[0]; }
cmd_def *commands_table(void) { return table; }
