/* cmd_script: EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT (LOAD, EXISTS,
 * FLUSH, KILL, DEBUG, HELP), as Redis 7.0's eval.c: the script cache (sha1
 * -> body and shebang flags; the compiled function in the EVAL state's
 * registry under "f_<sha1>") and the EVAL Lua state, created at the first
 * script and dropped by SCRIPT FLUSH. Running is script_lua.c's. Main
 * thread only. */
#include <assert.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "info.h"
#include "lauxlib.h"
#include "script_lua.h"
#include "util.h"

typedef struct eval_script {
    char sha[41];
    int flags;                  /* SCRIPT_FLAG_* from the shebang */
    size_t body_len;
    struct eval_script *next;   /* hash chain */
} eval_script;

/* main thread only; cache lives from the first EVAL/SCRIPT LOAD until
 * SCRIPT FLUSH */
static struct {
    lua_State *L;               /* NULL until the first script */
    eval_script **buckets;
    size_t nbuckets, count;
    size_t mem;                 /* the cache's bytes (used_memory_scripts_eval) */
} E;

static size_t bucket_of(const char *sha, size_t nbuckets) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < 40; i++) h = (h ^ (unsigned char)sha[i]) * 1099511628211ULL;
    return (size_t)(h & (nbuckets - 1));
}

static eval_script *cache_find(const char *sha) {
    if (!E.count) return NULL;
    for (eval_script *s = E.buckets[bucket_of(sha, E.nbuckets)]; s; s = s->next)
        if (!memcmp(s->sha, sha, 40)) return s;
    return NULL;
}

static void cache_grow(void) {
    size_t n = E.nbuckets ? E.nbuckets * 2 : 64;
    eval_script **b = xcalloc(n, sizeof *b);
    for (size_t i = 0; i < E.nbuckets; i++) {
        for (eval_script *s = E.buckets[i], *next; s; s = next) {
            next = s->next;
            size_t at = bucket_of(s->sha, n);
            s->next = b[at];
            b[at] = s;
        }
    }
    free(E.buckets);
    E.buckets = b;
    E.nbuckets = n;
}

static void cache_add(eval_script *s) {
    if (E.count >= E.nbuckets) cache_grow();
    size_t at = bucket_of(s->sha, E.nbuckets);
    s->next = E.buckets[at];
    E.buckets[at] = s;
    E.count++;
    E.mem += sizeof *s + s->body_len;
}

static void cache_flush(void) {
    for (size_t i = 0; i < E.nbuckets; i++) {
        for (eval_script *s = E.buckets[i], *next; s; s = next) {
            next = s->next;
            free(s);
        }
    }
    free(E.buckets);
    E.buckets = NULL;
    E.nbuckets = E.count = E.mem = 0;
    if (E.L) scriptl_state_free(E.L);
    E.L = NULL;
}

static lua_State *eval_state(void) {
    if (!E.L) E.L = scriptl_state_new(SCRIPTL_EVAL);
    return E.L;
}

/* Redis's evalExtractShebangFlags: 0 with *flags and *skip (the shebang
 * line's length), or -1 after replying the error (to c unless NULL). */
static int shebang_flags(client *c, const char *body, size_t len, int *flags, size_t *skip) {
    *flags = SCRIPT_FLAG_EVAL_COMPAT_MODE;
    *skip = 0;
    if (len < 2 || memcmp(body, "#!", 2) != 0) return 0;
    const char *end = memchr(body, '\n', len);
    if (!end) {
        if (c) reply_error(c, "ERR Invalid script shebang");
        return -1;
    }
    *skip = (size_t)(end - body);
    *flags = 0;
    const char *p = body, *e = end;
    int first = 1;
    while (p < e) {
        while (p < e && isspace((unsigned char)*p)) p++;
        if (p == e) break;
        const char *w = p;
        while (p < e && !isspace((unsigned char)*p)) p++;
        size_t wl = (size_t)(p - w);
        if (first) {
            first = 0;
            if (wl != 5 || memcmp(w, "#!lua", 5) != 0) {
                if (c) reply_errorf(c, "ERR Unexpected engine in script shebang: %.*s", (int)wl, w);
                return -1;
            }
            continue;
        }
        if (wl < 6 || memcmp(w, "flags=", 6) != 0) {
            if (c) reply_errorf(c, "ERR Unknown lua shebang option: %.*s", (int)wl, w);
            return -1;
        }
        for (const char *f = w + 6; f <= p;) {
            const char *comma = memchr(f, ',', (size_t)(p - f));
            const char *fe = comma ? comma : p;
            int flag = scriptl_flag_by_name(f, (size_t)(fe - f));
            if (!flag && fe > f) {
                if (c)
                    reply_errorf(c, "ERR Unexpected flag in script shebang: %.*s", (int)(fe - f), f);
                return -1;
            }
            *flags |= flag;
            f = fe + 1;
        }
    }
    return 0;
}

/* Redis's luaCreateFunction: the cached script of body, compiling it when
 * new; NULL after replying the error. */
static eval_script *create_function(client *c, const char *body, size_t len) {
    char sha[41];
    scriptl_sha1hex(sha, body, len);
    eval_script *s = cache_find(sha);
    if (s) return s;
    int flags;
    size_t skip;
    if (shebang_flags(c, body, len, &flags, &skip) != 0) return NULL;
    lua_State *L = eval_state();
    if (luaL_loadbuffer(L, body + skip, len - skip, "@user_script")) {
        reply_errorf(c, "ERR Error compiling script (new function): %s", lua_tostring(L, -1));
        lua_pop(L, 1);
        return NULL;
    }
    char name[43] = "f_";
    memcpy(name + 2, sha, 41);
    lua_setfield(L, LUA_REGISTRYINDEX, name);
    s = xcalloc(1, sizeof *s);
    memcpy(s->sha, sha, 41);
    s->flags = flags;
    s->body_len = len;
    cache_add(s);
    return s;
}

static void eval_generic(client *c, int evalsha, int ro) {
    long long numkeys;
    if (!arg_ll(c, &c->argv[2], &numkeys)) return;
    if (numkeys > c->argc - 3) {
        reply_error(c, "ERR Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        reply_error(c, "ERR Number of keys can't be negative");
        return;
    }
    eval_script *s;
    if (evalsha) {
        char sha[41];
        for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)c->argv[1].p[i]);
        sha[40] = '\0';
        s = cache_find(sha);
        if (!s) {
            reply_error(c, "NOSCRIPT No matching script. Please use EVAL.");
            return;
        }
    } else {
        s = create_function(c, c->argv[1].p, c->argv[1].len);
        if (!s) return;
    }
    if (!scriptl_prepare(c, s->flags, ro)) return;
    lua_State *L = eval_state();
    char name[43] = "f_";
    memcpy(name + 2, s->sha, 41);
    lua_getfield(L, LUA_REGISTRYINDEX, name);
    assert(lua_isfunction(L, -1));
    char sha[41];
    memcpy(sha, s->sha, 41); /* s may not outlive the run (it does: no flush while busy) */
    int nk = (int)numkeys;
    scriptl_call(L, SCRIPTL_EVAL, c, sha, s->flags, ro, nk, c->argv + 3, c->argc - 3 - nk,
                 c->argv + 3 + nk);
}

static int sha_ok(const client *c) { return c->argv[1].len == 40; }

/* Redis's evalGetCommandFlags: the cached script's flags, else (EVAL) the
 * body's shebang; the command's own flags for a script without a shebang,
 * an EVALSHA of no cached script, a shebang in error. */
int eval_cmd_flags(const cmd_def *d, int argc, const arg *argv) {
    assert(argc >= 2);
    int evalsha = d->proc == cmd_evalsha || d->proc == cmd_evalsha_ro;
    if (evalsha && argv[1].len != 40) return d->flags;
    char sha[41];
    if (evalsha) {
        for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)argv[1].p[i]);
        sha[40] = '\0';
    } else {
        scriptl_sha1hex(sha, argv[1].p, argv[1].len);
    }
    const eval_script *s = cache_find(sha);
    int flags;
    size_t skip;
    if (s) flags = s->flags;
    else if (evalsha || shebang_flags(NULL, argv[1].p, argv[1].len, &flags, &skip) != 0)
        return d->flags;
    if (flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) return d->flags;
    return scriptl_cmd_flags(d->flags, flags);
}

void cmd_eval(client *c) { eval_generic(c, 0, 0); }
void cmd_eval_ro(client *c) { eval_generic(c, 0, 1); }

void cmd_evalsha(client *c) {
    if (!sha_ok(c)) reply_error(c, "NOSCRIPT No matching script. Please use EVAL.");
    else eval_generic(c, 1, 0);
}

void cmd_evalsha_ro(client *c) {
    if (!sha_ok(c)) reply_error(c, "NOSCRIPT No matching script. Please use EVAL.");
    else eval_generic(c, 1, 1);
}

/* ---- INFO ---- */

size_t script_vm_memory(void) {
    return scriptl_state_memory(eval_state()); /* Redis has the state from startup */
}

size_t script_cache_memory(void) { return E.mem + E.nbuckets * sizeof(eval_script *); }

void script_info_memory(vbuf *b) {
    size_t vm = script_vm_memory();
    char human[32];
    info_human(human, sizeof human, (double)vm);
    vbuf_appendf(b, "used_memory_lua:%zu\r\nused_memory_vm_eval:%zu\r\nused_memory_lua_human:%s\r\n"
                    "used_memory_scripts_eval:%zu\r\nnumber_of_cached_scripts:%zu\r\n",
                 vm, vm, human, script_cache_memory(), E.count);
}

/* ---- SCRIPT ---- */

static const char *const script_help[] = {
    "SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
    "DEBUG (YES|SYNC|NO)",
    "    Set the debug mode for subsequent scripts executed.",
    "EXISTS <sha1> [<sha1> ...]",
    "    Return information about the existence of the scripts in the script cache.",
    "FLUSH [ASYNC|SYNC]",
    "    Flush the Lua scripts cache. Very dangerous on replicas.",
    "    When called without the optional mode argument, the behavior is determined by the",
    "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
    "    * ASYNC: Asynchronously flush the scripts cache.",
    "    * SYNC: Synchronously flush the scripts cache.",
    "KILL",
    "    Kill the currently executing Lua script.",
    "LOAD <script>",
    "    Load a script into the scripts cache without executing it.",
    "HELP",
    "    Prints this help.",
    NULL};

/* The dispatcher resolved the subcommand (c->cmd) and checked its arity. */
void cmd_script(client *c) {
    const char *sub = c->cmd->name;
    if (!strcmp(sub, "kill")) {
        scriptl_kill(c, 1);
    } else if (!strcmp(sub, "exists")) {
        reply_array(c, c->argc - 2);
        for (int j = 2; j < c->argc; j++) {
            char sha[41];
            int found = 0;
            if (c->argv[j].len == 40) { /* any case, as Redis's dict compares */
                for (int i = 0; i < 40; i++) sha[i] = (char)tolower((unsigned char)c->argv[j].p[i]);
                sha[40] = '\0';
                found = cache_find(sha) != NULL;
            }
            reply_int(c, found);
        }
    } else if (!strcmp(sub, "flush")) {
        if (c->argc > 3 || (c->argc == 3 && !arg_is(&c->argv[2], "sync") &&
                            !arg_is(&c->argv[2], "async"))) {
            reply_error(c, "ERR SCRIPT FLUSH only support SYNC|ASYNC option");
            return;
        }
        /* ASYNC frees at once too: the cache and state are small next to
         * a dataset (Redis frees the old state in a background thread) */
        cache_flush();
        reply_ok(c);
    } else if (!strcmp(sub, "load")) {
        eval_script *s = create_function(c, c->argv[2].p, c->argv[2].len);
        if (s) reply_bulk(c, s->sha, 40);
    } else if (!strcmp(sub, "debug")) {
        if (arg_is(&c->argv[2], "no")) reply_ok(c);
        else if (arg_is(&c->argv[2], "yes") || arg_is(&c->argv[2], "sync"))
            reply_error(c, "ERR SCRIPT DEBUG is not supported: verso has no Lua debugger");
        else reply_error(c, "ERR Use SCRIPT DEBUG YES/SYNC/NO");
    } else {
        assert(!strcmp(sub, "help"));
        cmd_reply_help(c, script_help);
    }
}
