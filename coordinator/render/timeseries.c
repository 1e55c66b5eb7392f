/* SPDX-License-Identifier: MIT */
/* Per-interval time series as CSV, read back from intervals.jsonl step by step. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "derive.h"
#include "safefile.h"
#include "intervals.h"
#include "timeseries.h"
#include "xalloc.h"

/* One line's figures, the histograms already reduced. */
struct ts_row {
	char agent[INTERVALS_NAME_MAX];
	uint32_t interval;
	bool warmup, pct; /* pct: its percentiles are known (bins written) */
	uint32_t agents, workers;
	uint64_t duration_ns, ops, bytes, errors, cpu_ns, lag_sum_ns;
	double mean_us, p50_us, p99_us, max_us, host_cpu_pct;
	double time_s;
};

struct ts_ctx {
	const char *path, *dir;
	const struct campaign *c;
	FILE *fleet; /* timeseries.csv, written beside timeseries-agents.csv in one pass */
	struct error err;
	int failed;
	/* the step being read */
	char workload[INTERVALS_NAME_MAX];
	uint32_t step;
	double offered;
	struct ts_row *rows;
	size_t n, cap;
	/* the time already run of the workload being read */
	char t_workload[INTERVALS_NAME_MAX];
	double t;
};

static void ts_take(struct ts_ctx *x, const struct intervals_line *l)
{
	const struct record *r = &l->rec.rec;
	struct ts_row *row;

	if (x->n == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 64;
		x->rows = xreallocarray(x->rows, x->cap, sizeof(*x->rows));
	}
	row = &x->rows[x->n++];
	memset(row, 0, sizeof(*row));
	snprintf(row->agent, sizeof(row->agent), "%s", l->agent);
	row->interval = l->interval;
	row->warmup = l->rec.warmup;
	row->agents = l->rec.agents;
	row->workers = l->rec.workers;
	row->duration_ns = l->rec.duration_ns;
	row->ops = r->ops;
	row->bytes = r->bytes;
	row->errors = r->errors;
	row->cpu_ns = r->cpu_user_ns + r->cpu_sys_ns;
	row->lag_sum_ns = r->lag_sum_ns;
	row->host_cpu_pct = l->rec.host_cpu_pct;
	row->mean_us = r->latency.count ? hist_mean(&r->latency) / 1e3 : NAN;
	row->max_us = r->latency.count ? (double)r->latency.max / 1e3 : NAN;
	row->pct = !l->rec.no_bins && r->latency.count > 0;
	if (row->pct) {
		row->p50_us = (double)hist_quantile(&r->latency, 50) / 1e3;
		row->p99_us = (double)hist_quantile(&r->latency, 99) / 1e3;
	}
}

static void ts_num(FILE *f, double v, int decimals)
{
	fputc(',', f);
	if (isfinite(v))
		fprintf(f, "%.*f", decimals, v);
}

static void ts_print(FILE *f, const struct ts_ctx *x, const struct ts_row *row, bool agent)
{
	double s = (double)row->duration_ns / 1e9;

	fprintf(f, "%s,%u,", x->workload, x->step + 1);
	if (isfinite(x->offered) && x->offered > 0)
		fprintf(f, "%.0f", x->offered);
	else
		fputs(isfinite(x->offered) ? "max" : "", f);
	fprintf(f, ",%u,%.3f", row->interval, row->time_s);
	if (agent)
		fprintf(f, ",%s,%d,%u", row->agent, row->warmup, row->workers);
	else
		fprintf(f, ",%d,%u,%u", row->warmup, row->agents, row->workers);
	fprintf(f, ",%.3f,%llu", s, (unsigned long long)row->ops);
	ts_num(f, s > 0 ? (double)row->ops / s : NAN, 1);
	ts_num(f, s > 0 ? (double)row->bytes / s / (1024.0 * 1024.0) : NAN, 3);
	ts_num(f, row->mean_us, 1);
	ts_num(f, row->pct ? row->p50_us : NAN, 1);
	ts_num(f, row->pct ? row->p99_us : NAN, 1);
	ts_num(f, row->max_us, 1);
	fprintf(f, ",%llu", (unsigned long long)row->errors);
	ts_num(f, s > 0 ? (double)row->cpu_ns / 1e9 / s * 100 : NAN, 1);
	ts_num(f, row->host_cpu_pct, 1);
	ts_num(f, row->ops ? (double)row->lag_sum_ns / (double)row->ops / 1e3 : NAN, 1);
	fputc('\n', f);
}

/* One fleet interval of the step: its number, and the step's time before it. */
struct ts_mark {
	uint32_t interval;
	double before_s;
};

static int ts_mark_cmp(const void *a, const void *b)
{
	const struct ts_mark *x = a, *y = b;

	return x->interval < y->interval ? -1 : x->interval > y->interval;
}

/*
 * The step's time before interval i: the fleet's intervals numbered below it, which is
 * the time through the last of them (m sorted, summed).
 */
static double ts_before(const struct ts_mark *m, size_t n, uint32_t i)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m[mid].interval < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? 0 : m[lo - 1].before_s;
}

/*
 * The step's lines are all in: their times from the fleet's intervals, then the rows.
 * The fleet's intervals are sorted once and summed as they go, so each row's time is
 * a search (a step holds one row per agent and interval: 220,000 at 10,000 agents).
 */
static void ts_flush(FILE *agents, struct ts_ctx *x)
{
	struct ts_mark *m;
	double step_s = 0;
	size_t nm = 0;

	if (x->n == 0)
		return;
	if (strcmp(x->t_workload, x->workload) != 0) {
		snprintf(x->t_workload, sizeof(x->t_workload), "%s", x->workload);
		x->t = 0;
	}
	m = xreallocarray(NULL, x->n, sizeof(*m));
	for (size_t i = 0; i < x->n; i++)
		if (strcmp(x->rows[i].agent, INTERVALS_MERGED) == 0) {
			m[nm].interval = x->rows[i].interval;
			m[nm++].before_s = (double)x->rows[i].duration_ns / 1e9;
		}
	qsort(m, nm, sizeof(*m), ts_mark_cmp);
	/* before_s becomes the time through this interval: its own and all before it */
	for (size_t i = 0; i < nm; i++) {
		step_s += m[i].before_s;
		m[i].before_s = step_s;
	}
	for (size_t i = 0; i < x->n; i++)
		x->rows[i].time_s = x->t + ts_before(m, nm, x->rows[i].interval);
	free(m);
	/* fleet rows by interval (as written); agents' rows as their lines came */
	for (size_t i = 0; i < x->n; i++) {
		bool agent = strcmp(x->rows[i].agent, INTERVALS_MERGED) != 0;

		ts_print(agent ? agents : x->fleet, x, &x->rows[i], agent);
	}
	x->t += step_s;
	x->n = 0;
}

/* One pass over intervals.jsonl: the agents' rows into f, the fleet's into x->fleet. */
static void ts_write_agents(FILE *f, const void *arg)
{
	struct ts_ctx *x = (struct ts_ctx *)arg;
	struct intervals_line *l = xmalloc(sizeof(*l));
	struct intervals_reader *in = intervals_open(x->path, &x->err);
	int got;

	fprintf(x->fleet, "%s\n", TIMESERIES_FLEET_HEADER);
	fprintf(f, "%s\n", TIMESERIES_AGENT_HEADER);
	x->n = 0;
	x->t_workload[0] = x->workload[0] = '\0';
	x->failed = in == NULL;
	while (in != NULL && (got = intervals_next(in, l, &x->err)) != 0) {
		if (got < 0) {
			x->failed = 1;
			break;
		}
		if (l->retried) {
			/* the attempt so far is void: its rows go */
			if (strcmp(l->workload, x->workload) == 0 && l->step == x->step)
				x->n = 0;
			continue;
		}
		if (l->end || l->lost || l->clock || l->cooldown || l->window || l->mark || l->obs)
			continue;
		if (strcmp(l->workload, x->workload) != 0 || l->step != x->step) {
			ts_flush(f, x);
			snprintf(x->workload, sizeof(x->workload), "%s", l->workload);
			x->step = l->step;
			x->offered = l->offered_ops;
		}
		ts_take(x, l);
	}
	ts_flush(f, x);
	intervals_close(in);
	free(l);
}

/*
 * timeseries.csv is written aside while timeseries-agents.csv is, from the same pass
 * (the lines of a large fleet are most of the end's reading); the agents' file is
 * renamed into place first. One that cannot be written keeps the fleet's old one.
 */
static void ts_write_fleet(FILE *f, const void *arg)
{
	struct ts_ctx *x = (struct ts_ctx *)arg;

	x->fleet = f;
	/* x->err outlives this call: the fault's words are read after it returns */
	if (safefile_write(x->dir, "timeseries-agents.csv", ts_write_agents, x, &x->err) < 0)
		safefile_fault(x->err.msg);
}

int timeseries_write(const char *dir, const struct campaign *c, struct error *err)
{
	char *path = xasprintf("%s/intervals.jsonl", dir);
	struct ts_ctx x = {.path = path, .dir = dir, .c = c};
	int rc = 0;

	if (safefile_write(dir, "timeseries.csv", ts_write_fleet, &x, err) < 0)
		rc = -1;
	else if (x.failed) {
		*err = x.err;
		rc = -1;
	}
	free(x.rows);
	free(path);
	return rc;
}
