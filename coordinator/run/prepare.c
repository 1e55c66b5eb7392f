/* SPDX-License-Identifier: MIT */
/* A campaign's workload as the Prepare message the agents receive: the one place it is built. */
#include "prepare.h"

void prepare_for_agent(struct prepare_msg *m, uint32_t agent_index, uint32_t nagents)
{
	/* Every agent runs the workload's worker count: agent i's are i*W .. i*W+W-1. */
	m->p.agent_index = agent_index;
	m->p.worker_base = agent_index * m->p.workers;
	m->p.fleet_workers = nagents * m->p.workers;
	if (m->p.sim != NULL && m->fleet_rate_limit > 0 && m->p.fleet_workers > 0)
		m->sim.rate_limit = m->fleet_rate_limit / m->p.fleet_workers;
}

void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t wi)
{
	const struct workload *w = &c->workloads[wi];
	const struct campaign_target *t = campaign_target_of(c, w);
	Iocurve__Prepare *p = &m->p;

	iocurve__prepare__init(p);
	iocurve__sim_target__init(&m->sim);
	m->fleet_rate_limit = 0;
	p->workload_index = (uint32_t)wi;
	p->workload = w->name;
	p->target_dir = t->path ? t->path : "";
	p->file_size = t->size;
	/* the workload's settings, row by row (common/setting.c) */
	setting_to_prepare(&w->io, p);
	p->lateness_budget_ns = c->slo_latency_ns * PREPARE_LATENESS_PCT / 100;
	if (t->sim.enabled) {
		m->sim.servers = t->sim.servers;
		m->sim.service_ns = t->sim.service_ns;
		m->sim.jitter_pct = t->sim.jitter_pct;
		m->sim.exponential = t->sim.exponential;
		m->sim.stall_after_ops = t->sim.stall_after_ops;
		m->sim.stall_ns = t->sim.stall_ns;
		m->fleet_rate_limit = t->sim.rate_limit;
		m->sim.write_service_ns = t->sim.write_service_ns;
		p->sim = &m->sim;
	}
}

int prepare_check_caps(const struct campaign *c, uint64_t caps, const char *agent,
                       const char *version, struct error *err)
{
	/* an agent that would ignore the rate limit would run the sim uncapped */
	for (size_t i = 0; i < c->ntargets; i++) {
		const struct campaign_target *t = &c->targets[i];

		if (!t->sim.enabled || !(t->sim.rate_limit > 0) ||
		    (caps & IOCURVE__CAPABILITY__CAPABILITY_RATE_LIMIT))
			continue;
		error_set(err,
		          "agent %s (%s) lacks capability 'rate_limit': it cannot simulate "
		          "%s%s.sim.rate_limit and would run the device uncapped; run an agent "
		          "of this release, or leave rate_limit out",
		          agent, version, t->name ? "targets." : "target", t->name ? t->name : "");
		return -1;
	}
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		if (w->io.clone[0] == '\0' || (caps & IOCURVE__CAPABILITY__CAPABILITY_CLONE))
			continue;
		error_set(err,
		          "agent %s (%s) lacks capability 'clone': workload '%s' reads clone '%s', "
		          "which it would lay out as files of their own data, not one image; run "
		          "an agent of this release, or leave data.clone out",
		          agent, version, w->name, w->io.clone);
		return -1;
	}
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		if (!w->io.verify || (caps & IOCURVE__CAPABILITY__CAPABILITY_VERIFY))
			continue;
		error_set(err,
		          "agent %s (%s) lacks capability 'verify': workload '%s' verifies its "
		          "data, which it would neither stamp nor check; run an agent of this "
		          "release, or leave verify out",
		          agent, version, w->name);
		return -1;
	}
	return 0;
}
