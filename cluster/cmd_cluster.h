/* cmd_cluster: the CLUSTER command and INFO's cluster fields. */
#ifndef VERSO_CMD_CLUSTER_H
#define VERSO_CMD_CLUSTER_H

#include "server.h"
#include "vbuf.h"

/* Registers CLUSTER (cluster_init, before cmd_init). */
void cl_cmd_register(void);
/* INFO: the cluster wing's fields (a hooks.info). */
void cl_info(const char *section, vbuf *b);

#endif
