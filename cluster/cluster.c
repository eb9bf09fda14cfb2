/* cluster: the wing's registration. cluster_init registers the CLUSTER
 * command (in every mode: outside cluster mode it answers that support is
 * disabled) and, when cluster-enabled, loads nodes.conf, opens the bus and
 * registers the hooks that drive the state: the cron (gossip, failover)
 * and before_sleep (the to-do flags: failover, cluster_state, saving
 * nodes.conf). Main thread only. */
#include <stdio.h>
#include <stdlib.h>

#include "cluster.h"
#include "cluster_int.h"
#include "cmd_cluster.h"
#include "hooks.h"
#include "info.h"
#include "log.h"
#include "server.h"

static void cluster_cron(void) {
    /* Redis runs clusterCron at 10 Hz whatever hz is. */
    static long long last;
    long long now = cl_now_ms();
    if (now - last < 100) return;
    last = now;
    cl_conf_update_myself(); /* CONFIG SET cluster-announce-*: not saved until the next change, as Redis */
    cl_gossip_cron();
    cl_failover_cron();
    cl_update_state();
}

static void cluster_before_sleep(void) {
    cl_failover_before_sleep();
    int todo = cl.todo;
    cl.todo = 0;
    if (todo & CL_TODO_UPDATE_STATE) cl_update_state();
    if (todo & CL_TODO_SAVE_CONFIG) cl_conf_save((todo & CL_TODO_FSYNC_CONFIG) != 0, NULL, NULL);
}

static const hooks cluster_hooks = {
    .name = "cluster",
    .cron = cluster_cron,
    .before_sleep = cluster_before_sleep,
    .info = cl_info,
    .shutdown = cl_conf_shutdown,
};

void cluster_init(void) {
    cl_cmd_register();
    if (!cluster_enabled()) return;
    char err[512];
    int rc = cl_conf_load(server.cfg.compat.cluster_config_file, err, sizeof err);
    if (rc < 0) {
        log_warning("%s", err);
        exit(1);
    }
    if (cl_bus_listen(err, sizeof err) != 0) {
        log_warning("%s", err);
        exit(1);
    }
    cl_gossip_init();
    hooks_register(&cluster_hooks);
    info_set_cluster_links(cl_bus_links_count, cl_bus_links_mem);
    cl_update_state();
}
