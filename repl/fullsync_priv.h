/* fullsync_priv: what primary.c asks fullsync.c about a replica's sync
 * beyond repl_int.h's contract. Main thread only. */
#ifndef VERSO_FULLSYNC_PRIV_H
#define VERSO_FULLSYNC_PRIV_H

#include "repl_int.h"

/* 1 when t's payload is (or was) EOF-marked (diskless), 0 for $<len>
 * through a temp file; 0 for NULL. */
int fullsync_target_eof(const fs_target *t);
/* 1 while a thread sends t's $<len> payload (INFO's state=send_bulk). */
int fullsync_target_sending(const fs_target *t);

#endif
