/* apprun: one part of an application's test program against a server (see
 * apprun.h). */
#include "apprun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void app_run_part(const srv *s, const char *interp, const char *script, const char *tag,
                  const char *part, int timeout_ms) {
    char path[4096], port[16], ok[128], *out = NULL;
    snprintf(path, sizeof path, "%s/%s", VERSO_TOP_SRCDIR, script);
    snprintf(port, sizeof port, "%d", s->port);
    snprintf(ok, sizeof ok, "%s: ok %s\n", tag, part);
    /* The program scales its own waits alike. */
    char scale[16];
    snprintf(scale, sizeof scale, "%d", h_time_scale());
    ck_assert_int_eq(setenv("VERSO_TIME_SCALE", scale, 1), 0);
    const char *argv[] = {interp, path, port, part, NULL};
    int st = h_run(NULL, &out, h_scaled_ms(timeout_ms), argv);
    ck_assert_msg(out != NULL, "%s %s: no output collected", script, part);
    /* Check's messages are short (check_pack refuses one of 4 KiB): the
     * end of the output, where the failed check or the traceback is. */
    size_t len = strlen(out), keep = 3000;
    const char *tail = len > keep ? out + len - keep : out;
    ck_assert_msg(st == 0 && strstr(out, ok), "%s %s (status %s0x%x):\n%s%s", script, part,
                  st == -1 ? "timed out, " : "", (unsigned)st, len > keep ? "[...]" : "", tail);
    free(out);
    redisContext *c = srv_connect(s);
    expect_status(c, "PONG", "PING");
    redisFree(c);
}

void app_require(const char *path, const char *installer) {
    char full[4096];
    snprintf(full, sizeof full, "%s/%s", VERSO_TOP_SRCDIR, path);
    ck_assert_msg(access(full, F_OK) == 0, "%s is missing: %s installs it", full, installer);
}
