/* oom_score: /proc/self/oom_score_adj as oom-score-adj and
 * oom-score-adj-values say (see oom_score.h). Main thread only. */
#include "oom_score.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"
#include "log.h"

#define OOM_PATH "/proc/self/oom_score_adj"

/* conf's oom-score-adj values (conf_oom_score_adj_enum) */
enum { OOM_NO = 0, OOM_RELATIVE = 1, OOM_ABSOLUTE = 2 };
/* the places of oom-score-adj-values */
enum { OOM_MASTER = 0, OOM_REPLICA = 1, OOM_BGCHILD = 2, OOM_CLASSES = 3 };

/* Whether verso has taken the score over, and the one it found then, to
 * write back when oom-score-adj goes back to no. */
static int adjusted;
static int base;

static int read_score(int *v) {
    char buf[32];
    int fd = open(OOM_PATH, O_RDONLY);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    int saved = errno;
    if (fd >= 0) close(fd);
    if (n < 0) {
        log_warning("Unable to read oom_score_adj: %s", strerror(saved));
        return -1;
    }
    buf[n] = '\0';
    *v = atoi(buf);
    return 0;
}

static int write_score(int v) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%d\n", v);
    int fd = open(OOM_PATH, O_WRONLY);
    ssize_t n = fd < 0 ? -1 : write(fd, buf, (size_t)len);
    int saved = errno;
    if (fd >= 0) close(fd);
    if (n < 0) {
        log_warning("Unable to write oom_score_adj: %s", strerror(saved));
        return -1;
    }
    return 0;
}

/* The value of oom-score-adj-values for class (conf keeps them "a b c",
 * each checked to be in -2000..2000). */
static int class_value(const conf *c, int class) {
    int v[OOM_CLASSES] = {0, 200, 800};
    if (sscanf(c->compat.oom_score_adj_values, "%d %d %d", &v[0], &v[1], &v[2]) != OOM_CLASSES)
        log_warning("oom-score-adj-values '%s' unreadable: the defaults apply",
                    c->compat.oom_score_adj_values);
    return v[class];
}

/* Redis's setOOMScoreAdj(-1): the score of the current role. */
static int apply(const conf *c) {
    int v;
    if (c->compat.oom_score_adj != OOM_NO) {
        if (!adjusted) { /* the score the process has before verso changes it */
            if (read_score(&base) != 0) return -1;
            adjusted = 1;
        }
        v = class_value(c, server.upstream ? OOM_REPLICA : OOM_MASTER);
        if (c->compat.oom_score_adj == OOM_RELATIVE) v += base;
        if (v > 1000) v = 1000;
        if (v < -1000) v = -1000;
    } else if (adjusted) {
        adjusted = 0;
        v = base;
    } else {
        return 0;
    }
    return write_score(v);
}

int oom_score_apply(char *err, size_t errlen) {
    if (apply(&server.cfg) == 0) return 0;
    snprintf(err, errlen, "Failed to set current oom_score_adj. Check server logs.");
    return -1;
}

/* As Redis's setter: values that do not grow from master to replica to
 * child are kept, but an unprivileged process cannot lower its score. */
static void check_order(const conf *c) {
    int m = class_value(c, OOM_MASTER), r = class_value(c, OOM_REPLICA);
    if (r < m || class_value(c, OOM_BGCHILD) < r)
        log_warning("The oom-score-adj-values configuration may not work for "
                    "non-privileged processes! Please consult the documentation.");
}

static int config_hook(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen) {
    int values = !strcmp(name, "oom-score-adj-values");
    if (!values && strcmp(name, "oom-score-adj") != 0) return 0;
    if (values) check_order(now);
    if (apply(now) == 0) return 0;
    log_warning("Failed applying new configuration. Possibly related to new %s setting. "
                "Restoring previous settings.", name);
    (void)apply(old); /* as Redis's rollback: the old values applied again */
    snprintf(err, errlen, "Failed to set current oom_score_adj. Check server logs.");
    return -1;
}

static void role_hook(void) {
    char err[128];
    (void)oom_score_apply(err, sizeof err); /* logged; the role changes anyway */
}

static const hooks oom_hooks = {
    .name = "oom score",
    .config_changed = config_hook,
    .role_changed = role_hook,
};

void oom_score_init(void) {
    check_order(&server.cfg);
    hooks_register(&oom_hooks);
}
