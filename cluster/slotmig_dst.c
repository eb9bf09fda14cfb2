/* slotmig_dst: the target's side of an atomic slot migration (IMPORT, see
 * slotmig.h for the protocol): CLUSTER SYNCSLOTS ESTABLISH | PING |
 * FINISH | ABORT, and the import link, the connection that sent
 * ESTABLISH.
 *
 * The import link's commands are served here whatever the slot's owner
 * (route.c asks cluster_import_link), so the slots' keys arrive while every
 * other client of those slots still gets -MOVED to the source: nobody sees
 * a slot half loaded. They get no replies (after_command drops them), but
 * an error: it ends the import (the slots' keys are dropped, each DEL
 * propagated, as this node's replicas and AOF got the writes) and goes to
 * the source, which then closes the link. FINISH takes the slots with a
 * new config epoch; once nodes.conf is fsynced the epoch is broadcast and
 * FINISH's +OK goes (held until then), so the source never drops keys a
 * crash of the target could lose. The link
 * closing before FINISH fails the import the same way.
 *
 * ESTABLISH stages the slots and FINISH unstages them (sm_stage): the
 * marks, CLUSTER SYNCSLOTS STAGE | UNSTAGE, go to this node's replicas and
 * AOF before and after the import's writes, so a replica promoted or a
 * restart in the middle of an import drops what it loaded (the cron,
 * sm_staged_cron). Main thread only. */
#include "slotmig.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "db_slots.h"
#include "hooks.h"
#include "log.h"
#include "net.h"

/* A job's import link is job->priv (a client), NULL once ended. */

static sm_job *import_of(const client *c) {
    for (sm_job *j = sm_jobs(); j; j = j->next)
        if (j->op == SM_IMPORT && sm_job_active(j) && j->priv == c) return j;
    return NULL;
}

int cluster_import_link(const void *c) { return import_of(c) != NULL; }

/* The import failed or was aborted: its slots' keys go. */
static void import_end(sm_job *j, int state, const char *why) {
    assert(sm_job_active(j));
    log_warning("Slot import %.40s %s: %s", j->name, state == SM_CANCELLED ? "cancelled" : "failed",
                why);
    sm_job_set_state(j, state, why);
    j->priv = NULL;
    sm_drop_keys(j->slots);
}

static int parse_name(client *c, const arg *a) {
    if (a->len != CL_NAMELEN) {
        reply_error(c, "ERR Invalid slot migration name");
        return -1;
    }
    return 0;
}

/* ESTABLISH name source-id start end [start end ...] */
static void syncslots_establish(client *c) {
    if (c->argc < 7 || (c->argc - 5) % 2) {
        reply_wrong_args(c);
        return;
    }
    if (parse_name(c, &c->argv[3])) return;
    if (!cl_node_is_primary(cl.myself)) {
        reply_error(c, "ERR Slots can only be imported by a primary");
        return;
    }
    cluster_node *src = cl_node_lookup(c->argv[4].p, c->argv[4].len);
    if (!src || src == cl.myself || !cl_node_is_primary(src)) {
        reply_error(c, "ERR The source is not a primary this node knows");
        return;
    }
    if (import_of(c)) {
        reply_error(c, "ERR This connection imports slots already");
        return;
    }
    uint8_t slots[KEYSLOT_COUNT / 8];
    if (sm_parse_ranges(c, 5, slots)) return;
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!sm_has_slot(slots, s)) continue;
        if (cl.slots[s] != src) {
            reply_errorf(c, "ERR Slot %u is not served by the source", s);
            return;
        }
        if (sm_dropping(s)) {
            reply_errorf(c, "ERR Slot %u still holds keys of an earlier import", s);
            return;
        }
    }
    for (sm_job *j = sm_jobs(); j; j = j->next) {
        if (j->op != SM_IMPORT || !sm_job_active(j)) continue;
        for (size_t i = 0; i < sizeof slots; i++)
            if (slots[i] & j->slots[i]) {
                reply_error(c, "ERR Some of the slots are being imported already");
                return;
            }
    }
    /* keys left in slots this node does not own (an old migration) go */
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++)
        if (sm_has_slot(slots, s) && db_slot_count(db_get(0), s)) db_slot_delete(db_get(0), s);
    sm_stage(slots, 1, 1); /* the replicas delete the same keys */
    sm_job *j = sm_job_new(SM_IMPORT, c->argv[3].p, slots);
    memcpy(j->source, src->name, CL_NAMELEN);
    memcpy(j->target, cl.myself->name, CL_NAMELEN);
    j->priv = c;
    c->flags |= CLIENT_SLICED; /* a slice per iteration: others are served between */
    sm_job_set_state(j, SM_SNAPSHOT, NULL);
    log_notice("Slot import %.40s from %.40s started", j->name, j->source);
    reply_ok(c);
}

/* Import links whose FINISH reply waits for nodes.conf's fsync (the source
 * drops the slots' keys once it reads it); a closed one is removed. */
#define SM_MAX_HELD 16
static client *held[SM_MAX_HELD];

/* The slots are in nodes.conf, durable: everyone is told, and the FINISH
 * reply goes. priv: the link (compared only: it may be closed by now). */

static void finish_saved(void *priv, int ok) {
    if (!ok) log_warning("The imported slots could not be saved to the cluster config file");
    bus_out m;
    cl_build_header(&m, BUS_PONG);
    cl_bus_broadcast(&m);
    for (int i = 0; i < SM_MAX_HELD; i++)
        if (held[i] && held[i] == priv) {
            held[i] = NULL;
            net_want_write(priv);
        }
}

static int dst_reply_held(const client *c) {
    for (int i = 0; i < SM_MAX_HELD; i++)
        if (held[i] == c) return 1;
    return 0;
}

/* Holds c's replies until its FINISH is durable; 0 when no room (the
 * reply then goes at once: the save is still asked for). */
static int hold(client *c) {
    for (int i = 0; i < SM_MAX_HELD; i++)
        if (!held[i]) {
            held[i] = c;
            return 1;
        }
    return 0;
}

/* FINISH name: every write before it is applied; the slots are mine. */
static void syncslots_finish(client *c) {
    if (c->argc != 4 || parse_name(c, &c->argv[3])) {
        if (c->argc != 4) reply_wrong_args(c);
        return;
    }
    sm_job *j = import_of(c);
    if (!j || memcmp(j->name, c->argv[3].p, CL_NAMELEN) != 0) {
        reply_error(c, "ERR No such slot import on this connection");
        return;
    }
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!sm_has_slot(j->slots, s)) continue;
        if (cl.slots[s] != cl.myself) {
            cl_slot_del(s);
            cl_slot_add(cl.myself, s);
        }
        cl.importing_from[s] = NULL;
    }
    sm_stage(j->slots, 0, 1);
    if (cl_bump_epoch_no_consensus()) log_notice("configEpoch updated after importing slots");
    cl_update_state();
    if (!hold(c)) log_warning("Slot import %.40s: its reply does not wait for nodes.conf", j->name);
    cl_conf_save(1, finish_saved, c);
    j->priv = NULL;
    sm_job_set_state(j, SM_SUCCESS, NULL);
    log_notice("Slot import %.40s done: the slots are mine", j->name);
    reply_ok(c);
}

/* PING: every command before it is applied (the source's measure of how
 * far behind this node is). */
static void syncslots_ping(client *c) {
    if (c->argc != 3) {
        reply_wrong_args(c);
        return;
    }
    if (!import_of(c)) {
        reply_error(c, "ERR No slot import on this connection");
        return;
    }
    reply_status(c, "PONG");
}

/* ABORT name */
static void syncslots_abort(client *c) {
    if (c->argc != 4) {
        reply_wrong_args(c);
        return;
    }
    sm_job *j = import_of(c);
    if (!j || c->argv[3].len != CL_NAMELEN || memcmp(j->name, c->argv[3].p, CL_NAMELEN) != 0) {
        reply_error(c, "ERR No such slot import on this connection");
        return;
    }
    import_end(j, SM_CANCELLED, "aborted by the source");
    reply_ok(c);
}

/* STAGE | UNSTAGE start end [start end ...], from this node's primary
 * or the AOF's replay: an import there started (the slots' old keys go)
 * or ended (see sm_stage). Propagated on, as every write a replica
 * applies. */
static void syncslots_stage(client *c, int on) {
    if (!(c->flags & (CLIENT_MASTER | CLIENT_LOADER))) {
        reply_error(c, "ERR CLUSTER SYNCSLOTS STAGE and UNSTAGE come only from the primary");
        return;
    }
    if (c->argc < 5 || (c->argc - 3) % 2) {
        reply_wrong_args(c);
        return;
    }
    uint8_t slots[KEYSLOT_COUNT / 8];
    if (sm_parse_ranges(c, 3, slots)) return;
    for (unsigned s = 0; on && s < KEYSLOT_COUNT; s++)
        if (sm_has_slot(slots, s) && db_slot_count(db_get(0), s)) db_slot_delete(db_get(0), s);
    sm_stage(slots, on, 0);
    cmd_propagate(c, c->argc, c->argv);
    reply_ok(c);
}

/* CLUSTER SYNCSLOTS (the row's proc) */
void sm_cmd_syncslots(client *c) {
    if (!cluster_enabled()) {
        reply_error(c, "ERR This instance has cluster support disabled");
        return;
    }
    if (arg_is(&c->argv[2], "establish")) syncslots_establish(c);
    else if (arg_is(&c->argv[2], "finish")) syncslots_finish(c);
    else if (arg_is(&c->argv[2], "abort")) syncslots_abort(c);
    else if (arg_is(&c->argv[2], "ping")) syncslots_ping(c);
    else if (arg_is(&c->argv[2], "stage")) syncslots_stage(c, 1);
    else if (arg_is(&c->argv[2], "unstage")) syncslots_stage(c, 0);
    else reply_errorf(c, "ERR Unknown CLUSTER SYNCSLOTS subcommand '%.*s'",
                      (int)(c->argv[2].len > 64 ? 64 : c->argv[2].len), c->argv[2].p);
}

/* ---- the import link's replies ---- */

static struct {
    const client *c;          /* the import link whose command runs */
    size_t reply_at;          /* its reply's length before the command */
} R;

static int dst_before_command(client *c, const cmd_def *d) {
    (void)d;
    if (import_of(c)) {
        R.c = c;
        R.reply_at = c->reply.len;
    }
    return 0;
}

static void dst_after_command(client *c, const cmd_def *d) {
    if (R.c != c) return;
    R.c = NULL;
    if (d->proc == sm_cmd_syncslots || c->reply.len <= R.reply_at) return;
    sm_job *j = import_of(c);
    if (j && c->reply.data[R.reply_at] == '-') { /* the import fails; the error goes */
        char why[256];
        size_t n = c->reply.len - R.reply_at - 1;
        if (n > sizeof why - 1) n = sizeof why - 1;
        memcpy(why, c->reply.data + R.reply_at + 1, n);
        why[n] = '\0';
        char *cr = strchr(why, '\r');
        if (cr) *cr = '\0';
        import_end(j, SM_FAILED, why);
        return;
    }
    c->reply.len = R.reply_at; /* no reply to the import's writes */
}

static void dst_client_closed(client *c) {
    if (R.c == c) R.c = NULL;
    for (int i = 0; i < SM_MAX_HELD; i++)
        if (held[i] == c) held[i] = NULL;
    sm_job *j = import_of(c);
    if (j) import_end(j, SM_FAILED, "the source closed the link");
}

/* A FLUSHALL or FLUSHDB here emptied what the imports loaded: each fails
 * (the source, its link closed, keeps the slots). */
static void dst_after_flush(int all) {
    (void)all;
    for (sm_job *j = sm_jobs(); j; j = j->next) {
        if (j->op != SM_IMPORT || !sm_job_active(j)) continue;
        client *link = j->priv;
        import_end(j, SM_FAILED, "FLUSHALL or FLUSHDB on the target");
        net_close_asap(link);
    }
}

void sm_dst_init(void) {
    static const hooks h = {.name = "slotmig-import",
                            .cron = sm_staged_cron,
                            .after_flush = dst_after_flush,
                            .before_command = dst_before_command,
                            .after_command = dst_after_command,
                            .reply_held = dst_reply_held,
                            .client_closed = dst_client_closed};
    hooks_register(&h);
}
