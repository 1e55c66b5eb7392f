/* SPDX-License-Identifier: MIT */
/* One-shot HTTP GETs from clients nobody vouches for: deadline, cap, per-source eviction. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <event2/util.h>

#include "fdbudget.h"
#include "httpget.h"
#include "listenpause.h"
#include "log.h"
#include "netaddr.h"
#include "xalloc.h"

#define HTTPGET_CONNS_SHARE 8
#define HTTPGET_LOG_NS      10000000000ull

struct httpget_conn {
	struct httpget *h;
	struct bufferevent *bev;
	struct event *deadline_ev; /* absolute: bytes do not move it */
	char host[64];             /* the source address, without the port */
	bool answering;            /* the request is in: the answer drains, then close */
};

struct httpget {
	struct event_base *base;
	struct evconnlistener *listener;
	struct listenpause *pause;
	char what[32];
	char content_type[64];
	httpget_cb cb;
	void *arg;
	struct httpget_conn **conns; /* oldest first */
	size_t nconns;
	unsigned long long dropped;
};

static void httpget_conn_free(struct httpget_conn *hc)
{
	struct httpget *h = hc->h;

	for (size_t i = 0; i < h->nconns; i++)
		if (h->conns[i] == hc) {
			memmove(&h->conns[i], &h->conns[i + 1],
			        (h->nconns - i - 1) * sizeof(*h->conns));
			h->nconns--;
			break;
		}
	event_free(hc->deadline_ev);
	bufferevent_free(hc->bev); /* closes the socket */
	free(hc);
}

static void httpget_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	httpget_conn_free(arg);
}

static void httpget_arm(struct httpget_conn *hc)
{
	struct timeval tv = {HTTPGET_SECONDS, 0};

	evtimer_add(hc->deadline_ev, &tv);
}

/* The answer is out (or the peer went): the connection ends. */
static void httpget_written_cb(struct bufferevent *bev, void *arg)
{
	httpget_conn_free(arg);
}

static void httpget_event_cb(struct bufferevent *bev, short what, void *arg)
{
	httpget_conn_free(arg);
}

static void httpget_answer(struct httpget_conn *hc, int status, const char *reason,
                           const char *type, struct evbuffer *body, bool head)
{
	struct evbuffer *out = bufferevent_get_output(hc->bev);

	evbuffer_add_printf(out,
	                    "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
	                    "Connection: close\r\n\r\n",
	                    status, reason, type, body ? evbuffer_get_length(body) : 0);
	if (body != NULL && !head)
		evbuffer_add_buffer(out, body);
	hc->answering = true;
	bufferevent_disable(hc->bev, EV_READ);
	bufferevent_setcb(hc->bev, NULL, httpget_written_cb, httpget_event_cb, hc);
	httpget_arm(hc); /* the answer gets its own HTTPGET_SECONDS to drain */
}

static void httpget_read_cb(struct bufferevent *bev, void *arg)
{
	struct httpget_conn *hc = arg;
	struct httpget *h = hc->h;
	struct evbuffer *in = bufferevent_get_input(bev);
	struct evbuffer_ptr end = evbuffer_search(in, "\r\n\r\n", 4, NULL);
	char line[HTTPGET_MAX_HEADERS + 1], method[16], path[1024];
	struct evbuffer *body;
	size_t n;
	int status;

	if (end.pos < 0) {
		if (evbuffer_get_length(in) >= HTTPGET_MAX_HEADERS)
			httpget_answer(hc, 431, "Request Header Fields Too Large", "text/plain",
			               NULL, false);
		return;
	}
	n = evbuffer_copyout(in, line, sizeof(line) - 1);
	line[n] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (sscanf(line, "%15s %1023s HTTP/1.%*1[01]", method, path) != 2) {
		httpget_answer(hc, 400, "Bad Request", "text/plain", NULL, false);
		return;
	}
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		httpget_answer(hc, 405, "Method Not Allowed", "text/plain", NULL, false);
		return;
	}
	path[strcspn(path, "?#")] = '\0';
	body = evbuffer_new();
	status = h->cb(path, body, h->arg);
	if (status == 200)
		httpget_answer(hc, 200, "OK", h->content_type, body, strcmp(method, "HEAD") == 0);
	else
		httpget_answer(hc, 404, "Not Found", "text/plain", NULL, false);
	evbuffer_free(body);
}

static const char *httpget_source(size_t i, void *arg)
{
	return ((struct httpget *)arg)->conns[i]->host;
}

static void httpget_accept_cb(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                              int salen, void *arg)
{
	struct httpget *h = arg;
	struct httpget_conn *hc;
	char addr[64], host[64];
	const char *colon;
	size_t cap = fdbudget_cap(HTTPGET_MAX_CONNS, HTTPGET_CONNS_SHARE);

	netaddr_format(sa, addr, sizeof(addr));
	colon = strrchr(addr, ':');
	snprintf(host, sizeof(host), "%.*s", colon ? (int)(colon - addr) : (int)strlen(addr), addr);
	if (h->nconns >= cap || (fdbudget_in_reserve(fd) && h->nconns > 0)) {
		long v = fdbudget_victim(h->nconns, httpget_source, h, host);

		if (h->dropped++ % 1000 == 0)
			log_warn("%s: %zu connections (cap %zu): dropping the oldest from %s, the "
			         "address holding the most (%llu dropped so far)",
			         h->what, h->nconns, cap, h->conns[v]->host, h->dropped);
		httpget_conn_free(h->conns[v]);
		listenpause_next_turn(h->pause);
	} else if (fdbudget_in_reserve(fd)) {
		evutil_closesocket(fd); /* the reserve is not for clients nobody vouches for */
		return;
	}
	hc = xcalloc(1, sizeof(*hc));
	hc->h = h;
	snprintf(hc->host, sizeof(hc->host), "%s", host);
	hc->bev = bufferevent_socket_new(h->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (hc->bev == NULL) {
		evutil_closesocket(fd);
		free(hc);
		return;
	}
	hc->deadline_ev = evtimer_new(h->base, httpget_deadline_cb, hc);
	/* Never more buffered than a request may hold. */
	bufferevent_setwatermark(hc->bev, EV_READ, 0, HTTPGET_MAX_HEADERS);
	bufferevent_setcb(hc->bev, httpget_read_cb, NULL, httpget_event_cb, hc);
	bufferevent_enable(hc->bev, EV_READ | EV_WRITE);
	httpget_arm(hc);
	h->conns = xreallocarray(h->conns, h->nconns + 1, sizeof(*h->conns));
	h->conns[h->nconns++] = hc;
}

struct httpget *httpget_new(struct event_base *base, const char *host, uint16_t port,
                            const char *what, const char *content_type, httpget_cb cb, void *arg,
                            struct error *err)
{
	struct httpget *h;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *ai;
	char sport[8];
	int rc;

	snprintf(sport, sizeof(sport), "%u", port);
	rc = evutil_getaddrinfo(host, sport, &hints, &ai);
	if (rc != 0) {
		error_set(err, "%s: cannot resolve %s: %s", what, host, evutil_gai_strerror(rc));
		return NULL;
	}
	h = xcalloc(1, sizeof(*h));
	h->base = base;
	h->cb = cb;
	h->arg = arg;
	snprintf(h->what, sizeof(h->what), "%s", what);
	snprintf(h->content_type, sizeof(h->content_type), "%s", content_type);
	h->listener = evconnlistener_new_bind(base, httpget_accept_cb, h,
	                                      LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
	                                          LEV_OPT_CLOSE_ON_EXEC,
	                                      128, ai->ai_addr, (int)ai->ai_addrlen);
	evutil_freeaddrinfo(ai);
	if (h->listener == NULL) {
		error_set(err, "%s: cannot listen on %s:%u: %s", what, host, port, strerror(errno));
		free(h);
		return NULL;
	}
	h->pause = listenpause_new(base, h->listener, what, 1000);
	return h;
}

unsigned long long httpget_dropped(const struct httpget *h)
{
	return h->dropped;
}

void httpget_free(struct httpget *h)
{
	if (h == NULL)
		return;
	while (h->nconns > 0)
		httpget_conn_free(h->conns[h->nconns - 1]);
	free(h->conns);
	evconnlistener_free(h->listener);
	listenpause_free(h->pause);
	free(h);
}
