/* cmd_hash.c: PLACEHOLDER, replaced by the hash work of issue 9: every handler
 * answers an error until then. */
#include "cmd.h"

void cmd_hdel(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hexists(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hget(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hgetall(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hincrby(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hincrbyfloat(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hkeys(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hlen(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hmget(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hmset(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hrandfield(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hscan(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hset(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hsetnx(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hstrlen(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_hvals(client *c) { reply_error(c, "ERR not implemented yet"); }
