/* test_restore: restore_file (snapshot/restore.c) into the real keyspace,
 * in process: the keys and values a load creates, and that the heap pages
 * they land on are faulted in by one madvise per brk growth, not one page
 * fault each (heap_populate). Page faults are counted with the perf
 * software event (getrusage's ru_minflt also counts the pages madvise
 * faults in, so it cannot tell). */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "restore.h"
#include "db.h"
#include "util.h"
#include "vbuf.h"
#include "inproc.h"
#include "rdb_testutil.h"

#define NKEYS 40000
#define VLEN 1000   /* 14-bit length prefix: up to 16383 */

static void put_len14(vbuf *b, size_t n) {
    unsigned char l[2] = {(unsigned char)(0x40 | (n >> 8)), (unsigned char)(n & 0xff)};
    vbuf_append(b, (const char *)l, 2);
}

static void value_of(size_t i, char *v) {
    for (size_t j = 0; j < VLEN; j++) v[j] = (char)('a' + (i * 31 + j * 7) % 26);
}

/* A plain RDB 10 of NKEYS string keys "key:%08zu" -> VLEN bytes in db 0,
 * with RESIZEDB, and a zero checksum (not checked, as Redis). */
static void write_dump(const char *path) {
    vbuf b;
    vbuf_init(&b);
    vbuf_append(&b, "REDIS0010", 9);
    const unsigned char head[] = {0xfe, 0x00, 0xfb, 0x80, 0, 0, NKEYS >> 8, NKEYS & 0xff, 0x00};
    vbuf_append(&b, (const char *)head, sizeof head);
    char key[32], val[VLEN];
    for (size_t i = 0; i < NKEYS; i++) {
        int kl = snprintf(key, sizeof key, "key:%08zu", i);
        value_of(i, val);
        vbuf_append(&b, "\0", 1); /* string */
        unsigned char l = (unsigned char)kl;
        vbuf_append(&b, (const char *)&l, 1);
        vbuf_append(&b, key, (size_t)kl);
        put_len14(&b, VLEN);
        vbuf_append(&b, val, VLEN);
    }
    vbuf_append(&b, "\xff\0\0\0\0\0\0\0\0", 9);
    write_file(path, b.data, b.len);
    vbuf_free(&b);
}

/* A counter of this process's page faults taken by a trap (-1 when perf
 * events are not allowed here). */
static int fault_counter(void) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_PAGE_FAULTS;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
}

START_TEST(test_load_faults_heap_in_bulk) {
    inproc_init();
    char dir[512], path[600];
    rt_tmpdir_make("verso-restore", dir, sizeof dir, path, sizeof path);
    write_dump(path);

    int fd = fault_counter();
    uintptr_t brk0 = (uintptr_t)sbrk(0);
    if (fd >= 0) ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
    rdb_load_stats st;
    char err[512];
    int rc = restore_file(path, &st, err, sizeof err);
    long long faults = -1;
    if (fd >= 0) {
        ck_assert_int_eq(ioctl(fd, PERF_EVENT_IOC_DISABLE, 0), 0);
        ck_assert_int_eq(read(fd, &faults, sizeof faults), (int)sizeof faults);
        close(fd);
    }
    uintptr_t brk1 = (uintptr_t)sbrk(0);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_uint_eq(st.keys_loaded, NKEYS);
    ck_assert_uint_eq(vt_size(db_get(0)->t), NKEYS);

    char key[32], want[VLEN];
    for (size_t i = 0; i < NKEYS; i += 997) {
        int kl = snprintf(key, sizeof key, "key:%08zu", i);
        vt_entry *e = vt_find(db_get(0)->t, key, (size_t)kl);
        ck_assert_ptr_nonnull(e);
        value_of(i, want);
        ck_assert(obj_eq_bytes(e->val, want, VLEN));
    }

    /* glibc grew its heap with brk by ~43 MB (~10,500 pages): faulted one
     * by one they would be as many page faults; populated, the faults left
     * are the table's (~1,900 pages at most) and a few per growth. An
     * allocator that does not use brk (ASan's) moves no break, and a
     * process may not be allowed perf events (perf_event_paranoid): then
     * only the keys above are checked. */
    long page = sysconf(_SC_PAGESIZE);
    long grown = (long)(brk1 - brk0) / page;
    fprintf(stderr, "heap grew by %ld pages; page faults: %lld%s\n", grown, faults,
            fd < 0 ? " (perf events not allowed)" : "");
    if (grown > 0 && fd >= 0) {
        ck_assert_msg(grown > 8000, "the heap grew by %ld pages only", grown);
        ck_assert_msg(faults < grown / 2, "%lld page faults for %ld pages of heap growth",
                      faults, grown);
    }
    rt_tmpdir_remove(dir);
}
END_TEST

int main(void) {
    Suite *s = suite_create("restore");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_load_faults_heap_in_bulk);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
