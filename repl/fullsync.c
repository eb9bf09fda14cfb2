/* fullsync: the snapshot of a full resynchronization (see repl_int.h).
 * Placeholder: the fullsync engineer fills it. */
#include "repl_int.h"

void fullsync_init(void) {}
void fullsync_request(replica_link *rl) { primary_sync_done(rl, 0, "not implemented"); }
void fullsync_drop(replica_link *rl) { (void)rl; }
void fullsync_cron(void) {}
int fullsync_in_progress(void) { return 0; }
void fullsync_info(vbuf *b) { (void)b; }
