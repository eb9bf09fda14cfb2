/* conf_int: the shape of one row of the parameter table, shared by conf.c
 * (the table, its lookup, parsing and formatting) and conf_compat.c (the
 * enums and checks of the parameters kept for Redis compatibility, whose
 * rows conf_compat_params.h adds to the same table). Not for other files:
 * they read values in struct conf (conf.h). */
#ifndef VERSO_CONF_INT_H
#define VERSO_CONF_INT_H

#include "conf.h"

#include <stddef.h>

enum { P_BOOL, P_INT, P_MEM, P_STR, P_ENUM, P_SPECIAL };

#define PF_IMMUTABLE 1 /* CONFIG SET refuses it */
#define PF_PROTECTED 2 /* CONFIG SET refuses it, as Redis's protected configs */
#define PF_MULTI 4     /* takes any number of arguments */
#define PF_FILENAME 8  /* a bare file name, not a path */
#define PF_DIRNAME 16  /* a bare directory name, not a path */
#define PF_NOEFFECT 32 /* accepted for Redis compatibility, no effect in
                          verso: logged once when set */
#define PF_OCTAL 64    /* P_INT written and read in octal (unixsocketperm) */
#define PF_PERCENT 128 /* P_MEM that also takes "N%", kept as -N */
#define PF_FLAGS 256   /* P_ENUM with PF_MULTI: the values are bits, OR'ed;
                          0 reads as the first name */
#define PF_BYTES 512   /* P_STR of any bytes, NUL included (Redis's SDS
                          configs): its length at lenoff */
#define PF_HIDDEN 1024 /* left out of CONFIG GET with a pattern (an exact
                          name still answers), as Redis's HIDDEN_CONFIG:
                          its testing knobs */

typedef struct conf_enum { const char *name; int val; } conf_enum;

typedef struct conf_param conf_param;
struct conf_param {
    const char *name;
    int type, flags;
    size_t off, size;    /* the field in struct conf; size 0: none, the
                            parameter is accepted for Redis tools and always
                            reads as sdef */
    size_t lenoff;       /* PF_BYTES: the size_t field of its length */
    long long min, max;  /* P_INT, P_MEM bounds */
    long long def;       /* default of P_BOOL, P_INT, P_MEM, P_ENUM */
    const char *sdef;    /* default of P_STR and P_SPECIAL (as set args) */
    const conf_enum *enums;
    /* optional, after parsing a number/bool/enum: may adjust *v, or
     * refuse it with a reason */
    const char *(*check)(long long *v);
    /* optional, P_STR: checks the arguments (one unless PF_MULTI) and
     * returns the value to store (heap), or NULL with a reason in err */
    char *(*norm)(int argc, char **argv, char *err, size_t errlen);
    /* P_SPECIAL */
    int (*set)(conf *c, int argc, char **argv, int loading, char *err, size_t errlen);
    char *(*get)(const conf *c);
};

#define FIELD(f) .off = offsetof(conf, f), .size = sizeof(((conf *)0)->f)
#define BYTES_FIELD(f) FIELD(f), .lenoff = offsetof(conf, f##_len)

/* conf_compat.c: enums and checks of the compatibility parameters */
extern const conf_enum conf_syslog_facility_enum[], conf_oom_score_adj_enum[],
    conf_acl_pubsub_enum[], conf_sanitize_enum[], conf_propagation_error_enum[],
    conf_endpoint_type_enum[], conf_tls_auth_enum[], conf_shutdown_enum[];
const char *conf_check_daemonize(long long *v);
const char *conf_check_activedefrag(long long *v);
const char *conf_check_shutdown_flags(long long *v);
char *conf_norm_hostname(int argc, char **argv, char *err, size_t errlen);
char *conf_norm_proc_title(int argc, char **argv, char *err, size_t errlen);
char *conf_norm_oom_values(int argc, char **argv, char *err, size_t errlen);

#endif
