/* tls_int.h: what tls.c (the contexts) shares with tls_conn.c (the
 * sessions). Not for other files. */
#ifndef VERSO_TLS_INT_H
#define VERSO_TLS_INT_H

#include <openssl/ssl.h>

/* The contexts in force (NULL until tls_configure succeeds). */
SSL_CTX *tls_server_ctx(void);
SSL_CTX *tls_client_ctx(void);

#endif
