/* failover: PLACEHOLDER (replica elections are being built). */
#include "cluster_int.h"

void cl_failover_cron(void) {}
void cl_failover_before_sleep(void) {}
void cl_set_my_primary(cluster_node *n) { cl_node_set_primary(cl.myself, n); }
const char *cl_cmd_replicate(cluster_node *n) { (void)n; return "ERR not built yet"; }
const char *cl_cmd_failover(int force, int takeover) {
    (void)force; (void)takeover;
    return "ERR not built yet";
}
void cl_failover_auth_request(cluster_node *sender, const bus_view *v) { (void)sender; (void)v; }
void cl_failover_auth_ack(cluster_node *sender, const bus_view *v) { (void)sender; (void)v; }
void cl_failover_mfstart(cluster_node *sender, const bus_view *v) { (void)sender; (void)v; }
