/* net: client connections on the libuv loop (the listening sockets are
 * listen.h's).
 *
 * Accepts clients, reads into their query buffers, runs every complete
 * command (pipelines of thousands per read), and writes replies without ever
 * blocking: replies accumulate in c->reply and are flushed once per loop
 * iteration (the before-sleep prepare handle) with uv_try_write, the rest with
 * uv_write. A client whose unsent output passes NET_OBUF_PAUSE stops being
 * read until it drains (back-pressure for pipelining clients), and one that
 * passes client-output-buffer-limit is disconnected. Protocol errors get
 * Redis's error reply and close the connection. Clients on tls-port speak
 * TLS (src/tls): their input is decrypted into the same query buffer and
 * their replies sealed at flush. Main thread only, but for a TLS
 * handshake's steps, which run on libuv's thread pool (net.c, hs_*). */
#ifndef VERSO_NET_H
#define VERSO_NET_H

#include "server.h"

/* Unsent output above which a client is no longer read from. */
#define NET_OBUF_PAUSE (4u << 20)

/* File descriptors kept for everything but clients (listeners, the loop,
 * logs, snapshot and AOF files), as Redis's CONFIG_MIN_RESERVED_FDS. */
#define NET_RESERVED_FDS 32

/* At startup, before listening: raises RLIMIT_NOFILE toward maxclients +
 * NET_RESERVED_FDS as far as the OS allows and, when it cannot reach it,
 * lowers cfg.maxclients to fit, logging it as Redis does. -1 with err when
 * the limit leaves no room for a single client. */
int net_adjust_fd_limit(char *err, size_t errlen);
/* CONFIG SET maxclients: 0 when `maxclients` clients fit in the open-files
 * limit (raising it if needed), else -1 with Redis's error text. */
int net_set_maxclients(int maxclients, char *err, size_t errlen);

/* A listener's (listen.h) connection callback: the new client, TLS on a
 * TLS listener. */
void net_on_connection(uv_stream_t *listener, int status);

/* Makes a client of an already connected socket fd (our connection to a
 * master, repl/): libuv takes fd over (closed with the client), and tls,
 * the session on it when it has one (freed with the client). flags are
 * or-ed in (CLIENT_MASTER); the client is authenticated. pre[0..prelen)
 * are bytes already read from fd (decrypted), processed at once as its
 * first input. NULL with err when libuv refuses fd (which then stays the
 * caller's, with tls). */
struct tls_conn;
client *net_adopt_fd(int fd, int flags, const char *pre, size_t prelen, struct tls_conn *tls,
                     char *err, size_t errlen);
/* Writes p[0..n) to c's connection now, ahead of replies held back
 * (hooks reply_held) and after what is already on its way: a replica's
 * keepalives and payload, the master link's REPLCONF ACK. Sealed first on
 * a TLS connection. 0, or -1 when c is closing or the write failed. */
int net_write_direct(client *c, const void *p, size_t n);
/* Reads what c's socket has without the loop (serving clients from a busy
 * script): 1 when input was added, 0 when none came, -1 when c closed. */
int net_read_now(client *c);

/* Accepts the connections waiting on the listeners without the loop
 * (a script past busy-reply-threshold serves clients from a Lua hook:
 * script_lua.c), as the loop's accept callback would. */
void net_accept_now(void);
/* Queue c for the next flush (called after replies are added). */
void net_want_write(client *c);
/* Flushes every pending client; runs once per loop iteration. */
void net_flush_all(void);
/* Starts closing a client (asynchronously; it is freed in the close cb). */
/* Closes c before the loop next sleeps rather than now: for a client found
 * over a limit while a command may be walking lists it is in (a pub/sub
 * message published from inside a command that serves blocked clients). */
void net_close_asap(client *c);
void net_close_client(client *c);
/* Closes clients idle for more than cfg.timeout seconds; called by cron. */
void net_clients_cron(void);
/* Unsent output bytes of a client. */
size_t net_pending_output(const client *c);
/* Resumes processing a client's buffered commands (after a pause). */
void net_process_input(client *c);
/* Drops the pending request c's input stopped at (a blocked command that
 * was served or timed out, blocking.c): net_process_input goes on after it. */
void net_skip_pending(client *c);
/* Stops or resumes reading a client after its output backlog or parked
 * state changed. */
void net_update_reading(client *c);
/* A client whose pending command was parked (CLIENT_BLOCKED: a CLIENT
 * PAUSE, a MIGRATE of its keys) goes on: the command is dispatched again
 * (and may be parked again), reading and writing resume. */
void net_resume_parked(client *c);

#endif
