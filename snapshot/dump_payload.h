/* dump_payload: the framing of DUMP and FUNCTION DUMP payloads, as Redis's
 * createDumpPayload / verifyDumpPayload: the serialized bytes, then the RDB
 * version as 2 bytes little endian, then the CRC64 (Jones, crc64.h) of
 * everything before it as 8 bytes little endian. Main thread only. */
#ifndef VERSO_DUMP_PAYLOAD_H
#define VERSO_DUMP_PAYLOAD_H

#include <stddef.h>

#include "server.h"
#include "rdb_io.h"

#define DUMP_FOOTER 10 /* 2 bytes of version, 8 of CRC64 */

/* Appends the footer to the memory sink out (the serialized bytes), replies
 * the whole payload to c as a bulk string and frees out. */
void dump_payload_reply(client *c, sink *out);
/* Appends the footer to the memory sink out (the serialized bytes). */
void dump_payload_finish(sink *out);
/* The DUMP payload of val (a memory sink: sink_mem_data; the caller frees
 * it), or NULL with err. */
sink *dump_payload_of(obj *val, char *err, size_t errlen);
/* 1 when p[0..len) ends with a footer of an RDB version verso reads and
 * the right CRC64; the serialized bytes are the first len - DUMP_FOOTER. */
int dump_payload_ok(const unsigned char *p, size_t len);
/* The rows of DUMP and RESTORE (dump_cmd.c) and of FUNCTION's DUMP and
 * RESTORE (function_cmd.c), registered by snap_register_commands. */
void dump_register_commands(void);
void function_dump_register_commands(void);
/* MIGRATE's row and its cached connections' hooks (migrate.c). */
void migrate_register_commands(void);

#endif
