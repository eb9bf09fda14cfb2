/* nodes_conf: PLACEHOLDER (nodes.conf is being built): every start is a
 * new node. */
#include <string.h>

#include "cluster_int.h"
#include "server.h"

int cl_conf_load(const char *path, char *err, size_t errlen) {
    (void)path; (void)err; (void)errlen;
    cl.myself = cl_node_new(NULL, CL_NODE_MYSELF | CL_NODE_PRIMARY);
    strcpy(cl.myself->ip, "127.0.0.1");
    cl.myself->port = server.cfg.port;
    cl.myself->cport = server.cfg.compat.cluster_port ? server.cfg.compat.cluster_port
                                                      : server.cfg.port + 10000;
    cl_node_add(cl.myself);
    return 1;
}
void cl_conf_save(int fsync, void (*done)(void *priv, int ok), void *priv) {
    (void)fsync;
    if (done) done(priv, 1);
}
int cl_conf_save_now(char *err, size_t errlen) { (void)err; (void)errlen; return 0; }
