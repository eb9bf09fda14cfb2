/* fuzz_rdb: the RDB snapshot loader (snapshot/rdb_read.c) on arbitrary files.
 *
 * Input: byte 0 is the mode, the rest the file. Mode bit 0: the harness
 * wraps the bytes in an LZ4 frame first (LZ4F_compressFrame, with content
 * checksum, as verso writes it), so mutations of a plain RDB also reach
 * the parser through the LZ4 reader; without it the bytes are the file as
 * they are (plain RDBs and LZ4 frames from the seed corpus). Mode bit 1:
 * the keys go into the in-process databases through restore's callbacks
 * (restore_file, the startup path), which are emptied afterwards; else a
 * callback that checks each key and drops it. The loader reads a path, so
 * each input is written to the scratch directory (one small file). Checked: 0 or -1, and -1 always with a message
 * naming the file and an offset. */
#include <assert.h>
#include <lz4frame.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rdb.h"
#include "restore.h"
#include "db.h"
#include "server.h"
#include "fuzz_common.h"

#define NOW_MS 1700000000000LL

static int on_key(void *priv, int db, obj *key, obj *val, int64_t expire, char *err,
                  size_t errlen) {
    (void)priv;
    (void)err;
    (void)errlen;
    assert(db >= 0);
    assert(expire == -1 || expire >= NOW_MS);
    obj_decref(key);
    obj_decref(val);
    return 0;
}

static void check_err(int rc, const char *err) {
    assert(rc == 0 || rc == -1);
    if (rc == -1) assert(strstr(err, "in.rdb") && strstr(err, "offset "));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    fz_init_server();
    int mode = data[0];
    data++;
    size--;
    void *frame = NULL;
    if (mode & 1) {
        LZ4F_preferences_t prefs;
        memset(&prefs, 0, sizeof prefs);
        prefs.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
        size_t cap = LZ4F_compressFrameBound(size, &prefs);
        frame = malloc(cap);
        size_t n = LZ4F_compressFrame(frame, cap, data, size, &prefs);
        assert(!LZ4F_isError(n));
        fz_write("in.rdb", frame, n);
    } else {
        fz_write("in.rdb", data, size);
    }
    char err[RDB_ERRLEN] = "";
    rdb_load_stats st;
    memset(&st, 0, sizeof st);
    if (mode & 2) {
        int rc = restore_file(fz_path("in.rdb"), &st, err, sizeof err);
        check_err(rc, err);
        for (int i = 0; i < server.cfg.databases; i++)
            if (db_size(db_get(i)) > 0) db_flush(db_get(i));
    } else {
        rdb_load_cb cb = {.key = on_key};
        int rc = rdb_load_file(fz_path("in.rdb"), NOW_MS, &cb, NULL, &st, err, sizeof err);
        check_err(rc, err);
        if (rc == 0 && (mode & 1)) assert(st.compressed);
    }
    free(frame);
    return 0;
}
