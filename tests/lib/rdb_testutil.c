/* rdb_testutil: helpers shared by the RDB unit tests (see rdb_testutil.h). */
#include "rdb_testutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void rt_tmpdir_make(const char *prefix, char *dir, size_t dircap, char *path,
                    size_t pathcap) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, dircap, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(path, pathcap, "%s/dump.rdb", dir);
}

void rt_tmpdir_remove(const char *dir) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

unsigned char *read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *p = xmalloc((size_t)sz + 1);
    ck_assert_uint_eq(fread(p, 1, (size_t)sz, f), (size_t)sz);
    fclose(f);
    *n = (size_t)sz;
    return p;
}

void write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

int obj_same(const obj *a, const obj *b) {
    char ba[OBJ_INTBUF], bb[OBJ_INTBUF];
    size_t la, lb;
    const char *pa = obj_str(a, ba, &la), *pb = obj_str(b, bb, &lb);
    return la == lb && memcmp(pa, pb, la) == 0;
}

void rt_rec_push(rec **v, size_t *n, size_t *cap, rec r) {
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        *v = xrealloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = r;
}

void rt_recs_drop(rec *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        obj_decref(v[i].key);
        obj_decref(v[i].val);
    }
    free(v);
}
