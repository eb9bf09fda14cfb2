/* acl_int: the structures the acl/ files share (not for other modules:
 * they see acl.h). Main thread only. */
#ifndef VERSO_ACL_INT_H
#define VERSO_ACL_INT_H

#include <stdint.h>

#include "acl.h"
#include "cmd.h"

enum { USER_ON = 1 << 0, USER_OFF = 1 << 1, USER_NOPASS = 1 << 2,
       USER_SKIP_SANITIZE = 1 << 3, USER_SANITIZE = 1 << 4 };
enum { SEL_ROOT = 1 << 0, SEL_ALLKEYS = 1 << 1, SEL_ALLCHANNELS = 1 << 2,
       SEL_ALLCOMMANDS = 1 << 3 };
enum { KEY_R = 1, KEY_W = 2, KEY_RW = 3 };

typedef struct acl_str { char *p; size_t len; int flags; } acl_str; /* flags: KEY_* */
typedef struct acl_firstarg { unsigned id; char *arg; } acl_firstarg;

typedef struct acl_sel {
    int flags;                 /* SEL_* */
    int future;                /* +@all: commands not in the table too */
    uint64_t *bits;            /* one bit per cmd_def id (cmd_at_all) */
    acl_firstarg *fa;          /* +cmd|arg of commands whose bit is off */
    size_t nfa;
    acl_str *keys;             /* key patterns, flags KEY_* */
    size_t nkeys;
    acl_str *chans;            /* channel patterns */
    size_t nchans;
} acl_sel;

struct acl_user {
    char *name;
    size_t namelen;
    int flags;                 /* USER_* */
    char (*pass)[65];          /* hex SHA-256 of each password */
    size_t npass;
    acl_sel *sel;              /* sel[0]: the root selector */
    size_t nsel;
};

/* acl_rules.c */
acl_user *acl_user_new(const char *name, size_t len);
void acl_user_free(acl_user *u);
/* A deep copy; acl_user_move puts src's permissions into dst (keeping
 * dst's address, which clients hold) and frees src. */
acl_user *acl_user_dup(const acl_user *u);
void acl_user_move(acl_user *dst, acl_user *src);
/* One rule (ACL SETUSER's word). 0, or -1 with *why Redis's reason. */
int acl_set_rule(acl_user *u, const char *op, size_t len, const char **why);
/* Why a list of rules was refused: the rule (after merging a selector's
 * words) and Redis's reason, or the word that opens a selector never
 * closed (unmatched set). */
typedef struct acl_rule_err {
    char op[512];
    const char *why;
    int unmatched;
    int index;      /* the rule's index among the merged rules; for an
                       unmatched parenthesis, the opening word's among the
                       words given */
} acl_rule_err;
/* Rules in words (ACL SETUSER's args, a config or aclfile line's): the
 * selector words "(a" "b)" merged first, then applied in order. 0, or -1
 * with e filled (the rules before the one refused stay applied: callers
 * work on a copy). With on_err, each refused rule is passed to it and the
 * next ones are still applied (the aclfile reports them all). */
typedef void acl_rule_err_fn(void *priv, const acl_rule_err *e);
int acl_set_rules(acl_user *u, int argc, const arg *argv, acl_rule_err *e,
                  acl_rule_err_fn *on_err, void *priv);
/* The reason for an unknown command or category (the aclfile names the
 * rule then). */
extern const char *const acl_err_unknown;
/* ACL SETUSER's text for e ("ERR ..."). */
void acl_rule_err_text(const acl_rule_err *e, char *buf, size_t len);
/* "on #... ~* &* +@all (...)": ACL LIST's description, on the heap. */
char *acl_describe_user(const acl_user *u);
/* A selector's parts as GETUSER shows them, on the heap. */
char *acl_describe_commands(const acl_sel *s);
char *acl_describe_keys(const acl_sel *s);
char *acl_describe_channels(const acl_sel *s);
/* Whether name may be a user name (no spaces or NUL). */
int acl_valid_name(const char *p, size_t len);
/* Whether pass is one of u's passwords (any is, for nopass). */
int acl_password_ok(const acl_user *u, const arg *pass);
/* Channel patterns: whether one allows the channel (literal: the very
 * pattern, for a PSUBSCRIBE pattern); adding one (flags or'ed into an equal
 * one); freeing them. */
int acl_chan_allowed(const acl_str *v, size_t n, const char *p, size_t len, int literal);
void acl_strs_add(acl_str **v, size_t *n, const char *p, size_t len, int flags);
void acl_strs_free(acl_str *v, size_t n);
/* The users, by name (acl.c). */
size_t acl_nusers(void);
acl_user *acl_user_at(size_t i);
/* Adds u (a name not taken). */
void acl_add_user(acl_user *u);
/* Removes u from the users, disconnects its clients and frees it. */
void acl_delete_user(acl_user *u);
/* Replaces every user with the set given (the default user keeps its
 * address and takes the new default's permissions); the clients of the
 * users replaced are disconnected. */
void acl_replace_users(acl_user **users, size_t n);
/* ACL SETUSER's new permissions nu against u's: the subscribers of u whose
 * channels or patterns nu no longer allows are closed, as Redis 7.0's
 * ACLKillPubsubClientsIfNeeded. */
void acl_kill_pubsub_changed(const acl_user *nu, const acl_user *u);

/* acl_file.c: the aclfile (server.cfg.compat.aclfile, not empty). load:
 * every user of the file replaces the users (none changes on an error);
 * save: ACL LIST's lines, written to a temporary file renamed over it.
 * 0, or -1 with err (Redis's text, without "ERR "). */
int acl_file_load(char *err, size_t errlen);
int acl_file_save(char *err, size_t errlen);

#endif
