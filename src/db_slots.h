/* db_slots: a database's keys by cluster hash slot (keyslot.h), for
 * CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT and for dropping the keys of a
 * slot a node no longer serves.
 *
 * With cluster-enabled the tables are slotted (vt.h's per-slot index):
 * counting is O(1), listing and deleting O(the slot's keys). Otherwise each
 * call walks the whole table (O(keys)). Main thread only. */
#ifndef VERSO_DB_SLOTS_H
#define VERSO_DB_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

/* Keys of slot in d that have not expired (expired ones may be counted
 * until they are deleted, as Redis counts them). */
size_t db_slot_count(db *d, unsigned slot);
/* Calls fn for up to max keys of slot (in no particular order); returns
 * how many. fn must not change the table. */
typedef void (*db_slot_key_fn)(void *priv, const char *key, size_t len);
size_t db_slot_keys(db *d, unsigned slot, size_t max, db_slot_key_fn fn, void *priv);
/* Deletes every key of slot as server-side deletes (db_delete: watchers
 * and client caches told, values freed per lazyfree-lazy-server-del);
 * nothing is propagated here. Returns how many were deleted. */
size_t db_slot_delete(db *d, unsigned slot);

/* ---- slots no client sees ---- */

/* Hides the keys of the slots in map (a KEYSLOT_COUNT-bit set, bit s & 7
 * of byte s >> 3, that the caller keeps alive and updates; NULL: none)
 * from what lists or counts the keyspace: DBSIZE, KEYS, SCAN, RANDOMKEY,
 * INFO keyspace; eviction never picks them. Database 0 only (cluster
 * mode has no other): an atomic slot import's staging area
 * (cluster/slotmig.c). CLUSTER COUNTKEYSINSLOT / GETKEYSINSLOT and the
 * commands on named keys (which the cluster routes) are not affected. */
void db_hide_slots(const uint8_t *map);
/* 1 when key is in a hidden slot of d (0 at once when none is hidden). */
int db_key_hidden(const db *d, const char *key, size_t len);
/* The same for a table entry of d. */
int db_entry_hidden(const db *d, const vt_entry *e);
/* db_size less the hidden slots' keys. */
size_t db_visible_size(db *d);

#endif
