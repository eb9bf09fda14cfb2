/* cmd_bitops: bitmaps on strings (SETBIT GETBIT BITCOUNT BITPOS BITOP
 * BITFIELD BITFIELD_RO) and LCS, as Redis 7.0. Scaffolding: the bitmaps
 * helper fills this in. */
#include "cmd.h"

void cmd_setbit(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_getbit(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bitcount(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bitpos(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bitop(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bitfield(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_bitfield_ro(client *c) { reply_error(c, "ERR not implemented yet"); }
void cmd_lcs(client *c) { reply_error(c, "ERR not implemented yet"); }

/* BITFIELD's key: RW unless every operation is a GET (Redis's
 * bitfieldGetKeys). */
int bitfield_getkeys(const cmd_def *d, int argc, const arg *argv, cmd_keyrefs *out) {
    (void)d;
    if (argc < 2) return 0;
    int flags = KS_RO | KS_ACCESS;
    for (int i = 2; i < argc; i++)
        if (arg_is(&argv[i], "set") || arg_is(&argv[i], "incrby"))
            flags = KS_RW | KS_ACCESS | KS_UPDATE;
    cmd_keys_add(out, 1, flags);
    return 1;
}
