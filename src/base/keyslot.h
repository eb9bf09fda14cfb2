/* keyslot: the Redis Cluster hash slot of a key (CRC16/XMODEM of the key
 * or of its {hash tag}, modulo 16384). Pure: any thread may call it. */
#ifndef VERSO_KEYSLOT_H
#define VERSO_KEYSLOT_H

#include <stddef.h>
#include <stdint.h>

#define KEYSLOT_COUNT 16384

/* CRC16/XMODEM of len bytes at buf ("123456789" gives 0x31c3). */
uint16_t crc16_xmodem(const char *buf, size_t len);
/* The slot of a key: 0 .. KEYSLOT_COUNT - 1. */
uint16_t key_hash_slot(const char *key, size_t len);

#endif
