/* fullsync_priv: what the primary's files (primary.c, fullsync.c,
 * backlog.c) ask of each other beyond repl_int.h's contract. Main thread
 * only. */
#ifndef VERSO_FULLSYNC_PRIV_H
#define VERSO_FULLSYNC_PRIV_H

#include "repl_int.h"

/* 1 when t's payload is (or was) EOF-marked (diskless), 0 for $<len>
 * through a temp file; 0 for NULL. */
int fullsync_target_eof(const fs_target *t);
/* 1 while a thread sends t's $<len> payload (INFO's state=send_bulk). */
int fullsync_target_sending(const fs_target *t);

/* primary.c: registers the propagation consumer while the backlog exists,
 * removes it with the backlog (backlog.c calls it). */
void primary_consumer_sync(void);

#endif
