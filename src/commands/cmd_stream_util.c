/* cmd_stream_util: the stream commands' shared parts (stream_cmd.h): key
 * lookup and write framing, id parsing with Redis 7.0's error replies,
 * and the entry replies. Main thread only. */
#include <string.h>

#include "cmd.h"
#include "db.h"
#include "stream_cmd.h"

vt_entry *stream_lookup(client *c, const arg *k, int *wrong) {
    return db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_STREAM, DB_LOOKUP_READ, wrong);
}

vt_entry *stream_lookup_write(client *c, const arg *k, int *wrong) {
    return db_lookup_typed(c, db_get(c->db), k->p, k->len, OBJ_STREAM, DB_LOOKUP_WRITE, wrong);
}

obj *stream_write_begin(client *c, const arg *k, int create, vt_wr *w, vt_entry **ep) {
    int created;
    vt_entry *e = db_write(db_get(c->db), k->p, k->len, create, w, &created);
    if (!e) return NULL;
    if (created) vt_set_val(w, e, stream_new());
    e->val = obj_coll_writable(e->val);
    *ep = e;
    return e->val;
}

void stream_write_end(vt_wr *w) { vt_write_done(w); }

int stream_parse_id(client *c, const arg *a, uint64_t missing_seq, int strict, int *seq_given,
                    stream_id *out) {
    if (seq_given) *seq_given = 1;
    if (a->len == 1 && (a->p[0] == '-' || a->p[0] == '+')) {
        if (strict) goto invalid;
        *out = a->p[0] == '-' ? STREAM_ID_MIN : STREAM_ID_MAX;
        return 1;
    }
    if (seq_given && a->len >= 2 && a->p[a->len - 2] == '-' && a->p[a->len - 1] == '*' &&
        memchr(a->p, '-', a->len) == a->p + a->len - 2) {
        /* "ms-*": the seq is the command's to choose */
        if (!sid_parse(a->p, a->len - 2, 0, out)) goto invalid;
        *seq_given = 0;
        return 1;
    }
    if (sid_parse(a->p, a->len, missing_seq, out)) return 1;
invalid:
    reply_error(c, STREAM_ERR_INVALID_ID);
    return 0;
}

int stream_parse_bound(client *c, const arg *a, int end, stream_id *out) {
    if (a->len > 1 && a->p[0] == '(') {
        arg rest = {a->p + 1, a->len - 1};
        if (!stream_parse_id(c, &rest, end ? UINT64_MAX : 0, 1, NULL, out)) return 0;
        /* an exclusive bound steps inward */
        if (!(end ? sid_decr(out) : sid_incr(out))) {
            reply_error(c, end ? "ERR invalid end ID for the interval"
                               : "ERR invalid start ID for the interval");
            return 0;
        }
        return 1;
    }
    return stream_parse_id(c, a, end ? UINT64_MAX : 0, 0, NULL, out);
}

int stream_last_valid_id(const obj *s, stream_id *out) {
    stream_iter it;
    size_t nf;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 1);
    if (stream_iter_next(&it, out, &nf)) return 1;
    *out = STREAM_ID_MIN;
    return 0;
}

void stream_reply_id(client *c, stream_id id) {
    char buf[STREAM_ID_STRMAX];
    size_t n = sid_format(buf, id);
    reply_bulk(c, buf, n);
}

void stream_reply_entry(client *c, stream_iter *it, stream_id id, size_t nfields) {
    reply_array(c, 2);
    stream_reply_id(c, id);
    reply_array(c, (long long)(2 * nfields));
    for (size_t i = 0; i < nfields; i++) {
        stream_str f, v;
        stream_iter_field(it, &f, &v);
        reply_bulk(c, f.p, f.len);
        reply_bulk(c, v.p, v.len);
    }
}

size_t stream_reply_range(client *c, const obj *s, stream_id start, stream_id end, size_t count,
                          int reverse, stream_id *last) {
    stream_iter it;
    stream_id id;
    size_t nf, n = 0;
    /* a counting pass first: the reply's length comes before its entries */
    stream_iter_init(&it, s, start, end, reverse);
    while ((count == 0 || n < count) && stream_iter_next(&it, &id, &nf)) n++;
    reply_array(c, (long long)n);
    stream_iter_init(&it, s, start, end, reverse);
    for (size_t i = 0; i < n; i++) {
        int ok = stream_iter_next(&it, &id, &nf);
        (void)ok;
        stream_reply_entry(c, &it, id, nf);
        if (last) *last = id;
    }
    return n;
}

int stream_range_has_tombstones(const obj *s, stream_id start, const stream_id *end) {
    const stream_meta *m = stream_meta_get(s);
    if (m->length == 0 || sid_is_zero(m->max_deleted_id)) return 0;
    if (sid_cmp(m->first_id, m->max_deleted_id) > 0) return 0; /* all before the first */
    stream_id hi = end ? *end : STREAM_ID_MAX;
    return sid_cmp(start, m->max_deleted_id) <= 0 && sid_cmp(m->max_deleted_id, hi) <= 0;
}

int64_t stream_estimate_entries_read(const obj *s, stream_id id) {
    const stream_meta *m = stream_meta_get(s);
    if (m->entries_added == 0) return 0;
    if (m->length == 0 && sid_cmp(id, m->last_id) < 1) return (int64_t)m->entries_added;
    int cmp_last = sid_cmp(id, m->last_id);
    if (cmp_last == 0) return (int64_t)m->entries_added;
    if (cmp_last > 0) return STREAM_ENTRIES_READ_INVALID; /* a future id */
    if (sid_is_zero(m->max_deleted_id) || sid_cmp(m->max_deleted_id, m->first_id) < 0) {
        /* no deletion ahead of the first entry: the count is exact */
        int cmp_first = sid_cmp(id, m->first_id);
        if (cmp_first < 0) return (int64_t)(m->entries_added - m->length);
        if (cmp_first == 0) return (int64_t)(m->entries_added - m->length + 1);
    }
    return STREAM_ENTRIES_READ_INVALID;
}

int stream_group_lag(const obj *s, const stream_group *g, int64_t *lag) {
    const stream_meta *m = stream_meta_get(s);
    if (m->entries_added == 0) {
        *lag = 0;
        return 1;
    }
    if (g->entries_read != STREAM_ENTRIES_READ_INVALID &&
        !stream_range_has_tombstones(s, g->last_id, NULL)) {
        *lag = (int64_t)m->entries_added - g->entries_read;
        return 1;
    }
    int64_t read = stream_estimate_entries_read(s, g->last_id);
    if (read == STREAM_ENTRIES_READ_INVALID) return 0;
    *lag = (int64_t)m->entries_added - read;
    return 1;
}

void stream_reply_sub_syntax(client *c, const char *cmd) {
    const arg *a = &c->argv[1];
    reply_errorf(c, "ERR unknown subcommand or wrong number of arguments for '%.*s'. Try %s HELP.",
                 (int)(a->len > 128 ? 128 : a->len), a->p, cmd);
}
