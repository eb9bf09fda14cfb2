/* commands_doc: the argument, history and tips arrays that COMMAND DOCS and
 * COMMAND INFO report, as Redis 7.0.15 documents the same commands.
 * Included only by commands.c (static data). */
#ifndef VERSO_COMMANDS_DOC_H
#define VERSO_COMMANDS_DOC_H

static const cmd_arg get_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const set_history[] = {"2.6.12", "Added the `EX`, `PX`, `NX` and `XX` options.", "6.0.0", "Added the `KEEPTTL` option.", "6.2.0", "Added the `GET`, `EXAT` and `PXAT` option.", "7.0.0", "Allowed the `NX` and `GET` options to be used together.", NULL};
static const cmd_arg set_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {0}};
static const cmd_arg set_expiration_args[] = {
    {.name = "seconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "EX", .since = "2.6.12"},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "PX", .since = "2.6.12"},
    {.name = "unix-time-seconds", .type = ARG_UNIX_TIME, .key_spec_index = -1, .token = "EXAT", .since = "6.2.0"},
    {.name = "unix-time-milliseconds", .type = ARG_UNIX_TIME, .key_spec_index = -1, .token = "PXAT", .since = "6.2.0"},
    {.name = "keepttl", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KEEPTTL", .since = "6.0.0"},
    {0}};
static const cmd_arg set_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "2.6.12", .flags = ARGF_OPTIONAL, .subargs = set_condition_args},
    {.name = "get", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GET", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "expiration", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = set_expiration_args},
    {0}};
static const cmd_arg setnx_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg setex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "seconds", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg psetex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg getset_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg getdel_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg getex_expiration_args[] = {
    {.name = "seconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "EX"},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "PX"},
    {.name = "unix-time-seconds", .type = ARG_UNIX_TIME, .key_spec_index = -1, .token = "EXAT"},
    {.name = "unix-time-milliseconds", .type = ARG_UNIX_TIME, .key_spec_index = -1, .token = "PXAT"},
    {.name = "persist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "PERSIST"},
    {0}};
static const cmd_arg getex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "expiration", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = getex_expiration_args},
    {0}};
static const char *const mget_tips[] = {"request_policy:multi_shard", NULL};
static const cmd_arg mget_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const mset_tips[] = {"request_policy:multi_shard", "response_policy:all_succeeded", NULL};
static const cmd_arg mset_key_value_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg mset_args[] = {
    {.name = "key_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = mset_key_value_args},
    {0}};
static const char *const msetnx_tips[] = {"request_policy:multi_shard", "response_policy:agg_min", NULL};
static const cmd_arg msetnx_key_value_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg msetnx_args[] = {
    {.name = "key_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = msetnx_key_value_args},
    {0}};
static const cmd_arg append_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg strlen_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg incr_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg decr_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg incrby_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "increment", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg decrby_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "decrement", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg incrbyfloat_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "increment", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg getrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg substr_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg setrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const del_tips[] = {"request_policy:multi_shard", "response_policy:agg_sum", NULL};
static const cmd_arg del_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const unlink_tips[] = {"request_policy:multi_shard", "response_policy:agg_sum", NULL};
static const cmd_arg unlink_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const exists_tips[] = {"request_policy:multi_shard", "response_policy:agg_sum", NULL};
static const char *const exists_history[] = {"3.0.3", "Accepts multiple `key` arguments.", NULL};
static const cmd_arg exists_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg type_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const touch_tips[] = {"request_policy:multi_shard", "response_policy:agg_sum", NULL};
static const cmd_arg touch_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const keys_tips[] = {"request_policy:all_shards", "nondeterministic_output_order", NULL};
static const cmd_arg keys_args[] = {
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1},
    {0}};
static const char *const scan_tips[] = {"nondeterministic_output", "request_policy:special", NULL};
static const char *const scan_history[] = {"6.0.0", "Added the `TYPE` subcommand.", NULL};
static const cmd_arg scan_args[] = {
    {.name = "cursor", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .token = "MATCH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {.name = "type", .type = ARG_STRING, .key_spec_index = -1, .token = "TYPE", .since = "6.0.0", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const randomkey_tips[] = {"request_policy:all_shards", "nondeterministic_output", NULL};
static const cmd_arg rename_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "newkey", .type = ARG_KEY, .key_spec_index = 1},
    {0}};
static const char *const renamenx_history[] = {"3.2.0", "The command no longer returns an error when source and destination names are the same.", NULL};
static const cmd_arg renamenx_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "newkey", .type = ARG_KEY, .key_spec_index = 1},
    {0}};
static const cmd_arg copy_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "destination-db", .type = ARG_INTEGER, .key_spec_index = -1, .token = "DB", .flags = ARGF_OPTIONAL},
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg move_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "db", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const char *const object_encoding_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg object_encoding_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const object_freq_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg object_freq_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const object_idletime_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg object_idletime_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const object_refcount_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg object_refcount_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg sort_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg sort_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg sort_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = 1, .token = "BY", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = sort_offset_count_args},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = 1, .token = "GET", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE | ARGF_MULTIPLE_TOKEN},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = sort_order_args},
    {.name = "sorting", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ALPHA", .flags = ARGF_OPTIONAL},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 2, .token = "STORE", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg sort_ro_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg sort_ro_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg sort_ro_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = 1, .token = "BY", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = sort_ro_offset_count_args},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = 1, .token = "GET", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE | ARGF_MULTIPLE_TOKEN},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = sort_ro_order_args},
    {.name = "sorting", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ALPHA", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const expire_history[] = {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.", NULL};
static const cmd_arg expire_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {.name = "gt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GT"},
    {.name = "lt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LT"},
    {0}};
static const cmd_arg expire_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "seconds", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = expire_condition_args},
    {0}};
static const char *const pexpire_history[] = {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.", NULL};
static const cmd_arg pexpire_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {.name = "gt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GT"},
    {.name = "lt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LT"},
    {0}};
static const cmd_arg pexpire_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = pexpire_condition_args},
    {0}};
static const char *const expireat_history[] = {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.", NULL};
static const cmd_arg expireat_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {.name = "gt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GT"},
    {.name = "lt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LT"},
    {0}};
static const cmd_arg expireat_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "unix-time-seconds", .type = ARG_UNIX_TIME, .key_spec_index = -1},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = expireat_condition_args},
    {0}};
static const char *const pexpireat_history[] = {"7.0.0", "Added options: `NX`, `XX`, `GT` and `LT`.", NULL};
static const cmd_arg pexpireat_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {.name = "gt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GT"},
    {.name = "lt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LT"},
    {0}};
static const cmd_arg pexpireat_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "unix-time-milliseconds", .type = ARG_UNIX_TIME, .key_spec_index = -1},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = pexpireat_condition_args},
    {0}};
static const cmd_arg expiretime_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg pexpiretime_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const ttl_tips[] = {"nondeterministic_output", NULL};
static const char *const ttl_history[] = {"2.8.0", "Added the -2 reply.", NULL};
static const cmd_arg ttl_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const pttl_tips[] = {"nondeterministic_output", NULL};
static const char *const pttl_history[] = {"2.8.0", "Added the -2 reply.", NULL};
static const cmd_arg pttl_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg persist_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const dbsize_tips[] = {"request_policy:all_shards", "response_policy:agg_sum", NULL};
static const cmd_arg select_args[] = {
    {.name = "index", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const char *const flushdb_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const char *const flushdb_history[] = {"4.0.0", "Added the `ASYNC` flushing mode modifier.", "6.2.0", "Added the `SYNC` flushing mode modifier.", NULL};
static const cmd_arg flushdb_async_args[] = {
    {.name = "async", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASYNC", .since = "4.0.0"},
    {.name = "sync", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SYNC", .since = "6.2.0"},
    {0}};
static const cmd_arg flushdb_args[] = {
    {.name = "async", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = flushdb_async_args},
    {0}};
static const cmd_arg swapdb_args[] = {
    {.name = "index1", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "index2", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg lolwut_args[] = {
    {.name = "version", .type = ARG_INTEGER, .key_spec_index = -1, .token = "VERSION", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg module_loadex_configs_args[] = {
    {.name = "name", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg module_loadex_args_args[] = {
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg module_loadex_args[] = {
    {.name = "path", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "configs", .type = ARG_BLOCK, .key_spec_index = -1, .token = "CONFIG", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE | ARGF_MULTIPLE_TOKEN, .subargs = module_loadex_configs_args},
    {.name = "args", .type = ARG_BLOCK, .key_spec_index = -1, .token = "ARGS", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE, .subargs = module_loadex_args_args},
    {0}};
static const cmd_arg module_load_args[] = {
    {.name = "path", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const module_list_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg module_unload_args[] = {
    {.name = "name", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const flushall_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const char *const flushall_history[] = {"4.0.0", "Added the `ASYNC` flushing mode modifier.", "6.2.0", "Added the `SYNC` flushing mode modifier.", NULL};
static const cmd_arg flushall_async_args[] = {
    {.name = "async", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASYNC", .since = "4.0.0"},
    {.name = "sync", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SYNC", .since = "6.2.0"},
    {0}};
static const cmd_arg flushall_args[] = {
    {.name = "async", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = flushall_async_args},
    {0}};
static const char *const ping_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const cmd_arg ping_args[] = {
    {.name = "message", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg echo_args[] = {
    {.name = "message", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const info_tips[] = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special", NULL};
static const char *const info_history[] = {"7.0.0", "Added support for taking multiple section arguments.", NULL};
static const cmd_arg info_args[] = {
    {.name = "section", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const config_get_history[] = {"7.0.0", "Added the ability to pass multiple pattern parameters in one call", NULL};
static const cmd_arg config_get_parameter_args[] = {
    {.name = "parameter", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg config_get_args[] = {
    {.name = "parameter", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = config_get_parameter_args},
    {0}};
static const char *const config_set_tips[] = {"request_policy:all_nodes", "response_policy:all_succeeded", NULL};
static const char *const config_set_history[] = {"7.0.0", "Added the ability to set multiple parameters in one call.", NULL};
static const cmd_arg config_set_parameter_value_args[] = {
    {.name = "parameter", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg config_set_args[] = {
    {.name = "parameter_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = config_set_parameter_value_args},
    {0}};
static const char *const command_docs_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg command_docs_args[] = {
    {.name = "command-name", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const command_info_tips[] = {"nondeterministic_output_order", NULL};
static const char *const command_info_history[] = {"7.0.0", "Allowed to be called with no argument to get info on all commands.", NULL};
static const cmd_arg command_info_args[] = {
    {.name = "command-name", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const command_list_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg command_list_filterby_args[] = {
    {.name = "module-name", .type = ARG_STRING, .key_spec_index = -1, .token = "MODULE"},
    {.name = "category", .type = ARG_STRING, .key_spec_index = -1, .token = "ACLCAT"},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .token = "PATTERN"},
    {0}};
static const cmd_arg command_list_args[] = {
    {.name = "filterby", .type = ARG_ONEOF, .key_spec_index = -1, .token = "FILTERBY", .flags = ARGF_OPTIONAL, .subargs = command_list_filterby_args},
    {0}};
static const char *const command_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg client_setname_args[] = {
    {.name = "connection-name", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const client_list_tips[] = {"nondeterministic_output", NULL};
static const char *const client_list_history[] = {"2.8.12", "Added unique client `id` field.", "5.0.0", "Added optional `TYPE` filter.", "6.0.0", "Added `user` field.", "6.2.0", "Added `argv-mem`, `tot-mem`, `laddr` and `redir` fields and the optional `ID` filter.", "7.0.0", "Added `resp`, `multi-mem`, `rbs` and `rbp` fields.", "7.0.3", "Added `ssub` field.", NULL};
static const cmd_arg client_list_normal_master_replica_pubsub_args[] = {
    {.name = "normal", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NORMAL"},
    {.name = "master", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MASTER"},
    {.name = "replica", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLICA"},
    {.name = "pubsub", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "PUBSUB"},
    {0}};
static const cmd_arg client_list_id_args[] = {
    {.name = "client-id", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg client_list_args[] = {
    {.name = "normal_master_replica_pubsub", .type = ARG_ONEOF, .key_spec_index = -1, .token = "TYPE", .since = "5.0.0", .flags = ARGF_OPTIONAL, .subargs = client_list_normal_master_replica_pubsub_args},
    {.name = "id", .type = ARG_BLOCK, .key_spec_index = -1, .token = "ID", .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = client_list_id_args},
    {0}};
static const char *const client_info_tips[] = {"nondeterministic_output", NULL};
static const char *const client_kill_history[] = {"2.8.12", "Added new filter format.", "2.8.12", "`ID` option.", "3.2.0", "Added `master` type in for `TYPE` option.", "5.0.0", "Replaced `slave` `TYPE` with `replica`. `slave` still supported for backward compatibility.", "6.2.0", "`LADDR` option.", NULL};
static const cmd_arg client_kill_filter_new_format_normal_master_slave_pubsub_args[] = {
    {.name = "normal", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NORMAL"},
    {.name = "master", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MASTER", .since = "3.2.0"},
    {.name = "slave", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SLAVE"},
    {.name = "replica", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLICA", .since = "5.0.0"},
    {.name = "pubsub", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "PUBSUB"},
    {0}};
static const cmd_arg client_kill_filter_new_format_args[] = {
    {.name = "client-id", .type = ARG_INTEGER, .key_spec_index = -1, .token = "ID", .since = "2.8.12", .flags = ARGF_OPTIONAL},
    {.name = "normal_master_slave_pubsub", .type = ARG_ONEOF, .key_spec_index = -1, .token = "TYPE", .since = "2.8.12", .flags = ARGF_OPTIONAL, .subargs = client_kill_filter_new_format_normal_master_slave_pubsub_args},
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1, .token = "USER", .flags = ARGF_OPTIONAL},
    {.name = "ip:port", .type = ARG_STRING, .key_spec_index = -1, .token = "ADDR", .flags = ARGF_OPTIONAL},
    {.name = "ip:port", .type = ARG_STRING, .key_spec_index = -1, .token = "LADDR", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "yes/no", .type = ARG_STRING, .key_spec_index = -1, .token = "SKIPME", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg client_kill_filter_args[] = {
    {.name = "ip:port", .type = ARG_STRING, .key_spec_index = -1, .deprecated_since = "2.8.12"},
    {.name = "new-format", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = client_kill_filter_new_format_args},
    {0}};
static const cmd_arg client_kill_args[] = {
    {.name = "filter", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = client_kill_filter_args},
    {0}};
static const char *const hello_history[] = {"6.2.0", "`protover` made optional; when called without arguments the command reports the current connection's context.", NULL};
static const cmd_arg hello_arguments_username_password_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hello_arguments_args[] = {
    {.name = "protover", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "username_password", .type = ARG_BLOCK, .key_spec_index = -1, .token = "AUTH", .flags = ARGF_OPTIONAL, .subargs = hello_arguments_username_password_args},
    {.name = "clientname", .type = ARG_STRING, .key_spec_index = -1, .token = "SETNAME", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg hello_args[] = {
    {.name = "arguments", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = hello_arguments_args},
    {0}};
static const char *const auth_history[] = {"6.0.0", "Added ACL style (username and password).", NULL};
static const cmd_arg auth_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1, .since = "6.0.0", .flags = ARGF_OPTIONAL},
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const time_tips[] = {"nondeterministic_output", NULL};
static const char *const shutdown_history[] = {"7.0.0", "Added the `NOW`, `FORCE` and `ABORT` modifiers.", NULL};
static const cmd_arg shutdown_nosave_save_args[] = {
    {.name = "nosave", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NOSAVE"},
    {.name = "save", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SAVE"},
    {0}};
static const cmd_arg shutdown_args[] = {
    {.name = "nosave_save", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = shutdown_nosave_save_args},
    {.name = "now", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NOW", .since = "7.0.0", .flags = ARGF_OPTIONAL},
    {.name = "force", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FORCE", .since = "7.0.0", .flags = ARGF_OPTIONAL},
    {.name = "abort", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ABORT", .since = "7.0.0", .flags = ARGF_OPTIONAL},
    {0}};


static const cmd_arg watch_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};

/* ---- collections (hashes, lists, sets, sorted sets) and MEMORY ---- */
static const char *const hset_history[] = {"4.0.0", "Accepts multiple `field` and `value` arguments.", NULL};
static const cmd_arg hset_field_value_args[] = {
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hset_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = hset_field_value_args},
    {0}};
static const cmd_arg hsetnx_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hget_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hmget_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg hmset_field_value_args[] = {
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hmset_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = hmset_field_value_args},
    {0}};
static const char *const hdel_history[] = {"2.4.0", "Accepts multiple `field` arguments.", NULL};
static const cmd_arg hdel_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg hlen_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg hstrlen_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg hexists_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const hkeys_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg hkeys_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const hvals_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg hvals_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const hgetall_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg hgetall_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg hincrby_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "increment", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg hincrbyfloat_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "increment", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const char *const hrandfield_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg hrandfield_options_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "withvalues", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHVALUES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg hrandfield_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "options", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = hrandfield_options_args},
    {0}};
static const char *const hscan_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg hscan_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "cursor", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .token = "MATCH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const lpush_history[] = {"2.4.0", "Accepts multiple `element` arguments.", NULL};
static const cmd_arg lpush_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const rpush_history[] = {"2.4.0", "Accepts multiple `element` arguments.", NULL};
static const cmd_arg rpush_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const lpushx_history[] = {"4.0.0", "Accepts multiple `element` arguments.", NULL};
static const cmd_arg lpushx_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const rpushx_history[] = {"4.0.0", "Accepts multiple `element` arguments.", NULL};
static const cmd_arg rpushx_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const lpop_history[] = {"6.2.0", "Added the `count` argument.", NULL};
static const cmd_arg lpop_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const rpop_history[] = {"6.2.0", "Added the `count` argument.", NULL};
static const cmd_arg rpop_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg llen_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg lindex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "index", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg lset_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "index", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg linsert_where_args[] = {
    {.name = "before", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BEFORE"},
    {.name = "after", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "AFTER"},
    {0}};
static const cmd_arg linsert_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "where", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = linsert_where_args},
    {.name = "pivot", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg lrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "stop", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg lrem_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg ltrim_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "stop", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg lpos_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "rank", .type = ARG_INTEGER, .key_spec_index = -1, .token = "RANK", .flags = ARGF_OPTIONAL},
    {.name = "num-matches", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {.name = "len", .type = ARG_INTEGER, .key_spec_index = -1, .token = "MAXLEN", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg lmove_wherefrom_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg lmove_whereto_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg lmove_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "wherefrom", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = lmove_wherefrom_args},
    {.name = "whereto", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = lmove_whereto_args},
    {0}};
static const cmd_arg rpoplpush_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {0}};
static const cmd_arg lmpop_where_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg lmpop_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "where", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = lmpop_where_args},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const blpop_history[] = {"6.0.0", "`timeout` is interpreted as a double instead of an integer.", NULL};
static const cmd_arg blpop_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const char *const brpop_history[] = {"6.0.0", "`timeout` is interpreted as a double instead of an integer.", NULL};
static const cmd_arg brpop_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg blmove_wherefrom_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg blmove_whereto_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg blmove_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "wherefrom", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = blmove_wherefrom_args},
    {.name = "whereto", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = blmove_whereto_args},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const char *const brpoplpush_history[] = {"6.0.0", "`timeout` is interpreted as a double instead of an integer.", NULL};
static const cmd_arg brpoplpush_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg blmpop_where_args[] = {
    {.name = "left", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEFT"},
    {.name = "right", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "RIGHT"},
    {0}};
static const cmd_arg blmpop_args[] = {
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "where", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = blmpop_where_args},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const sadd_history[] = {"2.4.0", "Accepts multiple `member` arguments.", NULL};
static const cmd_arg sadd_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const srem_history[] = {"2.4.0", "Accepts multiple `member` arguments.", NULL};
static const cmd_arg srem_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg scard_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg sismember_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg smismember_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const smembers_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg smembers_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const srandmember_tips[] = {"nondeterministic_output", NULL};
static const char *const srandmember_history[] = {"2.6.0", "Added the optional `count` argument.", NULL};
static const cmd_arg srandmember_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .since = "2.6.0", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const spop_tips[] = {"nondeterministic_output", NULL};
static const char *const spop_history[] = {"3.2.0", "Added the `count` argument.", NULL};
static const cmd_arg spop_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .since = "3.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg smove_args[] = {
    {.name = "source", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const sinter_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg sinter_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg sintercard_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "limit", .type = ARG_INTEGER, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const sunion_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg sunion_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const sdiff_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg sdiff_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg sinterstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg sunionstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg sdiffstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const sscan_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg sscan_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "cursor", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .token = "MATCH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const zadd_history[] = {"2.4.0", "Accepts multiple elements.", "3.0.2", "Added the `XX`, `NX`, `CH` and `INCR` options.", "6.2.0", "Added the `GT` and `LT` options.", NULL};
static const cmd_arg zadd_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {0}};
static const cmd_arg zadd_comparison_args[] = {
    {.name = "gt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "GT"},
    {.name = "lt", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LT"},
    {0}};
static const cmd_arg zadd_score_member_args[] = {
    {.name = "score", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg zadd_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "3.0.2", .flags = ARGF_OPTIONAL, .subargs = zadd_condition_args},
    {.name = "comparison", .type = ARG_ONEOF, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = zadd_comparison_args},
    {.name = "change", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "CH", .since = "3.0.2", .flags = ARGF_OPTIONAL},
    {.name = "increment", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "INCR", .since = "3.0.2", .flags = ARGF_OPTIONAL},
    {.name = "score_member", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = zadd_score_member_args},
    {0}};
static const cmd_arg zincrby_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "increment", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const zrem_history[] = {"2.4.0", "Accepts multiple elements.", NULL};
static const cmd_arg zrem_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg zcard_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const cmd_arg zcount_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "max", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg zlexcount_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "max", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg zscore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg zmscore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg zrank_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg zrevrank_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const zrange_history[] = {"6.2.0", "Added the `REV`, `BYSCORE`, `BYLEX` and `LIMIT` options.", NULL};
static const cmd_arg zrange_sortby_args[] = {
    {.name = "byscore", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYSCORE"},
    {.name = "bylex", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYLEX"},
    {0}};
static const cmd_arg zrange_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "stop", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "sortby", .type = ARG_ONEOF, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = zrange_sortby_args},
    {.name = "rev", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REV", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = zrange_offset_count_args},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zrangestore_sortby_args[] = {
    {.name = "byscore", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYSCORE"},
    {.name = "bylex", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYLEX"},
    {0}};
static const cmd_arg zrangestore_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrangestore_args[] = {
    {.name = "dst", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "src", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "min", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "max", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "sortby", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = zrangestore_sortby_args},
    {.name = "rev", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REV", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = zrangestore_offset_count_args},
    {0}};
static const cmd_arg zrevrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "stop", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const zrangebyscore_history[] = {"2.0.0", "Added the `WITHSCORES` modifier.", NULL};
static const cmd_arg zrangebyscore_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrangebyscore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "max", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .since = "2.0.0", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = zrangebyscore_offset_count_args},
    {0}};
static const char *const zrevrangebyscore_history[] = {"2.1.6", "`min` and `max` can be exclusive.", NULL};
static const cmd_arg zrevrangebyscore_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrevrangebyscore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "max", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "min", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = zrevrangebyscore_offset_count_args},
    {0}};
static const cmd_arg zrangebylex_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrangebylex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "max", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = zrangebylex_offset_count_args},
    {0}};
static const cmd_arg zrevrangebylex_offset_count_args[] = {
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zrevrangebylex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "max", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "min", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset_count", .type = ARG_BLOCK, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL, .subargs = zrevrangebylex_offset_count_args},
    {0}};
static const cmd_arg zremrangebyrank_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "stop", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg zremrangebyscore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "max", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg zremrangebylex_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "min", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "max", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg zpopmin_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zpopmax_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const char *const bzpopmin_history[] = {"6.0.0", "`timeout` is interpreted as a double instead of an integer.", NULL};
static const cmd_arg bzpopmin_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const char *const bzpopmax_history[] = {"6.0.0", "`timeout` is interpreted as a double instead of an integer.", NULL};
static const cmd_arg bzpopmax_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg zmpop_where_args[] = {
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg zmpop_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "where", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = zmpop_where_args},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg bzmpop_where_args[] = {
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg bzmpop_args[] = {
    {.name = "timeout", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "where", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = bzmpop_where_args},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const zrandmember_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg zrandmember_options_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zrandmember_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "options", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = zrandmember_options_args},
    {0}};
static const cmd_arg zunion_aggregate_args[] = {
    {.name = "sum", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SUM"},
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg zunion_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "weight", .type = ARG_INTEGER, .key_spec_index = -1, .token = "WEIGHTS", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "aggregate", .type = ARG_ONEOF, .key_spec_index = -1, .token = "AGGREGATE", .flags = ARGF_OPTIONAL, .subargs = zunion_aggregate_args},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zinter_aggregate_args[] = {
    {.name = "sum", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SUM"},
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg zinter_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "weight", .type = ARG_INTEGER, .key_spec_index = -1, .token = "WEIGHTS", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "aggregate", .type = ARG_ONEOF, .key_spec_index = -1, .token = "AGGREGATE", .flags = ARGF_OPTIONAL, .subargs = zinter_aggregate_args},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zdiff_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "withscores", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHSCORES", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg zunionstore_aggregate_args[] = {
    {.name = "sum", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SUM"},
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg zunionstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {.name = "weight", .type = ARG_INTEGER, .key_spec_index = -1, .token = "WEIGHTS", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "aggregate", .type = ARG_ONEOF, .key_spec_index = -1, .token = "AGGREGATE", .flags = ARGF_OPTIONAL, .subargs = zunionstore_aggregate_args},
    {0}};
static const cmd_arg zinterstore_aggregate_args[] = {
    {.name = "sum", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SUM"},
    {.name = "min", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MIN"},
    {.name = "max", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAX"},
    {0}};
static const cmd_arg zinterstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {.name = "weight", .type = ARG_INTEGER, .key_spec_index = -1, .token = "WEIGHTS", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "aggregate", .type = ARG_ONEOF, .key_spec_index = -1, .token = "AGGREGATE", .flags = ARGF_OPTIONAL, .subargs = zinterstore_aggregate_args},
    {0}};
static const cmd_arg zdiffstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg zintercard_args[] = {
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "limit", .type = ARG_INTEGER, .key_spec_index = -1, .token = "LIMIT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const zscan_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg zscan_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "cursor", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .token = "MATCH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
/* streams: entries (cmd_stream.c) */
static const char *const xadd_tips[] = {"nondeterministic_output", NULL};
static const char *const xadd_history[] = {"6.2.0", "Added the `NOMKSTREAM` option, `MINID` trimming strategy and the `LIMIT` option.", "7.0.0", "Added support for the `<ms>-*` explicit ID form.", NULL};
static const cmd_arg xadd_trim_strategy_args[] = {
    {.name = "maxlen", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAXLEN"},
    {.name = "minid", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MINID", .since = "6.2.0"},
    {0}};
static const cmd_arg xadd_trim_operator_args[] = {
    {.name = "equal", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "="},
    {.name = "approximately", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "~"},
    {0}};
static const cmd_arg xadd_trim_args[] = {
    {.name = "strategy", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = xadd_trim_strategy_args},
    {.name = "operator", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = xadd_trim_operator_args},
    {.name = "threshold", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "LIMIT", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xadd_id_or_auto_args[] = {
    {.name = "auto_id", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "*"},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg xadd_field_value_args[] = {
    {.name = "field", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "value", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg xadd_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "nomkstream", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NOMKSTREAM", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "trim", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = xadd_trim_args},
    {.name = "id_or_auto", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = xadd_id_or_auto_args},
    {.name = "field_value", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = xadd_field_value_args},
    {0}};
static const cmd_arg xdel_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg xlen_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const xrange_history[] = {"6.2.0", "Added exclusive ranges.", NULL};
static const cmd_arg xrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "start", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "end", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xread_streams_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg xread_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "BLOCK", .flags = ARGF_OPTIONAL},
    {.name = "streams", .type = ARG_BLOCK, .key_spec_index = -1, .token = "STREAMS", .subargs = xread_streams_args},
    {0}};
static const char *const xrevrange_history[] = {"6.2.0", "Added exclusive ranges.", NULL};
static const cmd_arg xrevrange_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "end", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "start", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const xsetid_history[] = {"7.0.0", "Added the `entries_added` and `max_deleted_entry_id` arguments.", NULL};
static const cmd_arg xsetid_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "last-id", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "entries_added", .type = ARG_INTEGER, .key_spec_index = -1, .token = "ENTRIESADDED", .since = "7.0.0", .flags = ARGF_OPTIONAL},
    {.name = "max_deleted_entry_id", .type = ARG_STRING, .key_spec_index = -1, .token = "MAXDELETEDID", .since = "7.0.0", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const xtrim_tips[] = {"nondeterministic_output", NULL};
static const char *const xtrim_history[] = {"6.2.0", "Added the `MINID` trimming strategy and the `LIMIT` option.", NULL};
static const cmd_arg xtrim_trim_strategy_args[] = {
    {.name = "maxlen", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MAXLEN"},
    {.name = "minid", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MINID", .since = "6.2.0"},
    {0}};
static const cmd_arg xtrim_trim_operator_args[] = {
    {.name = "equal", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "="},
    {.name = "approximately", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "~"},
    {0}};
static const cmd_arg xtrim_trim_args[] = {
    {.name = "strategy", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = xtrim_trim_strategy_args},
    {.name = "operator", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = xtrim_trim_operator_args},
    {.name = "threshold", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "LIMIT", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xtrim_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "trim", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = xtrim_trim_args},
    {0}};
static const char *const memory_doctor_tips[] = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special", NULL};
static const char *const memory_purge_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const char *const memory_malloc_stats_tips[] = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special", NULL};
static const cmd_arg memory_usage_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "SAMPLES", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const memory_stats_tips[] = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special", NULL};

/* replication, pub/sub, scripting (issue 10) */
static const cmd_arg publish_args[] = {
    {.name = "channel", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "message", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg subscribe_args[] = {
    {.name = "channel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg psubscribe_pattern_args[] = {
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1},
    {0}};
static const cmd_arg psubscribe_args[] = {
    {.name = "pattern", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = psubscribe_pattern_args},
    {0}};
static const cmd_arg unsubscribe_args[] = {
    {.name = "channel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg punsubscribe_args[] = {
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg pubsub_numsub_args[] = {
    {.name = "channel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg pubsub_channels_args[] = {
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg pubsub_shardnumsub_args[] = {
    {.name = "shardchannel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg pubsub_shardchannels_args[] = {
    {.name = "pattern", .type = ARG_PATTERN, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg spublish_args[] = {
    {.name = "shardchannel", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "message", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg ssubscribe_args[] = {
    {.name = "shardchannel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg sunsubscribe_args[] = {
    {.name = "shardchannel", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const script_exists_tips[] = {"request_policy:all_shards", "response_policy:agg_logical_and", NULL};
static const cmd_arg script_exists_args[] = {
    {.name = "sha1", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const script_flush_tips[] = {"request_policy:all_nodes", "response_policy:all_succeeded", NULL};
static const char *const script_flush_history[] = {"6.2.0", "Added the `ASYNC` and `SYNC` flushing mode modifiers.", NULL};
static const cmd_arg script_flush_async_args[] = {
    {.name = "async", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASYNC"},
    {.name = "sync", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SYNC"},
    {0}};
static const cmd_arg script_flush_args[] = {
    {.name = "async", .type = ARG_ONEOF, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = script_flush_async_args},
    {0}};
static const char *const script_kill_tips[] = {"request_policy:all_shards", "response_policy:one_succeeded", NULL};

/* issue 11: scripting, bitmaps, HyperLogLog, LCS, introspection, clients */
static const cmd_arg eval_args[] = {
    {.name = "script", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg evalsha_args[] = {
    {.name = "sha1", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg eval_ro_args[] = {
    {.name = "script", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg evalsha_ro_args[] = {
    {.name = "sha1", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const function_flush_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const cmd_arg function_flush_async_args[] = {
    {.name = "async", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASYNC"},
    {.name = "sync", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SYNC"},
    {0}};
static const cmd_arg function_flush_args[] = {
    {.name = "async", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = function_flush_async_args},
    {0}};
static const char *const function_kill_tips[] = {"request_policy:all_shards", "response_policy:one_succeeded", NULL};
static const char *const function_load_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const cmd_arg function_load_args[] = {
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE", .flags = ARGF_OPTIONAL},
    {.name = "function-code", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const function_list_tips[] = {"nondeterministic_output_order", NULL};
static const cmd_arg function_list_args[] = {
    {.name = "library-name-pattern", .type = ARG_STRING, .key_spec_index = -1, .token = "LIBRARYNAME", .flags = ARGF_OPTIONAL},
    {.name = "withcode", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCODE", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const function_delete_tips[] = {"request_policy:all_shards", "response_policy:all_succeeded", NULL};
static const cmd_arg function_delete_args[] = {
    {.name = "library-name", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const function_stats_tips[] = {"nondeterministic_output", "request_policy:all_shards", "response_policy:special", NULL};
static const cmd_arg fcall_args[] = {
    {.name = "function", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg fcall_ro_args[] = {
    {.name = "function", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "numkeys", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {.name = "arg", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg setbit_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "value", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg getbit_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const char *const bitcount_history[] = {"7.0.0", "Added the `BYTE|BIT` option.", NULL};
static const cmd_arg bitcount_index_index_unit_args[] = {
    {.name = "byte", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYTE"},
    {.name = "bit", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BIT"},
    {0}};
static const cmd_arg bitcount_index_args[] = {
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "index_unit", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = bitcount_index_index_unit_args},
    {0}};
static const cmd_arg bitcount_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "index", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = bitcount_index_args},
    {0}};
static const char *const bitpos_history[] = {"7.0.0", "Added the `BYTE|BIT` option.", NULL};
static const cmd_arg bitpos_index_end_index_index_unit_args[] = {
    {.name = "byte", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BYTE"},
    {.name = "bit", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BIT"},
    {0}};
static const cmd_arg bitpos_index_end_index_args[] = {
    {.name = "end", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "index_unit", .type = ARG_ONEOF, .key_spec_index = -1, .since = "7.0.0", .flags = ARGF_OPTIONAL, .subargs = bitpos_index_end_index_index_unit_args},
    {0}};
static const cmd_arg bitpos_index_args[] = {
    {.name = "start", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "end_index", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = bitpos_index_end_index_args},
    {0}};
static const cmd_arg bitpos_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "bit", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "index", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = bitpos_index_args},
    {0}};
static const cmd_arg bitop_args[] = {
    {.name = "operation", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "destkey", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg bitfield_operation_encoding_offset_args[] = {
    {.name = "encoding", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg bitfield_operation_write_wrap_sat_fail_args[] = {
    {.name = "wrap", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WRAP"},
    {.name = "sat", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SAT"},
    {.name = "fail", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FAIL"},
    {0}};
static const cmd_arg bitfield_operation_write_write_operation_encoding_offset_value_args[] = {
    {.name = "encoding", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "value", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg bitfield_operation_write_write_operation_encoding_offset_increment_args[] = {
    {.name = "encoding", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "increment", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg bitfield_operation_write_write_operation_args[] = {
    {.name = "encoding_offset_value", .type = ARG_BLOCK, .key_spec_index = -1, .token = "SET", .subargs = bitfield_operation_write_write_operation_encoding_offset_value_args},
    {.name = "encoding_offset_increment", .type = ARG_BLOCK, .key_spec_index = -1, .token = "INCRBY", .subargs = bitfield_operation_write_write_operation_encoding_offset_increment_args},
    {0}};
static const cmd_arg bitfield_operation_write_args[] = {
    {.name = "wrap_sat_fail", .type = ARG_ONEOF, .key_spec_index = -1, .token = "OVERFLOW", .flags = ARGF_OPTIONAL, .subargs = bitfield_operation_write_wrap_sat_fail_args},
    {.name = "write_operation", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = bitfield_operation_write_write_operation_args},
    {0}};
static const cmd_arg bitfield_operation_args[] = {
    {.name = "encoding_offset", .type = ARG_BLOCK, .key_spec_index = -1, .token = "GET", .subargs = bitfield_operation_encoding_offset_args},
    {.name = "write", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = bitfield_operation_write_args},
    {0}};
static const cmd_arg bitfield_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "operation", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE, .subargs = bitfield_operation_args},
    {0}};
static const cmd_arg bitfield_ro_encoding_offset_args[] = {
    {.name = "encoding", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "offset", .type = ARG_INTEGER, .key_spec_index = -1},
    {0}};
static const cmd_arg bitfield_ro_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "encoding_offset", .type = ARG_BLOCK, .key_spec_index = -1, .token = "GET", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE | ARGF_MULTIPLE_TOKEN, .subargs = bitfield_ro_encoding_offset_args},
    {0}};
static const cmd_arg pfadd_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "element", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg pfcount_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg pfmerge_args[] = {
    {.name = "destkey", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "sourcekey", .type = ARG_KEY, .key_spec_index = 1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg pfdebug_args[] = {
    {.name = "subcommand", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const geoadd_history[] = {"6.2.0", "Added the `CH`, `NX` and `XX` options.", NULL};
static const cmd_arg geoadd_condition_args[] = {
    {.name = "nx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NX"},
    {.name = "xx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "XX"},
    {0}};
static const cmd_arg geoadd_longitude_latitude_member_args[] = {
    {.name = "longitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "latitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg geoadd_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "condition", .type = ARG_ONEOF, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = geoadd_condition_args},
    {.name = "change", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "CH", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "longitude_latitude_member", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_MULTIPLE, .subargs = geoadd_longitude_latitude_member_args},
    {0}};
static const cmd_arg geodist_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg geodist_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member1", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "member2", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = geodist_unit_args},
    {0}};
static const cmd_arg geohash_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg geopos_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const geosearch_history[] = {"7.0.0", "Added support for uppercase unit names.", NULL};
static const cmd_arg geosearch_from_longitude_latitude_args[] = {
    {.name = "longitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "latitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg geosearch_from_args[] = {
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .token = "FROMMEMBER"},
    {.name = "longitude_latitude", .type = ARG_BLOCK, .key_spec_index = -1, .token = "FROMLONLAT", .subargs = geosearch_from_longitude_latitude_args},
    {0}};
static const cmd_arg geosearch_by_circle_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg geosearch_by_circle_args[] = {
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1, .token = "BYRADIUS"},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearch_by_circle_unit_args},
    {0}};
static const cmd_arg geosearch_by_box_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg geosearch_by_box_args[] = {
    {.name = "width", .type = ARG_DOUBLE, .key_spec_index = -1, .token = "BYBOX"},
    {.name = "height", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearch_by_box_unit_args},
    {0}};
static const cmd_arg geosearch_by_args[] = {
    {.name = "circle", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = geosearch_by_circle_args},
    {.name = "box", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = geosearch_by_box_args},
    {0}};
static const cmd_arg geosearch_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg geosearch_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg geosearch_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "from", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearch_from_args},
    {.name = "by", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearch_by_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = geosearch_order_args},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = geosearch_count_args},
    {.name = "withcoord", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCOORD", .flags = ARGF_OPTIONAL},
    {.name = "withdist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHDIST", .flags = ARGF_OPTIONAL},
    {.name = "withhash", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHHASH", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const geosearchstore_history[] = {"7.0.0", "Added support for uppercase unit names.", NULL};
static const cmd_arg geosearchstore_from_longitude_latitude_args[] = {
    {.name = "longitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "latitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {0}};
static const cmd_arg geosearchstore_from_args[] = {
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1, .token = "FROMMEMBER"},
    {.name = "longitude_latitude", .type = ARG_BLOCK, .key_spec_index = -1, .token = "FROMLONLAT", .subargs = geosearchstore_from_longitude_latitude_args},
    {0}};
static const cmd_arg geosearchstore_by_circle_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg geosearchstore_by_circle_args[] = {
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1, .token = "BYRADIUS"},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearchstore_by_circle_unit_args},
    {0}};
static const cmd_arg geosearchstore_by_box_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg geosearchstore_by_box_args[] = {
    {.name = "width", .type = ARG_DOUBLE, .key_spec_index = -1, .token = "BYBOX"},
    {.name = "height", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearchstore_by_box_unit_args},
    {0}};
static const cmd_arg geosearchstore_by_args[] = {
    {.name = "circle", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = geosearchstore_by_circle_args},
    {.name = "box", .type = ARG_BLOCK, .key_spec_index = -1, .subargs = geosearchstore_by_box_args},
    {0}};
static const cmd_arg geosearchstore_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg geosearchstore_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg geosearchstore_args[] = {
    {.name = "destination", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "source", .type = ARG_KEY, .key_spec_index = 1},
    {.name = "from", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearchstore_from_args},
    {.name = "by", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = geosearchstore_by_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = geosearchstore_order_args},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = geosearchstore_count_args},
    {.name = "storedist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "STOREDIST", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const georadius_history[] = {"6.2.0", "Added the `ANY` option for `COUNT`.", "7.0.0", "Added support for uppercase unit names.", NULL};
static const cmd_arg georadius_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg georadius_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg georadius_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg georadius_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "longitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "latitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = georadius_unit_args},
    {.name = "withcoord", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCOORD", .flags = ARGF_OPTIONAL},
    {.name = "withdist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHDIST", .flags = ARGF_OPTIONAL},
    {.name = "withhash", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHHASH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadius_count_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadius_order_args},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .token = "STORE", .flags = ARGF_OPTIONAL},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 2, .token = "STOREDIST", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const georadius_ro_history[] = {"6.2.0", "Added the `ANY` option for `COUNT`.", NULL};
static const cmd_arg georadius_ro_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg georadius_ro_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg georadius_ro_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg georadius_ro_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "longitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "latitude", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = georadius_ro_unit_args},
    {.name = "withcoord", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCOORD", .flags = ARGF_OPTIONAL},
    {.name = "withdist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHDIST", .flags = ARGF_OPTIONAL},
    {.name = "withhash", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHHASH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadius_ro_count_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadius_ro_order_args},
    {0}};
static const char *const georadiusbymember_history[] = {"7.0.0", "Added support for uppercase unit names.", NULL};
static const cmd_arg georadiusbymember_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg georadiusbymember_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg georadiusbymember_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg georadiusbymember_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = georadiusbymember_unit_args},
    {.name = "withcoord", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCOORD", .flags = ARGF_OPTIONAL},
    {.name = "withdist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHDIST", .flags = ARGF_OPTIONAL},
    {.name = "withhash", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHHASH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadiusbymember_count_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadiusbymember_order_args},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .token = "STORE", .flags = ARGF_OPTIONAL},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 2, .token = "STOREDIST", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg georadiusbymember_ro_unit_args[] = {
    {.name = "m", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "M"},
    {.name = "km", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "KM"},
    {.name = "ft", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FT"},
    {.name = "mi", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MI"},
    {0}};
static const cmd_arg georadiusbymember_ro_count_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT"},
    {.name = "any", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ANY", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg georadiusbymember_ro_order_args[] = {
    {.name = "asc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ASC"},
    {.name = "desc", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "DESC"},
    {0}};
static const cmd_arg georadiusbymember_ro_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "member", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "radius", .type = ARG_DOUBLE, .key_spec_index = -1},
    {.name = "unit", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = georadiusbymember_ro_unit_args},
    {.name = "withcoord", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHCOORD", .flags = ARGF_OPTIONAL},
    {.name = "withdist", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHDIST", .flags = ARGF_OPTIONAL},
    {.name = "withhash", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHHASH", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadiusbymember_ro_count_args},
    {.name = "order", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = georadiusbymember_ro_order_args},
    {0}};
static const cmd_arg lcs_args[] = {
    {.name = "key1", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "key2", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "len", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "LEN", .flags = ARGF_OPTIONAL},
    {.name = "idx", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "IDX", .flags = ARGF_OPTIONAL},
    {.name = "len", .type = ARG_INTEGER, .key_spec_index = -1, .token = "MINMATCHLEN", .flags = ARGF_OPTIONAL},
    {.name = "withmatchlen", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WITHMATCHLEN", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const slowlog_len_tips[] = {"request_policy:all_nodes", "response_policy:agg_sum", "nondeterministic_output", NULL};
static const char *const slowlog_reset_tips[] = {"request_policy:all_nodes", "response_policy:all_succeeded", NULL};
static const char *const slowlog_get_tips[] = {"request_policy:all_nodes", "nondeterministic_output", NULL};
static const char *const slowlog_get_history[] = {"4.0.0", "Added client IP address, port and name to the reply.", NULL};
static const cmd_arg slowlog_get_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const char *const latency_graph_tips[] = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special", NULL};
static const cmd_arg latency_graph_args[] = {
    {.name = "event", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const latency_histogram_tips[] = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special", NULL};
static const cmd_arg latency_histogram_args[] = {
    {.name = "command", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const char *const latency_latest_tips[] = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special", NULL};
static const char *const latency_history_tips[] = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special", NULL};
static const cmd_arg latency_history_args[] = {
    {.name = "event", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const latency_doctor_tips[] = {"nondeterministic_output", "request_policy:all_nodes", "response_policy:special", NULL};
static const char *const latency_reset_tips[] = {"request_policy:all_nodes", "response_policy:all_succeeded", NULL};
static const cmd_arg latency_reset_args[] = {
    {.name = "event", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};
static const cmd_arg script_debug_mode_args[] = {
    {.name = "yes", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "YES"},
    {.name = "sync", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SYNC"},
    {.name = "no", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NO"},
    {0}};
static const cmd_arg script_debug_args[] = {
    {.name = "mode", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = script_debug_mode_args},
    {0}};
static const char *const script_load_tips[] = {"request_policy:all_nodes", "response_policy:all_succeeded", NULL};
static const cmd_arg script_load_args[] = {
    {.name = "script", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg client_caching_mode_args[] = {
    {.name = "yes", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "YES"},
    {.name = "no", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NO"},
    {0}};
static const cmd_arg client_caching_args[] = {
    {.name = "mode", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = client_caching_mode_args},
    {0}};
static const cmd_arg client_unblock_timeout_error_args[] = {
    {.name = "timeout", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "TIMEOUT"},
    {.name = "error", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ERROR"},
    {0}};
static const cmd_arg client_unblock_args[] = {
    {.name = "client-id", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "timeout_error", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = client_unblock_timeout_error_args},
    {0}};
static const cmd_arg client_no_evict_enabled_args[] = {
    {.name = "on", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ON"},
    {.name = "off", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "OFF"},
    {0}};
static const cmd_arg client_no_evict_args[] = {
    {.name = "enabled", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = client_no_evict_enabled_args},
    {0}};
static const cmd_arg client_tracking_status_args[] = {
    {.name = "on", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ON"},
    {.name = "off", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "OFF"},
    {0}};
static const cmd_arg client_tracking_args[] = {
    {.name = "status", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = client_tracking_status_args},
    {.name = "client-id", .type = ARG_INTEGER, .key_spec_index = -1, .token = "REDIRECT", .flags = ARGF_OPTIONAL},
    {.name = "prefix", .type = ARG_STRING, .key_spec_index = -1, .token = "PREFIX", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE | ARGF_MULTIPLE_TOKEN},
    {.name = "bcast", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "BCAST", .flags = ARGF_OPTIONAL},
    {.name = "optin", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "OPTIN", .flags = ARGF_OPTIONAL},
    {.name = "optout", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "OPTOUT", .flags = ARGF_OPTIONAL},
    {.name = "noloop", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NOLOOP", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg client_reply_on_off_skip_args[] = {
    {.name = "on", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ON"},
    {.name = "off", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "OFF"},
    {.name = "skip", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "SKIP"},
    {0}};
static const cmd_arg client_reply_args[] = {
    {.name = "on_off_skip", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = client_reply_on_off_skip_args},
    {0}};
static const char *const client_pause_history[] = {"6.2.0", "`CLIENT PAUSE WRITE` mode added along with the `mode` option.", NULL};
static const cmd_arg client_pause_mode_args[] = {
    {.name = "write", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "WRITE"},
    {.name = "all", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ALL"},
    {0}};
static const cmd_arg client_pause_args[] = {
    {.name = "timeout", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "mode", .type = ARG_ONEOF, .key_spec_index = -1, .since = "6.2.0", .flags = ARGF_OPTIONAL, .subargs = client_pause_mode_args},
    {0}};

/* streams: consumer groups (cmd_stream_cg.c) */
static const cmd_arg xack_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "group", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const char *const xautoclaim_tips[] = {"nondeterministic_output", NULL};
static const char *const xautoclaim_history[] = {"7.0.0", "Added an element to the reply array, containing deleted entries the command cleared from the PEL", NULL};
static const cmd_arg xautoclaim_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "group", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "consumer", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "min-idle-time", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "start", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {.name = "justid", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "JUSTID", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const xclaim_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg xclaim_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "group", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "consumer", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "min-idle-time", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {.name = "ms", .type = ARG_INTEGER, .key_spec_index = -1, .token = "IDLE", .flags = ARGF_OPTIONAL},
    {.name = "unix-time-milliseconds", .type = ARG_UNIX_TIME, .key_spec_index = -1, .token = "TIME", .flags = ARGF_OPTIONAL},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "RETRYCOUNT", .flags = ARGF_OPTIONAL},
    {.name = "force", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "FORCE", .flags = ARGF_OPTIONAL},
    {.name = "justid", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "JUSTID", .flags = ARGF_OPTIONAL},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .token = "LASTID", .flags = ARGF_OPTIONAL},
    {0}};
static const char *const xgroup_setid_history[] = {"7.0.0", "Added the optional `entries_read` argument.", NULL};
static const cmd_arg xgroup_setid_id_args[] = {
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "new_id", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "$"},
    {0}};
static const cmd_arg xgroup_setid_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "id", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = xgroup_setid_id_args},
    {.name = "entries_read", .type = ARG_INTEGER, .key_spec_index = -1, .token = "ENTRIESREAD", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xgroup_delconsumer_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "consumername", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const xgroup_create_history[] = {"7.0.0", "Added the `entries_read` named argument.", NULL};
static const cmd_arg xgroup_create_id_args[] = {
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "new_id", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "$"},
    {0}};
static const cmd_arg xgroup_create_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "id", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = xgroup_create_id_args},
    {.name = "mkstream", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "MKSTREAM", .flags = ARGF_OPTIONAL},
    {.name = "entries_read", .type = ARG_INTEGER, .key_spec_index = -1, .token = "ENTRIESREAD", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xgroup_destroy_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg xgroup_createconsumer_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "consumername", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const xinfo_groups_history[] = {"7.0.0", "Added the `entries-read` and `lag` fields", NULL};
static const cmd_arg xinfo_groups_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const xinfo_consumers_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg xinfo_consumers_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "groupname", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const char *const xinfo_stream_history[] = {"6.0.0", "Added the `FULL` modifier.", "7.0.0", "Added the `max-deleted-entry-id`, `entries-added`, `recorded-first-entry-id`, `entries-read` and `lag` fields", NULL};
static const cmd_arg xinfo_stream_full_args[] = {
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xinfo_stream_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "full", .type = ARG_BLOCK, .key_spec_index = -1, .token = "FULL", .flags = ARGF_OPTIONAL, .subargs = xinfo_stream_full_args},
    {0}};
static const char *const xpending_tips[] = {"nondeterministic_output", NULL};
static const char *const xpending_history[] = {"6.2.0", "Added the `IDLE` option and exclusive range intervals.", NULL};
static const cmd_arg xpending_filters_args[] = {
    {.name = "min-idle-time", .type = ARG_INTEGER, .key_spec_index = -1, .token = "IDLE", .since = "6.2.0", .flags = ARGF_OPTIONAL},
    {.name = "start", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "end", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "consumer", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_OPTIONAL},
    {0}};
static const cmd_arg xpending_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "group", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "filters", .type = ARG_BLOCK, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = xpending_filters_args},
    {0}};
static const cmd_arg xreadgroup_group_consumer_args[] = {
    {.name = "group", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "consumer", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg xreadgroup_streams_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0, .flags = ARGF_MULTIPLE},
    {.name = "id", .type = ARG_STRING, .key_spec_index = -1, .flags = ARGF_MULTIPLE},
    {0}};
static const cmd_arg xreadgroup_args[] = {
    {.name = "group_consumer", .type = ARG_BLOCK, .key_spec_index = -1, .token = "GROUP", .subargs = xreadgroup_group_consumer_args},
    {.name = "count", .type = ARG_INTEGER, .key_spec_index = -1, .token = "COUNT", .flags = ARGF_OPTIONAL},
    {.name = "milliseconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "BLOCK", .flags = ARGF_OPTIONAL},
    {.name = "noack", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "NOACK", .flags = ARGF_OPTIONAL},
    {.name = "streams", .type = ARG_BLOCK, .key_spec_index = -1, .token = "STREAMS", .subargs = xreadgroup_streams_args},
    {0}};

#endif
