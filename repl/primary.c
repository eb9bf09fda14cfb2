/* primary: the replicas of this server (see repl_int.h). Placeholder: the
 * primary engineer fills it. */
#include "repl_int.h"

#include "../src/cmd.h"

void primary_init(void) {}
void repl_feed(const char *p, size_t n) { (void)p; R.offset += (long long)n; }
void primary_sync_cut(replica_link *rl) { (void)rl; }
void primary_sync_done(replica_link *rl, int ok, const char *why) { (void)rl; (void)ok; (void)why; }
void primary_drop_replicas(void) {}
void primary_info(vbuf *b) { vbuf_appendf(b, "connected_slaves:0\r\n"); }
void primary_role(client *c) {
    reply_array(c, 3);
    reply_bulk_str(c, "master");
    reply_int(c, R.offset);
    reply_array(c, 0);
}
size_t primary_replica_count(void) { return 0; }
void cmd_psync(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_sync(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_replconf(client *c) { reply_ok(c); }
void cmd_wait(client *c) { reply_int(c, 0); }
