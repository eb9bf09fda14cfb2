/* manifest: reading and writing the Redis 7 multi-part AOF manifest (see
 * manifest.h).
 *
 * The reader follows Redis 7.0's aofLoadManifestFromFile rule for rule, so
 * that a manifest one of them accepts the other accepts too, and refuses
 * with Redis's texts:
 *  - lines are read with a 1024-byte buffer; a line starting with '#' is a
 *    comment; a line (or a last line) without '\n' is "too long";
 *  - a line is trimmed of " \t\r\n", split as sdssplitargs does, and must
 *    hold an even number (>= 6) of words: key/value pairs, keys compared
 *    without case; unknown keys are ignored (forward compatibility);
 *  - "seq" is read as atoll() does (so "7x" is 7), "type" is the first
 *    byte of its value; a pair missing (or seq 0) makes the line invalid;
 *  - one base at most; incr seqs strictly increase; a comment-only
 *    manifest is valid and empty, an empty file is not.
 * Errors are "<manifest>: line N: <Redis's text>".
 *
 * The writer emits the base, then history, then incrs, as Redis's
 * getAofManifestAsString, quoting a name as sdscatrepr does when it needs it
 * (and, unlike Redis, also when it holds a single quote, which Redis's own
 * reader would choke on). It goes through "temp-<manifest>", fsync, rename
 * and a directory fsync. */
#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "util.h"
#include "vbuf.h"

#define AOFM_MAX_LINE 1024
#define AOFM_SUFFIX ".manifest"
#define AOFM_TEMP_PREFIX "temp-"

/* Redis's texts (aof.c). */
static const char ERR_EMPTY[] = "Found an empty AOF manifest";
static const char ERR_READ[] = "Read AOF manifest failed";
static const char ERR_LONG[] = "The AOF manifest file contains too long line";
static const char ERR_FORMAT[] = "Invalid AOF manifest file format";
static const char ERR_PATH[] = "File can't be a path, just a filename";
static const char ERR_DUP_BASE[] = "Found duplicate base file information";
static const char ERR_MONOTONIC[] = "Found a non-monotonic sequence number";
static const char ERR_TYPE[] = "Unknown AOF file type";

/* ---- the struct ---- */

void aofm_init(aof_manifest *m) { memset(m, 0, sizeof *m); }

static void files_free(aof_file *f, int n) {
    for (int i = 0; i < n; i++) free(f[i].name);
    free(f);
}

void aofm_free(aof_manifest *m) {
    free(m->base.name);
    files_free(m->incrs, m->nincr);
    files_free(m->history, m->nhistory);
    aofm_init(m);
}

static void files_push(aof_file **arr, int *n, const aof_file *f) {
    *arr = xrealloc(*arr, (size_t)(*n + 1) * sizeof **arr);
    (*arr)[*n] = *f;
    (*n)++;
}

static aof_file *files_dup(const aof_file *src, int n) {
    if (n == 0) return NULL;
    aof_file *dst = xmalloc((size_t)n * sizeof *dst);
    for (int i = 0; i < n; i++) {
        dst[i] = src[i];
        dst[i].name = xstrdup(src[i].name);
    }
    return dst;
}

void aofm_copy(aof_manifest *dst, const aof_manifest *src) {
    *dst = *src;
    dst->base.name = src->base.name ? xstrdup(src->base.name) : NULL;
    dst->incrs = files_dup(src->incrs, src->nincr);
    dst->history = files_dup(src->history, src->nhistory);
}

char *aofm_new_base_name_as(aof_manifest *m, const char *filename, int rdb) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s.%lld.base.%s", filename, ++m->curr_base_seq,
             rdb ? "rdb" : "aof");
    return xstrdup(buf);
}

char *aofm_new_base_name(aof_manifest *m, const char *filename) {
    return aofm_new_base_name_as(m, filename, 1);
}

char *aofm_new_incr_name(aof_manifest *m, const char *filename) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s.%lld.incr.aof", filename, ++m->curr_incr_seq);
    return xstrdup(buf);
}

/* ---- reading ---- */

/* The line trimmed of " \t\r\n" at both ends, in place. */
static char *trim(char *s) {
    while (*s && strchr(" \t\r\n", *s)) s++;
    size_t n = strlen(s);
    while (n > 0 && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    return s;
}

/* The key/value pairs of one line's words into f. NULL or Redis's error
 * text. A word holding a NUL (from "\x00") reads as cut there, as Redis's
 * sdsnew(argv[i]) does. */
static const char *parse_pairs(char **w, int n, aof_file *f) {
    for (int i = 0; i + 1 < n; i += 2) {
        const char *k = w[i], *v = w[i + 1];
        if (!strcasecmp(k, "file")) {
            free(f->name);
            f->name = xstrdup(v);
            if (strchr(v, '/') || strchr(v, '\\')) return ERR_PATH;
        } else if (!strcasecmp(k, "seq")) {
            f->seq = strtoll(v, NULL, 10);   /* atoll(), without its UB */
        } else if (!strcasecmp(k, "type")) {
            f->type = v[0];
        }
    }
    if (!f->name || !f->seq || !f->type) return ERR_FORMAT;
    return NULL;
}

/* Adds f to m (taking its name). NULL or Redis's error text. */
static const char *add_file(aof_manifest *m, aof_file *f, long long *maxseq) {
    switch (f->type) {
    case 'b':
        if (m->base.name) return ERR_DUP_BASE;
        m->base = *f;
        m->curr_base_seq = f->seq;
        break;
    case 'h':
        files_push(&m->history, &m->nhistory, f);
        break;
    case 'i':
        if (f->seq <= *maxseq) return ERR_MONOTONIC;
        files_push(&m->incrs, &m->nincr, f);
        m->curr_incr_seq = f->seq;
        *maxseq = f->seq;
        break;
    default:
        return ERR_TYPE;
    }
    f->name = NULL;
    return NULL;
}

/* One line as fgets gave it. NULL or Redis's error text. */
static const char *parse_line(aof_manifest *m, char *buf, long long *maxseq) {
    if (!strchr(buf, '\n')) return ERR_LONG;
    char *line = trim(buf);
    if (!*line) return ERR_FORMAT;
    int argc = 0;
    char **argv = split_args(line, &argc);
    if (!argv || argc < 6 || argc % 2) {
        free_args(argv, argc);
        return ERR_FORMAT;
    }
    aof_file f = { NULL, 0, 0 };
    const char *e = parse_pairs(argv, argc, &f);
    free_args(argv, argc);
    if (!e) e = add_file(m, &f, maxseq);
    free(f.name);
    return e;
}

static int read_manifest(FILE *fp, const char *name, aof_manifest *m, char *err,
                         size_t errlen) {
    char buf[AOFM_MAX_LINE + 1];
    long long maxseq = 0;
    int linenum = 0;
    for (;;) {
        if (!fgets(buf, sizeof buf, fp)) {
            if (ferror(fp)) {
                snprintf(err, errlen, "%s: %s: %s", name, ERR_READ, strerror(errno));
                return -1;
            }
            if (linenum == 0) {
                snprintf(err, errlen, "%s: %s", name, ERR_EMPTY);
                return -1;
            }
            return 0;
        }
        linenum++;
        if (buf[0] == '#') continue;
        const char *e = parse_line(m, buf, &maxseq);
        if (e) {
            snprintf(err, errlen, "%s: line %d: %s", name, linenum, e);
            return -1;
        }
    }
}

int aofm_load(const char *dir, const char *filename, aof_manifest *m, char *err,
              size_t errlen) {
    char name[4096], path[8192];
    snprintf(name, sizeof name, "%s%s", filename, AOFM_SUFFIX);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    aofm_init(m);
    FILE *fp = fopen(path, "r");
    if (!fp) {
        if (errno == ENOENT || errno == ENOTDIR) return 1;
        snprintf(err, errlen, "%s: can't open the AOF manifest file for reading: %s", name,
                 strerror(errno));
        return -1;
    }
    int rc = read_manifest(fp, name, m, err, errlen);
    fclose(fp);
    if (rc != 0) aofm_free(m);
    return rc;
}

/* ---- writing ---- */

/* As Redis's sdsneedsrepr, plus the single quote. */
static int needs_quotes(const char *s) {
    if (!*s) return 1;      /* an empty word would vanish when split */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\' || c == '"' || c == '\'' || !isprint(c) || isspace(c)) return 1;
    }
    return 0;
}

static void format_file(vbuf *b, const aof_file *f) {
    char tail[64];
    vbuf_append_str(b, "file ");
    if (needs_quotes(f->name)) {
        char *q = quote_arg(f->name);
        vbuf_append_str(b, q);
        free(q);
    } else {
        vbuf_append_str(b, f->name);
    }
    snprintf(tail, sizeof tail, " seq %lld type %c\n", f->seq, f->type);
    vbuf_append_str(b, tail);
}

static void format_manifest(vbuf *b, const aof_manifest *m) {
    if (m->base.name) format_file(b, &m->base);
    for (int i = 0; i < m->nhistory; i++) format_file(b, &m->history[i]);
    for (int i = 0; i < m->nincr; i++) format_file(b, &m->incrs[i]);
}

static int write_all(int fd, const char *p, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int aofm_fsync_dir(const char *dir) {
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    int rc = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

/* Writes b to tmp and fsyncs it. 0 or -1 with err. */
static int write_temp(const char *tmp, const char *tmpname, const vbuf *b, char *err,
                      size_t errlen) {
    int fd = open(tmp, O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "Can't open the AOF manifest file %s: %s", tmpname,
                 strerror(errno));
        return -1;
    }
    const char *what = NULL;
    if (write_all(fd, b->data ? b->data : "", b->len) != 0)
        what = "Error trying to write the temporary AOF manifest file";
    else if (fsync(fd) != 0)
        what = "Fail to fsync the temp AOF manifest file";
    int saved = errno;
    close(fd);
    if (!what) return 0;
    snprintf(err, errlen, "%s %s: %s", what, tmpname, strerror(saved));
    unlink(tmp);
    return -1;
}

int aofm_save(const char *dir, const char *filename, const aof_manifest *m, char *err,
              size_t errlen) {
    char name[4096], tmpname[4200], path[8192], tmp[8300];
    snprintf(name, sizeof name, "%s%s", filename, AOFM_SUFFIX);
    snprintf(tmpname, sizeof tmpname, "%s%s", AOFM_TEMP_PREFIX, name);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/%s", dir, tmpname);
    vbuf b;
    vbuf_init(&b);
    format_manifest(&b, m);
    int rc = write_temp(tmp, tmpname, &b, err, errlen);
    vbuf_free(&b);
    if (rc != 0) return -1;
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen,
                 "Error trying to rename the temporary AOF manifest file %s into %s: %s",
                 tmpname, name, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (aofm_fsync_dir(dir) != 0) {
        snprintf(err, errlen, "Fail to fsync AOF directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}
