/* util: allocation, Redis-exact number parsing/formatting, glob matching,
 * sdssplitargs/sdscatrepr words, clocks and randomness (see util.h).
 * Thread-safe throughout. */
#include "util.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

static void oom(size_t n) {
    fprintf(stderr, "verso: out of memory allocating %zu bytes\n", n);
    abort();
}

void *xmalloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) oom(n);
    return p;
}

void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) oom(n * size);
    return p;
}

void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) oom(n);
    return q;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n) {
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

int str_to_ll(const char *s, size_t len, long long *out) {
    if (len == 0 || len > 20) return 0;
    size_t i = 0;
    int neg = 0;
    if (len == 1 && s[0] == '0') { *out = 0; return 1; }
    if (s[0] == '-') { neg = 1; i = 1; if (len == 1) return 0; }
    if (s[i] < '1' || s[i] > '9') return 0;
    unsigned long long v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (ULLONG_MAX - d) / 10) return 0;
        v = v * 10 + d;
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) return 0;
        *out = (long long)(0 - v);
    } else {
        if (v > (unsigned long long)LLONG_MAX) return 0;
        *out = (long long)v;
    }
    return 1;
}

int str_to_ld(const char *s, size_t len, long double *out) {
    char buf[5 * 1024];
    if (len == 0 || len >= sizeof(buf)) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (isspace((unsigned char)buf[0])) return 0;
    errno = 0;
    char *end;
    long double v = strtold(buf, &end);
    if ((size_t)(end - buf) != len) return 0;
    if (errno == ERANGE && (v == HUGE_VALL || v == -HUGE_VALL || fpclassify(v) == FP_ZERO))
        return 0;
    if (isnan(v)) return 0;
    *out = v;
    return 1;
}

size_t ll_to_str(char *buf, long long v) {
    char tmp[24];
    unsigned long long u = v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    size_t n = 0;
    do { tmp[n++] = (char)('0' + u % 10); u /= 10; } while (u);
    size_t len = 0;
    if (v < 0) buf[len++] = '-';
    while (n) buf[len++] = tmp[--n];
    buf[len] = '\0';
    return len;
}

size_t ld_to_str(char *buf, size_t buflen, long double v) {
    if (isinf(v)) return (size_t)snprintf(buf, buflen, v > 0 ? "inf" : "-inf");
    int n = snprintf(buf, buflen, "%.17Lf", v);
    if (n < 0 || (size_t)n >= buflen) return 0;
    if (strchr(buf, '.')) {           /* drop trailing zeros, as Redis */
        char *p = buf + n - 1;
        while (*p == '0') { p--; n--; }
        if (*p == '.') n--;
        buf[n] = '\0';
    }
    if (n == 2 && buf[0] == '-' && buf[1] == '0') { buf[0] = '0'; buf[1] = '\0'; n = 1; }
    return (size_t)n;
}

int str_to_memsize(const char *s, long long *out) {
    const char *u = s;
    while (*u && (isdigit((unsigned char)*u) || (u == s && *u == '-'))) u++;
    long long mul;
    if (*u == '\0') mul = 1;
    else if (!strcasecmp(u, "b")) mul = 1;
    else if (!strcasecmp(u, "k")) mul = 1000;
    else if (!strcasecmp(u, "kb")) mul = 1024;
    else if (!strcasecmp(u, "m")) mul = 1000LL * 1000;
    else if (!strcasecmp(u, "mb")) mul = 1024LL * 1024;
    else if (!strcasecmp(u, "g")) mul = 1000LL * 1000 * 1000;
    else if (!strcasecmp(u, "gb")) mul = 1024LL * 1024 * 1024;
    else return 0;
    long long v;
    if (!str_to_ll(s, (size_t)(u - s), &v)) return 0;
    if (v != 0 && (v > LLONG_MAX / mul || v < LLONG_MIN / mul)) return 0;
    *out = v * mul;
    return 1;
}

/* One pattern token at p (a literal, '?', "\\x" or a [class]) against c.
 * Sets *len to the token's length in the pattern. */
static int glob_one(const char *p, const char *pend, char c, int nocase, size_t *len) {
    char pc = *p;
    *len = 1;
    if (pc == '?') return 1;
    if (pc == '\\' && p + 1 < pend) {
        *len = 2;
        pc = p[1];
    } else if (pc == '[') {
        const char *q = p + 1;
        int neg = 0, match = 0;
        if (q < pend && *q == '^') { neg = 1; q++; }
        for (; q < pend && *q != ']'; q++) {
            if (*q == '\\' && q + 1 < pend) {
                q++;
                if (*q == c) match = 1;
            } else if (q + 2 < pend && q[1] == '-' && q[2] != ']') {
                char lo = q[0], hi = q[2], x = c;
                if (lo > hi) { char t = lo; lo = hi; hi = t; }
                if (nocase) { lo = (char)tolower(lo); hi = (char)tolower(hi); x = (char)tolower(x); }
                if (x >= lo && x <= hi) match = 1;
                q += 2;
            } else if (nocase ? tolower((unsigned char)*q) == tolower((unsigned char)c) : *q == c) {
                match = 1;
            }
        }
        *len = (size_t)(q < pend ? q + 1 - p : pend - p); /* through ']' */
        return neg ? !match : match;
    }
    return nocase ? tolower((unsigned char)pc) == tolower((unsigned char)c) : pc == c;
}

/* Iterative matching with one backtrack point (the last '*'): O(pattern x
 * string) at worst, so no pattern can make KEYS or SCAN hang (Redis guards
 * its recursive matcher for the same reason, CVE-2022-36021). */
int glob_match(const char *pat, size_t patlen, const char *s, size_t slen, int nocase) {
    const char *p = pat, *pend = pat + patlen, *str = s, *send = s + slen;
    const char *star_p = NULL, *star_s = NULL;
    while (str < send) {
        size_t tok;
        if (p < pend && *p == '*') {
            while (p < pend && *p == '*') p++;
            if (p == pend) return 1;
            star_p = p;
            star_s = str;
            continue;
        }
        if (p < pend && glob_one(p, pend, *str, nocase, &tok)) {
            p += tok;
            str++;
            continue;
        }
        if (!star_p) return 0;
        p = star_p;
        str = ++star_s;
    }
    while (p < pend && *p == '*') p++;
    return p == pend;
}

/* ---- words as Redis's sdssplitargs reads and sdscatrepr writes them ---- */

static int is_blank(char c) {             /* isspace() in the C locale */
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int hex_val(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The character that "\c" stands for inside double quotes. */
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

/* s[0..n) read as a C string that ends at n. */
static char at(const char *s, size_t n, size_t k) { return k < n ? s[k] : '\0'; }

/* Inside quotes q: consumes one unit at s[*ip], appending to out at *op.
 * Returns 1 when the quote closed, 0 to go on, -1 on unbalanced quotes. */
static int quoted_step(const char *s, size_t n, char q, size_t *ip, char *out, size_t *op) {
    size_t i = *ip, used = 2;
    char c = at(s, n, i), next = at(s, n, i + 1);
    if (c == '\0') return -1;
    if (q == '"' && c == '\\' && next == 'x' && hex_val(at(s, n, i + 2)) >= 0 &&
        hex_val(at(s, n, i + 3)) >= 0) {
        c = (char)(hex_val(s[i + 2]) * 16 + hex_val(s[i + 3]));
        used = 4;
    } else if (q == '"' && c == '\\' && next != '\0') {
        c = unescape(next);
    } else if (q == '\'' && c == '\\' && next == '\'') {
        c = '\'';
    } else if (c == q) {
        /* the closing quote must be followed by a blank or the end */
        if (next != '\0' && !is_blank(next)) return -1;
        *ip = i + 1;
        return 1;
    } else {
        used = 1;
    }
    out[(*op)++] = c;
    *ip = i + used;
    return 0;
}

int split_word(const char *s, size_t n, size_t *pos, char *out, size_t *outlen) {
    size_t i = *pos;
    while (i < n && is_blank(s[i])) i++;
    *pos = i;
    if (at(s, n, i) == '\0') return 0;
    char quote = 0;
    for (;;) {
        if (quote) {
            int rc = quoted_step(s, n, quote, &i, out, outlen);
            if (rc < 0) return -1;
            if (rc > 0) break;      /* a closing quote ends the word */
            continue;
        }
        char c = at(s, n, i);
        if (c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\0') break;
        if (c == '"' || c == '\'') quote = c;  /* ab"cd" is abcd */
        else out[(*outlen)++] = c;
        i++;
    }
    *pos = i;
    return 1;
}

char **split_args_len(const char *line, int *argc, size_t **lens) {
    size_t n = strlen(line), pos = 0, len = 0;
    char *buf = xmalloc(n + 1);
    char **v = xmalloc(sizeof *v);
    size_t *l = xmalloc(sizeof *l);
    int k = 0, rc;
    while ((rc = split_word(line, n, &pos, buf, &len)) > 0) {
        v = xrealloc(v, (size_t)(k + 1) * sizeof *v);
        l = xrealloc(l, (size_t)(k + 1) * sizeof *l);
        l[k] = len;
        v[k++] = xstrndup(buf, len);
        len = 0;
    }
    free(buf);
    if (rc < 0) {
        free_args(v, k);
        free(l);
        return NULL;
    }
    *argc = k;
    if (lens) *lens = l;
    else free(l);
    return v;
}

char **split_args(const char *line, int *argc) { return split_args_len(line, argc, NULL); }

void free_args(char **argv, int argc) {
    if (!argv) return;
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

char *quote_arg(const char *s) { return quote_arg_len(s, strlen(s)); }

size_t quote_into(char *out, const char *s, size_t n) {
    static const char plain[] = "\\\"\n\r\t\a\b", shown[] = "\\\"nrtab";
    static const char hex[] = "0123456789abcdef";
    char *p = out;
    *p++ = '"';
    for (const char *end = s + n; s < end; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e = c ? strchr(plain, c) : NULL;
        if (e) {
            *p++ = '\\';
            *p++ = shown[e - plain];
        } else if (isprint(c)) {
            *p++ = (char)c;
        } else {
            *p++ = '\\';
            *p++ = 'x';
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        }
    }
    *p++ = '"';
    return (size_t)(p - out);
}

char *quote_arg_len(const char *s, size_t n) {
    char *q = xmalloc(QUOTE_MAX(n) + 1);
    q[quote_into(q, s, n)] = '\0';
    return q;
}

int64_t wall_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t wall_ms(void) { return wall_us() / 1000; }

int64_t mono_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void random_bytes(void *buf, size_t n) {
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t r = getrandom(p, n, 0);
        if (r < 0) {
            if (errno == EINTR) continue;
            FILE *f = fopen("/dev/urandom", "rb");
            if (!f || fread(p, 1, n, f) != n) {
                fprintf(stderr, "verso: no source of randomness\n");
                abort();
            }
            fclose(f);
            return;
        }
        p += r;
        n -= (size_t)r;
    }
}

/* ---- draws ---- */

static uint64_t draw_state; /* main thread */

uint64_t draw_next(void) {
    while (draw_state == 0) random_bytes(&draw_state, sizeof draw_state);
    draw_state ^= draw_state >> 12;
    draw_state ^= draw_state << 25;
    draw_state ^= draw_state >> 27;
    return draw_state * UINT64_C(0x2545F4914F6CDD1D);
}

uint64_t draw_below(uint64_t n) {
    assert(n > 0);
    uint64_t limit = UINT64_MAX - UINT64_MAX % n, r;
    do r = draw_next(); while (r >= limit);
    return r % n;
}

uint64_t *draw_distinct(uint64_t count, uint64_t size) {
    assert(count < size);
    uint64_t *out = xmalloc((size_t)count * sizeof *out);
    if (count * 3 > size) {
        uint64_t *all = xmalloc((size_t)size * sizeof *all);
        for (uint64_t i = 0; i < size; i++) all[i] = i;
        for (uint64_t i = 0; i < count; i++) {
            uint64_t j = i + draw_below(size - i), t = all[i];
            all[i] = all[j];
            all[j] = t;
            out[i] = all[i];
        }
        free(all);
        return out;
    }
    size_t cap = 16;
    while (cap < (size_t)count * 2) cap *= 2;
    uint64_t *seen = xmalloc(cap * sizeof *seen);
    memset(seen, 0xff, cap * sizeof *seen); /* UINT64_MAX: empty */
    for (uint64_t got = 0; got < count;) {
        uint64_t r = draw_below(size);
        size_t p = (size_t)((r * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
        while (seen[p] != UINT64_MAX && seen[p] != r) p = (p + 1) & (cap - 1);
        if (seen[p] == r) continue;
        seen[p] = r;
        out[got++] = r;
    }
    free(seen);
    return out;
}
