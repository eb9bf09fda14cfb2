/* latency: the latency monitor and LATENCY, as Redis 7.0's (introspect.h).
 *
 * Each event (a name: "command", "fork", "aof-write", ...) keeps the last
 * 160 seconds that had a sample over latency-monitor-threshold (one sample
 * per second: the highest) and its all-time maximum. Events are created
 * at their first sample and listed in that order. LATENCY DOCTOR applies
 * Redis's analysis and advice texts to them; GRAPH draws Redis's ASCII
 * sparkline; HISTOGRAM reads the per-command histograms of cmdstats.c.
 *
 * Events verso reports: "command" / "fast-command" (a command's run),
 * "fork" (the fork() of a fork save), "forkless-save-start" (what starting
 * a forkless save costs the main thread: verso's own event),
 * "expire-cycle", "eviction-cycle", "aof-write" and "aof-fsync-always"
 * (the AOF writer thread's slowest write() / fsync since the loop last
 * looked: under appendfsync always the replies wait for them). Main thread
 * only. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cmd.h"
#include "introspect.h"
#include "util.h"

#define TS_LEN 160
#define GRAPH_COLS 80

typedef struct sample {
    int32_t time;     /* unix seconds; 0: unused */
    uint32_t latency; /* ms */
} sample;

typedef struct series {
    char *event;
    int idx;          /* next slot */
    uint32_t max;     /* all-time high */
    sample samples[TS_LEN];
} series;

static series **events;
static size_t nevents, capevents;

static series *find(const char *name, size_t len) {
    for (size_t i = 0; i < nevents; i++)
        if (strlen(events[i]->event) == len && strncmp(events[i]->event, name, len) == 0)
            return events[i];
    return NULL;
}

void latency_add_sample_if_needed(const char *event, int64_t ms) {
    long long threshold = server.cfg.latency_monitor_threshold;
    if (!threshold || ms < threshold) return;
    series *ts = find(event, strlen(event));
    if (!ts) {
        ts = xcalloc(1, sizeof *ts);
        ts->event = xstrdup(event);
        if (nevents == capevents) {
            capevents = capevents ? capevents * 2 : 8;
            events = xrealloc(events, capevents * sizeof *events);
        }
        events[nevents++] = ts;
    }
    uint32_t lat = ms > UINT32_MAX ? UINT32_MAX : (uint32_t)ms;
    int32_t now = (int32_t)time(NULL);
    if (lat > ts->max) ts->max = lat;
    int prev = (ts->idx + TS_LEN - 1) % TS_LEN;
    if (ts->samples[prev].time == now) { /* one sample per second: the highest */
        if (lat > ts->samples[prev].latency) ts->samples[prev].latency = lat;
        return;
    }
    ts->samples[ts->idx] = (sample){now, lat};
    ts->idx = (ts->idx + 1) % TS_LEN;
}

/* Removes the events named `name` (any case), or all when NULL. */
static long long reset_events(const arg *name) {
    long long n = 0;
    for (size_t i = 0; i < nevents;) {
        series *ts = events[i];
        if (name && !(strlen(ts->event) == name->len &&
                      strncasecmp(ts->event, name->p, name->len) == 0)) {
            i++;
            continue;
        }
        free(ts->event);
        free(ts);
        memmove(events + i, events + i + 1, (nevents - i - 1) * sizeof *events);
        nevents--;
        n++;
    }
    return n;
}

/* ---- LATEST, HISTORY ---- */

static void reply_latest(client *c) {
    reply_array(c, (long long)nevents);
    for (size_t i = 0; i < nevents; i++) {
        series *ts = events[i];
        int last = (ts->idx + TS_LEN - 1) % TS_LEN;
        reply_array(c, 4);
        reply_bulk_str(c, ts->event);
        reply_int(c, ts->samples[last].time);
        reply_int(c, ts->samples[last].latency);
        reply_int(c, ts->max);
    }
}

static void reply_history(client *c, const series *ts) {
    long long n = 0;
    for (int j = 0; j < TS_LEN; j++) n += ts && ts->samples[j].time != 0;
    reply_array(c, n);
    for (int j = 0; ts && j < TS_LEN; j++) {
        const sample *s = &ts->samples[(ts->idx + j) % TS_LEN];
        if (!s->time) continue;
        reply_array(c, 2);
        reply_int(c, s->time);
        reply_int(c, s->latency);
    }
}

/* ---- GRAPH: Redis's sparkline (4 rows, filled, labels under it) ---- */

typedef struct spark {
    double value;
    char label[24];
} spark;

static void render_range(vbuf *out, const spark *s, int len, double min, double max) {
    static const char fill[] = "_o#";
    const int rows = 4, charset_len = 3, steps = charset_len * rows;
    double relmax = max - min;
    if (relmax == 0) relmax = 1;
    char *chars = xmalloc((size_t)len);
    for (int row = 0;; row++) {
        int loop = 0;
        memset(chars, ' ', (size_t)len);
        for (int j = 0; j < len; j++) {
            int step = (int)(((s[j].value - min) * steps) / relmax);
            if (step < 0) step = 0;
            if (step >= steps) step = steps - 1;
            if (row < rows) {
                int ci = step - (rows - row - 1) * charset_len;
                loop = 1;
                if (ci >= 0 && ci < charset_len) chars[j] = fill[ci];
                else if (ci >= charset_len) chars[j] = '|';
            } else if (row - rows < 1) { /* one blank row above the labels */
                loop = 1;
                break;
            } else {
                int lc = row - rows - 1;
                if ((int)strlen(s[j].label) > lc) {
                    loop = 1;
                    chars[j] = s[j].label[lc];
                }
            }
        }
        if (!loop) break;
        vbuf_append(out, chars, (size_t)len);
        vbuf_append(out, "\n", 1);
    }
    free(chars);
}

static void graph(vbuf *out, const series *ts) {
    spark s[TS_LEN];
    int n = 0;
    uint32_t min = 0, max = 0;
    long long now = (long long)time(NULL);
    for (int j = 0; j < TS_LEN; j++) {
        const sample *x = &ts->samples[(ts->idx + j) % TS_LEN];
        if (!x->time) continue;
        if (!n || x->latency > max) max = x->latency;
        if (!n || x->latency < min) min = x->latency;
        long long el = now - x->time;
        if (el < 60) snprintf(s[n].label, sizeof s[n].label, "%llds", el);
        else if (el < 3600) snprintf(s[n].label, sizeof s[n].label, "%lldm", el / 60);
        else if (el < 86400) snprintf(s[n].label, sizeof s[n].label, "%lldh", el / 3600);
        else snprintf(s[n].label, sizeof s[n].label, "%lldd", el / 86400);
        s[n++].value = x->latency;
    }
    vbuf_appendf(out, "%s - high %lu ms, low %lu ms (all time high %lu ms)\n", ts->event,
                 (unsigned long)max, (unsigned long)min, (unsigned long)ts->max);
    for (int j = 0; j < GRAPH_COLS; j++) vbuf_append(out, "-", 1);
    vbuf_append(out, "\n", 1);
    for (int j = 0; j < n; j += GRAPH_COLS) {
        if (j) vbuf_append(out, "\n", 1);
        render_range(out, s + j, n - j < GRAPH_COLS ? n - j : GRAPH_COLS, min, max);
    }
}

/* ---- DOCTOR ---- */

typedef struct lstats {
    uint32_t avg, min, max, mad, all_time_high;
    int samples;
    long long period;
} lstats;

static void analyze(const series *ts, lstats *ls) {
    memset(ls, 0, sizeof *ls);
    ls->all_time_high = ts->max;
    uint64_t sum = 0;
    for (int j = 0; j < TS_LEN; j++) {
        const sample *s = &ts->samples[j];
        if (!s->time) continue;
        if (++ls->samples == 1) ls->min = ls->max = s->latency;
        if (s->latency < ls->min) ls->min = s->latency;
        if (s->latency > ls->max) ls->max = s->latency;
        sum += s->latency;
        if (!ls->period || s->time < ls->period) ls->period = s->time;
    }
    if (!ls->samples) return;
    ls->avg = (uint32_t)(sum / (uint64_t)ls->samples);
    ls->period = (long long)time(NULL) - ls->period;
    if (!ls->period) ls->period = 1;
    sum = 0;
    for (int j = 0; j < TS_LEN; j++) {
        const sample *s = &ts->samples[j];
        if (!s->time) continue;
        long long d = (long long)ls->avg - s->latency;
        sum += (uint64_t)(d < 0 ? -d : d);
    }
    ls->mad = (uint32_t)(sum / (uint64_t)ls->samples);
}

enum { ADV_SLOWLOG_ENABLE, ADV_SLOWLOG_TUNE, ADV_SLOWLOG_INSPECT, ADV_SCHEDULER,
       ADV_RELAX_FSYNC, ADV_HZ, ADV_LARGE_OBJECTS, ADV_MASS_EVICTION, ADV_BETTER_VM,
       ADV_SSD, ADV_COUNT };

static void doctor(vbuf *r) {
    long long threshold = server.cfg.latency_monitor_threshold;
    if (!nevents && !threshold) {
        vbuf_append_str(r, "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n");
        return;
    }
    int adv[ADV_COUNT] = {0}, advices = 0;
    for (size_t i = 0; i < nevents; i++) {
        const series *ts = events[i];
        lstats ls;
        analyze(ts, &ls);
        if (i == 0)
            vbuf_append_str(r, "Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n");
        vbuf_appendf(r, "%zu. %s: %d latency spikes (average %lums, mean deviation %lums, period %.2f sec). Worst all time event %lums.",
                     i + 1, ts->event, ls.samples, (unsigned long)ls.avg, (unsigned long)ls.mad,
                     (double)ls.period / ls.samples, (unsigned long)ts->max);
        const char *e = ts->event;
        if (!strcmp(e, "fork")) adv[ADV_BETTER_VM] = 1, advices++;
        if (!strcmp(e, "command")) {
            long long slower = server.cfg.slowlog_log_slower_than;
            if (slower < 0) adv[ADV_SLOWLOG_ENABLE] = 1, advices++;
            else if (slower / 1000 > threshold) adv[ADV_SLOWLOG_TUNE] = 1, advices++;
            adv[ADV_SLOWLOG_INSPECT] = adv[ADV_LARGE_OBJECTS] = 1;
            advices += 2;
        }
        if (!strcmp(e, "fast-command")) adv[ADV_SCHEDULER] = 1, advices++;
        if (!strcmp(e, "aof-fsync-always")) adv[ADV_RELAX_FSYNC] = 1, advices++;
        if (!strcmp(e, "aof-write")) adv[ADV_SSD] = 1, advices++;
        if (!strcmp(e, "expire-cycle")) adv[ADV_HZ] = adv[ADV_LARGE_OBJECTS] = 1, advices += 2;
        if (!strcmp(e, "eviction-cycle")) adv[ADV_MASS_EVICTION] = 1, advices++;
        vbuf_append(r, "\n", 1);
    }
    if (!nevents && !advices) {
        vbuf_append_str(r, "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
        return;
    }
    if (!advices) {
        vbuf_append_str(r, "\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n");
        return;
    }
    vbuf_append_str(r, "\nI have a few advices for you:\n\n");
    if (adv[ADV_BETTER_VM])
        vbuf_append_str(r, "- If you are using a virtual machine, consider upgrading it with a faster one using a hypervisior that provides less latency during fork() calls. Xen is known to have poor fork() performance. Even in the context of the same VM provider, certain kinds of instances can execute fork faster than others.\n");
    if (adv[ADV_SLOWLOG_ENABLE])
        vbuf_appendf(r, "- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %llu'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", (unsigned long long)threshold * 1000);
    if (adv[ADV_SLOWLOG_TUNE])
        vbuf_appendf(r, "- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %llu'.\n", (unsigned long long)threshold * 1000);
    if (adv[ADV_SLOWLOG_INSPECT])
        vbuf_append_str(r, "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n");
    if (adv[ADV_SCHEDULER])
        vbuf_append_str(r, "- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n"
                           "  1) Lower the system load.\n"
                           "  2) Use a computer / VM just for Redis if you are running other software in the same system.\n"
                           "  3) Check if you have a \"noisy neighbour\" problem.\n"
                           "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n"
                           "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n");
    if (adv[ADV_SSD])
        vbuf_append_str(r, "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage and smaller final AOF rewrite buffer flushes). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n");
    if (adv[ADV_RELAX_FSYNC] && server.cfg.appendfsync == FSYNC_ALWAYS)
        vbuf_append_str(r, "- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n");
    if (adv[ADV_HZ] && server.cfg.hz < 100)
        vbuf_append_str(r, "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n");
    if (adv[ADV_LARGE_OBJECTS])
        vbuf_append_str(r, "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n");
    if (adv[ADV_MASS_EVICTION])
        vbuf_append_str(r, "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n");
}

/* ---- LATENCY ---- */

static const char *const latency_help[] = {
    "LATENCY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DOCTOR",
    "    Return a human readable latency analysis report.",
    "GRAPH <event>",
    "    Return an ASCII latency graph for the <event> class.",
    "HISTORY <event>",
    "    Return time-latency samples for the <event> class.",
    "LATEST",
    "    Return the latest latency samples for all events.",
    "RESET [<event> ...]",
    "    Reset latency data of one or more <event> classes.",
    "    (default: reset all data for all event classes)",
    "HISTOGRAM [COMMAND ...]",
    "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
    "    If no commands are specified then all histograms are replied.",
    "HELP",
    "    Prints this help.",
    NULL};

/* The dispatcher resolved the subcommand (c->cmd) and checked its arity. */
void cmd_latency(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "help")) {
        cmd_reply_help(c, latency_help);
    } else if (!strcmp(sub, "latest")) {
        reply_latest(c);
    } else if (!strcmp(sub, "history")) {
        reply_history(c, find(c->argv[2].p, c->argv[2].len));
    } else if (!strcmp(sub, "graph")) {
        const series *ts = find(c->argv[2].p, c->argv[2].len);
        if (!ts) {
            reply_errorf(c, "ERR No samples available for event '%.*s'",
                         (int)(c->argv[2].len > 128 ? 128 : c->argv[2].len), c->argv[2].p);
            return;
        }
        vbuf g = {0};
        graph(&g, ts);
        reply_verbatim(c, g.data, g.len, "txt");
        vbuf_free(&g);
    } else if (!strcmp(sub, "doctor")) {
        vbuf r = {0};
        doctor(&r);
        reply_verbatim(c, r.data, r.len, "txt");
        vbuf_free(&r);
    } else if (!strcmp(sub, "reset")) {
        long long n = 0;
        if (c->argc == 2) n = reset_events(NULL);
        for (int j = 2; j < c->argc; j++) n += reset_events(&c->argv[j]);
        reply_int(c, n);
    } else {
        introspect_reply_histograms(c);
    }
}
