/* fuzz_common: what the libFuzzer targets of tests/fuzz share.
 *
 * An in-process server without network or persistence at startup (the
 * tests' inproc_init_server, tests/lib/inproc.h, logging to /dev/null), a
 * per-process scratch directory for the loaders that read files, and a
 * helper to write an input there. Each fuzz program is single-threaded
 * except for the forkless serializer thread the cmds target may start. */
#ifndef VERSO_FUZZ_COMMON_H
#define VERSO_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The scratch directory, under $VERSO_FUZZ_TMP if set, else /dev/shm when
 * writable, else /tmp (created once, removed at a normal exit). */
const char *fz_dir(void);
/* fz_dir()/name, in a static buffer valid until the next call. */
const char *fz_path(const char *name);
/* Writes data to fz_dir()/name (replacing it); aborts on I/O errors. */
void fz_write(const char *name, const void *data, size_t size);
/* Quiet logging (warnings to /dev/null). */
void fz_quiet_log(void);
/* Quiet logging, then the tests' in-process server at its full depth
 * (inproc_init_server: conf defaults, command table, databases, eviction,
 * snapshot, AOF, pub/sub). Idempotent. */
void fz_init_server(void);
/* For LLVMFuzzerInitialize of a target whose saves write relative to the
 * working directory (as the server's do): makes the corpus, -dict and
 * artifact paths of libFuzzer's arguments absolute (artifacts default to
 * the starting directory), then chdir(fz_dir()). */
void fz_enter_dir(int *argc, char ***argv);

#endif
