/* crc64: the CRC-64 that Redis puts at the end of every RDB file.
 *
 * CRC-64/Jones as Redis computes it: reflected input and output, polynomial
 * 0xad93d23594c935a9, initial value 0, no final xor. Check value:
 * crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca.
 *
 * ISA-L's carry-less-multiply CRC when built with it (HAVE_ISAL): ~46 GB/s
 * here; else table-driven, sixteen bytes per step ("slicing-by-16"):
 * ~2.2 GB/s, so a 320 MB snapshot costs ~0.15 s of CPU, with tables built
 * once, on first use (pthread_once), and only read afterwards. Either way
 * any thread may call. */
#ifndef VERSO_CRC64_H
#define VERSO_CRC64_H

#include <stddef.h>
#include <stdint.h>

/* Continues the checksum `crc` over n bytes at p (start with crc = 0). */
uint64_t crc64(uint64_t crc, const void *p, size_t n);

#endif
