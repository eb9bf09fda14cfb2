/* client_mem: clients' memory, its totals and client eviction (see
 * client_mem.h). */
#include "client_mem.h"

#include <assert.h>
#include <stdint.h>

#include "cmd.h"
#include "log.h"
#include "multi.h"
#include "net.h"
#include "pubsub.h"
#include "tracking.h"

/* Buckets of Redis 7.0 (CLIENT_MEM_USAGE_BUCKET_MIN_LOG / MAX_LOG): up to
 * 32 KB in the first, then one per power of two, over 4 GB in the last. */
#define BUCKET_MIN_LOG 15
#define BUCKET_MAX_LOG 33
#define NBUCKETS (1 + BUCKET_MAX_LOG - BUCKET_MIN_LOG)
/* The least maxmemory-clients Redis applies (getClientEvictionLimit). */
#define LIMIT_MIN (128u * 1024)

static struct {
    size_t total[CLIENT_TYPES]; /* sum of c->mem per client type */
    struct {
        client *head, *tail;
    } bucket[NBUCKETS];
} M;

/* ---- one client's memory ---- */

/* The TLS session's ciphertext not yet taken (net_pending_output's rest). */
static size_t tls_held(const client *c) {
    return net_pending_output(c) - c->reply.len - c->inflight.len;
}

size_t client_mem_output(const client *c) {
    return (c->reply.len ? c->reply.cap : 0) + (c->inflight.len ? c->inflight.cap : 0) +
           tls_held(c);
}

size_t client_mem_usage(const client *c) {
    return sizeof *c + c->in.cap + c->reply.cap + c->inflight.cap + tls_held(c) +
           (size_t)c->argv_cap * sizeof(arg) + multi_mem(c) + pubsub_client_mem(c) +
           tracking_client_mem(c);
}

/* ---- buckets ---- */

static int bucket_of(size_t mem) {
    int bits = mem ? 64 - __builtin_clzll((unsigned long long)mem) : 0;
    if (bits > BUCKET_MAX_LOG) bits = BUCKET_MAX_LOG;
    if (bits < BUCKET_MIN_LOG) bits = BUCKET_MIN_LOG;
    return bits - BUCKET_MIN_LOG;
}

static int evictable(const client *c) {
    int t = client_type(c);
    return !(c->flags & CLIENT_NO_EVICT) && (t == CLIENT_TYPE_NORMAL || t == CLIENT_TYPE_PUBSUB);
}

static void bucket_unlink(client *c) {
    if (c->mem_bucket < 0) return;
    int b = c->mem_bucket;
    if (c->mb_prev) c->mb_prev->mb_next = c->mb_next;
    else M.bucket[b].head = c->mb_next;
    if (c->mb_next) c->mb_next->mb_prev = c->mb_prev;
    else M.bucket[b].tail = c->mb_prev;
    c->mb_prev = c->mb_next = NULL;
    c->mem_bucket = -1;
}

/* Appended: within a bucket, the client that entered it first goes first. */
static void bucket_link(client *c, int b) {
    assert(c->mem_bucket < 0 && b >= 0 && b < NBUCKETS);
    c->mb_prev = M.bucket[b].tail;
    c->mb_next = NULL;
    if (M.bucket[b].tail) M.bucket[b].tail->mb_next = c;
    else M.bucket[b].head = c;
    M.bucket[b].tail = c;
    c->mem_bucket = b;
}

/* ---- the totals ---- */

void client_mem_init(client *c) {
    c->mem = 0;
    c->mem_type = -1;
    c->mem_bucket = -1;
    c->mb_prev = c->mb_next = NULL;
}

void client_mem_forget(client *c) {
    bucket_unlink(c);
    if (c->mem_type >= 0) {
        assert(M.total[c->mem_type] >= c->mem);
        M.total[c->mem_type] -= c->mem;
    }
    c->mem = 0;
    c->mem_type = -1;
}

void client_mem_update(client *c) {
    if (c->tcp.data != c) return; /* a server's own client (a script's, the AOF loader's) */
    if (c->flags & (CLIENT_CLOSING | CLIENT_CLOSE_ASAP)) {
        client_mem_forget(c);
        return;
    }
    size_t mem = client_mem_usage(c);
    int type = client_type(c);
    if (c->mem_type >= 0) M.total[c->mem_type] -= c->mem;
    M.total[type] += mem;
    c->mem = mem;
    c->mem_type = type;
    int b = evictable(c) ? bucket_of(mem) : -1;
    if (b != c->mem_bucket) {
        bucket_unlink(c);
        if (b >= 0) bucket_link(c, b);
    }
}

size_t client_mem_normal(void) {
    return M.total[CLIENT_TYPE_NORMAL] + M.total[CLIENT_TYPE_PUBSUB] + M.total[CLIENT_TYPE_MASTER];
}

size_t client_mem_replicas(void) { return M.total[CLIENT_TYPE_REPLICA]; }

/* ---- eviction ---- */

size_t client_mem_limit(void) {
    long long mc = server.cfg.compat.maxmemory_clients;
    size_t limit;
    if (mc < 0 && server.cfg.maxmemory > 0)
        limit = (size_t)((double)server.cfg.maxmemory * (double)-mc / 100.0);
    else if (mc > 0) limit = (size_t)mc;
    else return 0;
    return limit < LIMIT_MIN ? LIMIT_MIN : limit;
}

static size_t evictable_types_total(void) {
    return M.total[CLIENT_TYPE_NORMAL] + M.total[CLIENT_TYPE_PUBSUB];
}

static void evict_one(client *c) {
    vbuf line;
    vbuf_init(&line);
    client_info_line(&line, c);
    if (line.len && line.data[line.len - 1] == '\n') line.len--;
    log_notice("Evicting client: %.*s", (int)line.len, line.data);
    vbuf_free(&line);
    server.stat.evicted_clients++;
    client_mem_forget(c);
    net_close_asap(c);
}

void client_mem_evict(void) {
    size_t limit = client_mem_limit();
    if (!limit) return;
    int b = NBUCKETS - 1;
    while (evictable_types_total() >= limit) {
        while (b >= 0 && !M.bucket[b].head) b--;
        if (b < 0) {
            log_warning("Over client maxmemory after evicting all evictable clients");
            return;
        }
        evict_one(M.bucket[b].head);
    }
}
