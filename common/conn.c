/* SPDX-License-Identifier: MIT */
/*
 * One framed connection on its own socket events: bytes read into a buffer and frames
 * decoded where they lie, frames queued and written once a pass, on a TLS or Unix
 * transport (conn_priv.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "conn_priv.h"
#include "frame.h"
#include "log.h"
#include "xalloc.h"

/* A closing connection gets this long to flush what is queued. */
#define CONN_FLUSH_SECONDS 2
/* A struct timeval's two fields for a count of milliseconds. */
#define CONN_TV_MS(ms) (time_t)((ms) / 1000), (suseconds_t)((ms) % 1000) * 1000
/*
 * Reads one connection gets a pass of the loop before the others have theirs; what
 * is left waits for the next pass. A TLS read gives one record: 16 KiB at most.
 */
#define CONN_READS_PER_PASS 16
#define CONN_RECORD         16384
/* A TLS write is one record: this much of the output at a time. */
#define CONN_WRITE_CHUNK 16384

/*
 * Every connection's reads land here first, and their frames are decoded where they
 * lie; only a frame still arriving is copied into the connection's own buffer. One
 * loop, one thread: one buffer.
 */
static uint8_t conn_scratch[CONN_RECORD];

static void conn_read_cb(evutil_socket_t fd, short what, void *arg);
static void conn_write_cb(evutil_socket_t fd, short what, void *arg);
static void conn_idle_cb(evutil_socket_t fd, short what, void *arg);
static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg);

/*
 * The one end of every connection, however it ended (owner's close or abort, a failed
 * handshake, the deadline, the peer): its events go with it, so nothing fires on freed
 * memory later. notify: on_free runs first (not after conn_abort).
 */
static void conn_destroy(struct conn *c, bool notify)
{
	if (notify && c->cbs->on_free != NULL)
		c->cbs->on_free(c, c->arg);
	if (c->deadline_ev != NULL)
		event_free(c->deadline_ev);
	if (c->idle_ev != NULL)
		event_free(c->idle_ev);
	event_free(c->rev);
	event_free(c->wev);
	evbuffer_free(c->out);
	free(c->in);
	if (c->ssl != NULL)
		SSL_free(c->ssl);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static void conn_free(struct conn *c)
{
	conn_destroy(c, true);
}

static void conn_do_close(struct conn *c);

/* A callback of c has returned: carry out the close or abort the owner asked for in it. */
static void conn_after_callback(struct conn *c)
{
	c->in_callback = false;
	if (c->aborting)
		conn_destroy(c, false);
	else if (c->closing && !c->flushing)
		conn_do_close(c);
}

void conn_abort(struct conn *c)
{
	if (c == NULL || c->aborting)
		return;
	c->dead = true;
	if (c->in_callback) {
		c->aborting = true;
		return;
	}
	conn_destroy(c, false);
}

static void conn_finish_close(struct conn *c)
{
	if (c->tp->finish != NULL)
		c->tp->finish(c);
	conn_free(c);
}

/*
 * Report the end of the connection once, then free it: on_close is the last callback
 * (on_free aside), whatever the owner calls from inside it. A connection the owner
 * closed (its flush failed or timed out) goes without a word.
 */
static void conn_fail(struct conn *c, const char *reason)
{
	if (c->closing) {
		conn_free(c);
		return;
	}
	if (!c->dead) {
		c->dead = true;
		c->in_callback = true;
		if (c->cbs->on_close != NULL)
			c->cbs->on_close(c, reason, c->arg);
		c->in_callback = false;
	}
	conn_destroy(c, !c->aborting);
}

void conn_read_on(struct conn *c, bool on)
{
	if (on && !c->reading)
		event_add(c->rev, NULL);
	else if (!on && c->reading)
		event_del(c->rev);
	c->reading = on;
}

/* What writing out the queue came to. */
enum conn_out {
	CONN_OUT_DONE, /* all of it written */
	CONN_OUT_WAIT, /* the socket holds the rest back: its event is set */
	CONN_OUT_END,  /* the stream ended (c->why); c is untouched */
};

/*
 * Write what is queued until it is all out or the socket is full. The timed frame's
 * send time is taken just before the write that carries its first byte.
 */
static enum conn_out conn_write_out(struct conn *c)
{
	size_t n, len;
	uint64_t at;

	c->write_wants_read = false;
	while ((len = evbuffer_get_length(c->out)) > 0) {
		if (c->write_len == 0)
			c->write_len = len < CONN_WRITE_CHUNK ? len : CONN_WRITE_CHUNK;
		at = c->stamp_left != 0 ? clock_now_ns() : 0;
		switch (c->tp->write(c, evbuffer_pullup(c->out, (ev_ssize_t)c->write_len),
		                     c->write_len, &n)) {
		case CONN_IO_DONE:
			break;
		case CONN_IO_WANT_WRITE:
			event_add(c->wev, NULL);
			return CONN_OUT_WAIT;
		case CONN_IO_WANT_READ:
			c->write_wants_read = true;
			return CONN_OUT_WAIT;
		case CONN_IO_END:
			return CONN_OUT_END;
		}
		c->write_len = 0;
		evbuffer_drain(c->out, n);
		if (c->stamp_left != 0 && n >= c->stamp_left) {
			c->sent_ns = at;
			c->stamp_left = 0;
		} else if (c->stamp_left != 0) {
			c->stamp_left -= n;
		}
	}
	return CONN_OUT_DONE;
}

/* conn_write_out, and what follows from it: false when the connection ended here (c is freed). */
static bool conn_flush(struct conn *c)
{
	switch (conn_write_out(c)) {
	case CONN_OUT_WAIT:
		return true;
	case CONN_OUT_END:
		conn_fail(c, c->why);
		return false;
	case CONN_OUT_DONE:
		break;
	}
	if (c->flushing) {
		conn_finish_close(c);
		return false;
	}
	return true;
}

/* The owner's close, run outside any callback of this conn. */
static void conn_do_close(struct conn *c)
{
	c->flushing = true;
	if (!c->connected || conn_pending(c) == 0) {
		if (c->connected)
			conn_finish_close(c);
		else
			conn_free(c);
		return;
	}
	conn_read_on(c, false);
	if (c->idle_ev != NULL)
		event_del(c->idle_ev);
	/* The deadline's timer is the flush's limit now (conn_deadline_cb). */
	if (c->deadline_ev == NULL)
		c->deadline_ev = evtimer_new(c->base, conn_deadline_cb, c);
	event_add(c->deadline_ev, &(struct timeval){CONN_FLUSH_SECONDS, 0});
	event_active(c->wev, EV_WRITE, 1);
}

void conn_close(struct conn *c)
{
	if (c == NULL || c->closing)
		return;
	c->closing = true;
	c->dead = true;
	if (!c->in_callback)
		conn_do_close(c);
}

static void conn_idle_arm(struct conn *c, uint64_t ms)
{
	if (c->idle_ev == NULL)
		c->idle_ev = evtimer_new(c->base, conn_idle_cb, c);
	event_add(c->idle_ev, &(struct timeval){CONN_TV_MS(ms)});
}

static void conn_up(struct conn *c)
{
	char why[256];

	c->connected = true;
	c->handshaking = false;
	if (c->tp->connected(c, why, sizeof(why)) < 0) {
		conn_fail(c, why);
		return;
	}
	if (c->deadline_until_up)
		conn_set_deadline(c, 0, NULL);
	c->heard_ns = clock_now_ns();
	if (c->idle_ms)
		conn_idle_arm(c, c->idle_ms);
	c->in_callback = true;
	if (c->cbs->on_connected)
		c->cbs->on_connected(c, c->arg);
	/* What came with the handshake's last bytes (a Hello) is read in this pass. */
	if (!c->dead)
		event_active(c->rev, EV_READ, 1);
	if (!c->dead && evbuffer_get_length(c->out) > 0)
		event_active(c->wev, EV_WRITE, 1);
	conn_after_callback(c);
}

/* The handshake went on: done, waiting, or failed. */
static void conn_handshake(struct conn *c)
{
	int r = c->tp->handshake(c);

	if (r > 0)
		conn_up(c);
	else if (r < 0)
		conn_fail(c, c->why);
}

/* A bad frame: said in the log with the peer's name, and the connection ends. */
static void conn_bad_frame(struct conn *c, const struct error *err)
{
	char reason[sizeof(err->msg) + 32];

	snprintf(reason, sizeof(reason), "bad frame: %s", err->msg);
	log_warn("%s%s%s%s: %s; closing", c->peer_addr, c->peer_name[0] ? " (" : "", c->peer_name,
	         c->peer_name[0] ? ")" : "", reason);
	c->in_callback = false;
	conn_fail(c, reason);
}

/*
 * The frames whole in buf[0, len), each handed to on_message; a frame still arriving
 * is kept in c->in. 1: read on; 0: c died in a callback (its owner closed it); -1: a
 * bad frame ended it (c is freed).
 */
static int conn_frames(struct conn *c, const uint8_t *buf, size_t len)
{
	Iocurve__Envelope *env;
	size_t pos = 0, used;
	struct error err;
	int rc;

	while (!c->dead && (rc = frame_decode(buf + pos, len - pos, c->max_frame, c->unpack_times,
	                                      &used, &env, &err)) != 0) {
		if (rc < 0) {
			conn_bad_frame(c, &err);
			return -1;
		}
		c->cbs->on_message(c, env, c->arg);
		frame_free(env);
		pos += used;
	}
	if (c->dead)
		return 0;
	len -= pos;
	if (len == 0) {
		free(c->in); /* nothing held while idle */
		c->in = NULL;
		c->in_len = c->in_cap = 0;
		return 1;
	}
	if (buf == c->in) {
		memmove(c->in, c->in + pos, len);
	} else {
		if (c->in_cap < len) {
			c->in = xreallocarray(c->in, len, 1);
			c->in_cap = len;
		}
		memcpy(c->in, buf + pos, len);
	}
	c->in_len = len;
	return 1;
}

/*
 * Where the next read goes: the scratch buffer, or after the frame already begun in
 * c->in, room made for the whole frame (its length was judged from its header: a
 * header over the limit never got here) and a record more.
 */
static uint8_t *conn_read_room(struct conn *c, size_t *room)
{
	size_t want;

	if (c->in_len == 0) {
		*room = sizeof(conn_scratch);
		return conn_scratch;
	}
	want = c->in_len + CONN_RECORD;
	if (c->in_len >= FRAME_HEADER) {
		size_t frame = FRAME_HEADER + ((size_t)c->in[0] << 24 | (size_t)c->in[1] << 16 |
		                               (size_t)c->in[2] << 8 | c->in[3]);

		if (frame + CONN_RECORD > want)
			want = frame + CONN_RECORD;
	}
	if (c->in_cap < want) {
		c->in = xreallocarray(c->in, want, 1);
		c->in_cap = want;
	}
	*room = c->in_cap - c->in_len;
	return c->in + c->in_len;
}

/* Read and hand out frames, a few records' worth; whatever ends c returns at once. */
static void conn_read(struct conn *c)
{
	bool more = false;
	uint8_t *p;
	size_t room, n;
	int rc = 1;

	c->read_wants_write = false;
	c->in_callback = true;
	for (int i = 0; i < CONN_READS_PER_PASS && !c->dead; i++) {
		enum conn_io io;

		p = conn_read_room(c, &room);
		io = c->tp->read(c, p, room, &n);
		if (io == CONN_IO_END) {
			c->in_callback = false;
			conn_fail(c, c->why);
			return;
		}
		if (io == CONN_IO_WANT_WRITE) {
			c->read_wants_write = true;
			event_add(c->wev, NULL);
		}
		if (io != CONN_IO_DONE)
			break;
		c->heard_ns = c->rx_ns != 0 ? c->rx_ns : clock_now_ns();
		if (p != conn_scratch)
			c->in_len += n;
		rc = p == conn_scratch ? conn_frames(c, p, n) : conn_frames(c, c->in, c->in_len);
		if (rc < 0)
			return; /* a bad frame ended it */
		/*
		 * Nothing read ahead (TLS) or a short read (Unix): the socket was drained, and
		 * another read would only say so (a system call a report). Bytes that come
		 * after it wait in the socket, and the level-triggered poll says so next pass.
		 */
		if (c->ssl != NULL ? !SSL_has_pending(c->ssl) : n < room)
			break;
		more = i + 1 == CONN_READS_PER_PASS;
	}
	/*
	 * TLS reads ahead (tls.c): one read(2) takes every record the socket holds, and a
	 * record already read and not yet decrypted would wait for the peer's next bytes;
	 * so would the rest of a pass cut short.
	 */
	if (!c->dead && (more || (c->ssl != NULL && SSL_has_pending(c->ssl))))
		event_active(c->rev, EV_READ, 1);
	conn_after_callback(c);
}

static void conn_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->handshaking) {
		conn_handshake(c);
		return;
	}
	if (c->write_wants_read && !conn_flush(c))
		return;
	if (c->reading)
		conn_read(c);
}

static void conn_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->tcp_connecting) {
		c->tcp_connecting = false;
		if (c->tp->connect_done(c) < 0) {
			conn_fail(c, c->why);
			return;
		}
		c->handshaking = true;
		conn_read_on(c, true);
		conn_handshake(c);
		return;
	}
	if (c->handshaking) {
		conn_handshake(c);
		return;
	}
	if (!c->connected)
		return;
	if (c->read_wants_write) {
		conn_read(c);
		return;
	}
	conn_flush(c);
}

/*
 * The idle timer: silent for idle_ms since the last bytes read, or the timer merely
 * came round (traffic does not move it, a timer a read would cost; it looks at
 * heard_ns).
 */
static void conn_idle_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	uint64_t now = clock_now_ns(), quiet = now - c->heard_ns;

	if (c->closing)
		return;
	if (quiet < (uint64_t)c->idle_ms * NSEC_PER_MSEC) {
		conn_idle_arm(c, c->idle_ms - quiet / NSEC_PER_MSEC);
		return;
	}
	if (c->cbs->on_idle != NULL && c->cbs->on_idle(c, c->arg)) {
		c->heard_ns = now; /* the timeout starts again */
		conn_idle_arm(c, c->idle_ms);
		return;
	}
	conn_fail(c, "peer silent past the idle timeout");
}

struct conn *conn_new(struct event_base *base, int fd, const struct conn_transport *tp,
                      const char *peer_addr, const struct conn_cbs *cbs, void *arg)
{
	struct conn *c = xcalloc(1, sizeof(*c));

	c->base = base;
	c->fd = fd;
	c->tp = tp;
	c->cbs = cbs;
	c->arg = arg;
	c->max_frame = FRAME_MAX_DEFAULT;
	snprintf(c->peer_addr, sizeof(c->peer_addr), "%s", peer_addr);
	c->out = evbuffer_new();
	c->rev = event_new(base, fd, EV_READ | EV_PERSIST, conn_read_cb, c);
	c->wev = event_new(base, fd, EV_WRITE, conn_write_cb, c);
	if (c->out == NULL || c->rev == NULL || c->wev == NULL) {
		if (c->out != NULL)
			evbuffer_free(c->out);
		if (c->rev != NULL)
			event_free(c->rev);
		if (c->wev != NULL)
			event_free(c->wev);
		free(c);
		return NULL;
	}
	return c;
}

/* --- Unix: a plain stream socket, connected when it is wrapped --- */

static enum conn_io conn_unix_io(struct conn *c, ssize_t r, size_t *n, bool writing)
{
	*n = 0;
	if (r > 0) {
		*n = (size_t)r;
		return CONN_IO_DONE;
	}
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return writing ? CONN_IO_WANT_WRITE : CONN_IO_WANT_READ;
	if (r == 0)
		snprintf(c->why, sizeof(c->why), "peer closed the connection");
	else
		snprintf(c->why, sizeof(c->why), "%s%s", writing ? "cannot write: " : "",
		         strerror(errno));
	return CONN_IO_END;
}

static enum conn_io conn_unix_read(struct conn *c, void *buf, size_t len, size_t *n)
{
	return conn_unix_io(c, read(c->fd, buf, len), n, false);
}

static enum conn_io conn_unix_write(struct conn *c, const void *buf, size_t len, size_t *n)
{
	return conn_unix_io(c, send(c->fd, buf, len, MSG_NOSIGNAL), n, true);
}

static int conn_unix_connected(struct conn *c, char *why, size_t len)
{
	return 0;
}

static const struct conn_transport conn_unix_transport = {
    .read = conn_unix_read,
    .write = conn_unix_write,
    .connected = conn_unix_connected,
};

struct conn *conn_unix(struct event_base *base, int fd, const char *peer_addr,
                       const struct conn_cbs *cbs, void *arg)
{
	struct conn *c;

	evutil_make_socket_nonblocking(fd);
	c = conn_new(base, fd, &conn_unix_transport, peer_addr, cbs, arg);
	if (c == NULL)
		return NULL;
	c->connected = true;
	c->heard_ns = clock_now_ns();
	conn_read_on(c, true);
	return c;
}

/* --- Both --- */

void conn_stop_reading(struct conn *c)
{
	int small = 1;

	conn_read_on(c, false);
	/* Not reading, it cannot hear the peer: no idle timeout either. */
	c->idle_ms = 0;
	if (c->idle_ev != NULL)
		event_del(c->idle_ev);
	setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
}

struct event_base *conn_base_new(void)
{
	struct event_config *cfg = event_config_new();
	struct event_base *base;

	if (cfg == NULL)
		return NULL;
	event_config_set_flag(cfg, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	base = event_base_new_with_config(cfg);
	event_config_free(cfg);
	return base;
}

int conn_send(struct conn *c, const Iocurve__Envelope *env)
{
	bool idle;

	if (c->dead)
		return -1;
	idle = evbuffer_get_length(c->out) == 0;
	if (frame_write(c->out, env, c->max_frame) < 0) {
		log_error("%s: not sending %s: over the frame limit of %zu bytes", c->peer_addr,
		          frame_body_name(env), c->max_frame);
		return -1;
	}
	/*
	 * Written later in this pass of the loop, with whatever else is queued for the
	 * peer meanwhile: one write, one TLS record, for all of it.
	 */
	if (idle && c->connected && !c->closing)
		event_active(c->wev, EV_WRITE, 1);
	return 0;
}

int conn_send_timed(struct conn *c, const Iocurve__Envelope *env)
{
	size_t ahead;

	if (c->dead)
		return -1;
	ahead = conn_pending(c);
	if (conn_send(c, env) < 0)
		return -1;
	c->stamp_left = ahead + 1;
	c->sent_ns = 0;
	return 0;
}

int conn_send_now(struct conn *c, const Iocurve__Envelope *env)
{
	/* Nothing queued and no write waiting on the socket or the TLS layer. */
	bool now = c->connected && !c->closing && evbuffer_get_length(c->out) == 0 &&
	           c->write_len == 0 && !c->write_wants_read && !c->read_wants_write;

	if (conn_send(c, env) < 0)
		return -1;
	/*
	 * An end met here is met again by the pass's write (conn_send set it), outside
	 * the owner's callback; a write the socket holds back goes on from its event.
	 */
	if (now)
		(void)conn_write_out(c);
	return 0;
}

uint64_t conn_sent_ns(const struct conn *c)
{
	return c->sent_ns;
}

uint64_t conn_heard_ns(const struct conn *c)
{
	return c->heard_ns;
}

size_t conn_pending(const struct conn *c)
{
	return evbuffer_get_length(c->out);
}

size_t conn_backlog(const struct conn *c)
{
	int queued = 0;

	if (c->fd < 0 || ioctl(c->fd, SIOCOUTQ, &queued) < 0 || queued < 0)
		queued = 0;
	return conn_pending(c) + (size_t)queued;
}

void conn_set_idle_timeout_ms(struct conn *c, unsigned ms)
{
	c->idle_ms = ms;
	if (!c->connected || c->closing)
		return;
	if (ms == 0) {
		if (c->idle_ev != NULL)
			event_del(c->idle_ev);
		return;
	}
	c->heard_ns = clock_now_ns();
	conn_idle_arm(c, ms);
}

void conn_set_idle_timeout(struct conn *c, unsigned seconds)
{
	conn_set_idle_timeout_ms(c, seconds * 1000);
}

void conn_set_unpack_times(struct conn *c, unsigned times)
{
	c->unpack_times = times;
}

void conn_set_max_frame(struct conn *c, size_t max)
{
	c->max_frame = max;
}

enum conn_failure conn_failure(const struct conn *c)
{
	return c->failure;
}

const char *conn_peer_name(const struct conn *c)
{
	return c->peer_name;
}

const char *conn_peer_serial(const struct conn *c)
{
	return c->peer_serial;
}

/*
 * The timer is freed with c (conn_destroy): c is alive whenever this runs. Closing, it
 * is the flush's limit: the flush timed out, and the owner hears nothing more.
 */
static void conn_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	if (c->closing)
		conn_free(c);
	else
		conn_fail(c, c->deadline_reason);
}

void conn_set_deadline(struct conn *c, unsigned seconds, const char *reason)
{
	if (c->dead && seconds != 0)
		return; /* closing: the flush has its own limit */
	c->deadline_until_up = false;
	if (seconds == 0) {
		if (c->deadline_ev != NULL)
			event_del(c->deadline_ev);
		return;
	}
	if (c->deadline_ev == NULL)
		c->deadline_ev = evtimer_new(c->base, conn_deadline_cb, c);
	snprintf(c->deadline_reason, sizeof(c->deadline_reason), "%s (%u s deadline)", reason,
	         seconds);
	event_add(c->deadline_ev, &(struct timeval){seconds, 0});
}
