/* Integration tests: maxmemory while a forkless save runs
 * (maxmemory-include-save, doc/design.md "Eviction during a save").
 *
 * The dataset: NKEYS keys of VSIZE bytes filled to the limit; a BGSAVE made
 * long by rdb-key-save-delay (the serializer sleeps after every key, so
 * the save lasts about NKEYS x the delay whatever the writes do); while it
 * runs, pipelined overwrites of the dataset's keys (each overwrite of a key
 * the save has not written yet leaves its old version to the save) and
 * reads, with INFO memory sampled after every batch.
 *
 * - maxmemory-include-save yes (allkeys-lru, allkeys-random, noeviction):
 *   used_memory never goes above maxmemory plus a small tolerance (below);
 *   when nothing can be evicted writes get Redis's OOM error while reads go
 *   on; the save finishes and frees, and writes are accepted again;
 * - no (the default, Redis's rule): the counted figure stays at the limit
 *   but used_memory goes over it by what the save retains (the old
 *   behaviour, visible so that the yes case can fail);
 * - in every case the dump is the dataset at the BGSAVE: every key with its
 *   value from before the save, evicted and overwritten keys included.
 *
 * Tolerance. The bound is maxmemory + gap + TOL, where gap is used_memory
 * minus mem_counted_for_evict measured before the save, after one batch of
 * the same shape (rewriting the keys' own values): what maxmemory does not
 * count with or without a save, i.e. the unused tail of the table's 2 MiB
 * slab (1.8 MB here), and, where used_memory is the allocator's whole count
 * (sanitizer builds, jemalloc), the client's query and output buffers of a
 * batch. TOL (1 MB) is what the save may add on top without retaining a
 * version: the serializer's own working memory (rdb_write.c's 256 KB
 * output buffer and the thread's other allocations), which only the
 * allocator's whole count sees (measured under TSan: a steady 0.48 MB from
 * the save's start to its end, whatever it retained); memory is checked before each command (as Redis), so one SET
 * of VSIZE bytes may overshoot; the serializer holds the 14 values of the
 * bucket it encodes for an instant (counted, not freeable); and the client
 * buffers' swing from batch to batch. In the default build (glibc, where
 * used_memory is the counted objects plus a startup base) the peak was
 * 1.1 KB above gap. Without the setting the save retains megabytes (the
 * 'no' case asserts more than RETAINED_MIN above gap, and measured 19 MB
 * retained; 14 MB under TSan, with the save made longer there). */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define OOM "OOM command not allowed when used memory > 'maxmemory'."
#define KB 1024LL
#define MB (1024LL * 1024)
#define NKEYS 20000
#define VSIZE 1000
#define DELAY_US 100 /* rdb-key-save-delay: a save of ~2-4 s */
#define BATCH 100    /* SETs (and as many GETs) per pipelined batch */
#define HEADROOM (256 * KB) /* maxmemory above the filled dataset */
#define TOL (1 * MB)
#define RETAINED_MIN (2 * MB)

static long long field_ll(const char *info, const char *name)
{
    char buf[64];
    ck_assert_msg(h_info_field(info, name, buf, sizeof buf), "INFO has no %s", name);
    return atoll(buf);
}

/* What one run saw. */
typedef struct run {
    long long limit, gap;         /* maxmemory; used_memory - counted before */
    long long max_used, max_counted, max_retained;
    long long sets_ok, sets_oom, reads, reads_in_oom_batches, evicted;
} run;

/* Sends a batch of SETs (overwrites of dataset keys) and GETs, tallies the
 * replies: a SET answers OK or the OOM error, a GET a bulk or nil (never an
 * error: reads go on over the limit). */
static void write_batch(redisContext *c, unsigned *w, const char *val, run *r)
{
    for (int i = 0; i < BATCH; i++) {
        unsigned k = (*w)++ * 2654435761u % NKEYS;
        redisAppendCommand(c, "SET k:%u %s", k, val);
        redisAppendCommand(c, "GET k:%u", (k * 7u + 13u) % NKEYS);
    }
    long long oom = 0, reads = 0;
    for (int i = 0; i < 2 * BATCH; i++) {
        redisReply *rep = NULL;
        ck_assert_int_eq(redisGetReply(c, (void **)&rep), REDIS_OK);
        if (i % 2 == 0) {
            if (rep->type == REDIS_REPLY_ERROR) {
                ck_assert_msg(strcmp(rep->str, OOM) == 0, "SET: '%s'", rep->str);
                oom++;
            } else {
                ck_assert_int_eq(rep->type, REDIS_REPLY_STATUS);
                r->sets_ok++;
            }
        } else {
            ck_assert_msg(rep->type == REDIS_REPLY_STRING || rep->type == REDIS_REPLY_NIL,
                          "GET answered type %d", rep->type);
            reads++;
        }
        freeReplyObject(rep);
    }
    r->sets_oom += oom;
    r->reads += reads;
    if (oom) r->reads_in_oom_batches += reads;
}

/* A batch of the same shape as write_batch that leaves the dataset as
 * DEBUG POPULATE made it (each SET writes the key's own value: "value:N",
 * zero-padded): the client's buffers grow to a batch's size before the
 * gap is measured. */
static void warm_batch(redisContext *c)
{
    char val[VSIZE];
    for (int i = 0; i < BATCH; i++) {
        memset(val, 0, sizeof val);
        snprintf(val, sizeof val, "value:%d", i);
        redisAppendCommand(c, "SET k:%d %b", i, val, (size_t)VSIZE);
        redisAppendCommand(c, "GET k:%d", NKEYS - 1 - i);
    }
    for (int i = 0; i < 2 * BATCH; i++) {
        redisReply *rep = NULL;
        ck_assert_int_eq(redisGetReply(c, (void **)&rep), REDIS_OK);
        ck_assert_int_ne(rep->type, REDIS_REPLY_ERROR);
        freeReplyObject(rep);
    }
}

/* Every key of the dataset at the BGSAVE with its DEBUG POPULATE value, and
 * nothing else: the dump is point in time. */
static void check_dump(const srv *s)
{
    srv *s2 = h_srv_start("--dir '%s' --dbfilename dump.rdb", s->dir);
    redisContext *c = srv_connect(s2);
    h_wait_loaded(c, 60000);
    expect_int(c, NKEYS, "DBSIZE");
    for (int i = 0; i < NKEYS; i++) redisAppendCommand(c, "GETRANGE k:%d 0 19", i);
    for (int i = 0; i < NKEYS; i++) {
        redisReply *r = NULL;
        char want[32];
        int len = snprintf(want, sizeof want, "value:%d", i);
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_msg(r->type == REDIS_REPLY_STRING && r->len == 20 &&
                          memcmp(r->str, want, (size_t)len) == 0,
                      "k:%d missing or not its value at the BGSAVE", i);
        freeReplyObject(r);
    }
    redisFree(c);
}

/* Fills NKEYS keys, sets maxmemory HEADROOM above them, runs a slowed
 * BGSAVE under overwrites and samples memory until it ends; checks the
 * dump. Returns the server (still running) with its client in *cp. */
static srv *save_run(const char *policy, int include, int delay_us, run *r,
                     redisContext **cp)
{
    memset(r, 0, sizeof *r);
    /* tenacity 100: eviction finishes before each command (the default
     * leaves the rest to a timer while commands run, as Redis), so the
     * bound holds before every command, also in a slow sanitizer build */
    srv *s = h_srv_start("--maxmemory-policy %s --maxmemory-include-save %s "
                         "--maxmemory-eviction-tenacity 100 --rdb-key-save-delay %d",
                         policy, include ? "yes" : "no", delay_us);
    redisContext *c = srv_connect(s);
    expect_status(c, "OK", "DEBUG POPULATE %d k %d", NKEYS, VSIZE);
    warm_batch(c);
    char *info = h_info(c, "memory");
    long long used = field_ll(info, "used_memory");
    long long counted = field_ll(info, "mem_counted_for_evict");
    ck_assert_int_eq(field_ll(info, "mem_save_retained"), 0); /* no save runs */
    free(info);
    r->gap = used > counted ? used - counted : 0;
    r->limit = counted + HEADROOM;
    expect_status(c, "OK", "CONFIG SET maxmemory %lld", r->limit);
    expect_status(c, "Background saving started", "BGSAVE");

    char val[VSIZE + 1];
    memset(val, 'w', VSIZE);
    val[VSIZE] = '\0';
    unsigned w = 0;
    long long end = h_now_ms() + h_scaled_ms(60000);
    for (int saving = 1; saving;) {
        ck_assert_msg(h_now_ms() < end, "save still running after 60 s");
        write_batch(c, &w, val, r);
        char *all = h_info(c, "all");
        saving = (int)field_ll(all, "rdb_bgsave_in_progress");
        long long u = field_ll(all, "used_memory"), k = field_ll(all, "mem_counted_for_evict");
        long long ret = field_ll(all, "mem_save_retained");
        if (u > r->max_used) r->max_used = u;
        if (k > r->max_counted) r->max_counted = k;
        if (ret > r->max_retained) r->max_retained = ret;
        free(all);
    }
    char *p = h_info(c, "all");
    char buf[64];
    ck_assert(h_info_field(p, "rdb_last_bgsave_status", buf, sizeof buf));
    ck_assert_str_eq(buf, "ok");
    ck_assert_int_eq(field_ll(p, "mem_save_retained"), 0); /* the save freed it */
    r->evicted = field_ll(p, "evicted_keys");
    free(p);
    fprintf(stderr, "%s include-save %s: limit %lld, gap %lld, used_memory max %lld "
            "(limit %+lld), counted max %lld, retained max %lld, SETs ok %lld oom %lld, "
            "evicted %lld\n", policy, include ? "yes" : "no", r->limit, r->gap, r->max_used,
            r->max_used - r->limit, r->max_counted, r->max_retained, r->sets_ok, r->sets_oom,
            r->evicted);
    check_dump(s);
    *cp = c;
    return s;
}

static const char *const include_policies[] = {"allkeys-lru", "allkeys-random", "noeviction"};

/* yes: the whole process stays under the limit during the save. */
START_TEST(include_save_holds_limit)
{
    const char *policy = include_policies[_i];
    run r;
    redisContext *c;
    save_run(policy, 1, DELAY_US, &r, &c);
    ck_assert_msg(r.max_used <= r.limit + r.gap + TOL,
                  "%s: used_memory peaked at %lld, limit %lld (+ gap %lld + %lld)", policy,
                  r.max_used, r.limit, r.gap, TOL);
    /* the save did retain versions (they were counted, not absent) */
    ck_assert_msg(r.max_retained > 0, "%s: the save retained nothing", policy);
    if (strcmp(policy, "noeviction") == 0) {
        /* the retained versions alone took the headroom: writes refused,
         * reads served meanwhile */
        ck_assert_msg(r.sets_oom > 0, "noeviction: no write refused");
        ck_assert_msg(r.reads_in_oom_batches > 0, "noeviction: no read beside the OOMs");
        ck_assert_int_eq(r.evicted, 0);
    } else {
        /* keys the save had written were evicted to make room */
        ck_assert_msg(r.evicted > 0, "%s: nothing evicted", policy);
        ck_assert_msg(r.sets_ok > 0, "%s: no write accepted during the save", policy);
    }
    /* eviction did not run away: it took keys the save had written, each
     * freeing its bytes at once, about as many as the retained versions
     * needed room for (~1,400 here). Evicting keys the save still owed
     * would free nothing and go on: with that rule (measured) 224,000
     * evictions, the dataset many times over, all of it handed to the
     * save's queue. */
    ck_assert_msg(r.evicted < NKEYS / 2, "%s: %lld keys evicted (of %d) for %lld accepted "
                  "writes", policy, r.evicted, NKEYS, r.sets_ok);
    ck_assert_msg(r.max_retained < r.limit / 4, "%s: the save retained %lld bytes", policy,
                  r.max_retained);
    /* the save freed what it held: a write is accepted again */
    expect_status(c, "OK", "SET after-save %s", "v");
    redisFree(c);
}
END_TEST

/* no (the default): Redis's rule; the counted figure holds the limit while
 * used_memory goes above it by the retained versions. */
START_TEST(exclude_save_exceeds_limit)
{
    run r;
    redisContext *c;
    /* what is retained grows with the main thread's write rate over the
     * serializer's: a sanitizer slows the first much more than the second
     * (which mostly sleeps), so the save is made as much longer there */
    save_run("allkeys-lru", 0, DELAY_US * h_time_scale(), &r, &c);
    ck_assert_int_eq(r.sets_oom, 0);
    ck_assert_msg(r.max_counted <= r.limit + TOL, "counted peaked at %lld, limit %lld",
                  r.max_counted, r.limit);
    ck_assert_msg(r.max_retained >= RETAINED_MIN, "the save retained %lld bytes at most",
                  r.max_retained);
    ck_assert_msg(r.max_used > r.limit + r.gap + RETAINED_MIN,
                  "used_memory peaked at %lld, limit %lld: the retained versions did not "
                  "show above it", r.max_used, r.limit);
    redisFree(c);
}
END_TEST

/* The parameter: CONFIG GET/SET, its default, a bad value. */
START_TEST(config_param)
{
    srv *s = h_srv_start("%s", "");
    redisContext *c = srv_connect(s);
    redisReply *r = expect_array(c, 2, "CONFIG GET maxmemory-include-save");
    check_bulk(r->element[1], "no");
    freeReplyObject(r);
    expect_status(c, "OK", "CONFIG SET maxmemory-include-save yes");
    r = expect_array(c, 2, "CONFIG GET maxmemory-include-save");
    check_bulk(r->element[1], "yes");
    freeReplyObject(r);
    expect_error(c, "ERR CONFIG SET failed (possibly related to argument "
                    "'maxmemory-include-save') - argument must be 'yes' or 'no'",
                 "CONFIG SET maxmemory-include-save maybe");
    char *info = h_info(c, "memory");
    ck_assert_int_eq(field_ll(info, "mem_save_retained"), 0);
    free(info);
    redisFree(c);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("maxmemory_save");
    TCase *tc = tcase_create("maxmemory_save");
    tcase_add_checked_fixture(tc, NULL, h_srv_drop_all);
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, include_save_holds_limit, 0, 3);
    tcase_add_test(tc, exclude_save_exceeds_limit);
    tcase_add_test(tc, config_param);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return h_main(suite()); }
