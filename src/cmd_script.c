/* cmd_script: SCRIPT without a scripting engine yet. Placeholder. */
#include "cmd.h"

void cmd_script(client *c) { reply_error(c, "NOTBUSY No scripts in execution right now."); }
