/* failover: PLACEHOLDER (replica elections are being built). */
#include "cluster_int.h"

void cl_failover_cron(void) {}
void cl_failover_before_sleep(void) {}
