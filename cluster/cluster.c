/* cluster: the wing's registration. cluster_init registers the CLUSTER
 * command (in every mode: outside cluster mode it answers that support is
 * disabled) and, when cluster-enabled, loads nodes.conf, opens the bus and
 * registers the hooks that drive the state: the cron (gossip, failover)
 * and before_sleep (the to-do flags: failover, cluster_state, saving
 * nodes.conf). Main thread only.
 *
 * A save without fsync (a SETSLOT's, five per slot in a reshard) is handed
 * to the writer on the next loop iteration (an idle handle), not in
 * before_sleep: the replies of this iteration leave first, so the writer
 * thread, woken on a core the loop may share, does not hold them back. The
 * text is made when it is handed over: the newest state. A save with
 * fsync (epochs, votes) goes at once and takes a deferred one with it. */
#include <stdio.h>
#include <stdlib.h>
#include <uv.h>

#include "cluster.h"
#include "cluster_int.h"
#include "slotmig.h"
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

static uv_idle_t save_idle; /* active: a save without fsync is due */

static void on_save_idle(uv_idle_t *h) {
    uv_idle_stop(h);
    cl_conf_save(0, NULL, NULL);
}

static void cluster_before_sleep(void) {
    cl_failover_before_sleep();
    int todo = cl.todo;
    cl.todo = 0;
    if (todo & CL_TODO_UPDATE_STATE) cl_update_state();
    if (!(todo & CL_TODO_SAVE_CONFIG)) return;
    if (todo & CL_TODO_FSYNC_CONFIG) {
        uv_idle_stop(&save_idle);
        cl_conf_save(1, NULL, NULL);
    } else {
        uv_idle_start(&save_idle, on_save_idle); /* no-op when already due */
    }
}

/* Shutdown saves at once (cl_conf_shutdown): nothing is left due. */
static void cluster_shutdown(void) {
    uv_idle_stop(&save_idle);
    cl_conf_shutdown();
}

static const hooks cluster_hooks = {
    .name = "cluster",
    .cron = cluster_cron,
    .before_sleep = cluster_before_sleep,
    .info = cl_info,
    .shutdown = cluster_shutdown,
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
    uv_idle_init(server.loop, &save_idle);
    uv_unref((uv_handle_t *)&save_idle);
    hooks_register(&cluster_hooks);
    slotmig_init();
    info_set_cluster_links(cl_bus_links_count, cl_bus_links_mem);
    cl_update_state();
}
