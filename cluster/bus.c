/* bus: PLACEHOLDER (the bus links are being built). */
#include "cluster_int.h"

int cl_bus_listen(char *err, size_t errlen) { (void)err; (void)errlen; return 0; }
void cl_bus_send(cluster_node *n, const bus_out *m) { (void)n; (void)m; }
void cl_bus_broadcast(const bus_out *m) { (void)m; }
void cl_bus_free_links(cluster_node *n) { (void)n; }
void cl_bus_links_reply(client *c) { (void)c; }
size_t cl_bus_links_count(void) { return 0; }
size_t cl_bus_links_mem(void) { return 0; }
