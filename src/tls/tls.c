/* tls: the server and client contexts built from the tls-* parameters
 * (see tls.h). Main thread only. */
#include "tls.h"

#include <openssl/dh.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "tls_int.h"
#include "util.h"

static SSL_CTX *server_ctx, *client_ctx;

SSL_CTX *tls_server_ctx(void) { return server_ctx; }
SSL_CTX *tls_client_ctx(void) { return client_ctx; }

int tls_wanted(const conf *c) {
    return c->compat.tls_port || c->compat.tls_replication || c->compat.tls_cluster;
}

int tls_ready(void) { return server_ctx != NULL; }

/* The last OpenSSL error as text ("" when the queue is empty), and the
 * queue emptied. */
static const char *ssl_err(char *buf, size_t len) {
    unsigned long e = ERR_get_error();
    buf[0] = '\0';
    if (e) ERR_error_string_n(e, buf, len);
    ERR_clear_error();
    return buf;
}

/* tls-protocols as OpenSSL's version range: TLSv1.2 and TLSv1.3 when
 * empty, as Redis. -1 on a word Redis refuses. */
static int parse_protocols(const char *s, int *minv, int *maxv) {
    static const struct { const char *name; int v; } names[] = {
        {"tlsv1", TLS1_VERSION}, {"tlsv1.1", TLS1_1_VERSION},
        {"tlsv1.2", TLS1_2_VERSION}, {"tlsv1.3", TLS1_3_VERSION}};
    *minv = 0;
    *maxv = 0;
    if (!s || !*s) {
        *minv = TLS1_2_VERSION;
        *maxv = TLS1_3_VERSION;
        return 0;
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        int found = 0;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (strcasecmp(w, names[i].name) != 0) continue;
            found = 1;
            if (!*minv || names[i].v < *minv) *minv = names[i].v;
            if (names[i].v > *maxv) *maxv = names[i].v;
        }
        if (!found) return -1;
    }
    return *minv ? 0 : -1;
}

/* The passphrase of the key being loaded (tls-key-file-pass and its
 * client twin), handed to OpenSSL's PEM callback. */
static int pass_cb(char *buf, int size, int rwflag, void *u) {
    (void)rwflag;
    const char *pass = u;
    size_t n = strlen(pass);
    if (n > (size_t)size) n = (size_t)size;
    memcpy(buf, pass, n);
    return (int)n;
}

/* One context: the certificate and key (cert/key/pass), the CA, the
 * protocols and ciphers. NULL with err. */
static SSL_CTX *make_ctx(const conf_compat *cc, int client, const char *cert, const char *key,
                         const char *pass, char *err, size_t errlen) {
    char e[256];
    int minv, maxv;
    if (parse_protocols(cc->tls_protocols, &minv, &maxv) != 0) {
        snprintf(err, errlen, "Invalid tls-protocols specified. Use a combination of 'TLSv1', "
                 "'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
        return NULL;
    }
    SSL_CTX *ctx = SSL_CTX_new(client ? TLS_client_method() : TLS_server_method());
    if (!ctx) {
        snprintf(err, errlen, "Failed to create TLS context: %s", ssl_err(e, sizeof e));
        return NULL;
    }
    SSL_CTX_set_options(ctx, SSL_OP_NO_SSLv2 | SSL_OP_NO_SSLv3 | SSL_OP_NO_COMPRESSION);
    /* protocols outside the range stay off even inside it (TLSv1 TLSv1.2) */
    if (SSL_CTX_set_min_proto_version(ctx, minv) != 1 ||
        SSL_CTX_set_max_proto_version(ctx, maxv) != 1) {
        snprintf(err, errlen, "Failed to set the TLS protocols: %s", ssl_err(e, sizeof e));
        goto fail;
    }
    if (cc->tls_prefer_server_ciphers) SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
    if (!client && cc->tls_session_caching) {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
        SSL_CTX_sess_set_cache_size(ctx, cc->tls_session_cache_size);
        SSL_CTX_set_timeout(ctx, cc->tls_session_cache_timeout);
        SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"verso", 5);
    } else {
        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    }
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        snprintf(err, errlen, "Failed to load certificate: %s: %s", cert, ssl_err(e, sizeof e));
        goto fail;
    }
    if (pass && *pass) {
        SSL_CTX_set_default_passwd_cb(ctx, pass_cb);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, (void *)pass);
    }
    int ok = SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) == 1;
    SSL_CTX_set_default_passwd_cb(ctx, NULL);
    SSL_CTX_set_default_passwd_cb_userdata(ctx, NULL);
    if (!ok) {
        snprintf(err, errlen, "Failed to load private key: %s: %s", key, ssl_err(e, sizeof e));
        goto fail;
    }
    if (SSL_CTX_check_private_key(ctx) != 1) {
        snprintf(err, errlen, "Private key %s does not match the certificate %s: %s", key, cert,
                 ssl_err(e, sizeof e));
        goto fail;
    }
    const char *cafile = cc->tls_ca_cert_file && *cc->tls_ca_cert_file ? cc->tls_ca_cert_file
                                                                       : NULL;
    const char *cadir = cc->tls_ca_cert_dir && *cc->tls_ca_cert_dir ? cc->tls_ca_cert_dir : NULL;
    if ((cafile || cadir) && SSL_CTX_load_verify_locations(ctx, cafile, cadir) != 1) {
        snprintf(err, errlen, "Failed to configure CA certificate(s) file/directory: %s",
                 ssl_err(e, sizeof e));
        goto fail;
    }
    if (!client && cc->tls_dh_params_file && *cc->tls_dh_params_file) {
        BIO *f = BIO_new_file(cc->tls_dh_params_file, "r");
        EVP_PKEY *dh = f ? PEM_read_bio_Parameters(f, NULL) : NULL;
        BIO_free(f);
        if (!dh) {
            snprintf(err, errlen, "Failed to load DH params file: %s: %s", cc->tls_dh_params_file,
                     f ? ssl_err(e, sizeof e) : "cannot open it");
            goto fail;
        }
        if (SSL_CTX_set0_tmp_dh_pkey(ctx, dh) != 1) { /* takes dh on success */
            EVP_PKEY_free(dh);
            snprintf(err, errlen, "Failed to load DH params file: %s: %s", cc->tls_dh_params_file,
                     ssl_err(e, sizeof e));
            goto fail;
        }
    } else if (!client) {
        SSL_CTX_set_dh_auto(ctx, 1);
    }
    if (cc->tls_ciphers && *cc->tls_ciphers && SSL_CTX_set_cipher_list(ctx, cc->tls_ciphers) != 1) {
        snprintf(err, errlen, "Failed to configure ciphers: %s", cc->tls_ciphers);
        goto fail;
    }
    if (cc->tls_ciphersuites && *cc->tls_ciphersuites &&
        SSL_CTX_set_ciphersuites(ctx, cc->tls_ciphersuites) != 1) {
        snprintf(err, errlen, "Failed to configure ciphersuites: %s", cc->tls_ciphersuites);
        goto fail;
    }
    ERR_clear_error();
    return ctx;
fail:
    SSL_CTX_free(ctx);
    ERR_clear_error();
    return NULL;
}

static int set(const char *s) { return s && *s; }

int tls_configure(const conf *c, char *err, size_t errlen) {
    const conf_compat *cc = &c->compat;
    if (!set(cc->tls_cert_file)) {
        snprintf(err, errlen, "No tls-cert-file configured!");
        return -1;
    }
    if (!set(cc->tls_key_file)) {
        snprintf(err, errlen, "No tls-key-file configured!");
        return -1;
    }
    if ((cc->tls_auth_clients || cc->tls_cluster || cc->tls_replication) &&
        !set(cc->tls_ca_cert_file) && !set(cc->tls_ca_cert_dir)) {
        snprintf(err, errlen, "Either tls-ca-cert-file or tls-ca-cert-dir must be specified "
                 "when tls-cluster, tls-replication or tls-auth-clients are enabled!");
        return -1;
    }
    SSL_CTX *srv = make_ctx(cc, 0, cc->tls_cert_file, cc->tls_key_file, cc->tls_key_file_pass,
                            err, errlen);
    if (!srv) return -1;
    /* outgoing links show the client certificate when one is set, else the
     * server's, as Redis */
    int own = set(cc->tls_client_cert_file);
    SSL_CTX *cli = make_ctx(cc, 1, own ? cc->tls_client_cert_file : cc->tls_cert_file,
                            own ? cc->tls_client_key_file : cc->tls_key_file,
                            own ? cc->tls_client_key_file_pass : cc->tls_key_file_pass, err,
                            errlen);
    if (!cli) {
        SSL_CTX_free(srv);
        return -1;
    }
    /* open sessions hold their own reference: freeing ours is safe */
    SSL_CTX_free(server_ctx);
    SSL_CTX_free(client_ctx);
    server_ctx = srv;
    client_ctx = cli;
    return 0;
}

int tls_config_changed(const conf *old, const conf *now, const char *name, char *err,
                       size_t errlen) {
    (void)old;
    if (strncmp(name, "tls-", 4) != 0) return 0;
    if (!tls_wanted(now)) return 0;
    char why[512];
    if (tls_configure(now, why, sizeof why) != 0) {
        log_warning("%s", why);
        snprintf(err, errlen, "Unable to update TLS configuration. Check server logs.");
        return -1;
    }
    return 0;
}

void tls_cleanup(void) {
    SSL_CTX_free(server_ctx);
    SSL_CTX_free(client_ctx);
    server_ctx = client_ctx = NULL;
}
