/* manifest: the Redis 7 multi-part AOF manifest.
 *
 * appendonlydir/appendonly.aof.manifest lists one BASE file and the INCR
 * files after it, one per line, in Redis's syntax:
 *   file appendonly.aof.1.base.rdb seq 1 type b
 *   file appendonly.aof.1.incr.aof seq 1 type i
 * (type h for history files awaiting deletion). Names may be quoted as
 * Redis's sdssplitargs allows. Writing goes through a temp file, fsync,
 * rename and a directory fsync, so a crash leaves the old or the new
 * manifest.
 *
 * Threads: the functions keep no state of their own; each works on the
 * aof_manifest it is given, which one thread owns at a time. The AOF loads
 * and edits its manifest on the main thread and hands a copy (aofm_copy) to
 * the writer thread, which saves it in order with the stream (aof.c's
 * manifest_job); the main thread saves directly only at startup and for the
 * first base after the AOF is turned on. */
#ifndef VERSO_AOF_MANIFEST_H
#define VERSO_AOF_MANIFEST_H

#include <stddef.h>

typedef struct aof_file {
    char *name;
    long long seq;
    char type;              /* 'b' base, 'i' incr, 'h' history */
} aof_file;

typedef struct aof_manifest {
    aof_file base;          /* name NULL when there is no base */
    aof_file *incrs;        /* in order */
    int nincr;
    aof_file *history;
    int nhistory;
    long long curr_base_seq;
    long long curr_incr_seq;
} aof_manifest;

void aofm_init(aof_manifest *m);
void aofm_free(aof_manifest *m);
/* Reads dir/<filename>.manifest. 0 ok, 1 when it does not exist, -1 with
 * err ("appendonly.aof.manifest: line 2: Invalid AOF manifest file format")
 * when malformed, exactly as Redis 7.0: missing fields, two bases, seq 0 or
 * non-increasing incr seqs, a line over 1024 bytes, no newline at the end,
 * a file name with '/' or '\\'. Unknown keys are ignored, as Redis does. */
int aofm_load(const char *dir, const char *filename, aof_manifest *m, char *err, size_t errlen);
/* Writes the manifest atomically. 0 or -1 with err. */
int aofm_save(const char *dir, const char *filename, const aof_manifest *m, char *err,
              size_t errlen);
/* New names, as Redis: "<filename>.<seq>.base.rdb", "<filename>.<seq>.incr.aof".
 * They bump curr_base_seq / curr_incr_seq. Caller frees. */
char *aofm_new_base_name(aof_manifest *m, const char *filename);
/* The same, "<filename>.<seq>.base.aof" when !rdb (a base of commands,
 * aof-use-rdb-preamble no). */
char *aofm_new_base_name_as(aof_manifest *m, const char *filename, int rdb);
char *aofm_new_incr_name(aof_manifest *m, const char *filename);
/* Deep copy. */
void aofm_copy(aof_manifest *dst, const aof_manifest *src);
/* fsync of directory dir (its entries made durable): 0, or -1 with errno. */
int aofm_fsync_dir(const char *dir);

#endif
