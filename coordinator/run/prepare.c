/* SPDX-License-Identifier: MIT */
/* A campaign's workload as the Prepare message the agents receive: the one place it is built. */
#include <stdlib.h>

#include "prepare.h"
#include "syncs.h"
#include "trace.h"
#include "xalloc.h"

static void prepare_replay_share(struct prepare_msg *m);

void prepare_for_agent(struct prepare_msg *m, uint32_t agent_index, uint32_t nagents)
{
	/* Every agent runs the workload's worker count: agent i's are i*W .. i*W+W-1. */
	m->p.agent_index = agent_index;
	m->p.worker_base = agent_index * m->p.workers;
	m->p.fleet_workers = nagents * m->p.workers;
	if (m->p.sim != NULL && m->fleet_rate_limit > 0 && m->p.fleet_workers > 0)
		m->sim.rate_limit = m->fleet_rate_limit / m->p.fleet_workers;
	if (m->replay != NULL)
		prepare_replay_share(m);
}

/* This agent's share of the trace, grouped by its workers, in their buffers. */
static void prepare_replay_share(struct prepare_msg *m)
{
	const struct trace *t = m->replay;
	uint32_t fleet = m->p.fleet_workers, n = 0;

	for (uint32_t lw = 0; lw < m->p.workers; lw++) {
		uint32_t first = n;

		for (uint64_t j = m->p.worker_base + lw; j < t->n; j += fleet) {
			m->replay_times[n] = t->t_ns[j];
			m->replay_offsets[n] = t->offset[j];
			m->replay_lens[n] = t->len[j];
			m->replay_writes[n] = t->write[j];
			n++;
		}
		m->replay_counts[lw] = n - first;
	}
	m->p.n_replay_worker_ops = m->p.workers;
	m->p.replay_worker_ops = m->replay_counts;
	m->p.n_replay_time_ns = m->p.n_replay_offset = m->p.n_replay_len = m->p.n_replay_write = n;
	m->p.replay_time_ns = m->replay_times;
	m->p.replay_offset = m->replay_offsets;
	m->p.replay_len = m->replay_lens;
	m->p.replay_write = m->replay_writes;
}

void prepare_free(struct prepare_msg *m)
{
	free(m->replay_counts);
	free(m->replay_times);
	free(m->replay_offsets);
	free(m->replay_lens);
	free(m->replay_writes);
	m->replay_counts = NULL;
	m->replay_times = m->replay_offsets = NULL;
	m->replay_lens = NULL;
	m->replay_writes = NULL;
}

void prepare_build(struct prepare_msg *m, const struct campaign *c, size_t wi)
{
	const struct workload *w = &c->workloads[wi];
	const struct campaign_target *t = campaign_target_of(c, w);
	Iocurve__Prepare *p = &m->p;

	iocurve__prepare__init(p);
	iocurve__sim_target__init(&m->sim);
	iocurve__nfs_target__init(&m->nfs);
	m->fleet_rate_limit = 0;
	m->replay = w->replay;
	m->replay_counts = NULL;
	m->replay_times = m->replay_offsets = NULL;
	m->replay_lens = NULL;
	m->replay_writes = NULL;
	if (w->replay != NULL) {
		/* one agent's share is at most the whole trace; its counts one per worker */
		m->replay_counts = xcalloc(w->io.workers ? w->io.workers : 1, sizeof(uint32_t));
		m->replay_times = xcalloc(w->replay->n, sizeof(uint64_t));
		m->replay_offsets = xcalloc(w->replay->n, sizeof(uint64_t));
		m->replay_lens = xcalloc(w->replay->n, sizeof(uint32_t));
		m->replay_writes = xcalloc(w->replay->n, sizeof(protobuf_c_boolean));
		p->replay_period_ns = w->replay->period_ns;
		p->replay_rate = trace_rate(w->replay);
	}
	p->workload_index = (uint32_t)wi;
	p->workload = w->name;
	p->target_dir = t->path ? t->path : "";
	/* a file workload's bytes are its set's (per worker), not the target's data file */
	p->file_size = mix_is_files(&w->io.mix) ? mix_fileset_bytes(&w->io.mix.fileset) : t->size;
	/* the workload's settings, row by row (common/setting.c) */
	setting_to_prepare(&w->io, p);
	mix_to_prepare(&w->io.mix, &m->mix, p);
	p->lateness_budget_ns = c->slo_latency_ns * PREPARE_LATENESS_PCT / 100;
	p->queue_sized = w->qd_sized;
	if (t->nfs.enabled) {
		m->nfs.server = t->nfs.server;
		m->nfs.export = t->nfs.export;
		m->nfs.version = t->nfs.version;
		m->nfs.connections = t->nfs.connections;
		m->nfs.uid = t->nfs.uid;
		m->nfs.gid = t->nfs.gid;
		m->nfs.timeout_ns = t->nfs.timeout_ns;
		p->nfs = &m->nfs;
	}
	if (t->sim.enabled) {
		m->sim.servers = t->sim.servers;
		m->sim.service_ns = t->sim.service_ns;
		m->sim.jitter_pct = t->sim.jitter_pct;
		m->sim.exponential = t->sim.exponential;
		m->sim.stall_after_ops = t->sim.stall_after_ops;
		m->sim.stall_ns = t->sim.stall_ns;
		m->fleet_rate_limit = t->sim.rate_limit;
		m->sim.write_service_ns = t->sim.write_service_ns;
		if (t->sim.op_service) {
			m->sim.n_op_service_ns = FILEOP_COUNT;
			m->sim.op_service_ns = (uint64_t *)t->sim.op_service_ns;
		}
		p->sim = &m->sim;
	}
}

/*
 * What workload w asks of an agent that one without a capability of caps would do
 * otherwise, in words after "agent NAME (VERSION) " into buf; false when caps has all of it.
 */
static bool prepare_lacks(const struct campaign *c, const struct workload *w, uint64_t caps,
                          char *buf, size_t len)
{
	if (w->io.clone[0] != '\0' && !(caps & IOCURVE__CAPABILITY__CAPABILITY_CLONE))
		snprintf(buf, len,
		         "lacks capability 'clone': workload '%s' reads clone '%s', which it would "
		         "lay out as files of their own data, not one image; run an agent of this "
		         "release, or leave data.clone out",
		         w->name, w->io.clone);
	else if (w->replay != NULL && !(caps & IOCURVE__CAPABILITY__CAPABILITY_REPLAY))
		snprintf(buf, len,
		         "lacks capability 'replay': workload '%s' replays %s, which it would run "
		         "as its pattern instead; run an agent of this release",
		         w->name, w->replay->path);
	else if (syncs_asked(w) && !(caps & IOCURVE__CAPABILITY__CAPABILITY_SYNC))
		snprintf(
		    buf, len,
		    "lacks capability 'sync': workload '%s' asks for %s, which it would ignore "
		    "and write without syncing; run an agent of this release, or leave fsync, "
		    "fdatasync and sync out",
		    w->name,
		    w->io.fsync       ? "fsync"
		    : w->io.fdatasync ? "fdatasync"
		                      : "sync: dsync");
	else if (w->io.background && !(caps & IOCURVE__CAPABILITY__CAPABILITY_BACKGROUND))
		snprintf(buf, len,
		         "lacks capability 'background': workload '%s' is a background "
		         "(background: true), whose workers it would stop at the next workload's "
		         "Prepare; run an agent of this release, or leave background out",
		         w->name);
	else if (w->io.verify && !(caps & IOCURVE__CAPABILITY__CAPABILITY_VERIFY))
		snprintf(buf, len,
		         "lacks capability 'verify': workload '%s' verifies its data, which it "
		         "would neither stamp nor check; run an agent of this release, or leave "
		         "verify out",
		         w->name);
	else if ((w->io.mix.nparts > 0 || w->io.mix.sizes.n > 0) &&
	         !(caps & IOCURVE__CAPABILITY__CAPABILITY_MIX))
		/* an agent without mixes would run the plain rw and block_size */
		snprintf(buf, len,
		         "lacks capability 'mix': workload '%s' has %s, which it would run as one "
		         "rw and block_size; run an agent of this release",
		         w->name, w->io.mix.nparts > 0 ? "a mix" : "a size distribution");
	else if (w->io.verify == IOCURVE__VERIFY_METHOD__VERIFY_XXH64 &&
	         !(caps & IOCURVE__CAPABILITY__CAPABILITY_VERIFY_XXH))
		snprintf(buf, len,
		         "lacks capability 'verify-xxh64': workload '%s' verifies its data with "
		         "xxh64, which it can neither stamp nor check; run an agent of this "
		         "release, or use verify: crc32",
		         w->name);
	else if (mix_is_files(&w->io.mix) && !(caps & IOCURVE__CAPABILITY__CAPABILITY_FILES))
		snprintf(
		    buf, len,
		    "lacks capability 'files': workload '%s' has a file set or file operations, "
		    "which it would run as reads and writes of one file; run an agent of this "
		    "release",
		    w->name);
	else if (campaign_target_of(c, w)->nfs.enabled &&
	         !(caps & IOCURVE__CAPABILITY__CAPABILITY_NFS))
		snprintf(buf, len,
		         "lacks capability 'nfs': workload '%s' runs on NFS export %s, which it "
		         "would take for a local path; run an agent of this release",
		         w->name, campaign_target_of(c, w)->path);
	else
		return false;
	return true;
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
		char why[sizeof(err->msg)];

		if (prepare_lacks(c, &c->workloads[i], caps, why, sizeof(why))) {
			error_set(err, "agent %s (%s) %s", agent, version, why);
			return -1;
		}
	}
	return 0;
}
