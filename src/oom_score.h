/* oom_score: the process's score for the Linux OOM killer
 * (/proc/self/oom_score_adj), kept as Redis 7.0's setOOMScoreAdj keeps it.
 *
 * oom-score-adj says how: no leaves the score alone; yes (or relative)
 * writes the role's value of oom-score-adj-values plus the score the
 * process had when verso took it over, clamped to -1000..1000; absolute
 * writes the role's value (clamped). The roles are master and replica
 * (server.upstream); the third value, a background child's, is only kept:
 * verso forks no child. Going back to no writes the score verso found
 * back, if it had changed it; taking the score over again later reads it
 * anew. Lowering the score below what the process started with needs
 * CAP_SYS_RESOURCE: without it the write fails, is logged, and CONFIG SET
 * answers Redis's error. Main thread only. */
#ifndef VERSO_OOM_SCORE_H
#define VERSO_OOM_SCORE_H

#include <stddef.h>

/* Registers the "oom score" hooks (CONFIG SET of oom-score-adj and
 * oom-score-adj-values, a role change). At startup, with the other core
 * modules (hooks.h gives the order). */
void oom_score_init(void);
/* Applies the configuration for the current role, as Redis does before
 * its loop starts: 0, or -1 with err (also logged). */
int oom_score_apply(char *err, size_t errlen);

#endif
