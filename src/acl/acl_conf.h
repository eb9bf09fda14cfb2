/* acl_conf: the one ACL call the config parser makes (conf.c), apart from
 * acl.h so that conf.c sees nothing of the server's types. */
#ifndef VERSO_ACL_CONF_H
#define VERSO_ACL_CONF_H

#include <stddef.h>

/* A `user name rule...` line of the config file (argv[0] the name; lens
 * each word's length, NULL: strlen's, so that ">a\x00b" keeps its NUL):
 * kept for acl_load_startup (acl_file.c); 0, or -1 with Redis's error (a
 * user declared twice). */
int acl_conf_user_line(int argc, char **argv, const size_t *lens, char *err, size_t errlen);

/* CONFIG REWRITE: one `user name rules` line per user (ACL LIST's), each
 * to be written (force), through fn; none when an aclfile holds the users
 * (the file's old user lines are then dropped), as Redis 7.0. */
void acl_conf_rewrite(void (*fn)(void *priv, const char *name, const char *line, int force),
                      void *priv);

#endif
