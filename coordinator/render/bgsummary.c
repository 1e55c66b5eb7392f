/* SPDX-License-Identifier: MIT */
/* Load under load in summary.json: the background beside each foreground workload. */
#include <stdlib.h>

#include "background.h"
#include "bgfig.h"
#include "bgsummary.h"
#include "stepjson.h"
#include "pointfields.h"
#include "xalloc.h"

/* The step the knee's figure is from (knee.h's cross), or NULL: no knee to be at. */
static const struct step_point *bgsummary_knee_step(const struct judged_curve *j)
{
	const struct knee *k = &j->knee;

	if (j->n == 0 || k->kind == KNEE_NONE || k->kind == KNEE_ALL_OVER || k->cross >= j->n)
		return NULL;
	return &j->sorted[k->cross];
}

/* Row name of p as curve-*.json has it (stepjson_field: the same rounding). */
static json_t *bgsummary_field(const char *name, const struct step_point *p)
{
	const struct pfield *f = pfield_find(name);

	return f != NULL ? stepjson_field(f, p, NULL) : json_null();
}

static json_t *bgsummary_at(const struct step_point *p)
{
	json_t *o;

	if (p == NULL || !p->bg.on)
		return json_null();
	o = json_object();
	json_object_set_new(o, "step", json_integer((json_int_t)p->step + 1));
	json_object_set_new(o, "ops", bgsummary_field("bg_ops_s", p));
	json_object_set_new(o, "mean_us", bgsummary_field("bg_mean_us", p));
	json_object_set_new(o, "p99_us", bgsummary_field("bg_p99_us", p));
	json_object_set_new(o, "kept_up", json_boolean(bgfig_kept_up(p)));
	return o;
}

static int bgsummary_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

json_t *bgsummary_json(const struct judged_curve *j)
{
	long b = background_of(j->c);
	const struct workload *bw;
	json_t *o, *behind;
	uint32_t *steps;
	size_t nb = 0;

	if (b < 0 || j->w == &j->c->workloads[b])
		return NULL;
	bw = &j->c->workloads[b];
	/* in run order, as curve-*.json numbers its steps */
	behind = json_array();
	steps = xcalloc(j->n ? j->n : 1, sizeof(*steps));
	for (size_t i = 0; i < j->n; i++)
		if (j->sorted[i].bg.on && !bgfig_kept_up(&j->sorted[i]))
			steps[nb++] = j->sorted[i].step + 1;
	qsort(steps, nb, sizeof(*steps), bgsummary_cmp);
	for (size_t i = 0; i < nb; i++)
		json_array_append_new(behind, json_integer((json_int_t)steps[i]));
	free(steps);
	o = json_object();
	json_object_set_new(o, "name", json_string(bw->name));
	json_object_set_new(o, "asked_ops",
	                    bw->steps[0].ops > 0 ? json_real(bw->steps[0].ops) : json_null());
	json_object_set_new(o, "at_knee", bgsummary_at(bgsummary_knee_step(j)));
	json_object_set_new(o, "kept_up_all", json_boolean(nb == 0));
	json_object_set_new(o, "behind_steps", behind);
	return o;
}
