/* tls: TLS for every connection verso makes or accepts, on OpenSSL.
 *
 * Two parts. The contexts (tls_configure): one server context and one
 * client context built from the tls-* parameters as Redis 7.0's
 * tlsConfigure builds them (certificate and key, the key's passphrase, CA
 * file or directory, DH parameters, protocols, ciphers and suites, server
 * cipher preference, the session cache), replaced as a whole by CONFIG SET
 * (sessions already open keep the context they started with).
 *
 * And the session engine (tls_conn): one TLS session on memory BIOs,
 * driven by whatever transport carries it (a libuv stream, a raw socket
 * watched by a uv_poll_t): the transport feeds the ciphertext it reads
 * (tls_feed), takes the plaintext out (tls_read), hands plaintext in
 * (tls_write) and sends the ciphertext the session produced
 * (tls_out_take). The handshake runs inside tls_feed/tls_read as bytes
 * come, so a peer that stalls mid-handshake holds nothing but its own
 * session. Plaintext written before the handshake completes is kept and
 * sealed once it does (an outgoing link may send its first command at
 * once).
 *
 * Main thread only: contexts and sessions alike, except tls_handshake_step,
 * which a worker may run while nothing else touches the session. */
#ifndef VERSO_TLS_H
#define VERSO_TLS_H

#include <stddef.h>
#include <sys/types.h>

#include "conf.h"

/* ---- contexts ---- */

/* 1 when the configuration asks for TLS anywhere (tls-port, tls-replication,
 * tls-cluster): the contexts must then be built, as Redis 7.0. */
int tls_wanted(const conf *c);
/* Builds fresh contexts from c's tls-* parameters and puts them in force;
 * on failure the old ones stay and err says why (logged by the caller, as
 * Redis's "Failed to configure TLS"). 0 or -1. */
int tls_configure(const conf *c, char *err, size_t errlen);
/* 1 once tls_configure succeeded. */
int tls_ready(void);
/* The CONFIG SET hook's part: a tls-* parameter changed. Rebuilds the
 * contexts when TLS is wanted (or, for tls-port, when it becomes wanted).
 * 0, or -1 with Redis's error text. */
int tls_config_changed(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen);
/* Frees the contexts (at exit, for leak checkers). */
void tls_cleanup(void);

/* ---- sessions ---- */

typedef struct tls_conn tls_conn;

/* A session accepting (server side) or connecting (client side: our links
 * to a master, to cluster peers), on the contexts now in force. NULL with
 * err when TLS is not configured. auth is what the peer must show, as
 * tls-auth-clients: TLS_AUTH_NO, TLS_AUTH_YES (a certificate the CA
 * signed, else the handshake fails) or TLS_AUTH_OPTIONAL (checked when
 * sent). */
enum { TLS_AUTH_NO = 0, TLS_AUTH_YES = 1, TLS_AUTH_OPTIONAL = 2 };
tls_conn *tls_accept_new(int auth, char *err, size_t errlen);
tls_conn *tls_connect_new(char *err, size_t errlen);
void tls_free(tls_conn *t);

/* Ciphertext read from the peer. */
void tls_feed(tls_conn *t, const void *p, size_t n);
/* Up to cap bytes of plaintext into buf, progressing the handshake first:
 * > 0 bytes, 0 when none is ready yet (feed more), -1 when the session
 * ended: the peer closed it (tls_error is "") or it failed (tls_error says
 * why). Call until it returns 0, then send tls_out_take's bytes. */
ssize_t tls_read(tls_conn *t, char *buf, size_t cap);
/* Runs the handshake as far as the bytes fed allow (tls_read does it
 * first too): 0 (done, or waiting for bytes) or -1 (failed). The one call
 * that may run off the main thread: net.c hands a session to the thread
 * pool for it, the costly part of a handshake (key exchange, signatures,
 * the peer's chain), and touches the session again only once the work is
 * done (the pool's completion callback, on the main thread). */
int tls_handshake_step(tls_conn *t);
/* Plaintext to send, sealed into the ciphertext queue (or kept until the
 * handshake completes). 0, or -1 when the session failed. */
int tls_write(tls_conn *t, const void *p, size_t n);
/* Ciphertext waiting to be sent, and taking it: at most cap bytes moved to
 * buf, their count returned. */
size_t tls_out_pending(const tls_conn *t);
size_t tls_out_take(tls_conn *t, char *buf, size_t cap);
/* Plaintext kept until the handshake completes, plus ciphertext queued. */
size_t tls_buffered(const tls_conn *t);
int tls_handshake_done(const tls_conn *t);
/* Why the session failed ("" when it did not, or the peer closed it). */
const char *tls_error(const tls_conn *t);
/* The peer's certificate subject, as OpenSSL's one-line form, into out
 * ("" when it sent none). */
void tls_peer_subject(const tls_conn *t, char *out, size_t outlen);

/* ---- sessions on a raw non-blocking socket ---- */

/* Reads what fd has (one recv of up to 64 KiB), feeds it, and appends the
 * plaintext to out[*len..cap): bytes appended (>= 0), or -1 with errno 0
 * and tls_error set (the session failed), errno set (the socket failed),
 * or errno 0 and tls_error "" (the peer closed). EAGAIN: returns 0. */
ssize_t tls_fd_read(tls_conn *t, int fd, char *out, size_t cap);
/* Sends the ciphertext queued (non-blocking writes; what the socket does
 * not take is kept, tls_fd_unsent counts it: watch fd for writing and call
 * again, or hand the session over: tls_out_take gives those bytes first).
 * 0, or -1 with errno on a socket error. */
int tls_fd_flush(tls_conn *t, int fd);
size_t tls_fd_unsent(const tls_conn *t);

#endif
