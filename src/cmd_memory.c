/* cmd_memory.c: PLACEHOLDER, replaced by the memory work of issue 9: every handler
 * answers an error until then. */
#include "cmd.h"

void cmd_memory(client *c) { reply_error(c, "ERR not implemented yet"); }
