/* hooks: the registry of subsystems and the core's calls into them (see
 * hooks.h). Main thread only. */
#include "hooks.h"

#include <assert.h>
#include <stdlib.h>

#include "util.h"

static const hooks **reg; /* registered subsystems, in order */
static size_t nreg;

void hooks_register(const hooks *h) {
    assert(h && h->name);
    reg = xrealloc(reg, sizeof *reg * (nreg + 1));
    reg[nreg++] = h;
}

/* Runs the named hook of every subsystem that has one. */
#define EACH(hook, ...)                                      \
    for (size_t i_ = 0; i_ < nreg; i_++)                     \
        if (reg[i_]->hook) reg[i_]->hook(__VA_ARGS__)

void hooks_cron(void) { EACH(cron); }
void hooks_before_sleep(void) { EACH(before_sleep); }
void hooks_after_command(client *c, const cmd_def *d) { EACH(after_command, c, d); }
void hooks_client_closed(client *c) { EACH(client_closed, c); }
void hooks_input_applied(client *c, const char *p, size_t n) { EACH(input_applied, c, p, n); }
void hooks_before_flush(void) { EACH(before_flush); }
void hooks_after_flush(int all) { EACH(after_flush, all); }
void hooks_dataset_replaced(void) { EACH(dataset_replaced); }
void hooks_role_changed(void) { EACH(role_changed); }
void hooks_info(const char *section, vbuf *b) { EACH(info, section, b); }
void hooks_shutdown(void) { EACH(shutdown); }

int hooks_before_command(client *c, const cmd_def *d) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->before_command && reg[i]->before_command(c, d)) return 1;
    return 0;
}

int hooks_reply_held(const client *c) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->reply_held && reg[i]->reply_held(c)) return 1;
    return 0;
}

const char *hooks_gates_error(const client *c, const cmd_def *d, int writes) {
    for (size_t i = 0; writes && i < nreg; i++) {
        const char *why = reg[i]->write_gate ? reg[i]->write_gate() : NULL;
        if (why) return why;
    }
    for (size_t i = 0; i < nreg; i++) {
        const char *why = reg[i]->client_gate ? reg[i]->client_gate(c, d) : NULL;
        if (why) return why;
    }
    return NULL;
}

const char *hooks_script_call_error(const client *caller, const cmd_def *d, int argc,
                                    const arg *argv) {
    for (size_t i = 0; i < nreg; i++) {
        const char *why =
            reg[i]->script_call_gate ? reg[i]->script_call_gate(caller, d, argc, argv) : NULL;
        if (why) return why;
    }
    return NULL;
}

int hooks_keep_retired_table(vt *t) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->keep_retired_table && reg[i]->keep_retired_table(t)) return 1;
    return 0;
}

void hooks_retire_table(vt *t) {
    if (!hooks_keep_retired_table(t)) vt_free(t);
}

size_t hooks_not_counted_memory(void) {
    size_t n = 0;
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->not_counted_memory) n += reg[i]->not_counted_memory();
    return n;
}

size_t hooks_buffer_memory(int kind) {
    size_t n = 0;
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->buffer_memory) n += reg[i]->buffer_memory(kind);
    return n;
}

int hooks_config_changed(const conf *old, const conf *now, const char *name, char *err,
                         size_t errlen) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->config_changed && reg[i]->config_changed(old, now, name, err, errlen) != 0)
            return -1;
    return 0;
}

int hooks_debug_reload(int flags, char *err, size_t errlen) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->debug_reload) return reg[i]->debug_reload(flags, err, errlen);
    return 1;
}

int hooks_debug_loadaof(char *err, size_t errlen) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->debug_loadaof) return reg[i]->debug_loadaof(err, errlen);
    return 1;
}

int hooks_debug_change_repl_id(void) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->debug_change_repl_id) {
            reg[i]->debug_change_repl_id();
            return 0;
        }
    return 1;
}

int hooks_shutdown_wait(int start) {
    int wait = 0;
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->shutdown_wait && reg[i]->shutdown_wait(start)) wait = 1;
    return wait;
}

int hooks_prepare_shutdown(int nosave, int save, char *err, size_t errlen) {
    for (size_t i = 0; i < nreg; i++)
        if (reg[i]->prepare_shutdown && reg[i]->prepare_shutdown(nosave, save, err, errlen) != 0)
            return -1;
    return 0;
}
