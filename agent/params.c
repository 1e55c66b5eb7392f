/* SPDX-License-Identifier: MIT */
/* The coordinator's Prepare as the worker pool's parameters: the one place it is read. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "params.h"

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

int params_from_prepare(const Iocurve__Prepare *p, const char *file_prefix,
                        const struct params_caps *caps, struct io_plan *plan,
                        struct engine_sim_params *sim, struct error *err)
{
	const struct setting *bad;

	memset(plan, 0, sizeof(*plan));
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
		error_set(err, "workload %s: invalid Prepare (rw %d, workers %u, block %u, qd %u)",
		          p->workload, (int)p->rw, p->workers, p->block_size, p->queue_depth);
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
	plan->workload_index = p->workload_index;
	plan->file_prefix = file_prefix;
	plan->file_size = p->file_size;
	plan->lateness_ns = p->lateness_budget_ns;
	if (p->fleet_workers > 0 && p->worker_base + p->workers <= p->fleet_workers) {
		plan->phase_base = p->worker_base;
		plan->phase_total = p->fleet_workers;
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
		plan->sim = sim;
	}
	return 0;
}
