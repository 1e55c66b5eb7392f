/* SPDX-License-Identifier: MIT */
/*
 * conn's TLS socket under OpenSSL: reads with the kernel's arrival stamp (conn_priv.h,
 * rx_ns), writes as OpenSSL's own socket BIO does.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bio.h>

#include "clock.h"
#include "conn_priv.h"

/* An arrival older than this is a wall clock that stepped, not a stamp to believe. */
#define CONN_BIO_AGE_MAX_NS (60 * NSEC_PER_SEC)

static BIO_METHOD *conn_bio_method;
static pthread_once_t conn_bio_once = PTHREAD_ONCE_INIT;

/*
 * The kernel stamps a packet's arrival on the wall clock (SO_TIMESTAMPNS); conn measures
 * on CLOCK_MONOTONIC. The two clocks' difference now carries the stamp over. The wall
 * clock is read first: a pause between the two reads makes the arrival late, never
 * early. A stamp from the future or from long ago means the wall clock was set
 * meanwhile, and the read's own time stands in (later than the arrival).
 */
static uint64_t conn_bio_arrival(const struct timespec *at)
{
	struct timespec wall;
	uint64_t mono;
	int64_t age;

	clock_gettime(CLOCK_REALTIME, &wall);
	mono = clock_now_ns();
	age = ((int64_t)wall.tv_sec - (int64_t)at->tv_sec) * (int64_t)NSEC_PER_SEC +
	      (wall.tv_nsec - at->tv_nsec);
	if (age < 0 || (uint64_t)age > CONN_BIO_AGE_MAX_NS || (uint64_t)age >= mono)
		return mono;
	return mono - (uint64_t)age;
}

/*
 * TCP gives the stamp of the last packet a read took: the bytes of every frame the read
 * completes arrived at it or before, so a frame's arrival taken from it is never early.
 */
static int conn_bio_read(BIO *b, char *buf, size_t len, size_t *got)
{
	struct conn *c = BIO_get_data(b);
	union {
		char buf[CMSG_SPACE(sizeof(struct timespec))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *cm;
	ssize_t r;

	*got = 0;
	BIO_clear_retry_flags(b);
	m.msg_control = ctl.buf;
	m.msg_controllen = sizeof(ctl.buf);
	r = recvmsg(c->fd, &m, 0);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			BIO_set_retry_read(b);
		return 0;
	}
	if (r == 0) {
		BIO_set_flags(b, BIO_FLAGS_IN_EOF);
		return 0;
	}
	c->rx_ns = 0;
	for (cm = CMSG_FIRSTHDR(&m); cm != NULL; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
			struct timespec at;

			memcpy(&at, CMSG_DATA(cm), sizeof(at));
			c->rx_ns = conn_bio_arrival(&at);
		}
	*got = (size_t)r;
	return 1;
}

static int conn_bio_write(BIO *b, const char *buf, size_t len, size_t *done)
{
	struct conn *c = BIO_get_data(b);
	ssize_t r;

	*done = 0;
	BIO_clear_retry_flags(b);
	r = write(c->fd, buf, len);
	if (r < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			BIO_set_retry_write(b);
		return 0;
	}
	*done = (size_t)r;
	return 1;
}

static long conn_bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	switch (cmd) {
	case BIO_CTRL_FLUSH:
	case BIO_CTRL_DUP:
		return 1;
	case BIO_CTRL_EOF:
		return BIO_test_flags(b, BIO_FLAGS_IN_EOF) != 0;
	case BIO_C_GET_FD: {
		struct conn *c = BIO_get_data(b);

		if (ptr != NULL)
			*(int *)ptr = c->fd;
		return c->fd;
	}
	default:
		return 0;
	}
}

static int conn_bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

static void conn_bio_method_new(void)
{
	BIO_METHOD *m = BIO_meth_new(
	    BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "iocurve socket");

	if (m == NULL || !BIO_meth_set_read_ex(m, conn_bio_read) ||
	    !BIO_meth_set_write_ex(m, conn_bio_write) || !BIO_meth_set_ctrl(m, conn_bio_ctrl) ||
	    !BIO_meth_set_create(m, conn_bio_create)) {
		BIO_meth_free(m);
		return;
	}
	conn_bio_method = m;
}

int conn_bio_attach(struct conn *c, SSL *ssl)
{
	static const int on = 1;
	BIO *b;

	pthread_once(&conn_bio_once, conn_bio_method_new);
	if (conn_bio_method == NULL || (b = BIO_new(conn_bio_method)) == NULL)
		return -1;
	BIO_set_data(b, c);
	SSL_set_bio(ssl, b, b);
	/* Without stamps the read's own time stands in (rx_ns 0). */
	(void)setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
	return 0;
}
