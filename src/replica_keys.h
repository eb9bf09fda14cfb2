/* replica_keys: the keys a writable replica's own clients gave an expire
 * (Redis 7.0's slaveKeysWithExpire, expire.c).
 *
 * A replica leaves the expiry of its master's keys to the master's DELs
 * (db.c). A key written on it directly (replica-read-only no) with an
 * expire has no master to expire it: the replica remembers it here, by
 * name with the databases it was set in (0..63, as Redis), and its cron
 * deletes it once its time passed (a DEL to the AOF, expired_keys counted),
 * while reads already see it gone. A remembered name whose key is gone or
 * has no expire any more is forgotten when the cron meets it; every name
 * is forgotten on FLUSHALL and when a full sync replaces the dataset. As
 * in Redis, a key of the master's later written under a remembered name
 * with an expire is expired by the replica too.
 *
 * Main thread only. */
#ifndef VERSO_REPLICA_KEYS_H
#define VERSO_REPLICA_KEYS_H

#include <stddef.h>
#include <stdint.h>

/* Registers the hooks (FLUSHALL, a replaced dataset) that forget them. */
void rkeys_init(void);
/* An expire was set on key in database dbid: remembered when this server
 * is a writable replica and the running command is not its master's. */
void rkeys_expire_set(int dbid, const char *key, size_t len);
/* The cron's step on a replica: expires the remembered keys whose time
 * passed, within about budget_us. */
void rkeys_expire_cycle(int64_t budget_us);
/* Names remembered now. */
size_t rkeys_count(void);

#endif
