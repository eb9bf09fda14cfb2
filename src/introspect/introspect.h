/* introspect: what the server tells about its own work, as Redis 7.0 does.
 *
 *  - cmdstats.c: per-command statistics (INFO commandstats, latencystats
 *    from a latency histogram per command, LATENCY HISTOGRAM), errorstats
 *    (one counter per error code), the instantaneous_* metrics and the
 *    other INFO stats this module keeps, CONFIG RESETSTAT's reset;
 *  - monitor.c: MONITOR (the clients that get every command) and the
 *    redaction of secrets (AUTH's arguments) in what MONITOR and SLOWLOG
 *    show;
 *  - slowlog.c: SLOWLOG and its entries;
 *  - latency.c: the latency monitor (LATENCY, latency-monitor-threshold)
 *    and the events other modules report to it;
 *  - debug.c, debug_digest.c, crash.c: DEBUG, its digests and the crash
 *    report (debug.h).
 *
 * The dispatcher (cmd.c) reports every command it ran through
 * introspect_call_done, once, with the duration it measured. Main thread
 * only: every function here, every table behind them. */
#ifndef VERSO_INTROSPECT_H
#define VERSO_INTROSPECT_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"
#include "vbuf.h"

/* ---- the dispatcher's entries (cmd.c) ---- */
/* Before d runs for c: MONITOR sees a script command (EVAL, EVALSHA, FCALL,
 * their _RO forms, which Redis flags skip-monitor) before the commands the
 * script calls, as Redis's evalCommand feeds it: the script engine must not
 * feed it again; the script's commands, run by cmd_call for the
 * CLIENT_SCRIPT client, show as "lua". rerun: a blocked command runs
 * again (it was shown when it first ran). */
void introspect_call_start(client *c, const cmd_def *d, int rerun);
/* d ran for c for usec microseconds; errors_before: server.stat.errors when
 * it started (it failed if it replied an error itself, not counting those
 * of the commands it ran: EXEC's, a script's). Counts
 * calls and time (commandstats), the latency histogram (latency-tracking),
 * the slow log, the "command"/"fast-command" latency events, and feeds
 * MONITOR (not for a rerun, nor for admin and skip-monitor commands). A
 * command left blocked is only counted by its last run, as Redis does;
 * the commands a file replays at startup (CLIENT_LOADER) not at all. */
void introspect_call_done(client *c, cmd_def *d, int64_t usec, uint64_t errors_before,
                          int rerun);
/* d was refused before running (arity, auth, OOM, a gate...; NULL: an
 * unknown command a script called), its error counted already: not a
 * failure of the command that runs d (EXEC, a script). */
void introspect_call_rejected(cmd_def *d);
/* d failed outside its call: CLIENT UNBLOCK of a client blocked in d
 * counts d failed, with ERROR or TIMEOUT alike, as Redis 7.0's
 * updateStatsOnUnblock(..., had_errors = 1) there. */
void introspect_call_failed(cmd_def *d);
/* c's running command replies an error already counted where it arose (a
 * script's error from redis.call, Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE):
 * not again in errorstats, but the command still counts as failed. */
void introspect_call_failed_uncounted(client *c);
/* Registers the statistics' cron hook (instantaneous_ops_per_sec and the
 * network rates) at startup. */
void cmdstats_init(void);
/* An error reply `s` ("CODE message") was sent to c: errorstats. */
void introspect_error_reply(client *c, const char *s);

/* ---- cmdstats.c: INFO sections and stats ---- */
void introspect_info_commandstats(vbuf *b);
void introspect_info_errorstats(vbuf *b);
void introspect_info_latencystats(vbuf *b);
/* The Stats fields this module keeps (instantaneous_*,
 * expired_time_cap_reached_count, ...),
 * appended after info.c's own. */
void introspect_info_stats(vbuf *b);
/* v as "%f" without trailing zeros or point (Redis's trimDoubleString):
 * latency-tracking-info-percentiles' values and INFO's p<N> names. */
void introspect_trim_double(char *buf, size_t cap, double v);
/* LATENCY HISTOGRAM [command ...] (latency.c calls it). */
void introspect_reply_histograms(client *c);
/* CONFIG RESETSTAT: commandstats, errorstats, latency histograms, the
 * stats kept here. */
void introspect_reset_stats(void);
/* The active expiry cycle ended after usec microseconds; capped: it
 * stopped at its time budget (expired_time_cap_reached_count). Also the
 * "expire-cycle" latency event. */
void introspect_expire_cycle_done(int64_t usec, int capped);

/* ---- cmd_memory.c ---- */
/* INFO memory's fields from MEMORY STATS' figures (used_memory_overhead,
 * used_memory_dataset, allocator_*, rss_overhead_*, ...), the dataset
 * being what the overhead leaves of used_memory (INFO's reading). */
void memory_info_fields(vbuf *b, size_t used_memory);

/* ---- monitor.c ---- */
/* Sends the line of argv (run by c in database dbid) to every MONITOR
 * client. */
void monitor_feed(client *c, int dbid, int argc, const arg *argv);
/* Whether MONITOR and SLOWLOG show argument i of d's argv as
 * "(redacted)" (AUTH's, HELLO's AUTH, MIGRATE's AUTH/AUTH2). */
int introspect_redacted(const cmd_def *d, int argc, const arg *argv, int i);
/* c leaves MONITOR mode (RESET, or it closes). */
void monitor_remove(client *c);
size_t monitor_count(void);
/* Registers MONITOR's hooks (its client gate, client_closed) at startup,
 * after the scripting's (hooks.h gives the order). */
void monitor_init(void);

/* ---- slowlog.c ---- */
/* Logs argv of c if usec >= slowlog-log-slower-than (>= 0). */
void slowlog_push(client *c, const cmd_def *d, int argc, const arg *argv, int64_t usec);

/* ---- latency.c ---- */
/* Records a sample of `ms` milliseconds for event (Redis's names: "fork",
 * "command", "fast-command", "expire-cycle", "eviction-cycle",
 * "aof-write", "aof-fsync-always"; verso's own: "forkless-save-start")
 * when latency-monitor-threshold is set and ms reaches it. */
void latency_add_sample_if_needed(const char *event, int64_t ms);
/* The same from a duration in microseconds. */
static inline void latency_add_us(const char *event, int64_t us) {
    latency_add_sample_if_needed(event, us / 1000);
}

#endif
