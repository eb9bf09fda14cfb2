/* rdbfill.c: fills a server with the data sets of bench/rdbformat.sh.
 *
 *   rdbfill --port N --keys K --value V --seed S --kind random|json
 *
 * Keys are `key:%012d`, 0 .. K-1, SET over one connection pipelined 1000
 * deep. Values are exactly V bytes:
 *   random: seeded splitmix64 bytes, the same generator and seeding as
 *           bench/spike.c, so `--kind random` is the spike data set;
 *   json:   JSON-like text of a made-up user record (the same field names
 *           in every value, numbers, dates and words from a small
 *           vocabulary), cut or padded with words to V bytes: data that
 *           compresses, as JSON in a cache does.
 * Exit status 0, or 1 with a message on stderr. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FILL_BATCH 1000

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void fill_random(char *buf, size_t len, uint64_t *s)
{
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t r = splitmix64(s);
        memcpy(buf + i, &r, 8);
    }
    if (i < len) {
        uint64_t r = splitmix64(s);
        memcpy(buf + i, &r, len - i);
    }
}

static const char *const words[] = {
    "alpha", "bravo", "cache", "delta", "engine", "fast", "graph", "hello",
    "index", "json", "kilo", "large", "metric", "node", "order", "point",
};

/* A JSON-like record of exactly len bytes (len >= 2). */
static void fill_json(char *buf, size_t len, long id, uint64_t *s)
{
    uint64_t r = splitmix64(s), q = splitmix64(s);
    char tmp[1024];
    int n = snprintf(tmp, sizeof tmp,
                     "{\"id\":%ld,\"user\":\"user%06u\",\"email\":\"user%06u@example.com\","
                     "\"active\":%s,\"score\":%u,\"tags\":[\"%s\",\"%s\"],"
                     "\"created\":\"2024-%02u-%02uT%02u:%02u:%02uZ\",\"bio\":\"",
                     id, (unsigned)(r % 1000000), (unsigned)(r % 1000000),
                     (r >> 20) & 1 ? "true" : "false", (unsigned)((r >> 21) % 10000),
                     words[(r >> 40) % 16], words[(r >> 44) % 16],
                     (unsigned)(1 + q % 12), (unsigned)(1 + (q >> 8) % 28),
                     (unsigned)((q >> 16) % 24), (unsigned)((q >> 24) % 60),
                     (unsigned)((q >> 32) % 60));
    size_t at = (size_t)n < len - 2 ? (size_t)n : len - 2;
    memcpy(buf, tmp, at);
    while (at < len - 2) {   /* words up to the closing "} */
        const char *w = words[splitmix64(s) % 16];
        size_t wl = strlen(w);
        if (wl + 1 > len - 2 - at) wl = len - 2 - at - 1;
        memcpy(buf + at, w, wl);
        at += wl;
        if (at < len - 2) buf[at++] = ' ';
    }
    buf[len - 2] = '"';
    buf[len - 1] = '}';
}

static void usage(void)
{
    fprintf(stderr, "usage: rdbfill --port N --keys K --value V --seed S --kind random|json\n");
    exit(1);
}

int main(int argc, char **argv)
{
    int port = 0;
    long keys = 0;
    size_t vsize = 0;
    uint64_t seed = 1;
    const char *kind = NULL;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--keys")) keys = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--value")) vsize = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--kind")) kind = argv[i + 1];
        else usage();
    }
    int json = kind && !strcmp(kind, "json");
    if (argc % 2 != 1 || port <= 0 || keys <= 0 || vsize < 2 || vsize > 1000 || !kind ||
        (!json && strcmp(kind, "random")))
        usage();
    redisContext *c = redisConnect("127.0.0.1", port);
    if (!c || c->err) {
        fprintf(stderr, "rdbfill: connect %d: %s\n", port, c ? c->errstr : "out of memory");
        return 1;
    }
    uint64_t s = seed;
    char key[32], *val = malloc(vsize);
    const char *av[3] = { "SET", key, val };
    size_t al[3] = { 3, 0, vsize };
    for (long base = 0; base < keys; base += FILL_BATCH) {
        long n = keys - base < FILL_BATCH ? keys - base : FILL_BATCH;
        for (long i = 0; i < n; i++) {
            al[1] = (size_t)snprintf(key, sizeof key, "key:%012ld", base + i);
            if (json) fill_json(val, vsize, base + i, &s);
            else fill_random(val, vsize, &s);
            redisAppendCommandArgv(c, 3, av, al);
        }
        for (long i = 0; i < n; i++) {
            redisReply *r = NULL;
            if (redisGetReply(c, (void **)&r) != REDIS_OK || r->type == REDIS_REPLY_ERROR) {
                fprintf(stderr, "rdbfill: SET failed: %s\n", r ? r->str : c->errstr);
                return 1;
            }
            freeReplyObject(r);
        }
    }
    free(val);
    redisFree(c);
    return 0;
}
