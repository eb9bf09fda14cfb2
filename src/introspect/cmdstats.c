/* cmdstats: per-command statistics and the other counters INFO shows for
 * introspection (introspect.h): commandstats (calls, usec, rejected and
 * failed calls), latencystats (a latency histogram per command, read at
 * latency-tracking-info-percentiles), LATENCY HISTOGRAM, errorstats (one
 * counter per error code), the instantaneous_* metrics (sampled every
 * 100 ms by a cron hook, averaged over 16 samples as Redis does) and
 * expired_time_cap_reached_count. CONFIG RESETSTAT resets them all.
 *
 * The histogram is HdrHistogram's layout with Redis's parameters (values
 * in nanoseconds from 1 to 1 s, 2 significant digits: 256 sub-buckets per
 * power of two), so that percentiles read as Redis's (p50=2.007 for 2 us).
 * It takes 24 KB per command that ran at least once. Main thread only. */
#include <assert.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "hooks.h"
#include "introspect.h"
#include "util.h"

/* ---- the latency histogram (HdrHistogram's indexing) ---- */

#define H_MIN 1LL
#define H_MAX 1000000000LL /* 1 s in ns, Redis's LATENCY_HISTOGRAM_MAX_VALUE */
#define H_SUB_HALF_MAG 7   /* sub-bucket count 256: 2 significant digits */
#define H_SUB_HALF (1 << H_SUB_HALF_MAG)
#define H_SUB_MASK ((1LL << (H_SUB_HALF_MAG + 1)) - 1)
#define H_BUCKETS 23       /* 256 << 22 > H_MAX */
#define H_LEN ((H_BUCKETS + 1) * H_SUB_HALF)

struct lat_hist {
    uint64_t total;
    uint64_t counts[H_LEN];
};

static int bucket_of(int64_t v) {
    int pow2ceil = 64 - __builtin_clzll((unsigned long long)(v | H_SUB_MASK));
    return pow2ceil - (H_SUB_HALF_MAG + 1);
}

static int index_of(int64_t v) {
    int b = bucket_of(v);
    int sub = (int)(v >> b);
    return ((b + 1) << H_SUB_HALF_MAG) + sub - H_SUB_HALF;
}

static int64_t value_at_index(int idx) {
    int b = (idx >> H_SUB_HALF_MAG) - 1;
    int sub = (idx & (H_SUB_HALF - 1)) + H_SUB_HALF;
    if (b < 0) {
        sub -= H_SUB_HALF;
        b = 0;
    }
    return (int64_t)sub << b;
}

/* The highest value counted in the same slot as v. */
static int64_t highest_equivalent(int64_t v) {
    int b = bucket_of(v);
    int sub = (int)(v >> b);
    int adj = sub >= 2 * H_SUB_HALF ? b + 1 : b;
    int64_t lowest = (int64_t)sub << b;
    return lowest + (1LL << adj) - 1;
}

static void hist_record(cmd_def *d, int64_t ns) {
    if (!d->hist) d->hist = xcalloc(1, sizeof *d->hist);
    if (ns < H_MIN) ns = H_MIN;
    if (ns > H_MAX) ns = H_MAX;
    int idx = index_of(ns);
    assert(idx >= 0 && idx < H_LEN);
    d->hist->counts[idx]++;
    d->hist->total++;
}

/* hdr_value_at_percentile. */
static int64_t hist_percentile(const struct lat_hist *h, double p) {
    if (p > 100.0) p = 100.0;
    int64_t want = (int64_t)((p / 100.0) * (double)h->total + 0.5);
    if (want < 1) want = 1;
    uint64_t sum = 0;
    int64_t v = 0;
    for (int i = 0; i < H_LEN; i++) {
        sum += h->counts[i];
        if (sum >= (uint64_t)want) {
            v = value_at_index(i);
            break;
        }
    }
    if (p == 0.0) return v;
    return highest_equivalent(v);
}

/* Redis's fillCommandCDF: {calls, histogram_usec: {usec: cumulative}} at
 * powers of two from 1024 ns, where the cumulative count grows. */
static void reply_cdf(client *c, const struct lat_hist *h) {
    reply_map(c, 2);
    reply_bulk_str(c, "calls");
    reply_int(c, (long long)h->total);
    reply_bulk_str(c, "histogram_usec");
    long long levels[64], counts[64];
    size_t n = 0;
    uint64_t cum = 0, prev = 0;
    int idx = 0;
    for (int64_t level = 1024; cum < h->total && n < 64; level *= 2) {
        int last = index_of(level < H_MAX ? level : H_MAX);
        for (; idx <= last && idx < H_LEN; idx++) cum += h->counts[idx];
        if (level >= H_MAX) /* everything left is at the clamp */
            for (; idx < H_LEN; idx++) cum += h->counts[idx];
        if (cum > prev) {
            levels[n] = highest_equivalent(level) / 1000;
            counts[n++] = (long long)cum;
        }
        prev = cum;
    }
    reply_map(c, (long long)n);
    for (size_t i = 0; i < n; i++) {
        reply_int(c, levels[i]);
        reply_int(c, counts[i]);
    }
}

/* ---- errorstats: code -> count, sorted by code (Redis's rax order) ---- */

typedef struct errstat {
    char *code;
    uint64_t count;
} errstat;

static errstat *errs;
static size_t nerrs, caperrs;
static uint64_t unexpected_errors; /* unexpected_error_replies */

static void error_count(const char *code, size_t len) {
    size_t lo = 0, hi = nerrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int r = strncmp(errs[mid].code, code, len);
        if (r == 0 && errs[mid].code[len] != '\0') r = 1;
        if (r == 0) {
            errs[mid].count++;
            return;
        }
        if (r < 0) lo = mid + 1;
        else hi = mid;
    }
    if (nerrs == caperrs) {
        caperrs = caperrs ? caperrs * 2 : 16;
        errs = xrealloc(errs, caperrs * sizeof *errs);
    }
    memmove(errs + lo + 1, errs + lo, (nerrs - lo) * sizeof *errs);
    char *s = xmalloc(len + 1);
    memcpy(s, code, len);
    s[len] = '\0';
    errs[lo] = (errstat){s, 1};
    nerrs++;
}

void introspect_error_reply(client *c, const char *s) {
    /* Redis's afterErrorReply: the code is the first word (searched in
     * the first 32 bytes), "ERR" when there is none. */
    size_t len = strnlen(s, 32);
    const char *sp = memchr(s, ' ', len);
    if (sp && sp > s) error_count(s, (size_t)(sp - s));
    else error_count("ERR", 3);
    if (c && (c->flags & (CLIENT_MASTER | CLIENT_REPLICA | CLIENT_LOADER))) unexpected_errors++;
}

/* ---- instantaneous metrics (Redis's trackInstantaneousMetric) ---- */

enum { M_OPS, M_NET_IN, M_NET_OUT, M_REPL_IN, M_REPL_OUT, M_COUNT };
#define M_SAMPLES 16

static struct metric {
    int64_t last_ms;
    uint64_t last_count;
    long long samples[M_SAMPLES];
    int idx;
} metrics[M_COUNT];
static int64_t last_track_ms;
static uint64_t time_cap_reached; /* expired_time_cap_reached_count */

static void track(int m, uint64_t now_count, int64_t now_ms) {
    struct metric *x = &metrics[m];
    int64_t t = now_ms - x->last_ms;
    long long ops = now_count >= x->last_count ? (long long)(now_count - x->last_count) : 0;
    x->samples[x->idx] = t > 0 ? ops * 1000 / t : 0;
    x->idx = (x->idx + 1) % M_SAMPLES;
    x->last_ms = now_ms;
    x->last_count = now_count;
}

static long long metric_get(int m) {
    long long sum = 0;
    for (int j = 0; j < M_SAMPLES; j++) sum += metrics[m].samples[j];
    return sum / M_SAMPLES;
}

static void stats_cron(void) {
    int64_t now = mono_ms();
    if (now - last_track_ms < 100) return;
    last_track_ms = now;
    track(M_OPS, server.stat.commands, now);
    track(M_NET_IN, server.stat.net_input_bytes, now);
    track(M_NET_OUT, server.stat.net_output_bytes, now);
    track(M_REPL_IN, server.stat.net_repl_input_bytes, now);
    track(M_REPL_OUT, atomic_load_explicit(&server.stat.net_repl_output_bytes, memory_order_relaxed),
          now);
}

static const hooks stats_hooks = {.name = "introspect", .cron = stats_cron};

void cmdstats_init(void) { hooks_register(&stats_hooks); }

void introspect_expire_cycle_done(int64_t usec, int capped) {
    if (capped) time_cap_reached++;
    latency_add_us("expire-cycle", usec);
}

/* ---- the dispatcher's entries ---- */

void introspect_call_start(client *c, const cmd_def *d, int rerun) {
    /* Redis's EVAL, EVALSHA, FCALL and their _RO forms feed MONITOR
     * themselves, before the script's commands (their table entries say
     * skip-monitor for the dispatcher's feed after the run). */
    if (!rerun && (d->flags & CMD_SKIP_MONITOR) && (d->acl & CAT_SCRIPTING) &&
        monitor_count() && !(c->flags & CLIENT_LOADER))
        monitor_feed(c, c->db, c->argc, c->argv);
}

/* server.stat.errors when the last command run ended: errors a nested
 * command replied (inside EXEC, a script) are its own, not its caller's
 * (Redis's incrCommandStatsOnError). */
static uint64_t errors_mark;

void introspect_call_done(client *c, cmd_def *d, int64_t usec, uint64_t errors_before,
                          int rerun) {
    uint64_t since = errors_before > errors_mark ? errors_before : errors_mark;
    int failed = server.stat.errors > since;
    errors_mark = server.stat.errors;
    /* Redis's isAOFLoadingContext: replaying a file is no command run */
    if (c->flags & CLIENT_LOADER) return;
    d->calls++;
    d->usec += (uint64_t)usec;
    if (failed) d->failed++;
    int blocked = (c->flags & CLIENT_BLOCKED) != 0;
    if (!blocked) {
        if (server.cfg.latency_tracking) hist_record(d, usec * 1000);
        slowlog_push(c, d, c->argc, c->argv, usec);
        latency_add_us((d->flags & CMD_FAST) ? "fast-command" : "command", usec);
    }
    if (!rerun && monitor_count() && !(d->flags & (CMD_SKIP_MONITOR | CMD_ADMIN)))
        monitor_feed(c, c->db, c->argc, c->argv);
}

void introspect_call_rejected(cmd_def *d) {
    if (d) d->rejected++;
    errors_mark = server.stat.errors; /* the refusal's error is not the caller's */
}

void introspect_call_failed(cmd_def *d) { d->failed++; }

void introspect_call_failed_uncounted(client *c) {
    if (c->cmd && !(c->flags & CLIENT_LOADER)) introspect_call_failed((cmd_def *)c->cmd);
}

/* ---- INFO ---- */

void introspect_info_commandstats(vbuf *b) {
    for (size_t i = 0; i < cmd_count_all(); i++) {
        const cmd_def *d = cmd_at_all(i);
        if (!d->calls && !d->failed && !d->rejected) continue;
        vbuf_appendf(b, "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
                        "failed_calls=%llu\r\n",
                     d->fullname, (unsigned long long)d->calls, (unsigned long long)d->usec,
                     d->calls ? (double)d->usec / (double)d->calls : 0.0,
                     (unsigned long long)d->rejected, (unsigned long long)d->failed);
    }
}

void introspect_info_errorstats(vbuf *b) {
    for (size_t i = 0; i < nerrs; i++)
        vbuf_appendf(b, "errorstat_%s:count=%llu\r\n", errs[i].code,
                     (unsigned long long)errs[i].count);
}

/* "%f" without trailing zeros nor a trailing point (Redis's
 * trimDoubleString): 50 -> "50", 99.9 -> "99.9". */
void introspect_trim_double(char *buf, size_t cap, double v) {
    snprintf(buf, cap, "%f", v);
    char *dot = strchr(buf, '.');
    if (!dot) return;
    char *end = buf + strlen(buf) - 1;
    while (end > dot && *end == '0') *end-- = '\0';
    if (end == dot) *end = '\0';
}

void introspect_info_latencystats(vbuf *b) {
    for (size_t i = 0; i < cmd_count_all(); i++) {
        const cmd_def *d = cmd_at_all(i);
        if (!d->hist || !d->hist->total) continue;
        vbuf_appendf(b, "latency_percentiles_usec_%s:", d->fullname);
        for (int j = 0; j < server.cfg.nlatency_percentiles; j++) {
            double p = server.cfg.latency_percentiles[j];
            char pb[64];
            introspect_trim_double(pb, sizeof pb, p);
            vbuf_appendf(b, "%sp%s=%.3f", j ? "," : "", pb,
                         (double)hist_percentile(d->hist, p) / 1000.0);
        }
        vbuf_append(b, "\r\n", 2);
    }
}

void introspect_info_stats(vbuf *b) {
    const stats *s = &server.stat;
    vbuf_appendf(b, "instantaneous_ops_per_sec:%lld\r\ninstantaneous_input_kbps:%.2f\r\n"
                    "instantaneous_output_kbps:%.2f\r\ninstantaneous_input_repl_kbps:%.2f\r\n"
                    "instantaneous_output_repl_kbps:%.2f\r\nexpired_stale_perc:%.2f\r\n"
                    "expired_time_cap_reached_count:%llu\r\n"
                    "unexpected_error_replies:%llu\r\ntotal_reads_processed:%llu\r\n"
                    "total_writes_processed:%llu\r\nreply_buffer_shrinks:%llu\r\n"
                    "reply_buffer_expands:%llu\r\n",
                 metric_get(M_OPS), (double)metric_get(M_NET_IN) / 1024,
                 (double)metric_get(M_NET_OUT) / 1024, (double)metric_get(M_REPL_IN) / 1024,
                 (double)metric_get(M_REPL_OUT) / 1024, s->expired_stale_perc * 100,
                 (unsigned long long)time_cap_reached, (unsigned long long)unexpected_errors,
                 (unsigned long long)s->reads_processed, (unsigned long long)s->writes_processed,
                 (unsigned long long)s->reply_buffer_shrinks,
                 (unsigned long long)s->reply_buffer_expands);
    /* Redis's counters of mechanisms verso does not have (writable-replica
     * expiry, active defrag, I/O threads, deep
     * sanitization of DUMP payloads): zero is what happened here.
     * migrate_cached_sockets is snapshot/migrate.c's (hooks_info). */
    vbuf_append_str(b, "slave_expires_tracked_keys:0\r\nactive_defrag_hits:0\r\n"
                       "active_defrag_misses:0\r\nactive_defrag_key_hits:0\r\n"
                       "active_defrag_key_misses:0\r\ntotal_active_defrag_time:0\r\n"
                       "current_active_defrag_time:0\r\nio_threaded_reads_processed:0\r\n"
                       "io_threaded_writes_processed:0\r\ndump_payload_sanitizations:0\r\n");
}

/* ---- LATENCY HISTOGRAM ---- */

static size_t with_hist(const cmd_def *d) { return d->hist && d->hist->total; }

void introspect_reply_histograms(client *c) {
    size_t n = 0;
    if (c->argc == 2) {
        for (size_t i = 0; i < cmd_count_all(); i++) n += with_hist(cmd_at_all(i));
        reply_map(c, (long long)n);
        for (size_t i = 0; i < cmd_count_all(); i++) {
            const cmd_def *d = cmd_at_all(i);
            if (!with_hist(d)) continue;
            reply_bulk_str(c, d->fullname);
            reply_cdf(c, d->hist);
        }
        return;
    }
    /* Named commands ("config|get", or a container for all of its
     * subcommands); unknown names are skipped, as Redis does. */
    for (int pass = 0; pass < 2; pass++) {
        if (pass) reply_map(c, (long long)n);
        for (int j = 2; j < c->argc; j++) {
            for (size_t i = 0; i < cmd_count_all(); i++) {
                const cmd_def *d = cmd_at_all(i);
                const arg *a = &c->argv[j];
                int match = arg_is(a, d->fullname) ||
                            (d->parent && arg_is(a, d->parent->fullname));
                if (!match || !with_hist(d)) continue;
                if (!pass) {
                    n++;
                    continue;
                }
                reply_bulk_str(c, d->fullname);
                reply_cdf(c, d->hist);
            }
        }
    }
}

/* ---- CONFIG RESETSTAT ---- */

void introspect_reset_stats(void) {
    for (size_t i = 0; i < cmd_count_all(); i++) {
        cmd_def *d = cmd_at_all(i);
        d->calls = d->usec = d->failed = d->rejected = 0;
        free(d->hist);
        d->hist = NULL;
    }
    for (size_t i = 0; i < nerrs; i++) free(errs[i].code);
    nerrs = 0;
    unexpected_errors = time_cap_reached = 0;
    errors_mark = 0;
    memset(metrics, 0, sizeof metrics);
    int64_t now = mono_ms();
    for (int m = 0; m < M_COUNT; m++) metrics[m].last_ms = now;
}
