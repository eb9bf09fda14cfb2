/* tls_util: the TLS tests' certificates and blocking client (see
 * tls_util.h). */
#include "tls_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <limits.h>

#include "harness.h"

static char certs[PATH_MAX];
static pthread_once_t certs_once = PTHREAD_ONCE_INIT;

/* One shell script: EC P-256 keys (fast to make), certificates valid for
 * 3 days (the expired one ended yesterday), named-group DH parameters. */
static const char script[] =
    "set -e; cd \"$1\"\n"
    "gen() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
    "-keyout \"$1.key\" -out \"$1.csr\" -subj \"/CN=$2\" 2>/dev/null; }\n"
    "sign() { openssl x509 -req -in \"$1.csr\" -CA \"$2.crt\" -CAkey \"$2.key\" "
    "-CAcreateserial -out \"$1.crt\" -days \"$3\" $4 2>/dev/null; }\n"
    "for ca in ca other-ca; do openssl req -x509 -newkey ec -pkeyopt "
    "ec_paramgen_curve:prime256v1 -nodes -keyout $ca.key -out $ca.crt -days 3 "
    "-subj \"/CN=verso test $ca\" 2>/dev/null; done\n"
    "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > san.ext\n"
    "gen server localhost; sign server ca 3 '-extfile san.ext'\n"
    "gen client 'verso test client'; sign client ca 3\n"
    "gen rogue 'verso rogue client'; sign rogue other-ca 3\n"
    "gen expired 'verso expired client'; sign expired ca -1\n"
    "openssl pkey -in server.key -aes256 -passout pass:verso-pass -out server-enc.key\n"
    "openssl genpkey -genparam -algorithm DH -pkeyopt dh_param:ffdhe2048 -out dh.pem\n"
    "mkdir cadir && cp ca.crt cadir/ && openssl rehash cadir\n"
    "rm -f ./*.csr\n";

static void remove_certs(void) {
    char *out = NULL;
    const char *argv[] = {"rm", "-rf", certs, NULL};
    if (certs[0]) h_run(NULL, &out, 10000, argv);
    free(out);
}

/* Made in the process that runs the case (Check forks one per case) and
 * removed when it exits. */
static void make_certs(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(certs, sizeof certs, "%s/verso-certs.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(certs)) {
        fprintf(stderr, "mkdtemp %s: %s\n", certs, strerror(errno));
        abort();
    }
    atexit(remove_certs);
    char *out = NULL;
    const char *argv[] = {"/bin/sh", "-c", script, "sh", certs, NULL};
    int st = h_run(NULL, &out, 30000, argv);
    if (st != 0) {
        fprintf(stderr, "making the test certificates failed (%d): %s\n", st, out ? out : "");
        abort();
    }
    free(out);
}

const char *tls_certs_dir(void) {
    pthread_once(&certs_once, make_certs);
    return certs;
}

const char *tls_cert(const char *name) {
    static __thread char path[32][PATH_MAX + 64];
    static __thread int next;
    char *p = path[next++ & 31];
    snprintf(p, PATH_MAX + 64, "%s/%s", tls_certs_dir(), name);
    return p;
}

const char *tls_server_args(int tls_port) {
    static __thread char buf[4 * PATH_MAX + 256];
    const char *d = tls_certs_dir();
    snprintf(buf, sizeof buf,
             "--tls-port %d --tls-cert-file %s/server.crt --tls-key-file %s/server.key "
             "--tls-ca-cert-file %s/ca.crt",
             tls_port, d, d, d);
    return buf;
}

struct tlsc {
    int fd;
    SSL_CTX *ctx;
    SSL *ssl;
    redisReader *rd;
};

void tlsc_close(tlsc *c) {
    if (!c) return;
    if (c->ssl) SSL_free(c->ssl);
    if (c->ctx) SSL_CTX_free(c->ctx);
    if (c->fd >= 0) close(c->fd);
    if (c->rd) redisReaderFree(c->rd);
    free(c);
}

static void ssl_why(char *err, size_t errlen, const char *what) {
    unsigned long e = ERR_get_error();
    char buf[256] = "";
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    snprintf(err, errlen, "%s: %s", what, buf[0] ? buf : "(no OpenSSL error)");
    ERR_clear_error();
}

tlsc *tlsc_connect(int port, const char *cert, const char *key, char *err, size_t errlen) {
    tlsc *c = calloc(1, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&a, sizeof a) != 0) {
        snprintf(err, errlen, "connect: %s", strerror(errno));
        tlsc_close(c);
        return NULL;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct timeval tv = {5, 0};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    c->ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_verify(c->ctx, SSL_VERIFY_PEER, NULL);
    char ca[PATH_MAX + 16];
    snprintf(ca, sizeof ca, "%s/ca.crt", tls_certs_dir());
    if (SSL_CTX_load_verify_locations(c->ctx, ca, NULL) != 1) {
        ssl_why(err, errlen, "CA");
        tlsc_close(c);
        return NULL;
    }
    if (cert && (SSL_CTX_use_certificate_chain_file(c->ctx, cert) != 1 ||
                 SSL_CTX_use_PrivateKey_file(c->ctx, key, SSL_FILETYPE_PEM) != 1)) {
        ssl_why(err, errlen, "client certificate");
        tlsc_close(c);
        return NULL;
    }
    c->ssl = SSL_new(c->ctx);
    SSL_set_fd(c->ssl, c->fd);
    if (SSL_connect(c->ssl) != 1) {
        ssl_why(err, errlen, "handshake");
        tlsc_close(c);
        return NULL;
    }
    c->rd = redisReaderCreate();
    return c;
}

int tlsc_send(tlsc *c, const void *p, size_t n) {
    const char *s = p;
    while (n > 0) {
        int w = SSL_write(c->ssl, s, (int)n);
        if (w <= 0) return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

redisReply *tlsc_reply(tlsc *c) {
    for (;;) {
        void *r = NULL;
        if (redisReaderGetReply(c->rd, &r) != REDIS_OK) return NULL;
        if (r) return r;
        char buf[16384];
        int n = SSL_read(c->ssl, buf, sizeof buf);
        if (n <= 0) return NULL; /* closed, failed, or SO_RCVTIMEO passed */
        redisReaderFeed(c->rd, buf, (size_t)n);
    }
}

redisReply *tlsc_cmd(tlsc *c, const char *cmd) {
    char *out = NULL;
    int len = redisFormatCommand(&out, cmd);
    if (len < 0) return NULL;
    int rc = tlsc_send(c, out, (size_t)len);
    redisFreeCommand(out);
    return rc == 0 ? tlsc_reply(c) : NULL;
}

void tlsc_peer_cn(tlsc *c, char *out, size_t len) {
    out[0] = '\0';
    X509 *x = SSL_get1_peer_certificate(c->ssl);
    if (!x) return;
    X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, out, (int)len);
    X509_free(x);
}
