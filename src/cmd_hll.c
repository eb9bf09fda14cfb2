/* cmd_hll: HyperLogLog on strings (PFADD PFCOUNT PFMERGE PFDEBUG
 * PFSELFTEST) with Redis's encoding. Scaffolding. */
#include "cmd.h"

void cmd_pfadd(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_pfcount(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_pfmerge(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_pfdebug(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_pfselftest(client *c) { reply_error(c, "ERR not implemented yet"); }
