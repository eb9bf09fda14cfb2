/* acl_conf: the one ACL call the config parser makes (conf.c), apart from
 * acl.h so that conf.c sees nothing of the server's types. */
#ifndef VERSO_ACL_CONF_H
#define VERSO_ACL_CONF_H

#include <stddef.h>

/* A `user name rule...` line of the config file (argv[0] the name): kept
 * for acl_load_startup (acl_file.c); 0, or -1 with Redis's error (a user
 * declared twice). */
int acl_conf_user_line(int argc, char **argv, char *err, size_t errlen);

#endif
