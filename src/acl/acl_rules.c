/* acl_rules: what a user is made of and what its rules do: selectors
 * (command bits per cmd_def id, first-args, key patterns with their %R/%W
 * permissions, channel patterns), the rules of ACL SETUSER, the `user`
 * lines and the aclfile (acl_set_rule(s), with Redis 7.0.15's error
 * texts), the description ACL LIST / GETUSER give, and the permission
 * check of one command line (acl_check). A description of command rules
 * is built again from the bits, as Redis 7.0 does (the categories that
 * fit best, then single commands), not kept as typed: the same
 * permissions, in words that may differ from those given. Main thread
 * only. */
#include "acl_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nettle/sha2.h>

#include "util.h"

/* ---- small helpers ---- */

static size_t nwords(void) { return (cmd_count_all() + 63) / 64; }

static int bit_get(const acl_sel *s, unsigned id) {
    return (s->bits[id / 64] >> (id % 64)) & 1;
}

static void bit_set(acl_sel *s, unsigned id, int on) {
    if (on) s->bits[id / 64] |= (uint64_t)1 << (id % 64);
    else {
        s->bits[id / 64] &= ~((uint64_t)1 << (id % 64));
        s->flags &= ~SEL_ALLCOMMANDS;
    }
}

static void hash_password(const char *p, size_t len, char out[65]) {
    static const char hex[] = "0123456789abcdef";
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, len, (const uint8_t *)p);
    sha256_digest(&ctx, sizeof d, d);
    for (size_t i = 0; i < sizeof d; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}

static int valid_hash(const char *p, size_t len) {
    if (len != 64) return 0;
    for (size_t i = 0; i < len; i++)
        if (!((p[i] >= 'a' && p[i] <= 'f') || (p[i] >= '0' && p[i] <= '9'))) return 0;
    return 1;
}

/* Compares in time independent of where the strings differ. */
static int same_hash(const char *a, const char *b) {
    unsigned diff = 0;
    for (int i = 0; i < 64; i++) diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}

static int has_spaces(const char *p, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (isspace((unsigned char)p[i]) || p[i] == '\0') return 1;
    return 0;
}

int acl_valid_name(const char *p, size_t len) { return !has_spaces(p, len); }

static char *dupn(const char *p, size_t len) {
    char *s = xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

/* A command by name: "get", or a container's "config|get"; NULL when
 * unknown (or more than one '|'). */
static const cmd_def *lookup_name(const char *p, size_t len) {
    const char *bar = memchr(p, '|', len);
    if (!bar) return cmd_lookup(p, len);
    const cmd_def *d = cmd_lookup(p, (size_t)(bar - p));
    if (!d || !d->subcmds) return NULL;
    return cmd_lookup_sub(d, bar + 1, len - (size_t)(bar - p) - 1);
}

static int category_of(const char *p, size_t len) {
    for (int i = 0; i < CAT_COUNT; i++)
        if (strlen(cmd_cat_names[i]) == len && !strncasecmp(cmd_cat_names[i], p, len))
            return 1 << i;
    return 0;
}

/* ---- selectors ---- */

static void sel_init(acl_sel *s, int flags) {
    memset(s, 0, sizeof *s);
    s->flags = flags | (server.cfg.compat.acl_pubsub_default ? SEL_ALLCHANNELS : 0);
    s->bits = xcalloc(nwords(), sizeof *s->bits); /* (one word before cmd_init: the
                                                     config file's rules are checked
                                                     then, with no command known) */
}

void acl_strs_free(acl_str *v, size_t n) {
    for (size_t i = 0; i < n; i++) free(v[i].p);
    free(v);
}

static void fa_reset(acl_sel *s) {
    for (size_t i = 0; i < s->nfa; i++) free(s->fa[i].arg);
    free(s->fa);
    s->fa = NULL;
    s->nfa = 0;
}

static void fa_reset_cmd(acl_sel *s, unsigned id) {
    size_t j = 0;
    for (size_t i = 0; i < s->nfa; i++) {
        if (s->fa[i].id == id) free(s->fa[i].arg);
        else s->fa[j++] = s->fa[i];
    }
    s->nfa = j;
}

static void sel_free(acl_sel *s) {
    free(s->bits);
    fa_reset(s);
    acl_strs_free(s->keys, s->nkeys);
    acl_strs_free(s->chans, s->nchans);
}

static acl_str *strs_dup(const acl_str *v, size_t n) {
    acl_str *c = xmalloc((n ? n : 1) * sizeof *c);
    for (size_t i = 0; i < n; i++) c[i] = (acl_str){dupn(v[i].p, v[i].len), v[i].len, v[i].flags};
    return c;
}

static void sel_copy(acl_sel *dst, const acl_sel *src) {
    *dst = *src;
    dst->bits = xmalloc(nwords() * sizeof *dst->bits);
    memcpy(dst->bits, src->bits, nwords() * sizeof *dst->bits);
    dst->fa = xmalloc((src->nfa ? src->nfa : 1) * sizeof *dst->fa);
    for (size_t i = 0; i < src->nfa; i++)
        dst->fa[i] = (acl_firstarg){src->fa[i].id, xstrdup(src->fa[i].arg)};
    dst->keys = strs_dup(src->keys, src->nkeys);
    dst->chans = strs_dup(src->chans, src->nchans);
}

static void sel_reset_keys(acl_sel *s) {
    acl_strs_free(s->keys, s->nkeys);
    s->keys = NULL;
    s->nkeys = 0;
}

static void sel_reset_chans(acl_sel *s) {
    acl_strs_free(s->chans, s->nchans);
    s->chans = NULL;
    s->nchans = 0;
}

/* Redis's ACLChangeSelectorPerm: the command's bit, and its
 * subcommands' for a container; its first-args go. */
static void change_perm(acl_sel *s, const cmd_def *d, int on) {
    bit_set(s, d->id, on);
    fa_reset_cmd(s, d->id);
    for (const cmd_def *sub = d->subcmds; sub && sub->name; sub++) bit_set(s, sub->id, on);
}

/* +@cat / -@cat over every command and subcommand of the category. */
static void change_category(acl_sel *s, int cat, int on) {
    for (size_t i = 0; i < cmd_count(); i++) {
        const cmd_def *d = cmd_at(i);
        if (d->acl & cat) change_perm(s, d, on);
        for (const cmd_def *sub = d->subcmds; sub && sub->name; sub++)
            if (sub->acl & cat) change_perm(s, sub, on);
    }
}

static void fa_add(acl_sel *s, unsigned id, const char *p, size_t len) {
    for (size_t i = 0; i < s->nfa; i++)
        if (s->fa[i].id == id && strlen(s->fa[i].arg) == len && !strncasecmp(s->fa[i].arg, p, len))
            return;
    s->fa = xrealloc(s->fa, (s->nfa + 1) * sizeof *s->fa);
    s->fa[s->nfa++] = (acl_firstarg){id, dupn(p, len)};
}

void acl_strs_add(acl_str **v, size_t *n, const char *p, size_t len, int flags) {
    for (size_t i = 0; i < *n; i++) {
        if ((*v)[i].len == len && !memcmp((*v)[i].p, p, len)) {
            (*v)[i].flags |= flags;
            return;
        }
    }
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[(*n)++] = (acl_str){dupn(p, len), len, flags};
}

static const char *const E_SYNTAX = "Syntax error";
const char *const acl_err_unknown = "Unknown command or category name in ACL";
#define E_UNKNOWN acl_err_unknown
static const char *const E_KEYS_ALL =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not "
    "have any effect. Try 'resetkeys' to start with an empty list of patterns";
static const char *const E_CHANS_ALL =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does "
    "not have any effect. Try 'resetchannels' to start with an empty list of channels";
static const char *const E_NOPASS =
    "The password you are trying to remove from the user does not exist";
static const char *const E_HASH =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal "
    "characters";
static const char *const E_CHILD = "Allowing first-arg of a subcommand is not supported";

static int is_word(const char *op, size_t len, const char *w) {
    return strlen(w) == len && !strncasecmp(op, w, len);
}

/* %R~, %W~, %RW~ (any case, each letter once; the '~' may be missing, as
 * Redis 7.0.15 takes "%RW" for the empty pattern) or ~pattern. */
static int sel_key_rule(acl_sel *s, const char *op, size_t len, const char **why) {
    if (s->flags & SEL_ALLKEYS) return *why = E_KEYS_ALL, -1;
    int flags = 0;
    size_t off = 1;
    if (op[0] == '%') {
        for (; off < len; off++) {
            char ch = (char)toupper((unsigned char)op[off]);
            if (ch == 'R' && !(flags & KEY_R)) flags |= KEY_R;
            else if (ch == 'W' && !(flags & KEY_W)) flags |= KEY_W;
            else if (op[off] == '~') {
                off++;
                break;
            } else return *why = E_SYNTAX, -1;
        }
        /* no permission letter: a pattern that allows nothing (Redis
         * 7.0.15 refuses it too; later Redis crashed on it in a selector,
         * CVE-2024-51741) */
        if (!flags) return *why = E_SYNTAX, -1;
    } else {
        flags = KEY_RW;
    }
    if (has_spaces(op + off, len - off)) return *why = E_SYNTAX, -1;
    acl_strs_add(&s->keys, &s->nkeys, op + off, len - off, flags);
    s->flags &= ~SEL_ALLKEYS;
    return 0;
}

/* +cmd, +cmd|sub, +cmd|firstarg, -cmd, -cmd|sub. */
static int sel_cmd_rule(acl_sel *s, const char *op, size_t len, const char **why) {
    const char *name = op + 1;
    size_t nlen = len - 1;
    const char *bar = NULL;
    for (size_t i = nlen; i > 0; i--)
        if (name[i - 1] == '|') { bar = name + i - 1; break; }
    if (op[0] == '-' || !bar) {
        const cmd_def *d = lookup_name(name, nlen);
        if (!d) return *why = E_UNKNOWN, -1;
        change_perm(s, d, op[0] == '+');
        return 0;
    }
    const cmd_def *d = lookup_name(name, (size_t)(bar - name));
    if (!d) return *why = E_UNKNOWN, -1;
    if (d->parent) return *why = E_CHILD, -1;
    size_t sublen = nlen - (size_t)(bar - name) - 1;
    if (sublen == 0) return *why = E_SYNTAX, -1;
    if (d->subcmds) {
        d = lookup_name(name, nlen);
        if (!d) return *why = E_UNKNOWN, -1;
        change_perm(s, d, 1);
    } else {
        fa_add(s, d->id, bar + 1, sublen);
    }
    return 0;
}

/* Redis's ACLSetSelector: the rules a selector (root or not) takes. */
static int sel_rule(acl_sel *s, const char *op, size_t len, const char **why) {
    if (is_word(op, len, "allkeys") || is_word(op, len, "~*")) {
        s->flags |= SEL_ALLKEYS;
        sel_reset_keys(s);
    } else if (is_word(op, len, "resetkeys")) {
        s->flags &= ~SEL_ALLKEYS;
        sel_reset_keys(s);
    } else if (is_word(op, len, "allchannels") || is_word(op, len, "&*")) {
        s->flags |= SEL_ALLCHANNELS;
        sel_reset_chans(s);
    } else if (is_word(op, len, "resetchannels")) {
        s->flags &= ~SEL_ALLCHANNELS;
        sel_reset_chans(s);
    } else if (is_word(op, len, "allcommands") || is_word(op, len, "+@all")) {
        memset(s->bits, 0xff, nwords() * sizeof *s->bits);
        s->flags |= SEL_ALLCOMMANDS;
        s->future = 1;
        fa_reset(s);
    } else if (is_word(op, len, "nocommands") || is_word(op, len, "-@all")) {
        memset(s->bits, 0, nwords() * sizeof *s->bits);
        s->flags &= ~SEL_ALLCOMMANDS;
        s->future = 0;
        fa_reset(s);
    } else if (op[0] == '~' || op[0] == '%') {
        return sel_key_rule(s, op, len, why);
    } else if (op[0] == '&') {
        if (s->flags & SEL_ALLCHANNELS) return *why = E_CHANS_ALL, -1;
        if (has_spaces(op + 1, len - 1)) return *why = E_SYNTAX, -1;
        acl_strs_add(&s->chans, &s->nchans, op + 1, len - 1, 0);
        s->flags &= ~SEL_ALLCHANNELS;
    } else if ((op[0] == '+' || op[0] == '-') && len == 1) {
        return *why = E_UNKNOWN, -1; /* no command is named "" */
    } else if ((op[0] == '+' || op[0] == '-') && op[1] != '@') {
        return sel_cmd_rule(s, op, len, why);
    } else if ((op[0] == '+' || op[0] == '-') && op[1] == '@') {
        int cat = category_of(op + 2, len - 2);
        if (!cat) return *why = E_UNKNOWN, -1;
        change_category(s, cat, op[0] == '+');
    } else {
        return *why = E_SYNTAX, -1;
    }
    return 0;
}

/* ---- users ---- */

acl_user *acl_user_new(const char *name, size_t len) {
    acl_user *u = xcalloc(1, sizeof *u);
    u->name = dupn(name, len);
    u->namelen = len;
    u->flags = USER_OFF;
    u->sel = xmalloc(sizeof *u->sel);
    u->nsel = 1;
    sel_init(&u->sel[0], SEL_ROOT);
    return u;
}

static void user_clear(acl_user *u) {
    for (size_t i = 0; i < u->nsel; i++) sel_free(&u->sel[i]);
    free(u->sel);
    free(u->pass);
}

void acl_user_free(acl_user *u) {
    if (!u) return;
    user_clear(u);
    free(u->name);
    free(u);
}

acl_user *acl_user_dup(const acl_user *u) {
    acl_user *c = xcalloc(1, sizeof *c);
    c->name = dupn(u->name, u->namelen);
    c->namelen = u->namelen;
    c->flags = u->flags;
    c->npass = u->npass;
    c->pass = xmalloc((u->npass ? u->npass : 1) * sizeof *c->pass);
    if (u->npass) memcpy(c->pass, u->pass, u->npass * sizeof *c->pass);
    c->nsel = u->nsel;
    c->sel = xmalloc(u->nsel * sizeof *c->sel);
    for (size_t i = 0; i < u->nsel; i++) sel_copy(&c->sel[i], &u->sel[i]);
    return c;
}

void acl_user_move(acl_user *dst, acl_user *src) {
    user_clear(dst);
    dst->flags = src->flags;
    dst->pass = src->pass;
    dst->npass = src->npass;
    dst->sel = src->sel;
    dst->nsel = src->nsel;
    free(src->name);
    free(src);
}

static void clear_selectors(acl_user *u) {
    for (size_t i = 1; i < u->nsel; i++) sel_free(&u->sel[i]);
    u->nsel = 1;
}

/* (rules...): a new selector from the words between the parentheses. */
static int add_selector(acl_user *u, const char *op, size_t len, const char **why) {
    char *inner = dupn(op + 1, len - 2);
    int argc;
    char **argv = split_args(inner, &argc);
    free(inner);
    if (!argv) return *why = E_SYNTAX, -1;
    acl_sel s;
    sel_init(&s, 0);
    int rc = 0;
    for (int i = 0; i < argc && rc == 0; i++) rc = sel_rule(&s, argv[i], strlen(argv[i]), why);
    free_args(argv, argc);
    if (rc != 0) {
        sel_free(&s);
        return -1;
    }
    u->sel = xrealloc(u->sel, (u->nsel + 1) * sizeof *u->sel);
    u->sel[u->nsel++] = s;
    return 0;
}

static void add_password(acl_user *u, const char *hash) {
    for (size_t i = 0; i < u->npass; i++)
        if (!memcmp(u->pass[i], hash, 64)) return;
    u->pass = xrealloc(u->pass, (u->npass + 1) * sizeof *u->pass);
    memcpy(u->pass[u->npass++], hash, 65);
}

static int del_password(acl_user *u, const char *hash) {
    for (size_t i = 0; i < u->npass; i++) {
        if (!memcmp(u->pass[i], hash, 64)) {
            memmove(&u->pass[i], &u->pass[i + 1], (u->npass - i - 1) * sizeof *u->pass);
            u->npass--;
            return 0;
        }
    }
    return -1;
}

static void set_flag(acl_user *u, int on, int off) {
    u->flags |= on;
    u->flags &= ~off;
}

/* Redis's ACLSetUser. */
int acl_set_rule(acl_user *u, const char *op, size_t len, const char **why) {
    char hash[65];
    if (len == 0) return 0;
    if (is_word(op, len, "on")) set_flag(u, USER_ON, USER_OFF);
    else if (is_word(op, len, "off")) set_flag(u, USER_OFF, USER_ON);
    else if (is_word(op, len, "skip-sanitize-payload")) set_flag(u, USER_SKIP_SANITIZE, USER_SANITIZE);
    else if (is_word(op, len, "sanitize-payload")) set_flag(u, USER_SANITIZE, USER_SKIP_SANITIZE);
    else if (is_word(op, len, "nopass") || is_word(op, len, "resetpass")) {
        if (is_word(op, len, "nopass")) u->flags |= USER_NOPASS;
        else u->flags &= ~USER_NOPASS;
        u->npass = 0;
    } else if (op[0] == '>' || op[0] == '#' || op[0] == '<' || op[0] == '!') {
        if (op[0] == '>' || op[0] == '<') {
            hash_password(op + 1, len - 1, hash);
        } else {
            if (!valid_hash(op + 1, len - 1)) return *why = E_HASH, -1;
            memcpy(hash, op + 1, 64);
            hash[64] = '\0';
        }
        if (op[0] == '>' || op[0] == '#') {
            add_password(u, hash);
            u->flags &= ~USER_NOPASS;
        } else if (del_password(u, hash) != 0) {
            return *why = E_NOPASS, -1;
        }
    } else if (op[0] == '(' && op[len - 1] == ')' && len >= 2) {
        return add_selector(u, op, len, why);
    } else if (is_word(op, len, "clearselectors")) {
        clear_selectors(u);
    } else if (is_word(op, len, "reset")) {
        const char *w;
        static const char *const steps[] = {"resetpass", "resetkeys", "resetchannels", "off",
                                            "sanitize-payload", "clearselectors", "-@all"};
        for (size_t i = 0; i < sizeof steps / sizeof *steps; i++) {
            int rc = acl_set_rule(u, steps[i], strlen(steps[i]), &w);
            assert(rc == 0);
            (void)rc;
        }
        if (server.cfg.compat.acl_pubsub_default) u->sel[0].flags |= SEL_ALLCHANNELS;
    } else {
        return sel_rule(&u->sel[0], op, len, why);
    }
    return 0;
}

int acl_set_rules(acl_user *u, int argc, const arg *argv, acl_rule_err *e,
                  acl_rule_err_fn *on_err, void *priv) {
    int i = 0, failed = 0, merged = 0;
    while (i < argc) {
        const arg *a = &argv[i];
        vbuf b = {0};
        if (a->len && a->p[0] == '(' && a->p[a->len - 1] != ')') {
            /* "(a" "b" "c)": one selector of the words up to the one that
             * closes it */
            int j = i + 1;
            while (j < argc && !(argv[j].len && argv[j].p[argv[j].len - 1] == ')')) j++;
            if (j == argc) {
                snprintf(e->op, sizeof e->op, "%.*s", (int)a->len, a->p);
                e->why = NULL;
                e->unmatched = 1;
                e->index = i;
                return -1;
            }
            for (int k = i; k <= j; k++) {
                if (k > i) vbuf_append(&b, " ", 1);
                vbuf_append(&b, argv[k].p, argv[k].len);
            }
            i = j + 1;
        } else {
            vbuf_append(&b, a->p, a->len);
            i++;
        }
        vbuf_append(&b, "", 1); /* rules read op[len - 1] and compare words */
        const char *why = NULL;
        int rc = acl_set_rule(u, b.data, b.len - 1, &why);
        if (rc != 0) {
            snprintf(e->op, sizeof e->op, "%.*s", (int)(b.len - 1), b.data);
            e->why = why;
            e->unmatched = 0;
            e->index = merged;
            failed = 1;
            if (on_err) on_err(priv, e);
        }
        vbuf_free(&b);
        merged++;
        if (rc != 0 && !on_err) return -1;
    }
    return failed ? -1 : 0;
}

void acl_rule_err_text(const acl_rule_err *e, char *buf, size_t len) {
    if (e->unmatched)
        snprintf(buf, len, "ERR Unmatched parenthesis in acl selector starting at '%s'.", e->op);
    else
        snprintf(buf, len, "ERR Error in ACL SETUSER modifier '%s': %s", e->op, e->why);
}

/* ---- descriptions ---- */

static void cat_str(vbuf *b, const char *s) { vbuf_append(b, s, strlen(s)); }

static char *take(vbuf *b) {
    vbuf_append(b, "", 1);
    char *s = dupn(b->data, b->len - 1);
    vbuf_free(b);
    return s;
}

static void count_category(const acl_sel *s, int cat, size_t *on, size_t *off) {
    *on = *off = 0;
    for (size_t i = 0; i < cmd_count_all(); i++) {
        const cmd_def *d = cmd_at_all(i);
        if (!(d->acl & cat)) continue;
        if (bit_get(s, d->id)) (*on)++;
        else (*off)++;
    }
}

static void emit_firstargs(vbuf *b, const acl_sel *s, const cmd_def *d) {
    for (size_t i = 0; i < s->nfa; i++) {
        if (s->fa[i].id != d->id) continue;
        vbuf_appendf(b, "+%s|%s ", d->fullname, s->fa[i].arg);
    }
}

/* One command's bit where the fake selector differs, then its
 * first-args. */
static void fix_one(vbuf *b, const acl_sel *s, acl_sel *fake, const cmd_def *d) {
    int want = bit_get(s, d->id);
    if (want != bit_get(fake, d->id)) {
        vbuf_appendf(b, "%c%s ", want ? '+' : '-', d->fullname);
        change_perm(fake, d, want);
    }
    emit_firstargs(b, s, d);
}

/* Redis 7.0's ACLDescribeSelectorCommandRules: +@all or -@all (whether
 * future commands are allowed), then, again and again, the category not
 * yet applied that would set fewest bits wrong (and most right, on a tie)
 * among those that set more right than wrong, then single commands and
 * first-args until the bits are the selector's. */
char *acl_describe_commands(const acl_sel *s) {
    vbuf b = {0};
    int additive = !s->future;
    acl_sel fake, temp;
    const char *why;
    sel_init(&fake, 0);
    sel_copy(&temp, s);
    cat_str(&b, additive ? "-@all " : "+@all ");
    sel_rule(&fake, additive ? "-@all" : "+@all", 5, &why);
    int applied[CAT_COUNT] = {0};
    for (;;) {
        int best = -1;
        size_t mindiff = SIZE_MAX, maxsame = 0;
        for (int j = 0; j < CAT_COUNT; j++) {
            size_t on, off;
            if (applied[j]) continue;
            count_category(&temp, 1 << j, &on, &off);
            size_t diff = additive ? off : on, same = additive ? on : off;
            if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
                best = j;
                mindiff = diff;
                maxsame = same;
            }
        }
        if (best < 0) break;
        applied[best] = 1;
        change_category(&fake, 1 << best, additive);
        change_category(&temp, 1 << best, !additive);
        vbuf_appendf(&b, "%s@%s ", additive ? "+" : "-", cmd_cat_names[best]);
    }
    for (size_t i = 0; i < cmd_count(); i++) {
        const cmd_def *d = cmd_at(i);
        fix_one(&b, s, &fake, d);
        for (const cmd_def *sub = d->subcmds; sub && sub->name; sub++) fix_one(&b, s, &fake, sub);
    }
    assert(!memcmp(fake.bits, s->bits, nwords() * sizeof *s->bits)); /* the rules say it all */
    sel_free(&fake);
    sel_free(&temp);
    if (b.len) b.len--; /* the last space */
    return take(&b);
}

static void keys_into(vbuf *b, const acl_sel *s, const char *sep) {
    if (s->flags & SEL_ALLKEYS) {
        vbuf_appendf(b, "~*%s", sep);
        return;
    }
    for (size_t i = 0; i < s->nkeys; i++) {
        const char *pre = s->keys[i].flags == KEY_RW ? "~" : s->keys[i].flags == KEY_R ? "%R~" : "%W~";
        vbuf_appendf(b, "%s%.*s%s", pre, (int)s->keys[i].len, s->keys[i].p,
                     i + 1 < s->nkeys || sep[0] ? sep : "");
    }
}

static void chans_into(vbuf *b, const acl_sel *s, const char *sep) {
    if (s->flags & SEL_ALLCHANNELS) {
        vbuf_appendf(b, "&*%s", sep);
        return;
    }
    for (size_t i = 0; i < s->nchans; i++)
        vbuf_appendf(b, "&%.*s%s", (int)s->chans[i].len, s->chans[i].p,
                     i + 1 < s->nchans || sep[0] ? sep : "");
}

/* GETUSER's keys and channels: the patterns separated by spaces. */
static char *joined(const acl_sel *s, void (*fn)(vbuf *, const acl_sel *, const char *)) {
    vbuf b = {0};
    fn(&b, s, " ");
    if (b.len) b.len--;
    return take(&b);
}

char *acl_describe_keys(const acl_sel *s) { return joined(s, keys_into); }
char *acl_describe_channels(const acl_sel *s) { return joined(s, chans_into); }

static void describe_sel(vbuf *b, const acl_sel *s) {
    keys_into(b, s, " ");
    if (!(s->flags & SEL_ALLCHANNELS)) cat_str(b, "resetchannels ");
    chans_into(b, s, " ");
    char *cmds = acl_describe_commands(s);
    cat_str(b, cmds);
    free(cmds);
}

char *acl_describe_user(const acl_user *u) {
    static const struct { int flag; const char *name; } names[] = {
        {USER_ON, "on"}, {USER_OFF, "off"}, {USER_NOPASS, "nopass"},
        {USER_SKIP_SANITIZE, "skip-sanitize-payload"}, {USER_SANITIZE, "sanitize-payload"}};
    vbuf b = {0};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (u->flags & names[i].flag) vbuf_appendf(&b, "%s ", names[i].name);
    for (size_t i = 0; i < u->npass; i++) vbuf_appendf(&b, "#%s ", u->pass[i]);
    describe_sel(&b, &u->sel[0]);
    for (size_t i = 1; i < u->nsel; i++) {
        cat_str(&b, " (");
        describe_sel(&b, &u->sel[i]);
        cat_str(&b, ")");
    }
    return take(&b);
}

/* ---- the check ---- */

static int key_allowed(const acl_sel *s, const arg *key, int ksflags) {
    if (s->flags & SEL_ALLKEYS) return 1;
    int want = 0;
    if (ksflags & KS_ACCESS) want |= KEY_R;
    if (ksflags & (KS_INSERT | KS_DELETE | KS_UPDATE)) want |= KEY_W;
    for (size_t i = 0; i < s->nkeys; i++) {
        if ((s->keys[i].flags & want) != want) continue;
        if (glob_match(s->keys[i].p, s->keys[i].len, key->p, key->len, 0)) return 1;
    }
    return 0;
}

/* A channel against the patterns; a PSUBSCRIBE pattern must be one of
 * them literally. */
int acl_chan_allowed(const acl_str *v, size_t n, const char *p, size_t len, int literal) {
    for (size_t i = 0; i < n; i++) {
        if (literal ? (v[i].len == len && !memcmp(v[i].p, p, len))
                    : glob_match(v[i].p, v[i].len, p, len, 0))
            return 1;
    }
    return 0;
}

/* The channels of d's argv: first and last index, whether patterns. */
static int channels_of(const cmd_def *d, int argc, int *first, int *last, int *pattern) {
    *pattern = 0;
    if (d->proc == cmd_publish || d->proc == cmd_spublish) {
        *first = *last = 1;
    } else if (d->proc == cmd_subscribe || d->proc == cmd_ssubscribe ||
               d->proc == cmd_psubscribe) {
        *first = 1;
        *last = argc - 1;
        *pattern = d->proc == cmd_psubscribe;
    } else {
        return 0;
    }
    return 1;
}

static int firstarg_allowed(const acl_sel *s, const cmd_def *d, int argc, const arg *argv) {
    if (argc < 2) return 0;
    for (size_t i = 0; i < s->nfa; i++)
        if (s->fa[i].id == d->id && strlen(s->fa[i].arg) == argv[1].len &&
            !strncasecmp(s->fa[i].arg, argv[1].p, argv[1].len))
            return 1;
    return 0;
}

static int sel_check(const acl_sel *s, const cmd_def *d, int argc, const arg *argv, int *pos) {
    *pos = 0;
    if (!(s->flags & SEL_ALLCOMMANDS) && !(d->flags & CMD_NOAUTH) && !bit_get(s, d->id) &&
        !firstarg_allowed(s, d, argc, argv))
        return ACL_DENIED_CMD;
    if (!(s->flags & SEL_ALLKEYS) && cmd_has_keys(d)) {
        cmd_keyrefs k = {0};
        cmd_get_keys(d, argc, argv, &k);
        for (size_t j = 0; j < k.n; j++) {
            if (!key_allowed(s, &argv[k.v[j].pos], k.v[j].flags)) {
                *pos = k.v[j].pos;
                cmd_keys_free(&k);
                return ACL_DENIED_KEY;
            }
        }
        cmd_keys_free(&k);
    }
    int first, last, pattern;
    if (!(s->flags & SEL_ALLCHANNELS) && channels_of(d, argc, &first, &last, &pattern)) {
        for (int j = first; j <= last && j < argc; j++) {
            if (!acl_chan_allowed(s->chans, s->nchans, argv[j].p, argv[j].len, pattern)) {
                *pos = j;
                return ACL_DENIED_CHANNEL;
            }
        }
    }
    return ACL_OK;
}

int acl_check(const acl_user *u, const cmd_def *d, int argc, const arg *argv, int *errpos) {
    *errpos = 0;
    if (!u) return ACL_OK;
    int worst = ACL_DENIED_CMD, worst_pos = 0;
    for (size_t i = 0; i < u->nsel; i++) {
        int pos;
        int r = sel_check(&u->sel[i], d, argc, argv, &pos);
        if (r == ACL_OK) return ACL_OK;
        if (r > worst || (r == worst && pos > worst_pos)) {
            worst = r;
            worst_pos = pos;
        }
    }
    *errpos = worst_pos;
    return worst;
}


int acl_password_ok(const acl_user *u, const arg *pass) {
    if (u->flags & USER_NOPASS) return 1;
    char hash[65];
    hash_password(pass->p, pass->len, hash);
    int ok = 0;
    for (size_t i = 0; i < u->npass; i++) ok |= same_hash(hash, u->pass[i]);
    return ok;
}
