/* SPDX-License-Identifier: MIT */
/* Merging interval records across agents into a step's point on the curve. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "figs.h"
#include "trace.h"
#include "xalloc.h"

/* One agent's measured intervals of a step, for its share of the window. */
struct agg_agent_iv {
	uint64_t ops;
	uint64_t lat_sum_ns;
	uint64_t duration_ns;
	double host_cpu_pct;
	uint64_t client_ns; /* issue lateness + reap delay, summed over its operations */
	bool health;        /* the agent measured them */
};

struct agg_agent {
	char name[64];
	uint32_t gone_from; /* lost: it reports no interval from this one (UINT32_MAX: present) */
	struct agg_agent_iv *iv; /* per interval; NULL until the first measured one */
};

struct agg_step {
	uint32_t nagents, agents_cap;
	uint32_t nintervals;
	struct agg_record **merged; /* per interval, made when its first record arrives */
	bool *seen;                 /* agent-major: agents_cap * nintervals */
	struct agg_agent *agents;
	uint32_t *gone;            /* per interval: agents lost at or before it */
	uint32_t win_from, win_to; /* the measured window */
	int slo_part;              /* slo.part: the mix's part the SLO judges (-1: the whole) */
};

void agg_step_slo_part(struct agg_step *st, int part)
{
	st->slo_part = part;
}

/* The agents an interval waits for: all but those lost before it (every report asks). */
static uint32_t agg_expected(const struct agg_step *st, uint32_t interval)
{
	return st->nagents - st->gone[interval];
}

/* r's own fields, the record's aside. */
static void agg_record_fields(struct agg_record *r)
{
	r->duration_ns = 0;
	r->workers = 0;
	r->finished = 0;
	r->agents = 0;
	r->warmup = false;
	r->host_cpu_pct = 0;
	r->err_agent[0] = '\0';
	r->no_bins = false;
}

void agg_record_init(struct agg_record *r)
{
	record_init(&r->rec);
	agg_record_fields(r);
}

/* An agg_record made before, empty again: what it held is written, not its ~185 KB. */
static void agg_record_reset(struct agg_record *r)
{
	record_reset(&r->rec);
	agg_record_fields(r);
}

void agg_record_free(struct agg_record *r)
{
	if (r == NULL)
		return;
	record_release(&r->rec);
	free(r);
}

struct agg_step *agg_step_new(uint32_t nagents, const char *const *names, uint32_t nintervals)
{
	struct agg_step *st = xcalloc(1, sizeof(*st));

	st->nintervals = nintervals;
	st->merged = xcalloc(nintervals, sizeof(*st->merged));
	st->gone = xcalloc(nintervals, sizeof(*st->gone));
	st->win_to = nintervals;
	for (uint32_t a = 0; a < nagents; a++)
		agg_step_add_agent(st, names[a]);
	st->slo_part = -1;
	return st;
}

uint32_t agg_step_add_agent(struct agg_step *st, const char *name)
{
	uint32_t a = st->nagents;

	if (a == st->agents_cap) {
		uint32_t cap = st->agents_cap ? 2 * st->agents_cap : 8;
		size_t was = (size_t)st->agents_cap * st->nintervals;

		st->agents = xreallocarray(st->agents, cap, sizeof(*st->agents));
		st->seen = xreallocarray(st->seen, (size_t)cap * st->nintervals, sizeof(*st->seen));
		memset(st->seen + was, 0, ((size_t)cap * st->nintervals - was) * sizeof(*st->seen));
		st->agents_cap = cap;
	}
	memset(&st->agents[a], 0, sizeof(st->agents[a]));
	snprintf(st->agents[a].name, sizeof(st->agents[a].name), "%s", name);
	st->agents[a].gone_from = UINT32_MAX;
	st->nagents++;
	return a;
}

/* Counts and sum agree: the merged line's histogram can stand for the agents' counts. */
static bool agg_hist_agrees(const struct hist *counts, const struct hist *bins)
{
	return counts->count == bins->count && counts->sum == bins->sum;
}

int agg_set_hists(struct agg_step *st, uint32_t interval, const struct record *merged)
{
	struct agg_record *m = interval < st->nintervals ? st->merged[interval] : NULL;

	if (m == NULL || !m->no_bins)
		return 0; /* no agent's line (the interval is incomplete), or they had their bins */
	if (!agg_hist_agrees(&m->rec.latency, &merged->latency) ||
	    !agg_hist_agrees(&m->rec.service, &merged->service) ||
	    !agg_hist_agrees(&m->rec.read_latency, &merged->read_latency) ||
	    !agg_hist_agrees(&m->rec.write_latency, &merged->write_latency) ||
	    !agg_hist_agrees(&m->rec.sync_latency, &merged->sync_latency) ||
	    m->rec.nparts != merged->nparts)
		return -1;
	/* a mix's parts were written without bins too: the merged line's stand for them */
	for (uint32_t i = 0; i < m->rec.nparts; i++)
		if (!agg_hist_agrees(&m->rec.parts[i].latency, &merged->parts[i].latency))
			return -1;
	for (uint32_t i = 0; i < m->rec.nparts; i++)
		m->rec.parts[i].latency = merged->parts[i].latency;
	m->rec.latency = merged->latency;
	m->rec.service = merged->service;
	m->rec.read_latency = merged->read_latency;
	m->rec.write_latency = merged->write_latency;
	m->rec.sync_latency = merged->sync_latency;
	m->no_bins = false;
	return 0;
}

uint32_t agg_agent_missing(const struct agg_step *st, uint32_t agent, uint32_t to)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < to && i < st->nintervals; i++)
		n += !st->seen[(size_t)agent * st->nintervals + i];
	return n;
}

uint32_t agg_agent_reported(const struct agg_step *st, uint32_t agent)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < st->nintervals; i++)
		n += st->seen[(size_t)agent * st->nintervals + i];
	return n;
}

void agg_step_free(struct agg_step *st)
{
	if (st == NULL)
		return;
	for (uint32_t i = 0; i < st->nintervals; i++)
		agg_record_free(st->merged[i]);
	free(st->merged);
	free(st->gone);
	free(st->seen);
	for (uint32_t a = 0; a < st->nagents; a++)
		free(st->agents[a].iv);
	free(st->agents);
	free(st);
}

int agg_record_from_report(struct agg_record *rec, const Iocurve__IntervalReport *r,
                           struct error *err)
{
	agg_record_reset(rec);
	rec->duration_ns = r->duration_ns;
	rec->workers = r->workers;
	rec->finished = r->workers_finished <= r->workers ? r->workers_finished : r->workers;
	rec->agents = 1;
	rec->warmup = r->warmup;
	rec->host_cpu_pct = r->host_cpu_pct;
	if (agg_record_check(rec, false, err) < 0) {
		error_prefix(err, "interval %u: ", r->interval);
		return -1;
	}
	/* An agent of 0.2.0 or before may say a little over 100 (agg_record_check): a share. */
	if (rec->host_cpu_pct > 100)
		rec->host_cpu_pct = 100;
	return record_decode(&rec->rec, r, err);
}

int agg_record_check(const struct agg_record *rec, bool nan_cpu_ok, struct error *err)
{
	double cpu = rec->host_cpu_pct;

	if (rec->duration_ns > RECORD_NS_MAX) {
		error_set(err, "duration_ns %llu is outside [0, %llu]",
		          (unsigned long long)rec->duration_ns, (unsigned long long)RECORD_NS_MAX);
		return -1;
	}
	if (rec->workers > AGG_WORKERS_MAX) {
		error_set(err, "workers %u is outside [0, %u]", rec->workers, AGG_WORKERS_MAX);
		return -1;
	}
	if (rec->agents > AGG_AGENTS_MAX) {
		error_set(err, "agents %u is outside [0, %u]", rec->agents, AGG_AGENTS_MAX);
		return -1;
	}
	/*
	 * A share of the host's CPUs: scaled and summed later, a huge one overflows to inf.
	 * Agents of 0.2.0 and before divide busy time by a total that shrinks when /proc/stat's
	 * iowait runs backwards, so a busy host reads a little over 100: up to
	 * AGG_CPU_PCT_JITTER over passes (the wire's is then read as 100, a file's as written).
	 */
	if (!(cpu >= 0 && cpu <= 100 + AGG_CPU_PCT_JITTER) && !(nan_cpu_ok && isnan(cpu))) {
		error_set(err, "host_cpu_pct %g is outside [0, 100]", cpu);
		return -1;
	}
	return 0;
}

static void agg_merge(struct agg_record *dst, const struct agg_record *src)
{
	if (!record_err_kept(&dst->rec) && record_err_kept(&src->rec))
		memcpy(dst->err_agent, src->err_agent, sizeof(dst->err_agent));
	record_merge(&dst->rec, &src->rec);
	dst->workers += src->workers;
	dst->finished += src->finished;
	dst->agents += src->agents;
	dst->duration_ns = src->duration_ns;
	dst->warmup = src->warmup;
	dst->no_bins |= src->no_bins;
	if (src->host_cpu_pct > dst->host_cpu_pct)
		dst->host_cpu_pct = src->host_cpu_pct;
}

int agg_add_record(struct agg_step *st, uint32_t agent, uint32_t interval,
                   const struct agg_record *rec, const struct agg_record **merged,
                   struct error *err)
{
	struct agg_record *m;
	bool *seen;

	*merged = NULL;
	if (agent >= st->nagents || interval >= st->nintervals) {
		error_set(err, "interval %u is outside the step (%u intervals)", interval,
		          st->nintervals);
		return -1;
	}
	seen = &st->seen[(size_t)agent * st->nintervals + interval];
	if (*seen) {
		error_set(err, "interval %u reported twice", interval);
		return -1;
	}
	if (st->merged[interval] == NULL) {
		st->merged[interval] = xmalloc(sizeof(*m));
		agg_record_init(st->merged[interval]);
	}
	m = st->merged[interval];
	/*
	 * The fleet's interval must stay a record every reader accepts: a report that
	 * would take a sum past its bound is refused (the agent is lost from this
	 * interval on) instead of saturating, which broke one latency per op and left
	 * serve writing a merged line `report` refuses.
	 */
	if (record_merge_fits(&m->rec, &rec->rec, err) < 0) {
		error_prefix(err, "interval %u: the fleet's ", interval);
		return -1;
	}
	*seen = true;
	agg_merge(m, rec);
	if (record_err_kept(&m->rec) && m->err_agent[0] == '\0')
		snprintf(m->err_agent, sizeof(m->err_agent), "%s", st->agents[agent].name);
	if (!rec->warmup) {
		struct agg_agent *a = &st->agents[agent];

		a->iv = a->iv ? a->iv : xcalloc(st->nintervals, sizeof(*a->iv));
		a->iv[interval].ops = rec->rec.ops;
		a->iv[interval].lat_sum_ns = rec->rec.latency.sum;
		a->iv[interval].duration_ns = rec->duration_ns;
		a->iv[interval].host_cpu_pct = rec->host_cpu_pct;
		a->iv[interval].client_ns = rec->rec.issue_late_ns + rec->rec.reap_delay_ns;
		a->iv[interval].health = rec->rec.health_n > 0;
	}
	if (m->agents < agg_expected(st, interval))
		return 0;
	*merged = m;
	return 1;
}

uint32_t agg_drop_agent(struct agg_step *st, uint32_t agent)
{
	uint32_t from = 0;

	if (st->agents[agent].gone_from != UINT32_MAX)
		return st->agents[agent].gone_from; /* lost once already */
	while (from < st->nintervals && st->seen[(size_t)agent * st->nintervals + from])
		from++;
	st->agents[agent].gone_from = from;
	for (uint32_t i = from; i < st->nintervals; i++)
		st->gone[i]++;
	return from;
}

const struct agg_record *agg_merged(const struct agg_step *st, uint32_t interval)
{
	const struct agg_record *m = interval < st->nintervals ? st->merged[interval] : NULL;

	return m != NULL && m->agents > 0 && m->agents == agg_expected(st, interval) ? m : NULL;
}

int agg_add(struct agg_step *st, uint32_t agent, const Iocurve__IntervalReport *r,
            struct agg_record *rec, const struct agg_record **merged, struct error *err)
{
	*merged = NULL;
	if (agg_record_from_report(rec, r, err) < 0)
		return -1;
	return agg_add_record(st, agent, r->interval, rec, merged, err);
}

bool agg_complete(const struct agg_step *st)
{
	for (uint32_t i = 0; i < st->win_to; i++)
		if (st->merged[i] == NULL || st->merged[i]->agents < agg_expected(st, i) ||
		    st->merged[i]->no_bins)
			return false;
	return true;
}

void agg_set_window(struct agg_step *st, uint32_t from, uint32_t to)
{
	st->win_from = from < st->nintervals ? from : st->nintervals;
	st->win_to = to < st->nintervals ? to : st->nintervals;
}

/* The histogram the SLO judges: the storage's latency, or the response's (slo.from: due). */
/*
 * The histogram the SLO judges: the storage's latency, or the response's (slo.from: due);
 * with slo.part (part >= 0) that part's latency, from the due time as a part records it.
 */
static const struct hist *agg_slo_hist(const struct agg_record *m, const struct campaign *c,
                                       int part)
{
	if (part >= 0 && (uint32_t)part < m->rec.nparts)
		return &m->rec.parts[part].latency;
	return c->slo_from_due ? &m->rec.latency : &m->rec.service;
}

/* The SLO metric of one interval (or a merge), as step_metric gives it for a whole step. */
static double agg_interval_metric(const struct agg_record *m, const struct campaign *c, int part)
{
	static const double q[] = {0, 50, 90, 99, 99.9};
	const struct hist *h = agg_slo_hist(m, c, part);

	if (c->slo_metric == SLO_MEAN)
		return hist_mean(h);
	return (double)hist_quantile(h, q[c->slo_metric]);
}

/* By name; agents of one name in their index order. */
static int agg_agent_cmp(const void *a, const void *b)
{
	const struct agg_agent *x = *(const struct agg_agent *const *)a;
	const struct agg_agent *y = *(const struct agg_agent *const *)b;
	int c = strcmp(x->name, y->name);

	return c != 0 ? c : (x > y) - (x < y);
}

/* The measured intervals of [from, to) into idx (room for st->nintervals); their count. */
static size_t agg_measured(const struct agg_step *st, uint32_t from, uint32_t to, uint32_t *idx)
{
	size_t n = 0;

	for (uint32_t i = from; i < to && i < st->nintervals; i++)
		if (agg_counted(st->merged[i]))
			idx[n++] = i;
	return n;
}

bool agg_backlog_grows(const struct agg_step *st, uint32_t from, uint32_t to)
{
	uint32_t *idx = xcalloc(st->nintervals + 1, sizeof(*idx));
	size_t n = agg_measured(st, from, to, idx);
	uint64_t first, last;
	double ops = 0;

	if (n == 0) {
		free(idx);
		return false;
	}
	first = st->merged[idx[0]]->rec.missed;
	last = st->merged[idx[n - 1]]->rec.missed;
	for (size_t i = 0; i < n; i++)
		ops += (double)st->merged[idx[i]]->rec.ops;
	free(idx);
	return last > first &&
	       (double)(last - first) > THRESH_BACKLOG_TOL * ops + THRESH_NOISE_Z * sqrt(ops);
}

/* Agent ag's figures over the step's window: the report's breakdown, its client's delay. */
static void agg_agent_share(const struct agg_step *st, const struct agg_agent *ag,
                            struct agent_share *sh)
{
	struct agg_agent_iv sum = {.health = true};

	for (uint32_t i = st->win_from; ag->iv != NULL && i < st->win_to; i++) {
		sum.ops += ag->iv[i].ops;
		sum.lat_sum_ns += ag->iv[i].lat_sum_ns;
		sum.duration_ns += ag->iv[i].duration_ns;
		sum.client_ns += ag->iv[i].client_ns;
		/* an interval it did not report (a loss) says nothing of its health */
		if (ag->iv[i].duration_ns > 0)
			sum.health = sum.health && ag->iv[i].health;
		if (ag->iv[i].host_cpu_pct > sum.host_cpu_pct)
			sum.host_cpu_pct = ag->iv[i].host_cpu_pct;
	}
	snprintf(sh->name, sizeof(sh->name), "%s", ag->name);
	sh->achieved_ops = sum.duration_ns ? (double)sum.ops * 1e9 / (double)sum.duration_ns : 0;
	sh->mean_ns = sum.ops ? (double)sum.lat_sum_ns / (double)sum.ops : 0;
	sh->host_cpu_pct = sum.host_cpu_pct;
	sh->health_known = sum.health && sum.ops > 0;
	sh->client_ns = sum.ops ? (double)sum.client_ns / (double)sum.ops : 0;
}

double agg_t95(size_t dof)
{
	static const double t[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
	                           2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
	                           2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
	                           2.060,  2.056, 2.052, 2.048, 2.045, 2.042};

	if (dof == 0)
		return INFINITY;
	if (dof <= sizeof(t) / sizeof(t[0]))
		return t[dof - 1];
	return dof <= 60 ? 2.000 : 1.960;
}

void agg_metric_ci(const struct agg_step *st, const struct campaign *c, double *lo, double *hi)
{
	agg_window_ci(st, st->win_from, st->win_to, c, lo, hi);
}

/*
 * Batch means on a log scale: latency is positive and skewed, and a step whose
 * latency grows through it (an overload) has batches spread over decades. The
 * interval is the window's metric times exp(+-t sd(log batch metrics) / sqrt(b)),
 * so it never reaches zero, and never below the smallest latency measured.
 */
void agg_window_ci(const struct agg_step *st, uint32_t from, uint32_t to, const struct campaign *c,
                   double *lo, double *hi)
{
	const struct agg_record *iv[STEP_MAX_TICKS * 8];
	struct agg_record *all = xmalloc(sizeof(*all)), *b = xmalloc(sizeof(*b));
	double x[THRESH_CI_BATCHES], sum = 0, ss = 0, mean, half, v;
	size_t n = 0, nb, used = 0;
	const struct hist *h;

	*lo = *hi = 0;
	agg_record_init(all);
	agg_record_init(b);
	for (uint32_t i = from; i < to && i < st->nintervals && n < sizeof(iv) / sizeof(iv[0]); i++)
		if (agg_counted(st->merged[i])) {
			iv[n++] = st->merged[i];
			agg_merge(all, st->merged[i]);
		}
	nb = n < THRESH_CI_BATCHES ? n : THRESH_CI_BATCHES;
	h = agg_slo_hist(all, c, st->slo_part);
	v = agg_interval_metric(all, c, st->slo_part);
	if (nb < 2 || h->count == 0 || !(v > 0))
		goto out;
	/* batch k: intervals [k n / nb, (k + 1) n / nb), every one in some batch */
	for (size_t k = 0; k < nb; k++) {
		double m;

		agg_record_reset(b);
		for (size_t i = k * n / nb; i < (k + 1) * n / nb; i++)
			agg_merge(b, iv[i]);
		m = agg_interval_metric(b, c, st->slo_part);
		if (agg_slo_hist(b, c, st->slo_part)->count > 0 &&
		    m > 0) /* a batch with no operations says nothing */
			sum += x[used++] = log(m);
	}
	if (used < 2)
		goto out;
	mean = sum / (double)used;
	for (size_t k = 0; k < used; k++)
		ss += (x[k] - mean) * (x[k] - mean);
	half = agg_t95(used - 1) * sqrt(ss / (double)(used - 1)) / sqrt((double)used);
	*lo = fmax(v * exp(-half), (double)h->min);
	*hi = v * exp(half);
	if (c->slo_metric != SLO_MEAN) {
		/* the ranks of a 95% order-statistic interval of the quantile, by the binomial */
		static const double q[] = {0, 0.50, 0.90, 0.99, 0.999};
		double nops = (double)h->count, p = q[c->slo_metric];
		double d = 1.96 * sqrt(p * (1 - p) / nops);

		*lo = fmin(*lo, (double)hist_quantile(h, fmax(0, 100 * (p - d))));
		*hi = fmax(*hi, (double)hist_quantile(h, fmin(100, 100 * (p + d))));
	}
out:
	agg_record_free(b);
	agg_record_free(all);
}

bool agg_mixed(const struct workload *w)
{
	return rw_is_mix(w->io.rw) && w->io.read_pct > 0 && w->io.read_pct < 100;
}

void agg_point_workload(struct step_point *pt, const struct campaign *c, const struct workload *w)
{
	pt->mixed = agg_mixed(w);
	pt->sync.on = w->io.fsync != 0 || w->io.fdatasync != 0;
	pt->queue_depth = w->io.queue_depth;
	pt->queue_sized = w->qd_sized;
	pt->replay_x1 = w->replay != NULL ? trace_rate(w->replay) : 0;
}

void agg_point(const struct agg_step *st, uint32_t step, double offered, const struct campaign *c,
               struct step_point *pt)
{
	struct agg_record *all = xmalloc(sizeof(*all));
	const struct agg_agent **byname;
	uint64_t measured_ns = 0;
	size_t nm = 0;

	agg_record_init(all);
	for (uint32_t i = st->win_from; i < st->win_to; i++) {
		const struct agg_record *m = st->merged[i];

		if (!agg_counted(m))
			continue;
		agg_merge(all, m);
		measured_ns += m->duration_ns;
		nm++;
	}
	memset(pt, 0, sizeof(*pt));
	pt->intervals = (uint32_t)nm;
	pt->steady = !agg_backlog_grows(st, st->win_from, st->win_to);
	pt->slo_due = c->slo_from_due;
	pt->slo_ns = (double)c->slo_latency_ns;
	pt->slo_metric = c->slo_metric;
	pt->nagents = st->nagents;
	pt->lost_at = UINT32_MAX;
	for (uint32_t a = 0; a < st->nagents; a++)
		if (st->agents[a].gone_from != UINT32_MAX) {
			pt->agents_lost++;
			if (st->agents[a].gone_from < pt->lost_at)
				pt->lost_at = st->agents[a].gone_from;
		}
	/*
	 * By name, so the breakdown reads the same whatever order agents reported in. A
	 * sorted list of pointers: an agent's index is how agg_add_record finds it, and
	 * the step may go on after its point.
	 */
	byname = xcalloc(st->nagents ? st->nagents : 1, sizeof(*byname));
	for (uint32_t a = 0; a < st->nagents; a++)
		byname[a] = &st->agents[a];
	qsort(byname, st->nagents, sizeof(*byname), agg_agent_cmp);
	/* Who left: the step's words name them (verdict_words). */
	for (uint32_t a = 0, used = 0; a < st->nagents; a++)
		if (byname[a]->gone_from != UINT32_MAX && used < sizeof(pt->lost_names))
			used +=
			    (uint32_t)snprintf(pt->lost_names + used, sizeof(pt->lost_names) - used,
			                       "%s%s", used ? ", " : "", byname[a]->name);
	for (uint32_t a = 0; a < st->nagents; a++) {
		const struct agg_agent *ag = byname[a];
		struct agent_share sh = {0};

		agg_agent_share(st, ag, &sh);
		if (sh.health_known && st->nagents > 1 &&
		    (pt->client.worst_agent[0] == '\0' || sh.client_ns > pt->client.worst_ns)) {
			snprintf(pt->client.worst_agent, sizeof(pt->client.worst_agent), "%s",
			         ag->name);
			pt->client.worst_ns = sh.client_ns;
		}
		if (a < STEP_MAX_AGENTS)
			pt->agents[a] = sh;
	}
	free(byname);
	for (uint32_t i = 0; i < st->nintervals && pt->nticks < STEP_MAX_TICKS; i++) {
		const struct agg_record *m = st->merged[i];
		struct step_tick *t = &pt->ticks[pt->nticks];

		if (m == NULL || m->agents == 0 || m->duration_ns == 0)
			continue;
		t->seconds = (double)m->duration_ns / 1e9;
		t->ops_s = (double)m->rec.ops / t->seconds;
		t->mean_ns = hist_mean(agg_slo_hist(m, c, -1));
		t->p50_ns = hist_quantile(agg_slo_hist(m, c, -1), 50);
		t->p99_ns = hist_quantile(agg_slo_hist(m, c, -1), 99);
		t->warmup = m->warmup;
		t->measured = !m->warmup && i >= st->win_from && i < st->win_to;
		pt->nticks++;
	}
	pt->step = step;
	pt->offered_ops = offered;
	pt->ops = all->rec.ops;
	pt->reads = all->rec.reads;
	/* missed is a level (the backlog at an interval's end): the window's last one counts. */
	for (uint32_t i = st->win_to; i-- > st->win_from;)
		if (agg_counted(st->merged[i])) {
			pt->missed = st->merged[i]->rec.missed;
			break;
		}
	pt->win_to = st->win_to;
	for (uint32_t i = 0; i < st->nintervals; i++)
		if (st->merged[i] != NULL && st->merged[i]->agents > 0) {
			pt->nall = i + 1;
			if (st->merged[i]->warmup)
				pt->warmup_n = i + 1;
		}
	/* warm-up intervals are never in a window (one without a window line holds them) */
	pt->win_from = st->win_from > pt->warmup_n ? st->win_from : pt->warmup_n;
	if (pt->win_to < pt->win_from)
		pt->win_to = pt->win_from;
	/* the backlog at its start: the level the interval before the window ended with */
	if (pt->win_from > 0 && pt->win_from <= st->nintervals &&
	    st->merged[pt->win_from - 1] != NULL && st->merged[pt->win_from - 1]->agents > 0)
		pt->missed_before = st->merged[pt->win_from - 1]->rec.missed;
	pt->missed_charged = all->rec.missed_charged;
	pt->errors = all->rec.errors;
	pt->err_errno = all->rec.err_errno;
	pt->err_offset = all->rec.err_offset;
	memcpy(pt->err_path, all->rec.err_path, sizeof(pt->err_path));
	memcpy(pt->err_cause, all->rec.err_cause, sizeof(pt->err_cause));
	memcpy(pt->err_agent, all->err_agent, sizeof(pt->err_agent));
	pt->measured_s = (double)measured_ns / 1e9;
	if (measured_ns > 0) {
		pt->achieved_ops = (double)all->rec.ops / pt->measured_s;
		pt->mib_s = (double)all->rec.bytes / pt->measured_s / (1024.0 * 1024.0);
		pt->client.cpu_pct = 100.0 * (double)(all->rec.cpu_user_ns + all->rec.cpu_sys_ns) /
		                     (double)measured_ns;
	}
	pt->mean_ns = hist_mean(&all->rec.latency);
	pt->p50_ns = hist_quantile(&all->rec.latency, 50);
	pt->p90_ns = hist_quantile(&all->rec.latency, 90);
	pt->p99_ns = hist_quantile(&all->rec.latency, 99);
	pt->p999_ns = hist_quantile(&all->rec.latency, 99.9);
	pt->max_ns = all->rec.latency.count ? all->rec.latency.max : 0;
	for (unsigned b = 0; b < HIST_BINS; b++) {
		double ns = (double)hist_bin_mid(b);
		uint64_t count = agg_slo_hist(all, c, -1)->bins[b];
		int k;

		if (count == 0)
			continue;
		k = ns <= 1e3 ? 0 : (int)floor((log10(ns) - 3) * STEP_HIST_PER_DECADE);
		k = k < 0 ? 0 : k >= STEP_HIST_BINS ? STEP_HIST_BINS - 1 : k;
		pt->hist[k] += count;
	}
	/* the tables' percentiles are the judged latency's (the storage's by default) */
	pt->npct = (uint32_t)c->npercentiles;
	for (uint32_t k = 0; k < pt->npct; k++) {
		pt->pct[k] = c->percentiles[k];
		pt->pct_ns[k] = hist_quantile(agg_slo_hist(all, c, -1), c->percentiles[k]);
	}
	pt->svc_mean_ns = hist_mean(&all->rec.service);
	pt->svc_p50_ns = hist_quantile(&all->rec.service, 50);
	pt->svc_p90_ns = hist_quantile(&all->rec.service, 90);
	pt->svc_p99_ns = hist_quantile(&all->rec.service, 99);
	pt->svc_p999_ns = hist_quantile(&all->rec.service, 99.9);
	pt->svc_max_ns = all->rec.service.count ? all->rec.service.max : 0;
	agg_metric_ci(st, c, &pt->metric_lo_ns, &pt->metric_hi_ns);
	pt->workers = nm ? (uint32_t)(all->workers / nm) : 0;
	figs_fill(&(struct figs_in){.c = c,
	                            .merged = st->merged,
	                            .nintervals = st->nintervals,
	                            .win_from = st->win_from,
	                            .win_to = st->win_to,
	                            .all = all,
	                            .nmeasured = (uint32_t)nm,
	                            .measured_ns = measured_ns,
	                            .slo_part = st->slo_part},
	          pt);
	agg_record_free(all);
}
