/* debug_digest: DEBUG DIGEST and DIGEST-VALUE, the digests of Redis 7.0
 * (see debug.h). Two ways to fold a SHA1 into a running 20-byte digest:
 * xor_digest (order does not matter: set members, hash fields, keys) and
 * mix_digest (digest = SHA1(digest ^ SHA1(data)): order matters: list
 * elements, stream entries). Every value is walked through its type's
 * iterator, so the digest depends on the content only, never on how verso
 * stores it. Main thread only. */
#include <arpa/inet.h>
#include <assert.h>
#include <nettle/sha1.h>
#include <stdio.h>
#include <string.h>

#include "db.h"
#include "debug.h"
#include "obj.h"
#include "t_hash.h"
#include "t_list.h"
#include "t_set.h"
#include "t_stream.h"
#include "t_zset.h"
#include "util.h"

static void sha1_of(const void *p, size_t n, uint8_t out[DEBUG_DIGEST_LEN]) {
    struct sha1_ctx ctx;
    sha1_init(&ctx);
    sha1_update(&ctx, n, p);
    sha1_digest(&ctx, DEBUG_DIGEST_LEN, out);
}

static void xor_digest(uint8_t d[DEBUG_DIGEST_LEN], const void *p, size_t n) {
    uint8_t h[DEBUG_DIGEST_LEN];
    sha1_of(p, n, h);
    for (int i = 0; i < DEBUG_DIGEST_LEN; i++) d[i] ^= h[i];
}

static void mix_digest(uint8_t d[DEBUG_DIGEST_LEN], const void *p, size_t n) {
    xor_digest(d, p, n);
    uint8_t h[DEBUG_DIGEST_LEN];
    sha1_of(d, DEBUG_DIGEST_LEN, h);
    memcpy(d, h, DEBUG_DIGEST_LEN);
}

/* A member and its score ("%.17g", as 7.0 formats it), xored in. */
static void zset_digest(uint8_t d[DEBUG_DIGEST_LEN], const obj *o) {
    zset_iter it;
    zset_iter_init(&it, o);
    const char *m;
    size_t ml;
    double score;
    while (zset_iter_next(&it, &m, &ml, &score)) {
        uint8_t ele[DEBUG_DIGEST_LEN] = {0};
        char buf[ZSET_SCORE_BUF];
        size_t n = zset_fmt_score(buf, score);
        mix_digest(ele, m, ml);
        mix_digest(ele, buf, n);
        xor_digest(d, ele, DEBUG_DIGEST_LEN);
    }
}

static void hash_digest(uint8_t d[DEBUG_DIGEST_LEN], const obj *o) {
    hash_iter it;
    hash_iter_init(&it, o);
    const char *f, *v;
    size_t fl, vl;
    while (hash_iter_next(&it, &f, &fl, &v, &vl)) {
        uint8_t ele[DEBUG_DIGEST_LEN] = {0};
        mix_digest(ele, f, fl);
        mix_digest(ele, v, vl);
        xor_digest(d, ele, DEBUG_DIGEST_LEN);
    }
}

/* Live entries in order: "<ms>.<seq>", then each field and value. Groups
 * and the stream's metadata are not part of it (as in 7.0). */
static void stream_digest(uint8_t d[DEBUG_DIGEST_LEN], const obj *o) {
    stream_iter it;
    stream_iter_init(&it, o, (stream_id){0, 0}, (stream_id){UINT64_MAX, UINT64_MAX}, 0);
    stream_id id;
    size_t nfields;
    while (stream_iter_next(&it, &id, &nfields)) {
        char buf[48];
        int n = snprintf(buf, sizeof buf, "%llu.%llu", (unsigned long long)id.ms,
                         (unsigned long long)id.seq);
        mix_digest(d, buf, (size_t)n);
        for (size_t i = 0; i < nfields; i++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            mix_digest(d, f.p, f.len);
            mix_digest(d, v.p, v.len);
        }
    }
}

void debug_digest_value(const vt_entry *e, uint8_t d[DEBUG_DIGEST_LEN]) {
    const obj *o = e->val;
    uint32_t type = htonl(o->type);
    mix_digest(d, &type, sizeof type);
    switch (o->type) {
    case OBJ_STRING: {
        char buf[OBJ_INTBUF];
        size_t n;
        const char *p = obj_str(o, buf, &n);
        mix_digest(d, p, n);
        break;
    }
    case OBJ_LIST: {
        list_iter it;
        list_iter_init(&it, o);
        const char *p;
        size_t n;
        while (list_iter_next(&it, &p, &n)) mix_digest(d, p, n);
        break;
    }
    case OBJ_SET: {
        set_iter it;
        set_iter_init(&it, o);
        const char *m;
        size_t ml;
        while (set_iter_next(&it, &m, &ml)) xor_digest(d, m, ml);
        break;
    }
    case OBJ_ZSET: zset_digest(d, o); break;
    case OBJ_HASH: hash_digest(d, o); break;
    case OBJ_STREAM: stream_digest(d, o); break;
    default: assert(!"a value of no known type");
    }
    if (obj_kv_expire(o) != OBJ_KV_NO_EXPIRE) xor_digest(d, "!!expire!!", 10);
}

/* One key: its name mixed, then its value, xored into the database's. */
static void visit_key(void *priv, vt_entry *e) {
    uint8_t *final = priv;
    uint8_t d[DEBUG_DIGEST_LEN] = {0};
    size_t klen;
    const char *k = vt_key(e, &klen);
    mix_digest(d, k, klen);
    debug_digest_value(e, d);
    xor_digest(final, d, DEBUG_DIGEST_LEN);
}

/* Every database that has keys: its number mixed in, then each key xored
 * in. Logically expired keys count until they are deleted, as in Redis.
 * The walk visits each key once: nothing changes the table during it. */
void debug_digest_dataset(uint8_t final[DEBUG_DIGEST_LEN]) {
    memset(final, 0, DEBUG_DIGEST_LEN);
    for (int i = 0; i < server.cfg.databases; i++) {
        db *dbp = db_get(i);
        if (vt_size(dbp->t) == 0) continue;
        uint32_t id = htonl((uint32_t)i);
        mix_digest(final, &id, sizeof id);
        vt_walk(dbp->t, visit_key, final);
    }
}

void debug_digest_hex(const uint8_t d[DEBUG_DIGEST_LEN], char out[2 * DEBUG_DIGEST_LEN + 1]) {
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < DEBUG_DIGEST_LEN; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * DEBUG_DIGEST_LEN] = '\0';
}
