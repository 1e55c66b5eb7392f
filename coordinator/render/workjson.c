/* SPDX-License-Identifier: MIT */
/* A workload's entry in summary.json: its knee, repeats, peak, limit and what it ran. */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>

#include "bgsummary.h"
#include "kinds.h"
#include "mixparts.h"
#include "observed.h"
#include "stepjson.h"
#include "workjson.h"

/*
 * The knee in both units: ops/s and MiB/s, whichever the workload is judged in; the
 * other at the mean block (a mix's shares times its sizes, curve_mean_mibps).
 */
void workjson_knee_units(const struct workload *w, const struct knee *k, double *ops, double *mibps)
{
	double per_op = curve_mean_mibps(w, 1);

	if (curve_uses_mib(w)) {
		*mibps = k->throughput;
		*ops = k->throughput / per_op;
	} else {
		*ops = k->throughput;
		*mibps = k->throughput * per_op;
	}
}

/* The knee's bracket, confirmation and precision, and the curve's shape, for summary.json. */
static void workjson_knee(json_t *o, const struct judged_curve *j)
{
	const struct knee *k = &j->knee;

	json_object_set_new(o, "knee_bracket",
	                    k->bracket_hi > 0 ? json_pack("[o,o]", stepjson_num(k->bracket_lo, 10),
	                                                  stepjson_num(k->bracket_hi, 10))
	                                      : json_null());
	/* the 95% band (knee.h): [low, high]; above the peak [knee, null]; null without */
	if (k->bracket_hi > 0)
		json_object_set_new(
		    o, "knee_band",
		    json_pack("[o,o]", k->band_lo > 0 ? stepjson_num(k->band_lo, 10) : json_null(),
		              stepjson_num(k->band_hi, 10)));
	else if (k->kind == KNEE_ALL_UNDER)
		json_object_set_new(
		    o, "knee_band",
		    json_pack("[o,o]", k->band_lo > 0 ? stepjson_num(k->band_lo, 10) : json_null(),
		              json_null()));
	else
		json_object_set_new(o, "knee_band", json_null());
	json_object_set_new(o, "knee_confirmed", json_boolean(k->confirmed));
	json_object_set_new(o, "knee_digits", json_integer(j->digits));
	json_object_set_new(o, "knee_precision", json_string(j->precision));
	json_object_set_new(o, "knee_advice", j->advice[0] ? json_string(j->advice) : json_null());
	json_object_set_new(o, "non_monotonic", json_boolean(k->non_monotonic));
	if (j->client_bound > 0) {
		/* only then: a quiet client's summary keeps its bytes */
		json_object_set_new(o, "knee_lower_bound", json_true());
		json_object_set_new(o, "client_bound_ops", stepjson_num(j->client_bound, 10));
		json_object_set_new(o, "client_measured_ops", stepjson_num(j->client_measured, 10));
	}
}

/* load.repeat: each repeat's knee, their mean and standard deviation (also in % of the mean). */
static void workjson_repeats(json_t *o, const struct judged_curve *j)
{
	const struct curve_repeats *r = &j->repeats;
	json_t *vals = stepjson_need(json_array());
	bool on = j->w->repeat >= 2;

	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(vals, stepjson_num(r->knee[i], 10));
	json_object_set_new(o, "knee_repeats", vals);
	json_object_set_new(o, "knee_mean", on && r->n ? stepjson_num(r->mean, 10) : json_null());
	json_object_set_new(o, "knee_spread", on && r->n ? stepjson_num(r->sd, 10) : json_null());
	json_object_set_new(o, "knee_spread_pct",
	                    on && r->n ? stepjson_num(curve_spread_pct(r), 100) : json_null());
	/* the mean's 95% interval, Student t with n - 1 degrees of freedom */
	json_object_set_new(o, "knee_mean_ci95",
	                    on && r->n ? json_pack("[o,o]", stepjson_num(r->mean - r->ci, 10),
	                                           stepjson_num(r->mean + r->ci, 10))
	                               : json_null());
}

/* The peak (capacity, no latency) and the sustained figure (valid, with its latency). */
static void workjson_peak(json_t *o, const struct judged_curve *j)
{
	const struct step_point *peak = j->peak, *sus = j->sustained;

	json_object_set_new(o, "peak_ops", stepjson_num(peak ? peak->achieved_ops : 0, 10));
	json_object_set_new(o, "peak_mibps", stepjson_num(peak ? peak->mib_s : 0, 1000));
	json_object_set_new(o, "peak_service_us", stepjson_us(peak ? peak->svc_mean_ns : 0));
	json_object_set_new(o, "peak_in_flight",
	                    stepjson_num(peak ? curve_in_flight(peak) : 0, 10));
	json_object_set_new(o, "peak_valid", json_boolean(peak && j->v[peak - j->sorted].valid));
	json_object_set_new(o, "sustained_ops", stepjson_num(sus ? sus->achieved_ops : 0, 10));
	json_object_set_new(o, "sustained_mibps", stepjson_num(sus ? sus->mib_s : 0, 1000));
	json_object_set_new(o, "sustained_latency_us",
	                    sus ? stepjson_us(step_metric(sus, j->c->slo_metric)) : json_null());
}

static json_t *workjson_stats(const struct storm_stats *st)
{
	return stepjson_need(json_pack(
	    "{s:I,s:o,s:o,s:o,s:o}", "n", (json_int_t)st->n, "min_s", stepjson_num(st->min_s, 1e6),
	    "median_s", stepjson_num(st->median_s, 1e6), "p90_s", stepjson_num(st->p90_s, 1e6),
	    "max_s", stepjson_num(st->max_s, 1e6)));
}

/*
 * Fixed work's figures (the storm): completion times per worker, per agent and for
 * the fleet, seconds; null before its step ran.
 */
static json_t *workjson_storm(const struct workload *w, const struct judged_curve *j)
{
	const struct storm *s = j->n > 0 ? &j->sorted[0].storm : NULL;
	json_t *marks;

	if (s == NULL || !s->on)
		return json_null();
	marks = stepjson_need(json_array());
	for (uint32_t i = 0; i < s->nmarks; i++)
		json_array_append_new(
		    marks, stepjson_need(json_pack("{s:s,s:o}", "label", s->mark_label[i], "at_s",
		                                   stepjson_num(s->mark_s[i], 1e6))));
	return stepjson_need(json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:I,s:b,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "work_ops",
	    (json_int_t)s->work_ops, "work_bytes", (json_int_t)(s->work_ops * w->io.block_size),
	    "workers", (json_int_t)s->workers, "finished", (json_int_t)s->finished, "agents",
	    (json_int_t)s->agents, "agents_finished", (json_int_t)s->agents_done, "complete",
	    (int)(s->workers > 0 && s->finished == s->workers), "least_done_pct",
	    stepjson_num(s->least_pct, 100), "storm_s",
	    s->finished == s->workers && s->workers > 0 ? stepjson_num(s->storm_s, 1e6)
	                                                : json_null(),
	    "first_start_s", stepjson_num(s->first_start_s, 1e6), "last_finish_s",
	    stepjson_num(s->last_finish_s, 1e6), "worker", workjson_stats(&s->worker), "agent",
	    workjson_stats(&s->agent), "finish_marks", marks, "ops",
	    json_integer((json_int_t)s->ops)));
}

/*
 * The rate cap diagnosis (ratecap.h): null without a flat top, else whether it is
 * a cap, its ceiling with the flat steps' 95% intervals, the service times and
 * in-flight it rests on, and why in words.
 */
static json_t *workjson_ratecap(const struct judged_curve *j)
{
	const struct ratecap *rc = &j->ratecap;
	json_t *steps;

	if (!rc->flat)
		return json_null();
	steps = stepjson_need(json_array());
	for (uint32_t i = 0; i < rc->nflat && i < THRESH_CAP_MAX_FLAT; i++)
		json_array_append_new(steps, json_integer(rc->flat_steps[i]));
	return stepjson_need(
	    json_pack("{s:b,s:o,s:[o,o],s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:s}", "capped", rc->capped,
	              "ceiling_ops", stepjson_num(rc->ceiling_ops, 10), "ceiling_band",
	              stepjson_num(rc->ceiling_lo, 10), stepjson_num(rc->ceiling_hi, 10),
	              "flat_steps", steps, "top_service_us", stepjson_us(rc->top_svc_ns),
	              "top_in_flight", stepjson_num(rc->top_in_flight, 10), "below_ops",
	              rc->below ? stepjson_num(rc->near_ops, 10) : json_null(), "below_service_us",
	              rc->below ? stepjson_us(rc->near_svc_ns) : json_null(), "low_ops",
	              rc->low ? stepjson_num(rc->low_ops, 10) : json_null(), "low_service_us",
	              rc->low ? stepjson_us(rc->low_svc_ns) : json_null(), "in_service",
	              rc->low ? stepjson_num(rc->in_service, 100) : json_null(), "why", rc->why));
}

/* One kind's figures at the peak (kinds.h): null where not measured apart. */
static json_t *workjson_kind(const struct step_point *p, enum kinds_kind k)
{
	struct kinds_fig f;

	if (p == NULL)
		return json_null();
	f = kinds_of(p, k);
	return stepjson_need(json_pack("{s:o,s:o,s:o,s:o}", "ops", stepjson_num(f.ops_s, 10),
	                               "mibps", f.known ? stepjson_num(f.mib_s, 1000) : json_null(),
	                               "mean_us", f.known ? stepjson_us(f.mean_ns) : json_null(),
	                               "p99_us",
	                               f.known ? stepjson_us((double)f.p99_ns) : json_null()));
}

/*
 * Sync writes at a point (the peak): their count in its window, rate, mean and p99
 * (submission to completion), beside the data's and not in them.
 */
static json_t *workjson_sync(const struct step_point *p)
{
	if (p == NULL)
		return json_null();
	return stepjson_need(json_pack(
	    "{s:I,s:o,s:o,s:o,s:o}", "syncs", (json_int_t)p->sync.count, "ops",
	    stepjson_num(p->sync.ops_s, 10), "mean_us", stepjson_us(p->sync.mean_ns), "p99_us",
	    stepjson_us((double)p->sync.p99_ns), "max_us", stepjson_us((double)p->sync.max_ns)));
}

/* {step, at: "knee" | "peak", parts: [...]} as curve-*.json's parts; null without steps. */
static json_t *workjson_parts_at_knee(const struct judged_curve *j)
{
	bool at_knee;
	const struct step_point *p = mixparts_step(j, &at_knee);

	if (p == NULL)
		return json_null();
	return stepjson_need(json_pack("{s:I,s:s,s:o}", "step", (json_int_t)p->step + 1, "at",
	                               at_knee ? "knee" : "peak", "parts",
	                               stepjson_parts(&j->w->io.mix, p)));
}

json_t *workjson_workload(const struct judged_curve *j, const struct runend *end)
{
	char storage[768];
	const struct workload *w = j->w;
	double kops, kmib;
	json_t *o, *bg;

	workjson_knee_units(w, &j->knee, &kops, &kmib);
	o = stepjson_need(json_pack("{s:s,s:s,s:I,s:b,s:I,s:o,s:o,s:s}", "name", w->name, "rw",
	                            rw_mode_name(w->io.rw), "block_size",
	                            (json_int_t)w->io.block_size, "direct", (int)w->io.direct,
	                            "steps", (json_int_t)j->n, "knee_ops", stepjson_num(kops, 10),
	                            "knee_mibps", stepjson_num(kmib, 1000), "knee_kind", j->kind));
	/* a replay's knee as a speed of its trace (knee_ops over its x1 rate); null otherwise */
	json_object_set_new(o, "knee_speed", stepjson_num(curve_speed(w, kops), 1000));
	workjson_knee(o, j);
	workjson_repeats(o, j);
	workjson_peak(o, j);
	json_object_set_new(o, "limit", json_string(j->limit));
	/* the storage's side of it, from observe: (observed.h); absent when nothing is observed */
	if (j->c->nobserve > 0)
		json_object_set_new(o, "storage_limit",
		                    observed_bottleneck(end, j, storage, sizeof(storage))
		                        ? json_string(storage)
		                        : json_null());
	if (w->work.on)
		json_object_set_new(o, "fixed_work", workjson_storm(w, j));
	/* units: decimal: the figures as shown too, beside the MiB/s keys that stay */
	if (curve_decimal(w)) {
		json_object_set_new(o, "units", json_string("decimal"));
		json_object_set_new(o, "knee_mbps", stepjson_num(kmib * CURVE_MB_PER_MIB, 1000));
		json_object_set_new(
		    o, "peak_mbps",
		    stepjson_num(j->peak ? j->peak->mib_s * CURVE_MB_PER_MIB : 0, 1000));
	}
	/* targets: the test (the workload as written) and the target of the pair */
	if (j->c->multi_target) {
		json_object_set_new(o, "test", json_string(w->test));
		json_object_set_new(o, "target", json_string(campaign_target_of(j->c, w)->name));
	}
	json_object_set_new(o, "rate_cap", workjson_ratecap(j));
	/* Read and write apart at the peak: a mixed workload's only (docs/campaign.md). */
	if (agg_mixed(w)) {
		json_object_set_new(o, "read_pct", json_integer(w->io.read_pct));
		json_object_set_new(o, "read_at_peak", workjson_kind(j->peak, KINDS_READ));
		json_object_set_new(o, "write_at_peak", workjson_kind(j->peak, KINDS_WRITE));
	}
	/* Sync writes: what the workload asks, and its syncs at the peak (docs/campaign.md). */
	if (w->io.fsync != 0 || w->io.fdatasync != 0 || w->io.dsync) {
		json_object_set_new(o, "sync",
		                    json_pack("{s:I,s:I,s:b}", "fsync", (json_int_t)w->io.fsync,
		                              "fdatasync", (json_int_t)w->io.fdatasync, "dsync",
		                              (int)w->io.dsync));
		json_object_set_new(o, "sync_at_peak", workjson_sync(j->peak));
	}
	/* A mix: its parts at the knee's step (the met one at or under it), else the peak. */
	if (w->io.mix.nparts > 0)
		json_object_set_new(o, "parts_at_knee", workjson_parts_at_knee(j));
	/* Load under load: the background beside it, at the knee and over every step. */
	if ((bg = bgsummary_json(j)) != NULL)
		json_object_set_new(o, "background", stepjson_need(bg));
	return o;
}
