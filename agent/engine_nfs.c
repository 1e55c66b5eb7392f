/* SPDX-License-Identifier: MIT */
/*
 * The NFS engine: the agent's own NFS client (libnfs's asynchronous calls), no mount. Each
 * stream has `connections` TCP connections to the server, used round robin; their sockets
 * are polled beside the wake eventfd. A read or write is one READ or WRITE call, a sync one
 * COMMIT; a file operation is the calls libnfs makes for it (the LOOKUPs of its path, then
 * GETATTR, ACCESS, SETATTR, CREATE, REMOVE, READDIRPLUS, MKDIR, RMDIR or RENAME; a whole
 * file's read or write its READs or WRITEs too). An operation's storage latency is from
 * its queueing (the worker's submission stamp) to its last reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nfsc/libnfs.h>

#include "clock.h"
#include "engine.h"
#include "fset.h"
#include "nfs3ops.h"
#include "nfsconn.h"
#include "xalloc.h"

#define NFS_ALIGN 4096u
/* a file operation's path: the stream's directory within the export, then the set's path */
#define NFS_PATH_MAX (1024 + FSET_PATH_MAX + 2)

/* What a whole file's read or write waits for next. */
enum nfs_stage { NFS_STAGE_CALL = 0, NFS_STAGE_MOVE, NFS_STAGE_CLOSE };

struct nfs_req {
	struct engine *e;
	struct engine_io io;
	unsigned conn;
	uint64_t sent_ns;
	bool busy;
	enum nfs_stage stage;
	struct nfsfh *fh; /* read-file, write-file: the file opened */
	int res;
	char path[NFS_PATH_MAX];
	char path2[NFS_PATH_MAX];
	struct nfs3_op op3; /* a file operation as NFSv3 calls on handles */
};

struct engine {
	struct nfs_context *conn[ENGINE_NFS_CONN_MAX * 8];
	unsigned nconn, next;
	unsigned nfiles;
	struct nfsfh **fh; /* nconn x nfiles: each data file opened on each connection */
	char (*dir)[1024]; /* per stream: its file (data) or its set's directory (files) */
	uint32_t queue_depth, block_size;
	unsigned char *bufs;
	int wake_fd;
	struct nfs_req *req; /* per slot */
	struct engine_completion *ready;
	uint32_t nready;
	uint32_t inflight;
	uint64_t timeout_ns;
	uint64_t looked_ns; /* when the calls in flight were last looked at for one overdue */
	char url[1400];
	char err[2048];
	struct nfs3ops *ops3; /* NFSv3 file sets: their operations on handles */
};

static void nfs_finish(struct nfs_req *r, int res)
{
	struct engine *e = r->e;

	r->busy = false;
	e->inflight--;
	e->ready[e->nready].slot = r->io.slot;
	e->ready[e->nready].res = res;
	e->ready[e->nready].done_ns = 0;
	e->ready[e->nready].start_ns = 0;
	e->nready++;
}

static void nfs_noop_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)err, (void)nfs, (void)data, (void)priv;
}

/* A call that returns nothing to keep: its result is the operation's. */
static void nfs_plain_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs, (void)data;
	nfs_finish(priv, err < 0 ? err : 0);
}

static void nfs_read_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct nfs_req *r = priv;

	(void)nfs;
	if (err > 0)
		memcpy(r->e->bufs + (size_t)r->io.slot * r->e->block_size, data,
		       (size_t)err <= r->io.len ? (size_t)err : r->io.len);
	nfs_finish(r, err);
}

static void nfs_write_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	(void)nfs, (void)data;
	nfs_finish(priv, err);
}

/* create, open: the file made or found, closed again (NFSv3 has no call for that). */
static void nfs_opened_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	if (err >= 0)
		nfs_close_async(nfs, data, nfs_noop_cb, NULL);
	nfs_finish(priv, err < 0 ? err : 0);
}

static void nfs_dir_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	if (err >= 0)
		nfs_closedir(nfs, data);
	nfs_finish(priv, err < 0 ? err : 0);
}

/* read-file, write-file: opened, then the whole file moved, then closed. */
static void nfs_whole_cb(int err, struct nfs_context *nfs, void *data, void *priv)
{
	struct nfs_req *r = priv;
	void *buf = r->e->bufs + (size_t)r->io.slot * r->e->block_size;
	int rc;

	if (r->stage == NFS_STAGE_CALL) {
		if (err < 0) {
			nfs_finish(r, err);
			return;
		}
		r->fh = data;
		r->stage = NFS_STAGE_MOVE;
		rc = r->io.op == FILEOP_WRITE_FILE
		         ? nfs_pwrite_async(nfs, r->fh, 0, r->io.len, buf, nfs_whole_cb, r)
		         : nfs_pread_async(nfs, r->fh, 0, r->io.len, nfs_whole_cb, r);
		if (rc < 0) {
			nfs_close_async(nfs, r->fh, nfs_noop_cb, NULL);
			nfs_finish(r, -EIO);
		}
		return;
	}
	if (err > 0 && r->io.op == FILEOP_READ_FILE)
		memcpy(buf, data, (size_t)err <= r->io.len ? (size_t)err : r->io.len);
	nfs_close_async(nfs, r->fh, nfs_noop_cb, NULL);
	nfs_finish(r, err);
}

static void nfs_op3_done(struct nfs3_op *op, int res)
{
	nfs_finish((struct nfs_req *)((char *)op - offsetof(struct nfs_req, op3)), res);
}

/* The file operation's calls on its path; -1 when libnfs could not queue them. */
static int nfs_file_call(struct engine *e, struct nfs_context *c, struct nfs_req *r)
{
	const struct engine_io *io = &r->io;
	const char *dir = e->dir[io->file < e->nfiles ? io->file : 0];

	if (e->ops3 != NULL) {
		r->op3.done = nfs_op3_done;
		r->op3.buf = e->bufs + (size_t)io->slot * e->block_size;
		r->op3.len = io->len;
		r->op3.slot = io->slot;
		return nfs3ops_start(e->ops3, &r->op3, c, io->file < e->nfiles ? io->file : 0,
		                     io->op, io->path, io->path2);
	}

	snprintf(r->path, sizeof(r->path), "%s/%s", dir, io->path ? io->path : "");
	if (r->path[strlen(r->path) - 1] == '/')
		r->path[strlen(r->path) - 1] = '\0';
	switch (io->op) {
	case FILEOP_CREATE:
		return nfs_create_async(c, r->path, O_EXCL | O_WRONLY, 0644, nfs_opened_cb, r);
	case FILEOP_OPEN:
		return nfs_open_async(c, r->path, O_RDONLY, nfs_opened_cb, r);
	case FILEOP_STAT:
		return nfs_stat64_async(c, r->path, nfs_plain_cb, r);
	case FILEOP_ACCESS:
		return nfs_access_async(c, r->path, R_OK, nfs_plain_cb, r);
	case FILEOP_SETATTR:
		/* a change every time: the mode goes between 0644 and 0640 by the slot */
		return nfs_chmod_async(c, r->path, io->slot & 1 ? 0640 : 0644, nfs_plain_cb, r);
	case FILEOP_READDIR:
		return nfs_opendir_async(c, r->path, nfs_dir_cb, r);
	case FILEOP_MKDIR:
		return nfs_mkdir_async(c, r->path, nfs_plain_cb, r);
	case FILEOP_RMDIR:
		return nfs_rmdir_async(c, r->path, nfs_plain_cb, r);
	case FILEOP_UNLINK:
		return nfs_unlink_async(c, r->path, nfs_plain_cb, r);
	case FILEOP_RENAME:
		snprintf(r->path2, sizeof(r->path2), "%s/%s", dir, io->path2 ? io->path2 : "");
		return nfs_rename_async(c, r->path, r->path2, nfs_plain_cb, r);
	case FILEOP_READ_FILE:
	case FILEOP_WRITE_FILE:
		r->stage = NFS_STAGE_CALL;
		return nfs_open_async(c, r->path, io->op == FILEOP_WRITE_FILE ? O_WRONLY : O_RDONLY,
		                      nfs_whole_cb, r);
	default:
		return -1;
	}
}

static void nfs_engine_close(struct engine *e);

static struct engine *nfs_engine_open(const struct engine_params *p, struct error *err)
{
	struct engine *e = xcalloc(1, sizeof(*e));
	unsigned nfiles = p->nfds > 0 ? p->nfds : 1, per = p->nfs->connections;
	void *bufs = NULL;
	int ret;

	nfsconn_url(p->nfs, e->url, sizeof(e->url));
	if (per == 0 || per > ENGINE_NFS_CONN_MAX ||
	    (size_t)per * nfiles > 8 * ENGINE_NFS_CONN_MAX) {
		error_set(err, "%s: %u connections for each of %u streams: at most %u in all",
		          e->url, per, nfiles, 8 * ENGINE_NFS_CONN_MAX);
		free(e);
		return NULL;
	}
	e->queue_depth = p->queue_depth;
	e->block_size = p->block_size;
	e->wake_fd = p->wake_fd;
	e->timeout_ns = p->nfs->timeout_ns;
	e->nfiles = nfiles;
	ret = posix_memalign(&bufs, NFS_ALIGN, (size_t)p->queue_depth * p->block_size);
	if (ret) {
		error_set(err, "allocating %u buffers of %u bytes: %s", p->queue_depth,
		          p->block_size, strerror(ret));
		free(e);
		return NULL;
	}
	e->bufs = bufs;
	memset(e->bufs, 0, (size_t)p->queue_depth * p->block_size);
	e->req = xcalloc(p->queue_depth, sizeof(*e->req));
	e->ready = xcalloc(p->queue_depth, sizeof(*e->ready));
	e->dir = xcalloc(nfiles, sizeof(*e->dir));
	e->fh = xcalloc((size_t)per * nfiles, sizeof(*e->fh));
	for (unsigned i = 0; i < nfiles; i++)
		snprintf(e->dir[i], sizeof(e->dir[i]), "%s", p->nfs_paths[i]);
	/* every stream's connections in one engine: a call goes to its own stream's */
	e->nconn = per * nfiles;
	for (unsigned c = 0; c < e->nconn; c++) {
		e->conn[c] = nfsconn_open(p->nfs, err);
		if (e->conn[c] == NULL)
			goto fail;
		if (p->files)
			continue;
		for (unsigned f = 0; f < nfiles; f++) {
			int rc =
			    nfs_open(e->conn[c], e->dir[f], O_RDWR | (p->nfs->dsync ? O_SYNC : 0),
			             &e->fh[c * nfiles + f]);

			if (rc < 0) {
				error_set(err, "%s/%s: opening it: %s", e->url, e->dir[f],
				          nfs_get_error(e->conn[c]));
				goto fail;
			}
		}
	}
	/* NFSv3 file sets: one call per operation on handles (libnfs's NFSv4 has no raw calls) */
	if (p->files && p->nfs->version == 3 && p->nfs_sets != NULL) {
		e->ops3 = nfs3ops_new(e->conn[0], e->url, p->nfs_paths, p->nfs_sets, nfiles, err);
		if (e->ops3 == NULL)
			goto fail;
	}
	/* past the mount, no call of ours times out in libnfs: the engine's own clock judges */
	for (unsigned c = 0; c < e->nconn; c++)
		nfs_set_timeout(e->conn[c], -1);
	return e;
fail:
	nfs_engine_close(e); /* what was opened so far: the rest is NULL */
	return NULL;
}

static void *nfs_engine_buffer(struct engine *e, uint16_t slot)
{
	return e->bufs + (size_t)slot * e->block_size;
}

/* Queued into libnfs now (encoded, not yet on the wire): sent when the sockets are served. */
static void nfs_engine_queue(struct engine *e, const struct engine_io *io)
{
	struct nfs_req *r = &e->req[io->slot];
	unsigned file = io->file < e->nfiles ? io->file : 0, per = e->nconn / e->nfiles;
	unsigned conn = file * per + (e->next++ % per);
	struct nfs_context *c = e->conn[conn];
	struct nfsfh *fh = e->fh[conn * e->nfiles + file];
	void *buf = e->bufs + (size_t)io->slot * e->block_size;
	int rc;

	r->e = e;
	r->io = *io;
	r->conn = conn;
	r->busy = true;
	r->fh = NULL;
	r->sent_ns = clock_now_ns();
	e->inflight++;
	if (io->op != FILEOP_NONE)
		rc = nfs_file_call(e, c, r);
	else if (io->sync != ENGINE_SYNC_NONE)
		rc = nfs_fsync_async(c, fh, nfs_plain_cb, r);
	else if (io->write)
		rc = nfs_pwrite_async(c, fh, io->offset, io->len, buf, nfs_write_cb, r);
	else
		rc = nfs_pread_async(c, fh, io->offset, io->len, nfs_read_cb, r);
	if (rc < 0)
		nfs_finish(r, rc == -ENOENT ? -ENOENT : -EIO);
}

/* The oldest call still unanswered, past the timeout: the server is gone. */
static bool nfs_engine_overdue(struct engine *e, uint64_t now)
{
	uint64_t oldest = UINT64_MAX;
	const struct nfs_req *o = NULL;

	/* a walk of every slot, ten times a second at most: not on every wake */
	if (now - e->looked_ns < NSEC_PER_SEC / 10)
		return false;
	e->looked_ns = now;
	for (uint32_t i = 0; i < e->queue_depth; i++)
		if (e->req[i].busy && e->req[i].sent_ns < oldest) {
			oldest = e->req[i].sent_ns;
			o = &e->req[i];
		}
	if (o == NULL || now - oldest < e->timeout_ns)
		return false;
	snprintf(e->err, sizeof(e->err),
	         "%s: the server has not answered for %.1f s (a %s, %u calls unanswered; "
	         "target nfs.timeout %.0f s)",
	         e->url, (double)(now - oldest) / 1e9,
	         o->io.op != FILEOP_NONE          ? fileop_name(o->io.op)
	         : o->io.sync != ENGINE_SYNC_NONE ? "commit"
	         : o->io.write                    ? "write"
	                                          : "read",
	         e->inflight, (double)e->timeout_ns / 1e9);
	return true;
}

static int nfs_engine_submit_and_wait(struct engine *e, uint64_t wait_ns,
                                      struct engine_completion *done, int max, bool *woken)
{
	struct pollfd pfd[ENGINE_NFS_CONN_MAX * 8 + 1];
	uint64_t now = clock_now_ns(), until;
	int n;

	*woken = false;
	/* what was queued goes out before any sleep */
	for (unsigned c = 0; c < e->nconn; c++)
		if (nfs_which_events(e->conn[c]) & POLLOUT)
			nfs_service(e->conn[c], POLLOUT);
	until = wait_ns == ENGINE_WAIT_EVER ? UINT64_MAX : now + wait_ns;
	for (;;) {
		struct timespec ts, *tsp = &ts;
		uint64_t wait;
		int rc;

		if (e->nready > 0)
			until = now; /* hand over what came; a poll without a wait still serves */
		for (unsigned c = 0; c < e->nconn; c++) {
			pfd[c].fd = nfs_get_fd(e->conn[c]);
			pfd[c].events = (short)nfs_which_events(e->conn[c]);
			pfd[c].revents = 0;
		}
		pfd[e->nconn].fd = e->wake_fd;
		pfd[e->nconn].events = POLLIN;
		pfd[e->nconn].revents = 0;
		/* a call overdue (and libnfs's reconnect) is looked at at least every second */
		wait = until <= now ? 0 : until - now;
		if (e->inflight > 0 && wait > NSEC_PER_SEC)
			wait = NSEC_PER_SEC;
		if (wait == UINT64_MAX - now) {
			tsp = NULL;
		} else {
			ts.tv_sec = (time_t)(wait / NSEC_PER_SEC);
			ts.tv_nsec = (long)(wait % NSEC_PER_SEC);
		}
		rc = ppoll(pfd, e->nconn + 1, tsp, NULL);
		if (rc < 0 && errno != EINTR)
			return -errno;
		for (unsigned c = 0; rc > 0 && c < e->nconn; c++)
			if (pfd[c].revents != 0 && nfs_service(e->conn[c], pfd[c].revents) < 0) {
				snprintf(e->err, sizeof(e->err), "%s: connection %u: %s", e->url, c,
				         nfs_get_error(e->conn[c]));
				return -ECONNRESET;
			}
		if (rc > 0 && (pfd[e->nconn].revents & POLLIN)) {
			uint64_t v;

			if (read(e->wake_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
				return -errno;
			*woken = true;
		}
		now = clock_now_ns();
		/* libnfs's own timers (reconnects) run when served, even with nothing to read */
		for (unsigned c = 0; c < e->nconn; c++)
			nfs_service(e->conn[c], 0);
		if (nfs_engine_overdue(e, now))
			return -ETIMEDOUT;
		if (e->nready > 0 || *woken || now >= until)
			break;
	}
	n = (int)e->nready < max ? (int)e->nready : max;
	memcpy(done, e->ready, (size_t)n * sizeof(*done));
	memmove(e->ready, e->ready + n, (size_t)(e->nready - (uint32_t)n) * sizeof(*e->ready));
	e->nready -= (uint32_t)n;
	return n;
}

static void nfs_engine_close(struct engine *e)
{
	if (e == NULL)
		return;
	/* what is in flight is dropped with its context; its callbacks see an error */
	for (unsigned c = 0; c < e->nconn; c++)
		nfsconn_close(e->conn[c]);
	nfs3ops_free(e->ops3);
	free(e->fh);
	free(e->dir);
	free(e->req);
	free(e->ready);
	free(e->bufs);
	free(e);
}

static const char *nfs_engine_error(struct engine *e)
{
	return e->err[0] != '\0' ? e->err : NULL;
}

const struct engine_ops engine_nfs_ops = {
    .name = "nfs",
    .open = nfs_engine_open,
    .buffer = nfs_engine_buffer,
    .queue = nfs_engine_queue,
    .submit_and_wait = nfs_engine_submit_and_wait,
    .close = nfs_engine_close,
    .error = nfs_engine_error,
};
