/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "replay.h"
#include "verify.h"

/* The access distribution arrives as the protocol's RandomDist number. */
_Static_assert((int)PATTERN_UNIFORM == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_UNIFORM,
               "pattern_dist");
_Static_assert((int)PATTERN_ZIPF == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_ZIPF, "pattern_dist");
_Static_assert((int)PATTERN_HOTSPOT == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_HOTSPOT,
               "pattern_dist");

void params_caps_default(struct params_caps *caps)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	/* workers are streams: a process per CPU drives them all (agent/pool.c) */
	caps->workers = cpus > 0 && cpus < 1 << 20 ? PARAMS_WORKERS_PER_CPU * (uint32_t)cpus : 64;
	caps->queue_depth = 1024;
	caps->block_size = 16u << 20;
	caps->file_size = 1ull << 40;
	caps->files = 1000000;
	caps->depth = 4;
}

/* The agent's cap on a setting (0: none). */
static uint64_t params_cap_of(const struct params_caps *caps, enum setting_cap cap)
{
	switch (cap) {
	case SETTING_CAP_WORKERS:
		return caps->workers;
	case SETTING_CAP_QUEUE_DEPTH:
		return caps->queue_depth;
	case SETTING_CAP_BLOCK_SIZE:
		return caps->block_size;
	default:
		return 0;
	}
}

/* One field against its cap: "workers 100 is over this agent's cap of 64 (--max-workers)". */
static int params_cap(const Iocurve__Prepare *p, const char *field, uint64_t value, uint64_t cap,
                      const char *flag, struct error *err)
{
	if (value <= cap)
		return 0;
	error_set(err, "workload %s: %s %llu is over this agent's cap of %llu (--%s)", p->workload,
	          field, (unsigned long long)value, (unsigned long long)cap, flag);
	return -1;
}

/* Every capped setting of io, then the target's file size, against the agent's caps. */
static int params_caps_check(const Iocurve__Prepare *p, const struct io_settings *io,
                             const struct params_caps *caps, struct error *err)
{
	for (size_t i = 0; i < setting_count; i++) {
		const struct setting *s = &setting_table[i];

		if (s->cap != SETTING_CAP_NONE &&
		    params_cap(p, s->key, setting_get(s, io), params_cap_of(caps, s->cap),
		               s->cap_flag, err) < 0)
			return -1;
	}
	return params_cap(p, "file_size", p->file_size, caps->file_size, "max-file-size", err);
}

/* The proto's name of the Prepare field at offset (the wire's word for a row). */
static const char *params_wire_name(size_t offset)
{
	const ProtobufCMessageDescriptor *d = &iocurve__prepare__descriptor;

	for (unsigned i = 0; i < d->n_fields; i++)
		if (d->fields[i].offset == offset)
			return d->fields[i].name;
	return "?";
}

/* A row's bounds in words: "0..99", "1..16777216, a multiple of 512", "1 or more". */
static void params_bounds_text(const struct setting *s, char *buf, size_t len)
{
	int n;

	if (s->max == 0)
		n = snprintf(buf, len, "%" PRIu64 " or more", s->min);
	else
		n = snprintf(buf, len, "%" PRIu64 "..%" PRIu64, s->min, s->max);
	if (s->step != 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, ", a multiple of %u", s->step);
}

/*
 * The Prepare fields no row of the table holds: bounded here, each refusal naming the
 * field and its bound. target_dir is --allow's (allow.c); file_size is the caps' and
 * the target's (params_check_target); workload_index and agent_index are only echoed.
 */
static int params_check_rest(const Iocurve__Prepare *p, const struct io_settings *io,
                             struct error *err)
{
	const Iocurve__SimTarget *sim = p->sim;
	const double reals[] = {p->zipf_theta, p->hot_set_pct, p->hot_ops_pct};
	const char *const real_names[] = {"zipf_theta", "hot_set_pct", "hot_ops_pct"};

	for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++)
		if (!isfinite(reals[i]) || reals[i] < 0 || (i > 0 && reals[i] > 100) ||
		    (i == 0 && reals[i] > SETTING_MAX_ZIPF_THETA)) {
			error_set(err, "workload %s: Prepare field %s %g is out of its bounds (%s)",
			          p->workload, real_names[i], reals[i],
			          i == 0 ? "0..10" : "0..100 percent");
			return -1;
		}
	if (p->fleet_workers > PARAMS_MAX_FLEET_WORKERS ||
	    (p->fleet_workers > 0 &&
	     (uint64_t)p->worker_base + io->workers > (uint64_t)p->fleet_workers)) {
		error_set(err,
		          "workload %s: Prepare fields worker_base %u and fleet_workers %u are out "
		          "of their bounds (worker_base + workers %u within fleet_workers, at most "
		          "%u)",
		          p->workload, p->worker_base, p->fleet_workers, io->workers,
		          PARAMS_MAX_FLEET_WORKERS);
		return -1;
	}
	if (p->lateness_budget_ns > PARAMS_MAX_WAIT_NS) {
		error_set(err,
		          "workload %s: Prepare field lateness_budget_ns %" PRIu64
		          " is over its bound of %llu (1 h)",
		          p->workload, p->lateness_budget_ns, PARAMS_MAX_WAIT_NS);
		return -1;
	}
	if (sim == NULL)
		return 0;
	/* the campaign's bounds on sim: (coordinator/campaign/targets.c) */
	if (sim->servers < 1 || sim->servers > PARAMS_MAX_SIM_SERVERS || sim->jitter_pct > 100 ||
	    sim->service_ns < 1 || sim->service_ns > PARAMS_MAX_WAIT_NS ||
	    sim->write_service_ns > PARAMS_MAX_WAIT_NS || sim->stall_ns > PARAMS_MAX_WAIT_NS ||
	    !isfinite(sim->rate_limit) || sim->rate_limit < 0) {
		error_set(err,
		          "workload %s: Prepare field sim is out of its bounds (servers %u: 1..%u, "
		          "jitter_pct %u: 0..100, service_ns %" PRIu64 ", write_service_ns %" PRIu64
		          ", stall_ns %" PRIu64 ": 1 ns..1 h (write and stall 0: none), rate_limit "
		          "%g: finite, 0 or more)",
		          p->workload, sim->servers, PARAMS_MAX_SIM_SERVERS, sim->jitter_pct,
		          sim->service_ns, sim->write_service_ns, sim->stall_ns, sim->rate_limit);
		return -1;
	}
	return 0;
}

/*
 * A file set within the agent's caps: its depth, its files on this agent (the workers'
 * sets together; a create past a worker's share of the cap fails). Its bytes per worker
 * are Prepare's file_size, held to --max-file-size with every workload's.
 */
static int params_check_files(const Iocurve__Prepare *p, const struct mix *m,
                              const struct params_caps *caps, struct io_plan *plan,
                              struct error *err)
{
	uint64_t files = mix_fileset_files(&m->fileset) * p->workers;

	if (m->fileset.depth > caps->depth) {
		error_set(err,
		          "workload %s: fileset depth %u is over this agent's cap of %u "
		          "(--max-depth)",
		          p->workload, m->fileset.depth, caps->depth);
		return -1;
	}
	if (files > caps->files) {
		error_set(
		    err,
		    "workload %s: fileset of %llu files x %u workers is %llu files, over this "
		    "agent's cap of %llu (--max-files)",
		    p->workload, (unsigned long long)mix_fileset_files(&m->fileset), p->workers,
		    (unsigned long long)files, (unsigned long long)caps->files);
		return -1;
	}
	plan->max_files = caps->files / (p->workers ? p->workers : 1);
	return 0;
}

int params_check_target(const struct io_plan *plan, uint64_t device_size, struct error *err)
{
	const struct io_settings *io = &plan->io;
	uint64_t span = io->working_set ? io->working_set : plan->file_size;
	uint32_t unit = io->align > io->block_size ? io->align : io->block_size;

	if (plan->device && device_size != 0 && plan->file_size > device_size) {
		error_set(err,
		          "Prepare field file_size %" PRIu64
		          " is over the device's size of %" PRIu64,
		          plan->file_size, device_size);
		return -1;
	}
	/* A working set past the file's end would grow the file past every cap checked. */
	if (io->working_set > plan->file_size) {
		error_set(err,
		          "Prepare field working_set %" PRIu64
		          " is over its bound: file_size %" PRIu64
		          " (the working set lies within each worker's file)",
		          io->working_set, plan->file_size);
		return -1;
	}
	if (span < unit) {
		error_set(err,
		          "Prepare field %s %" PRIu64 " cannot hold one %u-byte block (block_size, "
		          "align)",
		          io->working_set ? "working_set" : "file_size", span, unit);
		return -1;
	}
	return 0;
}

int params_check_step(const Iocurve__StartStep *s, uint32_t nworkers, uint64_t now_ns,
                      uint64_t start_ns, struct error *err)
{
	uint64_t total = s->warmup_ns + s->measure_ns;

	if (s->interval_ns < SETTING_MIN_INTERVAL_NS || s->interval_ns > SETTING_MAX_INTERVAL_NS) {
		error_set(err,
		          "StartStep field interval_ns %" PRIu64
		          " is out of its bounds (%llu..%llu: "
		          "10 ms to 1 h)",
		          s->interval_ns, SETTING_MIN_INTERVAL_NS, SETTING_MAX_INTERVAL_NS);
		return -1;
	}
	if (total < s->warmup_ns || total == 0 || total % s->interval_ns != 0 ||
	    total / s->interval_ns > SETTING_MAX_STEP_INTERVALS) {
		error_set(err,
		          "StartStep fields warmup_ns %" PRIu64 " and measure_ns %" PRIu64
		          " are out of their bounds (together 1 to %u whole intervals of %" PRIu64
		          " ns)",
		          s->warmup_ns, s->measure_ns, SETTING_MAX_STEP_INTERVALS, s->interval_ns);
		return -1;
	}
	if (s->n_worker_rate < nworkers) {
		error_set(err,
		          "StartStep field worker_rate has %zu rates, under its bound of one per "
		          "worker (%u)",
		          s->n_worker_rate, nworkers);
		return -1;
	}
	for (uint32_t w = 0; w < nworkers; w++)
		if (!isfinite(s->worker_rate[w]) || s->worker_rate[w] < 0 ||
		    s->worker_rate[w] > PARAMS_MAX_WORKER_RATE) {
			error_set(
			    err,
			    "StartStep field worker_rate[%u] %g is out of its bounds (0..%g ops/s; "
			    "0: closed loop)",
			    w, s->worker_rate[w], PARAMS_MAX_WORKER_RATE);
			return -1;
		}
	if (start_ns > now_ns + PARAMS_MAX_LEAD_NS || start_ns + PARAMS_MAX_LEAD_NS < now_ns) {
		error_set(err,
		          "StartStep fields start_time and clock_offset put the start %.1f s from "
		          "now, out of their bound of %llu s either way",
		          ((double)start_ns - (double)now_ns) / 1e9,
		          PARAMS_MAX_LEAD_NS / 1000000000ull);
		return -1;
	}
	if (s->work_ops > PARAMS_MAX_WORK_OPS) {
		error_set(err, "StartStep field work_ops %" PRIu64 " is over its bound of %llu",
		          s->work_ops, PARAMS_MAX_WORK_OPS);
		return -1;
	}
	if (s->think_ns > total) {
		error_set(err,
		          "StartStep field think_ns %" PRIu64
		          " is over its bound: the step's %" PRIu64 " ns",
		          s->think_ns, total);
		return -1;
	}
	for (size_t w = 0; w < s->n_worker_start_ns; w++)
		if (s->worker_start_ns[w] >= total) {
			error_set(err,
			          "StartStep field worker_start_ns[%zu] %" PRIu64
			          " is over its bound: the step's %" PRIu64 " ns",
			          w, s->worker_start_ns[w], total);
			return -1;
		}
	return 0;
}

/*
 * verify: every 4KiB block carries a header (agent/verify.h), so a block and its
 * offset are whole 4KiB blocks; a dedupe copy or a clone's one image would repeat
 * blocks whose headers name their own offset, and a simulated device has no data.
 */
static int params_check_verify(const Iocurve__Prepare *p, const struct io_settings *io,
                               struct error *err)
{
	uint32_t align = io->align ? io->align : io->block_size;

	if (io->block_size % VERIFY_BLOCK != 0 || align % VERIFY_BLOCK != 0) {
		error_set(err,
		          "workload %s: Prepare field verify needs block_size and align multiples "
		          "of %u (they are %u and %u)",
		          p->workload, VERIFY_BLOCK, io->block_size, align);
		return -1;
	}
	if (io->dedupe_pct > 0 || io->clone[0] != '\0' || p->sim != NULL) {
		error_set(err, "workload %s: Prepare field verify cannot go with %s", p->workload,
		          p->sim != NULL   ? "a simulated device (no data)"
		          : io->dedupe_pct ? "dedupe_pct (a block's header names its offset)"
		                           : "clone (one image for every file)");
		return -1;
	}
	return 0;
}

int params_from_prepare(const Iocurve__Prepare *p, const char *file_prefix,
                        const struct params_caps *caps, struct io_plan *plan,
                        struct engine_sim_params *sim, struct error *err)
{
	const struct setting *bad;
	char bounds[96];

	memset(plan, 0, sizeof(*plan));
	/* the name goes into every message: an unbounded one is refused without it */
	if (p->workload == NULL || strlen(p->workload) > PARAMS_MAX_WORKLOAD_NAME) {
		error_set(err, "Prepare field workload is over its bound of %d bytes",
		          PARAMS_MAX_WORKLOAD_NAME);
		return -1;
	}
	bad = setting_from_prepare(p, &plan->io);
	if (bad != NULL && bad->type == SETTING_NAME) {
		error_set(err,
		          "workload %s: invalid %s name in Prepare (letters, digits, '.', "
		          "'_' and '-', 1 to %d characters)",
		          p->workload, strchr(bad->key, '.') + 1, SETTING_NAME_MAX - 1);
		return -1;
	}
	/* the caps first: a value over one says which flag would let it through */
	if (params_caps_check(p, &plan->io, caps, err) < 0)
		return -1;
	if (bad != NULL) {
		params_bounds_text(bad, bounds, sizeof(bounds));
		error_set(
		    err, "workload %s: Prepare field %s %" PRIu64 " is out of its bounds (%s)",
		    p->workload, params_wire_name(bad->wire), setting_wire_get(bad, p), bounds);
		return -1;
	}
	if (params_check_rest(p, &plan->io, err) < 0)
		return -1;
	/* a mix's parts and sizes: each field bounded, block_size the largest block */
	if (mix_from_prepare(p, &plan->io.mix, err) < 0) {
		error_prefix(err, "workload %s: ", p->workload);
		return -1;
	}
	if (mix_is_files(&plan->io.mix) &&
	    params_check_files(p, &plan->io.mix, caps, plan, err) < 0)
		return -1;
	/* rw says whether the files are laid out and device writes allowed: no part may hide one */
	for (uint32_t i = 0; i < plan->io.mix.nparts; i++)
		if (rw_writes(plan->io.mix.parts[i].rw) && !rw_writes(plan->io.rw)) {
			error_set(err,
			          "workload %s: Prepare field mix[%u].rw %s writes, but rw %s does "
			          "not",
			          p->workload, i, rw_mode_name(plan->io.mix.parts[i].rw),
			          rw_mode_name(plan->io.rw));
			return -1;
		}
	/* a clone is an image every file shares: no worker may write to it */
	if (plan->io.clone[0] != '\0' && rw_writes(plan->io.rw)) {
		error_set(err,
		          "workload %s: clone '%s' is read-only, and rw %s writes: the files would "
		          "no longer be the same image",
		          p->workload, plan->io.clone, rw_mode_name(plan->io.rw));
		return -1;
	}
	/* sync writes: one way of syncing, and only where something is written */
	if (plan->io.fsync != 0 && plan->io.fdatasync != 0) {
		error_set(err,
		          "workload %s: Prepare fields fsync %u and fdatasync %u are both set: a "
		          "worker syncs one way",
		          p->workload, plan->io.fsync, plan->io.fdatasync);
		return -1;
	}
	if ((plan->io.fsync != 0 || plan->io.fdatasync != 0 || plan->io.dsync) &&
	    !rw_writes(plan->io.rw)) {
		error_set(err, "workload %s: Prepare field %s is set, and rw %s does not write",
		          p->workload,
		          plan->io.fsync       ? "fsync"
		          : plan->io.fdatasync ? "fdatasync"
		                               : "dsync",
		          rw_mode_name(plan->io.rw));
		return -1;
	}
	if (plan->io.verify && params_check_verify(p, &plan->io, err) < 0)
		return -1;
	plan->workload_index = p->workload_index;
	plan->file_prefix = file_prefix;
	plan->file_size = p->file_size;
	plan->lateness_ns = p->lateness_budget_ns;
	plan->queue_sized = p->queue_sized;
	if (p->fleet_workers > 0 && p->worker_base + p->workers <= p->fleet_workers) {
		plan->phase_base = p->worker_base;
		plan->phase_total = p->fleet_workers;
	}
	/*
	 * a replay's operations, held for the workers the pool forks (agent/replay.h), fitted
	 * to the target's size: a block device given without one has it only once opened
	 * (plan_target), and its replay is built there
	 */
	if (plan->file_size > 0 &&
	    replay_from_prepare(p, plan->file_size, plan->io.block_size, &plan->replay, err) < 0) {
		error_prefix(err, "workload %s: ", p->workload);
		return -1;
	}
	if (p->sim != NULL) {
		sim->servers = p->sim->servers;
		sim->service_ns = p->sim->service_ns;
		sim->jitter_pct = p->sim->jitter_pct;
		sim->exponential = p->sim->exponential;
		sim->write_service_ns = p->sim->write_service_ns;
		sim->stall_after_ops = p->sim->stall_after_ops;
		sim->stall_ns = p->sim->stall_ns;
		sim->rate_limit = p->sim->rate_limit;
		memset(sim->op_service_ns, 0, sizeof(sim->op_service_ns));
		for (size_t i = 0; i < p->sim->n_op_service_ns && i < FILEOP_COUNT; i++) {
			if (p->sim->op_service_ns[i] > PARAMS_MAX_WAIT_NS) {
				error_set(
				    err,
				    "workload %s: Prepare field sim.op_service_ns[%zu] %" PRIu64
				    " is over its bound of 1 h",
				    p->workload, i, p->sim->op_service_ns[i]);
				return -1;
			}
			sim->op_service_ns[i] = p->sim->op_service_ns[i];
		}
		plan->sim = sim;
	}
	return 0;
}
