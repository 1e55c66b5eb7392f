/* SPDX-License-Identifier: MIT */
/* One-shot bounded HTTP/1.1 GETs on bufferevents, plain or over OpenSSL (httpclient.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/bufferevent_ssl.h>
#include <event2/util.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "clock.h"
#include "httpclient.h"
#include "xalloc.h"

struct httpc {
	struct bufferevent *bev;
	struct event *deadline;
	httpc_cb cb;
	void *arg;
	size_t max_bytes;
	uint64_t timeout_ns;
	uint64_t first_ns;
	bool head_checked;        /* the status line and headers are in and were acceptable */
	size_t head_len;          /* bytes of the status line and headers, blank line included */
	long long content_length; /* -1: none given */
	bool chunked;
	char host[256];
};

static void httpc_free(struct httpc *h)
{
	if (h->deadline != NULL)
		event_free(h->deadline);
	if (h->bev != NULL)
		bufferevent_free(h->bev);
	free(h);
}

void httpc_cancel(struct httpc *h)
{
	if (h != NULL)
		httpc_free(h);
}

/* The end, one way or the other: the callback once, then everything goes. */
static void httpc_finish(struct httpc *h, int status, const char *body, size_t len, const char *why)
{
	struct httpc_result res = {
	    .status = status, .body = body, .len = len, .why = why, .first_ns = h->first_ns};
	httpc_cb cb = h->cb;
	void *arg = h->arg;

	/* freed first: the callback may start the next request on the same loop */
	bufferevent_disable(h->bev, EV_READ | EV_WRITE);
	cb(&res, arg);
	httpc_free(h);
}

static void httpc_fail(struct httpc *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void httpc_fail(struct httpc *h, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	httpc_finish(h, 0, NULL, 0, why);
}

static void httpc_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct httpc *h = arg;

	httpc_fail(h, "no answer within %llu ms%s", (unsigned long long)(h->timeout_ns / 1000000),
	           h->first_ns ? " (it came too slowly)" : "");
}

bool httpc_unchunk(char *buf, size_t *len)
{
	size_t in = 0, out = 0, n = *len;

	for (;;) {
		unsigned long long size = 0;
		size_t digits = 0;

		while (in < n && digits < 16) {
			char c = buf[in];
			int d = c >= '0' && c <= '9'   ? c - '0'
			        : c >= 'a' && c <= 'f' ? c - 'a' + 10
			        : c >= 'A' && c <= 'F' ? c - 'A' + 10
			                               : -1;
			if (d < 0)
				break;
			size = size * 16 + (unsigned)d;
			digits++;
			in++;
		}
		if (digits == 0 || digits == 16)
			return false;
		/* chunk extensions up to the line's end */
		while (in < n && buf[in] != '\n')
			in++;
		if (in >= n)
			return false;
		in++;
		if (size == 0)
			break;
		if (size > n - in)
			return false;
		memmove(buf + out, buf + in, (size_t)size);
		out += (size_t)size;
		in += (size_t)size;
		if (in < n && buf[in] == '\r')
			in++;
		if (in >= n || buf[in] != '\n')
			return false;
		in++;
	}
	*len = out;
	buf[out] = '\0';
	return true;
}

/* The value of header name in head (a NUL-terminated block of lines), into out. */
static bool httpc_header(const char *head, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);

	for (const char *p = strchr(head, '\n'); p != NULL; p = strchr(p, '\n')) {
		const char *e;

		p++;
		if (strncasecmp(p, name, n) != 0 || p[n] != ':')
			continue;
		p += n + 1;
		while (*p == ' ' || *p == '\t')
			p++;
		e = p;
		while (*e != '\0' && *e != '\r' && *e != '\n')
			e++;
		snprintf(out, len, "%.*s", (int)(e - p), p);
		return true;
	}
	return false;
}

/*
 * The status line and headers, once all in: 0 to go on reading, -1 when the
 * request ended (refused: the callback ran).
 */
static int httpc_head(struct httpc *h, struct evbuffer *in)
{
	struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	char *head, value[512];
	int status = 0;

	if (end.pos < 0) {
		if (evbuffer_get_length(in) > HTTPC_HEADERS_MAX) {
			httpc_fail(h, "headers over %u bytes: refused", HTTPC_HEADERS_MAX);
			return -1;
		}
		return 0;
	}
	h->head_len = (size_t)end.pos + 4;
	head = xmalloc(h->head_len + 1);
	evbuffer_copyout(in, head, h->head_len);
	head[h->head_len] = '\0';
	if (sscanf(head, "HTTP/1.%*1[01] %3d", &status) != 1 || status < 100 || status > 599) {
		free(head);
		httpc_fail(h, "not an HTTP answer");
		return -1;
	}
	if (status >= 300 && status < 400) {
		if (!httpc_header(head, "Location", value, sizeof(value)))
			snprintf(value, sizeof(value), "nowhere said");
		for (char *p = value; *p; p++)
			if ((unsigned char)*p < ' ' || *p == 0x7f)
				*p = '?';
		free(head);
		httpc_fail(h, "redirect (%d to %.200s) refused: redirects are not followed", status,
		           value);
		return -1;
	}
	if (status != 200) {
		free(head);
		httpc_fail(h, "HTTP %d", status);
		return -1;
	}
	h->content_length = -1;
	if (httpc_header(head, "Content-Length", value, sizeof(value))) {
		char *e;

		h->content_length = strtoll(value, &e, 10);
		if (e == value || *e != '\0' || h->content_length < 0) {
			free(head);
			httpc_fail(h, "a malformed Content-Length");
			return -1;
		}
		if ((unsigned long long)h->content_length > h->max_bytes) {
			free(head);
			httpc_fail(h, "answer over %zu bytes (Content-Length %lld): refused",
			           h->max_bytes, h->content_length);
			return -1;
		}
	}
	h->chunked = httpc_header(head, "Transfer-Encoding", value, sizeof(value)) &&
	             strcasecmp(value, "chunked") == 0;
	if (httpc_header(head, "Content-Encoding", value, sizeof(value)) &&
	    strcasecmp(value, "identity") != 0) {
		free(head);
		httpc_fail(h, "an encoded answer (%.40s) though none was asked", value);
		return -1;
	}
	free(head);
	h->head_checked = true;
	return 0;
}

/* The whole answer is in (the peer closed, or Content-Length is met): hand the body over. */
static void httpc_done(struct httpc *h, struct evbuffer *in)
{
	size_t len = evbuffer_get_length(in) - h->head_len;
	char *body;

	if (h->content_length >= 0 && len < (size_t)h->content_length) {
		httpc_fail(h, "the answer was cut short (%zu of %lld bytes)", len,
		           h->content_length);
		return;
	}
	if (h->content_length >= 0)
		len = (size_t)h->content_length;
	body = xmalloc(len + 1);
	evbuffer_drain(in, h->head_len);
	evbuffer_remove(in, body, len);
	body[len] = '\0';
	if (h->chunked && !httpc_unchunk(body, &len)) {
		free(body);
		httpc_fail(h, "malformed chunks in the answer");
		return;
	}
	httpc_finish(h, 200, body, len, NULL);
	free(body);
}

/*
 * A chunked body is whole once its last chunk (size 0) and the line after it are in:
 * a source that keeps its connection open never sends EOF, and its complete answer
 * read as "no answer within ..." . Only a buffer that ends as a body does is unchunked
 * (a copy) to make sure, so an answer read in many pieces is not walked at each.
 */
static bool httpc_chunks_complete(const struct httpc *h, struct evbuffer *in)
{
	size_t all = evbuffer_get_length(in), len = all - h->head_len;
	struct evbuffer_ptr p;
	char tail[5], *copy;
	bool ok;

	if (len < sizeof(tail) ||
	    evbuffer_ptr_set(in, &p, all - sizeof(tail), EVBUFFER_PTR_SET) < 0 ||
	    evbuffer_copyout_from(in, &p, tail, sizeof(tail)) != (ev_ssize_t)sizeof(tail) ||
	    memcmp(tail, "0\r\n\r\n", sizeof(tail)) != 0)
		return false;
	copy = xmalloc(len + 1);
	evbuffer_ptr_set(in, &p, h->head_len, EVBUFFER_PTR_SET);
	evbuffer_copyout_from(in, &p, copy, len);
	copy[len] = '\0';
	ok = httpc_unchunk(copy, &len);
	free(copy);
	return ok;
}

static void httpc_read_cb(struct bufferevent *bev, void *arg)
{
	struct httpc *h = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (h->first_ns == 0)
		h->first_ns = clock_now_ns();
	if (!h->head_checked && httpc_head(h, in) < 0)
		return;
	if (!h->head_checked)
		return;
	/* chunk framing is small beside the bound: 64 KiB of slack for it */
	if (evbuffer_get_length(in) - h->head_len > h->max_bytes + (h->chunked ? 65536 : 0)) {
		httpc_fail(h, "answer over %zu bytes: refused", h->max_bytes);
		return;
	}
	if ((h->content_length >= 0 &&
	     evbuffer_get_length(in) - h->head_len >= (size_t)h->content_length) ||
	    (h->chunked && httpc_chunks_complete(h, in)))
		httpc_done(h, in);
}

static void httpc_event_cb(struct bufferevent *bev, short what, void *arg)
{
	struct httpc *h = arg;
	struct evbuffer *in = bufferevent_get_input(bev);

	if (what & BEV_EVENT_CONNECTED)
		return;
	if (what & BEV_EVENT_EOF) {
		if (!h->head_checked && httpc_head(h, in) < 0)
			return;
		if (!h->head_checked) {
			httpc_fail(h, "the connection closed before an answer");
			return;
		}
		httpc_done(h, in);
		return;
	}
	if (what & BEV_EVENT_ERROR) {
		int dns = bufferevent_socket_get_dns_error(bev);
		unsigned long ssl = bufferevent_get_openssl_error(bev);
		char buf[160] = "";

		if (dns != 0)
			httpc_fail(h, "cannot resolve %s: %s", h->host, evutil_gai_strerror(dns));
		else if (ssl != 0) {
			ERR_error_string_n(ssl, buf, sizeof(buf));
			httpc_fail(h, "TLS: %s", buf);
		} else
			httpc_fail(h, "%s: %s", h->first_ns ? "read" : "connect",
			           evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
	}
}

static bool httpc_is_address(const char *host)
{
	unsigned char a[16];

	return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

struct httpc *httpc_get(struct event_base *base, struct evdns_base *dns, const struct httpc_req *rq,
                        httpc_cb cb, void *arg)
{
	struct httpc *h = xcalloc(1, sizeof(*h));
	struct timeval tv = {(time_t)(rq->timeout_ns / 1000000000ull),
	                     (suseconds_t)(rq->timeout_ns % 1000000000ull / 1000)};
	struct evbuffer *out;
	bool v6 = strchr(rq->host, ':') != NULL;

	h->cb = cb;
	h->arg = arg;
	h->max_bytes = rq->max_bytes;
	h->timeout_ns = rq->timeout_ns;
	snprintf(h->host, sizeof(h->host), "%s", rq->host);
	if (rq->ssl != NULL) {
		SSL *ssl = SSL_new(rq->ssl);

		if (ssl == NULL) {
			free(h);
			return NULL;
		}
		if (httpc_is_address(rq->host))
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), rq->host);
		else {
			SSL_set_tlsext_host_name(ssl, rq->host);
			SSL_set1_host(ssl, rq->host);
		}
		h->bev =
		    bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
		                                   BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	} else {
		h->bev = bufferevent_socket_new(base, -1,
		                                BEV_OPT_CLOSE_ON_FREE | BEV_OPT_DEFER_CALLBACKS);
	}
	if (h->bev == NULL) {
		free(h);
		return NULL;
	}
	h->deadline = evtimer_new(base, httpc_deadline_cb, h);
	evtimer_add(h->deadline, &tv);
	bufferevent_setcb(h->bev, httpc_read_cb, NULL, httpc_event_cb, h);
	bufferevent_enable(h->bev, EV_READ | EV_WRITE);
	out = bufferevent_get_output(h->bev);
	evbuffer_add_printf(out,
	                    "GET %s HTTP/1.1\r\nHost: %s%s%s:%u\r\nUser-Agent: iocurve\r\n"
	                    "Accept: text/plain, application/json\r\nConnection: close\r\n",
	                    rq->path, v6 ? "[" : "", rq->host, v6 ? "]" : "", rq->port);
	if (rq->token != NULL)
		evbuffer_add_printf(out, "Authorization: Bearer %s\r\n", rq->token);
	evbuffer_add(out, "\r\n", 2);
	if (bufferevent_socket_connect_hostname(h->bev, dns, AF_UNSPEC, rq->host, rq->port) < 0) {
		/* the error event has run or will: it names the cause */
	}
	return h;
}
