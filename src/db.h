/* db: the databases (one versioned table each) and key expiry.
 *
 * Every command reaches keys through these functions so that expiry is
 * applied the same way everywhere: a key whose expire time has passed is
 * deleted on access (lazy) and by the active cycle on the cron timer, which
 * walks each table with a cursor within a time budget. While server.loading
 * (startup replay) no key expires, as in Redis. Every change to a key made
 * here (write, expire time, delete, expiry) goes through db_key_changed,
 * and every replacement of a whole table (flush, a replica's load) through
 * db_replace_table. Values removed are freed through lazyfree.h (in the
 * background when big and the lazyfree-lazy-* switch of the path is on).
 * Main thread only. */
#ifndef VERSO_DB_H
#define VERSO_DB_H

#include "server.h"

void db_init_all(int n);
db *db_get(int id);

/* Lookup for reading: applies lazy expiry and counts keyspace hits and
 * misses. NULL when absent or expired. */
vt_entry *db_lookup_read(db *d, const char *key, size_t len);
/* As db_lookup_read, without touching the key's access clock (Redis's
 * LOOKUP_NOTOUCH: EXISTS, TYPE, TTL and the like do not keep a key from
 * eviction). */
vt_entry *db_lookup_read_notouch(db *d, const char *key, size_t len);
/* Lazy expiry only: no statistics, no access clock (SCAN's filters). */
vt_entry *db_lookup_notouch(db *d, const char *key, size_t len);
/* The same without hit/miss statistics (for write commands' reads). */
vt_entry *db_lookup(db *d, const char *key, size_t len);
/* Lookup for a command that expects a value of `type` (Redis's lookupKey +
 * checkType): the entry, or NULL when the key is absent; when it holds
 * another type, replies "-WRONGTYPE ..." to c, sets *wrong to 1 and returns
 * NULL (*wrong is 0 otherwise). `read`: count a hit or a miss as
 * db_lookup_read does (read commands), else as db_lookup. */
enum { DB_LOOKUP_WRITE = 0, DB_LOOKUP_READ = 1 };
vt_entry *db_lookup_typed(client *c, db *d, const char *key, size_t len, int type, int read,
                          int *wrong);
/* The WRONGTYPE error, for commands that check a type themselves. */
void db_reply_wrongtype(client *c);
/* Write access, see vt_write: an expired key is deleted first, so the caller
 * sees it as absent (and with `create`, a fresh entry). */
vt_entry *db_write(db *d, const char *key, size_t len, int create, vt_wr *w,
                   int *created);
/* Stores val (taking its reference) under key; expire is unix ms, or
 * VT_NO_EXPIRE, or DB_KEEPTTL to keep the current one. */
#define DB_KEEPTTL INT64_C(-2)
void db_set(db *d, const char *key, size_t len, obj *val, int64_t expire);
/* db_set with the key's access clock given (RESTORE's IDLETIME / FREQ:
 * evict_restored_clock). */
void db_set_access(db *d, const char *key, size_t len, obj *val, int64_t expire,
                   uint32_t access);
/* db_set of a string value from bytes (INT when canonical, as
 * obj_new_value), built with its key in one allocation. */
void db_set_bytes(db *d, const char *key, size_t len, const char *p, size_t n, int64_t expire);
/* Sets the expire (unix ms, or VT_NO_EXPIRE) of an existing key; 0 when
 * it is absent (or expired). */
int db_set_expire(db *d, const char *key, size_t len, int64_t expire);
/* Deletes a key; 1 if it existed (and was not already expired). Its value
 * is freed as a server-side delete (lazyfree-lazy-server-del; lazyfree.h). */
int db_delete(db *d, const char *key, size_t len);
/* The same, the value freed in the background when `lazy` and it is big
 * (DEL with lazyfree-lazy-user-del, UNLINK). */
int db_delete_lazy(db *d, const char *key, size_t len, int lazy);
/* Deletes a key found by the caller, without lazy expiry or
 * db_key_changed (expiry, eviction): the value freed as db_delete_lazy. 1
 * if it existed. */
int db_remove(db *d, const char *key, size_t len, int lazy);
/* What every change to a key must do, as Redis's signalModifiedKey: the
 * clients WATCHing it fail their EXEC (multi.h) and the client-side caches
 * that hold it are invalidated (tracking.h). db_write (on behalf of the
 * caller about to change the entry), db_delete_lazy, expiry and eviction
 * call it; a write that goes to the table directly (vt_write) does not. */
void db_key_changed(int dbid, const char *key, size_t len);
/* The same for a change the server makes on its own (expiry, eviction), as
 * Redis's signalModifiedKey(NULL, ...): no client made it, so a BCAST
 * NOLOOP client hears of it even when its own command triggered it. */
void db_key_changed_by_server(int dbid, const char *key, size_t len);
/* Puts table t in d's place, as every replacement of a whole table must:
 * the watchers of d's existing keys fail their EXEC, active expiry starts
 * over, and the old table is freed (in the background when `lazy`) unless
 * a subsystem keeps it (hooks.h's keep_retired_table). The caller has run
 * hooks_before_flush; client-side caches are told by the after_flush /
 * dataset_replaced hooks. */
void db_replace_table(db *d, vt *t, int lazy);
/* Empties a database (FLUSHDB); aborts a running save first (see snap.h).
 * db_flush_lazy frees the old table in the background when `lazy`
 * (FLUSHDB ASYNC). */
void db_flush(db *d);
void db_flush_lazy(db *d, int lazy);
size_t db_size(db *d);
/* SWAPDB: databases id1 and id2 (valid indexes) exchange their tables in
 * O(1) (and their expiry cursors and average TTLs); clients stay in their
 * database: the watchers of keys that exist in either table fail their
 * EXEC, clients blocked on keys that now exist are served after the
 * command (as Redis 7.0's dbSwapDatabases). A save running keeps writing
 * each table under the database number it had when the save began: its
 * capture hooks belong to the tables (vt.h), so the file is the dataset
 * at the save's start. */
void db_swap(int id1, int id2);

/* 1 when the entry's expire time has passed (now: db_now()), not only
 * come: a key lives through its last millisecond, as Redis's now > when. */
int db_expired(const vt_entry *e, int64_t now_ms);

/* The time expiry decisions use (unix ms), as Redis 7.0's cached command
 * time: held from the start of a top-level command to its end (a
 * transaction: from EXEC to its end), snapshotted again when a script
 * starts, and held while blocked clients are served; the clock itself
 * outside. A key set to expire in 1 ms inside a transaction or a script is
 * still there when they read it. */
int64_t db_now(void);
/* Holds the time at now unless it is held already; returns what
 * db_time_release restores. */
int64_t db_time_hold(void);
/* Holds the time at now (a script's snapshot); returns what
 * db_time_release restores. */
int64_t db_time_snapshot(void);
void db_time_release(int64_t prev);

/* Active expiry: called by the cron; spends at most budget_us. On a
 * replica only the keys its own clients gave an expire (replica_keys.h).
 * Returns 1 when it ran out of time with many expired keys still found
 * (over 10 % of the keys with a TTL it read): the caller runs it again
 * soon (server.c's fast expiry). */
int db_active_expire(int64_t budget_us);
/* Cron: tables merge what deletes during a save left sparse (vt_shrink),
 * a bounded step each. */
void db_tables_cron(void);
/* A writable replica's own key (replica_keys.h): deleted as expired (a DEL
 * propagated) when its time passed at now_ms. 1 while key has an expire
 * still to come, 0 when it is gone, has no expire, or was expired now. */
int db_expire_if_due(db *d, const char *key, size_t len, int64_t now_ms);
/* DEBUG SET-ACTIVE-EXPIRE 0|1: turns active expiry off (keys then expire
 * only lazily, on access) or back on (the default). */
void db_set_active_expire(int on);

#endif
