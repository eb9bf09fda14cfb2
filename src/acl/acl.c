/* acl: the users (by name, the default one among them), the clients
 * they hold (disconnected when their user goes), authentication, the
 * refusals the dispatcher, EXEC and redis.call answer and log, and the
 * start-up (the default user, requirepass). The rules themselves are in
 * acl_rules.c. Main thread only. */
#include "acl_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "net.h"
#include "pubsub.h"
#include "util.h"

static acl_user **users; /* by name */
static size_t nusers;
static acl_user *default_user;

/* ---- the users' table ---- */

static int name_cmp(const char *a, size_t alen, const char *b, size_t blen) {
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : (alen < blen ? -1 : alen > blen);
}

acl_user *acl_find(const char *name, size_t len) {
    for (size_t i = 0; i < nusers; i++)
        if (!name_cmp(users[i]->name, users[i]->namelen, name, len)) return users[i];
    return NULL;
}

size_t acl_nusers(void) { return nusers; }
acl_user *acl_user_at(size_t i) { return i < nusers ? users[i] : NULL; }
acl_user *acl_default_user(void) { return default_user; }
const char *acl_user_name(const acl_user *u) { return u ? u->name : "(superuser)"; }

void acl_add_user(acl_user *u) {
    assert(!acl_find(u->name, u->namelen));
    size_t at = 0;
    while (at < nusers && name_cmp(users[at]->name, users[at]->namelen, u->name, u->namelen) < 0)
        at++;
    users = xrealloc(users, (nusers + 1) * sizeof *users);
    memmove(&users[at + 1], &users[at], (nusers - at) * sizeof *users);
    users[at] = u;
    nusers++;
}

/* The clients authenticated as u go back to the default user,
 * unauthenticated, and are closed (the one running a command after its
 * reply), as Redis's ACLFreeUserAndKillClients. */
static void kill_clients_of(const acl_user *u) {
    for (client *c = server.clients; c; c = c->next) {
        if (c->user != u) continue;
        c->user = default_user;
        c->flags &= ~CLIENT_AUTHED;
        if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else net_close_asap(c);
    }
}

void acl_delete_user(acl_user *u) {
    assert(u != default_user);
    for (size_t i = 0; i < nusers; i++) {
        if (users[i] != u) continue;
        memmove(&users[i], &users[i + 1], (nusers - i - 1) * sizeof *users);
        nusers--;
        break;
    }
    kill_clients_of(u);
    acl_user_free(u);
}

void acl_replace_users(acl_user **set, size_t n) {
    acl_user **old = users;
    size_t nold = nusers;
    users = NULL;
    nusers = 0;
    acl_user *new_default = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(set[i]->name, "default")) new_default = set[i];
        else acl_add_user(set[i]);
    }
    if (!new_default) {
        new_default = acl_user_new("default", 7);
        const char *why;
        static const char *const rules[] = {"+@all", "~*", "&*", "on", "nopass"};
        for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
            acl_set_rule(new_default, rules[i], strlen(rules[i]), &why);
    }
    acl_user_move(default_user, new_default);
    acl_add_user(default_user);
    for (size_t i = 0; i < nold; i++) {
        if (old[i] == default_user) continue;
        kill_clients_of(old[i]);
        acl_user_free(old[i]);
    }
    free(old);
}

void acl_denied_text(int verdict, const cmd_def *d, char *buf, size_t len) {
    if (verdict == ACL_DENIED_CMD)
        snprintf(buf, len, "NOPERM this user has no permissions to run the '%s' command",
                 d->fullname);
    else if (verdict == ACL_DENIED_KEY)
        snprintf(buf, len, "NOPERM this user has no permissions to access one of the keys used "
                           "as arguments");
    else
        snprintf(buf, len, "NOPERM this user has no permissions to access one of the channels "
                           "used as arguments");
}

void acl_log_denied(client *c, int verdict, int ctx, const cmd_def *d, const arg *argv, int pos) {
    const acl_user *u = c->user;
    if (verdict == ACL_DENIED_CMD)
        acl_log_add(c, verdict, ctx, d->fullname, strlen(d->fullname), u->name, u->namelen);
    else
        acl_log_add(c, verdict, ctx, argv[pos].p, argv[pos].len, u->name, u->namelen);
}

int acl_check_client(client *c, const cmd_def *d, int ctx) {
    int pos;
    int r = acl_check(c->user, d, c->argc, c->argv, &pos);
    if (r == ACL_OK) return 1;
    acl_log_denied(c, r, ctx, d, c->argv, pos);
    char buf[256];
    acl_denied_text(r, d, buf, sizeof buf);
    reply_error(c, buf);
    return 0;
}

/* ---- authentication ---- */

int acl_auth_required(const client *c) {
    if (!c->user || (c->flags & CLIENT_AUTHED)) return 0;
    const acl_user *d = default_user;
    return !(d->flags & USER_NOPASS) || (d->flags & USER_OFF);
}

void acl_client_default(client *c) {
    c->user = default_user;
    c->flags &= ~CLIENT_AUTHED;
    if (!acl_auth_required(c)) c->flags |= CLIENT_AUTHED;
}

int acl_default_nopass(void) { return !default_user || (default_user->flags & USER_NOPASS); }

static int credentials_ok(const acl_user *u, const arg *pass) {
    return u && !(u->flags & USER_OFF) && acl_password_ok(u, pass);
}

int acl_authenticate(client *c, const arg *user, const arg *pass) {
    acl_user *u = user ? acl_find(user->p, user->len) : default_user;
    if (credentials_ok(u, pass)) {
        c->user = u;
        c->flags |= CLIENT_AUTHED;
        return 1;
    }
    const char *name = user ? user->p : "default";
    size_t nlen = user ? user->len : 7;
    acl_log_add(c, ACL_DENIED_AUTH, (c->flags & CLIENT_MULTI) ? ACL_CTX_MULTI : ACL_CTX_TOPLEVEL,
                c->argv[0].p, c->argv[0].len, name, nlen);
    return 0;
}

/* ---- pub/sub clients that lose their channels ---- */

typedef struct sub_check {
    const acl_str *chans;
    size_t n;
    int kill;
} sub_check;

static void check_sub(void *priv, int pattern, const char *p, size_t len) {
    sub_check *k = priv;
    if (!k->kill && !acl_chan_allowed(k->chans, k->n, p, len, pattern)) k->kill = 1;
}

void acl_kill_pubsub_changed(const acl_user *nu, const acl_user *u) {
    for (size_t i = 0; i < nu->nsel; i++)
        if (nu->sel[i].flags & SEL_ALLCHANNELS) return;
    acl_str *up = NULL;
    size_t nup = 0;
    for (size_t i = 0; i < nu->nsel; i++)
        for (size_t j = 0; j < nu->sel[i].nchans; j++)
            acl_strs_add(&up, &nup, nu->sel[i].chans[j].p, nu->sel[i].chans[j].len, 0);
    int superset = 1;
    for (size_t i = 0; i < u->nsel && superset; i++) {
        if (u->sel[i].flags & SEL_ALLCHANNELS) superset = 0;
        for (size_t j = 0; j < u->sel[i].nchans && superset; j++)
            superset = acl_chan_allowed(up, nup, u->sel[i].chans[j].p, u->sel[i].chans[j].len, 1);
    }
    for (client *c = server.clients; c && !superset; c = c->next) {
        if (c->user != u || !(c->flags & CLIENT_PUBSUB) || (c->flags & (CLIENT_MASTER | CLIENT_REPLICA)))
            continue;
        sub_check k = {up, nup, 0};
        pubsub_each_name(c, check_sub, &k);
        if (!k.kill) continue;
        if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        else net_close_asap(c);
    }
    acl_strs_free(up, nup);
}

/* ---- start-up and requirepass ---- */

/* requirepass sets the default user's password, as Redis's
 * ACLUpdateDefaultUserPassword: resetpass, then >pass or nopass. */
static void apply_requirepass(void) {
    const char *why;
    const char *pw = server.cfg.requirepass;
    size_t n = server.cfg.requirepass_len; /* any bytes, NUL ones too */
    acl_set_rule(default_user, "resetpass", 9, &why);
    if (n) {
        char *op = xmalloc(n + 2);
        op[0] = '>';
        memcpy(op + 1, pw, n + 1);
        acl_set_rule(default_user, op, n + 1, &why);
        free(op);
    } else {
        acl_set_rule(default_user, "nopass", 6, &why);
    }
}

static int on_config(const conf *old, const conf *now, const char *name, char *err, size_t errlen) {
    (void)old, (void)now, (void)err, (void)errlen;
    if (!strcmp(name, "requirepass")) apply_requirepass();
    return 0;
}

static const hooks acl_hooks = {.name = "acl", .config_changed = on_config};

void acl_init(void) {
    if (default_user) return;
    default_user = acl_user_new("default", 7);
    static const char *const rules[] = {"+@all", "~*", "&*", "on", "nopass"};
    const char *why;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        int rc = acl_set_rule(default_user, rules[i], strlen(rules[i]), &why);
        assert(rc == 0);
        (void)rc;
    }
    acl_add_user(default_user);
    apply_requirepass();
    hooks_register(&acl_hooks);
}
