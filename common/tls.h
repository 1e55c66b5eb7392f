/* SPDX-License-Identifier: MIT */
/* Mutual TLS 1.3 contexts for the agent protocol, from a certificate directory. */
#ifndef IOCURVE_TLS_H
#define IOCURVE_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/ssl.h>

#include "error.h"

/*
 * Builds an SSL_CTX from DIR/NAME.crt, DIR/NAME.key and DIR/ca.crt: TLS 1.3 only,
 * the peer must present a certificate signed by ca.crt (SSL_VERIFY_PEER |
 * SSL_VERIFY_FAIL_IF_NO_PEER_CERT). A server context (the coordinator) accepts
 * only client-auth certificates; a client context (an agent) accepts only a
 * server-auth certificate, so an agent's certificate cannot pose as the
 * coordinator. On failure err names the file and OpenSSL's reason.
 */
SSL_CTX *tls_ctx_new(const char *dir, const char *name, bool server, struct error *err);
/* The same from three files named apart (/proc/self/fd/N for keys kept off disk). */
SSL_CTX *tls_ctx_new_files(const char *crt, const char *key, const char *ca, bool server,
                           struct error *err);

/* The CN of the verified peer certificate; -1 when there is none. */
int tls_peer_name(SSL *ssl, char *buf, size_t len);
/* The serial of the verified peer certificate in upper-case hex, no leading zeros. */
int tls_peer_serial(SSL *ssl, char *buf, size_t len);

/*
 * Why a handshake failed, for the log: the verify result when a certificate was
 * rejected ("certificate verify failed: unable to get local issuer certificate"),
 * else the first queued OpenSSL error ("wrong version number" for plain TCP).
 * Drains the thread's OpenSSL error queue.
 */
void tls_failure_reason(SSL *ssl, char *buf, size_t len);
/* The CN of the context's own certificate; -1 when it has none that fits len. */
int tls_ctx_name(SSL_CTX *ctx, char *buf, size_t len);
/* Whether a queued OpenSSL error is the peer's alert about our certificate. */
bool tls_alert_about_us(unsigned long e);

#endif
