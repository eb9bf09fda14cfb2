/* cmd_introspect: MONITOR, SLOWLOG and LATENCY. Scaffolding. */
#include "cmd.h"

void cmd_monitor(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_slowlog(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_latency(client *c) { reply_error(c, "ERR not implemented yet"); }
