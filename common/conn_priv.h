/* SPDX-License-Identifier: MIT */
/* Inside conn: the connection's state and what its two transports (TLS, Unix) provide. */
#ifndef IOCURVE_CONN_PRIV_H
#define IOCURVE_CONN_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <openssl/ssl.h>

#include "conn.h"

/* What one read or write of the transport came to. */
enum conn_io {
	CONN_IO_DONE,       /* some bytes moved (*n) */
	CONN_IO_WANT_READ,  /* nothing now: go on when the socket is readable */
	CONN_IO_WANT_WRITE, /* nothing now: go on when the socket is writable */
	CONN_IO_END,        /* the stream ended: the reason is in c->why */
};

struct conn_transport {
	/* Up to len bytes into buf. */
	enum conn_io (*read)(struct conn *c, void *buf, size_t len, size_t *n);
	/* Up to len bytes from buf; the same buf and len again after a WANT (TLS). */
	enum conn_io (*write)(struct conn *c, const void *buf, size_t len, size_t *n);
	/* The stream is up: 0, or -1 with why the peer may not stay. */
	int (*connected)(struct conn *c, char *why, size_t len);
	/* Last words once the output has drained (TLS: close_notify); may be NULL. */
	void (*finish)(struct conn *c);
	/* TLS: drive the handshake on: 1 done, 0 waiting (events set), -1 failed (c->why). */
	int (*handshake)(struct conn *c);
	/* TLS client: the TCP connect's end (SO_ERROR): 0, or -1 with c->why and c->failure. */
	int (*connect_done)(struct conn *c);
};

struct conn {
	const struct conn_transport *tp;
	struct event_base *base;
	int fd;
	SSL *ssl; /* TLS only */
	const struct conn_cbs *cbs;
	void *arg;
	struct event *rev; /* persistent while reading */
	struct event *wev; /* added while the socket (or a connect) holds a write back */
	struct event *idle_ev;
	struct event *deadline_ev; /* absolute: not restarted by traffic */
	struct evbuffer *out;
	uint8_t *in; /* a frame still arriving, kept between reads; NULL when none */
	size_t in_len, in_cap;
	size_t write_len; /* a TLS write that wanted to wait: its length, the same again */
	size_t max_frame;
	unsigned unpack_times; /* frame_decode's: 1 but from a trusted peer */
	unsigned idle_ms;
	uint64_t heard_ns; /* the last bytes read: their arrival (rx_ns), else the read's time */
	uint64_t rx_ns;    /* TLS: the kernel's arrival stamp of the last read's bytes; 0: none */
	char deadline_reason[96];
	bool deadline_until_up; /* the handshake's own deadline: cleared once up */
	bool tcp_connecting;    /* TLS client: the TCP connect is in progress */
	bool handshaking;
	bool connected;
	bool reading;              /* rev is added */
	bool read_wants_write;     /* a read waits for the socket to be writable (TLS) */
	bool write_wants_read;     /* a write waits for it to be readable (TLS) */
	bool in_callback;          /* the owner's close or abort waits while a callback runs */
	bool closing;              /* owner closed: flush, finish, free */
	bool flushing;             /* closing, and the flush has begun (conn_do_close ran) */
	bool aborting;             /* owner aborted inside a callback: free when it returns */
	bool dead;                 /* on_close delivered or owner closed: no more callbacks */
	size_t stamp_left;         /* bytes to write before the timed frame has started; 0: none */
	uint64_t sent_ns;          /* the timed frame's send time (conn_send_timed) */
	enum conn_failure failure; /* set with the reason, before on_close */
	char why[400];             /* CONN_IO_END's reason */
	char peer_name[128];
	char peer_serial[80]; /* of its certificate, upper-case hex */
	char peer_addr[112];
};

/*
 * conn.c, for the transports' constructors (conn_accept and conn_connect are
 * conn_tls.c's): a connection on fd, not yet reading; NULL when libevent cannot.
 */
struct conn *conn_new(struct event_base *base, int fd, const struct conn_transport *tp,
                      const char *peer_addr, const struct conn_cbs *cbs, void *arg);
/*
 * conn_bio.c: c's socket under ssl, its reads stamped with their arrival (rx_ns) where
 * the kernel gives it; 0, or -1 when OpenSSL cannot make the BIO.
 */
int conn_bio_attach(struct conn *c, SSL *ssl);
/* Watch the socket for reads, or stop. */
void conn_read_on(struct conn *c, bool on);

#endif
