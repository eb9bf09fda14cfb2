/* tls_util: what the TLS tests share: certificates they make themselves
 * and a small blocking TLS client.
 *
 * tls_certs_make writes, with the openssl command-line tool, into a fresh
 * directory: a CA (ca.crt/ca.key), a second CA that signed nothing the
 * servers trust (other-ca.crt), a server certificate and key signed by the
 * CA (server.crt/server.key, CN localhost, SAN 127.0.0.1), a client
 * certificate (client.crt/client.key), a client certificate signed by the
 * other CA (rogue.crt/rogue.key), an expired client certificate
 * (expired.crt/expired.key), the server key encrypted with the passphrase
 * "verso-pass" (server-enc.key), DH parameters (dh.pem) and a hashed CA
 directory holding the CA (cadir, for tls-ca-cert-dir). Made once per
 * test process (the first call), then shared, and removed when the process exits.
 *
 * tlsc is a blocking client over OpenSSL for tests that need replies over
 * TLS (hiredis in Debian 12 has no TLS): connect, handshake, send RESP,
 * read replies decoded by hiredis's reader into redisReply, which the
 * harness's checks take. */
#ifndef VERSO_TEST_TLS_UTIL_H
#define VERSO_TEST_TLS_UTIL_H

#include <hiredis/hiredis.h>
#include <stddef.h>

/* The certificates' directory (made on the first call; fails the test if
 * openssl fails). */
const char *tls_certs_dir(void);
/* tls_certs_dir()/name, in one of 32 buffers used in turn (valid for the
 * next 31 calls of the thread: copy what must last). */
const char *tls_cert(const char *name);
/* The server arguments for TLS on tls_port with the test CA:
 * "--tls-port N --tls-cert-file ... --tls-key-file ... --tls-ca-cert-file
 * ..." (static buffer). */
const char *tls_server_args(int tls_port);

typedef struct tlsc tlsc;
/* Connects to 127.0.0.1:port and runs the handshake, trusting the test CA,
 * showing cert/key (both NULL: no client certificate). NULL with err (the
 * reason) when the connection or the handshake fails. */
tlsc *tlsc_connect(int port, const char *cert, const char *key, char *err, size_t errlen);
void tlsc_close(tlsc *c);
/* Sends a command (argv as words split on spaces, as redisCommand's plain
 * format without %), returns its reply (free with freeReplyObject), NULL
 * when the connection failed or timeout_ms passed. */
redisReply *tlsc_cmd(tlsc *c, const char *cmd);
/* Sends raw bytes; 0 or -1. */
int tlsc_send(tlsc *c, const void *p, size_t n);
/* The common name of the certificate the server showed ("" if none). */
void tlsc_peer_cn(tlsc *c, char *out, size_t len);
/* The next reply, NULL on failure or timeout (5 s). */
redisReply *tlsc_reply(tlsc *c);

#endif
