/* vt: the versioned hash table, one per database.
 *
 * The keyspace of verso. A table that the snapshot serializer thread can walk
 * while the main thread keeps changing it, without the main thread waiting for
 * the serializer (beyond one bucket's short lock) and without copying the
 * dataset. See doc/design.md for the diagram; the protocol in short:
 *
 *   Shape: extendible hashing. A directory of 2^global_depth pointers to
 *   segments; each segment has VT_SEG_BUCKETS buckets of VT_BUCKET_SLOTS
 *   entries. An entry is one pointer: the key's value, which carries the key,
 *   its expire and the entry's metadata in its own allocation (obj.h, keyed
 *   values), so a key costs one allocation and ~16 bytes of table. The top
 *   bits of a key's 64-bit hash pick the directory slot, two
 *   groups of low bits pick two candidate buckets; a new key goes to the less
 *   full of the two (two choices keep buckets balanced, so segments fill to
 *   ~85 % before one bucket overflows, against ~50 % with one choice). When
 *   both are full the segment splits in two (the directory doubles when
 *   needed): no step ever costs O(dataset). Entries keep their bucket index
 *   across a split, so a split moves entries from bucket i of the old segment
 *   to bucket i of the new one. Deletes that leave two halves sparse merge
 *   them back (the directory halves in turn), outside saves.
 *
 *   Save epoch E (vt_save_begin .. vt_save_end): every bucket carries an
 *   atomic `version` ("all entries here are saved for epochs <= version") and
 *   every entry a one-byte epoch mark (in its value's metadata) valid only
 *   under the bucket lock.
 *   - The serializer, for each bucket with version < E: lock, take a
 *     reference to every entry not yet marked for E, mark them, set
 *     version = E, unlock (vt_capture_bucket), then encode outside the lock.
 *   - The main thread, before it changes a bucket with version < E (insert,
 *     overwrite, delete, expire change, split), locks it; if the entry it is
 *     about to change is not yet marked for E it hands the entry's current
 *     value (with its key) and expire to the capture callback (the serializer's priority
 *     queue) and marks it. Buckets at version >= E belong to the main thread
 *     alone: no lock, one atomic load.
 *   - A key created during the save is marked E at birth: not in the snapshot.
 *   Every key that existed at E is therefore written exactly once, with its
 *   value at E. Segments are never freed while a save runs.
 *
 * Threads: everything here is main thread only, except vt_capture_bucket and
 * vt_seg_bucket, which the serializer calls on segments it got from
 * vt_save_begin. Reads by the main thread (vt_find, vt_scan, vt_random) take
 * no lock: the serializer never changes a key, value or expire; it only marks
 * entries (under the lock) and takes references (atomic refcounts). A
 * value the serializer holds is not changed in place (obj.h's sharing
 * rule), except for its metadata's access clock and expire slot, which the
 * serializer never reads (it writes the expire it captured). */
#ifndef VERSO_VT_H
#define VERSO_VT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "obj.h"

#define VT_BUCKET_SLOTS 14
#define VT_SEG_BUCKETS 64
#define VT_NO_EXPIRE OBJ_KV_NO_EXPIRE

/* A slot: the key's value, which carries the key, the expire and the
 * entry's metadata (obj.h, "keyed values"). NULL: a free slot, or for an
 * instant a created entry (vt_write). Main thread writes (under the bucket
 * lock when the bucket's version < save epoch). */
typedef struct vt_entry {
    obj *val;
} vt_entry;

_Static_assert(sizeof(vt_entry) == 8, "a table slot is one pointer");

/* The key of an entry (its bytes live in the value, see obj.h). */
static inline const char *vt_key(const vt_entry *e, size_t *len) {
    return obj_kv_key(e->val, len);
}
/* unix time in ms, VT_NO_EXPIRE for none. */
static inline int64_t vt_expire(const vt_entry *e) { return obj_kv_expire(e->val); }

/* The 24-bit access clock of evict.c (LRU seconds, or LFU minutes << 8 |
 * counter), in the value's metadata: main thread only, no lock (the
 * serializer never reads it). */
static inline uint32_t vt_access_get(const vt_entry *e) { return obj_kv_access(e->val); }
static inline void vt_access_set(vt_entry *e, uint32_t v) { obj_kv_set_access(e->val, v); }

typedef struct vt_bucket {
    _Atomic uint64_t version; /* atomic: saved for every epoch <= version */
    uint64_t marked;          /* under lock: epoch for which entry marks are
                                 meaningful; other marks are stale */
    atomic_flag lock;         /* spinlock, held for a few entries' work */
    uint8_t used;             /* slots in use; under lock while version < E */
    uint8_t fp[VT_BUCKET_SLOTS]; /* one hash byte per used slot, so that a
                                    lookup reads the entries that may match
                                    only (main thread; changed with slots) */
    vt_entry slots[VT_BUCKET_SLOTS];
} vt_bucket;

_Static_assert(sizeof(vt_bucket) == 32 + VT_BUCKET_SLOTS * sizeof(vt_entry),
               "the fingerprints fit the bucket header's cache line");

typedef struct vt_seg vt_seg;
typedef struct vt vt;

/* Called on the main thread, with the bucket lock held, to hand over the
 * pre-image of an entry the main thread is about to change during a save.
 * The callee receives one reference to val (a kv: its key is in it; it must
 * drop it) and the expire as it was (the kv's own slot may change after),
 * and must not call back into the table. */
typedef void (*vt_capture_fn)(void *priv, obj *val, int64_t expire);

/* One entry captured by the serializer: the value's reference it owns (the
 * key read from it with obj_kv_key) and the expire at capture. */
typedef struct vt_captured {
    obj *val;
    int64_t expire;
} vt_captured;

/* ---- main thread ---------------------------------------------------- */

/* A walk's callback (vt_scan, vt_slot_walk). */
typedef void (*vt_visit_fn)(void *priv, vt_entry *e);

vt *vt_create(void);
/* Frees the table and drops its references. Not while a save uses it. */
void vt_free(vt *t);
size_t vt_size(const vt *t);
/* Keys with an expire set (maintained by vt_set_expire and deletions). */
size_t vt_expires(const vt *t);
/* Bytes the table structure holds (not the objects), as INFO used_memory
 * counts them: its heap blocks (header, directory, segment list, slot
 * counts, its first segments) at the allocator's cost (obj_block_bytes),
 * the segments carved from its slabs at their size; kept at every
 * allocation and free. A slab's uncarved rest is not counted (mapped). */
size_t vt_mem(const vt *t);
/* vt_mem of the table vt_create made last (what an empty one holds; two
 * differ by the allocator's rounding at most, a few bytes). */
size_t vt_mem_empty(void);
/* Every table's memory: vt_mem's two parts summed over the tables alive,
 * those a flush retired included until freed. */
typedef struct vt_memstat {
    size_t heap;   /* heap blocks: the allocator's own figures see them */
    size_t slab;   /* segments carved from slabs: mmap'd, so outside the
                      allocator's figures (INFO adds them) */
    size_t mapped; /* the slabs as mapped, >= slab: a slab (2 MiB) is mapped
                      whole with its first segment, its rest reserved */
} vt_memstat;
/* Any thread (each figure read atomically, the three not at one instant). */
void vt_mem_totals(vt_memstat *m);
uint64_t vt_hash(const char *key, size_t len);

/* ---- the per-slot index (cluster mode) --------------------------------
 * A table created after vt_index_slots(1) places keys by slot: a key's
 * table hash is its cluster slot (keyslot.h) in the top 14 bits, then
 * vt_hash's top 50 bits. The directory is indexed by the top bits, so a
 * slot's keys are in one contiguous run of directory slots (or share one
 * segment with neighbouring slots while the directory has fewer than 2^14
 * slots), and the table keeps a count per slot. No byte per key is added.
 * Set once at startup, before any table is created (server.c, from
 * cluster-enabled); tables created before keep their mode. */
void vt_index_slots(int on);
/* 1 if t places keys by slot. */
int vt_slotted(const vt *t);
/* The hash t places key by: vt_hash, or the slot-prefixed hash of a
 * slotted table. What vt_prefetch and vt_insert_hashed take. */
uint64_t vt_key_hash(const vt *t, const char *key, size_t len);
/* Keys of slot in a slotted table: O(1). */
size_t vt_slot_count(const vt *t, unsigned slot);
/* Calls fn for up to max entries of slot in a slotted table; returns how
 * many. Walks the slot's directory run only: O(its keys + its buckets).
 * fn must not change the table. */
size_t vt_slot_walk(vt *t, unsigned slot, size_t max, vt_visit_fn fn, void *priv);
/* Pre-sizes the table for n keys (restore uses RESIZEDB), so that loading
 * them splits no segment (almost surely: it aims at 2 to 4 keys per 14-slot
 * bucket, see vt.c). Only on an empty table, outside a save. */
void vt_reserve(vt *t, size_t n);
/* The same, calling tick(arg) every 64 segments it creates (~2 MB of fresh
 * pages at most between two calls): a startup load serves clients there.
 * The table must not be touched from tick. */
void vt_reserve_ticked(vt *t, size_t n, void (*tick)(void *), void *arg);

/* Brings the two candidate buckets of a key with hash h (vt_key_hash) into the
 * cache ahead of a write (their headers and the slots an insert writes next):
 * restore hashes a batch of keys, prefetches, then inserts. */
void vt_prefetch(vt *t, uint64_t h);

/* Read-only lookup; NULL when absent. The entry stays valid until the next
 * change to the table. No expiry logic here: see db.h. */
vt_entry *vt_find(vt *t, const char *key, size_t len);

/* Write access to one key. Returns the entry, creating it when `create`
 * (val NULL; *created = 1) or NULL when absent and !create. When a save is
 * running, the entry's pre-image has been handed to the capture callback and
 * its bucket is locked until vt_write_done. In between the caller:
 *   - stores a value with vt_set_val, or assigns e->val directly when the
 *     new value is e->val made writable (obj_writable, obj_coll_writable:
 *     they keep its key and metadata), dropping the old reference itself;
 *   - changes the expire only through vt_set_expire;
 *   - does not call into the table otherwise;
 *   - gives a created entry its value (vt_set_val) before anything else.
 * key[0..len) must stay valid until vt_write_done. */
typedef struct vt_wr {
    vt *t;
    vt_bucket *b;      /* locked bucket, or NULL */
    const char *key;   /* the key written (the caller's bytes) */
    size_t klen;
    uint32_t access;   /* a created entry's first access clock (the caller
                          may set it before vt_set_val) */
    vt_entry *e;       /* the entry returned, or NULL */
    vt_entry *made;    /* the created entry, or NULL */
    vt_seg *seg;       /* e's segment and bucket index (vt_set_expire) */
    unsigned bi;
} vt_wr;
vt_entry *vt_write(vt *t, const char *key, size_t len, int create,
                   vt_wr *w, int *created);
/* vt_write(create = 1) for a loader that already has the key's hash h
 * (vt_key_hash, computed for vt_prefetch). */
vt_entry *vt_insert_hashed(vt *t, uint64_t h, const char *key, size_t len, vt_wr *w,
                           int *created);
/* Stores val as e's value, taking the caller's reference; the old value's
 * reference (if any, and unless val is it) stays the caller's to drop. A
 * val that is not already e's own (a new object, or another key's kv, or
 * a kv still shared) becomes a kv of e's key (obj_kv_make: a copy of a
 * string's bytes, the trees of a collection shared), keeping e's metadata
 * and expire. Returns the stored obj. */
obj *vt_set_val(vt_wr *w, vt_entry *e, obj *val);
void vt_set_expire(vt_wr *w, vt_entry *e, int64_t expire);
void vt_write_done(vt_wr *w);

/* Deletes a key (capturing it first during a save); 1 if it existed. A
 * segment left sparse merges with its neighbour (vt.c, "shrinking"), at
 * once or, while a save runs, at vt_shrink after it: the table shrinks as
 * keys go. Entries found before are invalid after (as after any change). */
int vt_delete(vt *t, const char *key, size_t len);
/* Merges up to max_segs segments' worth of what deletes during a save left
 * sparse (a no-op when none did, or while a save runs). Main thread; cron. */
void vt_shrink(vt *t, size_t max_segs);

/* Cursor walk as Redis's SCAN: a key present from the first call to the last
 * is visited at least once, whatever splits and merges happen between
 * calls; a key may be visited twice. Calls fn for every entry of whole
 * buckets until about `count` entries were visited (or 10 * count slots'
 * worth of buckets, so a sparse table costs bounded work per call), returns
 * the next cursor, 0 when the walk is complete. fn must not change the
 * table. */
uint64_t vt_scan(vt *t, uint64_t cursor, size_t count, vt_visit_fn fn, void *priv);
/* Every entry once, segment after segment in memory order (faster than a
 * vt_scan walk, which reads bucket 0 of every segment, then bucket 1...),
 * for a walk done within one call: fn must not change the table. */
void vt_walk(vt *t, vt_visit_fn fn, void *priv);
/* A walk with the same guarantee over the buckets that may hold a key with
 * an expire only (a bit per bucket, kept by vt_set_expire and cleared by
 * this walk where it finds none): with few keys carrying a TTL, active
 * expiry reads a fraction of the table. fn sees every entry of those
 * buckets. Its cursors are its own (not vt_scan's): whole segments per
 * call, up to 10 * count / VT_BUCKET_SLOTS of them. */
uint64_t vt_scan_volatile(vt *t, uint64_t cursor, size_t count, vt_visit_fn fn, void *priv);
/* A random entry (NULL if empty). Not uniform, as Redis's RANDOMKEY. */
vt_entry *vt_random(vt *t);
/* Up to k entries (pointers into out, valid until the next change to the
 * table) from a random place: a random segment and bucket, then the
 * following buckets in segment-list order (wrapping), until k entries were
 * collected or max_buckets buckets (at most all of them) were walked. As
 * Redis's dictGetSomeKeys: not uniform, O(max_buckets) at worst. Used by
 * eviction (evict.c). Flags:
 *   VT_SAMPLE_VOLATILE: only entries with an expire (buckets that hold
 *     none, as vt_scan_volatile knows them, are skipped);
 *   VT_SAMPLE_SAVED: while a save runs, only entries of buckets it has
 *     saved (version >= its epoch: walked by the serializer, or in a
 *     segment split off during the save). Deleting one hands nothing to the
 *     save, so its value is freed at once (unless something else shares
 *     it, such as the serializer for the instant it encodes that bucket);
 *     deleting an unsaved entry frees nothing until the serializer has
 *     written it. No effect when no save runs. Unsaved buckets count
 *     towards max_buckets (one atomic load each). */
enum { VT_SAMPLE_VOLATILE = 1, VT_SAMPLE_SAVED = 2 };
size_t vt_sample(vt *t, size_t k, int flags, size_t max_buckets, vt_entry **out);
/* 1 while a save runs on t (vt_save_begin .. vt_save_end). */
int vt_saving(const vt *t);
/* 1 when a save runs and key is in a bucket it has not saved (deleting the
 * key now hands its value to the save: VT_SAMPLE_SAVED's test); 0 when no
 * save runs, the bucket is saved, or the key is absent. */
int vt_owed_to_save(vt *t, const char *key, size_t len);

/* Start a save at epoch E (greater than any epoch used before on this
 * table): records the capture callback and returns, in *segs / *nsegs, a
 * new array (caller frees) of the table's distinct segments. O(#segments).
 * Until vt_save_end, no segment of the table is freed. */
void vt_save_begin(vt *t, uint64_t epoch, vt_capture_fn fn, void *priv,
                   vt_seg ***segs, size_t *nsegs);
/* The save ended (done or aborted) and the serializer no longer touches the
 * segments: the main thread stops locking and capturing. */
void vt_save_end(vt *t);

/* A save of some slots of t (a slot migration's): want[i] = 1 when
 * segs[i], of the n segments vt_save_begin returned, may hold a key of a
 * slot in set (KEYSLOT_COUNT bits, bit s & 7 of byte s >> 3), else 0:
 * the save has nothing to write there. Every want[i] is 1 for a table
 * that is not slotted. Main thread, right after vt_save_begin (the
 * directory as it was at E). O(directory + segments log segments). */
void vt_save_slot_segs(const vt *t, vt_seg *const *segs, size_t n, const uint8_t *set,
                       uint8_t *want);

/* ---- serializer thread ---------------------------------------------- */

vt_bucket *vt_seg_bucket(vt_seg *s, unsigned i);
/* Marks bucket b saved for `epoch` without capturing its entries (a
 * bucket of a segment vt_save_slot_segs said holds nothing the save
 * writes): the main thread stops locking it for the save. Holds the
 * bucket lock only inside. */
void vt_skip_bucket(vt_bucket *b, uint64_t epoch);
/* Captures every entry of the bucket not yet saved for `epoch` into out
 * (room for VT_BUCKET_SLOTS), taking a reference to key and value, and sets
 * the bucket's version to `epoch`. Returns how many were captured (0 when
 * the bucket was already saved). Holds the bucket lock only inside. */
size_t vt_capture_bucket(vt_bucket *b, uint64_t epoch, vt_captured *out);

#endif
