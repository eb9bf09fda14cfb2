/* cmd_function: FUNCTION and FCALL/FCALL_RO. Scaffolding. */
#include "cmd.h"

void cmd_function(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_fcall(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_fcall_ro(client *c) { reply_error(c, "ERR not implemented yet"); }
