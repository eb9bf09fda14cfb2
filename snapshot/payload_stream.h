/* payload_stream: a value's DUMP payload sent to a socket as it is made,
 * never held whole in memory (MIGRATE of a big value: migrate_io.c).
 *
 * A RESTORE's payload is a bulk string: its length goes before its first
 * byte, and its footer (the RDB version, then the CRC64 of all before it,
 * dump_payload.h) after its last. So the value is serialized twice, each
 * time through a pipe that a helper thread drains in 64 KB reads:
 * pstream_measure only counts and checksums the bytes, pstream_send also
 * writes them to the socket (each write bounded by a timeout) and checks
 * that they are the bytes measured. Memory: a pipe and one read buffer,
 * whatever the value's size; cost: the value's serialization twice.
 *
 * Threads: any thread may call (the MIGRATE worker does); each call starts
 * one helper thread and joins it before returning. The value is only read
 * (the caller holds a reference: obj.h, immutable while shared). */
#ifndef VERSO_PAYLOAD_STREAM_H
#define VERSO_PAYLOAD_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "obj.h"

/* What pstream_measure found: the serialized bytes' length and CRC64, the
 * footer that ends the payload, and the whole payload's length. */
typedef struct pstream_info {
    uint64_t body_len, body_crc;
    unsigned char footer[10];     /* DUMP_FOOTER bytes */
    uint64_t payload_len;         /* body_len + footer */
} pstream_info;

/* Measures val's payload (rdb_write_value with `compress`). 0, or -1 with
 * err (no thread or pipe could be had: the caller then builds the payload
 * in memory instead). */
int pstream_measure(const obj *val, int compress, pstream_info *info, char *err, size_t errlen);

/* Writes val's serialized bytes (not the footer) to fd, every 64 KB
 * within timeout_ms. 0 when every byte went and they are the bytes
 * `info` measured; -1 with err otherwise, *timed_out set when a write
 * timed out (a mismatch, as when the list-max-listpack-size the writer
 * reads changed in between, is an error too: the bulk string sent is then
 * wrong, the connection must be closed). */
int pstream_send(const obj *val, int compress, const pstream_info *info, int fd,
                 long timeout_ms, int *timed_out, char *err, size_t errlen);

#endif
