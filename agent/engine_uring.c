/* SPDX-License-Identifier: MIT */
/* The io_uring engine: one ring, a registered file, one registered buffer per slot. */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "engine.h"
#include "fpool.h"
#include "xalloc.h"

/* Slots use user_data 0..queue_depth-1; the wake read gets a value no slot can have. */
#define URING_WAKE_DATA UINT64_MAX
#define URING_POOL_DATA (UINT64_MAX - 1) /* the file operations' eventfd */
#define URING_ALIGN     4096u

struct engine {
	struct io_uring ring;
	uint32_t queue_depth;
	uint32_t block_size;
	unsigned char *bufs; /* queue_depth * block_size, aligned for O_DIRECT */
	bool fixed_bufs;     /* false when the memlock limit refused registration */
	int wake_fd;
	bool wake_poll; /* the kernel cannot read this eventfd async: poll it instead */
	bool wake_rearm;
	uint64_t wake_value;       /* the armed read's target */
	struct fpool *pool;        /* file operations (NULL: none queued by this plan) */
	struct engine_io *fqueued; /* file operations queued, handed to the pool at submission */
	uint32_t nfqueued;
	bool pool_rearm;
	uint64_t pool_value;
};

/*
 * DEFER_TASKRUN runs completion work only when we enter the kernel to wait, which
 * is exactly when a worker looks at completions; older kernels refuse the flags
 * with EINVAL, so step down one at a time.
 */
static int uring_setup(struct engine *e, unsigned entries)
{
	static const unsigned flag_sets[] = {
	    IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
	    IORING_SETUP_SINGLE_ISSUER,
	    0,
	};
	int ret = -EINVAL;

	for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		struct io_uring_params p;

		memset(&p, 0, sizeof(p));
		p.flags = flag_sets[i];
		ret = io_uring_queue_init_params(entries, &e->ring, &p);
		if (ret != -EINVAL)
			return ret;
	}
	return ret;
}

/*
 * A read kept armed on the eventfd ends any sleep in the ring the moment the agent
 * writes it, with no polling. The SQ has room for it: it holds queue_depth + 1.
 */
static void uring_arm_wake(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (sqe == NULL)
		return; /* cannot happen with the ring sized above; retried on next call */
	if (e->wake_poll)
		io_uring_prep_poll_add(sqe, e->wake_fd, POLLIN);
	else
		io_uring_prep_read(sqe, e->wake_fd, &e->wake_value, sizeof(e->wake_value), 0);
	io_uring_sqe_set_data64(sqe, URING_WAKE_DATA);
	e->wake_rearm = false;
}

/* The pool's eventfd read kept armed the same way: a file operation done ends a sleep. */
static void uring_arm_pool(struct engine *e)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&e->ring);

	if (sqe == NULL)
		return;
	io_uring_prep_poll_add(sqe, fpool_fd(e->pool), POLLIN);
	io_uring_sqe_set_data64(sqe, URING_POOL_DATA);
	e->pool_rearm = false;
}

static struct engine *uring_open(const struct engine_params *p, struct error *err)
{
	const int fd = p->fd, wake_fd = p->wake_fd;
	const uint32_t queue_depth = p->queue_depth, block_size = p->block_size;
	struct engine *e = xcalloc(1, sizeof(*e));
	struct iovec *iov = NULL;
	void *bufs = NULL;
	int ret;

	e->queue_depth = queue_depth;
	e->block_size = block_size;
	e->wake_fd = wake_fd;
	ret = posix_memalign(&bufs, URING_ALIGN, (size_t)queue_depth * block_size);
	if (ret) {
		error_set(err, "allocating %u buffers of %u bytes: %s", queue_depth, block_size,
		          strerror(ret));
		free(e);
		return NULL;
	}
	e->bufs = bufs;
	memset(e->bufs, 0, (size_t)queue_depth * block_size);

	ret = uring_setup(e, queue_depth + 2);
	if (ret < 0) {
		error_set(err, "io_uring setup with %u entries: %s", queue_depth + 1,
		          strerror(-ret));
		goto err_bufs;
	}
	ret = io_uring_register_files(&e->ring, p->nfds > 0 ? p->fds : &fd,
	                              p->nfds > 0 ? p->nfds : 1);
	if (ret < 0) {
		error_set(err, "io_uring registering the target file: %s", strerror(-ret));
		goto err_ring;
	}
	iov = xcalloc(queue_depth, sizeof(*iov));
	for (uint32_t i = 0; i < queue_depth; i++) {
		iov[i].iov_base = e->bufs + (size_t)i * block_size;
		iov[i].iov_len = block_size;
	}
	/*
	 * Pinned buffers count against RLIMIT_MEMLOCK; past it, plain reads and writes
	 * from the same buffers still work, only a little slower.
	 */
	ret = io_uring_register_buffers(&e->ring, iov, queue_depth);
	free(iov);
	if (ret < 0 && ret != -ENOMEM && ret != -EPERM) {
		error_set(err, "io_uring registering buffers: %s", strerror(-ret));
		goto err_ring;
	}
	e->fixed_bufs = ret == 0;
	uring_arm_wake(e);
	if (p->files) {
		e->pool = fpool_new(queue_depth, FPOOL_THREADS, err);
		if (e->pool == NULL)
			goto err_ring;
		e->fqueued = xcalloc(queue_depth, sizeof(*e->fqueued));
		uring_arm_pool(e);
	}
	return e;

err_ring:
	io_uring_queue_exit(&e->ring);
err_bufs:
	free(e->bufs);
	free(e);
	return NULL;
}

static void *uring_buffer(struct engine *e, uint16_t slot)
{
	return e->bufs + (size_t)slot * e->block_size;
}

static void uring_queue(struct engine *e, const struct engine_io *io)
{
	void *buf = e->bufs + (size_t)io->slot * e->block_size;
	struct io_uring_sqe *sqe;

	/* submitted with the rest (after the worker's stamp of the submission time) */
	if (io->op != FILEOP_NONE) {
		e->fqueued[e->nfqueued++] = *io;
		return;
	}
	sqe = io_uring_get_sqe(&e->ring);
	/* The worker never has more than queue_depth in flight, and the SQ holds two more. */
	if (io->sync != ENGINE_SYNC_NONE)
		/* io_uring's own fsync of the registered file; DATASYNC is fdatasync(2) */
		io_uring_prep_fsync(sqe, io->file,
		                    io->sync == ENGINE_SYNC_FDATASYNC ? IORING_FSYNC_DATASYNC : 0);
	else if (e->fixed_bufs && io->write)
		io_uring_prep_write_fixed(sqe, io->file, buf, io->len, io->offset, io->slot);
	else if (e->fixed_bufs)
		io_uring_prep_read_fixed(sqe, io->file, buf, io->len, io->offset, io->slot);
	else if (io->write)
		io_uring_prep_write(sqe, io->file, buf, io->len, io->offset);
	else
		io_uring_prep_read(sqe, io->file, buf, io->len, io->offset);
	sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data64(sqe, io->slot);
}

/* The wake completed: note it, drain the eventfd when only polled, and arm it again. */
static void uring_wake_done(struct engine *e, int res)
{
	if (!e->wake_poll && res == -EAGAIN) {
		/* Old kernels fail a nonblocking eventfd read at once instead of waiting. */
		e->wake_poll = true;
	} else if (e->wake_poll) {
		uint64_t v;

		if (read(e->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return; /* a broken wake fd stays disarmed rather than spin */
	} else if (res < 0 && res != -EINTR) {
		return;
	}
	e->wake_rearm = true;
}

static int uring_submit_and_wait(struct engine *e, uint64_t wait_ns, struct engine_completion *done,
                                 int max, bool *woken)
{
	struct io_uring_cqe *cqe;
	unsigned head, seen = 0;
	int ret, n = 0;

	*woken = false;
	for (uint32_t i = 0; i < e->nfqueued; i++)
		fpool_submit(e->pool, &e->fqueued[i],
		             e->bufs + (size_t)e->fqueued[i].slot * e->block_size);
	e->nfqueued = 0;
	/* file operations done and not yet handed over: no sleep before they are */
	if (e->pool != NULL && fpool_ready(e->pool))
		wait_ns = ENGINE_NO_WAIT;
	if (wait_ns == ENGINE_NO_WAIT) {
		ret = io_uring_submit_and_get_events(&e->ring);
	} else if (wait_ns == ENGINE_WAIT_EVER) {
		ret = io_uring_submit_and_wait(&e->ring, 1);
	} else {
		struct __kernel_timespec ts = {
		    .tv_sec = (long long)(wait_ns / 1000000000ull),
		    .tv_nsec = (long long)(wait_ns % 1000000000ull),
		};

		ret = io_uring_submit_and_wait_timeout(&e->ring, &cqe, 1, &ts, NULL);
	}
	/* A timeout, a signal or a full CQ only end the sleep; the reap below still runs. */
	if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
		return ret;

	io_uring_for_each_cqe(&e->ring, head, cqe)
	{
		if (cqe->user_data == URING_WAKE_DATA) {
			*woken = true;
			uring_wake_done(e, cqe->res);
		} else if (cqe->user_data == URING_POOL_DATA) {
			uint64_t v;

			/* drained here; what it counted is reaped below */
			if (read(fpool_fd(e->pool), &v, sizeof(v)) < 0 && errno != EAGAIN)
				v = 0;
			e->pool_rearm = true;
		} else if (n == max) {
			break;
		} else {
			done[n].slot = (uint16_t)cqe->user_data;
			done[n].res = cqe->res;
			done[n].done_ns = 0;
			done[n].start_ns = 0;
			n++;
		}
		seen++;
	}
	io_uring_cq_advance(&e->ring, seen);
	if (e->pool != NULL && n < max)
		n += fpool_reap(e->pool, done + n, max - n);
	/* Queued now, submitted with the caller's next batch. */
	if (e->wake_rearm)
		uring_arm_wake(e);
	if (e->pool_rearm)
		uring_arm_pool(e);
	return n;
}

static void uring_close(struct engine *e)
{
	if (e == NULL)
		return;
	/* Exiting the ring cancels the wake read and waits for the I/O still in flight. */
	io_uring_queue_exit(&e->ring);
	fpool_free(e->pool);
	free(e->fqueued);
	free(e->bufs);
	free(e);
}

const struct engine_ops engine_uring_ops = {
    .name = "io_uring",
    .open = uring_open,
    .buffer = uring_buffer,
    .queue = uring_queue,
    .submit_and_wait = uring_submit_and_wait,
    .close = uring_close,
};
