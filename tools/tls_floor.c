/* SPDX-License-Identifier: MIT */
/*
 * iocurve-tls-floor: the least a coordinator can spend per report, for tools/bench-fanin.
 *
 * One server process and one client process (forked) hold N TLS 1.3 connections over
 * loopback, set up as iocurve's (common/tls.c: TLS 1.3 only, read-ahead, buffers released
 * while idle). Every second each client connection sends one record of --size bytes (a
 * report) and the server sends each connection one record of --beat bytes (a heartbeat):
 * what iocurve's agent port carries in a step, with no framing, decoding or merging. The
 * server is a plain epoll loop with blocking handshakes first. It prints its own CPU over
 * the measured seconds per record read, the floor iocurve's us/report is set against.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct floor_opts {
	int conns, seconds, warmup;
	size_t size, beat;
};

static void floor_die(const char *what)
{
	fprintf(stderr, "iocurve-tls-floor: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

static double floor_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double floor_cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* A self-signed P-256 certificate, made in memory: no files, nothing to clean up. */
static void floor_cert(EVP_PKEY **key, X509 **cert)
{
	X509_NAME *name;

	*key = EVP_EC_gen("P-256");
	*cert = X509_new();
	if (*key == NULL || *cert == NULL)
		floor_die("key");
	ASN1_INTEGER_set(X509_get_serialNumber(*cert), 1);
	X509_gmtime_adj(X509_getm_notBefore(*cert), -60);
	X509_gmtime_adj(X509_getm_notAfter(*cert), 3600);
	X509_set_pubkey(*cert, *key);
	name = X509_get_subject_name(*cert);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"floor", -1, -1,
	                           0);
	X509_set_issuer_name(*cert, name);
	if (X509_sign(*cert, *key, EVP_sha256()) == 0)
		floor_die("sign");
}

static SSL_CTX *floor_ctx(bool server, EVP_PKEY *key, X509 *cert)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());

	if (ctx == NULL || SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) != 1)
		floor_die("context");
	if (SSL_CTX_use_certificate(ctx, cert) != 1 || SSL_CTX_use_PrivateKey(ctx, key) != 1)
		floor_die("certificate");
	if (server)
		SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_read_ahead(ctx, 1);
	return ctx;
}

static void floor_nonblock_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
		floor_die("fcntl");
}

/* Reads every record waiting on one connection; returns the bytes read. */
static size_t floor_drain(SSL *s, char *buf, size_t len)
{
	size_t got = 0;
	int n;

	while ((n = SSL_read(s, buf, (int)len)) > 0)
		got += (size_t)n;
	if (SSL_get_error(s, n) != SSL_ERROR_WANT_READ)
		floor_die("read");
	return got;
}

/* Writes one record; a full socket buffer is a failure here (one record a second). */
static void floor_send(SSL *s, const char *buf, size_t len)
{
	if (SSL_write(s, buf, (int)len) != (int)len)
		floor_die("write");
}

/* A connected socket's TLS session, its handshake done (blocking), then made non-blocking
 * and watched on ep as connection i. */
static SSL *floor_join(SSL_CTX *ctx, int fd, bool server, int ep, uint32_t i)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = i};
	SSL *s = SSL_new(ctx);

	if (s == NULL || SSL_set_fd(s, fd) != 1 || (server ? SSL_accept(s) : SSL_connect(s)) != 1)
		floor_die(server ? "handshake (server)" : "handshake (client)");
	floor_nonblock_nodelay(fd);
	if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
		floor_die("epoll_ctl");
	return s;
}

/*
 * One pass of either side's loop: what arrived read, and once *next is due, one record
 * of len bytes to every connection, *next a second later. Returns the bytes read.
 */
static size_t floor_pass(int ep, SSL **ss, int n, double *next, const char *rec, size_t len)
{
	struct epoll_event evs[256];
	char buf[16384];
	int ms = (int)((*next - floor_now()) * 1000), ready;
	size_t got = 0;

	ready = epoll_wait(ep, evs, 256, ms < 0 ? 0 : ms);
	for (int i = 0; i < ready; i++)
		got += floor_drain(ss[evs[i].data.u32], buf, sizeof(buf));
	if (floor_now() >= *next) {
		for (int i = 0; i < n; i++)
			floor_send(ss[i], rec, len);
		*next += 1.0;
	}
	return got;
}

/* The client: N connections, one record each a second, all at each second's start. */
static void floor_client(const struct floor_opts *o, int port, SSL_CTX *ctx)
{
	struct sockaddr_in sa = {.sin_family = AF_INET,
	                         .sin_port = htons((uint16_t)port),
	                         .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	SSL **ss = calloc((size_t)o->conns, sizeof(*ss));
	char *rep = calloc(1, o->size);
	int ep = epoll_create1(0);
	double next, end;

	if (ss == NULL || rep == NULL || ep < 0)
		floor_die("client memory");
	for (int i = 0; i < o->conns; i++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
			floor_die("connect");
		ss[i] = floor_join(ctx, fd, false, ep, (uint32_t)i);
	}
	next = floor_now();
	end = next + o->warmup + o->seconds + 2;
	while (floor_now() < end)
		floor_pass(ep, ss, o->conns, &next, rep, o->size);
	exit(0);
}

/* The server: accept N, then read what comes and send each a heartbeat a second. */
static void floor_server(const struct floor_opts *o, int lfd, SSL_CTX *ctx, pid_t child)
{
	SSL **ss = calloc((size_t)o->conns, sizeof(*ss));
	char *beat = calloc(1, o->beat);
	int ep = epoll_create1(0);
	double start, tick, m0 = 0, cpu0 = 0;
	size_t got = 0, got0 = 0;
	int status;

	if (ss == NULL || beat == NULL || ep < 0)
		floor_die("server memory");
	for (int i = 0; i < o->conns; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0)
			floor_die("accept");
		ss[i] = floor_join(ctx, fd, true, ep, (uint32_t)i);
	}
	start = floor_now();
	tick = start + 0.5;
	while (floor_now() < start + o->warmup + o->seconds) {
		if (m0 == 0 && floor_now() >= start + o->warmup) {
			m0 = floor_now();
			cpu0 = floor_cpu_s();
			got0 = got;
		}
		got += floor_pass(ep, ss, o->conns, &tick, beat, o->beat);
	}
	{
		double cpu = floor_cpu_s() - cpu0, span = floor_now() - m0;
		double reports = (double)(got - got0) / (double)o->size;

		printf("conns %d seconds %.1f reports %.0f cpu_pct %.2f us_per_report %.2f\n",
		       o->conns, span, reports, 100.0 * cpu / span,
		       reports > 0 ? cpu * 1e6 / reports : 0);
	}
	kill(child, SIGTERM);
	waitpid(child, &status, 0);
}

int main(int argc, char **argv)
{
	struct floor_opts o = {.conns = 1000, .seconds = 10, .warmup = 2, .size = 1881, .beat = 24};
	struct option longs[] = {
	    {"conns", required_argument, NULL, 'n'},  {"seconds", required_argument, NULL, 's'},
	    {"warmup", required_argument, NULL, 'w'}, {"size", required_argument, NULL, 'b'},
	    {"beat", required_argument, NULL, 'h'},   {NULL, 0, NULL, 0}};
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	struct rlimit rl;
	EVP_PKEY *key;
	X509 *cert;
	int c, lfd;
	pid_t child;

	while ((c = getopt_long(argc, argv, "", longs, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.conns = atoi(optarg);
			break;
		case 's':
			o.seconds = atoi(optarg);
			break;
		case 'w':
			o.warmup = atoi(optarg);
			break;
		case 'b':
			o.size = (size_t)atol(optarg);
			break;
		case 'h':
			o.beat = (size_t)atol(optarg);
			break;
		default:
			fprintf(stderr, "usage: iocurve-tls-floor [--conns N] [--seconds S] "
			                "[--warmup S] [--size B] [--beat B]\n");
			return 2;
		}
	}
	if (o.conns < 1 || o.seconds < 1 || o.warmup < 0 || o.size < 1 || o.size > 16384 ||
	    o.beat < 1 || o.beat > 16384) {
		fprintf(stderr,
		        "iocurve-tls-floor: --conns, --seconds >= 1; --size, --beat 1-16384\n");
		return 2;
	}
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	signal(SIGPIPE, SIG_IGN);
	floor_cert(&key, &cert);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 4096) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		floor_die("listen");
	child = fork();
	if (child < 0)
		floor_die("fork");
	if (child == 0) {
		close(lfd);
		floor_client(&o, ntohs(sa.sin_port), floor_ctx(false, key, cert));
	}
	floor_server(&o, lfd, floor_ctx(true, key, cert), child);
	return 0;
}
