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
	record_reset(&r->rec);
	r->duration_ns = 0;
	r->workers = 0;
	r->agents = 0;
	r->warmup = false;
	r->host_cpu_pct = 0;
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
	rec->rec.ops = r->ops;
	rec->rec.reads = r->reads;
	rec->rec.lag_sum_ns = r->lag_sum_ns;
	rec->rec.lag_max_ns = r->lag_max_ns;
	rec->rec.bytes = r->bytes;
	rec->rec.errors = r->errors;
	rec->rec.cpu_user_ns = r->cpu_user_ns;
	rec->rec.cpu_sys_ns = r->cpu_sys_ns;
	rec->duration_ns = r->duration_ns;
	rec->workers = r->workers;
	rec->agents = 1;
	rec->warmup = r->warmup;
	rec->host_cpu_pct = r->host_cpu_pct;
	if (r->latency == NULL || r->service == NULL) {
		error_set(err, "interval %u: report without histograms", r->interval);
		return -1;
	}
	if (hist_decode(&rec->rec.latency, r->latency, err) < 0 ||
	    hist_decode(&rec->rec.service, r->service, err) < 0) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	if (rec->rec.reads > rec->rec.ops) {
		error_set(err, "interval %u: %llu reads of %llu ops", r->interval,
		          (unsigned long long)rec->rec.reads, (unsigned long long)rec->rec.ops);
		return -1;
	}
	if (rec->rec.latency.count != rec->rec.ops) {
		error_set(err, "interval %u: %llu ops but %llu latencies", r->interval,
		          (unsigned long long)rec->rec.ops,
		          (unsigned long long)rec->rec.latency.count);
		return -1;
	}
	return 0;
}

static void agg_merge(struct agg_record *dst, const struct agg_record *src)
{
	record_merge(&dst->rec, &src->rec);
	dst->workers += src->workers;
	dst->agents += src->agents;
	dst->duration_ns = src->duration_ns;
	dst->warmup = src->warmup;
	if (src->host_cpu_pct > dst->host_cpu_pct)
		dst->host_cpu_pct = src->host_cpu_pct;
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
		st->agent_ops[agent] += rec->rec.ops;
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
	pt->ops = all->rec.ops;
	pt->reads = all->rec.reads;
	pt->lag_mean_ns = all->rec.ops ? (double)all->rec.lag_sum_ns / (double)all->rec.ops : 0;
	pt->lag_max_ns = all->rec.lag_max_ns;
	pt->errors = all->rec.errors;
	pt->measured_s = (double)measured_ns / 1e9;
	if (measured_ns > 0) {
		pt->achieved_ops = (double)all->rec.ops / pt->measured_s;
		pt->mib_s = (double)all->rec.bytes / pt->measured_s / (1024.0 * 1024.0);
		pt->cpu_pct = 100.0 * (double)(all->rec.cpu_user_ns + all->rec.cpu_sys_ns) /
		              (double)measured_ns;
	}
	pt->mean_ns = hist_mean(&all->rec.latency);
	pt->p50_ns = hist_quantile(&all->rec.latency, 50);
	pt->p90_ns = hist_quantile(&all->rec.latency, 90);
	pt->p99_ns = hist_quantile(&all->rec.latency, 99);
	pt->p999_ns = hist_quantile(&all->rec.latency, 99.9);
	pt->max_ns = all->rec.latency.count ? all->rec.latency.max : 0;
	pt->svc_mean_ns = hist_mean(&all->rec.service);
	pt->host_cpu_pct = all->host_cpu_pct;
	free(all);
}
