/* SPDX-License-Identifier: MIT */
/* Tests' stand-in for the agent's pool: shared memory, eventfds and forked real workers. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "worker_rig.h"
#include "xalloc.h"

char wt_dir[64];

struct wt_rig *wt_rig_new(unsigned n)
{
	struct wt_rig *r = xcalloc(1, sizeof(*r));

	r->n = n;
	r->step_size = sizeof(struct shm_step) + n * sizeof(struct shm_plan);
	r->step =
	    mmap(NULL, r->step_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r->step != MAP_FAILED);
	r->slots_size = n * sizeof(struct shm_worker);
	r->slots =
	    mmap(NULL, r->slots_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(r->slots != MAP_FAILED);
	for (unsigned i = 0; i < n; i++)
		r->wake_fd[i] = r->notify_fd[i] = r->pid[i] = -1;
	return r;
}

/* Fork worker i, the way the agent does: the child runs worker_run and nothing else. */
/* Worker i's plan as the agent's pool makes it (path in r->path[i], eventfds made). */
static void wt_plan(struct wt_rig *r, unsigned i, const struct wt_worker_opts *o,
                    struct io_plan *cfg)
{
	*cfg = (struct io_plan){
	    .io = {.rw = o->rw,
	           .block_size = o->block_size ? o->block_size : 4096,
	           .queue_depth = o->queue_depth ? o->queue_depth : 16,
	           .direct = o->direct,
	           .poisson = o->poisson,
	           .efficient = o->timing == PACER_EFFICIENT},
	    .index = i,
	    .file_size = WT_FILE_SIZE,
	    .seed = 0x1234 + i,
	    .sim = o->sim,
	    .queue_sized = o->queue_sized,
	    /* the worker's fleet index is phase_base + index */
	    .phase_base = o->phase_index - i,
	    .phase_total = o->phase_total,
	    .step = r->step,
	    .slot = &r->slots[i],
	};
	if (o->sim)
		snprintf(r->path[i], sizeof(r->path[i]), "sim");
	else if (o->name)
		snprintf(r->path[i], sizeof(r->path[i]), "%s/%s", wt_dir, o->name);
	else
		snprintf(r->path[i], sizeof(r->path[i]), "%s", o->path);
	cfg->path = r->path[i];
	r->wake_fd[i] = eventfd(0, EFD_CLOEXEC | (o->blocking_wake ? 0 : EFD_NONBLOCK));
	r->notify_fd[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(r->wake_fd[i] >= 0 && r->notify_fd[i] >= 0);
	cfg->wake_fd = r->wake_fd[i];
	cfg->notify_fd = r->notify_fd[i];
}

void wt_fork(struct wt_rig *r, unsigned i, const struct wt_worker_opts *o)
{
	struct io_plan cfg;

	wt_plan(r, i, o, &cfg);
	r->pid[i] = fork();
	assert_true(r->pid[i] >= 0);
	if (r->pid[i] == 0)
		_exit(worker_run(&cfg));
}

void wt_fork_streams(struct wt_rig *r, const struct wt_worker_opts *o)
{
	struct io_plan cfg[WT_MAX];
	pid_t pid;

	for (unsigned i = 0; i < r->n; i++) {
		wt_plan(r, i, &o[i], &cfg[i]);
		/* one eventfd wakes the process: the others name the same one */
		if (i > 0) {
			close(r->wake_fd[i]);
			r->wake_fd[i] = dup(r->wake_fd[0]);
			cfg[i].wake_fd = r->wake_fd[0];
		}
	}
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(worker_run_streams(cfg, r->n));
	for (unsigned i = 0; i < r->n; i++)
		r->pid[i] = i == 0 ? pid : 0;
}

/* Sleep on worker i's notify eventfd until it changes state or publishes; false on timeout. */
bool wt_wait_notify(struct wt_rig *r, unsigned i, uint64_t deadline_ns)
{
	struct pollfd p = {.fd = r->notify_fd[i], .events = POLLIN};
	uint64_t now = clock_now_ns(), v;

	if (now >= deadline_ns)
		return false;
	if (poll(&p, 1, (int)((deadline_ns - now) / NSEC_PER_MSEC) + 1) <= 0)
		return false;
	assert_int_equal(read(r->notify_fd[i], &v, sizeof(v)), sizeof(v));
	return true;
}

uint32_t wt_wait_state(struct wt_rig *r, unsigned i)
{
	uint64_t deadline = clock_now_ns() + 10 * NSEC_PER_SEC;
	uint32_t state;

	while ((state = atomic_load_explicit(&r->slots[i].state, memory_order_acquire)) ==
	       SHM_WORKER_STARTING)
		if (!wt_wait_notify(r, i, deadline))
			break;
	return state;
}

void wt_ready(struct wt_rig *r, unsigned i)
{
	uint32_t state = wt_wait_state(r, i);

	if (state != SHM_WORKER_READY)
		fail_msg("worker %u not ready (state %u): %s", i, state, r->slots[i].error);
}

void wt_wake_all(struct wt_rig *r)
{
	uint64_t one = 1;

	for (unsigned i = 0; i < r->n; i++)
		assert_int_equal(write(r->wake_fd[i], &one, sizeof(one)), sizeof(one));
}

/* Announce a step the way the agent does: the seqlock write, then the wake. */
uint64_t wt_step(struct wt_rig *r, uint64_t interval_ns, uint32_t nintervals, const double *rates)
{
	uint64_t gen;

	shm_step_write_begin(r->step);
	r->step->start_ns = clock_now_ns() + WT_LEAD_NS;
	r->step->interval_ns = interval_ns;
	r->step->nintervals = nintervals;
	for (unsigned i = 0; i < r->n; i++)
		r->step->plan[i].rate = rates[i];
	gen = shm_step_write_end(r->step);
	wt_wake_all(r);
	return gen;
}

/* Collect worker i's next n intervals into out; they must be intervals 0..n-1 of gen. */
void wt_collect(struct wt_rig *r, unsigned i, uint64_t gen, uint32_t n, struct shm_interval *out)
{
	uint64_t deadline = clock_now_ns() + 10 * NSEC_PER_SEC;

	for (uint32_t k = 0; k < n; k++) {
		while (atomic_load_explicit(&r->slots[i].published, memory_order_acquire) <=
		       r->consumed[i])
			if (!wt_wait_notify(r, i, deadline))
				fail_msg("worker %u: interval %u of gen %" PRIu64 " never came", i,
				         k, gen);
		out[k] = r->slots[i].slots[r->consumed[i]++ % SHM_SLOTS];
		assert_int_equal(out[k].gen, gen);
		assert_int_equal(out[k].index, k);
	}
}

/* Ask for the stop and reap every worker; each must exit 0 within a second. */
void wt_rig_free(struct wt_rig *r)
{
	shm_step_write_begin(r->step);
	r->step->stop = 1;
	shm_step_write_end(r->step);
	for (unsigned i = 0; i < r->n; i++) {
		uint64_t one = 1, deadline = clock_now_ns() + NSEC_PER_SEC;
		int status = -1;

		if (r->pid[i] <= 0)
			continue;
		if (write(r->wake_fd[i], &one, sizeof(one)) < 0)
			fail_msg("waking worker %u: %s", i, strerror(errno));
		while (waitpid(r->pid[i], &status, WNOHANG) == 0) {
			if (clock_now_ns() > deadline) {
				kill(r->pid[i], SIGKILL);
				waitpid(r->pid[i], &status, 0);
				fail_msg("worker %u did not exit within 1 s of stop", i);
			}
			usleep(1000);
		}
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
		close(r->wake_fd[i]);
		close(r->notify_fd[i]);
	}
	munmap(r->step, r->step_size);
	munmap(r->slots, r->slots_size);
	free(r);
}
