/* SPDX-License-Identifier: MIT */
/* A step's figures as JSON (stepjson.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "aggregate.h"
#include "safefile.h"
#include "stepjson.h"

json_t *stepjson_need(json_t *v)
{
	if (v == NULL) {
		safefile_fault("a value JSON cannot hold (or out of memory)");
		return json_null();
	}
	return v;
}

/* v rounded to 1/scale (10: one decimal); null when it is not a number or the scale overflows. */
json_t *stepjson_num(double v, double scale)
{
	double r = isfinite(v) ? round(v * scale) / scale : NAN;

	return stepjson_need(isfinite(r) ? json_real(r) : json_null());
}

/* Nanoseconds as microseconds with one decimal. */
json_t *stepjson_us(double ns)
{
	return stepjson_num(ns / 1e3, 10);
}

/* The campaign's percentiles (percentiles:), keyed as the tables head them: "p99.99". */
json_t *stepjson_pcts(const struct step_point *p)
{
	json_t *pct = stepjson_need(json_object());

	for (uint32_t k = 0; k < step_npct(p); k++) {
		char key[32];

		snprintf(key, sizeof(key), "p%g", step_pct(p, k));
		json_object_set_new(pct, key, stepjson_us((double)step_pct_ns(p, k)));
	}
	return pct;
}

/* A kind's latency at the table percentiles (ns[k] at step_pct k); null: not measured. */
json_t *stepjson_kind_pcts(const struct step_point *p, const uint64_t *ns)
{
	json_t *pct;

	if (!p->kinds.known)
		return json_null();
	pct = stepjson_need(json_object());
	for (uint32_t k = 0; k < step_npct(p) && k < CAMPAIGN_MAX_PERCENTILES; k++) {
		char key[32];

		snprintf(key, sizeof(key), "p%g", step_pct(p, k));
		json_object_set_new(pct, key, stepjson_us((double)ns[k]));
	}
	return pct;
}

/*
 * One field of a step as JSON; NULL leaves it out: a first error when there was none,
 * or words that are not UTF-8 (a path), as jansson refuses them.
 */
json_t *stepjson_field(const struct pfield *f, const struct step_point *p,
                       const struct judged_point *jp)
{
	static const double scale[] = {1, 10, 100, 1000, 1e4, 1e5, 1e6};
	struct pfield_val v = pfield_value(f, p, jp);
	char text[PFIELD_TEXT_MAX];
	const char *name;
	json_t *o;

	if (v.none && f->kind == PF_ERROR)
		return NULL;
	if (v.none)
		return stepjson_need(json_null());
	switch (f->kind) {
	case PF_UINT:
		return stepjson_need(json_integer((json_int_t)v.u));
	case PF_REAL:
		return stepjson_need(stepjson_num(v.d, scale[f->decimals < 6 ? f->decimals : 6]));
	case PF_BOOL:
		return stepjson_need(json_boolean(v.b));
	case PF_TEXT:
		pfield_format(f, p, jp, text, sizeof(text));
		return json_string(text);
	case PF_PCTS:
		return stepjson_pcts(p);
	case PF_ERROR:
		name = p->err_errno != 0 ? strerrorname_np(p->err_errno) : "";
		o = json_pack("{s:i,s:s,s:s,s:s,s:I}", "errno", (int)p->err_errno, "name",
		              name ? name : "?", "path", p->err_path, "agent", p->err_agent,
		              "offset", (json_int_t)p->err_offset);
		/* Why, when no errno says it (a short read, a target deleted or truncated). */
		if (o != NULL && p->err_cause[0] != '\0')
			json_object_set_new(o, "cause", json_string(p->err_cause));
		return o;
	}
	return json_null();
}

/*
 * The kernel's view of the step's device: the field table's kernel rows as members
 * (null when the agents read none: a simulated device, tmpfs, an older agent).
 */
json_t *stepjson_kernel(const struct step_point *p)
{
	size_t n;
	const struct pfield *rows = pfield_table(&n);
	json_t *o;

	if (!p->kernel.known && !p->kernel.nfs_known)
		return stepjson_need(json_null());
	o = stepjson_need(json_object());
	for (size_t i = 0; i < n; i++) {
		json_t *v;

		if (rows[i].apart != PF_APART_KERNEL)
			continue;
		v = stepjson_field(&rows[i], p, NULL);
		if (v != NULL)
			json_object_set_new(o, pfield_key(&rows[i]), v);
	}
	return o;
}

/* A mix's parts of a step in curve-*.json: each its name, share and figures. */
json_t *stepjson_parts(const struct mix *m, const struct step_point *p)
{
	json_t *a = stepjson_need(json_array());

	for (uint32_t i = 0; i < m->nparts && i < p->nparts; i++) {
		const struct point_part *pp = &p->parts[i];

		json_t *o = stepjson_need(json_pack(
		    "{s:s,s:I,s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "name", m->parts[i].name,
		    "share", (json_int_t)m->parts[i].share, "rw",
		    m->parts[i].op != FILEOP_NONE ? fileop_name(m->parts[i].op)
		                                  : rw_mode_name(m->parts[i].rw),
		    "block_size", (json_int_t)m->parts[i].block_size, "ops",
		    stepjson_num(pp->ops_s, 10), "mibps", stepjson_num(pp->mib_s, 1000), "mean_us",
		    stepjson_us(pp->mean_ns), "p50_us", stepjson_us((double)pp->p50_ns), "p90_us",
		    stepjson_us((double)pp->p90_ns), "p99_us", stepjson_us((double)pp->p99_ns),
		    "p999_us", stepjson_us((double)pp->p999_ns), "max_us",
		    stepjson_us((double)pp->max_ns)));

		/* the storage's latency where the agent measured it apart, and the failures */
		if (pp->svc_mean_ns > 0) {
			json_object_set_new(o, "storage_mean_us", stepjson_us(pp->svc_mean_ns));
			json_object_set_new(o, "storage_p99_us",
			                    stepjson_us((double)pp->svc_p99_ns));
		}
		json_object_set_new(o, "errors", json_integer((json_int_t)pp->errors));
		json_array_append_new(a, o);
	}
	return a;
}
