/* rdb_testutil: helpers shared by the RDB unit tests (test_rdb,
 * test_rdb_lzf): a scratch directory per test, whole-file read/write, and
 * byte comparison of two string objects. Failures end the test (Check). */
#ifndef VERSO_RDB_TESTUTIL_H
#define VERSO_RDB_TESTUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

/* Makes $TMPDIR (or /tmp)/<prefix>.XXXXXX into dir and dir/dump.rdb into
 * path. */
void rt_tmpdir_make(const char *prefix, char *dir, size_t dircap, char *path,
                    size_t pathcap);
/* Removes dir and everything in it. */
void rt_tmpdir_remove(const char *dir);

/* The whole file at path (caller frees; one spare byte allocated); *n = its
 * length. */
unsigned char *read_file(const char *path, size_t *n);
void write_file(const char *path, const void *p, size_t n);

/* One record: what the writer was given or the loader handed over. */
typedef struct rec {
    int db;
    obj *key, *val;
    int64_t expire;
} rec;

/* Appends r to the growing array *v of *n records (capacity *cap). */
void rt_rec_push(rec **v, size_t *n, size_t *cap, rec r);
/* Drops the n records' references and frees v. */
void rt_recs_drop(rec *v, size_t n);

/* 1 when a and b hold the same bytes, whatever their encodings. */
int obj_same(const obj *a, const obj *b);

#endif
