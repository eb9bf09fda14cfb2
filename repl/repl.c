/* repl: the replication identity (ids, offset), INFO replication, ROLE,
 * and the registration of every part with the core (see repl.h,
 * repl_int.h). Main thread only. */
#include "repl.h"

#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "hooks.h"
#include "log.h"
#include "util.h"
#include "repl_int.h"

repl_state R;

void repl_new_id(char out[REPL_ID_LEN + 1]) {
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[REPL_ID_LEN / 2];
    random_bytes(raw, sizeof raw);
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[REPL_ID_LEN] = '\0';
}

void repl_shift_id(void) {
    memcpy(R.replid2, R.replid, sizeof R.replid2);
    R.second_offset = R.offset + 1;
    repl_new_id(R.replid);
}

void repl_set_id(const char *replid, long long offset) {
    snprintf(R.replid, sizeof R.replid, "%s", replid);
    memset(R.replid2, '0', REPL_ID_LEN);
    R.replid2[REPL_ID_LEN] = '\0';
    R.second_offset = -1;
    R.offset = offset;
    R.stream_db = -1;
}

/* INFO replication, in Redis 7.0's order: the role, a replica's link
 * fields, the replicas, then the history. */
static void repl_info(vbuf *b) {
    vbuf_appendf(b, "role:%s\r\n", replica_active() ? "slave" : "master");
    if (replica_active()) replica_info(b);
    primary_info(b);
    vbuf_appendf(b,
                 "master_failover_state:%s\r\n"
                 "master_replid:%s\r\nmaster_replid2:%s\r\n"
                 "master_repl_offset:%lld\r\nsecond_repl_offset:%lld\r\n",
                 failover_state_name(), R.replid, R.replid2, R.offset, R.second_offset);
    backlog_info(b);
}

/* The backlog's ring, allocated whole (repl-backlog-size). */
static size_t backlog_bytes(void) {
    return backlog_exists() ? (size_t)server.cfg.repl_backlog_size : 0;
}

static size_t buffer_memory(int kind) { return kind == HOOKS_MEM_BACKLOG ? backlog_bytes() : 0; }

/* INFO memory: what replication holds, as Redis 7.0 names it (the backlog
 * counts in the total). */
static void memory_info(vbuf *b) {
    size_t replicas = primary_buffered_bytes();
    size_t backlog = backlog_bytes();
    vbuf_appendf(b, "mem_replication_backlog:%zu\r\nmem_clients_slaves:%zu\r\n"
                    "mem_total_replication_buffers:%zu\r\n",
                 backlog, replicas, replicas + backlog);
}

static void info_hook(const char *section, vbuf *b) {
    if (!strcmp(section, "replication")) repl_info(b);
    else if (!strcmp(section, "memory")) memory_info(b);
}

/* DEBUG CHANGE-REPL-ID, as Redis's changeReplicationId and
 * clearReplicationId2: a new history, none before it. */
static void change_repl_id(void) {
    log_notice("Changing replication IDs after receiving DEBUG change-repl-id");
    repl_new_id(R.replid);
    memset(R.replid2, '0', REPL_ID_LEN);
    R.replid2[REPL_ID_LEN] = '\0';
    R.second_offset = -1;
}

static const hooks repl_hooks = {
    .name = "replication", .info = info_hook, .buffer_memory = buffer_memory,
    .debug_change_repl_id = change_repl_id};

void cmd_role(client *c) {
    if (replica_active()) replica_role(c);
    else primary_role(c);
}

void repl_init(void) {
    repl_new_id(R.replid);
    memset(R.replid2, '0', REPL_ID_LEN);
    R.replid2[REPL_ID_LEN] = '\0';
    R.offset = 0;
    R.second_offset = -1;
    R.stream_db = -1;
    repl_register_commands();
    hooks_register(&repl_hooks);
    primary_init();
    fullsync_init();
    replica_init();
    failover_init();
}
