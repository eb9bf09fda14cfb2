/* tls_conn: one TLS session on memory BIOs (see tls.h). The network BIO
 * pair is OpenSSL's: `in` holds ciphertext fed and not yet decrypted,
 * `out` the ciphertext the session produced and not yet taken. Plaintext
 * written before the handshake completes waits in `early`. Main thread
 * only, but for tls_handshake_step (see tls.h). */
#include "tls.h"

#include <assert.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tls_int.h"
#include "util.h"
#include "vbuf.h"

struct tls_conn {
    SSL *ssl;
    BIO *in, *out;   /* the SSL object reads `in` and writes `out` */
    vbuf early;      /* plaintext written before the handshake completed */
    vbuf unsent;     /* tls_fd_flush: ciphertext the socket did not take */
    int done;        /* handshake completed */
    int failed;      /* the session failed or the peer closed it */
    char err[256];
};

static tls_conn *conn_new(SSL_CTX *ctx, int server, char *err, size_t errlen) {
    if (!ctx) {
        snprintf(err, errlen, "TLS is not configured");
        return NULL;
    }
    SSL *ssl = SSL_new(ctx);
    BIO *in = BIO_new(BIO_s_mem()), *out = BIO_new(BIO_s_mem());
    if (!ssl || !in || !out) {
        SSL_free(ssl);
        BIO_free(in);
        BIO_free(out);
        snprintf(err, errlen, "TLS session: out of memory");
        return NULL;
    }
    /* an empty `in` reads as "more to come", not as end of file */
    BIO_set_mem_eof_return(in, -1);
    BIO_set_mem_eof_return(out, -1);
    SSL_set_bio(ssl, in, out); /* the SSL object owns both now */
    if (server) SSL_set_accept_state(ssl);
    else SSL_set_connect_state(ssl);
    tls_conn *t = xcalloc(1, sizeof *t);
    t->ssl = ssl;
    t->in = in;
    t->out = out;
    return t;
}

tls_conn *tls_accept_new(int auth, char *err, size_t errlen) {
    tls_conn *t = conn_new(tls_server_ctx(), 1, err, errlen);
    if (!t) return NULL;
    if (auth == TLS_AUTH_NO) SSL_set_verify(t->ssl, SSL_VERIFY_NONE, NULL);
    else if (auth == TLS_AUTH_OPTIONAL) SSL_set_verify(t->ssl, SSL_VERIFY_PEER, NULL);
    return t;
}

tls_conn *tls_connect_new(char *err, size_t errlen) {
    return conn_new(tls_client_ctx(), 0, err, errlen);
}

void tls_free(tls_conn *t) {
    if (!t) return;
    SSL_free(t->ssl); /* and its BIOs */
    vbuf_free(&t->early);
    vbuf_free(&t->unsent);
    free(t);
}

void tls_feed(tls_conn *t, const void *p, size_t n) {
    const char *s = p;
    while (n > 0) {
        int chunk = n > (1u << 30) ? 1 << 30 : (int)n;
        int w = BIO_write(t->in, s, chunk);
        assert(w == chunk); /* a memory BIO takes everything */
        s += w;
        n -= (size_t)w;
    }
}

/* The session failed: why, from SSL_get_error and OpenSSL's queue. */
static void fail(tls_conn *t, int rc) {
    int e = SSL_get_error(t->ssl, rc);
    t->failed = 1;
    if (e == SSL_ERROR_ZERO_RETURN) {
        t->err[0] = '\0'; /* the peer's close_notify */
    } else {
        unsigned long q = ERR_get_error();
        if (q) ERR_error_string_n(q, t->err, sizeof t->err);
        else snprintf(t->err, sizeof t->err, "TLS error %d", e);
        long v = SSL_get_verify_result(t->ssl);
        if (v != X509_V_OK) {
            size_t l = strlen(t->err);
            snprintf(t->err + l, sizeof t->err - l, " (certificate: %s)",
                     X509_verify_cert_error_string(v));
        }
    }
    ERR_clear_error();
}

/* Seals src[0..n) into `out`: 0, or -1 when the session failed. The
 * memory BIO takes all of it (SSL_write on it never wants to write). */
static int seal(tls_conn *t, const char *p, size_t n) {
    while (n > 0) {
        int chunk = n > (1u << 30) ? 1 << 30 : (int)n;
        int w = SSL_write(t->ssl, p, chunk);
        if (w <= 0) {
            fail(t, w);
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Runs the handshake as far as the bytes fed allow; once it completes,
 * the early plaintext is sealed. 0 (done or waiting), -1 (failed). */
static int handshake(tls_conn *t) {
    if (t->done) return 0;
    int rc = SSL_do_handshake(t->ssl);
    if (rc != 1) {
        int e = SSL_get_error(t->ssl, rc);
        if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
        fail(t, rc);
        return -1;
    }
    t->done = 1;
    if (t->early.len) {
        int s = seal(t, t->early.data, t->early.len);
        vbuf_free(&t->early);
        if (s != 0) return -1;
    }
    return 0;
}

int tls_handshake_step(tls_conn *t) {
    if (t->failed) return -1;
    return handshake(t);
}

ssize_t tls_read(tls_conn *t, char *buf, size_t cap) {
    if (t->failed) return -1;
    if (handshake(t) != 0) return -1;
    if (!t->done) return 0;
    int want = cap > (1u << 30) ? 1 << 30 : (int)cap;
    int n = SSL_read(t->ssl, buf, want);
    if (n > 0) return n;
    int e = SSL_get_error(t->ssl, n);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) return 0;
    fail(t, n);
    return -1;
}

int tls_write(tls_conn *t, const void *p, size_t n) {
    if (t->failed) return -1;
    if (!t->done) {
        vbuf_append(&t->early, p, n);
        return handshake(t); /* a client's first call sends its hello */
    }
    return seal(t, p, n);
}

size_t tls_out_pending(const tls_conn *t) {
    return t->unsent.len + BIO_ctrl_pending(t->out);
}

size_t tls_out_take(tls_conn *t, char *buf, size_t cap) {
    size_t got = 0;
    if (t->unsent.len) { /* what tls_fd_flush's socket did not take goes first */
        got = t->unsent.len < cap ? t->unsent.len : cap;
        memcpy(buf, t->unsent.data, got);
        vbuf_consume(&t->unsent, got);
    }
    if (got < cap) {
        size_t room = cap - got;
        int n = BIO_read(t->out, buf + got, room > (1u << 30) ? 1 << 30 : (int)room);
        if (n > 0) got += (size_t)n;
    }
    return got;
}

size_t tls_buffered(const tls_conn *t) { return t->early.len + tls_out_pending(t); }

int tls_handshake_done(const tls_conn *t) { return t->done; }

const char *tls_error(const tls_conn *t) { return t->err; }

void tls_peer_subject(const tls_conn *t, char *out, size_t outlen) {
    out[0] = '\0';
    X509 *x = SSL_get1_peer_certificate(t->ssl);
    if (!x) return;
    X509_NAME_oneline(X509_get_subject_name(x), out, (int)outlen);
    X509_free(x);
}

ssize_t tls_fd_read(tls_conn *t, int fd, char *out, size_t cap) {
    char buf[64 * 1024];
    ssize_t n;
    do n = recv(fd, buf, sizeof buf, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) n = -2;
    if (n == -1) return -1;
    if (n == 0) { /* the peer closed the socket */
        errno = 0;
        t->failed = 1;
        return -1;
    }
    if (n > 0) tls_feed(t, buf, (size_t)n);
    size_t got = 0;
    while (got < cap) {
        ssize_t r = tls_read(t, out + got, cap - got);
        if (r == 0) break;
        if (r < 0) {
            errno = 0;
            return got ? (ssize_t)got : -1; /* the failure shows on the next call */
        }
        got += (size_t)r;
    }
    return (ssize_t)got;
}

int tls_fd_flush(tls_conn *t, int fd) {
    for (;;) {
        if (t->unsent.len == 0) {
            size_t n = tls_out_pending(t);
            if (n == 0) return 0;
            vbuf_reserve(&t->unsent, n);
            t->unsent.len = tls_out_take(t, t->unsent.data, n);
        }
        ssize_t w = write(fd, t->unsent.data, t->unsent.len);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0; /* kept */
        if (w < 0) return -1;
        vbuf_consume(&t->unsent, (size_t)w);
    }
}

size_t tls_fd_unsent(const tls_conn *t) { return t->unsent.len; }
