/* SPDX-License-Identifier: MIT */
/* What the coordinator asks of the agent: prepare a workload, run steps, stop. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "caps.h"
#include "clock.h"
#include "frame.h"
#include "hist.h"
#include "hostcpu.h"
#include "kview.h"
#include "layout.h"
#include "log.h"
#include "nfstarget.h"
#include "params.h"
#include "plan.h"
#include "placement.h"
#include "pool.h"
#include "simshare.h"
#include "xalloc.h"

/* One workload's pool on this agent: the foreground's, or the background's beside it. */
struct plan_wl {
	struct plan *pl;
	const char *role; /* "workload" or "background workload", for the log */
	struct pool *pool;
	uint32_t workload_index;
	uint32_t nworkers;
	uint32_t warmup_intervals;
	struct engine_sim_params sim; /* the simulated device of the workload, if any */
	struct engine_nfs_params nfs; /* the NFS export of the workload, if any */
	struct hostcpu cpu;           /* host CPU use between interval reports */
	struct kview kv;              /* the kernel's view of the target's device */
	uint64_t interval_ns;
	uint64_t step_start_ns; /* the step in progress starts here (this host's clock) */
	bool work;              /* the step in progress is fixed work */
};

struct plan {
	const struct agent *a; /* who this agent is: its name, --allow, the clock skew, the loop */
	struct plan_opts o;
	plan_send_fn send;
	void *send_arg;
	uint64_t deadman_ms; /* the session's (plan_set_deadman) */
	uint64_t caps;       /* both sides' capabilities (plan_set_caps) */

	/* The foreground workload in progress, and the background beside it (if any). */
	struct plan_wl fg, bg;
	/* The sim devices both pools' workers share while a background runs on a sim. */
	struct simshare *share;
	/* The CPUs the agent was started on: placement chooses among them (placement.h). */
	cpu_set_t allowed;
	bool have_allowed;
};

static void plan_send_error(struct plan *pl, uint32_t workload, const char *path,
                            const char *message)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Error e = IOCURVE__ERROR__INIT;

	log_error("%s", message);
	e.workload_index = workload;
	e.message = (char *)message;
	e.path = (char *)(path ? path : "");
	env.body_case = IOCURVE__ENVELOPE__BODY_ERROR;
	env.error = &e;
	pl->send(pl->send_arg, &env);
}

static void plan_on_ready(void *arg, uint64_t bytes_laid_out, uint64_t layout_ns)
{
	struct plan_wl *w = arg;
	struct plan *pl = w->pl;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Ready r = IOCURVE__READY__INIT;

	log_info("%s %u: workers ready (%llu bytes laid out in %.1f s)", w->role, w->workload_index,
	         (unsigned long long)bytes_laid_out, (double)layout_ns / 1e9);
	r.workload_index = w->workload_index;
	r.layout_ns = layout_ns;
	r.bytes_laid_out = bytes_laid_out;
	env.body_case = IOCURVE__ENVELOPE__BODY_READY;
	env.ready = &r;
	pl->send(pl->send_arg, &env);
}

static void plan_wl_stop(struct plan_wl *w, const char *why);

static void plan_stop_cb(evutil_socket_t fd, short what, void *arg)
{
	plan_wl_stop(arg, "a worker failed");
}

/*
 * A worker stopped on its dead-man, or its storage stopped answering: the agent's loss,
 * not the campaign's failure (Error.agent_lost). Why, in words: storage lost (an NFS
 * server silent past the target's timeout), starved (this agent's loop could not run for
 * about the dead-man, the coordinator's word waiting unread) or partitioned (it ran,
 * no word came).
 */
static void plan_send_lost(struct plan_wl *w, const char *message, uint64_t silent_ns, bool storage)
{
	struct plan *pl = w->pl;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__Error e = IOCURVE__ERROR__INIT;
	uint64_t now = clock_now_ns(), deadman_ns = pl->deadman_ms * NSEC_PER_MSEC;
	uint64_t stalled = stall_recent(pl->a->stall, now, silent_ns + 5 * NSEC_PER_SEC);
	char why[1024];

	if (storage)
		snprintf(why, sizeof(why),
		         "storage lost: the target stopped answering, so its workers stopped: %s",
		         message);
	else if (stalled * 2 >= deadman_ns)
		snprintf(
		    why, sizeof(why),
		    "starved: the agent could not run for %.1f s (its host's CPU or a stop), so "
		    "its workers' dead-man (%.1f s) stopped their I/O: %s",
		    (double)stalled / 1e9, (double)deadman_ns / 1e9, message);
	else
		snprintf(why, sizeof(why),
		         "partitioned: the agent had no word from the coordinator for %.1f s, so "
		         "its workers' dead-man (%.1f s) stopped their I/O: %s",
		         (double)silent_ns / 1e9, (double)deadman_ns / 1e9, message);
	log_error("%s", why);
	e.workload_index = w->workload_index;
	e.message = why;
	e.path = "";
	e.agent_lost = true;
	env.body_case = IOCURVE__ENVELOPE__BODY_ERROR;
	env.error = &e;
	pl->send(pl->send_arg, &env);
}

static void plan_on_failed(void *arg, const char *message, uint64_t deadman_ns, bool storage_lost)
{
	struct plan_wl *w = arg;
	struct plan *pl = w->pl;

	if (deadman_ns != 0 || storage_lost)
		plan_send_lost(w, message, deadman_ns, storage_lost);
	else
		plan_send_error(pl, w->workload_index, NULL, message);
	/* Called from inside the pool: free it once the pool's code has returned. */
	event_base_once(pl->a->base, -1, EV_TIMEOUT, plan_stop_cb, w, &(struct timeval){0, 0});
}

/*
 * The kernel's counters of the target's device over the interval, read here, at its
 * end, once for all the agent's workers (a worker reading them per operation would
 * measure itself).
 */
static void plan_kernel_view(struct plan_wl *w, Iocurve__IntervalReport *r)
{
	struct kview_counts d;

	if (!kview_sample(&w->kv, &d))
		return;
	if (w->kv.kind == KVIEW_BLOCK) {
		r->kernel_n = 1;
		r->kernel_reads = d.reads;
		r->kernel_writes = d.writes;
		r->kernel_io_ms = d.io_ms;
		r->kernel_busy_ms = d.busy_ms;
		r->kernel_queue_ms = d.queue_ms;
	} else {
		r->nfs_ops = d.nfs_ops;
		r->nfs_rtt_ms = d.nfs_rtt_ms;
		r->nfs_exec_ms = d.nfs_exec_ms;
	}
	r->kernel_dev = w->kv.name;
}

/*
 * A block device's request queue (DISK/queue/nr_requests, a partition's its disk's);
 * 0 when unknown.
 */
static uint32_t plan_disk_requests(const char *disk)
{
	char path[PATH_MAX];
	unsigned long n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/queue/nr_requests", disk);
	if ((f = fopen(path, "re")) == NULL) {
		snprintf(path, sizeof(path), "%s/../queue/nr_requests", disk);
		f = fopen(path, "re");
	}
	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu", &n) != 1 || n > UINT32_MAX)
		n = 0;
	fclose(f);
	return (uint32_t)n;
}

/*
 * Sized slots (no queue_depth given) within the device's request queue: past it the
 * kernel holds an operation in a worker thread of its own until a request frees, which
 * costs the client CPU its streams need; in the slots it waits for nothing but the
 * storage, and the wait counts in its storage latency (worker.c).
 */
static void plan_fit_slots(const struct plan_wl *w, struct io_plan *pp, const char *target)
{
	char disk[sizeof(w->kv.stat)];
	uint32_t req, per, workers = pp->io.workers ? pp->io.workers : 1;

	if (!pp->queue_sized || w->kv.kind != KVIEW_BLOCK || pp->sim != NULL)
		return;
	kview_disk_dir(&w->kv, disk, sizeof(disk));
	if ((req = plan_disk_requests(disk)) == 0)
		return;
	per = req / workers > PLAN_MIN_SLOTS ? req / workers : PLAN_MIN_SLOTS;
	if (pp->io.queue_depth <= per)
		return;
	log_info("workers on %s: %u slots each, not %u: %s's request queue holds %u", target, per,
	         pp->io.queue_depth, w->kv.name, req);
	pp->io.queue_depth = per;
}

/* Which device's counters the workload's I/O moves: the target's, resolved once. */
static void plan_resolve_kernel_view(struct plan_wl *w, struct io_plan *pp, const char *target)
{
	struct stat st;
	char why[160];

	memset(&w->kv, 0, sizeof(w->kv));
	if (pp->target_fd < 0 || fstat(pp->target_fd, &st) < 0)
		return;
	kview_resolve(&w->kv, S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev, why, sizeof(why));
	if (w->kv.kind == KVIEW_NONE)
		log_info("kernel view of %s: none (%s)", target, why);
	else
		log_info("kernel view of %s: %s (%s)", target, w->kv.name,
		         w->kv.kind == KVIEW_BLOCK ? w->kv.stat : "/proc/self/mountstats");
	placement_workers(&w->kv, w->pl->have_allowed ? &w->pl->allowed : NULL, pp, target);
	plan_fit_slots(w, pp, target);
}

static void plan_on_interval(void *arg, uint32_t step, uint32_t index, const struct shm_interval *m,
                             uint32_t workers, uint32_t finished)
{
	struct plan_wl *w = arg;
	struct plan *pl = w->pl;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__IntervalReport r = IOCURVE__INTERVAL_REPORT__INIT, sent;

	r.workload_index = w->workload_index;
	r.step = step;
	r.interval = index;
	r.warmup = index < w->warmup_intervals;
	r.workers = workers;
	r.duration_ns = w->interval_ns;
	r.host_cpu_pct = hostcpu_sample(&w->cpu);
	record_encode(&m->rec, &r);
	/* The host's steal is the agent's to measure, once for all its workers. */
	r.steal_ppm = (uint64_t)(w->cpu.steal_pct * 1e4);
	r.workers_finished = finished;
	plan_kernel_view(w, &r);
	/*
	 * Read and write apart only to a coordinator that has them (CAPABILITY_KINDS): an
	 * older one would be sent two histograms a report to skip unread.
	 */
	env.body_case = IOCURVE__ENVELOPE__BODY_INTERVAL_REPORT;
	env.interval_report = (Iocurve__IntervalReport *)caps_report(&r, pl->caps, &sent);
	pl->send(pl->send_arg, &env);
	record_encoded_free(&r);
}

static void plan_on_step_done(void *arg, uint32_t step, uint32_t intervals)
{
	struct plan_wl *w = arg;
	struct plan *pl = w->pl;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__StepDone d = IOCURVE__STEP_DONE__INIT;

	d.workload_index = w->workload_index;
	d.step = step;
	d.intervals = intervals;
	d.start_time = skew_to_wire(&pl->a->skew, w->step_start_ns);
	if (w->work && w->pool != NULL) {
		/* fixed work: how far each worker got, and when the finished ones did */
		d.n_worker_done_ns = d.n_worker_ops = w->nworkers;
		d.worker_done_ns = xcalloc(w->nworkers, sizeof(*d.worker_done_ns));
		d.worker_ops = xcalloc(w->nworkers, sizeof(*d.worker_ops));
		pool_work(w->pool, d.worker_done_ns, d.worker_ops);
	}
	env.body_case = IOCURVE__ENVELOPE__BODY_STEP_DONE;
	env.step_done = &d;
	pl->send(pl->send_arg, &env);
	free(d.worker_done_ns);
	free(d.worker_ops);
}

/* Laying out targets: keeps the coordinator's preparation alive and shows how far. */
static void plan_on_progress(void *arg, uint64_t done, uint64_t total)
{
	struct plan_wl *w = arg;
	struct plan *pl = w->pl;
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT;
	Iocurve__LayoutProgress lp = IOCURVE__LAYOUT_PROGRESS__INIT;

	lp.workload_index = w->workload_index;
	lp.bytes_done = done;
	lp.bytes_total = total;
	env.body_case = IOCURVE__ENVELOPE__BODY_LAYOUT_PROGRESS;
	env.layout_progress = &lp;
	pl->send(pl->send_arg, &env);
}

static const struct pool_cbs plan_pool_cbs = {
    .on_progress = plan_on_progress,
    .on_ready = plan_on_ready,
    .on_failed = plan_on_failed,
    .on_interval = plan_on_interval,
    .on_step_done = plan_on_step_done,
};

/*
 * Where the workload's I/O goes, checked against --allow: a directory (one file
 * per worker, created when missing) or a block device (writes only with
 * --allow-device-writes). A simulated device needs no path.
 */
static int plan_target(struct plan *pl, struct plan_wl *w, const Iocurve__Prepare *p,
                       struct io_plan *pp, char *resolved, size_t len, uint64_t *device_size,
                       struct error *err)
{
	struct stat st;
	int fd;

	if (p->sim != NULL) {
		pp->dir = "sim";
		return 0;
	}
	/* an export: the server's, reached by the workers' own client, never by a local path */
	if (p->nfs != NULL || allow_is_nfs(p->target_dir)) {
		if (nfstarget_check(&pl->a->allow, pl->o.allow_nfs_root, p->nfs, p->target_dir,
		                    &w->nfs, resolved, len, err) < 0)
			return -1;
		pp->dir = resolved;
		w->nfs.dsync = pp->io.dsync;
		pp->nfs = &w->nfs;
		return 0;
	}
	if (allow_check(&pl->a->allow, p->target_dir, resolved, len, err) < 0)
		return -1;
	if (!(stat(resolved, &st) == 0 && S_ISBLK(st.st_mode)) &&
	    allow_mkdirs(&pl->a->allow, resolved, err) < 0)
		return -1;
	/* From here on the target is the inode opened now: workers never go by its name. */
	fd = allow_open_target(&pl->a->allow, p->target_dir, resolved, &pp->device, err);
	if (fd < 0)
		return -1;
	pp->target_fd = fd;
	pp->dir = resolved;
	if (!pp->device)
		return 0;
	if (pp->io.clone[0] != '\0') {
		/* a device is used as it is, never laid out: it cannot be made a clone */
		error_set(err,
		          "target %s is a block device, which is never laid out: clone '%s' needs "
		          "a directory (one file per worker)",
		          p->target_dir, pp->io.clone);
		return -1;
	}
	if (pp->io.verify) {
		/* headers are laid out before the first read: a device never is */
		error_set(err,
		          "target %s is a block device, which is never laid out: verify needs a "
		          "directory (one file per worker, each block laid out with its header)",
		          p->target_dir);
		return -1;
	}
	if (rw_writes(pp->io.rw) && !pl->o.allow_device_writes) {
		error_set(err,
		          "target %s is a block device: writing to it needs the agent flag "
		          "--allow-device-writes",
		          p->target_dir);
		return -1;
	}
	{
		char proc[64];
		int dev;

		/* the device's size: all of it when file_size is 0, else its bound */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
		dev = open(proc, O_RDONLY | O_CLOEXEC);
		if (dev < 0 || ioctl(dev, BLKGETSIZE64, device_size) < 0) {
			error_set(err, "target %s: reading the device size: %s", p->target_dir,
			          strerror(errno));
			if (dev >= 0)
				close(dev);
			return -1;
		}
		close(dev);
	}
	if (pp->file_size == 0)
		pp->file_size = *device_size;
	return 0;
}

/*
 * The sim devices a background shares with the foreground: made when a background is
 * prepared on a sim (before either pool forks, so both inherit them), given to the
 * foreground's workers while it runs. NULL: each worker keeps its own device.
 */
static int plan_share(struct plan *pl, struct plan_wl *w, const Iocurve__Prepare *p,
                      struct error *err)
{
	if (p->sim == NULL)
		return 0;
	if (p->background) {
		simshare_free(pl->share);
		pl->share = simshare_new(w->sim.servers, err);
		if (pl->share == NULL)
			return -1;
	} else if (pl->share == NULL || pl->bg.pool == NULL) {
		return 0;
	} else if (simshare_servers(pl->share) != w->sim.servers) {
		error_set(err,
		          "workload %s: its sim has %u servers, the background's %u: a background "
		          "shares the foreground's simulated devices, which need one count",
		          p->workload, w->sim.servers, simshare_servers(pl->share));
		return -1;
	} else {
		simshare_set_foreground(pl->share, p->workers);
	}
	w->sim.share = pl->share;
	return 0;
}

/*
 * Lay out and fork for one workload, after checking the target against --allow. A
 * background (Prepare.background) gets a pool of its own, kept beside the
 * foreground's until its EndWorkload; any other Prepare replaces the foreground.
 */
static void plan_prepare(struct plan *pl, const Iocurve__Prepare *p)
{
	struct plan_wl *w = p->background ? &pl->bg : &pl->fg;
	struct io_plan params = {0};
	char resolved[PATH_MAX], msg[1200], prefix[300];
	uint64_t device_size = 0;
	struct error err;

	plan_wl_stop(w, "new workload");
	w->workload_index = p->workload_index;
	/* --max-workers holds for the host: the two pools' workers together */
	{
		const struct plan_wl *other = p->background ? &pl->fg : &pl->bg;
		uint32_t beside = other->pool != NULL ? other->nworkers : 0;

		if (beside > 0 && (uint64_t)p->workers + beside > pl->o.caps.workers) {
			snprintf(msg, sizeof(msg),
			         "workload %s: workers %u beside the %s's %u is over this agent's "
			         "cap of %u (--max-workers)",
			         p->workload, p->workers,
			         p->background ? "foreground workload" : "background workload",
			         beside, pl->o.caps.workers);
			plan_send_error(pl, p->workload_index, p->target_dir, msg);
			return;
		}
	}
	/* a background's files are its own: the foreground lays out and writes its own */
	snprintf(prefix, sizeof(prefix), "%s%s", pl->a->name, p->background ? "-bg" : "");
	if (params_from_prepare(p, prefix, &pl->o.caps, &params, &w->sim, &err) < 0) {
		plan_send_error(pl, p->workload_index, p->target_dir, err.msg);
		return;
	}
	params.target_fd = -1;
	if (plan_target(pl, w, p, &params, resolved, sizeof(resolved), &device_size, &err) < 0) {
		plan_send_error(pl, p->workload_index, p->target_dir, err.msg);
		goto out;
	}
	plan_resolve_kernel_view(w, &params, resolved);
	/* a file set's size is its files' (within --max-file-size): the data file's unused */
	if (mix_is_files(&params.io.mix)) {
		if (params.device) {
			snprintf(
			    msg, sizeof(msg),
			    "target %s is a block device: a file set (fileset) needs a directory",
			    p->target_dir);
			plan_send_error(pl, p->workload_index, p->target_dir, msg);
			goto out;
		}
		params.file_size = mix_fileset_bytes(&params.io.mix.fileset);
		if (params.file_size < params.io.block_size)
			params.file_size = params.io.block_size;
	}
	if (params.file_size < params.io.block_size) {
		snprintf(msg, sizeof(msg), "target %s: %llu bytes cannot hold one %u-byte block",
		         p->target_dir, (unsigned long long)params.file_size, params.io.block_size);
		plan_send_error(pl, p->workload_index, p->target_dir, msg);
		goto out;
	}
	/* a device's replay, fitted to the size it has (params_from_prepare could not) */
	if (params.replay == NULL && replay_from_prepare(p, params.file_size, params.io.block_size,
	                                                 &params.replay, &err) < 0) {
		snprintf(msg, sizeof(msg), "workload %s: %s", p->workload, err.msg);
		plan_send_error(pl, p->workload_index, p->target_dir, msg);
		goto out;
	}
	/* the workers' offsets within the file: nothing is written past file_size */
	if (params_check_target(&params, device_size, &err) < 0) {
		snprintf(msg, sizeof(msg), "workload %s: %s", p->workload, err.msg);
		plan_send_error(pl, p->workload_index, p->target_dir, msg);
		goto out;
	}
	/* Space before bytes: a plan that cannot fit is refused before any file is made. */
	if (p->sim == NULL && !params.device && params.nfs == NULL &&
	    layout_check_space(params.target_fd, params.dir, params.file_prefix, params.io.workers,
	                       params.file_size, &err) < 0) {
		plan_send_error(pl, p->workload_index, p->target_dir, err.msg);
		goto out;
	}
	if (plan_share(pl, w, p, &err) < 0) {
		plan_send_error(pl, p->workload_index, p->target_dir, err.msg);
		goto out;
	}
	w->nworkers = p->workers;
	params.deadman_ns = pl->deadman_ms * NSEC_PER_MSEC;
	log_info("%s %u '%s': %s %uB x qd %u x %u workers on %s%s%s", w->role, p->workload_index,
	         p->workload, rw_mode_name(params.io.rw), p->block_size, p->queue_depth, p->workers,
	         params.dir, params.device ? " (block device)" : "",
	         w->sim.share != NULL ? " (sim devices shared with the background)" : "");
	/* the workers fork from the agent's CPUs, not from where its loop moved for the last */
	placement_own_cpus(pl->have_allowed ? &pl->allowed : NULL, NULL);
	w->pool = pool_start(pl->a->base, &params, &plan_pool_cbs, w, &err);
	if (w->pool == NULL)
		plan_send_error(pl, p->workload_index, p->target_dir, err.msg);
	else
		placement_own_cpus(pl->have_allowed ? &pl->allowed : NULL, &params);
out:
	if (params.target_fd > 0)
		close(params.target_fd);
}

/* The prepared workload a message names: the background's or the foreground's, or NULL. */
static struct plan_wl *plan_wl_of(struct plan *pl, uint32_t workload_index)
{
	if (pl->bg.pool != NULL && pl->bg.workload_index == workload_index)
		return &pl->bg;
	if (pl->fg.pool != NULL && pl->fg.workload_index == workload_index)
		return &pl->fg;
	return NULL;
}

static void plan_start_step(struct plan *pl, const Iocurve__StartStep *s)
{
	struct plan_wl *w = plan_wl_of(pl, s->workload_index);
	uint64_t total = s->warmup_ns + s->measure_ns;
	struct error err;
	uint64_t start;

	if (w == NULL) {
		plan_send_error(pl, s->workload_index, NULL,
		                "StartStep for a workload that is not prepared");
		return;
	}
	/* The coordinator's time, moved onto this host's clock with the measured offset. */
	start = skew_from_wire(&pl->a->skew, s->start_time + (uint64_t)s->clock_offset);
	/* every field within its bound before anything is allocated for the step */
	if (params_check_step(s, w->nworkers, clock_now_ns(), start, &err) < 0) {
		plan_send_error(pl, s->workload_index, NULL, err.msg);
		return;
	}
	w->step_start_ns = start;
	w->interval_ns = s->interval_ns;
	hostcpu_sample(&w->cpu);
	{
		struct kview_counts base; /* the step's first interval counts from here */

		kview_sample(&w->kv, &base);
	}
	w->warmup_intervals = (uint32_t)(s->warmup_ns / s->interval_ns);
	log_info("%s %u step %u: %.0f ops/s per worker, starts in %.0f ms", w->role,
	         w->workload_index, s->step + 1, s->worker_rate[0],
	         ((double)start - (double)clock_now_ns()) / 1e6);
	if (pool_work_fits(w->pool, s->work_ops, &err) < 0) {
		plan_send_error(pl, s->workload_index, NULL, err.msg);
		return;
	}
	w->work = s->work_ops > 0;
	if (w->work)
		log_info("step %u: fixed work of %llu operations per worker", s->step + 1,
		         (unsigned long long)s->work_ops);
	pool_set_work(w->pool, s->work_ops, s->think_ns, s->worker_start_ns, s->n_worker_start_ns);
	if (pool_start_step(w->pool, s->step, s->worker_rate, start, s->interval_ns,
	                    (uint32_t)(total / s->interval_ns), &err) < 0)
		plan_send_error(pl, s->workload_index, NULL, err.msg);
}

void plan_handle(struct plan *pl, const Iocurve__Envelope *env)
{
	struct plan_wl *w;

	switch (env->body_case) {
	case IOCURVE__ENVELOPE__BODY_PREPARE:
		plan_prepare(pl, env->prepare);
		break;
	case IOCURVE__ENVELOPE__BODY_START_STEP:
		plan_start_step(pl, env->start_step);
		break;
	case IOCURVE__ENVELOPE__BODY_END_STEP:
		w = plan_wl_of(pl, env->end_step->workload_index);
		if (w != NULL)
			pool_end_step(w->pool, env->end_step->step);
		break;
	case IOCURVE__ENVELOPE__BODY_END_WORKLOAD:
		/* the background's own EndWorkload ends it; a foreground's leaves it running */
		w = plan_wl_of(pl, env->end_workload->workload_index);
		plan_wl_stop(w != NULL ? w : &pl->fg, "workload done");
		break;
	case IOCURVE__ENVELOPE__BODY_ABORT:
		log_warn("abort from coordinator: %s", env->abort->reason);
		plan_stop(pl, "aborted");
		break;
	default:
		log_warn("unexpected %s from the coordinator", frame_body_name(env));
		break;
	}
}

static void plan_wl_stop(struct plan_wl *w, const char *why)
{
	struct plan *pl = w->pl;

	if (w->pool == NULL)
		return;
	log_info("%s %u: stopping workers (%s)", w->role, w->workload_index, why);
	pool_free(w->pool);
	w->pool = NULL;
	memset(&w->sim, 0, sizeof(w->sim));
	if (w == &pl->bg) {
		/* the foreground's workers keep their own mapping until they exit */
		simshare_free(pl->share);
		pl->share = NULL;
	}
}

void plan_stop(struct plan *pl, const char *why)
{
	plan_wl_stop(&pl->fg, why);
	plan_wl_stop(&pl->bg, why);
}

void plan_alive(struct plan *pl, uint64_t now_ns)
{
	if (pl->fg.pool != NULL)
		pool_alive(pl->fg.pool, now_ns);
	if (pl->bg.pool != NULL)
		pool_alive(pl->bg.pool, now_ns);
}

void plan_child_exited(struct plan *pl, pid_t pid, int status)
{
	if (pl->fg.pool != NULL && pool_child_exited(pl->fg.pool, pid, status))
		return;
	if (pl->bg.pool != NULL)
		pool_child_exited(pl->bg.pool, pid, status);
}

struct plan *plan_new(const struct agent *a, const struct plan_opts *opts, plan_send_fn send,
                      void *arg)
{
	struct plan *pl = xcalloc(1, sizeof(*pl));

	pl->a = a;
	pl->o = *opts;
	pl->send = send;
	pl->send_arg = arg;
	pl->fg.pl = pl->bg.pl = pl;
	pl->fg.role = "workload";
	pl->bg.role = "background workload";
	pl->have_allowed = sched_getaffinity(0, sizeof(pl->allowed), &pl->allowed) == 0;
	return pl;
}

void plan_free(struct plan *pl)
{
	if (pl == NULL)
		return;
	plan_stop(pl, "agent exiting");
	free(pl);
}

void plan_set_deadman(struct plan *pl, uint64_t deadman_ms)
{
	pl->deadman_ms = deadman_ms;
}

void plan_set_caps(struct plan *pl, uint64_t caps)
{
	pl->caps = caps;
}

bool plan_running(const struct plan *pl)
{
	return pl->fg.pool != NULL || pl->bg.pool != NULL;
}
