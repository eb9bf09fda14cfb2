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

#include "../src/util.h"
#include "../src/vbuf.h"

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

char *aofm_new_base_name(aof_manifest *m, const char *filename) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s.%lld.base.rdb", filename, ++m->curr_base_seq);
    return xstrdup(buf);
}

char *aofm_new_incr_name(aof_manifest *m, const char *filename) {
    char buf[4096];
    snprintf(buf, sizeof buf, "%s.%lld.incr.aof", filename, ++m->curr_incr_seq);
    return xstrdup(buf);
}

/* ---- splitting a line as sdssplitargs ---- */

typedef struct words {
    char **w;
    int n;
} words;

static void words_free(words *ws) {
    for (int i = 0; i < ws->n; i++) free(ws->w[i]);
    free(ws->w);
    ws->w = NULL;
    ws->n = 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static char unescape(char c) {
    switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
    }
}

/* Inside "...": one unit at *pp into out. 1 closed, 0 go on, -1 error. */
static int dquote_step(const char **pp, vbuf *out) {
    const char *p = *pp;
    if (p[0] == '\\' && p[1] == 'x' && hexval(p[2]) >= 0 && hexval(p[3]) >= 0) {
        char c = (char)(hexval(p[2]) * 16 + hexval(p[3]));
        vbuf_append(out, &c, 1);
        *pp = p + 4;
        return 0;
    }
    if (p[0] == '\\' && p[1]) {
        char c = unescape(p[1]);
        vbuf_append(out, &c, 1);
        *pp = p + 2;
        return 0;
    }
    if (p[0] == '"') {
        if (p[1] && !isspace((unsigned char)p[1])) return -1;
        *pp = p + 1;
        return 1;
    }
    if (!p[0]) return -1;
    vbuf_append(out, p, 1);
    *pp = p + 1;
    return 0;
}

/* Inside '...': only \' is an escape. Same returns as dquote_step. */
static int squote_step(const char **pp, vbuf *out) {
    const char *p = *pp;
    if (p[0] == '\\' && p[1] == '\'') {
        vbuf_append(out, "'", 1);
        *pp = p + 2;
        return 0;
    }
    if (p[0] == '\'') {
        if (p[1] && !isspace((unsigned char)p[1])) return -1;
        *pp = p + 1;
        return 1;
    }
    if (!p[0]) return -1;
    vbuf_append(out, p, 1);
    *pp = p + 1;
    return 0;
}

/* One word at *pp (not a blank) into out. 0 or -1 (unbalanced quotes). */
static int read_word(const char **pp, vbuf *out) {
    int quote = 0;
    for (;;) {
        int rc = 0;
        if (quote == '"') {
            rc = dquote_step(pp, out);
        } else if (quote == '\'') {
            rc = squote_step(pp, out);
        } else {
            char c = **pp;
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') return 0;
            if (c == '"' || c == '\'') quote = c;
            else vbuf_append(out, &c, 1);
            (*pp)++;
        }
        if (rc < 0) return -1;
        if (rc > 0) return 0;
    }
}

/* Splits the NUL-terminated line s. A word holding a NUL (from "\x00") is
 * cut there, as Redis's sdsnew(argv[i]) does. 0 or -1. */
static int split_args(const char *s, words *ws) {
    vbuf cur;
    vbuf_init(&cur);
    for (;;) {
        while (*s && isspace((unsigned char)*s)) s++;
        if (!*s) break;
        cur.len = 0;
        if (read_word(&s, &cur) != 0) {
            vbuf_free(&cur);
            words_free(ws);
            return -1;
        }
        ws->w = xrealloc(ws->w, (size_t)(ws->n + 1) * sizeof *ws->w);
        ws->w[ws->n++] = xstrndup(cur.data ? cur.data : "", cur.len);
    }
    vbuf_free(&cur);
    return 0;
}

/* ---- reading ---- */

/* The line trimmed of " \t\r\n" at both ends, in place. */
static char *trim(char *s) {
    while (*s && strchr(" \t\r\n", *s)) s++;
    size_t n = strlen(s);
    while (n > 0 && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    return s;
}

/* The key/value pairs of one line into f. NULL or Redis's error text. */
static const char *parse_pairs(const words *ws, aof_file *f) {
    for (int i = 0; i + 1 < ws->n; i += 2) {
        const char *k = ws->w[i], *v = ws->w[i + 1];
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
    words ws = { NULL, 0 };
    if (split_args(line, &ws) != 0 || ws.n < 6 || ws.n % 2) {
        words_free(&ws);
        return ERR_FORMAT;
    }
    aof_file f = { NULL, 0, 0 };
    const char *e = parse_pairs(&ws, &f);
    words_free(&ws);
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

/* As Redis's sdscatrepr. */
static void append_quoted(vbuf *b, const char *s) {
    vbuf_append(b, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char tmp[8];
        switch (c) {
        case '\\': vbuf_append_str(b, "\\\\"); break;
        case '"': vbuf_append_str(b, "\\\""); break;
        case '\n': vbuf_append_str(b, "\\n"); break;
        case '\r': vbuf_append_str(b, "\\r"); break;
        case '\t': vbuf_append_str(b, "\\t"); break;
        case '\a': vbuf_append_str(b, "\\a"); break;
        case '\b': vbuf_append_str(b, "\\b"); break;
        default:
            if (isprint(c)) {
                vbuf_append(b, s, 1);
            } else {
                snprintf(tmp, sizeof tmp, "\\x%02x", c);
                vbuf_append_str(b, tmp);
            }
        }
    }
    vbuf_append(b, "\"", 1);
}

static void format_file(vbuf *b, const aof_file *f) {
    char tail[64];
    vbuf_append_str(b, "file ");
    if (needs_quotes(f->name)) append_quoted(b, f->name);
    else vbuf_append_str(b, f->name);
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

static int fsync_dir(const char *dir) {
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
    if (fsync_dir(dir) != 0) {
        snprintf(err, errlen, "Fail to fsync AOF directory %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}
