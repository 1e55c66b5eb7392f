/* SPDX-License-Identifier: MIT */
/* A campaign's workload as the Prepare message the agents receive: the one place it is built. */
#include "prepare.h"

/* The campaign's enums travel as their numbers: they must stay the protocol's. */
_Static_assert((int)ACCESS_UNIFORM == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_UNIFORM,
               "access_dist");
_Static_assert((int)ACCESS_ZIPF == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_ZIPF, "access_dist");
_Static_assert((int)ACCESS_HOTSPOT == (int)IOCURVE__RANDOM_DIST__RANDOM_DIST_HOTSPOT,
               "access_dist");

void prepare_for_agent(struct prepare_msg *m, uint32_t agent_index, uint32_t nagents)
{
	/* Every agent runs the workload's worker count: agent i's are i*W .. i*W+W-1. */
	m->p.agent_index = agent_index;
	m->p.worker_base = agent_index * m->p.workers;
	m->p.fleet_workers = nagents * m->p.workers;
}

void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t wi)
{
	const struct workload *w = &c->workloads[wi];
	Iocurve__Prepare *p = &m->p;

	iocurve__prepare__init(p);
	iocurve__sim_target__init(&m->sim);
	p->workload_index = (uint32_t)wi;
	p->workload = w->name;
	p->target_dir = c->target_path ? c->target_path : "";
	p->file_size = c->target_size;
	p->rw = (Iocurve__RwMode)w->rw;
	p->block_size = w->block_size;
	p->workers = w->workers;
	p->queue_depth = w->queue_depth;
	p->direct = w->access.direct;
	p->read_pct = w->access.read_pct;
	p->align = w->access.align;
	p->working_set = w->access.working_set;
	p->random = (Iocurve__RandomDist)w->access.dist;
	p->zipf_theta = w->access.zipf_theta;
	p->hot_set_pct = w->access.hot_set_pct;
	p->hot_ops_pct = w->access.hot_ops_pct;
	p->poisson = w->access.poisson;
	p->wake_slack_ns = w->access.wake_slack_ns;
	p->timing = w->access.efficient ? IOCURVE__TIMING__TIMING_EFFICIENT
	                                : IOCURVE__TIMING__TIMING_PRECISE;
	p->lateness_budget_ns = c->slo_latency_ns * PREPARE_LATENESS_PCT / 100;
	p->compress_pct = w->access.compress_pct;
	p->dedupe_pct = w->access.dedupe_pct;
	/* Only agents with CAPABILITY_CLONE are claimed for a campaign with a clone (runner.c). */
	if (w->access.clone[0] != '\0')
		p->clone = (char *)w->access.clone;
	if (c->sim.enabled) {
		m->sim.servers = c->sim.servers;
		m->sim.service_ns = c->sim.service_ns;
		m->sim.jitter_pct = c->sim.jitter_pct;
		m->sim.exponential = c->sim.exponential;
		m->sim.write_service_ns = c->sim.write_service_ns;
		m->sim.stall_after_ops = c->sim.stall_after_ops;
		m->sim.stall_ns = c->sim.stall_ns;
		p->sim = &m->sim;
	}
}

int prepare_check_caps(const struct campaign *c, uint64_t caps, const char *agent,
                       const char *version, struct error *err)
{
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		if (w->access.clone[0] == '\0' || (caps & IOCURVE__CAPABILITY__CAPABILITY_CLONE))
			continue;
		error_set(err,
		          "agent %s (%s) lacks capability 'clone': workload '%s' reads clone '%s', "
		          "which it would lay out as files of their own data, not one image; run "
		          "an agent of this release, or leave data.clone out",
		          agent, version, w->name, w->access.clone);
		return -1;
	}
	return 0;
}
