/* rdb_fmt: the byte-level constants of the RDB format, shared by the writer
 * (rdb_write.c), the reader (rdb_read.c) and the tests that craft files by
 * hand. Values are those of Redis's rdb.h; see doc/snapshot-format.md. */
#ifndef VERSO_RDB_FMT_H
#define VERSO_RDB_FMT_H

#define RDB_MAGIC "REDIS"
#define RDB_VERSION_WRITTEN 10   /* what Redis 7.0 writes */
#define RDB_VERSION_MIN 1
#define RDB_VERSION_MAX 10
#define RDB_VERSION_CKSUM 5      /* versions below this have no checksum */

/* Value types (the byte before a key): strings here, the collections' in
 * rdb_coll.h. */
#define RDB_TYPE_STRING 0

/* Opcodes: bytes in the type position that are not value types. */
#define RDB_OP_FUNCTION2 0xF5
#define RDB_OP_FUNCTION_PRE_GA 0xF6
#define RDB_OP_MODULE_AUX 0xF7
#define RDB_OP_IDLE 0xF8
#define RDB_OP_FREQ 0xF9
#define RDB_OP_AUX 0xFA
#define RDB_OP_RESIZEDB 0xFB
#define RDB_OP_EXPIRETIME_MS 0xFC
#define RDB_OP_EXPIRETIME 0xFD
#define RDB_OP_SELECTDB 0xFE
#define RDB_OP_EOF 0xFF

/* Length prefix: the top two bits of the first byte. */
#define RDB_LEN_6BIT 0
#define RDB_LEN_14BIT 1
#define RDB_LEN_32BIT 0x80       /* whole first byte; 4 bytes big endian follow */
#define RDB_LEN_64BIT 0x81       /* whole first byte; 8 bytes big endian follow */
#define RDB_LEN_ENCVAL 3         /* low 6 bits name a special string encoding */

/* Special string encodings (after RDB_LEN_ENCVAL). */
#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

/* The LZ4 frame magic number, as it appears in the file (little endian). */
#define RDB_LZ4_MAGIC 0x184D2204u

#endif
