/* SPDX-License-Identifier: MIT */
/* A process's streams driven from one ring: the engine, the step loop, the process's life. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "clock.h"
#include "engine.h"
#include "layout.h"
#include "schedwait.h"
#include "log.h"
#include "safefile.h"
#include "units.h"
#include "verify.h"
#include "worker_priv.h"
#include "xalloc.h"

/*
 * The process's one engine for its n streams: one io_uring ring over their files, each
 * stream a part of its slots (the sim, one stream a process, its own device).
 */
static struct engine *worker_open_engine(struct worker *ws, unsigned n, struct error *err)
{
	const struct io_plan *cfg = ws[0].cfg;
	int fds[WORKER_STREAMS_MAX];
	const char *paths[WORKER_STREAMS_MAX];
	struct fset *sets[WORKER_STREAMS_MAX];
	struct engine_params ep = {.fd = ws[0].fd,
	                           .queue_depth = n * cfg->io.queue_depth,
	                           .block_size = cfg->io.block_size,
	                           .wake_fd = cfg->wake_fd,
	                           .sim = cfg->sim ? *cfg->sim : (struct engine_sim_params){0},
	                           .seed = cfg->seed,
	                           .reap_slack_ns = cfg->lateness_ns,
	                           .files = mix_is_files(&cfg->io.mix)};
	struct engine *e;

	if (n > 1 || cfg->nfs != NULL) {
		for (unsigned i = 0; i < n; i++) {
			fds[i] = ws[i].fd;
			paths[i] = ws[i].nfs_path;
			sets[i] = &ws[i].fs;
		}
		ep.fds = fds;
		ep.nfds = n;
	}
	ep.nfs = cfg->nfs;
	ep.nfs_paths = paths;
	ep.nfs_sets = sets;
	/* a shared sim device: the foreground's worker w has device w, a background spreads */
	ep.sim.share_dev = cfg->index;
	ep.sim.share_own = cfg->io.workers;
	ep.sim.share_spread = cfg->io.background;
	e = engine_open(ws[0].ops, &ep, err);
	if (e == NULL)
		error_prefix(err, "%s: ", cfg->sim != NULL ? "sim" : cfg->path);
	for (unsigned i = 0; e != NULL && i < n; i++) {
		ws[i].eng = e;
		ws[i].slot_base = i * cfg->io.queue_depth;
		ws[i].file_index = (uint16_t)i;
	}
	return e;
}

/* A batch of the shared ring's completions to their streams, in each one's own slots. */
static void worker_split(struct worker *ws, unsigned n, const struct engine_completion *all,
                         int nall, int *cnt)
{
	uint32_t qd = ws[0].cfg->io.queue_depth;

	for (unsigned i = 0; i < n; i++)
		cnt[i] = 0;
	for (int j = 0; j < nall; j++) {
		unsigned i = all[j].slot / qd;
		struct engine_completion c = all[j];

		if (i >= n)
			continue;
		c.slot = (uint16_t)(c.slot % qd);
		ws[i].done[cnt[i]++] = c;
	}
}

/*
 * Map the stream's interval slots into this process before the first step: the region is
 * shared with the agent and fork copies none of its page tables, so each slot would
 * otherwise fault in page by page when first written, at an interval's end (50 streams'
 * 185 KB records: about 30 ms of faults on this VM, every stream late through them).
 */
static void worker_populate(const struct io_plan *cfg)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)cfg->slot, b = a + sizeof(*cfg->slot);

	if (page <= 0)
		return;
	a &= ~(uintptr_t)(page - 1);
	if (madvise((void *)a, b - a, MADV_POPULATE_WRITE) == 0)
		return;
	/* before Linux 5.14: touch each page (a read maps a shared page writable) */
	for (uintptr_t p = a; p < b; p += (uintptr_t)page)
		(void)*(volatile const char *)p;
}

/*
 * One step on every stream of the process, their waits in the one ring. A stream is
 * looked at on a wake only when it has completions, the wake was the agent's, or its own
 * time came (its due operation, interval boundary or drain's end: due[i]); so a process
 * of many streams does per wake the work of the few that have any.
 */
static int worker_streams_step(struct worker *ws, unsigned n, struct engine *eng,
                               struct engine_completion *all, struct worker_run *runs)
{
	const struct engine_ops *ops = ws[0].ops;
	int cnt[WORKER_STREAMS_MAX] = {0}, total = (int)(n * ws[0].cfg->io.queue_depth);
	uint64_t due[WORKER_STREAMS_MAX], now;
	bool woken = true; /* the first pass looks at every stream */

	for (unsigned i = 0; i < n; i++) {
		struct worker_step s;

		worker_step_load(&ws[i], &s);
		worker_step_begin(&ws[i], &runs[i], &s);
	}
	now = clock_now_ns();
	for (;;) {
		uint64_t wait_ns = ENGINE_WAIT_EVER;
		bool live = false, stop = false;
		int nall;

		for (unsigned i = 0; i < n; i++) {
			uint64_t w_ns;

			if (runs[i].done)
				continue;
			if (!woken && cnt[i] == 0 && now < due[i]) {
				live = true; /* nothing for it yet: its wait stands */
				wait_ns = due[i] - now < wait_ns ? due[i] - now : wait_ns;
				continue;
			}
			w_ns = worker_step_pre(&ws[i], &runs[i], now);
			stop |= runs[i].done && ws[i].stop;
			if (runs[i].done)
				continue;
			live = true;
			due[i] = w_ns == ENGINE_WAIT_EVER ? UINT64_MAX : now + w_ns;
			wait_ns = w_ns < wait_ns ? w_ns : wait_ns;
		}
		if (!live || stop)
			break; /* a stop (or the dead-man) ends them all: closing the ring drains */
		for (unsigned i = 0; i < n; i++)
			worker_stamp_submitted(&ws[i]);
		nall = ops->submit_and_wait(eng, wait_ns, all, total, &woken);
		if (nall < 0)
			return nall;
		now = clock_now_ns();
		worker_split(ws, n, all, nall, cnt);
		for (unsigned i = 0; i < n; i++) {
			if (!runs[i].done && (cnt[i] > 0 || woken || now >= due[i]))
				worker_step_post(&ws[i], &runs[i], cnt[i], woken,
				                 nall == 0 && !woken, now);
			else if (runs[i].done && cnt[i] > 0)
				worker_reap(&ws[i], cnt[i], now, false);
			if (runs[i].done || cnt[i] > 0)
				due[i] = now; /* looked at on the next pass */
		}
	}
	for (unsigned i = 0; i < n; i++)
		worker_step_end(&ws[i], &runs[i]);
	return 0;
}

int worker_run(const struct io_plan *cfg)
{
	return worker_run_streams(cfg, 1);
}

int worker_run_streams(const struct io_plan *cfgs, unsigned n)
{
	struct worker *ws = xcalloc(n, sizeof(*ws));
	struct worker_run *runs = xcalloc(n, sizeof(*runs));
	struct engine_completion *all = NULL;
	struct engine *eng = NULL;
	struct error err = {{0}};
	const char *dump = getenv(WORKER_TEST_INTENDED_ENV);
	uint64_t gen_seen = 0, silent = 0;
	int ret = 0, status = 0;
	unsigned i;

	/* Dies with the agent rather than keep loading a target nobody measures. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* Timer slack would make every open-loop start late by up to 50 us. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	if (n == 0 || n > WORKER_STREAMS_MAX || (n > 1 && cfgs[0].sim != NULL) ||
	    n * (uint64_t)cfgs[0].io.queue_depth > UINT16_MAX) {
		error_set(&err, "%s: %u streams of queue depth %u cannot share a process",
		          cfgs[0].sim ? "sim" : cfgs[0].path, n, cfgs[0].io.queue_depth);
		for (i = 0; i < n; i++)
			worker_fail(&cfgs[i], err.msg);
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct worker *w = &ws[i];

		*w = (struct worker){.cfg = &cfgs[i],
		                     .ops = &engine_uring_ops,
		                     .fd = -1,
		                     .dump_fd = -1,
		                     .nshare = n};
		pacer_init(&w->pace, cfgs[i].io.efficient ? PACER_EFFICIENT : PACER_PRECISE,
		           cfgs[i].io.wake_slack_ns, cfgs[i].lateness_ns);
		schedwait_open(&w->sched);
		if (dump != NULL && *dump != '\0') {
			char path[4096];

			snprintf(path, sizeof(path), "%s.%d", dump, (int)getpid());
			/* no link followed, a regular file of ours: the hook writes through nothing
			 */
			w->dump_fd = safefile_append(AT_FDCWD, NULL, path, 0, &err);
		}
	}
	for (i = 0; i < n; i++)
		if (worker_setup(&ws[i], &cfgs[i], &err) < 0)
			goto fail;
	eng = worker_open_engine(ws, n, &err);
	if (eng == NULL)
		goto fail;
	for (i = 0; i < n; i++)
		worker_populate(&cfgs[i]);
	all = xcalloc((size_t)n * cfgs[0].io.queue_depth, sizeof(*all));
	for (i = 0; i < n; i++) {
		atomic_store_explicit(&cfgs[i].slot->state, SHM_WORKER_READY, memory_order_release);
		worker_notify(&cfgs[i]);
	}
	for (;;) {
		struct worker_step s;
		bool woken, stop = false;
		int nall, cnt[WORKER_STREAMS_MAX];

		worker_step_load(&ws[0], &s);
		for (i = 0; i < n; i++)
			stop |= ws[i].stop;
		if (s.stop || stop)
			break;
		if (s.gen != gen_seen) {
			gen_seen = s.gen;
			ret = worker_streams_step(ws, n, eng, all, runs);
			if (ret < 0)
				goto io_err;
			continue;
		}
		/* Idle: sleep in the ring until the agent writes the wake eventfd. */
		nall = ws[0].ops->submit_and_wait(eng, ENGINE_WAIT_EVER, all,
		                                  (int)(n * cfgs[0].io.queue_depth), &woken);
		if (nall < 0) {
			ret = nall;
			goto io_err;
		}
		worker_split(ws, n, all, nall, cnt);
		for (i = 0; i < n; i++)
			worker_reap(&ws[i], cnt[i], 0, false);
	}
	for (i = 0; i < n; i++)
		silent = ws[i].silent_ns > silent ? ws[i].silent_ns : silent;
	if (silent != 0) {
		error_set(&err,
		          "%s: dead-man: the agent had not heard its coordinator for %.1f s; I/O "
		          "stopped",
		          cfgs[0].sim ? "sim" : cfgs[0].path, (double)silent / 1e9);
		log_warn("%s", err.msg);
		for (i = 0; i < n; i++) {
			/* Before the state's release store: the agent reads it once it sees FAILED.
			 */
			cfgs[i].slot->deadman_ns = silent;
			status = worker_fail(&cfgs[i], err.msg);
		}
	}
	goto out;
io_err:
	if (ws[0].ops->error != NULL && eng != NULL && ws[0].ops->error(eng) != NULL) {
		error_set(&err, "%s", ws[0].ops->error(eng));
		/* the storage stopped answering: the agent's loss, as on_agent_loss says */
		for (i = 0; ret == -ETIMEDOUT && i < n; i++)
			cfgs[i].slot->storage_lost = true;
	} else {
		error_set(&err, "%s: I/O engine %s: %s", cfgs[0].sim ? "sim" : cfgs[0].path,
		          ws[0].ops->name, strerror(-ret));
	}
fail:
	for (i = 0; i < n; i++)
		status = worker_fail(&cfgs[i], err.msg);
out:
	/* exiting the ring waits for (or cancels) what is in flight, before the files close */
	if (eng != NULL)
		ws[0].ops->close(eng);
	for (i = 0; i < n; i++)
		worker_teardown(&ws[i]);
	free(all);
	free(runs);
	free(ws);
	return status;
}
