/* acl_file: where users come from at startup and on ACL LOAD / SAVE: the
 * config file's `user name rules...` lines (kept as conf.c reads them,
 * applied once the command table exists) or the aclfile (one `user`
 * line per user, ACL LIST's format), never both, as Redis 7.0. Error
 * texts are Redis's. Main thread only. */
#include "acl_conf.h"
#include "acl_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

typedef struct user_line {
    int argc;              /* argv[0] the name, then the rules */
    char **argv;
    size_t *lens;          /* each word's length (a ">pass" may hold a NUL) */
} user_line;

static user_line *lines;   /* the config file's user lines */
static size_t nlines;

static arg *args_of(int argc, char **argv, const size_t *lens);

/* The first error that is not an unknown command (commands are known only
 * later, as in Redis, where modules may add them). */
static void first_bad(void *priv, const acl_rule_err *e) {
    acl_rule_err *first = priv;
    if (e->why != acl_err_unknown && !first->why) *first = *e;
}

/* The rules of a config line checked on a user of no consequence. 0, or
 * -1 with Redis 7.0's message, which names the word at the refused rule's
 * index in the whole line ("user" counts), as Redis's does. */
static int check_line(int argc, char **argv, const size_t *lens, char *err, size_t errlen) {
    acl_user *fake = acl_user_new(argv[0], strlen(argv[0]));
    arg *a = args_of(argc - 1, argv + 1, lens + 1);
    acl_rule_err e, first = {.why = NULL};
    int rc = acl_set_rules(fake, argc - 1, a, &e, first_bad, &first);
    free(a);
    acl_user_free(fake);
    if (rc != 0 && e.unmatched) {
        int at = e.index;
        snprintf(err, errlen, "Error in user declaration '%s': Unmatched parenthesis in acl "
                              "selector starting at '%s'.", at == 0 ? "user" : argv[at - 1], e.op);
        return -1;
    }
    if (first.why) {
        int at = first.index;
        snprintf(err, errlen, "Error in user declaration '%s': %s",
                 at == 0 ? "user" : argv[at - 1], first.why);
        return -1;
    }
    return 0;
}

int acl_conf_user_line(int argc, char **argv, const size_t *lens, char *err, size_t errlen) {
    for (size_t i = 0; i < nlines; i++) {
        if (!strcmp(lines[i].argv[0], argv[0])) {
            snprintf(err, errlen, "Error in user declaration '%s': Duplicate user found. A user "
                                  "can only be defined once in config files", argv[0]);
            return -1;
        }
    }
    size_t *l_lens = xmalloc((size_t)argc * sizeof *l_lens);
    for (int i = 0; i < argc; i++) l_lens[i] = lens ? lens[i] : strlen(argv[i]);
    if (check_line(argc, argv, l_lens, err, errlen) != 0) {
        free(l_lens);
        return -1;
    }
    lines = xrealloc(lines, (nlines + 1) * sizeof *lines);
    user_line *l = &lines[nlines++];
    l->argc = argc;
    l->lens = l_lens;
    l->argv = xmalloc((size_t)argc * sizeof *l->argv);
    for (int i = 0; i < argc; i++) l->argv[i] = xstrndup(argv[i], l_lens[i]);
    return 0;
}

/* The words as rules; lens NULL: strlen's. */
static arg *args_of(int argc, char **argv, const size_t *lens) {
    arg *a = xmalloc(((size_t)argc + 1) * sizeof *a);
    for (int i = 0; i < argc; i++) a[i] = (arg){argv[i], lens ? lens[i] : strlen(argv[i])};
    return a;
}

/* The config file's users: "default" is reset then takes its rules. */
static int load_conf_lines(void) {
    for (size_t i = 0; i < nlines; i++) {
        user_line *l = &lines[i];
        acl_user *u = acl_find(l->argv[0], strlen(l->argv[0]));
        const char *why;
        if (u) acl_set_rule(u, "reset", 5, &why);
        else {
            u = acl_user_new(l->argv[0], strlen(l->argv[0]));
            acl_add_user(u);
        }
        arg *a = args_of(l->argc - 1, l->argv + 1, l->lens + 1);
        acl_rule_err e;
        int rc = acl_set_rules(u, l->argc - 1, a, &e, NULL, NULL);
        free(a);
        if (rc != 0 && e.unmatched) {
            log_warning("Unmatched parenthesis in acl selector starting at '%s'.", e.op);
            return -1;
        } else if (rc != 0) {
            log_warning("Error loading ACL rule '%s' for the user named '%s': %s", e.op,
                        l->argv[0], e.why);
            return -1;
        }
        if (u->flags & USER_OFF)
            log_notice("The user '%s' is disabled (there is no 'on' modifier in the user "
                       "description). Make sure this is not a configuration error.", l->argv[0]);
    }
    return 0;
}

void acl_conf_rewrite(void (*fn)(void *priv, const char *name, const char *line, int force),
                      void *priv) {
    const char *file = server.cfg.compat.aclfile;
    if (file && file[0]) return;
    for (size_t i = 0; i < acl_nusers(); i++) {
        const acl_user *u = acl_user_at(i);
        char *d = acl_describe_user(u);
        vbuf b = {0};
        vbuf_appendf(&b, "user %s %s", u->name, d);
        vbuf_append(&b, "", 1);
        fn(priv, "user", b.data, 1);
        vbuf_free(&b);
        free(d);
    }
}

int acl_load_startup(void) {
    const char *file = server.cfg.compat.aclfile;
    if (nlines && file[0]) {
        log_warning("Configuring Redis with users defined in redis.conf and at the same setting "
                    "an ACL file path is invalid. This setup is very likely to lead to "
                    "configuration errors and security holes, please define either an ACL file "
                    "or declare users directly in your redis.conf, but not both.");
        return -1;
    }
    if (nlines) {
        if (load_conf_lines() != 0) {
            log_warning("Critical error while loading ACLs. Exiting.");
            return -1;
        }
        return 0;
    }
    if (!file[0]) return 0;
    char err[4096];
    if (acl_file_load(err, sizeof err) != 0) {
        log_warning("Aborting Redis startup because of ACL errors: %s", err);
        return -1;
    }
    return 0;
}

/* Splits a line at single spaces, as Redis's sdssplitlen (so two spaces
 * make an empty word, which no rule minds). */
static char **split_spaces(char *line, int *argc) {
    int n = 1;
    for (char *p = line; *p; p++) n += *p == ' ';
    char **v = xmalloc((size_t)n * sizeof *v);
    *argc = 0;
    for (char *p = line;;) {
        v[(*argc)++] = p;
        char *sp = strchr(p, ' ');
        if (!sp) break;
        *sp = '\0';
        p = sp + 1;
    }
    return v;
}

static char *trim(char *s) {
    s += strspn(s, " \t\r\n");
    size_t n = strlen(s);
    while (n && strchr(" \t\r\n", s[n - 1])) s[--n] = '\0';
    return s;
}

/* The errors of one line, as Redis's ACLLoadFromFile words them: every
 * unknown command or category, and the first other error. */
typedef struct line_errs {
    vbuf *e;
    const char *file;
    int linenum, syntax;
} line_errs;

static void line_err(void *priv, const acl_rule_err *re) {
    line_errs *le = priv;
    if (re->why == acl_err_unknown) {
        vbuf_appendf(le->e, "%s:%d: Error in applying operation '%s': %s. ", le->file, le->linenum,
                     re->op, re->why);
    } else if (!le->syntax) {
        vbuf_appendf(le->e, "%s:%d: %s. ", le->file, le->linenum, re->why);
        le->syntax = 1;
    }
}

/* One line of the file into *set; errors appended to e. */
static void load_line(char *line, int linenum, const char *file, acl_user ***set, size_t *n,
                      vbuf *e) {
    int argc;
    char **argv = split_spaces(line, &argc);
    if (strcmp(argv[0], "user") || argc < 2) {
        vbuf_appendf(e, "%s:%d should start with user keyword followed by the username. ", file,
                     linenum);
        free(argv);
        return;
    }
    if (!acl_valid_name(argv[1], strlen(argv[1]))) {
        vbuf_appendf(e, "'%s:%d: username '%s' contains invalid characters. ", file, linenum,
                     argv[1]);
        free(argv);
        return;
    }
    for (size_t i = 0; i < *n; i++) {
        if (!strcmp((*set)[i]->name, argv[1])) {
            vbuf_appendf(e, "WARNING: Duplicate user '%s' found on line %d. ", argv[1], linenum);
            free(argv);
            return;
        }
    }
    acl_user *u = acl_user_new(argv[1], strlen(argv[1]));
    arg *a = args_of(argc - 2, argv + 2, NULL);
    acl_rule_err re;
    line_errs le = {e, file, linenum, 0};
    if (acl_set_rules(u, argc - 2, a, &re, line_err, &le) != 0 && re.unmatched)
        vbuf_appendf(e, "%s:%d: Unmatched parenthesis in selector definition.", file, linenum);
    free(a);
    free(argv);
    *set = xrealloc(*set, (*n + 1) * sizeof **set);
    (*set)[(*n)++] = u;
}

int acl_file_load(char *err, size_t errlen) {
    const char *file = server.cfg.compat.aclfile;
    FILE *f = fopen(file, "r");
    if (!f) {
        snprintf(err, errlen, "Error loading ACLs, opening file '%s': %s", file, strerror(errno));
        return -1;
    }
    vbuf text = {0}, e = {0};
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) vbuf_append(&text, buf, got);
    fclose(f);
    vbuf_append(&text, "", 1);
    acl_user **set = NULL;
    size_t n = 0;
    int linenum = 0;
    for (char *line = text.data; line; linenum++) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *t = trim(line);
        if (*t) load_line(t, linenum + 1, file, &set, &n, &e);
        line = nl ? nl + 1 : NULL;
    }
    vbuf_free(&text);
    if (e.len) {
        for (size_t i = 0; i < n; i++) acl_user_free(set[i]);
        free(set);
        snprintf(err, errlen, "%.*sWARNING: ACL errors detected, no change to the previously "
                              "active ACL rules was performed", (int)e.len, e.data);
        vbuf_free(&e);
        return -1;
    }
    acl_replace_users(set, n);
    free(set);
    return 0;
}

int acl_file_save(char *err, size_t errlen) {
    const char *file = server.cfg.compat.aclfile;
    vbuf b = {0};
    for (size_t i = 0; i < acl_nusers(); i++) {
        const acl_user *u = acl_user_at(i);
        char *d = acl_describe_user(u);
        vbuf_appendf(&b, "user %s %s\n", u->name, d);
        free(d);
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", file, (int)getpid());
    FILE *f = fopen(tmp, "w");
    int ok = f && fwrite(b.data, 1, b.len, f) == b.len;
    if (f && fflush(f) != 0) ok = 0;
    if (f && fsync(fileno(f)) != 0) ok = 0;
    if (f && fclose(f) != 0) ok = 0;
    vbuf_free(&b);
    if (!ok) {
        snprintf(err, errlen, "Opening temp ACL file for ACL SAVE: %s", strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (rename(tmp, file) != 0) {
        snprintf(err, errlen, "Renaming ACL file for ACL SAVE: %s", strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}
