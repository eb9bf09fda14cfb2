/* forksave: the fork-based BGSAVE, kept beside the forkless one so that
 * every run can compare the two on the same data.
 *
 * The parent forks; the child (a frozen copy of the tables) writes the
 * snapshot with syncsave, measures its copy-on-write cost (Private_Dirty of
 * /proc/self/smaps_rollup, else /proc/self/smaps), sends it up a pipe and
 * _exits. The parent learns of the end through SIGCHLD on the libuv loop and
 * reads the pipe. Main thread only (the child is single-threaded by
 * construction). */
#ifndef VERSO_FORKSAVE_H
#define VERSO_FORKSAVE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rdb.h"

typedef struct fork_result {
    int ok;             /* the child wrote and renamed the file */
    uint64_t cow_bytes; /* child's Private_Dirty at the end */
    uint64_t keys;
    char err[RDB_ERRLEN];
} fork_result;

/* Forks a child that saves to tmp then path. Returns the child's pid, or -1
 * with err. *fork_us receives the time fork() took. */
pid_t forksave_start(const char *tmp, const char *path, int compress, const rdb_aux *aux,
                     int64_t *fork_us, char *err, size_t errlen);
/* The same, the child writing into `out` (a replication save's fan-out to
 * replica sockets, inherited by the child) instead of a file. */
pid_t forksave_start_sink(sink *out, int compress, const rdb_aux *aux, int64_t *fork_us,
                          char *err, size_t errlen);
/* Non-blocking: 1 when the child has ended (result filled), 0 if it runs. */
int forksave_poll(pid_t pid, fork_result *res);
/* Kills the child and reaps it (FLUSHALL, SHUTDOWN). */
void forksave_kill(pid_t pid);
/* Copy-on-write bytes of the calling process now (Private_Dirty). */
uint64_t forksave_private_dirty(void);

#endif
