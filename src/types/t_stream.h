/* t_stream: the stream type (Redis 7.0's OBJ_STREAM) on persistent trees:
 * entries, Redis's listpack node layout, consumer groups, consumers and
 * pending entries, with the metadata Redis 7.0 keeps. Owns the trees'
 * key and value layouts; the commands (cmd_stream*.c), the RDB code and
 * the AOF rewrite use only this header. Writes need an unshared obj
 * (obj_coll_writable). Reads and iteration: any thread holding a
 * reference (the serializer reads a stream it took a reference to while
 * the main thread writes a copy: every tree is a ptree, so a write copies
 * the O(log n) nodes on its path and the save's handle sees the stream as
 * it was).
 *
 * Trees (all PT_KEYED):
 *   ST_ENTRIES  id -> entry: every entry of the stream, deleted ones too
 *               (XDEL and exact trims mark an entry deleted inside its
 *               node, as Redis does; a node goes when all its entries
 *               are deleted).
 *   ST_NODES    node's master id -> node: Redis's radix tree of listpacks.
 *               A node is a run of consecutive entries that Redis 7.0
 *               would keep in one listpack, given stream-node-max-bytes /
 *               -entries at the time each entry was added: its master
 *               fields (the first entry's), the counts of live and
 *               deleted entries, and the byte size of that listpack. So
 *               XTRIM ~ drops the same entries Redis's does, the RDB
 *               writer makes the same listpacks byte for byte, and an
 *               entry whose fields are its node's master fields stores
 *               only its values (Redis's SAMEFIELDS).
 *   ST_GROUPS   group name -> group record (gid, last id, entries-read).
 *   ST_CONS     consumers: gid + name -> consumer record (cid, seen time);
 *               and gid + cid -> name (a second key form, prefix byte).
 *   ST_PEL      gid + id -> nack (cid, delivery time, delivery count): a
 *               group's pending entries list.
 *   ST_CPEL     gid + cid + id -> "": each consumer's pending ids.
 * gid and cid are numbers given from counters in the metadata, never
 * reused in a stream's life, written in keys as a length byte and their
 * big-endian bytes (a prefix code): a group's or consumer's items are one
 * contiguous key range, deleted in O(log n + nodes dropped).
 *
 * IDs in keys are encoded so that memcmp order is numeric order (a length
 * byte then the big-endian bytes without leading zeros, for ms and for
 * seq, a seq of 0 left out): 7 or 9 bytes for a current time-based id. */
#ifndef VERSO_T_STREAM_H
#define VERSO_T_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

typedef struct stream_id {
    uint64_t ms;
    uint64_t seq;
} stream_id;

#define STREAM_ID_MIN ((stream_id){0, 0})
#define STREAM_ID_MAX ((stream_id){UINT64_MAX, UINT64_MAX})

static inline int sid_cmp(stream_id a, stream_id b) {
    if (a.ms != b.ms) return a.ms < b.ms ? -1 : 1;
    if (a.seq != b.seq) return a.seq < b.seq ? -1 : 1;
    return 0;
}
static inline int sid_is_zero(stream_id a) { return a.ms == 0 && a.seq == 0; }
/* id + 1 / id - 1: 0 when it would wrap (id is the max / the min). */
int sid_incr(stream_id *id);
int sid_decr(stream_id *id);
/* "ms-seq" into buf (at least STREAM_ID_STRMAX bytes): its length. */
#define STREAM_ID_STRMAX 42
size_t sid_format(char *buf, stream_id id);
/* Parses "ms-seq" or "ms" (seq = missing_seq): 1, or 0 when malformed
 * (not two unsigned 64-bit decimals). Special forms ("-", "+", "$", ">",
 * "*", "ms-*", "(") are the commands' to handle. */
int sid_parse(const char *p, size_t len, uint64_t missing_seq, stream_id *out);

/* Redis 7.0's SCG_INVALID_ENTRIES_READ: entries-read unknown. */
#define STREAM_ENTRIES_READ_INVALID INT64_C(-1)

/* The metadata Redis 7.0 keeps per stream (stream.h's struct stream). */
typedef struct stream_meta {
    uint64_t length;          /* live entries */
    stream_id last_id;        /* the top id ever added (or XSETID's) */
    stream_id first_id;       /* the first live entry's id, 0-0 when empty */
    stream_id max_deleted_id; /* the greatest id ever deleted */
    uint64_t entries_added;   /* entries ever added */
    uint64_t next_gid;        /* counters for group and consumer numbers */
    uint64_t next_cid;
} stream_meta;

/* A new empty stream (OBJECT ENCODING "stream"). */
obj *stream_new(void);
const stream_meta *stream_meta_get(const obj *s);
/* s unshared. Commands set last_id / entries_added / max_deleted_id
 * directly only for XSETID (and the loaders); the writes below keep the
 * metadata themselves. */
stream_meta *stream_meta_mut(obj *s);
static inline uint64_t stream_len(const obj *s) { return stream_meta_get(s)->length; }
/* Number of consumer groups. */
uint64_t stream_group_count(const obj *s);

/* An entry's flags, Redis's STREAM_ITEM_FLAG_*: deleted, and "its fields
 * are its node's master fields". */
enum { STREAM_FLAG_DELETED = 1, STREAM_FLAG_SAMEFIELDS = 2 };

/* ---- entries ---- */
/* A field or value. */
typedef struct stream_str {
    const char *p;
    size_t len;
} stream_str;

/* Appends an entry (s unshared): id must be greater than last_id
 * (asserted; the command checks and replies the error first). fv holds
 * nfields field/value pairs (fv[2i] field, fv[2i+1] value; nfields >= 1).
 * The entry goes into the tail node or starts a new one where Redis 7.0
 * would (stream-node-max-bytes / -entries as configured now). Updates
 * length, last_id, first_id (when it was empty) and entries_added. */
void stream_append(obj *s, stream_id id, const stream_str *fv, size_t nfields);
/* Redis's check before an append: the fields' and values' total bytes
 * must fit a listpack node ("ERR Elements are too large to be stored"). */
int stream_append_fits(const stream_str *fv, size_t nfields);

/* Iteration over live entries with start <= id <= end (both inclusive),
 * forward or reverse. Field and value pointers are valid until the next
 * stream_iter_next or a write to s. */
typedef struct stream_iter {
    const obj *s;                  /* private fields */
    int reverse;
    stream_id start, end;
    pt_iter it;
    int done;
    /* the current entry */
    stream_id id;
    size_t nfields, field;
    const char *vp;                /* next value / pair to decode */
    const char *vend;              /* the entry item's end */
    const char *mp;                /* next master field (same-fields entry) */
    int samefields;
    stream_id node_lo, node_hi;    /* the ids the cached master fields serve */
    const char *master;            /* cached master fields (node item value) */
    size_t master_n;
    int raw;
    int flags;
} stream_iter;
void stream_iter_init(stream_iter *it, const obj *s, stream_id start, stream_id end,
                      int reverse);
/* The same forward, deleted entries included (the RDB writer, which
 * writes a node's entries as Redis keeps them): stream_iter_flags says
 * which are deleted. */
void stream_iter_init_raw(stream_iter *it, const obj *s, stream_id start);
/* The same from the first entry, consuming (pt_iter_init_consume): for the
 * forkless serializer writing a stream it holds a reference to; the
 * entries it has passed are released while that reference is the only
 * one (the main thread wrote a copy, or deleted the key), so entries
 * trimmed or deleted during the save are freed as it goes. s may then
 * only be dropped (obj_decref). */
void stream_iter_init_consume(stream_iter *it, const obj *s);
/* 1 with the next live entry's id and number of fields, 0 at the end. */
int stream_iter_next(stream_iter *it, stream_id *id, size_t *nfields);
/* The current entry's next field and value (called nfields times). */
void stream_iter_field(stream_iter *it, stream_str *field, stream_str *value);
/* The current entry's flags (STREAM_FLAG_*, Redis's STREAM_ITEM_FLAG_*). */
static inline int stream_iter_flags(const stream_iter *it) { return it->flags; }

/* 1 when a live entry with that id exists. O(log n). */
int stream_has(const obj *s, stream_id id);
/* Deletes the live entry id (s unshared): 1 when it was there. Marks it
 * deleted in its node (the node goes when it was its last live entry);
 * updates length, first_id and max_deleted_id. XDEL's. */
int stream_delete(obj *s, stream_id id);

/* Trimming as Redis 7.0's streamTrim: entries are removed from the head
 * while the stream is longer than maxlen (MAXLEN) / while ids are below
 * minid (MINID). approx: only whole nodes go (Redis's `~`); otherwise
 * entries of the first node left are marked deleted too. limit: at most
 * this many entries removed, 0 for none (only with approx: Redis's LIMIT,
 * whose default the command computes: 100 * stream-node-max-entries).
 * Returns the entries removed. s unshared. */
uint64_t stream_trim_maxlen(obj *s, uint64_t maxlen, int approx, uint64_t limit);
uint64_t stream_trim_minid(obj *s, stream_id minid, int approx, uint64_t limit);

/* ---- consumer groups ---- */
typedef struct stream_group {
    uint64_t gid;
    stream_id last_id;
    int64_t entries_read;          /* STREAM_ENTRIES_READ_INVALID: unknown */
} stream_group;

/* 1 and *g set when the group exists. */
int stream_group_get(const obj *s, const char *name, size_t len, stream_group *g);
/* Creates a group (s unshared): 1, or 0 when the name exists. g->gid is
 * given; last_id and entries_read are the caller's. */
int stream_group_create(obj *s, const char *name, size_t len, stream_group *g);
/* Stores a group's last_id and entries_read (the group exists; gid kept). */
void stream_group_update(obj *s, const char *name, size_t len, const stream_group *g);
/* Destroys a group with its consumers and pending entries: 1 when it
 * existed. */
int stream_group_destroy(obj *s, const char *name, size_t len);
/* Groups in name order (XINFO GROUPS, the RDB writer). */
typedef struct stream_group_iter { pt_iter it; } stream_group_iter;
void stream_group_iter_init(stream_group_iter *it, const obj *s);
int stream_group_iter_next(stream_group_iter *it, stream_str *name, stream_group *g);
/* Pending entries of a group: O(log n). */
uint64_t stream_group_pending(const obj *s, uint64_t gid);

/* ---- consumers ---- */
typedef struct stream_consumer {
    uint64_t cid;
    int64_t seen_time;             /* unix ms of its last XREADGROUP/XCLAIM... */
} stream_consumer;

int stream_consumer_get(const obj *s, uint64_t gid, const char *name, size_t len,
                        stream_consumer *c);
/* Creates a consumer (s unshared): 1, or 0 when it exists (*c is then the
 * existing one). c->cid is given; seen_time is the caller's. */
int stream_consumer_create(obj *s, uint64_t gid, const char *name, size_t len,
                           stream_consumer *c);
/* Stores a consumer's seen_time (it exists). */
void stream_consumer_update(obj *s, uint64_t gid, const char *name, size_t len,
                            const stream_consumer *c);
/* Deletes a consumer and its pending entries (from its list and the
 * group's): the number of pending entries it had, or -1 when it did not
 * exist. */
int64_t stream_consumer_delete(obj *s, uint64_t gid, const char *name, size_t len);
/* The name of consumer cid: 1, or 0 when unknown. */
int stream_consumer_name(const obj *s, uint64_t gid, uint64_t cid, stream_str *name);
/* A consumer's pending entries: O(log n). */
uint64_t stream_consumer_pending(const obj *s, uint64_t gid, uint64_t cid);
/* A group's consumers in name order. */
typedef struct stream_consumer_iter {
    pt_iter it;
    char prefix[10];
    size_t plen;
} stream_consumer_iter;
void stream_consumer_iter_init(stream_consumer_iter *it, const obj *s, uint64_t gid);
int stream_consumer_iter_next(stream_consumer_iter *it, stream_str *name, stream_consumer *c);

/* ---- pending entries (NACKs) ---- */
typedef struct stream_nack {
    uint64_t cid;                  /* owning consumer */
    int64_t delivery_time;         /* unix ms of the last delivery */
    uint64_t delivery_count;
} stream_nack;

int stream_pel_get(const obj *s, uint64_t gid, stream_id id, stream_nack *n);
/* Inserts or replaces the nack of id in the group's PEL, moving it to
 * n->cid's list when another consumer owned it: 1 when it is new. */
int stream_pel_put(obj *s, uint64_t gid, stream_id id, const stream_nack *n);
/* Removes id from the group's PEL and its consumer's list: 1 when it was
 * pending (XACK). */
int stream_pel_del(obj *s, uint64_t gid, stream_id id);
/* A group's PEL in id order from `from` (inclusive) to `to` (inclusive);
 * or, with cid != STREAM_NO_CONSUMER, only that consumer's (its own list,
 * O(log n + k)). Reverse for the last ids first. */
#define STREAM_NO_CONSUMER UINT64_MAX
typedef struct stream_pel_iter {
    const obj *s;                  /* private fields */
    pt_iter it;
    uint64_t gid, cid;
    stream_id to;
    int done;
} stream_pel_iter;
void stream_pel_iter_init(stream_pel_iter *it, const obj *s, uint64_t gid, uint64_t cid,
                          stream_id from, stream_id to);
int stream_pel_iter_next(stream_pel_iter *it, stream_id *id, stream_nack *n);

/* ---- whole-stream ---- */
/* Redis's listpack nodes, for the RDB writer and DEBUG: nodes in order
 * with their master id, master fields and counts; the entries of a node
 * (deleted ones too) come from stream_node_entries. */
typedef struct stream_node {
    stream_id master_id;
    uint64_t live, deleted;
    size_t lp_bytes;               /* the listpack's size as Redis's lpBytes */
    size_t nmaster;                /* master fields */
    const char *master;            /* private: the encoded master fields */
} stream_node;
typedef struct stream_node_iter { pt_iter it; } stream_node_iter;
void stream_node_iter_init(stream_node_iter *it, const obj *s);
int stream_node_iter_next(stream_node_iter *it, stream_node *n);
/* The i-th master field of n (i < n->nmaster). O(i). */
stream_str stream_node_master_field(const stream_node *n, size_t i);
/* Nodes (XINFO STREAM's radix-tree-keys). */
uint64_t stream_node_count(const obj *s);

/* ---- loading (RDB, RESTORE): builds a stream node by node ----
 * The entries and nodes of a file come in id order: the loader builds
 * their trees bottom-up (pt_build, O(n)) instead of inserting them one by
 * one. stream_loader_node starts a node (master id, master fields);
 * stream_loader_entry adds its entries in id order (flags 0 or
 * STREAM_FLAG_DELETED; fv holds the nfields pairs, a SAMEFIELDS entry's
 * fields being its master's). Each returns 0 on what does not fit (ids
 * not increasing, an entry before its node's master id or before any node,
 * no fields, a node left without entries): the file is corrupt; the
 * caller then calls stream_loader_abort. stream_loader_finish returns the
 * stream with its entries and length (NULL, the loader freed, when the
 * last node has no entry; stream_loader_abort after either does nothing);
 * the loader then sets the rest of the
 * metadata with stream_meta_mut, adds groups, consumers and pending
 * entries with the functions above, and checks the whole with
 * stream_load_check (0: inconsistent counts, last_id below the top entry,
 * a pending entry without a consumer). */
typedef struct stream_loader {
    pt_builder entries, nodes;     /* private fields */
    uint64_t length;
    int has_node, has_top;
    int done;                      /* finished (abort is then a no-op) */
    stream_id top;                 /* the last entry's id */
    stream_id master;              /* the current node */
    uint64_t live, deleted, ebytes, nmaster;
    char *fields;                  /* its encoded master fields */
    size_t fields_len;
} stream_loader;
void stream_loader_init(stream_loader *l);
int stream_loader_node(stream_loader *l, stream_id master_id, const stream_str *fields,
                       size_t nfields);
int stream_loader_entry(stream_loader *l, stream_id id, int flags, const stream_str *fv,
                        size_t nfields);
obj *stream_loader_finish(stream_loader *l);
void stream_loader_abort(stream_loader *l);
int stream_load_check(const obj *s);

#endif
