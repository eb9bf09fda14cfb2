/* acl: Redis 7.0's access control lists: users (on/off, passwords as
 * SHA-256 hex, nopass), their root selector and extra selectors (command
 * bits per cmd_def id, first-args, key patterns with %R/%W, channel
 * patterns), the rules that change them (ACL SETUSER's words, `user`
 * config lines, the aclfile), the check a command passes before it runs,
 * and the ACL LOG.
 *
 * A client's user is c->user: the default user for a new connection, the
 * one AUTH/HELLO authenticated, or NULL for the server's own clients (the
 * master link, the AOF loader, scripts' fake client outside a script),
 * which run with every permission as in Redis. Main thread only. */
#ifndef VERSO_ACL_H
#define VERSO_ACL_H

#include <stddef.h>

#include "server.h"

typedef struct acl_user acl_user;

/* The verdicts of a check, Redis's ACL_DENIED_* (their order picks which
 * refusal a user with several selectors is told about). */
enum { ACL_OK = 0, ACL_DENIED_CMD, ACL_DENIED_KEY, ACL_DENIED_AUTH, ACL_DENIED_CHANNEL };
/* Where a refusal happened (ACL LOG's context). */
enum { ACL_CTX_TOPLEVEL, ACL_CTX_MULTI, ACL_CTX_LUA };

/* ---- acl.c: users, rules, checks ---- */
/* Registers the ACL command rows (before cmd_init). */
void acl_register_commands(void);
/* After cmd_init: the default user (nopass, every permission; requirepass
 * sets its password) and the "acl" hooks (requirepass, acl-pubsub-default
 * changes). */
void acl_init(void);
acl_user *acl_default_user(void);
acl_user *acl_find(const char *name, size_t len);
/* u's name; "(superuser)" for NULL (CLIENT LIST's user= of the master
 * link, as Redis). */
const char *acl_user_name(const acl_user *u);
/* Whether c must still authenticate before running commands (Redis's
 * authRequired: the default user has a password or is off, and c has not
 * authenticated). */
int acl_auth_required(const client *c);
/* c as a new connection is (and RESET makes it): the default user,
 * authenticated when that user needs no password. */
void acl_client_default(client *c);
/* Whether the default user takes any password (protected-mode). */
int acl_default_nopass(void);
/* AUTH / HELLO AUTH: 1 and c authenticated as that user, or 0 (logged
 * in ACL LOG, reason auth). user NULL: the default user. */
int acl_authenticate(client *c, const arg *user, const arg *pass);
/* Whether u may run d with argv: ACL_OK or a refusal, *errpos the
 * argv index of the key or channel refused (0 for a command). */
int acl_check(const acl_user *u, const cmd_def *d, int argc, const arg *argv, int *errpos);
/* The dispatcher's and EXEC's check of c running its argv as d: 1, or 0
 * after logging it (context ctx) and replying the NOPERM error. */
int acl_check_client(client *c, const cmd_def *d, int ctx);
/* The NOPERM text for a refusal (without the "-"), into buf. */
void acl_denied_text(int verdict, const cmd_def *d, char *buf, size_t len);

/* The ACL LOG entry of a refusal of c->user (verdict from acl_check): the
 * command's name, or the key or channel argv[pos] refused. */
void acl_log_denied(client *c, int verdict, int ctx, const cmd_def *d, const arg *argv, int pos);

/* ---- acl_log.c ---- */
/* Adds (or merges into a recent equal entry) a refusal of c: reason is a
 * verdict, object the command, key, channel or (auth) the user name. */
void acl_log_add(client *c, int reason, int ctx, const char *object, size_t objlen,
                 const char *username, size_t ulen);
void acl_log_reply(client *c, long long count);
void acl_log_reset(void);

/* ---- acl_file.c ---- */
/* At startup, after acl_init: the config file's user lines or the aclfile
 * (not both). 0, or -1 with the reason logged. */
int acl_load_startup(void);

#endif
