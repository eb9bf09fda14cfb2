/* history: a primary's replication history across its restart, as Redis
 * 7.0 keeps it (rdbPopulateSaveInfo, loadDataFromDisk).
 *
 * A save on a primary that has a backlog records its replication id and
 * offset (the repl-id, repl-offset and repl-stream-db AUX fields; a
 * primary without a backlog is in no replication chain and records
 * nothing). Started again on that snapshot, the primary takes the
 * recorded history as its second one (replid2, second_repl_offset =
 * offset + 1), continues the offset from there with an empty backlog and
 * a new replid: its replicas, which hold everything up to that offset,
 * resume with +CONTINUE. A replica's own save and restart are replica.c's
 * (its master's history). Main thread only. */
#include <string.h>

#include "log.h"
#include "repl.h"
#include "snap.h"
#include "repl_int.h"

void history_primary_save(rdb_repl_aux *out) {
    if (server.upstream || !backlog_exists()) return;
    out->set = 1;
    /* -1: no command since the last full sync; the next one starts with a
     * SELECT anyway (Redis records 0 then) */
    out->stream_db = R.stream_db < 0 ? 0 : R.stream_db;
    memcpy(out->id, R.replid, sizeof out->id);
    out->offset = R.offset;
}

void repl_data_loaded(void) {
    rdb_repl_aux ra;
    /* a replica adopts its master's history itself (replica.c) */
    if (server.upstream || !snap_loaded_repl_info(&ra)) return;
    memcpy(R.replid2, ra.id, sizeof R.replid2);
    R.second_offset = ra.offset + 1;
    R.offset = ra.offset;
    R.stream_db = -1;
    backlog_create(); /* empty: its first byte is offset + 1 */
    primary_backlog_restored();
    log_notice("Replication history %s:%lld restored from the RDB file: replicas of it can "
               "continue (my new replication IDs are '%s' and '%s')",
               ra.id, ra.offset, R.replid, R.replid2);
}
