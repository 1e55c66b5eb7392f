/* SPDX-License-Identifier: MIT */
/* The agent's worker pool: fork workers, hand them steps, merge their intervals. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "pool.h"
#include "worker.h"
#include "xalloc.h"

/* How long stopping workers may take to finish in-flight I/O before SIGKILL. */
#define POOL_STOP_GRACE_NS (3 * NSEC_PER_SEC)

struct pool {
	struct event_base *base;
	struct io_plan params; /* the pool's copy; dir and file_prefix are the pool's own */
	struct engine_sim_params sim;
	char *dir, *prefix;
	int target_fd; /* the target directory or device (O_PATH), inherited by workers */
	struct event *progress_ev;
	const struct pool_cbs *cbs;
	void *arg;

	void *shm;
	size_t shm_len;
	struct shm_step *step;
	struct shm_worker *slots; /* params.io.workers of them */

	pid_t *pids;    /* each worker's process: the streams of one share it */
	int *wake_fds;  /* a process's, by each of its workers; its own at index < nproc */
	uint32_t nproc; /* processes: worker w runs in process w % nproc */
	int notify_fd;
	struct event *notify_ev;
	uint64_t *consumed; /* intervals taken from each worker's ring */
	uint64_t started_ns;
	bool ready;
	bool failed;
	uint64_t deadman_ns; /* the failed worker stopped on its dead-man (pool_cbs.on_failed) */
	bool storage_lost;   /* the failed worker's storage stopped answering */

	/* The step in progress. */
	uint64_t gen;
	uint32_t step_no;
	uint32_t nintervals;
	uint32_t next_emit;
	/* nintervals; each record made as its first worker's interval comes, freed once sent */
	struct shm_interval **merged;
	uint32_t *contrib;  /* workers merged into each interval */
	uint32_t *finished; /* fixed work: of them, those done with their work */
	/* fixed work: the next step's (pool_set_work), and each worker's latest state */
	uint64_t work_ops, think_ns;
	uint64_t *offsets;
	uint64_t *work_done, *work_done_ns;
};

static size_t pool_step_size(uint32_t workers)
{
	size_t n = sizeof(struct shm_step) + workers * sizeof(struct shm_plan);

	return (n + 63) & ~(size_t)63;
}

static void pool_fail(struct pool *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void pool_fail(struct pool *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (p->failed)
		return;
	p->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->cbs->on_failed(p->arg, msg, p->deadman_ns, p->storage_lost);
}

/* Take every newly published interval from worker w's ring. */
static void pool_consume(struct pool *p, uint32_t w)
{
	struct shm_worker *sw = &p->slots[w];
	uint64_t pub = atomic_load_explicit(&sw->published, memory_order_acquire);

	if (pub - p->consumed[w] > SHM_SLOTS) {
		log_warn("worker %u: %llu intervals overwritten before the agent read them", w,
		         (unsigned long long)(pub - p->consumed[w] - SHM_SLOTS));
		p->consumed[w] = pub - SHM_SLOTS;
	}
	for (; p->consumed[w] < pub; p->consumed[w]++) {
		const struct shm_interval *in = &sw->slots[p->consumed[w] % SHM_SLOTS];

		if (p->merged == NULL || in->gen != p->gen || in->index >= p->nintervals)
			continue;
		/* reset when first used: a long step's records are mostly never touched */
		if (p->merged[in->index] == NULL) {
			p->merged[in->index] = xcalloc(1, sizeof(**p->merged));
			p->merged[in->index]->index = in->index;
			record_init(&p->merged[in->index]->rec);
		}
		record_merge(&p->merged[in->index]->rec, &in->rec);
		p->contrib[in->index]++;
		p->finished[in->index] += in->work_done_ns != 0;
		p->work_done[w] = in->work_done;
		p->work_done_ns[w] = in->work_done_ns;
	}
}

/* The step's records, those still held (a step ended early leaves some unsent). */
static void pool_free_records(struct pool *p)
{
	if (p->merged != NULL)
		for (uint32_t i = 0; i < p->nintervals; i++)
			if (p->merged[i] != NULL) {
				record_release(&p->merged[i]->rec);
				free(p->merged[i]);
			}
	free(p->merged);
	free(p->contrib);
	free(p->finished);
	p->merged = NULL;
	p->contrib = NULL;
	p->finished = NULL;
}

/* Deliver finished intervals in order, then the end of the step. */
static void pool_emit(struct pool *p)
{
	while (p->merged != NULL && p->next_emit < p->nintervals &&
	       p->contrib[p->next_emit] == p->params.io.workers) {
		uint32_t i = p->next_emit++;
		/*
		 * Taken out before it is sent, freed after: a long step holds only the intervals
		 * in flight, and a callback that ends the step frees the rest, never this one
		 * twice.
		 */
		struct shm_interval *m = p->merged[i];

		p->merged[i] = NULL;
		p->cbs->on_interval(p->arg, p->step_no, i, m, p->contrib[i], p->finished[i]);
		record_release(&m->rec);
		free(m);
		if (p->merged == NULL)
			return;
		if (p->next_emit == p->nintervals) {
			pool_free_records(p);
			p->cbs->on_step_done(p->arg, p->step_no, p->nintervals);
			return;
		}
	}
}

static void pool_check_states(struct pool *p)
{
	uint64_t laid = 0;
	uint32_t ready = 0;

	for (uint32_t w = 0; w < p->params.io.workers; w++) {
		uint32_t st = atomic_load_explicit(&p->slots[w].state, memory_order_acquire);

		if (st == SHM_WORKER_FAILED) {
			p->deadman_ns = p->slots[w].deadman_ns;
			p->storage_lost = p->slots[w].storage_lost;
			pool_fail(p, "worker %u: %s", w, p->slots[w].error);
			return;
		}
		if (st == SHM_WORKER_READY) {
			ready++;
			laid += p->slots[w].bytes_laid_out;
		}
	}
	if (!p->ready && ready == p->params.io.workers) {
		p->ready = true;
		event_del(p->progress_ev);
		p->cbs->on_ready(p->arg, laid, clock_now_ns() - p->started_ns);
	}
}

/* While targets are laid out, tell how far along they are. */
static void pool_progress_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pool *p = arg;
	uint64_t done = 0;

	if (p->ready || p->failed || p->cbs->on_progress == NULL)
		return;
	for (uint32_t w = 0; w < p->params.io.workers; w++)
		done += *(volatile uint64_t *)&p->slots[w].bytes_laid_out;
	if (done > 0)
		p->cbs->on_progress(p->arg, done, p->params.file_size * p->params.io.workers);
}

static void pool_notify_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pool *p = arg;
	uint64_t v;

	while (read(fd, &v, sizeof(v)) > 0)
		;
	if (p->failed)
		return;
	pool_check_states(p);
	if (p->failed)
		return;
	for (uint32_t w = 0; w < p->params.io.workers; w++)
		pool_consume(p, w);
	pool_emit(p);
}

static void pool_wake_all(struct pool *p)
{
	uint64_t one = 1;

	for (uint32_t w = 0; w < p->nproc; w++)
		if (p->wake_fds[w] >= 0 && write(p->wake_fds[w], &one, sizeof(one)) < 0)
			log_warn("waking worker %u: %s", w, strerror(errno));
}

static int pool_int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* Close every descriptor above stderr except the ones in keep (sorted). */
static void pool_close_inherited(const int *keep, int nkeep)
{
	unsigned first = 3;

	for (int i = 0; i < nkeep; i++) {
		if ((unsigned)keep[i] > first)
			close_range(first, (unsigned)keep[i] - 1, 0);
		first = (unsigned)keep[i] + 1;
	}
	close_range(first, ~0u, 0);
}

/*
 * What worker w works on: the pool's plan with the worker's own fields. Files: its
 * own file, the working set at its start. A shared device: sequential streams each get
 * a region of their own (like fio's offset_increment), random workers share the
 * working set.
 */
static void pool_worker_plan(const struct pool *p, uint32_t w, struct io_plan *cfg, char *path,
                             size_t len)
{
	const struct io_settings *io = &p->params.io;
	uint64_t span = io->working_set ? io->working_set : p->params.file_size;
	uint64_t unit = io->align > io->block_size ? io->align : io->block_size;

	if (p->params.sim != NULL)
		snprintf(path, len, "sim");
	else if (p->params.device)
		snprintf(path, len, "%s", p->dir);
	else
		snprintf(path, len, "%s/%s-w%u.%s", p->dir, p->prefix, w,
		         mix_is_files(&io->mix) ? "set" : "dat");
	*cfg = p->params;
	cfg->index = w;
	cfg->path = path;
	cfg->target_fd = p->target_fd;
	cfg->region_offset = 0;
	cfg->region_len = span;
	if (p->params.device && !rw_is_random(io->rw) && io->workers > 1) {
		uint64_t share = span / io->workers / unit * unit;

		cfg->region_offset = share * w;
		cfg->region_len = share;
	}
	cfg->seed =
	    ((uint64_t)getpid() << 32) ^ clock_now_ns() ^ ((uint64_t)w * 0x9e3779b97f4a7c15ull);
	cfg->step = p->step;
	cfg->slot = &p->slots[w];
	cfg->slot_parts = p->params.io.mix.nparts == 0
	                      ? NULL
	                      : (struct record_part *)(p->slots + p->params.io.workers) +
	                            (size_t)w * SHM_SLOTS * p->params.io.mix.nparts;
	cfg->wake_fd = p->wake_fds[w];
	cfg->notify_fd = p->notify_fd;
}

/*
 * How many processes drive the workload's workers (its streams): one per CPU they may run
 * on (where the target's completions land, else the agent's), never more than workers,
 * and enough that each process's ring holds its streams' slots. The sim: one each.
 */
static uint32_t pool_processes(const struct io_plan *params)
{
	uint32_t n = params->io.workers, qd = params->io.queue_depth ? params->io.queue_depth : 1;
	uint32_t nproc, cpus = (uint32_t)params->ncpus;
	cpu_set_t set;

	if (params->sim != NULL || n <= 1)
		return n;
	if (cpus == 0)
		cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (uint32_t)CPU_COUNT(&set) : n;
	nproc = cpus < n ? (cpus ? cpus : 1) : n;
	while (nproc < n && ((n + nproc - 1) / nproc > WORKER_STREAMS_MAX ||
	                     (uint64_t)((n + nproc - 1) / nproc) * qd > UINT16_MAX))
		nproc++;
	return nproc;
}

/* The forked child: owns nothing of the agent but its streams' slots and two eventfds. */
static void pool_child(struct pool *p, uint32_t w, pid_t parent)
{
	/* workers w, w + nproc, ...: this process's streams */
	uint32_t n = 0, mine = (p->params.io.workers - w + p->nproc - 1) / p->nproc;
	struct io_plan *cfgs = xcalloc(mine, sizeof(*cfgs));
	char(*paths)[4096] = xcalloc(mine, sizeof(*paths));
	sigset_t all;
	char tag[64];
	int keep[3], nkeep = 2;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	/* The TLS socket, libevent's fds and other workers' eventfds are not ours. */
	keep[0] = p->wake_fds[w] < p->notify_fd ? p->wake_fds[w] : p->notify_fd;
	keep[1] = p->wake_fds[w] < p->notify_fd ? p->notify_fd : p->wake_fds[w];
	if (p->target_fd > 0) /* the target's directory or device, opened by the agent */
		keep[nkeep++] = p->target_fd;
	qsort(keep, (size_t)nkeep, sizeof(keep[0]), pool_int_cmp);
	pool_close_inherited(keep, nkeep);
	snprintf(tag, sizeof(tag), "iocurve-worker[%u]", w);
	log_set_tag(tag);

	for (uint32_t s = w; s < p->params.io.workers && n < mine; s += p->nproc) {
		pool_worker_plan(p, s, &cfgs[n], paths[n], sizeof(paths[n]));
		n++;
	}
	/*
	 * Where the target's completions land, a CPU of them each (a failure leaves it where
	 * it was): a process left free to move between them is woken on another CPU than
	 * the one its completion came to whenever that one is busy (docs/methodology.md,
	 * "Where the workers run").
	 */
	if (cfgs[0].ncpus > 0) {
		cpu_set_t one;
		int k = (int)(w % (uint32_t)cfgs[0].ncpus);

		CPU_ZERO(&one);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cfgs[0].cpus) && k-- == 0) {
				CPU_SET(c, &one);
				break;
			}
		sched_setaffinity(0, sizeof(one), &one);
	}
	_exit(worker_run_streams(cfgs, n));
}

struct pool *pool_start(struct event_base *base, const struct io_plan *params,
                        const struct pool_cbs *cbs, void *arg, struct error *err)
{
	struct pool *p = xcalloc(1, sizeof(*p));
	uint32_t n = params->io.workers;
	pid_t parent = getpid();

	p->base = base;
	p->params = *params;
	p->dir = xstrdup(params->sim ? "sim" : params->dir);
	p->prefix = xstrdup(params->file_prefix);
	if (params->sim != NULL) {
		p->sim = *params->sim;
		p->params.sim = &p->sim;
	}
	p->params.dir = NULL;
	p->params.file_prefix = NULL;
	p->cbs = cbs;
	p->arg = arg;
	/* a mix's parts after the slots, for the intervals of a mix only (cfg->slot_parts) */
	p->shm_len = pool_step_size(n) + n * sizeof(struct shm_worker) +
	             (size_t)n * SHM_SLOTS * params->io.mix.nparts * sizeof(struct record_part);
	p->shm = mmap(NULL, p->shm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	p->pids = xcalloc(n, sizeof(*p->pids));
	p->wake_fds = xcalloc(n, sizeof(*p->wake_fds));
	p->consumed = xcalloc(n, sizeof(*p->consumed));
	p->offsets = xcalloc(n ? n : 1, sizeof(*p->offsets));
	p->work_done = xcalloc(n ? n : 1, sizeof(*p->work_done));
	p->work_done_ns = xcalloc(n ? n : 1, sizeof(*p->work_done_ns));
	p->notify_fd = -1;
	p->target_fd = params->target_fd > 0 ? fcntl(params->target_fd, F_DUPFD_CLOEXEC, 3) : -1;
	for (uint32_t w = 0; w < n; w++)
		p->wake_fds[w] = -1;
	if (p->shm == MAP_FAILED) {
		p->shm = NULL;
		error_set(err, "cannot map %zu bytes of shared memory for %u workers: %s",
		          p->shm_len, n, strerror(errno));
		goto err;
	}
	p->step = p->shm;
	p->step->deadman_ns = params->deadman_ns;
	shm_alive(p->step, clock_now_ns());
	p->slots = (struct shm_worker *)((char *)p->shm + pool_step_size(n));
	p->notify_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->notify_fd < 0)
		goto err_errno;
	p->nproc = pool_processes(params);
	for (uint32_t w = 0; w < n; w++) {
		p->wake_fds[w] = w < p->nproc ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)
		                              : p->wake_fds[w % p->nproc];
		if (p->wake_fds[w] < 0)
			goto err_errno;
	}
	p->notify_ev = event_new(base, p->notify_fd, EV_READ | EV_PERSIST, pool_notify_cb, p);
	event_add(p->notify_ev, NULL);
	p->progress_ev = event_new(base, -1, EV_PERSIST, pool_progress_cb, p);
	if (params->sim == NULL && !params->device)
		event_add(p->progress_ev, &(struct timeval){1, 0});
	p->started_ns = clock_now_ns();
	for (uint32_t w = 0; w < p->nproc; w++) {
		pid_t pid = fork();

		if (pid < 0)
			goto err_errno;
		if (pid == 0)
			pool_child(p, w, parent);
		for (uint32_t s = w; s < n; s += p->nproc)
			p->pids[s] = pid;
	}
	log_info("workload %u: forked %u workers on %s%s in %u process%s", params->workload_index,
	         n, p->dir, params->sim || params->device ? "" : "/*", p->nproc,
	         p->nproc == 1 ? "" : "es");
	return p;

err_errno:
	error_set(err, "starting %u workers: %s", n, strerror(errno));
err:
	pool_free(p);
	return NULL;
}

int pool_start_step(struct pool *p, uint32_t step, const double *rates, uint64_t start_ns,
                    uint64_t interval_ns, uint32_t nintervals, struct error *err)
{
	if (!p->ready || p->failed) {
		error_set(err, "step %u: workers are not ready", step);
		return -1;
	}
	pool_free_records(p);
	/*
	 * A pointer and two counts an interval (the count is bounded: params_check_step); the
	 * records, ~150 KB each, are made as intervals come in and freed once sent.
	 */
	p->merged = xcalloc(nintervals, sizeof(*p->merged));
	p->contrib = xcalloc(nintervals, sizeof(*p->contrib));
	p->finished = xcalloc(nintervals, sizeof(*p->finished));
	memset(p->work_done, 0, p->params.io.workers * sizeof(*p->work_done));
	memset(p->work_done_ns, 0, p->params.io.workers * sizeof(*p->work_done_ns));
	p->step_no = step;
	p->nintervals = nintervals;
	p->next_emit = 0;

	shm_step_write_begin(p->step);
	p->step->workload_index = p->params.workload_index;
	p->step->step = step;
	p->step->start_ns = start_ns;
	p->step->interval_ns = interval_ns;
	p->step->nintervals = nintervals;
	p->step->work_ops = p->work_ops;
	p->step->think_ns = p->think_ns;
	for (uint32_t w = 0; w < p->params.io.workers; w++) {
		p->step->plan[w].rate = rates[w];
		p->step->plan[w].start_ns = p->offsets[w];
	}
	p->gen = shm_step_write_end(p->step);
	/* fixed work is the one step it was set for */
	p->work_ops = p->think_ns = 0;
	memset(p->offsets, 0, p->params.io.workers * sizeof(*p->offsets));
	pool_wake_all(p);
	return 0;
}

void pool_set_work(struct pool *p, uint64_t work_ops, uint64_t think_ns, const uint64_t *offsets,
                   size_t noffsets)
{
	p->work_ops = work_ops;
	p->think_ns = think_ns;
	for (uint32_t w = 0; w < p->params.io.workers; w++)
		p->offsets[w] = offsets != NULL && w < noffsets ? offsets[w] : 0;
}

int pool_work_fits(const struct pool *p, uint64_t work_ops, struct error *err)
{
	struct io_plan cfg;
	char path[4096];

	if (work_ops == 0 || rw_is_random(p->params.io.rw) || p->params.io.workers == 0)
		return 0;
	pool_worker_plan(p, 0, &cfg, path, sizeof(path));
	if (work_ops <= cfg.region_len / p->params.io.block_size)
		return 0;
	error_set(err,
	          "fixed work of %llu operations of %u bytes per worker is more than each "
	          "sequential worker's %llu bytes of %s: it would wrap around",
	          (unsigned long long)work_ops, p->params.io.block_size,
	          (unsigned long long)cfg.region_len, p->params.device ? "the device" : "its file");
	return -1;
}

void pool_work(const struct pool *p, uint64_t *done_ns, uint64_t *ops)
{
	memcpy(done_ns, p->work_done_ns, p->params.io.workers * sizeof(*done_ns));
	memcpy(ops, p->work_done, p->params.io.workers * sizeof(*ops));
}

void pool_end_step(struct pool *p, uint32_t step)
{
	uint32_t done;

	if (p->failed || p->merged == NULL || p->step_no != step)
		return;
	/* Deliver what is complete first: the coordinator's window ends there. */
	for (uint32_t w = 0; w < p->params.io.workers; w++)
		pool_consume(p, w);
	pool_emit(p);
	if (p->merged == NULL)
		return; /* the step had just finished on its own */
	/* A new generation with no intervals: workers end the step and go idle. */
	shm_step_write_begin(p->step);
	p->step->nintervals = 0;
	p->gen = shm_step_write_end(p->step);
	pool_wake_all(p);
	done = p->next_emit;
	pool_free_records(p);
	p->cbs->on_step_done(p->arg, p->step_no, done);
}

void pool_alive(struct pool *p, uint64_t now_ns)
{
	if (p->step != NULL)
		shm_alive(p->step, now_ns);
}

bool pool_child_exited(struct pool *p, pid_t pid, int status)
{
	for (uint32_t w = 0; w < p->params.io.workers; w++) {
		if (p->pids[w] != pid)
			continue;
		/* every worker of that process is gone with it */
		for (uint32_t s = w; s < p->params.io.workers; s++)
			if (p->pids[s] == pid)
				p->pids[s] = 0;
		/* A worker that failed says why in its slot; prefer that to the exit status. */
		pool_check_states(p);
		if (WIFSIGNALED(status))
			pool_fail(p, "worker %u (pid %d) killed by signal %d (%s)", w, (int)pid,
			          WTERMSIG(status), strsignal(WTERMSIG(status)));
		else
			pool_fail(p, "worker %u (pid %d) exited with status %d", w, (int)pid,
			          WEXITSTATUS(status));
		return true;
	}
	return false;
}

/* Wait for every worker, up to the grace period, then kill what is left. */
static void pool_reap(struct pool *p)
{
	uint64_t deadline = clock_now_ns() + POOL_STOP_GRACE_NS;
	uint32_t left;

	do {
		left = 0;
		for (uint32_t w = 0; w < p->params.io.workers; w++) {
			if (p->pids[w] <= 0)
				continue;
			pid_t r = waitpid(p->pids[w], NULL, WNOHANG);

			if (r == p->pids[w] || (r < 0 && errno == ECHILD))
				p->pids[w] = 0;
			else
				left++;
		}
		if (left)
			nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	} while (left && clock_now_ns() < deadline);
	for (uint32_t w = 0; w < p->params.io.workers; w++) {
		if (p->pids[w] <= 0)
			continue;
		log_warn("worker %u (pid %d) did not stop in time; killing it", w, (int)p->pids[w]);
		kill(p->pids[w], SIGKILL);
		waitpid(p->pids[w], NULL, 0);
		p->pids[w] = 0;
	}
}

void pool_free(struct pool *p)
{
	if (p == NULL)
		return;
	if (p->step != NULL) {
		shm_step_write_begin(p->step);
		p->step->stop = 1;
		shm_step_write_end(p->step);
		pool_wake_all(p);
	}
	pool_reap(p);
	if (p->notify_ev != NULL)
		event_free(p->notify_ev);
	if (p->progress_ev != NULL)
		event_free(p->progress_ev);
	for (uint32_t w = 0; w < p->params.io.workers && w < p->nproc; w++)
		if (p->wake_fds[w] >= 0)
			close(p->wake_fds[w]);
	if (p->notify_fd >= 0)
		close(p->notify_fd);
	if (p->target_fd > 0)
		close(p->target_fd);
	if (p->shm != NULL)
		munmap(p->shm, p->shm_len);
	pool_free_records(p);
	free(p->offsets);
	free(p->work_done);
	free(p->work_done_ns);
	free(p->pids);
	free(p->wake_fds);
	free(p->consumed);
	free(p->dir);
	free(p->prefix);
	free(p);
}
