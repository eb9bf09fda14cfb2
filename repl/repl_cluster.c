/* repl_cluster: replication's face to the cluster wing (repl.h's last
 * section): follow, promote, the offset and the link's age, read from
 * replica.c's state. Main thread only. */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "repl.h"
#include "util.h"
#include "repl_int.h"
#include "replica_int.h"

void repl_follow(const char *host, int port) {
    if (RP.state != RC_NONE && RP.host && !strcasecmp(RP.host, host) && RP.port == port) return;
    replica_follow(host, port);
}

void repl_promote(void) { replica_promote(); }

int repl_following(const char **host, int *port) {
    if (RP.state == RC_NONE) return 0;
    if (host) *host = RP.host;
    if (port) *port = RP.port;
    return 1;
}

long long repl_offset(void) { return R.offset; }

int repl_link_up(void) { return replica_link_up(); }

long long repl_link_age_ms(void) {
    if (RP.state == RC_NONE) return 0;
    if (RP.state == RC_CONNECTED && RP.master) return (long long)(mono_ms() - RP.master->last_ms);
    if (!RP.down_since) return -1;
    return (long long)(time(NULL) - RP.down_since) * 1000;
}
