/* SPDX-License-Identifier: MIT */
/* The campaign host: the agent port and the daemon core, set up once for serve and run. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "certs.h"
#include "host.h"
#include "tls.h"
#include "xalloc.h"

struct host {
	struct event_base *base;
	SSL_CTX *ssl;
	struct server *srv;
	struct daemon *daemon;
	char *revoked; /* tls_dir/revoked (NULL: none) */
};

/*
 * Keep what the heap has grown to. Every TLS record an agent sends takes a read buffer
 * that is freed once the frame is out (OpenSSL's, released while idle, and libevent's
 * chunk); freed at the heap's top, glibc gave the pages back, and the next record
 * faulted them in again: about one page fault per agent a second, in a VM the
 * coordinator's largest cost per report. The heap now stays at its high-water mark
 * (what the bench's peak RSS shows) and large blocks come from it, not from mmap.
 */
static void host_keep_memory(void)
{
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

struct host *host_new(struct event_base *base, const struct host_options *o, struct error *err)
{
	struct host *h = xcalloc(1, sizeof(*h));

	host_keep_memory();
	h->base = base;
	if (o->tls_dir != NULL) {
		h->revoked = xasprintf("%s/revoked", o->tls_dir);
		h->ssl = tls_ctx_new(o->tls_dir, CERTS_COORDINATOR_NAME, true, err);
	} else {
		h->ssl = tls_ctx_new_files(o->tls_crt, o->tls_key, o->tls_ca, true, err);
	}
	if (h->ssl == NULL)
		goto fail;
	h->srv = server_new(base, h->ssl, o->listen, err);
	if (h->srv == NULL)
		goto fail;
	if (o->max_frame != 0)
		server_set_max_frame(h->srv, o->max_frame);
	if (o->live != NULL)
		server_set_liveness(h->srv, o->live);
	if (h->revoked != NULL && server_load_revoked(h->srv, h->revoked, err) < 0)
		goto fail;
	h->daemon = daemon_new(base, h->srv, o->results_root);
	return h;
fail:
	host_free(h);
	return NULL;
}

struct daemon *host_daemon(const struct host *h)
{
	return h->daemon;
}

struct server *host_server(const struct host *h)
{
	return h->srv;
}

const char *host_address(const struct host *h)
{
	return server_address(h->srv);
}

int host_reload_revoked(struct host *h, struct error *err)
{
	if (h->revoked == NULL)
		return 0;
	return server_load_revoked(h->srv, h->revoked, err) < 0 ? -1 : 0;
}

void host_free(struct host *h)
{
	if (h == NULL)
		return;
	daemon_free(h->daemon);
	if (h->srv != NULL) {
		server_free(h->srv);
		/* One more turn of the loop so close_notify reaches the agents. */
		event_base_loop(h->base, EVLOOP_NONBLOCK);
	}
	SSL_CTX_free(h->ssl);
	free(h->revoked);
	free(h);
}
