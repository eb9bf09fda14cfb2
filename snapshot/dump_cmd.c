/* dump_cmd: DUMP, RESTORE and RESTORE-ASKING, as Redis 7.0 answers them (its cluster.c:
 * dumpCommand, restoreCommand, createDumpPayload, verifyDumpPayload).
 *
 * The payload is the value exactly as a snapshot holds it (rdb_write_value:
 * the RDB type byte, then the value, through the snapshot's one encoder),
 * then the RDB version as 2 bytes little endian (10), then the CRC64 (Jones,
 * crc64.h) of everything before it as 8 bytes little endian. See
 * doc/snapshot-format.md. Main thread only. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "evict.h"
#include "log.h"
#include "notify.h"
#include "util.h"
#include "dump_payload.h"
#include "rdb.h"
#include "rdb_fmt.h"

void cmd_dump(client *c) {
    const arg *k = &c->argv[1];
    vt_entry *e = db_lookup_read(db_get(c->db), k->p, k->len);
    if (!e) {
        reply_nil(c);
        return;
    }
    char err[RDB_ERRLEN];
    sink *out = dump_payload_of(e->val, err, sizeof err);
    if (!out) { /* a memory sink does not fail; kept as an error, not a crash */
        reply_errorf(c, "ERR %s", err);
        return;
    }
    size_t len;
    const unsigned char *p = sink_mem_data(out, &len);
    reply_bulk(c, (const char *)p, len);
    sink_free(out);
}

typedef struct restore_opts {
    int replace, absttl;
    long long idle, freq;   /* -1 when not given */
} restore_opts;

/* REPLACE, ABSTTL, IDLETIME s, FREQ f (IDLETIME and FREQ exclude each
 * other, as in Redis: the second one is a syntax error). */
static int parse_opts(client *c, restore_opts *o) {
    *o = (restore_opts){0, 0, -1, -1};
    for (int j = 4; j < c->argc; j++) {
        int more = c->argc - j - 1;
        const arg *a = &c->argv[j];
        if (arg_is(a, "replace")) {
            o->replace = 1;
        } else if (arg_is(a, "absttl")) {
            o->absttl = 1;
        } else if (arg_is(a, "idletime") && more >= 1 && o->freq == -1) {
            if (!arg_ll(c, &c->argv[++j], &o->idle)) return 0;
            if (o->idle < 0) {
                reply_error(c, "ERR Invalid IDLETIME value, must be >= 0");
                return 0;
            }
        } else if (arg_is(a, "freq") && more >= 1 && o->idle == -1) {
            if (!arg_ll(c, &c->argv[++j], &o->freq)) return 0;
            if (o->freq < 0 || o->freq > 255) {
                reply_error(c, "ERR Invalid FREQ value, must be >= 0 and <= 255");
                return 0;
            }
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    return 1;
}

/* The value in argv[3], checked and decoded; NULL after replying. */
static obj *decode_payload(client *c) {
    const unsigned char *p = (const unsigned char *)c->argv[3].p;
    size_t len = c->argv[3].len;
    if (!dump_payload_ok(p, len)) {
        reply_error(c, "ERR DUMP payload version or checksum are wrong");
        return NULL;
    }
    /* The whole payload, footer included, as Redis reads it: a value whose
     * length runs into the footer is taken as Redis takes it. */
    source *src = source_mem_open(p, len, "DUMP payload");
    char err[RDB_ERRLEN];
    obj *val = NULL;
    int rc = rdb_read_value(src, &val, err, sizeof err);
    source_free(src);
    if (rc != 0) {
        log_verbose("RESTORE: %s", err);
        reply_error(c, "ERR Bad data format");
        return NULL;
    }
    return val;
}

/* RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME s] [FREQ f]. Checks
 * in Redis's order: options, BUSYKEY, TTL, payload. A relative TTL is
 * propagated as the absolute time with ABSTTL appended; an expired TTL
 * creates nothing (and, with REPLACE, deletes the old key: propagated as
 * DEL). */
void cmd_restore(client *c) {
    restore_opts o;
    if (!parse_opts(c, &o)) return;
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    if (!o.replace && db_lookup(d, k->p, k->len)) {
        reply_error(c, "BUSYKEY Target key name already exists.");
        return;
    }
    long long ttl;
    if (!arg_ll(c, &c->argv[2], &ttl)) return;
    if (ttl < 0) {
        reply_error(c, "ERR Invalid TTL value, must be >= 0");
        return;
    }
    obj *val = decode_payload(c);
    if (!val) return;
    int deleted = o.replace && db_delete(d, k->p, k->len);
    int64_t now = wall_ms();
    if (ttl && !o.absttl) ttl = ttl > LLONG_MAX - now ? LLONG_MAX : ttl + now;
    if (ttl && ttl <= now && !server.loading) {
        obj_decref(val);
        if (deleted) {
            server_dirty(1);
            notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
            arg v[2] = {{"DEL", 3}, *k};
            cmd_propagate(c, 2, v);
        }
        reply_ok(c);
        return;
    }
    /* IDLETIME sets the LRU clock, FREQ the LFU counter, each under its
     * kind of policy only (evict_restored_clock) */
    db_set_access(d, k->p, k->len, val, ttl ? ttl : VT_NO_EXPIRE,
                  evict_restored_clock(o.idle, (int)o.freq));
    server_dirty(1);
    notify_keyspace_event(NOTIFY_GENERIC, "restore", k->p, k->len, c->db);
    if (ttl && !o.absttl) {
        char buf[32];
        size_t n = ll_to_str(buf, ttl);
        arg *v = xmalloc(((size_t)c->argc + 1) * sizeof *v);
        for (int j = 0; j < c->argc; j++) v[j] = c->argv[j];
        v[2] = (arg){buf, n};
        v[c->argc] = (arg){"ABSTTL", 6};
        cmd_propagate(c, c->argc + 1, v);
        free(v);
    }
    reply_ok(c);
}

/* ---- the rows (cmd.h's cmd_register; key specs and docs as Redis
 * 7.0.15's) ---- */

static const cmd_key_spec dump_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const cmd_key_spec restore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
};
static const char *const dump_tips[] = {"nondeterministic_output", NULL};
static const cmd_arg dump_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {0}};
static const char *const restore_history[] = {"3.0.0", "Added the `REPLACE` modifier.", "5.0.0", "Added the `ABSTTL` modifier.", "5.0.0", "Added the `IDLETIME` and `FREQ` options.", NULL};
static const cmd_arg restore_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "ttl", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "serialized-value", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE", .since = "3.0.0", .flags = ARGF_OPTIONAL},
    {.name = "absttl", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "ABSTTL", .since = "5.0.0", .flags = ARGF_OPTIONAL},
    {.name = "seconds", .type = ARG_INTEGER, .key_spec_index = -1, .token = "IDLETIME", .since = "5.0.0", .flags = ARGF_OPTIONAL},
    {.name = "frequency", .type = ARG_INTEGER, .key_spec_index = -1, .token = "FREQ", .since = "5.0.0", .flags = ARGF_OPTIONAL},
    {0}};

static cmd_def dump_cmds[] = {
    {.name = "dump", .proc = cmd_dump, .arity = 2, .flags = CMD_READONLY, .acl = CAT_KEYSPACE | CAT_READ | CAT_SLOW, KEY_SPECS(dump_keys),
     .tips = dump_tips, .group = "generic", .since = "2.6.0",
     .summary = "Return a serialized version of the value stored at the specified key.",
     .complexity = "O(1) to access the key and additional O(N*M) to serialize it, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1).",
     .args = dump_args},
    {.name = "restore", .proc = cmd_restore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(restore_keys),
     .group = "generic", .since = "2.6.0",
     .summary = "Create a key using the provided serialized value, previously obtained using DUMP.",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
     .history = restore_history, .args = restore_args},
    /* RESTORE as a cluster's MIGRATE sends it: the same handler, flagged
     * asking (cluster/route.c lets it write a key of a slot this node is
     * importing without a preceding ASKING), Redis 7.0.15's row */
    {.name = "restore-asking", .proc = cmd_restore, .arity = -4, .flags = CMD_WRITE | CMD_DENYOOM | CMD_ASKING, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(restore_keys),
     .group = "server", .since = "3.0.0", .doc_flags = DOC_SYSCMD,
     .summary = "An internal command for migrating keys in a cluster",
     .complexity = "O(1) to create the new key and additional O(N*M) to reconstruct the serialized value, where N is the number of Redis objects composing the value and M their average size. For small string values the time complexity is thus O(1)+O(1*M) where M is small, so simply O(1). However for sorted set values the complexity is O(N*M*log(N)) because inserting values into sorted sets is O(log(N)).",
     .history = restore_history, .args = restore_args},
};

void dump_register_commands(void) {
    cmd_register(dump_cmds, sizeof dump_cmds / sizeof dump_cmds[0]);
}
