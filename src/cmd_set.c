/* cmd_set.c: PLACEHOLDER, replaced by the set work of issue 9: every handler
 * answers an error until then. */
#include "cmd.h"

void cmd_sadd(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_scard(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sdiff(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sdiffstore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sinter(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sintercard(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sinterstore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sismember(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_smembers(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_smismember(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_smove(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_spop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_srandmember(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_srem(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sscan(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sunion(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sunionstore(client *c) { reply_error(c, "ERR not implemented yet"); }
