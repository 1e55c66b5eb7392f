/* SPDX-License-Identifier: MIT */
/* Rebuild step points from intervals.jsonl: a small reader for our own JSON lines. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "xalloc.h"

/* The fields of one line that a record is made of; the rest are derived and ignored. */
struct replay_line {
	char workload[128];
	char agent[128];
	uint32_t step;
	uint32_t interval;
	double offered;
	bool window; /* a window line: the step's measured window, not a record */
	uint32_t win_from, win_to;
	struct agg_record rec;
};

/* The reader's state over one line: where it is, and what it found. */
struct replay_json {
	const char *p;
	struct replay_line *line;
	struct hist *hist; /* inside "latency" or "service" */
	uint64_t *bins;    /* the bins array as read: (index, count) pairs */
	size_t nbins;
};

static void replay_ws(struct replay_json *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static int replay_string(struct replay_json *j, char *buf, size_t len)
{
	size_t n = 0;

	if (*j->p != '"')
		return -1;
	for (j->p++; *j->p && *j->p != '"'; j->p++) {
		if (*j->p == '\\')
			return -1; /* our writer never escapes: names are plain */
		if (n + 1 < len)
			buf[n++] = *j->p;
	}
	if (*j->p != '"')
		return -1;
	j->p++;
	buf[n] = '\0';
	return 0;
}

static int replay_number(struct replay_json *j, double *d, uint64_t *u)
{
	char *end;

	errno = 0;
	*u = strtoull(j->p, &end, 10);
	if (end != j->p && *end != '.' && *end != 'e' && *end != 'E' && errno == 0) {
		*d = (double)*u;
		j->p = end;
		return 0;
	}
	*d = strtod(j->p, &end);
	if (end == j->p)
		return -1;
	*u = (uint64_t)*d;
	j->p = end;
	return 0;
}

static void replay_set(struct replay_json *j, const char *key, double d, uint64_t u, bool b)
{
	struct replay_line *l = j->line;
	struct record *r = &l->rec.rec;

	if (j->hist != NULL) {
		if (strcmp(key, "count") == 0)
			j->hist->count = u;
		else if (strcmp(key, "sum_ns") == 0)
			j->hist->sum = u;
		else if (strcmp(key, "min_ns") == 0)
			j->hist->min = u;
		else if (strcmp(key, "max_ns") == 0)
			j->hist->max = u;
		return;
	}
	static const struct {
		const char *key;
		size_t off;
	} u64s[] = {
	    {"ops", offsetof(struct record, ops)},
	    {"reads", offsetof(struct record, reads)},
	    {"bytes", offsetof(struct record, bytes)},
	    {"errors", offsetof(struct record, errors)},
	    {"cpu_user_ns", offsetof(struct record, cpu_user_ns)},
	    {"cpu_sys_ns", offsetof(struct record, cpu_sys_ns)},
	    {"lag_sum_ns", offsetof(struct record, lag_sum_ns)},
	    {"lag_max_ns", offsetof(struct record, lag_max_ns)},
	    {"qd_full_ns", offsetof(struct record, qd_full_ns)},
	    {"missed", offsetof(struct record, missed)},
	};
	for (size_t i = 0; i < sizeof(u64s) / sizeof(u64s[0]); i++)
		if (strcmp(key, u64s[i].key) == 0) {
			*(uint64_t *)((char *)r + u64s[i].off) = u;
			return;
		}
	if (strcmp(key, "step") == 0)
		l->step = (uint32_t)u;
	else if (strcmp(key, "interval") == 0)
		l->interval = (uint32_t)u;
	else if (strcmp(key, "window_from") == 0)
		l->window = true, l->win_from = (uint32_t)u;
	else if (strcmp(key, "window_to") == 0)
		l->window = true, l->win_to = (uint32_t)u;
	else if (strcmp(key, "offered_ops") == 0)
		l->offered = d;
	else if (strcmp(key, "duration_ns") == 0)
		l->rec.duration_ns = u;
	else if (strcmp(key, "workers") == 0)
		l->rec.workers = (uint32_t)u;
	else if (strcmp(key, "host_cpu_pct") == 0)
		l->rec.host_cpu_pct = d;
	else if (strcmp(key, "warmup") == 0)
		l->rec.warmup = b;
}

static int replay_value(struct replay_json *j, const char *key);

static int replay_object(struct replay_json *j)
{
	char key[64];

	if (*j->p != '{')
		return -1;
	j->p++;
	replay_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		replay_ws(j);
		if (replay_string(j, key, sizeof(key)) < 0)
			return -1;
		replay_ws(j);
		if (*j->p++ != ':')
			return -1;
		replay_ws(j);
		if (replay_value(j, key) < 0)
			return -1;
		replay_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		return -1;
	}
}

static int replay_value(struct replay_json *j, const char *key)
{
	struct replay_line *l = j->line;
	double d;
	uint64_t u;

	if (*j->p == '{') {
		struct hist *outer = j->hist;
		int rc;

		if (strcmp(key, "latency") == 0)
			j->hist = &l->rec.rec.latency;
		else if (strcmp(key, "service") == 0)
			j->hist = &l->rec.rec.service;
		rc = replay_object(j);
		j->hist = outer;
		return rc;
	}
	if (*j->p == '[') {
		j->p++;
		replay_ws(j);
		while (*j->p != ']') {
			if (replay_number(j, &d, &u) < 0)
				return -1;
			if (strcmp(key, "bins") == 0 && j->hist != NULL) {
				j->bins = xreallocarray(j->bins, j->nbins + 1, sizeof(*j->bins));
				j->bins[j->nbins++] = u;
			}
			replay_ws(j);
			if (*j->p == ',')
				j->p++;
			replay_ws(j);
		}
		j->p++;
		/* Pairs of (bin, count), in the histogram being read. */
		if (strcmp(key, "bins") == 0 && j->hist != NULL) {
			for (size_t i = 0; i + 1 < j->nbins; i += 2)
				if (j->bins[i] < HIST_BINS)
					j->hist->bins[j->bins[i]] = j->bins[i + 1];
			j->nbins = 0;
		}
		return 0;
	}
	if (*j->p == '"') {
		char buf[128];

		if (replay_string(j, buf, sizeof(buf)) < 0)
			return -1;
		if (strcmp(key, "workload") == 0)
			snprintf(l->workload, sizeof(l->workload), "%s", buf);
		else if (strcmp(key, "agent") == 0)
			snprintf(l->agent, sizeof(l->agent), "%s", buf);
		return 0;
	}
	if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "false", 5) == 0) {
		bool b = *j->p == 't';

		j->p += b ? 4 : 5;
		replay_set(j, key, 0, 0, b);
		return 0;
	}
	if (replay_number(j, &d, &u) < 0)
		return -1;
	replay_set(j, key, d, u, false);
	return 0;
}

/* One step being rebuilt: its lines, kept until the step is known complete. */
struct replay_step {
	size_t w;
	uint32_t step;
	double offered;
	bool has_window;
	uint32_t win_from, win_to;
	struct replay_line *lines;
	size_t n, cap;
};

static void replay_finish(struct replay *out, struct replay_step *st)
{
	const struct workload *w = &out->campaign->workloads[st->w];
	uint32_t nint =
	    (uint32_t)((w->warmup_ns + w->measure_ns) / w->interval_ns) + w->steady_extend;
	const char **names = NULL;
	uint32_t nagents = 0;
	struct agg_step *agg;
	struct error err;
	bool complete;

	for (size_t i = 0; i < st->n; i++) {
		uint32_t a;

		for (a = 0; a < nagents && strcmp(names[a], st->lines[i].agent) != 0; a++)
			;
		if (a == nagents) {
			names = xreallocarray(names, nagents + 1, sizeof(*names));
			names[nagents++] = st->lines[i].agent;
		}
	}
	agg = agg_step_new(nagents, names, nint);
	for (size_t i = 0; i < st->n; i++) {
		const struct agg_record *merged;
		uint32_t a;

		for (a = 0; strcmp(names[a], st->lines[i].agent) != 0; a++)
			;
		st->lines[i].rec.agents = 1;
		agg_add_record(agg, a, st->lines[i].interval, &st->lines[i].rec, &merged, &err);
	}
	if (st->has_window)
		agg_set_window(agg, st->win_from, st->win_to);
	complete = nagents > 0 && agg_complete(agg);
	if (complete) {
		size_t k = out->npts[st->w]++;

		out->pts[st->w] = xreallocarray(out->pts[st->w], k + 1, sizeof(**out->pts));
		agg_point(agg, st->step, st->offered, out->campaign->slo_metric,
		          &out->pts[st->w][k]);
	}
	agg_step_free(agg);
	free(names);
	st->n = 0;
	st->has_window = false;
}

int replay_load(const char *dir, struct replay *out, struct error *err)
{
	char *plan = xasprintf("%s/plan.yaml", dir), *path = xasprintf("%s/intervals.jsonl", dir);
	struct replay_step st = {.w = SIZE_MAX};
	struct replay_json j = {0};
	char *buf = NULL;
	size_t cap = 0, lineno = 0;
	FILE *f = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (campaign_load(plan, &out->campaign, err) < 0)
		goto done;
	out->pts = xcalloc(out->campaign->nworkloads, sizeof(*out->pts));
	out->npts = xcalloc(out->campaign->nworkloads, sizeof(*out->npts));
	f = fopen(path, "r");
	if (f == NULL) {
		error_set(err, "%s: cannot read: %s", path, strerror(errno));
		goto done;
	}
	while (getline(&buf, &cap, f) > 0) {
		struct replay_line *l;
		size_t w;

		lineno++;
		if (st.n == st.cap) {
			st.cap = st.cap ? 2 * st.cap : 64;
			st.lines = xreallocarray(st.lines, st.cap, sizeof(*st.lines));
		}
		l = &st.lines[st.n];
		memset(l, 0, sizeof(*l));
		record_reset(&l->rec.rec);
		j.p = buf;
		j.line = l;
		j.hist = NULL;
		replay_ws(&j);
		if (replay_object(&j) < 0) {
			error_set(err, "%s:%zu: not a JSON object iocurve wrote (near column %zu)",
			          path, lineno, (size_t)(j.p - buf) + 1);
			goto done;
		}
		for (w = 0; w < out->campaign->nworkloads; w++)
			if (strcmp(out->campaign->workloads[w].name, l->workload) == 0)
				break;
		if (w == out->campaign->nworkloads) {
			error_set(err, "%s:%zu: workload '%s' is not in plan.yaml", path, lineno,
			          l->workload);
			goto done;
		}
		if (strcmp(l->agent, "*") == 0)
			continue; /* merged lines are rebuilt, not read */
		if (l->window) {
			/* Written when the runner cut the step: it belongs to the step in progress.
			 */
			if (st.w == w && st.step == l->step) {
				st.has_window = true;
				st.win_from = l->win_from;
				st.win_to = l->win_to;
			}
			continue;
		}
		/* The writer prints an empty histogram's min as 0; in memory it is "none". */
		if (l->rec.rec.latency.count == 0)
			l->rec.rec.latency.min = UINT64_MAX;
		if (l->rec.rec.service.count == 0)
			l->rec.rec.service.min = UINT64_MAX;
		if (st.w != SIZE_MAX && (st.w != w || st.step != l->step)) {
			struct replay_line keep = *l; /* the first line of the next step */

			replay_finish(out, &st);
			st.lines[0] = keep;
		}
		st.w = w;
		st.step = l->step;
		st.offered = l->offered;
		st.n++;
	}
	if (st.n > 0)
		replay_finish(out, &st);
	rc = 0;
done:
	if (f != NULL)
		fclose(f);
	free(buf);
	free(j.bins);
	free(st.lines);
	free(plan);
	free(path);
	return rc;
}

void replay_free(struct replay *r)
{
	if (r->campaign != NULL)
		for (size_t i = 0; i < r->campaign->nworkloads; i++)
			free(r->pts[i]);
	free(r->pts);
	free(r->npts);
	campaign_free(r->campaign);
	memset(r, 0, sizeof(*r));
}
