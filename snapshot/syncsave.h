/* syncsave: writes every database to a snapshot file from the calling
 * thread, walking the tables directly. Used where nothing else runs
 * meanwhile: SAVE and SHUTDOWN on the main thread (blocking clients, as
 * Redis does) and the fork child, whose tables are a frozen copy. */
#ifndef VERSO_SYNCSAVE_H
#define VERSO_SYNCSAVE_H

#include <stddef.h>
#include <stdint.h>

#include "rdb.h"

/* Writes all databases to `tmp`, fsyncs it and renames it to `path`.
 * *keys receives the number of keys written. 0, or -1 with err. */
int syncsave_write(const char *tmp, const char *path, int compress, const rdb_aux *aux,
                   uint64_t *keys, char *err, size_t errlen);
/* The same to any sink (which stays the caller's: finished or aborted
 * here, freed by the caller). */
int syncsave_write_sink(sink *out, int compress, const rdb_aux *aux, uint64_t *keys,
                        char *err, size_t errlen);

#endif
