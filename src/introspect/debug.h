/* debug: DEBUG (debug.c), its digests (debug_digest.c) and the crash
 * report (crash.c).
 *
 * The digests are Redis 7.0's (debug.c's xorDigest / mixDigest /
 * xorObjectDigest): SHA1 over the logical content of each value, so that a
 * verso and a redis-server holding the same keys print the same DEBUG
 * DIGEST. Main thread only. */
#ifndef VERSO_DEBUG_H
#define VERSO_DEBUG_H

#include <stdint.h>

#include "server.h"
#include "vt.h"

#define DEBUG_DIGEST_LEN 20

/* The digest of every database (20 zero bytes when all are empty). */
void debug_digest_dataset(uint8_t out[DEBUG_DIGEST_LEN]);
/* The digest of one key's value (its type, content and whether it has an
 * expire), mixed into out as Redis's xorObjectDigest does. */
void debug_digest_value(const vt_entry *e, uint8_t out[DEBUG_DIGEST_LEN]);
/* 40 lower-case hex digits and a NUL. */
void debug_digest_hex(const uint8_t d[DEBUG_DIGEST_LEN], char out[2 * DEBUG_DIGEST_LEN + 1]);

/* DEBUG SET-DISABLE-DENY-SCRIPTS: 1 lets scripts call the commands
 * flagged noscript (script_lua.c reads it). */
extern int debug_deny_scripts_disabled;

/* ---- the crash report (crash.c) ---- */
/* Installs the handlers of SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT
 * (when crash-log-enabled) on an alternate stack; crash_config_changed
 * installs or removes them when the parameter changes. */
void crash_install(void);
void crash_config_changed(void);
/* Redis's serverAssertWithInfo / serverPanic: the report ("=== ASSERTION
 * FAILED ===" or the "Guru Meditation" lines, then the stack trace and the
 * server's state), then abort(), or _exit(1) with use-exit-on-panic. c
 * (may be NULL) is the client whose command failed. */
_Noreturn void crash_assert(const client *c, const char *expr, const char *file, int line);
_Noreturn void crash_panic(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
