/* aof_load: replaying a multi-part AOF at startup (see aof_load.h).
 *
 * Follows Redis 7.0's loadAppendOnlyFiles / loadSingleAppendOnlyFile:
 *  - every file the manifest lists (base and incrs) must exist, checked
 *    before anything is loaded; an empty file loads nothing;
 *  - the base is an RDB (name ending in .rdb, or "REDIS" / LZ4 magic at its
 *    start) loaded through rdb_load_preamble, and the RESP commands after
 *    a plain RDB (the single-file AOF of Redis 6 with aof-use-rdb-preamble,
 *    which an upgrade makes the base) are replayed as the file's tail; else
 *    it is a file of RESP commands;
 *  - commands are RESP multibulks ("*<n>" with n >= 1); lines starting with
 *    '#' between commands are annotations (Redis's "#TS:<unix>") and are
 *    skipped; anything else is a bad file format;
 *  - MULTI ... EXEC: the commands between are applied at EXEC; a nested
 *    MULTI or an EXEC without MULTI is a load error; end of file inside a
 *    transaction is a short read at the MULTI (the transaction is dropped
 *    whole, Redis's "Revert incomplete MULTI/EXEC transaction");
 *  - end of file in the middle of a command is a short read: in the last
 *    file (base included, when there is no incr) with truncated_ok the file
 *    is truncated to the end of its last whole command, with Redis's
 *    warnings; otherwise, and in any other file, the load fails.
 * Unlike Redis, every error names the file and the byte offset:
 * "appendonly.aof.2.incr.aof: offset 1234: bad file format (expected '*')".
 *
 * Files are read in 1 MiB chunks; a command longer than the buffer grows it
 * (bytes arrive before memory is taken, so a corrupt huge length costs
 * nothing until the bytes exist). Startup only (main thread, no loop). */
#include "aof_load.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "resp.h"
#include "util.h"

#define AOFL_CHUNK (1024 * 1024)
#define AOFL_ANNOTATION_MAX 1024     /* AOF_ANNOTATION_LINE_MAX_LEN */
#define AOFL_LZ4_MAGIC "\x04\x22\x4d\x18"

typedef struct loader {
    const char *dir;
    int truncated_ok;
    aof_exec_fn exec;
    void *exec_priv;
    aof_load_stats *st;
    char *err;
    size_t errlen;
    arg *argv;                 /* reused between commands */
    int argv_cap;
    /* an open MULTI: its commands wait for EXEC (copied, argv and bytes in
     * one block each) */
    int in_tx;
    uint64_t tx_start;         /* file offset of the MULTI */
    struct txcmd { int argc; arg *argv; uint64_t off; } *tx;
    size_t ntx, tx_cap;
    /* progress: the base's callbacks also hear how far the RESP files are
     * (bytes of every file before this one, plus this one's read so far) */
    const rdb_load_cb *progress_cb;
    void *progress_priv;
    uint64_t done_before;
} loader;

/* One RESP file being read: buf[0..len) holds the file bytes from offset
 * base; the current command starts at buf[start]. */
typedef struct rfile {
    const char *name;
    int fd;
    char *buf;
    size_t cap, len, start;
    uint64_t base;
    int eof;
    resp_req req;
} rfile;

__attribute__((format(printf, 4, 5)))
static int fail(loader *L, const char *name, uint64_t off, const char *fmt, ...) {
    int n = snprintf(L->err, L->errlen, "%s: offset %llu: ", name, (unsigned long long)off);
    if (n > 0 && (size_t)n < L->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(L->err + n, L->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void file_path(const loader *L, const char *name, char *path, size_t n) {
    snprintf(path, n, "%s/%s", L->dir, name);
}

/* ---- reading chunks ---- */

/* Reads more bytes behind buf[len], first dropping what lies before the
 * current command and growing the buffer when the command fills it. */
static int rf_fill(loader *L, rfile *f) {
    if (f->start > 0) {
        memmove(f->buf, f->buf + f->start, f->len - f->start);
        f->base += f->start;
        f->len -= f->start;
        f->start = 0;
    }
    if (f->len == f->cap) {
        f->cap *= 2;
        f->buf = xrealloc(f->buf, f->cap);
    }
    for (;;) {
        ssize_t n = read(f->fd, f->buf + f->len, f->cap - f->len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            return fail(L, f->name, f->base + f->len, "read error: %s", strerror(errno));
        if (n == 0) f->eof = 1;
        f->len += (size_t)n;
        if (L->progress_cb && L->progress_cb->progress)
            L->progress_cb->progress(L->progress_priv, L->done_before + f->base + f->len,
                                     L->st->total_bytes, L->st->commands);
        return 0;
    }
}

/* ---- transactions ---- */

static void tx_hold(loader *L, int argc, const arg *argv, uint64_t off) {
    arg *copy = args_dup(argc, argv);
    if (L->ntx == L->tx_cap) {
        L->tx_cap = L->tx_cap ? L->tx_cap * 2 : 16;
        L->tx = xrealloc(L->tx, L->tx_cap * sizeof *L->tx);
    }
    L->tx[L->ntx++] = (struct txcmd){argc, copy, off};
}

static void tx_drop(loader *L) {
    for (size_t i = 0; i < L->ntx; i++) free(L->tx[i].argv);
    L->ntx = 0;
    L->in_tx = 0;
}

static int exec_one(loader *L, const char *name, uint64_t off, int argc, const arg *argv) {
    char cerr[512];
    cerr[0] = '\0';
    if (L->exec(L->exec_priv, argc, argv, cerr, sizeof cerr) != 0)
        return fail(L, name, off, "%s", cerr[0] ? cerr : "the command failed");
    L->st->commands++;
    return 0;
}

/* MULTI opens a transaction, EXEC applies its commands, as Redis's loader
 * does by queuing them in its fake client. 1 when argv was one of them. */
static int tx_command(loader *L, rfile *f, int argc, const arg *argv, int *rc) {
    uint64_t off = f->base + f->start;
    *rc = 0;
    if (argc == 1 && arg_is(&argv[0], "multi")) {
        if (L->in_tx) *rc = fail(L, f->name, off, "MULTI inside a transaction");
        L->in_tx = 1;
        L->tx_start = off;
        return 1;
    }
    if (argc == 1 && arg_is(&argv[0], "exec")) {
        if (!L->in_tx) {
            *rc = fail(L, f->name, off, "EXEC without MULTI");
            return 1;
        }
        for (size_t i = 0; i < L->ntx && *rc == 0; i++)
            *rc = exec_one(L, f->name, L->tx[i].off, L->tx[i].argc, L->tx[i].argv);
        tx_drop(L);
        return 1;
    }
    if (!L->in_tx) return 0;
    tx_hold(L, argc, argv, off);
    return 1;
}

/* ---- one command ---- */

static int run_command(loader *L, rfile *f) {
    const char *p = f->buf + f->start;
    resp_req *r = &f->req;
    if (r->argc > L->argv_cap) {
        L->argv_cap = r->argc;
        L->argv = xrealloc(L->argv, (size_t)L->argv_cap * sizeof *L->argv);
    }
    for (int i = 0; i < r->argc; i++) {
        L->argv[i].p = resp_arg(r, p, i);
        L->argv[i].len = r->arglen[i];
    }
    int rc;
    if (tx_command(L, f, r->argc, L->argv, &rc)) return rc;
    return exec_one(L, f->name, f->base + f->start, r->argc, L->argv);
}

/* The text of a parser error without Redis's "Protocol error: " prefix. */
static const char *bare(const char *e) {
    static const char pre[] = "Protocol error: ";
    return strncmp(e, pre, sizeof pre - 1) == 0 ? e + sizeof pre - 1 : e;
}

enum { STEP_OK, STEP_MORE, STEP_FAIL };

/* Skips a '#' annotation line at buf[start]. */
static int skip_annotation(loader *L, rfile *f) {
    const char *p = f->buf + f->start;
    size_t avail = f->len - f->start;
    const char *nl = memchr(p, '\n', avail < AOFL_ANNOTATION_MAX ? avail : AOFL_ANNOTATION_MAX);
    if (nl) {
        f->start += (size_t)(nl - p) + 1;
        return STEP_OK;
    }
    if (avail >= AOFL_ANNOTATION_MAX) {
        fail(L, f->name, f->base + f->start, "bad file format (annotation line too long)");
        return STEP_FAIL;
    }
    if (f->eof) {               /* Redis ends the file there without a fuss */
        f->start = f->len;
        return STEP_OK;
    }
    return STEP_MORE;
}

/* Parses (and runs) the command at buf[start]. */
static int step(loader *L, rfile *f, const resp_limits *lim) {
    const char *p = f->buf + f->start;
    size_t avail = f->len - f->start;
    if (f->req.kind == 0) {
        if (p[0] == '#') return skip_annotation(L, f);
        if (p[0] != '*') {
            fail(L, f->name, f->base + f->start, "bad file format (expected '*')");
            return STEP_FAIL;
        }
    }
    const char *e = NULL;
    int rc = resp_parse(&f->req, p, avail, lim, &e);
    if (rc == RESP_MORE) return STEP_MORE;
    if (rc == RESP_ERROR) {
        fail(L, f->name, f->base + f->start + f->req.pos, "bad file format (%s)", bare(e));
        return STEP_FAIL;
    }
    if (f->req.argc == 0) {     /* "*0", "*-1": Redis's argc < 1 */
        fail(L, f->name, f->base + f->start, "bad file format (invalid multibulk length)");
        return STEP_FAIL;
    }
    if (run_command(L, f) != 0) return STEP_FAIL;
    f->start += f->req.pos;
    resp_req_reset(&f->req);
    return STEP_OK;
}

/* ---- a short read ---- */

/* The number at p[*i..n) up to "\r\n": 1 parsed (i past the CRLF), 0 the
 * bytes end first (a valid prefix), -1 not a number + CRLF. */
static int prefix_number(const char *p, size_t n, size_t *i, long long *v) {
    size_t start = *i;
    *v = 0;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9' && *i - start < 18)
        *v = *v * 10 + (p[(*i)++] - '0');
    if (*i == n) return 0;
    if (*i == start || p[*i] != '\r') return -1;
    if (++*i == n) return 0;
    if (p[*i] != '\n') return -1;
    ++*i;
    return 1;
}

/* Whether p[0..n), which ends at end of file, is the beginning of a well
 * formed command (a truncation), rather than a damaged one that the
 * parser is still waiting on (a NUL hiding a line end, say). On damage,
 * *bad is its offset in p. */
static int is_cut_command(const char *p, size_t n, size_t *bad) {
    size_t i = 1;                           /* p[0] == '*' */
    long long argc, len;
    int rc = prefix_number(p, n, &i, &argc);
    if (rc <= 0 || argc < 1) goto out;
    for (long long a = 0; a < argc; a++) {
        if (i == n) return 1;
        if (p[i++] != '$') { i--; rc = -1; goto out; }
        if ((rc = prefix_number(p, n, &i, &len)) <= 0) goto out;
        if (n - i < (size_t)len + 2) {      /* cut in the payload or its CRLF */
            if (n - i == (size_t)len + 1 && p[n - 1] != '\r') {
                i = n - 1;
                rc = -1;
                goto out;
            }
            return 1;
        }
        i += (size_t)len;
        if (p[i] != '\r' || p[i + 1] != '\n') { rc = -1; goto out; }
        i += 2;
    }
    rc = -1;                                /* whole: not a truncation */
out:
    *bad = i;
    return rc == 0;
}

/* End of file inside the command at file offset `valid`. */
static int short_read(loader *L, rfile *f, uint64_t valid, int last) {
    uint64_t size = f->base + f->len;
    const char *what = "a command";
    if (L->in_tx) {
        /* the transaction is incomplete: it goes whole (Redis's "Revert
         * incomplete MULTI/EXEC transaction") */
        log_warning("Revert incomplete MULTI/EXEC transaction in AOF file %s", f->name);
        valid = L->tx_start;
        what = "a MULTI/EXEC transaction";
        tx_drop(L);
    }
    if (!last)
        return fail(L, f->name, valid,
                    "unexpected end of file in the middle of %s, "
                    "and this is not the last AOF file", what);
    if (!L->truncated_ok)
        return fail(L, f->name, valid,
                    "unexpected end of file in the middle of %s (use "
                    "redis-check-aof --fix, or aof-load-truncated yes to cut it off)", what);
    char path[8192];
    file_path(L, f->name, path, sizeof path);
    log_warning("!!! Warning: short read while loading the AOF file %s!!!", f->name);
    log_warning("!!! Truncating the AOF %s at offset %llu !!!", f->name,
                (unsigned long long)valid);
    /* No fsync, as Redis: the writer's next fsync of this file covers the
     * new size, and a crash before it only brings back the same tail, which
     * the next start cuts again. */
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || ftruncate(fd, (off_t)valid) != 0) {
        int saved = errno;
        if (fd >= 0) close(fd);
        return fail(L, f->name, valid, "error truncating the AOF file: %s", strerror(saved));
    }
    close(fd);
    L->st->truncated_bytes += size - valid;
    log_warning("AOF %s loaded anyway because aof-load-truncated is enabled", f->name);
    return 0;
}

/* The parser wants bytes that the file does not have. */
static int at_eof(loader *L, rfile *f, int last) {
    size_t bad;
    if (f->req.kind == '*' &&
        !is_cut_command(f->buf + f->start, f->len - f->start, &bad))
        return fail(L, f->name, f->base + f->start + bad,
                    "bad file format (damaged command at the end of the file)");
    return short_read(L, f, f->base + f->start, last);
}

/* ---- one RESP file ---- */

static int load_resp_loop(loader *L, rfile *f, int last) {
    resp_limits lim = { (long long)OBJ_MAX_LEN, (long long)1 << 30, 64 * 1024, 0 };
    for (;;) {
        if (f->start == f->len) {
            if (f->eof) return L->in_tx ? short_read(L, f, L->tx_start, last) : 0;
            if (rf_fill(L, f) != 0) return -1;
            continue;
        }
        int rc = step(L, f, &lim);
        if (rc == STEP_FAIL) return -1;
        if (rc == STEP_MORE) {
            if (f->eof) return at_eof(L, f, last);
            if (rf_fill(L, f) != 0) return -1;
        }
    }
}

/* The commands of file `name` from offset `from` (0, or the end of its
 * RDB preamble) to its end. */
static int load_resp_file(loader *L, const char *name, uint64_t from, int last) {
    char path[8192];
    file_path(L, name, path, sizeof path);
    rfile f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.base = from;
    f.fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f.fd < 0) return fail(L, name, 0, "can't open the append log file: %s", strerror(errno));
    if (from > 0 && lseek(f.fd, (off_t)from, SEEK_SET) < 0) {
        int saved = errno;
        close(f.fd);
        return fail(L, name, from, "seek: %s", strerror(saved));
    }
    struct stat sb;
    f.cap = AOFL_CHUNK;     /* no more than the file needs: most are small */
    if (fstat(f.fd, &sb) == 0 && (uint64_t)sb.st_size >= from) {
        uint64_t left = (uint64_t)sb.st_size - from;
        if (left < f.cap) f.cap = left < 4096 ? 4096 : (size_t)left;
    }
    f.buf = xmalloc(f.cap);
    resp_req_init(&f.req);
    int rc = load_resp_loop(L, &f, last);
    resp_req_free(&f.req);
    free(f.buf);
    close(f.fd);
    return rc;
}

/* ---- the base ---- */

static uint64_t file_size(loader *L, const char *name) {
    char path[8192];
    struct stat sb;
    file_path(L, name, path, sizeof path);
    return stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0;
}

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static int is_rdb_file(const char *path, const char *name) {
    if (ends_with(name, ".rdb")) return 1;
    char sig[5];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, sig, sizeof sig, 0);
    close(fd);
    return (n >= 5 && memcmp(sig, "REDIS", 5) == 0) ||
           (n >= 4 && memcmp(sig, AOFL_LZ4_MAGIC, 4) == 0);
}

/* The RDB at the start of the base; *end gets the offset where it ends
 * (the file's end, or the first command of its tail). */
static int load_rdb_base(loader *L, const char *name, int64_t now_ms, const rdb_load_cb *cb,
                         void *priv, uint64_t *end) {
    char path[8192];
    file_path(L, name, path, sizeof path);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return fail(L, name, 0, "the base file listed in the manifest does not exist");
    if (fd < 0) return fail(L, name, 0, "open: %s", strerror(errno));
    /* a source named as we name the file, so that the loader's errors do */
    source *src = source_fd_open(fd, name);
    rdb_load_stats rst;
    int rc = rdb_load_preamble(src, now_ms, cb, priv, &rst, L->err, L->errlen);
    source_free(src);
    close(fd);
    L->st->base_keys = rst.keys_loaded;
    L->st->base_expired = rst.keys_expired;
    *end = rst.rdb_end;
    return rc;
}

/* The base: an RDB and the commands after it (Redis's single-file AOF with
 * its RDB preamble, as Redis 6 left it), or commands only. */
static int load_base(loader *L, const char *name, int last, int64_t now_ms,
                     const rdb_load_cb *cb, void *priv) {
    char path[8192];
    file_path(L, name, path, sizeof path);
    if (!is_rdb_file(path, name)) return load_resp_file(L, name, 0, last);
    log_notice("Reading RDB preamble from AOF file %s", name);
    uint64_t end = 0;
    if (load_rdb_base(L, name, now_ms, cb, priv, &end) != 0) return -1;
    if (end >= file_size(L, name)) return 0;
    log_notice("Reading the remaining AOF tail of %s at offset %llu", name,
               (unsigned long long)end);
    return load_resp_file(L, name, end, last);
}

/* ---- the whole set ---- */

/* Every file listed must exist (Redis: fatal); sums their sizes. */
static int check_files(loader *L, const aof_manifest *m) {
    for (int i = -1; i < m->nincr; i++) {
        const char *name = i < 0 ? m->base.name : m->incrs[i].name;
        if (!name) continue;
        char path[8192];
        struct stat sb;
        file_path(L, name, path, sizeof path);
        if (stat(path, &sb) != 0)
            return fail(L, name, 0, "unable to obtain the AOF file length: %s (the "
                        "manifest lists it)", strerror(errno));
        L->st->total_bytes += (uint64_t)sb.st_size;
    }
    return 0;
}

static void log_loaded(const char *what, const char *name, int64_t start_us) {
    log_notice("DB loaded from %s file %s: %.3f seconds", what, name,
               (double)(mono_us() - start_us) / 1e6);
}

int aof_load_files(const char *dir, const aof_manifest *m, int truncated_ok, int64_t now_ms,
                   const rdb_load_cb *base_cb, void *base_priv, aof_exec_fn exec,
                   void *exec_priv, aof_load_stats *st, char *err, size_t errlen) {
    memset(st, 0, sizeof *st);
    loader L = { dir, truncated_ok, exec, exec_priv, st, err, errlen, NULL, 0, 0, 0, NULL, 0, 0,
                 base_cb, base_priv, 0 };
    int rc = check_files(&L, m);
    if (rc == 0 && m->base.name) {
        int64_t t0 = mono_us();
        rc = load_base(&L, m->base.name, m->nincr == 0, now_ms, base_cb, base_priv);
        if (rc == 0) log_loaded("base", m->base.name, t0);
        L.done_before += file_size(&L, m->base.name);
    }
    for (int i = 0; rc == 0 && i < m->nincr; i++) {
        int64_t t0 = mono_us();
        rc = load_resp_file(&L, m->incrs[i].name, 0, i == m->nincr - 1);
        if (rc == 0) log_loaded("incr", m->incrs[i].name, t0);
        L.done_before += file_size(&L, m->incrs[i].name);
    }
    tx_drop(&L);
    free(L.tx);
    free(L.argv);
    return rc;
}
