/* replica: following a master (see repl_int.h). Placeholder: the replica
 * engineer fills it. */
#include "repl_int.h"

#include "../src/cmd.h"

void replica_init(void) {}
int replica_active(void) { return 0; }
void replica_info(vbuf *b) { (void)b; }
void replica_role(client *c) { reply_error(c, "ERR not implemented yet"); }
void replica_getack(client *c) { (void)c; }
void cmd_replicaof(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_slaveof(client *c) { cmd_replicaof(c); }
