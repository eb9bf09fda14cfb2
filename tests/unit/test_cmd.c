/* Unit tests for cmd: the declarative table's invariants (arity, flags,
 * categories and key specs agree), the lookup of every name in any case,
 * key extraction from key specs (index, keyword, range, numkeys), the
 * dispatcher's write gates, WRONGTYPE for every string command on a value
 * of another type, and SORT's sorting machinery. Commands run through the
 * real dispatcher on an in-process keyspace. */
#include <check.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_sort.h"
#include "db.h"
#include "hooks.h"
#include "inproc.h"
#include "util.h"

/* Runs a command given as words; returns its reply text (static). */
static const char *run(client *c, const char *words) {
    static char out[4096];
    ck_assert_int_eq(inproc_dispatch(c, words), CMD_RAN);
    snprintf(out, sizeof out, "%.*s", (int)c->reply.len, c->reply.data);
    c->argv = NULL;
    return out;
}

/* ---- table invariants ---- */

static void check_entry(const cmd_def *d) {
    ck_assert_ptr_nonnull(d->name);
    ck_assert_ptr_nonnull(d->proc);
    ck_assert_ptr_nonnull(d->group);
    ck_assert_ptr_nonnull(d->summary);
    for (const char *p = d->name; *p; p++) ck_assert(!isupper((unsigned char)*p));
    ck_assert_int_ne(d->arity, 0);
    int min_argc = d->arity > 0 ? d->arity : -d->arity;
    /* flags and categories agree, as Redis derives them */
    ck_assert(!((d->flags & CMD_WRITE) && (d->flags & CMD_READONLY)));
    ck_assert_int_eq(!!(d->flags & CMD_FAST), !!(d->acl & CAT_FAST));
    ck_assert_int_eq(!!(d->acl & CAT_FAST), !(d->acl & CAT_SLOW));
    if (d->flags & CMD_WRITE) ck_assert(d->acl & CAT_WRITE);
    if (d->flags & CMD_ADMIN) ck_assert((d->acl & CAT_ADMIN) && (d->acl & CAT_DANGEROUS));
    /* key specs fit the arity */
    for (int i = 0; i < d->nkey_specs; i++) {
        const cmd_key_spec *s = &d->key_specs[i];
        /* an access flag, or not a key at all (SPUBLISH's channel), as Redis */
        ck_assert(s->flags & (KS_RO | KS_RW | KS_OW | KS_RM | KS_NOT_KEY));
        if (s->bs_type == KS_BS_INDEX) {
            ck_assert_int_ge(s->bs_index, 1);
            if (d->arity > 0) ck_assert_int_lt(s->bs_index, d->arity);
        } else if (s->bs_type == KS_BS_KEYWORD) {
            ck_assert_ptr_nonnull(s->bs_keyword);
        } else {
            ck_assert_int_eq(s->bs_type, KS_BS_UNKNOWN);
            ck_assert_ptr_nonnull(d->getkeys); /* someone must find those keys */
        }
        if (s->fk_type == KS_FK_RANGE || s->fk_type == KS_FK_KEYNUM)
            ck_assert_int_ge(s->fk_keystep, 1);
        if (s->fk_type == KS_FK_RANGE && s->bs_type == KS_BS_INDEX && s->fk_lastkey >= 0 &&
            d->arity > 0)
            ck_assert_int_lt(s->bs_index + s->fk_lastkey, d->arity);
    }
    for (const cmd_arg *a = d->args; a && a->name; a++)
        ck_assert_int_lt(a->key_spec_index, d->nkey_specs);
    /* at the minimal argc, the keys found are inside argv */
    arg *argv = xcalloc((size_t)min_argc, sizeof *argv);
    for (int i = 0; i < min_argc; i++) argv[i] = (arg){"1", 1};
    argv[0] = (arg){d->name, strlen(d->name)};
    if (d->parent) argv[1] = (arg){d->name, strlen(d->name)};
    cmd_keyrefs k = {0};
    cmd_get_keys(d, min_argc, argv, &k);
    for (size_t i = 0; i < k.n; i++) {
        ck_assert_int_ge(k.v[i].pos, 1);
        ck_assert_int_lt(k.v[i].pos, min_argc);
    }
    if (d->nkey_specs && d->key_specs[0].bs_type == KS_BS_INDEX &&
        d->key_specs[0].fk_type == KS_FK_RANGE && !(d->key_specs[0].flags & KS_NOT_KEY))
        ck_assert_uint_ge(k.n, 1);
    cmd_keys_free(&k);
    free(argv);
}

START_TEST(test_table_invariants) {
    inproc_init();
    ck_assert_uint_gt(cmd_count(), 60);
    ck_assert_uint_gt(cmd_count_all(), cmd_count());
    for (size_t i = 0; i < cmd_count_all(); i++) {
        const cmd_def *d = cmd_at_all(i);
        check_entry(d);
        if (d->parent) {
            char want[64];
            snprintf(want, sizeof want, "%s|%s", d->parent->name, d->name);
            ck_assert_str_eq(d->fullname, want);
        } else {
            ck_assert_str_eq(d->fullname, d->name);
        }
    }
}
END_TEST

START_TEST(test_lookup_every_name) {
    inproc_init();
    for (size_t i = 0; i < cmd_count(); i++) {
        const cmd_def *d = cmd_at(i);
        char up[64], mixed[64];
        size_t n = strlen(d->name);
        ck_assert_uint_lt(n, sizeof up);
        for (size_t j = 0; j <= n; j++) {
            up[j] = (char)toupper((unsigned char)d->name[j]);
            mixed[j] = j % 2 ? up[j] : d->name[j];
        }
        ck_assert_ptr_eq(cmd_lookup(d->name, n), d);
        ck_assert_ptr_eq(cmd_lookup(up, n), d);
        ck_assert_ptr_eq(cmd_lookup(mixed, n), d);
        if (n > 1) {
            const cmd_def *p = cmd_lookup(d->name, n - 1); /* a prefix is another name or none */
            ck_assert(p != d);
        }
        for (const cmd_def *s = d->subcmds; s && s->name; s++) {
            arg argv[2] = {{up, n}, {s->name, strlen(s->name)}};
            ck_assert_ptr_eq(cmd_lookup_argv(2, argv, NULL), s);
            ck_assert_ptr_eq(cmd_lookup_sub(d, s->name, strlen(s->name)), s);
            ck_assert_ptr_eq(s->parent, d);
        }
    }
    ck_assert_ptr_null(cmd_lookup("gett", 4));
    ck_assert_ptr_null(cmd_lookup("", 0));
    ck_assert_ptr_null(cmd_lookup("get\0", 4));
    arg bad[2] = {{"CONFIG", 6}, {"nosuch", 6}};
    const cmd_def *container;
    ck_assert_ptr_null(cmd_lookup_argv(2, bad, &container));
    ck_assert_ptr_eq(container, cmd_lookup("config", 6));
    ck_assert_ptr_eq(cmd_lookup_argv(1, bad, NULL), container); /* alone: the container */
}
END_TEST

/* The subsystems' rows (snapshot/, aof/, repl/ register them, inproc_init
 * as the server does) are in the table the invariants walk: top-level
 * after the core's, FUNCTION's DUMP and RESTORE among its subcommands. */
START_TEST(test_registered_rows) {
    inproc_init();
    static const char *const names[] = {"save", "bgsave", "lastsave", "dump", "restore",
                                        "bgrewriteaof", "psync", "sync", "replconf", "wait",
                                        "replicaof", "slaveof", "role"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cmd_def *d = cmd_lookup(names[i], strlen(names[i]));
        ck_assert_msg(d != NULL, "%s", names[i]);
        int listed = 0;
        for (size_t j = 0; j < cmd_count(); j++) listed += cmd_at(j) == d;
        ck_assert_int_eq(listed, 1);
    }
    const cmd_def *fn = cmd_lookup("function", 8);
    const cmd_def *dump = cmd_lookup_sub(fn, "dump", 4), *restore = cmd_lookup_sub(fn, "restore", 7);
    ck_assert_ptr_nonnull(dump);
    ck_assert_ptr_nonnull(restore);
    ck_assert_str_eq(dump->fullname, "function|dump");
    ck_assert_ptr_eq(restore->parent, fn);
    ck_assert_ptr_nonnull(cmd_lookup_sub(fn, "load", 4)); /* the core's own still there */
    int subs = 0;
    for (size_t i = 0; i < cmd_count_all(); i++) subs += cmd_at_all(i)->parent == fn;
    ck_assert_int_eq(subs, 9);
}
END_TEST

/* ---- keys from key specs ---- */

static const char *keys_of(const cmd_def *d, const char *words) {
    static char buf[256], out[256];
    arg argv[32];
    int argc = 0;
    snprintf(buf, sizeof buf, "%s", words);
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) argv[argc++] = (arg){t, strlen(t)};
    cmd_keyrefs k = {0};
    int ok = cmd_get_keys(d, argc, argv, &k);
    size_t o = (size_t)snprintf(out, sizeof out, "%s:", ok ? "ok" : "bad");
    for (size_t i = 0; i < k.n; i++)
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", i ? "," : "",
                              (int)argv[k.v[i].pos].len, argv[k.v[i].pos].p);
    cmd_keys_free(&k);
    return out;
}

/* Spec forms no verso command uses yet, as Redis 7 declares them. */
static const cmd_key_spec zunionstore_keys[] = {
    {.flags = KS_OW | KS_UPDATE, BS_INDEX(1), FK_RANGE(0, 1, 0)},
    {.flags = KS_RO | KS_ACCESS, BS_INDEX(2), FK_KEYNUM(0, 1, 1)},
};
static const cmd_key_spec xread_keys[] = {
    {.flags = KS_RO | KS_ACCESS, BS_KEYWORD("STREAMS", 1), FK_RANGE(-1, 1, 2)},
};
static const cmd_key_spec migrate_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(3), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_ACCESS | KS_DELETE | KS_INCOMPLETE, BS_KEYWORD("KEYS", -2),
     FK_RANGE(-1, 1, 0)},
};
static cmd_def zunionstore = {.name = "zunionstore", .arity = -4, KEY_SPECS(zunionstore_keys)};
static cmd_def xread = {.name = "xread", .arity = -4, KEY_SPECS(xread_keys)};
static cmd_def migrate = {.name = "migrate", .arity = -6, KEY_SPECS(migrate_keys)};

START_TEST(test_get_keys) {
    inproc_init();
    const cmd_def *get = cmd_lookup("get", 3), *mset = cmd_lookup("mset", 4),
                  *del = cmd_lookup("del", 3), *rename = cmd_lookup("rename", 6),
                  *sort = cmd_lookup("sort", 4), *ping = cmd_lookup("ping", 4);
    ck_assert_str_eq(keys_of(get, "GET k"), "ok:k");
    ck_assert_str_eq(keys_of(mset, "MSET a 1 b 2 c 3"), "ok:a,b,c");
    ck_assert_str_eq(keys_of(mset, "MSET a 1 b"), "ok:a,b"); /* variadic: the handler errs */
    ck_assert_str_eq(keys_of(del, "DEL a b c d e f g h i j"), "ok:a,b,c,d,e,f,g,h,i,j");
    ck_assert_str_eq(keys_of(rename, "RENAME a b"), "ok:a,b");
    ck_assert_str_eq(keys_of(ping, "PING"), "bad:");
    ck_assert_str_eq(keys_of(sort, "SORT a BY w GET g LIMIT 0 1 STORE d"), "ok:a,d");
    ck_assert_str_eq(keys_of(sort, "SORT a STORE d1 STORE d2"), "ok:a,d2");
    ck_assert_str_eq(keys_of(cmd_lookup("sort_ro", 7), "SORT_RO a STORE d"), "ok:a");
    /* numkeys */
    ck_assert_str_eq(keys_of(&zunionstore, "ZUNIONSTORE d 3 a b c WEIGHTS 1 2 3"), "ok:d,a,b,c");
    ck_assert_str_eq(keys_of(&zunionstore, "ZUNIONSTORE d 0 WEIGHTS"), "ok:d");
    ck_assert_str_eq(keys_of(&zunionstore, "ZUNIONSTORE d x a"), "bad:");
    ck_assert_str_eq(keys_of(&zunionstore, "ZUNIONSTORE d -1 a"), "bad:");
    ck_assert_str_eq(keys_of(&zunionstore, "ZUNIONSTORE d 5 a"), "ok:d,a"); /* past argc */
    /* keyword, range with limit: half of what follows are keys */
    ck_assert_str_eq(keys_of(&xread, "XREAD COUNT 2 STREAMS s1 s2 0 0"), "ok:s1,s2");
    ck_assert_str_eq(keys_of(&xread, "XREAD COUNT 2 streams s1 0"), "ok:s1");
    ck_assert_str_eq(keys_of(&xread, "XREAD COUNT 2 BLOCK 0"), "ok:");
    /* keyword searched backwards from the end */
    ck_assert_str_eq(keys_of(&migrate, "MIGRATE h p \"\" 0 5 KEYS a b c"), "ok:\"\",a,b,c");
    ck_assert_str_eq(keys_of(&migrate, "MIGRATE h p k 0 5"), "ok:k");
}
END_TEST

/* ---- write gates ---- */

static int gate_calls[8];
#define GATE(i) \
    static const char *gate##i(void) { gate_calls[i]++; return NULL; }
GATE(0) GATE(1) GATE(2) GATE(3) GATE(4) GATE(5)
static const char *gate_refuses(void) { gate_calls[6]++; return "ERR gate 7 says no"; }
static const hooks gate_hooks[7] = {
    {.name = "gate0", .write_gate = gate0}, {.name = "gate1", .write_gate = gate1},
    {.name = "gate2", .write_gate = gate2}, {.name = "gate3", .write_gate = gate3},
    {.name = "gate4", .write_gate = gate4}, {.name = "gate5", .write_gate = gate5},
    {.name = "gate6", .write_gate = gate_refuses}};

/* Finding 13: write_gates[4] dropped every gate after the fourth. Runs
 * last: its gates refuse every write from then on. */
START_TEST(test_seven_write_gates) {
    inproc_init();
    for (int i = 0; i < 7; i++) hooks_register(&gate_hooks[i]);
    client *c = inproc_client();
    ck_assert_str_eq(run(c, "SET k v"), "-ERR gate 7 says no\r\n");
    for (int i = 0; i < 7; i++) ck_assert_int_eq(gate_calls[i], 1);
    ck_assert_str_eq(run(c, "PING"), "+PONG\r\n"); /* not a write: no gate asked */
    for (int i = 0; i < 7; i++) ck_assert_int_eq(gate_calls[i], 1);
    inproc_client_free(c);
}
END_TEST

/* ---- types ---- */

#define WRONGTYPE "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"

/* Plants an empty value of another type under key. */
static void plant(int dbid, const char *key, int type) {
    static const int kinds[2] = {PT_KEYED, PT_KEYED};
    obj *o = obj_new_coll(type, OBJ_ENC_LISTPACK, type == OBJ_ZSET ? 2 : 1, kinds);
    db_set(db_get(dbid), key, strlen(key), o, VT_NO_EXPIRE);
}

START_TEST(test_wrongtype_for_string_commands) {
    inproc_init();
    client *c = inproc_client();
    c->db = 5;
    plant(5, "l", OBJ_LIST);
    static const char *const cmds[] = {
        "GET l", "GETSET l v", "GETDEL l", "GETEX l", "GETEX l PERSIST", "SET l v GET",
        "APPEND l x", "SETRANGE l 0 x", "STRLEN l", "GETRANGE l 0 1",
        "SUBSTR l 0 1", "INCR l", "DECR l", "INCRBY l 2", "DECRBY l 2", "INCRBYFLOAT l 1.5"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        ck_assert_msg(!strcmp(run(c, cmds[i]), WRONGTYPE), "%s", cmds[i]);
        vt_entry *e = db_lookup(db_get(5), "l", 1);
        ck_assert_ptr_nonnull(e);
        ck_assert_int_eq(e->val->type, OBJ_LIST); /* untouched */
    }
    /* SORT sorts lists, sets and sorted sets: a hash is the wrong type */
    plant(5, "h", OBJ_HASH);
    ck_assert_str_eq(run(c, "SORT h"), WRONGTYPE);
    ck_assert_str_eq(run(c, "SORT_RO h"), WRONGTYPE);
    ck_assert_str_eq(run(c, "MGET l nokey"), "*2\r\n$-1\r\n$-1\r\n");
    ck_assert_str_eq(run(c, "TYPE l"), "+list\r\n");
    ck_assert_str_eq(run(c, "SCAN 0 TYPE list"), "*2\r\n$1\r\n0\r\n*1\r\n$1\r\nl\r\n");
    ck_assert_str_eq(run(c, "SCAN 0 TYPE string"), "*2\r\n$1\r\n0\r\n*0\r\n");
    ck_assert_str_eq(run(c, "EXISTS l"), ":1\r\n");
    /* generic commands move the value whatever its type */
    ck_assert_str_eq(run(c, "RENAME l l2"), "+OK\r\n");
    ck_assert_str_eq(run(c, "TYPE l2"), "+list\r\n");
    ck_assert_str_eq(run(c, "MOVE l2 6"), ":1\r\n");
    c->db = 6;
    ck_assert_str_eq(run(c, "TYPE l2"), "+list\r\n");
    ck_assert_str_eq(run(c, "TOUCH l2"), ":1\r\n");
    plant(6, "h", OBJ_HASH);
    ck_assert_str_eq(run(c, "TYPE h"), "+hash\r\n");
    plant(6, "z", OBJ_ZSET);
    ck_assert_str_eq(run(c, "TYPE z"), "+zset\r\n");
    plant(6, "s", OBJ_SET);
    ck_assert_str_eq(run(c, "TYPE s"), "+set\r\n");
    /* SET without GET replaces any type */
    ck_assert_str_eq(run(c, "SET l2 v"), "+OK\r\n");
    ck_assert_str_eq(run(c, "GET l2"), "$1\r\nv\r\n");
    ck_assert_str_eq(run(c, "FLUSHALL"), "+OK\r\n");
    inproc_client_free(c);
}
END_TEST

/* ---- SORT's machinery, fed directly (no collection exists yet) ---- */

static const char *sort_words(client *c, const char *words, const char *elems) {
    static char ebuf[256];
    run(c, "PING"); /* leaves c usable */
    sort_opts o;
    static char buf[512];
    static arg argv[32];
    snprintf(buf, sizeof buf, "%s", words);
    c->argc = 0;
    for (char *t = strtok(buf, " "); t; t = strtok(NULL, " ")) argv[c->argc++] = (arg){t, strlen(t)};
    c->argv = argv;
    c->reply.len = 0;
    ck_assert_int_eq(sort_parse(c, 0, &o), 1);
    snprintf(ebuf, sizeof ebuf, "%s", elems);
    obj **v = NULL;
    size_t n = 0;
    for (char *t = strtok(ebuf, " "); t; t = strtok(NULL, " ")) {
        v = xrealloc(v, (n + 1) * sizeof *v);
        v[n++] = obj_new_value(t, strlen(t));
    }
    sort_run(c, &o, v, n);
    free(o.gets);
    static char out[1024];
    /* the reply without its protocol: elements joined by ' ' (nil as '-') */
    size_t w = 0;
    const char *p = c->reply.data, *end = p + c->reply.len;
    out[0] = '\0';
    if (*p == '-') {
        snprintf(out, sizeof out, "%.*s", (int)(c->reply.len - 2), p);
        return out;
    }
    p = memchr(p, '\n', (size_t)(end - p)) + 1; /* array header */
    while (p < end) {
        if (p[1] == '-') {
            w += (size_t)snprintf(out + w, sizeof out - w, "%s-", w ? " " : "");
            p = memchr(p, '\n', (size_t)(end - p)) + 1;
            continue;
        }
        p = memchr(p, '\n', (size_t)(end - p)) + 1;
        const char *e = memchr(p, '\r', (size_t)(end - p));
        w += (size_t)snprintf(out + w, sizeof out - w, "%s%.*s", w ? " " : "", (int)(e - p), p);
        p = e + 2;
    }
    return out;
}

START_TEST(test_sort_machinery) {
    inproc_init();
    client *c = inproc_client();
    c->db = 7;
    ck_assert_str_eq(sort_words(c, "SORT k", "3 1 2 10 -5 1.5"), "-5 1 1.5 2 3 10");
    ck_assert_str_eq(sort_words(c, "SORT k DESC", "3 1 2 10"), "10 3 2 1");
    ck_assert_str_eq(sort_words(c, "SORT k ALPHA", "3 1 2 10"), "1 10 2 3");
    ck_assert_str_eq(sort_words(c, "SORT k ALPHA DESC", "b c a"), "c b a");
    ck_assert_str_eq(sort_words(c, "SORT k LIMIT 1 2", "4 3 2 1"), "2 3");
    ck_assert_str_eq(sort_words(c, "SORT k LIMIT -5 2", "4 3 2 1"), "1 2");
    ck_assert_str_eq(sort_words(c, "SORT k LIMIT 10 2", "4 3 2 1"), "");
    ck_assert_str_eq(sort_words(c, "SORT k LIMIT 2 -1", "4 3 2 1"), "3 4");
    ck_assert_str_eq(sort_words(c, "SORT k", "1 b"),
                     "-ERR One or more scores can't be converted into double");
    ck_assert_str_eq(sort_words(c, "SORT k", "2 1 2 1"), "1 1 2 2");
    /* BY and GET read string keys; missing ones sort as 0 / read nil */
    run(c, "MSET w_a 3 w_b 1 w_c 2 x_a A x_b B");
    ck_assert_str_eq(sort_words(c, "SORT k BY w_*", "a b c"), "b c a");
    ck_assert_str_eq(sort_words(c, "SORT k BY w_* DESC", "a b c d"), "a c b d");
    ck_assert_str_eq(sort_words(c, "SORT k BY w_* GET x_* GET #", "a b c"), "B b - c A a");
    ck_assert_str_eq(sort_words(c, "SORT k BY nosort", "c a b"), "c a b"); /* no '*': no sort */
    ck_assert_str_eq(sort_words(c, "SORT k BY w_* ALPHA", "a b c d"), "d b c a");
    ck_assert_str_eq(sort_words(c, "SORT k GET nostar", "1"), "-");
    ck_assert_str_eq(sort_words(c, "SORT k BY w_*->f GET x_*->f", "a b"), "- -");
    run(c, "FLUSHALL");
    inproc_client_free(c);
}
END_TEST

int main(void) {
    Suite *s = suite_create("cmd");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_table_invariants);
    tcase_add_test(tc, test_lookup_every_name);
    tcase_add_test(tc, test_registered_rows);
    tcase_add_test(tc, test_get_keys);
    tcase_add_test(tc, test_wrongtype_for_string_commands);
    tcase_add_test(tc, test_sort_machinery);
    tcase_add_test(tc, test_seven_write_gates);
    suite_add_tcase(s, tc);
    return inproc_run(s);
}
