/* fuzz_conf: the config-file and command-line parsers (src/config/conf.c).
 *
 * Input: the config file, optionally followed by a NUL and command-line
 * arguments separated by NULs ("--port", "7000", ...), loaded as
 * verso-server does: conf_load_file then conf_load_args. Checked on
 * success: every parameter CONFIG GET shows can be applied back
 * (conf_apply) to a fresh configuration and reads back the same (the
 * effect of CONFIG REWRITE); on failure, the message is Redis's fatal
 * config error. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "util.h"
#include "vbuf.h"
#include "fuzz_common.h"

#define MAX_ARGS 64

typedef struct kv {
    char *names[512];
    char *values[512];
    int n;
} kv;

static void collect(void *priv, const char *name, const char *value, size_t vlen) {
    (void)vlen; /* compared as C strings */
    kv *o = priv;
    assert(o->n < 512);
    o->names[o->n] = xstrdup(name);
    o->values[o->n] = xstrdup(value);
    o->n++;
}

static void kv_free(kv *o) {
    for (int i = 0; i < o->n; i++) {
        free(o->names[i]);
        free(o->values[i]);
    }
    o->n = 0;
}

static int is_multi(const char *name) {
    return !strcmp(name, "bind") || !strcmp(name, "save") ||
           !strcmp(name, "client-output-buffer-limit") || !strcmp(name, "replicaof") ||
           !strcmp(name, "slaveof") || !strcmp(name, "oom-score-adj-values") ||
           !strcmp(name, "shutdown-on-sigint") || !strcmp(name, "shutdown-on-sigterm");
}

/* Applies every name/value of `got` to a fresh conf and compares. */
static void round_trip(const conf *c, const kv *got) {
    for (int i = 0; i < c->nbind; i++)
        if (!c->bind[i][0] || strchr(c->bind[i], ' '))
            return; /* CONFIG GET joins them with spaces: not reversible */
    conf fresh;
    conf_init(&fresh);
    for (int i = 0; i < got->n; i++) {
        char *argv[64];
        int argc = 0;
        argv[argc++] = got->names[i];
        char *copy = xstrdup(got->values[i]);
        if (is_multi(got->names[i])) {
            for (char *w = strtok(copy, " "); w && argc < 64; w = strtok(NULL, " "))
                argv[argc++] = w;
            if (argc == 1) argv[argc++] = ""; /* save "" */
        } else {
            argv[argc++] = copy;
        }
        char err[CONF_ERRLEN];
        int rc = conf_apply(&fresh, argc, argv, err, sizeof err);
        if (rc != 0) {
            fprintf(stderr, "round trip: %s '%s': %s\n", got->names[i], got->values[i], err);
            abort();
        }
        free(copy);
    }
    kv again = {0};
    conf_get(&fresh, "*", collect, &again);
    assert(again.n == got->n);
    for (int i = 0; i < got->n; i++) {
        assert(!strcmp(again.names[i], got->names[i]));
        if (strcmp(again.values[i], got->values[i])) {
            fprintf(stderr, "round trip: %s '%s' became '%s'\n", got->names[i], got->values[i],
                    again.values[i]);
            abort();
        }
    }
    kv_free(&again);
    conf_free(&fresh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_quiet_log();
    const uint8_t *nul = memchr(data, 0, size);
    size_t flen = nul ? (size_t)(nul - data) : size;
    fz_write("in.conf", data, flen);
    /* the arguments: NUL-separated strings after the file */
    char *args = NULL;
    char *argv[MAX_ARGS];
    int argc = 0;
    if (nul) {
        size_t alen = size - flen - 1;
        args = malloc(alen + 1);
        memcpy(args, nul + 1, alen);
        args[alen] = '\0';
        for (char *p = args; p < args + alen + 1 && argc < MAX_ARGS; p += strlen(p) + 1)
            argv[argc++] = p;
    }
    conf c;
    conf_init(&c);
    char err[CONF_ERRLEN + 512] = "";
    int rc = conf_load_file(&c, fz_path("in.conf"), err, sizeof err);
    if (rc == 0) rc = conf_load_args(&c, argc, argv, err, sizeof err);
    assert(rc == 0 || rc == -1);
    if (rc == -1) {
        assert(strstr(err, "*** FATAL CONFIG FILE ERROR") || strstr(err, "Fatal error"));
    } else {
        kv got = {0};
        conf_get(&c, "*", collect, &got);
        round_trip(&c, &got);
        kv_free(&got);
    }
    conf_free(&c);
    free(args);
    return 0;
}
