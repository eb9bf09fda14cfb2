/* evict: maxmemory, as Redis 7.0 does it.
 *
 * Owns the memory figure that maxmemory is compared with, the per-key access
 * clock (LRU or LFU, 24 bits in the value's metadata: obj_kvmeta.access),
 * the eviction pool and the eviction itself. Before every command the
 * dispatcher calls evict_perform (one branch when maxmemory is 0): when
 * memory is over the limit it evicts keys by the policy until it is under
 * again (or a time limit set by maxmemory-eviction-tenacity passes, and a
 * timer goes on evicting); when nothing can be evicted (noeviction, no
 * candidate keys) a command flagged deny-oom is refused with "OOM command
 * not allowed when used memory > 'maxmemory'.". Memory is checked before a
 * command, as Redis does: one big command run while under the limit may
 * overshoot it.
 *
 * What is counted (evict_counted_memory): every key and value object (their
 * allocator size, counted by obj.c as they are allocated and freed, on any
 * thread), the tables' structure, and the fixed overhead measured at
 * startup; minus, under maxmemory-include-save no (the default), what a
 * running forkless save alone keeps alive (pre-images in its queue, tree
 * nodes it retained). Under yes those are counted too, and while a save
 * runs eviction takes only keys the save has written, since evicting one
 * it still owes frees nothing before the serializer writes it (see
 * doc/design.md, "Eviction during a save"). Not counted: client buffers and
 * the AOF buffer (as Redis leaves the AOF buffer out).
 *
 * Main thread only. */
#ifndef VERSO_EVICT_H
#define VERSO_EVICT_H

#include <stddef.h>
#include <stdint.h>

#include "server.h"

enum { EVICT_OK = 0, EVICT_RUNNING = 1, EVICT_FAIL = 2 };

/* After db_init_all, before loading data: measures the fixed overhead. */
void evict_init(void);
/* Runs eviction if memory is over maxmemory. EVICT_OK: under the limit (or
 * loading); EVICT_RUNNING: evicted for the time allowed and the timer goes
 * on; EVICT_FAIL: over the limit and nothing more can be evicted. */
int evict_perform(void);
/* The dispatcher's check, maxmemory being set: 1 when the command must be
 * refused with the OOM error. */
int evict_refuse(int cmd_flags);
/* Cron: advances the access clock. */
void evict_cron(void);
/* CONFIG SET maxmemory: evicts down to the new limit on the timer. */
void evict_limit_changed(void);

/* The bytes compared with maxmemory (see above). */
size_t evict_counted_memory(void);
/* Allocator bytes that a running forkless save alone keeps alive (INFO
 * mem_save_retained; 0 when none runs), counted or not by the setting. */
size_t evict_save_retained(void);

/* Access clock of a key, on lookups (LRU: now; LFU: logarithmic counter
 * incremented, decayed by lfu-decay-time) and at creation. Not while a
 * fork save's child runs: a write to a page only read would copy it (the
 * page of the value that holds the clock). */
void evict_touch_lfu(vt_entry *e);
static inline void evict_touch(vt_entry *e) {
    if (server.fork_child) return;
    int p = server.cfg.maxmemory_policy;
    if (p == MAXMEM_ALLKEYS_LFU || p == MAXMEM_VOLATILE_LFU) evict_touch_lfu(e);
    else vt_access_set(e, server.lruclock);
}
/* The access clock a new key starts with (vt_wr.access). */
uint32_t evict_new_clock(void);
/* The one a RESTOREd key starts with, as Redis's objectSetLRUOrLFU: its
 * FREQ (0..255, -1 when not given) under an LFU policy, its IDLETIME
 * (seconds, -1 when not given) under another, else evict_new_clock's. */
uint32_t evict_restored_clock(long long idle_s, int freq);
/* OBJECT IDLETIME / FREQ: whether the policy keeps LFU counters (else the
 * clock is an LRU time), a key's idle time in ms (LRU) and its decayed LFU
 * counter (LFU). */
int evict_policy_lfu(void);
uint64_t evict_idle_ms(const vt_entry *e);
int evict_lfu_freq(const vt_entry *e);

/* INFO memory fields (maxmemory..., mem_counted_for_evict,
 * mem_not_counted_for_evict: used_memory minus the counted figure, and
 * mem_save_retained: evict_save_retained), and
 * INFO stats' total/current_eviction_exceeded_time (ms). */
void evict_info_memory(vbuf *b, size_t used_memory);
void evict_exceeded_ms(uint64_t *total, uint64_t *current);

#endif
