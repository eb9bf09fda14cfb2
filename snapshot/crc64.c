/* crc64: CRC-64/Jones as Redis (see crc64.h).
 *
 * With ISA-L (HAVE_ISAL, Debian libisal-dev): its crc64_jones_refl, which
 * folds with carry-less multiplies (PCLMULQDQ, VPCLMULQDQ where the CPU has
 * them; chosen at run time): 46 GB/s here, against 2 GB/s for the tables
 * below, so the CRC of a 320 MB snapshot costs ~7 ms of CPU instead of
 * ~150 ms. ISA-L's CRCs invert the value on entry and exit; Redis's has no
 * inversion, hence the ~ on both sides.
 *
 * Without it: slicing-by-16. tab[0] is the classic byte-at-a-time table of
 * the reflected polynomial; tab[k][b] is the CRC of byte b followed by k
 * zero bytes, so sixteen table lookups xor-ed together advance the CRC by
 * sixteen input bytes at once. Measured here: 1.4 GB/s slicing-by-8,
 * 2.2 GB/s slicing-by-16 (32 KB of tables, built once). */
#include "crc64.h"

#ifdef HAVE_ISAL

#include <isa-l/crc64.h>

uint64_t crc64(uint64_t crc, const void *data, size_t n) {
    return ~crc64_jones_refl(~crc, data, n);
}

#else

#include <pthread.h>
#include <string.h>

/* 0xad93d23594c935a9 with its bits reversed (the reflected form). */
#define CRC64_POLY_REFLECTED 0x95ac9329ac4bc9b5ULL

static uint64_t tab[16][256];
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void crc64_init_tables(void) {
    for (int b = 0; b < 256; b++) {
        uint64_t c = (uint64_t)b;
        for (int i = 0; i < 8; i++)
            c = (c & 1) ? (c >> 1) ^ CRC64_POLY_REFLECTED : c >> 1;
        tab[0][b] = c;
    }
    for (int b = 0; b < 256; b++)
        for (int k = 1; k < 16; k++)
            tab[k][b] = tab[0][tab[k - 1][b] & 0xff] ^ (tab[k - 1][b] >> 8);
}

/* Loads 8 bytes as a little-endian integer, whatever the host byte order. */
static inline uint64_t load_le64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

uint64_t crc64(uint64_t crc, const void *data, size_t n) {
    const unsigned char *p = data;
    pthread_once(&tab_once, crc64_init_tables);

    while (n >= 16) {
        uint64_t a = crc ^ load_le64(p), b = load_le64(p + 8);
        crc = tab[15][a & 0xff] ^ tab[14][(a >> 8) & 0xff] ^
              tab[13][(a >> 16) & 0xff] ^ tab[12][(a >> 24) & 0xff] ^
              tab[11][(a >> 32) & 0xff] ^ tab[10][(a >> 40) & 0xff] ^
              tab[9][(a >> 48) & 0xff] ^ tab[8][a >> 56] ^
              tab[7][b & 0xff] ^ tab[6][(b >> 8) & 0xff] ^
              tab[5][(b >> 16) & 0xff] ^ tab[4][(b >> 24) & 0xff] ^
              tab[3][(b >> 32) & 0xff] ^ tab[2][(b >> 40) & 0xff] ^
              tab[1][(b >> 48) & 0xff] ^ tab[0][b >> 56];
        p += 16;
        n -= 16;
    }
    while (n--) crc = tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#endif
