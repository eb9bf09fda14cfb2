/* syncsave: a snapshot written by walking the tables in place (see
 * syncsave.h). Main thread or fork child only. */
#include "syncsave.h"

#include <stdio.h>
#include <unistd.h>

#include "db.h"

typedef struct walk_ctx {
    rdb_writer *w;
    int db;
    int failed;
    uint64_t keys;
    int64_t now;
} walk_ctx;

static void put_entry(void *priv, vt_entry *e) {
    walk_ctx *ctx = priv;
    if (ctx->failed) return;
    if (rdb_writer_put_kv(ctx->w, ctx->db, e->val, vt_expire(e)) != 0) ctx->failed = 1;
    else ctx->keys++;
}

int syncsave_write_sink(sink *out, int compress, const rdb_aux *aux, uint64_t *keys,
                        char *err, size_t errlen) {
    rdb_writer *w = rdb_writer_open_sink(out, compress, aux, err, errlen);
    if (!w) return -1;
    walk_ctx ctx = {w, 0, 0, 0, 0};
    for (int i = 0; i < server.cfg.databases && !ctx.failed; i++) {
        vt *t = db_get(i)->t;
        if (vt_size(t) == 0) continue;
        rdb_writer_dbsize(w, i, vt_size(t), vt_expires(t));
        ctx.db = i;
        uint64_t cursor = 0;
        do {
            cursor = vt_scan(t, cursor, 1024, put_entry, &ctx);
        } while (cursor != 0 && !ctx.failed);
    }
    if (ctx.failed) {
        snprintf(err, errlen, "%s", rdb_writer_error(w));
        rdb_writer_abort(w);
        return -1;
    }
    if (rdb_writer_finish(w, err, errlen) != 0) return -1;
    *keys = ctx.keys;
    return 0;
}

int syncsave_write(const char *tmp, const char *path, int compress, const rdb_aux *aux,
                   uint64_t *keys, char *err, size_t errlen) {
    /* tmp, renamed to path when finished, removed when not */
    sink *out = sink_file_open(tmp, path, err, errlen);
    if (!out) return -1;
    int rc = syncsave_write_sink(out, compress, aux, keys, err, errlen);
    sink_free(out);
    return rc;
}
