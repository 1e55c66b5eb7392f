/* SPDX-License-Identifier: MIT */
/* The observe: sources' figures per step (observed.h). */
#include <stdio.h>
#include <string.h>

#include "observe.h"
#include "obsline.h"
#include "judged.h"
#include "observed.h"

/* The step's first measured interval: after the warm-up. */
static uint32_t observed_from(const struct workload *w)
{
	return w->interval_ns ? (uint32_t)(w->warmup_ns / w->interval_ns) : 0;
}

bool observed_mean(const struct runend *end, const struct campaign *c, const struct workload *w,
                   uint32_t step, size_t s, size_t k, double *mean, uint32_t *n, uint32_t *late)
{
	const struct observe_source *src = &c->observe[s];
	uint32_t from = observed_from(w);
	double sum = 0;

	*n = *late = 0;
	for (size_t i = 0; end != NULL && i < end->nobs; i++) {
		const struct obs_kept *l = &end->obs[i];
		const struct obs_kept_value *v;

		if (l->step != step || l->interval < from || strcmp(l->workload, w->name) != 0 ||
		    strcmp(l->source, src->name) != 0)
			continue;
		if (l->late[0] != '\0')
			(*late)++;
		v = obs_kept_value(l, src->series[k].name);
		if (v == NULL || !v->has)
			continue;
		sum += v->v;
		(*n)++;
	}
	*mean = *n ? sum / *n : 0;
	return *n > 0;
}

json_t *observed_step_json(const struct runend *end, const struct campaign *c,
                           const struct workload *w, uint32_t step)
{
	json_t *o;

	if (c->nobserve == 0)
		return NULL;
	o = json_object();
	for (size_t s = 0; s < c->nobserve; s++)
		for (size_t k = 0; k < c->observe[s].nseries; k++) {
			char key[512];
			double mean;
			uint32_t n, late;

			snprintf(key, sizeof(key), "%s/%s", c->observe[s].name,
			         c->observe[s].series[k].name);
			json_object_set_new(o, key,
			                    observed_mean(end, c, w, step, s, k, &mean, &n, &late)
			                        ? json_real(mean)
			                        : json_null());
		}
	return o;
}

json_t *observed_late_json(const struct runend *end, const struct campaign *c,
                           const struct workload *w, uint32_t step)
{
	json_t *o = NULL;

	for (size_t s = 0; s < c->nobserve; s++) {
		double mean;
		uint32_t n, late;

		observed_mean(end, c, w, step, s, 0, &mean, &n, &late);
		if (late == 0)
			continue;
		if (o == NULL)
			o = json_object();
		json_object_set_new(o, c->observe[s].name, json_integer(late));
	}
	return o;
}

/* Whether series k of source s was at its limit over sorted step i of j (its mean in *mean). */
static bool observed_at_limit(const struct runend *end, const struct judged_curve *j, size_t i,
                              size_t s, size_t k, double *mean)
{
	const struct campaign *c = j->c;
	double at = observe_series_threshold(&c->observe[s].series[k]);
	uint32_t n, late;

	return at > 0 && observed_mean(end, c, j->w, j->sorted[i].step, s, k, mean, &n, &late) &&
	       *mean >= at;
}

/*
 * The first series at its limit at the first step (in curve order) that violated the SLO
 * or saturated, named from the step where it became so and stayed so: nothing when no
 * step did (the curve found no limit to explain), and nothing for a series already at
 * its limit at under half that step's load (the storage went on serving more: the
 * series' limit was not the one reached; as for the client's disk, curve.c).
 */
bool observed_bottleneck(const struct runend *end, const struct judged_curve *j, char *buf,
                         size_t len)
{
	const struct campaign *c = j->c;
	size_t v = 0;

	buf[0] = '\0';
	if (c == NULL || c->nobserve == 0 || j->n == 0)
		return false;
	while (v < j->n && !j->v[v].violates && !j->v[v].saturated)
		v++;
	if (v == j->n)
		return false;
	for (size_t s = 0; s < c->nobserve; s++)
		for (size_t k = 0; k < c->observe[s].nseries; k++) {
			const struct observe_series *se = &c->observe[s].series[k];
			double mean, m;
			size_t from = v;

			if (!observed_at_limit(end, j, v, s, k, &mean))
				continue;
			while (from > 0 && observed_at_limit(end, j, from - 1, s, k, &m))
				from--;
			if (2 * j->sorted[from].achieved_ops < j->sorted[v].achieved_ops)
				continue;
			if (se->limit <= 0) /* a share of 1: busy time per second */
				snprintf(buf, len,
				         "storage: %s/%s busy %.0f%% (saturated at %g%%) from %.0f "
				         "ops/s",
				         c->observe[s].name, se->name, mean * 100,
				         se->saturated_pct, j->sorted[from].achieved_ops);
			else
				snprintf(buf, len,
				         "storage: %s/%s %.4g%s, %.0f%% of its limit %g%s, from "
				         "%.0f ops/s",
				         c->observe[s].name, se->name, mean, se->unit,
				         100 * mean / se->limit, se->limit, se->unit,
				         j->sorted[from].achieved_ops);
			return true;
		}
	return false;
}

void observed_print_bottlenecks(FILE *f, const struct campaign *c,
                                const struct judged_curve *judged, const struct runend *end)
{
	char buf[768];
	bool any = false;

	for (size_t i = 0; i < c->nworkloads && c->nobserve > 0; i++) {
		if (!observed_bottleneck(end, &judged[i], buf, sizeof(buf)))
			continue;
		fprintf(f, "%sStorage bottleneck, %s: %s\n", any ? "" : "\n", c->workloads[i].name,
		        buf);
		any = true;
	}
}
