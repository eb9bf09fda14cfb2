/* replica_info: what others see of a replica (see repl_int.h): ROLE,
 * INFO replication's replica fields, and the READONLY / MASTERDOWN gate,
 * all worded as Redis 7.0's. Reads replica.c's state (replica_int.h).
 * Main thread only. */
#include <stdio.h>
#include <time.h>

#include "cmd.h"
#include "multi.h"
#include "util.h"
#include "replica_int.h"

static const char *role_state(void) {
    switch (RP.state) {
    case RC_CONNECT: return "connect";
    case RC_CONNECTING: return "connecting";
    case RC_HANDSHAKE: return "handshake";
    case RC_TRANSFER: return "sync";
    case RC_CONNECTED: return "connected";
    }
    return "none";
}

void replica_role(client *c) {
    reply_array(c, 5);
    reply_bulk_str(c, "slave");
    reply_bulk_str(c, RP.host);
    reply_int(c, RP.port);
    reply_bulk_str(c, role_state());
    reply_int(c, RP.master ? R.offset : -1);
}

void replica_info(vbuf *b) {
    long long off = RP.have_history ? R.offset : 1;
    long long read_off = off;
    if (RP.master) read_off += (long long)(RP.master->in.len - RP.master->qpos) +
                               (long long)RP.multi.len;
    int64_t now = mono_ms();
    vbuf_appendf(b,
                 "master_host:%s\r\nmaster_port:%d\r\nmaster_link_status:%s\r\n"
                 "master_last_io_seconds_ago:%d\r\nmaster_sync_in_progress:%d\r\n"
                 "slave_read_repl_offset:%lld\r\nslave_repl_offset:%lld\r\n",
                 RP.host, RP.port, RP.state == RC_CONNECTED ? "up" : "down",
                 RP.master ? (int)((now - RP.master->last_ms) / 1000) : -1,
                 RP.state == RC_TRANSFER, read_off, off);
    if (RP.state == RC_TRANSFER) {
        long long total = RP.payload ? payload_total(RP.payload) : -1;
        long long got = RP.payload ? payload_received(RP.payload) : 0;
        vbuf_appendf(b,
                     "master_sync_total_bytes:%lld\r\nmaster_sync_read_bytes:%lld\r\n"
                     "master_sync_left_bytes:%lld\r\nmaster_sync_perc:%.2f\r\n"
                     "master_sync_last_io_seconds_ago:%d\r\n",
                     total, got, total - got, total > 0 ? 100.0 * (double)got / (double)total : 0.0,
                     (int)((now - RP.last_io_ms) / 1000));
    }
    if (RP.state != RC_CONNECTED)
        vbuf_appendf(b, "master_link_down_since_seconds:%lld\r\n",
                     RP.down_since ? (long long)(time(NULL) - RP.down_since) : -1LL);
    vbuf_appendf(b, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                 server.cfg.replica_priority, server.cfg.replica_read_only,
                 server.cfg.replica_announced);
}

/* READONLY and MASTERDOWN, in Redis's processCommand order. The clients
 * Redis obeys pass: the master, and the AOF's loader at startup. */
const char *replica_gate(const client *c, const cmd_def *d) {
    if (RP.state == RC_NONE || (c->flags & (CLIENT_MASTER | CLIENT_LOADER))) return NULL;
    if (server.cfg.replica_read_only && ((d->flags & CMD_WRITE) || multi_exec_writes(c, d)))
        return "READONLY You can't write against a read only replica.";
    /* EXEC: as its queued commands (Redis 7.0 checks again at EXEC) */
    if (RP.state != RC_CONNECTED && !server.cfg.replica_serve_stale_data &&
        (!(d->flags & CMD_STALE) || multi_exec_lacks(c, d, CMD_STALE)))
        return "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
    return NULL;
}

