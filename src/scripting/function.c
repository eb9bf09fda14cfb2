/* function: the registry of Redis 7.0 functions' libraries (see function.h).
 *
 * A registry context holds the libraries (in load order) and an index of
 * their functions sorted by name, ASCII case ignored (binary search:
 * FCALL's lookup). The server's libraries are one context; FUNCTION
 * RESTORE builds its payload's libraries in a context of its own, then
 * joins it to the server's (or swaps them, FLUSH) only when every check
 * passed, as Redis's libraryJoin, so a failed RESTORE changes nothing.
 * Texts of the errors are Redis 7.0.15's (functions.c). Main thread only. */
#include "function.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "function_lua.h"
#include "util.h"

struct fn_ctx {
    fn_lib **libs;
    size_t nlibs, libcap;
    fn_func **index;     /* every library's functions, sorted by name */
    size_t nindex, idxcap;
};

static fn_ctx cur;

static const char *const flag_names[] = {"no-writes", "allow-oom", "allow-stale", "no-cluster",
                                         "allow-cross-slot-keys", NULL};

const char *function_flag_name(int i) {
    return i >= 0 && i < (int)(sizeof flag_names / sizeof flag_names[0]) ? flag_names[i] : NULL;
}

int function_flag_bit(const char *name) {
    for (int i = 0; flag_names[i]; i++)
        if (!strcasecmp(flag_names[i], name)) return 1 << i;
    return 0;
}

/* functionsVerifyName: letters, digits, '_', at least one. */
int function_name_ok(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++) {
        char ch = s[i];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            return 0;
    }
    return 1;
}

static char *dupf(const char *fmt, const char *a) {
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + 1;
    char *s = xmalloc(n);
    snprintf(s, n, fmt, a);
    return s;
}

/* ---- libraries ---- */

static void lib_free(fn_lib *li) {
    if (!li) return;
    for (size_t i = 0; i < li->nfuncs; i++) {
        fn_func *f = li->funcs[i];
        fnlua_unref(f->ref);
        free(f->name);
        free(f->desc);
        free(f);
    }
    free(li->funcs);
    free(li->name);
    if (li->code) obj_decref(li->code);
    free(li);
}

int function_lib_add(fn_lib *li, const char *name, size_t len, const char *desc, int flags,
                     int ref, char **err) {
    if (!function_name_ok(name, len)) {
        /* Redis 7.0's text for a bad function name names libraries too */
        *err = xstrdup("Library names can only contain letters, numbers, or underscores(_) and "
                       "must be at least one character long");
        return -1;
    }
    /* Redis 7.0 compares case-sensitively here, then keeps one of two
     * names differing in case only in its case-insensitive index (and
     * crashes deleting the library): verso refuses the second one */
    for (size_t i = 0; i < li->nfuncs; i++)
        if (!strcasecmp(li->funcs[i]->name, name)) {
            *err = xstrdup("Function already exists in the library");
            return -1;
        }
    fn_func *f = xcalloc(1, sizeof *f);
    f->name = xstrdup(name);
    f->desc = desc ? xstrdup(desc) : NULL;
    f->flags = flags;
    f->ref = ref;
    f->lib = li;
    li->funcs = xrealloc(li->funcs, (li->nfuncs + 1) * sizeof *li->funcs);
    li->funcs[li->nfuncs++] = f;
    return 0;
}

/* ---- a context's index ---- */

/* Library names compare as bytes; function names ignore ASCII case, as
 * Redis 7.0's dicts of each (FCALL TEST calls test). */
static int cmp_name(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b);
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int lower(unsigned char ch) { return ch >= 'A' && ch <= 'Z' ? ch + ('a' - 'A') : ch; }

static int cmp_fname(const char *a, size_t alen, const char *b) {
    size_t blen = strlen(b), n = alen < blen ? alen : blen;
    for (size_t i = 0; i < n; i++) {
        int c = lower((unsigned char)a[i]) - lower((unsigned char)b[i]);
        if (c) return c;
    }
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* The position of name in the index (found), or where it would go. */
static size_t idx_pos(const fn_ctx *x, const char *name, size_t len, int *found) {
    size_t lo = 0, hi = x->nindex;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_fname(name, len, x->index[mid]->name);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

static fn_func *ctx_find(const fn_ctx *x, const char *name, size_t len) {
    int found;
    size_t i = idx_pos(x, name, len, &found);
    return found ? x->index[i] : NULL;
}

static fn_lib *ctx_lib(const fn_ctx *x, const char *name, size_t len, size_t *at) {
    for (size_t i = 0; i < x->nlibs; i++)
        if (!cmp_name(name, len, x->libs[i]->name)) {
            if (at) *at = i;
            return x->libs[i];
        }
    return NULL;
}

/* Adds the library and its functions (whose names are free in x). */
static void ctx_link(fn_ctx *x, fn_lib *li) {
    if (x->nlibs == x->libcap) {
        x->libcap = x->libcap ? x->libcap * 2 : 8;
        x->libs = xrealloc(x->libs, x->libcap * sizeof *x->libs);
    }
    x->libs[x->nlibs++] = li;
    for (size_t i = 0; i < li->nfuncs; i++) {
        fn_func *f = li->funcs[i];
        int found;
        size_t at = idx_pos(x, f->name, strlen(f->name), &found);
        assert(!found);
        if (x->nindex == x->idxcap) {
            x->idxcap = x->idxcap ? x->idxcap * 2 : 16;
            x->index = xrealloc(x->index, x->idxcap * sizeof *x->index);
        }
        memmove(x->index + at + 1, x->index + at, (x->nindex - at) * sizeof *x->index);
        x->index[at] = f;
        x->nindex++;
    }
}

/* Takes the library and its functions out of x (not freed). */
static void ctx_unlink(fn_ctx *x, fn_lib *li) {
    for (size_t i = 0; i < li->nfuncs; i++) {
        int found;
        const char *n = li->funcs[i]->name;
        size_t at = idx_pos(x, n, strlen(n), &found);
        assert(found && x->index[at] == li->funcs[i]);
        memmove(x->index + at, x->index + at + 1, (x->nindex - at - 1) * sizeof *x->index);
        x->nindex--;
    }
    for (size_t i = 0; i < x->nlibs; i++)
        if (x->libs[i] == li) {
            memmove(x->libs + i, x->libs + i + 1, (x->nlibs - i - 1) * sizeof *x->libs);
            x->nlibs--;
            return;
        }
    assert(0 && "library not in its context");
}

static void ctx_clear(fn_ctx *x) {
    for (size_t i = 0; i < x->nlibs; i++) lib_free(x->libs[i]);
    free(x->libs);
    free(x->index);
    memset(x, 0, sizeof *x);
}

/* ---- metadata ---- */

typedef struct lib_meta {
    char *name, *engine;
    size_t body;         /* offset of the body: the metadata line's '\n' */
} lib_meta;

/* functionExtractLibMetaData: "#!<engine> name=<lib>" up to the first
 * newline, words as sdssplitargs splits them. */
static int parse_meta(const char *code, size_t len, lib_meta *md, char **err) {
    memset(md, 0, sizeof *md);
    if (len < 2 || code[0] != '#' || code[1] != '!') {
        *err = xstrdup("Missing library metadata");
        return -1;
    }
    const char *nl = memchr(code, '\n', len);
    /* Redis's strchr stops at a NUL too */
    const char *nul = memchr(code, '\0', len);
    if (!nl || (nul && nul < nl)) {
        *err = xstrdup("Invalid library metadata");
        return -1;
    }
    char *line = xstrndup(code, (size_t)(nl - code));
    int argc = 0;
    char **argv = split_args(line, &argc);
    free(line);
    if (!argv || argc == 0) {
        free_args(argv, argc);
        *err = xstrdup("Invalid library metadata");
        return -1;
    }
    md->engine = xstrdup(argv[0] + (strlen(argv[0]) >= 2 ? 2 : strlen(argv[0])));
    for (int i = 1; i < argc; i++) {
        if (!strncasecmp(argv[i], "name=", 5)) {
            if (md->name) {
                *err = xstrdup("Invalid metadata value, name argument was given multiple times");
                goto fail;
            }
            md->name = xstrdup(argv[i] + 5);
            continue;
        }
        *err = dupf("Invalid metadata value given: %s", argv[i]);
        goto fail;
    }
    if (!md->name) {
        *err = xstrdup("Library name was not given");
        goto fail;
    }
    free_args(argv, argc);
    md->body = (size_t)(nl - code);
    return 0;
fail:
    free_args(argv, argc);
    free(md->name);
    free(md->engine);
    md->name = md->engine = NULL;
    return -1;
}

/* functionsCreateWithLibraryCtx: creates the library in x. */
static char *create_in(fn_ctx *x, const char *code, size_t len, int replace, int64_t timeout_ms,
                       char **err) {
    lib_meta md;
    if (parse_meta(code, len, &md, err) != 0) return NULL;
    fn_lib *old = NULL, *li = NULL;
    size_t old_at = 0;
    if (!function_name_ok(md.name, strlen(md.name))) {
        *err = xstrdup("Library names can only contain letters, numbers, or underscores(_) and "
                       "must be at least one character long");
        goto fail;
    }
    if (strcasecmp(md.engine, "lua") != 0) {
        *err = dupf("Engine '%s' not found", md.engine);
        goto fail;
    }
    old = ctx_lib(x, md.name, strlen(md.name), &old_at);
    if (old && !replace) {
        old = NULL;
        *err = dupf("Library '%s' already exists", md.name);
        goto fail;
    }
    if (old) ctx_unlink(x, old);
    li = xcalloc(1, sizeof *li);
    li->name = xstrdup(md.name);
    li->code = obj_new_raw(code, len);
    if (fnlua_create(li, code + md.body, len - md.body, timeout_ms, err) != 0) goto fail;
    if (li->nfuncs == 0) {
        *err = xstrdup("No functions registered");
        goto fail;
    }
    for (size_t i = 0; i < li->nfuncs; i++)
        if (ctx_find(x, li->funcs[i]->name, strlen(li->funcs[i]->name))) {
            *err = dupf("Function %s already exists", li->funcs[i]->name);
            goto fail;
        }
    ctx_link(x, li);
    lib_free(old);
    free(md.engine);
    return md.name;
fail:
    lib_free(li);
    if (old) ctx_link(x, old);
    free(md.name);
    free(md.engine);
    return NULL;
}

/* ---- the server's libraries ---- */

char *function_create(const char *code, size_t len, int replace, int64_t timeout_ms,
                      char **err) {
    return create_in(&cur, code, len, replace, timeout_ms, err);
}

int function_delete(const char *name, size_t len) {
    fn_lib *li = ctx_lib(&cur, name, len, NULL);
    if (!li) return 0;
    ctx_unlink(&cur, li);
    lib_free(li);
    return 1;
}

void function_flush(void) { ctx_clear(&cur); }

fn_func *function_find(const char *name, size_t len) { return ctx_find(&cur, name, len); }

size_t function_lib_count(void) { return cur.nlibs; }

fn_lib *function_lib_at(size_t i) {
    assert(i < cur.nlibs);
    return cur.libs[i];
}

size_t function_count(void) { return cur.nindex; }

size_t function_vm_memory(void) { return fnlua_memory(); }

size_t function_memory(void) {
    size_t n = cur.libcap * sizeof(fn_lib *) + cur.idxcap * sizeof(fn_func *);
    for (size_t i = 0; i < cur.nlibs; i++) {
        const fn_lib *li = cur.libs[i];
        n += sizeof *li + strlen(li->name) + 1 + obj_mem(li->code) + li->nfuncs * sizeof(fn_func *);
        for (size_t j = 0; j < li->nfuncs; j++) {
            const fn_func *f = li->funcs[j];
            n += sizeof *f + strlen(f->name) + 1 + (f->desc ? strlen(f->desc) + 1 : 0);
        }
    }
    return n;
}

void function_info_memory(vbuf *b) {
    vbuf_appendf(b,
                 "number_of_functions:%zu\r\nnumber_of_libraries:%zu\r\n"
                 "used_memory_vm_functions:%zu\r\nused_memory_functions:%zu\r\n",
                 cur.nindex, cur.nlibs, function_vm_memory(), function_memory());
}

obj **function_codes(size_t *n) {
    *n = cur.nlibs;
    if (!cur.nlibs) return NULL;
    obj **v = xmalloc(cur.nlibs * sizeof *v);
    for (size_t i = 0; i < cur.nlibs; i++) {
        v[i] = cur.libs[i]->code;
        obj_incref(v[i]);
    }
    return v;
}

void function_codes_free(obj **codes, size_t n) {
    for (size_t i = 0; i < n; i++) obj_decref(codes[i]);
    free(codes);
}

/* libraryJoin: moves src's libraries into dst; with replace, a library of
 * the same name is replaced. All or nothing. */
static int join(fn_ctx *dst, fn_ctx *src, int replace, char **err) {
    fn_lib **olds = xmalloc((src->nlibs + 1) * sizeof *olds);
    size_t nold = 0;
    int ok = 1;
    for (size_t i = 0; i < src->nlibs && ok; i++) {
        const char *n = src->libs[i]->name;
        fn_lib *old = ctx_lib(dst, n, strlen(n), NULL);
        if (!old) continue;
        if (!replace) {
            *err = dupf("Library %s already exists", n);
            ok = 0;
            break;
        }
        ctx_unlink(dst, old);
        olds[nold++] = old;
    }
    for (size_t i = 0; ok && i < src->nindex; i++) {
        const char *n = src->index[i]->name;
        if (ctx_find(dst, n, strlen(n))) {
            *err = dupf("Function %s already exists", n);
            ok = 0;
        }
    }
    if (ok) {
        for (size_t i = 0; i < src->nlibs; i++) ctx_link(dst, src->libs[i]);
        src->nlibs = 0;
        for (size_t i = 0; i < nold; i++) lib_free(olds[i]);
    } else {
        for (size_t i = 0; i < nold; i++) ctx_link(dst, olds[i]);
    }
    free(olds);
    return ok ? 0 : -1;
}

fn_ctx *function_ctx_new(void) { return xcalloc(1, sizeof(fn_ctx)); }

int function_replace_all(obj *const *codes, size_t n, char **err) {
    fn_ctx *x = function_ctx_new();
    for (size_t i = 0; i < n; i++) {
        char ibuf[OBJ_INTBUF];
        size_t len;
        const char *code = obj_str(codes[i], ibuf, &len);
        char *name = create_in(x, code, len, 0, 0, err);
        if (!name) {
            function_ctx_free(x);
            return -1;
        }
        free(name);
    }
    return function_ctx_commit(x, FN_RESTORE_FLUSH, err);
}

char *function_ctx_create(fn_ctx *x, const char *code, size_t len, char **err) {
    return create_in(x, code, len, 0, 0, err);
}

void function_ctx_free(fn_ctx *x) {
    if (!x) return;
    ctx_clear(x);
    free(x);
}

int function_ctx_commit(fn_ctx *x, int policy, char **err) {
    int rc = 0;
    if (policy == FN_RESTORE_FLUSH) {
        fn_ctx old = cur;
        cur = *x;
        memset(x, 0, sizeof *x);
        ctx_clear(&old);
    } else {
        rc = join(&cur, x, policy == FN_RESTORE_REPLACE, err);
    }
    function_ctx_free(x);
    return rc;
}
