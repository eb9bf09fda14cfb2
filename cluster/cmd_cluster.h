/* cmd_cluster: the CLUSTER command (cmd_cluster.c, its long replies in
 * cmd_cluster_reply.c, its rows in cmd_cluster_table.c) and INFO's
 * cluster fields. Main thread only. */
#ifndef VERSO_CMD_CLUSTER_H
#define VERSO_CMD_CLUSTER_H

#include "server.h"
#include "vbuf.h"

/* Registers CLUSTER (cluster_init, before cmd_init). */
void cl_cmd_register(void);
/* INFO: the cluster wing's fields (a hooks.info). */
void cl_info(const char *section, vbuf *b);

/* The handler of CLUSTER and every subcommand (cmd_cluster.c). */
void cmd_cluster(client *c);
/* cmd_cluster_reply.c: CLUSTER INFO, NODES, SLOTS, SHARDS, REPLICAS
 * (and SLAVES) replies. */
void cl_reply_info(client *c);
void cl_reply_nodes(client *c);
void cl_reply_slots(client *c);
void cl_reply_shards(client *c);
void cl_reply_replicas(client *c);

#endif
