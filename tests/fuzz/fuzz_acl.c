/* fuzz_acl: the ACL rule parser (src/acl/acl_rules.c), as ACL SETUSER,
 * `user` config lines and aclfile lines reach it.
 *
 * Input: words separated by spaces, newlines or NULs (at most MAX_WORDS),
 * applied to a new user with acl_set_rules (selector words "(a" "b)"
 * merged as ACL SETUSER merges them). A refusal must come with Redis's
 * reason (acl_rule_err_text gives a text starting "ERR "). An accepted
 * list must describe itself as ACL LIST / ACL SAVE do, and that
 * description is applied to a fresh user (what ACL LOAD of a saved file
 * does). When it is accepted, the new user must give the same verdicts on
 * a few commands whose keys and channels are the input's own words, and
 * its own description must read back to itself (the first may differ, as
 * Redis's: "%RW~*" is described "~*", which read back empties the other
 * key patterns). It may be refused, with Redis's reason, as Redis
 * 7.0.15 refuses it: its ACL SAVE writes descriptions its ACL LOAD refuses
 * (a selector's pattern holding ')': "(~a)b)" reads back as "(~a)" and
 * "b)"; "%RW~*" then "%W~x" is described "~* %W~x", a pattern after "~*").
 * CVE-2024-51741 was a crash of Redis's parser on a
 * malformed selector: this target is where such inputs go. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl_int.h"
#include "cmd.h"
#include "inproc.h"
#include "fuzz_common.h"

#define MAX_WORDS 64

/* The words of p[0..n) split at spaces, newlines and NULs. */
static int split(const char *p, size_t n, arg *out, int max) {
    int argc = 0;
    size_t i = 0;
    while (i < n && argc < max) {
        while (i < n && (p[i] == ' ' || p[i] == '\n' || p[i] == '\0')) i++;
        size_t start = i;
        while (i < n && p[i] != ' ' && p[i] != '\n' && p[i] != '\0') i++;
        if (i > start) out[argc++] = (arg){p + start, i - start};
    }
    return argc;
}

/* A user from words; NULL when refused (then e holds why). */
static acl_user *user_from(int argc, const arg *argv, acl_rule_err *e) {
    acl_user *u = acl_user_new("f", 1);
    if (acl_set_rules(u, argc, argv, e, NULL, NULL) == 0) return u;
    acl_user_free(u);
    return NULL;
}

/* The same verdict from u and v on commands whose key, channel or
 * argument is the word ("$"). */
static void same_verdicts(const acl_user *u, const acl_user *v, const arg *word) {
    static const char *const lines[][6] = {
        {"get", "$"}, {"set", "$", "v"}, {"publish", "$", "m"}, {"psubscribe", "$"},
        {"lmove", "$", "$", "LEFT", "RIGHT"}, {"ping"}, {"flushall"}, {"config", "get", "$"}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        arg argv[6];
        int argc = 0;
        for (; argc < 6 && lines[i][argc]; argc++) {
            const char *w = lines[i][argc];
            argv[argc] = strcmp(w, "$") ? (arg){w, strlen(w)} : *word;
        }
        const cmd_def *d = cmd_lookup_argv(argc, argv, NULL);
        assert(d && cmd_arity_ok(d, argc));
        int pu, pv;
        int a = acl_check(u, d, argc, argv, &pu), b = acl_check(v, d, argc, argv, &pv);
        assert(a == b && pu == pv);
    }
}

/* Whether a selector (not the root one) holds a pattern or a +cmd|arg
 * with a parenthesis: its description "(~a) ...)" reads back cut at the
 * wrong word (Redis 7.0.15 describes it the same way), so it is left out
 * of the round trip. */
static int paren(const char *p, size_t len) {
    return memchr(p, '(', len) || memchr(p, ')', len);
}

static int paren_in_selector(const acl_user *u) {
    for (size_t i = 1; i < u->nsel; i++) {
        const acl_sel *s = &u->sel[i];
        for (size_t k = 0; k < s->nkeys; k++)
            if (paren(s->keys[k].p, s->keys[k].len)) return 1;
        for (size_t k = 0; k < s->nchans; k++)
            if (paren(s->chans[k].p, s->chans[k].len)) return 1;
        for (size_t k = 0; k < s->nfa; k++)
            if (paren(s->fa[k].arg, strlen(s->fa[k].arg))) return 1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_quiet_log();
    inproc_init(); /* the command table the rules name */
    if (size > 4096) return 0;
    arg words[MAX_WORDS];
    int argc = split((const char *)data, size, words, MAX_WORDS);
    acl_rule_err e;
    acl_user *u = user_from(argc, words, &e);
    if (!u) {
        char text[1024];
        acl_rule_err_text(&e, text, sizeof text);
        assert(!strncmp(text, "ERR ", 4));
        return 0;
    }
    if (paren_in_selector(u)) {
        acl_user_free(u);
        return 0;
    }
    /* ACL SAVE then ACL LOAD: the description read back */
    char *d = acl_describe_user(u);
    static arg back[4096];
    char *copy = strdup(d);
    int n = split(copy, strlen(copy), back, (int)(sizeof back / sizeof back[0]));
    acl_user *v = user_from(n, back, &e);
    if (!v) {
        /* refused with Redis's reason: see the top of the file */
        char text[1024];
        acl_rule_err_text(&e, text, sizeof text);
        assert(!strncmp(text, "ERR ", 4));
        free(copy);
        free(d);
        acl_user_free(u);
        return 0;
    }
    for (int i = 0; i < argc; i++) same_verdicts(u, v, &words[i]);
    /* read back once more: the description of what was read is final */
    char *d2 = acl_describe_user(v);
    char *copy2 = strdup(d2);
    n = split(copy2, strlen(copy2), back, (int)(sizeof back / sizeof back[0]));
    acl_user *w = user_from(n, back, &e);
    char *d3 = w ? acl_describe_user(w) : NULL;
    if (!d3 || strcmp(d2, d3) != 0) {
        fprintf(stderr, "fuzz_acl: '%s' read back as '%s', then as '%s'\n", d, d2,
                d3 ? d3 : "(refused)");
        abort();
    }
    free(d3);
    acl_user_free(w);
    free(copy2);
    free(d2);
    free(copy);
    free(d);
    acl_user_free(v);
    acl_user_free(u);
    return 0;
}
