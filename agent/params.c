/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "params.h"
#include "text.h"

/* The access distribution arrives as the protocol's RandomDist number. */
_Static_assert((int)PATTERN_UNIFORM == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_UNIFORM,
               "pattern_dist");
_Static_assert((int)PATTERN_ZIPF == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_ZIPF, "pattern_dist");
_Static_assert((int)PATTERN_HOTSPOT == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_HOTSPOT,
               "pattern_dist");

void params_caps_default(struct params_caps *caps)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	caps->workers = cpus > 0 && cpus < 1 << 20 ? 4 * (uint32_t)cpus : 64;
	caps->queue_depth = 1024;
	caps->block_size = 16u << 20;
	caps->file_size = 1ull << 40;
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

/*
 * data.clone: a name as the campaign checks it, on a workload that only reads (the
 * coordinator refuses the others; a peer that does not is refused here too).
 */
static int params_clone(const Iocurve__Prepare *p, struct pool_params *pp, struct error *err)
{
	const char *name = p->clone != NULL ? p->clone : "";

	if (name[0] == '\0')
		return 0;
	if (!text_name_ok(name) || strlen(name) >= sizeof(pp->data.clone)) {
		error_set(err,
		          "workload %s: invalid clone name in Prepare (letters, digits, '.', "
		          "'_' and '-', 1 to 63 characters)",
		          p->workload);
		return -1;
	}
	if (rw_writes(pp->rw)) {
		error_set(err,
		          "workload %s: clone '%s' is read-only, and rw %s writes: the files would "
		          "no longer be the same image",
		          p->workload, name, rw_mode_name(pp->rw));
		return -1;
	}
	snprintf(pp->data.clone, sizeof(pp->data.clone), "%s", name);
	return 0;
}

int params_from_prepare(const Iocurve__Prepare *p, const char *file_prefix,
                        const struct params_caps *caps, struct pool_params *pp,
                        struct engine_sim_params *sim, struct error *err)
{
	if (p->workers == 0 || p->block_size == 0 || p->queue_depth == 0 ||
	    (unsigned)p->rw >= RW_MODE_COUNT || p->read_pct > 100 ||
	    (unsigned)p->random > IOCURVE__RANDOM_DIST__RANDOM_DIST_HOTSPOT) {
		error_set(err, "workload %s: invalid Prepare (rw %d, workers %u, block %u, qd %u)",
		          p->workload, (int)p->rw, p->workers, p->block_size, p->queue_depth);
		return -1;
	}
	if (params_cap(p, "workers", p->workers, caps->workers, "max-workers", err) < 0 ||
	    params_cap(p, "queue_depth", p->queue_depth, caps->queue_depth, "max-queue-depth",
	               err) < 0 ||
	    params_cap(p, "block_size", p->block_size, caps->block_size, "max-block-size", err) <
	        0 ||
	    params_cap(p, "file_size", p->file_size, caps->file_size, "max-file-size", err) < 0)
		return -1;
	memset(pp, 0, sizeof(*pp));
	pp->workload_index = p->workload_index;
	pp->file_prefix = file_prefix;
	pp->file_size = p->file_size;
	pp->working_set = p->working_set;
	pp->direct = p->direct;
	pp->rw = (enum rw_mode)p->rw;
	pp->block_size = p->block_size;
	pp->workers = p->workers;
	pp->queue_depth = p->queue_depth;
	pp->pattern.read_pct = p->read_pct;
	pp->pattern.align = p->align;
	pp->pattern.dist = (enum pattern_dist)p->random;
	pp->pattern.zipf_theta = p->zipf_theta;
	pp->pattern.hot_set_pct = p->hot_set_pct;
	pp->pattern.hot_ops_pct = p->hot_ops_pct;
	pp->poisson = p->poisson;
	pp->wake_slack_ns = p->wake_slack_ns;
	pp->lateness_ns = p->lateness_budget_ns;
	pp->timing =
	    p->timing == IOCURVE__TIMING__TIMING_EFFICIENT ? PACER_EFFICIENT : PACER_PRECISE;
	if (p->fleet_workers > 0 && p->worker_base + p->workers <= p->fleet_workers) {
		pp->phase_base = p->worker_base;
		pp->phase_total = p->fleet_workers;
	}
	pp->data.compress_pct = p->compress_pct;
	pp->data.dedupe_pct = p->dedupe_pct;
	if (params_clone(p, pp, err) < 0)
		return -1;
	if (p->sim != NULL) {
		sim->servers = p->sim->servers;
		sim->service_ns = p->sim->service_ns;
		sim->jitter_pct = p->sim->jitter_pct;
		sim->exponential = p->sim->exponential;
		sim->write_service_ns = p->sim->write_service_ns;
		sim->stall_after_ops = p->sim->stall_after_ops;
		sim->stall_ns = p->sim->stall_ns;
		sim->rate_limit = p->sim->rate_limit;
		pp->sim = sim;
	}
	return 0;
}
