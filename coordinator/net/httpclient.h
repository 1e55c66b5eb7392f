/* SPDX-License-Identifier: MIT */
/*
 * One-shot HTTP/1.1 GETs to sources nobody vouches for (observe:'s exporters and
 * Prometheus servers): a deadline for the whole exchange from the first byte of
 * the connection to the last of the answer, however slowly its bytes come; an
 * answer over max_bytes refused as soon as it passes; a redirect refused, not
 * followed (it would send the token elsewhere); https through OpenSSL with the
 * host's name checked against its certificate; a bearer token sent, never logged.
 * The callback runs exactly once, unless the request is cancelled first.
 */
#ifndef IOCURVE_HTTPCLIENT_H
#define IOCURVE_HTTPCLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/dns.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#define HTTPC_HEADERS_MAX (64u << 10)

struct httpc_req {
	const char *host; /* a name or an address (IPv6 without brackets) */
	uint16_t port;
	const char *path;  /* from '/', query included */
	SSL_CTX *ssl;      /* NULL: plain http */
	const char *token; /* NULL: no Authorization header */
	uint64_t timeout_ns;
	size_t max_bytes; /* of the body */
};

/*
 * The outcome: status 200 with the body (NUL-terminated, len bytes, any bytes in it),
 * or status 0 and why ("no answer within 500 ms", "connect: Connection refused",
 * "answer over 4194304 bytes: refused", "redirect (302 to http://x/) refused", "HTTP
 * 500"). first_ns: when the answer's first byte came (clock_now_ns), 0: none.
 */
struct httpc_result {
	int status;
	const char *body;
	size_t len;
	const char *why;
	uint64_t first_ns;
};
typedef void (*httpc_cb)(const struct httpc_result *res, void *arg);

struct httpc;

/* Start a GET; dns resolves names (NULL: only numeric hosts). */
struct httpc *httpc_get(struct event_base *base, struct evdns_base *dns, const struct httpc_req *rq,
                        httpc_cb cb, void *arg);
/* Stop it without its callback. */
void httpc_cancel(struct httpc *h);

/*
 * The body of a chunked answer, decoded in place over buf[0..*len): false when the
 * chunks are malformed or cut short.
 */
bool httpc_unchunk(char *buf, size_t *len);

#endif
