/* cmd_list.c: PLACEHOLDER, replaced by the list work of issue 9: every handler
 * answers an error until then. */
#include "cmd.h"

void cmd_blmove(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_blmpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_blpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_brpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_brpoplpush(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lindex(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_linsert(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_llen(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lmove(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lmpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lpos(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lpush(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lpushx(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lrange(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lrem(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lset(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_ltrim(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_rpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_rpoplpush(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_rpush(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_rpushx(client *c) { reply_error(c, "ERR not implemented yet"); }
