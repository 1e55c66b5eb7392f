/* SPDX-License-Identifier: MIT */
/* Merging interval records across agents into a step's point on the curve. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "xalloc.h"

struct agg_step {
	uint32_t nagents;
	uint32_t nintervals;
	struct agg_record *merged; /* per interval */
	bool *seen;                /* nagents * nintervals */
	uint64_t *agent_ops;       /* measured ops per agent */
};

static void agg_record_init(struct agg_record *r)
{
	memset(r, 0, offsetof(struct agg_record, latency));
	hist_reset(&r->latency);
	hist_reset(&r->service);
}

struct agg_step *agg_step_new(uint32_t nagents, uint32_t nintervals)
{
	struct agg_step *st = xcalloc(1, sizeof(*st));

	st->nagents = nagents;
	st->nintervals = nintervals;
	st->merged = xcalloc(nintervals, sizeof(*st->merged));
	for (uint32_t i = 0; i < nintervals; i++)
		agg_record_init(&st->merged[i]);
	st->seen = xcalloc((size_t)nagents * nintervals, sizeof(*st->seen));
	st->agent_ops = xcalloc(nagents, sizeof(*st->agent_ops));
	return st;
}

void agg_step_free(struct agg_step *st)
{
	if (st == NULL)
		return;
	free(st->merged);
	free(st->seen);
	free(st->agent_ops);
	free(st);
}

int agg_record_from_report(struct agg_record *rec, const Iocurve__IntervalReport *r,
                           struct error *err)
{
	agg_record_init(rec);
	rec->ops = r->ops;
	rec->reads = r->reads;
	rec->bytes = r->bytes;
	rec->errors = r->errors;
	rec->cpu_user_ns = r->cpu_user_ns;
	rec->cpu_sys_ns = r->cpu_sys_ns;
	rec->duration_ns = r->duration_ns;
	rec->workers = r->workers;
	rec->agents = 1;
	rec->warmup = r->warmup;
	rec->host_cpu_pct = r->host_cpu_pct;
	if (r->latency == NULL || r->service == NULL) {
		error_set(err, "interval %u: report without histograms", r->interval);
		return -1;
	}
	if (hist_decode(&rec->latency, r->latency, err) < 0 ||
	    hist_decode(&rec->service, r->service, err) < 0) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	if (rec->reads > rec->ops) {
		error_set(err, "interval %u: %llu reads of %llu ops", r->interval,
		          (unsigned long long)rec->reads, (unsigned long long)rec->ops);
		return -1;
	}
	if (rec->latency.count != rec->ops) {
		error_set(err, "interval %u: %llu ops but %llu latencies", r->interval,
		          (unsigned long long)rec->ops, (unsigned long long)rec->latency.count);
		return -1;
	}
	return 0;
}

static void agg_merge(struct agg_record *dst, const struct agg_record *src)
{
	dst->ops += src->ops;
	dst->reads += src->reads;
	dst->bytes += src->bytes;
	dst->errors += src->errors;
	dst->cpu_user_ns += src->cpu_user_ns;
	dst->cpu_sys_ns += src->cpu_sys_ns;
	dst->workers += src->workers;
	dst->agents += src->agents;
	dst->duration_ns = src->duration_ns;
	dst->warmup = src->warmup;
	if (src->host_cpu_pct > dst->host_cpu_pct)
		dst->host_cpu_pct = src->host_cpu_pct;
	hist_merge(&dst->latency, &src->latency);
	hist_merge(&dst->service, &src->service);
}

int agg_add(struct agg_step *st, uint32_t agent, const Iocurve__IntervalReport *r,
            struct agg_record *rec, const struct agg_record **merged, struct error *err)
{
	struct agg_record *m;
	bool *seen;

	*merged = NULL;
	if (agent >= st->nagents || r->interval >= st->nintervals) {
		error_set(err, "interval %u is outside the step (%u intervals)", r->interval,
		          st->nintervals);
		return -1;
	}
	seen = &st->seen[(size_t)agent * st->nintervals + r->interval];
	if (*seen) {
		error_set(err, "interval %u reported twice", r->interval);
		return -1;
	}
	if (agg_record_from_report(rec, r, err) < 0)
		return -1;
	*seen = true;
	m = &st->merged[r->interval];
	agg_merge(m, rec);
	if (!rec->warmup)
		st->agent_ops[agent] += rec->ops;
	if (m->agents < st->nagents)
		return 0;
	*merged = m;
	return 1;
}

bool agg_complete(const struct agg_step *st)
{
	for (uint32_t i = 0; i < st->nintervals; i++)
		if (st->merged[i].agents < st->nagents)
			return false;
	return true;
}

uint64_t agg_agent_ops(const struct agg_step *st, uint32_t agent)
{
	return agent < st->nagents ? st->agent_ops[agent] : 0;
}

void agg_point(const struct agg_step *st, uint32_t step, double offered, struct step_point *pt)
{
	struct agg_record *all = xmalloc(sizeof(*all));
	uint64_t measured_ns = 0;

	agg_record_init(all);
	for (uint32_t i = 0; i < st->nintervals; i++) {
		if (st->merged[i].warmup || st->merged[i].agents == 0)
			continue;
		agg_merge(all, &st->merged[i]);
		measured_ns += st->merged[i].duration_ns;
	}
	memset(pt, 0, sizeof(*pt));
	pt->step = step;
	pt->offered_ops = offered;
	pt->ops = all->ops;
	pt->reads = all->reads;
	pt->errors = all->errors;
	pt->measured_s = (double)measured_ns / 1e9;
	if (measured_ns > 0) {
		pt->achieved_ops = (double)all->ops / pt->measured_s;
		pt->mib_s = (double)all->bytes / pt->measured_s / (1024.0 * 1024.0);
		pt->cpu_pct =
		    100.0 * (double)(all->cpu_user_ns + all->cpu_sys_ns) / (double)measured_ns;
	}
	pt->mean_ns = hist_mean(&all->latency);
	pt->p50_ns = hist_quantile(&all->latency, 50);
	pt->p90_ns = hist_quantile(&all->latency, 90);
	pt->p99_ns = hist_quantile(&all->latency, 99);
	pt->p999_ns = hist_quantile(&all->latency, 99.9);
	pt->max_ns = all->latency.count ? all->latency.max : 0;
	pt->svc_mean_ns = hist_mean(&all->service);
	pt->host_cpu_pct = all->host_cpu_pct;
	free(all);
}
