/* SPDX-License-Identifier: MIT */
/* The file operations' threads: each takes a request, makes its calls, stamps them. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "fileop.h"
#include "fpool.h"
#include "fset.h"
#include "fsutil.h"
#include "xalloc.h"

/* readdir's buffer: getdents64 is called until the directory is read whole */
#define FPOOL_DENTS (32u << 10)

struct fpool_req {
	uint16_t slot;
	enum fileop op;
	int dirfd;
	bool direct;
	uint32_t len;
	void *buf;
	char path[FSET_PATH_MAX];
	char path2[FSET_PATH_MAX];
};

struct fpool {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct fpool_req *q; /* requests waiting, a ring of max entries */
	uint32_t qhead, qn;
	struct engine_completion *done; /* completions waiting, a ring of max entries */
	uint32_t dhead, dn;
	uint32_t max;      /* operations in flight at most: the rings' size */
	uint32_t nthreads; /* started, at most max_threads */
	uint32_t max_threads, idle;
	pthread_t *threads;
	bool stop;
	int efd;
};

static int fpool_readdir(int fd)
{
	char *buf = xmalloc(FPOOL_DENTS);
	long n;

	while ((n = syscall(SYS_getdents64, fd, buf, FPOOL_DENTS)) > 0)
		;
	free(buf);
	return n < 0 ? -errno : 0;
}

/* A whole file: open, read or write len bytes from its start, close. */
static int fpool_whole(const struct fpool_req *r, int dirfd, const char *name, bool write)
{
	int flags =
	    (write ? O_WRONLY : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | (r->direct ? O_DIRECT : 0);
	int fd = openat(dirfd, name, flags);
	uint32_t done = 0;

	if (fd < 0)
		return -errno;
	while (done < r->len) {
		ssize_t n = write ? pwrite(fd, (char *)r->buf + done, r->len - done, done)
		                  : pread(fd, (char *)r->buf + done, r->len - done, done);

		if (n < 0) {
			int e = errno;

			close(fd);
			return -e;
		}
		if (n == 0)
			break;
		done += (uint32_t)n;
	}
	close(fd);
	return (int)done;
}

/* The operation's calls on name in the directory dirfd (a readdir: dirfd itself). */
static int fpool_call(const struct fpool_req *r, int dirfd, const char *name, const char *name2)
{
	struct stat st;
	int fd, res = 0;

	switch (r->op) {
	case FILEOP_CREATE:
		fd =
		    openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
		return fd < 0 ? -errno : close(fd);
	case FILEOP_OPEN:
		fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		return fd < 0 ? -errno : close(fd);
	case FILEOP_STAT:
		res = fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW);
		break;
	case FILEOP_ACCESS:
		res = faccessat(dirfd, name, R_OK, AT_SYMLINK_NOFOLLOW);
		break;
	case FILEOP_SETATTR:
		/* a change every time: the mode goes between 0644 and 0640 by the slot */
		res = fchmodat(dirfd, name, r->slot & 1 ? 0640 : 0644, AT_SYMLINK_NOFOLLOW);
		break;
	case FILEOP_READDIR:
		return fpool_readdir(dirfd);
	case FILEOP_MKDIR:
		res = mkdirat(dirfd, name, 0755);
		break;
	case FILEOP_RMDIR:
		res = unlinkat(dirfd, name, AT_REMOVEDIR);
		break;
	case FILEOP_UNLINK:
		res = unlinkat(dirfd, name, 0);
		break;
	case FILEOP_RENAME:
		res = renameat(dirfd, name, dirfd, name2);
		break;
	case FILEOP_READ_FILE:
		return fpool_whole(r, dirfd, name, false);
	case FILEOP_WRITE_FILE:
		return fpool_whole(r, dirfd, name, true);
	default:
		return -EINVAL;
	}
	return res < 0 ? -errno : 0;
}

/*
 * One operation: its directory opened beneath the set's without following a symbolic
 * link (openat2 RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS: a directory of the set swapped
 * for a link to elsewhere fails with ELOOP or EXDEV, never reaches outside), then its
 * calls on the name in it, stamped from their start to their end (*start_ns).
 */
static int fpool_do(const struct fpool_req *r, uint64_t *start_ns)
{
	const char *slash = strrchr(r->path, '/'), *name = slash ? slash + 1 : r->path;
	const char *slash2 = strrchr(r->path2, '/'), *name2 = slash2 ? slash2 + 1 : r->path2;
	char dir[FSET_PATH_MAX];
	int dfd, res;

	if (r->op == FILEOP_READDIR) {
		snprintf(dir, sizeof(dir), "%s", r->path);
		name = ".";
	} else {
		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - r->path) : 1,
		         slash ? r->path : ".");
	}
	/* a rename stays in its directory: path2 names the same one */
	if (r->op == FILEOP_RENAME && (slash2 == NULL) != (slash == NULL)) {
		*start_ns = clock_now_ns();
		return -EXDEV;
	}
	/* a readdir's open of its directory is the operation's own (opendir) */
	if (r->op == FILEOP_READDIR)
		*start_ns = clock_now_ns();
	dfd = fs_open_nofollow(r->dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (r->op != FILEOP_READDIR)
		*start_ns = clock_now_ns();
	if (dfd < 0)
		return -errno;
	res = fpool_call(r, dfd, name, name2);
	close(dfd);
	return res;
}

static void *fpool_thread(void *arg)
{
	struct fpool *p = arg;
	sigset_t all;

	/* the worker's signals are the worker's */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct fpool_req r;
		struct engine_completion c;
		uint64_t one = 1;

		while (p->qn == 0 && !p->stop)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->qn == 0)
			break;
		r = p->q[p->qhead];
		p->qhead = (p->qhead + 1) % p->max;
		p->qn--;
		p->idle--;
		pthread_mutex_unlock(&p->mu);
		c.slot = r.slot;
		c.res = fpool_do(&r, &c.start_ns);
		c.done_ns = clock_now_ns();
		pthread_mutex_lock(&p->mu);
		p->done[(p->dhead + p->dn) % p->max] = c;
		p->dn++;
		p->idle++;
		if (write(p->efd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
			/* the ring reaps on its next wake anyway */
		}
		pthread_cond_broadcast(&p->cv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct fpool *fpool_new(uint32_t max_inflight, uint32_t max_threads, struct error *err)
{
	struct fpool *p = xcalloc(1, sizeof(*p));

	p->max = max_inflight ? max_inflight : 1;
	p->max_threads = max_threads < 1 ? 1 : max_threads > p->max ? p->max : max_threads;
	p->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (p->efd < 0) {
		error_set(err, "eventfd for file operations: %s", strerror(errno));
		free(p);
		return NULL;
	}
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->q = xcalloc(p->max, sizeof(*p->q));
	p->done = xcalloc(p->max, sizeof(*p->done));
	p->threads = xcalloc(p->max_threads, sizeof(*p->threads));
	return p;
}

int fpool_fd(const struct fpool *p)
{
	return p->efd;
}

void fpool_submit(struct fpool *p, const struct engine_io *io, void *buf)
{
	struct fpool_req *r;

	pthread_mutex_lock(&p->mu);
	/* at most max in flight (the engine's queue depth): the ring always has room */
	r = &p->q[(p->qhead + p->qn) % p->max];
	r->slot = io->slot;
	r->op = io->op;
	r->dirfd = io->dirfd;
	r->direct = io->direct;
	r->len = io->len;
	r->buf = buf;
	memcpy(r->path, io->path, sizeof(r->path));
	memcpy(r->path2, io->path2 ? io->path2 : "", io->path2 ? sizeof(r->path2) : 1);
	p->qn++;
	/* a thread for every operation in flight, so none waits behind one that blocks */
	if (p->idle < p->qn && p->nthreads < p->max_threads &&
	    pthread_create(&p->threads[p->nthreads], NULL, fpool_thread, p) == 0) {
		p->nthreads++;
		p->idle++;
	}
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

int fpool_reap(struct fpool *p, struct engine_completion *done, int max)
{
	int n = 0;

	pthread_mutex_lock(&p->mu);
	while (p->dn > 0 && n < max) {
		done[n++] = p->done[p->dhead];
		p->dhead = (p->dhead + 1) % p->max;
		p->dn--;
	}
	pthread_mutex_unlock(&p->mu);
	return n;
}

bool fpool_ready(struct fpool *p)
{
	bool ready;

	pthread_mutex_lock(&p->mu);
	ready = p->dn > 0;
	pthread_mutex_unlock(&p->mu);
	return ready;
}

void fpool_free(struct fpool *p)
{
	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	/* a thread leaves once the queue is empty: what was submitted completes first */
	for (uint32_t i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	close(p->efd);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->q);
	free(p->done);
	free(p->threads);
	free(p);
}
