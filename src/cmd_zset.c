/* cmd_zset.c: PLACEHOLDER, replaced by the zset work of issue 9: every handler
 * answers an error until then. */
#include "cmd.h"

void cmd_bzmpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bzpopmax(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bzpopmin(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zadd(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zcard(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zcount(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zdiff(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zdiffstore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zincrby(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zinter(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zintercard(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zinterstore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zlexcount(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zmpop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zmscore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zpopmax(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zpopmin(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrandmember(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrange(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrangebylex(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrangebyscore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrangestore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrank(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrem(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zremrangebylex(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zremrangebyrank(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zremrangebyscore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrevrange(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrevrangebylex(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrevrangebyscore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zrevrank(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zscan(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zscore(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zunion(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_zunionstore(client *c) { reply_error(c, "ERR not implemented yet"); }
