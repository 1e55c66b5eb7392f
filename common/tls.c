/* SPDX-License-Identifier: MIT */
/* Mutual TLS 1.3 contexts from a certificate directory, and handshake diagnostics. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "tls.h"
#include "xalloc.h"

/* The first queued OpenSSL reason; drains the thread's queue so it cannot leak into later calls. */
static void tls_ssl_reason(char *buf, size_t len)
{
	unsigned long e = ERR_get_error();
	const char *r;

	if (e == 0) {
		snprintf(buf, len, "unknown OpenSSL error");
	} else if ((r = ERR_reason_error_string(e)) != NULL) {
		snprintf(buf, len, "%s", r);
	} else {
		ERR_error_string_n(e, buf, len);
	}
	ERR_clear_error();
}

static bool tls_key_mismatch(unsigned long e)
{
	return ERR_GET_LIB(e) == ERR_LIB_X509 && ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH;
}

/*
 * OpenSSL's own reason for a missing or unreadable file is "system lib" at best;
 * opening the file first gives the user errno's words.
 */
static int tls_check_readable(const char *path, const char *what, bool server, struct error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT && server)
		error_set(err,
		          "%s: cannot load %s: %s (make the directory with `iocurve certs init "
		          "DIR`)",
		          path, what, strerror(errno));
	else if (fd < 0 && errno == ENOENT)
		error_set(err,
		          "%s: cannot load %s: %s (make the agent's certificate with `iocurve "
		          "certs agent DIR NAME` in the coordinator's directory and copy NAME.crt, "
		          "NAME.key and ca.crt here)",
		          path, what, strerror(errno));
	else if (fd < 0)
		error_set(err, "%s: cannot load %s: %s", path, what, strerror(errno));
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/*
 * Whether a key file's mode lets others read it. A key file is its owner's alone
 * (0600 or 0400); the one exception is a root-owned file readable by its group and
 * nobody else (0640, 0440), which root chose to share with that group: a Kubernetes
 * Secret volume mounted for a pod with fsGroup is exactly that. A descriptor with no
 * name (nlink 0: the memfd `iocurve run` hands its local agents) has no path anyone
 * else could open, so its mode says nothing.
 */
static bool tls_key_exposed(const struct stat *st)
{
	mode_t others = st->st_mode & 0077;

	if (!S_ISREG(st->st_mode) || st->st_nlink == 0 || others == 0)
		return false;
	return !(st->st_uid == 0 && (others & ~(mode_t)0040) == 0);
}

/*
 * Load the private key from the file checked: opened once, its mode checked on that
 * descriptor, and the key read from it, so the file checked is the file used.
 */
static int tls_load_key(SSL_CTX *ctx, const char *key, bool server, bool *mismatch,
                        struct error *err)
{
	char reason[256];
	struct stat st;
	EVP_PKEY *pkey = NULL;
	BIO *bio = NULL;
	int fd, ret = -1;

	if (tls_check_readable(key, "private key", server, err) < 0)
		return -1;
	if ((fd = open(key, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		error_set(err, "%s: cannot load private key: %s", key, strerror(errno));
		goto out;
	}
	if (tls_key_exposed(&st)) {
		error_set(
		    err,
		    "%s: private key is readable by others (mode %04o, owner uid %u): refusing "
		    "it; make it the owner's alone (chmod 600 %s) and owned by the user that "
		    "runs this",
		    key, (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, key);
		goto out;
	}
	if ((bio = BIO_new_fd(fd, BIO_NOCLOSE)) == NULL ||
	    (pkey = PEM_read_bio_PrivateKey(bio, NULL, SSL_CTX_get_default_passwd_cb(ctx),
	                                    SSL_CTX_get_default_passwd_cb_userdata(ctx))) == NULL) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "%s: cannot load private key: %s", key, reason);
		goto out;
	}
	/* OpenSSL checks the key against the certificate as it takes it, and again later. */
	if (SSL_CTX_use_PrivateKey(ctx, pkey) != 1) {
		if (!tls_key_mismatch(ERR_peek_error())) {
			tls_ssl_reason(reason, sizeof(reason));
			error_set(err, "%s: cannot load private key: %s", key, reason);
			goto out;
		}
		*mismatch = true;
	}
	ret = 0;
out:
	EVP_PKEY_free(pkey);
	BIO_free(bio);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int tls_ctx_load(SSL_CTX *ctx, const char *crt, const char *key, const char *ca, bool server,
                        struct error *err)
{
	char reason[256];
	bool mismatch = false;

	/* Errors left by earlier calls would be blamed on these files. */
	ERR_clear_error();
	if (tls_check_readable(crt, "certificate", server, err) < 0)
		return -1;
	if (SSL_CTX_use_certificate_chain_file(ctx, crt) != 1) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "%s: cannot load certificate: %s", crt, reason);
		return -1;
	}
	if (tls_load_key(ctx, key, server, &mismatch, err) < 0)
		return -1;
	if (mismatch || SSL_CTX_check_private_key(ctx) != 1) {
		ERR_clear_error();
		error_set(err, "%s: does not match %s (issue the pair again with `iocurve certs`)",
		          key, crt);
		return -1;
	}
	if (tls_check_readable(ca, "CA certificate", server, err) < 0)
		return -1;
	if (SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "%s: cannot load CA certificate: %s", ca, reason);
		return -1;
	}
	if (server) {
		/* Tells agents which CA to pick a certificate for. */
		STACK_OF(X509_NAME) *names = SSL_load_client_CA_file(ca);

		if (names == NULL) {
			tls_ssl_reason(reason, sizeof(reason));
			error_set(err, "%s: cannot load CA certificate: %s", ca, reason);
			return -1;
		}
		SSL_CTX_set_client_CA_list(ctx, names);
	}
	return 0;
}

/* The certificate's CN into buf; -1 when it has none, or one that does not fit or holds a NUL. */
static int tls_cert_cn(X509 *cert, char *buf, size_t len)
{
	X509_NAME *subject = X509_get_subject_name(cert);
	X509_NAME_ENTRY *entry;
	unsigned char *utf8 = NULL;
	int idx, n, ret = -1;

	idx = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
	if (idx < 0 || (entry = X509_NAME_get_entry(subject, idx)) == NULL)
		return -1;
	n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
	/* A truncated or NUL-embedded name would identify the wrong agent: refuse it. */
	if (n >= 0 && (size_t)n < len && memchr(utf8, '\0', (size_t)n) == NULL) {
		memcpy(buf, utf8, (size_t)n);
		buf[n] = '\0';
		ret = 0;
	}
	OPENSSL_free(utf8);
	return ret;
}

SSL_CTX *tls_ctx_new(const char *dir, const char *name, bool server, struct error *err)
{
	char *crt = xasprintf("%s/%s.crt", dir, name);
	char *key = xasprintf("%s/%s.key", dir, name);
	char *ca = xasprintf("%s/ca.crt", dir);
	SSL_CTX *ctx = tls_ctx_new_files(crt, key, ca, server, err);

	free(crt);
	free(key);
	free(ca);
	return ctx;
}

SSL_CTX *tls_ctx_new_files(const char *crt, const char *key, const char *ca, bool server,
                           struct error *err)
{
	char reason[256];
	SSL_CTX *ctx = SSL_CTX_new(TLS_method());

	if (ctx == NULL) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "cannot create a TLS context: %s", reason);
		goto out;
	}
	/* TLS 1.3 only: no downgrade, and the client certificate is sent encrypted. */
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "cannot restrict the TLS context to TLS 1.3: %s", reason);
		goto fail;
	}
	if (tls_ctx_load(ctx, crt, key, ca, server, err) < 0)
		goto fail;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	/*
	 * The purpose check is what separates the roles under one CA: only the
	 * coordinator's certificate has serverAuth, agents' have clientAuth only.
	 */
	if (X509_VERIFY_PARAM_set_purpose(SSL_CTX_get0_param(ctx),
	                                  server ? X509_PURPOSE_SSL_CLIENT
	                                         : X509_PURPOSE_SSL_SERVER) != 1) {
		tls_ssl_reason(reason, sizeof(reason));
		error_set(err, "cannot set the certificate purpose: %s", reason);
		goto fail;
	}
	/*
	 * No session tickets: every connection then runs the full mutual
	 * certificate check instead of resuming on an old one.
	 */
	if (server)
		SSL_CTX_set_num_tickets(ctx, 0);
	/*
	 * Record buffers only while a record is in flight: an idle session (most of a
	 * fleet's, most of the time) holds ~30 KiB less.
	 */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	/*
	 * A record in one read(2), not its 5-byte header and then its body: half the
	 * system calls a report costs the coordinator. What is read ahead and still
	 * undecrypted is taken by conn.c (conn_read, SSL_has_pending), as the socket no longer
	 * says it is there.
	 */
	SSL_CTX_set_read_ahead(ctx, 1);
	goto out;
fail:
	SSL_CTX_free(ctx);
	ctx = NULL;
out:
	return ctx;
}

int tls_ctx_name(SSL_CTX *ctx, char *buf, size_t len)
{
	X509 *cert = SSL_CTX_get0_certificate(ctx);

	return cert != NULL && len > 0 ? tls_cert_cn(cert, buf, len) : -1;
}

int tls_peer_name(SSL *ssl, char *buf, size_t len)
{
	X509 *peer;
	int ret;

	if (len == 0 || SSL_get_verify_result(ssl) != X509_V_OK)
		return -1;
	peer = SSL_get1_peer_certificate(ssl);
	if (peer == NULL)
		return -1;
	ret = tls_cert_cn(peer, buf, len);
	X509_free(peer);
	return ret;
}

int tls_peer_serial(SSL *ssl, char *buf, size_t len)
{
	X509 *peer;
	BIGNUM *bn;
	char *hex = NULL;
	int ret = -1;

	if (len == 0 || SSL_get_verify_result(ssl) != X509_V_OK)
		return -1;
	peer = SSL_get1_peer_certificate(ssl);
	if (peer == NULL)
		return -1;
	bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(peer), NULL);
	if (bn != NULL && (hex = BN_bn2hex(bn)) != NULL && strlen(hex) < len) {
		snprintf(buf, len, "%s", hex);
		ret = 0;
	}
	OPENSSL_free(hex);
	BN_free(bn);
	X509_free(peer);
	return ret;
}

bool tls_alert_about_us(unsigned long e)
{
	if (ERR_GET_LIB(e) != ERR_LIB_SSL)
		return false;
	switch (ERR_GET_REASON(e)) {
	case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
	case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
	case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
	case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
	case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
		return true;
	default:
		return false;
	}
}

void tls_failure_reason(SSL *ssl, char *buf, size_t len)
{
	long verify = SSL_get_verify_result(ssl);

	if (len == 0) {
		ERR_clear_error();
		return;
	}
	/*
	 * A rejected peer certificate is not kept on the SSL, so the verify result
	 * alone says one was presented and checked: it stays X509_V_OK otherwise.
	 */
	if (verify != X509_V_OK) {
		snprintf(buf, len, "certificate verify failed: %s",
		         X509_verify_cert_error_string(verify));
		ERR_clear_error();
		return;
	}
	if (ERR_peek_error() == 0) {
		snprintf(buf, len, "connection closed during handshake");
		return;
	}
	tls_ssl_reason(buf, len);
}
