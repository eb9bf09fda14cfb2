/* vt: the versioned hash table (extendible hashing + per-bucket save epochs).
 *
 * vt.h states the protocol; this file owns its mechanics:
 *   - the directory (2^gd segment pointers, indexed by the top gd bits of the
 *     hash; a segment of local depth d fills 2^(gd-d) consecutive slots);
 *   - buckets: a key lives in one of its two candidate buckets (two groups of
 *     low hash bits), entries packed in slots[0..used) with a fingerprint
 *     byte each in fp[]; when both candidates are full the segment splits;
 *   - the save protocol on the main thread (lock + capture before a change to
 *     an unsaved bucket) and on the serializer (vt_capture_bucket);
 *   - SCAN cursors that survive splits, merges and directory changes;
 *   - shrinking: sparse buddy segments merge, the directory halves;
 *   - the per-slot index of a slotted table (vt.h): the slot in the hash's
 *     top 14 bits and a count per slot.
 *
 * Entry marks are one byte: they are meaningful only while b->marked equals
 * the running epoch. The first locker of a bucket for epoch E (main thread or
 * serializer) resets every mark to a value other than (uint8_t)E and sets
 * b->marked = E, so marks left over from an epoch 256 saves ago, or from an
 * aborted save, never pass for "already captured". The serializer marks what
 * it captures although it also sets version = E: the main thread may have
 * read version < E just before, and then locks the bucket right after. */
#include "vt.h"

#include <assert.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <xxhash.h>

#include "keyslot.h"
#include "util.h"

#define VT_SEG_SHIFT 6 /* log2(VT_SEG_BUCKETS): bucket bits of a SCAN cursor */
#define VT_MAX_DEPTH 32 /* the directory uses the hash's top 32 bits */
/* vt_reserve: at most 2^18 segments (7.9 GB of table, what 67M keys ask
 * for); beyond that the table grows by splits as usual. */
#define VT_RESERVE_MAX_DEPTH 18
/* vt_reserve: at most this many keys per bucket on average. After rounding
 * to a power of two the load is 4..8 keys per 14-slot bucket (29-57 %, about
 * what inserts reach between two rounds of splits), and with two candidate
 * buckets per key one overflowing both is rare enough that loading n keys
 * splits next to nothing; a split costs a few microseconds anyway. */
#define VT_RESERVE_LOAD 8
/* A slotted table's hash: slot << VT_SLOT_SHIFT | vt_hash >> 14. */
#define VT_SLOT_BITS 14
#define VT_SLOT_SHIFT (64 - VT_SLOT_BITS)
_Static_assert(KEYSLOT_COUNT == 1 << VT_SLOT_BITS, "VT_SLOT_BITS");

_Static_assert(VT_SEG_BUCKETS == 1 << VT_SEG_SHIFT, "VT_SEG_SHIFT");
_Static_assert(VT_BUCKET_SLOTS <= 255, "used is a byte");

/* The header fields are main thread only: the serializer reads nothing
 * but the buckets. */
struct vt_seg {
    uint32_t depth;   /* local depth */
    uint32_t in_slab; /* carved from a slab (freed with it, or kept spare) */
    uint32_t prefix;  /* the first 32-bit hash prefix of its directory run */
    uint32_t count;   /* entries in its buckets */
    uint64_t ttl;     /* bit i set: bucket i may hold an entry with an expire
                         (set by vt_set_expire, cleared by a volatile walk
                         that finds none there; never wrongly clear) */
    size_t pos;       /* its index in t->segs */
    vt_bucket buckets[VT_SEG_BUCKETS];
};

/* Segments of large tables come from 2 MiB slabs backed by transparent huge
 * pages: a lookup touches a random bucket of a ~100 MB table, and with 4 KiB
 * pages nearly every one is a TLB miss as well as a cache miss. A slab
 * segment a merge frees (see "shrinking") goes to the table's spare list,
 * its whole pages returned to the kernel, and the next split takes it
 * back; a slab lives as long as its table. The first segments of a table
 * come from malloc, so that the 16 mostly empty databases of a server cost
 * no slab each. */
#define VT_SLAB_BYTES ((size_t)2 << 20)
#define VT_SLAB_AFTER 8 /* segments before a table starts using slabs */

typedef struct vt_slab {
    struct vt_slab *next;
    char *base;      /* VT_SLAB_BYTES, 2 MiB aligned */
    size_t used;     /* bytes carved */
} vt_slab;

struct vt {                  /* main thread only */
    vt_seg **dir;            /* 2^gd slots */
    uint32_t gd;             /* global depth */
    uint32_t deep;           /* segments of depth gd: the directory halves
                                when none is left (shrinking) */
    size_t nsegs;
    vt_seg **segs;           /* every segment (nsegs); s->pos is its index */
    size_t segs_cap;
    size_t size;
    size_t expires;
    uint64_t save_epoch;     /* running save, 0 for none */
    uint64_t last_epoch;     /* highest epoch ever begun (asserts) */
    vt_capture_fn capture;
    void *capture_priv;
    uint64_t rng;            /* xorshift state for vt_random */
    vt_slab *slabs;          /* newest first */
    vt_seg *spare;           /* slab segments merges freed, linked through
                                their first bytes (seg_release) */
    int shrink_owed;         /* a delete during a save left a segment a
                                merge wanted: vt_shrink sweeps */
    size_t shrink_pos;       /* vt_shrink's place in segs */
    size_t mem;              /* vt_mem: bytes held (see "memory" below) */
    int slotted;             /* keys placed by slot (vt_index_slots) */
    uint32_t *slot_keys;     /* slotted: keys per slot, KEYSLOT_COUNT,
                                allocated with the first key */
};

/* ---- hashing -------------------------------------------------------- */

static uint64_t vt_seed;
static pthread_once_t vt_seed_once = PTHREAD_ONCE_INIT;

static void seed_init(void) { random_bytes(&vt_seed, sizeof vt_seed); }

uint64_t vt_hash(const char *key, size_t len) {
    pthread_once(&vt_seed_once, seed_init);
    return XXH3_64bits_withSeed(key, len, vt_seed);
}

/* Mode of the tables vt_create makes; main thread, set before any. */
static int vt_slots_default;

void vt_index_slots(int on) { vt_slots_default = on != 0; }
int vt_slotted(const vt *t) { return t->slotted; }

uint64_t vt_key_hash(const vt *t, const char *key, size_t len) {
    uint64_t h = vt_hash(key, len);
    if (!t->slotted) return h;
    return (uint64_t)key_hash_slot(key, len) << VT_SLOT_SHIFT | h >> VT_SLOT_BITS;
}

static inline unsigned hash_slot_of(uint64_t h) { return (unsigned)(h >> VT_SLOT_SHIFT); }

static inline size_t dir_index(const vt *t, uint32_t hhi) {
    return t->gd ? hhi >> (32 - t->gd) : 0;
}

static inline unsigned bucket_index(uint64_t h) {
    return (unsigned)(h & (VT_SEG_BUCKETS - 1));
}

/* The second candidate bucket: the next group of hash bits, never the first
 * bucket itself. */
static inline unsigned bucket_index2(uint64_t h) {
    unsigned i = (unsigned)((h >> VT_SEG_SHIFT) & (VT_SEG_BUCKETS - 1));
    return i == bucket_index(h) ? i ^ 1 : i;
}

/* A byte of the hash independent of the directory and bucket bits. */
static inline uint8_t fingerprint(uint64_t h) { return (uint8_t)(h >> 16); }

/* ---- bucket locks and marks ----------------------------------------- */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* The lock is held for a few entries' work. If it is still taken after a
 * short spin, its holder was preempted: sleep (not sched_yield, which does
 * not let a lower-priority holder run) so that it can finish. */
static void bucket_lock(vt_bucket *b) {
    unsigned spins = 0;
    while (atomic_flag_test_and_set_explicit(&b->lock, memory_order_acquire)) {
        if (++spins < 128) {
            cpu_relax();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

static void bucket_unlock(vt_bucket *b) {
    atomic_flag_clear_explicit(&b->lock, memory_order_release);
}

/* Under the lock: make the entry marks mean "captured for `epoch`". */
static void bucket_prepare(vt_bucket *b, uint64_t epoch) {
    assert(epoch != 0);
    assert(b->used <= VT_BUCKET_SLOTS);
    if (b->marked == epoch) return;
    uint8_t stale = (uint8_t)(epoch - 1);
    for (unsigned i = 0; i < b->used; i++)
        if (b->slots[i].val) obj_kv_meta(b->slots[i].val)->epoch = stale;
    b->marked = epoch;
}

/* Main thread, before changing b: lock it when a save runs and b is not
 * saved yet. Returns b when locked (caller unlocks), NULL otherwise. */
static vt_bucket *wlock(vt *t, vt_bucket *b) {
    uint64_t e = t->save_epoch;
    if (!e || atomic_load_explicit(&b->version, memory_order_acquire) >= e)
        return NULL;
    bucket_lock(b);
    bucket_prepare(b, e);
    assert(b->marked == e);
    return b;
}

/* The main thread may change b: no save runs, or b is saved for the running
 * epoch (then it is the main thread's alone), or lk == b (wlock took it).
 * One atomic load: cheap enough for every write. */
static inline int may_change(const vt *t, vt_bucket *b, const vt_bucket *lk) {
    if (lk == b) return t->save_epoch != 0 && b->marked == t->save_epoch;
    return !t->save_epoch ||
           atomic_load_explicit(&b->version, memory_order_acquire) >= t->save_epoch;
}

/* Main thread, bucket locked: hand the entry's pre-image to the save once. */
static void capture_entry(vt *t, vt_entry *e) {
    assert(t->save_epoch && t->capture);
    assert(e->val); /* vt_write's contract: no entry left without a value */
    obj_kvmeta *meta = obj_kv_meta(e->val);
    uint8_t m = (uint8_t)t->save_epoch;
    if (meta->epoch == m) return;
    obj_incref(e->val);
    t->capture(t->capture_priv, e->val, obj_kv_expire(e->val));
    meta->epoch = m;
}

/* ---- memory ------------------------------------------------------------
 *
 * vt_mem(t) counts what the table holds as INFO used_memory counts memory:
 * each heap block (the header, directory, segment list, slot counts, slab
 * records and the first VT_SLAB_AFTER segments) at the allocator's cost
 * (obj_block_bytes), each segment carved from a slab at its size. A slab
 * is mapped whole when its first segment is carved, but its uncarved rest
 * holds nothing yet: it is reserved, as the pages an allocator keeps
 * beyond what it handed out (vt_memstat.mapped tells it apart). Counting
 * whole mappings made a table of 10,000 keys (16 segments, 8 in a slab)
 * cost 290 B per key, 2 MiB of it the slab's empty rest. */

/* atomic (relaxed), read from any thread: the tables alive (a retired one
 * until its vt_free, which may run on lazyfree's thread) */
static _Atomic size_t vt_heap_total;   /* heap blocks */
static _Atomic size_t vt_carved_total; /* segments carved from slabs */
static _Atomic size_t vt_slab_total;   /* slabs as mapped */
static _Atomic size_t vt_created_mem;  /* vt_mem_empty (any thread) */

void vt_mem_totals(vt_memstat *m) {
    m->heap = atomic_load_explicit(&vt_heap_total, memory_order_relaxed);
    m->slab = atomic_load_explicit(&vt_carved_total, memory_order_relaxed);
    m->mapped = atomic_load_explicit(&vt_slab_total, memory_order_relaxed);
}

/* n bytes more (add) or fewer in vt_mem(t) and in *total. */
static void mem_count(vt *t, _Atomic size_t *total, size_t n, int add) {
    if (add) {
        t->mem += n;
        atomic_fetch_add_explicit(total, n, memory_order_relaxed);
    } else {
        assert(t->mem >= n);
        t->mem -= n;
        atomic_fetch_sub_explicit(total, n, memory_order_relaxed);
    }
}

/* p, just allocated for t, counts in vt_mem(t). */
static void heap_charge(vt *t, void *p) { mem_count(t, &vt_heap_total, obj_block_bytes(p), 1); }

/* p is about to be freed or reallocated: it no longer counts. */
static void heap_credit(vt *t, void *p) { mem_count(t, &vt_heap_total, obj_block_bytes(p), 0); }

static void heap_free(vt *t, void *p) {
    if (!p) return;
    heap_credit(t, p);
    free(p);
}

/* ---- segments and directory ----------------------------------------- */

/* LeakSanitizer does not scan mmap'd memory: slabs are registered as roots
 * so that the keys and values they point to are not reported as leaks. */
extern void __lsan_register_root_region(const void *p, size_t size) __attribute__((weak));
extern void __lsan_unregister_root_region(const void *p, size_t size) __attribute__((weak));

/* A zeroed, 2 MiB aligned region with huge pages where the kernel has them. */
static char *slab_map(void) {
    size_t len = 2 * VT_SLAB_BYTES;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uintptr_t a = ((uintptr_t)p + VT_SLAB_BYTES - 1) & ~(uintptr_t)(VT_SLAB_BYTES - 1);
    char *base = (char *)a;
    if (base > p) munmap(p, (size_t)(base - p));
    munmap(base + VT_SLAB_BYTES, (size_t)(p + len - (base + VT_SLAB_BYTES)));
    madvise(base, VT_SLAB_BYTES, MADV_HUGEPAGE); /* advisory: fine if refused */
    if (__lsan_register_root_region) __lsan_register_root_region(base, VT_SLAB_BYTES);
    atomic_fetch_add_explicit(&vt_slab_total, VT_SLAB_BYTES, memory_order_relaxed);
    return base;
}

/* A segment on the heap (the first ones, or when no slab can be mapped). */
static vt_seg *seg_heap(vt *t) {
    vt_seg *s = xcalloc(1, sizeof(vt_seg));
    heap_charge(t, s);
    return s;
}

static vt_seg *seg_alloc(vt *t) {
    if (t->spare) { /* its pages were released or never touched: zero */
        vt_seg *s = t->spare;
        memcpy(&t->spare, s, sizeof t->spare);
        memset((void *)s, 0, sizeof(vt_seg *)); /* the link */
        s->in_slab = 1;
        mem_count(t, &vt_carved_total, sizeof(vt_seg), 1);
        return s;
    }
    if (t->nsegs < VT_SLAB_AFTER) return seg_heap(t);
    vt_slab *sl = t->slabs;
    if (!sl || sl->used + sizeof(vt_seg) > VT_SLAB_BYTES) {
        char *base = slab_map();
        if (!base) return seg_heap(t);
        sl = xmalloc(sizeof *sl);
        heap_charge(t, sl);
        sl->base = base;
        sl->used = 0;
        sl->next = t->slabs;
        t->slabs = sl;
    }
    vt_seg *s = (vt_seg *)(sl->base + sl->used);
    sl->used += sizeof(vt_seg);
    s->in_slab = 1;
    mem_count(t, &vt_carved_total, sizeof(vt_seg), 1);
    return s;
}

static vt_seg *seg_new(vt *t, uint32_t depth, uint32_t prefix, uint64_t version) {
    vt_seg *s = seg_alloc(t);
    s->depth = depth;
    s->prefix = prefix;
    for (unsigned i = 0; i < VT_SEG_BUCKETS; i++) {
        atomic_init(&s->buckets[i].version, version);
        atomic_flag_clear(&s->buckets[i].lock);
    }
    return s;
}

/* Records a new segment in t->segs: a save copies this list at its start
 * (walking the directory instead touches every segment, a cache and TLB
 * miss each: ~0.4 ms at 1M keys, all of it main-thread stall). */
static void seg_register(vt *t, vt_seg *s) {
    if (t->nsegs == t->segs_cap) {
        t->segs_cap = t->segs_cap ? 2 * t->segs_cap : 16;
        if (t->segs) heap_credit(t, t->segs);
        t->segs = xrealloc(t->segs, t->segs_cap * sizeof *t->segs);
        heap_charge(t, t->segs);
    }
    s->pos = t->nsegs;
    t->segs[t->nsegs++] = s;
}

/* Takes s out of t->segs (the last one takes its place). */
static void seg_unregister(vt *t, vt_seg *s) {
    assert(s->pos < t->nsegs && t->segs[s->pos] == s);
    vt_seg *last = t->segs[--t->nsegs];
    t->segs[s->pos] = last;
    last->pos = s->pos;
}

/* Frees a segment no directory slot points to any more (no save runs): a
 * heap one to the allocator, a slab one to the spare list, the whole pages
 * inside it (all but its first bytes, which link the list) back to the
 * kernel: they read as zeros when seg_alloc takes it again. */
static void seg_release(vt *t, vt_seg *s) {
    assert(!t->save_epoch);
    if (!s->in_slab) {
        heap_free(t, s);
        return;
    }
    mem_count(t, &vt_carved_total, sizeof(vt_seg), 0);
    const uintptr_t page = 4096;
    char *b = (char *)s, *end = b + sizeof *s;
    char *lo = (char *)(((uintptr_t)b + sizeof t->spare + page - 1) & ~(page - 1));
    char *hi = (char *)((uintptr_t)end & ~(page - 1));
    if (hi > lo && madvise(lo, (size_t)(hi - lo), MADV_DONTNEED) == 0) {
        memset(b, 0, (size_t)(lo - b));
        memset(hi, 0, (size_t)(end - hi));
    } else {
        memset(b, 0, sizeof *s);
    }
    memcpy(s, &t->spare, sizeof t->spare);
    t->spare = s;
}

static void seg_free_entries(vt_seg *s) {
    for (unsigned i = 0; i < VT_SEG_BUCKETS; i++) {
        vt_bucket *b = &s->buckets[i];
        for (unsigned j = 0; j < b->used; j++)
            if (b->slots[j].val) obj_decref(b->slots[j].val);
    }
}

/* Slots of the directory run that s (found at idx) occupies. */
static inline size_t seg_span(const vt *t, const vt_seg *s) {
    return (size_t)1 << (t->gd - s->depth);
}

static void dir_double(vt *t) {
    if (t->gd >= VT_MAX_DEPTH) {
        fprintf(stderr, "vt: directory at maximum depth %d, cannot split "
                "(hash collisions?)\n", VT_MAX_DEPTH);
        abort();
    }
    size_t n = (size_t)1 << t->gd;
    vt_seg **nd = xmalloc(2 * n * sizeof *nd);
    heap_charge(t, nd);
    for (size_t i = 0; i < n; i++) nd[2 * i] = nd[2 * i + 1] = t->dir[i];
    heap_free(t, t->dir);
    t->dir = nd;
    t->gd++;
    t->deep = 0; /* every segment is now shallower than gd */
}

/* Halves the directory once no segment is as deep as it (each pair of
 * slots points to one segment). O(directory + segments). */
static void dir_halve(vt *t) {
    assert(t->gd > 0 && t->deep == 0);
    size_t n = (size_t)1 << (t->gd - 1);
    vt_seg **nd = xmalloc(n * sizeof *nd);
    heap_charge(t, nd);
    for (size_t i = 0; i < n; i++) {
        assert(t->dir[2 * i] == t->dir[2 * i + 1]);
        nd[i] = t->dir[2 * i];
    }
    heap_free(t, t->dir);
    t->dir = nd;
    t->gd--;
    for (size_t i = 0; i < t->nsegs; i++) t->deep += t->segs[i]->depth == t->gd;
}

/* The top 32 bits of an entry's hash (the directory's): hashed again from
 * the key in its value (a split is the only reader). */
static uint32_t entry_hhi(const vt *t, const vt_entry *e) {
    size_t len;
    const char *k = vt_key(e, &len);
    return (uint32_t)(vt_key_hash(t, k, len) >> 32);
}

/* Moves the entries of ob whose hash has `bit` set into nb (same bucket
 * index in the new segment). During a save an unsaved ob is locked and every
 * unsaved entry that moves is captured first: nb starts out saved. Returns
 * how many moved; ttl[0] / ttl[1] tell whether an entry kept / moved has
 * an expire. */
static unsigned bucket_split(vt *t, vt_bucket *ob, vt_bucket *nb, uint32_t bit, int ttl[2]) {
    vt_bucket *lk = wlock(t, ob);
    assert(may_change(t, ob, lk));
    assert(may_change(t, nb, NULL)); /* the new segment starts out saved */
    unsigned keep = 0;
    ttl[0] = ttl[1] = 0;
    for (unsigned j = 0; j < ob->used; j++) {
        vt_entry *e = &ob->slots[j];
        assert(e->val); /* no created entry waits for its value across calls */
        int moves = (entry_hhi(t, e) & bit) != 0;
        ttl[moves] |= vt_expire(e) != VT_NO_EXPIRE; /* the same block as the key */
        if (moves) {
            if (lk) capture_entry(t, e);
            assert(nb->used < VT_BUCKET_SLOTS);
            nb->fp[nb->used] = ob->fp[j];
            nb->slots[nb->used++] = *e;
        } else {
            if (keep != j) {
                ob->slots[keep] = *e;
                ob->fp[keep] = ob->fp[j];
            }
            keep++;
        }
    }
    for (unsigned j = keep; j < ob->used; j++)
        memset(&ob->slots[j], 0, sizeof ob->slots[j]);
    unsigned moved = ob->used - keep;
    ob->used = (uint8_t)keep;
    if (lk) bucket_unlock(lk);
    return moved;
}

/* Splits the segment at directory slot idx in two by the next hash bit.
 * O(segment + directory when it doubles). The old segment stays where it is
 * (the serializer may hold it); the new one is never seen by the serializer. */
static void seg_split(vt *t, size_t idx) {
    vt_seg *s = t->dir[idx];
    assert(s->depth <= t->gd);
    if (s->depth == t->gd) {
        dir_double(t);
        idx <<= 1;
    }
    uint32_t d = s->depth;
    assert(d < t->gd && d < VT_MAX_DEPTH);
    uint32_t bit = (uint32_t)1 << (31 - d);
    vt_seg *ns = seg_new(t, d + 1, s->prefix | bit, t->save_epoch);
    uint64_t kept_ttl = 0;
    for (unsigned i = 0; i < VT_SEG_BUCKETS; i++) {
        int ttl[2];
        ns->count += bucket_split(t, &s->buckets[i], &ns->buckets[i], bit, ttl);
        kept_ttl |= (uint64_t)ttl[0] << i;
        ns->ttl |= (uint64_t)ttl[1] << i;
    }
    assert(s->count >= ns->count);
    s->count -= ns->count;
    s->ttl = kept_ttl; /* exact for both halves now */
    size_t span = seg_span(t, s);
    size_t start = idx & ~(span - 1);
    assert(span >= 2 && t->dir[start] == s && t->dir[start + span - 1] == s);
    for (size_t i = start + span / 2; i < start + span; i++) t->dir[i] = ns;
    s->depth = ns->depth = d + 1;
    if (d + 1 == t->gd) t->deep += 2;
    seg_register(t, ns);
}

/* ---- shrinking ----------------------------------------------------------
 *
 * A segment whose entries and its buddy's (the other half of the segment
 * they split from: same depth, prefixes differing in the last bit of it)
 * fit in one at VT_MERGE_MAX or less merges with it: the entries of bucket
 * i of both go to bucket i of the survivor (the lower half), so that every
 * entry keeps its bucket index (what SCAN's guarantee rests on, see
 * "scan"), which is why a merge also needs each pair of buckets to fit in
 * one. The merged segment's directory run is both runs; the directory
 * halves when no segment is as deep as it. Never while a save runs: the
 * serializer holds the segments it got (vt_save_begin). A merge is
 * O(segment): a delete that leaves a segment sparse tries one (vt_delete),
 * and vt_shrink sweeps what deletes during a save left. */

/* 5/8 of a segment's slots. A merged segment ends 31-62 % full (a table
 * that only grew is 42-85 %); its buckets hold what deletes left, no longer
 * balanced by the two choices, so above ~60 % some pair of buckets rarely
 * fits in one (then the merge waits for more deletes). Splits come at
 * ~85 %: two halves of a split (~42 % each) do not merge again until a
 * fifth of their keys went. */
#define VT_MERGE_MAX (VT_SEG_BUCKETS * VT_BUCKET_SLOTS * 5 / 8)

/* Merges the segment holding hash prefix hhi with its buddy when both fit
 * in one; 1 when merged. */
static int seg_try_merge(vt *t, uint32_t hhi) {
    if (t->save_epoch) return 0;
    size_t idx = dir_index(t, hhi);
    vt_seg *s = t->dir[idx];
    if (s->depth == 0 || s->count > VT_MERGE_MAX) return 0;
    size_t span = seg_span(t, s);
    size_t start = idx & ~(span - 1);
    vt_seg *o = t->dir[start ^ span];
    if (o->depth != s->depth || s->count + o->count > VT_MERGE_MAX) return 0;
    for (unsigned i = 0; i < VT_SEG_BUCKETS; i++)
        if (s->buckets[i].used + o->buckets[i].used > VT_BUCKET_SLOTS) return 0;
    vt_seg *keep = s->prefix < o->prefix ? s : o, *gone = keep == s ? o : s;
    for (unsigned i = 0; i < VT_SEG_BUCKETS; i++) {
        vt_bucket *kb = &keep->buckets[i], *gb = &gone->buckets[i];
        memcpy(&kb->fp[kb->used], gb->fp, gb->used);
        memcpy(&kb->slots[kb->used], gb->slots, gb->used * sizeof *gb->slots);
        kb->used = (uint8_t)(kb->used + gb->used);
    }
    keep->count += gone->count;
    keep->ttl |= gone->ttl;
    if (keep->depth == t->gd) t->deep -= 2;
    keep->depth--;
    size_t lo = (start & ~span);
    for (size_t i = lo; i < lo + 2 * span; i++) t->dir[i] = keep;
    seg_unregister(t, gone);
    seg_release(t, gone);
    while (t->gd > 0 && t->deep == 0) dir_halve(t);
    return 1;
}

/* Merges while the segment of hhi and its buddy fit in one. */
static void seg_merge_all(vt *t, uint32_t hhi) {
    while (seg_try_merge(t, hhi)) {}
}

void vt_shrink(vt *t, size_t max_segs) {
    if (!t->shrink_owed || t->save_epoch) return;
    for (size_t k = 0; k < max_segs; k++) {
        if (t->shrink_pos >= t->nsegs) { /* a whole sweep done */
            t->shrink_pos = 0;
            t->shrink_owed = 0;
            return;
        }
        vt_seg *s = t->segs[t->shrink_pos];
        if (!seg_try_merge(t, s->prefix)) t->shrink_pos++; /* else look again */
    }
}

/* ---- lookup ----------------------------------------------------------- */

/* The entry of key in b, or NULL. Only the values whose fingerprint
 * matches are read (a lookup touches the bucket's first cache line, the
 * slot, and the values that may match: 1 in 256 of the others). A created
 * entry without its value yet (vt_write) matches nothing. */
static inline vt_entry *bucket_find(vt_bucket *b, uint64_t h,
                                    const char *key, size_t len) {
    uint8_t fp = fingerprint(h);
    for (unsigned i = 0; i < b->used; i++) {
        if (b->fp[i] != fp) continue;
        vt_entry *e = &b->slots[i];
        if (e->val && obj_kv_key_eq(e->val, key, len)) return e;
    }
    return NULL;
}

/* The two candidate buckets of hash h, in the segment at directory slot
 * *idx. */
static inline vt_seg *home_seg(vt *t, uint64_t h, size_t *idx) {
    *idx = dir_index(t, (uint32_t)(h >> 32));
    return t->dir[*idx];
}

/* The entry of key (hash h) in either candidate bucket; *bp its bucket. */
static inline vt_entry *seg_find(vt_seg *s, uint64_t h, const char *key,
                                 size_t len, vt_bucket **bp) {
    vt_bucket *b = &s->buckets[bucket_index(h)];
    vt_bucket *b2 = &s->buckets[bucket_index2(h)];
    __builtin_prefetch(b2, 0, 3); /* both buckets' misses overlap */
    vt_entry *e = bucket_find(b, h, key, len);
    if (!e) {
        b = b2;
        e = bucket_find(b, h, key, len);
    }
    *bp = b;
    return e;
}

/* Lines of a bucket a loader's insert may write: the header (fingerprints,
 * used) and the first slots, where a bucket's next entry goes while it is
 * filling. */
#define VT_PREFETCH_LINES 4

void vt_prefetch(vt *t, uint64_t h) {
    vt_seg *s = t->dir[dir_index(t, (uint32_t)(h >> 32))];
    const char *b1 = (const char *)&s->buckets[bucket_index(h)];
    const char *b2 = (const char *)&s->buckets[bucket_index2(h)];
    for (int i = 0; i < VT_PREFETCH_LINES; i++) {
        __builtin_prefetch(b1 + 64 * i, 1, 3);
        __builtin_prefetch(b2 + 64 * i, 1, 3);
    }
}

vt_entry *vt_find(vt *t, const char *key, size_t len) {
    uint64_t h = vt_key_hash(t, key, len);
    size_t idx;
    vt_bucket *b;
    return seg_find(home_seg(t, h, &idx), h, key, len, &b);
}

/* ---- create / free / stats ------------------------------------------- */

vt *vt_create(void) {
    vt *t = xcalloc(1, sizeof *t);
    heap_charge(t, t);
    t->dir = xmalloc(sizeof *t->dir);
    heap_charge(t, t->dir);
    t->dir[0] = seg_new(t, 0, 0, 0);
    seg_register(t, t->dir[0]);
    t->deep = 1;
    random_bytes(&t->rng, sizeof t->rng);
    t->rng |= 1; /* xorshift state must not be 0 */
    t->slotted = vt_slots_default;
    atomic_store_explicit(&vt_created_mem, t->mem, memory_order_relaxed);
    return t;
}

size_t vt_mem_empty(void) { return atomic_load_explicit(&vt_created_mem, memory_order_relaxed); }

/* Frees every segment and the references its entries hold. */
static void segs_drop(vt *t) {
    assert(!t->save_epoch); /* segments are never freed while a save runs */
    for (size_t i = 0; i < t->nsegs; i++) {
        vt_seg *s = t->segs[i];
        seg_free_entries(s);
        if (s->in_slab) mem_count(t, &vt_carved_total, sizeof(vt_seg), 0);
        else heap_free(t, s);
    }
    t->nsegs = 0;
}

static void slabs_free(vt *t) {
    while (t->slabs) {
        vt_slab *next = t->slabs->next;
        if (__lsan_unregister_root_region)
            __lsan_unregister_root_region(t->slabs->base, VT_SLAB_BYTES);
        munmap(t->slabs->base, VT_SLAB_BYTES);
        atomic_fetch_sub_explicit(&vt_slab_total, VT_SLAB_BYTES, memory_order_relaxed);
        heap_free(t, t->slabs);
        t->slabs = next;
    }
    t->spare = NULL; /* they were in the slabs */
}

void vt_free(vt *t) {
    if (!t) return;
    segs_drop(t);
    slabs_free(t);
    heap_free(t, t->segs);
    heap_free(t, t->dir);
    heap_free(t, t->slot_keys);
    heap_credit(t, t);
    assert(t->mem == 0); /* every block charged was credited */
    free(t);
}

size_t vt_size(const vt *t) { return t->size; }
size_t vt_expires(const vt *t) { return t->expires; }

size_t vt_mem(const vt *t) { return t->mem; }

void vt_reserve(vt *t, size_t n) { vt_reserve_ticked(t, n, NULL, NULL); }

void vt_reserve_ticked(vt *t, size_t n, void (*tick)(void *), void *arg) {
    if (t->size || t->save_epoch) return; /* contract: empty, no save */
    size_t per_seg = (size_t)VT_SEG_BUCKETS * VT_RESERVE_LOAD;
    uint32_t gd = 0;
    while (gd < VT_RESERVE_MAX_DEPTH && ((size_t)per_seg << gd) < n) gd++;
    if (gd <= t->gd) return;
    segs_drop(t);
    slabs_free(t);
    heap_free(t, t->dir);
    size_t nd = (size_t)1 << gd;
    t->dir = xmalloc(nd * sizeof *t->dir);
    heap_charge(t, t->dir);
    for (size_t i = 0; i < nd; i++) {
        t->dir[i] = seg_new(t, gd, (uint32_t)(i << (32 - gd)), 0);
        seg_register(t, t->dir[i]);
        if (tick && i % 64 == 63) tick(arg); /* the table is not usable meanwhile */
    }
    t->gd = gd;
    t->deep = (uint32_t)nd;
}

/* ---- writes ----------------------------------------------------------- */

/* Adds a slot for a new key to b; its value comes with vt_set_val. */
static vt_entry *bucket_add(vt *t, vt_seg *s, vt_bucket *b, uint64_t h) {
    assert(b->used < VT_BUCKET_SLOTS);
    s->count++;
    vt_entry *e = &b->slots[b->used];
    b->fp[b->used] = fingerprint(h);
    e->val = NULL;
    b->used++;
    t->size++;
    if (t->slotted) {
        if (!t->slot_keys) {
            t->slot_keys = xcalloc(KEYSLOT_COUNT, sizeof *t->slot_keys);
            heap_charge(t, t->slot_keys);
        }
        t->slot_keys[hash_slot_of(h)]++;
    }
    return e;
}

/* vt_write with the hash given. */
static vt_entry *write_hashed(vt *t, uint64_t h, const char *key, size_t len,
                              int create, vt_wr *w, int *created) {
    w->t = t;
    w->b = NULL;
    w->key = key;
    w->klen = len;
    w->access = 0;
    w->e = w->made = NULL;
    w->seg = NULL;
    if (created) *created = 0;
    for (;;) {
        size_t idx;
        vt_seg *s = home_seg(t, h, &idx);
        vt_bucket *b;
        vt_entry *e = seg_find(s, h, key, len, &b);
        if (e) {
            w->b = wlock(t, b);
            assert(may_change(t, b, w->b));
            if (w->b) capture_entry(t, e);
            /* handed over before the change: marked for the running save */
            assert(!w->b || obj_kv_meta(e->val)->epoch == (uint8_t)t->save_epoch);
            w->seg = s;
            w->bi = (unsigned)(b - s->buckets);
            return w->e = e;
        }
        if (!create) return NULL;
        vt_bucket *b1 = &s->buckets[bucket_index(h)];
        vt_bucket *b2 = &s->buckets[bucket_index2(h)];
        b = b2->used < b1->used ? b2 : b1; /* the less full */
        if (b->used < VT_BUCKET_SLOTS) {
            w->b = wlock(t, b);
            assert(may_change(t, b, w->b));
            if (created) *created = 1;
            w->seg = s;
            w->bi = (unsigned)(b - s->buckets);
            return w->e = w->made = bucket_add(t, s, b, h);
        }
        seg_split(t, idx); /* both candidates are full: split and retry */
    }
}

vt_entry *vt_write(vt *t, const char *key, size_t len, int create,
                   vt_wr *w, int *created) {
    return write_hashed(t, vt_key_hash(t, key, len), key, len, create, w, created);
}

vt_entry *vt_insert_hashed(vt *t, uint64_t h, const char *key, size_t len, vt_wr *w,
                           int *created) {
    int c = 0;
    vt_entry *e = write_hashed(t, h, key, len, 1, w, &c);
    if (created) *created = c;
    return e;
}

obj *vt_set_val(vt_wr *w, vt_entry *e, obj *val) {
    /* e is the entry vt_write returned: in the bucket it locked, if any */
    assert(!w->b || (e >= w->b->slots && e < w->b->slots + w->b->used));
    obj *old = e->val;
    assert(val != old); /* e's own value made writable is assigned directly */
    obj_kvmeta meta = {0};
    int64_t expire = VT_NO_EXPIRE;
    if (old) {
        meta = *obj_kv_meta(old);
        expire = obj_kv_expire(old);
    } else {
        meta.epoch = (uint8_t)w->t->save_epoch; /* born saved when b is locked */
        obj_kvmeta_set_access(&meta, w->access);
    }
    if (obj_is_kv(val) && !obj_shared(val) && obj_kv_key_eq(val, w->key, w->klen)) {
        /* built for this key (obj_kv_new_value): adopted as it is */
        obj_kvmeta *m = obj_kv_meta(val);
        meta.klen = m->klen;
        *m = meta;
        e->val = obj_kv_set_expire(val, expire);
    } else {
        e->val = obj_kv_make(val, w->key, w->klen, &meta, expire);
    }
    return e->val;
}

void vt_set_expire(vt_wr *w, vt_entry *e, int64_t expire) {
    /* e is the entry vt_write returned: in the bucket it locked, if any */
    assert(!w->b || (e >= w->b->slots && e < w->b->slots + w->b->used));
    assert(e->val); /* a created entry gets its value first */
    int64_t cur = vt_expire(e);
    if (expire != VT_NO_EXPIRE) w->seg->ttl |= (uint64_t)1 << w->bi;
    if (cur == VT_NO_EXPIRE && expire != VT_NO_EXPIRE) w->t->expires++;
    else if (cur != VT_NO_EXPIRE && expire == VT_NO_EXPIRE) {
        assert(w->t->expires > 0);
        w->t->expires--;
    }
    e->val = obj_kv_set_expire(e->val, expire);
}

void vt_write_done(vt_wr *w) {
    /* vt_write's contract: a created entry got a value, and what the caller
     * stored is a value carrying the key (vt_set_val, or e->val made
     * writable) */
    assert(!w->made || w->made->val);
    assert(!w->e || (obj_is_kv(w->e->val) && obj_kv_key_eq(w->e->val, w->key, w->klen)));
    assert(!w->b || w->b->marked == w->t->save_epoch);
    if (w->b) bucket_unlock(w->b);
    w->b = NULL;
}

int vt_delete(vt *t, const char *key, size_t len) {
    uint64_t h = vt_key_hash(t, key, len);
    size_t idx;
    vt_bucket *b;
    vt_seg *s = home_seg(t, h, &idx);
    vt_entry *e = seg_find(s, h, key, len, &b);
    if (!e) return 0;
    vt_bucket *lk = wlock(t, b);
    assert(may_change(t, b, lk));
    if (lk) capture_entry(t, e);
    assert(!lk || obj_kv_meta(e->val)->epoch == (uint8_t)t->save_epoch);
    assert(b->used > 0 && t->size > 0);
    obj *v = e->val;
    if (vt_expire(e) != VT_NO_EXPIRE) {
        assert(t->expires > 0);
        t->expires--;
    }
    vt_entry *last = &b->slots[b->used - 1];
    if (e != last) { /* keep slots packed */
        *e = *last;
        b->fp[e - b->slots] = b->fp[b->used - 1];
    }
    memset(last, 0, sizeof *last);
    b->used--;
    if (lk) bucket_unlock(lk);
    t->size--;
    if (t->slotted) {
        assert(t->slot_keys && t->slot_keys[hash_slot_of(h)] > 0);
        t->slot_keys[hash_slot_of(h)]--;
    }
    assert(s->count > 0);
    s->count--;
    if (s->count <= VT_MERGE_MAX) { /* sparse: merge now, or after the save */
        if (t->save_epoch) t->shrink_owed = 1;
        else seg_merge_all(t, (uint32_t)(h >> 32));
    }
    obj_decref(v);
    return 1;
}

/* ---- scan and random ---------------------------------------------------
 *
 * A SCAN cursor is (bucket << 32 | p): the walk visits bucket 0 of every
 * segment in hash-prefix order, then bucket 1 of every segment, and so on;
 * p is the 32-bit hash prefix it visits next. An entry never leaves its
 * bucket index (splits and merges move it between segments at the same
 * index), so for a key present throughout, with prefix h and bucket j: in
 * the pass over bucket j, p moves from <= h to > h at one call, which
 * visited bucket j of the segment holding p, and that segment covered h
 * (p is rounded down to its start, it ends beyond h). Splits and merges in
 * between only make the walk see entries twice (a merge rounds p down to
 * the merged segment's start). */

/* The values of b's entries into the cache at once: a walk's visitor reads
 * each (key, expire), and their misses overlap instead of queueing. */
static void prefetch_values(const vt_bucket *b) {
    for (unsigned i = 0; i < b->used; i++) __builtin_prefetch(b->slots[i].val, 0, 1);
}

static size_t scan_bucket(vt_bucket *b, vt_visit_fn fn, void *priv) {
    prefetch_values(b);
    for (unsigned i = 0; i < b->used; i++) fn(priv, &b->slots[i]);
    return b->used;
}

/* A volatile walk's bucket (its bit set in s->ttl): its bit cleared when
 * it holds no expire. Returns the entries visited. */
static size_t scan_volatile(vt_seg *s, unsigned bi, vt_visit_fn fn, void *priv) {
    vt_bucket *b = &s->buckets[bi];
    prefetch_values(b);
    int any = 0;
    for (unsigned i = 0; i < b->used; i++) {
        any |= vt_expire(&b->slots[i]) != VT_NO_EXPIRE;
        fn(priv, &b->slots[i]);
    }
    if (!any) s->ttl &= ~((uint64_t)1 << bi);
    return b->used;
}

/* The segment holding hash prefix *p; *p becomes the start of the next one
 * (beyond UINT32_MAX after the last). *p need not be a segment's start (a
 * merge since, or a foreign cursor): the walk goes on from the holder's. */
static vt_seg *seg_step(const vt *t, uint64_t *p) {
    vt_seg *s = t->dir[dir_index(t, (uint32_t)*p)];
    uint64_t span = (uint64_t)1 << (32 - s->depth);
    *p = (*p & ~(span - 1)) + span;
    return s;
}

uint64_t vt_scan(vt *t, uint64_t cursor, size_t count, vt_visit_fn fn, void *priv) {
    uint64_t p = cursor & UINT32_MAX;
    unsigned bi = (unsigned)((cursor >> 32) & (VT_SEG_BUCKETS - 1));
    if (t->size == 0) return 0; /* nothing to visit: the walk is complete */
    if (count == 0) count = 1;
    size_t max_buckets = 10 * ((count + VT_BUCKET_SLOTS - 1) / VT_BUCKET_SLOTS);
    size_t seen = 0, visited = 0;
    for (;;) {
        vt_seg *s = seg_step(t, &p);
        if (p <= UINT32_MAX) /* the next segment's bucket, while this one's is read */
            __builtin_prefetch(&t->dir[dir_index(t, (uint32_t)p)]->buckets[bi], 0, 1);
        seen += scan_bucket(&s->buckets[bi], fn, priv);
        visited++;
        if (p > UINT32_MAX) { /* the pass over bucket bi is done */
            p = 0;
            if (++bi == VT_SEG_BUCKETS) return 0;
        }
        if (visited >= max_buckets || seen >= count) return (uint64_t)bi << 32 | p;
    }
}

void vt_walk(vt *t, vt_visit_fn fn, void *priv) {
    for (size_t i = 0; i < t->nsegs; i++) {
        vt_seg *s = t->segs[i];
        if (i + 1 < t->nsegs) __builtin_prefetch(t->segs[i + 1], 0, 1);
        for (unsigned bi = 0; bi < VT_SEG_BUCKETS; bi++) scan_bucket(&s->buckets[bi], fn, priv);
    }
}

/* Whole segments at a time, in prefix order: a call never stops inside a
 * segment, so a key present throughout is in the segment visited when the
 * cursor passes its prefix, whatever moved in between (no bucket order is
 * needed: one read of a segment's mask serves its 64 buckets). */
uint64_t vt_scan_volatile(vt *t, uint64_t cursor, size_t count, vt_visit_fn fn, void *priv) {
    uint64_t p = cursor & UINT32_MAX;
    if (t->size == 0 || t->expires == 0) return 0; /* the walk is complete */
    if (count == 0) count = 1;
    size_t max_segs = 10 * ((count + VT_BUCKET_SLOTS - 1) / VT_BUCKET_SLOTS);
    size_t seen = 0, visited = 0;
    for (;;) {
        vt_seg *s = seg_step(t, &p);
        if (p <= UINT32_MAX) __builtin_prefetch(t->dir[dir_index(t, (uint32_t)p)], 0, 1);
        for (uint64_t m = s->ttl; m; m &= m - 1)
            seen += scan_volatile(s, (unsigned)__builtin_ctzll(m), fn, priv);
        visited++;
        if (p > UINT32_MAX) return 0;
        if (visited >= max_segs || seen >= count) return p;
    }
}

static uint64_t rng_next(vt *t) {
    uint64_t x = t->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return t->rng = x;
}

/* Walks every bucket from a random place until a non-empty one: a table
 * made sparse by deletions still answers (O(table) at worst, as Redis). */
static vt_entry *random_walk(vt *t, uint64_t r) {
    size_t n = (size_t)1 << t->gd;
    size_t idx = r & (n - 1);
    for (size_t k = 0; k <= n; k++) {
        vt_seg *s = t->dir[(idx + k) & (n - 1)];
        for (unsigned i = 0; i < VT_SEG_BUCKETS; i++) {
            vt_bucket *b = &s->buckets[(i + (r >> 32)) & (VT_SEG_BUCKETS - 1)];
            if (b->used) return &b->slots[(r >> 40) % b->used];
        }
    }
    return NULL; /* unreachable when size > 0 */
}

vt_entry *vt_random(vt *t) {
    if (!t->size) return NULL;
    size_t mask = ((size_t)1 << t->gd) - 1;
    for (int tries = 0; tries < 64; tries++) {
        uint64_t r = rng_next(t);
        vt_seg *s = t->dir[r & mask];
        vt_bucket *b = &s->buckets[(r >> 32) & (VT_SEG_BUCKETS - 1)];
        if (b->used) return &b->slots[(r >> 40) % b->used];
    }
    return random_walk(t, rng_next(t));
}

/* Whether b is one the running save has not saved: the test of
 * VT_SAMPLE_SAVED and vt_owed_to_save. */
static int bucket_owed(const vt *t, vt_bucket *b) {
    return t->save_epoch &&
           atomic_load_explicit(&b->version, memory_order_acquire) < t->save_epoch;
}

size_t vt_sample(vt *t, size_t k, int flags, size_t max_buckets, vt_entry **out) {
    int volatile_only = (flags & VT_SAMPLE_VOLATILE) != 0;
    int saved_only = (flags & VT_SAMPLE_SAVED) != 0;
    if (!t->size || !k || (volatile_only && !t->expires)) return 0;
    size_t total = t->nsegs * VT_SEG_BUCKETS;
    if (max_buckets > total) max_buckets = total;
    uint64_t r = rng_next(t);
    size_t pos = (size_t)(r % total);
    size_t n = 0;
    for (size_t i = 0; i < max_buckets && n < k; i++) {
        vt_seg *s = t->segs[pos / VT_SEG_BUCKETS];
        unsigned bi = (unsigned)(pos % VT_SEG_BUCKETS);
        vt_bucket *b = &s->buckets[bi];
        int skip = (saved_only && bucket_owed(t, b)) || (volatile_only && !(s->ttl >> bi & 1));
        for (unsigned j = 0; !skip && j < b->used && n < k; j++) {
            vt_entry *e = &b->slots[j];
            if (!volatile_only || vt_expire(e) != VT_NO_EXPIRE) out[n++] = e;
        }
        if (++pos == total) pos = 0;
    }
    return n;
}

/* ---- the per-slot index ------------------------------------------------ */

size_t vt_slot_count(const vt *t, unsigned slot) {
    assert(t->slotted && slot < KEYSLOT_COUNT);
    return t->slot_keys ? t->slot_keys[slot] : 0;
}

/* Visits the entries of slot in s, up to max - *n more; a segment of depth
 * below VT_SLOT_BITS holds neighbouring slots too, so its keys are tested. */
static void seg_slot_walk(vt_seg *s, unsigned slot, size_t max, size_t *n,
                          vt_visit_fn fn, void *priv) {
    int mixed = s->depth < VT_SLOT_BITS;
    for (unsigned i = 0; i < VT_SEG_BUCKETS && *n < max; i++) {
        vt_bucket *b = &s->buckets[i];
        for (unsigned j = 0; j < b->used && *n < max; j++) {
            vt_entry *e = &b->slots[j];
            size_t len;
            const char *k = vt_key(e, &len);
            if (mixed && key_hash_slot(k, len) != slot) continue;
            fn(priv, e);
            (*n)++;
        }
    }
}

size_t vt_slot_walk(vt *t, unsigned slot, size_t max, vt_visit_fn fn, void *priv) {
    size_t count = vt_slot_count(t, slot);
    if (max > count) max = count;
    size_t n = 0;
    /* the directory run of the slot: the slots whose top bits are `slot` */
    size_t first = t->gd >= VT_SLOT_BITS ? (size_t)slot << (t->gd - VT_SLOT_BITS)
                                         : (size_t)slot >> (VT_SLOT_BITS - t->gd);
    size_t span = t->gd >= VT_SLOT_BITS ? (size_t)1 << (t->gd - VT_SLOT_BITS) : 1;
    vt_seg *prev = NULL;
    for (size_t i = first; i < first + span && n < max; i++) {
        vt_seg *s = t->dir[i];
        if (s == prev) continue; /* a segment fills consecutive directory slots */
        prev = s;
        seg_slot_walk(s, slot, max, &n, fn, priv);
    }
    assert(n == max); /* the count and the placement agree */
    return n;
}

/* ---- save --------------------------------------------------------------- */

void vt_save_begin(vt *t, uint64_t epoch, vt_capture_fn fn, void *priv,
                   vt_seg ***segs, size_t *nsegs) {
    if (epoch <= t->last_epoch || !fn) {
        fprintf(stderr, "vt_save_begin: epoch %llu not above %llu or no callback\n",
                (unsigned long long)epoch, (unsigned long long)t->last_epoch);
        abort();
    }
    assert(!t->save_epoch); /* one save at a time per table */
    vt_seg **v = xmalloc(t->nsegs * sizeof *v);
    memcpy(v, t->segs, t->nsegs * sizeof *v);
    t->last_epoch = epoch;
    t->save_epoch = epoch;
    t->capture = fn;
    t->capture_priv = priv;
    *segs = v;
    *nsegs = t->nsegs;
}

int vt_saving(const vt *t) { return t->save_epoch != 0; }

int vt_owed_to_save(vt *t, const char *key, size_t len) {
    if (!t->save_epoch) return 0;
    uint64_t h = vt_key_hash(t, key, len);
    size_t idx;
    vt_bucket *b;
    return seg_find(home_seg(t, h, &idx), h, key, len, &b) && bucket_owed(t, b);
}

void vt_save_end(vt *t) {
    t->save_epoch = 0;
    t->capture = NULL;
    t->capture_priv = NULL;
}

static int seg_ptr_cmp(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)*(vt_seg *const *)a, y = (uintptr_t)*(vt_seg *const *)b;
    return x < y ? -1 : x > y;
}

/* The directory index i's slots: lo..hi (one slot, or several while the
 * directory has fewer than 2^14 slots). */
static int dir_has_slot_of(const vt *t, size_t i, const uint8_t *set) {
    unsigned lo, hi;
    if (t->gd >= VT_SLOT_BITS) {
        lo = hi = (unsigned)(i >> (t->gd - VT_SLOT_BITS));
    } else {
        lo = (unsigned)(i << (VT_SLOT_BITS - t->gd));
        hi = lo + (1u << (VT_SLOT_BITS - t->gd)) - 1;
    }
    for (unsigned s = lo; s <= hi; s++)
        if (set[s >> 3] >> (s & 7) & 1) return 1;
    return 0;
}

void vt_save_slot_segs(const vt *t, vt_seg *const *segs, size_t n, const uint8_t *set,
                       uint8_t *want) {
    assert(t->save_epoch && n == t->nsegs);
    if (!t->slotted) {
        memset(want, 1, n);
        return;
    }
    size_t nd = (size_t)1 << t->gd, nw = 0;
    vt_seg **w = xmalloc(nd * sizeof *w);
    for (size_t i = 0; i < nd; i++) /* a segment fills consecutive directory slots */
        if ((!nw || w[nw - 1] != t->dir[i]) && dir_has_slot_of(t, i, set)) w[nw++] = t->dir[i];
    qsort(w, nw, sizeof *w, seg_ptr_cmp);
    for (size_t j = 0; j < n; j++)
        want[j] = bsearch(&segs[j], w, nw, sizeof *w, seg_ptr_cmp) != NULL;
    free(w);
}

vt_bucket *vt_seg_bucket(vt_seg *s, unsigned i) { return &s->buckets[i]; }

void vt_skip_bucket(vt_bucket *b, uint64_t epoch) {
    if (atomic_load_explicit(&b->version, memory_order_acquire) >= epoch) return;
    bucket_lock(b);
    /* no entry is marked: bucket_prepare resets the marks at the next
     * epoch that touches the bucket, whatever this one left */
    atomic_store_explicit(&b->version, epoch, memory_order_release);
    bucket_unlock(b);
}

size_t vt_capture_bucket(vt_bucket *b, uint64_t epoch, vt_captured *out) {
    if (atomic_load_explicit(&b->version, memory_order_acquire) >= epoch) return 0;
    bucket_lock(b);
    bucket_prepare(b, epoch);
    uint8_t m = (uint8_t)epoch;
    size_t n = 0;
    for (unsigned i = 0; i < b->used; i++) {
        vt_entry *e = &b->slots[i];
        assert(e->val); /* the main thread never leaves a bucket so */
        obj_kvmeta *meta = obj_kv_meta(e->val);
        if (meta->epoch == m) continue;
        obj_incref(e->val);
        out[n++] = (vt_captured){ e->val, obj_kv_expire(e->val) };
        meta->epoch = m;
    }
    atomic_store_explicit(&b->version, epoch, memory_order_release);
    bucket_unlock(b);
    return n;
}
