/* slotmig_cmd: the user's commands of atomic slot migration, Valkey 9.0's
 * surface: CLUSTER MIGRATESLOTS, GETSLOTMIGRATIONS, CANCELSLOTMIGRATIONS
 * (their rows in cmd_cluster_table.c). The work is slotmig_src.c's; the
 * jobs' log is slotmig.c's. Main thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "slotmig.h"
#include "util.h"

/* A slot number; -1 (replied) when it is not one. */
static int parse_slot(client *c, const arg *a, unsigned *out) {
    long long v;
    if (!arg_ll(c, a, &v)) return -1;
    if (v < 0 || v >= KEYSLOT_COUNT) {
        reply_error(c, "ERR Invalid or out of range slot");
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* CLUSTER MIGRATESLOTS SLOTSRANGE start end [start end ...] NODE id [...]:
 * every block is checked before any job starts. */
void sm_cmd_migrateslots(client *c) {
    if (!cluster_enabled()) {
        reply_error(c, "ERR This instance has cluster support disabled");
        return;
    }
    if (!cl_node_is_primary(cl.myself)) {
        reply_error(c, "ERR Slot migration can only be started on a primary node");
        return;
    }
    uint8_t slots[KEYSLOT_COUNT / 8];
    cluster_node *target = NULL;
    int blocks = 0, i = 2;
    memset(slots, 0, sizeof slots);
    while (i < c->argc) {
        if (!arg_is(&c->argv[i], "slotsrange")) {
            reply_syntax_error(c);
            return;
        }
        i++;
        int ranges = 0;
        while (i + 1 < c->argc && !arg_is(&c->argv[i], "node")) {
            unsigned a, b;
            if (parse_slot(c, &c->argv[i], &a) || parse_slot(c, &c->argv[i + 1], &b)) return;
            if (a > b) {
                reply_errorf(c, "ERR start slot number %u is greater than end slot number %u", a, b);
                return;
            }
            for (unsigned s = a; s <= b; s++) {
                if (sm_has_slot(slots, s)) {
                    reply_errorf(c, "ERR Slot %u specified multiple times", s);
                    return;
                }
                if (cl.slots[s] != cl.myself) {
                    reply_errorf(c, "ERR I'm not the owner of hash slot %u", s);
                    return;
                }
                sm_add_slot(slots, s);
            }
            ranges++;
            i += 2;
        }
        if (!ranges || i + 1 >= c->argc || !arg_is(&c->argv[i], "node")) {
            reply_syntax_error(c);
            return;
        }
        target = cl_node_lookup(c->argv[i + 1].p, c->argv[i + 1].len);
        if (!target) {
            reply_errorf(c, "ERR Unknown node %.*s", (int)c->argv[i + 1].len, c->argv[i + 1].p);
            return;
        }
        if (target == cl.myself) {
            reply_error(c, "ERR Target node can not be this node");
            return;
        }
        if (!cl_node_is_primary(target)) {
            reply_error(c, "ERR Target node is not a primary");
            return;
        }
        blocks++;
        i += 2;
    }
    if (!blocks) {
        reply_syntax_error(c);
        return;
    }
    if (blocks > 1) {
        reply_error(c, "ERR this server runs one slot migration at a time: one SLOTSRANGE ... NODE block");
        return;
    }
    char err[256];
    if (sm_src_start(slots, target, err, sizeof err) != 0) {
        reply_error(c, err);
        return;
    }
    reply_ok(c);
}

static void reply_name(client *c, const char *name) {
    int known = 0;
    for (int i = 0; i < CL_NAMELEN; i++) known |= name[i] != 0;
    if (known) reply_bulk(c, name, CL_NAMELEN);
    else reply_bulk(c, "", 0);
}

/* CLUSTER GETSLOTMIGRATIONS: the log, newest first, each job a map. */
void sm_cmd_getslotmigrations(client *c) {
    if (!cluster_enabled()) {
        reply_error(c, "ERR This instance has cluster support disabled");
        return;
    }
    long long n = 0;
    for (sm_job *j = sm_jobs(); j; j = j->next) n++;
    reply_array(c, n);
    for (sm_job *j = sm_jobs(); j; j = j->next) {
        char ranges[8192];
        sm_slots_text(j->slots, ranges, sizeof ranges);
        reply_map(c, 12);
        reply_bulk_str(c, "name");
        reply_bulk(c, j->name, CL_NAMELEN);
        reply_bulk_str(c, "operation");
        reply_bulk_str(c, j->op == SM_EXPORT ? "EXPORT" : "IMPORT");
        reply_bulk_str(c, "slot_ranges");
        reply_bulk_str(c, ranges);
        reply_bulk_str(c, "target_node");
        reply_name(c, j->target);
        reply_bulk_str(c, "source_node");
        reply_name(c, j->source);
        reply_bulk_str(c, "create_time");
        reply_int(c, j->create_time);
        reply_bulk_str(c, "last_update_time");
        reply_int(c, j->last_update_time);
        reply_bulk_str(c, "last_ack_time");
        reply_int(c, j->last_ack_time);
        reply_bulk_str(c, "state");
        reply_bulk_str(c, sm_state_name(j->state));
        reply_bulk_str(c, "message");
        reply_bulk_str(c, j->message);
        reply_bulk_str(c, "cow_size");
        reply_int(c, 0); /* no fork: nothing is copied on write */
        reply_bulk_str(c, "write_pause_us");
        reply_int(c, j->pause_us);
    }
}

/* CLUSTER CANCELSLOTMIGRATIONS: every active export of this node. */
void sm_cmd_cancelslotmigrations(client *c) {
    if (!cluster_enabled()) {
        reply_error(c, "ERR This instance has cluster support disabled");
        return;
    }
    for (sm_job *j = sm_jobs(); j; j = j->next)
        if (j->op == SM_EXPORT && sm_job_active(j)) sm_src_cancel(j, "cancelled by CLUSTER CANCELSLOTMIGRATIONS");
    reply_ok(c);
}
