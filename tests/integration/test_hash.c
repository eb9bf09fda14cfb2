/* Integration tests: the hash commands (HSET HSETNX HMSET HGET HMGET HDEL
 * HLEN HSTRLEN HEXISTS HKEYS HVALS HGETALL HINCRBY HINCRBYFLOAT HRANDFIELD
 * HSCAN) against a real server, with Redis 7.0's replies and error texts,
 * the OBJECT ENCODING transitions (listpack -> hashtable), HSCAN's
 * guarantees, HINCRBYFLOAT's propagation, and a randomized test against a
 * model. Run against redis-server too (VERSO_SERVER). Field order is not
 * compared: Redis's listpack keeps insertion order, verso the hash order. */
#include "harness.h"
#include "testcmp.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define ERR_INT "ERR value is not an integer or out of range"
#define ERR_SYNTAX "ERR syntax error"
#define ERR_WRONGTYPE "WRONGTYPE Operation against a key holding the wrong kind of value"

/* ---- helpers --------------------------------------------------------- */

/* The elements of an array reply of bulk strings, copied. */
static char **reply_strs(const redisReply *r, size_t *n)
{
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    char **v = malloc((r->elements + 1) * sizeof *v);
    for (size_t i = 0; i < r->elements; i++) {
        ck_assert_int_eq(r->element[i]->type, REDIS_REPLY_STRING);
        v[i] = strndup(r->element[i]->str, r->element[i]->len);
    }
    *n = r->elements;
    return v;
}

static void free_strs(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

/* A flat field/value array as sorted "field=value" strings. */
static char **pairs_sorted(const redisReply *r, size_t *n)
{
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(r->elements % 2, 0);
    size_t np = r->elements / 2;
    char **v = malloc((np + 1) * sizeof *v);
    for (size_t i = 0; i < np; i++) {
        const redisReply *f = r->element[2 * i], *x = r->element[2 * i + 1];
        ck_assert_int_eq(f->type, REDIS_REPLY_STRING);
        ck_assert_int_eq(x->type, REDIS_REPLY_STRING);
        v[i] = malloc(f->len + x->len + 2);
        sprintf(v[i], "%s=%s", f->str, x->str);
    }
    qsort(v, np, sizeof *v, cmp_str);
    *n = np;
    return v;
}

/* Fails unless the command's array reply, sorted, is exactly the
 * NULL-terminated list want (sorted by the caller). */
#define expect_set(c, want, ...) expect_set_at(__LINE__, c, want, __VA_ARGS__)
static void expect_set_at(int line, redisContext *c, const char *const *want,
                          const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(c, fmt, ap);
    va_end(ap);
    ck_assert_msg(r != NULL, "line %d: no reply", line);
    size_t n;
    char **v = reply_strs(r, &n);
    qsort(v, n, sizeof *v, cmp_str);
    size_t nw = 0;
    while (want[nw]) nw++;
    ck_assert_msg(n == nw, "line %d: %zu elements, want %zu", line, n, nw);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(v[i], want[i]) == 0, "line %d: element %zu '%s', want '%s'",
                      line, i, v[i], want[i]);
    free_strs(v, n);
    freeReplyObject(r);
}

/* HGETALL key as sorted "field=value" strings equals the NULL-terminated
 * sorted list want. */
#define expect_hash(c, key, want) expect_hash_at(__LINE__, c, key, want)
static void expect_hash_at(int line, redisContext *c, const char *key, const char *const *want)
{
    redisReply *r = cmd(c, "HGETALL %s", key);
    size_t n;
    char **v = pairs_sorted(r, &n);
    size_t nw = 0;
    while (want[nw]) nw++;
    ck_assert_msg(n == nw, "line %d: %zu pairs, want %zu", line, n, nw);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(v[i], want[i]) == 0, "line %d: pair '%s', want '%s'", line,
                      v[i], want[i]);
    free_strs(v, n);
    freeReplyObject(r);
}

/* Pipelines HSET key <prefix>i v<i> for i in [from, to). */
static void fill(redisContext *c, const char *key, const char *prefix, int from, int to)
{
    for (int i = from; i < to; i++)
        redisAppendCommand(c, "HSET %s %s%d v%d", key, prefix, i, i);
    for (int i = from; i < to; i++) {
        redisReply *r;
        ck_assert_int_eq(redisGetReply(c, (void **)&r), REDIS_OK);
        ck_assert_int_eq(r->type, REDIS_REPLY_INTEGER);
        freeReplyObject(r);
    }
}

/* ---- basic commands ---------------------------------------------------- */

START_TEST(hset_hget_basic)
{
    redisContext *c = h_c;
    expect_int(c, 2, "HSET h a 1 b 2");
    expect_int(c, 1, "HSET h a 10 c 3");          /* a updated, c new */
    expect_int(c, 0, "HSET h a 11");
    expect_int(c, 1, "HSET h d 1 d 2");           /* one new field, last value wins */
    expect_bulk(c, "2", "HGET h d");
    expect_bulk(c, "11", "HGET h a");
    expect_nil(c, "HGET h nosuch");
    expect_nil(c, "HGET nokey a");
    expect_int(c, 4, "HLEN h");
    expect_int(c, 0, "HLEN nokey");
    expect_status(c, "OK", "HMSET h e 5 f 6");
    expect_int(c, 6, "HLEN h");
    const char *all[] = {"a=11", "b=2", "c=3", "d=2", "e=5", "f=6", NULL};
    expect_hash(c, "h", all);
    expect_status(c, "hash", "TYPE h");

    /* empty field and empty value; binary-safe field and value */
    expect_int(c, 1, "HSET h %s %s", "", "");
    expect_bulk(c, "", "HGET h %s", "");
    expect_int(c, 1, "HEXISTS h %s", "");
    const char bin[] = "x\0y\r\nz";
    expect_int(c, 1, "HSET h %b %b", bin, sizeof bin - 1, bin, sizeof bin - 1);
    redisReply *r = cmd(c, "HGET h %b", bin, sizeof bin - 1);
    ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
    ck_assert_uint_eq(r->len, sizeof bin - 1);
    ck_assert(memcmp(r->str, bin, r->len) == 0);
    freeReplyObject(r);
    expect_int(c, 0, "HEXISTS h %b", bin, (size_t)1);
    expect_int(c, (long long)sizeof bin - 1, "HSTRLEN h %b", bin, sizeof bin - 1);
    expect_int(c, 8, "HLEN h");

    /* a value that looks like a number is kept as sent */
    expect_int(c, 1, "HSET h n 007");
    expect_bulk(c, "007", "HGET h n");
}
END_TEST

START_TEST(hsetnx_hexists_hstrlen)
{
    redisContext *c = h_c;
    expect_int(c, 1, "HSETNX h a 1");
    expect_int(c, 0, "HSETNX h a 2");
    expect_bulk(c, "1", "HGET h a");
    expect_int(c, 1, "HSETNX h b 2");
    expect_int(c, 2, "HLEN h");
    expect_int(c, 1, "HEXISTS h a");
    expect_int(c, 0, "HEXISTS h z");
    expect_int(c, 0, "HEXISTS nokey a");
    expect_int(c, 0, "HSTRLEN nokey a");
    expect_int(c, 0, "HSTRLEN h z");
    expect_int(c, 1, "HSTRLEN h a");
    expect_int(c, 1, "HSET h big %s", "0123456789abcdefghij");
    expect_int(c, 20, "HSTRLEN h big");
    expect_int(c, -123, "HINCRBY h num -123");
    expect_int(c, 4, "HSTRLEN h num");
}
END_TEST

START_TEST(hmget_hkeys_hvals_hgetall)
{
    redisContext *c = h_c;
    redisReply *r = expect_array(c, 3, "HMGET nokey a b c");
    for (int i = 0; i < 3; i++) check_nil(r->element[i]);
    freeReplyObject(r);
    expect_int(c, 3, "HSET h a 1 b 2 c 3");
    r = expect_array(c, 4, "HMGET h a x c a");
    check_bulk(r->element[0], "1");
    check_nil(r->element[1]);
    check_bulk(r->element[2], "3");
    check_bulk(r->element[3], "1");
    freeReplyObject(r);
    const char *keys[] = {"a", "b", "c", NULL};
    const char *vals[] = {"1", "2", "3", NULL};
    const char *none[] = {NULL};
    expect_set(c, keys, "HKEYS h");
    expect_set(c, vals, "HVALS h");
    expect_set(c, none, "HKEYS nokey");
    expect_set(c, none, "HVALS nokey");
    expect_set(c, none, "HGETALL nokey");

    /* the big form answers the same */
    fill(c, "big", "f", 0, 300);
    r = cmd(c, "HGETALL big");
    size_t n;
    char **v = pairs_sorted(r, &n);
    ck_assert_uint_eq(n, 300);
    for (size_t i = 0; i < n; i++) {
        int k;
        ck_assert_int_eq(sscanf(v[i], "f%d=", &k), 1);
        char want[32];
        snprintf(want, sizeof want, "f%d=v%d", k, k);
        ck_assert_str_eq(v[i], want);
    }
    free_strs(v, n);
    freeReplyObject(r);
    r = expect_array(c, 300, "HKEYS big");
    freeReplyObject(r);
    r = expect_array(c, 300, "HVALS big");
    freeReplyObject(r);
    /* HKEYS and HVALS pair up in the same order as HGETALL */
    redisReply *ks = cmd(c, "HKEYS big"), *vs = cmd(c, "HVALS big"), *all = cmd(c, "HGETALL big");
    for (size_t i = 0; i < 300; i++) {
        ck_assert_str_eq(ks->element[i]->str, all->element[2 * i]->str);
        ck_assert_str_eq(vs->element[i]->str, all->element[2 * i + 1]->str);
    }
    freeReplyObject(ks);
    freeReplyObject(vs);
    freeReplyObject(all);
}
END_TEST

START_TEST(hdel_deletes_empty_key)
{
    redisContext *c = h_c;
    expect_int(c, 0, "HDEL nokey a");
    expect_int(c, 3, "HSET h a 1 b 2 c 3");
    expect_int(c, 0, "HDEL h x y");
    expect_int(c, 1, "HDEL h a a x");
    expect_int(c, 2, "HLEN h");
    expect_int(c, 2, "HDEL h b c");
    expect_int(c, 0, "EXISTS h");
    expect_status(c, "none", "TYPE h");
    expect_int(c, 0, "HLEN h");
    /* recreated fresh (listpack again) */
    expect_int(c, 1, "HSET h a 1");
    expect_bulk(c, "listpack", "OBJECT ENCODING h");

    /* a big hash emptied by HDEL goes as well */
    fill(c, "big", "f", 0, 600);
    expect_bulk(c, "hashtable", "OBJECT ENCODING big");
    for (int i = 0; i < 600; i += 50) {
        char cmdline[1024] = "HDEL big";
        size_t len = strlen(cmdline);
        for (int j = i; j < i + 50; j++)
            len += (size_t)snprintf(cmdline + len, sizeof cmdline - len, " f%d", j);
        expect_int(c, 50, cmdline);
    }
    expect_int(c, 0, "EXISTS big");

    /* the key keeps its TTL while fields come and go */
    expect_int(c, 2, "HSET t a 1 b 2");
    expect_int(c, 1, "EXPIRE t 100");
    expect_int(c, 1, "HDEL t a");
    expect_int_range(c, 1, 100, "TTL t");
    expect_int(c, 1, "HSET t c 3");
    expect_int_range(c, 1, 100, "TTL t");
}
END_TEST

START_TEST(arity_and_wrongtype)
{
    redisContext *c = h_c;
    const char *arity[][2] = {
        {"HSET h", "hset"},           {"HSET h a", "hset"},      {"HSET h a 1 b", "hset"},
        {"HMSET h a", "hmset"},       {"HMSET h a 1 b", "hmset"}, {"HSETNX h a", "hsetnx"},
        {"HGET h", "hget"},           {"HMGET h", "hmget"},      {"HDEL h", "hdel"},
        {"HLEN", "hlen"},             {"HSTRLEN h", "hstrlen"},  {"HEXISTS h", "hexists"},
        {"HKEYS", "hkeys"},           {"HVALS h x", "hvals"},    {"HGETALL", "hgetall"},
        {"HINCRBY h f", "hincrby"},   {"HINCRBYFLOAT h f", "hincrbyfloat"},
        {"HRANDFIELD", "hrandfield"}, {"HSCAN h", "hscan"},
    };
    for (size_t i = 0; i < sizeof arity / sizeof arity[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "ERR wrong number of arguments for '%s' command",
                 arity[i][1]);
        expect_error(c, want, arity[i][0]);
    }
    expect_int(c, 0, "EXISTS h");   /* no error left an empty key behind */

    expect_status(c, "OK", "SET s x");
    const char *wt[] = {
        "HSET s a 1", "HMSET s a 1", "HSETNX s a 1", "HGET s a", "HMGET s a b", "HDEL s a",
        "HLEN s", "HSTRLEN s a", "HEXISTS s a", "HKEYS s", "HVALS s", "HGETALL s",
        "HINCRBY s a 1", "HINCRBYFLOAT s a 1.5", "HRANDFIELD s", "HRANDFIELD s 0",
        "HRANDFIELD s -3 WITHVALUES", "HSCAN s 0",
    };
    for (size_t i = 0; i < sizeof wt / sizeof wt[0]; i++) expect_error(c, ERR_WRONGTYPE, wt[i]);
    expect_bulk(c, "x", "GET s");
    /* and the other way round */
    expect_int(c, 1, "HSET h a 1");
    expect_error(c, ERR_WRONGTYPE, "GET h");
    expect_error(c, ERR_WRONGTYPE, "INCR h");
    expect_error(c, ERR_WRONGTYPE, "APPEND h x");
}
END_TEST

/* ---- counters ------------------------------------------------------------ */

START_TEST(hincrby)
{
    redisContext *c = h_c;
    expect_int(c, 5, "HINCRBY h n 5");            /* creates key and field */
    expect_int(c, 2, "HINCRBY h n -3");
    expect_bulk(c, "2", "HGET h n");
    expect_int(c, -10, "HINCRBY h m -10");
    expect_int(c, 1, "HSET h s abc");
    expect_error(c, "ERR hash value is not an integer", "HINCRBY h s 1");
    expect_int(c, 1, "HSET h sp %s", " 1");
    expect_error(c, "ERR hash value is not an integer", "HINCRBY h sp 1");
    expect_int(c, 1, "HSET h z 012");
    expect_error(c, "ERR hash value is not an integer", "HINCRBY h z 1");
    expect_error(c, ERR_INT, "HINCRBY h n abc");
    expect_error(c, ERR_INT, "HINCRBY h n 1.5");
    expect_error(c, ERR_INT, "HINCRBY h n 9223372036854775808");
    expect_error(c, ERR_INT, "HINCRBY s n abc");   /* parsed before the type check */
    expect_int(c, 1, "HSET h max 9223372036854775807");
    expect_error(c, "ERR increment or decrement would overflow", "HINCRBY h max 1");
    expect_int(c, 1, "HSET h min -9223372036854775808");
    expect_error(c, "ERR increment or decrement would overflow", "HINCRBY h min -1");
    expect_int(c, -1, "HINCRBY h max -9223372036854775808");
    expect_int(c, 9223372036854775807LL, "HINCRBY h big 9223372036854775807");
    expect_int(c, 0, "HINCRBY h zero 0");
    expect_bulk(c, "0", "HGET h zero");
    expect_int(c, 0, "EXISTS nokey");
    expect_error(c, ERR_INT, "HINCRBY nokey f x");
    expect_int(c, 0, "EXISTS nokey");
}
END_TEST

START_TEST(hincrbyfloat)
{
    redisContext *c = h_c;
    expect_bulk(c, "10.5", "HINCRBYFLOAT h f 10.5");
    expect_bulk(c, "10.6", "HINCRBYFLOAT h f 0.1");
    expect_bulk(c, "5", "HINCRBYFLOAT h f -5.6");
    expect_bulk(c, "5000", "HINCRBYFLOAT h g 5.0e3");
    expect_bulk(c, "3000.10000000000000009", "HINCRBYFLOAT h x 3000.1");
    expect_bulk(c, "1000000000000000000024696061952", "HINCRBYFLOAT h y 1e30");
    expect_bulk(c, "1000000000000000000024696061952", "HINCRBYFLOAT h y 1e-20");
    expect_int(c, 1, "HSET h i 17");
    expect_bulk(c, "18.5", "HINCRBYFLOAT h i 1.5");
    expect_bulk(c, "18.5", "HGET h i");
    expect_bulk(c, "0", "HINCRBYFLOAT h neg -0");
    expect_int(c, 1, "HSET h s abc");
    expect_error(c, "ERR hash value is not a float", "HINCRBYFLOAT h s 1");
    expect_error(c, "ERR value is not a valid float", "HINCRBYFLOAT h f abc");
    expect_error(c, "ERR value is not a valid float", "HINCRBYFLOAT h f nan");
    expect_error(c, "ERR value is not a valid float", "HINCRBYFLOAT h f %s", "");
    expect_error(c, "ERR value is not a valid float", "HINCRBYFLOAT h f %s", " 1");
    expect_error(c, "ERR value is NaN or Infinity", "HINCRBYFLOAT h f inf");
    expect_error(c, "ERR value is NaN or Infinity", "HINCRBYFLOAT h f -inf");
    expect_error(c, "ERR value is not a valid float", "HINCRBYFLOAT s f x");
    /* an increment past the largest long double */
    expect_int(c, 1, "HSET h huge 1e4932");
    expect_error(c, "ERR increment would produce NaN or Infinity",
                 "HINCRBYFLOAT h huge 1e4932");
    expect_bulk(c, "1e4932", "HGET h huge");
    /* a value stored as an integer is read as one */
    expect_int(c, 1, "HSET h n -9223372036854775808");
    expect_bulk(c, "-9223372036854775807", "HINCRBYFLOAT h n 1");
}
END_TEST

/* HINCRBYFLOAT goes to the AOF as HSET with its result (Redis 7.0), and
 * the hash reloads from it. */
static char *read_incr_aofs(const srv *s)
{
    char dir[PATH_MAX + 32];
    snprintf(dir, sizeof dir, "%s/appendonlydir", s->dir);
    DIR *d = opendir(dir);
    ck_assert_msg(d != NULL, "no %s", dir);
    char *all = calloc(1, 1);
    size_t len = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (!strstr(de->d_name, ".incr.aof")) continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n;
        char *b = h_slurp(path, &n, 1);
        all = realloc(all, len + n + 1);
        memcpy(all + len, b, n);
        len += n;
        all[len] = '\0';
        free(b);
    }
    closedir(d);
    return all;
}

START_TEST(hincrbyfloat_propagates_as_hset)
{
    srv *s = h_srv_start("--appendonly yes --appendfsync always");
    redisContext *c = srv_connect(s);
    expect_bulk(c, "10.5", "HINCRBYFLOAT h f 10.5");
    expect_bulk(c, "10.6", "HINCRBYFLOAT h f 0.1");
    expect_int(c, 3, "HINCRBY h n 3");
    expect_int(c, 1, "HDEL h n");
    char *aof = read_incr_aofs(s);
    ck_assert_msg(strcasestr(aof, "hincrbyfloat") == NULL, "HINCRBYFLOAT in the AOF: %s", aof);
    ck_assert_msg(strstr(aof, "$4\r\nHSET\r\n$1\r\nh\r\n$1\r\nf\r\n$4\r\n10.6\r\n") != NULL,
                  "no HSET h f 10.6 in the AOF: %s", aof);
    ck_assert_msg(strcasestr(aof, "hincrby\r\n") != NULL, "HINCRBY missing: %s", aof);
    free(aof);
    redisFree(c);
    srv_kill9(s);
    srv *s2 = h_srv_start_on(s, "--appendonly yes");
    c = srv_connect(s2);
    h_wait_loaded(c, 10000);
    const char *want[] = {"f=10.6", NULL};
    expect_hash(c, "h", want);
    redisFree(c);
}
END_TEST

/* ---- encodings ------------------------------------------------------------- */

START_TEST(encoding_by_entries)
{
    redisContext *c = h_c;
    /* Redis 7.0's built-in default (redis.conf's 128 is only its sample) */
    redisReply *r = expect_array(c, 2, "CONFIG GET hash-max-listpack-entries");
    check_bulk(r->element[1], "512");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET hash-max-ziplist-entries");
    check_bulk(r->element[1], "512");
    freeReplyObject(r);
    r = expect_array(c, 2, "CONFIG GET hash-max-listpack-value");
    check_bulk(r->element[1], "64");
    freeReplyObject(r);
    fill(c, "d", "f", 0, 512);
    expect_bulk(c, "listpack", "OBJECT ENCODING d");
    expect_int(c, 1, "HSET d f512 x");
    expect_bulk(c, "hashtable", "OBJECT ENCODING d");

    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries 128");
    fill(c, "h", "f", 0, 128);
    expect_bulk(c, "listpack", "OBJECT ENCODING h");
    fill(c, "h", "f", 0, 128);                      /* updates: still 128 */
    expect_bulk(c, "listpack", "OBJECT ENCODING h");
    expect_int(c, 1, "HSET h f128 x");
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    /* for good: back to one field stays a hashtable */
    for (int i = 0; i < 128; i++) expect_int(c, 1, "HDEL h f%d", i);
    expect_int(c, 1, "HLEN h");
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");

    /* CONFIG SET changes where new writes convert */
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries 4");
    expect_int(c, 4, "HSET a 1 1 2 2 3 3 4 4");
    expect_bulk(c, "listpack", "OBJECT ENCODING a");
    expect_int(c, 1, "HSETNX a 5 5");
    expect_bulk(c, "hashtable", "OBJECT ENCODING a");
    /* a listpack over a lowered limit converts at its next write */
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries 10");
    expect_int(c, 6, "HSET b 1 1 2 2 3 3 4 4 5 5 6 6");
    expect_bulk(c, "listpack", "OBJECT ENCODING b");
    expect_status(c, "OK", "CONFIG SET hash-max-ziplist-entries 3");
    r = expect_array(c, 2, "CONFIG GET hash-max-listpack-entries");
    check_bulk(r->element[1], "3");
    freeReplyObject(r);
    expect_bulk(c, "listpack", "OBJECT ENCODING b");
    expect_int(c, 1, "HDEL b 6");
    expect_bulk(c, "listpack", "OBJECT ENCODING b");
    expect_int(c, 0, "HSET b 1 x");                 /* an update converts too */
    expect_bulk(c, "hashtable", "OBJECT ENCODING b");
    /* 0 entries: every hash is a hashtable from its first field */
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries 0");
    expect_int(c, 1, "HSET z a 1");
    expect_bulk(c, "hashtable", "OBJECT ENCODING z");
}
END_TEST

START_TEST(encoding_by_length)
{
    redisContext *c = h_c;
    char v64[65], v65[66];
    memset(v64, 'v', 64);
    v64[64] = '\0';
    memset(v65, 'v', 65);
    v65[65] = '\0';
    expect_int(c, 2, "HSET h a %s %s b", v64, v64);
    expect_bulk(c, "listpack", "OBJECT ENCODING h");
    expect_int(c, 0, "HSET h a %s", v65);
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    expect_int(c, 1, "HSET f %s x", v65);            /* by the field's length */
    expect_bulk(c, "hashtable", "OBJECT ENCODING f");
    expect_int(c, 1, "HINCRBY i %s 1", v65);         /* HINCRBY's field too */
    expect_bulk(c, "hashtable", "OBJECT ENCODING i");
    expect_status(c, "OK", "HMSET m a 1");
    expect_status(c, "OK", "HMSET m b %s", v65);
    expect_bulk(c, "hashtable", "OBJECT ENCODING m");
    /* HSETNX of an existing field sets nothing and converts nothing */
    expect_int(c, 1, "HSETNX n a 1");
    expect_int(c, 0, "HSETNX n a %s", v65);
    expect_bulk(c, "listpack", "OBJECT ENCODING n");
    expect_int(c, 1, "HSETNX n b %s", v65);
    expect_bulk(c, "hashtable", "OBJECT ENCODING n");

    /* the value limit follows CONFIG SET (and its ziplist alias) */
    expect_status(c, "OK", "CONFIG SET hash-max-ziplist-value 5");
    expect_int(c, 1, "HSET p a 12345");
    expect_bulk(c, "listpack", "OBJECT ENCODING p");
    expect_bulk(c, "1234567.5", "HINCRBYFLOAT p b 1234567.5");  /* a 9-byte result */
    expect_bulk(c, "hashtable", "OBJECT ENCODING p");
    expect_int(c, 1, "HSET q a 1");
    expect_int(c, 123456, "HINCRBY q a 123455");                /* a 6-byte result */
    expect_bulk(c, "hashtable", "OBJECT ENCODING q");
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-value 0");
    expect_int(c, 1, "HSET e %s %s", "", "");
    expect_bulk(c, "listpack", "OBJECT ENCODING e");
    expect_int(c, 1, "HSET e x %s", "");
    expect_bulk(c, "hashtable", "OBJECT ENCODING e");
}
END_TEST

/* ---- HRANDFIELD ------------------------------------------------------------ */

/* Index of s among the fields "<prefix>0".."<prefix>n-1", or -1. */
static int field_index(const char *s, const char *prefix, int n)
{
    size_t pl = strlen(prefix);
    if (strncmp(s, prefix, pl) != 0) return -1;
    char *end;
    long v = strtol(s + pl, &end, 10);
    if (*end || end == s + pl || v < 0 || v >= n) return -1;
    return (int)v;
}

/* HRANDFIELD key count [WITHVALUES] on a hash of fields f0..f<size-1>
 * (values v<i>): checks the reply's length, that every field exists (with
 * its value), distinctness when count > 0; returns how many distinct
 * fields came. */
static int check_randfield(redisContext *c, const char *key, int size, long long count,
                           int withvalues)
{
    redisReply *r = withvalues ? cmd(c, "HRANDFIELD %s %lld WITHVALUES", key, count)
                               : cmd(c, "HRANDFIELD %s %lld", key, count);
    ck_assert_int_eq(r->type, REDIS_REPLY_ARRAY);
    long long want = count < 0 ? -count : count < size ? count : size;
    int step = withvalues ? 2 : 1;
    ck_assert_uint_eq(r->elements, (size_t)(want * step));
    char *seen = calloc((size_t)size, 1);
    int distinct = 0;
    for (size_t i = 0; i < r->elements; i += (size_t)step) {
        int k = field_index(r->element[i]->str, "f", size);
        ck_assert_msg(k >= 0, "unknown field %s", r->element[i]->str);
        if (withvalues) {
            char v[32];
            snprintf(v, sizeof v, "v%d", k);
            ck_assert_str_eq(r->element[i + 1]->str, v);
        }
        if (count > 0) ck_assert_msg(!seen[k], "field f%d twice for count %lld", k, count);
        if (!seen[k]) distinct++;
        seen[k] = 1;
    }
    free(seen);
    freeReplyObject(r);
    return distinct;
}

START_TEST(hrandfield_basic)
{
    redisContext *c = h_c;
    expect_nil(c, "HRANDFIELD nokey");
    redisReply *r = expect_array(c, 0, "HRANDFIELD nokey 5");
    freeReplyObject(r);
    r = expect_array(c, 0, "HRANDFIELD nokey -5 WITHVALUES");
    freeReplyObject(r);
    fill(c, "s", "f", 0, 5);                        /* listpack */
    fill(c, "b", "f", 0, 1000);                     /* hashtable */
    expect_bulk(c, "listpack", "OBJECT ENCODING s");
    expect_bulk(c, "hashtable", "OBJECT ENCODING b");
    r = expect_array(c, 0, "HRANDFIELD s 0");
    freeReplyObject(r);
    r = expect_array(c, 0, "HRANDFIELD s 0 WITHVALUES");
    freeReplyObject(r);

    const struct { const char *key; int size; } hs[] = {{"s", 5}, {"b", 1000}};
    const long long counts[] = {1, 2, 3, 4, 5, 6, 100, 400, 999, 1000, 5000,
                                -1, -3, -5, -20, -2000};
    for (size_t i = 0; i < 2; i++) {
        for (size_t j = 0; j < sizeof counts / sizeof counts[0]; j++) {
            for (int wv = 0; wv < 2; wv++) {
                int d = check_randfield(c, hs[i].key, hs[i].size, counts[j], wv);
                if (counts[j] >= hs[i].size) ck_assert_int_eq(d, hs[i].size);
            }
        }
    }
    /* every field comes out sooner or later, for every form */
    ck_assert_int_eq(check_randfield(c, "s", 5, -500, 0), 5);
    int seen[5] = {0};
    for (int i = 0; i < 300; i++) {
        r = cmd(c, "HRANDFIELD s");
        ck_assert_int_eq(r->type, REDIS_REPLY_STRING);
        int k = field_index(r->str, "f", 5);
        ck_assert_int_ge(k, 0);
        seen[k] = 1;
        freeReplyObject(r);
    }
    for (int i = 0; i < 5; i++) ck_assert_int_eq(seen[i], 1);
    /* distinct draws of 2 from 1000 differ from call to call */
    int distinct = 0;
    char first[32] = "";
    for (int i = 0; i < 50; i++) {
        r = cmd(c, "HRANDFIELD b 2");
        ck_assert_uint_eq(r->elements, 2);
        ck_assert_str_ne(r->element[0]->str, r->element[1]->str);
        if (i == 0) snprintf(first, sizeof first, "%s", r->element[0]->str);
        else if (strcmp(first, r->element[0]->str) != 0) distinct = 1;
        freeReplyObject(r);
    }
    ck_assert_int_eq(distinct, 1);
    /* a single-field hash repeats its field for a negative count */
    expect_int(c, 1, "HSET one only v");
    r = expect_array(c, 6, "HRANDFIELD one -3 WITHVALUES");
    for (int i = 0; i < 6; i += 2) {
        check_bulk(r->element[i], "only");
        check_bulk(r->element[i + 1], "v");
    }
    freeReplyObject(r);
}
END_TEST

START_TEST(hrandfield_errors)
{
    redisContext *c = h_c;
    expect_int(c, 2, "HSET h a 1 b 2");
    expect_error(c, ERR_INT, "HRANDFIELD h abc");
    expect_error(c, ERR_INT, "HRANDFIELD h 1.5");
    expect_error(c, ERR_INT, "HRANDFIELD nokey abc");
    expect_error(c, ERR_SYNTAX, "HRANDFIELD h 1 foo");
    expect_error(c, ERR_SYNTAX, "HRANDFIELD h 1 WITHVALUES x");
    expect_error(c, ERR_SYNTAX, "HRANDFIELD nokey 0 WITHVALUES x");
    expect_error(c, "ERR value is out of range, value must between -9223372036854775807 and "
                    "9223372036854775807", "HRANDFIELD h -9223372036854775808");
    expect_error(c, "ERR value is out of range", "HRANDFIELD h -9223372036854775807 WITHVALUES");
    expect_error(c, "ERR value is out of range", "HRANDFIELD h 4611686018427387904 WITHVALUES");
    expect_error(c, "ERR value is out of range", "HRANDFIELD h -4611686018427387904 WITHVALUES");
    redisReply *r = expect_array(c, 4, "HRANDFIELD h 4611686018427387903 withvalues");
    freeReplyObject(r);
    r = expect_array(c, 2, "HRANDFIELD h 9223372036854775807");
    freeReplyObject(r);
}
END_TEST

/* ---- HSCAN ------------------------------------------------------------------ */

/* One HSCAN call: the next cursor, and the pairs appended to *fields. */
static unsigned long long hscan_once(redisContext *c, const char *key, unsigned long long cur,
                                     const char *opts, char ***fields, size_t *n, size_t *cap)
{
    /* argv: HSCAN key cursor, then opts split on blanks */
    char curbuf[32], optbuf[256];
    snprintf(curbuf, sizeof curbuf, "%llu", cur);
    snprintf(optbuf, sizeof optbuf, "%s", opts);
    const char *argv[16] = {"HSCAN", key, curbuf};
    int argc = 3;
    for (char *tok = strtok(optbuf, " "); tok && argc < 16; tok = strtok(NULL, " "))
        argv[argc++] = tok;
    redisReply *r = redisCommandArgv(c, argc, argv, NULL);
    ck_assert_msg(r != NULL, "no HSCAN reply");
    ck_assert_msg(r->type == REDIS_REPLY_ARRAY && r->elements == 2, "bad HSCAN reply");
    ck_assert_int_eq(r->element[0]->type, REDIS_REPLY_STRING);
    unsigned long long next = strtoull(r->element[0]->str, NULL, 10);
    const redisReply *a = r->element[1];
    ck_assert_int_eq(a->type, REDIS_REPLY_ARRAY);
    ck_assert_uint_eq(a->elements % 2, 0);
    for (size_t i = 0; i < a->elements; i += 2) {
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 64;
            *fields = realloc(*fields, *cap * sizeof **fields);
        }
        (*fields)[(*n)++] = strdup(a->element[i]->str);
        /* the value is the field's, "v<i>" for "<prefix><i>" */
        const char *f = a->element[i]->str, *v = a->element[i + 1]->str;
        while (*f && (*f < '0' || *f > '9')) f++;
        ck_assert_msg(v[0] == 'v' && strcmp(v + 1, f) == 0, "value %s for field %s", v,
                      a->element[i]->str);
    }
    freeReplyObject(r);
    return next;
}

START_TEST(hscan_small_and_errors)
{
    redisContext *c = h_c;
    redisReply *r = expect_array(c, 2, "HSCAN nokey 0");
    check_bulk(r->element[0], "0");
    ck_assert_uint_eq(r->element[1]->elements, 0);
    freeReplyObject(r);
    r = expect_array(c, 2, "HSCAN nokey 0 COUNT 0");  /* options read once the key is found */
    freeReplyObject(r);
    fill(c, "h", "f", 0, 20);
    char **f = NULL;
    size_t n = 0, cap = 0;
    /* the small form: everything at once, cursor 0, whatever the cursor */
    ck_assert_uint_eq(hscan_once(c, "h", 0, "COUNT 1", &f, &n, &cap), 0);
    ck_assert_uint_eq(n, 20);
    ck_assert_uint_eq(hscan_once(c, "h", 12345, "", &f, &n, &cap), 0);
    ck_assert_uint_eq(n, 40);
    ck_assert_uint_eq(hscan_once(c, "h", 0, "MATCH f1*", &f, &n, &cap), 0);
    ck_assert_uint_eq(n, 51);                       /* f1, f10..f19 */
    for (size_t i = 40; i < n; i++) ck_assert(f[i][0] == 'f' && f[i][1] == '1');
    ck_assert_uint_eq(hscan_once(c, "h", 0, "MATCH * COUNT 100", &f, &n, &cap), 0);
    ck_assert_uint_eq(n, 71);
    for (size_t i = 0; i < n; i++) free(f[i]);
    free(f);

    expect_error(c, "ERR invalid cursor", "HSCAN h x");
    expect_error(c, "ERR invalid cursor", "HSCAN h %s", " 1");
    expect_error(c, "ERR invalid cursor", "HSCAN h 18446744073709551616");
    expect_error(c, "ERR invalid cursor", "HSCAN nokey x");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 COUNT 0");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 COUNT -1");
    expect_error(c, ERR_INT, "HSCAN h 0 COUNT x");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 COUNT");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 MATCH");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 TYPE string");
    expect_error(c, ERR_SYNTAX, "HSCAN h 0 foo bar");
    r = expect_array(c, 2, "HSCAN h %s", "");          /* strtoul reads "" as 0 */
    freeReplyObject(r);
    r = expect_array(c, 2, "HSCAN h -1");
    freeReplyObject(r);
}
END_TEST

/* A full HSCAN of a big hash (hashtable) with COUNT count: returns every
 * field once (no concurrent change); MATCH filters. */
START_TEST(hscan_big_full_iteration)
{
    redisContext *c = h_c;
    const int N = 5000;
    fill(c, "h", "f", 0, N);
    expect_bulk(c, "hashtable", "OBJECT ENCODING h");
    const int counts[] = {1, 7, 100, 10000};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        char opts[32];
        snprintf(opts, sizeof opts, "COUNT %d", counts[k]);
        char **f = NULL;
        size_t n = 0, cap = 0;
        unsigned long long cur = 0;
        int calls = 0;
        do {
            cur = hscan_once(c, "h", cur, opts, &f, &n, &cap);
            calls++;
        } while (cur != 0);
        int *seen = calloc((size_t)N, sizeof *seen);
        for (size_t i = 0; i < n; i++) {
            int x = field_index(f[i], "f", N);
            ck_assert_int_ge(x, 0);
            seen[x]++;
            free(f[i]);
        }
        free(f);
        for (int i = 0; i < N; i++)
            ck_assert_msg(seen[i] == 1, "f%d seen %d times (COUNT %d)", i, seen[i], counts[k]);
        free(seen);
        if (counts[k] == 1) ck_assert_int_gt(calls, 100);
    }
    /* MATCH: exactly the matching fields, over a whole iteration */
    char **f = NULL;
    size_t n = 0, cap = 0;
    unsigned long long cur = 0;
    do cur = hscan_once(c, "h", cur, "MATCH f12* COUNT 50", &f, &n, &cap);
    while (cur != 0);
    ck_assert_uint_eq(n, 1 + 10 + 100);            /* f12, f120..f129, f1200..f1299 */
    for (size_t i = 0; i < n; i++) {
        ck_assert(strncmp(f[i], "f12", 3) == 0);
        free(f[i]);
    }
    free(f);
}
END_TEST

/* HSETs and HDELs between the calls: every field present throughout comes
 * at least once (verso's hash positions also never repeat one). */
START_TEST(hscan_with_concurrent_writes)
{
    redisContext *c = h_c;
    const int N = 3000;
    fill(c, "h", "f", 0, N);
    char **f = NULL;
    size_t n = 0, cap = 0;
    unsigned long long cur = 0;
    int next_new = 0, calls = 0;
    do {
        cur = hscan_once(c, "h", cur, "COUNT 40", &f, &n, &cap);
        /* grow by 30 new fields, drop 10 of the new ones, rewrite 5 old ones */
        fill(c, "h", "n", next_new, next_new + 30);
        for (int i = 0; i < 10; i++) expect_int(c, 1, "HDEL h n%d", next_new + 3 * i);
        for (int i = 0; i < 5; i++) {
            int x = (calls * 7 + i * 13) % N;
            expect_int(c, 0, "HSET h f%d v%d", x, x);
        }
        next_new += 30;
        calls++;
        ck_assert_int_lt(calls, 100000);
    } while (cur != 0);
    int *seen = calloc((size_t)N, sizeof *seen);
    for (size_t i = 0; i < n; i++) {
        int x = field_index(f[i], "f", N);
        if (x >= 0) seen[x]++;
        else ck_assert_msg(f[i][0] == 'n', "unexpected field %s", f[i]);
        free(f[i]);
    }
    free(f);
    for (int i = 0; i < N; i++) {
        ck_assert_msg(seen[i] >= 1, "f%d never returned", i);
        if (!srv_is_reference()) ck_assert_msg(seen[i] == 1, "f%d returned %d times", i, seen[i]);
    }
    free(seen);
    ck_assert_int_gt(next_new, 30);
}
END_TEST

/* A copy shares the source's nodes (COPY: O(1)); a write to either one
 * changes only that one, small or big. */
START_TEST(copy_then_write_either)
{
    redisContext *c = h_c;
    const int sizes[] = {10, 2000};
    for (size_t k = 0; k < 2; k++) {
        int n = sizes[k];
        freeReplyObject(cmd(c, "DEL src dst"));
        fill(c, "src", "f", 0, n);
        expect_int(c, 1, "COPY src dst");
        for (int i = 0; i < n; i += 7) expect_int(c, 0, "HSET dst f%d changed", i);
        int gone = 0;
        for (int i = 3; i < n; i += 7, gone++) expect_int(c, 1, "HDEL dst f%d", i);
        expect_int(c, 1, "HSET dst new x");
        for (int i = 5; i < n; i += 11) expect_int(c, 0, "HSET src f%d src%d", i, i);
        expect_int(c, n, "HLEN src");
        for (int i = 0; i < n; i++) {
            char want[32];
            if (i % 11 == 5) snprintf(want, sizeof want, "src%d", i);
            else snprintf(want, sizeof want, "v%d", i);
            expect_bulk(c, want, "HGET src f%d", i);
            if (i % 7 == 3) {
                expect_nil(c, "HGET dst f%d", i);
                continue;
            }
            if (i % 7 == 0) snprintf(want, sizeof want, "changed");
            else snprintf(want, sizeof want, "v%d", i);
            expect_bulk(c, want, "HGET dst f%d", i);
        }
        expect_nil(c, "HGET src new");
        expect_int(c, 1, "DEL src");
        expect_bulk(c, "x", "HGET dst new");
        expect_int(c, n - gone + 1, "HLEN dst");
    }
}
END_TEST

/* ---- randomized model test --------------------------------------------------- */

#define M_KEYS 4
#define M_FIELDS 24
#define M_ENTRIES 8   /* hash-max-listpack-entries during the test */
#define M_VALUE 16    /* hash-max-listpack-value */

typedef struct mhash {
    int present[M_FIELDS];
    char val[M_FIELDS][48];
    int nfields;
    int big;          /* converted to hashtable */
} mhash;

static unsigned long long m_rng = 88172645463325252ULL;
static unsigned long long m_rand(void)
{
    m_rng ^= m_rng << 13;
    m_rng ^= m_rng >> 7;
    m_rng ^= m_rng << 17;
    return m_rng;
}

/* Field i's name: short, except the last few (longer than M_VALUE). */
static void m_field(int i, char *buf, size_t cap)
{
    if (i >= M_FIELDS - 2) snprintf(buf, cap, "long-field-name-number-%d", i);
    else snprintf(buf, cap, "f%d", i);
}

static void m_value(char *buf, size_t cap)
{
    unsigned r = (unsigned)(m_rand() % 10);
    if (r < 5) snprintf(buf, cap, "%lld", (long long)(m_rand() % 2001) - 1000);
    else if (r < 9) snprintf(buf, cap, "v%u", (unsigned)(m_rand() % 1000));
    else snprintf(buf, cap, "a-long-value-of-more-than-16-bytes-%u", (unsigned)(m_rand() % 100));
}

static void m_set(mhash *h, int i, const char *v, const char *fname)
{
    if (!h->present[i]) h->nfields++;
    h->present[i] = 1;
    snprintf(h->val[i], sizeof h->val[i], "%s", v);
    if (h->nfields > M_ENTRIES || strlen(v) > M_VALUE || strlen(fname) > M_VALUE) h->big = 1;
}

static int m_is_int(const char *s, long long *out)
{
    char *end;
    if (!*s || (s[0] == '0' && s[1]) || (s[0] == '-' && (s[1] == '0' || !s[1]))) return 0;
    long long v = strtoll(s, &end, 10);
    if (*end) return 0;
    *out = v;
    return 1;
}

/* Compares key k with the model: HGETALL and OBJECT ENCODING. */
static void m_check(redisContext *c, const mhash *h, int k, int op)
{
    if (h->nfields == 0) {
        expect_int(c, 0, "EXISTS k%d", k);
        return;
    }
    redisReply *r = cmd(c, "HGETALL k%d", k);
    size_t n;
    char **got = pairs_sorted(r, &n);
    freeReplyObject(r);
    char **want = malloc((size_t)M_FIELDS * sizeof *want);
    size_t nw = 0;
    for (int i = 0; i < M_FIELDS; i++) {
        if (!h->present[i]) continue;
        char fname[64];
        m_field(i, fname, sizeof fname);
        want[nw] = malloc(strlen(fname) + strlen(h->val[i]) + 2);
        sprintf(want[nw++], "%s=%s", fname, h->val[i]);
    }
    qsort(want, nw, sizeof *want, cmp_str);
    ck_assert_msg(n == nw, "op %d key k%d: %zu fields, model %zu", op, k, n, nw);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(strcmp(got[i], want[i]) == 0, "op %d key k%d: '%s' vs model '%s'", op, k,
                      got[i], want[i]);
    free_strs(got, n);
    free_strs(want, nw);
    expect_bulk(c, h->big ? "hashtable" : "listpack", "OBJECT ENCODING k%d", k);
}

/* A whole HSCAN of key k (COUNT 3) gives exactly the model's fields. */
static void m_scan_check(redisContext *c, const mhash *h, int k, int op)
{
    char **f = NULL;
    size_t n = 0, cap = 0;
    unsigned long long cur = 0;
    do {
        redisReply *r = cmd(c, "HSCAN k%d %llu COUNT 3", k, cur);
        cur = strtoull(r->element[0]->str, NULL, 10);
        for (size_t i = 0; i < r->element[1]->elements; i += 2) {
            if (n == cap) {
                cap = cap ? 2 * cap : 32;
                f = realloc(f, cap * sizeof *f);
            }
            f[n++] = strdup(r->element[1]->element[i]->str);
        }
        freeReplyObject(r);
    } while (cur != 0);
    if (n) qsort(f, n, sizeof *f, cmp_str);
    size_t uniq = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == 0 || strcmp(f[i], f[i - 1]) != 0) uniq++;
        int found = 0;
        for (int j = 0; j < M_FIELDS && !found; j++) {
            char name[64];
            m_field(j, name, sizeof name);
            found = h->present[j] && strcmp(name, f[i]) == 0;
        }
        ck_assert_msg(found, "op %d: HSCAN returned %s, not in the model", op, f[i]);
    }
    ck_assert_msg(uniq == (size_t)h->nfields, "op %d: HSCAN gave %zu of %d fields", op, uniq,
                  h->nfields);
    free_strs(f, n);
}

/* One random write or read on a random key, checked against the model. */
static void m_step(redisContext *c, mhash *m, int op)
{
    int k = (int)(m_rand() % M_KEYS);
    mhash *h = &m[k];
    int fi = (int)(m_rand() % M_FIELDS), fj = (int)(m_rand() % M_FIELDS);
    char f1[64], f2[64], v1[48], v2[48];
    m_field(fi, f1, sizeof f1);
    m_field(fj, f2, sizeof f2);
    m_value(v1, sizeof v1);
    m_value(v2, sizeof v2);
    switch (m_rand() % 12) {
    case 0: case 1: {   /* HSET with two pairs (maybe the same field twice) */
        int added = !h->present[fi];
        m_set(h, fi, v1, f1);
        added += !h->present[fj];
        m_set(h, fj, v2, f2);
        expect_int(c, added, "HSET k%d %s %s %s %s", k, f1, v1, f2, v2);
        break;
    }
    case 2: {
        int was = h->present[fi];
        if (!was) m_set(h, fi, v1, f1);
        expect_int(c, !was, "HSETNX k%d %s %s", k, f1, v1);
        break;
    }
    case 3: case 4: {   /* HDEL of one or two fields */
        int del = h->present[fi];
        if (del) { h->present[fi] = 0; h->nfields--; }
        if (h->present[fj]) { h->present[fj] = 0; h->nfields--; del++; }
        expect_int(c, del, "HDEL k%d %s %s", k, f1, f2);
        if (h->nfields == 0) h->big = 0;
        break;
    }
    case 5: {
        long long incr = (long long)(m_rand() % 201) - 100, cur = 0;
        if (h->present[fi] && !m_is_int(h->val[fi], &cur)) {
            expect_error(c, "ERR hash value is not an integer", "HINCRBY k%d %s %lld", k, f1, incr);
            break;
        }
        char nv[32];
        snprintf(nv, sizeof nv, "%lld", cur + incr);
        m_set(h, fi, nv, f1);
        expect_int(c, cur + incr, "HINCRBY k%d %s %lld", k, f1, incr);
        break;
    }
    case 6:
        if (h->present[fi]) expect_bulk(c, h->val[fi], "HGET k%d %s", k, f1);
        else expect_nil(c, "HGET k%d %s", k, f1);
        break;
    case 7: {
        redisReply *r = expect_array(c, 2, "HMGET k%d %s %s", k, f1, f2);
        if (h->present[fi]) check_bulk(r->element[0], h->val[fi]);
        else check_nil(r->element[0]);
        if (h->present[fj]) check_bulk(r->element[1], h->val[fj]);
        else check_nil(r->element[1]);
        freeReplyObject(r);
        break;
    }
    case 8:
        expect_int(c, h->nfields, "HLEN k%d", k);
        expect_int(c, h->present[fi], "HEXISTS k%d %s", k, f1);
        expect_int(c, h->present[fi] ? (long long)strlen(h->val[fi]) : 0, "HSTRLEN k%d %s", k, f1);
        break;
    case 9:
        if (m_rand() % 8 == 0) {   /* now and then the whole key goes */
            expect_int(c, h->nfields > 0, "DEL k%d", k);
            memset(h, 0, sizeof *h);
        } else {
            m_check(c, h, k, op);
        }
        break;
    default:
        m_scan_check(c, h, k, op);
    }
}

START_TEST(model_random_ops)
{
    redisContext *c = h_c;
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-entries %d", M_ENTRIES);
    expect_status(c, "OK", "CONFIG SET hash-max-listpack-value %d", M_VALUE);
    const char *seed_env = getenv("HASH_MODEL_SEED");
    m_rng = seed_env ? strtoull(seed_env, NULL, 10) : (unsigned long long)h_now_ms();
    if (m_rng == 0) m_rng = 1;
    fprintf(stderr, "test_hash model: HASH_MODEL_SEED=%llu\n", m_rng);
    mhash m[M_KEYS];
    memset(m, 0, sizeof m);
    for (int op = 0; op < 4000; op++) m_step(c, m, op);
    for (int k = 0; k < M_KEYS; k++) m_check(c, &m[k], k, 4000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hash");
    TCase *tc = tcase_create("hash");
    tcase_add_checked_fixture(tc, h_setup, h_teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hset_hget_basic);
    tcase_add_test(tc, hsetnx_hexists_hstrlen);
    tcase_add_test(tc, hmget_hkeys_hvals_hgetall);
    tcase_add_test(tc, hdel_deletes_empty_key);
    tcase_add_test(tc, arity_and_wrongtype);
    tcase_add_test(tc, hincrby);
    tcase_add_test(tc, hincrbyfloat);
    tcase_add_test(tc, encoding_by_entries);
    tcase_add_test(tc, encoding_by_length);
    tcase_add_test(tc, hrandfield_basic);
    tcase_add_test(tc, hrandfield_errors);
    tcase_add_test(tc, hscan_small_and_errors);
    tcase_add_test(tc, hscan_big_full_iteration);
    tcase_add_test(tc, hscan_with_concurrent_writes);
    tcase_add_test(tc, copy_then_write_either);
    tcase_add_test(tc, model_random_ops);
    suite_add_tcase(s, tc);
    h_add_dropall(s, "hincrbyfloat_propagates_as_hset", hincrbyfloat_propagates_as_hset, 60);
    return h_main(s);
}
