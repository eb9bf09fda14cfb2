/* apprun: runs one part of a client application's test program (a Node or
 * Python script of tests/apps: BullMQ, rq) against a server started by the
 * harness, and fails the Check test unless the program exited 0 having
 * printed "<tag>: ok <part>"; the failure message holds its output. */
#ifndef VERSO_APPRUN_H
#define VERSO_APPRUN_H

#include "harness.h"

/* Runs `interp script PORT part` (script relative to the source tree) for
 * at most h_scaled_ms(timeout_ms) (keep it under the test's own timeout,
 * scaled alike, so that a hung program fails with its output), with
 * VERSO_TIME_SCALE=h_time_scale() in its environment for its own waits;
 * then checks that the server still answers PING. */
void app_run_part(const srv *s, const char *interp, const char *script, const char *tag,
                  const char *part, int timeout_ms);

/* Fails the test unless path (relative to the source tree) exists, naming
 * what installs it. */
void app_require(const char *path, const char *installer);

#endif
