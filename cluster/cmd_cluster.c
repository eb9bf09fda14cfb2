/* cmd_cluster: PLACEHOLDER (the CLUSTER command is being built). */
#include "cmd_cluster.h"
#include "cluster_int.h"

void cl_cmd_register(void) {}
void cl_info(const char *section, vbuf *b) { (void)section; (void)b; }
