/* dump_payload: DUMP payload framing (see dump_payload.h). */
#include "dump_payload.h"

#include <stdint.h>

#include "cmd.h"
#include "crc64.h"
#include "rdb.h"
#include "rdb_fmt.h"

static void put_le(unsigned char *p, uint64_t v, int n) {
    for (int i = 0; i < n; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void dump_payload_finish(sink *out) {
    unsigned char foot[DUMP_FOOTER];
    put_le(foot, RDB_VERSION_WRITTEN, 2);
    sink_write(out, foot, 2);
    size_t len;
    const unsigned char *p = sink_mem_data(out, &len);
    put_le(foot + 2, crc64(0, p, len), 8);
    sink_write(out, foot + 2, 8);
}

void dump_payload_reply(client *c, sink *out) {
    dump_payload_finish(out);
    size_t len;
    const unsigned char *p = sink_mem_data(out, &len);
    reply_bulk(c, (const char *)p, len);
    sink_free(out);
}

sink *dump_payload_of(obj *val, char *err, size_t errlen) {
    rdb_set_writer_opts(server.cfg.list_max_listpack_size, server.cfg.rdb_key_save_delay);
    sink *out = sink_mem_open("DUMP payload");
    if (rdb_write_value(out, val, server.cfg.rdbcompression ? RDB_COMPRESS_LZF : 0, err,
                        errlen) != 0) {
        sink_free(out);
        return NULL;
    }
    dump_payload_finish(out);
    return out;
}

int dump_payload_ok(const unsigned char *p, size_t len) {
    if (len < DUMP_FOOTER) return 0;
    const unsigned char *foot = p + len - DUMP_FOOTER;
    unsigned ver = (unsigned)foot[0] | (unsigned)foot[1] << 8;
    if (ver > RDB_VERSION_MAX) return 0;
    uint64_t want = 0;
    for (int i = 0; i < 8; i++) want |= (uint64_t)foot[2 + i] << (8 * i);
    return crc64(0, p, len - 8) == want;
}
