/* test_stream_diff: the random stream command generator
 * (test_stream_diff_gen.c) and the driver that runs each command on the
 * server under test and on redis-server and compares the replies
 * (test_stream_diff.c) share this. */
#ifndef TEST_STREAM_DIFF_H
#define TEST_STREAM_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* What in a reply depends on wall time and is normalised before the
 * comparison (see test_stream_diff.c). */
enum {
    SN_NONE,        /* compared byte for byte */
    SN_PENDING_EXT, /* XPENDING extended: each entry's idle */
    SN_CONSUMERS,   /* XINFO CONSUMERS: each consumer's idle */
    SN_FULL,        /* XINFO STREAM FULL: delivery and seen times */
};

enum { SD_MAXARGS = 64 };

typedef struct sdcmd {
    int argc;
    char *argv[SD_MAXARGS]; /* malloc'd */
    size_t len[SD_MAXARGS];
    int norm;       /* SN_* */
    int auto_id;    /* XADD with `*` as its ID: argv[auto_id] */
} sdcmd;

/* Restarts the generator for a seed (its ID memory too). */
void sd_seed(uint64_t seed);
uint64_t sd_rand(void);
/* The next command into c (sd_free releases its arguments). MULTI blocks
 * come as several commands in a row. */
void sd_gen(sdcmd *c);
/* XADD key <a new explicit ID> <fields>: the segments' opening fill. */
void sd_gen_fill(sdcmd *c, const char *key);
/* The command of a line of space-separated words. */
void sd_gen_line(sdcmd *c, const char *line);
void sd_free(sdcmd *c);
/* Replaces argument i (a copy of s). */
void sd_set_arg(sdcmd *c, int i, const char *s);
/* An ID the reference server returned for key (XADD's reply): later
 * commands pick IDs from what exists. */
void sd_note_id(const char *key, const char *id);
/* A fresh explicit ID above every one issued so far ("ms-seq"). */
void sd_next_id(char *buf, size_t n);

#endif
