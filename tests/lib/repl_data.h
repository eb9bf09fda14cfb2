/* repl_data: the data sets of the replication tests and the key-by-key
 * comparison of a primary's dataset with a replica's (hiredis, per-type
 * reads: strings, lists, hashes, sets, sorted sets, streams as XINFO
 * STREAM FULL without the consumers' seen-times, with expiries). */
#ifndef VERSO_REPL_DATA_H
#define VERSO_REPL_DATA_H

#include <hiredis/hiredis.h>

/* Strings (int, short, long, with expiry), lists, hashes, sets, zsets small
 * and big (every encoding), keys "<tag>:...", in databases 0 and 5: 220
 * keys. Leaves database 0 selected. */
void repl_populate(redisContext *c, const char *tag);
/* Writes of every kind over repl_populate(c, "a")'s keys: SELECT,
 * MULTI/EXEC, deletes, expiries, FLUSHDB of database 9. */
void repl_mutate(redisContext *c);
/* n keys big:<i> of 100 kB that LZF cannot shrink. */
void repl_big_values(redisContext *c, int n);
/* Every key of every database of a is in b with the same value and the
 * same expiry or none, and b has no other key (the test fails otherwise).
 * Returns the keys compared. */
long long repl_compare_datasets(redisContext *a, redisContext *b);

#endif
