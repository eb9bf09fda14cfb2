/* cmd_stream: the stream entry commands of Redis 7.0 (XADD XRANGE
 * XREVRANGE XLEN XDEL XTRIM XSETID XREAD, XREAD BLOCK through
 * blocking.h), with Redis's argument checks in its order, its error
 * texts, keyspace events and propagation (XADD's generated id and an
 * approximate trim's effective threshold are propagated, so a replica and
 * the AOF trim exactly what this server trimmed). Consumer groups are
 * cmd_stream_cg.c's. Main thread only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocking.h"
#include "cmd.h"
#include "db.h"
#include "notify.h"
#include "stream_cmd.h"
#include "util.h"

static void notify_stream(client *c, const char *event, const arg *k) {
    notify_keyspace_event(NOTIFY_STREAM, event, k->p, k->len, c->db);
}

/* ---- XADD / XTRIM options (Redis's streamParseAddOrTrimArgsOrReply) ---- */

enum { TRIM_NONE = 0, TRIM_MAXLEN, TRIM_MINID };

typedef struct add_trim_args {
    int strategy;          /* TRIM_* */
    int approx;            /* `~` */
    int threshold_at;      /* argv index of the MAXLEN count / MINID id */
    long long maxlen;
    stream_id minid;
    long long limit;       /* 0: none */
    int nomkstream;        /* XADD's */
    int id_given, seq_given;
    stream_id id;
} add_trim_args;

static int is_token(const arg *a, char t) { return a->len == 1 && a->p[0] == t; }

/* The trim options (and XADD's NOMKSTREAM and id) from argv[2]: the
 * index of XADD's id (argc when there is none), or -1 with the error
 * replied. */
static int parse_add_trim(client *c, add_trim_args *a, int xadd) {
    memset(a, 0, sizeof *a);
    int limit_given = 0, i = 2;
    for (; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const arg *opt = &c->argv[i];
        if (xadd && is_token(opt, '*')) break;
        int maxlen = arg_is(opt, "maxlen");
        if ((maxlen || arg_is(opt, "minid")) && more) {
            if (a->strategy != TRIM_NONE) {
                reply_error(c, "ERR syntax error, MAXLEN and MINID options at the same time are "
                               "not compatible");
                return -1;
            }
            a->approx = 0;
            const arg *next = &c->argv[i + 1];
            if (more >= 2 && is_token(next, '~')) {
                a->approx = 1;
                i++;
            } else if (more >= 2 && is_token(next, '=')) {
                i++;
            }
            if (maxlen) {
                if (!arg_ll(c, &c->argv[i + 1], &a->maxlen)) return -1;
                if (a->maxlen < 0) {
                    reply_error(c, "ERR The MAXLEN argument must be >= 0.");
                    return -1;
                }
            } else if (!stream_parse_id(c, &c->argv[i + 1], 0, 1, NULL, &a->minid)) {
                return -1;
            }
            i++;
            a->strategy = maxlen ? TRIM_MAXLEN : TRIM_MINID;
            a->threshold_at = i;
        } else if (arg_is(opt, "limit") && more) {
            if (!arg_ll(c, &c->argv[i + 1], &a->limit)) return -1;
            if (a->limit < 0) {
                reply_error(c, "ERR The LIMIT argument must be >= 0.");
                return -1;
            }
            limit_given = 1;
            i++;
        } else if (xadd && arg_is(opt, "nomkstream")) {
            a->nomkstream = 1;
        } else if (xadd) {
            if (!stream_parse_id(c, opt, 0, 1, &a->seq_given, &a->id)) return -1;
            a->id_given = 1;
            break;
        } else {
            reply_syntax_error(c);
            return -1;
        }
    }
    if (a->limit && a->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, LIMIT cannot be used without specifying a trimming "
                       "strategy");
        return -1;
    }
    if (!xadd && a->strategy == TRIM_NONE) {
        reply_error(c, "ERR syntax error, XTRIM must be called with a trimming strategy");
        return -1;
    }
    if (c->flags & (CLIENT_MASTER | CLIENT_LOADER)) {
        /* the master's and the AOF's trims were rewritten exact: no limit */
        a->limit = 0;
    } else if (limit_given) {
        if (!a->approx) {
            reply_error(c, "ERR syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else {
        /* `~` does at most 100 nodes' work unless told otherwise */
        a->limit = a->approx ? 100 * server.cfg.compat.stream_node_max_entries : 0;
    }
    return i;
}

/* Nothing an exact check can see to trim: saves a write (and a WATCH
 * touch) when the stream is within bounds. */
static int trim_needed(const obj *s, const add_trim_args *a) {
    const stream_meta *m = stream_meta_get(s);
    if (a->strategy == TRIM_MAXLEN) return m->length > (uint64_t)a->maxlen;
    return m->length > 0 && sid_cmp(m->first_id, a->minid) < 0;
}

static uint64_t do_trim(obj *s, const add_trim_args *a) {
    uint64_t limit = (uint64_t)a->limit;
    if (a->strategy == TRIM_MAXLEN)
        return stream_trim_maxlen(s, (uint64_t)a->maxlen, a->approx, limit);
    return stream_trim_minid(s, a->minid, a->approx, limit);
}

/* A copy of c's argv for propagation, with an approximate trim made the
 * exact one it did (Redis's streamRewriteApproxSpecifier and
 * streamRewriteTrimArgument: `~` becomes `=`, the threshold the stream's
 * length or first id now). bufs holds the new texts (2 * STREAM_ID_STRMAX). */
static arg *prop_argv(client *c, const obj *s, const add_trim_args *a, char *buf) {
    arg *v = xmalloc((size_t)c->argc * sizeof *v);
    memcpy(v, c->argv, (size_t)c->argc * sizeof *v);
    if (a->strategy != TRIM_NONE && a->approx) {
        const stream_meta *m = stream_meta_get(s);
        size_t n;
        if (a->strategy == TRIM_MAXLEN)
            n = (size_t)snprintf(buf, STREAM_ID_STRMAX, "%llu", (unsigned long long)m->length);
        else
            n = sid_format(buf, m->length ? m->first_id : STREAM_ID_MAX); /* as streamGetEdgeID */
        v[a->threshold_at - 1] = (arg){"=", 1};
        v[a->threshold_at] = (arg){buf, n};
    }
    return v;
}

/* ---- XADD ---- */

/* The id XADD adds (Redis's streamAppendItem and streamNextID): 1, or 0
 * with the error replied. */
static int xadd_id(client *c, const add_trim_args *a, stream_id last, stream_id *id) {
    if (a->id_given && a->seq_given) {
        *id = a->id;
    } else if (a->id_given) { /* ms-*: the next seq of that ms, or 0 */
        if (last.ms == a->id.ms) {
            if (last.seq == UINT64_MAX) {
                /* Redis 7.0.15 returns here without setting errno: its
                 * reply is then (nearly always) the "too large" one */
                reply_error(c, "ERR Elements are too large to be stored");
                return 0;
            }
            *id = (stream_id){last.ms, last.seq + 1};
        } else {
            *id = a->id;
        }
    } else {
        int64_t now = wall_ms();
        uint64_t ms = now > 0 ? (uint64_t)now : 0;
        *id = last;
        if (ms > last.ms) *id = (stream_id){ms, 0};
        else sid_incr(id); /* last is not the max id: checked before */
    }
    if (sid_cmp(*id, last) <= 0) {
        reply_error(c, "ERR The ID specified in XADD is equal or smaller than the target stream "
                       "top item");
        return 0;
    }
    return 1;
}

void cmd_xadd(client *c) {
    add_trim_args a;
    int idpos = parse_add_trim(c, &a, 1);
    if (idpos < 0) return;
    int fpos = idpos + 1;
    if (c->argc - fpos < 2 || (c->argc - fpos) % 2) {
        reply_wrong_args(c);
        return;
    }
    if (a.id_given && a.seq_given && sid_is_zero(a.id)) {
        reply_error(c, "ERR The ID specified in XADD must be greater than 0-0");
        return;
    }
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = stream_lookup_write(c, k, &wrong);
    if (wrong) return;
    if (!e && a.nomkstream) {
        reply_null(c);
        return;
    }
    stream_id last = e ? stream_meta_get(e->val)->last_id : STREAM_ID_MIN;
    if (sid_cmp(last, STREAM_ID_MAX) == 0) {
        reply_error(c, "ERR The stream has exhausted the last possible ID, unable to add more "
                       "items");
        return;
    }
    stream_id id;
    if (!xadd_id(c, &a, last, &id)) return;
    size_t nfields = (size_t)(c->argc - fpos) / 2;
    stream_str *fv = xmalloc(2 * nfields * sizeof *fv);
    for (size_t i = 0; i < 2 * nfields; i++)
        fv[i] = (stream_str){c->argv[fpos + (int)i].p, c->argv[fpos + (int)i].len};
    if (!stream_append_fits(fv, nfields)) {
        free(fv);
        reply_error(c, "ERR Elements are too large to be stored");
        return;
    }
    vt_wr w;
    obj *s = stream_write_begin(c, k, 1, &w, &e);
    stream_append(s, id, fv, nfields);
    free(fv);
    stream_reply_id(c, id);
    notify_stream(c, "xadd", k);
    server_dirty(1);
    if (a.strategy != TRIM_NONE && do_trim(s, &a)) notify_stream(c, "xtrim", k);
    /* propagated with the id it got and the trim it did */
    char idbuf[STREAM_ID_STRMAX], tbuf[STREAM_ID_STRMAX];
    arg *v = prop_argv(c, s, &a, tbuf);
    v[idpos] = (arg){idbuf, sid_format(idbuf, id)};
    cmd_propagate(c, c->argc, v);
    free(v);
    stream_write_end(&w);
    block_signal_key(c->db, k->p, k->len); /* XREAD BLOCK / XREADGROUP BLOCK readers */
}

/* ---- XTRIM ---- */

void cmd_xtrim(client *c) {
    add_trim_args a;
    if (parse_add_trim(c, &a, 0) < 0) return;
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = stream_lookup_write(c, k, &wrong);
    if (wrong) return;
    if (!e || !trim_needed(e->val, &a)) {
        reply_int(c, 0);
        return;
    }
    vt_wr w;
    obj *s = stream_write_begin(c, k, 0, &w, &e);
    uint64_t removed = do_trim(s, &a);
    if (removed) {
        notify_stream(c, "xtrim", k);
        server_dirty((long long)removed);
        if (a.approx) {
            char tbuf[STREAM_ID_STRMAX];
            arg *v = prop_argv(c, s, &a, tbuf);
            cmd_propagate(c, c->argc, v);
            free(v);
        }
    }
    stream_write_end(&w);
    reply_int(c, (long long)removed);
}

/* ---- XDEL XLEN ---- */

void cmd_xdel(client *c) {
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = stream_lookup_write(c, k, &wrong);
    if (wrong) return;
    if (!e) {
        reply_int(c, 0);
        return;
    }
    /* every id is checked before anything is deleted */
    int n = c->argc - 2, present = 0;
    stream_id *ids = xmalloc((size_t)n * sizeof *ids);
    for (int j = 0; j < n; j++) {
        if (!stream_parse_id(c, &c->argv[2 + j], 0, 1, NULL, &ids[j])) {
            free(ids);
            return;
        }
        present |= stream_has(e->val, ids[j]);
    }
    long long deleted = 0;
    if (present) {
        vt_wr w;
        obj *s = stream_write_begin(c, k, 0, &w, &e);
        for (int j = 0; j < n; j++) deleted += stream_delete(s, ids[j]);
        stream_write_end(&w);
        notify_stream(c, "xdel", k);
        server_dirty(deleted);
    }
    free(ids);
    reply_int(c, deleted);
}

void cmd_xlen(client *c) {
    int wrong;
    vt_entry *e = stream_lookup(c, &c->argv[1], &wrong);
    if (wrong) return;
    reply_int(c, e ? (long long)stream_len(e->val) : 0);
}

/* ---- XRANGE XREVRANGE ---- */

static void xrange_generic(client *c, int rev) {
    stream_id start, end;
    if (!stream_parse_bound(c, &c->argv[rev ? 3 : 2], 0, &start)) return;
    if (!stream_parse_bound(c, &c->argv[rev ? 2 : 3], 1, &end)) return;
    long long count = -1;
    for (int j = 4; j < c->argc; j++) {
        if (arg_is(&c->argv[j], "count") && j + 1 < c->argc) {
            if (!arg_ll(c, &c->argv[++j], &count)) return;
            if (count < 0) count = 0;
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    int wrong;
    vt_entry *e = stream_lookup(c, &c->argv[1], &wrong);
    if (wrong) return;
    if (!e) {
        reply_array(c, 0);
        return;
    }
    if (count == 0) {
        reply_nil_array(c);
        return;
    }
    stream_reply_range(c, e->val, start, end, count < 0 ? 0 : (size_t)count, rev, NULL);
}

void cmd_xrange(client *c) { xrange_generic(c, 0); }
void cmd_xrevrange(client *c) { xrange_generic(c, 1); }

/* ---- XSETID ---- */

void cmd_xsetid(client *c) {
    stream_id id, max_del = STREAM_ID_MIN;
    long long added = -1;
    if (!stream_parse_id(c, &c->argv[2], 0, 1, NULL, &id)) return;
    for (int i = 3; i < c->argc; i += 2) {
        int more = c->argc - 1 - i;
        if (arg_is(&c->argv[i], "entriesadded") && more) {
            if (!arg_ll(c, &c->argv[i + 1], &added)) return;
            if (added < 0) {
                reply_error(c, "ERR entries_added must be positive");
                return;
            }
        } else if (arg_is(&c->argv[i], "maxdeletedid") && more) {
            if (!stream_parse_id(c, &c->argv[i + 1], 0, 1, NULL, &max_del)) return;
            if (sid_cmp(id, max_del) < 0) {
                reply_error(c, "ERR The ID specified in XSETID is smaller than the provided "
                               "max_deleted_entry_id");
                return;
            }
        } else {
            reply_syntax_error(c);
            return;
        }
    }
    const arg *k = &c->argv[1];
    int wrong;
    vt_entry *e = stream_lookup_write(c, k, &wrong);
    if (wrong) return;
    if (!e) {
        reply_error(c, "ERR no such key");
        return;
    }
    const stream_meta *m = stream_meta_get(e->val);
    if (m->length > 0) {
        stream_id top;
        stream_last_valid_id(e->val, &top);
        if (sid_cmp(id, top) < 0) {
            reply_error(c, "ERR The ID specified in XSETID is smaller than the target stream top "
                           "item");
            return;
        }
        if (added != -1 && m->length > (uint64_t)added) {
            reply_error(c, "ERR The entries_added specified in XSETID is smaller than the target "
                           "stream length");
            return;
        }
    }
    /* Redis's XSETID signals no change of the key (a WATCH of it holds):
     * the table's own write, as the group commands' */
    vt_wr w;
    obj *s = stream_write_groups(c, k, &w, &e);
    stream_meta *mm = stream_meta_mut(s);
    mm->last_id = id;
    if (added != -1) mm->entries_added = (uint64_t)added;
    if (!sid_is_zero(max_del)) mm->max_deleted_id = max_del;
    stream_write_end(&w);
    reply_ok(c);
    server_dirty(1);
    notify_stream(c, "xsetid", k);
}

/* ---- XREAD ---- */

/* Redis's XREAD_BLOCKED_DEFAULT_COUNT: a blocked XREAD without COUNT is
 * served at most this many entries per stream. */
#define XREAD_BLOCKED_COUNT 1000

typedef struct xread_args {
    long long count;       /* 0: all */
    int block;             /* BLOCK given */
    int64_t deadline;
    int first, n;          /* argv index of the first key, streams */
    int lo, cnt;           /* the streams this run reads: all, or the one
                              served (a blocked XREAD run again) */
    int again;             /* a blocked XREAD run again */
} xread_args;

/* XREAD's options: 1, or 0 with the error replied. */
static int xread_parse(client *c, xread_args *x) {
    memset(x, 0, sizeof *x);
    for (int i = 1; i < c->argc; i++) {
        int more = c->argc - 1 - i;
        const arg *o = &c->argv[i];
        if (arg_is(o, "block") && more) {
            if (c->flags & CLIENT_SCRIPT) {
                reply_errorf(c, "ERR %.*s command is not allowed with BLOCK option from scripts",
                             (int)c->argv[0].len, c->argv[0].p);
                return 0;
            }
            if (!block_parse_timeout_ms(c, &c->argv[++i], &x->deadline)) return 0;
            x->block = 1;
        } else if (arg_is(o, "count") && more) {
            if (!arg_ll(c, &c->argv[++i], &x->count)) return 0;
            if (x->count < 0) x->count = 0;
        } else if (arg_is(o, "streams") && more) {
            x->first = i + 1;
            int left = c->argc - x->first;
            if (left % 2) {
                reply_error(c, "ERR Unbalanced XREAD list of streams: for each stream key an ID "
                               "or '$' must be specified.");
                return 0;
            }
            x->n = left / 2;
            break;
        } else if (arg_is(o, "group") && more >= 2) {
            reply_error(c, "ERR The GROUP option is only supported by XREADGROUP. You called "
                           "XREAD instead.");
            return 0;
        } else if (arg_is(o, "noack")) {
            reply_error(c, "ERR The NOACK option is only supported by XREADGROUP. You called "
                           "XREAD instead.");
            return 0;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    if (!x->first) {
        reply_syntax_error(c);
        return 0;
    }
    return 1;
}

/* The ids after which the streams read are read ("$": its last id now,
 * 0-0 when absent; is_dollar[j] set): 1, or 0 with the error replied. */
static int xread_ids(client *c, const xread_args *x, stream_id *ids, char *is_dollar) {
    for (int j = 0; j < x->cnt; j++) {
        int i = x->lo + j;
        const arg *k = &c->argv[x->first + i], *a = &c->argv[x->first + x->n + i];
        int wrong = 0;
        vt_entry *e = x->again ? db_lookup_notouch(db_get(c->db), k->p, k->len)
                               : stream_lookup(c, k, &wrong);
        if (wrong) return 0;
        is_dollar[j] = (char)is_token(a, '$');
        if (is_dollar[j]) {
            ids[j] = e ? stream_meta_get(e->val)->last_id : STREAM_ID_MIN;
        } else if (is_token(a, '>')) {
            reply_error(c, "ERR The > ID can be specified only when calling XREADGROUP using the "
                           "GROUP <group> <consumer> option.");
            return 0;
        } else if (!stream_parse_id(c, a, 0, 1, NULL, &ids[j])) {
            return 0;
        }
    }
    return 1;
}

/* The stream of key i when it has an entry after ids[i], else NULL. A
 * first run compares the last live entry and looks the key up as a read
 * (Redis's second lookupKeyRead: hits, misses, keymiss events); a blocked
 * XREAD run again compares the last id, with no statistics (Redis 7.0's
 * serveClientsBlockedOnStreamKey: entries added and deleted since answer
 * an empty list). */
static const obj *xread_servable(client *c, const xread_args *x, int j, stream_id after) {
    const arg *k = &c->argv[x->first + x->lo + j];
    db *d = db_get(c->db);
    vt_entry *e = x->again ? db_lookup_notouch(d, k->p, k->len) : db_lookup_read(d, k->p, k->len);
    if (!e || e->val->type != OBJ_STREAM) return NULL;
    stream_id top = stream_meta_get(e->val)->last_id;
    if (!x->again) {
        if (stream_len(e->val) == 0) return NULL;
        stream_last_valid_id(e->val, &top);
    }
    return sid_cmp(top, after) > 0 ? e->val : NULL;
}

/* A blocked XREAD run again reads only the stream served (the first
 * time its key is named), as Redis 7.0 answers it. */
static void xread_narrow(client *c, xread_args *x) {
    arg served;
    const arg *k = block_served_key(c, &served);
    x->lo = 0;
    x->cnt = x->n;
    x->again = k != NULL;
    if (!k) return;
    for (int i = 0; i < x->n; i++) {
        const arg *a = &c->argv[x->first + i];
        if (a->len == k->len && memcmp(a->p, k->p, k->len) == 0) {
            x->lo = i;
            x->cnt = 1;
            return;
        }
    }
}

/* Replies the streams that have entries to give: 1, or 0 when none has. */
static int xread_reply(client *c, const xread_args *x, const stream_id *ids) {
    long long count = x->count;
    if (x->again && count == 0) count = XREAD_BLOCKED_COUNT;
    int nserve = 0;
    const obj **ready = xmalloc((size_t)x->cnt * sizeof *ready);
    for (int j = 0; j < x->cnt; j++) {
        ready[j] = xread_servable(c, x, j, ids[j]);
        nserve += ready[j] != NULL;
    }
    if (nserve) {
        if (c->resp >= 3) reply_map(c, nserve);
        else reply_array(c, nserve);
        for (int j = 0; j < x->cnt; j++) {
            if (!ready[j]) continue;
            if (c->resp < 3) reply_array(c, 2);
            const arg *k = &c->argv[x->first + x->lo + j];
            reply_bulk(c, k->p, k->len);
            stream_id start = ids[j];
            sid_incr(&start); /* ids[j] is below the top id: not the max */
            stream_reply_range(c, ready[j], start, STREAM_ID_MAX, (size_t)count, 0, NULL);
        }
    }
    free(ready);
    return nserve > 0;
}

void cmd_xread(client *c) {
    xread_args x;
    if (!xread_parse(c, &x)) return;
    xread_narrow(c, &x);
    stream_id *ids = xmalloc((size_t)x.cnt * sizeof *ids);
    char *is_dollar = xmalloc((size_t)x.cnt);
    if (!xread_ids(c, &x, ids, is_dollar) || xread_reply(c, &x, ids)) goto out;
    if (!x.block || !block_allowed(c)) {
        reply_nil_array(c); /* nothing, or may not wait: as on timeout */
        goto out;
    }
    block_on_streams(c, &c->argv[x.first + x.lo], x.cnt, x.deadline, 0);
    if (!x.again) /* "$" is the last id at the time the client blocked */
        for (int i = 0; i < x.n; i++) {
            if (!is_dollar[i]) continue;
            char buf[STREAM_ID_STRMAX];
            block_set_arg(c, x.first + x.n + i, buf, sid_format(buf, ids[i]));
        }
out:
    free(ids);
    free(is_dollar);
}
