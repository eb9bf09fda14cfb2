/* migrate: MIGRATE outside cluster mode, as Redis 7.0 answers it (its
 * cluster.c: migrateCommand, migrateGetSocket, migrateCloseTimedoutSockets).
 *
 * The keys found go to the target as RESTORE commands carrying their DUMP
 * payloads (dump_payload.h), after AUTH and SELECT when needed, over a
 * connection kept for the next MIGRATE to the same host:port (at most
 * MIGRATE_CACHE of them, closed after MIGRATE_IDLE_S seconds unused, as
 * Redis's migrate_cached_sockets). Like Redis 7.0 the main thread does the
 * I/O itself, blocking, every connect, write and line read bounded by the
 * command's timeout: nothing else runs meanwhile, and the wait ends with
 * "-IOERR error or timeout ..." at the latest after the timeout. Keys the
 * target acknowledged are deleted here (unless COPY) and propagated as one
 * DEL. Main thread only. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cmd.h"
#include "db.h"
#include "dump_payload.h"
#include "hooks.h"
#include "notify.h"
#include "rdb.h"
#include "util.h"

#define MIGRATE_CACHE 64    /* Redis's MIGRATE_SOCKET_CACHE_ITEMS */
#define MIGRATE_IDLE_S 10   /* Redis's MIGRATE_SOCKET_CACHE_TTL */
#define MIGRATE_CHUNK (64 * 1024)

typedef struct cached_conn {
    char *name;         /* "host:port" as given; NULL: a free slot */
    int fd;
    long long last_db;  /* the target's selected db, -1 unknown */
    int64_t last_use_ms;
} cached_conn;

static cached_conn cache[MIGRATE_CACHE];

static size_t cache_count(void) {
    size_t n = 0;
    for (int i = 0; i < MIGRATE_CACHE; i++) n += cache[i].name != NULL;
    return n;
}

static void cache_drop(cached_conn *cc) {
    close(cc->fd);
    free(cc->name);
    *cc = (cached_conn){0};
}

static cached_conn *cache_find(const char *name) {
    for (int i = 0; i < MIGRATE_CACHE; i++)
        if (cache[i].name && !strcmp(cache[i].name, name)) return &cache[i];
    return NULL;
}

/* ---- blocking I/O bounded by a timeout ---- */

/* Waits up to ms for fd to be ready for `events`: 1 ready, 0 timed out
 * (errno ETIMEDOUT), -1 error. */
static int wait_fd(int fd, short events, int64_t deadline_ms) {
    for (;;) {
        int64_t left = deadline_ms - mono_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return 0;
        }
        struct pollfd p = {fd, events, 0};
        int rc = poll(&p, 1, (int)(left > 1000000 ? 1000000 : left));
        if (rc < 0 && errno == EINTR) continue;
        if (rc < 0) return -1;
        if (rc > 0) return 1;
    }
}

/* A non-blocking TCP connection to host:port, as Redis 7.0's blocking
 * connect: -1 only when the address does not resolve or connect fails at
 * once; a connect in progress is waited for up to timeout_ms and the
 * socket returned whatever the outcome (a refused or unanswered connect
 * shows as the write's error, "IOERR error or timeout writing ..."). */
static int connect_to(const char *host, const char *port, long timeout_ms) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res;
    if (getaddrinfo(host, port, &hints, &res) != 0) return -1;
    int fd = -1;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) break;
        if (errno == EINPROGRESS) {
            (void)wait_fd(fd, POLLOUT, mono_ms() + timeout_ms);
            break;
        }
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd >= 0) {
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

/* Writes all of p[0..n) within timeout_ms (Redis's syncWrite): 0, or -1. */
static int write_all(int fd, const char *p, size_t n, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
        if (wait_fd(fd, POLLOUT, deadline) != 1) return -1;
    }
    return 0;
}

/* Reads one reply line (up to "\r\n", stripped) into buf within timeout_ms
 * (Redis's syncReadLine): its length, or -1 (errno ETIMEDOUT on timeout). */
static ssize_t read_line(int fd, char *buf, size_t cap, long timeout_ms) {
    int64_t deadline = mono_ms() + timeout_ms;
    size_t n = 0;
    while (n + 1 < cap) {
        char ch;
        ssize_t r = recv(fd, &ch, 1, 0);
        if (r == 0) return -1;
        if (r < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return -1;
            if (wait_fd(fd, POLLIN, deadline) != 1) return -1;
            continue;
        }
        if (ch == '\n') {
            if (n > 0 && buf[n - 1] == '\r') n--;
            buf[n] = '\0';
            return (ssize_t)n;
        }
        buf[n++] = ch;
    }
    buf[n] = '\0';
    return (ssize_t)n;
}

/* The cached connection to host:port, or a new one (a full cache drops one
 * at random, as Redis); NULL after replying Redis's IOERR. */
static cached_conn *get_conn(client *c, const arg *host, const arg *port, long timeout_ms) {
    char name[512];
    snprintf(name, sizeof name, "%.*s:%.*s", (int)host->len, host->p, (int)port->len, port->p);
    cached_conn *cc = cache_find(name);
    if (cc) {
        cc->last_use_ms = mono_ms();
        return cc;
    }
    if (cache_count() == MIGRATE_CACHE) cache_drop(&cache[random() % MIGRATE_CACHE]);
    char h[256], p[32];
    snprintf(h, sizeof h, "%.*s", (int)host->len, host->p);
    snprintf(p, sizeof p, "%.*s", (int)port->len, port->p);
    int fd = connect_to(h, p, timeout_ms);
    if (fd < 0) {
        reply_error(c, "IOERR error or timeout connecting to the client");
        return NULL;
    }
    for (cc = cache; cc->name; cc++) {}
    *cc = (cached_conn){xstrdup(name), fd, -1, mono_ms()};
    return cc;
}

static void close_conn(const arg *host, const arg *port) {
    char name[512];
    snprintf(name, sizeof name, "%.*s:%.*s", (int)host->len, host->p, (int)port->len, port->p);
    cached_conn *cc = cache_find(name);
    if (cc) cache_drop(cc);
}

/* Cron: connections unused for MIGRATE_IDLE_S seconds are closed. */
static void migrate_cron(void) {
    int64_t now = mono_ms();
    for (int i = 0; i < MIGRATE_CACHE; i++)
        if (cache[i].name && now - cache[i].last_use_ms > MIGRATE_IDLE_S * 1000)
            cache_drop(&cache[i]);
}

static void migrate_info(const char *section, vbuf *b) {
    if (!strcmp(section, "stats")) vbuf_appendf(b, "migrate_cached_sockets:%zu\r\n", cache_count());
}

/* ---- the command ---- */

static void bulk(vbuf *b, const char *p, size_t n) {
    vbuf_appendf(b, "$%zu\r\n", n);
    vbuf_append(b, p, n);
    vbuf_append(b, "\r\n", 2);
}

typedef struct migrate_opts {
    int copy, replace;
    const arg *user, *pass;   /* AUTH pass, AUTH2 user pass */
    int first, nkeys;         /* the keys: argv[first .. first + nkeys) */
    long dbid, timeout;
} migrate_opts;

/* Redis 7.0's argument parsing; 0 after replying an error. */
static int parse(client *c, migrate_opts *o) {
    *o = (migrate_opts){.first = 3, .nkeys = 1};
    for (int j = 6; j < c->argc; j++) {
        int more = c->argc - 1 - j;
        const arg *a = &c->argv[j];
        if (arg_is(a, "copy")) {
            o->copy = 1;
        } else if (arg_is(a, "replace")) {
            o->replace = 1;
        } else if (arg_is(a, "auth") && more >= 1) {
            o->pass = &c->argv[++j];
        } else if (arg_is(a, "auth2") && more >= 2) {
            o->user = &c->argv[++j];
            o->pass = &c->argv[++j];
        } else if (arg_is(a, "keys")) {
            if (c->argv[3].len != 0) {
                reply_error(c, "ERR When using MIGRATE KEYS option, the key argument must be "
                               "set to the empty string");
                return 0;
            }
            o->first = j + 1;
            o->nkeys = c->argc - j - 1;
            break;
        } else {
            reply_syntax_error(c);
            return 0;
        }
    }
    long long timeout, dbid;
    if (!arg_ll(c, &c->argv[5], &timeout) || !arg_ll(c, &c->argv[4], &dbid)) return 0;
    o->timeout = timeout <= 0 ? 1000 : (long)timeout;
    o->dbid = (long)dbid;
    return 1;
}

/* The request: AUTH, SELECT when the target's db differs, one RESTORE per
 * key still there (its payload and remaining TTL). keys[] keeps the keys
 * sent, *nsent their count. */
static void build_request(client *c, const migrate_opts *o, cached_conn *cc, vbuf *req,
                          const arg **keys, int *nsent, int *sel) {
    db *d = db_get(c->db);
    if (o->pass) {
        vbuf_appendf(req, "*%d\r\n", o->user ? 3 : 2);
        bulk(req, "AUTH", 4);
        if (o->user) bulk(req, o->user->p, o->user->len);
        bulk(req, o->pass->p, o->pass->len);
    }
    *sel = cc->last_db != o->dbid;
    if (*sel) {
        char n[32];
        int len = snprintf(n, sizeof n, "%ld", o->dbid);
        vbuf_append_str(req, "*2\r\n");
        bulk(req, "SELECT", 6);
        bulk(req, n, (size_t)len);
    }
    int64_t now = wall_ms();
    *nsent = 0;
    for (int j = 0; j < o->nkeys; j++) {
        const arg *k = &c->argv[o->first + j];
        vt_entry *e = db_lookup_notouch(d, k->p, k->len);
        if (!e) continue;
        long long ttl = 0;
        if (vt_expire(e) != VT_NO_EXPIRE) {
            ttl = vt_expire(e) - now;
            if (ttl < 0) continue;
            if (ttl < 1) ttl = 1;
        }
        char err[RDB_ERRLEN];
        sink *payload = dump_payload_of(e->val, err, sizeof err);
        if (!payload) continue; /* a memory sink does not fail */
        size_t plen;
        const unsigned char *p = sink_mem_data(payload, &plen);
        char t[32];
        int tl = snprintf(t, sizeof t, "%lld", ttl);
        vbuf_appendf(req, "*%d\r\n", o->replace ? 5 : 4);
        bulk(req, "RESTORE", 7);
        bulk(req, k->p, k->len);
        bulk(req, t, (size_t)tl);
        bulk(req, (const char *)p, plen);
        if (o->replace) bulk(req, "REPLACE", 7);
        sink_free(payload);
        keys[(*nsent)++] = k;
    }
}

/* MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE]
 * [AUTH password | AUTH2 username password] [KEYS key ...] */
void cmd_migrate(client *c) {
    migrate_opts o;
    if (!parse(c, &o)) return;
    db *d = db_get(c->db);
    /* the keys here (a read: hits and misses counted); none: NOKEY */
    int present = 0;
    for (int j = 0; j < o.nkeys; j++)
        present += db_lookup_read(d, c->argv[o.first + j].p, c->argv[o.first + j].len) != NULL;
    if (!present) {
        reply_status(c, "NOKEY");
        return;
    }
    const arg **keys = xmalloc(sizeof *keys * (size_t)o.nkeys);
    int may_retry = 1, write_error = 0;
    for (;;) {
        write_error = 0;
        cached_conn *cc = get_conn(c, &c->argv[1], &c->argv[2], o.timeout);
        if (!cc) break;
        vbuf req = {0};
        int n, sel;
        build_request(c, &o, cc, &req, keys, &n, &sel);
        errno = 0;
        int ok = 1;
        for (size_t pos = 0; ok && pos < req.len; pos += MIGRATE_CHUNK) {
            size_t len = req.len - pos < MIGRATE_CHUNK ? req.len - pos : MIGRATE_CHUNK;
            if (write_all(cc->fd, req.data + pos, len, o.timeout) != 0) ok = 0;
        }
        vbuf_free(&req);
        char auth_line[1024] = "", sel_line[1024] = "", line[1024];
        if (!ok) write_error = 1;
        else if (o.pass && read_line(cc->fd, auth_line, sizeof auth_line, o.timeout) <= 0) ok = 0;
        else if (sel && read_line(cc->fd, sel_line, sizeof sel_line, o.timeout) <= 0) ok = 0;
        if (!ok) {
            close_conn(&c->argv[1], &c->argv[2]);
            if (errno != ETIMEDOUT && may_retry) {
                may_retry = 0;
                continue; /* a cached connection the target had closed */
            }
            reply_errorf(c, "IOERR error or timeout %s to target instance",
                         write_error ? "writing" : "reading");
            break;
        }
        /* the RESTOREs' replies: each acknowledged key goes (unless COPY) */
        int target_error = 0, socket_error = 0, j, ndel = 0;
        arg *del = o.copy ? NULL : xmalloc(sizeof *del * (size_t)(n + 1));
        for (j = 0; j < n; j++) {
            if (read_line(cc->fd, line, sizeof line, o.timeout) <= 0) {
                socket_error = 1;
                break;
            }
            const char *err = o.pass && auth_line[0] == '-' ? auth_line
                              : sel && sel_line[0] == '-'  ? sel_line
                              : line[0] == '-'              ? line
                                                            : NULL;
            if (err) {
                if (!target_error) {
                    cc->last_db = -1;
                    target_error = 1;
                    reply_errorf(c, "ERR Target instance replied with error: %s", err + 1);
                }
            } else if (!o.copy) {
                const arg *k = keys[j];
                db_delete(d, k->p, k->len);
                notify_keyspace_event(NOTIFY_GENERIC, "del", k->p, k->len, c->db);
                server_dirty(1);
                del[++ndel] = *k;
            }
        }
        if (!target_error && socket_error && j == 0 && may_retry && errno != ETIMEDOUT) {
            free(del);
            close_conn(&c->argv[1], &c->argv[2]);
            may_retry = 0;
            continue;
        }
        if (ndel) { /* replicas and the AOF delete what the target took */
            del[0] = (arg){"DEL", 3};
            cmd_propagate(c, ndel + 1, del);
        }
        free(del);
        if (socket_error) {
            close_conn(&c->argv[1], &c->argv[2]);
            if (!target_error) reply_error(c, "IOERR error or timeout reading to target instance");
        } else if (!target_error) {
            cc->last_db = o.dbid;
            reply_ok(c);
        }
        break;
    }
    free(keys);
}

/* Redis 7.0's migrateGetKeys: argv[3], or what follows KEYS (AUTH's and
 * AUTH2's arguments are no keys). */
static int migrate_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    (void)d;
    out->n = 0;
    int first = 3, num = 1;
    for (int i = 6; i < argc; i++) {
        if (arg_is(&argv[i], "auth2")) {
            i += 2;
        } else if (arg_is(&argv[i], "auth")) {
            i++;
        } else if (arg_is(&argv[i], "keys")) {
            first = i + 1;
            num = argc - first;
            break;
        }
    }
    for (int i = 0; i < num && first + i < argc; i++)
        cmd_keys_add(out, first + i, KS_RW | KS_ACCESS | KS_DELETE);
    return 1;
}

/* ---- the row (cmd.h's cmd_register; key specs and docs as Redis 7.0.15's) ---- */

static const cmd_key_spec migrate_keys[] = {
    {.flags = KS_RW | KS_ACCESS | KS_DELETE, BS_INDEX(3), FK_RANGE(0, 1, 0)},
    {.flags = KS_RW | KS_ACCESS | KS_DELETE | KS_INCOMPLETE, BS_KEYWORD("KEYS", -2),
     FK_RANGE(-1, 1, 0)},
};
static const char *const migrate_tips[] = {"nondeterministic_output", NULL};
static const char *const migrate_history[] = {"3.0.0", "Added the `COPY` and `REPLACE` options.", "3.0.6", "Added the `KEYS` option.", "4.0.7", "Added the `AUTH` option.", "6.0.0", "Added the `AUTH2` option.", NULL};
static const cmd_arg migrate_key_or_empty_string_args[] = {
    {.name = "key", .type = ARG_KEY, .key_spec_index = 0},
    {.name = "empty_string", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = ""},
    {0}};
static const cmd_arg migrate_authentication_username_password_args[] = {
    {.name = "username", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1},
    {0}};
static const cmd_arg migrate_authentication_args[] = {
    {.name = "password", .type = ARG_STRING, .key_spec_index = -1, .token = "AUTH", .since = "4.0.7", .flags = ARGF_OPTIONAL},
    {.name = "username_password", .type = ARG_BLOCK, .key_spec_index = -1, .token = "AUTH2", .since = "6.0.0", .flags = ARGF_OPTIONAL, .subargs = migrate_authentication_username_password_args},
    {0}};
static const cmd_arg migrate_args[] = {
    {.name = "host", .type = ARG_STRING, .key_spec_index = -1},
    {.name = "port", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "key_or_empty_string", .type = ARG_ONEOF, .key_spec_index = -1, .subargs = migrate_key_or_empty_string_args},
    {.name = "destination-db", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "timeout", .type = ARG_INTEGER, .key_spec_index = -1},
    {.name = "copy", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "COPY", .since = "3.0.0", .flags = ARGF_OPTIONAL},
    {.name = "replace", .type = ARG_PURE_TOKEN, .key_spec_index = -1, .token = "REPLACE", .since = "3.0.0", .flags = ARGF_OPTIONAL},
    {.name = "authentication", .type = ARG_ONEOF, .key_spec_index = -1, .flags = ARGF_OPTIONAL, .subargs = migrate_authentication_args},
    {.name = "key", .type = ARG_KEY, .key_spec_index = 1, .token = "KEYS", .since = "3.0.6", .flags = ARGF_OPTIONAL | ARGF_MULTIPLE},
    {0}};

static cmd_def migrate_cmds[] = {
    {.name = "migrate", .proc = cmd_migrate, .arity = -6, .flags = CMD_WRITE, .acl = CAT_KEYSPACE | CAT_WRITE | CAT_SLOW | CAT_DANGEROUS, KEY_SPECS(migrate_keys),
     .getkeys = migrate_getkeys, .tips = migrate_tips, .group = "generic", .since = "2.6.0",
     .summary = "Atomically transfer a key from a Redis instance to another one.",
     .complexity = "This command actually executes a DUMP+DEL in the source instance, and a RESTORE in the target instance. See the pages of these commands for time complexity. Also an O(N) data transfer between the two instances is performed.",
     .history = migrate_history, .args = migrate_args},
};

static const hooks migrate_hooks = {.name = "migrate", .cron = migrate_cron, .info = migrate_info};

void migrate_register_commands(void) {
    cmd_register(migrate_cmds, sizeof migrate_cmds / sizeof migrate_cmds[0]);
    hooks_register(&migrate_hooks);
}
