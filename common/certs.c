/* SPDX-License-Identifier: MIT */
/* Campaign CA and certificates (EC P-256, SHA-256), made with the OpenSSL 3 API. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "certs.h"
#include "safefile.h"
#include "fsutil.h"
#include "xalloc.h"

#define CERTS_CA_NAME     "ca"
#define CERTS_CA_CN       "iocurve CA"
#define CERTS_CA_DAYS     (10 * 365)
#define CERTS_LEAF_DAYS   (2 * 365)
#define CERTS_NAME_MAX    64
#define CERTS_SERIAL_BITS 128
/*
 * Certificates start an hour in the past: a machine whose clock lags the one
 * that ran `iocurve certs` would otherwise reject them as not yet valid.
 */
#define CERTS_BACKDATE_SECS 3600

/* One extension, as the openssl(1) config syntax writes it. */
struct certs_ext {
	int nid;
	const char *value;
};

/* The first queued OpenSSL reason, for messages; drains the queue. */
static const char *certs_ssl_reason(void)
{
	unsigned long e = ERR_get_error();
	const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

	ERR_clear_error();
	return r != NULL ? r : "unknown OpenSSL error";
}

int certs_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > CERTS_NAME_MAX || name[0] == '.')
		return 0;
	if (strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != n)
		return 0;
	/* These would overwrite the CA's or the coordinator's files. */
	if (strcmp(name, CERTS_CA_NAME) == 0 || strcmp(name, CERTS_COORDINATOR_NAME) == 0)
		return 0;
	return 1;
}

static char *certs_path(const char *dir, const char *name, const char *ext)
{
	return xasprintf("%s/%s.%s", dir, name, ext);
}

/* Fails when PATH exists (even as a dangling link) or cannot be checked. */
static int certs_check_absent(const char *path, const char *what, struct error *err)
{
	struct stat st;

	if (lstat(path, &st) == 0) {
		error_set(err, "%s: already exists; refusing to overwrite %s", path, what);
		return -1;
	}
	if (errno != ENOENT) {
		error_set(err, "%s: cannot check: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

static EVP_PKEY *certs_keygen(struct error *err)
{
	EVP_PKEY *key = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");

	if (key == NULL)
		error_set(err, "cannot generate an EC P-256 key: %s", certs_ssl_reason());
	return key;
}

/* RFC 5280 asks for a positive serial of at most 20 octets; 128 random bits never collide. */
static int certs_set_serial(X509 *cert)
{
	BIGNUM *bn = BN_new();
	int ok = 0;

	if (bn == NULL)
		return 0;
	do {
		if (!BN_rand(bn, CERTS_SERIAL_BITS, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY))
			goto out;
	} while (BN_is_zero(bn));
	ok = BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != NULL;
out:
	BN_free(bn);
	return ok;
}

static int certs_add_exts(X509 *cert, X509 *issuer, const struct certs_ext *exts, size_t n)
{
	X509V3_CTX ctx;
	size_t i;

	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	for (i = 0; i < n; i++) {
		X509_EXTENSION *ext = X509V3_EXT_nconf_nid(NULL, &ctx, exts[i].nid, exts[i].value);
		int ok;

		if (ext == NULL)
			return 0;
		ok = X509_add_ext(cert, ext, -1);
		X509_EXTENSION_free(ext);
		if (!ok)
			return 0;
	}
	return 1;
}

/*
 * A v3 certificate for KEY with subject CN, signed by ISSUER_KEY. ISSUER is NULL
 * for the self-signed CA. Extensions are added after the subject key so that
 * subjectKeyIdentifier "hash" can see it.
 */
static X509 *certs_make(const char *cn, EVP_PKEY *key, X509 *issuer, EVP_PKEY *issuer_key,
                        long days, const struct certs_ext *exts, size_t n_exts, struct error *err)
{
	X509 *cert = X509_new();
	X509_NAME *subject;

	if (cert == NULL)
		goto fail;
	subject = X509_get_subject_name(cert);
	if (!X509_set_version(cert, X509_VERSION_3) || !certs_set_serial(cert) ||
	    !X509_NAME_add_entry_by_NID(subject, NID_commonName, MBSTRING_UTF8,
	                                (const unsigned char *)cn, -1, -1, 0) ||
	    !X509_set_issuer_name(cert, issuer != NULL ? X509_get_subject_name(issuer) : subject) ||
	    X509_gmtime_adj(X509_getm_notBefore(cert), -CERTS_BACKDATE_SECS) == NULL ||
	    X509_time_adj_ex(X509_getm_notAfter(cert), (int)days, 0, NULL) == NULL ||
	    !X509_set_pubkey(cert, key) ||
	    !certs_add_exts(cert, issuer != NULL ? issuer : cert, exts, n_exts) ||
	    X509_sign(cert, issuer_key, EVP_sha256()) <= 0)
		goto fail;
	return cert;
fail:
	error_set(err, "cannot make the certificate for CN=%s: %s", cn, certs_ssl_reason());
	X509_free(cert);
	return NULL;
}

static X509 *certs_make_ca(EVP_PKEY *key, struct error *err)
{
	static const struct certs_ext exts[] = {
	    {NID_basic_constraints, "critical,CA:TRUE"},
	    {NID_key_usage, "critical,keyCertSign,cRLSign"},
	    {NID_subject_key_identifier, "hash"},
	};

	return certs_make(CERTS_CA_CN, key, NULL, key, CERTS_CA_DAYS, exts,
	                  sizeof(exts) / sizeof(exts[0]), err);
}

/*
 * The coordinator's certificate is the only one with serverAuth, which is what
 * lets an agent tell the coordinator from another agent. The SAN only keeps
 * hostname-checking clients happy; iocurve itself trusts the CA and the purpose.
 */
static X509 *certs_make_coordinator(EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key, struct error *err)
{
	static const struct certs_ext exts[] = {
	    {NID_basic_constraints, "critical,CA:FALSE"},
	    {NID_key_usage, "critical,digitalSignature"},
	    {NID_ext_key_usage, "serverAuth"},
	    {NID_subject_key_identifier, "hash"},
	    {NID_authority_key_identifier, "keyid:always"},
	    {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
	};

	return certs_make(CERTS_COORDINATOR_NAME, key, ca, ca_key, CERTS_LEAF_DAYS, exts,
	                  sizeof(exts) / sizeof(exts[0]), err);
}

/* clientAuth only, so an agent's certificate cannot serve as the coordinator's. */
static X509 *certs_make_agent(const char *name, EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key,
                              struct error *err)
{
	static const struct certs_ext exts[] = {
	    {NID_basic_constraints, "critical,CA:FALSE"},
	    {NID_key_usage, "critical,digitalSignature"},
	    {NID_ext_key_usage, "clientAuth"},
	    {NID_subject_key_identifier, "hash"},
	    {NID_authority_key_identifier, "keyid:always"},
	};

	return certs_make(name, key, ca, ca_key, CERTS_LEAF_DAYS, exts,
	                  sizeof(exts) / sizeof(exts[0]), err);
}

/*
 * Create PATH for writing with exactly MODE (safefile_create): O_EXCL makes "never
 * overwrite" hold even against a file or link that appeared after our checks; the
 * fchmod undoes a umask that would hide certificates from the daemons' users.
 */
static FILE *certs_create(const char *path, mode_t mode, struct error *err)
{
	return safefile_create(path, mode, err);
}

/* Flush PATH to disk and close it; on any failure it is removed, not left half-written. */
static int certs_finish(const char *path, FILE *f, bool written, struct error *err)
{
	if (!written) {
		error_set(err, "%s: cannot write: %s", path, certs_ssl_reason());
		goto fail;
	}
	if (fflush(f) != 0 || fsync(fileno(f)) < 0) {
		error_set(err, "%s: cannot write: %s", path, strerror(errno));
		goto fail;
	}
	if (fclose(f) != 0) {
		error_set(err, "%s: cannot write: %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
fail:
	fclose(f);
	unlink(path);
	return -1;
}

static int certs_write_key(const char *path, EVP_PKEY *key, struct error *err)
{
	FILE *f = certs_create(path, 0600, err);

	if (f == NULL)
		return -1;
	return certs_finish(path, f, PEM_write_PrivateKey(f, key, NULL, NULL, 0, NULL, NULL), err);
}

static int certs_write_cert(const char *path, X509 *cert, struct error *err)
{
	FILE *f = certs_create(path, 0644, err);

	if (f == NULL)
		return -1;
	return certs_finish(path, f, PEM_write_X509(f, cert), err);
}

/* Write DIR/NAME.key and DIR/NAME.crt, both or neither. */
static int certs_write_pair(const char *dir, const char *name, EVP_PKEY *key, X509 *cert,
                            struct error *err)
{
	char *key_path = certs_path(dir, name, "key");
	char *crt_path = certs_path(dir, name, "crt");
	int ret = -1;

	if (certs_write_key(key_path, key, err) < 0)
		goto out;
	if (certs_write_cert(crt_path, cert, err) < 0) {
		unlink(key_path);
		goto out;
	}
	ret = 0;
out:
	free(key_path);
	free(crt_path);
	return ret;
}

static void certs_remove_pair(const char *dir, const char *name)
{
	char *key_path = certs_path(dir, name, "key");
	char *crt_path = certs_path(dir, name, "crt");

	unlink(key_path);
	unlink(crt_path);
	free(key_path);
	free(crt_path);
}

int certs_init(const char *dir, struct error *err)
{
	char *ca_key_path = certs_path(dir, CERTS_CA_NAME, "key");
	char *ca_crt_path = certs_path(dir, CERTS_CA_NAME, "crt");
	const char *ca_what = "the CA, which would invalidate every certificate it signed (use a "
	                      "new directory to start over)";
	EVP_PKEY *ca_key = NULL, *co_key = NULL;
	X509 *ca = NULL, *co = NULL;
	int ret = -1;

	/* A new CA would orphan every certificate the old one signed. */
	if (certs_check_absent(ca_key_path, ca_what, err) < 0 ||
	    certs_check_absent(ca_crt_path, ca_what, err) < 0)
		goto out;
	/* 0700: the directory holds the CA key until a copy without it is made. */
	if (fs_mkdir_p(dir, 0700, err) < 0)
		goto out;
	if ((ca_key = certs_keygen(err)) == NULL || (co_key = certs_keygen(err)) == NULL)
		goto out;
	if ((ca = certs_make_ca(ca_key, err)) == NULL ||
	    (co = certs_make_coordinator(co_key, ca, ca_key, err)) == NULL)
		goto out;
	if (certs_write_pair(dir, CERTS_CA_NAME, ca_key, ca, err) < 0)
		goto out;
	if (certs_write_pair(dir, CERTS_COORDINATOR_NAME, co_key, co, err) < 0) {
		certs_remove_pair(dir, CERTS_CA_NAME);
		goto out;
	}
	ret = 0;
out:
	X509_free(ca);
	X509_free(co);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(co_key);
	free(ca_key_path);
	free(ca_crt_path);
	return ret;
}

/* Load DIR/ca.key and DIR/ca.crt, checking that they belong together. */
static int certs_load_ca(const char *dir, EVP_PKEY **key, X509 **cert, struct error *err)
{
	char *key_path = certs_path(dir, CERTS_CA_NAME, "key");
	char *crt_path = certs_path(dir, CERTS_CA_NAME, "crt");
	FILE *f;
	int ret = -1;

	*key = NULL;
	*cert = NULL;
	if ((f = fopen(key_path, "re")) == NULL) {
		error_set(err, "%s: cannot read: %s (certs agent must run where the CA key is)",
		          key_path, strerror(errno));
		goto out;
	}
	*key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (*key == NULL) {
		error_set(err, "%s: cannot load private key: %s", key_path, certs_ssl_reason());
		goto out;
	}
	if ((f = fopen(crt_path, "re")) == NULL) {
		error_set(err, "%s: cannot read: %s", crt_path, strerror(errno));
		goto out;
	}
	*cert = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if (*cert == NULL) {
		error_set(err, "%s: cannot load certificate: %s", crt_path, certs_ssl_reason());
		goto out;
	}
	if (X509_check_private_key(*cert, *key) != 1) {
		ERR_clear_error();
		error_set(err, "%s: does not match %s", key_path, crt_path);
		goto out;
	}
	ret = 0;
out:
	if (ret < 0) {
		EVP_PKEY_free(*key);
		X509_free(*cert);
		*key = NULL;
		*cert = NULL;
	}
	free(key_path);
	free(crt_path);
	return ret;
}

int certs_issue_agent(const char *dir, const char *name, struct error *err)
{
	char *key_path = NULL, *crt_path = NULL;
	EVP_PKEY *ca_key = NULL, *key = NULL;
	X509 *ca = NULL, *cert = NULL;
	int ret = -1;

	if (!certs_name_valid(name)) {
		error_set(err,
		          "invalid agent name \"%s\": use 1 to %d letters, digits, '.', '_' or "
		          "'-', not starting with '.'; \"%s\" and \"%s\" are reserved",
		          name, CERTS_NAME_MAX, CERTS_CA_NAME, CERTS_COORDINATOR_NAME);
		return -1;
	}
	key_path = certs_path(dir, name, "key");
	crt_path = certs_path(dir, name, "crt");
	if (certs_check_absent(crt_path, "an issued certificate", err) < 0 ||
	    certs_check_absent(key_path, "an issued key", err) < 0)
		goto out;
	if (certs_load_ca(dir, &ca_key, &ca, err) < 0)
		goto out;
	if ((key = certs_keygen(err)) == NULL ||
	    (cert = certs_make_agent(name, key, ca, ca_key, err)) == NULL)
		goto out;
	ret = certs_write_pair(dir, name, key, cert, err);
out:
	X509_free(ca);
	X509_free(cert);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(key);
	free(key_path);
	free(crt_path);
	return ret;
}

/* A new memfd (close-on-exec, no name on disk) holding what fn writes; -1 with err. */
static int certs_memfd(const char *what, bool key, EVP_PKEY *k, X509 *cert, struct error *err)
{
	int fd = memfd_create(what, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	BIO *b;
	int ok;

	if (fd < 0) {
		error_set(err, "cannot keep %s in memory (memfd_create): %s", what,
		          strerror(errno));
		return -1;
	}
	b = BIO_new_fd(fd, BIO_NOCLOSE);
	ok = b != NULL && (key ? PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL)
	                       : PEM_write_bio_X509(b, cert));
	ok = ok && BIO_flush(b) == 1;
	BIO_free(b);
	/* Sealed: whoever holds a descriptor reads it, nobody changes it. */
	if (!ok ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		error_set(err, "cannot keep %s in memory: %s", what,
		          ok ? strerror(errno) : certs_ssl_reason());
		close(fd);
		return -1;
	}
	return fd;
}

int certs_mem_new(struct certs_mem *m, unsigned n, const char *prefix, struct error *err)
{
	EVP_PKEY *ca_key = NULL, *key = NULL;
	X509 *ca = NULL, *cert = NULL;
	char name[CERTS_NAME_MAX + 1];
	int ret = -1;

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->agent_crt = xcalloc(n ? n : 1, sizeof(int));
	m->agent_key = xcalloc(n ? n : 1, sizeof(int));
	m->ca_crt = m->co_crt = m->co_key = -1;
	for (unsigned i = 0; i < n; i++)
		m->agent_crt[i] = m->agent_key[i] = -1;
	if ((ca_key = certs_keygen(err)) == NULL || (ca = certs_make_ca(ca_key, err)) == NULL ||
	    (m->ca_crt = certs_memfd("ca.crt", false, NULL, ca, err)) < 0)
		goto out;
	if ((key = certs_keygen(err)) == NULL ||
	    (cert = certs_make_coordinator(key, ca, ca_key, err)) == NULL ||
	    (m->co_crt = certs_memfd("coordinator.crt", false, NULL, cert, err)) < 0 ||
	    (m->co_key = certs_memfd("coordinator.key", true, key, NULL, err)) < 0)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		X509_free(cert);
		EVP_PKEY_free(key);
		cert = NULL;
		snprintf(name, sizeof(name), "%s%u", prefix, i);
		if ((key = certs_keygen(err)) == NULL ||
		    (cert = certs_make_agent(name, key, ca, ca_key, err)) == NULL ||
		    (m->agent_crt[i] = certs_memfd("agent.crt", false, NULL, cert, err)) < 0 ||
		    (m->agent_key[i] = certs_memfd("agent.key", true, key, NULL, err)) < 0)
			goto out;
	}
	ret = 0;
out:
	/* The CA key signed what it had to: it is in no file and, from here, in no memory. */
	X509_free(ca);
	X509_free(cert);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(key);
	if (ret < 0)
		certs_mem_free(m);
	return ret;
}

static void certs_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void certs_mem_drop_agent(struct certs_mem *m, unsigned i)
{
	if (i < m->n) {
		certs_close(&m->agent_crt[i]);
		certs_close(&m->agent_key[i]);
	}
}

void certs_mem_free(struct certs_mem *m)
{
	if (m->agent_crt == NULL)
		return;
	for (unsigned i = 0; i < m->n; i++)
		certs_mem_drop_agent(m, i);
	certs_close(&m->ca_crt);
	certs_close(&m->co_crt);
	certs_close(&m->co_key);
	free(m->agent_crt);
	free(m->agent_key);
	m->agent_crt = m->agent_key = NULL;
	m->n = 0;
}
