/* fuzz_aof_load: the multi-part AOF loader (aof/aof_load.c) replaying
 * arbitrary files into the in-process keyspace.
 *
 * Input: byte 0 is the mode, the rest holds the files, separated by the
 * line "=====FILE=====\n" (in the dictionary): the base when mode bit 1 is
 * set (named .rdb with bit 2, else .aof, where the loader still sniffs the
 * RDB/LZ4 magic; commands may follow a plain RDB, as in Redis 6's single
 * file), then 1 to 3 INCR files (bits 3-4). Bit 0: truncated_ok
 * (aof-load-truncated). Bit 5: commands go through the real dispatcher
 * (cmd_dispatch on a fake client, as aof.c's startup replay, with commands
 * that sleep, save or reconfigure refused, as unknown commands are); else
 * a callback that checks each command's arguments and counts them. The
 * databases are emptied after each input. Checked: 0 or -1, an error names
 * a file and an offset, a truncation happens only with truncated_ok, and
 * the command count matches the callback's. */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "aof_load.h"
#include "restore.h"
#include "cmd.h"
#include "db.h"
#include "util.h"
#include "fuzz_common.h"

#define NOW_MS 1700000000000LL
#define SEP "=====FILE=====\n"

typedef struct exec_ctx {
    client fake;
    int real;
    uint64_t count;
} exec_ctx;

static int refused(const arg *a) {
    static const char *const names[] = {"debug", "shutdown", "save", "bgsave", "bgrewriteaof",
                                        "config", "client"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (arg_is(a, names[i])) return 1;
    return 0;
}

static int exec_command(void *priv, int argc, const arg *argv, char *err, size_t errlen) {
    exec_ctx *x = priv;
    assert(argc >= 1);
    for (int i = 0; i < argc; i++) assert(argv[i].p != NULL || argv[i].len == 0);
    x->count++;
    if (!x->real) {
        /* touch every byte: ASan checks the arguments lie in live memory */
        unsigned sum = 0;
        for (int i = 0; i < argc; i++)
            for (size_t j = 0; j < argv[i].len; j++) sum += (unsigned char)argv[i].p[j];
        (void)sum;
        return 0;
    }
    if (refused(&argv[0])) {
        snprintf(err, errlen, "command refused while fuzzing");
        return -1;
    }
    client *c = &x->fake;
    if (argc > c->argv_cap) {
        c->argv_cap = argc;
        c->argv = xrealloc(c->argv, sizeof(arg) * (size_t)argc);
    }
    memcpy(c->argv, argv, sizeof(arg) * (size_t)argc);
    c->argc = argc;
    c->reply.len = 0;
    cmd_dispatch(c);
    if (c->reply.len > 0 && c->reply.data[0] == '-') {
        snprintf(err, errlen, "command failed");
        return -1;
    }
    return 0;
}

/* The next file's bytes from *p (up to the separator or the end). */
static size_t next_part(const uint8_t **p, const uint8_t *end, const uint8_t **start) {
    *start = *p;
    const uint8_t *s = memmem(*p, (size_t)(end - *p), SEP, sizeof SEP - 1);
    size_t n = (size_t)((s ? s : end) - *p);
    *p = s ? s + sizeof SEP - 1 : end;
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    fz_init_server();
    static int dir_made;
    if (!dir_made) {
        mkdir(fz_path("aofdir"), 0700);
        dir_made = 1;
    }
    int mode = data[0];
    const uint8_t *p = data + 1, *end = data + size;
    aof_manifest m;
    aofm_init(&m);
    aof_file incrs[3];
    m.incrs = incrs;
    m.nincr = 1 + (mode >> 3 & 3) % 3;
    char names[4][32];
    for (int i = -1; i < m.nincr; i++) {
        char *name = names[i + 1];
        if (i < 0 && !(mode & 2)) continue;
        if (i < 0)
            snprintf(name, 32, "appendonly.aof.1.base.%s", (mode & 4) ? "rdb" : "aof");
        else
            snprintf(name, 32, "appendonly.aof.%d.incr.aof", i + 1);
        const uint8_t *start;
        size_t n = next_part(&p, end, &start);
        char rel[64];
        snprintf(rel, sizeof rel, "aofdir/%s", name);
        fz_write(rel, start, n);
        if (i < 0)
            m.base = (aof_file){name, 1, 'b'};
        else
            incrs[i] = (aof_file){name, i + 1, 'i'};
    }
    exec_ctx x;
    memset(&x, 0, sizeof x);
    x.fake.flags = CLIENT_AUTHED;
    x.fake.id = UINT64_MAX;
    x.real = (mode & 32) != 0;
    aof_load_stats st;
    char err[1024] = "";
    server_loading_start();
    int rc = aof_load_files(fz_path("aofdir"), &m, mode & 1, NOW_MS, restore_callbacks(), NULL,
                            exec_command, &x, &st, err, sizeof err);
    server_loading_end();
    assert(rc == 0 || rc == -1);
    if (rc == -1) assert(strstr(err, "appendonly.aof.") && strstr(err, "offset "));
    if (st.truncated_bytes) assert(mode & 1);
    if (rc == 0) assert(st.commands == x.count);
    vbuf_free(&x.fake.reply);
    free(x.fake.argv);
    for (int i = 0; i < server.cfg.databases; i++)
        if (db_size(db_get(i)) > 0) db_flush(db_get(i));
    return 0;
}
