/* rdb_io: where RDB bytes go to and come from, like Redis's rio.
 *
 * A sink takes bytes: a file (written under a temporary name, then fsync,
 * rename and fsync of the directory, so that a crash leaves the old file or
 * the new one), an already open fd (a pipe, a socket), a fan-out over
 * several replica sockets (a full sync, repl/fullsync.c), or a growing
 * memory buffer (DUMP). A source gives bytes
 * back: a file, an fd, or memory (RESTORE). The RDB writer (rdb_write.c)
 * and loader (rdb_read.c) sit on top of them: their buffering, CRC64 and LZ4
 * frame apply to every sink and source alike. Sinks and sources do no
 * buffering of their own: each write or read is a system call (or a memcpy).
 *
 * Errors are values: a failing call returns -1 and keeps the first error as
 * a message that starts with the sink's or source's name ("dump.rdb: write:
 * No space left on device", "DUMP payload: offset 12: unexpected end of the
 * data"); later calls fail at once. A sink or source belongs to the one
 * thread using it (the serializer thread, the fork child, a full sync's
 * sender thread, a replica's loader thread, the main thread), it holds no
 * locks and shares nothing. */
#ifndef VERSO_RDB_IO_H
#define VERSO_RDB_IO_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RDB_IO_ERRLEN 256

/* ---- sinks ---- */

typedef struct sink sink;

/* A file sink writing `path` (created, truncated). With final == NULL,
 * sink_finish fsyncs and closes it. With final set, `path` is a temporary
 * name: sink_finish also renames it to `final` and fsyncs the directory,
 * and sink_abort removes it. NULL on error with err filled ("<path>: open:
 * ..."). */
sink *sink_file_open(const char *path, const char *final, char *err, size_t errlen);
/* A sink writing to fd, which stays the caller's (finish and abort do not
 * close it). Writes are full-write loops that retry EINTR; on a
 * non-blocking fd they wait for POLLOUT on EAGAIN, so the writing thread
 * blocks until the peer takes the bytes (the serializer's thread, for a
 * replica's socket). SIGPIPE must be ignored (the server does): a closed
 * peer is then the error "<name>: write: Broken pipe". finish fsyncs a
 * regular file, does nothing for pipes and sockets. */
sink *sink_fd_open(int fd, const char *name);
/* A sink writing the same bytes to several fds: a full sync's replica
 * sockets (repl/fullsync.c), each a dup() that stays the caller's. Targets
 * are added before the first write, each with a prefix written before its
 * first payload byte ("+FULLRESYNC ...\r\n$EOF:<mark>\r\n"); sink_finish
 * writes the suffix (the mark) to every target still alive. A target whose
 * write fails (a peer gone, or a socket the owner shut down to drop it) or
 * that takes nothing for timeout_ms (0: no limit) is dropped, its error kept
 * (sink_fanout_error); the others go on. The sink fails only when no target
 * is left. Writes block the writing thread (poll on EAGAIN). */
sink *sink_fanout_open(const char *name, int timeout_ms);
void sink_fanout_add(sink *s, int fd, const char *name, const void *prefix, size_t len);
void sink_fanout_set_suffix(sink *s, const void *p, size_t n);
size_t sink_fanout_count(const sink *s);
/* A fan-out's waits give up (its targets then fail) once *stop is non-zero,
 * within 100 ms: a save aborted at shutdown does not wait for a replica
 * that takes nothing. Set before the first write. */
void sink_fanout_set_stop(sink *s, const atomic_int *stop);
/* Target i's error, "" while it got every byte. Read once the writing
 * thread is done with the sink. */
const char *sink_fanout_error(const sink *s, size_t i);
/* A sink collecting the bytes in memory (sink_mem_data). */
sink *sink_mem_open(const char *name);

/* Writes n bytes. 0, or -1 with the error kept. */
int sink_write(sink *s, const void *p, size_t n);
/* Makes the bytes durable and the output complete (see each kind above).
 * 0, or -1 with the error kept. Free the sink afterwards either way. */
int sink_finish(sink *s);
/* Gives up: closes a file sink and removes its temporary name (when it has
 * a final name). The sink must still be freed. */
void sink_abort(sink *s);
/* Bytes written so far. */
uint64_t sink_bytes(const sink *s);
/* The first error, "" when none. */
const char *sink_error(const sink *s);
const char *sink_name(const sink *s);
/* A memory sink's bytes (valid until the next write or the free). */
const unsigned char *sink_mem_data(const sink *s, size_t *len);
/* Closes (a file sink not finished is aborted) and frees. NULL is ignored. */
void sink_free(sink *s);

/* Makes `tmp` the file `path`: rename, then fsync of the directory. 0 or -1
 * with err. What a file sink with a final name does in sink_finish. */
int sink_commit_file(const char *tmp, const char *path, char *err, size_t errlen);

/* ---- sources ---- */

typedef struct source source;

#define SOURCE_SIZE_UNKNOWN UINT64_MAX

/* Opens `path` for reading. NULL with err filled and errno kept (ENOENT
 * tells "no such file"). */
source *source_file_open(const char *path, char *err, size_t errlen);
/* Reads fd, which stays the caller's. Its size is known when it is a
 * regular file (fstat), else SOURCE_SIZE_UNKNOWN. Blocking reads. */
source *source_fd_open(int fd, const char *name);
/* Reads len bytes at p (not copied: they must outlive the source). */
source *source_mem_open(const void *p, size_t len, const char *name);

/* Reads up to n bytes: fewer only when the data ends. Returns the count
 * (0 at the end), or -1 with the error kept. */
ssize_t source_read(source *s, void *p, size_t n);
/* Reads exactly n bytes: 0, or -1 with the error kept, which names the
 * offset where the data ended. */
int source_read_exact(source *s, void *p, size_t n);
/* Bytes read so far. */
uint64_t source_offset(const source *s);
/* Total size, or SOURCE_SIZE_UNKNOWN (pipes, sockets). */
uint64_t source_size(const source *s);
const char *source_error(const source *s);
const char *source_name(const source *s);
/* Closes a file source (an fd source's fd stays open) and frees. */
void source_free(source *s);

#endif
