/* lazyfree: freeing big values and whole tables on a background thread, as
 * Redis 7.0's lazyfree.c, so that deleting a collection of millions of
 * elements costs the main thread O(1).
 *
 * Who frees in the background (Redis 7.0's rules): UNLINK, FLUSHALL ASYNC,
 * FLUSHDB ASYNC always; DEL, expiry, eviction, server-side deletes and
 * overwrites, FLUSHALL/FLUSHDB without an argument when their
 * lazyfree-lazy-* switch is on (conf.h). A value goes to the thread only when
 * its free effort exceeds LAZYFREE_THRESHOLD and the caller holds its last
 * reference (a value a save still holds is freed by the save when it drops
 * it); anything else is freed at once. A collection obj's nodes are freed
 * by whoever drops the obj's last reference (obj_decref -> pt_free), so
 * handing the obj over is enough.
 *
 * Threads. lazyfree_* calls are main thread only. The thread ("lazyfree")
 * owns only the jobs it has taken from the queue; the queue and the stop
 * flag are under the module's mutex, the two counters (INFO
 * lazyfree_pending_objects, lazyfreed_objects) are atomics. Values reach the
 * thread only as last references, so it touches nothing the main thread
 * still sees but the nodes' atomic refcounts (ptree.h) and obj_mem_total's
 * atomic counter. Before lazyfree_start (unit tests) and after
 * lazyfree_stop every job runs inline. */
#ifndef VERSO_LAZYFREE_H
#define VERSO_LAZYFREE_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"
#include "vt.h"

/* Redis's LAZYFREE_THRESHOLD: values whose free effort is above go to the
 * thread. */
#define LAZYFREE_THRESHOLD 64

/* Registers the shutdown hook (lazyfree_stop: nothing to do while the
 * thread is not running), at startup. */
void lazyfree_init(void);
/* Starts the thread. 0, or -1 with err. */
int lazyfree_start(char *err, size_t errlen);
/* Frees every queued job, then joins the thread (SHUTDOWN; idempotent). */
void lazyfree_stop(void);

/* Redis's lazyfreeGetFreeEffort: the number of allocations that freeing v
 * releases, estimated in O(1): 1 for strings and for the small encodings
 * (listpack, intset), the element count for the big ones. */
size_t lazyfree_effort(const obj *v);
/* Drops the caller's reference to v: on the thread when `lazy`, v's effort
 * exceeds LAZYFREE_THRESHOLD and the reference is the last; here otherwise. */
void lazyfree_drop(obj *v, int lazy);
/* Frees a table replaced by a flush (vt_free): on the thread when `lazy`
 * (every table, whatever its size, as Redis's emptyDbAsync), here
 * otherwise. Its keys count as lazyfree objects. */
void lazyfree_table(vt *t, int lazy);

/* INFO: objects queued and not yet freed; objects freed by the thread
 * since the start (or CONFIG RESETSTAT). Any thread. */
size_t lazyfree_pending(void);
size_t lazyfree_freed(void);
void lazyfree_reset_stats(void);

#endif
