/* SPDX-License-Identifier: MIT */
/* Certificates and mutual TLS: real OpenSSL handshakes between real contexts, in memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "certs.h"
#include "tls.h"
#include "xalloc.h"

/* One CA directory with the coordinator and two agents, and a second, unrelated CA. */
struct tls_fixture {
	char dir[64];
	char other[64];
};

/* The outcome of one in-memory handshake, each side's reason taken as it failed. */
struct tls_result {
	bool client_ok, server_ok;
	bool client_failed, server_failed;
	char client_reason[256], server_reason[256];
	char client_peer[128], server_peer[128];
	int client_peer_rc, server_peer_rc;
	int version;
};

static char *test_path(const char *dir, const char *file)
{
	return xasprintf("%s/%s", dir, file);
}

static mode_t test_mode(const char *dir, const char *file)
{
	char *p = test_path(dir, file);
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	free(p);
	return st.st_mode & 07777;
}

static bool test_exists(const char *dir, const char *file)
{
	char *p = test_path(dir, file);
	bool r = access(p, F_OK) == 0;

	free(p);
	return r;
}

static void test_copy(const char *from_dir, const char *from, const char *to_dir, const char *to)
{
	char *src = test_path(from_dir, from), *dst = test_path(to_dir, to);
	char buf[8192];
	FILE *in = fopen(src, "r"), *out = fopen(dst, "w");
	size_t n;

	assert_non_null(in);
	assert_non_null(out);
	/* As an admin copies a pair: the key its owner's alone, or the loader refuses it. */
	assert_int_equal(fchmod(fileno(out), 0600), 0);
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		assert_int_equal(fwrite(buf, 1, n, out), n);
	fclose(in);
	assert_int_equal(fclose(out), 0);
	free(src);
	free(dst);
}

static void test_rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	assert_int_equal(system(cmd), 0);
	free(cmd);
}

static X509 *test_load_cert(const char *dir, const char *file)
{
	char *p = test_path(dir, file);
	FILE *f = fopen(p, "r");
	X509 *x;

	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	free(p);
	assert_non_null(x);
	return x;
}

static int test_setup(void **state)
{
	struct tls_fixture *fx = xcalloc(1, sizeof(*fx));
	struct error err;
	char *sub;

	strcpy(fx->dir, "/tmp/iocurve-test-tls-XXXXXX");
	strcpy(fx->other, "/tmp/iocurve-test-tls-XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	assert_non_null(mkdtemp(fx->other));

	/* certs_init creates a missing directory itself; exercise that path. */
	sub = test_path(fx->dir, "certs");
	if (certs_init(sub, &err) < 0)
		fail_msg("certs_init: %s", err.msg);
	snprintf(fx->dir + strlen(fx->dir), sizeof(fx->dir) - strlen(fx->dir), "/certs");
	free(sub);
	if (certs_issue_agent(fx->dir, "agent1", &err) < 0)
		fail_msg("certs_issue_agent: %s", err.msg);
	if (certs_issue_agent(fx->dir, "agent-2.rack_b", &err) < 0)
		fail_msg("certs_issue_agent: %s", err.msg);

	if (certs_init(fx->other, &err) < 0)
		fail_msg("certs_init (second CA): %s", err.msg);
	if (certs_issue_agent(fx->other, "agent1", &err) < 0)
		fail_msg("certs_issue_agent (second CA): %s", err.msg);
	*state = fx;
	return 0;
}

static int test_teardown(void **state)
{
	struct tls_fixture *fx = *state;

	/* dir is TMP/certs: remove TMP. */
	*strrchr(fx->dir, '/') = '\0';
	test_rm_rf(fx->dir);
	test_rm_rf(fx->other);
	free(fx);
	return 0;
}

static SSL_CTX *test_ctx(const char *dir, const char *name, bool server)
{
	struct error err;
	SSL_CTX *ctx = tls_ctx_new(dir, name, server, &err);

	if (ctx == NULL)
		fail_msg("tls_ctx_new(%s, %s): %s", dir, name, err.msg);
	return ctx;
}

/* Step one side of the handshake; false once that side has finished or failed. */
static bool test_step(SSL *ssl, bool *ok, bool *failed, char *reason, size_t len)
{
	int r, e;

	if (*ok || *failed)
		return false;
	r = SSL_do_handshake(ssl);
	if (r == 1) {
		*ok = true;
		return true;
	}
	e = SSL_get_error(ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return true;
	*failed = true;
	/* Both sides share this thread's error queue: read it before the other side runs. */
	tls_failure_reason(ssl, reason, len);
	return true;
}

/*
 * Run a handshake between two contexts over a BIO pair. In TLS 1.3 the client
 * finishes before the server has checked its certificate, so "client_ok" alone
 * does not mean the server accepted it.
 */
static void test_handshake(SSL_CTX *sctx, SSL_CTX *cctx, struct tls_result *res)
{
	SSL *s = SSL_new(sctx), *c = SSL_new(cctx);
	BIO *sb, *cb;
	int i;

	memset(res, 0, sizeof(*res));
	assert_non_null(s);
	assert_non_null(c);
	assert_int_equal(BIO_new_bio_pair(&sb, 0, &cb, 0), 1);
	SSL_set_bio(s, sb, sb);
	SSL_set_bio(c, cb, cb);
	SSL_set_accept_state(s);
	SSL_set_connect_state(c);
	ERR_clear_error();

	for (i = 0; i < 100; i++) {
		bool cs = test_step(c, &res->client_ok, &res->client_failed, res->client_reason,
		                    sizeof(res->client_reason));
		bool ss = test_step(s, &res->server_ok, &res->server_failed, res->server_reason,
		                    sizeof(res->server_reason));

		if (res->server_failed || res->client_failed || (res->server_ok && res->client_ok))
			break;
		if (!cs && !ss)
			break;
	}
	if (res->client_failed && !res->server_failed && !res->server_ok)
		/* Let the server read the client's alert, as it would on a socket. */
		test_step(s, &res->server_ok, &res->server_failed, res->server_reason,
		          sizeof(res->server_reason));
	res->server_peer_rc = tls_peer_name(s, res->server_peer, sizeof(res->server_peer));
	res->client_peer_rc = tls_peer_name(c, res->client_peer, sizeof(res->client_peer));
	res->version = SSL_version(c);
	ERR_clear_error();
	SSL_free(s);
	SSL_free(c);
}

static void test_files_and_modes(void **state)
{
	struct tls_fixture *fx = *state;
	static const char *const keys[] = {"ca.key", "coordinator.key", "agent1.key",
	                                   "agent-2.rack_b.key"};
	static const char *const crts[] = {"ca.crt", "coordinator.crt", "agent1.crt",
	                                   "agent-2.rack_b.crt"};
	struct stat st;
	size_t i;

	assert_int_equal(stat(fx->dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_int_equal(test_mode(fx->dir, keys[i]), 0600);
	for (i = 0; i < sizeof(crts) / sizeof(crts[0]); i++)
		assert_int_equal(test_mode(fx->dir, crts[i]), 0644);
}

static void test_cert_contents(void **state)
{
	struct tls_fixture *fx = *state;
	X509 *ca = test_load_cert(fx->dir, "ca.crt");
	X509 *co = test_load_cert(fx->dir, "coordinator.crt");
	X509 *ag = test_load_cert(fx->dir, "agent1.crt");
	X509 *ag2 = test_load_cert(fx->dir, "agent-2.rack_b.crt");
	char cn[128];
	int days, secs;

	assert_int_equal(X509_get_version(ca), X509_VERSION_3);
	assert_int_equal(X509_check_ca(ca), 1);
	assert_true(X509_get_extension_flags(ca) & EXFLAG_CA);
	assert_true(X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
	assert_true(X509_get_key_usage(ca) & KU_CRL_SIGN);
	assert_non_null(X509_get0_subject_key_id(ca));
	X509_NAME_get_text_by_NID(X509_get_subject_name(ca), NID_commonName, cn, sizeof(cn));
	assert_string_equal(cn, "iocurve CA");
	assert_int_equal(X509_get_signature_nid(ca), NID_ecdsa_with_SHA256);
	assert_int_equal(EVP_PKEY_get_base_id(X509_get0_pubkey(ca)), EVP_PKEY_EC);
	assert_int_equal(
	    ASN1_TIME_diff(&days, &secs, X509_get0_notBefore(ca), X509_get0_notAfter(ca)), 1);
	assert_true(days >= 3650 && days <= 3652);

	assert_int_equal(X509_check_ca(co), 0);
	assert_int_equal(X509_get_extended_key_usage(co), XKU_SSL_SERVER);
	assert_true(X509_get_key_usage(co) & KU_DIGITAL_SIGNATURE);
	assert_non_null(X509_get0_authority_key_id(co));
	assert_int_equal(
	    ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(co), X509_get0_subject_key_id(ca)), 0);
	assert_int_equal(X509_check_host(co, "localhost", 0, 0, NULL), 1);
	assert_int_equal(X509_check_ip_asc(co, "127.0.0.1", 0), 1);
	X509_NAME_get_text_by_NID(X509_get_subject_name(co), NID_commonName, cn, sizeof(cn));
	assert_string_equal(cn, "coordinator");
	assert_int_equal(X509_check_issued(ca, co), X509_V_OK);

	assert_int_equal(X509_check_ca(ag), 0);
	assert_int_equal(X509_get_extended_key_usage(ag), XKU_SSL_CLIENT);
	X509_NAME_get_text_by_NID(X509_get_subject_name(ag), NID_commonName, cn, sizeof(cn));
	assert_string_equal(cn, "agent1");
	assert_int_equal(X509_check_issued(ca, ag), X509_V_OK);

	/* Random 128-bit serials: two certificates never share one. */
	assert_int_not_equal(
	    ASN1_INTEGER_cmp(X509_get0_serialNumber(ag), X509_get0_serialNumber(ag2)), 0);
	assert_true(X509_get0_serialNumber(ag)->length >= 8);
	assert_true(X509_get0_serialNumber(ag)->length <= 17);

	X509_free(ca);
	X509_free(co);
	X509_free(ag);
	X509_free(ag2);
}

static void test_init_refuses_existing_ca(void **state)
{
	struct tls_fixture *fx = *state;
	struct error err;
	char *key = test_path(fx->dir, "ca.key");
	char *tmp = xasprintf("%s.XXXXXX", fx->other);
	char *crt;

	assert_int_equal(certs_init(fx->dir, &err), -1);
	assert_non_null(strstr(err.msg, key));
	assert_non_null(strstr(err.msg, "already exists"));

	/* A copy for an agent's machine has ca.crt but no ca.key: still refused. */
	assert_non_null(mkdtemp(tmp));
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	crt = test_path(tmp, "ca.crt");
	assert_int_equal(certs_init(tmp, &err), -1);
	assert_non_null(strstr(err.msg, crt));
	assert_false(test_exists(tmp, "ca.key"));
	assert_false(test_exists(tmp, "coordinator.crt"));
	test_rm_rf(tmp);
	free(crt);
	free(tmp);
	free(key);
}

static void test_issue_refuses_overwrite(void **state)
{
	struct tls_fixture *fx = *state;
	struct error err;
	char *crt = test_path(fx->dir, "agent1.crt");
	char *before = NULL, *after = NULL;
	X509 *x;

	x = test_load_cert(fx->dir, "agent1.crt");
	before = i2s_ASN1_INTEGER(NULL, X509_get0_serialNumber(x));
	X509_free(x);
	assert_int_equal(certs_issue_agent(fx->dir, "agent1", &err), -1);
	assert_non_null(strstr(err.msg, crt));
	x = test_load_cert(fx->dir, "agent1.crt");
	after = i2s_ASN1_INTEGER(NULL, X509_get0_serialNumber(x));
	X509_free(x);
	assert_string_equal(before, after);
	OPENSSL_free(before);
	OPENSSL_free(after);
	free(crt);
}

static void test_issue_needs_ca_key(void **state)
{
	struct tls_fixture *fx = *state;
	struct error err;
	char *tmp = xasprintf("%s.XXXXXX", fx->other);
	char *key;

	assert_non_null(mkdtemp(tmp));
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	key = test_path(tmp, "ca.key");
	assert_int_equal(certs_issue_agent(tmp, "agent9", &err), -1);
	assert_non_null(strstr(err.msg, key));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	assert_non_null(strstr(err.msg, "where the CA key is"));
	assert_false(test_exists(tmp, "agent9.crt"));
	assert_false(test_exists(tmp, "agent9.key"));
	test_rm_rf(tmp);
	free(key);
	free(tmp);
}

static void test_names(void **state)
{
	struct tls_fixture *fx = *state;
	static const char *const bad[] = {
	    "",    ".hidden",
	    "ca",  "coordinator",
	    "a/b", "../x",
	    "a b", "name\n",
	    "é",   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 65 */
	};
	static const char *const good[] = {
	    "a",
	    "agent1",
	    "host-01.rack_b",
	    "A.B-C_d",
	    "-dash",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", /* 64 */
	};
	struct error err;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_false(certs_name_valid(bad[i]));
		assert_int_equal(certs_issue_agent(fx->dir, bad[i], &err), -1);
		assert_non_null(strstr(err.msg, "invalid agent name"));
	}
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(certs_name_valid(good[i]));
	/* The CA's and coordinator's files are untouched by the refused names. */
	assert_int_equal(test_mode(fx->dir, "ca.key"), 0600);
	assert_int_equal(test_mode(fx->dir, "coordinator.key"), 0600);
}

static void test_handshake_ok(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL_CTX *cctx = test_ctx(fx->dir, "agent-2.rack_b", false);
	struct tls_result r;

	test_handshake(sctx, cctx, &r);
	assert_true(r.server_ok);
	assert_true(r.client_ok);
	assert_int_equal(r.version, TLS1_3_VERSION);
	assert_int_equal(r.server_peer_rc, 0);
	assert_string_equal(r.server_peer, "agent-2.rack_b");
	assert_int_equal(r.client_peer_rc, 0);
	assert_string_equal(r.client_peer, "coordinator");
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

/* An agent certificate from another CA, from a client that trusts our CA. */
static void test_foreign_agent_cert(void **state)
{
	struct tls_fixture *fx = *state;
	char *tmp = xasprintf("%s.XXXXXX", fx->other);
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL_CTX *cctx;
	struct tls_result r;

	assert_non_null(mkdtemp(tmp));
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	test_copy(fx->other, "agent1.crt", tmp, "agent1.crt");
	test_copy(fx->other, "agent1.key", tmp, "agent1.key");
	cctx = test_ctx(tmp, "agent1", false);

	test_handshake(sctx, cctx, &r);
	assert_true(r.server_failed);
	assert_false(r.server_ok);
	assert_non_null(strstr(r.server_reason, "certificate verify failed"));
	assert_non_null(strstr(r.server_reason, X509_verify_cert_error_string(
	                                            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY)));
	assert_int_equal(r.server_peer_rc, -1);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
	test_rm_rf(tmp);
	free(tmp);
}

/* An agent set up entirely from another CA rejects our coordinator first. */
static void test_foreign_ca(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL_CTX *cctx = test_ctx(fx->other, "agent1", false);
	struct tls_result r;

	test_handshake(sctx, cctx, &r);
	assert_true(r.client_failed);
	assert_non_null(strstr(r.client_reason, "certificate verify failed"));
	assert_true(r.server_failed);
	assert_false(r.server_ok);
	assert_int_equal(r.server_peer_rc, -1);
	assert_int_equal(r.client_peer_rc, -1);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

static void test_client_without_cert(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL_CTX *cctx = SSL_CTX_new(TLS_method());
	struct tls_result r;

	assert_non_null(cctx);
	test_handshake(sctx, cctx, &r);
	assert_true(r.server_failed);
	assert_false(r.server_ok);
	assert_non_null(strstr(r.server_reason, "peer did not return a certificate"));
	assert_int_equal(r.server_peer_rc, -1);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

/* An agent's certificate has clientAuth only: it cannot pose as the coordinator. */
static void test_agent_posing_as_coordinator(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "agent1", true);
	SSL_CTX *cctx = test_ctx(fx->dir, "agent-2.rack_b", false);
	struct tls_result r;

	test_handshake(sctx, cctx, &r);
	assert_true(r.client_failed);
	assert_false(r.client_ok);
	assert_non_null(strstr(r.client_reason, "certificate verify failed"));
	assert_non_null(
	    strstr(r.client_reason, X509_verify_cert_error_string(X509_V_ERR_INVALID_PURPOSE)));
	assert_int_equal(r.client_peer_rc, -1);
	assert_false(r.server_ok);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

/* And the coordinator's has serverAuth only: it cannot pose as an agent. */
static void test_coordinator_posing_as_agent(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL_CTX *cctx = test_ctx(fx->dir, "coordinator", false);
	struct tls_result r;

	test_handshake(sctx, cctx, &r);
	assert_true(r.server_failed);
	assert_false(r.server_ok);
	assert_non_null(strstr(r.server_reason, "certificate verify failed"));
	assert_non_null(
	    strstr(r.server_reason, X509_verify_cert_error_string(X509_V_ERR_INVALID_PURPOSE)));
	assert_int_equal(r.server_peer_rc, -1);
	SSL_CTX_free(sctx);
	SSL_CTX_free(cctx);
}

/* Plain text where a ClientHello belongs, as a plain-TCP client would send. */
static void test_plaintext_client(void **state)
{
	struct tls_fixture *fx = *state;
	SSL_CTX *sctx = test_ctx(fx->dir, "coordinator", true);
	SSL *s = SSL_new(sctx);
	BIO *sb, *cb;
	static const char req[] = "GET / HTTP/1.0\r\n\r\n";
	char reason[256];
	int r;

	assert_int_equal(BIO_new_bio_pair(&sb, 0, &cb, 0), 1);
	SSL_set_bio(s, sb, sb);
	SSL_set_accept_state(s);
	assert_int_equal(BIO_write(cb, req, sizeof(req) - 1), (int)sizeof(req) - 1);
	ERR_clear_error();
	r = SSL_do_handshake(s);
	assert_true(r <= 0);
	assert_int_equal(SSL_get_error(s, r), SSL_ERROR_SSL);
	tls_failure_reason(s, reason, sizeof(reason));
	assert_true(strstr(reason, "wrong version number") != NULL ||
	            strstr(reason, "http request") != NULL);
	/* The queue is drained: a second call has nothing left to say. */
	assert_int_equal(ERR_peek_error(), 0);
	tls_failure_reason(s, reason, sizeof(reason));
	assert_string_equal(reason, "connection closed during handshake");
	SSL_free(s);
	BIO_free(cb);
	SSL_CTX_free(sctx);
}

static void test_ctx_missing_files(void **state)
{
	struct tls_fixture *fx = *state;
	char *tmp = xasprintf("%s.XXXXXX", fx->other);
	struct error err;
	char *want;

	assert_null(tls_ctx_new(fx->dir, "nobody", false, &err));
	want = xasprintf("%s/nobody.crt: cannot load certificate: No such file or directory "
	                 "(make the agent's certificate with `iocurve certs agent DIR NAME` in the "
	                 "coordinator's directory and copy NAME.crt, NAME.key and ca.crt here)",
	                 fx->dir);
	assert_string_equal(err.msg, want);
	free(want);
	/* The coordinator's missing pair points at `certs init`. */
	assert_null(tls_ctx_new("/nonexistent-iocurve-certs", "coordinator", true, &err));
	assert_non_null(strstr(err.msg, "(make the directory with `iocurve certs init DIR`)"));

	/* A machine given the agent's pair but not ca.crt. */
	assert_non_null(mkdtemp(tmp));
	test_copy(fx->dir, "agent1.crt", tmp, "agent1.crt");
	test_copy(fx->dir, "agent1.key", tmp, "agent1.key");
	assert_null(tls_ctx_new(tmp, "agent1", false, &err));
	want = xasprintf("%s/ca.crt: cannot load CA certificate: No such file or directory", tmp);
	assert_non_null(strstr(err.msg, want));
	free(want);

	/* An agent's context knows its own name (the agent checks it against --name). */
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	test_copy(fx->dir, "agent1.crt", tmp, "agent9.crt");
	test_copy(fx->dir, "agent1.key", tmp, "agent9.key");
	{
		SSL_CTX *ctx = tls_ctx_new(tmp, "agent9", false, &err);
		char cn[64];

		assert_non_null(ctx);
		assert_int_equal(tls_ctx_name(ctx, cn, sizeof(cn)), 0);
		assert_string_equal(cn, "agent1");
		assert_int_equal(tls_ctx_name(ctx, cn, 3), -1); /* does not fit */
		SSL_CTX_free(ctx);
	}
	want = test_path(tmp, "ca.crt");
	assert_int_equal(unlink(want), 0);
	free(want);

	/* The key of another agent: the pair does not match. */
	want = test_path(tmp, "agent1.key");
	assert_int_equal(unlink(want), 0);
	test_copy(fx->dir, "agent-2.rack_b.key", tmp, "agent1.key");
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	assert_null(tls_ctx_new(tmp, "agent1", false, &err));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "does not match"));
	free(want);

	/* Garbage where the certificate belongs. */
	want = test_path(tmp, "agent1.crt");
	assert_int_equal(unlink(want), 0);
	test_copy(fx->dir, "agent1.key", tmp, "agent1.crt");
	assert_null(tls_ctx_new(tmp, "agent1", false, &err));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "cannot load certificate"));
	assert_int_equal(ERR_peek_error(), 0);
	free(want);

	test_rm_rf(tmp);
	free(tmp);
}

/* tls_ctx_new(DIR, NAME) with NAME.key at MODE: NULL and err when refused. */
static SSL_CTX *test_ctx_key_mode(const char *dir, const char *name, mode_t mode, struct error *err)
{
	char *key = xasprintf("%s/%s.key", dir, name);
	SSL_CTX *ctx;

	assert_int_equal(chmod(key, mode), 0);
	ctx = tls_ctx_new(dir, name, false, err);
	free(key);
	return ctx;
}

/*
 * A private key others may read is refused by name and mode, before any handshake:
 * serve and the agent both load theirs here. Root may share one with a group only
 * (a Kubernetes Secret volume under fsGroup is root's, 0440).
 */
static void test_key_modes(void **state)
{
	struct tls_fixture *fx = *state;
	char *tmp = xasprintf("%s.XXXXXX", fx->other);
	static const mode_t refused[] = {0644, 0604, 0666, 0660, 0620};
	static const mode_t taken[] = {0600, 0400};
	struct error err;
	SSL_CTX *ctx;
	char *want;

	assert_non_null(mkdtemp(tmp));
	test_copy(fx->dir, "ca.crt", tmp, "ca.crt");
	test_copy(fx->dir, "agent1.crt", tmp, "agent1.crt");
	test_copy(fx->dir, "agent1.key", tmp, "agent1.key");
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_null(test_ctx_key_mode(tmp, "agent1", refused[i], &err));
		want = xasprintf("%s/agent1.key: private key is readable by others (mode %04o", tmp,
		                 (unsigned)refused[i]);
		if (strstr(err.msg, want) == NULL)
			fail_msg("mode %04o: %s", (unsigned)refused[i], err.msg);
		free(want);
		assert_int_equal(ERR_peek_error(), 0);
	}
	for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
		ctx = test_ctx_key_mode(tmp, "agent1", taken[i], &err);
		if (ctx == NULL)
			fail_msg("mode %04o: %s", (unsigned)taken[i], err.msg);
		SSL_CTX_free(ctx);
	}
	/* Group-readable: root's file only (here the file is the test's own). */
	ctx = test_ctx_key_mode(tmp, "agent1", 0440, &err);
	if (geteuid() == 0)
		assert_non_null(ctx);
	else
		assert_null(ctx);
	SSL_CTX_free(ctx);
	/* The coordinator's key, as serve loads it. */
	want = test_path(fx->dir, "coordinator.key");
	assert_int_equal(chmod(want, 0644), 0);
	assert_null(tls_ctx_new(fx->dir, "coordinator", true, &err));
	assert_non_null(strstr(err.msg, want));
	assert_non_null(strstr(err.msg, "mode 0644"));
	assert_int_equal(chmod(want, 0600), 0);
	free(want);
	test_rm_rf(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_files_and_modes),
	    cmocka_unit_test(test_cert_contents),
	    cmocka_unit_test(test_init_refuses_existing_ca),
	    cmocka_unit_test(test_issue_refuses_overwrite),
	    cmocka_unit_test(test_issue_needs_ca_key),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_handshake_ok),
	    cmocka_unit_test(test_foreign_agent_cert),
	    cmocka_unit_test(test_foreign_ca),
	    cmocka_unit_test(test_client_without_cert),
	    cmocka_unit_test(test_agent_posing_as_coordinator),
	    cmocka_unit_test(test_coordinator_posing_as_agent),
	    cmocka_unit_test(test_plaintext_client),
	    cmocka_unit_test(test_ctx_missing_files),
	    cmocka_unit_test(test_key_modes),
	};

	return cmocka_run_group_tests(tests, test_setup, test_teardown);
}
