/* test_t_stream: the stream type's API (t_stream.h) on its own: ids
 * (parse, format, order, +1/-1), appends and iteration both ways with
 * same and other fields, Redis's node cuts (stream-node-max-entries /
 * -bytes) and listpack sizes, XDEL's marks and node removal with first_id
 * and max_deleted_id, trims (MAXLEN and MINID, exact and approximate,
 * LIMIT), groups, consumers and pending entries, loading node by node,
 * a copy shared with a reader left untouched by writes, and random
 * operations checked against a sorted-array model. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "inproc.h"
#include "server.h"
#include "t_stream.h"
#include "testrand.h"

static void setup(void) { inproc_conf(); }

static void teardown(void) { conf_free(&server.cfg); }

static stream_id ID(uint64_t ms, uint64_t seq) { return (stream_id){ms, seq}; }

/* Appends ms-seq with fields "f<k>"="v<ms>" for k < nf. */
static void add(obj *s, uint64_t ms, uint64_t seq, int nf) {
    char fb[8][16], vb[8][32];
    stream_str fv[16];
    for (int k = 0; k < nf; k++) {
        snprintf(fb[k], sizeof fb[k], "f%d", k);
        snprintf(vb[k], sizeof vb[k], "v%llu", (unsigned long long)ms);
        fv[2 * k] = (stream_str){fb[k], strlen(fb[k])};
        fv[2 * k + 1] = (stream_str){vb[k], strlen(vb[k])};
    }
    stream_append(s, ID(ms, seq), fv, (size_t)nf);
}

/* The live entries in [a, b] as "ms-seq:f=v,f=v ..." (reverse when rev). */
static char *dump(const obj *s, stream_id a, stream_id b, int rev) {
    static char buf[1 << 16];
    size_t n = 0;
    stream_iter it;
    stream_id id;
    size_t nf;
    buf[0] = '\0';
    stream_iter_init(&it, s, a, b, rev);
    while (stream_iter_next(&it, &id, &nf)) {
        char ids[STREAM_ID_STRMAX];
        sid_format(ids, id);
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s:", n ? " " : "", ids);
        for (size_t i = 0; i < nf; i++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%.*s=%.*s", i ? "," : "",
                                  (int)f.len, f.p, (int)v.len, v.p);
        }
        ck_assert(n < sizeof buf - 64);
    }
    return buf;
}

START_TEST(ids)
{
    stream_id id;
    ck_assert(sid_parse("5-3", 3, 0, &id) && id.ms == 5 && id.seq == 3);
    ck_assert(sid_parse("7", 1, 9, &id) && id.ms == 7 && id.seq == 9);
    ck_assert(sid_parse("007-+1", 6, 0, &id) && id.ms == 7 && id.seq == 1); /* strtoull's */
    ck_assert(sid_parse("18446744073709551615-18446744073709551615", 41, 0, &id));
    ck_assert(id.ms == UINT64_MAX && id.seq == UINT64_MAX);
    ck_assert(!sid_parse("18446744073709551616", 20, 0, &id));
    ck_assert(!sid_parse("-1", 2, 0, &id));
    ck_assert(!sid_parse("1-", 2, 0, &id));
    ck_assert(!sid_parse("a-1", 3, 0, &id));
    ck_assert(!sid_parse("", 0, 0, &id));
    ck_assert(!sid_parse("1-2-3", 5, 0, &id));
    char buf[STREAM_ID_STRMAX];
    ck_assert_uint_eq(sid_format(buf, ID(UINT64_MAX, UINT64_MAX)), 41);
    ck_assert_str_eq(buf, "18446744073709551615-18446744073709551615");
    id = ID(1, UINT64_MAX);
    ck_assert(sid_incr(&id) && id.ms == 2 && id.seq == 0);
    ck_assert(sid_decr(&id) && id.ms == 1 && id.seq == UINT64_MAX);
    id = STREAM_ID_MAX;
    ck_assert(!sid_incr(&id));
    id = STREAM_ID_MIN;
    ck_assert(!sid_decr(&id));
    ck_assert_int_lt(sid_cmp(ID(1, 5), ID(2, 0)), 0);
    ck_assert_int_gt(sid_cmp(ID(256, 0), ID(255, UINT64_MAX)), 0);
}
END_TEST

START_TEST(append_iterate)
{
    obj *s = stream_new();
    ck_assert_int_eq(s->type, OBJ_STREAM);
    ck_assert_str_eq(obj_encoding_name(s), "stream");
    ck_assert_str_eq(obj_type_name(s->type), "stream");
    add(s, 1, 1, 1);
    add(s, 1, 2, 2);          /* other fields: stored with names */
    add(s, 255, 0, 1);
    add(s, 256, 0, 1);
    add(s, 1ull << 40, 7, 1);
    const stream_meta *m = stream_meta_get(s);
    ck_assert_uint_eq(m->length, 5);
    ck_assert_uint_eq(m->entries_added, 5);
    ck_assert(sid_cmp(m->last_id, ID(1ull << 40, 7)) == 0);
    ck_assert(sid_cmp(m->first_id, ID(1, 1)) == 0);
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 0),
                     "1-1:f0=v1 1-2:f0=v1,f1=v1 255-0:f0=v255 256-0:f0=v256 "
                     "1099511627776-7:f0=v1099511627776");
    ck_assert_str_eq(dump(s, ID(1, 2), ID(256, 0), 1), "256-0:f0=v256 255-0:f0=v255 1-2:f0=v1,f1=v1");
    ck_assert_str_eq(dump(s, ID(2, 0), ID(255, 0), 0), "255-0:f0=v255");
    ck_assert_str_eq(dump(s, ID(2, 0), ID(254, 0), 0), "");
    ck_assert_str_eq(dump(s, ID(0, 0), ID(0, 5), 1), "");
    ck_assert_str_eq(dump(s, ID(300, 0), ID(200, 0), 0), "");
    ck_assert(stream_has(s, ID(255, 0)) && !stream_has(s, ID(255, 1)));
    ck_assert_uint_eq(stream_node_count(s), 1);
    obj_decref(s);
}
END_TEST

/* Node sizes: the listpack of XADD s 1-1 f v is 29 bytes (header 6, master
 * entry 11, entry 11, end 1); node cuts by entries and by bytes. */
START_TEST(nodes)
{
    obj *s = stream_new();
    stream_str fv[2] = {{"f", 1}, {"v", 1}};
    stream_append(s, ID(1, 1), fv, 1);
    stream_node_iter ni;
    stream_node n;
    stream_node_iter_init(&ni, s);
    ck_assert(stream_node_iter_next(&ni, &n));
    ck_assert_uint_eq(n.lp_bytes, 29);
    ck_assert_uint_eq(n.live, 1);
    ck_assert_uint_eq(n.nmaster, 1);
    stream_str f = stream_node_master_field(&n, 0);
    ck_assert(f.len == 1 && f.p[0] == 'f');
    ck_assert(!stream_node_iter_next(&ni, &n));
    obj_decref(s);

    server.cfg.compat.stream_node_max_entries = 3;
    s = stream_new();
    for (uint64_t i = 1; i <= 10; i++) add(s, i, 0, 1);
    ck_assert_uint_eq(stream_node_count(s), 4); /* 3 3 3 1 */
    stream_node_iter_init(&ni, s);
    uint64_t masters[4], k = 0;
    while (stream_node_iter_next(&ni, &n)) masters[k++] = n.master_id.ms;
    ck_assert(masters[0] == 1 && masters[1] == 4 && masters[2] == 7 && masters[3] == 10);
    obj_decref(s);

    server.cfg.compat.stream_node_max_entries = 0;
    server.cfg.compat.stream_node_max_bytes = 50;
    s = stream_new();
    for (uint64_t i = 1; i <= 4; i++) add(s, i, 0, 1);
    /* f0=v<i>: the first listpack is 31 bytes (6 + master 12 + entry 12 +
     * 1), each next entry 12 more; an entry goes to a new node when the
     * listpack's bytes plus its fields' and values' 4 reach 50: 31 + 4,
     * 43 + 4, then 55 + 4 >= 50 */
    ck_assert_uint_eq(stream_node_count(s), 2);
    obj_decref(s);
}
END_TEST

START_TEST(delete_marks)
{
    server.cfg.compat.stream_node_max_entries = 3;
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 7; i++) add(s, i, 0, 1); /* nodes 1-3 4-6 7 */
    ck_assert(stream_delete(s, ID(2, 0)));
    ck_assert(!stream_delete(s, ID(2, 0)));
    ck_assert(!stream_delete(s, ID(9, 0)));
    const stream_meta *m = stream_meta_get(s);
    ck_assert_uint_eq(m->length, 6);
    ck_assert(sid_cmp(m->max_deleted_id, ID(2, 0)) == 0);
    ck_assert(sid_cmp(m->first_id, ID(1, 0)) == 0);
    ck_assert(stream_delete(s, ID(1, 0)));
    ck_assert(sid_cmp(m->first_id, ID(3, 0)) == 0);
    ck_assert(sid_cmp(m->max_deleted_id, ID(2, 0)) == 0);
    ck_assert_uint_eq(stream_node_count(s), 3);
    ck_assert(stream_delete(s, ID(3, 0)));       /* the node's last live entry */
    ck_assert_uint_eq(stream_node_count(s), 2);
    ck_assert(sid_cmp(m->first_id, ID(4, 0)) == 0);
    ck_assert(sid_cmp(m->max_deleted_id, ID(3, 0)) == 0);
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 0),
                     "4-0:f0=v4 5-0:f0=v5 6-0:f0=v6 7-0:f0=v7");
    /* a delete inside the tail node keeps the count of entries: the next
     * append still goes to a new node after 3 */
    ck_assert(stream_delete(s, ID(5, 0)));
    stream_node_iter ni;
    stream_node n;
    stream_node_iter_init(&ni, s);
    ck_assert(stream_node_iter_next(&ni, &n));
    ck_assert(n.live == 2 && n.deleted == 1);
    /* raw iteration sees the deleted entry with its flag */
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init_raw(&it, s, ID(4, 0));
    int seen_deleted = 0;
    while (stream_iter_next(&it, &id, &nf))
        if (id.ms == 5) seen_deleted = stream_iter_flags(&it) & STREAM_FLAG_DELETED;
    ck_assert(seen_deleted);
    for (uint64_t i = 4; i <= 7; i++) stream_delete(s, ID(i, 0));
    ck_assert_uint_eq(m->length, 0);
    ck_assert(sid_is_zero(m->first_id));
    ck_assert_uint_eq(stream_node_count(s), 0);
    ck_assert(sid_cmp(m->last_id, ID(7, 0)) == 0);
    obj_decref(s);
}
END_TEST

/* XSETID may move last_id below deleted entries at the tail (it checks
 * the last live one): an append then drops them, keeping id order. */
START_TEST(append_below_deleted_tail)
{
    server.cfg.compat.stream_node_max_entries = 3;
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 5; i++) add(s, i, 0, 1); /* nodes 1-3, 4-5 */
    ck_assert(stream_delete(s, ID(5, 0)));               /* marked in 4-5 */
    ck_assert(stream_delete(s, ID(4, 0)));               /* node 4-5 goes */
    ck_assert(stream_delete(s, ID(3, 0)));               /* marked in 1-3 */
    ck_assert_uint_eq(stream_len(s), 2);
    ck_assert_uint_eq(stream_node_count(s), 1);
    stream_meta *m = stream_meta_mut(s);
    m->last_id = ID(2, 5);                               /* XSETID to the last live entry's ms */
    add(s, 2, 6, 1);
    add(s, 2, 7, 2);
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 0),
                     "1-0:f0=v1 2-0:f0=v2 2-6:f0=v2 2-7:f0=v2,f1=v2");
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 1),
                     "2-7:f0=v2,f1=v2 2-6:f0=v2 2-0:f0=v2 1-0:f0=v1");
    ck_assert_uint_eq(stream_node_count(s), 2); /* 1 2 2-6 (3 dropped), then 2-7 */
    uint64_t live = 0, all = 0, raw = 0;
    stream_node_iter ni;
    stream_node n;
    stream_node_iter_init(&ni, s);
    while (stream_node_iter_next(&ni, &n)) {
        live += n.live;
        all += n.live + n.deleted;
    }
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init_raw(&it, s, STREAM_ID_MIN);
    while (stream_iter_next(&it, &id, &nf)) raw++;
    ck_assert_uint_eq(live, 4);
    ck_assert_uint_eq(all, raw);
    ck_assert(stream_delete(s, ID(2, 6)) && stream_delete(s, ID(1, 0)));
    ck_assert_uint_eq(stream_len(s), 2);
    obj_decref(s);
}
END_TEST

START_TEST(trims)
{
    server.cfg.compat.stream_node_max_entries = 10;
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 35; i++) add(s, i, 0, 1); /* nodes of 10 10 10 5 */
    /* approx: only whole nodes, while the rest stays >= maxlen */
    ck_assert_uint_eq(stream_trim_maxlen(s, 22, 1, 0), 10);
    ck_assert_uint_eq(stream_len(s), 25);
    ck_assert(sid_cmp(stream_meta_get(s)->first_id, ID(11, 0)) == 0);
    /* LIMIT below a node's entries: nothing */
    ck_assert_uint_eq(stream_trim_maxlen(s, 0, 1, 9), 0);
    /* exact: a node goes, then entries of the next are marked */
    ck_assert_uint_eq(stream_trim_maxlen(s, 12, 0, 0), 13);
    ck_assert_uint_eq(stream_len(s), 12);
    ck_assert(sid_cmp(stream_meta_get(s)->first_id, ID(24, 0)) == 0);
    ck_assert_uint_eq(stream_node_count(s), 2);
    /* MINID: nodes whose last id < minid, then marks */
    ck_assert_uint_eq(stream_trim_minid(s, ID(33, 0), 0, 0), 9);
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 0), "33-0:f0=v33 34-0:f0=v34 35-0:f0=v35");
    ck_assert_uint_eq(stream_trim_minid(s, ID(100, 0), 1, 0), 3);
    ck_assert_uint_eq(stream_len(s), 0);
    ck_assert(sid_is_zero(stream_meta_get(s)->first_id));
    obj_decref(s);
}
END_TEST

START_TEST(groups_pel)
{
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 5; i++) add(s, i, 0, 1);
    stream_group g = {.last_id = ID(0, 0), .entries_read = 0};
    ck_assert(stream_group_create(s, "g2", 2, &g));
    uint64_t g2 = g.gid;
    ck_assert(stream_group_create(s, "g1", 2, &g));
    uint64_t g1 = g.gid;
    ck_assert(g1 != g2);
    ck_assert(!stream_group_create(s, "g1", 2, &g));
    ck_assert_uint_eq(stream_group_count(s), 2);
    stream_group_iter gi;
    stream_str name;
    stream_group_iter_init(&gi, s);
    ck_assert(stream_group_iter_next(&gi, &name, &g) && name.len == 2 && name.p[1] == '1');
    ck_assert(stream_group_iter_next(&gi, &name, &g) && name.p[1] == '2');
    ck_assert(!stream_group_iter_next(&gi, &name, &g));
    g.gid = g1;
    g.last_id = ID(3, 0);
    g.entries_read = 3;
    stream_group_update(s, "g1", 2, &g);
    stream_group gg;
    ck_assert(stream_group_get(s, "g1", 2, &gg) && gg.gid == g1 && gg.entries_read == 3);
    ck_assert(sid_cmp(gg.last_id, ID(3, 0)) == 0);

    stream_consumer a = {.seen_time = 100}, b = {.seen_time = 200}, c;
    ck_assert(stream_consumer_create(s, g1, "alice", 5, &a));
    ck_assert(stream_consumer_create(s, g1, "bob", 3, &b));
    ck_assert(!stream_consumer_create(s, g1, "bob", 3, &c) && c.cid == b.cid);
    ck_assert(stream_consumer_create(s, g2, "alice", 5, &c)); /* another group */
    for (uint64_t i = 1; i <= 3; i++) {
        stream_nack n = {.cid = i == 2 ? b.cid : a.cid, .delivery_time = 1000, .delivery_count = 1};
        ck_assert(stream_pel_put(s, g1, ID(i, 0), &n));
    }
    stream_nack n2 = {.cid = c.cid, .delivery_time = 5, .delivery_count = 1};
    ck_assert(stream_pel_put(s, g2, ID(1, 0), &n2));
    ck_assert_uint_eq(stream_group_pending(s, g1), 3);
    ck_assert_uint_eq(stream_group_pending(s, g2), 1);
    ck_assert_uint_eq(stream_consumer_pending(s, g1, a.cid), 2);
    ck_assert_uint_eq(stream_consumer_pending(s, g1, b.cid), 1);
    /* claim 3-0 from alice to bob */
    stream_nack n = {.cid = b.cid, .delivery_time = 2000, .delivery_count = 2};
    ck_assert(!stream_pel_put(s, g1, ID(3, 0), &n));
    ck_assert_uint_eq(stream_consumer_pending(s, g1, a.cid), 1);
    ck_assert_uint_eq(stream_consumer_pending(s, g1, b.cid), 2);
    stream_pel_iter pi;
    stream_id id;
    stream_pel_iter_init(&pi, s, g1, b.cid, STREAM_ID_MIN, STREAM_ID_MAX);
    ck_assert(stream_pel_iter_next(&pi, &id, &n) && id.ms == 2 && n.delivery_count == 1);
    ck_assert(stream_pel_iter_next(&pi, &id, &n) && id.ms == 3 && n.delivery_count == 2);
    ck_assert(!stream_pel_iter_next(&pi, &id, &n));
    stream_pel_iter_init(&pi, s, g1, STREAM_NO_CONSUMER, ID(2, 0), ID(2, 5));
    ck_assert(stream_pel_iter_next(&pi, &id, &n) && id.ms == 2 && n.cid == b.cid);
    ck_assert(!stream_pel_iter_next(&pi, &id, &n));
    stream_str cn;
    ck_assert(stream_consumer_name(s, g1, b.cid, &cn) && cn.len == 3 && memcmp(cn.p, "bob", 3) == 0);
    /* XACK */
    ck_assert(stream_pel_del(s, g1, ID(1, 0)));
    ck_assert(!stream_pel_del(s, g1, ID(1, 0)));
    ck_assert_uint_eq(stream_consumer_pending(s, g1, a.cid), 0);
    /* consumers in name order, then a delete with its pending entries */
    stream_consumer_iter ci;
    stream_consumer_iter_init(&ci, s, g1);
    ck_assert(stream_consumer_iter_next(&ci, &cn, &c) && cn.len == 5 && c.seen_time == 100);
    ck_assert(stream_consumer_iter_next(&ci, &cn, &c) && cn.len == 3 && c.seen_time == 200);
    ck_assert(!stream_consumer_iter_next(&ci, &cn, &c));
    ck_assert_int_eq(stream_consumer_delete(s, g1, "bob", 3), 2);
    ck_assert_int_eq(stream_consumer_delete(s, g1, "bob", 3), -1);
    ck_assert_uint_eq(stream_group_pending(s, g1), 0);
    b.seen_time = 300;
    stream_consumer_get(s, g1, "alice", 5, &a);
    a.seen_time = 300;
    stream_consumer_update(s, g1, "alice", 5, &a);
    ck_assert(stream_consumer_get(s, g1, "alice", 5, &c) && c.seen_time == 300);
    /* destroy takes the group's consumers and PEL only */
    ck_assert(stream_group_destroy(s, "g1", 2));
    ck_assert(!stream_group_destroy(s, "g1", 2));
    ck_assert(!stream_consumer_get(s, g1, "alice", 5, &c));
    ck_assert_uint_eq(stream_group_pending(s, g2), 1);
    ck_assert(stream_consumer_get(s, g2, "alice", 5, &c));
    ck_assert(stream_load_check(s));
    obj_decref(s);
}
END_TEST

START_TEST(shared_copy)
{
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 2000; i++) add(s, i, 0, 3);
    stream_group g = {.entries_read = -1};
    stream_group_create(s, "g", 1, &g);
    obj_incref(s); /* a save's reference */
    obj *w = obj_coll_writable(s);
    ck_assert_ptr_ne(w, s);
    for (uint64_t i = 2001; i <= 2100; i++) add(w, i, 0, 3);
    stream_delete(w, ID(5, 0));
    stream_trim_maxlen(w, 100, 0, 0);
    stream_group_destroy(w, "g", 1);
    ck_assert_uint_eq(stream_len(s), 2000);
    ck_assert_uint_eq(stream_len(w), 100);
    ck_assert_uint_eq(stream_group_count(s), 1);
    ck_assert(stream_has(s, ID(5, 0)) && !stream_has(w, ID(5, 0)));
    ck_assert(sid_cmp(stream_meta_get(s)->last_id, ID(2000, 0)) == 0);
    ck_assert(sid_cmp(stream_meta_get(w)->last_id, ID(2100, 0)) == 0);
    size_t k = 0;
    stream_iter it;
    stream_id id;
    size_t nf;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) {
        ck_assert_uint_eq(id.ms, ++k);
        ck_assert_uint_eq(nf, 3);
    }
    ck_assert_uint_eq(k, 2000);
    obj_decref(s);
    obj_decref(w);
}
END_TEST

/* The serializer's consuming walk: a save's version of a stream the main
 * thread trimmed frees the trimmed entries as the walk passes them, only
 * while the walk's reference is the only one. */
static size_t consume_walk(obj *s, size_t *retained_mid) {
    stream_iter it;
    stream_id id;
    size_t nf, n = 0;
    stream_iter_init_consume(&it, s);
    while (stream_iter_next(&it, &id, &nf)) {
        ck_assert_uint_eq(id.ms, n + 1);
        for (size_t i = 0; i < nf; i++) {
            stream_str f, v;
            stream_iter_field(&it, &f, &v);
            char want[32];
            snprintf(want, sizeof want, "v%zu", n + 1);
            ck_assert(v.len == strlen(want) && memcmp(v.p, want, v.len) == 0);
        }
        if (++n == 15000) *retained_mid = pt_retained_bytes();
    }
    return n;
}

START_TEST(consume)
{
    obj *s = stream_new();
    for (uint64_t i = 1; i <= 20000; i++) add(s, i, 0, 2);
    /* a save's reference, and the main thread's copy trimmed to its tail */
    obj_incref(s);
    obj *w = obj_coll_writable(s);
    stream_trim_maxlen(w, 100, 0, 0);
    size_t before = pt_retained_bytes(), mid = 0;
    ck_assert_uint_gt(before, 200000); /* the trimmed entries, held by s */
    /* another holder of s: nothing is released */
    obj_incref(s);
    ck_assert_uint_eq(consume_walk(s, &mid), 20000);
    ck_assert_uint_ge(mid, before);
    stream_iter it;
    stream_id id;
    size_t nf, n = 0;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) n++;
    ck_assert_uint_eq(n, 20000); /* still whole */
    obj_decref(s);
    /* the walk's reference alone: released as it goes */
    ck_assert_uint_eq(consume_walk(s, &mid), 20000);
    ck_assert_uint_lt(mid, before / 2);
    obj_decref(s);
    ck_assert_uint_lt(pt_retained_bytes(), 10000);
    ck_assert_uint_eq(stream_len(w), 100);
    obj_decref(w);
}
END_TEST

START_TEST(load)
{
    stream_loader l;
    stream_loader_init(&l);
    stream_str mf[2] = {{"a", 1}, {"b", 1}};
    stream_str fv[4] = {{"a", 1}, {"1", 1}, {"b", 1}, {"2", 1}};
    ck_assert(!stream_loader_entry(&l, ID(1, 0), 0, fv, 2));    /* before any node */
    ck_assert(stream_loader_node(&l, ID(10, 0), mf, 2));
    ck_assert(!stream_loader_entry(&l, ID(9, 0), 0, fv, 2));    /* below its master */
    ck_assert(stream_loader_entry(&l, ID(10, 0), 0, fv, 2));
    ck_assert(stream_loader_entry(&l, ID(11, 0), STREAM_FLAG_DELETED, fv, 2));
    ck_assert(!stream_loader_entry(&l, ID(11, 0), 0, fv, 2));   /* not increasing */
    ck_assert(!stream_loader_entry(&l, ID(12, 0), 4, fv, 2));   /* unknown flag */
    ck_assert(stream_loader_entry(&l, ID(12, 0), 0, fv, 1));
    ck_assert(!stream_loader_node(&l, ID(12, 0), mf, 2));       /* not above the top */
    ck_assert(stream_loader_node(&l, ID(20, 0), mf, 1));
    ck_assert(stream_loader_entry(&l, ID(20, 0), 0, fv, 2));
    obj *s = stream_loader_finish(&l);
    stream_loader_abort(&l); /* after finish: nothing */
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(stream_len(s), 3);
    stream_meta *m = stream_meta_mut(s);
    m->last_id = ID(19, 0);
    ck_assert(!stream_load_check(s));                      /* last id below the top */
    m->last_id = ID(20, 0);
    ck_assert(stream_load_check(s));
    ck_assert_str_eq(dump(s, STREAM_ID_MIN, STREAM_ID_MAX, 0), "10-0:a=1,b=2 12-0:a=1 20-0:a=1,b=2");
    stream_node_iter ni;
    stream_node n;
    stream_node_iter_init(&ni, s);
    ck_assert(stream_node_iter_next(&ni, &n) && n.live == 2 && n.deleted == 1);
    ck_assert(stream_node_iter_next(&ni, &n) && n.live == 1 && n.master_id.ms == 20);
    /* a loaded stream is written as an appended one: append after it */
    add(s, 21, 0, 1);
    ck_assert_uint_eq(stream_len(s), 4);
    obj_decref(s);

    /* a node left without entries; an abandoned load */
    stream_loader_init(&l);
    ck_assert(stream_loader_node(&l, ID(1, 0), mf, 1));
    ck_assert(!stream_loader_node(&l, ID(2, 0), mf, 1));
    stream_loader_abort(&l);
    stream_loader_init(&l);
    ck_assert(stream_loader_node(&l, ID(1, 0), mf, 1));
    ck_assert_ptr_null(stream_loader_finish(&l));
    stream_loader_init(&l);
    ck_assert(stream_loader_node(&l, ID(1, 0), mf, 1));
    ck_assert(stream_loader_entry(&l, ID(1, 0), 0, fv, 1));
    stream_loader_abort(&l);
}
END_TEST


/* ---- a random model: the live entries as a sorted array ---- */

#define MODEL_MAX 4096
typedef struct model {
    stream_id id[MODEL_MAX];
    int nf[MODEL_MAX];
    size_t n;
} model;

/* Checks s against the model: live entries both ways (ids and fields),
 * length, first id, node counts against the raw entries, stream_has. */
static void check_model(const obj *s, const model *m) {
    const stream_meta *meta = stream_meta_get(s);
    ck_assert_uint_eq(meta->length, m->n);
    if (m->n) ck_assert(sid_cmp(meta->first_id, m->id[0]) == 0);
    else ck_assert(sid_is_zero(meta->first_id));
    stream_iter it;
    stream_id id;
    size_t nf, k = 0;
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 0);
    while (stream_iter_next(&it, &id, &nf)) {
        ck_assert_uint_lt(k, m->n);
        ck_assert(sid_cmp(id, m->id[k]) == 0);
        ck_assert_uint_eq(nf, (size_t)m->nf[k]);
        for (size_t f = 0; f < nf; f++) {
            stream_str fs, vs;
            stream_iter_field(&it, &fs, &vs);
            char want[32];
            snprintf(want, sizeof want, "v%llu", (unsigned long long)id.ms);
            ck_assert(fs.len >= 2 && fs.p[0] == 'f' && (size_t)(fs.p[1] - '0') == f);
            ck_assert(vs.len == strlen(want) && memcmp(vs.p, want, vs.len) == 0);
        }
        k++;
    }
    ck_assert_uint_eq(k, m->n);
    stream_iter_init(&it, s, STREAM_ID_MIN, STREAM_ID_MAX, 1);
    while (stream_iter_next(&it, &id, &nf)) ck_assert(sid_cmp(id, m->id[--k]) == 0);
    ck_assert_uint_eq(k, 0);
    /* nodes: live counts add up, live + deleted = the raw entries */
    uint64_t live = 0, all = 0, raw = 0;
    stream_node_iter ni;
    stream_node nd;
    stream_node_iter_init(&ni, s);
    while (stream_node_iter_next(&ni, &nd)) {
        live += nd.live;
        all += nd.live + nd.deleted;
        ck_assert(nd.live + nd.deleted > 0);
    }
    stream_iter_init_raw(&it, s, STREAM_ID_MIN);
    while (stream_iter_next(&it, &id, &nf)) raw++;
    ck_assert_uint_eq(live, m->n);
    ck_assert_uint_eq(all, raw);
    for (size_t i = 0; i < m->n; i += 7) ck_assert(stream_has(s, m->id[i]));
}

static void model_drop(model *m, size_t i) {
    memmove(m->id + i, m->id + i + 1, (m->n - i - 1) * sizeof m->id[0]);
    memmove(m->nf + i, m->nf + i + 1, (m->n - i - 1) * sizeof m->nf[0]);
    m->n--;
}

/* Random appends, deletes and trims of every kind on a stream with small
 * nodes, checked against the model after each step; now and then a
 * shared copy is taken and checked later against the model of its time. */
START_TEST(random_model)
{
    rnd_seed_env("random_model", "VT_TEST_SEED");
    static model m, saved;
    m.n = 0;
    server.cfg.compat.stream_node_max_entries = (long long)rnd_in(0, 12);
    server.cfg.compat.stream_node_max_bytes = rnd_int(2) ? 0 : (long long)rnd_in(40, 400);
    obj *s = stream_new(), *snap = NULL;
    uint64_t ms = 1;
    for (int step = 0; step < 3000; step++) {
        int op = rnd_int(100);
        if (op < 55 && m.n < MODEL_MAX) {
            ms += (uint64_t)rnd_in(0, 3);
            uint64_t seq = stream_meta_get(s)->last_id.ms == ms
                               ? stream_meta_get(s)->last_id.seq + 1 : 0;
            int nf = 1 + rnd_int(3);
            if (!snap && rnd_int(50) == 0) {
                obj_incref(s);
                snap = s;
                saved = m;
                s = obj_coll_writable(s);
            }
            add(s, ms, seq, nf);
            m.id[m.n] = ID(ms, seq);
            m.nf[m.n++] = nf;
        } else if (op < 80) {
            if (!m.n) continue;
            size_t i = rnd_below(m.n);
            ck_assert(stream_delete(s, m.id[i]));
            ck_assert(sid_cmp(stream_meta_get(s)->max_deleted_id, m.id[i]) >= 0);
            model_drop(&m, i);
        } else if (op < 90) {
            uint64_t maxlen = rnd_below(m.n + 2);
            int approx = rnd_int(2);
            uint64_t limit = approx && rnd_int(2) ? rnd_below(30) : 0;
            uint64_t before = m.n, r = stream_trim_maxlen(s, maxlen, approx, limit);
            ck_assert_uint_le(r, before);
            if (!approx) ck_assert_uint_eq(before - r, before > maxlen ? maxlen : before);
            else ck_assert(before - r >= (maxlen < before ? maxlen : before));
            while (r--) model_drop(&m, 0);
        } else {
            stream_id minid = m.n ? m.id[rnd_below(m.n)] : ID(ms, 0);
            int approx = rnd_int(2);
            uint64_t r = stream_trim_minid(s, minid, approx, 0);
            size_t below = 0;
            while (below < m.n && sid_cmp(m.id[below], minid) < 0) below++;
            if (!approx) ck_assert_uint_eq(r, below);
            else ck_assert_uint_le(r, below);
            while (r--) model_drop(&m, 0);
        }
        check_model(s, &m);
        if (snap && rnd_int(200) == 0) {
            check_model(snap, &saved);
            obj_decref(snap);
            snap = NULL;
        }
    }
    if (snap) {
        check_model(snap, &saved);
        obj_decref(snap);
    }
    obj_decref(s);
}
END_TEST

int main(void) {
    Suite *su = suite_create("t_stream");
    TCase *tc = tcase_create("t_stream");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, ids);
    tcase_add_test(tc, append_iterate);
    tcase_add_test(tc, nodes);
    tcase_add_test(tc, delete_marks);
    tcase_add_test(tc, append_below_deleted_tail);
    tcase_add_test(tc, trims);
    tcase_add_test(tc, groups_pel);
    tcase_add_test(tc, shared_copy);
    tcase_add_test(tc, load);
    tcase_add_test(tc, consume);
    tcase_add_test(tc, random_model);
    suite_add_tcase(su, tc);
    SRunner *sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
