/* nodes_conf: nodes.conf (cluster-config-file, relative to dir), Redis
 * 7.0's format: its text (the lines CLUSTER NODES shares), loading it at
 * start, locking it, and saving it.
 *
 * One line per node (handshake nodes are not saved):
 *   <id> <ip>:<port>@<cport>[,<hostname>] <flags> <primary-id|-> <ping_sent>
 *   <pong_received> <config-epoch> <connected|disconnected> <slots...>
 * slots as "a-b" ranges or single numbers, and for myself the open
 * migrations "[slot->-<id>]" / "[slot-<-<id>]"; then
 *   vars currentEpoch N lastVoteEpoch M
 *
 * Saving never makes the loop wait on the disk: cl_conf_save hands the
 * text to a writer thread (the newest text wins), which writes a temporary
 * file and renames it over nodes.conf; when a save asked for fsync (as
 * Redis's CLUSTER_TODO_FSYNC_CONFIG: epochs, votes, a new primary), the
 * file is fsynced before the rename and the directory after, else not (a
 * SETSLOT's save, five per slot a reshard moves: their fsyncs, two per
 * save, kept the disk and the writer busy for what Redis 7.0 does not
 * fsync either); after such a write the writer lets CONF_COALESCE_MS pass
 * (cut short by a save that asks for fsync), so that a burst of them is
 * one write. The done callbacks come back on the loop thread through
 * a uv_async once the text they asked for (or a newer one) is written, and
 * durable if any request folded into it asked for fsync. cl_conf_save_now
 * writes on the calling (loop) thread, fsynced: CLUSTER SAVECONFIG and
 * shutdown.
 *
 * The lock: as Redis 7.0, an exclusive flock on nodes.conf held for the
 * life of the process (a second server on the same file refuses to
 * start). As the file is replaced by rename, the lock moves with it: the
 * temporary file is locked before it is renamed, and the old file's lock
 * is let go after. */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "cluster_int.h"
#include "log.h"
#include "server.h"
#include "util.h"
#include "vbuf.h"

static const char corrupt_msg[] = "Unrecoverable error: corrupted cluster config file.";

/* ---- the text ---- */

static void append_slot_range(vbuf *b, int start, int end) {
    if (start == end)
        vbuf_appendf(b, " %d", start);
    else
        vbuf_appendf(b, " %d-%d", start, end);
}

void cl_conf_node_line(vbuf *b, const cluster_node *n, int use_pport) {
    int port = use_pport && n->pport ? n->pport : n->port;
    vbuf_append(b, n->name, CL_NAMELEN);
    vbuf_appendf(b, " %s:%d@%d", n->ip, port, n->cport);
    if (n->hostname && n->hostname[0]) vbuf_appendf(b, ",%s", n->hostname);
    char flags[128];
    cl_node_flags_text(n, flags, sizeof flags);
    vbuf_appendf(b, " %s ", flags);
    if (n->primary)
        vbuf_append(b, n->primary->name, CL_NAMELEN);
    else
        vbuf_append_str(b, "-");
    /* a replica shows its primary's config epoch, as 7.0 */
    uint64_t epoch = (n->flags & CL_NODE_REPLICA) && n->primary ? n->primary->config_epoch
                                                               : n->config_epoch;
    vbuf_appendf(b, " %lld %lld %llu %s", n->ping_sent, n->pong_received,
                 (unsigned long long)epoch,
                 (n->link || (n->flags & CL_NODE_MYSELF)) ? "connected" : "disconnected");
    /* the ranges, a byte of the bitmap at a time where it neither starts
     * nor ends one (this text is made for every save and CLUSTER NODES) */
    int start = -1;
    for (int s = 0; n->numslots && s < KEYSLOT_COUNT;) {
        if ((s & 7) == 0 && n->slots[s >> 3] == (start < 0 ? 0x00 : 0xff)) {
            s += 8;
            continue;
        }
        int has = cl_node_has_slot(n, (unsigned)s);
        if (has && start < 0) start = s;
        if (!has && start >= 0) {
            append_slot_range(b, start, s - 1);
            start = -1;
        }
        s++;
    }
    if (start >= 0) append_slot_range(b, start, KEYSLOT_COUNT - 1);
    if (!(n->flags & CL_NODE_MYSELF)) return;
    for (int s = 0; s < KEYSLOT_COUNT; s++) {
        if (cl.migrating_to[s])
            vbuf_appendf(b, " [%d->-%.40s]", s, cl.migrating_to[s]->name);
        else if (cl.importing_from[s])
            vbuf_appendf(b, " [%d-<-%.40s]", s, cl.importing_from[s]->name);
    }
}

void cl_conf_nodes_text(vbuf *b, int filter, int use_pport) {
    for (int i = 0; i < cl.numnodes; i++) {
        if (cl.nodes[i]->flags & filter) continue;
        cl_conf_node_line(b, cl.nodes[i], use_pport);
        vbuf_append_str(b, "\n");
    }
}

void cl_conf_text(vbuf *b) {
    cl_conf_nodes_text(b, CL_NODE_HANDSHAKE, 0);
    vbuf_appendf(b, "vars currentEpoch %llu lastVoteEpoch %llu\n",
                 (unsigned long long)cl.current_epoch, (unsigned long long)cl.last_vote_epoch);
}

/* ---- parsing ---- */

/* Redis's verifyClusterNodeId: 40 characters of [a-z0-9]. */
static int valid_id(const char *p, size_t len) {
    if (len != CL_NAMELEN) return 0;
    for (size_t i = 0; i < len; i++)
        if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9'))) return 0;
    return 1;
}

/* A decimal number of digits only, [0, max]: 1, or 0. */
static int parse_uint(const char *p, size_t len, unsigned long long max, unsigned long long *out) {
    if (len == 0 || len > 20) return 0;
    unsigned long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        unsigned d = (unsigned)(p[i] - '0');
        if (v > (max - d) / 10) return 0;
        v = v * 10 + d;
    }
    *out = v;
    return 1;
}

static int parse_slot(const char *p, size_t len, int *slot) {
    unsigned long long v;
    if (!parse_uint(p, len, KEYSLOT_COUNT - 1, &v)) return 0;
    *slot = (int)v;
    return 1;
}

typedef struct field {
    const char *p;
    size_t len;
} field;

#define MAX_FIELDS (8 + 2 * KEYSLOT_COUNT)

/* Splits a line at spaces and tabs. Returns the count, or -1 when more
 * than cap. */
static int split_fields(const char *p, size_t len, field *f, int cap) {
    int n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r')) i++;
        if (i == len) break;
        size_t start = i;
        while (i < len && p[i] != ' ' && p[i] != '\t' && p[i] != '\r') i++;
        if (n == cap) return -1;
        f[n++] = (field){p + start, i - start};
    }
    return n;
}

static int field_is(field f, const char *s) {
    return f.len == strlen(s) && strncasecmp(f.p, s, f.len) == 0;
}

static cluster_node *node_get(const char *name) {
    cluster_node *n = cl_node_lookup(name, CL_NAMELEN);
    if (n) return n;
    n = cl_node_new(name, 0);
    cl_node_add(n);
    return n;
}

static int parse_vars(const field *f, int nf) {
    if (nf % 2 == 0) return -1;
    for (int j = 1; j < nf; j += 2) {
        unsigned long long v;
        int known = field_is(f[j], "currentEpoch") || field_is(f[j], "lastVoteEpoch");
        if (!known) {
            log_warning("Skipping unknown cluster config variable '%.*s'", (int)f[j].len, f[j].p);
            continue;
        }
        if (!parse_uint(f[j + 1].p, f[j + 1].len, UINT64_MAX, &v)) return -1;
        if (field_is(f[j], "currentEpoch"))
            cl.current_epoch = v;
        else
            cl.last_vote_epoch = v;
    }
    return 0;
}

/* "ip:port[@cport][,hostname]" */
static int parse_address(cluster_node *n, field a) {
    const char *end = a.p + a.len;
    const char *comma = memchr(a.p, ',', a.len);
    if (comma) {
        cl_node_set_hostname(n, comma + 1, (size_t)(end - comma - 1));
        end = comma;
    } else {
        cl_node_set_hostname(n, "", 0);
    }
    const char *colon = NULL;
    for (const char *q = a.p; q < end; q++)
        if (*q == ':') colon = q;
    if (!colon) return -1;
    size_t iplen = (size_t)(colon - a.p);
    if (iplen >= sizeof n->ip) return -1;
    memcpy(n->ip, a.p, iplen);
    n->ip[iplen] = '\0';
    const char *port = colon + 1;
    const char *at = memchr(port, '@', (size_t)(end - port));
    unsigned long long v;
    if (!parse_uint(port, (size_t)((at ? at : end) - port), 65535, &v)) return -1;
    n->port = (int)v;
    if (at) {
        if (!parse_uint(at + 1, (size_t)(end - at - 1), 65535, &v)) return -1;
        n->cport = (int)v;
    } else {
        n->cport = n->port + 10000; /* files older than the @cport */
    }
    return 0;
}

static int parse_flags(cluster_node *n, field f) {
    static const struct { const char *name; int flag; } names[] = {
        {"myself", CL_NODE_MYSELF},    {"master", CL_NODE_PRIMARY},
        {"slave", CL_NODE_REPLICA},    {"fail?", CL_NODE_PFAIL},
        {"fail", CL_NODE_FAIL},        {"handshake", CL_NODE_HANDSHAKE},
        {"noaddr", CL_NODE_NOADDR},    {"nofailover", CL_NODE_NOFAILOVER},
        {"noflags", 0},
    };
    const char *p = f.p, *end = f.p + f.len;
    while (p <= end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        field one = {p, (size_t)((comma ? comma : end) - p)};
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (field_is(one, names[i].name)) break;
        if (i == sizeof names / sizeof names[0]) return -1;
        if (names[i].flag == CL_NODE_MYSELF) {
            if (cl.myself && cl.myself != n) return -1;
            cl.myself = n;
        }
        if (names[i].flag == CL_NODE_FAIL) n->fail_time = cl_now_ms();
        n->flags |= names[i].flag;
        if (!comma) break;
        p = comma + 1;
    }
    /* myself is never in handshake (handshake nodes are not saved: the
     * next load would find no myself) */
    if ((n->flags & CL_NODE_MYSELF) && (n->flags & CL_NODE_HANDSHAKE)) return -1;
    return 0;
}

/* "[slot->-id]" or "[slot-<-id]" */
static int parse_migration(field f) {
    if (f.len < 2 || f.p[f.len - 1] != ']') return -1;
    const char *p = f.p + 1, *end = f.p + f.len - 1;
    const char *dash = memchr(p, '-', (size_t)(end - p));
    int slot;
    if (!dash || !parse_slot(p, (size_t)(dash - p), &slot)) return -1;
    if (end - dash < 3 || (dash[1] != '>' && dash[1] != '<') || dash[2] != '-') return -1;
    const char *id = dash + 3;
    if (!valid_id(id, (size_t)(end - id))) return -1;
    cluster_node *target = node_get(id);
    if (dash[1] == '>')
        cl.migrating_to[slot] = target;
    else
        cl.importing_from[slot] = target;
    return 0;
}

static int parse_slots(cluster_node *n, field f) {
    if (f.p[0] == '[') return parse_migration(f);
    const char *dash = memchr(f.p, '-', f.len);
    int start, stop;
    if (dash) {
        if (!parse_slot(f.p, (size_t)(dash - f.p), &start) ||
            !parse_slot(dash + 1, (size_t)(f.p + f.len - dash - 1), &stop))
            return -1;
    } else {
        if (!parse_slot(f.p, f.len, &start)) return -1;
        stop = start;
    }
    /* a slot claimed twice stays with the first, as Redis's clusterAddSlot */
    for (int s = start; s <= stop; s++) cl_slot_add(n, (unsigned)s);
    return 0;
}

static int parse_node_line(const field *f, int nf) {
    if (nf < 8) return -1;
    if (!valid_id(f[0].p, f[0].len)) return -1;
    cluster_node *n = node_get(f[0].p);
    if (parse_address(n, f[1]) != 0) return -1;
    if (parse_flags(n, f[2]) != 0) return -1;
    if (f[3].p[0] != '-') {
        if (!valid_id(f[3].p, f[3].len)) return -1;
        cluster_node *primary = node_get(f[3].p);
        if (primary == n) return -1;
        if (n->primary) cl_node_remove_replica(n->primary, n);
        n->primary = primary;
        cl_node_add_replica(primary, n);
    }
    unsigned long long v;
    if (!parse_uint(f[4].p, f[4].len, UINT64_MAX, &v)) return -1;
    if (v) n->ping_sent = cl_now_ms();
    if (!parse_uint(f[5].p, f[5].len, UINT64_MAX, &v)) return -1;
    if (v) n->pong_received = cl_now_ms();
    if (!parse_uint(f[6].p, f[6].len, UINT64_MAX, &v)) return -1;
    /* a replica's line carries its primary's epoch: its own is 0 */
    n->config_epoch = (n->flags & CL_NODE_REPLICA) && n->primary ? 0 : v;
    if (!field_is(f[7], "connected") && !field_is(f[7], "disconnected")) return -1;
    for (int j = 8; j < nf; j++)
        if (parse_slots(n, f[j]) != 0) return -1;
    return 0;
}

int cl_conf_parse(const char *text, size_t len, char *err, size_t errlen) {
    assert(cl.numnodes == 0 && cl.myself == NULL);
    field *f = xmalloc(MAX_FIELDS * sizeof *f);
    int lineno = 0, rc = 0;
    size_t i = 0;
    while (i < len && rc == 0) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t linelen = nl ? (size_t)(nl - (text + i)) : len - i;
        const char *line = text + i;
        i += linelen + (nl ? 1 : 0);
        lineno++;
        int nf = split_fields(line, linelen, f, MAX_FIELDS);
        if (nf == 0) continue; /* blank lines (a hand edit) */
        if (nf < 0)
            rc = -1;
        else if (field_is(f[0], "vars"))
            rc = parse_vars(f, nf);
        else
            rc = parse_node_line(f, nf);
        if (rc != 0) log_warning("nodes.conf: line %d is not valid", lineno);
    }
    free(f);
    if (rc == 0 && !cl.myself) {
        log_warning("nodes.conf: no line for myself");
        rc = -1;
    }
    if (rc != 0) {
        snprintf(err, errlen, "%s", corrupt_msg);
        return -1;
    }
    uint64_t max = cl_max_epoch();
    if (max > cl.current_epoch) cl.current_epoch = max; /* a hand-edited file */
    return 0;
}

/* ---- myself's address ---- */

/* Redis 7.0's deriveAnnouncedPorts: with tls-cluster the client port is
 * the TLS one (and pport the plain one), the bus port follows it; the
 * cluster-announce-* parameters override. */
static void derive_ports(int *port, int *pport, int *cport) {
    const conf_compat *cc = &server.cfg.compat;
    int base = cc->tls_cluster ? cc->tls_port : server.cfg.port;
    *port = base;
    *pport = cc->tls_cluster ? server.cfg.port : 0;
    *cport = cc->cluster_port ? cc->cluster_port : base + 10000;
    if (cc->tls_cluster && cc->cluster_announce_tls_port) {
        *port = cc->cluster_announce_tls_port;
        *pport = cc->cluster_announce_port;
    } else if (cc->cluster_announce_port) {
        *port = cc->cluster_announce_port;
    }
    if (cc->cluster_announce_bus_port) *cport = cc->cluster_announce_bus_port;
}

int cl_conf_update_myself(void) {
    cluster_node *me = cl.myself;
    const conf_compat *cc = &server.cfg.compat;
    int port, pport, cport;
    derive_ports(&port, &pport, &cport);
    int changed = port != me->port || cport != me->cport || pport != me->pport;
    me->port = port;
    me->pport = pport;
    me->cport = cport;
    /* the announced ip replaces the one the bus learnt; without one, the
     * bus's (or the file's) stays */
    static char announced[BUS_IPLEN];
    const char *ip = cc->cluster_announce_ip ? cc->cluster_announce_ip : "";
    if (strcmp(ip, announced) != 0) {
        snprintf(announced, sizeof announced, "%s", ip);
        if (ip[0]) snprintf(me->ip, sizeof me->ip, "%s", ip);
        changed = 1;
    }
    const char *h = cc->cluster_announce_hostname ? cc->cluster_announce_hostname : "";
    if (strcmp(h, me->hostname ? me->hostname : "") != 0) {
        cl_node_set_hostname(me, h, strlen(h));
        changed = 1;
    }
    return changed;
}

/* ---- the file: lock, write ---- */

#define CONF_COALESCE_MS 10 /* saves without fsync: at most one write per */

/* The writer's state. The mutex guards every field; text, text_fsync and
 * waiting are filled by the loop thread and taken by the writer; finished
 * is filled by the writer and taken by the loop thread (the uv_async). */
typedef struct conf_cb {
    void (*done)(void *priv, int ok);
    void *priv;
    int ok;
    struct conf_cb *next;
} conf_cb;

static struct {
    char *path;              /* set at load, read-only after */
    char *tmp_path;
    pthread_mutex_t mu;
    pthread_cond_t cond;
    char *text;              /* under mu: the newest text not yet taken */
    size_t text_len;
    uint64_t text_seq;
    int text_fsync;          /* under mu: a request folded into text wants fsync */
    conf_cb *waiting;        /* under mu: callbacks for `text`, oldest first */
    conf_cb *finished;       /* under mu: callbacks to run on the loop, oldest first */
    int stop;                /* under mu */
    pthread_mutex_t io;      /* held while writing the file */
    int lock_fd;             /* under io: the flock'ed nodes.conf */
    uint64_t file_seq;       /* under io: seq of the text on disk */
    uint64_t next_seq;       /* loop thread only */
    pthread_t thread;
    int started;             /* loop thread only */
    uv_async_t async;
} w = {.lock_fd = -1};

/* Appends the list cbs (may be NULL) at the end of *list. Caller holds
 * w.mu. O(length): a handful of waiters at most. */
static void append_cbs(conf_cb **list, conf_cb *cbs) {
    while (*list) list = &(*list)->next;
    *list = cbs;
}

/* Opens (creating) path and takes the exclusive lock: Redis 7.0's
 * clusterLockConfig messages. The file is replaced by rename while a
 * server holds it: a lock taken on a file that was renamed over meanwhile
 * is on the old one, so it is taken again on the file the path names now. */
static int lock_config(const char *path, char *err, size_t errlen) {
    for (;;) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd == -1) {
            snprintf(err, errlen, "Can't open %s in order to acquire a lock: %s", path,
                     strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
            if (errno == EWOULDBLOCK)
                snprintf(err, errlen,
                         "Sorry, the cluster configuration file %s is already used by a "
                         "different Redis Cluster node. Please make sure that different nodes "
                         "use different cluster configuration files.",
                         path);
            else
                snprintf(err, errlen, "Impossible to lock %s: %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        struct stat locked, named;
        if (fstat(fd, &locked) == 0 && stat(path, &named) == 0 && locked.st_ino == named.st_ino &&
            locked.st_dev == named.st_dev) {
            w.lock_fd = fd;
            return 0;
        }
        close(fd); /* renamed over between the open and the lock */
    }
}

static int write_all(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fsync_dir_of(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? xstrdup(path) : xstrdup(".");
    if (slash) dir[slash - path == 0 ? 1 : slash - path] = '\0';
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    free(dir);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Writes text as the new nodes.conf: temporary file (locked), fsync when
 * do_fsync, rename, directory fsync when do_fsync; the lock moves to the
 * new file. Caller holds w.io. 0, or -1 with errno. A text older than the
 * one on disk is skipped. */
static int write_file_locked(const char *text, size_t len, uint64_t seq, int do_fsync) {
    if (seq < w.file_seq) return 0;
    int fd = open(w.tmp_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    int rc = flock(fd, LOCK_EX | LOCK_NB);
    if (rc == 0) rc = write_all(fd, text, len);
    if (rc == 0 && do_fsync) rc = fsync(fd);
    if (rc == 0) rc = rename(w.tmp_path, w.path);
    if (rc != 0) {
        int e = errno;
        close(fd);
        unlink(w.tmp_path);
        errno = e;
        return -1;
    }
    if (w.lock_fd >= 0) close(w.lock_fd);
    w.lock_fd = fd;
    w.file_seq = seq;
    return do_fsync ? fsync_dir_of(w.path) : 0;
}

/* After a write without fsync the writer waits CONF_COALESCE_MS (unless a
 * save asks for fsync, or the server stops) so that a burst of saves, a
 * reshard's SETSLOTs, is one write: each is a file created and renamed,
 * work for the core the loop may share. Caller holds w.mu. */
static void coalesce_locked(void) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += CONF_COALESCE_MS * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!w.text_fsync && !w.stop)
        if (pthread_cond_timedwait(&w.cond, &w.mu, &until) == ETIMEDOUT) break;
}

/* The writer thread: takes the newest text, writes it, hands the
 * callbacks back to the loop. */
static void *writer_main(void *unused) {
    (void)unused;
    pthread_mutex_lock(&w.mu);
    for (;;) {
        while (!w.text && !w.stop) pthread_cond_wait(&w.cond, &w.mu);
        if (!w.text) break;
        char *text = w.text;
        size_t len = w.text_len;
        uint64_t seq = w.text_seq;
        int do_fsync = w.text_fsync;
        conf_cb *cbs = w.waiting;
        w.text = NULL;
        w.text_fsync = 0;
        w.waiting = NULL;
        pthread_mutex_unlock(&w.mu);

        pthread_mutex_lock(&w.io);
        int rc = write_file_locked(text, len, seq, do_fsync);
        int e = errno;
        pthread_mutex_unlock(&w.io);
        free(text);
        if (rc != 0) log_warning("Could not save the cluster config file %s: %s", w.path, strerror(e));

        for (conf_cb *cb = cbs; cb; cb = cb->next) cb->ok = rc == 0;
        pthread_mutex_lock(&w.mu);
        append_cbs(&w.finished, cbs);
        pthread_mutex_unlock(&w.mu);
        uv_async_send(&w.async);
        pthread_mutex_lock(&w.mu);
        if (!do_fsync) coalesce_locked();
    }
    pthread_mutex_unlock(&w.mu);
    return NULL;
}

/* Loop thread: the callbacks of saves that are durable (or failed). */
static void on_saved(uv_async_t *a) {
    (void)a;
    pthread_mutex_lock(&w.mu);
    conf_cb *cbs = w.finished;
    w.finished = NULL;
    pthread_mutex_unlock(&w.mu);
    while (cbs) {
        conf_cb *next = cbs->next;
        cbs->done(cbs->priv, cbs->ok);
        free(cbs);
        cbs = next;
    }
}

static void writer_start(void) {
    if (w.started) return;
    pthread_mutex_init(&w.mu, NULL);
    pthread_mutex_init(&w.io, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* coalesce_locked's clock */
    pthread_cond_init(&w.cond, &ca);
    pthread_condattr_destroy(&ca);
    int rc = uv_async_init(server.loop, &w.async, on_saved);
    assert(rc == 0);
    uv_unref((uv_handle_t *)&w.async);
    rc = pthread_create(&w.thread, NULL, writer_main, NULL);
    assert(rc == 0);
    (void)rc;
    w.started = 1;
}

void cl_conf_save(int fsync_wanted, void (*done)(void *priv, int ok), void *priv) {
    assert(w.started);
    vbuf b;
    vbuf_init(&b);
    cl_conf_text(&b);
    conf_cb *cb = NULL;
    if (done) {
        cb = xcalloc(1, sizeof *cb);
        cb->done = done;
        cb->priv = priv;
    }
    /* thread boundary: the text and the callback go to the writer */
    pthread_mutex_lock(&w.mu);
    free(w.text);
    w.text = b.data;
    w.text_len = b.len;
    w.text_seq = ++w.next_seq;
    w.text_fsync |= fsync_wanted != 0; /* a text replaced unwritten keeps its fsync */
    append_cbs(&w.waiting, cb);
    pthread_cond_signal(&w.cond);
    pthread_mutex_unlock(&w.mu);
}

int cl_conf_save_now(char *err, size_t errlen) {
    assert(w.started);
    vbuf b;
    vbuf_init(&b);
    cl_conf_text(&b);
    pthread_mutex_lock(&w.mu);
    uint64_t seq = ++w.next_seq;
    pthread_mutex_unlock(&w.mu);
    pthread_mutex_lock(&w.io);
    int rc = write_file_locked(b.data, b.len, seq, 1);
    int e = errno;
    pthread_mutex_unlock(&w.io);
    vbuf_free(&b);
    if (rc != 0) snprintf(err, errlen, "%s", strerror(e));
    return rc;
}

void cl_conf_shutdown(void) {
    if (!w.started) return;
    char err[256];
    int rc = cl_conf_save_now(err, sizeof err);
    if (rc != 0) log_warning("Could not save the cluster config file %s: %s", w.path, err);
    pthread_mutex_lock(&w.mu);
    w.stop = 1;
    free(w.text); /* older than what save_now wrote */
    w.text = NULL;
    pthread_cond_signal(&w.cond);
    pthread_mutex_unlock(&w.mu);
    pthread_join(w.thread, NULL);
    /* the saves still waiting are durable (save_now wrote a newer text),
     * and the finished ones: their callbacks run now, the loop being done */
    for (conf_cb *cb = w.waiting; cb; cb = cb->next) cb->ok = rc == 0;
    append_cbs(&w.finished, w.waiting);
    w.waiting = NULL;
    on_saved(&w.async);
    w.started = 0;
}

/* ---- loading ---- */

static int read_file(int fd, char **out, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = xmalloc(cap);
    for (;;) {
        if (n == cap) buf = xrealloc(buf, cap *= 2);
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(buf);
            return -1;
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    *out = buf;
    *len = n;
    return 0;
}

static void new_myself(void) {
    cl.myself = cl_node_new(NULL, CL_NODE_MYSELF | CL_NODE_PRIMARY);
    cl_node_add(cl.myself);
}

int cl_conf_load(const char *path, char *err, size_t errlen) {
    w.path = xstrdup(path);
    size_t plen = strlen(path);
    w.tmp_path = xmalloc(plen + 16);
    snprintf(w.tmp_path, plen + 16, "%s.tmp", path);
    if (lock_config(path, err, errlen) != 0) return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char *text = NULL;
    size_t len = 0;
    if (fd < 0 || read_file(fd, &text, &len) != 0) {
        snprintf(err, errlen, "Loading the cluster node config from %s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    int rc = 1;
    if (len == 0) {
        new_myself();
        log_notice("No cluster configuration found, I'm %.40s", cl.myself->name);
    } else if (cl_conf_parse(text, len, err, errlen) != 0) {
        rc = -1;
    } else {
        rc = 0;
        log_notice("Node configuration loaded, I'm %.40s", cl.myself->name);
    }
    free(text);
    if (rc < 0) return -1;
    cl_conf_update_myself();
    writer_start();
    if (rc == 1 && cl_conf_save_now(err, errlen) != 0) {
        char why[256];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "Fatal: can't update cluster config file: %s", why);
        return -1;
    }
    return rc;
}
