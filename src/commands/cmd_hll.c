/* cmd_hll: HyperLogLog on strings (PFADD PFCOUNT PFMERGE PFDEBUG
 * PFSELFTEST) with Redis 7.0's encoding (hll.h), replies, errors, keyspace
 * events and propagation.
 *
 * A change goes through db_write and obj_writable as SETRANGE's does: the
 * value the forkless serializer may hold is copied before it is changed,
 * and the entry is written between vt_write and vt_write_done. A command
 * that would change nothing (PFADD of elements already counted, PFCOUNT
 * with a valid cached cardinality) does not write at all. PFCOUNT of one key
 * stores the cardinality it computed in the value, as Redis does, and
 * propagates itself so that AOF and replicas hold the same bytes. Main
 * thread only. */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "hll.h"
#include "notify.h"
#include "util.h"

static const char err_invalid[] = "INVALIDOBJ Corrupted HLL object detected";
static const char err_not_hll[] = "WRONGTYPE Key is not a valid HyperLogLog string value.";

/* The entry of key k for an HLL command (Redis's lookup + isHLLObjectOrReply):
 * NULL with *err 0 when absent, NULL with *err 1 after replying WRONGTYPE. */
static vt_entry *lookup_hll(client *c, db *d, const arg *k, int read, int *err) {
    vt_entry *e = db_lookup_typed(c, d, k->p, k->len, OBJ_STRING, read, err);
    if (e && !hll_is_valid(e->val)) {
        reply_error(c, err_not_hll);
        *err = 1;
        return NULL;
    }
    return e;
}

/* Whether PFADD's elements would change the HLL of e (or hit a corrupt
 * encoding, which the write path then reports). */
static int pfadd_changes(client *c, const vt_entry *e) {
    for (int j = 2; j < c->argc; j++)
        if (hll_would_change(e->val, c->argv[j].p, c->argv[j].len) != 0) return 1;
    return 0;
}

void cmd_pfadd(client *c) {
    const arg *k = &c->argv[1];
    db *d = db_get(c->db);
    int err;
    vt_entry *e = lookup_hll(c, d, k, DB_LOOKUP_WRITE, &err);
    if (err) return;
    if (e && !pfadd_changes(c, e)) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    int created;
    e = db_write(d, k->p, k->len, 1, &w, &created);
    if (created) vt_set_val(&w, e, hll_new());
    obj *o = obj_writable(e->val, e->val->len);
    long long updated = created;
    int corrupt = 0;
    for (int j = 2; j < c->argc && !corrupt; j++) {
        int r = hll_add(&o, c->argv[j].p, c->argv[j].len);
        if (r < 0) corrupt = 1;
        else updated += r;
    }
    if (updated && !corrupt) hll_cache_invalidate(o); /* a new key too, as Redis's PFADD */
    e->val = o;
    vt_write_done(&w);
    if (corrupt) { /* as Redis: what was added stays, nothing is propagated */
        reply_error(c, err_invalid);
        return;
    }
    if (updated) {
        notify_keyspace_event(NOTIFY_STRING, "pfadd", k->p, k->len, c->db);
        server_dirty(updated);
    }
    reply_int(c, updated ? 1 : 0);
}

/* PFCOUNT of several keys: the cardinality of their union. */
static void pfcount_union(client *c, db *d) {
    uint8_t *max = xcalloc(1, HLL_REGISTERS);
    for (int j = 1; j < c->argc; j++) {
        int err;
        vt_entry *e = lookup_hll(c, d, &c->argv[j], DB_LOOKUP_READ, &err);
        if (err) goto done;
        if (!e) continue; /* an absent key is an empty HLL */
        if (hll_merge(max, e->val) != 0) {
            reply_error(c, err_invalid);
            goto done;
        }
    }
    reply_int(c, (long long)hll_count_raw(max));
done:
    free(max);
}

void cmd_pfcount(client *c) {
    db *d = db_get(c->db);
    if (c->argc > 2) {
        pfcount_union(c, d);
        return;
    }
    const arg *k = &c->argv[1];
    int err;
    vt_entry *e = lookup_hll(c, d, k, DB_LOOKUP_READ, &err);
    if (err) return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    uint64_t card;
    if (hll_cache_get(e->val, &card)) {
        reply_int(c, (long long)card);
        return;
    }
    int invalid = 0;
    card = hll_count(e->val, &invalid);
    if (invalid) {
        reply_error(c, err_invalid);
        return;
    }
    /* Cache it in the value: a write, as in Redis (signalled, propagated). */
    vt_wr w;
    e = db_write(d, k->p, k->len, 0, &w, NULL);
    assert(e);
    obj *o = obj_writable(e->val, e->val->len);
    hll_cache_set(o, card);
    e->val = o;
    vt_write_done(&w);
    server_dirty(1);
    cmd_propagate(c, c->argc, c->argv);
    reply_int(c, (long long)card);
}

/* PFMERGE's sources (the destination first) merged into max; *dense set
 * when one of them is dense. 0, or -1 after replying an error. */
static int pfmerge_sources(client *c, db *d, uint8_t *max, int *dense) {
    for (int j = 1; j < c->argc; j++) {
        int err;
        vt_entry *e = lookup_hll(c, d, &c->argv[j], DB_LOOKUP_READ, &err);
        if (err) return -1;
        if (!e) continue;
        if (hll_encoding(e->val) == HLL_DENSE) *dense = 1;
        if (hll_merge(max, e->val) != 0) {
            reply_error(c, err_invalid);
            return -1;
        }
    }
    return 0;
}

void cmd_pfmerge(client *c) {
    db *d = db_get(c->db);
    const arg *k = &c->argv[1];
    uint8_t *max = xcalloc(1, HLL_REGISTERS);
    int dense = 0;
    if (pfmerge_sources(c, d, max, &dense) != 0) {
        free(max);
        return;
    }
    vt_wr w;
    int created;
    vt_entry *e = db_write(d, k->p, k->len, 1, &w, &created);
    if (created) vt_set_val(&w, e, hll_new());
    obj *o = obj_writable(e->val, e->val->len);
    /* A dense source makes the destination dense at once, as Redis. The
     * sources were checked, so neither step can meet a corrupt encoding. */
    int rc = dense ? hll_to_dense(&o) : 0;
    for (long j = 0; j < HLL_REGISTERS && rc == 0; j++)
        if (max[j] && hll_set(&o, j, max[j]) < 0) rc = -1;
    hll_cache_invalidate(o);
    e->val = o;
    vt_write_done(&w);
    free(max);
    if (rc != 0) {
        reply_error(c, err_invalid);
        return;
    }
    /* Redis names PFMERGE's event "pfadd" (a mass add). */
    notify_keyspace_event(NOTIFY_STRING, "pfadd", k->p, k->len, c->db);
    server_dirty(1);
    reply_ok(c);
}

/* PFDEBUG's GETREG and TODENSE make a sparse HLL dense (a write, counted so
 * that it is propagated). 0, or -1 after replying the corruption error. */
static int pfdebug_to_dense(client *c, db *d, const arg *k) {
    vt_wr w;
    vt_entry *e = db_write(d, k->p, k->len, 0, &w, NULL);
    assert(e);
    obj *o = obj_writable(e->val, e->val->len);
    int rc = hll_to_dense(&o);
    e->val = o;
    vt_write_done(&w);
    if (rc != 0) {
        reply_error(c, err_invalid);
        return -1;
    }
    server_dirty(1);
    return 0;
}

void cmd_pfdebug(client *c) {
    const arg *sub = &c->argv[1], *k = &c->argv[2];
    db *d = db_get(c->db);
    int err;
    vt_entry *e = lookup_hll(c, d, k, DB_LOOKUP_WRITE, &err);
    if (err) return;
    if (!e) {
        reply_error(c, "ERR The specified key does not exist");
        return;
    }
    int sparse = hll_encoding(e->val) == HLL_SPARSE;
    if (arg_is(sub, "getreg")) {
        if (sparse && pfdebug_to_dense(c, d, k) != 0) return;
        e = db_lookup(d, k->p, k->len);
        reply_array(c, HLL_REGISTERS);
        for (long j = 0; j < HLL_REGISTERS; j++) reply_int(c, hll_dense_get(e->val, j));
    } else if (arg_is(sub, "decode")) {
        if (!sparse) {
            reply_error(c, "ERR HLL encoding is not sparse");
            return;
        }
        size_t n;
        char *s = hll_decode(e->val, &n);
        reply_bulk(c, s, n);
        free(s);
    } else if (arg_is(sub, "encoding")) {
        reply_status(c, sparse ? "sparse" : "dense");
    } else if (arg_is(sub, "todense")) {
        if (sparse && pfdebug_to_dense(c, d, k) != 0) return;
        reply_int(c, sparse);
    } else {
        reply_errorf(c, "ERR Unknown PFDEBUG subcommand '%.*s'", (int)sub->len, sub->p);
    }
}

void cmd_pfselftest(client *c) {
    char err[128];
    if (hll_selftest(err, sizeof err) == 0) reply_ok(c);
    else reply_errorf(c, "ERR %s", err);
}
