/* debug: DEBUG, as Redis 7.0 answers it to the tools and test suites that
 * use it (only with enable-debug-command, which cmd.c checks): digests
 * (debug_digest.c), reloading the dataset (through the snapshot's and the
 * AOF's hooks: the core knows nothing of files), OBJECT, the crashes
 * (SEGFAULT, PANIC, ASSERT: the report of crash.c), PROTOCOL, POPULATE,
 * SLEEP and the testing switches. The subcommands about Redis's own
 * structures (QUICKLIST-PACKED-THRESHOLD, LISTPACK, HTSTATS, HTSTATS-KEY,
 * REPLYBUFFER) answer as 7.0 does where verso can tell (doc/compat.md says
 * what differs). Main thread only. */
#include <limits.h>
#include <lzf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <time.h>

#include "cmd.h"
#include "db.h"
#include "debug.h"
#include "evict.h"
#include "hooks.h"
#include "log.h"
#include "obj.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_stream.h"
#include "t_zset.h"
#include "util.h"
#include "vbuf.h"

static const char *const debug_help[] = {
    "DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "AOF-FLUSH-SLEEP <microsec>",
    "    Server will sleep before flushing the AOF, this is used for testing.",
    "ASSERT",
    "    Crash by assertion failed.",
    "CHANGE-REPL-ID",
    "    Change the replication IDs of the instance.",
    "    Dangerous: should be used only for testing the replication subsystem.",
    "CONFIG-REWRITE-FORCE-ALL",
    "    Like CONFIG REWRITE but writes all configuration options, including",
    "    keywords not listed in original configuration file or default values.",
    "CRASH-AND-RECOVER [<milliseconds>]",
    "    Hard crash and restart after a <milliseconds> delay (default 0).",
    "DIGEST",
    "    Output a hex signature representing the current DB content.",
    "DIGEST-VALUE <key> [<key> ...]",
    "    Output a hex signature of the values of all the specified keys.",
    "ERROR <string>",
    "    Return a Redis protocol error with <string> as message. Useful for clients",
    "    unit tests to simulate Redis errors.",
    "LEAK <string>",
    "    Create a memory leak of the input string.",
    "LOG <message>",
    "    Write <message> to the server log.",
    "HTSTATS <dbid>",
    "    Return hash table statistics of the specified Redis database.",
    "HTSTATS-KEY <key>",
    "    Like HTSTATS but for the hash table stored at <key>'s value.",
    "LOADAOF",
    "    Flush the AOF buffers on disk and reload the AOF in memory.",
    "REPLICATE <string>",
    "    Replicates the provided string to replicas, allowing data divergence.",
    "OBJECT <key>",
    "    Show low level info about `key` and associated value.",
    "DROP-CLUSTER-PACKET-FILTER <packet-type>",
    "    Drop all packets that match the filtered type. Set to -1 allow all packets.",
    "OOM",
    "    Crash the server simulating an out-of-memory error.",
    "PANIC",
    "    Crash the server simulating a panic.",
    "POPULATE <count> [<prefix>] [<size>]",
    "    Create <count> string keys named key:<num>. If <prefix> is specified then",
    "    it is used instead of the 'key' prefix. These are not propagated to",
    "    replicas. Cluster slots are not respected so keys not belonging to the",
    "    current node can be created in cluster mode.",
    "PROTOCOL <type>",
    "    Reply with a test value of the specified type. <type> can be: string,",
    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
    "    true, false.",
    "RELOAD [option ...]",
    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
    "    * MERGE: conflicting keys will be loaded from RDB.",
    "    * NOFLUSH: the existing database will not be removed before load, but",
    "      conflicting keys will generate an exception and kill the server.",
    "    * NOSAVE: the database will be loaded from an existing RDB file.",
    "    Examples:",
    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
    "      the database.",
    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
    "      existing RDB file.",
    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
    "      file to the database.",
    "RESTART [<milliseconds>]",
    "    Graceful restart: save config, db, restart after a <milliseconds> delay (default 0).",
    "SDSLEN <key>",
    "    Show low level SDS string info representing `key` and value.",
    "SEGFAULT",
    "    Crash the server with sigsegv.",
    "SET-ACTIVE-EXPIRE <0|1>",
    "    Setting it to 0 disables expiring keys in background when they are not",
    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
    "    default.",
    "QUICKLIST-PACKED-THRESHOLD <size>",
    "    Sets the threshold for elements to be inserted as plain vs packed nodes",
    "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
    "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
    "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
    "SLEEP <seconds>",
    "    Stop the server for <seconds>. Decimals allowed.",
    "STRINGMATCH-TEST",
    "    Run a fuzz tester against the stringmatchlen() function.",
    "STRUCTSIZE",
    "    Return the size of different Redis core C structures.",
    "LISTPACK <key>",
    "    Show low level info about the listpack encoding of <key>.",
    "QUICKLIST <key> [<0|1>]",
    "    Show low level info about the quicklist encoding of <key>.",
    "    The optional argument (0 by default) sets the level of detail",
    "CLIENT-EVICTION",
    "    Show low level client eviction pools info (maxmemory-clients).",
    "PAUSE-CRON <0|1>",
    "    Stop periodic cron job processing.",
    "REPLYBUFFER PEAK-RESET-TIME <NEVER||RESET|time>",
    "    Sets the time (in milliseconds) to wait between client reply buffer peak resets.",
    "    In case NEVER is provided the last observed peak will never be reset",
    "    In case RESET is provided the peak reset time will be restored to the default value",
    "REPLYBUFFER RESIZING <0|1>",
    "    Enable or disable the reply buffer resize cron job",
    "CLUSTERLINK KILL <to|from|all> <node-id>",
    "    Kills the link based on the direction to/from (both) with the provided node.",
    "HELP",
    "    Prints this help.",
    NULL};

/* ---- POPULATE, PROTOCOL ---- */

static void debug_populate(client *c) {
    long long count, size = 0;
    if (!str_to_ll(c->argv[2].p, c->argv[2].len, &count) || count < 0) {
        reply_error(c, "ERR value is out of range, must be positive");
        return;
    }
    const char *prefix = "key";
    size_t plen = 3;
    if (c->argc >= 4) { prefix = c->argv[3].p; plen = c->argv[3].len; }
    if (c->argc >= 5 && !arg_ll(c, &c->argv[4], &size)) return;
    if (size < 0) {
        reply_error(c, "ERR value is out of range, must be positive");
        return;
    }
    /* verso's own bound (Redis has none and dies of it): a value no bigger
     * than a client may SET. */
    if (size > server.cfg.proto_max_bulk_len) {
        reply_error(c, "ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        return;
    }
    db *d = db_get(c->db);
    char *key = xmalloc(plen + 32);  /* "<prefix>:<j>" */
    memcpy(key, prefix, plen);
    key[plen] = ':';
    char val[64];
    for (long long j = 0; j < count; j++) {
        size_t klen = plen + 1 + ll_to_str(key + plen + 1, j);
        if (db_lookup(d, key, klen)) continue;
        size_t vlen = (size_t)snprintf(val, sizeof val, "value:%lld", j);
        obj *v;
        if (size) {
            /* "value:N" zero-padded or cut to `size` bytes, as Redis */
            v = obj_kv_new_zeroed(key, klen, (size_t)size);
            memcpy(v->data, val, vlen < (size_t)size ? vlen : (size_t)size);
        } else {
            v = obj_kv_new_raw(key, klen, val, vlen);
        }
        db_set(d, key, klen, v, VT_NO_EXPIRE);
        server_dirty(1);
    }
    free(key);
    reply_ok(c);
}

/* DEBUG PROTOCOL <type>: one reply of each RESP3 type (and its RESP2
 * form), as Redis 7.0 answers it for client libraries' tests. */
static void debug_protocol(client *c) {
    const arg *t = &c->argv[2];
    if (arg_is(t, "string")) {
        reply_bulk_str(c, "Hello World");
    } else if (arg_is(t, "integer")) {
        reply_int(c, 12345);
    } else if (arg_is(t, "double")) {
        reply_double(c, 3.141);
    } else if (arg_is(t, "bignum")) {
        reply_bignum(c, "1234567999999999999999999999999999999", 37);
    } else if (arg_is(t, "null")) {
        reply_null(c);
    } else if (arg_is(t, "array") || arg_is(t, "set")) {
        (arg_is(t, "set") ? reply_set : reply_array)(c, 3);
        for (int j = 0; j < 3; j++) reply_int(c, j);
    } else if (arg_is(t, "map")) {
        reply_map(c, 3);
        for (int j = 0; j < 3; j++) {
            reply_int(c, j);
            reply_bool(c, j == 1);
        }
    } else if (arg_is(t, "attrib")) {
        if (c->resp >= 3) { /* RESP2 has no attributes: the reply alone */
            resp_add_attribute(&c->reply, 1);
            reply_bulk_str(c, "key-popularity");
            reply_array(c, 2);
            reply_bulk_str(c, "key:123");
            reply_int(c, 90);
        }
        reply_bulk_str(c, "Some real reply following the attribute");
    } else if (arg_is(t, "push")) {
        if (c->resp < 3) {
            reply_error(c, "ERR RESP2 is not supported by this command");
            return;
        }
        reply_push(c, 2);
        reply_bulk_str(c, "server-cpu-usage");
        reply_int(c, 42);
        reply_bulk_str(c, "Some real reply following the push reply");
    } else if (arg_is(t, "true") || arg_is(t, "false")) {
        reply_bool(c, arg_is(t, "true"));
    } else if (arg_is(t, "verbatim")) {
        reply_verbatim(c, "This is a verbatim\nstring", 25, "txt");
    } else {
        reply_error(c, "ERR Wrong protocol type name. Please use one of the following: "
                       "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|"
                       "true|false");
    }
}


/* ---- DIGEST, DIGEST-VALUE ---- */

static void debug_digest(client *c) {
    uint8_t d[DEBUG_DIGEST_LEN];
    char hex[2 * DEBUG_DIGEST_LEN + 1];
    debug_digest_dataset(d);
    debug_digest_hex(d, hex);
    reply_status(c, hex);
}

/* A key absent answers 40 zeros; a logically expired key still counts
 * (the table is read directly, no lazy expiry), as in Redis. */
static void debug_digest_value_cmd(client *c) {
    reply_array(c, c->argc - 2);
    db *d = db_get(c->db);
    for (int j = 2; j < c->argc; j++) {
        uint8_t dg[DEBUG_DIGEST_LEN] = {0};
        char hex[2 * DEBUG_DIGEST_LEN + 1];
        vt_entry *e = vt_find(d->t, c->argv[j].p, c->argv[j].len);
        if (e) debug_digest_value(e, dg);
        debug_digest_hex(dg, hex);
        reply_status(c, hex);
    }
}

/* ---- OBJECT ---- */

/* Bytes of an RDB length. */
static size_t rdb_len_bytes(uint64_t n) {
    if (n < 64) return 1;
    if (n < 16384) return 2;
    if (n <= UINT32_MAX) return 5;
    return 9;
}

/* Bytes of an LZF-compressed RDB string, as Redis tries it for strings
 * over 20 bytes when rdbcompression is on; 0 when it would not be. */
static size_t lzf_bytes(const char *p, size_t n) {
    if (!server.cfg.rdbcompression || n <= 20 || n > UINT_MAX) return 0;
    char *out = xmalloc(n - 4);
    unsigned c = lzf_compress(p, (unsigned)n, out, (unsigned)(n - 4));
    free(out);
    return c ? 1 + rdb_len_bytes(c) + rdb_len_bytes(n) + c : 0;
}

/* Bytes of an RDB string: a canonical integer within int32 in its integer
 * encoding, LZF when that is shorter, else length and bytes. */
static size_t rdb_str_bytes(const char *p, size_t n) {
    long long v;
    if (n <= 11 && str_to_ll(p, n, &v)) {
        char buf[OBJ_INTBUF];
        if ((size_t)ll_to_str(buf, v) == n) {
            if (v >= -128 && v <= 127) return 2;
            if (v >= -32768 && v <= 32767) return 3;
            if (v >= INT32_MIN && v <= INT32_MAX) return 5;
        }
    }
    size_t z = lzf_bytes(p, n);
    return z ? z : rdb_len_bytes(n) + n;
}

/* A listpack's bytes (header, entries, end) as one RDB string. */
static size_t rdb_blob_bytes(size_t lp_bytes) { return rdb_len_bytes(lp_bytes) + lp_bytes; }

/* What Redis 7.0's quicklist would hold: its nodes (cut where
 * list_node_allows says) and their listpack bytes. */
typedef struct ql_shape {
    uint64_t nodes, count;
    size_t bytes;      /* every node's listpack bytes */
    size_t saved;      /* the nodes as RDB strings */
} ql_shape;

static void ql_shape_of(const obj *o, ql_shape *q) {
    memset(q, 0, sizeof *q);
    list_iter it;
    list_iter_init(&it, o);
    const char *p;
    size_t n, node_bytes = 0, node_count = 0;
    int fill = server.cfg.list_max_listpack_size;
    while (list_iter_next(&it, &p, &n)) {
        size_t eb = list_lp_entry_bytes(p, n);
        if (node_count == 0 || !list_node_allows(node_bytes, node_count, eb, fill)) {
            if (node_count) q->saved += 1 + rdb_blob_bytes(node_bytes);
            q->nodes++;
            node_bytes = 7;
            node_count = 0;
        }
        node_bytes += eb;
        node_count++;
        q->bytes += eb + (node_count == 1 ? 7 : 0);
        q->count++;
    }
    if (node_count) q->saved += 1 + rdb_blob_bytes(node_bytes);
    q->saved += rdb_len_bytes(q->nodes);
}

/* The value's RDB length as Redis 7.0 would save it (close, not exact:
 * doc/compat.md). */
static size_t saved_len(const obj *o) {
    size_t total = 0, lp = 7;
    switch (o->type) {
    case OBJ_STRING: {
        char buf[OBJ_INTBUF];
        size_t n;
        const char *p = obj_str(o, buf, &n);
        return rdb_str_bytes(p, n);
    }
    case OBJ_LIST: {
        ql_shape q;
        ql_shape_of(o, &q);
        return q.saved;
    }
    case OBJ_SET: {
        set_iter it;
        set_iter_init(&it, o);
        const char *m;
        size_t ml, n = 0, width = 2; /* an intset's: its widest member's */
        while (set_iter_next(&it, &m, &ml)) {
            long long v;
            total += rdb_str_bytes(m, ml);
            n++;
            if (!str_to_ll(m, ml, &v)) continue;
            if ((v < INT16_MIN || v > INT16_MAX) && width < 4) width = 4;
            if (v < INT32_MIN || v > INT32_MAX) width = 8;
        }
        if (o->enc == OBJ_ENC_INTSET) return rdb_blob_bytes(8 + width * n);
        return rdb_len_bytes(n) + total;
    }
    case OBJ_ZSET: {
        zset_iter it;
        zset_iter_init(&it, o);
        const char *m;
        size_t ml, n = 0;
        double score;
        while (zset_iter_next(&it, &m, &ml, &score)) {
            char buf[ZSET_SCORE_BUF];
            size_t sl = zset_fmt_listpack_score(buf, score);
            lp += list_lp_entry_bytes(m, ml) + list_lp_entry_bytes(buf, sl);
            total += rdb_str_bytes(m, ml) + 8;
            n++;
        }
        if (o->enc == OBJ_ENC_LISTPACK) return rdb_blob_bytes(lp);
        return rdb_len_bytes(n) + total;
    }
    case OBJ_HASH: {
        hash_iter it;
        hash_iter_init(&it, o);
        const char *f, *v;
        size_t fl, vl, n = 0;
        while (hash_iter_next(&it, &f, &fl, &v, &vl)) {
            lp += list_lp_entry_bytes(f, fl) + list_lp_entry_bytes(v, vl);
            total += rdb_str_bytes(f, fl) + rdb_str_bytes(v, vl);
            n++;
        }
        if (o->enc == OBJ_ENC_LISTPACK) return rdb_blob_bytes(lp);
        return rdb_len_bytes(n) + total;
    }
    case OBJ_STREAM: {
        stream_iter it;
        stream_iter_init(&it, o, (stream_id){0, 0}, (stream_id){UINT64_MAX, UINT64_MAX}, 0);
        stream_id id;
        size_t nfields;
        while (stream_iter_next(&it, &id, &nfields)) {
            total += 4; /* the entry's flags, id deltas and field count */
            for (size_t i = 0; i < nfields; i++) {
                stream_str f, v;
                stream_iter_field(&it, &f, &v);
                total += list_lp_entry_bytes(f.p, f.len) + list_lp_entry_bytes(v.p, v.len);
            }
        }
        return total + 40; /* the node's master entry, the metadata */
    }
    }
    return 0;
}

/* "Value at:<address> refcount:<n> encoding:<name> serializedlength:<n>
 * lru:<clock> lru_seconds_idle:<s>", and the quicklist's shape for a
 * list, in 7.0's format. The key is found without lazy expiry. */
static void debug_object(client *c) {
    vt_entry *e = vt_find(db_get(c->db)->t, c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    const obj *o = e->val;
    char extra[192] = "";
    if (o->type == OBJ_LIST) {
        ql_shape q;
        ql_shape_of(o, &q);
        snprintf(extra, sizeof extra,
                 " ql_nodes:%llu ql_avg_node:%.2f ql_listpack_max:%d ql_compressed:%d"
                 " ql_uncompressed_size:%zu",
                 (unsigned long long)q.nodes, q.nodes ? (double)q.count / (double)q.nodes : 0.0,
                 server.cfg.list_max_listpack_size, server.cfg.list_compress_depth != 0, q.bytes);
    }
    int lfu = evict_policy_lfu();
    uint32_t clock = vt_access_get(e);
    char line[512];
    snprintf(line, sizeof line,
             "Value at:%p refcount:%lld encoding:%s serializedlength:%zu lru:%u "
             "lru_seconds_idle:%llu%s",
             (const void *)o, object_refcount_as_redis(o), obj_encoding_name(o), saved_len(o),
             (unsigned)clock, lfu ? 0ULL : (unsigned long long)(evict_idle_ms(e) / 1000), extra);
    reply_status(c, line);
}

/* ---- the rest ---- */

/* Redis's hash table stats for the big encodings: verso's tables are not
 * Redis's dicts, so only the count is real (doc/compat.md). */
static void debug_htstats_key(client *c) {
    vt_entry *e = db_lookup_read_notouch(db_get(c->db), c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    const obj *o = e->val;
    uint64_t n = 0;
    if (o->enc == OBJ_ENC_HASHTABLE && o->type == OBJ_HASH) n = hash_len(o);
    else if (o->enc == OBJ_ENC_HASHTABLE && o->type == OBJ_SET) n = set_len(o);
    else if (o->enc == OBJ_ENC_SKIPLIST) n = zset_len(o);
    else {
        reply_error(c, "ERR The value stored at the specified key is not represented using an "
                       "hash table");
        return;
    }
    char buf[256];
    int len = snprintf(buf, sizeof buf,
                       "Hash table 0 stats (main hash table):\n table size: %llu\n"
                       " number of elements: %llu\n",
                       (unsigned long long)n, (unsigned long long)n);
    reply_verbatim(c, buf, (size_t)len, "txt");
}

/* One table's part of HTSTATS: verso's tables are not Redis's dicts, so
 * only the number of elements is real (doc/compat.md). */
static void htstats_part(vbuf *b, const char *title, size_t n) {
    char buf[160];
    vbuf_append_str(b, title);
    vbuf_append_str(b, "Hash table 0 stats (main hash table):\n");
    if (!n) {
        vbuf_append_str(b, "No stats available for empty dictionaries\n");
        return;
    }
    snprintf(buf, sizeof buf, " table size: %zu\n number of elements: %zu\n", n, n);
    vbuf_append_str(b, buf);
}

static void debug_htstats(client *c) {
    long long id;
    if (!arg_ll(c, &c->argv[2], &id)) return;
    if (id < 0 || id >= server.cfg.databases) {
        reply_error(c, "ERR Out of range database");
        return;
    }
    db *d = db_get((int)id);
    vbuf b = {0};
    htstats_part(&b, "[Dictionary HT]\n", vt_size(d->t));
    htstats_part(&b, "[Expires HT]\n", vt_expires(d->t));
    reply_verbatim(c, b.data, b.len, "txt");
    vbuf_free(&b);
}

/* Redis's memtoull: a memory amount ("100", "1kb", "5gb"); 0 on a bad one. */
static int parse_mem(const arg *a, unsigned long long *out) {
    char buf[64];
    if (a->len == 0 || a->len >= sizeof buf) return 0;
    memcpy(buf, a->p, a->len);
    buf[a->len] = '\0';
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    if (end == buf) return 0;
    unsigned long long mul = 1;
    if (!*end || !strcasecmp(end, "b")) mul = 1;
    else if (!strcasecmp(end, "k")) mul = 1000;
    else if (!strcasecmp(end, "kb")) mul = 1024;
    else if (!strcasecmp(end, "m")) mul = 1000 * 1000;
    else if (!strcasecmp(end, "mb")) mul = 1024 * 1024;
    else if (!strcasecmp(end, "g")) mul = 1000ULL * 1000 * 1000;
    else if (!strcasecmp(end, "gb")) mul = 1024ULL * 1024 * 1024;
    else return 0;
    *out = v * mul;
    return 1;
}

/* The threshold is Redis's quicklist's; verso's lists have no plain
 * nodes: the value is checked as 7.0 checks it and has no effect. */
static void debug_quicklist_threshold(client *c) {
    unsigned long long sz;
    if (!parse_mem(&c->argv[2], &sz) || sz > (1ULL << 32)) {
        reply_error(c, "ERR argument must be a memory value bigger than 1 and smaller than 4gb");
        return;
    }
    reply_ok(c);
}

static void debug_listpack(client *c) {
    vt_entry *e = db_lookup_read_notouch(db_get(c->db), c->argv[2].p, c->argv[2].len);
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    if (e->val->enc != OBJ_ENC_LISTPACK) {
        reply_error(c, "ERR Not a listpack encoded object.");
        return;
    }
    reply_status(c, "Listpack structure printed on stdout");
}

static void debug_replybuffer(client *c) {
    if (arg_is(&c->argv[2], "peak-reset-time")) {
        long long ms;
        if (!arg_is(&c->argv[3], "never") && !arg_is(&c->argv[3], "reset") &&
            !arg_ll(c, &c->argv[3], &ms))
            return;
    } else if (!arg_is(&c->argv[2], "resizing")) {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try DEBUG HELP.", (int)c->argv[1].len, c->argv[1].p);
        return;
    }
    reply_ok(c);
}

/* DEBUG ERROR <string>: the string as an error reply, newlines blanked. */
static void debug_error(client *c) {
    char *s = xstrndup(c->argv[2].p, c->argv[2].len);
    for (char *p = s; *p; p++)
        if (*p == '\r' || *p == '\n') *p = ' ';
    reply_error(c, s);
    free(s);
}

static void debug_reload(client *c) {
    int flags = 0;
    for (int j = 2; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "merge")) flags |= HOOKS_RELOAD_MERGE;
        else if (arg_is(&c->argv[j], "noflush")) flags |= HOOKS_RELOAD_NOFLUSH;
        else if (arg_is(&c->argv[j], "nosave")) flags |= HOOKS_RELOAD_NOSAVE;
        else {
            reply_error(c, "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    char err[512];
    int rc = hooks_debug_reload(flags, err, sizeof err);
    if (rc == 0) reply_ok(c);
    else if (rc < 0) reply_error(c, err);
    else reply_error(c, "ERR DEBUG RELOAD needs the snapshot module");
}

static void debug_loadaof(client *c) {
    char err[512];
    int rc = hooks_debug_loadaof(err, sizeof err);
    if (rc == 0) reply_ok(c);
    else if (rc < 0) reply_error(c, err);
    else reply_error(c, "ERR DEBUG LOADAOF needs the AOF module");
}

static void debug_sleep(client *c) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", (int)(c->argv[2].len < 63 ? c->argv[2].len : 63),
             c->argv[2].p);
    double secs = strtod(buf, NULL);
    if (secs < 0) secs = 0;
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    nanosleep(&ts, NULL);
    reply_ok(c);
}

/* A write to a read-only page (what 7.0 does: the compiler cannot see
 * through it). */
static void debug_segfault(void) {
    volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *p = 'x';
}

/* A switch "<0|1>" parsed as Redis's atoi (anything else reads as 0). */
static int arg_atoi(const arg *a) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.*s", (int)(a->len < 31 ? a->len : 31), a->p);
    return atoi(buf);
}

int debug_deny_scripts_disabled; /* SET-DISABLE-DENY-SCRIPTS (script_lua.c reads it) */

void cmd_debug(client *c) {
    const arg *sub = &c->argv[1];
    int argc = c->argc;
    if (argc == 2 && arg_is(sub, "help")) cmd_reply_help(c, debug_help);
    else if (arg_is(sub, "segfault")) debug_segfault();
    else if (arg_is(sub, "panic"))
        crash_panic(__FILE__, __LINE__, "DEBUG PANIC called at Unix time %lld",
                    (long long)time(NULL));
    else if (arg_is(sub, "assert")) crash_assert(c, "1 == 2", __FILE__, __LINE__);
    else if (arg_is(sub, "log") && argc == 3) {
        log_warning("DEBUG LOG: %.*s", (int)c->argv[2].len, c->argv[2].p);
        reply_ok(c);
    } else if (arg_is(sub, "error") && argc == 3) debug_error(c);
    else if (arg_is(sub, "reload")) debug_reload(c);
    else if (arg_is(sub, "loadaof")) debug_loadaof(c);
    else if (arg_is(sub, "object") && argc == 3) debug_object(c);
    else if (arg_is(sub, "listpack") && argc == 3) debug_listpack(c);
    else if (arg_is(sub, "populate") && argc >= 3 && argc <= 5) debug_populate(c);
    else if (arg_is(sub, "digest") && argc == 2) debug_digest(c);
    else if (arg_is(sub, "digest-value") && argc >= 2) debug_digest_value_cmd(c);
    else if (arg_is(sub, "protocol") && argc == 3) debug_protocol(c);
    else if (arg_is(sub, "sleep") && argc == 3) debug_sleep(c);
    else if (arg_is(sub, "set-active-expire") && argc == 3) {
        db_set_active_expire(arg_atoi(&c->argv[2]) != 0);
        reply_ok(c);
    } else if (arg_is(sub, "quicklist-packed-threshold") && argc == 3) {
        debug_quicklist_threshold(c);
    } else if ((arg_is(sub, "set-skip-checksum-validation") || arg_is(sub, "aof-flush-sleep") ||
                arg_is(sub, "pause-cron")) && argc == 3) {
        reply_ok(c); /* testing switches of Redis's internals: doc/compat.md */
    } else if (arg_is(sub, "set-disable-deny-scripts") && argc == 3) {
        debug_deny_scripts_disabled = arg_atoi(&c->argv[2]) != 0;
        reply_ok(c);
    } else if (arg_is(sub, "replybuffer") && argc == 4) debug_replybuffer(c);
    else if (arg_is(sub, "htstats") && argc == 3) debug_htstats(c);
    else if (arg_is(sub, "htstats-key") && argc == 3) debug_htstats_key(c);
    else if (arg_is(sub, "change-repl-id") && argc == 2) {
        if (hooks_debug_change_repl_id() != 0) {
            reply_error(c, "ERR DEBUG CHANGE-REPL-ID needs the replication module");
            return;
        }
        reply_ok(c);
    } else {
        reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. "
                        "Try DEBUG HELP.", (int)sub->len, sub->p);
    }
}
