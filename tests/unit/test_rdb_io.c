/* test_rdb_io: sinks and sources (snapshot/rdb_io.h) and the RDB writer and
 * loader over each of them.
 *
 * Every sink and source kind on its own, their error paths (a full device,
 * a closed fd, a closed pipe, a truncated memory source: each an error
 * message naming the sink or source, and the offset for sources), the file
 * sink's temp-then-rename contract, and RDB round trips through memory and
 * through a pipe (a writer thread -> pipe -> the loader) whose bytes must
 * equal the file sink's, plain and LZ4. Also rdb_write_value and
 * rdb_read_value, the one-value encoding under DUMP/RESTORE. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdb.h"
#include "rdb_io.h"
#include "util.h"
#include "vbuf.h"

static char tdir[256];

static void setup(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(tdir, sizeof tdir, "%s/test_rdb_io.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(tdir));
}

static void teardown(void) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tdir);
    ck_assert_int_eq(system(cmd), 0);
}

static void tpath(char *buf, size_t n, const char *name) { snprintf(buf, n, "%s/%s", tdir, name); }

static unsigned char *slurp(const char *path, size_t *n) {
    int fd = open(path, O_RDONLY);
    ck_assert_int_ge(fd, 0);
    struct stat sb;
    ck_assert_int_eq(fstat(fd, &sb), 0);
    unsigned char *p = xmalloc((size_t)sb.st_size + 1);
    ck_assert_int_eq(read(fd, p, (size_t)sb.st_size), sb.st_size);
    close(fd);
    *n = (size_t)sb.st_size;
    return p;
}

static int exists(const char *path) { return access(path, F_OK) == 0; }

/* ---- sinks ---- */

START_TEST(mem_sink) {
    sink *s = sink_mem_open("mem");
    ck_assert_str_eq(sink_name(s), "mem");
    ck_assert_int_eq(sink_write(s, "hello ", 6), 0);
    ck_assert_int_eq(sink_write(s, "", 0), 0);
    ck_assert_int_eq(sink_write(s, "world", 5), 0);
    ck_assert_uint_eq(sink_bytes(s), 11);
    ck_assert_int_eq(sink_finish(s), 0);
    size_t n;
    const unsigned char *p = sink_mem_data(s, &n);
    ck_assert_uint_eq(n, 11);
    ck_assert(memcmp(p, "hello world", 11) == 0);
    ck_assert_str_eq(sink_error(s), "");
    /* no write after the end */
    ck_assert_int_eq(sink_write(s, "x", 1), -1);
    ck_assert_str_eq(sink_error(s), "mem: write after the end");
    sink_free(s);
    sink_free(NULL);
}
END_TEST

START_TEST(file_sink_atomic) {
    char tmp[300], fin[300];
    tpath(tmp, sizeof tmp, "x.tmp");
    tpath(fin, sizeof fin, "x.rdb");
    char err[RDB_IO_ERRLEN];
    /* finished: tmp becomes fin */
    sink *s = sink_file_open(tmp, fin, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(sink_write(s, "first", 5), 0);
    ck_assert(exists(tmp) && !exists(fin));
    ck_assert_int_eq(sink_finish(s), 0);
    sink_free(s);
    ck_assert(!exists(tmp) && exists(fin));
    size_t n;
    unsigned char *p = slurp(fin, &n);
    ck_assert(n == 5 && memcmp(p, "first", 5) == 0);
    free(p);
    /* aborted: tmp removed, fin untouched */
    s = sink_file_open(tmp, fin, err, sizeof err);
    ck_assert_int_eq(sink_write(s, "second", 6), 0);
    sink_abort(s);
    sink_free(s);
    ck_assert(!exists(tmp));
    p = slurp(fin, &n);
    ck_assert(n == 5 && memcmp(p, "first", 5) == 0);
    free(p);
    /* freed without finish: the same as abort */
    s = sink_file_open(tmp, fin, err, sizeof err);
    sink_free(s);
    ck_assert(!exists(tmp) && exists(fin));
    /* without a final name: written in place, kept on abort */
    s = sink_file_open(tmp, NULL, err, sizeof err);
    ck_assert_int_eq(sink_write(s, "abc", 3), 0);
    ck_assert_int_eq(sink_finish(s), 0);
    sink_free(s);
    p = slurp(tmp, &n);
    ck_assert(n == 3 && memcmp(p, "abc", 3) == 0);
    free(p);
    /* the rename fails: the error names both, tmp is removed */
    char bad[400];
    snprintf(bad, sizeof bad, "%s/nodir/x.rdb", tdir);
    s = sink_file_open(tmp, bad, err, sizeof err);
    ck_assert_int_eq(sink_finish(s), -1);
    ck_assert_msg(strstr(sink_error(s), "rename ") && strstr(sink_error(s), "No such file"),
                  "%s", sink_error(s));
    sink_free(s);
    ck_assert(!exists(tmp));
}
END_TEST

START_TEST(file_sink_errors) {
    char bad[400], err[RDB_IO_ERRLEN];
    snprintf(bad, sizeof bad, "%s/nodir/x.tmp", tdir);
    ck_assert_ptr_null(sink_file_open(bad, NULL, err, sizeof err));
    char want[500];
    snprintf(want, sizeof want, "%s: open: No such file or directory", bad);
    ck_assert_str_eq(err, want);
    /* a full disk */
    sink *s = sink_file_open("/dev/full", NULL, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(sink_write(s, "abc", 3), -1);
    ck_assert_str_eq(sink_error(s), "/dev/full: write: No space left on device");
    ck_assert_int_eq(sink_write(s, "abc", 3), -1);   /* stays failed, first error kept */
    ck_assert_int_eq(sink_finish(s), -1);
    ck_assert_uint_eq(sink_bytes(s), 0);
    sink_free(s);
}
END_TEST

START_TEST(fd_sink_errors) {
    signal(SIGPIPE, SIG_IGN);   /* as the server does */
    /* a closed fd */
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[1]);
    sink *s = sink_fd_open(p[1], "replica");
    ck_assert_int_eq(sink_write(s, "x", 1), -1);
    ck_assert_str_eq(sink_error(s), "replica: write: Bad file descriptor");
    sink_free(s);
    close(p[0]);
    /* a peer that went away */
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]);
    s = sink_fd_open(p[1], "replica");
    ck_assert_int_eq(sink_write(s, "x", 1), -1);
    ck_assert_str_eq(sink_error(s), "replica: write: Broken pipe");
    sink_free(s);
    close(p[1]);
    /* /dev/full through an fd */
    int fd = open("/dev/full", O_WRONLY);
    ck_assert_int_ge(fd, 0);
    s = sink_fd_open(fd, "full");
    ck_assert_int_eq(sink_write(s, "x", 1), -1);
    ck_assert_str_eq(sink_error(s), "full: write: No space left on device");
    sink_free(s);
    ck_assert_int_eq(fcntl(fd, F_GETFD), 0);   /* still the caller's, open */
    close(fd);
}
END_TEST

typedef struct drain {
    int fd;
    vbuf got;
    int slow;
} drain;

static void *drain_main(void *arg) {
    drain *d = arg;
    char buf[4096];
    for (;;) {
        if (d->slow) usleep(200);
        ssize_t k = read(d->fd, buf, sizeof buf);
        if (k <= 0) break;
        vbuf_append(&d->got, buf, (size_t)k);
    }
    return NULL;
}

/* A non-blocking pipe that fills up: the sink waits instead of failing. */
START_TEST(fd_sink_nonblocking) {
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
    drain d = { p[0], {0}, 1 };
    vbuf_init(&d.got);
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, drain_main, &d), 0);
    size_t n = 1u << 20;
    unsigned char *data = xmalloc(n);
    for (size_t i = 0; i < n; i++) data[i] = (unsigned char)(i * 7 + (i >> 9));
    sink *s = sink_fd_open(p[1], "pipe");
    ck_assert_int_eq(sink_write(s, data, n), 0);
    ck_assert_int_eq(sink_finish(s), 0);
    ck_assert_uint_eq(sink_bytes(s), n);
    sink_free(s);
    close(p[1]);
    pthread_join(t, NULL);
    ck_assert_uint_eq(d.got.len, n);
    ck_assert(memcmp(d.got.data, data, n) == 0);
    vbuf_free(&d.got);
    free(data);
    close(p[0]);
}
END_TEST

/* ---- sources ---- */

START_TEST(mem_source) {
    source *s = source_mem_open("0123456789", 10, "payload");
    ck_assert_uint_eq(source_size(s), 10);
    char buf[16];
    ck_assert_int_eq(source_read(s, buf, 4), 4);
    ck_assert(memcmp(buf, "0123", 4) == 0);
    ck_assert_int_eq(source_read_exact(s, buf, 3), 0);
    ck_assert(memcmp(buf, "456", 3) == 0);
    ck_assert_uint_eq(source_offset(s), 7);
    ck_assert_int_eq(source_read(s, buf, 16), 3);   /* short only at the end */
    ck_assert_int_eq(source_read(s, buf, 16), 0);
    source_free(s);
    /* truncated: the error names the source and the offset */
    s = source_mem_open("01234", 5, "payload");
    ck_assert_int_eq(source_read_exact(s, buf, 3), 0);
    ck_assert_int_eq(source_read_exact(s, buf, 8), -1);
    ck_assert_str_eq(source_error(s),
                     "payload: offset 5: unexpected end of the data (2 of 8 bytes read)");
    ck_assert_int_eq(source_read(s, buf, 1), -1);   /* stays failed */
    source_free(s);
}
END_TEST

START_TEST(file_and_fd_sources) {
    char path[300], err[RDB_IO_ERRLEN];
    tpath(path, sizeof path, "in");
    FILE *f = fopen(path, "wb");
    fputs("abcdef", f);
    fclose(f);
    source *s = source_file_open(path, err, sizeof err);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(source_size(s), 6);
    char buf[16];
    ck_assert_int_eq(source_read(s, buf, 16), 6);
    ck_assert_int_eq(source_read_exact(s, buf, 1), -1);
    char want[500];
    snprintf(want, sizeof want, "%s: offset 6: unexpected end of the data (0 of 1 bytes read)",
             path);
    ck_assert_str_eq(source_error(s), want);
    source_free(s);
    /* a missing file: NULL, errno ENOENT */
    tpath(path, sizeof path, "missing");
    errno = 0;
    ck_assert_ptr_null(source_file_open(path, err, sizeof err));
    ck_assert_int_eq(errno, ENOENT);
    snprintf(want, sizeof want, "%s: offset 0: open: No such file or directory", path);
    ck_assert_str_eq(err, want);
    /* a pipe: size unknown, read to the end */
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "xyz", 3), 3);
    close(p[1]);
    s = source_fd_open(p[0], "pipe");
    ck_assert_uint_eq(source_size(s), SOURCE_SIZE_UNKNOWN);
    ck_assert_int_eq(source_read(s, buf, 16), 3);
    ck_assert_int_eq(source_read(s, buf, 16), 0);
    source_free(s);
    ck_assert_int_eq(fcntl(p[0], F_GETFD), 0);   /* still the caller's */
    close(p[0]);
    /* a read error: a directory */
    int fd = open(tdir, O_RDONLY | O_DIRECTORY);
    s = source_fd_open(fd, "dir");
    ck_assert_int_eq(source_read(s, buf, 16), -1);
    ck_assert_str_eq(source_error(s), "dir: offset 0: read: Is a directory");
    source_free(s);
    close(fd);
}
END_TEST

/* ---- the RDB over every sink and source ---- */

#define NKEYS 3000

/* A dataset with int and raw values, expires, three databases, and a few
 * values larger than the writer's and reader's buffers. */
static void put_dataset(rdb_writer *w) {
    rdb_writer_dbsize(w, 0, NKEYS - 20, 100);
    rdb_writer_dbsize(w, 3, 10, 0);
    char kb[32], vb[64];
    for (int i = 0; i < NKEYS; i++) {
        int db = i < NKEYS - 20 ? 0 : i < NKEYS - 10 ? 3 : 7;
        obj *k = obj_new_raw(kb, (size_t)snprintf(kb, sizeof kb, "key:%d", i));
        obj *v;
        if (i % 3 == 0) v = obj_new_int(i * 1000003LL);
        else if (i % 500 == 1) {
            size_t n = (size_t)(1u << 20) * 3 / 2 + (size_t)i;
            char *big = xmalloc(n);
            for (size_t j = 0; j < n; j++) big[j] = (char)(j * 31 + (size_t)i);
            v = obj_new_value(big, n);
            free(big);
        } else {
            v = obj_new_value(vb, (size_t)snprintf(vb, sizeof vb, "value-%d-%x", i, i * 7));
        }
        int64_t exp = i % 30 == 0 ? 4000000000000LL + i : -1;
        ck_assert_msg(rdb_writer_put(w, db, k, v, exp) == 0, "%s", rdb_writer_error(w));
        obj_decref(k);
        obj_decref(v);
    }
}

static const rdb_aux AUX = { "7.0.15", 1700000000, 12345, 0, NULL, {0}, NULL, 0, NULL };

static void write_to(sink *s, int compress) {
    char err[RDB_ERRLEN];
    rdb_writer *w = rdb_writer_open_sink(s, compress, &AUX, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    put_dataset(w);
    ck_assert_msg(rdb_writer_finish(w, err, sizeof err) == 0, "%s", err);
}

/* The file sink's bytes for the dataset. */
static unsigned char *file_bytes(int compress, size_t *n) {
    char path[300], err[RDB_ERRLEN];
    tpath(path, sizeof path, compress ? "ref.lz4.rdb" : "ref.rdb");
    rdb_writer *w = rdb_writer_open(path, compress, &AUX, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    put_dataset(w);
    ck_assert_msg(rdb_writer_finish(w, err, sizeof err) == 0, "%s", err);
    return slurp(path, n);
}

typedef struct tally {
    uint64_t keys, ints, expires, bytes;
    int dbs_seen;   /* bit per database */
} tally;

static int tally_key(void *priv, int db, obj *k, obj *v, int64_t expire, char *err,
                     size_t errlen) {
    (void)err;
    (void)errlen;
    tally *t = priv;
    char kb[OBJ_INTBUF], vb[OBJ_INTBUF];
    size_t kl, vl;
    const char *ks = obj_str(k, kb, &kl);
    int i = atoi(ks + 4);
    int wantdb = i < NKEYS - 20 ? 0 : i < NKEYS - 10 ? 3 : 7;
    ck_assert_int_eq(db, wantdb);
    ck_assert_int_eq(expire, i % 30 == 0 ? 4000000000000LL + i : -1);
    const char *vs = obj_str(v, vb, &vl);
    if (i % 3 == 0) {
        ck_assert_int_eq(v->enc, OBJ_ENC_INT);
        t->ints++;
    } else if (i % 500 == 1) {
        ck_assert_uint_eq(vl, (size_t)(1u << 20) * 3 / 2 + (size_t)i);
        for (size_t j = 0; j < vl; j += 4099) ck_assert(vs[j] == (char)(j * 31 + (size_t)i));
    }
    t->keys++;
    t->bytes += vl;
    if (expire != -1) t->expires++;
    t->dbs_seen |= 1 << db;
    obj_decref(k);
    obj_decref(v);
    return 0;
}

static const rdb_load_cb TALLY = { NULL, tally_key, NULL, NULL, NULL, NULL };

static void check_tally(const tally *t) {
    ck_assert_uint_eq(t->keys, NKEYS);
    ck_assert_uint_eq(t->ints, NKEYS / 3);
    ck_assert_uint_eq(t->expires, NKEYS / 30);
    ck_assert_int_eq(t->dbs_seen, (1 << 0) | (1 << 3) | (1 << 7));
}

START_TEST(rdb_through_memory) {
    int compress = _i;
    size_t fn;
    unsigned char *fb = file_bytes(compress, &fn);
    sink *s = sink_mem_open("mem");
    write_to(s, compress);
    size_t mn;
    const unsigned char *mb = sink_mem_data(s, &mn);
    ck_assert_uint_eq(mn, fn);
    ck_assert(memcmp(mb, fb, fn) == 0);
    ck_assert_uint_eq(sink_bytes(s), fn);
    /* and back through a memory source */
    source *src = source_mem_open(mb, mn, "mem");
    tally t = {0};
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_load(src, 0, &TALLY, &t, &st, err, sizeof err) == 0, "%s", err);
    check_tally(&t);
    ck_assert_int_eq(st.compressed, compress);
    ck_assert_uint_eq(st.file_bytes, mn);
    source_free(src);
    /* a truncated memory source: refused, naming the source and an offset */
    src = source_mem_open(mb, mn - 3, "short");
    memset(&t, 0, sizeof t);
    ck_assert_int_eq(rdb_load(src, 0, &TALLY, &t, &st, err, sizeof err), -1);
    ck_assert_msg(strncmp(err, "short: offset ", 14) == 0, "%s", err);
    source_free(src);
    sink_free(s);
    free(fb);
}
END_TEST

typedef struct pipe_writer {
    int fd;
    int compress;
} pipe_writer;

/* The serializer's side: the whole RDB into the pipe, from its own thread. */
static void *pipe_writer_main(void *arg) {
    pipe_writer *pw = arg;
    sink *s = sink_fd_open(pw->fd, "pipe");
    write_to(s, pw->compress);
    sink_free(s);
    close(pw->fd);
    return NULL;
}

START_TEST(rdb_through_pipe) {
    int compress = _i;
    size_t fn;
    unsigned char *fb = file_bytes(compress, &fn);
    /* the bytes that cross the pipe are the file's */
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    pipe_writer pw = { p[1], compress };
    pthread_t t;
    ck_assert_int_eq(pthread_create(&t, NULL, pipe_writer_main, &pw), 0);
    source *src = source_fd_open(p[0], "pipe");
    vbuf got;
    vbuf_init(&got);
    char buf[65536];
    ssize_t k;
    while ((k = source_read(src, buf, sizeof buf)) > 0) vbuf_append(&got, buf, (size_t)k);
    ck_assert_int_eq(k, 0);
    pthread_join(t, NULL);
    source_free(src);
    close(p[0]);
    ck_assert_uint_eq(got.len, fn);
    ck_assert(memcmp(got.data, fb, fn) == 0);
    vbuf_free(&got);
    /* and the loader reading the pipe directly (size unknown) */
    ck_assert_int_eq(pipe(p), 0);
    pw.fd = p[1];
    ck_assert_int_eq(pthread_create(&t, NULL, pipe_writer_main, &pw), 0);
    src = source_fd_open(p[0], "pipe");
    tally tl = {0};
    rdb_load_stats st;
    char err[RDB_ERRLEN];
    ck_assert_msg(rdb_load(src, 0, &TALLY, &tl, &st, err, sizeof err) == 0, "%s", err);
    pthread_join(t, NULL);
    check_tally(&tl);
    ck_assert_uint_eq(st.file_bytes, fn);
    source_free(src);
    close(p[0]);
    free(fb);
}
END_TEST

/* The writer over a sink that fails: the sink's error is the writer's. */
START_TEST(rdb_writer_sink_error) {
    signal(SIGPIPE, SIG_IGN);
    int p[2];
    ck_assert_int_eq(pipe(p), 0);
    close(p[0]);
    sink *s = sink_fd_open(p[1], "replica");
    char err[RDB_ERRLEN];
    rdb_writer *w = rdb_writer_open_sink(s, RDB_COMPRESS_NONE, &AUX, err, sizeof err);
    ck_assert_ptr_nonnull(w);   /* nothing written yet: the header is buffered */
    obj *k = obj_new_raw("k", 1), *v = obj_new_value("v", 1);
    ck_assert_int_eq(rdb_writer_put(w, 0, k, v, -1), 0);
    ck_assert_int_eq(rdb_writer_finish(w, err, sizeof err), -1);
    ck_assert_str_eq(err, "replica: write: Broken pipe");
    sink_free(s);
    close(p[1]);
    obj_decref(k);
    obj_decref(v);
}
END_TEST

/* ---- one value ---- */

START_TEST(value_round_trip) {
    const char *vals[] = {"", "0", "-1", "123456", "4294967296", "007", "hello", "a\0b"};
    size_t lens[] = {0, 1, 2, 6, 10, 3, 5, 3};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        obj *v = obj_new_value(vals[i], lens[i]);
        sink *s = sink_mem_open("dump");
        char err[RDB_ERRLEN];
        ck_assert_int_eq(rdb_write_value(s, v, 0, err, sizeof err), 0);
        size_t n;
        const unsigned char *p = sink_mem_data(s, &n);
        ck_assert_uint_eq(p[0], 0);   /* RDB_TYPE_STRING */
        source *src = source_mem_open(p, n, "payload");
        obj *back = NULL;
        ck_assert_msg(rdb_read_value(src, &back, err, sizeof err) == 0, "%s", err);
        ck_assert_uint_eq(source_offset(src), n);
        char b1[OBJ_INTBUF], b2[OBJ_INTBUF];
        size_t l1, l2;
        const char *s1 = obj_str(v, b1, &l1), *s2 = obj_str(back, b2, &l2);
        ck_assert(l1 == l2 && memcmp(s1, s2, l1) == 0);
        obj_decref(back);
        source_free(src);
        /* truncated: refused with the offset */
        src = source_mem_open(p, n - 1, "payload");
        obj *none = NULL;
        ck_assert_int_eq(rdb_read_value(src, &none, err, sizeof err), -1);
        ck_assert_ptr_null(none);
        ck_assert_msg(strncmp(err, "payload: offset ", 16) == 0, "%s", err);
        source_free(src);
        sink_free(s);
        obj_decref(v);
    }
    /* a type verso does not hold */
    source *src = source_mem_open("\x15\x00", 2, "payload");   /* 7.2's stream */
    obj *back;
    char err[RDB_ERRLEN];
    ck_assert_int_eq(rdb_read_value(src, &back, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "payload: offset 0: value type 21 (stream)"), "%s", err);
    source_free(src);
}
END_TEST

int main(void) {
    Suite *s = suite_create("rdb_io");
    TCase *tc = tcase_create("rdb_io");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, mem_sink);
    tcase_add_test(tc, file_sink_atomic);
    tcase_add_test(tc, file_sink_errors);
    tcase_add_test(tc, fd_sink_errors);
    tcase_add_test(tc, fd_sink_nonblocking);
    tcase_add_test(tc, mem_source);
    tcase_add_test(tc, file_and_fd_sources);
    tcase_add_loop_test(tc, rdb_through_memory, 0, 2);
    tcase_add_loop_test(tc, rdb_through_pipe, 0, 2);
    tcase_add_test(tc, rdb_writer_sink_error);
    tcase_add_test(tc, value_round_trip);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
