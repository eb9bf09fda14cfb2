/* backlog: the replication backlog (see repl_int.h). Placeholder: the
 * primary engineer fills it. */
#include "repl_int.h"

void backlog_create(void) {}
void backlog_free(void) {}
int backlog_exists(void) { return 0; }
void backlog_append(const char *p, size_t n) { (void)p; (void)n; }
int backlog_covers(long long offset) { (void)offset; return 0; }
void backlog_copy_from(long long offset, vbuf *b) { (void)offset; (void)b; }
void backlog_resize(long long size) { (void)size; }
void backlog_info(vbuf *b) {
    vbuf_appendf(b, "repl_backlog_active:0\r\nrepl_backlog_size:%lld\r\n"
                    "repl_backlog_first_byte_offset:0\r\nrepl_backlog_histlen:0\r\n",
                 server.cfg.repl_backlog_size);
}
