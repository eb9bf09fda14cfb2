/* conf_compat: the enums, checks and value parsers of the Redis 7.0
 * parameters that verso accepts without acting on them (their rows are in
 * conf_compat_params.h, their values in conf_compat.h). Each check refuses
 * exactly what redis-server 7.0.15 refuses, with its error text, so that a
 * tool or config file sees the same answers from both. Main thread only. */
#include "conf_int.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const conf_enum conf_syslog_facility_enum[] = {
    {"user", 8},    {"local0", 128}, {"local1", 136}, {"local2", 144}, {"local3", 152},
    {"local4", 160}, {"local5", 168}, {"local6", 176}, {"local7", 184}, {NULL, 0}};
/* yes and relative are one value: CONFIG GET shows "yes" for both */
const conf_enum conf_oom_score_adj_enum[] = {
    {"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}, {NULL, 0}};
const conf_enum conf_acl_pubsub_enum[] = {
    {"allchannels", 1}, {"resetchannels", 0}, {NULL, 0}};
const conf_enum conf_sanitize_enum[] = {{"no", 0}, {"yes", 1}, {"clients", 2}, {NULL, 0}};
const conf_enum conf_propagation_error_enum[] = {
    {"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}, {NULL, 0}};
const conf_enum conf_endpoint_type_enum[] = {
    {"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}, {NULL, 0}};
const conf_enum conf_tls_auth_enum[] = {{"no", 0}, {"yes", 1}, {"optional", 2}, {NULL, 0}};
const conf_enum conf_shutdown_enum[] = {
    {"default", 0}, {"save", SHUTDOWN_FLAG_SAVE}, {"nosave", SHUTDOWN_FLAG_NOSAVE},
    {"now", SHUTDOWN_FLAG_NOW}, {"force", SHUTDOWN_FLAG_FORCE}, {NULL, 0}};

const char *conf_check_daemonize(long long *v)
{
    return *v ? "verso runs in the foreground" : NULL;
}

/* Redis refuses it when built without its own jemalloc (Debian's build);
 * verso has no defragmenter at all. */
const char *conf_check_activedefrag(long long *v)
{
    return *v ? "Active defragmentation cannot be enabled: it requires a Redis server "
                "compiled with a modified Jemalloc like the one shipped by default with "
                "the Redis source distribution"
              : NULL;
}

const char *conf_check_shutdown_flags(long long *v)
{
    if ((*v & SHUTDOWN_FLAG_SAVE) && (*v & SHUTDOWN_FLAG_NOSAVE))
        return "shutdown options SAVE and NOSAVE can't be used simultaneously";
    return NULL;
}

static char *refuse(char *err, size_t errlen, const char *reason)
{
    snprintf(err, errlen, "%s", reason);
    return NULL;
}

/* cluster-announce-hostname: "" or letters, digits, '-' and '.', shorter
 * than 256 characters. */
char *conf_norm_hostname(int argc, char **argv, char *err, size_t errlen)
{
    (void)argc;
    const char *v = argv[0];
    if (strlen(v) >= 256) return refuse(err, errlen, "Hostnames must be less than 256 characters");
    for (const char *p = v; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
            return refuse(err, errlen,
                          "Hostnames may only contain alphanumeric characters, hyphens or dots");
    return xstrdup(v);
}

/* The length a proc-title-template variable expands to is only asked
 * whether it is zero: Redis expands the template with an empty title and
 * refuses an empty result. verso has no unix socket and no cluster mode,
 * so those two expand to nothing, as {title} does. -1: unknown variable. */
static int proc_title_var_nonempty(const char *name, size_t len)
{
    static const char *const empty[] = {"title", "server-mode", "unixsocket"};
    static const char *const full[] = {"listen-addr", "port", "tls-port", "config-file"};
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++)
        if (strlen(empty[i]) == len && !memcmp(empty[i], name, len)) return 0;
    for (size_t i = 0; i < sizeof full / sizeof *full; i++)
        if (strlen(full[i]) == len && !memcmp(full[i], name, len)) return 1;
    return -1;
}

/* proc-title-template as Redis's sdstemplate: "{{" is a literal '{',
 * "{name}" a known variable; anything else, or an empty expansion, is
 * refused. */
char *conf_norm_proc_title(int argc, char **argv, char *err, size_t errlen)
{
    (void)argc;
    const char *p = argv[0];
    int nonempty = 0;
    while (*p) {
        const char *sv = strchr(p, '{');
        if (!sv) {
            nonempty = 1; /* literal text to the end */
            break;
        }
        if (sv > p) nonempty = 1;
        sv++;
        if (!*sv) goto bad; /* a '{' at the end */
        if (*sv == '{') {
            nonempty = 1;
            p = sv + 1;
            continue;
        }
        const char *ev = strchr(sv, '}');
        int r = ev ? proc_title_var_nonempty(sv, (size_t)(ev - sv)) : -1;
        if (r < 0) goto bad;
        nonempty |= r;
        p = ev + 1;
    }
    if (nonempty) return xstrdup(argv[0]);
bad:
    return refuse(err, errlen, "template format is invalid or contains unknown variables");
}

/* oom-score-adj-values: three integers in -2000..2000, kept as "a b c". */
char *conf_norm_oom_values(int argc, char **argv, char *err, size_t errlen)
{
    if (argc != 3) return refuse(err, errlen, "wrong number of arguments");
    long long v[3];
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        v[i] = strtoll(argv[i], &end, 10);
        if (*end != '\0' || errno || v[i] < -2000 || v[i] > 2000)
            return refuse(err, errlen, "Invalid oom-score-adj-values, elements must be "
                                       "between -2000 and 2000.");
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%lld %lld %lld", v[0], v[1], v[2]);
    return xstrdup(buf);
}
