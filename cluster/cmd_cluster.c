/* cmd_cluster: the CLUSTER command's handler (its rows are in
 * cmd_cluster_table.c): the subcommands that change this node's view
 * (slots, SETSLOT, epochs, MEET, FORGET, REPLICATE, FAILOVER, RESET,
 * SAVECONFIG) and the small queries (MYID, KEYSLOT, COUNTKEYSINSLOT,
 * GETKEYSINSLOT, COUNT-FAILURE-REPORTS), with Redis 7.0's replies and
 * error texts. The long replies (INFO, NODES, SLOTS, SHARDS, REPLICAS) are
 * in cmd_cluster_reply.c. A change asks before_sleep for a save of
 * nodes.conf and a new cluster_state (cl_todo), as Redis does. Main
 * thread only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_int.h"
#include "cmd.h"
#include "cmd_cluster.h"
#include "db.h"
#include "db_slots.h"
#include "keyslot.h"
#include "log.h"
#include "server.h"
#include "util.h"

static const char *const help_lines[] = {
    "CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "ADDSLOTS <slot> [<slot> ...]",
    "    Assign slots to current node.",
    "ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Assign slots which are between <start-slot> and <end-slot> to current node.",
    "BUMPEPOCH",
    "    Advance the cluster config epoch.",
    "COUNT-FAILURE-REPORTS <node-id>",
    "    Return number of failure reports for <node-id>.",
    "COUNTKEYSINSLOT <slot>",
    "    Return the number of keys in <slot>.",
    "DELSLOTS <slot> [<slot> ...]",
    "    Delete slots information from current node.",
    "DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]",
    "    Delete slots information which are between <start-slot> and <end-slot> from current node.",
    "FAILOVER [FORCE|TAKEOVER]",
    "    Promote current replica node to being a master.",
    "FORGET <node-id>",
    "    Remove a node from the cluster.",
    "GETKEYSINSLOT <slot> <count>",
    "    Return key names stored by current node in a slot.",
    "FLUSHSLOTS",
    "    Delete current node own slots information.",
    "INFO",
    "    Return information about the cluster.",
    "KEYSLOT <key>",
    "    Return the hash slot for <key>.",
    "MEET <ip> <port> [<bus-port>]",
    "    Connect nodes into a working cluster.",
    "MYID",
    "    Return the node id.",
    "NODES",
    "    Return cluster configuration seen by node. Output format:",
    "    <id> <ip:port> <flags> <master> <pings> <pongs> <epoch> <link> <slot> ...",
    "REPLICATE <node-id>",
    "    Configure current node as replica to <node-id>.",
    "RESET [HARD|SOFT]",
    "    Reset current node (default: soft).",
    "SET-CONFIG-EPOCH <epoch>",
    "    Set config epoch of current node.",
    "SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)",
    "    Set slot state.",
    "REPLICAS <node-id>",
    "    Return <node-id> replicas.",
    "SAVECONFIG",
    "    Force saving cluster configuration on disk.",
    "SLOTS",
    "    Return information about slots range mappings. Each range is made of:",
    "    start, end, master and replicas IP addresses, ports and ids",
    "SHARDS",
    "    Return information about slot range mappings and the nodes associated with them.",
    "LINKS",
    "    Return information about all network links between this node and its peers.",
    "    Output format is an array where each array element is a map containing attributes of a link",
    "HELP",
    "    Prints this help.",
    NULL};

/* ---- helpers ---- */

/* Redis's getSlotOrReply: -1 after the error. */
static int slot_or_reply(client *c, const arg *a) {
    long long v;
    if (!str_to_ll(a->p, a->len, &v) || v < 0 || v >= KEYSLOT_COUNT) {
        reply_error(c, "ERR Invalid or out of range slot");
        return -1;
    }
    return (int)v;
}

/* The node argv names, or NULL after "ERR Unknown node <name>". */
static cluster_node *node_or_reply(client *c, const arg *a) {
    cluster_node *n = cl_node_lookup(a->p, a->len);
    if (!n) reply_errorf(c, "ERR Unknown node %.*s", (int)a->len, a->p);
    return n;
}

static int is_replica(const cluster_node *n) { return (n->flags & CL_NODE_REPLICA) != 0; }

static size_t db0_keys(void) { return db_size(&server.dbs[0]); }

/* Redis's checkSlotAssignmentsOrReply over start..end into the marks. */
static int check_slots(client *c, uint8_t *marks, int del, int start, int end) {
    for (int s = start; s <= end; s++) {
        if (del && !cl.slots[s]) {
            reply_errorf(c, "ERR Slot %d is already unassigned", s);
            return -1;
        }
        if (!del && cl.slots[s]) {
            reply_errorf(c, "ERR Slot %d is already busy", s);
            return -1;
        }
        if (marks[s]++ == 1) {
            reply_errorf(c, "ERR Slot %d specified multiple times", s);
            return -1;
        }
    }
    return 0;
}

/* Redis's clusterUpdateSlots: the marked slots become myself's (or
 * nobody's); an importing state ends, this node being the owner now. */
static void update_slots(const uint8_t *marks, int del) {
    for (unsigned s = 0; s < KEYSLOT_COUNT; s++) {
        if (!marks[s]) continue;
        cl.importing_from[s] = NULL;
        int rc = del ? cl_slot_del(s) : cl_slot_add(cl.myself, s);
        assert(rc == 0);
        (void)rc;
    }
}

/* ---- slots ---- */

/* ADDSLOTS / DELSLOTS <slot>...: every argument parsed before any is
 * checked, as Redis. */
static void cluster_addslots(client *c, int del) {
    for (int j = 2; j < c->argc; j++)
        if (slot_or_reply(c, &c->argv[j]) < 0) return;
    uint8_t *marks = xcalloc(KEYSLOT_COUNT, 1);
    for (int j = 2; j < c->argc; j++) {
        int s = slot_or_reply(c, &c->argv[j]);
        if (check_slots(c, marks, del, s, s) != 0) {
            free(marks);
            return;
        }
    }
    update_slots(marks, del);
    free(marks);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    reply_ok(c);
}

/* ADDSLOTSRANGE / DELSLOTSRANGE <start> <end>...: each pair parsed and
 * checked in turn, as Redis. */
static void cluster_addslotsrange(client *c, int del) {
    if (c->argc % 2 == 1) {
        reply_wrong_args(c);
        return;
    }
    uint8_t *marks = xcalloc(KEYSLOT_COUNT, 1);
    for (int j = 2; j < c->argc; j += 2) {
        int start = slot_or_reply(c, &c->argv[j]), end;
        if (start < 0 || (end = slot_or_reply(c, &c->argv[j + 1])) < 0) goto out;
        if (start > end) {
            reply_errorf(c, "ERR start slot number %d is greater than end slot number %d", start,
                         end);
            goto out;
        }
        if (check_slots(c, marks, del, start, end) != 0) goto out;
    }
    update_slots(marks, del);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    reply_ok(c);
out:
    free(marks);
}

static void cluster_flushslots(client *c) {
    if (db0_keys() != 0) {
        reply_error(c, "ERR DB must be empty to perform CLUSTER FLUSHSLOTS.");
        return;
    }
    cl_node_del_slots(cl.myself);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    reply_ok(c);
}

/* SETSLOT <slot> NODE <id> */
static int setslot_node(client *c, int slot, cluster_node *n) {
    unsigned s = (unsigned)slot;
    size_t keys = db_slot_count(&server.dbs[0], s);
    if (cl.slots[s] == cl.myself && n != cl.myself && keys != 0) {
        reply_errorf(c,
                     "ERR Can't assign hashslot %d to a different node while I still hold keys "
                     "for this hash slot.",
                     slot);
        return -1;
    }
    /* no keys left: the migration is over */
    if (keys == 0 && cl.migrating_to[s]) cl.migrating_to[s] = NULL;
    int was_mine = cl.slots[s] == cl.myself;
    cl_slot_del(s);
    cl_slot_add(n, s);
    /* a primary left without slots follows the new owner */
    if (was_mine && n != cl.myself && cl.myself->numslots == 0 &&
        server.cfg.compat.cluster_allow_replica_migration) {
        log_warning("Configuration change detected. Reconfiguring myself as a replica of %.40s",
                    n->name);
        cl_set_my_primary(n);
        cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE | CL_TODO_FSYNC_CONFIG);
    }
    /* importing it into myself: the migration is over, with a new epoch so
     * that the rest of the cluster takes this node's word for it */
    if (n == cl.myself && cl.importing_from[s]) {
        if (cl_bump_epoch_no_consensus())
            log_warning("configEpoch updated after importing slot %d", slot);
        cl.importing_from[s] = NULL;
    }
    return 0;
}

static void cluster_setslot(client *c) {
    if (is_replica(cl.myself)) {
        reply_error(c, "ERR Please use SETSLOT only with masters.");
        return;
    }
    int slot = slot_or_reply(c, &c->argv[2]);
    if (slot < 0) return;
    const arg *action = &c->argv[3];
    cluster_node *n = NULL;
    if (c->argc == 5 &&
        (arg_is(action, "migrating") || arg_is(action, "importing") || arg_is(action, "node"))) {
        if (arg_is(action, "migrating") && cl.slots[slot] != cl.myself) {
            reply_errorf(c, "ERR I'm not the owner of hash slot %u", (unsigned)slot);
            return;
        }
        if (arg_is(action, "importing") && cl.slots[slot] == cl.myself) {
            reply_errorf(c, "ERR I'm already the owner of hash slot %u", (unsigned)slot);
            return;
        }
        n = cl_node_lookup(c->argv[4].p, c->argv[4].len);
        if (!n) {
            if (arg_is(action, "node"))
                reply_errorf(c, "ERR Unknown node %.*s", (int)c->argv[4].len, c->argv[4].p);
            else
                reply_errorf(c, "ERR I don't know about node %.*s", (int)c->argv[4].len,
                             c->argv[4].p);
            return;
        }
        if (is_replica(n)) {
            reply_error(c, "ERR Target node is not a master");
            return;
        }
    }
    if (n && arg_is(action, "migrating")) {
        cl.migrating_to[slot] = n;
    } else if (n && arg_is(action, "importing")) {
        cl.importing_from[slot] = n;
    } else if (c->argc == 4 && arg_is(action, "stable")) {
        cl.importing_from[slot] = NULL;
        cl.migrating_to[slot] = NULL;
    } else if (n && arg_is(action, "node")) {
        if (setslot_node(c, slot, n) != 0) return;
    } else {
        reply_error(c, "ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP");
        return;
    }
    cl_todo(CL_TODO_SAVE_CONFIG | CL_TODO_UPDATE_STATE);
    reply_ok(c);
}

static void cluster_countkeysinslot(client *c) {
    long long slot;
    if (!arg_ll(c, &c->argv[2], &slot)) return;
    if (slot < 0 || slot >= KEYSLOT_COUNT) {
        reply_error(c, "ERR Invalid slot");
        return;
    }
    reply_int(c, (long long)db_slot_count(&server.dbs[0], (unsigned)slot));
}

static void reply_key(void *priv, const char *key, size_t len) {
    reply_bulk((client *)priv, key, len);
}

static void cluster_getkeysinslot(client *c) {
    long long slot, max;
    if (!arg_ll(c, &c->argv[2], &slot) || !arg_ll(c, &c->argv[3], &max)) return;
    if (slot < 0 || slot >= KEYSLOT_COUNT || max < 0) {
        reply_error(c, "ERR Invalid slot or number of keys");
        return;
    }
    db *d = &server.dbs[0];
    size_t count = db_slot_count(d, (unsigned)slot);
    if ((unsigned long long)max < count) count = (size_t)max;
    reply_array(c, (long long)count);
    size_t sent = db_slot_keys(d, (unsigned)slot, count, reply_key, c);
    assert(sent == count);
    (void)sent;
}

/* ---- nodes ---- */

static void cluster_meet(client *c) {
    if (c->argc != 4 && c->argc != 5) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "CLUSTER HELP.", (int)c->argv[1].len, c->argv[1].p);
        return;
    }
    long long port, cport;
    if (!str_to_ll(c->argv[3].p, c->argv[3].len, &port)) {
        reply_errorf(c, "ERR Invalid TCP base port specified: %.*s", (int)c->argv[3].len,
                     c->argv[3].p);
        return;
    }
    if (c->argc == 5) {
        if (!str_to_ll(c->argv[4].p, c->argv[4].len, &cport)) {
            reply_errorf(c, "ERR Invalid TCP bus port specified: %.*s", (int)c->argv[4].len,
                         c->argv[4].p);
            return;
        }
    } else {
        cport = port + 10000;
    }
    char ip[BUS_IPLEN];
    int ok = c->argv[2].len < sizeof ip && port > 0 && port <= 65535 && cport > 0 &&
             cport <= 65535;
    if (ok) {
        memcpy(ip, c->argv[2].p, c->argv[2].len);
        ip[c->argv[2].len] = '\0';
        ok = cl_meet(ip, (int)port, (int)cport) == 0;
    }
    if (!ok) {
        reply_errorf(c, "ERR Invalid node address specified: %.*s:%.*s", (int)c->argv[2].len,
                     c->argv[2].p, (int)c->argv[3].len, c->argv[3].p);
        return;
    }
    reply_ok(c);
}

static void cluster_forget(client *c) {
    cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (!n) return;
    if (n == cl.myself) {
        reply_error(c, "ERR I tried hard but I can't forget myself...");
        return;
    }
    if (is_replica(cl.myself) && cl.myself->primary == n) {
        reply_error(c, "ERR Can't forget my master!");
        return;
    }
    cl_forget(n);
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    reply_ok(c);
}

static void cluster_replicate(client *c) {
    cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (!n) return;
    const char *err = cl_cmd_replicate(n);
    if (err) {
        reply_error(c, err);
        return;
    }
    cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
    reply_ok(c);
}

static void cluster_failover(client *c) {
    if (c->argc > 3) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "CLUSTER HELP.", (int)c->argv[1].len, c->argv[1].p);
        return;
    }
    int force = 0, takeover = 0;
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "force")) {
            force = 1;
        } else if (arg_is(&c->argv[2], "takeover")) {
            takeover = 1;
            force = 1;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    const char *err = cl_cmd_failover(force, takeover);
    if (err) {
        reply_error(c, err);
        return;
    }
    reply_ok(c);
}

static void cluster_count_failure_reports(client *c) {
    cluster_node *n = node_or_reply(c, &c->argv[2]);
    if (n) reply_int(c, cl_fail_report_count(n));
}

static void cluster_reset(client *c) {
    if (c->argc > 3) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try "
                        "CLUSTER HELP.", (int)c->argv[1].len, c->argv[1].p);
        return;
    }
    int hard = 0;
    if (c->argc == 3) {
        if (arg_is(&c->argv[2], "hard"))
            hard = 1;
        else if (!arg_is(&c->argv[2], "soft")) {
            reply_syntax_error(c);
            return;
        }
    }
    if (cl_node_is_primary(cl.myself) && db_size(&server.dbs[c->db]) != 0) {
        reply_error(c, "ERR CLUSTER RESET can't be called with master nodes containing keys");
        return;
    }
    cl_reset(hard);
    reply_ok(c);
}

/* ---- epochs, config ---- */

static void cluster_set_config_epoch(client *c) {
    long long epoch;
    if (!arg_ll(c, &c->argv[2], &epoch)) return;
    if (epoch < 0) {
        reply_errorf(c, "ERR Invalid config epoch specified: %lld", epoch);
    } else if (cl.numnodes > 1) {
        reply_error(c, "ERR The user can assign a config epoch only when the node does not know "
                       "any other node.");
    } else if (cl.myself->config_epoch != 0) {
        reply_error(c, "ERR Node config epoch is already non-zero");
    } else {
        cl.myself->config_epoch = (uint64_t)epoch;
        log_warning("configEpoch set to %llu via CLUSTER SET-CONFIG-EPOCH",
                    (unsigned long long)epoch);
        if (cl.current_epoch < (uint64_t)epoch) cl.current_epoch = (uint64_t)epoch;
        cl_todo(CL_TODO_UPDATE_STATE | CL_TODO_SAVE_CONFIG);
        reply_ok(c);
    }
}

static void cluster_bumpepoch(client *c) {
    int bumped = cl_bump_epoch_no_consensus();
    char buf[64];
    snprintf(buf, sizeof buf, "%s %llu", bumped ? "BUMPED" : "STILL",
             (unsigned long long)cl.myself->config_epoch);
    reply_status(c, buf);
}

static void cluster_saveconfig(client *c) {
    char err[256];
    if (cl_conf_save_now(err, sizeof err) != 0) {
        reply_errorf(c, "ERR error saving the cluster node config: %s", err);
        return;
    }
    reply_ok(c);
}

/* ---- the handler ---- */

void cmd_cluster(client *c) {
    if (!cluster_enabled()) {
        reply_error(c, "ERR This instance has cluster support disabled");
        return;
    }
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) cmd_reply_help(c, help_lines);
    else if (!strcmp(sub, "myid")) reply_bulk(c, cl.myself->name, CL_NAMELEN);
    else if (!strcmp(sub, "keyslot"))
        reply_int(c, key_hash_slot(c->argv[2].p, c->argv[2].len));
    else if (!strcmp(sub, "addslots")) cluster_addslots(c, 0);
    else if (!strcmp(sub, "delslots")) cluster_addslots(c, 1);
    else if (!strcmp(sub, "addslotsrange")) cluster_addslotsrange(c, 0);
    else if (!strcmp(sub, "delslotsrange")) cluster_addslotsrange(c, 1);
    else if (!strcmp(sub, "flushslots")) cluster_flushslots(c);
    else if (!strcmp(sub, "setslot")) cluster_setslot(c);
    else if (!strcmp(sub, "countkeysinslot")) cluster_countkeysinslot(c);
    else if (!strcmp(sub, "getkeysinslot")) cluster_getkeysinslot(c);
    else if (!strcmp(sub, "meet")) cluster_meet(c);
    else if (!strcmp(sub, "forget")) cluster_forget(c);
    else if (!strcmp(sub, "replicate")) cluster_replicate(c);
    else if (!strcmp(sub, "failover")) cluster_failover(c);
    else if (!strcmp(sub, "count-failure-reports")) cluster_count_failure_reports(c);
    else if (!strcmp(sub, "reset")) cluster_reset(c);
    else if (!strcmp(sub, "set-config-epoch")) cluster_set_config_epoch(c);
    else if (!strcmp(sub, "bumpepoch")) cluster_bumpepoch(c);
    else if (!strcmp(sub, "saveconfig")) cluster_saveconfig(c);
    else if (!strcmp(sub, "links")) cl_bus_links_reply(c);
    else if (!strcmp(sub, "info")) cl_reply_info(c);
    else if (!strcmp(sub, "nodes")) cl_reply_nodes(c);
    else if (!strcmp(sub, "slots")) cl_reply_slots(c);
    else if (!strcmp(sub, "shards")) cl_reply_shards(c);
    else if (!strcmp(sub, "replicas") || !strcmp(sub, "slaves")) cl_reply_replicas(c);
    else reply_unknown_subcommand(c, "cluster");
}
