/* fuzz_manifest: the multi-part AOF manifest parser (aof/manifest.c).
 *
 * The input is the manifest file. Checked on success: at most one base,
 * no file name with '/' or '\\', INCR seqs strictly increasing, and a
 * round trip (unless nothing but comments was read): aofm_save then aofm_load gives back the same manifest (names,
 * seqs, types, order; a name too long once quoted is refused as the
 * 1024-byte line limit says), and aofm_copy is equal too. On failure: err names the
 * manifest file. */
#include <assert.h>
#include <stdint.h>
#include <string.h>

#include "manifest.h"
#include "fuzz_common.h"

static void same_file(const aof_file *a, const aof_file *b) {
    assert((a->name == NULL) == (b->name == NULL));
    if (a->name) assert(!strcmp(a->name, b->name));
    assert(a->seq == b->seq);
    assert(a->type == b->type);
}

static void same(const aof_manifest *a, const aof_manifest *b) {
    same_file(&a->base, &b->base);
    assert(a->nincr == b->nincr);
    for (int i = 0; i < a->nincr; i++) same_file(&a->incrs[i], &b->incrs[i]);
    assert(a->nhistory == b->nhistory);
    for (int i = 0; i < a->nhistory; i++) same_file(&a->history[i], &b->history[i]);
}

/* An upper bound of the longest name once quoted (4 bytes per byte). */
static size_t longest_quoted(const aof_manifest *m) {
    size_t most = m->base.name ? strlen(m->base.name) : 0;
    for (int i = 0; i < m->nincr; i++)
        if (strlen(m->incrs[i].name) > most) most = strlen(m->incrs[i].name);
    for (int i = 0; i < m->nhistory; i++)
        if (strlen(m->history[i].name) > most) most = strlen(m->history[i].name);
    return most * 4;
}

static void check_name(const aof_file *f) {
    assert(f->name);
    assert(!strchr(f->name, '/') && !strchr(f->name, '\\'));
    assert(f->seq != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_quiet_log();
    fz_write("in.aof.manifest", data, size);
    aof_manifest m;
    char err[512] = "";
    int rc = aofm_load(fz_dir(), "in.aof", &m, err, sizeof err);
    assert(rc == 0 || rc == -1);
    if (rc == -1) {
        assert(!strncmp(err, "in.aof.manifest: ", 17));
        return 0;
    }
    if (m.base.name) {
        check_name(&m.base);
        assert(m.base.type == 'b');
    }
    for (int i = 0; i < m.nincr; i++) {
        check_name(&m.incrs[i]);
        assert(m.incrs[i].type == 'i');
        if (i > 0) assert(m.incrs[i].seq > m.incrs[i - 1].seq);
    }
    for (int i = 0; i < m.nhistory; i++) {
        check_name(&m.history[i]);
        assert(m.history[i].type == 'h');
    }
    if (!m.base.name && m.nincr == 0 && m.nhistory == 0) {
        aofm_free(&m); /* only comments: saved, it would read as empty */
        return 0;
    }
    aof_manifest copy;
    aofm_copy(&copy, &m);
    same(&m, &copy);
    aofm_free(&copy);
    rc = aofm_save(fz_dir(), "out.aof", &m, err, sizeof err);
    assert(rc == 0);
    aof_manifest back;
    rc = aofm_load(fz_dir(), "out.aof", &back, err, sizeof err);
    if (rc == -1 && strstr(err, "too long line")) {
        /* a name whose quoted form (\xNN per odd byte) passes the 1024-byte
         * line limit reads back as Redis reads it: refused */
        assert(longest_quoted(&m) > 1024 - 40);
        aofm_free(&m);
        return 0;
    }
    assert(rc == 0);
    same(&m, &back);
    aofm_free(&back);
    aofm_free(&m);
    return 0;
}
